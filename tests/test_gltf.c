/*
 * glTF export and import (src/author, docs/GLTF.md) on a synthetic skeleton
 * and clip built here: .glb and .gltf round trips give back the exported
 * frames, float tracks and root motion; the imported frames encode and decode
 * within the encoder's tolerance; malformed files fail cleanly; and the files
 * pass the Khronos validator when node and the npm package are installed
 * (scripts/gltf_validator_setup.sh), else the check is skipped visibly.
 */
#define _POSIX_C_SOURCE 200809L
#include "hks_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define BONES 4
#define FRAMES 37
#define TRACKS 3   /* bones 1, 2, 3 animated; bone 0 not */
#define FLOATS 1

static const char *const bone_names[BONES] = {"Master", "Pelvis", "Spine", "Head"};
static const int16_t parents[BONES] = {-1, 0, 1, 2};
static const char *const slots[1] = {"CameraFOV"};
static const float ref_floats[1] = {0.9f};
static hks_qs_transform ref_pose[BONES];
static const int16_t track_to_bone[TRACKS] = {3, 1, 2}; /* not in bone order, on purpose */
static const int16_t float_to_slot[FLOATS] = {0};
static float frames[FRAMES * TRACKS * HKS_TRACK_SAMPLE_FLOATS];
static float floats[FRAMES * FLOATS];
static float rm_samples[FRAMES][4];
static hks_skeleton skel;
static hks_reference_frame rf;
static hks_gltf_clip clip;

static void quat_axis_angle(float ax, float ay, float az, double angle, float *q)
{
	double n = sqrt((double)ax * ax + (double)ay * ay + (double)az * az), s = sin(angle / 2);
	q[0] = (float)(ax / n * s);
	q[1] = (float)(ay / n * s);
	q[2] = (float)(az / n * s);
	q[3] = (float)cos(angle / 2);
}

static void build(void)
{
	for (int b = 0; b < BONES; b++) {
		hks_qs_transform *x = &ref_pose[b];
		memset(x, 0, sizeof(*x));
		x->translation[1] = b ? 0.25f : 0.0f;
		quat_axis_angle(1, 0, 0, 0.1 * b, x->rotation);
		x->scale[0] = x->scale[1] = x->scale[2] = 1;
	}
	memset(&skel, 0, sizeof(skel));
	skel.name = "synthetic";
	skel.num_bones = BONES;
	skel.bone_names = bone_names;
	skel.parent_indices = parents;
	skel.num_parent_indices = BONES;
	skel.reference_pose = ref_pose;
	skel.num_reference_pose = BONES;
	skel.float_slots = slots;
	skel.num_float_slots = 1;
	skel.reference_floats = ref_floats;
	skel.num_reference_floats = 1;
	for (int f = 0; f < FRAMES; f++) {
		double u = (double)f / (FRAMES - 1);
		for (int t = 0; t < TRACKS; t++) {
			float *x = &frames[(f * TRACKS + t) * HKS_TRACK_SAMPLE_FLOATS];
			x[0] = (float)(0.1 * sin(6 * u + t));
			x[1] = (float)(0.2 + 0.05 * t);
			x[2] = (float)(0.03 * cos(4 * u));
			/* a rotation past 180 degrees: the quaternion's w changes sign (continuity matters) */
			quat_axis_angle(0.2f * (float)t, 1, 0.3f, 4.0 * u + 0.2 * t, x + 3);
			/* stored quaternions are neither unit nor sign-continuous in general */
			for (int k = 3; k < 7; k++)
				x[k] *= (t == 1 && f % 5 == 3) ? -1.0f : (t == 0 ? 1.01f : 1.0f);
			x[7] = x[8] = x[9] = 1.0f + (t == 2 ? (float)(0.1 * u) : 0.0f);
		}
		floats[f] = (float)(0.8 + 0.2 * u * u);
		rm_samples[f][0] = (float)(1.5 * u);
		rm_samples[f][1] = 0;
		rm_samples[f][2] = (float)(-0.5 * u);
		rm_samples[f][3] = (float)(0.7 * u); /* heading about up */
	}
	memset(&rf, 0, sizeof(rf));
	rf.class_name = "hkaDefaultAnimatedReferenceFrame";
	rf.up[1] = 1;
	rf.forward[2] = 1;
	rf.duration = (float)(FRAMES - 1) / 30.0f;
	rf.samples = (const float(*)[4])rm_samples;
	rf.num_samples = FRAMES;
	memset(&clip, 0, sizeof(clip));
	clip.name = "synthetic clip";
	clip.num_frames = FRAMES;
	clip.frame_duration = 1.0f / 30.0f;
	clip.duration = (float)(FRAMES - 1) / 30.0f;
	clip.num_transform_tracks = TRACKS;
	clip.num_float_tracks = FLOATS;
	clip.transforms = frames;
	clip.floats = floats;
	clip.track_to_bone = track_to_bone;
	clip.float_track_to_slot = float_to_slot;
	clip.root_motion = &rf;
}

static uint8_t *export_clip(int binary, size_t *size)
{
	hks_gltf_write_options wo;
	memset(&wo, 0, sizeof(wo));
	wo.binary = binary;
	uint8_t *out = NULL;
	hks_error err;
	hks_gltf_write_report rep;
	assert_int_equal(hks_gltf_write(&skel, &clip, 1, &wo, &out, size, &rep, &err), HKS_OK);
	assert_int_equal(rep.channels, 3 * TRACKS + 2);
	assert_true(rep.sign_flips > 0); /* the synthetic rotations cross the hemisphere */
	assert_int_equal(rep.nonfinite_samples, 0);
	return out;
}

static hks_result import_clip(const uint8_t *data, size_t size, hks_gltf_animation **out, hks_error *err)
{
	hks_gltf_read_options ro;
	memset(&ro, 0, sizeof(ro));
	ro.animation = -1;
	ro.frame_duration = clip.frame_duration;
	ro.duration = clip.duration;
	ro.track_to_bone = track_to_bone;
	ro.num_tracks = TRACKS;
	ro.float_slot_names = slots;
	ro.num_float_tracks = FLOATS;
	ro.reference_floats = ref_floats;
	return hks_gltf_read(data, size, &skel, &ro, out, err);
}

/* The export's rotations: normalized and sign-continuous; the rest as given. */
static void expected_frame(int f, int t, float *x)
{
	memcpy(x, &frames[(f * TRACKS + t) * HKS_TRACK_SAMPLE_FLOATS], sizeof(float) * HKS_TRACK_SAMPLE_FLOATS);
	static float prev[TRACKS][4];
	double n = sqrt((double)x[3] * x[3] + (double)x[4] * x[4] + (double)x[5] * x[5] + (double)x[6] * x[6]);
	for (int k = 3; k < 7; k++)
		x[k] = (float)(x[k] / n);
	if (f && x[3] * prev[t][0] + x[4] * prev[t][1] + x[5] * prev[t][2] + x[6] * prev[t][3] < 0)
		for (int k = 3; k < 7; k++)
			x[k] = -x[k];
	memcpy(prev[t], x + 3, sizeof(prev[t]));
}

