/*
 * The input format of the fuzz_spline target, shared with tools/make_seeds.c:
 * a 44-byte little-endian header giving every scalar member of
 * hkaSplineCompressedAnimation (FORMAT.md §1) and the array counts, then the
 * blockOffsets and floatBlockOffsets arrays (u32 each), then the data bytes.
 *   0 numFrames  4 numBlocks  8 maxFramesPerBlock  12 maskAndQuantizationSize
 *  16 blockDuration  20 blockInverseDuration  24 frameDuration  28 duration
 *  32 u16 transform tracks  34 u16 float tracks  36 u16 blockOffsets count
 *  38 u16 floatBlockOffsets count  40 u8 strict  41..43 unused
 */
#ifndef HKS_FUZZ_SPLINE_INPUT_H
#define HKS_FUZZ_SPLINE_INPUT_H

#include "hkspline.h"

#include <stdlib.h>
#include <string.h>

#define SPLINE_INPUT_HEADER 44u

static inline uint32_t spline_input_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline float spline_input_f32(const uint8_t *p)
{
	uint32_t u = spline_input_u32(p);
	float f;
	memcpy(&f, &u, 4);
	return f;
}

/* Fill `a` from the input; the arrays are malloc'd into *offsets (free it).
 * The data points into `in`. 0 when the input is shorter than the header. */
static inline int spline_input_parse(const uint8_t *in, size_t size, hks_animation *a, uint32_t **offsets,
                                     int *strict)
{
	memset(a, 0, sizeof(*a));
	*offsets = NULL;
	if (size < SPLINE_INPUT_HEADER)
		return 0;
	hks_spline_header *h = &a->spline;
	a->kind = HKS_ANIMATION_SPLINE;
	a->class_name = "hkaSplineCompressedAnimation";
	a->type = 3;
	a->reference_frame = -1;
	h->num_frames = (int32_t)spline_input_u32(in + 0);
	h->num_blocks = (int32_t)spline_input_u32(in + 4);
	h->max_frames_per_block = (int32_t)spline_input_u32(in + 8);
	h->mask_and_quantization_size = (int32_t)spline_input_u32(in + 12);
	h->block_duration = spline_input_f32(in + 16);
	h->block_inverse_duration = spline_input_f32(in + 20);
	h->frame_duration = spline_input_f32(in + 24);
	a->duration = spline_input_f32(in + 28);
	a->number_of_transform_tracks = (int32_t)(in[32] | in[33] << 8);
	a->number_of_float_tracks = (int32_t)(in[34] | in[35] << 8);
	uint32_t nb = (uint32_t)(in[36] | in[37] << 8), nf = (uint32_t)(in[38] | in[39] << 8);
	*strict = in[40] & 1;
	const uint8_t *p = in + SPLINE_INPUT_HEADER;
	size_t left = size - SPLINE_INPUT_HEADER;
	if (nb > left / 4)
		nb = (uint32_t)(left / 4);
	if (nf > (left - 4 * (size_t)nb) / 4)
		nf = (uint32_t)((left - 4 * (size_t)nb) / 4);
	uint32_t *arr = (uint32_t *)malloc(4 * ((size_t)nb + nf) + 4);
	for (uint32_t i = 0; i < nb + nf; i++)
		arr[i] = spline_input_u32(p + 4 * (size_t)i);
	*offsets = arr;
	h->block_offsets = arr;
	h->num_block_offsets = nb;
	h->float_block_offsets = arr + nb;
	h->num_float_block_offsets = nf;
	p += 4 * ((size_t)nb + nf);
	left -= 4 * ((size_t)nb + nf);
	h->data = p;
	h->data_size = (uint32_t)left;
	a->object_offset = -1;
	a->data_offset = (int64_t)(p - in);
	return 1;
}

#endif
