/*
 * Internal API of the encoder's numeric building blocks (ENCODER.md §4, §5.4,
 * §8, §9, §11): reciprocal / reciprocal-square-root hardware models, the SSE
 * arithmetic rules, the truncating quantizers, the quaternion packers, lane
 * classification and knot bytes.
 *
 * Every function here computes in f32 with one rounding per operation, in the
 * operation order the spec writes (the build uses -ffp-contract=off and no
 * fast-math), so results are identical across compilers and machines; only
 * the `native` model depends on the host CPU, by design.
 */
#ifndef HKS_ENCODE_INTERNAL_H
#define HKS_ENCODE_INTERNAL_H

#include "internal.h"

#include <stddef.h>
#include <stdint.h>

/* ---- CPU models for rcpss / rsqrtss (ENCODER.md §11) -------------------- */

/* The hks_cpu_model enum, hks_cpu_model_name and hks_cpu_model_parse are
 * public (include/hkspline.h, section "encoder"). */

typedef struct hks_rcp_model hks_rcp_model;

/* The model for `id`; NULL for HKS_CPU_AUTO, for NATIVE on a host without SSE,
 * and for unknown ids. The returned object is static and immutable. */
const hks_rcp_model *hks_rcp_model_get(hks_cpu_model id);
hks_cpu_model hks_rcp_model_id(const hks_rcp_model *m);
/* 1 when this build can run the native model (x86 with SSE). */
int hks_cpu_native_available(void);

/* The raw estimates (bit-exact models of rcpss / rsqrtss, special cases of §11.3). */
float hks_rcp(const hks_rcp_model *m, float x);
float hks_rsqrt(const hks_rcp_model *m, float x);

/* §4.1: r0 = rcp(x); t = x·r0; d = 2 − t; r = r0·d. */
float hks_rcp_nr(const hks_rcp_model *m, float x);
/* §4.1: r0 = rcp(x); a = r0 + r0; b = r0·r0; c = b·x; r = a − c (Linspace only). */
float hks_rcp_lin(const hks_rcp_model *m, float x);
/* §4.1: e = rsqrt(x); a = x·e; b = a·e; c = 3 − b; h = 0.5·e; r = h·c. */
float hks_rsqrt_nr(const hks_rcp_model *m, float x);

/*
 * Table access for tests and tools: the 12-bit mantissa tables of a model.
 * Intel: rcp 2048 entries (index = top 11 fraction bits), rsqrt odd/even 1024
 * entries each (top 10 bits), computed from the closed forms of §11.2.
 * Zen: 4096 entries each (top 12 bits), the generated data of rcp_tables_zen.c.
 */
extern const uint16_t hks_zen_rcp_table[4096];
extern const uint16_t hks_zen_rsqrt_odd_table[4096];
extern const uint16_t hks_zen_rsqrt_even_table[4096];
/* Intel closed forms (§11.2), entry i of each table. */
uint16_t hks_intel_rcp_entry(uint32_t i);        /* i < 2048 */
uint16_t hks_intel_rsqrt_odd_entry(uint32_t i);  /* i < 1024 */
uint16_t hks_intel_rsqrt_even_entry(uint32_t i); /* i < 1024 */

/* ---- SSE arithmetic rules (ENCODER.md §4) ------------------------------- */

/* minss: a < b ? a : b — b when either is NaN. Running value goes first. */
static inline float hks_sse_min(float a, float b) { return a < b ? a : b; }
/* maxss: a > b ? a : b — b when either is NaN. */
static inline float hks_sse_max(float a, float b) { return a > b ? a : b; }

