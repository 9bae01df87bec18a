/*
 * Sampling the stored structure (FORMAT.md §4): frame mode (integer frames,
 * the reference) and time mode (the engine's time → frame mapping with its
 * end clamp).
 *
 * Exactness: every value is the spec's formula evaluated in f32 in the
 * spec's order. The speed comes only from doing work once that the formula
 * would repeat with identical operands — each control point is dequantized
 * once per block instead of once per sample, each knot converted to f32
 * once, and the knot span advanced incrementally over increasing frames
 * (which selects the same span as the search of §4.4 for valid knots). The
 * divisions of the Cox–de Boor triangle stay divisions: replacing them by a
 * reciprocal would change the last bit. tests/test_sample.c compares this
 * against a literal per-sample implementation bit for bit.
 *
 * Two evaluation paths (hks_sample_options.path, HKS_SAMPLE_PATH): the
 * portable scalar reference, and on SSE2 builds a fast path ("fast path"
 * below) that performs the same operations per lane in the same order, four
 * lanes or four frames per instruction; tests/test_sample_paths.c and
 * tests/corpus_sample_paths.c compare the two bit for bit. The runtime pose
 * sampler (hks_pose_at) is time mode with the checks made once.
 *
 * Safety: the stored structure may come from anywhere (the walk, the fitter,
 * a caller). Everything the evaluation relies on is checked per block and
 * part before use (degree, counts, knot order, clamped ends, non-empty
 * boundary spans, pointers), so no index leaves its array, nothing divides
 * by an empty span and nothing loops.
 */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(HKS_HAVE_AVX2)
#include <immintrin.h>
#endif

#if defined(__GNUC__) || defined(__clang__)
#define HKS_INLINE static inline __attribute__((always_inline))
#else
#define HKS_INLINE static inline
#endif
/* Full unrolling of the short loops over degree and lanes (both constants
 * after inlining): the hot loop is then straight-line f32 code. */
#if defined(__clang__)
#define HKS_UNROLL /* clang unrolls constant trip counts by itself, and warns
                      where a call site (eval_one) leaves the count variable */
#elif defined(__GNUC__)
#define HKS_UNROLL _Pragma("GCC unroll 4")
#else
#define HKS_UNROLL
#endif

#define ONE_BITS 0x3F800000u

/* The SSE2 and AVX2 paths share everything but the kernels of
 * eval_avx2 and the ThreeComp40 unpacker. */
#define FAST(sm) ((sm)->path == HKS_SAMPLE_PATH_SSE2 || (sm)->path == HKS_SAMPLE_PATH_AVX2)

/* Lanes of a translation/scale/float part, FORMAT.md §2.3-2.4, §2.7. */
#define LANES_VECTOR 3

/* Internal row of one track-sample in the track buffer: 10 floats padded to
 * 12, so the fast path may store four lanes at once at offsets 0 and 7 (the
 * fourth lane at 3 is written by the rotation afterwards, the one at 10 is
 * padding). */
#define ROW_FLOATS 12

#define DEG1_LEN 32

typedef struct sampler {
	hks_ctx ctx;
	const hks_stored_animation *s;
	int normalize;
	int path;              /* HKS_SAMPLE_PATH_*: reference or fast */
	int validated;         /* every part checked already (pose sampler) */
	unsigned tspan;        /* time mode: the span of the part being sampled (needed_points) */
	/* fast path, degree 1: the basis of a frame `left` frames into a span of
	 * `len` frames, N0 and N1 each repeated four times (ready for a
	 * four-lane multiply), rows of a span length computed on first use
	 * (deg1_at, see deg1_row); row `len` starts at entry
	 * len·(len − 1)/2 */
	float deg1[DEG1_LEN * (DEG1_LEN + 1) / 2][8];
	uint16_t deg1_at[DEG1_LEN + 1]; /* 1 + the entry of row `len` once filled, else 0 */
	uint32_t K;            /* maxFramesPerBlock − 1 */
	/* AVX2 path, frame mode: when set, the rotation kernel writes whole
	 * output rows: the constant lanes t0 t1 t2 _ _ _ _ s0 s1 s2 around the
	 * rotation (see sample_block) */
	const float *compose;
	/* scratch: dequantized control points and f32 knots of one part */
	float *cp;
	size_t cp_cap;         /* floats */
	float *knots;
	size_t knots_cap;      /* floats */
	/* AVX2 path: the rows of the block's tracks without any spline, as
	 * runs of consecutive tracks: the bits of the first track's index and
	 * of the run's length in two floats, then the run's rows (10 floats
	 * each, contiguous as in the output); at most 12 floats per track.
	 * Written frame by frame after the other tracks (sample_block). */
	float *crows;
	size_t crows_cap;      /* floats */
	/* one track's rows (at most maxFramesPerBlock <= 256) × ROW_FLOATS */
	float track_rows[256 * ROW_FLOATS];
} sampler;

/* ---- setup ------------------------------------------------------------ */

static hks_result check_animation(hks_ctx *ctx, const hks_stored_animation *s)
{
	if (!s)
		return hks_fail(ctx, HKS_E_ARGUMENT, -1, "no stored animation");
	if (s->num_transform_tracks < 0 || s->num_float_tracks < 0)
		return hks_fail(ctx, HKS_E_MALFORMED, -1, "negative track count (%d transform, %d float)",
		                s->num_transform_tracks, s->num_float_tracks);
	/* FORMAT.md §6.1 H1, H2: K = 0 or one frame would divide by zero. */
	if (s->num_frames < 2)
		return hks_fail(ctx, HKS_E_MALFORMED, -1, "numFrames %d < 2", s->num_frames);
	if (s->max_frames_per_block < 2 || s->max_frames_per_block > 256)
		return hks_fail(ctx, HKS_E_MALFORMED, -1, "maxFramesPerBlock %d outside 2..256", s->max_frames_per_block);
	uint32_t K = (uint32_t)s->max_frames_per_block - 1;
	/* FORMAT.md §6.1 H3 */
	uint32_t want = ((uint32_t)s->num_frames + K - 2) / K;
	if (want < 1)
		want = 1;
	if (s->num_blocks != want || !s->blocks)
		return hks_fail(ctx, HKS_E_MALFORMED, -1, "numBlocks %u, expected %u for %d frames", s->num_blocks, want,
		                s->num_frames);
	for (uint32_t b = 0; b < s->num_blocks; b++) {
		const hks_stored_block *blk = &s->blocks[b];
		/* FORMAT.md §2.2: F_b = min(maxFramesPerBlock, numFrames − b·K) */
		uint32_t first = b * K;
		uint32_t frames = (uint32_t)s->num_frames - first;
		if (frames > (uint32_t)s->max_frames_per_block)
			frames = (uint32_t)s->max_frames_per_block;
		if (blk->num_frames != frames) {
			hks_err_location(ctx, -1, (int32_t)b, -1, HKS_PART_NONE);
			return hks_fail(ctx, HKS_E_MALFORMED, -1, "block has %u frames, expected %u", blk->num_frames, frames);
		}
		if ((s->num_transform_tracks > 0 && !blk->tracks) || (s->num_float_tracks > 0 && !blk->floats)) {
			hks_err_location(ctx, -1, (int32_t)b, -1, HKS_PART_NONE);
			return hks_fail(ctx, HKS_E_MALFORMED, -1, "block without track data");
		}
	}
	return HKS_OK;
}

static hks_result sampler_init(sampler *sm, const hks_stored_animation *s, const hks_sample_options *opts,
                               hks_error *err)
{
	/* everything but the row buffer (written before it is read) */
	sm->cp = sm->knots = sm->crows = NULL;
	sm->cp_cap = sm->knots_cap = sm->crows_cap = 0;
	sm->K = 0;
	sm->compose = NULL;
	hks_ctx_init(&sm->ctx, opts ? &opts->base : NULL, 0, err);
	sm->s = s;
	sm->normalize = opts ? opts->normalize_rotations : 0;
	sm->path = hks_sample_path_resolve(opts ? opts->path : HKS_SAMPLE_PATH_AUTO);
	sm->validated = 0;
	for (unsigned l = 0; l <= DEG1_LEN; l++)
		sm->deg1_at[l] = 0;
	HKS_TRY(check_animation(&sm->ctx, s));
	sm->K = (uint32_t)s->max_frames_per_block - 1;
	return HKS_OK;
}

static void sampler_free(sampler *sm)
{
	hks_free(&sm->ctx, sm->cp, sm->cp_cap * sizeof(float));
	hks_free(&sm->ctx, sm->knots, sm->knots_cap * sizeof(float));
	hks_free(&sm->ctx, sm->crows, sm->crows_cap * sizeof(float));
	sm->cp = sm->knots = sm->crows = NULL;
	sm->cp_cap = sm->knots_cap = sm->crows_cap = 0;
}

static hks_result reserve(sampler *sm, float **buf, size_t *cap, size_t need)
{
	if (need <= *cap)
		return HKS_OK;
	size_t n = *cap ? *cap : 256;
	while (n < need)
		n *= 2;
	float *p = (float *)hks_realloc(&sm->ctx, *buf, *cap * sizeof(float), n * sizeof(float));
	if (!p)
		return HKS_E_NOMEM; /* hks_realloc recorded the error */
	*buf = p;
	*cap = n;
	return HKS_OK;
}

/* ---- validation of one spline ---------------------------------------- */

static hks_result fail_part(sampler *sm, uint32_t block, int32_t track, hks_part part, const hks_stored_part *p,
                            const char *fmt, ...) HKS_PRINTF(6, 7);
static hks_result fail_part(sampler *sm, uint32_t block, int32_t track, hks_part part, const hks_stored_part *p,
                            const char *fmt, ...)
{
	hks_err_location(&sm->ctx, -1, (int32_t)block, track, part);
	char msg[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	uint32_t where = sm->s->blocks[block].offset + p->offset;
	int64_t file_offset = sm->s->data_offset >= 0 ? sm->s->data_offset + (int64_t)where : -1;
	return hks_fail(&sm->ctx, HKS_E_MALFORMED, file_offset, "%s (part at data offset %u)", msg, where);
}

/*
 * What the evaluation needs of a spline (FORMAT.md §4.4-4.5, §6.2 B7, B8):
 * degree 1..3, n + 1 >= p + 1 control points, n + p + 2 knots, knots
 * non-decreasing, clamped at both ends (p + 1 equal knots), and non-empty
 * first and last spans, so that the span the search of §4.4 selects is never
 * empty and no basis denominator is zero.
 */
static hks_result check_spline(sampler *sm, uint32_t block, int32_t track, hks_part part, const hks_stored_part *p)
{
	unsigned deg = p->degree, ncp = p->num_control_points;
	if (deg < 1 || deg > 3)
		return fail_part(sm, block, track, part, p, "spline degree %u outside 1..3", deg);
	if (ncp < deg + 1)
		return fail_part(sm, block, track, part, p, "%u control points, fewer than degree %u + 1", ncp, deg);
	if ((uint32_t)p->num_knots != ncp + deg + 1 || !p->knots)
		return fail_part(sm, block, track, part, p, "%u knots for %u control points", p->num_knots, ncp);
	const uint8_t *U = p->knots;
	unsigned n = ncp - 1, last = n + deg + 1;
	unsigned i = 1;
#if defined(__SSE2__)
	/* sixteen pairs at a time: U[i] >= U[i − 1] exactly when max(U[i], U[i − 1]) = U[i];
	 * a block with a decrease is left to the loop below, which names the knot */
	for (; i + 16 <= last + 1; i += 16) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)(U + i));
		__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(U + i - 1));
		if (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(a, b), a)) != 0xFFFF)
			break;
	}
