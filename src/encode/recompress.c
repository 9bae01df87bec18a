/*
 * The re-compressor (ENCODER.md §13, docs/RECORD.md): predictor + record.
 *
 * hks_recompress: walk the original, sample every frame (raw rotations, as
 * hks_sample_frames gives them: the frames a modder gets from `decode`),
 * detect the CPU model from the stored 16-bit lanes (§11.4), run the encoder
 * on the frames once per predictor tolerance step ("ladder"; a later step only
 * on the parts no earlier step reproduced), select per (block, track, part) the
 * first step whose decoded samples equal the frames bit for bit, and compare
 * the selection with the original in a canonical form (below). A part the
 * selected step reproduces needs nothing; otherwise the record keeps the
 * cheapest of: another step that reproduces it, an XOR patch of the canonical
 * form of the closest step, the original's knots and bounds with control
 * points solved from the frames (REFIT), the canonical form whole. The record is then
 * verified by applying it (same code as hks_recompress_apply) and packing;
 * when that does not give the original bytes, the record keeps the data whole.
 *
 * Canonical form of a part (the unit the record patches; not a file layout):
 *   [mask byte 0]            translation only (quantizations of the track)
 *   mask byte, quantization  (floats: the float mask byte as stored, quantization bits 1-2)
 *   spline: degree u8, control points u16 LE, knot bytes
 *   per lane (T, S: 3; F: 1): static lane f32, spline lane min f32, max f32
 *   T/S/F spline: control points, u16 LE (16-bit) or u8 (8-bit), point-major
 *   R: packed quaternions (spline: one per control point; static: one)
 * The fields come in the order the first-difference histogram uses.
 */
#include "encode_internal.h"
#include "invert.h"
#include "record.h"
#include "stored_format.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

/* Predictor candidates ("ladder" steps): tolerance (rotation,
 * translation/scale/float). Step 0 is ENCODER.md §16's reduced predictor
 * tolerance; step 1 Havok's default. Per part, the predictor selects the
 * first step whose decoded samples equal the part's frames bit for bit
 * (docs/RECORD.md "Candidate selection"). */
typedef struct ladder_step {
	float rotation_tolerance, tolerance;
} ladder_step;

static const ladder_step ladder_tab[HKS_RECORD_LADDER_MAX] = {
	{0.0005f, 0.0006f},
	{0.001f, 0.001f},
	{0.00025f, 0.0003f},
	{0.00015f, 0.0002f},
	{0.0001f, 0.0001f},
	{0.00005f, 0.00005f},
	{0.00075f, 0.0008f},
	{0.0004f, 0.00045f},
	{0.00002f, 0.00002f},
	{0.000001f, 0.000001f},
	{0.00001f, 0.00001f},
	{0.0000001f, 0.0000001f},
};

/* Step `step`'s tolerances in a record of `version`: from version 18 steps 1 and 6 trade places, so that the
 * second step, which version 18 records take by default, fits at 0.00075 / 0.0008. Measured on Elden Ring
 * (docs/RECORD.md "Two ladder steps since version 18"): a second step at Havok's 0.001 made the records 3.4 %
 * smaller, at 0.00075 / 0.0008 5.0 %, at 0.0009 5.3 %, at 0.0015 1.3 % larger; Sekiro, not used for the choice,
 * 2.7, 4.7 and 4.6 % smaller at the first three. */
static ladder_step ladder_tolerances(unsigned version, unsigned step)
{
	if (version >= HKS_REC_VERSION_TWO_STEPS && (step == 1 || step == 6))
		step = 7 - step;
	return ladder_tab[step];
}

/* Havok's default tolerance (ENCODER.md §3.1): the predictor classifies lanes
 * with it (§5.4) whatever tolerance a step fits with. */
#define HAVOK_TOLERANCE 0.001f

const char *hks_diff_category_name(hks_diff_category c)
{
	static const char *const names[HKS_DIFF_COUNT] = {
		"none", "header", "mask", "degree", "knot count", "knot", "bound", "static value",
		"control point", "packed quaternion", "padding", "guard"};
	return (unsigned)c < HKS_DIFF_COUNT ? names[c] : "?";
}

/* ---- canonical form ------------------------------------------------------ */

/* A refit's slot keys (v15, docs/RECORD.md "In order of doubt since version 15"): one per slot of the control
 * section. Bits 0-3, the point's doubt: 0 when the solved value of one of its slots lay on a rounding edge ..
 * KEY_SURE when all lay far from every edge; bit 4 (KEY_UP): the slot's value was rounded down, so a
 * correction is likelier +1 than -1, and its code is negated to give the likelier one the smaller code (a
 * slot within 1/32 of an integer has no direction; a rotation component's bit is flipped when it is
 * negative, see refit_section). */
#define KEY_SURE 15u
#define KEY_DOUBT 15u
#define KEY_UP 16u
#define KEYS_MAX (256u * 3u) /* REFIT_MAX points of at most three slots */

typedef struct canon {
	hks_bytebuf bytes;
	hks_bytebuf cats; /* one hks_diff_category per byte (optional: ctx NULL-free when unused) */
	int with_cats;
	size_t nkeys; /* refit_canon: the slot keys of the control section (0: none) */
	uint8_t keys[KEYS_MAX];
	struct lane_solve *ls; /* refit_canon, v17 T/S/F parts: the solve a correction re-solves its lane's rest with */
} canon;

static hks_result cput(canon *c, const void *p, size_t n, hks_diff_category cat)
{
	HKS_TRY(hks_bytebuf_append(&c->bytes, p, n));
	if (!c->with_cats)
		return HKS_OK;
	HKS_TRY(hks_bytebuf_reserve(&c->cats, n));
	memset(c->cats.data + c->cats.size, (int)cat, n);
	c->cats.size += n;
	return HKS_OK;
}

static hks_result cput_f32(canon *c, float f, hks_diff_category cat)
{
	uint8_t b[4];
	hks_put_le32(b, hks_f32_bits(f));
	return cput(c, b, 4, cat);
}

/* kind: 0 T, 1 R, 2 S, 3 F. mask0: the track's mask byte 0 (T only); mbyte: the
 * part's mask byte (floats: as stored). */
static hks_result canon_part(canon *c, unsigned kind, uint8_t mask0, uint8_t mbyte, const hks_stored_part *p)
{
	c->bytes.size = 0;
	c->cats.size = 0;
	if (kind == 0)
		HKS_TRY(cput(c, &mask0, 1, HKS_DIFF_MASK));
	HKS_TRY(cput(c, &mbyte, 1, HKS_DIFF_MASK));
	HKS_TRY(cput(c, &p->quantization, 1, HKS_DIFF_MASK));
	uint8_t flags = kind == 3 ? (uint8_t)(mbyte & 0xF9) : mbyte;
	int spline = (flags & 0xF0) != 0;
	if (spline) {
		uint8_t n[2];
		hks_put_le16(n, p->num_control_points);
		HKS_TRY(cput(c, &p->degree, 1, HKS_DIFF_DEGREE));
		HKS_TRY(cput(c, n, 2, HKS_DIFF_KNOT_COUNT));
		if (p->num_knots)
			HKS_TRY(cput(c, p->knots, p->num_knots, HKS_DIFF_KNOT));
	}
	if (kind == 1) {
		size_t count = spline ? p->num_control_points : (flags & 0x0F) ? 1 : 0;
		size_t size = hks_rotation_size(p->quantization);
		if (count && size && p->packed)
			HKS_TRY(cput(c, p->packed, count * size, HKS_DIFF_PACKED_QUATERNION));
		return HKS_OK;
	}
	unsigned lanes = kind == 3 ? 1 : 3;
	for (unsigned lane = 0; lane < lanes; lane++) {
		if (flags & (0x01u << lane)) {
			HKS_TRY(cput_f32(c, p->static_value[lane], HKS_DIFF_STATIC));
		} else if (flags & (0x10u << lane)) {
			HKS_TRY(cput_f32(c, p->min[lane], HKS_DIFF_BOUND));
			HKS_TRY(cput_f32(c, p->max[lane], HKS_DIFF_BOUND));
		}
	}
	if (spline && p->control_points) {
		size_t count = (size_t)p->num_control_points * p->spline_lanes;
		for (size_t i = 0; i < count; i++) {
			uint8_t b[2];
			hks_put_le16(b, p->control_points[i]);
			HKS_TRY(cput(c, b, p->quantization ? 2 : 1, HKS_DIFF_CONTROL_POINT));
		}
	}
	return HKS_OK;
}

/* Canonical bytes -> part (the inverse of canon_part); every length checked. */
static hks_result parse_canon_mode(hks_ctx *ctx, hks_arena *arena, unsigned kind, const uint8_t *data, size_t size,
                                   int prefix_only, hks_stored_part *p, uint8_t *mask0, uint8_t *mbyte)
{
	hks_cursor c = hks_cursor_make(ctx, data, size, 0);
	memset(p, 0, sizeof(*p));
	if (kind == 0)
		HKS_TRY(hks_read_u8(&c, mask0, "mask byte 0"));
	HKS_TRY(hks_read_u8(&c, mbyte, "mask byte"));
	HKS_TRY(hks_read_u8(&c, &p->quantization, "quantization"));
	uint8_t flags = kind == 3 ? (uint8_t)(*mbyte & 0xF9) : *mbyte;
	p->flags = flags;
	int spline = (flags & 0xF0) != 0;
	if (spline) {
		uint16_t n;
		HKS_TRY(hks_read_u8(&c, &p->degree, "degree"));
		HKS_TRY(hks_read_le16(&c, &n, "control point count"));
		if (p->degree < 1 || p->degree > 3 || n < (uint32_t)p->degree + 1 || (uint32_t)n + p->degree + 1 > 65535)
			return hks_fail(ctx, HKS_E_MALFORMED, -1, "part: degree %u with %u control points", p->degree, n);
		p->is_spline = 1;
		p->num_control_points = n;
		p->num_knots = (uint16_t)(n + p->degree + 1);
		HKS_TRY(hks_read_bytes(&c, p->num_knots, &p->knots, "knots"));
	}
	if (kind == 1) {
		uint32_t size1 = hks_rotation_size(p->quantization);
		if (!size1)
			return hks_fail(ctx, HKS_E_MALFORMED, -1, "part: rotation selector %u", p->quantization);
		size_t count = spline ? p->num_control_points : (flags & 0x0F) ? 1 : 0;
		if (!spline && count)
			p->num_control_points = 1;
		if (count && !prefix_only)
			HKS_TRY(hks_read_bytes(&c, count * size1, &p->packed, "packed quaternions"));
	} else {
		if (p->quantization > 1)
			return hks_fail(ctx, HKS_E_MALFORMED, -1, "part: scalar quantization %u", p->quantization);
		unsigned lanes = kind == 3 ? 1 : 3;
		for (unsigned lane = 0; lane < lanes; lane++) {
			uint32_t bits;
			if (flags & (0x01u << lane)) {
				HKS_TRY(hks_read_le32(&c, &bits, "static value"));
				memcpy(&p->static_value[lane], &bits, 4);
			} else if (flags & (0x10u << lane)) {
				HKS_TRY(hks_read_le32(&c, &bits, "min"));
				memcpy(&p->min[lane], &bits, 4);
				HKS_TRY(hks_read_le32(&c, &bits, "max"));
				memcpy(&p->max[lane], &bits, 4);
				p->spline_lanes++;
			}
		}
		if (spline && p->spline_lanes && !prefix_only) {
			size_t count = (size_t)p->num_control_points * p->spline_lanes;
			const uint8_t *src;
			HKS_TRY(hks_read_bytes(&c, count << p->quantization, &src, "control points"));
			uint16_t *cp = (uint16_t *)hks_arena_array(arena, count, 2);
			if (!cp)
				return hks_fail_nomem(ctx, count * 2);
			for (size_t i = 0; i < count; i++)
				cp[i] = p->quantization ? hks_le16(src + 2 * i) : src[i];
			p->control_points = cp;
		}
	}
	if (c.pos != size)
		return hks_fail(ctx, HKS_E_MALFORMED, -1, "part: %zu bytes after its canonical form", size - c.pos);
	return HKS_OK;
}

static hks_result parse_canon(hks_ctx *ctx, hks_arena *arena, unsigned kind, const uint8_t *data, size_t size,
                              hks_stored_part *p, uint8_t *mask0, uint8_t *mbyte)
{
	return parse_canon_mode(ctx, arena, kind, data, size, 0, p, mask0, mbyte);
}

/* Bytes of the canonical form before the control points / packed quaternions. */
static size_t canon_prefix_size(unsigned kind, uint8_t mbyte, const hks_stored_part *p)
{
	uint8_t flags = kind == 3 ? (uint8_t)(mbyte & 0xF9) : mbyte;
	size_t n = (kind == 0) + 2u;
	if (flags & 0xF0)
		n += 3u + p->num_knots;
	if (kind != 1) {
		unsigned lanes = kind == 3 ? 1 : 3;
		for (unsigned lane = 0; lane < lanes; lane++)
			n += (flags & (0x01u << lane)) ? 4u : (flags & (0x10u << lane)) ? 8u : 0u;
	}
	return n;
}

/*
 * The REFIT prefix as stored (record v2, docs/RECORD.md "REFIT prefix
 * coding"): the same length as the canonical prefix, transformed so that
 * zlib finds more repetition. Knot bytes become their differences (mod 256)
 * from the previous knot byte (the first stays): knots are non-decreasing
 * frame numbers, so the differences are small and the clamped ends zero.
 * The f32 static values and bounds after the knots are XORed with the
 * prediction's (`pred`, the canonical form of the entry's ladder step) when
 * that has the same number of such bytes: sign, exponent and leading
 * mantissa bits then cancel. The mask, quantization, degree and count bytes
 * stay as they are; they say where the knots end. `decode` undoes it in
 * place; layouts that do not fit the size are left untouched (the parse
 * that follows rejects them).
 */
static void prefix_transform(unsigned kind, uint8_t *b, size_t size, const uint8_t *pred, size_t pred_size,
                             int decode)
{
	size_t off = (kind == 0) + 2u;
	if (off > size)
		return;
	uint8_t mbyte = b[off - 2];
	uint8_t flags = kind == 3 ? (uint8_t)(mbyte & 0xF9) : mbyte;
	size_t rest = off;
	if (flags & 0xF0) {
		if (off + 3 > size)
			return;
		size_t nk = (size_t)hks_le16(b + off + 1) + b[off] + 1u;
		size_t k0 = off + 3;
		if (k0 + nk > size)
			return;
		if (decode) {
			for (size_t i = k0 + 1; i < k0 + nk; i++)
				b[i] = (uint8_t)(b[i] + b[i - 1]);
		} else {
			for (size_t i = k0 + nk - 1; i > k0; i--)
				b[i] = (uint8_t)(b[i] - b[i - 1]);
		}
		rest = k0 + nk;
	}
	if (!pred || rest >= size)
		return;
	/* the prediction's own float section: from the end of its knots to the end of its prefix */
	size_t poff = (kind == 0) + 2u, prest = poff;
	if (poff > pred_size)
		return;
	uint8_t pm = pred[poff - 2];
	uint8_t pflags = kind == 3 ? (uint8_t)(pm & 0xF9) : pm;
	if (pflags & 0xF0) {
		if (poff + 3 > pred_size)
			return;
		prest = poff + 3 + (size_t)hks_le16(pred + poff + 1) + pred[poff] + 1u;
	}
	size_t pfloats = 0;
	if (kind != 1) {
		unsigned lanes = kind == 3 ? 1 : 3;
		for (unsigned lane = 0; lane < lanes; lane++)
			pfloats += (pflags & (0x01u << lane)) ? 4u : (pflags & (0x10u << lane)) ? 8u : 0u;
	}
	if (prest + pfloats > pred_size || pfloats != size - rest)
		return;
	/* v8: only the static values; a spline lane's bounds are offsets from the solve (bound_offsets) */
	if (kind == 1)
		return;
	size_t at = 0;
	for (unsigned lane = 0; lane < (kind == 3 ? 1u : 3u); lane++) {
		if (flags & (0x01u << lane)) {
			for (size_t i = 0; i < 4 && at + i < pfloats; i++)
				b[rest + at + i] ^= pred[prest + at + i];
			at += 4;
		} else if (flags & (0x10u << lane)) {
			at += 8;
		}
	}
}

static uint32_t zigzag32(uint32_t d) { return (d << 1) ^ (uint32_t)-(int32_t)(d >> 31); }
static uint32_t unzigzag32(uint32_t z) { return (z >> 1) ^ (uint32_t)-(int32_t)(z & 1u); }

/*
 * The bounds of a REFIT prefix's spline lanes as offsets (v8, docs/RECORD.md "REFIT prefix coding"): each
 * stored f32 min / max becomes the zigzag of the difference (mod 2^32) of its bits from those of a base, the
 * smallest / largest control point the REFIT solve gives on the prefix's knots (P, n1 points), which is
 * within a few ulps of it where a point sits on the bound. Same length, bijective; `decode` undoes it in
 * place. Prefixes whose layout does not fit are left as they are.
 *
 * v20 (docs/RECORD.md "Bound bases since version 20"): the top point of a lane is its maximum itself, which
 * Havok's truncating quantizer (model m) puts at the grid's top or one below it. Below it, the solve finds the
 * point one grid step under the stored maximum, hundreds of ulps away: the maximum's base is then the value
 * that step implies, m + (hi - m) * top / (top - 1) from the (already decoded) minimum m, when the quantizer
 * gives the grid's top at the solved maximum itself and one below it at that value. And a minimum of 0 (a
 * lane that starts at rest) is solved as a tiny value of either sign, a whole exponent range away in bits:
 * a solved extreme within 2^-27 of the solved range from 0 has base +0.
 */
static uint32_t bound_base(const hks_rcp_model *model, unsigned version, unsigned quant, int is_max, double lo,
                           double hi, float decoded_min)
{
	double extreme = is_max ? hi : lo;
	if (version < HKS_REC_VERSION_BOUND_BASES || !model)
		return hks_f32_bits((float)extreme);
	if (fabs(extreme) <= ldexp(hi - lo, -27))
		return 0u; /* +0 */
	if (!is_max)
		return hks_f32_bits((float)lo);
	float m0 = (float)hi, top = quant ? 65535.0f : 255.0f;
	float m1 = (float)((double)decoded_min + ((double)m0 - (double)decoded_min) * (double)top / (double)(top - 1.0f));
	unsigned t0 = quant ? hks_pack16(model, m0, decoded_min, m0) : hks_pack8(model, m0, decoded_min, m0);
	unsigned t1 = quant ? hks_pack16(model, m1, decoded_min, m1) : hks_pack8(model, m1, decoded_min, m1);
	if (t0 != (unsigned)top && t1 == (unsigned)top - 1u && m1 == m1)
		return hks_f32_bits(m1);
	return hks_f32_bits(m0);
}

uint32_t hks_rec_bound_base(unsigned cpu, unsigned version, unsigned quant, int is_max, double lo, double hi,
                            float decoded_min)
{
	return bound_base(hks_rcp_model_get((hks_cpu_model)cpu), version, quant, is_max, lo, hi, decoded_min);
}

static void bound_offsets(unsigned kind, uint8_t *b, size_t size, const double (*P)[4], unsigned n1, int decode,
                          const hks_rcp_model *model, unsigned version)
{
	size_t off = (kind == 0) + 2u;
	if (kind == 1 || off + 3 > size || n1 < 1)
		return;
	uint8_t mbyte = b[off - 2], quant = b[off - 1];
	uint8_t flags = kind == 3 ? (uint8_t)(mbyte & 0xF9) : mbyte;
	if (!(flags & 0xF0))
		return;
	size_t at = off + 3 + (size_t)hks_le16(b + off + 1) + b[off] + 1u;
	for (unsigned lane = 0; lane < (kind == 3 ? 1u : 3u); lane++) {
		if (flags & (0x01u << lane)) {
			at += 4;
			continue;
		}
		if (!(flags & (0x10u << lane)))
			continue;
		if (at + 8 > size)
			return;
		double lo = P[0][lane], hi = P[0][lane];
		for (unsigned i = 1; i < n1; i++) {
			lo = P[i][lane] < lo ? P[i][lane] : lo;
			hi = P[i][lane] > hi ? P[i][lane] : hi;
		}
		float decoded_min = 0.0f; /* the stored minimum, known when the maximum's base is made */
		for (unsigned k = 0; k < 2; k++, at += 4) {
			uint32_t base = bound_base(model, version, quant, (int)k, lo, hi, decoded_min);
			uint32_t v = hks_le32(b + at), stored = decode ? base + unzigzag32(v) : v;
			hks_put_le32(b + at, decode ? stored : zigzag32(v - base));
			decoded_min = hks_f32_from_bits(stored);
		}
	}
}

/* The trial entry becomes the best so far (the caller found it smaller). */
static hks_result take_trial(hks_bytebuf *best, const hks_bytebuf *trial, size_t *current)
{
	*current = trial->size;
	best->size = 0;
	return hks_bytebuf_append(best, trial->data, trial->size);
}

/* XOR runs (docs/RECORD.md): varint count, then per run varint gap, varint
 * length, XOR bytes. Runs closer than 3 bytes are merged (a gap costs a byte). */
static hks_result diff_encode(hks_bytebuf *out, const uint8_t *pred, const uint8_t *orig, size_t n)
{
	size_t runs = 0;
	for (int pass = 0; pass < 2; pass++) {
		if (pass)
			HKS_TRY(hks_rec_put_varint(out, runs));
		size_t i = 0, prev_end = 0;
		while (i < n) {
			if (pred[i] == orig[i]) {
				i++;
				continue;
			}
			size_t j = i + 1, last = i + 1;
			while (j < n && j < last + 3) {
				if (pred[j] != orig[j])
					last = j + 1;
				j++;
			}
			if (pass) {
				HKS_TRY(hks_rec_put_varint(out, i - prev_end));
				HKS_TRY(hks_rec_put_varint(out, last - i));
				for (size_t k = i; k < last; k++) {
					uint8_t x = (uint8_t)(pred[k] ^ orig[k]);
					HKS_TRY(hks_bytebuf_append(out, &x, 1));
				}
			} else {
				runs++;
			}
			prev_end = last;
			i = last;
		}
	}
	return HKS_OK;
}

static hks_result diff_apply_used(hks_ctx *ctx, uint8_t *buf, size_t n, const uint8_t *payload, size_t size,
                                  size_t *used)
{
	hks_cursor c = hks_cursor_make(ctx, payload, size, 0);
	uint64_t runs, pos = 0;
	HKS_TRY(hks_rec_get_varint(&c, &runs, "run count"));
	if (runs > size)
		return hks_fail(ctx, HKS_E_MALFORMED, 0, "%llu runs in %zu bytes", (unsigned long long)runs, size);
	for (uint64_t r = 0; r < runs; r++) {
		uint64_t gap, len;
		HKS_TRY(hks_rec_get_varint(&c, &gap, "run gap"));
		HKS_TRY(hks_rec_get_varint(&c, &len, "run length"));
		if (gap > n || len > n || pos + gap + len > n)
			return hks_fail(ctx, HKS_E_MALFORMED, hks_cursor_offset(&c), "run beyond the part's %zu bytes", n);
		pos += gap;
		const uint8_t *x;
		HKS_TRY(hks_read_bytes(&c, (size_t)len, &x, "run bytes"));
		for (uint64_t k = 0; k < len; k++)
			buf[pos + k] ^= x[k];
		pos += len;
	}
	if (used)
		*used = c.pos;
	else if (c.pos != size)
		return hks_fail(ctx, HKS_E_MALFORMED, hks_cursor_offset(&c), "bytes after the last run");
	return HKS_OK;
}

static hks_result diff_apply(hks_ctx *ctx, uint8_t *buf, size_t n, const uint8_t *payload, size_t size)
{
	return diff_apply_used(ctx, buf, n, payload, size, NULL);
}

/* A solved value as f32: values beyond the f32 range (a hostile bound, an ill-conditioned solve) are held at
 * ±FLT_MAX, since converting them is undefined in ISO C; NaN stays NaN. Every finite f32 value is kept. */
static float solved_f32(double v)
{
	if (v > (double)FLT_MAX)
		return FLT_MAX;
	if (v < -(double)FLT_MAX)
		return -FLT_MAX;
	return (float)v;
}

/* ---- lanes solved again after a correction (record v17) ---- */

/* A T/S/F part's REFIT solve as a correction needs it (docs/RECORD.md "Lanes solved again since version 17"):
 * the normal matrix the solve eliminated (its band; the same for every lane of the part) and the solved values.
 * Points the frames leave free, or pin only together (a two-frame span's two inner points: their sum), take
 * the prior's split; once a correction sets one of them, the least-squares values of the lane's points not yet
 * read move with it, which generalizes version 15's pairs. Build and apply run the same arithmetic. */
#define LANE_SOLVE_MAX 256 /* REFIT_MAX (checked there) */
#define LANE_BAND 3        /* the highest degree */
#define LANE_WINDOW 16u    /* points either side a correction moves: Elden Ring's records as with the whole lane
                            (738,549 B; 8: 738,731 B, 4: 741,950 B) */

typedef struct lane_solve {
	unsigned n1, deg;      /* n1 0: no solve */
	unsigned lanes;        /* spline lanes (slots a point) */
	unsigned lane_of[3];   /* each slot's lane (0..2) */
	unsigned quant;        /* 1: 16-bit lanes, 0: 8-bit */
	float lo[3], hi[3];
	const hks_rcp_model *m;
	double H[LANE_SOLVE_MAX][2 * LANE_BAND + 1]; /* H[i][j - i + LANE_BAND] */
	double solved[LANE_SOLVE_MAX][3];
	double P[LANE_SOLVE_MAX][3];      /* the values as corrections left them */
	double P_list[LANE_SOLVE_MAX][3]; /* P at the start of a correction list (the builder codes each list twice) */
	double LD[LANE_SOLVE_MAX][LANE_BAND + 1], x[LANE_SOLVE_MAX];
	uint8_t held[LANE_SOLVE_MAX];
} lane_solve;

