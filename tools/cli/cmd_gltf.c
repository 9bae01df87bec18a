/*
 * The glTF parts of the CLI (docs/GLTF.md):
 *
 *   hkspline decode IN [--skeleton S] [--compendium P]... -o OUT.glb|OUT.gltf
 *     every spline (and interleaved) animation of IN as one glTF animation on
 *     the skeleton's nodes (hks_gltf_write).
 *
 *   hkspline encode IN.glb|IN.gltf --skeleton S [--like ORIGINAL] [--game sekiro|eldenring]
 *                   -o OUT.hkx [--into BINDER --name NAME] [--animation N|NAME]
 *     one glTF animation -> frames at the target rate (hks_gltf_read), matched
 *     to the skeleton by bone name, encoded with Havok's defaults
 *     (hks_encode_spline), written as a tagfile of the game's SDK, optionally
 *     placed into a binder.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cli_donor.h"
#include "cmd_gltf.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

bool cli_is_gltf_path(const char *path)
{
	size_t n = path ? strlen(path) : 0;
	return (n >= 4 && !strcasecmp(path + n - 4, ".glb")) || (n >= 5 && !strcasecmp(path + n - 5, ".gltf"));
}

/* ---- decode -> glTF ---- */

typedef struct export_clip {
	float *transforms, *floats;
	char name[160];
} export_clip;

static int decode_frames(const hks_animation *an, uint32_t index, hks_gltf_clip *c, export_clip *ec)
{
	hks_error err;
	if (an->kind == HKS_ANIMATION_INTERLEAVED) {
		uint32_t T = an->number_of_transform_tracks > 0 ? (uint32_t)an->number_of_transform_tracks : 0;
		uint32_t F = an->number_of_float_tracks > 0 ? (uint32_t)an->number_of_float_tracks : 0;
		uint32_t rows = T ? an->num_transforms / T : (F ? an->num_floats / F : 0);
		ec->transforms = calloc((size_t)rows * T * HKS_TRACK_SAMPLE_FLOATS + 1, sizeof(float));
		ec->floats = calloc((size_t)rows * F + 1, sizeof(float));
		if (!ec->transforms || !ec->floats || rows == 0)
			return 2;
		for (size_t i = 0; i < (size_t)rows * T; i++) {
			memcpy(ec->transforms + i * 10, an->transforms[i].translation, 12);
			memcpy(ec->transforms + i * 10 + 3, an->transforms[i].rotation, 16);
			memcpy(ec->transforms + i * 10 + 7, an->transforms[i].scale, 12);
		}
		for (size_t i = 0; i < (size_t)rows * F && i < an->num_floats; i++)
			ec->floats[i] = an->floats[i];
		c->num_frames = rows;
		c->num_transform_tracks = T;
		c->num_float_tracks = F;
		c->duration = an->duration;
		c->frame_duration = rows > 1 ? an->duration / (float)(rows - 1) : 0;
	} else {
		hks_walk_options wo = {0};
		wo.animation_index = (int32_t)index;
		hks_stored_animation *s = NULL;
		if (hks_stored_read(an, &wo, &s, &err) != HKS_OK) {
			cli_print_error(&err);
			return 1;
		}
		uint32_t T = (uint32_t)s->num_transform_tracks, F = (uint32_t)s->num_float_tracks, n = (uint32_t)s->num_frames;
		ec->transforms = calloc((size_t)n * T * HKS_TRACK_SAMPLE_FLOATS + 1, sizeof(float));
		ec->floats = calloc((size_t)n * F + 1, sizeof(float));
		if (!ec->transforms || !ec->floats) {
			hks_stored_free(s);
			return 2;
		}
		hks_result r = hks_sample_frames(s, NULL, 0, n, ec->transforms, ec->floats, &err);
		c->num_frames = n;
		c->num_transform_tracks = T;
		c->num_float_tracks = F;
		c->duration = s->duration;
		c->frame_duration = s->frame_duration;
		hks_stored_free(s);
		if (r != HKS_OK) {
			cli_print_error(&err);
			return 1;
		}
	}
	c->transforms = ec->transforms;
	c->floats = ec->floats;
	return 0;
}

