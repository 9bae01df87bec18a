/*
 * Format rules of the stored structure that are not in the public header,
 * shared by the decoder (src/decode/spline_walk.c, spline_header.c) and the
 * encoder (src/encode/block_pack.c, encoder.c, recompress.c). Definitions in
 * src/format/stored_format.c.
 */
#ifndef HKS_STORED_FORMAT_H
#define HKS_STORED_FORMAT_H

#include "internal.h"

/* FORMAT.md §1.1: max(1, (numFrames + mfpb − 3) / (mfpb − 1)); 0 when numFrames < 2 or mfpb < 2. */
uint32_t hks_expected_num_blocks(int32_t num_frames, int32_t max_frames_per_block);
/* FORMAT.md §1.1: (4·T + F + 3) & ~3; -1 when it overflows. */
int32_t hks_expected_mask_size(int32_t num_transform_tracks, int32_t num_float_tracks);

/* FORMAT.md §1.1, the header's durations as FromSoftware's writer computes
 * them, each a single f32 operation: frameDuration = duration / (numFrames − 1),
 * blockDuration = frameDuration · (mfpb − 1), blockInverseDuration =
 * 1 / blockDuration. The encoder writes them, the header check compares. */
float hks_rule_frame_duration(float duration, int32_t num_frames);
float hks_rule_block_duration(float frame_duration, int32_t max_frames_per_block);
float hks_rule_block_inverse_duration(float block_duration);

#endif
