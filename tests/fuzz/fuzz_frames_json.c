/*
 * Fuzz target: the decoded-frames JSON reader (hks_frames_json_read,
 * docs/DECODE.md), the input of `error`, `encode` and the Python binding.
 * A document that reads is written back with bit patterns (hex) and read
 * again: every value must come back bit for bit, the index and counts equal.
 */
#include "fuzz.h"
#include "fuzz_common.h"

static uint32_t bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hks_options o;
	fuzz_options(&o);
	hks_frames_doc *doc = NULL;
	hks_error err;
	hks_result r = hks_frames_json_read(data, size, &o, &doc, &err);
	if (r != HKS_OK) {
		FUZZ_CHECK(doc == NULL && err.code == r);
		return 0;
	}
	FUZZ_CHECK(doc != NULL);
	for (uint32_t i = 0; i < doc->num_animations; i++)
		FUZZ_CHECK(doc->animations[i].index <= 0x7fffffffu);
	hks_frames_doc copy = *doc;
	copy.hex = 1;
	copy.time_step = 0;
	uint8_t *out = NULL;
	size_t out_size = 0;
	if (hks_frames_json_write(&copy, &o, &out, &out_size, &err) == HKS_OK) {
		hks_frames_doc *back = NULL;
		r = hks_frames_json_read(out, out_size, &o, &back, &err);
		FUZZ_CHECK(r == HKS_OK || r == HKS_E_LIMIT || r == HKS_E_NOMEM);
		if (r == HKS_OK) {
			FUZZ_CHECK(back->num_animations == doc->num_animations);
			for (uint32_t i = 0; i < doc->num_animations; i++) {
				const hks_decoded *a = &doc->animations[i], *b = &back->animations[i];
				FUZZ_CHECK(a->index == b->index && a->num_frames == b->num_frames &&
				           a->num_transform_tracks == b->num_transform_tracks &&
				           a->num_float_tracks == b->num_float_tracks);
				size_t nt = (size_t)a->num_frames * a->num_transform_tracks * HKS_TRACK_SAMPLE_FLOATS;
				for (size_t k = 0; k < nt; k++)
					FUZZ_CHECK(bits(a->transforms[k]) == bits(b->transforms[k]));
				for (size_t k = 0; k < (size_t)a->num_frames * a->num_float_tracks; k++)
					FUZZ_CHECK(bits(a->floats[k]) == bits(b->floats[k]));
				FUZZ_CHECK(bits(a->duration) == bits(b->duration));
			}
			hks_frames_doc_free(back);
		}
		hks_buffer_free(&o, out, out_size);
	}
	hks_frames_doc_free(doc);
	return 0;
}
