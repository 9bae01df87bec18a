/*
 * hkspline info: describe every Havok file under the given paths: container,
 * SDK, animations (with the rotation selectors their blocks use), bindings
 * and skeletons. Text or --json (docs/CLI.md).
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* Selector codes are 4 bits (FORMAT.md §2.3): 0-5 valid, 6-15 invalid. */
#define SELECTOR_CODES 16

static const char *selector_name(unsigned s)
{
	static const char *const names[] = {"Polar32", "ThreeComp40", "ThreeComp48", "ThreeComp24", "Straight16",
	                                    "Uncompressed"};
	return s < 6 ? names[s] : NULL;
}

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

static void print_text(const hks_loaded *ld)
{
	printf("%s\n", ld->path);
	if (ld->status != HKS_OK) {
		char buf[2048];
		hks_error_format(&ld->error, buf, sizeof(buf));
		printf("  error: %s\n", buf);
		return;
	}
	const hks_file *f = ld->file;
	printf("  container: %s", hks_container_name(f->container));
	if (f->sdk[0])
		printf(", SDK %s", f->sdk);
	printf(", %u-bit pointers", f->pointer_size * 8);
	if (f->has_compendium_reference) {
		char id[17];
		hks_format_id(f->compendium_id, id);
		printf(", compendium %s", id);
	}
	if (f->container == HKS_CONTAINER_COMPENDIUM) {
		printf(", IDs");
		for (uint32_t i = 0; i < f->num_compendium_ids; i++) {
			char id[17];
			hks_format_id(f->compendium_ids[i], id);
			printf(" %s", id);
		}
	}
	printf("\n");
	for (uint32_t i = 0; i < f->num_animations; i++) {
		const hks_animation *a = &f->animations[i];
		printf("  animation %u: %s, %d transform + %d float tracks, duration %.9g s", i,
		       a->class_name ? a->class_name : "?", a->number_of_transform_tracks, a->number_of_float_tracks,
		       (double)a->duration);
		if (a->kind == HKS_ANIMATION_SPLINE) {
			const hks_spline_header *h = &a->spline;
			printf(", %d frames, frame duration %.9g s, %d blocks (max %d frames), data %u bytes\n", h->num_frames,
			       (double)h->frame_duration, h->num_blocks, h->max_frames_per_block, h->data_size);
			uint64_t counts[SELECTOR_CODES];
			uint32_t unreadable = count_selectors(a, counts);
			printf("    rotation selectors:");
			bool any = false;
			for (unsigned s = 0; s < SELECTOR_CODES; s++) {
				if (!counts[s])
					continue;
				any = true;
				if (selector_name(s))
					printf(" %s x%llu", selector_name(s), (unsigned long long)counts[s]);
				else
					printf(" invalid(%u) x%llu", s, (unsigned long long)counts[s]);
			}
			printf("%s%s\n", any ? "" : " none", unreadable ? " (some masks lie outside the data)" : "");
		} else {
			printf("\n");
		}
	}
	for (uint32_t i = 0; i < f->num_bindings; i++) {
		const hks_binding *b = &f->bindings[i];
		printf("  binding %u: skeleton \"%s\", animation %d, %u track-to-bone entries, %u float-slot entries, "
		       "blend hint %s\n",
		       i, b->original_skeleton_name ? b->original_skeleton_name : "", b->animation,
		       b->num_transform_track_to_bone_indices, b->num_float_track_to_float_slot_indices,
		       blend_hint_name(b->blend_hint));
	}
	for (uint32_t i = 0; i < f->num_skeletons; i++) {
		const hks_skeleton *s = &f->skeletons[i];
		printf("  skeleton %u: \"%s\", %u bones, %u float slots\n", i, s->name ? s->name : "", s->num_bones,
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
				if (selector_name(s))
					snprintf(name, sizeof(name), "%s", selector_name(s));
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

static void usage(FILE *out)
{
	fprintf(out, "usage: hkspline info [--json] [--compendium FILE|DIR]... PATH...\n"
	             "Describe the containers, animations, bindings and skeletons of the files, folders\n"
	             "(recursive), binders and DCX archives given. Exit status 1 when a file cannot be read.\n");
}

int cmd_info(int argc, char **argv)
{
	bool json = false;
	const char **compendiums = (const char **)calloc((size_t)argc + 1, sizeof(char *));
	const char **paths = (const char **)calloc((size_t)argc + 1, sizeof(char *));
	size_t num_compendiums = 0, num_paths = 0;
	int status = 2;
	if (!compendiums || !paths) {
		fprintf(stderr, "hkspline info: out of memory\n");
		goto done;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			status = 0;
			goto done;
		} else if (!strcmp(a, "--json")) {
			json = true;
		} else if (!strcmp(a, "--compendium")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "hkspline info: --compendium needs a file or folder\n");
				goto done;
			}
			compendiums[num_compendiums++] = argv[++i];
		} else if (!strcmp(a, "--")) {
			for (i++; i < argc; i++)
				paths[num_paths++] = argv[i];
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "hkspline info: unknown option '%s'\n", a);
			usage(stderr);
			goto done;
		} else {
			paths[num_paths++] = a;
		}
	}
	if (!num_paths) {
		usage(stderr);
		goto done;
	}
	hks_load_options lo;
	memset(&lo, 0, sizeof(lo));
	lo.compendium_paths = compendiums;
	lo.num_compendium_paths = num_compendiums;
	hks_loader *loader = NULL;
	hks_error err;
	if (hks_loader_create(&lo, &loader, &err) != HKS_OK) {
		cli_print_error(&err);
		goto done;
	}
	status = 0;
	for (size_t i = 0; i < num_paths; i++) {
		if (hks_loader_add_path(loader, paths[i], &err) != HKS_OK) {
			cli_print_error(&err);
			status = 1;
		}
	}
	cli_json j;
	if (json) {
		cli_json_init(&j, stdout, true);
		cli_json_begin_object(&j);
		cli_json_key(&j, "files");
		cli_json_begin_array(&j);
	}
	size_t n = hks_loader_count(loader);
	for (size_t i = 0; i < n; i++) {
		hks_loaded *ld = NULL;
		hks_result r = hks_loader_load(loader, i, &ld);
		if (r != HKS_OK || !ld) {
			fprintf(stderr, "hkspline info: %s: %s\n", hks_loader_path(loader, i), hks_result_name(r));
			status = 1;
			continue;
		}
		if (ld->status != HKS_OK)
			status = 1;
		if (json)
			print_json(&j, ld);
		else
			print_text(ld);
		hks_loaded_free(ld);
	}
	if (json) {
		cli_json_end_array(&j);
		cli_json_end_object(&j);
	}
	fflush(stdout);
	hks_loader_free(loader);
done:
	free(compendiums);
	free(paths);
	return status;
}
