/*
 * The encoder (ENCODER.md §2-§10) on synthetic frames built here:
 *  - lane classification: static, absent and spline parts end up in the
 *    masks as §5.4 says (static bits beside spline bits on rotations, floats
 *    never absent, w lanes never set);
 *  - encode -> pack -> walk -> sample reproduces the frames within the
 *    tolerance plus one quantization step per component (the tolerance
 *    guard, docs/ENCODE.md "Tolerance guarantee": no 1.1 factor of §7.6);
 *  - several blocks (shared boundary frames), short blocks, degree 1,
 *    8-bit scalars, ThreeComp48 / uncompressed rotations, the quality solver;
 *  - NaN and infinite frames encode without crashing and walk;
 *  - argument errors (frame count, duration, degree, palettes, block size);
 *  - the same input gives the same bytes twice, and the CPU model matters;
 *  - the CLI: `hkspline decode` of the make_sample file, `hkspline encode
 *    --like` of that JSON, and the written file samples within the bound of
 *    the original's frames; without --like the JSON's source file is the donor.
 */
#define _POSIX_C_SOURCE 200809L
#include "hks_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define PI_F 3.14159265f

typedef struct frames {
	hks_frames_in in;
	float *tr;
	float *fl;
} frames;

static void frames_alloc(frames *f, uint32_t n, uint32_t T, uint32_t F, float duration)
{
	memset(f, 0, sizeof(*f));
	f->tr = calloc((size_t)n * T * 10 + 1, sizeof(float));
	f->fl = calloc((size_t)n * F + 1, sizeof(float));
	assert_non_null(f->tr);
	assert_non_null(f->fl);
	f->in.num_frames = n;
	f->in.num_transform_tracks = T;
	f->in.num_float_tracks = F;
	f->in.duration = duration;
	f->in.transforms = T ? f->tr : NULL;
	f->in.floats = F ? f->fl : NULL;
}

static void frames_free(frames *f)
{
	free(f->tr);
	free(f->fl);
}

static float *sample_at(frames *f, uint32_t frame, uint32_t track)
{
	return f->tr + ((size_t)frame * f->in.num_transform_tracks + track) * 10;
}

/* Unit quaternion for a rotation of `angle` about the (normalized) axis. */
static void axis_angle(float ax, float ay, float az, float angle, float *q)
{
	float l = sqrtf(ax * ax + ay * ay + az * az);
	float s = sinf(angle * 0.5f) / l;
	q[0] = ax * s;
	q[1] = ay * s;
	q[2] = az * s;
	q[3] = cosf(angle * 0.5f);
}

/*
 * Rotations turn slowly (at most ~0.4 rad/s): §9.3 normalizes every fitted
 * control point before packing, which moves the curve by about |P| − 1;
 * smooth fast rotations fitted with few knots have control points off the
 * unit sphere (|P| up to 1.0085 at 1.6 rad/s over 2 s gave 0.0066 per
 * component), beyond tolerance + quantization. docs/ENCODE.md discusses it.
 *
 * Track 0: translation (0.25, 0, -1.5) static, rotation identity (absent),
 *          scale 1 (absent).
 * Track 1: translation x sine, y ramp, z static 2; rotation about a moving
 *          axis (spline); scale (1, 1.5, 1): y static, x/z absent.
 * Track 2: everything moves, scale too.
 * Float 0: a sine; float 1: constant 0 (static, never absent).
 */
static void build_signal(frames *f, uint32_t n, float duration)
{
	frames_alloc(f, n, 3, 2, duration);
	for (uint32_t k = 0; k < n; k++) {
		float t = duration * (float)k / (float)(n - 1);
		float *s = sample_at(f, k, 0);
		s[0] = 0.25f, s[1] = 0.0f, s[2] = -1.5f;
		s[3] = 0.0f, s[4] = 0.0f, s[5] = 0.0f, s[6] = 1.0f;
		s[7] = s[8] = s[9] = 1.0f;
		s = sample_at(f, k, 1);
		s[0] = 0.5f * sinf(2.0f * PI_F * 0.7f * t);
		s[1] = 0.1f * t;
		s[2] = 2.0f;
		axis_angle(1.0f, 0.3f * t, 0.2f, 0.3f * sinf(1.3f * t), s + 3);
		s[7] = 1.0f, s[8] = 1.5f, s[9] = 1.0f;
		s = sample_at(f, k, 2);
		s[0] = cosf(3.0f * t), s[1] = 0.3f * sinf(5.0f * t), s[2] = t * t * 0.05f;
		axis_angle(0.2f, 1.0f, 0.1f * t, 0.25f * t, s + 3);
		s[7] = 1.0f + 0.2f * sinf(2.0f * t), s[8] = 1.0f, s[9] = 0.9f + 0.05f * t;
		f->fl[(size_t)k * 2 + 0] = 0.75f * sinf(4.0f * t);
		f->fl[(size_t)k * 2 + 1] = 0.0f;
	}
}

