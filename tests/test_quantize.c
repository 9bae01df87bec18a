/*
 * Truncating quantizers (ENCODER.md §9.2), CPU model detection (§11.4), part
 * statistics and lane classification (§4.1, §5.3, §5.4) and knot bytes (§8).
 */
#include "hks_test.h"
#include "encode_internal.h"

#include <math.h>
#include <string.h>

static const hks_rcp_model *intel(void) { return hks_rcp_model_get(HKS_CPU_INTEL); }
static const hks_rcp_model *zen(void) { return hks_rcp_model_get(HKS_CPU_AMD_ZEN); }
static float fb(uint32_t u) { return hks_f32_from_bits(u); }

/* FORMAT.md §3.1, written out here independently of src/decode: the decoder
 * the quantizer is the inverse of. */
static float decode16(uint16_t v, float lo, float hi)
{
	const float c = fb(0x37800080u); /* 1/65535 */
	float s = (float)v * c;
	float d = hi - lo;
	return s * d + lo;
}

/* A tiny deterministic generator (xorshift32) for sweeps. */
static uint32_t rng_state = 0x12345678u;
static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}
static float rnd01(void) { return (float)(rnd() >> 8) * (1.0f / 16777216.0f); }

static void test_pack16_hand_values(void **state)
{
	(void)state;
	/* lo = 0, hi = 1: rcp(1) = 1 − 2^-12 on both models, rcpNR(1) = 1 − 2^-24,
	 * x = (1 − 2^-24)·65535 = 65534.996… → truncated to 65534 (§9.2: "rounding
	 * could never give 65534"). */
	assert_int_equal(hks_pack16(intel(), 1.0f, 0.0f, 1.0f), 65534);
	assert_int_equal(hks_pack16(zen(), 1.0f, 0.0f, 1.0f), 65534);
	/* the exact model reaches the top */
	assert_int_equal(hks_pack16(hks_rcp_model_get(HKS_CPU_EXACT), 1.0f, 0.0f, 1.0f), 65535);
	/* lowest → 0, midpoint truncates: 0.5·(1 − 2^-24)·65535 = 32767.498 → 32767 */
	assert_int_equal(hks_pack16(intel(), 0.0f, 0.0f, 1.0f), 0);
	assert_int_equal(hks_pack16(intel(), 0.5f, 0.0f, 1.0f), 32767);
	/* saturation: above hi → 65535, below lo → 0 */
	assert_int_equal(hks_pack16(intel(), 2.0f, 0.0f, 1.0f), 65535);
	assert_int_equal(hks_pack16(zen(), -5.0f, 0.0f, 1.0f), 0);
	assert_int_equal(hks_pack16(intel(), INFINITY, 0.0f, 1.0f), 65535);
	/* max = min: rcp(0) = +∞, 0·∞ = NaN, NaN → 0 through max(x, 0) */
	assert_int_equal(hks_pack16(intel(), 3.0f, 3.0f, 3.0f), 0);
	assert_int_equal(hks_pack16(zen(), 7.0f, 3.0f, 3.0f), 0);
	/* NaN value or NaN bound → 0 (§9.6: "the quantized values of a NaN-bounded lane become 0") */
	assert_int_equal(hks_pack16(intel(), NAN, 0.0f, 1.0f), 0);
	assert_int_equal(hks_pack16(intel(), 0.5f, NAN, 1.0f), 0);
	assert_int_equal(hks_pack16(zen(), 0.5f, 0.0f, NAN), 0);
	/* infinite range: rcp(∞) = 0, ∞·0 = NaN → 0 */
	assert_int_equal(hks_pack16(intel(), 0.0f, -INFINITY, 1.0f), 0);
}

static void test_pack8(void **state)
{
	(void)state;
	/* (1 − 2^-24)·255 = 254.99998 → 254 */
	assert_int_equal(hks_pack8(intel(), 1.0f, 0.0f, 1.0f), 254);
	assert_int_equal(hks_pack8(zen(), 0.0f, 0.0f, 1.0f), 0);
	/* no clamp: 2·(1 − 2^-24)·255 = 509.99997 → 509, low 8 bits 253 */
	assert_int_equal(hks_pack8(intel(), 2.0f, 0.0f, 1.0f), 509 & 0xFF);
	/* −1 → cvtt(−254.99998) = −254 → low 8 bits 2 */
	assert_int_equal(hks_pack8(intel(), -1.0f, 0.0f, 1.0f), (uint8_t)(-254 & 0xFF));
	/* NaN → INT_MIN → low byte 0 */
	assert_int_equal(hks_pack8(intel(), NAN, 0.0f, 1.0f), 0);
	assert_int_equal(hks_pack8(zen(), 1.0f, 1.0f, 1.0f), 0);
}

