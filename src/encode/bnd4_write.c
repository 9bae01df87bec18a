/*
 * BND4 writer (CONTAINERS.md §6.3, §6.4). The layout is recomputed from the
 * entries: 0x40-byte header, the file headers, the names (entry order, each
 * NUL-terminated), the hash table at the next multiple of 8 (when extended is
 * 4), then each entry's data at the next multiple of 16, with no padding after
 * the last one. Every header byte the layout does not determine (version,
 * format, unknowns, each entry's flags, ID and unknown bytes) is kept.
 */
#include "internal.h"

/* Logical format bits (CONTAINERS.md §6.1). */
enum {
	FMT_IDS = 0x02,
	FMT_NAMES1 = 0x04,
	FMT_NAMES2 = 0x08,
	FMT_LONG_OFFSETS = 0x10,
	FMT_COMPRESSION = 0x20
};

static uint8_t reverse_bits(uint8_t b)
{
	b = (uint8_t)(((b & 0xF0) >> 4) | ((b & 0x0F) << 4));
	b = (uint8_t)(((b & 0xCC) >> 2) | ((b & 0x33) << 2));
	b = (uint8_t)(((b & 0xAA) >> 1) | ((b & 0x55) << 1));
	return b;
}

/*
 * Append a name as stored: UTF-16LE from UTF-8 / WTF-8 (lone surrogates, as
 * the reader produces them, go back to the same unit), or the raw bytes for
 * non-unicode binders; then the terminator.
 */
