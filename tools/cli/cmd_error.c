/*
 * hkspline error A B [--skeleton S] [--shell D] [--shell-override 'GLOB=D']...
 *                    [--threshold T] [--json|--csv] [--report summary|detailed|exhaustive]
 *                    [--plot OUT.png] [--animation I] [--compendium P]... [--no-header] [--strict]
 * hkspline error DIR_A DIR_B [--json|--csv] [-j N] [--no-progress] ...
 *
 * Compares animation B against animation A at every stored frame and every
 * track. The work is the library's (hks_compare_paths, hks_compare_dirs,
 * hks_comparison_json; src/metrics/compare_inputs.c, compare_dirs.c): A and B
 * are Havok files (loose, BINDER:MEMBER, or a binder/DCX holding one Havok
 * file) or decoded-frames JSON written by `hkspline decode`; the skeleton is
 * --skeleton, else one in A's or B's file, else the one the loader finds
 * beside them, else the JSON's source.skeleton. When the track sets differ,
 * tracks are matched by bone name; when the frame counts differ, the common
 * frames are compared; either is said in the output and exits 1 with
 * --strict. Here: arguments, then text, CSV or JSON. Exit status 0, 1 (a
 * folder pair failed, or --strict and something was left out), 2 on usage /
 * input errors.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli_donor.h"
#include "cli_units.h"
#include "progress.h"

#include "platform.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Tracks drawn by --plot. */
#define PLOT_TRACKS 5

static const char *nz(const char *s) { return s ? s : ""; }

/* "N only in A (x, y, ...)" names, at most 12 of them. */
static void print_names(FILE *out, const char *const *names, uint32_t n)
{
	fputs(" (", out);
	for (uint32_t i = 0; i < n && i < 12; i++)
		fprintf(out, "%s%s", i ? ", " : "", names[i]);
	if (n > 12)
		fprintf(out, ", ... %u more", n - 12);
	fputc(')', out);
}

/* What was left out of an incomplete comparison, one line (no newline). */
static void print_coverage(FILE *out, const hks_comparison *c)
{
	fprintf(out, "compared %u common frames (A %u, B %u), %u tracks (A %u, B %u) matched by %s", c->frames_compared,
	        c->frames[0], c->frames[1], c->result->num_transform_tracks, c->transform_tracks[0],
	        c->transform_tracks[1], c->matched_by_name ? "bone name" : "index");
	if (c->num_only_in[0]) {
		fprintf(out, ", %u only in A", c->num_only_in[0]);
		print_names(out, c->only_in[0], c->num_only_in[0]);
	}
	if (c->num_only_in[1]) {
		fprintf(out, ", %u only in B", c->num_only_in[1]);
		print_names(out, c->only_in[1], c->num_only_in[1]);
	}
	fprintf(out, ", %u float tracks (A %u, B %u)", c->result->num_float_tracks, c->float_tracks[0],
	        c->float_tracks[1]);
}

/* ---- output ---- */

static bool write_json(FILE *out, const hks_comparison *c, hks_comparison_detail detail, bool pretty)
{
	uint8_t *bytes = NULL;
	size_t size = 0;
	hks_error err;
	if (hks_comparison_json(c, detail, pretty, &bytes, &size, &err) != HKS_OK) {
		cli_print_error(&err);
		return false;
	}
	fwrite(bytes, 1, size, out);
	hks_buffer_free(NULL, bytes, size);
	return true;
}

/* A quoted CSV field, preceded by a comma unless it is the first of the row. */
static void csv_field_sep(FILE *out, const char *s, bool first)
{
	if (!first)
		fputc(',', out);
	if (s)
		cli_csv_quoted(out, s);
}

static void csv_field(FILE *out, const char *s) { csv_field_sep(out, s, false); }

static const char csv_columns[] =
	"a,b,animation,frames,tracks,float_tracks,max_translation,max_rotation_deg,max_rotation_component,max_scale,"
	"max_float,max_local_vertex,max_object_space,mean_object_space,p99_object_space,under_threshold,"
	"worst_track,worst_bone,worst_frame,nan_samples,error\n";

