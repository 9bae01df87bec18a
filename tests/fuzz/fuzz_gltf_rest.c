/*
 * Fuzz target: the rest-pose-aware glTF import (hks_gltf_read, docs/GLTF.md
 * "Rest poses"), structure-aware: the input's first bytes give a small
 * skeleton (1-8 bones; hostile parents, names, poses included) and how the
 * glTF's rest pose differs from it (changes of local axes, bone lengths,
 * unit or other rest scales, other parents); the glTF is then written from
 * that description or taken from the rest of the input as it is (layout in
 * tests/fuzz/gltf_rest_input.h).
 *
 * Contracts, every input: a clean error or a result whose counts match the
 * options; the rest-pose report within the skeleton (axis_bones and
 * rest_bones distinct bones < num_bones, the angle in [0, pi], none with
 * keep_bone_axes). When the case is clean (a forest of distinct named bones,
 * unit quaternions, positive uniform scales, the glTF differing from the
 * skeleton by changes of axes only, read at the clip's rate): no rest
 * difference is reported, exactly the bones with a change of axes are
 * converted, and every imported frame is the skeleton-space frame the clip
 * was made from (translations and scales within 1e-4 relative, rotations
 * within 1e-5 of the same rotation).
 */
#include "fuzz.h"
#include "fuzz_common.h"
#include "gltf_rest_input.h"

static void check_bones(const int32_t *bones, uint32_t n, uint32_t nb)
{
	FUZZ_CHECK(n <= nb && (n == 0 || bones != NULL));
	for (uint32_t i = 0; i < n; i++) {
		FUZZ_CHECK(bones[i] >= 0 && (uint32_t)bones[i] < nb);
		for (uint32_t j = 0; j < i; j++)
			FUZZ_CHECK(bones[j] != bones[i]);
	}
}

static void check_clean(const rest_case *k, const hks_gltf_animation *a)
{
	FUZZ_CHECK(a->num_rest_bones == 0);
	uint32_t with_c = 0;
	for (uint32_t b = 0; b < k->nb; b++)
		with_c += (uint32_t)k->has_c[b];
	FUZZ_CHECK(a->num_axis_bones == with_c);
	for (uint32_t i = 0; i < a->num_axis_bones; i++)
		FUZZ_CHECK(k->has_c[a->axis_bones[i]]);
	FUZZ_CHECK(a->num_frames == k->frames && a->num_missing_bones == 0);
	for (uint32_t f = 0; f < k->frames; f++)
		for (uint32_t b = 0; b < k->nb; b++) {
			double t[3], r[4];
			rest_havok_frame(k, b, f, t, r);
			const float *x = a->transforms + ((size_t)f * k->nb + b) * HKS_TRACK_SAMPLE_FLOATS;
			for (int i = 0; i < 3; i++) {
				double s = k->pose[b].scale[i];
				FUZZ_CHECK(fabs(x[i] - t[i]) <= 1e-4 * (1 + fabs(t[i])));
				FUZZ_CHECK(fabs(x[7 + i] - s) <= 1e-4 * s);
			}
			double n = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]), dot = 0, xn = 0;
			for (int i = 0; i < 4; i++) {
				dot += x[3 + i] * r[i] / n;
				xn += (double)x[3 + i] * x[3 + i];
			}
			FUZZ_CHECK(fabs(fabs(dot) - 1) <= 1e-5 && fabs(xn - 1) <= 1e-5);
		}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < REST_HEADER_SIZE)
		return 0;
	rest_case k;
	rest_decode(data, &k);
	hks_options base;
	fuzz_options(&base);
	uint8_t *gltf = NULL;
	size_t gltf_size = 0;
	const uint8_t *in = data + REST_HEADER_SIZE;
	size_t in_size = size - REST_HEADER_SIZE;
	hks_error err;
	if (!(k.flags & REST_RAW)) {
		hks_result w = rest_write_gltf(&k, &base, &gltf, &gltf_size, &err);
		if (w != HKS_OK) {
			FUZZ_CHECK(!k.clean); /* a clean skeleton always exports */
			return 0;
		}
		in = gltf;
		in_size = gltf_size;
	}
	static const char *const slots[1] = {"blink"};
	hks_gltf_read_options ro;
	memset(&ro, 0, sizeof(ro));
	ro.base = base;
	ro.animation = -1;
	ro.frame_duration = k.flags & REST_60FPS ? 1.0f / 60.0f : 1.0f / 30.0f;
	ro.keep_bone_axes = (k.flags & REST_KEEP_AXES) != 0;
	if (k.flags & REST_TRACK_ORDER) {
		ro.track_to_bone = k.track_to_bone;
		ro.num_tracks = k.num_tracks;
	}
	if (k.flags & REST_FLOAT_TRACK) {
		ro.float_slot_names = slots;
		ro.num_float_tracks = 1;
	}
	hks_gltf_animation *a = NULL;
	hks_result r = hks_gltf_read(in, in_size, &k.a, &ro, &a, &err);
	if (r != HKS_OK) {
		FUZZ_CHECK(a == NULL && err.code == r && err.message[0]);
		FUZZ_CHECK(!k.clean);
	} else {
		FUZZ_CHECK(a->num_transform_tracks == k.num_tracks && a->num_float_tracks == ro.num_float_tracks);
		FUZZ_CHECK(a->num_frames >= 2);
		check_bones(a->axis_bones, a->num_axis_bones, k.nb);
		check_bones(a->rest_bones, a->num_rest_bones, k.nb);
		FUZZ_CHECK(a->max_axis_angle >= 0 && a->max_axis_angle <= REST_PI + 1e-6);
		FUZZ_CHECK(a->num_axis_bones > 0 || a->max_axis_angle == 0);
		if (ro.keep_bone_axes)
			FUZZ_CHECK(a->num_axis_bones == 0 && a->num_rest_bones == 0);
		FUZZ_CHECK(a->num_missing_bones <= k.num_tracks && a->num_static_bones <= k.num_tracks);
		if (k.clean)
			check_clean(&k, a);
		hks_gltf_animation_free(a);
	}
	if (gltf)
		hks_buffer_free(&base, gltf, gltf_size);
	return 0;
}
