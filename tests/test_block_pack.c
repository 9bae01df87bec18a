/*
 * The block packer (ENCODER.md §5.1, §10; FORMAT.md §2): hand-built stored
 * structures pack to bytes written out here literally (zero padding
 * everywhere), the header fields are the f32 arithmetic of FORMAT.md §1.1,
 * the Elden Ring guard follows its rule, pack(walk(x)) == x, and
 * hks_spline_repack_compare names the first differing byte.
 */
#include "hks_test.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static float f32(uint32_t bits) { return hks_f32_from_bits(bits); }

/*
 * One transform track and one float track, numFrames 51, duration 0x3FD55555:
 *   byte0 0x49: translation 16-bit, rotation ThreeComp48, scale 16-bit
 *   translation 0x01: x static 1.0
 *   rotation 0x0F: static, 6 bytes after align 2
 *   scale 0x20: y spline, n = 1, p = 1, knots 0 0 50 50, bounds 0.5 .. 2, points 0, 65535
 *   float 0x03: static 0.25
 */
static const uint8_t example_bytes[48] = {
	0x49, 0x01, 0x0F, 0x20, 0x03, 0x00, 0x00, 0x00, /* masks, float mask, mask padding */
	0x00, 0x00, 0x80, 0x3F,                         /* 8: translation x = 1.0 */
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x00, 0x00, /* 12: ThreeComp48, pad to 4 */
	0x01, 0x00, 0x01, 0x00, 0x00, 0x32, 0x32, 0x00, /* 20: n = 1, p = 1, knots, pad */
	0x00, 0x00, 0x00, 0x3F, 0x00, 0x00, 0x00, 0x40, /* 28: y min, max */
	0x00, 0x00, 0xFF, 0xFF,                         /* 36: control points */
	0x00, 0x00, 0x80, 0x3E,                         /* 40 = floatBlockOffsets[0]: float = 0.25 */
	0x00, 0x00, 0x00, 0x00,                         /* block padding to 48 */
};

static const uint8_t example_knots[4] = {0, 0, 50, 50};
static const uint8_t example_quat[6] = {1, 2, 3, 4, 5, 6};
static const uint16_t example_points[2] = {0, 65535};

typedef struct example {
	hks_stored_animation s;
	hks_stored_block block;
	hks_stored_track track;
	hks_stored_part flt;
	uint8_t float_mask;
} example;

static void build_example(example *x)
{
	memset(x, 0, sizeof(*x));
	hks_stored_track *t = &x->track;
	t->mask[0] = 0x49;
	t->mask[1] = 0x01;
	t->mask[2] = 0x0F;
	t->mask[3] = 0x20;
	t->part[0].flags = 0x01;
	t->part[0].quantization = 1;
	t->part[0].static_value[0] = 1.0f;
	t->part[1].flags = 0x0F;
	t->part[1].quantization = HKS_ROT_THREECOMP48;
	t->part[1].num_control_points = 1;
	t->part[1].packed = example_quat;
	t->part[2].flags = 0x20;
	t->part[2].quantization = 1;
	t->part[2].is_spline = 1;
	t->part[2].degree = 1;
	t->part[2].num_control_points = 2;
	t->part[2].num_knots = 4;
	t->part[2].knots = example_knots;
	t->part[2].min[1] = 0.5f;
	t->part[2].max[1] = 2.0f;
	t->part[2].spline_lanes = 1;
	t->part[2].control_points = example_points;
	x->float_mask = 0x03;
	x->flt.flags = 0x01;
	x->flt.quantization = 1;
	x->flt.static_value[0] = 0.25f;
	x->block.tracks = &x->track;
	x->block.floats = &x->flt;
	x->block.float_masks = &x->float_mask;
	x->block.num_frames = 51;
	x->s.num_transform_tracks = 1;
	x->s.num_float_tracks = 1;
	x->s.num_frames = 51;
	x->s.max_frames_per_block = 256;
	x->s.duration = f32(0x3FD55555);
	x->s.num_blocks = 1;
	x->s.blocks = &x->block;
}

