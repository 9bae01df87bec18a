/*
 * The fitter's workspace: every scratch array of one part's fit, sized for the
 * largest block (HKS_FIT_MAX_FRAMES), so a fit never allocates after the
 * workspace exists. Private to src/fit/.
 */
#ifndef HKS_FIT_WORKSPACE_H
#define HKS_FIT_WORKSPACE_H

#include "fit.h"

/* The refit's matrix has rows k = 1 … m−1 with at most p + 1 non-zero values each. */
#define HKS_FIT_MAX_TRIPLES ((HKS_FIT_MAX_M - 1) * (HKS_FIT_MAX_DEGREE + 1))
#define HKS_FIT_MAX_UNKNOWNS HKS_FIT_MAX_M /* n − 1 < m */

struct hks_fit_workspace {
	/* the curve being fitted (§7.2) */
	float U[HKS_FIT_MAX_KNOTS];
	hks_fit_v4 P[HKS_FIT_MAX_POINTS];
	float e[HKS_FIT_MAX_FRAMES];
	/* exact elevation output (§7.7) */
	float Uh[HKS_FIT_MAX_KNOTS];
	hks_fit_v4 Qw[HKS_FIT_MAX_POINTS];
	/* knot removal (§7.3) */
	float Br[HKS_FIT_MAX_KNOTS];
	int knot_sample[HKS_FIT_MAX_KNOTS]; /* per knot slot: the first sample index at or above the knot */
	float temp_err[HKS_FIT_MAX_FRAMES];
	/* the least-squares system (§7.6), built by hks_fit_lsq_build */
	int lsq_n, lsq_p, lsq_m;
	int rows, cols, num_triples;
	int row_start[HKS_FIT_MAX_FRAMES + 1]; /* triples of row r: [row_start[r], row_start[r+1]) */
	uint16_t trip_row[HKS_FIT_MAX_TRIPLES];
	uint16_t trip_col[HKS_FIT_MAX_TRIPLES];
	float trip_val[HKS_FIT_MAX_TRIPLES];
	/* the same triples by column, each column's in stored order: column c's rows and values are at
	 * col_start[c] .. col_start[c + 1] − 1 (apply_normal's transposed product) */
	int col_start[HKS_FIT_MAX_UNKNOWNS + 1];
	uint16_t col_row[HKS_FIT_MAX_TRIPLES];
	float col_val[HKS_FIT_MAX_TRIPLES];
	hks_fit_v4 B[HKS_FIT_MAX_UNKNOWNS];
	double Rd[HKS_FIT_MAX_FRAMES][4];   /* the right-hand side rows in double (quality solver) */
	double Bd[HKS_FIT_MAX_UNKNOWNS][4];
	/* CG vectors */
	float cg_b[HKS_FIT_MAX_UNKNOWNS], cg_r[HKS_FIT_MAX_UNKNOWNS], cg_p[HKS_FIT_MAX_UNKNOWNS];
	float cg_q[HKS_FIT_MAX_UNKNOWNS], cg_Ax[HKS_FIT_MAX_UNKNOWNS], cg_scratch[HKS_FIT_MAX_FRAMES];
	float cg_x[HKS_FIT_MAX_UNKNOWNS];
	/* the refit's new points, and the double solver's storage */
	hks_fit_v4 Pnew[HKS_FIT_MAX_FRAMES];
	double band[(HKS_FIT_MAX_DEGREE + 1) * HKS_FIT_MAX_UNKNOWNS];
	double rhs[4 * HKS_FIT_MAX_UNKNOWNS];
	double X[HKS_FIT_MAX_UNKNOWNS][4];
};

#endif /* HKS_FIT_WORKSPACE_H */
