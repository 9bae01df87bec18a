/*
 * Unit tests of the reconstruction record (docs/RECORD.md): varints, the
 * FNV-1a hash, the record file, a synthetic animation recompressed and
 * reproduced exactly, truncated and corrupted records giving clean errors,
 * and an edited track re-fitted while every other part keeps its bytes.
 * Every input is built here (frames -> hks_encode_spline).
 */
#include "hks_test.h"
#include "encode_internal.h"
#include "record.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* ---- varints and hash ------------------------------------------------------ */

static void test_varints(void **state)
{
	(void)state;
	static const uint64_t values[] = {0, 1, 127, 128, 255, 300, 16383, 16384, UINT32_MAX, UINT64_MAX / 3, UINT64_MAX};
	static const size_t lengths[] = {1, 1, 1, 2, 2, 2, 2, 3, 5, 9, 10};
	hks_ctx ctx;
	hks_ctx_init(&ctx, NULL, 0, NULL);
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		hks_bytebuf b;
		hks_bytebuf_init(&b, &ctx);
		assert_int_equal(hks_rec_put_varint(&b, values[i]), HKS_OK);
		assert_int_equal(b.size, lengths[i]);
		hks_cursor c = hks_cursor_make(&ctx, b.data, b.size, 0);
		uint64_t v = 0;
		assert_int_equal(hks_rec_get_varint(&c, &v, "v"), HKS_OK);
		assert_true(v == values[i]);
		assert_int_equal(c.pos, b.size);
		/* every truncation is an error */
		for (size_t n = 0; n < b.size; n++) {
			hks_cursor t = hks_cursor_make(&ctx, b.data, n, 0);
			assert_int_equal(hks_rec_get_varint(&t, &v, "v"), HKS_E_TRUNCATED);
		}
		hks_bytebuf_free(&b);
	}
	/* 11 continuation bytes / a tenth byte above 1: more than 64 bits */
	uint8_t big[11];
	memset(big, 0xFF, sizeof(big));
	hks_cursor c = hks_cursor_make(&ctx, big, sizeof(big), 0);
	uint64_t v;
	assert_int_equal(hks_rec_get_varint(&c, &v, "v"), HKS_E_MALFORMED);
	uint8_t ten[10] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02};
	c = hks_cursor_make(&ctx, ten, sizeof(ten), 0);
	assert_int_equal(hks_rec_get_varint(&c, &v, "v"), HKS_E_MALFORMED);
}

static void test_hash(void **state)
{
	(void)state;
	/* FNV-1a 64 reference values: "" and "a" */
	assert_true(hks_record_hash(HKS_RECORD_HASH_SEED, "", 0) == UINT64_C(0xcbf29ce484222325));
	assert_true(hks_record_hash(HKS_RECORD_HASH_SEED, "a", 1) == UINT64_C(0xaf63dc4c8601ec8c));
	/* chaining equals hashing the concatenation */
	uint64_t h = hks_record_hash(HKS_RECORD_HASH_SEED, "foo", 3);
	assert_true(hks_record_hash(h, "bar", 3) == hks_record_hash(HKS_RECORD_HASH_SEED, "foobar", 6));
}

static void test_record_file(void **state)
{
	(void)state;
	static const uint8_t r1[] = {1, 2, 3}, r2[] = {9};
	hks_record_file_entry e[2] = {{3, r1, sizeof(r1)}, {7, r2, sizeof(r2)}};
	uint8_t *bytes = NULL;
	size_t size = 0;
	hks_error err;
	assert_int_equal(hks_record_file_write(e, 2, NULL, &bytes, &size, &err), HKS_OK);
	hks_record_file_entry *back = NULL;
	uint32_t n = 0;
	assert_int_equal(hks_record_file_read(bytes, size, NULL, &back, &n, &err), HKS_OK);
	assert_int_equal(n, 2);
	assert_int_equal(back[0].animation, 3);
	assert_int_equal(back[1].animation, 7);
	assert_int_equal(back[0].size, 3);
	assert_memory_equal(back[0].record, r1, 3);
	assert_memory_equal(back[1].record, r2, 1);
	hks_buffer_free(NULL, back, n * sizeof(*back));
	for (size_t k = 0; k < size; k++) {
		hks_result r = hks_record_file_read(bytes, k, NULL, &back, &n, &err);
		assert_int_not_equal(r, HKS_OK);
		assert_true(err.offset >= 0 && (size_t)err.offset <= k);
	}
	bytes[0] = 'X';
	assert_int_equal(hks_record_file_read(bytes, size, NULL, &back, &n, &err), HKS_E_MALFORMED);
	hks_buffer_free(NULL, bytes, size);
}

/* ---- a synthetic animation ------------------------------------------------- */

enum { NF = 70, NT = 4, NFL = 1 };

typedef struct synth {
	float t[NF * NT * HKS_TRACK_SAMPLE_FLOATS];
	float f[NF * NFL];
	hks_packed_spline *packed;
	hks_animation anim;
} synth;

/* Smooth motion, one static translation, one float track; 3 blocks of at most 32 frames. */
static void synth_build(synth *s)
{
	memset(s, 0, sizeof(*s));
	for (int fr = 0; fr < NF; fr++) {
		float x = (float)fr / (NF - 1);
		for (int t = 0; t < NT; t++) {
			float *v = &s->t[(fr * NT + t) * HKS_TRACK_SAMPLE_FLOATS];
			v[0] = t == 1 ? 0.25f : sinf(3.0f * x + (float)t);
			v[1] = 0.1f * (float)t + 0.3f * x * x;
			v[2] = -0.5f;
			float a = 0.8f * x + 0.2f * (float)t, c = cosf(a), sn = sinf(a);
			v[3] = 0.0f, v[4] = sn * 0.6f, v[5] = sn * 0.8f, v[6] = c;
			v[7] = v[8] = v[9] = 1.0f;
		}
		s->f[fr] = 0.5f + 0.4f * sinf(5.0f * x);
	}
	hks_frames_in in = {NF, NT, NFL, 2.3f, s->t, s->f};
	hks_encode_options o;
	memset(&o, 0, sizeof(o));
	o.max_frames_per_block = 32;
	o.sdk = "20180100";
	hks_error err;
	assert_int_equal(hks_encode_spline(&in, &o, &s->packed, &err), HKS_OK);
	s->anim.kind = HKS_ANIMATION_SPLINE;
	s->anim.class_name = "hkaSplineCompressedAnimation";
	s->anim.type = 3;
	s->anim.duration = s->packed->duration;
	s->anim.number_of_transform_tracks = NT;
	s->anim.number_of_float_tracks = NFL;
	s->anim.reference_frame = -1;
	s->anim.spline = s->packed->header;
	s->anim.object_offset = -1;
	s->anim.data_offset = -1;
}

typedef struct decoded {
	float t[NF * NT * HKS_TRACK_SAMPLE_FLOATS];
	float f[NF * NFL];
	hks_frames_in in;
} decoded;

static void decode(const hks_animation *a, decoded *d)
{
	hks_stored_animation *s = NULL;
	hks_error err;
	assert_int_equal(hks_stored_read(a, NULL, &s, &err), HKS_OK);
	assert_int_equal(hks_sample_frames(s, NULL, 0, NF, d->t, d->f, &err), HKS_OK);
	hks_stored_free(s);
	d->in = (hks_frames_in){NF, NT, NFL, a->duration, d->t, d->f};
}

static int same_data(const hks_packed_spline *p, const hks_spline_header *h)
{
	const hks_spline_header *q = &p->header;
	return q->data_size == h->data_size && !memcmp(q->data, h->data, h->data_size) &&
	       q->num_block_offsets == h->num_block_offsets &&
	       !memcmp(q->block_offsets, h->block_offsets, 4u * h->num_block_offsets) &&
	       q->num_float_block_offsets == h->num_float_block_offsets &&
	       !memcmp(q->float_block_offsets, h->float_block_offsets, 4u * h->num_float_block_offsets);
}

static hks_arena *read_record(const uint8_t *rec, size_t size, hks_ctx *ctx, hks_error *err, hks_rec_anim *ra);

/* A record of version `version` (hks_recompress_version: 9 to the current one). */
static void recompress_as(const synth *s, int no_zlib, unsigned ladder, hks_cpu_model cpu, unsigned version,
                          uint8_t **rec, size_t *size, hks_recompress_report *rep)
{
	hks_recompress_options o;
	memset(&o, 0, sizeof(o));
	o.sdk = "20180100";
	o.no_zlib = no_zlib;
	o.ladder = ladder;
	o.cpu = cpu;
	hks_error err;
	assert_int_equal(hks_recompress_version(&s->anim, &o, version, rec, size, NULL, rep, &err), HKS_OK);
	assert_true(*size > 6);
	assert_memory_equal(*rec, "HKSR", 4);
	assert_int_equal((*rec)[4], version);
}

static void recompress(const synth *s, int no_zlib, unsigned ladder, hks_cpu_model cpu, uint8_t **rec, size_t *size,
                       hks_recompress_report *rep)
{
	recompress_as(s, no_zlib, ladder, cpu, HKS_RECORD_VERSION, rec, size, rep);
}

/* A record of an older version this build still writes (9, 10), applied to the frames: it must give the data
 * back exactly. The caller frees it (hks_buffer_free). */
static uint8_t *recompress_old_applied(const synth *s, const hks_frames_in *in, int no_zlib, unsigned ladder,
                                       hks_cpu_model cpu, unsigned version, size_t *size)
{
	uint8_t *rec = NULL;
	hks_recompress_report rep;
	recompress_as(s, no_zlib, ladder, cpu, version, &rec, size, &rep);
	hks_packed_spline *out = NULL;
	hks_record_apply_report ar;
	hks_error err;
	assert_int_equal(hks_recompress_apply(in, rec, *size, NULL, &out, &ar, &err), HKS_OK);
	assert_true(same_data(out, &s->anim.spline));
	assert_true(ar.data_matches);
	hks_packed_spline_free(out);
	return rec;
}

