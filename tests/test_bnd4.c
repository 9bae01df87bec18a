/* BND4 binders (CONTAINERS.md §6): binders built here, read back, rewritten;
 * the name hash on hand-computed values; truncation and corruption. */
#define _DEFAULT_SOURCE
#include "hks_test.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_name_hash_by_hand(void **state)
{
	(void)state;
	/* "a" -> "/a": 47 * 37 + 97 = 1836 */
	assert_int_equal(hks_bnd4_name_hash("a"), 1836u);
	/* upper case is lowered, a leading '/' is not doubled */
	assert_int_equal(hks_bnd4_name_hash("A"), 1836u);
	assert_int_equal(hks_bnd4_name_hash("/a"), 1836u);
	assert_int_equal(hks_bnd4_name_hash("\\a"), 1836u);
	/* "ab": 1836 * 37 + 98 = 68030 */
	assert_int_equal(hks_bnd4_name_hash("ab"), 68030u);
	/* "A\B" -> "/a/b": ((1836 * 37 + 47) * 37) + 98 = 2515321 */
	assert_int_equal(hks_bnd4_name_hash("A\\B"), 2515321u);
	/* "" -> "/": 47 */
	assert_int_equal(hks_bnd4_name_hash(""), 47u);
	/* U+00E9 is one UTF-16 unit, 233: 1739 + 233 = 1972 */
	assert_int_equal(hks_bnd4_name_hash("\xC3\xA9"), 1972u);
	/* A supplementary character hashes as its two surrogates: U+1F600 = D83D DE00 */
	uint32_t h = 47u * 37u + 0xD83Du;
	h = h * 37u + 0xDE00u;
	assert_int_equal(hks_bnd4_name_hash("\xF0\x9F\x98\x80"), h);
	/* u32 wrap-around: a long name, computed here step by step */
	const char *name = "N:\\NTC\\data\\Target\\INTERROOT_win64\\chr\\c1060\\hkx_compendium\\a000_000000.hkx";
	uint32_t w = '/';
	for (const char *p = name; *p; p++) {
		char c = *p == '\\' ? '/' : (*p >= 'A' && *p <= 'Z') ? (char)(*p + 32) : *p;
		w = w * 37u + (uint8_t)c;
	}
	assert_int_equal(hks_bnd4_name_hash(name), w);
	assert_int_equal(w, 1153403325u);
}

static void test_bucket_count(void **state)
{
	(void)state;
	/* first prime >= n / 7 (integer division), §6.3 */
	assert_int_equal(hks_bnd4_bucket_count(0), 2);
	assert_int_equal(hks_bnd4_bucket_count(13), 2);
	assert_int_equal(hks_bnd4_bucket_count(20), 2);
	assert_int_equal(hks_bnd4_bucket_count(21), 3);
	assert_int_equal(hks_bnd4_bucket_count(28), 5);
	assert_int_equal(hks_bnd4_bucket_count(69), 11);
	assert_int_equal(hks_bnd4_bucket_count(140), 23);
	assert_int_equal(hks_bnd4_bucket_count(168), 29);
}

typedef struct built {
	uint8_t *bytes;
	size_t size;
} built;

static const char *const names[] = {
	"N:\\X\\chr\\c0000\\hkx_compendium\\Skeleton.HKX",
	"N:\\X\\chr\\c0000\\tae\\c0000.tae",
	"N:\\X\\chr\\c0000\\hkx_compendium\\c0000.compendium",
	"N:\\X\\chr\\c0000\\hkx_compendium\\a000_000000.hkx",
	"N:\\X\\chr\\c0000\\hkx_compendium\\a000_003000.hkx",
	"N:\\X\\chr\\c0000\\\xC3\xA9t\xC3\xA9\\\xF0\x9F\x98\x80.hkx", /* non-ASCII and a surrogate pair */
	"N:\\X\\chr\\c0000\\lone\xED\xA0\x80.bin",                    /* a lone surrogate (WTF-8) */
};
#define NUM_NAMES (sizeof(names) / sizeof(names[0]))
static const int32_t ids[NUM_NAMES] = {1000000, 3000000, 7000000, 1000000000, 1000003000, 5, 6};

/* entry i holds (i * 37 + 3) bytes of value i */
static size_t entry_size(size_t i) { return i * 37 + 3; }

