/*
 * Packfile reader and writer on packfiles built by the test itself
 * (CONTAINERS.md §5): header (with the v11 predicate extension), three
 * sections, class names, a root container, an animation container, a spline
 * animation with arrays and annotation tracks, and a binding, for four
 * flavours. Member offsets are written out here from the spec's table
 * (§3.1, §5.7), independently of src/decode/packfile_layout.c.
 */
#include "hks_test.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- flavours: offsets from CONTAINERS.md §3.1 / §5.7 ------------------- */

typedef struct flavour {
	const char *name;
	uint32_t fv;
	uint8_t rules[4];
	const char *version;
	uint32_t P;
	/* hkaAnimationContainer */
	uint32_t c_animations, c_bindings, c_size;
	/* hkaAnimation + hkaSplineCompressedAnimation */
	uint32_t a_type, a_duration, a_tt, a_ft, a_motion, a_tracks;
	uint32_t s_frames, s_block_offsets, s_size; /* numFrames; the five arrays follow blockOffsets */
	/* hkaAnimationBinding */
	uint32_t b_name, b_anim, b_tt2b, b_blend, b_size;
} flavour;

static const flavour flavours[] = {
    /* 2010 x86 (DS1, Skyrim LE, Sekiro re-saves) */
    {"2010 x86", 8, {4, 1, 0, 1}, "hk_2010.2.0-r1", 4, 20, 32, 68, 8, 12, 16, 20, 24, 28, 40, 68, 132, 8, 12, 16, 40, 44},
    /* 2010 x64 (Skyrim SE): binding without partitionIndices */
    {"2010 x64", 8, {8, 1, 0, 1}, "hk_2010.2.0-r1", 8, 32, 48, 96, 16, 20, 24, 28, 32, 40, 56, 88, 176, 16, 24, 32, 64, 72},
    /* 2014 x64 (DS3) */
    {"2014 x64", 11, {8, 1, 0, 1}, "hk_2014.1.0-r1", 8, 32, 48, 96, 16, 20, 24, 28, 32, 40, 56, 88, 176, 16, 24, 32, 80, 88},
    /* 2014 x64 with padding reuse (Bloodborne) */
    {"2014 x64 reuse", 11, {8, 1, 1, 1}, "hk_2014.1.0-r1", 8, 32, 48, 96, 12, 16, 20, 24, 32, 40, 56, 88, 176, 16, 24, 32, 80, 88},
};

/* ---- a tiny packfile builder ------------------------------------------------ */

typedef struct builder {
	uint8_t data[4096];
	uint32_t size;
	uint32_t locals[64][2];
	uint32_t num_locals;
	uint32_t globals[16][3];
	uint32_t num_globals;
	uint32_t virtuals[16][3];
	uint32_t num_virtuals;
	uint8_t names[512];
	uint32_t names_size;
} builder;

static uint32_t b_alloc(builder *b, uint32_t size)
{
	b->size = (b->size + 15) & ~15u;
	uint32_t at = b->size;
	memset(b->data + at, 0, size);
	b->size += size;
	assert_true(b->size <= sizeof(b->data));
	return at;
}
static void b_put32(builder *b, uint32_t at, uint32_t v) { hks_put_le32(b->data + at, v); }
static void b_local(builder *b, uint32_t src, uint32_t dst)
{
	b->locals[b->num_locals][0] = src;
	b->locals[b->num_locals][1] = dst;
	b->num_locals++;
}
static void b_global(builder *b, uint32_t src, uint32_t dst)
{
	b->globals[b->num_globals][0] = src;
	b->globals[b->num_globals][1] = 2;
	b->globals[b->num_globals][2] = dst;
	b->num_globals++;
}
static uint32_t b_class(builder *b, uint32_t signature, const char *name)
{
	hks_put_le32(b->names + b->names_size, signature);
	b->names[b->names_size + 4] = 0x09;
	uint32_t at = b->names_size + 5;
	memcpy(b->names + at, name, strlen(name) + 1);
	b->names_size = at + (uint32_t)strlen(name) + 1;
	return at;
}
static void b_object(builder *b, uint32_t at, uint32_t name_offset)
{
	b->virtuals[b->num_virtuals][0] = at;
	b->virtuals[b->num_virtuals][1] = 0;
	b->virtuals[b->num_virtuals][2] = name_offset;
	b->num_virtuals++;
}
/* An array member at `at` with `n` elements stored at `dst`. */
static void b_array(builder *b, const flavour *f, uint32_t at, uint32_t n, uint32_t dst)
{
	b_put32(b, at + f->P, n);
	b_put32(b, at + f->P + 4, n | 0x80000000u);
	if (n)
		b_local(b, at, dst);
}
static void b_string(builder *b, uint32_t at, const char *s)
{
	uint32_t dst = b_alloc(b, (uint32_t)strlen(s) + 1);
	memcpy(b->data + dst, s, strlen(s) + 1);
	b_local(b, at, dst);
}

