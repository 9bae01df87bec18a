/*
 * Fuzz target: the Havok XML reader (both dialects, CONTAINERS.md §8). Inputs
 * that do not look like XML are given an XML declaration so that they reach
 * the XML parser; parsed files are walked and sampled.
 */
#include "fuzz.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char decl[] = "<?xml version=\"1.0\"?>\n";
	const size_t dl = sizeof(decl) - 1;
	int has = hks_detect_container(data, size) == HKS_CONTAINER_XML;
	size_t n = has ? size : size + dl;
	uint8_t *copy = (uint8_t *)malloc(n ? n : 1);
	if (!copy)
		return 0;
	if (!has)
		memcpy(copy, decl, dl);
	if (size)
		memcpy(copy + (has ? 0 : dl), data, size);
	hks_read_options ro;
	memset(&ro, 0, sizeof(ro));
	fuzz_options(&ro.base);
	hks_file *file = NULL;
	hks_error err;
	hks_result r = hks_file_read(copy, n, &ro, &file, &err);
	free(copy);
	if (r != HKS_OK) {
		FUZZ_CHECK(file == NULL && err.code == r);
		return 0;
	}
	fuzz_walk_file(file);
	hks_file_free(file);
	return 0;
}
