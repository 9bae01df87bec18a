/*
 * Seeds of fuzz_gltf_rest (input layout: tests/fuzz/gltf_rest_input.h), made
 * from synthetic skeletons only: usage make_gltf_rest_seeds OUT_DIR.
 * Generated cases (the target writes the glTF): the glTF in the skeleton's
 * own axes, Blender-like changes of axes on every bone, an edited bone
 * length, a unit rest scale over a scaled reference pose, another parent, a
 * hostile skeleton (cycle, self parent, out-of-range parent, unnamed and
 * duplicate bones, zero / NaN quaternions and scales), and the option paths
 * (keep_bone_axes, 60 fps, track order, short arrays, float track). Raw
 * cases: the header followed by a glTF written from such a case, as JSON and
 * GLB, and JSON edited so that the skin's joints are missing, repeated or
 * out of range, and a node has a matrix instead of TRS.
 */
#define _POSIX_C_SOURCE 200809L
#include "gltf_rest_input.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

static const char *g_dir;
static int g_failed;

static void put(const char *name, const uint8_t *h, const void *tail, size_t tail_size)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", g_dir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(h, 1, REST_HEADER_SIZE, f) != REST_HEADER_SIZE ||
	    (tail_size && fwrite(tail, 1, tail_size, f) != tail_size) || fclose(f) != 0) {
		fprintf(stderr, "make_gltf_rest_seeds: cannot write %s\n", path);
		g_failed = 1;
	}
}

/* bone b of header h */
static void bone(uint8_t *h, int b, uint8_t parent, uint8_t name, int8_t tx, int8_t ty, int8_t tz, uint8_t axis,
                 uint8_t angle, uint8_t scale, uint8_t c_axis, uint8_t c_angle, uint8_t perturb, uint8_t other)
{
	uint8_t *p = h + 4 + b * REST_BONE_BYTES;
	p[0] = parent, p[1] = name, p[2] = (uint8_t)tx, p[3] = (uint8_t)ty, p[4] = (uint8_t)tz, p[5] = axis;
	p[6] = angle, p[7] = scale, p[8] = c_axis, p[9] = c_angle, p[10] = perturb, p[11] = other;
}

/* A chain of n bones (parent b - 1), 1 m apart along y, turned a little. */
static void chain(uint8_t *h, uint8_t flags, int n, uint8_t c_angle)
{
	memset(h, 0, REST_HEADER_SIZE);
	h[0] = flags, h[1] = (uint8_t)(n - 1), h[2] = 7, h[3] = 64;
	for (int b = 0; b < n; b++)
		bone(h, b, b == 0 ? 0xFF : (uint8_t)b /* decodes to b - 1 */, (uint8_t)b, 0, b ? 16 : 0, (int8_t)(b * 2),
		     (uint8_t)b, (uint8_t)(10 * b), 1, (uint8_t)(b + 1), c_angle ? (uint8_t)(c_angle + 16 * b) : 0, 0, 0);
}

/* The glTF a generated header gives (malloc'd). */
static uint8_t *written(const uint8_t *h, size_t *n)
{
	rest_case k;
	rest_decode(h, &k);
	uint8_t *out = NULL;
	hks_error err;
	hks_options o;
	memset(&o, 0, sizeof(o));
	if (rest_write_gltf(&k, &o, &out, n, &err) != HKS_OK) {
		fprintf(stderr, "make_gltf_rest_seeds: %s\n", err.message);
		g_failed = 1;
		return NULL;
	}
	uint8_t *copy = (uint8_t *)malloc(*n + 1);
	memcpy(copy, out, *n);
	copy[*n] = 0;
	hks_buffer_free(&o, out, *n);
	return copy;
}

