/*
 * The spline block walk: the bytes of an hkaSplineCompressedAnimation's data
 * to the stored structure (FORMAT.md §2), with the validation of FORMAT.md §6.
 *
 * The walk only locates and copies: knots and packed quaternions stay
 * pointers into the animation's data, bounds and static values are copied bit
 * for bit, control-point integers are used in place or widened into one pool
 * (store_points). Nothing is
 * dequantized here (that is sampling's job).
 *
 * Every read is checked against the current block's end E_b (FORMAT.md §6 B1):
 * the next block's start, or the end of data for the last block, so nothing is
 * ever read past the buffer (ThreeComp40 at the very end included).
 */
#include "internal.h"
#include "stored_format.h"

#include <math.h>
#include <stdio.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ---- the walker ------------------------------------------------------ */

typedef struct walker {
	hks_ctx *ctx;
	const hks_animation *anim;
	const uint8_t *data;
	uint32_t data_size;
	int32_t anim_index;
	int strict;
	hks_stored_animation *s;
	/* current block */
	int32_t block;
	uint32_t start;   /* S_b in data */
	uint32_t limit;   /* E_b − S_b: bytes readable from the block start */
	uint32_t pos;     /* read position relative to the block start */
	uint32_t frames;  /* F_b */
	int last_block;
	/* Blocks whose offsets the header stores (blockOffsets / floatBlockOffsets
	 * entries); a lenient walk reads the others where the previous block ends
	 * (FORMAT.md §6 H4). next_start: where block `known_blocks` and later begin. */
	uint32_t known_blocks, known_float_blocks, next_start;
	/* current location, for messages */
	int32_t track;
	hks_part part;
	/* control-point integers of all parts */
	hks_arena *arena;
	uint16_t *pool;   /* allocated on first use: data_size + 1 entries bound every count */
	size_t pool_used;
	size_t pool_cap;
} walker;

static int64_t file_offset(const walker *w, uint64_t data_offset)
{
	return w->anim->data_offset >= 0 ? w->anim->data_offset + (int64_t)data_offset : (int64_t)data_offset;
}

static void set_location(hks_ctx *ctx, const walker *w)
{
	hks_err_object(ctx, "%s", w->anim->class_name ? w->anim->class_name : "hkaSplineCompressedAnimation");
	hks_err_member(ctx, "data");
	hks_err_location(ctx, w->anim_index, w->block, w->track, w->part);
}

static hks_result vfail_at(hks_ctx *ctx, const walker *w, hks_result code, uint64_t data_offset, const char *fmt,
                           va_list ap)
{
	char msg[400];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	set_location(ctx, w);
	return hks_fail(ctx, code, file_offset(w, data_offset), "%s (data byte %llu)", msg,
	                (unsigned long long)data_offset);
}

/* An error at `rel` bytes from the current block start. */
static hks_result HKS_PRINTF(4, 5) walk_fail(walker *w, hks_result code, uint32_t rel, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	hks_result r = vfail_at(w->ctx, w, code, (uint64_t)w->start + rel, fmt, ap);
	va_end(ap);
	return r;
}

/* A conformance violation (FORMAT.md §6, kind "conformance"): an error when
 * strict, else counted and the first one recorded in the result. */
static hks_result HKS_PRINTF(3, 4) conformance(walker *w, uint32_t rel, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	hks_result r = HKS_OK;
	if (w->strict) {
		r = vfail_at(w->ctx, w, HKS_E_MALFORMED, (uint64_t)w->start + rel, fmt, ap);
	} else if (w->s->conformance_issues++ == 0) {
		hks_ctx rec = *w->ctx;
		rec.err = &w->s->conformance;
		hks_error_clear(&w->s->conformance);
		vfail_at(&rec, w, HKS_E_MALFORMED, (uint64_t)w->start + rel, fmt, ap);
	}
	va_end(ap);
	return r;
}

/* Reading past E_b: truncation at the end of data, else an overrun into the next block. */
static hks_result overrun(walker *w, uint32_t n, const char *what)
{
	uint32_t left = w->pos <= w->limit ? w->limit - w->pos : 0;
	if (w->last_block)
		return walk_fail(w, HKS_E_TRUNCATED, w->pos, "%s: needs %u bytes, the data has %u left (FORMAT.md §6 B1)",
		                 what, n, left);
	return walk_fail(w, HKS_E_MALFORMED, w->pos,
	                 "%s: needs %u bytes, only %u left before block %d starts (FORMAT.md §6 B1)", what, n, left,
	                 (int)w->block + 1);
}

static inline bool have(const walker *w, uint32_t n)
{
	return w->pos <= w->limit && n <= w->limit - w->pos;
}

static inline const uint8_t *here(const walker *w)
{
	return w->data + w->start + w->pos;
}

/* Advance to a multiple of `a` relative to the block start (FORMAT.md §2.1);
 * padding must be zero (B10, conformance). */
static hks_result align_to(walker *w, uint32_t a, const char *what)
{
	uint32_t gap = (a - (w->pos & (a - 1))) & (a - 1);
	if (!gap)
		return HKS_OK;
	if (!have(w, gap))
		return overrun(w, gap, what);
	const uint8_t *p = here(w);
	for (uint32_t i = 0; i < gap; i++) {
		if (p[i] != 0) {
			HKS_TRY(conformance(w, w->pos + i, "%s: padding byte 0x%02X is not zero (FORMAT.md §6 B10)", what, p[i]));
			break;
		}
	}
	w->pos += gap;
	return HKS_OK;
}

