/*
 * hkspline stats [--json|--csv] [-j N] [--no-progress] [--compendium P]... PATH...
 *
 * Compression statistics of every spline animation under the given paths
 * (docs/METRICS.md §5): raw size (40 bytes per transform track-frame, 4 per
 * float track-frame), compressed size, ratio, bytes per category from the
 * stored structure (hks_spline_stats_compute), lane counts per part,
 * selectors and degrees. Files are processed by N threads; each file's
 * result has its own slot, so the output is the same for every -j.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "progress.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct anim_stats {
	uint32_t index;
	hks_spline_stats st;
	char *error; /* walk failure, NULL when the stats are valid */
} anim_stats;

typedef struct unit_stats {
	char *path;
	char sdk[32];
	char *error; /* parse failure */
	anim_stats *anims;
	size_t num_anims;
} unit_stats;

typedef struct stats_job {
	hks_loader *loader;
	size_t count;
	unit_stats *units;
	atomic_size_t next, done;
} stats_job;

static char *dup_str(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = (char *)malloc(n);
	if (p)
		memcpy(p, s, n);
	return p;
}

static char *format_error(const hks_error *e)
{
	char buf[2048];
	hks_error_format(e, buf, sizeof(buf));
	return dup_str(buf);
}

static void stats_one(stats_job *job, size_t index)
{
	unit_stats *u = &job->units[index];
	const char *path = hks_loader_path(job->loader, index);
	u->path = dup_str(path ? path : "?");
	hks_loaded *ld = NULL;
	hks_result r = hks_loader_load(job->loader, index, &ld);
	if (r != HKS_OK || !ld) {
		u->error = dup_str(hks_result_name(r));
		return;
	}
	snprintf(u->sdk, sizeof(u->sdk), "%s", ld->sdk[0] ? ld->sdk : hks_container_name(ld->container));
	if (ld->status != HKS_OK) {
		u->error = format_error(&ld->error);
		hks_loaded_free(ld);
		return;
	}
	const hks_file *f = ld->file;
	u->anims = (anim_stats *)calloc(f->num_animations + 1, sizeof(anim_stats));
	for (uint32_t i = 0; u->anims && i < f->num_animations; i++) {
		if (f->animations[i].kind != HKS_ANIMATION_SPLINE)
			continue;
		anim_stats *a = &u->anims[u->num_anims++];
		a->index = i;
		hks_walk_options wo;
		memset(&wo, 0, sizeof(wo));
		wo.animation_index = (int32_t)i;
		wo.base.name = u->path;
		hks_stored_animation *s = NULL;
		hks_error err;
		if (hks_stored_read(&f->animations[i], &wo, &s, &err) != HKS_OK) {
			a->error = format_error(&err);
			continue;
		}
		hks_spline_stats_compute(s, &a->st);
		hks_stored_free(s);
	}
	hks_loaded_free(ld);
}

static void *worker(void *arg)
{
	stats_job *job = (stats_job *)arg;
	for (;;) {
		size_t i = atomic_fetch_add(&job->next, 1);
		if (i >= job->count)
			break;
		stats_one(job, i);
		atomic_fetch_add(&job->done, 1);
	}
	return NULL;
}

/* ---- output ---- */

static const char *const part_keys[4] = {"translation", "rotation", "scale", "float"};

static void csv_header(FILE *out)
{
	fputs("path,animation,sdk,frames,transform_tracks,float_tracks,blocks,raw_size,compressed_size,ratio,"
	      "masks,knots,bounds,static_values,control_points,packed_quaternions,padding,guard,unaccounted,"
	      "t_spline_lanes,t_static_lanes,t_absent_lanes,r_spline,r_static,r_absent,"
	      "s_spline_lanes,s_static_lanes,s_absent_lanes,f_spline,f_static,f_absent,"
	      "sel_polar32,sel_threecomp40,sel_threecomp48,sel_threecomp24,sel_straight16,sel_uncompressed,"
	      "degree1,degree2,degree3,error\n",
	      out);
}

