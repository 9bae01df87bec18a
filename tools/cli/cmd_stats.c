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
#include "cli_units.h"

#include <stdlib.h>
#include <string.h>

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

static char *format_error(const hks_error *e)
{
	char buf[2048];
	hks_error_format(e, buf, sizeof(buf));
	return strdup(buf);
}

/* One unit, on a pool worker (cli_units_stream); NULL when out of memory. */
static void *stats_one(void *ctx, size_t index, const char *path, hks_result r, const hks_loaded *ld)
{
	(void)ctx;
	(void)index;
	unit_stats *u = (unit_stats *)calloc(1, sizeof(unit_stats));
	if (!u)
		return NULL;
	u->path = strdup(path ? path : "?");
	if (r != HKS_OK || !ld) {
		u->error = strdup(hks_result_name(r));
		return u;
	}
	snprintf(u->sdk, sizeof(u->sdk), "%s", ld->sdk[0] ? ld->sdk : hks_container_name(ld->container));
	if (ld->status != HKS_OK) {
		u->error = format_error(&ld->error);
		return u;
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
	return u;
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

static void csv_row(FILE *out, const char *path, long anim, const char *sdk, const hks_spline_stats *s,
                    const char *error)
{
	cli_csv_quoted(out, path);
	fprintf(out, ",%ld,", anim);
	cli_csv_quoted(out, sdk);
	if (error) {
		fputs(",,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,", out);
		cli_csv_quoted(out, error);
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
	cli_stats_category cats[CLI_STATS_CATEGORIES];
	cli_stats_categories(s, cats);
	for (size_t i = 0; i < CLI_STATS_CATEGORIES; i++)
		fprintf(out, "  %-19s %12llu B  %6.2f %%\n", cats[i].label, (unsigned long long)cats[i].bytes,
		        100.0 * (double)cats[i].bytes / c);
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
	fprintf(out, "  selectors:");
	for (unsigned k = 0; k < 6; k++)
		if (s->selectors[k])
			fprintf(out, " %s %llu", cli_selector_name(k), (unsigned long long)s->selectors[k]);
	fputc('\n', out);
}

static void usage(FILE *out)
{
	fprintf(out, "usage: hkspline stats [--json|--csv] [-j N] [--no-progress] [--compendium P]... PATH...\n"
	             "Compression statistics of every spline animation in the files, folders, binders and DCX\n"
	             "archives given: sizes, ratio, bytes per category, lanes, selectors, degrees (docs/METRICS.md).\n");
}

int cmd_stats(int argc, char **argv)
{
	bool csv = false;
	const cli_flag flags[] = {{"--csv", &csv}, {NULL, NULL}};
	cli_unit_args args;
	int status = cli_unit_args_parse(&args, argc, argv, "stats", flags, usage);
	if (status >= 0)
		goto done;
	status = 2;
	if (args.json && csv) {
		usage(stderr);
		goto done;
	}
	hks_loader *loader = cli_unit_loader(&args);
	if (!loader)
		goto done;
	/* the paths are added while the units found so far are read (cli_units_stream) */
	size_t count = 0;
	bool stopped = false;
	unit_stats **slots =
	    (unit_stats **)cli_units_stream(loader, &args, NULL, stats_one, cli_stop_on_path_error, &count, &stopped);
	bool complete = slots && !stopped;
	for (size_t k = 0; complete && k < count; k++)
		complete = slots[k] != NULL;
	unit_stats *units = complete ? (unit_stats *)calloc(count + 1, sizeof(unit_stats)) : NULL;
	for (size_t k = 0; slots && k < count; k++)
		if (slots[k]) {
			if (units)
				units[k] = *slots[k];
			else {
				for (size_t a = 0; a < slots[k]->num_anims; a++)
					free(slots[k]->anims[a].error);
				free(slots[k]->anims);
				free(slots[k]->error);
				free(slots[k]->path);
			}
			free(slots[k]);
		}
	free(slots);
	if (!units) {
		if (!stopped)
			fprintf(stderr, "hkspline stats: out of memory\n");
		else
			status = 1; /* a PATH that cannot be read is a failed input, as for info and check */
		hks_loader_free(loader);
		goto done;
	}

	hks_spline_stats total;
	memset(&total, 0, sizeof(total));
	size_t animations = 0, failures = 0;
	for (size_t k = 0; k < count; k++) {
		unit_stats *u = &units[k];
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
		for (size_t k = 0; k < count; k++) {
			unit_stats *u = &units[k];
			if (u->error)
				csv_row(stdout, u->path, -1, u->sdk, NULL, u->error);
			for (size_t a = 0; a < u->num_anims; a++)
				csv_row(stdout, u->path, (long)u->anims[a].index, u->sdk, &u->anims[a].st, u->anims[a].error);
		}
	} else if (args.json) {
		cli_json j;
		cli_json_init(&j, stdout, true);
		cli_json_begin_object(&j);
		cli_json_key(&j, "animations");
		cli_json_begin_array(&j);
		for (size_t k = 0; k < count; k++) {
			unit_stats *u = &units[k];
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
		for (size_t k = 0; k < count; k++)
			if (units[k].error) {
				cli_json_begin_object(&j);
				cli_json_key(&j, "path");
				cli_json_string(&j, units[k].path);
				cli_json_key(&j, "error");
				cli_json_string(&j, units[k].error);
				cli_json_end_object(&j);
			}
		cli_json_end_array(&j);
		cli_json_end_object(&j);
		fputc('\n', stdout);
	} else {
		for (size_t k = 0; k < count; k++) {
			unit_stats *u = &units[k];
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
	for (size_t k = 0; k < count; k++) {
		unit_stats *u = &units[k];
		for (size_t a = 0; a < u->num_anims; a++)
			free(u->anims[a].error);
		free(u->anims);
		free(u->error);
		free(u->path);
	}
	free(units);
	hks_loader_free(loader);
done:
	cli_unit_args_free(&args);
	return status;
}