/*
 * Byte-parallel checks over knot bytes (8 at a time in a u64; lanes line up
 * whatever the host's byte order, since both operands are loaded the same
 * way). H has the high bit of every byte.
 */
#define KNOT_H UINT64_C(0x8080808080808080)
#define KNOT_L UINT64_C(0x0101010101010101)

static inline uint64_t load_u64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

/* Whether k[i] < k[i − 1] for some i in 1 .. n − 1. Per byte, b < a unsigned:
 * with the high bits different, a's is set; with them equal, the low 7 bits
 * of b are below a's, i.e. (b | 0x80) − (a & 0x7F) (no borrow between bytes)
 * has its high bit clear. */
static bool any_decreasing(const uint8_t *k, uint32_t n)
{
	uint64_t lt = 0;
	uint32_t i = 0;
	for (; i + 9 <= n; i += 8) {
		uint64_t a = load_u64(k + i), b = load_u64(k + i + 1);
		uint64_t d = (b | KNOT_H) - (a & ~KNOT_H);
		lt |= ((a & ~b) | (~(a ^ b) & ~d)) & KNOT_H;
	}
	bool found = lt != 0;
	for (i = i + 1; i < n; i++)
		found |= k[i] < k[i - 1];
	return found;
}

/* Whether a[i] == b[i] for some i < n (the "has a zero byte" test on a ^ b). */
static bool any_equal(const uint8_t *a, const uint8_t *b, uint32_t n)
{
	uint64_t z = 0;
	uint32_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t x = load_u64(a + i) ^ load_u64(b + i);
		z |= (x - KNOT_L) & ~x & KNOT_H;
	}
	bool found = z != 0;
	for (; i < n; i++)
		found |= a[i] == b[i];
	return found;
}

/* The spline header of a part: u16 n, u8 degree, knots (FORMAT.md §2.4), rules B7-B9. */
static hks_result read_spline_header(walker *w, hks_stored_part *p)
{
	if (!have(w, 3))
		return overrun(w, 3, "spline header");
	const uint8_t *h = here(w);
	uint32_t n = hks_le16(h);
	uint32_t degree = h[2];
	uint32_t head = w->pos;
	if (degree < 1 || degree > 3)
		return walk_fail(w, HKS_E_MALFORMED, head + 2, "spline degree %u is outside 1..3 (FORMAT.md §6 B7)", degree);
	if (n < degree)
		return walk_fail(w, HKS_E_MALFORMED, head, "%u control points are too few for degree %u (FORMAT.md §6 B7)",
		                 n + 1, degree);
	uint32_t num_knots = n + degree + 2;
	if (num_knots > UINT16_MAX)
		return walk_fail(w, HKS_E_MALFORMED, head, "%u knots exceed the 65535 the format can index", num_knots);
	w->pos += 3;
	if (!have(w, num_knots))
		return overrun(w, num_knots, "knots");
	const uint8_t *k = here(w);
	uint32_t last = w->frames - 1;
	/* B7, the hot loop of the walk: an OR-reduction the compiler vectorizes.
	 * Non-decreasing knots are all <= the last one, so one compare bounds them. */
	if (any_decreasing(k, num_knots) || k[num_knots - 1] > last) {
		for (uint32_t i = 0; i < num_knots; i++) { /* locate the first violation */
			if (k[i] > last)
				return walk_fail(w, HKS_E_MALFORMED, w->pos + i,
				                 "knot %u is frame %u, past the block's last frame %u (FORMAT.md §6 B7)", i, k[i], last);
			if (i && k[i] < k[i - 1])
				return walk_fail(w, HKS_E_MALFORMED, w->pos + i, "knots decrease: knot %u is %u after %u (FORMAT.md §6 B7)",
				                 i, k[i], k[i - 1]);
		}
	}
	/* B8 (conformance): U[0..p] = 0, U[n+1..n+p+1] = F_b − 1, interior
	 * multiplicity <= p (an interior 0 or F_b − 1 would over-repeat an end).
	 * With sorted knots an interior run longer than p is an i with
	 * U[i] = U[i − p], both interior (p + 1 <= i − p, i <= n). */
	bool clamped = true;
	for (uint32_t i = 0; i <= degree; i++)
		clamped = clamped && k[i] == 0 && k[n + 1 + i] == last;
	if (!clamped) {
		HKS_TRY(conformance(w, w->pos, "knot vector is not clamped to 0 and %u (FORMAT.md §6 B8)", last));
	} else if (n > degree && (k[degree + 1] == 0 || k[n] == last)) {
		HKS_TRY(conformance(w, w->pos, "an end knot repeats more than %u times (FORMAT.md §6 B8)", degree + 1));
	} else {
		if (n >= 2 * degree + 1 && any_equal(k + degree + 1, k + 2 * degree + 1, n - 2 * degree)) {
			for (uint32_t i = 2 * degree + 1; i <= n; i++)
				if (k[i] == k[i - degree]) {
					HKS_TRY(conformance(w, w->pos + i, "interior knot %u repeats more than %u times (FORMAT.md §6 B8)",
					                    k[i], degree));
					break;
				}
		}
	}
	if (n + 1 > w->frames)
		HKS_TRY(conformance(w, head, "%u control points exceed the block's %u frames (FORMAT.md §6 B9)", n + 1,
		                    w->frames));
	p->is_spline = 1;
	p->degree = (uint8_t)degree;
	p->num_control_points = (uint16_t)(n + 1);
	p->num_knots = (uint16_t)num_knots;
	p->knots = k;
	w->pos += num_knots;
	return HKS_OK;
}

