/*
 * The reconstruction record, format v4 (reads v3; docs/RECORD.md): in-memory form,
 * serializer and parser (record.c). The re-compressor (recompress.c) builds
 * and applies it.
 */
#ifndef HKS_RECORD_H
#define HKS_RECORD_H

#include "internal.h"

#define HKS_RECORD_MAGIC "HKSR"
#define HKS_RECORD_FILE_MAGIC "HKSF"
#define HKS_RECORD_FLAG_ZLIB 0x01u  /* the body is a raw deflate stream (v8; a zlib stream up to v7) */
#define HKS_RECORD_FLAG_MODEL 0x02u /* v9: the body is coded by record_model.c (docs/RECORD.md "Body coding") */
#define HKS_RECORD_MODEL_RATIO 32u  /* v9: a coded body is at most 32 times its coded size plus 64 bytes */

enum { HKS_REC_ANIM_PREDICTED = 0, HKS_REC_ANIM_VERBATIM = 1 };

/* v12: the body's first byte, the head flags (docs/RECORD.md "Version 12"): the animation kind, the guard, how
 * the duration is stored, whether the block layout is stored, the CPU model, whether the ladder steps and the
 * override flags are stored. Duration code 3, and bit 7 with the data stored whole, are malformed. */
#define HKS_REC_HEAD_VERBATIM 0x01u       /* kind: the data stored whole */
#define HKS_REC_HEAD_GUARD 0x02u          /* the original has the Elden Ring trailing guard */
#define HKS_REC_HEAD_DURATION_SHIFT 2u    /* 2 bits: HKS_REC_DURATION_* */
#define HKS_REC_HEAD_BLOCKS 0x10u         /* maxFramesPerBlock and numBlocks follow (else hks_rec_blocks_implied) */
#define HKS_REC_HEAD_CPU_SHIFT 5u         /* 2 bits: the CPU model - 1 (HKS_CPU_INTEL .. HKS_CPU_EXACT) */
#define HKS_REC_HEAD_STEPS 0x80u          /* a prediction's ladder steps and override flags follow (else
                                             hks_rec_implied_steps and HKS_REC_IMPLIED_OVERRIDES) */
#define HKS_REC_IMPLIED_STEPS 1u
/* The first version whose records predict with two ladder steps unless the head says otherwise, and whose step 1
 * fits at the tolerances of earlier versions' step 6 (0.00075 rotations, 0.0008 the others) and step 6 at theirs
 * (Havok's 0.001): the entries that edit the knots of a try may take the hybrid of either step's prediction
 * (docs/RECORD.md "Two ladder steps since version 18"). */
#define HKS_REC_VERSION_TWO_STEPS 18u
#define HKS_REC_IMPLIED_STEPS_TWO 2u
/* The ladder steps a record of `version` has when its head does not store them */
static inline unsigned hks_rec_implied_steps(unsigned version)
{
	return version >= HKS_REC_VERSION_TWO_STEPS ? HKS_REC_IMPLIED_STEPS_TWO : HKS_REC_IMPLIED_STEPS;
}
/* The first version whose INVERTED entries keep no unit hash: apply takes such an entry when the part it
 * builds decodes to the unit's frames, as every other hash-free entry (docs/RECORD.md "Hash"). */
#define HKS_REC_VERSION_HASHLESS_INVERTED 14u
/* The first version whose corrections of a T/S/F part's points move the points of the same lane not yet read:
 * each corrected point is held at its value and the rest of its lane is solved again (docs/RECORD.md "Lanes
 * solved again since version 17"); it replaces version 15's pairs. */
#define HKS_REC_VERSION_LANE_RESOLVE 17u
/* The first version whose knot edits store, per frame, the rank of the multiplicity difference among the
 * differences in the order of their frequency where the try has the same multiplicities around the frame and the
 * frame before has the same difference (docs/RECORD.md "Knot edits as ranks since version 19"). */
#define HKS_REC_VERSION_KNOT_RANKS 19u
/* The first version whose REFIT bounds are offsets from bases that know Havok's quantizer: a minimum the solve
 * puts within 2^-27 of the lane's range from 0 is offset from +0, and a maximum from the value the top point's
 * integer one below the grid's top implies when the quantizer gives that integer there (docs/RECORD.md
 * "Bound bases since version 20"). */
