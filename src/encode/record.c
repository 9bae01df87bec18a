/*
 * The reconstruction record (docs/RECORD.md): varints, the FNV-1a 64 hash,
 * the per-animation record (its body coded by record_model.c since v9, deflated in v8)
 * and the record file that lists one record per spline animation.
 *
 * Records are input like any other: every count is checked against the
 * remaining bytes before anything is allocated, and every failure names the
 * byte offset in the record.
 */
#include "record.h"

#include <zlib.h>

uint64_t hks_record_hash(uint64_t seed, const void *data, size_t size)
{
	/* FNV-1a 64: xor the byte, multiply by the 64-bit FNV prime. */
	const uint8_t *p = (const uint8_t *)data;
	uint64_t h = seed;
	for (size_t i = 0; i < size; i++) {
		h ^= p[i];
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

int hks_rec_num_units(uint32_t num_blocks, uint32_t T, uint32_t F, uint64_t *out)
{
	uint64_t per = 3ull * T + F;
	if (per && num_blocks > UINT64_MAX / per)
		return 0;
	*out = per * num_blocks;
	return 1;
}

/* ---- varints ------------------------------------------------------------- */

size_t hks_rec_varint_bytes(uint8_t *out, uint64_t v)
{
	size_t n = 0;
	do {
		uint8_t byte = (uint8_t)(v & 0x7F);
		v >>= 7;
		out[n++] = (uint8_t)(byte | (v ? 0x80 : 0));
	} while (v);
	return n;
}

hks_result hks_rec_put_varint(hks_bytebuf *b, uint64_t v)
{
	uint8_t tmp[10];
	return hks_bytebuf_append(b, tmp, hks_rec_varint_bytes(tmp, v));
}

hks_result hks_rec_get_varint(hks_cursor *c, uint64_t *v, const char *what)
{
	uint64_t r = 0;
	int64_t start = hks_cursor_offset(c);
	for (unsigned shift = 0;; shift += 7) {
		uint8_t byte;
		HKS_TRY(hks_read_u8(c, &byte, what));
		/* the tenth byte may carry only the top bit of a 64-bit value */
		if (shift == 63 && (byte & 0xFE))
			return hks_fail(c->ctx, HKS_E_MALFORMED, start, "%s: varint exceeds 64 bits", what);
		r |= (uint64_t)(byte & 0x7F) << shift;
		if (!(byte & 0x80))
			break;
	}
	*v = r;
	return HKS_OK;
}

hks_result hks_rec_get_count(hks_cursor *c, uint64_t max, uint32_t *v, const char *what)
{
	int64_t start = hks_cursor_offset(c);
	uint64_t x = 0;
	HKS_TRY(hks_rec_get_varint(c, &x, what));
	if (x > max || x > UINT32_MAX)
		return hks_fail(c->ctx, HKS_E_MALFORMED, start, "%s: %llu exceeds %llu", what, (unsigned long long)x,
		                (unsigned long long)(max < UINT32_MAX ? max : UINT32_MAX));
	*v = (uint32_t)x;
	return HKS_OK;
}

static hks_result put_u32(hks_bytebuf *b, uint32_t v)
{
	uint8_t t[4];
	hks_put_le32(t, v);
	return hks_bytebuf_append(b, t, 4);
}

static hks_result put_u8(hks_bytebuf *b, uint8_t v) { return hks_bytebuf_append(b, &v, 1); }

/* ---- the record ---------------------------------------------------------- */

static hks_result put_offsets(hks_bytebuf *b, const uint32_t *v, uint32_t n)
{
	HKS_TRY(hks_rec_put_varint(b, n));
	for (uint32_t i = 0; i < n; i++)
		HKS_TRY(hks_rec_put_varint(b, v[i]));
	return HKS_OK;
}

static hks_result get_offsets(hks_cursor *c, hks_arena *arena, uint32_t **v, uint32_t *n, const char *what)
{
	/* one byte per value at least: the count is bounded by the input */
	HKS_TRY(hks_rec_get_count(c, c->size - c->pos, n, what));
	*v = (uint32_t *)hks_arena_array(arena, *n + 1u, 4);
	if (!*v)
		return hks_fail_nomem(c->ctx, 0);
	for (uint32_t i = 0; i < *n; i++)
		HKS_TRY(hks_rec_get_count(c, UINT32_MAX, &(*v)[i], what));
	return HKS_OK;
}

uint32_t hks_rec_blocks_implied(uint32_t num_frames)
{
	return num_frames <= 1 ? 1u : (num_frames - 2u) / (HKS_REC_IMPLIED_FRAMES_PER_BLOCK - 1u) + 1u;
}

uint64_t hks_rec_data_hash_mask(unsigned version)
{
	return version >= 12 ? UINT64_C(0xFFFFFFFF) : UINT64_MAX;
}

uint32_t hks_rec_duration_bits(unsigned code, uint32_t num_frames)
{
	/* the frame rates Havok's exporters write: 30 and 60 frames a second; f32 division of exact values, so
	 * every compiler gives the same bits (the project builds with -ffp-contract=off) */
	float frames = (float)(num_frames > 0 ? num_frames - 1u : 0u);
	float d = frames / (code == HKS_REC_DURATION_60 ? 60.0f : 30.0f);
	return hks_f32_bits(d);
}

/* v12: the duration's code (HKS_REC_DURATION_*) for a record: the first rule that gives its bits */
static unsigned duration_code(const hks_rec_anim *r)
{
	for (unsigned code = HKS_REC_DURATION_30; code < HKS_REC_DURATION_CODES; code++)
		if (hks_rec_duration_bits(code, r->num_frames) == r->duration_bits)
			return code;
	return HKS_REC_DURATION_STORED;
}

static hks_result write_body(hks_bytebuf *b, const hks_rec_anim *r, unsigned version)
{
	if (version >= 12) {
		/* v12: the head flags (kind, guard, duration code, block layout stored, CPU model, ladder steps and
		 * override flags stored; docs/RECORD.md "Version 12"), then only the fields they say are stored */
		if (r->kind > HKS_REC_ANIM_VERBATIM || r->guard > 1 || r->cpu < HKS_CPU_INTEL || r->cpu > HKS_CPU_EXACT)
			return hks_fail(b->ctx, HKS_E_ARGUMENT, -1, "record v12: kind %u, guard %u, CPU model %u", r->kind,
			                r->guard, r->cpu);
		unsigned dcode = duration_code(r);
		int blocks = r->max_frames_per_block != HKS_REC_IMPLIED_FRAMES_PER_BLOCK ||
		             r->num_blocks != hks_rec_blocks_implied(r->num_frames);
		int steps = r->kind == HKS_REC_ANIM_PREDICTED &&
		            (r->ladder_count != hks_rec_implied_steps(version) ||
		             r->offsets_override != HKS_REC_IMPLIED_OVERRIDES);
		HKS_TRY(put_u8(b, (uint8_t)(r->kind | (r->guard ? HKS_REC_HEAD_GUARD : 0u) |
		                            dcode << HKS_REC_HEAD_DURATION_SHIFT | (blocks ? HKS_REC_HEAD_BLOCKS : 0u) |
		                            (unsigned)(r->cpu - HKS_CPU_INTEL) << HKS_REC_HEAD_CPU_SHIFT |
		                            (steps ? HKS_REC_HEAD_STEPS : 0u))));
		HKS_TRY(hks_rec_put_varint(b, r->num_frames));
		HKS_TRY(hks_rec_put_varint(b, r->num_transform_tracks));
		HKS_TRY(hks_rec_put_varint(b, r->num_float_tracks));
		if (blocks) {
			HKS_TRY(hks_rec_put_varint(b, r->max_frames_per_block));
			HKS_TRY(hks_rec_put_varint(b, r->num_blocks));
		}
		if (dcode == HKS_REC_DURATION_STORED)
			HKS_TRY(put_u32(b, r->duration_bits));
	} else {
		HKS_TRY(put_u8(b, r->kind));
		HKS_TRY(hks_rec_put_varint(b, r->num_frames));
		HKS_TRY(hks_rec_put_varint(b, r->num_transform_tracks));
		HKS_TRY(hks_rec_put_varint(b, r->num_float_tracks));
		HKS_TRY(hks_rec_put_varint(b, r->max_frames_per_block));
		HKS_TRY(hks_rec_put_varint(b, r->num_blocks));
		HKS_TRY(put_u32(b, r->duration_bits));
		HKS_TRY(put_u8(b, r->guard));
		HKS_TRY(put_u8(b, r->cpu));
	}
	if (version >= 12) {
		/* v12: the data hash's low 32 bits (docs/RECORD.md "Hash") */
		HKS_TRY(put_u32(b, (uint32_t)r->data_hash));
	} else {
		uint8_t h[8];
		hks_put_le64(h, r->data_hash);
		HKS_TRY(hks_bytebuf_append(b, h, 8));
	}
	/* v12: the data size only for the data stored whole (a prediction's size is the packer's; docs/RECORD.md
	 * "Hash") */
	if (version < 12 || r->kind == HKS_REC_ANIM_VERBATIM)
		HKS_TRY(hks_rec_put_varint(b, r->data_size));
	if (r->kind == HKS_REC_ANIM_VERBATIM) {
		HKS_TRY(put_offsets(b, r->block_offsets, r->num_block_offsets));
		HKS_TRY(put_offsets(b, r->float_block_offsets, r->num_float_block_offsets));
		for (int i = 0; i < 3; i++)
			HKS_TRY(put_u32(b, r->header_bits[i]));
		return hks_bytebuf_append(b, r->data, r->data_size);
	}
	HKS_TRY(hks_bytebuf_append(b, r->track_quant, r->num_transform_tracks));
	HKS_TRY(hks_bytebuf_append(b, r->float_quant, r->num_float_tracks));
	if (version < 12 || r->ladder_count != hks_rec_implied_steps(version) ||
	    r->offsets_override != HKS_REC_IMPLIED_OVERRIDES) {
		HKS_TRY(put_u8(b, r->ladder_count));
		HKS_TRY(put_u8(b, r->offsets_override));
	}
	if (r->offsets_override & 1)
		HKS_TRY(put_offsets(b, r->block_offsets, r->num_block_offsets));
	if (r->offsets_override & 2)
		HKS_TRY(put_offsets(b, r->float_block_offsets, r->num_float_block_offsets));
	for (int i = 0; i < 3 && (r->offsets_override & 4); i++)
		HKS_TRY(put_u32(b, r->header_bits[i]));
	HKS_TRY(hks_rec_put_varint(b, r->num_entries));
	/* v2: the entries column by column (index gaps, kinds, payload sizes,
	 * hashes, payloads): like fields next to each other compress better */
	uint32_t prev = 0;
	for (uint32_t i = 0; i < r->num_entries; i++) {
		/* entries are sorted by unit index: store the gap */
		HKS_TRY(hks_rec_put_varint(b, r->entries[i].index - prev));
		prev = r->entries[i].index + 1;
	}
	for (uint32_t i = 0; i < r->num_entries; i++)
		HKS_TRY(put_u8(b, (uint8_t)((r->entries[i].full_hash ? 0x80u : 0u) | r->entries[i].ladder << 3 |
		                            r->entries[i].kind)));
	for (uint32_t i = 0; i < r->num_entries; i++)
		if (r->entries[i].kind != HKS_REC_ENTRY_REFIT_INV) /* v8: self-delimiting */
			HKS_TRY(hks_rec_put_varint(b, r->entries[i].payload_size));
	for (uint32_t i = 0; i < r->num_entries; i++)
		if (r->entries[i].full_hash)
			HKS_TRY(put_u32(b, r->entries[i].hash));
	for (uint32_t i = 0; i < r->num_entries; i++)
		HKS_TRY(hks_bytebuf_append(b, r->entries[i].payload, r->entries[i].payload_size));
	return HKS_OK;
}

hks_result hks_rec_write(hks_ctx *ctx, const hks_rec_anim *r, int no_zlib, uint8_t **out, size_t *out_size)
{
	hks_bytebuf body, rec, coded;
	hks_bytebuf_init(&body, ctx);
	hks_bytebuf_init(&rec, ctx);
	hks_bytebuf_init(&coded, ctx);
	unsigned version = r->version ? r->version : HKS_RECORD_VERSION;
	hks_result res = version >= 9 && version <= HKS_RECORD_VERSION
	                     ? write_body(&body, r, version)
	                     : hks_fail(ctx, HKS_E_ARGUMENT, -1, "record version %u cannot be written", version);
	uint8_t flags = no_zlib ? 0 : HKS_RECORD_FLAG_MODEL;
	/* the reader takes a body of at most UINT32_MAX bytes (a margin below it; no animation's record comes
	 * near) */
	if (res == HKS_OK && body.size > UINT32_MAX - (UINT32_MAX >> 6))
		res = hks_fail(ctx, HKS_E_LIMIT, -1, "a record body of %zu bytes", body.size);
	if (res == HKS_OK && flags) {
		/* v9: the body coder, its stream running to the record's end (no compressed size) */
		res = hks_rec_model_encode(ctx, body.data ? body.data : (const uint8_t *)"", body.size, version, &coded);
		if (res == HKS_OK && (coded.size >= body.size || body.size > coded.size * HKS_RECORD_MODEL_RATIO + 64u))
			flags = 0; /* stored: coding would not help, or shrinks more than a reader accepts */
	}
	if (res == HKS_OK)
		res = hks_bytebuf_append(&rec, HKS_RECORD_MAGIC, 4);
	if (res == HKS_OK)
		res = put_u8(&rec, (uint8_t)version);
	if (res == HKS_OK)
		res = put_u8(&rec, flags);
	if (res == HKS_OK)
		res = hks_rec_put_varint(&rec, body.size);
	if (res == HKS_OK && flags) {
		res = hks_bytebuf_append(&rec, coded.data, coded.size);
	} else if (res == HKS_OK) {
		res = hks_bytebuf_append(&rec, body.data, body.size);
	}
	hks_bytebuf_free(&coded);
	hks_bytebuf_free(&body);
	if (res != HKS_OK) {
		hks_bytebuf_free(&rec);
		return res;
	}
	*out = hks_bytebuf_take(&rec, out_size);
	return *out ? HKS_OK : hks_fail_nomem(ctx, 0);
}

static hks_result read_body(hks_cursor *c, hks_arena *arena, hks_rec_anim *r)
{
	hks_ctx *ctx = c->ctx;
	uint8_t head = 0;
	if (r->version >= 12) {
		HKS_TRY(hks_read_u8(c, &head, "head flags"));
		unsigned dcode = (head >> HKS_REC_HEAD_DURATION_SHIFT) & 3u;
		if (((head & HKS_REC_HEAD_STEPS) && (head & HKS_REC_HEAD_VERBATIM)) || dcode >= HKS_REC_DURATION_CODES)
			return hks_fail(ctx, HKS_E_MALFORMED, hks_cursor_offset(c) - 1, "head flags 0x%02X are unknown", head);
		r->kind = head & HKS_REC_HEAD_VERBATIM;
		r->guard = (head & HKS_REC_HEAD_GUARD) ? 1 : 0;
		r->cpu = (uint8_t)(HKS_CPU_INTEL + (head >> HKS_REC_HEAD_CPU_SHIFT & 3u));
	} else {
		HKS_TRY(hks_read_u8(c, &r->kind, "animation kind"));
		if (r->kind > HKS_REC_ANIM_VERBATIM)
			return hks_fail(ctx, HKS_E_MALFORMED, hks_cursor_offset(c) - 1, "animation kind %u is unknown", r->kind);
	}
	HKS_TRY(hks_rec_get_count(c, ctx->limits.max_frames, &r->num_frames, "numFrames"));
	HKS_TRY(hks_rec_get_count(c, ctx->limits.max_tracks, &r->num_transform_tracks, "transform tracks"));
	HKS_TRY(hks_rec_get_count(c, ctx->limits.max_tracks, &r->num_float_tracks, "float tracks"));
	if (r->version < 12 || (head & HKS_REC_HEAD_BLOCKS)) {
		HKS_TRY(hks_rec_get_count(c, 256, &r->max_frames_per_block, "maxFramesPerBlock"));
		HKS_TRY(hks_rec_get_count(c, ctx->limits.max_blocks, &r->num_blocks, "numBlocks"));
	} else {
		/* v12: the implied block layout */
		r->max_frames_per_block = HKS_REC_IMPLIED_FRAMES_PER_BLOCK;
		r->num_blocks = hks_rec_blocks_implied(r->num_frames);
		if (r->num_blocks > ctx->limits.max_blocks)
			return hks_fail(ctx, HKS_E_LIMIT, hks_cursor_offset(c), "numBlocks: %u exceeds %u", r->num_blocks,
			                (unsigned)ctx->limits.max_blocks);
	}
	if (r->version >= 12) {
		unsigned dcode = (head >> HKS_REC_HEAD_DURATION_SHIFT) & 3u;
		if (dcode == HKS_REC_DURATION_STORED)
			HKS_TRY(hks_read_le32(c, &r->duration_bits, "duration"));
		else
			r->duration_bits = hks_rec_duration_bits(dcode, r->num_frames);
	} else {
		HKS_TRY(hks_read_le32(c, &r->duration_bits, "duration"));
		HKS_TRY(hks_read_u8(c, &r->guard, "guard"));
		HKS_TRY(hks_read_u8(c, &r->cpu, "cpu model"));
	}
	if (r->version >= 12) {
		uint32_t h32;
		HKS_TRY(hks_read_le32(c, &h32, "data hash"));
		r->data_hash = h32; /* v12: the low 32 bits (hks_rec_data_hash_mask) */
	} else {
		HKS_TRY(hks_read_le64(c, &r->data_hash, "data hash"));
	}
	if (r->version < 12 || r->kind == HKS_REC_ANIM_VERBATIM)
		HKS_TRY(hks_rec_get_count(c, UINT32_MAX, &r->data_size, "data size"));
	else
		r->data_size = 0; /* v12: not stored for a prediction (the hash alone says whether the output matches) */
	if ((uint64_t)r->num_transform_tracks + r->num_float_tracks > ctx->limits.max_tracks)
		return hks_fail(ctx, HKS_E_LIMIT, hks_cursor_offset(c), "%u + %u tracks exceed the limit",
		                r->num_transform_tracks, r->num_float_tracks);
	if (r->kind == HKS_REC_ANIM_VERBATIM) {
		HKS_TRY(get_offsets(c, arena, &r->block_offsets, &r->num_block_offsets, "blockOffsets"));
		HKS_TRY(get_offsets(c, arena, &r->float_block_offsets, &r->num_float_block_offsets, "floatBlockOffsets"));
		for (int i = 0; i < 3; i++)
			HKS_TRY(hks_read_le32(c, &r->header_bits[i], "header durations"));
		HKS_TRY(hks_read_bytes(c, r->data_size, &r->data, "data"));
	} else {
		HKS_TRY(hks_read_bytes(c, r->num_transform_tracks, &r->track_quant, "track quantizations"));
		HKS_TRY(hks_read_bytes(c, r->num_float_tracks, &r->float_quant, "float quantizations"));
		if (r->version >= 12 && !(head & HKS_REC_HEAD_STEPS)) {
			r->ladder_count = (uint8_t)hks_rec_implied_steps(r->version);
			r->offsets_override = HKS_REC_IMPLIED_OVERRIDES;
		} else {
			HKS_TRY(hks_read_u8(c, &r->ladder_count, "ladder count"));
			if (r->ladder_count < 1 || r->ladder_count > HKS_RECORD_LADDER_MAX)
				return hks_fail(ctx, HKS_E_MALFORMED, hks_cursor_offset(c) - 1, "ladder count %u is outside 1..%d",
				                r->ladder_count, HKS_RECORD_LADDER_MAX);
			HKS_TRY(hks_read_u8(c, &r->offsets_override, "offsets override"));
			if (r->offsets_override & ~15u)
				return hks_fail(ctx, HKS_E_MALFORMED, hks_cursor_offset(c) - 1, "offsets override flags 0x%02X",
				                r->offsets_override);
		}
		if (r->offsets_override & 1)
			HKS_TRY(get_offsets(c, arena, &r->block_offsets, &r->num_block_offsets, "blockOffsets"));
		if (r->offsets_override & 2)
			HKS_TRY(get_offsets(c, arena, &r->float_block_offsets, &r->num_float_block_offsets, "floatBlockOffsets"));
		for (int i = 0; i < 3 && (r->offsets_override & 4); i++)
			HKS_TRY(hks_read_le32(c, &r->header_bits[i], "header durations"));
		uint64_t units;
		if (!hks_rec_num_units(r->num_blocks, r->num_transform_tracks, r->num_float_tracks, &units))
			return hks_fail(ctx, HKS_E_MALFORMED, hks_cursor_offset(c), "part count overflows");
		/* an entry takes at least 3 bytes (index gap, kind, payload size or a REFIT_INV payload's
		 * first bytes): the count is bounded by the input */
		size_t left = c->size - c->pos;
		HKS_TRY(hks_rec_get_count(c, units < left / 3 ? units : left / 3, &r->num_entries, "entry count"));
		r->entries = (hks_rec_entry *)hks_arena_array(arena, r->num_entries + 1u, sizeof(hks_rec_entry));
		if (!r->entries)
			return hks_fail_nomem(ctx, 0);
		/* v2: column by column (write_body) */
		uint64_t next = 0;
		for (uint32_t i = 0; i < r->num_entries; i++) {
			hks_rec_entry *e = &r->entries[i];
			int64_t at = hks_cursor_offset(c);
			uint64_t gap = 0;
			HKS_TRY(hks_rec_get_varint(c, &gap, "entry index"));
			if (gap >= units || next + gap >= units)
				return hks_fail(ctx, HKS_E_MALFORMED, at, "entry %u: part index beyond the %llu parts", i,
				                (unsigned long long)units);
			e->index = (uint32_t)(next + gap);
			next = (uint64_t)e->index + 1;
		}
		for (uint32_t i = 0; i < r->num_entries; i++) {
			hks_rec_entry *e = &r->entries[i];
			uint8_t lk;
			HKS_TRY(hks_read_u8(c, &lk, "entry kind"));
			e->kind = lk & 7;
			e->ladder = (uint8_t)((lk >> 3) & 15);
			e->full_hash = (uint8_t)(lk >> 7);
			if (e->kind > HKS_REC_ENTRY_REFIT_INV)
				return hks_fail(ctx, HKS_E_MALFORMED, hks_cursor_offset(c) - 1, "entry %u: kind %u is unknown", i,
				                e->kind);
			if (e->ladder >= r->ladder_count)
				return hks_fail(ctx, HKS_E_MALFORMED, hks_cursor_offset(c) - 1,
				                "entry %u: ladder step %u of %u", i, e->ladder, r->ladder_count);
		}
		uint64_t payload_total = 0;
		for (uint32_t i = 0; i < r->num_entries; i++) {
			if (r->entries[i].kind == HKS_REC_ENTRY_REFIT_INV)
				continue; /* v8: its length follows from its bytes (hks_rec_refit_inv_length) */
			left = c->size - c->pos;
			HKS_TRY(hks_rec_get_count(c, left, &r->entries[i].payload_size, "entry payload size"));
			payload_total += r->entries[i].payload_size;
			if (payload_total > left)
				return hks_fail(ctx, HKS_E_TRUNCATED, hks_cursor_offset(c), "entry payloads exceed the record");
		}
		for (uint32_t i = 0; i < r->num_entries; i++)
			if (r->entries[i].full_hash)
				HKS_TRY(hks_read_le32(c, &r->entries[i].hash, "entry hash"));
		uint32_t per = r->num_transform_tracks * 3u + r->num_float_tracks; /* checked by hks_rec_num_units */
		for (uint32_t i = 0; i < r->num_entries; i++) {
			hks_rec_entry *e = &r->entries[i];
			if (e->kind == HKS_REC_ENTRY_REFIT_INV) {
				uint32_t u = e->index % per;
				unsigned part = u < 3u * r->num_transform_tracks ? u % 3u : 3u;
				size_t n = hks_rec_refit_inv_length(part, c->data + c->pos, c->size - c->pos, r->version);
				if (!n)
					return hks_fail(ctx, HKS_E_MALFORMED, hks_cursor_offset(c),
					                "entry %u: a knot-edit payload that does not end inside the record", i);
				e->payload_size = (uint32_t)n;
			}
			HKS_TRY(hks_read_bytes(c, e->payload_size, &e->payload, "entry payload"));
		}
	}
	if (c->pos != c->size)
		return hks_fail(ctx, HKS_E_MALFORMED, hks_cursor_offset(c), "%zu bytes after the record body",
		                c->size - c->pos);
	return HKS_OK;
}

hks_result hks_rec_read(hks_ctx *ctx, hks_arena *arena, const uint8_t *data, size_t size, hks_rec_anim *r)
{
	memset(r, 0, sizeof(*r));
	hks_err_object(ctx, "reconstruction record");
	hks_cursor c = hks_cursor_make(ctx, data, size, 0);
	HKS_TRY(hks_cursor_need(&c, 4, "record magic"));
	if (memcmp(data, HKS_RECORD_MAGIC, 4) != 0)
		return hks_fail(ctx, HKS_E_MALFORMED, 0, "not a reconstruction record (magic is not \"HKSR\")");
	c.pos = 4;
	uint8_t version, flags;
	HKS_TRY(hks_read_u8(&c, &version, "record version"));
	if (version < HKS_RECORD_VERSION_MIN || version > HKS_RECORD_VERSION)
		return hks_fail(ctx, HKS_E_UNSUPPORTED, 4,
		                "record version %u (this build reads %d to %d; re-create the record with this build)", version,
		                HKS_RECORD_VERSION_MIN, HKS_RECORD_VERSION);
	r->version = version;
	HKS_TRY(hks_read_u8(&c, &flags, "record flags"));
	/* v8 wrote deflated bodies (flag 0x01), v9 writes modelled ones (0x02); the body is the same */
	uint8_t known = version >= 9 ? HKS_RECORD_FLAG_MODEL : HKS_RECORD_FLAG_ZLIB;
	if (flags & ~known)
		return hks_fail(ctx, HKS_E_MALFORMED, 5, "unknown record flags 0x%02X for version %u", flags, version);
	uint32_t body_size;
	HKS_TRY(hks_rec_get_count(&c, ctx->limits.max_output_bytes, &body_size, "body size"));
	const uint8_t *body;
	int64_t body_base;
	if (flags & HKS_RECORD_FLAG_ZLIB) {
		/* v8: a raw deflate stream to the record's end */
		size_t zsize = c.size - c.pos;
		if (zsize > UINT32_MAX)
			return hks_fail(ctx, HKS_E_LIMIT, (int64_t)c.pos, "a compressed body of %zu bytes", zsize);
		const uint8_t *z;
		HKS_TRY(hks_read_bytes(&c, zsize, &z, "compressed body"));
		/* deflate expands at most ~1032:1: a larger claim is malformed, and is refused before allocating */
		if ((uint64_t)body_size > (uint64_t)zsize * 1032u + 64u)
			return hks_fail(ctx, HKS_E_MALFORMED, (int64_t)c.pos, "body size %u is impossible for %zu compressed bytes",
			                body_size, zsize);
		uint8_t *inflated = (uint8_t *)hks_arena_alloc(arena, body_size ? body_size : 1);
		if (!inflated)
			return hks_fail_nomem(ctx, body_size);
		z_stream zs;
		memset(&zs, 0, sizeof(zs));
		if (inflateInit2(&zs, -15) != Z_OK)
			return hks_fail_nomem(ctx, 0);
		zs.next_in = (Bytef *)z;
		zs.avail_in = (uInt)zsize;
		zs.next_out = inflated;
		zs.avail_out = (uInt)body_size;
		int zr = inflate(&zs, Z_FINISH);
		int whole = zr == Z_STREAM_END && zs.total_out == body_size && zs.avail_in == 0;
		inflateEnd(&zs);
		if (!whole)
			return hks_fail(ctx, HKS_E_MALFORMED, (int64_t)(c.pos - zsize),
			                "the compressed body does not inflate to exactly %u bytes and end with the record (zlib %d)",
			                body_size, zr);
		body = inflated;
		body_base = 0; /* offsets inside an inflated body are body offsets */
	} else if (flags & HKS_RECORD_FLAG_MODEL) {
		/* v9: the coded stream runs to the record's end */
		size_t zsize = c.size - c.pos;
		const uint8_t *z;
		HKS_TRY(hks_read_bytes(&c, zsize, &z, "coded body"));
		/* the writer codes a body only when it shrinks to at least 1/HKS_RECORD_MODEL_RATIO (record bodies
		 * shrink about 3:1, at most 8.3:1 on the corpus): a larger claim is malformed and is refused before
		 * allocating. The bound also bounds the decoder's work, which runs to the claimed size whatever the
		 * stream holds */
		if ((uint64_t)body_size > (uint64_t)zsize * HKS_RECORD_MODEL_RATIO + 64u)
			return hks_fail(ctx, HKS_E_MALFORMED, (int64_t)(c.pos - zsize),
			                "body size %u is impossible for %zu coded bytes", body_size, zsize);
		uint8_t *decoded = (uint8_t *)hks_arena_alloc(arena, body_size ? body_size : 1);
		if (!decoded)
			return hks_fail_nomem(ctx, body_size);
		int whole = 0;
		HKS_TRY(hks_rec_model_decode(ctx, z, zsize, r->version, decoded, body_size, &whole));
		if (!whole)
			return hks_fail(ctx, HKS_E_MALFORMED, (int64_t)(c.pos - zsize),
			                "the coded body does not decode to exactly %u bytes ending with the record", body_size);
		body = decoded;
		body_base = 0; /* offsets inside a decoded body are body offsets */
	} else {
		HKS_TRY(hks_read_bytes(&c, body_size, &body, "record body"));
		body_base = (int64_t)(c.pos - body_size);
	}
	if (c.pos != size)
		return hks_fail(ctx, HKS_E_MALFORMED, (int64_t)c.pos, "%zu bytes after the record", size - c.pos);
	hks_cursor bc = hks_cursor_make(ctx, body, body_size, body_base);
	return read_body(&bc, arena, r);
}

/* ---- record files -------------------------------------------------------- */

hks_result hks_record_file_write(const hks_record_file_entry *entries, uint32_t count, const hks_options *opts,
                                 uint8_t **out, size_t *out_size, hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, opts, 0, err);
	if (!out || !out_size || (count && !entries))
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_record_file_write: NULL argument");
	hks_bytebuf b;
	hks_bytebuf_init(&b, &ctx);
	hks_result r = hks_bytebuf_append(&b, HKS_RECORD_FILE_MAGIC, 4);
	if (r == HKS_OK)
		r = put_u8(&b, HKS_RECORD_VERSION);
	if (r == HKS_OK)
		r = hks_rec_put_varint(&b, count);
	for (uint32_t i = 0; r == HKS_OK && i < count; i++) {
		r = hks_rec_put_varint(&b, entries[i].animation);
		if (r == HKS_OK)
			r = hks_rec_put_varint(&b, entries[i].size);
		if (r == HKS_OK)
			r = hks_bytebuf_append(&b, entries[i].record, entries[i].size);
	}
	if (r != HKS_OK) {
		hks_bytebuf_free(&b);
		return r;
	}
	*out = hks_bytebuf_take(&b, out_size);
	return *out ? HKS_OK : hks_fail_nomem(&ctx, 0);
}

hks_result hks_record_file_read(const void *data, size_t size, const hks_options *opts,
                                hks_record_file_entry **entries, uint32_t *count, hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, opts, size, err);
	if (!entries || !count || (!data && size))
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_record_file_read: NULL argument");
	*entries = NULL;
	*count = 0;
	hks_err_object(&ctx, "record file");
	hks_cursor c = hks_cursor_make(&ctx, data, size, 0);
	HKS_TRY(hks_cursor_need(&c, 5, "record file magic"));
	if (memcmp(data, HKS_RECORD_FILE_MAGIC, 4) != 0)
		return hks_fail(&ctx, HKS_E_MALFORMED, 0, "not a record file (magic is not \"HKSF\")");
	c.pos = 4;
	uint8_t version;
	HKS_TRY(hks_read_u8(&c, &version, "record file version"));
	if (version < HKS_RECORD_VERSION_MIN || version > HKS_RECORD_VERSION)
		return hks_fail(&ctx, HKS_E_UNSUPPORTED, 4,
		                "record file version %u (this build reads %d to %d; re-create the record file with this build)",
		                version, HKS_RECORD_VERSION_MIN, HKS_RECORD_VERSION);
	uint32_t n;
	/* each entry takes at least 2 bytes */
	HKS_TRY(hks_rec_get_count(&c, (c.size - c.pos) / 2, &n, "record count"));
	hks_record_file_entry *e = (hks_record_file_entry *)hks_calloc(&ctx, n ? n : 1, sizeof(*e));
	if (!e)
		return hks_fail_nomem(&ctx, 0);
	hks_result r = HKS_OK;
	for (uint32_t i = 0; r == HKS_OK && i < n; i++) {
		uint32_t len = 0;
		r = hks_rec_get_count(&c, UINT32_MAX, &e[i].animation, "animation index");
		if (r == HKS_OK)
			r = hks_rec_get_count(&c, c.size - c.pos, &len, "record size");
		if (r == HKS_OK)
			r = hks_read_bytes(&c, len, &e[i].record, "record");
		e[i].size = len;
	}
	if (r == HKS_OK && c.pos != size)
		r = hks_fail(&ctx, HKS_E_MALFORMED, (int64_t)c.pos, "%zu bytes after the last record", size - c.pos);
	if (r != HKS_OK || n == 0) {
		hks_free(&ctx, e, (n ? n : 1) * sizeof(*e));
		return r; /* an empty file gives no array */
	}
	*entries = e;
	*count = n;
	return HKS_OK;
}
