/*
 * Comparison of two inputs (`hkspline error A B`, the Python binding's
 * hkspline.error): inputs loaded (Havok files, BINDER:MEMBER, decoded-frames
 * JSON), the skeleton resolved, tracks matched (by index when the track sets
 * agree, else by bone name), the common frames compared with
 * hks_compare_frames, block seams measured, and the report written as the
 * JSON of `error --json` (hks_comparison_json).
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include "../io/json_write.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

typedef struct cmp_input {
	const char *arg;
	hks_loader *loader;           /* owned (path inputs) */
	size_t unit;
	hks_loaded *loaded;           /* Havok input */
	bool own_loaded;
	hks_frames_doc *doc;          /* JSON input */
	hks_decoded *dec;             /* Havok input: decoded (stored kept for seams) */
	const hks_decoded *frames;    /* the frames either way */
	const hks_binding *binding;
	bool json;
	const char *const *names;     /* per track (JSON "bone", or binding + skeleton), NULL allowed */
	bool has_names;               /* some name known */
} cmp_input;

typedef struct cmp_state {
	cmp_input in[2];
	hks_loader *skel_loader;
	hks_loaded *skel_loaded;
	float *sub_t[2], *sub_f[2];   /* subsets when the tracks or float counts differ */
	int16_t *map;
} cmp_state;

static void free_input(cmp_input *in)
{
	hks_decoded_free(in->dec);
	hks_frames_doc_free(in->doc);
	if (in->own_loaded && in->loaded)
		hks_loaded_free(in->loaded);
	hks_loader_free(in->loader);
}

void hks_comparison_free(hks_comparison *c)
{
	if (!c)
		return;
	cmp_state *st = (cmp_state *)c->internal;
	if (st) {
		for (int k = 0; k < 2; k++) {
			free_input(&st->in[k]);
			free(st->sub_t[k]);
			free(st->sub_f[k]);
		}
		if (st->skel_loaded)
			hks_loaded_free(st->skel_loaded);
		hks_loader_free(st->skel_loader);
		free(st->map);
		free(st);
	}
	hks_compare_result_free(c->result);
	hks_arena_free(c->arena);
}

static bool is_json_path(const char *p)
{
	size_t n = strlen(p);
	return n >= 5 && !strcasecmp(p + n - 5, ".json");
}

/* A whole file, bounded by the output limit. */
static hks_result read_whole(hks_ctx *ctx, const char *path, uint8_t **out, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return hks_fail(ctx, HKS_E_IO, -1, "cannot open %s", path);
	hks_bytebuf b;
	hks_bytebuf_init(&b, ctx);
	hks_result r = HKS_OK;
	for (;;) {
		if ((r = hks_bytebuf_reserve(&b, 1 << 16)) != HKS_OK)
			break;
		size_t k = fread(b.data + b.size, 1, b.capacity - b.size, f);
		b.size += k;
		if (k == 0)
			break;
		if (b.size > ctx->limits.max_output_bytes) {
			r = hks_fail(ctx, HKS_E_LIMIT, -1, "%s is larger than the output limit", path);
			break;
		}
	}
	if (r == HKS_OK && ferror(f))
		r = hks_fail(ctx, HKS_E_IO, -1, "read error on %s", path);
	fclose(f);
	if (r != HKS_OK) {
		hks_bytebuf_free(&b);
		return r;
	}
	return hks_bytebuf_finish(&b, out, size);
}

static hks_result load_json(hks_ctx *ctx, const hks_comparison_options *o, cmp_input *in)
{
	uint8_t *bytes = NULL;
	size_t size = 0;
	HKS_TRY(read_whole(ctx, in->arg, &bytes, &size));
	hks_options ro = o->load.base;
	ro.name = in->arg;
	hks_result r = hks_frames_json_read(bytes, size, &ro, &in->doc, ctx->err);
	hks_buffer_free(&o->load.base, bytes, size);
	if (r != HKS_OK)
		return r;
	in->frames = hks_frames_doc_find(in->doc, o->animation);
	if (!in->frames)
		return hks_fail(ctx, HKS_E_NOT_FOUND, -1, "%s has no animation with index %u", in->arg, o->animation);
	in->json = true;
	in->names = (const char *const *)in->frames->bone_names;
	for (uint32_t t = 0; t < in->frames->num_transform_tracks; t++)
		in->has_names |= in->frames->bone_names[t] != NULL;
	return HKS_OK;
}