#endif
	for (; i <= last; i++)
		if (U[i] < U[i - 1])
			return fail_part(sm, block, track, part, p, "knot %u decreases (to %u)", i, U[i]);
	/* B8: p + 1 equal knots at each end, starting at local frame 0 (the end
	 * value is not required to be F_b − 1: past the last knot Havok evaluates
	 * the last span, which is finite) */
	if (U[0] != 0 || U[0] != U[deg] || U[n + 1] != U[last])
		return fail_part(sm, block, track, part, p, "knot vector not clamped (degree %u, %u knots)", deg, last + 1);
	if (!(U[deg] < U[deg + 1]) || !(U[n] < U[n + 1]))
		return fail_part(sm, block, track, part, p, "empty first or last knot span (knots %u..%u)", U[deg], U[n + 1]);
	return HKS_OK;
}

/* ---- the B-spline ----------------------------------------------------- */

/* FORMAT.md §4.4 for a parameter that is a whole number (frame mode: the
 * local frame; time mode: qTime). Valid knots checked by check_spline. */
static unsigned find_span(const uint8_t *U, unsigned n, unsigned p, uint32_t x)
{
	if (x >= U[n + 1])
		return n;
	if (x <= U[p])
		return p;
	/* invariant U[low] <= x < U[high]; ends because high − low shrinks */
	unsigned low = p, high = n + 1;
	while (high - low > 1) {
		unsigned mid = (low + high) / 2;
		if (x < U[mid])
			high = mid;
		else
			low = mid;
	}
	return low;
}

/*
 * FORMAT.md §4.5: the Cox–de Boor triangle (The NURBS Book A2.2) in f32, in
 * exactly this order. `U` are the knots as f32 (already scaled in time mode).
 * Inlined with a constant degree so the loops unroll.
 */
HKS_INLINE void basis(unsigned p, unsigned span, float u, const float *U,
                                                        float N[4])
{
	float left[4], right[4];
	N[0] = 1.0f;
	HKS_UNROLL
	for (unsigned j = 1; j <= p; j++) {
		left[j] = u - U[span + 1 - j];
		right[j] = U[span + j] - u;
		float saved = 0.0f;
		HKS_UNROLL
		for (unsigned r = 0; r < j; r++) {
			float temp = N[r] / (right[r + 1] + left[j - r]);
			N[r] = saved + right[r + 1] * temp;
			saved = left[j - r] * temp;
		}
		N[j] = saved;
	}
}

void hks_sample_basis(unsigned p, unsigned span, float u, const float *U, float N[4])
{
	basis(p, span, u, U, N);
}

/* C = N0·P[span−p]; C = C + Nj·P[span−p+j], per lane (FORMAT.md §4.5). */
HKS_INLINE void combine(unsigned p, const float N[4], const float *P,
                                                          unsigned lanes, float *out)
{
	HKS_UNROLL
	for (unsigned l = 0; l < lanes; l++) {
		float c = N[0] * P[l];
		HKS_UNROLL
		for (unsigned j = 1; j <= p; j++)
			c = c + N[j] * P[j * lanes + l];
		out[l] = c;
	}
}

/*
 * Evaluate a spline at local frames L0 .. L0 + count − 1 (frame mode).
 * cp: (n+1) × lanes dequantized control points; Uf: knots as f32.
 * The result of lane l for frame i goes to out[i·stride + dest[l]].
 */
#if defined(__SSE2__)
/*
 * The basis of four consecutive frames at once (frame mode). Each SSE lane
 * performs exactly the scalar operations of basis() on one frame — IEEE f32
 * subtract, add, multiply and divide, correctly rounded per lane, no FMA —
 * so the results are the same bits; only the four independent division
 * chains overlap. N4[j][f] is N[j] of frame f.
 */
HKS_INLINE void basis4(unsigned p, const unsigned span[4], uint32_t L, const float *U, float N4[4][4])
{
	__m128 u = _mm_set_ps((float)(L + 3), (float)(L + 2), (float)(L + 1), (float)L);
	__m128 left[4], right[4], N[4];
	N[0] = _mm_set1_ps(1.0f);
	HKS_UNROLL
	for (unsigned j = 1; j <= p; j++) {
		left[j] = _mm_sub_ps(u, _mm_set_ps(U[span[3] + 1 - j], U[span[2] + 1 - j], U[span[1] + 1 - j], U[span[0] + 1 - j]));
		right[j] = _mm_sub_ps(_mm_set_ps(U[span[3] + j], U[span[2] + j], U[span[1] + j], U[span[0] + j]), u);
		__m128 saved = _mm_setzero_ps();
		HKS_UNROLL
		for (unsigned r = 0; r < j; r++) {
			__m128 temp = _mm_div_ps(N[r], _mm_add_ps(right[r + 1], left[j - r]));
			N[r] = _mm_add_ps(saved, _mm_mul_ps(right[r + 1], temp));
			saved = _mm_mul_ps(left[j - r], temp);
		}
		N[j] = saved;
	}
	HKS_UNROLL
	for (unsigned j = 0; j <= p; j++)
		_mm_storeu_ps(N4[j], N[j]);
}
#endif

HKS_INLINE void eval_frames_deg(unsigned p, unsigned lanes, const uint8_t *U, const float *Uf, unsigned n,
                                const float *cp, uint32_t L0, uint32_t count, float *out, size_t stride,
                                const unsigned *dest)
{
	unsigned span = find_span(U, n, p, L0);
	uint32_t i = 0;
	/* Advancing over increasing L gives the span of §4.4: the unique
	 * U[span] <= L < U[span+1], or n past the end (check_spline guarantees
	 * the boundary spans are non-empty). */
#if defined(__SSE2__)
	for (; i + 4 <= count; i += 4) {
		unsigned spans[4];
		for (unsigned f = 0; f < 4; f++) {
			uint32_t L = L0 + i + f;
			while (span < n && L >= U[span + 1])
				span++;
			spans[f] = span;
		}
		float N4[4][4];
		basis4(p, spans, L0 + i, Uf, N4);
		for (unsigned f = 0; f < 4; f++) {
			float N[4] = {0}; /* only N[0..p] are made and used */
			HKS_UNROLL
			for (unsigned j = 0; j <= p; j++)
				N[j] = N4[j][f];
			float v[4];
			combine(p, N, cp + (size_t)(spans[f] - p) * lanes, lanes, v);
			float *o = out + (i + f) * stride;
			HKS_UNROLL
			for (unsigned l = 0; l < lanes; l++)
				o[dest[l]] = v[l];
		}
	}
#endif
	for (; i < count; i++) {
		uint32_t L = L0 + i;
		while (span < n && L >= U[span + 1])
			span++;
		float N[4];
		basis(p, span, (float)L, Uf, N);
		float v[4];
		combine(p, N, cp + (size_t)(span - p) * lanes, lanes, v);
		float *o = out + i * stride;
		HKS_UNROLL
		for (unsigned l = 0; l < lanes; l++)
			o[dest[l]] = v[l];
	}
}

static void eval_frames(unsigned p, unsigned lanes, const uint8_t *U, const float *Uf, unsigned n, const float *cp,
                        uint32_t L0, uint32_t count, float *out, size_t stride, const unsigned *dest)
{
	/* Constant degree and lane count, and a constant lane mapping in the
	 * usual case of lanes x, y, z (, w) in order: the loops above unroll and
	 * the stores need no lookup. */
	static const unsigned in_order[4] = {0, 1, 2, 3};
	unsigned key = p * 8 + lanes;
	int ordered = 1;
	for (unsigned l = 0; l < lanes; l++)
		if (dest[l] != l)
			ordered = 0;
	if (ordered)
		key += 64;
#define HKS_EVAL_CASE(P, LN) \
	case (P) * 8 + (LN): eval_frames_deg(P, LN, U, Uf, n, cp, L0, count, out, stride, dest); return; \
	case 64 + (P) * 8 + (LN): eval_frames_deg(P, LN, U, Uf, n, cp, L0, count, out, stride, in_order); return;
	switch (key) {
		HKS_EVAL_CASE(1, 1) HKS_EVAL_CASE(1, 2) HKS_EVAL_CASE(1, 3) HKS_EVAL_CASE(1, 4)
		HKS_EVAL_CASE(2, 1) HKS_EVAL_CASE(2, 2) HKS_EVAL_CASE(2, 3) HKS_EVAL_CASE(2, 4)
		HKS_EVAL_CASE(3, 1) HKS_EVAL_CASE(3, 2) HKS_EVAL_CASE(3, 3) HKS_EVAL_CASE(3, 4)
	default: return; /* unreachable: degree and lanes checked */
	}
#undef HKS_EVAL_CASE
}

/* One parameter (time mode): span from the integer search key, basis at u. */
static void eval_one(unsigned p, unsigned lanes, const uint8_t *U, const float *Uf, unsigned n, const float *cp,
                     uint32_t key, float u, float *out, const unsigned *dest)
{
	unsigned span = find_span(U, n, p, key);
	float N[4], v[4];
	basis(p, span, u, Uf, N);
	combine(p, N, cp + (size_t)(span - p) * lanes, lanes, v);
	for (unsigned l = 0; l < lanes; l++)
		out[dest[l]] = v[l];
}


/* ---- parts ------------------------------------------------------------ */

/* Where to evaluate: either frames L0.. of a block (frame mode) or one time. */
typedef struct param {
	int time_mode;
	uint32_t L0, count;    /* frame mode */
	uint32_t qtime;        /* time mode: span search key */
	float u;               /* time mode: blockTime, seconds */
	float frame_duration;  /* time mode: knot scale */
} param;

static hks_result load_knots(sampler *sm, const hks_stored_part *p, const param *pr)
{
	HKS_TRY(reserve(sm, &sm->knots, &sm->knots_cap, p->num_knots));
	/* Frame mode: the knot bytes as f32 frame numbers (§4.2). Time mode: each
	 * knot converted to f32 and multiplied by frameDuration (§4.3). */
	if (pr->time_mode) {
		/* only the knots the basis of the one span reads: U[span − p + 1 .. span + p] */
		unsigned span = sm->tspan; /* needed_points ran first */
		for (unsigned i = span + 1 - p->degree; i <= span + p->degree; i++)
			sm->knots[i] = (float)p->knots[i] * pr->frame_duration;
	}
	else {
		unsigned i = 0;
#if defined(__SSE2__)
		/* sixteen bytes widened to integers and converted exactly, as (float)byte */
		const __m128i zero = _mm_setzero_si128();
		for (; i + 16 <= p->num_knots; i += 16) {
			__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(p->knots + i));
			__m128i lo = _mm_unpacklo_epi8(b, zero), hi = _mm_unpackhi_epi8(b, zero);
			_mm_storeu_ps(sm->knots + i, _mm_cvtepi32_ps(_mm_unpacklo_epi16(lo, zero)));
			_mm_storeu_ps(sm->knots + i + 4, _mm_cvtepi32_ps(_mm_unpackhi_epi16(lo, zero)));
			_mm_storeu_ps(sm->knots + i + 8, _mm_cvtepi32_ps(_mm_unpacklo_epi16(hi, zero)));
			_mm_storeu_ps(sm->knots + i + 12, _mm_cvtepi32_ps(_mm_unpackhi_epi16(hi, zero)));
		}
#endif
		for (; i < p->num_knots; i++)
			sm->knots[i] = (float)p->knots[i];
	}
	return HKS_OK;
}

