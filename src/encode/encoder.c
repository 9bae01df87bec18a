/*
 * The Havok-faithful encoder: frames -> stored structure -> bytes
 * (ENCODER.md §2-§10; docs/ENCODE.md).
 *
 * For every block (maxFramesPerBlock frames, blocks share their boundary
 * frame, §5.2), every transform track's translation, rotation and scale and
 * every float track go through encode_part (§5.3): statistics and lane
 * classification (§5.4, classify.c), the error-bounded fit of spline parts
 * with the degree-1 fallback (§7, src/fit/), knot bytes (§8), bounds over the
 * fitted control points and the truncating quantizers (§9.1-9.2), the
 * rotation packers with unguarded normalization (§9.3-9.6). The result is a
 * stored structure (include/hkspline.h) that hks_stored_pack turns into bytes
 * with the SDK's trailing-guard rule (§10).
 *
 * Arithmetic: f32, every operation in the spec's order (the build uses
 * -ffp-contract=off); the approximate reciprocals come from the selected CPU
 * model (rcp.c), never from the host instruction unless HKS_CPU_NATIVE is
 * asked for.
 */
#include "encode_internal.h"
#include "fit.h"
#include "stored_format.h"

#include <float.h>
#include <math.h>

/* Havok's defaults (HKS_ENC_DEFAULT_*): encode_internal.h */

/* One part's resolved parameters. */
typedef struct part_params {
	float tolerance;
	int degree;
	unsigned quantization; /* T/S/F: 0 = 8-bit, 1 = 16-bit; R: selector 0..5 */
} part_params;

/* Resolved parameters of one transform track: index by hks_enc_part (T, R, S). */
typedef struct track_params {
	part_params part[3];
} track_params;

typedef struct encoder {
	hks_ctx *ctx;
	hks_arena *arena;
	const hks_frames_in *in;
	const hks_rcp_model *model;
	hks_fit_config cfg;
	hks_fit_workspace *ws;
	hks_fit_curve *curve;
	hks_fit_stats fit_stats;
	hks_encode_stats stats;
	float knot_factor;
	int rotation_continuity;
	hks_predictor_options pred; /* the re-compressor's switches (all 0 for hks_encode_stored) */
	int guard;                  /* the tolerance guard is on (docs/ENCODE.md "Tolerance guarantee") */
	/* resolved parameters: one per transform track, one per float track */
	track_params *track;
	part_params *float_track;
	/* the rotation pre-pass: 1 when the last frame of the previous block was flipped */
	uint8_t *rotation_flipped;
	/* per-block scratch */
	float ub[HKS_FIT_MAX_FRAMES];
	float samples[HKS_FIT_MAX_FRAMES][4];
	hks_fit_v4 Q[HKS_FIT_MAX_FRAMES];
} encoder;

/* ---- parameters ---------------------------------------------------------- */

static hks_result bad_param(hks_ctx *ctx, const char *what, int32_t track, hks_part part, const char *fmt,
                            double value)
{
	hks_err_object(ctx, "encoder options");
	hks_err_member(ctx, what);
	hks_err_location(ctx, -1, -1, track, part);
	return hks_fail(ctx, HKS_E_ARGUMENT, -1, fmt, value);
}

/* entry field -> defaults field -> Havok's default (zero = not set). */
static hks_result pick_tolerance(hks_ctx *ctx, float entry, float dflt, const char *what, int32_t track,
                                 hks_part part, float *out)
{
	float v = entry != 0.0f ? entry : dflt != 0.0f ? dflt : HKS_ENC_DEFAULT_TOLERANCE;
	if (!(v > 0.0f) || !isfinite(v))
		return bad_param(ctx, what, track, part, "tolerance %g: must be positive and finite", (double)v);
	*out = v;
	return HKS_OK;
}

static hks_result pick_degree(hks_ctx *ctx, uint8_t entry, uint8_t dflt, const char *what, int32_t track,
                              hks_part part, int *out)
{
	unsigned v = entry ? entry : dflt ? dflt : HKS_ENC_DEFAULT_DEGREE;
	if (v < 1 || v > HKS_FIT_MAX_DEGREE)
		return bad_param(ctx, what, track, part, "degree %g: must be 1, 2 or 3", (double)v);
	*out = (int)v;
	return HKS_OK;
}

/* Stored value + 1 (0 = not set); `max_value` is the largest stored value. */
static hks_result pick_quantization(hks_ctx *ctx, uint8_t entry, uint8_t dflt, unsigned fallback, unsigned max_value,
                                    const char *what, int32_t track, hks_part part, unsigned *out)
{
	unsigned v = entry ? entry : dflt ? dflt : fallback + 1u;
	if (v - 1u > max_value)
		return bad_param(ctx, what, track, part, "quantization code %g is out of range (stored value + 1)", (double)v);
	*out = v - 1u;
	return HKS_OK;
}

