/*
 * Unit tests of the record body coder (src/encode/record_model.c, docs/RECORD.md
 * "Body coding"): bodies of every shape round-trip, a short or long stream is
 * told apart, hostile streams decode to exactly the announced size, and the
 * coded bytes of a fixed body are pinned (records written on one machine must
 * decode on every other: a change of the model is a new record version).
 */
#include "hks_test.h"
#include "record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t rng_state;
/* The record version the bodies are written and coded in: 10 (one correction list), 11 (the hidden points'
 * list first, docs/RECORD.md "Point residuals"), 12 (the head of "Version 12"), 13 (version 12's body, the
 * model of "Version 13"), 14 (the same with the trained start state of "Version 14") or 15 (version 14's body
 * and coding; what changes is the order of the corrections' slots, "Version 15"); the tests run over all six. */
static unsigned version = HKS_RECORD_VERSION;

static uint32_t rng(void)
{
	uint32_t x = rng_state;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return rng_state = x;
}

static void put(hks_bytebuf *b, uint8_t v)
{
	assert_int_equal(hks_bytebuf_append(b, &v, 1), HKS_OK);
}

static void put_varint(hks_bytebuf *b, uint64_t v)
{
	assert_int_equal(hks_rec_put_varint(b, v), HKS_OK);
}

static void put_n(hks_bytebuf *b, size_t n, unsigned range)
{
	for (size_t i = 0; i < n; i++)
		put(b, (uint8_t)(rng() % range));
}

/* A REFIT_INV payload of part kind `part` (docs/RECORD.md "Byte layout"): try, knot edits, head, static
 * values and bounds, then point residuals or XOR runs. `exact`: in the grammar to the byte (a residual code
 * 0 only at a rotation point); otherwise T/S/F residuals may have code 0 followed by 5 bytes, which the
 * coder's tests keep for the coded bytes they pin. */
static void refit_inv_payload(hks_bytebuf *b, unsigned part, int exact)
{
	put(b, (uint8_t)(rng() % 6 | (version >= 11 && rng() % 2 ? 0x80u : 0u))); /* try (v11: and the prior) */
	unsigned edits = rng() % 5;
	if (version >= 11) {
		/* the range: edits within it are coded frame by frame; one entry in four has an edit beyond it
		 * (or a range past 255), which the coder codes byte by byte */
		unsigned range = rng() % 4 ? 40 + rng() % 216 : rng() % 300;
		put_varint(b, range);
		put_varint(b, edits);
		unsigned frame = 0;
		for (unsigned k = 0; k < edits; k++) {
			unsigned gap = rng() % 4 ? rng() % 8 : rng() % 300;
			put_varint(b, gap);
			frame += gap + 1;
			unsigned d = rng() % 9;
			put_varint(b, d ? d : 6); /* zigzag differences; 0 is no edit */
		}
		(void)frame;
	} else {
		put_varint(b, edits);
		for (unsigned k = 0; k < edits; k++) {
			put_varint(b, rng() % 300);
			put_varint(b, rng() % 5 + 1);
		}
	}
	if (part == 0)
		put(b, 0x11);
	uint8_t mask = part == 1 ? 0x70 : part == 3 ? 0x10 : 0x31; /* static x, spline y (and z) */
	uint8_t quant = part == 1 ? (uint8_t)(rng() % 2 ? HKS_ROT_THREECOMP40 : HKS_ROT_UNCOMPRESSED)
	                          : (uint8_t)(rng() % 2);
	put(b, mask);
	put(b, quant);
	uint8_t flags = part == 3 ? (uint8_t)(mask & 0xF9) : mask;
	for (unsigned lane = 0; part != 1 && lane < (part == 3 ? 1u : 3u); lane++)
		put_n(b, flags & (1u << lane) ? 4 : flags & (0x10u << lane) ? 8 : 0, 256);
	int slots = part == 1 ? quant == HKS_ROT_THREECOMP40 : quant <= 1;
	unsigned items;
	if (slots && version >= 11) { /* the hidden points' list */
		items = rng() % 4;
		put_varint(b, items);
		for (unsigned k = 0; k < items; k++) {
			put_varint(b, rng() % 9);
			unsigned code = rng() % 3;
			if (exact && part != 1 && code == 0)
				code = 2;
			put_varint(b, code);
			if (code == 0)
				put_n(b, 5, 256);
		}
	}
	items = rng() % 6;
	put_varint(b, items);
	for (unsigned k = 0; k < items; k++) {
		/* v11: a gap beyond 1023 slots makes the coder code the list's gaps as bytes */
		put_varint(b, version >= 11 && rng() % 8 == 0 ? 1500 + rng() % 1000 : rng() % 20);
		unsigned code = rng() % 4;
		if (exact && slots && part != 1 && code == 0)
			code = 1;
		put_varint(b, code);
		if (slots && code == 0)
			put_n(b, 5, 256); /* a ThreeComp40 point */
		else if (!slots)
			put_n(b, code, 256);
	}
}