static hks_bnd4 *make_binder(void)
{
	hks_bnd4 *b;
	hks_error e;
	assert_int_equal(hks_bnd4_create(NULL, NULL, &b, &e), HKS_OK);
	assert_int_equal(b->format, 0x2E);
	assert_int_equal(b->raw_format, 0x74);
	assert_int_equal(b->file_header_size, 0x24);
	for (size_t i = 0; i < NUM_NAMES; i++) {
		uint8_t data[512];
		memset(data, (int)i, sizeof(data));
		assert_int_equal(hks_bnd4_add(b, names[i], ids[i], 0x02, data, entry_size(i), &e), HKS_OK);
	}
	return b;
}

static built write_binder(const hks_bnd4 *b)
{
	built w;
	hks_error e;
	assert_int_equal(hks_bnd4_write(b, NULL, &w.bytes, &w.size, &e), HKS_OK);
	return w;
}

static void test_build_read_rewrite(void **state)
{
	(void)state;
	hks_bnd4 *b = make_binder();
	built w = write_binder(b);
	const uint8_t *d = w.bytes;
	/* header fields of §6.1 */
	assert_memory_equal(d, "BND4", 4);
	assert_int_equal(hks_le32(d + 0x0C), NUM_NAMES);
	assert_int_equal(hks_le64(d + 0x10), 0x40);
	assert_memory_equal(d + 0x18, "07D7R6\0\0", 8);
	assert_int_equal(hks_le64(d + 0x20), 0x24);
	assert_int_equal(d[0x30], 1);
	assert_int_equal(d[0x31], 0x74);
	assert_int_equal(d[0x32], 4);
	/* §6.3 layout: names right after the headers, table 8-aligned, data 16-aligned */
	uint64_t table = hks_le64(d + 0x38);
	assert_int_equal(table % 8, 0);
	uint32_t first_name = hks_le32(d + 0x40 + 32);
	assert_int_equal(first_name, 0x40 + NUM_NAMES * 0x24);
	uint32_t buckets = hks_le32(d + table + 8);
	assert_int_equal(buckets, 2);
	assert_int_equal(hks_le64(d + table), table + 16 + 8 * buckets);
	assert_int_equal(hks_le64(d + 0x28), table + 16 + 8 * buckets + 8 * NUM_NAMES);
	for (size_t i = 0; i < NUM_NAMES; i++) {
		const uint8_t *h = d + 0x40 + i * 0x24;
		assert_int_equal(h[0], 0x40); /* logical 0x02, bit-reversed */
		assert_int_equal(hks_le32(h + 4), 0xFFFFFFFFu);
		assert_int_equal(hks_le64(h + 8), entry_size(i));
		assert_int_equal(hks_le64(h + 16), entry_size(i));
		assert_int_equal(hks_le32(h + 24) % 16, 0);
		assert_int_equal((int32_t)hks_le32(h + 28), ids[i]);
	}
	/* no padding after the last entry */
	const uint8_t *last = d + 0x40 + (NUM_NAMES - 1) * 0x24;
	assert_int_equal(hks_le32(last + 24) + entry_size(NUM_NAMES - 1), w.size);
	/* the hash table by hand: each bucket's run holds its hashes, ascending */
	uint32_t total = 0;
	for (uint32_t k = 0; k < buckets; k++) {
		uint32_t count = hks_le32(d + table + 16 + 8 * k), start = hks_le32(d + table + 20 + 8 * k);
		assert_int_equal(start, total);
		total += count;
		for (uint32_t j = start; j < start + count; j++) {
			const uint8_t *p = d + hks_le64(d + table) + 8 * j;
			uint32_t hash = hks_le32(p), idx = hks_le32(p + 4);
			assert_true(idx < NUM_NAMES);
			assert_int_equal(hash, hks_bnd4_name_hash(names[idx]));
			assert_int_equal(hash % buckets, k);
			if (j > start)
				assert_true(hks_le32(p - 8) <= hash);
		}
	}
	assert_int_equal(total, NUM_NAMES);
	/* the UTF-16LE name of entry 5: "...\<U+00E9>t<U+00E9>\<D83D DE00>.hkx" */
	uint32_t n5 = hks_le32(d + 0x40 + 5 * 0x24 + 32);
	const uint8_t tail[] = {0xE9, 0, 't', 0, 0xE9, 0, '\\', 0, 0x3D, 0xD8, 0x00, 0xDE, '.', 0, 'h', 0, 'k', 0, 'x', 0, 0, 0};
	assert_memory_equal(d + n5 + 2 * strlen("N:\\X\\chr\\c0000\\"), tail, sizeof(tail));

	/* read back */
	hks_bnd4 *r;
	hks_error e;
	assert_int_equal(hks_bnd4_read(w.bytes, w.size, NULL, &r, &e), HKS_OK);
	assert_int_equal(r->num_entries, NUM_NAMES);
	assert_int_equal(r->hash_table_conforms, 1);
	assert_int_equal(r->bucket_count, 2);
	assert_string_equal(r->version, "07D7R6");
	for (size_t i = 0; i < NUM_NAMES; i++) {
		assert_string_equal(r->entries[i].name, names[i]);
		assert_int_equal(r->entries[i].id, ids[i]);
		assert_int_equal(r->entries[i].flags, 0x02);
		assert_int_equal(r->entries[i].size, entry_size(i));
		for (size_t k = 0; k < entry_size(i); k++)
			assert_int_equal(r->entries[i].data[k], i);
	}
	/* rewriting what was read gives the same bytes */
	built w2 = write_binder(r);
	assert_int_equal(w2.size, w.size);
	assert_memory_equal(w2.bytes, w.bytes, w.size);
	hks_buffer_free(NULL, w2.bytes, w2.size);
	hks_bnd4_free(r);
	hks_bnd4_free(b);
	hks_buffer_free(NULL, w.bytes, w.size);
}

