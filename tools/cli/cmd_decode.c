/*
 * hkspline decode [--compendium P]... [--skeleton S] [--hex] [--time-step T] IN -o OUT.json|OUT.csv
 *
 * Decodes every animation of one Havok file to frames: spline animations
 * through the walk and the sampler (frame mode by default, time mode with
 * --time-step), interleaved (uncompressed) animations as stored. Output
 * formats are documented in docs/DECODE.md. Values are raw (quaternions not
 * normalized, NaN kept).
 */
#define _POSIX_C_SOURCE 200809L
#include "cli_donor.h"
#include "cmd_gltf.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "platform.h"

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: hkspline decode [--compendium P]... [--skeleton S] [--hex] [--time-step T] IN -o OUT.json|OUT.csv\n"
	        "       hkspline decode [--compendium P]... [--skeleton S] IN -o OUT.glb|OUT.gltf   (docs/GLTF.md)\n"
	        "  IN          a Havok file, or BINDER:MEMBER for one file inside a binder / DCX\n"
	        "  -o OUT      .json, .csv, .glb or .gltf by extension ('-' writes JSON to stdout)\n"
	        "  --hex       every float as its 8-hex-digit bit pattern\n"
	        "  --time-step T  sample in time mode at t = 0, T, 2T, ... <= duration (seconds)\n"
	        "  --skeleton S   skeleton file for bone names (default: the file's own, its binder's or folder's)\n");
}

/* One decoded animation: rows × (T·10) transforms and rows × F floats. */
typedef struct decoded_anim {
	uint32_t index;
	uint32_t rows, T, F;
	float duration, frame_duration;
	float *transforms, *floats;
	float *times;            /* time mode: the sample times; else NULL */
	const char **bone_names; /* T entries, NULL allowed */
} decoded_anim;

typedef struct decode_opts {
	bool hex;
	double time_step;        /* 0: frame mode */
} decode_opts;

/* ---- bone names (FORMAT.md §4.8, CONTAINERS.md §3.5) ---- */

static void fill_bone_names(decoded_anim *d, const hks_file *own, const hks_file *ext)
{
	const hks_binding *bind = cli_binding_for(own, d->index);
	const hks_skeleton *sk = cli_pick_skeleton(own, ext, bind);
	for (uint32_t t = 0; t < d->T; t++) {
		int32_t bone = (int32_t)t; /* identity mapping when the binding has no array */
		if (bind && bind->num_transform_track_to_bone_indices)
			bone = t < bind->num_transform_track_to_bone_indices ? bind->transform_track_to_bone_indices[t] : -1;
		d->bone_names[t] = (sk && bone >= 0 && (uint32_t)bone < sk->num_bones) ? sk->bone_names[bone] : NULL;
	}
}

/* ---- decoding ---- */

