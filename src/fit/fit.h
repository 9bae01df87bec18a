/*
 * The fitter: The NURBS Book algorithms and the error-bounded global
 * approximation (A9.10) the way ENCODER.md §7 describes Havok running it.
 *
 * Internal API (the encoder module calls it; it is not in the public header).
 *
 * Arithmetic: f32 only, every operation in the order ENCODER.md §4 writes it
 * (the build uses -ffp-contract=off), SSE min/max semantics (fit_arith.h).
 * The one approximate reciprocal the fit uses (Linspace's rcpLin, §6) comes in
 * as a function pointer so the encoder's CPU models plug in.
 *
 * Every reconstructed Havok detail ([R] in ENCODER.md) is a field of
 * hks_fit_config, so corpus experiments can switch it in one place.
 *
 * Sizes: one block has at most HKS_FIT_MAX_FRAMES frames (knot bytes are
 * u8 frame numbers, ENCODER.md §8), so every array here is bounded; the
 * workspace is one allocation through the context.
 */
#ifndef HKS_FIT_H
#define HKS_FIT_H

#include "internal.h"
#include "fit_arith.h"

#include <stdbool.h>
#include <stdint.h>

/* ---- limits ----------------------------------------------------------- */

#define HKS_FIT_MAX_FRAMES 256                 /* frames in one block (F_b) */
#define HKS_FIT_MAX_M (HKS_FIT_MAX_FRAMES - 1) /* last sample index m */
#define HKS_FIT_MAX_DEGREE 3                   /* the engine asserts degree <= 3 (FORMAT.md §4.5) */
/* Control points: a degree-1 start has m + 1; each of the two exact raises
 * adds (#distinct knot values - 1) <= m, so n <= 3m (ENCODER.md §7.5). */
#define HKS_FIT_MAX_POINTS (3 * HKS_FIT_MAX_M + 1)
#define HKS_FIT_MAX_KNOTS (HKS_FIT_MAX_POINTS + HKS_FIT_MAX_DEGREE + 1)

/* ---- the [R] switches -------------------------------------------------- */

/* Which routine gives the basis values of the least-squares matrix (ENCODER.md §7.6, [U]). */
typedef enum hks_fit_basis {
	HKS_FIT_BASIS_A2_4 = 0, /* OneBasisFun, one function at a time (the spec's first guess) */
	HKS_FIT_BASIS_A2_2 = 1  /* BasisFuns, all non-zero functions of the span at once */
} hks_fit_basis;

/* The least-squares solver (ENCODER.md §7.6 / §14). */
typedef enum hks_fit_solver {
	HKS_FIT_SOLVER_HAVOK_CG = 0, /* f32 conjugate gradient, operation by operation (exact modes) */
	HKS_FIT_SOLVER_LAPACK = 1    /* double banded Cholesky (LAPACKE_dpbsv): the quality mode */
} hks_fit_solver;

/* Linspace's reciprocals (ENCODER.md §6, [R]/[U]). */
typedef enum hks_fit_linspace_rule {
	HKS_FIT_LINSPACE_HAVOK = 0, /* rcpLin for the 8-wide vector part, true division for the rest */
	HKS_FIT_LINSPACE_EXACT = 1  /* true division for every index */
} hks_fit_linspace_rule;

/* The error bound A9.9 charges for removing a knot with p + s odd (ENCODER.md §7.3). */
typedef enum hks_fit_odd_bound {
	/* The spec / book: i = r − k + 1, f = (1 − α)·Br. It bounds the point A5.8 would change
	 * if it kept the left-computed point; A5.8 keeps the right one (docs/FIT.md). */
	HKS_FIT_ODD_BOUND_SPEC = 0,
	/* The deviation A5.8 actually causes: i = r − k, f = α·Br, α = (U[r] − U[i]) / (U[i+p+1] − U[i]). */
	HKS_FIT_ODD_BOUND_KEPT_POINT = 1
} hks_fit_odd_bound;

