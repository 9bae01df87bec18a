/*
 * The record body's own entropy coder (record v9, docs/RECORD.md "Body coding"):
 * a binary arithmetic coder driven by a small context-mixing model that knows
 * which field of the body each byte belongs to.
 *
 * Why not deflate: a record body is about 2 KB of columns of small varints,
 * so deflate spends a good part of its output on each block's Huffman tables
 * and cannot tell an index gap from a knot edit. Here a walker that knows the
 * body's grammar (record.c, RECORD.md "Byte layout") names the field of every
 * byte before it is coded; each field keeps its own byte history, the hashed
 * contexts include the field, and two mixers combine seven predictions. Coding
 * and decoding walk the same grammar over the same bytes (the decoder reads the
 * counts, kinds and mask bytes it has already decoded), so the body layout is
 * v8's, unchanged; only its coding differs.
 *
 * Since version 14 the model starts from a state trained on Sekiro's record
 * bodies (record_prior.c, written by tools/make_record_prior.c; "Version 14").
 * Since version 21 the entries' index gaps are coded unit by unit, their
 * kind bytes know their units' part kinds and the bounds' bytes their places
 * ("Version 21").
 *
 * Everything is integer arithmetic with fixed tables, so the coded bytes are
 * the same on every compiler and machine. The decoder never fails on hostile
 * input: it always produces exactly the announced body size, and the caller
 * refuses a stream whose length or end check disagrees (hks_rec_model_decode's
 * result) and parses the body like any other.
 */
#include "record.h"

#include "encode_internal.h"

#include <math.h>
#include <string.h>

enum {
	F_HEAD, F_VERBATIM, F_GAP, F_KIND, F_PAYLOAD_SIZE, F_HASH,
	F_PAYLOAD0, /* DIFF, VERBATIM, REFIT, REFIT_PATCHED, INVERTED payloads: F_PAYLOAD0 + kind */
	F_TRY = F_PAYLOAD0 + 5, F_EDIT_COUNT, F_EDIT_GAP, F_EDIT_DIFF, F_INV_HEAD, F_STATIC, F_BOUND,
	F_CORR_COUNT, F_CORR_GAP, F_CORR_CODE, F_CORR_POINT, F_CORR_XOR, F_TAIL,
	/* v11: the corrections of the points no frame sees, a list of their own (after F_TAIL, so that the
	 * fields of earlier versions keep their numbers and their coding) */
	F_HIDDEN_COUNT, F_HIDDEN_GAP, F_HIDDEN_CODE, F_HIDDEN_POINT,
	F_KNOT_RANGE, /* v11: the last frame of a REFIT_INV entry's knot edits, which are coded frame by frame */
	/* v11: a rotation entry's head and corrections are fields of their own (their values differ from those
	 * of translations, scales and floats) */
	F_R_INV_HEAD, F_R_CORR_COUNT, F_R_CORR_GAP, F_R_CORR_CODE, F_R_HIDDEN_COUNT, F_R_HIDDEN_GAP, F_R_HIDDEN_CODE,
	F_COUNT
};

/* Developer measurement (hks_rec_model_costs): the coded bits by field, then by the decisions coded outside the
 * byte model. The names are the report's (tools/make_record_prior.c --fields). */
enum { COST_KNOTS = F_COUNT, /* the knot edits frame by frame (and their per-entry flag) */
       COST_FLAGS,           /* + 2 · list + rotation: correction gaps slot by slot (and their per-list flag) */
       COST_CHECK = COST_FLAGS + 4, /* the end check and the flush byte */
       COST_ENTRY_FLAGS,            /* v21: the entries' index gaps unit by unit (and their per-body flag) */
       COST_CLASSES };
_Static_assert(COST_CLASSES == HKS_REC_COST_CLASSES, "record.h names every cost class");
static const char *const cost_names[COST_CLASSES] = {
	"head", "whole data", "entry gaps", "entry kinds", "payload sizes", "entry hashes", "DIFF payloads",
	"VERBATIM payloads", "REFIT payloads", "REFIT_PATCHED payloads", "INVERTED payloads", "REFIT_INV tries",
	"knot edit counts", "knot edit gaps", "knot edit differences", "REFIT_INV heads", "static values", "bounds",
	"seen correction (or XOR run) counts", "seen correction (or XOR run) gaps",
	"seen correction codes (or XOR run lengths)", "whole points", "XOR runs", "tails",
	"hidden correction counts", "hidden correction gaps", "hidden correction codes", "hidden whole points",
	"knot ranges", "rotation REFIT_INV heads", "rotation seen correction (or XOR run) counts",
	"rotation seen correction (or XOR run) gaps", "rotation seen correction codes (or XOR run lengths)",
	"rotation hidden correction counts", "rotation hidden correction gaps", "rotation hidden correction codes",
	"knot symbols", "hidden flags", "rotation hidden flags", "seen flags", "rotation seen flags", "end check",
	"entry flags"};

#define MODELS 7
/* Slots per model: 2^bits with bits from the body's size (table_bits), so that a small body does not pay
 * for clearing tables it cannot fill: 16 to 32 slots a body byte, 2^10 to 2^18. */
#define TABLE_BITS_MIN 10
#define TABLE_BITS_MAX 18
#define MIXER_INPUTS (MODELS + 1)
#define FINAL_INPUTS 3 /* v13: the final mixer's inputs, the two mixers' outputs and a bias */

/* 4096 / (1 + e^(-d/256)) at d = -2048, -1920, ..., 2048, rounded */
static const int16_t squash_points[33] = {1,    2,    4,    6,    10,   17,   27,   45,   74,   120,  194,
                                          311,  488,  747,  1102, 1546, 2048, 2550, 2994, 3349, 3608, 3785,
                                          3902, 3976, 4022, 4051, 4069, 4079, 4086, 4090, 4092, 4094, 4095};

static int squash(int d)
{
	if (d > 2047)
		return 4095;
	if (d < -2047)
		return 1;
	int i = (d + 2048) >> 7, w = (d + 2048) & 127;
	int p = (squash_points[i] * (128 - w) + squash_points[i + 1] * w + 64) >> 7;
	return p < 1 ? 1 : p > 4095 ? 4095 : p;
}

/* floor(x / 2^k) for |x| < 2^30, without shifting a negative value (implementation-defined in C). */
static int32_t shift_down(int32_t x, unsigned k)
{
	return (int32_t)((((uint32_t)x + (1u << 30)) >> k) - ((1u << 30) >> k));
}

/* A mixer's output: its weights' dot product with the inputs (weights to 8 fraction bits first, see below), in
 * stretch units, clamped to +-2047. */
static int32_t mixer_dot(const int32_t *w, const int32_t *input)
{
	int32_t d = 0;
	for (unsigned i = 0; i < MIXER_INPUTS; i++)
		d += shift_down(w[i], 8) * input[i];
	d = shift_down(d, 8);
	return d > 2047 ? 2047 : d < -2047 ? -2047 : d;
}

/* v13: the final mixer's output, as mixer_dot's */
static int32_t final_dot(const int32_t *w, const int32_t *input)
{
	int32_t d = 0;
	for (unsigned i = 0; i < FINAL_INPUTS; i++)
		d += shift_down(w[i], 8) * input[i];
	d = shift_down(d, 8);
	return d > 2047 ? 2047 : d < -2047 ? -2047 : d;
}

/* Weights stay within +-128 (16.16). The dot product takes them to 8 fraction bits first, so every term
 * (below 2^15 · 2^11) and the sum of eight fit 32 bits, and the loops vectorize. */
#define WEIGHT_LIMIT (1 << 23)

#define COUNT_LIMIT 60      /* a slot's updates that set its rate (up to version 12) */
#define COUNT_LIMIT_V13 255 /* since version 13 */

/* A context's slot: P(bit = 1) in 1/65536 and the updates so far (up to COUNT_LIMIT), which set the
 * adaptation rate. The 15 slots of a context's half byte share one 64-byte group (one cache line). */
typedef struct slot {
	uint16_t prob; /* stored XOR 0x8000, so that zeroed memory is P = 1/2 */
	uint16_t seen;
} slot;

/* A slot's P(1) in 1/4096, within 1..4095, for a bit coded on the slot alone */
static uint32_t slot_p12(const slot *s)
{
	uint32_t p = (s->prob ^ 0x8000u) >> 4;
	return p < 1 ? 1 : p > 4095 ? 4095 : p;
}

/* v11: the knot edits coded as one symbol per frame (docs/RECORD.md "Body coding"): the zigzag of the
 * multiplicity difference, 0 at most frames. A binary tree over the symbols in the order of their frequency
 * (then nine bits for the rare rest), each decision predicted by six slots whose contexts are the entry's
 * previous symbols (the symbols of the previous entry at the same frames too), mixed by a small mixer. */
#define KNOT_STEPS 7
#define KNOT_RECENT (10000 + 18 * 10)
typedef struct knot_model {
	slot recent[KNOT_RECENT][KNOT_STEPS]; /* the last four symbols; after four zeros, the run and its start */
	slot three[1000][KNOT_STEPS];         /* the last three */
	slot two[100][KNOT_STEPS];
	slot one[10][KNOT_STEPS];
	slot run[18 * 10][KNOT_STEPS];   /* frames since the last non-zero symbol (up to 17) and that symbol */
	slot above[1000][KNOT_STEPS];    /* the symbols of the previous entry of the same part kind at this frame and
	                                    the next, and the last one */
	slot dense;                      /* per entry: coded frame by frame (the body's edits allow it) or not */
	int32_t weight[18][KNOT_STEPS][MIXER_INPUTS]; /* by the run's length (0..3; v13: 0..17) and the decision */
	int32_t weight_by_last[10][KNOT_STEPS][MIXER_INPUTS]; /* a second mixer: by the last symbol and the decision */
	int v13;                  /* v13: fresh `one` and `two` slots start from knot_prior; runs up to 17 select weights */
	uint8_t previous[4][257]; /* the symbols of the previous entry of each part kind (9: none) */
	uint8_t current[257];     /* this entry's so far */
	unsigned recent_symbols[4], run_length, run_symbol, frame, part;
} knot_model;

/* v11: the gaps of a correction list coded slot by slot: at each slot, whether it is corrected. The contexts
 * are the slot's component (rotations) or lane, the slots just before it and how far the last correction is,
 * per list (hidden points or the others) and part (rotation or not). */
#define GAP_FLAGS_MAX 1023 /* a gap of this many slots ends without its flag */
typedef struct gap_model {
	slot near[2][2][3][8];  /* list, rotation, component, the last three slots corrected */
	slot far[2][2][3][16];  /* list, rotation, component, slots since the last correction (up to 15) */
	slot both[2][2][8][16]; /* list, rotation, last three, distance */
	slot flags[2][2];       /* per list: gaps coded slot by slot or as bytes */
	int32_t weight[2][2][3][MIXER_INPUTS];
	unsigned history, distance;
} gap_model;