static hks_result resolve_track(hks_ctx *ctx, const hks_track_params *e, const hks_track_params *d, int32_t t,
                                track_params *out)
{
	static const hks_track_params zero;
	if (!e)
		e = &zero;
	part_params *T = &out->part[HKS_ENC_TRANSLATION], *R = &out->part[HKS_ENC_ROTATION],
	            *S = &out->part[HKS_ENC_SCALE];
	HKS_TRY(pick_tolerance(ctx, e->translation_tolerance, d->translation_tolerance, "translation_tolerance", t,
	                       HKS_PART_TRANSLATION, &T->tolerance));
	HKS_TRY(pick_tolerance(ctx, e->rotation_tolerance, d->rotation_tolerance, "rotation_tolerance", t,
	                       HKS_PART_ROTATION, &R->tolerance));
	HKS_TRY(pick_tolerance(ctx, e->scale_tolerance, d->scale_tolerance, "scale_tolerance", t, HKS_PART_SCALE,
	                       &S->tolerance));
	HKS_TRY(pick_degree(ctx, e->translation_degree, d->translation_degree, "translation_degree", t,
	                    HKS_PART_TRANSLATION, &T->degree));
	HKS_TRY(pick_degree(ctx, e->rotation_degree, d->rotation_degree, "rotation_degree", t, HKS_PART_ROTATION,
	                    &R->degree));
	HKS_TRY(pick_degree(ctx, e->scale_degree, d->scale_degree, "scale_degree", t, HKS_PART_SCALE, &S->degree));
	HKS_TRY(pick_quantization(ctx, e->translation_quantization, d->translation_quantization, 1, 1,
	                          "translation_quantization", t, HKS_PART_TRANSLATION, &T->quantization));
	HKS_TRY(pick_quantization(ctx, e->rotation_quantization, d->rotation_quantization, HKS_ROT_THREECOMP40,
	                          HKS_ROT_UNCOMPRESSED, "rotation_quantization", t, HKS_PART_ROTATION, &R->quantization));
	HKS_TRY(pick_quantization(ctx, e->scale_quantization, d->scale_quantization, 1, 1, "scale_quantization", t,
	                          HKS_PART_SCALE, &S->quantization));
	return HKS_OK;
}

static hks_result resolve_float(hks_ctx *ctx, const hks_track_params *e, const hks_track_params *d, int32_t i,
                                part_params *out)
{
	static const hks_track_params zero;
	if (!e)
		e = &zero;
	HKS_TRY(pick_tolerance(ctx, e->float_tolerance, d->float_tolerance, "float_tolerance", i, HKS_PART_FLOAT,
	                       &out->tolerance));
	HKS_TRY(pick_degree(ctx, e->float_degree, d->float_degree, "float_degree", i, HKS_PART_FLOAT, &out->degree));
	return pick_quantization(ctx, e->float_quantization, d->float_quantization, 1, 1, "float_quantization", i,
	                         HKS_PART_FLOAT, &out->quantization);
}

/* ---- one part (ENCODER.md §5.3) ------------------------------------------ */

static hks_result nomem(encoder *e)
{
	if (e->ctx->err && e->ctx->err->code)
		return e->ctx->err->code;
	return hks_fail_nomem(e->ctx, 0);
}

static void *arena_array(encoder *e, size_t count, size_t elem)
{
	/* the arena returns NULL for zero-sized requests on some paths: ask for one element */
	return hks_arena_array(e->arena, count ? count : 1, elem);
}

static const hks_part error_part[4] = {HKS_PART_TRANSLATION, HKS_PART_ROTATION, HKS_PART_SCALE, HKS_PART_FLOAT};

/* The lanes whose stored values come from the fitted curve: every lane of a
 * rotation (the whole quaternion is packed, §9.3), the spline lanes of the
 * others (static lanes store the mean, §9.1). */
static unsigned curve_lanes(hks_enc_part part, uint8_t mask)
{
	return part == HKS_ENC_ROTATION ? 0x0Fu : (unsigned)(mask >> 4) & 0x0Fu;
}

/* Fit the part's samples (all four lanes jointly, §5.3) and store degree,
 * control-point count and knot bytes. With the guard on, a fit that leaves
 * the tolerance on one of `lanes` is refitted (src/fit/fit_guard.c). */
