/*
 * The encoder's tolerance guard (src/fit/fit_guard.c, docs/ENCODE.md
 * "Tolerance guarantee") on synthetic blocks built here:
 *  - the trigger of the ENCODER.md §7.3 odd-case flaw: constant samples whose
 *    last frame steps up (what a static block looks like after decoding, its
 *    last frame coming from the next block, FORMAT.md §4.2). Havok's fit
 *    leaves E there; the guarded fit does not;
 *  - parts within E keep Havok's fit bit for bit (and the encoder's bytes);
 *  - only the lanes that are stored from the curve are checked; parts with
 *    non-finite samples are not checked;
 *  - the encoder: default encode within E + one quantization step per
 *    component (no 1.1 factor), havok_unguarded reproduces the flaw, the
 *    statistics count the guarded part;
 *  - lanes §5.4 leaves absent although samples are up to 2E from the
 *    identity are stored static by the guard;
 *  - the re-compressor's predictor runs without the guard unless
 *    hks_predictor_options.tolerance_guard asks for it.
 */
#include "hks_test.h"
#include "encode_internal.h"
#include "fit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOL 0.001f
#define FPS 30.0f
#define STEP_UP 0.0012f /* above TOL: the lane is a spline lane (§5.4), yet one frame moves */
/* f32 evaluation differences between the fit's curve (seconds) and the
 * decoder's (frame numbers from the knot bytes) */
#define F32_SLACK 1e-5

static float rcp_exact(const void *model, float x)
{
	(void)model;
	return 1.0f / x;
}

/* m + 1 samples of a constant 4-D point, the last one STEP_UP higher in `lane`;
 * ub the Linspace parameters of a 30 fps block. */
static void step_block(int m, int lane, hks_fit_v4 *Q, float *ub)
{
	for (int k = 0; k <= m; k++)
		Q[k] = hks_fit_v4_make(0.5f, -0.25f, 1.0f, 0.0f);
	Q[m].v[lane] += STEP_UP;
	hks_fit_linspace(m, 0.0f, (float)m / FPS, rcp_exact, NULL, HKS_FIT_LINSPACE_HAVOK, ub);
}

static hks_fit_v4 g_Q[HKS_FIT_MAX_FRAMES];
static float g_ub[HKS_FIT_MAX_FRAMES];
static hks_fit_curve g_a, g_b;

static void test_max_lane_error(void **state)
{
	(void)state;
	/* degree 1 through (0, 0) and (1, 1) in lane 0, lane 2 constant 3: samples at u = 0, 0.5, 1 */
	hks_fit_curve *c = &g_a;
	memset(c, 0, sizeof(*c));
	c->degree = 1;
	c->num_points = 2;
	c->num_knots = 4;
	c->knots[0] = c->knots[1] = 0.0f;
	c->knots[2] = c->knots[3] = 1.0f;
	c->points[0] = hks_fit_v4_make(0.0f, 0.0f, 3.0f, 0.0f);
	c->points[1] = hks_fit_v4_make(1.0f, 0.0f, 3.0f, 0.0f);
	float ub[3] = {0.0f, 0.5f, 1.0f};
	hks_fit_v4 Q[3] = {hks_fit_v4_make(0.0f, 0.0f, 3.0f, 0.0f), hks_fit_v4_make(0.75f, 0.0f, 3.0f, 0.0f),
	                   hks_fit_v4_make(1.0f, 0.0f, 2.5f, 0.0f)};
	assert_float_equal(hks_fit_max_lane_error(c, 2, Q, ub, 0x1), 0.25f, 1e-7f);
	assert_float_equal(hks_fit_max_lane_error(c, 2, Q, ub, 0x4), 0.5f, 1e-7f);
	assert_float_equal(hks_fit_max_lane_error(c, 2, Q, ub, 0xF), 0.5f, 1e-7f);
	assert_float_equal(hks_fit_max_lane_error(c, 2, Q, ub, 0x2), 0.0f, 0.0f);
	/* a NaN curve counts as the worst error */
	c->points[1].v[1] = NAN;
	assert_true(isinf(hks_fit_max_lane_error(c, 2, Q, ub, 0x2)));
}

