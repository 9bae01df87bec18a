/*
 * Hand-made hostile binders and DCX archives (issue 17), built here with the
 * library's writers and patched: entries sharing one compressed range
 * (decompression amplification, M2), many distinct bombs against the binder's
 * inflate budget, declared and real DCX bombs, 20,000 members (L1), empty
 * DCX payloads (L4), overlapping / out-of-range / duplicate entries, nested
 * binders. Each ends in a clean error or a valid result; the work is bounded
 * by counted quantities (bytes inflated against the budget, units), never by
 * wall time.
 */
#define _DEFAULT_SOURCE
#include "hks_test.h"
#include "hks_hostile.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int setup(void **state)
{
	(void)state;
	return hks_hostile_setup("hks_hostile_c");
}

static int teardown(void **state)
{
	(void)state;
	return hks_hostile_teardown();
}

/* A DCX of `n` zero bytes (a real bomb: ~1,000 : 1). */
static uint8_t *zero_dcx(size_t n, size_t *size)
{
	uint8_t *z = (uint8_t *)calloc(n ? n : 1, 1);
	assert_non_null(z);
	uint8_t *out = NULL;
	hks_error e;
	assert_int_equal(hks_dcx_compress(z, n, NULL, NULL, &out, size, &e), HKS_OK);
	free(z);
	uint8_t *copy = (uint8_t *)malloc(*size);
	memcpy(copy, out, *size);
	hks_buffer_free(NULL, out, *size);
	return copy;
}

/* A binder of `n` members "m_NNNNN.hkx", each the same bytes `d`, flagged compressed
 * when `compressed`; with `share`, every entry's dataOffset is then patched to the first
 * entry's data, so all entries store one range. Returns the written bytes. */
static uint8_t *binder_of(uint32_t n, const uint8_t *d, size_t dn, bool compressed, bool share, size_t *size)
{
	hks_bnd4 *b = NULL;
	hks_error e;
	assert_int_equal(hks_bnd4_create(NULL, NULL, &b, &e), HKS_OK);
	for (uint32_t i = 0; i < n; i++) {
		char name[64];
		snprintf(name, sizeof(name), "N:\\c\\m_%05u.hkx", i);
		assert_int_equal(hks_bnd4_add(b, name, (int32_t)i, compressed ? 0x03 : 0x02, d, dn, &e), HKS_OK);
	}
	uint8_t *bytes = NULL;
	assert_int_equal(hks_bnd4_write(b, NULL, &bytes, size, &e), HKS_OK);
	hks_bnd4_free(b);
	uint8_t *copy = (uint8_t *)malloc(*size);
	memcpy(copy, bytes, *size);
	hks_buffer_free(NULL, bytes, *size);
	if (share) {
		hks_bnd4 *r = NULL;
		assert_int_equal(hks_bnd4_read(copy, *size, NULL, &r, &e), HKS_OK);
		uint32_t first = (uint32_t)r->entries[0].data_offset;
		for (uint32_t i = 1; i < n; i++) {
			size_t at = HKS_BND4_HEADER_SIZE + (size_t)i * r->file_header_size;
			uint32_t mine = (uint32_t)r->entries[i].data_offset;
			bool patched = false;
			/* dataOffset follows flags, 7 bytes, compressedSize and maybe uncompressedSize */
			for (size_t k = 16; k <= 24 && !patched; k += 8) {
				uint8_t *p = copy + at + k;
				uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
				if (v == mine) {
					p[0] = (uint8_t)first;
					p[1] = (uint8_t)(first >> 8);
					p[2] = (uint8_t)(first >> 16);
					p[3] = (uint8_t)(first >> 24);
					patched = true;
				}
			}
			assert_true(patched);
		}
		hks_bnd4_free(r);
	}
	return copy;
}

typedef struct load_tally {
	size_t units, ok_bytes, limit, other;
} load_tally;