/* One row; `n` NULL writes the error row of a pair that could not be compared. */
static void write_csv_row(FILE *out, const char *a, const char *b, long animation, const hks_comparison *c,
                          const char *error)
{
	csv_field_sep(out, a, true);
	csv_field(out, b);
	fprintf(out, ",%ld", animation);
	if (!c) {
		fputs(",,,,,,,,,,,,,,,,,", out);
		csv_field(out, error);
		fputc('\n', out);
		return;
	}
	const hks_compare_result *r = c->result;
	fprintf(out, ",%u,%u,%u,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g", r->num_frames, r->num_transform_tracks,
	        r->num_float_tracks, r->metric[HKS_METRIC_TRANSLATION].max, r->metric[HKS_METRIC_ROTATION_DEG].max,
	        r->metric[HKS_METRIC_ROTATION_COMPONENT].max, r->metric[HKS_METRIC_SCALE].max,
	        r->metric[HKS_METRIC_FLOAT].max, r->metric[HKS_METRIC_LOCAL_VERTEX].max);
	if (r->has_object_space)
		fprintf(out, ",%.9g,%.9g,%.9g", r->metric[HKS_METRIC_OBJECT_SPACE].max,
		        r->metric[HKS_METRIC_OBJECT_SPACE].mean, r->metric[HKS_METRIC_OBJECT_SPACE].p99);
	else
		fputs(",,,", out);
	fprintf(out, ",%.9g,%d", r->under_threshold, (int)r->worst_track);
	csv_field(out, hks_comparison_bone_name(c, r->worst_bone, r->worst_track));
	fprintf(out, ",%d,%llu,\n", (int)r->worst_frame, (unsigned long long)r->nan_samples);
}

static void write_text(FILE *out, const hks_comparison *c)
{
	const hks_compare_result *r = c->result;
	const char *skeleton_path = c->skeleton_path;
	double threshold = c->threshold;
	const hks_seam_report *seams = c->seams;
	const int *has_seams = c->has_seams;
	fprintf(out, "%u frames, %u tracks, %u float tracks; skeleton: %s\n", r->num_frames, r->num_transform_tracks,
	        r->num_float_tracks, skeleton_path ? skeleton_path : "none (local metrics only)");
	if (!c->complete) {
		fputs("not everything compared: ", out);
		print_coverage(out, c);
		fputc('\n', out);
	}
	fprintf(out, "%-20s %14s %14s %14s  %s\n", "metric", "max", "mean", "p99", "worst (track/bone @ frame)");
	for (int m = 0; m < HKS_METRIC_COUNT; m++) {
		const hks_metric_summary *s = &r->metric[m];
		if (m == HKS_METRIC_OBJECT_SPACE && !r->has_object_space)
			continue;
		if (m == HKS_METRIC_FLOAT && !r->num_float_tracks)
			continue;
		fprintf(out, "%-20s %14.9g %14.9g %14.9g  ", hks_metric_name((hks_metric)m), s->max, s->mean, s->p99);
		if (s->worst_index < 0)
			fputs("-\n", out);
		else if (m == HKS_METRIC_OBJECT_SPACE)
			fprintf(out, "bone %d %s @ %d\n", (int)s->worst_index, nz(hks_comparison_bone_name(c, s->worst_index, -1)),
			        (int)s->worst_frame);
		else if (m == HKS_METRIC_FLOAT)
			fprintf(out, "float track %d @ %d\n", (int)s->worst_index, (int)s->worst_frame);
		else
			fprintf(out, "track %d %s @ %d\n", (int)s->worst_index,
			        nz(hks_comparison_bone_name(c, r->track_bone[s->worst_index], s->worst_index)), (int)s->worst_frame);
	}
	fprintf(out, "%s: %.4f %% of samples within %g m; %llu NaN samples\n", hks_metric_name(r->primary),
	        100.0 * r->under_threshold, threshold, (unsigned long long)r->nan_samples);
	for (int k = 0; k < 2; k++)
		if (has_seams[k])
			fprintf(out, "block seams of %s (%u): translation %.3g m, rotation %.3g deg, scale %.3g, float %.3g\n",
			        k ? "B" : "A", seams[k].seams, seams[k].max_translation, seams[k].max_rotation_deg,
			        seams[k].max_scale, seams[k].max_float);
}

