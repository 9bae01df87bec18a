/*
 * The decoded-frames JSON of `hkspline decode` (docs/DECODE.md): reader
 * (hks_frames_json_read, for `error`, `encode` and the Python binding) and
 * writer (hks_frames_json_write, the bytes `decode -o OUT.json` writes).
 *
 * Hostile input: sizes are checked before anything is allocated, against the
 * limits and against the document itself (every value takes at least two
 * bytes of text, so frames x values can never exceed the input's size), and
 * the index must be an integer in 0 .. INT32_MAX.
 */
#include "internal.h"
#include "json_write.h"

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>

/* A failure in animations[anim], at transform track `track` (-1: none, and for float tracks, whose messages name
 * them: the location's "track N" reads as a transform track); the location names the track, so messages do not
 * repeat it. */
static hks_result fail_at(hks_ctx *ctx, uint32_t anim, int32_t track, const char *fmt, ...) HKS_PRINTF(4, 5);

static hks_result fail_at(hks_ctx *ctx, uint32_t anim, int32_t track, const char *fmt, ...)
{
	hks_err_object(ctx, "animations[%u]", anim);
	hks_err_location(ctx, -1, -1, track, HKS_PART_NONE);
	va_list ap;
	va_start(ap, fmt);
	hks_result r = hks_failv(ctx, HKS_E_MALFORMED, -1, fmt, ap);
	va_end(ap);
	return r;
}

/* A float: a number, "nan" / "inf" / "-inf", or 8 hex digits (the bit pattern). */
static bool json_f32(const json_t *v, float *out)
{
	if (json_is_number(v)) {
		*out = (float)json_number_value(v); /* %.9g text: the f32 round-trips exactly ("-0" too) */
		return true;
	}
	if (!json_is_string(v))
		return false;
	const char *s = json_string_value(v);
	if (!strcmp(s, "nan"))
		*out = NAN;
	else if (!strcmp(s, "inf"))
		*out = INFINITY;
	else if (!strcmp(s, "-inf"))
		*out = -INFINITY;
	else {
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
		*out = hks_f32_from_bits(u);
	}
	return true;
}

/* An integer in 0 .. max: integers are parsed as reals (JSON_DECODE_INT_AS_REAL,
 * so that "-0" keeps its sign), hence any integral number. */
static bool json_count(const json_t *v, double max, uint64_t *out)
{
	if (!json_is_number(v))
		return false;
	double d = json_number_value(v);
	if (!(d >= 0 && d <= max) || d != floor(d))
		return false;
	*out = (uint64_t)d;
	return true;
}

static const char *dup_str(hks_arena *a, const json_t *v, bool *nomem)
{
	if (!json_is_string(v))
		return NULL;
	char *s = hks_arena_strdup(a, json_string_value(v));
	if (!s)
		*nomem = true;
	return s;
}

