/*
 * Metrics (docs/METRICS.md): an animation against itself is exactly 0 in
 * every metric; a 1 mm offset and a 0.1° root twist on a synthetic
 * three-bone chain give the analytic local and object-space values; NaN
 * samples are counted and excluded; percentile and threshold share on known
 * data; the stats byte categories add up to the data size of a hand-built
 * stored animation (before and after a pack + walk round trip).
 */
#define _POSIX_C_SOURCE 200809L
#include "hks_test.h"
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PI 3.14159265358979323846
#define TRACKS 3
#define FRAMES 3

/* A chain root → mid → tip along x: mid at 0.5 from the root, tip at 0.5 from mid. */
static const int16_t chain_parents[TRACKS] = {-1, 0, 1};
static const char *const chain_names[TRACKS] = {"Root", "Mid", "R_Weapon_Tip"};
static hks_qs_transform chain_ref[TRACKS];

static hks_skeleton chain_skeleton(void)
{
	hks_skeleton sk;
	memset(&sk, 0, sizeof(sk));
	sk.name = "chain";
	sk.num_bones = TRACKS;
	sk.bone_names = chain_names;
	sk.parent_indices = chain_parents;
	sk.num_parent_indices = TRACKS;
	for (int b = 0; b < TRACKS; b++) {
		memset(&chain_ref[b], 0, sizeof(chain_ref[b]));
		chain_ref[b].translation[0] = b ? 0.5f : 0.0f;
		chain_ref[b].rotation[3] = 1.0f;
		chain_ref[b].scale[0] = chain_ref[b].scale[1] = chain_ref[b].scale[2] = 1.0f;
	}
	sk.reference_pose = chain_ref;
	sk.num_reference_pose = TRACKS;
	return sk;
}

static void set_sample(float *s, float tx, float ty, float tz, float qz, float qw)
{
	const float v[10] = {tx, ty, tz, 0, 0, qz, qw, 1, 1, 1};
	memcpy(s, v, sizeof(v));
}

/* Frames of the rest pose: frame-major, 10 floats per track-sample. */
static void rest_frames(float *t)
{
	for (int f = 0; f < FRAMES; f++)
		for (int b = 0; b < TRACKS; b++)
			set_sample(t + (f * TRACKS + b) * 10, b ? 0.5f : 0.0f, 0, 0, 0, 1);
}

static hks_frames_in frames_of(const float *t, const float *fl, uint32_t nf)
{
	hks_frames_in in;
	memset(&in, 0, sizeof(in));
	in.num_frames = FRAMES;
	in.num_transform_tracks = TRACKS;
	in.num_float_tracks = nf;
	in.duration = 1.0f;
	in.transforms = t;
	in.floats = fl;
	return in;
}

static void test_self_is_zero(void **state)
{
	(void)state;
	float t[FRAMES * TRACKS * 10], fl[FRAMES] = {0.5f, 0.75f, 1.25f};
	rest_frames(t);
	/* make the pose non-trivial: a twist and a non-unit raw quaternion */
	set_sample(t + (1 * TRACKS + 1) * 10, 0.25f, 0.125f, -0.5f, 0.3f, 0.9f);
	hks_frames_in a = frames_of(t, fl, 1);
	hks_skeleton sk = chain_skeleton();
	hks_compare_options o;
	memset(&o, 0, sizeof(o));
	o.skeleton = &sk;
	hks_compare_result *r = NULL;
	hks_error e;
	assert_int_equal(hks_compare_frames(&a, &a, &o, &r, &e), HKS_OK);
	for (int m = 0; m < HKS_METRIC_COUNT; m++) {
		assert_true(r->metric[m].max == 0.0);
		assert_true(r->metric[m].mean == 0.0);
		assert_true(r->metric[m].p99 == 0.0);
		assert_int_equal(r->metric[m].nan_samples, 0);
	}
	assert_int_equal(r->metric[HKS_METRIC_OBJECT_SPACE].samples, FRAMES * TRACKS);
	assert_int_equal(r->metric[HKS_METRIC_FLOAT].samples, FRAMES);
	assert_true(r->under_threshold == 1.0);
	assert_int_equal(r->nan_samples, 0);
	hks_compare_result_free(r);
}