static const uint8_t spline_bytes[40] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
                                         21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40};

static void append(uint8_t **out, size_t *size, const void *p, size_t n)
{
	*out = (uint8_t *)realloc(*out, *size + n);
	memcpy(*out + *size, p, n);
	*size += n;
}
static void append32(uint8_t **out, size_t *size, uint32_t v)
{
	uint8_t b[4];
	hks_put_le32(b, v);
	append(out, size, b, 4);
}
static void pad(uint8_t **out, size_t *size, size_t from, uint8_t byte)
{
	while ((*size - from) % 16) {
		append(out, size, &byte, 1);
	}
}

/* Build the whole file; returns malloc'd bytes. */
static uint8_t *build(const flavour *f, size_t *out_size, uint32_t *spline_object)
{
	builder *b = (builder *)calloc(1, sizeof(builder));
	const uint32_t P = f->P, A = P + 8;
	b_class(b, 0x33D42383, "hkClass");
	uint32_t n_root = b_class(b, 0x2772C11E, "hkRootLevelContainer");
	uint32_t n_cont = b_class(b, 0x8DC20333, "hkaAnimationContainer");
	uint32_t n_spline = b_class(b, 0x792EE0BB, "hkaSplineCompressedAnimation");
	uint32_t n_bind = b_class(b, 0x66EAC971, "hkaAnimationBinding");

	/* root and its named variant */
	uint32_t root = b_alloc(b, A);
	b_object(b, root, n_root);
	uint32_t variants = b_alloc(b, 3 * P);
	b_array(b, f, root, 1, variants);
	b_string(b, variants, "Animation Container");
	b_string(b, variants + P, "hkaAnimationContainer");
	/* container */
	uint32_t cont = b_alloc(b, f->c_size);
	b_object(b, cont, n_cont);
	b_global(b, variants + 2 * P, cont);
	uint32_t anims = b_alloc(b, P);
	b_array(b, f, cont + f->c_animations, 1, anims);
	uint32_t binds = b_alloc(b, P);
	b_array(b, f, cont + f->c_bindings, 1, binds);
	/* spline */
	uint32_t s = b_alloc(b, f->s_size);
	*spline_object = s;
	b_object(b, s, n_spline);
	b_global(b, anims, s);
	b_put32(b, s + f->a_type, 3);
	b_put32(b, s + f->a_duration, hks_f32_bits(1.0f));
	b_put32(b, s + f->a_tt, 2);
	b_put32(b, s + f->a_ft, 0);
	uint32_t tracks = b_alloc(b, 2 * (P + A));
	b_array(b, f, s + f->a_tracks, 2, tracks);
	b_string(b, tracks, "Root");
	b_string(b, tracks + P + A, "Spine");
	b_put32(b, s + f->s_frames, 31);
	b_put32(b, s + f->s_frames + 4, 1);
	b_put32(b, s + f->s_frames + 8, 256);
	b_put32(b, s + f->s_frames + 12, 8);
	b_put32(b, s + f->s_frames + 16, hks_f32_bits(8.5f));
	b_put32(b, s + f->s_frames + 20, hks_f32_bits(1.0f / 8.5f));
	b_put32(b, s + f->s_frames + 24, hks_f32_bits(1.0f / 30.0f));
	uint32_t bo = b_alloc(b, 4);
	b_array(b, f, s + f->s_block_offsets, 1, bo);
	uint32_t fbo = b_alloc(b, 4);
	b_put32(b, fbo, 32);
	b_array(b, f, s + f->s_block_offsets + A, 1, fbo);
	/* transformOffsets, floatOffsets: empty */
	b_put32(b, s + f->s_block_offsets + 2 * A + P + 4, 0x80000000u);
	b_put32(b, s + f->s_block_offsets + 3 * A + P + 4, 0x80000000u);
	uint32_t data = b_alloc(b, sizeof(spline_bytes));
	memcpy(b->data + data, spline_bytes, sizeof(spline_bytes));
	b_array(b, f, s + f->s_block_offsets + 4 * A, sizeof(spline_bytes), data);
	/* binding */
	uint32_t bind = b_alloc(b, f->b_size);
	b_object(b, bind, n_bind);
	b_global(b, binds, bind);
	b_string(b, bind + f->b_name, "Master");
	b_global(b, bind + f->b_anim, s);
	uint32_t tt2b = b_alloc(b, 4);
	hks_put_le16(b->data + tt2b, 0);
	hks_put_le16(b->data + tt2b + 2, 5);
	b_array(b, f, bind + f->b_tt2b, 2, tt2b);
	b->data[bind + f->b_blend] = 2;
	b->size = (b->size + 15) & ~15u;

	/* assemble: header, section headers, sections */
	uint8_t *out = NULL;
	size_t n = 0;
	static const uint8_t magic[8] = {0x57, 0xE0, 0xE0, 0x57, 0x10, 0xC0, 0xC0, 0x10};
	append(&out, &n, magic, 8);
	append32(&out, &n, 0);
	append32(&out, &n, f->fv);
	append(&out, &n, f->rules, 4);
	append32(&out, &n, 3);
	append32(&out, &n, 2);
	append32(&out, &n, root);
	append32(&out, &n, 0);
	append32(&out, &n, n_root);
	uint8_t ver[16];
	memset(ver, 0, 16);
	memcpy(ver, f->version, strlen(f->version));
	ver[15] = 0xFF;
	append(&out, &n, ver, 16);
	append32(&out, &n, 0);
	bool v11 = f->fv >= 11;
	append32(&out, &n, v11 ? (21u | (16u << 16)) : 0xFFFFFFFFu);
	if (v11) {
		append32(&out, &n, 20);
		uint8_t z[12] = {0};
		append(&out, &n, z, 12);
	}
	uint32_t sh_size = v11 ? 64 : 48;
	size_t sh_at = n;
	uint8_t zero[64];
	memset(zero, 0, 64);
	for (int i = 0; i < 3; i++)
		append(&out, &n, zero, sh_size);
	const char *tags[3] = {"__classnames__", "__types__", "__data__"};
	uint32_t starts[3], rel[3][6];
	/* classnames */
	starts[0] = (uint32_t)n;
	append(&out, &n, b->names, b->names_size);
	pad(&out, &n, starts[0], 0xFF);
	for (int k = 0; k < 6; k++)
		rel[0][k] = (uint32_t)(n - starts[0]);
	starts[1] = (uint32_t)n;
	for (int k = 0; k < 6; k++)
		rel[1][k] = 0;
	starts[2] = (uint32_t)n;
	append(&out, &n, b->data, b->size);
	rel[2][0] = (uint32_t)(n - starts[2]);
	for (uint32_t i = 0; i < b->num_locals; i++) {
		append32(&out, &n, b->locals[i][0]);
		append32(&out, &n, b->locals[i][1]);
	}
	pad(&out, &n, starts[2], 0xFF);
	rel[2][1] = (uint32_t)(n - starts[2]);
	for (uint32_t i = 0; i < b->num_globals; i++)
		for (int k = 0; k < 3; k++)
			append32(&out, &n, b->globals[i][k]);
	pad(&out, &n, starts[2], 0xFF);
	rel[2][2] = (uint32_t)(n - starts[2]);
	for (uint32_t i = 0; i < b->num_virtuals; i++)
		for (int k = 0; k < 3; k++)
			append32(&out, &n, b->virtuals[i][k]);
	pad(&out, &n, starts[2], 0xFF);
	for (int k = 3; k < 6; k++)
		rel[2][k] = (uint32_t)(n - starts[2]);
	for (int i = 0; i < 3; i++) {
		uint8_t *h = out + sh_at + (size_t)i * sh_size;
		memset(h, 0, 20);
		memcpy(h, tags[i], strlen(tags[i]));
		h[19] = 0xFF;
		hks_put_le32(h + 20, starts[i]);
		for (int k = 0; k < 6; k++)
			hks_put_le32(h + 24 + 4 * k, rel[i][k]);
		if (v11)
			memset(h + 48, 0xFF, 16);
	}
	free(b);
	*out_size = n;
	return out;
}