static void clip_name(const char *path, uint32_t index, uint32_t count, char *buf, size_t size)
{
	const char *base = path;
	for (const char *p = path; *p; p++)
		if (*p == '/' || *p == '\\' || *p == ':')
			base = p + 1;
	size_t len = strlen(base);
	const char *dot = strrchr(base, '.');
	if (dot && dot != base)
		len = (size_t)(dot - base);
	if (count > 1)
		snprintf(buf, size, "%.*s #%u", (int)len, base, index);
	else
		snprintf(buf, size, "%.*s", (int)len, base);
}

static void decode_usage(FILE *out)
{
	fprintf(out, "usage: hkspline decode IN [--skeleton S] [--compendium P]... -o OUT.glb|OUT.gltf\n"
	             "  IN          a Havok file, or BINDER:MEMBER\n"
	             "  --skeleton  skeleton file, BINDER:MEMBER, or a binder / folder holding one\n"
	             "              (default: IN's own, else the one in IN's binder or folder)\n");
}

int cli_decode_gltf(int argc, char **argv)
{
	const char **comps = calloc((size_t)argc + 1, sizeof(char *));
	size_t ncomps = 0;
	const char *in = NULL, *out_path = NULL, *skeleton = NULL;
	int rc = 2;
	hks_loader *loader = NULL, *skel_loader = NULL;
	hks_loaded *src = NULL, *skel = NULL;
	hks_gltf_clip *clips = NULL;
	export_clip *ecs = NULL;
	uint32_t nclips = 0;
	if (!comps)
		return 2;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has = i + 1 < argc;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			decode_usage(stdout);
			rc = 0;
			goto done;
		} else if (!strcmp(a, "--compendium") && has)
			comps[ncomps++] = argv[++i];
		else if (!strcmp(a, "--skeleton") && has)
			skeleton = argv[++i];
		else if (!strcmp(a, "-o") && has)
			out_path = argv[++i];
		else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "hkspline decode: option '%s' does not apply to glTF output\n", a);
			decode_usage(stderr);
			goto done;
		} else if (!in)
			in = a;
		else {
			fprintf(stderr, "hkspline decode: one input only ('%s')\n", a);
			goto done;
		}
	}
	if (!in || !out_path) {
		decode_usage(stderr);
		goto done;
	}
	hks_load_options lo;
	memset(&lo, 0, sizeof(lo));
	lo.compendium_paths = comps;
	lo.num_compendium_paths = ncomps;
	hks_error err;
	size_t unit = 0;
	if (hks_loader_create(&lo, &loader, &err) != HKS_OK) {
		cli_print_error(&err);
		goto done;
	}
	if (cli_open_unit(loader, in, "decode", &unit) != 0)
		goto done;
	if (hks_loader_load(loader, unit, &src) != HKS_OK || !src) {
		fprintf(stderr, "hkspline decode: cannot load %s\n", in);
		goto done;
	}
	if (src->status != HKS_OK) {
		cli_print_error(&src->error);
		goto done;
	}
	const hks_file *f = src->file;
	if (skeleton) {
		if (cli_load_skeleton(&lo, skeleton, &skel_loader, &skel, "decode") != 0)
			goto done;
	} else if (f->num_skeletons == 0) {
		if (hks_loader_find_skeleton(loader, unit, &skel) != HKS_OK || !skel || skel->status != HKS_OK) {
			fprintf(stderr, "hkspline decode: glTF output needs a skeleton: none in %s or beside it; pass --skeleton\n",
			        in);
			goto done;
		}
	}
	clips = calloc(f->num_animations + 1, sizeof(*clips));
	ecs = calloc(f->num_animations + 1, sizeof(*ecs));
	if (!clips || !ecs)
		goto done;
	const hks_skeleton *sk = NULL;
	for (uint32_t a = 0; a < f->num_animations; a++) {
		const hks_animation *an = &f->animations[a];
		if (an->kind != HKS_ANIMATION_SPLINE && an->kind != HKS_ANIMATION_INTERLEAVED) {
			fprintf(stderr, "hkspline decode: %s animation %u (%s) is not exported\n", src->path, a,
			        an->class_name ? an->class_name : "?");
			continue;
		}
		hks_gltf_clip *c = &clips[nclips];
		export_clip *ec = &ecs[nclips];
		nclips++;
		if ((rc = decode_frames(an, a, c, ec)) != 0)
			goto done;
		rc = 2;
		const hks_binding *bind = cli_binding_for(f, a);
		const hks_skeleton *this_sk = cli_pick_skeleton(f, skel ? skel->file : NULL, bind);
		if (!sk)
			sk = this_sk;
		if (bind && bind->num_transform_track_to_bone_indices) {
			if (bind->num_transform_track_to_bone_indices < c->num_transform_tracks) {
				fprintf(stderr, "hkspline decode: animation %u: the binding maps %u of %u tracks\n", a,
				        bind->num_transform_track_to_bone_indices, c->num_transform_tracks);
				goto done;
			}
			c->track_to_bone = bind->transform_track_to_bone_indices;
		}
		if (bind && bind->num_float_track_to_float_slot_indices >= c->num_float_tracks &&
		    bind->num_float_track_to_float_slot_indices)
			c->float_track_to_slot = bind->float_track_to_float_slot_indices;
		c->blend_hint = bind ? bind->blend_hint : 0;
		if (an->reference_frame >= 0 && (uint32_t)an->reference_frame < f->num_reference_frames &&
		    f->reference_frames[an->reference_frame].num_samples)
			c->root_motion = &f->reference_frames[an->reference_frame];
		clip_name(src->path, a, f->num_animations, ec->name, sizeof(ec->name));
		c->name = ec->name;
	}
	if (!sk) {
		fprintf(stderr, "hkspline decode: no skeleton for %s\n", in);
		goto done;
	}
	if (nclips == 0) {
		fprintf(stderr, "hkspline decode: %s has no animation to export\n", in);
		goto done;
	}
	hks_gltf_write_options wo;
	memset(&wo, 0, sizeof(wo));
	wo.base.name = out_path;
	size_t olen = strlen(out_path);
	wo.binary = olen >= 4 && !strcasecmp(out_path + olen - 4, ".glb");
	uint8_t *bytes = NULL;
	size_t size = 0;
	hks_gltf_write_report rep;
	if (hks_gltf_write(sk, clips, nclips, &wo, &bytes, &size, &rep, &err) != HKS_OK) {
		cli_print_error(&err);
		rc = 1;
		goto done;
	}
	bool ok = cli_write_file(out_path, bytes, size);
	hks_buffer_free(&wo.base, bytes, size);
	if (!ok)
		goto done;
	uint32_t with_rm = 0;
	for (uint32_t i = 0; i < nclips; i++)
		with_rm += clips[i].root_motion != NULL;
	printf("%s: %u animation(s), skeleton %s (%u bones), %u channels, root motion in %u, %u unbound and %u duplicate "
	       "tracks skipped, %llu non-finite samples replaced; wrote %s (%zu bytes)\n",
	       src->path, nclips, sk->name ? sk->name : "?", sk->num_bones, rep.channels, with_rm, rep.unbound_tracks,
	       rep.duplicate_tracks, (unsigned long long)rep.nonfinite_samples, out_path, size);
	rc = 0;
