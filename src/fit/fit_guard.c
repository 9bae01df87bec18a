/*
 * The tolerance guard: Havok's fit first, then a check of the fitted curve
 * against its samples, and a fallback ladder for the parts it leaves
 * (docs/FIT.md "The tolerance guard", docs/ENCODE.md "Tolerance guarantee").
 *
 * Why a guard at all: A9.9's error charge for removing a knot with p + s odd
 * (ENCODER.md §7.3) bounds the point A5.8 would change if it kept the
 * left-computed point, but A5.8 keeps the right-computed one (docs/FIT.md,
 * departure 5); and §7.6 accepts refits up to 1.1·E. Both let a Havok fit end
 * above E. The guard keeps Havok's curve wherever it is within E (so those
 * parts keep Havok's bytes) and otherwise refits with rungs that each remove
 * one cause, ending with a curve that is exact at every sample.
 */
#include "fit.h"

#include <math.h>

float hks_fit_max_lane_error(const hks_fit_curve *c, int m, const hks_fit_v4 *Q, const float *ub, unsigned lanes)
{
	int n = c->num_points - 1;
	float worst = 0.0f;
	for (int k = 0; k <= m; k++) {
		hks_fit_v4 C = hks_nurbs_curve_point(n, c->degree, c->knots, c->points, ub[k]);
		for (int i = 0; i < 4; i++) {
			if (!(lanes & (1u << i)))
				continue;
			float d = fabsf(Q[k].v[i] - C.v[i]);
			/* a NaN distance (finite samples, NaN curve) counts as the worst */
			if (!(d <= worst))
				worst = d != d ? INFINITY : d;
		}
	}
	return worst;
}

static int unit_v4(const hks_fit_v4 *q, hks_fit_v4 *out)
{
	float d = q->v[0] * q->v[0] + q->v[1] * q->v[1] + q->v[2] * q->v[2] + q->v[3] * q->v[3];
	if (!(d > 0.0f) || !isfinite(d))
		return 0;
	float r = 1.0f / sqrtf(d);
	for (int i = 0; i < 4; i++)
		out->v[i] = q->v[i] * r;
	return 1;
}

float hks_fit_max_unit_error(const hks_fit_curve *c, int m, const hks_fit_v4 *Q, const float *ub, unsigned lanes)
{
	hks_fit_v4 P[HKS_FIT_MAX_POINTS]; /* 12 KiB of normalized points */
	int n = c->num_points - 1;
	for (int j = 0; j <= n; j++)
		if (!unit_v4(&c->points[j], &P[j]))
			return INFINITY;
	float worst = 0.0f;
	for (int k = 0; k <= m; k++) {
		hks_fit_v4 q;
		if (!unit_v4(&Q[k], &q))
			return INFINITY;
		hks_fit_v4 C = hks_nurbs_curve_point(n, c->degree, c->knots, P, ub[k]);
		/* per sample, the nearer of the sample as given and its unit form: a curve between
		 * unit control points passes inside the sphere, so a decoded (retail) sample off unit
		 * length can be met exactly as given, and a unit curve can always meet the unit form;
		 * either bounds the stored value within E + | |Q| - 1 | of the sample as given */
		float raw = 0.0f, unit = 0.0f;
		for (int i = 0; i < 4; i++) {
			if (!(lanes & (1u << i)))
				continue;
			float dr = fabsf(Q[k].v[i] - C.v[i]), du = fabsf(q.v[i] - C.v[i]);
			if (!(dr <= raw))
				raw = dr != dr ? INFINITY : dr;
			if (!(du <= unit))
				unit = du != du ? INFINITY : du;
		}
		float d = raw < unit ? raw : unit;
		if (!(d <= worst))
			worst = d;
	}
	return worst;
}

/* The error the guard bounds: the fitted curve's, or for rotations the stored one's. */
static float guard_error(const hks_fit_config *cfg, const hks_fit_curve *c, int m, const hks_fit_v4 *Q,
                         const float *ub, unsigned lanes)
{
	return cfg->guard_unit_points ? hks_fit_max_unit_error(c, m, Q, ub, lanes)
	                              : hks_fit_max_lane_error(c, m, Q, ub, lanes);
}