static hks_result decode_loaded(hks_ctx *ctx, const hks_comparison_options *o, cmp_input *in, bool seams)
{
	const hks_file *f = in->loaded->file;
	if (o->animation >= f->num_animations)
		return hks_fail(ctx, HKS_E_NOT_FOUND, -1, "%s has %u animations (asked for %u)", in->loaded->path,
		                f->num_animations, o->animation);
	in->binding = hks_file_binding_for(f, o->animation);
	hks_decode_options dop;
	memset(&dop, 0, sizeof(dop));
	dop.base = o->load.base;
	dop.base.name = in->loaded->path;
	dop.keep_stored = seams;
	HKS_TRY(hks_decode_animation(f, o->animation, &dop, &in->dec, ctx->err));
	in->frames = in->dec;
	return HKS_OK;
}

static hks_result load_havok(hks_ctx *ctx, const hks_comparison_options *o, cmp_input *in)
{
	HKS_TRY(hks_loader_create(&o->load, &in->loader, ctx->err));
	HKS_TRY(hks_loader_open_unit(in->loader, in->arg, &in->unit, ctx->err));
	hks_result r = hks_loader_load(in->loader, in->unit, &in->loaded);
	in->own_loaded = true;
	if (r != HKS_OK || !in->loaded)
		return hks_fail(ctx, r != HKS_OK ? r : HKS_E_NOMEM, -1, "cannot load %s", in->arg);
	if (in->loaded->status != HKS_OK) {
		*ctx->err = in->loaded->error;
		return in->loaded->status;
	}
	return decode_loaded(ctx, o, in, !o->no_seams);
}

/* The skeleton: --skeleton, else one in A's or B's file, else the loader's
 * find (same binder, then folder), else a JSON input's source.skeleton. */
static hks_result resolve_skeleton(hks_ctx *ctx, const hks_comparison_options *o, cmp_state *st,
                                   const hks_skeleton **sk, const char **path)
{
	const hks_binding *bind = st->in[0].binding ? st->in[0].binding : st->in[1].binding;
	*sk = NULL;
	*path = NULL;
	if (o->skeleton) {
		hks_result r = hks_skeleton_load(&o->load, o->skeleton, &st->skel_loader, &st->skel_loaded, ctx->err);
		if (r != HKS_OK)
			return r;
		*sk = hks_file_pick_skeleton(st->skel_loaded->file, NULL, bind);
		*path = st->skel_loaded->path;
		return HKS_OK;
	}
	for (int k = 0; k < 2; k++)
		if (st->in[k].loaded && (*sk = hks_file_pick_skeleton(st->in[k].loaded->file, NULL, bind))) {
			*path = st->in[k].loaded->path;
			return HKS_OK;
		}
	for (int k = 0; k < 2; k++)
		if (st->in[k].loader && hks_loader_find_skeleton(st->in[k].loader, st->in[k].unit, &st->skel_loaded) == HKS_OK &&
		    st->skel_loaded) {
			if (st->skel_loaded->status == HKS_OK &&
			    (*sk = hks_file_pick_skeleton(st->skel_loaded->file, NULL, bind))) {
				*path = st->skel_loaded->path;
				return HKS_OK;
			}
			hks_loaded_free(st->skel_loaded);
			st->skel_loaded = NULL;
		}
	for (int k = 0; k < 2; k++)
		if (st->in[k].doc && st->in[k].doc->source_skeleton) {
			hks_error scratch;
			hks_loader *l = NULL;
			hks_loaded *ld = NULL;
			if (hks_skeleton_load(&o->load, st->in[k].doc->source_skeleton, &l, &ld, &scratch) == HKS_OK) {
				st->skel_loader = l;
				st->skel_loaded = ld;
				*sk = hks_file_pick_skeleton(ld->file, NULL, bind);
				*path = ld->path;
				return HKS_OK;
			}
		}
	return HKS_OK; /* none: local metrics only */
}

/* Bone `name` in the skeleton, -1 when absent. */
static int32_t find_bone(const hks_skeleton *sk, const char *name)
{
	for (uint32_t b = 0; name && sk && sk->bone_names && b < sk->num_bones && b < 32768; b++)
		if (sk->bone_names[b] && !strcmp(sk->bone_names[b], name))
			return (int32_t)b;
	return -1;
}

/* Names of a Havok input's tracks through its binding and the skeleton. */
static hks_result havok_names(hks_arena *arena, cmp_input *in, const hks_skeleton *sk)
{
	uint32_t T = in->frames->num_transform_tracks;
	const char **names = (const char **)hks_arena_array(arena, (size_t)T + 1, sizeof(char *));
	if (!names)
		return HKS_E_NOMEM;
	const hks_binding *bind = in->binding;
	for (uint32_t t = 0; t < T; t++) {
		int32_t bone = (int32_t)t;
		if (bind && bind->num_transform_track_to_bone_indices)
			bone = t < bind->num_transform_track_to_bone_indices ? bind->transform_track_to_bone_indices[t] : -1;
		names[t] = sk && bone >= 0 && (uint32_t)bone < sk->num_bones && sk->bone_names ? sk->bone_names[bone]
		                                                                               : in->frames->bone_names[t];
		in->has_names |= names[t] != NULL;
	}
	in->names = names;
	return HKS_OK;
}

