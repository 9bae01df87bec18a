/*
 * hkspline encode IN.json -o OUT.hkx [options]
 *
 * Encodes the frames of one animation of a decoded-frames JSON (the output of
 * `hkspline decode`, docs/DECODE.md; frame mode) with the Havok-faithful
 * encoder (hks_encode_spline, docs/ENCODE.md) and writes a Havok file.
 *
 * The container. Havok files are written by regenerating a parsed file (the
 * tagfile writer keeps its type table, CONTAINERS.md §4.1), so the encode goes
 * into an existing file, chosen in this order:
 *   1. --like ORIGINAL: the animation with the JSON's index is replaced;
 *   2. the JSON's own source.path (written by decode; may be BINDER:MEMBER),
 *      when it loads and its animation has the JSON's track counts: exactly
 *      as --like source.path;
 *   3. a donor tagfile from the binder or folder of --skeleton S, else from
 *      --into BINDER (cli_donor.c): its animation gets the JSON's track
 *      layout (bone names looked up in the skeleton) and no root motion;
 *   4. otherwise an error naming the three ways.
 * When replacing (1, 2), track order, per-track quantizations (mask byte 0 of
 * the original's first block), maxFramesPerBlock and the SDK (guard rule, CPU
 * model) come from the original unless given on the command line; a donor
 * gives only maxFramesPerBlock and its SDK (Havok's defaults otherwise).
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cli_donor.h"
#include "cmd_gltf.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: hkspline encode IN.json -o OUT.hkx [--like ORIGINAL | --skeleton S | --into BINDER --name NAME] [options]\n"
	        "       hkspline encode IN.glb|IN.gltf ... [--fps F] [--untouched-tolerance U] (glTF import: hkspline encode\n"
	        "                               IN.glb --help, docs/GLTF.md)\n"
	        "  IN.json                 decoded frames (hkspline decode, frame mode)\n"
	        "  --like ORIGINAL         the Havok file (or BINDER:MEMBER) whose animation is replaced;\n"
	        "                          default: the JSON's source.path when it loads and fits, else a donor\n"
	        "  --skeleton S            skeleton file, BINDER:MEMBER, or a binder / folder holding one: the JSON's\n"
	        "                          bone names are looked up in it and a donor tagfile is taken from its\n"
	        "                          binder or folder (used when there is no --like and the source does not fit)\n"
	        "  --into BINDER --name NAME  also place OUT into the binder (replace or add NAME); without --like\n"
	        "                          and --skeleton the donor and the skeleton come from BINDER\n"
	        "  --no-backup             with --into: do not keep the old binder as BINDER.bak\n"
	        "  --animation N           which animation of IN.json (its \"index\"); default: the first\n"
	        "  --compendium P          compendium file / binder / folder for ORIGINAL (repeatable)\n"
	        "  --game sekiro|eldenring SDK 20160200 (Intel model, no guard) / 20180100 (Zen model, guard)\n"
	        "  --tolerance T           all four tolerances (default 0.001)\n"
	        "  --rotation-tolerance T, --translation-tolerance T, --scale-tolerance T, --float-tolerance T\n"
	        "  --degree 1|2|3          spline degree of every part (default 3)\n"
	        "  --rotation-quantization 40|48|24|16|32|uncompressed   every track (default: ORIGINAL's, else 40)\n"
	        "  --max-frames-per-block N  2..256 (default: ORIGINAL's, else 256)\n"
	        "  --cpu auto|intel|amd-zen|native|exact   reciprocal model (default auto: by SDK)\n"
	        "  --solver havok|quality  least-squares refits: Havok's f32 CG or double precision\n"
	        "  --continuity            make rotations sign-continuous before fitting\n"
	        "  --no-guard              Havok's fit as is, without the tolerance guard (docs/ENCODE.md)\n"
	        "  --record R              a record file of ORIGINAL (hkspline recompress --record): parts whose\n"
	        "                          frames are unchanged get their original bytes, the others are fitted\n"
	        "                          afresh by the re-compressor's predictor (docs/RECORD.md)\n"
	        "error control (docs/ENCODE.md \"Error control\"; need a skeleton: --skeleton, else the one beside ORIGINAL):\n"
	        "  --object-tolerance D    bound every bone's object-space error (virtual vertices at the shell) by D metres\n"
	        "  --shell S               shell distance in metres (default 0.03); --shell-override GLOB=S (repeatable)\n"
	        "  --bone-tolerance GLOB=T tolerance T for the bones matching GLOB; GLOB:rotation=T, :translation=, :scale=\n"
	        "                          (or t,r,s lists) for some parts only; repeatable, later options win\n"
	        "  --optimize havok|size   size: the Havok mode's bound with fewer bytes (default havok)\n"
	        "  --report                print the per-bone tolerances and quantizations chosen\n");
}

/* ---- the decoded-frames JSON (docs/DECODE.md): hks_frames_json_read ---- */

