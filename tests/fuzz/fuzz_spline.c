/*
 * Fuzz target: the spline block decoder with header and data both fuzzed
 * (spline_input.h gives the format). The animation is walked (FORMAT.md §2,
 * §6), then every frame is sampled and some times, clamps included. A walked
 * animation must also pack back to bytes without crashing (the packer
 * accepts any stored structure the walk produced).
 */
#include "fuzz.h"
#include "fuzz_common.h"
#include "spline_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hks_animation a;
	uint32_t *offsets = NULL;
	int strict = 0;
	if (!spline_input_parse(data, size, &a, &offsets, &strict))
		return 0;
	hks_walk_options wo;
	memset(&wo, 0, sizeof(wo));
	fuzz_options(&wo.base);
	wo.strict = strict;
	hks_stored_animation *s = NULL;
	hks_error err;
	if (hks_stored_read(&a, &wo, &s, &err) == HKS_OK) {
		fuzz_sample_all(s);
		hks_pack_options po;
		memset(&po, 0, sizeof(po));
		fuzz_options(&po.base);
		po.guard = s->guard_bytes ? 1 : 0;
		hks_packed_spline *p = NULL;
		if (hks_stored_pack(s, &po, &p, &err) == HKS_OK)
			hks_packed_spline_free(p);
		(void)hks_spline_repack_compare(&a, po.guard, &err);
		hks_stored_free(s);
	} else {
		FUZZ_CHECK(s == NULL && err.code != HKS_OK);
	}
	free(offsets);
	return 0;
}
