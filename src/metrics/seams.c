/*
 * Block-seam disagreement (FORMAT.md §4.7): a block's last local frame and
 * the next block's local frame 0 are the same global frame, stored twice.
 * Their difference measures how well the two independent fits agree; it is a
 * diagnostic, never a correction.
 */
#include "metrics.h"

#include <math.h>

static void keep_max(double *m, double v)
{
	if (isfinite(v) && v > *m)
		*m = v;
}

hks_result hks_seam_disagreement(const hks_stored_animation *s, const hks_options *opts, hks_seam_report *out,
                                 hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, opts, 0, err);
	if (!s || !out)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "no stored animation or report");
	memset(out, 0, sizeof(*out));
	out->worst_seam = out->worst_track = -1;
	if (s->num_blocks < 2)
		return HKS_OK;
	uint32_t T = s->num_transform_tracks > 0 ? (uint32_t)s->num_transform_tracks : 0;
	uint32_t F = s->num_float_tracks > 0 ? (uint32_t)s->num_float_tracks : 0;
	size_t row = (size_t)T * HKS_TRACK_SAMPLE_FLOATS + F + 1;
	size_t bytes = 4 * row * sizeof(float);
	float *buf = (float *)hks_malloc(&ctx, bytes);
	if (!buf)
		return hks_fail_nomem(&ctx, bytes);
	float *ta = buf, *fa = buf + row, *tb = buf + 2 * row, *fb = buf + 3 * row;
	hks_sample_options so;
	memset(&so, 0, sizeof(so));
	if (opts)
		so.base = *opts;
	hks_result r = HKS_OK;
	double worst = -1;
	out->seams = s->num_blocks - 1;
	for (uint32_t b = 0; b + 1 < s->num_blocks && r == HKS_OK; b++) {
		uint32_t last = s->blocks[b].num_frames ? s->blocks[b].num_frames - 1 : 0;
		r = hks_sample_block_frame(s, b, last, &so, ta, F ? fa : NULL, err);
		if (r == HKS_OK)
			r = hks_sample_block_frame(s, b + 1, 0, &so, tb, F ? fb : NULL, err);
		if (r != HKS_OK)
			break;
		for (uint32_t t = 0; t < T; t++) {
			double m[HKS_METRIC_COUNT];
			hks_local_metrics(ta + (size_t)t * HKS_TRACK_SAMPLE_FLOATS, tb + (size_t)t * HKS_TRACK_SAMPLE_FLOATS,
			                  HKS_DEFAULT_SHELL_DISTANCE, m);
			if (!isfinite(m[HKS_METRIC_TRANSLATION])) {
				out->nan_samples++;
				continue;
			}
			keep_max(&out->max_translation, m[HKS_METRIC_TRANSLATION]);
			keep_max(&out->max_rotation_deg, m[HKS_METRIC_ROTATION_DEG]);
			keep_max(&out->max_rotation_component, m[HKS_METRIC_ROTATION_COMPONENT]);
			keep_max(&out->max_scale, m[HKS_METRIC_SCALE]);
			if (isfinite(m[HKS_METRIC_LOCAL_VERTEX]) && m[HKS_METRIC_LOCAL_VERTEX] > worst) {
				worst = m[HKS_METRIC_LOCAL_VERTEX];
				out->worst_seam = (int32_t)b;
				out->worst_track = (int32_t)t;
			}
		}
		for (uint32_t i = 0; i < F; i++) {
			if (!isfinite(fa[i]) || !isfinite(fb[i])) {
				out->nan_samples++;
				continue;
			}
			keep_max(&out->max_float, fabs((double)fa[i] - (double)fb[i]));
		}
	}
	hks_free(&ctx, buf, bytes);
	return r;
}