typedef struct name_ix {
	const char *name;
	uint32_t index;
} name_ix;

static int name_cmp(const void *x, const void *y)
{
	const name_ix *a = (const name_ix *)x, *b = (const name_ix *)y;
	int c = strcmp(a->name, b->name);
	return c ? c : (a->index > b->index) - (a->index < b->index);
}

/* Tracks of A and B paired by bone name (A's order; a name's k-th track in A
 * pairs with its k-th in B). */
static hks_result match_by_name(hks_ctx *ctx, hks_comparison *c, cmp_state *st, uint32_t *count)
{
	uint32_t Ta = st->in[0].frames->num_transform_tracks, Tb = st->in[1].frames->num_transform_tracks;
	name_ix *sorted = (name_ix *)calloc((size_t)Tb + 1, sizeof(name_ix));
	uint32_t *used = (uint32_t *)calloc((size_t)Tb + 1, sizeof(uint32_t));
	uint8_t *taken = (uint8_t *)calloc((size_t)Tb + 1, 1);
	int32_t *ia = (int32_t *)hks_arena_array(c->arena, (size_t)Ta + 1, sizeof(int32_t));
	int32_t *ib = (int32_t *)hks_arena_array(c->arena, (size_t)Ta + 1, sizeof(int32_t));
	const char **only_a = (const char **)hks_arena_array(c->arena, (size_t)Ta + 1, sizeof(char *));
	const char **only_b = (const char **)hks_arena_array(c->arena, (size_t)Tb + 1, sizeof(char *));
	const char **names = (const char **)hks_arena_array(c->arena, (size_t)Ta + 1, sizeof(char *));
	if (!sorted || !used || !taken || !ia || !ib || !only_a || !only_b || !names) {
		free(sorted);
		free(used);
		free(taken);
		return hks_fail_nomem(ctx, (size_t)Tb * sizeof(name_ix));
	}
	uint32_t n = 0;
	for (uint32_t t = 0; t < Tb; t++)
		if (st->in[1].names[t])
			sorted[n++] = (name_ix){st->in[1].names[t], t};
	qsort(sorted, n, sizeof(name_ix), name_cmp);
	uint32_t m = 0, na = 0;
	for (uint32_t t = 0; t < Ta; t++) {
		const char *name = st->in[0].names[t];
		uint32_t lo = 0, hi = n;
		while (name && lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (strcmp(sorted[mid].name, name) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		uint32_t p = lo + (name && lo < n ? used[lo] : 0);
		if (name && p < n && !strcmp(sorted[p].name, name)) {
			used[lo]++;
			taken[sorted[p].index] = 1;
			ia[m] = (int32_t)t;
			ib[m] = (int32_t)sorted[p].index;
			names[m++] = name;
		} else
			only_a[na++] = name ? name : "(unnamed)";
	}
	uint32_t nb = 0;
	for (uint32_t t = 0; t < Tb; t++)
		if (!taken[t])
			only_b[nb++] = st->in[1].names[t] ? st->in[1].names[t] : "(unnamed)";
	free(sorted);
	free(used);
	free(taken);
	c->track_in[0] = ia;
	c->track_in[1] = ib;
	c->only_in[0] = only_a;
	c->only_in[1] = only_b;
	c->num_only_in[0] = na;
	c->num_only_in[1] = nb;
	c->track_names = names;
	c->matched_by_name = 1;
	*count = m;
	return HKS_OK;
}

/* The map track -> bone of index matching: the binding of a Havok input; for
 * JSON inputs their bone names looked up in the skeleton; NULL: identity. */
static hks_result index_map(cmp_state *st, const hks_skeleton *sk, uint32_t T, uint32_t *count)
{
	*count = 0;
	for (int k = 0; k < 2; k++)
		if (st->in[k].binding && st->in[k].binding->num_transform_track_to_bone_indices) {
			*count = st->in[k].binding->num_transform_track_to_bone_indices;
			st->map = (int16_t *)malloc(*count * sizeof(int16_t) + 1);
			if (!st->map)
				return HKS_E_NOMEM;
			memcpy(st->map, st->in[k].binding->transform_track_to_bone_indices, *count * sizeof(int16_t));
			return HKS_OK;
		}
	for (int k = 0; k < 2; k++)
		if (sk && st->in[k].json && st->in[k].has_names) {
			st->map = (int16_t *)malloc(((size_t)T + 1) * sizeof(int16_t));
			if (!st->map)
				return HKS_E_NOMEM;
			for (uint32_t t = 0; t < T; t++)
				st->map[t] = (int16_t)find_bone(sk, st->in[k].names[t]);
			*count = T;
			return HKS_OK;
		}
	return HKS_OK;
}

/* Frames of one side reduced to the compared frames, tracks and float tracks. */
static hks_result subset(cmp_state *st, int k, const int32_t *tracks, uint32_t T, uint32_t N, uint32_t F,
                         hks_frames_in *out)
{
	const hks_decoded *d = st->in[k].frames;
	*out = d->frames;
	out->num_frames = N;
	out->num_transform_tracks = T;
	out->num_float_tracks = F;
	if (tracks) {
		st->sub_t[k] = (float *)malloc(((size_t)N * T * HKS_TRACK_SAMPLE_FLOATS + 1) * sizeof(float));
		if (!st->sub_t[k])
			return HKS_E_NOMEM;
		for (uint32_t f = 0; f < N; f++)
			for (uint32_t t = 0; t < T; t++)
				memcpy(st->sub_t[k] + ((size_t)f * T + t) * HKS_TRACK_SAMPLE_FLOATS,
				       d->transforms + ((size_t)f * d->num_transform_tracks + (uint32_t)tracks[t]) *
				                           HKS_TRACK_SAMPLE_FLOATS,
				       HKS_TRACK_SAMPLE_FLOATS * sizeof(float));
		out->transforms = T ? st->sub_t[k] : NULL;
	}
	if (F != d->num_float_tracks) {
		st->sub_f[k] = (float *)malloc(((size_t)N * F + 1) * sizeof(float));
		if (!st->sub_f[k])
			return HKS_E_NOMEM;
		for (uint32_t f = 0; f < N; f++)
			for (uint32_t i = 0; i < F; i++)
				st->sub_f[k][(size_t)f * F + i] = d->floats[(size_t)f * d->num_float_tracks + i];
		out->floats = F ? st->sub_f[k] : NULL;
	}
	return HKS_OK;
}

static hks_result finish(hks_ctx *ctx, const hks_comparison_options *o, hks_comparison *c, cmp_state *st,
                         bool seams)
{
	const hks_skeleton *sk = c->skeleton;
	const hks_decoded *da = st->in[0].frames, *db = st->in[1].frames;
	for (int k = 0; k < 2; k++) {
		if (!st->in[k].json)
			HKS_TRY(havok_names(c->arena, &st->in[k], sk));
		c->frames[k] = st->in[k].frames->num_frames;
		c->transform_tracks[k] = st->in[k].frames->num_transform_tracks;
		c->float_tracks[k] = st->in[k].frames->num_float_tracks;
	}
	uint32_t Ta = da->num_transform_tracks, Tb = db->num_transform_tracks;
	bool same = Ta == Tb;
	/* both sides name their tracks and a name differs: the track sets differ */
	for (uint32_t t = 0; same && t < Ta; t++) {
		const char *x = st->in[0].names[t], *y = st->in[1].names[t];
		if (x && y && strcmp(x, y) != 0)
			same = false;
	}
	uint32_t N = c->frames[0] < c->frames[1] ? c->frames[0] : c->frames[1];
	uint32_t F = c->float_tracks[0] < c->float_tracks[1] ? c->float_tracks[0] : c->float_tracks[1];
	uint32_t T = Ta, nmap = 0;
	hks_frames_in fa, fb;
	if (same) {
		int32_t *ia = (int32_t *)hks_arena_array(c->arena, (size_t)T + 1, sizeof(int32_t));
		const char **names = (const char **)hks_arena_array(c->arena, (size_t)T + 1, sizeof(char *));
		if (!ia || !names)
			return HKS_E_NOMEM;
		for (uint32_t t = 0; t < T; t++) {
			ia[t] = (int32_t)t;
			/* the names the inputs give (JSON), A's first */
			for (int k = 0; k < 2 && !names[t]; k++)
				if (st->in[k].json)
					names[t] = st->in[k].names[t];
		}
		c->track_in[0] = c->track_in[1] = ia;
		c->track_names = names;
		HKS_TRY(index_map(st, sk, T, &nmap));
		HKS_TRY(subset(st, 0, NULL, T, N, F, &fa));
		HKS_TRY(subset(st, 1, NULL, T, N, F, &fb));
	} else {
		for (int k = 0; k < 2; k++)
			if (!st->in[k].has_names)
				return hks_fail(ctx, HKS_E_MISMATCH, -1,
				                "A has %u tracks and B %u, and the bone names of %s are unknown: give --skeleton, "
				                "or decoded-frames JSON with bone names",
				                Ta, Tb, st->in[k].arg);
		HKS_TRY(match_by_name(ctx, c, st, &T));
		if (sk) {
			st->map = (int16_t *)malloc(((size_t)T + 1) * sizeof(int16_t));
			if (!st->map)
				return HKS_E_NOMEM;
			for (uint32_t t = 0; t < T; t++)
				st->map[t] = (int16_t)find_bone(sk, c->track_names[t]);
			nmap = T;
		}
		HKS_TRY(subset(st, 0, c->track_in[0], T, N, F, &fa));
		HKS_TRY(subset(st, 1, c->track_in[1], T, N, F, &fb));
	}
	c->frames_compared = N;
	c->complete = same && c->frames[0] == c->frames[1] && c->float_tracks[0] == c->float_tracks[1];
	hks_compare_options co;
	memset(&co, 0, sizeof(co));
	co.base = o->load.base;
	co.skeleton = sk;
	co.track_to_bone = st->map;
	co.num_track_to_bone = st->map ? nmap : 0;
	co.shell_distance = c->shell_distance;
	co.shell_overrides = o->shell_overrides;
	co.num_shell_overrides = o->num_shell_overrides;
	co.threshold = c->threshold;
	HKS_TRY(hks_compare_frames(&fa, &fb, &co, &c->result, ctx->err));
	for (int k = 0; k < 2 && seams; k++)
		if (st->in[k].dec && st->in[k].dec->stored) {
			hks_error e;
			if (hks_seam_disagreement(st->in[k].dec->stored, NULL, &c->seams[k], &e) == HKS_OK)
				c->has_seams[k] = 1;
		}
	return HKS_OK;
}

static hks_result create(hks_ctx *ctx, const hks_comparison_options *o, const char *a, const char *b,
                         hks_comparison **out, cmp_state **st)
{
	hks_arena *arena = hks_arena_create(ctx);
	hks_comparison *c = arena ? (hks_comparison *)hks_arena_alloc(arena, sizeof(*c)) : NULL;
	cmp_state *s = (cmp_state *)calloc(1, sizeof(*s));
	if (!c || !s) {
		free(s);
		hks_arena_free(arena);
		return hks_fail_nomem(ctx, sizeof(*c));
	}
	c->arena = arena;
	c->internal = s;
	c->a = hks_arena_strdup(arena, a);
	c->b = hks_arena_strdup(arena, b);
	c->animation = o->animation;
	c->shell_distance = o->shell_distance > 0 ? o->shell_distance : HKS_DEFAULT_SHELL_DISTANCE;
	c->threshold = o->threshold > 0 ? o->threshold : HKS_DEFAULT_ERROR_THRESHOLD;
	s->in[0].arg = c->a;
	s->in[1].arg = c->b;
	*out = c;
	*st = s;
	return c->a && c->b ? HKS_OK : hks_fail_nomem(ctx, strlen(a) + strlen(b));
}

static hks_result done(hks_comparison *c, hks_result r, hks_comparison **out)
{
	if (r != HKS_OK || !c) {
		hks_comparison_free(c);
		return r;
	}
	hks_arena_set_ctx(c->arena, NULL);
	*out = c;
	return HKS_OK;
}

hks_result hks_compare_paths(const char *a, const char *b, const hks_comparison_options *opts,
                             hks_comparison **out, hks_error *err)
{
	hks_error local;
	if (!err)
		err = &local;
	hks_comparison_options zero;
	memset(&zero, 0, sizeof(zero));
	const hks_comparison_options *o = opts ? opts : &zero;
	hks_ctx ctx;
	hks_ctx_init(&ctx, &o->load.base, 0, err);
	if (!a || !b || !out)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "two inputs and an output pointer are needed");
	*out = NULL;
	hks_comparison *c = NULL;
	cmp_state *st = NULL;
	hks_result r = create(&ctx, o, a, b, &c, &st);
	for (int k = 0; k < 2 && r == HKS_OK && st; k++)
		r = is_json_path(st->in[k].arg) ? load_json(&ctx, o, &st->in[k]) : load_havok(&ctx, o, &st->in[k]);
	const hks_skeleton *sk = NULL;
	const char *skp = NULL;
	if (r == HKS_OK)
		r = resolve_skeleton(&ctx, o, st, &sk, &skp);
	if (r == HKS_OK) {
		c->skeleton = sk;
		c->skeleton_path = skp;
		r = finish(&ctx, o, c, st, !o->no_seams);
	}
	if (r == HKS_E_NOMEM && err->code == HKS_OK)
		hks_fail_nomem(&ctx, 0);
	return done(c, r, out);
}

hks_result hks_compare_loaded(const hks_loaded *a, const hks_loaded *b, const hks_comparison_options *opts,
                              const hks_skeleton *skeleton, const char *skeleton_path, hks_comparison **out,
                              hks_error *err)
{
	hks_error local;
	if (!err)
		err = &local;
	hks_comparison_options zero;
	memset(&zero, 0, sizeof(zero));
	const hks_comparison_options *o = opts ? opts : &zero;
	hks_ctx ctx;
	hks_ctx_init(&ctx, &o->load.base, 0, err);
	if (!a || !b || !out || !a->file || !b->file)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "two loaded files and an output pointer are needed");
	*out = NULL;
	hks_comparison *c = NULL;
	cmp_state *st = NULL;
	hks_result r = create(&ctx, o, a->path ? a->path : "A", b->path ? b->path : "B", &c, &st);
	if (r == HKS_OK) {
		st->in[0].loaded = (hks_loaded *)(uintptr_t)a;
		st->in[1].loaded = (hks_loaded *)(uintptr_t)b;
	}
	for (int k = 0; k < 2 && r == HKS_OK; k++)
		r = decode_loaded(&ctx, o, &st->in[k], false);
	if (r == HKS_OK) {
		const hks_binding *bind = st->in[0].binding ? st->in[0].binding : st->in[1].binding;
		c->skeleton = skeleton ? skeleton : hks_file_pick_skeleton(a->file, b->file, bind);
		c->skeleton_path = skeleton_path;
		r = finish(&ctx, o, c, st, false);
	}
	if (r == HKS_E_NOMEM && err->code == HKS_OK)
		hks_fail_nomem(&ctx, 0);
	return done(c, r, out);
}