static void test_pack16_round_trip(void **state)
{
	(void)state;
	const hks_rcp_model *models[3] = {intel(), zen(), hks_rcp_model_get(HKS_CPU_EXACT)};
	for (int trial = 0; trial < 20000; trial++) {
		float lo = (rnd01() - 0.5f) * 200.0f;
		float span = rnd01() * 50.0f + 1e-3f;
		float hi = lo + span;
		float v = lo + rnd01() * (hi - lo);
		float step = (hi - lo) / 65535.0f;
		for (int mi = 0; mi < 3; mi++) {
			uint16_t q = hks_pack16(models[mi], v, lo, hi);
			float back = decode16(q, lo, hi);
			/* truncation: the decoded value lies at most one step below v
			 * (plus the rounding of the decoder and of v − lo) */
			float slack = fabsf(lo) * 1.2e-7f + fabsf(v) * 1.2e-7f + step * 1e-3f;
			assert_true(back <= v + slack);
			assert_true(v - back <= step + slack);
		}
		/* the lowest bound quantizes to 0; the highest to 65535 or 65534 */
		for (int mi = 0; mi < 2; mi++) {
			assert_int_equal(hks_pack16(models[mi], lo, lo, hi), 0);
			uint16_t top = hks_pack16(models[mi], hi, lo, hi);
			assert_true(top == 65535 || top == 65534);
		}
	}
}

/* A lane (lo = 0, hi = d) on which the two models predict different tops. */
static float find_discriminating_range(uint16_t *top_intel, uint16_t *top_zen)
{
	for (uint32_t i = 0; i < 4096; i++) {
		float d = fb(0x3F800000u | i << 11 | 0x155u);
		uint16_t a = hks_pack16(intel(), d, 0.0f, d), b = hks_pack16(zen(), d, 0.0f, d);
		if (a != b) {
			*top_intel = a;
			*top_zen = b;
			return d;
		}
	}
	return 0.0f;
}

static void test_detect(void **state)
{
	(void)state;
	uint16_t ti = 0, tz = 0;
	float d = find_discriminating_range(&ti, &tz);
	assert_true(d > 0.0f);
	hks_quant_lane lanes[6];
	/* five lanes written by "Zen", one undiscriminating (d = 1 gives 65534 on both) */
	for (int i = 0; i < 5; i++)
		lanes[i] = (hks_quant_lane){0.0f, d, tz};
	lanes[5] = (hks_quant_lane){0.0f, 1.0f, 65534};
	hks_detect_result r;
	hks_detect_cpu_model(lanes, 6, HKS_CPU_INTEL, &r);
	assert_int_equal(r.model, HKS_CPU_AMD_ZEN);
	assert_int_equal(r.status, HKS_DETECT_CONSISTENT);
	assert_int_equal(r.lanes, 6);
	assert_int_equal(r.discriminating, 5);
	assert_int_equal(r.zen_matches, 5);
	assert_int_equal(r.intel_matches, 0);
	assert_int_equal(r.zen_all_matches, 6);
	assert_int_equal(r.intel_all_matches, 1);
	/* one Intel lane among them: mixed, the best (Zen) chosen */
	lanes[0].top = ti;
	hks_detect_cpu_model(lanes, 6, HKS_CPU_INTEL, &r);
	assert_int_equal(r.status, HKS_DETECT_MIXED);
	assert_int_equal(r.model, HKS_CPU_AMD_ZEN);
	assert_int_equal(r.intel_matches, 1);
	/* all Intel */
	for (int i = 0; i < 5; i++)
		lanes[i].top = ti;
	hks_detect_cpu_model(lanes, 6, HKS_CPU_AMD_ZEN, &r);
	assert_int_equal(r.model, HKS_CPU_INTEL);
	assert_int_equal(r.status, HKS_DETECT_CONSISTENT);
	/* nothing discriminates: the SDK default, flagged undetermined; unusable
	 * lanes (lo = hi, NaN, infinite) are not counted */
	hks_quant_lane weak[4] = {{0.0f, 1.0f, 65534}, {2.0f, 2.0f, 0}, {NAN, 1.0f, 0}, {-INFINITY, 1.0f, 0}};
	hks_detect_cpu_model(weak, 4, HKS_CPU_AMD_ZEN, &r);
	assert_int_equal(r.model, HKS_CPU_AMD_ZEN);
	assert_int_equal(r.status, HKS_DETECT_UNDETERMINED);
	assert_int_equal(r.lanes, 1);
	hks_detect_cpu_model(NULL, 0, HKS_CPU_INTEL, &r);
	assert_int_equal(r.model, HKS_CPU_INTEL);
	assert_int_equal(hks_cpu_model_for_sdk("20160200"), HKS_CPU_INTEL);
	assert_int_equal(hks_cpu_model_for_sdk("20180100"), HKS_CPU_AMD_ZEN);
	assert_int_equal(hks_cpu_model_for_sdk("20190100"), HKS_CPU_AMD_ZEN);
	assert_int_equal(hks_cpu_model_for_sdk("hk_2010.2.0-r1"), HKS_CPU_INTEL);
	assert_int_equal(hks_cpu_model_for_sdk(NULL), HKS_CPU_INTEL);
}

