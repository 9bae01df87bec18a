/*
 * compression_report: generate docs/compression-report.md and its plots from
 * a corpus (docs/METRICS.md §7).
 *
 *   compression_report CORPUS DOCS_DIR [--stride N] [-j N] [--no-encode]
 *
 * For every spline animation under CORPUS (binder members skipped: the corpus
 * holds them as loose files too), grouped by the first folder below CORPUS:
 *   - the retail Havok compression statistics (hks_spline_stats_compute);
 *   - for every N-th animation in loader order (default 4) whose decoded
 *     frames are finite: the project's re-encode of the decoded frames
 *     (hks_encode_spline with Havok's defaults, the original's per-track
 *     quantizations, maxFramesPerBlock and SDK), its ratio, and its error
 *     against the decoded frames (hks_compare_frames; object space with the
 *     skeleton the loader finds beside the clip).
 * Writes DOCS_DIR/compression-report.md and PNG plots in DOCS_DIR/img (gnuplot).
 */
#define _POSIX_C_SOURCE 200809L
#include "hkspline.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GROUPS 32
#define PLOT_BONES 5
#define PRESET_BOUND 0.0005 /* the "visually bounded" preset: 0.5 mm at the 3 cm shell */
static const char *const preset_names[3] = {"Havok mode", "object space 0.5 mm", "optimize size"};

typedef struct clip {
	char *path;
	uint32_t animation;
	int group;
	hks_spline_stats retail;
	bool walked;
	bool encoded;           /* re-encode attempted and compared */
	bool nonfinite;         /* decoded frames hold NaN / inf: not re-encoded */
	char *encode_error;
	uint64_t our_size;      /* packed data bytes of the re-encode */
	double max_translation, max_rotation_deg, max_scale, max_local_vertex;
	bool has_object;
	double max_object, p99_object;
	char *worst_bone;
	int32_t worst_frame;
	/* object-space error over frames of the worst bones (kept for the plot of the worst clip) */
	double *curve;          /* frames × PLOT_BONES */
	uint32_t curve_frames;
	char *curve_names[PLOT_BONES];
	/* the error-control presets (docs/ENCODE.md "Error control"): Havok mode, the
	 * object-space bound PRESET_BOUND, optimize size; data bytes and max object error */
	bool presets;
	uint64_t preset_size[3];
	double preset_object[3];
} clip;

typedef struct unit_result {
	clip *clips;
	size_t num_clips;
} unit_result;

typedef struct job {
	hks_loader *loader;
	const char *corpus;
	size_t count;
	unit_result *units;
	atomic_size_t next;
	uint32_t stride, preset_stride;
	bool encode;
	char groups[MAX_GROUPS][64];
	size_t num_groups;
	pthread_mutex_t mutex;
} job;

static char *dup_str(const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s) + 1;
	char *p = malloc(n);
	if (p)
		memcpy(p, s, n);
	return p;
}

static const char *relative(const job *j, const char *path)
{
	size_t n = strlen(j->corpus);
	if (!strncmp(path, j->corpus, n)) {
		path += n;
		while (*path == '/')
			path++;
	}
	return path;
}

static int group_of(job *j, const char *rel)
{
	char name[64];
	size_t n = strcspn(rel, "/");
	if (n >= sizeof(name))
		n = sizeof(name) - 1;
	memcpy(name, rel, n);
	name[n] = 0;
	pthread_mutex_lock(&j->mutex);
	int g = -1;
	for (size_t i = 0; i < j->num_groups && g < 0; i++)
		if (!strcmp(j->groups[i], name))
			g = (int)i;
	if (g < 0 && j->num_groups < MAX_GROUPS) {
		memcpy(j->groups[j->num_groups], name, n + 1);
		g = (int)j->num_groups++;
	}
	pthread_mutex_unlock(&j->mutex);
	return g < 0 ? MAX_GROUPS - 1 : g;
}

static bool all_finite(const float *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return false;
	return true;
}

static const hks_binding *binding_for(const hks_file *f, uint32_t anim)
{
	for (uint32_t i = 0; i < f->num_bindings; i++)
		if (f->bindings[i].animation == (int32_t)anim)
			return &f->bindings[i];
	return f->num_bindings == 1 && f->num_animations == 1 ? &f->bindings[0] : NULL;
}