/* v21: the entries' index gaps coded unit by unit (docs/RECORD.md "Body coding", "Since version 21"): at each unit,
 * whether it has an entry. Each flag's probability is the mean, in the stretched domain, of two slots (entry_flag):
 * one by entry_context (the unit's part kind, whether the same part of each of the three tracks before has an entry
 * and whether the unit before has one), one by entry_density_context (the part kind, how many of the same part of
 * the eight tracks before have entries, how many such tracks the block has, and the unit before). Both start from
 * rates counted over Sekiro's training records (entry_prior, entry_prior_density). */
#define ENTRY_GAP_MAX 65535u /* a gap of this many units ends without its flag */
#define ENTRY_CONTEXTS 324u  /* part kind (4) x the same part three, six and nine units before (3 each: no, yes,
                                none in this block) x the unit before (3: no, yes, none) */
#define ENTRY_DENSITY_CONTEXTS 972u /* part kind (4) x entries among the same part of the eight tracks before (0..8)
                                       x such tracks in the block (0..8) x the unit before (3); not all reachable */
typedef struct entry_model {
	slot unit[ENTRY_CONTEXTS];
	slot density[ENTRY_DENSITY_CONTEXTS];
	slot by_unit;     /* per body: gaps coded unit by unit or as bytes */
	uint64_t history; /* bit i: an entry at the unit i + 1 before this one */
} entry_model;

typedef struct model {
	slot *table[MODELS];       /* 2^table_bits slots each, after the struct */
	unsigned table_bits;
	int32_t weight[2][256][MIXER_INPUTS];
	int16_t stretch[4096];
	uint16_t rate[COUNT_LIMIT_V13 + 1];
	uint32_t history[F_COUNT]; /* each field's last four bytes */
	uint32_t context[MODELS];  /* the byte's contexts, before the bits of the byte itself */
	uint32_t group[MODELS];    /* the half byte's slot group per model */
	slot *current[MODELS];
	int32_t input[MIXER_INPUTS];
	int32_t dot[2];
	int16_t squashed[4095]; /* squash(d) for d = -2047..2047 */
	/* v13: a slot counts up to count_limit updates (COUNT_LIMIT before); the byte mixers' weight sets count
	 * their updates (up to 255), which sets their learning rate; a final mixer per field and half byte weighs
	 * the two mixers' outputs */
	unsigned count_limit, v13;
	uint8_t mixer_seen[2][256];
	uint8_t mixer_rate[256]; /* 55 + 5120 / (n + 64) */
	int32_t final_weight[F_COUNT * 2][FINAL_INPUTS];
	int32_t final_input[FINAL_INPUTS];
	int32_t final_dot;
	unsigned final_set;
	knot_model knots;
	gap_model gaps;
	entry_model entries;
	unsigned unit_part; /* v21: while a kind byte is coded, its unit's part kind + 1 (walk_body); else 0 */
	unsigned bound_byte; /* v21: while a bound byte is coded, its place among its lane's eight + 1; else 0 */
	unsigned field, partial, nibble, previous, before_previous; /* partial byte and half byte with a leading
	                                                               1; the body's two previous bytes */
} model;


/* ---- v13: start values (docs/RECORD.md "Version 13") ----
 * Fitted on the Sekiro bodies of the development corpus only (Elden Ring and the binders were held out from
 * the fit): the knot mixers' start weights (16.16; the six slot inputs and the bias) per decision, averaged over
 * the records' final weights when each record started from the previous one's; the byte mixers' start weights
 * the same way, the first mixer's per bit of the byte; and P(1) in 1/4096 per last symbol and decision of the
 * knot chain, counted over all of Sekiro's knot symbols, which fresh `one` and `two` slots start from. */
static const int32_t knot_start_weight[KNOT_STEPS][7] = {
	{25244, 12544, 28266, -19161, -6238, 23598, 37339},   {17091, 25395, 17518, -5618, -5888, 23305, -57166},
	{16298, 29342, 78735, -3315, 9371, 13738, -127555},   {16048, 16275, 36248, -27518, 157, 9039, -90329},
	{33734, 55018, 19345, -33562, 9296, 9998, -26638},    {12231, -526, 23091, 21700, 227, 4416, 56241},
	{13402, 21734, 33669, 79927, 31985, 26917, 90649}};
static const int32_t knot_start_weight_by_last[KNOT_STEPS][7] = {
	{19244, 14546, 54630, -26902, -11392, 18565, 41318},  {21562, 20051, 34526, -11572, -11186, 16924, -63628},
	{17207, 22648, 61919, -2528, 3174, 11885, -51165},    {13825, 20580, 37870, -15479, -4816, 6090, -71844},
	{19522, 53405, 43100, 2401, 6548, 10556, -19190},     {16735, 4872, 17009, 6571, 872, 5282, 19489},
	{1748, 3205, 24813, 25070, 5757, 2873, 894}};
static const int32_t byte_start_weight[8][MIXER_INPUTS] = { /* the first mixer, by the bits of the byte so far */
	{21104, 17947, 8045, 22792, -10224, 20015, 7735, -226335}, {20981, 24515, -4196, 28423, -20831, 31118, -2981, -253099},
	{11852, 20709, 6064, 29454, -3140, 25049, -8850, -256111}, {14206, 26192, 6997, 24037, -6314, 26240, 5002, -278398},
	{13217, 23486, 8953, 23059, -3163, 24028, 9180, -229016},  {34541, 15749, 12599, 17176, -7827, 16695, 14233, -118813},
	{34768, 19131, 17759, 16791, -4341, 20047, 17234, -70663}, {43550, 24448, 18398, 17399, -5786, 19930, 14847, -1292}};
static const int32_t byte_start_weight_by_previous[MIXER_INPUTS] = { /* the second mixer, every set */
	30326, 24157, 3334, 15304, 7371, 21179, 2534, -85988};
#define KNOT_PRIOR_SEEN 20 /* the updates a prior counts as (its slot then adapts at 1/21.5 first) */
static const uint16_t knot_prior[10][KNOT_STEPS] = { /* by the last symbol (9: none); clamped to 16..4080 */
	{3725, 1577, 743, 1321, 1665, 3190, 4095}, {2933, 968, 0, 2299, 4094, 3185, 2048},
	{2636, 942, 2456, 1260, 1198, 2198, 4094}, {2101, 2015, 0, 1859, 4095, 2048, 2048},
	{2107, 204, 2729, 940, 804, 2100, 4095},   {1349, 1887, 0, 1209, 4095, 2048, 2048},
	{1833, 1855, 2555, 1510, 932, 1718, 4095}, {2048, 2048, 2048, 2048, 2048, 2048, 2048},
	{2048, 2048, 2048, 2048, 2048, 2048, 2048}, {4095, 2048, 2048, 2048, 2048, 2048, 2048}};

#define ENTRY_PRIOR_SEEN 30 /* the updates the priors count as */
/* v21: P(an entry at the unit) in 1/65536 by entry_density_context (below) and by entry_context (entry_prior, after
 * it), counted over the version 20 records of the 1,032 Sekiro training files (Sekiro's folder without c1060/, as
 * record_prior.c's) as (entries + 0.4) / (units + 0.8); a context no unit had takes its part kind's rate, and the
 * float units, which Sekiro has none of, 1/2. */
static const uint16_t entry_prior_density[ENTRY_DENSITY_CONTEXTS] = {
	32768, 5421, 27181, 27423, 5421, 5421, 75, 5421, 5421, 450, 5421, 5421,
	39834, 5421, 5421, 192, 5421, 5421, 192, 5421, 5421, 14564, 5421, 5421,
	3678, 30258, 5421, 5421, 5421, 5421, 28862, 5421, 5421, 53, 5421, 5421,
	187, 5421, 5421, 42163, 5421, 5421, 68, 5421, 5421, 1084, 5421, 5421,
	19860, 5421, 5421, 5427, 9362, 5421, 5421, 5421, 5421, 5421, 5421, 5421,
	139, 5421, 5421, 1527, 5421, 5421, 46701, 5421, 5421, 71, 5421, 5421,
	782, 5421, 5421, 20219, 5421, 5421, 5480, 40570, 5421, 5421, 5421, 5421,
	5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 46421, 5421, 5421,
	196, 5421, 5421, 1665, 5421, 5421, 26448, 5421, 5421, 10827, 1016, 5421,
	5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421,
	5421, 5421, 5421, 6899, 5421, 5421, 58637, 5421, 5421, 41391, 5421, 5421,
	16295, 1900, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421,
	5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421,
	24145, 5421, 5421, 23018, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421,
	5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421,
	5421, 5421, 5421, 5421, 5421, 5421, 26485, 5421, 5421, 5421, 5421, 5421,
	5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421,
	5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 35044, 5421, 5421,
	5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421,
	5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421,
	53351, 5421, 5421, 12588, 16606, 12997, 56, 79, 12997, 33, 12997, 12997,
	1586, 41391, 12997, 93, 52, 12997, 33, 12997, 12997, 457, 40215, 12997,
	4959, 5785, 12997, 5146, 5647, 12997, 12997, 12997, 12997, 223, 245, 12997,
	117, 12997, 12997, 13238, 32768, 12997, 370, 204, 12997, 132, 12997, 12997,
	3855, 49717, 12997, 26770, 37099, 12997, 9893, 11861, 12997, 12997, 12997, 12997,
	12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 1900, 776, 12997,
	560, 12997, 12997, 39501, 41391, 12997, 29424, 45981, 12997, 14953, 19042, 12997,
	12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997,
	12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 48128, 56174, 12997,
	20847, 26292, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997,
	12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997,
	12997, 12997, 12997, 26026, 28548, 12997, 12997, 12997, 12997, 12997, 12997, 12997,
	12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997,
	12997, 12997, 12997, 12997, 12997, 12997, 32594, 35642, 12997, 12997, 12997, 12997,
	12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997,
	12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 37981, 42191, 12997,
	12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997,
	12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997,
	45711, 53724, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997,
	12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997,
	12997, 12997, 12997, 55662, 57426, 12997, 33, 117, 210, 26, 210, 210,
	26, 210, 210, 27, 387, 210, 26, 210, 210, 26, 210, 210,
	27, 487, 210, 32, 133, 210, 96, 362, 210, 210, 210, 210,
	210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210,
	210, 210, 210, 210, 210, 210, 210, 210, 210, 2380, 19448, 210,
	210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210,
	210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210,
	5975, 37659, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210,
	210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210,
	210, 210, 210, 200, 4520, 210, 210, 210, 210, 210, 210, 210,
	210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210,
	210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210,
	210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210,
	210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210,
	210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210,
	210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210,
	210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210,
	210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210,
	210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210,
	210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210,
	210, 210, 210, 210, 210, 210, 210, 210, 210, 32768, 32768, 32768,
	32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768,
	32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768,
	32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768,
	32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768,
	32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768,
	32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768,
	32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768,
	32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768,
	32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768,
	32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768,
	32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768,
	32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768,
	32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768,
	32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768,
	32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768,
	32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768,
	32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768,
	32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768,
	32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768,
	32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768,
};
static const uint16_t entry_prior[ENTRY_CONTEXTS] = {
	4050, 30258, 5421, 9097, 5421, 5421, 75, 5421, 5421, 7495, 1057, 5421,
	7462, 5421, 5421, 109, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421,
	27423, 5421, 5421, 8898, 9656, 5421, 6800, 5421, 5421, 104, 5421, 5421,
	25845, 23666, 5421, 33384, 5461, 5421, 139, 5421, 5421, 5421, 5421, 5421,
	5421, 5421, 5421, 28862, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421,
	5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421, 5421,
	5421, 5421, 5421, 5421, 5421, 5421, 32768, 5421, 27181, 5720, 7847, 12997,
	12678, 14663, 12997, 33, 12997, 12997, 15799, 14452, 12997, 23292, 30530, 12997,
	117, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 56, 79, 12997,
	21590, 22327, 12997, 31270, 38483, 12997, 12997, 12997, 12997, 34108, 26507, 12997,
	51555, 52362, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997,
	223, 245, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997,
	12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997, 12997,
	12997, 12997, 12997, 12588, 16606, 12997, 91, 355, 210, 234, 24544, 210,
	26, 210, 210, 10327, 14075, 210, 978, 9362, 210, 210, 210, 210,
	210, 210, 210, 210, 210, 210, 26, 210, 210, 701, 21933, 210,
	1150, 210, 210, 210, 210, 210, 64212, 63877, 210, 910, 210, 210,
	210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210,
	210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210,
	210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210,
	33, 117, 210, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768,
	32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768,
	32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768,
	32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768,
	32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768,
	32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768,
	32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768, 32768,
};

