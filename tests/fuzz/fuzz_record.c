/*
 * Fuzz target: reconstruction records (docs/RECORD.md) and record files.
 * Input: a record file ("HKSF": hks_record_file_read, then each of its first
 * 8 records) or one record ("HKSR"). Each record is parsed (hks_rec_read);
 * a parsed record is written again, stored and coded, and must read back with
 * the same counts and entries; then hks_recompress_apply runs it against frames
 * of the record's own counts (zeros, unit rotations, bounded), which must end
 * in a result or a clean error. A record with the counts of one of the
 * synthetic clips the seeds were made from (tools/make_seeds.c) is also
 * applied to that clip's decoded frames, so that its entries' units match and
 * REFIT corrections run (lane_move, record v17) on mutated payloads. Seeds:
 * uncompressed records, so mutations reach the body (tools/make_seeds.c).
 */
#include "fuzz.h"
#include "fuzz_common.h"
#include "synth.h"

#include "../../src/encode/record.h"

#include <math.h>

#define MAX_APPLY_FLOATS (1u << 16)

/* The synthetic clips tools/make_seeds.c makes its record seeds from (synth_spline's arguments), decoded once
 * (raw rotations, as hks_recompress samples them) */
typedef struct seed_clip {
	uint32_t T, F, N, mfpb;
	unsigned variant;
	const char *sdk;
	int made;
	float *tr, *fl;
} seed_clip;

static seed_clip seed_clips[] = {
	{3, 1, 31, 0, 0, "20160200", 0, NULL, NULL},
	{2, 0, 40, 16, 1, "20180100", 0, NULL, NULL},
	{2, 2, 20, 8, 2, "20160200", 0, NULL, NULL},
};

static const seed_clip *seed_clip_frames(uint32_t T, uint32_t F, uint32_t N)
{
	for (size_t i = 0; i < sizeof(seed_clips) / sizeof(seed_clips[0]); i++) {
		seed_clip *c = &seed_clips[i];
		if (c->T != T || c->F != F || c->N != N)
			continue;
		if (!c->made) {
			c->made = 1;
			hks_packed_spline *p = synth_spline(T, F, N, c->mfpb, c->variant, c->sdk);
			hks_stored_animation *st = NULL;
			hks_error err;
			if (p) {
				hks_animation a = hks_animation_of_packed(p);
				float *tr = (float *)calloc((size_t)N * T * HKS_TRACK_SAMPLE_FLOATS + 1, sizeof(float));
				float *fl = (float *)calloc((size_t)N * F + 1, sizeof(float));
				if (tr && fl && hks_stored_read(&a, NULL, &st, &err) == HKS_OK &&
				    hks_sample_frames(st, NULL, 0, N, tr, F ? fl : NULL, &err) == HKS_OK) {
					c->tr = tr;
					c->fl = fl;
				} else {
					free(tr);
					free(fl);
				}
				hks_stored_free(st);
				hks_packed_spline_free(p);
			}
		}
		return c->tr ? c : NULL;
	}
	return NULL;
}

static void apply_to(const float *tr, const float *fl, const hks_rec_anim *r, const uint8_t *data, size_t size);

static void try_apply(const hks_rec_anim *r, const uint8_t *data, size_t size)
{
	const seed_clip *clip = seed_clip_frames(r->num_transform_tracks, r->num_float_tracks, r->num_frames);
	if (clip)
		apply_to(clip->tr, clip->fl, r, data, size);
	uint32_t T = r->num_transform_tracks, F = r->num_float_tracks, N = r->num_frames;
	if (N < 2 || (uint64_t)N * ((uint64_t)T * HKS_TRACK_SAMPLE_FLOATS + F) > MAX_APPLY_FLOATS)
		return;
	float *tr = (float *)calloc((size_t)N * T * HKS_TRACK_SAMPLE_FLOATS + 1, sizeof(float));
	float *fl = (float *)calloc((size_t)N * F + 1, sizeof(float));
	if (!tr || !fl) {
		free(tr);
		free(fl);
		return;
	}
	for (size_t i = 0; i < (size_t)N * T; i++) {
		tr[i * HKS_TRACK_SAMPLE_FLOATS + 6] = 1.0f; /* rotation w */
		for (int k = 7; k < 10; k++)
			tr[i * HKS_TRACK_SAMPLE_FLOATS + (size_t)k] = 1.0f; /* scale */
	}
	apply_to(tr, fl, r, data, size);
	free(tr);
	free(fl);
}

