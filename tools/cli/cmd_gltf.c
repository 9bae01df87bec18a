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

static int decode_frames(const char *path, const hks_animation *an, uint32_t index, hks_gltf_clip *c,
                         export_clip *ec)
{
	hks_error err;
	if (an->kind == HKS_ANIMATION_INTERLEAVED) {
		uint32_t T = an->number_of_transform_tracks > 0 ? (uint32_t)an->number_of_transform_tracks : 0;
		uint32_t F = an->number_of_float_tracks > 0 ? (uint32_t)an->number_of_float_tracks : 0;
		uint32_t rows = T ? an->num_transforms / T : (F ? an->num_floats / F : 0);
		ec->transforms = calloc((size_t)rows * T * HKS_TRACK_SAMPLE_FLOATS + 1, sizeof(float));
		ec->floats = calloc((size_t)rows * F + 1, sizeof(float));
		if (!ec->transforms || !ec->floats)
			return 2;
		if (rows == 0) {
			fprintf(stderr, "hkspline decode: animation %u (interleaved) stores no frame\n", index);
			return 1;
		}
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
		wo.base.name = path; /* messages name the file */
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
	/* from here on an input that lacks what the export needs is a failed input (1) */
	rc = 1;
	const hks_file *f = src->file;
	if (f->num_animations == 0) {
		/* a skeleton or compendium alone: say that first, not that a skeleton is missing */
		fprintf(stderr, "hkspline decode: %s has no animation to export\n", in);
		goto done;
	}
	if (skeleton) {
		if ((rc = cli_load_skeleton(&lo, skeleton, &skel_loader, &skel, "decode")) != 0)
			goto done;
		rc = 1;
	} else if (f->num_skeletons == 0) {
		if (hks_loader_find_skeleton(loader, unit, &skel) != HKS_OK || !skel || skel->status != HKS_OK) {
			fprintf(stderr, "hkspline decode: glTF output needs a skeleton: none in %s or beside it; pass --skeleton\n",
			        in);
			goto done;
		}
	}
	clips = calloc(f->num_animations + 1, sizeof(*clips));
	ecs = calloc(f->num_animations + 1, sizeof(*ecs));
	rc = 2;
	if (!clips || !ecs)
		goto done;
	const hks_skeleton *sk = NULL;
	int warned_skeleton = 0;
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
		if ((rc = decode_frames(src->path, an, a, c, ec)) != 0)
			goto done;
		rc = 2;
		const hks_binding *bind = cli_binding_for(f, a);
		const hks_skeleton *this_sk = cli_pick_skeleton(f, skel ? skel->file : NULL, bind);
		if (!sk)
			sk = this_sk;
		if (skeleton && !warned_skeleton && f->num_skeletons == 0)
			warned_skeleton = cli_warn_other_skeleton("decode", src->path, a, bind, this_sk, skeleton);
		if (bind && bind->num_transform_track_to_bone_indices) {
			if (bind->num_transform_track_to_bone_indices < c->num_transform_tracks) {
				fprintf(stderr, "hkspline decode: animation %u: the binding maps %u of %u tracks\n", a,
				        bind->num_transform_track_to_bone_indices, c->num_transform_tracks);
				rc = 1; /* a damaged input */
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
	/* a skeleton-only file has no animation (and no bound skeleton): say the first */
	if (nclips == 0) {
		fprintf(stderr, "hkspline decode: %s has no animation to export\n", in);
		rc = 1;
		goto done;
	}
	if (!sk) {
		fprintf(stderr, "hkspline decode: no skeleton for %s\n", in);
		rc = 1;
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
	        "usage: hkspline encode IN.glb|IN.gltf [--like ORIGINAL] [--skeleton S] [--game sekiro|eldenring]\n"
	        "                       -o OUT.hkx [--into BINDER --name NAME] [--animation N|NAME] [--compendium P]...\n"
	        "  --skeleton S     skeleton file, BINDER:MEMBER, or a binder / folder holding one\n"
	        "                   (default with --like: the one beside ORIGINAL)\n"
	        "  --like ORIGINAL  the clip replaced: its container, track order, frame rate, SDK; without it a\n"
	        "                   donor tagfile from the skeleton's binder / folder is used (tracks: every bone)\n"
	        "  --game G         sekiro (SDK 20160200) or eldenring (20180100): the encoder's SDK\n"
	        "  --fps F          target frame rate (default: ORIGINAL's, else the donor's, else 30)\n"
	        "  --into BINDER --name NAME   also place OUT into the binder (replace or add NAME)\n"
	        "  --no-guard       Havok's fit as is, without the tolerance guard (docs/ENCODE.md)\n"
	        "  --object-tolerance D, --shell S, --shell-override GLOB=S, --bone-tolerance GLOB=T,\n"
	        "  --optimize havok|size, --report   error control, as for JSON input (docs/ENCODE.md)\n"
	        "  --allow-unmatched  encode even when more than a quarter of the track bones have no glTF node and\n"
	        "                   more than half as many glTF nodes are no bone of the skeleton (another\n"
	        "                   character's animation: refused by default)\n"
	        "  --untouched-tolerance U   parts equal to --like's decoded frames within U (default 5e-4) take\n"
	        "                   them bit for bit (docs/GLTF.md \"Alignment with --like\")\n"
	        "  --record R       record of ORIGINAL (hkspline recompress ORIGINAL --record R): untouched parts keep\n"
	        "                   their original bytes\n"
	        "  --tolerance, --translation-/rotation-/scale-/float-tolerance, --degree, --rotation-quantization,\n"
	        "  --max-frames-per-block, --cpu, --solver: as for JSON input (hkspline encode --help)\n");
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

/* ---- alignment with --like (docs/GLTF.md "Alignment with --like") ---- */

typedef struct align_report {
	uint32_t tracks_untouched, parts_untouched, floats_untouched;
	uint32_t scales_from_like; /* scale parts Blender cannot carry, taken from --like */
	uint64_t signs_matched;
	uint32_t changed[8];    /* the first changed tracks */
	double changed_by[8];   /* ... their largest component difference */
	const char *changed_part[8];
	uint32_t num_changed;
} align_report;

/* Whether part [k0, k0 + comps) of track t equals the original's frames within tol. */
static bool part_untouched(const hks_gltf_animation *ga, uint32_t T, uint32_t t, uint32_t k0, uint32_t comps,
                           const float *orig, double tol, double *worst)
{
	size_t stride = (size_t)T * HKS_TRACK_SAMPLE_FLOATS;
	for (uint32_t f = 0; f < ga->num_frames; f++) {
		const float *a = ga->transforms + f * stride + (size_t)t * HKS_TRACK_SAMPLE_FLOATS + k0;
		const float *b = orig + f * stride + (size_t)t * HKS_TRACK_SAMPLE_FLOATS + k0;
		/* rotations: the export normalizes (a spline's decoded quaternions are not unit
		 * length), so the original is compared normalized */
		double n = 1;
		if (comps == 4) {
			n = sqrt((double)b[0] * b[0] + (double)b[1] * b[1] + (double)b[2] * b[2] + (double)b[3] * b[3]);
			if (!(n > 0))
				return false;
		}
		for (uint32_t k = 0; k < comps; k++) {
			double d = fabs((double)a[k] - (double)b[k] / n);
			if (!(d <= *worst))
				*worst = isnan(d) ? INFINITY : d;
		}
	}
	return *worst <= tol;
}

/* ---- another key rate (docs/GLTF.md "Frame grid", "Alignment with --like") ----
 *
 * A DCC whose scene runs at another rate than the clip (Blender's default 24 fps for a 30 or
 * 60 fps clip) stores the clip on its own key grid: measured with Blender 3.4, every exported key
 * is the original's frames linearly interpolated at the key's time, rotations component by
 * component and then normalized (its f-curves hold quaternion components; the export goes
 * through a matrix), within 7e-6. The import then resamples those keys at the clip's rate
 * (hks_gltf_read: linear, slerp for rotations). So an unedited part of such a glTF equals the
 * original passed through the same two steps, not the original itself; these are the frames
 * compared against, and a part found untouched takes the original's frames bit for bit. */

/* Value of component row `x` (times in units of the source step) of `src` (n rows of `comps`
 * floats, `stride` apart): linear, rotations (comps == 4) normalized after the linear mix. */
static void lerp_at(const float *src, size_t stride, uint32_t n, uint32_t comps, double x, double out[4])
{
	double i0 = floor(x);
	if (i0 < 0)
		i0 = 0;
	if (i0 > (double)n - 2)
		i0 = (double)n - 2;
	double a = x - i0;
	a = a < 0 ? 0 : a > 1 ? 1 : a;
	const float *p = src + (size_t)i0 * stride, *q = p + stride;
	double sq = 0;
	for (uint32_t k = 0; k < comps; k++) {
		out[k] = (1 - a) * (double)p[k] + a * (double)q[k];
		sq += out[k] * out[k];
	}
	if (comps == 4 && sq > 0)
		for (uint32_t k = 0; k < 4; k++)
			out[k] /= sqrt(sq);
}

/* The slerp of unit quaternions p, q at a (shortest arc), as the glTF reader's LINEAR rotation. */
static void slerp4(const double p[4], const double q0[4], double a, double out[4])
{
	double q[4], d = p[0] * q0[0] + p[1] * q0[1] + p[2] * q0[2] + p[3] * q0[3];
	for (int k = 0; k < 4; k++)
		q[k] = d < 0 ? -q0[k] : q0[k];
	d = fabs(d);
	double wp = 1 - a, wq = a;
	if (d < 1 - 1e-9) {
		double th = acos(d > 1 ? 1 : d), s = sin(th);
		wp = sin((1 - a) * th) / s;
		wq = sin(a * th) / s;
	}
	for (int k = 0; k < 4; k++)
		out[k] = wp * p[k] + wq * q[k];
}

/* The original's transforms as a glTF on ga's key grid gives them back after the import's
 * resampling (above). NULL when the grid is the frames' own, or on no memory. `orig_step`: the
 * original's frame step. The keys are at key_step apart from the first frame, up to key_span;
 * frame f at f * frame_duration, the last at key_span when the import snapped it. */
static float *regrid_original(const hks_gltf_animation *ga, uint32_t T, const float *orig, double orig_step)
{
	if (!ga->off_grid || !(ga->key_step > 0) || !(orig_step > 0) || ga->num_frames < 2)
		return NULL;
	uint32_t n = ga->num_frames;
	double nk = floor(ga->key_span / ga->key_step + 0.5) + 1;
	if (!(nk >= 2) || nk > 4.0 * n + 1024)
		return NULL;
	uint32_t K = (uint32_t)nk;
	size_t stride = (size_t)T * HKS_TRACK_SAMPLE_FLOATS;
	float *out = calloc((size_t)n * stride + 1, sizeof(float));
	double *keys = calloc((size_t)K * 4 + 1, sizeof(double));
	float *unit = calloc((size_t)n * 4 + 1, sizeof(float)); /* one track's rotations, unit and continuous */
	if (!out || !keys || !unit) {
		free(out);
		free(keys);
		free(unit);
		return NULL;
	}
	static const uint32_t k0[3] = {0, 3, 7}, nc[3] = {3, 4, 3};
	for (uint32_t t = 0; t < T; t++)
		for (int p = 0; p < 3; p++) {
			const float *src = orig + (size_t)t * HKS_TRACK_SAMPLE_FLOATS + k0[p];
			size_t sstride = stride;
			if (nc[p] == 4) {
				/* the glTF holds the decoded rotations normalized; the DCC's keys follow one sign */
				for (uint32_t f = 0; f < n; f++) {
					const float *q = src + (size_t)f * stride;
					double sq = (double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3];
					double m = sq > 0 ? 1 / sqrt(sq) : 1;
					if (f) {
						const float *u = unit + (size_t)(f - 1) * 4;
						if ((double)u[0] * q[0] + (double)u[1] * q[1] + (double)u[2] * q[2] + (double)u[3] * q[3] < 0)
							m = -m;
					}
					for (int k = 0; k < 4; k++)
						unit[(size_t)f * 4 + k] = (float)((double)q[k] * m);
				}
				src = unit;
				sstride = 4;
			}
			for (uint32_t k = 0; k < K; k++)
				lerp_at(src, sstride, n, nc[p], (double)k * ga->key_step / orig_step, keys + (size_t)k * 4);
			for (uint32_t f = 0; f < n; f++) {
				double tm = ga->end_snapped && f == n - 1 ? ga->key_span : (double)f * (double)ga->frame_duration;
				double x = tm / ga->key_step, i0 = floor(x);
				i0 = i0 < 0 ? 0 : i0 > (double)K - 2 ? (double)K - 2 : i0;
				double a = x - i0, v[4];
				a = a < 0 ? 0 : a > 1 ? 1 : a;
				const double *kp = keys + (size_t)i0 * 4, *kq = kp + 4;
				if (nc[p] == 4) {
					slerp4(kp, kq, a, v);
					/* the sign of the original's frame, as the glTF's frames get it */
					const float *o = orig + (size_t)f * stride + (size_t)t * HKS_TRACK_SAMPLE_FLOATS + 3;
					if (v[0] * o[0] + v[1] * o[1] + v[2] * o[2] + v[3] * o[3] < 0)
						for (int k = 0; k < 4; k++)
							v[k] = -v[k];
				} else
					for (uint32_t k = 0; k < nc[p]; k++)
						v[k] = (1 - a) * kp[k] + a * kq[k];
				for (uint32_t k = 0; k < nc[p]; k++)
					out[(size_t)f * stride + (size_t)t * HKS_TRACK_SAMPLE_FLOATS + k0[p] + k] = (float)v[k];
			}
		}
	free(keys);
	free(unit);
	return out;
}

/* The root motion samples (x, y, z, heading w about up) as the same key grid gives them back:
 * the node's rotation is about `up` alone, so its keys mix (cos w/2, sin w/2) linearly and
 * normalize; the import's slerp between two keys is linear in the angle. */
static bool regrid_root_motion(const hks_gltf_animation *ga, const float (*samples)[4], double orig_step,
                               float (*out)[4])
{
	uint32_t n = ga->num_frames;
	double nk = floor(ga->key_span / ga->key_step + 0.5) + 1;
	if (!ga->off_grid || !(ga->key_step > 0) || !(orig_step > 0) || n < 2 || !(nk >= 2) || nk > 4.0 * n + 1024)
		return false;
	uint32_t K = (uint32_t)nk;
	double(*keys)[4] = calloc((size_t)K + 1, sizeof(double[4]));
	if (!keys)
		return false;
	for (uint32_t k = 0; k < K; k++) {
		double x = (double)k * ga->key_step / orig_step, i0 = floor(x);
		i0 = i0 < 0 ? 0 : i0 > (double)n - 2 ? (double)n - 2 : i0;
		double a = x - i0;
		a = a < 0 ? 0 : a > 1 ? 1 : a;
		const float *p = samples[(size_t)i0], *q = samples[(size_t)i0 + 1];
		for (int c = 0; c < 3; c++)
			keys[k][c] = (1 - a) * p[c] + a * q[c];
		double hp = 0.5 * (double)p[3], hq = 0.5 * (double)q[3];
		double cq = cos(hq), sq = sin(hq);
		if (cos(hp) * cq + sin(hp) * sq < 0) { /* the shorter arc, as a continuous export */
			cq = -cq;
			sq = -sq;
		}
		keys[k][3] = 2 * atan2((1 - a) * sin(hp) + a * sq, (1 - a) * cos(hp) + a * cq);
	}
	for (uint32_t f = 0; f < n; f++) {
		double tm = ga->end_snapped && f == n - 1 ? ga->key_span : (double)f * (double)ga->frame_duration;
		double x = tm / ga->key_step, i0 = floor(x);
		i0 = i0 < 0 ? 0 : i0 > (double)K - 2 ? (double)K - 2 : i0;
		double a = x - i0;
		a = a < 0 ? 0 : a > 1 ? 1 : a;
		const double *p = keys[(size_t)i0], *q = keys[(size_t)i0 + 1];
		for (int c = 0; c < 3; c++)
			out[f][c] = (float)((1 - a) * p[c] + a * q[c]);
		out[f][3] = (float)(p[3] + a * remainder(q[3] - p[3], 6.283185307179586));
	}
	free(keys);
	return true;
}

/* Per frame, the quaternion sign of the original's decoded frame (the same rotation:
 * a DCC's sign choice must not change the bytes); then every part (translation,
 * rotation, scale of a track; a float track) that equals the original's frames within
 * `tol` takes the original's values bit for bit, so that the encoder (and --record)
 * sees exactly the original's frames there. */
static align_report align_with_original(hks_gltf_animation *ga, uint32_t T, uint32_t F, const float *orig_tr,
                                        const float *orig_fl, double tol, const uint8_t *scale_from_like,
                                        const float *regridded)
{
	align_report r;
	memset(&r, 0, sizeof(r));
	size_t stride = (size_t)T * HKS_TRACK_SAMPLE_FLOATS;
	for (uint32_t t = 0; t < T; t++) {
		for (uint32_t f = 0; f < ga->num_frames; f++) {
			float *a = ga->transforms + f * stride + (size_t)t * HKS_TRACK_SAMPLE_FLOATS + 3;
			const float *b = orig_tr + f * stride + (size_t)t * HKS_TRACK_SAMPLE_FLOATS + 3;
			double d = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2] + (double)a[3] * b[3];
			if (d < 0) {
				for (int k = 0; k < 4; k++)
					a[k] = -a[k];
				r.signs_matched++;
			}
		}
		static const uint32_t k0[3] = {0, 3, 7}, nc[3] = {3, 4, 3};
		static const char *const part_name[3] = {"translation", "rotation", "scale"};
		uint32_t same = 0;
		for (int p = 0; p < 3; p++) {
			double worst = 0;
			/* on another key grid: against the original as that grid gives it back */
			bool untouched = part_untouched(ga, T, t, k0[p], nc[p], regridded ? regridded : orig_tr, tol, &worst);
			if (!untouched && p == 2 && scale_from_like && scale_from_like[t]) {
				/* a scale the glTF cannot carry (scale_unrepresentable): --like's, not the approximation */
				r.scales_from_like++;
				untouched = true;
			}
			if (!untouched) {
				if (r.num_changed < 8 && (!r.num_changed || r.changed[r.num_changed - 1] != t)) {
					r.changed[r.num_changed] = t;
					r.changed_by[r.num_changed] = worst;
					r.changed_part[r.num_changed++] = part_name[p];
				}
				continue;
			}
			same++;
			for (uint32_t f = 0; f < ga->num_frames; f++)
				memcpy(ga->transforms + f * stride + (size_t)t * HKS_TRACK_SAMPLE_FLOATS + k0[p],
				       orig_tr + f * stride + (size_t)t * HKS_TRACK_SAMPLE_FLOATS + k0[p], nc[p] * sizeof(float));
		}
		r.parts_untouched += same;
		r.tracks_untouched += same == 3;
	}
	for (uint32_t i = 0; i < F; i++) {
		bool same = true;
		for (uint32_t f = 0; f < ga->num_frames && same; f++)
			same = fabs((double)ga->floats[(size_t)f * F + i] - (double)orig_fl[(size_t)f * F + i]) <= tol;
		if (!same)
			continue;
		r.floats_untouched++;
		for (uint32_t f = 0; f < ga->num_frames; f++)
			ga->floats[(size_t)f * F + i] = orig_fl[(size_t)f * F + i];
	}
	return r;
}

static const char *bone_name(const hks_skeleton *sk, int32_t b)
{
	const char *bn = b >= 0 && (uint32_t)b < sk->num_bones && sk->bone_names ? sk->bone_names[b] : NULL;
	return bn ? bn : "?";
}

static double max_rest_scale(const hks_gltf_animation *ga)
{
	double m = 0;
	for (uint32_t i = 0; i < ga->num_rest_bones; i++)
		if (!ga->rest_hierarchy[i] && !(ga->rest_translation[i] > 1e-4f) && ga->rest_scale[i] > m)
			m = ga->rest_scale[i];
	return m;
}

/* Bone b's pose scale cannot come back exactly: a non-uniform reference scale on a bone
 * whose glTF rest pose is in other local axes (Blender keeps a pose scale only along its
 * own bone axes, docs/GLTF.md "Blender"). */
static bool scale_unrepresentable(const hks_gltf_animation *ga, const hks_skeleton *sk, int32_t b)
{
	if (b < 0 || !sk->reference_pose || (uint32_t)b >= sk->num_reference_pose)
		return false;
	bool rest = false, axes = false;
	for (uint32_t i = 0; i < ga->num_rest_bones && !rest; i++)
		rest = ga->rest_bones[i] == b;
	for (uint32_t k = 0; k < ga->num_axis_bones && !axes; k++)
		axes = ga->axis_bones[k] == b;
	const float *sc = sk->reference_pose[b].scale;
	float lo = fminf(sc[0], fminf(sc[1], sc[2])), hi = fmaxf(sc[0], fmaxf(sc[1], sc[2]));
	return rest && axes && hi - lo > 1e-4f;
}

/* The rest-pose comparison (docs/GLTF.md "Rest poses"): converted bones as a note, other
 * differences as a warning with the bones and sizes. */
static void print_rest_report(const hks_gltf_animation *ga, const hks_skeleton *sk)
{
	if (ga->num_axis_bones)
		fprintf(stderr,
		        "hkspline encode: %u bone(s) have other local axes in the glTF than in the skeleton (up to %.3g deg; "
		        "e.g. Blender's bone_heuristic TEMPERANCE or FORTUNE): converted to the skeleton's bone frames\n",
		        ga->num_axis_bones, ga->max_axis_angle * 57.29577951308232);
	if (!ga->num_rest_bones)
		return;
	uint32_t scale_only = 0;
	for (uint32_t i = 0; i < ga->num_rest_bones; i++)
		scale_only += !ga->rest_hierarchy[i] && !(ga->rest_translation[i] > 1e-4f);
	if (scale_only)
		fprintf(stderr, "hkspline encode: %u bone(s) have another rest scale in the glTF than in the reference pose "
		                "(Blender's bones carry none; up to %.3g): their animated scale is used as it is\n",
		        scale_only, max_rest_scale(ga));
	/* a non-uniform reference scale on a bone in other local axes: Blender keeps a pose scale
	 * only along its own bone axes, so such a scale may come back approximated */
	uint32_t approx = 0;
	for (uint32_t i = 0; i < ga->num_rest_bones; i++) {
		int32_t b = ga->rest_bones[i];
		if (scale_unrepresentable(ga, sk, b)) {
			if (!approx++)
				fprintf(stderr, "hkspline encode: warning: bone(s) with a non-uniform reference scale in other local "
				                "axes: their scale may be approximated (Blender holds a pose scale along its own bone "
				                "axes only; import with bone_heuristic BLENDER to keep it exactly):");
			if (approx <= 16)
				fprintf(stderr, " %s", bone_name(sk, b));
		}
	}
	if (approx)
		fprintf(stderr, "%s\n", approx > 16 ? " ..." : "");
	if (scale_only == ga->num_rest_bones)
		return;
	fprintf(stderr, "hkspline encode: warning: the glTF rest pose of %u bone(s) differs from the skeleton's "
	                "reference pose by more than a change of axes (edited rest pose? their animation is taken as "
	                "it is):",
	        ga->num_rest_bones - scale_only);
	for (uint32_t i = 0, shown = 0; i < ga->num_rest_bones && shown < 16; i++) {
		if (!ga->rest_hierarchy[i] && !(ga->rest_translation[i] > 1e-4f))
			continue;
		shown++;
		fprintf(stderr, " %s (", bone_name(sk, ga->rest_bones[i]));
		if (ga->rest_hierarchy[i])
			fprintf(stderr, "other parent%s", ga->rest_translation[i] > 1e-4f || ga->rest_scale[i] > 1e-4f ? ", " : "");
		if (ga->rest_translation[i] > 1e-4f)
			fprintf(stderr, "translation %.4g m%s", (double)ga->rest_translation[i], ga->rest_scale[i] > 1e-4f ? ", " : "");
		if (ga->rest_scale[i] > 1e-4f)
			fprintf(stderr, "scale %.4g", (double)ga->rest_scale[i]);
		fprintf(stderr, ")");
	}
	fprintf(stderr, "%s\n", ga->num_rest_bones > 16 ? " ..." : "");
}

/* Whether SPEC (BINDER:MEMBER) names a member that loads and holds a spline animation; silent. */
static bool member_has_spline(const hks_load_options *lo, const char *spec)
{
	hks_loader *loader = NULL;
	hks_loaded *ld = NULL;
	hks_error err;
	size_t unit = 0;
	bool yes = false;
	if (hks_loader_create(lo, &loader, &err) == HKS_OK && hks_loader_open_unit(loader, spec, &unit, &err) == HKS_OK &&
	    hks_loader_load(loader, unit, &ld) == HKS_OK && ld && ld->status == HKS_OK)
		for (uint32_t a = 0; a < ld->file->num_animations && !yes; a++)
			yes = ld->file->animations[a].kind == HKS_ANIMATION_SPLINE;
	hks_loaded_free(ld);
	hks_loader_free(loader);
	return yes;
}

/* Whether -o names a buffer file beside IN.gltf that the glTF refers to ("glTF Separate": x.gltf + x.bin), after
 * printing why: the output would replace an input (session 24 review). The check is by name: -o's base name
 * as a JSON string ending a uri of IN, and -o the file of that name in IN's folder; a uri that percent-encodes
 * -o's name is not recognized (docs/CLI.md). */
static bool names_external_buffer(const char *in, const uint8_t *text, size_t size, const char *out)
{
	char in_dir[4096], out_dir[4096], beside[8192];
	const char *base = cli_split_folder(out, out_dir, sizeof(out_dir));
	size_t n = strlen(base);
	if (!cli_is_gltf_path(in) || !n || n > 1024)
		return false;
	bool named = false;
	for (size_t i = 1; !named && i + n < size; i++)
		named = text[i + n] == '"' && (text[i - 1] == '"' || text[i - 1] == '/') && !memcmp(text + i, base, n);
	if (!named)
		return false;
	cli_split_folder(in, in_dir, sizeof(in_dir));
	snprintf(beside, sizeof(beside), "%s/%s", in_dir, base);
	if (!cli_same_target(out, beside))
		return false;
	fprintf(stderr, "hkspline encode: -o %s names a buffer file of %s: it would be replaced by the output; write "
	                "elsewhere\n", out, in);
	return true;
}

int cli_encode_gltf(int argc, char **argv)
{
	const char *in = NULL, *anim_sel = NULL;
	double fps = 0, untouched_tol = 5e-4;
	int rc = 2;
	cli_encode_args opt; /* the options shared with the JSON input (cli_encode_args.c) */
	float *orig_tr = NULL, *orig_fl = NULL;
	uint32_t orig_frames = 0;
	hks_track_params *pal = NULL, *fpal = NULL;
	hks_loader *skel_loader = NULL, *like_loader = NULL;
	hks_loaded *skel = NULL, *ld = NULL;
	char *into_member = NULL; /* BINDER:NAME when --into replaces a member and --like is not given */
	uint8_t *gltf = NULL;
	size_t gltf_size = 0;
	hks_gltf_animation *ga = NULL;
	hks_packed_spline *packed = NULL;
	const char **slot_names = NULL;
	float *ref_floats = NULL;
	int16_t *identity = NULL, *float_slots = NULL;
	float(*samples)[4] = NULL;
	bool allow_unmatched = false;
	if (!cli_encode_args_init(&opt, argc)) {
		cli_encode_args_free(&opt);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has = i + 1 < argc;
		if (!strcmp(a, "--continuity"))
			continue; /* the import always makes rotations sign-continuous (docs/GLTF.md) */
		int shared = cli_encode_args_parse(&opt, argc, argv, &i);
		if (shared < 0)
			goto done;
		if (shared > 0)
			continue;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			encode_usage(stdout);
			rc = 0;
			goto done;
		} else if (!strcmp(a, "--animation") && has)
			anim_sel = argv[++i];
		else if (!strcmp(a, "--allow-unmatched"))
			allow_unmatched = true;
		else if (!strcmp(a, "--untouched-tolerance") && has) {
			double v = 0;
			if (!cli_parse_decimal(argv[++i], &v) || !(v >= 0) || !isfinite(v)) {
				fprintf(stderr, "hkspline encode: %s wants a non-negative number\n", a);
				goto done;
			}
			untouched_tol = v;
		} else if (!strcmp(a, "--fps") && has) {
			/* 1..10000: below one frame a second a clip of a few keys lasts hours (1e-9 made a
			 * 10^9-second clip); games play at 30 or 60 */
			if (!cli_parse_decimal(argv[++i], &fps) || !(fps >= 1) || fps > 10000) {
				fprintf(stderr, "hkspline encode: --fps wants a rate from 1 to 10000 frames per second\n");
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
	if (!cli_encode_args_complete(&opt, in)) {
		encode_usage(stderr);
		goto done;
	}
	if (cli_encode_args_clash(&opt, in))
		goto done;
	/* --into's checks first: a refused --into writes nothing, not even -o (session 18 new-user trial) */
	if (opt.into && (rc = cli_into_precheck(opt.into, opt.name)) != 0)
		goto done;
	/* a missing --record before the import (which takes a while), unless a usage error below (exit 2) wins */
	if (!opt.control.use && opt.like && cli_encode_args_record_missing(&opt)) {
		rc = 1;
		goto done;
	}
	rc = 2;
	hks_load_options lo;
	memset(&lo, 0, sizeof(lo));
	lo.compendium_paths = opt.compendiums;
	lo.num_compendium_paths = opt.num_compendiums;
	hks_error err;
	size_t like_unit = 0;
	hks_file *file = NULL;
	uint32_t ai = 0;
	if (!opt.like && opt.into && opt.name) {
		/* replacing a member that exists: that member is the original, as if --like BINDER:NAME
		 * (a full NAME's own ':' is fine: BINDER:MEMBER splits after the binder file) */
		size_t n = strlen(opt.into) + strlen(opt.name) + 2;
		into_member = malloc(n);
		if (!into_member)
			goto done;
		snprintf(into_member, n, "%s:%s", opt.into, opt.name);
		if (member_has_spline(&lo, into_member)) {
			opt.like = into_member;
			fprintf(stderr, "hkspline encode: --like %s (the member --into replaces)\n", into_member);
		}
	}
	const char *container_name = opt.like;
	if (opt.like) {
		if (hks_loader_create(&lo, &like_loader, &err) != HKS_OK) {
			cli_print_error(&err);
			goto done;
		}
		if ((rc = cli_open_unit(like_loader, opt.like, "encode", &like_unit)) != 0)
			goto done;
		rc = 2;
		hks_result lr = hks_loader_load(like_loader, like_unit, &ld);
		if (lr != HKS_OK || !ld) {
			fprintf(stderr, "hkspline encode: cannot load %s\n", opt.like);
			rc = cli_input_status(lr);
			goto done;
		}
		if (ld->status != HKS_OK) {
			cli_print_error(&ld->error);
			rc = cli_input_status(ld->status); /* a damaged file, a compendium not found: 1 */
			goto done;
		}
		file = ld->file;
		while (ai < file->num_animations && file->animations[ai].kind != HKS_ANIMATION_SPLINE)
			ai++;
		if (ai == file->num_animations) {
			fprintf(stderr, "hkspline encode: %s has no spline animation to replace\n", opt.like);
			rc = 1;
			goto done;
		}
	} else if (!opt.skeleton) {
		fprintf(stderr, "hkspline encode: glTF input needs --skeleton (or --like ORIGINAL)\n");
		goto done;
	}
	if (opt.skeleton) {
		if ((rc = cli_load_skeleton(&lo, opt.skeleton, &skel_loader, &skel, "encode")) != 0)
			goto done;
		rc = 2;
	} else if (file->num_skeletons == 0 &&
	           (hks_loader_find_skeleton(like_loader, like_unit, &skel) != HKS_OK || !skel || skel->status != HKS_OK)) {
		fprintf(stderr, "hkspline encode: no skeleton beside %s; pass --skeleton\n", opt.like);
		rc = 1;
		goto done;
	}
	if (cli_output_over_loaded(opt.out, skel, "encode", "the skeleton read")) {
		rc = 2;
		goto done;
	}
	if (!opt.like) {
		/* a donor: its type table (or compendium reference) and container; the track set is rebuilt */
		int found = cli_find_donor(&lo, opt.skeleton, opt.sdk, &like_loader, &ld, &ai);
		if (found == 1)
			fprintf(stderr,
			        "hkspline encode: no donor tagfile%s%s with a spline animation beside %s: pass --like ORIGINAL.hkx\n",
			        opt.sdk ? " of SDK " : "", opt.sdk ? opt.sdk : "", opt.skeleton);
		if (found != 0)
			goto done;
		file = ld->file;
		container_name = ld->path;
		printf("%s: donor %s (SDK %s)\n", in, ld->path, file->sdk);
	}
	hks_animation *oa = &file->animations[ai];
	const hks_binding *bind = cli_binding_for(file, ai);
	const hks_skeleton *sk = cli_pick_skeleton(skel ? skel->file : NULL, file, opt.like ? bind : NULL);
	if (opt.like)
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
	if (!opt.like) {
		T = sk->num_bones;
		F = sk->float_slots ? sk->num_float_slots : 0;
	}
	if (opt.like && bind && bind->num_transform_track_to_bone_indices >= T && bind->num_transform_track_to_bone_indices)
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
		int32_t slot = opt.like && bind && i < bind->num_float_track_to_float_slot_indices
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
	/* the target rate: --fps, else the original's, else the donor's (a clip of the
	 * skeleton's binder or folder), else 30 fps */
	float frame_duration = orig->frame_duration > 0 && isfinite(orig->frame_duration) ? orig->frame_duration : 1.0f / 30.0f;
	const char *rate_from = opt.like ? "--like's" : "the donor's";
	int32_t mfpb = orig->max_frames_per_block;
	pal = calloc((size_t)T + 1, sizeof(hks_track_params));
	fpal = calloc((size_t)F + 1, sizeof(hks_track_params));
	if (!pal || !fpal) {
		hks_stored_free(orig);
		goto done;
	}
	/* --like's per-track quantizations, as the JSON path; then --rotation-quantization */
	hks_track_params_like(opt.like ? orig : NULL, opt.have_rotq ? HKS_ENC_ROT_QUANT(opt.rotq) : 0, pal, T, fpal, F);
	if (opt.like && orig->num_blocks) {
		/* its decoded frames: sign and value alignment (docs/GLTF.md "Alignment with --like") */
		orig_frames = orig->num_frames > 0 ? (uint32_t)orig->num_frames : 0;
		if ((uint32_t)orig->num_transform_tracks == T && (uint32_t)orig->num_float_tracks == F && orig_frames) {
			orig_tr = calloc((size_t)orig_frames * T * HKS_TRACK_SAMPLE_FLOATS + 1, sizeof(float));
			orig_fl = calloc((size_t)orig_frames * F + 1, sizeof(float));
			if (!orig_tr || !orig_fl ||
			    hks_sample_frames(orig, NULL, 0, orig_frames, orig_tr, orig_fl, &err) != HKS_OK) {
				free(orig_tr);
				free(orig_fl);
				orig_tr = orig_fl = NULL;
				orig_frames = 0;
			}
		} else
			orig_frames = 0;
	}
	hks_stored_free(orig);
	if (!opt.like) {
		/* the donor's animation gets the skeleton's track layout (written by the tagfile writer);
		 * the float tracks are set once the glTF says which slots it carries */
		cli_apply_track_layout(file, ai, T, identity, 0, NULL);
	}

	/* the glTF */
	gltf = cli_read_file(in, &gltf_size);
	if (!gltf) {
		rc = 1; /* IN cannot be read: a failed input */
		goto done;
	}
	if (names_external_buffer(in, gltf, gltf_size, opt.out))
		goto done; /* rc is 2 */
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
	if (fps > 0)
		rate_from = "--fps";
	ro.duration = fps > 0 || !opt.like ? 0 : oa->duration;
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
	/* Another character's glTF: many track bones without a node while the glTF has bones of its own that
	 * the skeleton lacks. Writing it would put the reference pose on those bones; a glTF of a subset of the
	 * bones (no foreign nodes) or of the same bones under another skeleton name still encodes. */
	if (!allow_unmatched && T >= 4 && ga->num_missing_bones > T / 4 &&
	    2 * ga->num_unmatched_nodes > ga->num_missing_bones) {
		fprintf(stderr,
		        "hkspline encode: %s does not look like an animation of %s's skeleton \"%s\": %u of its %u track "
		        "bones have no glTF node, and %u glTF nodes are no bone of it; pass the clip (--like) or skeleton "
		        "(--skeleton) of the glTF's character, or --allow-unmatched to encode it anyway (the bones without "
		        "a node keep their reference pose)\n",
		        in, opt.like ? opt.like : "the target", sk && sk->name ? sk->name : "?", ga->num_missing_bones, T,
		        ga->num_unmatched_nodes);
		rc = 1;
		goto done;
	}
	print_rest_report(ga, sk);
	if (ga->off_grid) {
		double key_fps = 1.0 / ga->key_step, target_fps = 1.0 / (double)ga->frame_duration;
		char keep[96] = "";
		if (!opt.like)
			snprintf(keep, sizeof(keep), ", or pass --fps %.4g to keep the glTF's rate", key_fps);
		fprintf(stderr,
		        "hkspline encode: warning: the glTF's keys are %.4g fps apart, the target rate (%s) is %.4g fps: "
		        "resampled, which smooths the motion%s; to avoid it set Blender's scene frame rate to %.4g before "
		        "importing (Output Properties > Frame Rate)%s\n",
		        key_fps, rate_from, target_fps,
		        opt.like ? " of edited parts (unedited ones are recognized on the glTF's grid and keep --like's frames)"
		                 : "",
		        target_fps, keep);
	}
	if (opt.like && (ga->num_frames != (uint32_t)oa->spline.num_frames || ga->duration != oa->duration))
		fprintf(stderr,
		        "hkspline encode: warning: %u frames, %.6g s; %s has %d frames, %.6g s (the glTF's keys span %.6g s)\n",
		        ga->num_frames, (double)ga->duration, opt.like, oa->spline.num_frames, (double)oa->duration, ga->key_span);
	else if (ga->end_snapped)
		fprintf(stderr, "hkspline encode: the glTF's last key (%.6g s) was taken as the clip's end (%.6g s)\n",
		        ga->key_span, (double)ga->duration);
	if (orig_frames && orig_frames == ga->num_frames) {
		/* float tracks Blender drops (it exports no extras): --like's own */
		uint32_t kept_floats = 0;
		for (uint32_t i = 0; i < F; i++)
			for (uint32_t k = 0; k < ga->num_missing_float_slots; k++)
				if (ga->missing_float_slots[k] == slot_names[i]) {
					for (uint32_t f = 0; f < ga->num_frames; f++)
						ga->floats[(size_t)f * F + i] = orig_fl[(size_t)f * F + i];
					kept_floats++;
					break;
				}
		if (kept_floats)
			fprintf(stderr, "hkspline encode: %u float track(s) not in the glTF: %s's kept\n", kept_floats, opt.like);
		uint8_t *scale_from_like = calloc((size_t)T + 1, 1);
		for (uint32_t t = 0; scale_from_like && t < T; t++)
			scale_from_like[t] = scale_unrepresentable(ga, sk, track_to_bone[t]);
		float *regridded = regrid_original(ga, T, orig_tr, (double)frame_duration);
		align_report ar = align_with_original(ga, T, F, orig_tr, orig_fl, untouched_tol, scale_from_like, regridded);
		free(regridded);
		free(scale_from_like);
		if (ar.scales_from_like)
			fprintf(stderr,
			        "hkspline encode: the scale of %u track(s) whose non-uniform reference scale Blender cannot carry in "
			        "other bone axes is %s's, not the glTF's approximation (import with bone_heuristic BLENDER to "
			        "edit those scales)\n",
			        ar.scales_from_like, opt.like);
		fprintf(stderr,
		        "hkspline encode: untouched: %u of %u tracks (%u of %u parts) and %u of %u float tracks equal %s's "
		        "decoded frames within %g: their frames taken bit for bit; %llu quaternion signs matched to %s's\n",
		        ar.tracks_untouched, T, ar.parts_untouched, 3 * T, ar.floats_untouched, F, opt.like, untouched_tol,
		        (unsigned long long)ar.signs_matched, opt.like);
		if (!opt.record_path && ar.parts_untouched)
			fprintf(stderr,
			        "hkspline encode: without --record they are fitted again, so their bytes differ from %s's (within "
			        "the tolerances); to keep its bytes: hkspline recompress ORIGINAL --record R, then encode with "
			        "--record R\n",
			        opt.like);
		if (ar.tracks_untouched < T) {
			fprintf(stderr, "hkspline encode: changed tracks (fitted afresh):");
			for (uint32_t k = 0; k < ar.num_changed; k++)
				fprintf(stderr, " %s (%s by %.3g)", bone_name(sk, track_to_bone[ar.changed[k]]), ar.changed_part[k],
				        ar.changed_by[k]);
			fprintf(stderr, "%s\n", T - ar.tracks_untouched > ar.num_changed ? " ..." : "");
		}
		/* root motion: --like's samples bit for bit when within the tolerance */
		if (ga->has_root_motion && oa->reference_frame >= 0 && (uint32_t)oa->reference_frame < file->num_reference_frames) {
			const hks_reference_frame *rf = &file->reference_frames[oa->reference_frame];
			bool same = rf->num_samples == ga->num_frames;
			/* on another key grid: against the samples as that grid gives them back */
			float(*ref)[4] = same ? calloc((size_t)ga->num_frames + 1, sizeof(float[4])) : NULL;
			const float(*want)[4] = ref && regrid_root_motion(ga, (const float(*)[4])rf->samples,
			                                                  (double)frame_duration, ref)
			                            ? (const float(*)[4])ref
			                            : (const float(*)[4])rf->samples;
			/* the heading (w) is an angle: compared modulo 2 pi (the glTF rotation gives -pi for pi) */
			for (uint32_t f = 0; same && f < ga->num_frames; f++)
				for (int k = 0; k < 4 && same; k++) {
					double d = (double)ga->root_motion[f][k] - (double)want[f][k];
					same = fabs(k == 3 ? remainder(d, 6.283185307179586) : d) <= untouched_tol;
				}
			free(ref);
			if (same)
				memcpy(ga->root_motion, rf->samples, (size_t)ga->num_frames * sizeof(float[4]));
			fprintf(stderr, "hkspline encode: root motion %s\n",
			        same ? "untouched: --like's samples kept bit for bit" : "changed: the glTF's samples");
		}
	}
	if (opt.like && !(orig_frames && orig_frames == ga->num_frames))
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
	eo.sdk = opt.sdk ? opt.sdk : file->sdk;
	eo.max_frames_per_block = opt.max_frames_per_block ? (uint32_t)opt.max_frames_per_block
	                          : mfpb >= 2 && mfpb <= 256  ? (uint32_t)mfpb
	                                                      : 0;
	eo.havok_unguarded = opt.unguarded;
	eo.defaults.translation_tolerance = opt.tol[0];
	eo.defaults.rotation_tolerance = opt.tol[1];
	eo.defaults.scale_tolerance = opt.tol[2];
	eo.defaults.float_tolerance = opt.tol[3];
	eo.defaults.translation_degree = eo.defaults.rotation_degree = eo.defaults.scale_degree =
	    eo.defaults.float_degree = (uint8_t)opt.degree;
	eo.per_track = pal;
	eo.num_per_track = T;
	eo.per_float_track = fpal;
	eo.num_per_float_track = F;
	eo.cpu = opt.cpu;
	eo.solver = opt.solver;
	if (opt.control.use && opt.record_path) {
		fprintf(stderr, "hkspline encode: --record restores the original's bytes; it does not combine with "
		                "--object-tolerance, --bone-tolerance or --optimize size\n");
		goto done;
	}
	if (!cli_error_control_attach(&opt.control, &eo, sk, track_to_bone, T,
	                              opt.skeleton ? opt.skeleton : container_name))
		goto done;
	if (opt.record_path && !opt.like) {
		fprintf(stderr, "hkspline encode: --record needs --like ORIGINAL (the file the record was made of)\n");
		goto done;
	}
	if (cli_encode_frames(&opt, &fin, &eo, ai, &packed) != 0) {
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
	uint8_t *bytes = NULL;
	size_t size = 0;
	int write_status = cli_encode_write_file(&opt, file, &bytes, &size);
	if (write_status == 1) {
		rc = 1;
		goto done;
	}
	bool written = write_status == 0;
	if (written)
		printf("%s: glTF animation '%s' (%u in file): %u frames at %.6g s, %u + %u tracks, %u blocks, %u bytes of "
		       "spline data (SDK %s); root motion %s; wrote %s (%zu bytes)\n",
		       in, ga->name, ga->num_gltf_animations, ga->num_frames, (double)ga->frame_duration, T, F,
		       (unsigned)packed->header.num_blocks, packed->header.data_size, eo.sdk, rm_note, opt.out, size);
	bool bound_missed = false;
	if (written) {
		cli_print_encode_summary(stdout, opt.out, &fin, packed);
		bound_missed = !cli_error_control_print(&opt.control, opt.out);
		fflush(stdout);
	}
	if (written && opt.into)
		rc = cli_place_into_binder(opt.into, opt.name, bytes, size);
	else
		rc = written ? 0 : 2;
	if (rc == 0 && bound_missed)
		rc = 1;
	hks_buffer_free(NULL, bytes, size);
done:
	free(samples);
	free(orig_tr);
	free(orig_fl);
	free(pal);
	free(fpal);
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
	free(into_member);
	hks_loader_free(skel_loader);
	cli_encode_args_free(&opt);
	return rc;
}
