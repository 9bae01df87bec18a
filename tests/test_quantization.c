/*
 * Dequantization (FORMAT.md §3) on hand-built bytes. Expected values are
 * binary32 bit patterns worked out independently of the library (f32
 * arithmetic, one rounding per operation, in the spec's order).
 */
#include "hks_test.h"
#include "internal.h"

#include <math.h>
#include <string.h>

static void expect_bits(float got, uint32_t want, const char *what)
{
	if (hks_f32_bits(got) != want) {
		print_error("%s: got %.9g (0x%08X), want 0x%08X (%.9g)\n", what, (double)got, hks_f32_bits(got), want,
		            (double)hks_f32_from_bits(want));
		fail();
	}
}

static void expect_quat(const float q[4], uint32_t x, uint32_t y, uint32_t z, uint32_t w)
{
	expect_bits(q[0], x, "x");
	expect_bits(q[1], y, "y");
	expect_bits(q[2], z, "z");
	expect_bits(q[3], w, "w");
}

/* Build the 5 bytes of a ThreeComp40 value (FORMAT.md §3.4 layout). */
static void pack40(uint8_t out[5], unsigned a, unsigned b, unsigned c, unsigned k, unsigned sign, unsigned bit39)
{
	uint64_t v = (uint64_t)a | ((uint64_t)b << 12) | ((uint64_t)c << 24) | ((uint64_t)k << 36) |
	             ((uint64_t)sign << 38) | ((uint64_t)bit39 << 39);
	for (int i = 0; i < 5; i++)
		out[i] = (uint8_t)(v >> (8 * i));
}

/* ±1/√2 steps of each selector (hand-computed f32 products). */
#define M_S40_0 0xBF3504F4u    /* (0 − 2047)·S40 */
#define M_S40_4094 0x3F3504F4u /* (4094 − 2047)·S40 */
#define M_S40_4095 0x3F351B97u /* (4095 − 2047)·S40 = 2048·S40 (exact) */
#define M_S40_8 0xBF344FD8u    /* (8 − 2047)·S40 */
#define NEG_ZERO 0x80000000u

static void test_scalar(void **state)
{
	(void)state;
	/* 16-bit: ((f32)v · 0x37800080) · (max − min) + min */
	expect_bits(hks_dequantize_scalar(1, 65535, -1.5f, 2.25f), 0x40100000u, "16-bit top");
	expect_bits(hks_dequantize_scalar(1, 12345, -1.5f, 2.25f), 0xBF4B298Bu, "16-bit 12345");
	expect_bits(hks_dequantize_scalar(1, 0, 0.25f, 0.5f), 0x3E800000u, "16-bit zero");
	expect_bits(hks_dequantize_scalar(1, 255, -3.0f, 7.0f), 0xC03D827Eu, "16-bit 255");
	expect_bits(hks_dequantize_scalar(1, 65534, hks_f32_from_bits(0xBDCCCCCDu), hks_f32_from_bits(0x3E99999Au)),
	            0x3E9998CDu, "16-bit 65534");
	/* 8-bit: 1/255 = 0x3B808081 */
	expect_bits(hks_dequantize_scalar(0, 255, -3.0f, 7.0f), 0x40E00000u, "8-bit top");
	expect_bits(hks_dequantize_scalar(0, 77, -3.0f, 7.0f), 0x3CA0A100u, "8-bit 77");
	expect_bits(hks_dequantize_scalar(0, 0, 0.25f, 0.5f), 0x3E800000u, "8-bit zero");
	/* Dividing by 65535 instead of multiplying by the f32 reciprocal differs
	 * in the last bit for some values (§7 #9): make sure we multiply. */
	int differs = 0;
	for (uint32_t v = 0; v <= 65535; v++) {
		float mine = hks_dequantize_scalar(1, v, -1.0f, 3.0f);
		float s = (float)v * hks_f32_from_bits(0x37800080u);
		float want = (s * 4.0f) + -1.0f;
		assert_int_equal(hks_f32_bits(mine), hks_f32_bits(want));
		if (hks_f32_bits(mine) != hks_f32_bits(((float)v / 65535.0f) * 4.0f + -1.0f))
			differs++;
	}
	assert_true(differs > 0);
	/* NaN bounds propagate (§5.3 rule 2) */
	assert_true(isnan(hks_dequantize_scalar(1, 100, hks_f32_from_bits(0x7FC00000u), 1.0f)));
}