done:
	for (uint32_t i = 0; ecs && i < nclips; i++) {
		free(ecs[i].transforms);
		free(ecs[i].floats);
	}
	free(ecs);
	free(clips);
	hks_loaded_free(skel);
	hks_loaded_free(src);
	hks_loader_free(skel_loader);
	hks_loader_free(loader);
	free(comps);
	return rc;
}

/* ---- glTF -> encode ---- */

static void encode_usage(FILE *out)
{
	fprintf(out,
	        "usage: hkspline encode IN.glb|IN.gltf --skeleton S [--like ORIGINAL] [--game sekiro|eldenring]\n"
	        "                       -o OUT.hkx [--into BINDER --name NAME] [--animation N|NAME] [--compendium P]...\n"
	        "  --skeleton S     skeleton file, BINDER:MEMBER, or a binder / folder holding one\n"
	        "                   (default with --like: the one beside ORIGINAL)\n"
	        "  --like ORIGINAL  the clip replaced: its container, track order, frame rate, SDK; without it a\n"
	        "                   donor tagfile from the skeleton's binder / folder is used (tracks: every bone)\n"
	        "  --game G         sekiro (SDK 20160200) or eldenring (20180100): the encoder's SDK\n"
	        "  --fps F          target frame rate without --like (default 30)\n"
	        "  --into BINDER --name NAME   also place OUT into the binder (replace or add NAME)\n"
	        "  --no-guard       Havok's fit as is, without the tolerance guard (docs/ENCODE.md)\n");
}