/* hks_recompress_apply of the record to frames of its counts: a result or a clean error */
static void apply_to(const float *tr, const float *fl, const hks_rec_anim *r, const uint8_t *data, size_t size)
{
	uint32_t T = r->num_transform_tracks, F = r->num_float_tracks, N = r->num_frames;
	float duration;
	memcpy(&duration, &r->duration_bits, 4);
	if (!(duration > 0.0f) || !isfinite(duration))
		duration = 1.0f;
	hks_frames_in fi;
	memset(&fi, 0, sizeof(fi));
	fi.num_frames = N;
	fi.num_transform_tracks = T;
	fi.num_float_tracks = F;
	fi.duration = duration;
	fi.transforms = T ? tr : NULL;
	fi.floats = F ? fl : NULL;
	hks_recompress_options ro;
	memset(&ro, 0, sizeof(ro));
	fuzz_options(&ro.base);
	hks_packed_spline *p = NULL;
	hks_record_apply_report rep;
	hks_error err;
	if (hks_recompress_apply(&fi, data, size, &ro, &p, &rep, &err) == HKS_OK) {
		FUZZ_CHECK(p != NULL);
		hks_packed_spline_free(p);
	} else {
		FUZZ_CHECK(err.code != HKS_OK);
	}
}

/* The parsed record written again, stored or with the body coded (record_model.c), reads back the same. */
static void check_rewrite(const hks_rec_anim *r, int stored, const hks_options *o, size_t size)
{
	uint8_t *w = NULL;
	size_t wn = 0;
	hks_ctx wctx;
	hks_error werr;
	hks_ctx_init(&wctx, o, size, &werr);
	/* version 8 had version 9's body and solve, and the writer writes 9 and up: a v8 record goes out as 9 */
	hks_rec_anim copy = *r;
	if (copy.version == 8)
		copy.version = 9;
	FUZZ_CHECK(copy.version >= 9 && copy.version <= HKS_RECORD_VERSION);
	if (hks_rec_write(&wctx, &copy, stored, &w, &wn) == HKS_OK) {
		hks_ctx rctx;
		hks_error rerr;
		hks_ctx_init(&rctx, o, wn, &rerr);
		hks_arena *a2 = hks_arena_create(&rctx);
		if (a2) {
			hks_rec_anim b;
			FUZZ_CHECK(hks_rec_read(&rctx, a2, w, wn, &b) == HKS_OK);
			FUZZ_CHECK(b.kind == r->kind && b.num_frames == r->num_frames &&
			           b.num_transform_tracks == r->num_transform_tracks && b.num_float_tracks == r->num_float_tracks &&
			           b.num_blocks == r->num_blocks && b.num_entries == r->num_entries &&
			           b.data_hash == r->data_hash && b.data_size == r->data_size);
			for (uint32_t i = 0; i < r->num_entries; i++)
				FUZZ_CHECK(b.entries[i].index == r->entries[i].index && b.entries[i].kind == r->entries[i].kind &&
				           b.entries[i].payload_size == r->entries[i].payload_size &&
				           (!r->entries[i].payload_size ||
				            !memcmp(b.entries[i].payload, r->entries[i].payload, r->entries[i].payload_size)));
			hks_arena_free(a2);
		}
		hks_buffer_free(o, w, wn);
	}
}

static void try_record(const uint8_t *data, size_t size)
{
	hks_options o;
	fuzz_options(&o);
	hks_error err;
	hks_ctx ctx;
	hks_ctx_init(&ctx, &o, size, &err);
	hks_arena *arena = hks_arena_create(&ctx);
	if (!arena)
		return;
	hks_rec_anim r;
	if (hks_rec_read(&ctx, arena, data, size, &r) != HKS_OK) {
		FUZZ_CHECK(err.code != HKS_OK);
		hks_arena_free(arena);
		return;
	}
	check_rewrite(&r, 1, &o, size);
	check_rewrite(&r, 0, &o, size);
	try_apply(&r, data, size);
	hks_arena_free(arena);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size >= 4 && !memcmp(data, HKS_RECORD_FILE_MAGIC, 4)) {
		hks_options o;
		fuzz_options(&o);
		hks_record_file_entry *entries = NULL;
		uint32_t count = 0;
		hks_error err;
		if (hks_record_file_read(data, size, &o, &entries, &count, &err) != HKS_OK) {
			FUZZ_CHECK(entries == NULL || count == 0);
			return 0;
		}
		for (uint32_t i = 0; i < count && i < 8; i++) {
			FUZZ_CHECK(entries[i].record >= data && entries[i].size <= size &&
			           entries[i].record + entries[i].size <= data + size);
			try_record(entries[i].record, entries[i].size);
		}
		if (entries)
			hks_buffer_free(&o, entries, (size_t)count * sizeof(*entries));
		return 0;
	}
	try_record(data, size);
	return 0;
}
