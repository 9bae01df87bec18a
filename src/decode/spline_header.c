/*
 * Header relations of an hkaSplineCompressedAnimation (FORMAT.md §1.1, §6.1),
 * the checks behind `hkspline check`.
 *
 * FromSoftware tagfiles (SDK 20150100 ... 20190100) are held to what the retail
 * census proves bit for bit (REFERENCE.md §1):
 * the three durations as individually rounded f32 operations, the integer
 * relations, and empty per-track offsets. Packfiles and XML come from other
 * tools (Havok 2010 orders the blockDuration product differently, XML carries
 * rounded decimals: FORMAT.md §1.1 "Older files differ"), so only the
 * structure is exact there and the durations are compared to a relative 1e-4.
 *
 * hks_spline_grade_header grades the same relations: relation_fail marks a
 * structural one (an error: the animation cannot be walked or played as
 * stored), rule_fail a producer rule FromSoftware's writer follows (a warning:
 * it decodes). Ungraded, both fail at the first violation, in the same order.
 */
#include "internal.h"
#include "stored_format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct header_check {
	hks_ctx *ctx;
	const hks_animation *anim;
	int64_t offset;
	/* graded (hks_spline_grade_header): producer-rule violations are recorded
	 * in wctx (the first one) and the check goes on; NULL: they fail */
	hks_ctx *wctx;
	uint32_t warnings;
} header_check;

static hks_result HKS_PRINTF(3, 4) relation_fail(header_check *hc, const char *member, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	hks_err_member(hc->ctx, member);
	return hks_fail(hc->ctx, HKS_E_MALFORMED, hc->offset, "%s", msg);
}

/* A producer rule (what FromSoftware's writer always does, REFERENCE-style
 * relations) rather than a structural one: the animation still walks and
 * samples when it is broken. Graded, the first one is recorded as a warning
 * and the check goes on; otherwise it fails like relation_fail. */
static hks_result HKS_PRINTF(3, 4) rule_fail(header_check *hc, const char *member, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!hc->wctx) {
		hks_err_member(hc->ctx, member);
		return hks_fail(hc->ctx, HKS_E_MALFORMED, hc->offset, "%s", msg);
	}
	if (hc->warnings++ == 0) {
		hks_err_member(hc->wctx, member);
		hks_fail(hc->wctx, HKS_E_MALFORMED, hc->offset, "%s", msg);
	}
	return HKS_OK;
}

static bool is_fromsoftware_tagfile(const hks_file *file)
{
	if (file->container != HKS_CONTAINER_TAGFILE)
		return false;
	char *end = NULL;
	long v = strtol(file->sdk, &end, 10);
	return end && end != file->sdk && *end == '\0' && v >= 20150100 && v <= 20190100;
}

/* Stored f32 against the relation's value: bit for bit, or to a relative tolerance. */
static hks_result check_f32(header_check *hc, const char *member, const char *relation, float stored, float expected,
                            bool exact)
{
	uint32_t sb = hks_f32_bits(stored), eb = hks_f32_bits(expected);
	if (sb == eb)
		return HKS_OK;
	bool close = isfinite(stored) && isfinite(expected) &&
	             fabs((double)stored - (double)expected) <= 1e-4 * fabs((double)expected);
	if (!exact && close)
		return HKS_OK;
	/* within the relative 1e-4 the clip plays as stored: only the f32 rule is broken */
	if (close)
		return rule_fail(hc, member, "%s: stored %.9g (0x%08X), %s gives %.9g (0x%08X)%s", member, (double)stored, sb,
		                 relation, (double)expected, eb, " (f32 bit for bit, FORMAT.md §1.1)");
	return relation_fail(hc, member, "%s: stored %.9g (0x%08X), %s gives %.9g (0x%08X)%s", member, (double)stored, sb,
	                     relation, (double)expected, eb, exact ? " (f32 bit for bit, FORMAT.md §1.1)" : " (relative 1e-4)");
}