/* The flaw and the guard at the fit level, for a block of 256 and of 31 frames. */
static void check_step_block(int m)
{
	hks_fit_config cfg;
	hks_fit_config_havok(&cfg);
	step_block(m, 0, g_Q, g_ub);
	hks_ctx ctx;
	hks_error err;
	hks_ctx_init(&ctx, NULL, 0, &err);
	hks_fit_workspace *ws = hks_fit_workspace_new(&ctx);
	assert_non_null(ws);

	hks_fit_stats plain_stats, guarded_stats;
	memset(&plain_stats, 0, sizeof(plain_stats));
	memset(&guarded_stats, 0, sizeof(guarded_stats));
	assert_int_equal(hks_fit_part(&ctx, ws, m, g_Q, g_ub, 3, TOL, &cfg, &g_a, &plain_stats), HKS_OK);
	float havok = hks_fit_max_lane_error(&g_a, m, g_Q, g_ub, 0x7);
	print_message("m = %d: Havok's fit %d points at degree %d, error %.5f\n", m, g_a.num_points, g_a.degree,
	              (double)havok);

	hks_fit_guard_report rep;
	assert_int_equal(hks_fit_part_guarded(&ctx, ws, m, g_Q, g_ub, 3, TOL, &cfg, 0x7, &g_b, &guarded_stats, &rep),
	                 HKS_OK);
	float guarded = hks_fit_max_lane_error(&g_b, m, g_Q, g_ub, 0x7);
	print_message("m = %d: guarded rung %d, %d points at degree %d, error %.6f\n", m, (int)rep.rung, g_b.num_points,
	              g_b.degree, (double)guarded);
	/* the unguarded fit leaves the bound: this is the flaw the guard exists for */
	assert_true(havok > TOL);
	assert_float_equal(rep.havok_error, havok, 0.0f);
	assert_int_equal(rep.havok_degree, g_a.degree);
	assert_int_equal(rep.unchecked, 0);
	assert_int_equal(rep.residual, 0);
	assert_int_not_equal(rep.rung, HKS_FIT_GUARD_NONE);
	assert_true(guarded <= TOL);
	/* the statistics describe Havok's fit only */
	assert_memory_equal(&plain_stats, &guarded_stats, sizeof(plain_stats));
	/* the guarded curve is a valid clamped curve */
	assert_int_equal(g_b.num_knots, g_b.num_points + g_b.degree + 1);
	assert_true(g_b.num_points <= m + 1);
	assert_float_equal(g_b.knots[0], g_ub[0], 0.0f);
	assert_float_equal(g_b.knots[g_b.num_knots - 1], g_ub[m], 0.0f);

	/* the first rung alone (the kept-point bound) is what the guard tries first */
	hks_fit_config kept = cfg;
	kept.removal_odd_bound = HKS_FIT_ODD_BOUND_KEPT_POINT;
	assert_int_equal(hks_fit_part(&ctx, ws, m, g_Q, g_ub, 3, TOL, &kept, &g_a, NULL), HKS_OK);
	if (hks_fit_max_lane_error(&g_a, m, g_Q, g_ub, 0x7) <= TOL) {
		assert_int_equal(rep.rung, HKS_FIT_GUARD_KEPT_POINT);
		assert_int_equal(g_a.num_points, g_b.num_points);
		assert_memory_equal(g_a.points, g_b.points, (size_t)g_a.num_points * sizeof(hks_fit_v4));
	}
	hks_fit_workspace_free(&ctx, ws);
}

static void test_fit_step_256(void **state)
{
	(void)state;
	check_step_block(255);
}

static void test_fit_step_31(void **state)
{
	(void)state;
	check_step_block(30);
}