static void check_round_trip(int binary)
{
	build();
	size_t size = 0;
	uint8_t *data = export_clip(binary, &size);
	if (binary)
		assert_memory_equal(data, "glTF", 4);
	else
		assert_int_equal(data[0], '{');
	hks_gltf_animation *a = NULL;
	hks_error err;
	hks_result r = import_clip(data, size, &a, &err);
	if (r != HKS_OK)
		fprintf(stderr, "import: %s\n", err.message);
	assert_int_equal(r, HKS_OK);
	assert_string_equal(a->name, "synthetic clip");
	assert_int_equal(a->num_frames, FRAMES);
	assert_true(a->duration == clip.duration);
	assert_int_equal(a->num_unmatched_nodes, 0);
	assert_int_equal(a->num_missing_bones, 0);
	assert_int_equal(a->num_missing_float_slots, 0);
	double worst = 0;
	for (int f = 0; f < FRAMES; f++)
		for (int t = 0; t < TRACKS; t++) {
			float x[HKS_TRACK_SAMPLE_FLOATS];
			expected_frame(f, t, x);
			const float *y = &a->transforms[(f * TRACKS + t) * HKS_TRACK_SAMPLE_FLOATS];
			for (int k = 0; k < HKS_TRACK_SAMPLE_FLOATS; k++) {
				double d = fabs((double)x[k] - y[k]);
				worst = d > worst ? d : worst;
			}
		}
	/* frame times hit the keys exactly: the imported values are the exported bits */
	assert_true(worst == 0);
	for (int f = 0; f < FRAMES; f++)
		assert_true(a->floats[f] == floats[f]);
	assert_true(a->has_root_motion);
	for (int f = 0; f < FRAMES; f++) {
		for (int k = 0; k < 3; k++)
			assert_true(a->root_motion[f][k] == rm_samples[f][k]);
		assert_true(fabs(a->root_motion[f][3] - rm_samples[f][3]) < 1e-6);
	}
	hks_gltf_animation_free(a);

	/* resampling at another rate: 60 fps doubles the frames; odd frames interpolate */
	hks_gltf_read_options ro;
	memset(&ro, 0, sizeof(ro));
	ro.frame_duration = 1.0f / 60.0f;
	ro.animation = 0;
	assert_int_equal(hks_gltf_read(data, size, &skel, &ro, &a, &err), HKS_OK);
	assert_int_equal(a->num_frames, 2 * (FRAMES - 1) + 1);
	assert_int_equal(a->num_transform_tracks, BONES); /* skeleton order: every bone */
	assert_int_equal(a->num_static_bones, 1);        /* Master has no channel */
	for (uint32_t f = 1; f < a->num_frames; f++) {  /* sign continuity after resampling */
		const float *q0 = &a->transforms[((f - 1) * BONES + 3) * HKS_TRACK_SAMPLE_FLOATS + 3];
		const float *q1 = &a->transforms[(f * BONES + 3) * HKS_TRACK_SAMPLE_FLOATS + 3];
		assert_true(q0[0] * q1[0] + q0[1] * q1[1] + q0[2] * q1[2] + q0[3] * q1[3] > 0);
	}
	hks_gltf_animation_free(a);
	hks_buffer_free(NULL, data, size);
}

static void test_glb_round_trip(void **state)
{
	(void)state;
	check_round_trip(1);
}

static void test_gltf_round_trip(void **state)
{
	(void)state;
	check_round_trip(0);
}

/* Imported frames -> encoder -> stored structure -> sampled frames, within the encoder's
 * tolerance (0.001) plus one quantization step. */
static void test_import_encode_decode(void **state)
{
	(void)state;
	build();
	size_t size = 0;
	uint8_t *data = export_clip(1, &size);
	hks_gltf_animation *a = NULL;
	hks_error err;
	assert_int_equal(import_clip(data, size, &a, &err), HKS_OK);
	hks_frames_in in;
	memset(&in, 0, sizeof(in));
	in.num_frames = a->num_frames;
	in.num_transform_tracks = TRACKS;
	in.num_float_tracks = FLOATS;
	in.duration = a->duration;
	in.transforms = a->transforms;
	in.floats = a->floats;
	hks_packed_spline *p = NULL;
	hks_result r = hks_encode_spline(&in, NULL, &p, &err);
	if (r != HKS_OK)
		fprintf(stderr, "encode: %s\n", err.message);
	assert_int_equal(r, HKS_OK);
	hks_animation an;
	memset(&an, 0, sizeof(an));
	an.kind = HKS_ANIMATION_SPLINE;
	an.duration = p->duration;
	an.number_of_transform_tracks = TRACKS;
	an.number_of_float_tracks = FLOATS;
	an.spline = p->header;
	an.reference_frame = -1;
	an.object_offset = an.data_offset = -1;
	hks_stored_animation *s = NULL;
	assert_int_equal(hks_stored_read(&an, NULL, &s, &err), HKS_OK);
	float *dec = calloc((size_t)FRAMES * TRACKS * HKS_TRACK_SAMPLE_FLOATS, sizeof(float));
	float *decf = calloc(FRAMES, sizeof(float));
	assert_non_null(dec);
	assert_non_null(decf);
	assert_int_equal(hks_sample_frames(s, NULL, 0, FRAMES, dec, decf, &err), HKS_OK);
	double worst = 0;
	for (size_t i = 0; i < (size_t)FRAMES * TRACKS * HKS_TRACK_SAMPLE_FLOATS; i++) {
		double d = fabs((double)dec[i] - a->transforms[i]);
		worst = d > worst ? d : worst;
	}
	/* translation ranges here are below 0.5: one 16-bit step is < 1e-5; ThreeComp40 < 3.5e-4 */
	assert_true(worst <= 0.001 + 3.5e-4);
	for (int f = 0; f < FRAMES; f++)
		assert_true(fabs(decf[f] - a->floats[f]) <= 0.001 + 1e-5);
	free(dec);
	free(decf);
	hks_stored_free(s);
	hks_packed_spline_free(p);
	hks_gltf_animation_free(a);
	hks_buffer_free(NULL, data, size);
}

static hks_result import_text(const char *json, hks_error *err)
{
	hks_gltf_animation *a = NULL;
	hks_gltf_read_options ro;
	memset(&ro, 0, sizeof(ro));
	ro.animation = -1;
	hks_result r = hks_gltf_read(json, strlen(json), &skel, &ro, &a, err);
	hks_gltf_animation_free(a);
	return r;
}

/* A minimal glTF whose buffer holds 2 times and 2 translations (data: URI of 32 bytes). */
#define BUF_2x "AAAAAAAAgD8AAAAAAAAAAAAAAAAAAIA/AACAPwAAgD8="

