/*
 * The spline block walk on hand-built blocks (FORMAT.md §2, §6): every
 * selector's size and alignment, 8/16-bit control points, static / spline /
 * absent lanes, float masks, the Elden Ring guard rule on both sides of its
 * threshold, and clean errors for blocks that are short, long, truncated or
 * malformed. The bytes are written here by a small builder, independent of the
 * library's packer; expected offsets are worked out by hand in the comments.
 */
#include "hks_test.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- a tiny byte builder ---- */

typedef struct builder {
	uint8_t d[4096];
	uint32_t n;
	uint32_t block_start;
} builder;

static void put8(builder *b, uint8_t v) { b->d[b->n++] = v; }
static void put16(builder *b, uint16_t v) { put8(b, (uint8_t)v); put8(b, (uint8_t)(v >> 8)); }
static void put32(builder *b, uint32_t v) { put16(b, (uint16_t)v); put16(b, (uint16_t)(v >> 16)); }
static void zeros(builder *b, uint32_t k) { while (k--) put8(b, 0); }
static void align(builder *b, uint32_t a)
{
	while ((b->n - b->block_start) % a)
		put8(b, 0);
}
/* u16 n, u8 p, clamped knots: 0 (p+1 times), n - p interior knots i·last/(n − p + 1), last (p+1 times). */
static void spline_header(builder *b, uint16_t n, uint8_t p, uint8_t last)
{
	put16(b, n);
	put8(b, p);
	for (int i = 0; i <= p; i++)
		put8(b, 0);
	for (int i = 1; i <= n - p; i++)
		put8(b, (uint8_t)(i * last / (n - p + 1)));
	for (int i = 0; i <= p; i++)
		put8(b, last);
}

/* ---- an animation around the bytes ---- */

typedef struct fixture {
	hks_animation a;
	uint32_t bo[4], fbo[4];
	uint8_t *copy;   /* the data in a buffer of exactly data_size bytes */
	hks_stored_animation *s;
	hks_error e;
} fixture;

static void setup(fixture *f, const builder *b, int T, int F, int frames, uint32_t nb, const uint32_t *bo,
                  const uint32_t *fbo)
{
	memset(f, 0, sizeof(*f));
	hks_animation *a = &f->a;
	a->kind = HKS_ANIMATION_SPLINE;
	a->class_name = "hkaSplineCompressedAnimation";
	a->duration = 1.0f;
	a->number_of_transform_tracks = T;
	a->number_of_float_tracks = F;
	a->object_offset = -1;
	a->data_offset = -1;
	hks_spline_header *h = &a->spline;
	h->num_frames = frames;
	h->max_frames_per_block = 256;
	h->num_blocks = (int32_t)nb;
	h->mask_and_quantization_size = (4 * T + F + 3) & ~3;
	h->frame_duration = 1.0f / (float)(frames - 1);
	h->block_duration = h->frame_duration * 255.0f;
	h->block_inverse_duration = 1.0f / h->block_duration;
	memcpy(f->bo, bo, nb * 4);
	memcpy(f->fbo, fbo, nb * 4);
	h->block_offsets = f->bo;
	h->num_block_offsets = nb;
	h->float_block_offsets = f->fbo;
	h->num_float_block_offsets = nb;
	f->copy = (uint8_t *)malloc(b->n ? b->n : 1);
	memcpy(f->copy, b->d, b->n);
	h->data = f->copy;
	h->data_size = b->n;
}

static hks_result walk(fixture *f, int strict)
{
	hks_walk_options o;
	memset(&o, 0, sizeof(o));
	o.animation_index = 7;
	o.strict = strict;
	hks_stored_free(f->s);
	f->s = NULL;
	return hks_stored_read(&f->a, &o, &f->s, &f->e);
}

static void teardown(fixture *f)
{
	hks_stored_free(f->s);
	free(f->copy);
}

static void expect_error(fixture *f, hks_result code, int64_t offset, int32_t block, int32_t track, hks_part part)
{
	char msg[700];
	hks_error_format(&f->e, msg, sizeof(msg));
	print_message("    expected error: %s\n", msg);
	assert_int_equal(f->e.code, code);
	assert_int_equal(f->e.offset, offset);
	assert_int_equal(f->e.animation, 7);
	assert_int_equal(f->e.block, block);
	assert_int_equal(f->e.track, track);
	assert_int_equal(f->e.part, part);
	assert_null(f->s);
}

/* ---- selectors ---- */

/*
 * One track: translation x static (bytes 4-7), rotation spline n = 1, p = 1
 * (header and 4 knots at 8-14), two packed quaternions after the selector's
 * alignment, scale absent. Worked out by hand: quaternions start at 15 aligned
 * to A, end after 2·B bytes, the part ends at the next multiple of 4.
 */
static void test_selectors(void **state)
{
	(void)state;
	static const struct { uint32_t start, end, fbo; } expect[6] = {
		{16, 24, 24}, /* Polar32: A 4, B 4 */
		{15, 25, 28}, /* ThreeComp40: A 1, B 5 */
		{16, 28, 28}, /* ThreeComp48: A 2, B 6 */
		{15, 21, 24}, /* ThreeComp24: A 1, B 3 */
		{16, 20, 20}, /* Straight16: A 2, B 2 */
		{16, 48, 48}, /* Uncompressed: A 4, B 16 */
	};
	for (unsigned sel = 0; sel < 6; sel++) {
		builder b = {0};
		put8(&b, (uint8_t)(1 | sel << 2 | 1 << 6));
		put8(&b, 0x01);
		put8(&b, 0xF0);
		put8(&b, 0x00);
		put32(&b, 0x3F800000);
		spline_header(&b, 1, 1, 9);
		assert_int_equal(b.n, 15);
		align(&b, hks_rotation_alignment(sel));
		assert_int_equal(b.n, expect[sel].start);
		for (uint32_t i = 0; i < 2 * hks_rotation_size(sel); i++)
			put8(&b, (uint8_t)(0x21 + i));
		assert_int_equal(b.n, expect[sel].end);
		align(&b, 4);
		uint32_t fbo = b.n;
		align(&b, 16);
		fixture f;
		uint32_t bo0 = 0;
		setup(&f, &b, 1, 0, 10, 1, &bo0, &fbo);
		assert_int_equal(walk(&f, 1), HKS_OK);
		const hks_stored_part *r = &f.s->blocks[0].tracks[0].part[1];
		assert_int_equal(r->quantization, sel);
		assert_int_equal(r->is_spline, 1);
		assert_int_equal(r->degree, 1);
		assert_int_equal(r->num_control_points, 2);
		assert_int_equal(r->num_knots, 4);
		assert_ptr_equal(r->knots, f.copy + 11);
		assert_ptr_equal(r->packed, f.copy + expect[sel].start);
		assert_int_equal(r->offset, 8);
		assert_int_equal(r->end, expect[sel].end);
		assert_int_equal(f.s->blocks[0].tracks[0].part[2].offset, expect[sel].fbo);
		assert_int_equal(f.s->blocks[0].float_offset, expect[sel].fbo);
		assert_int_equal(f.s->blocks[0].size, (expect[sel].fbo + 15) & ~15u);
		assert_int_equal(f.s->conformance_issues, 0);
		assert_int_equal(f.s->guard_bytes, 0);
		teardown(&f);
	}
	assert_int_equal(hks_rotation_size(6), 0);
	assert_int_equal(hks_rotation_alignment(6), 0);
}