static hks_result read_animation(hks_ctx *ctx, hks_arena *arena, const json_t *an, uint32_t ai, size_t doc_size,
                                 hks_decoded *d)
{
	uint64_t index = 0, N = 0;
	if (!json_count(json_object_get(an, "index"), (double)INT32_MAX, &index))
		return fail_at(ctx, ai, -1, "\"index\" must be an integer from 0 to %d", INT32_MAX);
	d->index = (uint32_t)index;
	const json_t *tracks = json_object_get(an, "tracks"), *ftracks = json_object_get(an, "float_tracks");
	if (!json_count(json_object_get(an, "frames"), (double)ctx->limits.max_frames, &N))
		return fail_at(ctx, ai, -1, "\"frames\" must be an integer from 0 to %u", ctx->limits.max_frames);
	if (!json_is_array(tracks))
		return fail_at(ctx, ai, -1, "no \"tracks\" array");
	if (ftracks && !json_is_array(ftracks))
		return fail_at(ctx, ai, -1, "\"float_tracks\" is not an array");
	if (!json_f32(json_object_get(an, "duration"), &d->duration))
		return fail_at(ctx, ai, -1, "\"duration\" is not a float");
	const json_t *fd = json_object_get(an, "frame_duration");
	if (fd && !json_f32(fd, &d->frame_duration))
		return fail_at(ctx, ai, -1, "\"frame_duration\" is not a float");
	uint64_t T = json_array_size(tracks);
	uint64_t F = ftracks ? json_array_size(ftracks) : 0;
	if (T + F > ctx->limits.max_tracks)
		return fail_at(ctx, ai, -1, "%llu tracks exceed the limit of %u", (unsigned long long)(T + F),
		               ctx->limits.max_tracks);
	/* every value is at least one character and a separator: more values than
	 * half the document's bytes cannot be there (checked before allocating) */
	uint64_t values = N * (T * HKS_TRACK_SAMPLE_FLOATS + F);
	if (values > doc_size / 2 + 1)
		return fail_at(ctx, ai, -1, "%llu frames x %llu + %llu tracks cannot fit in %zu bytes of JSON",
		               (unsigned long long)N, (unsigned long long)T, (unsigned long long)F, doc_size);
	if (values * sizeof(float) > ctx->limits.max_output_bytes)
		return hks_fail(ctx, HKS_E_LIMIT, -1, "%llu decoded values exceed the output limit",
		                (unsigned long long)values);
	d->num_frames = (uint32_t)N;
	d->num_transform_tracks = (uint32_t)T;
	d->num_float_tracks = (uint32_t)F;
	d->transforms = (float *)hks_arena_array(arena, (size_t)(N * T * HKS_TRACK_SAMPLE_FLOATS) + 1, sizeof(float));
	d->floats = (float *)hks_arena_array(arena, (size_t)(N * F) + 1, sizeof(float));
	d->bone_names = (const char **)hks_arena_array(arena, (size_t)T + 1, sizeof(char *));
	if (!d->transforms || !d->floats || !d->bone_names)
		return ctx->err && ctx->err->code ? ctx->err->code : HKS_E_NOMEM;
	static const char *const parts[3] = {"translation", "rotation", "scale"};
	static const unsigned first[3] = {0, 3, 7}, lanes[3] = {3, 4, 3};
	bool nomem = false;
	for (uint32_t t = 0; t < T; t++) {
		const json_t *tr = json_array_get(tracks, t);
		if (!json_is_object(tr))
			return fail_at(ctx, ai, (int32_t)t, "is not an object");
		d->bone_names[t] = dup_str(arena, json_object_get(tr, "bone"), &nomem);
		if (nomem)
			return HKS_E_NOMEM;
		for (int p = 0; p < 3; p++) {
			const json_t *rows = json_object_get(tr, parts[p]);
			if (!json_is_array(rows) || json_array_size(rows) != N)
				return fail_at(ctx, ai, (int32_t)t, "\"%s\" does not have %u rows", parts[p],
				               (unsigned)N);
			for (uint32_t f = 0; f < N; f++) {
				const json_t *row = json_array_get(rows, f);
				if (!json_is_array(row) || json_array_size(row) != lanes[p])
					return fail_at(ctx, ai, (int32_t)t, "frame %u: \"%s\" needs %u values", f, parts[p],
					               lanes[p]);
				float *o = d->transforms + ((size_t)f * T + t) * HKS_TRACK_SAMPLE_FLOATS + first[p];
				for (unsigned k = 0; k < lanes[p]; k++)
					if (!json_f32(json_array_get(row, k), &o[k]))
						return fail_at(ctx, ai, (int32_t)t, "frame %u: \"%s\" value %u is not a float", f,
						               parts[p], k);
			}
		}
	}
	for (uint32_t i = 0; i < F; i++) {
		const json_t *rows = json_array_get(ftracks, i);
		if (!json_is_array(rows) || json_array_size(rows) != N)
			return fail_at(ctx, ai, -1, "float track %u does not have %u values", i, (unsigned)N);
		for (uint32_t f = 0; f < N; f++)
			if (!json_f32(json_array_get(rows, f), &d->floats[(size_t)f * F + i]))
				return fail_at(ctx, ai, -1, "float track %u frame %u is not a float", i, f);
	}
	const json_t *times = json_object_get(an, "times");
	if (times) {
		if (!json_is_array(times) || json_array_size(times) != N)
			return fail_at(ctx, ai, -1, "\"times\" does not have %u values", (unsigned)N);
		d->times = (float *)hks_arena_array(arena, (size_t)N + 1, sizeof(float));
		if (!d->times)
			return HKS_E_NOMEM;
		for (uint32_t f = 0; f < N; f++)
			if (!json_f32(json_array_get(times, f), &d->times[f]))
				return fail_at(ctx, ai, -1, "\"times\" value %u is not a float", f);
	}
	d->frames.num_frames = d->num_frames;
	d->frames.num_transform_tracks = d->num_transform_tracks;
	d->frames.num_float_tracks = d->num_float_tracks;
	d->frames.duration = d->duration;
	d->frames.transforms = T ? d->transforms : NULL;
	d->frames.floats = F ? d->floats : NULL;
	return HKS_OK;
}

