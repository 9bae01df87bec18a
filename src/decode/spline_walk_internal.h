/*
 * Helpers shared by the spline walk (src/decode/spline_walk.c), the header
 * check (src/decode/spline_header.c) and the block packer
 * (src/encode/block_pack.c).
 */
#ifndef HKS_SPLINE_WALK_INTERNAL_H
#define HKS_SPLINE_WALK_INTERNAL_H

#include "internal.h"

/* FORMAT.md §1.1: max(1, (numFrames + mfpb − 3) / (mfpb − 1)); 0 when numFrames < 2 or mfpb < 2. */
uint32_t hks_expected_num_blocks(int32_t num_frames, int32_t max_frames_per_block);
/* FORMAT.md §1.1: (4·T + F + 3) & ~3; -1 when it overflows. */
int32_t hks_expected_mask_size(int32_t num_transform_tracks, int32_t num_float_tracks);

#endif