static int decode_spline(const char *path, const hks_animation *an, uint32_t index, const decode_opts *o,
                         decoded_anim *d)
{
	hks_walk_options wo = {0};
	wo.animation_index = (int32_t)index;
	wo.base.name = path; /* messages name the file */
	hks_stored_animation *s = NULL;
	hks_error err;
	if (hks_stored_read(an, &wo, &s, &err) != HKS_OK) {
		cli_print_error(&err);
		return 1;
	}
	d->T = (uint32_t)s->num_transform_tracks;
	d->F = (uint32_t)s->num_float_tracks;
	/* Straight16's constants are provisional (FORMAT.md §3.8 [U]): say so
	 * when the data use it (no game file does). */
	uint64_t unverified = 0;
	for (uint32_t b = 0; b < s->num_blocks; b++)
		for (uint32_t t = 0; t < d->T; t++) {
			const hks_stored_part *r = &s->blocks[b].tracks[t].part[1];
			if (r->flags && !hks_selector_verified(r->quantization))
				unverified++;
		}
	if (unverified)
		fprintf(stderr,
		        "hkspline decode: warning: animation %u stores %llu rotations with selector %s whose decoding "
		        "is not verified (FORMAT.md §3.8)\n",
		        index, (unsigned long long)unverified, "Straight16");
	d->duration = s->duration;
	d->frame_duration = s->frame_duration;
	if (o->time_step > 0) {
		/* time mode: at most hks_limits' max_frames samples (issue 17 M4) */
		double n = floor((double)s->duration / o->time_step) + 1;
		if (!(n >= 1) || n > (double)HKS_DEFAULT_MAX_FRAMES) {
			fprintf(stderr,
			        "hkspline decode: animation %u: --time-step %g over a duration of %g s gives %g samples, "
			        "over the limit of %u (max_frames)\n",
			        index, o->time_step, (double)s->duration, n, HKS_DEFAULT_MAX_FRAMES);
			hks_stored_free(s);
			return 2;
		}
		d->rows = (uint32_t)n;
	} else
		d->rows = (uint32_t)s->num_frames;
	/* the decoded samples held for the output: within max_output_bytes, checked before allocating */
	uint64_t row_floats = (uint64_t)d->T * HKS_TRACK_SAMPLE_FLOATS + d->F + 1;
	if ((uint64_t)d->rows * row_floats * sizeof(float) > HKS_DEFAULT_MAX_OUTPUT_BYTES) {
		fprintf(stderr,
		        "hkspline decode: animation %u: %u samples of %u + %u tracks need %llu bytes, over the limit of "
		        "%llu (max_output_bytes)\n",
		        index, d->rows, d->T, d->F, (unsigned long long)((uint64_t)d->rows * row_floats * sizeof(float)),
		        (unsigned long long)HKS_DEFAULT_MAX_OUTPUT_BYTES);
		hks_stored_free(s);
		return 2;
	}
	d->transforms = malloc(((size_t)d->rows * d->T * HKS_TRACK_SAMPLE_FLOATS + 1) * sizeof(float));
	d->floats = malloc(((size_t)d->rows * d->F + 1) * sizeof(float));
	if (!d->transforms || !d->floats) {
		fprintf(stderr, "hkspline decode: out of memory\n");
		hks_stored_free(s);
		return 2;
	}
	hks_result r = HKS_OK;
	if (o->time_step > 0) {
		d->times = malloc(d->rows * sizeof(float));
		if (!d->times) {
			hks_stored_free(s);
			return 2;
		}
		for (uint32_t i = 0; i < d->rows && r == HKS_OK; i++) {
			float t = (float)((double)i * o->time_step);
			if (t > s->duration)
				t = s->duration;
			d->times[i] = t;
			r = hks_sample_time(s, t, NULL, d->transforms + (size_t)i * d->T * HKS_TRACK_SAMPLE_FLOATS,
			                    d->floats + (size_t)i * d->F, &err);
		}
	} else
		r = hks_sample_frames(s, NULL, 0, d->rows, d->transforms, d->floats, &err);
	hks_stored_free(s);
	if (r != HKS_OK) {
		cli_print_error(&err);
		return 1;
	}
	return 0;
}

/* Interleaved (uncompressed) animations: frames × tracks as stored. */
static int decode_interleaved(const hks_animation *an, decoded_anim *d)
{
	d->T = an->number_of_transform_tracks > 0 ? (uint32_t)an->number_of_transform_tracks : 0;
	d->F = an->number_of_float_tracks > 0 ? (uint32_t)an->number_of_float_tracks : 0;
	d->rows = d->T ? an->num_transforms / d->T : (d->F ? an->num_floats / d->F : 0);
	d->duration = an->duration;
	d->frame_duration = d->rows > 1 ? an->duration / (float)(d->rows - 1) : 0.0f;
	d->transforms = malloc(((size_t)d->rows * d->T * HKS_TRACK_SAMPLE_FLOATS + 1) * sizeof(float));
	d->floats = malloc(((size_t)d->rows * d->F + 1) * sizeof(float));
	if (!d->transforms || !d->floats)
		return 2;
	for (size_t i = 0; i < (size_t)d->rows * d->T; i++) {
		const hks_qs_transform *q = &an->transforms[i];
		float *o = d->transforms + i * HKS_TRACK_SAMPLE_FLOATS;
		memcpy(o, q->translation, 3 * sizeof(float));
		memcpy(o + 3, q->rotation, 4 * sizeof(float));
		memcpy(o + 7, q->scale, 3 * sizeof(float));
	}
	for (size_t i = 0; i < (size_t)d->rows * d->F && i < an->num_floats; i++)
		d->floats[i] = an->floats[i];
	return 0;
}

