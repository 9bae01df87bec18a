/*
 * The NURBS Book algorithms of src/fit on small known cases: span search,
 * basis functions, curve point, removal bound (A9.8), knot removal (A5.8),
 * degree elevation (A5.9), knot-vector raise / lower, and the f32 helpers.
 */
#include "hks_test.h"
#include "fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------ */

static uint32_t lcg_state = 12345u;
static float lcg_unit(void) /* [0, 1) */
{
	lcg_state = lcg_state * 1664525u + 1013904223u;
	return (float)(lcg_state >> 8) / 16777216.0f;
}

static hks_fit_v4 v4(float x, float y, float z, float w) { return hks_fit_v4_make(x, y, z, w); }

/* Four draws in lane order, scaled: the argument evaluation order of C is unspecified,
 * and the test data must not depend on the compiler. */
static hks_fit_v4 rand_v4(float scale, float offset)
{
	hks_fit_v4 r;
	for (int i = 0; i < 4; i++)
		r.v[i] = lcg_unit() * scale + offset;
	return r;
}

static float max_lane_diff(hks_fit_v4 a, hks_fit_v4 b)
{
	float d = 0.0f;
	for (int i = 0; i < 4; i++)
		d = fmaxf(d, fabsf(a.v[i] - b.v[i]));
	return d;
}

/* Insert knot u once (The NURBS Book A5.1 with r = 1), written independently of src/fit. */
static void insert_knot(int n, int p, const float *U, const hks_fit_v4 *P, float u, float *Unew, hks_fit_v4 *Pnew)
{
	int K = n + p + 1;
	int k = hks_nurbs_find_span(n, p, u, U);
	int s = 0;
	for (int i = 0; i <= K; i++)
		if (U[i] == u)
			s++;
	for (int i = 0; i <= k; i++)
		Unew[i] = U[i];
	Unew[k + 1] = u;
	for (int i = k + 1; i <= K; i++)
		Unew[i + 1] = U[i];
	for (int i = 0; i <= k - p; i++)
		Pnew[i] = P[i];
	for (int i = k - s; i <= n; i++)
		Pnew[i + 1] = P[i];
	for (int i = k - p + 1; i <= k - s; i++) {
		float a = (u - U[i]) / (U[i + p] - U[i]);
		for (int c = 0; c < 4; c++)
			Pnew[i].v[c] = a * P[i].v[c] + (1.0f - a) * P[i - 1].v[c];
	}
}

/* ---- f32 helpers (ENCODER.md §4) ----------------------------------------- */

static void test_sse_minmax_and_cvtt(void **state)
{
	(void)state;
	float nan = nanf("");
	/* minss/maxss return the second operand when either is NaN. */
	assert_true(isnan(hks_fit_minss(1.0f, nan)));
	assert_true(hks_fit_minss(nan, 1.0f) == 1.0f);
	assert_true(isnan(hks_fit_maxss(1.0f, nan)));
	assert_true(hks_fit_maxss(nan, 2.0f) == 2.0f);
	assert_true(hks_fit_minss(1.0f, 2.0f) == 1.0f);
	assert_true(hks_fit_maxss(1.0f, 2.0f) == 2.0f);
	/* min(+0, −0) keeps the second: ordered compare says equal. */
	assert_true(signbit(hks_fit_minss(0.0f, -0.0f)));
	assert_int_equal(hks_fit_cvtt(2.99f), 2);
	assert_int_equal(hks_fit_cvtt(-2.99f), -2);
	assert_int_equal(hks_fit_cvtt(nan), INT32_MIN);
	assert_int_equal(hks_fit_cvtt(INFINITY), INT32_MIN);
	assert_int_equal(hks_fit_cvtt(3e9f), INT32_MIN);
	assert_int_equal(hks_fit_cvtt(-2147483648.0f), INT32_MIN);
}

static void test_dot4_order(void **state)
{
	(void)state;
	/* ((a.x·b.x + a.y·b.y) + a.z·b.z) + a.w·b.w: with 1e8 + 1 − 1e8 the grouping decides. */
	hks_fit_v4 a = v4(1e8f, 1.0f, -1e8f, 0.0f), ones = v4(1, 1, 1, 1);
	assert_true(hks_fit_dot4(a, ones) == 0.0f); /* (1e8 + 1) rounds to 1e8 first */
	hks_fit_v4 b = v4(1e8f, -1e8f, 1.0f, 0.0f);
	assert_true(hks_fit_dot4(b, ones) == 1.0f);
	assert_true(hks_fit_dist(v4(0, 0, 0, 0), v4(3, 0, 0, 4)) == 5.0f); /* 4-D, w counts */
	/* point ÷ scalar is a multiplication by 1/d: 1/3 rounds first. */
	hks_fit_v4 q = hks_fit_v4_div(v4(3.0f, 0, 0, 0), 3.0f);
	volatile float three = 3.0f;
	float inv = 1.0f / three;
	assert_true(q.v[0] == 3.0f * inv);
}

