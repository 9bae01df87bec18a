/*
 * Quaternion normalization and the six packers (ENCODER.md §9.3 - §9.6); the
 * inverse of FORMAT.md §3.3 - §3.9 (src/decode/quantization.c).
 *
 * The packers truncate (cvtt), offset in integers and saturate, and the
 * ThreeComp40 byte assembly uses unmasked arithmetic shifts on 16-bit values:
 * together these give the retail packed-NaN pattern 00 80 00 00 80 from a
 * quaternion of NaNs (§9.6), which a normalizing "safe" packer would not.
 */
#include "encode_internal.h"

#include <math.h>
#include <string.h>

/* ---- normalization (§4.1) ---------------------------------------------- */

void hks_normalize_guarded(const hks_rcp_model *m, const float q[4], float out[4])
{
	float l2 = hks_len2(q);
	float f = hks_rsqrt_nr(m, l2);
	if (l2 <= 0.0f) /* the statistics path guards a zero mean (NaN passes: compare false) */
		f = 0.0f;
	for (int i = 0; i < 4; i++)
		out[i] = q[i] * f;
}

void hks_normalize_unguarded(const hks_rcp_model *m, const float q[4], float out[4])
{
	/* No guard (§9.3): |q| = 0 gives rsqrt(0) = +∞ and 0·∞ = NaN in every lane. */
	float f = hks_rsqrt_nr(m, hks_len2(q));
	for (int i = 0; i < 4; i++)
		out[i] = q[i] * f;
}

/* ---- dropped component (§9.4) ------------------------------------------ */

unsigned hks_quat_largest(const float q[4], unsigned *sign)
{
	float a[4];
	for (int i = 0; i < 4; i++)
		a[i] = fabsf(q[i]);
	/* Horizontal max with maxss semantics, running value first [R: the
	 * reduction order is not recorded; it matters only with NaN lanes]. */
	float mx = a[0];
	for (int i = 1; i < 4; i++)
		mx = hks_sse_max(mx, a[i]);
	unsigned k = 0;
	for (unsigned i = 0; i < 4; i++) /* the last true comparison wins: ties go to the highest index */
		if (a[i] >= mx)
			k = i;
	if (sign)
		*sign = q[k] < 0.0f ? 1u : 0u; /* −0 and NaN give 0 */
	return k;
}

/* ---- 16-bit arithmetic helpers (no signed-shift UB) -------------------- */

/* Low 8 bits of (v << n) for a 16-bit value. */
static uint8_t shl8(int16_t v, unsigned n) { return (uint8_t)(((uint32_t)(uint16_t)v << n) & 0xFFu); }
/* Low 8 bits of the arithmetic shift right (v >> n) of a 16-bit value. */
static uint8_t asr8(int16_t v, unsigned n)
{
	uint32_t u = (uint32_t)(uint16_t)v;
	if (v < 0)
		u |= 0xFFFF0000u; /* sign-extend, then a logical shift equals the arithmetic one */
	return (uint8_t)((u >> n) & 0xFFu);
}

/* ---- packers (§9.5) ---------------------------------------------------- */

/* Scale constants as bit patterns (§9.5). */
#define S40_SCALE_BITS 0x4534EE53u /* 2894.8953 ≈ 2047·√2 */
#define S48_SCALE_BITS 0x46B5021Fu /* 23169.061 ≈ 16383·√2 */
#define S24_SCALE_BITS 0x42B230DFu /* 89.095451 ≈ 63·√2 */

/* The three kept components in ascending index order. */
static void kept(const float q[4], unsigned k, float out[3])
{
	unsigned j = 0;
	for (unsigned i = 0; i < 4; i++)
		if (i != k)
			out[j++] = q[i];
}

/* The byte assembly of each ThreeComp format from its fields: dropped index k, its sign, the three
 * kept integers (already offset and saturated by the packer). */
static uint32_t put_threecomp40(unsigned k, unsigned sign, const int16_t c[3], uint8_t *out)
{
	out[0] = (uint8_t)((uint16_t)c[0] & 0xFFu);
	out[1] = (uint8_t)(shl8(c[1], 4) | asr8(c[0], 8));
	out[2] = asr8(c[1], 4);
	out[3] = (uint8_t)((uint16_t)c[2] & 0xFFu);
	out[4] = (uint8_t)(asr8(c[2], 8) | (k << 4) | (sign << 6));
	return 5;
}

