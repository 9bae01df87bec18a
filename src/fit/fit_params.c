/*
 * The fitter's parameters: the Havok and quality configurations (every [R]
 * detail of ENCODER.md §7 in one place), Linspace (§6) and the knot bytes (§8).
 */
#include "fit.h"

void hks_fit_config_havok(hks_fit_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	/* ENCODER.md §7.6 [R]: at most 50 iterations, ‖r‖ < 1e-5 computed as the f32
	 * product 1e-5f · 1e-5f = 0x2EDBE6FE (the literal 1e-10f is one ulp above, §15 Q1). */
	cfg->cg_max_iterations = 50;
	cfg->cg_recompute_period = 50;
	volatile float tol = 1e-5f; /* volatile: the product is rounded in f32 at run time, as Havok did */
	cfg->cg_threshold = tol * tol;
	cfg->accept_factor = 1.1f;       /* 0x3F8CCCCD */
	cfg->wellposed_test = true;
	cfg->wellposed_margin = 1e-5f;
	cfg->refit_on_raise = true;
	cfg->final_pass = true;
	cfg->degree1_fallback = true;
	cfg->lsq_basis = HKS_FIT_BASIS_A2_4;  /* §7.6: "try A2.4 first" */
	cfg->solver = HKS_FIT_SOLVER_HAVOK_CG;
	cfg->removal_alpha_reciprocal = false; /* §7.3: "start with true division" */
	cfg->removal_scan_from_max = false;
	cfg->removal_odd_bound = HKS_FIT_ODD_BOUND_SPEC; /* the corpus slightly prefers it (docs/FIT.md) */
	cfg->linspace = HKS_FIT_LINSPACE_HAVOK;
}

void hks_fit_config_quality(hks_fit_config *cfg)
{
	hks_fit_config_havok(cfg);
	/* ENCODER.md §14: the same problems solved in double by a banded Cholesky; a
	 * refit is accepted only within the tolerance itself. The well-posedness test
	 * stays: it keeps refits away from spans without interior samples, where the
	 * least-squares curve is unconstrained between samples. */
	cfg->solver = HKS_FIT_SOLVER_LAPACK;
	cfg->accept_factor = 1.0f;
	/* The bound that matches what A5.8 does, so every accumulated e[k] really bounds the
	 * error (with the spec's rule about 3 % of corpus parts end above 1.1·E: docs/FIT.md). */
	cfg->removal_odd_bound = HKS_FIT_ODD_BOUND_KEPT_POINT;
}

float hks_fit_rcp_lin(hks_fit_rcp_fn rcp, const void *model, float x)
{
	/* ENCODER.md §4.1: r0 = rcp(x); a = r0 + r0; b = r0·r0; c = b·x; r = a − c. */
	float r0 = rcp(model, x);
	float a = r0 + r0;
	float b = r0 * r0;
	float c = b * x;
	return a - c;
}

void hks_fit_linspace(int m, float a, float b, hks_fit_rcp_fn rcp, const void *model, hks_fit_linspace_rule rule,
                      float *ub)
{
	if (m < 0)
		return;
	ub[0] = a;
	ub[m] = b;
	if (m < 2)
		return;
	float fm = (float)m;
	float exact = 1.0f / fm;
	/* ENCODER.md §6: indices 1 … m−1−((m−1) mod 8) come from the 8-wide loop with
	 * rcpLin(m), only when m − 1 >= 8; the rest use the exact reciprocal. */
	int vector_end = 0;
	if (rule == HKS_FIT_LINSPACE_HAVOK && m - 1 >= 8)
		vector_end = (m - 1) - ((m - 1) % 8);
	float approx = vector_end > 0 ? hks_fit_rcp_lin(rcp, model, fm) : exact;
	float span = b - a;
	for (int i = 1; i < m; i++) {
		float r = i <= vector_end ? approx : exact;
		ub[i] = (((float)i * r) * span) + a;
	}
}

float hks_fit_knot_factor(float duration, int32_t num_frames)
{
	/* ENCODER.md §8: the whole animation's numFrames and duration, true division. */
	if (duration == 0.0f)
		return 0.0f;
	float inv = 1.0f / duration;
	return (float)(num_frames - 1) * inv;
}

void hks_fit_knot_bytes(const float *U, int count, float factor, uint8_t *out)
{
	/* ENCODER.md §8 [R]: trunc((U·f) + 0.5f); §16: plain truncation is wrong. */
	for (int i = 0; i < count; i++) {
		float x = (U[i] * factor) + 0.5f;
		out[i] = (uint8_t)(hks_fit_cvtt(x) & 0xFF);
	}
}