static unsigned table_bits(size_t body_size)
{
	unsigned bits = TABLE_BITS_MIN;
	while (bits < TABLE_BITS_MAX && ((size_t)1 << bits) < body_size * 16u)
		bits++;
	return bits;
}

static size_t model_bytes(unsigned bits)
{
	return sizeof(model) + 64u + (size_t)MODELS * ((size_t)1 << bits) * sizeof(slot); /* 64: a group per line */
}

/* The version 11 models' start (model_create clears them only for version 11 records) */
static void knot_and_gap_models_start(model *m)
{
	memset(&m->knots, 0, sizeof(m->knots));
	memset(&m->gaps, 0, sizeof(m->gaps));
	for (unsigned a = 0; a < 2; a++)
		for (unsigned b = 0; b < 2; b++)
			for (unsigned c = 0; c < 3; c++)
				for (unsigned i = 0; i < 3; i++)
					m->gaps.weight[a][b][c][i] = 16384; /* 0.25 in 16.16 */
	memset(m->knots.previous, 9, sizeof(m->knots.previous));
	memset(m->knots.current, 9, sizeof(m->knots.current));
	for (unsigned r = 0; r < 18; r++)
		for (unsigned k = 0; k < KNOT_STEPS; k++)
			for (unsigned i = 0; i < 6; i++)
				m->knots.weight[r][k][i] = 9830; /* 0.15 in 16.16 */
	for (unsigned r = 0; r < 10; r++)
		for (unsigned k = 0; k < KNOT_STEPS; k++)
			for (unsigned i = 0; i < 6; i++)
				m->knots.weight_by_last[r][k][i] = 9830;
	if (!m->v13)
		return;
	m->knots.v13 = 1;
	for (unsigned k = 0; k < KNOT_STEPS; k++)
		for (unsigned i = 0; i < 7; i++) {
			for (unsigned r = 0; r < 18; r++)
				m->knots.weight[r][k][i] = knot_start_weight[k][i];
			for (unsigned r = 0; r < 10; r++)
				m->knots.weight_by_last[r][k][i] = knot_start_weight_by_last[k][i];
		}
}

static void prior_apply(model *m, const hks_rec_prior *prior);

static model *model_create(hks_ctx *ctx, size_t body_size, unsigned version, const hks_rec_prior *prior)
{
	unsigned bits = table_bits(body_size);
	model *m = (model *)hks_malloc(ctx, model_bytes(bits));
	if (!m)
		return NULL;
	m->table_bits = bits;
	m->v13 = version >= 13;
	m->count_limit = m->v13 ? COUNT_LIMIT_V13 : COUNT_LIMIT;
	slot *slots = (slot *)(void *)((uint8_t *)(m + 1) + (64u - (uintptr_t)(m + 1) % 64u) % 64u);
	for (unsigned t = 0; t < MODELS; t++) {
		m->table[t] = slots + ((size_t)t << bits);
		memset(m->table[t], 0, sizeof(slot) << bits);
	}
	for (unsigned k = 0; k < 2; k++)
		for (unsigned c = 0; c < 256; c++)
			for (unsigned i = 0; i < MIXER_INPUTS; i++)
				m->weight[k][c][i] = 13107; /* 0.2 in 16.16 */
	memset(m->mixer_seen, 0, sizeof(m->mixer_seen));
	for (unsigned n = 0; n < 256; n++)
		m->mixer_rate[n] = (uint8_t)(55u + 5120u / (n + 64u));
	memset(m->final_weight, 0, sizeof(m->final_weight));
	m->final_dot = 0;
	m->final_set = 0;
	memset(m->final_input, 0, sizeof(m->final_input));
	if (m->v13) {
		for (unsigned c = 0; c < 256; c++) {
			unsigned bits_seen = 0; /* of partial byte c (a leading 1, then the bits) */
			while (c >> (bits_seen + 1))
				bits_seen++;
			for (unsigned i = 0; i < MIXER_INPUTS; i++) {
				if (c)
					m->weight[0][c][i] = byte_start_weight[bits_seen][i];
				m->weight[1][c][i] = byte_start_weight_by_previous[i];
			}
		}
		for (unsigned f = 0; f < F_COUNT * 2; f++)
			m->final_weight[f][0] = m->final_weight[f][1] = 32768; /* the mean, 0.5 each */
	}
	int next = 0;
	for (int d = -2047; d <= 2047; d++) {
		int p = squash(d);
		m->squashed[d + 2047] = (int16_t)p;
		for (int i = next; i <= p; i++)
			m->stretch[i] = (int16_t)d;
		next = p + 1;
	}
	for (int i = next; i < 4096; i++)
		m->stretch[i] = 2047;
	for (unsigned n = 0; n <= COUNT_LIMIT_V13; n++)
		m->rate[n] = (uint16_t)(131072u / (2u * n + 3u)); /* 65536 / (n + 1.5) */
	memset(m->history, 0, sizeof(m->history));
	m->field = 0;
	m->unit_part = 0;
	m->bound_byte = 0;
	m->partial = m->nibble = 1;
	m->previous = m->before_previous = 0;
	if (version >= 11) /* only version 11 uses them: a record of an earlier version does not clear them */
		knot_and_gap_models_start(m);
	if (version >= HKS_REC_VERSION_ENTRY_FLAGS) {
		memset(&m->entries, 0, sizeof(m->entries));
		for (unsigned c = 0; c < ENTRY_CONTEXTS; c++) {
			m->entries.unit[c].prob = (uint16_t)(entry_prior[c] ^ 0x8000u);
			m->entries.unit[c].seen = ENTRY_PRIOR_SEEN;
		}
		for (unsigned c = 0; c < ENTRY_DENSITY_CONTEXTS; c++) {
			m->entries.density[c].prob = (uint16_t)(entry_prior_density[c] ^ 0x8000u);
			m->entries.density[c].seen = ENTRY_PRIOR_SEEN;
		}
	}
	if (prior)
		prior_apply(m, prior);
	return m;
}

/* ---- v14: a trained start state (docs/RECORD.md "Version 14") ----
 * The state's statistics are numbered: first every slot of the knot model's tables and of the gap model (the
 * slot space), then every weight of the knot, gap, byte and final mixers and the byte mixers' update counts (the
 * value space), each in the order of the tables below. A start state (hks_rec_prior) lists the numbers whose
 * values differ from a fresh version 13 model's, with their values. */
typedef struct state_table {
	void *base;
	uint32_t count, group; /* group: HKS_REC_PRIOR_* */
} state_table;

#define SLOT_TABLES 11
#define VALUE_TABLES 5
#define STATE_SEEN_COUNT (2u * 256u) /* the byte mixers' update counts, after the weights */

static void state_slot_tables(model *m, state_table t[SLOT_TABLES])
{
	knot_model *k = &m->knots;
	gap_model *g = &m->gaps;
	const state_table tables[SLOT_TABLES] = {
		{k->recent, KNOT_RECENT * KNOT_STEPS, HKS_REC_PRIOR_KNOT_SLOTS},
		{k->three, 1000 * KNOT_STEPS, HKS_REC_PRIOR_KNOT_SLOTS},
		{k->two, 100 * KNOT_STEPS, HKS_REC_PRIOR_KNOT_SLOTS},
		{k->one, 10 * KNOT_STEPS, HKS_REC_PRIOR_KNOT_SLOTS},
		{k->run, 180 * KNOT_STEPS, HKS_REC_PRIOR_KNOT_SLOTS},
		{k->above, 1000 * KNOT_STEPS, HKS_REC_PRIOR_KNOT_SLOTS},
		{&k->dense, 1, HKS_REC_PRIOR_KNOT_SLOTS},
		{g->near, 2 * 2 * 3 * 8, HKS_REC_PRIOR_GAP_SLOTS},
		{g->far, 2 * 2 * 3 * 16, HKS_REC_PRIOR_GAP_SLOTS},
		{g->both, 2 * 2 * 8 * 16, HKS_REC_PRIOR_GAP_SLOTS},
		{g->flags, 2 * 2, HKS_REC_PRIOR_GAP_SLOTS},
	};
	memcpy(t, tables, sizeof(tables));
}

/* The int32 weights (the byte mixers' update counts, uint8, come after them) */
static void state_value_tables(model *m, state_table t[VALUE_TABLES])
{
	const state_table tables[VALUE_TABLES] = {
		{m->knots.weight, 18 * KNOT_STEPS * MIXER_INPUTS, HKS_REC_PRIOR_KNOT_WEIGHTS},
		{m->knots.weight_by_last, 10 * KNOT_STEPS * MIXER_INPUTS, HKS_REC_PRIOR_KNOT_WEIGHTS},
		{m->gaps.weight, 2 * 2 * 3 * MIXER_INPUTS, HKS_REC_PRIOR_GAP_WEIGHTS},
		{m->weight, 2 * 256 * MIXER_INPUTS, HKS_REC_PRIOR_BYTE_MIXERS},
		{m->final_weight, F_COUNT * 2 * FINAL_INPUTS, HKS_REC_PRIOR_FINAL_MIXER},
	};
	memcpy(t, tables, sizeof(tables));
}

