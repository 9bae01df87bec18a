/*
 * Fuzz target: encode -> decode round trip on arbitrary frames, NaN,
 * infinities and huge values included. Input:
 *   0 u8 transform tracks (mod 9)   1 u8 float tracks (mod 5)
 *   2 u16 frames (2 + v mod 299)    4 u8 flags: bits 0-1 rotation quantization
 *     (ThreeComp40, ThreeComp48, Uncompressed, Polar32), bit 2 8-bit scalars,
 *     bit 3 quality solver, bit 4 SDK 20180100, bit 5 rotation continuity,
 *     bit 6 normalize finite rotations, bit 7 degree 1
 *   5 u8 maxFramesPerBlock (0: 256, else 2 + v mod 255)
 *   6 u8 tolerance 10^-(1 + v mod 4)   7 unused
 *   8.. f32 sample values (little-endian), repeated cyclically; zeros when absent.
 * hks_encode_spline must never crash (ENCODER.md §5.4, §9.6: non-finite lanes
 * are encoded, not rejected). The bytes are walked and every frame sampled.
 * When every value is finite and moderate (|v| <= 1000) and the rotations
 * unit length, each decoded value must be within the tolerance plus the
 * quantization step of the input.
 */
#include "fuzz.h"
#include "fuzz_common.h"
#include "spline_input.h"

#include <math.h>

static const uint8_t rot_quant[4] = {HKS_ROT_THREECOMP40, HKS_ROT_THREECOMP48, HKS_ROT_UNCOMPRESSED, HKS_ROT_POLAR32};
/* Largest component error of one stored quaternion per selector (FORMAT.md §3):
 * ThreeComp40 12-bit fields over [-1/sqrt2, 1/sqrt2], ThreeComp48 15-bit,
 * Polar32 (~0.3 degree grid) generously. */
static const float rot_step[4] = {1.0f / 2048.0f, 1.0f / 16384.0f, 0.0f, 0.02f};

