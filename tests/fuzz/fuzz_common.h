/*
 * Helpers shared by the fuzz targets: the limits every target runs under
 * (small enough that the fuzzer's 2 GiB RSS limit is never the first failure,
 * large enough for every seed), and the spline walk + sampling every target
 * that ends with a spline applies to it.
 */
#ifndef HKS_FUZZ_COMMON_H
#define HKS_FUZZ_COMMON_H

#include "hkspline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_MEMORY (256u << 20)
#define FUZZ_MAX_OUTPUT (64u << 20)
/* Sampling every frame costs frames x tracks; above this many track-samples
 * only the first and last frames and the times are sampled. */
#define FUZZ_MAX_SAMPLES (1u << 20)

static inline void fuzz_options(hks_options *o)
{
	memset(o, 0, sizeof(*o));
	o->limits.max_memory = FUZZ_MAX_MEMORY;
	o->limits.max_output_bytes = FUZZ_MAX_OUTPUT;
}

/* Abort (a crash the fuzzer reports) when a documented contract fails. */
#define FUZZ_CHECK(cond)                                                                                       \
	do {                                                                                                       \
		if (!(cond)) {                                                                                         \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                         \
			__builtin_trap();                                                                                  \
		}                                                                                                      \
	} while (0)

/* Sample every frame of a walked animation (bounded), then a few times
 * including the clamps (negative, past the end, NaN, infinity). Errors are
 * fine (a part the sampler rejects); crashes are not. */
static inline void fuzz_sample_all(const hks_stored_animation *s)
{
	hks_sample_options so;
	memset(&so, 0, sizeof(so));
	fuzz_options(&so.base);
	uint64_t T = s->num_transform_tracks > 0 ? (uint64_t)s->num_transform_tracks : 0;
	uint64_t F = s->num_float_tracks > 0 ? (uint64_t)s->num_float_tracks : 0;
	uint64_t frames = s->num_frames > 0 ? (uint64_t)s->num_frames : 0;
	float *tr = (float *)malloc((size_t)(T * HKS_TRACK_SAMPLE_FLOATS + 1) * sizeof(float));
	float *fl = (float *)malloc((size_t)(F + 1) * sizeof(float));
	if (!tr || !fl)
		goto done;
	hks_error err;
	uint64_t step = frames * (T + F) > FUZZ_MAX_SAMPLES && frames > 1 ? frames - 1 : 1;
	for (uint64_t f = 0; f < frames; f += step) {
		if (hks_sample_frames(s, &so, (uint32_t)f, 1, tr, F ? fl : NULL, &err) != HKS_OK)
			break;
		so.normalize_rotations = (int)(f & 1);
	}
	const float times[] = {0.0f, s->duration * 0.5f, s->duration, s->duration * 0.999f, -1.0f,
	                       s->duration + 1.0f, __builtin_nanf(""), __builtin_inff(), 1e30f};
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++)
		(void)hks_sample_time(s, times[i], &so, tr, F ? fl : NULL, &err);
	if (s->num_blocks > 0)
		(void)hks_sample_block_frame(s, s->num_blocks - 1, 0, &so, tr, F ? fl : NULL, &err);
done:
	free(tr);
	free(fl);
}

/* Walk every spline animation of a parsed file and sample it. */
static inline void fuzz_walk_file(const hks_file *file)
{
	for (uint32_t i = 0; i < file->num_animations; i++) {
		if (file->animations[i].kind != HKS_ANIMATION_SPLINE)
			continue;
		hks_walk_options wo;
		memset(&wo, 0, sizeof(wo));
		fuzz_options(&wo.base);
		wo.animation_index = (int32_t)i;
		hks_stored_animation *s = NULL;
		hks_error err;
		if (hks_stored_read(&file->animations[i], &wo, &s, &err) == HKS_OK) {
			fuzz_sample_all(s);
			hks_stored_free(s);
		} else {
			FUZZ_CHECK(s == NULL && err.code != HKS_OK);
		}
	}
}

#endif
