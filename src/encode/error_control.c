/*
 * Error control beyond Havok's local tolerances (include/hkspline.h, section
 * "error control"; docs/ENCODE.md "Error control").
 *
 * Three controls run on top of the Havok-faithful encoder, which they call
 * as it is (hks_encode_stored_predict with the controls removed), changing
 * only its per-track parameters:
 *
 *  1. Per-bone tolerances: glob rules over bone names rewrite the tolerance
 *     fields of the tracks bound to matching bones (later rules win).
 *
 *  2. The object-space bound D. The virtual-vertex error of bone d (the three
 *     points at its shell distance s_d, after composing the hierarchy) moves
 *     by at most  sum over the driven ancestors a of d (d included) of
 *        e_t(a) + theta(a) * (|P_d - P_a| + s_d) + e_s(a) * |P_d - P_a|
 *     where e_t is a's translation error, theta its rotation error (radians)
 *     and e_s its relative scale error. With R_a the largest such lever over
 *     a's descendants and K_a the largest number of driven bones on a path
 *     from the root to one of a's descendants, a per-bone share
 *     beta_a = D / K_a makes every such sum at most D (each term of d's sum
 *     has K_a >= the number of driven bones above d). Errors of independent
 *     bones rarely add up in the same direction, so the start is the
 *     optimistic share D / sqrt(K_a); the loop then encodes, measures every
 *     bone's object-space error exactly as `hkspline error` does (through
 *     hks_compare_frames, against the input frames), and tightens the shares
 *     of the driven ancestors of every bone that exceeds, until none does.
 *     Each share is split between translation, rotation and scale; the
 *     rotation share picks the coarsest rotation quantization whose step
 *     error is at most half of it (ThreeComp40, else ThreeComp48, else
 *     uncompressed) and the fit tolerance gets the rest.
 *
 *  3. optimize = SIZE: the Havok mode's bound (every component within its
 *     tolerance plus one quantization step of the stored lane, the bound the
 *     corpus encode test asserts) with fewer bytes. Candidate encodes of the
 *     whole clip (degree 3 or 1, fit tolerances 1 to 3 times the bound's
 *     tolerance) are decoded and checked per track and part against the bound;
 *     each (track, part) takes the smallest candidate that meets it, and the
 *     combination is encoded and checked again (a part that fails there goes
 *     back to the Havok-mode fit).
 *
 * Everything is deterministic: the same input and options give the same bytes.
 */
#include "encode_internal.h"
#include "metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_ITERATIONS 16u
#define TOLERANCE_FLOOR 1e-7f
#define HKS_MAX_CHAIN 256 /* bones on one root..bone chain taken into account */
/* Angle error (radians) the rotation packers add at most, measured as the
 * largest rotation difference their truncating quantization leaves on unit
 * quaternions (ThreeComp40: 12-bit fields, 0.07-0.09 degrees on retail data
 * with Havok's truncation, half that rounded to the nearest level as the
 * controlled modes do; ThreeComp48: 15-bit fields, 8 times finer;
 * uncompressed: f32). */
static double quantization_angle(unsigned selector)
{
	switch (selector) {
	case HKS_ROT_THREECOMP40: return 0.8e-3;
	case HKS_ROT_THREECOMP48: return 1.0e-4;
	case HKS_ROT_UNCOMPRESSED: return 1e-6;
	default: return 0.8e-3;
	}
}
/* Component tolerance e bounds the quaternion difference by 2e (four
 * components), the angle by about twice that. */
#define ANGLE_PER_COMPONENT 3.0
/* The split of a bone's share between its parts. */
#define SHARE_T 0.25
#define SHARE_R 0.6
#define SHARE_S 0.15
/* The start: D * START_OPTIMISM / sqrt(K_a) per bone. Errors of a chain's bones
 * do not line up at one frame, so a share far above the worst-case D / K_a
 * still meets the bound on most bones, and the loop tightens only the others.
 * Measured on 24 Sekiro and Elden Ring clips at D = 1 mm: start 1 gives
 * 1.56x the retail size, 3 gives 1.53x, 10 gives 1.40x, 25 the same as 10
 * with more encodes. */
#define START_OPTIMISM 10.0

void hks_error_control_report_free(hks_error_control_report *report)
{
	if (!report)
		return;
	if (report->per_track) {
		hks_options o;
		memset(&o, 0, sizeof(o));
		o.allocator = report->allocator_;
		hks_buffer_free(&o, report->per_track, ((size_t)report->num_tracks + 1) * sizeof(hks_track_params));
	}
	memset(report, 0, sizeof(*report));
}

/* ---- per-bone tolerances -------------------------------------------------- */

int hks_bone_tolerance_parse(const char *arg, char *pattern_buf, size_t buf_size, hks_bone_tolerance *out)
{
	if (!arg || !pattern_buf || !buf_size || !out)
		return -1;
	memset(out, 0, sizeof(*out));
	const char *eq = strrchr(arg, '=');
	if (!eq || eq == arg)
		return -1;
	/* the pattern may itself hold ':' (it is a glob); the part list is after the last ':' before '=' */
	const char *colon = NULL;
	for (const char *c = arg; c < eq; c++)
		if (*c == ':')
			colon = c;
	unsigned parts = 0;
	const char *pat_end = eq;
	if (colon) {
		const char *p = colon + 1;
		bool all_known = p < eq;
		unsigned bits = 0;
		while (p < eq && all_known) {
			const char *q = p;
			while (q < eq && *q != ',')
				q++;
			size_t n = (size_t)(q - p);
			if ((n == 11 && !strncmp(p, "translation", n)) || (n == 1 && *p == 't'))
				bits |= HKS_BONE_PART_TRANSLATION;
			else if ((n == 8 && !strncmp(p, "rotation", n)) || (n == 1 && *p == 'r'))
				bits |= HKS_BONE_PART_ROTATION;
			else if ((n == 5 && !strncmp(p, "scale", n)) || (n == 1 && *p == 's'))
				bits |= HKS_BONE_PART_SCALE;
			else
				all_known = false;
			p = q < eq ? q + 1 : q;
		}
		if (all_known) {
			parts = bits;
			pat_end = colon;
		}
	}
	size_t plen = (size_t)(pat_end - arg);
	if (!plen || plen + 1 > buf_size)
		return -1;
	char *end = NULL;
	double v = strtod(eq + 1, &end);
	if (!end || end == eq + 1 || *end || !(v > 0) || !isfinite(v) || v > 3.0e38)
		return -1;
	memcpy(pattern_buf, arg, plen);
	pattern_buf[plen] = '\0';
	out->pattern = pattern_buf;
	out->parts = parts ? parts : HKS_BONE_PART_ALL;
	out->tolerance = (float)v;
	if (!(out->tolerance > 0))
		return -1;
	return 0;
}