/* ---- --plot: error over frames of the worst tracks (gnuplot) ---- */

static void gnuplot_string(FILE *g, const char *s) { cli_write_quoted(g, s, '\''); }

static int write_plot(const char *png, const hks_comparison *c)
{
	const hks_compare_result *r = c->result;
	hks_metric m = r->primary;
	uint32_t w = m == HKS_METRIC_OBJECT_SPACE ? r->num_bones : r->num_transform_tracks;
	const double *v = r->values[m];
	/* the PLOT_TRACKS columns with the largest maxima */
	int32_t pick[PLOT_TRACKS];
	double best[PLOT_TRACKS];
	int np = 0;
	for (uint32_t i = 0; i < w; i++) {
		double mx = -1;
		for (uint32_t f = 0; f < r->num_frames; f++) {
			double x = v[(size_t)f * w + i];
			if (isfinite(x) && x > mx)
				mx = x;
		}
		if (mx < 0)
			continue;
		int at = np < PLOT_TRACKS ? np++ : PLOT_TRACKS;
		if (at == PLOT_TRACKS) {
			if (mx <= best[PLOT_TRACKS - 1])
				continue;
			at = PLOT_TRACKS - 1;
		}
		while (at > 0 && best[at - 1] < mx) {
			best[at] = best[at - 1];
			pick[at] = pick[at - 1];
			at--;
		}
		best[at] = mx;
		pick[at] = (int32_t)i;
	}
	FILE *g = popen("gnuplot", "w");
	if (!g) {
		fprintf(stderr, "hkspline error: cannot run gnuplot (install the gnuplot-nox package)\n");
		return 2;
	}
	fputs("set terminal pngcairo size 960,540 font 'sans,10' noenhanced\nset output ", g);
	gnuplot_string(g, png);
	fprintf(g, "\nset xlabel 'frame'\nset ylabel '%s error (mm)'\nset key top left\nset grid\n",
	        m == HKS_METRIC_OBJECT_SPACE ? "object-space" : "local vertex");
	fputs("set title ", g);
	char title[1200];
	snprintf(title, sizeof(title), "%s vs %s: worst %s", c->b, c->a,
	         m == HKS_METRIC_OBJECT_SPACE ? "bones" : "tracks");
	gnuplot_string(g, title);
	fputs("\nset datafile missing 'NaN'\n$d << EOD\n", g);
	for (uint32_t f = 0; f < r->num_frames; f++) {
		fprintf(g, "%u", f);
		for (int k = 0; k < np; k++) {
			double x = v[(size_t)f * w + (size_t)pick[k]];
			if (isfinite(x))
				fprintf(g, " %.9g", x * 1000.0);
			else
				fputs(" NaN", g);
		}
		fputc('\n', g);
	}
	fputs("EOD\nplot ", g);
	for (int k = 0; k < np; k++) {
		const char *name = m == HKS_METRIC_OBJECT_SPACE ? hks_comparison_bone_name(c, pick[k], -1)
		                                                 : hks_comparison_bone_name(c, r->track_bone[pick[k]], pick[k]);
		char label[256];
		snprintf(label, sizeof(label), "%s %d%s%s", m == HKS_METRIC_OBJECT_SPACE ? "bone" : "track", (int)pick[k],
		         name ? " " : "", name ? name : "");
		fprintf(g, "%s$d using 1:%d with lines lw 1.5 title ", k ? ", " : "", k + 2);
		gnuplot_string(g, label);
	}
	if (np == 0)
		fputs("0 title 'no finite samples'", g);
	fputc('\n', g);
	int rc = pclose(g);
	if (rc != 0) {
		fprintf(stderr, "hkspline error: gnuplot failed (status %d)\n", rc);
		return 2;
	}
	return 0;
}