/* Load every unit of `path` with the given inflate budget (max_output_bytes). */
static load_tally load_all(const char *path, uint64_t budget)
{
	hks_load_options lo;
	memset(&lo, 0, sizeof(lo));
	lo.base.limits.max_output_bytes = budget;
	hks_loader *L = NULL;
	hks_error e;
	assert_int_equal(hks_loader_create(&lo, &L, &e), HKS_OK);
	assert_int_equal(hks_loader_add_path(L, path, &e), HKS_OK);
	load_tally t = {0, 0, 0, 0};
	t.units = hks_loader_count(L);
	for (size_t i = 0; i < t.units; i++) {
		hks_loaded *ld = NULL;
		assert_int_equal(hks_loader_load(L, i, &ld), HKS_OK);
		assert_non_null(ld);
		if (ld->error.code == HKS_E_LIMIT && strstr(ld->error.message, "decompression budget"))
			t.limit++;
		else if (ld->bytes)
			t.ok_bytes += ld->size;
		else
			t.other++;
		hks_loaded_free(ld);
	}
	hks_loader_free(L);
	return t;
}

/* M2: 400 entries storing one compressed range (1 MiB declared) inflate once: with a budget of
 * 8 MiB for the whole binder every unit still gets its bytes. Without sharing, the 9th inflation
 * would exceed the budget. */
static void test_shared_compressed_range(void **state)
{
	(void)state;
	size_t dn = 0, size = 0;
	uint8_t *d = zero_dcx((size_t)1 << 20, &dn);
	uint8_t *bnd = binder_of(400, d, dn, true, true, &size);
	hks_hostile_write(hks_hostile_path("shared.anibnd"), bnd, size);
	load_tally t = load_all(hks_hostile_path("shared.anibnd"), (uint64_t)8 << 20);
	assert_int_equal(t.units, 400);
	assert_int_equal(t.limit, 0);
	assert_int_equal(t.ok_bytes, (size_t)400 << 20);
	/* the same binder inside a DCX */
	uint8_t *outer = NULL;
	size_t outer_size = 0;
	hks_error e;
	assert_int_equal(hks_dcx_compress(bnd, size, NULL, NULL, &outer, &outer_size, &e), HKS_OK);
	hks_hostile_write(hks_hostile_path("shared.anibnd.dcx"), outer, outer_size);
	hks_buffer_free(NULL, outer, outer_size);
	t = load_all(hks_hostile_path("shared.anibnd.dcx"), (uint64_t)8 << 20);
	assert_int_equal(t.units, 400);
	assert_int_equal(t.limit, 0);
	free(bnd);
	free(d);
}

/* M2: 200 distinct bombs of 1 MiB each against a budget of 8 MiB: at most 8 inflate, the other
 * units fail with HKS_E_LIMIT naming the budget (bounded work: <= budget bytes inflated). */
static void test_inflate_budget(void **state)
{
	(void)state;
	size_t dn = 0, size = 0;
	uint8_t *d = zero_dcx((size_t)1 << 20, &dn);
	uint8_t *bnd = binder_of(200, d, dn, true, false, &size);
	hks_hostile_write(hks_hostile_path("bombs.anibnd"), bnd, size);
	load_tally t = load_all(hks_hostile_path("bombs.anibnd"), (uint64_t)8 << 20);
	assert_int_equal(t.units, 200);
	assert_true(t.ok_bytes <= (size_t)8 << 20);
	assert_true(t.limit >= 192);
	assert_int_equal(t.limit + t.ok_bytes / ((size_t)1 << 20) + t.other, 200);
	free(bnd);
	free(d);
}

/* A declared bomb: a DCX header claiming 4 GiB over a few bytes: refused before allocating. */
static void test_declared_bomb(void **state)
{
	(void)state;
	size_t dn = 0;
	uint8_t *d = zero_dcx(1000, &dn);
	hks_dcx_info info;
	hks_error e;
	assert_int_equal(hks_dcx_read_info(d, dn, &info, &e), HKS_OK);
	/* uncompressedSize of the DCS chunk (big-endian), found by value */
	bool patched = false;
	for (size_t k = 0; k + 4 <= info.header_size && !patched; k++)
		if (d[k] == 0 && d[k + 1] == 0 && d[k + 2] == 0x03 && d[k + 3] == 0xE8) {
			d[k] = d[k + 1] = d[k + 2] = d[k + 3] = 0xFF;
			patched = true;
		}
	assert_true(patched);
	uint8_t *out = NULL;
	size_t out_size = 0;
	hks_result r = hks_dcx_decompress(d, dn, NULL, &out, &out_size, NULL, &e);
	assert_true(r == HKS_E_LIMIT || r == HKS_E_MALFORMED);
	assert_null(out);
	hks_options o;
	memset(&o, 0, sizeof(o));
	o.limits.max_output_bytes = 1 << 20;
	assert_int_equal(hks_dcx_decompress(d, dn, &o, &out, &out_size, NULL, &e), HKS_E_LIMIT);
	free(d);
}

