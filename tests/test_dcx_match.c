/*
 * hks_dcx_match_level on generated data: a DCX deflated at level L behind a
 * header whose level byte is 9 is matched at L (the header's level first,
 * then the others), a stream changed in one byte is matched at no level, and
 * what is not a DFLT DCX of the given content gives 0.
 */
#include "hks_test.h"

#include <stdlib.h>
#include <string.h>

static uint8_t *sample(size_t n)
{
	uint8_t *d = malloc(n);
	assert_non_null(d);
	uint32_t x = 12345;
	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		/* compressible but not trivial: runs, text-like bytes and noise */
		d[i] = (uint8_t)((i % 97 < 40) ? 'a' + (i % 7) : (x >> 24) & ((i % 5) ? 0x0F : 0xFF));
	}
	return d;
}

static void test_levels(void **state)
{
	(void)state;
	size_t n = 300000;
	uint8_t *raw = sample(n);
	for (int level = 1; level <= 9; level++) {
		hks_dcx_info like;
		memset(&like, 0, sizeof(like));
		like.deflate_level = (uint8_t)level; /* no header given: the default one, level byte 9 */
		uint8_t *dcx = NULL;
		size_t size = 0;
		assert_int_equal(hks_dcx_compress(raw, n, &like, NULL, &dcx, &size, NULL), HKS_OK);
		int found = hks_dcx_match_level(raw, n, dcx, size);
		/* zlib levels 1-3 and 4-9 use different algorithms; two levels may give the
		 * same stream on some data, so the found level must reproduce the bytes */
		assert_true(found >= 1 && found <= 9);
		hks_dcx_info info;
		assert_int_equal(hks_dcx_read_info(dcx, size, &info, NULL), HKS_OK);
		info.deflate_level = (uint8_t)found;
		uint8_t *again = NULL;
		size_t again_size = 0;
		assert_int_equal(hks_dcx_compress(raw, n, &info, NULL, &again, &again_size, NULL), HKS_OK);
		assert_int_equal(again_size, size);
		assert_memory_equal(again, dcx, size);
		if (level == 9)
			assert_int_equal(found, 9); /* the header's level is tried first */
		hks_buffer_free(NULL, again, again_size);

		/* one stream byte changed: no level gives it */
		dcx[HKS_DCX_HEADER_SIZE + size / 2 - HKS_DCX_HEADER_SIZE / 2] ^= 0x40;
		assert_int_equal(hks_dcx_match_level(raw, n, dcx, size), 0);
		hks_buffer_free(NULL, dcx, size);
	}
	/* not a DCX, or another content */
	assert_int_equal(hks_dcx_match_level(raw, n, raw, n), 0);
	hks_dcx_info like;
	memset(&like, 0, sizeof(like));
	uint8_t *dcx = NULL;
	size_t size = 0;
	assert_int_equal(hks_dcx_compress(raw, n, &like, NULL, &dcx, &size, NULL), HKS_OK);
	assert_int_equal(hks_dcx_match_level(raw, n - 1, dcx, size), 0);
	assert_int_equal(hks_dcx_match_level(raw, n, dcx, size - 1), 0);
	assert_int_equal(hks_dcx_match_level(NULL, 0, dcx, size), 0);
	hks_buffer_free(NULL, dcx, size);
	free(raw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_levels),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