static double lane_h(const lane_solve *ls, unsigned i, unsigned j)
{
	unsigned d = i > j ? i - j : j - i;
	return d <= ls->deg ? ls->H[i][(int)j - (int)i + LANE_BAND] : 0.0;
}

/* The slot value of lane l at value v, as refit_section rounds it */
static uint32_t lane_quantize(const lane_solve *ls, unsigned l, double value)
{
	float lo = ls->lo[l], hi = ls->hi[l], v = solved_f32(value);
	if (hi > lo)
		v = v + (hi - lo) * (ls->quant ? 0.5f / 65535.0f : 0.5f / 255.0f);
	return ls->quant ? hks_pack16(ls->m, v, lo, hi) : hks_pack8(ls->m, v, lo, hi);
}

/* Point i of lane l now holds slot value q: the points within LANE_WINDOW of it that are not held (held[] 0)
 * move by the least-squares change that keeps the held ones and every point farther away, H_ff x = −H_fi d,
 * solved by a band LDLᵀ (the free block of a positive definite matrix; held rows are the identity). The
 * window bounds the work a correction costs (a hostile record's too); the move decays within a few points.
 * 0, and nothing moves, when a pivot is not positive. */
static int lane_move(lane_solve *ls, unsigned i, unsigned l, uint32_t q)
{
	float lo = ls->lo[l], hi = ls->hi[l];
	if (!(hi > lo))
		return 0;
	double v = (double)lo + (double)q * ((double)hi - (double)lo) / (ls->quant ? 65535.0 : 255.0);
	double d = v - ls->P[i][l];
	ls->P[i][l] = v;
	unsigned p = ls->deg, a = i > LANE_WINDOW ? i - LANE_WINDOW : 0u;
	unsigned b = i + LANE_WINDOW < ls->n1 ? i + LANE_WINDOW + 1u : ls->n1; /* the window [a, b) */
	int any = 0;
	for (unsigned k = a; k < b; k++) {
		double h = ls->held[k] ? 0.0 : lane_h(ls, k, i);
		ls->x[k] = -d * h;
		any |= h != 0.0;
	}
	if (!any)
		return 1;
	for (unsigned k = a; k < b; k++) {
		unsigned j0 = k > a + p ? k - p : a;
		for (unsigned j = j0; j <= k; j++) {
			double v2 = ls->held[k] || ls->held[j] ? (j == k ? 1.0 : 0.0) : lane_h(ls, k, j);
			for (unsigned t = j0; t < j; t++)
				v2 -= ls->LD[k][t + p - k] * ls->LD[j][t + p - j] * ls->LD[t][p];
			if (j < k) {
				ls->LD[k][j + p - k] = v2 / ls->LD[j][p];
			} else if (v2 > 0.0) {
				ls->LD[k][p] = v2; /* the diagonal D */
			} else {
				return 0;
			}
		}
	}
	for (unsigned k = a; k < b; k++)
		for (unsigned t = k > a + p ? k - p : a; t < k; t++)
			ls->x[k] -= ls->LD[k][t + p - k] * ls->x[t];
	for (unsigned k = a; k < b; k++)
		ls->x[k] /= ls->LD[k][p];
	for (unsigned k = b; k-- > a;)
		for (unsigned t = k + 1; t < b && t <= k + p; t++)
			ls->x[k] -= ls->LD[t][k + p - t] * ls->x[t];
	for (unsigned k = a; k < b; k++)
		if (!ls->held[k])
			ls->P[k][l] += ls->x[k];
	return 1;
}

/* ---- control-point residuals (record v7, docs/RECORD.md "Point residuals") ---- */

#define POINTS_MAX_GROUPED 256 /* the REFIT solve's limit (REFIT_MAX): no entry has more points */

/* The control section of a canonical spline form as slots: T/S/F one 8- or 16-bit integer per spline lane
 * and point; ThreeComp40/48/24 rotations the three kept components of each point. Other rotation selectors
 * have no slots (their entries keep XOR runs). */
typedef struct point_layout {
	unsigned rot_sel;    /* ThreeComp selector (1..3) for rotations, else 0 */
	unsigned width;      /* T/S/F: bytes per slot; rotations: bytes per point */
	size_t start, slots; /* the control section's offset in the canonical form; its slot count */
	/* v11: two lists, the slots of the points no frame sees first (hidden_points of them, their indices
	 * order[0 ..], then the others' order[hidden_points ..]); per_point slots a point */
	int split;
	size_t per_point, hidden_points, points;
	int by_key; /* v15: each list's slots in order of doubt, slot_order (the lists one after the other) */
	const uint8_t *keys; /* v15: the slots' keys (KEY_UP negates a code), or NULL */
	int pairs;           /* v15, v16: partner[] and place[] hold (point_pairs) */
	lane_solve *ls;      /* v17, T/S/F: a correction solves the rest of its lane again (lane_resolve); place[] holds */
	uint16_t order[POINTS_MAX_GROUPED];
	uint16_t slot_order[KEYS_MAX];
	/* v15: a point's partner (the other inner point of a span whose only frame both see; NO_PARTNER) and each
	 * slot's place in the order the lists are read */
	uint16_t partner[POINTS_MAX_GROUPED];
	uint16_t place[KEYS_MAX];
} point_layout;

#define NO_PARTNER 0xFFFFu

static void point_pairs(point_layout *L, const uint8_t *U, unsigned n1, unsigned deg);

/* v11: the points no frame of the knots' range sees, from the canonical prefix's degree, count and knots
 * (hks_invert_hidden_points). Left ungrouped (hidden_points 0) when the prefix does not hold them. */
static void point_groups(point_layout *L, unsigned kind, const uint8_t *canon, size_t plen, unsigned version)
{
	size_t k0 = (kind == 0) + 5u; /* [mask byte 0] mask, quantization, degree, count u16, knots */
	if (plen < k0)
		return;
	unsigned deg = canon[k0 - 3], n1 = hks_le16(canon + k0 - 2);
	size_t nk = (size_t)n1 + deg + 1;
	if (deg < 1 || deg > 3 || n1 < deg + 1 || n1 > POINTS_MAX_GROUPED || plen < k0 + nk || L->slots % n1)
		return;
	uint8_t hidden[POINTS_MAX_GROUPED];
	hks_invert_hidden_points(canon + k0, n1, deg, (uint32_t)canon[k0 + nk - 1] + 1u, hidden);
	size_t k = 0;
	for (unsigned pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < n1; i++)
			if (hidden[i] == !pass)
				L->order[k++] = (uint16_t)i;
	for (unsigned i = 0; i < n1; i++)
		L->hidden_points += hidden[i];
	L->points = n1;
	L->per_point = L->slots / n1;
	/* rotations: measured, the pairs' corrections are not opposite; v17 solves the lane again instead */
	if (version >= 15 && version < HKS_REC_VERSION_LANE_RESOLVE && deg == 3 && !L->rot_sel)
		point_pairs(L, canon + k0, n1, deg);
}

/* v15: two neighbouring points of a degree-3 part that only one frame sees, the same frame for both (the two
 * inner points of a two-frame span between triple knots): the frame fixes their sum (for that span, with equal
 * weights 3/8), the solve only chooses how to split it, so when Havok split it otherwise the corrections of
 * the two are opposite. A correction of one is then also applied, negated, to the other (points_apply_list),
 * which needs none of its own when the two are exactly opposite (docs/RECORD.md "Pairs since version 15"). */
static void point_pairs(point_layout *L, const uint8_t *U, unsigned n1, unsigned deg)
{
	uint16_t seen[POINTS_MAX_GROUPED], frame[POINTS_MAX_GROUPED];
	memset(seen, 0, n1 * sizeof(seen[0]));
	int span = (int)deg;
	for (unsigned f = 0; f <= U[n1 + deg]; f++) {
		double N[4];
		span = hks_invert_basis_from(U, n1, deg, (double)f, N, span);
		for (unsigned i = 0; i <= deg; i++) {
			int pt = span - (int)deg + (int)i;
			if (N[i] != 0.0 && pt >= 0 && (unsigned)pt < n1 && seen[pt] < 2) {
				seen[pt]++;
				frame[pt] = (uint16_t)f;
			}
		}
	}
	for (unsigned i = 0; i < n1; i++)
		L->partner[i] = NO_PARTNER;
	for (unsigned i = 0; i + 1 < n1; i++)
		if (seen[i] == 1 && seen[i + 1] == 1 && frame[i] == frame[i + 1] && L->partner[i] == NO_PARTNER) {
			L->partner[i] = (uint16_t)(i + 1);
			L->partner[i + 1] = (uint16_t)i;
		}
	L->pairs = 1;
}

static size_t group_slots(const point_layout *L, unsigned g);
static size_t group_slot(const point_layout *L, unsigned g, size_t j);

/* v15: the slots of each list ordered by their keys, the most doubtful first (a stable counting sort, so
 * equal keys keep the list's order). A rotation point's three slots share its key and stay together. */
static void order_by_keys(point_layout *L, const uint8_t *keys)
{
	size_t at = 0;
	for (unsigned g = L->split ? 0u : 1u; g < 2; g++) {
		size_t n = group_slots(L, g);
		uint16_t tmp[KEYS_MAX];
		for (size_t j = 0; j < n; j++)
			tmp[j] = (uint16_t)group_slot(L, g, j);
		for (unsigned k = 0; k <= KEY_SURE; k++)
			for (size_t j = 0; j < n; j++)
				if ((keys[tmp[j]] & KEY_DOUBT) == k)
					L->slot_order[at++] = tmp[j];
	}
	L->by_key = 1;
	L->keys = keys;
}

static int point_layout_of(unsigned kind, const uint8_t *canon, size_t plen, size_t size, unsigned version,
                           const uint8_t *keys, size_t nkeys, lane_solve *ls, point_layout *L)
{
	size_t q = (kind == 0) + 1u; /* [mask byte 0] mask byte, quantization */
	if (plen <= q || plen > size)
		return 0;
	unsigned quant = canon[q];
	memset(L, 0, offsetof(point_layout, order));
	L->start = plen;
	if (kind == 1) {
		if (!hks_threecomp_bits(quant))
			return 0;
		L->rot_sel = quant;
		L->width = hks_rotation_size(quant);
		if ((size - plen) % L->width)
			return 0;
		L->slots = (size - plen) / L->width * 3;
	} else {
		if (quant > 1)
			return 0;
		L->width = quant ? 2u : 1u;
		if ((size - plen) % L->width)
			return 0;
		L->slots = (size - plen) / L->width;
	}
	L->split = version >= 11;
	if (L->split)
		point_groups(L, kind, canon, plen, version);
	if (version >= 15 && keys && nkeys == L->slots && L->slots <= KEYS_MAX)
		order_by_keys(L, keys);
	/* v17: the solve behind the refit, when it is this section's (a part refit_canon solved) */
	if (version >= HKS_REC_VERSION_LANE_RESOLVE && !L->rot_sel && ls && ls->n1 && ls->lanes &&
	    (size_t)ls->n1 * ls->lanes == L->slots && L->slots <= KEYS_MAX)
		L->ls = ls;
	if (L->pairs || L->ls) {
		if (L->slots > KEYS_MAX) {
			L->pairs = 0;
		} else {
			size_t at = 0;
			for (unsigned g = L->split ? 0u : 1u; g < 2; g++)
				for (size_t j = 0, n = group_slots(L, g); j < n; j++)
					L->place[group_slot(L, g, j)] = (uint16_t)at++;
		}
	}
	return 1;
}

/* The slots of list g (v11: 0 the hidden points', 1 the others'; before: list 1 is every slot) and the
 * slot at position j of it. */
static size_t group_slots(const point_layout *L, unsigned g)
{
	if (!L->hidden_points)
		return g ? L->slots : 0;
	return (g ? L->points - L->hidden_points : L->hidden_points) * L->per_point;
}

static size_t group_slot(const point_layout *L, unsigned g, size_t j)
{
	if (L->by_key)
		return L->slot_order[(g && L->split ? group_slots(L, 0) : 0) + j];
	if (!L->hidden_points)
		return j;
	return (size_t)L->order[(g ? L->hidden_points : 0) + j / L->per_point] * L->per_point + j % L->per_point;
}

/* v15: the sign a slot's correction is coded with (KEY_UP: negated) */
static int64_t slot_sign(const point_layout *L, size_t slot)
{
	return L->keys && (L->keys[slot] & KEY_UP) ? -1 : 1;
}

static uint32_t slot_value(const point_layout *L, const uint8_t *canon, size_t slot)
{
	const uint8_t *b = canon + L->start + slot * L->width;
	return L->width == 2 ? hks_le16(b) : b[0];
}

static void slot_set(const point_layout *L, uint8_t *canon, size_t slot, uint32_t v)
{
	uint8_t *b = canon + L->start + slot * L->width;
	if (L->width == 2)
		hks_put_le16(b, (uint16_t)v);
	else
		b[0] = (uint8_t)v;
}

/* v15: after a correction d of a T/S/F slot, its partner's slot (point_pairs) takes −d when it is read later and
 * stays in range; build and apply do this alike (rotations have no pairs) */
static void pass_to_partner(const point_layout *L, uint8_t *canon, size_t slot, int64_t d)
{
	if (!L->pairs || L->rot_sel)
		return;
	size_t pt = slot / L->per_point, other = L->partner[pt];
	if (other == NO_PARTNER)
		return;
	size_t s2 = other * L->per_point + slot % L->per_point;
	if (L->place[s2] < L->place[slot])
		return;
	int64_t v = (int64_t)slot_value(L, canon, s2) - d;
	if (v >= 0 && v <= (L->width == 2 ? 0xFFFF : 0xFF))
		slot_set(L, canon, s2, (uint32_t)v);
}

/* v17: slot `slot` of a T/S/F section now holds its final value, `corrected` when a correction set it: the lane's
 * points not yet read (their slots' place after this one's) are solved again and rounded as refit_section
 * rounds. An uncorrected slot moves nothing: its value is the solve's own. */
static void lane_resolve(const point_layout *L, uint8_t *canon, size_t slot, int corrected)
{
	lane_solve *ls = L->ls;
	if (!ls || !corrected)
		return;
	unsigned lanes = ls->lanes, pt = (unsigned)(slot / lanes), si = (unsigned)(slot % lanes), l = ls->lane_of[si];
	unsigned a = pt > LANE_WINDOW ? pt - LANE_WINDOW : 0u, b = pt + LANE_WINDOW < ls->n1 ? pt + LANE_WINDOW + 1u : ls->n1;
	for (unsigned k = a; k < b; k++)
		ls->held[k] = L->place[k * lanes + si] <= L->place[slot];
	if (!lane_move(ls, pt, l, slot_value(L, canon, slot)))
		return;
	for (unsigned k = a; k < b; k++)
		if (!ls->held[k])
			slot_set(L, canon, k * lanes + si, lane_quantize(ls, l, ls->P[k][l]));
}

/* (a right shift of a negative value is implementation-defined in C11: the sign is asked for instead) */
static uint64_t zigzag(int64_t d) { return ((uint64_t)d << 1) ^ (d < 0 ? UINT64_MAX : 0u); }
static int64_t unzigzag(uint64_t z) { return (int64_t)(z >> 1) ^ -(int64_t)(z & 1u); }

/* Residuals of orig against refit over the control section: per list (v11: the hidden points' slots, then
 * the others'; before: one list of every slot) varint n; per item varint gap (the list's slots since the
 * previous item's end), varint code: zigzag(orig − refit) (never 0) for one slot, or 0 (rotations, at a
 * point's first slot) followed by the original point's bytes, which then cover its three slots. */
static hks_result points_encode_list(hks_bytebuf *out, const point_layout *L, unsigned g, uint8_t *refit,
                                     const uint8_t *orig, uint8_t *snapshot)
{
	size_t n = group_slots(L, g);
	size_t section = L->slots * L->width;
	if (snapshot) /* v15 pairs, v17: both passes start from the refitted slots as the lists before left them */
		memcpy(snapshot, refit + L->start, section);
	if (L->ls)
		memcpy(L->ls->P_list, L->ls->P, sizeof(L->ls->P));
	for (int pass = 0; pass < 2; pass++) {
		uint64_t items = 0;
		size_t next = 0;
		if (snapshot && pass)
			memcpy(refit + L->start, snapshot, section);
		if (L->ls && pass)
			memcpy(L->ls->P, L->ls->P_list, sizeof(L->ls->P));
		for (size_t j = 0; j < n;) {
			size_t slot = group_slot(L, g, j);
			if (L->rot_sel) {
				const uint8_t *a = orig + L->start + slot / 3 * L->width, *b = refit + L->start + slot / 3 * L->width;
				uint16_t ca[3], cb[3];
				unsigned ka, sa, kb, sb;
				int same = memcmp(a, b, L->width) == 0;
				if (!same && !(hks_threecomp_split(L->rot_sel, a, ca, &ka, &sa) &&
				               hks_threecomp_split(L->rot_sel, b, cb, &kb, &sb) && ka == kb && sa == sb)) {
					items++;
					if (pass) {
						HKS_TRY(hks_rec_put_varint(out, j - next));
						HKS_TRY(hks_rec_put_varint(out, 0));
						HKS_TRY(hks_bytebuf_append(out, a, L->width));
					}
					j += 3;
					next = j;
					continue;
				}
				for (unsigned c = 0; c < 3; c++, j++) {
					if (same || ca[c] == cb[c])
						continue;
					items++;
					if (pass) {
						HKS_TRY(hks_rec_put_varint(out, j - next));
						HKS_TRY(hks_rec_put_varint(out, zigzag(slot_sign(L, slot + c) * ((int64_t)ca[c] - (int64_t)cb[c]))));
					}
					next = j + 1;
				}
				continue;
			}
			uint32_t a = slot_value(L, orig, slot), b = slot_value(L, refit, slot);
			if (a != b) {
				items++;
				if (pass) {
					HKS_TRY(hks_rec_put_varint(out, j - next));
					HKS_TRY(hks_rec_put_varint(out, zigzag(slot_sign(L, slot) * ((int64_t)a - (int64_t)b))));
				}
				next = j + 1;
				if (L->ls) { /* v17: the slot as apply will have it, then the rest of its lane solved again */
					slot_set(L, refit, slot, a);
					lane_resolve(L, refit, slot, 1);
				} else if (snapshot) { /* the slot itself is read no more: only its partner moves */
					pass_to_partner(L, refit, slot, (int64_t)a - (int64_t)b);
				}
			}
			j++;
		}
		if (!pass)
			HKS_TRY(hks_rec_put_varint(out, items));
	}
	return HKS_OK;
}

static hks_result points_encode(hks_bytebuf *out, const point_layout *L, const uint8_t *refit, const uint8_t *orig)
{
	if ((!L->pairs && !L->ls) || L->rot_sel) {
		for (unsigned g = L->split ? 0u : 1u; g < 2; g++)
			HKS_TRY(points_encode_list(out, L, g, (uint8_t *)(uintptr_t)refit, orig, NULL));
		return HKS_OK;
	}
	/* v15 pairs, v17 lanes solved again: a correction moves other slots, so the lists are written against a
	 * copy that the corrections change as apply will (points_apply_list) */
	if (L->ls)
		memcpy(L->ls->P, L->ls->solved, sizeof(L->ls->P));
	size_t size = L->start + L->slots * L->width;
	hks_bytebuf work;
	hks_bytebuf_init(&work, out->ctx);
	hks_result r = hks_bytebuf_append(&work, refit, size);
	if (r == HKS_OK)
		r = hks_bytebuf_append(&work, refit + L->start, L->slots * L->width); /* room for the snapshot */
	for (unsigned g = L->split ? 0u : 1u; r == HKS_OK && g < 2; g++)
		r = points_encode_list(out, L, g, work.data, orig, work.data + size);
	hks_bytebuf_free(&work);
	return r;
}

static hks_result points_apply_list(hks_cursor *c, const point_layout *L, unsigned g, uint8_t *canon, size_t size)
{
	hks_ctx *ctx = c->ctx;
	size_t n = group_slots(L, g);
	uint64_t items;
	HKS_TRY(hks_rec_get_varint(c, &items, "residual count"));
	if (items > size / 2)
		return hks_fail(ctx, HKS_E_MALFORMED, hks_cursor_offset(c), "%llu residuals in %zu bytes",
		                (unsigned long long)items, size);
	uint64_t next = 0;
	for (uint64_t i = 0; i < items; i++) {
		uint64_t gap, code;
		HKS_TRY(hks_rec_get_varint(c, &gap, "residual gap"));
		HKS_TRY(hks_rec_get_varint(c, &code, "residual"));
		if (gap >= n || next + gap >= n)
			return hks_fail(ctx, HKS_E_MALFORMED, hks_cursor_offset(c), "residual beyond the list's %zu slots", n);
		size_t j = (size_t)(next + gap), slot = group_slot(L, g, j);
		if (code == 0) {
			if (!L->rot_sel || j % 3)
				return hks_fail(ctx, HKS_E_MALFORMED, hks_cursor_offset(c), "a whole point at slot %zu", slot);
			const uint8_t *x;
			HKS_TRY(hks_read_bytes(c, L->width, &x, "point bytes"));
			memcpy(canon + L->start + slot / 3 * L->width, x, L->width);
			next = j + 3;
			continue;
		}
		if (code > 0x3FFFFu) /* |d| fits 17 bits: every slot is at most 16 bits (checked first: no overflow below) */
			return hks_fail(ctx, HKS_E_MALFORMED, hks_cursor_offset(c), "residual %llu out of range",
			                (unsigned long long)code);
		int64_t d = slot_sign(L, slot) * unzigzag(code);
		if (L->rot_sel) {
			uint8_t *pt = canon + L->start + slot / 3 * L->width;
			uint16_t comp[3];
			unsigned k, sign;
			int64_t v;
			if (!hks_threecomp_split(L->rot_sel, pt, comp, &k, &sign) ||
			    (v = (int64_t)comp[slot % 3] + d) < 0 || v > 0x7FFF)
				return hks_fail(ctx, HKS_E_MALFORMED, hks_cursor_offset(c), "residual out of range at slot %zu", slot);
			comp[slot % 3] = (uint16_t)v;
			if (!hks_threecomp_join(L->rot_sel, k, sign, comp, pt))
				return hks_fail(ctx, HKS_E_MALFORMED, hks_cursor_offset(c), "residual out of range at slot %zu", slot);
		} else {
			int64_t v = (int64_t)slot_value(L, canon, slot) + d;
			if (v < 0 || v > (L->width == 2 ? 0xFFFF : 0xFF))
				return hks_fail(ctx, HKS_E_MALFORMED, hks_cursor_offset(c), "residual out of range at slot %zu", slot);
			slot_set(L, canon, slot, (uint32_t)v);
			if (L->ls)
				lane_resolve(L, canon, slot, 1);
			else
				pass_to_partner(L, canon, slot, d);
		}
		next = j + 1;
	}
	return HKS_OK;
}

static hks_result points_apply(hks_ctx *ctx, const point_layout *L, uint8_t *canon, const uint8_t *payload,
                               size_t size)
{
	hks_cursor c = hks_cursor_make(ctx, payload, size, 0);
	if (L->ls)
		memcpy(L->ls->P, L->ls->solved, sizeof(L->ls->P));
	for (unsigned g = L->split ? 0u : 1u; g < 2; g++)
		HKS_TRY(points_apply_list(&c, L, g, canon, size));
	if (c.pos != size)
		return hks_fail(ctx, HKS_E_MALFORMED, hks_cursor_offset(&c), "bytes after the last residual");
	return HKS_OK;
}

/* A REFIT entry's correction of the refitted form (same length as the original, and the same prefix of
 * plen bytes: refit_canon copies it): point residuals where the part has slots, XOR runs over the whole
 * form otherwise; control_apply decides the same way from the same prefix. (Were the prefixes ever to
 * differ, the record's verification would find the data not reproduced and store it whole.) */
static hks_result control_encode(hks_bytebuf *out, unsigned kind, const canon *refit, const uint8_t *orig,
                                 size_t size, size_t plen, unsigned version)
{
	point_layout L;
	if (point_layout_of(kind, refit->bytes.data, plen, size, version, refit->keys, refit->nkeys, refit->ls, &L))
		return points_encode(out, &L, refit->bytes.data, orig);
	return diff_encode(out, refit->bytes.data, orig, size);
}

static hks_result control_apply(hks_ctx *ctx, unsigned kind, canon *refit, size_t plen, const uint8_t *payload,
                                size_t psize, unsigned version)
{
	point_layout L;
	uint8_t *b = refit->bytes.data;
	size_t size = refit->bytes.size;
	if (point_layout_of(kind, b, plen, size, version, refit->keys, refit->nkeys, refit->ls, &L))
		return points_apply(ctx, &L, b, payload, psize);
	return diff_apply(ctx, b, size, payload, psize);
}

/* ---- frames and their hashes --------------------------------------------- */

static uint32_t unit_hash(const hks_frames_in *in, uint32_t first, uint32_t nf, unsigned kind, uint32_t track)
{
	static const unsigned lane0[3] = {0, 3, 7}, nlanes[3] = {3, 4, 3};
	uint8_t head[8] = {(uint8_t)kind};
	hks_put_le32(head + 4, nf);
	uint64_t h = hks_record_hash(HKS_RECORD_HASH_SEED, head, 8);
	for (uint32_t f = first; f < first + nf; f++) {
		const float *src;
		unsigned n;
		if (kind == 3) {
			src = in->floats + (size_t)f * in->num_float_tracks + track;
			n = 1;
		} else {
			src = in->transforms + ((size_t)f * in->num_transform_tracks + track) * HKS_TRACK_SAMPLE_FLOATS +
			      lane0[kind];
			n = nlanes[kind];
		}
		for (unsigned k = 0; k < n; k++) {
			uint8_t b[4];
			hks_put_le32(b, hks_f32_bits(src[k]));
			h = hks_record_hash(h, b, 4);
		}
	}
	return (uint32_t)h;
}


