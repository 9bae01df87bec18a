/*
 * LeastSquaresFit with fixed end points (The NURBS Book §9.4.1) the way
 * ENCODER.md §7.6 describes Havok running it: a sparse matrix of basis values
 * in Havok's order, the IsWellPosed test, a single-precision conjugate-gradient
 * solve per lane with Havok's constants, and the 1.1·E acceptance test.
 */
#include "fit_workspace.h"

bool hks_fit_is_well_posed(int n, int p, const float *U, int m, const float *ub, float margin)
{
	bool marked[HKS_FIT_MAX_POINTS + 1];
	if (n > HKS_FIT_MAX_POINTS)
		return false;
	for (int i = 0; i <= n; i++)
		marked[i] = false;
	/* A span is marked by a sample strictly inside it by at least `margin` (f32 sums). */
	bool sorted = hks_nurbs_span_knots_sorted(n, p, U);
	int span = p;
	for (int k = 0; k <= m; k++) {
		span = hks_nurbs_find_span_near(n, p, ub[k], U, span, sorted);
		if (U[span] + margin <= ub[k] && ub[k] <= U[span + 1] - margin)
			marked[span] = true;
	}
	for (int i = p; i <= n; i++)
		if (U[i + 1] > U[i] && !marked[i])
			return false;
	return true;
}

/* Append the triple (row, col, val) when val is non-zero (NaN counts as non-zero). */
static void add_triple(hks_fit_workspace *ws, int row, int col, float val)
{
	if (val == 0.0f)
		return;
	int t = ws->num_triples++;
	ws->trip_row[t] = (uint16_t)row;
	ws->trip_col[t] = (uint16_t)col;
	ws->trip_val[t] = val;
}

void hks_fit_lsq_build(hks_fit_workspace *ws, int n, int p, const float *U, int m, const hks_fit_v4 *Q,
                       const float *ub, hks_fit_basis basis)
{
	int K = n + p + 1;
	ws->lsq_n = n;
	ws->lsq_p = p;
	ws->lsq_m = m;
	ws->rows = m - 1;
	ws->cols = n - 1;
	ws->num_triples = 0;
	hks_fit_v4 R[HKS_FIT_MAX_FRAMES];
	bool sorted = hks_nurbs_span_knots_sorted(n, p, U);
	int span = p;
	for (int k = 1; k <= m - 1; k++) {
		float u = ub[k];
		span = hks_nurbs_find_span_near(n, p, u, U, span, sorted);
		float N0, Nn;
		ws->row_start[k - 1] = ws->num_triples;
		/* Havok scans i = 1 … n−1 and keeps the non-zero values. Outside
		 * span−p … span, A2.4's half-open support test gives exactly 0 (FindSpan's
		 * span satisfies U[span] <= u < U[span+1]), so scanning that window only
		 * yields the same triples in the same order. */
		int ilo = span - p > 1 ? span - p : 1;
		int ihi = span < n - 1 ? span : n - 1;
		if (basis == HKS_FIT_BASIS_A2_2) {
			float N[HKS_FIT_MAX_DEGREE + 1];
			hks_nurbs_basis_funs(span, u, p, U, N);
			for (int i = ilo; i <= ihi; i++)
				add_triple(ws, k - 1, i - 1, N[i - (span - p)]);
			N0 = span - p == 0 ? N[0] : 0.0f;
			Nn = span == n ? N[p] : 0.0f;
		} else {
			for (int i = ilo; i <= ihi; i++)
				add_triple(ws, k - 1, i - 1, hks_nurbs_one_basis(p, K, U, i, u));
			N0 = hks_nurbs_one_basis(p, K, U, 0, u);
			Nn = hks_nurbs_one_basis(p, K, U, n, u);
		}
		/* R[k] = (Q[k] − N0·Q[0]) − Nn·Q[m] */
		R[k] = hks_fit_v4_sub(hks_fit_v4_sub(Q[k], hks_fit_v4_scale(N0, Q[0])), hks_fit_v4_scale(Nn, Q[m]));
		for (int c = 0; c < 4; c++)
			ws->Rd[k][c] = ((double)Q[k].v[c] - (double)N0 * Q[0].v[c]) - (double)Nn * Q[m].v[c];
	}
	ws->row_start[m - 1 > 0 ? m - 1 : 0] = ws->num_triples;
	/* the column index: a counting sort by column, stable, so each column lists its triples in stored order */
	for (int c = 0; c <= ws->cols; c++)
		ws->col_start[c] = 0;
	for (int t = 0; t < ws->num_triples; t++)
		ws->col_start[ws->trip_col[t] + 1]++;
	for (int c = 0; c < ws->cols; c++)
		ws->col_start[c + 1] += ws->col_start[c];
	int fill[HKS_FIT_MAX_UNKNOWNS];
	for (int c = 0; c < ws->cols; c++)
		fill[c] = ws->col_start[c];
	for (int t = 0; t < ws->num_triples; t++) {
		int at = fill[ws->trip_col[t]]++;
		ws->col_row[at] = ws->trip_row[t];
		ws->col_val[at] = ws->trip_val[t];
	}
	/* B[i−1] = Σ_k N_{i,p}(ub[k])·R[k], from 0 in k order: the triples are stored k-major. */
	for (int i = 0; i < ws->cols; i++) {
		ws->B[i] = hks_fit_v4_zero();
		for (int c = 0; c < 4; c++)
			ws->Bd[i][c] = 0.0;
	}
	for (int t = 0; t < ws->num_triples; t++) {
		int row = ws->trip_row[t], col = ws->trip_col[t];
		float val = ws->trip_val[t];
		ws->B[col] = hks_fit_v4_add(ws->B[col], hks_fit_v4_scale(val, R[row + 1]));
		for (int c = 0; c < 4; c++)
			ws->Bd[col][c] += (double)val * ws->Rd[row + 1][c];
	}
}