static hks_result append_name(hks_ctx *ctx, hks_bytebuf *out, const char *name, bool unicode, uint32_t index)
{
	const uint8_t *s = (const uint8_t *)name;
	if (!unicode)
		return hks_bytebuf_append(out, name, strlen(name) + 1);
	size_t i = 0;
	while (s[i]) {
		uint8_t c = s[i];
		uint32_t cp;
		size_t len;
		if (c < 0x80) {
			cp = c;
			len = 1;
		} else if ((c & 0xE0) == 0xC0 && (s[i + 1] & 0xC0) == 0x80) {
			cp = ((uint32_t)(c & 0x1F) << 6) | (s[i + 1] & 0x3F);
			len = 2;
		} else if ((c & 0xF0) == 0xE0 && (s[i + 1] & 0xC0) == 0x80 && (s[i + 2] & 0xC0) == 0x80) {
			cp = ((uint32_t)(c & 0x0F) << 12) | ((uint32_t)(s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F);
			len = 3;
		} else if ((c & 0xF8) == 0xF0 && (s[i + 1] & 0xC0) == 0x80 && (s[i + 2] & 0xC0) == 0x80 &&
		           (s[i + 3] & 0xC0) == 0x80) {
			cp = ((uint32_t)(c & 0x07) << 18) | ((uint32_t)(s[i + 1] & 0x3F) << 12) |
			     ((uint32_t)(s[i + 2] & 0x3F) << 6) | (s[i + 3] & 0x3F);
			len = 4;
		} else {
			hks_err_object(ctx, "BND4 entry %u", index);
			return hks_fail(ctx, HKS_E_ARGUMENT, -1, "entry name is not UTF-8 (byte 0x%02x at %zu)", c, i);
		}
		i += len;
		uint8_t u[4];
		size_t n = 2;
		if (cp >= 0x10000 && cp <= 0x10FFFF) {
			cp -= 0x10000;
			hks_put_le16(u, (uint16_t)(0xD800 | (cp >> 10)));
			hks_put_le16(u + 2, (uint16_t)(0xDC00 | (cp & 0x3FF)));
			n = 4;
		} else if (cp > 0xFFFF) {
			return hks_fail(ctx, HKS_E_ARGUMENT, -1, "entry %u: code point beyond U+10FFFF", index);
		} else {
			hks_put_le16(u, (uint16_t)cp);
		}
		HKS_TRY(hks_bytebuf_append(out, u, n));
	}
	return hks_bytebuf_zeros(out, 2);
}

static hks_result write_binder(hks_ctx *ctx, const hks_bnd4 *bnd, const hks_options *opts, hks_bytebuf *out)
{
	uint8_t format = bnd->format;
	bool names = (format & (FMT_NAMES1 | FMT_NAMES2)) != 0;
	uint64_t fhs = bnd->file_header_size;
	uint32_t n = bnd->num_entries;
	hks_err_object(ctx, "BND4 writer");

	/* header and file headers first (patched below once offsets are known) */
	HKS_TRY(hks_bytebuf_append(out, bnd->header, HKS_BND4_HEADER_SIZE));
	uint64_t table_bytes = (uint64_t)n * fhs;
	if (table_bytes > ctx->limits.max_output_bytes)
		return hks_fail(ctx, HKS_E_LIMIT, -1, "%u file headers exceed the output limit", n);
	for (uint32_t i = 0; i < n; i++)
		HKS_TRY(hks_bytebuf_append(out, bnd->entries[i].header, (size_t)fhs));

	/* names, in entry order */
	uint64_t *name_offset = NULL;
	if (names) {
		name_offset = (uint64_t *)hks_calloc(ctx, n ? n : 1, sizeof(uint64_t));
		if (!name_offset)
			return ctx->err && ctx->err->code != HKS_OK ? ctx->err->code : HKS_E_NOMEM;
		for (uint32_t i = 0; i < n; i++) {
			name_offset[i] = out->size;
			hks_result r = append_name(ctx, out, bnd->entries[i].name, bnd->unicode != 0, i);
			if (r != HKS_OK) {
				hks_free(ctx, name_offset, (size_t)(n ? n : 1) * sizeof(uint64_t));
				return r;
			}
		}
	}
#define FAIL_FREE(expr)                                                                  \
	do {                                                                                 \
		hks_result r_ = (expr);                                                          \
		if (r_ != HKS_OK) {                                                              \
			hks_free(ctx, name_offset, names ? (size_t)(n ? n : 1) * sizeof(uint64_t) : 0); \
			return r_;                                                                   \
		}                                                                                \
	} while (0)

	/* hash table, 8-aligned (§6.3) */
	uint64_t hash_offset = 0;
	if (bnd->extended == 4) {
		FAIL_FREE(hks_bytebuf_pad(out, 8));
		hash_offset = out->size;
		uint8_t *table = NULL;
		size_t table_size = 0;
		FAIL_FREE(hks_bnd4_hash_table(bnd, hash_offset, opts, &table, &table_size, ctx->err));
		hks_result r = hks_bytebuf_append(out, table, table_size);
		hks_buffer_free(opts, table, table_size);
		FAIL_FREE(r);
	}
	uint64_t headers_end = out->size;

	/* data, each 16-aligned, and the file header fields */
	for (uint32_t i = 0; i < n; i++) {
		const hks_bnd4_entry *e = &bnd->entries[i];
		FAIL_FREE(hks_bytebuf_pad(out, 16));
		uint64_t data_offset = out->size;
		if (!(format & FMT_LONG_OFFSETS) && data_offset > UINT32_MAX) {
			hks_err_object(ctx, "BND4 entry %u", i);
			FAIL_FREE(hks_fail(ctx, HKS_E_LIMIT, -1,
			                   "data offset 0x%llx does not fit the 32-bit offsets of this binder's format",
			                   (unsigned long long)data_offset));
		}
		if (e->size > SIZE_MAX)
			FAIL_FREE(hks_fail(ctx, HKS_E_LIMIT, -1, "entry %u is too large", i));
		FAIL_FREE(hks_bytebuf_append(out, e->data, (size_t)e->size));
		uint8_t *h = out->data + HKS_BND4_HEADER_SIZE + (size_t)i * fhs;
		size_t at = 0;
		h[0] = reverse_bits(e->flags); /* §6.2 */
		at = 8;
		hks_put_le64(h + at, e->size);
		at += 8;
		if (format & FMT_COMPRESSION) {
			hks_put_le64(h + at, e->uncompressed_size);
			at += 8;
		}
		if (format & FMT_LONG_OFFSETS) {
			hks_put_le64(h + at, data_offset);
			at += 8;
		} else {
			hks_put_le32(h + at, (uint32_t)data_offset);
			at += 4;
		}
		if (format & FMT_IDS) {
			hks_put_le32(h + at, (uint32_t)e->id);
			at += 4;
		}
		if (names) {
			if (name_offset[i] > UINT32_MAX)
				FAIL_FREE(hks_fail(ctx, HKS_E_LIMIT, -1, "name offset of entry %u exceeds 32 bits", i));
			hks_put_le32(h + at, (uint32_t)name_offset[i]);
		}
	}
#undef FAIL_FREE
	if (names)
		hks_free(ctx, name_offset, (size_t)(n ? n : 1) * sizeof(uint64_t));

	/* header fields the layout determines (§6.1) */
	hks_put_le32(out->data + 0x0C, n);
	hks_put_le64(out->data + 0x28, headers_end);
	if (bnd->extended == 4)
		hks_put_le64(out->data + 0x38, hash_offset);
	return HKS_OK;
}

hks_result hks_bnd4_write(const hks_bnd4 *bnd, const hks_options *opts, uint8_t **out, size_t *out_size,
                          hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, opts, 0, err);
	if (!bnd || !out || !out_size)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_bnd4_write: NULL argument");
	*out = NULL;
	*out_size = 0;
	/* the default memory budget follows the binder's size, not the (empty) input */
	uint64_t total = 0;
	for (uint32_t i = 0; i < bnd->num_entries; i++)
		total += bnd->entries[i].size;
	hks_ctx_init(&ctx, opts, total, err);
	if (bnd->file_header_size < 0x14 || bnd->file_header_size > 0x40)
		return hks_fail(&ctx, HKS_E_ARGUMENT, 0x20, "file header size 0x%llx is not a BND4 one",
		                (unsigned long long)bnd->file_header_size);
	hks_bytebuf b;
	hks_bytebuf_init(&b, &ctx);
	hks_result r = write_binder(&ctx, bnd, opts, &b);
	if (r != HKS_OK) {
		hks_bytebuf_free(&b);
		return r;
	}
	return hks_bytebuf_finish(&b, out, out_size);
}