/* A smooth part within E: the guard does not touch it (same bits). */
static void test_fit_untouched(void **state)
{
	(void)state;
	int m = 120;
	hks_fit_linspace(m, 0.0f, (float)m / FPS, rcp_exact, NULL, HKS_FIT_LINSPACE_HAVOK, g_ub);
	for (int k = 0; k <= m; k++)
		g_Q[k] = hks_fit_v4_make(sinf(g_ub[k] * 1.3f), 0.2f * cosf(g_ub[k] * 2.1f), 0.1f * g_ub[k], 0.0f);
	hks_fit_config cfg;
	hks_fit_config_havok(&cfg);
	hks_ctx ctx;
	hks_error err;
	hks_ctx_init(&ctx, NULL, 0, &err);
	hks_fit_workspace *ws = hks_fit_workspace_new(&ctx);
	assert_non_null(ws);
	assert_int_equal(hks_fit_part(&ctx, ws, m, g_Q, g_ub, 3, TOL, &cfg, &g_a, NULL), HKS_OK);
	assert_true(hks_fit_max_lane_error(&g_a, m, g_Q, g_ub, 0xF) <= TOL);
	hks_fit_guard_report rep;
	assert_int_equal(hks_fit_part_guarded(&ctx, ws, m, g_Q, g_ub, 3, TOL, &cfg, 0xF, &g_b, NULL, &rep), HKS_OK);
	assert_int_equal(rep.rung, HKS_FIT_GUARD_NONE);
	assert_int_equal(g_a.num_points, g_b.num_points);
	assert_int_equal(g_a.degree, g_b.degree);
	assert_memory_equal(g_a.knots, g_b.knots, (size_t)g_a.num_knots * sizeof(float));
	assert_memory_equal(g_a.points, g_b.points, (size_t)g_a.num_points * sizeof(hks_fit_v4));
	hks_fit_workspace_free(&ctx, ws);
}

/* Only the checked lanes count; non-finite samples switch the check off. */
static void test_fit_lanes_and_nonfinite(void **state)
{
	(void)state;
	int m = 255;
	step_block(m, 1, g_Q, g_ub); /* the step in lane 1 */
	hks_fit_config cfg;
	hks_fit_config_havok(&cfg);
	hks_ctx ctx;
	hks_error err;
	hks_ctx_init(&ctx, NULL, 0, &err);
	hks_fit_workspace *ws = hks_fit_workspace_new(&ctx);
	assert_non_null(ws);
	hks_fit_guard_report rep;
	/* lane 1 not checked (a static lane in the encoder stores the mean, not the curve) */
	assert_int_equal(hks_fit_part_guarded(&ctx, ws, m, g_Q, g_ub, 3, TOL, &cfg, 0x5, &g_b, NULL, &rep), HKS_OK);
	assert_true(hks_fit_max_lane_error(&g_b, m, g_Q, g_ub, 0x2) > TOL);
	assert_int_equal(rep.rung, HKS_FIT_GUARD_NONE);
	/* checked: guarded */
	assert_int_equal(hks_fit_part_guarded(&ctx, ws, m, g_Q, g_ub, 3, TOL, &cfg, 0x2, &g_b, NULL, &rep), HKS_OK);
	assert_int_not_equal(rep.rung, HKS_FIT_GUARD_NONE);
	assert_true(hks_fit_max_lane_error(&g_b, m, g_Q, g_ub, 0x2) <= TOL);
	/* a NaN in a checked lane: not checked, Havok's fit kept */
	g_Q[7].v[2] = NAN;
	assert_int_equal(hks_fit_part_guarded(&ctx, ws, m, g_Q, g_ub, 3, TOL, &cfg, 0x6, &g_b, NULL, &rep), HKS_OK);
	assert_int_equal(rep.unchecked, 1);
	assert_int_equal(rep.rung, HKS_FIT_GUARD_NONE);
	/* no lanes: nothing to check */
	assert_int_equal(hks_fit_part_guarded(&ctx, ws, m, g_Q, g_ub, 3, TOL, &cfg, 0x0, &g_b, NULL, &rep), HKS_OK);
	assert_int_equal(rep.unchecked, 0);
	assert_int_equal(rep.rung, HKS_FIT_GUARD_NONE);
	hks_fit_workspace_free(&ctx, ws);
}