/* A stored record of version 12 or 13 against the same clip's record of version 14: the same head and entries
 * (index, kind, ladder step, payload), except that from version 14 (HKS_REC_VERSION_HASHLESS_INVERTED) an
 * INVERTED entry keeps no hash where the old one kept it (docs/RECORD.md "INVERTED entries without a hash").
 * (Version 15's corrections come in another order, "Version 15": its payloads differ.) */
static hks_arena *read_record(const uint8_t *rec, size_t size, hks_ctx *ctx, hks_error *err, hks_rec_anim *ra);

static void same_but_inverted_hashes(const uint8_t *old, size_t old_size, const uint8_t *cur, size_t cur_size)
{
	hks_ctx ctx[2];
	hks_error err[2];
	hks_rec_anim ra[2];
	uint8_t *cur_copy = (uint8_t *)malloc(cur_size); /* the caller's record may be relabelled for a test */
	assert_non_null(cur_copy);
	memcpy(cur_copy, cur, cur_size);
	cur_copy[4] = 14;
	hks_arena *arena[2] = {read_record(old, old_size, &ctx[0], &err[0], &ra[0]),
	                       read_record(cur_copy, cur_size, &ctx[1], &err[1], &ra[1])};
	assert_int_equal(ra[0].kind, ra[1].kind);
	assert_int_equal(ra[0].data_hash, ra[1].data_hash);
	assert_int_equal(ra[0].num_entries, ra[1].num_entries);
	unsigned dropped = 0;
	for (uint32_t i = 0; i < ra[0].num_entries; i++) {
		const hks_rec_entry *a = &ra[0].entries[i], *b = &ra[1].entries[i];
		assert_int_equal(a->index, b->index);
		assert_int_equal(a->kind, b->kind);
		assert_int_equal(a->ladder, b->ladder);
		assert_int_equal(a->payload_size, b->payload_size);
		if (a->payload_size)
			assert_memory_equal(a->payload, b->payload, a->payload_size);
		if (a->kind == HKS_REC_ENTRY_INVERTED) {
			assert_true(a->full_hash >= b->full_hash);
			dropped += a->full_hash && !b->full_hash;
		} else {
			assert_int_equal(a->full_hash, b->full_hash);
		}
		if (a->full_hash && b->full_hash)
			assert_int_equal(a->hash, b->hash);
	}
	/* the old body holds 4 hash bytes more per dropped hash; the heads' length fields may differ by a byte */
	assert_true(old_size >= cur_size + 4u * dropped && old_size <= cur_size + 4u * dropped + 2u);
	hks_arena_free(arena[0]);
	hks_arena_free(arena[1]);
	free(cur_copy);
}

/* A stored-body record (flags 0) as version 8 wrote it deflated: "HKSR" 8 0x01 varint body size, raw deflate. */
static void deflate_v8(const uint8_t *rec, size_t size, uint8_t **out, size_t *out_size)
{
	assert_true(size > 7 && rec[5] == 0);
	size_t at = 6;
	while (rec[at] & 0x80u)
		at++;
	at++;
	const uint8_t *body = rec + at;
	size_t body_size = size - at;
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	assert_int_equal(deflateInit2(&zs, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY), Z_OK);
	uLong cap = deflateBound(&zs, (uLong)body_size);
	uint8_t *o = (uint8_t *)malloc(at + cap);
	assert_non_null(o);
	memcpy(o, rec, at);
	o[4] = 8;
	o[5] = 0x01;
	zs.next_in = (Bytef *)body;
	zs.avail_in = (uInt)body_size;
	zs.next_out = o + at;
	zs.avail_out = (uInt)cap;
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	*out_size = at + zs.total_out;
	deflateEnd(&zs);
	*out = o;
}

/* The body of a stored record: its offset (after "HKSR", version, flags and the body size varint) */
static size_t stored_body_at(const uint8_t *rec, size_t size)
{
	assert_true(size > 7 && rec[5] == 0);
	size_t at = 6;
	while (rec[at] & 0x80u)
		at++;
	return at + 1;
}

/* A record of `version`, written and applied exactly (recompress_old_applied), then relabelled `version` + 1 and
 * applied to the same frames: 1 when that is refused or gives other data */
static int relabelled_differs(const synth *s, const decoded *d, int no_zlib, unsigned ladder, hks_cpu_model cpu,
                              unsigned version)
{
	size_t size = 0;
	uint8_t *rec = recompress_old_applied(s, &d->in, no_zlib, ladder, cpu, version, &size);
	rec[4] = (uint8_t)(version + 1);
	hks_packed_spline *out = NULL;
	hks_record_apply_report ar;
	hks_error err;
	int differs = hks_recompress_apply(&d->in, rec, size, NULL, &out, &ar, &err) != HKS_OK ||
	              !same_data(out, &s->anim.spline);
	hks_packed_spline_free(out);
	hks_buffer_free(NULL, rec, size);
	return differs;
}

/* A record of an older version written beside a version 14 record (`rec`, `size`) for the same clip and options,
 * applied exactly (recompress_old_applied). Stored (no_zlib), it is `rec` but for the version byte and the INVERTED
 * entries' hashes; coded, each relabelled as the other is decoded by the other model: refused, or other data,
 * never the original with its hash. */
static void old_version_beside(const synth *s, const decoded *d, int no_zlib, unsigned ladder, hks_cpu_model cpu,
                               unsigned old_version, uint8_t *rec, size_t size)
{
	size_t old_size = 0;
	uint8_t *old = recompress_old_applied(s, &d->in, no_zlib, ladder, cpu, old_version, &old_size);
	if (no_zlib) {
		same_but_inverted_hashes(old, old_size, rec, size);
	} else {
		for (unsigned k = 0; k < 2; k++) {
			uint8_t *r = k ? old : rec;
			uint8_t was = r[4];
			r[4] = (uint8_t)(k ? 14u : old_version);
			hks_packed_spline *out = NULL;
			hks_record_apply_report ar;
			hks_error err;
			hks_result res = hks_recompress_apply(&d->in, r, k ? old_size : size, NULL, &out, &ar, &err);
			if (res == HKS_OK) {
				assert_false(same_data(out, &s->anim.spline) && ar.data_matches);
				hks_packed_spline_free(out);
			} else {
				assert_int_equal(res, HKS_E_MALFORMED);
			}
			r[4] = was;
		}
	}
	hks_buffer_free(NULL, old, old_size);
}