static void test_malformed(void **state)
{
	(void)state;
	build();
	hks_error err;
	char text[2048];
	/* a valid minimal file first: Head translated, 2 keys at 0 and 1 s */
	snprintf(text, sizeof(text),
	         "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"Head\"}],"
	         "\"buffers\":[{\"byteLength\":32,\"uri\":\"data:application/octet-stream;base64," BUF_2x "\"}],"
	         "\"bufferViews\":[{\"buffer\":0,\"byteLength\":32}],"
	         "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},"
	         "{\"bufferView\":0,\"byteOffset\":8,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}],"
	         "\"animations\":[{\"samplers\":[{\"input\":0,\"output\":1}],"
	         "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}}]}]}");
	assert_int_equal(import_text(text, &err), HKS_OK);
	/* every corruption below is an error, never a crash */
	static const struct {
		const char *from, *to;
		hks_result code;
	} cases[] = {
		{"\"version\":\"2.0\"", "\"version\":\"1.0\"", HKS_E_UNSUPPORTED},
		{"\"asset\"", "\"assex\"", HKS_E_MALFORMED},
		{"\"count\":2,\"type\":\"VEC3\"", "\"count\":3,\"type\":\"VEC3\"", HKS_E_MALFORMED},
		{"\"byteLength\":32}]", "\"byteLength\":33}]", HKS_E_MALFORMED},
		{"\"sampler\":0,", "\"sampler\":7,", HKS_E_MALFORMED},
		{"\"node\":0", "\"node\":-1", HKS_E_MALFORMED},
		{"data:application/octet-stream;base64,", "buffer.bin#", HKS_E_UNSUPPORTED},
		{"\"type\":\"SCALAR\"", "\"type\":\"VEC2\"", HKS_E_MALFORMED},
		{"AAAAAAAAgD8", "AAAAAAAAAAA", HKS_E_MALFORMED}, /* times 0, 0: not increasing */
		{"\"animations\"", "\"animationz\"", HKS_E_NOT_FOUND},
		{"\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"", "\"componentType\":5123,\"count\":2,\"type\":\"VEC3\"",
		 HKS_E_MALFORMED},
		{"}]}]}", "}]}]", HKS_E_MALFORMED},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char bad[2048];
		const char *at = strstr(text, cases[i].from);
		assert_non_null(at);
		snprintf(bad, sizeof(bad), "%.*s%s%s", (int)(at - text), text, cases[i].to, at + strlen(cases[i].from));
		hks_result r = import_text(bad, &err);
		if (r != cases[i].code)
			fprintf(stderr, "case %zu: %s (%s)\n", i, hks_result_name(r), err.message);
		assert_int_equal(r, cases[i].code);
		assert_true(err.message[0] != 0);
	}
	/* GLB: every truncation and single-byte corruption of a real export fails cleanly or succeeds */
	size_t size = 0;
	uint8_t *glb = export_clip(1, &size);
	for (size_t cut = 0; cut < size; cut += 1 + cut / 8) {
		hks_gltf_animation *a = NULL;
		hks_result r = hks_gltf_read(glb, cut, &skel, NULL, &a, &err);
		assert_int_not_equal(r, HKS_OK);
		assert_null(a);
	}
	for (size_t i = 0; i < size; i += 7) {
		uint8_t *copy = malloc(size);
		assert_non_null(copy);
		memcpy(copy, glb, size);
		copy[i] ^= 0x5A;
		hks_gltf_animation *a = NULL;
		if (hks_gltf_read(copy, size, &skel, NULL, &a, &err) == HKS_OK)
			hks_gltf_animation_free(a);
		free(copy);
	}
	hks_buffer_free(NULL, glb, size);
}

/* ---- import features on hand-built files: buffers, sparse, component types, matrices ---- */

/* The bytes of buffer 0 (one bufferView over all of it), little-endian:
 *   0 times 0, 0.5, 1 (3 float)               12 translations 3 x VEC3 float
 *  48 rotations 3 x VEC4 i16 normalized        72 sparse indices u16 {1}, 2 bytes padding
 *  76 sparse values 1 x VEC3 float            88 rotations 3 x VEC4 i8 normalized
 * 100 rotations 3 x VEC4 u8 normalized       112 rotations 3 x VEC4 u16 normalized
 * 136 sparse indices u32 {0, 2}              144 sparse values 2 x VEC3 float */
#define BLOB_SIZE 168
static uint8_t blob[BLOB_SIZE];
static const float key_t[3][3] = {{0.1f, 0.2f, 0.3f}, {0.4f, 0.5f, 0.6f}, {0.7f, 0.8f, 0.9f}};
static const int16_t rot_i16[3][4] = {{0, 0, 0, 32767}, {0, 23170, 0, 23170}, {-32768, 0, 0, 0}};
static const int8_t rot_i8[3][4] = {{0, 0, 0, 127}, {0, -90, 0, 90}, {-128, 0, 0, 0}};
static const uint8_t rot_u8[3][4] = {{0, 0, 0, 255}, {0, 180, 0, 180}, {255, 0, 0, 0}};
static const uint16_t rot_u16[3][4] = {{0, 0, 0, 65535}, {0, 46341, 0, 46341}, {65535, 0, 0, 0}};
static const float sparse_one[3] = {9, 8, 7}, sparse_two[2][3] = {{1, 1, 1}, {2, 2, 2}};

static void put_f32(uint8_t *p, float v)
{
	uint32_t b;
	memcpy(&b, &v, 4);
	for (int k = 0; k < 4; k++)
		p[k] = (uint8_t)(b >> (8 * k));
}

static void put_u16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void make_blob(void)
{
	memset(blob, 0, sizeof(blob));
	static const float times[3] = {0, 0.5f, 1.0f};
	for (int i = 0; i < 3; i++) {
		put_f32(blob + 4 * i, times[i]);
		for (int k = 0; k < 3; k++)
			put_f32(blob + 12 + 12 * i + 4 * k, key_t[i][k]);
		for (int k = 0; k < 4; k++) {
			put_u16(blob + 48 + 8 * i + 2 * k, (uint16_t)rot_i16[i][k]);
			blob[88 + 4 * i + k] = (uint8_t)rot_i8[i][k];
			blob[100 + 4 * i + k] = rot_u8[i][k];
			put_u16(blob + 112 + 8 * i + 2 * k, rot_u16[i][k]);
		}
	}
	put_u16(blob + 72, 1);
	for (int k = 0; k < 3; k++) {
		put_f32(blob + 76 + 4 * k, sparse_one[k]);
		put_f32(blob + 144 + 4 * k, sparse_two[0][k]);
		put_f32(blob + 156 + 4 * k, sparse_two[1][k]);
	}
	blob[136] = 0;
	blob[140] = 2;
}

/* RFC 4648 base64 of the blob, written here (independent of the library's encoder). */
static void blob_base64(char *out)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t o = 0;
	for (size_t i = 0; i < BLOB_SIZE; i += 3) {
		uint32_t v = (uint32_t)blob[i] << 16 | (i + 1 < BLOB_SIZE ? (uint32_t)blob[i + 1] << 8 : 0) |
		             (i + 2 < BLOB_SIZE ? blob[i + 2] : 0);
		out[o++] = a[v >> 18];
		out[o++] = a[(v >> 12) & 63];
		out[o++] = i + 1 < BLOB_SIZE ? a[(v >> 6) & 63] : '=';
		out[o++] = i + 2 < BLOB_SIZE ? a[v & 63] : '=';
	}
	out[o] = 0;
}

#define ACC_T "{\"bufferView\":0,\"byteOffset\":12,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}"

/* A file with nodes Head (animated by one channel: `path`, output accessor 1
 * = `out_acc`) and Spine (`spine` appended to its object, e.g. a matrix). */
static char *doc(const char *buffer, const char *out_acc, const char *path, const char *spine)
{
	static char text[8192];
	snprintf(text, sizeof(text),
	         "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"Head\"},{\"name\":\"Spine\"%s}],"
	         "\"buffers\":[%s],\"bufferViews\":[{\"buffer\":0,\"byteLength\":%d}],"
	         "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"SCALAR\"},%s],"
	         "\"animations\":[{\"samplers\":[{\"input\":0,\"output\":1}],"
	         "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"%s\"}}]}]}",
	         spine, buffer, BLOB_SIZE, out_acc, path);
	return text;
}

/* The blob as an embedded buffer. */
static char *embedded_buffer(const char *media)
{
	static char text[512];
	char b64[BLOB_SIZE / 3 * 4 + 8];
	blob_base64(b64);
	snprintf(text, sizeof(text), "{\"byteLength\":%d,\"uri\":\"data:%s;base64,%s\"}", BLOB_SIZE, media, b64);
	return text;
}

static const int16_t head_spine[2] = {3, 2};