static void test_chain_perturbations(void **state)
{
	(void)state;
	float ta[FRAMES * TRACKS * 10], tb[FRAMES * TRACKS * 10];
	rest_frames(ta);
	rest_frames(tb);
	/* frame 1: 1 mm along y on the middle bone */
	tb[(1 * TRACKS + 1) * 10 + 1] = 0.001f;
	/* frame 2: a 0.1 degree twist of the root about z */
	double theta = 0.1 * PI / 180.0;
	float qz = (float)sin(theta / 2), qw = (float)cos(theta / 2);
	set_sample(tb + (2 * TRACKS + 0) * 10, 0, 0, 0, qz, qw);
	hks_frames_in a = frames_of(ta, NULL, 0), b = frames_of(tb, NULL, 0);
	hks_skeleton sk = chain_skeleton();
	hks_compare_options o;
	memset(&o, 0, sizeof(o));
	o.skeleton = &sk;
	o.threshold = 0.0015;
	hks_compare_result *r = NULL;
	hks_error e;
	assert_int_equal(hks_compare_frames(&a, &b, &o, &r, &e), HKS_OK);
	/* the twist as the stored f32 quaternion makes it (the analytic angle up to f32 rounding) */
	double half = atan2((double)qz, (double)qw), d = HKS_DEFAULT_SHELL_DISTANCE;
	double tol = 1e-9;
	/* local: translation 1 mm on track 1 at frame 1 */
	assert_true(fabs(r->metric[HKS_METRIC_TRANSLATION].max - 0.001) < tol);
	assert_int_equal(r->metric[HKS_METRIC_TRANSLATION].worst_index, 1);
	assert_int_equal(r->metric[HKS_METRIC_TRANSLATION].worst_frame, 1);
	/* local: rotation 0.1 degrees, component distance |(0,0,sin,cos) - (0,0,0,1)| = 2 sin(θ/4) */
	assert_true(fabs(r->metric[HKS_METRIC_ROTATION_DEG].max - 0.1) < 1e-5);
	assert_true(fabs(r->metric[HKS_METRIC_ROTATION_DEG].max - 2 * half * 180 / PI) < 1e-9);
	assert_true(fabs(r->metric[HKS_METRIC_ROTATION_COMPONENT].max -
	                 sqrt((double)qz * qz + (1.0 - qw) * (1.0 - qw))) < 1e-12);
	assert_true(fabs(r->metric[HKS_METRIC_ROTATION_COMPONENT].max - 2 * sin(theta / 4)) < 1e-7);
	assert_int_equal(r->metric[HKS_METRIC_ROTATION_DEG].worst_index, 0);
	assert_int_equal(r->metric[HKS_METRIC_ROTATION_DEG].worst_frame, 2);
	assert_true(r->metric[HKS_METRIC_SCALE].max == 0.0);
	/* local vertex of the root twist: the x and y vertices move on a chord 2·d·sin(θ/2) */
	const double *lv = r->values[HKS_METRIC_LOCAL_VERTEX];
	assert_true(fabs(lv[2 * TRACKS + 0] - 2 * d * sin(half)) < tol);
	assert_true(fabs(lv[1 * TRACKS + 1] - 0.001) < tol);
	/* object space: the offset moves mid and tip by 1 mm, not the root */
	const double *ob = r->values[HKS_METRIC_OBJECT_SPACE];
	assert_true(ob[1 * TRACKS + 0] == 0.0);
	assert_true(fabs(ob[1 * TRACKS + 1] - 0.001) < tol);
	assert_true(fabs(ob[1 * TRACKS + 2] - 0.001) < tol);
	/* the twist at the root swings the tip (1 m out, its x vertex at 1 + d) on a chord 2(1 + d) sin(θ/2) */
	double chord = 2 * sin(half);
	assert_true(fabs(ob[2 * TRACKS + 0] - d * chord) < tol);
	assert_true(fabs(ob[2 * TRACKS + 1] - (0.5 + d) * chord) < tol);
	assert_true(fabs(ob[2 * TRACKS + 2] - (1.0 + d) * chord) < tol);
	assert_true(fabs(r->metric[HKS_METRIC_OBJECT_SPACE].max - (1.0 + d) * chord) < tol);
	assert_true(fabs(r->metric[HKS_METRIC_OBJECT_SPACE].max - 2 * 1.03 * sin(theta / 2)) < 1e-8);
	assert_int_equal(r->worst_bone, 2);
	assert_int_equal(r->worst_track, 2);
	assert_int_equal(r->worst_frame, 2);
	/* 9 object-space samples, only the tip's 1.8 mm exceeds 1.5 mm */
	assert_true(fabs(r->under_threshold - 8.0 / 9.0) < 1e-15);
	/* frame 0 is identical */
	for (int bn = 0; bn < TRACKS; bn++)
		assert_true(ob[bn] == 0.0);
	hks_compare_result_free(r);

	/* a shell override on the tip: a 1 m shell by glob */
	hks_shell_override ov = {"R_Weapon*", 1.0};
	o.shell_overrides = &ov;
	o.num_shell_overrides = 1;
	assert_int_equal(hks_compare_frames(&a, &b, &o, &r, &e), HKS_OK);
	assert_true(r->bone_shell[2] == 1.0 && r->bone_shell[1] == d);
	assert_true(fabs(r->values[HKS_METRIC_OBJECT_SPACE][2 * TRACKS + 2] - 2.0 * chord) < tol);
	hks_compare_result_free(r);

	/* without a skeleton: local vertex is the primary metric, no object space */
	assert_int_equal(hks_compare_frames(&a, &b, NULL, &r, &e), HKS_OK);
	assert_false(r->has_object_space);
	assert_null(r->values[HKS_METRIC_OBJECT_SPACE]);
	assert_int_equal(r->primary, HKS_METRIC_LOCAL_VERTEX);
	assert_int_equal(r->worst_track, 1);
	assert_int_equal(r->worst_frame, 1);
	hks_compare_result_free(r);
}

