/*
 * The lines `encode` prints for its error controls (--object-tolerance,
 * --bone-tolerance, --optimize size; docs/CLI.md "encode", docs/ENCODE.md
 * "Error control").
 */
#include "cli.h"

static const char *selector_name(unsigned sel)
{
	static const char *names[6] = {"Polar32", "ThreeComp40", "ThreeComp48", "ThreeComp24", "Straight16", "Uncompressed"};
	return sel < 6 ? names[sel] : "?";
}

static const char *bone_of(const hks_error_control *c, uint32_t t, int32_t *bone)
{
	int32_t b = (int32_t)t;
	if (c->track_to_bone && c->num_track_to_bone)
		b = t < c->num_track_to_bone ? c->track_to_bone[t] : -1;
	if (!c->skeleton || b < 0 || (uint32_t)b >= c->skeleton->num_bones)
		b = -1;
	*bone = b;
	return b >= 0 && c->skeleton->bone_names && c->skeleton->bone_names[b] ? c->skeleton->bone_names[b] : NULL;
}

void cli_print_error_control(FILE *out, const char *label, const hks_error_control *c,
                             const hks_error_control_report *r, bool per_track)
{
	fprintf(out, "%s: error control:", label);
	if (c->object_tolerance > 0) {
		int32_t wb = r->worst_bone;
		const char *wn = c->skeleton && wb >= 0 && (uint32_t)wb < c->skeleton->num_bones && c->skeleton->bone_names
		                     ? c->skeleton->bone_names[wb]
		                     : NULL;
		fprintf(out, " object space %.4g mm at bone %s #%d frame %d (bound %.4g mm: %s);", r->object_error * 1000.0,
		        wn ? wn : "?", (int)wb, (int)r->worst_frame, c->object_tolerance * 1000.0,
		        r->bound_met ? "met" : "NOT met");
		fprintf(out, " rotations ThreeComp40 %u, ThreeComp48 %u, uncompressed %u;",
		        r->rotation_quantization[HKS_ROT_THREECOMP40], r->rotation_quantization[HKS_ROT_THREECOMP48],
		        r->rotation_quantization[HKS_ROT_UNCOMPRESSED]);
	} else if (c->optimize == HKS_OPTIMIZE_SIZE) {
		fprintf(out, " optimize size: %llu B against %llu B for the Havok mode (%.3fx), Havok bound %s;",
		        (unsigned long long)r->size, (unsigned long long)r->havok_size,
		        r->havok_size ? (double)r->size / (double)r->havok_size : 0.0, r->bound_met ? "met" : "NOT met");
	}
	if (c->num_bone_tolerances)
		fprintf(out, " %u bone tolerance rule%s;", c->num_bone_tolerances, c->num_bone_tolerances == 1 ? "" : "s");
	fprintf(out, " %u encode%s, %llu bytes of spline data\n", r->iterations, r->iterations == 1 ? "" : "s",
	        (unsigned long long)r->size);
	if (!per_track)
		return;
	for (uint32_t t = 0; t < r->num_tracks; t++) {
		const hks_track_params *p = &r->per_track[t];
		int32_t bone;
		const char *name = bone_of(c, t, &bone);
		fprintf(out, "%s:   track %u (bone %s #%d): translation %.3g, rotation %.3g (%s), scale %.3g, degrees %u/%u/%u\n",
		        label, t, name ? name : "?", (int)bone, (double)p->translation_tolerance,
		        (double)p->rotation_tolerance, selector_name(p->rotation_quantization - 1u),
		        (double)p->scale_tolerance, p->translation_degree, p->rotation_degree, p->scale_degree);
	}
}
