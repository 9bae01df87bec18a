/* DCX (CONTAINERS.md §7): archives built here with the writer (and zlib),
 * read back; truncation, corruption, unsupported compressions, limits. */
#include "hks_test.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* Deterministic, somewhat compressible test bytes. */
static uint8_t *make_payload(size_t n)
{
	uint8_t *p = (uint8_t *)malloc(n ? n : 1);
	uint32_t x = 12345;
	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = (uint8_t)((i % 7 == 0) ? (x >> 24) : (i & 0x3F));
	}
	return p;
}

static void build(const uint8_t *data, size_t n, const hks_dcx_info *like, uint8_t **out, size_t *out_size)
{
	hks_error e;
	assert_int_equal(hks_dcx_compress(data, n, like, NULL, out, out_size, &e), HKS_OK);
}

/* A DCX header of the §7.1 layout with the given tag, hand-written. */
static void hand_header(uint8_t h[0x4C], const char *tag, uint32_t usize, uint32_t csize, uint8_t level)
{
	memset(h, 0, 0x4C);
	memcpy(h, "DCX\0", 4);
	hks_put_be32(h + 4, 0x11000);
	hks_put_be32(h + 8, 0x18);
	hks_put_be32(h + 12, 0x24);
	hks_put_be32(h + 16, 0x44);
	hks_put_be32(h + 20, 0x4C);
	memcpy(h + 0x18, "DCS\0", 4);
	hks_put_be32(h + 0x1C, usize);
	hks_put_be32(h + 0x20, csize);
	memcpy(h + 0x24, "DCP\0", 4);
	memcpy(h + 0x28, tag, 4);
	hks_put_be32(h + 0x2C, 0x20);
	h[0x30] = level;
	hks_put_be32(h + 0x40, 0x10100);
	memcpy(h + 0x44, "DCA\0", 4);
	hks_put_be32(h + 0x48, 8);
}

static void test_roundtrip_default_header(void **state)
{
	(void)state;
	size_t n = 100000;
	uint8_t *src = make_payload(n);
	uint8_t *dcx;
	size_t dcx_size;
	build(src, n, NULL, &dcx, &dcx_size);
	/* the DFLT_11000_44_9 header of §7.1, byte by byte */
	uint8_t want[0x4C];
	hand_header(want, "DFLT", (uint32_t)n, (uint32_t)(dcx_size - 0x4C), 9);
	assert_memory_equal(dcx, want, 0x4C);
	/* zlib level 9 stream: 78 DA */
	assert_int_equal(dcx[0x4C], 0x78);
	assert_int_equal(dcx[0x4D], 0xDA);
	/* the payload is an ordinary zlib stream */
	uLongf check = (uLongf)n;
	uint8_t *z = (uint8_t *)malloc(n);
	assert_int_equal(uncompress(z, &check, dcx + 0x4C, (uLong)(dcx_size - 0x4C)), Z_OK);
	assert_int_equal(check, n);
	assert_memory_equal(z, src, n);
	free(z);

	hks_dcx_info info;
	hks_error e;
	assert_int_equal(hks_dcx_read_info(dcx, dcx_size, &info, &e), HKS_OK);
	assert_string_equal(info.compression, "DFLT");
	assert_int_equal(info.version, 0x11000);
	assert_int_equal(info.uncompressed_size, n);
	assert_int_equal(info.compressed_size, dcx_size - 0x4C);
	assert_int_equal(info.level, 9);
	assert_int_equal(info.header_size, 0x4C);

	uint8_t *out;
	size_t out_size;
	memset(&info, 0, sizeof(info));
	assert_int_equal(hks_dcx_decompress(dcx, dcx_size, NULL, &out, &out_size, &info, &e), HKS_OK);
	assert_int_equal(out_size, n);
	assert_memory_equal(out, src, n);
	assert_memory_equal(info.header, dcx, 0x4C);
	hks_buffer_free(NULL, out, out_size);

	/* Re-compressing with the header we read gives the same archive. */
	uint8_t *again;
	size_t again_size;
	build(src, n, &info, &again, &again_size);
	assert_int_equal(again_size, dcx_size);
	assert_memory_equal(again, dcx, dcx_size);
	hks_buffer_free(NULL, again, again_size);
	hks_buffer_free(NULL, dcx, dcx_size);
	free(src);
}