/* ---- control points from frames, for recorded knots (REFIT entries) ------ */

/*
 * Decoded frames are the stored curve evaluated at local frames (FORMAT.md
 * §4.2), so with the original knots the dequantized control points solve
 * N·P = Q exactly (up to rounding): least squares in double over the block's
 * frames (the last local frame of a block that is not the last comes from the
 * next block, §4.2: left out), then quantized to the nearest integer with the
 * recorded bounds (rotations: normU and the nearest ThreeComp integer).
 * Returns 0 when the system is under-determined or singular.
 */
#define REFIT_MAX 256
_Static_assert(REFIT_MAX == LANE_SOLVE_MAX, "a lane_solve holds every point a REFIT solve has");

typedef struct refit_ws {
	double P[REFIT_MAX][4];
	double A[REFIT_MAX][REFIT_MAX];
	double B[REFIT_MAX][4];
	int keep_band;                          /* v17: refit_canon keeps the normal matrix (lane_solve) */
	double band[REFIT_MAX][2 * LANE_BAND + 1]; /* its band before the elimination: band[i][j - i + LANE_BAND] */
} refit_ws;

/* What fills the control points the frames leave free in the REFIT solve (docs/RECORD.md "Undetermined
 * control points in the REFIT solve"): the record's version decides, since its corrections are against the
 * points the solve gives. */
enum { PRIOR_SMOOTH = 0, /* v8, v9: the third derivative (degree 3) or the first difference (degree 1) */
       PRIOR_POLYLINE = 1, /* v10: degree 3 pulled toward the polyline of the frames at the Greville abscissae */
       PRIOR_POLYLINE_MID = 2 /* v17: the same, but a lone hidden point toward the midpoint of its neighbours */ };
#define POLYLINE_WEIGHT 1e-9

/* The version a record is (0: a record being built, which the writer writes as the current version) */
static unsigned rec_version(const hks_rec_anim *rec)
{
	return rec->version ? rec->version : HKS_RECORD_VERSION;
}

static int refit_prior(const hks_rec_anim *rec)
{
	unsigned v = rec_version(rec);
	return v >= HKS_REC_VERSION_LANE_RESOLVE ? PRIOR_POLYLINE_MID : v >= 10 ? PRIOR_POLYLINE : PRIOR_SMOOTH;
}

/* v17: a degree-3 point whose five knots are f f f f+1 f+1 or f f f+1 f+1 f+1 (a one-frame span between a triple
 * and a double knot): no integer frame sees it, and its neighbours are seen. Havok leaves it at about the
 * midpoint of the two (docs/RECORD.md "Lone hidden points since version 17"). */
static int lone_hidden_point(const uint8_t *k)
{
	if (k[0] + 1u != k[4])
		return 0;
	return (k[1] == k[0] && k[2] == k[0] && k[3] == k[4]) || (k[1] == k[0] && k[2] == k[4] && k[3] == k[4]);
}

static int solve_points_l(refit_ws *w, const hks_frames_in *in, uint32_t first, uint32_t nf, int last_block,
                          unsigned kind, uint32_t track, const hks_stored_part *p, double (*P)[4], double lambda,
                          int prior)
{
	int n1 = p->num_control_points, deg = p->degree;
	uint32_t samples = last_block ? nf : nf - 1;
	if (n1 < 1 || n1 > REFIT_MAX || (uint32_t)n1 > samples || deg < 1 || deg > 3)
		return 0;
	static const unsigned lane0[3] = {0, 3, 7};
	unsigned lanes = kind == 1 ? 4 : kind == 3 ? 1 : 3;
	/* A is banded (points i and j share a frame only when |i − j| <= deg); elimination with partial
	 * pivoting keeps the rows below the diagonal within deg and fills the rows above it to 2·deg
	 * (LAPACK's dgbtrf keeps kl + ku superdiagonals for the same reason). Only that band is written
	 * or read: every other term of the dense elimination was a product with an exact zero, so the
	 * results are those of the dense solve (compared bit for bit on every call over 600 corpus
	 * animations when this was written). */
	const int bw = 2 * deg;
	for (int i = 0; i < n1; i++) {
		int j1 = i + bw < n1 ? i + bw : n1 - 1;
		for (int j = i - deg > 0 ? i - deg : 0; j <= j1; j++)
			w->A[i][j] = 0.0;
		for (unsigned l = 0; l < 4; l++)
			w->B[i][l] = 0.0;
	}
	int span = deg;
	for (uint32_t k = 0; k < samples; k++) {
		/* the deg + 1 basis values of points span − deg .. span, the only non-zero ones (frames ascend: so
		 * do their spans) */
		double N[4];
		span = hks_invert_basis_from(p->knots, (unsigned)n1, (unsigned)deg, (double)k, N, span); /* invert.c */
		const float *src = kind == 3 ? in->floats + (size_t)(first + k) * in->num_float_tracks + track
		                              : in->transforms + ((size_t)(first + k) * in->num_transform_tracks + track) *
		                                                     HKS_TRACK_SAMPLE_FLOATS + lane0[kind];
		for (int i = span - deg; i <= span; i++) {
			double ri = N[i - (span - deg)];
			if (ri == 0.0)
				continue;
			for (int j = span - deg; j <= span; j++)
				w->A[i][j] += ri * N[j - (span - deg)];
			for (unsigned l = 0; l < lanes; l++)
				w->B[i][l] += ri * (double)src[l];
		}
	}
	/* Control points the frames do not determine (a basis function that vanishes at every sample: knots
	 * one frame apart, B-splines being zero at the ends of their support; or columns that depend on each
	 * other there: two points inside a two-frame span between triple knots) take a faint penalty's
	 * values (the record patches them), which moves the others by far less than a quantization step.
	 * Degree 1: first differences (a point takes its neighbours' value). Degree 3: the curve's third
	 * derivative in every span, normalized, then a far fainter first difference: Havok's degree-3 curve
	 * is the elevation of its degree-2 one, whose third derivative vanishes, and its refit does not move
	 * what the frames do not see (docs/RECORD.md "Undetermined control points"); what the third
	 * derivative leaves free (one-frame spans) the first difference puts on the line. */
	double l1 = deg == 3 ? lambda * 1e-5 : lambda, l3 = deg == 3 ? lambda : 0.0;
	if ((prior == PRIOR_POLYLINE || prior == PRIOR_POLYLINE_MID) && deg == 3 && lambda > 0.0 && nf >= 2) {
		/* v10: every point is pulled, faintly, toward the polyline through the frames (the block's frames
		 * joined by straight lines; a hostile block of one frame keeps the penalties) at its Greville
		 * abscissa, the mean of its three inner knots. What the frames determine moves by a part in 1e9;
		 * what they leave free takes the polyline's values: where Havok's refit starts from a degree-1
		 * curve and does not move what the frames do not see, that is where the free points stay
		 * (docs/RECORD.md "Undetermined control points"). */
		l1 = l3 = 0.0;
		size_t stride = kind == 3 ? in->num_float_tracks : (size_t)in->num_transform_tracks * HKS_TRACK_SAMPLE_FLOATS;
		const float *frames = kind == 3 ? in->floats + (size_t)first * in->num_float_tracks + track
		                                : in->transforms + ((size_t)first * in->num_transform_tracks + track) *
		                                                       HKS_TRACK_SAMPLE_FLOATS + lane0[kind];
		for (int j = 0; j < n1; j++) {
			if (prior == PRIOR_POLYLINE_MID && j >= 1 && j + 1 < n1 && lone_hidden_point(p->knots + j)) {
				/* v17: toward the midpoint of its neighbours, (P[j-1] + P[j+1]) / 2 (a second difference;
				 * no frame sees the point, so it takes that value and the neighbours do not move) */
				static const double r[3] = {-0.5, 1.0, -0.5};
				for (int a = 0; a < 3; a++)
					for (int c = 0; c < 3; c++)
						w->A[j - 1 + a][j - 1 + c] += POLYLINE_WEIGHT * r[a] * r[c];
				continue;
			}
			double xi = ((double)p->knots[j + 1] + (double)p->knots[j + 2] + (double)p->knots[j + 3]) / 3.0;
			double below = floor(xi);
			uint32_t f0 = below < 0.0 ? 0u : below > (double)(nf - 2) ? nf - 2 : (uint32_t)below;
			double t = xi - (double)f0;
			const float *a = frames + (size_t)f0 * stride, *b = a + stride;
			for (unsigned l = 0; l < lanes; l++) {
				/* (t = 0: the next frame, which may be a non-last block's unowned one, takes no part) */
				double x0 = t == 0.0 ? (double)a[l] : (double)a[l] * (1.0 - t) + (double)b[l] * t;
				w->B[j][l] += POLYLINE_WEIGHT * x0;
			}
			w->A[j][j] += POLYLINE_WEIGHT;
		}
	}
	for (int i = 0; l1 > 0.0 && i + 1 < n1; i++) {
		w->A[i][i] += l1;
		w->A[i + 1][i + 1] += l1;
		w->A[i][i + 1] -= l1;
		w->A[i + 1][i] -= l1;
	}
	for (int s = deg; l3 > 0.0 && s < n1; s++) {
		double r3[4], norm = 0.0;
		if (!hks_invert_third_derivative(p->knots, (unsigned)s, r3))
			continue;
		for (int k = 0; k < 4; k++)
			norm += r3[k] * r3[k];
		for (int a = 0; a < 4; a++)
			for (int c = 0; c < 4; c++)
				w->A[s - 3 + a][s - 3 + c] += l3 * r3[a] * r3[c] / norm;
	}
	if (w->keep_band)
		for (int i = 0; i < n1; i++)
			for (int d = -LANE_BAND; d <= LANE_BAND; d++)
				w->band[i][d + LANE_BAND] = d >= -deg && d <= deg && i + d >= 0 && i + d < n1 ? w->A[i][i + d] : 0.0;
	/* Gaussian elimination with partial pivoting */
	for (int c = 0; c < n1; c++) {
		int rows_end = c + deg < n1 ? c + deg + 1 : n1, cols_end = c + bw < n1 ? c + bw + 1 : n1;
		int piv = c;
		for (int r = c + 1; r < rows_end; r++)
			if (fabs(w->A[r][c]) > fabs(w->A[piv][c]))
				piv = r;
		if (!(fabs(w->A[piv][c]) > 1e-14))
			return 0;
		if (piv != c) {
			for (int j = c; j < cols_end; j++) {
				double t = w->A[c][j];
				w->A[c][j] = w->A[piv][j];
				w->A[piv][j] = t;
			}
			for (unsigned l = 0; l < 4; l++) {
				double t = w->B[c][l];
				w->B[c][l] = w->B[piv][l];
				w->B[piv][l] = t;
			}
		}
		for (int r = c + 1; r < rows_end; r++) {
			double f = w->A[r][c] / w->A[c][c];
			if (f == 0.0)
				continue;
			for (int j = c; j < cols_end; j++)
				w->A[r][j] -= f * w->A[c][j];
			for (unsigned l = 0; l < 4; l++)
				w->B[r][l] -= f * w->B[c][l];
		}
	}
	for (int c = n1 - 1; c >= 0; c--)
		for (unsigned l = 0; l < 4; l++) {
			double v = w->B[c][l];
			int cols_end = c + bw < n1 ? c + bw + 1 : n1;
			for (int j = c + 1; j < cols_end; j++)
				v -= w->A[c][j] * P[j][l];
			P[c][l] = v / w->A[c][c];
		}
	for (int i = 0; i < n1; i++)
		for (unsigned l = 0; l < 4; l++)
			if (!isfinite(P[i][l]))
				return 0;
	return 1;
}

static int solve_points(refit_ws *w, const hks_frames_in *in, uint32_t first, uint32_t nf, int last_block,
                        unsigned kind, uint32_t track, const hks_stored_part *p, double (*P)[4], int prior)
{
	return solve_points_l(w, in, first, nf, last_block, kind, track, p, P, 1e-7, prior);
}

/* The inverter's solve: exact least squares (no penalty); when a control point is invisible at every
 * frame, the REFIT penalty fills it (the record then corrects it when it is wrong). */
static int solve_points_exact(refit_ws *w, const hks_frames_in *in, uint32_t first, uint32_t nf, int last_block,
                              unsigned kind, uint32_t track, const hks_stored_part *p, double (*P)[4])
{
	return solve_points_l(w, in, first, nf, last_block, kind, track, p, P, 0.0, PRIOR_SMOOTH) ||
	       solve_points_l(w, in, first, nf, last_block, kind, track, p, P, 1e-7, PRIOR_SMOOTH);
}

/* A slot's key (v15): how far its solved value g, in grid steps, lies from the rounding edge between two
 * integers, in 32nds of a step (0 .. KEY_SURE; non-finite values are sure: nothing orders them), and KEY_UP
 * when g was rounded down, except for KEY_SURE (within 1/32 of an integer, where the solve's last bits would
 * decide the direction). */
static uint8_t slot_key(double g)
{
	double f = g - floor(g), d = fabs(f - 0.5); /* d: 0 on an edge, 0.5 on an integer */
	if (!(d >= 0.0 && d <= 0.5))
		return KEY_SURE;
	unsigned k = (unsigned)(d * 32.0);
	if (k >= KEY_SURE) /* within 1/32 of an integer: no direction (a last bit of the solve would decide it) */
		return KEY_SURE;
	return (uint8_t)(k | (f < 0.5 ? KEY_UP : 0u));
}

/* Append the control section of part p (prefix parsed) computed from P; with `keys`, the slots' keys too (v15:
 * *nkeys of them, one per slot, at most KEYS_MAX). */
static hks_result refit_section(hks_bytebuf *out, const hks_rcp_model *m, unsigned kind, const hks_stored_part *p,
                                double (*P)[4], uint8_t *keys, size_t *nkeys)
{
	int n1 = p->num_control_points;
	size_t nk = 0;
	if (kind == 1) {
		unsigned sel = p->quantization;
		float scale = sel == HKS_ROT_THREECOMP40 ? 2894.8953f
		              : sel == HKS_ROT_THREECOMP48 ? 23169.061f
		              : sel == HKS_ROT_THREECOMP24 ? 89.095451f
		                                           : 0.0f;
		float half = scale != 0.0f ? 0.5f / scale : 0.0f; /* half a grid step */
		for (int i = 0; i < n1; i++) {
			float q[4], nq[4];
			for (int l = 0; l < 4; l++)
				q[l] = solved_f32(P[i][l]);
			hks_normalize_unguarded(m, q, nq);
			unsigned sign, k = hks_quat_largest(nq, &sign);
			/* the point's key: its most doubtful kept component's (the packer's grid is |c| · scale) */
			uint8_t key = KEY_SURE, up[4];
			for (unsigned l = 0; l < 4; l++) {
				/* the packer rounds |c| · scale to the nearest, away from 0 at the half: a negative component
				 * rounded down in size was rounded up. A sure component (no direction) still takes its sign:
				 * its codes then say how the size moved (measured: 684 B less on Elden Ring than none) */
				uint8_t kl = slot_key(fabs((double)nq[l]) * (double)scale);
				up[l] = (uint8_t)((kl & KEY_UP) ^ (nq[l] < 0.0f ? KEY_UP : 0u));
				if (l != k && (kl & KEY_DOUBT) < key)
					key = kl & KEY_DOUBT;
			}
			if (keys && nk + 3 <= KEYS_MAX)
				for (unsigned l = 0; l < 4; l++)
					if (l != k)
						keys[nk++] = (uint8_t)(key | up[l]);
			for (unsigned l = 0; l < 4 && half != 0.0f; l++)
				if (l != k && nq[l] != 0.0f)
					nq[l] = nq[l] > 0.0f ? nq[l] + half : nq[l] - half;
			uint8_t b[16];
			uint32_t size = hks_pack_quaternion(sel, nq, b);
			HKS_TRY(hks_bytebuf_append(out, b, size));
		}
		if (nkeys)
			*nkeys = nk;
		return HKS_OK;
	}
	unsigned lanes = kind == 3 ? 1 : 3;
	for (int i = 0; i < n1; i++) {
		size_t first = nk;
		uint8_t key = KEY_SURE; /* the point's: its most doubtful lane's */
		for (unsigned lane = 0; lane < lanes; lane++) {
			if (!(p->flags & (0x10u << lane)))
				continue;
			float lo = p->min[lane], hi = p->max[lane], v = solved_f32(P[i][lane]);
			if (hi > lo) {
				uint8_t kl = slot_key(((double)v - lo) / ((double)hi - lo) * (p->quantization ? 65535.0 : 255.0));
				key = (kl & KEY_DOUBT) < key ? (kl & KEY_DOUBT) : key;
				if (keys && nk < KEYS_MAX)
					keys[nk] = kl & KEY_UP;
			} else if (keys && nk < KEYS_MAX) {
				keys[nk] = 0;
			}
			if (keys && nk < KEYS_MAX)
				nk++;
			if (hi > lo)
				v = v + (hi - lo) * (p->quantization ? 0.5f / 65535.0f : 0.5f / 255.0f);
			uint8_t b[2];
			if (p->quantization) {
				hks_put_le16(b, hks_pack16(m, v, lo, hi));
				HKS_TRY(hks_bytebuf_append(out, b, 2));
			} else {
				b[0] = hks_pack8(m, v, lo, hi);
				HKS_TRY(hks_bytebuf_append(out, b, 1));
			}
		}
		for (size_t j = first; keys && j < nk; j++)
			keys[j] = (uint8_t)(keys[j] | key);
	}
	if (nkeys)
		*nkeys = nk;
	return HKS_OK;
}

/*
 * Rotation points the frames show exactly (all `deg` copies of the point's knot at one owned frame: every
 * point of degree 1, the ends and triple knots of degree 3) must unpack to that frame bit for bit; the
 * packer does not always give such bytes back, so they are repacked (hks_repack_quaternion_exact). Frame f
 * is frames + f · stride. 0 when a point stays more than tol off its frame in a component (NaN compares
 * false: left to the sampler).
 */
static int repack_shown_points(unsigned sel, const uint8_t *knots, unsigned n1, unsigned deg, uint32_t owned,
                               const float *frames, size_t stride, uint8_t *pk, float tol)
{
	uint32_t size = hks_rotation_size(sel);
	for (unsigned i = 0; i < n1; i++) {
		unsigned f = knots[i + 1];
		if (knots[i + deg] != f || f >= owned)
			continue;
		float back[4];
		const float *x = frames + (size_t)f * stride;
		hks_unpack_quaternion(sel, pk + (size_t)i * size, back);
		if (memcmp(back, x, sizeof(back)) != 0 && hks_repack_quaternion_exact(sel, x, pk + (size_t)i * size))
			continue;
		for (unsigned l = 0; l < 4; l++)
			if (fabsf(back[l] - x[l]) > tol)
				return 0;
	}
	return 1;
}

/* prefix bytes -> the full canonical form with solved control points; 0 when it cannot be solved. `prior`:
 * what fills the points the frames leave free (refit_prior, from the record's version). */
static hks_result refit_canon(hks_ctx *ctx, hks_arena *scratch, refit_ws *w, const hks_rcp_model *m,
                              const hks_frames_in *in, const hks_stored_block *blk, int last_block, unsigned kind,
                              uint32_t track, const uint8_t *prefix, size_t prefix_size, int offsets, int prior,
                              unsigned version, canon *cout, int *ok)
{
	hks_stored_part p;
	uint8_t m0 = 0, mb = 0;
	hks_bytebuf *out = &cout->bytes;
	*ok = 0;
	cout->nkeys = 0;
	if (cout->ls)
		cout->ls->n1 = 0;
	HKS_TRY(parse_canon_mode(ctx, scratch, kind, prefix, prefix_size, 1, &p, &m0, &mb));
	out->size = 0;
	HKS_TRY(hks_bytebuf_append(out, prefix, prefix_size));
	if (!p.is_spline)
		return HKS_OK; /* nothing to solve: static / absent parts are the prefix (+ a static quaternion) */
	int lane_solves = version >= HKS_REC_VERSION_LANE_RESOLVE && kind != 1;
	w->keep_band = lane_solves;
	int solved = solve_points(w, in, blk->first_frame, blk->num_frames, last_block, kind, track, &p, w->P, prior);
	w->keep_band = 0;
	if (!solved)
		return HKS_OK;
	if (offsets) {
		/* the bounds were offsets from the solve's extremes (bound_offsets): the solve does not use them.
		 * Decoded in a scratch copy, which the parsed part's knots then point into (out grows below). */
		uint8_t *pc = (uint8_t *)hks_arena_dup(scratch, prefix, prefix_size);
		if (!pc)
			return hks_fail_nomem(ctx, prefix_size);
		bound_offsets(kind, pc, prefix_size, (const double (*)[4])w->P, p.num_control_points, 1, m, version);
		HKS_TRY(parse_canon_mode(ctx, scratch, kind, pc, prefix_size, 1, &p, &m0, &mb));
		memcpy(out->data, pc, prefix_size);
	}
	size_t at = out->size;
	HKS_TRY(refit_section(out, m, kind, &p, w->P, cout->keys, &cout->nkeys));
	if (lane_solves && p.num_control_points <= LANE_SOLVE_MAX) { /* v17: what the corrections solve again with */
		if (!cout->ls && !(cout->ls = (lane_solve *)hks_malloc(ctx, sizeof(lane_solve))))
			return hks_fail_nomem(ctx, sizeof(lane_solve));
		lane_solve *ls = cout->ls;
		ls->lanes = 0;
		for (unsigned lane = 0; lane < (kind == 3 ? 1u : 3u); lane++)
			if (p.flags & (0x10u << lane)) /* the spline lanes, in the order refit_section writes them */
				ls->lane_of[ls->lanes++] = lane;
		ls->deg = p.degree;
		ls->quant = p.quantization;
		ls->m = m;
		for (unsigned l = 0; l < 3; l++) {
			ls->lo[l] = p.min[l];
			ls->hi[l] = p.max[l];
		}
		for (int i = 0; i < p.num_control_points; i++) {
			memcpy(ls->H[i], w->band[i], sizeof(ls->H[i]));
			for (unsigned l = 0; l < 3; l++)
				ls->solved[i][l] = w->P[i][l];
		}
		ls->n1 = (unsigned)p.num_control_points;
	}
	if (kind == 1 && p.quantization != HKS_ROT_UNCOMPRESSED && hks_pack_quaternion_exact(p.quantization)) {
		/* points the frames show exactly, repacked to unpack to them (as the inverter does) */
		uint32_t owned = last_block ? blk->num_frames : blk->num_frames - 1;
		if (out->size - at == (size_t)p.num_control_points * hks_rotation_size(p.quantization))
			(void)repack_shown_points(p.quantization, p.knots, p.num_control_points, p.degree, owned,
			                          in->transforms + ((size_t)blk->first_frame * in->num_transform_tracks + track) *
			                                               HKS_TRACK_SAMPLE_FLOATS + 3,
			                          (size_t)in->num_transform_tracks * HKS_TRACK_SAMPLE_FLOATS, out->data + at, INFINITY);
	}
	*ok = 1;
	return HKS_OK;
}

/* ---- prediction ---------------------------------------------------------- */

typedef struct predictor {
	hks_ctx *ctx;
	const hks_options *base;
	const hks_frames_in *in;
	const hks_rec_anim *rec;
	const hks_rcp_model *model;
	hks_stored_animation *pred[HKS_RECORD_LADDER_MAX];
	refit_ws *ws;            /* allocated on first use */
	/* candidate selection (select_candidates): per unit */
	int selected;            /* the selection has run */
	uint64_t num_units;
	uint8_t *chosen;         /* the selected step */
	uint8_t *last_step;      /* the last step that encoded the unit (steps 0..last_step did) */
	uint8_t *self_exact;     /* the chosen step decodes to the unit's frames bit for bit */
	/* inversion selected after step 0 (record flag 8, docs/RECORD.md "Inversion"): chosen = INV_STEP */
	hks_arena *inv_arena;
	hks_stored_part *inv_parts;
	uint8_t *inv_mbytes;
	uint8_t **inv_guess;     /* per unit: the knot vectors the inverter tried (deg, n1 u16, knots) */
	hks_bytebuf guessbuf;
	hks_invert_memo *memo;   /* the degree-3 knot search's window fits, one unit at a time (invert.h) */
} predictor;

#define INV_STEP 0xFFu
#define REC_INVERT_SELECT 8u /* offsets_override bit: the verified inversion is a candidate after step 0 */

static hks_result predictor_ws(predictor *pr)
{
	if (!pr->ws) {
		pr->ws = (refit_ws *)hks_malloc(pr->ctx, sizeof(refit_ws));
		if (!pr->ws)
			return hks_fail_nomem(pr->ctx, sizeof(refit_ws));
		pr->ws->keep_band = 0; /* only refit_canon asks for the band */
	}
	return HKS_OK;
}