/* ---- output ---- */

/* The decoded-frames JSON (hks_frames_json_write, docs/DECODE.md). */
static int write_json(FILE *out, const hks_loaded *src, const char *skeleton_path, const decoded_anim *ds,
                      size_t n, const decode_opts *o)
{
	hks_frames_doc doc;
	memset(&doc, 0, sizeof(doc));
	doc.source_path = src->path;
	doc.source_container = hks_container_name(src->file->container);
	doc.source_sdk = src->file->sdk;
	doc.source_skeleton = skeleton_path;
	doc.time_step = o->time_step;
	doc.hex = o->hex;
	doc.animations = calloc(n + 1, sizeof(hks_decoded));
	if (!doc.animations)
		return 2;
	doc.num_animations = (uint32_t)n;
	for (size_t a = 0; a < n; a++) {
		hks_decoded *d = &doc.animations[a];
		d->index = ds[a].index;
		d->num_frames = ds[a].rows;
		d->num_transform_tracks = ds[a].T;
		d->num_float_tracks = ds[a].F;
		d->duration = ds[a].duration;
		d->frame_duration = ds[a].frame_duration;
		d->transforms = ds[a].transforms;
		d->floats = ds[a].floats;
		d->times = ds[a].times;
		d->bone_names = ds[a].bone_names;
	}
	uint8_t *bytes = NULL;
	size_t size = 0;
	hks_error err;
	hks_options wo;
	memset(&wo, 0, sizeof(wo));
	wo.name = src->path; /* errors name the file */
	hks_result r = hks_frames_json_write(&doc, &wo, &bytes, &size, &err);
	free(doc.animations);
	if (r != HKS_OK) {
		cli_print_error(&err);
		return 2;
	}
	fwrite(bytes, 1, size, out);
	hks_buffer_free(NULL, bytes, size);
	return 0;
}

static void csv_f32(FILE *out, const decode_opts *o, float v)
{
	if (o->hex) {
		uint32_t u;
		memcpy(&u, &v, 4);
		fprintf(out, ",%08x", u);
	} else if (isnan(v))
		fputs(",nan", out);
	else if (isinf(v))
		fputs(v > 0 ? ",inf" : ",-inf", out);
	else
		fprintf(out, ",%.9g", (double)v);
}

/* A bone name column: empty when the track has no bone name. */
static void csv_name(FILE *out, const char *s)
{
	fputc(',', out);
	if (s)
		cli_csv_quoted(out, s);
}

static void write_csv(FILE *out, const decoded_anim *ds, size_t n, const decode_opts *o)
{
	fputs("animation,kind,track,bone,frame,time,tx,ty,tz,rx,ry,rz,rw,sx,sy,sz,value\n", out);
	for (size_t a = 0; a < n; a++) {
		const decoded_anim *d = &ds[a];
		for (uint32_t t = 0; t < d->T; t++)
			for (uint32_t i = 0; i < d->rows; i++) {
				fprintf(out, "%u,transform,%u", d->index, t);
				csv_name(out, d->bone_names[t]);
				fprintf(out, ",%u", i);
				csv_f32(out, o, d->times ? d->times[i] : (float)i * d->frame_duration);
				const float *v = d->transforms + ((size_t)i * d->T + t) * HKS_TRACK_SAMPLE_FLOATS;
				for (int k = 0; k < HKS_TRACK_SAMPLE_FLOATS; k++)
					csv_f32(out, o, v[k]);
				fputs(",\n", out);
			}
		for (uint32_t f = 0; f < d->F; f++)
			for (uint32_t i = 0; i < d->rows; i++) {
				fprintf(out, "%u,float,%u,,%u", d->index, f, i);
				csv_f32(out, o, d->times ? d->times[i] : (float)i * d->frame_duration);
				fputs(",,,,,,,,,,", out);
				csv_f32(out, o, d->floats[(size_t)i * d->F + f]);
				fputc('\n', out);
			}
	}
}