static void prior_apply(model *m, const hks_rec_prior *prior)
{
	state_table t[SLOT_TABLES];
	unsigned n = SLOT_TABLES, i = 0;
	state_slot_tables(m, t);
	uint32_t first = 0; /* the number of table i's first slot */
	for (uint32_t e = 0; e < prior->slots; e++) {
		const hks_rec_prior_slot *p = &prior->slot[e];
		while (i < n && p->index - first >= t[i].count)
			first += t[i++].count;
		if (i == n)
			break;
		slot *s = (slot *)t[i].base + (p->index - first);
		s->prob = p->prob;
		s->seen = p->seen;
	}
	state_table v[VALUE_TABLES];
	state_value_tables(m, v);
	n = VALUE_TABLES;
	i = 0;
	first = 0;
	for (uint32_t e = 0; e < prior->values; e++) {
		const hks_rec_prior_value *p = &prior->value[e];
		while (i < n && p->index - first >= v[i].count)
			first += v[i++].count;
		if (i < n) {
			((int32_t *)v[i].base)[p->index - first] = p->value;
		} else if (p->index - first < STATE_SEEN_COUNT) {
			(&m->mixer_seen[0][0])[p->index - first] = (uint8_t)p->value;
		}
	}
}

static uint32_t mix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x7FEB352Du;
	h ^= h >> 15;
	h *= 0x846CA68Bu;
	h ^= h >> 16;
	return h;
}

/* The contexts of the byte about to be coded, in field m->field. */
static void model_contexts(model *m)
{
	uint32_t hist = m->history[m->field];
	uint32_t c1 = hist & 255, c2 = hist >> 8 & 255, c3 = hist >> 16 & 255, c4 = hist >> 24;
	uint32_t f = (uint32_t)m->field * 0x3C6EF372u + 0x51ED27u;
	uint32_t *h = m->context;
	/* seven contexts, the survivors of trying ten on the development corpus' bodies: the order-2 and
	 * order-3 contexts and the byte four back each made the records larger (more inputs for the mixers to
	 * learn in a body of a few KB) */
	h[0] = f;                                    /* order 0 */
	h[1] = (c1 + 1u) * 0x85EBCA77u ^ f;          /* the field's previous byte */
	h[2] = (c4 * 0x27D4EB2Du + c3 * 0x165667B1u + c2 * 0x9E3779B1u + c1 * 0xC2B2AE35u) ^ f; /* order 4 */
	h[3] = (c2 + 1u) * 0x165667B1u ^ f;          /* two back: 16-bit little-endian values */
	h[4] = 0x2545F491u;                          /* no field: what all fields share */
	h[5] = (m->previous + 1u) * 0x7FEB352Du ^ f; /* the body's previous byte: the other field of a pair */
	h[6] = (m->before_previous << 16 | m->previous << 8 | c1) * 0x846CA68Bu ^ f;
	if (m->unit_part) {
		/* v21: a kind byte's contexts know its unit's part kind, in place of the body's previous byte (in the
		 * kinds column, the field's own) and of the order-4 context */
		h[2] = (m->unit_part * 0x61C88647u ^ f) * 0x9E3779B1u + 0x5BD1E995u;
		h[5] = m->unit_part * 0x2F0F1E2Du ^ f;
	}
	if (m->bound_byte) {
		/* v21: a bound byte's contexts know its place among its lane's eight (the zigzagged offsets of the minimum
		 * and of the maximum, each little-endian: their high bytes are mostly 0, their low bytes not), in place
		 * of the body's previous byte (the field's own there), the order-4 context and the byte two back (the
		 * place with the byte before instead) */
		h[2] = (m->bound_byte * 0x61C88647u ^ f) * 0x9E3779B1u + 0x5BD1E995u;
		h[3] = ((m->bound_byte << 8 | c1) * 0x165667B1u ^ f) + 0x1234567u;
		h[5] = m->bound_byte * 0x2F0F1E2Du ^ f;
	}
}

/* The slot groups of the half byte that starts (the high one: just the contexts; the low one: with the
 * high half byte). */
static void model_groups(model *m)
{
	uint32_t high = m->partial; /* 1 at the byte's start, 1hhhh at its middle */
	for (unsigned t = 0; t < MODELS; t++)
		m->group[t] = (mix32(m->context[t] + t * 0x61C88647u + high * 0x9E3779B1u) >> (32 - m->table_bits)) & ~15u;
}

/* P(next bit = 1) in 1/4096, 1..4095. */
static int model_predict(model *m)
{
	uint32_t c1 = m->history[m->field] & 255;
	for (unsigned t = 0; t < MODELS; t++) {
		m->current[t] = &m->table[t][m->group[t] + m->nibble];
		m->input[t] = m->stretch[(m->current[t]->prob ^ 0x8000u) >> 4];
	}
	m->input[MODELS] = 77; /* a bias input: 0.3 in stretch units */
	m->dot[0] = mixer_dot(m->weight[0][m->partial], m->input);
	m->dot[1] = mixer_dot(m->weight[1][c1], m->input);
	if (!m->v13)
		return m->squashed[(m->dot[0] + m->dot[1]) / 2 + 2047];
	/* v13: the final mixer of the field and half byte instead of the mean */
	m->final_set = m->field * 2u + (m->partial >= 16);
	m->final_input[0] = m->dot[0];
	m->final_input[1] = m->dot[1];
	m->final_input[2] = 77; /* bias */
	m->final_dot = final_dot(m->final_weight[m->final_set], m->final_input);
	return m->squashed[m->final_dot + 2047];
}

static int32_t clamp_weight(int32_t v)
{
	v = v < WEIGHT_LIMIT ? v : WEIGHT_LIMIT;
	return v > -WEIGHT_LIMIT ? v : -WEIGHT_LIMIT;
}

/* One mixer's step against its error at a learning rate of rate / 4096 (|input · err · rate| < 2^31 for rate
 * up to 256). */
static void mixer_train_at(int32_t *restrict w, const int32_t *restrict input, int32_t err, int32_t rate)
{
	int32_t e = err * rate;
	for (unsigned i = 0; i < MIXER_INPUTS; i++)
		w[i] = clamp_weight(w[i] + shift_down(input[i] * e, 16));
}

/* One mixer's step against its error: a learning rate of about 0.013 (|input · err · 55| < 2^29). */
static void mixer_train(int32_t *restrict w, const int32_t *restrict input, int32_t err)
{
	int32_t e = err * 55;
	for (unsigned i = 0; i < MIXER_INPUTS; i++)
		w[i] = clamp_weight(w[i] + shift_down(input[i] * e, 16));
}

/* A slot's step toward the bit: at the rate 1/(n + 1.5) for its first count_limit updates */
static void slot_learn(const model *m, slot *s, int bit)
{
	uint32_t r = m->rate[s->seen], p = s->prob ^ 0x8000u;
	if (bit)
		p += ((65535u - p) * r) >> 16;
	else
		p -= (p * r) >> 16;
	s->prob = (uint16_t)(p ^ 0x8000u);
	if (s->seen < m->count_limit)
		s->seen++;
}

static void model_update(model *m, int bit)
{
	uint32_t c1 = m->history[m->field] & 255;
	if (m->v13) {
		/* a weight set learns at 55 + 5120 / (n + 64) / 4096, n its updates so far (up to 255): about 0.033
		 * at first, 0.013 later */
		uint8_t *seen[2] = {&m->mixer_seen[0][m->partial], &m->mixer_seen[1][c1]};
		int32_t *weights[2] = {m->weight[0][m->partial], m->weight[1][c1]};
		for (unsigned k = 0; k < 2; k++) {
			mixer_train_at(weights[k], m->input, (bit << 12) - m->squashed[m->dot[k] + 2047], m->mixer_rate[*seen[k]]);
			if (*seen[k] < 255)
				(*seen[k])++;
		}
		int32_t *fw = m->final_weight[m->final_set], e = ((bit << 12) - m->squashed[m->final_dot + 2047]) * 40;
		for (unsigned i = 0; i < FINAL_INPUTS; i++)
			fw[i] = clamp_weight(fw[i] + shift_down(m->final_input[i] * e, 16));
	} else {
		mixer_train(m->weight[0][m->partial], m->input, (bit << 12) - m->squashed[m->dot[0] + 2047]);
		mixer_train(m->weight[1][c1], m->input, (bit << 12) - m->squashed[m->dot[1] + 2047]);
	}
	for (unsigned t = 0; t < MODELS; t++)
		slot_learn(m, m->current[t], bit);
	m->partial = m->partial << 1 | (unsigned)bit;
	m->nibble = m->nibble << 1 | (unsigned)bit;
	if (m->nibble >= 16) {
		m->nibble = 1;
		if (m->partial < 256)
			model_groups(m);
	}
}

static void model_byte_done(model *m, unsigned byte)
{
	m->history[m->field] = m->history[m->field] << 8 | byte;
	m->before_previous = m->previous;
	m->previous = byte;
	m->partial = m->nibble = 1;
}

/* ---- the walk's state and the binary arithmetic coder (32-bit, carry-less) ---- */

typedef struct walker {
	model *m;
	uint8_t *body; /* encoding: the body coded (only read); decoding: filled; measuring: only read */
	size_t size, pos;
	int decoding, ended;
	int unterminated; /* a varint ran to 10 bytes without ending (only the measuring walk asks) */
	unsigned version;  /* the record's: from 11 on, the hidden points' corrections come first, apart, and
	                      the knot edits are coded frame by frame */
	uint64_t budget; /* v11: binary decisions left for knot symbols and gap flags (bounds the decoder's work) */
	uint64_t entry_budget; /* v21: the same for the entry flags, apart (so that they leave the others' as it was) */
	double *cost;    /* hks_rec_model_costs: the bits coded per cost class (COST_*), or NULL */
	unsigned cost_class;
	/* coder */
	uint32_t low, high, x;
	hks_bytebuf *out; /* encoding */
	const uint8_t *in; /* decoding */
	size_t in_size, in_pos;
	hks_result res;
} walker;

static uint8_t next_input(walker *w)
{
	/* past the end the decoder reads 0xFF: the encoder's single flush byte then stands for a value between
	 * its bounds (hks_rec_model_encode); in_pos counts every read, so the caller can tell a short stream */
	uint8_t b = w->in_pos < w->in_size ? w->in[w->in_pos] : 0xFF;
	w->in_pos++;
	return b;
}

