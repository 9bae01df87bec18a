/*
 * glTF import against the rest pose and the key grid (docs/GLTF.md "Rest poses",
 * "Frame grid", "Key times"), on a synthetic 3-bone skeleton and glTF files built
 * here the way Blender writes them: every bone in other local axes (a constant
 * rotation per bone, as Blender's bone_heuristic TEMPERANCE / FORTUNE choose),
 * keys at another rate, key times rounded off whole frames.
 */
#define _POSIX_C_SOURCE 200809L
#include "hks_test.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NB 3
#define NF 7

static const char *const names[NB] = {"Root", "Upper", "Lower"};
static const int16_t parents[NB] = {-1, 0, 1};
static hks_qs_transform ref[NB];
static hks_skeleton sk;
/* per bone: the change of axes C (glTF_world · C = Havok_world) */
static double axes[NB][4];

static void qaxis(double x, double y, double z, double angle, double *q)
{
	double n = sqrt(x * x + y * y + z * z), s = sin(angle / 2);
	q[0] = x / n * s;
	q[1] = y / n * s;
	q[2] = z / n * s;
	q[3] = cos(angle / 2);
}

static void qmul(const double *a, const double *b, double *o)
{
	double r[4] = {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
	               a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
	               a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
	               a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
	memcpy(o, r, sizeof(r));
}

static void qrot(const double *q, const double *v, double *o)
{
	double p[4] = {v[0], v[1], v[2], 0}, c[4] = {-q[0], -q[1], -q[2], q[3]}, t[4];
	qmul(q, p, t);
	qmul(t, c, t);
	memcpy(o, t, 3 * sizeof(double));
}

/* Havok local pose of bone b at frame f: the reference pose moved a little. */
static void havok_local(int b, int f, double t[3], double r[4], double s[3])
{
	double d[4], q[4] = {ref[b].rotation[0], ref[b].rotation[1], ref[b].rotation[2], ref[b].rotation[3]};
	qaxis(0.3, 1, 0.2 * b, 0.05 * f, d);
	qmul(q, d, r);
	for (int k = 0; k < 3; k++) {
		t[k] = ref[b].translation[k] + 0.01 * f * (k + 1);
		s[k] = ref[b].scale[k];
	}
	if (f < 0) { /* the rest pose */
		memcpy(r, q, sizeof(q));
		for (int k = 0; k < 3; k++)
			t[k] = ref[b].translation[k];
	}
}

/* The same pose in the glTF bone frames: glTF_local = C_parent · Havok_local · inverse(C_b). */
static void gltf_local(int b, int f, double t[3], double r[4], double s[3])
{
	static const double id[4] = {0, 0, 0, 1};
	const double *cp = parents[b] >= 0 ? axes[parents[b]] : id;
	double cb[4] = {-axes[b][0], -axes[b][1], -axes[b][2], axes[b][3]}, ht[3], hr[4];
	havok_local(b, f, ht, hr, s);
	qrot(cp, ht, t);
	qmul(cp, hr, r);
	qmul(r, cb, r);
}

static void build(void)
{
	static const float tr[NB][3] = {{0, 1, 0}, {0.5f, 0, 0}, {0.3f, 0.1f, 0}};
	static const double ax[NB][4] = {{0, 0, 1, 0.4}, {1, 0, 0, -0.7}, {0, 1, 1, 1.1}};
	static const double ch[NB][4] = {{0, 0, 1, 1.5707963267948966}, {1, 1, 0, 0.65}, {0, 1, 1, 2.1}};
	for (int b = 0; b < NB; b++) {
		double q[4];
		memset(&ref[b], 0, sizeof(ref[b]));
		memcpy(ref[b].translation, tr[b], sizeof(tr[b]));
		qaxis(ax[b][0], ax[b][1], ax[b][2], ax[b][3], q);
		for (int k = 0; k < 4; k++)
			ref[b].rotation[k] = (float)q[k];
		ref[b].scale[0] = ref[b].scale[1] = ref[b].scale[2] = b == 1 ? 1.5f : 1.0f; /* uniform */
		qaxis(ch[b][0], ch[b][1], ch[b][2], ch[b][3], axes[b]);
	}
	memset(&sk, 0, sizeof(sk));
	sk.name = "rest";
	sk.num_bones = NB;
	sk.bone_names = names;
	sk.parent_indices = parents;
	sk.num_parent_indices = NB;
	sk.reference_pose = ref;
	sk.num_reference_pose = NB;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void base64(const uint8_t *p, size_t n, char *out)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
		out[o++] = b64[v >> 18 & 63];
		out[o++] = b64[v >> 12 & 63];
		out[o++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? b64[v & 63] : '=';
	}
	out[o] = 0;
}

/* A glTF of the clip in the glTF bone frames (axes: 1) or Havok's (0), with `keys` keys at
 * `key_fps` (times f / key_fps, nudged `nudge` ulps); `lower_extra`: added to the rest
 * translation of "Lower" (an edited bone length). */
static char *make_gltf(int with_axes, int keys, double key_fps, int nudge, float lower_extra)
{
	enum { PER_BONE = 10 };
	size_t nfl = (size_t)keys + (size_t)NB * keys * PER_BONE;
	float *v = calloc(nfl, sizeof(float));
	char *text = malloc(nfl * 8 + 8192), *data = malloc(nfl * 8 + 16);
	assert_non_null(v);
	assert_non_null(text);
	assert_non_null(data);
	for (int k = 0; k < keys; k++) {
		float t = (float)(k / key_fps);
		for (int u = 0; u < nudge; u++)
			t = nextafterf(t, INFINITY);
		v[k] = t;
	}
	for (int b = 0; b < NB; b++)
		for (int k = 0; k < keys; k++) {
			double t[3], r[4], s[3];
			/* the pose at key time k / key_fps, in 30 fps frames */
			int f30 = (int)floor(k / key_fps * 30 + 0.5);
			(with_axes ? gltf_local : havok_local)(b, f30, t, r, s);
			float *o = v + keys + ((size_t)b * keys + k) * PER_BONE;
			for (int c = 0; c < 3; c++) {
				o[c] = (float)t[c];
				o[7 + c] = (float)s[c];
			}
			for (int c = 0; c < 4; c++)
				o[3 + c] = (float)r[c];
		}
	/* de-interleave per bone into T (3 x keys), R (4 x keys), S (3 x keys) */
	float *w = calloc(nfl, sizeof(float));
	assert_non_null(w);
	memcpy(w, v, (size_t)keys * sizeof(float));
	for (int b = 0; b < NB; b++) {
		float *base = w + keys + (size_t)b * keys * PER_BONE;
		for (int k = 0; k < keys; k++) {
			const float *o = v + keys + ((size_t)b * keys + k) * PER_BONE;
			memcpy(base + 3 * k, o, 3 * sizeof(float));
			memcpy(base + 3 * keys + 4 * k, o + 3, 4 * sizeof(float));
			memcpy(base + 7 * keys + 3 * k, o + 7, 3 * sizeof(float));
		}
	}
	base64((const uint8_t *)w, nfl * 4, data);
	size_t n = 0, cap = nfl * 8 + 8192;
	n += (size_t)snprintf(text + n, cap - n,
	                      "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":["
	                      "{\"name\":\"hks_root_motion\",\"children\":[1]}");
	for (int b = 0; b < NB; b++) {
		double t[3], r[4], s[3];
		(with_axes ? gltf_local : havok_local)(b, -1, t, r, s);
		if (b == 2)
			t[0] += lower_extra;
		n += (size_t)snprintf(text + n, cap - n,
		                      ",{\"name\":\"%s\",\"translation\":[%.9g,%.9g,%.9g],\"rotation\":[%.9g,%.9g,%.9g,%.9g],"
		                      "\"scale\":[%.9g,%.9g,%.9g]%s}",
		                      names[b], (double)(float)t[0], (double)(float)t[1], (double)(float)t[2],
		                      (double)(float)r[0], (double)(float)r[1], (double)(float)r[2], (double)(float)r[3],
		                      (double)(float)s[0], (double)(float)s[1], (double)(float)s[2],
		                      b + 1 < NB ? (b == 0 ? ",\"children\":[2]" : ",\"children\":[3]") : "");
	}
	n += (size_t)snprintf(text + n, cap - n,
	                      "],\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
	                      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":%zu}],\"accessors\":[{\"bufferView\":0,"
	                      "\"componentType\":5126,\"count\":%d,\"type\":\"SCALAR\",\"min\":[%.9g],\"max\":[%.9g]}",
	                      nfl * 4, data, nfl * 4, keys, (double)v[0], (double)v[keys - 1]);
	for (int b = 0; b < NB; b++) {
		size_t off = ((size_t)keys + (size_t)b * keys * PER_BONE) * 4;
		n += (size_t)snprintf(text + n, cap - n,
		                      ",{\"bufferView\":0,\"byteOffset\":%zu,\"componentType\":5126,\"count\":%d,\"type\":\"VEC3\"}"
		                      ",{\"bufferView\":0,\"byteOffset\":%zu,\"componentType\":5126,\"count\":%d,\"type\":\"VEC4\"}"
		                      ",{\"bufferView\":0,\"byteOffset\":%zu,\"componentType\":5126,\"count\":%d,\"type\":\"VEC3\"}",
		                      off, keys, off + (size_t)12 * keys, keys, off + (size_t)28 * keys, keys);
	}
	n += (size_t)snprintf(text + n, cap - n, "],\"animations\":[{\"name\":\"clip\",\"samplers\":[");
	for (int i = 0; i < 3 * NB; i++)
		n += (size_t)snprintf(text + n, cap - n, "%s{\"input\":0,\"output\":%d}", i ? "," : "", 1 + i);
	n += (size_t)snprintf(text + n, cap - n, "],\"channels\":[");
	static const char *const paths[3] = {"translation", "rotation", "scale"};
	for (int i = 0; i < 3 * NB; i++)
		n += (size_t)snprintf(text + n, cap - n, "%s{\"sampler\":%d,\"target\":{\"node\":%d,\"path\":\"%s\"}}",
		                      i ? "," : "", i, 1 + i / 3, paths[i % 3]);
	snprintf(text + n, cap - n, "]}]}");
	free(v);
	free(w);
	free(data);
	return text;
}

static hks_gltf_animation *read_text(const char *text, int keep_axes, float fd, float duration)
{
	hks_gltf_read_options ro;
	memset(&ro, 0, sizeof(ro));
	ro.animation = -1;
	ro.frame_duration = fd;
	ro.duration = duration;
	ro.keep_bone_axes = keep_axes;
	hks_gltf_animation *a = NULL;
	hks_error err;
	hks_result r = hks_gltf_read(text, strlen(text), &sk, &ro, &a, &err);
	if (r != HKS_OK)
		fprintf(stderr, "%s\n", err.message);
	assert_int_equal(r, HKS_OK);
	return a;
}

static double max_diff_from_havok(const hks_gltf_animation *a)
{
	double worst = 0;
	for (uint32_t f = 0; f < a->num_frames; f++)
		for (int b = 0; b < NB; b++) {
			double t[3], r[4], s[3];
			havok_local(b, (int)f, t, r, s);
			const float *x = a->transforms + ((size_t)f * NB + b) * HKS_TRACK_SAMPLE_FLOATS;
			double sign = (double)x[3] * r[0] + (double)x[4] * r[1] + (double)x[5] * r[2] + (double)x[6] * r[3] < 0 ? -1 : 1;
			for (int k = 0; k < 3; k++) {
				worst = fmax(worst, fabs(x[k] - t[k]));
				worst = fmax(worst, fabs(x[7 + k] - s[k]));
			}
			for (int k = 0; k < 4; k++)
				worst = fmax(worst, fabs(x[3 + k] - sign * r[k]));
		}
	return worst;
}

/* Bones in other local axes come back in the skeleton's bone frames. */
static void test_change_of_axes(void **state)
{
	(void)state;
	build();
	char *text = make_gltf(1, NF, 30, 0, 0);
	hks_gltf_animation *a = read_text(text, 0, 1.0f / 30, 0);
	assert_int_equal(a->num_frames, NF);
	assert_int_equal(a->num_axis_bones, NB);
	assert_true(a->max_axis_angle > 2.0);
	assert_int_equal(a->num_rest_bones, 0);
	assert_false(a->off_grid);
	assert_true(max_diff_from_havok(a) < 2e-6);
	hks_gltf_animation_free(a);
	/* keep_bone_axes: the glTF's own values, which are not Havok's */
	a = read_text(text, 1, 1.0f / 30, 0);
	assert_int_equal(a->num_axis_bones, 0);
	assert_true(max_diff_from_havok(a) > 0.1);
	hks_gltf_animation_free(a);
	free(text);
	/* the skeleton's own axes: nothing converted, values exact */
	text = make_gltf(0, NF, 30, 0, 0);
	a = read_text(text, 0, 1.0f / 30, 0);
	assert_int_equal(a->num_axis_bones, 0);
	assert_int_equal(a->num_rest_bones, 0);
	assert_true(max_diff_from_havok(a) < 1e-6);
	hks_gltf_animation_free(a);
	free(text);
}

/* A rest pose that differs otherwise (a longer bone) is reported with its size. */
static void test_rest_difference(void **state)
{
	(void)state;
	build();
	char *text = make_gltf(1, NF, 30, 0, 0.1f);
	hks_gltf_animation *a = read_text(text, 0, 1.0f / 30, 0);
	assert_int_equal(a->num_rest_bones, 1);
	assert_int_equal(a->rest_bones[0], 2);
	assert_true(fabs(a->rest_translation[0] - 0.1) < 1e-5);
	assert_false(a->rest_hierarchy[0]);
	hks_gltf_animation_free(a);
	free(text);
}

/* Keys at 24 fps for a 30 fps target: off the grid, resampled; the last key, short of
 * the target duration by less than a key step, is the clip's end (no frame dropped). */
static void test_frame_grid(void **state)
{
	(void)state;
	build();
	/* 6 keys at 24 fps span 5/24 = 0.2083 s; the target 7 frames at 30 fps span 0.2 s */
	char *text = make_gltf(1, 6, 24, 0, 0);
	hks_gltf_animation *a = read_text(text, 0, 1.0f / 30, (float)(6.0 / 30));
	assert_true(a->off_grid);
	assert_true(fabs(a->key_step - 1.0 / 24) < 1e-6);
	assert_int_equal(a->num_frames, NF);
	assert_true(a->end_snapped);
	hks_gltf_animation_free(a);
	/* the same keys without a target duration: the frame count follows the keys */
	a = read_text(text, 0, 1.0f / 30, 0);
	assert_int_equal(a->num_frames, 7);
	assert_false(a->end_snapped);
	hks_gltf_animation_free(a);
	free(text);
	/* a target 3 key steps longer than the keys is not snapped */
	text = make_gltf(1, 4, 24, 0, 0);
	a = read_text(text, 0, 1.0f / 30, (float)(6.0 / 30));
	assert_false(a->end_snapped);
	assert_int_equal(a->num_frames, 5);
	hks_gltf_animation_free(a);
	free(text);
}

/* Key times a few ulps off the frame times give the keys' values bit for bit. */
static void test_key_times_off_by_ulps(void **state)
{
	(void)state;
	build();
	char *exact = make_gltf(0, NF, 30, 0, 0), *nudged = make_gltf(0, NF, 30, 3, 0);
	hks_gltf_animation *a = read_text(exact, 1, 1.0f / 30, 0), *b = read_text(nudged, 1, 1.0f / 30, 0);
	assert_int_equal(a->num_frames, b->num_frames);
	assert_false(b->off_grid);
	assert_memory_equal(a->transforms, b->transforms, (size_t)a->num_frames * NB * HKS_TRACK_SAMPLE_FLOATS * 4);
	hks_gltf_animation_free(a);
	hks_gltf_animation_free(b);
	free(exact);
	free(nudged);
}

/* The writer's key times: round(t·fps), floor(t·fps + 1e-4) and floor(t·fps) are the frame, in f32 and double. */
static void test_export_key_times(void **state)
{
	(void)state;
	build();
	enum { FR = 4001 };
	float *tr = calloc((size_t)FR * NB * HKS_TRACK_SAMPLE_FLOATS, sizeof(float));
	assert_non_null(tr);
	for (size_t i = 0; i < (size_t)FR * NB; i++) {
		tr[i * 10 + 6] = 1;
		tr[i * 10 + 7] = tr[i * 10 + 8] = tr[i * 10 + 9] = 1;
	}
	static const float fds[3] = {1.0f / 30, 1.0f / 60, 1.0f / 25};
	for (int k = 0; k < 3; k++) {
		hks_gltf_clip c;
		memset(&c, 0, sizeof(c));
		c.name = "times";
		c.num_frames = FR;
		c.frame_duration = fds[k];
		c.duration = (float)((FR - 1) * (double)fds[k]);
		c.num_transform_tracks = NB;
		c.transforms = tr;
		hks_gltf_write_options wo;
		memset(&wo, 0, sizeof(wo));
		wo.binary = 1;
		uint8_t *bytes = NULL;
		size_t size = 0;
		hks_gltf_write_report rep;
		hks_error err;
		assert_int_equal(hks_gltf_write(&sk, &c, 1, &wo, &bytes, &size, &rep, &err), HKS_OK);
		/* the times the writer chose: animations[0].samplers[0].input in the BIN chunk */
		uint32_t jlen = (uint32_t)bytes[12] | (uint32_t)bytes[13] << 8 | (uint32_t)bytes[14] << 16 |
		                (uint32_t)bytes[15] << 24;
		json_error_t je;
		json_t *root = json_loadb((const char *)bytes + 20, jlen, 0, &je);
		assert_non_null(root);
		json_t *anim = json_array_get(json_object_get(root, "animations"), 0);
		json_int_t in = json_integer_value(json_object_get(json_array_get(json_object_get(anim, "samplers"), 0), "input"));
		json_t *acc = json_array_get(json_object_get(root, "accessors"), (size_t)in);
		json_t *view = json_array_get(json_object_get(root, "bufferViews"),
		                              (size_t)json_integer_value(json_object_get(acc, "bufferView")));
		size_t off = (size_t)(json_integer_value(json_object_get(view, "byteOffset")) +
		                      json_integer_value(json_object_get(acc, "byteOffset")));
		assert_int_equal(json_integer_value(json_object_get(acc, "count")), FR);
		const uint8_t *bin = bytes + 20 + jlen + 8;
		assert_true(bin + off + (size_t)FR * 4 <= bytes + size);
		double fps = k == 0 ? 30 : k == 1 ? 60 : 25;
		for (uint32_t f = 0; f < FR; f++) {
			float x;
			memcpy(&x, bin + off + (size_t)f * 4, 4); /* little-endian host (x86-64, arm64) */
			double p = (double)x * fps;
			float pf = x * (float)fps;
			assert_true(floor(p + 0.5) == f && floor(p + 1e-4) == f && floorf(pf + 0.5f) == (float)f &&
			            floorf(pf + 1e-4f) == (float)f && p >= f && pf >= (float)f);
		}
		json_decref(root);
		/* read back: every frame on its own key */
		hks_gltf_read_options ro;
		memset(&ro, 0, sizeof(ro));
		ro.animation = -1;
		ro.frame_duration = fds[k];
		hks_gltf_animation *a = NULL;
		assert_int_equal(hks_gltf_read(bytes, size, &sk, &ro, &a, &err), HKS_OK);
		assert_int_equal(a->num_frames, FR);
		assert_false(a->off_grid);
		hks_gltf_animation_free(a);
		hks_buffer_free(&wo.base, bytes, size);
	}
	free(tr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_change_of_axes),
		cmocka_unit_test(test_rest_difference),
		cmocka_unit_test(test_frame_grid),
		cmocka_unit_test(test_key_times_off_by_ulps),
		cmocka_unit_test(test_export_key_times),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