/* ---- statistics and classification (§4.1, §5.4) ------------------------ */

static void test_statistics(void **state)
{
	(void)state;
	/* one sample: mean = S·rcpNR(1) = S·(1 − 2^-24) — not S (ENCODER.md §13.1) */
	float one[1][4] = {{1.0f, 2.0f, -4.0f, 0.0f}};
	float mean[4], mn[4], mx[4];
	hks_part_statistics(intel(), (const float (*)[4])one, 1, mean, mn, mx);
	assert_int_equal(hks_f32_bits(mean[0]), 0x3F7FFFFFu);
	assert_int_equal(hks_f32_bits(mean[1]), 0x3FFFFFFFu);
	assert_true(mn[2] == -4.0f && mx[2] == -4.0f);
	/* sums in order, then one multiply */
	float three[3][4] = {{1, 0, 0, 0}, {2, 5, 0, 0}, {3, -5, 0, 0}};
	hks_part_statistics(zen(), (const float (*)[4])three, 3, mean, mn, mx);
	float r = hks_rcp_nr(zen(), 3.0f);
	assert_true(mean[0] == 6.0f * r);
	assert_true(mean[1] == 0.0f);
	assert_true(mn[1] == -5.0f && mx[1] == 5.0f && mn[0] == 1.0f && mx[0] == 3.0f);
	/* minss/maxss with NaN: a NaN sample replaces the running value (returns b),
	 * a later number replaces a NaN running value */
	float nan_mid[3][4] = {{1, 1, 0, 0}, {NAN, 2, 0, 0}, {0.5f, 3, 0, 0}};
	hks_vec_bounds((const float (*)[4])nan_mid, 3, mn, mx);
	assert_true(mn[0] == 0.5f && mx[0] == 0.5f);
	float nan_last[2][4] = {{1, 0, 0, 0}, {NAN, 0, 0, 0}};
	hks_vec_bounds((const float (*)[4])nan_last, 2, mn, mx);
	assert_true(isnan(mn[0]) && isnan(mx[0]));
}

static void test_classify_lanes(void **state)
{
	(void)state;
	const float zero[4] = {0, 0, 0, 0};
	float tol = 0.001f;
	/* flat is inclusive, not-identity strict */
	/* lane x: spread exactly tol (2^-10) → flat, away from 0 → static;
	 * y: 0 everywhere → absent; z: spread 0.5 → spline */
	float mean[4] = {1.0f, 0.0f, 0.25f, 0.0f};
	float mn[4] = {1.0f - 0.0009765625f, 0.0f, 0.0f, 0.0f};
	float mx[4] = {1.0f, 0.0f, 0.5f, 0.0f};
	assert_int_equal(hks_classify_lanes(mean, mn, mx, 0.0009765625f, zero), 0x01 | 0x40);
	/* not identity: |mean − I| = tol exactly → absent */
	float m2[4] = {0.0009765625f, 0, 0, 0};
	assert_int_equal(hks_classify_lanes(m2, m2, m2, 0.0009765625f, zero), 0x00);
	/* NaN anywhere → spline */
	float mn3[4] = {NAN, 0, 0, 0}, m3[4] = {1, 0, 0, 0};
	assert_int_equal(hks_classify_lanes(m3, mn3, m3, tol, zero), 0x10);
	float nanmean[4] = {NAN, NAN, 0, 0};
	assert_int_equal(hks_classify_lanes(nanmean, zero, zero, tol, zero), 0x30);
}

