/*
 * BND4 binder reader and the in-memory binder model (CONTAINERS.md §6):
 * header and format byte, file headers, UTF-16LE names, the hash table (read
 * and compared with the one §6.3 computes), plus the model operations
 * (create, find, replace, add, free). The writer is src/encode/bnd4_write.c.
 */
#include "internal.h"

#include <stdio.h>

/* Logical format bits (CONTAINERS.md §6.1). */
enum {
	FMT_BIG_ENDIAN = 0x01,
	FMT_IDS = 0x02,
	FMT_NAMES1 = 0x04,
	FMT_NAMES2 = 0x08,
	FMT_LONG_OFFSETS = 0x10,
	FMT_COMPRESSION = 0x20
};

/* What hks_bnd4.internal points to: the options of the creating call, so
 * that later calls (replace, add) allocate with the same allocator and limits. */
typedef struct bnd4_private {
	hks_options opts;
	uint8_t *owned;       /* hks_bnd4_read_adopt: the input, freed with the binder */
	size_t owned_size;
} bnd4_private;

static uint8_t reverse_bits(uint8_t b)
{
	b = (uint8_t)(((b & 0xF0) >> 4) | ((b & 0x0F) << 4));
	b = (uint8_t)(((b & 0xCC) >> 2) | ((b & 0x33) << 2));
	b = (uint8_t)(((b & 0xAA) >> 1) | ((b & 0x55) << 1));
	return b;
}

/* §6.1: the format byte is stored bit-reversed unless the binder is
 * big-endian or the raw byte has bit 0 set and bit 7 clear. */
static uint8_t logical_format(uint8_t raw, bool big_endian)
{
	bool reversed = !(big_endian || ((raw & 0x01) && !(raw & 0x80)));
	return reversed ? reverse_bits(raw) : raw;
}

/* §6.1: 0x10 fixed bytes, then the optional fields in this order. */
static uint64_t entry_header_size(uint8_t format)
{
	uint64_t n = 0x10;
	n += (format & FMT_LONG_OFFSETS) ? 8 : 4;
	n += (format & FMT_COMPRESSION) ? 8 : 0;
	n += (format & FMT_IDS) ? 4 : 0;
	n += (format & (FMT_NAMES1 | FMT_NAMES2)) ? 4 : 0;
	n += (format == FMT_NAMES1) ? 8 : 0;
	return n;
}

/* ---- names ---------------------------------------------------------- */