/* ---- input ---- */

int cmd_decode(int argc, char **argv)
{
	/* -o OUT.glb / OUT.gltf: the glTF export (cmd_gltf.c, docs/GLTF.md) */
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "-o") && cli_is_gltf_path(argv[i + 1]))
			return cli_decode_gltf(argc, argv);
	const char **comps = calloc((size_t)argc + 1, sizeof(char *));
	size_t ncomps = 0;
	const char *in = NULL, *out_path = NULL, *skeleton = NULL;
	decode_opts o = {false, 0.0};
	if (!comps)
		return 2;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has_value = i + 1 < argc;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			free(comps);
			return 0;
		} else if (!strcmp(a, "--hex"))
			o.hex = true;
		else if (!strcmp(a, "--compendium") && has_value)
			comps[ncomps++] = argv[++i];
		else if (!strcmp(a, "--skeleton") && has_value)
			skeleton = argv[++i];
		else if (!strcmp(a, "-o") && has_value)
			out_path = argv[++i];
		else if (!strcmp(a, "--time-step") && has_value) {
			if (!cli_parse_decimal(argv[++i], &o.time_step) || !(o.time_step > 0) || !isfinite(o.time_step)) {
				fprintf(stderr, "hkspline decode: --time-step wants a positive number of seconds\n");
				free(comps);
				return 2;
			}
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "hkspline decode: unknown or incomplete option '%s'\n", a);
			usage(stderr);
			free(comps);
			return 2;
		} else if (!in)
			in = a;
		else {
			fprintf(stderr, "hkspline decode: one input only ('%s')\n", a);
			free(comps);
			return 2;
		}
	}
	if (!in || !out_path) {
		fprintf(stderr, "hkspline decode: missing %s\n\n",
		        !in ? "an input file (IN)"
		            : "-o OUT (its extension chooses the format: .json, .csv, .glb or .gltf; - writes JSON to stdout)");
		usage(stderr);
		free(comps);
		return 2;
	}
	bool csv = false;
	size_t olen = strlen(out_path);
	if (olen >= 4 && !strcasecmp(out_path + olen - 4, ".csv"))
		csv = true;
	else if (strcmp(out_path, "-") && !(olen >= 5 && !strcasecmp(out_path + olen - 5, ".json"))) {
		fprintf(stderr, "hkspline decode: -o wants a .json, .csv, .glb or .gltf file (or '-' for JSON on stdout), not '%s'\n",
		        out_path);
		free(comps);
		return 2;
	}

	hks_load_options lo = {0};
	lo.compendium_paths = comps;
	lo.num_compendium_paths = ncomps;
	hks_error err;
	hks_loader *loader = NULL, *skel_loader = NULL;
	hks_loaded *src = NULL, *skel = NULL;
	decoded_anim *ds = NULL;
	size_t nds = 0;
	int rc = 2;
	size_t unit = 0;
	if (hks_loader_create(&lo, &loader, &err) != HKS_OK) {
		cli_print_error(&err);
		goto done;
	}
	if ((rc = cli_open_unit(loader, in, "decode", &unit)) != 0)
		goto done;
	hks_result lr = hks_loader_load(loader, unit, &src);
	if (lr != HKS_OK || !src) {
		fprintf(stderr, "hkspline decode: cannot load %s\n", in);
		rc = cli_input_status(lr);
		goto done;
	}
	if (src->status != HKS_OK) {
		cli_print_error(&src->error);
		rc = cli_input_status(src->status); /* a damaged file, a compendium not found: 1 */
		goto done;
	}
	rc = 2;
	/* the skeleton: --skeleton, else the one the loader finds beside the file */
	const char *skeleton_path = NULL;
	if (skeleton) {
		size_t su = 0;
		if (hks_loader_create(&lo, &skel_loader, &err) != HKS_OK) {
			cli_print_error(&err);
			goto done;
		}
		if ((rc = cli_open_unit(skel_loader, skeleton, "decode", &su)) != 0)
			goto done;
		rc = 2;
		lr = hks_loader_load(skel_loader, su, &skel);
		if (lr != HKS_OK || !skel || skel->status != HKS_OK) {
			if (skel)
				cli_print_error(&skel->error);
			rc = cli_input_status(lr != HKS_OK || !skel ? lr : skel->status);
			goto done;
		}
	} else if (src->file->num_skeletons == 0 && hks_loader_find_skeleton(loader, unit, &skel) != HKS_OK) {
		skel = NULL; /* no skeleton: bones are null */
	}
	if (skel && skel->status != HKS_OK) {
		hks_loaded_free(skel);
		skel = NULL;
	}
	skeleton_path = skel ? skel->path : (src->file->num_skeletons ? src->path : NULL);

	const hks_file *f = src->file;
	if (f->num_animations == 0)
		fprintf(stderr, "hkspline decode: note: %s has no animation (the output lists none)\n", src->path);
	for (uint32_t a = 0; skeleton && skel && f->num_skeletons == 0 && a < f->num_animations; a++) {
		const hks_binding *bind = cli_binding_for(f, a);
		if (cli_warn_other_skeleton("decode", src->path, a, bind, cli_pick_skeleton(f, skel->file, bind), skeleton))
			break;
	}
	ds = calloc(f->num_animations + 1, sizeof(*ds));
	if (!ds)
		goto done;
	rc = 0;
	for (uint32_t a = 0; a < f->num_animations; a++) {
		const hks_animation *an = &f->animations[a];
		decoded_anim *d = &ds[nds];
		d->index = a;
		int r;
		if (an->kind == HKS_ANIMATION_SPLINE)
			r = decode_spline(src->path, an, a, &o, d);
		else if (an->kind == HKS_ANIMATION_INTERLEAVED && o.time_step == 0)
			r = decode_interleaved(an, d);
		else {
			fprintf(stderr, "hkspline decode: %s animation %u (%s) is not decoded\n", src->path, a,
			        an->class_name ? an->class_name : "?");
			continue;
		}
		nds++;
		if (r) {
			rc = r;
			goto done;
		}
		d->bone_names = calloc(d->T + 1, sizeof(char *));
		if (!d->bone_names) {
			rc = 2;
			goto done;
		}
		fill_bone_names(d, f, skel ? skel->file : NULL);
	}
	/* a file is written through a temporary renamed over it on success (src/io/atomic.c) */
	hks_atomic_file *af = NULL;
	if (strcmp(out_path, "-")) {
		hks_atomic_options ao;
		memset(&ao, 0, sizeof(ao));
		ao.base.name = out_path;
		hks_error aerr;
		if (hks_atomic_open(out_path, &ao, &af, &aerr) != HKS_OK) {
			cli_print_error(&aerr);
			rc = 2;
			goto done;
		}
	}
	FILE *out = af ? hks_atomic_stream(af) : stdout;
	if (csv)
		write_csv(out, ds, nds, &o);
	else
		rc = write_json(out, src, skeleton_path, ds, nds, &o);
	if (af && rc != 0) {
		hks_atomic_abort(af); /* the JSON writer failed: the target stays as it was */
	} else if (af) {
		hks_error aerr;
		if (hks_atomic_commit(af, &aerr) != HKS_OK) {
			cli_print_error(&aerr);
			rc = 2;
		}
	} else if (ferror(out)) {
		fprintf(stderr, "hkspline decode: write error on %s\n", out_path);
		rc = 2;
	}
done:
	for (size_t i = 0; i < nds; i++) {
		free(ds[i].transforms);
		free(ds[i].floats);
		free(ds[i].times);
		free(ds[i].bone_names);
	}
	free(ds);
	if (skel)
		hks_loaded_free(skel);
	if (src)
		hks_loaded_free(src);
	hks_loader_free(skel_loader);
	hks_loader_free(loader);
	free(comps);
	return rc;
}