/* Static rotations of every selector: one packed value after the alignment. */
static void test_static_rotation(void **state)
{
	(void)state;
	for (unsigned sel = 0; sel < 6; sel++) {
		builder b = {0};
		put8(&b, (uint8_t)(1 | sel << 2 | 1 << 6));
		put8(&b, 0x00);
		put8(&b, 0x0F);
		put8(&b, 0x02); /* scale y static */
		align(&b, hks_rotation_alignment(sel));
		uint32_t qstart = b.n; /* 4: aligned for every selector */
		for (uint32_t i = 0; i < hks_rotation_size(sel); i++)
			put8(&b, (uint8_t)(0x31 + i));
		uint32_t qend = b.n;
		align(&b, 4);
		uint32_t s_off = b.n;
		put32(&b, 0x40000000);
		uint32_t fbo = b.n;
		align(&b, 16);
		fixture f;
		uint32_t bo0 = 0;
		setup(&f, &b, 1, 0, 2, 1, &bo0, &fbo);
		assert_int_equal(walk(&f, 1), HKS_OK);
		const hks_stored_track *t = &f.s->blocks[0].tracks[0];
		assert_int_equal(t->part[1].is_spline, 0);
		assert_int_equal(t->part[1].num_control_points, 1);
		assert_ptr_equal(t->part[1].packed, f.copy + qstart);
		assert_int_equal(t->part[1].end, qend);
		assert_int_equal(t->part[2].offset, s_off);
		assert_int_equal(hks_f32_bits(t->part[2].static_value[1]), 0x40000000);
		teardown(&f);
	}
}

/* ---- vector parts ---- */

/*
 * xyz spline, n = 2, p = 1: header + 5 knots at 4-11, bounds at 12-35,
 * 3 points x 3 lanes at 36: 18 bytes (16-bit) or 9 (8-bit). Rotation absent,
 * scale xyz static.
 */
static void test_vector_8_and_16_bit(void **state)
{
	(void)state;
	for (unsigned q = 0; q < 2; q++) {
		builder b = {0};
		put8(&b, (uint8_t)(q | 1 << 2 | q << 6));
		put8(&b, 0x70);
		put8(&b, 0x00);
		put8(&b, 0x07);
		spline_header(&b, 2, 1, 9);
		align(&b, 4);
		assert_int_equal(b.n, 12);
		for (int l = 0; l < 3; l++) {
			put32(&b, 0xBF800000); /* -1 */
			put32(&b, 0x3F800000); /* +1 */
		}
		for (int j = 0; j < 3; j++)
			for (int l = 0; l < 3; l++) {
				if (q)
					put16(&b, (uint16_t)(1000 * (j + 1) + l));
				else
					put8(&b, (uint8_t)(10 * j + l));
			}
		uint32_t end = b.n;
		assert_int_equal(end, q ? 54u : 45u);
		align(&b, 4);
		uint32_t r_at = b.n;
		put32(&b, 0x3F800000);
		put32(&b, 0x3F800000);
		put32(&b, 0x3F800000);
		uint32_t fbo = b.n;
		assert_int_equal(fbo, q ? 68u : 60u);
		align(&b, 16);
		fixture f;
		uint32_t bo0 = 0;
		setup(&f, &b, 1, 0, 10, 1, &bo0, &fbo);
		assert_int_equal(walk(&f, 1), HKS_OK);
		const hks_stored_track *t = &f.s->blocks[0].tracks[0];
		const hks_stored_part *p = &t->part[0];
		assert_int_equal(p->quantization, q);
		assert_int_equal(p->spline_lanes, 3);
		assert_int_equal(p->num_control_points, 3);
		assert_int_equal(p->end, end);
		for (int j = 0; j < 3; j++)
			for (int l = 0; l < 3; l++)
				assert_int_equal(p->control_points[j * 3 + l], q ? 1000 * (j + 1) + l : 10 * j + l);
		assert_int_equal(hks_f32_bits(p->min[2]), 0xBF800000);
		assert_int_equal(hks_f32_bits(p->max[2]), 0x3F800000);
		/* the same bytes at an odd address: 16-bit points are copied instead of used in place */
		uint8_t *odd = (uint8_t *)malloc(b.n + 1);
		memcpy(odd + 1, b.d, b.n);
		hks_animation moved = f.a;
		moved.spline.data = odd + 1;
		hks_stored_animation *s2 = NULL;
		assert_int_equal(hks_stored_read(&moved, NULL, &s2, &f.e), HKS_OK);
		const hks_stored_part *p2 = &s2->blocks[0].tracks[0].part[0];
		assert_memory_equal(p2->control_points, p->control_points, 9 * sizeof(uint16_t));
		assert_true((const uint8_t *)p2->control_points < odd || (const uint8_t *)p2->control_points >= odd + b.n + 1);
		hks_stored_free(s2);
		free(odd);
		assert_int_equal(t->part[1].offset, r_at);
		assert_int_equal(t->part[1].end, r_at);
		assert_int_equal(t->part[2].offset, r_at);
		assert_int_equal(t->part[2].end, fbo);
		teardown(&f);
	}
}