typedef struct hks_fit_config {
	/* Conjugate gradient (ENCODER.md §7.6). */
	int cg_max_iterations;     /* 50: the k-th iteration with k >= this fails */
	int cg_recompute_period;   /* 50: every this many iterations r = b - A x is recomputed */
	float cg_threshold;        /* loop while rr >= this; Havok: 1e-5f * 1e-5f (0x2EDBE6FE) */
	/* Acceptance of a refit. */
	float accept_factor;       /* 1.1f: reject when some dist > E * accept_factor */
	bool wellposed_test;       /* the IsWellPosed test (essential, §16) */
	float wellposed_margin;    /* 1e-5f: a span is marked by a sample at least this far inside */
	/* The procedure (§7.2). */
	bool refit_on_raise;       /* least-squares refit after each knot-vector raise (else elevate exactly) */
	bool final_pass;           /* the final refit + removal when the last removal removed knots */
	bool degree1_fallback;     /* §7.9: refit at degree 1 when points > frames */
	hks_fit_basis lsq_basis;
	hks_fit_solver solver;
	/* Knot removal (§7.3): alpha as true division (false) or as a * (1/b) (true) [U]. */
	bool removal_alpha_reciprocal;
	/* Knot-removal minimum scan: start from +FLT_MAX (true) or from the first slot (false) [R].
	 * Identical for non-NaN bounds. */
	bool removal_scan_from_max;
	hks_fit_odd_bound removal_odd_bound;
	hks_fit_linspace_rule linspace;
	/* The tolerance guard only (fit_guard.c): measure the curve the decoder will see for a
	 * rotation, i.e. with every control point normalized to unit length (the packer stores
	 * normU(P), ENCODER.md §9.3), against the samples normalized to unit length. Without it
	 * the guard bounds the fitted curve, and the normalization's move is unbounded. */
	bool guard_unit_points;
} hks_fit_config;

/* Havok's settings as ENCODER.md reconstructs them. */
void hks_fit_config_havok(hks_fit_config *cfg);
/* The non-exact quality mode: double-precision LAPACK refits, strict acceptance (E, not 1.1 E). */
void hks_fit_config_quality(hks_fit_config *cfg);

/* What happened inside a fit (the §16 refit statistics). Counters add up. */
typedef struct hks_fit_stats {
	uint32_t refit_attempts;
	uint32_t refit_accepted;
	uint32_t refit_rejected_n_gt_m;        /* more unknowns than interior samples */
	uint32_t refit_rejected_not_wellposed;
	uint32_t refit_rejected_not_converged; /* CG ran out of iterations / Cholesky not positive definite */
	uint32_t refit_rejected_tolerance;     /* some sample farther than E * accept_factor */
	uint32_t exact_elevations;             /* fallbacks to DegreeElevateCurve */
	uint32_t knots_removed;
	uint32_t removal_refused;              /* A5.8 refused a removal (NaN data), see FIT.md */
	uint32_t degree1_fallbacks;
} hks_fit_stats;

/* ---- reciprocal model -------------------------------------------------- */

/*
 * The hardware reciprocal estimate (rcpss) model, ENCODER.md §11: `model` is
 * passed through untouched, so the encoder's model handles plug in with a
 * one-line adapter, e.g. `return hks_rcp((const hks_rcp_model *)model, x);`.
 * The tests use an exact 1/x (the `exact` CPU model).
 */
typedef float (*hks_fit_rcp_fn)(const void *model, float x);

/* rcpLin(x) = (r0 + r0) − (r0 · r0) · x with r0 = rcp(x) (ENCODER.md §4.1). */
float hks_fit_rcp_lin(hks_fit_rcp_fn rcp, const void *model, float x);

/* Linspace(m, a, b) into ub[0 … m] (ENCODER.md §6). m >= 0. `rcp` is only called
 * for the HAVOK rule with m − 1 >= 8. */
void hks_fit_linspace(int m, float a, float b, hks_fit_rcp_fn rcp, const void *model, hks_fit_linspace_rule rule,
                      float *ub);

/* ---- The NURBS Book, chapter 2 and 5 (fit_nurbs.c) --------------------- */
/*
 * Conventions as in the book: degree p, control points P[0 … n], knots
 * U[0 … K] with K = n + p + 1 (the book's m). 1 <= p <= HKS_FIT_MAX_DEGREE.
 */

/* A2.1 FindSpan: u >= U[n+1] -> n; u <= U[p] -> p; else the binary search. Never loops
 * forever, also for NaN u or unsorted knots (then the result is some index in [p, n]). */
int hks_nurbs_find_span(int n, int p, float u, const float *U);