static void csv_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; s && *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void csv_row(FILE *out, const char *path, long anim, const char *sdk, const hks_spline_stats *s,
                    const char *error)
{
	csv_string(out, path);
	fprintf(out, ",%ld,", anim);
	csv_string(out, sdk);
	if (error) {
		fputs(",,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,", out);
		csv_string(out, error);
		fputc('\n', out);
		return;
	}
	uint64_t deg[4] = {0};
	for (int p = 0; p < 4; p++)
		for (int d = 0; d < 4; d++)
			deg[d] += s->degrees[p][d];
	fprintf(out, ",%u,%u,%u,%u,%llu,%llu,%.6f", s->frames, s->transform_tracks, s->float_tracks, s->blocks,
	        (unsigned long long)s->raw_size, (unsigned long long)s->compressed_size, s->ratio);
	const uint64_t v[] = {s->masks, s->knots, s->bounds, s->static_values, s->control_points,
	                      s->packed_quaternions, s->padding, s->guard};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		fprintf(out, ",%llu", (unsigned long long)v[i]);
	fprintf(out, ",%lld", (long long)s->unaccounted);
	for (int p = 0; p < 4; p++) {
		if (p == 1 || p == 3)
			fprintf(out, ",%llu,%llu,%llu", (unsigned long long)s->spline_parts[p],
			        (unsigned long long)s->static_parts[p], (unsigned long long)s->absent_parts[p]);
		else
			fprintf(out, ",%llu,%llu,%llu", (unsigned long long)s->spline_lanes[p],
			        (unsigned long long)s->static_lanes[p], (unsigned long long)s->absent_lanes[p]);
	}
	for (int k = 0; k < 6; k++)
		fprintf(out, ",%llu", (unsigned long long)s->selectors[k]);
	fprintf(out, ",%llu,%llu,%llu,\n", (unsigned long long)deg[1], (unsigned long long)deg[2],
	        (unsigned long long)deg[3]);
}

static void text_stats(FILE *out, const char *label, const hks_spline_stats *s)
{
	fprintf(out, "%s: %u frames, %u tracks + %u float, %u blocks: raw %llu B, compressed %llu B, ratio %.3f\n",
	        label, s->frames, s->transform_tracks, s->float_tracks, s->blocks, (unsigned long long)s->raw_size,
	        (unsigned long long)s->compressed_size, s->ratio);
}

static void text_details(FILE *out, const hks_spline_stats *s)
{
	double c = s->compressed_size ? (double)s->compressed_size : 1.0;
	const struct {
		const char *k;
		uint64_t v;
	} cats[] = {{"masks", s->masks},
	            {"knots", s->knots},
	            {"bounds", s->bounds},
	            {"static values", s->static_values},
	            {"control points", s->control_points},
	            {"packed quaternions", s->packed_quaternions},
	            {"padding", s->padding},
	            {"guard", s->guard}};
	for (size_t i = 0; i < sizeof(cats) / sizeof(cats[0]); i++)
		fprintf(out, "  %-19s %12llu B  %6.2f %%\n", cats[i].k, (unsigned long long)cats[i].v,
		        100.0 * (double)cats[i].v / c);
	if (s->unaccounted)
		fprintf(out, "  %-19s %12lld B  (the layout does not explain these bytes)\n", "unaccounted",
		        (long long)s->unaccounted);
	for (int p = 0; p < 4; p++) {
		if (p == 1 || p == 3)
			fprintf(out, "  %-11s parts: %llu spline, %llu static, %llu absent", part_keys[p],
			        (unsigned long long)s->spline_parts[p], (unsigned long long)s->static_parts[p],
			        (unsigned long long)s->absent_parts[p]);
		else
			fprintf(out, "  %-11s lanes: %llu spline, %llu static, %llu absent", part_keys[p],
			        (unsigned long long)s->spline_lanes[p], (unsigned long long)s->static_lanes[p],
			        (unsigned long long)s->absent_lanes[p]);
		fprintf(out, "; degrees 1/2/3: %llu/%llu/%llu\n", (unsigned long long)s->degrees[p][1],
		        (unsigned long long)s->degrees[p][2], (unsigned long long)s->degrees[p][3]);
	}
	static const char *const sel[6] = {"Polar32", "ThreeComp40", "ThreeComp48", "ThreeComp24", "Straight16",
	                                   "Uncompressed"};
	fprintf(out, "  selectors:");
	for (int k = 0; k < 6; k++)
		if (s->selectors[k])
			fprintf(out, " %s %llu", sel[k], (unsigned long long)s->selectors[k]);
	fputc('\n', out);
}