/*
 * Translation mask 0x25: x and z static, y spline (n = 1, p = 1). Header and
 * knots 4-10, pad 11, x static 12, y bounds 16-23, z static 24, control
 * points 28-31. Static values are NaNs whose bits must survive.
 */
static void test_mixed_lanes_and_nan_bits(void **state)
{
	(void)state;
	builder b = {0};
	put8(&b, 0x45);
	put8(&b, 0x25);
	put8(&b, 0x00);
	put8(&b, 0x00);
	spline_header(&b, 1, 1, 1);
	align(&b, 4);
	put32(&b, 0x7FA00001); /* signalling NaN with payload */
	put32(&b, 0x00000000);
	put32(&b, 0x41200000);
	put32(&b, 0xFFC00000);
	put16(&b, 0);
	put16(&b, 65535);
	uint32_t fbo = b.n;
	assert_int_equal(fbo, 32);
	fixture f;
	uint32_t bo0 = 0;
	setup(&f, &b, 1, 0, 2, 1, &bo0, &fbo);
	assert_int_equal(walk(&f, 1), HKS_OK);
	const hks_stored_part *p = &f.s->blocks[0].tracks[0].part[0];
	assert_int_equal(p->flags, 0x25);
	assert_int_equal(p->spline_lanes, 1);
	assert_int_equal(hks_f32_bits(p->static_value[0]), 0x7FA00001);
	assert_int_equal(hks_f32_bits(p->static_value[2]), 0xFFC00000);
	assert_int_equal(hks_f32_bits(p->max[1]), 0x41200000);
	assert_int_equal(p->control_points[0], 0);
	assert_int_equal(p->control_points[1], 65535);
	assert_int_equal(f.s->blocks[0].size, 32);
	teardown(&f);
}

/* ---- float tracks (FORMAT.md §2.7) ---- */

static void test_float_masks(void **state)
{
	(void)state;
	static const uint8_t masks[4] = {0x03, 0x01, 0x12, 0x10};
	for (int i = 0; i < 4; i++) {
		uint8_t m = masks[i];
		unsigned q = (m >> 1) & 3;
		builder b = {0};
		put8(&b, 0x45); /* one transform track, everything absent */
		put8(&b, 0);
		put8(&b, 0);
		put8(&b, 0);
		put8(&b, m);
		zeros(&b, 3); /* mask area (4 + 1 + 3) & ~3 = 8 */
		uint32_t fbo = b.n;
		uint32_t end;
		if (m & 0x10) {
			spline_header(&b, 3, 3, 9); /* 3 + 8 bytes: 8-18 */
			align(&b, 4);               /* 20 */
			put32(&b, 0x3E000000);
			put32(&b, 0x3FE00000);
			for (int j = 0; j < 4; j++) {
				if (q)
					put16(&b, (uint16_t)(j * 20000));
				else
					put8(&b, (uint8_t)(j * 80));
			}
			end = b.n;
			assert_int_equal(end, q ? 36u : 32u);
		} else {
			put32(&b, 0x3F000000);
			end = b.n;
		}
		align(&b, 4);
		align(&b, 16);
		fixture f;
		uint32_t bo0 = 0;
		setup(&f, &b, 1, 1, 10, 1, &bo0, &fbo);
		assert_int_equal(walk(&f, 1), HKS_OK);
		const hks_stored_block *blk = &f.s->blocks[0];
		assert_int_equal(blk->float_masks[0], m);
		assert_int_equal(blk->floats[0].flags, m & 0xF9);
		assert_int_equal(blk->floats[0].quantization, q);
		assert_int_equal(blk->floats[0].offset, 8);
		assert_int_equal(blk->floats[0].end, end);
		if (m & 0x10) {
			assert_int_equal(blk->floats[0].num_control_points, 4);
			assert_int_equal(blk->floats[0].spline_lanes, 1);
			assert_int_equal(blk->floats[0].control_points[3], q ? 60000 : 240);
		} else {
			assert_int_equal(hks_f32_bits(blk->floats[0].static_value[0]), 0x3F000000);
		}
		assert_int_equal(blk->size, b.n);
		teardown(&f);
	}
}

/* ---- the Elden Ring guard (FORMAT.md §2.8) ---- */

/*
 * Track 0: selector 1, translation absent, rotation spline with n = 5.
 * p = 1: header + 8 knots at 4-14, 6 x 5 bytes from 15: E = 45, A = 48, A − E = 3 (no guard).
 * p = 2: header + 9 knots at 4-15, 6 x 5 bytes from 16: E = 46, A = 48, A − E = 2 (guard).
 */
static void build_guard_case(builder *b, uint8_t degree, uint8_t byte0, uint32_t *fbo)
{
	memset(b, 0, sizeof(*b));
	put8(b, byte0);
	put8(b, 0x00);
	put8(b, 0xF0);
	put8(b, 0x00);
	spline_header(b, 5, degree, 9);
	for (int i = 0; i < 30; i++)
		put8(b, (uint8_t)(0x40 + i));
	align(b, 4);
	*fbo = b->n;
	align(b, 16);
}

static void test_guard_threshold(void **state)
{
	(void)state;
	for (int degree = 1; degree <= 2; degree++) {
		for (int trailing = 0; trailing < 3; trailing++) { /* none, 16 zeros, 16 non-zero */
			builder b;
			uint32_t fbo, bo0 = 0;
			build_guard_case(&b, (uint8_t)degree, 0x45, &fbo);
			assert_int_equal(b.n, 48);
			if (trailing)
				for (int i = 0; i < 16; i++)
					put8(&b, trailing == 1 ? 0 : 0x11);
			fixture f;
			setup(&f, &b, 1, 0, 10, 1, &bo0, &fbo);
			hks_result r = walk(&f, 1);
			if (trailing == 0 || (trailing == 1 && degree == 2)) {
				assert_int_equal(r, HKS_OK);
				assert_int_equal(f.s->blocks[0].tracks[0].part[1].end, degree == 1 ? 45 : 46);
				assert_int_equal(f.s->guard_bytes, trailing ? 16 : 0);
				assert_int_equal(f.s->blocks[0].size, 48);
				assert_int_equal(hks_guard_rule(1, degree == 1 ? 45 : 46, 48), degree == 2);
			} else {
				assert_int_equal(r, HKS_E_MALFORMED);
				expect_error(&f, HKS_E_MALFORMED, 48, 0, -1, HKS_PART_NONE);
			}
			teardown(&f);
		}
	}
	/* the same geometry with ThreeComp48 (selector 2) never has the guard */
	assert_int_equal(hks_guard_rule(2, 46, 48), 0);
	assert_int_equal(hks_guard_rule(1, 48, 48), 1);
	assert_int_equal(hks_guard_rule(1, 45, 48), 0);
	assert_int_equal(hks_guard_for_sdk("20180100"), 1);
	assert_int_equal(hks_guard_for_sdk("20160200"), 0);
	assert_int_equal(hks_guard_for_sdk(NULL), 0);
}

