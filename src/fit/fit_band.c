/*
 * A small double-precision banded Cholesky of the project's own: the quality
 * solver's factorisation when the build has no LAPACK (HKS_WITH_LAPACK off,
 * e.g. the Windows build). Same storage as LAPACK's dpbtrf with uplo 'U':
 * A(i, j), max(0, j − kd) <= i <= j, at ab[kd + i − j + j·ldab], column-major;
 * the factor U (A = UᵀU) overwrites it. Left-looking and unblocked: the
 * matrices are small (one unknown per control point) and narrow (kd = degree).
 */
#include "fit_band.h"

#include <math.h>
#include <stdlib.h>

#define AB(i, j) ab[(size_t)(kd + (i) - (j)) + (size_t)(j) * (size_t)ldab]

int hks_band_cholesky(int n, int kd, double *ab, int ldab)
{
	for (int j = 0; j < n; j++) {
		int first = j - kd > 0 ? j - kd : 0;
		for (int i = first; i < j; i++) {
			double s = AB(i, j);
			for (int k = first; k < i; k++)
				s -= AB(k, i) * AB(k, j);
			AB(i, j) = s / AB(i, i);
		}
		double d = AB(j, j);
		for (int k = first; k < j; k++)
			d -= AB(k, j) * AB(k, j);
		if (!(d > 0.0))
			return j + 1; /* not positive definite (or NaN) */
		AB(j, j) = sqrt(d);
	}
	return 0;
}

void hks_band_solve(int n, int kd, const double *ab, int ldab, double *b)
{
	/* Uᵀ y = b */
	for (int i = 0; i < n; i++) {
		int first = i - kd > 0 ? i - kd : 0;
		double s = b[i];
		for (int k = first; k < i; k++)
			s -= AB(k, i) * b[k];
		b[i] = s / AB(i, i);
	}
	/* U x = y */
	for (int i = n - 1; i >= 0; i--) {
		int last = i + kd < n - 1 ? i + kd : n - 1;
		double s = b[i];
		for (int k = i + 1; k <= last; k++)
			s -= AB(i, k) * b[k];
		b[i] = s / AB(i, i);
	}
}

/*
 * 1-norm reciprocal condition estimate from the factor: 1 / (‖A‖₁ · est ‖A⁻¹‖₁),
 * with Hager's estimator (A is symmetric, so A⁻ᵀ = A⁻¹): a few solves.
 * `work` holds 3n doubles. 0 when the estimate is not finite.
 */
double hks_band_rcond(int n, int kd, const double *ab, int ldab, double anorm, double *work)
{
	if (n <= 0)
		return 1.0;
	if (!(anorm > 0.0))
		return 0.0;
	double *x = work, *y = work + n, *z = work + 2 * (size_t)n;
	for (int i = 0; i < n; i++)
		x[i] = 1.0 / n;
	double est = 0.0;
	for (int iter = 0; iter < 5; iter++) {
		for (int i = 0; i < n; i++)
			y[i] = x[i];
		hks_band_solve(n, kd, ab, ldab, y); /* y = A⁻¹ x */
		double e = 0.0;
		for (int i = 0; i < n; i++)
			e += fabs(y[i]);
		if (!isfinite(e))
			return 0.0;
		if (iter > 0 && e <= est)
			break;
		est = e;
		for (int i = 0; i < n; i++)
			z[i] = y[i] >= 0.0 ? 1.0 : -1.0;
		hks_band_solve(n, kd, ab, ldab, z); /* z = A⁻¹ sign(y) */
		int j = 0;
		double ztx = 0.0;
		for (int i = 0; i < n; i++) {
			if (fabs(z[i]) > fabs(z[j]))
				j = i;
			ztx += z[i] * x[i];
		}
		if (iter > 0 && fabs(z[j]) <= ztx)
			break; /* a local maximum of ‖A⁻¹ x‖₁ */
		for (int i = 0; i < n; i++)
			x[i] = i == j ? 1.0 : 0.0;
	}
	double r = 1.0 / (anorm * est);
	return isfinite(r) ? r : 0.0;
}
