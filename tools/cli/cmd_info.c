/*
 * hkspline info: describe every Havok file under the given paths: container,
 * SDK, animations (with the rotation selectors their blocks use), bindings
 * and skeletons. Text or --json (docs/CLI.md). A PATH may be BINDER:MEMBER
 * (one member of a binder, by full or base name) as in the other commands;
 * --skeleton adds every skeleton's bones, parents, reference pose and float
 * slots.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli_units.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

static void print_vec(FILE *out, const char *label, const float *v, int n)
{
	fprintf(out, " %s (", label);
	for (int k = 0; k < n; k++)
		fprintf(out, "%s%.9g", k ? " " : "", (double)v[k]);
	fputc(')', out);
}

/* --skeleton: one line per bone (index, name, parent, reference pose), then the float slots. */
static void print_skeleton_text(FILE *out, const hks_skeleton *s)
{
	for (uint32_t b = 0; b < s->num_bones; b++) {
		const char *name = s->bone_names && s->bone_names[b] ? s->bone_names[b] : "";
		fprintf(out, "    bone %u: \"%s\", parent %d", b, name,
		        b < s->num_parent_indices && s->parent_indices ? (int)s->parent_indices[b] : -1);
		if (b < s->num_reference_pose && s->reference_pose) {
			const hks_qs_transform *t = &s->reference_pose[b];
			print_vec(out, "translation", t->translation, 3);
			print_vec(out, "rotation", t->rotation, 4);
			print_vec(out, "scale", t->scale, 3);
		}
		fputc('\n', out);
	}
	for (uint32_t k = 0; k < s->num_float_slots; k++) {
		fprintf(out, "    float slot %u: \"%s\"", k, s->float_slots && s->float_slots[k] ? s->float_slots[k] : "");
		if (k < s->num_reference_floats && s->reference_floats)
			fprintf(out, ", reference %.9g", (double)s->reference_floats[k]);
		fputc('\n', out);
	}
}

static void json_vec(cli_json *j, const char *key, const float *v, int n)
{
	cli_json_key(j, key);
	cli_json_begin_array(j);
	for (int k = 0; k < n; k++)
		cli_json_f32(j, v[k]);
	cli_json_end_array(j);
}

static void print_skeleton_json(cli_json *j, const hks_skeleton *s)
{
	cli_json_key(j, "bone_list");
	cli_json_begin_array(j);
	for (uint32_t b = 0; b < s->num_bones; b++) {
		cli_json_begin_object(j);
		cli_json_key(j, "index");
		cli_json_uint(j, b);
		cli_json_key(j, "name");
		if (s->bone_names && s->bone_names[b])
			cli_json_string(j, s->bone_names[b]);
		else
			cli_json_null(j);
		cli_json_key(j, "parent");
		cli_json_int(j, b < s->num_parent_indices && s->parent_indices ? s->parent_indices[b] : -1);
		if (b < s->num_reference_pose && s->reference_pose) {
			const hks_qs_transform *t = &s->reference_pose[b];
			json_vec(j, "translation", t->translation, 3);
			json_vec(j, "rotation", t->rotation, 4);
			json_vec(j, "scale", t->scale, 3);
		}
		cli_json_end_object(j);
	}
	cli_json_end_array(j);
	cli_json_key(j, "float_slot_list");
	cli_json_begin_array(j);
	for (uint32_t k = 0; k < s->num_float_slots; k++) {
		cli_json_begin_object(j);
		cli_json_key(j, "index");
		cli_json_uint(j, k);
		cli_json_key(j, "name");
		if (s->float_slots && s->float_slots[k])
			cli_json_string(j, s->float_slots[k]);
		else
			cli_json_null(j);
		cli_json_key(j, "reference");
		if (k < s->num_reference_floats && s->reference_floats)
			cli_json_f32(j, s->reference_floats[k]);
		else
			cli_json_null(j);
		cli_json_end_object(j);
	}
	cli_json_end_array(j);
}