/* Absent last rotation: E is where it would start, the end of the
 * translation (xyz static: 4-15), so E = A = 16 and the rule holds for
 * selector 1, not for selector 2. */
static void test_guard_absent_rotation(void **state)
{
	(void)state;
	for (unsigned sel = 1; sel <= 2; sel++) {
		builder b = {0};
		put8(&b, (uint8_t)(1 | sel << 2 | 1 << 6));
		put8(&b, 0x07);
		put8(&b, 0x00);
		put8(&b, 0x00);
		put32(&b, 1);
		put32(&b, 2);
		put32(&b, 3);
		uint32_t fbo = b.n, bo0 = 0;
		zeros(&b, 16);
		fixture f;
		setup(&f, &b, 1, 0, 3, 1, &bo0, &fbo);
		hks_result r = walk(&f, 0);
		if (sel == 1) {
			assert_int_equal(r, HKS_OK);
			assert_int_equal(f.s->guard_bytes, 16);
			assert_int_equal(f.s->blocks[0].tracks[0].part[1].offset, 16);
			assert_int_equal(f.s->blocks[0].tracks[0].part[1].end, 16);
		} else {
			expect_error(&f, HKS_E_MALFORMED, 16, 0, -1, HKS_PART_NONE);
		}
		teardown(&f);
	}
}

/* ---- short, long, truncated ---- */

static void test_short_and_long_blocks(void **state)
{
	(void)state;
	builder b;
	uint32_t fbo, bo0 = 0;
	build_guard_case(&b, 1, 0x45, &fbo); /* fbo 48, data 48 */
	fixture f;

	/* floatBlockOffsets one short / one long: the walk ends at 48. Without
	 * float tracks a conformance violation (an error when strict). */
	uint32_t off = fbo - 1;
	setup(&f, &b, 1, 0, 10, 1, &bo0, &off);
	assert_int_equal(walk(&f, 0), HKS_OK);
	assert_int_equal(f.s->conformance_issues, 1);
	assert_int_equal(f.s->conformance.offset, 48);
	assert_int_not_equal(walk(&f, 1), HKS_OK);
	expect_error(&f, HKS_E_MALFORMED, 48, 0, 0, HKS_PART_SCALE);
	teardown(&f);
	b.n = 64; /* room for floatBlockOffsets 49 (H5) */
	off = fbo + 1;
	setup(&f, &b, 1, 0, 10, 1, &bo0, &off);
	assert_int_not_equal(walk(&f, 1), HKS_OK);
	expect_error(&f, HKS_E_MALFORMED, 48, 0, 0, HKS_PART_SCALE);
	teardown(&f);
	b.n = 48;

	/* with a float track the offset is needed: always an error. Masks 0-3,
	 * float mask 0x03 at 4, translation x static at 8-11, the float at 12-15. */
	builder c = {0};
	put8(&c, 0x45);
	put8(&c, 0x01);
	zeros(&c, 2);
	put8(&c, 0x03);
	zeros(&c, 3);
	put32(&c, 0x3F800000);
	put32(&c, 0x3F000000);
	uint32_t off2[2] = {11, 13};
	for (int i = 0; i < 2; i++) {
		setup(&f, &c, 1, 1, 10, 1, &bo0, &off2[i]);
		assert_int_equal(walk(&f, 0), HKS_E_MALFORMED);
		expect_error(&f, HKS_E_MALFORMED, 12, 0, 0, HKS_PART_SCALE);
		teardown(&f);
	}

	/* data one byte short: the rotation's align 4 after E = 45 needs 3 bytes, 2 are left */
	b.n = 47;
	off = 47;
	setup(&f, &b, 1, 0, 10, 1, &bo0, &off);
	assert_int_equal(walk(&f, 0), HKS_E_TRUNCATED);
	expect_error(&f, HKS_E_TRUNCATED, 45, 0, 0, HKS_PART_ROTATION);
	teardown(&f);

	/* data one byte long */
	b.n = 49;
	b.d[48] = 0;
	setup(&f, &b, 1, 0, 10, 1, &bo0, &fbo);
	assert_int_equal(walk(&f, 0), HKS_E_MALFORMED);
	expect_error(&f, HKS_E_MALFORMED, 48, 0, -1, HKS_PART_NONE);
	teardown(&f);

	/* a knot count one higher: the quaternions shift by one knot byte and the block overruns */
	b.n = 48;
	b.d[4] = 6;
	setup(&f, &b, 1, 0, 10, 1, &bo0, &fbo);
	assert_int_not_equal(walk(&f, 0), HKS_OK);
	assert_int_equal(f.e.block, 0);
	assert_int_equal(f.e.track, 0);
	assert_int_equal(f.e.part, HKS_PART_ROTATION);
	teardown(&f);
}