/* One bit at probability p / 4096 (of a 1); the model learns from it when `learn`. */
static int code_bit_at(walker *w, int bit, uint32_t p, int learn)
{
	if (w->cost) /* measuring: what this decision costs (−log2 of its probability) */
		w->cost[w->cost_class] -= log2((double)(bit ? p : 4096u - p) / 4096.0);
	uint32_t mid = w->low + (uint32_t)(((uint64_t)(w->high - w->low) * p) >> 12);
	if (w->decoding)
		bit = w->x <= mid;
	if (bit)
		w->high = mid;
	else
		w->low = mid + 1;
	if (learn)
		model_update(w->m, bit);
	while (((w->low ^ w->high) & 0xFF000000u) == 0) {
		if (w->decoding) {
			w->x = w->x << 8 | next_input(w);
		} else if (w->res == HKS_OK) {
			uint8_t b = (uint8_t)(w->high >> 24);
			w->res = hks_bytebuf_append(w->out, &b, 1);
		}
		w->low <<= 8;
		w->high = w->high << 8 | 255u;
	}
	return bit;
}

static int code_bit(walker *w, int bit)
{
	return code_bit_at(w, bit, (uint32_t)model_predict(w->m), 1);
}

/* The check after the body: 16 bits of its FNV-1a 64, each at probability 1/2 (two bytes). With the stream's
 * length it tells a damaged or cut stream from the body's own (a stream cut short can decode, through the
 * 0xFF bytes past its end, to another body that ends at the same place). */
static unsigned code_check(walker *w, unsigned check)
{
	unsigned v = 0;
	w->cost_class = COST_CHECK;
	for (int b = 15; b >= 0; b--)
		v = v << 1 | (unsigned)code_bit_at(w, (int)(check >> b & 1u), 2048u, 0);
	return v;
}

static unsigned body_check(const uint8_t *body, size_t size)
{
	return (unsigned)(hks_record_hash(HKS_RECORD_HASH_SEED, body, size) & 0xFFFFu);
}

/* ---- the body's grammar (record.c write_body / read_body) ---- */

/* One byte of field `field`: coded (encoding), decoded into the body, or only read (measuring: a walker
 * without a model, hks_rec_refit_inv_length). 0 past the body's end. */
static unsigned field_byte(walker *w, unsigned field)
{
	if (w->pos >= w->size) {
		w->ended = 1;
		return 0;
	}
	if (!w->m)
		return w->body[w->pos++];
	w->m->field = field;
	w->cost_class = field;
	model_contexts(w->m);
	model_groups(w->m);
	unsigned byte = w->decoding ? 0 : w->body[w->pos];
	unsigned v = 0;
	for (int b = 7; b >= 0; b--)
		v = v << 1 | (unsigned)code_bit(w, (int)(byte >> b & 1u));
	model_byte_done(w->m, v);
	if (w->decoding)
		w->body[w->pos] = (uint8_t)v;
	w->pos++;
	return v;
}

static uint64_t field_varint(walker *w, unsigned field)
{
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 70 && !w->ended; shift += 7) {
		unsigned b = field_byte(w, field);
		v |= shift < 64 ? (uint64_t)(b & 127u) << shift : 0;
		if (!(b & 128u))
			return v;
	}
	w->unterminated |= !w->ended;
	return v;
}

static void field_bytes(walker *w, unsigned field, uint64_t n)
{
	for (uint64_t i = 0; i < n && !w->ended; i++)
		field_byte(w, field);
}

/* A varint of bytes already in the body (a column walked before). */
static uint64_t body_varint(const walker *w, size_t *pos)
{
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 70 && *pos < w->pos; shift += 7) {
		uint8_t b = w->body[(*pos)++];
		v |= shift < 64 ? (uint64_t)(b & 127u) << shift : 0;
		if (!(b & 128u))
			break;
	}
	return v;
}

/* ---- v11: knot edits frame by frame ---- */

static void knot_entry_start(knot_model *k, unsigned part)
{
	memcpy(k->previous[k->part], k->current, sizeof(k->current));
	memset(k->current, 9, sizeof(k->current));
	k->part = part;
	for (int i = 0; i < 4; i++)
		k->recent_symbols[i] = 9; /* before the first frame */
	k->run_length = 17;
	k->run_symbol = 0;
	k->frame = 0;
}

/* The symbols in the tree's order: the most frequent first (0: the try's multiplicity; 6, 5: +3, -3; ...) */
static const uint8_t knot_order[KNOT_STEPS] = {0, 6, 5, 2, 4, 1, 3};

/* One frame's symbol (0..511): coded (encoding) or decoded (returned). */
static unsigned knot_symbol(walker *w, unsigned symbol)
{
	model *m = w->m;
	knot_model *k = &m->knots;
	const unsigned *h = k->recent_symbols;
	unsigned run = k->run_length * 10u + k->run_symbol, f = k->frame < 255 ? k->frame : 255;
	unsigned recent = h[0] | h[1] | h[2] | h[3] ? h[0] + 10u * (h[1] + 10u * (h[2] + 10u * h[3])) : 10000u + run;
	const uint8_t *pv = k->previous[k->part];
	slot *inputs[6] = {k->recent[recent], k->three[h[0] + 10u * (h[1] + 10u * h[2])], k->two[h[0] + 10u * h[1]],
	                   k->one[h[0]], k->run[run], k->above[pv[f] + 10u * (pv[f + 1] + 10u * h[0])]};
	/* the first mixer's weight set: by the run's length, up to 3 (v13: up to 17) */
	int32_t(*weights)[MIXER_INPUTS] = k->weight[k->v13 ? k->run_length : k->run_length < 3 ? k->run_length : 3];
	unsigned v = 512;
	w->cost_class = COST_KNOTS;
	for (unsigned step = 0; step < KNOT_STEPS; step++) {
		if (!w->budget) { /* only a stream no encoder wrote gets here: the rest of the entry is 0 */
			v = 0;
			break;
		}
		w->budget--;
		int32_t in[MIXER_INPUTS] = {0};
		for (unsigned i = 2; k->v13 && i < 4; i++) { /* v13: a fresh `two` or `one` slot starts from the prior */
			slot *s = &inputs[i][step];
			if (!s->seen && !s->prob) {
				unsigned p = knot_prior[h[0]][step];
				p = p < 16 ? 16 : p > 4080 ? 4080 : p;
				s->prob = (uint16_t)((p << 4) ^ 0x8000u);
				s->seen = KNOT_PRIOR_SEEN;
			}
		}
		for (unsigned i = 0; i < 6; i++)
			in[i] = m->stretch[(inputs[i][step].prob ^ 0x8000u) >> 4];
		in[6] = 77; /* bias */
		int32_t *w2 = k->weight_by_last[h[0]][step];
		int32_t dot = mixer_dot(weights[step], in), dot2 = mixer_dot(w2, in);
		int p = m->squashed[(dot + dot2) / 2 + 2047]; /* the mean of the two mixers, as in model_predict */
		int bit = code_bit_at(w, symbol == knot_order[step], (uint32_t)p, 0);
		mixer_train(weights[step], in, (bit << 12) - m->squashed[dot + 2047]);
		mixer_train(w2, in, (bit << 12) - m->squashed[dot2 + 2047]);
		for (unsigned i = 0; i < 6; i++)
			slot_learn(m, &inputs[i][step], bit);
		if (bit) {
			v = knot_order[step];
			break;
		}
	}
	if (v == 512) { /* the rest: nine bits as they are */
		v = 0;
		for (int b = 8; b >= 0 && w->budget; b--, w->budget--)
			v = v << 1 | (unsigned)code_bit_at(w, (int)(symbol >> b & 1u), 2048u, 0);
	}
	unsigned c = v < 8 ? v : 8;
	k->current[f] = (uint8_t)c;
	k->frame++;
	k->recent_symbols[3] = k->recent_symbols[2];
	k->recent_symbols[2] = k->recent_symbols[1];
	k->recent_symbols[1] = k->recent_symbols[0];
	k->recent_symbols[0] = c;
	if (c) {
		k->run_length = 0;
		k->run_symbol = c;
	}
	if (k->run_length < 17)
		k->run_length++;
	return v;
}

/* The decisions knot_symbol takes for a symbol */
static unsigned knot_decisions(unsigned symbol)
{
	for (unsigned step = 0; step < KNOT_STEPS; step++)
		if (symbol == knot_order[step])
			return step + 1;
	return KNOT_STEPS + 9;
}

/* The sparse edits (varint count, per edit varint gap and varint zigzag difference) of the per-frame
 * symbols 0..range, written to out (at most 1 + 256 * 5 bytes); their length. */
static size_t knot_edits_bytes(const unsigned *symbol, unsigned range, uint8_t *out)
{
	unsigned n = 0;
	for (unsigned f = 0; f <= range; f++)
		n += symbol[f] != 0;
	size_t len = hks_rec_varint_bytes(out, n);
	unsigned next = 0;
	for (unsigned f = 0; f <= range; f++) {
		if (!symbol[f])
			continue;
		len += hks_rec_varint_bytes(out + len, f - next);
		len += hks_rec_varint_bytes(out + len, symbol[f]);
		next = f + 1;
	}
	return len;
}

/* Encoding: the body's edits after the range as per-frame symbols, when they are exactly what
 * knot_edits_bytes writes for them (every edit within the range, each difference's zigzag below 512, minimal
 * varints); else 0, and the entry's edits are coded as bytes. */
static int knot_symbols_of_body(const walker *w, unsigned range, unsigned *symbol, size_t *len)
{
	const uint8_t *b = w->body + w->pos;
	size_t avail = w->size - w->pos, at = 0;
	uint64_t n = 0, next = 0;
	memset(symbol, 0, 256 * sizeof(*symbol));
	for (uint64_t i = 0, count = 1; i < count; i++) {
		uint64_t v[2] = {0, 0};
		for (unsigned j = 0; j < (i ? 2u : 1u); j++) {
			unsigned shift = 0;
			do {
				if (at >= avail || shift > 63)
					return 0;
				v[j] |= (uint64_t)(b[at] & 127u) << shift;
				shift += 7;
			} while (b[at++] & 128u);
		}
		if (!i) {
			n = v[0];
			if (n > range + 1u)
				return 0;
			count = n + 1;
			continue;
		}
		if (v[0] > range || next + v[0] > range || v[1] == 0 || v[1] > 511)
			return 0;
		symbol[next + v[0]] = (unsigned)v[1];
		next += v[0] + 1;
	}
	uint8_t again[1 + 256 * 5];
	size_t n2 = knot_edits_bytes(symbol, range, again);
	if (n2 != at || memcmp(again, b, at) != 0)
		return 0;
	*len = at;
	return 1;
}

/* A REFIT_INV entry's knot edits: version 11 and up "varint range, varint count, per edit gap and zigzag
 * difference", coded frame by frame over frames 0..range where the bytes allow it and the budget lasts (a
 * flag says which), else byte by byte like the fields before. */
