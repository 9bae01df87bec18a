/*
 * Dequantization of stored values (FORMAT.md §3): scalar 8/16-bit control
 * points and the six packed-quaternion selectors.
 *
 * Every constant is written as its binary32 bit pattern (FORMAT.md §0.2,
 * §7 pitfall 4) and every f32 operation is rounded individually in the order
 * the specification gives; the build uses -ffp-contract=off so no multiply-add
 * is fused.
 */
#include "internal.h"

#include <math.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(HKS_HAVE_AVX2)
#include <immintrin.h>
#endif

/* FORMAT.md §3.1's 1/65535 and 1/255 as f32: in hks_dequantize_scalar_inline (internal.h). */
/* FORMAT.md §3.7: Polar32 constants. */
#define HKS_BITS_INV_1023 0x3A802008u
#define HKS_BITS_INV_511 0x3B004020u
#define HKS_BITS_PI_OVER_4 0x3F490FDBu
#define HKS_BITS_PI_OVER_2 0x3FC90FDBu
/* FORMAT.md §3.8: provisional Straight16 constants C1 = 7.5, C2 = 1/7.5 [U]. */
#define HKS_BITS_STRAIGHT16_C1 0x40F00000u
#define HKS_BITS_STRAIGHT16_C2 0x3E088889u
#define HKS_BITS_ONE 0x3F800000u
#define HKS_BITS_QNAN 0x7FC00000u

float hks_dequantize_scalar(unsigned quantization, uint32_t value, float min, float max)
{
	return hks_dequantize_scalar_inline(quantization, value, min, max);
}

/*
 * FORMAT.md §3.3: the three stored values go in ascending component order into
 * the slots other than `missing`; the missing one is sqrt(1 − Σ) with the sign
 * bit, and 0 when 1 − Σ is not positive (not when it is merely small: §7 #17).
 */
/* slots of the three stored values for each missing index, ascending */
static const uint8_t stored_slots[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};

static inline void smallest_three(const float v[3], unsigned missing, unsigned negative, float out[4])
{
	const uint8_t *slot = stored_slots[missing & 3u];
	out[slot[0]] = v[0];
	out[slot[1]] = v[1];
	out[slot[2]] = v[2];
	float sum = ((v[0] * v[0]) + (v[1] * v[1])) + (v[2] * v[2]);
	float t = hks_f32_from_bits(HKS_BITS_ONE) - sum;
	float mag = (t > 0.0f) ? sqrtf(t) : 0.0f;
	out[missing & 3u] = negative ? -mag : mag;
}

static inline void unpack_threecomp40(const uint8_t *b, float out[4])
{
	/* FORMAT.md §3.4: 40-bit little-endian value, read byte by byte (never an
	 * 8-byte load: §7 #15). Bit 39 is ignored (§5.3 rule 4). */
	uint64_t v = (uint64_t)b[0] | ((uint64_t)b[1] << 8) | ((uint64_t)b[2] << 16) | ((uint64_t)b[3] << 24) |
	             ((uint64_t)b[4] << 32);
	const float s40 = hks_f32_from_bits(HKS_BITS_S40);
	float f[3];
	for (unsigned i = 0; i < 3; i++) {
		int32_t n = (int32_t)((v >> (12 * i)) & 0xFFFu);
		f[i] = (float)(n - 2047) * s40; /* centre 2047, not 2049: §7 #1 */
	}
	smallest_three(f, (unsigned)((v >> 36) & 3u), (unsigned)((v >> 38) & 1u), out);
}

static inline void unpack_threecomp48(const uint8_t *b, float out[4])
{
	/* FORMAT.md §3.5 */
	uint16_t w[3] = {hks_le16(b), hks_le16(b + 2), hks_le16(b + 4)};
	const float s48 = hks_f32_from_bits(HKS_BITS_S48);
	float f[3];
	for (unsigned i = 0; i < 3; i++)
		f[i] = (float)((int32_t)(w[i] & 0x7FFFu) - 16383) * s48;
	unsigned missing = (unsigned)((w[0] >> 15) | ((w[1] >> 15) << 1));
	smallest_three(f, missing, (unsigned)(w[2] >> 15), out);
}

