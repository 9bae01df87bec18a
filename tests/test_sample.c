/*
 * Sampling (FORMAT.md §4) on hand-built stored animations, against a literal
 * per-sample implementation of the spec written here (binary span search,
 * A2.2 triangle, dequantization per use), compared bit for bit.
 */
#include "hks_test.h"
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAXCP 64

/* ---- a small builder for stored animations ---- */

typedef struct clip {
	hks_stored_animation a;
	hks_stored_block blocks[4];
	hks_stored_track tracks[4][3];
	hks_stored_part floats[4][2];
	uint8_t knots[4][3][3][MAXCP + 8];   /* [block][track][part] */
	uint8_t fknots[4][2][MAXCP + 8];
	uint16_t cps[4][3][3][MAXCP * 3];
	uint16_t fcps[4][2][MAXCP];
	uint8_t packed[4][3][MAXCP * 16];
} clip;

static uint32_t rng_state = 12345;
static uint32_t rnd(void)
{
	rng_state = rng_state * 1664525u + 1013904223u;
	return rng_state >> 8;
}

/* numFrames, mfpb, T, F; duration = (numFrames − 1) / 30 */
static void clip_init(clip *c, int frames, int mfpb, int T, int F)
{
	memset(c, 0, sizeof(*c));
	hks_stored_animation *a = &c->a;
	a->num_transform_tracks = T;
	a->num_float_tracks = F;
	a->num_frames = frames;
	a->max_frames_per_block = mfpb;
	a->mask_and_quantization_size = (4 * T + F + 3) & ~3;
	uint32_t K = (uint32_t)mfpb - 1;
	a->duration = (float)(frames - 1) / 30.0f;
	a->frame_duration = a->duration / (float)(frames - 1);
	a->block_duration = a->frame_duration * (float)K;
	a->block_inverse_duration = 1.0f / a->block_duration;
	uint32_t nb = ((uint32_t)frames + K - 2) / K;
	a->num_blocks = nb ? nb : 1;
	a->blocks = c->blocks;
	for (uint32_t b = 0; b < a->num_blocks; b++) {
		c->blocks[b].first_frame = b * K;
		uint32_t fb = (uint32_t)frames - b * K;
		c->blocks[b].num_frames = fb < (uint32_t)mfpb ? fb : (uint32_t)mfpb;
		c->blocks[b].tracks = c->tracks[b];
		c->blocks[b].floats = c->floats[b];
	}
}

/* Clamped knots for n+1 points of degree p over local frames 0..last, with
 * interior knots spread (optionally one repeated p times). */
static void make_knots(uint8_t *U, unsigned ncp, unsigned p, unsigned last, int repeat)
{
	unsigned n = ncp - 1;
	for (unsigned i = 0; i <= p; i++) {
		U[i] = 0;
		U[n + 1 + i] = (uint8_t)last;
	}
	unsigned interior = n - p; /* U[p+1 .. n] */
	for (unsigned i = 1; i <= interior; i++)
		U[p + i] = (uint8_t)((i * last) / (interior + 1));
	if (repeat && interior >= p)
		for (unsigned i = 1; i < p; i++)
			U[p + 1 + i] = U[p + 1];
	/* keep first/last spans non-empty */
	for (unsigned i = p + 1; i <= n; i++)
		if (U[i] == 0)
			U[i] = 1;
}

static hks_stored_part *vector_spline(clip *c, unsigned b, unsigned t, unsigned part, uint8_t mask, unsigned p,
                                      unsigned ncp, int repeat)
{
	hks_stored_part *sp = &c->tracks[b][t].part[part];
	sp->flags = mask;
	sp->quantization = 1;
	sp->degree = (uint8_t)p;
	sp->is_spline = 1;
	sp->num_control_points = (uint16_t)ncp;
	sp->num_knots = (uint16_t)(ncp + p + 1);
	make_knots(c->knots[b][t][part], ncp, p, c->blocks[b].num_frames - 1, repeat);
	sp->knots = c->knots[b][t][part];
	unsigned lanes = 0;
	for (unsigned l = 0; l < 3; l++)
		if (mask & (0x10 << l)) {
			sp->min[l] = -1.0f - (float)(rnd() % 100) / 10.0f;
			sp->max[l] = 2.0f + (float)(rnd() % 100) / 7.0f;
			lanes++;
		}
	sp->spline_lanes = (uint8_t)lanes;
	for (unsigned i = 0; i < ncp * lanes; i++)
		c->cps[b][t][part][i] = (uint16_t)(rnd() & 0xFFFF);
	sp->control_points = c->cps[b][t][part];
	return sp;
}