/* Keep the object-space error over frames of the PLOT_BONES worst bones. */
static void keep_curve(clip *c, const hks_compare_result *r, const hks_skeleton *sk)
{
	uint32_t nb = r->num_bones, N = r->num_frames;
	int32_t pick[PLOT_BONES];
	double best[PLOT_BONES];
	int np = 0;
	const double *v = r->values[HKS_METRIC_OBJECT_SPACE];
	for (uint32_t b = 0; b < nb; b++) {
		double mx = -1;
		for (uint32_t f = 0; f < N; f++)
			if (isfinite(v[(size_t)f * nb + b]) && v[(size_t)f * nb + b] > mx)
				mx = v[(size_t)f * nb + b];
		int at = np < PLOT_BONES ? np++ : PLOT_BONES;
		if (at == PLOT_BONES) {
			if (mx <= best[PLOT_BONES - 1])
				continue;
			at = PLOT_BONES - 1;
		}
		while (at > 0 && best[at - 1] < mx) {
			best[at] = best[at - 1];
			pick[at] = pick[at - 1];
			at--;
		}
		best[at] = mx;
		pick[at] = (int32_t)b;
	}
	c->curve = calloc((size_t)N * PLOT_BONES + 1, sizeof(double));
	if (!c->curve)
		return;
	c->curve_frames = N;
	for (int k = 0; k < PLOT_BONES; k++) {
		for (uint32_t f = 0; f < N; f++)
			c->curve[(size_t)f * PLOT_BONES + k] = k < np ? v[(size_t)f * nb + (size_t)pick[k]] : NAN;
		if (k < np)
			c->curve_names[k] = dup_str(sk->bone_names && sk->bone_names[pick[k]] ? sk->bone_names[pick[k]] : "?");
	}
}

static void reencode(clip *c, const hks_file *file, uint32_t ai, const hks_stored_animation *so,
                     const hks_skeleton *sk, bool presets)
{
	uint32_t n = (uint32_t)so->num_frames, T = (uint32_t)so->num_transform_tracks;
	uint32_t F = (uint32_t)so->num_float_tracks;
	float *fr = malloc(((size_t)n * T * 10 + 1) * sizeof(float)), *ff = malloc(((size_t)n * F + 1) * sizeof(float));
	float *dr = malloc(((size_t)n * T * 10 + 1) * sizeof(float)), *df = malloc(((size_t)n * F + 1) * sizeof(float));
	hks_track_params *pal = calloc((size_t)T + 1, sizeof(hks_track_params));
	hks_track_params *fpal = calloc((size_t)F + 1, sizeof(hks_track_params));
	hks_packed_spline *p = NULL;
	hks_stored_animation *sn = NULL;
	hks_compare_result *r = NULL;
	hks_error err;
	char msg[1024];
	if (!fr || !ff || !dr || !df || !pal || !fpal)
		goto done;
	if (hks_sample_frames(so, NULL, 0, n, fr, ff, &err) != HKS_OK)
		goto fail;
	if (!all_finite(fr, (size_t)n * T * 10) || !all_finite(ff, (size_t)n * F)) {
		c->nonfinite = true;
		goto done;
	}
	/* the original's quantizations per track (mask byte 0 of block 0, FORMAT.md §2.3) */
	for (uint32_t t = 0; t < T; t++) {
		uint8_t m0 = so->blocks[0].tracks[t].mask[0];
		if (((m0 >> 2) & 15) <= HKS_ROT_UNCOMPRESSED && (m0 & 3) <= 1 && (m0 >> 6) <= 1) {
			pal[t].translation_quantization = (uint8_t)((m0 & 3) + 1);
			pal[t].rotation_quantization = HKS_ENC_ROT_QUANT((m0 >> 2) & 15);
			pal[t].scale_quantization = (uint8_t)((m0 >> 6) + 1);
		}
	}
	for (uint32_t i = 0; i < F; i++) {
		unsigned q = (so->blocks[0].float_masks[i] >> 1) & 3;
		fpal[i].float_quantization = (uint8_t)(q <= 1 ? q + 1 : 0);
	}
	hks_frames_in in = {n, T, F, so->duration, T ? fr : NULL, F ? ff : NULL};
	hks_encode_options o;
	memset(&o, 0, sizeof(o));
	o.sdk = file->sdk;
	o.per_track = pal;
	o.num_per_track = T;
	o.per_float_track = fpal;
	o.num_per_float_track = F;
	o.max_frames_per_block = (uint32_t)so->max_frames_per_block;
	if (hks_encode_spline(&in, &o, &p, &err) != HKS_OK)
		goto fail;
	c->our_size = p->header.data_size;
	hks_animation na;
	memset(&na, 0, sizeof(na));
	na.kind = HKS_ANIMATION_SPLINE;
	na.duration = p->duration;
	na.number_of_transform_tracks = p->num_transform_tracks;
	na.number_of_float_tracks = p->num_float_tracks;
	na.spline = p->header;
	if (hks_stored_read(&na, NULL, &sn, &err) != HKS_OK || hks_sample_frames(sn, NULL, 0, n, dr, df, &err) != HKS_OK)
		goto fail;
	hks_frames_in out = {n, T, F, so->duration, T ? dr : NULL, F ? df : NULL};
	hks_compare_options co;
	memset(&co, 0, sizeof(co));
	co.skeleton = sk;
	const hks_binding *bind = binding_for(file, ai);
	if (bind) {
		co.track_to_bone = bind->transform_track_to_bone_indices;
		co.num_track_to_bone = bind->num_transform_track_to_bone_indices;
	}
	if (hks_compare_frames(&in, &out, &co, &r, &err) != HKS_OK)
		goto fail;
	c->encoded = true;
	c->max_translation = r->metric[HKS_METRIC_TRANSLATION].max;
	c->max_rotation_deg = r->metric[HKS_METRIC_ROTATION_DEG].max;
	c->max_scale = r->metric[HKS_METRIC_SCALE].max;
	c->max_local_vertex = r->metric[HKS_METRIC_LOCAL_VERTEX].max;
	c->has_object = r->has_object_space;
	c->worst_frame = r->worst_frame;
	if (r->has_object_space) {
		c->max_object = r->metric[HKS_METRIC_OBJECT_SPACE].max;
		c->p99_object = r->metric[HKS_METRIC_OBJECT_SPACE].p99;
		if (r->worst_bone >= 0 && sk->bone_names)
			c->worst_bone = dup_str(sk->bone_names[r->worst_bone]);
		keep_curve(c, r, sk);
	}
	if (r->has_object_space && presets) {
		/* the other two presets on the same frames */
		c->preset_size[0] = c->our_size;
		c->preset_object[0] = c->max_object;
		hks_error_control ctl;
		memset(&ctl, 0, sizeof(ctl));
		ctl.skeleton = sk;
		ctl.track_to_bone = co.track_to_bone;
		ctl.num_track_to_bone = co.num_track_to_bone;
		o.control = &ctl;
		bool ok = true;
		for (int k = 1; k < 3 && ok; k++) {
			ctl.object_tolerance = k == 1 ? PRESET_BOUND : 0;
			ctl.optimize = k == 2 ? HKS_OPTIMIZE_SIZE : HKS_OPTIMIZE_HAVOK;
			hks_packed_spline *pk = NULL;
			hks_stored_animation *sk2 = NULL;
			hks_compare_result *rk = NULL;
			ok = hks_encode_spline(&in, &o, &pk, &err) == HKS_OK;
			if (ok) {
				hks_animation ka = na;
				ka.duration = pk->duration;
				ka.spline = pk->header;
				ok = hks_stored_read(&ka, NULL, &sk2, &err) == HKS_OK &&
				     hks_sample_frames(sk2, NULL, 0, n, dr, df, &err) == HKS_OK &&
				     hks_compare_frames(&in, &out, &co, &rk, &err) == HKS_OK;
			}
			if (ok) {
				c->preset_size[k] = pk->header.data_size;
				c->preset_object[k] = rk->metric[HKS_METRIC_OBJECT_SPACE].max;
			}
			hks_compare_result_free(rk);
			hks_stored_free(sk2);
			hks_packed_spline_free(pk);
		}
		c->presets = ok;
	}
	goto done;
fail:
	hks_error_format(&err, msg, sizeof(msg));
	c->encode_error = dup_str(msg);
done:
	hks_compare_result_free(r);
	hks_stored_free(sn);
	hks_packed_spline_free(p);
	free(fr);
	free(ff);
	free(dr);
	free(df);
	free(pal);
	free(fpal);
}

