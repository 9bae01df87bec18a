/*
 * Double-precision transform arithmetic for the error metrics: hkQsTransform
 * composition and ACL's virtual-vertex error (docs/METRICS.md §2, §3).
 */
#include "metrics.h"

#include <math.h>

static bool all_finite(const float *v, int n)
{
	for (int i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return false;
	return true;
}

static bool normalize_q(double q[4])
{
	double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
	if (!(n > 0) || !isfinite(n))
		return false;
	for (int k = 0; k < 4; k++)
		q[k] /= n;
	return true;
}

bool hks_xform_from_sample(const float *v, hks_xform_d *o)
{
	for (int k = 0; k < 3; k++) {
		o->t[k] = v[k];
		o->s[k] = v[7 + k];
	}
	for (int k = 0; k < 4; k++)
		o->q[k] = v[3 + k];
	/* the sampler returns raw blended components (FORMAT.md §4.6); the engine
	 * normalizes before skinning, so the pose is measured normalized */
	return all_finite(v, HKS_TRACK_SAMPLE_FLOATS) && normalize_q(o->q);
}

bool hks_xform_from_qs(const hks_qs_transform *qs, hks_xform_d *o)
{
	float v[HKS_TRACK_SAMPLE_FLOATS];
	for (int k = 0; k < 3; k++) {
		v[k] = qs->translation[k];
		v[7 + k] = qs->scale[k];
	}
	for (int k = 0; k < 4; k++)
		v[3 + k] = qs->rotation[k];
	return hks_xform_from_sample(v, o);
}

/* v' = v + 2w (u × v) + 2 u × (u × v), u = (x, y, z), for a unit quaternion. */
static void rotate(const double q[4], const double v[3], double out[3])
{
	double c1[3] = {q[1] * v[2] - q[2] * v[1], q[2] * v[0] - q[0] * v[2], q[0] * v[1] - q[1] * v[0]};
	double c2[3] = {q[1] * c1[2] - q[2] * c1[1], q[2] * c1[0] - q[0] * c1[2], q[0] * c1[1] - q[1] * c1[0]};
	for (int k = 0; k < 3; k++)
		out[k] = v[k] + 2.0 * (q[3] * c1[k] + c2[k]);
}

static void transform_point(const hks_xform_d *x, const double p[3], double out[3])
{
	double scaled[3] = {x->s[0] * p[0], x->s[1] * p[1], x->s[2] * p[2]};
	rotate(x->q, scaled, out);
	for (int k = 0; k < 3; k++)
		out[k] += x->t[k];
}

void hks_xform_compose(const hks_xform_d *p, const hks_xform_d *l, hks_xform_d *o)
{
	hks_xform_d r;
	transform_point(p, l->t, r.t);
	const double *a = p->q, *b = l->q;
	r.q[0] = a[3] * b[0] + b[3] * a[0] + (a[1] * b[2] - a[2] * b[1]);
	r.q[1] = a[3] * b[1] + b[3] * a[1] + (a[2] * b[0] - a[0] * b[2]);
	r.q[2] = a[3] * b[2] + b[3] * a[2] + (a[0] * b[1] - a[1] * b[0]);
	r.q[3] = a[3] * b[3] - (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]);
	for (int k = 0; k < 3; k++)
		r.s[k] = p->s[k] * l->s[k];
	*o = r;
}

double hks_vertex_error(const hks_xform_d *a, const hks_xform_d *b, double shell)
{
	double worst = 0.0;
	for (int axis = 0; axis < 3; axis++) {
		double v[3] = {0, 0, 0}, pa[3], pb[3];
		v[axis] = shell;
		transform_point(a, v, pa);
		transform_point(b, v, pb);
		double d = sqrt((pa[0] - pb[0]) * (pa[0] - pb[0]) + (pa[1] - pb[1]) * (pa[1] - pb[1]) +
		                (pa[2] - pb[2]) * (pa[2] - pb[2]));
		if (!(d <= worst)) /* NaN propagates */
			worst = d;
	}
	return worst;
}

void hks_local_metrics(const float *a, const float *b, double shell, double out[HKS_METRIC_COUNT])
{
	double nan = NAN;
	for (int m = 0; m < HKS_METRIC_COUNT; m++)
		out[m] = nan;
	if (!all_finite(a, HKS_TRACK_SAMPLE_FLOATS) || !all_finite(b, HKS_TRACK_SAMPLE_FLOATS))
		return;
	double dt = 0, dq = 0, ds = 0;
	for (int k = 0; k < 3; k++) {
		double d = (double)a[k] - (double)b[k];
		dt += d * d;
		double e = fabs((double)a[7 + k] - (double)b[7 + k]);
		if (e > ds)
			ds = e;
	}
	for (int k = 0; k < 4; k++) {
		double d = (double)a[3 + k] - (double)b[3 + k];
		dq += d * d;
	}
	out[HKS_METRIC_TRANSLATION] = sqrt(dt);
	out[HKS_METRIC_ROTATION_COMPONENT] = sqrt(dq); /* raw components: Havok's tolerance (ENCODER.md §3.1) */
	out[HKS_METRIC_SCALE] = ds;
	hks_xform_d xa, xb;
	if (!hks_xform_from_sample(a, &xa) || !hks_xform_from_sample(b, &xb))
		return; /* a zero quaternion: no rotation to measure */
	/* the rotation angle between unit quaternions, sign-blind (q and -q are one
	 * rotation): the 4-D angle between them is half the rotation angle, and
	 * atan2(|qa - qb|, |qa + qb|) is half the 4-D angle (signs aligned first);
	 * well conditioned near 0 (unlike acos) and exact 0 for equal inputs */
	double dot = 0;
	for (int k = 0; k < 4; k++)
		dot += xa.q[k] * xb.q[k];
	double sign = dot < 0 ? -1.0 : 1.0, minus = 0, plus = 0;
	for (int k = 0; k < 4; k++) {
		double m = xa.q[k] - sign * xb.q[k], p = xa.q[k] + sign * xb.q[k];
		minus += m * m;
		plus += p * p;
	}
	out[HKS_METRIC_ROTATION_DEG] = 4.0 * atan2(sqrt(minus), sqrt(plus)) * (180.0 / 3.14159265358979323846);
	out[HKS_METRIC_LOCAL_VERTEX] = hks_vertex_error(&xa, &xb, shell);
}