/* Import with tracks (Head, Spine) at 2 frames per second: frames fall on the keys. */
static hks_result read_doc(const char *json, hks_gltf_read_options *ro, hks_gltf_animation **out, hks_error *err)
{
	hks_gltf_read_options local;
	if (!ro) {
		memset(&local, 0, sizeof(local));
		ro = &local;
	}
	ro->animation = -1;
	ro->frame_duration = 0.5f;
	ro->track_to_bone = head_spine;
	ro->num_tracks = 2;
	build();
	make_blob();
	hks_result r = hks_gltf_read(json, strlen(json), &skel, ro, out, err);
	if (r == HKS_OK) {
		assert_int_equal((*out)->num_frames, 3);
		assert_int_equal((*out)->num_transform_tracks, 2);
	} else {
		assert_null(*out);
		assert_int_equal(err->code, r);
		assert_true(err->message[0] != 0);
	}
	return r;
}

static hks_result read_doc_code(const char *json, hks_gltf_read_options *ro)
{
	hks_gltf_animation *a = NULL;
	hks_error err;
	hks_result r = read_doc(json, ro, &a, &err);
	hks_gltf_animation_free(a);
	return r;
}

static const float *head(const hks_gltf_animation *a, int f) { return &a->transforms[(size_t)f * 2 * HKS_TRACK_SAMPLE_FLOATS]; }
static const float *spine(const hks_gltf_animation *a, int f)
{
	return &a->transforms[((size_t)f * 2 + 1) * HKS_TRACK_SAMPLE_FLOATS];
}

static void expect_translations(const hks_gltf_animation *a, const float want[3][3])
{
	for (int f = 0; f < 3; f++)
		for (int k = 0; k < 3; k++)
			assert_true(head(a, f)[k] == want[f][k]);
}

static void test_data_uri_media_types(void **state)
{
	(void)state;
	static const char *const media[2] = {"application/octet-stream", "application/gltf-buffer"};
	for (int m = 0; m < 2; m++) {
		make_blob();
		hks_gltf_animation *a = NULL;
		hks_error err;
		assert_int_equal(read_doc(doc(embedded_buffer(media[m]), ACC_T, "translation", ""), NULL, &a, &err), HKS_OK);
		expect_translations(a, key_t);
		hks_gltf_animation_free(a);
	}
	make_blob();
	/* glTF 2.0 §3.6.1.1 names these two media types only */
	assert_int_equal(read_doc_code(doc(embedded_buffer("application/json"), ACC_T, "translation", ""), NULL),
	                 HKS_E_MALFORMED);
	/* a data: URI without base64 (percent-encoded bytes) is not read */
	assert_int_equal(read_doc_code(doc("{\"byteLength\":168,\"uri\":\"data:application/octet-stream,%00%01\"}",
	                                   ACC_T, "translation", ""),
	                               NULL),
	                 HKS_E_UNSUPPORTED);
}

/* Replace the first `from` in a copy of `text`. */
static char *replaced(const char *text, const char *from, const char *to)
{
	static char out[8192];
	const char *at = strstr(text, from);
	assert_non_null(at);
	snprintf(out, sizeof(out), "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
	return out;
}

static void test_bad_base64(void **state)
{
	(void)state;
	make_blob();
	char good[8192];
	snprintf(good, sizeof(good), "%s", doc(embedded_buffer("application/octet-stream"), ACC_T, "translation", ""));
	assert_int_equal(read_doc_code(good, NULL), HKS_OK);
	char b64[BLOB_SIZE / 3 * 4 + 8];
	blob_base64(b64); /* 168 bytes: 224 characters, no padding */
	char head4[5];
	memcpy(head4, b64, 4);
	head4[4] = 0;
	char to[512];
	static const char *const bad_starts[] = {"!AAA", "AA=A", " AAA"};
	for (size_t i = 0; i < sizeof(bad_starts) / sizeof(bad_starts[0]); i++) {
		snprintf(to, sizeof(to), "base64,%s", bad_starts[i]);
		char from[16];
		snprintf(from, sizeof(from), "base64,%s", head4);
		assert_int_equal(read_doc_code(replaced(good, from, to), NULL), HKS_E_MALFORMED);
	}
	/* a length that is no multiple of 4 (missing padding) */
	snprintf(to, sizeof(to), "%.*sAA\"", (int)strlen(b64), b64);
	char from[300];
	snprintf(from, sizeof(from), "%s\"", b64);
	assert_int_equal(read_doc_code(replaced(good, from, to), NULL), HKS_E_MALFORMED);
	/* padding: three '=' and non-zero padding bits ("AB==" leaves bits 0001) */
	snprintf(to, sizeof(to), "%sA===\"", b64);
	assert_int_equal(read_doc_code(replaced(good, from, to), NULL), HKS_E_MALFORMED);
	snprintf(to, sizeof(to), "%sAB==\"", b64);
	assert_int_equal(read_doc_code(replaced(good, from, to), NULL), HKS_E_MALFORMED);
	snprintf(to, sizeof(to), "%sAA==\"", b64); /* canonical: one more zero byte, accepted */
	assert_int_equal(read_doc_code(replaced(good, from, to), NULL), HKS_OK);
	/* byteLength larger than the decoded bytes */
	assert_int_equal(read_doc_code(replaced(good, "\"byteLength\":168,\"uri\"", "\"byteLength\":169,\"uri\""), NULL),
	                 HKS_E_MALFORMED);
	assert_int_equal(read_doc_code(replaced(good, "\"byteLength\":168,\"uri\"", "\"byteLength\":1000000000000,\"uri\""),
	                               NULL),
	                 HKS_E_MALFORMED);
}

/* A buffer without uri outside a GLB holds no data (e.g. an
 * EXT_meshopt_compression fallback): harmless unused, an error when used. */
static void test_buffer_without_uri(void **state)
{
	(void)state;
	char bufs[1024];
	snprintf(bufs, sizeof(bufs), "%s,{\"byteLength\":168}", embedded_buffer("application/octet-stream"));
	char text[8192];
	snprintf(text, sizeof(text), "%s", doc(bufs, ACC_T, "translation", ""));
	assert_int_equal(read_doc_code(text, NULL), HKS_OK);
	hks_gltf_animation *a = NULL;
	hks_error err;
	assert_int_equal(read_doc(replaced(text, "{\"buffer\":0,", "{\"buffer\":1,"), NULL, &a, &err), HKS_E_MALFORMED);
	assert_string_equal(err.member, "buffers[1]");
}

/* ---- external files ---- */

static void write_file(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, size, f), size);
	fclose(f);
}

static char tmp_dir[64];

static void make_tmp_dir(void)
{
	snprintf(tmp_dir, sizeof(tmp_dir), "/tmp/hks_gltf_ext_XXXXXX");
	assert_non_null(mkdtemp(tmp_dir));
}

/* A temp folder with "anim data.bin" and "bins/a.bin" (the blob) and
 * "short.bin" (its first 100 bytes); *gltf_path = the folder + "/x.gltf". */
static void ext_folder_create(char *gltf_path, size_t size)
{
	make_blob();
	make_tmp_dir();
	char path[256];
	snprintf(path, sizeof(path), "%s/anim data.bin", tmp_dir);
	write_file(path, blob, BLOB_SIZE);
	snprintf(path, sizeof(path), "%s/bins", tmp_dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/bins/a.bin", tmp_dir);
	write_file(path, blob, BLOB_SIZE);
	snprintf(path, sizeof(path), "%s/short.bin", tmp_dir);
	write_file(path, blob, 100);
	snprintf(gltf_path, size, "%s/x.gltf", tmp_dir);
}

static void ext_folder_remove(void)
{
	static const char *const names[] = {"anim data.bin", "bins/a.bin", "bins", "short.bin"};
	char path[256];
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmp_dir, names[i]);
		assert_int_equal(remove(path), 0);
	}
	assert_int_equal(rmdir(tmp_dir), 0);
}

