/*
 * hkspline error A B [--skeleton S] [--shell D] [--shell-override 'GLOB=D']...
 *                    [--threshold T] [--json|--csv] [--report summary|detailed|exhaustive]
 *                    [--plot OUT.png] [--animation I] [--compendium P]... [--no-header]
 * hkspline error DIR_A DIR_B [--json|--csv] [-j N] [--no-progress] ...
 *
 * Compares animation B against animation A at every stored frame and every
 * track (hks_compare_frames, docs/METRICS.md). A and B are Havok files
 * (loose, BINDER:MEMBER, or a binder/DCX holding one Havok file) or
 * decoded-frames JSON written by `hkspline decode` (docs/DECODE.md).
 * Object-space error needs a skeleton: --skeleton, else one in A's or B's
 * file, else the one the loader finds beside them, else the JSON's
 * source.skeleton. Exit status 0, or 2 on usage / input errors.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli_donor.h"
#include "cli_units.h"

#include <ctype.h>
#include <jansson.h>
#include <time.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "platform.h"

/* Tracks drawn by --plot. */
#define PLOT_TRACKS 5

typedef enum report_level { REPORT_SUMMARY = 0, REPORT_DETAILED = 1, REPORT_EXHAUSTIVE = 2 } report_level;

/* One side of the comparison. */
typedef struct input {
	const char *arg;
	hks_frames_in frames;
	float *transforms, *floats;
	char **bone_names;            /* from decoded-frames JSON (num_bone_names entries, NULL allowed) */
	uint32_t num_bone_names;
	int has_bone_names;
	char *json_skeleton;          /* source.skeleton of a JSON input */
	hks_loader *loader;
	size_t unit;
	hks_loaded *loaded;           /* Havok input */
	const hks_binding *binding;
	hks_stored_animation *stored; /* spline input: for block seams */
	char message[1024];           /* why decoding failed */
} input;

/* ---- Havok inputs ---- */


/* Decode animation `anim_index` of in->loaded into in->frames; on failure a
 * message in in->message and status 2. */
static int decode_loaded(input *in, uint32_t anim_index)
{
	hks_error err;
	const hks_file *f = in->loaded->file;
	if (anim_index >= f->num_animations) {
		snprintf(in->message, sizeof(in->message), "%s has %u animations (asked for %u)", in->loaded->path,
		         f->num_animations, anim_index);
		return 2;
	}
	const hks_animation *an = &f->animations[anim_index];
	in->binding = cli_binding_for(f, anim_index);
	uint32_t N, T, F;
	if (an->kind == HKS_ANIMATION_SPLINE) {
		hks_walk_options wo;
		memset(&wo, 0, sizeof(wo));
		wo.animation_index = (int32_t)anim_index;
		wo.base.name = in->loaded->path;
		if (hks_stored_read(an, &wo, &in->stored, &err) != HKS_OK) {
			hks_error_format(&err, in->message, sizeof(in->message));
			return 2;
		}
		N = (uint32_t)in->stored->num_frames;
		T = (uint32_t)in->stored->num_transform_tracks;
		F = (uint32_t)in->stored->num_float_tracks;
		in->frames.duration = in->stored->duration;
	} else if (an->kind == HKS_ANIMATION_INTERLEAVED) {
		T = an->number_of_transform_tracks > 0 ? (uint32_t)an->number_of_transform_tracks : 0;
		F = an->number_of_float_tracks > 0 ? (uint32_t)an->number_of_float_tracks : 0;
		N = T ? an->num_transforms / T : (F ? an->num_floats / F : 0);
		in->frames.duration = an->duration;
	} else {
		snprintf(in->message, sizeof(in->message), "%s animation %u (%s) cannot be decoded", in->loaded->path,
		         anim_index, an->class_name ? an->class_name : "?");
		return 2;
	}
	in->transforms = (float *)malloc(((size_t)N * T * HKS_TRACK_SAMPLE_FLOATS + 1) * sizeof(float));
	in->floats = (float *)malloc(((size_t)N * F + 1) * sizeof(float));
	if (!in->transforms || !in->floats) {
		snprintf(in->message, sizeof(in->message), "out of memory for %u frames", N);
		return 2;
	}
	if (in->stored) {
		if (hks_sample_frames(in->stored, NULL, 0, N, in->transforms, in->floats, &err) != HKS_OK) {
			hks_error_format(&err, in->message, sizeof(in->message));
			return 2;
		}
	} else {
		for (size_t i = 0; i < (size_t)N * T; i++) {
			const hks_qs_transform *q = &an->transforms[i];
			float *o = in->transforms + i * HKS_TRACK_SAMPLE_FLOATS;
			memcpy(o, q->translation, 3 * sizeof(float));
			memcpy(o + 3, q->rotation, 4 * sizeof(float));
			memcpy(o + 7, q->scale, 3 * sizeof(float));
		}
		for (size_t i = 0; i < (size_t)N * F && i < an->num_floats; i++)
			in->floats[i] = an->floats[i];
	}
	in->frames.num_frames = N;
	in->frames.num_transform_tracks = T;
	in->frames.num_float_tracks = F;
	in->frames.transforms = in->transforms;
	in->frames.floats = in->floats;
	return 0;
}

static int load_havok(input *in, const hks_load_options *lo, uint32_t anim_index)
{
	hks_error err;
	if (hks_loader_create(lo, &in->loader, &err) != HKS_OK) {
		cli_print_error(&err);
		return 2;
	}
	if (cli_open_unit(in->loader, in->arg, "error", &in->unit))
		return 2;
	if (hks_loader_load(in->loader, in->unit, &in->loaded) != HKS_OK || !in->loaded) {
		fprintf(stderr, "hkspline error: cannot load %s\n", in->arg);
		return 2;
	}
	if (in->loaded->status != HKS_OK) {
		cli_print_error(&in->loaded->error);
		return 2;
	}
	if (decode_loaded(in, anim_index)) {
		fprintf(stderr, "hkspline error: %s\n", in->message);
		return 2;
	}
	return 0;
}