/* ---- A2.1 ----------------------------------------------------------------- */

static void test_find_span(void **state)
{
	(void)state;
	const float U[] = {0, 0, 0, 0, 1, 2, 3, 3, 3, 3}; /* p = 3, n = 5 */
	int n = 5, p = 3;
	assert_int_equal(hks_nurbs_find_span(n, p, 0.0f, U), 3);
	assert_int_equal(hks_nurbs_find_span(n, p, 0.5f, U), 3);
	assert_int_equal(hks_nurbs_find_span(n, p, 1.0f, U), 4);  /* a knot starts its span */
	assert_int_equal(hks_nurbs_find_span(n, p, 1.5f, U), 4);
	assert_int_equal(hks_nurbs_find_span(n, p, 2.0f, U), 5);
	assert_int_equal(hks_nurbs_find_span(n, p, 2.999f, U), 5);
	assert_int_equal(hks_nurbs_find_span(n, p, 3.0f, U), 5);  /* u = U[n+1] -> n */
	assert_int_equal(hks_nurbs_find_span(n, p, 7.0f, U), 5);  /* beyond the end */
	assert_int_equal(hks_nurbs_find_span(n, p, -1.0f, U), 3); /* before the start: no endless loop */
	int s = hks_nurbs_find_span(n, p, nanf(""), U);
	assert_true(s >= p && s <= n);
	/* Degree 1, long vector: every parameter lands in the span that contains it. */
	float L[40];
	L[0] = 0;
	for (int i = 0; i <= 37; i++)
		L[i + 1] = (float)i;
	L[39] = 37;
	for (int i = 0; i < 37; i++)
		assert_int_equal(hks_nurbs_find_span(37, 1, (float)i + 0.25f, L), i + 1);
	/* An interior double knot: the span is the last index of the run. */
	const float D[] = {0, 0, 0, 1, 1, 2, 2, 2}; /* p = 2, n = 4 */
	assert_int_equal(hks_nurbs_find_span(4, 2, 1.0f, D), 4);
	assert_int_equal(hks_nurbs_find_span(4, 2, 0.999f, D), 2);
	/* Unsorted (hostile) knots must not hang. */
	const float bad[] = {0, 0, 5, 1, 4, 2, 9, 9};
	int b = hks_nurbs_find_span(5, 1, 3.0f, bad);
	assert_true(b >= 1 && b <= 5);
}

/* ---- A2.2 / A2.4 ---------------------------------------------------------- */

static void test_basis_hand_values(void **state)
{
	(void)state;
	/* The NURBS Book Ex. 2.3: U = {0,0,0,1,2,3,4,4,5,5,5}, p = 2, u = 5/2:
	 * N_{2,2} = 1/8, N_{3,2} = 6/8, N_{4,2} = 1/8 (all dyadic: exact in f32). */
	const float U[] = {0, 0, 0, 1, 2, 3, 4, 4, 5, 5, 5};
	int p = 2, K = 10, n = K - p - 1;
	int span = hks_nurbs_find_span(n, p, 2.5f, U);
	assert_int_equal(span, 4);
	float N[4];
	hks_nurbs_basis_funs(span, 2.5f, p, U, N);
	assert_true(N[0] == 0.125f && N[1] == 0.75f && N[2] == 0.125f);
	assert_true(hks_nurbs_one_basis(p, K, U, 2, 2.5f) == 0.125f);
	assert_true(hks_nurbs_one_basis(p, K, U, 3, 2.5f) == 0.75f);
	assert_true(hks_nurbs_one_basis(p, K, U, 4, 2.5f) == 0.125f);
	assert_true(hks_nurbs_one_basis(p, K, U, 5, 2.5f) == 0.0f);
	assert_true(hks_nurbs_one_basis(p, K, U, 1, 2.5f) == 0.0f);
	/* End special cases: N_{0,p}(U[0]) = 1 and N_{n,p}(U[K]) = 1 despite the half-open test. */
	assert_true(hks_nurbs_one_basis(p, K, U, 0, 0.0f) == 1.0f);
	assert_true(hks_nurbs_one_basis(p, K, U, n, 5.0f) == 1.0f);
	assert_true(hks_nurbs_one_basis(p, K, U, n - 1, 5.0f) == 0.0f);
	/* Degree 1 is the hat function: N_{1,1}(0.25) on {0,0,1,2,2} = 0.25. */
	const float H[] = {0, 0, 1, 2, 2};
	assert_true(hks_nurbs_one_basis(1, 4, H, 1, 0.25f) == 0.25f);
	assert_true(hks_nurbs_one_basis(1, 4, H, 0, 0.25f) == 0.75f);
}