static void test_classify_part(void **state)
{
	(void)state;
	enum { N = 40 };
	float s[N][4];
	/* a spline rotation with flat y and w lanes away from identity → 0x5A:
	 * x, z on a small circle keep |q| = 1 with y, w fixed */
	for (int k = 0; k < N; k++) {
		float t = (float)k * 0.15f;
		s[k][0] = 0.01f * cosf(t);
		s[k][1] = 0.6f;
		s[k][2] = 0.01f * sinf(t);
		s[k][3] = sqrtf(1.0f - 0.36f - 0.0001f);
	}
	float mean[4];
	assert_int_equal(hks_classify_part(intel(), HKS_ENC_ROTATION, (const float (*)[4])s, N, 0.001f, 1, mean), 0x5A);
	/* the returned mean is normG-normalized */
	assert_true(fabsf(hks_len2(mean) - 1.0f) < 1e-5f);
	/* identity rotation: absent */
	for (int k = 0; k < N; k++) {
		s[k][0] = s[k][1] = s[k][2] = 0.0f;
		s[k][3] = 1.0f;
	}
	assert_int_equal(hks_classify_part(zen(), HKS_ENC_ROTATION, (const float (*)[4])s, N, 0.001f, 1, NULL), 0x00);
	/* translation: constant x, moving y, zero z; w = 0 is always absent */
	for (int k = 0; k < N; k++) {
		s[k][0] = 3.0f;
		s[k][1] = (float)k * 0.01f;
		s[k][2] = 0.0f;
		s[k][3] = 0.0f;
	}
	assert_int_equal(hks_classify_part(zen(), HKS_ENC_TRANSLATION, (const float (*)[4])s, N, 0.001f, 1, NULL),
	                 0x01 | 0x20);
	/* scale: identity (1, 1, 1, 0) absent; x = 2 static */
	for (int k = 0; k < N; k++) {
		s[k][0] = 2.0f;
		s[k][1] = s[k][2] = 1.0f;
		s[k][3] = 0.0f;
	}
	assert_int_equal(hks_classify_part(intel(), HKS_ENC_SCALE, (const float (*)[4])s, N, 0.001f, 1, NULL), 0x01);
	/* floats: never absent (0 → 0x01), quantization in bits 1-2: 0x03 / 0x12 */
	for (int k = 0; k < N; k++)
		s[k][0] = s[k][1] = s[k][2] = s[k][3] = 0.0f;
	assert_int_equal(hks_classify_part(intel(), HKS_ENC_FLOAT, (const float (*)[4])s, N, 0.001f, 1, NULL), 0x03);
	for (int k = 0; k < N; k++)
		s[k][0] = 0.5f + (float)k * 0.01f;
	assert_int_equal(hks_classify_part(intel(), HKS_ENC_FLOAT, (const float (*)[4])s, N, 0.001f, 1, NULL), 0x12);
	assert_int_equal(hks_classify_part(intel(), HKS_ENC_FLOAT, (const float (*)[4])s, N, 0.001f, 0, NULL), 0x10);
	/* a zero mean rotation: normG guards it to 0 → every lane at distance
	 * |0 − I| compared; w: |0 − 1| > tol but samples flip sign → spline */
	for (int k = 0; k < N; k++) {
		s[k][0] = s[k][1] = s[k][2] = 0.0f;
		s[k][3] = (k & 1) ? 1.0f : -1.0f;
	}
	hks_classify_part(intel(), HKS_ENC_ROTATION, (const float (*)[4])s, N, 0.001f, 1, mean);
	assert_true(mean[3] == 0.0f && !isnan(mean[0]));
}

static void test_normalize(void **state)
{
	(void)state;
	const float z[4] = {0, 0, 0, 0};
	float o[4];
	hks_normalize_guarded(intel(), z, o);
	for (int i = 0; i < 4; i++)
		assert_true(o[i] == 0.0f);
	hks_normalize_unguarded(intel(), z, o);
	for (int i = 0; i < 4; i++)
		assert_true(isnan(o[i]));
	/* len2 pairs (x, z) and (y, w): (1 + 2^-24) + (2^-24 + 2^-24) = 1 + 2^-23,
	 * where the sequential sum would round back to 1 at every step */
	const float e = 0.000244140625f; /* 2^-12 */
	const float q[4] = {1.0f, e, e, e};
	assert_int_equal(hks_f32_bits(hks_len2(q)), 0x3F800001u);
	const float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
	assert_true(hks_dot4(a, b) == 70.0f);
	/* unit quaternion under Intel shrinks by one ulp (§16) */
	const float id[4] = {0, 0, 0, 1};
	hks_normalize_unguarded(intel(), id, o);
	assert_int_equal(hks_f32_bits(o[3]), 0x3F7FFFFFu);
	hks_normalize_unguarded(zen(), id, o);
	assert_int_equal(hks_f32_bits(o[3]), 0x3F800000u);
}