/* A body in the layout of docs/RECORD.md "Byte layout" (kind 0), with every entry kind, hashes, the
 * three overrides and REFIT_INV payloads of every part kind, with point residuals and XOR runs. */
static void predicted_body(hks_bytebuf *b, unsigned entries)
{
	const unsigned T = 3, F = 2, per = 3 * T + F;
	if (version >= 12) {
		/* v12: the head flags (here: the block layout stored, the duration stored, the guard, AMD Zen, the
		 * ladder steps and override flags stored), no guard or CPU byte, the data hash's low 32 bits */
		put(b, (uint8_t)(HKS_REC_HEAD_BLOCKS | HKS_REC_HEAD_GUARD | 1u << HKS_REC_HEAD_CPU_SHIFT | HKS_REC_HEAD_STEPS));
		put_varint(b, 120);     /* numFrames */
		put_varint(b, T);
		put_varint(b, F);
		put_varint(b, 128);     /* maxFramesPerBlock */
		put_varint(b, 1);       /* numBlocks */
		put_n(b, 4 + 4, 256);   /* duration, data hash; no data size for a prediction */
	} else {
		put(b, 0);
		put_varint(b, 120);     /* numFrames */
		put_varint(b, T);
		put_varint(b, F);
		put_varint(b, 256);     /* maxFramesPerBlock */
		put_varint(b, 1);       /* numBlocks */
		put_n(b, 4 + 1 + 1 + 8, 256);
		put_varint(b, 5000);    /* data size */
	}
	put_n(b, T, 4);
	put_n(b, F, 2);
	put(b, 12);                 /* ladder steps */
	put(b, 7);                  /* overrides: both offsets arrays and the durations */
	for (int k = 0; k < 2; k++) {
		put_varint(b, 2);
		put_varint(b, 0);
		put_varint(b, 4000);
	}
	put_n(b, 12, 256);
	put_varint(b, entries);
	uint8_t kinds[64];
	unsigned index[64], next = 0;
	assert_true(entries <= 64 && entries <= per);
	for (unsigned i = 0; i < entries; i++) {
		unsigned gap = rng() % 2 && next + 1 < per - (entries - i) ? 1 : 0;
		index[i] = next + gap;
		next = index[i] + 1;
		put_varint(b, gap);
	}
	for (unsigned i = 0; i < entries; i++) {
		kinds[i] = (uint8_t)(i % 6 | (i % 4 == 1 ? 0x80u : 0u) | (rng() % 3) << 3);
		put(b, kinds[i]);
	}
	uint32_t sizes[64];
	for (unsigned i = 0; i < entries; i++)
		if ((kinds[i] & 7) != HKS_REC_ENTRY_REFIT_INV)
			put_varint(b, sizes[i] = rng() % 40);
	for (unsigned i = 0; i < entries; i++)
		if (kinds[i] & 0x80)
			put_n(b, 4, 256);
	for (unsigned i = 0; i < entries; i++) {
		if ((kinds[i] & 7) != HKS_REC_ENTRY_REFIT_INV) {
			put_n(b, sizes[i], 16);
			continue;
		}
		unsigned u = index[i] % per, part = u < 3 * T ? u % 3 : 3;
		refit_inv_payload(b, part, 0);
	}
}

/* The context the tests' buffers keep a pointer to. */
static hks_ctx test_ctx;

static void coded(const uint8_t *body, size_t size, hks_bytebuf *out)
{
	hks_ctx_init(&test_ctx, NULL, 0, NULL);
	hks_bytebuf_init(out, &test_ctx);
	assert_int_equal(hks_rec_model_encode(&test_ctx, body, size, version, out), HKS_OK);
}

static int decodes(const uint8_t *in, size_t in_size, const uint8_t *body, size_t size)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, NULL, 0, NULL);
	uint8_t *back = (uint8_t *)malloc(size ? size : 1);
	assert_non_null(back);
	int whole = -1;
	assert_int_equal(hks_rec_model_decode(&ctx, in, in_size, version, back, size, &whole), HKS_OK);
	assert_true(whole == 0 || whole == 1);
	int same = whole && (size == 0 || memcmp(back, body, size) == 0);
	free(back);
	return same;
}

static void round_trip(const uint8_t *body, size_t size, int check_prefixes)
{
	hks_bytebuf out;
	coded(body, size, &out);
	assert_true(decodes(out.data, out.size, body, size));
	if (check_prefixes) {
		/* a stream cut short, or with a byte after it, never passes for the body: the decoder reads a fixed
		 * number of bytes for a given path, and the same path gives the same count (another path gives
		 * another body, which the check after it refuses but for a chance of 2^-16: not here) */
		for (size_t n = 0; n < out.size; n++)
			assert_false(decodes(out.data, n, body, size));
		uint8_t *longer = (uint8_t *)malloc(out.size + 1);
		assert_non_null(longer);
		memcpy(longer, out.data, out.size);
		longer[out.size] = 0;
		assert_false(decodes(longer, out.size + 1, body, size));
		free(longer);
	}
	hks_bytebuf_free(&out);
}