static inline float load_f32(const uint8_t *p)
{
	return hks_f32_from_bits(hks_le32(p));
}

/*
 * Control-point integers of a part. 16-bit points are used in place when the
 * host is little-endian and they are 2-aligned in memory (they sit at even
 * offsets from 16-aligned block starts, so whenever the data pointer is even):
 * the walk's hot path copies nothing. Otherwise, and for 8-bit points, they
 * are widened into a pool allocated on first use (data_size + 1 entries bound
 * every count: each integer takes at least one data byte).
 */
static hks_result store_points(walker *w, hks_stored_part *p, const uint8_t *src, uint32_t count, unsigned q)
{
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (q && ((uintptr_t)src & 1) == 0) {
		p->control_points = (const uint16_t *)(const void *)src;
		return HKS_OK;
	}
#endif
	if (!w->pool) {
		w->pool_cap = (size_t)w->data_size + 1;
		w->pool = (uint16_t *)hks_arena_array(w->arena, w->pool_cap, sizeof(uint16_t));
		if (!w->pool)
			return w->ctx->err && w->ctx->err->code ? w->ctx->err->code : HKS_E_NOMEM;
	}
	if (w->pool_cap - w->pool_used < count) /* cannot happen, see above */
		return walk_fail(w, HKS_E_INTERNAL, w->pos, "control-point pool exhausted");
	uint16_t *dst = w->pool + w->pool_used;
	if (q)
		for (uint32_t i = 0; i < count; i++)
			dst[i] = hks_le16(src + 2 * i);
	else
		for (uint32_t i = 0; i < count; i++)
			dst[i] = src[i];
	p->control_points = dst;
	w->pool_used += count;
	return HKS_OK;
}

/*
 * A vector part (translation, scale; float with lanes = 1): FORMAT.md §2.4.
 * `m` is the mask (static bits 0-3, spline bits 4-7), `q` 0 = 8-bit, 1 = 16-bit.
 */
static hks_result read_vector(walker *w, hks_stored_part *p, uint8_t m, unsigned q, unsigned lanes)
{
	p->flags = m;
	p->quantization = (uint8_t)q;
	p->offset = w->pos;
	if (m & 0xF0)
		HKS_TRY(read_spline_header(w, p));
	HKS_TRY(align_to(w, 4, "alignment after the knots"));
	uint32_t spline_lanes = 0;
	for (unsigned lane = 0; lane < lanes; lane++) {
		if (m & (0x01u << lane)) { /* static first (FORMAT.md §2.4) */
			if (!have(w, 4))
				return overrun(w, 4, "static value");
			p->static_value[lane] = load_f32(here(w));
			w->pos += 4;
		} else if (m & (0x10u << lane)) {
			if (!have(w, 8))
				return overrun(w, 8, "spline bounds");
			const uint8_t *b = here(w);
			p->min[lane] = load_f32(b);
			p->max[lane] = load_f32(b + 4);
			if (isfinite(p->min[lane]) && isfinite(p->max[lane]) && p->min[lane] > p->max[lane])
				HKS_TRY(conformance(w, w->pos, "lane %u bounds: min %.9g > max %.9g (FORMAT.md §6 B11)", lane,
				                    (double)p->min[lane], (double)p->max[lane]));
			w->pos += 8;
			spline_lanes++;
		}
	}
	if (m & 0xF0) {
		HKS_TRY(align_to(w, 2, "alignment before the control points"));
		uint32_t count = (uint32_t)p->num_control_points * spline_lanes;
		uint32_t bytes = count << q;
		if (!have(w, bytes))
			return overrun(w, bytes, "control points");
		p->spline_lanes = (uint8_t)spline_lanes;
		HKS_TRY(store_points(w, p, here(w), count, q));
		w->pos += bytes;
	}
	p->end = w->pos;
	return align_to(w, 4, "alignment at the end of the part");
}

/* B12 (conformance): ThreeComp40 fields <= 4094, bit 39 clear, except the
 * packed-NaN pattern 00 80 00 00 80 (FORMAT.md §5.2). */