/* Append a code point (or a lone surrogate, as WTF-8) to `out`. */
static size_t put_utf8(uint8_t *out, uint32_t cp)
{
	if (cp < 0x80) {
		out[0] = (uint8_t)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (uint8_t)(0xC0 | (cp >> 6));
		out[1] = (uint8_t)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (uint8_t)(0xE0 | (cp >> 12));
		out[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (uint8_t)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (uint8_t)(0xF0 | (cp >> 18));
	out[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (uint8_t)(0x80 | (cp & 0x3F));
	return 4;
}

/*
 * Decode the next UTF-16 code unit(s) from UTF-8 / WTF-8 at s[*i]: returns the
 * number of units written to u[0..1]. Bytes that are not valid UTF-8 count as
 * one unit each (their byte value), so that Shift-JIS names of non-unicode
 * binders still hash per byte.
 */
static int next_utf16(const uint8_t *s, size_t *i, uint16_t u[2])
{
	uint8_t c = s[*i];
	uint32_t cp;
	int len;
	if (c < 0x80) {
		cp = c;
		len = 1;
	} else if ((c & 0xE0) == 0xC0 && (s[*i + 1] & 0xC0) == 0x80) {
		cp = ((uint32_t)(c & 0x1F) << 6) | (s[*i + 1] & 0x3F);
		len = 2;
	} else if ((c & 0xF0) == 0xE0 && (s[*i + 1] & 0xC0) == 0x80 && (s[*i + 2] & 0xC0) == 0x80) {
		cp = ((uint32_t)(c & 0x0F) << 12) | ((uint32_t)(s[*i + 1] & 0x3F) << 6) | (s[*i + 2] & 0x3F);
		len = 3;
	} else if ((c & 0xF8) == 0xF0 && (s[*i + 1] & 0xC0) == 0x80 && (s[*i + 2] & 0xC0) == 0x80 &&
	           (s[*i + 3] & 0xC0) == 0x80) {
		cp = ((uint32_t)(c & 0x07) << 18) | ((uint32_t)(s[*i + 1] & 0x3F) << 12) |
		     ((uint32_t)(s[*i + 2] & 0x3F) << 6) | (s[*i + 3] & 0x3F);
		len = 4;
	} else {
		cp = c;
		len = 1;
	}
	*i += (size_t)len;
	if (cp >= 0x10000 && cp <= 0x10FFFF) {
		cp -= 0x10000;
		u[0] = (uint16_t)(0xD800 | (cp >> 10));
		u[1] = (uint16_t)(0xDC00 | (cp & 0x3FF));
		return 2;
	}
	u[0] = (uint16_t)cp;
	return 1;
}

uint32_t hks_bnd4_name_hash(const char *name)
{
	/* CONTAINERS.md §6.3: lower-case, '\' -> '/', a leading '/', h = h*37 + c. */
	const uint8_t *s = (const uint8_t *)(name ? name : "");
	uint32_t h = 0;
	bool first = true;
	size_t i = 0;
	while (s[i]) {
		uint16_t u[2];
		int n = next_utf16(s, &i, u);
		for (int k = 0; k < n; k++) {
			uint16_t c = u[k];
			if (c >= 'A' && c <= 'Z')
				c = (uint16_t)(c + 32);
			if (c == '\\')
				c = '/';
			if (first && c != '/')
				h = h * 37u + '/';
			first = false;
			h = h * 37u + c;
		}
	}
	if (first)
		h = '/';
	return h;
}

static bool is_prime(uint32_t n)
{
	if (n < 2)
		return false;
	for (uint32_t d = 2; d <= n / d; d++)
		if (n % d == 0)
			return false;
	return true;
}

uint32_t hks_bnd4_bucket_count(uint32_t num_entries)
{
	/* §6.3: the first prime >= fileCount / 7 (integer division); primes start at 2. */
	uint32_t p = num_entries / 7;
	while (!is_prime(p))
		p++;
	return p;
}

/* ---- model ---------------------------------------------------------- */

static hks_result make_binder(hks_ctx *ctx, const hks_options *opts, hks_bnd4 **out)
{
	hks_arena *arena = hks_arena_create(ctx);
	if (!arena)
		return ctx->err && ctx->err->code != HKS_OK ? ctx->err->code : HKS_E_NOMEM;
	hks_bnd4 *b = (hks_bnd4 *)hks_arena_alloc(arena, sizeof(hks_bnd4));
	bnd4_private *p = (bnd4_private *)hks_arena_alloc(arena, sizeof(bnd4_private));
	if (!b || !p) {
		hks_arena_free(arena);
		return ctx->err && ctx->err->code != HKS_OK ? ctx->err->code : HKS_E_NOMEM;
	}
	if (opts)
		p->opts = *opts;
	p->opts.name = NULL; /* the caller's string may not outlive this call */
	b->arena = arena;
	b->internal = p;
	b->hash_table_conforms = -1;
	*out = b;
	return HKS_OK;
}

/* A context for a call on an existing binder; the arena reports to it. */
static void binder_ctx(hks_bnd4 *bnd, hks_ctx *ctx, hks_error *err)
{
	const bnd4_private *p = (const bnd4_private *)bnd->internal;
	hks_ctx_init(ctx, &p->opts, hks_arena_bytes(bnd->arena), err);
	hks_arena_set_ctx(bnd->arena, ctx);
}

static hks_result result_of(hks_ctx *ctx)
{
	return ctx->err && ctx->err->code != HKS_OK ? ctx->err->code : HKS_E_NOMEM;
}

/* Make room for one more entry (arrays live in the arena: the old one is
 * simply abandoned). */
static hks_result grow_entries(hks_ctx *ctx, hks_bnd4 *bnd)
{
	if (bnd->num_entries < bnd->capacity)
		return HKS_OK;
	if (bnd->num_entries >= ctx->limits.max_objects || bnd->num_entries >= (uint32_t)INT32_MAX)
		return hks_fail(ctx, HKS_E_LIMIT, -1, "a binder with more than %u entries exceeds the object limit",
		                bnd->num_entries);
	uint32_t cap = bnd->capacity ? bnd->capacity * 2 : 16;
	if (cap < bnd->capacity || cap > ctx->limits.max_objects)
		cap = ctx->limits.max_objects;
	hks_bnd4_entry *e = (hks_bnd4_entry *)hks_arena_array(bnd->arena, cap, sizeof(hks_bnd4_entry));
	if (!e)
		return result_of(ctx);
	if (bnd->num_entries)
		memcpy(e, bnd->entries, (size_t)bnd->num_entries * sizeof(hks_bnd4_entry));
	bnd->entries = e;
	bnd->capacity = cap;
	return HKS_OK;
}

/* Fill the derived fields of `bnd` from its raw header. */
static void decode_header_fields(hks_bnd4 *bnd)
{
	const uint8_t *h = bnd->header;
	memcpy(bnd->version, h + 0x18, 8);
	bnd->version[8] = '\0';
	bnd->unicode = h[0x30];
	bnd->raw_format = h[0x31];
	bnd->format = logical_format(h[0x31], h[0x09] != 0);
	bnd->extended = h[0x32];
	bnd->file_header_size = hks_le64(h + 0x20);
	bnd->headers_end = hks_le64(h + 0x28);
	bnd->hash_table_offset = bnd->extended == 4 ? hks_le64(h + 0x38) : 0;
}

/* ---- reading -------------------------------------------------------- */

/* Read a NUL-terminated name at `off` and convert it (see hks_bnd4_entry.name). */
static hks_result read_name(hks_ctx *ctx, hks_arena *arena, const uint8_t *d, size_t size, uint64_t off,
                            bool unicode, const char **name)
{
	hks_err_member(ctx, "name");
	if (off >= size)
		return hks_fail(ctx, HKS_E_MALFORMED, (int64_t)off, "name offset 0x%llx is outside the file (%zu bytes)",
		                (unsigned long long)off, size);
	size_t units = 0;
	size_t unit = unicode ? 2 : 1;
	for (;;) {
		size_t at = (size_t)off + units * unit;
		if (!hks_range_ok(size, at, unit))
			return hks_fail(ctx, HKS_E_TRUNCATED, (int64_t)at, "name at 0x%llx has no terminator before the end",
			                (unsigned long long)off);
		if (unicode ? hks_le16(d + at) == 0 : d[at] == 0)
			break;
		units++;
	}
	if (!unicode) {
		*name = hks_arena_strndup(arena, (const char *)d + off, units);
		return *name ? HKS_OK : result_of(ctx);
	}
	/* At most 3 UTF-8 bytes per UTF-16 unit (a pair: 4 bytes for 2 units). */
	size_t cap;
	if (!hks_mul_size(units, 3, &cap) || !hks_add_size(cap, 1, &cap))
		return hks_fail(ctx, HKS_E_LIMIT, (int64_t)off, "name too long");
	uint8_t *s = (uint8_t *)hks_arena_alloc(arena, cap);
	if (!s)
		return result_of(ctx);
	size_t n = 0;
	const uint8_t *p = d + off;
	for (size_t i = 0; i < units; i++) {
		uint32_t c = hks_le16(p + 2 * i);
		if (c >= 0xD800 && c <= 0xDBFF && i + 1 < units) {
			uint32_t lo = hks_le16(p + 2 * (i + 1));
			if (lo >= 0xDC00 && lo <= 0xDFFF) {
				c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
				i++;
			}
		}
		n += put_utf8(s + n, c); /* lone surrogates become WTF-8 (kept for rewriting) */
	}
	s[n] = '\0';
	*name = (const char *)s;
	return HKS_OK;
}

/* Read one file header (§6.2) into `e`. */
static hks_result read_entry(hks_ctx *ctx, hks_bnd4 *bnd, const uint8_t *d, size_t size, uint32_t index,
                             hks_bnd4_entry *e)
{
	uint64_t at = HKS_BND4_HEADER_SIZE + (uint64_t)index * bnd->file_header_size;
	hks_err_object(ctx, "BND4 entry %u", index);
	hks_cursor c = hks_cursor_make(ctx, d + at, (size_t)bnd->file_header_size, (int64_t)at);
	uint8_t raw_flags = 0;
	uint64_t stored = 0, uncompressed = 0, data_offset = 0, name_offset = 0;
	uint32_t u32 = 0;
	HKS_TRY(hks_read_u8(&c, &raw_flags, "flags"));
	HKS_TRY(hks_skip(&c, 7, "unknown bytes"));
	HKS_TRY(hks_read_le64(&c, &stored, "compressedSize"));
	uncompressed = stored;
	if (bnd->format & FMT_COMPRESSION)
		HKS_TRY(hks_read_le64(&c, &uncompressed, "uncompressedSize"));
	if (bnd->format & FMT_LONG_OFFSETS) {
		HKS_TRY(hks_read_le64(&c, &data_offset, "dataOffset"));
	} else {
		HKS_TRY(hks_read_le32(&c, &u32, "dataOffset"));
		data_offset = u32;
	}
	e->id = -1;
	if (bnd->format & FMT_IDS) {
		HKS_TRY(hks_read_le32(&c, &u32, "id"));
		e->id = (int32_t)u32;
	}
	bool has_names = (bnd->format & (FMT_NAMES1 | FMT_NAMES2)) != 0;
	if (has_names) {
		HKS_TRY(hks_read_le32(&c, &u32, "nameOffset"));
		name_offset = u32;
	}
	if (stored > INT64_MAX || uncompressed > INT64_MAX) {
		hks_err_member(ctx, "compressedSize");
		return hks_fail(ctx, HKS_E_MALFORMED, (int64_t)at + 8, "negative entry size");
	}
	if (!hks_range_ok(size, data_offset, stored)) {
		hks_err_member(ctx, "dataOffset");
		return hks_fail(ctx, HKS_E_MALFORMED, (int64_t)at,
		                "data [0x%llx, +%llu) lies outside the file (%zu bytes)", (unsigned long long)data_offset,
		                (unsigned long long)stored, size);
	}
	e->flags = reverse_bits(raw_flags); /* §6.2: flags are bit-reversed (little-endian binders) */
	e->data = d + data_offset;
	e->size = stored;
	e->uncompressed_size = uncompressed;
	e->data_offset = data_offset;
	e->header = (uint8_t *)hks_arena_dup(bnd->arena, d + at, (size_t)bnd->file_header_size);
	if (!e->header)
		return result_of(ctx);
	if (has_names)
		HKS_TRY(read_name(ctx, bnd->arena, d, size, name_offset, bnd->unicode != 0, &e->name));
	else
		e->name = "";
	return HKS_OK;
}

/* Sort the run [lo, hi) of (hash, index) pairs by hash, then index
 * (insertion sort: buckets hold about 7 entries, §6.3). */
static void sort_run(uint32_t *hash, uint32_t *index, uint32_t lo, uint32_t hi)
{
	for (uint32_t i = lo + 1; i < hi; i++) {
		uint32_t h = hash[i], x = index[i], j = i;
		while (j > lo && (hash[j - 1] > h || (hash[j - 1] == h && index[j - 1] > x))) {
			hash[j] = hash[j - 1];
			index[j] = index[j - 1];
			j--;
		}
		hash[j] = h;
		index[j] = x;
	}
}

static hks_result build_hash_table(hks_ctx *ctx, const hks_bnd4 *bnd, uint64_t offset, hks_bytebuf *out)
{
	/* CONTAINERS.md §6.3: {i64 hashesOffset, u32 bucketCount, 0x10, 8, 8, 0},
	 * bucketCount x {i32 count, i32 first}, then {u32 hash, i32 index} grouped
	 * by hash % bucketCount and sorted by hash in each bucket. */
	uint32_t n = bnd->num_entries;
	uint32_t buckets = hks_bnd4_bucket_count(n);
	size_t words = (size_t)n * 3 + (size_t)buckets + 1;
	uint32_t *mem = (uint32_t *)hks_calloc(ctx, words, sizeof(uint32_t));
	if (!mem)
		return result_of(ctx);
	uint32_t *hash = mem, *index = mem + n, *bucket_of = mem + 2 * (size_t)n, *first = mem + 3 * (size_t)n;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t h = hks_bnd4_name_hash(bnd->entries[i].name);
		bucket_of[i] = h % buckets;
		first[bucket_of[i] + 1]++;
	}
	for (uint32_t b = 0; b < buckets; b++)
		first[b + 1] += first[b];
	/* Counting sort into buckets by ascending entry index (shift the starts
	 * by one so that first[b + 1] is bucket b's write position), then sort each run. */
	for (uint32_t b = buckets; b > 0; b--)
		first[b] = first[b - 1];
	first[0] = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t slot = first[bucket_of[i] + 1]++;
		hash[slot] = hks_bnd4_name_hash(bnd->entries[i].name);
		index[slot] = i;
	}
	/* now first[b + 1] is the end of bucket b and first[b] its start (first[0] == 0) */
	uint8_t head[16];
	hks_put_le64(head, offset + 16 + (uint64_t)buckets * 8);
	hks_put_le32(head + 8, buckets);
	head[12] = 0x10;
	head[13] = 8;
	head[14] = 8;
	head[15] = 0;
	hks_result r = hks_bytebuf_append(out, head, 16);
	for (uint32_t b = 0; b < buckets && r == HKS_OK; b++) {
		uint32_t lo = first[b], hi = first[b + 1];
		sort_run(hash, index, lo, hi);
		uint8_t g[8];
		hks_put_le32(g, hi - lo);
		hks_put_le32(g + 4, lo);
		r = hks_bytebuf_append(out, g, 8);
	}
	for (uint32_t i = 0; i < n && r == HKS_OK; i++) {
		uint8_t p[8];
		hks_put_le32(p, hash[i]);
		hks_put_le32(p + 4, index[i]);
		r = hks_bytebuf_append(out, p, 8);
	}
	hks_free(ctx, mem, words * sizeof(uint32_t));
	return r;
}

hks_result hks_bnd4_hash_table(const hks_bnd4 *bnd, uint64_t offset, const hks_options *opts, uint8_t **out,
                               size_t *out_size, hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, opts, 0, err);
	if (!bnd || !out || !out_size)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_bnd4_hash_table: NULL argument");
	hks_bytebuf b;
	hks_bytebuf_init(&b, &ctx);
	hks_result r = build_hash_table(&ctx, bnd, offset, &b);
	if (r != HKS_OK) {
		hks_bytebuf_free(&b);
		return r;
	}
	return hks_bytebuf_finish(&b, out, out_size);
}

