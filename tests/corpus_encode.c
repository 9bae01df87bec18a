/*
 * Corpus: the encoder on the decoded frames of every corpus spline animation
 * (ENCODER.md §5-§10; issue acceptance "every encode of a corpus animation's
 * decoded frames with Havok's defaults stays within tolerance of those
 * frames, per component, plus one quantization step").
 *
 * For each spline animation (every STRIDE-th one in loader order, see below):
 *  1. walk and sample every frame (the decoded frames);
 *  2. encode them with Havok's defaults (tolerance 0.001, degree 3,
 *     256 frames per block) and the CPU model of the file's SDK (AUTO), keeping
 *     the original's per-track quantizations (mask byte 0 of block 0, as
 *     `hkspline encode --like` does) and its maxFramesPerBlock;
 *  3. pack (trailing guard by SDK), walk our bytes strictly, sample every
 *     frame and compare per component with the decoded frames: the bound is
 *     0.001 + one quantization step of our stored lane (rotations: 3
 *     ThreeComp40 steps for the reconstructed component, §9.5) + 1e-5 f32
 *     slack; rotations add the sample's own distance from unit length (the
 *     guard bounds the stored rotation, the curve of the normalized control
 *     points, against the normalized samples). No 1.1 factor and no
 *     allowance for the §9.3 normalization: the §7.6 refit acceptance lets
 *     Havok's fit end up to 1.1·E, the §7.3 odd-case flaw far beyond, and
 *     normalizing the control points of a fit moves the curve by up to a few
 *     E, but the encoder's tolerance guard checks every fitted part as it
 *     will be stored against E per component before quantization and refits
 *     those that leave it (docs/ENCODE.md "Tolerance guarantee").
 *     The assertion: ZERO components beyond the bound;
 *  4. the prediction-alone figure for the re-compressor: for every spline
 *     part of the original, whether our mask byte and part bytes equal the
 *     original's (parts are position independent, ENCODER.md §13.2), and
 *     whether degree and knot bytes do — per part type and SDK;
 *  5. steps 2-4 again with hks_encode_options.havok_unguarded (Havok's fit as
 *     is): its components beyond the same bound (counted, not asserted: the
 *     flaw is Havok's) and its prediction-alone rates beside the guarded ones,
 *     with the guard's statistics (parts refitted per type, ladder rung,
 *     Havok's degree, absent lanes stored static) per SDK.
 *
 * Animations whose decoded frames hold NaN or infinities are encoded (no
 * crash, no error) but not compared. STRIDE: HKSPLINE_ENCODE_STRIDE (default
 * 2: every second animation in loader order, a fixed rule) keeps the run
 * within a few minutes on two cores; 1 runs everything.
 */
#define _POSIX_C_SOURCE 200809L
#include "hks_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define F32_SLACK 1e-5
#define TOLERANCE 0.001

/* Index 0: the default (guarded) encode; 1: havok_unguarded, Havok's fit as is. */
#define MODES 2
typedef struct group {
	char sdk[32];
	uint64_t animations, compared, nonfinite, failed, components;
	uint64_t violations[MODES][4]; /* components beyond the bound, per part type T, R, S, F */
	double max_error[MODES][4], worst_ratio;
	char worst[400];
	uint64_t spline_parts[4], exact_parts[MODES][4], knots_equal[MODES][4];
	hks_encode_stats guard; /* summed over the group's guarded encodes */
	double seconds[MODES];
} group;

static group g_groups[32];
static size_t g_num_groups;

static group *group_of(const char *sdk)
{
	for (size_t i = 0; i < g_num_groups; i++)
		if (!strcmp(g_groups[i].sdk, sdk))
			return &g_groups[i];
	if (g_num_groups == sizeof(g_groups) / sizeof(g_groups[0]))
		return &g_groups[g_num_groups - 1];
	group *g = &g_groups[g_num_groups++];
	memset(g, 0, sizeof(*g));
	snprintf(g->sdk, sizeof(g->sdk), "%s", sdk);
	return g;
}

/* Mask byte + the part's bytes [offset, end) equal? */
static int part_bytes_equal(const uint8_t *da, const hks_stored_block *ba, const hks_stored_part *pa, uint8_t ma,
                            const uint8_t *db, const hks_stored_block *bb, const hks_stored_part *pb, uint8_t mb)
{
	if (ma != mb)
		return 0;
	uint32_t la = pa->end - pa->offset, lb = pb->end - pb->offset;
	if (la != lb)
		return 0;
	return !memcmp(da + ba->offset + pa->offset, db + bb->offset + pb->offset, la);
}