/* ---- tests ---------------------------------------------------------------- */

static void check_model(const hks_file *file, const flavour *f)
{
	assert_int_equal(file->container, HKS_CONTAINER_PACKFILE);
	assert_string_equal(file->sdk, f->version);
	assert_int_equal(file->pointer_size, f->P);
	assert_int_equal(file->file_version, f->fv);
	assert_int_equal(file->num_animations, 1);
	const hks_animation *a = &file->animations[0];
	assert_int_equal(a->kind, HKS_ANIMATION_SPLINE);
	assert_string_equal(a->class_name, "hkaSplineCompressedAnimation");
	assert_int_equal(a->type, 3);
	assert_true(a->duration == 1.0f);
	assert_int_equal(a->number_of_transform_tracks, 2);
	assert_int_equal(a->reference_frame, -1);
	assert_int_equal(a->num_annotation_tracks, 2);
	assert_string_equal(a->annotation_track_names[0], "Root");
	assert_string_equal(a->annotation_track_names[1], "Spine");
	assert_int_equal(a->spline.num_frames, 31);
	assert_int_equal(a->spline.num_blocks, 1);
	assert_int_equal(a->spline.max_frames_per_block, 256);
	assert_int_equal(a->spline.mask_and_quantization_size, 8);
	assert_int_equal(hks_f32_bits(a->spline.block_duration), hks_f32_bits(8.5f));
	assert_int_equal(hks_f32_bits(a->spline.block_inverse_duration), hks_f32_bits(1.0f / 8.5f));
	assert_int_equal(hks_f32_bits(a->spline.frame_duration), hks_f32_bits(1.0f / 30.0f));
	assert_int_equal(a->spline.num_block_offsets, 1);
	assert_int_equal(a->spline.block_offsets[0], 0);
	assert_int_equal(a->spline.num_float_block_offsets, 1);
	assert_int_equal(a->spline.float_block_offsets[0], 32);
	assert_int_equal(a->spline.num_transform_offsets, 0);
	assert_int_equal(a->spline.num_float_offsets, 0);
	assert_int_equal(a->spline.data_size, sizeof(spline_bytes));
	assert_memory_equal(a->spline.data, spline_bytes, sizeof(spline_bytes));
	assert_int_equal(a->spline.endian, 0);
	assert_true(a->object_offset > 0 && a->data_offset > a->object_offset);
	assert_int_equal(file->num_bindings, 1);
	const hks_binding *b = &file->bindings[0];
	assert_string_equal(b->original_skeleton_name, "Master");
	assert_int_equal(b->animation, 0);
	assert_int_equal(b->num_transform_track_to_bone_indices, 2);
	assert_int_equal(b->transform_track_to_bone_indices[1], 5);
	assert_int_equal(b->blend_hint, 2);
	assert_int_equal(file->num_skeletons, 0);
}