static void unpack_threecomp24(const uint8_t *b, float out[4])
{
	/* FORMAT.md §3.6 */
	const float s24 = hks_f32_from_bits(HKS_BITS_S24);
	float f[3];
	for (unsigned i = 0; i < 3; i++)
		f[i] = (float)((int32_t)(b[i] & 0x7Fu) - 63) * s24;
	unsigned missing = (unsigned)((b[0] >> 7) | ((b[1] >> 7) << 1));
	smallest_three(f, missing, (unsigned)(b[2] >> 7), out);
}

/* Integer square root: the largest r with r·r <= x (x < 2^18 here). */
static uint32_t isqrt_u32(uint32_t x)
{
	uint32_t r = (uint32_t)sqrt((double)x);
	while (r * r > x)
		r--;
	while ((r + 1) * (r + 1) <= x)
		r++;
	return r;
}

static void unpack_polar32(const uint8_t *b, float out[4])
{
	/* FORMAT.md §3.7 (reference decode; the engine's exact order is [U]).
	 * r is an integer converted by value (§7 #5: not its bits reinterpreted),
	 * and φ spans π/2 over 511 steps. */
	uint32_t v = hks_le32(b);
	uint32_t pt = v & 0x3FFFFu;
	uint32_t r = (v >> 18) & 0x3FFu;
	float one = hks_f32_from_bits(HKS_BITS_ONE);
	float rr = (float)r * hks_f32_from_bits(HKS_BITS_INV_1023);
	float aw = one - (rr * rr);
	float m2 = one - (aw * aw);
	float mag = sqrtf(m2 > 0.0f ? m2 : 0.0f);
	uint32_t phi_i = isqrt_u32(pt);
	float theta = 0.0f, phi = 0.0f;
	if (phi_i > 0) {
		theta = (hks_f32_from_bits(HKS_BITS_PI_OVER_4) * (float)(pt - phi_i * phi_i)) / (float)phi_i;
		phi = (hks_f32_from_bits(HKS_BITS_PI_OVER_2) * (float)phi_i) * hks_f32_from_bits(HKS_BITS_INV_511);
	}
	float sin_phi = sinf(phi);
	float q[4];
	q[0] = (mag * sin_phi) * cosf(theta);
	q[1] = (mag * sin_phi) * sinf(theta);
	q[2] = mag * cosf(phi);
	q[3] = aw;
	for (unsigned i = 0; i < 4; i++)
		out[i] = ((v >> (28 + i)) & 1u) ? -q[i] : q[i];
}

static void unpack_straight16(const uint8_t *b, float out[4])
{
	/* FORMAT.md §3.8, provisional constants: (n − C1)·C2, then normalized.
	 * With C1 = 7.5 no component is zero, so the length is never zero. */
	const float c1 = hks_f32_from_bits(HKS_BITS_STRAIGHT16_C1);
	const float c2 = hks_f32_from_bits(HKS_BITS_STRAIGHT16_C2);
	unsigned n[4] = {b[0] & 0xFu, b[0] >> 4, b[1] & 0xFu, b[1] >> 4};
	float q[4];
	for (unsigned i = 0; i < 4; i++)
		q[i] = ((float)n[i] - c1) * c2;
	float len2 = (((q[0] * q[0]) + (q[1] * q[1])) + (q[2] * q[2])) + (q[3] * q[3]);
	float inv = hks_f32_from_bits(HKS_BITS_ONE) / sqrtf(len2);
	for (unsigned i = 0; i < 4; i++)
		out[i] = q[i] * inv;
}

void hks_unpack_quaternion(unsigned selector, const uint8_t *bytes, float out[4])
{
	switch (selector) {
	case HKS_ROT_POLAR32: unpack_polar32(bytes, out); return;
	case HKS_ROT_THREECOMP40: unpack_threecomp40(bytes, out); return;
	case HKS_ROT_THREECOMP48: unpack_threecomp48(bytes, out); return;
	case HKS_ROT_THREECOMP24: unpack_threecomp24(bytes, out); return;
	case HKS_ROT_STRAIGHT16: unpack_straight16(bytes, out); return;
	case HKS_ROT_UNCOMPRESSED:
		/* FORMAT.md §3.9: four f32 copied bit for bit (NaN payloads kept, §5.3). */
		for (unsigned i = 0; i < 4; i++)
			out[i] = hks_f32_from_bits(hks_le32(bytes + 4 * i));
		return;
	default:
		for (unsigned i = 0; i < 4; i++)
			out[i] = hks_f32_from_bits(HKS_BITS_QNAN);
		return;
	}
}