static hks_result fit_part(encoder *e, int frames, const part_params *pp, hks_enc_part part, unsigned lanes,
                           hks_stored_part *out)
{
	int m = frames - 1;
	for (int k = 0; k < frames; k++)
		for (int i = 0; i < 4; i++)
			e->Q[k].v[i] = e->samples[k][i];
	hks_fit_stats fs;
	memset(&fs, 0, sizeof(fs));
	if (e->guard) {
		hks_fit_guard_report g;
		/* a rotation is stored as normalized control points (§9.3): the guard bounds that curve */
		hks_fit_config gcfg = e->cfg;
		gcfg.guard_unit_points = part == HKS_ENC_ROTATION;
		HKS_TRY(hks_fit_part_guarded(e->ctx, e->ws, m, e->Q, e->ub, pp->degree, pp->tolerance, &gcfg, lanes,
		                             e->curve, &fs, &g));
		e->stats.guard_unchecked_parts += (uint64_t)g.unchecked;
		if (g.rung != HKS_FIT_GUARD_NONE) {
			e->stats.guarded_parts[part]++;
			e->stats.guard_rungs[g.rung - 1]++;
			e->stats.guarded_degree[g.havok_degree & 3]++;
			if ((double)g.havok_error > e->stats.guard_worst_havok_error)
				e->stats.guard_worst_havok_error = (double)g.havok_error;
		}
	} else {
		HKS_TRY(hks_fit_part(e->ctx, e->ws, m, e->Q, e->ub, pp->degree, pp->tolerance, &e->cfg, e->curve, &fs));
	}
	const hks_fit_curve *c = e->curve;
	/* The stored count is a u16 (n) and the knot count n + p + 2; both fit
	 * easily (n + 1 <= 3m + 1), but check rather than truncate. */
	if (c->num_points < c->degree + 1 || c->num_points > 65536 || c->num_knots != c->num_points + c->degree + 1)
		return hks_fail(e->ctx, HKS_E_INTERNAL, -1, "the fit returned %d control points and %d knots at degree %d",
		                c->num_points, c->num_knots, c->degree);
	uint8_t *knots = (uint8_t *)arena_array(e, (size_t)c->num_knots, 1);
	if (!knots)
		return nomem(e);
	for (int i = 0; i < c->num_knots; i++)
		knots[i] = hks_knot_byte(c->knots[i], e->knot_factor);
	out->is_spline = 1;
	out->degree = (uint8_t)c->degree;
	out->num_control_points = (uint16_t)c->num_points;
	out->num_knots = (uint16_t)c->num_knots;
	out->knots = knots;

	e->stats.degree1_fallbacks += fs.degree1_fallbacks;
	e->stats.refit_attempts += fs.refit_attempts;
	e->stats.refit_accepted += fs.refit_accepted;
	e->stats.exact_elevations += fs.exact_elevations;
	if (c->degree == 1)
		e->stats.degree1_parts++;
	return HKS_OK;
}

/* Predictor: 1 when every sample of `lane` has the bits of the first. */
static int lane_constant(const encoder *e, int frames, unsigned lane)
{
	for (int k = 1; k < frames; k++)
		if (memcmp(&e->samples[k][lane], &e->samples[0][lane], 4) != 0)
			return 0;
	return 1;
}

/* §9.2; the predictor's nearest form adds half a step first (the value then
 * truncates to the bin whose lower edge it is nearest). */
static uint16_t quantize_point(const encoder *e, unsigned quantization, float v, float lo, float hi)
{
	if (e->pred.nearest_quantization && hi > lo)
		v = v + (hi - lo) * (quantization ? 0.5f / 65535.0f : 0.5f / 255.0f);
	return quantization ? hks_pack16(e->model, v, lo, hi) : hks_pack8(e->model, v, lo, hi);
}

/* §9.3 pack(normU(p)); the predictor's nearest form moves each kept
 * ThreeComp component half a step away from zero before the truncation. */
static void pack_point(const encoder *e, unsigned selector, const float p[4], uint8_t *out)
{
	float half;
	switch (selector) {
	case HKS_ROT_THREECOMP40: half = 0.5f / 2894.8953f; break;
	case HKS_ROT_THREECOMP48: half = 0.5f / 23169.061f; break;
	case HKS_ROT_THREECOMP24: half = 0.5f / 89.095451f; break;
	default: half = 0.0f; break;
	}
	if (!e->pred.nearest_quantization || half == 0.0f) {
		hks_pack_rotation(e->model, selector, p, out);
		return;
	}
	float n[4];
	hks_normalize_unguarded(e->model, p, n);
	unsigned sign;
	unsigned k = hks_quat_largest(n, &sign);
	for (unsigned i = 0; i < 4; i++)
		if (i != k && n[i] != 0.0f)
			n[i] = n[i] > 0.0f ? n[i] + half : n[i] - half;
	hks_pack_quaternion(selector, n, out);
}