/* Whether U[p … n + 1] never decreases (no NaN): what hks_nurbs_find_span_near's `sorted` asks. */
bool hks_nurbs_span_knots_sorted(int n, int p, const float *U);
/* hks_nurbs_find_span's answer. For knots U[p … n + 1] that never decrease (`sorted`, from
 * hks_nurbs_span_knots_sorted) it walks from the span `hint` (any index; the previous parameter's span saves the
 * search when the parameters ascend): past the two end guards exactly one span holds a non-NaN u, and the
 * binary search finds that one, so the answers agree. Otherwise, and for a NaN u, the binary search itself. */
int hks_nurbs_find_span_near(int n, int p, float u, const float *U, int hint, bool sorted);

/* A2.2 BasisFuns: N[0 … p] = the non-zero basis functions at u of span `span`. */
void hks_nurbs_basis_funs(int span, float u, int p, const float *U, float *N);

/* A2.4 OneBasisFun: N_{i,p}(u), K = the last knot index. */
float hks_nurbs_one_basis(int p, int K, const float *U, int i, float u);
/* The same at four parameters u4[0 .. 3] into out[0 .. 3], bit for bit. */
void hks_nurbs_one_basis4(int p, int K, const float *U, int i, const float *u4, float *out);

/* C(u) (ENCODER.md §7.8): FindSpan, BasisFuns, C = N[0]·P[span−p] + N[1]·P[…] + … in that order. */
hks_fit_v4 hks_nurbs_curve_point(int n, int p, const float *U, const hks_fit_v4 *P, float u);
/* The same with the span given (as hks_nurbs_find_span gives it for u). */
hks_fit_v4 hks_nurbs_curve_point_in(int p, const float *U, const hks_fit_v4 *P, float u, int span);

/* Multiplicity of U[r] (equal values in both directions), K = last knot index. */
int hks_nurbs_multiplicity(int K, const float *U, int r);

/* A9.8 GetRemovalBoundCurve: the bound on the error of removing one copy of knot U[r]
 * (r the last index of its run, s its multiplicity). ENCODER.md §7.4. */
float hks_nurbs_removal_bound(int n, int p, const float *U, const hks_fit_v4 *P, int r, int s,
                              bool alpha_reciprocal);

/* A5.8 RemoveCurveKnot: try to remove knot u = U[r] (multiplicity s) up to `num` times,
 * each removal accepted when its 4-D deviation <= tol. Shifts U and compacts P in place.
 * Returns the number of copies removed. */
int hks_nurbs_remove_knot(int n, int p, float *U, hks_fit_v4 *P, int r, int s, int num, float tol,
                          bool alpha_reciprocal);

/* A5.9 DegreeElevateCurve by t (p + t <= HKS_FIT_MAX_DEGREE): writes Uh / Qw (capacity
 * checked by the caller: at most n + 1 + t·(#distinct − 1) points) and returns nh. */
int hks_nurbs_elevate(int n, int p, const float *U, const hks_fit_v4 *P, int t, float *Uh, hks_fit_v4 *Qw);

/* §7.5: one more copy of every distinct value (Raise), or one fewer (Lower). U holds
 * K + 1 knots; the return value is the new K. Raise needs room for K + 1 + #distinct. */
int hks_nurbs_raise_knot_vector(int K, float *U);
int hks_nurbs_lower_knot_vector(int K, float *U);
/* Number of distinct values in a sorted knot vector. */
int hks_nurbs_distinct(int K, const float *U);

/* ---- workspace ---------------------------------------------------------- */

typedef struct hks_fit_workspace hks_fit_workspace;

/* One allocation (about 100 KB) through the context; reuse it for every part. NULL + error on failure. */
hks_fit_workspace *hks_fit_workspace_new(hks_ctx *ctx);
void hks_fit_workspace_free(hks_ctx *ctx, hks_fit_workspace *ws);

/* ---- A9.9 and the least-squares refit ---------------------------------- */

/* A9.9 with Havok's details (ENCODER.md §7.3). Q/ub/e have m + 1 entries; *n, *U, *P
 * change in place. Returns the number of knots removed. */
int hks_fit_remove_knots_bound(hks_fit_workspace *ws, int *n, int p, float *U, hks_fit_v4 *P, int m,
                               const float *ub, float *e, float E, const hks_fit_config *cfg,
                               hks_fit_stats *stats);

