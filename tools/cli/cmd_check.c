/*
 * hkspline check: verify every spline animation found under the given paths.
 *
 * Stages per file (docs/CLI.md): "parse" (the container reader; every file,
 * compendiums and skeletons included), then per spline animation "header"
 * (hks_spline_check_header: the relations of FORMAT.md §1.1), "decode"
 * (hks_stored_read walks every block, then every frame is sampled; the walk
 * is exact when it reports no conformance issue), and on request "repack"
 * (hks_spline_repack_compare) and "roundtrip" (hks_file_write reproduces the
 * file's bytes). Files are processed by N worker threads; each file's result
 * is stored in its own slot, so the output is the same for every -j.
 *
 * Graded conformance: each entry is an error (the file cannot be read, walked
 * or sampled, or a requested stage fails) or a warning (it decodes, but breaks
 * a producer rule: hks_spline_grade_header's warnings and the walk's
 * conformance issues). Only errors fail a file, unless --strict.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli_units.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Frames sampled per call when checking that an animation decodes. */
#define SAMPLE_CHUNK_FRAMES 256u

typedef struct check_counts {
	uint64_t files, files_failed, warnings, animations, header_ok, decoded, walk_exact, repack_exact, roundtrip_exact;
	/* --reencode (docs/RECORD.md) */
	uint64_t reencode_exact, reencode_spline_parts, reencode_spline_parts_exact, record_exact, record_bytes, data_bytes;
	uint64_t reencode_first_diff[HKS_DIFF_COUNT];
	uint64_t inverted_parts;   /* --reencode: parts the inverter reproduces (docs/RECORD.md "Inversion") */
	/* --reencode: inversions that decode identically but differ, by first differing field; invisible
	 * control points (docs/RECORD.md "Invisible control points") */
	uint64_t inverted_ambiguity[HKS_DIFF_COUNT];
	uint64_t hidden_points, hidden_point_parts, hidden_point_parts_exact;
	uint64_t hidden_point_free_animations; /* animations none of whose spline parts has an invisible point */
	double reencode_seconds;   /* --reencode: time in hks_recompress (summed over threads) */
} check_counts;

typedef struct check_failure {
	int32_t animation;   /* -1: the file as a whole */
	const char *stage;   /* "parse", "header", "decode", "repack", "roundtrip" */
	bool warning;        /* level "warning" (else "error") */
	char *error;
} check_failure;

typedef struct file_result {
	char *path;
	char sdk_key[40];
	check_counts counts;
	check_failure *failures;
	size_t num_failures;
} file_result;

typedef struct check_job {
	file_result *arg_failures;  /* paths that cannot be read at all, in argument order */
	size_t num_arg_failures;
	bool repack;
	bool roundtrip;
	bool reencode;
	bool strict;          /* warnings fail files too */
} check_job;

static void add_entry(file_result *fr, int32_t animation, const char *stage, bool warning, const char *message)
{
	check_failure *p = (check_failure *)realloc(fr->failures, (fr->num_failures + 1) * sizeof(check_failure));
	if (!p)
		return; /* the counts still say the file failed */
	fr->failures = p;
	p[fr->num_failures].animation = animation;
	p[fr->num_failures].stage = stage;
	p[fr->num_failures].warning = warning;
	p[fr->num_failures].error = strdup(message ? message : "");
	fr->num_failures++;
}

static void add_failure(file_result *fr, int32_t animation, const char *stage, const char *message)
{
	add_entry(fr, animation, stage, false, message);
}

static void add_level(file_result *fr, int32_t animation, const char *stage, bool warning, const hks_error *err)
{
	char buf[2048];
	hks_error_format(err, buf, sizeof(buf));
	add_entry(fr, animation, stage, warning, buf);
}

static void add_error(file_result *fr, int32_t animation, const char *stage, const hks_error *err)
{
	add_level(fr, animation, stage, false, err);
}