/* "glTF Separate": x.gltf + a .bin beside it (percent-encoded space) or in a subfolder. */
static void test_external_bin(void **state)
{
	(void)state;
	char gltf_path[256];
	ext_folder_create(gltf_path, sizeof(gltf_path));
	static const char *const uris[2] = {"anim%20data.bin", "./bins/a.bin"};
	for (int u = 0; u < 2; u++) {
		char buffer[256];
		snprintf(buffer, sizeof(buffer), "{\"byteLength\":168,\"uri\":\"%s\"}", uris[u]);
		hks_gltf_read_options ro;
		memset(&ro, 0, sizeof(ro));
		ro.source_path = gltf_path;
		hks_gltf_animation *a = NULL;
		hks_error err;
		hks_result r = read_doc(doc(buffer, ACC_T, "translation", ""), &ro, &a, &err);
		if (r != HKS_OK)
			fprintf(stderr, "%s: %s\n", uris[u], err.message);
		assert_int_equal(r, HKS_OK);
		expect_translations(a, key_t);
		hks_gltf_animation_free(a);
		/* without a folder: refused as before, nothing opened */
		assert_int_equal(read_doc_code(doc(buffer, ACC_T, "translation", ""), NULL), HKS_E_UNSUPPORTED);
	}
	/* a buffer no accessor uses is never opened (a missing mesh .bin does not matter) */
	hks_gltf_read_options ro;
	memset(&ro, 0, sizeof(ro));
	ro.source_path = gltf_path;
	char two[1024];
	snprintf(two, sizeof(two), "%s,{\"byteLength\":4,\"uri\":\"meshes.bin\"}", embedded_buffer("application/octet-stream"));
	assert_int_equal(read_doc_code(doc(two, ACC_T, "translation", ""), &ro), HKS_OK);
	ext_folder_remove();
}

static void test_external_missing_file(void **state)
{
	(void)state;
	char gltf_path[256];
	ext_folder_create(gltf_path, sizeof(gltf_path));
	hks_gltf_read_options ro;
	memset(&ro, 0, sizeof(ro));
	ro.source_path = gltf_path;
	hks_error err;
	hks_gltf_animation *a = NULL;
	assert_int_equal(read_doc(doc("{\"byteLength\":168,\"uri\":\"missing.bin\"}", ACC_T, "translation", ""), &ro, &a,
	                          &err),
	                 HKS_E_NOT_FOUND);
	assert_non_null(strstr(err.message, "missing.bin"));
	assert_string_equal(err.member, "buffers[0]");
	/* a folder is no file */
	assert_int_equal(read_doc_code(doc("{\"byteLength\":168,\"uri\":\"bins\"}", ACC_T, "translation", ""), &ro), HKS_E_IO);
	ext_folder_remove();
}

/* byteLength lies: the file is shorter (also absurdly so): refused before any allocation. */
static void test_external_short_file(void **state)
{
	(void)state;
	char gltf_path[256];
	ext_folder_create(gltf_path, sizeof(gltf_path));
	hks_gltf_read_options ro;
	memset(&ro, 0, sizeof(ro));
	ro.source_path = gltf_path;
	assert_int_equal(read_doc_code(doc("{\"byteLength\":168,\"uri\":\"short.bin\"}", ACC_T, "translation", ""), &ro),
	                 HKS_E_TRUNCATED);
	assert_int_equal(
	    read_doc_code(doc("{\"byteLength\":1099511627776,\"uri\":\"short.bin\"}", ACC_T, "translation", ""), &ro),
	    HKS_E_TRUNCATED);
	/* shorter than a view needs, though byteLength is honest: the view is refused */
	char text[8192];
	snprintf(text, sizeof(text), "%s", doc("{\"byteLength\":100,\"uri\":\"short.bin\"}", ACC_T, "translation", ""));
	assert_int_equal(read_doc_code(text, &ro), HKS_E_MALFORMED);
	ext_folder_remove();
}

/* An explicit max_memory bounds what the library reads; the default grows with the files. */
static void test_external_memory_limit(void **state)
{
	(void)state;
	char gltf_path[256];
	ext_folder_create(gltf_path, sizeof(gltf_path));
	hks_gltf_read_options ro;
	memset(&ro, 0, sizeof(ro));
	ro.source_path = gltf_path;
	ro.base.limits.max_memory = 64;
	assert_int_equal(read_doc_code(doc("{\"byteLength\":168,\"uri\":\"anim%20data.bin\"}", ACC_T, "translation", ""), &ro),
	                 HKS_E_LIMIT);
	ext_folder_remove();
}

/* Counts far beyond the data or the limits: clean errors, nothing large allocated. */
static void test_huge_counts(void **state)
{
	(void)state;
	char buffer[512];
	snprintf(buffer, sizeof(buffer), "%s", embedded_buffer("application/octet-stream"));
	char text[8192];
	snprintf(text, sizeof(text), "%s", doc(buffer, ACC_T, "translation", ""));
	/* output accessor count: beyond the frame limit, then beyond its bufferView */
	assert_int_equal(read_doc_code(replaced(text, "\"byteOffset\":12,\"componentType\":5126,\"count\":3",
	                                        "\"byteOffset\":12,\"componentType\":5126,\"count\":4000000000"),
	                               NULL),
	                 HKS_E_LIMIT);
	assert_int_equal(read_doc_code(replaced(text, "\"byteOffset\":12,\"componentType\":5126,\"count\":3",
	                                        "\"byteOffset\":12,\"componentType\":5126,\"count\":300000"),
	                               NULL),
	                 HKS_E_MALFORMED);
	/* zeros accessor (no bufferView) of a million elements: memory-limited by the arena */
	hks_gltf_read_options ro;
	memset(&ro, 0, sizeof(ro));
	ro.base.limits.max_memory = 1 << 20;
	assert_int_equal(read_doc_code(doc(buffer, "{\"componentType\":5126,\"count\":3000000,\"type\":\"VEC3\"}",
	                                   "translation", ""),
	                               &ro),
	                 HKS_E_LIMIT);
	/* buffers, bufferView lengths and offsets beyond 2^53 */
	assert_int_equal(read_doc_code(replaced(text, "\"byteLength\":168}]", "\"byteLength\":9007199254740993}]"), NULL),
	                 HKS_E_MALFORMED);
	assert_int_equal(read_doc_code(replaced(text, "\"byteOffset\":12,", "\"byteOffset\":9223372036854775807,"), NULL),
	                 HKS_E_MALFORMED);
}

typedef struct mem_loader {
	int opens, closes;
	size_t serve;          /* bytes handed out */
	hks_result result;     /* what open returns */
	char last_path[256];
} mem_loader;

static hks_result mem_open(void *user, const char *path, uint64_t byte_length, const void **data, size_t *size)
{
	mem_loader *l = (mem_loader *)user;
	snprintf(l->last_path, sizeof(l->last_path), "%s", path);
	assert_int_equal(byte_length, BLOB_SIZE);
	if (l->result != HKS_OK)
		return l->result;
	l->opens++;
	*data = blob;
	*size = l->serve;
	return HKS_OK;
}

static void mem_close(void *user, const void *data, size_t size)
{
	mem_loader *l = (mem_loader *)user;
	assert_ptr_equal(data, blob);
	assert_int_equal(size, l->serve);
	l->closes++;
}