static void test_parse_flavours(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(flavours) / sizeof(flavours[0]); i++) {
		size_t n;
		uint32_t so;
		uint8_t *bytes = build(&flavours[i], &n, &so);
		hks_file *file = NULL;
		hks_error e;
		hks_result r = hks_file_read(bytes, n, NULL, &file, &e);
		if (r != HKS_OK)
			fail_msg("%s: %s", flavours[i].name, e.message);
		check_model(file, &flavours[i]);
		/* the data offset is a file offset: the bytes are there */
		assert_memory_equal(bytes + file->animations[0].data_offset, spline_bytes, sizeof(spline_bytes));
		hks_file_free(file);
		free(bytes);
	}
}

static void test_truncation(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(flavours) / sizeof(flavours[0]); i++) {
		size_t n;
		uint32_t so;
		uint8_t *bytes = build(&flavours[i], &n, &so);
		for (size_t len = 0; len < n; len++) {
			uint8_t *copy = (uint8_t *)malloc(len ? len : 1);
			memcpy(copy, bytes, len);
			hks_file *file = NULL;
			hks_error e;
			hks_result r = hks_file_read(copy, len, NULL, &file, &e);
			if (r == HKS_OK)
				fail_msg("%s: truncated to %zu of %zu bytes and still parsed", flavours[i].name, len, n);
			assert_null(file);
			assert_true(e.message[0] != 0);
			free(copy);
		}
		free(bytes);
	}
}

