/*
 * The inverter (docs/RECORD.md "Inversion"): a stored part's structure
 * recovered from the frames it decodes to. This module holds the pieces that
 * depend only on the frames (lane classes, degree-1 knots, bound candidates);
 * recompress.c solves the control points with those knots, quantizes them
 * on the bounds' grid and verifies every candidate with the sampler.
 */
#ifndef HKS_INVERT_H
#define HKS_INVERT_H

#include <stdint.h>

#define HKS_INVERT_MAX_FRAMES 256

enum { HKS_INV_ABSENT = 0, HKS_INV_STATIC = 1, HKS_INV_SPLINE = 2 };

/*
 * Lane classes of a T/S/F unit: v[f·lanes + l], nf frames of which the first
 * `owned` are the block's own (a non-final block's last frame is decoded from
 * the next block). A lane whose owned frames all have the identity's bits
 * (`identity`) is absent, one whose owned frames all have the same bits is
 * static (value = those bits), else spline. Returns the mask byte.
 */
uint8_t hks_invert_classify(const float *v, uint32_t owned, unsigned lanes, float identity, uint8_t cls[3],
                            float static_value[3]);

/*
 * Degree-1 knots from the piecewise-linear structure: an interior frame is a
 * knot when the second difference of some active lane there exceeds `ulps`
 * f32 ulps of the lane's largest magnitude (at the last interior frame of a
 * non-final block, whose right neighbour belongs to the next block's
 * spline: also more than `edge` in value). knots[] receives the clamped knot
 * bytes (0, 0, k1 .. km, nf − 1, nf − 1); returns the control point count
 * (m + 2), or 0 when nf is out of 2..256.
 */
unsigned hks_invert_knots1(const float *v, uint32_t nf, uint32_t owned, unsigned lanes, const uint8_t *active,
                           float ulps, const float *edge, uint8_t *knots);

/* One f32 step up (+1) or down (-1) from x (finite x; NaN and infinities unchanged). */
float hks_invert_ulp_step(float x, int dir);

#endif
