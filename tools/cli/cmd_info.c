/*
 * hkspline info: describe every Havok file under the given paths: container,
 * SDK, animations (with the rotation selectors their blocks use), bindings
 * and skeletons. Text or --json (docs/CLI.md).
 */
#define _POSIX_C_SOURCE 200809L
#include "cli_units.h"

#include <stdlib.h>
#include <string.h>

#include "platform.h"

/* Selector codes are 4 bits (FORMAT.md §2.3): 0-5 valid, 6-15 invalid. */
#define SELECTOR_CODES 16

/*
 * Count the rotation selectors of every (block, transform track) whose
 * rotation is stored: mask byte 0 bits 2-5, stored when mask byte 2 (the
 * rotation lane flags) is non-zero (FORMAT.md §2.3). Reads only mask bytes
 * that lie inside the data. Returns the number of masks that could not be
 * read (blocks whose mask area runs past the data).
 */
static uint32_t count_selectors(const hks_animation *a, uint64_t counts[SELECTOR_CODES])
{
	memset(counts, 0, SELECTOR_CODES * sizeof(uint64_t));
	const hks_spline_header *h = &a->spline;
	uint32_t unreadable = 0;
	uint32_t tracks = a->number_of_transform_tracks > 0 ? (uint32_t)a->number_of_transform_tracks : 0;
	if (!h->data || !h->block_offsets)
		return h->num_block_offsets;
	for (uint32_t b = 0; b < h->num_block_offsets; b++) {
		uint64_t start = h->block_offsets[b];
		for (uint32_t t = 0; t < tracks; t++) {
			uint64_t at = start + (uint64_t)t * 4;
			if (at > h->data_size || h->data_size - at < 4) {
				unreadable++;
				break;
			}
			const uint8_t *mask = h->data + at;
			if (mask[2] != 0)
				counts[(mask[0] >> 2) & 0x0F]++;
		}
	}
	return unreadable;
}

static const char *blend_hint_name(int8_t hint)
{
	switch (hint) {
	case 0: return "normal";
	case 1: return "additive_deprecated";
	case 2: return "additive";
	default: return "unknown";
	}
}

static void print_text(FILE *out, const hks_loaded *ld)
{
	fprintf(out, "%s\n", ld->path);
	if (ld->status != HKS_OK) {
		char buf[2048];
		hks_error_format(&ld->error, buf, sizeof(buf));
		fprintf(out, "  error: %s\n", buf);
		return;
	}
	const hks_file *f = ld->file;
	fprintf(out, "  container: %s", hks_container_name(f->container));
	if (f->sdk[0])
		fprintf(out, ", SDK %s", f->sdk);
	fprintf(out, ", %u-bit pointers", f->pointer_size * 8);
	if (f->has_compendium_reference) {
		char id[17];
		hks_format_id(f->compendium_id, id);
		fprintf(out, ", compendium %s", id);
	}
	if (f->container == HKS_CONTAINER_COMPENDIUM) {
		fprintf(out, ", IDs");
		for (uint32_t i = 0; i < f->num_compendium_ids; i++) {
			char id[17];
			hks_format_id(f->compendium_ids[i], id);
			fprintf(out, " %s", id);
		}
	}
	fprintf(out, "\n");
	for (uint32_t i = 0; i < f->num_animations; i++) {
		const hks_animation *a = &f->animations[i];
		fprintf(out, "  animation %u: %s, %d transform + %d float tracks, duration %.9g s", i,
		       a->class_name ? a->class_name : "?", a->number_of_transform_tracks, a->number_of_float_tracks,
		       (double)a->duration);
		if (a->kind == HKS_ANIMATION_SPLINE) {
			const hks_spline_header *h = &a->spline;
			fprintf(out, ", %d frames, frame duration %.9g s, %d blocks (max %d frames), data %u bytes\n", h->num_frames,
			       (double)h->frame_duration, h->num_blocks, h->max_frames_per_block, h->data_size);
			uint64_t counts[SELECTOR_CODES];
			uint32_t unreadable = count_selectors(a, counts);
			fprintf(out, "    rotation selectors:");
			bool any = false;
			for (unsigned s = 0; s < SELECTOR_CODES; s++) {
				if (!counts[s])
					continue;
				any = true;
				if (cli_selector_name(s))
					fprintf(out, " %s x%llu", cli_selector_name(s), (unsigned long long)counts[s]);
				else
					fprintf(out, " invalid(%u) x%llu", s, (unsigned long long)counts[s]);
			}
			fprintf(out, "%s%s\n", any ? "" : " none", unreadable ? " (some masks lie outside the data)" : "");
		} else {
			fprintf(out, "\n");
		}
	}
	for (uint32_t i = 0; i < f->num_bindings; i++) {
		const hks_binding *b = &f->bindings[i];
		fprintf(out, "  binding %u: skeleton \"%s\", animation %d, %u track-to-bone entries, %u float-slot entries, "
		       "blend hint %s\n",
		       i, b->original_skeleton_name ? b->original_skeleton_name : "", b->animation,
		       b->num_transform_track_to_bone_indices, b->num_float_track_to_float_slot_indices,
		       blend_hint_name(b->blend_hint));
	}
	for (uint32_t i = 0; i < f->num_skeletons; i++) {
		const hks_skeleton *s = &f->skeletons[i];
		fprintf(out, "  skeleton %u: \"%s\", %u bones, %u float slots\n", i, s->name ? s->name : "", s->num_bones,
		       s->num_float_slots);
	}
}