const char *hks_comparison_bone_name(const hks_comparison *c, int32_t bone, int32_t track)
{
	if (!c)
		return NULL;
	const hks_skeleton *sk = c->skeleton;
	if (sk && bone >= 0 && (uint32_t)bone < sk->num_bones && sk->bone_names)
		return sk->bone_names[bone];
	if (track >= 0 && c->result && (uint32_t)track < c->result->num_transform_tracks && c->track_names)
		return c->track_names[track];
	return NULL;
}

/* ---- the JSON of `error --json` ---- */

static void opt_f64(hks_jw *j, bool present, double v)
{
	if (present)
		hks_jw_f64(j, v);
	else
		hks_jw_null(j);
}

static void opt_index(hks_jw *j, int32_t v)
{
	if (v >= 0)
		hks_jw_int(j, v);
	else
		hks_jw_null(j);
}

/* The largest finite value of column `col` and its first frame (-1 when none). */
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

static void json_metric(hks_jw *j, const hks_metric_summary *m)
{
	hks_jw_begin_object(j);
	hks_jw_key(j, "max");
	hks_jw_f64(j, m->max);
	hks_jw_key(j, "mean");
	hks_jw_f64(j, m->mean);
	hks_jw_key(j, "p99");
	hks_jw_f64(j, m->p99);
	hks_jw_key(j, "worst_index");
	hks_jw_int(j, m->worst_index);
	hks_jw_key(j, "worst_frame");
	hks_jw_int(j, m->worst_frame);
	hks_jw_key(j, "samples");
	hks_jw_uint(j, m->samples);
	hks_jw_key(j, "nan_samples");
	hks_jw_uint(j, m->nan_samples);
	hks_jw_key(j, "under_threshold");
	hks_jw_uint(j, m->under_threshold);
	hks_jw_end_object(j);
}