int hks_selector_verified(unsigned selector)
{
	return selector <= HKS_ROT_UNCOMPRESSED && selector != HKS_ROT_STRAIGHT16;
}

#if defined(__SSE2__)
/*
 * Four ThreeComp40 values at once: each SSE lane performs the scalar
 * operations of unpack_threecomp40 + smallest_three on one value (exact int
 * → f32 conversion, f32 multiply, the sum of squares in the same order,
 * 1 − s, correctly rounded square root, 0 when 1 − s is not positive, sign
 * by negation), so the results are the same bits.
 */
static void unpack_threecomp40_x4(const uint8_t *b, float out[16])
{
	int32_t fa[4], fb[4], fc[4];
	unsigned missing[4], negative[4];
	for (unsigned i = 0; i < 4; i++) {
		const uint8_t *q = b + 5 * i;
		uint64_t v = (uint64_t)q[0] | ((uint64_t)q[1] << 8) | ((uint64_t)q[2] << 16) | ((uint64_t)q[3] << 24) |
		             ((uint64_t)q[4] << 32);
		fa[i] = (int32_t)(v & 0xFFFu) - 2047;
		fb[i] = (int32_t)((v >> 12) & 0xFFFu) - 2047;
		fc[i] = (int32_t)((v >> 24) & 0xFFFu) - 2047;
		missing[i] = (unsigned)((v >> 36) & 3u);
		negative[i] = (unsigned)((v >> 38) & 1u);
	}
	const __m128 s40 = _mm_set1_ps(hks_f32_from_bits(HKS_BITS_S40));
	__m128 A = _mm_mul_ps(_mm_cvtepi32_ps(_mm_loadu_si128((const __m128i *)fa)), s40);
	__m128 B = _mm_mul_ps(_mm_cvtepi32_ps(_mm_loadu_si128((const __m128i *)fb)), s40);
	__m128 C = _mm_mul_ps(_mm_cvtepi32_ps(_mm_loadu_si128((const __m128i *)fc)), s40);
	__m128 sum = _mm_add_ps(_mm_add_ps(_mm_mul_ps(A, A), _mm_mul_ps(B, B)), _mm_mul_ps(C, C));
	__m128 t = _mm_sub_ps(_mm_set1_ps(hks_f32_from_bits(HKS_BITS_ONE)), sum);
	__m128 mag = _mm_and_ps(_mm_sqrt_ps(t), _mm_cmpgt_ps(t, _mm_setzero_ps()));
	float va[4], vb[4], vc[4], vm[4];
	_mm_storeu_ps(va, A);
	_mm_storeu_ps(vb, B);
	_mm_storeu_ps(vc, C);
	_mm_storeu_ps(vm, mag);
	for (unsigned i = 0; i < 4; i++) {
		float *o = out + 4 * i;
		const uint8_t *slot = stored_slots[missing[i]];
		o[slot[0]] = va[i];
		o[slot[1]] = vb[i];
		o[slot[2]] = vc[i];
		o[missing[i]] = negative[i] ? -vm[i] : vm[i];
	}
}

/*
 * Four ThreeComp40 values entirely in SSE2 registers, for values followed by
 * at least 3 readable bytes: the fields of four 8-byte loads (bits 40-63, the
 * next value's bytes, are never read), the same conversions and operations
 * per lane as unpack_threecomp40_x4, the sign applied by flipping the sign
 * bit (what negation does), and each quaternion assembled by selecting
 * between (a, b, c, m) and its rotation (m, a, b, c) with the masks of its
 * missing index: the values land in the slots of stored_slots.
 */
