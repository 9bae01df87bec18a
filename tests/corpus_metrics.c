/*
 * Corpus: metrics over every spline animation (docs/METRICS.md).
 *
 *  1. The byte categories of hks_spline_stats_compute, obtained by laying the
 *     walked structure out again (FORMAT.md §2), add up to data_size for
 *     every animation that walks.
 *  2. Every clip compared against itself is exactly 0 in every metric,
 *     object space included when the loader finds a skeleton for it; NaN
 *     samples are counted, never measured.
 *  3. Block seams (FORMAT.md §4.7) through hks_seam_disagreement: every
 *     multi-block clip is measured; float seams agree within 8e-6.
 *  4. The retail compression ratio per game folder is printed (raw = 40
 *     bytes per transform track-frame + 4 per float track-frame, against the
 *     spline data bytes), with the share of each byte category.
 * Binder members are skipped: the corpus holds them as loose files too.
 */
#define _POSIX_C_SOURCE 200809L
#include "hks_test.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GROUPS 32

typedef struct group {
	char name[64];
	uint64_t animations, nan_clips;
	hks_spline_stats sum;
	double min_ratio, max_ratio;
} group;

static group g_groups[MAX_GROUPS];
static size_t g_num_groups;

static group *group_for(const char *rel)
{
	char name[64];
	size_t n = strcspn(rel, "/");
	if (n >= sizeof(name))
		n = sizeof(name) - 1;
	memcpy(name, rel, n);
	name[n] = 0;
	for (size_t i = 0; i < g_num_groups; i++)
		if (!strcmp(g_groups[i].name, name))
			return &g_groups[i];
	if (g_num_groups == MAX_GROUPS)
		return &g_groups[MAX_GROUPS - 1];
	group *g = &g_groups[g_num_groups++];
	memset(g, 0, sizeof(*g));
	memcpy(g->name, name, n + 1);
	g->min_ratio = INFINITY;
	return g;
}

static const hks_skeleton *skeleton_of(const hks_file *f)
{
	return f && f->num_skeletons ? &f->skeletons[0] : NULL;
}