/* A binding that leaves the middle bone undriven: it stands at its reference
 * pose and carries the root's error to the tip. */
static void test_undriven_bone(void **state)
{
	(void)state;
	float ta[FRAMES * 2 * 10], tb[FRAMES * 2 * 10];
	for (int f = 0; f < FRAMES; f++) {
		set_sample(ta + (f * 2 + 0) * 10, 0, 0, 0, 0, 1);
		set_sample(ta + (f * 2 + 1) * 10, 0.5f, 0, 0, 0, 1);
	}
	memcpy(tb, ta, sizeof(ta));
	tb[(2 * 2 + 0) * 10 + 2] = 0.002f; /* root up 2 mm at frame 2 */
	const int16_t map[2] = {0, 2};
	hks_frames_in a = frames_of(ta, NULL, 0), b = frames_of(tb, NULL, 0);
	a.num_transform_tracks = b.num_transform_tracks = 2;
	hks_skeleton sk = chain_skeleton();
	hks_compare_options o;
	memset(&o, 0, sizeof(o));
	o.skeleton = &sk;
	o.track_to_bone = map;
	o.num_track_to_bone = 2;
	hks_compare_result *r = NULL;
	hks_error e;
	assert_int_equal(hks_compare_frames(&a, &b, &o, &r, &e), HKS_OK);
	assert_int_equal(r->bone_track[1], -1);
	assert_int_equal(r->track_bone[1], 2);
	const double *ob = r->values[HKS_METRIC_OBJECT_SPACE];
	for (int bn = 0; bn < 3; bn++)
		assert_true(fabs(ob[2 * 3 + bn] - 0.002) < 1e-9);
	hks_compare_result_free(r);
}