/* The knot slot A9.9 removes next (fit_remove.c): the first index in lo .. hi whose bound is the smallest
 * below the start (Br[lo], or FLT_MAX with from_max), by strict "<"; NaN bounds never win, a NaN Br[lo]
 * (without from_max) gives lo, and lo when nothing is below the start. */
int hks_fit_first_smallest_bound(const float *Br, int lo, int hi, bool from_max);

typedef enum hks_fit_lsq_status {
	HKS_FIT_LSQ_OK = 0,
	HKS_FIT_LSQ_N_GT_M,
	HKS_FIT_LSQ_NOT_WELLPOSED,
	HKS_FIT_LSQ_NOT_CONVERGED,
	HKS_FIT_LSQ_TOLERANCE
} hks_fit_lsq_status;

/* §7.6 LeastSquaresFit with fixed end points: on OK, P[0 … n] holds the new points;
 * otherwise P is unchanged. */
hks_fit_lsq_status hks_fit_least_squares(hks_fit_workspace *ws, int n, int p, const float *U, hks_fit_v4 *P,
                                         int m, const hks_fit_v4 *Q, const float *ub, float E,
                                         const hks_fit_config *cfg, hks_fit_stats *stats);

/* The pieces of §7.6, exposed for the cross-check tests:
 * IsWellPosed on (n, p, U) and the samples ub[0 … m]. */
bool hks_fit_is_well_posed(int n, int p, const float *U, int m, const float *ub, float margin);

/* Build the sparse matrix and right-hand side of the refit into the workspace
 * (triples in Havok's order, B[0 … n−2] per lane). Requires 1 <= n <= m. */
void hks_fit_lsq_build(hks_fit_workspace *ws, int n, int p, const float *U, int m, const hks_fit_v4 *Q,
                       const float *ub, hks_fit_basis basis);
/* Solve lane `lane` of the built system with the f32 CG: x[0 … n−2] starts as the
 * initial guess and ends as the solution. Returns true when converged; *iterations
 * receives the iteration count. */
bool hks_fit_cg_solve(hks_fit_workspace *ws, int lane, float *x, const hks_fit_config *cfg, int *iterations);
/* Solve all four lanes of the built system in double precision (dpbsv on NᵀN,
 * half-bandwidth p). X[0 … n−2]. Returns false when NᵀN is not positive definite. */
bool hks_fit_lapack_solve(hks_fit_workspace *ws, double (*X)[4]);
/* LAPACK loaded and used by the solves (loads it on the first call); false in a
 * build without LAPACK or when the library cannot be loaded (fit_lapack.c). */
bool hks_fit_lapack_loaded(void);

/*
 * §14 item 2 — cross-checking a refit: run the Havok refit's pieces and the
 * double solve side by side on the same system, and report why Havok would
 * reject it (genuinely ill-conditioned: small rcond / no Cholesky; not well
 * posed; failed only because of the absolute f32 CG threshold: the double
 * solution is within tolerance; outside 1.1·E).
 */
typedef struct hks_fit_lsq_diagnosis {
	hks_fit_lsq_status status;   /* the verdict of the configured Havok refit */
	bool well_posed;             /* IsWellPosed (whatever cfg->wellposed_test says) */
	bool cg_converged;           /* all four lanes */
	int cg_iterations[4];
	float cg_max_error;          /* largest sample distance of the CG curve (NaN if any is NaN) */
	bool double_solved;          /* NᵀN positive definite */
	double rcond;                /* reciprocal 1-norm condition estimate of NᵀN (dpbcon); 0 if singular */
	float double_max_error;      /* largest sample distance of the double solution (rounded to f32) */
} hks_fit_lsq_diagnosis;

void hks_fit_lsq_diagnose(hks_fit_workspace *ws, int n, int p, const float *U, int m, const hks_fit_v4 *Q,
                          const float *ub, float E, const hks_fit_config *cfg, hks_fit_lsq_diagnosis *out);

/* ---- the fit (§7.2, §7.9) ---------------------------------------------- */

typedef struct hks_fit_curve {
	int degree;                         /* p */
	int num_points;                     /* n + 1 */
	int num_knots;                      /* n + p + 2 */
	float knots[HKS_FIT_MAX_KNOTS];     /* parameters (seconds, the ub values) */
	hks_fit_v4 points[HKS_FIT_MAX_POINTS];
} hks_fit_curve;