static void test_corpus_metrics(void **state)
{
	(void)state;
	const char *corpus = hks_test_require_corpus("corpus_metrics");
	const char *comps[1] = {corpus};
	hks_load_options lo;
	memset(&lo, 0, sizeof(lo));
	lo.compendium_paths = comps;
	lo.num_compendium_paths = 1;
	hks_loader *loader = NULL;
	hks_error err;
	assert_int_equal(hks_loader_create(&lo, &loader, &err), HKS_OK);
	assert_int_equal(hks_loader_add_path(loader, corpus, &err), HKS_OK);
	size_t n = hks_loader_count(loader), root = strlen(corpus);
	uint64_t walked = 0, walk_failed = 0, unaccounted = 0, self_checked = 0, self_nonzero = 0, with_skeleton = 0;
	uint64_t nan_samples = 0, seam_clips = 0, seam_count = 0, seam_failed = 0;
	double seam_max[4] = {0, 0, 0, 0}; /* translation m, rotation deg, scale, float */
	/* the skeleton found for the previous unit, reused while the folder stays the same */
	hks_loaded *skel = NULL;
	char skel_dir[1024] = "";
	for (size_t u = 0; u < n; u++) {
		const char *path = hks_loader_path(loader, u);
		if (!path || strchr(path + (strlen(path) > root ? root : 0), ':'))
			continue; /* a binder member */
		hks_loaded *ld = NULL;
		if (hks_loader_load(loader, u, &ld) != HKS_OK || !ld || ld->status != HKS_OK) {
			hks_loaded_free(ld);
			continue;
		}
		const hks_file *f = ld->file;
		bool has_spline = false;
		for (uint32_t a = 0; a < f->num_animations; a++)
			has_spline |= f->animations[a].kind == HKS_ANIMATION_SPLINE;
		if (!has_spline) {
			hks_loaded_free(ld);
			continue;
		}
		const char *slash = strrchr(path, '/');
		size_t dlen = slash ? (size_t)(slash - path) : 0;
		if (dlen >= sizeof(skel_dir) || strncmp(skel_dir, path, dlen) || skel_dir[dlen]) {
			hks_loaded_free(skel);
			skel = NULL;
			if (hks_loader_find_skeleton(loader, u, &skel) != HKS_OK || (skel && skel->status != HKS_OK)) {
				hks_loaded_free(skel);
				skel = NULL;
			}
			snprintf(skel_dir, sizeof(skel_dir), "%.*s", (int)dlen, path);
		}
		const char *rel = path + (strlen(path) > root ? root : 0);
		while (*rel == '/')
			rel++;
		group *g = group_for(rel);
		for (uint32_t a = 0; a < f->num_animations; a++) {
			const hks_animation *an = &f->animations[a];
			if (an->kind != HKS_ANIMATION_SPLINE)
				continue;
			hks_walk_options wo;
			memset(&wo, 0, sizeof(wo));
			wo.animation_index = (int32_t)a;
			hks_stored_animation *s = NULL;
			if (hks_stored_read(an, &wo, &s, &err) != HKS_OK) {
				walk_failed++;
				continue;
			}
			walked++;
			hks_spline_stats st;
			hks_spline_stats_compute(s, &st);
			if (s->num_blocks > 1) {
				hks_seam_report sr;
				if (hks_seam_disagreement(s, NULL, &sr, &err) == HKS_OK) {
					seam_clips++;
					seam_max[0] = fmax(seam_max[0], sr.max_translation);
					seam_max[1] = fmax(seam_max[1], sr.max_rotation_deg);
					seam_max[2] = fmax(seam_max[2], sr.max_scale);
					seam_max[3] = fmax(seam_max[3], sr.max_float);
					seam_count += sr.seams;
				} else
					seam_failed++;
			}
			if (st.unaccounted != 0) {
				if (unaccounted++ < 10)
					printf("UNACCOUNTED %s animation %u: %lld bytes (data %llu)\n", path, a,
					       (long long)st.unaccounted, (unsigned long long)st.compressed_size);
			}
			g->animations++;
			hks_spline_stats_add(&g->sum, &st);
			if (st.ratio < g->min_ratio)
				g->min_ratio = st.ratio;
			if (st.ratio > g->max_ratio)
				g->max_ratio = st.ratio;

			/* the clip against itself */
			uint32_t N = (uint32_t)s->num_frames, T = (uint32_t)s->num_transform_tracks;
			uint32_t F = (uint32_t)s->num_float_tracks;
			float *tr = malloc(((size_t)N * T * HKS_TRACK_SAMPLE_FLOATS + 1) * sizeof(float));
			float *fl = malloc(((size_t)N * F + 1) * sizeof(float));
			assert_non_null(tr);
			assert_non_null(fl);
			if (hks_sample_frames(s, NULL, 0, N, tr, fl, &err) == HKS_OK) {
				hks_frames_in in;
				memset(&in, 0, sizeof(in));
				in.num_frames = N;
				in.num_transform_tracks = T;
				in.num_float_tracks = F;
				in.transforms = tr;
				in.floats = fl;
				hks_compare_options co;
				memset(&co, 0, sizeof(co));
				const hks_binding *bind = NULL;
				for (uint32_t k = 0; k < f->num_bindings; k++)
					if (f->bindings[k].animation == (int32_t)a)
						bind = &f->bindings[k];
				co.skeleton = skel ? skeleton_of(skel->file) : skeleton_of(f);
				if (bind) {
					co.track_to_bone = bind->transform_track_to_bone_indices;
					co.num_track_to_bone = bind->num_transform_track_to_bone_indices;
				}
				hks_compare_result *r = NULL;
				hks_result cr = hks_compare_frames(&in, &in, &co, &r, &err);
				if (cr != HKS_OK) {
					char buf[1024];
					hks_error_format(&err, buf, sizeof(buf));
					printf("COMPARE FAILED %s animation %u: %s\n", path, a, buf);
				}
				assert_int_equal(cr, HKS_OK);
				self_checked++;
				with_skeleton += r->has_object_space;
				nan_samples += r->nan_samples;
				if (r->nan_samples)
					g->nan_clips++;
				bool zero = true;
				for (int m = 0; m < HKS_METRIC_COUNT; m++)
					zero &= r->metric[m].max == 0.0 && r->metric[m].mean == 0.0 && r->metric[m].p99 == 0.0;
				zero &= r->under_threshold == 1.0;
				if (!zero && self_nonzero++ < 10)
					printf("NONZERO %s animation %u\n", path, a);
				hks_compare_result_free(r);
			}
			free(tr);
			free(fl);
			hks_stored_free(s);
		}
		hks_loaded_free(ld);
	}
	hks_loaded_free(skel);
	hks_loader_free(loader);

	printf("animations walked %llu (walk rejected %llu); categories unaccounted in %llu\n",
	       (unsigned long long)walked, (unsigned long long)walk_failed, (unsigned long long)unaccounted);
	printf("self-comparisons %llu (%llu with a skeleton, object space), non-zero %llu, NaN track-samples %llu\n",
	       (unsigned long long)self_checked, (unsigned long long)with_skeleton, (unsigned long long)self_nonzero,
	       (unsigned long long)nan_samples);
	printf("block seams: %llu in %llu clips (%llu failed to sample): max translation %.3g m, rotation %.3g deg, "
	       "scale %.3g, float %.3g\n",
	       (unsigned long long)seam_count, (unsigned long long)seam_clips, (unsigned long long)seam_failed,
	       seam_max[0], seam_max[1], seam_max[2], seam_max[3]);
	printf("%-24s %6s %12s %12s %7s %7s %7s | %% masks knots bounds static ctrl quats pad guard\n", "folder",
	       "anims", "raw", "compressed", "ratio", "min", "max");
	for (size_t i = 0; i < g_num_groups; i++) {
		const group *g = &g_groups[i];
		const hks_spline_stats *s = &g->sum;
		double c = s->compressed_size ? (double)s->compressed_size / 100.0 : 1.0;
		printf("%-24s %6llu %12llu %12llu %7.3f %7.3f %7.3f | %.1f %.1f %.1f %.1f %.1f %.1f %.1f %.2f\n", g->name,
		       (unsigned long long)g->animations, (unsigned long long)s->raw_size,
		       (unsigned long long)s->compressed_size, s->ratio, g->min_ratio, g->max_ratio, (double)s->masks / c,
		       (double)s->knots / c, (double)s->bounds / c, (double)s->static_values / c,
		       (double)s->control_points / c, (double)s->packed_quaternions / c, (double)s->padding / c,
		       (double)s->guard / c);
	}
	assert_true(walked > 0);
	assert_int_equal(unaccounted, 0);
	assert_int_equal(self_nonzero, 0);
	assert_int_equal(self_checked, walked);
	assert_int_equal(seam_failed, 0);
	/* float seams agree within 8e-6 over the retail install (FORMAT.md §4.7, REFERENCE.md §4) */
	assert_true(seam_max[3] <= 8e-6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_corpus_metrics)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