static void test_nan_samples(void **state)
{
	(void)state;
	float ta[FRAMES * TRACKS * 10], tb[FRAMES * TRACKS * 10];
	float fa[FRAMES] = {1, 2, 3}, fb[FRAMES] = {1, NAN, 3.5f};
	rest_frames(ta);
	rest_frames(tb);
	tb[(1 * TRACKS + 1) * 10 + 0] = NAN;
	tb[(2 * TRACKS + 2) * 10 + 1] = 0.004f;
	ta[(0 * TRACKS + 2) * 10 + 5] = INFINITY;
	hks_frames_in a = frames_of(ta, fa, 1), b = frames_of(tb, fb, 1);
	hks_skeleton sk = chain_skeleton();
	hks_compare_options o;
	memset(&o, 0, sizeof(o));
	o.skeleton = &sk;
	hks_compare_result *r = NULL;
	hks_error e;
	assert_int_equal(hks_compare_frames(&a, &b, &o, &r, &e), HKS_OK);
	/* two transform samples (NaN, inf) and one float sample */
	assert_int_equal(r->nan_samples, 3);
	assert_int_equal(r->metric[HKS_METRIC_TRANSLATION].nan_samples, 2);
	assert_int_equal(r->metric[HKS_METRIC_TRANSLATION].samples, FRAMES * TRACKS - 2);
	assert_true(fabs(r->metric[HKS_METRIC_TRANSLATION].max - 0.004) < 1e-9);
	assert_true(fabs(r->metric[HKS_METRIC_TRANSLATION].mean - 0.004 / 7) < 1e-9);
	assert_false(isnan(r->metric[HKS_METRIC_ROTATION_DEG].mean));
	/* object space: mid and tip at frame 1 (under the NaN), the tip at frame 0 */
	assert_int_equal(r->metric[HKS_METRIC_OBJECT_SPACE].nan_samples, 3);
	assert_true(isnan(r->values[HKS_METRIC_OBJECT_SPACE][1 * TRACKS + 2]));
	assert_true(fabs(r->metric[HKS_METRIC_OBJECT_SPACE].max - 0.004) < 1e-9);
	assert_int_equal(r->metric[HKS_METRIC_FLOAT].nan_samples, 1);
	assert_true(r->metric[HKS_METRIC_FLOAT].max == 0.5);
	assert_true(isfinite(r->metric[HKS_METRIC_OBJECT_SPACE].p99));
	hks_compare_result_free(r);
	/* an object with every sample NaN: statistics 0, not NaN */
	for (int i = 0; i < FRAMES * TRACKS * 10; i++)
		tb[i] = NAN;
	assert_int_equal(hks_compare_frames(&a, &b, &o, &r, &e), HKS_OK);
	assert_int_equal(r->metric[HKS_METRIC_TRANSLATION].samples, 0);
	assert_true(r->metric[HKS_METRIC_TRANSLATION].max == 0.0 && r->metric[HKS_METRIC_TRANSLATION].p99 == 0.0);
	assert_int_equal(r->worst_bone, -1);
	hks_compare_result_free(r);
}