static hks_result relations(header_check *hc, const hks_file *file, const hks_animation *a);

static hks_result check_header(const hks_file *file, uint32_t animation, hks_error *err, hks_error *warning,
                               uint32_t *warnings)
{
	hks_ctx ctx, wctx;
	hks_ctx_init(&ctx, NULL, 0, err);
	if (warning)
		hks_ctx_init(&wctx, NULL, 0, warning);
	if (!file)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_spline_check_header: NULL file");
	if (animation >= file->num_animations || file->animations[animation].kind != HKS_ANIMATION_SPLINE)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "animation %u is not a spline animation", animation);
	const hks_animation *a = &file->animations[animation];
	header_check hc = {&ctx, a, a->object_offset, warning ? &wctx : NULL, 0};
	hks_err_object(&ctx, "%s", a->class_name ? a->class_name : "hkaSplineCompressedAnimation");
	hks_err_location(&ctx, (int32_t)animation, -1, -1, HKS_PART_NONE);
	if (warning) {
		hks_err_object(&wctx, "%s", a->class_name ? a->class_name : "hkaSplineCompressedAnimation");
		hks_err_location(&wctx, (int32_t)animation, -1, -1, HKS_PART_NONE);
	}
	hks_result r = relations(&hc, file, a);
	if (warnings)
		*warnings = hc.warnings;
	return r;
}

