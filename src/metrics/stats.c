/*
 * Compression statistics of a stored spline animation (docs/METRICS.md).
 *
 * The byte categories are obtained by laying the stored structure out again
 * with the rules of FORMAT.md §2 (mask area, parts with their alignments,
 * block end fill, trailing guard). Counting the bytes of each stored item
 * and the alignment gaps separately, then comparing the sum with data_size,
 * is what makes "the categories add up" a check rather than a definition: a
 * part the layout misses, or a block whose padded end differs from the next
 * block's offset, shows up as `unaccounted` bytes.
 */
#include "metrics.h"

#include <string.h>

static uint64_t align_gap(uint64_t pos, uint64_t a) { return (a - pos % a) % a; }

/* Advance *pos to a multiple of `a` and count the gap as padding. */
static void align_to(uint64_t *pos, uint64_t a, hks_spline_stats *st)
{
	uint64_t g = align_gap(*pos, a);
	st->padding += g;
	*pos += g;
}

static unsigned scalar_bytes(unsigned quantization) { return quantization == 1 ? 2u : 1u; }

/* Knot header and knots (FORMAT.md §2.4): u16 n, u8 degree, n + degree + 2 knot bytes. */
static void count_knots(const hks_stored_part *p, uint64_t *pos, hks_spline_stats *st)
{
	uint64_t n = 3u + (uint64_t)p->num_knots;
	st->knots += n;
	*pos += n;
}

/* Translation, scale (3 lanes) or float (1 lane) part, FORMAT.md §2.4 / §2.7. */
static void lay_vector_part(const hks_stored_part *p, int type, unsigned lanes, uint64_t *pos, hks_spline_stats *st)
{
	uint8_t m = p->flags;
	unsigned spline_lanes = 0, static_lanes = 0;
	for (unsigned lane = 0; lane < lanes; lane++) {
		if (m & (0x01u << lane))
			static_lanes++; /* static is tested first (FORMAT.md §2.3) */
		else if (m & (0x10u << lane))
			spline_lanes++;
	}
	st->static_lanes[type] += static_lanes;
	st->spline_lanes[type] += spline_lanes;
	st->absent_lanes[type] += lanes - static_lanes - spline_lanes;
	int any_spline = (m & 0xF0u) != 0;
	if (any_spline) {
		st->spline_parts[type]++;
		st->degrees[type][p->degree & 3u]++;
		if (p->quantization == 1)
			st->quantization_16bit[type]++;
		else
			st->quantization_8bit[type]++;
		st->control_point_count[type] += p->num_control_points;
		count_knots(p, pos, st);
	} else if (m & 0x0Fu)
		st->static_parts[type]++;
	else
		st->absent_parts[type]++;
	align_to(pos, 4, st);
	st->static_values += 4u * static_lanes;
	st->bounds += 8u * spline_lanes;
	*pos += 4u * static_lanes + 8u * spline_lanes;
	if (any_spline) {
		align_to(pos, 2, st);
		uint64_t cp = (uint64_t)p->num_control_points * spline_lanes * scalar_bytes(p->quantization);
		st->control_points += cp;
		*pos += cp;
	}
	align_to(pos, 4, st);
}

/* Rotation part, FORMAT.md §2.5: the quaternion is read whole. */
static void lay_rotation_part(const hks_stored_part *p, uint64_t *pos, hks_spline_stats *st)
{
	uint8_t m = p->flags;
	unsigned sel = p->quantization;
	uint64_t size = hks_rotation_size(sel), align = hks_rotation_alignment(sel);
	if (align == 0)
		align = 1;
	if (m & 0xF0u) {
		st->spline_parts[HKS_STAT_R]++;
		st->spline_lanes[HKS_STAT_R]++;
		st->degrees[HKS_STAT_R][p->degree & 3u]++;
		st->selectors[sel & 15u]++;
		st->control_point_count[HKS_STAT_R] += p->num_control_points;
		count_knots(p, pos, st);
		align_to(pos, align, st);
		uint64_t n = (uint64_t)p->num_control_points * size;
		st->packed_quaternions += n;
		*pos += n;
	} else if (m & 0x0Fu) {
		st->static_parts[HKS_STAT_R]++;
		st->static_lanes[HKS_STAT_R]++;
		st->selectors[sel & 15u]++;
		align_to(pos, align, st);
		st->packed_quaternions += size;
		*pos += size;
	} else {
		st->absent_parts[HKS_STAT_R]++;
		st->absent_lanes[HKS_STAT_R]++;
	}
	align_to(pos, 4, st);
}