static const uint32_t tc40_lt[4][4] = {{0, 0, 0, 0}, {~0u, 0, 0, 0}, {~0u, ~0u, 0, 0}, {~0u, ~0u, ~0u, 0}};
static const uint32_t tc40_eq[4][4] = {{~0u, 0, 0, 0}, {0, ~0u, 0, 0}, {0, 0, ~0u, 0}, {0, 0, 0, ~0u}};

#define HKS_LO32(x, y) \
	_mm_castps_si128(_mm_shuffle_ps(_mm_castsi128_ps(x), _mm_castsi128_ps(y), _MM_SHUFFLE(2, 0, 2, 0)))

static inline void unpack_threecomp40_x4_sse(const uint8_t *b, float out[16])
{
	uint64_t v0, v1, v2, v3;
	memcpy(&v0, b, 8);
	memcpy(&v1, b + 5, 8);
	memcpy(&v2, b + 10, 8);
	memcpy(&v3, b + 15, 8);
	__m128i A = _mm_set_epi64x((long long)v1, (long long)v0);
	__m128i B = _mm_set_epi64x((long long)v3, (long long)v2);
	const __m128i m12 = _mm_set1_epi32(0xFFF), centre = _mm_set1_epi32(2047);
	__m128i ia = _mm_sub_epi32(_mm_and_si128(HKS_LO32(A, B), m12), centre);
	__m128i ib = _mm_sub_epi32(_mm_and_si128(HKS_LO32(_mm_srli_epi64(A, 12), _mm_srli_epi64(B, 12)), m12), centre);
	__m128i ic = _mm_sub_epi32(_mm_and_si128(HKS_LO32(_mm_srli_epi64(A, 24), _mm_srli_epi64(B, 24)), m12), centre);
	__m128i top = HKS_LO32(_mm_srli_epi64(A, 36), _mm_srli_epi64(B, 36));
	__m128i sign = _mm_slli_epi32(_mm_srli_epi32(top, 2), 31); /* bit 38 to the sign bit */
	const __m128 s40 = _mm_set1_ps(hks_f32_from_bits(HKS_BITS_S40));
	__m128 fa = _mm_mul_ps(_mm_cvtepi32_ps(ia), s40);
	__m128 fb = _mm_mul_ps(_mm_cvtepi32_ps(ib), s40);
	__m128 fc = _mm_mul_ps(_mm_cvtepi32_ps(ic), s40);
	__m128 sum = _mm_add_ps(_mm_add_ps(_mm_mul_ps(fa, fa), _mm_mul_ps(fb, fb)), _mm_mul_ps(fc, fc));
	__m128 t = _mm_sub_ps(_mm_set1_ps(hks_f32_from_bits(HKS_BITS_ONE)), sum);
	__m128 mag = _mm_and_ps(_mm_sqrt_ps(t), _mm_cmpgt_ps(t, _mm_setzero_ps()));
	__m128 fm = _mm_xor_ps(mag, _mm_castsi128_ps(sign));
	uint32_t missing[4];
	_mm_storeu_si128((__m128i *)(void *)missing, _mm_and_si128(top, _mm_set1_epi32(3)));
	_MM_TRANSPOSE4_PS(fa, fb, fc, fm); /* now value i = (a, b, c, m) in fa, fb, fc, fm */
	__m128 q[4] = {fa, fb, fc, fm};
	for (unsigned i = 0; i < 4; i++) {
		__m128 v = q[i];
		__m128 rot = _mm_shuffle_ps(v, v, _MM_SHUFFLE(2, 1, 0, 3)); /* (m, a, b, c) */
		__m128 m = _mm_shuffle_ps(v, v, _MM_SHUFFLE(3, 3, 3, 3));
		__m128 lt = _mm_loadu_ps((const float *)(const void *)tc40_lt[missing[i]]);
		__m128 eq = _mm_loadu_ps((const float *)(const void *)tc40_eq[missing[i]]);
		__m128 tail = _mm_or_ps(_mm_and_ps(eq, m), _mm_andnot_ps(eq, rot));
		_mm_storeu_ps(out + 4 * i, _mm_or_ps(_mm_and_ps(lt, v), _mm_andnot_ps(lt, tail)));
	}
}
#undef HKS_LO32
#endif