static void test_header_kept_from_like(void **state)
{
	(void)state;
	/* DFLT_11000_44_9_15-like header with level 8 and the byte at 0x38 set */
	hks_dcx_info like;
	memset(&like, 0, sizeof(like));
	hand_header(like.header, "DFLT", 0, 0, 8);
	like.header[0x38] = 15;
	like.header_size = 0x4C;
	memcpy(like.compression, "DFLT", 5);
	like.level = 8;
	size_t n = 5000;
	uint8_t *src = make_payload(n);
	uint8_t *dcx;
	size_t dcx_size;
	build(src, n, &like, &dcx, &dcx_size);
	assert_int_equal(dcx[0x30], 8);
	assert_int_equal(dcx[0x38], 15);
	assert_memory_equal(dcx + 0x24, like.header + 0x24, 0x4C - 0x24);
	assert_int_equal(hks_be32(dcx + 0x1C), n);
	assert_int_equal(hks_be32(dcx + 0x20), dcx_size - 0x4C);

	/* A KRAK "like" is written as DFLT (CONTAINERS.md §7.3 point 3). */
	hks_dcx_info krak = like;
	hand_header(krak.header, "KRAK", 0, 0, 6);
	memcpy(krak.compression, "KRAK", 5);
	uint8_t *d2;
	size_t d2_size;
	build(src, n, &krak, &d2, &d2_size);
	assert_memory_equal(d2 + 0x28, "DFLT", 4);
	assert_int_equal(d2[0x30], 9);
	uint8_t *out;
	size_t out_size;
	hks_error e;
	assert_int_equal(hks_dcx_decompress(d2, d2_size, NULL, &out, &out_size, NULL, &e), HKS_OK);
	assert_memory_equal(out, src, n);
	hks_buffer_free(NULL, out, out_size);
	hks_buffer_free(NULL, d2, d2_size);
	hks_buffer_free(NULL, dcx, dcx_size);
	free(src);
}

static void test_deflate_level_override(void **state)
{
	(void)state;
	/* deflate at level 6 behind the level-9 header: the stream is zlib's level-6
	 * deflate data, and its 2-byte zlib header is the one of level 9 (78 DA) */
	size_t n = 60000;
	uint8_t *src = make_payload(n);
	hks_dcx_info like;
	memset(&like, 0, sizeof(like));
	like.deflate_level = 6;
	uint8_t *dcx;
	size_t dcx_size;
	build(src, n, &like, &dcx, &dcx_size);
	assert_int_equal(dcx[0x30], 9);
	assert_int_equal(dcx[0x4C], 0x78);
	assert_int_equal(dcx[0x4D], 0xDA);
	uLongf zn = compressBound((uLong)n);
	uint8_t *z = (uint8_t *)malloc(zn);
	assert_int_equal(compress2(z, &zn, src, (uLong)n, 6), Z_OK);
	assert_int_equal(z[0], 0x78);
	assert_int_equal(z[1], 0x9C);
	assert_int_equal(dcx_size - 0x4C, zn);
	assert_memory_equal(dcx + 0x4C + 2, z + 2, zn - 2);
	uint8_t *out;
	size_t out_size;
	hks_error e;
	assert_int_equal(hks_dcx_decompress(dcx, dcx_size, NULL, &out, &out_size, NULL, &e), HKS_OK);
	assert_memory_equal(out, src, n);
	hks_buffer_free(NULL, out, out_size);
	/* FLEVEL for the other level bytes: 1 -> 0 (78 01), 5 -> 1 (78 5E), 6 -> 2 (78 9C) */
	const uint8_t levels[3] = {1, 5, 6}, second[3] = {0x01, 0x5E, 0x9C};
	for (int k = 0; k < 3; k++) {
		hks_dcx_info l2;
		memset(&l2, 0, sizeof(l2));
		hand_header(l2.header, "DFLT", 0, 0, levels[k]);
		l2.header_size = 0x4C;
		l2.deflate_level = 9;
		uint8_t *d2;
		size_t d2_size;
		build(src, n, &l2, &d2, &d2_size);
		assert_int_equal(d2[0x4D], second[k]);
		assert_int_equal(hks_dcx_decompress(d2, d2_size, NULL, &out, &out_size, NULL, &e), HKS_OK);
		hks_buffer_free(NULL, out, out_size);
		hks_buffer_free(NULL, d2, d2_size);
	}
	free(z);
	hks_buffer_free(NULL, dcx, dcx_size);
	free(src);
}

