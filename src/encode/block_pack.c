/*
 * The block packer: stored structure to the bytes of an
 * hkaSplineCompressedAnimation (FORMAT.md §2, ENCODER.md §5.1, §10).
 *
 * Layout per block: mask area (zero-padded to maskAndQuantizationSize), each
 * transform track's translation, rotation and scale (each followed by align 4),
 * the float tracks at floatBlockOffsets, zero padding to 16. After the last
 * block the Elden Ring guard of 16 zero bytes when the options ask for the rule
 * and the rule holds (FORMAT.md §2.8). Every padding byte is zero, which is
 * what reproduces retail data byte for byte [P].
 *
 * The stored masks are authoritative and must agree with the parts' flags and
 * quantizations: a disagreement is a bug of the producer (HKS_E_ARGUMENT).
 */
#include "internal.h"
#include "stored_format.h"

#include <stdio.h>

typedef struct packer {
	hks_ctx *ctx;
	hks_bytebuf buf;
	size_t block_start;
	int32_t block, track;
	hks_part part;
	int keep_float_offsets;
} packer;

static hks_result HKS_PRINTF(2, 3) pack_fail(packer *pk, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	hks_err_object(pk->ctx, "stored structure");
	hks_err_location(pk->ctx, -1, pk->block, pk->track, pk->part);
	return hks_fail(pk->ctx, HKS_E_ARGUMENT, -1, "%s", msg);
}

/* Zero padding to a multiple of `a` relative to the block start (blocks start 16-aligned). */
static hks_result pad_to(packer *pk, size_t a)
{
	size_t rel = pk->buf.size - pk->block_start;
	size_t gap = (a - (rel & (a - 1))) & (a - 1);
	return gap ? hks_bytebuf_zeros(&pk->buf, gap) : HKS_OK;
}

static hks_result put_u8(packer *pk, uint8_t v)
{
	return hks_bytebuf_append(&pk->buf, &v, 1);
}

static hks_result put_u16(packer *pk, uint16_t v)
{
	uint8_t b[2];
	hks_put_le16(b, v);
	return hks_bytebuf_append(&pk->buf, b, 2);
}

/* A stored float, bit for bit (NaN payloads kept). */
static hks_result put_f32(packer *pk, float f)
{
	uint8_t b[4];
	hks_put_le32(b, hks_f32_bits(f));
	return hks_bytebuf_append(&pk->buf, b, 4);
}

/* u16 n, u8 degree, knot bytes (FORMAT.md §2.4). */
static hks_result put_spline_header(packer *pk, const hks_stored_part *p)
{
	if (!p->is_spline)
		return pack_fail(pk, "mask 0x%02X has spline bits but the part is not a spline", p->flags);
	if (p->degree < 1 || p->degree > 3)
		return pack_fail(pk, "degree %u is outside 1..3", p->degree);
	if (p->num_control_points < (uint32_t)p->degree + 1)
		return pack_fail(pk, "%u control points are too few for degree %u", p->num_control_points, p->degree);
	if ((uint32_t)p->num_knots != (uint32_t)p->num_control_points + p->degree + 1 || !p->knots)
		return pack_fail(pk, "%u knots for %u control points of degree %u (need n + p + 2)", p->num_knots,
		                 p->num_control_points, p->degree);
	HKS_TRY(put_u16(pk, (uint16_t)(p->num_control_points - 1)));
	HKS_TRY(put_u8(pk, p->degree));
	return hks_bytebuf_append(&pk->buf, p->knots, p->num_knots);
}