/* The bone of track t (the binding; identity without one), -1 when none. */
static int32_t track_bone(const hks_error_control *c, uint32_t t)
{
	int32_t bone = (int32_t)t;
	if (c->track_to_bone && c->num_track_to_bone)
		bone = t < c->num_track_to_bone ? c->track_to_bone[t] : -1;
	if (bone < 0 || !c->skeleton || (uint32_t)bone >= c->skeleton->num_bones)
		return -1;
	return bone;
}

static const char *bone_name(const hks_skeleton *sk, int32_t bone)
{
	return bone >= 0 && sk && sk->bone_names ? sk->bone_names[bone] : NULL;
}

static hks_result check_rules(hks_ctx *ctx, const hks_error_control *c)
{
	if (c->num_bone_tolerances && !c->bone_tolerances)
		return hks_fail(ctx, HKS_E_ARGUMENT, -1, "error control: %u bone tolerances and no array",
		                c->num_bone_tolerances);
	for (uint32_t k = 0; k < c->num_bone_tolerances; k++) {
		const hks_bone_tolerance *r = &c->bone_tolerances[k];
		if (!r->pattern || !(r->tolerance > 0) || !isfinite(r->tolerance) || r->parts > HKS_BONE_PART_ALL) {
			hks_err_object(ctx, "encoder options");
			hks_err_member(ctx, "bone_tolerances");
			return hks_fail(ctx, HKS_E_ARGUMENT, -1,
			                "bone tolerance %u ('%s'): needs a pattern, a positive finite tolerance and known parts",
			                k, r->pattern ? r->pattern : "(null)");
		}
	}
	if (c->num_bone_tolerances && !c->skeleton)
		return hks_fail(ctx, HKS_E_ARGUMENT, -1, "error control: bone tolerances need a skeleton (bone names)");
	return HKS_OK;
}

static void apply_rules(const hks_error_control *c, uint32_t num_tracks, hks_track_params *out)
{
	for (uint32_t t = 0; t < num_tracks; t++) {
		const char *name = bone_name(c->skeleton, track_bone(c, t));
		if (!name)
			continue;
		for (uint32_t k = 0; k < c->num_bone_tolerances; k++) {
			const hks_bone_tolerance *r = &c->bone_tolerances[k];
			if (!hks_glob_match(r->pattern, name))
				continue;
			unsigned parts = r->parts ? r->parts : HKS_BONE_PART_ALL;
			if (parts & HKS_BONE_PART_TRANSLATION)
				out[t].translation_tolerance = r->tolerance;
			if (parts & HKS_BONE_PART_ROTATION)
				out[t].rotation_tolerance = r->tolerance;
			if (parts & HKS_BONE_PART_SCALE)
				out[t].scale_tolerance = r->tolerance;
		}
	}
}

hks_result hks_bone_tolerances_resolve(const hks_error_control *control, uint32_t num_tracks,
                                       const hks_track_params *base, hks_track_params *out, hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, NULL, 0, err);
	if (!control || (num_tracks && !out))
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_bone_tolerances_resolve: NULL argument");
	HKS_TRY(check_rules(&ctx, control));
	for (uint32_t t = 0; t < num_tracks; t++)
		if (base)
			out[t] = base[t];
		else
			memset(&out[t], 0, sizeof(out[t]));
	apply_rules(control, num_tracks, out);
	return HKS_OK;
}

/* ---- shared pieces ----------------------------------------------------------- */

/* Every field of a track's parameters, resolved as the encoder resolves them
 * (entry -> defaults -> Havok's defaults). */
static hks_track_params resolved(const hks_encode_options *o, uint32_t t)
{
	hks_track_params p;
	memset(&p, 0, sizeof(p));
	if (o->per_track && t < o->num_per_track)
		p = o->per_track[t];
	const hks_track_params *d = &o->defaults;
#define PICK(field, dflt) p.field = p.field ? p.field : d->field ? d->field : (dflt)
	PICK(translation_tolerance, HKS_ENC_DEFAULT_TOLERANCE);
	PICK(rotation_tolerance, HKS_ENC_DEFAULT_TOLERANCE);
	PICK(scale_tolerance, HKS_ENC_DEFAULT_TOLERANCE);
	PICK(translation_degree, HKS_ENC_DEFAULT_DEGREE);
	PICK(rotation_degree, HKS_ENC_DEFAULT_DEGREE);
	PICK(scale_degree, HKS_ENC_DEFAULT_DEGREE);
	PICK(rotation_quantization, HKS_ENC_ROT_QUANT(HKS_ROT_THREECOMP40));
	PICK(translation_quantization, HKS_ENC_SCALAR_16BIT);
	PICK(scale_quantization, HKS_ENC_SCALAR_16BIT);
#undef PICK
	return p;
}

static hks_track_params resolved_float(const hks_encode_options *o, uint32_t i)
{
	hks_track_params p;
	memset(&p, 0, sizeof(p));
	if (o->per_float_track && i < o->num_per_float_track)
		p = o->per_float_track[i];
	const hks_track_params *d = &o->defaults;
	p.float_tolerance = p.float_tolerance ? p.float_tolerance
	                    : d->float_tolerance ? d->float_tolerance
	                                         : HKS_ENC_DEFAULT_TOLERANCE;
	p.float_degree = p.float_degree ? p.float_degree : d->float_degree ? d->float_degree : HKS_ENC_DEFAULT_DEGREE;
	p.float_quantization = p.float_quantization   ? p.float_quantization
	                       : d->float_quantization ? d->float_quantization
	                                               : HKS_ENC_SCALAR_16BIT;
	return p;
}