static void test_mismatch(void **state)
{
	(void)state;
	float t[FRAMES * TRACKS * 10];
	rest_frames(t);
	hks_frames_in a = frames_of(t, NULL, 0), b = frames_of(t, NULL, 0);
	b.num_frames = 2;
	hks_compare_result *r = NULL;
	hks_error e;
	assert_int_equal(hks_compare_frames(&a, &b, NULL, &r, &e), HKS_E_MISMATCH);
	assert_null(r);
	/* a skeleton with a parent cycle is refused */
	hks_skeleton sk = chain_skeleton();
	const int16_t cyc[TRACKS] = {2, 0, 1};
	sk.parent_indices = cyc;
	hks_compare_options o;
	memset(&o, 0, sizeof(o));
	o.skeleton = &sk;
	b.num_frames = FRAMES;
	assert_int_equal(hks_compare_frames(&a, &b, &o, &r, &e), HKS_E_MALFORMED);
	assert_null(r);
	/* a parent index outside the skeleton too */
	const int16_t outside[TRACKS] = {-1, 0, 7};
	sk.parent_indices = outside;
	assert_int_equal(hks_compare_frames(&a, &b, &o, &r, &e), HKS_E_MALFORMED);
	assert_non_null(strstr(e.message, "bone 2 has parent index 7"));
	/* a limit on memory is honoured, not exceeded */
	sk.parent_indices = chain_parents;
	o.base.limits.max_memory = 1024;
	assert_int_equal(hks_compare_frames(&a, &b, &o, &r, &e), HKS_E_LIMIT);
	assert_null(r);
}

static void test_percentile_and_glob(void **state)
{
	(void)state;
	double v[130];
	size_t n = 0;
	for (int i = 0; i < 100; i++) {
		v[n++] = (double)((i * 37) % 100 + 1); /* 1..100 shuffled */
		if (i % 4 == 0)
			v[n++] = NAN;
	}
	assert_true(hks_percentile(v, n, 99) == 99.0);
	assert_true(hks_percentile(v, n, 50) == 50.0);
	assert_true(hks_percentile(v, n, 100) == 100.0);
	assert_true(hks_percentile(v, n, 0) == 1.0);
	double one[1] = {0.25};
	assert_true(hks_percentile(one, 1, 99) == 0.25);
	double none[2] = {NAN, INFINITY};
	assert_true(hks_percentile(none, 2, 99) == 0.0);
	assert_true(hks_glob_match("R_Weapon*", "R_Weapon_Tip"));
	assert_true(hks_glob_match("*Weapon*", "L_Weapon"));
	assert_true(hks_glob_match("?_Hand", "L_Hand"));
	assert_false(hks_glob_match("R_Weapon*", "L_Weapon"));
	assert_false(hks_glob_match("Hand", "Hand2"));
	assert_true(hks_glob_match("*", ""));
	assert_true(hks_glob_match("a*b*c", "axxbyyc"));
	assert_false(hks_glob_match("a*b*c", "axxbyy"));

	/* threshold share on known data: translation errors 0, 1, 2 ... mm */
	float ta[FRAMES * TRACKS * 10], tb[FRAMES * TRACKS * 10];
	rest_frames(ta);
	rest_frames(tb);
	for (int i = 0; i < FRAMES * TRACKS; i++)
		tb[i * 10 + 2] = 0.001f * (float)i;
	hks_frames_in a = frames_of(ta, NULL, 0), b = frames_of(tb, NULL, 0);
	hks_compare_options o;
	memset(&o, 0, sizeof(o));
	o.threshold = 0.0035;
	hks_compare_result *r = NULL;
	hks_error e;
	assert_int_equal(hks_compare_frames(&a, &b, &o, &r, &e), HKS_OK);
	/* 0, 1, 2, 3 mm of 9 samples are within 3.5 mm */
	assert_int_equal(r->metric[HKS_METRIC_TRANSLATION].under_threshold, 4);
	assert_true(fabs(r->under_threshold - 4.0 / 9.0) < 1e-15);
	assert_true(fabs(r->metric[HKS_METRIC_TRANSLATION].p99 - 0.008) < 1e-9);
	assert_true(fabs(r->metric[HKS_METRIC_TRANSLATION].mean - 0.004) < 1e-9);
	assert_int_equal(r->metric[HKS_METRIC_TRANSLATION].worst_frame, 2);
	assert_int_equal(r->metric[HKS_METRIC_TRANSLATION].worst_index, 2);
	hks_compare_result_free(r);
}