static void test_exact_round_trip(void **state)
{
	(void)state;
	static synth s;
	static decoded d;
	synth_build(&s);
	decode(&s.anim, &d);
	/* the encoder under another CPU model makes the prediction differ: entries */
	static const hks_cpu_model cpus[] = {HKS_CPU_AUTO, HKS_CPU_INTEL, HKS_CPU_EXACT};
	/* one candidate, two, and every ladder step (the selection runs on both sides) */
	static const unsigned ladders[] = {1, 2, HKS_RECORD_LADDER_MAX};
	uint64_t refit_inv = 0;
	unsigned other_prior = 0, other_layout = 0, other_order = 0, other_state = 0, coded_runs = 0, smooth_entries = 0;
	unsigned other_lanes = 0;
	for (unsigned v = 0; v < 3 * 2 * 3; v++) {
		uint8_t *rec = NULL;
		size_t size = 0;
		hks_recompress_report rep;
		recompress(&s, (int)(v & 1), ladders[(v >> 1) % 3], cpus[v / 6], &rec, &size, &rep);
		assert_int_equal(rep.parts, 3u * (3 * NT + NFL));
		assert_int_equal(rep.verbatim_animation, 0);
		assert_int_equal(rep.record_bytes, size);
		/* stored: version 12 stores the ladder steps and override flags unless they are 1 and 8, version 18 unless
		 * they are 2 and 8 */
		if (v & 1)
			assert_int_equal(rec[stored_body_at(rec, size)] & HKS_REC_HEAD_STEPS,
			                 ladders[(v >> 1) % 3] != HKS_REC_IMPLIED_STEPS_TWO ? HKS_REC_HEAD_STEPS : 0);
		hks_packed_spline *out = NULL;
		hks_record_apply_report ar;
		hks_error err;
		assert_int_equal(hks_recompress_apply(&d.in, rec, size, NULL, &out, &ar, &err), HKS_OK);
		assert_true(same_data(out, &s.anim.spline));
		assert_true(ar.data_matches);
		assert_int_equal(ar.applied, ar.entries);
		hks_packed_spline_free(out);
		refit_inv += rep.refit_inv_parts;
		/* versions 3 to 7 are refused with a message that says what to do: their entries are
		 * against the inversions of earlier searches, code control points as XOR runs or carry a full
		 * hash per entry (docs/RECORD.md "Version 8", "Version 7", "Version 6", "Version 5") */
		for (uint8_t v = 3; v <= 7; v++) {
			rec[4] = v;
			assert_int_equal(hks_recompress_apply(&d.in, rec, size, NULL, &out, &ar, &err), HKS_E_UNSUPPORTED);
			assert_non_null(strstr(err.message, "re-create the record with this build"));
		}
		/* version 9 solved the REFIT points with another prior (docs/RECORD.md "Version 10"): its records,
		 * written by this build as version 9 did, still apply exactly; and version 8 had version 9's body,
		 * deflated or stored: a stored v9 body relabelled 8 is a v8 record, and a v8 record with the body
		 * deflated still applies (docs/RECORD.md "Version 9") */
		size_t v9_size = 0;
		uint8_t *v9 = recompress_old_applied(&s, &d.in, (int)(v & 1), ladders[(v >> 1) % 3], cpus[v / 6], 9, &v9_size);
		v9[4] = 8;
		if (v & 1) {
			assert_int_equal(hks_recompress_apply(&d.in, v9, v9_size, NULL, &out, &ar, &err), HKS_OK);
			assert_true(same_data(out, &s.anim.spline));
			hks_packed_spline_free(out);
			uint8_t *v8 = NULL;
			size_t v8_size = 0;
			deflate_v8(v9, v9_size, &v8, &v8_size);
			assert_int_equal(hks_recompress_apply(&d.in, v8, v8_size, NULL, &out, &ar, &err), HKS_OK);
			assert_true(same_data(out, &s.anim.spline));
			assert_true(ar.data_matches);
			hks_packed_spline_free(out);
			/* version 9 does not write deflate: the flag is unknown there */
			v8[4] = 9;
			assert_int_equal(hks_recompress_apply(&d.in, v8, v8_size, NULL, &out, &ar, &err), HKS_E_MALFORMED);
			free(v8);
		} else {
			/* a modelled body is no v8 record */
			assert_int_equal(hks_recompress_apply(&d.in, v9, v9_size, NULL, &out, &ar, &err), HKS_E_MALFORMED);
		}
		hks_buffer_free(NULL, v9, v9_size);
		/* version 10 (one correction list, every entry on the polyline prior) is still written and applied */
		size_t v10_size = 0;
		uint8_t *v10 = recompress_old_applied(&s, &d.in, (int)(v & 1), ladders[(v >> 1) % 3], cpus[v / 6], 10, &v10_size);
		hks_buffer_free(NULL, v10, v10_size);
		/* version 11 (the head of versions 8 to 11: 4 duration bytes, 8 hash bytes) is still written and
		 * applied */
		size_t v11_size = 0;
		uint8_t *v11 = recompress_old_applied(&s, &d.in, (int)(v & 1), ladders[(v >> 1) % 3], cpus[v / 6], 11, &v11_size);
		assert_true(v11_size > size); /* version 12's head is smaller */
		hks_buffer_free(NULL, v11, v11_size);
		/* versions 12 (version 13's body, coded by version 12's model; docs/RECORD.md "Version 13") and 13
		 * (version 14's body but for the INVERTED entries' hashes, coded without the trained start state;
		 * "Version 14") are still written and applied beside this version */
		size_t v14_size = 0;
		uint8_t *v14 = recompress_old_applied(&s, &d.in, (int)(v & 1), ladders[(v >> 1) % 3], cpus[v / 6], 14, &v14_size);
		old_version_beside(&s, &d, (int)(v & 1), ladders[(v >> 1) % 3], cpus[v / 6], 12, v14, v14_size);
		old_version_beside(&s, &d, (int)(v & 1), ladders[(v >> 1) % 3], cpus[v / 6], 13, v14, v14_size);
		/* version 14 (each list's corrections in slot order, docs/RECORD.md "Version 15") is still written and
		 * applied; relabelled 15, its corrections land on other slots */
		v14[4] = 15;
		if (hks_recompress_apply(&d.in, v14, v14_size, NULL, &out, &ar, &err) != HKS_OK || !same_data(out, &s.anim.spline))
			other_order++;
		hks_packed_spline_free(out);
		out = NULL;
		hks_buffer_free(NULL, v14, v14_size);
		/* version 15 (knot edits against the inverter's own tries only, its body coded from version 14's start
		 * state; docs/RECORD.md "Version 16") is still written and applied; relabelled 16, its body is decoded
		 * from version 16's start state: refused, or other data */
		other_state += (unsigned)relabelled_differs(&s, &d, (int)(v & 1), ladders[(v >> 1) % 3], cpus[v / 6], 15);
		coded_runs += !(v & 1); /* a stored body (no_zlib) is read alike by both: its tries are the inverter's */
		/* version 16 (each correction on its own slot but for the pairs; docs/RECORD.md "Lanes solved again since
		 * version 17") is still written and applied; relabelled 17, a correction moves the rest of its lane */
		other_lanes += (unsigned)relabelled_differs(&s, &d, (int)(v & 1), ladders[(v >> 1) % 3], cpus[v / 6], 16);
		/* version 17 (one ladder step unless the head says more, step 1 at 0.001; docs/RECORD.md "Two ladder steps
		 * since version 18") is still written and applied. This clip's entries take no hybrid of step 1, so read
		 * as version 18 it would give the same data; corpus_recompress requires entries that do. */
		size_t v17_size = 0;
		uint8_t *v17 = recompress_old_applied(&s, &d.in, (int)(v & 1), ladders[(v >> 1) % 3], cpus[v / 6], 17, &v17_size);
		if (v & 1) /* stored: version 17 leaves one step implied, version 18 two */
			assert_int_equal(v17[stored_body_at(v17, v17_size)] & HKS_REC_HEAD_STEPS,
			                 ladders[(v >> 1) % 3] != HKS_REC_IMPLIED_STEPS ? HKS_REC_HEAD_STEPS : 0);
		{ /* and read back, stored or coded, with the steps it was written with */
			hks_ctx rctx;
			hks_rec_anim ra;
			hks_arena *arena = read_record(v17, v17_size, &rctx, &err, &ra);
			assert_int_equal(ra.ladder_count, ladders[(v >> 1) % 3]);
			hks_arena_free(arena);
		}
		hks_buffer_free(NULL, v17, v17_size);
		/* version 18 (knot edits as differences; docs/RECORD.md "Knot edits as ranks since version 19") is still
		 * written and applied: test_invert's run of one-frame spans reads each as the other */
		size_t v18_size = 0;
		hks_buffer_free(NULL,
		                recompress_old_applied(&s, &d.in, (int)(v & 1), ladders[(v >> 1) % 3], cpus[v / 6], 18, &v18_size),
		                v18_size);
		/* version 19 (bounds offset from the solve's extremes alone; docs/RECORD.md "Bound bases since version 20")
		 * is still written and applied */
		size_t v19_size = 0;
		hks_buffer_free(NULL,
		                recompress_old_applied(&s, &d.in, (int)(v & 1), ladders[(v >> 1) % 3], cpus[v / 6], 19, &v19_size),
		                v19_size);
		/* version 20 (the entries' gaps and kinds coded without their units' part kinds; docs/RECORD.md "Body
		 * coding", "Since version 21") is still written and applied */
		size_t v20_size = 0;
		hks_buffer_free(NULL,
		                recompress_old_applied(&s, &d.in, (int)(v & 1), ladders[(v >> 1) % 3], cpus[v / 6], 20, &v20_size),
		                v20_size);
		/* version 11 entries: REFIT_INV entries that name the smooth prior (bit 7 of the try byte) */
		{
			hks_ctx rctx;
			hks_rec_anim ra;
			rec[4] = HKS_RECORD_VERSION; /* relabelled above */
			hks_arena *arena = read_record(rec, size, &rctx, &err, &ra);
			assert_int_equal(ra.ladder_count, ladders[(v >> 1) % 3]); /* implied (2) or stored */
			for (uint32_t i = 0; i < ra.num_entries; i++)
				smooth_entries += ra.entries[i].kind == HKS_REC_ENTRY_REFIT_INV && (ra.entries[i].payload[0] & 0x80u);
			hks_arena_free(arena);
		}
		/* this record relabelled 10: the corrections are read as one list, or the prior bit as a try */
		rec[4] = 10;
		if (hks_recompress_apply(&d.in, rec, size, NULL, &out, &ar, &err) != HKS_OK || !same_data(out, &s.anim.spline))
			other_layout++;
		hks_packed_spline_free(out);
		out = NULL;
		/* relabelled 9: the points the frames leave free come out of the other prior */
		rec[4] = 9;
		if (hks_recompress_apply(&d.in, rec, size, NULL, &out, &ar, &err) != HKS_OK || !same_data(out, &s.anim.spline))
			other_prior++;
		hks_packed_spline_free(out);
		out = NULL;
		/* a newer version is refused */
		rec[4] = HKS_RECORD_VERSION + 1;
		assert_int_equal(hks_recompress_apply(&d.in, rec, size, NULL, &out, &ar, &err), HKS_E_UNSUPPORTED);
		/* a version-1 record (entries row by row, "no entry" = step 0) is no longer read */
		rec[4] = 1;
		assert_int_equal(hks_recompress_apply(&d.in, rec, size, NULL, &out, &ar, &err), HKS_E_UNSUPPORTED);
		hks_buffer_free(NULL, rec, size);
	}
	/* the knot-edit entries (REFIT_INV) are exercised: the synthetic curves' inversions miss some knots */
	assert_true(refit_inv > 0);
	/* and the version's prior matters: some record read with version 9's prior gives other data */
	printf("records that version 9's prior does not reproduce: %u of 18\n", other_prior);
	assert_true(other_prior > 0);
	/* and version 11's layout: some record read as version 10 gives other data. The synthetic clip's knot
	 * edits are all of degree 1, where the two priors agree, so no entry names the smooth prior; the corpus
	 * test (corpus_recompress) requires such entries */
	printf("records that version 10's layout does not reproduce: %u of 18\n", other_layout);
	assert_true(other_layout > 0);
	assert_int_equal(smooth_entries, 0);
	/* and version 15's order of doubt: some version 14 record read as version 15 gives other data */
	printf("version 14 records that version 15's order does not reproduce: %u of 18\n", other_order);
	assert_true(other_order > 0);
	printf("coded version 15 records that version 16's start state does not decode to the same data: %u of %u\n",
	       other_state, coded_runs);
	assert_true(coded_runs > 0);
	assert_int_equal(other_state, coded_runs);
	/* and version 17's lanes solved again: some version 16 record read as version 17 gives other data */
	printf("version 16 records that version 17's lanes do not reproduce: %u of 18\n", other_lanes);
	assert_true(other_lanes > 0);
	hks_packed_spline_free(s.packed);
}