static hks_result predict(predictor *pr, unsigned step, const uint8_t *skip)
{
	if (pr->pred[step])
		return HKS_OK;
	const hks_rec_anim *rec = pr->rec;
	uint32_t T = rec->num_transform_tracks, F = rec->num_float_tracks;
	ladder_step tol = ladder_tolerances(rec_version(rec), step);
	hks_track_params *pt = (hks_track_params *)hks_calloc(pr->ctx, T + F + 1, sizeof(hks_track_params));
	if (!pt)
		return hks_fail_nomem(pr->ctx, 0);
	for (uint32_t t = 0; t < T; t++) {
		uint8_t m0 = rec->track_quant[t];
		pt[t].rotation_tolerance = tol.rotation_tolerance;
		pt[t].translation_tolerance = pt[t].scale_tolerance = tol.tolerance;
		pt[t].translation_quantization = (uint8_t)((m0 & 3) ? HKS_ENC_SCALAR_16BIT : HKS_ENC_SCALAR_8BIT);
		unsigned sel = (m0 >> 2) & 15;
		pt[t].rotation_quantization = HKS_ENC_ROT_QUANT(sel <= HKS_ROT_UNCOMPRESSED ? sel : HKS_ROT_THREECOMP40);
		pt[t].scale_quantization = (uint8_t)((m0 >> 6) ? HKS_ENC_SCALAR_16BIT : HKS_ENC_SCALAR_8BIT);
	}
	for (uint32_t i = 0; i < F; i++) {
		pt[T + i].float_tolerance = tol.tolerance;
		pt[T + i].float_quantization = rec->float_quant[i] ? HKS_ENC_SCALAR_16BIT : HKS_ENC_SCALAR_8BIT;
	}
	hks_encode_options eo;
	memset(&eo, 0, sizeof(eo));
	eo.base = *pr->base;
	eo.per_track = T ? pt : NULL;
	eo.num_per_track = T;
	eo.per_float_track = F ? pt + T : NULL;
	eo.num_per_float_track = F;
	eo.max_frames_per_block = rec->max_frames_per_block;
	eo.cpu = (hks_cpu_model)rec->cpu;
	eo.solver = HKS_SOLVER_HAVOK;
	hks_predictor_options po;
	memset(&po, 0, sizeof(po));
	po.static_from_constant = 1;
	po.nearest_quantization = 1;
	po.skip_units = skip;
	po.classify_tolerance = HAVOK_TOLERANCE;
	hks_result r = hks_encode_stored_predict(pr->in, &eo, &po, &pr->pred[step], pr->ctx->err);
	hks_free(pr->ctx, pt, (T + F + 1) * sizeof(hks_track_params));
	return r;
}

static void predictor_free(predictor *pr)
{
	for (unsigned i = 0; i < HKS_RECORD_LADDER_MAX; i++)
		if (pr->pred[i])
			hks_stored_free(pr->pred[i]);
	if (pr->chosen)
		hks_free(pr->ctx, pr->chosen, 3 * (size_t)pr->num_units);
	pr->chosen = NULL;
	if (pr->ws)
		hks_free(pr->ctx, pr->ws, sizeof(refit_ws));
	pr->ws = NULL;
	hks_invert_memo_free(pr->ctx, pr->memo);
	pr->memo = NULL;
	if (pr->guessbuf.ctx)
		hks_bytebuf_free(&pr->guessbuf);
	if (pr->inv_arena)
		hks_arena_free(pr->inv_arena);
	pr->inv_arena = NULL;
	pr->inv_parts = NULL;
	pr->inv_mbytes = NULL;
}

/* The part of unit (b, u) in stored structure s: kind, mask0, mask byte. */
static const hks_stored_part *unit_part(const hks_stored_animation *s, uint32_t b, uint32_t u, uint32_t T,
                                        unsigned *kind, uint8_t *mask0, uint8_t *mbyte, uint32_t *track)
{
	const hks_stored_block *blk = &s->blocks[b];
	if (u < 3 * T) {
		const hks_stored_track *tr = &blk->tracks[u / 3];
		*kind = u % 3;
		*track = u / 3;
		*mask0 = tr->mask[0];
		*mbyte = tr->mask[1 + u % 3];
		return &tr->part[u % 3];
	}
	*kind = 3;
	*track = u - 3 * T;
	*mask0 = 0;
	*mbyte = blk->float_masks[u - 3 * T];
	return &blk->floats[u - 3 * T];
}

/* ---- inversion (docs/RECORD.md "Inversion") ------------------------------ */

/*
 * The stored part recovered from the unit's own frames: lane classes, degree-1
 * knots from the piecewise-linear structure (invert.c), control points solved
 * exactly on those knots (solve_points), integers on the grid of bounds
 * searched by f32 ulps, and every candidate verified by the sampler: it is
 * accepted only when it decodes to the unit's frames bit for bit. The mask
 * bits the frames cannot see (a rotation's per-component bits) come from the
 * step-0 prediction when it has the same kind of part.
 */

/* Lanes of unit (kind, track) at frames first .. first + nf − 1 into v (nf × lanes). */
static unsigned unit_lanes(const hks_frames_in *in, uint32_t first, uint32_t nf, unsigned kind, uint32_t track,
                           float *v)
{
	static const unsigned lane0[3] = {0, 3, 7}, nlanes[3] = {3, 4, 3};
	unsigned lanes = kind == 3 ? 1 : nlanes[kind];
	for (uint32_t f = 0; f < nf; f++) {
		const float *src = kind == 3 ? in->floats + (size_t)(first + f) * in->num_float_tracks + track
		                              : in->transforms + ((size_t)(first + f) * in->num_transform_tracks + track) *
		                                                     HKS_TRACK_SAMPLE_FLOATS + lane0[kind];
		memcpy(v + (size_t)f * lanes, src, lanes * sizeof(float));
	}
	return lanes;
}

/* Decode part p alone (one block of nf frames) with the sampler; bit l of the
 * result is set when lane l equals v at every owned frame; bad (may be NULL)
 * gets bit l set at every owned frame where lane l differs. */
static unsigned verify_part_frames(const hks_options *base, unsigned kind, const hks_stored_part *p, uint8_t mbyte,
                                   const float *v, unsigned lanes, uint32_t nf, uint32_t owned, uint8_t *bad)
{
	static const unsigned lane0[3] = {0, 3, 7};
	float out[HKS_INVERT_MAX_FRAMES * HKS_TRACK_SAMPLE_FLOATS];
	if (nf > HKS_INVERT_MAX_FRAMES || hks_sample_part(base, kind, p, mbyte, nf, out) != HKS_OK)
		return 0;
	unsigned ok = (1u << lanes) - 1;
	for (uint32_t f = 0; f < owned; f++)
		for (unsigned l = 0; l < lanes; l++) {
			float d = kind == 3 ? out[f] : out[(size_t)f * HKS_TRACK_SAMPLE_FLOATS + lane0[kind] + l];
			if (hks_f32_bits(d) != hks_f32_bits(v[(size_t)f * lanes + l])) {
				ok &= ~(1u << l);
				if (bad)
					bad[f] |= (uint8_t)(1u << l);
			}
		}
	return ok;
}

static unsigned verify_part(const hks_options *base, unsigned kind, const hks_stored_part *p, uint8_t mbyte,
                            const float *v, unsigned lanes, uint32_t nf, uint32_t owned)
{
	return verify_part_frames(base, kind, p, mbyte, v, lanes, nf, owned, NULL);
}

/* The integer of quantization `quant` whose dequantized value is nearest x. */
static uint16_t best_q(unsigned quant, double x, float lo, float hi)
{
	double top = quant ? 65535.0 : 255.0, d = (double)hi - (double)lo;
	double g = d > 0.0 ? (x - (double)lo) / d * top : 0.0;
	long q0 = (long)floor(g + 0.5);
	long best = -1;
	double bd = 0.0;
	for (long q = q0 - 1; q <= q0 + 1; q++) {
		if (q < 0 || q > (long)top)
			continue;
		double e = fabs((double)hks_dequantize_scalar_inline(quant, (uint32_t)q, lo, hi) - x);
		if (best < 0 || e < bd) {
			best = q;
			bd = e;
		}
	}
	return (uint16_t)(best < 0 ? (q0 < 0 ? 0 : (long)top) : best);
}

typedef struct inv_stats {
	uint64_t tried, inverted, bound_search;
} inv_stats;

/* The knot searches tried in order (docs/RECORD.md "Inversion"): degree 1 with second differences at
 * 8, 32, 128 ulps, then the degree-3 segmentation at the residual bounds below (a third try at 64 ulps
 * added one part of 17,606 on the development binders). */
typedef struct inv_try {
	unsigned degree;
	float ulps;
	unsigned reduce; /* degree 3: the first degree-3 try's knots with triple knots reduced (hks_invert_reduce_knots3) */
} inv_try;
static const inv_try inv_tries[] = {{1, 8.0f, 0}, {1, 32.0f, 0}, {1, 128.0f, 0}, {3, 4.0f, 0}, {3, 16.0f, 0}, {3, 4.0f, 1}};
#define INV_TRIES (sizeof(inv_tries) / sizeof(inv_tries[0]))
#define INV_REFINE_MAX 16u /* rounds of degree-1 knot refinement (hks_invert_refine_knots1) */

/* Degree-3 control points on knots: exact least squares over the owned frames, the points no frame sees
 * from the model (hks_invert_fill; a non-final block's last point ends at the next block's frame). */
static int invert_points3(const uint8_t *knots, unsigned n1, const float *v, unsigned lanes, uint32_t nf,
                          uint32_t owned, double (*P)[4])
{
	uint8_t vis[HKS_INVERT_MAX_POINTS];
	if (!hks_invert_solve(knots, n1, 3, v, lanes, 0, owned, P, vis, 0, 0.0))
		return 0;
	const float *end = owned < nf ? v + (size_t)(nf - 1) * lanes : NULL;
	/* the model fills from the solved neighbours; the others are solved again around the filled values */
	for (unsigned it = 0; it < 2; it++) {
		hks_invert_fill(n1, lanes, vis, end, P);
		if (!hks_invert_solve(knots, n1, 3, v, lanes, 0, owned, P, vis, 1, 0.0))
			return 0;
	}
	hks_invert_fill(n1, lanes, vis, end, P);
	return 1;
}

/* A rotation part on the knots in *p (degree, count, knots set; quantization = selector): control
 * points solved from the frames v, packed, and every point the frames show exactly repacked to unpack
 * to that frame bit for bit. *pk (in arena) = NULL when no candidate can be built. */
static hks_result rotation_candidate(predictor *pr, hks_arena *arena, uint32_t first, uint32_t nf, uint32_t owned,
                                     uint32_t track, const float *v, double (*P3)[4], hks_stored_part *p, uint8_t **pk_out)
{
	unsigned deg = p->degree, n1 = p->num_control_points, sel = p->quantization;
	const uint8_t *knots = p->knots;
	uint32_t size = hks_rotation_size(sel);
	*pk_out = NULL;
	double (*PP)[4] = pr->ws->P;
	if (deg == 1) {
		/* a non-final block's last frame is the next block's: left out when the last span has two
		 * own frames (they fix its line); else it is the best guess of the last control point */
		int use_last = owned == nf || (n1 >= 3 && (uint32_t)knots[n1] + 2u > nf - 1) || n1 < 3;
		if (!solve_points_exact(pr->ws, pr->in, first, nf, use_last, 1, track, p, pr->ws->P))
			return HKS_OK;
	} else {
		PP = P3;
		if (!invert_points3(knots, n1, v, 4, nf, owned, PP))
			return HKS_OK;
	}
	hks_bytebuf bb;
	hks_bytebuf_init(&bb, pr->ctx);
	hks_result r = HKS_OK;
	if (sel == HKS_ROT_UNCOMPRESSED) /* the floats as they decode */
		for (unsigned i = 0; r == HKS_OK && i < n1; i++)
			for (unsigned l = 0; r == HKS_OK && l < 4; l++) {
				uint8_t fb[4];
				hks_put_le32(fb, hks_f32_bits((float)PP[i][l]));
				r = hks_bytebuf_append(&bb, fb, 4);
			}
	else
		r = refit_section(&bb, pr->model, 1, p, PP, NULL, NULL);
	uint8_t *pk = r == HKS_OK && bb.size == (size_t)size * n1 ? (uint8_t *)hks_arena_dup(arena, bb.data, bb.size) : NULL;
	hks_bytebuf_free(&bb);
	HKS_TRY(r);
	if (!pk)
		return HKS_OK;
	/* a point more than 4 ulps of 1 off its frame after repacking (the sampler's basis at a knot is 1
	 * within rounding) cannot verify: no candidate (most degree-1 tries of parts that are not degree 1
	 * end here) */
	if (sel != HKS_ROT_UNCOMPRESSED && !repack_shown_points(sel, knots, n1, deg, owned, v, 4, pk, 4.0f * 0x1p-23f))
		return HKS_OK;
	*pk_out = pk;
	return HKS_OK;
}

/* The knot vector of try t (inv_tries) for the unit's frames v: the control point count, 0 when the try
 * gives none. first3 / *first3_n keep the first degree-3 vector, which the reduction try starts from. */
static unsigned try_knots(unsigned t, const float *v, uint32_t nf, uint32_t owned, unsigned lanes,
                          const uint8_t *active, const float *edge, hks_invert_memo *memo, uint8_t *knots,
                          uint8_t *first3, unsigned *first3_n)
{
	unsigned n1;
	if (inv_tries[t].degree == 1)
		return hks_invert_knots1(v, nf, owned, lanes, active, inv_tries[t].ulps, edge, knots);
	if (inv_tries[t].reduce) {
		n1 = *first3_n;
		if (n1 < 4)
			return 0;
		memcpy(knots, first3, n1 + 4);
		return hks_invert_reduce_knots3(v, nf, owned, lanes, active, inv_tries[t].ulps, memo, knots, &n1) ? n1 : 0;
	}
	n1 = hks_invert_knots3(v, nf, owned, lanes, active, inv_tries[t].ulps, memo, knots);
	if (!*first3_n && n1 >= 4) {
		*first3_n = n1;
		memcpy(first3, knots, n1 + 4);
	}
	return n1;
}

/* v20 (docs/RECORD.md "Bounds Havok's quantizer can have made, since version 20"): Havok takes a lane's bounds
 * from its control points and quantizes those points through them, so its smallest point is stored as 0 and
 * its largest, the maximum itself, as the quantizer gives the maximum on its own range (the grid's top or one
 * below). Bounds whose lane has other extreme integers decode the same frames but are not Havok's. */
static int quantizer_consistent(const hks_rcp_model *model, const hks_stored_part *p, unsigned l, unsigned slot,
                                unsigned n1)
{
	unsigned qlo = 65535u, qhi = 0;
	for (unsigned i = 0; i < n1; i++) {
		unsigned q = p->control_points[(size_t)i * p->spline_lanes + slot];
		qlo = q < qlo ? q : qlo;
		qhi = q > qhi ? q : qhi;
	}
	float lo = p->min[l], hi = p->max[l];
	unsigned top = p->quantization ? hks_pack16(model, hi, lo, hi) : hks_pack8(model, hi, lo, hi);
	return qlo == 0 && qhi == top;
}

/* Try to invert unit (b, u); on success *out (memory in arena) and *mbyte. */
static hks_result invert_unit(predictor *pr, hks_arena *arena, uint32_t b, uint32_t u, hks_stored_part *out,
                              uint8_t *mbyte, int *ok)
{
	*ok = 0;
	const hks_rec_anim *rec = pr->rec;
	uint32_t T = rec->num_transform_tracks;
	const hks_stored_animation *p0 = pr->pred[0];
	const hks_stored_block *blk = &p0->blocks[b];
	uint32_t nf = blk->num_frames, owned = b + 1 == rec->num_blocks ? nf : nf - 1;
	if (nf < 2 || nf > HKS_INVERT_MAX_FRAMES || owned < 1)
		return HKS_OK;
	unsigned kind;
	uint8_t m0, hint_mb;
	uint32_t track;
	(void)unit_part(p0, b, u, T, &kind, &m0, &hint_mb, &track);
	float v[HKS_INVERT_MAX_FRAMES * 4];
	unsigned lanes = unit_lanes(pr->in, blk->first_frame, nf, kind, track, v);
	/* the knot searches' memo knows this unit's frames only */
	if (!pr->memo && !(pr->memo = hks_invert_memo_create(pr->ctx)))
		return hks_fail_nomem(pr->ctx, 0);
	hks_invert_memo_reset(pr->memo);
	hks_stored_part p;
	memset(&p, 0, sizeof(p));
	if (kind == 1) {
		unsigned sel = (rec->track_quant[track] >> 2) & 15;
		if (sel > HKS_ROT_UNCOMPRESSED || !hks_pack_quaternion_exact(sel))
			return HKS_OK;
		p.quantization = (uint8_t)sel;
		int same = 1, ident = 1;
		for (uint32_t f = 0; f < owned; f++)
			for (unsigned l = 0; l < 4; l++) {
				uint32_t x = hks_f32_bits(v[(size_t)f * 4 + l]);
				if (x != hks_f32_bits(v[l]))
					same = 0;
				if (x != (l == 3 ? 0x3F800000u : 0u))
					ident = 0;
			}
		if (ident) {
			*mbyte = 0;
			*out = p;
			*ok = verify_part(pr->base, kind, &p, 0, v, lanes, nf, owned) == 15u;
			return HKS_OK;
		}
		uint8_t flags;
		uint32_t size = hks_rotation_size(sel);
		if (same) {
			flags = (hint_mb & 0xF0) == 0 && (hint_mb & 0x0F) ? hint_mb : 0x0F;
			p.num_control_points = 1;
			double P[1][4];
			for (unsigned l = 0; l < 4; l++)
				P[0][l] = v[l];
			hks_bytebuf bb;
			hks_bytebuf_init(&bb, pr->ctx);
			p.flags = flags;
			hks_result r = refit_section(&bb, pr->model, 1, &p, P, NULL, NULL);
			uint8_t *pk = r == HKS_OK && bb.size == size ? (uint8_t *)hks_arena_dup(arena, bb.data, size) : NULL;
			hks_bytebuf_free(&bb);
			HKS_TRY(r);
			if (!pk)
				return HKS_OK;
			p.packed = pk;
			*mbyte = flags;
			*out = p;
			*ok = verify_part(pr->base, kind, &p, flags, v, lanes, nf, owned) == 15u;
			return HKS_OK;
		}
		flags = (hint_mb & 0xF0) ? hint_mb : 0xF0;
		p.flags = flags;
		p.is_spline = 1;
		p.degree = 1;
		uint8_t knots[HKS_INVERT_MAX_POINTS + 4], prev[HKS_INVERT_MAX_POINTS + 4];
		unsigned prev_n = 0;
		const uint8_t active[4] = {1, 1, 1, 1};
		float edge[4];
		for (unsigned l = 0; l < 4; l++)
			edge[l] = 2.0f / 2894.8953f;
		double (*P3)[4] = (double (*)[4])hks_arena_array(arena, HKS_INVERT_MAX_POINTS, sizeof(double[4]));
		if (!P3)
			return hks_fail_nomem(pr->ctx, 0);
		uint8_t first3[HKS_INVERT_MAX_POINTS + 4];
		unsigned first3_n = 0;
		for (unsigned t = 0; t < INV_TRIES; t++) {
			unsigned deg = inv_tries[t].degree;
			unsigned n1 = try_knots(t, v, nf, owned, 4, active, edge, pr->memo, knots, first3, &first3_n);
			if (n1 < deg + 1 || (n1 == prev_n && memcmp(knots, prev, n1 + deg + 1) == 0))
				continue;
			prev_n = n1;
			memcpy(prev, knots, n1 + deg + 1);
			if (pr->guessbuf.ctx) {
				uint8_t hd[3] = {(uint8_t)deg, (uint8_t)n1, (uint8_t)(n1 >> 8)};
				HKS_TRY(hks_bytebuf_append(&pr->guessbuf, hd, 3));
				HKS_TRY(hks_bytebuf_append(&pr->guessbuf, knots, n1 + deg + 1));
			}
			unsigned refined = 0;
		refine:;
			p.degree = (uint8_t)deg;
			p.num_control_points = (uint16_t)n1;
			p.num_knots = (uint16_t)(n1 + deg + 1);
			p.knots = knots;
			uint8_t *pk = NULL;
			HKS_TRY(rotation_candidate(pr, arena, blk->first_frame, nf, owned, track, v, P3, &p, &pk));
			if (!pk)
				continue;
			p.packed = pk;
			uint8_t bad[HKS_INVERT_MAX_FRAMES];
			memset(bad, 0, nf);
			if (verify_part_frames(pr->base, kind, &p, flags, v, lanes, nf, owned, bad) == 15u) {
				p.knots = (const uint8_t *)hks_arena_dup(arena, knots, n1 + deg + 1);
				if (!p.knots)
					return hks_fail_nomem(pr->ctx, 0);
				*mbyte = flags;
				*out = p;
				*ok = 1;
				return HKS_OK;
			}
			/* degree 1, first try: a knot in every span where the candidate missed, then again (a kink
			 * smaller than the threshold's ulps; docs/RECORD.md "Inversion") */
			if (deg == 1 && t == 0 && refined < INV_REFINE_MAX &&
			    hks_invert_refine_knots1(v, nf, 4, active, bad, knots, &n1)) {
				refined++;
				goto refine;
			}
		}
		return HKS_OK;
	}
	/* T, S, F */
	float identity = kind == 2 ? 1.0f : 0.0f;
	uint8_t cls[3];
	float sv[3];
	uint8_t flags = hks_invert_classify(v, owned, lanes, identity, cls, sv);
	p.quantization = kind == 3 ? rec->float_quant[track]
	                 : kind == 0 ? (uint8_t)((rec->track_quant[track] & 3) != 0)
	                             : (uint8_t)((rec->track_quant[track] >> 6) != 0);
	for (unsigned l = 0; l < lanes; l++)
		if (cls[l] == HKS_INV_STATIC)
			p.static_value[l] = sv[l];
	p.flags = flags;
	uint8_t mb = kind == 3 ? (uint8_t)(flags | (p.quantization << 1)) : flags;
	if (!(flags & 0xF0)) {
		*mbyte = mb;
		*out = p;
		*ok = verify_part(pr->base, kind, &p, flags, v, lanes, nf, owned) == (1u << lanes) - 1;
		return HKS_OK;
	}
	p.is_spline = 1;
	p.degree = 1;
	uint8_t active[3] = {0, 0, 0};
	float edge[3] = {0, 0, 0};
	for (unsigned l = 0; l < lanes; l++) {
		if (cls[l] != HKS_INV_SPLINE)
			continue;
		active[l] = 1;
		p.spline_lanes++;
		float lo = v[l], hi = v[l];
		for (uint32_t f = 0; f < nf; f++) {
			float x = v[(size_t)f * lanes + l];
			lo = x < lo ? x : lo;
			hi = x > hi ? x : hi;
		}
		edge[l] = 2.0f * (hi - lo) / (p.quantization ? 65535.0f : 255.0f);
	}
	/* bound offsets in ulps: the minimum's first 5 (then, degree 3 only, the wider ring up to ±8), the maximum's 7 */
	static const int lo_off[17] = {0, -1, 1, -2, 2, -3, 3, -4, 4, -5, 5, -6, 6, -7, 7, -8, 8},
	                 hi_off[7] = {0, -1, 1, -2, 2, -3, 3};
	uint8_t knots[HKS_INVERT_MAX_POINTS + 4], prev[HKS_INVERT_MAX_POINTS + 4];
	unsigned prev_n = 0;
	uint16_t *cp = (uint16_t *)hks_arena_array(arena, (size_t)HKS_INVERT_MAX_POINTS * 3, 2);
	uint16_t fb_q[HKS_INVERT_MAX_POINTS];
	/* v20: among bounds that decode to the frames, those Havok's quantizer can have made come first */
	int prefer_quantizer = rec_version(pr->rec) >= HKS_REC_VERSION_BOUND_BASES && pr->model;
	double (*P3)[4] = (double (*)[4])hks_arena_array(arena, HKS_INVERT_MAX_POINTS, sizeof(double[4]));
	if (!cp || !P3)
		return hks_fail_nomem(pr->ctx, 0);
	unsigned all = (1u << lanes) - 1;
	uint8_t first3[HKS_INVERT_MAX_POINTS + 4];
	unsigned first3_n = 0;
	for (unsigned t = 0; t < INV_TRIES; t++) {
		unsigned deg = inv_tries[t].degree;
		unsigned n1 = try_knots(t, v, nf, owned, lanes, active, edge, pr->memo, knots, first3, &first3_n);
		if (n1 < deg + 1 || (n1 == prev_n && memcmp(knots, prev, n1 + deg + 1) == 0))
			continue;
		prev_n = n1;
		memcpy(prev, knots, n1 + deg + 1);
		if (pr->guessbuf.ctx) {
			uint8_t hd[3] = {(uint8_t)deg, (uint8_t)n1, (uint8_t)(n1 >> 8)};
			HKS_TRY(hks_bytebuf_append(&pr->guessbuf, hd, 3));
			HKS_TRY(hks_bytebuf_append(&pr->guessbuf, knots, n1 + deg + 1));
		}
		p.degree = (uint8_t)deg;
		p.num_control_points = (uint16_t)n1;
		p.num_knots = (uint16_t)(n1 + deg + 1);
		p.knots = knots;
		p.control_points = cp;
		double (*P)[4] = pr->ws->P;
		if (deg == 1) {
			/* a non-final block's last frame is the next block's: left out when the last span has two
			 * own frames (they fix its line); else it is the best guess of the last control point */
			int use_last = owned == nf || (n1 >= 3 && (uint32_t)knots[n1] + 2u > nf - 1) || n1 < 3;
			if (!solve_points_exact(pr->ws, pr->in, blk->first_frame, nf, use_last, kind, track, &p, pr->ws->P))
				continue;
		} else {
			P = P3;
			if (!invert_points3(knots, n1, v, lanes, nf, owned, P))
				continue;
		}
		float blo[3] = {0, 0, 0}, bhi[3] = {0, 0, 0};
		for (unsigned l = 0; l < lanes; l++) {
			if (!active[l])
				continue;
			double a = P[0][l], z = P[0][l];
			for (unsigned i = 1; i < n1; i++) {
				a = P[i][l] < a ? P[i][l] : a;
				z = P[i][l] > z ? P[i][l] : z;
			}
			blo[l] = (float)a;
			bhi[l] = (float)z;
		}
		/* per spline lane: search the bounds (ulps around the solved extremes) until the lane verifies */
		unsigned good = all;
		for (unsigned l = 0; l < lanes; l++)
			if (active[l])
				good &= ~(1u << l);
		int failed = 0;
		for (unsigned l = 0; l < lanes && !failed; l++) {
			if (!active[l])
				continue;
			int found = 0, fallback = 0;
			float fb_lo = 0.0f, fb_hi = 0.0f;
			unsigned slot = 0;
			for (unsigned k = 0; k < l; k++)
				slot += active[k];
			/* base 0: the solved extremes are the bounds (points at q = 0 and at the grid's top); base 1:
			 * Havok's truncating quantizer put the largest point one step below the top (d · rcp(d) < 1),
			 * so the solved maximum is lo + (top − 1)/top · d and the bound is one grid step above it */
			double top = p.quantization ? 65535.0 : 255.0;
			float bases[2] = {bhi[l], (float)((double)blo[l] + ((double)bhi[l] - (double)blo[l]) * top / (top - 1.0))};
			unsigned nbases = bhi[l] > blo[l] && bases[1] != bhi[l] ? 2 : 1;
			float big = fabsf(blo[l]) > fabsf(bhi[l]) ? fabsf(blo[l]) : fabsf(bhi[l]);
			float near_tol = 4.0f * (hks_invert_ulp_step(big, 1) - big); /* NaN / inf: no test */
			/* ring 1 (degree 3): a minimum 3-8 ulps off the solved one (a point at q = 0 that no frame shows
			 * by itself is solved less exactly; docs/RECORD.md "Bounds") */
			for (unsigned ring = 0; ring < (deg == 3 ? 2u : 1u) && !found; ring++)
			for (unsigned bi = 0; bi < nbases && !found; bi++)
				for (unsigned a = ring ? 5 : 0; a < (ring ? 17u : 5u) && !found; a++)
					for (unsigned z = 0; z < 7 && !found; z++) {
						float lo = blo[l], hi = bases[bi];
						for (int s = 0; s < abs(lo_off[a]); s++)
							lo = hks_invert_ulp_step(lo, lo_off[a]);
						for (int s = 0; s < abs(hi_off[z]); s++)
							hi = hks_invert_ulp_step(hi, hi_off[z]);
						if (!(hi >= lo))
							continue;
						p.min[l] = lo;
						p.max[l] = hi;
						int shown = 1;
						for (unsigned i = 0; i < n1 && shown; i++) {
							uint16_t q = best_q(p.quantization, P[i][l], lo, hi);
							cp[(size_t)i * p.spline_lanes + slot] = q;
							/* a point the frames show (all `deg` copies of its knot at one owned frame:
							 * every point of degree 1, the ends and triple knots of degree 3) is that
							 * frame up to the sampler's rounding (its basis there is not always exactly
							 * 1: an exact test lost 4 parts of the corpus sample), so a point more than 4
							 * ulps of the lane's magnitude off it cannot verify: checked before the
							 * sampler, first failure ends the candidate (most candidates of parts that
							 * are not degree 1 stop at their first point) */
							unsigned f = knots[i + 1];
							if (knots[i + deg] == f && f < owned) {
								float x = v[(size_t)f * lanes + l], d = hks_dequantize_scalar_inline(p.quantization, q, lo, hi);
								if (fabsf(d - x) > near_tol)
									shown = 0; /* NaN compares false: not rejected here */
							}
						}
						if (!shown)
							continue;
						/* v20: once a candidate Havok cannot have made verified, only those it can are tried */
						if (fallback && deg == 1 && !quantizer_consistent(pr->model, &p, l, slot, n1))
							continue;
						/* the lane alone first: most wrong bounds fail there, without a full decode */
						unsigned res = hks_invert_lane_matches(&p, l, slot, v, lanes, owned)
						                   ? verify_part(pr->base, kind, &p, flags, v, lanes, nf, owned)
						                   : 0;
						if (!(res & (1u << l)) && deg == 3) {
							/* the integers that give every frame on these bounds, when there are any */
							int dp = 0;
							HKS_TRY(hks_invert_lane_integers(pr->ctx, &p, v, lanes, owned, l, slot, cp, &dp));
							if (dp)
								res = verify_part_frames(pr->base, kind, &p, flags, v, lanes, nf, owned, NULL);
						}
						if ((res & (1u << l)) && prefer_quantizer &&
						    !quantizer_consistent(pr->model, &p, l, slot, n1)) {
							/* it decodes to the frames, but Havok's quantizer cannot have made it: kept in
							 * case no candidate it could have made does */
							if (!fallback) {
								fallback = 1;
								fb_lo = p.min[l];
								fb_hi = p.max[l];
								for (unsigned i = 0; i < n1; i++)
									fb_q[i] = cp[(size_t)i * p.spline_lanes + slot];
							}
							continue;
						}
						if (res & (1u << l)) {
							found = 1;
							good |= 1u << l;
						}
					}
			if (!found && fallback) {
				p.min[l] = fb_lo;
				p.max[l] = fb_hi;
				for (unsigned i = 0; i < n1; i++)
					cp[(size_t)i * p.spline_lanes + slot] = fb_q[i];
				found = 1;
				good |= 1u << l;
			}
			failed = !found;
		}
		if (failed || good != all)
			continue;
		if (verify_part(pr->base, kind, &p, flags, v, lanes, nf, owned) != all)
			continue;
		p.knots = (const uint8_t *)hks_arena_dup(arena, knots, n1 + deg + 1);
		if (!p.knots)
			return hks_fail_nomem(pr->ctx, 0);
		*mbyte = mb;
		*out = p;
		*ok = 1;
		return HKS_OK;
	}
	return HKS_OK;
}