/* out = Nᵀ(N v), in the stored triple order (ENCODER.md §7.6 "A(v)"). */
static void apply_normal(const hks_fit_workspace *ws, const float *v, float *scratch, float *out)
{
	/* Each sum is from 0, its terms added in the stored triple order, as when every triple adds to its
	 * row's (then its column's) entry in turn; kept in a register, row by row (a row's triples are
	 * consecutive: row_start), then column by column (col_start), the sums do not wait for stores. */
	for (int r = 0; r < ws->rows; r++) {
		float s = 0.0f;
		for (int t = ws->row_start[r]; t < ws->row_start[r + 1]; t++)
			s = s + v[ws->trip_col[t]] * ws->trip_val[t];
		scratch[r] = s;
	}
	for (int c = 0; c < ws->cols; c++) {
		float s = 0.0f;
		for (int i = ws->col_start[c]; i < ws->col_start[c + 1]; i++)
			s = s + ws->col_val[i] * scratch[ws->col_row[i]];
		out[c] = s;
	}
}

static float dot_f32(const float *a, const float *b, int count)
{
	float s = 0.0f;
	for (int i = 0; i < count; i++)
		s = s + a[i] * b[i];
	return s;
}

bool hks_fit_cg_solve(hks_fit_workspace *ws, int lane, float *x, const hks_fit_config *cfg, int *iterations)
{
	int cols = ws->cols;
	float *b = ws->cg_b, *r = ws->cg_r, *p = ws->cg_p, *q = ws->cg_q, *Ax = ws->cg_Ax;
	float *scratch = ws->cg_scratch;
	for (int i = 0; i < cols; i++)
		b[i] = ws->B[i].v[lane];
	apply_normal(ws, x, scratch, Ax);
	for (int i = 0; i < cols; i++) {
		r[i] = b[i] - Ax[i];
		p[i] = r[i];
	}
	float rr = dot_f32(r, r, cols);
	int k = 0;
	/* `rr >= threshold` is false for NaN: a NaN residual ends the loop as a success (§7.6). */
	while (rr >= cfg->cg_threshold) {
		apply_normal(ws, p, scratch, q);
		float alpha = rr / dot_f32(p, q, cols);
		for (int i = 0; i < cols; i++)
			x[i] = p[i] * alpha + x[i];
		k++;
		if (cfg->cg_recompute_period > 0 && k % cfg->cg_recompute_period == 0) {
			apply_normal(ws, x, scratch, Ax);
			for (int i = 0; i < cols; i++)
				r[i] = -((-b[i]) + Ax[i]);
		} else {
			float neg_alpha = -alpha;
			for (int i = 0; i < cols; i++)
				r[i] = q[i] * neg_alpha + r[i];
		}
		float rr_old = rr;
		rr = dot_f32(r, r, cols);
		float beta = rr / rr_old;
		for (int i = 0; i < cols; i++)
			p[i] = p[i] * beta + r[i];
		if (k >= cfg->cg_max_iterations) {
			if (iterations)
				*iterations = k;
			return false;
		}
	}
	if (iterations)
		*iterations = k;
	return true;
}