static void test_truncated_and_corrupted(void **state)
{
	(void)state;
	static synth s;
	static decoded d;
	synth_build(&s);
	decode(&s.anim, &d);
	for (int z = 0; z < 2; z++) {
		uint8_t *rec = NULL;
		size_t size = 0;
		hks_recompress_report rep;
		recompress(&s, !z, 2, HKS_CPU_INTEL, &rec, &size, &rep);
		hks_error err;
		hks_packed_spline *out = NULL;
		/* every truncation: a clean error with an offset inside the record */
		for (size_t n = 0; n < size; n++) {
			/* (the coded body: its length and check say so, tests/test_record_model.c) */
			hks_result r = hks_recompress_apply(&d.in, rec, n, NULL, &out, NULL, &err);
			assert_int_not_equal(r, HKS_OK);
			assert_null(out);
			assert_true(err.offset <= (int64_t)size);
		}
		/* every single-byte corruption: an error, or an output whose data hash tells it apart */
		uint8_t *bad = (uint8_t *)malloc(size);
		assert_non_null(bad);
		unsigned errors = 0, detected = 0;
		for (size_t i = 0; i < size; i++) {
			memcpy(bad, rec, size);
			bad[i] ^= 0x5A;
			hks_record_apply_report ar;
			hks_result r = hks_recompress_apply(&d.in, bad, size, NULL, &out, &ar, &err);
			if (r != HKS_OK) {
				errors++;
				assert_null(out);
				continue;
			}
			if (!ar.data_matches || !same_data(out, &s.anim.spline))
				detected++;
			else /* a flip that changes nothing the output depends on (e.g. a hash of an entry) */
				assert_true(same_data(out, &s.anim.spline));
			hks_packed_spline_free(out);
			out = NULL;
		}
		printf("record %zu B (%s): %u corruptions rejected, %u produced other data\n", size, z ? "coded" : "raw",
		       errors, detected);
		assert_true(errors > 0);
		free(bad);
		/* wrong frame counts */
		hks_frames_in other = d.in;
		other.num_frames = NF - 1;
		assert_int_equal(hks_recompress_apply(&other, rec, size, NULL, &out, NULL, &err), HKS_E_MISMATCH);
		hks_buffer_free(NULL, rec, size);
	}
	hks_packed_spline_free(s.packed);
}

/* Edit one transform unit's frames in every frame: a rotation turned towards x, a translation or scale
 * lane ramped. */
static void edit_unit(decoded *d, unsigned kind, unsigned track)
{
	for (int fr = 0; fr < NF; fr++) {
		float *x = &d->t[(fr * NT + (int)track) * HKS_TRACK_SAMPLE_FLOATS];
		if (kind == 1) {
			float *q = x + 3;
			q[0] = 0.1f;
			float n = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
			for (int k = 0; k < 4; k++)
				q[k] /= n;
		} else {
			x[kind == 0 ? 0 : 7] += 0.01f * (float)fr;
		}
	}
}

/* The synthetic animation, its frames, and a record made with the Intel model on Zen-encoded data (the
 * prediction misses: the record carries many parts). */
static void intel_record(synth *s, decoded *d, uint8_t **rec, size_t *size)
{
	hks_recompress_report rep;
	synth_build(s);
	decode(&s->anim, d);
	recompress(s, 0, 2, HKS_CPU_INTEL, rec, size, &rep);
	assert_true(rep.entries > 0);
}

static void test_edit_keeps_other_parts(void **state)
{
	(void)state;
	static synth s;
	static decoded d;
	uint8_t *rec = NULL;
	size_t size = 0;
	intel_record(&s, &d, &rec, &size);
	edit_unit(&d, 1, 2); /* track 2's rotation */
	hks_packed_spline *out = NULL;
	hks_record_apply_report ar;
	hks_error err;
	assert_int_equal(hks_recompress_apply(&d.in, rec, size, NULL, &out, &ar, &err), HKS_OK);
	assert_false(ar.data_matches);
	assert_int_equal(ar.applied + ar.refitted, ar.entries);
	hks_animation ea = s.anim;
	ea.spline = out->header;
	hks_stored_animation *os = NULL, *es = NULL;
	assert_int_equal(hks_stored_read(&s.anim, NULL, &os, &err), HKS_OK);
	assert_int_equal(hks_stored_read(&ea, NULL, &es, &err), HKS_OK);
	for (uint32_t b = 0; b < os->num_blocks; b++)
		for (uint32_t t = 0; t < NT; t++)
			for (int k = 0; k < 3; k++) {
				const hks_stored_part *p = &os->blocks[b].tracks[t].part[k], *q = &es->blocks[b].tracks[t].part[k];
				if (t == 2 && k == 1)
					continue;
				assert_int_equal(p->flags, q->flags);
				assert_int_equal(p->num_control_points, q->num_control_points);
				if (p->num_knots)
					assert_memory_equal(p->knots, q->knots, p->num_knots);
				if (k == 1 && p->num_control_points)
					assert_memory_equal(p->packed, q->packed,
					                    (size_t)p->num_control_points * hks_rotation_size(p->quantization));
			}
	/* the edited rotation decodes near the edited frames */
	static float t2[NF * NT * HKS_TRACK_SAMPLE_FLOATS], f2[NF];
	assert_int_equal(hks_sample_frames(es, NULL, 0, NF, t2, f2, &err), HKS_OK);
	for (int fr = 0; fr < NF; fr++)
		for (int k = 3; k < 7; k++) {
			size_t at = (size_t)(fr * NT + 2) * HKS_TRACK_SAMPLE_FLOATS + (size_t)k;
			assert_true(fabsf(t2[at] - d.t[at]) < 0.01f);
		}
	hks_stored_free(os);
	hks_stored_free(es);
	hks_packed_spline_free(out);
	hks_buffer_free(NULL, rec, size);
	hks_packed_spline_free(s.packed);
}

/* Other edits of one unit's frames, to reach the ways a hash-free entry can fail to build: 1 holds the unit
 * at its first frame (spline lanes become static), 2 jitters it frame by frame (more knots, other bounds), 3
 * scales it far outside its bounds (a rotation's components are swapped), 4 holds its second lane only. */
static void edit_unit_variant(decoded *d, unsigned kind, unsigned track, int variant)
{
	if (variant == 0) {
		edit_unit(d, kind, track);
		return;
	}
	const float *first = &d->t[track * HKS_TRACK_SAMPLE_FLOATS];
	unsigned lo = kind == 0 ? 0 : kind == 1 ? 3 : 7, n = kind == 1 ? 4 : 3;
	for (int fr = 1; fr < NF; fr++) {
		float *x = &d->t[(fr * NT + (int)track) * HKS_TRACK_SAMPLE_FLOATS] + lo;
		if (variant == 1) {
			memcpy(x, first + lo, n * sizeof(float));
		} else if (variant == 4) {
			x[1] = first[lo + 1];
		} else if (variant == 2) {
			x[fr % n] += (fr % 3 - 1) * 0.05f;
		} else if (kind == 1) {
			float t = x[0];
			x[0] = x[1];
			x[1] = t;
		} else {
			for (unsigned k = 0; k < n; k++)
				x[k] *= 100.0f;
		}
		if (kind == 1 && variant == 2) {
			float m = sqrtf(x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + x[3] * x[3]);
			for (unsigned k = 0; k < 4; k++)
				x[k] /= m;
		}
	}
}

/* The record parsed into ra (its arrays in the returned arena); ctx reports into err, default options. */
static hks_arena *read_record(const uint8_t *rec, size_t size, hks_ctx *ctx, hks_error *err, hks_rec_anim *ra)
{
	hks_options o;
	memset(&o, 0, sizeof(o)); /* the defaults */
	hks_ctx_init(ctx, &o, 0, err);
	hks_arena *arena = hks_arena_create(ctx);
	assert_non_null(arena);
	hks_result r = hks_rec_read(ctx, arena, rec, size, ra);
	if (r != HKS_OK)
		printf("record of %zu bytes, version %u: %s\n", size, size > 4 ? rec[4] : 0u, err->message);
	assert_int_equal(r, HKS_OK);
	return arena;
}

/* The synthetic clip, its frames and its Intel-model record, parsed (the v8 editing tests) */
typedef struct record_fixture {
	synth s;
	decoded d;
	uint8_t *rec;
	size_t size;
	hks_error err;
	hks_ctx ctx;
	hks_rec_anim ra;
	hks_arena *arena;
} record_fixture;

static void fixture_open(record_fixture *fx)
{
	fx->rec = NULL;
	fx->size = 0;
	intel_record(&fx->s, &fx->d, &fx->rec, &fx->size);
	fx->arena = read_record(fx->rec, fx->size, &fx->ctx, &fx->err, &fx->ra);
}

static void fixture_close(record_fixture *fx)
{
	hks_arena_free(fx->arena);
	hks_buffer_free(NULL, fx->rec, fx->size);
	hks_packed_spline_free(fx->s.packed);
}

/* Version 15 signs a correction by its slot's rounding direction (docs/RECORD.md "In order of doubt since version
 * 15"). A hostile code of 2^64 − 1 unzigzags to INT64_MIN, which negated overflowed before the range check moved
 * in front of it (session 22 review; UBSan reported it). Each REFIT entry's correction replaced by one item, the
 * code 2^64 − 1 at each of its list's first slots: no such record applies, and nothing overflows (the sanitizer
 * job runs this test). */