/* Largest quantization step of each (track, part, lane) over the blocks:
 * 16-bit (hi − lo)/65535 or 8-bit /255 for spline lanes; ThreeComp40 1/2894.8953
 * (one truncation step of a stored component, §9.5), ThreeComp48 1/23169.061,
 * uncompressed 0. */
static double lane_step(const hks_stored_animation *s, uint32_t t, int part, int lane)
{
	double step = 0;
	for (uint32_t b = 0; b < s->num_blocks; b++) {
		const hks_stored_part *p = part < 3 ? &s->blocks[b].tracks[t].part[part] : &s->blocks[b].floats[t];
		double st = 0;
		if (part == 1) {
			static const double q[6] = {0.0, 1.0 / 2894.8953, 1.0 / 23169.061, 1.0 / 89.095451, 1.0 / 23169.0, 0.0};
			if (p->is_spline || (p->flags & 0x0F))
				st = q[p->quantization % 6];
		} else if (p->flags & (0x10 << lane)) {
			st = ((double)p->max[lane] - (double)p->min[lane]) / (p->quantization ? 65535.0 : 255.0);
		}
		if (st > step)
			step = st;
	}
	return step;
}

/* The guard's check evaluates the curve in seconds (the fit's parameters),
 * the decoder in frame numbers from the knot bytes: f32 rounding differs.
 * 1 % of the default tolerance covers it. */
#define F32_SLACK 1e-5

typedef struct roundtrip_result {
	double worst_ratio;   /* max over components of error / bound */
	double max_error[4];  /* per part */
	char worst[160];
	uint64_t components;
} roundtrip_result;

/*
 * Encode, pack, walk, sample every frame; compare with the input per
 * component against tol + step (the guard checks every fitted part against
 * tol per component before quantization; truncation moves each control point
 * by less than one step and the B-spline basis is a partition of unity). Rotations: the reconstructed largest
 * component of ThreeComp40 takes up to 3 steps (§9.5: |dw| <= Σ|q_i||dq_i|/|w|
 * with |w| >= 1/2), plus the move of the §9.3 normalization of the control
 * points (hks_encode_stats.rotation_renormalization).
 */