/* Translation, scale (lanes 3) or float (lanes 1): FORMAT.md §2.4. */
static hks_result put_vector(packer *pk, const hks_stored_part *p, uint8_t m, unsigned q, unsigned lanes)
{
	if (p->flags != m || p->quantization != q)
		return pack_fail(pk, "part flags 0x%02X / quantization %u disagree with the mask 0x%02X / %u", p->flags,
		                 p->quantization, m, q);
	if (q > 1)
		return pack_fail(pk, "scalar quantization %u is not 8- or 16-bit", q);
	if ((m & (m >> 4) & 0x0F) || (m & ~((0x11u << lanes) - 0x11u) & 0xFF))
		return pack_fail(pk, "mask 0x%02X flags a lane both static and spline, or a lane not stored", m);
	if (m & 0xF0)
		HKS_TRY(put_spline_header(pk, p));
	HKS_TRY(pad_to(pk, 4));
	unsigned spline_lanes = 0;
	for (unsigned lane = 0; lane < lanes; lane++) {
		if (m & (0x01u << lane)) {
			HKS_TRY(put_f32(pk, p->static_value[lane]));
		} else if (m & (0x10u << lane)) {
			HKS_TRY(put_f32(pk, p->min[lane]));
			HKS_TRY(put_f32(pk, p->max[lane]));
			spline_lanes++;
		}
	}
	if (m & 0xF0) {
		if (p->spline_lanes != spline_lanes)
			return pack_fail(pk, "%u spline lanes stored, the mask 0x%02X has %u", p->spline_lanes, m, spline_lanes);
		size_t count = (size_t)p->num_control_points * spline_lanes;
		if (count && !p->control_points)
			return pack_fail(pk, "control points missing");
		HKS_TRY(pad_to(pk, 2));
		HKS_TRY(hks_bytebuf_reserve(&pk->buf, count << q));
		uint8_t *dst = pk->buf.data + pk->buf.size;
		if (q) {
			for (size_t i = 0; i < count; i++)
				hks_put_le16(dst + 2 * i, p->control_points[i]);
		} else {
			for (size_t i = 0; i < count; i++) {
				if (p->control_points[i] > 0xFF)
					return pack_fail(pk, "8-bit control point %zu holds %u", i, p->control_points[i]);
				dst[i] = (uint8_t)p->control_points[i];
			}
		}
		pk->buf.size += count << q;
	}
	return pad_to(pk, 4);
}

/* The rotation part: FORMAT.md §2.5. Returns where it ends before its align 4. */
static hks_result put_rotation(packer *pk, const hks_stored_part *p, uint8_t m, unsigned selector, uint32_t *end)
{
	if (p->flags != m || p->quantization != selector)
		return pack_fail(pk, "part flags 0x%02X / selector %u disagree with the mask 0x%02X / %u", p->flags,
		                 p->quantization, m, selector);
	uint32_t size = hks_rotation_size(selector);
	if (!size)
		return pack_fail(pk, "rotation selector %u is outside 0..5", selector);
	size_t count = 0;
	if (m & 0xF0) {
		HKS_TRY(put_spline_header(pk, p));
		count = p->num_control_points;
	} else if (m & 0x0F) {
		count = 1;
	}
	if (count) {
		if (!p->packed)
			return pack_fail(pk, "packed quaternions missing");
		HKS_TRY(pad_to(pk, hks_rotation_alignment(selector)));
		HKS_TRY(hks_bytebuf_append(&pk->buf, p->packed, count * size));
	}
	*end = (uint32_t)(pk->buf.size - pk->block_start);
	return pad_to(pk, 4);
}

static hks_result check_stored(packer *pk, const hks_stored_animation *s)
{
	if (s->num_transform_tracks < 0 || s->num_float_tracks < 0)
		return pack_fail(pk, "negative track count");
	if ((uint64_t)s->num_transform_tracks + (uint64_t)s->num_float_tracks > pk->ctx->limits.max_tracks)
		return hks_fail(pk->ctx, HKS_E_LIMIT, -1, "%d + %d tracks exceed the limit of %u", (int)s->num_transform_tracks,
		                (int)s->num_float_tracks, pk->ctx->limits.max_tracks);
	if (s->num_frames < 2)
		return pack_fail(pk, "numFrames %d: at least 2 are needed", (int)s->num_frames);
	if (s->max_frames_per_block < 2 || s->max_frames_per_block > 256)
		return pack_fail(pk, "maxFramesPerBlock %d is outside 2..256", (int)s->max_frames_per_block);
	uint32_t nb = hks_expected_num_blocks(s->num_frames, s->max_frames_per_block);
	if (s->num_blocks != nb || !s->blocks)
		return pack_fail(pk, "%u blocks stored, numFrames %d and maxFramesPerBlock %d need %u", s->num_blocks,
		                 (int)s->num_frames, (int)s->max_frames_per_block, nb);
	for (uint32_t b = 0; b < nb; b++) {
		const hks_stored_block *blk = &s->blocks[b];
		if ((s->num_transform_tracks && !blk->tracks) ||
		    (s->num_float_tracks && (!blk->floats || !blk->float_masks))) {
			pk->block = (int32_t)b;
			return pack_fail(pk, "block %u has no track array", b);
		}
	}
	return HKS_OK;
}

