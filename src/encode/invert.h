/*
 * The inverter (docs/RECORD.md "Inversion"): a stored part's structure
 * recovered from the frames it decodes to. This module holds the pieces that
 * depend only on the frames (lane classes, degree-1 knots, bound candidates);
 * recompress.c solves the control points with those knots, quantizes them
 * on the bounds' grid and verifies every candidate with the sampler.
 */
#ifndef HKS_INVERT_H
#define HKS_INVERT_H

#include "internal.h"

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

/*
 * Degree-1 knots refined by where a candidate missed: in every span (between consecutive knots) that
 * holds a frame f with bad[f] set, a knot at the interior frame whose second difference is largest
 * (in ulps of its lane's largest magnitude, over the active lanes). knots / *n1 as hks_invert_knots1
 * (room for nf + 2 knots); returns the number of knots added (0: no span can take one).
 */
unsigned hks_invert_refine_knots1(const float *v, uint32_t nf, unsigned lanes, const uint8_t *active,
                                  const uint8_t *bad, uint8_t *knots, unsigned *n1);

/* Control points of a degree-3 part: at most 3 per interior frame + 4. */
#define HKS_INVERT_MAX_POINTS (3 * HKS_INVERT_MAX_FRAMES + 4)

/*
 * Least squares in double of the n1 control points of degree `deg` on knots U
 * (n1 + deg + 1 bytes) to the frames f0 .. f1 − 1 of v (v[f·lanes + l], the
 * parameter of frame f is f): banded normal equations, Cholesky. Mode 0: a
 * point no fitted frame sees (its basis vanishes at every frame), or whose
 * column depends on the earlier ones at those frames, gets visible[i] = 0
 * and P[i] = 0 (hks_invert_fill gives it a value). Mode 1: the points with
 * visible[i] = 0 are fixed at their P[i] and the others solved around them.
 * `ridge` (> 0 only for the knot search) is added to the diagonal. Returns 0
 * when the system is singular or the counts are out of range (at most HKS_INVERT_MAX_FRAMES frames).
 */
int hks_invert_solve(const uint8_t *U, unsigned n1, unsigned deg, const float *v, unsigned lanes, uint32_t f0,
                     uint32_t f1, double (*P)[4], uint8_t *visible, unsigned mode, double ridge);

/*
 * The control points of a part (knots U, n1 points of degree `deg`) that its owned frames 0 .. owned − 1
 * do not determine: a point whose basis vanishes at every frame, or whose column depends on the earlier
 * ones at those frames (what hks_invert_solve's mode 0 marks; counted here without a solve, by
 * Schoenberg-Whitney). These are the "invisible control points" of
 * docs/RECORD.md: the frames cannot tell their values, so a record has to. 0 when the counts are out of
 * range (as hks_invert_solve).
 */
unsigned hks_invert_undetermined(const uint8_t *U, unsigned n1, unsigned deg, uint32_t owned);

/*
 * hidden[i] = 1 for the control points that no frame 0 .. frames − 1 sees (the basis vanishes at every one),
 * else 0: a rule on the knots alone, so that both sides of a record can group the points by it (the
 * corrections of record v11, docs/RECORD.md "Point residuals"). The counts are the caller's to check
 * (n1 >= deg + 1, deg 1..3, U with n1 + deg + 1 entries).
 */
void hks_invert_hidden_points(const uint8_t *U, unsigned n1, unsigned deg, uint32_t frames, uint8_t *hidden);

/*
 * The model of the points the frames cannot see: a run of invisible points
 * between two visible ones lies evenly on the line between them (a one-frame
 * span between triple knots: Havok's degree elevation of the linear segment,
 * inner points at 1/3 and 2/3); a run at the end ends at end_value (the next
 * block's first frame; NULL: the last visible point).
 */
void hks_invert_fill(unsigned n1, unsigned lanes, const uint8_t *visible, const float *end_value, double (*P)[4]);

/*
 * The memo of the degree-3 knot search's window fits (docs/RECORD.md "Inversion", knot search speed). A
 * window's least squares fit and its largest residual per lane depend only on the frames, the window and
 * its knots, not on the bound in ulps, so the searches of one unit at 4 and 16 ulps and the reduction
 * (which go through many of the same windows) solve each window once. The answers are exactly those of
 * the solve: a full memo stops taking windows, nothing else changes. The memo knows one unit's frames:
 * reset it before the searches of another unit (or other v, nf, nfit, lanes). NULL: no memo. About
 * 260 KB; the create returns NULL (the context's error set) when out of memory.
 */
typedef struct hks_invert_memo hks_invert_memo;
hks_invert_memo *hks_invert_memo_create(hks_ctx *ctx);
void hks_invert_memo_reset(hks_invert_memo *memo);
void hks_invert_memo_free(hks_ctx *ctx, hks_invert_memo *memo);

