/*
 * Fuzz target: BND4 binders (CONTAINERS.md §6). hks_bnd4_read; when it
 * parses, every entry is looked up by name, the binder is written and the
 * result read again with the same entries (names, sizes, bytes).
 */
#include "fuzz.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hks_options o;
	fuzz_options(&o);
	hks_bnd4 *bnd = NULL;
	hks_error err;
	if (hks_bnd4_read(data, size, &o, &bnd, &err) != HKS_OK) {
		FUZZ_CHECK(bnd == NULL && err.code != HKS_OK);
		return 0;
	}
	for (uint32_t i = 0; i < bnd->num_entries && i < 64; i++) {
		uint32_t at;
		if (bnd->entries[i].name)
			(void)hks_bnd4_find(bnd, bnd->entries[i].name, &at, &err);
	}
	uint8_t *out = NULL;
	size_t out_size = 0;
	if (hks_bnd4_write(bnd, &o, &out, &out_size, &err) == HKS_OK) {
		hks_bnd4 *again = NULL;
		FUZZ_CHECK(hks_bnd4_read(out, out_size, &o, &again, &err) == HKS_OK);
		FUZZ_CHECK(again->num_entries == bnd->num_entries);
		for (uint32_t i = 0; i < bnd->num_entries; i++) {
			FUZZ_CHECK(again->entries[i].size == bnd->entries[i].size);
			FUZZ_CHECK(!bnd->entries[i].size ||
			           !memcmp(again->entries[i].data, bnd->entries[i].data, (size_t)bnd->entries[i].size));
		}
		hks_bnd4_free(again);
		hks_buffer_free(&o, out, out_size);
	}
	hks_bnd4_free(bnd);
	return 0;
}