static void test_replace_and_find(void **state)
{
	(void)state;
	hks_bnd4 *b = make_binder();
	built w = write_binder(b);
	hks_bnd4_free(b);
	hks_bnd4 *r;
	hks_error e;
	assert_int_equal(hks_bnd4_read(w.bytes, w.size, NULL, &r, &e), HKS_OK);
	/* the reader copied the input */
	memset(w.bytes, 0xEE, w.size);
	hks_buffer_free(NULL, w.bytes, w.size);

	uint32_t idx = 99;
	assert_int_equal(hks_bnd4_find(r, names[3], &idx, &e), HKS_OK);
	assert_int_equal(idx, 3);
	assert_int_equal(hks_bnd4_find(r, "n:\\x\\CHR\\c0000\\hkx_compendium\\A000_000000.HKX", &idx, &e), HKS_OK);
	assert_int_equal(idx, 3);
	assert_int_equal(hks_bnd4_find(r, "a000_003000.hkx", &idx, &e), HKS_OK);
	assert_int_equal(idx, 4);
	assert_int_equal(hks_bnd4_find(r, "skeleton.hkx", &idx, &e), HKS_OK);
	assert_int_equal(idx, 0);
	assert_int_equal(hks_bnd4_find(r, "a000_999999.hkx", &idx, &e), HKS_E_NOT_FOUND);
	assert_non_null(strstr(e.message, "a000_999999.hkx"));

	/* replace entry 3 with a larger member */
	uint8_t big[1000];
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 7);
	assert_int_equal(hks_bnd4_replace(r, 3, big, sizeof(big), &e), HKS_OK);
	memset(big + 1, 0, 10); /* copied, not borrowed */
	assert_int_equal(hks_bnd4_replace(r, (uint32_t)NUM_NAMES, big, 1, &e), HKS_E_ARGUMENT);
	built w2 = write_binder(r);
	hks_bnd4 *r2;
	assert_int_equal(hks_bnd4_read(w2.bytes, w2.size, NULL, &r2, &e), HKS_OK);
	assert_int_equal(r2->hash_table_conforms, 1);
	assert_int_equal(r2->entries[3].size, 1000);
	assert_int_equal(r2->entries[3].uncompressed_size, 1000);
	assert_int_equal(r2->entries[3].data[1], 7);
	assert_int_equal(r2->entries[3].data[999], (uint8_t)(999 * 7));
	for (size_t i = 0; i < NUM_NAMES; i++) {
		assert_string_equal(r2->entries[i].name, names[i]);
		assert_int_equal(r2->entries[i].id, ids[i]);
		assert_int_equal(r2->entries[i].data_offset % 16, 0);
		if (i != 3) {
			assert_int_equal(r2->entries[i].size, entry_size(i));
			assert_int_equal(r2->entries[i].data[entry_size(i) - 1], i);
		}
		if (i > 0)
			assert_true(r2->entries[i].data_offset >= r2->entries[i - 1].data_offset + r2->entries[i - 1].size);
	}
	/* a basename shared by two entries is ambiguous */
	assert_int_equal(hks_bnd4_add(r2, "other\\a000_003000.hkx", 9, 0x02, "x", 1, &e), HKS_OK);
	assert_int_equal(hks_bnd4_find(r2, "a000_003000.hkx", &idx, &e), HKS_E_ARGUMENT);
	hks_bnd4_free(r2);
	hks_buffer_free(NULL, w2.bytes, w2.size);
	hks_bnd4_free(r);
}