/* hks_nurbs_one_basis4 is hks_nurbs_one_basis at four parameters, bit for bit: every degree, repeated and
 * clamped knots, parameters at knots, between them, outside the support, at both ends, NaN and infinities. */
static void test_one_basis4_bits(void **state)
{
	(void)state;
	static const float U1[] = {0, 0, 0, 0, 0.5f, 0.5f, 1.25f, 2, 2, 2, 3.75f, 5, 5, 5, 5};
	static const float U2[] = {0, 0, 1, 2, 3, 4, 5, 6, 7, 7};
	static const float U3[] = {0, 0, 0, 0.1f, 0.1f, 0.1f, 0.30000001f, 0.7f, 0.9f, 1, 1, 1};
	const struct {
		const float *U;
		int K, p;
	} cases[] = {{U1, 14, 3}, {U1 + 1, 12, 2}, {U2, 9, 1}, {U3, 11, 2}, {U3 + 1, 9, 1}};
	float us[64];
	unsigned n = 0;
	for (int k = 0; k <= 40; k++)
		us[n++] = (float)k * 0.125f - 0.125f; /* -0.125 .. 4.875 */
	us[n++] = 5.0f;
	us[n++] = 7.0f;
	us[n++] = 1.0f;
	us[n++] = 0.1f;
	us[n++] = 0.30000001f;
	us[n++] = NAN;
	us[n++] = INFINITY;
	us[n++] = -INFINITY;
	us[n++] = 5.0000005f;
	us[n++] = -0.0f;
	while (n % 4)
		us[n++] = 2.0f;
	unsigned nonzero = 0;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		int p = cases[c].p, K = cases[c].K, n1 = K - p; /* points */
		for (int i = 0; i < n1; i++)
			for (unsigned k = 0; k < n; k += 4) {
				float got[4];
				hks_nurbs_one_basis4(p, K, cases[c].U, i, us + k, got);
				for (unsigned q = 0; q < 4; q++) {
					float want = hks_nurbs_one_basis(p, K, cases[c].U, i, us[k + q]);
					uint32_t a, b;
					memcpy(&a, &want, 4);
					memcpy(&b, &got[q], 4);
					if (a != b)
						fail_msg("case %zu i %d u %.9g: %.9g (0x%08x) want %.9g (0x%08x)", c, i, (double)us[k + q],
						         (double)got[q], b, (double)want, a);
					nonzero += want != 0.0f && want != 1.0f;
				}
			}
	}
	assert_true(nonzero > 100);
}

static void test_basis_partition_of_unity(void **state)
{
	(void)state;
	const float U[] = {0, 0, 0, 0, 0.3f, 0.5f, 0.5f, 1.2f, 2, 2, 2, 2}; /* p = 3, a double knot */
	int p = 3, K = 11, n = K - p - 1;
	for (int t = 0; t <= 400; t++) {
		float u = 2.0f * (float)t / 400.0f;
		int span = hks_nurbs_find_span(n, p, u, U);
		float N[4];
		hks_nurbs_basis_funs(span, u, p, U, N);
		float sum = 0.0f, sum_one = 0.0f;
		for (int j = 0; j <= p; j++) {
			assert_true(N[j] >= -1e-7f);
			sum += N[j];
			/* A2.4 gives the same values as A2.2 (up to rounding). */
			float one = hks_nurbs_one_basis(p, K, U, span - p + j, u);
			assert_true(fabsf(one - N[j]) <= 1e-6f);
		}
		for (int i = 0; i <= n; i++)
			sum_one += hks_nurbs_one_basis(p, K, U, i, u);
		assert_true(fabsf(sum - 1.0f) <= 1e-6f);
		assert_true(fabsf(sum_one - 1.0f) <= 1e-6f);
	}
}