/* ---- folder mode: A and B are folders; files matched by their path below each ---- */

typedef struct folder_out {
	char *text;         /* this pair's rows (CSV), objects (JSON) or lines (text) */
	size_t size;
} folder_out;

typedef struct folder_job {
	folder_out *outs;      /* per pair index (under lock; grown as pairs finish) */
	size_t num_outs;
	bool nomem;
	bool csv, json;
	unsigned incomplete;   /* comparisons that left something out (under lock) */
	hks_mutex lock;
	cli_progress bar;
} folder_job;

/* Folder mode, --json: the object of a pair that could not be compared, one
 * line; `animation` -1 when the files themselves failed to load. */
static void json_pair_failure(FILE *out, const char *pa, const char *pb, int64_t animation, const char *msg)
{
	cli_json j;
	cli_json_init(&j, out, false);
	cli_json_begin_object(&j);
	cli_json_key(&j, "a");
	cli_json_string(&j, pa);
	cli_json_key(&j, "b");
	cli_json_string(&j, pb);
	if (animation >= 0) {
		cli_json_key(&j, "animation");
		cli_json_uint(&j, (unsigned long long)animation);
	}
	cli_json_key(&j, "error");
	cli_json_string(&j, msg);
	cli_json_end_object(&j);
	fputc('\n', out);
}

/* hks_dir_options.on_pair: one pair's output into its own buffer. */
static void folder_pair_done(void *user, size_t index, const hks_dir_pair *p)
{
	folder_job *J = (folder_job *)user;
	folder_out o = {NULL, 0};
	FILE *out = hks_platform_open_memstream(&o.text, &o.size);
	if (!out)
		return;
	unsigned incomplete = 0;
	for (uint32_t i = 0; i < p->num_items; i++) {
		const hks_dir_item *it = &p->items[i];
		const hks_comparison *c = it->comparison;
		if (c && !c->complete)
			incomplete++;
		if (J->csv)
			write_csv_row(out, p->a, p->b, (long)it->animation, c, it->error);
		else if (J->json) {
			if (!c)
				json_pair_failure(out, p->a, p->b, it->animation, it->error);
			else
				write_json(out, c, HKS_COMPARISON_SUMMARY, false);
		} else if (!c && it->animation < 0)
			fprintf(out, "FAIL %s: %s\n", p->a, it->error);
		else if (!c)
			fprintf(out, "FAIL %s animation %u: %s\n", p->a, (unsigned)it->animation, it->error);
		else {
			char line[1024];
			hks_compare_summary_line(c->result, NULL, c->skeleton, line, sizeof(line));
			fprintf(out, "%s #%u: %s", p->a, (unsigned)it->animation, line);
			if (!c->complete) {
				fputs("; ", out);
				print_coverage(out, c);
			}
			fputc('\n', out);
		}
	}
	hks_platform_close_memstream(out);
	hks_mutex_lock(&J->lock);
	J->incomplete += incomplete;
	if (index >= J->num_outs) {
		size_t n = J->num_outs ? J->num_outs : 64;
		while (n <= index)
			n *= 2;
		folder_out *g = (folder_out *)realloc(J->outs, n * sizeof(folder_out));
		if (g) {
			memset(g + J->num_outs, 0, (n - J->num_outs) * sizeof(folder_out));
			J->outs = g;
			J->num_outs = n;
		}
	}
	if (index < J->num_outs)
		J->outs[index] = o;
	else {
		J->nomem = true;
		free(o.text);
	}
	hks_mutex_unlock(&J->lock);
}

/* hks_dir_options.on_progress (serialized by the library). */
static void folder_progress(void *user, size_t done, size_t total)
{
	folder_job *J = (folder_job *)user;
	J->bar.total = total;
	cli_progress_update(&J->bar, done);
}