static void test_compressed_entry_flag(void **state)
{
	(void)state;
	hks_bnd4 *b;
	hks_error e;
	assert_int_equal(hks_bnd4_create(NULL, NULL, &b, &e), HKS_OK);
	uint8_t raw[3000];
	memset(raw, 'z', sizeof(raw));
	uint8_t *dcx;
	size_t dcx_size;
	assert_int_equal(hks_dcx_compress(raw, sizeof(raw), NULL, NULL, &dcx, &dcx_size, &e), HKS_OK);
	assert_int_equal(hks_bnd4_add(b, "m.hkx.dcx", 1, 0x02 | HKS_BND4_ENTRY_COMPRESSED, dcx, dcx_size, &e), HKS_OK);
	assert_int_equal(b->entries[0].uncompressed_size, sizeof(raw));
	built w = write_binder(b);
	/* logical 0x03 is stored bit-reversed as 0xC0 */
	assert_int_equal(w.bytes[0x40], 0xC0);
	hks_bnd4 *r;
	assert_int_equal(hks_bnd4_read(w.bytes, w.size, NULL, &r, &e), HKS_OK);
	assert_int_equal(r->entries[0].flags, 0x03);
	assert_int_equal(r->entries[0].size, dcx_size);
	assert_int_equal(r->entries[0].uncompressed_size, sizeof(raw));
	assert_memory_equal(r->entries[0].data, dcx, dcx_size);
	hks_bnd4_free(r);
	hks_bnd4_free(b);
	hks_buffer_free(NULL, w.bytes, w.size);
	hks_buffer_free(NULL, dcx, dcx_size);
}

static void test_truncation_every_length(void **state)
{
	(void)state;
	hks_bnd4 *b = make_binder();
	built w = write_binder(b);
	hks_bnd4_free(b);
	for (size_t len = 0; len < w.size; len++) {
		uint8_t *cut = (uint8_t *)malloc(len ? len : 1);
		memcpy(cut, w.bytes, len);
		hks_bnd4 *r = (hks_bnd4 *)1;
		hks_error e;
		hks_result res = hks_bnd4_read(cut, len, NULL, &r, &e);
		assert_true(res == HKS_E_TRUNCATED || res == HKS_E_MALFORMED);
		assert_int_equal(e.code, res);
		assert_null(r);
		assert_true(e.message[0] != '\0');
		free(cut);
	}
	hks_buffer_free(NULL, w.bytes, w.size);
}

static hks_result read_copy(const uint8_t *d, size_t n, hks_error *e, int *conforms)
{
	hks_bnd4 *r = NULL;
	hks_result res = hks_bnd4_read(d, n, NULL, &r, e);
	if (res == HKS_OK) {
		if (conforms)
			*conforms = r->hash_table_conforms;
		hks_bnd4_free(r);
	} else {
		assert_null(r);
	}
	return res;
}