static void walk_knot_edits(walker *w, unsigned part)
{
	uint64_t range = w->version >= 11 ? field_varint(w, F_KNOT_RANGE) : 0;
	if (w->version >= 11 && w->m && !w->ended && range <= 255) {
		unsigned symbol[256];
		size_t len = 0;
		int dense = w->decoding ? 0 : knot_symbols_of_body(w, (unsigned)range, symbol, &len);
		if (dense) { /* within the budget (the decoder stops where it ends) */
			uint64_t need = 0;
			for (unsigned f = 0; f <= range; f++)
				need += knot_decisions(symbol[f]);
			dense = need <= w->budget;
		}
		slot *flag = &w->m->knots.dense;
		w->cost_class = COST_KNOTS;
		dense = code_bit_at(w, dense, slot_p12(flag), 0);
		slot_learn(w->m, flag, dense);
		if (dense) {
			knot_entry_start(&w->m->knots, part);
			for (unsigned f = 0; f <= range; f++)
				symbol[f] = knot_symbol(w, w->decoding ? 0 : symbol[f]);
			if (!w->decoding) {
				w->pos += len;
				return;
			}
			uint8_t bytes[1 + 256 * 5];
			len = knot_edits_bytes(symbol, (unsigned)range, bytes);
			for (size_t i = 0; i < len; i++) {
				if (w->pos >= w->size) {
					w->ended = 1;
					return;
				}
				w->body[w->pos++] = bytes[i];
			}
			return;
		}
	}
	uint64_t n = field_varint(w, F_EDIT_COUNT);
	for (uint64_t k = 0; k < n && !w->ended; k++) {
		field_varint(w, F_EDIT_GAP);
		field_varint(w, F_EDIT_DIFF);
	}
}

/* ---- v11: correction gaps slot by slot ---- */

/* A minimal varint at the body's position (encoding); its length, 0 if there is none. */
static size_t minimal_varint_at(const walker *w, size_t at, uint64_t *v)
{
	uint8_t tmp[10];
	*v = 0;
	unsigned shift = 0;
	size_t n = 0;
	do {
		if (at + n >= w->size || shift > 63)
			return 0;
		*v |= (uint64_t)(w->body[at + n] & 127u) << shift;
		shift += 7;
	} while (w->body[at + n++] & 128u);
	return hks_rec_varint_bytes(tmp, *v) == n ? n : 0;
}

/* Encoding: whether the list of n items at the body's position can have its gaps coded slot by slot (each a
 * minimal varint of at most GAP_FLAGS_MAX, each code a minimal varint) and how many flags that takes. */
static int gaps_as_flags(const walker *w, uint64_t n, size_t width, uint64_t *flags)
{
	size_t at = w->pos;
	*flags = 0;
	for (uint64_t k = 0; k < n; k++) {
		uint64_t gap, code;
		size_t a = minimal_varint_at(w, at, &gap);
		if (!a || gap > GAP_FLAGS_MAX)
			return 0;
		size_t b = minimal_varint_at(w, at + a, &code);
		if (!b)
			return 0;
		at += a + b + (code == 0 ? width : 0);
		*flags += gap < GAP_FLAGS_MAX ? gap + 1 : gap;
	}
	return 1;
}

/* One slot's flag: corrected or not */
static int gap_flag(walker *w, unsigned list, unsigned rot, unsigned component, int bit)
{
	model *m = w->m;
	gap_model *g = &m->gaps;
	unsigned h = g->history & 7u, d = g->distance < 15 ? g->distance : 15;
	slot *inputs[3] = {&g->near[list][rot][component][h], &g->far[list][rot][component][d], &g->both[list][rot][h][d]};
	int32_t *weight = g->weight[list][rot][component];
	int32_t in[MIXER_INPUTS] = {0};
	for (unsigned i = 0; i < 3; i++)
		in[i] = m->stretch[(inputs[i]->prob ^ 0x8000u) >> 4];
	in[3] = 77; /* bias */
	int32_t dot = mixer_dot(weight, in);
	int p = m->squashed[dot + 2047];
	w->cost_class = COST_FLAGS + 2u * list + rot;
	bit = code_bit_at(w, bit, (uint32_t)p, 0);
	mixer_train(weight, in, (bit << 12) - p);
	for (unsigned i = 0; i < 3; i++)
		slot_learn(m, inputs[i], bit);
	return bit;
}

static void gap_slots_passed(gap_model *g, unsigned n, int corrected)
{
	for (unsigned i = 0; i < n; i++) {
		g->history = g->history << 1 | (unsigned)corrected;
		g->distance = corrected ? 0 : g->distance + 1;
	}
}

/* After a gap coded flag by flag: the decoder writes its minimal varint into the body (as far as the body goes),
 * the encoder steps over the `len` bytes it has. */
static void flagged_gap_done(walker *w, uint64_t gap, size_t len)
{
	if (!w->decoding) {
		w->pos += len;
		return;
	}
	uint8_t tmp[10];
	size_t n = hks_rec_varint_bytes(tmp, gap);
	for (size_t i = 0; i < n && !w->ended; i++) {
		if (w->pos >= w->size)
			w->ended = 1;
		else
			w->body[w->pos++] = tmp[i];
	}
}

/* A correction list (v11: list 0 the hidden points', 1 the others'): count, then per item gap, code and
 * (code 0) a packed point. From version 11 the gaps are coded slot by slot when the body's bytes allow it and
 * the budget lasts (a flag per list says which); `per_point` slots a point give each slot its component. */
static void walk_corrections(walker *w, unsigned list, unsigned rot, size_t per_point, size_t width,
                             unsigned fcount, unsigned fgap, unsigned fcode, unsigned fpoint)
{
	uint64_t n = field_varint(w, fcount);
	int by_slot = 0;
	if (w->version >= 11 && w->m && n && !w->ended) {
		uint64_t need = 0;
		int ok = w->decoding ? 0 : gaps_as_flags(w, n, width, &need) && need <= w->budget;
		slot *flag = &w->m->gaps.flags[list][rot];
		w->cost_class = COST_FLAGS + 2u * list + rot;
		by_slot = code_bit_at(w, ok, slot_p12(flag), 0);
		slot_learn(w->m, flag, by_slot);
		w->m->gaps.history = 0;
		w->m->gaps.distance = 15;
	}
	uint64_t j = 0; /* the list's slot */
	for (uint64_t k = 0; k < n && !w->ended; k++) {
		if (by_slot) {
			uint64_t gap = 0;
			size_t len = 0;
			if (!w->decoding)
				len = minimal_varint_at(w, w->pos, &gap);
			uint64_t g = 0;
			for (; g < GAP_FLAGS_MAX && w->budget; g++) {
				w->budget--;
				if (gap_flag(w, list, rot, (unsigned)((j + g) % per_point), w->decoding ? 0 : g == gap))
					break;
				gap_slots_passed(&w->m->gaps, 1, 0);
			}
			flagged_gap_done(w, g, len);
			j += g;
		} else {
			j += field_varint(w, fgap);
		}
		uint64_t v = field_varint(w, fcode);
		if (width) {
			field_bytes(w, fpoint, v == 0 ? width : 0);
		}
		unsigned covered = v == 0 && width ? 3u : 1u;
		if (by_slot)
			gap_slots_passed(&w->m->gaps, covered, 1);
		j += covered;
	}
}

/* A REFIT_INV payload (docs/RECORD.md "Byte layout"). The coder names its fields with this walk, and
 * hks_rec_refit_inv_length measures its extent with it, so the two cannot disagree; recompress.c writes
 * and reads the payload's fields (entry_part, build_entries) in the same order. */
static void walk_refit_inv(walker *w, unsigned part)
{
	field_byte(w, F_TRY);
	walk_knot_edits(w, part);
	unsigned head = (part == 0) + 2u;
	int rot = w->version >= 11 && part == 1;
	field_bytes(w, rot ? F_R_INV_HEAD : F_INV_HEAD, head);
	if (w->ended)
		return;
	uint8_t mask = w->body[w->pos - 2], quant = w->body[w->pos - 1];
	uint8_t flags = part == 3 ? (uint8_t)(mask & 0xF9) : mask;
	for (unsigned lane = 0; part != 1 && lane < (part == 3 ? 1u : 3u); lane++) {
		if (flags & (0x01u << lane)) {
			field_bytes(w, F_STATIC, 4);
		} else if (flags & (0x10u << lane)) {
			int with_place = w->version >= HKS_REC_VERSION_ENTRY_FLAGS && w->m;
			for (unsigned k = 0; k < 8 && !w->ended; k++) {
				if (with_place) /* v21: each byte with its place */
					w->m->bound_byte = k + 1u;
				field_byte(w, F_BOUND);
			}
			if (w->m)
				w->m->bound_byte = 0;
		}
	}
	int slots = part == 1 ? hks_threecomp_bits(quant) != 0 : quant <= 1;
	size_t width = part == 1 && slots ? hks_rotation_size(quant) : 0;
	if (slots) {
		size_t per_point = 3; /* the slots a point gives (for the v11 gap contexts) */
		if (part != 1) {
			per_point = 0;
			for (unsigned lane = 0; lane < (part == 3 ? 1u : 3u); lane++)
				per_point += (flags & (0x01u << lane)) == 0 && (flags & (0x10u << lane)) != 0;
			per_point = per_point ? per_point : 1;
		}
		if (w->version >= 11) /* v11: the hidden points' list first (docs/RECORD.md "Point residuals") */
			walk_corrections(w, 0, (unsigned)rot, per_point, width, rot ? F_R_HIDDEN_COUNT : F_HIDDEN_COUNT,
			                 rot ? F_R_HIDDEN_GAP : F_HIDDEN_GAP, rot ? F_R_HIDDEN_CODE : F_HIDDEN_CODE,
			                 F_HIDDEN_POINT);
		walk_corrections(w, 1, (unsigned)rot, per_point, width, rot ? F_R_CORR_COUNT : F_CORR_COUNT,
		                 rot ? F_R_CORR_GAP : F_CORR_GAP, rot ? F_R_CORR_CODE : F_CORR_CODE, F_CORR_POINT);
		return;
	}
	/* parts without slots: XOR runs (count, gap, length, the run's bytes) */
	uint64_t n = field_varint(w, rot ? F_R_CORR_COUNT : F_CORR_COUNT);
	for (uint64_t k = 0; k < n && !w->ended; k++) {
		field_varint(w, rot ? F_R_CORR_GAP : F_CORR_GAP);
		field_bytes(w, F_CORR_XOR, field_varint(w, rot ? F_R_CORR_CODE : F_CORR_CODE));
	}
}

size_t hks_rec_refit_inv_length(unsigned part, const uint8_t *p, size_t avail, unsigned version)
{
	if (part > 3 || !avail)
		return 0;
	walker w;
	memset(&w, 0, sizeof(w)); /* no model: the walk only reads */
	w.body = (uint8_t *)(uintptr_t)p;
	w.size = avail;
	w.version = version;
	walk_refit_inv(&w, part);
	return w.ended || w.unterminated ? 0 : w.pos;
}