static bool is_directory(const char *p)
{
	return hks_platform_path_kind(p) == HKS_PATH_DIR;
}

static int compare_folders(const char *dir_a, const char *dir_b, const hks_comparison_options *co, bool csv,
                           bool json, bool header, long jobs, bool progress, bool strict)
{
	folder_job J;
	memset(&J, 0, sizeof(J));
	J.csv = csv;
	J.json = json;
	hks_mutex_init(&J.lock);
	hks_dir_options o;
	memset(&o, 0, sizeof(o));
	o.compare = *co;
	o.threads = (uint32_t)(jobs > 0 ? jobs : 1);
	o.on_pair = folder_pair_done;
	o.on_progress = folder_progress;
	o.user = &J;
	hks_dir_summary sum;
	hks_error err;
	cli_progress_start(&J.bar, progress, 0, "pairs");
	hks_result r = hks_compare_dirs(dir_a, dir_b, &o, &sum, &err);
	cli_progress_finish(&J.bar);
	int rc = 2;
	if (r != HKS_OK || J.nomem) {
		if (r != HKS_OK)
			cli_print_error(&err);
		else
			fprintf(stderr, "hkspline error: out of memory\n");
		goto done;
	}
	if (sum.unmatched)
		fprintf(stderr, "hkspline error: %zu of %zu files of %s have no counterpart in %s\n", sum.unmatched,
		        sum.files_a, dir_a, dir_b);
	if (J.incomplete)
		fprintf(stderr, "hkspline error: %u comparisons left frames or tracks out (see each)%s\n", J.incomplete,
		        strict ? "; --strict: exit 1" : "");
	if (csv && header)
		fputs(csv_columns, stdout);
	if (json)
		fputs("[\n", stdout);
	bool first = true;
	for (size_t k = 0; k < sum.pairs && k < J.num_outs; k++) {
		folder_out *p = &J.outs[k];
		if (!p->text || !p->size)
			continue;
		if (json) {
			/* each pair wrote whole objects separated by newlines: join them with commas */
			char *line = p->text, *end = p->text + p->size;
			while (line < end) {
				char *nl = memchr(line, '\n', (size_t)(end - line));
				size_t len = nl ? (size_t)(nl - line) : (size_t)(end - line);
				if (len) {
					fputs(first ? "" : ",\n", stdout);
					fwrite(line, 1, len, stdout);
					first = false;
				}
				line += len + 1;
			}
		} else
			fwrite(p->text, 1, p->size, stdout);
	}
	if (json)
		fputs("\n]\n", stdout);
	if (!csv && !json)
		printf("%llu animations compared, %llu failed, %zu files without a counterpart\n",
		       (unsigned long long)sum.compared, (unsigned long long)sum.failed, sum.unmatched);
	fflush(stdout);
	rc = sum.failed || (strict && J.incomplete) ? 1 : 0;
	if (!sum.compared && !sum.failed) {
		/* two folders without one animation in common: a wrong path, not a success */
		fprintf(stderr, "hkspline error: nothing compared: %s\n",
		        !sum.files_a ? "the first folder holds no Havok file"
		        : !sum.pairs ? "no file of the first folder has a counterpart at the same path in the second"
		                     : "the files in common hold no animation");
		rc = 1;
	}
done:
	for (size_t k = 0; k < J.num_outs; k++)
		free(J.outs[k].text);
	free(J.outs);
	hks_mutex_destroy(&J.lock);
	return rc;
}

/* ---- arguments ---- */

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: hkspline error A B [--skeleton S] [--shell 0.03] [--shell-override 'GLOB=D']...\n"
	        "                      [--threshold 0.0001] [--json|--csv] [--report summary|detailed|exhaustive]\n"
	        "                      [--plot OUT.png] [--animation I] [--compendium P]... [--no-header] [--strict]\n"
	        "       hkspline error DIR_A DIR_B [--json|--csv] [-j N] [--no-progress] [options above]\n"
	        "Compare animation B against A at every frame and track: local translation (m), rotation\n"
	        "(degrees and Havok's 4-D component distance), scale, float tracks; with a skeleton, ACL's\n"
	        "object-space virtual-vertex error (m). A and B: Havok files, BINDER:MEMBER, or decoded-frames\n"
	        "JSON from 'hkspline decode'. Two folders: every file below A against the file at the same\n"
	        "relative path below B, every animation, one summary each. Different track sets are matched by\n"
	        "bone name and different frame counts compared over the common frames (said in the output);\n"
	        "--strict makes that exit 1. See docs/METRICS.md.\n");
}