static void test_corruptions(void **state)
{
	(void)state;
	hks_bnd4 *b = make_binder();
	built w = write_binder(b);
	hks_bnd4_free(b);
	uint8_t *d = (uint8_t *)malloc(w.size);
	hks_error e;
	int conforms = -2;
	const size_t h1 = 0x40 + 0x24; /* entry 1's file header */
#define RESET() memcpy(d, w.bytes, w.size)
	RESET();
	assert_int_equal(read_copy(d, w.size, &e, &conforms), HKS_OK);
	assert_int_equal(conforms, 1);
	/* counts */
	RESET();
	hks_put_le32(d + 0x0C, 0x7FFFFFFF);
	assert_int_equal(read_copy(d, w.size, &e, NULL), HKS_E_LIMIT);
	RESET();
	hks_put_le32(d + 0x0C, 100000);
	assert_int_equal(read_copy(d, w.size, &e, NULL), HKS_E_TRUNCATED);
	assert_int_equal(e.offset, 0x0C);
	RESET();
	hks_put_le32(d + 0x0C, 0xFFFFFFFFu);
	assert_int_equal(read_copy(d, w.size, &e, NULL), HKS_E_MALFORMED);
	/* header fields */
	RESET();
	hks_put_le64(d + 0x20, 0x28);
	assert_int_equal(read_copy(d, w.size, &e, NULL), HKS_E_MALFORMED);
	assert_string_equal(e.member, "fileHeaderSize");
	RESET();
	hks_put_le64(d + 0x10, 0x50);
	assert_int_equal(read_copy(d, w.size, &e, NULL), HKS_E_MALFORMED);
	RESET();
	hks_put_le64(d + 0x28, w.size + 1);
	assert_int_equal(read_copy(d, w.size, &e, NULL), HKS_E_MALFORMED);
	RESET();
	d[0x09] = 1;
	assert_int_equal(read_copy(d, w.size, &e, NULL), HKS_E_UNSUPPORTED);
	RESET();
	d[3] = '3';
	assert_int_equal(read_copy(d, w.size, &e, NULL), HKS_E_MALFORMED);
	/* a raw format with bit 0 set and bit 7 clear is not reversed (§6.1): 0x75 is big-endian */
	RESET();
	d[0x31] = 0x75;
	assert_int_equal(read_copy(d, w.size, &e, NULL), HKS_E_UNSUPPORTED);
	/* a different (reversed) format changes the expected file header size */
	RESET();
	d[0x31] = 0x54; /* logical 0x2A: no names1 flag ... still 0x24 bytes */
	assert_int_equal(read_copy(d, w.size, &e, NULL), HKS_OK);
	RESET();
	d[0x31] = 0x64; /* logical 0x26: no names2, no long offsets ... no compression fields */
	assert_int_equal(read_copy(d, w.size, &e, NULL), HKS_OK);
	RESET();
	d[0x31] = 0x70; /* logical 0x0E: no compression field: 0x1C expected */
	assert_int_equal(read_copy(d, w.size, &e, NULL), HKS_E_MALFORMED);
	/* entry fields */
	RESET();
	hks_put_le32(d + h1 + 24, (uint32_t)w.size - 2);
	assert_int_equal(read_copy(d, w.size, &e, NULL), HKS_E_MALFORMED);
	assert_string_equal(e.object, "BND4 entry 1");
	assert_string_equal(e.member, "dataOffset");
	assert_int_equal(e.offset, (int64_t)h1);
	RESET();
	hks_put_le64(d + h1 + 8, w.size);
	assert_int_equal(read_copy(d, w.size, &e, NULL), HKS_E_MALFORMED);
	RESET();
	hks_put_le64(d + h1 + 8, UINT64_C(0x8000000000000000));
	assert_int_equal(read_copy(d, w.size, &e, NULL), HKS_E_MALFORMED);
	RESET();
	hks_put_le64(d + h1 + 8, UINT64_MAX - 3);
	assert_int_equal(read_copy(d, w.size, &e, NULL), HKS_E_MALFORMED);
	RESET();
	hks_put_le32(d + h1 + 32, (uint32_t)w.size);
	assert_int_equal(read_copy(d, w.size, &e, NULL), HKS_E_MALFORMED);
	assert_string_equal(e.member, "name");
	RESET();
	hks_put_le32(d + h1 + 32, 0xFFFFFFF0u);
	assert_int_equal(read_copy(d, w.size, &e, NULL), HKS_E_MALFORMED);
	/* a name running to the end of the file without a terminator */
	RESET();
	hks_put_le32(d + h1 + 32, (uint32_t)w.size - 1);
	assert_int_equal(read_copy(d, w.size, &e, NULL), HKS_E_TRUNCATED);
	/* hash table */
	RESET();
	hks_put_le64(d + 0x38, w.size - 8);
	assert_int_equal(read_copy(d, w.size, &e, NULL), HKS_E_MALFORMED);
	uint64_t table = hks_le64(w.bytes + 0x38);
	RESET();
	hks_put_le32(d + table + 8, 0x10000000);
	assert_int_equal(read_copy(d, w.size, &e, NULL), HKS_E_MALFORMED);
	RESET();
	hks_put_le64(d + table, w.size);
	assert_int_equal(read_copy(d, w.size, &e, NULL), HKS_E_MALFORMED);
	/* wrong contents are reported through hash_table_conforms, not as errors */
	RESET();
	d[hks_le64(w.bytes + table) + 3] ^= 1;
	assert_int_equal(read_copy(d, w.size, &e, &conforms), HKS_OK);
	assert_int_equal(conforms, 0);
	RESET();
	hks_put_le32(d + table + 8, 3);
	assert_int_equal(read_copy(d, w.size, &e, &conforms), HKS_OK);
	assert_int_equal(conforms, 0);
	/* without the extended flag there is no table to check */
	RESET();
	d[0x32] = 0;
	assert_int_equal(read_copy(d, w.size, &e, &conforms), HKS_OK);
	assert_int_equal(conforms, -1);
#undef RESET
	free(d);
	hks_buffer_free(NULL, w.bytes, w.size);
}