static hks_stored_part *rotation_spline(clip *c, unsigned b, unsigned t, unsigned sel, unsigned p, unsigned ncp)
{
	hks_stored_part *sp = &c->tracks[b][t].part[1];
	sp->flags = 0xF0;
	sp->quantization = (uint8_t)sel;
	sp->degree = (uint8_t)p;
	sp->is_spline = 1;
	sp->num_control_points = (uint16_t)ncp;
	sp->num_knots = (uint16_t)(ncp + p + 1);
	make_knots(c->knots[b][t][1], ncp, p, c->blocks[b].num_frames - 1, 0);
	sp->knots = c->knots[b][t][1];
	uint32_t size = hks_rotation_size(sel);
	for (unsigned i = 0; i < ncp * size; i++)
		c->packed[b][t][i] = (uint8_t)rnd();
	if (sel == HKS_ROT_THREECOMP40) /* keep fields <= 4094 */
		for (unsigned i = 0; i < ncp; i++)
			c->packed[b][t][i * 5 + 1] &= 0x7F;
	if (sel == HKS_ROT_UNCOMPRESSED)
		for (unsigned i = 0; i < ncp * 4; i++)
			hks_put_le32(c->packed[b][t] + 4 * i, hks_f32_bits((float)((int)(rnd() % 2001) - 1000) / 1000.0f));
	sp->packed = c->packed[b][t];
	return sp;
}

/* ---- the literal reference (FORMAT.md §3.1, §4.2-4.5) ---- */

static unsigned ref_span(const uint8_t *U, unsigned n, unsigned p, float x)
{
	if (x >= (float)U[n + 1])
		return n;
	if (x <= (float)U[p])
		return p;
	unsigned low = p, high = n + 1, mid = (low + high) / 2;
	while (x < (float)U[mid] || x >= (float)U[mid + 1]) {
		if (x < (float)U[mid])
			high = mid;
		else
			low = mid;
		mid = (low + high) / 2;
	}
	return mid;
}

/* control point i, lane slot k of part sp as f32 (dequantized on every use) */
static float ref_cp(const hks_stored_part *sp, int rotation, unsigned i, unsigned k, unsigned lane)
{
	if (rotation) {
		float q[4];
		hks_unpack_quaternion(sp->quantization, sp->packed + i * hks_rotation_size(sp->quantization), q);
		return q[k];
	}
	uint16_t v = sp->control_points[i * sp->spline_lanes + k];
	float C = hks_f32_from_bits(sp->quantization ? 0x37800080u : 0x3B808081u);
	return (((float)v * C) * (sp->max[lane] - sp->min[lane])) + sp->min[lane];
}

/* value of slot k at parameter u (knots scaled by `scale` when nonzero);
 * the span is searched with `key` */
static float ref_eval(const hks_stored_part *sp, int rotation, unsigned k, unsigned lane, float key, float u,
                      float scale)
{
	unsigned p = sp->degree, n = sp->num_control_points - 1;
	unsigned span = ref_span(sp->knots, n, p, key);
	float U[MAXCP + 8];
	for (unsigned i = 0; i < sp->num_knots; i++)
		U[i] = scale != 0.0f ? (float)sp->knots[i] * scale : (float)sp->knots[i];
	float N[4], left[4], right[4];
	N[0] = 1.0f;
	for (unsigned j = 1; j <= p; j++) {
		left[j] = u - U[span + 1 - j];
		right[j] = U[span + j] - u;
		float saved = 0.0f;
		for (unsigned r = 0; r < j; r++) {
			float temp = N[r] / (right[r + 1] + left[j - r]);
			N[r] = saved + right[r + 1] * temp;
			saved = left[j - r] * temp;
		}
		N[j] = saved;
	}
	float C = N[0] * ref_cp(sp, rotation, span - p, k, lane);
	for (unsigned j = 1; j <= p; j++)
		C = C + N[j] * ref_cp(sp, rotation, span - p + j, k, lane);
	return C;
}