static void test_pack_example(void **state)
{
	(void)state;
	example x;
	build_example(&x);
	hks_packed_spline *p = NULL;
	hks_error e;
	assert_int_equal(hks_stored_pack(&x.s, NULL, &p, &e), HKS_OK);
	const hks_spline_header *h = &p->header;
	assert_int_equal(h->data_size, sizeof(example_bytes));
	assert_memory_equal(h->data, example_bytes, sizeof(example_bytes));
	assert_int_equal(h->num_block_offsets, 1);
	assert_int_equal(h->block_offsets[0], 0);
	assert_int_equal(h->num_float_block_offsets, 1);
	assert_int_equal(h->float_block_offsets[0], 40);
	assert_int_equal(h->num_blocks, 1);
	assert_int_equal(h->num_frames, 51);
	assert_int_equal(h->max_frames_per_block, 256);
	assert_int_equal(h->mask_and_quantization_size, 8);
	assert_int_equal(h->endian, 0);
	assert_int_equal(h->num_transform_offsets, 0);
	assert_int_equal(h->num_float_offsets, 0);
	/* FORMAT.md §1.1 worked example: blockDuration is not 8.5 */
	assert_int_equal(hks_f32_bits(h->frame_duration), 0x3D088888);
	assert_int_equal(hks_f32_bits(h->block_duration), 0x4107FFFF);
	assert_int_equal(hks_f32_bits(h->block_inverse_duration), 0x3DF0F0F3);
	assert_int_equal(hks_f32_bits(p->duration), 0x3FD55555);
	hks_packed_spline_free(p);
}

/* keep_float_offsets: without float tracks the stored floatBlockOffsets value
 * (unobservable, non-standard in some third-party files) is written back;
 * with float tracks, or without the option, the computed offset is. */
static void test_keep_float_offsets(void **state)
{
	(void)state;
	example x;
	build_example(&x);
	x.s.num_float_tracks = 0; /* the example without its float track */
	x.block.float_offset = 45;
	hks_pack_options o;
	memset(&o, 0, sizeof(o));
	hks_packed_spline *p = NULL;
	hks_error e;
	assert_int_equal(hks_stored_pack(&x.s, &o, &p, &e), HKS_OK);
	uint32_t computed = p->header.float_block_offsets[0];
	assert_int_not_equal(computed, 45);
	hks_packed_spline_free(p);
	o.keep_float_offsets = 1;
	assert_int_equal(hks_stored_pack(&x.s, &o, &p, &e), HKS_OK);
	assert_int_equal(p->header.float_block_offsets[0], 45);
	hks_packed_spline_free(p);
	/* with a float track the offset locates data: always computed */
	build_example(&x);
	x.block.float_offset = 45;
	assert_int_equal(hks_stored_pack(&x.s, &o, &p, &e), HKS_OK);
	assert_int_equal(p->header.float_block_offsets[0], 40);
	hks_packed_spline_free(p);
}

/* NaN bit patterns of static values and bounds are written unchanged. */
static void test_pack_nan_bits(void **state)
{
	(void)state;
	example x;
	build_example(&x);
	x.track.part[0].static_value[0] = f32(0x7FA00001);
	x.track.part[2].min[1] = f32(0xFFC00000);
	x.flt.static_value[0] = f32(0x7F800000);
	hks_packed_spline *p = NULL;
	hks_error e;
	assert_int_equal(hks_stored_pack(&x.s, NULL, &p, &e), HKS_OK);
	assert_int_equal(hks_le32(p->header.data + 8), 0x7FA00001);
	assert_int_equal(hks_le32(p->header.data + 28), 0xFFC00000);
	assert_int_equal(hks_le32(p->header.data + 40), 0x7F800000);
	hks_packed_spline_free(p);
}

/*
 * The guard: one track, selector 1, rotation spline n = 5 of degree p.
 * p = 1: header + 8 knots at 4-14, 30 quaternion bytes at 15-44, E = 45, A = 48: A − E = 3, never a guard.
 * p = 2: header + 9 knots at 4-15, quaternions at 16-45, E = 46: A − E = 2, a guard when asked for.
 */