/* The polyline through every sample: degree 1, knots [ub0, ub0, ub1 … ub(m−1), ubm, ubm]
 * (the start of §7.2), so C(ub[k]) = Q[k] up to one rounding of the basis value. */
static void polyline(int m, const hks_fit_v4 *Q, const float *ub, hks_fit_curve *out)
{
	out->degree = 1;
	out->num_points = m + 1;
	out->num_knots = m + 3;
	out->knots[0] = ub[0];
	for (int k = 0; k <= m; k++) {
		out->knots[k + 1] = ub[k];
		out->points[k] = Q[k];
	}
	out->knots[m + 2] = ub[m];
}

static int lanes_finite(int m, const hks_fit_v4 *Q, unsigned lanes)
{
	for (int k = 0; k <= m; k++)
		for (int i = 0; i < 4; i++)
			if ((lanes & (1u << i)) && !isfinite(Q[k].v[i]))
				return 0;
	return 1;
}

hks_result hks_fit_part_guarded(hks_ctx *ctx, hks_fit_workspace *ws, int m, const hks_fit_v4 *Q, const float *ub,
                                int degree, float E, const hks_fit_config *cfg, unsigned lanes, hks_fit_curve *out,
                                hks_fit_stats *stats, hks_fit_guard_report *report)
{
	hks_fit_guard_report local;
	if (!report)
		report = &local;
	memset(report, 0, sizeof(*report));
	HKS_TRY(hks_fit_part(ctx, ws, m, Q, ub, degree, E, cfg, out, stats));
	lanes &= 0x0Fu;
	if (!lanes)
		return HKS_OK;
	/* Non-finite samples have no meaningful distance; such parts keep Havok's fit. */
	if (!lanes_finite(m, Q, lanes)) {
		report->unchecked = 1;
		return HKS_OK;
	}
	float err = guard_error(cfg, out, m, Q, ub, lanes);
	report->havok_error = err;
	report->havok_degree = out->degree;
	if (err <= E)
		return HKS_OK;

	/* The ladder. Each rung's statistics are discarded: `stats` describes Havok's fit. */
	hks_fit_stats scratch;
	hks_fit_config rung_cfg = *cfg;
	/* Rung 1: the odd-case charge A5.8 really causes (docs/FIT.md departure 5). */
	if (rung_cfg.removal_odd_bound != HKS_FIT_ODD_BOUND_KEPT_POINT) {
		rung_cfg.removal_odd_bound = HKS_FIT_ODD_BOUND_KEPT_POINT;
		memset(&scratch, 0, sizeof(scratch));
		HKS_TRY(hks_fit_part(ctx, ws, m, Q, ub, degree, E, &rung_cfg, out, &scratch));
		if (guard_error(cfg, out, m, Q, ub, lanes) <= E) {
			report->rung = HKS_FIT_GUARD_KEPT_POINT;
			return HKS_OK;
		}
	}
	/* Rung 2: refits accepted only within E (not §7.6's 1.1·E). */
	if (rung_cfg.accept_factor > 1.0f) {
		rung_cfg.accept_factor = 1.0f;
		memset(&scratch, 0, sizeof(scratch));
		HKS_TRY(hks_fit_part(ctx, ws, m, Q, ub, degree, E, &rung_cfg, out, &scratch));
		if (guard_error(cfg, out, m, Q, ub, lanes) <= E) {
			report->rung = HKS_FIT_GUARD_STRICT;
			return HKS_OK;
		}
	}
	/* Rung 3: the error-bounded fit at degree 1 (p + s = 2: no odd case; f32 round-off
	 * in the accumulated bounds is what could still leave E, hence the check). */
	if (degree > 1) {
		memset(&scratch, 0, sizeof(scratch));
		HKS_TRY(hks_fit_curve_run(ctx, ws, m, Q, ub, 1, E, &rung_cfg, out, &scratch));
		if (guard_error(cfg, out, m, Q, ub, lanes) <= E) {
			report->rung = HKS_FIT_GUARD_DEGREE1;
			return HKS_OK;
		}
	}
	/* Rung 4: the polyline through every frame; exact at the samples, so the stored
	 * curve is off by the quantization alone. */
	polyline(m, Q, ub, out);
	report->rung = HKS_FIT_GUARD_POLYLINE;
	report->residual = guard_error(cfg, out, m, Q, ub, lanes) > E;
	return HKS_OK;
}