static int knots_equal(const hks_stored_part *a, const hks_stored_part *b)
{
	return a->is_spline && b->is_spline && a->degree == b->degree && a->num_knots == b->num_knots &&
	       !memcmp(a->knots, b->knots, a->num_knots);
}

static void compare_parts(group *g, int mode, const hks_animation *orig, const hks_stored_animation *so,
                          const hks_packed_spline *ours, const hks_stored_animation *sn)
{
	const uint8_t *da = orig->spline.data, *db = ours->header.data;
	for (uint32_t b = 0; b < so->num_blocks && b < sn->num_blocks; b++) {
		const hks_stored_block *ba = &so->blocks[b], *bb = &sn->blocks[b];
		for (int32_t t = 0; t < so->num_transform_tracks; t++)
			for (int k = 0; k < 3; k++) {
				const hks_stored_part *pa = &ba->tracks[t].part[k], *pb = &bb->tracks[t].part[k];
				if (!pa->is_spline)
					continue;
				g->spline_parts[k] += (uint64_t)(mode == 0);
				g->knots_equal[mode][k] += (uint64_t)knots_equal(pa, pb);
				g->exact_parts[mode][k] +=
				    (uint64_t)part_bytes_equal(da, ba, pa, ba->tracks[t].mask[1 + k], db, bb, pb, bb->tracks[t].mask[1 + k]);
			}
		for (int32_t i = 0; i < so->num_float_tracks; i++) {
			const hks_stored_part *pa = &ba->floats[i], *pb = &bb->floats[i];
			if (!pa->is_spline)
				continue;
			g->spline_parts[3] += (uint64_t)(mode == 0);
			g->knots_equal[mode][3] += (uint64_t)knots_equal(pa, pb);
			g->exact_parts[mode][3] += (uint64_t)part_bytes_equal(da, ba, pa, ba->float_masks[i], db, bb, pb, bb->float_masks[i]);
		}
	}
}

static int all_finite(const float *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return 0;
	return 1;
}

static void report_error(const char *what, const char *path, uint32_t anim, const hks_error *err)
{
	char buf[1024];
	hks_error_format(err, buf, sizeof(buf));
	printf("FAIL %s %s animation %u: %s\n", what, path, anim, buf);
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) * 1e-9;
}

static void add_guard_stats(hks_encode_stats *sum, const hks_encode_stats *st)
{
	for (int k = 0; k < 4; k++) {
		sum->guarded_parts[k] += st->guarded_parts[k];
		sum->guard_rungs[k] += st->guard_rungs[k];
		sum->guarded_degree[k] += st->guarded_degree[k];
		sum->spline_parts[k] += st->spline_parts[k];
	}
	sum->guard_unchecked_parts += st->guard_unchecked_parts;
	sum->guard_static_lanes += st->guard_static_lanes;
	if (st->guard_worst_havok_error > sum->guard_worst_havok_error)
		sum->guard_worst_havok_error = st->guard_worst_havok_error;
}

/* Count one component against its bound (mode 0 also keeps the worst ratio). */
static void count_component(group *g, int mode, int part, double d, double bound, const char *where)
{
	if (d > g->max_error[mode][part])
		g->max_error[mode][part] = d;
	if (d > bound) {
		uint64_t seen = g->violations[mode][0] + g->violations[mode][1] + g->violations[mode][2] +
		                g->violations[mode][3];
		if (mode == 0 && seen < 3)
			printf("OUT %s: error %.4g > bound %.4g\n", where, d, bound);
		g->violations[mode][part]++;
	}
	if (mode == 0 && d / bound > g->worst_ratio) {
		g->worst_ratio = d / bound;
		snprintf(g->worst, sizeof(g->worst), "%.360s: %.4g / %.4g", where, d, bound); /* `where` cut to fit */
	}
}

/* Encode the decoded frames in one mode, walk, compare the parts with the
 * original's and (finite frames) every component with the decoded frames. */