/* L4: a DCX with an empty payload, as a file and as a compressed binder member: a clean result
 * (no memcpy from NULL under UBSan). */
static void test_empty_dcx(void **state)
{
	(void)state;
	size_t dn = 0, size = 0;
	uint8_t *d = zero_dcx(0, &dn);
	hks_hostile_write(hks_hostile_path("empty.hkx.dcx"), d, dn);
	load_tally t = load_all(hks_hostile_path("empty.hkx.dcx"), 0);
	assert_int_equal(t.units, 1);
	uint8_t *bnd = binder_of(2, d, dn, true, false, &size);
	hks_hostile_write(hks_hostile_path("empty_member.anibnd"), bnd, size);
	t = load_all(hks_hostile_path("empty_member.anibnd"), 0);
	assert_int_equal(t.units, 2);
	assert_int_equal(t.limit, 0);
	free(bnd);
	free(d);
}

/* L1: 20,000 members (same basename twice among them): every unit listed, display names right. */
static void test_many_members(void **state)
{
	(void)state;
	hks_bnd4 *b = NULL;
	hks_error e;
	assert_int_equal(hks_bnd4_create(NULL, NULL, &b, &e), HKS_OK);
	enum { N = 20000 };
	for (uint32_t i = 0; i < N; i++) {
		char name[64];
		if (i == N - 1)
			snprintf(name, sizeof(name), "N:\\other\\M_00000.HKX"); /* same basename as member 0 */
		else
			snprintf(name, sizeof(name), "N:\\c\\m_%05u.hkx", i);
		assert_int_equal(hks_bnd4_add(b, name, (int32_t)i, 0x02, "x", 1, &e), HKS_OK);
	}
	uint8_t *bytes = NULL;
	size_t size = 0;
	assert_int_equal(hks_bnd4_write(b, NULL, &bytes, &size, &e), HKS_OK);
	hks_bnd4_free(b);
	hks_hostile_write(hks_hostile_path("many.anibnd"), bytes, size);
	hks_buffer_free(NULL, bytes, size);
	hks_loader *L = NULL;
	assert_int_equal(hks_loader_create(NULL, &L, &e), HKS_OK);
	assert_int_equal(hks_loader_add_path(L, hks_hostile_path("many.anibnd"), &e), HKS_OK);
	assert_int_equal(hks_loader_count(L), N);
	assert_non_null(strstr(hks_loader_path(L, 0), ":N:\\c\\m_00000.hkx"));
	assert_non_null(strstr(hks_loader_path(L, 1), "many.anibnd:m_00001.hkx"));
	assert_non_null(strstr(hks_loader_path(L, N - 1), ":N:\\other\\M_00000.HKX"));
	hks_loader_free(L);
}

/* Overlapping, out-of-range and duplicate entries; a member that is itself a binder nested past
 * max_depth. Each: a clean error with a location, or a valid result. */