static uint32_t put_threecomp48(unsigned k, unsigned sign, const int16_t c[3], uint8_t *out)
{
	uint16_t w[3];
	w[0] = (uint16_t)((uint16_t)c[0] | (k & 1u) << 15);
	w[1] = (uint16_t)((uint16_t)c[1] | (k >> 1) << 15);
	w[2] = (uint16_t)((uint16_t)c[2] | sign << 15);
	for (int i = 0; i < 3; i++)
		hks_put_le16(out + 2 * i, w[i]);
	return 6;
}

static uint32_t put_threecomp24(unsigned k, unsigned sign, const int16_t c[3], uint8_t *out)
{
	out[0] = (uint8_t)((uint8_t)c[0] | (k & 1u) << 7);
	out[1] = (uint8_t)((uint8_t)c[1] | (k >> 1) << 7);
	out[2] = (uint8_t)((uint8_t)c[2] | sign << 7);
	return 3;
}

/* The ThreeComp field writer of `selector` (40, 48, else 24). */
static void put_threecomp(unsigned selector, unsigned k, unsigned sign, const int16_t c[3], uint8_t *out)
{
	if (selector == HKS_ROT_THREECOMP40)
		put_threecomp40(k, sign, c, out);
	else if (selector == HKS_ROT_THREECOMP48)
		put_threecomp48(k, sign, c, out);
	else
		put_threecomp24(k, sign, c, out);
}

static uint32_t pack_threecomp40(const float q[4], uint8_t *out)
{
	unsigned sign;
	unsigned k = hks_quat_largest(q, &sign);
	float v[3];
	kept(q, k, v);
	const float scale = hks_f32_from_bits(S40_SCALE_BITS);
	int16_t c[3];
	for (int i = 0; i < 3; i++) /* INT32_MIN + 2047 cannot overflow */
		c[i] = hks_sat16(hks_cvtt(v[i] * scale) + 2047);
	return put_threecomp40(k, sign, c, out);
}

static uint32_t pack_threecomp48(const float q[4], uint8_t *out)
{
	unsigned sign;
	unsigned k = hks_quat_largest(q, &sign);
	float v[3];
	kept(q, k, v);
	const float scale = hks_f32_from_bits(S48_SCALE_BITS);
	int16_t c[3];
	for (int i = 0; i < 3; i++)
		c[i] = (int16_t)(uint16_t)hks_sat16(hks_cvtt(v[i] * scale) + 16383);
	return put_threecomp48(k, sign, c, out);
}

static uint32_t pack_threecomp24(const float q[4], uint8_t *out)
{
	unsigned sign;
	unsigned k = hks_quat_largest(q, &sign);
	float v[3];
	kept(q, k, v);
	const float scale = hks_f32_from_bits(S24_SCALE_BITS);
	int16_t c[3];
	for (int i = 0; i < 3; i++)
		c[i] = hks_satu8(hks_cvtt(v[i] * scale) + 63);
	return put_threecomp24(k, sign, c, out);
}

static uint32_t pack_uncompressed(const float q[4], uint8_t *out)
{
	for (int i = 0; i < 4; i++) /* bit patterns kept, NaN payloads included */
		hks_put_le32(out + 4 * i, hks_f32_bits(q[i]));
	return 16;
}

/* "+0.5 then truncate" rounding of §9.5 (Polar32). */
static int32_t round_half_up(float x) { return hks_cvtt(x + 0.5f); }

/*
 * Polar32 (§9.5): structure only. Havok's acos/atan polynomial approximations
 * are unknown, so this uses the C library and is not bit-exact [U].
 */
