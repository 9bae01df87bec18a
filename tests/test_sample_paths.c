/*
 * The evaluation paths of the sampler (issue 16): the SSE2 fast path must
 * give the bits of the portable scalar reference on every clip, in frame mode
 * (whole clip, sub-ranges, single block frames) and in time mode; the runtime
 * pose sampler (hks_pose_at) must give the bits of hks_sample_time.
 *
 * Synthetic clips: random masks (static, absent, spline lanes in every
 * combination), degrees 1-3, knot vectors with repeated knots, spans of one
 * frame and spans longer than the fast path's degree-1 table, every rotation
 * selector, float tracks, several blocks, frame counts that are not multiples
 * of four. On a build without SSE2 both paths resolve to the reference and
 * the test checks that the resolution says so.
 */
#include "hks_test.h"
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint32_t rng = 2463534242u;
static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

typedef struct gen {
	hks_stored_animation a;
	hks_stored_block *blocks;
	void *pool[4096];
	size_t npool;
} gen;

static void *gen_alloc(gen *g, size_t size)
{
	assert_true(g->npool < 4096);
	void *p = calloc(1, size ? size : 1);
	assert_non_null(p);
	g->pool[g->npool++] = p;
	return p;
}

static void gen_free(gen *g)
{
	for (size_t i = 0; i < g->npool; i++)
		free(g->pool[i]);
	g->npool = 0;
}

/* Clamped knots for ncp points of degree p over local frames 0..last: the
 * style of the game data (runs of equal knots, short spans) or long spans. */
static uint8_t *gen_knots(gen *g, unsigned ncp, unsigned p, unsigned last, int style)
{
	unsigned n = ncp - 1, nk = ncp + p + 1;
	uint8_t *U = (uint8_t *)gen_alloc(g, nk);
	unsigned interior = n - p;
	for (unsigned i = 0; i <= p; i++) {
		U[i] = 0;
		U[n + 1 + i] = (uint8_t)last;
	}
	for (unsigned i = 1; i <= interior; i++) {
		unsigned v = (i * last) / (interior + 1);
		if (style == 1 && i > 1 && (rnd() % 3) == 0)
			v = U[p + i - 1]; /* repeated knot */
		if (v < U[p + i - 1])
			v = U[p + i - 1];
		if (v == 0)
			v = 1;
		if (v >= last)
			v = last - 1;
		U[p + i] = (uint8_t)v;
	}
	/* boundary spans non-empty (last >= 2 here) */
	for (unsigned i = p + 1; i <= n; i++)
		if (U[i] < U[i - 1])
			U[i] = U[i - 1];
	return U;
}

static void gen_vector(gen *g, hks_stored_part *sp, unsigned nlanes, unsigned frames)
{
	uint8_t m = 0;
	for (unsigned l = 0; l < nlanes; l++) {
		unsigned kind = rnd() % 3; /* 0 absent, 1 static, 2 spline */
		if (kind == 1) {
			m |= (uint8_t)(1u << l);
			sp->static_value[l] = (float)((int)(rnd() % 2001) - 1000) / 77.0f;
		} else if (kind == 2)
			m |= (uint8_t)(0x10u << l);
	}
	sp->flags = m;
	if (!(m & 0xF0))
		return;
	unsigned lanes = 0;
	for (unsigned l = 0; l < nlanes; l++)
		if (m & (0x10u << l)) {
			sp->min[l] = -(float)(rnd() % 1000) / 13.0f;
			sp->max[l] = sp->min[l] + (float)(rnd() % 1000) / 7.0f;
			lanes++;
		}
	unsigned p = 1 + rnd() % 3;
	unsigned maxcp = frames < 40 ? frames : 40;
	if (maxcp < p + 1)
		maxcp = p + 1;
	unsigned ncp = p + 1 + rnd() % (maxcp - p);
	sp->quantization = (uint8_t)(rnd() % 2);
	sp->degree = (uint8_t)p;
	sp->is_spline = 1;
	sp->num_control_points = (uint16_t)ncp;
	sp->num_knots = (uint16_t)(ncp + p + 1);
	sp->knots = gen_knots(g, ncp, p, frames - 1, (int)(rnd() % 2));
	sp->spline_lanes = (uint8_t)lanes;
	uint16_t *cp = (uint16_t *)gen_alloc(g, ncp * lanes * sizeof(uint16_t));
	for (unsigned i = 0; i < ncp * lanes; i++)
		cp[i] = (uint16_t)(sp->quantization ? rnd() & 0xFFFF : rnd() & 0xFF);
	sp->control_points = cp;
}