/* One encode with the controls removed. */
static hks_result encode_plain(const hks_frames_in *in, const hks_encode_options *opts, const hks_track_params *pt,
                               const hks_track_params *pf, hks_stored_animation **out, hks_error *err)
{
	hks_encode_options o = *opts;
	o.control = NULL;
	o.per_track = pt;
	o.num_per_track = pt ? in->num_transform_tracks : 0;
	o.per_float_track = pf;
	o.num_per_float_track = pf ? in->num_float_tracks : 0;
	/* the controlled modes quantize to the nearest level: the decoder reads any
	 * level, and the nearest halves the quantization error Havok's truncation
	 * leaves (and removes its bias, which adds up along a chain) */
	hks_predictor_options po;
	memset(&po, 0, sizeof(po));
	po.nearest_quantization = 1;
	po.tolerance_guard = !opts->havok_unguarded;
	return hks_encode_stored_predict(in, &o, &po, out, err);
}

/* The decoded frames of a stored structure (buffers owned by the caller). */
typedef struct decoded {
	hks_frames_in f;
	float *t, *fl;
	size_t t_size, fl_size;
} decoded;

static void decoded_free(hks_ctx *ctx, decoded *d)
{
	if (d->t)
		hks_free(ctx, d->t, d->t_size);
	if (d->fl)
		hks_free(ctx, d->fl, d->fl_size);
	memset(d, 0, sizeof(*d));
}

static hks_result decode(hks_ctx *ctx, const hks_stored_animation *s, decoded *d, hks_error *err)
{
	memset(d, 0, sizeof(*d));
	size_t nf = (size_t)s->num_frames, T = (size_t)s->num_transform_tracks, F = (size_t)s->num_float_tracks;
	d->t_size = (nf * T * HKS_TRACK_SAMPLE_FLOATS + 1) * sizeof(float);
	d->fl_size = (nf * F + 1) * sizeof(float);
	d->t = (float *)hks_malloc(ctx, d->t_size);
	d->fl = (float *)hks_malloc(ctx, d->fl_size);
	if (!d->t || !d->fl) {
		decoded_free(ctx, d);
		return HKS_E_NOMEM;
	}
	d->f.num_frames = (uint32_t)nf;
	d->f.num_transform_tracks = (uint32_t)T;
	d->f.num_float_tracks = (uint32_t)F;
	d->f.duration = s->duration;
	d->f.transforms = T ? d->t : NULL;
	d->f.floats = F ? d->fl : NULL;
	hks_sample_options so;
	memset(&so, 0, sizeof(so));
	hks_result r = hks_sample_frames(s, &so, 0, (uint32_t)nf, d->t, d->fl, err);
	if (r != HKS_OK)
		decoded_free(ctx, d);
	return r;
}

/* Spline data bytes of a stored structure as the packer lays it out (the SDK's guard rule). */
static uint64_t stored_size(const hks_stored_animation *s, const hks_encode_options *opts)
{
	hks_pack_options po;
	memset(&po, 0, sizeof(po));
	po.base = opts->base;
	po.guard = hks_guard_for_sdk(opts->sdk ? opts->sdk : HKS_ENC_DEFAULT_SDK);
	hks_packed_spline *p = NULL;
	hks_error e;
	uint64_t n = 0;
	if (hks_stored_pack(s, &po, &p, &e) == HKS_OK)
		n = p->header.data_size;
	hks_packed_spline_free(p);
	return n;
}

static hks_track_params *params_alloc(hks_ctx *ctx, uint32_t n)
{
	return (hks_track_params *)hks_calloc(ctx, (size_t)n + 1, sizeof(hks_track_params));
}

static void params_free(hks_ctx *ctx, hks_track_params *p, uint32_t n)
{
	if (p)
		hks_free(ctx, p, ((size_t)n + 1) * sizeof(hks_track_params));
}

static uint64_t align4(uint64_t x)
{
	return (x + 3u) & ~(uint64_t)3u;
}

/* Bytes one stored part takes (the layout of FORMAT.md §2.5-§2.7: static
 * lanes, or a spline's header, knots, bounds and control points; alignment
 * to 4 at the part's end, the packer's rule up to the quaternion alignment). */
static uint64_t part_bytes(const hks_stored_part *p, int rotation)
{
	uint64_t n = 0;
	if (rotation) {
		unsigned sel = p->quantization;
		if (p->is_spline)
			n = 3u + p->num_knots + (uint64_t)p->num_control_points * hks_rotation_size(sel);
		else if (p->flags & 0x0F)
			n = hks_rotation_size(sel);
		return align4(n);
	}
	for (int k = 0; k < 4; k++)
		if (p->flags & (1u << k))
			n += 4;
	if (p->is_spline)
		n += 3u + p->num_knots + 8u * p->spline_lanes +
		     (uint64_t)p->num_control_points * p->spline_lanes * (p->quantization ? 2u : 1u);
	return align4(n);
}

/* ---- the object-space bound ---------------------------------------------------- */

typedef struct hierarchy {
	uint32_t nb;
	int32_t *parent;     /* per bone */
	int32_t *bone_track; /* per bone: the driving track (the first bound to it), -1 */
	double *shell;       /* per bone */
	double *reach;       /* per bone: R_a */
	uint32_t *depth;     /* per bone: K_a */
} hierarchy;