/* ---- v21: the entries' index gaps unit by unit ---- */

/* The part kind of unit `index` (0 translation, 1 rotation, 2 scale, 3 float: docs/RECORD.md "Byte layout", a block's
 * units being 3t + kind, then the floats) and its place among its block's `per` units. */
static unsigned unit_part(uint64_t index, uint64_t tracks, uint64_t per, uint64_t *place)
{
	uint64_t u = per ? index % per : 0;
	if (place)
		*place = u;
	return u < 3u * tracks ? (unsigned)(u % 3u) : 3u;
}

/* Encoding: whether the gaps column at the body's position can be coded unit by unit (each gap a minimal varint of
 * at most ENTRY_GAP_MAX) and how many flags that takes. */
static int entry_gaps_as_flags(const walker *w, uint64_t n, uint64_t *flags)
{
	size_t at = w->pos;
	*flags = 0;
	for (uint64_t k = 0; k < n; k++) {
		uint64_t gap;
		size_t a = minimal_varint_at(w, at, &gap);
		if (!a || gap > ENTRY_GAP_MAX)
			return 0;
		at += a;
		*flags += gap < ENTRY_GAP_MAX ? gap + 1 : gap;
	}
	return 1;
}

/* The flag of unit `unit` (entry_model), from its part kind and place in its block, whether the unit before has an
 * entry (2: the first unit) and, for transform parts, the same part of the tracks before (`history`): entry_context
 * whether each of the three before has one (2: no such track in the block), entry_density_context how many of the
 * eight before do and how many there are. */
static int entry_flag(walker *w, uint64_t unit, uint64_t tracks, uint64_t per, int bit)
{
	model *m = w->m;
	uint64_t history = m->entries.history, place;
	unsigned kind = unit_part(unit, tracks, per, &place), before = unit ? (unsigned)(history & 1u) : 2u;
	unsigned back[3], dens = 0, avail = 0;
	for (unsigned t = 0; t < 3; t++)
		back[t] = kind < 3 && place >= 3u * (t + 1u) ? (unsigned)(history >> (3u * t + 2u) & 1u) : 2u;
	for (unsigned t = 1; t <= 8; t++)
		if (kind < 3 && place >= 3u * t) {
			avail++;
			dens += (unsigned)(history >> (3u * t - 1u) & 1u);
		}
	unsigned entry_context = (((kind * 3u + back[0]) * 3u + back[1]) * 3u + back[2]) * 3u + before;
	unsigned entry_density_context = ((kind * 9u + dens) * 9u + avail) * 3u + before;
	slot *s = &m->entries.unit[entry_context], *s2 = &m->entries.density[entry_density_context];
	/* the mean of the two in the stretched domain: a mixer that learned its weights, from 1/2 each, made Sekiro's
	 * records 80 bytes larger (the flags are too skewed for its rate) */
	int32_t d = shift_down(m->stretch[(s->prob ^ 0x8000u) >> 4] + m->stretch[(s2->prob ^ 0x8000u) >> 4], 1);
	w->cost_class = COST_ENTRY_FLAGS;
	bit = code_bit_at(w, bit, (uint32_t)m->squashed[d + 2047], 0);
	slot_learn(m, s, bit);
	slot_learn(m, s2, bit);
	return bit;
}

/* The gaps column unit by unit when the bytes allow it and the budget lasts (a flag per body says which): whether
 * it was (otherwise the caller walks it as varints). */
static int walk_entry_gaps(walker *w, uint64_t entries, uint64_t tracks, uint64_t per)
{
	entry_model *e = &w->m->entries;
	uint64_t need = 0;
	int ok = w->decoding ? 0 : entry_gaps_as_flags(w, entries, &need) && need <= w->entry_budget;
	w->cost_class = COST_ENTRY_FLAGS;
	int by_unit = code_bit_at(w, ok, slot_p12(&e->by_unit), 0);
	slot_learn(w->m, &e->by_unit, by_unit);
	if (!by_unit)
		return 0;
	e->history = 0;
	uint64_t unit = 0;
	for (uint64_t i = 0; i < entries && !w->ended; i++) {
		uint64_t gap = 0;
		size_t len = 0;
		if (!w->decoding)
			len = minimal_varint_at(w, w->pos, &gap);
		uint64_t g = 0;
		for (; g < ENTRY_GAP_MAX && w->entry_budget; g++, unit++) {
			w->entry_budget--;
			if (entry_flag(w, unit, tracks, per, w->decoding ? 0 : g == gap))
				break;
			e->history <<= 1;
		}
		e->history = e->history << 1 | 1u;
		unit++;
		flagged_gap_done(w, g, len);
	}
	return 1;
}

static void walk_body(walker *w)
{
	unsigned kind = field_byte(w, F_HEAD);
	unsigned head = kind; /* v12: the head flags (record.h HKS_REC_HEAD_*) */
	if (w->version >= 12)
		kind = head & HKS_REC_HEAD_VERBATIM;
	field_varint(w, F_HEAD); /* numFrames */
	uint64_t tracks = field_varint(w, F_HEAD), floats = field_varint(w, F_HEAD);
	if (w->version < 12 || (head & HKS_REC_HEAD_BLOCKS)) {
		field_varint(w, F_HEAD); /* maxFramesPerBlock */
		field_varint(w, F_HEAD); /* numBlocks */
	}
	if (w->version >= 12) {
		/* the duration only when its code says so; the guard and the CPU model are head flags */
		if (((head >> HKS_REC_HEAD_DURATION_SHIFT) & 3u) == HKS_REC_DURATION_STORED)
			field_bytes(w, F_HEAD, 4);
		field_bytes(w, F_HEAD, 4); /* the data hash's low 32 bits */
	} else {
		field_bytes(w, F_HEAD, 4 + 1 + 1 + 8);
	}
	if (w->version < 12 || kind != HKS_REC_ANIM_PREDICTED)
		field_varint(w, F_HEAD); /* data size (v12: the data stored whole only) */
	if (kind != HKS_REC_ANIM_PREDICTED) {
		field_bytes(w, F_VERBATIM, w->size - w->pos);
		return;
	}
	/* the columns bound the counts: a count beyond the body only walks to its end */
	tracks = tracks < w->size ? tracks : w->size;
	floats = floats < w->size ? floats : w->size;
	field_bytes(w, F_HEAD, tracks + floats);
	unsigned overrides = HKS_REC_IMPLIED_OVERRIDES; /* v12: unless the head flags say they are stored */
	if (w->version < 12 || (head & HKS_REC_HEAD_STEPS)) {
		field_byte(w, F_HEAD); /* ladder steps */
		overrides = field_byte(w, F_HEAD);
	}
	for (unsigned bit = 1; bit <= 2; bit <<= 1)
		if (overrides & bit) {
			uint64_t n = field_varint(w, F_HEAD);
			for (uint64_t i = 0; i < n && !w->ended; i++)
				field_varint(w, F_HEAD);
		}
	if (overrides & 4)
		field_bytes(w, F_HEAD, 12);
	uint64_t entries = field_varint(w, F_HEAD);
	size_t gaps = w->pos;
	uint64_t per = 3u * tracks + floats, next = 0;
	int v21 = w->version >= HKS_REC_VERSION_ENTRY_FLAGS && w->m;
	if (!(v21 && entries && !w->ended && walk_entry_gaps(w, entries, tracks, per)))
		for (uint64_t i = 0; i < entries && !w->ended; i++)
			field_varint(w, F_GAP);
	size_t kinds = w->pos, at = gaps;
	for (uint64_t i = 0, index = 0; i < entries && !w->ended; i++, index++) {
		if (v21) { /* each kind byte with its unit's part kind, from the gaps column */
			index += body_varint(w, &at);
			w->m->unit_part = 1u + unit_part(index, tracks, per, NULL);
		}
		field_byte(w, F_KIND);
	}
	if (w->m)
		w->m->unit_part = 0;
	entries = w->pos - kinds;
	size_t sizes = w->pos;
	for (uint64_t i = 0; i < entries && !w->ended; i++)
		if ((w->body[kinds + i] & 7u) != HKS_REC_ENTRY_REFIT_INV)
			field_varint(w, F_PAYLOAD_SIZE);
	for (uint64_t i = 0; i < entries && !w->ended; i++)
		if (w->body[kinds + i] & 0x80u)
			field_bytes(w, F_HASH, 4);
	for (uint64_t i = 0; i < entries && !w->ended; i++) {
		uint64_t index = next + body_varint(w, &gaps);
		next = index + 1;
		unsigned k = w->body[kinds + i] & 7u;
		if (k != HKS_REC_ENTRY_REFIT_INV) {
			field_bytes(w, F_PAYLOAD0 + (k < 5 ? k : 4u), body_varint(w, &sizes));
			continue;
		}
		walk_refit_inv(w, unit_part(index, tracks, per, NULL));
	}
	field_bytes(w, F_TAIL, w->size - w->pos);
}

/* v12: the model learns two heads before the body's own (docs/RECORD.md "Version 12"), so that the first bytes
 * of a body, which a fresh model codes at about 8 bits each, start from a prior: the head flags, frames, tracks
 * and float tracks of a predicted clip of 72 frames and 100 tracks at 30 frames a second, its ladder steps and
 * override flags; on the Intel model and on AMD Zen, without the guard, once each (twice or four times made the
 * records larger). Then the history is cleared as a body starts. */
static void model_learn_byte(model *m, unsigned field, unsigned byte)
{
	m->field = field;
	model_contexts(m);
	model_groups(m);
	for (int b = 7; b >= 0; b--) {
		model_predict(m);
		model_update(m, (int)(byte >> b & 1u));
	}
	model_byte_done(m, byte);
}

static void model_prime_head(model *m)
{
	static const uint8_t heads[2][6] = {
		{0x04, 72, 100, 0, 1, 8}, /* Intel, (n - 1) / 30; ladder 1 and override flag 8 (v12 implies them, but
		                             learning them helped: Elden Ring 959,210 B without, 959,063 B with) */
		{0x24, 72, 100, 0, 1, 8}, /* AMD Zen */
	};
	for (unsigned h = 0; h < 2; h++) {
		for (unsigned i = 0; i < sizeof(heads[h]); i++)
			model_learn_byte(m, F_HEAD, heads[h][i]);
		m->history[F_HEAD] = 0;
		m->previous = m->before_previous = 0;
	}
}

/* The start state of a record of `version`: none before version 14 */
static const hks_rec_prior *version_prior(unsigned version)
{
	return version >= HKS_REC_PRIOR_V19   ? &hks_rec_prior_v19
	       : version >= HKS_REC_PRIOR_V16     ? &hks_rec_prior_v16
	       : version >= HKS_REC_PRIOR_VERSION ? &hks_rec_prior_v14
	                                          : NULL;
}

static void state_copy(model *to, model *from, unsigned groups);

