/*
 * Knot bytes (ENCODER.md §8): the fitted knot vector, in block-local seconds,
 * stored as u8 frame numbers.
 */
#include "encode_internal.h"

float hks_knot_factor(int32_t num_frames, float duration)
{
	/* The animation's numFrames and duration, not the block's (§8): block-
	 * local times start at 0, so U·f is the local frame number. True division. */
	if (duration == 0.0f)
		return 0.0f;
	float inv = 1.0f / duration;
	return (float)(num_frames - 1) * inv;
}

uint8_t hks_knot_byte(float u, float factor)
{
	/* trunc((U·f) + 0.5f) [R: the +0.5 is inferred; §16 finds it
	 * indistinguishable from round-to-nearest and plain truncation wrong].
	 * The byte store keeps the low 8 bits of the conversion [U]. */
	float x = u * factor;
	x = x + 0.5f;
	return (uint8_t)((uint32_t)hks_cvtt(x) & 0xFFu);
}

size_t hks_write_knots(uint16_t n, uint8_t degree, const float *knots, size_t num_knots, float factor,
                       uint8_t *out)
{
	if (num_knots != (size_t)n + degree + 2)
		return 0;
	hks_put_le16(out, n);
	out[2] = degree;
	for (size_t i = 0; i < num_knots; i++)
		out[3 + i] = hks_knot_byte(knots[i], factor);
	return 3 + num_knots;
}