/* §9.1: translation, scale (3 lanes) or float (1 lane). */
static hks_result write_points(encoder *e, int frames, uint8_t mask, unsigned quantization, unsigned lanes,
                               const float mean[4], hks_stored_part *out)
{
	for (unsigned lane = 0; lane < lanes; lane++)
		if (mask & (0x01u << lane)) {
			out->static_value[lane] = mean[lane]; /* the mean, not the first sample (§5.4 [R]) */
			if (e->pred.static_from_constant && lane_constant(e, frames, lane))
				memcpy(&out->static_value[lane], &e->samples[0][lane], 4);
		}
	if (!(mask & 0xF0))
		return HKS_OK;
	const hks_fit_curve *c = e->curve;
	float lo[4], hi[4];
	/* bounds over the FITTED CONTROL POINTS, not the samples (§9.1) */
	hks_vec_bounds((const float(*)[4])c->points, (size_t)c->num_points, lo, hi);
	unsigned spline_lanes = 0;
	for (unsigned lane = 0; lane < lanes; lane++)
		if (mask & (0x10u << lane)) {
			out->min[lane] = lo[lane];
			out->max[lane] = hi[lane];
			spline_lanes++;
		}
	uint16_t *cp = (uint16_t *)arena_array(e, (size_t)c->num_points * spline_lanes, sizeof(uint16_t));
	if (!cp)
		return nomem(e);
	size_t w = 0;
	for (int j = 0; j < c->num_points; j++)
		for (unsigned lane = 0; lane < lanes; lane++)
			if (mask & (0x10u << lane))
				cp[w++] = quantize_point(e, quantization, c->points[j].v[lane], lo[lane], hi[lane]);
	out->spline_lanes = (uint8_t)spline_lanes;
	out->control_points = cp;
	return HKS_OK;
}

/* §9.3: spline -> every control point packed through normU (no zero guard);
 * static -> the (normG-normalized) mean packed through normU. */
static hks_result write_rotation(encoder *e, int frames, uint8_t mask, unsigned selector, const float mean[4],
                                 hks_stored_part *out)
{
	uint32_t size = hks_rotation_size(selector);
	if (mask & 0xF0) {
		const hks_fit_curve *c = e->curve;
		uint8_t *packed = (uint8_t *)arena_array(e, (size_t)c->num_points * size, 1);
		if (!packed)
			return nomem(e);
		for (int j = 0; j < c->num_points; j++) {
			pack_point(e, selector, c->points[j].v, packed + (size_t)j * size);
			/* statistics only (double): how far normU moves this point */
			const float *v = c->points[j].v;
			double len = sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2] + (double)v[3] * v[3]);
			double shift = fabs(len - 1.0);
			if (shift > e->stats.rotation_renormalization)
				e->stats.rotation_renormalization = shift;
		}
		out->packed = packed;
	} else if (mask & 0x0F) {
		uint8_t *packed = (uint8_t *)arena_array(e, size, 1);
		if (!packed)
			return nomem(e);
		float q[4];
		memcpy(q, mean, sizeof(q));
		if (e->pred.static_from_constant && lane_constant(e, frames, 0) && lane_constant(e, frames, 1) &&
		    lane_constant(e, frames, 2) && lane_constant(e, frames, 3))
			hks_normalize_guarded(e->model, e->samples[0], q);
		pack_point(e, selector, q, packed);
		out->packed = packed;
		out->num_control_points = 1;
	}
	return HKS_OK;
}

/* The guard's part of classification: §5.4 leaves a lane absent (decoded as
 * the identity) when its samples are within E of their mean and the mean is
 * within E of the identity, so a sample can be up to 2E from what is decoded.
 * Such a lane is stored static instead (its mean, within E of every sample).
 * Rotations only when the whole part would be absent: with any static or
 * spline bit the quaternion is stored whole (§9.3). Floats are never absent. */
static uint8_t guard_absent_lanes(encoder *e, hks_enc_part part, int frames, float tolerance, uint8_t mask)
{
	if (part == HKS_ENC_FLOAT || (part == HKS_ENC_ROTATION && mask != 0))
		return mask;
	const float *identity = hks_part_identity(part);
	unsigned lanes = part == HKS_ENC_ROTATION ? 4u : 3u;
	for (unsigned i = 0; i < lanes; i++) {
		if (mask & (0x11u << i))
			continue;
		for (int k = 0; k < frames; k++)
			if (fabsf(e->samples[k][i] - identity[i]) > tolerance) {
				mask |= (uint8_t)(1u << i);
				e->stats.guard_static_lanes++;
				break;
			}
	}
	return mask;
}

/* encode_part of §5.3 on e->samples[0 .. frames-1]. Returns the mask byte
 * (for floats the float mask byte, quantization bits included) in *mask_out. */