/* Compare the stored hash table with the one §6.3 computes. Out-of-file
 * offsets are errors; different contents only clear hash_table_conforms. */
static hks_result read_hash_table(hks_ctx *ctx, hks_bnd4 *bnd, const uint8_t *d, size_t size)
{
	uint64_t off = bnd->hash_table_offset;
	hks_err_object(ctx, "BND4 hash table");
	hks_err_member(ctx, ""); /* not the last entry's "name" */
	if (!hks_range_ok(size, off, 16))
		return hks_fail(ctx, HKS_E_MALFORMED, 0x38, "hash table offset 0x%llx is outside the file (%zu bytes)",
		                (unsigned long long)off, size);
	uint64_t hashes_offset = hks_le64(d + off);
	uint32_t buckets = hks_le32(d + off + 8);
	bnd->bucket_count = buckets;
	if (!hks_range_ok(size, off + 16, (uint64_t)buckets * 8)) {
		hks_err_member(ctx, "bucketCount");
		return hks_fail(ctx, HKS_E_MALFORMED, (int64_t)off + 8, "%u buckets do not fit in the file", buckets);
	}
	if (!hks_range_ok(size, hashes_offset, (uint64_t)bnd->num_entries * 8)) {
		hks_err_member(ctx, "hashesOffset");
		return hks_fail(ctx, HKS_E_MALFORMED, (int64_t)off, "hashes at 0x%llx for %u entries lie outside the file",
		                (unsigned long long)hashes_offset, bnd->num_entries);
	}
	/* The stored table conforms when it is byte for byte the one we would write. */
	hks_bytebuf want;
	hks_bytebuf_init(&want, ctx);
	hks_result r = build_hash_table(ctx, bnd, off, &want);
	if (r != HKS_OK) {
		hks_bytebuf_free(&want);
		return r;
	}
	bnd->hash_table_conforms = hks_range_ok(size, off, want.size) && !memcmp(d + off, want.data, want.size);
	hks_bytebuf_free(&want);
	return HKS_OK;
}