static void gen_rotation(gen *g, hks_stored_part *sp, unsigned frames)
{
	unsigned kind = rnd() % 5; /* 0 identity, 1 static, else spline */
	static const unsigned sels[] = {HKS_ROT_THREECOMP40, HKS_ROT_THREECOMP40, HKS_ROT_THREECOMP48,
	                                HKS_ROT_THREECOMP24, HKS_ROT_POLAR32,     HKS_ROT_UNCOMPRESSED};
	unsigned sel = sels[rnd() % 6];
	sp->quantization = (uint8_t)sel;
	if (kind == 0) {
		sp->flags = 0;
		return;
	}
	unsigned size = hks_rotation_size(sel);
	unsigned p = 1 + rnd() % 3;
	if (rnd() % 2)
		p = 1; /* degree 1 is the common case of the data */
	unsigned ncp = 1;
	if (kind >= 2) {
		unsigned maxcp = frames;
		ncp = p + 1 + rnd() % (maxcp > p + 1 ? maxcp - p : 1);
		if (ncp > frames + p)
			ncp = p + 1;
	}
	uint8_t *packed = (uint8_t *)gen_alloc(g, ncp * size);
	for (unsigned i = 0; i < ncp * size; i++)
		packed[i] = (uint8_t)rnd();
	if (sel == HKS_ROT_UNCOMPRESSED)
		for (unsigned i = 0; i < ncp * 4; i++)
			hks_put_le32(packed + 4 * i, hks_f32_bits((float)((int)(rnd() % 2001) - 1000) / 1000.0f));
	sp->packed = packed;
	if (kind == 1) {
		sp->flags = 0x0F;
		sp->num_control_points = 1;
		return;
	}
	sp->flags = 0xF0;
	sp->degree = (uint8_t)p;
	sp->is_spline = 1;
	sp->num_control_points = (uint16_t)ncp;
	sp->num_knots = (uint16_t)(ncp + p + 1);
	sp->knots = gen_knots(g, ncp, p, frames - 1, (int)(rnd() % 2));
}

static void gen_clip(gen *g, int frames, int mfpb, int T, int F)
{
	memset(&g->a, 0, sizeof(g->a));
	hks_stored_animation *a = &g->a;
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
	g->blocks = (hks_stored_block *)gen_alloc(g, a->num_blocks * sizeof(hks_stored_block));
	a->blocks = g->blocks;
	a->data_offset = -1;
	for (uint32_t b = 0; b < a->num_blocks; b++) {
		hks_stored_block *blk = &g->blocks[b];
		blk->first_frame = b * K;
		uint32_t fb = (uint32_t)frames - b * K;
		blk->num_frames = fb < (uint32_t)mfpb ? fb : (uint32_t)mfpb;
		blk->tracks = (hks_stored_track *)gen_alloc(g, (size_t)T * sizeof(hks_stored_track));
		blk->floats = (hks_stored_part *)gen_alloc(g, (size_t)F * sizeof(hks_stored_part));
		for (int t = 0; t < T; t++) {
			gen_vector(g, &blk->tracks[t].part[0], 3, blk->num_frames);
			gen_rotation(g, &blk->tracks[t].part[1], blk->num_frames);
			gen_vector(g, &blk->tracks[t].part[2], 3, blk->num_frames);
		}
		for (int f = 0; f < F; f++) {
			gen_vector(g, &blk->floats[f], 1, blk->num_frames);
			blk->floats[f].flags &= 0x11;
			if (!(blk->floats[f].flags & 0x10))
				blk->floats[f].spline_lanes = 0;
		}
	}
}

