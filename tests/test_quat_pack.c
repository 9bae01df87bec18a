/*
 * Quaternion packers (ENCODER.md §9.3 - §9.6): the dropped component and its
 * ties, hand-computed byte patterns, saturation, the NaN patterns, and a
 * round trip through a decoder written here from FORMAT.md §3.3 - §3.9.
 */
#include "hks_test.h"
#include "encode_internal.h"

#include <math.h>
#include <string.h>

static const hks_rcp_model *intel(void) { return hks_rcp_model_get(HKS_CPU_INTEL); }
static const hks_rcp_model *zen(void) { return hks_rcp_model_get(HKS_CPU_AMD_ZEN); }
static float fb(uint32_t u) { return hks_f32_from_bits(u); }

/* ---- a straightforward decoder (FORMAT.md §3), independent of src/decode */

static void smallest_three(const float v[3], unsigned k, unsigned sign, float q[4])
{
	float s = ((v[0] * v[0]) + (v[1] * v[1])) + (v[2] * v[2]);
	float t = 1.0f - s;
	float mag = t > 0.0f ? sqrtf(t) : 0.0f;
	unsigned j = 0;
	for (unsigned i = 0; i < 4; i++)
		q[i] = i == k ? (sign ? -mag : mag) : v[j++];
}

static void decode(unsigned sel, const uint8_t *b, float q[4])
{
	float v[3];
	if (sel == 1) {
		uint64_t x = 0;
		for (int i = 4; i >= 0; i--)
			x = x << 8 | b[i];
		for (int i = 0; i < 3; i++)
			v[i] = (float)((int32_t)((x >> (12 * i)) & 0xFFF) - 2047) * fb(0x39B51B97u);
		smallest_three(v, (unsigned)(x >> 36) & 3, (unsigned)(x >> 38) & 1, q);
	} else if (sel == 2) {
		uint16_t w[3];
		for (int i = 0; i < 3; i++)
			w[i] = (uint16_t)(b[2 * i] | b[2 * i + 1] << 8);
		for (int i = 0; i < 3; i++)
			v[i] = (float)((int32_t)(w[i] & 0x7FFF) - 16383) * fb(0x383507C7u);
		smallest_three(v, (unsigned)(w[0] >> 15) | (unsigned)(w[1] >> 15) << 1, w[2] >> 15, q);
	} else if (sel == 3) {
		for (int i = 0; i < 3; i++)
			v[i] = (float)((int32_t)(b[i] & 0x7F) - 63) * fb(0x3C37E485u);
		smallest_three(v, (unsigned)(b[0] >> 7) | (unsigned)(b[1] >> 7) << 1, b[2] >> 7, q);
	} else if (sel == 5) {
		for (int i = 0; i < 4; i++)
			q[i] = fb((uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 | (uint32_t)b[4 * i + 2] << 16 |
			          (uint32_t)b[4 * i + 3] << 24);
	} else if (sel == 0) {
		uint32_t x = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
		uint32_t pt = x & 0x3FFFF, r = (x >> 18) & 0x3FF;
		float R = (float)r * fb(0x3A802008u);
		float aw = 1.0f - R * R;
		float mag = sqrtf(fmaxf(0.0f, 1.0f - aw * aw));
		uint32_t phi_i = (uint32_t)sqrt((double)pt);
		float th = 0.0f, ph = 0.0f;
		if (phi_i > 0) {
			th = fb(0x3F490FDBu) * (float)(pt - phi_i * phi_i) / (float)phi_i;
			ph = fb(0x3FC90FDBu) * (float)phi_i * fb(0x3B004020u);
		}
		q[0] = mag * sinf(ph) * cosf(th);
		q[1] = mag * sinf(ph) * sinf(th);
		q[2] = mag * cosf(ph);
		q[3] = aw;
		for (int i = 0; i < 4; i++)
			if (x >> (28 + i) & 1)
				q[i] = -q[i];
	} else { /* 4: Straight16, provisional constants */
		float l = 0.0f;
		unsigned n[4] = {b[0] & 0xFu, b[0] >> 4u, b[1] & 0xFu, b[1] >> 4u};
		for (int i = 0; i < 4; i++) {
			q[i] = ((float)n[i] - 7.5f) * (1.0f / 7.5f);
			l += q[i] * q[i];
		}
		for (int i = 0; i < 4; i++)
			q[i] /= sqrtf(l);
	}
}

static uint32_t rng = 0x9E3779B9u;
static float rnd_sym(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return (float)(rng >> 8) * (2.0f / 16777216.0f) - 1.0f;
}

/* ---- §9.4 ---------------------------------------------------------------- */

static void test_largest(void **state)
{
	(void)state;
	unsigned sign;
	const float all_equal[4] = {0.5f, 0.5f, 0.5f, 0.5f};
	assert_int_equal(hks_quat_largest(all_equal, &sign), 3);
	assert_int_equal(sign, 0);
	const float xz[4] = {0.70710678f, 0.0f, -0.70710678f, 0.0f};
	assert_int_equal(hks_quat_largest(xz, &sign), 2);
	assert_int_equal(sign, 1);
	const float neg_w[4] = {0.5f, -0.5f, 0.5f, -0.5f};
	assert_int_equal(hks_quat_largest(neg_w, &sign), 3);
	assert_int_equal(sign, 1);
	const float x_big[4] = {-0.9f, 0.1f, 0.3f, 0.3f};
	assert_int_equal(hks_quat_largest(x_big, &sign), 0);
	assert_int_equal(sign, 1);
	/* −0: sign 0 (q_k < 0 is false) */
	const float zeros[4] = {0.0f, 0.0f, 0.0f, -0.0f};
	assert_int_equal(hks_quat_largest(zeros, &sign), 3);
	assert_int_equal(sign, 0);
	/* all NaN: no comparison holds → k = 0, sign 0 */
	const float nans[4] = {NAN, NAN, NAN, NAN};
	assert_int_equal(hks_quat_largest(nans, &sign), 0);
	assert_int_equal(sign, 0);
	/* a NaN in the last lane: maxss returns it, nothing compares ≥ NaN → 0 */
	const float nan_w[4] = {0.1f, 0.9f, 0.2f, NAN};
	assert_int_equal(hks_quat_largest(nan_w, &sign), 0);
	/* a NaN in the first lane: max continues over the numbers */
	const float nan_x[4] = {NAN, 0.9f, 0.2f, 0.3f};
	assert_int_equal(hks_quat_largest(nan_x, &sign), 1);
}

/* ---- §9.5 hand-computed patterns ---------------------------------------- */

static void test_identity_patterns(void **state)
{
	(void)state;
	const float id[4] = {0.0f, 0.0f, 0.0f, 1.0f};
	uint8_t b[16];
	/* ThreeComp40: k = 3, c = 2047 = 0x7FF for all three:
	 * B0 = 0xFF, B1 = (0x7FF << 4) | (0x7FF >> 8) = 0xF0 | 0x07, B2 = 0x7F, B3 = 0xFF, B4 = 0x07 | 3 << 4 */
	assert_int_equal(hks_pack_quaternion(HKS_ROT_THREECOMP40, id, b), 5);
	const uint8_t w40[5] = {0xFF, 0xF7, 0x7F, 0xFF, 0x37};
	assert_memory_equal(b, w40, 5);
	/* ThreeComp48: c = 16383 = 0x3FFF; k = 3 sets the top bits of W0 and W1 */
	assert_int_equal(hks_pack_quaternion(HKS_ROT_THREECOMP48, id, b), 6);
	const uint8_t w48[6] = {0xFF, 0xBF, 0xFF, 0xBF, 0xFF, 0x3F};
	assert_memory_equal(b, w48, 6);
	/* ThreeComp24: c = 63 = 0x3F, k = 3 → bit 7 of B0 and B1 */
	assert_int_equal(hks_pack_quaternion(HKS_ROT_THREECOMP24, id, b), 3);
	const uint8_t w24[3] = {0xBF, 0xBF, 0x3F};
	assert_memory_equal(b, w24, 3);
	/* Uncompressed: the floats as they are */
	assert_int_equal(hks_pack_quaternion(HKS_ROT_UNCOMPRESSED, id, b), 16);
	const uint8_t w5[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x3F};
	assert_memory_equal(b, w5, 16);
	/* Polar32: x = y = z = 0 → all zero */
	assert_int_equal(hks_pack_quaternion(HKS_ROT_POLAR32, id, b), 4);
	const uint8_t w0[4] = {0, 0, 0, 0};
	assert_memory_equal(b, w0, 4);
	assert_int_equal(hks_pack_quaternion(6, id, b), 0);
	assert_true(hks_pack_quaternion_exact(1) && hks_pack_quaternion_exact(2) && hks_pack_quaternion_exact(3) &&
	            hks_pack_quaternion_exact(5));
	assert_false(hks_pack_quaternion_exact(0) || hks_pack_quaternion_exact(4));
}

static void test_truncation_not_rounding(void **state)
{
	(void)state;
	/* q = (0.00034, 0, 0, 1): 0.00034·2894.8953 = 0.984… → truncated to 0 → c0 = 2047,
	 * where rounding would give 2048; −0.00034 truncates toward zero too */
	uint8_t b[5];
	const float q[4] = {0.00034f, 0.0f, 0.0f, 0.99999994f};
	hks_pack_quaternion(HKS_ROT_THREECOMP40, q, b);
	assert_int_equal(b[0] | (b[1] & 0xF) << 8, 2047);
	const float qn[4] = {-0.00034f, 0.0f, 0.0f, 0.99999994f};
	hks_pack_quaternion(HKS_ROT_THREECOMP40, qn, b);
	assert_int_equal(b[0] | (b[1] & 0xF) << 8, 2047);
	/* 0.70710678 (= 1/√2, largest non-dropped) → 0.7071068·2894.8953 = 2047.0… → 4094 */
	const float h[4] = {0.70710678f, 0.0f, 0.0f, 0.70710678f};
	hks_pack_quaternion(HKS_ROT_THREECOMP40, h, b);
	assert_int_equal(b[0] | (b[1] & 0xF) << 8, 4094);
	assert_int_equal((b[4] >> 4) & 3, 3); /* the tie goes to w */
}

static void test_saturation(void **state)
{
	(void)state;
	uint8_t b[6];
	/* not normalized: (2, 0, 0, 3), k = 3.
	 * 48: c0 = sat16(46338 + 16383) = 32767; W0 = 0x7FFF | 1 << 15 */
	const float big[4] = {2.0f, 0.0f, 0.0f, 3.0f};
	hks_pack_quaternion(HKS_ROT_THREECOMP48, big, b);
	assert_int_equal(b[0], 0xFF);
	assert_int_equal(b[1], 0xFF);
	/* 24: (5, 0, 0, 9): 445 + 63 → 255; (−5, …): −382 → 0 */
	const float b24[4] = {5.0f, 0.0f, 0.0f, 9.0f}, n24[4] = {-5.0f, 0.0f, 0.0f, 9.0f};
	hks_pack_quaternion(HKS_ROT_THREECOMP24, b24, b);
	assert_int_equal(b[0], 0xFF);
	hks_pack_quaternion(HKS_ROT_THREECOMP24, n24, b);
	assert_int_equal(b[0], 0x80); /* c0 = 0, k & 1 = 1 */
	/* 40: (2, 0, 0, 3): c0 = 5789 + 2047 = 7836 = 0x1E9C, not masked to 12 bits:
	 * B0 = 0x9C, B1 = (c1 << 4) | (c0 >> 8) = 0xF0 | 0x1E = 0xFE (c1 = 2047 = 0x7FF) */
	hks_pack_quaternion(HKS_ROT_THREECOMP40, big, b);
	assert_int_equal(b[0], 0x9C);
	assert_int_equal(b[1], 0xFE);
	/* a value beyond int16: (20, 0, 0, 30): 57897 + 2047 → 32767 = 0x7FFF:
	 * B0 = 0xFF, B1 = 0xF0 | (0x7FFF >> 8 = 0x7F) = 0xFF: c0's high bits spill into c1's nibble */
	const float huge[4] = {20.0f, 0.0f, 0.0f, 30.0f};
	hks_pack_quaternion(HKS_ROT_THREECOMP40, huge, b);
	assert_int_equal(b[0], 0xFF);
	assert_int_equal(b[1], 0xFF);
}

/* ---- §9.6 NaN behaviour --------------------------------------------------- */

static void test_nan_patterns(void **state)
{
	(void)state;
	const float nans[4] = {NAN, NAN, NAN, NAN};
	uint8_t b[16];
	hks_pack_quaternion(HKS_ROT_THREECOMP40, nans, b);
	const uint8_t w40[5] = {0x00, 0x80, 0x00, 0x00, 0x80};
	assert_memory_equal(b, w40, 5);
	hks_pack_quaternion(HKS_ROT_THREECOMP48, nans, b);
	const uint8_t w48[6] = {0x00, 0x80, 0x00, 0x80, 0x00, 0x80};
	assert_memory_equal(b, w48, 6);
	hks_pack_quaternion(HKS_ROT_THREECOMP24, nans, b);
	const uint8_t w24[3] = {0, 0, 0};
	assert_memory_equal(b, w24, 3);
	/* a zero-length control point: normU gives NaNs (x86 default NaN 0xFFC00000
	 * for 0·∞), ThreeComp40 gives the retail pattern, Uncompressed four NaNs */
	const float zero[4] = {0.0f, 0.0f, 0.0f, 0.0f};
	const hks_rcp_model *models[2] = {intel(), zen()};
	for (int mi = 0; mi < 2; mi++) {
		float n[4];
		hks_normalize_unguarded(models[mi], zero, n);
		for (int i = 0; i < 4; i++)
			assert_true(isnan(n[i]));
		assert_int_equal(hks_pack_rotation(models[mi], HKS_ROT_THREECOMP40, zero, b), 5);
		assert_memory_equal(b, w40, 5);
		assert_int_equal(hks_pack_rotation(models[mi], HKS_ROT_UNCOMPRESSED, zero, b), 16);
		for (int i = 0; i < 4; i++) {
			uint32_t u = (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 | (uint32_t)b[4 * i + 2] << 16 |
			             (uint32_t)b[4 * i + 3] << 24;
			assert_true((u & 0x7FC00000u) == 0x7FC00000u); /* a quiet NaN */
		}
	}
	/* the decoder sees the pattern as (0, −0.7071, −0.7043, −0.7071) (FORMAT.md §5.2) */
	float q[4];
	decode(1, w40, q);
	assert_true(q[0] == 0.0f);
	assert_true(fabsf(q[1] + 0.70710683f) < 1e-6f && fabsf(q[3] + 0.70710683f) < 1e-6f);
	assert_true(fabsf(q[2] + 0.70434332f) < 1e-6f);
	/* Uncompressed keeps a NaN payload bit for bit */
	const float payload[4] = {fb(0x7FC00000u), fb(0xFFC00001u), 1.0f, 0.0f};
	hks_pack_quaternion(HKS_ROT_UNCOMPRESSED, payload, b);
	assert_int_equal(b[3], 0x7F);
	assert_int_equal(b[4], 0x01);
	assert_int_equal(b[7], 0xFF);
}

/* ---- round trip -------------------------------------------------------------- */

static void test_round_trip(void **state)
{
	(void)state;
	/* per selector: the scale, i.e. one truncation step is 1/scale */
	const unsigned sels[4] = {1, 2, 3, 5};
	const float step[4] = {1.0f / 2894.8953f, 1.0f / 23169.061f, 1.0f / 89.095451f, 0.0f};
	const uint32_t size[4] = {5, 6, 3, 16};
	const hks_rcp_model *models[2] = {intel(), zen()};
	for (int trial = 0; trial < 20000; trial++) {
		float p[4] = {rnd_sym(), rnd_sym(), rnd_sym(), rnd_sym()};
		if (hks_len2(p) < 1e-3f)
			continue;
		const hks_rcp_model *m = models[trial & 1];
		float q[4];
		hks_normalize_unguarded(m, p, q);
		for (int s = 0; s < 4; s++) {
			uint8_t b[16];
			assert_int_equal(hks_pack_rotation(m, sels[s], p, b), size[s]);
			if (sels[s] == 1) /* valid unit quaternions: fields 0..4094, bit 39 clear (§9.5) */
				assert_int_equal(b[4] & 0x80, 0);
			float d[4];
			decode(sels[s], b, d);
			unsigned sign;
			unsigned k = hks_quat_largest(q, &sign);
			for (int i = 0; i < 4; i++) {
				if (sels[s] == 5) {
					assert_true(d[i] == q[i]);
					continue;
				}
				float err = q[i] - d[i];
				if ((unsigned)i != k) {
					/* truncation toward zero: within one step, never away from zero */
					assert_true(fabsf(err) <= step[s] * 1.0001f + 1e-7f);
					assert_true(fabsf(d[i]) <= fabsf(q[i]) + 1e-7f);
				} else {
					/* the reconstructed component: the other three are smaller in
					 * magnitude by up to one step each; |q| = 1 within rsqrtNR */
					assert_true(fabsf(err) <= 3.0f * step[s] + 1e-3f);
					assert_true((d[i] < 0.0f) == (q[i] < 0.0f) || d[i] == 0.0f);
				}
			}
		}
	}
}

/* Every value the unpacker gives has bytes the exact repacker finds (docs/RECORD.md "Inversion",
 * rotations); the packer fed the same value misses some (the reason the repacker exists). */
/* ThreeComp fields (the record's point residuals): split and join are inverse on every packer output,
 * a component out of range or a bit no packer writes is refused */
static void test_threecomp_fields(void **state)
{
	(void)state;
	static const unsigned sels[3] = {HKS_ROT_THREECOMP40, HKS_ROT_THREECOMP48, HKS_ROT_THREECOMP24};
	static const unsigned bits[3] = {12, 15, 7};
	uint32_t seed = 12345;
	for (unsigned s = 0; s < 3; s++) {
		assert_int_equal(hks_threecomp_bits(sels[s]), bits[s]);
		uint32_t size = hks_rotation_size(sels[s]);
		for (int it = 0; it < 2000; it++) {
			float q[4], n = 0.0f;
			for (int l = 0; l < 4; l++) {
				seed = seed * 1664525u + 1013904223u;
				q[l] = (float)((double)(seed >> 8) / 16777216.0 - 0.5);
				n += q[l] * q[l];
			}
			n = sqrtf(n);
			for (int l = 0; l < 4; l++)
				q[l] /= n;
			uint8_t b[16], back[16];
			assert_int_equal(hks_pack_quaternion(sels[s], q, b), size);
			uint16_t c[3];
			unsigned k, sign;
			assert_true(hks_threecomp_split(sels[s], b, c, &k, &sign));
			assert_true(hks_threecomp_join(sels[s], k, sign, c, back));
			assert_memory_equal(back, b, size);
			for (int i = 0; i < 3; i++)
				assert_true(c[i] < (1u << bits[s]));
			c[it % 3] = (uint16_t)(1u << bits[s]);
			assert_false(hks_threecomp_join(sels[s], k, sign, c, back));
		}
	}
	uint8_t b40[5] = {1, 2, 3, 4, 0x80}; /* ThreeComp40's top bit: no packer sets it */
	uint16_t c[3];
	unsigned k, sign;
	assert_false(hks_threecomp_split(HKS_ROT_THREECOMP40, b40, c, &k, &sign));
	assert_false(hks_threecomp_split(HKS_ROT_UNCOMPRESSED, b40, c, &k, &sign));
	assert_int_equal(hks_threecomp_bits(HKS_ROT_POLAR32), 0u);
}

static void test_repack_exact(void **state)
{
	(void)state;
	const unsigned sels[4] = {HKS_ROT_THREECOMP40, HKS_ROT_THREECOMP48, HKS_ROT_THREECOMP24, HKS_ROT_UNCOMPRESSED};
	uint32_t x = 2463534242u;
	unsigned packer_missed[4] = {0, 0, 0, 0};
	for (int trial = 0; trial < 20000; trial++) {
		for (int s = 0; s < 4; s++) {
			uint32_t size = hks_rotation_size(sels[s]);
			uint8_t b[16], r[16], p[16];
			for (uint32_t i = 0; i < size; i++) {
				x ^= x << 13;
				x ^= x >> 17;
				x ^= x << 5;
				b[i] = (uint8_t)x;
			}
			if (sels[s] == HKS_ROT_UNCOMPRESSED)
				for (int i = 0; i < 4; i++) /* finite components */
					b[4 * i + 3] &= 0x3F;
			float t[4], back[4];
			hks_unpack_quaternion(sels[s], b, t);
			assert_int_equal(hks_repack_quaternion_exact(sels[s], t, r), 1);
			hks_unpack_quaternion(sels[s], r, back);
			for (int i = 0; i < 4; i++)
				assert_int_equal(hks_f32_bits(back[i]), hks_f32_bits(t[i]));
			hks_pack_quaternion(sels[s], t, p);
			hks_unpack_quaternion(sels[s], p, back);
			for (int i = 0; i < 4; i++)
				if (hks_f32_bits(back[i]) != hks_f32_bits(t[i])) {
					packer_missed[s]++;
					break;
				}
		}
	}
	print_message("packer misses among 20000 unpacked values: ThreeComp40 %u, 48 %u, 24 %u, uncompressed %u\n",
	              packer_missed[0], packer_missed[1], packer_missed[2], packer_missed[3]);
	assert_true(packer_missed[0] + packer_missed[1] + packer_missed[2] > 0);
	/* not on the grid: refused */
	const float off_grid[4] = {0.1f, 0.2f, 0.3f, 0.9f};
	uint8_t r[16];
	assert_int_equal(hks_repack_quaternion_exact(HKS_ROT_THREECOMP40, off_grid, r), 0);
	assert_int_equal(hks_repack_quaternion_exact(HKS_ROT_POLAR32, off_grid, r), 0);
}

static void test_polar_and_straight(void **state)
{
	(void)state;
	/* structure only (not bit-exact with Havok): a round trip stays close */
	for (int trial = 0; trial < 2000; trial++) {
		float p[4] = {rnd_sym(), rnd_sym(), rnd_sym(), rnd_sym()};
		if (hks_len2(p) < 1e-2f)
			continue;
		float q[4];
		hks_normalize_unguarded(hks_rcp_model_get(HKS_CPU_EXACT), p, q);
		uint8_t b[4];
		float d[4];
		assert_int_equal(hks_pack_quaternion(HKS_ROT_POLAR32, q, b), 4);
		decode(0, b, d);
		/* the same rotation: |dot| close to 1 */
		float dot = fabsf(hks_dot4(q, d));
		assert_true(dot > 0.995f);
		assert_int_equal(hks_pack_quaternion(HKS_ROT_STRAIGHT16, q, b), 2);
		decode(4, b, d);
		assert_true(fabsf(hks_dot4(q, d)) > 0.9f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_largest),
		cmocka_unit_test(test_identity_patterns),
		cmocka_unit_test(test_truncation_not_rounding),
		cmocka_unit_test(test_saturation),
		cmocka_unit_test(test_nan_patterns),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_repack_exact),
		cmocka_unit_test(test_threecomp_fields),
		cmocka_unit_test(test_polar_and_straight),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
