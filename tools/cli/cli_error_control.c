/*
 * The lines `encode` prints for its error controls (--object-tolerance,
 * --bone-tolerance, --optimize size; docs/CLI.md "encode", docs/ENCODE.md
 * "Error control").
 */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- the options, shared by the JSON and the glTF paths of encode ---- */

bool cli_error_control_init(cli_error_control_args *a, int argc)
{
	memset(a, 0, sizeof(*a));
	a->bone_tols = (hks_bone_tolerance *)calloc((size_t)argc + 1, sizeof(hks_bone_tolerance));
	a->shell_ovr = (hks_shell_override *)calloc((size_t)argc + 1, sizeof(hks_shell_override));
	a->strings = (char **)calloc((size_t)argc + 1, sizeof(char *));
	return a->bone_tols && a->shell_ovr && a->strings;
}

void cli_error_control_free(cli_error_control_args *a)
{
	hks_error_control_report_free(&a->report);
	for (size_t k = 0; a->strings && k < a->num_strings; k++)
		free(a->strings[k]);
	free(a->strings);
	free(a->bone_tols);
	free(a->shell_ovr);
	memset(a, 0, sizeof(*a));
}

int cli_error_control_parse(cli_error_control_args *a, int argc, char **argv, int *i)
{
	const char *o = argv[*i];
	bool has = *i + 1 < argc;
	if ((!strcmp(o, "--object-tolerance") || !strcmp(o, "--shell")) && has) {
		double v = 0;
		if (!cli_parse_decimal(argv[++*i], &v) || !(v > 0) || !isfinite(v)) {
			fprintf(stderr, "hkspline encode: %s wants a positive distance in metres\n", o);
			return -1;
		}
		if (!strcmp(o, "--shell"))
			a->ctl.shell_distance = v;
		else
			a->ctl.object_tolerance = v;
		a->use = true;
		return 1;
	}
	if ((!strcmp(o, "--bone-tolerance") || !strcmp(o, "--shell-override")) && has) {
		const char *arg = argv[++*i];
		size_t n = strlen(arg) + 1;
		char *buf = (char *)malloc(n);
		if (!buf) {
			fprintf(stderr, "hkspline encode: out of memory\n");
			return -1;
		}
		a->strings[a->num_strings++] = buf;
		if (!strcmp(o, "--bone-tolerance")) {
			if (hks_bone_tolerance_parse(arg, buf, n, &a->bone_tols[a->ctl.num_bone_tolerances]) != 0) {
				fprintf(stderr,
				        "hkspline encode: --bone-tolerance wants GLOB=T or GLOB:rotation=T (translation, scale; "
				        "or t,r,s) with T > 0, not '%s'\n",
				        arg);
				return -1;
			}
			a->ctl.num_bone_tolerances++;
		} else {
			const char *eq = strrchr(arg, '=');
			double v = 0;
			if (!eq || eq == arg || !cli_parse_decimal(eq + 1, &v) || !(v > 0) || !isfinite(v)) {
				fprintf(stderr, "hkspline encode: --shell-override wants GLOB=S with S > 0, not '%s'\n", arg);
				return -1;
			}
			memcpy(buf, arg, (size_t)(eq - arg));
			buf[eq - arg] = '\0';
			a->shell_ovr[a->ctl.num_shell_overrides].pattern = buf;
			a->shell_ovr[a->ctl.num_shell_overrides].distance = v;
			a->ctl.num_shell_overrides++;
		}
		a->use = true;
		return 1;
	}
	if (!strcmp(o, "--optimize") && has) {
		const char *v = argv[++*i];
		if (!strcmp(v, "havok"))
			a->ctl.optimize = HKS_OPTIMIZE_HAVOK;
		else if (!strcmp(v, "size")) {
			a->ctl.optimize = HKS_OPTIMIZE_SIZE;
			a->use = true;
		} else {
			fprintf(stderr, "hkspline encode: --optimize takes havok or size\n");
			return -1;
		}
		return 1;
	}
	if (!strcmp(o, "--report")) {
		a->print_report = true;
		return 1;
	}
	return 0;
}

bool cli_error_control_attach(cli_error_control_args *a, hks_encode_options *o, const hks_skeleton *sk,
                              const int16_t *track_to_bone, uint32_t num_track_to_bone, const char *where)
{
	if (!a->use)
		return true;
	if (!sk && (a->ctl.object_tolerance > 0 || a->ctl.num_bone_tolerances)) {
		fprintf(stderr, "hkspline encode: --object-tolerance and --bone-tolerance need a skeleton: none beside %s; "
		                "give --skeleton S\n",
		        where);
		return false;
	}
	a->ctl.skeleton = sk;
	a->ctl.track_to_bone = num_track_to_bone ? track_to_bone : NULL;
	a->ctl.num_track_to_bone = num_track_to_bone;
	a->ctl.bone_tolerances = a->bone_tols;
	a->ctl.shell_overrides = a->shell_ovr;
	a->ctl.report = &a->report;
	o->control = &a->ctl;
	return true;
}

bool cli_error_control_print(cli_error_control_args *a, const char *out_path)
{
	if (!a->use)
		return true;
	cli_print_error_control(stdout, out_path, &a->ctl, &a->report, a->print_report);
	if (!a->report.bound_met)
		fprintf(stderr, "hkspline encode: %s: the bound was not met (see the error control line); the file is "
		                "written\n",
		        out_path);
	return a->report.bound_met != 0;
}
