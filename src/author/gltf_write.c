/*
 * glTF 2.0 export (docs/GLTF.md): skeleton + decoded clips -> .glb / .gltf.
 *
 * Layout of the file written:
 *   node 0            HKS_GLTF_ROOT_MOTION_NODE, the scene root; root motion
 *                     (referenceFrameSamples: x, y, z translation, w heading
 *                     about `up`, CONTAINERS.md §3.4) animates it
 *   node 1 + b        skeleton bone b (name, reference pose as TRS)
 *   skin 0            joints = the bone nodes, inverse bind matrices from the
 *                     reference pose in model space
 *   animation c       clip c: LINEAR samplers at t_f = f · frameDuration
 *   bufferView 0      the inverse bind matrices; bufferView 1 every animation
 *                     accessor (times and outputs, tightly packed f32)
 * The Havok data are y-up right-handed like glTF: no axis conversion.
 */
#include "author.h"

#include <math.h>
#include <stdio.h>

typedef struct gw {
	hks_ctx *ctx;
	const hks_skeleton *sk;
	json_t *root, *accessors, *nodes, *animations;
	hks_bytebuf anim_bin;      /* bufferView 1 */
	size_t ibm_size;           /* bufferView 0 length */
	int32_t *parent;           /* validated parent per bone, -1 for roots */
	hks_gltf_write_report rep;
} gw;

static hks_result json_fail(gw *w)
{
	return hks_fail(w->ctx, HKS_E_NOMEM, -1, "glTF JSON: out of memory");
}

/* jansson steals the reference of `v` in the *_new calls; NULL means allocation failed. */
#define JSET(obj, key, v)                                 \
	do {                                                  \
		if (json_object_set_new((obj), (key), (v)) != 0)  \
			return json_fail(w);                          \
	} while (0)
#define JAPP(arr, v)                                      \
	do {                                                  \
		if (json_array_append_new((arr), (v)) != 0)       \
			return json_fail(w);                          \
	} while (0)

/* A JSON number for an f32 (non-finite values as the strings "nan", "inf", "-inf"). */
static json_t *jf32(float v)
{
	if (isnan(v))
		return json_string("nan");
	if (isinf(v))
		return json_string(v > 0 ? "inf" : "-inf");
	return json_real((double)v);
}