typedef struct json_frames {
	hks_frames_in in;
	int32_t index;
	char *source_path;  /* source.path (the file decode read), NULL when absent */
	const char *source_sdk;   /* source.sdk, NULL when absent */
	const char *const *bone_names;  /* per transform track: "bone" (NULL when null or absent) */
	size_t num_bone_names;
	hks_frames_doc *doc; /* owns the frames and names */
} json_frames;

static void json_frames_free(json_frames *jf)
{
	free(jf->source_path);
	hks_frames_doc_free(jf->doc);
	memset(jf, 0, sizeof(*jf));
}

/* A relative source.path names the file as seen from where `decode` ran. When
 * it does not exist from here but does beside the JSON (decode and the JSON in
 * one folder, run from elsewhere), use that. Only the file part before a
 * BINDER:MEMBER colon is checked. Returns a new string or NULL (keep as is). */
static char *source_beside_json(const char *json_path, const char *source)
{
	const char *slash = strrchr(json_path, '/');
	if (!slash || source[0] == '/')
		return NULL;
	size_t file_len = strcspn(source, ":");
	char *file = hks_platform_strndup(source, file_len);
	if (!file)
		return NULL;
	int here = hks_platform_path_kind(file) != HKS_PATH_NONE;
	free(file);
	if (here)
		return NULL;
	size_t dir_len = (size_t)(slash - json_path) + 1, n = dir_len + strlen(source) + 1;
	char *joined = (char *)malloc(n);
	if (!joined)
		return NULL;
	snprintf(joined, n, "%.*s%s", (int)dir_len, json_path, source);
	char *jfile = hks_platform_strndup(joined, dir_len + file_len);
	int there = jfile && hks_platform_path_kind(jfile) != HKS_PATH_NONE;
	free(jfile);
	if (!there) {
		free(joined);
		return NULL;
	}
	return joined;
}

static bool load_json(const char *path, long want_index, json_frames *out)
{
	memset(out, 0, sizeof(*out));
	size_t size = 0;
	uint8_t *bytes = cli_read_file(path, &size);
	if (!bytes)
		return false;
	hks_options ro;
	memset(&ro, 0, sizeof(ro));
	ro.name = path;
	hks_error err;
	hks_result r = hks_frames_json_read(bytes, size, &ro, &out->doc, &err);
	free(bytes);
	if (r != HKS_OK) {
		cli_print_error(&err);
		return false;
	}
	const hks_frames_doc *doc = out->doc;
	if (doc->mode && strcmp(doc->mode, "frame") != 0) {
		fprintf(stderr, "hkspline encode: %s was decoded in %s mode; encode needs every stored frame (decode without "
		                "--time-step)\n",
		        path, doc->mode);
		return false;
	}
	if (doc->source_path) {
		out->source_path = strdup(doc->source_path);
		char *beside = out->source_path ? source_beside_json(path, out->source_path) : NULL;
		if (beside) {
			free(out->source_path);
			out->source_path = beside;
		}
	}
	out->source_sdk = doc->source_sdk;
	if (!doc->num_animations) {
		fprintf(stderr, "hkspline encode: %s: no \"animations\"\n", path);
		return false;
	}
	const hks_decoded *anim = hks_frames_doc_find(doc, want_index);
	if (!anim) {
		fprintf(stderr, "hkspline encode: %s: no animation with index %ld\n", path, want_index);
		return false;
	}
	if (anim->num_frames < 2) {
		fprintf(stderr, "hkspline encode: %s: the animation needs \"frames\" (2 .. %u), \"duration\" and \"tracks\"\n", path,
		        HKS_DEFAULT_MAX_FRAMES);
		return false;
	}
	out->index = (int32_t)anim->index;
	out->in = anim->frames;
	out->bone_names = (const char *const *)anim->bone_names;
	out->num_bone_names = anim->num_transform_tracks;
	return true;
}