typedef struct skeleton_cache {
	hks_loaded *loaded;
	char dir[1024];
	bool valid;
} skeleton_cache;

static const hks_skeleton *skeleton_for(job *j, size_t unit, const char *path, skeleton_cache *cache)
{
	const char *slash = strrchr(path, '/');
	size_t dlen = slash ? (size_t)(slash - path) : 0;
	if (!cache->valid || dlen >= sizeof(cache->dir) || strncmp(cache->dir, path, dlen) || cache->dir[dlen]) {
		hks_loaded_free(cache->loaded);
		cache->loaded = NULL;
		if (hks_loader_find_skeleton(j->loader, unit, &cache->loaded) != HKS_OK ||
		    (cache->loaded && cache->loaded->status != HKS_OK)) {
			hks_loaded_free(cache->loaded);
			cache->loaded = NULL;
		}
		snprintf(cache->dir, sizeof(cache->dir), "%.*s", (int)dlen, path);
		cache->valid = true;
	}
	return cache->loaded && cache->loaded->file->num_skeletons ? &cache->loaded->file->skeletons[0] : NULL;
}

static void process_unit(job *j, size_t u, skeleton_cache *cache)
{
	const char *path = hks_loader_path(j->loader, u);
	if (!path || strchr(relative(j, path), ':'))
		return; /* a binder member: the corpus has the loose file too */
	hks_loaded *ld = NULL;
	if (hks_loader_load(j->loader, u, &ld) != HKS_OK || !ld || ld->status != HKS_OK) {
		hks_loaded_free(ld);
		return;
	}
	const hks_file *f = ld->file;
	unit_result *res = &j->units[u];
	res->clips = calloc(f->num_animations + 1, sizeof(clip));
	int group = group_of(j, relative(j, path));
	for (uint32_t a = 0; res->clips && a < f->num_animations; a++) {
		if (f->animations[a].kind != HKS_ANIMATION_SPLINE)
			continue;
		clip *c = &res->clips[res->num_clips++];
		c->path = dup_str(relative(j, path));
		c->animation = a;
		c->group = group;
		hks_stored_animation *s = NULL;
		hks_error err;
		if (hks_stored_read(&f->animations[a], NULL, &s, &err) != HKS_OK)
			continue;
		c->walked = true;
		hks_spline_stats_compute(s, &c->retail);
		/* a fixed selection: the unit's position in loader order */
		if (j->encode && u % j->stride == 0)
			reencode(c, f, a, s, skeleton_for(j, u, path, cache), u % j->preset_stride == 0);
		hks_stored_free(s);
	}
	hks_loaded_free(ld);
}