static void test_threecomp40_extremes(void **state)
{
	(void)state;
	uint8_t b[5];
	float q[4];
	/* k = 3 (w missing), all fields at the centre: (0, 0, 0, 1) */
	pack40(b, 2047, 2047, 2047, 3, 0, 0);
	hks_unpack_quaternion(HKS_ROT_THREECOMP40, b, q);
	expect_quat(q, 0, 0, 0, 0x3F800000u);
	/* field 0 in x, 4094 in z, centre in y; w missing: 1 − (½ + ½) rounds to
	 * a tiny value or ≤ 0 */
	pack40(b, 0, 2047, 4094, 3, 1, 0);
	hks_unpack_quaternion(HKS_ROT_THREECOMP40, b, q);
	expect_bits(q[0], M_S40_0, "x = field 0");
	expect_bits(q[1], 0, "y = centre");
	expect_bits(q[2], M_S40_4094, "z = field 4094");
	/* s = 2·(0x3F3504F4)² > 1 → t < 0 → missing 0, negative sign → −0 */
	expect_bits(q[3], NEG_ZERO, "w missing, t <= 0, sign set");
	/* 4095 (never produced) decodes as 2048 steps */
	pack40(b, 4095, 2047, 2047, 0, 0, 0);
	hks_unpack_quaternion(HKS_ROT_THREECOMP40, b, q);
	expect_bits(q[1], M_S40_4095, "field 4095");
	expect_bits(q[2], 0, "centre");
	expect_bits(q[3], 0, "centre");
	assert_true(q[0] > 0.70f && q[0] < 0.71f);
}

static void test_threecomp40_missing_index_and_sign(void **state)
{
	(void)state;
	uint8_t b[5];
	float q[4];
	for (unsigned k = 0; k < 4; k++) {
		for (unsigned sign = 0; sign < 2; sign++) {
			/* stored fields: centre, 0, centre → the missing one is
			 * sqrt(1 − ½·(1+ε)) ≈ 0.7071, placed at slot k */
			pack40(b, 2047, 0, 2047, k, sign, 0);
			hks_unpack_quaternion(HKS_ROT_THREECOMP40, b, q);
			unsigned slot = 0;
			for (unsigned i = 0; i < 4; i++) {
				if (i == k)
					continue;
				expect_bits(q[i], slot == 1 ? M_S40_0 : 0, "stored slot in ascending order");
				slot++;
			}
			float t = 1.0f - ((0.0f + hks_f32_from_bits(M_S40_0) * hks_f32_from_bits(M_S40_0)) + 0.0f);
			float mag = sqrtf(t);
			expect_bits(q[k], hks_f32_bits(sign ? -mag : mag), "missing component");
			assert_true(mag > 0.7071f && mag < 0.70711f);
		}
	}
}

static void test_packed_nan_pattern(void **state)
{
	(void)state;
	/* FORMAT.md §5.2: bytes 00 80 00 00 80 → a = 0, b = 8, c = 0, k = 0,
	 * sign = 0, bit 39 set → (0, −0.70710683, −0.70434332, −0.70710683).
	 * Checked: a sum of squares of 1.4961 > 1 makes the missing x 0. */
	const uint8_t b[5] = {0x00, 0x80, 0x00, 0x00, 0x80};
	uint8_t mine[5];
	pack40(mine, 0, 8, 0, 0, 0, 1);
	assert_memory_equal(b, mine, 5);
	float q[4];
	hks_unpack_quaternion(HKS_ROT_THREECOMP40, b, q);
	expect_quat(q, 0, M_S40_0, M_S40_8, M_S40_0);
	assert_true(fabsf(q[1] - -0.70710683f) < 1e-7f);
	assert_true(fabsf(q[2] - -0.70434332f) < 1e-7f);
	/* bit 39 is ignored (§5.3 rule 4) */
	float q2[4];
	pack40(mine, 0, 8, 0, 0, 0, 0);
	hks_unpack_quaternion(HKS_ROT_THREECOMP40, mine, q2);
	assert_memory_equal(q, q2, sizeof(q));
}