static void test_bad_entries(void **state)
{
	(void)state;
	uint8_t d[64];
	memset(d, 0x41, sizeof(d));
	size_t size = 0;
	uint8_t *bnd = binder_of(3, d, sizeof(d), false, false, &size);
	hks_bnd4 *r = NULL;
	hks_error e;
	assert_int_equal(hks_bnd4_read(bnd, size, NULL, &r, &e), HKS_OK);
	size_t hs = (size_t)r->file_header_size;
	uint32_t off1 = (uint32_t)r->entries[1].data_offset;
	hks_bnd4_free(r);
	/* out of range: entry 1's dataOffset past the end */
	uint8_t *bad = (uint8_t *)malloc(size);
	memcpy(bad, bnd, size);
	size_t at = HKS_BND4_HEADER_SIZE + hs;
	size_t k = 16;
	uint32_t v = (uint32_t)bad[at + k] | (uint32_t)bad[at + k + 1] << 8;
	if (v != (off1 & 0xFFFF))
		k = 24;
	bad[at + k] = bad[at + k + 1] = bad[at + k + 2] = 0xFF;
	bad[at + k + 3] = 0x7F;
	assert_int_equal(hks_bnd4_read(bad, size, NULL, &r, &e), HKS_E_MALFORMED);
	assert_non_null(strstr(e.object, "BND4 entry 1"));
	assert_true(e.offset >= 0);
	/* overlapping: entry 1 starting inside entry 0: a valid binder (bytes shared) */
	memcpy(bad, bnd, size);
	uint32_t ov = off1 - 10;
	bad[at + k] = (uint8_t)ov;
	bad[at + k + 1] = (uint8_t)(ov >> 8);
	bad[at + k + 2] = (uint8_t)(ov >> 16);
	bad[at + k + 3] = (uint8_t)(ov >> 24);
	if (hks_bnd4_read(bad, size, NULL, &r, &e) == HKS_OK) {
		assert_int_equal(r->num_entries, 3);
		hks_bnd4_free(r);
	} else {
		assert_true(e.code == HKS_E_MALFORMED);
	}
	/* every truncation of the binder: clean */
	for (size_t n = 0; n < size; n++) {
		hks_result rr = hks_bnd4_read(bnd, n, NULL, &r, &e);
		if (rr == HKS_OK)
			hks_bnd4_free(r);
		else
			assert_true(rr == HKS_E_TRUNCATED || rr == HKS_E_MALFORMED);
	}
	free(bad);
	/* duplicate names: the loader shows full names for both, find is ambiguous by basename */
	hks_bnd4 *b = NULL;
	assert_int_equal(hks_bnd4_create(NULL, NULL, &b, &e), HKS_OK);
	assert_int_equal(hks_bnd4_add(b, "N:\\a\\x.hkx", 1, 2, "1", 1, &e), HKS_OK);
	assert_int_equal(hks_bnd4_add(b, "N:\\b\\x.hkx", 2, 2, "2", 1, &e), HKS_OK);
	uint32_t idx = 0;
	assert_int_equal(hks_bnd4_find(b, "x.hkx", &idx, &e), HKS_E_ARGUMENT);
	hks_bnd4_free(b);
	/* nested: a DCX inside a DCX ... deeper than max_depth is refused or read as bytes, never recursed
	 * without bound (the loader opens one level of archive and treats members as files) */
	size_t dn = 0;
	uint8_t *inner = zero_dcx(100, &dn);
	for (int level = 0; level < 12; level++) {
		uint8_t *outer = NULL;
		size_t on = 0;
		assert_int_equal(hks_dcx_compress(inner, dn, NULL, NULL, &outer, &on, &e), HKS_OK);
		free(inner);
		inner = (uint8_t *)malloc(on);
		memcpy(inner, outer, on);
		dn = on;
		hks_buffer_free(NULL, outer, on);
	}
	hks_hostile_write(hks_hostile_path("nested.dcx"), inner, dn);
	load_tally t = load_all(hks_hostile_path("nested.dcx"), 0);
	assert_int_equal(t.units, 1);
	free(inner);
	free(bnd);
}

/* Cosmetic: a hash-table error names the hash table, not the last entry's "name" member. */
static void test_hash_table_error_label(void **state)
{
	(void)state;
	uint8_t d[16];
	memset(d, 7, sizeof(d));
	size_t size = 0;
	uint8_t *bnd = binder_of(3, d, sizeof(d), false, false, &size);
	hks_bnd4 *r = NULL;
	hks_error e;
	assert_int_equal(hks_bnd4_read(bnd, size, NULL, &r, &e), HKS_OK);
	bool has_table = r->hash_table_offset != 0;
	hks_bnd4_free(r);
	if (!has_table) {
		printf("the writer's default header has no hash table: not run\n");
		free(bnd);
		return;
	}
	for (int k = 0; k < 8; k++)
		bnd[0x38 + k] = k < 4 ? 0xF0 : 0;
	assert_int_equal(hks_bnd4_read(bnd, size, NULL, &r, &e), HKS_E_MALFORMED);
	assert_string_equal(e.object, "BND4 hash table");
	assert_string_equal(e.member, "");
	char line[2048];
	hks_error_format(&e, line, sizeof(line));
	assert_null(strstr(line, "name:"));
	free(bnd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shared_compressed_range),
		cmocka_unit_test(test_inflate_budget),
		cmocka_unit_test(test_declared_bomb),
		cmocka_unit_test(test_empty_dcx),
		cmocka_unit_test(test_many_members),
		cmocka_unit_test(test_bad_entries),
		cmocka_unit_test(test_hash_table_error_label),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