static void run_spline(sampler *sm, const hks_stored_part *p, unsigned lanes, const param *pr, float *out,
                       size_t stride, const unsigned *dest)
{
	unsigned n = (unsigned)p->num_control_points - 1;
	if (pr->time_mode)
		eval_one(p->degree, lanes, p->knots, sm->knots, n, sm->cp, pr->qtime, pr->u, out, dest);
	else
		eval_frames(p->degree, lanes, p->knots, sm->knots, n, sm->cp, pr->L0, pr->count, out, stride, dest);
}

/*
 * The control points the evaluation will read: all of them in frame mode; in
 * time mode only P[span − p .. span] of the one span (the same search the
 * evaluation does), so a single sample costs O(degree), not O(points).
 * Call after check_spline.
 */
static void needed_points(sampler *sm, const hks_stored_part *p, const param *pr, size_t *first, size_t *end)
{
	if (!pr->time_mode) {
		*first = 0;
		*end = p->num_control_points;
		return;
	}
	unsigned span = find_span(p->knots, (unsigned)p->num_control_points - 1, p->degree, pr->qtime);
	sm->tspan = span; /* for load_knots and the fast time-mode combine */
	*first = span - p->degree;
	*end = (size_t)span + 1;
}

static uint32_t frames_of(const param *pr) { return pr->time_mode ? 1 : pr->count; }

/* ---- fast path: SIMD lanes and frames --------------------------------- */

/*
 * Frame mode, SSE2. Everything here performs, per lane, the operations of the
 * reference path above in the same order: the span of §4.4 (the one the
 * reference's advance finds, here from a knot histogram: spans_of), the basis
 * of basis() with u = (f32)L, the combine C = N0·P0, then C = C + Nj·Pj, each
 * operation rounded on its own, never fused. Only the grouping changes:
 *  - the basis of four consecutive frames is computed at once (one SSE lane
 *    per frame, as basis4), and each frame's weights are broadcast from those
 *    registers without a round trip through memory;
 *  - four in-order lanes of a control point (x, y, z, w of a rotation, or
 *    x, y, z of a translation/scale plus one lane that is dropped) are
 *    combined in one instruction per term, and stored as four floats.
 *  - degree 1 walks span by span with its basis from a table (eval_deg1);
 *  - ThreeComp40 control points are unpacked four at a time (quantization.c).
 * tests/test_sample_paths.c and tests/corpus_sample_paths.c compare this with
 * the reference bit for bit.
 */
#if defined(__SSE2__)
/*
 * The span of every frame L0 .. L0 + count − 1: the reference's search for
 * L0 and its advance over increasing frames (U[span] <= L < U[span + 1], or
 * n from the last knot on).
 */
static void spans_of(const uint8_t *U, unsigned n, unsigned p, uint32_t L0, uint32_t count, uint16_t *spans)
{
	unsigned span = find_span(U, n, p, L0);
	unsigned next = span < n ? U[span + 1] : 256; /* frames are below 256 */
	for (uint32_t i = 0; i < count; i++) {
		uint32_t L = L0 + i;
		while (L >= next) {
			span++;
			next = span < n ? U[span + 1] : 256;
		}
		spans[i] = (uint16_t)span;
	}
}

/*
 * basis4 with the result left in registers: N[j] lane f = N[j] of frame L + f.
 * u = (f32)L + f, exact (whole numbers below 2^24), so the same value as
 * (f32)(L + f). The knots of the four spans are read as rows of four
 * consecutive floats and transposed (degrees 2 and 3: U[span−2 .. span+4]
 * at most, inside the n + p + 2 knots since span <= n).
 */
HKS_INLINE void basis4v(unsigned p, const unsigned span[4], uint32_t L, const float *U, __m128 N[4])
{
	__m128 u = _mm_add_ps(_mm_set1_ps((float)L), _mm_set_ps(3.0f, 2.0f, 1.0f, 0.0f));
	__m128 left[4], right[4];
	__m128 kl[4], kr[4]; /* kl[j] = U[span + 1 − j], kr[j] = U[span + j], per frame */
	if (p == 3) {
		__m128 a0 = _mm_loadu_ps(U + span[0] - 2), a1 = _mm_loadu_ps(U + span[1] - 2);
		__m128 a2 = _mm_loadu_ps(U + span[2] - 2), a3 = _mm_loadu_ps(U + span[3] - 2);
		__m128 b0 = _mm_loadu_ps(U + span[0] + 1), b1 = _mm_loadu_ps(U + span[1] + 1);
		__m128 b2 = _mm_loadu_ps(U + span[2] + 1), b3 = _mm_loadu_ps(U + span[3] + 1);
		_MM_TRANSPOSE4_PS(a0, a1, a2, a3); /* U[span − 2], U[span − 1], U[span], U[span + 1] */
		_MM_TRANSPOSE4_PS(b0, b1, b2, b3); /* U[span + 1], U[span + 2], U[span + 3], U[span + 4] */
		kl[1] = a2;
		kl[2] = a1;
		kl[3] = a0;
		kr[1] = a3;
		kr[2] = b1;
		kr[3] = b2;
	} else if (p == 2) {
		__m128 a0 = _mm_loadu_ps(U + span[0] - 1), a1 = _mm_loadu_ps(U + span[1] - 1);
		__m128 a2 = _mm_loadu_ps(U + span[2] - 1), a3 = _mm_loadu_ps(U + span[3] - 1);
		_MM_TRANSPOSE4_PS(a0, a1, a2, a3); /* U[span − 1], U[span], U[span + 1], U[span + 2] */
		kl[1] = a1;
		kl[2] = a0;
		kr[1] = a2;
		kr[2] = a3;
	} else {
		for (unsigned j = 1; j <= p; j++) {
			kl[j] = _mm_set_ps(U[span[3] + 1 - j], U[span[2] + 1 - j], U[span[1] + 1 - j], U[span[0] + 1 - j]);
			kr[j] = _mm_set_ps(U[span[3] + j], U[span[2] + j], U[span[1] + j], U[span[0] + j]);
		}
	}
	N[0] = _mm_set1_ps(1.0f);
	HKS_UNROLL
	for (unsigned j = 1; j <= p; j++) {
		left[j] = _mm_sub_ps(u, kl[j]);
		right[j] = _mm_sub_ps(kr[j], u);
		__m128 saved = _mm_setzero_ps();
		HKS_UNROLL
		for (unsigned r = 0; r < j; r++) {
			__m128 temp = _mm_div_ps(N[r], _mm_add_ps(right[r + 1], left[j - r]));
			N[r] = _mm_add_ps(saved, _mm_mul_ps(right[r + 1], temp));
			saved = _mm_mul_ps(left[j - r], temp);
		}
		N[j] = saved;
	}
}

#define HKS_BCAST(v, f) _mm_shuffle_ps((v), (v), _MM_SHUFFLE(f, f, f, f))

/* wide: four lanes per point, points `lanes` (3 or 4) floats apart, stored
 * as four floats per row; else lane by lane through `dest`. */
HKS_INLINE void eval_fast_deg(unsigned p, unsigned lanes, int wide, const uint8_t *U, const float *Uf, unsigned n,
                              const float *cp, uint32_t L0, uint32_t count, float *out, size_t stride,
                              const unsigned *dest)
{
	uint16_t all[256];
	spans_of(U, n, p, L0, count, all);
	uint32_t i = 0;
	for (; i + 4 <= count; i += 4) {
		unsigned spans[4] = {all[i], all[i + 1], all[i + 2], all[i + 3]};
		__m128 N[4];
		basis4v(p, spans, L0 + i, Uf, N);
		float *o = out + (size_t)i * stride;
		if (wide) {
#define HKS_ROW(f, Bf)                                                                             \
	do {                                                                                           \
		const float *P = cp + (size_t)(spans[f] - p) * lanes;                                     \
		__m128 c = _mm_mul_ps(Bf(N[0]), _mm_loadu_ps(P));                                          \
		if (p >= 1)                                                                                \
			c = _mm_add_ps(c, _mm_mul_ps(Bf(N[1]), _mm_loadu_ps(P + lanes)));                      \
		if (p >= 2)                                                                                \
			c = _mm_add_ps(c, _mm_mul_ps(Bf(N[2]), _mm_loadu_ps(P + 2 * lanes)));                  \
		if (p >= 3)                                                                                \
			c = _mm_add_ps(c, _mm_mul_ps(Bf(N[3]), _mm_loadu_ps(P + 3 * lanes)));                  \
		_mm_storeu_ps(o + (f) * stride, c);                                                        \
	} while (0)
#define HKS_B0(v) HKS_BCAST(v, 0)
#define HKS_B1(v) HKS_BCAST(v, 1)
#define HKS_B2(v) HKS_BCAST(v, 2)
#define HKS_B3(v) HKS_BCAST(v, 3)
			HKS_ROW(0, HKS_B0);
			HKS_ROW(1, HKS_B1);
			HKS_ROW(2, HKS_B2);
			HKS_ROW(3, HKS_B3);
#undef HKS_B0
#undef HKS_B1
#undef HKS_B2
#undef HKS_B3
#undef HKS_ROW
		} else {
			float N4[4][4];
			HKS_UNROLL
			for (unsigned j = 0; j <= p; j++)
				_mm_storeu_ps(N4[j], N[j]);
			for (unsigned f = 0; f < 4; f++) {
				float Nf[4] = {0}; /* only Nf[0..p] are made and used */
				HKS_UNROLL
				for (unsigned j = 0; j <= p; j++)
					Nf[j] = N4[j][f];
				float v[4];
				combine(p, Nf, cp + (size_t)(spans[f] - p) * lanes, lanes, v);
				HKS_UNROLL
				for (unsigned l = 0; l < lanes; l++)
					o[f * stride + dest[l]] = v[l];
			}
		}
	}
	for (; i < count; i++) {
		uint32_t L = L0 + i;
		unsigned span = all[i];
		float N[4];
		basis(p, span, (float)L, Uf, N);
		const float *P = cp + (size_t)(span - p) * lanes;
		float *o = out + (size_t)i * stride;
		if (wide) {
			__m128 c = _mm_mul_ps(_mm_set1_ps(N[0]), _mm_loadu_ps(P));
			HKS_UNROLL
			for (unsigned j = 1; j <= p; j++)
				c = _mm_add_ps(c, _mm_mul_ps(_mm_set1_ps(N[j]), _mm_loadu_ps(P + j * lanes)));
			_mm_storeu_ps(o, c);
		} else {
			float v[4];
			combine(p, N, P, lanes, v);
			HKS_UNROLL
			for (unsigned l = 0; l < lanes; l++)
				o[dest[l]] = v[l];
		}
	}
}