/* ---- the encoder --------------------------------------------------------- */

#define FRAMES 256u

/* One track: translation x constant with the step at the last frame, y and z
 * constant (static lanes), rotation a slow turn, scale 1. */
static float *step_frames(hks_frames_in *in)
{
	float *tr = calloc((size_t)FRAMES * 10, sizeof(float));
	assert_non_null(tr);
	for (uint32_t f = 0; f < FRAMES; f++) {
		float *s = tr + (size_t)f * 10;
		float t = (float)f / FPS;
		s[0] = f + 1 == FRAMES ? 0.5f + STEP_UP : 0.5f;
		s[1] = 0.3f;
		s[2] = -1.0f;
		s[3] = 0.0f;
		s[4] = sinf(0.1f * t);
		s[5] = 0.0f;
		s[6] = cosf(0.1f * t);
		s[7] = s[8] = s[9] = 1.0f;
	}
	memset(in, 0, sizeof(*in));
	in->num_frames = FRAMES;
	in->num_transform_tracks = 1;
	in->duration = (float)(FRAMES - 1) / FPS;
	in->transforms = tr;
	return tr;
}

/* Encode, pack, walk strictly, sample; the largest translation error beyond
 * E + one 16-bit step of its lane (negative when within). */
static double translation_excess(const hks_frames_in *in, const hks_encode_options *o, hks_packed_spline **keep)
{
	hks_error err;
	hks_packed_spline *p = NULL;
	assert_int_equal(hks_encode_spline(in, o, &p, &err), HKS_OK);
	hks_animation a = hks_test_animation_of(p);
	hks_walk_options wo;
	memset(&wo, 0, sizeof(wo));
	wo.strict = 1;
	hks_stored_animation *s = NULL;
	assert_int_equal(hks_stored_read(&a, &wo, &s, &err), HKS_OK);
	float *out = calloc((size_t)FRAMES * 10, sizeof(float));
	assert_non_null(out);
	assert_int_equal(hks_sample_frames(s, NULL, 0, FRAMES, out, NULL, &err), HKS_OK);
	double worst = -1.0;
	const hks_stored_part *tp = &s->blocks[0].tracks[0].part[0];
	for (int lane = 0; lane < 3; lane++) {
		double step = (tp->flags & (0x10 << lane)) ? ((double)tp->max[lane] - (double)tp->min[lane]) / 65535.0 : 0.0;
		for (uint32_t f = 0; f < FRAMES; f++) {
			double d = fabs((double)out[(size_t)f * 10 + (size_t)lane] - (double)in->transforms[(size_t)f * 10 + (size_t)lane]);
			double excess = d - ((double)TOL + step + F32_SLACK);
			if (excess > worst)
				worst = excess;
		}
	}
	free(out);
	hks_stored_free(s);
	if (keep)
		*keep = p;
	else
		hks_packed_spline_free(p);
	return worst;
}