/* Two blocks: 300 frames, block 0 has 256, block 1 starts at frame 255 with 45. */
static void test_two_blocks(void **state)
{
	(void)state;
	builder b = {0};
	for (int blk = 0; blk < 2; blk++) {
		b.block_start = b.n;
		put8(&b, 0x45);
		put8(&b, 0x01);
		put8(&b, 0x00);
		put8(&b, 0x00);
		put32(&b, 0x3F800000u + (uint32_t)blk);
		align(&b, 16);
	}
	uint32_t bo[2] = {0, 16}, fbo[2] = {8, 8};
	fixture f;
	setup(&f, &b, 1, 0, 300, 2, bo, fbo);
	assert_int_equal(walk(&f, 1), HKS_OK);
	assert_int_equal(f.s->num_blocks, 2);
	assert_int_equal(f.s->blocks[1].offset, 16);
	assert_int_equal(f.s->blocks[1].first_frame, 255);
	assert_int_equal(f.s->blocks[1].num_frames, 45);
	assert_int_equal(f.s->blocks[0].num_frames, 256);
	assert_int_equal(hks_f32_bits(f.s->blocks[1].tracks[0].part[0].static_value[0]), 0x3F800001);
	teardown(&f);

	/* 16 unexplained bytes between block 0 and block 1 */
	builder g = {0};
	memcpy(g.d, b.d, 16);
	memcpy(g.d + 32, b.d + 16, 16);
	g.n = 48;
	uint32_t bo2[2] = {0, 32};
	setup(&f, &g, 1, 0, 300, 2, bo2, fbo);
	assert_int_equal(walk(&f, 0), HKS_E_MALFORMED);
	expect_error(&f, HKS_E_MALFORMED, 16, 0, -1, HKS_PART_NONE);
	teardown(&f);

	/* H4 lenient (modder clips): one blockOffsets / floatBlockOffsets entry for
	 * two blocks. A lenient walk reads block 1 where block 0 ends, with a
	 * conformance issue; a strict walk refuses it */
	setup(&f, &b, 1, 0, 300, 2, bo, fbo);
	f.a.spline.num_block_offsets = 1;
	f.a.spline.num_float_block_offsets = 1;
	assert_int_equal(walk(&f, 0), HKS_OK);
	assert_int_equal(f.s->num_blocks, 2);
	assert_int_equal(f.s->blocks[1].offset, 16);
	assert_int_equal(hks_f32_bits(f.s->blocks[1].tracks[0].part[0].static_value[0]), 0x3F800001);
	assert_true(f.s->conformance_issues >= 1);
	assert_string_equal(f.s->conformance.member, "data");
	assert_non_null(strstr(f.s->conformance.message, "blockOffsets holds 1 entries for 2 blocks"));
	assert_int_equal(walk(&f, 1), HKS_E_MALFORMED);
	assert_string_equal(f.e.member, "blockOffsets");
	/* the inferred start past the data: an error, not a read */
	f.a.spline.data_size = 16;
	assert_int_equal(walk(&f, 0), HKS_E_MALFORMED);
	/* no entry at all: still refused */
	f.a.spline.data_size = 32;
	f.a.spline.num_block_offsets = 0;
	assert_int_equal(walk(&f, 0), HKS_E_MALFORMED);
	teardown(&f);

	/* blockOffsets not 16-aligned, not ascending, numBlocks wrong */
	uint32_t bad[2] = {0, 8};
	setup(&f, &b, 1, 0, 300, 2, bad, fbo);
	assert_int_equal(walk(&f, 0), HKS_E_MALFORMED);
	assert_string_equal(f.e.member, "blockOffsets");
	teardown(&f);
	setup(&f, &b, 1, 0, 256, 2, bo, fbo);
	assert_int_equal(walk(&f, 0), HKS_E_MALFORMED);
	assert_string_equal(f.e.member, "numBlocks");
	teardown(&f);
}

/* Every prefix of a small animation: a clean error, never a crash or over-read
 * (the copy is exactly as long as the prefix). Only the full length without
 * the guard (48) and with it (64) are valid. */
static void test_truncation_everywhere(void **state)
{
	(void)state;
	builder b;
	uint32_t fbo, bo0 = 0;
	build_guard_case(&b, 2, 0x45, &fbo);
	zeros(&b, 16);
	for (uint32_t len = 0; len <= 64; len++) {
		builder c = b;
		c.n = len;
		fixture f;
		setup(&f, &c, 1, 0, 10, 1, &bo0, &fbo);
		hks_result r = walk(&f, 1);
		if (len == 48 || len == 64) {
			assert_int_equal(r, HKS_OK);
		} else {
			assert_int_not_equal(r, HKS_OK);
			assert_int_equal(f.e.code, r);
			assert_true(f.e.message[0] != '\0');
			assert_null(f.s);
		}
		teardown(&f);
	}
}

/* Every byte of two small animations (a two-block one with a float spline, and
 * the guard case) replaced by several values: the walk and the packer never
 * crash or read outside the data (run under -DHKS_SANITIZE=ON to check), and
 * every failure carries a message. Whatever walks must pack back to the same
 * bytes except where the mutation broke a conformance rule. */
static void test_every_byte_mutated(void **state)
{
	(void)state;
	builder base = {0};
	/* block 0: 8-bit spline translation x, ThreeComp48 static rotation, float spline 0x12 */
	put8(&base, 0x08);
	put8(&base, 0x10);
	put8(&base, 0x01);
	put8(&base, 0x00);
	put8(&base, 0x12);
	zeros(&base, 3);
	spline_header(&base, 3, 3, 255);
	align(&base, 4);
	put32(&base, 0xBF800000);
	put32(&base, 0x3F800000);
	for (int i = 0; i < 4; i++)
		put8(&base, (uint8_t)(i * 60));
	align(&base, 2);
	for (int i = 0; i < 6; i++)
		put8(&base, (uint8_t)(0x11 * (i + 1)));
	align(&base, 4);
	uint32_t fbo0 = base.n;
	spline_header(&base, 1, 1, 255);
	align(&base, 4);
	put32(&base, 0x3E000000);
	put32(&base, 0x3FE00000);
	put16(&base, 0);
	put16(&base, 65535);
	align(&base, 16);
	uint32_t b1 = base.n;
	base.block_start = b1;
	/* block 1 (45 frames): everything static */
	put8(&base, 0x09);
	put8(&base, 0x07);
	put8(&base, 0x01);
	put8(&base, 0x00);
	put8(&base, 0x03);
	zeros(&base, 3);
	put32(&base, 1);
	put32(&base, 2);
	put32(&base, 3);
	for (int i = 0; i < 6; i++)
		put8(&base, (uint8_t)(0x21 * (i + 1)));
	align(&base, 4);
	uint32_t fbo1 = base.n - b1;
	put32(&base, 0x3F000000);
	align(&base, 16);
	uint32_t bo[2] = {0, b1}, fbo[2] = {fbo0, fbo1};
	{
		fixture f;
		setup(&f, &base, 1, 1, 300, 2, bo, fbo);
		assert_int_equal(walk(&f, 1), HKS_OK);
		teardown(&f);
	}
	static const uint8_t values[] = {0x00, 0x01, 0x7F, 0x80, 0xFF};
	unsigned ok = 0, failed = 0;
	for (uint32_t at = 0; at < base.n; at++) {
		for (size_t v = 0; v <= sizeof(values); v++) {
			builder m = base;
			m.d[at] = v < sizeof(values) ? values[v] : (uint8_t)(base.d[at] ^ 0x01);
			if (m.d[at] == base.d[at])
				continue;
			fixture f;
			setup(&f, &m, 1, 1, 300, 2, bo, fbo);
			hks_result r = walk(&f, 0);
			if (r == HKS_OK) {
				ok++;
				hks_packed_spline *p = NULL;
				hks_error e;
				assert_int_equal(hks_stored_pack(f.s, NULL, &p, &e), HKS_OK);
				if (!f.s->conformance_issues) {
					assert_int_equal(p->header.data_size, m.n);
					assert_memory_equal(p->header.data, m.d, m.n);
				}
				hks_packed_spline_free(p);
			} else {
				failed++;
				assert_true(f.e.message[0] != '\0');
				assert_int_equal(f.e.code, r);
			}
			teardown(&f);
		}
	}
	print_message("    %u mutations walk, %u are rejected\n", ok, failed);
	assert_true(ok > 0 && failed > 0);
}