static hks_result check_threecomp40(walker *w, const uint8_t *q, uint32_t count, uint32_t rel)
{
	static const uint8_t packed_nan[5] = {0x00, 0x80, 0x00, 0x00, 0x80};
	/* Fast pass, branch-free: a field of 4095 is a zero field of the complement,
	 * found for the three 12-bit fields at once by the "has a zero field" test
	 * (x − 1·each) & ~x & (high bit·each), exact for whether one exists. */
	uint64_t bad = 0;
	const uint8_t *p = q;
	uint32_t done = 0;
#if defined(__SSE2__)
	/* the same test on two values per register: four 8-byte loads per four
	 * values (x86 is little-endian), each staying inside the count · 5 bytes;
	 * the bits above 39 (the next value's bytes) are masked off */
	{
		const __m128i m36 = _mm_set1_epi64x(0xFFFFFFFFFLL), one = _mm_set1_epi64x(0x001001001LL);
		const __m128i high = _mm_set1_epi64x(0x800800800LL), b39 = _mm_set1_epi64x(1LL << 39);
		__m128i acc = _mm_setzero_si128();
		for (; done + 4 <= count && done * 5 + 23 <= count * 5; done += 4, p += 20) {
			uint64_t v0, v1, v2, v3;
			memcpy(&v0, p, 8);
			memcpy(&v1, p + 5, 8);
			memcpy(&v2, p + 10, 8);
			memcpy(&v3, p + 15, 8);
			__m128i A = _mm_set_epi64x((long long)v1, (long long)v0);
			__m128i B = _mm_set_epi64x((long long)v3, (long long)v2);
			__m128i xa = _mm_andnot_si128(A, m36), xb = _mm_andnot_si128(B, m36);
			acc = _mm_or_si128(acc, _mm_and_si128(_mm_andnot_si128(xa, _mm_sub_epi64(xa, one)), high));
			acc = _mm_or_si128(acc, _mm_and_si128(_mm_andnot_si128(xb, _mm_sub_epi64(xb, one)), high));
			acc = _mm_or_si128(acc, _mm_and_si128(_mm_or_si128(A, B), b39));
		}
		bad = (uint64_t)_mm_movemask_epi8(_mm_cmpeq_epi8(acc, _mm_setzero_si128())) != 0xFFFF;
	}
#endif
	for (; done < count; done++, p += 5) {
		uint64_t v = (uint64_t)hks_le32(p) | ((uint64_t)p[4] << 32);
		uint64_t x = ~v & UINT64_C(0xFFFFFFFFF);
		bad |= ((x - UINT64_C(0x001001001)) & ~x & UINT64_C(0x800800800)) | (v >> 39);
	}
	if (!bad)
		return HKS_OK;
	for (uint32_t i = 0; i < count; i++, q += 5) {
		uint64_t v = (uint64_t)hks_le32(q) | ((uint64_t)q[4] << 32);
		uint32_t a = (uint32_t)(v & 0xFFF), b = (uint32_t)((v >> 12) & 0xFFF), c = (uint32_t)((v >> 24) & 0xFFF);
		if ((a == 0xFFF || b == 0xFFF || c == 0xFFF || (v >> 39)) && memcmp(q, packed_nan, 5) != 0)
			return conformance(w, rel + 5 * i, "ThreeComp40 value %u has a field of 4095 or bit 39 set (FORMAT.md §6 B12)",
			                   i);
	}
	return HKS_OK;
}

/* The rotation part: FORMAT.md §2.5. */
static hks_result read_rotation(walker *w, hks_stored_part *p, uint8_t m, unsigned selector)
{
	uint32_t size = hks_rotation_size(selector);
	p->flags = m;
	p->quantization = (uint8_t)selector;
	p->offset = w->pos;
	uint32_t count = 0;
	if (m & 0xF0) {
		HKS_TRY(read_spline_header(w, p));
		count = p->num_control_points;
	} else if (m & 0x0F) {
		p->num_control_points = 1;
		count = 1;
	}
	if (count) {
		HKS_TRY(align_to(w, hks_rotation_alignment(selector), "quaternion alignment"));
		uint32_t bytes = count * size;
		if (!have(w, bytes))
			return overrun(w, bytes, "packed quaternions");
		p->packed = here(w);
		if (selector == HKS_ROT_THREECOMP40)
			HKS_TRY(check_threecomp40(w, p->packed, count, w->pos));
		w->pos += bytes;
	}
	p->end = w->pos; /* for an absent rotation: where it would start (FORMAT.md §2.8) */
	return align_to(w, 4, "alignment at the end of the part");
}

static hks_result read_transform_track(walker *w, hks_stored_track *tr, const uint8_t *mask)
{
	memcpy(tr->mask, mask, 4);
	unsigned tq = mask[0] & 3, rq = (mask[0] >> 2) & 15, sq = mask[0] >> 6;
	w->part = HKS_PART_NONE;
	uint32_t mask_rel = 4u * (uint32_t)w->track;
	/* B4: quantization codes; B5: no w lane, no lane both static and spline. */
	if (tq > 1 || sq > 1)
		return walk_fail(w, HKS_E_MALFORMED, mask_rel, "mask byte 0x%02X: scalar quantization %u is not 8- or 16-bit (FORMAT.md §6 B4)",
		                 mask[0], tq > 1 ? tq : sq);
	if (rq > 5)
		return walk_fail(w, HKS_E_MALFORMED, mask_rel, "mask byte 0x%02X: rotation selector %u is outside 0..5 (FORMAT.md §6 B4)",
		                 mask[0], rq);
	for (int i = 1; i <= 3; i += 2) {
		uint8_t m = mask[i];
		if ((m & 0x88) || (m & (m >> 4) & 0x07)) {
			w->part = i == 1 ? HKS_PART_TRANSLATION : HKS_PART_SCALE;
			return walk_fail(w, HKS_E_MALFORMED, mask_rel + (uint32_t)i,
			                 "mask 0x%02X flags the w lane or a lane both static and spline (FORMAT.md §6 B5)", m);
		}
	}
	w->part = HKS_PART_TRANSLATION;
	HKS_TRY(read_vector(w, &tr->part[0], mask[1], tq, 3));
	w->part = HKS_PART_ROTATION;
	HKS_TRY(read_rotation(w, &tr->part[1], mask[2], rq));
	w->part = HKS_PART_SCALE;
	return read_vector(w, &tr->part[2], mask[3], sq, 3);
}