/*
 * Degree 1 (most rotation parts of the game data). In frame mode the
 * parameter and the knots are whole numbers below 2^24, so the reference's
 * left = (f32)L − U[span] and right = U[span+1] − (f32)L are exact: the
 * integers L − U[span] and U[span+1] − L. The basis is therefore a function
 * of (left, len = left + right) alone, and basis() evaluated on the knots
 * {0, len} at u = left gives the same operands, hence the same bits. The
 * table for spans up to DEG1_LEN frames is computed once per call (on the
 * first degree-1 part) and looked up per frame.
 */
static void deg1_fill(sampler *sm, uint32_t len)
{
	float (*row)[8] = sm->deg1 + len * (len - 1) / 2;
	const float Ut[2] = {0.0f, (float)len};
	for (uint32_t left = 0; left < len; left++) {
		float N[4];
		basis(1, 0, (float)left, Ut, N);
		for (unsigned k = 0; k < 4; k++) {
			row[left][k] = N[0];
			row[left][4 + k] = N[1];
		}
	}
	sm->deg1_at[len] = (uint16_t)(1 + len * (len - 1) / 2);
}

HKS_INLINE const float *deg1_row(sampler *sm, uint32_t len)
{
	unsigned at = sm->deg1_at[len];
	if (!at) {
		deg1_fill(sm, len);
		at = sm->deg1_at[len];
	}
	return sm->deg1[at - 1];
}

/* One frame of span `span` with the reference basis (a span longer than the
 * table, or a frame past the last knot). */
HKS_INLINE void deg1_frame(unsigned lanes, int wide, unsigned span, uint32_t L, const float *Uf, const float *P,
                           float *o, const unsigned *dest)
{
	float N[4];
	basis(1, span, (float)L, Uf, N);
	if (wide) {
		__m128 c = _mm_mul_ps(_mm_set1_ps(N[0]), _mm_loadu_ps(P));
		c = _mm_add_ps(c, _mm_mul_ps(_mm_set1_ps(N[1]), _mm_loadu_ps(P + lanes)));
		_mm_storeu_ps(o, c);
	} else {
		float v[4];
		combine(1, N, P, lanes, v);
		HKS_UNROLL
		for (unsigned l = 0; l < lanes; l++)
			o[dest[l]] = v[l];
	}
}

/*
 * Span by span: the span the reference's advance selects for frame L is the
 * one with U[span] <= L < U[span + 1] (empty spans skipped), or n from the
 * last knot on. Span s combines P[s − 1] and P[s], so the second point of a
 * span is the first of the next and stays in a register; within a span the
 * basis comes from the table row of the span length.
 */
HKS_INLINE void eval_deg1(sampler *sm, unsigned lanes, int wide, const uint8_t *U, const float *Uf, unsigned n,
                          const float *cp, uint32_t L0, uint32_t count, float *out, size_t stride,
                          const unsigned *dest)
{
	uint32_t L = L0, end = L0 + count;
	unsigned span = find_span(U, n, 1, L0);
	const float *P = cp + (size_t)(span - 1) * lanes;
	float *o = out;
	uint32_t base = U[span];
	__m128 P1 = _mm_loadu_ps(P);
	for (;;) {
		uint32_t next = U[span + 1];
		uint32_t stop = next < end ? next : end;
		uint32_t len = next - base;
		__m128 P0 = P1;
		P1 = _mm_loadu_ps(P + lanes);
		if (L < stop) {
			if (len <= DEG1_LEN) {
				const float *row = deg1_row(sm, len) + (size_t)(L - base) * 8;
				if (wide) {
					do {
						__m128 c = _mm_mul_ps(_mm_loadu_ps(row), P0);
						c = _mm_add_ps(c, _mm_mul_ps(_mm_loadu_ps(row + 4), P1));
						_mm_storeu_ps(o, c);
						row += 8;
						o += stride;
					} while (++L < stop);
				} else {
					do {
						float N[4] = {row[0], row[4], 0.0f, 0.0f};
						float v[4];
						combine(1, N, P, lanes, v);
						HKS_UNROLL
						for (unsigned l = 0; l < lanes; l++)
							o[dest[l]] = v[l];
						row += 8;
						o += stride;
					} while (++L < stop);
				}
			} else {
				do {
					deg1_frame(lanes, wide, span, L, Uf, P, o, dest);
					o += stride;
				} while (++L < stop);
			}
		}
		if (L >= end)
			return;
		if (span == n) /* past the last knot: the last span, frame by frame */
			break;
		span++;
		P += lanes;
		base = next;
	}
	for (; L < end; L++, o += stride)
		deg1_frame(lanes, wide, span, L, Uf, P, o, dest);
}

/*
 * eval_deg1 for four lanes per point (wide), with as little state per span as
 * possible: the frames before the last knot go span by span (a span's two
 * points and its table row in registers, an empty span skipped by one
 * compare), the frames from the last knot on (non-conforming data only) one
 * by one with the reference basis of span n.
 */
HKS_INLINE void eval_deg1_wide(sampler *sm, unsigned lanes, const uint8_t *U, const float *Uf, unsigned n,
                               const float *cp, uint32_t L0, uint32_t count, float *out, size_t stride)
{
	uint32_t L = L0, end = L0 + count;
	uint32_t lastk = U[n + 1];
	uint32_t end_in = end < lastk ? end : lastk;
	unsigned span = find_span(U, n, 1, L0);
	const uint8_t *k = U + span;
	const float *P = cp + (size_t)(span - 1) * lanes;
	__m128 P1 = _mm_loadu_ps(P);
	while (L < end_in) {
		uint32_t base = k[0], next = k[1];
		__m128 P0 = P1;
		P1 = _mm_loadu_ps(P + lanes);
		k++;
		P += lanes;
		if (L >= next)
			continue; /* an empty span, or one that ends before L */
		uint32_t len = next - base;
		uint32_t stop = next < end_in ? next : end_in;
		if (len > DEG1_LEN) {
			unsigned s = (unsigned)(k - U) - 1;
			do {
				deg1_frame(lanes, 1, s, L, Uf, P - lanes, out, NULL);
				out += stride;
			} while (++L < stop);
			continue;
		}
		const float *row = deg1_row(sm, len) + (size_t)(L - base) * 8;
		const float *row_end = row + (size_t)(stop - L) * 8;
		L = stop;
		do {
			__m128 c = _mm_mul_ps(_mm_loadu_ps(row), P0);
			c = _mm_add_ps(c, _mm_mul_ps(_mm_loadu_ps(row + 4), P1));
			_mm_storeu_ps(out, c);
			row += 8;
			out += stride;
		} while (row != row_end);
	}
	for (; L < end; L++, out += stride)
		deg1_frame(lanes, 1, n, L, Uf, cp + (size_t)(n - 1) * lanes, out, NULL);
}

static void eval_deg1_wide3(sampler *sm, const uint8_t *U, const float *Uf, unsigned n, const float *cp, uint32_t L0,
                            uint32_t count, float *out, size_t stride)
{
	eval_deg1_wide(sm, 3, U, Uf, n, cp, L0, count, out, stride);
}

static void eval_deg1_wide4(sampler *sm, const uint8_t *U, const float *Uf, unsigned n, const float *cp, uint32_t L0,
                            uint32_t count, float *out, size_t stride)
{
	eval_deg1_wide(sm, 4, U, Uf, n, cp, L0, count, out, stride);
}

/* Dispatch on constant degree, lane count and width (the loops unroll). */
static void eval_fast(sampler *sm, unsigned p, unsigned lanes, int wide, const uint8_t *U, const float *Uf,
                      unsigned n, const float *cp, uint32_t L0, uint32_t count, float *out, size_t stride,
                      const unsigned *dest)
{
	unsigned key = (p * 8 + lanes) * 2 + (wide ? 1 : 0);
#define HKS_FAST_CASE(P, LN, W)                                                            \
	case ((P) * 8 + (LN)) * 2 + (W):                                                      \
		eval_fast_deg(P, LN, W, U, Uf, n, cp, L0, count, out, stride, dest);              \
		return;
#define HKS_DEG1_CASE(LN, W)                                                              \
	case (8 + (LN)) * 2 + (W):                                                            \
		eval_deg1(sm, LN, W, U, Uf, n, cp, L0, count, out, stride, dest);                 \
		return;
	switch (key) {
		HKS_DEG1_CASE(1, 0) HKS_DEG1_CASE(2, 0) HKS_DEG1_CASE(3, 0)
	case (8 + 3) * 2 + 1: eval_deg1_wide3(sm, U, Uf, n, cp, L0, count, out, stride); return;
	case (8 + 4) * 2 + 1: eval_deg1_wide4(sm, U, Uf, n, cp, L0, count, out, stride); return;
		HKS_FAST_CASE(2, 1, 0) HKS_FAST_CASE(2, 2, 0) HKS_FAST_CASE(2, 3, 0) HKS_FAST_CASE(2, 3, 1) HKS_FAST_CASE(2, 4, 1)
		HKS_FAST_CASE(3, 1, 0) HKS_FAST_CASE(3, 2, 0) HKS_FAST_CASE(3, 3, 0) HKS_FAST_CASE(3, 3, 1) HKS_FAST_CASE(3, 4, 1)
	default:
		/* four lanes not in order (never: rotations are whole) */
		eval_frames(p, lanes, U, Uf, n, cp, L0, count, out, stride, dest);
		return;
	}
#undef HKS_FAST_CASE
#undef HKS_DEG1_CASE
}
#endif

#if defined(HKS_HAVE_AVX2)
/*
 * Frame mode, AVX2 (docs/DECODE.md "Evaluation paths"), four-lane parts
 * (rotations; translations and scales into the track buffer) of every
 * degree. Per lane the operations of the reference in its order, as in the
 * SSE2 path, each rounded on its own (AVX2 without FMA; -ffp-contract=off):
 *  - the span of every frame from a running maximum over the knots
 *    (spans_scan_avx2, no data-dependent branch);
 *  - the basis of eight consecutive frames at once, one lane per frame, the
 *    knots of each frame's span gathered (degree 1 too: the per-span table
 *    of the SSE2 path is replaced by the division, which is what the table
 *    holds);
 *  - the combine of two frames (f and f + 4) per register: the weights of
 *    frame f broadcast in the low half, of frame f + 4 in the high half, the
 *    two frames' control points loaded into the halves.
 */
#define HKS_AVX2_INLINE static inline __attribute__((always_inline, target("avx2")))

/* The span of every frame L0 .. L0 + count − 1 (the reference's, see
 * find_span): for valid knots the largest s in p..n with U[s] <= L. Each
 * knot index k in p + 1 .. n is written at the first frame its knot covers
 * (knots before L0 at L0, those at or past the end in the unused slot
 * `count`; plain stores in increasing k, so each slot keeps its largest k),
 * then a running maximum from p, sixteen frames per register. spans holds
 * count rounded up to 16 entries; those past count repeat the last span. */