static hks_result encode_part(encoder *e, hks_enc_part part, int frames, const part_params *pp,
                              hks_stored_part *out, uint8_t *mask_out)
{
	float mean[4];
	float classify_tolerance = e->pred.classify_tolerance > 0.0f ? e->pred.classify_tolerance : pp->tolerance;
	uint8_t mask = hks_classify_part(e->model, part, (const float(*)[4])e->samples, (size_t)frames,
	                                 classify_tolerance, pp->quantization, mean);
	if (e->guard)
		mask = guard_absent_lanes(e, part, frames, pp->tolerance, mask);
	memset(out, 0, sizeof(*out));
	*mask_out = mask;
	if (part == HKS_ENC_FLOAT) {
		/* the stored structure keeps the float byte with bits 1-2 cleared (include/hkspline.h) */
		out->flags = (uint8_t)(mask & 0xF9);
		out->quantization = (uint8_t)((mask >> 1) & 3);
	} else {
		out->flags = mask;
		out->quantization = (uint8_t)pp->quantization;
	}
	uint8_t lanes_mask = out->flags;
	e->stats.parts[part]++;
	if (lanes_mask & 0xF0) {
		HKS_TRY(fit_part(e, frames, pp, part, curve_lanes(part, lanes_mask), out));
		e->stats.spline_parts[part]++;
		e->stats.control_points[part] += out->num_control_points;
	} else if (lanes_mask & 0x0F) {
		e->stats.static_parts[part]++;
	} else {
		e->stats.absent_parts[part]++;
	}
	if (part == HKS_ENC_ROTATION)
		return write_rotation(e, frames, lanes_mask, pp->quantization, mean, out);
	return write_points(e, frames, lanes_mask, out->quantization, part == HKS_ENC_FLOAT ? 1u : 3u, mean, out);
}

/* ---- blocks (ENCODER.md §5.2) -------------------------------------------- */

/* §2: the sample vectors of one part of transform track t, frames first .. first + frames - 1. */
static void gather_transform(encoder *e, uint32_t t, hks_enc_part part, uint32_t first, int frames)
{
	const hks_frames_in *in = e->in;
	size_t stride = (size_t)in->num_transform_tracks * HKS_TRACK_SAMPLE_FLOATS;
	const float *src = in->transforms + (size_t)first * stride + (size_t)t * HKS_TRACK_SAMPLE_FLOATS;
	for (int k = 0; k < frames; k++, src += stride) {
		float *s = e->samples[k];
		switch (part) {
		case HKS_ENC_TRANSLATION:
			s[0] = src[0], s[1] = src[1], s[2] = src[2], s[3] = 0.0f; /* w forced to 0 */
			break;
		case HKS_ENC_ROTATION:
			s[0] = src[3], s[1] = src[4], s[2] = src[5], s[3] = src[6]; /* as given */
			break;
		default:
			s[0] = src[7], s[1] = src[8], s[2] = src[9], s[3] = 0.0f;
			break;
		}
	}
}

/* The optional sign-continuity pre-pass of §2 on the rotation samples of one
 * block: a frame is negated when its dot product with the (possibly negated)
 * previous frame is negative. The block's first frame is the previous
 * block's last one, so its decision is carried over. */
static void rotation_continuity(encoder *e, uint32_t t, uint32_t block, int frames)
{
	int flipped = block > 0 && e->rotation_flipped[t];
	if (flipped)
		for (int i = 0; i < 4; i++)
			e->samples[0][i] = -e->samples[0][i];
	for (int k = 1; k < frames; k++) {
		float *p = e->samples[k - 1], *q = e->samples[k];
		flipped = hks_dot4(p, q) < 0.0f;
		if (flipped)
			for (int i = 0; i < 4; i++)
				q[i] = -q[i];
	}
	e->rotation_flipped[t] = (uint8_t)flipped;
}

static float rcp_adapter(const void *model, float x)
{
	return hks_rcp((const hks_rcp_model *)model, x);
}