static void print_list(const char *what, const char *const *names, const int32_t *bones, const hks_skeleton *sk,
                       uint32_t n)
{
	if (!n)
		return;
	fprintf(stderr, "hkspline encode: %u %s:", n, what);
	for (uint32_t i = 0; i < n && i < 24; i++) {
		if (names)
			fprintf(stderr, " %s", names[i]);
		else {
			int32_t b = bones[i];
			const char *bn = b >= 0 && (uint32_t)b < sk->num_bones && sk->bone_names ? sk->bone_names[b] : NULL;
			fprintf(stderr, " %s", bn ? bn : "?");
		}
	}
	fprintf(stderr, "%s\n", n > 24 ? " ..." : "");
}

int cli_encode_gltf(int argc, char **argv)
{
	const char **comps = calloc((size_t)argc + 1, sizeof(char *));
	size_t ncomps = 0;
	const char *in = NULL, *out_path = NULL, *skeleton = NULL, *like = NULL, *sdk = NULL, *into = NULL,
	           *name = NULL, *anim_sel = NULL;
	double fps = 0;
	int rc = 2, unguarded = 0;
	hks_loader *skel_loader = NULL, *like_loader = NULL;
	hks_loaded *skel = NULL, *ld = NULL;
	uint8_t *gltf = NULL;
	size_t gltf_size = 0;
	hks_gltf_animation *ga = NULL;
	hks_packed_spline *packed = NULL;
	const char **slot_names = NULL;
	float *ref_floats = NULL;
	int16_t *identity = NULL, *float_slots = NULL;
	float(*samples)[4] = NULL;
	if (!comps)
		return 2;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has = i + 1 < argc;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			encode_usage(stdout);
			rc = 0;
			goto done;
		} else if (!strcmp(a, "-o") && has)
			out_path = argv[++i];
		else if (!strcmp(a, "--skeleton") && has)
			skeleton = argv[++i];
		else if (!strcmp(a, "--like") && has)
			like = argv[++i];
		else if (!strcmp(a, "--compendium") && has)
			comps[ncomps++] = argv[++i];
		else if (!strcmp(a, "--no-backup"))
			cli_into_no_backup = true;
		else if (!strcmp(a, "--into") && has)
			into = argv[++i];
		else if (!strcmp(a, "--name") && has)
			name = argv[++i];
		else if (!strcmp(a, "--animation") && has)
			anim_sel = argv[++i];
		else if (!strcmp(a, "--no-guard"))
			unguarded = 1;
		else if (!strcmp(a, "--fps") && has) {
			char *end = NULL;
			fps = strtod(argv[++i], &end);
			if (!end || *end || !(fps > 0) || fps > 10000) {
				fprintf(stderr, "hkspline encode: --fps wants a positive rate\n");
				goto done;
			}
		} else if (!strcmp(a, "--game") && has) {
			const char *g = argv[++i];
			if (!strcmp(g, "sekiro"))
				sdk = "20160200";
			else if (!strcmp(g, "eldenring") || !strcmp(g, "elden-ring"))
				sdk = "20180100";
			else {
				fprintf(stderr, "hkspline encode: --game takes sekiro or eldenring\n");
				goto done;
			}
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "hkspline encode: option '%s' is unknown or does not apply to glTF input\n", a);
			encode_usage(stderr);
			goto done;
		} else if (!in)
			in = a;
		else {
			fprintf(stderr, "hkspline encode: one input only ('%s' and '%s')\n", in, a);
			goto done;
		}
	}
	if (!in || !out_path || (into && !name) || (name && !into)) {
		encode_usage(stderr);
		goto done;
	}
	hks_load_options lo;
	memset(&lo, 0, sizeof(lo));
	lo.compendium_paths = comps;
	lo.num_compendium_paths = ncomps;
	hks_error err;
	size_t like_unit = 0;
	hks_file *file = NULL;
	uint32_t ai = 0;
	const char *container_name = like;
	if (like) {
		if (hks_loader_create(&lo, &like_loader, &err) != HKS_OK) {
			cli_print_error(&err);
			goto done;
		}
		if (cli_open_unit(like_loader, like, "encode", &like_unit) != 0)
			goto done;
		if (hks_loader_load(like_loader, like_unit, &ld) != HKS_OK || !ld) {
			fprintf(stderr, "hkspline encode: cannot load %s\n", like);
			goto done;
		}
		if (ld->status != HKS_OK) {
			cli_print_error(&ld->error);
			goto done;
		}
		file = ld->file;
		while (ai < file->num_animations && file->animations[ai].kind != HKS_ANIMATION_SPLINE)
			ai++;
		if (ai == file->num_animations) {
			fprintf(stderr, "hkspline encode: %s has no spline animation to replace\n", like);
			goto done;
		}
	} else if (!skeleton) {
		fprintf(stderr, "hkspline encode: glTF input needs --skeleton (or --like ORIGINAL)\n");
		goto done;
	}
	if (skeleton) {
		if (cli_load_skeleton(&lo, skeleton, &skel_loader, &skel, "encode") != 0)
			goto done;
	} else if (file->num_skeletons == 0 &&
	           (hks_loader_find_skeleton(like_loader, like_unit, &skel) != HKS_OK || !skel || skel->status != HKS_OK)) {
		fprintf(stderr, "hkspline encode: no skeleton beside %s; pass --skeleton\n", like);
		goto done;
	}
	if (!like) {
		/* a donor: its type table (or compendium reference) and container; the track set is rebuilt */
		int found = cli_find_donor(&lo, skeleton, sdk, &like_loader, &ld, &ai);
		if (found == 1)
			fprintf(stderr,
			        "hkspline encode: no donor tagfile%s%s with a spline animation beside %s: pass --like ORIGINAL.hkx\n",
			        sdk ? " of SDK " : "", sdk ? sdk : "", skeleton);
		if (found != 0)
			goto done;
		file = ld->file;
		container_name = ld->path;
		printf("%s: donor %s (SDK %s)\n", in, ld->path, file->sdk);
	}
	hks_animation *oa = &file->animations[ai];
	const hks_binding *bind = cli_binding_for(file, ai);
	const hks_skeleton *sk = cli_pick_skeleton(skel ? skel->file : NULL, file, like ? bind : NULL);
	if (like)
		sk = cli_pick_skeleton(file, skel ? skel->file : NULL, bind);
	if (!sk || !sk->num_bones) {
		fprintf(stderr, "hkspline encode: no usable skeleton\n");
		goto done;
	}
	uint32_t T = oa->number_of_transform_tracks > 0 ? (uint32_t)oa->number_of_transform_tracks : 0;
	uint32_t F = oa->number_of_float_tracks > 0 ? (uint32_t)oa->number_of_float_tracks : 0;
	/* track order: the original's binding (an empty map is the identity, CONTAINERS.md §3.5);
	 * without --like every skeleton bone in order, and the float slots the glTF's extras carry */
	const int16_t *track_to_bone = NULL;
	if (!like) {
		T = sk->num_bones;
		F = sk->float_slots ? sk->num_float_slots : 0;
	}
	if (like && bind && bind->num_transform_track_to_bone_indices >= T && bind->num_transform_track_to_bone_indices)
		track_to_bone = bind->transform_track_to_bone_indices;
	else {
		identity = calloc((size_t)T + 1, sizeof(int16_t));
		if (!identity)
			goto done;
		for (uint32_t t = 0; t < T; t++)
			identity[t] = (int16_t)t;
		track_to_bone = identity;
	}
	slot_names = calloc((size_t)F + 1, sizeof(char *));
	ref_floats = calloc((size_t)F + 1, sizeof(float));
	if (!slot_names || !ref_floats)
		goto done;
	for (uint32_t i = 0; i < F; i++) {
		int32_t slot = like && bind && i < bind->num_float_track_to_float_slot_indices
		                   ? bind->float_track_to_float_slot_indices[i]
		                   : (int32_t)i;
		slot_names[i] = slot >= 0 && (uint32_t)slot < sk->num_float_slots && sk->float_slots ? sk->float_slots[slot]
		                                                                                   : NULL;
		ref_floats[i] = slot >= 0 && (uint32_t)slot < sk->num_reference_floats && sk->reference_floats
		                    ? sk->reference_floats[slot]
		                    : 0.0f;
		if (!slot_names[i])
			slot_names[i] = "";
	}
	hks_stored_animation *orig = NULL;
	if (hks_stored_read(oa, NULL, &orig, &err) != HKS_OK) {
		cli_print_error(&err);
		goto done;
	}
	float frame_duration = like ? orig->frame_duration : 1.0f / 30.0f;
	int32_t mfpb = orig->max_frames_per_block;
	hks_stored_free(orig);
	if (!like) {
		/* the donor's animation gets the skeleton's track layout (written by the tagfile writer);
		 * the float tracks are set once the glTF says which slots it carries */
		cli_apply_track_layout(file, ai, T, identity, 0, NULL);
	}

	/* the glTF */
	gltf = cli_read_file(in, &gltf_size);
	if (!gltf)
		goto done;
	hks_gltf_read_options ro;
	memset(&ro, 0, sizeof(ro));
	ro.base.name = in;
	ro.source_path = in; /* external .bin buffers resolve beside IN.gltf (docs/GLTF.md "Buffers") */
	ro.animation = -1;
	if (anim_sel) {
		char *end = NULL;
		long v = strtol(anim_sel, &end, 10);
		if (end && !*end && v >= 0 && v < INT32_MAX)
			ro.animation = (int32_t)v;
		else
			ro.animation_name = anim_sel;
	}
	ro.frame_duration = fps > 0 ? (float)(1.0 / fps) : frame_duration;
	ro.duration = fps > 0 || !like ? 0 : oa->duration;
	ro.track_to_bone = track_to_bone;
	ro.num_tracks = T;
	ro.float_slot_names = slot_names;
	ro.num_float_tracks = F;
	ro.reference_floats = ref_floats;
	if (hks_gltf_read(gltf, gltf_size, sk, &ro, &ga, &err) != HKS_OK) {
		cli_print_error(&err);
		rc = 1;
		goto done;
	}
	print_list("glTF node(s) match no skeleton bone (ignored)", ga->unmatched_nodes, NULL, sk, ga->num_unmatched_nodes);
	print_list("track bone(s) have no glTF node (reference pose used)", NULL, ga->missing_bones, sk,
	           ga->num_missing_bones);
	print_list("track bone(s) are not animated (node pose used)", NULL, ga->static_bones, sk, ga->num_static_bones);
	if (like)
		print_list("float slot(s) not in the glTF extras (reference value used)", ga->missing_float_slots, NULL, sk,
		           ga->num_missing_float_slots);
	else if (F) {
		/* keep the slots the extras carry (in slot order); the others are no tracks */
		uint32_t kept = 0;
		float_slots = calloc((size_t)F + 1, sizeof(int16_t));
		if (!float_slots)
			goto done;
		for (uint32_t i = 0; i < F; i++) {
			bool missing = false;
			for (uint32_t k = 0; k < ga->num_missing_float_slots; k++)
				missing |= ga->missing_float_slots[k] == slot_names[i];
			if (!missing)
				float_slots[kept++] = (int16_t)i;
		}
		for (uint32_t f = 0; f < ga->num_frames; f++)
			for (uint32_t k = 0; k < kept; k++)
				ga->floats[(size_t)f * kept + k] = ga->floats[(size_t)f * F + (uint32_t)float_slots[k]];
		F = kept;
		cli_apply_track_layout(file, ai, T, identity, F, float_slots);
	}

	/* encode with Havok's defaults (tolerance 0.001, degree 3, ThreeComp40, 16-bit) */
	hks_frames_in fin;
	memset(&fin, 0, sizeof(fin));
	fin.num_frames = ga->num_frames;
	fin.num_transform_tracks = T;
	fin.num_float_tracks = F;
	fin.duration = ga->duration;
	fin.transforms = T ? ga->transforms : NULL;
	fin.floats = F ? ga->floats : NULL;
	hks_encode_options eo;
	memset(&eo, 0, sizeof(eo));
	eo.base.name = in;
	eo.sdk = sdk ? sdk : file->sdk;
	eo.max_frames_per_block = mfpb >= 2 && mfpb <= 256 ? (uint32_t)mfpb : 0;
	eo.havok_unguarded = unguarded;
	if (hks_encode_spline(&fin, &eo, &packed, &err) != HKS_OK) {
		cli_print_error(&err);
		rc = 1;
		goto done;
	}
	if (hks_file_replace_spline(file, ai, packed->duration, &packed->header, &err) != HKS_OK) {
		cli_print_error(&err);
		rc = 1;
		goto done;
	}
	/* root motion back into the reference frame: one sample per frame (CONTAINERS.md §3.4) */
	const char *rm_note = "none";
	if (cli_set_root_motion(file, ai, ga->has_root_motion ? (const float(*)[4])ga->root_motion : NULL, ga->num_frames,
	                        packed->duration, container_name, "zero (the glTF root node is not animated)", &samples,
	                        &rm_note) != 0)
		goto done;
	if (sdk && strcmp(sdk, file->sdk) != 0)
		fprintf(stderr, "hkspline encode: warning: encoding for SDK %s into a file of SDK %s (its type table is kept)\n",
		        sdk, file->sdk);
	hks_write_options wo;
	memset(&wo, 0, sizeof(wo));
	wo.base.name = out_path;
	uint8_t *bytes = NULL;
	size_t size = 0;
	if (hks_file_write(file, &wo, &bytes, &size, &err) != HKS_OK) {
		cli_print_error(&err);
		rc = 1;
		goto done;
	}
	bool written = cli_write_file(out_path, bytes, size);
	if (written)
		printf("%s: glTF animation '%s' (%u in file): %u frames at %.6g s, %u + %u tracks, %u blocks, %u bytes of "
		       "spline data (SDK %s); root motion %s; wrote %s (%zu bytes)\n",
		       in, ga->name, ga->num_gltf_animations, ga->num_frames, (double)ga->frame_duration, T, F,
		       (unsigned)packed->header.num_blocks, packed->header.data_size, eo.sdk, rm_note, out_path, size);
	if (written && into)
		rc = cli_place_into_binder(into, name, bytes, size);
	else
		rc = written ? 0 : 2;
	hks_buffer_free(&wo.base, bytes, size);
done:
	free(samples);
	hks_packed_spline_free(packed);
	hks_gltf_animation_free(ga);
	free(gltf);
	free(identity);
	free(float_slots);
	free(slot_names);
	free(ref_floats);
	hks_loaded_free(ld);
	hks_loaded_free(skel);
	hks_loader_free(like_loader);
	hks_loader_free(skel_loader);
	free(comps);
	return rc;
}