/* v11: how many bytes larger than the best other entry a REFIT_INV entry may be and still be chosen
 * (docs/RECORD.md "Version 11": measured on Elden Ring) */
#define REFIT_INV_SLACK 20u

/* ---- knot edits against the inverter's knot vectors (record v4, docs/RECORD.md "REFIT_INV") ---- */

/* The t-th knot vector the inverter tried on a unit (in the order of inv_tries, repeats left out); 1 when
 * there is one. */
static int guess_knots(const uint8_t *g, unsigned t, unsigned *deg, unsigned *n1, const uint8_t **knots)
{
	if (!g)
		return 0;
	uint32_t len = hks_le32(g), at = 4;
	for (unsigned i = 0; at + 3 <= len; i++) {
		unsigned d = g[at], n = g[at + 1] | (unsigned)g[at + 2] << 8;
		if (at + 3 + n + d + 1 > len)
			return 0;
		if (i == t) {
			*deg = d;
			*n1 = n;
			*knots = g + at + 3;
			return 1;
		}
		at += 3 + n + d + 1;
	}
	return 0;
}

/* v16: a hybrid try, after the inverter's own (docs/RECORD.md "Hybrid tries since version 16"). Where the
 * frames are dense with knots, the inverter's degree-3 segmentation puts a triple knot every third frame: any
 * four frames fit a cubic, so the frames cannot tell where Havok's knots were, and Havok's own there come from
 * its degree-1 removal on the raw samples (every frame or every other one, mostly). The ladder's prediction ran
 * that fit on the decoded frames, so there its knots are the better guess. Hybrid j is the inverter's j-th
 * degree-3 try with the multiplicities of the prediction `pp` (degree 3, or degree 1 taken three times: its
 * knots raised twice) from the first to the last triple knot of every chain of triple knots at most
 * HYBRID_CHAIN frames apart, nothing between, and one frame beyond each end (inside the block's interior).
 * Built alike by build and apply: both have the tries and the prediction of the entry's ladder step. */
#define HYBRID_CHAIN 3u
#define HYBRID_TRIES 3u /* degree-3 tries with a hybrid (inv_tries has 3) */

static unsigned guess_count(const uint8_t *g)
{
	unsigned d, n, t = 0;
	const uint8_t *k;
	while (guess_knots(g, t, &d, &n, &k))
		t++;
	return t;
}

/* The hybrid of the t-th try, when try t exists, has degree 3 and the hybrid differs from it: the knot vector
 * into out (HKS_INVERT_MAX_POINTS + 4 bytes), *n1 its points. */
static int hybrid_knots(const uint8_t *g, unsigned t, const hks_stored_part *pp, uint8_t *out, unsigned *n1)
{
	unsigned d, n;
	const uint8_t *k;
	if (!pp || !pp->is_spline || (pp->degree != 1 && pp->degree != 3) || !guess_knots(g, t, &d, &n, &k) || d != 3)
		return 0;
	size_t nk = (size_t)n + 4, pk = (size_t)pp->num_control_points + pp->degree + 1;
	unsigned last = k[nk - 1];
	if (!pp->knots || pp->num_knots != pk || pk < 2u * pp->degree + 2u || pp->knots[pk - 1] != last)
		return 0;
	uint8_t mt[256], mp[256];
	memset(mt, 0, sizeof(mt));
	memset(mp, 0, sizeof(mp));
	for (size_t i = 4; i + 4 < nk; i++)
		mt[k[i]]++;
	unsigned copies = pp->degree == 1 ? 3u : 1u; /* a degree-1 knot, raised twice */
	for (size_t i = pp->degree + 1u; i + pp->degree + 1u < pk; i++)
		if (pp->knots[i] > 0 && pp->knots[i] < last) {
			unsigned m = mp[pp->knots[i]] + copies;
			mp[pp->knots[i]] = (uint8_t)(m > 3u ? 3u : m);
		}
	int changed = 0;
	for (unsigned a = 1; a < last;) {
		if (mt[a] != 3) {
			a++;
			continue;
		}
		unsigned b = a; /* the chain's last triple knot */
		for (;;) {
			unsigned c = b + 1;
			while (c < last && c <= b + HYBRID_CHAIN && mt[c] == 0)
				c++;
			if (c < last && c <= b + HYBRID_CHAIN && mt[c] == 3)
				b = c;
			else
				break;
		}
		if (b > a) {
			unsigned lo = a > 1 ? a - 1 : a, hi = b + 1 < last ? b + 1 : b;
			for (unsigned f = lo; f <= hi; f++) {
				changed |= mp[f] != mt[f];
				mt[f] = mp[f];
			}
			a = hi + 1;
		} else {
			a = b + 1;
		}
	}
	if (!changed)
		return 0;
	size_t o = 0;
	for (unsigned c = 0; c < 4; c++)
		out[o++] = 0;
	for (unsigned f = 1; f < last; f++)
		for (unsigned c = 0; c < mt[f]; c++) {
			if (o + 4 > HKS_INVERT_MAX_POINTS + 4u)
				return 0;
			out[o++] = (uint8_t)f;
		}
	for (unsigned c = 0; c < 4; c++)
		out[o++] = (uint8_t)last;
	*n1 = (unsigned)o - 4;
	return 1;
}

/* The knot vector of try t of a REFIT_INV entry: the inverter's tries, then (v16) hybrid j at t = G + j for
 * G real tries, j < HYBRID_TRIES (its knots in buf). */
static int entry_try(const uint8_t *g, unsigned t, unsigned version, const hks_stored_part *pp, uint8_t *buf,
                     unsigned *deg, unsigned *n1, const uint8_t **knots)
{
	if (guess_knots(g, t, deg, n1, knots))
		return 1;
	unsigned G;
	if (version < 16 || !g || t < (G = guess_count(g)) || t - G >= HYBRID_TRIES)
		return 0;
	/* hybrid j of the j-th degree-3 try */
	unsigned j = t - G, seen = 0;
	for (unsigned r = 0; r < G; r++) {
		unsigned d, n;
		const uint8_t *k;
		if (!guess_knots(g, r, &d, &n, &k) || d != 3)
			continue;
		if (seen++ != j)
			continue;
		if (!hybrid_knots(g, r, pp, buf, n1))
			return 0;
		*deg = 3;
		*knots = buf;
		return 1;
	}
	return 0;
}

/* Whether some try among the first max_tries has degree deg: without one, no REFIT_INV entry can be
 * made, and its tail need not be. */
static int guess_has_degree(const uint8_t *g, unsigned deg, unsigned max_tries)
{
	const uint8_t *k;
	unsigned d, n;
	for (unsigned t = 0; t < max_tries && guess_knots(g, t, &d, &n, &k); t++)
		if (d == deg)
			return 1;
	return 0;
}

static void knot_mult(const uint8_t *k, size_t n, int m[256])
{
	memset(m, 0, 256 * sizeof(int));
	for (size_t i = 0; i < n; i++)
		m[k[i]]++;
}

/* v19: the knot edits as ranks (docs/RECORD.md "Knot edits as ranks since version 19"). A frame's symbol, the
 * zigzag of its multiplicity difference, is stored as its rank in the order of the symbols' frequency in its
 * context: the try's multiplicities at the frame before, the frame and the frame after (each up to 4) and the
 * previous frame's symbol (up to 8). The orders were counted over Sekiro's knot-edit entries in version 18
 * records (tools/knot_rank_table.py); a row is the context's number, ((m(f-1) * 5 + m(f)) * 5 + m(f+1)) * 9 +
 * previous symbol, and symbols 0..7 of its order by rank, 4 bits each from the low bits (the ninth is the one
 * left). A context without a row keeps the symbols as they are. The rank depends on the try, which the frames
 * give, not on what the body coder has seen: a unit whose frames were edited gets other knots from its own entry,
 * which then fails its test as before, and every other entry is read as written. */
#define KNOT_RANK_SYMBOLS 9u
static const uint32_t knot_rank_order[][2] = {
	{0, 0x75316240u}, {2, 0x75316420u}, {4, 0x75316240u}, {6, 0x75314260u}, {9, 0x75316240u}, {11, 0x75316420u},
	{13, 0x75316420u}, {15, 0x75432160u}, {18, 0x75316240u}, {20, 0x75312640u}, {22, 0x75316240u}, {24, 0x75314260u},
	{27, 0x75316240u}, {29, 0x75314260u}, {31, 0x75316420u}, {33, 0x75314206u}, {36, 0x75312460u}, {38, 0x75431260u},
	{40, 0x76543120u}, {42, 0x75431260u}, {45, 0x76534120u}, {47, 0x76534210u}, {49, 0x76543201u}, {51, 0x76530214u},
	{54, 0x76534120u}, {63, 0x76534102u}, {65, 0x76543201u}, {67, 0x76543021u}, {72, 0x76534102u}, {76, 0x76543201u},
	{78, 0x76532410u}, {81, 0x76530241u}, {83, 0x76532041u}, {85, 0x76534201u}, {87, 0x76532041u}, {90, 0x76543120u},
	{92, 0x76541203u}, {94, 0x76542103u}, {96, 0x76541032u}, {99, 0x76542130u}, {101, 0x76542013u},
	{103, 0x76542103u}, {108, 0x76542130u}, {110, 0x76542013u}, {112, 0x76542013u}, {119, 0x76542031u},
	{121, 0x76542013u}, {135, 0x76425310u}, {137, 0x76423105u}, {139, 0x76423105u}, {141, 0x76423150u},
	{144, 0x76425310u}, {146, 0x76421305u}, {148, 0x76421305u}, {150, 0x76421350u}, {153, 0x76423510u},
	{155, 0x76421305u}, {157, 0x76421305u}, {159, 0x76423510u}, {162, 0x76423510u}, {164, 0x76421350u},
	{166, 0x76421350u}, {168, 0x76421530u}, {225, 0x75316420u}, {226, 0x75316402u}, {227, 0x76531420u},
	{229, 0x75314260u}, {234, 0x75316420u}, {235, 0x76531240u}, {236, 0x76531420u}, {243, 0x75316420u},
	{244, 0x75316240u}, {245, 0x75316240u}, {247, 0x75431260u}, {252, 0x76543120u}, {253, 0x75316240u},
	{254, 0x76531420u}, {256, 0x75431260u}, {261, 0x75431260u}, {262, 0x75312460u}, {265, 0x75431620u},
	{270, 0x76534120u}, {271, 0x76531402u}, {280, 0x76534102u}, {281, 0x76543201u}, {290, 0x76543021u},
	{298, 0x76534120u}, {315, 0x76543120u}, {316, 0x76543120u}, {317, 0x76542130u}, {324, 0x76542031u},
	{326, 0x76542103u}, {333, 0x76542103u}, {335, 0x76542103u}, {360, 0x76423510u}, {361, 0x76425301u},
	{362, 0x76423510u}, {369, 0x76421350u}, {370, 0x76542130u}, {371, 0x76425310u}, {378, 0x76421530u},
	{379, 0x76425130u}, {380, 0x76421350u}, {387, 0x76421530u}, {388, 0x76425130u}, {389, 0x76425310u},
	{450, 0x75316420u}, {451, 0x75316240u}, {452, 0x75314260u}, {453, 0x75316042u}, {459, 0x75316420u},
	{460, 0x76531240u}, {462, 0x76531240u}, {468, 0x75316240u}, {469, 0x75316420u}, {470, 0x75432160u},
	{471, 0x75316240u}, {477, 0x76531420u}, {478, 0x76531420u}, {479, 0x75314260u}, {480, 0x75316240u},
	{486, 0x75316420u}, {487, 0x75431260u}, {488, 0x75431260u}, {489, 0x75312460u}, {495, 0x76534120u},
	{496, 0x76534102u}, {497, 0x76534021u}, {498, 0x76534102u}, {513, 0x76543021u}, {525, 0x76534102u},
	{540, 0x76542310u}, {541, 0x76541230u}, {542, 0x76541203u}, {549, 0x76542013u}, {558, 0x76542103u},
	{567, 0x76542013u}, {585, 0x76423510u}, {586, 0x76423510u}, {587, 0x76432150u}, {588, 0x76542310u},
	{594, 0x76421530u}, {595, 0x76542130u}, {603, 0x76421350u}, {612, 0x76421530u}, {613, 0x76425130u},
	{614, 0x76421530u}, {615, 0x76425310u}, {675, 0x75316240u}, {676, 0x75316420u}, {678, 0x75316240u},
	{680, 0x75316024u}, {684, 0x75314260u}, {685, 0x75316420u}, {687, 0x75316240u}, {689, 0x75316240u},
	{693, 0x75314260u}, {694, 0x75316420u}, {696, 0x75316420u}, {698, 0x75316240u}, {702, 0x75316420u},
	{703, 0x76531420u}, {705, 0x76531420u}, {707, 0x75316420u}, {711, 0x75431206u}, {720, 0x76531042u},
	{721, 0x76531402u}, {723, 0x76531402u}, {725, 0x76531420u}, {729, 0x76534210u}, {730, 0x76543021u},
	{732, 0x76543102u}, {734, 0x76543102u}, {738, 0x76534120u}, {739, 0x76543021u}, {741, 0x76543102u},
	{743, 0x76534102u}, {747, 0x76534210u}, {748, 0x76543201u}, {752, 0x76534120u}, {765, 0x76541320u},
	{766, 0x76542310u}, {770, 0x76543120u}, {774, 0x76542310u}, {775, 0x76542130u}, {777, 0x76542031u},
	{783, 0x76542301u}, {784, 0x76542130u}, {810, 0x76423510u}, {811, 0x76425301u}, {813, 0x76425310u},
	{815, 0x76425301u}, {819, 0x76425130u}, {820, 0x76421035u}, {822, 0x76425130u}, {824, 0x76425130u},
	{828, 0x76425130u}, {829, 0x76421035u}, {831, 0x76421035u}, {833, 0x76423105u}, {837, 0x76421350u},
	{838, 0x76421035u}, {840, 0x76421350u}, {842, 0x76425310u}, {900, 0x75312460u}, {909, 0x75314260u},
	{918, 0x75314260u}, {927, 0x75314206u}, {945, 0x76531042u}
};

/* The symbols of `context` in the order of their rank */
static void knot_rank_context(unsigned context, uint8_t order[KNOT_RANK_SYMBOLS])
{
	size_t lo = 0, hi = sizeof(knot_rank_order) / sizeof(knot_rank_order[0]);
	uint32_t packed = 0x76543210u; /* no row: the identity */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (knot_rank_order[mid][0] < context) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (lo < sizeof(knot_rank_order) / sizeof(knot_rank_order[0]) && knot_rank_order[lo][0] == context)
		packed = knot_rank_order[lo][1];
	unsigned used = 0;
	for (unsigned i = 0; i + 1 < KNOT_RANK_SYMBOLS; i++) {
		order[i] = (uint8_t)(packed >> (4 * i) & 15u);
		used |= 1u << order[i];
	}
	order[KNOT_RANK_SYMBOLS - 1] = 0;
	while (used & (1u << order[KNOT_RANK_SYMBOLS - 1]))
		order[KNOT_RANK_SYMBOLS - 1]++;
}

/* The context of frame f: the try's multiplicities (mb) around it and the previous frame's symbol */
static unsigned knot_rank_context_of(const int mb[256], unsigned f, uint64_t previous)
{
	unsigned before = f ? (unsigned)(mb[f - 1] < 4 ? mb[f - 1] : 4) : 0u;
	unsigned at = (unsigned)(mb[f] < 4 ? mb[f] : 4);
	unsigned after = f < 255 ? (unsigned)(mb[f + 1] < 4 ? mb[f + 1] : 4) : 0u;
	return ((before * 5u + at) * 5u + after) * KNOT_RANK_SYMBOLS +
	       (unsigned)(previous < KNOT_RANK_SYMBOLS - 1 ? previous : KNOT_RANK_SYMBOLS - 1);
}

/* Per frame, what the knot edits turning knot vector `base` into `target` (both non-decreasing) store (0:
 * nothing): the zigzag of the multiplicity difference, from version 19 its rank (knot_rank_order) up to the
 * range, which *range receives; returns how many frames store a code. */
static unsigned knot_edit_codes(const uint8_t *base, size_t nb, const uint8_t *target, size_t nt, unsigned version,
                                uint64_t code[256], unsigned *range_out)
{
	int mb[256], mt[256];
	knot_mult(base, nb, mb);
	knot_mult(target, nt, mt);
	unsigned count = 0, range = nt ? target[nt - 1] : 0;
	for (unsigned f = 0; f < 256; f++)
		if (mb[f] != mt[f] && f > range)
			range = f;
	uint64_t previous = 0;
	for (unsigned f = 0; f < 256; f++) {
		uint64_t symbol = zigzag((int64_t)mt[f] - mb[f]); /* 0 past the range */
		code[f] = symbol;
		if (version >= HKS_REC_VERSION_KNOT_RANKS && f <= range && symbol < KNOT_RANK_SYMBOLS) {
			uint8_t order[KNOT_RANK_SYMBOLS]; /* a permutation (hks_rec_knot_rank_table_valid) */
			knot_rank_context(knot_rank_context_of(mb, f, previous), order);
			for (code[f] = 0; code[f] + 1 < KNOT_RANK_SYMBOLS && order[code[f]] != symbol; code[f]++)
				;
		}
		count += code[f] != 0;
		previous = symbol;
	}
	*range_out = range;
	return count;
}

/* The edits turning knot vector `base` into `target` (both non-decreasing), appended to `out`, and when `cost`
 * is given what the body coder spends on them, roughly, in tenths of a bit. The coder codes every frame up to the
 * range (docs/RECORD.md "Body coding"): a frame that stores nothing for about 0.3 bits, code c for about
 * 1.8 + 1.2 c (the ranks' frequencies). The writer chooses among knot-edit tries by this, not by their bytes,
 * which count only the frames that store a code (docs/RECORD.md "Knot-edit tries by their coded cost"). */
static hks_result knot_edits_write(hks_bytebuf *out, const uint8_t *base, size_t nb, const uint8_t *target,
                                   size_t nt, unsigned version, unsigned *cost)
{
	uint64_t code[256];
	unsigned range = 0, count = knot_edit_codes(base, nb, target, nt, version, code, &range);
	if (cost) {
		*cost = 0;
		for (unsigned f = 0; f <= range && f < 256; f++)
			*cost += code[f] ? 18u + 12u * (unsigned)(code[f] < 64 ? code[f] : 64) : 3u;
	}
	if (version >= 11) /* the frames the body coder codes one by one: the original's, and any edit past them */
		HKS_TRY(hks_rec_put_varint(out, range));
	HKS_TRY(hks_rec_put_varint(out, count));
	unsigned next = 0;
	for (unsigned f = 0; f < 256; f++) {
		if (!code[f])
			continue;
		HKS_TRY(hks_rec_put_varint(out, f - next));
		HKS_TRY(hks_rec_put_varint(out, code[f]));
		next = f + 1;
	}
	return HKS_OK;
}

/* varint count, then per frame whose multiplicity differs varint gap (from the previous edited frame + 1) and
 * the zigzag varint of the difference (v19: per frame up to the range whose rank is not 0, its rank:
 * knot_rank_order) */
hks_result hks_rec_knot_edits_write(hks_bytebuf *out, const uint8_t *base, size_t nb, const uint8_t *target,
                                    size_t nt, unsigned version)
{
	return knot_edits_write(out, base, nb, target, nt, version, NULL);
}

/* Apply the edits at the cursor to `base`: the knot vector into out[0..*n) (out holds HKS_INVERT_MAX_POINTS + 4
 * ... at most `cap` knots). */