/* Random byte damage: any result but a crash or an out-of-bounds access. */
static void test_random_damage(void **state)
{
	(void)state;
	hks_bnd4 *b = make_binder();
	built w = write_binder(b);
	hks_bnd4_free(b);
	uint8_t *d = (uint8_t *)malloc(w.size);
	uint32_t x = 2463534242u;
	int ok = 0, failed = 0;
	for (int round = 0; round < 3000; round++) {
		memcpy(d, w.bytes, w.size);
		int flips = 1 + round % 4;
		for (int k = 0; k < flips; k++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			/* aim at the headers most of the time: that is where the structure is */
			size_t limit = (round % 3) ? (size_t)hks_le64(w.bytes + 0x28) : w.size;
			d[x % limit] = (uint8_t)(x >> 8);
		}
		hks_error e;
		if (read_copy(d, w.size, &e, NULL) == HKS_OK)
			ok++;
		else
			failed++;
	}
	assert_int_equal(ok + failed, 3000);
	assert_true(failed > 0);
	free(d);
	hks_buffer_free(NULL, w.bytes, w.size);
}

static void test_create_arguments(void **state)
{
	(void)state;
	hks_bnd4 *b;
	hks_error e;
	uint8_t header[0x40];
	memset(header, 0, sizeof(header));
	assert_int_equal(hks_bnd4_create(header, NULL, &b, &e), HKS_E_ARGUMENT);
	/* an empty binder writes and reads back */
	assert_int_equal(hks_bnd4_create(NULL, NULL, &b, &e), HKS_OK);
	built w = write_binder(b);
	hks_bnd4 *r;
	assert_int_equal(hks_bnd4_read(w.bytes, w.size, NULL, &r, &e), HKS_OK);
	assert_int_equal(r->num_entries, 0);
	assert_int_equal(r->hash_table_conforms, 1);
	hks_bnd4_free(r);
	hks_buffer_free(NULL, w.bytes, w.size);
	/* names must be UTF-8 when the binder is unicode */
	assert_int_equal(hks_bnd4_add(b, "bad\xFF", 1, 2, "x", 1, &e), HKS_OK);
	uint8_t *out;
	size_t out_size;
	assert_int_equal(hks_bnd4_write(b, NULL, &out, &out_size, &e), HKS_E_ARGUMENT);
	hks_bnd4_free(b);
}

/* The CLI on a binder built here: awkward names (escaping, duplicate and empty
 * base names), a DCX-compressed member; pack(extract(x)) == x, plain and DCX. */
static void write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static void assert_same_file(const char *path, const uint8_t *want, size_t n)
{
	size_t got_size = 0;
	uint8_t *got = hks_test_read_file(path, &got_size);
	assert_non_null(got);
	assert_int_equal(got_size, n);
	assert_memory_equal(got, want, n);
	free(got);
}

/* hks_bnd4_add_like: a new member named like the binder's .hkx members (folder prefix, flags, the
 * animation-binder ID rule), as `encode --into`, Python's Binder.replace and the Blender add-on add;
 * the add-on and Binder.replace added a bare name with ID -1 before (session 18 new-user trial). */
static void test_add_like(void **state)
{
	(void)state;
	hks_bnd4 *bnd = NULL;
	hks_error err;
	assert_int_equal(hks_bnd4_create(NULL, NULL, &bnd, &err), HKS_OK);
	static const uint8_t payload[4] = {1, 2, 3, 4};
	assert_int_equal(hks_bnd4_add(bnd, "N:\\x\\hkx\\Skeleton.HKX", 1000000, 0x40, payload, 4, &err), HKS_OK);
	assert_int_equal(hks_bnd4_add(bnd, "N:\\x\\hkx\\a000_000100.hkx", 1000000100, 0x40, payload, 4, &err), HKS_OK);
	/* by the name rule: 1000000000 + 710 */
	assert_int_equal(hks_bnd4_add_like(bnd, "a000_000710.hkx", payload, 4, &err), HKS_OK);
	const hks_bnd4_entry *e = &bnd->entries[bnd->num_entries - 1];
	assert_string_equal(e->name, "N:\\x\\hkx\\a000_000710.hkx");
	assert_int_equal(e->id, 1000000710);
	assert_int_equal(e->flags, 0x40);
	/* an ID the rule gives that is taken: one past the largest */
	assert_int_equal(hks_bnd4_add(bnd, "N:\\x\\hkx\\other.bin", 1003003005, 0x40, payload, 4, &err), HKS_OK);
	assert_int_equal(hks_bnd4_add_like(bnd, "a003_003005.hkx", payload, 4, &err), HKS_OK);
	e = &bnd->entries[bnd->num_entries - 1];
	assert_int_equal(e->id, 1003003006);
	/* another name: one past the largest ID; a name with its own folder keeps it */
	assert_int_equal(hks_bnd4_add_like(bnd, "C:\\mine\\extra.hkx", payload, 4, &err), HKS_OK);
	e = &bnd->entries[bnd->num_entries - 1];
	assert_string_equal(e->name, "C:\\mine\\extra.hkx");
	assert_int_equal(e->id, 1003003007);
	/* the written binder reads back with the new names findable */
	uint8_t *bytes = NULL;
	size_t size = 0;
	assert_int_equal(hks_bnd4_write(bnd, NULL, &bytes, &size, &err), HKS_OK);
	hks_bnd4 *back = NULL;
	assert_int_equal(hks_bnd4_read(bytes, size, NULL, &back, &err), HKS_OK);
	uint32_t idx = 0;
	assert_int_equal(hks_bnd4_find(back, "a000_000710.hkx", &idx, &err), HKS_OK);
	assert_int_equal(back->entries[idx].id, 1000000710);
	hks_bnd4_free(back);
	hks_buffer_free(NULL, bytes, size);
	/* an empty binder: the bare name and ID -1 (no rule to follow) */
	hks_bnd4 *empty = NULL;
	assert_int_equal(hks_bnd4_create(NULL, NULL, &empty, &err), HKS_OK);
	assert_int_equal(hks_bnd4_add_like(empty, "a000_000001.hkx", payload, 4, &err), HKS_OK);
	assert_string_equal(empty->entries[0].name, "a000_000001.hkx");
	assert_int_equal(empty->entries[0].id, -1);
	assert_int_equal(hks_bnd4_add_like(NULL, "x", payload, 4, &err), HKS_E_ARGUMENT);
	hks_bnd4_free(empty);
	hks_bnd4_free(bnd);
}