static uint32_t pack_polar32(const float q[4], uint8_t *out)
{
	float ax = fabsf(q[0]), ay = fabsf(q[1]), az = fabsf(q[2]), aw = fabsf(q[3]);
	uint32_t signs = (q[0] < 0.0f ? 1u : 0u) << 28 | (q[1] < 0.0f ? 1u : 0u) << 29 |
	                 (q[2] < 0.0f ? 1u : 0u) << 30 | (q[3] < 0.0f ? 1u : 0u) << 31;
	uint32_t v = 0;
	if (!(ax == 0.0f && ay == 0.0f && az == 0.0f)) { /* "all zero if x = y = z = 0" */
		const float half_pi = hks_f32_from_bits(0x3FC90FDBu);
		float len = sqrtf(ax * ax + ay * ay + az * az);
		float c = az / len;
		if (c > 1.0f)
			c = 1.0f;
		int32_t phi = round_half_up(acosf(c) / half_pi * 511.0f);
		if (phi < 0)
			phi = 0;
		if (phi > 511)
			phi = 511;
		float theta = atan2f(ay, ax); /* atan(|y|/|x|), defined at x = 0 */
		int32_t theta_o = round_half_up((float)(2 * phi) * theta / half_pi);
		if (theta_o < 0)
			theta_o = 0;
		if (theta_o > 2 * phi)
			theta_o = 2 * phi;
		float one_minus_w = 1.0f - aw;
		int32_t r = round_half_up(1023.0f * sqrtf(one_minus_w > 0.0f ? one_minus_w : 0.0f));
		if (r < 0)
			r = 0;
		if (r > 1023)
			r = 1023;
		uint32_t pt = (uint32_t)(phi * phi + theta_o);
		v = (pt & 0x3FFFFu) | (uint32_t)r << 18 | signs;
	}
	hks_put_le32(out, v);
	return 4;
}

/*
 * Straight16: the inverse of FORMAT.md §3.8 with its provisional constants
 * (value = (n − 7.5)·(1/7.5)): n = trunc(q·7.5 + 7.5 + 0.5), clamped to 0..15.
 * Havok's constants are unknown [U]; never used by the games.
 */
static uint32_t pack_straight16(const float q[4], uint8_t *out)
{
	uint8_t n[4];
	for (int i = 0; i < 4; i++) {
		int32_t v = round_half_up(q[i] * 7.5f + 7.5f);
		n[i] = (uint8_t)(v < 0 ? 0 : v > 15 ? 15 : v);
	}
	out[0] = (uint8_t)(n[0] | n[1] << 4);
	out[1] = (uint8_t)(n[2] | n[3] << 4);
	return 2;
}

uint32_t hks_pack_quaternion(unsigned selector, const float q[4], uint8_t *out)
{
	switch (selector) {
	case HKS_ROT_POLAR32: return pack_polar32(q, out);
	case HKS_ROT_THREECOMP40: return pack_threecomp40(q, out);
	case HKS_ROT_THREECOMP48: return pack_threecomp48(q, out);
	case HKS_ROT_THREECOMP24: return pack_threecomp24(q, out);
	case HKS_ROT_STRAIGHT16: return pack_straight16(q, out);
	case HKS_ROT_UNCOMPRESSED: return pack_uncompressed(q, out);
	default: return 0;
	}
}

int hks_pack_quaternion_exact(unsigned selector)
{
	return selector == HKS_ROT_THREECOMP40 || selector == HKS_ROT_THREECOMP48 || selector == HKS_ROT_THREECOMP24 ||
	       selector == HKS_ROT_UNCOMPRESSED;
}

uint32_t hks_pack_rotation(const hks_rcp_model *m, unsigned selector, const float p[4], uint8_t *out)
{
	float q[4];
	hks_normalize_unguarded(m, p, q);
	return hks_pack_quaternion(selector, q, out);
}

/*
 * Bytes that unpack to `target` bit for bit (docs/RECORD.md "Inversion", rotations): a control point
 * the frames show exactly (degree 1 at its knot, degree 3 at a triple knot) does not always come back
 * through normalization and the packer (two components of nearly equal size: another dropped index;
 * a kept component on a truncation edge). The unpacker puts each kept component on the grid
 * (n − offset) · scale exactly, so per dropped index the integers are the nearest ones, and the index
 * is possible only when all three land on the grid exactly; the sign is the dropped component's sign
 * bit. 1 when found.
 */
