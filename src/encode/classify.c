/*
 * Part statistics and lane classification (ENCODER.md §4.1, §5.3, §5.4): the
 * decision whether each lane of a part is static, spline or absent.
 */
#include "encode_internal.h"

#include <math.h>

/* §2: identity vectors per part. */
static const float identity_zero[4] = {0.0f, 0.0f, 0.0f, 0.0f};
static const float identity_rotation[4] = {0.0f, 0.0f, 0.0f, 1.0f};
static const float identity_scale[4] = {1.0f, 1.0f, 1.0f, 0.0f};

const float *hks_part_identity(hks_enc_part part)
{
	switch (part) {
	case HKS_ENC_ROTATION: return identity_rotation;
	case HKS_ENC_SCALE: return identity_scale;
	default: return identity_zero;
	}
}

void hks_vec_bounds(const float (*points)[4], size_t count, float lo[4], float hi[4])
{
	/* Running value first, starting from the first point (§4.1 [R]): with
	 * NaN data a NaN point replaces the running value (minss returns b). */
	for (int i = 0; i < 4; i++) {
		float mn = points[0][i], mx = points[0][i];
		for (size_t k = 1; k < count; k++) {
			mn = hks_sse_min(mn, points[k][i]);
			mx = hks_sse_max(mx, points[k][i]);
		}
		if (lo)
			lo[i] = mn;
		if (hi)
			hi[i] = mx;
	}
}

void hks_part_statistics(const hks_rcp_model *m, const float (*samples)[4], size_t count, float mean[4],
                         float mn[4], float mx[4])
{
	if (mean) {
		/* sum in frame order, then one multiply by rcpNR((f32)count) (§4.1):
		 * the approximate reciprocal is why a constant lane's mean can
		 * differ from the constant (ENCODER.md §13.1). */
		float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
		for (size_t k = 0; k < count; k++)
			for (int i = 0; i < 4; i++)
				sum[i] = sum[i] + samples[k][i];
		float r = hks_rcp_nr(m, (float)count);
		for (int i = 0; i < 4; i++)
			mean[i] = sum[i] * r;
	}
	if (mn || mx)
		hks_vec_bounds(samples, count, mn, mx);
}

uint8_t hks_classify_lanes(const float mean[4], const float mn[4], const float mx[4], float tol,
                           const float identity[4])
{
	uint8_t mask = 0;
	for (unsigned i = 0; i < 4; i++) {
		/* inclusive "flat"; NaN anywhere makes it false → spline lane */
		int flat = fabsf(mean[i] - mn[i]) <= tol && fabsf(mean[i] - mx[i]) <= tol;
		/* strict "not identity" */
		int not_identity = tol < fabsf(mean[i] - identity[i]);
		if (flat) {
			if (not_identity)
				mask |= (uint8_t)(1u << i);
		} else {
			mask |= (uint8_t)(0x10u << i);
		}
	}
	return mask;
}

uint8_t hks_classify_part(const hks_rcp_model *m, hks_enc_part part, const float (*samples)[4], size_t count,
                          float tol, unsigned quant_float, float mean_out[4])
{
	float mean[4], mn[4], mx[4];
	hks_part_statistics(m, samples, count, mean, mn, mx);
	if (part == HKS_ENC_ROTATION) {
		float n[4];
		hks_normalize_guarded(m, mean, n);
		for (int i = 0; i < 4; i++)
			mean[i] = n[i];
	}
	uint8_t mask = hks_classify_lanes(mean, mn, mx, tol, hks_part_identity(part));
	if (part == HKS_ENC_FLOAT) {
		if (mask == 0) /* floats are never absent (§5.3) */
			mask = 0x01;
		mask = (uint8_t)(mask | (quant_float & 3u) << 1);
	}
	if (mean_out)
		for (int i = 0; i < 4; i++)
			mean_out[i] = mean[i];
	return mask;
}