HKS_AVX2_INLINE void spans_scan_avx2(const uint8_t *U, unsigned n, unsigned p, uint32_t L0, uint32_t count,
                                     uint16_t *spans)
{
	uint16_t last[272];
	for (uint32_t c = 0; c <= count; c += 16)
		_mm256_storeu_si256((__m256i *)(void *)(last + c), _mm256_setzero_si256());
	uint32_t end = L0 + count;
	if (L0 == 0 && U[n] <= end) {
		/* the whole block (the usual call): no knot needs clamping (U[k] <= U[n]) */
		for (unsigned k = p + 1; k <= n; k++)
			last[U[k]] = (uint16_t)k;
	} else
		for (unsigned k = p + 1; k <= n; k++) {
			uint32_t x = U[k];
			x = x < L0 ? L0 : x;
			x = x > end ? end : x;
			last[x - L0] = (uint16_t)k;
		}
	/* word 7 of each 128-bit half to all eight words of that half */
	const __m256i w7 = _mm256_setr_epi8(14, 15, 14, 15, 14, 15, 14, 15, 14, 15, 14, 15, 14, 15, 14, 15, 14, 15, 14,
	                                    15, 14, 15, 14, 15, 14, 15, 14, 15, 14, 15, 14, 15);
	__m256i carry = _mm256_set1_epi16((short)p);
	for (uint32_t c = 0; c < count; c += 16) {
		__m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(last + c));
		x = _mm256_max_epu16(x, _mm256_slli_si256(x, 2));
		x = _mm256_max_epu16(x, _mm256_slli_si256(x, 4));
		x = _mm256_max_epu16(x, _mm256_slli_si256(x, 8)); /* running maxima within each half */
		__m256i lo = _mm256_permute2x128_si256(x, x, 0x08); /* (0, low half) */
		x = _mm256_max_epu16(x, _mm256_shuffle_epi8(lo, w7));
		x = _mm256_max_epu16(x, carry);
		_mm256_storeu_si256((__m256i *)(void *)(spans + c), x);
		carry = _mm256_shuffle_epi8(_mm256_permute2x128_si256(x, x, 0x11), w7);
	}
}

HKS_AVX2_INLINE void eval_avx2_deg(unsigned p, unsigned lanes, int comp, const float *Uf, const float *cp,
                                   const uint16_t *all, uint32_t L0, uint32_t count, float *out, size_t stride,
                                   const float *compose)
{
	/* comp (rotations, sm->compose): each row written whole, from 3 floats
	 * before the rotation: (t0 t1 t2 q0 q1 q2 q3 s0) in one store, (s1 s2)
	 * in another; copies and shuffles, no arithmetic */
	__m256 krow = _mm256_setzero_ps();
	__m128 ktail = _mm_setzero_ps();
	__m256i plo = _mm256_setzero_si256(), phi = _mm256_setzero_si256();
	if (comp) {
		krow = _mm256_loadu_ps(compose);
		ktail = _mm_castpd_ps(_mm_load_sd((const double *)(const void *)(compose + 8)));
		plo = _mm256_setr_epi32(0, 0, 0, 0, 1, 2, 3, 0);
		phi = _mm256_setr_epi32(4, 4, 4, 4, 5, 6, 7, 4);
	}
	/* groups of eight frames; in the last group the frames past count have
	 * the last span (spans_scan_avx2), so every read stays inside the knots
	 * and points, and only the frames below count are stored */
	for (uint32_t i = 0; i < count; i += 8) {
		const uint32_t rem = count - i;
		const __m256i sp = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(all + i)));
		const __m256 u = _mm256_add_ps(_mm256_set1_ps((float)(L0 + i)),
		                               _mm256_setr_ps(0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f));
		__m256 N[4], left[4], right[4];
		N[0] = _mm256_set1_ps(1.0f);
		HKS_UNROLL
		for (unsigned j = 1; j <= p; j++) {
			/* U[span + 1 − j] and U[span + j]: indices span − 2 .. span + 3, inside the knots */
			__m256 kl = _mm256_i32gather_ps(Uf, _mm256_sub_epi32(sp, _mm256_set1_epi32((int)j - 1)), 4);
			__m256 kr = _mm256_i32gather_ps(Uf, _mm256_add_epi32(sp, _mm256_set1_epi32((int)j)), 4);
			left[j] = _mm256_sub_ps(u, kl);
			right[j] = _mm256_sub_ps(kr, u);
			__m256 saved = _mm256_setzero_ps();
			HKS_UNROLL
			for (unsigned r = 0; r < j; r++) {
				__m256 temp = _mm256_div_ps(N[r], _mm256_add_ps(right[r + 1], left[j - r]));
				N[r] = _mm256_add_ps(saved, _mm256_mul_ps(right[r + 1], temp));
				saved = _mm256_mul_ps(left[j - r], temp);
			}
			N[j] = saved;
		}
		float *o = out + (size_t)i * stride;
#define HKS_LOAD2(a, b) _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(a)), _mm_loadu_ps(b), 1)
#define HKS_PAIR(f)                                                                                         \
	do {                                                                                                    \
		const float *Pa = cp + (size_t)(all[i + (f)] - p) * lanes;                                          \
		const float *Pb = cp + (size_t)(all[i + (f) + 4] - p) * lanes;                                      \
		__m256 c = _mm256_mul_ps(_mm256_shuffle_ps(N[0], N[0], (f) * 0x55), HKS_LOAD2(Pa, Pb));             \
		c = _mm256_add_ps(c, _mm256_mul_ps(_mm256_shuffle_ps(N[1], N[1], (f) * 0x55),                       \
		                                   HKS_LOAD2(Pa + lanes, Pb + lanes)));                             \
		if (p >= 2)                                                                                         \
			c = _mm256_add_ps(c, _mm256_mul_ps(_mm256_shuffle_ps(N[2], N[2], (f) * 0x55),                   \
			                                   HKS_LOAD2(Pa + 2 * lanes, Pb + 2 * lanes)));                 \
		if (p >= 3)                                                                                         \
			c = _mm256_add_ps(c, _mm256_mul_ps(_mm256_shuffle_ps(N[3], N[3], (f) * 0x55),                   \
			                                   HKS_LOAD2(Pa + 3 * lanes, Pb + 3 * lanes)));                 \
		if (comp) {                                                                                         \
			if ((f) < rem) {                                                                                \
				float *r0 = o + (size_t)(f) * stride - 3;                                                   \
				_mm256_storeu_ps(r0, _mm256_blend_ps(_mm256_permutevar8x32_ps(c, plo), krow, 0x87));        \
				_mm_storel_pi((__m64 *)(void *)(r0 + 8), ktail);                                           \
			}                                                                                               \
			if ((f) + 4 < rem) {                                                                            \
				float *r1 = o + (size_t)((f) + 4) * stride - 3;                                             \
				_mm256_storeu_ps(r1, _mm256_blend_ps(_mm256_permutevar8x32_ps(c, phi), krow, 0x87));        \
				_mm_storel_pi((__m64 *)(void *)(r1 + 8), ktail);                                           \
			}                                                                                               \
		} else {                                                                                            \
			if ((f) < rem)                                                                                  \
				_mm_storeu_ps(o + (size_t)(f) * stride, _mm256_castps256_ps128(c));                        \
			if ((f) + 4 < rem)                                                                              \
				_mm_storeu_ps(o + (size_t)((f) + 4) * stride, _mm256_extractf128_ps(c, 1));                \
		}                                                                                                   \
	} while (0)
		HKS_PAIR(0);
		HKS_PAIR(1);
		HKS_PAIR(2);
		HKS_PAIR(3);
#undef HKS_PAIR
#undef HKS_LOAD2
	}
}

/* Four-lane parts (wide, see eval_fast_deg): lanes 3 or 4, degree 1..3. */
HKS_TARGET_AVX2 static void eval_avx2(sampler *sm, unsigned p, unsigned lanes, const uint8_t *U, const float *Uf,
                                      unsigned n, const float *cp, uint32_t L0, uint32_t count, float *out,
                                      size_t stride)
{
	uint16_t all[256];
	spans_scan_avx2(U, n, p, L0, count, all);
	const float *comp = lanes == 4 ? sm->compose : NULL;
	switch ((p * 8 + lanes) * 2 + (comp ? 1 : 0)) {
#define HKS_AVX2_CASE(P, LN, C)                                                                                \
	case ((P) * 8 + (LN)) * 2 + (C): eval_avx2_deg(P, LN, C, Uf, cp, all, L0, count, out, stride, comp); return;
		HKS_AVX2_CASE(1, 3, 0) HKS_AVX2_CASE(1, 4, 0) HKS_AVX2_CASE(1, 4, 1)
		HKS_AVX2_CASE(2, 3, 0) HKS_AVX2_CASE(2, 4, 0) HKS_AVX2_CASE(2, 4, 1)
		HKS_AVX2_CASE(3, 3, 0) HKS_AVX2_CASE(3, 4, 0) HKS_AVX2_CASE(3, 4, 1)
#undef HKS_AVX2_CASE
	default: return; /* unreachable: degree checked, wide parts have 3 or 4 lanes */
	}
}

/* sample_block's row copies (copies only): the rows of the tracks without
 * any spline, frame by frame, each run of consecutive such tracks (crows,
 * `len` floats) copied as one contiguous span of 10·k floats with 32-byte
 * stores, the last one overlapping the one before where 10·k is not a
 * multiple of 8 (it rewrites the same values); or the first seven floats of
 * each track-buffer row (translation, rotation) with the constant scale s,
 * one 32-byte and one 8-byte store per row. */
HKS_TARGET_AVX2 static void rows_const_avx2(float *out, const float *crows, size_t len, uint32_t rows,
                                            size_t stride)
{
	const float *end = crows + len;
	for (uint32_t i = 0; i < rows; i++, out += stride) {
		for (const float *c = crows; c < end;) {
			uint32_t t, k;
			memcpy(&t, c, sizeof(t));
			memcpy(&k, c + 1, sizeof(k));
			c += 2;
			float *o = out + (size_t)t * HKS_TRACK_SAMPLE_FLOATS;
			size_t n = (size_t)k * HKS_TRACK_SAMPLE_FLOATS, j = 0; /* n >= 10 */
			for (; j + 8 <= n; j += 8)
				_mm256_storeu_ps(o + j, _mm256_loadu_ps(c + j));
			if (j < n)
				_mm256_storeu_ps(o + n - 8, _mm256_loadu_ps(c + n - 8));
			c += n;
		}
	}
}

HKS_TARGET_AVX2 static void rows_compose_avx2(float *o, const float *buf, uint32_t rows, size_t stride,
                                              const float s[3])
{
	const __m256 s0 = _mm256_set1_ps(s[0]);
	const __m128 s12 = _mm_setr_ps(s[1], s[2], 0.0f, 0.0f);
	for (uint32_t i = 0; i < rows; i++, o += stride, buf += ROW_FLOATS) {
		_mm256_storeu_ps(o, _mm256_blend_ps(_mm256_loadu_ps(buf), s0, 0x80));
		_mm_storel_pi((__m64 *)(void *)(o + 8), s12);
	}
}
#endif