static hks_result read_binder(hks_ctx *ctx, hks_bnd4 *bnd, const uint8_t *d, size_t size)
{
	hks_err_object(ctx, "BND4 header");
	if (size < 4 || memcmp(d, "BND4", 4) != 0)
		return hks_fail(ctx, size < 4 ? HKS_E_TRUNCATED : HKS_E_MALFORMED, 0, "not a BND4 binder (no \"BND4\" magic)");
	if (size < HKS_BND4_HEADER_SIZE)
		return hks_fail(ctx, HKS_E_TRUNCATED, (int64_t)size, "the BND4 header needs 64 bytes, the file has %zu",
		                size);
	memcpy(bnd->header, d, HKS_BND4_HEADER_SIZE);
	decode_header_fields(bnd);
	if (d[0x09] != 0 || (bnd->format & FMT_BIG_ENDIAN))
		return hks_fail(ctx, HKS_E_UNSUPPORTED, 0x09, "big-endian BND4 binders (console builds) are not supported");
	int32_t count = (int32_t)hks_le32(d + 0x0C);
	if (count < 0) {
		hks_err_member(ctx, "fileCount");
		return hks_fail(ctx, HKS_E_MALFORMED, 0x0C, "negative file count %d", (int)count);
	}
	if (hks_le64(d + 0x10) != HKS_BND4_HEADER_SIZE) {
		hks_err_member(ctx, "headerSize");
		return hks_fail(ctx, HKS_E_MALFORMED, 0x10, "header size field is 0x%llx, expected 0x40",
		                (unsigned long long)hks_le64(d + 0x10));
	}
	uint64_t expected = entry_header_size(bnd->format);
	if (bnd->file_header_size != expected) {
		hks_err_member(ctx, "fileHeaderSize");
		return hks_fail(ctx, HKS_E_MALFORMED, 0x20, "file header size is 0x%llx, format 0x%02x implies 0x%llx",
		                (unsigned long long)bnd->file_header_size, bnd->format, (unsigned long long)expected);
	}
	if (bnd->headers_end > size) {
		hks_err_member(ctx, "headersEnd");
		return hks_fail(ctx, HKS_E_MALFORMED, 0x28, "headersEnd 0x%llx is beyond the end of the file (%zu bytes)",
		                (unsigned long long)bnd->headers_end, size);
	}
	/* Counts are bounded by the file before anything is allocated. */
	if ((uint32_t)count > ctx->limits.max_objects) {
		hks_err_member(ctx, "fileCount");
		return hks_fail(ctx, HKS_E_LIMIT, 0x0C, "%d entries exceed the object limit of %u", (int)count,
		                ctx->limits.max_objects);
	}
	if (!hks_range_ok(size, HKS_BND4_HEADER_SIZE, (uint64_t)(uint32_t)count * bnd->file_header_size)) {
		hks_err_member(ctx, "fileCount");
		return hks_fail(ctx, HKS_E_TRUNCATED, 0x0C, "%d file headers of %llu bytes do not fit in the file (%zu bytes)",
		                (int)count, (unsigned long long)bnd->file_header_size, size);
	}
	bnd->entries = (hks_bnd4_entry *)hks_arena_array(bnd->arena, count ? (size_t)count : 1, sizeof(hks_bnd4_entry));
	if (!bnd->entries)
		return result_of(ctx);
	bnd->capacity = count ? (uint32_t)count : 1;
	for (uint32_t i = 0; i < (uint32_t)count; i++) {
		HKS_TRY(read_entry(ctx, bnd, d, size, i, &bnd->entries[i]));
		bnd->num_entries = i + 1;
	}
	hks_err_object(ctx, "BND4 header");
	if (bnd->extended == 4)
		HKS_TRY(read_hash_table(ctx, bnd, d, size));
	return HKS_OK;
}