static void test_loader_callback(void **state)
{
	(void)state;
	mem_loader l;
	memset(&l, 0, sizeof(l));
	l.serve = BLOB_SIZE;
	hks_gltf_read_options ro;
	memset(&ro, 0, sizeof(ro));
	ro.source_path = "assets\\clips/run.gltf";
	ro.loader.open = mem_open;
	ro.loader.close = mem_close;
	ro.loader.user = &l;
	hks_gltf_animation *a = NULL;
	hks_error err;
	const char *json = doc("{\"byteLength\":168,\"uri\":\"run%2Bwalk.bin\"}", ACC_T, "translation", "");
	char copy[8192];
	snprintf(copy, sizeof(copy), "%s", json);
	assert_int_equal(read_doc(copy, &ro, &a, &err), HKS_OK);
	expect_translations(a, key_t);
	hks_gltf_animation_free(a);
	assert_string_equal(l.last_path, "assets\\clips/run+walk.bin");
	assert_int_equal(l.opens, 1);
	assert_int_equal(l.closes, 1);
	/* without source_path the loader gets the relative path */
	ro.source_path = NULL;
	assert_int_equal(read_doc_code(copy, &ro), HKS_OK);
	assert_string_equal(l.last_path, "run+walk.bin");
	/* the loader's failure is the import's; short data is truncation, and is still handed back */
	l.result = HKS_E_NOT_FOUND;
	assert_int_equal(read_doc_code(copy, &ro), HKS_E_NOT_FOUND);
	l.result = HKS_OK;
	l.serve = 100;
	assert_int_equal(read_doc_code(copy, &ro), HKS_E_TRUNCATED);
	assert_int_equal(l.opens, l.closes);
	/* two buffers on the same file are two opens, two closes */
	l.serve = BLOB_SIZE;
	l.opens = l.closes = 0;
	char two[8192];
	snprintf(two, sizeof(two), "%s",
	         replaced(copy, "\"uri\":\"run%2Bwalk.bin\"}", "\"uri\":\"run%2Bwalk.bin\"},{\"byteLength\":168,\"uri\":\"b.bin\"}"));
	snprintf(copy, sizeof(copy), "%s", replaced(two, "{\"buffer\":0,\"byteLength\":168}",
	                                            "{\"buffer\":1,\"byteLength\":168}"));
	assert_int_equal(read_doc_code(copy, &ro), HKS_OK);
	assert_int_equal(l.opens, 1); /* only buffer 1 is used by the bufferView */
	assert_int_equal(l.closes, 1);
	assert_string_equal(l.last_path, "b.bin");
}

static void test_external_uri_refused(void **state)
{
	(void)state;
	/* Each would leave the .gltf's folder, name another scheme or be no
	 * valid relative reference: refused before the loader is asked. */
	static const struct {
		const char *uri;
		hks_result code;
	} cases[] = {
		{"../x.bin", HKS_E_UNSUPPORTED},          {"sub/../../x.bin", HKS_E_UNSUPPORTED},
		{"sub/..", HKS_E_UNSUPPORTED},            {"%2E%2E/x.bin", HKS_E_UNSUPPORTED},
		{"sub%2F..%2F..%2Fx.bin", HKS_E_UNSUPPORTED}, {"/etc/passwd", HKS_E_UNSUPPORTED},
		{"%2Fetc/passwd", HKS_E_UNSUPPORTED},     {"//host/share/x.bin", HKS_E_UNSUPPORTED},
		{"file:///tmp/x.bin", HKS_E_UNSUPPORTED}, {"http://example.org/x.bin", HKS_E_UNSUPPORTED},
		{"C:/x.bin", HKS_E_UNSUPPORTED},          {"a\\\\b.bin", HKS_E_UNSUPPORTED},
		{"x%5Cb.bin", HKS_E_UNSUPPORTED},         {"x.bin?v=1", HKS_E_UNSUPPORTED},
		{"x.bin#frag", HKS_E_UNSUPPORTED},        {"x%zz.bin", HKS_E_MALFORMED},
		{"x%2", HKS_E_MALFORMED},                 {"x%00.bin", HKS_E_MALFORMED},
		{"", HKS_E_MALFORMED},
	};
	mem_loader l;
	memset(&l, 0, sizeof(l));
	l.serve = BLOB_SIZE;
	hks_gltf_read_options ro;
	memset(&ro, 0, sizeof(ro));
	ro.source_path = "/tmp/some/folder/x.gltf";
	ro.loader.open = mem_open;
	ro.loader.close = mem_close;
	ro.loader.user = &l;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buffer[256];
		snprintf(buffer, sizeof(buffer), "{\"byteLength\":168,\"uri\":\"%s\"}", cases[i].uri);
		hks_result r = read_doc_code(doc(buffer, ACC_T, "translation", ""), &ro);
		if (r != cases[i].code)
			fprintf(stderr, "uri %s: %s\n", cases[i].uri, hks_result_name(r));
		assert_int_equal(r, cases[i].code);
	}
	assert_int_equal(l.opens, 0);
	/* a "..." or "..x" segment is an ordinary name */
	assert_int_equal(read_doc_code(doc("{\"byteLength\":168,\"uri\":\"..x/.../b.bin\"}", ACC_T, "translation", ""), &ro),
	                 HKS_OK);
	assert_string_equal(l.last_path, "/tmp/some/folder/..x/.../b.bin");
}

/* ---- sparse accessors (glTF 2.0 §3.6.2.3) ---- */