static void assert_same_bits(float got, float want, const char *what, unsigned frame)
{
	if (hks_f32_bits(got) != hks_f32_bits(want)) {
		print_error("%s frame %u: got %.9g (0x%08X), want %.9g (0x%08X)\n", what, frame, (double)got,
		            hks_f32_bits(got), (double)want, hks_f32_bits(want));
		fail();
	}
}

/* ---- tests ---- */

static void test_degrees_match_reference(void **state)
{
	(void)state;
	for (unsigned p = 1; p <= 3; p++) {
		for (int repeat = 0; repeat < 2; repeat++) {
			static clip c;
			clip_init(&c, 40, 256, 2, 1);
			vector_spline(&c, 0, 0, 0, 0x70, p, 12, repeat);          /* T xyz spline */
			rotation_spline(&c, 0, 0, HKS_ROT_THREECOMP40, p, 9);      /* R spline */
			vector_spline(&c, 0, 0, 2, 0x50, p, p + 1, 0);             /* S x, z spline (minimal) */
			rotation_spline(&c, 0, 1, HKS_ROT_THREECOMP48, p, 20);
			rotation_spline(&c, 0, 1, HKS_ROT_UNCOMPRESSED, p, 20);
			c.tracks[0][1].part[1].quantization = HKS_ROT_UNCOMPRESSED;
			/* float spline, 8-bit */
			hks_stored_part *fp = &c.floats[0][0];
			fp->flags = 0x10;
			fp->quantization = 0;
			fp->degree = (uint8_t)p;
			fp->is_spline = 1;
			fp->num_control_points = 15;
			fp->num_knots = (uint16_t)(15 + p + 1);
			make_knots(c.fknots[0][0], 15, p, 39, repeat);
			fp->knots = c.fknots[0][0];
			fp->spline_lanes = 1;
			fp->min[0] = 0.12f;
			fp->max[0] = 1.75f;
			for (int i = 0; i < 15; i++)
				c.fcps[0][0][i] = (uint16_t)(rnd() % 256);
			fp->control_points = c.fcps[0][0];

			float tr[40 * 2 * 10], fl[40];
			hks_error err;
			assert_int_equal(hks_sample_frames(&c.a, NULL, 0, 40, tr, fl, &err), HKS_OK);
			for (unsigned f = 0; f < 40; f++) {
				const float *o = tr + f * 20;
				float u = (float)f;
				for (unsigned l = 0; l < 3; l++)
					assert_same_bits(o[l], ref_eval(&c.tracks[0][0].part[0], 0, l, l, u, u, 0), "T", f);
				for (unsigned k = 0; k < 4; k++)
					assert_same_bits(o[3 + k], ref_eval(&c.tracks[0][0].part[1], 1, k, k, u, u, 0), "R", f);
				assert_same_bits(o[7], ref_eval(&c.tracks[0][0].part[2], 0, 0, 0, u, u, 0), "S.x", f);
				assert_same_bits(o[8], 1.0f, "S.y absent", f);
				assert_same_bits(o[9], ref_eval(&c.tracks[0][0].part[2], 0, 1, 2, u, u, 0), "S.z", f);
				for (unsigned k = 0; k < 4; k++)
					assert_same_bits(o[13 + k], ref_eval(&c.tracks[0][1].part[1], 1, k, k, u, u, 0), "R1", f);
				assert_same_bits(fl[f], ref_eval(fp, 0, 0, 0, u, u, 0), "F", f);
			}
			/* a sub-range gives the same rows */
			float tr2[7 * 20], fl2[7];
			assert_int_equal(hks_sample_frames(&c.a, NULL, 13, 7, tr2, fl2, &err), HKS_OK);
			assert_memory_equal(tr2, tr + 13 * 20, sizeof(tr2));
			assert_memory_equal(fl2, fl + 13, sizeof(fl2));
			/* and frame-by-frame through the block API */
			float one[20], onef[1];
			for (unsigned f = 0; f < 40; f++) {
				assert_int_equal(hks_sample_block_frame(&c.a, 0, f, NULL, one, onef, &err), HKS_OK);
				assert_memory_equal(one, tr + f * 20, sizeof(one));
			}
		}
	}
}