hks_result hks_bnd4_read(const void *data, size_t size, const hks_options *opts, hks_bnd4 **out, hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, opts, size, err);
	if (!data || !out)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_bnd4_read: NULL argument");
	*out = NULL;
	hks_bnd4 *bnd;
	HKS_TRY(make_binder(&ctx, opts, &bnd));
	/* Entries point into a private copy: the caller may free its buffer. */
	const uint8_t *copy = size ? (const uint8_t *)hks_arena_dup(bnd->arena, data, size) : (const uint8_t *)"";
	hks_result r = copy ? read_binder(&ctx, bnd, copy, size) : result_of(&ctx);
	if (r != HKS_OK) {
		hks_arena_free(bnd->arena);
		return r;
	}
	*out = bnd;
	return HKS_OK;
}

hks_result hks_bnd4_create(const uint8_t *header, const hks_options *opts, hks_bnd4 **out, hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, opts, 0, err);
	if (!out)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_bnd4_create: NULL argument");
	*out = NULL;
	hks_bnd4 *bnd;
	HKS_TRY(make_binder(&ctx, opts, &bnd));
	if (header) {
		memcpy(bnd->header, header, HKS_BND4_HEADER_SIZE);
	} else {
		/* The header of the Sekiro / Elden Ring anibnds (CONTAINERS.md §6.1). */
		uint8_t *h = bnd->header;
		memcpy(h, "BND4", 4);
		h[0x0A] = 1;
		hks_put_le64(h + 0x10, HKS_BND4_HEADER_SIZE);
		memcpy(h + 0x18, "07D7R6\0\0", 8);
		hks_put_le64(h + 0x20, 0x24);
		h[0x30] = 1;
		h[0x31] = 0x74;
		h[0x32] = 4;
	}
	decode_header_fields(bnd);
	hks_err_object(&ctx, "BND4 header");
	hks_result r = HKS_OK;
	if (memcmp(bnd->header, "BND4", 4) != 0)
		r = hks_fail(&ctx, HKS_E_ARGUMENT, 0, "header has no \"BND4\" magic");
	else if (bnd->header[0x09] != 0 || (bnd->format & FMT_BIG_ENDIAN))
		r = hks_fail(&ctx, HKS_E_UNSUPPORTED, 0x09, "big-endian BND4 binders are not supported");
	else if (bnd->file_header_size != entry_header_size(bnd->format))
		r = hks_fail(&ctx, HKS_E_ARGUMENT, 0x20, "file header size 0x%llx does not match format 0x%02x",
		             (unsigned long long)bnd->file_header_size, bnd->format);
	if (r != HKS_OK) {
		hks_arena_free(bnd->arena);
		return r;
	}
	*out = bnd;
	return HKS_OK;
}