/* The fast path under test (SSE2, then AVX2: each test runs for both). */
static int g_fast = HKS_SAMPLE_PATH_SSE2;

static void opts_for(hks_sample_options *o, int path, int normalize)
{
	memset(o, 0, sizeof(*o));
	o->path = path;
	o->normalize_rotations = normalize;
}

static void compare_frames(const hks_stored_animation *s, uint32_t first, uint32_t count, int normalize)
{
	size_t T = (size_t)s->num_transform_tracks, F = (size_t)s->num_float_tracks;
	size_t nt = count * T * 10, nf = count * F;
	float *ta = calloc(nt + 1, sizeof(float)), *tb = calloc(nt + 1, sizeof(float));
	float *fa = calloc(nf + 1, sizeof(float)), *fb = calloc(nf + 1, sizeof(float));
	assert_true(ta && tb && fa && fb);
	hks_sample_options ref, fast;
	opts_for(&ref, HKS_SAMPLE_PATH_REFERENCE, normalize);
	opts_for(&fast, g_fast, normalize);
	hks_error e1, e2;
	hks_result r1 = hks_sample_frames(s, &ref, first, count, ta, fa, &e1);
	hks_result r2 = hks_sample_frames(s, &fast, first, count, tb, fb, &e2);
	assert_int_equal(r1, HKS_OK);
	assert_int_equal(r2, HKS_OK);
	assert_memory_equal(ta, tb, (nt + 1) * sizeof(float));
	assert_memory_equal(fa, fb, (nf + 1) * sizeof(float));
	free(ta);
	free(tb);
	free(fa);
	free(fb);
}

static void compare_time(const hks_stored_animation *s, float t, hks_pose_sampler *ps)
{
	size_t T = (size_t)s->num_transform_tracks, F = (size_t)s->num_float_tracks;
	float ta[64 * 10 + 1], tb[64 * 10 + 1], tc[64 * 10 + 1], fa[8 + 1], fb[8 + 1], fc[8 + 1];
	assert_true(T <= 64 && F <= 8);
	memset(ta, 0, sizeof(ta));
	memset(tb, 0, sizeof(tb));
	memset(tc, 0, sizeof(tc));
	memset(fa, 0, sizeof(fa));
	memset(fb, 0, sizeof(fb));
	memset(fc, 0, sizeof(fc));
	hks_sample_options ref, fast;
	opts_for(&ref, HKS_SAMPLE_PATH_REFERENCE, 0);
	opts_for(&fast, g_fast, 0);
	hks_error err;
	assert_int_equal(hks_sample_time(s, t, &ref, ta, fa, &err), HKS_OK);
	assert_int_equal(hks_sample_time(s, t, &fast, tb, fb, &err), HKS_OK);
	assert_int_equal(hks_pose_at(ps, t, tc, fc, &err), HKS_OK);
	assert_memory_equal(ta, tb, (T * 10 + 1) * sizeof(float));
	assert_memory_equal(fa, fb, (F + 1) * sizeof(float));
	assert_memory_equal(ta, tc, (T * 10 + 1) * sizeof(float));
	assert_memory_equal(fa, fc, (F + 1) * sizeof(float));
}

