/*
 * Internal declarations of the metrics module (src/metrics/): the public API
 * is the "metrics" section of include/hkspline.h; docs/METRICS.md defines
 * every metric.
 */
#ifndef HKS_METRICS_H
#define HKS_METRICS_H

#include "internal.h"

/* A rigid transform with per-axis scale, in double: p' = t + R(s ⊙ p). */
typedef struct hks_xform_d {
	double t[3];
	double q[4]; /* unit quaternion x, y, z, w */
	double s[3];
} hks_xform_d;

/* From the 10 floats of a track-sample (t xyz, q xyzw, s xyz); the quaternion is
 * normalized. Returns false when a value is non-finite or the quaternion is zero. */
bool hks_xform_from_sample(const float *sample, hks_xform_d *out);
/* From an hkQsTransform (reference pose). */
bool hks_xform_from_qs(const hks_qs_transform *qs, hks_xform_d *out);
/* parent · local (hkQsTransform composition: translations rotate and scale with the parent). */
void hks_xform_compose(const hks_xform_d *parent, const hks_xform_d *local, hks_xform_d *out);
/* ACL's virtual-vertex error: the largest distance between A and B applied to
 * the three points at `shell` on the local x, y and z axes. */
double hks_vertex_error(const hks_xform_d *a, const hks_xform_d *b, double shell);

/* Local metrics of one track-sample pair (the 10 floats of each); NaN for a
 * sample with a non-finite value in A or B. out[] indexed by hks_metric for
 * TRANSLATION, ROTATION_DEG, ROTATION_COMPONENT, SCALE and LOCAL_VERTEX. */
void hks_local_metrics(const float *a, const float *b, double shell, double out[HKS_METRIC_COUNT]);

#endif
