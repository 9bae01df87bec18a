/*
 * The input of fuzz_gltf_rest (tests/fuzz/fuzz_gltf_rest.c), shared with its
 * seed generator (tests/fuzz/make_gltf_rest_seeds.c). The first
 * REST_HEADER_SIZE bytes describe a skeleton A of 1-8 bones and, per bone, how
 * the glTF's rest pose differs from A's (docs/GLTF.md "Rest poses"): a change
 * of local axes C (Blender's bone directions), an edited bone length, a
 * different or unit (Blender) rest scale, another parent. In "generated" mode
 * the target writes that glTF itself (hks_gltf_write of a skeleton B and a
 * clip whose frames are A's moved a little, both expressed in B's axes:
 * glTF_local = C_parent · Havok_local · inverse(C_b)); in "raw" mode the bytes
 * after the header are the glTF (GLB or JSON) as they are.
 *
 *   [0] flags: bit 0 raw; bit 1 GLB (generated); bit 2 keep_bone_axes;
 *       bit 3 read at 60 fps (the clip is 30 fps: resampled); bit 4 a track
 *       order of the options (reversed, plus a bone out of range); bit 5
 *       parent and reference-pose arrays one short; bit 6 one float track
 *   [1] bones - 1 (mod 8)   [2] frames - 2 (mod 12)   [3] motion amplitude
 *   [4 + 12 b ..] bone b: parent (0xFF: none; else mod (bones + 2), minus 1:
 *       -1 .. bones, i.e. itself and out of range included), name (mod 10:
 *       8 no name, 9 the root-motion node's name), translation (3 x int8 / 16),
 *       rotation axis (mod 8; >= 0xF8 an unnormalized / zero / NaN
 *       quaternion), rotation angle (x 2pi / 256), scale (mod 8 from a table,
 *       7 non-uniform; >= 0xF0 zero, negative, NaN, infinite), C axis, C angle
 *       (0: none), perturbation (bits 0-1: scale kept / unit / x1.5 /
 *       non-uniform; bit 2: bone length + (bits 4-7 + 1) / 64 m; bit 3: another
 *       parent), the other parent (decoded as the parent)
 */
#ifndef HKS_GLTF_REST_INPUT_H
#define HKS_GLTF_REST_INPUT_H

#include "hkspline.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define REST_PI 3.14159265358979323846
#define REST_MAX_BONES 8
#define REST_BONE_BYTES 12
#define REST_HEADER_SIZE (4 + REST_MAX_BONES * REST_BONE_BYTES)

enum {
	REST_RAW = 1,
	REST_GLB = 2,
	REST_KEEP_AXES = 4,
	REST_60FPS = 8,
	REST_TRACK_ORDER = 16,
	REST_SHORT_ARRAYS = 32,
	REST_FLOAT_TRACK = 64
};

static const char *const rest_names[10] = {"Root", "Spine", "Chest", "Neck", "Head", "ArmL", "ArmR", "Tail",
                                           NULL, HKS_GLTF_ROOT_MOTION_NODE};

typedef struct rest_case {
	uint8_t flags;
	uint32_t nb, frames;
	float motion;
	int clean;                         /* the oracle applies (see rest_decode) */
	/* skeleton A (the target's) */
	const char *names[REST_MAX_BONES];
	int16_t parents[REST_MAX_BONES];
	uint8_t lock[REST_MAX_BONES];
	hks_qs_transform pose[REST_MAX_BONES];
	hks_skeleton a;
	/* skeleton B (what the glTF's nodes are) */
	int16_t b_parents[REST_MAX_BONES];
	hks_qs_transform b_pose[REST_MAX_BONES];
	hks_skeleton b;
	double c[REST_MAX_BONES][4];       /* change of axes per bone (identity: none) */
	int has_c[REST_MAX_BONES];
	int16_t track_to_bone[REST_MAX_BONES + 1];
	uint32_t num_tracks;
} rest_case;

static void rest_qmul(const double *a, const double *b, double *o)
{
	double r[4] = {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
	               a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
	               a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
	               a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
	memcpy(o, r, sizeof(r));
}

static void rest_qrot(const double *q, const double *v, double *o)
{
	double p[4] = {v[0], v[1], v[2], 0}, c[4] = {-q[0], -q[1], -q[2], q[3]}, t[4];
	rest_qmul(q, p, t);
	rest_qmul(t, c, t);
	memcpy(o, t, 3 * sizeof(double));
}

static void rest_axis_angle(uint8_t axis, double angle, double *q)
{
	static const double ax[8][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 0},
	                                {0, 1, 1}, {1, 0, 1}, {1, 1, 1}, {1, -2, 0.5}};
	const double *v = ax[axis % 8];
	double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]), s = sin(angle / 2);
	q[0] = v[0] / n * s, q[1] = v[1] / n * s, q[2] = v[2] / n * s, q[3] = cos(angle / 2);
}