/* ---- decoded-frames JSON inputs (docs/DECODE.md) ---- */

static bool parse_hex_f32(const char *s, float *out)
{
	if (strlen(s) != 8)
		return false;
	uint32_t u = 0;
	for (int i = 0; i < 8; i++) {
		int c = tolower((unsigned char)s[i]);
		if (c >= '0' && c <= '9')
			u = u << 4 | (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			u = u << 4 | (uint32_t)(c - 'a' + 10);
		else
			return false;
	}
	memcpy(out, &u, 4);
	return true;
}

static bool json_f32(const json_t *v, bool hex, float *out)
{
	if (json_is_number(v)) {
		*out = (float)json_number_value(v); /* %.9g text: the f32 round-trips exactly */
		return true;
	}
	if (!json_is_string(v))
		return false;
	const char *s = json_string_value(v);
	if (hex)
		return parse_hex_f32(s, out);
	if (!strcmp(s, "nan"))
		*out = NAN;
	else if (!strcmp(s, "inf"))
		*out = INFINITY;
	else if (!strcmp(s, "-inf"))
		*out = -INFINITY;
	else
		return false;
	return true;
}

static int json_fail(const input *in, const char *what)
{
	fprintf(stderr, "hkspline error: %s: not a decoded-frames JSON: %s\n", in->arg, what);
	return 2;
}

static int load_json(input *in, uint32_t anim_index)
{
	json_error_t jerr;
	json_t *root = json_load_file(in->arg, JSON_DECODE_ANY, &jerr);
	if (!root) {
		fprintf(stderr, "hkspline error: %s: line %d: %s\n", in->arg, jerr.line, jerr.text);
		return 2;
	}
	int rc = 2;
	json_t *source = json_object_get(root, "source");
	bool hex = json_is_true(json_object_get(source, "hex"));
	json_t *sk = json_object_get(source, "skeleton");
	if (json_is_string(sk))
		in->json_skeleton = strdup(json_string_value(sk));
	json_t *anims = json_object_get(root, "animations"), *an = NULL;
	if (!json_is_array(anims)) {
		rc = json_fail(in, "no \"animations\" array");
		goto done;
	}
	for (size_t i = 0; i < json_array_size(anims) && !an; i++) {
		json_t *x = json_array_get(anims, i);
		if (json_integer_value(json_object_get(x, "index")) == (json_int_t)anim_index)
			an = x;
	}
	if (!an) {
		fprintf(stderr, "hkspline error: %s has no animation with index %u\n", in->arg, anim_index);
		goto done;
	}
	json_t *tracks = json_object_get(an, "tracks"), *ftracks = json_object_get(an, "float_tracks");
	json_int_t frames = json_integer_value(json_object_get(an, "frames"));
	if (!json_is_array(tracks) || frames < 0 || frames > HKS_DEFAULT_MAX_FRAMES) {
		rc = json_fail(in, "animation without \"tracks\" or \"frames\"");
		goto done;
	}
	uint32_t N = (uint32_t)frames, T = (uint32_t)json_array_size(tracks);
	uint32_t F = json_is_array(ftracks) ? (uint32_t)json_array_size(ftracks) : 0;
	if ((uint64_t)T + F > HKS_DEFAULT_MAX_TRACKS) {
		rc = json_fail(in, "too many tracks");
		goto done;
	}
	/* checked before allocating: 2^28 floats (1 GiB) is far beyond any clip, and the
	 * row counts are only verified while reading */
	if ((uint64_t)N * ((uint64_t)T * HKS_TRACK_SAMPLE_FLOATS + F) > (UINT64_C(1) << 28)) {
		rc = json_fail(in, "frames x tracks too large");
		goto done;
	}
	json_f32(json_object_get(an, "duration"), hex, &in->frames.duration);
	in->transforms = (float *)malloc(((size_t)N * T * HKS_TRACK_SAMPLE_FLOATS + 1) * sizeof(float));
	in->floats = (float *)malloc(((size_t)N * F + 1) * sizeof(float));
	in->bone_names = (char **)calloc((size_t)T + 1, sizeof(char *));
	in->num_bone_names = in->bone_names ? T : 0;
	if (!in->transforms || !in->floats || !in->bone_names) {
		fprintf(stderr, "hkspline error: out of memory reading %s\n", in->arg);
		goto done;
	}
	static const char *const parts[3] = {"translation", "rotation", "scale"};
	static const unsigned first[3] = {0, 3, 7}, lanes[3] = {3, 4, 3};
	for (uint32_t t = 0; t < T; t++) {
		json_t *tr = json_array_get(tracks, t);
		json_t *bone = json_object_get(tr, "bone");
		if (json_is_string(bone)) {
			in->bone_names[t] = strdup(json_string_value(bone));
			in->has_bone_names = 1;
		}
		for (int p = 0; p < 3; p++) {
			json_t *rows = json_object_get(tr, parts[p]);
			if (!json_is_array(rows) || json_array_size(rows) != N) {
				char msg[128];
				snprintf(msg, sizeof(msg), "track %u: \"%s\" does not have %u rows", t, parts[p], N);
				rc = json_fail(in, msg);
				goto done;
			}
			for (uint32_t f = 0; f < N; f++) {
				json_t *row = json_array_get(rows, f);
				float *o = in->transforms + ((size_t)f * T + t) * HKS_TRACK_SAMPLE_FLOATS + first[p];
				for (unsigned k = 0; k < lanes[p]; k++)
					if (!json_is_array(row) || !json_f32(json_array_get(row, k), hex, &o[k])) {
						char msg[128];
						snprintf(msg, sizeof(msg), "track %u %s frame %u: bad value", t, parts[p], f);
						rc = json_fail(in, msg);
						goto done;
					}
			}
		}
	}
	for (uint32_t i = 0; i < F; i++) {
		json_t *rows = json_array_get(ftracks, i);
		if (!json_is_array(rows) || json_array_size(rows) != N) {
			rc = json_fail(in, "a float track does not have one value per frame");
			goto done;
		}
		for (uint32_t f = 0; f < N; f++)
			if (!json_f32(json_array_get(rows, f), hex, &in->floats[(size_t)f * F + i])) {
				rc = json_fail(in, "bad float track value");
				goto done;
			}
	}
	in->frames.num_frames = N;
	in->frames.num_transform_tracks = T;
	in->frames.num_float_tracks = F;
	in->frames.transforms = in->transforms;
	in->frames.floats = in->floats;
	rc = 0;
done:
	json_decref(root);
	return rc;
}

static bool is_json_path(const char *p)
{
	size_t n = strlen(p);
	return n >= 5 && !strcasecmp(p + n - 5, ".json");
}

static int load_input(input *in, const hks_load_options *lo, uint32_t anim_index)
{
	return is_json_path(in->arg) ? load_json(in, anim_index) : load_havok(in, lo, anim_index);
}

static void free_input(input *in)
{
	free(in->transforms);
	free(in->floats);
	if (in->bone_names)
		for (uint32_t t = 0; t < in->num_bone_names; t++)
			free(in->bone_names[t]);
	free(in->bone_names);
	free(in->json_skeleton);
	hks_stored_free(in->stored);
	if (in->loaded)
		hks_loaded_free(in->loaded);
	hks_loader_free(in->loader);
}

/* ---- the skeleton ---- */

typedef struct skeleton_source {
	hks_loader *loader;
	hks_loaded *loaded;
	const hks_skeleton *skeleton;
	const char *path;
} skeleton_source;


static int load_skeleton_path(skeleton_source *s, const hks_load_options *lo, const char *path,
                              const hks_binding *bind, bool verbose)
{
	hks_error err;
	size_t unit = 0;
	if (hks_loader_create(lo, &s->loader, &err) != HKS_OK)
		return 2;
	if (cli_open_unit(s->loader, path, "error", &unit))
		return 2;
	if (hks_loader_load(s->loader, unit, &s->loaded) != HKS_OK || !s->loaded || s->loaded->status != HKS_OK) {
		if (verbose && s->loaded)
			cli_print_error(&s->loaded->error);
		return 2;
	}
	s->skeleton = cli_pick_skeleton(s->loaded->file, NULL, bind);
	if (!s->skeleton) {
		if (verbose)
			fprintf(stderr, "hkspline error: %s holds no skeleton\n", path);
		return 2;
	}
	s->path = s->loaded->path;
	return 0;
}

/* --skeleton, else a skeleton in A's or B's file, else the loader's find
 * (same binder, then folder), else a JSON input's source.skeleton. */
static int resolve_skeleton(skeleton_source *s, const hks_load_options *lo, const char *given, input *in[2])
{
	const hks_binding *bind = in[0]->binding ? in[0]->binding : in[1]->binding;
	if (given)
		return load_skeleton_path(s, lo, given, bind, true);
	for (int k = 0; k < 2; k++)
		if (in[k]->loaded && (s->skeleton = cli_pick_skeleton(in[k]->loaded->file, NULL, bind))) {
			s->path = in[k]->loaded->path;
			return 0;
		}
	for (int k = 0; k < 2; k++)
		if (in[k]->loader && hks_loader_find_skeleton(in[k]->loader, in[k]->unit, &s->loaded) == HKS_OK &&
		    s->loaded) {
			if (s->loaded->status == HKS_OK && (s->skeleton = cli_pick_skeleton(s->loaded->file, NULL, bind))) {
				s->path = s->loaded->path;
				return 0;
			}
			hks_loaded_free(s->loaded);
			s->loaded = NULL;
		}
	for (int k = 0; k < 2; k++)
		if (in[k]->json_skeleton) {
			skeleton_source t;
			memset(&t, 0, sizeof(t));
			if (load_skeleton_path(&t, lo, in[k]->json_skeleton, bind, false) == 0) {
				*s = t;
				return 0;
			}
			if (t.loaded)
				hks_loaded_free(t.loaded);
			hks_loader_free(t.loader);
		}
	return 0; /* none: local metrics only */
}

/* The track → bone map: the binding of a Havok input; for JSON inputs the bone
 * names looked up in the skeleton. NULL means the identity. */
static int16_t *track_map(input *in[2], const hks_skeleton *sk, uint32_t T, uint32_t *count)
{
	*count = 0;
	for (int k = 0; k < 2; k++)
		if (in[k]->binding && in[k]->binding->num_transform_track_to_bone_indices) {
			*count = in[k]->binding->num_transform_track_to_bone_indices;
			int16_t *m = (int16_t *)malloc(*count * sizeof(int16_t));
			if (m)
				memcpy(m, in[k]->binding->transform_track_to_bone_indices, *count * sizeof(int16_t));
			return m;
		}
	for (int k = 0; k < 2; k++)
		if (sk && in[k]->has_bone_names) {
			int16_t *m = (int16_t *)malloc(((size_t)T + 1) * sizeof(int16_t));
			if (!m)
				return NULL;
			for (uint32_t t = 0; t < T; t++) {
				m[t] = -1;
				for (uint32_t b = 0; in[k]->bone_names[t] && b < sk->num_bones && b < 32768; b++)
					if (sk->bone_names[b] && !strcmp(sk->bone_names[b], in[k]->bone_names[t])) {
						m[t] = (int16_t)b;
						break;
					}
			}
			*count = T;
			return m;
		}
	return NULL;
}

/* ---- names ---- */

typedef struct names {
	const hks_compare_result *r;
	const hks_skeleton *sk;
	input *in[2];
} names;

static const char *bone_name(const names *n, int32_t bone, int32_t track)
{
	if (n->sk && bone >= 0 && (uint32_t)bone < n->sk->num_bones && n->sk->bone_names)
		return n->sk->bone_names[bone];
	for (int k = 0; k < 2 && track >= 0; k++)
		if (n->in[k]->bone_names && (uint32_t)track < n->in[k]->frames.num_transform_tracks &&
		    n->in[k]->bone_names[track])
			return n->in[k]->bone_names[track];
	return NULL;
}

/* ---- output ---- */

static const char *nz(const char *s) { return s ? s : ""; }

static void json_opt_f64(cli_json *j, bool present, double v)
{
	if (present)
		cli_json_f64(j, v);
	else
		cli_json_null(j);
}

/* An index, or null when there is none (negative). */
static void json_opt_index(cli_json *j, int32_t v)
{
	if (v >= 0)
		cli_json_int(j, v);
	else
		cli_json_null(j);
}

/* The largest finite value of column `col` of a frames × `width` matrix and
 * its first frame (*worst_frame -1 when no value is finite); *non_finite
 * counts the others (NaN, inf: excluded samples) when not NULL. */
static double column_max(const double *values, uint32_t frames, uint32_t width, uint32_t col, int32_t *worst_frame,
                         uint64_t *non_finite)
{
	double mx = 0;
	*worst_frame = -1;
	for (uint32_t f = 0; f < frames; f++) {
		double v = values[(size_t)f * width + col];
		if (!isfinite(v)) {
			if (non_finite)
				(*non_finite)++;
		} else if (*worst_frame < 0 || v > mx) {
			mx = v;
			*worst_frame = (int32_t)f;
		}
	}
	return mx;
}

static void json_metric(cli_json *j, const hks_metric_summary *m)
{
	cli_json_begin_object(j);
	cli_json_key(j, "max");
	cli_json_f64(j, m->max);
	cli_json_key(j, "mean");
	cli_json_f64(j, m->mean);
	cli_json_key(j, "p99");
	cli_json_f64(j, m->p99);
	cli_json_key(j, "worst_index");
	cli_json_int(j, m->worst_index);
	cli_json_key(j, "worst_frame");
	cli_json_int(j, m->worst_frame);
	cli_json_key(j, "samples");
	cli_json_uint(j, m->samples);
	cli_json_key(j, "nan_samples");
	cli_json_uint(j, m->nan_samples);
	cli_json_key(j, "under_threshold");
	cli_json_uint(j, m->under_threshold);
	cli_json_end_object(j);
}

static void json_seams(cli_json *j, const hks_seam_report *s)
{
	cli_json_begin_object(j);
	cli_json_key(j, "seams");
	cli_json_uint(j, s->seams);
	cli_json_key(j, "max_translation");
	cli_json_f64(j, s->max_translation);
	cli_json_key(j, "max_rotation_deg");
	cli_json_f64(j, s->max_rotation_deg);
	cli_json_key(j, "max_rotation_component");
	cli_json_f64(j, s->max_rotation_component);
	cli_json_key(j, "max_scale");
	cli_json_f64(j, s->max_scale);
	cli_json_key(j, "max_float");
	cli_json_f64(j, s->max_float);
	cli_json_key(j, "worst_seam_block");
	cli_json_int(j, s->worst_seam);
	cli_json_key(j, "worst_track");
	cli_json_int(j, s->worst_track);
	cli_json_key(j, "nan_samples");
	cli_json_uint(j, s->nan_samples);
	cli_json_end_object(j);
}

/* The metrics of one matrix cell as a JSON number, or null when excluded. */
static void json_cell(cli_json *j, double v)
{
	if (isfinite(v))
		cli_json_f64(j, v);
	else
		cli_json_null(j);
}

static void write_json(FILE *out, const names *n, const char *skeleton_path, double shell, double threshold,
                       const hks_seam_report seams[2], const bool has_seams[2], report_level level, bool pretty)
{
	const hks_compare_result *r = n->r;
	cli_json j;
	cli_json_init(&j, out, pretty && level != REPORT_EXHAUSTIVE);
	cli_json_begin_object(&j);
	cli_json_key(&j, "a");
	cli_json_string(&j, n->in[0]->arg);
	cli_json_key(&j, "b");
	cli_json_string(&j, n->in[1]->arg);
	cli_json_key(&j, "skeleton");
	cli_json_string(&j, skeleton_path);
	cli_json_key(&j, "frames");
	cli_json_uint(&j, r->num_frames);
	cli_json_key(&j, "tracks");
	cli_json_uint(&j, r->num_transform_tracks);
	cli_json_key(&j, "float_tracks");
	cli_json_uint(&j, r->num_float_tracks);
	cli_json_key(&j, "max_translation");
	cli_json_f64(&j, r->metric[HKS_METRIC_TRANSLATION].max);
	cli_json_key(&j, "max_rotation_deg");
	cli_json_f64(&j, r->metric[HKS_METRIC_ROTATION_DEG].max);
	cli_json_key(&j, "max_rotation_component");
	cli_json_f64(&j, r->metric[HKS_METRIC_ROTATION_COMPONENT].max);
	cli_json_key(&j, "max_scale");
	cli_json_f64(&j, r->metric[HKS_METRIC_SCALE].max);
	cli_json_key(&j, "max_float");
	cli_json_f64(&j, r->metric[HKS_METRIC_FLOAT].max);
	cli_json_key(&j, "max_local_vertex");
	cli_json_f64(&j, r->metric[HKS_METRIC_LOCAL_VERTEX].max);
	cli_json_key(&j, "max_object_space");
	json_opt_f64(&j, r->has_object_space, r->metric[HKS_METRIC_OBJECT_SPACE].max);
	cli_json_key(&j, "mean_object_space");
	json_opt_f64(&j, r->has_object_space, r->metric[HKS_METRIC_OBJECT_SPACE].mean);
	cli_json_key(&j, "p99_object_space");
	json_opt_f64(&j, r->has_object_space, r->metric[HKS_METRIC_OBJECT_SPACE].p99);
	cli_json_key(&j, "primary");
	cli_json_string(&j, hks_metric_name(r->primary));
	cli_json_key(&j, "threshold");
	cli_json_f64(&j, threshold);
	cli_json_key(&j, "shell");
	cli_json_f64(&j, shell);
	cli_json_key(&j, "under_threshold");
	cli_json_f64(&j, r->under_threshold);
	cli_json_key(&j, "worst_track");
	json_opt_index(&j, r->worst_track);
	cli_json_key(&j, "worst_bone");
	cli_json_string(&j, bone_name(n, r->worst_bone, r->worst_track));
	cli_json_key(&j, "worst_bone_index");
	json_opt_index(&j, r->worst_bone);
	cli_json_key(&j, "worst_frame");
	json_opt_index(&j, r->worst_frame);
	cli_json_key(&j, "nan_samples");
	cli_json_uint(&j, r->nan_samples);
	cli_json_key(&j, "metrics");
	cli_json_begin_object(&j);
	for (int m = 0; m < HKS_METRIC_COUNT; m++) {
		if (m == HKS_METRIC_OBJECT_SPACE && !r->has_object_space)
			continue;
		cli_json_key(&j, hks_metric_name((hks_metric)m));
		json_metric(&j, &r->metric[m]);
	}
	cli_json_end_object(&j);
	cli_json_key(&j, "seams");
	cli_json_begin_object(&j);
	for (int k = 0; k < 2; k++) {
		cli_json_key(&j, k ? "b" : "a");
		if (has_seams[k])
			json_seams(&j, &seams[k]);
		else
			cli_json_null(&j);
	}
	cli_json_end_object(&j);
	if (level >= REPORT_DETAILED) {
		/* per track: the max of every local metric and where it is */
		static const hks_metric local[5] = {HKS_METRIC_TRANSLATION, HKS_METRIC_ROTATION_DEG,
		                                    HKS_METRIC_ROTATION_COMPONENT, HKS_METRIC_SCALE,
		                                    HKS_METRIC_LOCAL_VERTEX};
		cli_json_key(&j, "per_track");
		cli_json_begin_array(&j);
		for (uint32_t t = 0; t < r->num_transform_tracks; t++) {
			cli_json_begin_object(&j);
			cli_json_key(&j, "track");
			cli_json_uint(&j, t);
			cli_json_key(&j, "bone");
			cli_json_string(&j, bone_name(n, r->track_bone[t], (int32_t)t));
			cli_json_key(&j, "bone_index");
			cli_json_int(&j, r->track_bone[t]);
			for (int k = 0; k < 5; k++) {
				int32_t wf;
				uint64_t nan = 0;
				double mx = column_max(r->values[local[k]], r->num_frames, r->num_transform_tracks, t, &wf, &nan);
				char key[64];
				snprintf(key, sizeof(key), "max_%s", hks_metric_name(local[k]));
				cli_json_key(&j, key);
				cli_json_f64(&j, mx);
				if (local[k] == HKS_METRIC_LOCAL_VERTEX) {
					cli_json_key(&j, "worst_frame");
					cli_json_int(&j, wf);
					cli_json_key(&j, "nan_samples");
					cli_json_uint(&j, nan);
				}
			}
			cli_json_end_object(&j);
		}
		cli_json_end_array(&j);
		if (r->has_object_space) {
			cli_json_key(&j, "per_bone");
			cli_json_begin_array(&j);
			for (uint32_t b = 0; b < r->num_bones; b++) {
				int32_t wf;
				double mx = column_max(r->values[HKS_METRIC_OBJECT_SPACE], r->num_frames, r->num_bones, b, &wf, NULL);
				cli_json_begin_object(&j);
				cli_json_key(&j, "bone");
				cli_json_string(&j, bone_name(n, (int32_t)b, -1));
				cli_json_key(&j, "bone_index");
				cli_json_uint(&j, b);
				cli_json_key(&j, "track");
				cli_json_int(&j, r->bone_track[b]);
				cli_json_key(&j, "shell");
				cli_json_f64(&j, r->bone_shell[b]);
				cli_json_key(&j, "max_object_space");
				cli_json_f64(&j, mx);
				cli_json_key(&j, "worst_frame");
				cli_json_int(&j, wf);
				cli_json_end_object(&j);
			}
			cli_json_end_array(&j);
		}
	}
	if (level >= REPORT_EXHAUSTIVE) {
		/* frames × tracks (bones for object space, float tracks for float): null = excluded */
		cli_json_key(&j, "matrices");
		cli_json_begin_object(&j);
		for (int m = 0; m < HKS_METRIC_COUNT; m++) {
			if (!r->values[m])
				continue;
			uint32_t w = m == HKS_METRIC_OBJECT_SPACE ? r->num_bones
			             : m == HKS_METRIC_FLOAT      ? r->num_float_tracks
			                                          : r->num_transform_tracks;
			cli_json_key(&j, hks_metric_name((hks_metric)m));
			cli_json_begin_array(&j);
			for (uint32_t f = 0; f < r->num_frames; f++) {
				fputc('\n', out);
				cli_json_begin_array(&j);
				for (uint32_t i = 0; i < w; i++)
					json_cell(&j, r->values[m][(size_t)f * w + i]);
				cli_json_end_array(&j);
			}
			cli_json_end_array(&j);
		}
		cli_json_end_object(&j);
	}
	cli_json_end_object(&j);
	fputc('\n', out);
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
static void write_csv_row(FILE *out, const char *a, const char *b, long animation, const names *n, const char *error)
{
	csv_field_sep(out, a, true);
	csv_field(out, b);
	fprintf(out, ",%ld", animation);
	if (!n) {
		fputs(",,,,,,,,,,,,,,,,,", out);
		csv_field(out, error);
		fputc('\n', out);
		return;
	}
	const hks_compare_result *r = n->r;
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
	csv_field(out, bone_name(n, r->worst_bone, r->worst_track));
	fprintf(out, ",%d,%llu,\n", (int)r->worst_frame, (unsigned long long)r->nan_samples);
}

static void write_text(FILE *out, const names *n, const char *skeleton_path, double threshold,
                       const hks_seam_report seams[2], const bool has_seams[2])
{
	const hks_compare_result *r = n->r;
	fprintf(out, "%u frames, %u tracks, %u float tracks; skeleton: %s\n", r->num_frames, r->num_transform_tracks,
	        r->num_float_tracks, skeleton_path ? skeleton_path : "none (local metrics only)");
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
			fprintf(out, "bone %d %s @ %d\n", (int)s->worst_index, nz(bone_name(n, s->worst_index, -1)),
			        (int)s->worst_frame);
		else if (m == HKS_METRIC_FLOAT)
			fprintf(out, "float track %d @ %d\n", (int)s->worst_index, (int)s->worst_frame);
		else
			fprintf(out, "track %d %s @ %d\n", (int)s->worst_index,
			        nz(bone_name(n, r->track_bone[s->worst_index], s->worst_index)), (int)s->worst_frame);
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

static int write_plot(const char *png, const names *n)
{
	const hks_compare_result *r = n->r;
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
	snprintf(title, sizeof(title), "%s vs %s: worst %s", n->in[1]->arg, n->in[0]->arg,
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
		const char *name = m == HKS_METRIC_OBJECT_SPACE ? bone_name(n, pick[k], -1)
		                                                 : bone_name(n, r->track_bone[pick[k]], pick[k]);
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

typedef struct folder_pair {
	size_t a_unit, b_unit;
	char *out;          /* this pair's rows (CSV), objects (JSON) or lines (text) */
	size_t out_size;
	unsigned compared, failed;
} folder_pair;

typedef struct folder_job {
	hks_loader *la, *lb;
	folder_pair *pairs;
	size_t count;
	struct skeleton_cache *caches; /* one per pool worker */
	const hks_skeleton *skeleton;  /* --skeleton, shared; else per pair */
	hks_compare_options co;        /* shell, overrides, threshold */
	bool csv, json;
} folder_job;

typedef struct skeleton_cache {
	hks_loaded *loaded;
	char dir[1024];
	bool valid;
} skeleton_cache;

/* The skeleton the loader finds beside unit `u` of A, cached per folder. */
static const hks_skeleton *cached_skeleton(folder_job *J, size_t u, skeleton_cache *c, const hks_binding *bind)
{
	const char *path = hks_loader_path(J->la, u);
	const char *slash = path ? strrchr(path, '/') : NULL;
	size_t dlen = slash ? (size_t)(slash - path) : 0;
	if (!c->valid || dlen >= sizeof(c->dir) || strncmp(c->dir, path, dlen) || c->dir[dlen]) {
		if (c->loaded)
			hks_loaded_free(c->loaded);
		c->loaded = NULL;
		if (hks_loader_find_skeleton(J->la, u, &c->loaded) != HKS_OK || (c->loaded && c->loaded->status != HKS_OK)) {
			if (c->loaded)
				hks_loaded_free(c->loaded);
			c->loaded = NULL;
		}
		snprintf(c->dir, sizeof(c->dir), "%.*s", (int)dlen, path ? path : "");
		c->valid = true;
	}
	return c->loaded ? cli_pick_skeleton(c->loaded->file, NULL, bind) : NULL;
}

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

static void folder_compare_one(folder_job *J, size_t k, skeleton_cache *cache)
{
	folder_pair *p = &J->pairs[k];
	FILE *out = hks_platform_open_memstream(&p->out, &p->out_size);
	if (!out)
		return;
	const char *pa = hks_loader_path(J->la, p->a_unit), *pb = hks_loader_path(J->lb, p->b_unit);
	hks_loaded *la = NULL, *lb = NULL;
	hks_loader_load(J->la, p->a_unit, &la);
	hks_loader_load(J->lb, p->b_unit, &lb);
	const hks_loaded *bad = !la || la->status != HKS_OK ? la : (!lb || lb->status != HKS_OK ? lb : NULL);
	if (!la || !lb || bad) {
		char msg[1024] = "cannot load";
		if (bad)
			hks_error_format(&bad->error, msg, sizeof(msg));
		p->failed++;
		if (J->csv)
			write_csv_row(out, pa, pb, -1, NULL, msg);
		else if (J->json)
			json_pair_failure(out, pa, pb, -1, msg);
		else
			fprintf(out, "FAIL %s: %s\n", pa, msg);
		goto done;
	}
	for (uint32_t ai = 0; ai < la->file->num_animations; ai++) {
		hks_animation_kind kind = la->file->animations[ai].kind;
		if (kind != HKS_ANIMATION_SPLINE && kind != HKS_ANIMATION_INTERLEAVED)
			continue;
		input a, b;
		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		a.arg = pa;
		b.arg = pb;
		a.loaded = la;
		b.loaded = lb;
		hks_compare_result *res = NULL;
		char msg[1024] = "";
		if (decode_loaded(&a, ai))
			snprintf(msg, sizeof(msg), "%s", a.message);
		else if (decode_loaded(&b, ai))
			snprintf(msg, sizeof(msg), "%s", b.message);
		const hks_skeleton *sk = NULL;
		int16_t *map = NULL;
		if (!msg[0]) {
			input *in[2] = {&a, &b};
			const hks_binding *bind = a.binding ? a.binding : b.binding;
			sk = J->skeleton ? J->skeleton : cli_pick_skeleton(la->file, NULL, bind);
			if (!sk)
				sk = cached_skeleton(J, p->a_unit, cache, bind);
			uint32_t nmap = 0;
			map = track_map(in, sk, a.frames.num_transform_tracks, &nmap);
			hks_compare_options co = J->co;
			co.skeleton = sk;
			co.track_to_bone = map;
			co.num_track_to_bone = map ? nmap : 0;
			hks_error err;
			if (hks_compare_frames(&a.frames, &b.frames, &co, &res, &err) != HKS_OK)
				hks_error_format(&err, msg, sizeof(msg));
		}
		names nm = {res, sk, {&a, &b}};
		if (msg[0])
			p->failed++;
		else
			p->compared++;
		if (J->csv)
			write_csv_row(out, pa, pb, ai, msg[0] ? NULL : &nm, msg);
		else if (J->json) {
			if (msg[0]) {
				json_pair_failure(out, pa, pb, (int64_t)ai, msg);
			} else {
				hks_seam_report seams[2]; /* folder mode reports no seams (has[] false) */
				memset(seams, 0, sizeof(seams));
				bool has[2] = {false, false};
				write_json(out, &nm, NULL, J->co.shell_distance, J->co.threshold, seams, has, REPORT_SUMMARY, false);
			}
		} else if (msg[0])
			fprintf(out, "FAIL %s animation %u: %s\n", pa, ai, msg);
		else {
			char line[1024];
			hks_compare_summary_line(res, NULL, sk, line, sizeof(line));
			fprintf(out, "%s #%u: %s\n", pa, ai, line);
		}
		hks_compare_result_free(res);
		free(map);
		a.loaded = b.loaded = NULL; /* owned here */
		free_input(&a);
		free_input(&b);
	}
done:
	hks_platform_close_memstream(out);
	if (la)
		hks_loaded_free(la);
	if (lb)
		hks_loaded_free(lb);
}

/* A pool task: pair k, with the skeleton cache of the thread that runs it. */
static void folder_work(void *ctx, size_t worker, size_t k)
{
	folder_job *J = (folder_job *)ctx;
	folder_compare_one(J, k, &J->caches[worker]);
}

static bool is_directory(const char *p)
{
	return hks_platform_path_kind(p) == HKS_PATH_DIR;
}

/* The part of a loader display path below the folder given on the command line. */
static const char *below(const char *path, const char *root)
{
	size_t n = strlen(root);
	while (n > 1 && root[n - 1] == '/')
		n--;
	if (path && !strncmp(path, root, n)) {
		path += n;
		while (*path == '/')
			path++;
	}
	return path ? path : "";
}

static int compare_folders(const char *dir_a, const char *dir_b, const hks_load_options *lo,
                           const hks_skeleton *skeleton, const hks_compare_options *base, bool csv, bool json,
                           bool header, long jobs, bool progress)
{
	folder_job J;
	memset(&J, 0, sizeof(J));
	hks_error err;
	int rc = 2;
	if (hks_loader_create(lo, &J.la, &err) != HKS_OK || hks_loader_add_path(J.la, dir_a, &err) != HKS_OK ||
	    hks_loader_create(lo, &J.lb, &err) != HKS_OK || hks_loader_add_path(J.lb, dir_b, &err) != HKS_OK) {
		cli_print_error(&err);
		goto done;
	}
	size_t na = hks_loader_count(J.la), nb = hks_loader_count(J.lb);
	J.pairs = (folder_pair *)calloc(na + 1, sizeof(folder_pair));
	if (!J.pairs)
		goto done;
	size_t unmatched = 0;
	for (size_t i = 0; i < na; i++) {
		const char *ra = below(hks_loader_path(J.la, i), dir_a);
		size_t found = nb;
		for (size_t k = 0; k < nb && found == nb; k++)
			if (!strcmp(ra, below(hks_loader_path(J.lb, k), dir_b)))
				found = k;
		if (found == nb) {
			unmatched++;
			continue;
		}
		J.pairs[J.count].a_unit = i;
		J.pairs[J.count].b_unit = found;
		J.count++;
	}
	if (unmatched)
		fprintf(stderr, "hkspline error: %zu of %zu files of %s have no counterpart in %s\n", unmatched, na, dir_a,
		        dir_b);
	J.skeleton = skeleton;
	J.co = *base;
	J.csv = csv;
	J.json = json;
	size_t threads = jobs > 0 ? (size_t)jobs : 1;
	J.caches = (skeleton_cache *)calloc(threads, sizeof(skeleton_cache));
	if (!J.caches)
		goto done;
	cli_pool pool;
	memset(&pool, 0, sizeof(pool));
	pool.count = J.count;
	pool.threads = threads;
	pool.progress = progress;
	pool.label = "pairs";
	pool.ctx = &J;
	pool.work = folder_work;
	cli_pool_run(&pool);
	for (size_t t = 0; t < threads; t++)
		if (J.caches[t].loaded)
			hks_loaded_free(J.caches[t].loaded);
	unsigned compared = 0, failed = 0;
	if (csv && header)
		fputs(csv_columns, stdout);
	if (json)
		fputs("[\n", stdout);
	bool first = true;
	for (size_t k = 0; k < J.count; k++) {
		folder_pair *p = &J.pairs[k];
		compared += p->compared;
		failed += p->failed;
		if (!p->out || !p->out_size)
			continue;
		if (json) {
			/* each pair wrote whole objects separated by newlines: join them with commas */
			char *line = p->out, *end = p->out + p->out_size;
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
			fwrite(p->out, 1, p->out_size, stdout);
	}
	if (json)
		fputs("\n]\n", stdout);
	if (!csv && !json)
		printf("%u animations compared, %u failed, %zu files without a counterpart\n", compared, failed, unmatched);
	fflush(stdout);
	rc = failed ? 1 : 0;
done:
	for (size_t k = 0; J.pairs && k < J.count; k++)
		free(J.pairs[k].out);
	free(J.pairs);
	free(J.caches);
	hks_loader_free(J.la);
	hks_loader_free(J.lb);
	return rc;
}

/* ---- arguments ---- */

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: hkspline error A B [--skeleton S] [--shell 0.03] [--shell-override 'GLOB=D']...\n"
	        "                      [--threshold 0.0001] [--json|--csv] [--report summary|detailed|exhaustive]\n"
	        "                      [--plot OUT.png] [--animation I] [--compendium P]... [--no-header]\n"
	        "       hkspline error DIR_A DIR_B [--json|--csv] [-j N] [--no-progress] [options above]\n"
	        "Compare animation B against A at every frame and track: local translation (m), rotation\n"
	        "(degrees and Havok's 4-D component distance), scale, float tracks; with a skeleton, ACL's\n"
	        "object-space virtual-vertex error (m). A and B: Havok files, BINDER:MEMBER, or decoded-frames\n"
	        "JSON from 'hkspline decode'. Two folders: every file below A against the file at the same\n"
	        "relative path below B, every animation, one summary each. See docs/METRICS.md.\n");
}

static bool parse_positive(const char *s, double *out)
{
	char *end = NULL;
	double v = strtod(s, &end);
	if (!s[0] || *end || !(v > 0) || !isfinite(v))
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
	bool json = false, csv = false, csv_header = true, progress = true;
	long jobs = 0;
	report_level level = REPORT_SUMMARY;
	long anim_index = 0;
	int rc = 2;
	input a, b;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	skeleton_source sks;
	memset(&sks, 0, sizeof(sks));
	hks_compare_result *res = NULL;
	int16_t *map = NULL;
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
		else if ((!strcmp(arg, "-j") || !strcmp(arg, "--jobs")) && v) {
			char *end = NULL;
			jobs = strtol(argv[++i], &end, 10);
			if (!end || *end || jobs < 1 || jobs > 1024) {
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
				level = REPORT_SUMMARY;
			else if (!strcmp(l, "detailed"))
				level = REPORT_DETAILED;
			else if (!strcmp(l, "exhaustive"))
				level = REPORT_EXHAUSTIVE;
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
	hks_load_options lo;
	memset(&lo, 0, sizeof(lo));
	lo.compendium_paths = comps;
	lo.num_compendium_paths = ncomps;
	if (is_directory(paths[0]) && is_directory(paths[1])) {
		/* folder mode: every file of A against the file at the same place below B */
		if (level != REPORT_SUMMARY || plot) {
			fprintf(stderr, "hkspline error: folders are compared with summaries only (no --report levels, no --plot)\n");
			goto done;
		}
		if (skeleton && load_skeleton_path(&sks, &lo, skeleton, NULL, true))
			goto done;
		if (jobs == 0) {
			jobs = hks_platform_cpu_count();
		}
		hks_compare_options fo;
		memset(&fo, 0, sizeof(fo));
		fo.shell_distance = shell;
		fo.shell_overrides = ovr;
		fo.num_shell_overrides = (uint32_t)novr;
		fo.threshold = threshold;
		rc = compare_folders(paths[0], paths[1], &lo, sks.skeleton, &fo, csv, json, csv_header, jobs, progress);
		goto done;
	}
	a.arg = paths[0];
	b.arg = paths[1];
	if (load_input(&a, &lo, (uint32_t)anim_index) || load_input(&b, &lo, (uint32_t)anim_index))
		goto done;
	input *in[2] = {&a, &b};
	if (resolve_skeleton(&sks, &lo, skeleton, in))
		goto done;
	uint32_t nmap = 0;
	map = track_map(in, sks.skeleton, a.frames.num_transform_tracks, &nmap);
	hks_compare_options co;
	memset(&co, 0, sizeof(co));
	co.skeleton = sks.skeleton;
	co.track_to_bone = map;
	co.num_track_to_bone = map ? nmap : 0;
	co.shell_distance = shell;
	co.shell_overrides = ovr;
	co.num_shell_overrides = (uint32_t)novr;
	co.threshold = threshold;
	hks_error err;
	if (hks_compare_frames(&a.frames, &b.frames, &co, &res, &err) != HKS_OK) {
		cli_print_error(&err);
		goto done;
	}
	hks_seam_report seams[2];
	bool has_seams[2] = {false, false};
	for (int k = 0; k < 2; k++)
		if (in[k]->stored) {
			if (hks_seam_disagreement(in[k]->stored, NULL, &seams[k], &err) == HKS_OK)
				has_seams[k] = true;
			else
				cli_print_error(&err);
		}
	names nm = {res, sks.skeleton, {&a, &b}};
	if (csv) {
		if (csv_header)
			fputs(csv_columns, stdout);
		write_csv_row(stdout, a.arg, b.arg, anim_index, &nm, NULL);
	} else if (json)
		write_json(stdout, &nm, sks.path, shell, threshold, seams, has_seams, level, true);
	else
		write_text(stdout, &nm, sks.path, threshold, seams, has_seams);
	fflush(stdout);
	rc = 0;
	if (plot && write_plot(plot, &nm))
		rc = 2;
done:
	hks_compare_result_free(res);
	free(map);
	if (sks.loaded)
		hks_loaded_free(sks.loaded);
	hks_loader_free(sks.loader);
	free_input(&a);
	free_input(&b);
	for (size_t i = 0; ovr_text && i < novr; i++)
		free(ovr_text[i]);
	free(ovr_text);
	free(ovr);
	free(comps);
	return rc;
}