static roundtrip_result roundtrip(frames *f, const hks_encode_options *opts, float tol)
{
	hks_error err;
	hks_packed_spline *p = NULL;
	hks_encode_stats st;
	hks_encode_options o = *opts;
	o.stats = &st;
	hks_result r = hks_encode_spline(&f->in, &o, &p, &err);
	if (r != HKS_OK) {
		char buf[1024];
		hks_error_format(&err, buf, sizeof(buf));
		fail_msg("encode: %s", buf);
	}
	hks_animation a = hks_test_animation_of(p);
	hks_walk_options wo;
	memset(&wo, 0, sizeof(wo));
	wo.strict = 1; /* the encoder must produce conformant data (FORMAT.md §6) */
	hks_stored_animation *s = NULL;
	r = hks_stored_read(&a, &wo, &s, &err);
	if (r != HKS_OK) {
		char buf[1024];
		hks_error_format(&err, buf, sizeof(buf));
		fail_msg("walk: %s", buf);
	}
	uint32_t n = f->in.num_frames, T = f->in.num_transform_tracks, F = f->in.num_float_tracks;
	float *out = calloc((size_t)n * T * 10 + 1, sizeof(float));
	float *outf = calloc((size_t)n * F + 1, sizeof(float));
	assert_non_null(out);
	assert_non_null(outf);
	assert_int_equal(hks_sample_frames(s, NULL, 0, n, out, outf, &err), HKS_OK);
	roundtrip_result res;
	memset(&res, 0, sizeof(res));
	for (uint32_t t = 0; t < T; t++)
		for (int k = 0; k < 10; k++) {
			int part = k < 3 ? 0 : k < 7 ? 1 : 2;
			int lane = part == 0 ? k : part == 1 ? k - 3 : k - 7;
			double bound = (double)tol + (part == 1 ? 3.0 : 1.0) * lane_step(s, t, part, lane) + F32_SLACK;
			if (part == 1)
				bound += st.rotation_renormalization;
			for (uint32_t fr = 0; fr < n; fr++) {
				double d = fabs((double)out[((size_t)fr * T + t) * 10 + k] - (double)f->tr[((size_t)fr * T + t) * 10 + k]);
				if (d > res.max_error[part])
					res.max_error[part] = d;
				if (d / bound > res.worst_ratio) {
					res.worst_ratio = d / bound;
					snprintf(res.worst, sizeof(res.worst), "track %u component %d frame %u: error %.3g, bound %.3g", t, k,
					         fr, d, bound);
				}
				res.components++;
			}
		}
	for (uint32_t i = 0; i < F; i++) {
		double bound = (double)tol + lane_step(s, i, 3, 0) + F32_SLACK;
		for (uint32_t fr = 0; fr < n; fr++) {
			double d = fabs((double)outf[(size_t)fr * F + i] - (double)f->fl[(size_t)fr * F + i]);
			if (d > res.max_error[3])
				res.max_error[3] = d;
			if (d / bound > res.worst_ratio)
				res.worst_ratio = d / bound;
			res.components++;
		}
	}
	free(out);
	free(outf);
	hks_stored_free(s);
	hks_packed_spline_free(p);
	return res;
}