static hks_result read_block(walker *w, hks_stored_block *blk, uint32_t b)
{
	const hks_spline_header *h = &w->anim->spline;
	hks_stored_animation *s = w->s;
	uint32_t T = (uint32_t)s->num_transform_tracks, F = (uint32_t)s->num_float_tracks;
	uint32_t mask_size = (uint32_t)s->mask_and_quantization_size;
	w->block = (int32_t)b;
	w->track = -1;
	w->part = HKS_PART_NONE;
	w->last_block = b + 1 == s->num_blocks;
	if (b < w->known_blocks)
		w->start = h->block_offsets[b];
	else {
		/* H4 lenient: the header stores fewer offsets than blocks; this block
		 * is read where the previous one ended (padded to 16) */
		w->start = w->next_start;
		if (w->start >= w->data_size)
			return walk_fail(w, HKS_E_MALFORMED, 0,
			                 "blockOffsets holds %u entries for %u blocks, and block %u would start at data byte %u, the "
			                 "end of data (FORMAT.md §6 H4)",
			                 w->known_blocks, s->num_blocks, b, w->start);
		HKS_TRY(conformance(w, 0,
		                    "blockOffsets holds %u entries for %u blocks: block %u is read where block %u ends, at data "
		                    "byte %u (FORMAT.md §6 H4)",
		                    w->known_blocks, s->num_blocks, b, b - 1, w->start));
	}
	bool next_known = b + 1 < w->known_blocks;
	uint32_t next = w->last_block || !next_known ? w->data_size : h->block_offsets[b + 1];
	w->limit = next - w->start;
	w->frames = hks_block_frames(s->num_frames, s->max_frames_per_block, b);
	bool float_known = b < w->known_float_blocks;
	uint32_t fbo = float_known ? h->float_block_offsets[b] : 0;
	blk->offset = w->start;
	blk->float_offset = fbo;
	blk->first_frame = b * (uint32_t)(s->max_frames_per_block - 1);
	blk->num_frames = w->frames;

	/* The mask area, then its zero tail (B10). H5 (checked before) keeps it inside a block whose
	 * offsets are stored; a block read where the previous one ended (H4 lenient) is checked here. */
	if (mask_size > w->limit)
		return walk_fail(w, HKS_E_TRUNCATED, 0,
		                 "the mask area of block %u needs %u bytes, %u remain in the data (FORMAT.md §6 H5)", b,
		                 mask_size, w->limit);
	const uint8_t *masks = w->data + w->start;
	for (uint32_t i = 4 * T + F; i < mask_size; i++)
		if (masks[i] != 0) {
			HKS_TRY(conformance(w, i, "mask area padding byte 0x%02X is not zero (FORMAT.md §6 B10)", masks[i]));
			break;
		}
	w->pos = mask_size;
	for (uint32_t t = 0; t < T; t++) {
		w->track = (int32_t)t;
		HKS_TRY(read_transform_track(w, &blk->tracks[t], masks + 4 * t));
	}
	/*
	 * B2: the transform walk ends exactly at floatBlockOffsets[b]. Without
	 * float tracks the offset locates nothing, and the corpus holds modder
	 * clips (SDK 20180100, one block, F = 0) that store len(data) − 1 there
	 * while every other byte follows the format: with F = 0 the mismatch is a
	 * conformance violation (B3 still checks the block end), else an error.
	 */
	if (!float_known) {
		/* no floatBlockOffsets entry for this block (H4 lenient): the floats follow the transforms */
		fbo = w->pos;
		blk->float_offset = fbo;
	}
	if (w->pos != fbo) {
		w->track = T ? (int32_t)T - 1 : -1;
		w->part = T ? HKS_PART_SCALE : HKS_PART_NONE;
		if (F)
			return walk_fail(w, HKS_E_MALFORMED, w->pos,
			                 "transform data ends at block byte %u but floatBlockOffsets[%u] = %u (FORMAT.md §6 B2)", w->pos, b,
			                 fbo);
		HKS_TRY(conformance(w, w->pos,
		                    "transform data ends at block byte %u but floatBlockOffsets[%u] = %u; no float tracks read it (FORMAT.md §6 B2)",
		                    w->pos, b, fbo));
	}
	for (uint32_t f = 0; f < F; f++) {
		w->track = (int32_t)f;
		w->part = HKS_PART_FLOAT;
		uint8_t byte = masks[4 * T + f];
		unsigned q = (byte >> 1) & 3;
		blk->float_masks[f] = byte;
		/* B6: quantization 8/16-bit, only bits 0, 1, 2, 4 used, not static and spline at once. */
		if (q > 1 || (byte & 0xE8) || (byte & 0x11) == 0x11)
			return walk_fail(w, HKS_E_MALFORMED, 4 * T + f, "float mask byte 0x%02X is invalid (FORMAT.md §6 B6)", byte);
		HKS_TRY(read_vector(w, &blk->floats[f], (uint8_t)(byte & 0xF9), q, 1));
	}
	w->track = -1;
	w->part = HKS_PART_NONE;

	/* B3: padded to 16, the block ends at the next block or the end of data. */
	uint32_t end = w->pos;
	uint32_t padded = (end + 15u) & ~15u;
	if (padded > w->limit) {
		if (!w->last_block)
			return walk_fail(w, HKS_E_MALFORMED, end, "block data ends at block byte %u, padded %u, past block %u's start at %u (FORMAT.md §6 B3)",
			                 end, padded, b + 1, w->limit);
		return walk_fail(w, HKS_E_TRUNCATED, end, "block data ends at block byte %u; its padding to %u passes the end of data at %u (FORMAT.md §6 B3)",
		                 end, padded, w->limit);
	}
	HKS_TRY(align_to(w, 16, "block padding"));
	blk->size = padded;
	if (!w->last_block && !next_known) {
		w->next_start = w->start + padded; /* the next block's offset is not stored: it starts here */
		return HKS_OK;
	}
	if (padded == w->limit)
		return HKS_OK;
	uint32_t extra = w->limit - padded;
	if (!w->last_block)
		return walk_fail(w, HKS_E_MALFORMED, padded,
		                 "block ends at block byte %u but block %u starts at %u: %u unexplained bytes (FORMAT.md §6 B3)", padded,
		                 b + 1, w->limit, extra);
	/* The Elden Ring trailing guard: exactly 16 zero bytes, exactly where the rule puts them (§2.8). */
	const uint8_t *tail = here(w);
	bool zeros = true;
	for (uint32_t i = 0; i < extra && zeros; i++)
		zeros = tail[i] == 0;
	int rule = T > 0 && hks_guard_rule((blk->tracks[T - 1].mask[0] >> 2) & 15, blk->tracks[T - 1].part[1].end, padded);
	if (extra == 16 && zeros && rule) {
		s->guard_bytes = 16;
		return HKS_OK;
	}
	if (extra == 16 && zeros)
		return walk_fail(w, HKS_E_MALFORMED, padded,
		                 "16 zero bytes follow the last block where the Elden Ring guard rule puts none (FORMAT.md §2.8)");
	return walk_fail(w, HKS_E_MALFORMED, padded, "%u unexplained bytes follow the last block's padded end at %u (FORMAT.md §6 B3)",
	                 extra, padded);
}