/*
 * Degree-3 knots: from a triple knot at every interior frame (the degree
 * elevation of the polyline through the frames, which fits any data), each
 * interior frame in turn takes the smallest multiplicity (0..3) with which a
 * least-squares fit of the frames since the last triple knot (at most 40
 * back) stays within `ulps` f32 ulps of each active lane's largest
 * magnitude. Frames 0 .. nfit − 1 are fitted (a non-final block's last frame
 * is the next block's). knots[] receives the clamped knot bytes (4 × 0, the
 * interior knots, 4 × (nf − 1)); returns the control point count, 0 when nf
 * is out of 4..256.
 */
unsigned hks_invert_knots3(const float *v, uint32_t nf, uint32_t nfit, unsigned lanes, const uint8_t *active,
                           float ulps, hks_invert_memo *memo, uint8_t *knots);

/* The third derivative of a degree-3 B-spline (clamped knots U) in span s (U[s] < U[s + 1]) as the
 * combination r[0..3] of control points s - 3 .. s; 0 when the span is empty or s < 3. */
int hks_invert_third_derivative(const uint8_t *U, unsigned s, double r[4]);

/* One f32 step up (+1) or down (-1) from x (finite x; NaN and infinities unchanged). */
float hks_invert_ulp_step(float x, int dir);
/* Span s of u in the clamped knot vector U of n1 control points (U[s] <= u < U[s + 1]; the last
 * non-empty span at the end) and the deg + 1 non-zero basis functions N[0 .. deg] of points
 * s - deg .. s, in double (Cox-de Boor, The NURBS Book A2.1 / A2.2). */
int hks_invert_basis(const uint8_t *U, unsigned n1, unsigned deg, double u, double N[4]);
/* The same with the span search starting at `from` (at most u's span, e.g. the span of an earlier u):
 * the same span and values, found in fewer steps when u ascends. */
int hks_invert_basis_from(const uint8_t *U, unsigned n1, unsigned deg, double u, double N[4], int from);

/*
 * A degree-3 knot vector (knots, *n1 points, as hks_invert_knots3 gives it) with fewer copies where the
 * frames allow: each triple knot in turn (left to right) takes 1, then 2 copies when the frames from the
 * C0 point before it to the C0 point after it still fit within `ulps` (the knot search's fit test).
 * The search extends each segment as far as it can, so it puts a triple knot where Havok often has one
 * or two copies followed by another knot a frame or two later (docs/RECORD.md "Inversion", reduction).
 * Returns the number of knots reduced (knots / *n1 updated; 0: unchanged).
 */
unsigned hks_invert_reduce_knots3(const float *v, uint32_t nf, uint32_t nfit, unsigned lanes, const uint8_t *active,
                                  float ulps, hks_invert_memo *memo, uint8_t *knots, unsigned *n1);

/*
 * Does spline lane l (its integers in slot `slot` of the control points) of the T/S/F part p give lane l of
 * v (v[f·lanes + l]) at every frame 0 .. owned − 1, bit for bit? The sampler's arithmetic for one lane
 * (FORMAT.md §3.1 and §4.5: each point dequantized as hks_dequantize_scalar does, the basis of
 * hks_sample_basis at the frame, N0·P0 + N1·P1 + … in that order, the span advancing with the frame),
 * stopped at the first difference. 0 only where decoding the part with the sampler would differ in lane l
 * (the same operations on the same values), so the re-compressor's bound search uses it as a prefilter
 * and decides exactly as with the sampler alone. Returns 1 for parts out of its range (degree, counts),
 * leaving those to the sampler.
 */
int hks_invert_lane_matches(const hks_stored_part *p, unsigned l, unsigned slot, const float *v, unsigned lanes,
                            uint32_t owned);

/*
 * One T/S/F spline lane (degree 1..3, bounds fixed): the integers that reproduce every owned frame bit for
 * bit, by dynamic programming over the points (docs/RECORD.md "Inversion", lane search). A frame in span s
 * is the sampler's f32 sum over the points s − p .. s, so with the last p points' integers as the state,
 * adding a point decides every frame of its span exactly. Each point's candidates are its integer in cp and
 * the LANE_DP_W − 1 nearest around it (0, −1, +1, −2, +2); of the integer paths that reproduce every frame
 * the one nearest the solved integers (the fewest and smallest moves) is taken, ties to the earlier
 * candidate. *found = 1 and cp's lane holds it; cp is unchanged when no path exists.
 * p: one T/S/F spline part (knots, degree, quantization, bounds, spline_lanes); v[f·lanes + l] the frames;
 * slot: lane l's index among the spline lanes (cp[i·spline_lanes + slot] is point i's integer).
 */
hks_result hks_invert_lane_integers(hks_ctx *ctx, const hks_stored_part *p, const float *v, unsigned lanes,
                                   uint32_t owned, unsigned l, unsigned slot, uint16_t *cp, int *found);

#endif
