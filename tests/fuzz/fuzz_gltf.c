/*
 * Fuzz target: the glTF importer (hks_gltf_read, docs/GLTF.md), GLB and JSON
 * .gltf, against a fixed synthetic 3-bone skeleton (tests/fuzz/synth.h). An
 * imported animation's frames go through the encoder when they are few
 * enough (the import -> encode path of the CLI).
 */
#include "fuzz.h"
#include "fuzz_common.h"
#include "synth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const slots[1] = {"blink"};
	hks_gltf_read_options ro;
	memset(&ro, 0, sizeof(ro));
	fuzz_options(&ro.base);
	ro.animation = -1;
	ro.float_slot_names = slots;
	ro.num_float_tracks = 1;
	ro.frame_duration = size && (data[0] & 1) ? 1.0f / 60.0f : 0.0f;
	hks_gltf_animation *a = NULL;
	hks_error err;
	if (hks_gltf_read(data, size, synth_skeleton(), &ro, &a, &err) != HKS_OK) {
		FUZZ_CHECK(a == NULL && err.code != HKS_OK);
		return 0;
	}
	FUZZ_CHECK(a->num_transform_tracks == 3 && a->num_float_tracks == 1);
	if (a->num_frames >= 2 && a->num_frames <= 600) {
		hks_frames_in in;
		memset(&in, 0, sizeof(in));
		in.num_frames = a->num_frames;
		in.num_transform_tracks = a->num_transform_tracks;
		in.num_float_tracks = a->num_float_tracks;
		in.duration = a->duration;
		in.transforms = a->transforms;
		in.floats = a->floats;
		hks_encode_options eo;
		memset(&eo, 0, sizeof(eo));
		fuzz_options(&eo.base);
		hks_packed_spline *p = NULL;
		if (hks_encode_spline(&in, &eo, &p, &err) == HKS_OK)
			hks_packed_spline_free(p);
	}
	hks_gltf_animation_free(a);
	return 0;
}