static void print_json(cli_json *j, const hks_loaded *ld)
{
	cli_json_begin_object(j);
	cli_json_key(j, "path");
	cli_json_string(j, ld->path);
	cli_json_key(j, "container");
	cli_json_string(j, hks_container_name(ld->status == HKS_OK ? ld->file->container : ld->container));
	cli_json_key(j, "sdk");
	cli_json_string(j, ld->sdk);
	if (ld->member) {
		cli_json_key(j, "binder");
		cli_json_string(j, ld->container_path);
		cli_json_key(j, "member");
		cli_json_string(j, ld->member);
	}
	cli_json_key(j, "ok");
	cli_json_bool(j, ld->status == HKS_OK);
	if (ld->status != HKS_OK) {
		char buf[2048];
		hks_error_format(&ld->error, buf, sizeof(buf));
		cli_json_key(j, "error");
		cli_json_string(j, buf);
		cli_json_end_object(j);
		return;
	}
	const hks_file *f = ld->file;
	cli_json_key(j, "pointer_size");
	cli_json_uint(j, f->pointer_size);
	cli_json_key(j, "compendium_id");
	if (f->has_compendium_reference) {
		char id[17];
		hks_format_id(f->compendium_id, id);
		cli_json_string(j, id);
	} else {
		cli_json_null(j);
	}
	if (f->container == HKS_CONTAINER_COMPENDIUM) {
		cli_json_key(j, "compendium_ids");
		cli_json_begin_array(j);
		for (uint32_t i = 0; i < f->num_compendium_ids; i++) {
			char id[17];
			hks_format_id(f->compendium_ids[i], id);
			cli_json_string(j, id);
		}
		cli_json_end_array(j);
	}
	cli_json_key(j, "animations");
	cli_json_begin_array(j);
	for (uint32_t i = 0; i < f->num_animations; i++) {
		const hks_animation *a = &f->animations[i];
		cli_json_begin_object(j);
		cli_json_key(j, "index");
		cli_json_uint(j, i);
		cli_json_key(j, "class");
		cli_json_string(j, a->class_name);
		cli_json_key(j, "spline");
		cli_json_bool(j, a->kind == HKS_ANIMATION_SPLINE);
		cli_json_key(j, "duration");
		cli_json_f32(j, a->duration);
		cli_json_key(j, "transform_tracks");
		cli_json_int(j, a->number_of_transform_tracks);
		cli_json_key(j, "float_tracks");
		cli_json_int(j, a->number_of_float_tracks);
		if (a->kind == HKS_ANIMATION_SPLINE) {
			const hks_spline_header *h = &a->spline;
			cli_json_key(j, "frames");
			cli_json_int(j, h->num_frames);
			cli_json_key(j, "frame_duration");
			cli_json_f32(j, h->frame_duration);
			cli_json_key(j, "blocks");
			cli_json_int(j, h->num_blocks);
			cli_json_key(j, "max_frames_per_block");
			cli_json_int(j, h->max_frames_per_block);
			cli_json_key(j, "data_size");
			cli_json_uint(j, h->data_size);
			uint64_t counts[SELECTOR_CODES];
			uint32_t unreadable = count_selectors(a, counts);
			cli_json_key(j, "rotation_selectors");
			cli_json_begin_object(j);
			for (unsigned s = 0; s < SELECTOR_CODES; s++) {
				if (!counts[s])
					continue;
				char name[16];
				if (cli_selector_name(s))
					snprintf(name, sizeof(name), "%s", cli_selector_name(s));
				else
					snprintf(name, sizeof(name), "invalid_%u", s);
				cli_json_key(j, name);
				cli_json_uint(j, counts[s]);
			}
			cli_json_end_object(j);
			cli_json_key(j, "unreadable_masks");
			cli_json_uint(j, unreadable);
			/* compression statistics (docs/METRICS.md §5) from the stored structure;
			 * null when the block walk rejects the data */
			hks_walk_options wo;
			memset(&wo, 0, sizeof(wo));
			wo.animation_index = (int32_t)i;
			hks_stored_animation *stored = NULL;
			hks_error werr;
			cli_json_key(j, "stats");
			if (hks_stored_read(a, &wo, &stored, &werr) == HKS_OK) {
				hks_spline_stats st;
				hks_spline_stats_compute(stored, &st);
				cli_json_spline_stats(j, &st);
				hks_stored_free(stored);
			} else {
				cli_json_null(j);
			}
		}
		cli_json_end_object(j);
	}
	cli_json_end_array(j);
	cli_json_key(j, "bindings");
	cli_json_begin_array(j);
	for (uint32_t i = 0; i < f->num_bindings; i++) {
		const hks_binding *b = &f->bindings[i];
		cli_json_begin_object(j);
		cli_json_key(j, "skeleton_name");
		cli_json_string(j, b->original_skeleton_name);
		cli_json_key(j, "animation");
		cli_json_int(j, b->animation);
		cli_json_key(j, "track_to_bone");
		cli_json_uint(j, b->num_transform_track_to_bone_indices);
		cli_json_key(j, "float_track_to_slot");
		cli_json_uint(j, b->num_float_track_to_float_slot_indices);
		cli_json_key(j, "blend_hint");
		cli_json_string(j, blend_hint_name(b->blend_hint));
		cli_json_end_object(j);
	}
	cli_json_end_array(j);
	cli_json_key(j, "skeletons");
	cli_json_begin_array(j);
	for (uint32_t i = 0; i < f->num_skeletons; i++) {
		const hks_skeleton *s = &f->skeletons[i];
		cli_json_begin_object(j);
		cli_json_key(j, "name");
		cli_json_string(j, s->name);
		cli_json_key(j, "bones");
		cli_json_uint(j, s->num_bones);
		cli_json_key(j, "float_slots");
		cli_json_uint(j, s->num_float_slots);
		cli_json_end_object(j);
	}
	cli_json_end_array(j);
	cli_json_end_object(j);
}