static void test_empty_payload(void **state)
{
	(void)state;
	uint8_t *dcx;
	size_t dcx_size;
	build(NULL, 0, NULL, &dcx, &dcx_size);
	uint8_t *out = (uint8_t *)1;
	size_t out_size = 99;
	hks_error e;
	assert_int_equal(hks_dcx_decompress(dcx, dcx_size, NULL, &out, &out_size, NULL, &e), HKS_OK);
	assert_int_equal(out_size, 0);
	hks_buffer_free(NULL, out, out_size);
	hks_buffer_free(NULL, dcx, dcx_size);
}

static void test_truncation_every_length(void **state)
{
	(void)state;
	size_t n = 3000;
	uint8_t *src = make_payload(n);
	uint8_t *dcx;
	size_t dcx_size;
	build(src, n, NULL, &dcx, &dcx_size);
	for (size_t len = 0; len < dcx_size; len++) {
		uint8_t *cut = (uint8_t *)malloc(len ? len : 1);
		memcpy(cut, dcx, len);
		uint8_t *out = NULL;
		size_t out_size = 0;
		hks_error e;
		hks_result r = hks_dcx_decompress(cut, len, NULL, &out, &out_size, NULL, &e);
		assert_int_equal(r, HKS_E_TRUNCATED);
		assert_int_equal(e.code, HKS_E_TRUNCATED);
		assert_null(out);
		assert_true(e.message[0] != '\0');
		free(cut);
	}
	hks_buffer_free(NULL, dcx, dcx_size);
	free(src);
}

static hks_result decompress_copy(const uint8_t *d, size_t n, hks_error *e)
{
	uint8_t *out = NULL;
	size_t out_size = 0;
	hks_result r = hks_dcx_decompress(d, n, NULL, &out, &out_size, NULL, e);
	if (r == HKS_OK)
		hks_buffer_free(NULL, out, out_size);
	else
		assert_null(out);
	return r;
}