static hks_result pack_blocks(packer *pk, const hks_stored_animation *s, int guard, uint32_t *block_offsets,
                              uint32_t *float_block_offsets, uint32_t *guard_bytes)
{
	uint32_t T = (uint32_t)s->num_transform_tracks, F = (uint32_t)s->num_float_tracks;
	uint32_t mask_size = (uint32_t)hks_expected_mask_size(s->num_transform_tracks, s->num_float_tracks);
	uint32_t last_rotation_end = 0;
	unsigned last_selector = 0;
	for (uint32_t b = 0; b < s->num_blocks; b++) {
		const hks_stored_block *blk = &s->blocks[b];
		pk->block = (int32_t)b;
		pk->track = -1;
		pk->part = HKS_PART_NONE;
		pk->block_start = pk->buf.size;
		if (pk->buf.size > UINT32_MAX)
			return hks_fail(pk->ctx, HKS_E_LIMIT, -1, "spline data exceeds 4 GiB");
		block_offsets[b] = (uint32_t)pk->buf.size;
		for (uint32_t t = 0; t < T; t++)
			HKS_TRY(hks_bytebuf_append(&pk->buf, blk->tracks[t].mask, 4));
		if (F)
			HKS_TRY(hks_bytebuf_append(&pk->buf, blk->float_masks, F));
		HKS_TRY(hks_bytebuf_zeros(&pk->buf, mask_size - (4 * T + F)));
		for (uint32_t t = 0; t < T; t++) {
			const hks_stored_track *tr = &blk->tracks[t];
			unsigned tq = tr->mask[0] & 3, rq = (tr->mask[0] >> 2) & 15, sq = tr->mask[0] >> 6;
			pk->track = (int32_t)t;
			pk->part = HKS_PART_TRANSLATION;
			HKS_TRY(put_vector(pk, &tr->part[0], tr->mask[1], tq, 3));
			pk->part = HKS_PART_ROTATION;
			HKS_TRY(put_rotation(pk, &tr->part[1], tr->mask[2], rq, &last_rotation_end));
			last_selector = rq;
			pk->part = HKS_PART_SCALE;
			HKS_TRY(put_vector(pk, &tr->part[2], tr->mask[3], sq, 3));
		}
		float_block_offsets[b] = (uint32_t)(pk->buf.size - pk->block_start);
		if (pk->keep_float_offsets && F == 0)
			float_block_offsets[b] = blk->float_offset; /* unobservable without float tracks: keep it */
		for (uint32_t f = 0; f < F; f++) {
			uint8_t byte = blk->float_masks[f];
			pk->track = (int32_t)f;
			pk->part = HKS_PART_FLOAT;
			if ((byte & 0xE8) || (byte & 0x11) == 0x11)
				return pack_fail(pk, "float mask byte 0x%02X is invalid", byte);
			HKS_TRY(put_vector(pk, &blk->floats[f], (uint8_t)(byte & 0xF9), (byte >> 1) & 3, 1));
		}
		HKS_TRY(pad_to(pk, 16));
	}
	pk->block = -1;
	pk->track = -1;
	pk->part = HKS_PART_NONE;
	/* FORMAT.md §2.8: the guard goes after the final padded block only. */
	uint32_t padded_end = (uint32_t)(pk->buf.size - pk->block_start);
	*guard_bytes = 0;
	if (guard && T > 0 && hks_guard_rule(last_selector, last_rotation_end, padded_end)) {
		HKS_TRY(hks_bytebuf_zeros(&pk->buf, 16));
		*guard_bytes = 16;
	}
	if (pk->buf.size > UINT32_MAX)
		return hks_fail(pk->ctx, HKS_E_LIMIT, -1, "spline data exceeds 4 GiB");
	return HKS_OK;
}