/* ---- options ---- */

/* ---- the container (the order of the file comment) ---- */

typedef struct container {
	hks_loader *loader;
	hks_loaded *ld;
	uint32_t anim;               /* the animation replaced */
	bool donor;                  /* a donor: its animation got the JSON's track layout */
	const char *donor_from;      /* the --skeleton or --into path the donor was found under */
	hks_loader *skel_loader;
	hks_loaded *skel;
	size_t unit;                 /* the container's unit in loader */
	int16_t *track_to_bone;      /* donor layout (the binding points here until the file is written) */
	int16_t *float_to_slot;
} container;

static void container_free(container *c)
{
	hks_loaded_free(c->ld);
	hks_loader_free(c->loader);
	hks_loaded_free(c->skel);
	hks_loader_free(c->skel_loader);
	free(c->track_to_bone);
	free(c->float_to_slot);
	memset(c, 0, sizeof(*c));
}

/* `path` (a file or BINDER:MEMBER) as the file whose animation jf->index is
 * replaced: 0 when it loads and that spline animation has the JSON's track
 * counts, else nonzero after printing why. */
static int open_original(const hks_load_options *lo, const char *path, const json_frames *jf, container *c)
{
	hks_error err;
	size_t unit = 0;
	if (hks_loader_create(lo, &c->loader, &err) != HKS_OK) {
		cli_print_error(&err);
		return 2;
	}
	int rc = cli_open_unit(c->loader, path, "encode", &unit);
	if (rc != 0)
		return rc;
	c->unit = unit;
	hks_result r = hks_loader_load(c->loader, unit, &c->ld);
	if (r != HKS_OK || !c->ld) {
		fprintf(stderr, "hkspline encode: %s: %s\n", path, hks_result_name(r));
		return cli_input_status(r);
	}
	if (c->ld->status != HKS_OK) {
		cli_print_error(&c->ld->error);
		return cli_input_status(c->ld->status); /* a damaged file, a compendium not found: 1 */
	}
	const hks_file *file = c->ld->file;
	uint32_t ai = (uint32_t)jf->index;
	if (ai >= file->num_animations || file->animations[ai].kind != HKS_ANIMATION_SPLINE) {
		fprintf(stderr, "hkspline encode: %s has no spline animation %u to replace\n", path, ai);
		return 1; /* the input does not fit: a failed input */
	}
	const hks_animation *oa = &file->animations[ai];
	if ((uint32_t)oa->number_of_transform_tracks != jf->in.num_transform_tracks ||
	    (uint32_t)oa->number_of_float_tracks != jf->in.num_float_tracks) {
		fprintf(stderr, "hkspline encode: %s animation %u has %d transform and %d float tracks; the JSON has %u and %u\n",
		        path, ai, (int)oa->number_of_transform_tracks, (int)oa->number_of_float_tracks,
		        jf->in.num_transform_tracks, jf->in.num_float_tracks);
		return 1; /* the input does not fit: a failed input */
	}
	c->anim = ai;
	return 0;
}

/* A tagfile SDK string ("20160200"): the only containers a donor can be. */
static bool is_tagfile_sdk(const char *sdk)
{
	if (!sdk || strlen(sdk) != 8)
		return false;
	for (int i = 0; i < 8; i++)
		if (!isdigit((unsigned char)sdk[i]))
			return false;
	return true;
}