/* ---- spline header rules (B7) ---- */

static void test_bad_knots_and_degrees(void **state)
{
	(void)state;
	builder b;
	uint32_t fbo, bo0 = 0;
	fixture f;

	/* knots 0 0 0 2 4 6 9 9 9 at 7-15: make knot 4 (byte 11) smaller than knot 3 */
	build_guard_case(&b, 2, 0x45, &fbo);
	b.d[11] = 1;
	setup(&f, &b, 1, 0, 10, 1, &bo0, &fbo);
	assert_int_equal(walk(&f, 0), HKS_E_MALFORMED);
	expect_error(&f, HKS_E_MALFORMED, 11, 0, 0, HKS_PART_ROTATION);
	assert_non_null(strstr(f.e.message, "decrease"));
	teardown(&f);

	/* a knot past the block's last frame (9) */
	build_guard_case(&b, 2, 0x45, &fbo);
	b.d[15] = 10;
	setup(&f, &b, 1, 0, 10, 1, &bo0, &fbo);
	assert_int_equal(walk(&f, 0), HKS_E_MALFORMED);
	expect_error(&f, HKS_E_MALFORMED, 15, 0, 0, HKS_PART_ROTATION);
	teardown(&f);

	/* degree 0 and 4 (byte 6) */
	for (uint8_t d = 0; d <= 4; d += 4) {
		build_guard_case(&b, 2, 0x45, &fbo);
		b.d[6] = d;
		setup(&f, &b, 1, 0, 10, 1, &bo0, &fbo);
		assert_int_equal(walk(&f, 0), HKS_E_MALFORMED);
		expect_error(&f, HKS_E_MALFORMED, 6, 0, 0, HKS_PART_ROTATION);
		assert_non_null(strstr(f.e.message, "degree"));
		teardown(&f);
	}

	/* a file offset is reported when the data's position in the file is known */
	build_guard_case(&b, 2, 0x45, &fbo);
	b.d[6] = 4;
	setup(&f, &b, 1, 0, 10, 1, &bo0, &fbo);
	f.a.data_offset = 1000;
	assert_int_equal(walk(&f, 0), HKS_E_MALFORMED);
	assert_int_equal(f.e.offset, 1006);
	teardown(&f);
}

/*
 * Random knot vectors (sorted with repeats, clamped or not, sometimes with a
 * swap or a value past the last frame) against a scalar reference of B7
 * (error at the first offending knot) and B8 (one conformance issue): checks
 * the walk's byte-parallel knot tests at every length and alignment.
 */
static uint32_t rng_state = 12345;
static uint32_t rng(void)
{
	rng_state = rng_state * 1103515245u + 12345u;
	return rng_state >> 8;
}

static void test_random_knots(void **state)
{
	(void)state;
	const uint32_t frames = 200, last = frames - 1;
	unsigned errors = 0, issues = 0, clean = 0;
	for (int iter = 0; iter < 3000; iter++) {
		uint32_t p = 1 + rng() % 3, n = p + rng() % 40, nk = n + p + 2;
		uint8_t k[64];
		for (uint32_t i = 0; i < nk; i++)
			k[i] = (uint8_t)(rng() % (frames + 8));
		/* sort (insertion) */
		for (uint32_t i = 1; i < nk; i++)
			for (uint32_t j = i; j > 0 && k[j] < k[j - 1]; j--) {
				uint8_t t = k[j];
				k[j] = k[j - 1];
				k[j - 1] = t;
			}
		uint32_t mode = rng() % 4;
		if (mode >= 1) { /* clamp, and make values valid */
			for (uint32_t i = 0; i < nk; i++)
				if (k[i] > last)
					k[i] = (uint8_t)last;
			for (uint32_t i = 0; i <= p; i++) {
				k[i] = 0;
				k[n + 1 + i] = (uint8_t)last;
			}
			if (mode == 3 && rng() % 2) /* a few interior repeats */
				for (uint32_t i = p + 2; i <= n; i++)
					if (rng() % 3 == 0)
						k[i] = k[i - 1];
		}
		if (mode == 2 && nk > 2) { /* break the order somewhere */
			uint32_t i = 1 + rng() % (nk - 1);
			if (k[i] != k[i - 1]) {
				uint8_t t = k[i];
				k[i] = k[i - 1];
				k[i - 1] = t;
			}
		}
		/* scalar reference */
		int64_t err_at = -1;
		for (uint32_t i = 0; i < nk && err_at < 0; i++)
			if (k[i] > last || (i && k[i] < k[i - 1]))
				err_at = 7 + i;
		bool b8 = false;
		for (uint32_t i = 0; i <= p; i++)
			b8 = b8 || k[i] != 0 || k[n + 1 + i] != last;
		if (!b8 && n > p && (k[p + 1] == 0 || k[n] == last))
			b8 = true;
		uint32_t run = 1;
		for (uint32_t i = p + 2; !b8 && i <= n; i++) {
			run = k[i] == k[i - 1] ? run + 1 : 1;
			b8 = run > p;
		}

		builder b = {0};
		put8(&b, 0x45);
		put8(&b, 0x00);
		put8(&b, 0xF0);
		put8(&b, 0x00);
		put16(&b, (uint16_t)n);
		put8(&b, (uint8_t)p);
		for (uint32_t i = 0; i < nk; i++)
			put8(&b, k[i]);
		for (uint32_t i = 0; i < 5 * (n + 1); i++)
			put8(&b, 0x40);
		align(&b, 4);
		uint32_t fbo = b.n, bo0 = 0;
		align(&b, 16);
		fixture f;
		setup(&f, &b, 1, 0, (int)frames, 1, &bo0, &fbo);
		hks_result r = walk(&f, 0);
		if (err_at >= 0) {
			assert_int_equal(r, HKS_E_MALFORMED);
			assert_int_equal(f.e.offset, err_at);
			errors++;
		} else {
			assert_int_equal(r, HKS_OK);
			assert_int_equal(f.s->conformance_issues, b8 ? 1 : 0);
			if (b8)
				issues++;
			else
				clean++;
		}
		teardown(&f);
	}
	print_message("    %u rejected, %u with a B8 issue, %u clean\n", errors, issues, clean);
	assert_true(errors > 100 && issues > 100 && clean > 100);
}