static hks_result read_doc(hks_ctx *ctx, hks_arena *arena, const json_t *root, size_t size, hks_frames_doc *doc)
{
	if (!json_is_object(root))
		return hks_fail(ctx, HKS_E_MALFORMED, -1, "not a decoded-frames JSON: the document is not an object");
	const json_t *src = json_object_get(root, "source");
	bool nomem = false;
	if (json_is_object(src)) {
		doc->source_path = dup_str(arena, json_object_get(src, "path"), &nomem);
		doc->source_container = dup_str(arena, json_object_get(src, "container"), &nomem);
		doc->source_sdk = dup_str(arena, json_object_get(src, "sdk"), &nomem);
		doc->source_skeleton = dup_str(arena, json_object_get(src, "skeleton"), &nomem);
		doc->mode = dup_str(arena, json_object_get(src, "mode"), &nomem);
		doc->hex = json_is_true(json_object_get(src, "hex"));
		const json_t *ts = json_object_get(src, "time_step");
		doc->time_step = json_is_number(ts) ? json_number_value(ts) : 0;
		if (nomem)
			return HKS_E_NOMEM;
	}
	const json_t *anims = json_object_get(root, "animations");
	if (!json_is_array(anims))
		return hks_fail(ctx, HKS_E_MALFORMED, -1, "not a decoded-frames JSON: no \"animations\" array");
	size_t n = json_array_size(anims);
	if (n > ctx->limits.max_objects)
		return hks_fail(ctx, HKS_E_LIMIT, -1, "%zu animations exceed the object limit", n);
	doc->animations = (hks_decoded *)hks_arena_array(arena, n + 1, sizeof(hks_decoded));
	if (!doc->animations)
		return HKS_E_NOMEM;
	for (size_t i = 0; i < n; i++) {
		HKS_TRY(read_animation(ctx, arena, json_array_get(anims, i), (uint32_t)i, size, &doc->animations[i]));
		doc->num_animations++;
	}
	return HKS_OK;
}

hks_result hks_frames_json_read(const void *data, size_t size, const hks_options *opts, hks_frames_doc **out,
                                hks_error *err)
{
	hks_error local;
	if (!err)
		err = &local;
	hks_ctx ctx;
	hks_ctx_init(&ctx, opts, size, err);
	if (!out || (!data && size))
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "no input or no output pointer");
	*out = NULL;
	json_error_t je;
	json_t *root = json_loadb((const char *)data, size, JSON_DECODE_INT_AS_REAL, &je);
	if (!root) {
		hks_container kind = hks_detect_container(data, size);
		if (kind != HKS_CONTAINER_UNKNOWN) /* the usual mix-up: the clip itself instead of its frames */
			return hks_fail(&ctx, HKS_E_MALFORMED, 0,
			                "not a decoded-frames JSON (it is a %s): the frames come from `hkspline decode IN -o "
			                "OUT.json` (or a .glb / .gltf); a Havok file is re-written by repack and recompress",
			                hks_container_name(kind));
		hks_err_object(&ctx, "line %d column %d", je.line, je.column);
		return hks_fail(&ctx, HKS_E_MALFORMED, je.position, "not a decoded-frames JSON: %s", je.text);
	}
	hks_arena *arena = hks_arena_create(&ctx);
	hks_frames_doc *doc = arena ? (hks_frames_doc *)hks_arena_alloc(arena, sizeof(*doc)) : NULL;
	hks_result r = doc ? HKS_OK : hks_fail_nomem(&ctx, sizeof(*doc));
	if (doc) {
		doc->arena = arena;
		r = read_doc(&ctx, arena, root, size, doc);
		if (r == HKS_E_NOMEM && err->code == HKS_OK)
			hks_fail_nomem(&ctx, 0);
	}
	json_decref(root);
	if (r != HKS_OK) {
		hks_arena_free(arena);
		return r;
	}
	hks_arena_set_ctx(arena, NULL);
	*out = doc;
	return HKS_OK;
}

const hks_decoded *hks_frames_doc_find(const hks_frames_doc *doc, int64_t index)
{
	if (!doc || !doc->num_animations)
		return NULL;
	if (index < 0)
		return &doc->animations[0];
	for (uint32_t i = 0; i < doc->num_animations; i++)
		if ((int64_t)doc->animations[i].index == index)
			return &doc->animations[i];
	return NULL;
}

void hks_frames_doc_free(hks_frames_doc *doc)
{
	if (doc)
		hks_arena_free(doc->arena);
}

/* ---- writer ---- */

static void put_f32(hks_jw *j, bool hex, float v)
{
	if (hex) {
		char buf[16];
		snprintf(buf, sizeof(buf), "%08x", hks_f32_bits(v));
		hks_jw_string(j, buf);
	} else
		hks_jw_f32(j, v);
}