/* a degree-1 spline through exact values: sampled frames are the linear interpolation */
static void test_degree1_interpolates(void **state)
{
	(void)state;
	static clip c;
	clip_init(&c, 5, 256, 1, 0);
	hks_stored_part *sp = vector_spline(&c, 0, 0, 0, 0x10, 1, 3, 0);
	c.knots[0][0][0][0] = 0;
	c.knots[0][0][0][1] = 0;
	c.knots[0][0][0][2] = 2;
	c.knots[0][0][0][3] = 4;
	c.knots[0][0][0][4] = 4;
	sp->min[0] = 0.0f;
	sp->max[0] = 255.0f;
	sp->quantization = 0; /* 8-bit: v · (1/255) · 255 */
	c.cps[0][0][0][0] = 0;
	c.cps[0][0][0][1] = 255;
	c.cps[0][0][0][2] = 51;
	float tr[5 * 10];
	assert_int_equal(hks_sample_frames(&c.a, NULL, 0, 5, tr, NULL, NULL), HKS_OK);
	float want[5] = {0, 127.5f, 255, 153, 51};
	for (int f = 0; f < 5; f++)
		assert_true(fabsf(tr[f * 10] - want[f]) < 1e-4f);
	/* absent parts are neutral (§4.6) */
	assert_true(tr[1] == 0.0f && tr[2] == 0.0f);
	assert_true(tr[3] == 0.0f && tr[4] == 0.0f && tr[5] == 0.0f && tr[6] == 1.0f);
	assert_true(tr[7] == 1.0f && tr[8] == 1.0f && tr[9] == 1.0f);
}

static void test_static_and_absent(void **state)
{
	(void)state;
	static clip c;
	clip_init(&c, 10, 256, 1, 2);
	/* T: x static, y spline, z absent */
	hks_stored_part *T = vector_spline(&c, 0, 0, 0, 0x21, 3, 6, 0);
	T->static_value[0] = hks_f32_from_bits(0x7FC01234u); /* a NaN static keeps its payload */
	/* R static */
	hks_stored_part *R = &c.tracks[0][0].part[1];
	R->flags = 0x0A;
	R->quantization = HKS_ROT_THREECOMP40;
	R->num_control_points = 1;
	static const uint8_t st[5] = {0xff, 0xd7, 0x11, 0xff, 0x37};
	R->packed = st;
	/* S: y, z static */
	hks_stored_part *S = &c.tracks[0][0].part[2];
	S->flags = 0x06;
	S->static_value[1] = 2.5f;
	S->static_value[2] = -1.0f;
	/* float 0 static, float 1 absent */
	c.floats[0][0].flags = 0x01;
	c.floats[0][0].quantization = 1;
	c.floats[0][0].static_value[0] = 0.75f;
	float tr[10 * 10], fl[10 * 2];
	assert_int_equal(hks_sample_frames(&c.a, NULL, 0, 10, tr, fl, NULL), HKS_OK);
	float q[4];
	hks_unpack_quaternion(HKS_ROT_THREECOMP40, st, q);
	for (unsigned f = 0; f < 10; f++) {
		const float *o = tr + f * 10;
		assert_int_equal(hks_f32_bits(o[0]), 0x7FC01234u);
		assert_same_bits(o[1], ref_eval(T, 0, 0, 1, (float)f, (float)f, 0), "T.y", f);
		assert_true(o[2] == 0.0f);
		assert_memory_equal(o + 3, q, sizeof(q));
		assert_true(o[7] == 1.0f && o[8] == 2.5f && o[9] == -1.0f);
		assert_true(fl[f * 2] == 0.75f && fl[f * 2 + 1] == 0.0f);
	}
}