/* ---- masks (B4-B6) ---- */

static void test_bad_masks(void **state)
{
	(void)state;
	static const struct { uint8_t mask[4]; int64_t offset; hks_part part; } cases[] = {
		{{0x46, 0, 0, 0}, 0, HKS_PART_NONE},        /* translation quantization 2 */
		{{0x85, 0, 0, 0}, 0, HKS_PART_NONE},        /* scale quantization 2 */
		{{0x59, 0, 0, 0}, 0, HKS_PART_NONE},        /* rotation selector 6 */
		{{0x45, 0x08, 0, 0}, 1, HKS_PART_TRANSLATION}, /* w lane static */
		{{0x45, 0, 0, 0x11}, 3, HKS_PART_SCALE},       /* x static and spline */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		builder b = {0};
		for (int k = 0; k < 4; k++)
			put8(&b, cases[i].mask[k]);
		zeros(&b, 60);
		uint32_t fbo = 4, bo0 = 0;
		fixture f;
		setup(&f, &b, 1, 0, 2, 1, &bo0, &fbo);
		assert_int_equal(walk(&f, 0), HKS_E_MALFORMED);
		expect_error(&f, HKS_E_MALFORMED, cases[i].offset, 0, 0, cases[i].part);
		teardown(&f);
	}
	static const uint8_t bad_float[] = {0x13, 0x04, 0x06, 0x08, 0x20, 0x83};
	for (size_t i = 0; i < sizeof(bad_float); i++) {
		builder b = {0};
		put8(&b, bad_float[i]);
		zeros(&b, 3 + 12);
		uint32_t fbo = 4, bo0 = 0;
		fixture f;
		setup(&f, &b, 0, 1, 2, 1, &bo0, &fbo);
		assert_int_equal(walk(&f, 0), HKS_E_MALFORMED);
		expect_error(&f, HKS_E_MALFORMED, 0, 0, 0, HKS_PART_FLOAT);
		teardown(&f);
	}
}

/* ---- conformance (B8, B10, B12) ---- */

static void test_conformance(void **state)
{
	(void)state;
	builder b;
	uint32_t fbo, bo0 = 0;
	fixture f;

	/* non-zero padding after the last quaternion (E = 45, pad 45-47) */
	build_guard_case(&b, 1, 0x45, &fbo);
	b.d[46] = 0x5A;
	setup(&f, &b, 1, 0, 10, 1, &bo0, &fbo);
	assert_int_equal(walk(&f, 0), HKS_OK);
	assert_int_equal(f.s->conformance_issues, 1);
	assert_int_equal(f.s->conformance.offset, 46);
	assert_int_equal(f.s->conformance.part, HKS_PART_ROTATION);
	assert_int_equal(walk(&f, 1), HKS_E_MALFORMED);
	expect_error(&f, HKS_E_MALFORMED, 46, 0, 0, HKS_PART_ROTATION);
	teardown(&f);

	/* knots not clamped at the end: last knot 8 instead of 9 */
	build_guard_case(&b, 1, 0x45, &fbo);
	b.d[14] = 8;
	b.d[13] = 8;
	setup(&f, &b, 1, 0, 10, 1, &bo0, &fbo);
	assert_int_equal(walk(&f, 0), HKS_OK);
	assert_int_equal(f.s->conformance_issues, 1);
	assert_non_null(strstr(f.s->conformance.message, "B8"));
	teardown(&f);

	/* a ThreeComp40 field of 4095 (first quaternion at 15: bytes FF 0F) vs the packed NaN */
	build_guard_case(&b, 1, 0x45, &fbo);
	b.d[15] = 0xFF;
	b.d[16] = 0x0F;
	setup(&f, &b, 1, 0, 10, 1, &bo0, &fbo);
	assert_int_equal(walk(&f, 0), HKS_OK);
	assert_int_equal(f.s->conformance_issues, 1);
	assert_int_equal(f.s->conformance.offset, 15);
	teardown(&f);
	/* field c of the third quaternion (at 25: byte 28 and the low nibble of 29); then field b of the sixth (at 40) */
	for (int k = 0; k < 2; k++) {
		build_guard_case(&b, 1, 0x45, &fbo);
		if (k == 0) {
			b.d[28] = 0xFF;
			b.d[29] |= 0x0F;
		} else {
			b.d[41] |= 0xF0;
			b.d[42] = 0xFF;
		}
		setup(&f, &b, 1, 0, 10, 1, &bo0, &fbo);
		assert_int_equal(walk(&f, 0), HKS_OK);
		assert_int_equal(f.s->conformance_issues, 1);
		assert_int_equal(f.s->conformance.offset, k == 0 ? 25 : 40);
		teardown(&f);
	}
	/* bit 39 of the second quaternion (at 20: byte 24), field a of the fourth
	 * (at 30): both inside the four-at-a-time pass of the check */
	for (int k = 0; k < 2; k++) {
		build_guard_case(&b, 1, 0x45, &fbo);
		if (k == 0) {
			b.d[24] |= 0x80;
		} else {
			b.d[30] = 0xFF;
			b.d[31] |= 0x0F;
		}
		setup(&f, &b, 1, 0, 10, 1, &bo0, &fbo);
		assert_int_equal(walk(&f, 0), HKS_OK);
		assert_int_equal(f.s->conformance_issues, 1);
		assert_int_equal(f.s->conformance.offset, k == 0 ? 20 : 30);
		teardown(&f);
	}
	build_guard_case(&b, 1, 0x45, &fbo);
	static const uint8_t packed_nan[5] = {0x00, 0x80, 0x00, 0x00, 0x80};
	memcpy(b.d + 20, packed_nan, 5);
	setup(&f, &b, 1, 0, 10, 1, &bo0, &fbo);
	assert_int_equal(walk(&f, 1), HKS_OK);
	assert_int_equal(f.s->conformance_issues, 0);
	assert_memory_equal(f.s->blocks[0].tracks[0].part[1].packed + 5, packed_nan, 5);
	teardown(&f);
}