static void test_worked_example(void **state)
{
	(void)state;
	/* FORMAT.md §2.9 (values given in the spec text) */
	const uint8_t cp0[5] = {0xff, 0xf7, 0x7f, 0xfd, 0x5f};
	float q[4];
	hks_unpack_quaternion(HKS_ROT_THREECOMP40, cp0, q);
	/* a = 2047, b = 2047, c = 4093, k = 1, sign = 1 */
	expect_quat(q, 0, 0xBF351B94u, 0, 0x3F34EE50u);
	assert_true(fabsf(q[1] - -0.70745206f) < 1e-7f && fabsf(q[3] - 0.70676136f) < 1e-7f);
	const uint8_t st[5] = {0xff, 0xd7, 0x11, 0xff, 0x37};
	hks_unpack_quaternion(HKS_ROT_THREECOMP40, st, q);
	/* a = 2047, b = 285, c = 2047, k = 3, sign = 0 */
	expect_quat(q, 0, 0xBF1BD0FDu, 0, 0x3F4B1E6Cu);
	assert_true(fabsf(q[1] - -0.60865766f) < 1e-7f && fabsf(q[3] - 0.79343295f) < 1e-7f);
}

static void pack48(uint8_t out[6], unsigned a, unsigned b, unsigned c, unsigned k, unsigned sign)
{
	uint16_t w0 = (uint16_t)(a | ((k & 1u) << 15));
	uint16_t w1 = (uint16_t)(b | ((k >> 1) << 15));
	uint16_t w2 = (uint16_t)(c | (sign << 15));
	hks_put_le16(out, w0);
	hks_put_le16(out + 2, w1);
	hks_put_le16(out + 4, w2);
}

static void test_threecomp48(void **state)
{
	(void)state;
	uint8_t b[6];
	float q[4];
	/* (n − 16383)·0x383507C7: 0 → 0xBF3504F3, 32766 → 0x3F3504F3, 32767 → 0x3F3507C7 */
	pack48(b, 0, 16383, 32766, 3, 0);
	hks_unpack_quaternion(HKS_ROT_THREECOMP48, b, q);
	expect_bits(q[0], 0xBF3504F3u, "x = 0");
	expect_bits(q[1], 0, "y = centre");
	expect_bits(q[2], 0x3F3504F3u, "z = 32766");
	float t = 1.0f - ((hks_f32_from_bits(0xBF3504F3u) * hks_f32_from_bits(0xBF3504F3u) + 0.0f) +
	                  hks_f32_from_bits(0x3F3504F3u) * hks_f32_from_bits(0x3F3504F3u));
	expect_bits(q[3], hks_f32_bits(t > 0 ? sqrtf(t) : 0.0f), "w reconstructed");
	pack48(b, 32767, 16383, 16383, 0, 1);
	hks_unpack_quaternion(HKS_ROT_THREECOMP48, b, q);
	expect_bits(q[1], 0x3F3507C7u, "y = 32767");
	expect_bits(q[2], 0, "z");
	expect_bits(q[3], 0, "w");
	assert_true(q[0] < -0.7f && q[0] > -0.71f); /* missing x, negative: reconstructed, not left at 0 (§7 #3) */
	/* every missing index and sign */
	for (unsigned k = 0; k < 4; k++)
		for (unsigned s = 0; s < 2; s++) {
			pack48(b, 16383, 16383, 16383, k, s);
			hks_unpack_quaternion(HKS_ROT_THREECOMP48, b, q);
			for (unsigned i = 0; i < 4; i++)
				expect_bits(q[i], i == k ? (s ? 0xBF800000u : 0x3F800000u) : 0, "identity-like");
		}
	/* predicted NaN pattern (ENCODER.md §9.6): 00 80 00 80 00 80 → fields 0, k = 3, sign 1 */
	const uint8_t nanpat[6] = {0x00, 0x80, 0x00, 0x80, 0x00, 0x80};
	hks_unpack_quaternion(HKS_ROT_THREECOMP48, nanpat, q);
	expect_quat(q, 0xBF3504F3u, 0xBF3504F3u, 0xBF3504F3u, NEG_ZERO);
}