static void test_round_trips(void **state)
{
	(void)state;
	rng_state = 0x12345u;
	/* bodies that follow the layout, and bytes that follow nothing (a kind byte 0 then noise walks the
	 * grammar with absurd counts; the walk still ends at the body's size) */
	for (unsigned entries = 0; entries <= 11; entries++) {
		hks_ctx ctx;
		hks_ctx_init(&ctx, NULL, 0, NULL);
		hks_bytebuf body;
		hks_bytebuf_init(&body, &ctx);
		predicted_body(&body, entries);
		round_trip(body.data, body.size, entries % 4 == 0);
		/* every prefix of a valid body is a body too (the walk stops where the bytes do) */
		for (size_t n = 0; n < body.size; n += 7)
			round_trip(body.data, n, 0);
		hks_bytebuf_free(&body);
	}
	static const size_t sizes[] = {0, 1, 2, 3, 4, 5, 17, 64, 1000, 20000};
	static uint8_t noise[20000];
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		for (int first = 0; first < 3; first++) {
			for (size_t i = 0; i < sizes[s]; i++)
				noise[i] = (uint8_t)rng();
			if (sizes[s])
				noise[0] = (uint8_t)first; /* predicted, verbatim, unknown kind */
			round_trip(noise, sizes[s], sizes[s] <= 64);
		}
	}
	/* the model learns: a body of one repeated field codes far below its size */
	memset(noise, 1, sizeof(noise));
	hks_bytebuf out;
	coded(noise, sizeof(noise), &out);
	assert_true(out.size < sizeof(noise) / 100);
	assert_true(decodes(out.data, out.size, noise, sizeof(noise)));
	hks_bytebuf_free(&out);
}

/* Streams that no encoder wrote: decoding fills exactly the announced size and never reads or writes
 * outside its buffers (the sanitizer builds check that). */
static void test_hostile_streams(void **state)
{
	(void)state;
	rng_state = 0xBEEFu;
	hks_ctx ctx;
	hks_ctx_init(&ctx, NULL, 0, NULL);
	static uint8_t in[512], back[4096 + 1];
	for (int round = 0; round < 200; round++) {
		size_t in_size = rng() % sizeof(in), size = rng() % 4096;
		for (size_t i = 0; i < in_size; i++)
			in[i] = (uint8_t)(round & 1 ? rng() : rng() % 4);
		back[size] = 0xA5;
		int whole = -1;
		assert_int_equal(hks_rec_model_decode(&ctx, in, in_size, version, back, size, &whole), HKS_OK);
		assert_true(whole == 0 || whole == 1);
		assert_int_equal(back[size], 0xA5);
	}
}

/* The coded bytes of a fixed body. Records are read on other machines and by later builds: if this
 * changes, the model changed and the record version must change with it (docs/RECORD.md). The body is
 * built by this file's generator from a fixed seed; the hash is FNV-1a 64 of the coded stream. */
#define PINNED_SIZE 210
#define PINNED_HASH UINT64_C(0xe73d6388bb4a1083)
/* the same generator's version 11 body (ranges and knot edits coded frame by frame, the hidden points'
 * lists, correction gaps coded slot by slot or as bytes, the rotations' fields) */
#define PINNED_SIZE_V11 208
#define PINNED_HASH_V11 UINT64_C(0x3f65dcd962db9232)
/* version 12: the generator's v12 head (head flags; no guard or CPU byte; a 4-byte data hash; no data size),
 * and the model learning two typical heads first; the entries are coded as in version 11 */
#define PINNED_SIZE_V12 221
#define PINNED_HASH_V12 UINT64_C(0x06959864cec04382)
/* version 13: version 12's body; the model's start weights and priors, its final mixer, its mixers' learning
 * rates and its slots' count limit differ (docs/RECORD.md "Version 13") */
#define PINNED_SIZE_V13 217
#define PINNED_HASH_V13 UINT64_C(0x78e6f9958915d65b)
/* version 14: version 13's body and model, started from the state trained on Sekiro's bodies
 * (src/encode/record_prior.c, docs/RECORD.md "Version 14") */
#define PINNED_SIZE_V14 230
#define PINNED_HASH_V14 UINT64_C(0x17c74d5e8f50c20f)
/* version 16: version 14's body and model, started from the state trained on Sekiro's version 16 bodies
 * (src/encode/record_prior_v16.c, docs/RECORD.md "Version 16") */
#define PINNED_SIZE_V16 229
#define PINNED_HASH_V16 UINT64_C(0xb203d858fedfe1e4)
/* version 19: version 16's body and model, started from the state trained on Sekiro's version 19 bodies, whose knot
 * edits are ranks (src/encode/record_prior_v19.c, docs/RECORD.md "Version 19") */
#define PINNED_SIZE_V19 228
#define PINNED_HASH_V19 UINT64_C(0xc8cd71603e459e3a)
/* version 21: version 19's body and start state; the entries' gaps unit by unit, their kinds with their units' part
 * kinds and the bounds' bytes with their places (docs/RECORD.md "Version 21") */