static void test_classification(void **state)
{
	(void)state;
	frames f;
	build_signal(&f, 61, 2.0f);
	hks_stored_animation *s = NULL;
	hks_error err;
	hks_encode_stats st;
	hks_encode_options o;
	memset(&o, 0, sizeof(o));
	o.stats = &st;
	assert_int_equal(hks_encode_stored(&f.in, &o, &s, &err), HKS_OK);
	assert_int_equal(s->num_blocks, 1);
	assert_int_equal(s->max_frames_per_block, 256);
	const hks_stored_track *t0 = &s->blocks[0].tracks[0], *t1 = &s->blocks[0].tracks[1], *t2 = &s->blocks[0].tracks[2];
	/* byte 0: 16-bit translation, ThreeComp40, 16-bit scale */
	assert_int_equal(t0->mask[0], 0x45);
	/* track 0: translation x, z static (y = 0 = identity: absent), rotation, scale absent */
	assert_int_equal(t0->mask[1], 0x05);
	assert_true(t0->part[0].static_value[0] == 0.25f || fabsf(t0->part[0].static_value[0] - 0.25f) < 1e-6f);
	assert_int_equal(t0->mask[2], 0x00);
	assert_int_equal(t0->mask[3], 0x00);
	/* track 1: translation x, y spline, z static */
	assert_int_equal(t1->mask[1], 0x34);
	assert_true(fabsf(t1->part[0].static_value[2] - 2.0f) < 1e-6f);
	assert_true(t1->part[0].is_spline);
	assert_int_equal(t1->part[0].spline_lanes, 2);
	/* rotation: spline lanes plus any flat lanes as static bits, w lane moves */
	assert_true(t1->mask[2] & 0xF0);
	assert_int_equal(t1->part[1].quantization, HKS_ROT_THREECOMP40);
	/* scale y static (1.5), x and z absent */
	assert_int_equal(t1->mask[3], 0x02);
	assert_int_equal(t2->mask[3] & 0x50, 0x50);
	/* w lanes of translation and scale are never set (§5.4) */
	for (int k = 0; k < 3; k++)
		assert_int_equal(s->blocks[0].tracks[k].mask[1] & 0x88, 0);
	/* floats: 0x12 for a 16-bit spline, 0x03 for a static one (never absent) */
	assert_int_equal(s->blocks[0].float_masks[0], 0x12);
	assert_int_equal(s->blocks[0].float_masks[1], 0x03);
	assert_int_equal(st.parts[0], 3);
	assert_int_equal(st.parts[3], 2);
	assert_int_equal(st.absent_parts[1], 1);
	assert_int_equal(st.absent_parts[3], 0);
	assert_true(st.spline_parts[1] == 2);
	/* knots: clamped frame numbers 0 .. 60 (§8) */
	const hks_stored_part *rp = &t1->part[1];
	assert_int_equal(rp->num_knots, rp->num_control_points + rp->degree + 1);
	for (int i = 0; i <= rp->degree; i++) {
		assert_int_equal(rp->knots[i], 0);
		assert_int_equal(rp->knots[rp->num_knots - 1 - i], 60);
	}
	for (int i = 1; i < rp->num_knots; i++)
		assert_true(rp->knots[i] >= rp->knots[i - 1]);
	/* bounds over control points: the lowest quantized value is 0 in every spline lane */
	const hks_stored_part *tp = &t1->part[0];
	for (unsigned lane = 0; lane < tp->spline_lanes; lane++) {
		uint16_t lo = 0xFFFF, hi = 0;
		for (unsigned j = 0; j < tp->num_control_points; j++) {
			uint16_t v = tp->control_points[j * tp->spline_lanes + lane];
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
		assert_int_equal(lo, 0);
		assert_true(hi >= 65534);
	}
	hks_stored_free(s);
	frames_free(&f);
}

static void test_roundtrip_defaults(void **state)
{
	(void)state;
	frames f;
	build_signal(&f, 61, 2.0f);
	hks_encode_options o;
	memset(&o, 0, sizeof(o));
	roundtrip_result r = roundtrip(&f, &o, 0.001f);
	printf("defaults: max error T %.3g R %.3g S %.3g F %.3g, worst error/bound %.3f\n", r.max_error[0],
	       r.max_error[1], r.max_error[2], r.max_error[3], r.worst_ratio);
	assert_true(r.worst_ratio <= 1.0);
	frames_free(&f);
}

static void test_roundtrip_blocks(void **state)
{
	(void)state;
	/* 600 frames: 3 blocks of 256, 256, 90 frames (shared boundaries) */
	frames f;
	build_signal(&f, 600, 20.0f);
	hks_encode_options o;
	memset(&o, 0, sizeof(o));
	o.sdk = "20180100"; /* Zen model, guard rule */
	roundtrip_result r = roundtrip(&f, &o, 0.001f);
	printf("600 frames: worst error/bound %.3f (%s)\n", r.worst_ratio, r.worst);
	assert_true(r.worst_ratio <= 1.0);
	/* short blocks: 2..n frames per block, including a 2-frame last block */
	o.max_frames_per_block = 20;
	r = roundtrip(&f, &o, 0.001f);
	printf("mfpb 20: worst error/bound %.3f\n", r.worst_ratio);
	assert_true(r.worst_ratio <= 1.0);
	frames_free(&f);
	build_signal(&f, 257, 8.0f); /* the last block has 2 frames */
	o.max_frames_per_block = 0;
	r = roundtrip(&f, &o, 0.001f);
	assert_true(r.worst_ratio <= 1.0);
	frames_free(&f);
}

static void test_roundtrip_options(void **state)
{
	(void)state;
	frames f;
	build_signal(&f, 90, 3.0f);
	hks_encode_options o;
	memset(&o, 0, sizeof(o));
	/* degree 1 everywhere, looser tolerance */
	o.defaults.rotation_degree = o.defaults.translation_degree = o.defaults.scale_degree = o.defaults.float_degree = 1;
	o.defaults.rotation_tolerance = o.defaults.translation_tolerance = 0.01f;
	o.defaults.scale_tolerance = o.defaults.float_tolerance = 0.01f;
	hks_stored_animation *s = NULL;
	hks_error err;
	assert_int_equal(hks_encode_stored(&f.in, &o, &s, &err), HKS_OK);
	assert_int_equal(s->blocks[0].tracks[1].part[1].degree, 1);
	hks_stored_free(s);
	roundtrip_result r = roundtrip(&f, &o, 0.01f);
	assert_true(r.worst_ratio <= 1.0);

	/* per-track palette: ThreeComp48 on track 1, uncompressed on track 2, 8-bit scalars */
	hks_track_params pal[3];
	memset(pal, 0, sizeof(pal));
	pal[1].rotation_quantization = HKS_ENC_ROT_QUANT(HKS_ROT_THREECOMP48);
	pal[2].rotation_quantization = HKS_ENC_ROT_QUANT(HKS_ROT_UNCOMPRESSED);
	pal[2].translation_quantization = HKS_ENC_SCALAR_8BIT;
	pal[2].scale_quantization = HKS_ENC_SCALAR_8BIT;
	memset(&o, 0, sizeof(o));
	o.per_track = pal;
	o.num_per_track = 3;
	assert_int_equal(hks_encode_stored(&f.in, &o, &s, &err), HKS_OK);
	assert_int_equal(s->blocks[0].tracks[1].mask[0], 0x49);
	assert_int_equal(s->blocks[0].tracks[2].mask[0], 0x14);
	hks_stored_free(s);
	r = roundtrip(&f, &o, 0.001f);
	printf("palette: max error T %.3g R %.3g S %.3g, worst error/bound %.3f\n", r.max_error[0], r.max_error[1],
	       r.max_error[2], r.worst_ratio);
	assert_true(r.worst_ratio <= 1.0);

	/* the quality solver and the exact CPU model */
	memset(&o, 0, sizeof(o));
	o.solver = HKS_SOLVER_QUALITY;
	o.cpu = HKS_CPU_EXACT;
	r = roundtrip(&f, &o, 0.001f);
	printf("quality: worst error/bound %.3f\n", r.worst_ratio);
	assert_true(r.worst_ratio <= 1.0);
	frames_free(&f);
}

static void test_deterministic_and_models(void **state)
{
	(void)state;
	frames f;
	build_signal(&f, 120, 4.0f);
	hks_encode_options o;
	memset(&o, 0, sizeof(o));
	hks_packed_spline *a = NULL, *b = NULL, *c = NULL;
	hks_error err;
	assert_int_equal(hks_encode_spline(&f.in, &o, &a, &err), HKS_OK);
	assert_int_equal(hks_encode_spline(&f.in, &o, &b, &err), HKS_OK);
	assert_int_equal(a->header.data_size, b->header.data_size);
	assert_memory_equal(a->header.data, b->header.data, a->header.data_size);
	/* Zen vs Intel: the reciprocal estimates differ (§11.1), so some 16-bit
	 * value or the rotation bytes differ somewhere in this clip */
	o.cpu = HKS_CPU_AMD_ZEN;
	assert_int_equal(hks_encode_spline(&f.in, &o, &c, &err), HKS_OK);
	assert_true(c->header.data_size != a->header.data_size ||
	            memcmp(c->header.data, a->header.data, a->header.data_size) != 0);
	/* header relations of §5.1 */
	assert_int_equal(a->header.num_frames, 120);
	assert_int_equal(a->header.max_frames_per_block, 256);
	assert_int_equal(a->header.mask_and_quantization_size, (2 + 4 * 3 + 3) & ~3);
	assert_true(a->header.frame_duration == 4.0f / 119.0f);
	assert_true(a->header.block_duration == (4.0f / 119.0f) * 255.0f);
	hks_packed_spline_free(a);
	hks_packed_spline_free(b);
	hks_packed_spline_free(c);
	frames_free(&f);
}

static void test_nonfinite_frames(void **state)
{
	(void)state;
	const float bad[3] = {NAN, INFINITY, -INFINITY};
	for (int v = 0; v < 3; v++)
		for (int where = 0; where < 4; where++) {
			frames f;
			build_signal(&f, 40, 1.3f);
			for (uint32_t k = 7; k < 9; k++) {
				float *s = sample_at(&f, k, 1);
				if (where == 0)
					s[1] = bad[v];
				else if (where == 1)
					s[4] = bad[v];
				else if (where == 2)
					s[9] = bad[v];
				else
					f.fl[(size_t)k * 2] = bad[v];
			}
			/* a zero-length rotation everywhere on track 2 (normU gives NaN, §9.6) */
			for (uint32_t k = 0; k < 40; k++)
				memset(sample_at(&f, k, 2) + 3, 0, 4 * sizeof(float));
			hks_encode_options o;
			memset(&o, 0, sizeof(o));
			hks_packed_spline *p = NULL;
			hks_error err;
			hks_result r = hks_encode_spline(&f.in, &o, &p, &err);
			assert_int_equal(r, HKS_OK);
			/* the bytes walk (not strict: NaN bounds are a conformance matter) */
			hks_animation a = hks_test_animation_of(p);
			hks_stored_animation *s = NULL;
			assert_int_equal(hks_stored_read(&a, NULL, &s, &err), HKS_OK);
			if (where == 1 && v == 0)
				assert_true(s->blocks[0].tracks[1].mask[2] & 0xF0);
			hks_stored_free(s);
			hks_packed_spline_free(p);
			frames_free(&f);
		}
}

static void test_zero_rotation_static(void **state)
{
	(void)state;
	/* A constant zero quaternion: the mean normalizes (guarded) to 0, which is
	 * more than the tolerance away from the identity in w: a static rotation;
	 * written through normU it packs as NaN: 00 80 00 00 80 (§9.6). */
	frames f;
	frames_alloc(&f, 10, 1, 0, 0.3f);
	hks_stored_animation *s = NULL;
	hks_error err;
	assert_int_equal(hks_encode_stored(&f.in, NULL, &s, &err), HKS_OK);
	const hks_stored_part *rp = &s->blocks[0].tracks[0].part[1];
	assert_int_equal(s->blocks[0].tracks[0].mask[2], 0x08);
	static const uint8_t nan40[5] = {0x00, 0x80, 0x00, 0x00, 0x80};
	assert_memory_equal(rp->packed, nan40, 5);
	hks_stored_free(s);
	frames_free(&f);
}

static void test_continuity(void **state)
{
	(void)state;
	/* Every other frame negated: without the pre-pass every lane is a
	 * spline; with it the rotation is static. */
	frames f;
	frames_alloc(&f, 300, 1, 0, 10.0f);
	for (uint32_t k = 0; k < 300; k++) {
		float *s = sample_at(&f, k, 0);
		float sg = (k & 1) ? -1.0f : 1.0f;
		s[3] = 0.6f * sg, s[4] = 0.0f, s[5] = 0.0f, s[6] = 0.8f * sg;
		s[7] = s[8] = s[9] = 1.0f;
	}
	hks_encode_options o;
	memset(&o, 0, sizeof(o));
	hks_stored_animation *s = NULL;
	hks_error err;
	assert_int_equal(hks_encode_stored(&f.in, &o, &s, &err), HKS_OK);
	/* x and w alternate in sign (spline); y, z are 0 (absent) */
	assert_int_equal(s->blocks[0].tracks[0].mask[2], 0x90);
	hks_stored_free(s);
	o.rotation_continuity = 1;
	assert_int_equal(hks_encode_stored(&f.in, &o, &s, &err), HKS_OK);
	assert_int_equal(s->num_blocks, 2);
	for (uint32_t b = 0; b < 2; b++) {
		assert_int_equal(s->blocks[b].tracks[0].mask[2], 0x09);
		assert_false(s->blocks[b].tracks[0].part[1].is_spline);
	}
	hks_stored_free(s);
	frames_free(&f);
}

static void test_argument_errors(void **state)
{
	(void)state;
	frames f;
	build_signal(&f, 30, 1.0f);
	hks_stored_animation *s = NULL;
	hks_error err;
	hks_encode_options o;
	memset(&o, 0, sizeof(o));
	f.in.num_frames = 1;
	assert_int_equal(hks_encode_stored(&f.in, &o, &s, &err), HKS_E_ARGUMENT);
	assert_null(s);
	f.in.num_frames = 30;
	f.in.duration = 0.0f;
	assert_int_equal(hks_encode_stored(&f.in, &o, &s, &err), HKS_E_ARGUMENT);
	f.in.duration = NAN;
	assert_int_equal(hks_encode_stored(&f.in, &o, &s, &err), HKS_E_ARGUMENT);
	f.in.duration = 1.0f;
	o.defaults.rotation_degree = 4;
	assert_int_equal(hks_encode_stored(&f.in, &o, &s, &err), HKS_E_ARGUMENT);
	assert_string_equal(err.member, "rotation_degree");
	o.defaults.rotation_degree = 0;
	o.defaults.translation_tolerance = -1.0f;
	assert_int_equal(hks_encode_stored(&f.in, &o, &s, &err), HKS_E_ARGUMENT);
	o.defaults.translation_tolerance = 0.0f;
	o.defaults.rotation_quantization = 7;
	assert_int_equal(hks_encode_stored(&f.in, &o, &s, &err), HKS_E_ARGUMENT);
	o.defaults.rotation_quantization = 0;
	hks_track_params pal[2];
	memset(pal, 0, sizeof(pal));
	o.per_track = pal;
	o.num_per_track = 2; /* three tracks */
	assert_int_equal(hks_encode_stored(&f.in, &o, &s, &err), HKS_E_ARGUMENT);
	o.num_per_track = 0;
	o.max_frames_per_block = 257;
	assert_int_equal(hks_encode_stored(&f.in, &o, &s, &err), HKS_E_ARGUMENT);
	o.max_frames_per_block = 1;
	assert_int_equal(hks_encode_stored(&f.in, &o, &s, &err), HKS_E_ARGUMENT);
	o.max_frames_per_block = 0;
	o.base.limits.max_frames = 10;
	assert_int_equal(hks_encode_stored(&f.in, &o, &s, &err), HKS_E_LIMIT);
	o.base.limits.max_frames = 0;
	f.in.transforms = NULL;
	assert_int_equal(hks_encode_stored(&f.in, &o, &s, &err), HKS_E_ARGUMENT);
	assert_int_equal(hks_encode_stored(NULL, &o, &s, &err), HKS_E_ARGUMENT);
	assert_null(s);
	frames_free(&f);
}

/* ---- the CLI (HKSPLINE_CLI, set by ctest; make_sample beside it) ---- */

static hks_stored_animation *read_first_spline(const char *path, hks_file **file_out, uint8_t **bytes_out)
{
	size_t size = 0;
	uint8_t *bytes = hks_test_read_file(path, &size);
	assert_non_null(bytes);
	hks_file *file = NULL;
	hks_error err;
	assert_int_equal(hks_file_read(bytes, size, NULL, &file, &err), HKS_OK);
	assert_true(file->num_animations >= 1);
	assert_int_equal(file->animations[0].kind, HKS_ANIMATION_SPLINE);
	hks_stored_animation *s = NULL;
	assert_int_equal(hks_stored_read(&file->animations[0], NULL, &s, &err), HKS_OK);
	*file_out = file;
	*bytes_out = bytes;
	return s;
}

static void test_cli_encode(void **state)
{
	(void)state;
	const char *cli = getenv("HKSPLINE_CLI");
	if (!cli || !*cli) {
		print_message("HKSPLINE_CLI is not set (run through ctest): CLI test skipped\n");
		skip();
	}
	char dir[] = "/tmp/hks_encode_XXXXXX";
	assert_non_null(mkdtemp(dir));
	char tool[1024], cmd[8192];
	snprintf(tool, sizeof(tool), "%s", cli);
	char *slash = strrchr(tool, '/');
	assert_non_null(slash);
	snprintf(slash + 1, sizeof(tool) - (size_t)(slash + 1 - tool), "make_sample");
	snprintf(cmd, sizeof(cmd),
	         "'%s' '%s/in.hkx' && '%s' decode '%s/in.hkx' -o '%s/in.json' && "
	         "'%s' encode '%s/in.json' -o '%s/out.hkx' --like '%s/in.hkx' >/dev/null && "
	         "'%s' encode '%s/in.json' -o '%s/out48.hkx' --like '%s/in.hkx' --rotation-quantization 48 --game eldenring "
	         "--tolerance 0.002 >/dev/null",
	         tool, dir, cli, dir, dir, cli, dir, dir, dir, cli, dir, dir, dir);
	assert_int_equal(system(cmd), 0);
	/* without --like: the JSON's source.path (in.hkx) is the donor (docs/CLI.md) */
	snprintf(cmd, sizeof(cmd), "'%s' encode '%s/in.json' -o '%s/nolike.hkx' >/dev/null 2>&1", cli, dir, dir);
	int rc = system(cmd);
	assert_true(WIFEXITED(rc) && WEXITSTATUS(rc) == 0);

	char path[1200];
	hks_file *fa = NULL, *fb = NULL, *fc = NULL;
	uint8_t *ba = NULL, *bb = NULL, *bc = NULL;
	snprintf(path, sizeof(path), "%s/in.hkx", dir);
	hks_stored_animation *sa = read_first_spline(path, &fa, &ba);
	snprintf(path, sizeof(path), "%s/out.hkx", dir);
	hks_stored_animation *sb = read_first_spline(path, &fb, &bb);
	snprintf(path, sizeof(path), "%s/out48.hkx", dir);
	hks_stored_animation *sc = read_first_spline(path, &fc, &bc);
	assert_int_equal(sa->num_frames, sb->num_frames);
	{
		hks_file *fd = NULL;
		uint8_t *bd = NULL;
		snprintf(path, sizeof(path), "%s/nolike.hkx", dir);
		hks_stored_animation *sd = read_first_spline(path, &fd, &bd);
		assert_int_equal(sd->num_frames, sa->num_frames);
		assert_int_equal(sd->num_transform_tracks, sa->num_transform_tracks);
		hks_stored_free(sd);
		hks_file_free(fd);
		free(bd);
	}
	assert_int_equal(sa->num_transform_tracks, sb->num_transform_tracks);
	for (int32_t t = 0; t < sc->num_transform_tracks; t++)
		assert_int_equal((sc->blocks[0].tracks[t].mask[0] >> 2) & 15, HKS_ROT_THREECOMP48);
	uint32_t n = (uint32_t)sa->num_frames, T = (uint32_t)sa->num_transform_tracks, F = (uint32_t)sa->num_float_tracks;
	float *x = calloc((size_t)n * T * 10 + 1, sizeof(float)), *y = calloc((size_t)n * T * 10 + 1, sizeof(float));
	float *xf = calloc((size_t)n * F + 1, sizeof(float)), *yf = calloc((size_t)n * F + 1, sizeof(float));
	assert_true(x && y && xf && yf);
	hks_error err;
	assert_int_equal(hks_sample_frames(sa, NULL, 0, n, x, xf, &err), HKS_OK);
	assert_int_equal(hks_sample_frames(sb, NULL, 0, n, y, yf, &err), HKS_OK);
	/* the bound of roundtrip() without the renormalization term: the sample's
	 * rotations are slow (checked: the written file is within it) */
	for (uint32_t t = 0; t < T; t++)
		for (int k = 0; k < 10; k++) {
			int part = k < 3 ? 0 : k < 7 ? 1 : 2;
			int lane = part == 0 ? k : part == 1 ? k - 3 : k - 7;
			double bound = 0.001 + (part == 1 ? 3.0 : 1.0) * lane_step(sb, t, part, lane) + F32_SLACK;
			for (uint32_t f = 0; f < n; f++) {
				size_t i = ((size_t)f * T + t) * 10 + (size_t)k;
				assert_true(fabs((double)x[i] - (double)y[i]) <= bound);
			}
		}
	for (size_t i = 0; i < (size_t)n * F; i++)
		assert_true(fabs((double)xf[i] - (double)yf[i]) <= 0.0011 + lane_step(sb, (uint32_t)(i % F), 3, 0) + F32_SLACK);
	free(x);
	free(y);
	free(xf);
	free(yf);
	hks_stored_free(sa);
	hks_stored_free(sb);
	hks_stored_free(sc);
	hks_file_free(fa);
	hks_file_free(fb);
	hks_file_free(fc);
	free(ba);
	free(bb);
	free(bc);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classification),
		cmocka_unit_test(test_roundtrip_defaults),
		cmocka_unit_test(test_roundtrip_blocks),
		cmocka_unit_test(test_roundtrip_options),
		cmocka_unit_test(test_deterministic_and_models),
		cmocka_unit_test(test_nonfinite_frames),
		cmocka_unit_test(test_zero_rotation_static),
		cmocka_unit_test(test_continuity),
		cmocka_unit_test(test_argument_errors),
		cmocka_unit_test(test_cli_encode),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