/* ---- stats: FORMAT.md §2 layout of a hand-built block ---- */

static const uint8_t ex_knots[4] = {0, 0, 50, 50};
static const uint8_t ex_quat[6] = {1, 2, 3, 4, 5, 6};
static const uint16_t ex_points[2] = {0, 65535};

typedef struct example {
	hks_stored_animation s;
	hks_stored_block block;
	hks_stored_track track;
	hks_stored_part flt;
	uint8_t float_mask;
} example;

/*
 * One transform track + one float track, 51 frames:
 *   masks 5 + mask fill 3; translation x static (4); rotation static ThreeComp48
 *   at 12 (6 bytes) + 2 fill; scale y spline n = 1, p = 1: header 3 + knots 4 at 20,
 *   1 fill, bounds 8, control points 2 × 16-bit = 4; float static (4); block fill 4 → 48.
 */
static void build_example(example *x)
{
	memset(x, 0, sizeof(*x));
	hks_stored_track *t = &x->track;
	t->mask[0] = 0x49;
	t->mask[1] = 0x01;
	t->mask[2] = 0x0F;
	t->mask[3] = 0x20;
	t->part[0].flags = 0x01;
	t->part[0].quantization = 1;
	t->part[0].static_value[0] = 1.0f;
	t->part[1].flags = 0x0F;
	t->part[1].quantization = HKS_ROT_THREECOMP48;
	t->part[1].num_control_points = 1;
	t->part[1].packed = ex_quat;
	t->part[2].flags = 0x20;
	t->part[2].quantization = 1;
	t->part[2].is_spline = 1;
	t->part[2].degree = 1;
	t->part[2].num_control_points = 2;
	t->part[2].num_knots = 4;
	t->part[2].knots = ex_knots;
	t->part[2].min[1] = 0.5f;
	t->part[2].max[1] = 2.0f;
	t->part[2].spline_lanes = 1;
	t->part[2].control_points = ex_points;
	x->float_mask = 0x03;
	x->flt.flags = 0x01;
	x->flt.quantization = 1;
	x->flt.static_value[0] = 0.25f;
	x->block.tracks = &x->track;
	x->block.floats = &x->flt;
	x->block.float_masks = &x->float_mask;
	x->block.num_frames = 51;
	x->s.num_transform_tracks = 1;
	x->s.num_float_tracks = 1;
	x->s.num_frames = 51;
	x->s.max_frames_per_block = 256;
	x->s.mask_and_quantization_size = 8;
	x->s.duration = 1.6666666f;
	x->s.num_blocks = 1;
	x->s.blocks = &x->block;
}

static void check_example_stats(const hks_spline_stats *st)
{
	assert_int_equal(st->masks, 5);
	assert_int_equal(st->knots, 7);
	assert_int_equal(st->bounds, 8);
	assert_int_equal(st->static_values, 8);
	assert_int_equal(st->control_points, 4);
	assert_int_equal(st->packed_quaternions, 6);
	assert_int_equal(st->padding, 3 + 2 + 1 + 4);
	assert_int_equal(st->guard, 0);
	assert_int_equal(st->compressed_size, 48);
	assert_int_equal(st->unaccounted, 0);
	assert_int_equal(st->raw_size, 51 * (40 + 4));
	assert_true(fabs(st->ratio - 51.0 * 44 / 48) < 1e-12);
	assert_int_equal(st->static_lanes[HKS_STAT_T], 1);
	assert_int_equal(st->absent_lanes[HKS_STAT_T], 2);
	assert_int_equal(st->static_parts[HKS_STAT_R], 1);
	assert_int_equal(st->selectors[HKS_ROT_THREECOMP48], 1);
	assert_int_equal(st->spline_parts[HKS_STAT_S], 1);
	assert_int_equal(st->spline_lanes[HKS_STAT_S], 1);
	assert_int_equal(st->absent_lanes[HKS_STAT_S], 2);
	assert_int_equal(st->degrees[HKS_STAT_S][1], 1);
	assert_int_equal(st->quantization_16bit[HKS_STAT_S], 1);
	assert_int_equal(st->static_parts[HKS_STAT_F], 1);
}