/*
 * A donor from the binder or folder of --skeleton, else of --into, with the
 * JSON's track layout: track t is bound to the skeleton bone named by its
 * "bone" (a null name keeps the identity, CONTAINERS.md §3.5), float track i to
 * float slot i (the JSON carries no slot names). The donor's SDK: --game, else
 * the JSON's source.sdk when it names a tagfile SDK; never the output file `out`
 * (hks_donor_find: a re-run does not take its own earlier output). Returns 0, DONOR_NONE when neither
 * --skeleton nor --into is given (nothing printed), else the exit status after printing why (1 for a
 * skeleton that cannot be read, docs/CLI.md "Exit statuses"; 2 otherwise).
 */
#define DONOR_NONE (-1)
static int open_donor(const hks_load_options *lo, const json_frames *jf, const char *skeleton, const char *into,
                      const char *sdk, container *c, const char *out)
{
	if (!skeleton && !into)
		return DONOR_NONE;
	uint32_t T = jf->in.num_transform_tracks, F = jf->in.num_float_tracks;
	bool named = false;
	for (uint32_t t = 0; t < T; t++)
		named |= jf->bone_names[t] != NULL;
	const char *skel_path = skeleton ? skeleton : into;
	if (named || skeleton) {
		int ls = cli_load_skeleton(lo, skel_path, &c->skel_loader, &c->skel, "encode");
		if (ls != 0)
			return ls;
	}
	const char *want_sdk = sdk ? sdk : is_tagfile_sdk(jf->source_sdk) ? jf->source_sdk : NULL;
	const char *where[2] = {skeleton, into};
	int found = 1;
	for (int k = 0; k < 2 && found == 1; k++)
		if (where[k]) {
			found = cli_find_donor_for(lo, where[k], want_sdk,
			                           c->skel ? cli_pick_skeleton(c->skel->file, NULL, NULL)->name : NULL, out,
			                           &c->loader, &c->ld, &c->anim);
			c->donor_from = where[k];
		}
	if (found == 1)
		fprintf(stderr, "hkspline encode: no donor tagfile%s%s with a spline animation and a binding under %s%s%s\n",
		        want_sdk ? " of SDK " : "", want_sdk ? want_sdk : "", skeleton ? skeleton : into,
		        skeleton && into ? " or " : "", skeleton && into ? into : "");
	if (found != 0)
		return 2;
	hks_file *file = c->ld->file;
	const hks_skeleton *sk = c->skel ? cli_pick_skeleton(c->skel->file, NULL, cli_binding_for(file, c->anim)) : NULL;
	c->track_to_bone = calloc((size_t)T + 1, sizeof(int16_t));
	c->float_to_slot = calloc((size_t)F + 1, sizeof(int16_t));
	if (!c->track_to_bone || !c->float_to_slot) {
		fprintf(stderr, "hkspline encode: out of memory\n");
		return 2;
	}
	for (uint32_t t = 0; t < T; t++) {
		const char *name = jf->bone_names[t];
		int64_t bone = -1;
		if (name && sk) {
			for (uint32_t b = 0; b < sk->num_bones && bone < 0; b++)
				if (sk->bone_names && sk->bone_names[b] && !strcmp(sk->bone_names[b], name))
					bone = b;
		} else if (!name && (!sk || t < sk->num_bones))
			bone = t;
		if (bone < 0 || bone > INT16_MAX) {
			if (name)
				fprintf(stderr, "hkspline encode: track %u: bone '%s' is not in the skeleton of %s\n", t, name,
				        skel_path);
			else
				fprintf(stderr, "hkspline encode: track %u has no bone name and the skeleton of %s has %u bones\n", t,
				        skel_path, sk ? sk->num_bones : 0);
			return 2;
		}
		c->track_to_bone[t] = (int16_t)bone;
	}
	for (uint32_t i = 0; i < F; i++)
		c->float_to_slot[i] = (int16_t)i;
	if (sk && F > sk->num_float_slots)
		fprintf(stderr, "hkspline encode: warning: %u float tracks, the skeleton has %u float slots\n", F,
		        sk->num_float_slots);
	cli_apply_track_layout(file, c->anim, T, c->track_to_bone, F, c->float_to_slot);
	c->donor = true;
	return 0;
}