/* Walk every block, then sample every frame. *walk_exact: no conformance issue. */
static bool decode_animation(const hks_animation *anim, uint32_t index, bool *walk_exact, hks_error *err)
{
	*walk_exact = false;
	hks_walk_options wo;
	memset(&wo, 0, sizeof(wo));
	wo.animation_index = (int32_t)index;
	hks_stored_animation *stored = NULL;
	if (hks_stored_read(anim, &wo, &stored, err) != HKS_OK)
		return false;
	bool ok = true;
	uint32_t tracks = stored->num_transform_tracks > 0 ? (uint32_t)stored->num_transform_tracks : 0;
	uint32_t float_tracks = stored->num_float_tracks > 0 ? (uint32_t)stored->num_float_tracks : 0;
	uint32_t frames = stored->num_frames > 0 ? (uint32_t)stored->num_frames : 0;
	size_t chunk = frames < SAMPLE_CHUNK_FRAMES ? frames : SAMPLE_CHUNK_FRAMES;
	float *transforms = NULL, *floats = NULL;
	if (chunk) {
		transforms = (float *)malloc((size_t)chunk * tracks * HKS_TRACK_SAMPLE_FLOATS * sizeof(float) + 1);
		floats = (float *)malloc((size_t)chunk * float_tracks * sizeof(float) + 1);
		if (!transforms || !floats) {
			hks_error_clear(err);
			err->code = HKS_E_NOMEM;
			snprintf(err->message, sizeof(err->message), "out of memory sampling %u frames", frames);
			ok = false;
		}
	}
	hks_sample_options so;
	memset(&so, 0, sizeof(so));
	for (uint32_t f = 0; ok && f < frames; f += (uint32_t)chunk) {
		uint32_t n = frames - f < chunk ? frames - f : (uint32_t)chunk;
		if (hks_sample_frames(stored, &so, f, n, transforms, float_tracks ? floats : NULL, err) != HKS_OK)
			ok = false;
	}
	free(transforms);
	free(floats);
	if (ok) {
		*walk_exact = stored->conformance_issues == 0;
		if (!*walk_exact)
			*err = stored->conformance;
	}
	hks_stored_free(stored);
	return ok;
}

/* Rewrite the whole file and compare with its bytes. */
static bool roundtrip_file(const hks_loaded *ld, char *msg, size_t msg_size)
{
	hks_write_options wo;
	memset(&wo, 0, sizeof(wo));
	wo.base.name = ld->path;
	uint8_t *out = NULL;
	size_t out_size = 0;
	hks_error err;
	if (hks_file_write(ld->file, &wo, &out, &out_size, &err) != HKS_OK) {
		hks_error_format(&err, msg, msg_size);
		return false;
	}
	size_t n = out_size < ld->size ? out_size : ld->size, at = 0;
	while (at < n && out[at] == ld->bytes[at])
		at++;
	bool same = at == n && out_size == ld->size;
	if (!same) {
		if (at < n)
			snprintf(msg, msg_size, "rewritten file differs at byte %zu: 0x%02x instead of 0x%02x (sizes %zu, %zu)", at,
			         out[at], ld->bytes[at], out_size, ld->size);
		else
			snprintf(msg, msg_size, "rewritten file has %zu bytes instead of %zu (identical up to byte %zu)", out_size,
			         ld->size, at);
	}
	hks_buffer_free(&wo.base, out, out_size);
	return same;
}

/* --reencode: the re-compressor on one animation (docs/RECORD.md); record_exact
 * applies the record to freshly decoded frames and compares the bytes. */