static hks_result hierarchy_build(hks_ctx *ctx, const hks_error_control *c, const hks_frames_in *in, hierarchy *h)
{
	const hks_skeleton *sk = c->skeleton;
	uint32_t nb = sk->num_bones, T = in->num_transform_tracks, N = in->num_frames;
	if (nb > ctx->limits.max_tracks)
		return hks_fail(ctx, HKS_E_LIMIT, -1, "skeleton has %u bones (limit %u)", nb, ctx->limits.max_tracks);
	h->nb = nb;
	h->parent = (int32_t *)hks_calloc(ctx, nb + 1, sizeof(int32_t));
	h->bone_track = (int32_t *)hks_calloc(ctx, nb + 1, sizeof(int32_t));
	h->shell = (double *)hks_calloc(ctx, nb + 1, sizeof(double));
	h->reach = (double *)hks_calloc(ctx, nb + 1, sizeof(double));
	h->depth = (uint32_t *)hks_calloc(ctx, nb + 1, sizeof(uint32_t));
	hks_xform_d *pose = (hks_xform_d *)hks_calloc(ctx, nb + 1, sizeof(hks_xform_d));
	uint32_t *driven = (uint32_t *)hks_calloc(ctx, nb + 1, sizeof(uint32_t)); /* the bone order */
	hks_result r = HKS_OK;
	if (!h->parent || !h->bone_track || !h->shell || !h->reach || !h->depth || !pose || !driven) {
		r = HKS_E_NOMEM;
		goto out;
	}
	double shell = c->shell_distance > 0 ? c->shell_distance : HKS_DEFAULT_SHELL_DISTANCE;
	for (uint32_t b = 0; b < nb; b++) {
		int32_t p = b < sk->num_parent_indices && sk->parent_indices ? sk->parent_indices[b] : -1;
		if (p < -1 || p >= (int32_t)nb || p == (int32_t)b) {
			hks_err_object(ctx, "skeleton %s", sk->name ? sk->name : "?");
			hks_err_member(ctx, "parentIndices");
			r = hks_fail(ctx, HKS_E_MALFORMED, -1, "bone %u has parent index %d (%u bones)", b, (int)p, nb);
			goto out;
		}
		h->parent[b] = p;
		h->bone_track[b] = -1;
		h->shell[b] = shell;
		const char *name = bone_name(sk, (int32_t)b);
		for (uint32_t k = 0; name && k < c->num_shell_overrides; k++)
			if (c->shell_overrides[k].pattern && hks_glob_match(c->shell_overrides[k].pattern, name) &&
			    c->shell_overrides[k].distance > 0)
				h->shell[b] = c->shell_overrides[k].distance;
	}
	for (uint32_t b = 0; b < nb; b++) {
		uint32_t steps = 0;
		for (int32_t a = h->parent[b]; a >= 0; a = h->parent[a])
			if (++steps > nb) {
				hks_err_object(ctx, "skeleton %s", sk->name ? sk->name : "?");
				hks_err_member(ctx, "parentIndices");
				r = hks_fail(ctx, HKS_E_MALFORMED, -1, "bone %u: the parent chain has a cycle", b);
				goto out;
			}
	}
	for (uint32_t t = 0; t < T; t++) {
		int32_t b = track_bone(c, t);
		if (b >= 0 && h->bone_track[b] < 0)
			h->bone_track[b] = (int32_t)t;
	}
	/* K: driven bones on the path root..d, maximized over a's descendants d */
	for (uint32_t d = 0; d < nb; d++) {
		uint32_t k = 0;
		for (int32_t a = (int32_t)d; a >= 0; a = h->parent[a])
			k += h->bone_track[a] >= 0;
		for (int32_t a = (int32_t)d; a >= 0; a = h->parent[a])
			if (k > h->depth[a])
				h->depth[a] = k;
	}
	/* R: the largest lever |P_d - P_a| + s_d over descendants, over every frame;
	 * bones composed in an order where parents come first (by depth) */
	{
		uint32_t at = 0;
		for (uint32_t lvl = 0; at < nb && lvl <= nb; lvl++)
			for (uint32_t b = 0; b < nb; b++) {
				uint32_t dpt = 0;
				for (int32_t a = h->parent[b]; a >= 0; a = h->parent[a])
					dpt++;
				if (dpt == lvl)
					driven[at++] = b; /* reused as the order */
			}
	}
	static const hks_xform_d identity = {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
	for (uint32_t f = 0; f < N; f++) {
		for (uint32_t k = 0; k < nb; k++) {
			uint32_t x = driven[k];
			hks_xform_d local = identity;
			int32_t t = h->bone_track[x];
			bool ok = true;
			if (t >= 0)
				ok = hks_xform_from_sample(in->transforms + ((size_t)f * T + (size_t)t) * HKS_TRACK_SAMPLE_FLOATS,
				                           &local);
			else if (sk->reference_pose && x < sk->num_reference_pose)
				ok = hks_xform_from_qs(&sk->reference_pose[x], &local);
			if (!ok)
				local = identity; /* a non-finite sample: no lever from it */
			int32_t p = h->parent[x];
			if (p >= 0)
				hks_xform_compose(&pose[p], &local, &pose[x]);
			else
				pose[x] = local;
		}
		for (uint32_t d = 0; d < nb; d++)
			for (int32_t a = (int32_t)d; a >= 0; a = h->parent[a]) {
				double dx = pose[d].t[0] - pose[a].t[0], dy = pose[d].t[1] - pose[a].t[1],
				       dz = pose[d].t[2] - pose[a].t[2];
				double lever = sqrt(dx * dx + dy * dy + dz * dz) + h->shell[d];
				if (isfinite(lever) && lever > h->reach[a])
					h->reach[a] = lever;
			}
	}
out:
	if (pose)
		hks_free(ctx, pose, (nb + 1) * sizeof(hks_xform_d));
	if (driven)
		hks_free(ctx, driven, (nb + 1) * sizeof(uint32_t));
	return r;
}

static void hierarchy_free(hks_ctx *ctx, hierarchy *h)
{
	size_t n = (size_t)h->nb + 1;
	if (h->parent)
		hks_free(ctx, h->parent, n * sizeof(int32_t));
	if (h->bone_track)
		hks_free(ctx, h->bone_track, n * sizeof(int32_t));
	if (h->shell)
		hks_free(ctx, h->shell, n * sizeof(double));
	if (h->reach)
		hks_free(ctx, h->reach, n * sizeof(double));
	if (h->depth)
		hks_free(ctx, h->depth, n * sizeof(uint32_t));
	memset(h, 0, sizeof(*h));
}

/* A track's share of the bound, in metres at its bone's lever. */
typedef struct share {
	double beta;   /* the whole share */
	double lever;  /* R_a (> 0) */
	int fixed;     /* tolerances set by a bone rule: start from them */
} share;

static float clamp_tol(double v)
{
	if (!(v > TOLERANCE_FLOOR))
		return TOLERANCE_FLOOR;
	if (v > 1.0)
		return 1.0f;
	return (float)v;
}

/* Parameters of one track from its share: translation and scale tolerances
 * per component, the rotation quantization and the fit tolerance. */
static void share_to_params(const share *sh, hks_track_params *p)
{
	double theta = SHARE_R * sh->beta / sh->lever;
	unsigned sel = HKS_ROT_THREECOMP40;
	if (quantization_angle(HKS_ROT_THREECOMP40) > 0.5 * theta)
		sel = quantization_angle(HKS_ROT_THREECOMP48) <= 0.5 * theta ? HKS_ROT_THREECOMP48 : HKS_ROT_UNCOMPRESSED;
	p->rotation_quantization = HKS_ENC_ROT_QUANT(sel);
	p->rotation_tolerance = clamp_tol((theta - quantization_angle(sel)) / ANGLE_PER_COMPONENT);
	p->translation_tolerance = clamp_tol(SHARE_T * sh->beta / sqrt(3.0));
	p->scale_tolerance = clamp_tol(SHARE_S * sh->beta / (sqrt(3.0) * sh->lever));
}

/* Contributions to bone d's error at frame f: for each driven bone x on the
 * chain root..d, the error of d minus its error when x's local transform is
 * taken from A (the input) instead of B (the encode). chain[]/contrib[] get
 * the driven bones and their contributions (>= 0); returns their count. */
static uint32_t attribute(const hierarchy *h, const hks_skeleton *sk, const hks_frames_in *a,
                          const hks_frames_in *b, uint32_t d, uint32_t f, uint32_t *chain, double *contrib)
{
	uint32_t path[HKS_MAX_CHAIN], len = 0;
	for (int32_t x = (int32_t)d; x >= 0 && len < HKS_MAX_CHAIN; x = h->parent[x])
		path[len++] = (uint32_t)x;
	static const hks_xform_d identity = {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
	hks_xform_d la[HKS_MAX_CHAIN], lb[HKS_MAX_CHAIN];
	const uint32_t T = a->num_transform_tracks;
	for (uint32_t k = 0; k < len; k++) {
		uint32_t x = path[k];
		int32_t t = h->bone_track[x];
		la[k] = lb[k] = identity;
		if (t >= 0) {
			size_t at = ((size_t)f * T + (size_t)t) * HKS_TRACK_SAMPLE_FLOATS;
			if (!hks_xform_from_sample(a->transforms + at, &la[k]) || !hks_xform_from_sample(b->transforms + at, &lb[k]))
				return 0;
		} else if (sk->reference_pose && x < sk->num_reference_pose) {
			if (!hks_xform_from_qs(&sk->reference_pose[x], &la[k]))
				return 0;
			lb[k] = la[k];
		}
	}
	/* compose from the root (path[len-1]) down to d (path[0]); `swap` takes A's local at one position */
	uint32_t n = 0;
	hks_xform_d pa = identity, pb = identity;
	for (uint32_t k = len; k-- > 0;) {
		hks_xform_d x;
		hks_xform_compose(&pa, &la[k], &x);
		pa = x;
		hks_xform_compose(&pb, &lb[k], &x);
		pb = x;
	}
	double shell = h->shell[d];
	double e0 = hks_vertex_error(&pa, &pb, shell);
	for (uint32_t s = 0; s < len; s++) {
		if (h->bone_track[path[s]] < 0)
			continue;
		hks_xform_d q = identity;
		for (uint32_t k = len; k-- > 0;) {
			hks_xform_d x;
			hks_xform_compose(&q, k == s ? &la[k] : &lb[k], &x);
			q = x;
		}
		double e = hks_vertex_error(&pa, &q, shell);
		chain[n] = path[s];
		contrib[n] = isfinite(e) && e0 > e ? e0 - e : 0.0;
		n++;
	}
	return n;
}

static hks_result object_bound(hks_ctx *ctx, const hks_frames_in *in, const hks_encode_options *opts,
                               const hks_error_control *c, hks_track_params *pt, const hks_track_params *pf,
                               const bool *ruled, hks_error_control_report *rep, hks_stored_animation **out,
                               hks_error *err)
{
	const uint32_t T = in->num_transform_tracks;
	const double D = c->object_tolerance;
	hierarchy h;
	memset(&h, 0, sizeof(h));
	share *sh = (share *)hks_calloc(ctx, (size_t)T + 1, sizeof(share));
	double *fac = (double *)hks_calloc(ctx, (size_t)T + 1, sizeof(double));
	double *bone_err = NULL;
	hks_stored_animation *s = NULL;
	hks_result r = sh && fac ? hierarchy_build(ctx, c, in, &h) : HKS_E_NOMEM;
	uint32_t *bone_frame = NULL, chain[HKS_MAX_CHAIN];
	double contrib[HKS_MAX_CHAIN];
	if (r == HKS_OK && (!(bone_err = (double *)hks_calloc(ctx, (size_t)h.nb + 1, sizeof(double))) ||
	                    !(bone_frame = (uint32_t *)hks_calloc(ctx, (size_t)h.nb + 1, sizeof(uint32_t)))))
		r = HKS_E_NOMEM;
	if (r != HKS_OK)
		goto out;
	for (uint32_t t = 0; t < T; t++) {
		int32_t b = track_bone(c, t);
		sh[t].lever = b >= 0 && h.reach[b] > 0 ? h.reach[b] : 1.0;
		uint32_t k = b >= 0 && h.depth[b] ? h.depth[b] : 1;
		sh[t].beta = D * START_OPTIMISM / sqrt((double)k);
		sh[t].fixed = ruled[t];
		hks_track_params keep = pt[t];
		share_to_params(&sh[t], &pt[t]);
		if (ruled[t]) {
			/* a bone rule gives the starting tolerances; the bound may still tighten them */
			pt[t].translation_tolerance = keep.translation_tolerance;
			pt[t].rotation_tolerance = keep.rotation_tolerance;
			pt[t].scale_tolerance = keep.scale_tolerance;
		}
	}
	uint32_t max_it = c->max_iterations ? c->max_iterations : DEFAULT_ITERATIONS;
	hks_compare_options co;
	memset(&co, 0, sizeof(co));
	co.base = opts->base;
	co.skeleton = c->skeleton;
	co.track_to_bone = c->track_to_bone;
	co.num_track_to_bone = c->num_track_to_bone;
	co.shell_distance = c->shell_distance;
	co.shell_overrides = c->shell_overrides;
	co.num_shell_overrides = c->num_shell_overrides;
	for (uint32_t it = 0; it < max_it; it++) {
		if (s)
			hks_stored_free(s);
		s = NULL;
		r = encode_plain(in, opts, pt, pf, &s, err);
		rep->iterations = it + 1;
		if (r != HKS_OK)
			goto out;
		decoded dd;
		r = decode(ctx, s, &dd, err);
		if (r != HKS_OK)
			goto out;
		hks_compare_result *cr = NULL;
		r = hks_compare_frames(in, &dd.f, &co, &cr, err);
		if (r != HKS_OK) {
			decoded_free(ctx, &dd);
			goto out;
		}
		const hks_metric_summary *ms = &cr->metric[HKS_METRIC_OBJECT_SPACE];
		rep->object_error = ms->max;
		rep->worst_bone = ms->worst_index;
		rep->worst_frame = ms->worst_frame;
		for (uint32_t b = 0; b < h.nb; b++) {
			bone_err[b] = 0;
			bone_frame[b] = 0;
		}
		const double *v = cr->values[HKS_METRIC_OBJECT_SPACE];
		for (uint32_t f = 0; f < cr->num_frames; f++)
			for (uint32_t b = 0; b < h.nb; b++) {
				double e = v[(size_t)f * h.nb + b];
				if (e > bone_err[b]) {
					bone_err[b] = e;
					bone_frame[b] = f;
				}
			}
		rep->bound_met = ms->max <= D;
		hks_compare_result_free(cr); /* ms points into it */
		if (rep->bound_met || it + 1 == max_it) {
			decoded_free(ctx, &dd);
			break;
		}
		/* tighten the tracks that cause the excess: for every bone above the
		 * bound, at its worst frame, each driven ancestor's contribution is
		 * the error that goes away when that ancestor alone is exact; the
		 * largest contributors are tightened until they cover the excess */
		for (uint32_t t = 0; t < T; t++)
			fac[t] = 1.0;
		for (uint32_t d = 0; d < h.nb; d++) {
			if (!(bone_err[d] > D))
				continue;
			uint32_t n = attribute(&h, c->skeleton, in, &dd.f, d, bone_frame[d], chain, contrib);
			double excess = bone_err[d] - 0.9 * D, covered = 0;
			for (uint32_t round = 0; round < n && covered < excess; round++) {
				uint32_t best = n;
				for (uint32_t k = 0; k < n; k++)
					if (contrib[k] > 0 && (best == n || contrib[k] > contrib[best]))
						best = k;
				if (best == n)
					break;
				int32_t t = h.bone_track[chain[best]];
				/* shrink this track's error by the part of the excess it has to cover */
				double need = excess - covered, f = 1.0 - need / contrib[best];
				f = f < 0.3 ? 0.3 : f > 0.85 ? 0.85 : f;
				if (t >= 0 && f < fac[t])
					fac[t] = f;
				covered += contrib[best] * (1.0 - f);
				contrib[best] = 0;
			}
			if (covered < excess) /* contributions did not explain it: every driven ancestor */
				for (int32_t x = (int32_t)d; x >= 0; x = h.parent[x]) {
					int32_t t = h.bone_track[x];
					if (t >= 0 && 0.7 < fac[t])
						fac[t] = 0.7;
				}
		}
		decoded_free(ctx, &dd);
		bool changed = false;
		for (uint32_t t = 0; t < T; t++) {
			if (fac[t] >= 1.0)
				continue;
			hks_track_params before = pt[t];
			if (sh[t].fixed) {
				pt[t].translation_tolerance = clamp_tol(pt[t].translation_tolerance * fac[t]);
				pt[t].rotation_tolerance = clamp_tol(pt[t].rotation_tolerance * fac[t]);
				pt[t].scale_tolerance = clamp_tol(pt[t].scale_tolerance * fac[t]);
			} else {
				sh[t].beta *= fac[t];
				share_to_params(&sh[t], &pt[t]);
			}
			changed |= memcmp(&before, &pt[t], sizeof(before)) != 0;
		}
		if (!changed)
			break; /* every responsible track is at the floor: the bound cannot be met */
	}
	for (uint32_t t = 0; t < T; t++) {
		unsigned sel = pt[t].rotation_quantization - 1u;
		if (sel < 6)
			rep->rotation_quantization[sel]++;
	}
	*out = s;
	s = NULL;
out:
	if (s)
		hks_stored_free(s);
	if (bone_err)
		hks_free(ctx, bone_err, ((size_t)h.nb + 1) * sizeof(double));
	if (bone_frame)
		hks_free(ctx, bone_frame, ((size_t)h.nb + 1) * sizeof(uint32_t));
	hierarchy_free(ctx, &h);
	if (sh)
		hks_free(ctx, sh, ((size_t)T + 1) * sizeof(share));
	if (fac)
		hks_free(ctx, fac, ((size_t)T + 1) * sizeof(double));
	return r;
}

/* ---- smaller files at Havok's bound ------------------------------------------------ */

/* Per (track, part) of a candidate: bytes and whether every component meets the bound. */
typedef struct part_score {
	uint64_t bytes;
	uint8_t ok;
} part_score;

/* 1 / (levels of one ThreeComp component over [-1/sqrt 2, 1/sqrt 2]) per selector (ENCODER.md §9.5). */
static double rotation_step(unsigned selector)
{
	static const double q[6] = {0.0, 1.0 / 2894.8953, 1.0 / 23169.061, 1.0 / 89.095451, 1.0 / 23169.0, 0.0};
	return selector < 6 ? q[selector] : 0.0;
}

/* One quantization step of a stored lane, the largest over blocks (the bound's
 * allowance; rotations: 3 steps of the reconstructed component). */
static double lane_step(const hks_stored_animation *s, uint32_t t, int part, int lane)
{
	double step = 0;
	for (uint32_t b = 0; b < s->num_blocks; b++) {
		const hks_stored_part *p = part < 3 ? &s->blocks[b].tracks[t].part[part] : &s->blocks[b].floats[t];
		double st = 0;
		if (part == 1) {
			if (p->is_spline || (p->flags & 0x0F))
				st = 3.0 * rotation_step(p->quantization);
		} else if (p->flags & (0x10 << lane)) {
			st = ((double)p->max[lane] - (double)p->min[lane]) / (p->quantization ? 65535.0 : 255.0);
		}
		if (st > step)
			step = st;
	}
	return step;
}

#define F32_SLACK 1e-5

/* Score every (track, part) of a candidate against the Havok-mode bound: the
 * component tolerances of `bound` (per track), one step, the f32 slack, and
 * for rotations the sample's distance from unit length. Parts: T, R, S per
 * transform track (index 3t + k), then one per float track (3T + i). */
static void score(const hks_frames_in *in, const hks_stored_animation *s, const decoded *d,
                  const hks_track_params *bound, const hks_track_params *fbound, part_score *sc)
{
	const uint32_t N = in->num_frames, T = in->num_transform_tracks, F = in->num_float_tracks;
	for (uint32_t t = 0; t < T; t++)
		for (int part = 0; part < 3; part++) {
			part_score *ps = &sc[3 * (size_t)t + (size_t)part];
			ps->bytes = 0;
			for (uint32_t b = 0; b < s->num_blocks; b++)
				ps->bytes += part_bytes(&s->blocks[b].tracks[t].part[part], part == 1);
			double tol = part == 0 ? bound[t].translation_tolerance
			             : part == 1 ? bound[t].rotation_tolerance
			                         : bound[t].scale_tolerance;
			int k0 = part == 0 ? 0 : part == 1 ? 3 : 7, lanes = part == 1 ? 4 : 3;
			bool ok = true;
			for (int lane = 0; lane < lanes && ok; lane++) {
				double lb = tol + lane_step(s, t, part, lane) + F32_SLACK;
				for (uint32_t f = 0; f < N && ok; f++) {
					size_t at = ((size_t)f * T + t) * HKS_TRACK_SAMPLE_FLOATS;
					float x = in->transforms[at + (size_t)k0 + (size_t)lane], y = d->t[at + (size_t)k0 + (size_t)lane];
					if (!isfinite(x) || !isfinite(y))
						continue; /* non-finite samples are data, not error */
					double bnd = lb;
					if (part == 1) {
						const float *q = &in->transforms[at + 3];
						double n = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] +
						                (double)q[3] * q[3]);
						bnd += fabs(1.0 - n);
					}
					ok = fabs((double)x - (double)y) <= bnd;
				}
			}
			ps->ok = ok;
		}
	for (uint32_t i = 0; i < F; i++) {
		part_score *ps = &sc[3 * (size_t)T + i];
		ps->bytes = 0;
		for (uint32_t b = 0; b < s->num_blocks; b++)
			ps->bytes += part_bytes(&s->blocks[b].floats[i], 0);
		double lb = fbound[i].float_tolerance + lane_step(s, i, 3, 0) + F32_SLACK;
		bool ok = true;
		for (uint32_t f = 0; f < N && ok; f++) {
			float x = in->floats[(size_t)f * F + i], y = d->fl[(size_t)f * F + i];
			if (isfinite(x) && isfinite(y))
				ok = fabs((double)x - (double)y) <= lb;
		}
		ps->ok = ok;
	}
}