static hks_result encode_block(encoder *e, hks_stored_animation *s, uint32_t b, uint32_t first)
{
	const hks_frames_in *in = e->in;
	hks_stored_block *blk = &s->blocks[b];
	uint32_t T = in->num_transform_tracks, F = in->num_float_tracks;
	int frames = (int)hks_block_frames(s->num_frames, s->max_frames_per_block, b);
	blk->first_frame = first;
	blk->num_frames = (uint32_t)frames;
	/* §5.2: the block's end time, then the sample parameters (seconds, §6):
	 * both the fit parameters and the values that become knots. */
	float tb = (in->duration / (float)(s->num_frames - 1)) * (float)(frames - 1);
	hks_fit_linspace(frames - 1, 0.0f, tb, rcp_adapter, e->model, e->cfg.linspace, e->ub);

	for (uint32_t t = 0; t < T; t++) {
		hks_stored_track *tr = &blk->tracks[t];
		const track_params *tp = &e->track[t];
		/* mask byte 0: quantizations (§5.2) */
		tr->mask[0] = (uint8_t)(tp->part[0].quantization | tp->part[1].quantization << 2 |
		                        tp->part[2].quantization << 6);
		for (int k = 0; k < 3; k++) {
			hks_enc_part part = (hks_enc_part)k;
			hks_err_location(e->ctx, -1, (int32_t)b, (int32_t)t, error_part[k]);
			gather_transform(e, t, part, first, frames);
			if (part == HKS_ENC_ROTATION && e->rotation_continuity)
				rotation_continuity(e, t, b, frames);
			if (e->pred.skip_units && e->pred.skip_units[(size_t)b * (3u * T + F) + 3u * t + (unsigned)k])
				continue; /* predictor: a part an earlier candidate reproduced stays absent */
			HKS_TRY(encode_part(e, part, frames, &tp->part[k], &tr->part[k], &tr->mask[1 + k]));
		}
	}
	for (uint32_t i = 0; i < F; i++) {
		hks_err_location(e->ctx, -1, (int32_t)b, (int32_t)i, HKS_PART_FLOAT);
		const float *src = in->floats + (size_t)first * F + i;
		for (int k = 0; k < frames; k++, src += F) {
			e->samples[k][0] = *src;
			e->samples[k][1] = e->samples[k][2] = e->samples[k][3] = 0.0f;
		}
		if (e->pred.skip_units && e->pred.skip_units[(size_t)b * (3u * T + F) + 3u * T + i])
			continue;
		HKS_TRY(encode_part(e, HKS_ENC_FLOAT, frames, &e->float_track[i], &blk->floats[i], &blk->float_masks[i]));
	}
	return HKS_OK;
}

/* ---- the top level (ENCODER.md §5.1) ------------------------------------- */

static hks_result check_input(hks_ctx *ctx, const hks_frames_in *in, uint32_t mfpb)
{
	hks_err_object(ctx, "encoder input");
	if (in->num_frames < 2)
		return hks_fail(ctx, HKS_E_ARGUMENT, -1, "%u frames: at least 2 are needed", in->num_frames);
	if (!(in->duration > 0.0f) || !isfinite(in->duration))
		return hks_fail(ctx, HKS_E_ARGUMENT, -1, "duration %g: must be positive and finite", (double)in->duration);
	if (in->num_frames > ctx->limits.max_frames)
		return hks_fail(ctx, HKS_E_LIMIT, -1, "%u frames exceed the limit of %u", in->num_frames,
		                ctx->limits.max_frames);
	if ((uint64_t)in->num_transform_tracks + in->num_float_tracks > ctx->limits.max_tracks)
		return hks_fail(ctx, HKS_E_LIMIT, -1, "%u + %u tracks exceed the limit of %u", in->num_transform_tracks,
		                in->num_float_tracks, ctx->limits.max_tracks);
	/* An animation without tracks has no block bytes at all, which the walk
	 * rejects (FORMAT.md §6 H4: blockOffsets[0] must lie inside the data);
	 * the format gives no way to store it, so it is refused here. */
	if (in->num_transform_tracks == 0 && in->num_float_tracks == 0)
		return hks_fail(ctx, HKS_E_ARGUMENT, -1, "no tracks to encode");
	if (in->num_transform_tracks && !in->transforms)
		return hks_fail(ctx, HKS_E_ARGUMENT, -1, "%u transform tracks but no transforms", in->num_transform_tracks);
	if (in->num_float_tracks && !in->floats)
		return hks_fail(ctx, HKS_E_ARGUMENT, -1, "%u float tracks but no floats", in->num_float_tracks);
	if (mfpb < 2 || mfpb > HKS_FIT_MAX_FRAMES) {
		hks_err_object(ctx, "encoder options");
		hks_err_member(ctx, "max_frames_per_block");
		return hks_fail(ctx, HKS_E_ARGUMENT, -1, "maxFramesPerBlock %u is outside 2..256 (knot bytes are u8 frame numbers)",
		                mfpb);
	}
	uint32_t nb = hks_expected_num_blocks((int32_t)in->num_frames, (int32_t)mfpb);
	if (nb > ctx->limits.max_blocks)
		return hks_fail(ctx, HKS_E_LIMIT, -1, "%u blocks exceed the limit of %u", nb, ctx->limits.max_blocks);
	/* Frame parameters must be strictly increasing for the fit: a frame step
	 * that rounds to zero (or overflows) in f32 cannot be encoded. */
	float step = in->duration / (float)(in->num_frames - 1);
	float tmax = step * (float)(mfpb - 1);
	if (!(step > 0.0f) || !isfinite(tmax) || tmax / (float)(mfpb - 1) < FLT_MIN * 1024.0f)
		return hks_fail(ctx, HKS_E_ARGUMENT, -1, "duration %g over %u frames gives an unusable frame step %g",
		                (double)in->duration, in->num_frames, (double)step);
	return HKS_OK;
}