/* Locate the data section and its tables in a built file. */
static uint32_t data_start(const uint8_t *bytes, const flavour *f, uint32_t field)
{
	uint32_t hdr = f->fv >= 11 ? 0x50 : 0x40, sh = f->fv >= 11 ? 64 : 48;
	const uint8_t *h = bytes + hdr + 2 * sh;
	return hks_le32(h + 20) + (field ? hks_le32(h + 20 + 4 * field) : 0);
}

static hks_result read_corrupted(const uint8_t *bytes, size_t n, uint32_t at, uint32_t value, hks_error *e)
{
	uint8_t *copy = (uint8_t *)malloc(n);
	memcpy(copy, bytes, n);
	hks_put_le32(copy + at, value);
	hks_file *file = NULL;
	hks_result r = hks_file_read(copy, n, NULL, &file, e);
	hks_file_free(file);
	free(copy);
	return r;
}

static void test_corrupted_fixups(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(flavours) / sizeof(flavours[0]); i++) {
		const flavour *f = &flavours[i];
		size_t n;
		uint32_t so;
		uint8_t *bytes = build(f, &n, &so);
		hks_error e;
		uint32_t local = data_start(bytes, f, 1), global = data_start(bytes, f, 2), virt = data_start(bytes, f, 3);
		uint32_t data = data_start(bytes, f, 0);
		/* local fixup target past the data part */
		assert_int_equal(read_corrupted(bytes, n, local + 4, 0x7FFFFFF0u, &e), HKS_E_MALFORMED);
		assert_true(e.offset >= data);
		/* local fixup source past the data part */
		assert_int_equal(read_corrupted(bytes, n, local, local - data, &e), HKS_E_MALFORMED);
		/* global fixup into a section that does not exist */
		assert_int_equal(read_corrupted(bytes, n, global + 4, 7, &e), HKS_E_MALFORMED);
		/* global fixup to where no object starts */
		assert_int_equal(read_corrupted(bytes, n, global + 8, 4, &e), HKS_E_MALFORMED);
		/* class name offset outside __classnames__ */
		assert_int_equal(read_corrupted(bytes, n, virt + 8, 0x10000, &e), HKS_E_MALFORMED);
		/* object offset outside the data part */
		assert_int_equal(read_corrupted(bytes, n, virt, 0x10000, &e), HKS_E_MALFORMED);
		/* an array that claims more elements than the section holds */
		assert_int_equal(read_corrupted(bytes, n, data + so + f->s_block_offsets + 4 * (f->P + 8) + f->P, 0x7FFFFFFF, &e),
		                 HKS_E_MALFORMED);
		assert_string_equal(e.member, "data");
		/* a non-empty array without a local fixup: turn transformOffsets' size to 3 */
		assert_int_equal(read_corrupted(bytes, n, data + so + f->s_block_offsets + 2 * (f->P + 8) + f->P, 3, &e),
		                 HKS_E_MALFORMED);
		/* fixup tables out of order in the section header */
		uint32_t sh = (f->fv >= 11 ? 0x50 : 0x40) + 2 * (f->fv >= 11 ? 64 : 48);
		assert_int_equal(read_corrupted(bytes, n, sh + 28, 0, &e), HKS_E_MALFORMED);
		/* every single byte flipped: never a crash, either parses or fails cleanly */
		for (size_t k = 0; k < n; k++) {
			uint8_t *copy = (uint8_t *)malloc(n);
			memcpy(copy, bytes, n);
			copy[k] ^= 0xA5;
			hks_file *file = NULL;
			hks_result r = hks_file_read(copy, n, NULL, &file, &e);
			assert_true(r == HKS_OK ? file != NULL : file == NULL);
			hks_file_free(file);
			free(copy);
		}
		free(bytes);
	}
}

static void test_writer_identity(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(flavours) / sizeof(flavours[0]); i++) {
		size_t n;
		uint32_t so;
		uint8_t *bytes = build(&flavours[i], &n, &so);
		hks_file *file = NULL;
		hks_error e;
		assert_int_equal(hks_file_read(bytes, n, NULL, &file, &e), HKS_OK);
		uint8_t *out = NULL;
		size_t out_size = 0;
		assert_int_equal(hks_file_write(file, NULL, &out, &out_size, &e), HKS_OK);
		assert_int_equal(out_size, n);
		assert_memory_equal(out, bytes, n);
		hks_buffer_free(NULL, out, out_size);
		hks_file_free(file);
		free(bytes);
	}
}