/* The candidate fits: degree and a factor on the fit tolerance. Candidate 0
 * is the Havok mode itself. */
static const struct {
	uint8_t degree;
	float factor;
} candidates[] = {{0, 1.0f}, {1, 1.0f}, {0, 1.5f}, {1, 1.5f}, {0, 2.0f}, {1, 2.0f}, {0, 3.0f}, {1, 3.0f}};
#define NUM_CANDIDATES (sizeof(candidates) / sizeof(candidates[0]))

static void candidate_params(unsigned k, const hks_track_params *base, hks_track_params *out)
{
	*out = *base;
	float m = candidates[k].factor;
	out->translation_tolerance *= m;
	out->rotation_tolerance *= m;
	out->scale_tolerance *= m;
	out->float_tolerance *= m;
	if (candidates[k].degree)
		out->translation_degree = out->rotation_degree = out->scale_degree = out->float_degree =
		    candidates[k].degree;
}

/* Set part `part` (0..2 of a transform track, 3 = float) of dst from src. */
static void take_part(hks_track_params *dst, const hks_track_params *src, int part)
{
	switch (part) {
	case 0:
		dst->translation_tolerance = src->translation_tolerance;
		dst->translation_degree = src->translation_degree;
		break;
	case 1:
		dst->rotation_tolerance = src->rotation_tolerance;
		dst->rotation_degree = src->rotation_degree;
		break;
	case 2:
		dst->scale_tolerance = src->scale_tolerance;
		dst->scale_degree = src->scale_degree;
		break;
	default:
		dst->float_tolerance = src->float_tolerance;
		dst->float_degree = src->float_degree;
		break;
	}
}