static void test_corrupted_fields(void **state)
{
	(void)state;
	size_t n = 4000;
	uint8_t *src = make_payload(n);
	uint8_t *dcx;
	size_t size;
	build(src, n, NULL, &dcx, &size);
	uint8_t *d = (uint8_t *)malloc(size + 16);
	hks_error e;

#define RESET() memcpy(d, dcx, size)
	RESET();
	assert_int_equal(decompress_copy(d, size, &e), HKS_OK);

	/* declared uncompressed size larger and smaller than the stream */
	RESET();
	hks_put_be32(d + 0x1C, (uint32_t)n + 1);
	assert_int_equal(decompress_copy(d, size, &e), HKS_E_MALFORMED);
	assert_non_null(strstr(e.message, "inflates"));
	RESET();
	hks_put_be32(d + 0x1C, (uint32_t)n - 1);
	assert_int_equal(decompress_copy(d, size, &e), HKS_E_MALFORMED);
	RESET();
	hks_put_be32(d + 0x1C, 0);
	assert_int_equal(decompress_copy(d, size, &e), HKS_E_MALFORMED);
	/* compressed size beyond the file */
	RESET();
	hks_put_be32(d + 0x20, (uint32_t)(size - 0x4C + 1));
	assert_int_equal(decompress_copy(d, size, &e), HKS_E_TRUNCATED);
	RESET();
	hks_put_be32(d + 0x20, 0xFFFFFFFFu);
	assert_int_equal(decompress_copy(d, size, &e), HKS_E_TRUNCATED);
	/* compressed size shorter than the stream */
	RESET();
	hks_put_be32(d + 0x20, (uint32_t)(size - 0x4C - 10));
	assert_int_equal(decompress_copy(d, size, &e), HKS_E_TRUNCATED);
	/* bytes after the payload are ignored */
	RESET();
	memset(d + size, 0xAB, 16);
	assert_int_equal(decompress_copy(d, size + 16, &e), HKS_OK);
	/* zlib damage: header check, then a flipped byte inside the deflate data and the Adler-32 */
	RESET();
	d[0x4C] = 0x79;
	assert_int_equal(decompress_copy(d, size, &e), HKS_E_MALFORMED);
	assert_int_equal(e.member[0] != '\0', 1);
	RESET();
	d[size - 1] ^= 0x55;
	assert_int_equal(decompress_copy(d, size, &e), HKS_E_MALFORMED);
	/* structure */
	RESET();
	d[0] = 'X';
	assert_int_equal(decompress_copy(d, size, &e), HKS_E_MALFORMED);
	RESET();
	memcpy(d + 0x18, "DCZ\0", 4);
	assert_int_equal(decompress_copy(d, size, &e), HKS_E_MALFORMED);
	assert_int_equal(e.offset, 0x18);
	RESET();
	memcpy(d + 0x24, "XCP\0", 4);
	assert_int_equal(decompress_copy(d, size, &e), HKS_E_MALFORMED);
	RESET();
	memcpy(d + 0x44, "DCB\0", 4);
	assert_int_equal(decompress_copy(d, size, &e), HKS_E_MALFORMED);
	RESET();
	hks_put_be32(d + 0x48, 12);
	assert_int_equal(decompress_copy(d, size, &e), HKS_E_UNSUPPORTED);
	RESET();
	hks_put_be32(d + 0x0C, 0x28);
	assert_int_equal(decompress_copy(d, size, &e), HKS_E_MALFORMED);
	RESET();
	hks_put_be32(d + 0x2C, 0x24);
	assert_int_equal(decompress_copy(d, size, &e), HKS_E_MALFORMED);
	/* a file name from the options goes into the record */
	RESET();
	d[1] = 'Q';
	hks_options o = {0};
	o.name = "c9999.anibnd.dcx";
	uint8_t *out = NULL;
	size_t out_size = 0;
	assert_int_equal(hks_dcx_decompress(d, size, &o, &out, &out_size, NULL, &e), HKS_E_MALFORMED);
	assert_string_equal(e.file, "c9999.anibnd.dcx");
	assert_int_equal(e.offset, 0);
#undef RESET
	free(d);
	hks_buffer_free(NULL, dcx, size);
	free(src);
}

static void test_unsupported_compressions(void **state)
{
	(void)state;
	uint8_t d[0x4C + 32];
	memset(d, 0x11, sizeof(d));
	hks_error e;
	char text[1024];
	/* KRAK: the actionable message of CONTAINERS.md §7.3, even with only the header present */
	hand_header(d, "KRAK", 1000000, 32, 6);
	hks_options o = {0};
	o.name = "c1060.anibnd.dcx";
	uint8_t *out = NULL;
	size_t out_size = 0;
	for (size_t len = 0x4C; len <= sizeof(d); len += 32) {
		assert_int_equal(hks_dcx_decompress(d, len, &o, &out, &out_size, NULL, &e), HKS_E_UNSUPPORTED);
		assert_null(out);
		assert_non_null(strstr(e.message, "KRAK"));
		assert_non_null(strstr(e.message, "Oodle Kraken"));
		assert_non_null(strstr(e.message, "Unpack it first"));
		assert_non_null(strstr(e.message, ".anibnd"));
		hks_error_format(&e, text, sizeof(text));
		assert_true(strncmp(text, "c1060.anibnd.dcx: ", 18) == 0);
	}
	/* its header still reads as information */
	hks_dcx_info info;
	assert_int_equal(hks_dcx_read_info(d, sizeof(d), &info, &e), HKS_OK);
	assert_string_equal(info.compression, "KRAK");
	assert_int_equal(info.level, 6);

	hand_header(d, "ZSTD", 100, 32, 0);
	assert_int_equal(decompress_copy(d, sizeof(d), &e), HKS_E_UNSUPPORTED);
	assert_non_null(strstr(e.message, "ZSTD"));
	hand_header(d, "EDGE", 100, 32, 0);
	assert_int_equal(decompress_copy(d, sizeof(d), &e), HKS_E_UNSUPPORTED);
	assert_non_null(strstr(e.message, "EDGE"));
	/* a non-printable tag is shown with '?' */
	hand_header(d, "\x01\x02XY", 100, 32, 0);
	assert_int_equal(decompress_copy(d, sizeof(d), &e), HKS_E_UNSUPPORTED);
	assert_non_null(strstr(e.message, "??XY"));
	/* a bare DCP stream */
	memcpy(d, "DCP\0", 4);
	assert_int_equal(decompress_copy(d, sizeof(d), &e), HKS_E_UNSUPPORTED);
	assert_non_null(strstr(e.message, "DCP"));
}