int hks_repack_quaternion_exact(unsigned selector, const float target[4], uint8_t *out)
{
	uint32_t size = hks_rotation_size(selector);
	float back[4];
	uint8_t b[16];
	if (selector == HKS_ROT_UNCOMPRESSED) {
		pack_uncompressed(target, out);
		return 1;
	}
	if (selector != HKS_ROT_THREECOMP40 && selector != HKS_ROT_THREECOMP48 && selector != HKS_ROT_THREECOMP24)
		return 0;
	/* the unpacker's scales (FORMAT.md §3.4-§3.6): one step of the grid */
	const float step = hks_f32_from_bits(selector == HKS_ROT_THREECOMP40   ? HKS_BITS_S40
	                                     : selector == HKS_ROT_THREECOMP48 ? HKS_BITS_S48
	                                                                       : HKS_BITS_S24);
	const int32_t off = selector == HKS_ROT_THREECOMP40 ? 2047 : selector == HKS_ROT_THREECOMP48 ? 16383 : 63;
	const int32_t top = 2 * off + 1;
	for (unsigned k = 0; k < 4; k++) {
		float v[3];
		kept(target, k, v);
		int16_t c[3];
		int on_grid = 1;
		for (int i = 0; i < 3 && on_grid; i++) {
			double n = nearbyint((double)v[i] / (double)step);
			on_grid = n >= (double)-off && n <= (double)(top - off) &&
			          hks_f32_bits((float)(int32_t)n * step) == hks_f32_bits(v[i]);
			c[i] = (int16_t)((int32_t)n + off);
		}
		if (!on_grid)
			continue;
		unsigned sign = hks_f32_bits(target[k]) >> 31; /* the unpacker gives the dropped one this sign bit */
		put_threecomp(selector, k, sign, c, b);
		hks_unpack_quaternion(selector, b, back);
		int same = 1;
		for (int i = 0; i < 4; i++)
			same &= hks_f32_bits(back[i]) == hks_f32_bits(target[i]);
		if (same) {
			memcpy(out, b, size);
			return 1;
		}
	}
	return 0;
}

/* ---- ThreeComp fields (the record's control-point residuals, docs/RECORD.md "Point residuals") ---- */

unsigned hks_threecomp_bits(unsigned selector)
{
	return selector == HKS_ROT_THREECOMP40 ? 12u : selector == HKS_ROT_THREECOMP48 ? 15u
	       : selector == HKS_ROT_THREECOMP24 ? 7u : 0u;
}

int hks_threecomp_split(unsigned selector, const uint8_t *b, uint16_t c[3], unsigned *k, unsigned *sign)
{
	if (selector == HKS_ROT_THREECOMP40) {
		c[0] = (uint16_t)(b[0] | (b[1] & 0x0Fu) << 8);
		c[1] = (uint16_t)(b[1] >> 4 | (unsigned)b[2] << 4);
		c[2] = (uint16_t)(b[3] | (b[4] & 0x0Fu) << 8);
		*k = (b[4] >> 4) & 3u;
		*sign = (b[4] >> 6) & 1u;
	} else if (selector == HKS_ROT_THREECOMP48) {
		uint16_t w[3];
		for (int i = 0; i < 3; i++) {
			w[i] = hks_le16(b + 2 * i);
			c[i] = (uint16_t)(w[i] & 0x7FFFu);
		}
		*k = (unsigned)(w[0] >> 15) | (unsigned)(w[1] >> 15) << 1;
		*sign = w[2] >> 15;
	} else if (selector == HKS_ROT_THREECOMP24) {
		for (int i = 0; i < 3; i++)
			c[i] = (uint16_t)(b[i] & 0x7Fu);
		*k = (unsigned)(b[0] >> 7) | (unsigned)(b[1] >> 7) << 1;
		*sign = b[2] >> 7;
	} else {
		return 0;
	}
	/* a bit the packers never set (ThreeComp40's top bit) makes the bytes no packer output */
	uint8_t back[6];
	return hks_threecomp_join(selector, *k, *sign, c, back) && memcmp(back, b, hks_rotation_size(selector)) == 0;
}

int hks_threecomp_join(unsigned selector, unsigned k, unsigned sign, const uint16_t c[3], uint8_t *out)
{
	unsigned bits = hks_threecomp_bits(selector);
	if (!bits || k > 3 || sign > 1)
		return 0;
	int16_t s[3];
	for (int i = 0; i < 3; i++) {
		if (c[i] >> bits)
			return 0;
		s[i] = (int16_t)c[i];
	}
	put_threecomp(selector, k, sign, s, out);
	return 1;
}
