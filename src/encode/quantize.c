/*
 * The truncating scalar quantizers (ENCODER.md §9.2) and the per-file CPU
 * model detection built on them (§11.4).
 *
 * The quantizer truncates and divides by an approximate reciprocal: that is
 * why the highest control point of a lane is stored as 65534 as often as
 * 65535 (FORMAT.md §3.1), and why the stored top integer tells which CPU's
 * rcpss produced the file.
 */
#include "encode_internal.h"

#include <string.h>

/* 65535.0f = 0x477FFF00 and 255.0f = 0x437F0000 (§9.2): exact in f32. */
#define PACK16_SCALE 65535.0f
#define PACK8_SCALE 255.0f

/* x = (r · (v − min)) · scale with r = rcpNR(max − min) = (2 − d·r0)·r0, in §9.2's order. */
static float scaled(const hks_rcp_model *m, float v, float lo, float hi, float scale)
{
	float d = hi - lo;
	float r0 = hks_rcp(m, d);
	float t = d * r0;
	float n = 2.0f - t;
	float r = n * r0;
	float off = v - lo;
	float x = r * off;
	return x * scale;
}

uint16_t hks_pack16(const hks_rcp_model *m, float v, float lo, float hi)
{
	float x = scaled(m, v, lo, hi, PACK16_SCALE);
	/* max then min, running value first: NaN becomes 0 (maxss returns its
	 * second operand), so max = min (rcp(0)·0 = NaN) quantizes to 0. */
	x = hks_sse_min(hks_sse_max(x, 0.0f), PACK16_SCALE);
	return (uint16_t)hks_cvtt(x);
}

uint8_t hks_pack8(const hks_rcp_model *m, float v, float lo, float hi)
{
	/* §9.2 [R]: no clamp; the stored byte is the low 8 bits of cvtt [U]. */
	float x = scaled(m, v, lo, hi, PACK8_SCALE);
	return (uint8_t)((uint32_t)hks_cvtt(x) & 0xFFu);
}

/* ---- §11.4 auto-detection ---------------------------------------------- */

static int lane_usable(const hks_quant_lane *l)
{
	/* finite lo < hi; NaN fails every comparison */
	const float big = 3.40282347e38f;
	return l->lo < l->hi && l->lo >= -big && l->hi <= big;
}

void hks_detect_cpu_model(const hks_quant_lane *lanes, size_t count, hks_cpu_model default_model,
                          hks_detect_result *out)
{
	const hks_rcp_model *intel = hks_rcp_model_get(HKS_CPU_INTEL);
	const hks_rcp_model *zen = hks_rcp_model_get(HKS_CPU_AMD_ZEN);
	memset(out, 0, sizeof(*out));
	if (default_model != HKS_CPU_AMD_ZEN)
		default_model = HKS_CPU_INTEL;
	for (size_t i = 0; i < count; i++) {
		const hks_quant_lane *l = &lanes[i];
		if (!lane_usable(l))
			continue;
		out->lanes++;
		uint16_t pi = hks_pack16(intel, l->hi, l->lo, l->hi);
		uint16_t pz = hks_pack16(zen, l->hi, l->lo, l->hi);
		out->intel_all_matches += pi == l->top;
		out->zen_all_matches += pz == l->top;
		if (pi != pz) {
			out->discriminating++;
			out->intel_matches += pi == l->top;
			out->zen_matches += pz == l->top;
		}
	}
	if (out->discriminating == 0) {
		out->model = default_model;
		out->status = HKS_DETECT_UNDETERMINED;
		return;
	}
	int intel_clean = out->intel_matches == out->discriminating;
	int zen_clean = out->zen_matches == out->discriminating;
	if (intel_clean != zen_clean) {
		out->model = intel_clean ? HKS_CPU_INTEL : HKS_CPU_AMD_ZEN;
		out->status = HKS_DETECT_CONSISTENT;
		return;
	}
	/* Both clean cannot happen (the lane discriminates); neither clean: the
	 * best one, ties to the SDK's default. */
	out->status = HKS_DETECT_MIXED;
	if (out->intel_matches == out->zen_matches)
		out->model = default_model;
	else
		out->model = out->intel_matches > out->zen_matches ? HKS_CPU_INTEL : HKS_CPU_AMD_ZEN;
}

hks_cpu_model hks_cpu_model_for_sdk(const char *sdk)
{
	/* Tagfile SDK strings are "YYYYMMNN"; 2018.1 (Elden Ring) and later were
	 * built on AMD Zen, 2016.2 (Sekiro) and older packfiles on Intel (§11.4). */
	if (sdk && strlen(sdk) >= 8 && sdk[0] >= '0' && sdk[0] <= '9' && strncmp(sdk, "20180100", 8) >= 0)
		return HKS_CPU_AMD_ZEN;
	return HKS_CPU_INTEL;
}