static void usage(FILE *out)
{
	fprintf(out, "usage: hkspline stats [--json|--csv] [-j N] [--no-progress] [--compendium P]... PATH...\n"
	             "Compression statistics of every spline animation in the files, folders, binders and DCX\n"
	             "archives given: sizes, ratio, bytes per category, lanes, selectors, degrees (docs/METRICS.md).\n");
}

static bool parse_jobs(const char *s, long *out)
{
	char *end = NULL;
	long v = strtol(s, &end, 10);
	if (!s[0] || *end || v < 1 || v > 1024)
		return false;
	*out = v;
	return true;
}

int cmd_stats(int argc, char **argv)
{
	bool json = false, csv = false, progress = true;
	long jobs = 0;
	const char **comps = (const char **)calloc((size_t)argc + 1, sizeof(char *));
	const char **paths = (const char **)calloc((size_t)argc + 1, sizeof(char *));
	size_t ncomps = 0, npaths = 0;
	int status = 2;
	if (!comps || !paths)
		goto done;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			status = 0;
			goto done;
		} else if (!strcmp(a, "--json"))
			json = true;
		else if (!strcmp(a, "--csv"))
			csv = true;
		else if (!strcmp(a, "--no-progress"))
			progress = false;
		else if ((!strcmp(a, "-j") || !strcmp(a, "--jobs")) && i + 1 < argc) {
			if (!parse_jobs(argv[++i], &jobs)) {
				fprintf(stderr, "hkspline stats: -j needs a thread count from 1 to 1024\n");
				goto done;
			}
		} else if (!strncmp(a, "-j", 2) && a[2]) {
			if (!parse_jobs(a + 2, &jobs)) {
				fprintf(stderr, "hkspline stats: bad thread count '%s'\n", a + 2);
				goto done;
			}
		} else if (!strcmp(a, "--compendium") && i + 1 < argc)
			comps[ncomps++] = argv[++i];
		else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "hkspline stats: unknown or incomplete option '%s'\n", a);
			usage(stderr);
			goto done;
		} else
			paths[npaths++] = a;
	}
	if (!npaths || (json && csv)) {
		usage(stderr);
		goto done;
	}
	if (jobs == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		jobs = n > 0 ? n : 1;
	}
	hks_load_options lo;
	memset(&lo, 0, sizeof(lo));
	lo.compendium_paths = comps;
	lo.num_compendium_paths = ncomps;
	hks_loader *loader = NULL;
	hks_error err;
	if (hks_loader_create(&lo, &loader, &err) != HKS_OK) {
		cli_print_error(&err);
		goto done;
	}
	for (size_t i = 0; i < npaths; i++)
		if (hks_loader_add_path(loader, paths[i], &err) != HKS_OK) {
			cli_print_error(&err);
			hks_loader_free(loader);
			goto done;
		}
	stats_job job;
	memset(&job, 0, sizeof(job));
	job.loader = loader;
	job.count = hks_loader_count(loader);
	job.units = (unit_stats *)calloc(job.count + 1, sizeof(unit_stats));
	atomic_init(&job.next, 0);
	atomic_init(&job.done, 0);
	if (!job.units) {
		hks_loader_free(loader);
		goto done;
	}
	size_t threads = (size_t)jobs < job.count ? (size_t)jobs : job.count;
	pthread_t *tids = (pthread_t *)calloc(threads + 1, sizeof(pthread_t));
	size_t started = 0;
	cli_progress bar;
	cli_progress_start(&bar, progress, job.count, "files");
	for (size_t t = 0; tids && t < threads; t++) {
		if (pthread_create(&tids[t], NULL, worker, &job) != 0)
			break;
		started++;
	}
	if (started == 0)
		worker(&job);
	else {
		while (atomic_load(&job.done) < job.count) {
			cli_progress_update(&bar, atomic_load(&job.done));
			struct timespec ts = {0, 50 * 1000 * 1000};
			nanosleep(&ts, NULL);
		}
		for (size_t t = 0; t < started; t++)
			pthread_join(tids[t], NULL);
	}
	cli_progress_update(&bar, job.count);
	cli_progress_finish(&bar);
	free(tids);

	hks_spline_stats total;
	memset(&total, 0, sizeof(total));
	size_t animations = 0, failures = 0;
	for (size_t k = 0; k < job.count; k++) {
		unit_stats *u = &job.units[k];
		failures += u->error != NULL;
		for (size_t a = 0; a < u->num_anims; a++) {
			if (u->anims[a].error) {
				failures++;
				continue;
			}
			animations++;
			hks_spline_stats_add(&total, &u->anims[a].st);
		}
	}
	if (csv) {
		csv_header(stdout);
		for (size_t k = 0; k < job.count; k++) {
			unit_stats *u = &job.units[k];
			if (u->error)
				csv_row(stdout, u->path, -1, u->sdk, NULL, u->error);
			for (size_t a = 0; a < u->num_anims; a++)
				csv_row(stdout, u->path, (long)u->anims[a].index, u->sdk, &u->anims[a].st, u->anims[a].error);
		}
	} else if (json) {
		cli_json j;
		cli_json_init(&j, stdout, true);
		cli_json_begin_object(&j);
		cli_json_key(&j, "animations");
		cli_json_begin_array(&j);
		for (size_t k = 0; k < job.count; k++) {
			unit_stats *u = &job.units[k];
			for (size_t a = 0; a < u->num_anims; a++) {
				cli_json_begin_object(&j);
				cli_json_key(&j, "path");
				cli_json_string(&j, u->path);
				cli_json_key(&j, "animation");
				cli_json_uint(&j, u->anims[a].index);
				cli_json_key(&j, "sdk");
				cli_json_string(&j, u->sdk);
				if (u->anims[a].error) {
					cli_json_key(&j, "error");
					cli_json_string(&j, u->anims[a].error);
				} else {
					cli_json_key(&j, "stats");
					cli_json_spline_stats(&j, &u->anims[a].st);
				}
				cli_json_end_object(&j);
			}
		}
		cli_json_end_array(&j);
		cli_json_key(&j, "total");
		cli_json_spline_stats(&j, &total);
		cli_json_key(&j, "failures");
		cli_json_begin_array(&j);
		for (size_t k = 0; k < job.count; k++)
			if (job.units[k].error) {
				cli_json_begin_object(&j);
				cli_json_key(&j, "path");
				cli_json_string(&j, job.units[k].path);
				cli_json_key(&j, "error");
				cli_json_string(&j, job.units[k].error);
				cli_json_end_object(&j);
			}
		cli_json_end_array(&j);
		cli_json_end_object(&j);
		fputc('\n', stdout);
	} else {
		for (size_t k = 0; k < job.count; k++) {
			unit_stats *u = &job.units[k];
			if (u->error)
				printf("FAIL %s: %s\n", u->path, u->error);
			for (size_t a = 0; a < u->num_anims; a++) {
				char label[1024];
				snprintf(label, sizeof(label), "%s#%u", u->path, u->anims[a].index);
				if (u->anims[a].error)
					printf("FAIL %s: %s\n", label, u->anims[a].error);
				else {
					text_stats(stdout, label, &u->anims[a].st);
					if (animations == 1)
						text_details(stdout, &u->anims[a].st);
				}
			}
		}
		if (animations > 1) {
			char label[64];
			snprintf(label, sizeof(label), "total (%zu animations)", animations);
			text_stats(stdout, label, &total);
			text_details(stdout, &total);
		}
	}
	fflush(stdout);
	status = failures ? 1 : 0;
	for (size_t k = 0; k < job.count; k++) {
		unit_stats *u = &job.units[k];
		for (size_t a = 0; a < u->num_anims; a++)
			free(u->anims[a].error);
		free(u->anims);
		free(u->error);
		free(u->path);
	}
	free(job.units);
	hks_loader_free(loader);
done:
	free(comps);
	free(paths);
	return status;
}