static void test_hostile_signed_code(void **state)
{
	(void)state;
	static record_fixture fx;
	fixture_open(&fx);
	unsigned tried = 0, refused = 0;
	for (uint32_t i = 0; i < fx.ra.num_entries; i++) {
		hks_rec_entry *e = &fx.ra.entries[i];
		if (e->kind != HKS_REC_ENTRY_REFIT && e->kind != HKS_REC_ENTRY_REFIT_PATCHED &&
		    e->kind != HKS_REC_ENTRY_REFIT_INV)
			continue;
		/* REFIT: varint prefix size and the coded prefix; REFIT_PATCHED: runs patching the prediction's prefix
		 * (varint runs; per run varint gap, varint length, the bytes); then the correction (docs/RECORD.md
		 * "Byte layout") */
		hks_cursor c = hks_cursor_make(&fx.ctx, e->payload, e->payload_size, 0);
		uint64_t n = 0, gap0 = 0, len = 0;
		assert_int_equal(hks_rec_get_varint(&c, &n, "prefix size or runs"), HKS_OK);
		uint32_t u = e->index % (3 * NT + NFL);
		unsigned part = u < 3 * NT ? u % 3 : 3;
		static const uint8_t probe[13] = {0, 1, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01};
		if (e->kind == HKS_REC_ENTRY_REFIT_INV) {
			/* self-delimiting: the last place where the payload's walk accepts the new correction */
			c.pos = 0;
			for (size_t at = e->payload_size; at-- > 1;) {
				uint8_t tmp[1024 + 13];
				if (at > 1024)
					continue;
				memcpy(tmp, e->payload, at);
				memcpy(tmp + at, probe, 13);
				if (hks_rec_refit_inv_length(part, tmp, at + 13, HKS_RECORD_VERSION) == at + 13) {
					c.pos = at;
					break;
				}
			}
			if (!c.pos)
				continue;
		} else if (e->kind == HKS_REC_ENTRY_REFIT) {
			c.pos += (size_t)n;
		} else {
			for (uint64_t k = 0; k < n; k++) {
				assert_int_equal(hks_rec_get_varint(&c, &gap0, "gap"), HKS_OK);
				assert_int_equal(hks_rec_get_varint(&c, &len, "length"), HKS_OK);
				c.pos += (size_t)len;
			}
		}
		size_t head = c.pos;
		assert_true(head <= e->payload_size);
		const uint8_t *payload = e->payload;
		uint32_t payload_size = e->payload_size;
		for (unsigned gap = 0; gap < 8; gap++) {
			/* list 0 (the hidden points') empty, list 1 one item: the gap, then the code 2^64 − 1 */
			uint8_t tail[16] = {0, 1, (uint8_t)gap, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01};
			uint8_t *np = (uint8_t *)hks_arena_alloc(fx.arena, head + 13);
			assert_non_null(np);
			memcpy(np, payload, head);
			memcpy(np + head, tail, 13);
			e->payload = np;
			e->payload_size = (uint32_t)(head + 13);
			uint8_t *w = NULL;
			size_t wn = 0;
			assert_int_equal(hks_rec_write(&fx.ctx, &fx.ra, 1, &w, &wn), HKS_OK);
			hks_packed_spline *out = NULL;
			hks_record_apply_report ar;
			memset(&ar, 0, sizeof(ar));
			hks_result r = hks_recompress_apply(&fx.d.in, w, wn, NULL, &out, &ar, &fx.err);
			/* refused, or (an entry without a hash whose build fails) the unit fitted afresh ("Hash") */
			assert_true(r == HKS_E_MALFORMED || (r == HKS_OK && ar.refitted > 0 && !ar.data_matches));
			refused += r != HKS_OK;
			hks_packed_spline_free(out);
			hks_buffer_free(NULL, w, wn);
			tried++;
		}
		e->payload = payload;
		e->payload_size = payload_size;
	}
	printf("hostile codes tried: %u, refused %u\n", tried, refused);
	assert_true(tried > 0);
	fixture_close(&fx);
}

/* v16: a REFIT_INV entry's try byte names any of the 128 tries (the inverter's, the hybrids, none), with the
 * prior bit kept: every record is refused or applied, never read out of bounds (run under the sanitizers in CI),
 * and a try past the last one the unit can have is refused or its unit fitted afresh (docs/RECORD.md "Hybrid tries
 * since version 16"). */
static void test_hostile_try(void **state)
{
	(void)state;
	static record_fixture fx;
	fixture_open(&fx);
	unsigned tried = 0, refused = 0, entries = 0;
	for (uint32_t i = 0; i < fx.ra.num_entries; i++) {
		hks_rec_entry *e = &fx.ra.entries[i];
		if (e->kind != HKS_REC_ENTRY_REFIT_INV || !e->payload_size)
			continue;
		entries++;
		uint8_t *np = (uint8_t *)hks_arena_alloc(fx.arena, e->payload_size);
		assert_non_null(np);
		memcpy(np, e->payload, e->payload_size);
		const uint8_t *payload = e->payload;
		e->payload = np;
		unsigned refused_here = 0;
		for (unsigned t = 0; t < 128; t++) {
			np[0] = (uint8_t)(t | (payload[0] & 0x80u));
			uint8_t *w = NULL;
			size_t wn = 0;
			assert_int_equal(hks_rec_write(&fx.ctx, &fx.ra, (int)(t & 1), &w, &wn), HKS_OK);
			hks_packed_spline *out = NULL;
			hks_record_apply_report ar;
			memset(&ar, 0, sizeof(ar));
			hks_result r = hks_recompress_apply(&fx.d.in, w, wn, NULL, &out, &ar, &fx.err);
			assert_true(r == HKS_OK || r == HKS_E_MALFORMED);
			/* a try past the inverter's six and the three hybrids: refused, or (an entry without a hash whose
			 * build fails) the unit fitted afresh ("Hash") */
			if (t >= 9)
				assert_true(r == HKS_E_MALFORMED || (ar.refitted > 0 && !ar.data_matches));
			refused_here += r != HKS_OK || ar.refitted > 0;
			hks_packed_spline_free(out);
			hks_buffer_free(NULL, w, wn);
			tried++;
		}
		assert_true(refused_here >= 128 - 9);
		refused += refused_here;
		e->payload = payload;
	}
	printf("hostile tries: %u knot-edit entries, %u records, refused or refitted %u\n", entries, tried, refused);
	assert_true(entries > 0);
	fixture_close(&fx);
}

static uint32_t g_edit_applied; /* hash-free entries of edited units that decode to the edited frames */

/* v8: an entry without a hash applies only when the part it builds decodes to the unit's frames. Edit the
 * frames of a unit that has such entries: applying the record must give what applying it without those
 * entries gives (the fresh fit), with no error, and count them as refitted. Every unit with such entries,
 * under each edit of edit_unit_variant: an edit can make the entry's build fail in any of its readers (a truncated
 * canonical form, a prefix longer than the prediction), not only give other frames (session 11 review). */
static void check_edited_unit(uint32_t target, int variant)
{
	static record_fixture fx;
	fixture_open(&fx);
	hks_packed_spline *out = NULL;
	hks_record_apply_report ar;
	const uint32_t per = 3 * NT + NFL;
	static float before[sizeof(fx.d.t) / sizeof(float)];
	memcpy(before, fx.d.t, sizeof(fx.d.t));
	edit_unit_variant(&fx.d, target % 3, target / 3, variant);
	int changed = memcmp(before, fx.d.t, sizeof(fx.d.t)) != 0;
	/* the reference: the record without the unit's hash-free entries */
	uint32_t kept = 0, dropped = 0, hashed = 0;
	for (uint32_t i = 0; i < fx.ra.num_entries; i++) {
		hashed += fx.ra.entries[i].index % per == target && fx.ra.entries[i].full_hash;
		if (fx.ra.entries[i].index % per == target && !fx.ra.entries[i].full_hash) {
			dropped++;
			continue;
		}
		fx.ra.entries[kept++] = fx.ra.entries[i];
	}
	assert_true(dropped > 0);
	fx.ra.num_entries = kept;
	uint8_t *w = NULL;
	size_t wn = 0;
	assert_int_equal(hks_rec_write(&fx.ctx, &fx.ra, 0, &w, &wn), HKS_OK);
	hks_packed_spline *ref = NULL;
	assert_int_equal(hks_recompress_apply(&fx.d.in, w, wn, NULL, &ref, NULL, &fx.err), HKS_OK);
	hks_result r = hks_recompress_apply(&fx.d.in, fx.rec, fx.size, NULL, &out, &ar, &fx.err);
	if (r != HKS_OK)
		printf("unit %u, edit %d: %s\n", target, variant, fx.err.message);
	assert_int_equal(r, HKS_OK);
	assert_int_equal(ar.applied + ar.refitted, ar.entries);
	if (changed) {
		assert_false(ar.data_matches);
		/* Every other unit decodes as without the entries. The edited unit, per block, either kept the fresh
		 * fit (as without them) or took an entry whose part decodes to the edited frames bit for bit (an edit
		 * the original's knots and grid reproduce, e.g. a lane held at a value): never further from them. */
		static decoded od, rd;
		hks_animation oa = fx.s.anim, rda = fx.s.anim;
		oa.spline = out->header;
		rda.spline = ref->header;
		decode(&oa, &od);
		decode(&rda, &rd);
		static const unsigned lane0[3] = {0, 3, 7}, nl[3] = {3, 4, 3};
		for (int fr = 0; fr < NF; fr++) {
			for (uint32_t u = 0; u < 3 * NT; u++)
				for (unsigned l = 0; l < nl[u % 3]; l++) {
					size_t at = (size_t)(fr * NT + (int)(u / 3)) * HKS_TRACK_SAMPLE_FLOATS + lane0[u % 3] + l;
					if (u != target) { /* every entry of the other units applied: the original frames */
						assert_memory_equal(&od.t[at], &before[at], sizeof(float));
						continue;
					}
					/* the fresh fit, or an entry exact for the edited frames */
					assert_true(!memcmp(&od.t[at], &rd.t[at], sizeof(float)) ||
					            !memcmp(&od.t[at], &fx.d.t[at], sizeof(float)));
				}
			assert_memory_equal(&od.f[fr * NFL], &fx.d.f[fr * NFL], NFL * sizeof(float));
		}
		/* the unit's entries with a hash are refitted in both (their frames changed, when a block's did) */
		assert_true(ar.refitted <= dropped + hashed);
		if (ar.refitted == dropped + hashed)
			assert_true(same_data(out, &ref->header));
		g_edit_applied += dropped + hashed - (uint32_t)ar.refitted;
	} else { /* a held lane that was constant already: the record gives the original */
		assert_true(ar.data_matches);
		assert_true(same_data(out, &fx.s.anim.spline));
	}
	hks_packed_spline_free(ref);
	hks_packed_spline_free(out);
	hks_buffer_free(NULL, w, wn);
	fixture_close(&fx);
}