static void test_sparse_accessors(void **state)
{
	(void)state;
	char *buf = embedded_buffer("application/octet-stream");
	char buffer[512];
	snprintf(buffer, sizeof(buffer), "%s", buf);
	/* over the bufferView's data: key 1 replaced by (9, 8, 7) */
	static const char over_base[] =
	    "{\"bufferView\":0,\"byteOffset\":12,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
	    "\"sparse\":{\"count\":1,\"indices\":{\"bufferView\":0,\"byteOffset\":72,\"componentType\":5123},"
	    "\"values\":{\"bufferView\":0,\"byteOffset\":76}}}";
	hks_gltf_animation *a = NULL;
	hks_error err;
	assert_int_equal(read_doc(doc(buffer, over_base, "translation", ""), NULL, &a, &err), HKS_OK);
	float want[3][3];
	memcpy(want, key_t, sizeof(want));
	memcpy(want[1], sparse_one, sizeof(want[1]));
	expect_translations(a, (const float(*)[3])want);
	hks_gltf_animation_free(a);
	/* over zeros (no bufferView), u32 indices {0, 2} */
	static const char over_zeros[] =
	    "{\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
	    "\"sparse\":{\"count\":2,\"indices\":{\"bufferView\":0,\"byteOffset\":136,\"componentType\":5125},"
	    "\"values\":{\"bufferView\":0,\"byteOffset\":144}}}";
	assert_int_equal(read_doc(doc(buffer, over_zeros, "translation", ""), NULL, &a, &err), HKS_OK);
	static const float zeros_want[3][3] = {{1, 1, 1}, {0, 0, 0}, {2, 2, 2}};
	expect_translations(a, zeros_want);
	hks_gltf_animation_free(a);
	/* no bufferView and no sparse: all zeros (§3.6.2.1) */
	assert_int_equal(read_doc(doc(buffer, "{\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}", "translation", ""),
	                          NULL, &a, &err),
	                 HKS_OK);
	static const float all_zero[3][3] = {{0}};
	expect_translations(a, all_zero);
	hks_gltf_animation_free(a);
	/* a sparse rotation: normalized i16 over zeros, indices u8 would be fine too */
	static const char rot_sparse[] =
	    "{\"componentType\":5122,\"normalized\":true,\"count\":3,\"type\":\"VEC4\","
	    "\"sparse\":{\"count\":2,\"indices\":{\"bufferView\":0,\"byteOffset\":136,\"componentType\":5125},"
	    "\"values\":{\"bufferView\":0,\"byteOffset\":48}}}";
	assert_int_equal(read_doc(doc(buffer, rot_sparse, "rotation", ""), NULL, &a, &err), HKS_OK);
	assert_true(head(a, 0)[6] == 1.0f);             /* element 0 = rot_i16[0] */
	assert_true(fabs(head(a, 2)[4] - 23170.0f / 32767.0f) < 1e-7); /* element 2 = rot_i16[1] */
	hks_gltf_animation_free(a);
	/* hostile sparse data */
	static const struct {
		const char *from, *to;
		hks_result code;
	} cases[] = {
		{"\"count\":2,\"indices\"", "\"count\":4,\"indices\"", HKS_E_MALFORMED},     /* more than count */
		{"\"count\":2,\"indices\"", "\"count\":0,\"indices\"", HKS_E_MALFORMED},
		{"\"byteOffset\":136,\"componentType\":5125", "\"byteOffset\":136,\"componentType\":5126", HKS_E_MALFORMED},
		{"\"byteOffset\":136,\"componentType\":5125", "\"byteOffset\":140,\"componentType\":5125", HKS_E_MALFORMED},
		{"\"byteOffset\":136,\"componentType\":5125", "\"byteOffset\":144,\"componentType\":5125", HKS_E_MALFORMED},
		/* u16 indices at 136 read {0, 0}: not strictly increasing */
		{"\"byteOffset\":136,\"componentType\":5125", "\"byteOffset\":136,\"componentType\":5123", HKS_E_MALFORMED},
		{"\"values\":{\"bufferView\":0,\"byteOffset\":144}", "\"values\":{\"bufferView\":0,\"byteOffset\":150}",
		 HKS_E_MALFORMED}, /* values past the view */
		{"\"values\":{\"bufferView\":0,\"byteOffset\":144}", "\"values\":{\"bufferView\":1,\"byteOffset\":144}",
		 HKS_E_MALFORMED},
		{"\"values\":{\"bufferView\":0,\"byteOffset\":144}", "\"values\":{}", HKS_E_MALFORMED},
		{"\"sparse\":{", "\"sparse\":7,\"x\":{", HKS_E_MALFORMED},
		{"\"count\":3,", "\"count\":2147483647,", HKS_E_LIMIT},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[8192];
		snprintf(text, sizeof(text), "%s", doc(buffer, over_zeros, "translation", ""));
		hks_gltf_animation *a2 = NULL;
		hks_result r = read_doc(replaced(text, cases[i].from, cases[i].to), NULL, &a2, &err);
		hks_gltf_animation_free(a2);
		if (r != cases[i].code || getenv("HKS_TEST_VERBOSE"))
			fprintf(stderr, "sparse case %zu: %s: %s\n", i, hks_result_name(r), err.message);
		assert_int_equal(r, cases[i].code);
	}
}

/* ---- sampler output component types (glTF 2.0 §3.11) ---- */

static void test_rotation_component_types(void **state)
{
	(void)state;
	char buffer[512];
	snprintf(buffer, sizeof(buffer), "%s", embedded_buffer("application/octet-stream"));
	static const struct {
		int ctype, offset;
	} types[4] = {{5122, 48}, {5120, 88}, {5121, 100}, {5123, 112}};
	for (int t = 0; t < 4; t++) {
		char acc[256];
		snprintf(acc, sizeof(acc),
		         "{\"bufferView\":0,\"byteOffset\":%d,\"componentType\":%d,\"normalized\":true,\"count\":3,\"type\":\"VEC4\"}",
		         types[t].offset, types[t].ctype);
		hks_gltf_animation *a = NULL;
		hks_error err;
		hks_result r = read_doc(doc(buffer, acc, "rotation", ""), NULL, &a, &err);
		if (r != HKS_OK)
			fprintf(stderr, "type %d: %s\n", types[t].ctype, err.message);
		assert_int_equal(r, HKS_OK);
		/* the spec's formulas (f32): signed max(c / (2^(n-1) - 1), -1), unsigned c / (2^n - 1);
		 * frames fall on keys and no frame is negated (dot products 0.7 and 0) */
		for (int f = 0; f < 3; f++)
			for (int k = 0; k < 4; k++) {
				float want;
				switch (types[t].ctype) {
				case 5122:
					want = (float)rot_i16[f][k] / 32767.0f;
					break;
				case 5120:
					want = (float)rot_i8[f][k] / 127.0f;
					break;
				case 5121:
					want = (float)rot_u8[f][k] / 255.0f;
					break;
				default:
					want = (float)rot_u16[f][k] / 65535.0f;
					break;
				}
				want = want < -1 ? -1 : want;
				assert_true(head(a, f)[3 + k] == want);
			}
		hks_gltf_animation_free(a);
		/* not normalized: no meaning as a rotation */
		snprintf(acc, sizeof(acc), "{\"bufferView\":0,\"byteOffset\":%d,\"componentType\":%d,\"count\":3,\"type\":\"VEC4\"}",
		         types[t].offset, types[t].ctype);
		assert_int_equal(read_doc_code(doc(buffer, acc, "rotation", ""), NULL), HKS_E_MALFORMED);
	}
	/* translations and scales are float only */
	static const char norm_t[] =
	    "{\"bufferView\":0,\"byteOffset\":48,\"componentType\":5122,\"normalized\":true,\"count\":3,\"type\":\"VEC3\"}";
	assert_int_equal(read_doc_code(doc(buffer, norm_t, "translation", ""), NULL), HKS_E_MALFORMED);
	assert_int_equal(read_doc_code(doc(buffer, norm_t, "scale", ""), NULL), HKS_E_MALFORMED);
	/* the exact values of the i8 case: -128 clamps to -1 (§3.11 max(c / 127, -1)) */
	char acc[256];
	snprintf(acc, sizeof(acc),
	         "{\"bufferView\":0,\"byteOffset\":88,\"componentType\":5120,\"normalized\":true,\"count\":3,\"type\":\"VEC4\"}");
	hks_gltf_animation *a = NULL;
	hks_error err;
	assert_int_equal(read_doc(doc(buffer, acc, "rotation", ""), NULL, &a, &err), HKS_OK);
	assert_true(head(a, 1)[4] == (float)-90 / 127.0f || head(a, 1)[4] == -((float)-90 / 127.0f));
	assert_true(fabsf(head(a, 2)[3]) == 1.0f);
	hks_gltf_animation_free(a);
}

/* ---- matrix nodes (glTF 2.0 §3.5.2) ---- */

/* Column-major T·R·S in double, written here independently of the library. */
static void compose(const double t[3], const double q[4], const double s[3], double m[16])
{
	double x = q[0], y = q[1], z = q[2], w = q[3];
	double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w)},
	                  {2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w)},
	                  {2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y)}}; /* r[col][row] */
	for (int c = 0; c < 3; c++) {
		for (int k = 0; k < 3; k++)
			m[c * 4 + k] = r[c][k] * s[c];
		m[c * 4 + 3] = 0;
	}
	m[12] = t[0];
	m[13] = t[1];
	m[14] = t[2];
	m[15] = 1;
}

static char *matrix_member(const double m[16])
{
	static char text[1024];
	size_t o = (size_t)snprintf(text, sizeof(text), ",\"matrix\":[");
	for (int k = 0; k < 16; k++)
		o += (size_t)snprintf(text + o, sizeof(text) - o, "%s%.9g", k ? "," : "", m[k]);
	snprintf(text + o, sizeof(text) - o, "]");
	return text;
}