static hks_result encode_all(encoder *e, const hks_encode_options *opts, hks_stored_animation *s)
{
	const hks_frames_in *in = e->in;
	uint32_t T = in->num_transform_tracks, F = in->num_float_tracks;
	static const hks_encode_options zero_opts;
	if (!opts)
		opts = &zero_opts;

	/* parameters */
	if (opts->num_per_track && opts->num_per_track != T) {
		hks_err_object(e->ctx, "encoder options");
		hks_err_member(e->ctx, "per_track");
		return hks_fail(e->ctx, HKS_E_ARGUMENT, -1, "%u per-track entries for %u transform tracks", opts->num_per_track,
		                T);
	}
	if (opts->num_per_float_track && opts->num_per_float_track != F) {
		hks_err_object(e->ctx, "encoder options");
		hks_err_member(e->ctx, "per_float_track");
		return hks_fail(e->ctx, HKS_E_ARGUMENT, -1, "%u per-float-track entries for %u float tracks",
		                opts->num_per_float_track, F);
	}
	if ((opts->num_per_track && !opts->per_track) || (opts->num_per_float_track && !opts->per_float_track))
		return hks_fail(e->ctx, HKS_E_ARGUMENT, -1, "per-track parameter count without an array");
	e->track = (track_params *)arena_array(e, T, sizeof(track_params));
	e->float_track = (part_params *)arena_array(e, F, sizeof(part_params));
	e->rotation_flipped = (uint8_t *)arena_array(e, T, 1);
	if (!e->track || !e->float_track || !e->rotation_flipped)
		return nomem(e);
	for (uint32_t t = 0; t < T; t++)
		HKS_TRY(resolve_track(e->ctx, opts->num_per_track ? &opts->per_track[t] : NULL, &opts->defaults, (int32_t)t,
		                      &e->track[t]));
	for (uint32_t i = 0; i < F; i++)
		HKS_TRY(resolve_float(e->ctx, opts->num_per_float_track ? &opts->per_float_track[i] : NULL, &opts->defaults,
		                      (int32_t)i, &e->float_track[i]));
	if (opts->solver != HKS_SOLVER_HAVOK && opts->solver != HKS_SOLVER_QUALITY)
		return bad_param(e->ctx, "solver", -1, HKS_PART_NONE, "solver %g is unknown", (double)opts->solver);
	if (opts->solver == HKS_SOLVER_QUALITY)
		hks_fit_config_quality(&e->cfg);
	else
		hks_fit_config_havok(&e->cfg);
	e->rotation_continuity = opts->rotation_continuity != 0;

	/* §5.1: the header fields, f32 */
	uint32_t mfpb = opts->max_frames_per_block ? opts->max_frames_per_block : HKS_ENC_DEFAULT_MFPB;
	s->num_transform_tracks = (int32_t)T;
	s->num_float_tracks = (int32_t)F;
	s->num_frames = (int32_t)in->num_frames;
	s->max_frames_per_block = (int32_t)mfpb;
	s->mask_and_quantization_size = hks_expected_mask_size((int32_t)T, (int32_t)F);
	s->duration = in->duration;
	s->frame_duration = hks_rule_frame_duration(in->duration, s->num_frames);
	s->block_duration = hks_rule_block_duration(s->frame_duration, s->max_frames_per_block);
	s->block_inverse_duration = hks_rule_block_inverse_duration(s->block_duration);
	s->num_blocks = hks_expected_num_blocks(s->num_frames, s->max_frames_per_block);
	s->data_offset = -1; /* not read from a file: no byte offsets in messages */
	e->knot_factor = hks_knot_factor(s->num_frames, s->duration);

	uint32_t nb = s->num_blocks;
	s->blocks = (hks_stored_block *)arena_array(e, nb, sizeof(hks_stored_block));
	if (!s->blocks)
		return nomem(e);
	for (uint32_t b = 0; b < nb; b++) {
		hks_stored_block *blk = &s->blocks[b];
		blk->tracks = (hks_stored_track *)arena_array(e, T, sizeof(hks_stored_track));
		blk->floats = (hks_stored_part *)arena_array(e, F, sizeof(hks_stored_part));
		blk->float_masks = (uint8_t *)arena_array(e, F, 1);
		if (!blk->tracks || !blk->floats || !blk->float_masks)
			return nomem(e);
	}
	e->ws = hks_fit_workspace_new(e->ctx);
	e->curve = e->ws ? (hks_fit_curve *)hks_malloc(e->ctx, sizeof(hks_fit_curve)) : NULL;
	if (!e->curve)
		return nomem(e);
	uint32_t first = 0;
	for (uint32_t b = 0; b < nb; b++) {
		HKS_TRY(encode_block(e, s, b, first));
		first += mfpb - 1; /* blocks share the boundary frame (§5.2) */
	}
	return HKS_OK;
}