hks_result hks_rec_knot_edits_read(hks_cursor *c, const uint8_t *base, size_t nb, uint8_t *out, size_t cap, size_t *n,
                                   unsigned version)
{
	hks_ctx *ctx = c->ctx;
	int m[256];
	knot_mult(base, nb, m);
	uint64_t range = 255;
	if (version >= 11) {
		HKS_TRY(hks_rec_get_varint(c, &range, "knot edit range"));
		if (range > 255)
			return hks_fail(ctx, HKS_E_MALFORMED, hks_cursor_offset(c), "knot edits up to frame %llu",
			                (unsigned long long)range);
	}
	uint32_t count = 0;
	HKS_TRY(hks_rec_get_count(c, 256, &count, "knot edits"));
	uint64_t next = 0, code[256];
	memset(code, 0, sizeof(code));
	for (uint32_t i = 0; i < count; i++) {
		uint64_t gap = 0, z = 0;
		HKS_TRY(hks_rec_get_varint(c, &gap, "knot edit gap"));
		HKS_TRY(hks_rec_get_varint(c, &z, "knot edit"));
		int64_t d = unzigzag(z);
		if (gap > range || next + gap > range || d < -255 || d > 255 || d == 0 ||
		    (version < HKS_REC_VERSION_KNOT_RANKS && m[next + gap] + d < 0))
			return hks_fail(ctx, HKS_E_MALFORMED, hks_cursor_offset(c), "knot edit %u is impossible", i);
		if (version < HKS_REC_VERSION_KNOT_RANKS)
			m[next + gap] += (int)d;
		code[next + gap] = z;
		next += gap + 1;
	}
	if (version >= HKS_REC_VERSION_KNOT_RANKS) { /* v19: ranks, frame by frame against the try's multiplicities */
		int mb[256];
		memcpy(mb, m, sizeof(mb));
		uint64_t previous = 0;
		for (unsigned f = 0; f <= range; f++) {
			uint64_t symbol = code[f];
			if (symbol < KNOT_RANK_SYMBOLS) {
				uint8_t order[KNOT_RANK_SYMBOLS];
				knot_rank_context(knot_rank_context_of(mb, f, previous), order);
				symbol = order[symbol];
			}
			int64_t d = unzigzag(symbol);
			if (m[f] + d < 0)
				return hks_fail(ctx, HKS_E_MALFORMED, hks_cursor_offset(c), "knot edit at frame %u is impossible", f);
			m[f] += (int)d;
			previous = symbol;
		}
	}
	size_t k = 0;
	for (unsigned f = 0; f < 256; f++)
		for (int j = 0; j < m[f]; j++) {
			if (k == cap)
				return hks_fail(ctx, HKS_E_MALFORMED, hks_cursor_offset(c), "knot edits give more than %zu knots", cap);
			out[k++] = (uint8_t)f;
		}
	*n = k;
	return HKS_OK;
}

int hks_rec_knot_rank_table_valid(void)
{
	size_t rows = sizeof(knot_rank_order) / sizeof(knot_rank_order[0]);
	for (size_t i = 0; i < rows; i++) {
		if (knot_rank_order[i][0] >= 125u * KNOT_RANK_SYMBOLS || (i && knot_rank_order[i][0] <= knot_rank_order[i - 1][0]))
			return 0;
		unsigned used = 0;
		for (unsigned k = 0; k + 1 < KNOT_RANK_SYMBOLS; k++) {
			unsigned v = knot_rank_order[i][1] >> (4 * k) & 15u;
			if (v >= KNOT_RANK_SYMBOLS || (used & (1u << v)))
				return 0;
			used |= 1u << v;
		}
	}
	return 1;
}

/* ---- candidate selection (docs/RECORD.md "Candidate selection") ---------- */

/*
 * An encoding that equals the original decodes to exactly the given frames
 * (they were decoded from it), so among the candidates the predictor can
 * tell, from the frames alone, which ones may be the original: those whose
 * decoded samples equal the frames bit for bit. Each unit takes the first
 * such step (none: step 0). Step s re-encodes only the units no step before
 * it reproduced (skip_units), so the cost is one full encode plus the
 * misses of each later step. The selection depends only on the unit's own
 * frames and the record's parameters: recompress and apply agree, and an
 * edited part does not move the choice of any other.
 */
static int unit_matches(const hks_frames_in *in, const float *tbuf, const float *fbuf, uint32_t first,
                        uint32_t owned, unsigned kind, uint32_t track)
{
	static const unsigned lane0[3] = {0, 3, 7}, nlanes[3] = {3, 4, 3};
	for (uint32_t f = first; f < first + owned; f++) {
		const float *a, *b;
		unsigned n;
		if (kind == 3) {
			size_t off = (size_t)f * in->num_float_tracks + track;
			a = in->floats + off, b = fbuf + off, n = 1;
		} else {
			size_t off = ((size_t)f * in->num_transform_tracks + track) * HKS_TRACK_SAMPLE_FLOATS + lane0[kind];
			a = in->transforms + off, b = tbuf + off, n = nlanes[kind];
		}
		if (memcmp(a, b, n * sizeof(float)) != 0)
			return 0;
	}
	return 1;
}

/* Every unit step 0 does not reproduce: its verified inversion, when there is one, is the unit's candidate
 * (chosen = INV_STEP); the later steps skip it. Depends only on the unit's frames and the record's
 * parameters, like the rest of the selection. */
static hks_result select_inversions(predictor *pr, size_t n)
{
	const hks_rec_anim *rec = pr->rec;
	uint32_t T = rec->num_transform_tracks, F = rec->num_float_tracks, per = 3 * T + F;
	if (!pr->model)
		pr->model = hks_rcp_model_get((hks_cpu_model)rec->cpu);
	HKS_TRY(predictor_ws(pr));
	if (!pr->inv_arena) {
		pr->inv_arena = hks_arena_create(pr->ctx);
		if (!pr->inv_arena)
			return hks_fail_nomem(pr->ctx, 0);
	}
	pr->inv_parts = (hks_stored_part *)hks_arena_array(pr->inv_arena, n, sizeof(hks_stored_part));
	pr->inv_mbytes = (uint8_t *)hks_arena_array(pr->inv_arena, n, 1);
	pr->inv_guess = (uint8_t **)hks_arena_array(pr->inv_arena, n, sizeof(uint8_t *));
	if (!pr->inv_parts || !pr->inv_mbytes || !pr->inv_guess)
		return hks_fail_nomem(pr->ctx, 0);
	if (!pr->guessbuf.ctx)
		hks_bytebuf_init(&pr->guessbuf, pr->ctx);
	for (uint32_t b = 0; b < rec->num_blocks; b++)
		for (uint32_t u = 0; u < per; u++) {
			size_t idx = (size_t)b * per + u;
			pr->inv_guess[idx] = NULL;
			if (pr->self_exact[idx])
				continue;
			int ok = 0;
			pr->guessbuf.size = 4;
			HKS_TRY(invert_unit(pr, pr->inv_arena, b, u, &pr->inv_parts[idx], &pr->inv_mbytes[idx], &ok));
			if (pr->guessbuf.size > 4) {
				hks_put_le32(pr->guessbuf.data, (uint32_t)pr->guessbuf.size);
				pr->inv_guess[idx] = (uint8_t *)hks_arena_dup(pr->inv_arena, pr->guessbuf.data, pr->guessbuf.size);
				if (!pr->inv_guess[idx])
					return hks_fail_nomem(pr->ctx, 0);
			}
			if (ok) {
				pr->self_exact[idx] = 1;
				pr->chosen[idx] = (uint8_t)INV_STEP;
			}
		}
	return HKS_OK;
}

static hks_result select_candidates(predictor *pr)
{
	if (pr->selected)
		return HKS_OK;
	hks_ctx *ctx = pr->ctx;
	const hks_rec_anim *rec = pr->rec;
	const hks_frames_in *in = pr->in;
	uint32_t T = rec->num_transform_tracks, F = rec->num_float_tracks, per = 3 * T + F, nf = in->num_frames;
	unsigned ladder = rec->ladder_count;
	uint64_t units = 0;
	size_t tsize = 0, fsize = 0;
	if (!hks_rec_num_units(rec->num_blocks, T, F, &units) || units > SIZE_MAX / 4 ||
	    !hks_mul_size((size_t)nf * T, HKS_TRACK_SAMPLE_FLOATS * sizeof(float), &tsize) ||
	    !hks_mul_size((size_t)nf, (size_t)F * sizeof(float), &fsize))
		return hks_fail(ctx, HKS_E_LIMIT, -1, "%u blocks of %u units: too many", rec->num_blocks, per);
	size_t n = units ? (size_t)units : 1;
	if (!pr->chosen) {
		pr->chosen = (uint8_t *)hks_calloc(ctx, 3, n);
		if (!pr->chosen)
			return hks_fail_nomem(ctx, 3 * n);
		pr->num_units = n;
	}
	pr->last_step = pr->chosen + n;
	pr->self_exact = pr->chosen + 2 * n;
	float *tb = (float *)hks_malloc(ctx, tsize ? tsize : 1), *fb = (float *)hks_malloc(ctx, fsize ? fsize : 1);
	hks_result r = tb && fb ? HKS_OK : hks_fail_nomem(ctx, tsize + fsize);
	hks_sample_options so;
	memset(&so, 0, sizeof(so));
	so.base = *pr->base;
	for (unsigned step = 0; r == HKS_OK && step < ladder; step++) {
		r = predict(pr, step, step ? pr->self_exact : NULL);
		if (r == HKS_OK && pr->pred[step]->num_blocks != rec->num_blocks)
			r = hks_fail(ctx, HKS_E_MISMATCH, -1, "the prediction has %u blocks, the record %u",
			             pr->pred[step]->num_blocks, rec->num_blocks);
		if (r == HKS_OK)
			r = hks_sample_frames(pr->pred[step], &so, 0, nf, tb, fb, ctx->err);
		for (uint32_t b = 0; r == HKS_OK && b < rec->num_blocks; b++) {
			const hks_stored_block *blk = &pr->pred[step]->blocks[b];
			uint32_t owned = b + 1 == rec->num_blocks ? blk->num_frames : blk->num_frames - 1;
			for (uint32_t u = 0; u < per; u++) {
				size_t idx = (size_t)b * per + u;
				if (pr->self_exact[idx])
					continue;
				pr->last_step[idx] = (uint8_t)step;
				unsigned kind = u < 3 * T ? u % 3 : 3;
				uint32_t track = u < 3 * T ? u / 3 : u - 3 * T;
				if (unit_matches(in, tb, fb, blk->first_frame, owned, kind, track)) {
					pr->self_exact[idx] = 1;
					pr->chosen[idx] = (uint8_t)step;
				}
			}
		}
		if (r == HKS_OK && step == 0 && (rec->offsets_override & REC_INVERT_SELECT))
			r = select_inversions(pr, n);
	}
	if (tb)
		hks_free(ctx, tb, tsize ? tsize : 1);
	if (fb)
		hks_free(ctx, fb, fsize ? fsize : 1);
	if (r == HKS_OK)
		pr->selected = 1;
	return r;
}

/* Replace unit (b, u) of `s` (blocks owned by the caller) with that of `src`. */
static void take_unit(hks_stored_animation *s, const hks_stored_animation *src, uint32_t b, uint32_t u, uint32_t T)
{
	unsigned kind;
	uint8_t m0, mb;
	uint32_t track;
	const hks_stored_part *p = unit_part(src, b, u, T, &kind, &m0, &mb, &track);
	hks_stored_block *blk = &s->blocks[b];
	if (kind == 3) {
		blk->floats[track] = *p;
		blk->float_masks[track] = mb;
	} else {
		blk->tracks[track].part[kind] = *p;
		blk->tracks[track].mask[1 + kind] = mb;
	}
}

/* Entry i's part (docs/RECORD.md "Byte layout"), from the predictions, the frames and the payload; *set_m0
 * says whether mask byte 0 (translations) comes with it. An error is the record's fault, or, for an entry
 * without a hash, a sign that the unit's frames changed (assemble). */
static hks_result entry_part(predictor *pr, hks_arena *arena, canon *cn, uint32_t i, hks_stored_part *out,
                             uint8_t *out_m0, uint8_t *out_mb, int *set_m0)
{
	hks_ctx *ctx = pr->ctx;
	const hks_rec_anim *rec = pr->rec;
	uint32_t T = rec->num_transform_tracks, F = rec->num_float_tracks, per = 3 * T + F;
	const hks_stored_animation *p0 = pr->pred[0];
	const hks_rec_entry *e = &rec->entries[i];
	uint32_t b = e->index / per, u = e->index % per;
	unsigned kind;
	uint8_t m0, mb;
	uint32_t track;
	const hks_stored_part *pp = unit_part(p0, b, u, T, &kind, &m0, &mb, &track);
	hks_result r = HKS_OK;
	if (e->ladder > pr->last_step[e->index]) {
		r = hks_fail(ctx, HKS_E_MALFORMED, -1, "entry %u: step %u did not encode its part (the selection stopped at %u)",
		             i, e->ladder, pr->last_step[e->index]);
		return r;
	}
	const uint8_t *bytes = NULL;
	size_t size = 0;
	if (e->kind == HKS_REC_ENTRY_INVERTED) {
		hks_stored_part np;
		uint8_t nmb = 0;
		int iok = 0;
		r = predictor_ws(pr);
		if (r == HKS_OK && !pr->model)
			pr->model = hks_rcp_model_get((hks_cpu_model)rec->cpu);
		if (r == HKS_OK)
			r = invert_unit(pr, arena, b, u, &np, &nmb, &iok);
		if (r == HKS_OK && !iok)
			r = hks_fail(ctx, HKS_E_MALFORMED, -1, "inverted entry %u: the frames do not invert", i);
		if (r != HKS_OK)
			return r;
		if (e->payload_size) {
			/* u8 what: 1 the original mask byte follows (a rotation's per-component bits), 2 bound offsets:
			 * per spline lane, zigzag varints of the f32 bit differences of min and max */
			hks_cursor c = hks_cursor_make(ctx, e->payload, e->payload_size, 0);
			uint8_t what = 0;
			r = hks_read_u8(&c, &what, "inverted entry payload kind");
			if (r == HKS_OK && (what == 1) != (kind == 1))
				r = hks_fail(ctx, HKS_E_MALFORMED, -1, "inverted entry %u: payload kind %u for part %u", i, what, kind);
			if (r == HKS_OK && what != 1 && what != 2)
				r = hks_fail(ctx, HKS_E_MALFORMED, -1, "inverted entry %u: payload kind %u", i, what);
			if (r == HKS_OK && what == 1) {
				uint8_t m = 0;
				r = hks_read_u8(&c, &m, "mask byte");
				if (r == HKS_OK && (m & 0xF0 ? 1 : 0) != (np.flags & 0xF0 ? 1 : 0))
					r = hks_fail(ctx, HKS_E_MALFORMED, -1, "inverted entry %u: mask 0x%02X changes the part's kind", i, m);
				np.flags = m;
				nmb = m;
			}
			unsigned lanes2 = what == 2 ? (kind == 3 ? 1 : 3) : 0;
			for (unsigned l = 0; r == HKS_OK && l < lanes2; l++) {
				if (!(np.flags & (0x10u << l)) || (np.flags & (0x01u << l)))
					continue;
				uint64_t z0 = 0, z1 = 0;
				r = hks_rec_get_varint(&c, &z0, "bound offset");
				if (r == HKS_OK)
					r = hks_rec_get_varint(&c, &z1, "bound offset");
				if (r != HKS_OK)
					break;
				int64_t d0 = unzigzag(z0), d1 = unzigzag(z1);
				np.min[l] = hks_f32_from_bits((uint32_t)((int64_t)hks_f32_bits(np.min[l]) + d0));
				np.max[l] = hks_f32_from_bits((uint32_t)((int64_t)hks_f32_bits(np.max[l]) + d1));
			}
			if (r == HKS_OK && c.pos != c.size)
				r = hks_fail(ctx, HKS_E_MALFORMED, -1, "inverted entry %u: %zu bytes after its payload", i,
				             c.size - c.pos);
			if (r != HKS_OK)
				return r;
		}
		*out = np;
		*out_m0 = 0;
		*out_mb = nmb;
		*set_m0 = 0;
		return HKS_OK;
	}
	if (e->kind == HKS_REC_ENTRY_VERBATIM) {
		bytes = e->payload;
		size = e->payload_size;
	} else if (e->kind == HKS_REC_ENTRY_REFIT || e->kind == HKS_REC_ENTRY_REFIT_PATCHED ||
	           e->kind == HKS_REC_ENTRY_REFIT_INV) {
		hks_cursor c = hks_cursor_make(ctx, e->payload, e->payload_size, 0);
		uint32_t plen = 0;
		const uint8_t *prefix = NULL;
		int ok = 0, prior = refit_prior(rec);
		/* REFIT stores the prefix: it fits the payload; PATCHED: the prediction's length is checked below;
		 * REFIT_INV: the knot bytes come from the edits */
		if (e->kind == HKS_REC_ENTRY_REFIT) /* REFIT_PATCHED: the prediction's, REFIT_INV: the edits' (v8) */
			r = hks_rec_get_count(&c, e->payload_size, &plen, "refit prefix size");
		if (r == HKS_OK && e->kind == HKS_REC_ENTRY_REFIT_INV) {
			/* u8 try, knot edits of the inverter's try, the coded prefix without its degree, count and knot
			 * bytes (v8: the try gives the degree, the edits the knots and so the count and the size) */
			uint8_t t = 0;
			unsigned gd = 0, gn = 0;
			const uint8_t *gk = NULL;
			uint8_t knots[1024];
			size_t nk = 0, hb = (kind == 0) + 2u, k0 = hb + 3u;
			r = hks_read_u8(&c, &t, "inverter try");
			if (r == HKS_OK && rec_version(rec) >= 11 && (t & 0x80u)) {
				/* v11: bit 7 of the try byte selects the smooth prior for this entry's solve */
				prior = PRIOR_SMOOTH;
				t &= 0x7Fu;
			}
			uint8_t hybrid[HKS_INVERT_MAX_POINTS + 4];
			if (r == HKS_OK) {
				unsigned k2;
				uint8_t pm0, pmb;
				uint32_t t2;
				const hks_stored_part *psel = unit_part(pr->pred[e->ladder], b, u, T, &k2, &pm0, &pmb, &t2);
				if (!(pr->inv_guess &&
				      entry_try(pr->inv_guess[e->index], t, rec_version(rec), psel, hybrid, &gd, &gn, &gk)))
					r = hks_fail(ctx, HKS_E_MALFORMED, -1, "refit entry %u: the inverter tried no knot vector %u",
					             i, t);
			}
			if (r == HKS_OK)
				r = hks_rec_knot_edits_read(&c, gk, (size_t)gn + gd + 1, knots, sizeof(knots), &nk, rec_version(rec));
			if (r == HKS_OK && (nk < 2u * gd + 2u || nk - gd - 1 > 0xFFFFu))
				r = hks_fail(ctx, HKS_E_MALFORMED, -1, "refit entry %u: %zu knots of degree %u", i, nk, gd);
			const uint8_t *head = NULL, *floats = NULL;
			if (r == HKS_OK)
				r = hks_read_bytes(&c, hb, &head, "refit prefix head");
			size_t nfl = 0;
			if (r == HKS_OK) {
				uint8_t flags = kind == 3 ? (uint8_t)(head[hb - 2] & 0xF9) : head[hb - 2];
				if (!(flags & 0xF0))
					r = hks_fail(ctx, HKS_E_MALFORMED, -1, "refit entry %u: mask 0x%02X has no spline lane", i,
					             head[hb - 2]);
				for (unsigned lane = 0; kind != 1 && lane < (kind == 3 ? 1u : 3u); lane++)
					nfl += (flags & (0x01u << lane)) ? 4u : (flags & (0x10u << lane)) ? 8u : 0u;
			}
			if (r == HKS_OK)
				r = hks_read_bytes(&c, nfl, &floats, "refit prefix values");
			plen = (uint32_t)(k0 + nk + nfl);
			uint8_t *pcopy = r == HKS_OK ? (uint8_t *)hks_arena_alloc(arena, plen) : NULL;
			if (r == HKS_OK && !pcopy)
				r = hks_fail_nomem(ctx, 0);
			if (r == HKS_OK) {
				memcpy(pcopy, head, hb);
				pcopy[hb] = (uint8_t)gd;
				hks_put_le16(pcopy + hb + 1, (uint16_t)(nk - gd - 1));
				/* the knot bytes as the REFIT coding has them (differences from the previous byte) */
				for (size_t k = 0; k < nk; k++)
					pcopy[k0 + k] = (uint8_t)(k ? knots[k] - knots[k - 1] : knots[0]);
				if (nfl)
					memcpy(pcopy + k0 + nk, floats, nfl);
			}
			if (r == HKS_OK) {
				pp = unit_part(pr->pred[e->ladder], b, u, T, &kind, &m0, &mb, &track);
				r = canon_part(cn, kind, m0, mb, pp);
			}
			if (r == HKS_OK)
				prefix_transform(kind, pcopy, plen, cn->bytes.data, cn->bytes.size, 1);
			prefix = pcopy;
		} else if (r == HKS_OK && e->kind == HKS_REC_ENTRY_REFIT) {
			const uint8_t *coded = NULL;
			r = hks_read_bytes(&c, plen, &coded, "refit prefix");
			uint8_t *pcopy = r == HKS_OK ? (uint8_t *)hks_arena_dup(arena, coded, plen) : NULL;
			if (r == HKS_OK && !pcopy)
				r = hks_fail_nomem(ctx, 0);
			if (r == HKS_OK) {
				pp = unit_part(pr->pred[e->ladder], b, u, T, &kind, &m0, &mb, &track);
				r = canon_part(cn, kind, m0, mb, pp);
			}
			if (r == HKS_OK)
				prefix_transform(kind, pcopy, plen, cn->bytes.data, cn->bytes.size, 1);
			prefix = pcopy;
		} else if (r == HKS_OK) {
			/* the prefix: the prediction's (step e->ladder), of its own length (v8), patched */
			{
				pp = unit_part(pr->pred[e->ladder], b, u, T, &kind, &m0, &mb, &track);
				r = canon_part(cn, kind, m0, mb, pp);
				plen = (uint32_t)canon_prefix_size(kind, mb, pp);
			}
			if (r == HKS_OK && cn->bytes.size < plen)
				r = hks_fail(ctx, HKS_E_MALFORMED, -1, "refit entry %u: prefix of %u bytes, the prediction has %zu",
				             i, plen, cn->bytes.size);
			size_t used = 0;
			if (r == HKS_OK)
				r = diff_apply_used(ctx, cn->bytes.data, plen, e->payload + c.pos, e->payload_size - c.pos, &used);
			uint8_t *pcopy = r == HKS_OK ? (uint8_t *)hks_arena_dup(arena, cn->bytes.data, plen) : NULL;
			if (r == HKS_OK && !pcopy)
				r = hks_fail_nomem(ctx, 0);
			prefix = pcopy;
			c.pos += used;
		}
		if (r == HKS_OK)
			r = predictor_ws(pr);
		if (r == HKS_OK)
			r = refit_canon(ctx, arena, pr->ws, hks_rcp_model_get((hks_cpu_model)rec->cpu), pr->in,
			                &p0->blocks[b], b + 1 == rec->num_blocks, kind, track, prefix, plen,
			                e->kind != HKS_REC_ENTRY_REFIT_PATCHED, prior, rec_version(rec), cn, &ok);
		if (r == HKS_OK && !ok)
			r = hks_fail(ctx, HKS_E_MALFORMED, -1, "refit entry %u: the control points cannot be solved", i);
		if (r == HKS_OK)
			r = control_apply(ctx, kind, cn, plen, e->payload + c.pos, e->payload_size - c.pos, rec_version(rec));
	} else {
		pp = unit_part(pr->pred[e->ladder], b, u, T, &kind, &m0, &mb, &track);
		r = canon_part(cn, kind, m0, mb, pp);
		if (r == HKS_OK)
			r = diff_apply(ctx, cn->bytes.data, cn->bytes.size, e->payload, e->payload_size);
	}
	if (e->kind != HKS_REC_ENTRY_VERBATIM) {
		/* REFIT and DIFF leave the patched canonical form in cn: keep a copy for the parse */
		if (r != HKS_OK)
			return r;
		uint8_t *copy = (uint8_t *)hks_arena_dup(arena, cn->bytes.data, cn->bytes.size);
		if (!copy) {
			r = hks_fail_nomem(ctx, 0);
			return r;
		}
		bytes = copy;
		size = cn->bytes.size;
	}
	hks_stored_part np;
	uint8_t nm0 = 0, nmb = 0;
	hks_err_location(ctx, -1, (int32_t)b, (int32_t)track, HKS_PART_NONE);
	r = parse_canon(ctx, arena, kind, bytes, size, &np, &nm0, &nmb);
	if (r != HKS_OK)
		return r;
	*out = np;
	*out_m0 = nm0;
	*out_mb = nmb;
	*set_m0 = kind == 0;
	return HKS_OK;
}

/* Does part p (mask byte mbyte) of unit (b, kind, track) decode to the frames at every frame its block
 * owns, bit for bit (docs/RECORD.md "Hash")? Blocks longer than the verifier takes: no. */
static int part_decodes_to_frames(predictor *pr, uint32_t b, unsigned kind, uint32_t track, const hks_stored_part *p,
                                  uint8_t mbyte)
{
	const hks_stored_block *blk = &pr->pred[0]->blocks[b];
	uint32_t nf = blk->num_frames, owned = b + 1 == pr->rec->num_blocks ? nf : nf - 1;
	if (nf < 1 || nf > HKS_INVERT_MAX_FRAMES)
		return 0;
	float v[HKS_INVERT_MAX_FRAMES * 4];
	unsigned lanes = unit_lanes(pr->in, blk->first_frame, nf, kind, track, v);
	return verify_part(pr->base, kind, p, mbyte, v, lanes, nf, owned) == (1u << lanes) - 1;
}

/*
 * Prediction + record -> stored structure (in `arena`): every unit is the
 * first step's prediction unless the record has an entry whose hash matches
 * the frames; then that entry's step, patched or replaced.
 */