static void reencode_animation(file_result *fr, const hks_file *file, uint32_t i)
{
	const hks_animation *anim = &file->animations[i];
	hks_recompress_options o;
	memset(&o, 0, sizeof(o));
	o.sdk = file->sdk;
	o.animation_index = (int32_t)i;
	uint8_t *rec = NULL;
	size_t rec_size = 0;
	hks_recompress_report rep;
	hks_error err;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	hks_result rr = hks_recompress(anim, &o, &rec, &rec_size, NULL, &rep, &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fr->counts.reencode_seconds += (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	if (rr != HKS_OK) {
		add_error(fr, (int32_t)i, "reencode", &err);
		return;
	}
	check_counts *c = &fr->counts;
	/* exact without a record: the predictor, or the predictor plus the inverter (entries without payload) */
	c->reencode_exact += (uint64_t)(rep.prediction_exact ||
	                                (!rep.verbatim_animation && rep.parts == rep.parts_exact + rep.inverted_parts));
	c->inverted_parts += rep.inverted_parts;
	c->reencode_spline_parts_exact += rep.inverted_spline_parts;
	for (int k = 0; k < HKS_DIFF_COUNT; k++)
		c->inverted_ambiguity[k] += rep.inverted_ambiguity[k];
	c->hidden_points += rep.hidden_points;
	c->hidden_point_parts += rep.hidden_point_parts;
	c->hidden_point_parts_exact += rep.hidden_point_parts_exact;
	c->hidden_point_free_animations += rep.hidden_point_parts == 0;
	for (int k = 0; k < 4; k++) {
		c->reencode_spline_parts += rep.spline_parts[k];
		c->reencode_spline_parts_exact += rep.spline_parts_exact[k];
	}
	for (int k = 0; k < HKS_DIFF_COUNT; k++)
		c->reencode_first_diff[k] += rep.first_diff[k];
	c->record_bytes += rep.record_bytes;
	c->data_bytes += rep.data_bytes;
	hks_stored_animation *s = NULL;
	float *t = NULL, *f = NULL;
	hks_packed_spline *out = NULL;
	bool exact = false;
	if (hks_stored_read(anim, NULL, &s, &err) == HKS_OK) {
		size_t nf = (size_t)s->num_frames;
		t = (float *)calloc(nf * (size_t)s->num_transform_tracks * HKS_TRACK_SAMPLE_FLOATS + 1, sizeof(float));
		f = (float *)calloc(nf * (size_t)s->num_float_tracks + 1, sizeof(float));
		hks_frames_in in = {(uint32_t)nf, (uint32_t)s->num_transform_tracks, (uint32_t)s->num_float_tracks,
		                    anim->duration, t, f};
		hks_record_apply_report ar;
		if (t && f && hks_sample_frames(s, NULL, 0, (uint32_t)nf, t, f, &err) == HKS_OK &&
		    hks_recompress_apply(&in, rec, rec_size, NULL, &out, &ar, &err) == HKS_OK) {
			const hks_spline_header *h = &anim->spline, *g = &out->header;
			exact = h->data_size == g->data_size && !memcmp(h->data, g->data, h->data_size) &&
			        h->num_block_offsets == g->num_block_offsets &&
			        !memcmp(h->block_offsets, g->block_offsets, 4 * (size_t)h->num_block_offsets) &&
			        h->num_float_block_offsets == g->num_float_block_offsets &&
			        (!h->num_float_block_offsets ||
			         !memcmp(h->float_block_offsets, g->float_block_offsets, 4 * (size_t)h->num_float_block_offsets));
		}
	}
	if (exact)
		c->record_exact++;
	else
		add_failure(fr, (int32_t)i, "reencode", "the record does not reproduce the data");
	if (out)
		hks_packed_spline_free(out);
	if (s)
		hks_stored_free(s);
	free(t);
	free(f);
	hks_buffer_free(NULL, rec, rec_size);
}

static void check_file(const check_job *job, file_result *fr, const char *path, hks_result r, const hks_loaded *ld)
{
	fr->counts.files = 1;
	fr->path = strdup(path ? path : "?");
	if (r != HKS_OK || !ld) {
		snprintf(fr->sdk_key, sizeof(fr->sdk_key), "unknown");
		add_failure(fr, -1, "parse", hks_result_name(r));
		fr->counts.files_failed = 1;
		return;
	}
	if (ld->sdk[0])
		snprintf(fr->sdk_key, sizeof(fr->sdk_key), "%s", ld->sdk);
	else
		snprintf(fr->sdk_key, sizeof(fr->sdk_key), "%s", hks_container_name(ld->container));
	if (ld->status != HKS_OK) {
		add_error(fr, -1, "parse", &ld->error);
		fr->counts.files_failed = 1;
		return;
	}
	const hks_file *file = ld->file;
	int guard = hks_guard_for_sdk(file->sdk);
	for (uint32_t i = 0; i < file->num_animations; i++) {
		const hks_animation *anim = &file->animations[i];
		if (anim->kind != HKS_ANIMATION_SPLINE)
			continue;
		fr->counts.animations++;
		hks_error err, warning;
		hks_level level = hks_spline_grade_header(file, i, &warning, &err);
		if (level == HKS_LEVEL_NONE)
			fr->counts.header_ok++;
		if (warning.code != HKS_OK)
			add_level(fr, (int32_t)i, "header", true, &warning);
		if (level == HKS_LEVEL_ERROR)
			add_error(fr, (int32_t)i, "header", &err);
		bool exact = false;
		hks_error_clear(&err);
		if (decode_animation(anim, i, &exact, &err)) {
			fr->counts.decoded++;
			if (exact)
				fr->counts.walk_exact++;
			else
				add_level(fr, (int32_t)i, "decode", true, &err);
		} else {
			add_error(fr, (int32_t)i, "decode", &err);
		}
		if (job->repack) {
			if (hks_spline_repack_compare(anim, guard, &err) == HKS_OK)
				fr->counts.repack_exact++;
			else
				add_error(fr, (int32_t)i, "repack", &err);
		}
		if (job->reencode)
			reencode_animation(fr, file, i);
	}
	/* Havok XML has no writer in the library: nothing to round-trip */
	if (job->roundtrip && file->container != HKS_CONTAINER_XML) {
		char msg[1024];
		if (roundtrip_file(ld, msg, sizeof(msg)))
			fr->counts.roundtrip_exact++;
		else
			add_failure(fr, -1, "roundtrip", msg);
	}
	for (size_t f = 0; f < fr->num_failures; f++) {
		if (fr->failures[f].warning)
			fr->counts.warnings++;
		if (!fr->failures[f].warning || job->strict)
			fr->counts.files_failed = 1;
	}
}

/* A unit's result (cli_units_stream); NULL when out of memory. */
static void *check_one(void *ctx, size_t index, const char *path, hks_result r, const hks_loaded *ld)
{
	(void)index;
	file_result *fr = (file_result *)calloc(1, sizeof(file_result));
	if (fr)
		check_file((const check_job *)ctx, fr, path, r, ld);
	return fr;
}

/* A path that cannot be read at all is a failed file of its own (false: out of memory, stop). */
static bool check_path_failed(void *ctx, const char *path, const hks_error *err)
{
	check_job *job = (check_job *)ctx;
	if (err->code == HKS_E_NOMEM || !job->arg_failures) {
		cli_print_error(err);
		return false;
	}
	file_result *fr = &job->arg_failures[job->num_arg_failures++];
	fr->path = strdup(path);
	snprintf(fr->sdk_key, sizeof(fr->sdk_key), "unknown");
	fr->counts.files = fr->counts.files_failed = 1;
	add_error(fr, -1, "parse", err);
	return true;
}

/* ---- aggregation and output ---- */

typedef struct sdk_entry {
	char key[40];
	check_counts counts;
} sdk_entry;

static void add_counts(check_counts *a, const check_counts *b)
{
	a->files += b->files;
	a->files_failed += b->files_failed;
	a->warnings += b->warnings;
	a->animations += b->animations;
	a->header_ok += b->header_ok;
	a->decoded += b->decoded;
	a->walk_exact += b->walk_exact;
	a->repack_exact += b->repack_exact;
	a->roundtrip_exact += b->roundtrip_exact;
	a->reencode_exact += b->reencode_exact;
	a->reencode_spline_parts += b->reencode_spline_parts;
	a->reencode_spline_parts_exact += b->reencode_spline_parts_exact;
	a->record_exact += b->record_exact;
	a->record_bytes += b->record_bytes;
	a->data_bytes += b->data_bytes;
	for (int k = 0; k < HKS_DIFF_COUNT; k++)
		a->reencode_first_diff[k] += b->reencode_first_diff[k];
	a->inverted_parts += b->inverted_parts;
	for (int k = 0; k < HKS_DIFF_COUNT; k++)
		a->inverted_ambiguity[k] += b->inverted_ambiguity[k];
	a->hidden_points += b->hidden_points;
	a->hidden_point_parts += b->hidden_point_parts;
	a->hidden_point_parts_exact += b->hidden_point_parts_exact;
	a->hidden_point_free_animations += b->hidden_point_free_animations;
	a->reencode_seconds += b->reencode_seconds;
}

static int compare_sdk(const void *a, const void *b)
{
	return strcmp(((const sdk_entry *)a)->key, ((const sdk_entry *)b)->key);
}

/* `key`: {category name: count} over the first-difference categories (docs/CLI.md) */
static void json_by_category(cli_json *j, const char *key, const uint64_t counts[HKS_DIFF_COUNT])
{
	cli_json_key(j, key);
	cli_json_begin_object(j);
	for (int k = 1; k < HKS_DIFF_COUNT; k++) {
		cli_json_key(j, hks_diff_category_name((hks_diff_category)k));
		cli_json_uint(j, counts[k]);
	}
	cli_json_end_object(j);
}

static void json_counts(cli_json *j, const check_counts *c, const check_job *job)
{
	cli_json_key(j, "files");
	cli_json_uint(j, c->files);
	cli_json_key(j, "files_failed");
	cli_json_uint(j, c->files_failed);
	cli_json_key(j, "warnings");
	cli_json_uint(j, c->warnings);
	cli_json_key(j, "animations");
	cli_json_uint(j, c->animations);
	cli_json_key(j, "header_ok");
	cli_json_uint(j, c->header_ok);
	cli_json_key(j, "decoded");
	cli_json_uint(j, c->decoded);
	cli_json_key(j, "walk_exact");
	cli_json_uint(j, c->walk_exact);
	if (job->repack) {
		cli_json_key(j, "repack_exact");
		cli_json_uint(j, c->repack_exact);
	}
	if (job->roundtrip) {
		cli_json_key(j, "roundtrip_exact");
		cli_json_uint(j, c->roundtrip_exact);
	}
	if (job->reencode) {
		cli_json_key(j, "reencode_exact");
		cli_json_uint(j, c->reencode_exact);
		cli_json_key(j, "reencode_spline_parts");
		cli_json_uint(j, c->reencode_spline_parts);
		cli_json_key(j, "reencode_spline_parts_exact");
		cli_json_uint(j, c->reencode_spline_parts_exact);
		json_by_category(j, "reencode_first_diff", c->reencode_first_diff);
		cli_json_key(j, "record_exact");
		cli_json_uint(j, c->record_exact);
		cli_json_key(j, "record_bytes");
		cli_json_uint(j, c->record_bytes);
		cli_json_key(j, "data_bytes");
		cli_json_uint(j, c->data_bytes);
		cli_json_key(j, "inverted_parts");
		cli_json_uint(j, c->inverted_parts);
		json_by_category(j, "inverted_ambiguity", c->inverted_ambiguity);
		static const char *const hidden_keys[4] = {"hidden_points", "hidden_point_parts", "hidden_point_parts_exact",
		                                           "hidden_point_free_animations"};
		const uint64_t hidden[4] = {c->hidden_points, c->hidden_point_parts, c->hidden_point_parts_exact,
		                            c->hidden_point_free_animations};
		for (int k = 0; k < 4; k++) {
			cli_json_key(j, hidden_keys[k]);
			cli_json_uint(j, hidden[k]);
		}
		char secs[32];
		snprintf(secs, sizeof(secs), "%.3f", c->reencode_seconds);
		cli_json_key(j, "reencode_seconds");
		cli_json_raw(j, secs);
	}
}

static void text_counts(FILE *out, const char *label, const check_counts *c, const check_job *job)
{
	fprintf(out, "%-16s %7llu files %6llu failed %6llu warnings %7llu animations %7llu header_ok %7llu decoded %7llu walk_exact",
	        label, (unsigned long long)c->files, (unsigned long long)c->files_failed, (unsigned long long)c->warnings,
	        (unsigned long long)c->animations, (unsigned long long)c->header_ok, (unsigned long long)c->decoded,
	        (unsigned long long)c->walk_exact);
	if (job->repack)
		fprintf(out, " %7llu repack_exact", (unsigned long long)c->repack_exact);
	if (job->roundtrip)
		fprintf(out, " %7llu roundtrip_exact", (unsigned long long)c->roundtrip_exact);
	if (job->reencode)
		fprintf(out, " %7llu reencode_exact %llu/%llu reencode_spline_parts_exact %7llu record_exact %llu/%llu record/data B",
		        (unsigned long long)c->reencode_exact, (unsigned long long)c->reencode_spline_parts_exact,
		        (unsigned long long)c->reencode_spline_parts, (unsigned long long)c->record_exact,
		        (unsigned long long)c->record_bytes, (unsigned long long)c->data_bytes);
	fputc('\n', out);
}

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: hkspline check [--json] [--no-progress] [-j N] [--repack] [--roundtrip] [--reencode]\n"
	        "                      [--strict] [--compendium FILE|DIR]... PATH...\n"
	        "Verify every spline animation in the files, folders (recursive), binders and DCX\n"
	        "archives given. Errors (a file cannot be read, walked or sampled) fail a file; warnings\n"
	        "(it decodes but breaks a producer rule of FromSoftware's files) do not, unless --strict.\n"
	        "Exit status 0 when no file fails, 1 when any fails, 2 on usage errors.\n");
}