static void *worker(void *arg)
{
	job *j = arg;
	skeleton_cache cache;
	memset(&cache, 0, sizeof(cache));
	for (;;) {
		size_t u = atomic_fetch_add(&j->next, 1);
		if (u >= j->count)
			break;
		process_unit(j, u, &cache);
		if (u % 200 == 0) {
			fprintf(stderr, "\r%zu / %zu files", u, j->count);
			fflush(stderr);
		}
	}
	hks_loaded_free(cache.loaded);
	return NULL;
}

/* ---- report ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(double), cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void gp_string(FILE *g, const char *s)
{
	fputc('\'', g);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', g);
		fputc(*s, g);
	}
	fputc('\'', g);
}

static FILE *gp_open(const char *png)
{
	FILE *g = popen("gnuplot", "w");
	if (!g)
		return NULL;
	fputs("set terminal pngcairo size 800,450 font 'sans,9' noenhanced\nset output ", g);
	gp_string(g, png);
	fputs("\nset grid\nset key inside top left\n", g);
	return g;
}

/* Third section: ratio against object-space error for the three presets. */
static void presets_section(FILE *md, const char *docs, const clip **clips, size_t nc, char groups[][64],
                            const size_t *order, size_t G, long preset_stride, double *scratch)
{
	size_t np = 0;
	for (size_t i = 0; i < nc; i++)
		np += clips[i]->presets;
	if (!np)
		return;
	fprintf(md, "\n## Error-control presets\n\n"
	            "One file in %ld (loader order) whose clip has a skeleton, encoded from its decoded frames with\n"
	            "the three presets of docs/ENCODE.md \"Error control\": the Havok mode (as above), the object-space\n"
	            "bound `--object-tolerance %g` (%.1f mm at the 3 cm shell) and `--optimize size` (the Havok mode's\n"
	            "bound, fewer bytes). Ratio = raw bytes / spline data bytes over the clips; object space as above.\n\n"
	            "| folder | clips | retail ratio | preset | ratio | size / retail | median / max object space (mm) |\n"
	            "|---|---:|---:|---|---:|---:|---:|\n",
	        preset_stride, PRESET_BOUND, PRESET_BOUND * 1000);
	for (size_t gi = 0; gi < G; gi++) {
		size_t gg = order[gi];
		for (int k = 0; k < 3; k++) {
			size_t m = 0;
			uint64_t raw = 0, retail = 0, size = 0;
			double mx = 0;
			for (size_t i = 0; i < nc; i++) {
				const clip *c = clips[i];
				if (c->group != (int)gg || !c->presets)
					continue;
				raw += c->retail.raw_size;
				retail += c->retail.compressed_size;
				size += c->preset_size[k];
				scratch[m++] = c->preset_object[k];
				mx = fmax(mx, c->preset_object[k]);
			}
			if (!m)
				continue;
			fprintf(md, "| %s | %zu | %.2f | %s | %.2f | %.3f | %.3f / %.2f |\n", groups[gg], m,
			        retail ? (double)raw / (double)retail : 0, preset_names[k], size ? (double)raw / (double)size : 0,
			        retail ? (double)size / (double)retail : 0, median(scratch, m) * 1000, mx * 1000);
		}
	}
	char img[4200];
	snprintf(img, sizeof(img), "%s/img/presets-ratio-vs-error.png", docs);
	FILE *g = gp_open(img);
	if (!g)
		return;
	fputs("set title 'Error-control presets: ratio against max object-space error per clip'\n"
	      "set logscale x\nset format x '%g'\nset logscale y\nset format y '%g'\nset xlabel 'max object-space error (mm, log)'\nset ylabel 'compression ratio'\n"
	      "set key outside right\n",
	      g);
	for (int k = 0; k < 3; k++) {
		fprintf(g, "$p%d << EOD\n", k);
		for (size_t i = 0; i < nc; i++)
			if (clips[i]->presets && clips[i]->preset_size[k] && clips[i]->preset_object[k] > 0)
				fprintf(g, "%.9g %.9g\n", clips[i]->preset_object[k] * 1000,
				        (double)clips[i]->retail.raw_size / (double)clips[i]->preset_size[k]);
		fputs("EOD\n", g);
	}
	fputs("plot ", g);
	for (int k = 0; k < 3; k++) {
		fprintf(g, "%s$p%d using 1:2 with points pt 7 ps 0.6 title ", k ? ", " : "", k);
		gp_string(g, preset_names[k]);
	}
	fputc('\n', g);
	pclose(g);
	fprintf(md, "\n![Presets: ratio against object-space error](img/presets-ratio-vs-error.png)\n");
}