hks_result hks_bnd4_read_adopt(uint8_t *data, size_t size, const hks_options *opts, hks_bnd4 **out, hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, opts, size, err);
	if (!data || !size || !out)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_bnd4_read_adopt: NULL or empty argument");
	*out = NULL;
	hks_bnd4 *bnd;
	HKS_TRY(make_binder(&ctx, opts, &bnd));
	/* Entries point into `data` itself: no copy of the binder's megabytes. */
	hks_result r = read_binder(&ctx, bnd, data, size);
	if (r != HKS_OK) {
		hks_arena_free(bnd->arena);
		return r;
	}
	bnd4_private *p = (bnd4_private *)bnd->internal;
	p->owned = data;
	p->owned_size = size;
	*out = bnd;
	return HKS_OK;
}

static const char *basename_of(const char *s)
{
	const char *b = s;
	for (const char *p = s; *p; p++)
		if (*p == '\\' || *p == '/')
			b = p + 1;
	return b;
}

static bool equal_nocase(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char x = (*a >= 'A' && *a <= 'Z') ? (char)(*a + 32) : *a;
		char y = (*b >= 'A' && *b <= 'Z') ? (char)(*b + 32) : *b;
		if (x != y)
			return false;
	}
	return *a == *b;
}

hks_result hks_bnd4_find(const hks_bnd4 *bnd, const char *name, uint32_t *index, hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, NULL, 0, err);
	if (!bnd || !name || !index)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_bnd4_find: NULL argument");
	for (uint32_t i = 0; i < bnd->num_entries; i++)
		if (!strcmp(bnd->entries[i].name, name)) {
			*index = i;
			return HKS_OK;
		}
	for (uint32_t i = 0; i < bnd->num_entries; i++)
		if (equal_nocase(bnd->entries[i].name, name)) {
			*index = i;
			return HKS_OK;
		}
	uint32_t found = UINT32_MAX, matches = 0;
	const char *want = basename_of(name);
	for (uint32_t i = 0; i < bnd->num_entries; i++)
		if (equal_nocase(basename_of(bnd->entries[i].name), want)) {
			if (!matches)
				found = i;
			matches++;
		}
	if (matches == 1) {
		*index = found;
		return HKS_OK;
	}
	if (matches > 1)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "\"%s\" matches %u entries by basename; give the full name", name,
		                matches);
	return hks_fail(&ctx, HKS_E_NOT_FOUND, -1, "no entry named \"%s\" in the binder", name);
}