/* A hash-free entry that cannot be built counts as an edited unit, whatever its reader says: every DIFF and
 * REFIT_PATCHED entry of the synthetic record with its payload one byte short (a reader then runs out:
 * HKS_E_TRUNCATED, which the first v8 apply reported as an error, or finds a contradiction), applied to the
 * unedited frames: no error, the entry refitted, and the data hash telling the output apart unless it is
 * the original. */
static void test_unbuildable_entry(void **state)
{
	(void)state;
	static record_fixture fx;
	fixture_open(&fx);
	unsigned tried = 0;
	for (uint32_t i = 0; i < fx.ra.num_entries; i++) {
		hks_rec_entry *e = &fx.ra.entries[i];
		if (e->full_hash || e->payload_size == 0 ||
		    (e->kind != HKS_REC_ENTRY_DIFF && e->kind != HKS_REC_ENTRY_REFIT_PATCHED))
			continue;
		e->payload_size--;
		uint8_t *w = NULL;
		size_t wn = 0;
		assert_int_equal(hks_rec_write(&fx.ctx, &fx.ra, 0, &w, &wn), HKS_OK);
		e->payload_size++;
		hks_packed_spline *out = NULL;
		hks_record_apply_report ar;
		hks_result r = hks_recompress_apply(&fx.d.in, w, wn, NULL, &out, &ar, &fx.err);
		if (r != HKS_OK)
			printf("entry %u (kind %u) one byte short: %s\n", i, e->kind, fx.err.message);
		assert_int_equal(r, HKS_OK);
		assert_true(ar.refitted >= 1);
		assert_int_equal(ar.applied + ar.refitted, ar.entries);
		assert_int_equal(ar.data_matches, same_data(out, &fx.s.anim.spline));
		tried++;
		hks_packed_spline_free(out);
		hks_buffer_free(NULL, w, wn);
	}
	printf("%u entries one byte short, each counted as refitted\n", tried);
	assert_true(tried >= 2);
	fixture_close(&fx);
}

static void test_edited_unit_verified(void **state)
{
	(void)state;
	static record_fixture fx;
	fixture_open(&fx);
	/* the transform units with an entry that has no hash */
	const uint32_t per = 3 * NT + NFL;
	uint8_t has[3 * NT] = {0};
	unsigned hashed = 0, units = 0;
	for (uint32_t i = 0; i < fx.ra.num_entries; i++) {
		hashed += fx.ra.entries[i].full_hash;
		uint32_t u = fx.ra.entries[i].index % per;
		if (!fx.ra.entries[i].full_hash && u < 3 * NT && !has[u]) {
			has[u] = 1;
			units++;
		}
	}
	assert_true(units > 0);
	assert_true(hashed < fx.ra.num_entries);
	fixture_close(&fx);
	for (uint32_t u = 0; u < 3 * NT; u++)
		for (int v = 0; has[u] && v < 5; v++)
			check_edited_unit(u, v);
	printf("%u units with hash-free entries, 5 edits each; %u of their entries decode to the edited frames\n",
	       units, g_edit_applied);
}

/* Version 14: INVERTED entries keep no unit hash (docs/RECORD.md "INVERTED entries without a hash"); version 13
 * kept one on each. The synthetic clip's record at both versions, parsed: the same entries, the hashes only
 * where the version keeps them, and each applied to the frames gives the original (test_edited_unit_verified
 * edits the units of the hash-free ones). */
static void test_inverted_entries_hash(void **state)
{
	(void)state;
	static synth s;
	static decoded d;
	synth_build(&s);
	decode(&s.anim, &d);
	unsigned inverted[2] = {0, 0}, hashed[2] = {0, 0};
	for (unsigned k = 0; k < 2; k++) {
		unsigned version = k ? HKS_RECORD_VERSION : 13u;
		size_t size = 0;
		uint8_t *rec = recompress_old_applied(&s, &d.in, 0, 2, HKS_CPU_INTEL, version, &size);
		hks_error err;
		hks_ctx ctx;
		hks_rec_anim ra;
		hks_arena *arena = read_record(rec, size, &ctx, &err, &ra);
		for (uint32_t i = 0; i < ra.num_entries; i++)
			if (ra.entries[i].kind == HKS_REC_ENTRY_INVERTED) {
				inverted[k]++;
				hashed[k] += ra.entries[i].full_hash;
			}
		hks_arena_free(arena);
		hks_buffer_free(NULL, rec, size);
	}
	printf("INVERTED entries: %u (version 13, %u with a hash), %u (version %u, %u with a hash)\n", inverted[0],
	       hashed[0], inverted[1], HKS_RECORD_VERSION, hashed[1]);
	assert_true(inverted[0] > 0);
	assert_int_equal(inverted[1], inverted[0]);
	assert_int_equal(hashed[0], inverted[0]);
	assert_int_equal(hashed[1], HKS_RECORD_VERSION >= HKS_REC_VERSION_HASHLESS_INVERTED ? 0u : inverted[1]);
}

/* A verbatim record whose data is empty and ends the input: applying it read
 * one byte past the input (fuzz_record, CI of session 5). The record is copied
 * into a buffer of exactly its size so ASan sees any read beyond it. */
static void test_verbatim_empty_data_at_end(void **state)
{
	(void)state;
	hks_options o;
	memset(&o, 0, sizeof(o));
	hks_error err;
	hks_ctx ctx;
	hks_ctx_init(&ctx, &o, 0, &err);
	uint32_t offsets[2] = {0, 0};
	hks_rec_anim r;
	memset(&r, 0, sizeof(r));
	r.version = HKS_RECORD_VERSION;
	r.kind = HKS_REC_ANIM_VERBATIM;
	r.cpu = HKS_CPU_INTEL; /* version 12 keeps the CPU model in two bits of the head flags: 1 to 4 */
	r.num_frames = 2;
	r.num_transform_tracks = 1;
	r.max_frames_per_block = 2;
	r.num_blocks = 1;
	float one = 1.0f;
	memcpy(&r.duration_bits, &one, 4);
	r.ladder_count = 1;
	r.num_block_offsets = 1;
	r.block_offsets = offsets;
	r.float_block_offsets = offsets;
	r.data_size = 0;
	uint8_t *w = NULL;
	size_t wn = 0;
	assert_int_equal(hks_rec_write(&ctx, &r, 1, &w, &wn), HKS_OK);
	uint8_t *exact = (uint8_t *)malloc(wn);
	assert_non_null(exact);
	memcpy(exact, w, wn);
	hks_buffer_free(NULL, w, wn);
	float t[2 * HKS_TRACK_SAMPLE_FLOATS] = {0};
	t[6] = t[16] = 1.0f;
	hks_frames_in in = {2, 1, 0, 1.0f, t, NULL};
	hks_packed_spline *out = NULL;
	hks_result res = hks_recompress_apply(&in, exact, wn, NULL, &out, NULL, &err);
	if (res == HKS_OK) {
		assert_non_null(out);
		assert_int_equal(out->header.data_size, 0);
		assert_non_null(out->header.data);
		hks_packed_spline_free(out);
	} else {
		assert_int_not_equal(err.code, HKS_OK);
	}
	free(exact);
}

static uint8_t *write_rec(const hks_rec_anim *r, int stored, size_t *size)
{
	hks_options o;
	memset(&o, 0, sizeof(o));
	hks_error err;
	hks_ctx ctx;
	hks_ctx_init(&ctx, &o, 0, &err);
	uint8_t *w = NULL;
	assert_int_equal(hks_rec_write(&ctx, r, stored, &w, size), HKS_OK);
	return w;
}

/* Version 12's head (docs/RECORD.md "Version 12"): the duration as a code when it is (n - 1) / 30 or / 60 and
 * as its bits otherwise, both read back bit for bit and applied; the head flags' undefined values refused. */
