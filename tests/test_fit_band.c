/*
 * The project's own banded Cholesky (src/fit/fit_band.c), the quality solver
 * without LAPACK: residuals of random symmetric positive definite band
 * systems, refusal of indefinite and NaN matrices, the condition estimate
 * against the exact 1-norm condition of small matrices, and (with LAPACK in
 * the build) agreement with LAPACKE_dpbtrf/dpbtrs/dpbcon. The LAPACK
 * cross-check skips visibly without LAPACK.
 */
#include "hks_test.h"
#include "fit_band.h"
#include "fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if HKS_WITH_LAPACK
#include <lapacke.h>
#endif

#define MAXN 40
#define MAXKD 4

static uint32_t g_rng = 12345u;
static double rnd(void)
{
	g_rng = g_rng * 1664525u + 1013904223u;
	return (double)(g_rng >> 8) / (double)(1u << 24) * 2.0 - 1.0;
}

/* A random SPD band matrix as B Bᵀ + n I restricted to the band (diagonally dominant). */
static void make_spd(int n, int kd, double *full, double *ab, int ldab)
{
	memset(full, 0, sizeof(double) * (size_t)n * (size_t)n);
	for (int i = 0; i < n; i++)
		for (int j = i; j < n && j <= i + kd; j++) {
			double v = i == j ? (double)(2 * kd + 2) + rnd() : rnd();
			full[i * n + j] = full[j * n + i] = v;
		}
	for (int j = 0; j < n; j++)
		for (int i = (j - kd > 0 ? j - kd : 0); i <= j; i++)
			ab[kd + i - j + j * ldab] = full[i * n + j];
}

static double norm1(int n, const double *full)
{
	double best = 0;
	for (int j = 0; j < n; j++) {
		double s = 0;
		for (int i = 0; i < n; i++)
			s += fabs(full[i * n + j]);
		if (s > best)
			best = s;
	}
	return best;
}

static void test_band_residuals(void **state)
{
	(void)state;
	static double full[MAXN * MAXN], ab[(MAXKD + 1) * MAXN], b[MAXN], x[MAXN];
	for (int n = 1; n <= MAXN; n += 3)
		for (int kd = 0; kd <= MAXKD; kd++) {
			int k = kd < n - 1 ? kd : (n - 1 > 0 ? n - 1 : 0), ldab = k + 1;
			make_spd(n, k, full, ab, ldab);
			for (int i = 0; i < n; i++)
				b[i] = x[i] = rnd();
			assert_int_equal(hks_band_cholesky(n, k, ab, ldab), 0);
			hks_band_solve(n, k, ab, ldab, x);
			for (int i = 0; i < n; i++) {
				double r = -b[i];
				for (int j = 0; j < n; j++)
					r += full[i * n + j] * x[j];
				assert_true(fabs(r) < 1e-12);
			}
		}
}

static void test_band_refuses_indefinite_and_nan(void **state)
{
	(void)state;
	/* [[1 2][2 1]]: eigenvalues 3 and -1; second minor fails */
	double ab[2 * 2] = {0.0, 1.0, 2.0, 1.0};
	assert_int_equal(hks_band_cholesky(2, 1, ab, 2), 2);
	double z[1] = {0.0};
	assert_int_equal(hks_band_cholesky(1, 0, z, 1), 1);
	double nan_ab[1] = {NAN};
	assert_int_equal(hks_band_cholesky(1, 0, nan_ab, 1), 1);
}

/* The estimate is a lower bound of ‖A⁻¹‖₁ that Hager's method makes exact or
 * close: between the exact reciprocal condition and 10 times it. */
static void test_band_rcond(void **state)
{
	(void)state;
	static double full[MAXN * MAXN], ab[(MAXKD + 1) * MAXN], inv[MAXN * MAXN], col[MAXN], work[3 * MAXN];
	for (int n = 2; n <= 20; n += 6) {
		int kd = 2 < n - 1 ? 2 : n - 1, ldab = kd + 1;
		make_spd(n, kd, full, ab, ldab);
		double anorm = norm1(n, full);
		assert_int_equal(hks_band_cholesky(n, kd, ab, ldab), 0);
		for (int j = 0; j < n; j++) {
			for (int i = 0; i < n; i++)
				col[i] = i == j ? 1.0 : 0.0;
			hks_band_solve(n, kd, ab, ldab, col);
			for (int i = 0; i < n; i++)
				inv[i * n + j] = col[i];
		}
		double exact = 1.0 / (anorm * norm1(n, inv));
		double est = hks_band_rcond(n, kd, ab, ldab, anorm, work);
		assert_true(est >= exact * (1 - 1e-12));
		assert_true(est <= exact * 10.0);
	}
}

static void test_band_matches_lapack(void **state)
{
	(void)state;
#if HKS_WITH_LAPACK
	static double full[MAXN * MAXN], ab[(MAXKD + 1) * MAXN], ab2[(MAXKD + 1) * MAXN], x[MAXN], y[MAXN], work[3 * MAXN];
	for (int n = 3; n <= MAXN; n += 7)
		for (int kd = 1; kd <= MAXKD && kd < n; kd++) {
			int ldab = kd + 1;
			make_spd(n, kd, full, ab, ldab);
			memcpy(ab2, ab, sizeof(double) * (size_t)ldab * (size_t)n);
			double anorm = norm1(n, full);
			for (int i = 0; i < n; i++)
				x[i] = y[i] = rnd();
			assert_int_equal(hks_band_cholesky(n, kd, ab, ldab), 0);
			assert_int_equal(LAPACKE_dpbtrf(LAPACK_COL_MAJOR, 'U', n, kd, ab2, ldab), 0);
			for (int i = 0; i < ldab * n; i++)
				assert_true(fabs(ab[i] - ab2[i]) <= 1e-13 * (1.0 + fabs(ab2[i])));
			hks_band_solve(n, kd, ab, ldab, x);
			assert_int_equal(LAPACKE_dpbtrs(LAPACK_COL_MAJOR, 'U', n, kd, 1, ab2, ldab, y, n), 0);
			for (int i = 0; i < n; i++)
				assert_true(fabs(x[i] - y[i]) <= 1e-12 * (1.0 + fabs(y[i])));
			double rc = 0;
			assert_int_equal(LAPACKE_dpbcon(LAPACK_COL_MAJOR, 'U', n, kd, ab2, ldab, anorm, &rc), 0);
			double mine = hks_band_rcond(n, kd, ab, ldab, anorm, work);
			assert_true(mine > rc / 10.0 && mine < rc * 10.0);
		}
#else
	print_message("SKIPPED: built without LAPACK (HKS_WITH_LAPACK=OFF): no LAPACK to cross-check against\n");
	skip();
#endif
}

/* The quality solver finds LAPACK by the name the build recorded (HKS_LAPACKE_LIBRARY,
 * opened at the first solve, docs/BUILDING.md): a wrong name would silently fall back to the
 * project's band solver. */
static void test_lapack_loads_by_name(void **state)
{
	(void)state;
	assert_int_equal(hks_fit_lapack_loaded(), HKS_WITH_LAPACK ? true : false);
	assert_int_equal(hks_fit_lapack_loaded(), HKS_WITH_LAPACK ? true : false); /* once: the same answer */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_band_residuals),
		cmocka_unit_test(test_band_refuses_indefinite_and_nan),
		cmocka_unit_test(test_band_rcond),
		cmocka_unit_test(test_band_matches_lapack),
		cmocka_unit_test(test_lapack_loads_by_name),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
