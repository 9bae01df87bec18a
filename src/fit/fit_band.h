/* The project's own double banded Cholesky (fit_band.c): the quality solver
 * without LAPACK. Storage as LAPACK's dpbtrf, uplo 'U', column-major. */
#ifndef HKS_FIT_BAND_H
#define HKS_FIT_BAND_H

/* Factor A = UᵀU in place. 0, or j > 0 when the leading minor of order j is
 * not positive definite. */
int hks_band_cholesky(int n, int kd, double *ab, int ldab);
/* Solve A x = b with the factor, b (n values) overwritten by x. */
void hks_band_solve(int n, int kd, const double *ab, int ldab, double *b);
/* Reciprocal 1-norm condition estimate (anorm = ‖A‖₁); work: 3n doubles. */
double hks_band_rcond(int n, int kd, const double *ab, int ldab, double anorm, double *work);

#endif
