/*
 * One-line summary of a comparison (docs/METRICS.md §6): what `encode` and
 * `recompress` print per file, formatted in one place so every command says
 * it the same way.
 */
#include "metrics.h"

#include <stdarg.h>
#include <stdio.h>

typedef struct line {
	char *buf;
	size_t size, len;
} line;

static void put(line *l, const char *fmt, ...) HKS_PRINTF(2, 3);
static void put(line *l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	size_t room = l->len < l->size ? l->size - l->len : 0;
	int n = vsnprintf(room ? l->buf + l->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->len += (size_t)n;
}

size_t hks_compare_summary_line(const hks_compare_result *r, const hks_spline_stats *stats,
                                const hks_skeleton *skeleton, char *buf, size_t size)
{
	line l = {buf, size, 0};
	if (buf && size)
		buf[0] = 0;
	if (stats)
		put(&l, "ratio %.2f (%llu -> %llu B); ", stats->ratio, (unsigned long long)stats->raw_size,
		    (unsigned long long)stats->compressed_size);
	if (!r) {
		put(&l, "no comparison");
		return l.len;
	}
	put(&l, "max translation %.3g mm, rotation %.3g deg, scale %.3g", r->metric[HKS_METRIC_TRANSLATION].max * 1000,
	    r->metric[HKS_METRIC_ROTATION_DEG].max, r->metric[HKS_METRIC_SCALE].max);
	if (r->num_float_tracks)
		put(&l, ", float %.3g", r->metric[HKS_METRIC_FLOAT].max);
	const char *name = NULL;
	if (skeleton && r->worst_bone >= 0 && (uint32_t)r->worst_bone < skeleton->num_bones && skeleton->bone_names)
		name = skeleton->bone_names[r->worst_bone];
	if (r->has_object_space)
		put(&l, "; object space %.3g mm", r->metric[HKS_METRIC_OBJECT_SPACE].max * 1000);
	else
		put(&l, "; local vertex %.3g mm", r->metric[HKS_METRIC_LOCAL_VERTEX].max * 1000);
	if (r->worst_frame >= 0) {
		if (r->worst_bone >= 0)
			put(&l, " at bone %s%s%d", name ? name : "", name ? " #" : "#", (int)r->worst_bone);
		if (r->worst_track >= 0)
			put(&l, " (track %d)", (int)r->worst_track);
		put(&l, " frame %d", (int)r->worst_frame);
	}
	if (r->nan_samples)
		put(&l, "; %llu NaN samples", (unsigned long long)r->nan_samples);
	return l.len;
}