/* cvttss2si: truncation toward zero; NaN, ±∞ and out-of-range give INT32_MIN. */
static inline int32_t hks_cvtt(float x)
{
	/* x != x is NaN; the bounds are exact f32 values (±2^31). */
	if (x != x || x >= 2147483648.0f || x < -2147483648.0f)
		return INT32_MIN;
	return (int32_t)x;
}
/* packssdw: int32 -> int16 with saturation. */
static inline int16_t hks_sat16(int32_t v)
{
	return (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v);
}
/* packuswb-style: int32 -> u8 with saturation. */
static inline uint8_t hks_satu8(int32_t v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

/* §4.1 dot4: ((a.x·b.x + a.y·b.y) + a.z·b.z) + a.w·b.w. */
static inline float hks_dot4(const float a[4], const float b[4])
{
	float s = a[0] * b[0];
	s = s + a[1] * b[1];
	s = s + a[2] * b[2];
	s = s + a[3] * b[3];
	return s;
}
/* §4.1 len2 (pairwise horizontal add): (x·x + z·z) + (y·y + w·w). */
static inline float hks_len2(const float q[4])
{
	float xz = q[0] * q[0] + q[2] * q[2];
	float yw = q[1] * q[1] + q[3] * q[3];
	return xz + yw;
}

/* ---- statistics and normalization (ENCODER.md §4.1, classify.c / quat_pack.c) */

/* mean = (Σ S[k] in order) · rcpNR((f32)count); vmin / vmax lane-wise with the
 * running value first, starting from S[0]. count must be >= 1. Any output may be NULL. */
void hks_part_statistics(const hks_rcp_model *m, const float (*samples)[4], size_t count, float mean[4],
                         float mn[4], float mx[4]);
/* Lane-wise vmin / vmax over `count` >= 1 points (the control-point bounds of §9.1). */
void hks_vec_bounds(const float (*points)[4], size_t count, float lo[4], float hi[4]);

/* normG: f = rsqrtNR(len2(q)); f = 0 when len2(q) <= 0; out = q·f. */
void hks_normalize_guarded(const hks_rcp_model *m, const float q[4], float out[4]);
/* normU: out = q·rsqrtNR(len2(q)), no guard: a zero vector gives NaNs (§9.3). */
void hks_normalize_unguarded(const hks_rcp_model *m, const float q[4], float out[4]);

/* ---- lane classification (ENCODER.md §5.4) ------------------------------ */

/* The part an encode_part call works on (§2: identity vectors). */
typedef enum hks_enc_part {
	HKS_ENC_TRANSLATION = 0,
	HKS_ENC_ROTATION = 1,
	HKS_ENC_SCALE = 2,
	HKS_ENC_FLOAT = 3
} hks_enc_part;

/* The identity vector I of a part (§2). */
const float *hks_part_identity(hks_enc_part part);

/* §5.4 for lanes 0..3: static lane → bit i, spline lane → bit 4+i, absent → nothing. */
uint8_t hks_classify_lanes(const float mean[4], const float mn[4], const float mx[4], float tol,
                           const float identity[4]);

/*
 * §5.3 up to the mask byte: statistics of the samples, normG of the mean for
 * rotations, classification against the part's identity; for floats a mask of
 * 0 becomes 0x01 and the quantization goes to bits 1-2 (quant_float << 1).
 * `mean_out` (may be NULL) receives the mean the writer uses for static lanes
 * (normalized with normG for rotations).
 */
uint8_t hks_classify_part(const hks_rcp_model *m, hks_enc_part part, const float (*samples)[4], size_t count,
                          float tol, unsigned quant_float, float mean_out[4]);

/* ---- quantizers (ENCODER.md §9.2) -------------------------------------- */

/* Truncating 16-bit quantizer through model m: r = rcpNR(max − min),
 * x = (r·(v − min))·65535, clamped to [0, 65535] with SSE semantics (NaN → 0),
 * truncated. */
uint16_t hks_pack16(const hks_rcp_model *m, float v, float lo, float hi);
/* The 8-bit form: 255 instead of 65535, no clamp, the low 8 bits of cvtt [R/U]. */
uint8_t hks_pack8(const hks_rcp_model *m, float v, float lo, float hi);

/* ---- CPU model detection (ENCODER.md §11.4) ----------------------------- */

/* One stored 16-bit spline lane: its f32 bounds and the largest stored integer. */
typedef struct hks_quant_lane {
	float lo, hi;
	uint16_t top;
} hks_quant_lane;

typedef enum hks_detect_status {
	HKS_DETECT_CONSISTENT = 0,    /* one model matched every discriminating lane */
	HKS_DETECT_MIXED = 1,         /* no model matched all: best one chosen ("mixed or unknown producer") */
	HKS_DETECT_UNDETERMINED = 2   /* no discriminating lane: default by SDK */
} hks_detect_status;

typedef struct hks_detect_result {
	hks_cpu_model model;          /* HKS_CPU_INTEL or HKS_CPU_AMD_ZEN */
	hks_detect_status status;
	uint32_t lanes;               /* lanes considered (finite lo < hi) */
	uint32_t discriminating;      /* lanes where the two models predict differently */
	uint32_t intel_matches;       /* discriminating lanes whose top equals the Intel prediction */
	uint32_t zen_matches;         /* ... the Zen prediction */
	uint32_t intel_all_matches;   /* all considered lanes whose top equals the Intel prediction */
	uint32_t zen_all_matches;
} hks_detect_result;

/*
 * §11.4 auto-detection over the 16-bit spline lanes of one file or animation.
 * `default_model` (INTEL or AMD_ZEN) is used when no lane discriminates, and
 * breaks ties; choose it by SDK (hks_cpu_model_for_sdk).
 */
void hks_detect_cpu_model(const hks_quant_lane *lanes, size_t count, hks_cpu_model default_model,
                          hks_detect_result *out);
/* §11.4 default: SDK "20160200" and older → Intel, "20180100" and newer → AMD Zen. */
hks_cpu_model hks_cpu_model_for_sdk(const char *sdk);

/* ---- quaternion packers (ENCODER.md §9.4 - §9.6) ------------------------ */

/*
 * §9.4: index of the dropped (largest-magnitude) component, ties to the highest
 * index, 0 when no comparison holds (NaN); *sign = 1 when q[k] < 0.
 */
unsigned hks_quat_largest(const float q[4], unsigned *sign);

/*
 * Pack the (already normalized) quaternion q with `selector` (HKS_ROT_*) into
 * hks_rotation_size(selector) bytes; returns that size, or 0 for an invalid
 * selector. ThreeComp40/48/24 and Uncompressed follow §9.5 bit for bit;
 * Polar32 follows the structure of §9.5 with the C library's acosf/atan2f
 * (Havok's polynomial approximations are unknown: not bit-exact) and
 * Straight16 the provisional constants of FORMAT.md §3.8 (unverified).
 */
uint32_t hks_pack_quaternion(unsigned selector, const float q[4], uint8_t *out);
/* 1 when the packer of `selector` is the bit-exact Havok one (1, 2, 3, 5). */
int hks_pack_quaternion_exact(unsigned selector);
/* Bytes of `selector` (1, 2, 3, 5) that unpack to `target` bit for bit, when there are any (1). */
int hks_repack_quaternion_exact(unsigned selector, const float target[4], uint8_t *out);

/* The fields of a ThreeComp40/48/24 point (selector 1, 2, 3) as the packers write them: the three kept
 * components (12, 15 or 7 bits: hks_threecomp_bits), the dropped index and its sign. split returns 0 for
 * another selector or for bytes no packer writes (they would not join back); join returns 0 for a
 * component, index or sign out of range. */
unsigned hks_threecomp_bits(unsigned selector);
int hks_threecomp_split(unsigned selector, const uint8_t *b, uint16_t c[3], unsigned *k, unsigned *sign);
int hks_threecomp_join(unsigned selector, unsigned k, unsigned sign, const uint16_t c[3], uint8_t *out);

/* §9.3: pack(normU(p)) through model m — the write path for control points and
 * static rotations (no zero guard: a zero point packs as NaN). */
uint32_t hks_pack_rotation(const hks_rcp_model *m, unsigned selector, const float p[4], uint8_t *out);

/* ---- knot bytes (ENCODER.md §8) ---------------------------------------- */

/* f = (duration == 0) ? 0 : (f32)(numFrames − 1) · (1.0f / duration). */
float hks_knot_factor(int32_t num_frames, float duration);
/* u8 of cvtt((u · f) + 0.5f): the low 8 bits [R: the store of out-of-range values is U]. */
uint8_t hks_knot_byte(float u, float factor);
/*
 * write_knots: u16 n (little-endian), u8 degree, then the n + degree + 2 knot
 * bytes of U (`num_knots` must be n + degree + 2). Writes 3 + num_knots bytes
 * to out and returns that count; 0 when num_knots does not fit the rule.
 */
size_t hks_write_knots(uint16_t n, uint8_t degree, const float *knots, size_t num_knots, float factor,
                       uint8_t *out);

/* ---- predictor settings of the re-compressor (ENCODER.md §13, §16) ------- */

/*
 * The re-compressor's predictor runs the encoder on decoded frames, which sit
 * on the lower edges of the original quantization bins. These switches adapt
 * the write path to that input (docs/RECORD.md); they are not Havok's
 * behaviour and are off in hks_encode_stored.
 */
typedef struct hks_predictor_options {
	int static_from_constant;  /* a static lane whose samples are all the same bits stores that value
	                              (not the rcp-scaled mean, §13.1) */
	int nearest_quantization;  /* 16/8-bit scalars and ThreeComp rotations quantize to the nearest
	                              integer (the bin centre of a decoded value) instead of truncating */
	int tolerance_guard;       /* nonzero: run the encoder's tolerance guard (docs/ENCODE.md "Tolerance
	                              guarantee"). Zero, the predictor's default, keeps Havok's fit as is:
	                              the predictor reproduces Havok's files, flaw included (ENCODER.md §7.3) */
	float classify_tolerance;  /* > 0: the lane classification (§5.4) uses this tolerance instead of
	                              the part's fit tolerance. Havok classified the raw frames with the
	                              tolerance it fitted with; the predictor fits decoded frames with a
	                              reduced tolerance (§16) but classifies with Havok's */
	const uint8_t *skip_units; /* NULL, or one byte per unit (block · (3T + F) + 3t + part | 3T + i):
	                              nonzero leaves that part absent. The re-compressor's candidate
	                              selection (docs/RECORD.md) re-encodes only the parts no earlier
	                              candidate reproduced; parts are fitted independently, so the
	                              others come out the same as in a full encode */
} hks_predictor_options;

/* Havok's defaults of the encoder's parameters. */
#define HKS_ENC_DEFAULT_TOLERANCE 0.001f   /* ENCODER.md §3.1 */
#define HKS_ENC_DEFAULT_DEGREE 3
#define HKS_ENC_DEFAULT_MFPB 256u          /* ENCODER.md §3.1 [V: every retail file] */
#define HKS_ENC_DEFAULT_SDK "20160200"

/* The controlled encode (error_control.c): hks_encode_stored when
 * hks_encode_options.control is set. */
hks_result hks_encode_controlled(const hks_frames_in *in, const hks_encode_options *opts,
                                 hks_stored_animation **out, hks_error *err);

/* hks_encode_stored with predictor switches (`pred` may be NULL: plain encode). */
hks_result hks_encode_stored_predict(const hks_frames_in *in, const hks_encode_options *opts,
                                     const hks_predictor_options *pred, hks_stored_animation **out, hks_error *err);

#endif /* HKS_ENCODE_INTERNAL_H */
