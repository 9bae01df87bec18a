/*
 * The inverter's frame analysis (invert.h, docs/RECORD.md "Inversion").
 */
#include "invert.h"

#include <math.h>
#include <string.h>

static uint32_t bits_of(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static float from_bits(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

float hks_invert_ulp_step(float x, int dir)
{
	if (!isfinite(x))
		return x;
	uint32_t u = bits_of(x);
	if ((u & 0x7FFFFFFFu) == 0) /* ±0 */
		return from_bits(dir > 0 ? 0x00000001u : 0x80000001u);
	int up = (dir > 0) == !(u >> 31); /* away from zero */
	return from_bits(up ? u + 1 : u - 1);
}

uint8_t hks_invert_classify(const float *v, uint32_t owned, unsigned lanes, float identity, uint8_t cls[3],
                            float static_value[3])
{
	uint8_t mask = 0;
	uint32_t id = bits_of(identity);
	for (unsigned l = 0; l < lanes; l++) {
		uint32_t first = bits_of(v[l]);
		int same = 1;
		for (uint32_t f = 1; f < owned && same; f++)
			same = bits_of(v[(size_t)f * lanes + l]) == first;
		static_value[l] = v[l];
		if (same && first == id) {
			cls[l] = HKS_INV_ABSENT;
		} else if (same) {
			cls[l] = HKS_INV_STATIC;
			mask |= (uint8_t)(1u << l);
		} else {
			cls[l] = HKS_INV_SPLINE;
			mask |= (uint8_t)(0x10u << l);
		}
	}
	return mask;
}

unsigned hks_invert_knots1(const float *v, uint32_t nf, uint32_t owned, unsigned lanes, const uint8_t *active,
                           float ulps, const float *edge, uint8_t *knots)
{
	if (nf < 2 || nf > HKS_INVERT_MAX_FRAMES)
		return 0;
	float thr[4] = {0, 0, 0, 0};
	for (unsigned l = 0; l < lanes; l++) {
		float big = 0.0f;
		for (uint32_t f = 0; f < nf; f++) {
			float a = fabsf(v[(size_t)f * lanes + l]);
			if (a > big && isfinite(a))
				big = a;
		}
		/* one ulp of `big`: 2^(e − 23) */
		int e;
		frexpf(big > 0.0f ? big : 1e-30f, &e);
		thr[l] = ulps * ldexpf(1.0f, e - 24);
	}
	unsigned n = 0;
	knots[n++] = 0;
	knots[n++] = 0;
	for (uint32_t f = 1; f + 1 < nf; f++) {
		int knot = 0;
		for (unsigned l = 0; l < lanes && !knot; l++) {
			if (!active[l])
				continue;
			double a = v[(size_t)(f - 1) * lanes + l], b = v[(size_t)f * lanes + l], c = v[(size_t)(f + 1) * lanes + l];
			double d2 = fabs(a - 2.0 * b + c);
			if (!(d2 <= (double)thr[l]))
				knot = 1; /* NaN too */
			if (knot && f + 1 >= owned && owned < nf && edge && !(d2 > (double)edge[l]))
				knot = 0;
		}
		if (knot)
			knots[n++] = (uint8_t)f;
	}
	knots[n++] = (uint8_t)(nf - 1);
	knots[n++] = (uint8_t)(nf - 1);
	return n - 2;
}
