/*
 * Fuzz target: DCX (CONTAINERS.md §7). hks_dcx_read_info and
 * hks_dcx_decompress; a decompressed payload is compressed again with the
 * same header and must decompress to the same bytes.
 */
#include "fuzz.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hks_options o;
	fuzz_options(&o);
	hks_dcx_info info;
	hks_error err;
	(void)hks_dcx_read_info(data, size, &info, &err);
	uint8_t *out = NULL;
	size_t out_size = 0;
	if (hks_dcx_decompress(data, size, &o, &out, &out_size, &info, &err) != HKS_OK) {
		FUZZ_CHECK(out == NULL);
		return 0;
	}
	FUZZ_CHECK(out_size == info.uncompressed_size);
	uint8_t *again = NULL, *back = NULL;
	size_t again_size = 0, back_size = 0;
	if (hks_dcx_compress(out, out_size, &info, &o, &again, &again_size, &err) == HKS_OK) {
		FUZZ_CHECK(hks_dcx_decompress(again, again_size, &o, &back, &back_size, NULL, &err) == HKS_OK);
		FUZZ_CHECK(back_size == out_size && (!out_size || !memcmp(back, out, out_size)));
		hks_buffer_free(&o, back, back_size);
		hks_buffer_free(&o, again, again_size);
	}
	hks_buffer_free(&o, out, out_size);
	return 0;
}