static void test_v12_duration(void **state)
{
	(void)state;
	static const uint8_t data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	uint32_t offsets[2] = {0, 0};
	hks_rec_anim r;
	memset(&r, 0, sizeof(r));
	r.version = 12;
	r.kind = HKS_REC_ANIM_VERBATIM;
	r.cpu = HKS_CPU_AMD_ZEN;
	r.guard = 1;
	r.num_frames = 31;
	r.num_transform_tracks = 1;
	r.max_frames_per_block = 256;
	r.num_blocks = 1;
	r.num_block_offsets = 1;
	r.block_offsets = offsets;
	r.float_block_offsets = offsets;
	r.data = data;
	r.data_size = sizeof(data);
	r.data_hash = hks_record_hash(HKS_RECORD_HASH_SEED, data, sizeof(data));
	static float t[31 * HKS_TRACK_SAMPLE_FLOATS];
	hks_frames_in in = {31, 1, 0, 1.0f, t, NULL};
	/* 30 / 30, 30 / 60, and one ulp above 30 / 30 (stored) */
	static const uint32_t bits[3] = {0x3F800000u, 0x3F000000u, 0x3F800001u};
	static const unsigned codes[3] = {HKS_REC_DURATION_30, HKS_REC_DURATION_60, HKS_REC_DURATION_STORED};
	size_t sizes[3];
	for (int k = 0; k < 3; k++) {
		r.duration_bits = bits[k];
		uint8_t *w = write_rec(&r, 1, &sizes[k]);
		size_t at = stored_body_at(w, sizes[k]);
		assert_int_equal(w[at], HKS_REC_HEAD_VERBATIM | HKS_REC_HEAD_GUARD | codes[k] << HKS_REC_HEAD_DURATION_SHIFT |
		                            1u << HKS_REC_HEAD_CPU_SHIFT);
		hks_ctx ctx;
		hks_error err;
		hks_rec_anim back;
		hks_arena *arena = read_record(w, sizes[k], &ctx, &err, &back);
		assert_int_equal(back.duration_bits, bits[k]);
		assert_int_equal(back.guard, 1);
		assert_int_equal(back.cpu, HKS_CPU_AMD_ZEN);
		assert_int_equal(back.max_frames_per_block, 256);
		assert_int_equal(back.num_blocks, 1);
		hks_arena_free(arena);
		hks_packed_spline *out = NULL;
		hks_record_apply_report ar;
		assert_int_equal(hks_recompress_apply(&in, w, sizes[k], NULL, &out, &ar, &err), HKS_OK);
		uint32_t got;
		memcpy(&got, &out->duration, 4);
		assert_int_equal(got, bits[k]);
		assert_int_equal(out->header.data_size, sizeof(data));
		assert_memory_equal(out->header.data, data, sizeof(data));
		hks_packed_spline_free(out);
		/* bit 7 (the ladder steps and override flags stored) with the data stored whole, and duration code 3,
		 * are malformed */
		uint8_t head = w[at];
		w[at] = (uint8_t)(head | 0x80u);
		assert_int_equal(hks_recompress_apply(&in, w, sizes[k], NULL, &out, &ar, &err), HKS_E_MALFORMED);
		w[at] = (uint8_t)(head | 3u << HKS_REC_HEAD_DURATION_SHIFT);
		assert_int_equal(hks_recompress_apply(&in, w, sizes[k], NULL, &out, &ar, &err), HKS_E_MALFORMED);
		hks_buffer_free(NULL, w, sizes[k]);
	}
	assert_int_equal(sizes[0], sizes[1]);
	assert_int_equal(sizes[2], sizes[0] + 4); /* the duration's bytes only when it is not a code */
	/* one frame: the coded duration is 0 */
	r.num_frames = 1;
	r.duration_bits = 0;
	size_t n1 = 0;
	uint8_t *w = write_rec(&r, 1, &n1);
	assert_int_equal((w[stored_body_at(w, n1)] >> HKS_REC_HEAD_DURATION_SHIFT) & 3u, HKS_REC_DURATION_30);
	hks_buffer_free(NULL, w, n1);
	/* another block layout is stored (bit 4), and the implied one is not */
	r.num_frames = 600;
	r.num_blocks = 3; /* 600 frames in blocks of 256 sharing their boundary frame */
	size_t implied = 0, stored = 0;
	w = write_rec(&r, 1, &implied);
	assert_int_equal(w[stored_body_at(w, implied)] & HKS_REC_HEAD_BLOCKS, 0);
	hks_buffer_free(NULL, w, implied);
	r.max_frames_per_block = 128;
	r.num_blocks = 5;
	w = write_rec(&r, 1, &stored);
	assert_int_equal(w[stored_body_at(w, stored)] & HKS_REC_HEAD_BLOCKS, HKS_REC_HEAD_BLOCKS);
	{
		hks_ctx ctx;
		hks_error err;
		hks_rec_anim back;
		hks_arena *arena = read_record(w, stored, &ctx, &err, &back);
		assert_int_equal(back.max_frames_per_block, 128);
		assert_int_equal(back.num_blocks, 5);
		hks_arena_free(arena);
	}
	hks_buffer_free(NULL, w, stored);
	assert_int_equal(stored, implied + 3); /* 128 (two bytes) and 5 */
	/* the v12 head cannot hold a guard other than 0 / 1 or a CPU model outside 1..4: the writer refuses */
	hks_options o;
	memset(&o, 0, sizeof(o));
	hks_error err;
	hks_ctx ctx;
	hks_ctx_init(&ctx, &o, 0, &err);
	size_t wn = 0;
	w = NULL;
	r.guard = 2;
	assert_int_equal(hks_rec_write(&ctx, &r, 1, &w, &wn), HKS_E_ARGUMENT);
	r.guard = 0;
	r.cpu = 0;
	assert_int_equal(hks_rec_write(&ctx, &r, 1, &w, &wn), HKS_E_ARGUMENT);
	assert_null(w);
}

/* Version 20's bases of REFIT bounds (docs/RECORD.md "Bound bases since version 20"), on both reciprocal
 * models: a minimum solved within 2^-27 of the range from 0 is offset from +0; a maximum whose top point the
 * quantizer puts one below the grid's top is offset from the value that integer implies, a few ulps from the
 * stored one (up to 6 seen) where version 19's base is hundreds of ulps away; one at the top keeps the solved maximum. */
static void test_bound_bases(void **state)
{
	(void)state;
	/* a lane at rest at 0: the solve's minimum a tiny value of either sign */
	assert_int_equal(hks_rec_bound_base(HKS_CPU_INTEL, 20, 1, 0, -6.1e-11, 0.1, 0.0f), 0u);
	assert_int_equal(hks_rec_bound_base(HKS_CPU_AMD_ZEN, 20, 1, 0, 3.0e-12, 0.1, 0.0f), 0u);
	assert_int_equal(hks_rec_bound_base(HKS_CPU_INTEL, 19, 1, 0, -6.1e-11, 0.1, 0.0f), hks_f32_bits(-6.1e-11f));
	/* a minimum of 2^-25 in a range of 0.1 is a value (2^-28 of the range away from 0 would not be) */
	assert_int_equal(hks_rec_bound_base(HKS_CPU_INTEL, 20, 1, 0, 2.98023224e-8, 0.1, 0.0f),
	                 hks_f32_bits(2.98023224e-8f));
	/* the line itself: 2^-27 of the range is +0's, 2^-26 the solved value's; a maximum at rest too */
	assert_int_equal(hks_rec_bound_base(HKS_CPU_INTEL, 20, 1, 0, -ldexp(0.1, -27), 0.1, 0.0f), 0u);
	assert_int_equal(hks_rec_bound_base(HKS_CPU_INTEL, 20, 1, 0, -ldexp(0.1, -26), 0.1, 0.0f),
	                 hks_f32_bits((float)-ldexp(0.1, -26)));
	assert_int_equal(hks_rec_bound_base(HKS_CPU_AMD_ZEN, 20, 1, 1, -0.1, 3.0e-12, -0.1f), 0u);
	/* a minimum that is not a number (hostile data) leaves the maximum's base the solved one */
	assert_int_equal(hks_rec_bound_base(HKS_CPU_INTEL, 20, 1, 1, -0.25, 0.1, NAN), hks_f32_bits(0.1f));
	assert_int_equal(hks_rec_bound_base(HKS_CPU_INTEL, 20, 1, 1, -0.25, 0.1, -INFINITY), hks_f32_bits(0.1f));
	for (unsigned cpu = HKS_CPU_INTEL; cpu <= HKS_CPU_AMD_ZEN; cpu++) {
		const hks_rcp_model *m = hks_rcp_model_get((hks_cpu_model)cpu);
		assert_non_null(m);
		for (unsigned quant = 0; quant < 2; quant++) {
			unsigned top = quant ? 65535u : 255u, below = 0, at_top = 0;
			const float lo = -0.25f;
			float hi = 0.1003f;
			for (unsigned i = 0; i < 200000 && (below < 3 || at_top < 3); i++, hi = nextafterf(hi, 1.0f)) {
				unsigned q = quant ? hks_pack16(m, hi, lo, hi) : hks_pack8(m, hi, lo, hi);
				float seen = hks_dequantize_scalar_inline(quant, q, lo, hi); /* what the frames give the solve */
				uint32_t v20 = hks_rec_bound_base(cpu, 20, quant, 1, lo, seen, lo);
				uint32_t v19 = hks_rec_bound_base(cpu, 19, quant, 1, lo, seen, lo);
				assert_int_equal(v19, hks_f32_bits(seen));
				int64_t d20 = (int64_t)v20 - (int64_t)hks_f32_bits(hi), d19 = (int64_t)v19 - (int64_t)hks_f32_bits(hi);
				/* the rule itself: the solved maximum does not give the top, the implied one gives one below */
				float implied = (float)((double)lo + ((double)seen - (double)lo) * (double)top / (double)(top - 1u));
				unsigned t0 = quant ? hks_pack16(m, seen, lo, seen) : hks_pack8(m, seen, lo, seen);
				unsigned t1 = quant ? hks_pack16(m, implied, lo, implied) : hks_pack8(m, implied, lo, implied);
				assert_int_equal(v20, t0 != top && t1 == top - 1u ? hks_f32_bits(implied) : v19);
				if (q == top - 1u && v20 != v19) {
					below++;
					assert_true(d20 >= -16 && d20 <= 16); /* the f32 roundings of the dequantized point */
					assert_true(d19 < -100);
				} else if (q == top) {
					at_top++;
					assert_int_equal(v20, v19); /* the solved maximum itself */
				}
			}
			assert_true(below >= 3); /* both cases occur on this range */
			assert_true(at_top >= 3);
		}
	}
}

