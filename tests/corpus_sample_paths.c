/*
 * Corpus: the SSE2 and AVX2 fast paths of the sampler give the bits of the portable
 * scalar reference on the real data (issue 16), in frame mode (every frame of
 * every track) and in time mode (hks_sample_time on both paths and the
 * runtime pose sampler hks_pose_at, at the ends, at frame times and between
 * frames).
 *
 * By default every HKSPLINE_PATHS_STRIDE-th file of the corpus (default 4;
 * a quarter of the files, under a minute), time mode at 24 times per
 * animation. HKSPLINE_PATHS_STRIDE=1 checks every file, HKSPLINE_PATHS_TIMES
 * sets the number of times.
 */
#define _POSIX_C_SOURCE 200809L
#include "hks_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long env_ulong(const char *name, unsigned long def)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return def;
	char *end = NULL;
	unsigned long x = strtoul(v, &end, 10);
	return (end && !*end && x > 0) ? x : def;
}

static uint64_t g_anims, g_track_samples, g_times, g_mismatch_frames, g_mismatch_times;

static void check_animation(const char *path, uint32_t index, const hks_stored_animation *s, unsigned times)
{
	size_t T = (size_t)s->num_transform_tracks, F = (size_t)s->num_float_tracks, n = (size_t)s->num_frames;
	size_t count = n * (T * 10 + F);
	float *a = malloc((count + 1) * sizeof(float)), *b = malloc((count + 1) * sizeof(float));
	assert_true(a && b);
	memset(a, 0, (count + 1) * sizeof(float));
	memset(b, 0, (count + 1) * sizeof(float));
	hks_sample_options ref, fast;
	memset(&ref, 0, sizeof(ref));
	memset(&fast, 0, sizeof(fast));
	ref.path = HKS_SAMPLE_PATH_REFERENCE;
	hks_error err;
	assert_int_equal(hks_sample_frames(s, &ref, 0, (uint32_t)n, a, a + n * T * 10, &err), HKS_OK);
	static const int fast_paths[2] = {HKS_SAMPLE_PATH_AVX2, HKS_SAMPLE_PATH_SSE2};
	for (unsigned k = 0; k < 2; k++) {
		/* the AVX2 path first, so that b is the SSE2 path's below */
		fast.path = fast_paths[k];
		memset(b, 0, (count + 1) * sizeof(float));
		assert_int_equal(hks_sample_frames(s, &fast, 0, (uint32_t)n, b, b + n * T * 10, &err), HKS_OK);
		if (memcmp(a, b, (count + 1) * sizeof(float)) != 0) {
			printf("MISMATCH frame mode (%s): %s animation %u\n", hks_sample_path_name(fast.path), path, index);
			g_mismatch_frames++;
		}
	}
	g_anims++;
	g_track_samples += n * T;
	/* time mode */
	hks_pose_sampler *ps = NULL;
	assert_int_equal(hks_pose_sampler_create(s, NULL, &ps, &err), HKS_OK);
	float *ta = a, *tb = b, *tc = b + T * 10 + F + 1; /* count + 1 >= 2·(T·10 + F) + 1 for n >= 2 */
	for (unsigned k = 0; k <= times + 1; k++) {
		float t;
		if (k == 0)
			t = 0.0f;
		else if (k == 1)
			t = s->duration;
		else if (k % 2)
			t = (float)((k * 7919u) % (unsigned)n) * s->frame_duration; /* a frame time */
		else
			t = s->duration * (float)((k * 104729u) % 10007u) / 10007.0f;
		size_t m = T * 10 + F;
		memset(ta, 0, m * sizeof(float));
		memset(tb, 0, m * sizeof(float));
		memset(tc, 0, m * sizeof(float));
		assert_int_equal(hks_sample_time(s, t, &ref, ta, F ? ta + T * 10 : NULL, &err), HKS_OK);
		assert_int_equal(hks_sample_time(s, t, &fast, tb, F ? tb + T * 10 : NULL, &err), HKS_OK);
		assert_int_equal(hks_pose_at(ps, t, tc, F ? tc + T * 10 : NULL, &err), HKS_OK);
		if (memcmp(ta, tb, m * sizeof(float)) != 0 || memcmp(ta, tc, m * sizeof(float)) != 0) {
			if (g_mismatch_times < 10)
				printf("MISMATCH time mode: %s animation %u t=%.9g\n", path, index, (double)t);
			g_mismatch_times++;
		}
		g_times++;
	}
	hks_pose_sampler_free(ps);
	free(a);
	free(b);
}

static void test_paths_agree_on_corpus(void **state)
{
	(void)state;
	const char *corpus = hks_test_corpus();
	unsigned long stride = env_ulong("HKSPLINE_PATHS_STRIDE", 4);
	unsigned times = (unsigned)env_ulong("HKSPLINE_PATHS_TIMES", 24);
	hks_load_options lo = {0};
	const char *comps[1] = {corpus};
	lo.compendium_paths = comps;
	lo.num_compendium_paths = 1;
	hks_loader *loader = NULL;
	hks_error err;
	assert_int_equal(hks_loader_create(&lo, &loader, &err), HKS_OK);
	assert_int_equal(hks_loader_add_path(loader, corpus, &err), HKS_OK);
	size_t n = hks_loader_count(loader);
	for (size_t u = 0; u < n; u += stride) {
		hks_loaded *ld = NULL;
		if (hks_loader_load(loader, u, &ld) != HKS_OK || !ld || ld->status != HKS_OK) {
			hks_loaded_free(ld);
			continue;
		}
		for (uint32_t i = 0; i < ld->file->num_animations; i++) {
			const hks_animation *an = &ld->file->animations[i];
			if (an->kind != HKS_ANIMATION_SPLINE)
				continue;
			hks_walk_options wo = {0};
			wo.animation_index = (int32_t)i;
			hks_stored_animation *s = NULL;
			if (hks_stored_read(an, &wo, &s, &err) != HKS_OK)
				continue; /* rejected by the walk: corpus_sample reports these */
			check_animation(ld->path, i, s, times);
			hks_stored_free(s);
		}
		hks_loaded_free(ld);
	}
	hks_loader_free(loader);
	printf("sample paths (%s and %s vs reference; frame mode both; time mode SSE2 and the pose sampler's default path), every %lu-th file: %llu "
	       "animations, %llu track-samples in frame mode, %llu times; mismatches: %llu animations (frame mode), %llu "
	       "times\n",
	       hks_sample_path_name(hks_sample_path_resolve(HKS_SAMPLE_PATH_SSE2)),
	       hks_sample_path_name(hks_sample_path_resolve(HKS_SAMPLE_PATH_AVX2)), stride, (unsigned long long)g_anims,
	       (unsigned long long)g_track_samples, (unsigned long long)g_times, (unsigned long long)g_mismatch_frames,
	       (unsigned long long)g_mismatch_times);
	assert_true(g_anims > 0);
	assert_int_equal(g_mismatch_frames, 0);
	assert_int_equal(g_mismatch_times, 0);
}

int main(void)
{
	if (!hks_test_require_corpus("corpus_sample_paths"))
		return 77;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths_agree_on_corpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
