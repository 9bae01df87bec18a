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
 */
#include "internal.h"
#include "spline_walk_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct header_check {
	hks_ctx *ctx;
	const hks_animation *anim;
	int64_t offset;
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
	if (!exact && isfinite(stored) && isfinite(expected) &&
	    fabs((double)stored - (double)expected) <= 1e-4 * fabs((double)expected))
		return HKS_OK;
	return relation_fail(hc, member, "%s: stored %.9g (0x%08X), %s gives %.9g (0x%08X)%s", member, (double)stored, sb,
	                     relation, (double)expected, eb, exact ? " (f32 bit for bit, FORMAT.md §1.1)" : " (relative 1e-4)");
}

hks_result hks_spline_check_header(const hks_file *file, uint32_t animation, hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, NULL, 0, err);
	if (!file)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_spline_check_header: NULL file");
	if (animation >= file->num_animations || file->animations[animation].kind != HKS_ANIMATION_SPLINE)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "animation %u is not a spline animation", animation);
	const hks_animation *a = &file->animations[animation];
	const hks_spline_header *h = &a->spline;
	header_check hc = {&ctx, a, a->object_offset};
	hks_err_object(&ctx, "%s", a->class_name ? a->class_name : "hkaSplineCompressedAnimation");
	hks_err_location(&ctx, (int32_t)animation, -1, -1, HKS_PART_NONE);
	bool retail = is_fromsoftware_tagfile(file);
	int32_t T = a->number_of_transform_tracks, F = a->number_of_float_tracks;

	if (h->endian != 0)
		return relation_fail(&hc, "endian", "endian: stored %d, must be 0", (int)h->endian);
	if (T < 0 || F < 0)
		return relation_fail(&hc, "numberOfTransformTracks", "track counts: %d transform, %d float, must not be negative",
		                     (int)T, (int)F);
	if (h->num_frames < 2)
		return relation_fail(&hc, "numFrames", "numFrames: stored %d, must be at least 2", (int)h->num_frames);
	if (h->max_frames_per_block < 2 || h->max_frames_per_block > 256)
		return relation_fail(&hc, "maxFramesPerBlock", "maxFramesPerBlock: stored %d, must be 2..256",
		                     (int)h->max_frames_per_block);

	/* The durations (FORMAT.md §1.1), each operation rounded to f32. */
	float frame = a->duration / (float)(h->num_frames - 1);
	HKS_TRY(check_f32(&hc, "frameDuration", "duration / (numFrames - 1)", h->frame_duration, frame, retail));
	float block = h->frame_duration * (float)(h->max_frames_per_block - 1);
	HKS_TRY(check_f32(&hc, "blockDuration", "frameDuration * (maxFramesPerBlock - 1)", h->block_duration, block, retail));
	float inverse = 1.0f / h->block_duration;
	HKS_TRY(check_f32(&hc, "blockInverseDuration", "1 / blockDuration", h->block_inverse_duration, inverse, retail));

	uint32_t nb = hks_expected_num_blocks(h->num_frames, h->max_frames_per_block);
	if (h->num_blocks < 0 || (uint32_t)h->num_blocks != nb)
		return relation_fail(&hc, "numBlocks",
		                     "numBlocks: stored %d, max(1, (numFrames + maxFramesPerBlock - 3) / (maxFramesPerBlock - 1)) gives %u",
		                     (int)h->num_blocks, nb);
	int32_t mq = hks_expected_mask_size(T, F);
	if (retail) {
		if (h->mask_and_quantization_size != mq)
			return relation_fail(&hc, "maskAndQuantizationSize", "maskAndQuantizationSize: stored %d, (4T + F + 3) & ~3 gives %d",
			                     (int)h->mask_and_quantization_size, (int)mq);
	} else if (h->mask_and_quantization_size < 0 || (int64_t)h->mask_and_quantization_size < (int64_t)4 * T + F) {
		return relation_fail(&hc, "maskAndQuantizationSize",
		                     "maskAndQuantizationSize: stored %d, the masks of %d transform and %d float tracks need %lld",
		                     (int)h->mask_and_quantization_size, (int)T, (int)F, (long long)4 * T + F);
	}
	if (h->num_block_offsets != nb || (nb && !h->block_offsets))
		return relation_fail(&hc, "blockOffsets", "blockOffsets: %u entries, numBlocks is %u", h->num_block_offsets, nb);
	for (uint32_t b = 0; b < nb; b++) {
		uint32_t o = h->block_offsets[b];
		if (b == 0 && o != 0)
			return relation_fail(&hc, "blockOffsets", "blockOffsets[0]: stored %u, must be 0", o);
		if (o % 16)
			return relation_fail(&hc, "blockOffsets", "blockOffsets[%u]: stored %u, must be a multiple of 16", b, o);
		if (b && o <= h->block_offsets[b - 1])
			return relation_fail(&hc, "blockOffsets", "blockOffsets[%u]: stored %u, must exceed blockOffsets[%u] = %u", b, o,
			                     b - 1, h->block_offsets[b - 1]);
		if (o >= h->data_size)
			return relation_fail(&hc, "blockOffsets", "blockOffsets[%u]: stored %u, must lie inside the %u bytes of data", b,
			                     o, h->data_size);
	}
	if (h->num_float_block_offsets != nb)
		return relation_fail(&hc, "floatBlockOffsets", "floatBlockOffsets: %u entries, numBlocks is %u",
		                     h->num_float_block_offsets, nb);
	if (retail && h->num_transform_offsets)
		return relation_fail(&hc, "transformOffsets", "transformOffsets: %u entries, empty in FromSoftware data",
		                     h->num_transform_offsets);
	if (retail && h->num_float_offsets)
		return relation_fail(&hc, "floatOffsets", "floatOffsets: %u entries, empty in FromSoftware data",
		                     h->num_float_offsets);
	return HKS_OK;
}