hks_result hks_bnd4_replace(hks_bnd4 *bnd, uint32_t index, const void *data, size_t size, hks_error *err)
{
	hks_ctx ctx;
	if (!bnd) {
		hks_ctx_init(&ctx, NULL, 0, err);
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_bnd4_replace: NULL binder");
	}
	binder_ctx(bnd, &ctx, err);
	if ((!data && size) || index >= bnd->num_entries)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_bnd4_replace: entry %u of %u or NULL data", index,
		                bnd->num_entries);
	hks_err_object(&ctx, "BND4 entry %u", index);
	const uint8_t *copy = size ? (const uint8_t *)hks_arena_dup(bnd->arena, data, size) : (const uint8_t *)"";
	if (!copy)
		return result_of(&ctx);
	hks_bnd4_entry *e = &bnd->entries[index];
	uint64_t uncompressed = size;
	if (e->flags & HKS_BND4_ENTRY_COMPRESSED) {
		/* The stored bytes are a DCX: its header knows the unpacked size. Bytes that are no DCX
		 * (a plain .hkx handed in for a compressed member) are stored plain: the flag is cleared,
		 * else the binder would promise a DCX that is not there and the member would not read. */
		hks_dcx_info info;
		if (hks_dcx_read_info(data, size, &info, NULL) == HKS_OK)
			uncompressed = info.uncompressed_size;
		else
			e->flags &= (uint8_t)~HKS_BND4_ENTRY_COMPRESSED;
	}
	e->data = copy;
	e->size = size;
	e->uncompressed_size = uncompressed;
	return HKS_OK;
}