/* ---- header rules and limits ---- */

static void test_header_rules_and_limits(void **state)
{
	(void)state;
	builder b;
	uint32_t fbo, bo0 = 0;
	build_guard_case(&b, 1, 0x45, &fbo);
	fixture f;

	setup(&f, &b, 1, 0, 10, 1, &bo0, &fbo);
	f.a.spline.endian = 1;
	assert_int_equal(walk(&f, 0), HKS_E_UNSUPPORTED);
	teardown(&f);

	setup(&f, &b, 1, 0, 10, 1, &bo0, &fbo);
	f.a.spline.mask_and_quantization_size = 8;
	assert_int_equal(walk(&f, 0), HKS_E_MALFORMED);
	assert_string_equal(f.e.member, "maskAndQuantizationSize");
	teardown(&f);

	setup(&f, &b, 1, 0, 10, 1, &bo0, &fbo);
	f.a.spline.num_frames = 1;
	assert_int_equal(walk(&f, 0), HKS_E_MALFORMED);
	teardown(&f);

	setup(&f, &b, 1, 0, 10, 1, &bo0, &fbo);
	f.a.spline.max_frames_per_block = 1;
	assert_int_equal(walk(&f, 0), HKS_E_MALFORMED);
	teardown(&f);

	/* limits: checked before anything is allocated */
	setup(&f, &b, 1, 0, 10, 1, &bo0, &fbo);
	hks_walk_options o;
	memset(&o, 0, sizeof(o));
	o.base.limits.max_frames = 9;
	assert_int_equal(hks_stored_read(&f.a, &o, &f.s, &f.e), HKS_E_LIMIT);
	o.base.limits.max_frames = 0;
	o.base.limits.max_tracks = 1;
	f.a.number_of_float_tracks = 1;
	assert_int_equal(hks_stored_read(&f.a, &o, &f.s, &f.e), HKS_E_LIMIT);
	f.a.number_of_float_tracks = 0;
	o.base.limits.max_memory = 64;
	assert_int_equal(hks_stored_read(&f.a, &o, &f.s, &f.e), HKS_E_LIMIT);
	assert_null(f.s);
	/* a huge claimed track count with a tiny buffer fails on the header, not in malloc */
	f.a.number_of_transform_tracks = 60000;
	f.a.spline.mask_and_quantization_size = 240000;
	assert_int_equal(walk(&f, 0), HKS_E_MALFORMED);
	assert_string_equal(f.e.member, "floatBlockOffsets");
	teardown(&f);

	assert_int_equal(hks_block_frames(300, 256, 0), 256);
	assert_int_equal(hks_block_frames(300, 256, 1), 45);
	assert_int_equal(hks_block_frames(300, 256, 2), 0);
	assert_int_equal(hks_block_frames(511, 256, 1), 256);
}

/* A ThreeComp40 spline ending exactly at the end of the data (p = 2, n = 8:
 * header + 12 knots at 4-18, 9 x 5 bytes at 19-63): nothing is read past it. */
static void test_threecomp40_at_end(void **state)
{
	(void)state;
	builder b = {0};
	put8(&b, 0x45);
	put8(&b, 0x00);
	put8(&b, 0xF0);
	put8(&b, 0x00);
	spline_header(&b, 8, 2, 9);
	for (int i = 0; i < 45; i++)
		put8(&b, (uint8_t)(0x40 + i));
	assert_int_equal(b.n, 64);
	uint32_t fbo = 64, bo0 = 0;
	fixture f;
	setup(&f, &b, 1, 0, 10, 1, &bo0, &fbo);
	assert_int_equal(walk(&f, 1), HKS_OK);
	assert_int_equal(f.s->blocks[0].tracks[0].part[1].end, 64);
	assert_int_equal(f.s->guard_bytes, 0);
	teardown(&f);
	/* one byte fewer: the last quaternion does not fit */
	b.n = 63;
	fbo = 63;
	setup(&f, &b, 1, 0, 10, 1, &bo0, &fbo);
	assert_int_equal(walk(&f, 0), HKS_E_TRUNCATED);
	expect_error(&f, HKS_E_TRUNCATED, 19, 0, 0, HKS_PART_ROTATION);
	teardown(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_selectors),
		cmocka_unit_test(test_static_rotation),
		cmocka_unit_test(test_vector_8_and_16_bit),
		cmocka_unit_test(test_mixed_lanes_and_nan_bits),
		cmocka_unit_test(test_float_masks),
		cmocka_unit_test(test_guard_threshold),
		cmocka_unit_test(test_guard_absent_rotation),
		cmocka_unit_test(test_short_and_long_blocks),
		cmocka_unit_test(test_two_blocks),
		cmocka_unit_test(test_truncation_everywhere),
		cmocka_unit_test(test_every_byte_mutated),
		cmocka_unit_test(test_bad_knots_and_degrees),
		cmocka_unit_test(test_random_knots),
		cmocka_unit_test(test_bad_masks),
		cmocka_unit_test(test_conformance),
		cmocka_unit_test(test_header_rules_and_limits),
		cmocka_unit_test(test_threecomp40_at_end),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