static void test_limits(void **state)
{
	(void)state;
	size_t n = 50000;
	uint8_t *src = make_payload(n);
	uint8_t *dcx;
	size_t size;
	build(src, n, NULL, &dcx, &size);
	hks_options o = {0};
	hks_error e;
	uint8_t *out = NULL;
	size_t out_size = 0;
	o.limits.max_output_bytes = n - 1;
	assert_int_equal(hks_dcx_decompress(dcx, size, &o, &out, &out_size, NULL, &e), HKS_E_LIMIT);
	assert_null(out);
	o.limits.max_output_bytes = n;
	assert_int_equal(hks_dcx_decompress(dcx, size, &o, &out, &out_size, NULL, &e), HKS_OK);
	hks_buffer_free(&o, out, out_size);
	/* a header claiming 4 GiB - 1 from a tiny file: refused before allocating */
	uint8_t *big = (uint8_t *)malloc(size);
	memcpy(big, dcx, size);
	hks_put_be32(big + 0x1C, 0xFFFFFFFFu);
	out = NULL;
	assert_int_equal(hks_dcx_decompress(big, size, NULL, &out, &out_size, NULL, &e), HKS_E_LIMIT);
	assert_null(out);
	free(big);
	/* output limit on the writer */
	o.limits.max_output_bytes = 100;
	assert_int_equal(hks_dcx_compress(src, n, NULL, &o, &out, &out_size, &e), HKS_E_LIMIT);
	hks_buffer_free(NULL, dcx, size);
	free(src);
}

/* The allocator hook sees every byte returned. */
typedef struct counting {
	long long live;
	long calls;
} counting;
static void *c_alloc(void *u, size_t n)
{
	((counting *)u)->live += (long long)n;
	((counting *)u)->calls++;
	return malloc(n);
}
static void *c_realloc(void *u, void *p, size_t o, size_t n)
{
	((counting *)u)->live += (long long)n - (long long)o;
	return realloc(p, n);
}
static void c_free(void *u, void *p, size_t n)
{
	((counting *)u)->live -= (long long)n;
	free(p);
}

static void test_allocator_balance(void **state)
{
	(void)state;
	counting c = {0, 0};
	hks_options o = {0};
	o.allocator.alloc = c_alloc;
	o.allocator.realloc = c_realloc;
	o.allocator.free = c_free;
	o.allocator.user = &c;
	size_t n = 20000;
	uint8_t *src = make_payload(n);
	uint8_t *dcx, *out;
	size_t size, out_size;
	hks_error e;
	assert_int_equal(hks_dcx_compress(src, n, NULL, &o, &dcx, &size, &e), HKS_OK);
	assert_int_equal(c.live, (long long)size);
	assert_int_equal(hks_dcx_decompress(dcx, size, &o, &out, &out_size, NULL, &e), HKS_OK);
	assert_int_equal(c.live, (long long)(size + out_size));
	hks_buffer_free(&o, out, out_size);
	hks_buffer_free(&o, dcx, size);
	assert_int_equal(c.live, 0);
	assert_true(c.calls >= 2);
	free(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_default_header),
		cmocka_unit_test(test_header_kept_from_like),
		cmocka_unit_test(test_deflate_level_override),
		cmocka_unit_test(test_empty_payload),
		cmocka_unit_test(test_truncation_every_length),
		cmocka_unit_test(test_corrupted_fields),
		cmocka_unit_test(test_unsupported_compressions),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_allocator_balance),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