static void test_guard(void **state)
{
	(void)state;
	static const uint8_t knots1[8] = {0, 0, 1, 3, 5, 7, 9, 9};
	static const uint8_t knots2[9] = {0, 0, 0, 2, 4, 6, 9, 9, 9};
	uint8_t quats[30];
	for (int i = 0; i < 30; i++)
		quats[i] = (uint8_t)(0x40 + i);
	for (int degree = 1; degree <= 2; degree++) {
		for (int guard = 0; guard <= 1; guard++) {
			hks_stored_track t;
			memset(&t, 0, sizeof(t));
			t.mask[0] = 0x45;
			t.mask[2] = 0xF0;
			t.part[0].quantization = 1;
			t.part[2].quantization = 1;
			hks_stored_part *r = &t.part[1];
			r->flags = 0xF0;
			r->quantization = HKS_ROT_THREECOMP40;
			r->is_spline = 1;
			r->degree = (uint8_t)degree;
			r->num_control_points = 6;
			r->num_knots = (uint16_t)(6 + degree + 1);
			r->knots = degree == 1 ? knots1 : knots2;
			r->packed = quats;
			hks_stored_block blk;
			memset(&blk, 0, sizeof(blk));
			blk.tracks = &t;
			hks_stored_animation s;
			memset(&s, 0, sizeof(s));
			s.num_transform_tracks = 1;
			s.num_frames = 10;
			s.max_frames_per_block = 256;
			s.duration = 0.3f;
			s.num_blocks = 1;
			s.blocks = &blk;
			hks_pack_options o;
			memset(&o, 0, sizeof(o));
			o.guard = guard;
			hks_packed_spline *p = NULL;
			hks_error e;
			assert_int_equal(hks_stored_pack(&s, &o, &p, &e), HKS_OK);
			uint32_t expect = (degree == 2 && guard) ? 64 : 48;
			assert_int_equal(p->header.data_size, expect);
			assert_int_equal(p->header.float_block_offsets[0], 48);
			/* bytes: masks, n = 5, degree, knots, quaternions, zero padding, guard zeros */
			uint8_t want[64] = {0x45, 0x00, 0xF0, 0x00, 0x05, 0x00, (uint8_t)degree};
			memcpy(want + 7, r->knots, r->num_knots);
			memcpy(want + 7 + r->num_knots, quats, 30);
			assert_memory_equal(p->header.data, want, expect);
			hks_packed_spline_free(p);
		}
	}
}

/* ---- pack(walk(x)) == x ---- */

static void make_animation(hks_animation *a, const uint8_t *data, uint32_t size, int T, int F, int frames,
                           const uint32_t *bo, const uint32_t *fbo, uint32_t nb)
{
	memset(a, 0, sizeof(*a));
	a->kind = HKS_ANIMATION_SPLINE;
	a->duration = 2.0f;
	a->number_of_transform_tracks = T;
	a->number_of_float_tracks = F;
	a->object_offset = -1;
	a->data_offset = -1;
	a->spline.num_frames = frames;
	a->spline.num_blocks = (int32_t)nb;
	a->spline.max_frames_per_block = 256;
	a->spline.mask_and_quantization_size = (4 * T + F + 3) & ~3;
	a->spline.block_offsets = bo;
	a->spline.num_block_offsets = nb;
	a->spline.float_block_offsets = fbo;
	a->spline.num_float_block_offsets = nb;
	a->spline.data = data;
	a->spline.data_size = size;
}