static void test_threecomp24(void **state)
{
	(void)state;
	float q[4];
	/* stored 0, 63, 126; k = (b0>>7) | (b1>>7)<<1 = 1 | 0 = 1; sign = b2>>7 = 1 */
	const uint8_t b[3] = {0x80 | 0, 63, 0x80 | 126};
	hks_unpack_quaternion(HKS_ROT_THREECOMP24, b, q);
	expect_bits(q[0], 0xBF3504F3u, "x = 0");
	expect_bits(q[2], 0, "z = 63");
	expect_bits(q[3], 0x3F3504F3u, "w = 126");
	float t = 1.0f - ((q[0] * q[0] + 0.0f) + q[3] * q[3]);
	expect_bits(q[1], hks_f32_bits(t > 0 ? -sqrtf(t) : -0.0f), "missing y, negative");
	const uint8_t top[3] = {127, 0x80 | 63, 63};
	hks_unpack_quaternion(HKS_ROT_THREECOMP24, top, q);
	/* k = 2: stored x, y, w */
	expect_bits(q[0], 0x3F37E485u, "127 = 64 steps (exact)");
	expect_bits(q[1], 0, "y");
	expect_bits(q[3], 0, "w");
}

static void test_polar32(void **state)
{
	(void)state;
	float q[4];
	uint8_t b[4];
	/* r = 0: R = 0, |w| = 1, the vector part 0 → (0, 0, 0, 1); sign bits */
	hks_put_le32(b, 0u);
	hks_unpack_quaternion(HKS_ROT_POLAR32, b, q);
	expect_quat(q, 0, 0, 0, 0x3F800000u);
	hks_put_le32(b, 0x80000000u);
	hks_unpack_quaternion(HKS_ROT_POLAR32, b, q);
	expect_bits(q[3], 0xBF800000u, "w sign");
	/* r = 1023: R = 1023·(1/1023) ≈ 1, w ≈ 0, |xyz| ≈ 1; pt = 0 → along z */
	hks_put_le32(b, 1023u << 18);
	hks_unpack_quaternion(HKS_ROT_POLAR32, b, q);
	assert_true(fabsf(q[3]) < 1e-6f);
	assert_true(fabsf(q[2] - 1.0f) < 1e-3f);
	assert_true(q[0] == 0.0f && q[1] == 0.0f);
	/* φi = 511, θo = 0: pt = 511² → φ = π/2, θ = 0 → along x; sign of x */
	hks_put_le32(b, (511u * 511u) | (1023u << 18) | (1u << 28));
	hks_unpack_quaternion(HKS_ROT_POLAR32, b, q);
	assert_true(fabsf(q[0] + 1.0f) < 1e-3f);
	assert_true(fabsf(q[1]) < 1e-6f && fabsf(q[2]) < 1e-6f);
	/* φi = 511, θo = 2·511: θ = π/2 → along y */
	hks_put_le32(b, (511u * 511u + 1022u) | (1023u << 18));
	hks_unpack_quaternion(HKS_ROT_POLAR32, b, q);
	assert_true(fabsf(q[1] - 1.0f) < 1e-3f && fabsf(q[0]) < 1e-6f && fabsf(q[2]) < 1e-6f);
	/* a middle value has unit length: R = 0.5 gives |w| = 0.75 (§7 #5: the
	 * integer r is converted by value, not by bits) */
	uint32_t r = 512, pt = 300u * 300u + 150u;
	hks_put_le32(b, pt | (r << 18));
	hks_unpack_quaternion(HKS_ROT_POLAR32, b, q);
	float R = (float)r * hks_f32_from_bits(0x3A802008u);
	expect_bits(q[3], hks_f32_bits(1.0f - R * R), "w");
	float len = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
	assert_true(fabsf(len - 1.0f) < 1e-5f);
	/* θ = (π/4)·150/300 = π/8, φ = (π/2)·300/511 */
	const double pi = 3.14159265358979323846;
	double phi = (pi / 2) * 300 / 511, theta = pi / 8;
	double mag = sqrt(1.0 - (double)q[3] * q[3]);
	assert_true(fabs(q[0] - mag * sin(phi) * cos(theta)) < 1e-5);
	assert_true(fabs(q[1] - mag * sin(phi) * sin(theta)) < 1e-5);
	assert_true(fabs(q[2] - mag * cos(phi)) < 1e-5);
}