static float lane_range(const float *v, uint32_t frames, size_t stride, size_t at)
{
	float lo = v[at], hi = v[at];
	for (uint32_t f = 1; f < frames; f++) {
		float x = v[(size_t)f * stride + at];
		lo = x < lo ? x : lo;
		hi = x > hi ? x : hi;
	}
	return hi - lo;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 8)
		return 0;
	uint32_t T = data[0] % 9, F = data[1] % 5;
	uint32_t frames = 2 + (uint32_t)(data[2] | data[3] << 8) % 299;
	uint8_t flags = data[4];
	uint32_t mfpb = data[5] ? 2 + data[5] % 255u : 256;
	float tol = powf(10.0f, -(float)(1 + data[6] % 4));
	const uint8_t *vals = data + 8;
	size_t nvals = (size - 8) / 4;
	size_t nt = (size_t)frames * T * HKS_TRACK_SAMPLE_FLOATS, nf = (size_t)frames * F;
	float *tr = (float *)calloc(nt + 1, sizeof(float)), *fl = (float *)calloc(nf + 1, sizeof(float));
	/* an animation without tracks cannot be stored (the encoder refuses it) */
	int moderate = (T + F) > 0;
	for (size_t i = 0; i < nt + nf; i++) {
		float v = nvals ? spline_input_f32(vals + 4 * (i % nvals)) : 0.0f;
		if (!(fabsf(v) <= 1000.0f))
			moderate = 0;
		if (i < nt)
			tr[i] = v;
		else
			fl[i - nt] = v;
	}
	int unit = 1;
	for (size_t s = 0; s < (size_t)frames * T; s++) {
		float *q = tr + s * HKS_TRACK_SAMPLE_FLOATS + 3;
		float n = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
		if ((flags & 0x40) && isfinite(n) && n > 1e-3f) {
			for (int k = 0; k < 4; k++)
				q[k] /= n;
		} else if (!(fabsf(n - 1.0f) < 1e-3f)) {
			unit = 0;
		}
	}
	hks_frames_in in;
	memset(&in, 0, sizeof(in));
	in.num_frames = frames;
	in.num_transform_tracks = T;
	in.num_float_tracks = F;
	in.duration = (float)(frames - 1) / 30.0f;
	in.transforms = T ? tr : NULL;
	in.floats = F ? fl : NULL;
	hks_encode_options eo;
	memset(&eo, 0, sizeof(eo));
	fuzz_options(&eo.base);
	eo.defaults.rotation_tolerance = eo.defaults.translation_tolerance = tol;
	eo.defaults.scale_tolerance = eo.defaults.float_tolerance = tol;
	eo.defaults.rotation_quantization = HKS_ENC_ROT_QUANT(rot_quant[flags & 3]);
	uint8_t scalar = (flags & 4) ? HKS_ENC_SCALAR_8BIT : HKS_ENC_SCALAR_16BIT;
	eo.defaults.translation_quantization = eo.defaults.scale_quantization = eo.defaults.float_quantization = scalar;
	if (flags & 0x80)
		eo.defaults.rotation_degree = eo.defaults.translation_degree = eo.defaults.scale_degree =
		    eo.defaults.float_degree = 1;
	eo.solver = (flags & 8) ? HKS_SOLVER_QUALITY : HKS_SOLVER_HAVOK;
	eo.sdk = (flags & 0x10) ? "20180100" : "20160200";
	eo.rotation_continuity = (flags & 0x20) ? 1 : 0;
	eo.max_frames_per_block = mfpb;
	hks_encode_stats stats;
	memset(&stats, 0, sizeof(stats));
	eo.stats = &stats;
	hks_packed_spline *p = NULL;
	hks_error err;
	if (hks_encode_spline(&in, &eo, &p, &err) != HKS_OK) {
		/* finite, moderate frames are always encodable */
		if (moderate)
			fprintf(stderr, "encode failed: %s\n", err.message);
		FUZZ_CHECK(!moderate && p == NULL);
		goto done;
	}
	hks_animation a = hks_animation_of_packed(p);
	hks_walk_options wo;
	memset(&wo, 0, sizeof(wo));
	fuzz_options(&wo.base);
	hks_stored_animation *s = NULL;
	/* the encoder's own bytes always walk */
	hks_result walk_r = hks_stored_read(&a, &wo, &s, &err);
	if (walk_r != HKS_OK)
		fprintf(stderr, "the encoder's bytes do not walk: %s\n", err.message);
	/* zero tracks have no storable form (FORMAT.md §6 H4) and are refused by
	 * the encoder above, so every encoded animation walks */
	FUZZ_CHECK(walk_r == HKS_OK);
	if (walk_r != HKS_OK) {
		hks_packed_spline_free(p);
		goto done;
	}
	fuzz_sample_all(s);
	if (moderate && unit) {
		hks_sample_options so;
		memset(&so, 0, sizeof(so));
		float *dt = (float *)calloc(nt + 1, sizeof(float)), *df = (float *)calloc(nf + 1, sizeof(float));
		FUZZ_CHECK(hks_sample_frames(s, &so, 0, frames, dt, F ? df : NULL, &err) == HKS_OK);
		float qstep = (flags & 4) ? 1.0f / 255.0f : 1.0f / 65535.0f;
		size_t stride = (size_t)T * HKS_TRACK_SAMPLE_FLOATS;
		for (uint32_t t = 0; t < T; t++) {
			for (int k = 0; k < HKS_TRACK_SAMPLE_FLOATS; k++) {
				if (k >= 3 && k < 7)
					continue;
				size_t at = (size_t)t * HKS_TRACK_SAMPLE_FLOATS + (size_t)k;
				float bound = 2.0f * tol + 2.0f * qstep * lane_range(tr, frames, stride, at) + 1e-4f;
				for (uint32_t f = 0; f < frames; f++)
					FUZZ_CHECK(fabsf(dt[(size_t)f * stride + at] - tr[(size_t)f * stride + at]) <= bound);
			}
			/* the fit bounds the 4-D distance by the tolerance; renormalizing the
			 * control points then moves the curve by up to rotation_renormalization
			 * (hks_encode_stats) */
			float rbound = 2.0f * tol + (float)stats.rotation_renormalization + 2.0f * rot_step[flags & 3] + 1e-4f;
			for (uint32_t f = 0; f < frames; f++) {
				const float *x = tr + (size_t)f * stride + (size_t)t * HKS_TRACK_SAMPLE_FLOATS + 3;
				const float *y = dt + (size_t)f * stride + (size_t)t * HKS_TRACK_SAMPLE_FLOATS + 3;
				float same = 0, flip = 0;
				for (int k = 0; k < 4; k++) {
					same = fmaxf(same, fabsf(x[k] - y[k]));
					flip = fmaxf(flip, fabsf(x[k] + y[k]));
				}
				if (!(fminf(same, flip) <= rbound))
					fprintf(stderr, "track %u frame %u: rotation error %g > %g\n", t, f, (double)fminf(same, flip), (double)rbound);
				FUZZ_CHECK(fminf(same, flip) <= rbound);
			}
		}
		for (uint32_t i = 0; i < F; i++) {
			float bound = 2.0f * tol + 2.0f * qstep * lane_range(fl, frames, F, i) + 1e-4f;
			for (uint32_t f = 0; f < frames; f++)
				FUZZ_CHECK(fabsf(df[(size_t)f * F + i] - fl[(size_t)f * F + i]) <= bound);
		}
		free(dt);
		free(df);
	}
	hks_stored_free(s);
	hks_packed_spline_free(p);
done:
	free(tr);
	free(fl);
	return 0;
}