static void test_encoder_guard(void **state)
{
	(void)state;
	hks_frames_in in;
	float *tr = step_frames(&in);
	hks_encode_options o;
	memset(&o, 0, sizeof(o));
	hks_encode_stats st;
	o.stats = &st;

	o.havok_unguarded = 1;
	double unguarded = translation_excess(&in, &o, NULL);
	for (int k = 0; k < 4; k++)
		assert_int_equal(st.guarded_parts[k], 0);
	assert_int_equal(st.guard_rungs[0] + st.guard_rungs[1] + st.guard_rungs[2] + st.guard_rungs[3], 0);

	o.havok_unguarded = 0;
	double guarded = translation_excess(&in, &o, NULL);
	print_message("translation error beyond E + step: unguarded %.5f, guarded %.6f; guarded parts T %llu R %llu\n",
	              unguarded, guarded, (unsigned long long)st.guarded_parts[0], (unsigned long long)st.guarded_parts[1]);
	assert_true(unguarded > 0.0); /* Havok's algorithm leaves the bound on this input */
	assert_true(guarded <= 0.0);  /* the guard keeps it */
	assert_int_equal(st.guarded_parts[0], 1);
	assert_int_equal(st.guarded_parts[2] + st.guarded_parts[3], 0);
	assert_int_equal(st.guard_rungs[0] + st.guard_rungs[1] + st.guard_rungs[2] + st.guard_rungs[3],
	                 st.guarded_parts[0] + st.guarded_parts[1]);
	assert_true(st.guard_worst_havok_error > (double)TOL);
	assert_int_equal(st.guard_unchecked_parts, 0);
	free(tr);
}

/* Without the step nothing is guarded and the bytes equal the unguarded encode. */
static void test_encoder_untouched(void **state)
{
	(void)state;
	hks_frames_in in;
	float *tr = step_frames(&in);
	/* x static again (the step within E), y a slow sine: a spline translation that fits within E */
	tr[(size_t)(FRAMES - 1) * 10] = 0.5f + 0.3f * TOL;
	for (uint32_t f = 0; f < FRAMES; f++)
		tr[(size_t)f * 10 + 1] = 0.3f * sinf(0.7f * (float)f / FPS);
	/* a rotation slow enough that its normalized control points (§9.3) stay within E too:
	 * the guard bounds the rotation as stored (docs/FIT.md) */
	for (uint32_t f = 0; f < FRAMES; f++) {
		float t = (float)f / FPS;
		tr[(size_t)f * 10 + 4] = sinf(0.004f * t);
		tr[(size_t)f * 10 + 6] = cosf(0.004f * t);
	}
	hks_encode_options o;
	memset(&o, 0, sizeof(o));
	hks_encode_stats st;
	o.stats = &st;
	hks_packed_spline *a = NULL, *b = NULL;
	assert_true(translation_excess(&in, &o, &a) <= 0.0);
	for (int k = 0; k < 4; k++)
		assert_int_equal(st.guarded_parts[k], 0);
	assert_true(st.spline_parts[0] == 1 && st.spline_parts[1] == 1); /* the check did run on spline parts */
	o.havok_unguarded = 1;
	translation_excess(&in, &o, &b);
	assert_int_equal(a->header.data_size, b->header.data_size);
	assert_memory_equal(a->header.data, b->header.data, a->header.data_size);
	hks_packed_spline_free(a);
	hks_packed_spline_free(b);
	free(tr);
}

/* §5.4's absent lanes: samples within E of their mean, the mean within E of
 * the identity, but samples up to 2E from the identity. Translation x and the
 * rotation's x alternate between 0 and 1.8·E over the frames. */