#define HKS_REC_VERSION_BOUND_BASES 20u
/* The first version whose body coder codes the entries' index gaps unit by unit, each unit's flag predicted from its
 * part kind and the entries of the units before it, the kind bytes with their units' part kinds and the REFIT bounds'
 * bytes with their places (docs/RECORD.md "Body coding", "Since version 21"). */
#define HKS_REC_VERSION_ENTRY_FLAGS 21u
#define HKS_REC_IMPLIED_OVERRIDES 8u      /* the verified inversion is each unit's candidate after step 0 */
enum { HKS_REC_DURATION_STORED = 0, /* the f32 bits follow */
       HKS_REC_DURATION_30 = 1,     /* (float)(numFrames - 1) / 30.0f */
       HKS_REC_DURATION_60 = 2,     /* (float)(numFrames - 1) / 60.0f */
       HKS_REC_DURATION_CODES = 3 };
/* v12: the block layout a record without HKS_REC_HEAD_BLOCKS has: maxFramesPerBlock 256 (Havok's default) and
 * the fewest blocks that hold num_frames frames (blocks share their boundary frame: 1 + 255 k frames in k). */
#define HKS_REC_IMPLIED_FRAMES_PER_BLOCK 256u
uint32_t hks_rec_blocks_implied(uint32_t num_frames);
/* The bits of the data hash (FNV-1a 64 of the original data) a record of `version` keeps: all 64 up to
 * version 11, the low 32 from version 12 (docs/RECORD.md "Hash"). */
uint64_t hks_rec_data_hash_mask(unsigned version);
/* The f32 bits of duration code `code` (1 or 2) for num_frames frames ((float)(n - 1) / fps, 0 for n <= 1). */
uint32_t hks_rec_duration_bits(unsigned code, uint32_t num_frames);
enum { HKS_REC_ENTRY_DIFF = 0, HKS_REC_ENTRY_VERBATIM = 1, HKS_REC_ENTRY_REFIT = 2, HKS_REC_ENTRY_REFIT_PATCHED = 3,
       HKS_REC_ENTRY_INVERTED = 4, /* v3: the part is its inversion from the frames (empty payload) */
       HKS_REC_ENTRY_REFIT_INV = 5 /* v4: REFIT with the knots as edits of a knot vector the inverter tried */ };

/* One part's correction. The part's canonical form (recompress.c) is patched
 * with XOR runs (DIFF), replaced (VERBATIM), or rebuilt from the recorded
 * header, knots and bounds with control points solved from the frames, then
 * patched (REFIT). */
typedef struct hks_rec_entry {
	uint32_t index;          /* block · (3T + F) + (3t + k) or 3T + i */
	uint32_t hash;           /* low 32 bits of the part's frame hash (stored only when full_hash) */
	uint8_t full_hash;       /* v8: the entry stores the hash and applies on a hash match alone; else it applies
	                            when the part it builds decodes to the frames (docs/RECORD.md "Hash") */
	uint8_t ladder;          /* predictor tolerance step */
	uint8_t kind;            /* HKS_REC_ENTRY_* */
	const uint8_t *payload;  /* DIFF: the encoded runs; VERBATIM: the canonical part */
	uint32_t payload_size;
} hks_rec_entry;

typedef struct hks_rec_anim {
	uint8_t version;         /* the record's format version (HKS_RECORD_VERSION_MIN..HKS_RECORD_VERSION); the
	                            writer writes it (0: HKS_RECORD_VERSION; 9 and up) */
	uint8_t kind;            /* HKS_REC_ANIM_* */
	uint32_t num_frames, num_transform_tracks, num_float_tracks, max_frames_per_block, num_blocks;
	uint32_t duration_bits;
	uint8_t guard;
	uint8_t cpu;
	uint64_t data_hash;      /* FNV-1a 64 of the original data; a v12 record keeps (and reads) its low 32 bits */
	uint32_t data_size;
	/* PREDICTED */
	const uint8_t *track_quant;   /* T bytes: mask byte 0 of block 0 */
	const uint8_t *float_quant;   /* F bytes: 0 / 1 */
	uint8_t ladder_count;
	uint8_t offsets_override;     /* bit 0: blockOffsets below, bit 1: floatBlockOffsets below, bit 2: the
	                                 three header durations below (when the packer's own differ from the
	                                 original's) */
	uint32_t header_bits[3];      /* frameDuration, blockDuration, blockInverseDuration */
	uint32_t num_entries;
	hks_rec_entry *entries;
	/* VERBATIM, and PREDICTED with offsets_override */
	uint32_t num_block_offsets, num_float_block_offsets;
	uint32_t *block_offsets, *float_block_offsets;
	const uint8_t *data;
} hks_rec_anim;