hks_result hks_bnd4_add(hks_bnd4 *bnd, const char *name, int32_t id, uint8_t flags, const void *data, size_t size,
                        hks_error *err)
{
	hks_ctx ctx;
	if (!bnd) {
		hks_ctx_init(&ctx, NULL, 0, err);
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_bnd4_add: NULL binder");
	}
	binder_ctx(bnd, &ctx, err);
	if (!name || (!data && size))
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_bnd4_add: NULL name or data");
	HKS_TRY(grow_entries(&ctx, bnd));
	hks_bnd4_entry e;
	memset(&e, 0, sizeof(e));
	e.name = hks_arena_strdup(bnd->arena, name);
	e.header = (uint8_t *)hks_arena_alloc(bnd->arena, (size_t)bnd->file_header_size);
	e.data = size ? (const uint8_t *)hks_arena_dup(bnd->arena, data, size) : (const uint8_t *)"";
	if (!e.name || !e.header || !e.data)
		return result_of(&ctx);
	hks_put_le32(e.header + 4, 0xFFFFFFFFu); /* §6.2: i32 -1 at byte 4 */
	e.id = id;
	e.flags = flags;
	e.size = size;
	e.uncompressed_size = size;
	bnd->entries[bnd->num_entries++] = e;
	if (flags & HKS_BND4_ENTRY_COMPRESSED)
		return hks_bnd4_replace(bnd, bnd->num_entries - 1, e.data, size, err);
	return HKS_OK;
}

/* "aXXX_YYYYYY.hkx" (any folder prefix, any case) -> XXX·10^6 + YYYYYY; -1 otherwise. */
static long long animation_name_number(const char *name)
{
	if (!name)
		return -1;
	const char *base = name;
	for (const char *p = name; *p; p++)
		if (*p == '/' || *p == '\\')
			base = p + 1;
	if ((base[0] != 'a' && base[0] != 'A') || strlen(base) != 15 || base[4] != '_' ||
	    !equal_nocase(base + 11, ".hkx"))
		return -1;
	long long v = 0;
	for (int i = 1; i < 11; i++) {
		if (i == 4)
			continue;
		if (base[i] < '0' || base[i] > '9')
			return -1;
		v = v * 10 + (base[i] - '0');
	}
	return v; /* XXX·10^6 + YYYYYY: the ten digits read as one number */
}

hks_result hks_bnd4_add_like(hks_bnd4 *bnd, const char *name, const void *data, size_t size, hks_error *err)
{
	hks_ctx ctx;
	if (!bnd) {
		hks_ctx_init(&ctx, NULL, 0, err);
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_bnd4_add_like: NULL binder");
	}
	binder_ctx(bnd, &ctx, err);
	if (!name || (!data && size))
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_bnd4_add_like: NULL name or data");
	int64_t id = -1;
	uint8_t flags = 0;
	const char *like_name = NULL;
	for (uint32_t i = 0; i < bnd->num_entries; i++) {
		const hks_bnd4_entry *e = &bnd->entries[i];
		size_t n = e->name ? strlen(e->name) : 0;
		if (n >= 4 && equal_nocase(e->name + n - 4, ".hkx")) {
			like_name = e->name;
			flags = e->flags & (uint8_t)~HKS_BND4_ENTRY_COMPRESSED;
		}
		if (e->id >= 0 && (int64_t)e->id + 1 > id)
			id = (int64_t)e->id + 1;
	}
	/* animation binders number members by name; keep the rule when the binder follows it */
	long long want = animation_name_number(name), base = -1;
	for (uint32_t i = 0; i < bnd->num_entries && want >= 0; i++) {
		long long v = animation_name_number(bnd->entries[i].name);
		if (v >= 0 && bnd->entries[i].id >= 0) {
			base = (long long)bnd->entries[i].id - v;
			break;
		}
	}
	if (want >= 0 && base >= 0 && base + want <= INT32_MAX) {
		bool taken = false;
		for (uint32_t i = 0; i < bnd->num_entries; i++)
			taken |= bnd->entries[i].id == (int32_t)(base + want);
		if (!taken)
			id = base + want;
	}
	if (id > INT32_MAX)
		id = -1;
	/* the folder prefix of the binder's .hkx members, whatever its length */
	const char *slash = like_name ? strrchr(like_name, '\\') : NULL;
	size_t prefix = !strchr(name, '\\') && slash ? (size_t)(slash - like_name) + 1 : 0;
	char *full = (char *)hks_arena_alloc(bnd->arena, prefix + strlen(name) + 1);
	if (!full)
		return result_of(&ctx);
	memcpy(full, like_name ? like_name : "", prefix);
	strcpy(full + prefix, name);
	return hks_bnd4_add(bnd, full, (int32_t)id, flags, data, size, err);
}

void hks_bnd4_free(hks_bnd4 *bnd)
{
	if (!bnd)
		return;
	const bnd4_private *p = (const bnd4_private *)bnd->internal;
	if (p->owned)
		hks_buffer_free(&p->opts, p->owned, p->owned_size);
	hks_arena_free(bnd->arena);
}