/* Multi-block: boundary frames from the later block, last frame from the last. */
static void test_block_boundaries(void **state)
{
	(void)state;
	static clip c;
	clip_init(&c, 12, 5, 1, 1); /* K = 4: blocks 0..4, 4..8, 8..11 */
	assert_int_equal(c.a.num_blocks, 3);
	assert_int_equal(c.blocks[2].num_frames, 4);
	for (unsigned b = 0; b < 3; b++) {
		c.tracks[b][0].part[0].flags = 0x01;
		c.tracks[b][0].part[0].static_value[0] = (float)(b + 1);
		c.floats[b][0].flags = 0x03;
		c.floats[b][0].quantization = 1;
		c.floats[b][0].static_value[0] = (float)(10 * (b + 1));
	}
	float tr[12 * 10], fl[12];
	assert_int_equal(hks_sample_frames(&c.a, NULL, 0, 12, tr, fl, NULL), HKS_OK);
	const float want[12] = {1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3};
	for (int f = 0; f < 12; f++) {
		assert_true(tr[f * 10] == want[f]);
		assert_true(fl[f] == 10 * want[f]);
	}
	/* the seam frame seen from the earlier block */
	float one[10], onef[1];
	assert_int_equal(hks_sample_block_frame(&c.a, 0, 4, NULL, one, onef, NULL), HKS_OK);
	assert_true(one[0] == 1.0f && onef[0] == 10.0f);
	assert_int_equal(hks_sample_block_frame(&c.a, 2, 4, NULL, one, onef, NULL), HKS_E_ARGUMENT);
	/* range outside the clip */
	assert_int_equal(hks_sample_frames(&c.a, NULL, 10, 3, tr, fl, NULL), HKS_E_ARGUMENT);
	/* F > 0 without a float buffer */
	assert_int_equal(hks_sample_frames(&c.a, NULL, 0, 1, tr, NULL, NULL), HKS_E_ARGUMENT);
}

/* Time mode: reference mapping of §4.3 written out, end clamp, t clamp. */
static float ref_time(const clip *c, float t, unsigned *block, uint32_t *qtime, float *u)
{
	const hks_stored_animation *a = &c->a;
	uint32_t K = (uint32_t)a->max_frames_per_block - 1, maxIdx = (uint32_t)a->num_frames - 1;
	float f = (t / a->duration) * (float)maxIdx;
	int fr = (int)floorf(f);
	float delta;
	if (fr > (int)maxIdx - 1) {
		fr = (int)maxIdx - 1;
		delta = 1.0f;
	} else {
		delta = fminf(fmaxf(f - (float)fr, 0.0f), 1.0f);
	}
	uint32_t b = (uint32_t)fr / K;
	if (b > a->num_blocks - 1)
		b = a->num_blocks - 1;
	float bt = ((float)((uint32_t)fr - b * K) + delta) * a->frame_duration;
	*qtime = (uint32_t)truncf((bt * a->block_inverse_duration) * (float)K);
	*block = b;
	*u = bt;
	return bt;
}

static void test_time_mode(void **state)
{
	(void)state;
	static clip c;
	clip_init(&c, 30, 11, 1, 0); /* K = 10: blocks 0..10, 10..20, 20..29 */
	for (unsigned b = 0; b < c.a.num_blocks; b++) {
		vector_spline(&c, b, 0, 0, 0x70, 3, 6, 0);
		rotation_spline(&c, b, 0, HKS_ROT_THREECOMP40, 1, 5);
	}
	float frames[30 * 10];
	assert_int_equal(hks_sample_frames(&c.a, NULL, 0, 30, frames, NULL, NULL), HKS_OK);
	float out[10];
	for (int i = 0; i <= 290; i++) {
		float t = (float)i * (c.a.duration / 290.0f);
		if (t > c.a.duration)
			t = c.a.duration;
		assert_int_equal(hks_sample_time(&c.a, t, NULL, out, NULL, NULL), HKS_OK);
		unsigned b;
		uint32_t q;
		float u;
		ref_time(&c, t, &b, &q, &u);
		const hks_stored_part *T = &c.tracks[b][0].part[0], *R = &c.tracks[b][0].part[1];
		for (unsigned l = 0; l < 3; l++)
			assert_same_bits(out[l], ref_eval(T, 0, l, l, (float)q, u, c.a.frame_duration), "time T", (unsigned)i);
		for (unsigned k = 0; k < 4; k++)
			assert_same_bits(out[3 + k], ref_eval(R, 1, k, k, (float)q, u, c.a.frame_duration), "time R",
			                 (unsigned)i);
	}
	/* at frame times, time mode agrees with frame mode up to float error;
	 * at a seam (g = 10, 20) time mode may land on delta ≈ 1 of the earlier
	 * block, whose value this test's unrelated random blocks do not share */
	for (unsigned g = 0; g < 30; g++) {
		assert_int_equal(hks_sample_time(&c.a, (float)g * c.a.frame_duration, NULL, out, NULL, NULL), HKS_OK);
		float seam[10];
		int at_seam = g == 10 || g == 20;
		if (at_seam)
			assert_int_equal(hks_sample_block_frame(&c.a, g / 10 - 1, 10, NULL, seam, NULL, NULL), HKS_OK);
		for (int k = 0; k < 7; k++) {
			int near = fabsf(out[k] - frames[g * 10 + k]) < 1e-4f;
			if (!near && at_seam)
				near = fabsf(out[k] - seam[k]) < 1e-4f;
			if (!near)
				print_error("frame %u lane %d: time %.9g frame %.9g\n", g, k, (double)out[k],
				            (double)frames[g * 10 + k]);
			assert_true(near);
		}
	}
	/* end clamp: t = duration is the last frame; later times give the same bits */
	float at_end[10], later[10], before[10], zero[10], nan_t[10];
	assert_int_equal(hks_sample_time(&c.a, c.a.duration, NULL, at_end, NULL, NULL), HKS_OK);
	for (int k = 0; k < 7; k++)
		assert_true(fabsf(at_end[k] - frames[29 * 10 + k]) < 1e-4f);
	assert_int_equal(hks_sample_time(&c.a, c.a.duration * 3.0f, NULL, later, NULL, NULL), HKS_OK);
	assert_memory_equal(at_end, later, sizeof(later));
	assert_int_equal(hks_sample_time(&c.a, INFINITY, NULL, later, NULL, NULL), HKS_OK);
	assert_memory_equal(at_end, later, sizeof(later));
	/* t < 0 clamps to 0 (the library's documented policy), NaN samples 0 */
	assert_int_equal(hks_sample_time(&c.a, -0.5f, NULL, before, NULL, NULL), HKS_OK);
	assert_int_equal(hks_sample_time(&c.a, 0.0f, NULL, zero, NULL, NULL), HKS_OK);
	assert_int_equal(hks_sample_time(&c.a, NAN, NULL, nan_t, NULL, NULL), HKS_OK);
	assert_memory_equal(before, zero, sizeof(zero));
	assert_memory_equal(nan_t, zero, sizeof(zero));
	for (int k = 0; k < 7; k++)
		assert_true(fabsf(zero[k] - frames[k]) < 1e-5f);
}