static void test_paths_resolve(void **state)
{
	(void)state;
	assert_int_equal(hks_sample_path_resolve(HKS_SAMPLE_PATH_REFERENCE), HKS_SAMPLE_PATH_REFERENCE);
#if defined(__SSE2__)
	assert_int_equal(hks_sample_path_resolve(HKS_SAMPLE_PATH_SSE2), HKS_SAMPLE_PATH_SSE2);
#else
	assert_int_equal(hks_sample_path_resolve(HKS_SAMPLE_PATH_SSE2), HKS_SAMPLE_PATH_REFERENCE);
#endif
	assert_string_equal(hks_sample_path_name(HKS_SAMPLE_PATH_REFERENCE), "reference");
	assert_string_equal(hks_sample_path_name(HKS_SAMPLE_PATH_SSE2), "sse2");
	assert_string_equal(hks_sample_path_name(HKS_SAMPLE_PATH_AVX2), "avx2");
	/* AVX2 where the build and the CPU have it, else SSE2 (else the reference) */
	int avx2 = hks_sample_path_resolve(HKS_SAMPLE_PATH_AVX2);
#if defined(__SSE2__)
	assert_true(avx2 == HKS_SAMPLE_PATH_AVX2 || avx2 == HKS_SAMPLE_PATH_SSE2);
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
	__builtin_cpu_init();
	assert_int_equal(avx2 == HKS_SAMPLE_PATH_AVX2, __builtin_cpu_supports("avx2") ? 1 : 0);
#endif
#else
	assert_int_equal(avx2, HKS_SAMPLE_PATH_REFERENCE);
#endif
	printf("fast paths: sse2 -> %s, avx2 -> %s\n", hks_sample_path_name(hks_sample_path_resolve(HKS_SAMPLE_PATH_SSE2)),
	       hks_sample_path_name(avx2));
}

static void test_random_clips_same_bits(void **state)
{
	(void)state;
	static const int shapes[][4] = {
		/* frames, mfpb, T, F */
		{2, 2, 1, 0},    {3, 256, 2, 1},   {5, 4, 3, 0},    {37, 256, 7, 2}, {101, 32, 9, 1},
		{256, 256, 12, 0}, {257, 256, 5, 3}, {300, 100, 11, 2}, {461, 256, 20, 0}, {77, 16, 6, 1},
	};
	for (unsigned round = 0; round < 12; round++)
		for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
			gen g;
			memset(&g, 0, sizeof(g));
			gen_clip(&g, shapes[k][0], shapes[k][1], shapes[k][2], shapes[k][3]);
			const hks_stored_animation *s = &g.a;
			uint32_t frames = (uint32_t)s->num_frames;
			compare_frames(s, 0, frames, 0);
			compare_frames(s, 0, frames, 1);
			/* sub-ranges that start and end inside blocks */
			uint32_t a0 = rnd() % frames, n0 = 1 + rnd() % (frames - a0);
			compare_frames(s, a0, n0, 0);
			/* every local frame of block 0 through the block API */
			size_t T = (size_t)s->num_transform_tracks, F = (size_t)s->num_float_tracks;
			float ta[20 * 10 + 1], tb[20 * 10 + 1], fa[3 + 1], fb[3 + 1];
			hks_sample_options ref, fast;
			opts_for(&ref, HKS_SAMPLE_PATH_REFERENCE, 0);
			opts_for(&fast, g_fast, 0);
			hks_error err;
			for (uint32_t f = 0; f < s->blocks[0].num_frames; f++) {
				memset(ta, 0, sizeof(ta));
				memset(tb, 0, sizeof(tb));
				memset(fa, 0, sizeof(fa));
				memset(fb, 0, sizeof(fb));
				assert_int_equal(hks_sample_block_frame(s, 0, f, &ref, ta, fa, &err), HKS_OK);
				assert_int_equal(hks_sample_block_frame(s, 0, f, &fast, tb, fb, &err), HKS_OK);
				assert_memory_equal(ta, tb, (T * 10 + 1) * sizeof(float));
				assert_memory_equal(fa, fb, (F + 1) * sizeof(float));
			}
			/* time mode: ends, frame times, between frames, outside */
			hks_pose_sampler *ps = NULL;
			assert_int_equal(hks_pose_sampler_create(s, NULL, &ps, &err), HKS_OK);
			float d = s->duration;
			compare_time(s, 0.0f, ps);
			compare_time(s, d, ps);
			compare_time(s, -1.0f, ps);
			compare_time(s, d * 2.0f, ps);
			compare_time(s, nanf(""), ps);
			for (unsigned i = 0; i < 24; i++)
				compare_time(s, d * (float)(rnd() % 10001) / 10000.0f, ps);
			for (uint32_t f = 0; f < frames; f += 1 + frames / 16)
				compare_time(s, (float)f * s->frame_duration, ps);
			hks_pose_sampler_free(ps);
			gen_free(&g);
		}
}