static bool parse_positive(const char *s, double *out)
{
	double v = 0;
	if (!cli_parse_decimal(s, &v) || !(v > 0) || !isfinite(v))
		return false;
	*out = v;
	return true;
}

int cmd_error(int argc, char **argv)
{
	const char **comps = (const char **)calloc((size_t)argc + 1, sizeof(char *));
	hks_shell_override *ovr = (hks_shell_override *)calloc((size_t)argc + 1, sizeof(hks_shell_override));
	char **ovr_text = (char **)calloc((size_t)argc + 1, sizeof(char *));
	size_t ncomps = 0, novr = 0;
	const char *paths[2] = {NULL, NULL}, *skeleton = NULL, *plot = NULL;
	double shell = HKS_DEFAULT_SHELL_DISTANCE, threshold = HKS_DEFAULT_ERROR_THRESHOLD;
	bool json = false, csv = false, csv_header = true, progress = true, strict = false;
	long jobs = 0;
	hks_comparison_detail level = HKS_COMPARISON_SUMMARY;
	long anim_index = 0;
	int rc = 2;
	hks_comparison *cmp = NULL;
	if (!comps || !ovr || !ovr_text)
		goto done;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		bool v = i + 1 < argc;
		if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			usage(stdout);
			rc = 0;
			goto done;
		} else if (!strcmp(arg, "--json"))
			json = true;
		else if (!strcmp(arg, "--csv"))
			csv = true;
		else if (!strcmp(arg, "--no-header"))
			csv_header = false;
		else if (!strcmp(arg, "--no-progress"))
			progress = false;
		else if (!strcmp(arg, "--strict"))
			strict = true;
		else if (((!strcmp(arg, "-j") || !strcmp(arg, "--jobs")) && v) || (!strncmp(arg, "-j", 2) && arg[2])) {
			/* -j N, --jobs N and -jN, as check and recompress take them */
			const char *n = arg[2] && arg[1] == 'j' ? arg + 2 : argv[++i];
			char *end = NULL;
			jobs = strtol(n, &end, 10);
			if (!end || *end || n[0] < '0' || n[0] > '9' || jobs < 1 || jobs > 1024) {
				fprintf(stderr, "hkspline error: -j needs a thread count from 1 to 1024\n");
				goto done;
			}
		}
		else if (!strcmp(arg, "--skeleton") && v)
			skeleton = argv[++i];
		else if (!strcmp(arg, "--compendium") && v)
			comps[ncomps++] = argv[++i];
		else if (!strcmp(arg, "--plot") && v)
			plot = argv[++i];
		else if (!strcmp(arg, "--shell") && v) {
			if (!parse_positive(argv[++i], &shell)) {
				fprintf(stderr, "hkspline error: --shell wants a positive distance in metres\n");
				goto done;
			}
		} else if (!strcmp(arg, "--threshold") && v) {
			if (!parse_positive(argv[++i], &threshold)) {
				fprintf(stderr, "hkspline error: --threshold wants a positive distance in metres\n");
				goto done;
			}
		} else if (!strcmp(arg, "--shell-override") && v) {
			const char *s = argv[++i], *eq = strrchr(s, '=');
			double d = 0;
			if (!eq || eq == s || !parse_positive(eq + 1, &d)) {
				fprintf(stderr, "hkspline error: --shell-override wants 'GLOB=DISTANCE' (got '%s')\n", s);
				goto done;
			}
			ovr_text[novr] = hks_platform_strndup(s, (size_t)(eq - s));
			ovr[novr].pattern = ovr_text[novr];
			ovr[novr].distance = d;
			novr++;
		} else if (!strcmp(arg, "--report") && v) {
			const char *l = argv[++i];
			if (!strcmp(l, "summary"))
				level = HKS_COMPARISON_SUMMARY;
			else if (!strcmp(l, "detailed"))
				level = HKS_COMPARISON_DETAILED;
			else if (!strcmp(l, "exhaustive"))
				level = HKS_COMPARISON_EXHAUSTIVE;
			else {
				fprintf(stderr, "hkspline error: --report is summary, detailed or exhaustive\n");
				goto done;
			}
			json = true;
		} else if (!strcmp(arg, "--animation") && v) {
			char *end = NULL;
			anim_index = strtol(argv[++i], &end, 10);
			if (!end || *end || anim_index < 0 || anim_index > 1000000) {
				fprintf(stderr, "hkspline error: --animation wants an animation index\n");
				goto done;
			}
		} else if (arg[0] == '-' && arg[1]) {
			fprintf(stderr, "hkspline error: unknown or incomplete option '%s'\n", arg);
			usage(stderr);
			goto done;
		} else if (!paths[0])
			paths[0] = arg;
		else if (!paths[1])
			paths[1] = arg;
		else {
			fprintf(stderr, "hkspline error: two inputs only ('%s')\n", arg);
			goto done;
		}
	}
	if (!paths[1] || (json && csv)) {
		usage(stderr);
		goto done;
	}
	hks_comparison_options co;
	memset(&co, 0, sizeof(co));
	co.load.compendium_paths = comps;
	co.load.num_compendium_paths = ncomps;
	co.skeleton = skeleton;
	co.animation = (uint32_t)anim_index;
	co.shell_distance = shell;
	co.shell_overrides = ovr;
	co.num_shell_overrides = (uint32_t)novr;
	co.threshold = threshold;
	if (is_directory(paths[0]) && is_directory(paths[1])) {
		/* folder mode: every file of A against the file at the same place below B */
		if (level != HKS_COMPARISON_SUMMARY || plot) {
			fprintf(stderr, "hkspline error: folders are compared with summaries only (no --report levels, no --plot)\n");
			goto done;
		}
		if (jobs == 0) {
			jobs = (long)hks_platform_cpu_count();
			if (jobs < 1)
				jobs = 1;
		}
		rc = compare_folders(paths[0], paths[1], &co, csv, json, csv_header, jobs, progress, strict);
		goto done;
	}
	hks_error err;
	if (hks_compare_paths(paths[0], paths[1], &co, &cmp, &err) != HKS_OK) {
		if (err.file[0] || err.code != HKS_E_NOT_FOUND)
			cli_print_error(&err);
		else
			fprintf(stderr, "hkspline error: %s\n", err.message);
		/* an input that cannot be read or holds no such animation: 1; unknown names (give
		 * --skeleton, docs/CLI.md): 2 */
		rc = err.code == HKS_E_MISMATCH ? 2 : cli_input_status(err.code);
		goto done;
	}
	if (csv) {
		if (csv_header)
			fputs(csv_columns, stdout);
		write_csv_row(stdout, cmp->a, cmp->b, anim_index, cmp, NULL);
	} else if (json) {
		if (!write_json(stdout, cmp, level, true))
			goto done;
	} else
		write_text(stdout, cmp);
	fflush(stdout);
	rc = 0;
	if (!cmp->complete) {
		fputs("hkspline error: note: ", stderr);
		print_coverage(stderr, cmp);
		fputs(strict ? " (--strict: exit 1)\n" : "\n", stderr);
		if (strict)
			rc = 1;
	}
	if (plot && write_plot(plot, cmp))
		rc = 2;
done:
	hks_comparison_free(cmp);
	for (size_t i = 0; ovr_text && i < novr; i++)
		free(ovr_text[i]);
	free(ovr_text);
	free(ovr);
	free(comps);
	return rc;
}