void hks_unpack_quaternions(unsigned selector, const uint8_t *bytes, size_t count, float *out)
{
	/* The two selectors of the game data get their own loops (the unpacker
	 * inlined); the others go through the single-value path. Same results. */
	size_t size = hks_rotation_size(selector);
	if (selector == HKS_ROT_THREECOMP40) {
		size_t i = 0;
#if defined(__SSE2__)
		/* 8-byte loads (the x86 hosts of SSE2 are little-endian) while the
		 * last one stays inside the count · 5 bytes: never past the end */
		for (; i + 4 <= count && i * 5 + 23 <= count * 5; i += 4)
			unpack_threecomp40_x4_sse(bytes + i * 5, out + i * 4);
		for (; i + 4 <= count; i += 4)
			unpack_threecomp40_x4(bytes + i * 5, out + i * 4);
#endif
		for (; i < count; i++)
			unpack_threecomp40(bytes + i * 5, out + i * 4);
	}
	else if (selector == HKS_ROT_THREECOMP48)
		for (size_t i = 0; i < count; i++)
			unpack_threecomp48(bytes + i * 6, out + i * 4);
	else
		for (size_t i = 0; i < count; i++)
			hks_unpack_quaternion(selector, bytes + i * size, out + i * 4);
}

#if defined(HKS_HAVE_AVX2)
int hks_cpu_avx2(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2") ? 1 : 0;
}

/*
 * Eight ThreeComp40 values per AVX2 register, each lane performing the
 * operations of unpack_threecomp40 + smallest_three on one value, as
 * unpack_threecomp40_x4_sse does (exact int → f32 conversion, f32 multiply,
 * the sum of squares in the same order, 1 − s, correctly rounded square
 * root, 0 when 1 − s is not positive, the sign by flipping the sign bit):
 * the same bits. The 40 bytes of eight values are read as four 16-byte loads
 * inside them (bytes 0-15, 4-19, 20-35, 24-39), the fields gathered by byte
 * shuffles; each quaternion is assembled by selecting, per slot, between the
 * stored values and the missing one with the masks of its missing index (the
 * slots of stored_slots), then transposed to four floats per value.
 */