/* LEB128 unsigned varints (docs/RECORD.md). hks_rec_varint_bytes writes v's bytes (at most 10) to out and
 * returns how many. */
size_t hks_rec_varint_bytes(uint8_t *out, uint64_t v);
hks_result hks_rec_put_varint(hks_bytebuf *b, uint64_t v);
hks_result hks_rec_get_varint(hks_cursor *c, uint64_t *v, const char *what);
/* A varint that must be <= max. */
hks_result hks_rec_get_count(hks_cursor *c, uint64_t max, uint32_t *v, const char *what);

/* Serialize (body then header; the body coded by record_model.c unless no_zlib or the coding does not
 * shrink it). */
hks_result hks_rec_write(hks_ctx *ctx, const hks_rec_anim *r, int no_zlib, uint8_t **out, size_t *out_size);
/* Parse into `arena` (a coded or deflated body is decoded there; pointers point into it or into `data`). */
hks_result hks_rec_read(hks_ctx *ctx, hks_arena *arena, const uint8_t *data, size_t size, hks_rec_anim *r);

/* The body coder (record_model.c, v9): `size` body bytes appended to `out` as the coded stream; and back,
 * filling exactly `size` bytes of `body`. Decoding fails only for want of memory: *whole says whether the
 * stream had exactly the coded length and its end check matched the body (anything else is a damaged
 * record, which hks_rec_read refuses). */
hks_result hks_rec_model_encode(hks_ctx *ctx, const uint8_t *body, size_t size, unsigned version, hks_bytebuf *out);
hks_result hks_rec_model_decode(hks_ctx *ctx, const uint8_t *in, size_t in_size, unsigned version, uint8_t *body,
                                size_t size, int *whole);

/* v14: a start state of the body coder's model (docs/RECORD.md "Version 14"): the slots and values of the
 * knot, gap and mixer statistics that differ from a fresh version 13 model's, by their numbers in
 * record_model.c's state tables, in increasing order. */
typedef struct hks_rec_prior_slot {
	uint32_t index;
	uint16_t prob; /* as the slot stores it (P(1) in 1/65536, XOR 0x8000) */
	uint16_t seen;
} hks_rec_prior_slot;
typedef struct hks_rec_prior_value {
	uint32_t index;
	int32_t value;
} hks_rec_prior_value;
typedef struct hks_rec_prior {
	const hks_rec_prior_slot *slot;
	uint32_t slots;
	const hks_rec_prior_value *value;
	uint32_t values;
} hks_rec_prior;
/* Version 14's, trained on Sekiro's bodies (record_prior.c, written by tools/make_record_prior.c) */
extern const hks_rec_prior hks_rec_prior_v14;
/* Version 16's: the same model, trained on Sekiro's version 16 bodies (their knot edits are against the hybrid
 * tries: other statistics; record_prior_v16.c). Versions 14 and 15 keep version 14's. */
extern const hks_rec_prior hks_rec_prior_v16;
#define HKS_REC_PRIOR_V16 16u
/* Version 19's: the same model, trained on Sekiro's version 19 bodies (their knot edits are ranks: other
 * statistics; record_prior_v19.c, docs/RECORD.md "Version 19"). Versions 16 to 18 keep version 16's. */
extern const hks_rec_prior hks_rec_prior_v19;
#define HKS_REC_PRIOR_V19 19u

/* The parts of the model a start state sets (tools/make_record_prior.c) */
#define HKS_REC_PRIOR_KNOT_SLOTS 0x01u
#define HKS_REC_PRIOR_GAP_SLOTS 0x02u
#define HKS_REC_PRIOR_KNOT_WEIGHTS 0x04u
#define HKS_REC_PRIOR_GAP_WEIGHTS 0x08u
#define HKS_REC_PRIOR_BYTE_MIXERS 0x10u  /* the weights and their update counts */
#define HKS_REC_PRIOR_FINAL_MIXER 0x20u
#define HKS_REC_PRIOR_VERSION 14u        /* the record version whose model is trained */
typedef struct hks_rec_prior_options {
	unsigned groups;         /* HKS_REC_PRIOR_* */
	unsigned seen_cap;       /* the updates a trained slot counts as, at most (1..255) */
	unsigned mixer_seen_cap; /* the updates a trained byte mixer weight set counts as, at most (0..255) */
} hks_rec_prior_options;
/* Developer (tools/make_record_prior.c): code the bodies in turn, each record's model started from where the
 * previous one ended in opt->groups, and give the final state's differences from a fresh model (free with
 * hks_rec_prior_free). */