#define PINNED_SIZE_V21 233
#define PINNED_HASH_V21 UINT64_C(0xa33e38174818c386)
/* hks_rec_refit_inv_length of a payload laid out as version 10 (in[0] the try byte), with a range byte
 * inserted after the try for version 11; the length it measures, less that byte (0 stays 0). `avail` of the
 * n bytes are available. */
static size_t inv_length_of(unsigned part, const uint8_t *in, size_t n, size_t avail)
{
	uint8_t buf[64];
	assert_true(n + 1 <= sizeof(buf) && avail <= n);
	if (version < 11)
		return hks_rec_refit_inv_length(part, in, avail, version);
	buf[0] = in[0];
	buf[1] = 0x10;
	memcpy(buf + 2, in + 1, n - 1);
	size_t got = hks_rec_refit_inv_length(part, buf, avail + 1, version);
	return got ? got - 1 : 0;
}

/* hks_rec_refit_inv_length walks the payload with the coder's own grammar (record_model.c): a payload
 * measures its own size whatever follows it, every cut of it measures 0, and so do an unknown part kind
 * and a varint that runs to 10 bytes without ending. */
static void test_refit_inv_length(void **state)
{
	(void)state;
	rng_state = 0x1E46u;
	hks_ctx ctx;
	hks_ctx_init(&ctx, NULL, 0, NULL);
	for (unsigned round = 0; round < 200; round++) {
		unsigned part = round % 4;
		hks_bytebuf b;
		hks_bytebuf_init(&b, &ctx);
		refit_inv_payload(&b, part, 1);
		size_t n = b.size;
		assert_int_equal(hks_rec_refit_inv_length(part, b.data, n, version), n);
		for (size_t cut = 0; cut < n; cut++)
			assert_int_equal(hks_rec_refit_inv_length(part, b.data, cut, version), 0);
		put_n(&b, 7, 256); /* what follows is not the payload's */
		assert_int_equal(hks_rec_refit_inv_length(part, b.data, b.size, version), n);
		assert_int_equal(hks_rec_refit_inv_length(4, b.data, b.size, version), 0);
		hks_bytebuf_free(&b);
	}
	/* Hand-made payloads, written as version 10 lays them out; from version 11 a range byte follows the try
	 * (inv_length_of inserts it) */
	/* try 0, an edit count of ten bytes: terminated it is a count (here a huge one), unterminated malformed */
	static const uint8_t p[16] = {0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x70, 0x00};
	assert_int_equal(inv_length_of(1, p, sizeof(p), sizeof(p)), 0); /* the edits run past the end */
	static const uint8_t e[14] = {0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 0x70,
	                              HKS_ROT_UNCOMPRESSED, 0};
	assert_int_equal(inv_length_of(1, e, sizeof(e), sizeof(e)), sizeof(e)); /* a count of 0 in ten bytes */
	static const uint8_t q[14] = {0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
	assert_int_equal(inv_length_of(1, q, sizeof(q), sizeof(q)), 0); /* 10 bytes without an end */
	/* the smallest rotation payload: try, no edits, mask, quantization (no slots), no residuals */
	static const uint8_t r[5] = {2, 0, 0x70, HKS_ROT_UNCOMPRESSED, 0};
	assert_int_equal(inv_length_of(1, r, sizeof(r), sizeof(r)), sizeof(r));
	/* a terminated 10-byte varint as the residual count of zero */
	static const uint8_t z[14] = {2, 0, 0x70, HKS_ROT_UNCOMPRESSED, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	                              0x80, 0x00};
	assert_int_equal(inv_length_of(1, z, sizeof(z), sizeof(z)), sizeof(z));
	assert_int_equal(hks_rec_refit_inv_length(1, r, 0, version), 0);
	/* a scale payload with 16-bit slots: from version 11 two lists (the hidden points' first), before one;
	 * the same bytes measure differently */
	static const uint8_t t[16] = {0, 0, 0x10, 1, 1, 2, 3, 4, 5, 6, 7, 8, 1, 0, 2, 0};
	assert_int_equal(inv_length_of(2, t, sizeof(t), sizeof(t)), version >= 11 ? 16 : 15);
}

static void test_pinned_coding(void **state)
{
	(void)state;
	rng_state = 0xC0DEu;
	hks_ctx ctx;
	hks_ctx_init(&ctx, NULL, 0, NULL);
	hks_bytebuf body, out;
	hks_bytebuf_init(&body, &ctx);
	predicted_body(&body, 11);
	coded(body.data, body.size, &out);
	uint64_t h = hks_record_hash(HKS_RECORD_HASH_SEED, out.data, out.size);
	printf("body %zu B coded to %zu B, FNV-1a 64 %016llx\n", body.size, out.size, (unsigned long long)h);
	if (version == 10) {
		assert_int_equal(out.size, PINNED_SIZE);
		assert_true(h == PINNED_HASH);
	} else if (version == 11) {
		assert_int_equal(out.size, PINNED_SIZE_V11);
		assert_true(h == PINNED_HASH_V11);
	} else if (version == 12) {
		assert_int_equal(out.size, PINNED_SIZE_V12);
		assert_true(h == PINNED_HASH_V12);
	} else if (version == 13) {
		assert_int_equal(out.size, PINNED_SIZE_V13);
		assert_true(h == PINNED_HASH_V13);
	} else if (version == 16) {
		assert_int_equal(out.size, PINNED_SIZE_V16);
		assert_true(h == PINNED_HASH_V16);
	} else if (version == 19) {
		assert_int_equal(out.size, PINNED_SIZE_V19);
		assert_true(h == PINNED_HASH_V19);
	} else if (version == 21) {
		assert_int_equal(out.size, PINNED_SIZE_V21);
		assert_true(h == PINNED_HASH_V21);
	} else {
		/* version 15 codes a body as version 14 does */
		assert_true(version == 14 || version == 15);
		assert_int_equal(out.size, PINNED_SIZE_V14);
		assert_true(h == PINNED_HASH_V14);
	}
	hks_bytebuf_free(&out);
	hks_bytebuf_free(&body);
}

static int version_10(void **state)
{
	(void)state;
	version = 10;
	return 0;
}

static int version_11(void **state)
{
	(void)state;
	version = 11;
	return 0;
}

static int version_12(void **state)
{
	(void)state;
	version = 12;
	return 0;
}

static int version_13(void **state)
{
	(void)state;
	version = 13;
	return 0;
}

static int version_15(void **state)
{
	(void)state;
	version = 15;
	return 0;
}

static int version_16(void **state)
{
	(void)state;
	version = 16;
	return 0;
}

static int version_19(void **state)
{
	(void)state;
	version = 19;
	return 0;
}

static int version_21(void **state)
{
	(void)state;
	version = 21;
	return 0;
}

static int version_14(void **state)
{
	(void)state;
	version = 14;
	return 0;
}

/* Version 14's, 16's and 19's start states: every number names a statistic of the model, in increasing order (the model
 * applies the list in one pass), and it is not empty */
static void test_prior_well_formed(void **state)
{
	(void)state;
	hks_ctx ctx;
	hks_ctx_init(&ctx, NULL, 0, NULL);
	assert_true(hks_rec_prior_v14.slots > 0);
	assert_true(hks_rec_prior_v14.values > 0);
	assert_true(hks_rec_prior_check(&ctx, &hks_rec_prior_v14));
	assert_true(hks_rec_prior_v16.slots > 0);
	assert_true(hks_rec_prior_v16.values > 0);
	assert_true(hks_rec_prior_check(&ctx, &hks_rec_prior_v16));
	assert_true(hks_rec_prior_v19.slots > 0);
	assert_true(hks_rec_prior_v19.values > 0);
	assert_true(hks_rec_prior_check(&ctx, &hks_rec_prior_v19));
	hks_rec_prior_slot bad_slot[2] = {hks_rec_prior_v14.slot[1], hks_rec_prior_v14.slot[0]};
	hks_rec_prior unsorted = {bad_slot, 2, NULL, 0};
	assert_false(hks_rec_prior_check(&ctx, &unsorted));
	hks_rec_prior_value past[1] = {{UINT32_MAX, 0}};
	hks_rec_prior beyond = {NULL, 0, past, 1};
	assert_false(hks_rec_prior_check(&ctx, &beyond));
}

/* The developer's measurement (hks_rec_model_costs, make_record_prior --fields): the costs of a body's classes add
 * up to its coded size within the coder's few bytes of overhead, the knot symbols and correction flags are classes
 * of their own, measuring leaves the coding alone, and every class has a name. */
static void test_costs(void **state)
{
	(void)state;
	rng_state = 0x5eedu;
	hks_ctx ctx;
	hks_ctx_init(&ctx, NULL, 0, NULL);
	for (unsigned entries = 6; entries <= 11; entries += 5) { /* the sixth entry is a REFIT_INV */
		hks_bytebuf body, out, again;
		hks_bytebuf_init(&body, &ctx);
		predicted_body(&body, entries);
		coded(body.data, body.size, &out);
		double bits[HKS_REC_COST_CLASSES] = {0}, total = 0.0;
		assert_int_equal(hks_rec_model_costs(&ctx, body.data, body.size, version, bits), HKS_OK);
		for (unsigned c = 0; c < HKS_REC_COST_CLASSES; c++) {
			assert_true(bits[c] >= 0.0);
			total += bits[c];
		}
		/* the arithmetic coder spends at most a few bytes over the ideal; it never codes below it by more than
		 * its 32-bit precision allows */
		assert_true(total / 8.0 <= (double)out.size + 4.0);
		assert_true(total / 8.0 >= (double)out.size - 4.0 - (double)out.size / 200.0);
		unsigned knots = 0, flags = 0;
		for (unsigned c = 0; c < HKS_REC_COST_CLASSES; c++) {
			const char *name = hks_rec_model_cost_name(c);
			assert_non_null(name);
			knots += !strcmp(name, "knot symbols") && bits[c] > 0.0;
			if (!strcmp(name, "end check")) /* 16 bits at probability 1/2 and the flush byte */
				assert_true(bits[c] > 23.9 && bits[c] < 24.1);
			flags += strstr(name, "flags") != NULL && strcmp(name, "entry flags") != 0 && bits[c] > 0.0;
		}
		assert_int_equal(knots, 1);
		assert_true(flags >= 1);
		coded(body.data, body.size, &again);
		assert_int_equal(again.size, out.size);
		assert_memory_equal(again.data, out.data, out.size);
		hks_bytebuf_free(&again);
		hks_bytebuf_free(&out);
		hks_bytebuf_free(&body);
	}
	assert_null(hks_rec_model_cost_name(HKS_REC_COST_CLASSES));
}

/* A version 12+ body of entries at units index[0..n) of a clip of T transform tracks, F float tracks and `blocks`
 * blocks, of kinds kind[0..n) (NULL: INVERTED) with empty payloads, and a VERBATIM entry at the end whose `pad` bytes
 * make the body as large as a test needs (the entry flags' budget grows with the body). `non_minimal`: that entry's
 * gap is written as a 2-byte varint. */
static void entries_body(hks_bytebuf *b, unsigned T, unsigned F, unsigned blocks, const uint64_t *index,
                         const uint8_t *kind, unsigned n, size_t pad, unsigned non_minimal)
{
	put(b, (uint8_t)(HKS_REC_HEAD_BLOCKS | 1u << HKS_REC_HEAD_CPU_SHIFT));
	put_varint(b, 120); /* numFrames */
	put_varint(b, T);
	put_varint(b, F);
	put_varint(b, 256); /* maxFramesPerBlock */
	put_varint(b, blocks);
	put_n(b, 4 + 4, 256);
	put_n(b, T, 4);
	put_n(b, F, 2);
	put_varint(b, n + 1u);
	uint64_t next = 0;
	for (unsigned i = 0; i <= n; i++) {
		uint64_t at = i < n ? index[i] : next + 3; /* the VERBATIM entry */
		if (i == non_minimal) {
			assert_true(at - next < 128);
			put(b, (uint8_t)(0x80u | (at - next)));
			put(b, 0);
		} else {
			put_varint(b, at - next);
		}
		next = at + 1;
	}
	for (unsigned i = 0; i <= n; i++)
		put(b, i < n ? (kind ? kind[i] : HKS_REC_ENTRY_INVERTED) : HKS_REC_ENTRY_VERBATIM);
	for (unsigned i = 0; i <= n; i++)
		if (i == n || (kind ? kind[i] : HKS_REC_ENTRY_INVERTED) != HKS_REC_ENTRY_REFIT_INV)
			put_varint(b, i < n ? 0 : pad);
	put_n(b, pad, 256);
}

static double cost_of(const uint8_t *body, size_t size, unsigned v, const char *name)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, NULL, 0, NULL);
	double bits[HKS_REC_COST_CLASSES] = {0};
	assert_int_equal(hks_rec_model_costs(&ctx, body, size, v, bits), HKS_OK);
	for (unsigned c = 0; c < HKS_REC_COST_CLASSES; c++)
		if (!strcmp(hks_rec_model_cost_name(c), name))
			return bits[c];
	fail_msg("no cost class %s", name);
	return 0.0;
}