static void json_seams(hks_jw *j, const hks_seam_report *s)
{
	hks_jw_begin_object(j);
	hks_jw_key(j, "seams");
	hks_jw_uint(j, s->seams);
	hks_jw_key(j, "max_translation");
	hks_jw_f64(j, s->max_translation);
	hks_jw_key(j, "max_rotation_deg");
	hks_jw_f64(j, s->max_rotation_deg);
	hks_jw_key(j, "max_rotation_component");
	hks_jw_f64(j, s->max_rotation_component);
	hks_jw_key(j, "max_scale");
	hks_jw_f64(j, s->max_scale);
	hks_jw_key(j, "max_float");
	hks_jw_f64(j, s->max_float);
	hks_jw_key(j, "worst_seam_block");
	hks_jw_int(j, s->worst_seam);
	hks_jw_key(j, "worst_track");
	hks_jw_int(j, s->worst_track);
	hks_jw_key(j, "nan_samples");
	hks_jw_uint(j, s->nan_samples);
	hks_jw_end_object(j);
}

static void json_names(hks_jw *j, const char *const *names, uint32_t n)
{
	hks_jw_begin_array(j);
	for (uint32_t i = 0; i < n; i++)
		hks_jw_string(j, names[i]);
	hks_jw_end_array(j);
}