static void roundtrip(const hks_animation *a, int guard)
{
	hks_stored_animation *s = NULL;
	hks_error e;
	assert_int_equal(hks_stored_read(a, NULL, &s, &e), HKS_OK);
	hks_pack_options o;
	memset(&o, 0, sizeof(o));
	o.guard = guard;
	hks_packed_spline *p = NULL;
	assert_int_equal(hks_stored_pack(s, &o, &p, &e), HKS_OK);
	assert_int_equal(p->header.data_size, a->spline.data_size);
	assert_memory_equal(p->header.data, a->spline.data, a->spline.data_size);
	assert_int_equal(p->header.num_blocks, a->spline.num_blocks);
	assert_memory_equal(p->header.block_offsets, a->spline.block_offsets, 4 * a->spline.num_block_offsets);
	assert_memory_equal(p->header.float_block_offsets, a->spline.float_block_offsets, 4 * a->spline.num_float_block_offsets);
	assert_int_equal(hks_spline_repack_compare(a, guard, &e), HKS_OK);
	hks_packed_spline_free(p);
	hks_stored_free(s);
}

static void test_pack_walk_roundtrip(void **state)
{
	(void)state;
	hks_animation a;
	uint32_t bo = 0, fbo = 40;
	make_animation(&a, example_bytes, sizeof(example_bytes), 1, 1, 51, &bo, &fbo, 1);
	roundtrip(&a, 0);

	/*
	 * Two blocks (300 frames), 8-bit vectors and float splines:
	 * block 0: byte0 0x04 (8-bit T/S, ThreeComp40), T 0x30 (x, y spline), R 0x00, S 0x00;
	 *          float mask 0x10 (8-bit spline). Mask area 8.
	 *   8: n = 1, p = 1, knots 0 0 255 255 -> 15, pad 16; x, y bounds 16-31; 2 points x 2 lanes 8-bit 32-35
	 *   36 = floatBlockOffsets[0]: n = 1, p = 1, knots 0 0 255 255 at 36-42, pad 44, bounds 44-51, 2 points 52-53, pad 56; block pad 64
	 * block 1 at 64: byte0 0x41, T 0x00, R 0x01 (static ThreeComp40 at 72-76, pad 80), float 0x01 static at 80-83; pad 96
	 */
	static const uint8_t two[96] = {
		0x04, 0x30, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00,
		0x01, 0x00, 0x01, 0x00, 0x00, 0xFF, 0xFF, 0x00,
		0x00, 0x00, 0x80, 0xBF, 0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x41,
		0x00, 0x00, 0xFF, 0xFF,
		0x01, 0x00, 0x01, 0x00, 0x00, 0xFF, 0xFF, 0x00,
		0x00, 0x00, 0x00, 0x3F, 0x00, 0x00, 0xC0, 0x3F,
		0x00, 0xFF, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		/* block 1 */
		0x45, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00,
		0xFF, 0xF7, 0x7F, 0xFD, 0x5F, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x40, 0x3F,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	uint32_t bo2[2] = {0, 64}, fbo2[2] = {36, 16};
	make_animation(&a, two, sizeof(two), 1, 1, 300, bo2, fbo2, 2);
	/* block 1 has 45 frames: its knots would have to end at 44, but it stores no spline */
	roundtrip(&a, 0);
	roundtrip(&a, 1); /* the last track's rotation ends at 77, A = 96: no guard either way */
}

/* ---- invalid stored structures ---- */

static void test_pack_rejects_inconsistent(void **state)
{
	(void)state;
	example x;
	hks_packed_spline *p = NULL;
	hks_error e;

	build_example(&x);
	x.track.part[2].flags = 0x10; /* disagrees with mask byte 3 (0x20) */
	assert_int_equal(hks_stored_pack(&x.s, NULL, &p, &e), HKS_E_ARGUMENT);
	assert_null(p);
	assert_int_equal(e.block, 0);
	assert_int_equal(e.track, 0);
	assert_int_equal(e.part, HKS_PART_SCALE);

	build_example(&x);
	x.track.part[0].quantization = 0; /* everything 8-bit */
	x.track.part[2].quantization = 0;
	x.track.mask[0] = 0x08;
	assert_int_equal(hks_stored_pack(&x.s, NULL, &p, &e), HKS_E_ARGUMENT); /* 65535 does not fit 8 bits */
	assert_int_equal(e.part, HKS_PART_SCALE);

	build_example(&x);
	x.track.part[2].num_knots = 5;
	assert_int_equal(hks_stored_pack(&x.s, NULL, &p, &e), HKS_E_ARGUMENT);

	build_example(&x);
	x.track.part[2].degree = 4;
	assert_int_equal(hks_stored_pack(&x.s, NULL, &p, &e), HKS_E_ARGUMENT);

	build_example(&x);
	x.float_mask = 0x13;
	x.flt.flags = 0x11;
	assert_int_equal(hks_stored_pack(&x.s, NULL, &p, &e), HKS_E_ARGUMENT);
	assert_int_equal(e.part, HKS_PART_FLOAT);

	build_example(&x);
	x.s.num_frames = 300; /* needs two blocks */
	assert_int_equal(hks_stored_pack(&x.s, NULL, &p, &e), HKS_E_ARGUMENT);

	build_example(&x);
	x.track.mask[0] = 0x59; /* selector 6 */
	x.track.part[1].quantization = 6;
	assert_int_equal(hks_stored_pack(&x.s, NULL, &p, &e), HKS_E_ARGUMENT);
	assert_int_equal(e.part, HKS_PART_ROTATION);

	assert_int_equal(hks_stored_pack(NULL, NULL, &p, &e), HKS_E_ARGUMENT);
}

/* ---- hks_spline_repack_compare ---- */

static void test_repack_compare(void **state)
{
	(void)state;
	uint8_t bytes[48];
	memcpy(bytes, example_bytes, sizeof(bytes));
	hks_animation a;
	uint32_t bo = 0, fbo = 40;
	hks_error e;
	make_animation(&a, bytes, sizeof(bytes), 1, 1, 51, &bo, &fbo, 1);
	assert_int_equal(hks_spline_repack_compare(&a, 0, &e), HKS_OK);

	/* a non-zero padding byte after the ThreeComp48 quaternion (byte 18): the walk
	 * accepts it as a conformance issue, the repack writes zero */
	bytes[18] = 0x77;
	assert_int_equal(hks_spline_repack_compare(&a, 0, &e), HKS_E_MISMATCH);
	assert_int_equal(e.offset, 18);
	assert_int_equal(e.block, 0);
	assert_int_equal(e.track, 0);
	assert_int_equal(e.part, HKS_PART_ROTATION);
	assert_non_null(strstr(e.message, "0x77"));
	bytes[18] = 0;

	/* mask area padding (byte 6) */
	bytes[6] = 1;
	assert_int_equal(hks_spline_repack_compare(&a, 0, &e), HKS_E_MISMATCH);
	assert_int_equal(e.offset, 6);
	assert_non_null(strstr(e.message, "mask area"));
	bytes[6] = 0;

	/* block padding (byte 46), with a file position */
	bytes[46] = 2;
	a.data_offset = 4096;
	assert_int_equal(hks_spline_repack_compare(&a, 0, &e), HKS_E_MISMATCH);
	assert_int_equal(e.offset, 4096 + 46);
	assert_non_null(strstr(e.message, "block padding"));
	bytes[46] = 0;

	/* a walk error is reported as such */
	bytes[22] = 9; /* the scale spline's degree */
	assert_int_equal(hks_spline_repack_compare(&a, 0, &e), HKS_E_MALFORMED);
	bytes[22] = 1;
	assert_int_equal(hks_spline_repack_compare(&a, 1, &e), HKS_OK);
}

/* ---- hks_spline_check_header ---- */

static void test_header_check(void **state)
{
	(void)state;
	uint32_t bo = 0, fbo = 40;
	hks_animation a;
	make_animation(&a, example_bytes, sizeof(example_bytes), 1, 1, 51, &bo, &fbo, 1);
	/* FORMAT.md §1.1 worked example */
	a.duration = f32(0x3FD55555);
	a.spline.frame_duration = f32(0x3D088888);
	a.spline.block_duration = f32(0x4107FFFF);
	a.spline.block_inverse_duration = f32(0x3DF0F0F3);
	hks_file file;
	memset(&file, 0, sizeof(file));
	file.container = HKS_CONTAINER_TAGFILE;
	strcpy(file.sdk, "20180100");
	file.animations = &a;
	file.num_animations = 1;
	hks_error e;
	assert_int_equal(hks_spline_check_header(&file, 0, &e), HKS_OK);

	/* blockDuration 8.5 (what a decimal computation gives) is not the f32 product */
	a.spline.block_duration = 8.5f;
	assert_int_equal(hks_spline_check_header(&file, 0, &e), HKS_E_MALFORMED);
	assert_string_equal(e.member, "blockDuration");
	assert_non_null(strstr(e.message, "0x41080000"));
	assert_non_null(strstr(e.message, "0x4107FFFF"));
	assert_int_equal(e.animation, 0);
	/* ... which a packfile may carry (relative 1e-4), but not 8.6 */
	file.container = HKS_CONTAINER_PACKFILE;
	strcpy(file.sdk, "hk_2010.2.0-r1");
	a.spline.block_inverse_duration = 1.0f / 8.5f;
	assert_int_equal(hks_spline_check_header(&file, 0, &e), HKS_OK);
	a.spline.block_duration = 8.6f;
	a.spline.block_inverse_duration = 1.0f / 8.6f;
	assert_int_equal(hks_spline_check_header(&file, 0, &e), HKS_E_MALFORMED);
	assert_string_equal(e.member, "blockDuration");
	a.spline.block_duration = f32(0x4107FFFF);
	a.spline.block_inverse_duration = f32(0x3DF0F0F3);

	/* per-track offsets: empty in FromSoftware data; a packfile may have them */
	uint32_t offsets[1] = {8};
	a.spline.transform_offsets = offsets;
	a.spline.num_transform_offsets = 1;
	assert_int_equal(hks_spline_check_header(&file, 0, &e), HKS_OK);
	file.container = HKS_CONTAINER_TAGFILE;
	strcpy(file.sdk, "20160200");
	assert_int_equal(hks_spline_check_header(&file, 0, &e), HKS_E_MALFORMED);
	assert_string_equal(e.member, "transformOffsets");
	a.spline.num_transform_offsets = 0;

	/* the integer relations */
	a.spline.num_blocks = 2;
	assert_int_equal(hks_spline_check_header(&file, 0, &e), HKS_E_MALFORMED);
	assert_string_equal(e.member, "numBlocks");
	a.spline.num_blocks = 1;
	a.spline.mask_and_quantization_size = 12;
	assert_int_equal(hks_spline_check_header(&file, 0, &e), HKS_E_MALFORMED);
	assert_string_equal(e.member, "maskAndQuantizationSize");
	file.container = HKS_CONTAINER_XML; /* only "at least 4T + F" there */
	assert_int_equal(hks_spline_check_header(&file, 0, &e), HKS_OK);
	a.spline.mask_and_quantization_size = 4;
	assert_int_equal(hks_spline_check_header(&file, 0, &e), HKS_E_MALFORMED);
	a.spline.mask_and_quantization_size = 8;
	bo = 16;
	assert_int_equal(hks_spline_check_header(&file, 0, &e), HKS_E_MALFORMED);
	assert_string_equal(e.member, "blockOffsets");
	bo = 0;
	a.spline.endian = 1;
	assert_int_equal(hks_spline_check_header(&file, 0, &e), HKS_E_MALFORMED);
	assert_string_equal(e.member, "endian");
	a.spline.endian = 0;
	assert_int_equal(hks_spline_check_header(&file, 1, &e), HKS_E_ARGUMENT);
	a.kind = HKS_ANIMATION_OTHER;
	assert_int_equal(hks_spline_check_header(&file, 0, &e), HKS_E_ARGUMENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pack_example),
		cmocka_unit_test(test_keep_float_offsets),
		cmocka_unit_test(test_pack_nan_bits),
		cmocka_unit_test(test_guard),
		cmocka_unit_test(test_pack_walk_roundtrip),
		cmocka_unit_test(test_pack_rejects_inconsistent),
		cmocka_unit_test(test_repack_compare),
		cmocka_unit_test(test_header_check),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