static void test_stats_categories(void **state)
{
	(void)state;
	example x;
	build_example(&x);
	hks_spline_stats st;
	hks_spline_stats_compute(&x.s, &st); /* data_size 0: the laid-out size */
	check_example_stats(&st);

	/* pack the structure, walk the bytes back: the walked structure has data_size */
	hks_packed_spline *p = NULL;
	hks_error e;
	assert_int_equal(hks_stored_pack(&x.s, NULL, &p, &e), HKS_OK);
	assert_int_equal(p->header.data_size, 48);
	hks_animation an;
	memset(&an, 0, sizeof(an));
	an.kind = HKS_ANIMATION_SPLINE;
	an.duration = p->duration;
	an.number_of_transform_tracks = 1;
	an.number_of_float_tracks = 1;
	an.spline = p->header;
	hks_stored_animation *w = NULL;
	assert_int_equal(hks_stored_read(&an, NULL, &w, &e), HKS_OK);
	hks_spline_stats_compute(w, &st);
	check_example_stats(&st);
	/* a data size the layout does not explain shows up as unaccounted */
	w->data_size += 16;
	hks_spline_stats_compute(w, &st);
	assert_int_equal(st.unaccounted, 16);
	/* sums */
	hks_spline_stats sum;
	memset(&sum, 0, sizeof(sum));
	w->data_size -= 16;
	hks_spline_stats_compute(w, &st);
	hks_spline_stats_add(&sum, &st);
	hks_spline_stats_add(&sum, &st);
	assert_int_equal(sum.compressed_size, 96);
	assert_true(fabs(sum.ratio - st.ratio) < 1e-12);
	hks_stored_free(w);
	hks_packed_spline_free(p);
}

static void test_summary_line(void **state)
{
	(void)state;
	float ta[FRAMES * TRACKS * 10], tb[FRAMES * TRACKS * 10];
	rest_frames(ta);
	rest_frames(tb);
	tb[(1 * TRACKS + 1) * 10 + 1] = 0.001f; /* mid bone 1 mm at frame 1 */
	hks_frames_in a = frames_of(ta, NULL, 0), b = frames_of(tb, NULL, 0);
	hks_skeleton sk = chain_skeleton();
	hks_compare_options o;
	memset(&o, 0, sizeof(o));
	o.skeleton = &sk;
	hks_compare_result *r = NULL;
	hks_error e;
	assert_int_equal(hks_compare_frames(&a, &b, &o, &r, &e), HKS_OK);
	hks_spline_stats st;
	memset(&st, 0, sizeof(st));
	st.raw_size = 1200;
	st.compressed_size = 100;
	st.ratio = 12.0;
	char buf[256];
	size_t n = hks_compare_summary_line(r, &st, &sk, buf, sizeof(buf));
	assert_int_equal(n, strlen(buf));
	/* the first maximum in frame-major order: mid and tip both move 1 mm, mid comes first */
	assert_string_equal(buf, "ratio 12.00 (1200 -> 100 B); max translation 1 mm, rotation 0 deg, scale 0; "
	                         "object space 1 mm at bone Mid #1 (track 1) frame 1");
	char small[10];
	assert_int_equal(hks_compare_summary_line(r, &st, &sk, small, sizeof(small)), n);
	assert_int_equal(strlen(small), 9);
	hks_compare_result_free(r);
}

/* ---- the CLI: decoded-frames JSON in, the --json contract out ---- */