/* Version 21 codes the entries' index gaps unit by unit, each unit's flag predicted from its part kind and the
 * entries before it (docs/RECORD.md "Body coding", "Since version 21"); gaps it cannot code that way (a
 * non-minimal varint, a gap above 65,535 units, more flags than the budget) fall back to the byte model. */
static void test_entry_gaps(void **state)
{
	(void)state;
	rng_state = 0xE7u;
	hks_ctx ctx;
	hks_ctx_init(&ctx, NULL, 0, NULL);
	enum { T = 300 };
	static uint64_t index[3 * T], shuffled[3 * T];
	static uint8_t kind[3 * T];
	static unsigned track_of[3][T];
	unsigned n = 0;
	/* tracks in runs of six that need entries and six that do not (a limb that moves, one that rests), each entry's
	 * kind following its part kind; and the same entries with each part's tracks shuffled, which leaves every part
	 * kind's rate as it was but takes away what the tracks before tell */
	for (unsigned u = 0; u < 3 * T; u++)
		if ((u / 18) % 2 == 0 ? u % 3 != 2 && rng() % 100 < 95 : rng() % 100 < 2) {
			kind[n] = (uint8_t)(u % 3 == 0 ? HKS_REC_ENTRY_INVERTED : u % 3 == 1 ? 8u | HKS_REC_ENTRY_DIFF
			                                                                     : HKS_REC_ENTRY_REFIT);
			index[n++] = u;
		}
	for (unsigned p = 0; p < 3; p++) {
		for (unsigned t = 0; t < T; t++)
			track_of[p][t] = t;
		for (unsigned t = T - 1; t > 0; t--) {
			unsigned o = rng() % (t + 1), x = track_of[p][t];
			track_of[p][t] = track_of[p][o];
			track_of[p][o] = x;
		}
	}
	static uint8_t used[3 * T];
	memset(used, 0, sizeof(used));
	for (unsigned i = 0; i < n; i++)
		used[3 * track_of[index[i] % 3][index[i] / 3] + index[i] % 3] = 1;
	unsigned m = 0;
	for (unsigned u = 0; u < 3 * T; u++)
		if (used[u])
			shuffled[m++] = u;
	assert_int_equal(m, n);
	hks_bytebuf body, out, old;
	hks_bytebuf_init(&body, &ctx);
	entries_body(&body, T, 0, 1, shuffled, NULL, n, 16, ~0u);
	round_trip(body.data, body.size, 0);
	double flag_bits_shuffled = cost_of(body.data, body.size, version, "entry flags");
	hks_bytebuf_free(&body);
	hks_bytebuf_init(&body, &ctx);
	entries_body(&body, T, 0, 1, index, kind, n, 16, ~0u);
	round_trip(body.data, body.size, 1);
	unsigned saved = version;
	version = 20; /* the same body coded as version 20 did, its gaps and kinds by the byte model alone */
	coded(body.data, body.size, &old);
	double kind_bits_20 = cost_of(body.data, body.size, 20, "entry kinds");
	version = saved;
	coded(body.data, body.size, &out);
	double flag_bits = cost_of(body.data, body.size, version, "entry flags");
	double kind_bits = cost_of(body.data, body.size, version, "entry kinds");
	printf("%u entries over %u units: entry flags %.1f bits (tracks shuffled: %.1f), kinds %.1f bits (version 20: "
	       "%.1f)\n", n, 3 * T, flag_bits, flag_bits_shuffled, kind_bits, kind_bits_20);
	assert_true(cost_of(body.data, body.size, version, "entry gaps") == 0.0);
	assert_true(flag_bits > 0.0 && flag_bits < 0.8 * flag_bits_shuffled);
	assert_true(kind_bits < 0.7 * kind_bits_20);
	hks_bytebuf_free(&old);
	hks_bytebuf_free(&out);
	hks_bytebuf_free(&body);

	/* the fallbacks: a non-minimal varint; a gap above the limit, in a body too small for its flags and in one
	 * large enough; a gap of exactly the limit, whose last unit has no flag, and one below it, when the body is
	 * large enough for their flags, and not when it is not */
	static const struct {
		uint64_t gap;
		size_t pad;
		unsigned non_minimal;
		int by_unit;
	} cases[] = {{5, 16, 1, 0},         {65536, 16, ~0u, 0},    {65536, 20000, ~0u, 0}, {65535, 20000, ~0u, 1},
	             {65534, 20000, ~0u, 1}, {65534, 16, ~0u, 0},    {9, 16, ~0u, 1}};
	for (unsigned c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		uint64_t at[3] = {0, 1 + cases[c].gap, 2 + cases[c].gap};
		hks_bytebuf_init(&body, &ctx);
		entries_body(&body, T, 0, 1, at, NULL, 3, cases[c].pad, cases[c].non_minimal);
		round_trip(body.data, body.size, body.size < 100);
		double gaps = cost_of(body.data, body.size, version, "entry gaps");
		assert_true(cases[c].by_unit ? gaps == 0.0 : gaps > 0.0);
		hks_bytebuf_free(&body);
	}
	/* float tracks and blocks (the part kind from the unit's place in its block), and a clip without units */
	static const unsigned shapes[][3] = {{5, 4, 3}, {0, 7, 2}, {12, 0, 4}, {0, 0, 1}};
	for (unsigned c = 0; c < sizeof(shapes) / sizeof(shapes[0]); c++) {
		unsigned units = (3 * shapes[c][0] + shapes[c][1]) * shapes[c][2];
		n = 0;
		for (unsigned u = 0; u < (units ? units : 40) && n < 3 * T; u++)
			if (rng() % 3 == 0)
				index[n++] = u;
		hks_bytebuf_init(&body, &ctx);
		entries_body(&body, shapes[c][0], shapes[c][1], shapes[c][2], index, NULL, n, 16, ~0u);
		round_trip(body.data, body.size, 1);
		assert_true(cost_of(body.data, body.size, version, "entry gaps") == 0.0);
		hks_bytebuf_free(&body);
	}
}