int cmd_check(int argc, char **argv)
{
	check_job job;
	memset(&job, 0, sizeof(job));
	const cli_flag flags[] = {
	    {"--repack", &job.repack}, {"--roundtrip", &job.roundtrip}, {"--reencode", &job.reencode},
	    {"--strict", &job.strict}, {NULL, NULL}};
	cli_unit_args args;
	int status = cli_unit_args_parse(&args, argc, argv, "check", flags, usage);
	if (status >= 0)
		goto done_args;
	status = 2;
	hks_loader *loader = cli_unit_loader(&args);
	if (!loader)
		goto done_args;
	job.arg_failures = (file_result *)calloc(args.num_paths, sizeof(file_result));
	size_t count = 0;
	bool stopped = false;
	file_result **results =
	    (file_result **)cli_units_stream(loader, &args, &job, check_one, check_path_failed, &count, &stopped);
	file_result *arg_failures = job.arg_failures;
	size_t num_arg_failures = job.num_arg_failures;
	bool complete = results && !stopped;
	for (size_t k = 0; complete && k < count; k++)
		complete = results[k] != NULL;
	if (!complete) {
		if (!stopped)
			fprintf(stderr, "hkspline check: out of memory\n");
		for (size_t k = 0; results && k < count; k++)
			if (results[k]) {
				for (size_t f = 0; f < results[k]->num_failures; f++)
					free(results[k]->failures[f].error);
				free(results[k]->failures);
				free(results[k]->path);
				free(results[k]);
			}
		free(results);
		for (size_t k = 0; k < num_arg_failures; k++) {
			for (size_t f = 0; f < arg_failures[k].num_failures; f++)
				free(arg_failures[k].failures[f].error);
			free(arg_failures[k].failures);
			free(arg_failures[k].path);
		}
		free(arg_failures);
		hks_loader_free(loader);
		goto done_args;
	}

	/* aggregate in path order: argument failures first, then the units */
	check_counts total;
	memset(&total, 0, sizeof(total));
	sdk_entry *sdks = (sdk_entry *)calloc(count + num_arg_failures + 1, sizeof(sdk_entry));
	size_t num_sdks = 0;
	size_t all = num_arg_failures + count;
	for (size_t k = 0; k < all; k++) {
		file_result *fr = k < num_arg_failures ? &arg_failures[k] : results[k - num_arg_failures];
		add_counts(&total, &fr->counts);
		if (!sdks)
			continue;
		size_t s = 0;
		while (s < num_sdks && strcmp(sdks[s].key, fr->sdk_key))
			s++;
		if (s == num_sdks) {
			memcpy(sdks[s].key, fr->sdk_key, sizeof(sdks[s].key));
			num_sdks++;
		}
		add_counts(&sdks[s].counts, &fr->counts);
	}
	if (sdks && num_sdks)
		qsort(sdks, num_sdks, sizeof(sdk_entry), compare_sdk);

	if (args.json) {
		cli_json j;
		cli_json_init(&j, stdout, true);
		cli_json_begin_object(&j);
		json_counts(&j, &total, &job);
		cli_json_key(&j, "by_sdk");
		cli_json_begin_object(&j);
		for (size_t s = 0; sdks && s < num_sdks; s++) {
			cli_json_key(&j, sdks[s].key);
			cli_json_begin_object(&j);
			json_counts(&j, &sdks[s].counts, &job);
			cli_json_end_object(&j);
		}
		cli_json_end_object(&j);
		cli_json_key(&j, "failures");
		cli_json_begin_array(&j);
		for (size_t k = 0; k < all; k++) {
			file_result *fr = k < num_arg_failures ? &arg_failures[k] : results[k - num_arg_failures];
			for (size_t f = 0; f < fr->num_failures; f++) {
				cli_json_begin_object(&j);
				cli_json_key(&j, "path");
				cli_json_string(&j, fr->path);
				cli_json_key(&j, "animation");
				cli_json_int(&j, fr->failures[f].animation);
				cli_json_key(&j, "stage");
				cli_json_string(&j, fr->failures[f].stage);
				cli_json_key(&j, "level");
				cli_json_string(&j, fr->failures[f].warning ? "warning" : "error");
				cli_json_key(&j, "error");
				cli_json_string(&j, fr->failures[f].error);
				cli_json_end_object(&j);
			}
		}
		cli_json_end_array(&j);
		cli_json_end_object(&j);
	} else {
		for (size_t k = 0; k < all; k++) {
			file_result *fr = k < num_arg_failures ? &arg_failures[k] : results[k - num_arg_failures];
			for (size_t f = 0; f < fr->num_failures; f++) {
				const char *tag = fr->failures[f].warning && !job.strict ? "WARN" : "FAIL";
				if (fr->failures[f].animation >= 0)
					printf("%s %s: animation %d: %s: %s\n", tag, fr->path, (int)fr->failures[f].animation,
					       fr->failures[f].stage, fr->failures[f].error);
				else
					printf("%s %s: %s: %s\n", tag, fr->path, fr->failures[f].stage, fr->failures[f].error);
			}
		}
		for (size_t s = 0; sdks && s < num_sdks; s++)
			text_counts(stdout, sdks[s].key, &sdks[s].counts, &job);
		text_counts(stdout, "total", &total, &job);
	}
	fflush(stdout);
	status = total.files_failed ? 1 : 0;

	for (size_t k = 0; k < all; k++) {
		file_result *fr = k < num_arg_failures ? &arg_failures[k] : results[k - num_arg_failures];
		for (size_t f = 0; f < fr->num_failures; f++)
			free(fr->failures[f].error);
		free(fr->failures);
		free(fr->path);
		if (k >= num_arg_failures)
			free(fr);
	}
	free(sdks);
	free(results);
	free(arg_failures);
	hks_loader_free(loader);
done_args:
	cli_unit_args_free(&args);
	return status;
}