static void test_encoder_absent_lanes(void **state)
{
	(void)state;
	hks_frames_in in;
	float *tr = step_frames(&in);
	for (uint32_t f = 0; f < FRAMES; f++) {
		float *s = tr + (size_t)f * 10;
		float x = (f / 8u) % 2u ? 1.8f * TOL : 0.0f;
		s[0] = x;
		s[3] = x;
		s[4] = 0.0f;
		s[6] = sqrtf(1.0f - x * x);
	}
	hks_encode_options o;
	memset(&o, 0, sizeof(o));
	hks_encode_stats st;
	o.stats = &st;
	hks_error err;
	for (int unguarded = 1; unguarded >= 0; unguarded--) {
		o.havok_unguarded = unguarded;
		hks_stored_animation *s = NULL;
		assert_int_equal(hks_encode_stored(&in, &o, &s, &err), HKS_OK);
		const hks_stored_track *t = &s->blocks[0].tracks[0];
		if (unguarded) {
			/* Havok's rule: translation x absent (only y, z static), rotation absent */
			assert_int_equal(t->part[0].flags, 0x06);
			assert_int_equal(t->part[1].flags, 0x00);
			assert_int_equal(st.guard_static_lanes, 0);
		} else {
			/* the guard stores them static: the mean is within E of every sample */
			assert_int_equal(t->part[0].flags, 0x07);
			assert_float_equal(t->part[0].static_value[0], 0.9f * TOL, 1e-5f);
			assert_int_equal(t->part[1].flags, 0x01);
			assert_int_equal(st.guard_static_lanes, 2);
		}
		hks_stored_free(s);
	}
	/* and the sampled result is within the bound */
	o.havok_unguarded = 0;
	assert_true(translation_excess(&in, &o, NULL) <= 0.0);
	free(tr);
}

/* The re-compressor's predictor: guard off unless asked for. */
static void test_predictor_switch(void **state)
{
	(void)state;
	hks_frames_in in;
	float *tr = step_frames(&in);
	hks_encode_options o;
	memset(&o, 0, sizeof(o));
	hks_error err;
	hks_stored_animation *plain = NULL, *unguarded = NULL, *pred_off = NULL, *pred_on = NULL;
	assert_int_equal(hks_encode_stored(&in, &o, &plain, &err), HKS_OK);
	o.havok_unguarded = 1;
	assert_int_equal(hks_encode_stored(&in, &o, &unguarded, &err), HKS_OK);
	o.havok_unguarded = 0;
	hks_predictor_options pred;
	memset(&pred, 0, sizeof(pred));
	assert_int_equal(hks_encode_stored_predict(&in, &o, &pred, &pred_off, &err), HKS_OK);
	pred.tolerance_guard = 1;
	assert_int_equal(hks_encode_stored_predict(&in, &o, &pred, &pred_on, &err), HKS_OK);

	const hks_stored_part *pp = &plain->blocks[0].tracks[0].part[0], *pu = &unguarded->blocks[0].tracks[0].part[0],
	                      *p0 = &pred_off->blocks[0].tracks[0].part[0], *p1 = &pred_on->blocks[0].tracks[0].part[0];
	/* the guard changed this part */
	assert_true(pp->num_control_points != pu->num_control_points || pp->degree != pu->degree ||
	            memcmp(pp->knots, pu->knots, pp->num_knots < pu->num_knots ? pp->num_knots : pu->num_knots) != 0);
	/* predictor default = unguarded, tolerance_guard = guarded */
	assert_int_equal(p0->num_control_points, pu->num_control_points);
	assert_int_equal(p0->num_knots, pu->num_knots);
	assert_memory_equal(p0->knots, pu->knots, pu->num_knots);
	assert_memory_equal(p0->control_points, pu->control_points, (size_t)pu->num_control_points * pu->spline_lanes * 2);
	assert_int_equal(p1->num_control_points, pp->num_control_points);
	assert_int_equal(p1->num_knots, pp->num_knots);
	assert_memory_equal(p1->knots, pp->knots, pp->num_knots);
	assert_memory_equal(p1->control_points, pp->control_points, (size_t)pp->num_control_points * pp->spline_lanes * 2);
	hks_stored_free(plain);
	hks_stored_free(unguarded);
	hks_stored_free(pred_off);
	hks_stored_free(pred_on);
	free(tr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_max_lane_error),
		cmocka_unit_test(test_fit_step_256),
		cmocka_unit_test(test_fit_step_31),
		cmocka_unit_test(test_fit_untouched),
		cmocka_unit_test(test_fit_lanes_and_nonfinite),
		cmocka_unit_test(test_encoder_guard),
		cmocka_unit_test(test_encoder_untouched),
		cmocka_unit_test(test_encoder_absent_lanes),
		cmocka_unit_test(test_predictor_switch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
