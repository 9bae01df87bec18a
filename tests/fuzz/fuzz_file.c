/*
 * Fuzz target: any Havok file (tagfile, compendium, packfile, XML) through
 * hks_file_read; when it parses, write it back and read the result again.
 */
#include "fuzz.h"

#include "hkspline.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hks_read_options ro = {0};
	ro.base.limits.max_memory = 256u << 20;
	hks_file *file = NULL;
	hks_error err;
	if (hks_file_read(data, size, &ro, &file, &err) != HKS_OK)
		return 0;
	hks_write_options wo = {0};
	uint8_t *out = NULL;
	size_t out_size = 0;
	if (hks_file_write(file, &wo, &out, &out_size, &err) == HKS_OK) {
		hks_file *again = NULL;
		if (hks_file_read(out, out_size, &ro, &again, &err) == HKS_OK)
			hks_file_free(again);
		hks_buffer_free(&wo.base, out, out_size);
	}
	hks_file_free(file);
	return 0;
}