static int16_t rest_parent(uint8_t v, uint32_t nb)
{
	return v == 0xFF ? -1 : (int16_t)((int)(v % (nb + 2)) - 1);
}

/* A bone's local pose in the glTF's axes: C_parent · (t, r, s) · inverse(C_b). */
static void rest_to_gltf(const rest_case *k, uint32_t b, const double *t, const double *r, double *gt, double *gr)
{
	static const double id[4] = {0, 0, 0, 1};
	int p = k->parents[b];
	const double *cp = p >= 0 && (uint32_t)p < k->nb && p != (int)b ? k->c[p] : id;
	double cb[4] = {-k->c[b][0], -k->c[b][1], -k->c[b][2], k->c[b][3]};
	rest_qrot(cp, t, gt);
	rest_qmul(cp, r, gr);
	rest_qmul(gr, cb, gr);
}

/* Havok local pose of bone b at frame f (the reference pose moved a little). */
static void rest_havok_frame(const rest_case *k, uint32_t b, uint32_t f, double *t, double *r)
{
	double d[4], q[4];
	for (int i = 0; i < 4; i++)
		q[i] = k->pose[b].rotation[i];
	rest_axis_angle((uint8_t)(b + 3), 0.05 * f * k->motion, d);
	rest_qmul(q, d, r);
	for (int i = 0; i < 3; i++)
		t[i] = k->pose[b].translation[i] + 0.01 * f * (i + 1) * k->motion;
}

/* Decode the header (size >= REST_HEADER_SIZE). */
static void rest_decode(const uint8_t *h, rest_case *k)
{
	memset(k, 0, sizeof(*k));
	k->flags = h[0];
	k->nb = 1 + h[1] % REST_MAX_BONES;
	k->frames = 2 + h[2] % 12;
	k->motion = (float)h[3] / 64.0f;
	k->clean = !(k->flags & (REST_RAW | REST_KEEP_AXES | REST_60FPS | REST_TRACK_ORDER | REST_SHORT_ARRAYS));
	int used[10] = {0};
	for (uint32_t b = 0; b < k->nb; b++) {
		const uint8_t *p = h + 4 + b * REST_BONE_BYTES;
		k->parents[b] = rest_parent(p[0], k->nb);
		uint8_t name = p[1] % 10;
		k->names[b] = rest_names[name];
		k->clean &= name < 8 && !used[name];
		used[name] = 1;
		for (int i = 0; i < 3; i++)
			k->pose[b].translation[i] = (float)(int8_t)p[2 + i] / 16.0f;
		double q[4];
		rest_axis_angle(p[5], p[6] * (2 * REST_PI / 256), q);
		if (p[5] >= 0xF8) {
			static const double odd[4][4] = {{0, 0, 0, 0}, {0, 0, 0, 3}, {1, 1, 1, 1}, {NAN, 0, 0, 1}};
			memcpy(q, odd[p[5] & 3], sizeof(q));
			k->clean = 0;
		}
		for (int i = 0; i < 4; i++)
			k->pose[b].rotation[i] = (float)q[i];
		static const float scales[8] = {1, 1, 1, 2, 0.5f, 0.01f, 100, 1};
		float s = scales[p[7] % 8];
		float sv[3] = {s, s, s};
		if (p[7] % 8 == 7)
			sv[1] = 2, sv[2] = 0.5f, k->clean = 0;
		if (p[7] >= 0xF0) {
			static const float odd[4] = {0, -1, NAN, INFINITY};
			sv[0] = sv[1] = sv[2] = odd[p[7] & 3];
			k->clean = 0;
		}
		for (int i = 0; i < 3; i++)
			k->pose[b].scale[i] = sv[i];
		k->c[b][3] = 1;
		if (p[9]) {
			rest_axis_angle(p[8], p[9] * (2 * REST_PI / 256), k->c[b]);
			k->has_c[b] = 1;
		}
		if (p[10] & 0x0F)
			k->clean = 0;
	}
	/* A: parents must form a forest for the oracle */
	for (uint32_t b = 0; b < k->nb; b++) {
		int x = (int)b, steps = 0;
		while (x >= 0 && steps <= (int)k->nb) {
			int p = k->parents[x];
			if (p >= (int)k->nb || p == x) {
				k->clean = 0;
				break;
			}
			x = p;
			steps++;
		}
		if (steps > (int)k->nb)
			k->clean = 0;
	}
	k->a.name = "A";
	k->a.num_bones = k->nb;
	k->a.bone_names = k->names;
	k->a.lock_translation = k->lock;
	k->a.parent_indices = k->parents;
	k->a.num_parent_indices = k->flags & REST_SHORT_ARRAYS ? k->nb - 1 : k->nb;
	k->a.reference_pose = k->pose;
	k->a.num_reference_pose = k->flags & REST_SHORT_ARRAYS ? k->nb - 1 : k->nb;
	/* B: A's rest pose in the glTF's axes, then the perturbations */
	for (uint32_t b = 0; b < k->nb; b++) {
		const uint8_t *p = h + 4 + b * REST_BONE_BYTES;
		double t[3], r[4], gt[3], gr[4];
		for (int i = 0; i < 3; i++)
			t[i] = k->pose[b].translation[i];
		for (int i = 0; i < 4; i++)
			r[i] = k->pose[b].rotation[i];
		rest_to_gltf(k, b, t, r, gt, gr);
		k->b_parents[b] = p[10] & 8 ? rest_parent(p[11], k->nb) : k->parents[b];
		for (int i = 0; i < 3; i++) {
			k->b_pose[b].translation[i] = (float)gt[i];
			k->b_pose[b].scale[i] = k->pose[b].scale[i];
		}
		for (int i = 0; i < 4; i++)
			k->b_pose[b].rotation[i] = (float)gr[i];
		if (p[10] & 4)
			k->b_pose[b].translation[0] += (float)((p[10] >> 4) + 1) / 64.0f;
		switch (p[10] & 3) {
		case 1: k->b_pose[b].scale[0] = k->b_pose[b].scale[1] = k->b_pose[b].scale[2] = 1; break;
		case 2:
			for (int i = 0; i < 3; i++)
				k->b_pose[b].scale[i] *= 1.5f;
			break;
		case 3: k->b_pose[b].scale[2] *= 3; break;
		default: break;
		}
	}
	k->b = k->a;
	k->b.name = "B";
	k->b.parent_indices = k->b_parents;
	k->b.num_parent_indices = k->nb;
	k->b.reference_pose = k->b_pose;
	k->b.num_reference_pose = k->nb;
	/* the track order of the options */
	k->num_tracks = k->nb;
	if (k->flags & REST_TRACK_ORDER) {
		for (uint32_t t = 0; t < k->nb; t++)
			k->track_to_bone[t] = (int16_t)(k->nb - 1 - t);
		k->track_to_bone[k->nb] = (int16_t)(h[1] & 0x80 ? -1 : (int)k->nb);
		k->num_tracks = k->nb + 1;
	}
}