/* Header rules H1-H8 (FORMAT.md §6.1) and the limits, before allocating anything. */
static hks_result check_header(walker *w)
{
	const hks_animation *a = w->anim;
	const hks_spline_header *h = &a->spline;
	hks_ctx *ctx = w->ctx;
	set_location(ctx, w);
	if (h->endian != 0) {
		hks_err_member(ctx, "endian");
		return hks_fail(ctx, HKS_E_UNSUPPORTED, a->object_offset, "endian %d: only little-endian data (0) is supported (FORMAT.md §6 H8)",
		                (int)h->endian);
	}
	if (a->number_of_transform_tracks < 0 || a->number_of_float_tracks < 0) {
		hks_err_member(ctx, "numberOfTransformTracks");
		return hks_fail(ctx, HKS_E_MALFORMED, a->object_offset, "negative track count (%d transform, %d float) (FORMAT.md §6 H7)",
		                (int)a->number_of_transform_tracks, (int)a->number_of_float_tracks);
	}
	uint64_t tracks = (uint64_t)a->number_of_transform_tracks + (uint64_t)a->number_of_float_tracks;
	if (tracks > ctx->limits.max_tracks) {
		hks_err_member(ctx, "numberOfTransformTracks");
		return hks_fail(ctx, HKS_E_LIMIT, a->object_offset, "%llu tracks exceed the limit of %u", (unsigned long long)tracks,
		                ctx->limits.max_tracks);
	}
	if (h->num_frames < 2) {
		hks_err_member(ctx, "numFrames");
		return hks_fail(ctx, HKS_E_MALFORMED, a->object_offset, "numFrames %d: at least 2 are needed (FORMAT.md §6 H1)",
		                (int)h->num_frames);
	}
	if ((uint32_t)h->num_frames > ctx->limits.max_frames) {
		hks_err_member(ctx, "numFrames");
		return hks_fail(ctx, HKS_E_LIMIT, a->object_offset, "numFrames %d exceeds the limit of %u", (int)h->num_frames,
		                ctx->limits.max_frames);
	}
	if (h->max_frames_per_block < 2 || h->max_frames_per_block > 256) {
		hks_err_member(ctx, "maxFramesPerBlock");
		return hks_fail(ctx, HKS_E_MALFORMED, a->object_offset, "maxFramesPerBlock %d is outside 2..256 (FORMAT.md §6 H2)",
		                (int)h->max_frames_per_block);
	}
	uint32_t nb = hks_expected_num_blocks(h->num_frames, h->max_frames_per_block);
	if (h->num_blocks < 0 || (uint32_t)h->num_blocks != nb) {
		hks_err_member(ctx, "numBlocks");
		return hks_fail(ctx, HKS_E_MALFORMED, a->object_offset,
		                "numBlocks %d, but numFrames %d and maxFramesPerBlock %d give %u (FORMAT.md §6 H3)", (int)h->num_blocks,
		                (int)h->num_frames, (int)h->max_frames_per_block, nb);
	}
	if (nb > ctx->limits.max_blocks) {
		hks_err_member(ctx, "numBlocks");
		return hks_fail(ctx, HKS_E_LIMIT, a->object_offset, "%u blocks exceed the limit of %u", nb, ctx->limits.max_blocks);
	}
	int32_t mq = hks_expected_mask_size(a->number_of_transform_tracks, a->number_of_float_tracks);
	if (h->mask_and_quantization_size != mq) {
		hks_err_member(ctx, "maskAndQuantizationSize");
		return hks_fail(ctx, HKS_E_MALFORMED, a->object_offset,
		                "maskAndQuantizationSize %d, but %d transform and %d float tracks give %d (FORMAT.md §6 H6)",
		                (int)h->mask_and_quantization_size, (int)a->number_of_transform_tracks,
		                (int)a->number_of_float_tracks, (int)mq);
	}
	/* Lenient H4: a header with fewer (block / float block) offsets than blocks
	 * (modder clips store one entry for two blocks) is walked block after block,
	 * the missing ones where the previous block ends; strict walks refuse it. */
	w->known_blocks = h->num_block_offsets;
	w->known_float_blocks = h->num_float_block_offsets;
	bool lenient_offsets = !w->strict && nb > 1 && h->num_block_offsets >= 1 && h->num_block_offsets < nb &&
	                       h->block_offsets && h->num_float_block_offsets >= 1 && h->num_float_block_offsets <= nb &&
	                       h->float_block_offsets;
	if (lenient_offsets) {
		if (w->known_float_blocks > w->known_blocks)
			w->known_float_blocks = w->known_blocks;
	} else if (h->num_block_offsets != nb || (nb && !h->block_offsets)) {
		hks_err_member(ctx, "blockOffsets");
		return hks_fail(ctx, HKS_E_MALFORMED, a->object_offset, "%u blockOffsets for %u blocks (FORMAT.md §6 H4)",
		                h->num_block_offsets, nb);
	}
	if (!lenient_offsets && (h->num_float_block_offsets != nb || (nb && !h->float_block_offsets))) {
		hks_err_member(ctx, "floatBlockOffsets");
		return hks_fail(ctx, HKS_E_MALFORMED, a->object_offset, "%u floatBlockOffsets for %u blocks (FORMAT.md §6 H5)",
		                h->num_float_block_offsets, nb);
	}
	if (h->data_size && !h->data) {
		hks_err_member(ctx, "data");
		return hks_fail(ctx, HKS_E_ARGUMENT, -1, "spline data pointer is NULL");
	}
	for (uint32_t b = 0; b < w->known_blocks; b++) {
		uint32_t o = h->block_offsets[b];
		uint32_t next = b + 1 < w->known_blocks ? h->block_offsets[b + 1] : h->data_size;
		hks_err_member(ctx, "blockOffsets");
		if (b == 0 && o != 0)
			return hks_fail(ctx, HKS_E_MALFORMED, a->object_offset, "blockOffsets[0] is %u, not 0 (FORMAT.md §6 H4)", o);
		if (o % 16)
			return hks_fail(ctx, HKS_E_MALFORMED, a->object_offset, "blockOffsets[%u] = %u is not a multiple of 16 (FORMAT.md §6 H4)",
			                b, o);
		if (o >= h->data_size)
			return hks_fail(ctx, HKS_E_MALFORMED, a->object_offset, "blockOffsets[%u] = %u is not inside the %u bytes of data (FORMAT.md §6 H4)",
			                b, o, h->data_size);
		if (next <= o)
			return hks_fail(ctx, HKS_E_MALFORMED, a->object_offset,
			                "blockOffsets not strictly ascending: [%u] = %u, [%u] = %u (FORMAT.md §6 H4)", b, o, b + 1, next);
		if (b >= w->known_float_blocks)
			continue;
		uint32_t fbo = h->float_block_offsets[b];
		hks_err_member(ctx, "floatBlockOffsets");
		if (fbo < (uint32_t)mq || fbo > next - o)
			return hks_fail(ctx, HKS_E_MALFORMED, a->object_offset,
			                "floatBlockOffsets[%u] = %u is outside the block: mask area %d, block length %u (FORMAT.md §6 H5)", b,
			                fbo, (int)mq, next - o);
	}
	if (h->num_transform_offsets && h->num_transform_offsets != (uint64_t)nb * (uint32_t)a->number_of_transform_tracks) {
		hks_err_member(ctx, "transformOffsets");
		return hks_fail(ctx, HKS_E_MALFORMED, a->object_offset, "%u transformOffsets, expected 0 or %llu (FORMAT.md §6 H9)",
		                h->num_transform_offsets, (unsigned long long)nb * (uint32_t)a->number_of_transform_tracks);
	}
	if (h->num_float_offsets && h->num_float_offsets != (uint64_t)nb * (uint32_t)a->number_of_float_tracks) {
		hks_err_member(ctx, "floatOffsets");
		return hks_fail(ctx, HKS_E_MALFORMED, a->object_offset, "%u floatOffsets, expected 0 or %llu (FORMAT.md §6 H9)",
		                h->num_float_offsets, (unsigned long long)nb * (uint32_t)a->number_of_float_tracks);
	}
	if ((h->num_transform_offsets && !h->transform_offsets) || (h->num_float_offsets && !h->float_offsets))
		return hks_fail(ctx, HKS_E_ARGUMENT, -1, "per-track offsets pointer is NULL");
	hks_err_member(ctx, "data");
	return HKS_OK;
}