/* One unit's description, rendered on a pool worker and printed in loader order. */
typedef struct info_unit {
	const char *path; /* the loader's display path */
	hks_result load;  /* hks_loader_load's result */
	bool parsed;
	char *text;       /* the rendered text or JSON object; NULL when not loaded */
	size_t size;
} info_unit;

typedef struct info_job {
	info_unit *units; /* one slot per loader unit */
	cli_json *json;   /* the writer of the "files" array; NULL for text */
	int status;
} info_job;

static void describe_one(void *ctx, size_t index, const char *path, hks_result r, const hks_loaded *ld)
{
	info_job *job = (info_job *)ctx;
	info_unit *u = &job->units[index];
	u->path = path ? path : "?";
	u->load = r;
	if (r != HKS_OK || !ld)
		return;
	u->parsed = ld->status == HKS_OK;
	FILE *out = hks_platform_open_memstream(&u->text, &u->size);
	if (!out) {
		u->load = HKS_E_NOMEM;
		return;
	}
	if (job->json) {
		cli_json item;
		cli_json_init_nested(&item, out, job->json->pretty, job->json->depth);
		print_json(&item, ld);
	} else {
		print_text(out, ld);
	}
	if (hks_platform_close_memstream(out) != 0) {
		free(u->text);
		u->text = NULL;
		u->load = HKS_E_NOMEM;
	}
}

static void print_one(void *ctx, size_t index)
{
	info_job *job = (info_job *)ctx;
	info_unit *u = &job->units[index];
	if (u->load != HKS_OK || !u->text) {
		fprintf(stderr, "hkspline info: %s: %s\n", u->path, hks_result_name(u->load));
		job->status = 1;
	} else {
		if (!u->parsed)
			job->status = 1;
		if (job->json)
			cli_json_raw(job->json, u->text);
		else
			fwrite(u->text, 1, u->size, stdout);
	}
	free(u->text);
	u->text = NULL;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: hkspline info [--json] [-j N] [--compendium FILE|DIR]... PATH...\n"
	             "Describe the containers, animations, bindings and skeletons of the files, folders\n"
	             "(recursive), binders and DCX archives given. Exit status 1 when a file cannot be read.\n");
}

int cmd_info(int argc, char **argv)
{
	cli_unit_args args;
	int status = cli_unit_args_parse(&args, argc, argv, "info", NULL, usage);
	if (status >= 0)
		goto done;
	status = 2;
	hks_loader *loader = cli_unit_loader(&args);
	if (!loader)
		goto done;
	info_job job;
	memset(&job, 0, sizeof(job));
	hks_error err;
	for (size_t i = 0; i < args.num_paths; i++) {
		if (hks_loader_add_path(loader, args.paths[i], &err) != HKS_OK) {
			cli_print_error(&err);
			job.status = 1;
		}
	}
	size_t count = hks_loader_count(loader);
	job.units = (info_unit *)calloc(count + 1, sizeof(info_unit));
	if (!job.units) {
		fprintf(stderr, "hkspline info: out of memory\n");
		hks_loader_free(loader);
		goto done;
	}
	cli_json j;
	if (args.json) {
		cli_json_init(&j, stdout, true);
		cli_json_begin_object(&j);
		cli_json_key(&j, "files");
		cli_json_begin_array(&j);
		job.json = &j;
	}
	/* the descriptions stream to stdout as they come: no progress bar over them */
	args.progress = false;
	cli_units_run(loader, &args, &job, describe_one, print_one);
	if (args.json) {
		cli_json_end_array(&j);
		cli_json_end_object(&j);
	}
	fflush(stdout);
	status = job.status;
	free(job.units);
	hks_loader_free(loader);
done:
	cli_unit_args_free(&args);
	return status;
}