/* A checked spline part with its knots loaded and control points in sm->cp. */
static void run_spline_fast(sampler *sm, const hks_stored_part *p, unsigned lanes, int wide, const param *pr,
                            float *out, size_t stride, const unsigned *dest)
{
#if defined(HKS_HAVE_AVX2)
	if (!pr->time_mode && wide && sm->path == HKS_SAMPLE_PATH_AVX2) {
		eval_avx2(sm, p->degree, lanes, p->knots, sm->knots, (unsigned)p->num_control_points - 1, sm->cp, pr->L0,
		          pr->count, out, stride);
		return;
	}
#endif
#if defined(__SSE2__)
	if (!pr->time_mode && FAST(sm)) {
		eval_fast(sm, p->degree, lanes, wide, p->knots, sm->knots, (unsigned)p->num_control_points - 1, sm->cp, pr->L0,
		          pr->count, out, stride, dest);
		return;
	}
#endif
	(void)wide;
	run_spline(sm, p, lanes, pr, out, stride, dest);
}

/* Time mode, four in-order lanes: the span and basis of eval_one, the combine
 * four lanes at once. */
static void eval_one4(const sampler *sm, const hks_stored_part *p, const param *pr, float *out)
{
	unsigned deg = p->degree;
	unsigned span = sm->tspan; /* needed_points found it: find_span(knots, n, deg, qtime) */
	float N[4];
	basis(deg, span, pr->u, sm->knots, N);
	const float *P = sm->cp + (size_t)(span - deg) * 4;
#if defined(__SSE2__)
	if (FAST(sm)) {
		__m128 c = _mm_mul_ps(_mm_set1_ps(N[0]), _mm_loadu_ps(P));
		for (unsigned j = 1; j <= deg; j++)
			c = _mm_add_ps(c, _mm_mul_ps(_mm_set1_ps(N[j]), _mm_loadu_ps(P + j * 4)));
		_mm_storeu_ps(out, c);
		return;
	}
#endif
	combine(deg, N, P, 4, out);
}

int hks_sample_path_resolve(int requested)
{
	int r = requested;
	if (r == HKS_SAMPLE_PATH_AUTO) {
		const char *e = getenv("HKS_SAMPLE_PATH");
		r = HKS_SAMPLE_PATH_AVX2; /* the fastest the build and the CPU have */
		if (e && !strcmp(e, "reference"))
			r = HKS_SAMPLE_PATH_REFERENCE;
		else if (e && !strcmp(e, "sse2"))
			r = HKS_SAMPLE_PATH_SSE2;
	}
	if (r != HKS_SAMPLE_PATH_REFERENCE && r != HKS_SAMPLE_PATH_SSE2)
		r = HKS_SAMPLE_PATH_AVX2;
#if defined(HKS_HAVE_AVX2)
	if (r == HKS_SAMPLE_PATH_AVX2 && !hks_cpu_avx2())
		r = HKS_SAMPLE_PATH_SSE2;
#else
	if (r == HKS_SAMPLE_PATH_AVX2)
		r = HKS_SAMPLE_PATH_SSE2;
#endif
#if !defined(__SSE2__)
	r = HKS_SAMPLE_PATH_REFERENCE; /* portable builds: the reference is the only path */
#endif
	return r;
}

const char *hks_sample_path_name(int path)
{
	switch (path) {
	case HKS_SAMPLE_PATH_REFERENCE: return "reference";
	case HKS_SAMPLE_PATH_SSE2: return "sse2";
	case HKS_SAMPLE_PATH_AVX2: return "avx2";
	default: return "auto";
	}
}

/* The rows of a translation or scale part without spline lanes: each lane
 * its static value or the neutral one (sample_vector's fill). */
static void vector_fill(const hks_stored_part *p, float neutral, float fill[4])
{
	for (unsigned l = 0; l < LANES_VECTOR; l++)
		fill[l] = ((p->flags >> l) & 1) ? p->static_value[l] : neutral;
	fill[3] = 0.0f;
}

/*
 * Translation, scale or float part (FORMAT.md §2.4, §4.6): `nlanes` output
 * lanes at out[0..nlanes) of each row; static first, then spline, else
 * neutral.
 */
static hks_result sample_vector(sampler *sm, uint32_t b, int32_t track, hks_part part, const hks_stored_part *p,
                                unsigned nlanes, float neutral, const param *pr, float *out, size_t stride)
{
	uint8_t m = p->flags;
	uint32_t rows = frames_of(pr);
	/* Lanes not evaluated from the spline: static value or neutral, written
	 * for every row in one pass (spline lanes are overwritten below). */
	float fill[3];
	unsigned evaluated = 0;
	for (unsigned l = 0; l < nlanes; l++) {
		int is_static = (m >> l) & 1;
		int is_spline = (m >> (4 + l)) & 1;
		fill[l] = is_static ? p->static_value[l] : neutral;
		if (is_spline && !is_static)
			evaluated++;
	}
	/* fast path, rows of the track buffer: four floats per row (the fourth
	 * lands in a float written later or in the padding, see ROW_FLOATS) */
	int wide = FAST(sm) && nlanes == 3 && stride == ROW_FLOATS;
	/* AVX2, one or two spline lanes: every lane of every row is written by
	 * the evaluation below and the other lanes are then set to their fill
	 * values, so the pass here would be overwritten */
	int narrow = 0;
#if defined(HKS_HAVE_AVX2)
	narrow = wide && evaluated > 0 && evaluated < LANES_VECTOR && !pr->time_mode && sm->path == HKS_SAMPLE_PATH_AVX2;
#endif
	if (evaluated < nlanes && !narrow) {
#if defined(__SSE2__)
		if (wide) {
			__m128 v = _mm_set_ps(0.0f, fill[2], fill[1], fill[0]);
			for (uint32_t i = 0; i < rows; i++)
				_mm_storeu_ps(out + i * stride, v);
		} else
#endif
		if (nlanes == 3)
			for (uint32_t i = 0; i < rows; i++) {
				float *o = out + i * stride;
				o[0] = fill[0];
				o[1] = fill[1];
				o[2] = fill[2];
			}
		else
			for (uint32_t i = 0; i < rows; i++)
				for (unsigned l = 0; l < nlanes; l++)
					out[i * stride + l] = fill[l];
	}
	if (!(m & 0xF0))
		return HKS_OK;
	/* Spline: control points hold, per point, the spline lanes in x, y, z
	 * order; a lane flagged both static and spline (never in data, B5) is
	 * static and has no bounds or integers, as the walk reads it (§2.4
	 * "static first"). */
	unsigned slot_lane[3], nslots = 0;
	for (unsigned l = 0; l < nlanes; l++)
		if (((m >> (4 + l)) & 1) && !((m >> l) & 1))
			slot_lane[nslots++] = l;
	if (nslots != p->spline_lanes)
		return fail_part(sm, b, track, part, p, "spline part with %u stored lanes, mask says %u", p->spline_lanes,
		                 nslots);
	if (nslots == 0)
		return HKS_OK; /* a spline header without spline lanes: nothing to evaluate */
	if (p->quantization > 1 || !p->control_points)
		return fail_part(sm, b, track, part, p, "scalar quantization %u invalid or no control points", p->quantization);
	if (!sm->validated)
		HKS_TRY(check_spline(sm, b, track, part, p));
	size_t ncp = p->num_control_points, first, end;
	needed_points(sm, p, pr, &first, &end);
	/* 4 floats of padding: the wide combine reads one float past the last point */
	HKS_TRY(reserve(sm, &sm->cp, &sm->cp_cap, ncp * LANES_VECTOR + 4));
	HKS_TRY(load_knots(sm, p, pr));
	/* FORMAT.md §3.1, each control point dequantized once: ((f32)v·C)·d + min
	 * with d = max − min (the same operations per point as per sample). */
	const float scale = hks_f32_from_bits(p->quantization ? 0x37800080u : 0x3B808081u);
#if defined(HKS_HAVE_AVX2)
	if (narrow) {
		/* One or two spline lanes, AVX2: the points laid out as x, y, z with
		 * the spline lanes in their places and 0 elsewhere, evaluated as three
		 * lanes (each lane's operations are its own: the others do not change
		 * it), then the other lanes written again with their fill values. */
		memset(sm->cp, 0, (ncp * LANES_VECTOR + 4) * sizeof(float));
		for (unsigned k = 0; k < nslots; k++) {
			unsigned l = slot_lane[k];
			float mn = p->min[l], d = p->max[l] - p->min[l];
			const uint16_t *src = p->control_points + k;
			float *dst = sm->cp + l;
			for (size_t i = 0; i < ncp; i++)
				dst[i * LANES_VECTOR] = (((float)src[i * nslots] * scale) * d) + mn; /* hks_dequantize_scalar */
		}
		eval_avx2(sm, p->degree, LANES_VECTOR, p->knots, sm->knots, (unsigned)ncp - 1, sm->cp, pr->L0, pr->count, out,
		          stride);
		/* the other lanes (and the fourth, which is left as it is) set per
		 * row by bit masks: copies, every bit kept */
		uint32_t keep_bits[4] = {0, 0, 0, 0xFFFFFFFFu};
		for (unsigned k = 0; k < nslots; k++)
			keep_bits[slot_lane[k]] = 0xFFFFFFFFu;
		__m128 keep;
		memcpy(&keep, keep_bits, sizeof(keep));
		const __m128 fv = _mm_andnot_ps(keep, _mm_setr_ps(fill[0], fill[1], fill[2], 0.0f));
		for (uint32_t i = 0; i < rows; i++) {
			float *o = out + (size_t)i * stride;
			_mm_storeu_ps(o, _mm_or_ps(_mm_and_ps(keep, _mm_loadu_ps(o)), fv));
		}
		return HKS_OK;
	}
#endif
	memset(sm->cp + ncp * nslots, 0, 4 * sizeof(float));
	for (unsigned k = 0; k < nslots; k++) {
		unsigned l = slot_lane[k];
		float mn = p->min[l], d = p->max[l] - p->min[l];
		const uint16_t *src = p->control_points + k;
		float *dst = sm->cp + k;
		for (size_t i = first; i < end; i++)
			dst[i * nslots] = (((float)src[i * nslots] * scale) * d) + mn; /* hks_dequantize_scalar */
	}
	run_spline_fast(sm, p, nslots, wide && nslots == 3, pr, out, stride, slot_lane);
	return HKS_OK;
}