int main(int argc, char **argv)
{
	const char *corpus = NULL, *docs = NULL;
	long stride = 4, threads = 2, preset_stride = 32;
	bool encode = true;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--stride") && i + 1 < argc)
			stride = strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--preset-stride") && i + 1 < argc)
			preset_stride = strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "-j") && i + 1 < argc)
			threads = strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--no-encode"))
			encode = false;
		else if (!corpus)
			corpus = argv[i];
		else if (!docs)
			docs = argv[i];
	}
	if (!corpus || !docs || stride < 1 || threads < 1 || threads > 64 || preset_stride < 1 ||
	    preset_stride % stride) {
		fprintf(stderr, "usage: compression_report CORPUS DOCS_DIR [--stride N] [--preset-stride M (a multiple of N)] "
		                "[-j N] [--no-encode]\n");
		return 2;
	}
	const char *comps[1] = {corpus};
	hks_load_options lo;
	memset(&lo, 0, sizeof(lo));
	lo.compendium_paths = comps;
	lo.num_compendium_paths = 1;
	job j;
	memset(&j, 0, sizeof(j));
	hks_error err;
	if (hks_loader_create(&lo, &j.loader, &err) != HKS_OK || hks_loader_add_path(j.loader, corpus, &err) != HKS_OK) {
		char buf[1024];
		hks_error_format(&err, buf, sizeof(buf));
		fprintf(stderr, "compression_report: %s\n", buf);
		return 2;
	}
	j.corpus = corpus;
	j.count = hks_loader_count(j.loader);
	j.units = calloc(j.count + 1, sizeof(unit_result));
	j.stride = (uint32_t)stride;
	j.preset_stride = (uint32_t)preset_stride;
	j.encode = encode;
	pthread_mutex_init(&j.mutex, NULL);
	atomic_init(&j.next, 0);
	pthread_t tids[64];
	long started = 0;
	for (long t = 0; t < threads; t++)
		if (pthread_create(&tids[t], NULL, worker, &j) == 0)
			started++;
	if (!started)
		worker(&j);
	for (long t = 0; t < started; t++)
		pthread_join(tids[t], NULL);
	fprintf(stderr, "\r%zu / %zu files\n", j.count, j.count);

	/* groups in name order */
	size_t G = j.num_groups, order[MAX_GROUPS];
	for (size_t g = 0; g < G; g++)
		order[g] = g;
	for (size_t a = 0; a < G; a++)
		for (size_t b = a + 1; b < G; b++)
			if (strcmp(j.groups[order[a]], j.groups[order[b]]) > 0) {
				size_t t = order[a];
				order[a] = order[b];
				order[b] = t;
			}
	size_t total_clips = 0;
	for (size_t u = 0; u < j.count; u++)
		total_clips += j.units[u].num_clips;
	const clip **clips = calloc(total_clips + 1, sizeof(clip *));
	size_t nc = 0;
	for (size_t u = 0; u < j.count; u++)
		for (size_t k = 0; k < j.units[u].num_clips; k++)
			clips[nc++] = &j.units[u].clips[k];
	double *scratch = calloc(nc + 1, sizeof(double));

	char path[4096];
	snprintf(path, sizeof(path), "%s/compression-report.md", docs);
	FILE *md = fopen(path, "w");
	if (!md || !clips || !scratch) {
		perror(path);
		return 2;
	}
	fprintf(md, "# Compression report\n\n"
	            "Generated by `tools/compression_report.c` (`compression_report CORPUS docs --stride %ld`) from the\n"
	            "corpus described in `../shared/corpus/README.md`; do not edit by hand. Definitions: docs/METRICS.md.\n\n",
	        stride);
	fprintf(md, "* **Raw size**: 40 bytes per transform track and frame (translation xyz, rotation xyzw, scale xyz\n"
	            "  as f32), 4 per float track and frame. **Compressed size**: the spline `data` bytes.\n"
	            "  **Ratio** = raw / compressed, summed over the clips of a folder.\n"
	            "* Folders are the corpus' top-level folders (one game or source each). Binder members are not\n"
	            "  counted twice (the corpus holds them as loose files too).\n\n");
	fprintf(md, "## Retail Havok compression\n\n"
	            "| folder | clips | frames | raw MB | compressed MB | ratio | median | min | max |\n"
	            "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	hks_spline_stats gsum[MAX_GROUPS];
	memset(gsum, 0, sizeof(gsum));
	hks_spline_stats all;
	memset(&all, 0, sizeof(all));
	for (size_t gi = 0; gi < G; gi++) {
		size_t g = order[gi], m = 0;
		double mn = INFINITY, mx = 0;
		for (size_t i = 0; i < nc; i++)
			if (clips[i]->group == (int)g && clips[i]->walked) {
				hks_spline_stats_add(&gsum[g], &clips[i]->retail);
				scratch[m++] = clips[i]->retail.ratio;
				mn = fmin(mn, clips[i]->retail.ratio);
				mx = fmax(mx, clips[i]->retail.ratio);
			}
		if (!m)
			continue;
		hks_spline_stats_add(&all, &gsum[g]);
		fprintf(md, "| %s | %zu | %u | %.2f | %.2f | %.2f | %.2f | %.2f | %.1f |\n", j.groups[g], m, gsum[g].frames,
		        (double)gsum[g].raw_size / 1e6, (double)gsum[g].compressed_size / 1e6, gsum[g].ratio,
		        median(scratch, m), mn, mx);
	}
	fprintf(md, "| **all** | | %u | %.2f | %.2f | %.2f | | | |\n\n", all.frames, (double)all.raw_size / 1e6,
	        (double)all.compressed_size / 1e6, all.ratio);
	fprintf(md, "Where the bytes go (share of the compressed size, from the stored structure; the categories add\n"
	            "up to the data size for every clip):\n\n"
	            "| folder | masks | knots | bounds | static values | control points | packed quaternions | padding | guard |\n"
	            "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (size_t gi = 0; gi < G; gi++) {
		const hks_spline_stats *s = &gsum[order[gi]];
		if (!s->compressed_size)
			continue;
		double c = (double)s->compressed_size / 100.0;
		fprintf(md, "| %s | %.1f %% | %.1f %% | %.1f %% | %.1f %% | %.1f %% | %.1f %% | %.1f %% | %.2f %% |\n",
		        j.groups[order[gi]], (double)s->masks / c, (double)s->knots / c, (double)s->bounds / c,
		        (double)s->static_values / c, (double)s->control_points / c, (double)s->packed_quaternions / c,
		        (double)s->padding / c, (double)s->guard / c);
	}
	fprintf(md, "\nLanes and parts (summed over blocks and tracks):\n\n"
	            "| folder | T spline / static / absent lanes | R spline / static / absent | S spline / static / absent lanes | "
	            "spline degree 1 / 3 (all parts) | ThreeComp40 / 48 / other rotations |\n|---|---|---|---|---|---|\n");
	for (size_t gi = 0; gi < G; gi++) {
		const hks_spline_stats *s = &gsum[order[gi]];
		if (!s->compressed_size)
			continue;
		uint64_t d1 = 0, d3 = 0, other = 0;
		for (int p = 0; p < 4; p++) {
			d1 += s->degrees[p][1];
			d3 += s->degrees[p][3];
		}
		for (int k = 0; k < 16; k++)
			if (k != HKS_ROT_THREECOMP40 && k != HKS_ROT_THREECOMP48)
				other += s->selectors[k];
		fprintf(md, "| %s | %llu / %llu / %llu | %llu / %llu / %llu | %llu / %llu / %llu | %llu / %llu | %llu / %llu / %llu |\n",
		        j.groups[order[gi]], (unsigned long long)s->spline_lanes[0], (unsigned long long)s->static_lanes[0],
		        (unsigned long long)s->absent_lanes[0], (unsigned long long)s->spline_parts[1],
		        (unsigned long long)s->static_parts[1], (unsigned long long)s->absent_parts[1],
		        (unsigned long long)s->spline_lanes[2], (unsigned long long)s->static_lanes[2],
		        (unsigned long long)s->absent_lanes[2], (unsigned long long)d1, (unsigned long long)d3,
		        (unsigned long long)s->selectors[HKS_ROT_THREECOMP40],
		        (unsigned long long)s->selectors[HKS_ROT_THREECOMP48], (unsigned long long)other);
	}

	/* plot: retail ratio distribution per folder (sorted ratios) */
	char img[4096];
	snprintf(img, sizeof(img), "%s/img/retail-ratio.png", docs);
	FILE *g = gp_open(img);
	if (g) {
		fputs("set title 'Retail Havok compression ratio per clip (clips sorted by ratio)'\n"
		      "set xlabel 'share of the folder''s clips'\nset ylabel 'ratio (raw / compressed)'\nset logscale y\n",
		      g);
		int series = 0;
		for (size_t gi = 0; gi < G; gi++) {
			size_t gg = order[gi], m = 0;
			for (size_t i = 0; i < nc; i++)
				if (clips[i]->group == (int)gg && clips[i]->walked)
					scratch[m++] = clips[i]->retail.ratio;
			if (m < 20)
				continue; /* folders with a handful of clips make no distribution */
			qsort(scratch, m, sizeof(double), cmp_double);
			fprintf(g, "$g%zu << EOD\n", gg);
			for (size_t i = 0; i < m; i++)
				fprintf(g, "%.6f %.6f\n", (double)(i + 1) / (double)m, scratch[i]);
			fputs("EOD\n", g);
			series++;
		}
		fputs("plot ", g);
		int k = 0;
		for (size_t gi = 0; gi < G; gi++) {
			size_t gg = order[gi], m = 0;
			for (size_t i = 0; i < nc; i++)
				m += clips[i]->group == (int)gg && clips[i]->walked;
			if (m < 20)
				continue;
			fprintf(g, "%s$g%zu using 1:2 with lines lw 2 title ", k++ ? ", " : "", gg);
			gp_string(g, j.groups[gg]);
		}
		if (!series)
			fputs("0 notitle", g);
		fputc('\n', g);
		pclose(g);
	}
	fprintf(md, "\n![Retail ratio per clip](img/retail-ratio.png)\n\n");

	/* the re-encode */
	size_t encoded = 0;
	for (size_t i = 0; i < nc; i++)
		encoded += clips[i]->encoded;
	if (encode) {
		fprintf(md, "## The project's re-encode of the decoded frames\n\n"
		            "One file in %ld (loader order): its animations decoded, re-encoded with Havok's defaults\n"
		            "(tolerance 0.001 on every part, degree 3, the original's per-track quantizations, maxFramesPerBlock\n"
		            "and SDK), and the encode's frames compared with the decoded frames at every frame. Clips whose decoded\n"
		            "frames hold NaN or infinities are not re-encoded here. The retail ratio column is over the same clips.\n"
		            "Object space (ACL virtual vertices, shell 0.03 m) where the loader finds the clip's skeleton.\n\n"
		            "| folder | clips | retail ratio | our ratio | max translation (mm) | max rotation (deg) | "
		            "median / max object space (mm) | median p99 object space (mm) | clips with skeleton |\n"
		            "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
		        stride);
		for (size_t gi = 0; gi < G; gi++) {
			size_t gg = order[gi], m = 0, mo = 0;
			uint64_t raw = 0, retail = 0, ours = 0;
			double mt = 0, mr = 0, mxo = 0;
			double *p99 = calloc(nc + 1, sizeof(double));
			for (size_t i = 0; i < nc; i++) {
				const clip *c = clips[i];
				if (c->group != (int)gg || !c->encoded)
					continue;
				m++;
				raw += c->retail.raw_size;
				retail += c->retail.compressed_size;
				ours += c->our_size;
				mt = fmax(mt, c->max_translation);
				mr = fmax(mr, c->max_rotation_deg);
				if (c->has_object) {
					if (p99)
						p99[mo] = c->p99_object;
					scratch[mo++] = c->max_object;
					mxo = fmax(mxo, c->max_object);
				}
			}
			if (m) {
				char obj[64] = "-", pp[32] = "-";
				if (mo) {
					snprintf(obj, sizeof(obj), "%.3f / %.2f", median(scratch, mo) * 1000, mxo * 1000);
					if (p99)
						snprintf(pp, sizeof(pp), "%.3f", median(p99, mo) * 1000);
				}
				fprintf(md, "| %s | %zu | %.2f | %.2f | %.3f | %.3f | %s | %s | %zu |\n", j.groups[gg], m,
				        retail ? (double)raw / (double)retail : 0, ours ? (double)raw / (double)ours : 0, mt * 1000,
				        mr, obj, pp, mo);
			}
			free(p99);
		}
		size_t failed = 0, nonfinite = 0;
		for (size_t i = 0; i < nc; i++) {
			failed += clips[i]->encode_error != NULL;
			nonfinite += clips[i]->nonfinite;
		}
		fprintf(md, "\n%zu clips re-encoded and compared; %zu skipped for non-finite decoded frames; %zu failed.\n",
		        encoded, nonfinite, failed);
		for (size_t i = 0, shown = 0; i < nc && shown < 10; i++)
			if (clips[i]->encode_error) {
				fprintf(md, "%s `%s` animation %u: %s\n", shown ? "" : "\nFailures:\n\n*", clips[i]->path,
				        clips[i]->animation, clips[i]->encode_error);
				shown++;
			}

		/* the clips with the largest object-space errors, for whoever works on the encoder */
		const clip *top[8] = {0};
		for (size_t i = 0; i < nc; i++) {
			const clip *c = clips[i];
			if (!c->encoded || !c->has_object)
				continue;
			int at = 8;
			while (at > 0 && (!top[at - 1] || top[at - 1]->max_object < c->max_object))
				at--;
			if (at >= 8)
				continue;
			memmove(&top[at + 1], &top[at], (size_t)(7 - at) * sizeof(top[0]));
			top[at] = c;
		}
		if (top[0]) {
			fprintf(md, "\nLargest object-space errors of the re-encode:\n\n"
			            "| clip | animation | max object space (mm) | worst bone | frame | max translation (mm) | "
			            "max rotation (deg) | max scale |\n|---|---:|---:|---|---:|---:|---:|---:|\n");
			for (int k = 0; k < 8 && top[k]; k++)
				fprintf(md, "| `%s` | %u | %.3f | %s | %d | %.3f | %.3f | %.2g |\n", top[k]->path, top[k]->animation,
				        top[k]->max_object * 1000, top[k]->worst_bone ? top[k]->worst_bone : "?",
				        (int)top[k]->worst_frame, top[k]->max_translation * 1000, top[k]->max_rotation_deg,
				        top[k]->max_scale);
		}

		/* plot: ratio against max object-space error */
		snprintf(img, sizeof(img), "%s/img/ratio-vs-error.png", docs);
		if (encoded && (g = gp_open(img))) {
			fputs("set title 'Re-encode: compression ratio against max object-space error per clip'\n"
			      "set xlabel 'max object-space error (mm, log)'\nset ylabel 'ratio'\nset logscale x\n",
			      g);
			int k = 0;
			for (size_t gi = 0; gi < G; gi++) {
				size_t gg = order[gi];
				fprintf(g, "$e%zu << EOD\n", gg);
				for (size_t i = 0; i < nc; i++) {
					const clip *c = clips[i];
					if (c->group == (int)gg && c->encoded && c->has_object && c->our_size && c->max_object > 0)
						fprintf(g, "%.9g %.6f\n", c->max_object * 1000, (double)c->retail.raw_size / (double)c->our_size);
				}
				fputs("EOD\n", g);
			}
			fputs("plot ", g);
			for (size_t gi = 0; gi < G; gi++) {
				size_t gg = order[gi], m = 0;
				for (size_t i = 0; i < nc; i++)
					m += clips[i]->group == (int)gg && clips[i]->encoded && clips[i]->has_object &&
					     clips[i]->max_object > 0;
				if (!m)
					continue;
				fprintf(g, "%s$e%zu using 1:2 with points pt 7 ps 0.5 title ", k++ ? ", " : "", gg);
				gp_string(g, j.groups[gg]);
			}
			if (!k)
				fputs("1 notitle", g);
			fputc('\n', g);
			pclose(g);
			fprintf(md, "\n![Ratio against max object-space error](img/ratio-vs-error.png)\n");
		}
		/* plot: error over frames of the worst bones, for the clip with the median max object error */
		size_t mo = 0;
		for (size_t i = 0; i < nc; i++)
			if (clips[i]->encoded && clips[i]->has_object && clips[i]->curve)
				scratch[mo++] = clips[i]->max_object;
		if (mo) {
			double med = median(scratch, mo);
			const clip *pick = NULL;
			for (size_t i = 0; i < nc && !pick; i++)
				if (clips[i]->encoded && clips[i]->has_object && clips[i]->curve && clips[i]->max_object == med)
					pick = clips[i];
			for (size_t i = 0; i < nc && !pick; i++) /* an even count: the median is a mean; take the next above */
				if (clips[i]->encoded && clips[i]->has_object && clips[i]->curve && clips[i]->max_object >= med)
					pick = clips[i];
			snprintf(img, sizeof(img), "%s/img/error-over-frames.png", docs);
			if (pick && (g = gp_open(img))) {
				fprintf(g, "set title ");
				char title[1200];
				snprintf(title, sizeof(title), "Re-encode of %s: object-space error of the worst bones", pick->path);
				gp_string(g, title);
				fputs("\nset xlabel 'frame'\nset ylabel 'object-space error (mm)'\nset datafile missing 'NaN'\n$c << EOD\n",
				      g);
				for (uint32_t f = 0; f < pick->curve_frames; f++) {
					fprintf(g, "%u", f);
					for (int k = 0; k < PLOT_BONES; k++) {
						double v = pick->curve[(size_t)f * PLOT_BONES + k];
						if (isfinite(v))
							fprintf(g, " %.9g", v * 1000);
						else
							fputs(" NaN", g);
					}
					fputc('\n', g);
				}
				fputs("EOD\nplot ", g);
				for (int k = 0; k < PLOT_BONES && pick->curve_names[k]; k++) {
					fprintf(g, "%s$c using 1:%d with lines lw 1.5 title ", k ? ", " : "", k + 2);
					gp_string(g, pick->curve_names[k]);
				}
				fputc('\n', g);
				pclose(g);
				fprintf(md, "\n![Error over frames](img/error-over-frames.png)\n\n"
				            "The clip shown is the one with the median max object-space error among the re-encoded clips\n"
				            "(`%s`, max %.3f mm at frame %d, worst bone %s).\n",
				        pick->path, pick->max_object * 1000, (int)pick->worst_frame,
				        pick->worst_bone ? pick->worst_bone : "?");
			}
		}
		presets_section(md, docs, clips, nc, j.groups, order, G, preset_stride, scratch);
	}
	fclose(md);
	for (size_t u = 0; u < j.count; u++) {
		for (size_t k = 0; k < j.units[u].num_clips; k++) {
			clip *c = &j.units[u].clips[k];
			free(c->path);
			free(c->encode_error);
			free(c->worst_bone);
			free(c->curve);
			for (int b = 0; b < PLOT_BONES; b++)
				free(c->curve_names[b]);
		}
		free(j.units[u].clips);
	}
	free(j.units);
	free(clips);
	free(scratch);
	hks_loader_free(j.loader);
	pthread_mutex_destroy(&j.mutex);
	printf("wrote %s (%zu clips, %zu re-encoded)\n", path, nc, encoded);
	return 0;
}