static void test_matrix_nodes(void **state)
{
	(void)state;
	char buffer[512];
	snprintf(buffer, sizeof(buffer), "%s", embedded_buffer("application/octet-stream"));
	double ax[3] = {0.3, -0.8, 0.5}, n = sqrt(0.09 + 0.64 + 0.25), ang = 2.3;
	double q[4] = {ax[0] / n * sin(ang / 2), ax[1] / n * sin(ang / 2), ax[2] / n * sin(ang / 2), cos(ang / 2)};
	static const double t[3] = {0.25, -1.5, 3};
	static const double scales[4][3] = {{1, 1, 1}, {2, 0.5, 1.25}, {-1, -1, -1}, {1, 1, -2}};
	for (int c = 0; c < 4; c++) {
		double m[16];
		compose(t, q, scales[c], m);
		char spine_extra[1024];
		snprintf(spine_extra, sizeof(spine_extra), "%s", matrix_member(m));
		hks_gltf_animation *a = NULL;
		hks_error err;
		hks_result r = read_doc(doc(buffer, ACC_T, "translation", spine_extra), NULL, &a, &err);
		if (r != HKS_OK)
			fprintf(stderr, "matrix %d: %s\n", c, err.message);
		assert_int_equal(r, HKS_OK);
		/* Spine has no channel: its static TRS is the decomposed matrix, every frame */
		const float *x = spine(a, 1);
		double tt[3] = {x[0], x[1], x[2]}, rr[4] = {x[3], x[4], x[5], x[6]}, ss[3] = {x[7], x[8], x[9]}, m2[16];
		compose(tt, rr, ss, m2);
		for (int k = 0; k < 16; k++)
			assert_true(fabs(m2[k] - m[k]) < 1e-5);
		for (int k = 0; k < 3; k++)
			assert_true(x[k] == (float)t[k]);
		double det_sign = scales[c][0] * scales[c][1] * scales[c][2] < 0 ? -1 : 1;
		assert_true(ss[0] * det_sign > 0 && ss[1] * det_sign > 0 && ss[2] * det_sign > 0); /* mirrors: all negative */
		assert_true(fabs(rr[0] * rr[0] + rr[1] * rr[1] + rr[2] * rr[2] + rr[3] * rr[3] - 1) < 1e-6);
		if (c < 2) /* no mirror: the rotation itself (w >= 0 is the chosen sign) */
			for (int k = 0; k < 4; k++)
				assert_true(fabs(rr[k] - q[k]) < 1e-6);
		assert_int_equal(a->num_static_bones, 1);
		hks_gltf_animation_free(a);
	}
	/* the identity matrix written beside TRS is the default value: TRS wins */
	static const char identity_and_trs[] =
	    ",\"matrix\":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1],\"translation\":[1,2,3]";
	hks_gltf_animation *a = NULL;
	hks_error err;
	assert_int_equal(read_doc(doc(buffer, ACC_T, "translation", identity_and_trs), NULL, &a, &err), HKS_OK);
	assert_true(spine(a, 0)[0] == 1 && spine(a, 0)[1] == 2 && spine(a, 0)[2] == 3);
	hks_gltf_animation_free(a);
	/* refused: shear, zero scale, not affine, non-identity matrix with TRS, wrong size */
	static const struct {
		const char *member;
		hks_result code;
	} cases[] = {
		{",\"matrix\":[1,0,0,0, 0.5,1,0,0, 0,0,1,0, 0,0,0,1]", HKS_E_UNSUPPORTED},
		{",\"matrix\":[1,0,0,0, 0,0,0,0, 0,0,1,0, 0,0,0,1]", HKS_E_UNSUPPORTED},
		{",\"matrix\":[1,0,0,0, 0,1,0,0, 0,0,1,0.5, 0,0,0,1]", HKS_E_UNSUPPORTED},
		{",\"matrix\":[1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,2]", HKS_E_UNSUPPORTED},
		{",\"matrix\":[1,0,0,0, 0,1,0,0, 0,0,1,0, 5,0,0,1],\"scale\":[1,1,1]", HKS_E_MALFORMED},
		{",\"matrix\":[1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0]", HKS_E_MALFORMED},
		{",\"matrix\":[1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,\"1\"]", HKS_E_MALFORMED},
		{",\"matrix\":[1e39,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1]", HKS_E_UNSUPPORTED}, /* inf as f32 */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		hks_result r = read_doc(doc(buffer, ACC_T, "translation", cases[i].member), NULL, &a, &err);
		if (r != cases[i].code)
			fprintf(stderr, "matrix case %zu: %s\n", i, hks_result_name(r));
		assert_int_equal(r, cases[i].code);
		if (r == HKS_E_UNSUPPORTED)
			assert_string_equal(err.member, "nodes[1]");
	}
}

/* The repository root, from this file's path (CMake compiles it by absolute path). */
static void repo_root(char *buf, size_t size)
{
	snprintf(buf, size, "%s", __FILE__);
	char *slash = strrchr(buf, '/');
	if (slash)
		*slash = 0; /* tests */
	slash = strrchr(buf, '/');
	if (slash)
		*slash = 0;
}

static void test_validator(void **state)
{
	(void)state;
	build();
	char root[1024], script[1200], cmd[4096];
	repo_root(root, sizeof(root));
	snprintf(script, sizeof(script), "%s/tools/gltf_validate.mjs", root);
	if (system("node --version >/dev/null 2>&1") != 0) {
		printf("SKIPPED glTF validator: node not found (apt-get install nodejs npm; scripts/gltf_validator_setup.sh)\n");
		return;
	}
	char dir[] = "/tmp/hks_gltf_XXXXXX";
	assert_non_null(mkdtemp(dir));
	const char *names[2] = {"synthetic.glb", "synthetic.gltf"};
	for (int binary = 1; binary >= 0; binary--) {
		size_t size = 0;
		uint8_t *data = export_clip(binary, &size);
		char path[1100];
		snprintf(path, sizeof(path), "%s/%s", dir, names[binary ? 0 : 1]);
		FILE *f = fopen(path, "wb");
		assert_non_null(f);
		assert_int_equal(fwrite(data, 1, size, f), size);
		fclose(f);
		hks_buffer_free(NULL, data, size);
	}
	snprintf(cmd, sizeof(cmd), "node '%s' '%s/%s' '%s/%s'", script, dir, names[0], dir, names[1]);
	int status = system(cmd);
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	for (int i = 0; i < 2; i++) {
		char path[1100];
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		remove(path);
	}
	rmdir(dir);
	if (code == 77) {
		printf("SKIPPED glTF validator: npm package gltf-validator not installed (scripts/gltf_validator_setup.sh)\n");
		return;
	}
	assert_int_equal(code, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_glb_round_trip),
		cmocka_unit_test(test_gltf_round_trip),
		cmocka_unit_test(test_import_encode_decode),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_validator),
		cmocka_unit_test(test_data_uri_media_types),
		cmocka_unit_test(test_bad_base64),
		cmocka_unit_test(test_buffer_without_uri),
		cmocka_unit_test(test_external_bin),
		cmocka_unit_test(test_external_missing_file),
		cmocka_unit_test(test_external_short_file),
		cmocka_unit_test(test_external_memory_limit),
		cmocka_unit_test(test_huge_counts),
		cmocka_unit_test(test_loader_callback),
		cmocka_unit_test(test_external_uri_refused),
		cmocka_unit_test(test_sparse_accessors),
		cmocka_unit_test(test_rotation_component_types),
		cmocka_unit_test(test_matrix_nodes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