/* Version 21 codes each REFIT bound byte with its place among its lane's eight (docs/RECORD.md "Body coding", "Since
 * version 21"): bounds whose zigzagged offsets are small, so that their high bytes are 0 and their low bytes are
 * not, cost less than in version 20. */
static void test_bound_places(void **state)
{
	(void)state;
	rng_state = 0xB0u;
	hks_ctx ctx;
	hks_ctx_init(&ctx, NULL, 0, NULL);
	enum { T = 40 };
	hks_bytebuf body;
	hks_bytebuf_init(&body, &ctx);
	put(&body, (uint8_t)(HKS_REC_HEAD_BLOCKS | 1u << HKS_REC_HEAD_CPU_SHIFT));
	put_varint(&body, 120);
	put_varint(&body, T);
	put_varint(&body, 0);
	put_varint(&body, 256);
	put_varint(&body, 1);
	put_n(&body, 4 + 4, 256);
	put_n(&body, T, 4);
	put_varint(&body, T); /* a REFIT_INV entry at every translation (unit 3t) */
	for (unsigned t = 0; t < T; t++)
		put_varint(&body, t ? 2 : 0);
	for (unsigned t = 0; t < T; t++)
		put(&body, HKS_REC_ENTRY_REFIT_INV);
	for (unsigned t = 0; t < T; t++) {
		put(&body, 0);       /* try */
		put_varint(&body, 0); /* knot range */
		put_varint(&body, 0); /* no edits */
		put(&body, 0x11);    /* mask byte 0 (a translation's) */
		put(&body, 0x70);    /* mask: three spline lanes */
		put(&body, 1);       /* 16-bit quantization */
		for (unsigned lane = 0; lane < 3; lane++)
			for (unsigned b = 0; b < 2; b++) { /* the minimum's and the maximum's offsets: up to 12 bits */
				uint32_t z = rng() % 3 ? rng() % 4096u : 0u;
				put(&body, (uint8_t)z);
				put(&body, (uint8_t)(z >> 8));
				put(&body, 0);
				put(&body, 0);
			}
		put_varint(&body, 0); /* no hidden points' corrections */
		put_varint(&body, 0); /* no others */
	}
	round_trip(body.data, body.size, 1);
	double bits = cost_of(body.data, body.size, version, "bounds");
	double bits_20 = cost_of(body.data, body.size, 20, "bounds");
	printf("%u lanes' bounds: %.1f bits (version 20: %.1f)\n", 3 * T, bits, bits_20);
	assert_true(bits > 0.0 && bits < 0.92 * bits_20);
	hks_bytebuf_free(&body);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_round_trips, version_10),
		cmocka_unit_test_setup(test_hostile_streams, version_10),
		cmocka_unit_test_setup(test_pinned_coding, version_10),
		cmocka_unit_test_setup(test_refit_inv_length, version_10),
		cmocka_unit_test_setup(test_round_trips, version_11),
		cmocka_unit_test_setup(test_hostile_streams, version_11),
		cmocka_unit_test_setup(test_pinned_coding, version_11),
		cmocka_unit_test_setup(test_refit_inv_length, version_11),
		cmocka_unit_test_setup(test_round_trips, version_12),
		cmocka_unit_test_setup(test_hostile_streams, version_12),
		cmocka_unit_test_setup(test_pinned_coding, version_12),
		cmocka_unit_test_setup(test_refit_inv_length, version_12),
		cmocka_unit_test_setup(test_round_trips, version_13),
		cmocka_unit_test_setup(test_hostile_streams, version_13),
		cmocka_unit_test_setup(test_pinned_coding, version_13),
		cmocka_unit_test_setup(test_refit_inv_length, version_13),
		cmocka_unit_test_setup(test_round_trips, version_14),
		cmocka_unit_test_setup(test_hostile_streams, version_14),
		cmocka_unit_test_setup(test_pinned_coding, version_14),
		cmocka_unit_test_setup(test_round_trips, version_15),
		cmocka_unit_test_setup(test_hostile_streams, version_15),
		cmocka_unit_test_setup(test_pinned_coding, version_15),
		cmocka_unit_test_setup(test_refit_inv_length, version_15),
		cmocka_unit_test_setup(test_round_trips, version_16),
		cmocka_unit_test_setup(test_hostile_streams, version_16),
		cmocka_unit_test_setup(test_pinned_coding, version_16),
		cmocka_unit_test_setup(test_refit_inv_length, version_16),
		cmocka_unit_test_setup(test_refit_inv_length, version_14),
		cmocka_unit_test_setup(test_round_trips, version_19),
		cmocka_unit_test_setup(test_hostile_streams, version_19),
		cmocka_unit_test_setup(test_pinned_coding, version_19),
		cmocka_unit_test_setup(test_refit_inv_length, version_19),
		cmocka_unit_test(test_prior_well_formed),
		cmocka_unit_test_setup(test_costs, version_16),
		cmocka_unit_test_setup(test_costs, version_19),
		cmocka_unit_test_setup(test_round_trips, version_21),
		cmocka_unit_test_setup(test_hostile_streams, version_21),
		cmocka_unit_test_setup(test_pinned_coding, version_21),
		cmocka_unit_test_setup(test_refit_inv_length, version_21),
		cmocka_unit_test_setup(test_costs, version_21),
		cmocka_unit_test_setup(test_entry_gaps, version_21),
		cmocka_unit_test_setup(test_bound_places, version_21),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