static void test_straight16(void **state)
{
	(void)state;
	float q[4];
	/* provisional constants (§3.8 [U]): (n − 7.5)/7.5, normalized */
	const uint8_t zero[2] = {0x00, 0x00};
	hks_unpack_quaternion(HKS_ROT_STRAIGHT16, zero, q);
	for (int i = 0; i < 4; i++)
		assert_true(fabsf(q[i] + 0.5f) < 1e-7f);
	const uint8_t mixed[2] = {0xF0, 0x7F}; /* x 0, y 15, z 15, w 7 */
	hks_unpack_quaternion(HKS_ROT_STRAIGHT16, mixed, q);
	assert_true(q[0] < 0 && q[1] > 0 && q[2] > 0 && q[3] < 0);
	assert_true(fabsf(q[0] + q[1]) < 1e-7f);
	float len = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
	assert_true(fabsf(len - 1.0f) < 1e-6f);
	assert_false(hks_selector_verified(HKS_ROT_STRAIGHT16));
	assert_true(hks_selector_verified(HKS_ROT_THREECOMP40));
	assert_false(hks_selector_verified(6));
}

static void test_uncompressed_and_sizes(void **state)
{
	(void)state;
	uint8_t b[16];
	const uint32_t bits[4] = {0x7FC00001u, 0xFFC00000u, 0x3F800000u, 0x80000000u};
	for (int i = 0; i < 4; i++)
		hks_put_le32(b + 4 * i, bits[i]);
	float q[4];
	hks_unpack_quaternion(HKS_ROT_UNCOMPRESSED, b, q);
	expect_quat(q, bits[0], bits[1], bits[2], bits[3]);
	/* the retail NaN control point (§5.1): four 0x7FC00000 */
	for (int i = 0; i < 4; i++)
		hks_put_le32(b + 4 * i, 0x7FC00000u);
	hks_unpack_quaternion(HKS_ROT_UNCOMPRESSED, b, q);
	expect_quat(q, 0x7FC00000u, 0x7FC00000u, 0x7FC00000u, 0x7FC00000u);
	/* invalid selector: NaN, never a read */
	hks_unpack_quaternion(9, NULL, q);
	assert_true(isnan(q[0]) && isnan(q[3]));
	/* FORMAT.md §3.2 sizes and alignments */
	const uint32_t size[6] = {4, 5, 6, 3, 2, 16}, align[6] = {4, 1, 2, 1, 2, 4};
	for (unsigned s = 0; s < 6; s++) {
		assert_int_equal(hks_rotation_size(s), size[s]);
		assert_int_equal(hks_rotation_alignment(s), align[s]);
	}
}

/* The batch unpacker gives the same bits as the single one, for every
 * selector, on random bytes (all 4096 field values and every k/sign reached). */
static void test_batch_matches_single(void **state)
{
	(void)state;
	uint32_t x = 987654321u;
	uint8_t bytes[37 * 16];
	float batch[37 * 4], one[4];
	for (int round = 0; round < 2000; round++) {
		for (size_t i = 0; i < sizeof(bytes); i++) {
			x = x * 1103515245u + 12345u;
			bytes[i] = (uint8_t)(x >> 16);
		}
		if (round == 0)
			memcpy(bytes, (const uint8_t[5]){0x00, 0x80, 0x00, 0x00, 0x80}, 5); /* the packed NaN */
		for (unsigned sel = 0; sel <= 5; sel++) {
			size_t count = 1 + (size_t)(round % 37);
			hks_unpack_quaternions(sel, bytes, count, batch);
			for (size_t i = 0; i < count; i++) {
				hks_unpack_quaternion(sel, bytes + i * hks_rotation_size(sel), one);
				assert_memory_equal(batch + 4 * i, one, sizeof(one));
			}
		}
#if defined(HKS_HAVE_AVX2)
		/* the AVX2 unpacker of the sampler's AVX2 path, where the CPU has it */
		if (hks_cpu_avx2()) {
			size_t count = 1 + (size_t)(round % 37);
			hks_unpack_threecomp40_avx2(bytes, count, batch);
			for (size_t i = 0; i < count; i++) {
				hks_unpack_quaternion(HKS_ROT_THREECOMP40, bytes + i * 5, one);
				assert_memory_equal(batch + 4 * i, one, sizeof(one));
			}
		}
#endif
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scalar),
		cmocka_unit_test(test_threecomp40_extremes),
		cmocka_unit_test(test_threecomp40_missing_index_and_sign),
		cmocka_unit_test(test_packed_nan_pattern),
		cmocka_unit_test(test_worked_example),
		cmocka_unit_test(test_threecomp48),
		cmocka_unit_test(test_threecomp24),
		cmocka_unit_test(test_polar32),
		cmocka_unit_test(test_straight16),
		cmocka_unit_test(test_uncompressed_and_sizes),
		cmocka_unit_test(test_batch_matches_single),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