static hks_result resolve_model(hks_ctx *ctx, const hks_encode_options *opts, const hks_rcp_model **out)
{
	hks_cpu_model id = opts ? opts->cpu : HKS_CPU_AUTO;
	const char *sdk = opts && opts->sdk ? opts->sdk : HKS_ENC_DEFAULT_SDK;
	if (id == HKS_CPU_AUTO)
		id = hks_cpu_model_for_sdk(sdk);
	*out = hks_rcp_model_get(id);
	if (!*out) {
		hks_err_object(ctx, "encoder options");
		hks_err_member(ctx, "cpu");
		return hks_fail(ctx, id == HKS_CPU_NATIVE ? HKS_E_UNSUPPORTED : HKS_E_ARGUMENT, -1,
		                "CPU model '%s' is not available in this build", hks_cpu_model_name(id));
	}
	return HKS_OK;
}

static uint64_t input_bytes(const hks_frames_in *in)
{
	return (uint64_t)in->num_frames *
	       ((uint64_t)in->num_transform_tracks * HKS_TRACK_SAMPLE_FLOATS * 4u + (uint64_t)in->num_float_tracks * 4u);
}

hks_result hks_encode_stored(const hks_frames_in *in, const hks_encode_options *opts, hks_stored_animation **out,
                             hks_error *err)
{
	if (in && out && opts && opts->control)
		return hks_encode_controlled(in, opts, out, err); /* error_control.c */
	return hks_encode_stored_predict(in, opts, NULL, out, err);
}

hks_result hks_encode_stored_predict(const hks_frames_in *in, const hks_encode_options *opts,
                                     const hks_predictor_options *pred, hks_stored_animation **out, hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, opts ? &opts->base : NULL, in ? input_bytes(in) : 0, err);
	if (!in || !out)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_encode_stored: NULL argument");
	*out = NULL;
	if (opts && opts->stats)
		memset(opts->stats, 0, sizeof(*opts->stats));
	uint32_t mfpb = opts && opts->max_frames_per_block ? opts->max_frames_per_block : HKS_ENC_DEFAULT_MFPB;
	HKS_TRY(check_input(&ctx, in, mfpb));

	encoder *e = (encoder *)hks_calloc(&ctx, 1, sizeof(encoder));
	if (!e)
		return err && err->code ? err->code : HKS_E_NOMEM;
	e->ctx = &ctx;
	e->in = in;
	if (pred)
		e->pred = *pred;
	/* the guard: on for plain encodes unless opted out; the predictor only when it asks */
	e->guard = !(opts && opts->havok_unguarded) && (!pred || pred->tolerance_guard);
	hks_result r = resolve_model(&ctx, opts, &e->model);
	if (r == HKS_OK) {
		e->arena = hks_arena_create(&ctx);
		if (!e->arena)
			r = nomem(e);
	}
	hks_stored_animation *s = NULL;
	if (r == HKS_OK) {
		s = (hks_stored_animation *)hks_arena_alloc(e->arena, sizeof(*s));
		if (!s)
			r = nomem(e);
	}
	if (r == HKS_OK) {
		s->arena = e->arena;
		r = encode_all(e, opts, s);
	}
	if (r == HKS_OK && opts && opts->stats)
		*opts->stats = e->stats;
	if (e->curve)
		hks_free(&ctx, e->curve, sizeof(hks_fit_curve));
	if (e->ws)
		hks_fit_workspace_free(&ctx, e->ws);
	hks_arena *arena = e->arena;
	hks_free(&ctx, e, sizeof(encoder));
	if (r != HKS_OK) {
		if (arena)
			hks_arena_free(arena);
		return r;
	}
	hks_arena_set_ctx(arena, NULL);
	*out = s;
	return HKS_OK;
}

hks_result hks_encode_spline(const hks_frames_in *in, const hks_encode_options *opts, hks_packed_spline **out,
                             hks_error *err)
{
	if (out)
		*out = NULL;
	hks_stored_animation *s = NULL;
	HKS_TRY(hks_encode_stored(in, opts, &s, err));
	hks_pack_options po;
	memset(&po, 0, sizeof(po));
	if (opts)
		po.base = opts->base;
	po.guard = hks_guard_for_sdk(opts && opts->sdk ? opts->sdk : HKS_ENC_DEFAULT_SDK);
	hks_result r = hks_stored_pack(s, &po, out, err);
	hks_stored_free(s);
	return r;
}