static void test_cli_roundtrip(void **state)
{
	(void)state;
	const char *cli = getenv("HKSPLINE_CLI");
	if (!cli || !*cli) {
		printf("HKSPLINE_CLI not set: CLI round trip not run\n");
		return;
	}
	static const char *const odd[] = {
		"N:\\X\\a%41b.hkx",       /* '%' must survive the manifest's escaping */
		"N:\\X\\tab\there.bin",   /* a control character: numbered file, escaped name */
		"N:\\X\\p\\same.hkx",
		"N:\\X\\q\\SAME.hkx",    /* same base name ignoring case */
		"N:\\X\\dir\\",          /* empty base name */
		"N:\\X\\_hkspline_bnd.txt", /* the manifest's own name */
		"N:\\X\\a000_000001.hkx",
	};
	hks_bnd4 *b;
	hks_error e;
	assert_int_equal(hks_bnd4_create(NULL, NULL, &b, &e), HKS_OK);
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		uint8_t data[64];
		memset(data, (int)(0x30 + i), sizeof(data));
		assert_int_equal(hks_bnd4_add(b, odd[i], (int32_t)(100 + i), 0x02, data, 10 + i, &e), HKS_OK);
	}
	uint8_t inner[500];
	memset(inner, 'q', sizeof(inner));
	uint8_t *inner_dcx;
	size_t inner_dcx_size;
	assert_int_equal(hks_dcx_compress(inner, sizeof(inner), NULL, NULL, &inner_dcx, &inner_dcx_size, &e), HKS_OK);
	assert_int_equal(hks_bnd4_add(b, "N:\\X\\packed.hkx.dcx", 7, 0x03, inner_dcx, inner_dcx_size, &e), HKS_OK);
	built w = write_binder(b);
	uint8_t *dcx;
	size_t dcx_size;
	assert_int_equal(hks_dcx_compress(w.bytes, w.size, NULL, NULL, &dcx, &dcx_size, &e), HKS_OK);

	char dir[] = "/tmp/hks_test_bnd4_XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[512], cmd[2048];
	snprintf(path, sizeof(path), "%s/c0000.anibnd", dir);
	write_file(path, w.bytes, w.size);
	snprintf(path, sizeof(path), "%s/c0000.anibnd.dcx", dir);
	write_file(path, dcx, dcx_size);

	/* plain binder: extract, pack */
	snprintf(cmd, sizeof(cmd), "'%s' bnd extract '%s/c0000.anibnd' -o '%s/x' >/dev/null", cli, dir, dir);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/x/entry_00001.bin", dir); /* the control-character name */
	uint8_t want1[11];
	memset(want1, 0x31, sizeof(want1));
	assert_same_file(path, want1, sizeof(want1));
	snprintf(path, sizeof(path), "%s/x/entry_00003.bin", dir); /* the second "same.hkx" */
	uint8_t want3[13];
	memset(want3, 0x33, sizeof(want3));
	assert_same_file(path, want3, sizeof(want3));
	snprintf(path, sizeof(path), "%s/x/packed.hkx.dcx", dir); /* stored bytes, still a DCX */
	assert_same_file(path, inner_dcx, inner_dcx_size);
	snprintf(cmd, sizeof(cmd), "'%s' bnd pack '%s/x' -o '%s/re.anibnd' >/dev/null", cli, dir, dir);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/re.anibnd", dir);
	assert_same_file(path, w.bytes, w.size);

	/* DCX: extract, pack (our own level-9 archive comes back byte for byte) */
	snprintf(cmd, sizeof(cmd), "'%s' bnd extract '%s/c0000.anibnd.dcx' -o '%s/y' >/dev/null", cli, dir, dir);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "'%s' bnd pack '%s/y' -o '%s/re.anibnd.dcx' >/dev/null", cli, dir, dir);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/re.anibnd.dcx", dir);
	assert_same_file(path, dcx, dcx_size);

	/* replace the DCX-compressed member with raw bytes: they are compressed like it */
	snprintf(path, sizeof(path), "%s/new.hkx", dir);
	uint8_t fresh[300];
	memset(fresh, 'n', sizeof(fresh));
	write_file(path, fresh, sizeof(fresh));
	snprintf(cmd, sizeof(cmd), "'%s' bnd replace '%s/c0000.anibnd.dcx' packed.hkx.dcx '%s/new.hkx' -o '%s/r.dcx' >/dev/null",
	         cli, dir, dir, dir);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/r.dcx", dir);
	size_t rsize = 0;
	uint8_t *r = hks_test_read_file(path, &rsize);
	assert_non_null(r);
	uint8_t *plain;
	size_t plain_size;
	assert_int_equal(hks_dcx_decompress(r, rsize, NULL, &plain, &plain_size, NULL, &e), HKS_OK);
	hks_bnd4 *rb;
	assert_int_equal(hks_bnd4_read(plain, plain_size, NULL, &rb, &e), HKS_OK);
	const hks_bnd4_entry *m = &rb->entries[rb->num_entries - 1];
	assert_int_equal(m->flags, 0x03);
	assert_int_equal(m->uncompressed_size, sizeof(fresh));
	uint8_t *mi;
	size_t mi_size;
	assert_int_equal(hks_dcx_decompress(m->data, (size_t)m->size, NULL, &mi, &mi_size, NULL, &e), HKS_OK);
	assert_int_equal(mi_size, sizeof(fresh));
	assert_memory_equal(mi, fresh, sizeof(fresh));
	for (uint32_t i = 0; i + 1 < rb->num_entries; i++)
		assert_string_equal(rb->entries[i].name, odd[i]);
	hks_buffer_free(NULL, mi, mi_size);
	hks_bnd4_free(rb);
	hks_buffer_free(NULL, plain, plain_size);
	free(r);

	/* errors: an ambiguous base name, a missing member, a KRAK archive */
	snprintf(cmd, sizeof(cmd), "'%s' bnd replace '%s/c0000.anibnd' same.hkx '%s/new.hkx' -o '%s/z' 2>/dev/null", cli,
	         dir, dir, dir);
	assert_int_not_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "'%s' bnd extract '%s/c0000.anibnd' nothere.hkx -o '%s/z' 2>/dev/null", cli, dir, dir);
	assert_int_not_equal(system(cmd), 0);
	memcpy(dcx + 0x28, "KRAK", 4);
	snprintf(path, sizeof(path), "%s/k.dcx", dir);
	write_file(path, dcx, dcx_size);
	snprintf(cmd, sizeof(cmd), "'%s' bnd list '%s/k.dcx' 2>'%s/k.txt'", cli, dir, dir);
	assert_int_not_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/k.txt", dir);
	size_t msg_size = 0;
	char *msg = (char *)hks_test_read_file(path, &msg_size);
	assert_non_null(msg);
	msg[msg_size] = '\0';
	assert_non_null(strstr(msg, "KRAK"));
	free(msg);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	hks_buffer_free(NULL, dcx, dcx_size);
	hks_buffer_free(NULL, inner_dcx, inner_dcx_size);
	hks_buffer_free(NULL, w.bytes, w.size);
	hks_bnd4_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_hash_by_hand),
		cmocka_unit_test(test_bucket_count),
		cmocka_unit_test(test_build_read_rewrite),
		cmocka_unit_test(test_replace_and_find),
		cmocka_unit_test(test_compressed_entry_flag),
		cmocka_unit_test(test_truncation_every_length),
		cmocka_unit_test(test_corruptions),
		cmocka_unit_test(test_random_damage),
		cmocka_unit_test(test_create_arguments),
		cmocka_unit_test(test_add_like),
		cmocka_unit_test(test_cli_roundtrip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