hks_result hks_stored_pack(const hks_stored_animation *s, const hks_pack_options *opts, hks_packed_spline **out,
                           hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, opts ? &opts->base : NULL, s ? s->data_size : 0, err);
	if (!s || !out)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_stored_pack: NULL argument");
	*out = NULL;
	packer pk;
	memset(&pk, 0, sizeof(pk));
	pk.ctx = &ctx;
	pk.block = -1;
	pk.track = -1;
	HKS_TRY(check_stored(&pk, s));

	hks_arena *arena = hks_arena_create(&ctx);
	if (!arena)
		return err && err->code ? err->code : HKS_E_NOMEM;
	uint32_t nb = s->num_blocks;
	hks_packed_spline *p = (hks_packed_spline *)hks_arena_alloc(arena, sizeof(*p));
	uint32_t *offsets = p ? (uint32_t *)hks_arena_array(arena, (size_t)nb * 2, sizeof(uint32_t)) : NULL;
	if (!offsets) {
		hks_result r = err && err->code ? err->code : HKS_E_NOMEM;
		hks_arena_free(arena);
		return r;
	}
	hks_bytebuf_init(&pk.buf, &ctx);
	pk.keep_float_offsets = opts ? opts->keep_float_offsets : 0;
	uint32_t guard_bytes = 0;
	hks_result r = pack_blocks(&pk, s, opts ? opts->guard : 0, offsets, offsets + nb, &guard_bytes);
	uint8_t *data = NULL;
	if (r == HKS_OK) {
		data = (uint8_t *)hks_arena_dup(arena, pk.buf.data, pk.buf.size);
		if (!data)
			r = err && err->code ? err->code : HKS_E_NOMEM;
	}
	size_t data_size = pk.buf.size;
	hks_bytebuf_free(&pk.buf);
	if (r != HKS_OK) {
		hks_arena_free(arena);
		return r;
	}
	(void)guard_bytes;

	/* ENCODER.md §5.1: the header in f32 arithmetic, each operation rounded. */
	float frame_duration = hks_rule_frame_duration(s->duration, s->num_frames);
	float block_duration = hks_rule_block_duration(frame_duration, s->max_frames_per_block);
	float block_inverse_duration = hks_rule_block_inverse_duration(block_duration);

	hks_spline_header *h = &p->header;
	h->num_frames = s->num_frames;
	h->num_blocks = (int32_t)nb;
	h->max_frames_per_block = s->max_frames_per_block;
	h->mask_and_quantization_size = hks_expected_mask_size(s->num_transform_tracks, s->num_float_tracks);
	h->block_duration = block_duration;
	h->block_inverse_duration = block_inverse_duration;
	h->frame_duration = frame_duration;
	h->endian = 0;
	h->block_offsets = offsets;
	h->num_block_offsets = nb;
	h->float_block_offsets = offsets + nb;
	h->num_float_block_offsets = nb;
	h->data = data;
	h->data_size = (uint32_t)data_size;
	p->duration = s->duration;
	p->num_transform_tracks = s->num_transform_tracks;
	p->num_float_tracks = s->num_float_tracks;
	p->arena = arena;
	hks_arena_set_ctx(arena, NULL);
	*out = p;
	return HKS_OK;
}

void hks_packed_spline_free(hks_packed_spline *packed)
{
	if (packed)
		hks_arena_free(packed->arena);
}

/* ---- walk + pack + compare ------------------------------------------- */

static const char *part_word(hks_part p)
{
	switch (p) {
	case HKS_PART_TRANSLATION: return "translation";
	case HKS_PART_ROTATION: return "rotation";
	case HKS_PART_SCALE: return "scale";
	case HKS_PART_FLOAT: return "float track";
	default: return "";
	}
}

/* Name what lies at data byte `off` of the original (walked) animation. */
static void describe_offset(const hks_stored_animation *s, uint32_t off, int32_t *block, int32_t *track,
                            hks_part *part, char *what, size_t cap)
{
	*block = -1;
	*track = -1;
	*part = HKS_PART_NONE;
	uint32_t b = 0;
	while (b + 1 < s->num_blocks && s->blocks[b + 1].offset <= off)
		b++;
	const hks_stored_block *blk = &s->blocks[b];
	if (off >= blk->offset + blk->size) {
		snprintf(what, cap, "after the last block (%s)", s->guard_bytes ? "guard" : "trailing bytes");
		return;
	}
	*block = (int32_t)b;
	uint32_t rel = off - blk->offset;
	uint32_t T = (uint32_t)s->num_transform_tracks, F = (uint32_t)s->num_float_tracks;
	if (rel < (uint32_t)s->mask_and_quantization_size) {
		if (rel < 4 * T) {
			*track = (int32_t)(rel / 4);
			snprintf(what, cap, "mask byte %u of transform track %u", rel % 4, rel / 4);
		} else if (rel < 4 * T + F) {
			*track = (int32_t)(rel - 4 * T);
			*part = HKS_PART_FLOAT;
			snprintf(what, cap, "mask byte of float track %u", rel - 4 * T);
		} else {
			snprintf(what, cap, "mask area padding");
		}
		return;
	}
	/* a part covers its bytes and its trailing align 4: [offset, align4(end)) */
	static const hks_part parts[3] = {HKS_PART_TRANSLATION, HKS_PART_ROTATION, HKS_PART_SCALE};
	for (uint32_t t = 0; t < T; t++)
		for (int k = 0; k < 3; k++) {
			const hks_stored_part *p = &blk->tracks[t].part[k];
			if (rel >= p->offset && rel < ((p->end + 3u) & ~3u)) {
				*track = (int32_t)t;
				*part = parts[k];
				snprintf(what, cap, "%s of transform track %u (part byte %u)", part_word(parts[k]), t, rel - p->offset);
				return;
			}
		}
	for (uint32_t f = 0; f < F; f++) {
		const hks_stored_part *p = &blk->floats[f];
		if (rel >= p->offset && rel < ((p->end + 3u) & ~3u)) {
			*track = (int32_t)f;
			*part = HKS_PART_FLOAT;
			snprintf(what, cap, "float track %u (part byte %u)", f, rel - p->offset);
			return;
		}
	}
	snprintf(what, cap, "block padding");
}