/* Degree 1 with spans from 1 frame to longer than the fast path's table
 * (DEG1_LEN = 32), and past the last knot (an end knot below F_b − 1). */
static void test_degree1_span_lengths(void **state)
{
	(void)state;
	static const uint8_t spans[][8] = {
		{0, 0, 1, 2, 3, 4, 5, 5},          /* every span one frame */
		{0, 0, 33, 34, 70, 200, 255, 255}, /* long spans */
		{0, 0, 31, 63, 96, 128, 140, 140}, /* ends at 140 < 255: frames past the last knot */
	};
	for (size_t k = 0; k < sizeof(spans) / sizeof(spans[0]); k++) {
		gen g;
		memset(&g, 0, sizeof(g));
		gen_clip(&g, 256, 256, 1, 0);
		hks_stored_part *sp = &g.blocks[0].tracks[0].part[1];
		uint8_t *packed = (uint8_t *)gen_alloc(&g, 6 * 5);
		for (unsigned i = 0; i < 30; i++)
			packed[i] = (uint8_t)rnd();
		for (unsigned i = 0; i < 6; i++)
			packed[i * 5 + 1] &= 0x7F;
		uint8_t *U = (uint8_t *)gen_alloc(&g, 8);
		memcpy(U, spans[k], 8);
		sp->flags = 0xF0;
		sp->quantization = HKS_ROT_THREECOMP40;
		sp->degree = 1;
		sp->is_spline = 1;
		sp->num_control_points = 6;
		sp->num_knots = 8;
		sp->knots = U;
		sp->packed = packed;
		compare_frames(&g.a, 0, 256, 0);
		compare_frames(&g.a, 3, 250, 0);
		gen_free(&g);
	}
}

/* The pose sampler reports a spline that cannot be evaluated at creation. */
static void test_pose_sampler_rejects(void **state)
{
	(void)state;
	gen g;
	memset(&g, 0, sizeof(g));
	gen_clip(&g, 40, 256, 2, 0);
	hks_stored_part *sp = &g.blocks[0].tracks[1].part[1];
	uint8_t *packed = (uint8_t *)gen_alloc(&g, 4 * 5);
	uint8_t *U = (uint8_t *)gen_alloc(&g, 6);
	static const uint8_t bad[6] = {0, 0, 20, 10, 39, 39}; /* decreasing */
	memcpy(U, bad, 6);
	sp->flags = 0xF0;
	sp->quantization = HKS_ROT_THREECOMP40;
	sp->degree = 1;
	sp->is_spline = 1;
	sp->num_control_points = 4;
	sp->num_knots = 6;
	sp->knots = U;
	sp->packed = packed;
	hks_pose_sampler *ps = (hks_pose_sampler *)&g; /* must be reset to NULL */
	hks_error err;
	assert_int_equal(hks_pose_sampler_create(&g.a, NULL, &ps, &err), HKS_E_MALFORMED);
	assert_null(ps);
	assert_int_equal(err.track, 1);
	assert_int_equal(err.block, 0);
	hks_pose_sampler_free(NULL);
	gen_free(&g);
}

/* The same comparisons with the AVX2 path (the SSE2 path where the CPU has
 * no AVX2). */
static void test_random_clips_same_bits_avx2(void **state)
{
	g_fast = HKS_SAMPLE_PATH_AVX2;
	test_random_clips_same_bits(state);
	g_fast = HKS_SAMPLE_PATH_SSE2;
}

static void test_degree1_span_lengths_avx2(void **state)
{
	g_fast = HKS_SAMPLE_PATH_AVX2;
	test_degree1_span_lengths(state);
	g_fast = HKS_SAMPLE_PATH_SSE2;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths_resolve),
		cmocka_unit_test(test_random_clips_same_bits),
		cmocka_unit_test(test_degree1_span_lengths),
		cmocka_unit_test(test_random_clips_same_bits_avx2),
		cmocka_unit_test(test_degree1_span_lengths_avx2),
		cmocka_unit_test(test_pose_sampler_rejects),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