static hks_result relations(header_check *hc, const hks_file *file, const hks_animation *a)
{
	const hks_spline_header *h = &a->spline;
	bool retail = is_fromsoftware_tagfile(file);
	int32_t T = a->number_of_transform_tracks, F = a->number_of_float_tracks;

	if (h->endian != 0)
		return relation_fail(hc, "endian", "endian: stored %d, must be 0", (int)h->endian);
	if (T < 0 || F < 0)
		return relation_fail(hc, "numberOfTransformTracks", "track counts: %d transform, %d float, must not be negative",
		                     (int)T, (int)F);
	if (h->num_frames < 2)
		return relation_fail(hc, "numFrames", "numFrames: stored %d, must be at least 2", (int)h->num_frames);
	if (h->max_frames_per_block < 2 || h->max_frames_per_block > 256)
		return relation_fail(hc, "maxFramesPerBlock", "maxFramesPerBlock: stored %d, must be 2..256",
		                     (int)h->max_frames_per_block);

	/* The durations (FORMAT.md §1.1), each operation rounded to f32. */
	float frame = hks_rule_frame_duration(a->duration, h->num_frames);
	HKS_TRY(check_f32(hc, "frameDuration", "duration / (numFrames - 1)", h->frame_duration, frame, retail));
	float block = hks_rule_block_duration(h->frame_duration, h->max_frames_per_block);
	HKS_TRY(check_f32(hc, "blockDuration", "frameDuration * (maxFramesPerBlock - 1)", h->block_duration, block, retail));
	float inverse = hks_rule_block_inverse_duration(h->block_duration);
	HKS_TRY(check_f32(hc, "blockInverseDuration", "1 / blockDuration", h->block_inverse_duration, inverse, retail));

	uint32_t nb = hks_expected_num_blocks(h->num_frames, h->max_frames_per_block);
	if (h->num_blocks < 0 || (uint32_t)h->num_blocks != nb)
		return relation_fail(hc, "numBlocks",
		                     "numBlocks: stored %d, max(1, (numFrames + maxFramesPerBlock - 3) / (maxFramesPerBlock - 1)) gives %u",
		                     (int)h->num_blocks, nb);
	int32_t mq = hks_expected_mask_size(T, F);
	if (retail && h->mask_and_quantization_size != mq && h->mask_and_quantization_size >= 0 &&
	    (int64_t)h->mask_and_quantization_size >= (int64_t)4 * T + F) {
		HKS_TRY(rule_fail(hc, "maskAndQuantizationSize", "maskAndQuantizationSize: stored %d, (4T + F + 3) & ~3 gives %d",
		                  (int)h->mask_and_quantization_size, (int)mq));
	} else if (retail) {
		if (h->mask_and_quantization_size != mq)
			return relation_fail(hc, "maskAndQuantizationSize", "maskAndQuantizationSize: stored %d, (4T + F + 3) & ~3 gives %d",
			                     (int)h->mask_and_quantization_size, (int)mq);
	} else if (h->mask_and_quantization_size < 0 || (int64_t)h->mask_and_quantization_size < (int64_t)4 * T + F) {
		return relation_fail(hc, "maskAndQuantizationSize",
		                     "maskAndQuantizationSize: stored %d, the masks of %d transform and %d float tracks need %lld",
		                     (int)h->mask_and_quantization_size, (int)T, (int)F, (long long)4 * T + F);
	}
	uint32_t nbo = nb;
	if (nb > 1 && h->num_block_offsets >= 1 && h->num_block_offsets < nb && h->block_offsets &&
	    h->num_float_block_offsets >= 1 && h->num_float_block_offsets <= nb && h->float_block_offsets) {
		/* fewer offsets than blocks (modder clips): a lenient walk reads the
		 * missing blocks where the previous one ends (FORMAT.md §6 H4) */
		nbo = h->num_block_offsets;
		HKS_TRY(rule_fail(hc, "blockOffsets",
		                  "blockOffsets: %u entries, numBlocks is %u (the walk reads the missing blocks where the previous "
		                  "one ends)",
		                  nbo, nb));
	} else if (h->num_block_offsets != nb || (nb && !h->block_offsets))
		return relation_fail(hc, "blockOffsets", "blockOffsets: %u entries, numBlocks is %u", h->num_block_offsets, nb);
	for (uint32_t b = 0; b < nbo; b++) {
		uint32_t o = h->block_offsets[b];
		if (b == 0 && o != 0)
			return relation_fail(hc, "blockOffsets", "blockOffsets[0]: stored %u, must be 0", o);
		if (o % 16)
			return relation_fail(hc, "blockOffsets", "blockOffsets[%u]: stored %u, must be a multiple of 16", b, o);
		if (b && o <= h->block_offsets[b - 1])
			return relation_fail(hc, "blockOffsets", "blockOffsets[%u]: stored %u, must exceed blockOffsets[%u] = %u", b, o,
			                     b - 1, h->block_offsets[b - 1]);
		if (o >= h->data_size)
			return relation_fail(hc, "blockOffsets", "blockOffsets[%u]: stored %u, must lie inside the %u bytes of data", b,
			                     o, h->data_size);
	}
	if (h->num_float_block_offsets != nb && nbo == nb)
		return relation_fail(hc, "floatBlockOffsets", "floatBlockOffsets: %u entries, numBlocks is %u",
		                     h->num_float_block_offsets, nb);
	if (retail && h->num_transform_offsets)
		HKS_TRY(rule_fail(hc, "transformOffsets", "transformOffsets: %u entries, empty in FromSoftware data",
		                  h->num_transform_offsets));
	if (retail && h->num_float_offsets)
		HKS_TRY(rule_fail(hc, "floatOffsets", "floatOffsets: %u entries, empty in FromSoftware data",
		                  h->num_float_offsets));
	return HKS_OK;
}

hks_result hks_spline_check_header(const hks_file *file, uint32_t animation, hks_error *err)
{
	return check_header(file, animation, err, NULL, NULL);
}

hks_level hks_spline_grade_header(const hks_file *file, uint32_t animation, hks_error *warning, hks_error *error)
{
	hks_error w, e;
	uint32_t warnings = 0;
	hks_result r = check_header(file, animation, error ? error : &e, warning ? warning : &w, &warnings);
	if (r != HKS_OK)
		return HKS_LEVEL_ERROR;
	return warnings ? HKS_LEVEL_WARNING : HKS_LEVEL_NONE;
}