/* Rotation part (FORMAT.md §2.5, §4.6): read whole; spline, static or identity. */
static hks_result sample_rotation(sampler *sm, uint32_t b, int32_t track, const hks_stored_part *p, const param *pr,
                                  float *out, size_t stride)
{
	uint8_t m = p->flags;
	uint32_t rows = frames_of(pr);
	unsigned sel = p->quantization;
	if (!(m & 0xFF)) {
		for (uint32_t i = 0; i < rows; i++) {
			float *o = out + i * stride;
			o[0] = o[1] = o[2] = 0.0f;
			o[3] = hks_f32_from_bits(ONE_BITS);
		}
		return HKS_OK;
	}
	if (sel > HKS_ROT_UNCOMPRESSED || !p->packed)
		return fail_part(sm, b, track, HKS_PART_ROTATION, p, "rotation selector %u invalid or no data", sel);
	if (!(m & 0xF0)) {
		float q[4];
		hks_unpack_quaternion(sel, p->packed, q);
		for (uint32_t i = 0; i < rows; i++)
			memcpy(out + i * stride, q, sizeof(q));
		return HKS_OK;
	}
	if (!sm->validated)
		HKS_TRY(check_spline(sm, b, track, HKS_PART_ROTATION, p));
	size_t ncp = p->num_control_points, first, end;
	needed_points(sm, p, pr, &first, &end);
	HKS_TRY(reserve(sm, &sm->cp, &sm->cp_cap, ncp * 4));
	HKS_TRY(load_knots(sm, p, pr));
#if defined(HKS_HAVE_AVX2)
	if (sel == HKS_ROT_THREECOMP40 && sm->path == HKS_SAMPLE_PATH_AVX2)
		hks_unpack_threecomp40_avx2(p->packed + first * 5, end - first, sm->cp + first * 4);
	else
#endif
		hks_unpack_quaternions(sel, p->packed + first * hks_rotation_size(sel), end - first, sm->cp + first * 4);
	static const unsigned dest[4] = {0, 1, 2, 3};
	if (pr->time_mode && FAST(sm))
		eval_one4(sm, p, pr, out);
	else
		run_spline_fast(sm, p, 4, 1, pr, out, stride, dest);
	return HKS_OK;
}

/* Optional unit length (not Havok's output, FORMAT.md §4.6): q / |q| when
 * |q| is positive and finite, else unchanged. */
static void normalize_rows(float *out, uint32_t rows, size_t stride)
{
	for (uint32_t i = 0; i < rows; i++) {
		float *q = out + i * stride;
		float len2 = (((q[0] * q[0]) + (q[1] * q[1])) + (q[2] * q[2])) + (q[3] * q[3]);
		if (len2 > 0.0f && isfinite(len2)) {
			float len = sqrtf(len2);
			for (unsigned k = 0; k < 4; k++)
				q[k] = q[k] / len;
		}
	}
}

/*
 * Sample every track of block b at the rows of `pr`. transforms: row i of
 * track t at transforms + i·T·10 + t·10; floats: row i of float track f at
 * floats + i·F + f.
 */
static hks_result sample_block(sampler *sm, uint32_t b, const param *pr, float *transforms, float *floats)
{
	const hks_stored_animation *s = sm->s;
	const hks_stored_block *blk = &s->blocks[b];
	size_t T = (size_t)s->num_transform_tracks, F = (size_t)s->num_float_tracks;
	size_t tstride = T * HKS_TRACK_SAMPLE_FLOATS;
	uint32_t rows = frames_of(pr);
	/* Each track is evaluated into a small contiguous buffer (rows × 12
	 * floats, at most 256 rows: it stays in L1) and then copied to its
	 * strided place in the output once, instead of three strided passes over
	 * the whole output. */
	float *tmp = sm->track_rows;
	size_t nconst = 0;   /* AVX2 path: floats kept in sm->crows */
	float *run = NULL;   /* the header of the last run in sm->crows */
	size_t run_end = 0;  /* the track after that run */
#if defined(HKS_HAVE_AVX2)
	if (sm->path == HKS_SAMPLE_PATH_AVX2)
		HKS_TRY(reserve(sm, &sm->crows, &sm->crows_cap, T * ROW_FLOATS));
#endif
	for (size_t t = 0; t < T; t++) {
		const hks_stored_track *tr = &blk->tracks[t];
#if defined(__SSE2__)
		/* Fast path, scale without spline lanes (most tracks): the scale
		 * and a translation without spline lanes never go through the track
		 * buffer. Without any spline, one row is evaluated and copied; with
		 * a constant translation the rotation is evaluated straight into
		 * the output rows; else each output row is composed from the
		 * constant scale and the buffer's rows. Copies only, no arithmetic:
		 * every bit is kept. */
		if (FAST(sm) && !(tr->part[2].flags & 0xF0)) {
			int tconst = !(tr->part[0].flags & 0xF0);
			float ft[4], fs[4];
			vector_fill(&tr->part[0], 0.0f, ft);
			vector_fill(&tr->part[2], hks_f32_from_bits(ONE_BITS), fs);
			float *o = transforms + t * HKS_TRACK_SAMPLE_FLOATS;
			if (tconst && !(tr->part[1].flags & 0xF0)) {
				/* no spline at all: one row, evaluated once (the rotation
				 * as sample_rotation writes it, its checks included), copied
				 * to every row */
				param one = *pr;
				one.count = 1;
				HKS_TRY(sample_rotation(sm, b, (int32_t)t, &tr->part[1], &one, tmp + 3, ROW_FLOATS));
				if (sm->normalize)
					normalize_rows(tmp + 3, 1, ROW_FLOATS);
				memcpy(tmp, ft, 3 * sizeof(float));
				memcpy(tmp + 7, fs, 3 * sizeof(float));
#if defined(HKS_HAVE_AVX2)
				if (sm->path == HKS_SAMPLE_PATH_AVX2) {
					/* kept for the frame-by-frame pass after the track loop:
					 * appended to the last run if it ends here, else a new run */
					uint32_t k = 1;
					if (run && run_end == t) {
						memcpy(&k, run + 1, sizeof(k));
						k++;
					} else {
						run = sm->crows + nconst;
						uint32_t ti = (uint32_t)t;
						memcpy(run, &ti, sizeof(ti));
						nconst += 2;
					}
					memcpy(run + 1, &k, sizeof(k));
					run_end = t + 1;
					memcpy(sm->crows + nconst, tmp, HKS_TRACK_SAMPLE_FLOATS * sizeof(float));
					nconst += HKS_TRACK_SAMPLE_FLOATS;
					continue;
				}
#endif
				const __m128 r0 = _mm_loadu_ps(tmp), r1 = _mm_loadu_ps(tmp + 4);
				const __m128 r2 = _mm_castpd_ps(_mm_load_sd((const double *)(const void *)(tmp + 8)));
				for (uint32_t i = 0; i < rows; i++, o += tstride) {
					_mm_storeu_ps(o, r0);
					_mm_storeu_ps(o + 4, r1);
					_mm_storel_pi((__m64 *)(void *)(o + 8), r2);
				}
				continue;
			}
			if (tconst) {
				/* the rotation straight into the output rows, after the
				 * constant lanes: the four-float stores at o and o + 6 also
				 * cover o[3] and o[6], which the rotation then rewrites */
#if defined(HKS_HAVE_AVX2)
				if (sm->path == HKS_SAMPLE_PATH_AVX2 && !pr->time_mode) {
					/* the rotation kernel writes the whole rows (eval_avx2_deg) */
					const float k[10] = {ft[0], ft[1], ft[2], 0.0f, 0.0f, 0.0f, 0.0f, fs[0], fs[1], fs[2]};
					sm->compose = k;
					hks_result rr = sample_rotation(sm, b, (int32_t)t, &tr->part[1], pr, o + 3, tstride);
					sm->compose = NULL;
					HKS_TRY(rr);
					if (sm->normalize)
						normalize_rows(o + 3, rows, tstride);
					continue;
				}
#endif
				float s6[4] = {0.0f, fs[0], fs[1], fs[2]};
				const __m128 vt = _mm_loadu_ps(ft), vs = _mm_loadu_ps(s6);
				float *c = o;
				for (uint32_t i = 0; i < rows; i++, c += tstride) {
					_mm_storeu_ps(c, vt);
					_mm_storeu_ps(c + 6, vs);
				}
				HKS_TRY(sample_rotation(sm, b, (int32_t)t, &tr->part[1], pr, o + 3, tstride));
				if (sm->normalize)
					normalize_rows(o + 3, rows, tstride);
				continue;
			}
			HKS_TRY(sample_vector(sm, b, (int32_t)t, HKS_PART_TRANSLATION, &tr->part[0], LANES_VECTOR, 0.0f, pr, tmp,
			                      ROW_FLOATS));
			HKS_TRY(sample_rotation(sm, b, (int32_t)t, &tr->part[1], pr, tmp + 3, ROW_FLOATS));
			if (sm->normalize)
				normalize_rows(tmp + 3, rows, ROW_FLOATS);
#if defined(HKS_HAVE_AVX2)
			if (sm->path == HKS_SAMPLE_PATH_AVX2) {
				rows_compose_avx2(o, tmp, rows, tstride, fs);
				continue;
			}
#endif
			const __m128 vs = _mm_loadu_ps(fs); /* x y z, 4th lane unused */
			const float *r = tmp + 3;
#define HKS_ROW_OUT(TV)                                                                    \
	do {                                                                                   \
		__m128 q = _mm_loadu_ps(r);                                /* qx qy qz qw */       \
		__m128 a = _mm_shuffle_ps(q, vs, _MM_SHUFFLE(0, 0, 3, 3)); /* qw qw sx sx */       \
		__m128 c = _mm_shuffle_ps(a, vs, _MM_SHUFFLE(2, 1, 2, 0)); /* qw sx sy sz */       \
		_mm_storeu_ps(o, (TV));  /* tx ty tz, o[3] rewritten next */                     \
		_mm_storeu_ps(o + 3, q); /* o[6] rewritten next */                               \
		_mm_storeu_ps(o + 6, c);                                                           \
	} while (0)
			for (uint32_t i = 0; i < rows; i++, o += tstride, r += ROW_FLOATS)
				HKS_ROW_OUT(_mm_loadu_ps(r - 3));
#undef HKS_ROW_OUT
			continue;
		}
#endif
		HKS_TRY(sample_vector(sm, b, (int32_t)t, HKS_PART_TRANSLATION, &tr->part[0], LANES_VECTOR, 0.0f, pr, tmp,
		                      ROW_FLOATS));
		HKS_TRY(sample_rotation(sm, b, (int32_t)t, &tr->part[1], pr, tmp + 3, ROW_FLOATS));
		HKS_TRY(sample_vector(sm, b, (int32_t)t, HKS_PART_SCALE, &tr->part[2], LANES_VECTOR,
		                      hks_f32_from_bits(ONE_BITS), pr, tmp + 7, ROW_FLOATS));
		if (sm->normalize)
			normalize_rows(tmp + 3, rows, ROW_FLOATS);
		float *o = transforms + t * HKS_TRACK_SAMPLE_FLOATS;
		for (uint32_t i = 0; i < rows; i++)
			memcpy(o + i * tstride, tmp + (size_t)i * ROW_FLOATS, HKS_TRACK_SAMPLE_FLOATS * sizeof(float));
	}
#if defined(HKS_HAVE_AVX2)
	/* The tracks without any spline: their rows written frame by frame,
	 * every such track of a frame in one pass over that frame's output
	 * (copies only) */
	if (nconst)
		rows_const_avx2(transforms, sm->crows, nconst, rows, tstride);
#endif
	if (F > 0 && !floats)
		return hks_fail(&sm->ctx, HKS_E_ARGUMENT, -1, "no output buffer for %lu float tracks", (unsigned long)F);
	for (size_t f = 0; f < F; f++) {
		/* FORMAT.md §2.7: one lane, bit 0 static, bit 4 spline; absent → 0 */
		HKS_TRY(sample_vector(sm, b, (int32_t)f, HKS_PART_FLOAT, &blk->floats[f], 1, 0.0f, pr, floats + f, F));
	}
	return HKS_OK;
}