static bool show_skeleton; /* --skeleton (set once before the workers start) */

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
		if (show_skeleton)
			print_skeleton_text(out, s);
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
		if (show_skeleton)
			print_skeleton_json(j, s);
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
	bool *skip;       /* per unit: another member of a BINDER:MEMBER path (not shown); NULL: none */
	cli_json *json;   /* the writer of the "files" array; NULL for text */
	int status;
} info_job;

static void describe_one(void *ctx, size_t index, const char *path, hks_result r, const hks_loaded *ld)
{
	info_job *job = (info_job *)ctx;
	info_unit *u = &job->units[index];
	u->path = path ? path : "?";
	u->load = r;
	if (job->skip && job->skip[index])
		return;
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
	if (job->skip && job->skip[index])
		return;
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
	fprintf(out, "usage: hkspline info [--json] [-j N] [--skeleton] [--compendium FILE|DIR]... PATH...\n"
	             "Describe the containers, animations, bindings and skeletons of the files, folders\n"
	             "(recursive), binders and DCX archives given; BINDER:MEMBER names one member of a\n"
	             "binder. --skeleton: every skeleton's bones (name, parent, reference pose) and float\n"
	             "slots. Exit status 1 when a file cannot be read.\n");
}

/* A PATH the loader does not take as it is, read as BINDER:MEMBER: the
 * binder's units are added, and the range they take and the member's index
 * are kept in `pick` (the other members are not shown). Returns the exit
 * status (0, or 1 / 2 after printing why). */
typedef struct member_pick {
	size_t first, count, chosen;
} member_pick;

static int add_member_path(hks_loader *loader, const char *in, member_pick *pick)
{
	pick->first = hks_loader_count(loader);
	size_t unit = 0;
	/* hks_loader_open_unit: a member's full name (with its own ':') or base name, a binder that
	 * cannot be opened named with its own error, a member that is no Havok file said so */
	int st = cli_open_unit(loader, in, "info", &unit);
	pick->count = hks_loader_count(loader) - pick->first;
	pick->chosen = st == 0 ? unit : SIZE_MAX; /* on failure none of the binder's units is shown */
	return st;
}

int cmd_info(int argc, char **argv)
{
	cli_unit_args args;
	bool skeleton = false;
	const cli_flag flags[] = {{"--skeleton", &skeleton}, {NULL, NULL}};
	int status = cli_unit_args_parse(&args, argc, argv, "info", flags, usage);
	if (status >= 0)
		goto done;
	status = 2;
	hks_loader *loader = cli_unit_loader(&args);
	if (!loader)
		goto done;
	show_skeleton = skeleton;
	info_job job;
	memset(&job, 0, sizeof(job));
	hks_error err;
	member_pick *picks = (member_pick *)calloc(args.num_paths + 1, sizeof(member_pick));
	size_t num_picks = 0;
	for (size_t i = 0; i < args.num_paths; i++) {
		if (hks_loader_add_path(loader, args.paths[i], &err) == HKS_OK)
			continue;
		if (!picks) {
			cli_print_error(&err);
			job.status = 1;
			continue;
		}
		member_pick *pk = &picks[num_picks];
		memset(pk, 0, sizeof(*pk));
		int st = add_member_path(loader, args.paths[i], pk);
		if (st > job.status)
			job.status = st;
		if (pk->count) /* the binder's units: only the member (if found) is shown */
			num_picks++;
	}
	size_t count = hks_loader_count(loader);
	job.units = (info_unit *)calloc(count + 1, sizeof(info_unit));
	if (num_picks)
		job.skip = (bool *)calloc(count + 1, sizeof(bool));
	if (!job.units || (num_picks && !job.skip) || !picks) {
		fprintf(stderr, "hkspline info: out of memory\n");
		free(job.units);
		free(job.skip);
		free(picks);
		hks_loader_free(loader);
		goto done;
	}
	for (size_t k = 0; k < num_picks; k++)
		for (size_t i = picks[k].first; i < picks[k].first + picks[k].count; i++)
			job.skip[i] = i != picks[k].chosen;
	free(picks);
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
	free(job.skip);
	hks_loader_free(loader);
done:
	cli_unit_args_free(&args);
	return status;
}
