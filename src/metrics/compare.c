/*
 * Comparing two frame arrays: local metrics per track-sample, ACL's
 * object-space virtual-vertex error per bone, and the per-clip statistics
 * (docs/METRICS.md). Non-finite samples are excluded from every statistic
 * and counted.
 */
#include "metrics.h"

#include <math.h>
#include <stdlib.h>

const char *hks_metric_name(hks_metric m)
{
	static const char *const names[HKS_METRIC_COUNT] = {"translation", "rotation_deg", "rotation_component",
	                                                     "scale", "local_vertex", "object_space", "float"};
	return (unsigned)m < HKS_METRIC_COUNT ? names[m] : "?";
}

int hks_glob_match(const char *p, const char *s)
{
	/* iterative matcher with one backtrack point: linear in practice, never recursive */
	const char *star = NULL, *resume = NULL;
	if (!p || !s)
		return 0;
	while (*s) {
		if (*p == '*') {
			star = p++;
			resume = s;
		} else if (*p == '?' || *p == *s) {
			p++;
			s++;
		} else if (star) {
			p = star + 1;
			s = ++resume;
		} else
			return 0;
	}
	while (*p == '*')
		p++;
	return *p == 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double hks_percentile(double *v, size_t n, double p)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i])) {
			double t = v[m];
			v[m++] = v[i];
			v[i] = t;
		}
	if (m == 0)
		return 0.0;
	qsort(v, m, sizeof(double), cmp_double);
	if (!(p > 0))
		return v[0];
	if (p >= 100)
		return v[m - 1];
	double r = ceil(p / 100.0 * (double)m);
	size_t rank = r < 1 ? 1 : (size_t)r;
	if (rank > m)
		rank = m;
	return v[rank - 1];
}

/* Max, mean, p99, threshold share of a frames × width matrix (frame-major). */
static hks_result summarize(hks_ctx *ctx, const double *v, uint32_t frames, uint32_t width, double threshold,
                            hks_metric_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->worst_index = s->worst_frame = -1;
	size_t n = (size_t)frames * width;
	if (n == 0)
		return HKS_OK;
	double sum = 0;
	for (size_t i = 0; i < n; i++) {
		double x = v[i];
		if (!isfinite(x)) {
			s->nan_samples++;
			continue;
		}
		if (s->samples == 0 || x > s->max) {
			s->max = x;
			s->worst_frame = (int32_t)(i / width);
			s->worst_index = (int32_t)(i % width);
		}
		s->samples++;
		sum += x;
		if (x <= threshold)
			s->under_threshold++;
	}
	if (s->samples == 0)
		return HKS_OK;
	s->mean = sum / (double)s->samples;
	double *tmp = (double *)hks_malloc(ctx, n * sizeof(double));
	if (!tmp)
		return hks_fail_nomem(ctx, n * sizeof(double));
	memcpy(tmp, v, n * sizeof(double));
	s->p99 = hks_percentile(tmp, n, 99.0);
	hks_free(ctx, tmp, n * sizeof(double));
	return HKS_OK;
}

static double *alloc_matrix(hks_arena *arena, uint32_t frames, uint32_t width)
{
	size_t n;
	if (!hks_mul_size(frames, width, &n))
		return NULL;
	return (double *)hks_arena_array(arena, n ? n : 1, sizeof(double));
}

/* Bones in an order where every parent precedes its children; a parent index
 * out of range, or a cycle, is an error (hostile skeletons). */
static hks_result bone_order(hks_ctx *ctx, hks_arena *arena, const hks_skeleton *sk, int32_t **order_out,
                             int32_t **parent_out)
{
	uint32_t nb = sk->num_bones;
	int32_t *parent = (int32_t *)hks_arena_array(arena, nb + 1, sizeof(int32_t));
	int32_t *depth = (int32_t *)hks_arena_array(arena, nb + 1, sizeof(int32_t));
	int32_t *order = (int32_t *)hks_arena_array(arena, nb + 1, sizeof(int32_t));
	if (!parent || !depth || !order)
		return HKS_E_NOMEM;
	for (uint32_t i = 0; i < nb; i++) {
		int32_t p = i < sk->num_parent_indices && sk->parent_indices ? sk->parent_indices[i] : -1;
		if (p < -1 || p >= (int32_t)nb || p == (int32_t)i) {
			hks_err_object(ctx, "skeleton %s", sk->name ? sk->name : "?");
			hks_err_member(ctx, "parentIndices");
			return hks_fail(ctx, HKS_E_MALFORMED, -1, "bone %u has parent index %d (%u bones)", i, (int)p, nb);
		}
		parent[i] = p;
	}
	for (uint32_t i = 0; i < nb; i++) {
		int32_t d = 0;
		for (int32_t b = parent[i]; b >= 0; b = parent[b])
			if (++d > (int32_t)nb) {
				hks_err_object(ctx, "skeleton %s", sk->name ? sk->name : "?");
				hks_err_member(ctx, "parentIndices");
				return hks_fail(ctx, HKS_E_MALFORMED, -1, "bone %u: the parent chain has a cycle", i);
			}
		depth[i] = d;
	}
	/* counting sort by depth keeps the bone order within a level */
	uint32_t at = 0;
	for (int32_t d = 0; at < nb; d++)
		for (uint32_t i = 0; i < nb; i++)
			if (depth[i] == d)
				order[at++] = (int32_t)i;
	*order_out = order;
	*parent_out = parent;
	return HKS_OK;
}