static void expect_error(clip *c, hks_result code, int32_t block, int32_t track, hks_part part)
{
	float tr[64 * 10 * 2], fl[64 * 2];
	hks_error err;
	assert_int_equal(hks_sample_frames(&c->a, NULL, 0, (uint32_t)c->a.num_frames, tr, fl, &err), code);
	assert_int_equal(err.block, block);
	assert_int_equal(err.track, track);
	assert_int_equal(err.part, part);
	float one[20], onef[2];
	assert_int_equal(hks_sample_time(&c->a, c->a.duration * 0.5f, NULL, one, onef, &err), code);
}

static void test_bad_knots_are_errors(void **state)
{
	(void)state;
	static clip c;
	/* not clamped at the start */
	clip_init(&c, 20, 256, 2, 0);
	vector_spline(&c, 0, 1, 0, 0x70, 3, 8, 0);
	c.knots[0][1][0][0] = 1;
	c.knots[0][1][0][1] = 1;
	c.knots[0][1][0][2] = 1;
	c.knots[0][1][0][3] = 1;
	expect_error(&c, HKS_E_MALFORMED, 0, 1, HKS_PART_TRANSLATION);
	c.knots[0][1][0][0] = 0; /* multiplicity 1 at the start */
	expect_error(&c, HKS_E_MALFORMED, 0, 1, HKS_PART_TRANSLATION);
	/* an empty last span: U[n] = U[n+1] (all interior knots at the end) */
	clip_init(&c, 20, 256, 2, 0);
	vector_spline(&c, 0, 0, 2, 0x10, 1, 4, 0);
	for (int i = 2; i < 6; i++)
		c.knots[0][0][2][i] = 19;
	expect_error(&c, HKS_E_MALFORMED, 0, 0, HKS_PART_SCALE);
	/* everything zero: the whole vector empty (no division by zero, no loop) */
	clip_init(&c, 20, 256, 2, 0);
	rotation_spline(&c, 0, 1, HKS_ROT_THREECOMP40, 3, 8);
	memset(c.knots[0][1][1], 0, 12);
	expect_error(&c, HKS_E_MALFORMED, 0, 1, HKS_PART_ROTATION);
	/* decreasing knots */
	clip_init(&c, 20, 256, 1, 0);
	vector_spline(&c, 0, 0, 0, 0x70, 3, 8, 0);
	c.knots[0][0][0][5] = 18;
	c.knots[0][0][0][6] = 2;
	expect_error(&c, HKS_E_MALFORMED, 0, 0, HKS_PART_TRANSLATION);
	/* degree 4 and 0 */
	clip_init(&c, 20, 256, 1, 0);
	hks_stored_part *sp = vector_spline(&c, 0, 0, 0, 0x70, 3, 8, 0);
	sp->degree = 4;
	expect_error(&c, HKS_E_MALFORMED, 0, 0, HKS_PART_TRANSLATION);
	sp->degree = 0;
	expect_error(&c, HKS_E_MALFORMED, 0, 0, HKS_PART_TRANSLATION);
	/* knot count inconsistent with the control points */
	sp->degree = 3;
	sp->num_knots = 5;
	expect_error(&c, HKS_E_MALFORMED, 0, 0, HKS_PART_TRANSLATION);
	/* fewer control points than degree + 1 */
	sp->num_control_points = 2;
	sp->num_knots = 6;
	expect_error(&c, HKS_E_MALFORMED, 0, 0, HKS_PART_TRANSLATION);
	/* lanes in the mask and in the control points disagree */
	clip_init(&c, 20, 256, 1, 0);
	sp = vector_spline(&c, 0, 0, 0, 0x70, 1, 4, 0);
	sp->spline_lanes = 2;
	expect_error(&c, HKS_E_MALFORMED, 0, 0, HKS_PART_TRANSLATION);
	/* float track: not clamped at the end */
	clip_init(&c, 20, 256, 0, 1);
	hks_stored_part *fp = &c.floats[0][0];
	fp->flags = 0x10;
	fp->quantization = 1;
	fp->degree = 1;
	fp->num_control_points = 3;
	fp->num_knots = 5;
	static const uint8_t fk[5] = {0, 0, 5, 10, 19};
	static const uint16_t fc[3] = {0, 1, 2};
	fp->knots = fk;
	fp->control_points = fc;
	fp->spline_lanes = 1;
	expect_error(&c, HKS_E_MALFORMED, 0, 0, HKS_PART_FLOAT);
	/* a bad header */
	clip_init(&c, 20, 256, 1, 0);
	c.a.num_blocks = 2;
	float tr[20 * 10];
	assert_int_equal(hks_sample_frames(&c.a, NULL, 0, 20, tr, NULL, NULL), HKS_E_MALFORMED);
	clip_init(&c, 1, 256, 1, 0);
	assert_int_equal(hks_sample_frames(&c.a, NULL, 0, 1, tr, NULL, NULL), HKS_E_MALFORMED);
	assert_int_equal(hks_sample_frames(NULL, NULL, 0, 1, tr, NULL, NULL), HKS_E_ARGUMENT);
}