hks_result hks_frames_json_write(const hks_frames_doc *doc, const hks_options *opts, uint8_t **out,
                                 size_t *out_size, hks_error *err)
{
	hks_error local;
	if (!err)
		err = &local;
	/* The document is this writer's input: the memory budget (hks_limits max_memory, 16 x input +
	 * 64 MiB) scales with the samples it holds. With 0 a legitimate decode --time-step of a few
	 * hundred thousand samples failed after sampling them all, on a fixed 64 MiB. */
	uint64_t doc_bytes = 0;
	for (uint32_t a = 0; doc && doc->animations && a < doc->num_animations; a++) {
		const hks_decoded *d = &doc->animations[a];
		uint64_t row = (uint64_t)d->num_transform_tracks * HKS_TRACK_SAMPLE_FLOATS + d->num_float_tracks + 1;
		doc_bytes += (uint64_t)d->num_frames * row * sizeof(float);
	}
	hks_ctx ctx;
	hks_ctx_init(&ctx, opts, doc_bytes, err);
	if (!doc || !out || !out_size)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "no document or no output pointer");
	*out = NULL;
	*out_size = 0;
	bool hex = doc->hex != 0, time_mode = doc->time_step > 0;
	hks_jw j;
	hks_jw_init(&j, &ctx, false);
	hks_jw_begin_object(&j);
	hks_jw_key(&j, "source");
	hks_jw_begin_object(&j);
	hks_jw_key(&j, "path");
	hks_jw_string(&j, doc->source_path);
	hks_jw_key(&j, "container");
	hks_jw_string(&j, doc->source_container);
	hks_jw_key(&j, "sdk");
	hks_jw_string(&j, doc->source_sdk);
	hks_jw_key(&j, "skeleton");
	hks_jw_string(&j, doc->source_skeleton);
	hks_jw_key(&j, "mode");
	hks_jw_string(&j, time_mode ? "time" : "frame");
	if (time_mode) {
		hks_jw_key(&j, "time_step");
		hks_jw_f64(&j, doc->time_step);
	}
	hks_jw_key(&j, "hex");
	hks_jw_bool(&j, hex);
	hks_jw_end_object(&j);
	hks_jw_key(&j, "animations");
	hks_jw_begin_array(&j);
	static const char *const part_names[3] = {"translation", "rotation", "scale"};
	static const unsigned part_first[3] = {0, 3, 7}, part_lanes[3] = {3, 4, 3};
	for (uint32_t a = 0; a < doc->num_animations && j.status == HKS_OK; a++) {
		const hks_decoded *d = &doc->animations[a];
		uint32_t N = d->num_frames, T = d->num_transform_tracks, F = d->num_float_tracks;
		hks_jw_begin_object(&j);
		hks_jw_key(&j, "index");
		hks_jw_uint(&j, d->index);
		hks_jw_key(&j, "frames");
		hks_jw_uint(&j, N);
		hks_jw_key(&j, "duration");
		put_f32(&j, hex, d->duration);
		hks_jw_key(&j, "frame_duration");
		put_f32(&j, hex, d->frame_duration);
		if (d->times) {
			hks_jw_key(&j, "times");
			hks_jw_begin_array(&j);
			for (uint32_t i = 0; i < N; i++)
				put_f32(&j, hex, d->times[i]);
			hks_jw_end_array(&j);
		}
		hks_jw_key(&j, "tracks");
		hks_jw_begin_array(&j);
		for (uint32_t t = 0; t < T && j.status == HKS_OK; t++) {
			hks_jw_text(&j, "\n");
			hks_jw_begin_object(&j);
			hks_jw_key(&j, "bone");
			hks_jw_string(&j, d->bone_names ? d->bone_names[t] : NULL);
			for (int p = 0; p < 3; p++) {
				hks_jw_key(&j, part_names[p]);
				hks_jw_begin_array(&j);
				for (uint32_t i = 0; i < N; i++) {
					const float *v = d->transforms + ((size_t)i * T + t) * HKS_TRACK_SAMPLE_FLOATS + part_first[p];
					hks_jw_begin_array(&j);
					for (unsigned k = 0; k < part_lanes[p]; k++)
						put_f32(&j, hex, v[k]);
					hks_jw_end_array(&j);
				}
				hks_jw_end_array(&j);
			}
			hks_jw_end_object(&j);
		}
		hks_jw_end_array(&j);
		hks_jw_key(&j, "float_tracks");
		hks_jw_begin_array(&j);
		for (uint32_t f = 0; f < F; f++) {
			hks_jw_begin_array(&j);
			for (uint32_t i = 0; i < N; i++)
				put_f32(&j, hex, d->floats[(size_t)i * F + f]);
			hks_jw_end_array(&j);
		}
		hks_jw_end_array(&j);
		hks_jw_end_object(&j);
	}
	hks_jw_end_array(&j);
	hks_jw_end_object(&j);
	return hks_jw_finish(&j, out, out_size);
}