static void test_writer_changed_sizes(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(flavours) / sizeof(flavours[0]); i++) {
		const flavour *f = &flavours[i];
		size_t n;
		uint32_t so;
		uint8_t *bytes = build(f, &n, &so);
		hks_file *file = NULL;
		hks_error e;
		assert_int_equal(hks_file_read(bytes, n, NULL, &file, &e), HKS_OK);
		/* larger data, a new floatOffsets array, an emptied floatBlockOffsets, new scalars */
		uint8_t data[77];
		for (size_t k = 0; k < sizeof(data); k++)
			data[k] = (uint8_t)(200 - k);
		const uint32_t float_offsets[3] = {4, 8, 12};
		const uint32_t block_offsets[2] = {0, 48};
		hks_spline_header h = file->animations[0].spline;
		h.data = data;
		h.data_size = sizeof(data);
		h.float_offsets = float_offsets;
		h.num_float_offsets = 3;
		h.float_block_offsets = NULL;
		h.num_float_block_offsets = 0;
		h.block_offsets = block_offsets;
		h.num_block_offsets = 2;
		h.num_blocks = 2;
		h.num_frames = 300;
		h.block_duration = 2.5f;
		assert_int_equal(hks_file_replace_spline(file, 0, 9.75f, &h, &e), HKS_OK);
		uint8_t *out = NULL;
		size_t out_size = 0;
		if (hks_file_write(file, NULL, &out, &out_size, &e) != HKS_OK)
			fail_msg("%s: %s", f->name, e.message);
		hks_file *back = NULL;
		if (hks_file_read(out, out_size, NULL, &back, &e) != HKS_OK)
			fail_msg("%s: reading the rewritten file: %s", f->name, e.message);
		const hks_animation *a = &back->animations[0];
		assert_int_equal(a->kind, HKS_ANIMATION_SPLINE);
		assert_true(a->duration == 9.75f);
		assert_int_equal(a->spline.num_frames, 300);
		assert_int_equal(a->spline.num_blocks, 2);
		assert_true(a->spline.block_duration == 2.5f);
		assert_int_equal(a->spline.data_size, sizeof(data));
		assert_memory_equal(a->spline.data, data, sizeof(data));
		assert_int_equal(a->spline.num_float_offsets, 3);
		assert_memory_equal(a->spline.float_offsets, float_offsets, sizeof(float_offsets));
		assert_int_equal(a->spline.num_float_block_offsets, 0);
		assert_int_equal(a->spline.num_block_offsets, 2);
		assert_memory_equal(a->spline.block_offsets, block_offsets, sizeof(block_offsets));
		/* arrays and objects stay 16-aligned in the data section (§5.5) */
		assert_int_equal((a->data_offset - data_start(out, f, 0)) % 16, 0);
		assert_int_equal((a->object_offset - data_start(out, f, 0)) % 16, 0);
		/* everything else survives */
		assert_int_equal(a->num_annotation_tracks, 2);
		assert_string_equal(a->annotation_track_names[1], "Spine");
		assert_int_equal(back->num_bindings, 1);
		assert_int_equal(back->bindings[0].animation, 0);
		assert_string_equal(back->bindings[0].original_skeleton_name, "Master");
		assert_int_equal(back->bindings[0].transform_track_to_bone_indices[1], 5);
		assert_int_equal(back->bindings[0].blend_hint, 2);
		/* writing the rewritten file again is the identity */
		uint8_t *again = NULL;
		size_t again_size = 0;
		assert_int_equal(hks_file_write(back, NULL, &again, &again_size, &e), HKS_OK);
		assert_int_equal(again_size, out_size);
		assert_memory_equal(again, out, out_size);
		hks_buffer_free(NULL, again, again_size);
		hks_file_free(back);
		hks_buffer_free(NULL, out, out_size);
		hks_file_free(file);
		free(bytes);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_flavours),      cmocka_unit_test(test_truncation),
	    cmocka_unit_test(test_corrupted_fixups),    cmocka_unit_test(test_writer_identity),
	    cmocka_unit_test(test_writer_changed_sizes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