static hks_result assemble(predictor *pr, hks_arena *arena, hks_stored_animation **out, hks_record_apply_report *rep)
{
	hks_ctx *ctx = pr->ctx;
	const hks_rec_anim *rec = pr->rec;
	uint32_t T = rec->num_transform_tracks, F = rec->num_float_tracks, per = 3 * T + F;
	HKS_TRY(select_candidates(pr));
	const hks_stored_animation *p0 = pr->pred[0];
	hks_stored_animation *s = (hks_stored_animation *)hks_arena_alloc(arena, sizeof(*s));
	if (!s)
		return hks_fail_nomem(ctx, 0);
	*s = *p0;
	s->arena = NULL;
	s->blocks = (hks_stored_block *)hks_arena_array(arena, rec->num_blocks, sizeof(hks_stored_block));
	if (!s->blocks)
		return hks_fail_nomem(ctx, 0);
	for (uint32_t b = 0; b < rec->num_blocks; b++) {
		hks_stored_block *blk = &s->blocks[b];
		*blk = p0->blocks[b];
		blk->tracks = (hks_stored_track *)hks_arena_dup(arena, p0->blocks[b].tracks, (size_t)T * sizeof(hks_stored_track));
		blk->floats = (hks_stored_part *)hks_arena_dup(arena, p0->blocks[b].floats, (size_t)F * sizeof(hks_stored_part));
		blk->float_masks = (uint8_t *)hks_arena_dup(arena, p0->blocks[b].float_masks, F);
		if (!blk->tracks || !blk->floats || !blk->float_masks)
			return hks_fail_nomem(ctx, 0);
		for (uint32_t u = 0; u < per; u++) {
			size_t idx = (size_t)b * per + u;
			unsigned c = pr->chosen[idx];
			if (c == INV_STEP) {
				/* the inversion (mask byte 0 stays step 0's: the record's quantizations) */
				if (u < 3 * T) {
					blk->tracks[u / 3].part[u % 3] = pr->inv_parts[idx];
					blk->tracks[u / 3].mask[1 + u % 3] = pr->inv_mbytes[idx];
				} else {
					blk->floats[u - 3 * T] = pr->inv_parts[idx];
					blk->float_masks[u - 3 * T] = pr->inv_mbytes[idx];
				}
			} else if (c) {
				take_unit(s, pr->pred[c], b, u, T);
			}
		}
	}
	canon cn;
	memset(&cn, 0, sizeof(cn));
	hks_bytebuf_init(&cn.bytes, ctx);
	hks_bytebuf_init(&cn.cats, ctx);
	hks_result r = HKS_OK;
	for (uint32_t i = 0; r == HKS_OK && i < rec->num_entries; i++) {
		const hks_rec_entry *e = &rec->entries[i];
		uint32_t b = e->index / per, u = e->index % per;
		unsigned kind;
		uint8_t m0, mb;
		uint32_t track;
		(void)unit_part(p0, b, u, T, &kind, &m0, &mb, &track);
		if (e->full_hash &&
		    unit_hash(pr->in, p0->blocks[b].first_frame, p0->blocks[b].num_frames, kind, track) != e->hash) {
			if (rep)
				rep->refitted++;
			continue; /* the frames changed: keep the fresh fit */
		}
		/* an entry without a hash (v8) applies when its part decodes to the frames; when it cannot be built
		 * or does not, the frames changed: the fresh fit stays, and the error the build recorded is
		 * forgotten (docs/RECORD.md "Hash"). Edited frames give other predictions and knot vectors, against
		 * which the entry's bytes may contradict (HKS_E_MALFORMED) or run out (HKS_E_TRUNCATED); these two
		 * count, named one by one, so that a code added later is reported, not swallowed. */
		hks_error saved;
		if (ctx->err)
			saved = *ctx->err;
		hks_stored_part np;
		uint8_t nm0 = 0, nmb = 0;
		int set_m0 = 0;
		r = entry_part(pr, arena, &cn, i, &np, &nm0, &nmb, &set_m0);
		int unbuilt = r == HKS_E_MALFORMED || r == HKS_E_TRUNCATED;
		if (!e->full_hash && (unbuilt || (r == HKS_OK && !part_decodes_to_frames(pr, b, kind, track, &np, nmb)))) {
			if (ctx->err)
				*ctx->err = saved;
			r = HKS_OK;
			if (rep)
				rep->refitted++;
			continue;
		}
		if (r != HKS_OK)
			break;
		if (rep)
			rep->applied++;
		hks_stored_block *blk = &s->blocks[b];
		if (kind == 3) {
			blk->floats[track] = np;
			blk->float_masks[track] = nmb;
		} else {
			blk->tracks[track].part[kind] = np;
			blk->tracks[track].mask[1 + kind] = nmb;
			if (set_m0)
				blk->tracks[track].mask[0] = nm0;
		}
	}
	hks_bytebuf_free(&cn.bytes);
	hks_free(ctx, cn.ls, sizeof(lane_solve));
	hks_bytebuf_free(&cn.cats);
	if (r == HKS_OK)
		*out = s;
	return r;
}

static hks_result packed_from_verbatim(hks_ctx *ctx, const hks_rec_anim *rec, hks_packed_spline **out)
{
	hks_arena *arena = hks_arena_create(ctx);
	if (!arena)
		return hks_fail_nomem(ctx, 0);
	hks_packed_spline *p = (hks_packed_spline *)hks_arena_alloc(arena, sizeof(*p));
	uint32_t *bo = (uint32_t *)hks_arena_dup(arena, rec->block_offsets, (rec->num_block_offsets + 1u) * 4);
	uint32_t *fbo =
		(uint32_t *)hks_arena_dup(arena, rec->float_block_offsets, (rec->num_float_block_offsets + 1u) * 4);
	uint8_t *data = (uint8_t *)hks_arena_dup(arena, rec->data, rec->data_size);
	if (!p || !bo || !fbo || !data) {
		hks_arena_free(arena);
		return hks_fail_nomem(ctx, 0);
	}
	p->arena = arena;
	p->num_transform_tracks = (int32_t)rec->num_transform_tracks;
	p->num_float_tracks = (int32_t)rec->num_float_tracks;
	memcpy(&p->duration, &rec->duration_bits, 4);
	hks_spline_header *h = &p->header;
	h->num_frames = (int32_t)rec->num_frames;
	h->num_blocks = (int32_t)rec->num_blocks;
	h->max_frames_per_block = (int32_t)rec->max_frames_per_block;
	h->mask_and_quantization_size = hks_expected_mask_size(p->num_transform_tracks, p->num_float_tracks);
	/* the original's header durations, bit for bit */
	memcpy(&h->frame_duration, &rec->header_bits[0], 4);
	memcpy(&h->block_duration, &rec->header_bits[1], 4);
	memcpy(&h->block_inverse_duration, &rec->header_bits[2], 4);
	h->block_offsets = bo;
	h->num_block_offsets = rec->num_block_offsets;
	h->float_block_offsets = fbo;
	h->num_float_block_offsets = rec->num_float_block_offsets;
	h->data = data;
	h->data_size = rec->data_size;
	hks_arena_set_ctx(arena, NULL);
	*out = p;
	return HKS_OK;
}

static hks_result check_frames(hks_ctx *ctx, const hks_frames_in *in, const hks_rec_anim *rec)
{
	float d;
	memcpy(&d, &rec->duration_bits, 4);
	if (in->num_frames != rec->num_frames || in->num_transform_tracks != rec->num_transform_tracks ||
	    in->num_float_tracks != rec->num_float_tracks)
		return hks_fail(ctx, HKS_E_MISMATCH, -1,
		                "the frames (%u frames, %u + %u tracks) do not fit the record (%u frames, %u + %u tracks)",
		                in->num_frames, in->num_transform_tracks, in->num_float_tracks, rec->num_frames,
		                rec->num_transform_tracks, rec->num_float_tracks);
	(void)d;
	return HKS_OK;
}

static hks_result apply_parsed(hks_ctx *ctx, const hks_options *base, const hks_frames_in *in,
                               const hks_rec_anim *rec, predictor *pr, hks_packed_spline **out,
                               hks_record_apply_report *rep)
{
	if (rec->kind == HKS_REC_ANIM_VERBATIM) {
		HKS_TRY(packed_from_verbatim(ctx, rec, out));
		if (rep)
			rep->data_matches = 1;
		return HKS_OK;
	}
	hks_arena *arena = hks_arena_create(ctx);
	if (!arena)
		return hks_fail_nomem(ctx, 0);
	(void)in;
	hks_stored_animation *s = NULL;
	hks_result r = assemble(pr, arena, &s, rep);
	if (r == HKS_OK) {
		hks_pack_options po;
		memset(&po, 0, sizeof(po));
		po.base = *base;
		po.guard = rec->guard;
		r = hks_stored_pack(s, &po, out, ctx->err);
	}
	if (r == HKS_OK && (rec->offsets_override & 7)) {
		hks_spline_header *h = &(*out)->header;
		hks_arena_set_ctx((*out)->arena, ctx);
		if (rec->offsets_override & 1) {
			uint32_t *v = (uint32_t *)hks_arena_dup((*out)->arena, rec->block_offsets, 4u * rec->num_block_offsets + 4u);
			if (!v)
				r = hks_fail_nomem(ctx, 0);
			else
				h->block_offsets = v, h->num_block_offsets = rec->num_block_offsets;
		}
		if (r == HKS_OK && (rec->offsets_override & 2)) {
			uint32_t *v =
				(uint32_t *)hks_arena_dup((*out)->arena, rec->float_block_offsets, 4u * rec->num_float_block_offsets + 4u);
			if (!v)
				r = hks_fail_nomem(ctx, 0);
			else
				h->float_block_offsets = v, h->num_float_block_offsets = rec->num_float_block_offsets;
		}
		if (rec->offsets_override & 4) {
			memcpy(&h->frame_duration, &rec->header_bits[0], 4);
			memcpy(&h->block_duration, &rec->header_bits[1], 4);
			memcpy(&h->block_inverse_duration, &rec->header_bits[2], 4);
		}
		hks_arena_set_ctx((*out)->arena, NULL);
		if (r != HKS_OK) {
			hks_packed_spline_free(*out);
			*out = NULL;
		}
	}
	if (r == HKS_OK && rep) {
		/* version 12 keeps the hash's low 32 bits (docs/RECORD.md "Hash") */
		uint64_t mask = hks_rec_data_hash_mask(rec_version(rec));
		uint64_t h = hks_record_hash(HKS_RECORD_HASH_SEED, (*out)->header.data, (*out)->header.data_size);
		/* version 12 keeps no data size for a prediction: the hash alone */
		rep->data_matches = (rec_version(rec) >= 12 || (*out)->header.data_size == rec->data_size) &&
		                    (h & mask) == (rec->data_hash & mask);
	}
	hks_arena_free(arena);
	return r;
}

hks_result hks_recompress_apply(const hks_frames_in *frames, const void *record, size_t record_size,
                                const hks_recompress_options *opts, hks_packed_spline **out,
                                hks_record_apply_report *report, hks_error *err)
{
	static const hks_recompress_options zero;
	if (!opts)
		opts = &zero;
	hks_ctx ctx;
	hks_ctx_init(&ctx, &opts->base, record_size, err);
	if (!frames || !out || (!record && record_size))
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_recompress_apply: NULL argument");
	*out = NULL;
	if (report)
		memset(report, 0, sizeof(*report));
	hks_arena *arena = hks_arena_create(&ctx);
	if (!arena)
		return hks_fail_nomem(&ctx, 0);
	hks_rec_anim rec;
	hks_result r = hks_rec_read(&ctx, arena, (const uint8_t *)record, record_size, &rec);
	if (r == HKS_OK)
		r = check_frames(&ctx, frames, &rec);
	if (r == HKS_OK && rec.kind == HKS_REC_ANIM_PREDICTED && !hks_rcp_model_get((hks_cpu_model)rec.cpu))
		r = hks_fail(&ctx, HKS_E_MALFORMED, -1, "record: CPU model %u is not available", rec.cpu);
	if (report)
		report->entries = rec.num_entries;
	predictor pr;
	memset(&pr, 0, sizeof(pr));
	pr.ctx = &ctx;
	pr.base = &opts->base;
	pr.in = frames;
	pr.rec = &rec;
	if (r == HKS_OK)
		r = apply_parsed(&ctx, &opts->base, frames, &rec, &pr, out, report);
	predictor_free(&pr);
	hks_arena_free(arena);
	return r;
}

/* ---- building the record ------------------------------------------------- */

static void collect_lanes(const hks_stored_part *p, unsigned lanes, hks_quant_lane *v, size_t *n, size_t cap)
{
	if (!p->is_spline || p->quantization != 1 || !p->spline_lanes || !p->control_points)
		return;
	unsigned s = 0;
	for (unsigned lane = 0; lane < lanes; lane++) {
		if (!(p->flags & (0x10u << lane)))
			continue;
		uint16_t top = 0;
		for (uint32_t j = 0; j < p->num_control_points; j++) {
			uint16_t x = p->control_points[(size_t)j * p->spline_lanes + s];
			if (x > top)
				top = x;
		}
		s++;
		/* FORMAT.md §3.1: equal or non-finite bounds say nothing */
		if (*n < cap && p->min[lane] < p->max[lane] && isfinite(p->min[lane]) && isfinite(p->max[lane]))
			v[(*n)++] = (hks_quant_lane){p->min[lane], p->max[lane], top};
	}
}

static hks_result detect_model(hks_ctx *ctx, const hks_stored_animation *s, const char *sdk, hks_cpu_model *out)
{
	uint64_t cap = 0;
	uint32_t T = (uint32_t)s->num_transform_tracks, F = (uint32_t)s->num_float_tracks;
	cap = (uint64_t)s->num_blocks * (6u * T + F);
	if (cap > 1u << 24)
		cap = 1u << 24;
	hks_quant_lane *v = (hks_quant_lane *)hks_malloc(ctx, (size_t)(cap ? cap : 1) * sizeof(*v));
	if (!v)
		return hks_fail_nomem(ctx, 0);
	size_t n = 0;
	for (uint32_t b = 0; b < s->num_blocks; b++) {
		for (uint32_t t = 0; t < T; t++) {
			collect_lanes(&s->blocks[b].tracks[t].part[0], 3, v, &n, (size_t)cap);
			collect_lanes(&s->blocks[b].tracks[t].part[2], 3, v, &n, (size_t)cap);
		}
		for (uint32_t i = 0; i < F; i++)
			collect_lanes(&s->blocks[b].floats[i], 1, v, &n, (size_t)cap);
	}
	hks_detect_result det;
	hks_detect_cpu_model(v, n, hks_cpu_model_for_sdk(sdk), &det);
	hks_free(ctx, v, (size_t)(cap ? cap : 1) * sizeof(*v));
	*out = det.model;
	return HKS_OK;
}

static int packed_equals(const hks_packed_spline *p, const hks_spline_header *h)
{
	const hks_spline_header *q = &p->header;
	return q->data_size == h->data_size && (!h->data_size || memcmp(q->data, h->data, h->data_size) == 0) &&
	       q->num_block_offsets == h->num_block_offsets &&
	       (!h->num_block_offsets || memcmp(q->block_offsets, h->block_offsets, 4u * h->num_block_offsets) == 0) &&
	       q->num_float_block_offsets == h->num_float_block_offsets &&
	       (!h->num_float_block_offsets ||
	        memcmp(q->float_block_offsets, h->float_block_offsets, 4u * h->num_float_block_offsets) == 0);
}

static int durations_equal(const hks_packed_spline *p, const hks_spline_header *h)
{
	return hks_f32_bits(p->header.frame_duration) == hks_f32_bits(h->frame_duration) &&
	       hks_f32_bits(p->header.block_duration) == hks_f32_bits(h->block_duration) &&
	       hks_f32_bits(p->header.block_inverse_duration) == hks_f32_bits(h->block_inverse_duration);
}

typedef struct builder {
	hks_ctx *ctx;
	hks_arena *arena;         /* entries and payloads */
	hks_rec_entry *entries;
	uint32_t num_entries, cap;
} builder;

/* Whether an INVERTED entry keeps its unit's hash. Up to version 13 always: an inversion decodes to
 * whatever frames it is made from, so the hash was what kept it off edited frames. Since version 14 it
 * keeps none when the original part decodes to the frames (docs/RECORD.md "Hash"): apply then takes the
 * entry only when the part it builds, the inversion of the unit's frames with the entry's bounds or mask,
 * decodes to those frames bit for bit. On unedited frames that is the original; on edited frames it is
 * an exact encoding of the edited frames or nothing (the fresh fit stays), as for every hash-free entry.
 * The 4 hash bytes are incompressible. `verified`: the original is the inversion itself, which the
 * inverter verified on these frames, so the sampler need not run again. */
static int inverted_needs_hash(predictor *pr, uint32_t b, unsigned kind, uint32_t track, const hks_stored_part *op,
                               uint8_t mb, int verified)
{
	return rec_version(pr->rec) < HKS_REC_VERSION_HASHLESS_INVERTED ||
	       (!verified && !part_decodes_to_frames(pr, b, kind, track, op, mb));
}

static hks_result add_entry(builder *bd, const hks_rec_entry *e, const hks_bytebuf *payload)
{
	if (bd->num_entries == bd->cap) {
		uint32_t nc = bd->cap ? bd->cap * 2 : 64;
		hks_rec_entry *ne = (hks_rec_entry *)hks_arena_array(bd->arena, nc, sizeof(*ne));
		if (!ne)
			return hks_fail_nomem(bd->ctx, 0);
		if (bd->num_entries)
			memcpy(ne, bd->entries, bd->num_entries * sizeof(*ne));
		bd->entries = ne;
		bd->cap = nc;
	}
	hks_rec_entry *d = &bd->entries[bd->num_entries++];
	*d = *e;
	d->payload = NULL;
	d->payload_size = (uint32_t)payload->size;
	if (payload->size) {
		uint8_t *p = (uint8_t *)hks_arena_dup(bd->arena, payload->data, payload->size);
		if (!p)
			return hks_fail_nomem(bd->ctx, 0);
		d->payload = p;
	}
	return HKS_OK;
}