int cmd_encode(int argc, char **argv)
{
	/* IN.glb / IN.gltf: the glTF import (cmd_gltf.c, docs/GLTF.md) */
	for (int i = 1; i < argc; i++)
		if (cli_is_gltf_path(argv[i]) && strcmp(argv[i - 1], "-o") != 0)
			return cli_encode_gltf(argc, argv);
	const char *in = NULL;
	long want_index = -1;
	int status = 2;
	cli_encode_args opt; /* the options shared with the glTF input (cli_encode_args.c) */
	bool args_ok = cli_encode_args_init(&opt, argc);
	json_frames jf;
	memset(&jf, 0, sizeof(jf));
	container c;
	memset(&c, 0, sizeof(c));
	float(*root_samples)[4] = NULL;
	hks_stored_animation *orig = NULL;
	hks_track_params *pal = NULL, *fpal = NULL;
	hks_packed_spline *packed = NULL;
	hks_loader *ctl_loader = NULL;
	hks_loaded *ctl_skel = NULL;
	if (!args_ok) {
		fprintf(stderr, "hkspline encode: out of memory\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has = i + 1 < argc;
		int shared = cli_encode_args_parse(&opt, argc, argv, &i);
		if (shared < 0)
			goto done;
		if (shared > 0)
			continue;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			status = 0;
			goto done;
		} else if (!strcmp(a, "--animation") && has) {
			char *end = NULL;
			want_index = strtol(argv[++i], &end, 10);
			if (!end || *end || want_index < 0) {
				fprintf(stderr, "hkspline encode: --animation wants an index >= 0\n");
				goto done;
			}
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "hkspline encode: unknown or incomplete option '%s'\n", a);
			usage(stderr);
			goto done;
		} else if (!in) {
			in = a;
		} else {
			fprintf(stderr, "hkspline encode: one input only ('%s' and '%s')\n", in, a);
			goto done;
		}
	}
	if (!cli_encode_args_complete(&opt, in)) {
		usage(stderr);
		goto done;
	}
	if (cli_encode_args_clash(&opt, in))
		goto done;
	if (opt.control.use && opt.record_path) {
		fprintf(stderr, "hkspline encode: --record restores the original's bytes; it does not combine with "
		                "--object-tolerance, --bone-tolerance or --optimize size\n");
		goto done;
	}
	/* --into's checks first: a refused --into writes nothing, not even -o (session 18 new-user trial) */
	if (opt.into && (status = cli_into_precheck(opt.into, opt.name)) != 0)
		goto done;
	if (cli_encode_args_record_missing(&opt)) {
		status = 1;
		goto done;
	}
	status = 2;
	if (!load_json(in, want_index, &jf)) {
		status = 1; /* the input could not be read or holds no such animation */
		goto done;
	}

	/* the container: --like, else the JSON's source, else a donor (file comment) */
	hks_error err;
	hks_load_options lo;
	memset(&lo, 0, sizeof(lo));
	lo.compendium_paths = opt.compendiums;
	lo.num_compendium_paths = opt.num_compendiums;
	if (opt.like) {
		int r = open_original(&lo, opt.like, &jf, &c);
		if (r != 0) {
			status = r;
			goto done;
		}
	} else {
		int from_source = 1;
		if (jf.source_path) {
			from_source = open_original(&lo, jf.source_path, &jf, &c);
			if (from_source == 0)
				fprintf(stderr, "hkspline encode: container: %s (the JSON's source.path)\n", c.ld->path);
			else {
				container_free(&c);
				if (opt.skeleton || opt.into)
					fprintf(stderr, "hkspline encode: the JSON's source.path %s does not fit; looking for a donor\n",
					        jf.source_path);
			}
		}
		if (from_source != 0) {
			int from_donor = open_donor(&lo, &jf, opt.skeleton, opt.into, opt.sdk, &c, opt.out);
			if (from_donor == DONOR_NONE)
				fprintf(stderr,
				        "hkspline encode: no container to write into%s%s%s; give one of\n"
				        "  --like ORIGINAL             the Havok file (or BINDER:MEMBER) whose animation is replaced\n"
				        "  --skeleton S                a donor tagfile from the skeleton's binder or folder\n"
				        "  --into BINDER --name NAME   a donor tagfile from the binder, the output placed into it\n",
				        jf.source_path ? " (the JSON's source.path " : " (the JSON names no source.path)",
				        jf.source_path ? jf.source_path : "", jf.source_path ? " does not fit)" : "");
			if (from_donor != 0) {
				status = from_donor == DONOR_NONE ? 2 : from_donor;
				goto done;
			}
			fprintf(stderr, "hkspline encode: container: donor %s (SDK %s, found under %s)\n", c.ld->path,
			        c.ld->file->sdk, c.donor_from);
			if (cli_output_over_loaded(opt.out, c.skel, "encode", "the skeleton read")) {
				status = 2;
				goto done;
			}
		}
	}
	hks_file *file = c.ld->file;
	uint32_t ai = c.anim;
	const hks_animation *oa = &file->animations[ai];
	const char *container_name = c.ld->path;
	if (!c.donor && hks_stored_read(oa, NULL, &orig, &err) != HKS_OK) {
		cli_print_error(&err);
		status = 1; /* the original's animation cannot be walked: a failed input */
		goto done;
	}

	/* parameters: command line > original > Havok's defaults */
	uint32_t T = jf.in.num_transform_tracks, F = jf.in.num_float_tracks;
	pal = calloc((size_t)T + 1, sizeof(hks_track_params));
	fpal = calloc((size_t)F + 1, sizeof(hks_track_params));
	if (!pal || !fpal) {
		fprintf(stderr, "hkspline encode: out of memory\n");
		goto done;
	}
	/* the original's per-track quantizations (a donor's are not the JSON's tracks), then --rotation-quantization */
	hks_track_params_like(c.donor ? NULL : orig, opt.have_rotq ? HKS_ENC_ROT_QUANT(opt.rotq) : 0, pal, T, fpal, F);
	hks_encode_options o;
	memset(&o, 0, sizeof(o));
	o.base.name = in;
	o.defaults.translation_tolerance = opt.tol[0];
	o.defaults.rotation_tolerance = opt.tol[1];
	o.defaults.scale_tolerance = opt.tol[2];
	o.defaults.float_tolerance = opt.tol[3];
	o.defaults.translation_degree = o.defaults.rotation_degree = o.defaults.scale_degree = o.defaults.float_degree =
	    (uint8_t)opt.degree;
	o.per_track = pal;
	o.num_per_track = T;
	o.per_float_track = fpal;
	o.num_per_float_track = F;
	/* a donor's header still holds its own maxFramesPerBlock (the game's setting) */
	int32_t orig_mfpb = c.donor ? oa->spline.max_frames_per_block : orig->max_frames_per_block;
	o.max_frames_per_block = opt.max_frames_per_block ? (uint32_t)opt.max_frames_per_block
	                         : orig_mfpb >= 2 && orig_mfpb <= 256 ? (uint32_t)orig_mfpb
	                                                               : 0;
	o.cpu = opt.cpu;
	o.sdk = opt.sdk ? opt.sdk : file->sdk;
	o.solver = opt.solver;
	o.rotation_continuity = opt.continuity;
	o.havok_unguarded = opt.unguarded;
	hks_encode_stats st;
	memset(&st, 0, sizeof(st));
	o.stats = &st;
	if (opt.control.use) {
		/* the skeleton: the donor's, else --skeleton, else one in the container's file, else beside it */
		const hks_binding *bind = cli_binding_for(file, ai);
		const hks_skeleton *ctl_sk = NULL;
		if (c.skel)
			ctl_sk = cli_pick_skeleton(c.skel->file, NULL, bind);
		else if (opt.skeleton) {
			if ((status = cli_load_skeleton(&lo, opt.skeleton, &ctl_loader, &ctl_skel, "encode")) != 0)
				goto done;
			status = 2;
			ctl_sk = cli_pick_skeleton(ctl_skel->file, NULL, bind);
		} else if (!(ctl_sk = cli_pick_skeleton(file, NULL, bind)) &&
		           hks_loader_find_skeleton(c.loader, c.unit, &ctl_skel) == HKS_OK && ctl_skel &&
		           ctl_skel->status == HKS_OK)
			ctl_sk = cli_pick_skeleton(ctl_skel->file, NULL, bind);
		if (cli_output_over_loaded(opt.out, ctl_skel, "encode", "the skeleton read")) {
			status = 2;
			goto done;
		}
		if (!cli_error_control_attach(&opt.control, &o, ctl_sk, bind ? bind->transform_track_to_bone_indices : NULL,
		                              bind ? bind->num_transform_track_to_bone_indices : 0, container_name))
			goto done;
	}
	if (cli_encode_frames(&opt, &jf.in, &o, (uint32_t)jf.index, &packed) != 0) {
		status = 1;
		goto done;
	}
	/* the stored structure of the original points into its data: release it before replacing */
	hks_stored_free(orig);
	orig = NULL;
	if (hks_file_replace_spline(file, ai, packed->duration, &packed->header, &err) != HKS_OK) {
		cli_print_error(&err);
		status = 1;
		goto done;
	}
	/* a donor's reference frame gets one zero sample per frame: the JSON carries no root motion */
	const char *root_note = NULL;
	if (c.donor && cli_set_root_motion(file, ai, NULL, jf.in.num_frames, packed->duration, container_name,
	                                   "zero (the JSON carries no root motion)", &root_samples, &root_note) != 0)
		goto done;
	uint8_t *bytes = NULL;
	size_t size = 0;
	status = cli_encode_write_file(&opt, file, &bytes, &size);
	if (status != 0)
		goto done;
	uint64_t parts = st.parts[0] + st.parts[1] + st.parts[2] + st.parts[3];
	uint64_t splines = st.spline_parts[0] + st.spline_parts[1] + st.spline_parts[2] + st.spline_parts[3];
	uint64_t degree1 = st.degree1_parts;
	uint64_t points = st.control_points[0] + st.control_points[1] + st.control_points[2] + st.control_points[3];
	if (opt.record_path) {
		/* a record restores parts without the encoder (no hks_encode_stats): count what was written
		 * (it said "0 parts" for a fully restored clip) */
		hks_stored_animation *written = NULL;
		if (hks_stored_read(&file->animations[ai], NULL, &written, &err) == HKS_OK) {
			hks_spline_stats ws;
			hks_spline_stats_compute(written, &ws);
			parts = splines = degree1 = points = 0;
			for (int k = 0; k < 4; k++) {
				parts += ws.spline_parts[k] + ws.static_parts[k] + ws.absent_parts[k];
				splines += ws.spline_parts[k];
				degree1 += ws.degrees[k][1];
				points += ws.control_point_count[k];
			}
			hks_stored_free(written);
		}
	}
	printf("%s: animation %u: %u frames, %u + %u tracks, %u blocks; %llu parts, %llu splines (%llu at degree 1), "
	       "%llu control points; %u bytes of spline data (SDK %s, cpu %s); wrote %s (%zu bytes)\n",
	       in, ai, jf.in.num_frames, T, F, (unsigned)packed->header.num_blocks, (unsigned long long)parts,
	       (unsigned long long)splines, (unsigned long long)degree1, (unsigned long long)points,
	       packed->header.data_size, o.sdk, hks_cpu_model_name(opt.cpu), opt.out, size);
	if (c.donor)
		printf("%s: donor %s: track layout rebuilt (%u + %u tracks), root motion %s\n", opt.out, container_name, T, F,
		       root_note);
	cli_print_encode_summary(stdout, opt.out, &jf.in, packed);
	bool bound_missed = !cli_error_control_print(&opt.control, opt.out);
	fflush(stdout);
	status = opt.into ? cli_place_into_binder(opt.into, opt.name, bytes, size) : 0;
	if (status == 0 && bound_missed)
		status = 1;
	hks_buffer_free(NULL, bytes, size);
done:
	cli_encode_args_free(&opt);
	hks_loaded_free(ctl_skel);
	hks_loader_free(ctl_loader);
	hks_packed_spline_free(packed);
	hks_stored_free(orig);
	free(pal);
	free(fpal);
	free(root_samples);
	json_frames_free(&jf);
	container_free(&c);
	return status;
}