/* A walker over `size` body bytes with a fresh model, started from `prior` and then (training) from the
 * statistics of `carry` in `groups`. */
static hks_result walker_start(hks_ctx *ctx, walker *w, uint8_t *body, size_t size, unsigned version,
                               const hks_rec_prior *prior, model *carry, unsigned groups)
{
	memset(w, 0, sizeof(*w));
	w->version = version;
	w->m = model_create(ctx, size, version, prior);
	if (!w->m)
		return hks_fail_nomem(ctx, model_bytes(table_bits(size)));
	if (carry)
		state_copy(w->m, carry, groups);
	if (version >= 12)
		model_prime_head(w->m);
	w->body = body;
	w->size = size;
	w->high = 0xFFFFFFFFu;
	w->budget = 8u * (uint64_t)size + 4096u; /* the corpus' bodies take 3.1 a byte, 5.7 at most above 5 KB */
	w->entry_budget = 4u * (uint64_t)size + 4096u; /* Sekiro's bodies take 1.0 a byte, 2.7 at most */
	return HKS_OK;
}

/* `cost`: hks_rec_model_costs' measurement, or NULL */
static hks_result model_encode(hks_ctx *ctx, const uint8_t *body, size_t size, unsigned version,
                               const hks_rec_prior *prior, model *carry, unsigned groups, hks_bytebuf *out,
                               double *cost)
{
	walker w;
	/* the body is only read when encoding */
	HKS_TRY(walker_start(ctx, &w, (uint8_t *)body, size, version, prior, carry, groups));
	w.out = out;
	w.cost = cost;
	walk_body(&w);
	code_check(&w, body_check(body, size));
	/* one byte flushes: the decoder fills with 0xFF, and (low >> 24) followed by 0xFF bytes lies between low
	 * and high, whose top bytes differ */
	uint8_t last = (uint8_t)(w.low >> 24);
	if (w.res == HKS_OK)
		w.res = hks_bytebuf_append(out, &last, 1);
	if (cost)
		cost[COST_CHECK] += 8.0;
	if (carry)
		state_copy(carry, w.m, groups);
	hks_free(ctx, w.m, model_bytes(w.m->table_bits));
	return w.res;
}

hks_result hks_rec_model_costs(hks_ctx *ctx, const uint8_t *body, size_t size, unsigned version,
                               double bits[HKS_REC_COST_CLASSES])
{
	hks_bytebuf out; /* coded as the writer codes, then dropped */
	hks_bytebuf_init(&out, ctx);
	hks_result r = model_encode(ctx, body, size, version, version_prior(version), NULL, 0, &out, bits);
	hks_bytebuf_free(&out);
	return r;
}

const char *hks_rec_model_cost_name(unsigned cost_class)
{
	return cost_class < COST_CLASSES ? cost_names[cost_class] : NULL;
}

hks_result hks_rec_model_encode(hks_ctx *ctx, const uint8_t *body, size_t size, unsigned version, hks_bytebuf *out)
{
	return model_encode(ctx, body, size, version, version_prior(version), NULL, 0, out, NULL);
}

hks_result hks_rec_model_encode_prior(hks_ctx *ctx, const uint8_t *body, size_t size, unsigned version,
                                      const hks_rec_prior *prior, hks_bytebuf *out)
{
	return model_encode(ctx, body, size, version, prior, NULL, 0, out, NULL);
}

hks_result hks_rec_model_decode(hks_ctx *ctx, const uint8_t *in, size_t in_size, unsigned version, uint8_t *body,
                                size_t size, int *whole)
{
	walker w;
	HKS_TRY(walker_start(ctx, &w, body, size, version, version_prior(version), NULL, 0));
	w.decoding = 1;
	w.in = in;
	w.in_size = in_size;
	for (int i = 0; i < 4; i++)
		w.x = w.x << 8 | next_input(&w);
	walk_body(&w);
	unsigned check = code_check(&w, 0);
	/* the encoder wrote one byte per shift plus the flush byte; the decoder read four bytes ahead: a stream
	 * of exactly the coded length leaves it three bytes past the end */
	*whole = w.pos == size && w.in_pos == in_size + 3u && check == body_check(body, size);
	hks_free(ctx, w.m, model_bytes(w.m->table_bits));
	return HKS_OK;
}

/* ---- v14: training the start state (tools/make_record_prior.c) ---- */

/* The statistics of `groups` (HKS_REC_PRIOR_*) from one model to another */
static void state_copy(model *to, model *from, unsigned groups)
{
	state_table t[SLOT_TABLES], f[SLOT_TABLES], tv[VALUE_TABLES], fv[VALUE_TABLES];
	state_slot_tables(to, t);
	state_slot_tables(from, f);
	for (unsigned i = 0; i < SLOT_TABLES; i++)
		if (t[i].group & groups)
			memcpy(t[i].base, f[i].base, t[i].count * sizeof(slot));
	state_value_tables(to, tv);
	state_value_tables(from, fv);
	for (unsigned i = 0; i < VALUE_TABLES; i++)
		if (tv[i].group & groups)
			memcpy(tv[i].base, fv[i].base, tv[i].count * sizeof(int32_t));
	if (groups & HKS_REC_PRIOR_BYTE_MIXERS)
		memcpy(to->mixer_seen, from->mixer_seen, sizeof(to->mixer_seen));
}

hks_result hks_rec_prior_train(hks_ctx *ctx, const uint8_t *const *body, const size_t *size, size_t n,
                               const hks_rec_prior_options *opt, hks_rec_prior *out)
{
	memset(out, 0, sizeof(*out));
	model *carry = model_create(ctx, 1, HKS_REC_PRIOR_VERSION, NULL);
	model *fresh = model_create(ctx, 1, HKS_REC_PRIOR_VERSION, NULL);
	hks_result r = carry && fresh ? HKS_OK : hks_fail_nomem(ctx, model_bytes(TABLE_BITS_MIN));
	hks_bytebuf scratch;
	hks_bytebuf_init(&scratch, ctx);
	for (size_t i = 0; r == HKS_OK && i < n; i++) {
		scratch.size = 0;
		r = model_encode(ctx, body[i], size[i], HKS_REC_PRIOR_VERSION, NULL, carry, opt->groups, &scratch, NULL);
	}
	hks_bytebuf_free(&scratch);
	state_table t[SLOT_TABLES], f[SLOT_TABLES], tv[VALUE_TABLES], fv[VALUE_TABLES];
	uint32_t slots = 0, values = 0;
	for (unsigned pass = 0; r == HKS_OK && pass < 2; pass++) {
		if (pass) { /* the second pass fills what the first counted */
			out->slot = (hks_rec_prior_slot *)hks_calloc(ctx, slots ? slots : 1, sizeof(*out->slot));
			out->value = (hks_rec_prior_value *)hks_calloc(ctx, values ? values : 1, sizeof(*out->value));
			out->slots = slots; /* the counts hks_rec_prior_free frees with, also when one allocation failed */
			out->values = values;
			if (!out->slot || !out->value) {
				r = hks_fail_nomem(ctx, 0);
				break;
			}
		}
		hks_rec_prior_slot *ps = (hks_rec_prior_slot *)(uintptr_t)out->slot;
		hks_rec_prior_value *pv = (hks_rec_prior_value *)(uintptr_t)out->value;
		uint32_t ns = 0, nv = 0, index = 0;
		state_slot_tables(carry, t);
		state_slot_tables(fresh, f);
		for (unsigned i = 0; i < SLOT_TABLES; i++)
			for (uint32_t j = 0; j < t[i].count; j++, index++) {
				const slot *a = (const slot *)t[i].base + j, *b = (const slot *)f[i].base + j;
				if (!(t[i].group & opt->groups) || (a->prob == b->prob && a->seen == b->seen))
					continue;
				if (pass) {
					ps[ns].index = index;
					ps[ns].prob = a->prob;
					ps[ns].seen = (uint16_t)(a->seen < opt->seen_cap ? a->seen : opt->seen_cap);
				}
				ns++;
			}
		index = 0;
		state_value_tables(carry, tv);
		state_value_tables(fresh, fv);
		for (unsigned i = 0; i < VALUE_TABLES; i++)
			for (uint32_t j = 0; j < tv[i].count; j++, index++) {
				int32_t a = ((const int32_t *)tv[i].base)[j], b = ((const int32_t *)fv[i].base)[j];
				if (!(tv[i].group & opt->groups) || a == b)
					continue;
				if (pass) {
					pv[nv].index = index;
					pv[nv].value = a;
				}
				nv++;
			}
		for (uint32_t j = 0; j < STATE_SEEN_COUNT; j++, index++) {
			unsigned a = (&carry->mixer_seen[0][0])[j], b = (&fresh->mixer_seen[0][0])[j];
			a = a < opt->mixer_seen_cap ? a : opt->mixer_seen_cap;
			if (!(opt->groups & HKS_REC_PRIOR_BYTE_MIXERS) || a == b)
				continue;
			if (pass) {
				pv[nv].index = index;
				pv[nv].value = (int32_t)a;
			}
			nv++;
		}
		slots = ns;
		values = nv;
	}
	if (r != HKS_OK)
		hks_rec_prior_free(ctx, out);
	if (carry)
		hks_free(ctx, carry, model_bytes(carry->table_bits));
	if (fresh)
		hks_free(ctx, fresh, model_bytes(fresh->table_bits));
	return r;
}

void hks_rec_prior_free(hks_ctx *ctx, hks_rec_prior *p)
{
	if (p->slot)
		hks_free(ctx, (void *)(uintptr_t)p->slot, (p->slots ? p->slots : 1) * sizeof(*p->slot));
	if (p->value)
		hks_free(ctx, (void *)(uintptr_t)p->value, (p->values ? p->values : 1) * sizeof(*p->value));
	memset(p, 0, sizeof(*p));
}

int hks_rec_prior_check(hks_ctx *ctx, const hks_rec_prior *p)
{
	model *m = model_create(ctx, 1, HKS_REC_PRIOR_VERSION, NULL); /* only the tables' sizes are read */
	if (!m)
		return 0;
	state_table t[SLOT_TABLES], v[VALUE_TABLES];
	state_slot_tables(m, t);
	state_value_tables(m, v);
	hks_free(ctx, m, model_bytes(m->table_bits));
	uint64_t slots = 0, values = STATE_SEEN_COUNT;
	for (unsigned i = 0; i < SLOT_TABLES; i++)
		slots += t[i].count;
	for (unsigned i = 0; i < VALUE_TABLES; i++)
		values += v[i].count;
	for (uint32_t i = 0; i < p->slots; i++)
		if (p->slot[i].index >= slots || (i && p->slot[i].index <= p->slot[i - 1].index) || p->slot[i].seen > 255)
			return 0;
	for (uint32_t i = 0; i < p->values; i++)
		if (p->value[i].index >= values || (i && p->value[i].index <= p->value[i - 1].index))
			return 0;
	return 1;
}
