/*
 * Fuzz target: the binary packfile reader (CONTAINERS.md §5). The first 8
 * bytes are replaced by the packfile magic so that every input reaches the
 * packfile parser rather than the dispatcher's "unknown magic" error; then
 * as fuzz_file: walk + sample, write back, read again.
 */
#include "fuzz.h"
#include "fuzz_common.h"

static const uint8_t packfile_magic[8] = {0x57, 0xE0, 0xE0, 0x57, 0x10, 0xC0, 0xC0, 0x10};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 8)
		return 0;
	uint8_t *copy = (uint8_t *)malloc(size);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	memcpy(copy, packfile_magic, 8);
	hks_read_options ro;
	memset(&ro, 0, sizeof(ro));
	fuzz_options(&ro.base);
	hks_file *file = NULL;
	hks_error err;
	hks_result r = hks_file_read(copy, size, &ro, &file, &err);
	free(copy); /* the reader copies what it keeps */
	if (r != HKS_OK) {
		FUZZ_CHECK(file == NULL && err.code == r);
		return 0;
	}
	FUZZ_CHECK(file->container == HKS_CONTAINER_PACKFILE);
	fuzz_walk_file(file);
	hks_write_options wo;
	memset(&wo, 0, sizeof(wo));
	fuzz_options(&wo.base);
	uint8_t *out = NULL;
	size_t out_size = 0;
	if (hks_file_write(file, &wo, &out, &out_size, &err) == HKS_OK) {
		hks_file *again = NULL;
		hks_result again_r = hks_file_read(out, out_size, &ro, &again, &err);
		if (again_r != HKS_OK)
			fprintf(stderr, "the written file does not read back: %s\n", err.message);
		FUZZ_CHECK(again_r == HKS_OK);
		hks_file_free(again);
		hks_buffer_free(&wo.base, out, out_size);
	}
	hks_file_free(file);
	return 0;
}
