/*
 * Fuzz target: any Havok file (tagfile, compendium, packfile, XML) through
 * the dispatcher hks_file_read; when it parses, every spline animation is
 * walked and sampled, the file is written back and the result read again.
 */
#include "fuzz.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hks_read_options ro;
	memset(&ro, 0, sizeof(ro));
	fuzz_options(&ro.base);
	hks_file *file = NULL;
	hks_error err;
	if (hks_file_read(data, size, &ro, &file, &err) != HKS_OK) {
		FUZZ_CHECK(file == NULL && err.code != HKS_OK);
		return 0;
	}
	fuzz_walk_file(file);
	hks_write_options wo;
	memset(&wo, 0, sizeof(wo));
	fuzz_options(&wo.base);
	uint8_t *out = NULL;
	size_t out_size = 0;
	if (hks_file_write(file, &wo, &out, &out_size, &err) == HKS_OK) {
		hks_file *again = NULL;
		/* what the writer produced from a valid file must read back */
		hks_result again_r = hks_file_read(out, out_size, &ro, &again, &err);
		if (again_r != HKS_OK)
			fprintf(stderr, "the written file does not read back: %s\n", err.message);
		FUZZ_CHECK(again_r == HKS_OK);
		FUZZ_CHECK(again_r != HKS_OK || again->num_animations == file->num_animations);
		hks_file_free(again);
		hks_buffer_free(&wo.base, out, out_size);
	}
	hks_file_free(file);
	return 0;
}