hks_fit_lsq_status hks_fit_least_squares(hks_fit_workspace *ws, int n, int p, const float *U, hks_fit_v4 *P,
                                         int m, const hks_fit_v4 *Q, const float *ub, float E,
                                         const hks_fit_config *cfg, hks_fit_stats *stats)
{
	hks_fit_stats dummy;
	if (!stats)
		stats = &dummy;
	stats->refit_attempts++;
	if (n > m || n < 1) {
		stats->refit_rejected_n_gt_m++;
		return HKS_FIT_LSQ_N_GT_M;
	}
	/* Havok tests well-posedness after building B; the order does not change the outcome. */
	if (cfg->wellposed_test && !hks_fit_is_well_posed(n, p, U, m, ub, cfg->wellposed_margin)) {
		stats->refit_rejected_not_wellposed++;
		return HKS_FIT_LSQ_NOT_WELLPOSED;
	}
	hks_fit_lsq_build(ws, n, p, U, m, Q, ub, cfg->lsq_basis);
	hks_fit_v4 *Pn = ws->Pnew;
	if (cfg->solver == HKS_FIT_SOLVER_LAPACK) {
		if (!hks_fit_lapack_solve(ws, ws->X)) {
			stats->refit_rejected_not_converged++;
			return HKS_FIT_LSQ_NOT_CONVERGED;
		}
		for (int i = 1; i <= n - 1; i++)
			for (int c = 0; c < 4; c++)
				Pn[i].v[c] = (float)ws->X[i - 1][c];
	} else {
		/* Every lane must converge; the initial guess is the data points themselves. */
		for (int c = 0; c < 4; c++) {
			for (int i = 1; i <= n - 1; i++)
				ws->cg_x[i - 1] = Q[i].v[c];
			if (!hks_fit_cg_solve(ws, c, ws->cg_x, cfg, NULL)) {
				stats->refit_rejected_not_converged++;
				return HKS_FIT_LSQ_NOT_CONVERGED;
			}
			for (int i = 1; i <= n - 1; i++)
				Pn[i].v[c] = ws->cg_x[i - 1];
		}
	}
	Pn[0] = Q[0];
	Pn[n] = Q[m];
	float limit = E * cfg->accept_factor;
	bool sorted = hks_nurbs_span_knots_sorted(n, p, U);
	int span = p;
	for (int k = 0; k <= m; k++) {
		span = hks_nurbs_find_span_near(n, p, ub[k], U, span, sorted);
		hks_fit_v4 C = hks_nurbs_curve_point_in(p, U, Pn, ub[k], span);
		if (hks_fit_dist(Q[k], C) > limit) { /* a NaN distance passes (§7.6) */
			stats->refit_rejected_tolerance++;
			return HKS_FIT_LSQ_TOLERANCE;
		}
	}
	memcpy(P, Pn, (size_t)(n + 1) * sizeof(hks_fit_v4));
	stats->refit_accepted++;
	return HKS_FIT_LSQ_OK;
}