/* ---- public entry points ---------------------------------------------- */

hks_result hks_sample_frames(const hks_stored_animation *s, const hks_sample_options *opts, uint32_t first_frame,
                             uint32_t num_frames, float *transforms, float *floats, hks_error *err)
{
	sampler sm;
	hks_result r = sampler_init(&sm, s, opts, err);
	if (r != HKS_OK)
		return r;
	if ((uint64_t)first_frame + num_frames > (uint64_t)s->num_frames)
		return hks_fail(&sm.ctx, HKS_E_ARGUMENT, -1, "frames %u..%llu outside the clip's %d frames", first_frame,
		                (unsigned long long)first_frame + num_frames, s->num_frames);
	if (num_frames == 0)
		return HKS_OK;
	if (s->num_transform_tracks > 0 && !transforms)
		return hks_fail(&sm.ctx, HKS_E_ARGUMENT, -1, "no output buffer for transform tracks");
	size_t T = (size_t)s->num_transform_tracks, F = (size_t)s->num_float_tracks;
	uint32_t g = first_frame, end = first_frame + num_frames;
	while (g < end && r == HKS_OK) {
		/* FORMAT.md §4.2: b = min(g / K, numBlocks − 1). Block b serves its
		 * frames up to (not including) its boundary frame with block b + 1;
		 * the last block serves to the end. */
		uint32_t b = g / sm.K;
		if (b > s->num_blocks - 1)
			b = s->num_blocks - 1;
		uint32_t block_first = b * sm.K;
		uint32_t block_end = (b + 1 < s->num_blocks) ? block_first + sm.K : (uint32_t)s->num_frames;
		uint32_t stop = end < block_end ? end : block_end;
		param pr = {0};
		pr.L0 = g - block_first;
		pr.count = stop - g;
		size_t row = g - first_frame;
		r = sample_block(&sm, b, &pr, transforms ? transforms + row * T * HKS_TRACK_SAMPLE_FLOATS : NULL,
		                 floats ? floats + row * F : NULL);
		g = stop;
	}
	sampler_free(&sm);
	return r;
}

hks_result hks_sample_part(const hks_options *base, unsigned kind, const hks_stored_part *p, uint8_t mask,
                           uint32_t num_frames, float *out)
{
	if (kind > 3 || !p || !out)
		return HKS_E_ARGUMENT;
	hks_stored_animation s;
	hks_stored_block blk;
	hks_stored_track tr;
	hks_stored_part fp = *p;
	uint8_t fm = mask;
	memset(&s, 0, sizeof(s));
	memset(&blk, 0, sizeof(blk));
	memset(&tr, 0, sizeof(tr));
	s.num_frames = (int32_t)num_frames;
	s.max_frames_per_block = (int32_t)num_frames;
	s.num_blocks = 1;
	s.blocks = &blk;
	blk.num_frames = num_frames;
	if (kind == 3) {
		s.num_float_tracks = 1;
		blk.floats = &fp;
		blk.float_masks = &fm;
	} else {
		s.num_transform_tracks = 1;
		blk.tracks = &tr;
		tr.part[kind] = *p;
		tr.mask[1 + kind] = mask;
	}
	hks_sample_options so;
	memset(&so, 0, sizeof(so));
	if (base)
		so.base = *base;
	hks_error e;
	return hks_sample_frames(&s, &so, 0, num_frames, kind == 3 ? NULL : out, kind == 3 ? out : NULL, &e);
}

hks_result hks_sample_block_frame(const hks_stored_animation *s, uint32_t block, uint32_t local_frame,
                                  const hks_sample_options *opts, float *transforms, float *floats, hks_error *err)
{
	sampler sm;
	hks_result r = sampler_init(&sm, s, opts, err);
	if (r != HKS_OK)
		return r;
	if (block >= s->num_blocks || local_frame >= s->blocks[block].num_frames)
		return hks_fail(&sm.ctx, HKS_E_ARGUMENT, -1, "block %u local frame %u does not exist", block, local_frame);
	if (s->num_transform_tracks > 0 && !transforms)
		return hks_fail(&sm.ctx, HKS_E_ARGUMENT, -1, "no output buffer for transform tracks");
	param pr = {0};
	pr.L0 = local_frame;
	pr.count = 1;
	r = sample_block(&sm, block, &pr, transforms, floats);
	sampler_free(&sm);
	return r;
}

/* FORMAT.md §4.3: time → block and parameters (time mode). */
static void time_param(const sampler *sm, float time, uint32_t *block, param *pr)
{
	const hks_stored_animation *s = sm->s;
	/* The library clamps t to [0, duration] (the engine would sample a
	 * negative time as the last frame); NaN samples frame 0. */
	float duration = s->duration;
	float t = time;
	if (!(t > 0.0f))
		t = 0.0f;
	if (t > duration)
		t = duration;
	uint32_t max_idx = (uint32_t)s->num_frames - 1;
	float f = 0.0f;
	if (duration > 0.0f)
		f = (t / duration) * (float)max_idx;
	/* An infinite duration (hostile header) makes t / duration = inf / inf =
	 * NaN: frame 0 then, as for a NaN time (fuzz_spline crasher; converting
	 * NaN to an integer is undefined). */
	if (!(f >= 0.0f))
		f = 0.0f;
	/* f is in [0, maxIdx] or +inf here; floor of a non-negative value */
	uint32_t fr = (f >= (float)max_idx) ? max_idx : (uint32_t)f;
	float delta;
	if (fr > max_idx - 1) {
		fr = max_idx - 1; /* end clamp: never extrapolate (§7 #11) */
		delta = hks_f32_from_bits(ONE_BITS);
	} else {
		delta = f - (float)fr;
		if (!(delta > 0.0f))
			delta = 0.0f;
		if (delta > 1.0f)
			delta = 1.0f;
	}
	uint32_t b = fr / sm->K;
	if (b > s->num_blocks - 1)
		b = s->num_blocks - 1;
	float block_time = ((float)(fr - b * sm->K) + delta) * s->frame_duration;
	float q = (block_time * s->block_inverse_duration) * (float)sm->K;
	/* trunc to an integer 0..K; out-of-range values (hostile durations) are
	 * clamped so the search key stays meaningful */
	uint32_t qtime;
	if (!(q > 0.0f))
		qtime = 0;
	else if (q >= (float)sm->K)
		qtime = sm->K;
	else
		qtime = (uint32_t)q;
	memset(pr, 0, sizeof(*pr));
	pr->time_mode = 1;
	pr->qtime = qtime;
	pr->u = block_time;
	pr->frame_duration = s->frame_duration;
	*block = b;
}

hks_result hks_sample_time(const hks_stored_animation *s, float time, const hks_sample_options *opts,
                           float *transforms, float *floats, hks_error *err)
{
	sampler sm;
	hks_result r = sampler_init(&sm, s, opts, err);
	if (r != HKS_OK)
		return r;
	if (s->num_transform_tracks > 0 && !transforms)
		return hks_fail(&sm.ctx, HKS_E_ARGUMENT, -1, "no output buffer for transform tracks");
	uint32_t b;
	param pr;
	time_param(&sm, time, &b, &pr);
	r = sample_block(&sm, b, &pr, transforms, floats);
	sampler_free(&sm);
	return r;
}

/* ---- runtime pose ----------------------------------------------------- */

struct hks_pose_sampler {
	sampler sm;
};

/* The checks sample_vector / sample_rotation would make with check_spline,
 * for every part they would reach, made once. */
static hks_result validate_all(sampler *sm)
{
	const hks_stored_animation *s = sm->s;
	for (uint32_t b = 0; b < s->num_blocks; b++) {
		const hks_stored_block *blk = &s->blocks[b];
		for (int32_t t = 0; t < s->num_transform_tracks; t++)
			for (unsigned k = 0; k < 3; k++) {
				const hks_stored_part *p = &blk->tracks[t].part[k];
				uint8_t m = p->flags;
				if (!(m & 0xF0))
					continue;
				if (k == 1) {
					if (p->quantization <= HKS_ROT_UNCOMPRESSED && p->packed)
						HKS_TRY(check_spline(sm, b, t, HKS_PART_ROTATION, p));
					continue;
				}
				unsigned nslots = 0;
				for (unsigned l = 0; l < LANES_VECTOR; l++)
					if (((m >> (4 + l)) & 1) && !((m >> l) & 1))
						nslots++;
				if (nslots && nslots == p->spline_lanes && p->quantization <= 1 && p->control_points)
					HKS_TRY(check_spline(sm, b, t, k == 0 ? HKS_PART_TRANSLATION : HKS_PART_SCALE, p));
			}
		for (int32_t f = 0; f < s->num_float_tracks; f++) {
			const hks_stored_part *p = &blk->floats[f];
			if ((p->flags & 0x10) && !(p->flags & 0x01) && p->spline_lanes == 1 && p->quantization <= 1 &&
			    p->control_points)
				HKS_TRY(check_spline(sm, b, f, HKS_PART_FLOAT, p));
		}
	}
	return HKS_OK;
}

hks_result hks_pose_sampler_create(const hks_stored_animation *s, const hks_sample_options *opts,
                                   hks_pose_sampler **out, hks_error *err)
{
	hks_ctx tmp;
	hks_ctx_init(&tmp, opts ? &opts->base : NULL, 0, err);
	if (!out)
		return hks_fail(&tmp, HKS_E_ARGUMENT, -1, "no output pointer");
	*out = NULL;
	hks_pose_sampler *ps = (hks_pose_sampler *)hks_malloc(&tmp, sizeof(*ps));
	if (!ps)
		return HKS_E_NOMEM;
	hks_result r = sampler_init(&ps->sm, s, opts, err);
	if (r == HKS_OK)
		r = validate_all(&ps->sm);
	if (r != HKS_OK) {
		hks_pose_sampler_free(ps);
		return r;
	}
	ps->sm.validated = 1;
	*out = ps;
	return HKS_OK;
}

hks_result hks_pose_at(hks_pose_sampler *ps, float time, float *transforms, float *floats, hks_error *err)
{
	if (err)
		memset(err, 0, sizeof(*err));
	if (!ps)
		return HKS_E_ARGUMENT;
	sampler *sm = &ps->sm;
	sm->ctx.err = err;
	if (sm->s->num_transform_tracks > 0 && !transforms)
		return hks_fail(&sm->ctx, HKS_E_ARGUMENT, -1, "no output buffer for transform tracks");
	uint32_t b;
	param pr;
	time_param(sm, time, &b, &pr);
	return sample_block(sm, b, &pr, transforms, floats);
}

void hks_pose_sampler_free(hks_pose_sampler *ps)
{
	if (!ps)
		return;
	sampler_free(&ps->sm);
	hks_ctx c = ps->sm.ctx;
	c.err = NULL;
	c.in_use = sizeof(*ps);
	hks_free(&c, ps, sizeof(*ps));
}