static void test_nan_propagates(void **state)
{
	(void)state;
	static clip c;
	clip_init(&c, 30, 256, 1, 0);
	rotation_spline(&c, 0, 0, HKS_ROT_UNCOMPRESSED, 1, 6);
	/* knots 0,0,6,12,18,24,29,29: control point 3 NaN → spans touching it NaN */
	for (int k = 0; k < 4; k++)
		hks_put_le32(c.packed[0][0] + 3 * 16 + 4 * k, 0x7FC00000u);
	hks_stored_part *T = vector_spline(&c, 0, 0, 0, 0x10, 1, 4, 0);
	T->min[0] = hks_f32_from_bits(0x7F800000u); /* +inf bound: inf − inf = NaN */
	float tr[30 * 10];
	assert_int_equal(hks_sample_frames(&c.a, NULL, 0, 30, tr, NULL, NULL), HKS_OK);
	const uint8_t *U = c.knots[0][0][1];
	for (unsigned f = 0; f < 30; f++) {
		unsigned span = ref_span(U, 5, 1, (float)f);
		int touches = (span - 1 == 3) || (span == 3);
		for (int k = 0; k < 4; k++)
			assert_int_equal(isnan(tr[f * 10 + 3 + k]) != 0, touches);
		assert_true(isnan(tr[f * 10]));
	}
}

