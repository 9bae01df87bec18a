/*
 * Graded header relations (hks_spline_grade_header): a hand-built header of a
 * FromSoftware tagfile that holds every relation, then one relation broken at
 * a time. Producer rules (durations one ulp or a few decimals off, a larger
 * maskAndQuantizationSize, non-empty per-track offsets) are warnings; broken
 * structure (block count, block offsets, endian, durations far off) is an
 * error; hks_spline_check_header fails in both cases, as before.
 */
#include "hks_test.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

static uint32_t block_offsets[2] = {0, 64};
static uint32_t float_block_offsets[2] = {40, 100};
static uint32_t one_offset[1] = {0};
static uint8_t data[128];

typedef struct fixture {
	hks_file file;
	hks_animation anim;
} fixture;

static float next_up(float v)
{
	return nextafterf(v, INFINITY);
}

/* 300 frames in 2 blocks of at most 256, 3 transform tracks and 1 float track. */
static void good(fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->file.container = HKS_CONTAINER_TAGFILE;
	strcpy(f->file.sdk, "20180100");
	f->file.animations = &f->anim;
	f->file.num_animations = 1;
	hks_animation *a = &f->anim;
	a->kind = HKS_ANIMATION_SPLINE;
	a->class_name = "hkaSplineCompressedAnimation";
	a->duration = 9.966667f;
	a->number_of_transform_tracks = 3;
	a->number_of_float_tracks = 1;
	a->object_offset = 0;
	hks_spline_header *h = &a->spline;
	h->num_frames = 300;
	h->num_blocks = 2;
	h->max_frames_per_block = 256;
	h->mask_and_quantization_size = 16; /* (4·3 + 1 + 3) & ~3 */
	h->frame_duration = a->duration / (float)(h->num_frames - 1);
	h->block_duration = h->frame_duration * (float)(h->max_frames_per_block - 1);
	h->block_inverse_duration = 1.0f / h->block_duration;
	h->block_offsets = block_offsets;
	h->num_block_offsets = 2;
	h->float_block_offsets = float_block_offsets;
	h->num_float_block_offsets = 2;
	h->data = data;
	h->data_size = sizeof(data);
}

static hks_level grade(fixture *f, hks_error *w, hks_error *e)
{
	hks_level l = hks_spline_grade_header(&f->file, 0, w, e);
	hks_error legacy;
	hks_result r = hks_spline_check_header(&f->file, 0, &legacy);
	/* graded NONE exactly when the ungraded check passes */
	assert_int_equal(r == HKS_OK, l == HKS_LEVEL_NONE);
	return l;
}

static void expect(fixture *f, hks_level level, const char *member)
{
	hks_error w, e;
	hks_level l = grade(f, &w, &e);
	assert_int_equal(l, level);
	if (level == HKS_LEVEL_WARNING) {
		assert_int_equal(w.code, HKS_E_MALFORMED);
		assert_string_equal(w.member, member);
		assert_int_equal(e.code, HKS_OK);
	} else if (level == HKS_LEVEL_ERROR) {
		assert_int_equal(e.code, HKS_E_MALFORMED);
		assert_string_equal(e.member, member);
	}
}

static void test_good_header(void **state)
{
	(void)state;
	fixture f;
	good(&f);
	expect(&f, HKS_LEVEL_NONE, NULL);
}

static void test_producer_rules_are_warnings(void **state)
{
	(void)state;
	fixture f;
	good(&f);
	f.anim.spline.frame_duration = 0.033333f; /* a decimal, not duration / (numFrames - 1) */
	f.anim.spline.block_duration = f.anim.spline.frame_duration * 255.0f;
	f.anim.spline.block_inverse_duration = 1.0f / f.anim.spline.block_duration;
	expect(&f, HKS_LEVEL_WARNING, "frameDuration");

	good(&f);
	f.anim.spline.block_duration = next_up(f.anim.spline.block_duration); /* one ulp */
	f.anim.spline.block_inverse_duration = 1.0f / f.anim.spline.block_duration;
	expect(&f, HKS_LEVEL_WARNING, "blockDuration");

	good(&f);
	f.anim.spline.mask_and_quantization_size = 20;
	expect(&f, HKS_LEVEL_WARNING, "maskAndQuantizationSize");

	good(&f);
	f.anim.spline.transform_offsets = one_offset;
	f.anim.spline.num_transform_offsets = 1;
	expect(&f, HKS_LEVEL_WARNING, "transformOffsets");

	/* the same values in a packfile: within 1e-4 they pass */
	good(&f);
	f.file.container = HKS_CONTAINER_PACKFILE;
	strcpy(f.file.sdk, "hk_2010.2.0-r1");
	f.anim.spline.block_duration = next_up(f.anim.spline.block_duration);
	f.anim.spline.block_inverse_duration = 1.0f / f.anim.spline.block_duration;
	expect(&f, HKS_LEVEL_NONE, NULL);
}

static void test_structure_is_an_error(void **state)
{
	(void)state;
	fixture f;
	good(&f);
	f.anim.spline.num_block_offsets = 0; /* no blockOffsets entry for two blocks */
	expect(&f, HKS_LEVEL_ERROR, "blockOffsets");

	/* one entry for two blocks (modder clips): the lenient walk reads block 1
	 * where block 0 ends, so it is a warning (FORMAT.md §6 H4) */
	good(&f);
	f.anim.spline.num_block_offsets = 1;
	expect(&f, HKS_LEVEL_WARNING, "blockOffsets");

	good(&f);
	f.anim.spline.num_blocks = 3;
	expect(&f, HKS_LEVEL_ERROR, "numBlocks");

	good(&f);
	f.anim.spline.endian = 1;
	expect(&f, HKS_LEVEL_ERROR, "endian");

	good(&f);
	f.anim.spline.mask_and_quantization_size = 8; /* the masks need 13 bytes */
	expect(&f, HKS_LEVEL_ERROR, "maskAndQuantizationSize");

	good(&f);
	f.anim.spline.frame_duration *= 1.01f; /* far off: not a rounding matter */
	expect(&f, HKS_LEVEL_ERROR, "frameDuration");

	/* a warning before the error: both are reported */
	good(&f);
	f.anim.spline.frame_duration = 0.033333f;
	f.anim.spline.block_duration = f.anim.spline.frame_duration * 255.0f;
	f.anim.spline.block_inverse_duration = 1.0f / f.anim.spline.block_duration;
	f.anim.spline.num_block_offsets = 0;
	hks_error w, e;
	assert_int_equal(grade(&f, &w, &e), HKS_LEVEL_ERROR);
	assert_string_equal(w.member, "frameDuration");
	assert_string_equal(e.member, "blockOffsets");
	/* NULL outputs are allowed */
	assert_int_equal(hks_spline_grade_header(&f.file, 0, NULL, NULL), HKS_LEVEL_ERROR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_header),
		cmocka_unit_test(test_producer_rules_are_warnings),
		cmocka_unit_test(test_structure_is_an_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