void hks_spline_stats_compute(const hks_stored_animation *s, hks_spline_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!s)
		return;
	uint32_t T = s->num_transform_tracks > 0 ? (uint32_t)s->num_transform_tracks : 0;
	uint32_t F = s->num_float_tracks > 0 ? (uint32_t)s->num_float_tracks : 0;
	st->frames = s->num_frames > 0 ? (uint32_t)s->num_frames : 0;
	st->transform_tracks = T;
	st->float_tracks = F;
	st->blocks = s->num_blocks;
	st->raw_size = (uint64_t)st->frames * ((uint64_t)T * 40u + (uint64_t)F * 4u);
	uint64_t laid_out = 0;
	for (uint32_t b = 0; b < s->num_blocks; b++) {
		const hks_stored_block *blk = &s->blocks[b];
		uint64_t pos = 0;
		/* mask area (FORMAT.md §2.1): 4·T + F mask bytes, zero fill up to maskAndQuantizationSize */
		uint64_t mask_bytes = 4u * (uint64_t)T + F;
		uint64_t area = s->mask_and_quantization_size > 0 ? (uint64_t)s->mask_and_quantization_size : 0;
		if (area < mask_bytes)
			area = mask_bytes;
		st->masks += mask_bytes;
		st->padding += area - mask_bytes;
		pos = area;
		for (uint32_t t = 0; t < T; t++) {
			lay_vector_part(&blk->tracks[t].part[0], HKS_STAT_T, 3, &pos, st);
			lay_rotation_part(&blk->tracks[t].part[1], &pos, st);
			lay_vector_part(&blk->tracks[t].part[2], HKS_STAT_S, 3, &pos, st);
		}
		for (uint32_t i = 0; i < F; i++)
			lay_vector_part(&blk->floats[i], HKS_STAT_F, 1, &pos, st);
		align_to(&pos, 16, st); /* block end fill (FORMAT.md §2.8) */
		laid_out += pos;
	}
	st->guard = s->guard_bytes;
	laid_out += s->guard_bytes;
	st->compressed_size = s->data_size ? s->data_size : laid_out;
	st->unaccounted = (int64_t)st->compressed_size - (int64_t)laid_out;
	st->ratio = st->compressed_size ? (double)st->raw_size / (double)st->compressed_size : 0.0;
}

void hks_spline_stats_add(hks_spline_stats *a, const hks_spline_stats *b)
{
	a->frames += b->frames;
	a->transform_tracks += b->transform_tracks;
	a->float_tracks += b->float_tracks;
	a->blocks += b->blocks;
	a->raw_size += b->raw_size;
	a->compressed_size += b->compressed_size;
	a->masks += b->masks;
	a->knots += b->knots;
	a->bounds += b->bounds;
	a->static_values += b->static_values;
	a->control_points += b->control_points;
	a->packed_quaternions += b->packed_quaternions;
	a->padding += b->padding;
	a->guard += b->guard;
	a->unaccounted += b->unaccounted;
	for (int k = 0; k < 4; k++) {
		a->spline_parts[k] += b->spline_parts[k];
		a->static_parts[k] += b->static_parts[k];
		a->absent_parts[k] += b->absent_parts[k];
		a->spline_lanes[k] += b->spline_lanes[k];
		a->static_lanes[k] += b->static_lanes[k];
		a->absent_lanes[k] += b->absent_lanes[k];
		a->quantization_8bit[k] += b->quantization_8bit[k];
		a->quantization_16bit[k] += b->quantization_16bit[k];
		a->control_point_count[k] += b->control_point_count[k];
		for (int d = 0; d < 4; d++)
			a->degrees[k][d] += b->degrees[k][d];
	}
	for (int k = 0; k < 16; k++)
		a->selectors[k] += b->selectors[k];
	a->ratio = a->compressed_size ? (double)a->raw_size / (double)a->compressed_size : 0.0;
}