/* `text` with the first `from` replaced by `to` (malloc'd), NULL if absent. */
static char *edit(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	if (!at) {
		fprintf(stderr, "make_gltf_rest_seeds: no %s in the written glTF\n", from);
		g_failed = 1;
		return NULL;
	}
	size_t n = strlen(text) - strlen(from) + strlen(to);
	char *o = (char *)malloc(n + 1);
	size_t pre = (size_t)(at - text);
	memcpy(o, text, pre);
	strcpy(o + pre, to);
	strcat(o, at + strlen(from));
	return o;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: make_gltf_rest_seeds OUT_DIR\n");
		return 2;
	}
	g_dir = argv[1];
	if (mkdir(g_dir, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "make_gltf_rest_seeds: cannot create %s\n", g_dir);
		return 1;
	}
	uint8_t h[REST_HEADER_SIZE];

	chain(h, 0, 3, 0);
	put("same_axes.bin", h, NULL, 0);
	chain(h, REST_GLB, 5, 64); /* 90 degrees and more per bone, as Blender's bone directions */
	put("blender_axes_glb.bin", h, NULL, 0);
	chain(h, 0, 8, 200);
	put("axes_8_bones.bin", h, NULL, 0);

	chain(h, 0, 4, 64);
	h[4 + 2 * REST_BONE_BYTES + 10] = 4 | 0x30; /* bone 2 longer by 4/64 m */
	put("bone_length.bin", h, NULL, 0);

	chain(h, 0, 3, 0);
	h[4 + 1 * REST_BONE_BYTES + 7] = 3;      /* scale 2 ... */
	h[4 + 1 * REST_BONE_BYTES + 10] = 1;     /* ... written as 1 (Blender) */
	h[4 + 2 * REST_BONE_BYTES + 7] = 7;      /* non-uniform */
	h[4 + 2 * REST_BONE_BYTES + 10] = 3;
	put("unit_scale.bin", h, NULL, 0);

	chain(h, 0, 4, 32);
	h[4 + 3 * REST_BONE_BYTES + 10] = 8;     /* bone 3 under bone 0 in the glTF */
	h[4 + 3 * REST_BONE_BYTES + 11] = 1;
	put("other_parent.bin", h, NULL, 0);

	chain(h, 0, 6, 64);
	h[4 + 0 * REST_BONE_BYTES + 0] = 5;      /* root under bone 4: a cycle 0-4-3-2-0 ... */
	h[4 + 2 * REST_BONE_BYTES + 0] = 1;      /* ... closed by bone 2 under bone 0 */
	h[4 + 1 * REST_BONE_BYTES + 0] = 2;      /* itself */
	h[4 + 5 * REST_BONE_BYTES + 0] = 7;      /* out of range (6 bones) */
	h[4 + 3 * REST_BONE_BYTES + 1] = 8;      /* unnamed */
	h[4 + 4 * REST_BONE_BYTES + 1] = 1;      /* duplicate name */
	h[4 + 5 * REST_BONE_BYTES + 1] = 9;      /* the root-motion node's name */
	h[4 + 2 * REST_BONE_BYTES + 5] = 0xF8;   /* zero quaternion */
	h[4 + 3 * REST_BONE_BYTES + 5] = 0xFB;   /* NaN quaternion */
	h[4 + 4 * REST_BONE_BYTES + 7] = 0xF0;   /* zero scale */
	h[4 + 5 * REST_BONE_BYTES + 7] = 0xF2;   /* NaN scale */
	put("hostile_skeleton.bin", h, NULL, 0);

	chain(h, REST_KEEP_AXES | REST_FLOAT_TRACK, 3, 64);
	put("keep_axes.bin", h, NULL, 0);
	chain(h, REST_60FPS | REST_TRACK_ORDER, 4, 64);
	put("track_order_60fps.bin", h, NULL, 0);
	chain(h, REST_SHORT_ARRAYS, 3, 64);
	put("short_arrays.bin", h, NULL, 0);

	/* raw: written glTFs after the header, some edited */
	chain(h, 0, 4, 64);
	size_t n = 0;
	uint8_t *json = written(h, &n);
	chain(h, REST_GLB, 4, 64);
	size_t gn = 0;
	uint8_t *glb = written(h, &gn);
	if (json && glb) {
		chain(h, REST_RAW, 4, 64);
		put("raw_axes.gltf.bin", h, json, n);
		put("raw_axes.glb.bin", h, glb, gn);
		static const char *const joints[][2] = {
		    {"\"joints\":[1,2,3,4]", "\"joints\":[1,3,4]"},       /* a bone missing */
		    {"\"joints\":[1,2,3,4]", "\"joints\":[1,2,2,3,4,4]"}, /* repeated */
		    {"\"joints\":[1,2,3,4]", "\"joints\":[1,2,99,-1]"},   /* out of range */
		    {"\"joints\":[1,2,3,4]", "\"joints\":[]"},            /* empty */
		};
		static const char *const names[] = {"raw_skin_missing.bin", "raw_skin_repeated.bin",
		                                    "raw_skin_out_of_range.bin", "raw_skin_empty.bin"};
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			char *e = edit((const char *)json, joints[i][0], joints[i][1]);
			if (e) {
				put(names[i], h, e, strlen(e));
				free(e);
			}
		}
		/* a node with a matrix besides its TRS (an error) */
		char *e = edit((const char *)json, "\"name\":\"Spine\"",
		               "\"name\":\"Spine\",\"matrix\":[0,1,0,0,-1,0,0,0,0,0,1,0,1,2,3,1]");
		if (e) {
			put("raw_matrix_and_trs.bin", h, e, strlen(e));
			free(e);
		}
	}
	free(json);
	free(glb);
	return g_failed;
}
