/*
 * Fuzz target: compendium sets and TCRF tagfiles (CONTAINERS.md §2.11).
 * Input: u32 LE length L, then L bytes added to a compendium set with
 * hks_compendium_set_add, then the rest read with hks_file_read against the
 * set (a tagfile that references the compendium by ID).
 */
#include "fuzz.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 4)
		return 0;
	size_t len = (size_t)data[0] | (size_t)data[1] << 8 | (size_t)data[2] << 16 | (size_t)data[3] << 24;
	data += 4, size -= 4;
	if (len > size)
		len = size;
	hks_options o;
	fuzz_options(&o);
	hks_compendium_set *set = NULL;
	hks_error err;
	if (hks_compendium_set_create(&o, &set, &err) != HKS_OK)
		return 0;
	/* exact-size copies so that reads past either part are caught */
	uint8_t *comp = (uint8_t *)malloc(len ? len : 1);
	uint8_t *tag = (uint8_t *)malloc(size - len ? size - len : 1);
	memcpy(comp, data, len);
	memcpy(tag, data + len, size - len);
	int conflict = 0;
	if (hks_compendium_set_add(set, comp, len, "fuzz.compendium", &conflict, &err) == HKS_OK) {
		FUZZ_CHECK(hks_compendium_set_count(set) > 0);
		/* adding it again conflicts with nothing and changes nothing */
		size_t before = hks_compendium_set_count(set);
		(void)hks_compendium_set_add(set, comp, len, "again.compendium", &conflict, &err);
		FUZZ_CHECK(hks_compendium_set_count(set) == before);
	}
	free(comp);
	hks_read_options ro;
	memset(&ro, 0, sizeof(ro));
	fuzz_options(&ro.base);
	ro.compendiums = set;
	hks_file *file = NULL;
	if (hks_file_read(tag, size - len, &ro, &file, &err) == HKS_OK) {
		fuzz_walk_file(file);
		hks_write_options wo;
		memset(&wo, 0, sizeof(wo));
		fuzz_options(&wo.base);
		uint8_t *out = NULL;
		size_t out_size = 0;
		if (hks_file_write(file, &wo, &out, &out_size, &err) == HKS_OK)
			hks_buffer_free(&wo.base, out, out_size);
		hks_file_free(file);
	}
	free(tag);
	hks_compendium_set_free(set);
	return 0;
}