/*
 * fit(ub, Q, p, E) of ENCODER.md §7.2 for one part of one block: Q[0 … m] the
 * 4-D samples, ub[0 … m] their parameters (hks_fit_linspace), 1 <= m <= 255,
 * degree 1 … 3, E the tolerance. `stats` may be NULL.
 */
hks_result hks_fit_curve_run(hks_ctx *ctx, hks_fit_workspace *ws, int m, const hks_fit_v4 *Q, const float *ub,
                             int degree, float E, const hks_fit_config *cfg, hks_fit_curve *out,
                             hks_fit_stats *stats);

/* The part's fit with the degree-1 fallback (ENCODER.md §5.3, §7.9): fit at `degree`;
 * if that needs more control points than the block has frames (m + 1), fit at degree 1. */
hks_result hks_fit_part(hks_ctx *ctx, hks_fit_workspace *ws, int m, const hks_fit_v4 *Q, const float *ub,
                        int degree, float E, const hks_fit_config *cfg, hks_fit_curve *out, hks_fit_stats *stats);

/* ---- the tolerance guard (fit_guard.c, docs/FIT.md) --------------------- */

/* Largest |Q[k].v[i] − C(ub[k]).v[i]| over k = 0 … m and the lanes i set in
 * `lanes` (bit i = lane i), with the curve evaluated as §7.8 does; a NaN
 * distance counts as +∞. Per component, as the acceptance of issue 5 reads. */
float hks_fit_max_lane_error(const hks_fit_curve *c, int m, const hks_fit_v4 *Q, const float *ub, unsigned lanes);
/* The same for a rotation as it is stored: the curve of the control points normalized to unit
 * length, per sample against the nearer of the sample and the sample normalized to unit length
 * (a zero-length point or sample gives INFINITY: such a curve is never accepted; the polyline
 * rung then stores the samples). */
float hks_fit_max_unit_error(const hks_fit_curve *c, int m, const hks_fit_v4 *Q, const float *ub, unsigned lanes);

/* Which step of the guard's ladder produced the curve. */
typedef enum hks_fit_guard_rung {
	HKS_FIT_GUARD_NONE = 0,       /* the configured (Havok) fit was within E: untouched */
	HKS_FIT_GUARD_KEPT_POINT = 1, /* refit with the KEPT_POINT odd-case bound */
	HKS_FIT_GUARD_STRICT = 2,     /* ... and refits accepted within E only */
	HKS_FIT_GUARD_DEGREE1 = 3,    /* the error-bounded fit at degree 1 */
	HKS_FIT_GUARD_POLYLINE = 4    /* degree 1 through every sample (exact) */
} hks_fit_guard_rung;

typedef struct hks_fit_guard_report {
	hks_fit_guard_rung rung;
	int unchecked;      /* a checked lane holds a non-finite sample: Havok's fit kept, no check */
	int havok_degree;   /* degree of the configured fit (after §7.9) when checked */
	float havok_error;  /* its hks_fit_max_lane_error */
	int residual;       /* the polyline still measured above E (f32 rounding of huge values) */
} hks_fit_guard_report;

/* hks_fit_part, then the guard: when the curve leaves E on one of `lanes` at a sample,
 * refit by the ladder KEPT_POINT odd bound -> + strict acceptance -> degree-1 fit ->
 * polyline, taking the first rung within E (the polyline unconditionally). `stats`
 * receives the configured fit's statistics only; `report` may be NULL. */
hks_result hks_fit_part_guarded(hks_ctx *ctx, hks_fit_workspace *ws, int m, const hks_fit_v4 *Q, const float *ub,
                                int degree, float E, const hks_fit_config *cfg, unsigned lanes, hks_fit_curve *out,
                                hks_fit_stats *stats, hks_fit_guard_report *report);

/* ---- knot bytes (ENCODER.md §8) ----------------------------------------- */

/* f = (duration == 0) ? 0 : (f32)(num_frames − 1) · (1.0f / duration) — the animation's values. */
float hks_fit_knot_factor(float duration, int32_t num_frames);
/* byte i = low 8 bits of cvtt((U[i] · f) + 0.5f), i = 0 … count − 1 [R]. */
void hks_fit_knot_bytes(const float *U, int count, float factor, uint8_t *out);

#endif /* HKS_FIT_H */
