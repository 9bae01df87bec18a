/*
 * The stored structure's format rules, shared by decoding (the spline walk,
 * the header check) and encoding (the encoder, the block packer, the
 * re-compressor): rotation sizes and alignments, block and mask sizes, the
 * frames of a block, the Elden Ring guard rule, and the lifetime of an
 * hks_stored_animation (FORMAT.md §1.1, §2, §3.2).
 *
 * Nothing here reads or writes bytes: these are the relations both sides of
 * the codec must agree on, kept in one place so that neither reaches into the
 * other for them.
 */
#include "internal.h"
#include "stored_format.h"

#include <string.h>

/* FORMAT.md §3.2: packed size and alignment per rotation selector. */
static const uint8_t rotation_sizes[6] = {4, 5, 6, 3, 2, 16};
static const uint8_t rotation_alignments[6] = {4, 1, 2, 1, 2, 4};

uint32_t hks_rotation_size(unsigned selector)
{
	return selector < 6 ? rotation_sizes[selector] : 0;
}

uint32_t hks_rotation_alignment(unsigned selector)
{
	return selector < 6 ? rotation_alignments[selector] : 0;
}

uint32_t hks_block_frames(int32_t num_frames, int32_t max_frames_per_block, uint32_t block)
{
	if (num_frames < 2 || max_frames_per_block < 2)
		return 0;
	uint64_t first = (uint64_t)block * (uint64_t)(max_frames_per_block - 1);
	if (first >= (uint64_t)num_frames)
		return 0;
	uint64_t left = (uint64_t)num_frames - first;
	return (uint32_t)(left < (uint64_t)max_frames_per_block ? left : (uint64_t)max_frames_per_block);
}

int hks_guard_rule(unsigned last_rotation_selector, uint32_t rotation_end, uint32_t padded_block_end)
{
	/* FORMAT.md §2.8: selector ThreeComp40 and A − E < 3. */
	return last_rotation_selector == HKS_ROT_THREECOMP40 && rotation_end <= padded_block_end &&
	       padded_block_end - rotation_end < 3;
}

int hks_guard_for_sdk(const char *sdk)
{
	/* Only the 2018.1 writer (Elden Ring) appends the guard [P]; 2016.2 never. */
	return sdk && strcmp(sdk, "20180100") == 0;
}

uint32_t hks_expected_num_blocks(int32_t num_frames, int32_t max_frames_per_block)
{
	/* FORMAT.md §1.1: max(1, (numFrames + mfpb − 3) / (mfpb − 1)). */
	if (num_frames < 2 || max_frames_per_block < 2)
		return 0;
	int64_t n = ((int64_t)num_frames + max_frames_per_block - 3) / (max_frames_per_block - 1);
	return n < 1 ? 1u : (uint32_t)n;
}

int32_t hks_expected_mask_size(int32_t num_transform_tracks, int32_t num_float_tracks)
{
	/* FORMAT.md §1.1: (4·T + F + 3) & ~3. */
	int64_t v = ((int64_t)4 * num_transform_tracks + num_float_tracks + 3) & ~(int64_t)3;
	return v > INT32_MAX ? -1 : (int32_t)v;
}

float hks_rule_frame_duration(float duration, int32_t num_frames)
{
	return duration / (float)(num_frames - 1);
}

float hks_rule_block_duration(float frame_duration, int32_t max_frames_per_block)
{
	return frame_duration * (float)(max_frames_per_block - 1);
}

float hks_rule_block_inverse_duration(float block_duration)
{
	return 1.0f / block_duration;
}

void hks_stored_free(hks_stored_animation *stored)
{
	if (stored)
		hks_arena_free(stored->arena);
}