static void encode_mode(const hks_loaded *ld, uint32_t ai, group *g, int mode, const hks_stored_animation *so,
                        const hks_frames_in *in, hks_encode_options o, int finite)
{
	const hks_animation *a = &ld->file->animations[ai];
	uint32_t n = in->num_frames, T = in->num_transform_tracks, F = in->num_float_tracks;
	const float *fr = in->transforms, *ff = in->floats;
	hks_error err;
	hks_encode_stats st;
	o.stats = &st;
	o.havok_unguarded = mode == 1;
	hks_packed_spline *p = NULL;
	hks_stored_animation *sn = NULL;
	float *dr = NULL, *df = NULL;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	hks_result r = hks_encode_spline(in, &o, &p, &err);
	g->seconds[mode] += seconds_since(&t0);
	if (r != HKS_OK) {
		report_error("encode", ld->path, ai, &err);
		g->failed++;
		goto done;
	}
	if (mode == 0)
		add_guard_stats(&g->guard, &st);
	hks_animation na = hks_test_animation_of(p);
	hks_walk_options wo;
	memset(&wo, 0, sizeof(wo));
	wo.strict = finite; /* NaN data may give NaN bounds: a conformance matter */
	if (hks_stored_read(&na, &wo, &sn, &err) != HKS_OK) {
		report_error("walk of the encode", ld->path, ai, &err);
		g->failed++;
		goto done;
	}
	compare_parts(g, mode, a, so, p, sn);
	if (!finite) {
		g->nonfinite += (uint64_t)(mode == 0);
		goto done;
	}
	dr = malloc(((size_t)n * T * 10 + 1) * sizeof(float));
	df = malloc(((size_t)n * F + 1) * sizeof(float));
	assert_non_null(dr);
	assert_non_null(df);
	if (hks_sample_frames(sn, NULL, 0, n, dr, df, &err) != HKS_OK) {
		report_error("sampling the encode", ld->path, ai, &err);
		g->failed++;
		goto done;
	}
	if (mode == 0)
		g->compared++;
	char where[600];
	for (uint32_t t = 0; t < T; t++)
		for (int k = 0; k < 10; k++) {
			int part = k < 3 ? 0 : k < 7 ? 1 : 2;
			int lane = part == 0 ? k : part == 1 ? k - 3 : k - 7;
			double lane_bound = TOLERANCE + hks_test_lane_step(sn, t, part, lane) + F32_SLACK;
			for (uint32_t f = 0; f < n; f++) {
				size_t idx = ((size_t)f * T + t) * 10 + (size_t)k;
				double d = fabs((double)dr[idx] - (double)fr[idx]), bound = lane_bound;
				if (part == 1) {
					/* the guard bounds the stored rotation against the unit-length sample
					 * (docs/FIT.md): a sample off unit length adds its distance from it */
					const float *q = &fr[((size_t)f * T + t) * 10 + 3];
					double norm = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] +
					                   (double)q[3] * q[3]);
					bound += fabs(1.0 - norm);
				}
				g->components += (uint64_t)(mode == 0);
				if (d > bound || (mode == 0 && d / bound > g->worst_ratio))
					snprintf(where, sizeof(where), "%s animation %u track %u component %d frame %u", ld->path, ai, t,
					         k, f);
				count_component(g, mode, part, d, bound, where);
			}
		}
	for (uint32_t i = 0; i < F; i++) {
		double bound = TOLERANCE + hks_test_lane_step(sn, i, 3, 0) + F32_SLACK;
		for (uint32_t f = 0; f < n; f++) {
			double d = fabs((double)df[(size_t)f * F + i] - (double)ff[(size_t)f * F + i]);
			g->components += (uint64_t)(mode == 0);
			if (d > bound || (mode == 0 && d / bound > g->worst_ratio))
				snprintf(where, sizeof(where), "%s animation %u float %u frame %u", ld->path, ai, i, f);
			count_component(g, mode, 3, d, bound, where);
		}
	}
done:
	free(dr);
	free(df);
	hks_stored_free(sn);
	hks_packed_spline_free(p);
}