static void test_curve_point_degree1_interpolates(void **state)
{
	(void)state;
	const float U[] = {0, 0, 1, 3, 4, 4};
	hks_fit_v4 P[4] = {v4(0, 1, 2, 3), v4(1, 0, 0, 1), v4(-2, 5, 1, 0), v4(4, 4, 4, 4)};
	for (int i = 0; i < 4; i++) {
		hks_fit_v4 C = hks_nurbs_curve_point(3, 1, U, P, U[i + 1]);
		assert_true(max_lane_diff(C, P[i]) == 0.0f);
	}
	/* Halfway between knots 1 and 3 -> halfway between P[1] and P[2]. */
	hks_fit_v4 C = hks_nurbs_curve_point(3, 1, U, P, 2.0f);
	assert_true(max_lane_diff(C, v4(-0.5f, 2.5f, 0.5f, 0.5f)) <= 1e-7f);
}

/* ---- A9.8 / A5.8 ---------------------------------------------------------- */

static void test_removal_bound_hand_case(void **state)
{
	(void)state;
	/* Degree 1 kink: P = (0,0),(1,1),(2,0), U = {0,0,1,2,2}. Removing knot 1 replaces P1
	 * by the chord midpoint (1,0): the bound is exactly 1 (ENCODER.md §7.4, j − i = 0 case). */
	const float U[] = {0, 0, 1, 2, 2};
	hks_fit_v4 P[3] = {v4(0, 0, 0, 0), v4(1, 1, 0, 0), v4(2, 0, 0, 0)};
	assert_true(hks_nurbs_removal_bound(2, 1, U, P, 2, 1, false) == 1.0f);
	assert_true(hks_nurbs_removal_bound(2, 1, U, P, 2, 1, true) == 1.0f);
	/* A collinear middle point is removable at no cost. */
	P[1] = v4(1, 0, 0, 0);
	assert_true(hks_nurbs_removal_bound(2, 1, U, P, 2, 1, false) == 0.0f);
	float Uc[5];
	memcpy(Uc, U, sizeof(Uc));
	assert_int_equal(hks_nurbs_remove_knot(2, 1, Uc, P, 2, 1, 1, 1e-6f, false), 1);
	assert_true(Uc[0] == 0 && Uc[1] == 0 && Uc[2] == 2 && Uc[3] == 2);
	assert_true(max_lane_diff(P[0], v4(0, 0, 0, 0)) == 0.0f);
	assert_true(max_lane_diff(P[1], v4(2, 0, 0, 0)) == 0.0f);
	/* A tolerance below the deviation refuses the removal and leaves everything alone. */
	hks_fit_v4 K2[3] = {v4(0, 0, 0, 0), v4(1, 1, 0, 0), v4(2, 0, 0, 0)};
	float Uk[5];
	memcpy(Uk, U, sizeof(Uk));
	assert_int_equal(hks_nurbs_remove_knot(2, 1, Uk, K2, 2, 1, 1, 0.5f, false), 0);
	assert_true(Uk[2] == 1.0f && K2[1].v[1] == 1.0f);
}

/* Insert a knot into a random cubic, then remove it: the bound is ~0 and the original
 * control points and curve come back. Also for degree 2 and a knot of multiplicity 2. */
static void check_insert_remove(int p, const float *U0, int n0, float u_ins)
{
	int K0 = n0 + p + 1;
	hks_fit_v4 P0[16], P1[17], P2[17];
	float U1[24];
	for (int i = 0; i <= n0; i++)
		P0[i] = rand_v4(4.0f, -2.0f);
	insert_knot(n0, p, U0, P0, u_ins, U1, P1);
	int n1 = n0 + 1, K1 = K0 + 1;
	/* the inserted curve is the same curve */
	for (int t = 0; t <= 200; t++) {
		float u = U0[K0] * (float)t / 200.0f;
		assert_true(max_lane_diff(hks_nurbs_curve_point(n0, p, U0, P0, u), hks_nurbs_curve_point(n1, p, U1, P1, u)) <=
		            2e-5f);
	}
	int r = 0;
	for (int i = 0; i <= K1; i++)
		if (U1[i] == u_ins)
			r = i; /* last index of the run */
	int s = hks_nurbs_multiplicity(K1, U1, r);
	float bound = hks_nurbs_removal_bound(n1, p, U1, P1, r, s, false);
	assert_true(bound <= 5e-5f);
	memcpy(P2, P1, sizeof(P1));
	float U2[24];
	memcpy(U2, U1, sizeof(U2));
	assert_int_equal(hks_nurbs_remove_knot(n1, p, U2, P2, r, s, 1, 1e-3f, false), 1);
	for (int i = 0; i <= K0; i++)
		assert_true(U2[i] == U0[i]);
	for (int i = 0; i <= n0; i++)
		assert_true(max_lane_diff(P2[i], P0[i]) <= 5e-5f);
	for (int t = 0; t <= 200; t++) {
		float u = U0[K0] * (float)t / 200.0f;
		assert_true(max_lane_diff(hks_nurbs_curve_point(n0, p, U2, P2, u), hks_nurbs_curve_point(n0, p, U0, P0, u)) <=
		            5e-5f);
	}
}