static hks_result optimize_size(hks_ctx *ctx, const hks_frames_in *in, const hks_encode_options *opts,
                                hks_track_params *pt, hks_track_params *pf, hks_error_control_report *rep,
                                hks_stored_animation **out, hks_error *err)
{
	const uint32_t T = in->num_transform_tracks, F = in->num_float_tracks;
	const size_t P = 3 * (size_t)T + F;
	hks_result r = HKS_OK;
	part_score *best = (part_score *)hks_calloc(ctx, P + 1, sizeof(part_score));
	uint8_t *choice = (uint8_t *)hks_calloc(ctx, P + 1, 1);
	part_score *sc = (part_score *)hks_calloc(ctx, P + 1, sizeof(part_score));
	hks_track_params *ct = params_alloc(ctx, T), *cf = params_alloc(ctx, F);
	hks_track_params *bt = params_alloc(ctx, T), *bf = params_alloc(ctx, F); /* the bound: Havok mode */
	hks_stored_animation *s = NULL;
	if (!best || !choice || !sc || !ct || !cf || !bt || !bf) {
		r = HKS_E_NOMEM;
		goto out;
	}
	memcpy(bt, pt, T * sizeof(*pt));
	memcpy(bf, pf, F * sizeof(*pf));
	for (unsigned k = 0; k < NUM_CANDIDATES; k++) {
		for (uint32_t t = 0; t < T; t++)
			candidate_params(k, &bt[t], &ct[t]);
		for (uint32_t i = 0; i < F; i++)
			candidate_params(k, &bf[i], &cf[i]);
		r = encode_plain(in, opts, ct, cf, &s, err);
		rep->iterations++;
		if (r != HKS_OK)
			goto out;
		decoded dd;
		r = decode(ctx, s, &dd, err);
		if (r != HKS_OK)
			goto out;
		score(in, s, &dd, bt, bf, sc);
		decoded_free(ctx, &dd);
		if (k == 0)
			rep->havok_size = stored_size(s, opts);
		hks_stored_free(s);
		s = NULL;
		for (size_t p = 0; p < P; p++)
			if (k == 0 || (sc[p].ok && sc[p].bytes < best[p].bytes)) {
				best[p] = sc[p];
				choice[p] = (uint8_t)k;
			}
	}
	/* the combination, checked again; a failing part goes back to the Havok mode */
	for (int round = 0; round < 3; round++) {
		for (uint32_t t = 0; t < T; t++) {
			ct[t] = bt[t];
			for (int part = 0; part < 3; part++) {
				hks_track_params cp;
				candidate_params(choice[3 * (size_t)t + (size_t)part], &bt[t], &cp);
				take_part(&ct[t], &cp, part);
			}
		}
		for (uint32_t i = 0; i < F; i++) {
			hks_track_params cp;
			candidate_params(choice[3 * (size_t)T + i], &bf[i], &cp);
			cf[i] = bf[i];
			take_part(&cf[i], &cp, 3);
		}
		r = encode_plain(in, opts, ct, cf, &s, err);
		rep->iterations++;
		if (r != HKS_OK)
			goto out;
		decoded dd;
		r = decode(ctx, s, &dd, err);
		if (r != HKS_OK)
			goto out;
		score(in, s, &dd, bt, bf, sc);
		decoded_free(ctx, &dd);
		bool all = true;
		for (size_t p = 0; p < P; p++)
			if (!sc[p].ok && choice[p] != 0) {
				choice[p] = 0;
				all = false;
			}
		if (all)
			break;
		hks_stored_free(s);
		s = NULL;
	}
	if (!s) {
		/* the combination kept failing: the Havok mode as it is */
		r = encode_plain(in, opts, bt, bf, &s, err);
		rep->iterations++;
		if (r != HKS_OK)
			goto out;
		memcpy(ct, bt, T * sizeof(*bt));
	}
	{
		decoded dd;
		r = decode(ctx, s, &dd, err);
		if (r != HKS_OK)
			goto out;
		score(in, s, &dd, bt, bf, sc);
		decoded_free(ctx, &dd);
		rep->bound_met = 1;
		for (size_t p = 0; p < P; p++)
			rep->bound_met &= sc[p].ok;
	}
	memcpy(pt, ct, T * sizeof(*ct));
	*out = s;
	s = NULL;
out:
	if (s)
		hks_stored_free(s);
	if (best)
		hks_free(ctx, best, (P + 1) * sizeof(part_score));
	if (choice)
		hks_free(ctx, choice, P + 1);
	if (sc)
		hks_free(ctx, sc, (P + 1) * sizeof(part_score));
	params_free(ctx, ct, T);
	params_free(ctx, cf, F);
	params_free(ctx, bt, T);
	params_free(ctx, bf, F);
	return r;
}