static hks_result check_frames(hks_ctx *ctx, const hks_frames_in *x, const char *which)
{
	if (x->num_frames > ctx->limits.max_frames)
		return hks_fail(ctx, HKS_E_LIMIT, -1, "%s: %u frames exceed the limit %u", which, x->num_frames,
		                ctx->limits.max_frames);
	if ((uint64_t)x->num_transform_tracks + x->num_float_tracks > ctx->limits.max_tracks)
		return hks_fail(ctx, HKS_E_LIMIT, -1, "%s: %u tracks exceed the limit %u", which,
		                x->num_transform_tracks + x->num_float_tracks, ctx->limits.max_tracks);
	if (x->num_frames && ((x->num_transform_tracks && !x->transforms) || (x->num_float_tracks && !x->floats)))
		return hks_fail(ctx, HKS_E_ARGUMENT, -1, "%s: frame arrays missing", which);
	return HKS_OK;
}

static hks_result compare(hks_ctx *ctx, const hks_frames_in *a, const hks_frames_in *b, const hks_compare_options *o,
                          hks_compare_result *r)
{
	HKS_TRY(check_frames(ctx, a, "A"));
	HKS_TRY(check_frames(ctx, b, "B"));
	if (a->num_frames != b->num_frames || a->num_transform_tracks != b->num_transform_tracks ||
	    a->num_float_tracks != b->num_float_tracks)
		return hks_fail(ctx, HKS_E_MISMATCH, -1,
		                "A has %u frames, %u transform and %u float tracks; B has %u, %u and %u", a->num_frames,
		                a->num_transform_tracks, a->num_float_tracks, b->num_frames, b->num_transform_tracks,
		                b->num_float_tracks);
	const uint32_t N = a->num_frames, T = a->num_transform_tracks, F = a->num_float_tracks;
	const hks_skeleton *sk = o ? o->skeleton : NULL;
	double shell = o && o->shell_distance > 0 ? o->shell_distance : HKS_DEFAULT_SHELL_DISTANCE;
	double threshold = o && o->threshold > 0 ? o->threshold : HKS_DEFAULT_ERROR_THRESHOLD;
	if (sk && sk->num_bones > ctx->limits.max_tracks)
		return hks_fail(ctx, HKS_E_LIMIT, -1, "skeleton has %u bones (limit %u)", sk->num_bones,
		                ctx->limits.max_tracks);
	r->num_frames = N;
	r->num_transform_tracks = T;
	r->num_float_tracks = F;
	r->num_bones = sk ? sk->num_bones : 0;
	r->has_object_space = sk != NULL;
	r->primary = sk ? HKS_METRIC_OBJECT_SPACE : HKS_METRIC_LOCAL_VERTEX;
	uint32_t NB = r->num_bones;

	/* the track → bone map (FORMAT.md §4.8): identity when the binding has no array */
	int32_t *track_bone = (int32_t *)hks_arena_array(r->arena, T + 1, sizeof(int32_t));
	int32_t *bone_track = (int32_t *)hks_arena_array(r->arena, NB + 1, sizeof(int32_t));
	double *bone_shell = (double *)hks_arena_array(r->arena, NB + 1, sizeof(double));
	if (!track_bone || !bone_track || !bone_shell)
		return HKS_E_NOMEM;
	for (uint32_t bn = 0; bn < NB; bn++) {
		bone_track[bn] = -1;
		bone_shell[bn] = shell;
		const char *name = sk->bone_names ? sk->bone_names[bn] : NULL;
		for (uint32_t k = 0; name && o && k < o->num_shell_overrides; k++)
			if (hks_glob_match(o->shell_overrides[k].pattern, name) && o->shell_overrides[k].distance > 0)
				bone_shell[bn] = o->shell_overrides[k].distance;
	}
	for (uint32_t t = 0; t < T; t++) {
		int32_t bone = (int32_t)t;
		if (o && o->track_to_bone && o->num_track_to_bone)
			bone = t < o->num_track_to_bone ? o->track_to_bone[t] : -1;
		if (bone < 0 || (sk && (uint32_t)bone >= NB))
			bone = -1;
		track_bone[t] = bone;
		if (sk && bone >= 0 && bone_track[bone] < 0)
			bone_track[bone] = (int32_t)t; /* two tracks on one bone: the first drives it */
	}
	r->track_bone = track_bone;
	r->bone_track = bone_track;
	r->bone_shell = bone_shell;

	/* local metrics */
	double *local[HKS_METRIC_COUNT] = {0};
	static const hks_metric local_kinds[5] = {HKS_METRIC_TRANSLATION, HKS_METRIC_ROTATION_DEG,
	                                          HKS_METRIC_ROTATION_COMPONENT, HKS_METRIC_SCALE,
	                                          HKS_METRIC_LOCAL_VERTEX};
	for (int k = 0; k < 5; k++)
		if (!(local[local_kinds[k]] = alloc_matrix(r->arena, N, T)))
			return hks_fail_nomem(ctx, (size_t)N * T * sizeof(double));
	double *fl = alloc_matrix(r->arena, N, F);
	if (!fl)
		return hks_fail_nomem(ctx, (size_t)N * F * sizeof(double));
	for (uint32_t f = 0; f < N; f++)
		for (uint32_t t = 0; t < T; t++) {
			size_t at = (size_t)f * T + t;
			const float *sa = a->transforms + at * HKS_TRACK_SAMPLE_FLOATS;
			const float *sb = b->transforms + at * HKS_TRACK_SAMPLE_FLOATS;
			double m[HKS_METRIC_COUNT];
			int32_t bone = track_bone[t];
			hks_local_metrics(sa, sb, sk && bone >= 0 ? bone_shell[bone] : shell, m);
			if (!isfinite(m[HKS_METRIC_TRANSLATION]))
				r->nan_samples++;
			for (int k = 0; k < 5; k++)
				local[local_kinds[k]][at] = m[local_kinds[k]];
		}
	for (size_t i = 0; i < (size_t)N * F; i++) {
		float x = a->floats[i], y = b->floats[i];
		if (isfinite(x) && isfinite(y))
			fl[i] = fabs((double)x - (double)y);
		else {
			fl[i] = NAN;
			r->nan_samples++;
		}
	}
	for (int k = 0; k < 5; k++)
		r->values[local_kinds[k]] = local[local_kinds[k]];
	r->values[HKS_METRIC_FLOAT] = fl;

	/* object space: compose every bone of the skeleton for A and B */
	if (sk) {
		int32_t *order = NULL, *parent = NULL;
		HKS_TRY(bone_order(ctx, r->arena, sk, &order, &parent));
		double *obj = alloc_matrix(r->arena, N, NB);
		hks_xform_d *pose_a = (hks_xform_d *)hks_arena_array(r->arena, NB + 1, sizeof(hks_xform_d));
		hks_xform_d *pose_b = (hks_xform_d *)hks_arena_array(r->arena, NB + 1, sizeof(hks_xform_d));
		hks_xform_d *ref = (hks_xform_d *)hks_arena_array(r->arena, NB + 1, sizeof(hks_xform_d));
		uint8_t *ok_a = (uint8_t *)hks_arena_array(r->arena, NB + 1, 1);
		uint8_t *ok_b = (uint8_t *)hks_arena_array(r->arena, NB + 1, 1);
		uint8_t *ref_ok = (uint8_t *)hks_arena_array(r->arena, NB + 1, 1);
		if (!obj || !pose_a || !pose_b || !ref || !ok_a || !ok_b || !ref_ok)
			return hks_fail_nomem(ctx, (size_t)N * NB * sizeof(double));
		static const hks_xform_d identity = {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
		for (uint32_t bn = 0; bn < NB; bn++) {
			/* a bone no track drives stands at its reference pose (identity when the
			 * skeleton has none): it carries its parent's error to its children */
			if (sk->reference_pose && bn < sk->num_reference_pose)
				ref_ok[bn] = hks_xform_from_qs(&sk->reference_pose[bn], &ref[bn]);
			else {
				ref[bn] = identity;
				ref_ok[bn] = 1;
			}
		}
		for (uint32_t f = 0; f < N; f++) {
			for (uint32_t k = 0; k < NB; k++) {
				int32_t bn = order[k], t = bone_track[bn];
				hks_xform_d la, lb;
				bool va, vb;
				if (t >= 0) {
					size_t at = ((size_t)f * T + (size_t)t) * HKS_TRACK_SAMPLE_FLOATS;
					va = hks_xform_from_sample(a->transforms + at, &la);
					vb = hks_xform_from_sample(b->transforms + at, &lb);
				} else {
					la = lb = ref[bn];
					va = vb = ref_ok[bn];
				}
				int32_t p = parent[bn];
				if (p >= 0) {
					va = va && ok_a[p];
					vb = vb && ok_b[p];
					if (va)
						hks_xform_compose(&pose_a[p], &la, &pose_a[bn]);
					if (vb)
						hks_xform_compose(&pose_b[p], &lb, &pose_b[bn]);
				} else {
					pose_a[bn] = la;
					pose_b[bn] = lb;
				}
				ok_a[bn] = va;
				ok_b[bn] = vb;
				double e = va && vb ? hks_vertex_error(&pose_a[bn], &pose_b[bn], bone_shell[bn]) : NAN;
				obj[(size_t)f * NB + (size_t)bn] = e;
			}
		}
		r->values[HKS_METRIC_OBJECT_SPACE] = obj;
		/* summaries need the parent chain for the worst track */
		HKS_TRY(summarize(ctx, obj, N, NB, threshold, &r->metric[HKS_METRIC_OBJECT_SPACE]));
		const hks_metric_summary *s = &r->metric[HKS_METRIC_OBJECT_SPACE];
		r->worst_bone = s->worst_index;
		r->worst_frame = s->worst_frame;
		r->worst_track = -1;
		for (int32_t bn = s->worst_index; bn >= 0 && r->worst_track < 0; bn = parent[bn])
			r->worst_track = bone_track[bn];
	}
	for (int k = 0; k < 5; k++)
		HKS_TRY(summarize(ctx, local[local_kinds[k]], N, T, threshold, &r->metric[local_kinds[k]]));
	HKS_TRY(summarize(ctx, fl, N, F, threshold, &r->metric[HKS_METRIC_FLOAT]));
	if (!sk) {
		const hks_metric_summary *s = &r->metric[HKS_METRIC_LOCAL_VERTEX];
		r->worst_track = s->worst_index;
		r->worst_frame = s->worst_frame;
		r->worst_bone = s->worst_index >= 0 ? track_bone[s->worst_index] : -1;
	}
	r->metric[HKS_METRIC_OBJECT_SPACE].worst_index = sk ? r->metric[HKS_METRIC_OBJECT_SPACE].worst_index : -1;
	const hks_metric_summary *ps = &r->metric[r->primary];
	r->under_threshold = ps->samples ? (double)ps->under_threshold / (double)ps->samples : 1.0;
	return HKS_OK;
}

hks_result hks_compare_frames(const hks_frames_in *a, const hks_frames_in *b, const hks_compare_options *opts,
                              hks_compare_result **out, hks_error *err)
{
	hks_error local;
	if (!err)
		err = &local; /* the code of a failed allocation (limit or no memory) is read back below */
	hks_ctx ctx;
	hks_ctx_init(&ctx, opts ? &opts->base : NULL, 0, err);
	if (!out)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "no output pointer");
	*out = NULL;
	if (!a || !b)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "two frame arrays are needed");
	uint64_t input = ((uint64_t)a->num_frames * a->num_transform_tracks * HKS_TRACK_SAMPLE_FLOATS +
	                  (uint64_t)a->num_frames * a->num_float_tracks) * 4u;
	hks_ctx_init(&ctx, opts ? &opts->base : NULL, input * 8u, err);
	hks_arena *arena = hks_arena_create(&ctx);
	if (!arena) {
		hks_fail_nomem(&ctx, sizeof(hks_compare_result));
		return err->code; /* the limit, or no memory */
	}
	hks_compare_result *r = (hks_compare_result *)hks_arena_alloc(arena, sizeof(*r));
	if (!r) {
		hks_arena_free(arena);
		hks_fail_nomem(&ctx, sizeof(*r));
		return err->code;
	}
	r->arena = arena;
	r->worst_track = r->worst_bone = r->worst_frame = -1;
	hks_result res = compare(&ctx, a, b, opts, r);
	if (res != HKS_OK) {
		if (err->code == HKS_OK)
			hks_fail(&ctx, res, -1, "out of memory comparing frames");
		else if (res == HKS_E_NOMEM)
			res = err->code; /* an arena allocation refused by the memory limit */
		hks_arena_free(arena);
		return res;
	}
	hks_arena_set_ctx(arena, NULL); /* the result outlives this call's context */
	*out = r;
	return HKS_OK;
}

void hks_compare_result_free(hks_compare_result *r)
{
	if (r)
		hks_arena_free(r->arena);
}