hks_result hks_rec_prior_train(hks_ctx *ctx, const uint8_t *const *body, const size_t *size, size_t n,
                               const hks_rec_prior_options *opt, hks_rec_prior *out);
void hks_rec_prior_free(hks_ctx *ctx, hks_rec_prior *p);
/* Whether every number of a start state names a statistic of the model, in increasing order (the tests) */
int hks_rec_prior_check(hks_ctx *ctx, const hks_rec_prior *p);
/* Developer (tools/make_record_prior.c --fields): what coding the body costs, in bits, added to bits[] by cost
 * class: the body's fields (docs/RECORD.md "Byte layout"), the knot symbols, the correction flags by list and
 * part, the end check, the entry flags (v21); hks_rec_model_cost_name names a class (NULL beyond the last). The coded stream is the
 * same as hks_rec_model_encode's (and is dropped). */
#define HKS_REC_COST_CLASSES 43
hks_result hks_rec_model_costs(hks_ctx *ctx, const uint8_t *body, size_t size, unsigned version,
                               double bits[HKS_REC_COST_CLASSES]);
const char *hks_rec_model_cost_name(unsigned cost_class);
/* hks_rec_model_encode with another start state than the version's (measuring a trained one) */
hks_result hks_rec_model_encode_prior(hks_ctx *ctx, const uint8_t *body, size_t size, unsigned version,
                                      const hks_rec_prior *prior, hks_bytebuf *out);

/* The length of the REFIT_INV payload (v8, docs/RECORD.md "Byte layout") that starts at p, for part kind
 * `part` (0 T, 1 R, 2 S, 3 F), read from its own bytes (they are self-delimiting); 0 when it does not end
 * within avail bytes. record_model.c: the coder's walk of the payload, run without a model, so that the
 * coder and the parser share one walk (recompress.c writes and reads the payload's fields itself). The
 * record's version selects the grammar (11 and up: two correction lists). */
size_t hks_rec_refit_inv_length(unsigned part, const uint8_t *p, size_t avail, unsigned version);

/* A REFIT_INV entry's knot edits (docs/RECORD.md "Knot edits"; since version 19 as ranks, "Knot edits as ranks
 * since version 19"): those turning knot vector `base` into `target` appended to `out`, and read back from the
 * cursor against `base` into out[0..*n) (at most `cap` knots). recompress.c; the tests pin version 19's bytes. */
hks_result hks_rec_knot_edits_write(hks_bytebuf *out, const uint8_t *base, size_t nb, const uint8_t *target,
                                    size_t nt, unsigned version);
hks_result hks_rec_knot_edits_read(hks_cursor *c, const uint8_t *base, size_t nb, uint8_t *out, size_t cap, size_t *n,
                                   unsigned version);
/* Whether the rank table's rows are in increasing context order and each is a permutation of the symbols */
int hks_rec_knot_rank_table_valid(void);

/* The f32 bits a REFIT prefix's stored minimum (is_max 0) or maximum (1) of a spline lane is offset from
 * (docs/RECORD.md "REFIT prefix coding", "Bound bases since version 20"): lo and hi are the solve's smallest and
 * largest control point of the lane, quant the part's quantization (1: 16 bits), decoded_min the stored minimum
 * (read first), cpu the record's reciprocal model (HKS_CPU_*). recompress.c; the tests check each rule. */
uint32_t hks_rec_bound_base(unsigned cpu, unsigned version, unsigned quant, int is_max, double lo, double hi,
                            float decoded_min);

/* hks_recompress writing record version `version` (9 to HKS_RECORD_VERSION): version 9's REFIT solve differs
 * from version 10's (docs/RECORD.md "Version 10"), version 11's entries from version 10's, version 12's head
 * from version 11's; the tests write them all. recompress.c. */
hks_result hks_recompress_version(const hks_animation *anim, const hks_recompress_options *opts, unsigned version,
                                  uint8_t **record, size_t *record_size, hks_packed_spline **prediction,
                                  hks_recompress_report *report, hks_error *err);

/* Number of (block, track, part) units of an animation: blocks · (3T + F), checked. */
int hks_rec_num_units(uint32_t num_blocks, uint32_t T, uint32_t F, uint64_t *out);

#endif