static json_t *jf32_array(const float *v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < n; i++)
		if (json_array_append_new(a, jf32(v[i])) != 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

/* ---- skeleton ---- */

/* Parents checked: in range, not itself, no cycle (glTF nodes form a forest); else a root. */
static hks_result validate_parents(gw *w)
{
	const hks_skeleton *sk = w->sk;
	w->parent = (int32_t *)hks_calloc(w->ctx, sk->num_bones + 1, sizeof(int32_t));
	if (!w->parent)
		return hks_fail_nomem(w->ctx, (sk->num_bones + 1) * sizeof(int32_t));
	for (uint32_t b = 0; b < sk->num_bones; b++) {
		int32_t p = b < sk->num_parent_indices ? sk->parent_indices[b] : -1;
		w->parent[b] = (p >= 0 && (uint32_t)p < sk->num_bones && (uint32_t)p != b) ? p : -1;
	}
	for (uint32_t b = 0; b < sk->num_bones; b++) {
		int32_t cur = w->parent[b];
		for (uint32_t steps = 0; cur >= 0; steps++) {
			if ((uint32_t)cur == b || steps > sk->num_bones) {
				w->parent[b] = -1; /* a cycle: cut it here */
				break;
			}
			cur = w->parent[cur];
		}
	}
	return HKS_OK;
}

/* The bone's reference pose (identity where absent or not finite; rotation normalized). */
static void reference_trs(const hks_skeleton *sk, uint32_t b, float t[3], float r[4], float s[3])
{
	static const float id_t[3] = {0, 0, 0}, id_r[4] = {0, 0, 0, 1}, id_s[3] = {1, 1, 1};
	memcpy(t, id_t, sizeof(id_t));
	memcpy(r, id_r, sizeof(id_r));
	memcpy(s, id_s, sizeof(id_s));
	if (!sk->reference_pose || b >= sk->num_reference_pose)
		return;
	const hks_qs_transform *x = &sk->reference_pose[b];
	if (author_finite(x->translation, 3))
		memcpy(t, x->translation, 3 * sizeof(float));
	float q[4];
	memcpy(q, x->rotation, sizeof(q));
	if (author_quat_normalize(q))
		memcpy(r, q, sizeof(q));
	if (author_finite(x->scale, 3))
		memcpy(s, x->scale, 3 * sizeof(float));
}

static hks_result write_nodes(gw *w, hks_bytebuf *ibm)
{
	const hks_skeleton *sk = w->sk;
	json_t *rootn = json_object();
	if (!rootn || json_array_append_new(w->nodes, rootn) != 0)
		return json_fail(w);
	JSET(rootn, "name", json_string(HKS_GLTF_ROOT_MOTION_NODE));
	json_t *root_children = json_array();
	if (!root_children)
		return json_fail(w);
	JSET(rootn, "children", root_children);
	json_t **children = (json_t **)hks_calloc(w->ctx, sk->num_bones + 1, sizeof(json_t *));
	double *world = (double *)hks_calloc(w->ctx, (size_t)sk->num_bones * 16 + 1, sizeof(double));
	uint8_t *done = (uint8_t *)hks_calloc(w->ctx, sk->num_bones + 1, 1);
	hks_result r = HKS_OK;
	if (!children || !world || !done) {
		r = hks_fail_nomem(w->ctx, (size_t)sk->num_bones * 16 * sizeof(double));
		goto out;
	}
	for (uint32_t b = 0; b < sk->num_bones && r == HKS_OK; b++) {
		float t[3], q[4], s[3];
		reference_trs(sk, b, t, q, s);
		json_t *n = json_object();
		char fallback[32];
		snprintf(fallback, sizeof(fallback), "bone_%u", b);
		const char *name = sk->bone_names && sk->bone_names[b] ? sk->bone_names[b] : fallback;
		/* json_string needs UTF-8; bone names are ASCII in the games, else keep them escaped-safe */
		json_t *jn = json_string(name);
		if (!jn)
			jn = json_string(fallback);
		if (!n || json_array_append_new(w->nodes, n) != 0 || json_object_set_new(n, "name", jn) != 0 ||
		    json_object_set_new(n, "translation", jf32_array(t, 3)) != 0 ||
		    json_object_set_new(n, "rotation", jf32_array(q, 4)) != 0 ||
		    json_object_set_new(n, "scale", jf32_array(s, 3)) != 0) {
			r = json_fail(w);
			goto out;
		}
		if (w->parent[b] < 0 && json_array_append_new(root_children, json_integer(1 + (json_int_t)b)) != 0) {
			r = json_fail(w);
			goto out;
		}
	}
	/* children lists (in bone order) */
	for (uint32_t b = 0; b < sk->num_bones; b++) {
		int32_t p = w->parent[b];
		if (p < 0)
			continue;
		json_t *pn = json_array_get(w->nodes, 1 + (size_t)p);
		if (!children[p]) {
			children[p] = json_array();
			if (!children[p] || json_object_set_new(pn, "children", children[p]) != 0) {
				r = json_fail(w);
				goto out;
			}
		}
		if (json_array_append_new(children[p], json_integer(1 + (json_int_t)b)) != 0) {
			r = json_fail(w);
			goto out;
		}
	}
	/* model-space reference pose, parents first (the walk up is bounded: no cycles remain) */
	for (uint32_t b = 0; b < sk->num_bones; b++) {
		uint32_t chain_len = 0, cur = b;
		/* collect the not yet computed ancestors, then compute them top-down */
		while (!done[cur]) {
			chain_len++;
			if (w->parent[cur] < 0)
				break;
			cur = (uint32_t)w->parent[cur];
		}
		while (chain_len--) {
			/* the deepest not-done bone whose parent is done (or a root) */
			uint32_t x = b;
			while (w->parent[x] >= 0 && !done[w->parent[x]])
				x = (uint32_t)w->parent[x];
			float t[3], q[4], s[3];
			reference_trs(sk, x, t, q, s);
			author_trs local = {{t[0], t[1], t[2]}, {q[0], q[1], q[2], q[3]}, {s[0], s[1], s[2]}};
			double m[16];
			author_trs_matrix(&local, m);
			if (w->parent[x] >= 0)
				author_mat_mul(&world[(size_t)w->parent[x] * 16], m, &world[(size_t)x * 16]);
			else
				memcpy(&world[(size_t)x * 16], m, sizeof(m));
			done[x] = 1;
		}
	}
	for (uint32_t b = 0; b < sk->num_bones && r == HKS_OK; b++) {
		double inv[16];
		if (!author_mat_inverse_affine(&world[(size_t)b * 16], inv)) {
			/* a zero scale in the reference pose: identity keeps the file valid */
			memset(inv, 0, sizeof(inv));
			inv[0] = inv[5] = inv[10] = inv[15] = 1;
		}
		float f[16];
		for (int k = 0; k < 16; k++)
			f[k] = (float)inv[k];
		f[3] = f[7] = f[11] = 0; /* exactly affine (the validator checks the last row) */
		f[15] = 1;
		uint8_t le[64];
		for (int k = 0; k < 16; k++)
			hks_put_le32(le + 4 * k, hks_f32_bits(f[k]));
		r = hks_bytebuf_append(ibm, le, sizeof(le));
	}
out:
	hks_free(w->ctx, children, (sk->num_bones + 1) * sizeof(json_t *));
	hks_free(w->ctx, world, ((size_t)sk->num_bones * 16 + 1) * sizeof(double));
	hks_free(w->ctx, done, sk->num_bones + 1);
	return r;
}

/* ---- animations ---- */

/* Append an accessor over `count` elements of `comps` floats in bufferView 1; returns its index. */
static hks_result add_accessor(gw *w, const float *v, uint32_t count, uint32_t comps, int with_bounds,
                               json_int_t *index)
{
	static const char *const types[] = {"", "SCALAR", "VEC2", "VEC3", "VEC4"};
	size_t offset = w->anim_bin.size;
	for (size_t i = 0; i < (size_t)count * comps; i++) {
		uint8_t le[4];
		hks_put_le32(le, hks_f32_bits(v[i]));
		HKS_TRY(hks_bytebuf_append(&w->anim_bin, le, 4));
	}
	json_t *a = json_object();
	if (!a || json_array_append_new(w->accessors, a) != 0)
		return json_fail(w);
	JSET(a, "bufferView", json_integer(1));
	JSET(a, "byteOffset", json_integer((json_int_t)offset));
	JSET(a, "componentType", json_integer(GLTF_FLOAT));
	JSET(a, "count", json_integer(count));
	JSET(a, "type", json_string(types[comps]));
	if (with_bounds) { /* required for sampler inputs (glTF §3.11) */
		float mn = v[0], mx = v[0];
		for (uint32_t i = 1; i < count; i++) {
			mn = v[i] < mn ? v[i] : mn;
			mx = v[i] > mx ? v[i] : mx;
		}
		JSET(a, "min", jf32_array(&mn, 1));
		JSET(a, "max", jf32_array(&mx, 1));
	}
	*index = (json_int_t)json_array_size(w->accessors) - 1;
	return HKS_OK;
}

static hks_result add_channel(gw *w, json_t *samplers, json_t *channels, json_int_t input, const float *v,
                              uint32_t count, uint32_t comps, json_int_t node, const char *path)
{
	json_int_t out = -1;
	HKS_TRY(add_accessor(w, v, count, comps, 0, &out));
	json_t *s = json_object();
	if (!s || json_array_append_new(samplers, s) != 0)
		return json_fail(w);
	JSET(s, "input", json_integer(input));
	JSET(s, "output", json_integer(out));
	JSET(s, "interpolation", json_string("LINEAR"));
	json_t *c = json_object(), *tg = json_object();
	if (!c || json_array_append_new(channels, c) != 0 || !tg || json_object_set_new(c, "target", tg) != 0) {
		json_decref(tg);
		return json_fail(w);
	}
	JSET(c, "sampler", json_integer((json_int_t)json_array_size(samplers) - 1));
	JSET(tg, "node", json_integer(node));
	JSET(tg, "path", json_string(path));
	w->rep.channels++;
	return HKS_OK;
}

/* One part of one track over all frames into `dst` (comps floats per frame): non-finite
 * values replaced by the previous frame's (frame 0: `fallback`); rotations normalized and
 * made sign-continuous (export only, docs/GLTF.md). */
static void gather_part(gw *w, const hks_gltf_clip *c, uint32_t track, uint32_t k0, uint32_t comps,
                        const float *fallback, float *dst)
{
	size_t stride = (size_t)c->num_transform_tracks * HKS_TRACK_SAMPLE_FLOATS;
	for (uint32_t f = 0; f < c->num_frames; f++) {
		const float *src = c->transforms + f * stride + (size_t)track * HKS_TRACK_SAMPLE_FLOATS + k0;
		float *o = dst + (size_t)f * comps;
		memcpy(o, src, comps * sizeof(float));
		int ok = author_finite(o, comps) && (comps != 4 || author_quat_normalize(o));
		if (!ok) {
			memcpy(o, f ? o - comps : fallback, comps * sizeof(float));
			w->rep.nonfinite_samples++;
		}
		if (comps == 4 && f) {
			const float *p = o - 4;
			double d = (double)o[0] * p[0] + (double)o[1] * p[1] + (double)o[2] * p[2] + (double)o[3] * p[3];
			if (d < 0) {
				for (int k = 0; k < 4; k++)
					o[k] = -o[k];
				w->rep.sign_flips++;
			}
		}
	}
}

static hks_result clip_extras(gw *w, const hks_gltf_clip *c, json_t *anim)
{
	const hks_skeleton *sk = w->sk;
	json_t *ex = json_object(), *hk = json_object();
	if (!ex || json_object_set_new(anim, "extras", ex) != 0 || !hk || json_object_set_new(ex, "hkspline", hk) != 0) {
		json_decref(hk);
		return json_fail(w);
	}
	JSET(hk, "frames", json_integer(c->num_frames));
	JSET(hk, "frame_duration", jf32(c->frame_duration));
	JSET(hk, "duration", jf32(c->duration));
	JSET(hk, "blend_hint", json_integer(c->blend_hint));
	json_t *tracks = json_array();
	if (!tracks)
		return json_fail(w);
	JSET(hk, "tracks", tracks);
	for (uint32_t t = 0; t < c->num_transform_tracks; t++) {
		int32_t b = c->track_to_bone ? c->track_to_bone[t] : (int32_t)t;
		const char *name = b >= 0 && (uint32_t)b < sk->num_bones && sk->bone_names ? sk->bone_names[b] : NULL;
		JAPP(tracks, name ? json_string(name) : json_null());
	}
	json_t *ft = json_array();
	if (!ft)
		return json_fail(w);
	JSET(hk, "float_tracks", ft);
	float *vals = (float *)hks_calloc(w->ctx, c->num_frames + 1, sizeof(float));
	if (!vals)
		return hks_fail_nomem(w->ctx, (c->num_frames + 1) * sizeof(float));
	for (uint32_t i = 0; i < c->num_float_tracks; i++) {
		int32_t slot = c->float_track_to_slot ? c->float_track_to_slot[i] : (int32_t)i;
		const char *name = slot >= 0 && (uint32_t)slot < sk->num_float_slots && sk->float_slots ? sk->float_slots[slot]
		                                                                                    : NULL;
		for (uint32_t f = 0; f < c->num_frames; f++)
			vals[f] = c->floats[(size_t)f * c->num_float_tracks + i];
		json_t *o = json_object();
		if (!o || json_array_append_new(ft, o) != 0 ||
		    json_object_set_new(o, "slot", name ? json_string(name) : json_null()) != 0 ||
		    json_object_set_new(o, "slot_index", json_integer(slot)) != 0 ||
		    json_object_set_new(o, "values", jf32_array(vals, c->num_frames)) != 0) {
			hks_free(w->ctx, vals, (c->num_frames + 1) * sizeof(float));
			return json_fail(w);
		}
	}
	hks_free(w->ctx, vals, (c->num_frames + 1) * sizeof(float));
	if (c->root_motion) {
		json_t *rm = json_object();
		if (!rm)
			return json_fail(w);
		JSET(hk, "root_motion", rm);
		JSET(rm, "class", json_string(c->root_motion->class_name ? c->root_motion->class_name : ""));
		JSET(rm, "up", jf32_array(c->root_motion->up, 4));
		JSET(rm, "forward", jf32_array(c->root_motion->forward, 4));
		JSET(rm, "duration", jf32(c->root_motion->duration));
		JSET(rm, "samples", json_integer(c->root_motion->num_samples));
	} else
		JSET(hk, "root_motion", json_null());
	return HKS_OK;
}

static int key_time_ok(float t, uint32_t f, double fps)
{
	double p = (double)t * fps;
	float pf = t * (float)fps;
	/* never below the frame either: a reader that truncates (Blender) gets f too */
	return floor(p + 0.5) == (double)f && floor(p + 1e-4) == (double)f && floorf(pf + 0.5f) == (float)f &&
	       floorf(pf + 1e-4f) == (float)f && p >= (double)f && pf >= (float)f;
}

/* Key time of frame f (see write_clip); without a usable rate f · frameDuration. */
static float key_time(uint32_t f, double fps, float frame_duration)
{
	if (!(fps > 0) || !isfinite(fps))
		return (float)((double)f * (double)frame_duration);
	float t = (float)((double)f / fps);
	if (key_time_ok(t, f, fps))
		return t;
	float up = t, down = t;
	for (int k = 0; k < 8; k++) {
		up = nextafterf(up, INFINITY);
		if (key_time_ok(up, f, fps))
			return up;
		down = nextafterf(down, -INFINITY);
		if (key_time_ok(down, f, fps))
			return down;
	}
	return t;
}

static hks_result write_clip(gw *w, const hks_gltf_clip *c, uint32_t index, float *scratch, uint8_t *driven)
{
	const hks_skeleton *sk = w->sk;
	json_t *anim = json_object(), *samplers = json_array(), *channels = json_array();
	if (!anim || json_array_append_new(w->animations, anim) != 0 || !samplers ||
	    json_object_set_new(anim, "samplers", samplers) != 0 || !channels ||
	    json_object_set_new(anim, "channels", channels) != 0) {
		return json_fail(w);
	}
	char name[64];
	snprintf(name, sizeof(name), "animation %u", index);
	json_t *jname = c->name ? json_string(c->name) : NULL; /* NULL also for a name that is not UTF-8 */
	JSET(anim, "name", jname ? jname : json_string(name));
	/* times: the f32 nearest f / fps such that round(t · fps), floor(t · fps + 1e-4) and
	 * floor(t · fps) give f in f32 and in double (docs/GLTF.md "Key times"), fps the whole rate when
	 * 1 / frameDuration is one (Blender truncates t · fps to its frame) */
	double fps = c->frame_duration > 0 ? 1.0 / (double)c->frame_duration : 0;
	if (fps > 0 && fabs(fps - floor(fps + 0.5)) < 1e-3 * fps)
		fps = floor(fps + 0.5);
	for (uint32_t f = 0; f < c->num_frames; f++)
		scratch[f] = key_time(f, fps, c->frame_duration);
	json_int_t input = -1;
	HKS_TRY(add_accessor(w, scratch, c->num_frames, 1, 1, &input));
	memset(driven, 0, sk->num_bones);
	for (uint32_t t = 0; t < c->num_transform_tracks; t++) {
		int32_t b = c->track_to_bone ? c->track_to_bone[t] : (int32_t)t;
		if (b < 0 || (uint32_t)b >= sk->num_bones) {
			w->rep.unbound_tracks++;
			continue;
		}
		if (driven[b]) {
			w->rep.duplicate_tracks++;
			continue;
		}
		driven[b] = 1;
		float rt[3], rq[4], rs[3];
		reference_trs(sk, (uint32_t)b, rt, rq, rs);
		json_int_t node = 1 + (json_int_t)b;
		gather_part(w, c, t, 0, 3, rt, scratch);
		HKS_TRY(add_channel(w, samplers, channels, input, scratch, c->num_frames, 3, node, "translation"));
		gather_part(w, c, t, 3, 4, rq, scratch);
		HKS_TRY(add_channel(w, samplers, channels, input, scratch, c->num_frames, 4, node, "rotation"));
		gather_part(w, c, t, 7, 3, rs, scratch);
		HKS_TRY(add_channel(w, samplers, channels, input, scratch, c->num_frames, 3, node, "scale"));
	}
	const hks_reference_frame *rf = c->root_motion;
	if (rf || json_array_size(channels) == 0) {
		/* root motion: translation (x, y, z) and the heading w as a rotation about `up`;
		 * a clip without any channel gets a constant root translation (glTF needs one) */
		float up[4] = {0, 1, 0, 0};
		if (rf && author_finite(rf->up, 3)) {
			double n = sqrt((double)rf->up[0] * rf->up[0] + (double)rf->up[1] * rf->up[1] + (double)rf->up[2] * rf->up[2]);
			if (n > 0)
				for (int k = 0; k < 3; k++)
					up[k] = (float)(rf->up[k] / n);
		}
		for (uint32_t f = 0; f < c->num_frames; f++) {
			float s[4] = {0, 0, 0, 0};
			if (rf && rf->num_samples)
				memcpy(s, rf->samples[f < rf->num_samples ? f : rf->num_samples - 1], sizeof(s));
			if (!author_finite(s, 4)) {
				if (f)
					memcpy(s, &scratch[(size_t)(f - 1) * 3], 3 * sizeof(float));
				else
					s[0] = s[1] = s[2] = 0;
				w->rep.nonfinite_samples++;
			}
			memcpy(&scratch[(size_t)f * 3], s, 3 * sizeof(float));
		}
		HKS_TRY(add_channel(w, samplers, channels, input, scratch, c->num_frames, 3, 0, "translation"));
		if (rf) {
			for (uint32_t f = 0; f < c->num_frames; f++) {
				float h = rf->num_samples ? rf->samples[f < rf->num_samples ? f : rf->num_samples - 1][3] : 0;
				if (!isfinite(h))
					h = 0;
				double half = 0.5 * (double)h, sh = sin(half);
				float *q = &scratch[(size_t)f * 4];
				q[0] = (float)(up[0] * sh);
				q[1] = (float)(up[1] * sh);
				q[2] = (float)(up[2] * sh);
				q[3] = (float)cos(half);
				author_quat_normalize(q);
				if (f && (double)q[0] * q[-4] + (double)q[1] * q[-3] + (double)q[2] * q[-2] + (double)q[3] * q[-1] < 0)
					for (int k = 0; k < 4; k++)
						q[k] = -q[k];
			}
			HKS_TRY(add_channel(w, samplers, channels, input, scratch, c->num_frames, 4, 0, "rotation"));
		}
	}
	return clip_extras(w, c, anim);
}

static hks_result check_clip(hks_ctx *ctx, const hks_gltf_clip *c, uint32_t i)
{
	hks_err_location(ctx, (int32_t)i, -1, -1, HKS_PART_NONE);
	if (c->num_frames < 1 || c->num_frames > ctx->limits.max_frames)
		return hks_fail(ctx, HKS_E_ARGUMENT, -1, "clip %u: %u frames (1 .. %u)", i, c->num_frames,
		                ctx->limits.max_frames);
	if (c->num_frames > 1 && !(c->frame_duration > 0 && isfinite(c->frame_duration)))
		return hks_fail(ctx, HKS_E_ARGUMENT, -1, "clip %u: frame duration %g is not positive", i,
		                (double)c->frame_duration);
	if ((uint64_t)c->num_transform_tracks + c->num_float_tracks > ctx->limits.max_tracks)
		return hks_fail(ctx, HKS_E_LIMIT, -1, "clip %u: %u + %u tracks exceed %u", i, c->num_transform_tracks,
		                c->num_float_tracks, ctx->limits.max_tracks);
	if ((c->num_transform_tracks && !c->transforms) || (c->num_float_tracks && !c->floats))
		return hks_fail(ctx, HKS_E_ARGUMENT, -1, "clip %u: frames missing", i);
	if (c->root_motion && c->root_motion->num_samples && !c->root_motion->samples)
		return hks_fail(ctx, HKS_E_ARGUMENT, -1, "clip %u: root motion samples missing", i);
	return HKS_OK;
}

static hks_result build(gw *w, const hks_gltf_clip *clips, uint32_t num_clips, int binary, hks_bytebuf *out)
{
	const hks_skeleton *sk = w->sk;
	hks_bytebuf ibm;
	hks_bytebuf_init(&ibm, w->ctx);
	hks_result r;
	uint32_t max_frames = 1;
	for (uint32_t i = 0; i < num_clips; i++) {
		HKS_TRY(check_clip(w->ctx, &clips[i], i));
		max_frames = clips[i].num_frames > max_frames ? clips[i].num_frames : max_frames;
	}
	hks_err_location(w->ctx, -1, -1, -1, HKS_PART_NONE);
	/* output bound before building: 4 bytes per value of every channel (+ IBMs) */
	uint64_t estimate = (uint64_t)sk->num_bones * 64;
	for (uint32_t i = 0; i < num_clips; i++)
		estimate += (uint64_t)clips[i].num_frames * (4 + 40 * (uint64_t)clips[i].num_transform_tracks + 28 +
		                                             16 * (uint64_t)clips[i].num_float_tracks);
	if (estimate > w->ctx->limits.max_output_bytes)
		return hks_fail(w->ctx, HKS_E_LIMIT, -1, "glTF output of about %llu bytes exceeds the output limit",
		                (unsigned long long)estimate);
	HKS_TRY(validate_parents(w));
	if ((r = write_nodes(w, &ibm)) != HKS_OK)
		goto out;
	w->ibm_size = ibm.size;
	float *scratch = (float *)hks_calloc(w->ctx, (size_t)max_frames * 4 + 4, sizeof(float));
	uint8_t *driven = (uint8_t *)hks_calloc(w->ctx, sk->num_bones + 1, 1);
	if (!scratch || !driven) {
		hks_free(w->ctx, scratch, ((size_t)max_frames * 4 + 4) * sizeof(float));
		hks_free(w->ctx, driven, sk->num_bones + 1);
		r = hks_fail_nomem(w->ctx, (size_t)max_frames * 16);
		goto out;
	}
	for (uint32_t i = 0; i < num_clips && r == HKS_OK; i++) {
		hks_err_location(w->ctx, (int32_t)i, -1, -1, HKS_PART_NONE);
		r = write_clip(w, &clips[i], i, scratch, driven);
	}
	hks_free(w->ctx, scratch, ((size_t)max_frames * 4 + 4) * sizeof(float));
	hks_free(w->ctx, driven, sk->num_bones + 1);
	if (r != HKS_OK)
		goto out;
	hks_err_location(w->ctx, -1, -1, -1, HKS_PART_NONE);

	/* buffer = IBMs then animation data (both multiples of 4 bytes) */
	json_t *root = w->root;
	size_t bin_size = ibm.size + w->anim_bin.size;
	json_t *views = json_array(), *buffers = json_array(), *buf = json_object(), *v0 = json_object();
	if (!views || !buffers || !buf || !v0 || json_object_set_new(root, "bufferViews", views) != 0 ||
	    json_object_set_new(root, "buffers", buffers) != 0 || json_array_append_new(buffers, buf) != 0 ||
	    json_array_append_new(views, v0) != 0) {
		r = json_fail(w);
		goto out;
	}
	if (json_object_set_new(v0, "buffer", json_integer(0)) || json_object_set_new(v0, "byteOffset", json_integer(0)) ||
	    json_object_set_new(v0, "byteLength", json_integer((json_int_t)ibm.size))) {
		r = json_fail(w);
		goto out;
	}
	if (w->anim_bin.size) {
		json_t *v1 = json_object();
		if (!v1 || json_array_append_new(views, v1) || json_object_set_new(v1, "buffer", json_integer(0)) ||
		    json_object_set_new(v1, "byteOffset", json_integer((json_int_t)ibm.size)) ||
		    json_object_set_new(v1, "byteLength", json_integer((json_int_t)w->anim_bin.size))) {
			r = json_fail(w);
			goto out;
		}
	}
	if (json_object_set_new(buf, "byteLength", json_integer((json_int_t)bin_size))) {
		r = json_fail(w);
		goto out;
	}
	hks_bytebuf uri;
	hks_bytebuf_init(&uri, w->ctx);
	if (!binary) {
		static const char prefix[] = "data:application/octet-stream;base64,";
		hks_bytebuf whole;
		hks_bytebuf_init(&whole, w->ctx);
		if ((r = hks_bytebuf_append(&uri, prefix, sizeof(prefix) - 1)) != HKS_OK ||
		    (r = hks_bytebuf_append(&whole, ibm.data, ibm.size)) != HKS_OK ||
		    (w->anim_bin.size && (r = hks_bytebuf_append(&whole, w->anim_bin.data, w->anim_bin.size)) != HKS_OK)) {
			hks_bytebuf_free(&whole);
			hks_bytebuf_free(&uri);
			goto out;
		}
		r = author_base64_encode(&uri, whole.data, whole.size);
		hks_bytebuf_free(&whole);
		if (r == HKS_OK)
			r = hks_bytebuf_append(&uri, "", 1);
		if (r != HKS_OK || json_object_set_new(buf, "uri", json_string((const char *)uri.data)) != 0) {
			hks_bytebuf_free(&uri);
			r = r != HKS_OK ? r : json_fail(w);
			goto out;
		}
		hks_bytebuf_free(&uri);
	}
	char *text = json_dumps(root, JSON_COMPACT | JSON_REAL_PRECISION(9));
	if (!text) {
		r = json_fail(w);
		goto out;
	}
	size_t tlen = strlen(text);
	if (binary) {
		/* GLB (glTF §4.4): header, JSON chunk padded with spaces, BIN chunk padded with zeros */
		size_t jpad = (4 - tlen % 4) % 4, bpad = (4 - bin_size % 4) % 4;
		uint64_t total = 12 + 8 + (uint64_t)tlen + jpad + 8 + bin_size + bpad;
		uint8_t h[12];
		if (total > UINT32_MAX) {
			free(text);
			r = hks_fail(w->ctx, HKS_E_LIMIT, -1, "GLB larger than 4 GiB");
			goto out;
		}
		hks_put_le32(h, GLB_MAGIC);
		hks_put_le32(h + 4, 2);
		hks_put_le32(h + 8, (uint32_t)total);
		r = hks_bytebuf_append(out, h, 12);
		hks_put_le32(h, (uint32_t)(tlen + jpad));
		hks_put_le32(h + 4, GLB_CHUNK_JSON);
		if (r == HKS_OK)
			r = hks_bytebuf_append(out, h, 8);
		if (r == HKS_OK)
			r = hks_bytebuf_append(out, text, tlen);
		for (size_t k = 0; k < jpad && r == HKS_OK; k++)
			r = hks_bytebuf_append(out, " ", 1);
		hks_put_le32(h, (uint32_t)(bin_size + bpad));
		hks_put_le32(h + 4, GLB_CHUNK_BIN);
		if (r == HKS_OK)
			r = hks_bytebuf_append(out, h, 8);
		if (r == HKS_OK)
			r = hks_bytebuf_append(out, ibm.data, ibm.size);
		if (r == HKS_OK && w->anim_bin.size)
			r = hks_bytebuf_append(out, w->anim_bin.data, w->anim_bin.size);
		if (r == HKS_OK)
			r = hks_bytebuf_zeros(out, bpad);
	} else
		r = hks_bytebuf_append(out, text, tlen);
	free(text);
out:
	hks_bytebuf_free(&ibm);
	return r;
}

hks_result hks_gltf_write(const hks_skeleton *skeleton, const hks_gltf_clip *clips, uint32_t num_clips,
                          const hks_gltf_write_options *opts, uint8_t **out, size_t *out_size,
                          hks_gltf_write_report *report, hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, opts ? &opts->base : NULL, 0, err);
	if (out)
		*out = NULL;
	if (out_size)
		*out_size = 0;
	if (report)
		memset(report, 0, sizeof(*report));
	if (!skeleton || !out || !out_size || (num_clips && !clips))
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_gltf_write: NULL argument");
	if (skeleton->num_bones == 0)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "the skeleton has no bones");
	if (skeleton->num_bones > ctx.limits.max_tracks)
		return hks_fail(&ctx, HKS_E_LIMIT, -1, "%u bones exceed %u", skeleton->num_bones, ctx.limits.max_tracks);
	gw w;
	memset(&w, 0, sizeof(w));
	w.ctx = &ctx;
	w.sk = skeleton;
	hks_bytebuf_init(&w.anim_bin, &ctx);
	hks_bytebuf result;
	hks_bytebuf_init(&result, &ctx);
	hks_result r = HKS_OK;
	w.root = json_object();
	w.accessors = json_array();
	w.nodes = json_array();
	w.animations = json_array();
	json_t *asset = json_object(), *scenes = json_array(), *scene = json_object(), *scene_nodes = json_array();
	json_t *skins = json_array(), *skin = json_object(), *joints = json_array(), *extras = json_object(),
	       *hk = json_object();
	if (!w.root || !w.accessors || !w.nodes || !w.animations || !asset || !scenes || !scene || !scene_nodes ||
	    !skins || !skin || !joints || !extras || !hk) {
		json_decref(asset);
		json_decref(scenes);
		json_decref(scene);
		json_decref(scene_nodes);
		json_decref(skins);
		json_decref(skin);
		json_decref(joints);
		json_decref(extras);
		json_decref(hk);
		r = json_fail(&w);
		goto done;
	}
	/* attach everything to the root first, so one decref frees it all */
	if (json_object_set_new(w.root, "asset", asset) || json_object_set_new(w.root, "scene", json_integer(0)) ||
	    json_object_set_new(w.root, "scenes", scenes) || json_array_append_new(scenes, scene) ||
	    json_object_set_new(scene, "nodes", scene_nodes) || json_object_set_new(w.root, "nodes", w.nodes) ||
	    json_object_set_new(w.root, "skins", skins) || json_array_append_new(skins, skin) ||
	    json_object_set_new(skin, "joints", joints) || json_object_set_new(w.root, "accessors", w.accessors) ||
	    json_object_set_new(w.root, "extras", extras) || json_object_set_new(extras, "hkspline", hk)) {
		r = json_fail(&w);
		goto done;
	}
	if (json_object_set_new(asset, "version", json_string("2.0")) ||
	    json_object_set_new(asset, "generator", json_string("hkspline " HKS_VERSION_STRING)) ||
	    json_array_append_new(scene_nodes, json_integer(0)) ||
	    json_object_set_new(skin, "inverseBindMatrices", json_integer(0)) ||
	    json_object_set_new(skin, "skeleton", json_integer(0)) ||
	    json_object_set_new(hk, "format", json_integer(1)) ||
	    json_object_set_new(hk, "root_motion_node", json_string(HKS_GLTF_ROOT_MOTION_NODE)) ||
	    json_object_set_new(hk, "skeleton", skeleton->name ? json_string(skeleton->name) : json_null())) {
		r = json_fail(&w);
		goto done;
	}
	if (skeleton->name && json_string_length(json_object_get(hk, "skeleton")))
		json_object_set_new(skin, "name", json_string(skeleton->name));
	for (uint32_t b = 0; b < skeleton->num_bones; b++)
		if (json_array_append_new(joints, json_integer(1 + (json_int_t)b))) {
			r = json_fail(&w);
			goto done;
		}
	{
		json_t *slots = json_array();
		if (!slots || json_object_set_new(hk, "float_slots", slots)) {
			r = json_fail(&w);
			goto done;
		}
		for (uint32_t i = 0; i < skeleton->num_float_slots; i++)
			if (json_array_append_new(slots, skeleton->float_slots && skeleton->float_slots[i]
			                                     ? json_string(skeleton->float_slots[i])
			                                     : json_null())) {
				r = json_fail(&w);
				goto done;
			}
		if (skeleton->reference_floats && skeleton->num_reference_floats &&
		    json_object_set_new(hk, "reference_floats",
		                        jf32_array(skeleton->reference_floats, skeleton->num_reference_floats))) {
			r = json_fail(&w);
			goto done;
		}
	}
	/* accessor 0: the inverse bind matrices (bufferView 0) */
	{
		json_t *a = json_object();
		if (!a || json_array_append_new(w.accessors, a) || json_object_set_new(a, "bufferView", json_integer(0)) ||
		    json_object_set_new(a, "componentType", json_integer(GLTF_FLOAT)) ||
		    json_object_set_new(a, "count", json_integer(skeleton->num_bones)) ||
		    json_object_set_new(a, "type", json_string("MAT4"))) {
			r = json_fail(&w);
			goto done;
		}
	}
	if (num_clips && json_object_set_new(w.root, "animations", w.animations)) {
		w.animations = NULL;
		r = json_fail(&w);
		goto done;
	}
	if (!num_clips) {
		json_decref(w.animations);
		w.animations = NULL;
	}
	r = build(&w, clips, num_clips, opts ? opts->binary : 1, &result);
done:
	json_decref(w.root);
	hks_bytebuf_free(&w.anim_bin);
	hks_free(&ctx, w.parent, ((size_t)skeleton->num_bones + 1) * sizeof(int32_t));
	if (report)
		*report = w.rep;
	if (r != HKS_OK) {
		hks_bytebuf_free(&result);
		return r;
	}
	/* the final shrink can fail: HKS_E_NOMEM, the buffer freed (internal.h) */
	return hks_bytebuf_finish(&result, out, out_size);
}