/* Compare every unit with the predictions and collect the entries. */
static hks_result build_entries(builder *bd, predictor *pr, const hks_stored_animation *orig,
                                hks_recompress_report *rep)
{
	hks_ctx *ctx = bd->ctx;
	uint32_t T = (uint32_t)orig->num_transform_tracks, F = (uint32_t)orig->num_float_tracks, per = 3 * T + F;
	canon co, cp, cq, cs;
	memset(&co, 0, sizeof(co));
	memset(&cp, 0, sizeof(cp));
	memset(&cq, 0, sizeof(cq));
	memset(&cs, 0, sizeof(cs));
	hks_bytebuf_init(&cs.bytes, ctx);
	hks_bytebuf_init(&cs.cats, ctx);
	hks_bytebuf_init(&cq.bytes, ctx);
	hks_bytebuf_init(&cq.cats, ctx);
	hks_bytebuf_init(&co.bytes, ctx);
	hks_bytebuf_init(&co.cats, ctx);
	hks_bytebuf_init(&cp.bytes, ctx);
	hks_bytebuf_init(&cp.cats, ctx);
	co.with_cats = 1;
	hks_bytebuf best, trial, tail, full;
	hks_bytebuf_init(&best, ctx);
	hks_bytebuf_init(&trial, ctx);
	hks_bytebuf_init(&tail, ctx);
	hks_bytebuf_init(&full, ctx);
	hks_result r = HKS_OK;
	for (uint32_t b = 0; r == HKS_OK && b < orig->num_blocks; b++) {
		for (uint32_t u = 0; r == HKS_OK && u < per; u++) {
			unsigned kind;
			uint8_t m0, mb;
			uint32_t track;
			const hks_stored_part *op = unit_part(orig, b, u, T, &kind, &m0, &mb, &track);
			r = canon_part(&co, kind, m0, mb, op);
			if (r != HKS_OK)
				break;
			rep->parts++;
			uint8_t oflags = kind == 3 ? (uint8_t)(mb & 0xF9) : mb;
			int ospline = (oflags & 0xF0) != 0;
			unsigned hidden = 0;
			if (ospline) {
				rep->spline_parts[kind]++;
				uint32_t owned = b + 1 == orig->num_blocks ? orig->blocks[b].num_frames : orig->blocks[b].num_frames - 1;
				if (op->is_spline)
					hidden = hks_invert_undetermined(op->knots, op->num_control_points, op->degree, owned);
				rep->hidden_points += hidden;
				rep->hidden_point_parts += hidden != 0;
			}
			/* the selected candidate decides "exact" and the first difference */
			size_t idx = (size_t)b * per + u;
			unsigned sel = pr->chosen[idx], last = pr->last_step[idx];
			int isel = sel == INV_STEP; /* the inversion is the candidate (entries then refer to step 0) */
			if (isel)
				sel = 0;
			{
				unsigned k2;
				uint8_t pm0, pmb;
				uint32_t t2;
				const hks_stored_part *pp = unit_part(pr->pred[sel], b, u, T, &k2, &pm0, &pmb, &t2);
				if (isel) {
					pp = &pr->inv_parts[idx];
					pmb = pr->inv_mbytes[idx];
				}
				r = canon_part(&cp, kind, pm0, pmb, pp);
				if (r != HKS_OK)
					break;
				if (isel && cp.bytes.size == co.bytes.size && memcmp(cp.bytes.data, co.bytes.data, co.bytes.size) == 0) {
					rep->inverted_parts++;
					if (ospline)
						rep->inverted_spline_parts++;
					rep->hidden_point_parts_exact += hidden != 0;
					continue; /* the selected inversion reproduces the part: no entry */
				}
				if (cp.bytes.size == co.bytes.size && memcmp(cp.bytes.data, co.bytes.data, co.bytes.size) == 0) {
					rep->parts_exact++;
					if (ospline) {
						rep->spline_parts_exact[kind]++;
						rep->spline_parts_exact_step[sel]++;
					}
					rep->hidden_point_parts_exact += hidden != 0;
					continue; /* the selected candidate reproduces the part: no entry */
				}
				/* first differing byte's field */
				size_t n = cp.bytes.size < co.bytes.size ? cp.bytes.size : co.bytes.size, i = 0;
				while (i < n && cp.bytes.data[i] == co.bytes.data[i])
					i++;
				rep->first_diff[i < co.bytes.size ? co.cats.data[i] : HKS_DIFF_MASK]++;
				if (pr->self_exact[idx])
					rep->self_exact_wrong++;
			}
			/* the inverter: the part recovered from its frames, when it equals the original */
			{
				hks_stored_part np;
				uint8_t nmb = 0;
				int iok = 0;
				if (pr->inv_parts && (isel || !pr->self_exact[idx])) {
					/* the selection inverted every unit step 0 did not reproduce: its result, not a second
					 * run (a unit step 0 decodes identically but wrongly was not inverted there) */
					iok = isel;
					if (isel) {
						np = pr->inv_parts[idx];
						nmb = pr->inv_mbytes[idx];
					}
				} else {
					r = invert_unit(pr, bd->arena, b, u, &np, &nmb, &iok);
				}
				if (r != HKS_OK)
					break;
				if (iok) {
					rep->inverted_units++;
					/* mask byte 0 as assemble leaves it: the step-0 prediction's (the record's quantizations) */
					uint8_t nm0 = pr->pred[0]->blocks[b].tracks && kind != 3 ? pr->pred[0]->blocks[b].tracks[track].mask[0] : 0;
					r = canon_part(&cp, kind, nm0, nmb, &np);
					if (r != HKS_OK)
						break;
					if (cp.bytes.size == co.bytes.size && memcmp(cp.bytes.data, co.bytes.data, co.bytes.size) == 0) {
						hks_rec_entry e;
						memset(&e, 0, sizeof(e));
						e.index = b * per + u;
						e.hash = unit_hash(pr->in, orig->blocks[b].first_frame, orig->blocks[b].num_frames, kind,
						                   track);
						e.kind = HKS_REC_ENTRY_INVERTED;
						e.full_hash = inverted_needs_hash(pr, b, kind, track, op, mb, 1);
						best.size = 0;
						rep->inverted_parts++;
						if (ospline)
							rep->inverted_spline_parts++;
						rep->hidden_point_parts_exact += hidden != 0;
						r = add_entry(bd, &e, &best);
						if (r != HKS_OK)
							break;
						continue;
					}
					/* frames identical, bytes not: an ambiguity, by the first differing field */
					size_t n2 = cp.bytes.size < co.bytes.size ? cp.bytes.size : co.bytes.size, i2 = 0;
					while (i2 < n2 && cp.bytes.data[i2] == co.bytes.data[i2])
						i2++;
					hks_diff_category cat = i2 < co.bytes.size ? (hks_diff_category)co.cats.data[i2] : HKS_DIFF_MASK;
					rep->inverted_wrong++;
					rep->inverted_ambiguity[cat]++;
					/* bounds that decode identically (the original's as f32 bit offsets, a few bits per lane) and
					 * rotation mask bits the frames cannot see: an inverted entry with those as its payload */
					if ((cat == HKS_DIFF_BOUND && kind != 1 && np.flags == op->flags && np.is_spline) ||
					    (cat == HKS_DIFF_MASK && kind == 1 && (np.flags & 0xF0 ? 1 : 0) == (op->flags & 0xF0 ? 1 : 0))) {
						best.size = 0;
						uint8_t what = cat == HKS_DIFF_MASK ? 1 : 2;
						r = hks_bytebuf_append(&best, &what, 1);
						if (r == HKS_OK && what == 1) {
							r = hks_bytebuf_append(&best, &mb, 1);
							np.flags = mb;
							nmb = mb;
						}
						unsigned lanes2 = what == 2 ? (kind == 3 ? 1 : 3) : 0;
						for (unsigned l = 0; r == HKS_OK && l < lanes2; l++) {
							if (!(np.flags & (0x10u << l)) || (np.flags & (0x01u << l)))
								continue;
							int64_t d0 = (int64_t)hks_f32_bits(op->min[l]) - (int64_t)hks_f32_bits(np.min[l]);
							int64_t d1 = (int64_t)hks_f32_bits(op->max[l]) - (int64_t)hks_f32_bits(np.max[l]);
							r = hks_rec_put_varint(&best, zigzag(d0));
							if (r == HKS_OK)
								r = hks_rec_put_varint(&best, zigzag(d1));
							np.min[l] = op->min[l];
							np.max[l] = op->max[l];
						}
						if (r == HKS_OK)
							r = canon_part(&cp, kind, nm0, nmb, &np);
						if (r != HKS_OK)
							break;
						if (cp.bytes.size == co.bytes.size && memcmp(cp.bytes.data, co.bytes.data, co.bytes.size) == 0) {
							hks_rec_entry e;
							memset(&e, 0, sizeof(e));
							e.index = b * per + u;
							e.hash = unit_hash(pr->in, orig->blocks[b].first_frame, orig->blocks[b].num_frames, kind,
							                   track);
							e.kind = HKS_REC_ENTRY_INVERTED;
							e.full_hash = inverted_needs_hash(pr, b, kind, track, op, mb, 0);
							if (what == 1)
								rep->inverted_mask_parts++;
							else
								rep->inverted_bound_parts++;
							r = add_entry(bd, &e, &best);
							if (r != HKS_OK)
								break;
							continue;
						}
					}
				}
			}
			int chosen = -1, chosen_kind = HKS_REC_ENTRY_VERBATIM;
			best.size = 0;
			/* other steps (those that encoded the unit) as a DIFF base */
			for (unsigned step = 0; r == HKS_OK && step <= last; step++) {
				unsigned k2;
				uint8_t pm0, pmb;
				uint32_t t2;
				const hks_stored_part *pp = unit_part(pr->pred[step], b, u, T, &k2, &pm0, &pmb, &t2);
				r = canon_part(&cp, kind, pm0, pmb, pp);
				if (r != HKS_OK)
					break;
				int same_len = cp.bytes.size == co.bytes.size;
				int equal = same_len && memcmp(cp.bytes.data, co.bytes.data, co.bytes.size) == 0;
				if (equal) {
					chosen = (int)step;
					chosen_kind = HKS_REC_ENTRY_DIFF;
					best.size = 0;
					r = hks_rec_put_varint(&best, 0);
					break;
				}
				if (!same_len)
					continue;
				trial.size = 0;
				r = diff_encode(&trial, cp.bytes.data, co.bytes.data, co.bytes.size);
				if (r == HKS_OK && trial.size < co.bytes.size &&
				    (chosen < 0 || chosen_kind == HKS_REC_ENTRY_VERBATIM || trial.size < best.size)) {
					chosen = (int)step;
					chosen_kind = HKS_REC_ENTRY_DIFF;
					best.size = 0;
					r = hks_bytebuf_append(&best, trial.data, trial.size);
				}
			}
			if (r != HKS_OK)
				break;
			/* REFIT: the original's header, knots and bounds; control points solved from the frames */
			int refit = 0, hybrid_chosen = 0;
			unsigned refit_step = 0;
			size_t current = chosen < 0 ? co.bytes.size + 2 : best.size;
			if (ospline && current > 8) {
				size_t plen = canon_prefix_size(kind, mb, op);
				int ok = 0;
				if (plen <= co.bytes.size)
					r = refit_canon(ctx, bd->arena, pr->ws, pr->model, pr->in, &orig->blocks[b],
					                b + 1 == orig->num_blocks, kind, track, co.bytes.data, plen, 0, refit_prior(pr->rec),
					                rec_version(pr->rec), &cp, &ok);
				if (r == HKS_OK && ok && cp.bytes.size == co.bytes.size) {
					/* the selected step's prediction of this part: the base of the prefix transforms below
					 * and (v16) of the hybrid tries */
					unsigned sel_kind;
					uint8_t sel_m0, sel_mb;
					uint32_t sel_track;
					const hks_stored_part *psel =
						unit_part(pr->pred[sel], b, u, T, &sel_kind, &sel_m0, &sel_mb, &sel_track);
					r = canon_part(&cq, kind, sel_m0, sel_mb, psel);
					trial.size = 0;
					if (r == HKS_OK)
						r = hks_rec_put_varint(&trial, plen);
					size_t at = trial.size;
					if (r == HKS_OK)
						r = hks_bytebuf_append(&trial, co.bytes.data, plen);
					if (r == HKS_OK) {
						prefix_transform(kind, trial.data + at, plen, cq.bytes.data, cq.bytes.size, 0);
						/* the solve on the original's knots just made (refit_canon above) */
						bound_offsets(kind, trial.data + at, plen, (const double (*)[4])pr->ws->P, op->num_control_points, 0,
						              pr->model, rec_version(pr->rec));
					}
					if (r == HKS_OK)
						r = control_encode(&trial, kind, &cp, co.bytes.data, co.bytes.size, plen, rec_version(pr->rec));
					if (r == HKS_OK && trial.size < current) {
						refit = 1;
						r = take_trial(&best, &trial, &current);
					}
					/* the prefix as a patch of a step's prediction with the same prefix length */
					for (unsigned step = 0; r == HKS_OK && step <= last; step++) {
						unsigned k2;
						uint8_t pm0, pmb;
						uint32_t t2;
						const hks_stored_part *pp = unit_part(pr->pred[step], b, u, T, &k2, &pm0, &pmb, &t2);
						r = canon_part(&cq, kind, pm0, pmb, pp);
						if (r != HKS_OK || cq.bytes.size < plen || canon_prefix_size(kind, pmb, pp) != plen)
							continue;
						trial.size = 0;
						r = diff_encode(&trial, cq.bytes.data, co.bytes.data, plen);
						if (r == HKS_OK)
							r = control_encode(&trial, kind, &cp, co.bytes.data, co.bytes.size, plen, rec_version(pr->rec));
						if (r == HKS_OK && trial.size < current) {
							refit = 2;
							refit_step = step;
							r = take_trial(&best, &trial, &current);
						}
					}
					/* REFIT_INV: the knots as edits of a knot vector the inverter tried (v4). What follows the
					 * edits (the prefix without its knots, the corrections) does not depend on the try: made
					 * once per prior. v11: degree 3 also tries the smooth prior, named by bit 7 of the try
					 * byte (docs/RECORD.md "Version 11"). */
					size_t k0 = (kind == 0) + 5u, nk = op->num_knots;
					unsigned max_tries = rec_version(pr->rec) >= 11 ? 128u : 256u; /* the try byte's range */
					int tries = pr->inv_guess && k0 + nk <= plen && nk <= 1024 &&
					            guess_has_degree(pr->inv_guess[idx], op->degree, max_tries);
					unsigned priors = rec_version(pr->rec) >= 11 && op->degree == 3 ? 2u : 1u;
					/* per prior: the prefix with its bounds as offsets from that prior's solve, its knot bytes
					 * still in and its static values not yet XORed with a prediction, then the corrections; the
					 * smaller is kept (full). The two transforms touch different bytes (static values, bounds). */
					size_t tail_size = 0;
					uint8_t tail_prior = 0;
					for (unsigned pi = 0; r == HKS_OK && tries && pi < priors; pi++) {
						const canon *solved = &cp;
						if (pi) { /* the smooth prior's solve (the polyline's is cp, made above) */
							int ok2 = 0;
							r = refit_canon(ctx, bd->arena, pr->ws, pr->model, pr->in, &orig->blocks[b],
							                b + 1 == orig->num_blocks, kind, track, co.bytes.data, plen, 0,
							                PRIOR_SMOOTH, rec_version(pr->rec), &cs, &ok2);
							if (r != HKS_OK || !ok2 || cs.bytes.size != co.bytes.size)
								break;
							solved = &cs;
						}
						trial.size = 0;
						r = hks_bytebuf_append(&trial, co.bytes.data, plen);
						if (r == HKS_OK) {
							bound_offsets(kind, trial.data, plen, (const double (*)[4])pr->ws->P,
							              op->num_control_points, 0, pr->model, rec_version(pr->rec));
							r = control_encode(&trial, kind, solved, co.bytes.data, co.bytes.size, plen,
							                   rec_version(pr->rec));
						}
						if (r == HKS_OK && (pi == 0 || trial.size < full.size)) {
							full.size = 0;
							r = hks_bytebuf_append(&full, trial.data, trial.size);
							tail_size = trial.size - nk - 3;
							tail_prior = (uint8_t)(pi ? 0x80u : 0u);
						}
					}
					const uint8_t *gk;
					unsigned gd, gn;
					/* v11: knot edits code far smaller than their bytes say (frame by frame, docs/RECORD.md
					 * "Body coding"), so they win within REFIT_INV_SLACK bytes of another kind */
					if (rec_version(pr->rec) >= 11)
						current += REFIT_INV_SLACK;
					uint8_t hybrid[HKS_INVERT_MAX_POINTS + 4];
					unsigned best_edit_cost = 0;
					/* the real tries, then (v16) the hybrids; a missing hybrid is skipped */
					unsigned G = tries ? guess_count(pr->inv_guess[idx]) : 0u;
					unsigned ntries = tries ? G + (rec_version(pr->rec) >= 16 ? HYBRID_TRIES : 0u) : 0u;
					/* the selected step's prediction first; from version 18 then the other steps' (docs/RECORD.md
					 * "Two ladder steps since version 18"), whose hybrids differ. The tail's length is the same
					 * for every step (only its static values' XOR base changes), so a real try, whose edits do
					 * not depend on the step, never wins for a later one: those take only their hybrids. */
					unsigned nsteps = rec_version(pr->rec) >= HKS_REC_VERSION_TWO_STEPS ? last + 1u : 1u;
					for (unsigned si = 0; r == HKS_OK && tail_size && si < nsteps; si++) {
						unsigned xs = si == 0 ? sel : si <= sel ? si - 1u : si;
						unsigned xs_kind;
						uint8_t xs_m0 = sel_m0, xs_mb = sel_mb;
						uint32_t xs_track;
						const hks_stored_part *pxs = psel;
						if (si) {
							pxs = unit_part(pr->pred[xs], b, u, T, &xs_kind, &xs_m0, &xs_mb, &xs_track);
							if (!pxs || !pxs->is_spline || (pxs->degree != 1 && pxs->degree != 3))
								continue; /* no hybrid from this prediction (hybrid_knots) */
						}
						r = canon_part(&cq, kind, xs_m0, xs_mb, pxs);
						tail.size = 0;
						if (r == HKS_OK)
							r = hks_bytebuf_append(&tail, full.data, full.size);
						if (r != HKS_OK)
							break;
						prefix_transform(kind, tail.data, plen, cq.bytes.data, cq.bytes.size, 0);
						/* cut the degree, count and knot bytes out: the try and the edits give them */
						memmove(tail.data + k0 - 3, tail.data + k0 + nk, tail.size - k0 - nk);
						tail.size -= nk + 3;
						for (unsigned t = si ? G : 0u; r == HKS_OK && t < ntries; t++) {
							if (!entry_try(pr->inv_guess[idx], t, rec_version(pr->rec), pxs, hybrid, &gd, &gn, &gk))
								continue;
							if (gd != op->degree || t >= max_tries)
								continue;
							trial.size = 0;
							uint8_t tb = (uint8_t)(t | tail_prior);
							r = hks_bytebuf_append(&trial, &tb, 1);
							unsigned cost = 0;
							if (r == HKS_OK)
								r = knot_edits_write(&trial, gk, (size_t)gn + gd + 1, co.bytes.data + k0, nk,
								                     rec_version(pr->rec), &cost);
							if (r == HKS_OK)
								r = hks_bytebuf_append(&trial, tail.data, tail.size);
							/* the first knot-edit try must beat the other kinds by bytes (within REFIT_INV_SLACK);
							 * then the tries, whose tails have one length, compete by the coder's cost of their
							 * edits, a try other than the first paying 4 bits more for its try byte */
							cost += t ? 40u : 0u;
							int better = refit == 3 ? cost < best_edit_cost : trial.size < current;
							if (r == HKS_OK && better) {
								best_edit_cost = cost;
								refit = 3;
								refit_step = xs;
								hybrid_chosen = t >= G;
								r = take_trial(&best, &trial, &current);
							}
						}
					}
				}
				if (r != HKS_OK)
					break;
			}
			hks_rec_entry e;
			memset(&e, 0, sizeof(e));
			e.index = b * per + u;
			e.hash = unit_hash(pr->in, orig->blocks[b].first_frame, orig->blocks[b].num_frames, kind, track);
			/* no hash when the original decodes to the frames: apply then verifies the part it builds */
			e.full_hash = !part_decodes_to_frames(pr, b, kind, track, op, mb);
			if (refit) {
				e.kind = refit == 3   ? HKS_REC_ENTRY_REFIT_INV
				         : refit == 2 ? HKS_REC_ENTRY_REFIT_PATCHED
				                      : HKS_REC_ENTRY_REFIT;
				e.ladder = (uint8_t)(refit >= 2 ? refit_step : sel);
				if (refit == 3) {
					rep->refit_inv_parts++;
					rep->refit_inv_smooth_parts += best.size && (best.data[0] & 0x80u);
					rep->refit_inv_hybrid_parts += hybrid_chosen;
				}
				rep->refit_parts++;
			} else if (chosen < 0) {
				e.kind = HKS_REC_ENTRY_VERBATIM;
				e.ladder = 0;
				best.size = 0;
				r = hks_bytebuf_append(&best, co.bytes.data, co.bytes.size);
				rep->verbatim_parts++;
			} else {
				e.kind = HKS_REC_ENTRY_DIFF;
				e.ladder = (uint8_t)chosen;
			}
			if (r == HKS_OK)
				r = add_entry(bd, &e, &best);
		}
	}
	hks_bytebuf_free(&co.bytes);
	hks_free(ctx, co.ls, sizeof(lane_solve));
	hks_bytebuf_free(&co.cats);
	hks_bytebuf_free(&cp.bytes);
	hks_free(ctx, cp.ls, sizeof(lane_solve));
	hks_bytebuf_free(&cp.cats);
	hks_bytebuf_free(&cq.bytes);
	hks_free(ctx, cq.ls, sizeof(lane_solve));
	hks_bytebuf_free(&cq.cats);
	hks_bytebuf_free(&cs.bytes);
	hks_free(ctx, cs.ls, sizeof(lane_solve));
	hks_bytebuf_free(&cs.cats);
	hks_bytebuf_free(&best);
	hks_bytebuf_free(&trial);
	hks_bytebuf_free(&tail);
	hks_bytebuf_free(&full);
	return r;
}

hks_result hks_recompress(const hks_animation *anim, const hks_recompress_options *opts, uint8_t **record,
                          size_t *record_size, hks_packed_spline **prediction, hks_recompress_report *report,
                          hks_error *err)
{
	return hks_recompress_version(anim, opts, HKS_RECORD_VERSION, record, record_size, prediction, report, err);
}

hks_result hks_recompress_version(const hks_animation *anim, const hks_recompress_options *opts, unsigned version,
                                  uint8_t **record, size_t *record_size, hks_packed_spline **prediction,
                                  hks_recompress_report *report, hks_error *err)
{
	static const hks_recompress_options zero;
	if (!opts)
		opts = &zero;
	hks_ctx ctx;
	hks_ctx_init(&ctx, &opts->base, anim ? anim->spline.data_size : 0, err);
	if (record)
		*record = NULL;
	if (record_size)
		*record_size = 0;
	if (prediction)
		*prediction = NULL;
	if (!anim || anim->kind != HKS_ANIMATION_SPLINE)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_recompress: not a spline animation");
	if (version < 9 || version > HKS_RECORD_VERSION)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_recompress: writes record versions 9 to %d, not %u",
		                HKS_RECORD_VERSION, version);
	hks_recompress_report rep;
	memset(&rep, 0, sizeof(rep));
	/* the default ladder is the steps a record of the version has when its head does not say (record.h): one up
	 * to version 17 (with the inversion selected after step 0 the later steps made few parts exact and the record
	 * larger: "Figures", session 4), two from version 18, whose REFIT_INV entries may take the second step's
	 * hybrid tries (docs/RECORD.md "Two ladder steps since version 18") */
	unsigned ladder = opts->ladder ? opts->ladder : hks_rec_implied_steps(version);
	if (ladder > HKS_RECORD_LADDER_MAX)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "ladder %u exceeds %d", ladder, HKS_RECORD_LADDER_MAX);

	hks_walk_options wo;
	memset(&wo, 0, sizeof(wo));
	wo.base = opts->base;
	wo.animation_index = opts->animation_index;
	hks_stored_animation *orig = NULL;
	HKS_TRY(hks_stored_read(anim, &wo, &orig, err));

	hks_result r = HKS_OK;
	float *transforms = NULL, *floats = NULL;
	size_t tsize = 0, fsize = 0;
	hks_arena *arena = NULL;
	predictor pr;
	memset(&pr, 0, sizeof(pr));
	hks_rec_anim rec;
	memset(&rec, 0, sizeof(rec));
	rec.version = (uint8_t)version; /* what the builder solves for and the writer writes */
	hks_packed_spline *applied = NULL;
	uint8_t *out = NULL;
	size_t out_size = 0;

	uint32_t T = (uint32_t)orig->num_transform_tracks, F = (uint32_t)orig->num_float_tracks;
	uint32_t nf = orig->num_frames > 0 ? (uint32_t)orig->num_frames : 0;
	if (!hks_mul_size((size_t)nf * T, HKS_TRACK_SAMPLE_FLOATS * sizeof(float), &tsize) ||
	    !hks_mul_size((size_t)nf, (size_t)F * sizeof(float), &fsize))
		r = hks_fail(&ctx, HKS_E_LIMIT, -1, "frames too large");
	if (r == HKS_OK) {
		transforms = (float *)hks_malloc(&ctx, tsize ? tsize : 1);
		floats = (float *)hks_malloc(&ctx, fsize ? fsize : 1);
		arena = hks_arena_create(&ctx);
		if (!transforms || !floats || !arena)
			r = hks_fail_nomem(&ctx, tsize + fsize);
	}
	hks_sample_options so;
	memset(&so, 0, sizeof(so));
	so.base = opts->base;
	if (r == HKS_OK)
		r = hks_sample_frames(orig, &so, 0, nf, transforms, floats, err);
	hks_frames_in in;
	memset(&in, 0, sizeof(in));
	in.num_frames = nf;
	in.num_transform_tracks = T;
	in.num_float_tracks = F;
	in.duration = anim->duration;
	in.transforms = T ? transforms : NULL;
	in.floats = F ? floats : NULL;

	/* the record's header */
	rec.kind = HKS_REC_ANIM_PREDICTED;
	rec.num_frames = nf;
	rec.num_transform_tracks = T;
	rec.num_float_tracks = F;
	rec.max_frames_per_block = (uint32_t)orig->max_frames_per_block;
	rec.num_blocks = orig->num_blocks;
	rec.duration_bits = hks_f32_bits(anim->duration);
	rec.guard = orig->guard_bytes != 0;
	rec.data_hash = hks_record_hash(HKS_RECORD_HASH_SEED, anim->spline.data, anim->spline.data_size);
	rec.data_size = anim->spline.data_size;
	rec.ladder_count = (uint8_t)ladder;
	hks_cpu_model cpu = opts->cpu;
	if (r == HKS_OK && cpu == HKS_CPU_AUTO)
		r = detect_model(&ctx, orig, opts->sdk ? opts->sdk : "20160200", &cpu);
	rec.cpu = (uint8_t)cpu;
	rep.cpu = cpu;
	if (r == HKS_OK) {
		uint8_t *tq = (uint8_t *)hks_arena_array(arena, T + 1, 1);
		uint8_t *fq = (uint8_t *)hks_arena_array(arena, F + 1, 1);
		if (!tq || !fq)
			r = hks_fail_nomem(&ctx, 0);
		for (uint32_t t = 0; r == HKS_OK && t < T && orig->num_blocks; t++)
			tq[t] = orig->blocks[0].tracks[t].mask[0];
		for (uint32_t i = 0; r == HKS_OK && i < F && orig->num_blocks; i++)
			fq[i] = (uint8_t)((orig->blocks[0].float_masks[i] >> 1) & 1);
		rec.track_quant = tq;
		rec.float_quant = fq;
	}
	pr.ctx = &ctx;
	pr.base = &opts->base;
	pr.in = &in;
	pr.rec = &rec;
	rec.offsets_override = REC_INVERT_SELECT;
	/* predict; a prediction that cannot run (e.g. one frame) leaves the data verbatim */
	int predicted = r == HKS_OK && nf >= 2 && hks_rcp_model_get(cpu) != NULL && orig->num_blocks == rec.num_blocks;
	if (predicted && select_candidates(&pr) != HKS_OK) {
		predicted = 0;
		if (err)
			hks_error_clear(err);
	}
	builder bd;
	memset(&bd, 0, sizeof(bd));
	bd.ctx = &ctx;
	bd.arena = arena;
	if (r == HKS_OK && predicted) {
		pr.model = hks_rcp_model_get(cpu);
		r = predictor_ws(&pr);
		if (r == HKS_OK)
			r = build_entries(&bd, &pr, orig, &rep);
		rec.entries = bd.entries;
		rec.num_entries = bd.num_entries;
	}
	/* the prediction alone, packed (for -o and the prediction_exact figure) */
	if (r == HKS_OK && predicted) {
		hks_pack_options po;
		memset(&po, 0, sizeof(po));
		po.base = opts->base;
		po.guard = rec.guard;
		hks_packed_spline *pp = NULL;
		/* the selected candidates without any entry */
		hks_rec_anim bare = rec;
		bare.num_entries = 0;
		pr.rec = &bare;
		hks_arena *pa = hks_arena_create(&ctx);
		hks_stored_animation *sel = NULL;
		if (pa && assemble(&pr, pa, &sel, NULL) == HKS_OK && hks_stored_pack(sel, &po, &pp, err) == HKS_OK) {
			rep.prediction_exact = packed_equals(pp, &anim->spline);
			if (prediction)
				*prediction = pp;
			else
				hks_packed_spline_free(pp);
		} else if (err) {
			hks_error_clear(err);
		}
		pr.rec = &rec;
		if (pa)
			hks_arena_free(pa);
	}
	/* verify: write, read back, apply, compare. When only the offsets arrays
	 * differ from the packer's (a second try), the record carries them. The
	 * body is verified stored and coded once it passes (below): the body coder
	 * is a bijection of its own (record_model.c; tests/test_record_model.c),
	 * and decoding it here again would cost more than a tenth of the time. */
	for (int attempt = 0; r == HKS_OK && predicted && attempt < 2; attempt++) {
		if (applied) {
			hks_packed_spline_free(applied);
			applied = NULL;
		}
		r = hks_rec_write(&ctx, &rec, 1, &out, &out_size);
		hks_arena *ra = NULL;
		hks_rec_anim back;
		int again = 0;
		if (r == HKS_OK) {
			ra = hks_arena_create(&ctx);
			if (!ra)
				r = hks_fail_nomem(&ctx, 0);
		}
		if (r == HKS_OK)
			r = hks_rec_read(&ctx, ra, out, out_size, &back);
		if (r == HKS_OK) {
			pr.rec = &back;
			hks_result a = apply_parsed(&ctx, &opts->base, &in, &back, &pr, &applied, NULL);
			pr.rec = &rec;
			if (a != HKS_OK) {
				predicted = 0;
			} else if (!packed_equals(applied, &anim->spline) || !durations_equal(applied, &anim->spline)) {
				const hks_spline_header *g = &applied->header, *h = &anim->spline;
				int data_same = g->data_size == h->data_size && !memcmp(g->data, h->data, h->data_size);
				if (!durations_equal(applied, h)) {
					rec.offsets_override |= 4;
					rec.header_bits[0] = hks_f32_bits(h->frame_duration);
					rec.header_bits[1] = hks_f32_bits(h->block_duration);
					rec.header_bits[2] = hks_f32_bits(h->block_inverse_duration);
				}
				if (data_same && attempt == 0) {
					rec.offsets_override |= 3;
					rec.block_offsets = (uint32_t *)h->block_offsets;
					rec.num_block_offsets = h->num_block_offsets;
					rec.float_block_offsets = (uint32_t *)h->float_block_offsets;
					rec.num_float_block_offsets = h->num_float_block_offsets;
					again = 1;
				} else {
					predicted = 0;
				}
			}
			if (!predicted && err)
				hks_error_clear(err);
		}
		if (ra)
			hks_arena_free(ra);
		if ((!predicted || again) && out) {
			hks_buffer_free(&opts->base, out, out_size);
			out = NULL;
		}
		if (!again)
			break;
	}
	if (r == HKS_OK && predicted && out && !opts->no_zlib) {
		hks_buffer_free(&opts->base, out, out_size);
		out = NULL;
		r = hks_rec_write(&ctx, &rec, 0, &out, &out_size);
	}
	if (r == HKS_OK && !predicted) {
		rec.kind = HKS_REC_ANIM_VERBATIM;
		rec.num_block_offsets = anim->spline.num_block_offsets;
		rec.num_float_block_offsets = anim->spline.num_float_block_offsets;
		rec.block_offsets = (uint32_t *)anim->spline.block_offsets;
		rec.float_block_offsets = (uint32_t *)anim->spline.float_block_offsets;
		rec.data = anim->spline.data;
		rec.header_bits[0] = hks_f32_bits(anim->spline.frame_duration);
		rec.header_bits[1] = hks_f32_bits(anim->spline.block_duration);
		rec.header_bits[2] = hks_f32_bits(anim->spline.block_inverse_duration);
		rep.verbatim_animation = 1;
		r = hks_rec_write(&ctx, &rec, opts->no_zlib, &out, &out_size);
	}
	if (r == HKS_OK) {
		rep.entries = rec.kind == HKS_REC_ANIM_PREDICTED ? rec.num_entries : 0;
		rep.data_bytes = anim->spline.data_size;
		rep.record_bytes = out_size;
		if (report)
			*report = rep;
		if (record && record_size) {
			*record = out;
			*record_size = out_size;
			out = NULL;
		}
	} else if (prediction && *prediction) {
		hks_packed_spline_free(*prediction);
		*prediction = NULL;
	}
	if (out)
		hks_buffer_free(&opts->base, out, out_size);
	if (applied)
		hks_packed_spline_free(applied);
	predictor_free(&pr);
	if (arena)
		hks_arena_free(arena);
	if (transforms)
		hks_free(&ctx, transforms, tsize ? tsize : 1);
	if (floats)
		hks_free(&ctx, floats, fsize ? fsize : 1);
	hks_stored_free(orig);
	return r;
}