/* H9: non-empty per-track offsets must agree with the walk (FORMAT.md §1.2). */
static hks_result check_track_offsets(walker *w)
{
	const hks_spline_header *h = &w->anim->spline;
	hks_stored_animation *s = w->s;
	uint32_t T = (uint32_t)s->num_transform_tracks, F = (uint32_t)s->num_float_tracks;
	for (uint32_t b = 0; b < s->num_blocks; b++) {
		w->block = (int32_t)b;
		w->start = s->blocks[b].offset;
		for (uint32_t t = 0; h->num_transform_offsets && t < T; t++) {
			uint32_t got = h->transform_offsets[(size_t)b * T + t], want = s->blocks[b].tracks[t].part[0].offset;
			if (got != want) {
				w->track = (int32_t)t;
				w->part = HKS_PART_TRANSLATION;
				return walk_fail(w, HKS_E_MALFORMED, want, "transformOffsets[%u] = %u, the walk finds the track at %u (FORMAT.md §6 H9)",
				                 b * T + t, got, want);
			}
		}
		for (uint32_t f = 0; h->num_float_offsets && f < F; f++) {
			uint32_t got = h->float_offsets[(size_t)b * F + f], want = s->blocks[b].floats[f].offset;
			if (got != want) {
				w->track = (int32_t)f;
				w->part = HKS_PART_FLOAT;
				return walk_fail(w, HKS_E_MALFORMED, want, "floatOffsets[%u] = %u, the walk finds the track at %u (FORMAT.md §6 H9)",
				                 b * F + f, got, want);
			}
		}
	}
	return HKS_OK;
}