static hks_result compare_u32(hks_ctx *ctx, const char *member, const uint32_t *a, uint32_t na, const uint32_t *b,
                              uint32_t nb)
{
	if (na != nb) {
		hks_err_member(ctx, member);
		return hks_fail(ctx, HKS_E_MISMATCH, -1, "%s: the original has %u entries, the repack %u", member, na, nb);
	}
	for (uint32_t i = 0; i < na; i++)
		if (a[i] != b[i]) {
			hks_err_member(ctx, member);
			hks_err_location(ctx, -1, (int32_t)i, -1, HKS_PART_NONE);
			return hks_fail(ctx, HKS_E_MISMATCH, -1, "%s[%u]: original %u, repacked %u", member, i, a[i], b[i]);
		}
	return HKS_OK;
}

hks_result hks_spline_repack_compare(const hks_animation *anim, int guard, hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, NULL, anim ? anim->spline.data_size : 0, err);
	if (!anim)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_spline_repack_compare: NULL argument");
	hks_walk_options wo;
	memset(&wo, 0, sizeof(wo));
	wo.animation_index = -1;
	hks_stored_animation *s = NULL;
	HKS_TRY(hks_stored_read(anim, &wo, &s, err));
	hks_pack_options po;
	memset(&po, 0, sizeof(po));
	po.guard = guard;
	po.keep_float_offsets = 1; /* a repack keeps what the bytes say */
	hks_packed_spline *p = NULL;
	hks_result r = hks_stored_pack(s, &po, &p, err);
	if (r != HKS_OK) {
		hks_stored_free(s);
		return r;
	}
	hks_ctx_init(&ctx, NULL, 0, err);
	const hks_spline_header *a = &anim->spline, *b = &p->header;
	uint32_t n = a->data_size < b->data_size ? a->data_size : b->data_size;
	uint32_t at = 0;
	while (at < n && a->data[at] == b->data[at])
		at++;
	if (at < n || a->data_size != b->data_size) {
		int32_t blk, track;
		hks_part part;
		char what[160];
		hks_err_object(&ctx, "%s", anim->class_name ? anim->class_name : "hkaSplineCompressedAnimation");
		hks_err_member(&ctx, "data");
		if (at < n) {
			describe_offset(s, at, &blk, &track, &part, what, sizeof(what));
			hks_err_location(&ctx, -1, blk, track, part);
			r = hks_fail(&ctx, HKS_E_MISMATCH, anim->data_offset >= 0 ? anim->data_offset + at : (int64_t)at,
			             "repacked data differs at data byte %u (original 0x%02X, repacked 0x%02X): %s", at, a->data[at],
			             b->data[at], what);
		} else {
			r = hks_fail(&ctx, HKS_E_MISMATCH, anim->data_offset >= 0 ? anim->data_offset + at : (int64_t)at,
			             "repacked data is %u bytes, the original %u (identical up to data byte %u; guard %s)", b->data_size,
			             a->data_size, at, guard ? "on" : "off");
		}
	}
	if (r == HKS_OK)
		r = compare_u32(&ctx, "blockOffsets", a->block_offsets, a->num_block_offsets, b->block_offsets,
		                b->num_block_offsets);
	if (r == HKS_OK)
		r = compare_u32(&ctx, "floatBlockOffsets", a->float_block_offsets, a->num_float_block_offsets,
		                b->float_block_offsets, b->num_float_block_offsets);
	hks_packed_spline_free(p);
	hks_stored_free(s);
	return r;
}