static void test_remove_reinserted_knot(void **state)
{
	(void)state;
	const float U3[] = {0, 0, 0, 0, 1, 2.5f, 3, 4, 4, 4, 4}; /* p = 3, n = 6 */
	check_insert_remove(3, U3, 6, 1.7f);
	check_insert_remove(3, U3, 6, 3.5f);
	check_insert_remove(3, U3, 6, 2.5f); /* raises 2.5 to multiplicity 2 */
	const float U2[] = {0, 0, 0, 1, 2, 3, 3, 3}; /* p = 2, n = 4 */
	check_insert_remove(2, U2, 4, 0.5f);
	check_insert_remove(2, U2, 4, 2.0f);
	const float U1[] = {0, 0, 1, 2, 3, 3}; /* p = 1, n = 3 */
	check_insert_remove(1, U1, 3, 2.25f);
}

/* p + s odd: A5.8 keeps the right-computed point, so the curve moves by
 * α_{r−k}·Br·N_{r−k,p}(u) (HKS_FIT_ODD_BOUND_KEPT_POINT), not by the spec's
 * (1 − α_{r−k+1})·Br·N_{r−k+1,p}(u) (docs/FIT.md). */
static void check_odd_deviation(int p, const float *U, int K, float u_rem)
{
	int n = K - p - 1;
	hks_fit_v4 P[16], P2[16];
	float U2[20];
	for (int i = 0; i <= n; i++)
		P[i] = rand_v4(1.0f, 0.0f);
	int r = 0;
	for (int i = 0; i <= K; i++)
		if (U[i] == u_rem)
			r = i;
	int s = hks_nurbs_multiplicity(K, U, r);
	assert_true((s + p) % 2 == 1);
	float Br = hks_nurbs_removal_bound(n, p, U, P, r, s, false);
	assert_true(Br > 0.1f);
	memcpy(U2, U, (size_t)(K + 1) * sizeof(float));
	memcpy(P2, P, (size_t)(n + 1) * sizeof(hks_fit_v4));
	assert_int_equal(hks_nurbs_remove_knot(n, p, U2, P2, r, s, 1, FLT_MAX, false), 1);
	int k = (s + p + 1) / 2;
	int ik = r - k, is = r - k + 1;
	float ak = (U[r] - U[ik]) / (U[ik + p + 1] - U[ik]);
	float as = (U[r] - U[is]) / (U[is + p + 1] - U[is]);
	float spec_short = 0.0f;
	for (int t = 0; t <= 500; t++) {
		float u = U[K] * (float)t / 500.0f;
		float dev = hks_fit_dist(hks_nurbs_curve_point(n, p, U, P, u), hks_nurbs_curve_point(n - 1, p, U2, P2, u));
		float kept = ak * Br * hks_nurbs_one_basis(p, K, U, ik, u);
		float spec = (1.0f - as) * Br * hks_nurbs_one_basis(p, K, U, is, u);
		assert_true(fabsf(dev - kept) <= 1e-5f * (1.0f + Br));
		spec_short = fmaxf(spec_short, dev - spec);
	}
	assert_true(spec_short > 0.1f * Br); /* the spec's bound misses a large part of the deviation */
}

static void test_odd_removal_deviation(void **state)
{
	(void)state;
	const float U2[] = {0, 0, 0, 1, 2, 3.5f, 4, 5, 5, 5}; /* p = 2, s = 1 */
	check_odd_deviation(2, U2, 9, 2.0f);
	const float U3[] = {0, 0, 0, 0, 1, 2, 2, 3.5f, 5, 5, 5, 5}; /* p = 3, s = 2 */
	check_odd_deviation(3, U3, 11, 2.0f);
}

