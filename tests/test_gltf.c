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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