/* ---- the entry point ---------------------------------------------------------------- */

hks_result hks_encode_controlled(const hks_frames_in *in, const hks_encode_options *opts,
                                 hks_stored_animation **out, hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, &opts->base, 0, err);
	const hks_error_control *c = opts->control;
	*out = NULL;
	hks_error_control_report local;
	memset(&local, 0, sizeof(local));
	hks_error_control_report *rep = c->report ? c->report : &local;
	memset(rep, 0, sizeof(*rep));
	rep->object_error = -1;
	rep->worst_bone = rep->worst_frame = -1;
	HKS_TRY(check_rules(&ctx, c));
	if (!(c->object_tolerance >= 0) || !isfinite(c->object_tolerance) || c->shell_distance < 0 ||
	    !isfinite(c->shell_distance) || (unsigned)c->optimize > HKS_OPTIMIZE_SIZE)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1,
		                "error control: object tolerance %g, shell %g, optimize %d: out of range",
		                c->object_tolerance, c->shell_distance, (int)c->optimize);
	if (c->object_tolerance > 0 && !c->skeleton)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "error control: the object-space bound needs a skeleton");
	if (c->num_shell_overrides && !c->shell_overrides)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "error control: %u shell overrides and no array",
		                c->num_shell_overrides);
	if (!in->num_frames || (in->num_transform_tracks && !in->transforms) || (in->num_float_tracks && !in->floats))
		return hks_encode_stored_predict(in, opts, NULL, out, err); /* the encoder reports it */
	const uint32_t T = in->num_transform_tracks, F = in->num_float_tracks;
	hks_track_params *pt = params_alloc(&ctx, T), *pf = params_alloc(&ctx, F);
	bool *ruled = (bool *)hks_calloc(&ctx, (size_t)T + 1, sizeof(bool));
	hks_result r = HKS_OK;
	if (!pt || !pf || !ruled) {
		r = HKS_E_NOMEM;
		goto out;
	}
	for (uint32_t t = 0; t < T; t++)
		pt[t] = resolved(opts, t);
	for (uint32_t i = 0; i < F; i++)
		pf[i] = resolved_float(opts, i);
	if (c->num_bone_tolerances) {
		hks_track_params *before = params_alloc(&ctx, T);
		if (!before) {
			r = HKS_E_NOMEM;
			goto out;
		}
		memcpy(before, pt, T * sizeof(*pt));
		apply_rules(c, T, pt);
		for (uint32_t t = 0; t < T; t++)
			ruled[t] = memcmp(&before[t], &pt[t], sizeof(*pt)) != 0;
		params_free(&ctx, before, T);
	}
	if (c->object_tolerance > 0)
		r = object_bound(&ctx, in, opts, c, pt, pf, ruled, rep, out, err);
	else if (c->optimize == HKS_OPTIMIZE_SIZE)
		r = optimize_size(&ctx, in, opts, pt, pf, rep, out, err);
	else {
		r = encode_plain(in, opts, pt, pf, out, err);
		rep->iterations = 1;
		rep->bound_met = r == HKS_OK;
	}
	if (r == HKS_OK) {
		rep->size = stored_size(*out, opts);
		if (c->report) {
			/* hand the chosen parameters over (allocated with the caller's allocator) */
			hks_track_params *copy = (hks_track_params *)ctx.alloc.alloc(ctx.alloc.user,
			                                                             ((size_t)T + 1) * sizeof(hks_track_params));
			if (copy) {
				memcpy(copy, pt, ((size_t)T + 1) * sizeof(hks_track_params));
				rep->per_track = copy;
				rep->num_tracks = T;
				rep->allocator_ = opts->base.allocator;
			}
		}
	}
out:
	params_free(&ctx, pt, T);
	params_free(&ctx, pf, F);
	if (ruled)
		hks_free(&ctx, ruled, (size_t)T + 1);
	if (r != HKS_OK && *out) {
		hks_stored_free(*out);
		*out = NULL;
	}
	if (r != HKS_OK && err && !err->code)
		err->code = r;
	return r;
}
