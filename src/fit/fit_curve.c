/*
 * fit(ub, Q, p, E): the error-bounded global approximation (The NURBS Book
 * A9.10) as ENCODER.md §7.2 describes Havok running it, and the part-level
 * degree-1 fallback of §7.9.
 */
#include "fit_workspace.h"

hks_fit_workspace *hks_fit_workspace_new(hks_ctx *ctx)
{
	return (hks_fit_workspace *)hks_calloc(ctx, 1, sizeof(hks_fit_workspace));
}

void hks_fit_workspace_free(hks_ctx *ctx, hks_fit_workspace *ws)
{
	if (ws)
		hks_free(ctx, ws, sizeof(hks_fit_workspace));
}

/* UpdateFit without projection (§7.8): e[k] = mag(Q[k] − C(ub[k])). */
static void update_fit(int n, int p, const float *U, const hks_fit_v4 *P, int m, const hks_fit_v4 *Q,
                       const float *ub, float *e)
{
	bool sorted = hks_nurbs_span_knots_sorted(n, p, U);
	int span = p;
	for (int k = 0; k <= m; k++) {
		span = hks_nurbs_find_span_near(n, p, ub[k], U, span, sorted);
		e[k] = hks_fit_mag(hks_fit_v4_sub(Q[k], hks_nurbs_curve_point_in(p, U, P, ub[k], span)));
	}
}

hks_result hks_fit_curve_run(hks_ctx *ctx, hks_fit_workspace *ws, int m, const hks_fit_v4 *Q, const float *ub,
                             int degree, float E, const hks_fit_config *cfg, hks_fit_curve *out,
                             hks_fit_stats *stats)
{
	if (!ws || !Q || !ub || !cfg || !out)
		return hks_fail(ctx, HKS_E_ARGUMENT, -1, "fit: missing argument");
	if (m < 1 || m > HKS_FIT_MAX_M)
		return hks_fail(ctx, HKS_E_ARGUMENT, -1, "fit: %d frames; a fitted block has 2 to %d", m + 1,
		                HKS_FIT_MAX_FRAMES);
	if (degree < 1 || degree > HKS_FIT_MAX_DEGREE)
		return hks_fail(ctx, HKS_E_ARGUMENT, -1, "fit: degree %d (1 to %d)", degree, HKS_FIT_MAX_DEGREE);
	/* Strictly increasing finite parameters keep every interior multiplicity <= the degree
	 * and the raises within HKS_FIT_MAX_POINTS (a zero-duration block would violate it). */
	for (int k = 0; k <= m; k++)
		if (!isfinite(ub[k]) || (k > 0 && !(ub[k] > ub[k - 1])))
			return hks_fail(ctx, HKS_E_ARGUMENT, -1,
			                "fit: sample parameters must be finite and strictly increasing (index %d)", k);

	float *U = ws->U;
	hks_fit_v4 *P = ws->P;
	float *e = ws->e;
	/* Start: the polyline through every sample, degree-1 clamped knots (m + 3 values). */
	int n = m;
	memcpy(P, Q, (size_t)(m + 1) * sizeof(hks_fit_v4));
	U[0] = ub[0];
	for (int k = 0; k <= m; k++)
		U[k + 1] = ub[k];
	U[m + 2] = ub[m];
	for (int k = 0; k <= m; k++)
		e[k] = 0.0f;

	int removed = 0;
	for (int deg = 1; deg <= degree; deg++) {
		removed = hks_fit_remove_knots_bound(ws, &n, deg, U, P, m, ub, e, E, cfg, stats);
		if (deg == degree)
			break;
		int K = n + deg + 1;
		int n_old = n;
		int K_raised = hks_nurbs_raise_knot_vector(K, U);
		n = K_raised - (deg + 1) - 1;
		hks_fit_lsq_status st = HKS_FIT_LSQ_NOT_CONVERGED;
		if (cfg->refit_on_raise)
			st = hks_fit_least_squares(ws, n, deg + 1, U, P, m, Q, ub, E, cfg, stats);
		if (st != HKS_FIT_LSQ_OK) {
			/* Undo the raise, then raise the current curve exactly (A5.9, t = 1). */
			hks_nurbs_lower_knot_vector(K_raised, U);
			int nh = hks_nurbs_elevate(n_old, deg, U, P, 1, ws->Uh, ws->Qw);
			if (nh != n)
				return hks_fail(ctx, HKS_E_INTERNAL, -1,
				                "fit: exact elevation gave %d points, the raised knot vector %d", nh + 1, n + 1);
			memcpy(U, ws->Uh, (size_t)(nh + deg + 3) * sizeof(float));
			memcpy(P, ws->Qw, (size_t)(nh + 1) * sizeof(hks_fit_v4));
			if (stats)
				stats->exact_elevations++;
		}
		update_fit(n, deg + 1, U, P, m, Q, ub, e);
	}
	if (removed != 0 && cfg->final_pass) {
		/* The last removal (at the final degree) removed knots: refit (P replaced only if
		 * accepted), measure the true errors, and remove again. */
		hks_fit_least_squares(ws, n, degree, U, P, m, Q, ub, E, cfg, stats);
		update_fit(n, degree, U, P, m, Q, ub, e);
		hks_fit_remove_knots_bound(ws, &n, degree, U, P, m, ub, e, E, cfg, stats);
	}
	out->degree = degree;
	out->num_points = n + 1;
	out->num_knots = n + degree + 2;
	memcpy(out->knots, U, (size_t)out->num_knots * sizeof(float));
	memcpy(out->points, P, (size_t)out->num_points * sizeof(hks_fit_v4));
	return HKS_OK;
}

hks_result hks_fit_part(hks_ctx *ctx, hks_fit_workspace *ws, int m, const hks_fit_v4 *Q, const float *ub,
                        int degree, float E, const hks_fit_config *cfg, hks_fit_curve *out, hks_fit_stats *stats)
{
	HKS_TRY(hks_fit_curve_run(ctx, ws, m, Q, ub, degree, E, cfg, out, stats));
	/* §7.9: strictly more control points than the block has frames (§16: never "as many"). */
	if (cfg->degree1_fallback && degree != 1 && out->num_points > m + 1) {
		if (stats)
			stats->degree1_fallbacks++;
		HKS_TRY(hks_fit_curve_run(ctx, ws, m, Q, ub, 1, E, cfg, out, stats));
	}
	return HKS_OK;
}