/* Two tracks, three frames; B moves track 1 by 1 mm in y at frame 2 and has a NaN at frame 0. */
static int write_frames_json(const char *path, int perturbed)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs("{\"source\": {\"path\": \"synthetic\", \"skeleton\": null, \"mode\": \"frame\", \"hex\": false},\n"
	      " \"animations\": [{\"index\": 0, \"frames\": 3, \"duration\": 0.0666666667, \"frame_duration\": 0.0333333333,\n"
	      "  \"tracks\": [\n",
	      f);
	for (int t = 0; t < 2; t++) {
		fprintf(f, "   {\"bone\": \"%s\", \"translation\": [", t ? "Hand" : "Root");
		for (int fr = 0; fr < 3; fr++)
			fprintf(f, "%s[%s, %s, 0]", fr ? ", " : "", t ? "0.5" : "0",
			        perturbed && t == 1 && fr == 2 ? "0.001" : "0");
		fputs("], \"rotation\": [", f);
		for (int fr = 0; fr < 3; fr++)
			fprintf(f, "%s[0, 0, %s, 1]", fr ? ", " : "", perturbed && t == 0 && fr == 0 ? "\"nan\"" : "0");
		fputs("], \"scale\": [[1, 1, 1], [1, 1, 1], [1, 1, 1]]}", f);
		fputs(t ? "\n" : ",\n", f);
	}
	fputs("  ], \"float_tracks\": [[0.5, 0.5, 0.5]]}]}\n", f);
	return fclose(f);
}

static void test_cli_error_json(void **state)
{
	(void)state;
	const char *cli = getenv("HKSPLINE_CLI");
	if (!cli) {
		printf("HKSPLINE_CLI is not set (run through ctest): CLI part skipped\n");
		return;
	}
	char a[64], b[64];
	snprintf(a, sizeof(a), "/tmp/hks_metrics_a_%d.json", (int)getpid());
	snprintf(b, sizeof(b), "/tmp/hks_metrics_b_%d.json", (int)getpid());
	assert_int_equal(write_frames_json(a, 0), 0);
	assert_int_equal(write_frames_json(b, 1), 0);
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "\"%s\" error %s %s --json 2>&1", cli, a, b);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	static char out[65536];
	size_t n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	int status = pclose(p);
	remove(a);
	remove(b);
	if (status != 0)
		printf("%s\n", out);
	assert_int_equal(status, 0);
	/* the keys of the contract, with the values this input gives */
	assert_non_null(strstr(out, "\"max_translation\": 0.00100000004749745"));
	assert_non_null(strstr(out, "\"max_rotation_deg\": 0,"));
	assert_non_null(strstr(out, "\"max_rotation_component\": 0,"));
	assert_non_null(strstr(out, "\"max_scale\": 0,"));
	assert_non_null(strstr(out, "\"max_float\": 0,"));
	assert_non_null(strstr(out, "\"max_object_space\": null"));
	assert_non_null(strstr(out, "\"p99_object_space\": null"));
	assert_non_null(strstr(out, "\"under_threshold\": 0.8"));   /* 4 of 5 finite samples */
	assert_non_null(strstr(out, "\"worst_track\": 1,"));
	assert_non_null(strstr(out, "\"worst_bone\": \"Hand\""));
	assert_non_null(strstr(out, "\"worst_frame\": 2,"));
	assert_non_null(strstr(out, "\"nan_samples\": 1,"));
	assert_non_null(strstr(out, "\"frames\": 3,"));
	assert_non_null(strstr(out, "\"tracks\": 2,"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self_is_zero),
		cmocka_unit_test(test_chain_perturbations),
		cmocka_unit_test(test_undriven_bone),
		cmocka_unit_test(test_nan_samples),
		cmocka_unit_test(test_mismatch),
		cmocka_unit_test(test_percentile_and_glob),
		cmocka_unit_test(test_stats_categories),
		cmocka_unit_test(test_cli_error_json),
		cmocka_unit_test(test_summary_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