HKS_TARGET_AVX2 static void unpack_threecomp40_x8_avx2(const uint8_t *b, float *out)
{
	const __m256i X = _mm256_inserti128_si256(
	    _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)b)),
	    _mm_loadu_si128((const __m128i *)(const void *)(b + 20)), 1);
	const __m256i Y = _mm256_inserti128_si256(
	    _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(b + 4))),
	    _mm_loadu_si128((const __m128i *)(const void *)(b + 24)), 1);
	/* per 128-bit lane, value k at byte 5k of X (byte 5k − 4 of Y): bytes 0-2
	 * (a, b) to D0, bytes 3-4 (c, missing, sign) to D1; values 0-2 from X,
	 * value 3 from Y */
	const __m256i m0x = _mm256_setr_epi8(0, 1, 2, -1, 5, 6, 7, -1, 10, 11, 12, -1, -1, -1, -1, -1, 0, 1, 2, -1, 5, 6,
	                                     7, -1, 10, 11, 12, -1, -1, -1, -1, -1);
	const __m256i m0y = _mm256_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 11, 12, 13, -1, -1, -1, -1,
	                                     -1, -1, -1, -1, -1, -1, -1, -1, -1, 11, 12, 13, -1);
	const __m256i m1x = _mm256_setr_epi8(3, 4, -1, -1, 8, 9, -1, -1, 13, 14, -1, -1, -1, -1, -1, -1, 3, 4, -1, -1, 8, 9,
	                                     -1, -1, 13, 14, -1, -1, -1, -1, -1, -1);
	const __m256i m1y = _mm256_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 14, 15, -1, -1, -1, -1, -1,
	                                     -1, -1, -1, -1, -1, -1, -1, -1, -1, 14, 15, -1, -1);
	const __m256i D0 = _mm256_or_si256(_mm256_shuffle_epi8(X, m0x), _mm256_shuffle_epi8(Y, m0y)); /* bits 0-23 */
	const __m256i D1 = _mm256_or_si256(_mm256_shuffle_epi8(X, m1x), _mm256_shuffle_epi8(Y, m1y)); /* bits 24-39 */
	const __m256i m12 = _mm256_set1_epi32(0xFFF), centre = _mm256_set1_epi32(2047);
	__m256i ia = _mm256_sub_epi32(_mm256_and_si256(D0, m12), centre);
	__m256i ib = _mm256_sub_epi32(_mm256_and_si256(_mm256_srli_epi32(D0, 12), m12), centre);
	__m256i ic = _mm256_sub_epi32(_mm256_and_si256(D1, m12), centre);
	__m256i missing = _mm256_and_si256(_mm256_srli_epi32(D1, 12), _mm256_set1_epi32(3));
	__m256i sign = _mm256_slli_epi32(_mm256_srli_epi32(D1, 14), 31); /* bit 38; bit 39 ignored */
	const __m256 s40 = _mm256_set1_ps(hks_f32_from_bits(HKS_BITS_S40));
	__m256 fa = _mm256_mul_ps(_mm256_cvtepi32_ps(ia), s40);
	__m256 fb = _mm256_mul_ps(_mm256_cvtepi32_ps(ib), s40);
	__m256 fc = _mm256_mul_ps(_mm256_cvtepi32_ps(ic), s40);
	__m256 sum = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(fa, fa), _mm256_mul_ps(fb, fb)), _mm256_mul_ps(fc, fc));
	__m256 t = _mm256_sub_ps(_mm256_set1_ps(hks_f32_from_bits(HKS_BITS_ONE)), sum);
	__m256 mag = _mm256_and_ps(_mm256_sqrt_ps(t), _mm256_cmp_ps(t, _mm256_setzero_ps(), _CMP_GT_OQ));
	__m256 fm = _mm256_xor_ps(mag, _mm256_castsi256_ps(sign));
	__m256 eq0 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(missing, _mm256_setzero_si256()));
	__m256 eq1 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(missing, _mm256_set1_epi32(1)));
	__m256 eq2 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(missing, _mm256_set1_epi32(2)));
	__m256 eq3 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(missing, _mm256_set1_epi32(3)));
	__m256 s0 = _mm256_blendv_ps(fa, fm, eq0);
	__m256 s1 = _mm256_blendv_ps(_mm256_blendv_ps(fb, fa, eq0), fm, eq1);
	__m256 s2 = _mm256_blendv_ps(_mm256_blendv_ps(fc, fb, _mm256_or_ps(eq0, eq1)), fm, eq2);
	__m256 s3 = _mm256_blendv_ps(fc, fm, eq3);
	__m256 t0 = _mm256_unpacklo_ps(s0, s1), t1 = _mm256_unpackhi_ps(s0, s1);
	__m256 t2 = _mm256_unpacklo_ps(s2, s3), t3 = _mm256_unpackhi_ps(s2, s3);
	__m256 q0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)); /* values 0 | 4 */
	__m256 q1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2)); /* values 1 | 5 */
	__m256 q2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0)); /* values 2 | 6 */
	__m256 q3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2)); /* values 3 | 7 */
	_mm256_storeu_ps(out, _mm256_permute2f128_ps(q0, q1, 0x20));
	_mm256_storeu_ps(out + 8, _mm256_permute2f128_ps(q2, q3, 0x20));
	_mm256_storeu_ps(out + 16, _mm256_permute2f128_ps(q0, q1, 0x31));
	_mm256_storeu_ps(out + 24, _mm256_permute2f128_ps(q2, q3, 0x31));
}

HKS_TARGET_AVX2 void hks_unpack_threecomp40_avx2(const uint8_t *bytes, size_t count, float *out)
{
	size_t i = 0;
	for (; i + 8 <= count; i += 8)
		unpack_threecomp40_x8_avx2(bytes + i * 5, out + i * 4);
	if (i < count) {
		/* the last 1-7 values through a zero-padded copy (never a read past
		 * the data; each lane is computed on its own) */
		uint8_t in[40];
		float q[32];
		memset(in, 0, sizeof(in));
		memcpy(in, bytes + i * 5, (count - i) * 5);
		unpack_threecomp40_x8_avx2(in, q);
		memcpy(out + i * 4, q, (count - i) * 4 * sizeof(float));
	}
}
#endif