static void encode_one(const hks_loaded *ld, uint32_t ai, group *g)
{
	const hks_animation *a = &ld->file->animations[ai];
	hks_error err;
	hks_stored_animation *so = NULL;
	if (hks_stored_read(a, NULL, &so, &err) != HKS_OK)
		return; /* not decodable: corpus_spline's concern */
	uint32_t n = (uint32_t)so->num_frames, T = (uint32_t)so->num_transform_tracks, F = (uint32_t)so->num_float_tracks;
	float *fr = malloc(((size_t)n * T * 10 + 1) * sizeof(float));
	float *ff = malloc(((size_t)n * F + 1) * sizeof(float));
	assert_non_null(fr);
	assert_non_null(ff);
	if (hks_sample_frames(so, NULL, 0, n, fr, ff, &err) != HKS_OK) {
		free(fr);
		free(ff);
		hks_stored_free(so);
		return;
	}
	g->animations++;
	int finite = all_finite(fr, (size_t)n * T * 10) && all_finite(ff, (size_t)n * F);

	/* the original's quantizations per track (block 0), like --like */
	hks_track_params *pal = calloc((size_t)T + 1, sizeof(hks_track_params));
	hks_track_params *fpal = calloc((size_t)F + 1, sizeof(hks_track_params));
	assert_non_null(pal);
	assert_non_null(fpal);
	for (uint32_t t = 0; t < T; t++) {
		uint8_t m0 = so->blocks[0].tracks[t].mask[0];
		pal[t].translation_quantization = (uint8_t)((m0 & 3) + 1);
		pal[t].rotation_quantization = HKS_ENC_ROT_QUANT((m0 >> 2) & 15);
		pal[t].scale_quantization = (uint8_t)((m0 >> 6) + 1);
		if (((m0 >> 2) & 15) > HKS_ROT_UNCOMPRESSED || (m0 & 3) > 1 || (m0 >> 6) > 1)
			pal[t] = (hks_track_params){0};
	}
	for (uint32_t i = 0; i < F; i++) {
		unsigned q = (so->blocks[0].float_masks[i] >> 1) & 3;
		fpal[i].float_quantization = (uint8_t)(q <= 1 ? q + 1 : 0);
	}
	hks_frames_in in = {n, T, F, so->duration, T ? fr : NULL, F ? ff : NULL};
	hks_encode_options o;
	memset(&o, 0, sizeof(o));
	o.sdk = ld->file->sdk;
	o.per_track = pal;
	o.num_per_track = T;
	o.per_float_track = fpal;
	o.num_per_float_track = F;
	o.max_frames_per_block = (uint32_t)so->max_frames_per_block;
	for (int mode = 0; mode < MODES; mode++)
		encode_mode(ld, ai, g, mode, so, &in, o, finite);
	free(pal);
	free(fpal);
	free(fr);
	free(ff);
	hks_stored_free(so);
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

static void test_encode_corpus(void **state)
{
	(void)state;
	const char *corpus = hks_test_corpus();
	long stride = 2;
	const char *env = getenv("HKSPLINE_ENCODE_STRIDE");
	if (env && atol(env) >= 1)
		stride = atol(env);
	hks_load_options lo;
	memset(&lo, 0, sizeof(lo));
	const char *comps[1] = {corpus};
	lo.compendium_paths = comps;
	lo.num_compendium_paths = 1;
	hks_loader *loader = NULL;
	hks_error err;
	assert_int_equal(hks_loader_create(&lo, &loader, &err), HKS_OK);
	assert_int_equal(hks_loader_add_path(loader, corpus, &err), HKS_OK);
	size_t n = hks_loader_count(loader);
	uint64_t seen = 0;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t u = 0; u < n; u++) {
		hks_loaded *ld = NULL;
		if (hks_loader_load(loader, u, &ld) != HKS_OK || !ld || ld->status != HKS_OK) {
			if (ld)
				hks_loaded_free(ld);
			continue;
		}
		for (uint32_t a = 0; a < ld->file->num_animations; a++) {
			if (ld->file->animations[a].kind != HKS_ANIMATION_SPLINE)
				continue;
			if (seen++ % (uint64_t)stride)
				continue;
			encode_one(ld, a, group_of(ld->file->sdk));
		}
		hks_loaded_free(ld);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	hks_loader_free(loader);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	printf("spline animations seen %llu, every %ld-th encoded; %.1f s\n", (unsigned long long)seen, stride, secs);
	static const char *mode_names[MODES] = {"guarded (default)", "havok_unguarded"};
	uint64_t total = 0, failed = 0, violations[MODES] = {0, 0}, components = 0;
	double max_error = 0;
	for (int mode = 0; mode < MODES; mode++) {
		printf("\n%s: components beyond tolerance + one quantization step (T R S F)\n", mode_names[mode]);
		printf("%-16s %6s %6s %5s %4s %12s %7s %5s %5s %4s  %-9s %-9s %-9s %-9s %7s\n", "sdk", "anims", "cmp", "nan",
		       "fail", "components", "outT", "outR", "outS", "outF", "maxT", "maxR", "maxS", "maxF", "enc s");
		for (size_t i = 0; i < g_num_groups; i++) {
			group *g = &g_groups[i];
			printf("%-16s %6llu %6llu %5llu %4llu %12llu %7llu %5llu %5llu %4llu  %-9.3g %-9.3g %-9.3g %-9.3g %7.1f\n",
			       g->sdk, (unsigned long long)g->animations, (unsigned long long)g->compared,
			       (unsigned long long)g->nonfinite, (unsigned long long)g->failed, (unsigned long long)g->components,
			       (unsigned long long)g->violations[mode][0], (unsigned long long)g->violations[mode][1],
			       (unsigned long long)g->violations[mode][2], (unsigned long long)g->violations[mode][3],
			       g->max_error[mode][0], g->max_error[mode][1], g->max_error[mode][2], g->max_error[mode][3],
			       g->seconds[mode]);
			for (int k = 0; k < 4; k++) {
				violations[mode] += g->violations[mode][k];
				if (mode == 0 && g->max_error[0][k] > max_error)
					max_error = g->max_error[0][k];
			}
			if (mode == 0) {
				total += g->animations;
				failed += g->failed;
				components += g->components;
			}
		}
	}
	printf("\n");
	for (size_t i = 0; i < g_num_groups; i++)
		printf("worst %s (guarded): %s\n", g_groups[i].sdk, g_groups[i].worst);
	printf("\nthe guard: spline parts refitted (T R S F of all spline parts), by the rung that ended it "
	       "(kept-point bound, strict E, degree-1 fit, polyline) and by Havok's degree (1 2 3)\n");
	for (size_t i = 0; i < g_num_groups; i++) {
		const hks_encode_stats *gs = &g_groups[i].guard;
		uint64_t guarded = gs->guarded_parts[0] + gs->guarded_parts[1] + gs->guarded_parts[2] + gs->guarded_parts[3];
		uint64_t spline = gs->spline_parts[0] + gs->spline_parts[1] + gs->spline_parts[2] + gs->spline_parts[3];
		printf("%-16s guarded %6llu of %8llu (%.3f %%): T %llu/%llu R %llu/%llu S %llu/%llu F %llu/%llu; rungs %llu "
		       "%llu %llu %llu; degree %llu %llu %llu; unchecked %llu; worst Havok error %.4g; absent lanes stored static %llu\n",
		       g_groups[i].sdk, (unsigned long long)guarded, (unsigned long long)spline, pct(guarded, spline),
		       (unsigned long long)gs->guarded_parts[0], (unsigned long long)gs->spline_parts[0],
		       (unsigned long long)gs->guarded_parts[1], (unsigned long long)gs->spline_parts[1],
		       (unsigned long long)gs->guarded_parts[2], (unsigned long long)gs->spline_parts[2],
		       (unsigned long long)gs->guarded_parts[3], (unsigned long long)gs->spline_parts[3],
		       (unsigned long long)gs->guard_rungs[0], (unsigned long long)gs->guard_rungs[1],
		       (unsigned long long)gs->guard_rungs[2], (unsigned long long)gs->guard_rungs[3],
		       (unsigned long long)gs->guarded_degree[1], (unsigned long long)gs->guarded_degree[2],
		       (unsigned long long)gs->guarded_degree[3], (unsigned long long)gs->guard_unchecked_parts,
		       gs->guard_worst_havok_error, (unsigned long long)gs->guard_static_lanes);
	}
	printf("\nprediction alone (Havok defaults, CPU model by SDK): spline parts whose mask + bytes equal the original\n"
	       "(knots: degree and knot bytes equal), guarded (default) | havok_unguarded\n");
	static const char *names[4] = {"translation", "rotation", "scale", "float"};
	for (size_t i = 0; i < g_num_groups; i++) {
		group *g = &g_groups[i];
		for (int k = 0; k < 4; k++)
			if (g->spline_parts[k])
				printf("%-16s %-11s parts %8llu  bytes equal %7llu (%5.1f %%) | %7llu (%5.1f %%)  knots equal %7llu "
				       "(%5.1f %%) | %7llu (%5.1f %%)\n",
				       g->sdk, names[k], (unsigned long long)g->spline_parts[k], (unsigned long long)g->exact_parts[0][k],
				       pct(g->exact_parts[0][k], g->spline_parts[k]), (unsigned long long)g->exact_parts[1][k],
				       pct(g->exact_parts[1][k], g->spline_parts[k]), (unsigned long long)g->knots_equal[0][k],
				       pct(g->knots_equal[0][k], g->spline_parts[k]), (unsigned long long)g->knots_equal[1][k],
				       pct(g->knots_equal[1][k], g->spline_parts[k]));
	}
	printf("components beyond the bound: guarded %llu, havok_unguarded %llu, of %llu; largest guarded error %.4g\n",
	       (unsigned long long)violations[0], (unsigned long long)violations[1], (unsigned long long)components,
	       max_error);
	fflush(stdout);
	assert_true(total > 0);
	assert_int_equal(failed, 0);
	/* The guarantee (docs/ENCODE.md "Tolerance guarantee"): not one component
	 * beyond tolerance + one quantization step (+ the rotation terms above). */
	assert_int_equal(violations[0], 0);
}

int main(void)
{
	hks_test_require_corpus("corpus_encode");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode_corpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