/* ---- SSE rules (§4) ---------------------------------------------------- */

static void test_sse_rules(void **state)
{
	(void)state;
	assert_true(hks_sse_min(1.0f, 2.0f) == 1.0f);
	assert_true(hks_sse_min(NAN, 2.0f) == 2.0f);
	assert_true(isnan(hks_sse_min(2.0f, NAN)));
	assert_true(hks_sse_max(NAN, 0.0f) == 0.0f);
	assert_int_equal(hks_cvtt(-1.9f), -1);
	assert_int_equal(hks_cvtt(2147483520.0f), 2147483520);
	assert_int_equal(hks_cvtt(2147483648.0f), INT32_MIN);
	assert_int_equal(hks_cvtt(-2147483648.0f), INT32_MIN);
	assert_int_equal(hks_cvtt(-3e9f), INT32_MIN);
	assert_int_equal(hks_cvtt(NAN), INT32_MIN);
	assert_int_equal(hks_cvtt(INFINITY), INT32_MIN);
	assert_int_equal(hks_sat16(INT32_MIN + 2047), -32768);
	assert_int_equal(hks_sat16(40000), 32767);
	assert_int_equal(hks_satu8(-3), 0);
	assert_int_equal(hks_satu8(300), 255);
}

/* ---- knot bytes (§8) --------------------------------------------------- */

static void test_knots(void **state)
{
	(void)state;
	/* 31 frames over 1 s: f = 30 · (1/1) = 30 */
	float f = hks_knot_factor(31, 1.0f);
	assert_true(f == 30.0f);
	assert_true(hks_knot_factor(31, 0.0f) == 0.0f);
	/* true division: 1/3 rounded, times 30 */
	assert_true(hks_knot_factor(31, 3.0f) == 30.0f * (1.0f / 3.0f));
	/* +0.5 then truncate */
	assert_int_equal(hks_knot_byte(2.0f / 30.0f, 30.0f), 2);
	assert_int_equal(hks_knot_byte(0.08f, 30.0f), 2);  /* 2.4 */
	assert_int_equal(hks_knot_byte(0.085f, 30.0f), 3); /* 2.55 */
	assert_int_equal(hks_knot_byte(0.5f, 5.0f), 3);    /* 2.5 + 0.5 = 3 */
	assert_int_equal(hks_knot_byte(-1.0f, 1.0f), 0);   /* cvtt(−0.5) = 0 */
	assert_int_equal(hks_knot_byte(300.0f, 1.0f), 300 & 0xFF);
	assert_int_equal(hks_knot_byte(NAN, 1.0f), 0);
	/* a block's frame times ub[i] = i·frameDuration give back the frame numbers */
	float fd = 4.0f / 120.0f;
	float fac = hks_knot_factor(121, 4.0f);
	for (int i = 0; i <= 120; i++)
		assert_int_equal(hks_knot_byte((float)i * fd, fac), i);
	/* write_knots layout: u16 n, u8 p, n + p + 2 bytes */
	const float U[8] = {0, 0, 0, 0, 1, 1, 1, 1};
	uint8_t out[16];
	memset(out, 0xEE, sizeof(out));
	assert_int_equal(hks_write_knots(3, 3, U, 8, 10.0f, out), 11);
	const uint8_t want[11] = {3, 0, 3, 0, 0, 0, 0, 10, 10, 10, 10};
	assert_memory_equal(out, want, 11);
	assert_int_equal(out[11], 0xEE);
	assert_int_equal(hks_write_knots(3, 3, U, 7, 10.0f, out), 0);
	/* duration 0: every knot byte is 0 */
	assert_int_equal(hks_write_knots(3, 3, U, 8, hks_knot_factor(5, 0.0f), out), 11);
	assert_int_equal(out[7], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pack16_hand_values),
		cmocka_unit_test(test_pack8),
		cmocka_unit_test(test_pack16_round_trip),
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_statistics),
		cmocka_unit_test(test_classify_lanes),
		cmocka_unit_test(test_classify_part),
		cmocka_unit_test(test_normalize),
		cmocka_unit_test(test_sse_rules),
		cmocka_unit_test(test_knots),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
