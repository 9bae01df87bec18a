/*
 * The double-precision least-squares solve (ENCODER.md §14): the normal
 * equations NᵀN x = B of the system hks_fit_lsq_build made, as a symmetric
 * band matrix (half-bandwidth p: one row of N touches at most p + 1
 * consecutive unknowns), solved by LAPACK's banded Cholesky dpbsv.
 *
 * It serves the quality mode and the cross-check of the f32 CG emulation; it
 * cannot reproduce Havok's bytes (§14).
 */
#include "fit_workspace.h"

#include <lapacke.h>

bool hks_fit_lapack_solve(hks_fit_workspace *ws, double (*X)[4])
{
	int N = ws->cols;
	if (N <= 0)
		return true;
	int kd = ws->lsq_p;
	if (kd > N - 1)
		kd = N - 1;
	int ldab = kd + 1;
	double *ab = ws->band;
	memset(ab, 0, (size_t)ldab * (size_t)N * sizeof(double));
	/* Upper band, column-major: A(i, j) for i <= j lives at ab[kd + i − j + j·ldab]. */
	for (int r = 0; r < ws->rows; r++) {
		for (int a = ws->row_start[r]; a < ws->row_start[r + 1]; a++) {
			for (int b = a; b < ws->row_start[r + 1]; b++) {
				int i = ws->trip_col[a], j = ws->trip_col[b];
				if (i > j) {
					int t = i;
					i = j;
					j = t;
				}
				if (j - i > kd)
					return false; /* cannot happen for a clamped knot vector */
				ab[kd + i - j + j * ldab] += (double)ws->trip_val[a] * (double)ws->trip_val[b];
			}
		}
	}
	double *rhs = ws->rhs;
	for (int c = 0; c < 4; c++)
		for (int i = 0; i < N; i++)
			rhs[i + c * N] = ws->Bd[i][c];
	lapack_int info = LAPACKE_dpbsv(LAPACK_COL_MAJOR, 'U', N, kd, 4, ab, ldab, rhs, N);
	if (info != 0)
		return false;
	for (int i = 0; i < N; i++)
		for (int c = 0; c < 4; c++)
			X[i][c] = rhs[i + c * N];
	return true;
}