/* ---- A5.9 and §7.5 ----------------------------------------------------------- */

static void check_elevation(int p, const float *U, int n)
{
	int K = n + p + 1;
	hks_fit_v4 P[64], Qw[200];
	float Uh[256], Ur[256];
	for (int i = 0; i <= n; i++)
		P[i] = rand_v4(2.0f, -1.0f);
	int nh = hks_nurbs_elevate(n, p, U, P, 1, Uh, Qw);
	/* The elevated knot vector is the raised one: one more copy of every distinct value. */
	memcpy(Ur, U, (size_t)(K + 1) * sizeof(float));
	int Kr = hks_nurbs_raise_knot_vector(K, Ur);
	assert_int_equal(nh + (p + 1) + 1, Kr);
	assert_int_equal(nh, n + hks_nurbs_distinct(K, U) - 1);
	for (int i = 0; i <= Kr; i++)
		assert_true(Uh[i] == Ur[i]);
	/* The curve is unchanged to 1e-6 at many parameters. */
	for (int t = 0; t <= 1000; t++) {
		float u = U[K] * (float)t / 1000.0f;
		hks_fit_v4 a = hks_nurbs_curve_point(n, p, U, P, u);
		hks_fit_v4 b = hks_nurbs_curve_point(nh, p + 1, Uh, Qw, u);
		assert_true(max_lane_diff(a, b) <= 1e-6f);
	}
	/* End points are kept exactly. */
	assert_true(max_lane_diff(Qw[0], P[0]) == 0.0f);
	assert_true(max_lane_diff(Qw[nh], P[n]) == 0.0f);
}

static void test_degree_elevation_exact(void **state)
{
	(void)state;
	/* degree 1 -> 2 on frame-time knots (seconds, 1/30 steps) */
	float U1[40];
	int n1 = 30;
	U1[0] = 0;
	for (int i = 0; i <= n1; i++)
		U1[i + 1] = (float)i / 30.0f;
	U1[n1 + 2] = U1[n1 + 1];
	check_elevation(1, U1, n1);
	/* degree 2 -> 3 with interior double knots (what a raise leaves) and a simple one */
	const float U2[] = {0, 0, 0, 0.1f, 0.1f, 0.2f, 0.5f, 0.5f, 0.7f, 1, 1, 1};
	check_elevation(2, U2, 8);
	/* a Bézier segment (no interior knot) */
	const float B[] = {0, 0, 0, 2, 2, 2};
	check_elevation(2, B, 2);
	const float B1[] = {0, 0, 1, 1};
	check_elevation(1, B1, 1);
}

static void test_raise_lower_knot_vector(void **state)
{
	(void)state;
	float U[32] = {0, 0, 1, 2, 2, 3, 3};
	int K = 6;
	assert_int_equal(hks_nurbs_distinct(K, U), 4);
	int Kr = hks_nurbs_raise_knot_vector(K, U);
	assert_int_equal(Kr, 10);
	const float want[] = {0, 0, 0, 1, 1, 2, 2, 2, 3, 3, 3};
	for (int i = 0; i <= Kr; i++)
		assert_true(U[i] == want[i]);
	int Kl = hks_nurbs_lower_knot_vector(Kr, U);
	assert_int_equal(Kl, K);
	const float back[] = {0, 0, 1, 2, 2, 3, 3};
	for (int i = 0; i <= K; i++)
		assert_true(U[i] == back[i]);
	assert_int_equal(hks_nurbs_multiplicity(K, U, 3), 2);
	assert_int_equal(hks_nurbs_multiplicity(K, U, 4), 2);
	assert_int_equal(hks_nurbs_multiplicity(K, U, 2), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sse_minmax_and_cvtt),
		cmocka_unit_test(test_dot4_order),
		cmocka_unit_test(test_find_span),
		cmocka_unit_test(test_basis_hand_values),
		cmocka_unit_test(test_basis_partition_of_unity),
		cmocka_unit_test(test_one_basis4_bits),
		cmocka_unit_test(test_curve_point_degree1_interpolates),
		cmocka_unit_test(test_removal_bound_hand_case),
		cmocka_unit_test(test_remove_reinserted_knot),
		cmocka_unit_test(test_odd_removal_deviation),
		cmocka_unit_test(test_degree_elevation_exact),
		cmocka_unit_test(test_raise_lower_knot_vector),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