hks_result hks_stored_read(const hks_animation *anim, const hks_walk_options *opts, hks_stored_animation **out,
                           hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, opts ? &opts->base : NULL, anim ? anim->spline.data_size : 0, err);
	if (!anim || !out)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_stored_read: NULL argument");
	*out = NULL;
	if (anim->kind != HKS_ANIMATION_SPLINE)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "animation is not spline-compressed");
	walker w;
	memset(&w, 0, sizeof(w));
	w.ctx = &ctx;
	w.anim = anim;
	w.data = anim->spline.data;
	w.data_size = anim->spline.data_size;
	w.anim_index = opts ? opts->animation_index : -1;
	w.strict = opts ? opts->strict : 0;
	w.block = -1;
	w.track = -1;
	HKS_TRY(check_header(&w));

	const hks_spline_header *h = &anim->spline;
	uint32_t nb = (uint32_t)h->num_blocks;
	size_t T = (size_t)anim->number_of_transform_tracks, F = (size_t)anim->number_of_float_tracks;
	/* Sizes are bounded now: every block holds its mask area (H5), so
	 * nb·(4T + F) <= data_size, and control-point integers never outnumber data bytes. */
	hks_arena *arena = hks_arena_create(&ctx);
	if (!arena)
		return err && err->code ? err->code : HKS_E_NOMEM;
	hks_stored_animation *s = (hks_stored_animation *)hks_arena_alloc(arena, sizeof(*s));
	hks_stored_block *blocks = s ? (hks_stored_block *)hks_arena_array(arena, nb, sizeof(hks_stored_block)) : NULL;
	hks_stored_track *tracks = blocks ? (hks_stored_track *)hks_arena_array(arena, nb * T, sizeof(hks_stored_track)) : NULL;
	hks_stored_part *floats = tracks ? (hks_stored_part *)hks_arena_array(arena, nb * F, sizeof(hks_stored_part)) : NULL;
	uint8_t *float_masks = floats ? (uint8_t *)hks_arena_alloc(arena, nb * F) : NULL;
	if (!float_masks) {
		hks_result r = err && err->code ? err->code : HKS_E_NOMEM;
		hks_arena_free(arena);
		return r;
	}
	s->num_transform_tracks = (int32_t)T;
	s->num_float_tracks = (int32_t)F;
	s->num_frames = h->num_frames;
	s->max_frames_per_block = h->max_frames_per_block;
	s->mask_and_quantization_size = h->mask_and_quantization_size;
	s->duration = anim->duration;
	s->frame_duration = h->frame_duration;
	s->block_duration = h->block_duration;
	s->block_inverse_duration = h->block_inverse_duration;
	s->num_blocks = nb;
	s->blocks = blocks;
	s->data_size = w.data_size;
	s->data_offset = anim->data_offset;
	s->arena = arena;
	hks_error_clear(&s->conformance);
	for (uint32_t b = 0; b < nb; b++) {
		blocks[b].tracks = tracks + (size_t)b * T;
		blocks[b].floats = floats + (size_t)b * F;
		blocks[b].float_masks = float_masks + (size_t)b * F;
	}
	w.s = s;
	w.arena = arena;

	hks_result r = HKS_OK;
	for (uint32_t b = 0; b < nb && r == HKS_OK; b++)
		r = read_block(&w, &blocks[b], b);
	if (r == HKS_OK && (h->num_transform_offsets || h->num_float_offsets))
		r = check_track_offsets(&w);
	if (r != HKS_OK) {
		hks_arena_free(arena);
		return r;
	}
	hks_arena_set_ctx(arena, NULL);
	*out = s;
	return HKS_OK;
}