hks_result hks_comparison_json(const hks_comparison *c, hks_comparison_detail detail, int pretty, uint8_t **out,
                               size_t *out_size, hks_error *err)
{
	hks_error local;
	if (!err)
		err = &local;
	hks_ctx ctx;
	hks_ctx_init(&ctx, NULL, 0, err);
	if (!c || !c->result || !out || !out_size)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "no comparison or no output pointer");
	const hks_compare_result *r = c->result;
	hks_jw jw, *j = &jw;
	hks_jw_init(j, &ctx, pretty && detail != HKS_COMPARISON_EXHAUSTIVE);
	hks_jw_begin_object(j);
	hks_jw_key(j, "a");
	hks_jw_string(j, c->a);
	hks_jw_key(j, "b");
	hks_jw_string(j, c->b);
	hks_jw_key(j, "skeleton");
	hks_jw_string(j, c->skeleton_path);
	hks_jw_key(j, "frames");
	hks_jw_uint(j, r->num_frames);
	hks_jw_key(j, "tracks");
	hks_jw_uint(j, r->num_transform_tracks);
	hks_jw_key(j, "float_tracks");
	hks_jw_uint(j, r->num_float_tracks);
	static const struct {
		const char *key;
		hks_metric m;
	} maxes[6] = {{"max_translation", HKS_METRIC_TRANSLATION},
	              {"max_rotation_deg", HKS_METRIC_ROTATION_DEG},
	              {"max_rotation_component", HKS_METRIC_ROTATION_COMPONENT},
	              {"max_scale", HKS_METRIC_SCALE},
	              {"max_float", HKS_METRIC_FLOAT},
	              {"max_local_vertex", HKS_METRIC_LOCAL_VERTEX}};
	for (int k = 0; k < 6; k++) {
		hks_jw_key(j, maxes[k].key);
		hks_jw_f64(j, r->metric[maxes[k].m].max);
	}
	hks_jw_key(j, "max_object_space");
	opt_f64(j, r->has_object_space, r->metric[HKS_METRIC_OBJECT_SPACE].max);
	hks_jw_key(j, "mean_object_space");
	opt_f64(j, r->has_object_space, r->metric[HKS_METRIC_OBJECT_SPACE].mean);
	hks_jw_key(j, "p99_object_space");
	opt_f64(j, r->has_object_space, r->metric[HKS_METRIC_OBJECT_SPACE].p99);
	hks_jw_key(j, "primary");
	hks_jw_string(j, hks_metric_name(r->primary));
	hks_jw_key(j, "threshold");
	hks_jw_f64(j, c->threshold);
	hks_jw_key(j, "shell");
	hks_jw_f64(j, c->shell_distance);
	hks_jw_key(j, "under_threshold");
	hks_jw_f64(j, r->under_threshold);
	hks_jw_key(j, "worst_track");
	opt_index(j, r->worst_track);
	hks_jw_key(j, "worst_bone");
	hks_jw_string(j, hks_comparison_bone_name(c, r->worst_bone, r->worst_track));
	hks_jw_key(j, "worst_bone_index");
	opt_index(j, r->worst_bone);
	hks_jw_key(j, "worst_frame");
	opt_index(j, r->worst_frame);
	hks_jw_key(j, "nan_samples");
	hks_jw_uint(j, r->nan_samples);
	hks_jw_key(j, "metrics");
	hks_jw_begin_object(j);
	for (int m = 0; m < HKS_METRIC_COUNT; m++) {
		if (m == HKS_METRIC_OBJECT_SPACE && !r->has_object_space)
			continue;
		hks_jw_key(j, hks_metric_name((hks_metric)m));
		json_metric(j, &r->metric[m]);
	}
	hks_jw_end_object(j);
	hks_jw_key(j, "seams");
	hks_jw_begin_object(j);
	for (int k = 0; k < 2; k++) {
		hks_jw_key(j, k ? "b" : "a");
		if (c->has_seams[k])
			json_seams(j, &c->seams[k]);
		else
			hks_jw_null(j);
	}
	hks_jw_end_object(j);
	/* what was compared (docs/CLI.md "error": frames and tracks of each side) */
	hks_jw_key(j, "frames_a");
	hks_jw_uint(j, c->frames[0]);
	hks_jw_key(j, "frames_b");
	hks_jw_uint(j, c->frames[1]);
	hks_jw_key(j, "tracks_a");
	hks_jw_uint(j, c->transform_tracks[0]);
	hks_jw_key(j, "tracks_b");
	hks_jw_uint(j, c->transform_tracks[1]);
	hks_jw_key(j, "float_tracks_a");
	hks_jw_uint(j, c->float_tracks[0]);
	hks_jw_key(j, "float_tracks_b");
	hks_jw_uint(j, c->float_tracks[1]);
	hks_jw_key(j, "matched_by");
	hks_jw_string(j, c->matched_by_name ? "bone_name" : "index");
	hks_jw_key(j, "only_in_a");
	json_names(j, c->only_in[0], c->num_only_in[0]);
	hks_jw_key(j, "only_in_b");
	json_names(j, c->only_in[1], c->num_only_in[1]);
	hks_jw_key(j, "complete");
	hks_jw_bool(j, c->complete != 0);
	if (detail >= HKS_COMPARISON_DETAILED) {
		static const hks_metric local_m[5] = {HKS_METRIC_TRANSLATION, HKS_METRIC_ROTATION_DEG,
		                                      HKS_METRIC_ROTATION_COMPONENT, HKS_METRIC_SCALE,
		                                      HKS_METRIC_LOCAL_VERTEX};
		hks_jw_key(j, "per_track");
		hks_jw_begin_array(j);
		for (uint32_t t = 0; t < r->num_transform_tracks; t++) {
			hks_jw_begin_object(j);
			hks_jw_key(j, "track");
			hks_jw_uint(j, t);
			hks_jw_key(j, "bone");
			hks_jw_string(j, hks_comparison_bone_name(c, r->track_bone[t], (int32_t)t));
			hks_jw_key(j, "bone_index");
			hks_jw_int(j, r->track_bone[t]);
			for (int k = 0; k < 5; k++) {
				int32_t wf;
				uint64_t nan = 0;
				double mx = column_max(r->values[local_m[k]], r->num_frames, r->num_transform_tracks, t, &wf, &nan);
				char key[64];
				snprintf(key, sizeof(key), "max_%s", hks_metric_name(local_m[k]));
				hks_jw_key(j, key);
				hks_jw_f64(j, mx);
				if (local_m[k] == HKS_METRIC_LOCAL_VERTEX) {
					hks_jw_key(j, "worst_frame");
					hks_jw_int(j, wf);
					hks_jw_key(j, "nan_samples");
					hks_jw_uint(j, nan);
				}
			}
			hks_jw_end_object(j);
		}
		hks_jw_end_array(j);
		if (r->has_object_space) {
			hks_jw_key(j, "per_bone");
			hks_jw_begin_array(j);
			for (uint32_t bn = 0; bn < r->num_bones; bn++) {
				int32_t wf;
				double mx = column_max(r->values[HKS_METRIC_OBJECT_SPACE], r->num_frames, r->num_bones, bn, &wf, NULL);
				hks_jw_begin_object(j);
				hks_jw_key(j, "bone");
				hks_jw_string(j, hks_comparison_bone_name(c, (int32_t)bn, -1));
				hks_jw_key(j, "bone_index");
				hks_jw_uint(j, bn);
				hks_jw_key(j, "track");
				hks_jw_int(j, r->bone_track[bn]);
				hks_jw_key(j, "shell");
				hks_jw_f64(j, r->bone_shell[bn]);
				hks_jw_key(j, "max_object_space");
				hks_jw_f64(j, mx);
				hks_jw_key(j, "worst_frame");
				hks_jw_int(j, wf);
				hks_jw_end_object(j);
			}
			hks_jw_end_array(j);
		}
	}
	if (detail >= HKS_COMPARISON_EXHAUSTIVE) {
		hks_jw_key(j, "matrices");
		hks_jw_begin_object(j);
		for (int m = 0; m < HKS_METRIC_COUNT && j->status == HKS_OK; m++) {
			if (!r->values[m])
				continue;
			uint32_t w = m == HKS_METRIC_OBJECT_SPACE ? r->num_bones
			             : m == HKS_METRIC_FLOAT      ? r->num_float_tracks
			                                          : r->num_transform_tracks;
			hks_jw_key(j, hks_metric_name((hks_metric)m));
			hks_jw_begin_array(j);
			for (uint32_t f = 0; f < r->num_frames; f++) {
				hks_jw_text(j, "\n");
				hks_jw_begin_array(j);
				for (uint32_t i = 0; i < w; i++) {
					double v = r->values[m][(size_t)f * w + i];
					if (isfinite(v))
						hks_jw_f64(j, v);
					else
						hks_jw_null(j);
				}
				hks_jw_end_array(j);
			}
			hks_jw_end_array(j);
		}
		hks_jw_end_object(j);
	}
	hks_jw_end_object(j);
	hks_jw_text(j, "\n");
	return hks_jw_finish(j, out, out_size);
}