/* Version 19's knot edits are ranks (docs/RECORD.md "Knot edits as ranks since version 19"): the rank table is
 * well formed, and a fixed edit gives pinned bytes. The try has a single knot at frame 5 beside a double at 6,
 * where a second copy is the most frequent change: the target raising it to 2 stores nothing there (rank 0),
 * keeping it stores a non-zero rank; frame 8 gains 5 copies (symbol 10, stored as it is); frame 10's triple knot
 * goes (symbol 5, rank 3), and frame 11 beside it, unchanged, stores rank 2 (after a removed triple knot a lowered
 * neighbour is the most frequent). Each version reads back the target; version 18 stores the differences. */
static void test_knot_edit_ranks(void **state)
{
	(void)state;
	assert_true(hks_rec_knot_rank_table_valid());
	static const uint8_t base[] = {0, 0, 0, 0, 5, 6, 6, 10, 10, 10, 14, 14, 14, 14};
	static const uint8_t target[] = {0, 0, 0, 0, 5, 5, 6, 6, 8, 8, 8, 8, 8, 14, 14, 14, 14};
	static const uint8_t kept[] = {0, 0, 0, 0, 5, 6, 6, 8, 8, 8, 8, 8, 14, 14, 14, 14};
	/* range 14; 3 stored frames, each gap and code: frame 8 10, frame 10 3, frame 11 2 (session 28's table) */
	static const uint8_t pinned_v19[] = {14, 3, 8, 10, 1, 3, 0, 2};
	/* range 14; 3 edits: frame 5 +1 (2), frame 8 +5 (10), frame 10 -3 (5) */
	static const uint8_t pinned_v18[] = {14, 3, 5, 2, 2, 10, 1, 5};
	hks_ctx ctx;
	hks_error err;
	hks_ctx_init(&ctx, NULL, 0, &err);
	for (unsigned k = 0; k < 3; k++) {
		unsigned version = k == 1 ? 18u : 19u;
		const uint8_t *t = k == 2 ? kept : target;
		size_t nt = k == 2 ? sizeof(kept) : sizeof(target);
		hks_bytebuf b;
		hks_bytebuf_init(&b, &ctx);
		assert_int_equal(hks_rec_knot_edits_write(&b, base, sizeof(base), t, nt, version), HKS_OK);
		printf("version %u%s:", version, k == 2 ? " (frame 5 kept)" : "");
		for (size_t i = 0; i < b.size; i++)
			printf(" %u", b.data[i]);
		printf("\n");
		if (k == 0) {
			assert_int_equal(b.size, sizeof(pinned_v19));
			assert_memory_equal(b.data, pinned_v19, sizeof(pinned_v19));
		} else if (k == 1) {
			assert_int_equal(b.size, sizeof(pinned_v18));
			assert_memory_equal(b.data, pinned_v18, sizeof(pinned_v18));
		} else { /* the frame whose multiplicity stays stores a rank */
			assert_true(b.size > sizeof(pinned_v19));
		}
		hks_cursor c = hks_cursor_make(&ctx, b.data, b.size, 0);
		uint8_t out[64];
		size_t n = 0;
		assert_int_equal(hks_rec_knot_edits_read(&c, base, sizeof(base), out, sizeof(out), &n, version), HKS_OK);
		assert_int_equal(n, nt);
		assert_memory_equal(out, t, nt);
		assert_int_equal(c.pos, b.size);
		hks_bytebuf_free(&b);
	}
}

/* Version 12 keeps the data hash's low 32 bits (docs/RECORD.md "Hash"): a change there is a mismatch, a change
 * above them is not written at all; version 11 keeps and compares all 64. And a record relabelled between 11
 * and 12 is refused or gives other data (docs/RECORD.md "Version 12"). */
static void test_v12_hash_and_relabel(void **state)
{
	(void)state;
	static synth s;
	static decoded d;
	synth_build(&s);
	decode(&s.anim, &d);
	for (unsigned version = 11; version <= 12; version++)
		for (int stored = 0; stored < 2; stored++) {
			uint8_t *rec = NULL;
			size_t size = 0;
			hks_recompress_report rep;
			recompress_as(&s, stored, 1, HKS_CPU_INTEL, version, &rec, &size, &rep);
			hks_ctx ctx;
			hks_error err;
			hks_rec_anim ra;
			hks_arena *arena = read_record(rec, size, &ctx, &err, &ra);
			uint64_t h = ra.data_hash;
			if (version == 12 && stored) {
				/* one ladder step and the override flag 8: implied (bit 7 of the head flags clear) */
				assert_int_equal(rec[stored_body_at(rec, size)] & HKS_REC_HEAD_STEPS, 0);
				assert_int_equal(ra.ladder_count, 1);
				assert_int_equal(ra.offsets_override, HKS_REC_IMPLIED_OVERRIDES);
			}
			/* version 12 keeps no data size for a prediction (the packer's output has its own) */
			assert_int_equal(ra.data_size, version >= 12 ? 0u : s.anim.spline.data_size);
			assert_true(h == (hks_record_hash(HKS_RECORD_HASH_SEED, s.anim.spline.data, s.anim.spline.data_size) &
			                  hks_rec_data_hash_mask(version)));
			for (unsigned bit = 0; bit < 64; bit += 9) {
				ra.data_hash = h ^ (UINT64_C(1) << bit);
				size_t wn = 0;
				uint8_t *w = write_rec(&ra, stored, &wn);
				hks_packed_spline *out = NULL;
				hks_record_apply_report ar;
				assert_int_equal(hks_recompress_apply(&d.in, w, wn, NULL, &out, &ar, &err), HKS_OK);
				assert_true(same_data(out, &s.anim.spline)); /* the output is the original ... */
				/* ... but the record said otherwise, except in bits version 12 does not keep (and does not
				 * write: the record is the original one) */
				int kept = version < 12 || bit < 32;
				assert_int_equal(ar.data_matches, !kept);
				assert_int_equal(wn == size && !memcmp(w, rec, size), !kept);
				hks_packed_spline_free(out);
				hks_buffer_free(NULL, w, wn);
			}
			hks_arena_free(arena);
			/* relabelled to the other version: refused, or other data (never the original with its hash) */
			rec[4] = (uint8_t)(version == 12 ? 11 : 12);
			hks_packed_spline *out = NULL;
			hks_record_apply_report ar;
			hks_result res = hks_recompress_apply(&d.in, rec, size, NULL, &out, &ar, &err);
			if (res == HKS_OK) {
				assert_false(same_data(out, &s.anim.spline) && ar.data_matches);
				hks_packed_spline_free(out);
			} else {
				assert_int_equal(res, HKS_E_MALFORMED);
			}
			hks_buffer_free(NULL, rec, size);
		}
	hks_packed_spline_free(s.packed);
}

static void test_arguments(void **state)
{
	(void)state;
	hks_error err;
	hks_animation a;
	memset(&a, 0, sizeof(a));
	a.kind = HKS_ANIMATION_OTHER;
	uint8_t *rec = NULL;
	size_t size = 0;
	assert_int_equal(hks_recompress(&a, NULL, &rec, &size, NULL, NULL, &err), HKS_E_ARGUMENT);
	assert_int_equal(hks_recompress(NULL, NULL, &rec, &size, NULL, NULL, &err), HKS_E_ARGUMENT);
	/* the versions a build writes: 9 to the current one */
	static synth s;
	synth_build(&s);
	assert_int_equal(hks_recompress_version(&s.anim, NULL, 8, &rec, &size, NULL, NULL, &err), HKS_E_ARGUMENT);
	assert_int_equal(hks_recompress_version(&s.anim, NULL, HKS_RECORD_VERSION + 1, &rec, &size, NULL, NULL, &err),
	                 HKS_E_ARGUMENT);
	assert_null(rec);
	hks_packed_spline_free(s.packed);
	hks_packed_spline *out = NULL;
	static const uint8_t junk[] = {'H', 'K', 'S', 'R', HKS_RECORD_VERSION + 1, 0, 0};
	float t[10] = {0};
	hks_frames_in in = {2, 1, 0, 1.0f, t, NULL};
	assert_int_equal(hks_recompress_apply(&in, junk, sizeof(junk), NULL, &out, NULL, &err), HKS_E_UNSUPPORTED);
	assert_int_equal(hks_recompress_apply(&in, "XXXX", 4, NULL, &out, NULL, &err), HKS_E_MALFORMED);
	assert_string_equal(hks_diff_category_name(HKS_DIFF_KNOT_COUNT), "knot count");
	assert_string_equal(hks_diff_category_name(HKS_DIFF_COUNT), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_varints),
		cmocka_unit_test(test_hash),
		cmocka_unit_test(test_record_file),
		cmocka_unit_test(test_exact_round_trip),
		cmocka_unit_test(test_truncated_and_corrupted),
		cmocka_unit_test(test_hostile_signed_code),
		cmocka_unit_test(test_hostile_try),
		cmocka_unit_test(test_edited_unit_verified),
		cmocka_unit_test(test_inverted_entries_hash),
		cmocka_unit_test(test_unbuildable_entry),
		cmocka_unit_test(test_edit_keeps_other_parts),
		cmocka_unit_test(test_verbatim_empty_data_at_end),
		cmocka_unit_test(test_v12_duration),
		cmocka_unit_test(test_v12_hash_and_relabel),
		cmocka_unit_test(test_knot_edit_ranks),
		cmocka_unit_test(test_bound_bases),
		cmocka_unit_test(test_arguments),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
