/*
 * The f32 building blocks of the fitter (ENCODER.md §4): SSE min/max, the 4-D
 * vector operations, dot4 / mag / dist, and the float -> int conversion.
 *
 * Each helper performs its operations in the written order; the build uses
 * -ffp-contract=off and no fast-math, so every operation is rounded once and
 * nothing is re-associated. Multiplication and addition of two operands are
 * commutative in IEEE arithmetic, so only the grouping matters, and it is the
 * one ENCODER.md gives.
 */
#ifndef HKS_FIT_ARITH_H
#define HKS_FIT_ARITH_H

#include <float.h>
#include <stdint.h>
#include <math.h>

typedef struct hks_fit_v4 {
	float v[4]; /* x, y, z, w */
} hks_fit_v4;

/* minss / maxss: the running value is the first operand; NaN in either gives b (§4). */
static inline float hks_fit_minss(float a, float b) { return a < b ? a : b; }
static inline float hks_fit_maxss(float a, float b) { return a > b ? a : b; }

/* cvttss2si: truncation; NaN, ±inf and out-of-range give INT32_MIN (§4). */
static inline int32_t hks_fit_cvtt(float x)
{
	if (x > -2147483904.0f && x < 2147483648.0f)
		return (int32_t)x;
	return INT32_MIN;
}

static inline hks_fit_v4 hks_fit_v4_make(float x, float y, float z, float w)
{
	hks_fit_v4 r = {{x, y, z, w}};
	return r;
}
static inline hks_fit_v4 hks_fit_v4_zero(void) { return hks_fit_v4_make(0.0f, 0.0f, 0.0f, 0.0f); }

static inline hks_fit_v4 hks_fit_v4_add(hks_fit_v4 a, hks_fit_v4 b)
{
	hks_fit_v4 r;
	for (int i = 0; i < 4; i++)
		r.v[i] = a.v[i] + b.v[i];
	return r;
}
static inline hks_fit_v4 hks_fit_v4_sub(hks_fit_v4 a, hks_fit_v4 b)
{
	hks_fit_v4 r;
	for (int i = 0; i < 4; i++)
		r.v[i] = a.v[i] - b.v[i];
	return r;
}
/* s · a per lane. */
static inline hks_fit_v4 hks_fit_v4_scale(float s, hks_fit_v4 a)
{
	hks_fit_v4 r;
	for (int i = 0; i < 4; i++)
		r.v[i] = s * a.v[i];
	return r;
}
/* The blend (α·x) + ((1 − α)·y) used by knot removal, insertion and elevation (§7.4, §7.7). */
static inline hks_fit_v4 hks_fit_v4_mix(float alpha, hks_fit_v4 x, hks_fit_v4 y)
{
	float beta = 1.0f - alpha;
	hks_fit_v4 r;
	for (int i = 0; i < 4; i++)
		r.v[i] = (alpha * x.v[i]) + (beta * y.v[i]);
	return r;
}
/* point ÷ scalar: inv = 1.0f / d (true division), then each lane times inv (§4.1). */
static inline hks_fit_v4 hks_fit_v4_div(hks_fit_v4 a, float d)
{
	float inv = 1.0f / d;
	hks_fit_v4 r;
	for (int i = 0; i < 4; i++)
		r.v[i] = a.v[i] * inv;
	return r;
}
/* dot4(a, b) = ((a.x·b.x + a.y·b.y) + a.z·b.z) + a.w·b.w (§4.1). */
static inline float hks_fit_dot4(hks_fit_v4 a, hks_fit_v4 b)
{
	float s = a.v[0] * b.v[0] + a.v[1] * b.v[1];
	s = s + a.v[2] * b.v[2];
	s = s + a.v[3] * b.v[3];
	return s;
}
static inline float hks_fit_mag(hks_fit_v4 a) { return sqrtf(hks_fit_dot4(a, a)); }
/* dist(a, b) = mag(b − a), 4-D for every part (§4.1). */
static inline float hks_fit_dist(hks_fit_v4 a, hks_fit_v4 b) { return hks_fit_mag(hks_fit_v4_sub(b, a)); }

#endif /* HKS_FIT_ARITH_H */