/* The clip of a generated case: frames of A in B's axes (malloc'd, T = nb). */
static float *rest_clip_frames(const rest_case *k)
{
	float *tr = (float *)calloc((size_t)k->frames * k->nb * HKS_TRACK_SAMPLE_FLOATS, sizeof(float));
	if (!tr)
		return NULL;
	for (uint32_t f = 0; f < k->frames; f++)
		for (uint32_t b = 0; b < k->nb; b++) {
			double t[3], r[4], gt[3], gr[4];
			rest_havok_frame(k, b, f, t, r);
			rest_to_gltf(k, b, t, r, gt, gr);
			float *x = tr + ((size_t)f * k->nb + b) * HKS_TRACK_SAMPLE_FLOATS;
			for (int i = 0; i < 3; i++) {
				x[i] = (float)gt[i];
				x[7 + i] = k->b_pose[b].scale[i];
			}
			for (int i = 0; i < 4; i++)
				x[3 + i] = (float)gr[i];
		}
	return tr;
}

/* Write the glTF of a generated case (hks_gltf_write of B and the clip). */
static hks_result rest_write_gltf(const rest_case *k, const hks_options *base, uint8_t **out, size_t *size,
                                  hks_error *err)
{
	float *tr = rest_clip_frames(k);
	if (!tr)
		return HKS_E_NOMEM;
	hks_gltf_clip clip;
	memset(&clip, 0, sizeof(clip));
	clip.name = "rest";
	clip.num_frames = k->frames;
	clip.frame_duration = 1.0f / 30.0f;
	clip.duration = (float)(k->frames - 1) / 30.0f;
	clip.num_transform_tracks = k->nb;
	clip.transforms = tr;
	hks_gltf_write_options wo;
	memset(&wo, 0, sizeof(wo));
	if (base)
		wo.base = *base;
	wo.binary = (k->flags & REST_GLB) != 0;
	hks_result r = hks_gltf_write(&k->b, &clip, 1, &wo, out, size, NULL, err);
	free(tr);
	return r;
}

#endif
