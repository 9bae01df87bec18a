/*
 * Fuzz target: the glTF importer (hks_gltf_read, docs/GLTF.md), GLB and JSON
 * .gltf, against a fixed synthetic 3-bone skeleton (tests/fuzz/synth.h). An
 * imported animation's frames go through the encoder when they are few
 * (GLTF_ENCODE_MAX_FRAMES: the import -> encode hand-off of the CLI, reached
 * by a seed; longer clips are the encoder's own target, fuzz_encode, which
 * varies frame counts, blocks and options). External buffers (x.bin
 * beside x.gltf) come from an in-memory loader that serves the input itself,
 * so the uri checks and the external-buffer reads are reached; every open
 * must be closed exactly once.
 */
#include "fuzz.h"
#include "fuzz_common.h"
#include "synth.h"

/* At most this many frames are encoded: one block of a few knots, enough for
 * the hand-off (counts, duration, the imported samples as the encoder's
 * input) at a small fraction of an import's cost. With every clip of up to
 * 600 frames encoded, the encoder took about 95 % of the target function's
 * time and the target ran 3-4 times slower (docs/RELIABILITY.md, session 5). */
#define GLTF_ENCODE_MAX_FRAMES 16

typedef struct memory_files {
	const uint8_t *data;
	size_t size;
	int open;
} memory_files;

static hks_result memory_open(void *user, const char *path, uint64_t byte_length, const void **data, size_t *size)
{
	memory_files *m = (memory_files *)user;
	(void)byte_length;
	/* the library's promise (docs/GLTF.md "Buffers"): relative, no ".." segment */
	size_t n = path ? strlen(path) : 0;
	FUZZ_CHECK(n > 0 && path[0] != '/' && strcmp(path, "..") != 0 && strncmp(path, "../", 3) != 0 &&
	           strstr(path, "/../") == NULL && !(n >= 3 && !strcmp(path + n - 3, "/..")));
	*data = m->data;
	*size = m->size;
	m->open++;
	return HKS_OK;
}

static void memory_close(void *user, const void *data, size_t size)
{
	memory_files *m = (memory_files *)user;
	(void)data;
	(void)size;
	m->open--;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	memory_files files = {data, size, 0};
	static const char *const slots[1] = {"blink"};
	hks_gltf_read_options ro;
	memset(&ro, 0, sizeof(ro));
	fuzz_options(&ro.base);
	ro.animation = -1;
	ro.float_slot_names = slots;
	ro.num_float_tracks = 1;
	ro.frame_duration = size && (data[0] & 1) ? 1.0f / 60.0f : 0.0f;
	ro.source_path = "fuzz/input.gltf";
	ro.loader.open = memory_open;
	ro.loader.close = memory_close;
	ro.loader.user = &files;
	hks_gltf_animation *a = NULL;
	hks_error err;
	hks_result r = hks_gltf_read(data, size, synth_skeleton(), &ro, &a, &err);
	FUZZ_CHECK(files.open == 0);
	if (r != HKS_OK) {
		FUZZ_CHECK(a == NULL && err.code != HKS_OK);
		return 0;
	}
	FUZZ_CHECK(a->num_transform_tracks == 3 && a->num_float_tracks == 1);
	if (a->num_frames >= 2 && a->num_frames <= GLTF_ENCODE_MAX_FRAMES) {
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