static void test_normalize_option(void **state)
{
	(void)state;
	static clip c;
	clip_init(&c, 20, 256, 1, 0);
	rotation_spline(&c, 0, 0, HKS_ROT_UNCOMPRESSED, 3, 8);
	float raw[20 * 10], unit[20 * 10];
	hks_sample_options o = {0};
	assert_int_equal(hks_sample_frames(&c.a, &o, 0, 20, raw, NULL, NULL), HKS_OK);
	o.normalize_rotations = 1;
	assert_int_equal(hks_sample_frames(&c.a, &o, 0, 20, unit, NULL, NULL), HKS_OK);
	int differs = 0;
	for (int f = 0; f < 20; f++) {
		const float *q = unit + f * 10 + 3;
		float len = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
		assert_true(fabsf(len - 1.0f) < 1e-6f);
		if (memcmp(raw + f * 10 + 3, q, 16))
			differs = 1;
		/* translation and scale untouched */
		assert_memory_equal(raw + f * 10, unit + f * 10, 12);
	}
	assert_true(differs); /* the raw API does not normalize (§4.6) */
}

/* Hostile stored structures (random flags, degrees, counts, knots, selectors
 * over valid buffers): every call returns OK or a clean error, never reads
 * outside the part's arrays (run under -DHKS_SANITIZE=ON to check). */
static void test_random_structures_are_safe(void **state)
{
	(void)state;
	static clip c;
	float tr[40 * 3 * 10], fl[40 * 2];
	for (int round = 0; round < 3000; round++) {
		int frames = 2 + (int)(rnd() % 38), mfpb = 2 + (int)(rnd() % 30);
		uint32_t K = (uint32_t)mfpb - 1;
		if (((uint32_t)frames + K - 2) / K > 4)
			mfpb = 256;
		clip_init(&c, frames, mfpb, 3, 2);
		for (unsigned b = 0; b < c.a.num_blocks; b++) {
			for (unsigned t = 0; t < 3; t++)
				for (unsigned part = 0; part < 3; part++) {
					unsigned last = c.blocks[b].num_frames - 1;
					unsigned p = 1 + rnd() % 3;
					unsigned ncp = p + 1 + rnd() % (last + 1 > p ? last + 1 - p : 1);
					if (ncp > MAXCP)
						ncp = MAXCP;
					if (part == 1)
						rotation_spline(&c, b, t, rnd() % 6, p, ncp);
					else
						vector_spline(&c, b, t, part, (uint8_t)(0x10 | (rnd() & 0x77)), p, ncp, (int)(rnd() & 1));
					hks_stored_part *sp = &c.tracks[b][t].part[part];
					/* mutations */
					switch (rnd() % 8) {
					case 0: sp->degree = (uint8_t)(rnd() % 6); break;
					case 1: sp->knots = c.knots[b][t][part]; c.knots[b][t][part][rnd() % sp->num_knots] = (uint8_t)rnd(); break;
					case 2: sp->flags = (uint8_t)rnd(); break;
					case 3: sp->quantization = (uint8_t)(rnd() % 8); break;
					case 4: sp->num_knots = (uint16_t)(rnd() % (sp->num_knots + 1)); break;
					case 5: sp->num_control_points = (uint16_t)(rnd() % (sp->num_control_points + 1)); break;
					default: break;
					}
					/* keep every count within the buffers the builder filled */
					if (sp->num_knots > MAXCP + 4 || (uint32_t)sp->num_control_points + 4 > MAXCP + 8)
						sp->num_knots = sp->num_control_points = 0;
				}
			for (unsigned f = 0; f < 2; f++) {
				c.floats[b][f].flags = (uint8_t)(rnd() & 0x13);
				c.floats[b][f].static_value[0] = 0.5f;
			}
		}
		hks_error err;
		hks_result r = hks_sample_frames(&c.a, NULL, 0, (uint32_t)frames, tr, fl, &err);
		assert_true(r == HKS_OK || r == HKS_E_MALFORMED);
		float t = (float)(rnd() % 1000) / 999.0f * c.a.duration * 1.2f;
		r = hks_sample_time(&c.a, t, NULL, tr, fl, &err);
		assert_true(r == HKS_OK || r == HKS_E_MALFORMED);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_degrees_match_reference),
		cmocka_unit_test(test_degree1_interpolates),
		cmocka_unit_test(test_static_and_absent),
		cmocka_unit_test(test_block_boundaries),
		cmocka_unit_test(test_time_mode),
		cmocka_unit_test(test_bad_knots_are_errors),
		cmocka_unit_test(test_nan_propagates),
		cmocka_unit_test(test_normalize_option),
		cmocka_unit_test(test_random_structures_are_safe),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
