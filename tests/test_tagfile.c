/*
 * Tagfile reader and writer on tagfiles built here, byte by byte, by a small
 * builder (sections, varints, a minimal type table, items and patches laid
 * out in the order of CONTAINERS.md §4.2). No game data.
 */
#include "hks_test.h"
#include "tagfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a growable byte buffer ---- */

typedef struct buf {
	uint8_t *p;
	size_t n, cap;
} buf;

static void put(buf *b, const void *src, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		assert_non_null(b->p);
	}
	if (n)
		memcpy(b->p + b->n, src, n);
	b->n += n;
}
static void put8(buf *b, uint8_t v) { put(b, &v, 1); }
static void put32(buf *b, uint32_t v)
{
	uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
	put(b, x, 4);
}
static void zeros(buf *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put8(b, 0);
}

/* Varint, written independently of the library (CONTAINERS.md §2.4), shortest form. */
static void varint(buf *b, uint64_t v)
{
	if (v < 0x80) {
		put8(b, (uint8_t)v);
	} else if (v < 0x4000) {
		put8(b, (uint8_t)(0x80 | (v >> 8)));
		put8(b, (uint8_t)v);
	} else if (v < 0x200000) {
		put8(b, (uint8_t)(0xC0 | (v >> 16)));
		put8(b, (uint8_t)(v >> 8));
		put8(b, (uint8_t)v);
	} else {
		fail_msg("test builder: varint too large");
	}
}

/* A section: header (big-endian size with flags, tag), body padded to 4. */
static void section(buf *out, const char *tag, const buf *body, int leaf)
{
	size_t padded = (body->n + 3) & ~(size_t)3;
	uint32_t size = (uint32_t)(8 + padded) | (leaf ? 0x40000000u : 0);
	uint8_t h[8] = {(uint8_t)(size >> 24), (uint8_t)(size >> 16), (uint8_t)(size >> 8), (uint8_t)size};
	memcpy(h + 4, tag, 4);
	put(out, h, 8);
	put(out, body->p, body->n);
	zeros(out, padded - body->n);
}

/* ---- the synthetic type table ---- */

enum {
	T_ROOT = 1, T_ARR_NV, T_NV, T_STRPTR, T_REFVARIANT, T_REFOBJ, T_CONTAINER, T_ARR_PTR, T_PTR, T_ANIM,
	T_SPLINE, T_INT, T_FLOAT, T_ARR_U32, T_HKUINT32, T_UINT, T_ARR_U8, T_U8, T_CHAR, T_BINDING, T_ARR_I16,
	T_I16, T_I8, T_TRACK, T_ARR_TRACK, T_U16, T_COUNT
};

typedef struct tmember {
	const char *name;
	uint32_t flags, offset, type;
} tmember;

typedef struct ttype {
	const char *name;
	uint32_t tparam;   /* "tT" template value, 0 = none */
	uint32_t parent, opt, format, subtype, size, align, flags;
	tmember m[14];
	uint32_t nm;
} ttype;

static const ttype types[T_COUNT] = {
	[T_ROOT] = {"hkRootLevelContainer", 0, 0, 0x29, 7, 0, 16, 8, 0, {{"namedVariants", 0x20, 0, T_ARR_NV}}, 1},
	[T_ARR_NV] = {"hkArray", T_NV, 0, 0x0B, 8, T_NV, 16, 8, 0, {{0}}, 0},
	[T_NV] = {"hkRootLevelContainer::NamedVariant", 0, 0, 0x29, 7, 0, 24, 8, 0,
	          {{"name", 0x24, 0, T_STRPTR}, {"className", 0x24, 8, T_STRPTR}, {"variant", 0x24, 16, T_REFVARIANT}}, 3},
	[T_STRPTR] = {"hkStringPtr", 0, 0, 0x09, 0x83, 0, 8, 8, 0, {{0}}, 0},
	[T_REFVARIANT] = {"hkRefVariant", 0, 0, 0x0B, 6, T_REFOBJ, 8, 8, 0, {{0}}, 0},
	[T_REFOBJ] = {"hkReferencedObject", 0, 0, 0x29, 7, 0, 24, 8, 0,
	              {{"memSizeAndFlags", 0x25, 16, T_U16}, {"refCount", 0x25, 18, T_U16}}, 2},
	[T_CONTAINER] = {"hkaAnimationContainer", 0, T_REFOBJ, 0x29, 7, 0, 104, 8, 0,
	                 {{"skeletons", 0x20, 24, T_ARR_PTR}, {"animations", 0x20, 40, T_ARR_PTR},
	                  {"bindings", 0x20, 56, T_ARR_PTR}}, 3},
	[T_ARR_PTR] = {"hkArray", T_PTR, 0, 0x0B, 8, T_PTR, 16, 8, 0, {{0}}, 0},
	[T_PTR] = {"hkRefPtr", T_REFOBJ, 0, 0x0B, 6, T_REFOBJ, 8, 8, 0, {{0}}, 0},
	[T_ANIM] = {"hkaAnimation", 0, T_REFOBJ, 0x39, 7, 0, 64, 8, 3,
	            {{"type", 0x20, 24, T_INT}, {"duration", 0x20, 28, T_FLOAT}, {"numberOfTransformTracks", 0x20, 32, T_INT},
	             {"numberOfFloatTracks", 0x20, 36, T_INT}, {"extractedMotion", 0x20, 40, T_PTR},
	             {"annotationTracks", 0x20, 48, T_ARR_TRACK}}, 6},
	[T_SPLINE] = {"hkaSplineCompressedAnimation", 0, T_ANIM, 0x29, 7, 0, 184, 8, 0,
	              {{"numFrames", 0x22, 64, T_INT}, {"numBlocks", 0x22, 68, T_INT},
	               {"maxFramesPerBlock", 0x22, 72, T_INT}, {"maskAndQuantizationSize", 0x22, 76, T_INT},
	               {"blockDuration", 0x22, 80, T_FLOAT}, {"blockInverseDuration", 0x22, 84, T_FLOAT},
	               {"frameDuration", 0x22, 88, T_FLOAT}, {"blockOffsets", 0x22, 96, T_ARR_U32},
	               {"floatBlockOffsets", 0x22, 112, T_ARR_U32}, {"transformOffsets", 0x22, 128, T_ARR_U32},
	               {"floatOffsets", 0x22, 144, T_ARR_U32}, {"data", 0x22, 160, T_ARR_U8},
	               {"endian", 0x22, 176, T_INT}}, 13},
	[T_INT] = {"int", 0, 0, 0x09, 0x8204, 0, 4, 4, 0, {{0}}, 0},
	[T_FLOAT] = {"float", 0, 0, 0x09, 0x174605, 0, 4, 4, 0, {{0}}, 0},
	[T_ARR_U32] = {"hkArray", T_HKUINT32, 0, 0x0B, 8, T_HKUINT32, 16, 8, 0, {{0}}, 0},
	/* a typedef: no format of its own (§2.7) */
	[T_HKUINT32] = {"hkUint32", 0, T_UINT, 0x00, 0, 0, 0, 0, 0, {{0}}, 0},
	[T_UINT] = {"unsigned int", 0, 0, 0x09, 0x8004, 0, 4, 4, 0, {{0}}, 0},
	[T_ARR_U8] = {"hkArray", T_U8, 0, 0x0B, 8, T_U8, 16, 8, 0, {{0}}, 0},
	[T_U8] = {"hkUint8", 0, 0, 0x09, 0x2004, 0, 1, 1, 0, {{0}}, 0},
	[T_CHAR] = {"char", 0, 0, 0x09, 0x2004, 0, 1, 1, 0, {{0}}, 0},
	[T_BINDING] = {"hkaAnimationBinding", 0, T_REFOBJ, 0x29, 7, 0, 96, 8, 0,
	               {{"originalSkeletonName", 0x20, 24, T_STRPTR}, {"animation", 0x20, 32, T_PTR},
	                {"transformTrackToBoneIndices", 0x20, 40, T_ARR_I16}, {"blendHint", 0x20, 88, T_I8}}, 4},
	[T_ARR_I16] = {"hkArray", T_I16, 0, 0x0B, 8, T_I16, 16, 8, 0, {{0}}, 0},
	[T_I16] = {"hkInt16", 0, 0, 0x09, 0x4204, 0, 2, 2, 0, {{0}}, 0},
	[T_I8] = {"hkInt8", 0, 0, 0x09, 0x2204, 0, 1, 1, 0, {{0}}, 0},
	[T_TRACK] = {"hkaAnnotationTrack", 0, 0, 0x29, 7, 0, 24, 8, 0, {{"trackName", 0x20, 0, T_STRPTR}}, 1},
	[T_ARR_TRACK] = {"hkArray", T_TRACK, 0, 0x0B, 8, T_TRACK, 16, 8, 0, {{0}}, 0},
	[T_U16] = {"hkUint16", 0, 0, 0x09, 0x4004, 0, 2, 2, 0, {{0}}, 0},
};

/* Flags OR-ed into a member's flags and a shift added to its offset in the
 * next TYPE sections built (a test that needs a hostile variant of the table
 * sets them and clears them after). */
static uint32_t extra_member_flags[T_COUNT][14];
static int32_t member_offset_shift[T_COUNT][14];

/* A string table section body: NUL-separated; returns the index of `s`. */
static uint32_t string_index(const char **list, uint32_t *n, const char *s)
{
	for (uint32_t i = 0; i < *n; i++)
		if (!strcmp(list[i], s))
			return i;
	list[*n] = s;
	return (*n)++;
}

/* The TYPE container: TPTR, TSTR, TNA1, FSTR, TBDY (entries in reverse index
 * order: bodies are not in index order in game files), THSH, TPAD. */
static void type_section_ext(buf *out, int old_names, int extra_type)
{
	const char *tstr[64], *fstr[64];
	uint32_t ntstr = 0, nfstr = 0;
	buf tptr = {0}, ts = {0}, tna = {0}, fs = {0}, tbd = {0}, thsh = {0}, tpad = {0};
	zeros(&tptr, 8 * (T_COUNT + (extra_type ? 1 : 0)));
	varint(&tna, T_COUNT + (extra_type ? 1 : 0));
	uint32_t tparam_name = string_index(tstr, &ntstr, "tT");
	for (uint32_t i = 1; i < T_COUNT; i++) {
		varint(&tna, string_index(tstr, &ntstr, types[i].name));
		varint(&tna, types[i].tparam ? 1 : 0);
		if (types[i].tparam) {
			varint(&tna, tparam_name);
			varint(&tna, types[i].tparam);
		}
	}
	if (extra_type) { /* one more type appended, as newer compendiums do (docs/TAGFILE.md) */
		varint(&tna, string_index(tstr, &ntstr, "hkExtraAppendedType"));
		varint(&tna, 0);
	}
	for (uint32_t i = T_COUNT - 1; i >= 1; i--) {
		const ttype *t = &types[i];
		varint(&tbd, i);
		varint(&tbd, t->parent);
		varint(&tbd, t->opt);
		if (t->opt & 0x01)
			varint(&tbd, t->format);
		if (t->opt & 0x02)
			varint(&tbd, t->subtype);
		if (t->opt & 0x08) {
			varint(&tbd, t->size);
			varint(&tbd, t->align);
		}
		if (t->opt & 0x10)
			varint(&tbd, t->flags);
		if (t->opt & 0x20) {
			varint(&tbd, t->nm);
			for (uint32_t k = 0; k < t->nm; k++) {
				varint(&tbd, string_index(fstr, &nfstr, t->m[k].name));
				varint(&tbd, t->m[k].flags | extra_member_flags[i][k]);
				varint(&tbd, (uint32_t)((int32_t)t->m[k].offset + member_offset_shift[i][k]));
				varint(&tbd, t->m[k].type);
			}
		}
	}
	for (uint32_t i = 0; i < ntstr; i++)
		put(&ts, tstr[i], strlen(tstr[i]) + 1);
	for (uint32_t i = 0; i < nfstr; i++)
		put(&fs, fstr[i], strlen(fstr[i]) + 1);
	varint(&thsh, 1);
	varint(&thsh, T_SPLINE);
	put32(&thsh, 0x12345678u);
	buf type = {0};
	section(&type, "TPTR", &tptr, 1);
	section(&type, "TSTR", &ts, 1);
	section(&type, old_names ? "TNAM" : "TNA1", &tna, 1);
	section(&type, "FSTR", &fs, 1);
	section(&type, old_names ? "TBOD" : "TBDY", &tbd, 1);
	section(&type, "THSH", &thsh, 1);
	section(&type, "TPAD", &tpad, 1);
	section(out, "TYPE", &type, 0);
	free(tptr.p), free(ts.p), free(tna.p), free(fs.p), free(tbd.p), free(thsh.p), free(type.p);
}

static void type_section(buf *out, int old_names)
{
	type_section_ext(out, old_names, 0);
}

/* ---- DATA, ITEM and PTCH ---- */

typedef struct item_rec {
	uint32_t tk, off, count;
} item_rec;

typedef struct data_builder {
	buf data;
	item_rec items[32];
	uint32_t patches[64][2]; /* type, offset */
	uint32_t npatch;
} data_builder;

/* Place item `number` at the next position aligned to `align`; returns its offset. */
static uint32_t place(data_builder *d, uint32_t number, uint32_t kind, uint32_t type, uint32_t count,
                      uint32_t elem_size, uint32_t align)
{
	while (d->data.n % align)
		put8(&d->data, 0);
	uint32_t off = (uint32_t)d->data.n;
	zeros(&d->data, (size_t)count * elem_size);
	d->items[number].tk = type | (kind << 28);
	d->items[number].off = off;
	d->items[number].count = count;
	return off;
}

static void ptr(data_builder *d, uint32_t at, uint32_t item, uint32_t decl_type)
{
	hks_put_le32(d->data.p + at, item);
	d->patches[d->npatch][0] = decl_type;
	d->patches[d->npatch][1] = at;
	d->npatch++;
}

static void string_item(data_builder *d, uint32_t number, const char *s)
{
	uint32_t n = (uint32_t)strlen(s) + 1;
	uint32_t off = place(d, number, 2, T_CHAR, n, 1, 2);
	memcpy(d->data.p + off, s, n);
}

static void f32_at(data_builder *d, uint32_t at, float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	hks_put_le32(d->data.p + at, u);
}

static int patch_cmp(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

#define SPLINE_DATA_SIZE 24
#define NUM_ITEMS 18

/*
 * The synthetic file. Items are placed in the order of the layout algorithm
 * (§4.2), so that the writer must reproduce the file byte for byte:
 *   1 root, 2 namedVariants, 4/5 its strings, 3 container, 6 animations,
 *   7 bindings, 8 spline, 10 annotationTracks, 11 blockOffsets,
 *   12 floatBlockOffsets, 13 data, 14/15 track names, 9 binding,
 *   16 transformTrackToBoneIndices, 17 originalSkeletonName.
 * `mode`: 0 inline TYPE (TNA1/TBDY), 1 inline TYPE (TNAM/TBOD), 2 TCRF.
 */
static uint8_t *build_file(int mode, const uint8_t id[8], size_t *size)
{
	data_builder d;
	memset(&d, 0, sizeof(d));
	uint32_t o;
	o = place(&d, 1, 1, T_ROOT, 1, 16, 8);
	ptr(&d, o + 0, 2, T_ARR_NV);
	o = place(&d, 2, 2, T_NV, 1, 24, 16);
	ptr(&d, o + 0, 4, T_STRPTR);
	ptr(&d, o + 8, 5, T_STRPTR);
	ptr(&d, o + 16, 3, T_REFVARIANT);
	string_item(&d, 4, "Animation Container");
	string_item(&d, 5, "hkaAnimationContainer");
	o = place(&d, 3, 1, T_CONTAINER, 1, 104, 8);
	ptr(&d, o + 40, 6, T_ARR_PTR);
	ptr(&d, o + 56, 7, T_ARR_PTR);
	o = place(&d, 6, 2, T_PTR, 1, 8, 16);
	ptr(&d, o, 8, T_PTR);
	o = place(&d, 7, 2, T_PTR, 1, 8, 16);
	ptr(&d, o, 9, T_PTR);
	uint32_t s = place(&d, 8, 1, T_SPLINE, 1, 184, 8);
	hks_put_le32(d.data.p + s + 16, 0xABCD); /* memSizeAndFlags: not serialized, yet kept as is */
	hks_put_le32(d.data.p + s + 24, 3);
	f32_at(&d, s + 28, 1.0f);
	hks_put_le32(d.data.p + s + 32, 2);
	ptr(&d, s + 48, 10, T_ARR_TRACK);
	hks_put_le32(d.data.p + s + 64, 31);
	hks_put_le32(d.data.p + s + 68, 1);
	hks_put_le32(d.data.p + s + 72, 256);
	hks_put_le32(d.data.p + s + 76, 8);
	f32_at(&d, s + 80, 8.5f);
	f32_at(&d, s + 84, 1.0f / 8.5f);
	f32_at(&d, s + 88, 1.0f / 30.0f);
	ptr(&d, s + 96, 11, T_ARR_U32);
	ptr(&d, s + 112, 12, T_ARR_U32);
	ptr(&d, s + 160, 13, T_ARR_U8);
	o = place(&d, 10, 2, T_TRACK, 2, 24, 16);
	ptr(&d, o, 14, T_STRPTR);
	ptr(&d, o + 24, 15, T_STRPTR);
	o = place(&d, 11, 2, T_HKUINT32, 1, 4, 16);
	hks_put_le32(d.data.p + o, 0);
	o = place(&d, 12, 2, T_HKUINT32, 1, 4, 16);
	hks_put_le32(d.data.p + o, 16);
	o = place(&d, 13, 2, T_U8, SPLINE_DATA_SIZE, 1, 16);
	for (uint32_t i = 0; i < SPLINE_DATA_SIZE; i++)
		d.data.p[o + i] = (uint8_t)(i * 7 + 1);
	string_item(&d, 14, "root");
	string_item(&d, 15, "hip");
	o = place(&d, 9, 1, T_BINDING, 1, 96, 8);
	ptr(&d, o + 24, 17, T_STRPTR);
	ptr(&d, o + 32, 8, T_PTR);
	ptr(&d, o + 40, 16, T_ARR_I16);
	d.data.p[o + 88] = 2; /* blendHint additive */
	o = place(&d, 16, 2, T_I16, 2, 2, 16);
	hks_put_le16(d.data.p + o, 0);
	hks_put_le16(d.data.p + o + 2, 0xFFFF);
	string_item(&d, 17, "Master");
	while (d.data.n % 16)
		put8(&d.data, 0);

	buf item = {0}, ptch = {0}, indx = {0}, body = {0}, sdkv = {0}, out = {0};
	for (uint32_t i = 0; i < NUM_ITEMS; i++) {
		put32(&item, d.items[i].tk);
		put32(&item, d.items[i].off);
		put32(&item, d.items[i].count);
	}
	qsort(d.patches, d.npatch, sizeof(d.patches[0]), patch_cmp);
	for (uint32_t i = 0; i < d.npatch;) {
		uint32_t j = i;
		while (j < d.npatch && d.patches[j][0] == d.patches[i][0])
			j++;
		put32(&ptch, d.patches[i][0]);
		put32(&ptch, j - i);
		for (; i < j; i++)
			put32(&ptch, d.patches[i][1]);
	}
	section(&indx, "ITEM", &item, 1);
	section(&indx, "PTCH", &ptch, 1);
	put(&sdkv, mode == 1 ? "20150100" : "20180100", 8);
	section(&body, "SDKV", &sdkv, 1);
	section(&body, "DATA", &d.data, 1);
	if (mode == 2) {
		buf tcrf = {0};
		put(&tcrf, id, 8);
		zeros(&tcrf, 16);
		section(&body, "TCRF", &tcrf, 1);
		free(tcrf.p);
	} else {
		type_section(&body, mode == 1);
	}
	section(&body, "INDX", &indx, 0);
	section(&out, "TAG0", &body, 0);
	free(item.p), free(ptch.p), free(indx.p), free(body.p), free(sdkv.p), free(d.data.p);
	*size = out.n;
	return out.p;
}

/* A compendium TCM0 { TCID (ids), TYPE }. */
static uint8_t *build_compendium_ext(const uint8_t *ids, uint32_t nids, int old_names, int extra_type,
                                     size_t *size)
{
	buf body = {0}, tcid = {0}, out = {0};
	put(&tcid, ids, 8 * (size_t)nids);
	section(&body, "TCID", &tcid, 1);
	type_section_ext(&body, old_names, extra_type);
	section(&out, "TCM0", &body, 0);
	free(body.p), free(tcid.p);
	*size = out.n;
	return out.p;
}

static uint8_t *build_compendium(const uint8_t *ids, uint32_t nids, int old_names, size_t *size)
{
	return build_compendium_ext(ids, nids, old_names, 0, size);
}

static const uint8_t test_id[8] = {0xc7, 0x5d, 0x18, 0x38, 0x51, 0xed, 0x1c, 0x52};

/* ---- tests ---- */

static void test_varint_forms(void **state)
{
	(void)state;
	/* one sample of each of the 8 forms (§2.4) */
	static const struct {
		uint8_t bytes[9];
		size_t n;
		uint64_t value;
	} forms[] = {
		{{0x7F}, 1, 0x7F},
		{{0xBF, 0xFF}, 2, 0x3FFF},
		{{0xC1, 0x02, 0x03}, 3, 0x010203},
		{{0xE5, 0x01, 0x02, 0x03}, 4, 0x5010203},
		{{0xED, 0x01, 0x02, 0x03, 0x04}, 5, UINT64_C(0x501020304)},
		{{0xF3, 1, 2, 3, 4, 5, 6, 7}, 8, UINT64_C(0x301020304050607)},
		{{0xF8, 0x81, 2, 3, 4, 5}, 6, UINT64_C(0x8102030405)},
		{{0xF9, 0xFF, 1, 2, 3, 4, 5, 6, 7}, 9, UINT64_C(0xFF01020304050607)},
	};
	hks_error e;
	hks_ctx ctx;
	hks_ctx_init(&ctx, NULL, 0, &e);
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		hks_cursor c = hks_cursor_make(&ctx, forms[i].bytes, forms[i].n, 0);
		uint64_t v = 0;
		assert_int_equal(hks_tag_read_varint(&c, &v, "v"), HKS_OK);
		assert_true(v == forms[i].value);
		assert_int_equal(c.pos, forms[i].n);
		/* truncated by one byte: a clean error */
		hks_error_clear(&e);
		c = hks_cursor_make(&ctx, forms[i].bytes, forms[i].n - 1, 0);
		assert_int_equal(hks_tag_read_varint(&c, &v, "v"), HKS_E_TRUNCATED);
		hks_error_clear(&e);
	}
	/* the writer picks the shortest form; values round-trip */
	static const struct {
		uint64_t v;
		size_t n;
	} shortest[] = {{0, 1}, {127, 1}, {128, 2}, {0x3FFF, 2}, {0x4000, 3}, {0x1FFFFF, 3}, {0x200000, 4},
	                {0x7FFFFFF, 4}, {0x8000000, 5}, {UINT64_C(0x7FFFFFFFF), 5}, {UINT64_C(0x800000000), 6},
	                {UINT64_C(0xFFFFFFFFFF), 6}, {UINT64_C(0x10000000000), 8}, {UINT64_C(0x7FFFFFFFFFFFFFF), 8},
	                {UINT64_C(0x800000000000000), 9}, {UINT64_MAX, 9}};
	for (size_t i = 0; i < sizeof(shortest) / sizeof(shortest[0]); i++) {
		uint8_t b[9];
		size_t n = hks_tag_write_varint(shortest[i].v, b);
		assert_int_equal(n, shortest[i].n);
		hks_cursor c = hks_cursor_make(&ctx, b, n, 0);
		uint64_t v = 0;
		assert_int_equal(hks_tag_read_varint(&c, &v, "v"), HKS_OK);
		assert_true(v == shortest[i].v);
	}
	/* prefixes 0xFA..0xFF are not varints */
	const uint8_t bad[2] = {0xFA, 0};
	hks_cursor c = hks_cursor_make(&ctx, bad, 2, 100);
	uint64_t v;
	assert_int_equal(hks_tag_read_varint(&c, &v, "v"), HKS_E_MALFORMED);
	assert_int_equal(e.offset, 100);
}

static void check_model(const hks_file *f, const char *sdk)
{
	assert_int_equal(f->container, HKS_CONTAINER_TAGFILE);
	assert_string_equal(f->sdk, sdk);
	assert_int_equal(f->pointer_size, 8);
	assert_int_equal(f->num_animations, 1);
	const hks_animation *a = &f->animations[0];
	assert_int_equal(a->kind, HKS_ANIMATION_SPLINE);
	assert_string_equal(a->class_name, "hkaSplineCompressedAnimation");
	assert_int_equal(a->type, 3);
	assert_true(a->duration == 1.0f);
	assert_int_equal(a->number_of_transform_tracks, 2);
	assert_int_equal(a->reference_frame, -1);
	assert_int_equal(a->num_annotation_tracks, 2);
	assert_string_equal(a->annotation_track_names[0], "root");
	assert_string_equal(a->annotation_track_names[1], "hip");
	assert_int_equal(a->spline.num_frames, 31);
	assert_int_equal(a->spline.num_blocks, 1);
	assert_int_equal(a->spline.max_frames_per_block, 256);
	assert_int_equal(a->spline.mask_and_quantization_size, 8);
	assert_true(a->spline.block_duration == 8.5f);
	assert_true(a->spline.frame_duration == 1.0f / 30.0f);
	assert_int_equal(a->spline.num_block_offsets, 1);
	assert_int_equal(a->spline.block_offsets[0], 0);
	assert_int_equal(a->spline.num_float_block_offsets, 1);
	assert_int_equal(a->spline.float_block_offsets[0], 16);
	assert_int_equal(a->spline.num_transform_offsets, 0);
	assert_int_equal(a->spline.data_size, SPLINE_DATA_SIZE);
	assert_int_equal(a->spline.data[5], 36);
	assert_true(a->object_offset > 0 && a->data_offset > a->object_offset);
	assert_int_equal(f->num_bindings, 1);
	assert_string_equal(f->bindings[0].original_skeleton_name, "Master");
	assert_int_equal(f->bindings[0].animation, 0); /* shared with container.animations[0] */
	assert_int_equal(f->bindings[0].num_transform_track_to_bone_indices, 2);
	assert_int_equal(f->bindings[0].transform_track_to_bone_indices[1], -1);
	assert_int_equal(f->bindings[0].blend_hint, 2);
}

static hks_file *read_ok(const uint8_t *p, size_t n, const hks_compendium_set *set)
{
	hks_read_options ro;
	memset(&ro, 0, sizeof(ro));
	ro.compendiums = set;
	hks_file *f = NULL;
	hks_error e;
	hks_result r = hks_file_read(p, n, &ro, &f, &e);
	if (r != HKS_OK)
		fail_msg("read failed: %s", e.message);
	return f;
}

static void write_equals(const hks_file *f, const uint8_t *p, size_t n)
{
	uint8_t *out = NULL;
	size_t on = 0;
	hks_error e;
	if (hks_file_write(f, NULL, &out, &on, &e) != HKS_OK)
		fail_msg("write failed: %s", e.message);
	assert_int_equal(on, n);
	assert_memory_equal(out, p, n);
	hks_buffer_free(NULL, out, on);
}

static void test_parse_and_roundtrip(void **state)
{
	(void)state;
	for (int mode = 0; mode < 2; mode++) {
		size_t n;
		uint8_t *p = build_file(mode, NULL, &n);
		hks_file *f = read_ok(p, n, NULL);
		check_model(f, mode == 1 ? "20150100" : "20180100");
		write_equals(f, p, n);
		hks_file_free(f);
		free(p);
	}
}

static void test_compendium(void **state)
{
	(void)state;
	size_t n;
	uint8_t *p = build_file(2, test_id, &n);
	/* without the compendium: the error names the ID and points at TCRF */
	hks_compendium_set *set = NULL;
	hks_error e;
	assert_int_equal(hks_compendium_set_create(NULL, &set, &e), HKS_OK);
	hks_read_options ro;
	memset(&ro, 0, sizeof(ro));
	ro.compendiums = set;
	hks_file *f = NULL;
	assert_int_equal(hks_file_read(p, n, &ro, &f, &e), HKS_E_COMPENDIUM);
	assert_null(f);
	assert_non_null(strstr(e.message, "c75d183851ed1c52"));
	assert_non_null(strstr(e.message, "searched 0 compendiums"));
	assert_true(e.offset > 0 && e.offset < (int64_t)n && !memcmp(p + e.offset + 4, "TCRF", 4));
	assert_int_equal(hks_file_read(p, n, NULL, &f, &e), HKS_E_COMPENDIUM);

	/* a compendium listing two IDs, one of them ours */
	uint8_t ids[16];
	memcpy(ids, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
	memcpy(ids + 8, test_id, 8);
	size_t cn;
	uint8_t *comp = build_compendium(ids, 2, 0, &cn);
	int conflict = -1;
	assert_int_equal(hks_compendium_set_add(set, comp, cn, "test.compendium", &conflict, &e), HKS_OK);
	assert_int_equal(conflict, 0);
	assert_int_equal(hks_compendium_set_count(set), 1);
	assert_true(hks_compendium_set_contains(set, test_id));
	assert_true(hks_compendium_set_contains(set, ids));
	/* the same IDs with different TYPE bytes: the first stays, conflict reported */
	size_t cn2;
	uint8_t *comp2 = build_compendium(ids, 2, 1, &cn2);
	assert_int_equal(hks_compendium_set_add(set, comp2, cn2, "other.compendium", &conflict, &e), HKS_OK);
	assert_int_equal(conflict, 1);
	assert_int_equal(hks_compendium_set_count(set), 1);
	/* a set that holds the same bytes again: no conflict */
	assert_int_equal(hks_compendium_set_add(set, comp, cn, "copy.compendium", &conflict, &e), HKS_OK);
	assert_int_equal(conflict, 0);
	/* the same table plus an appended type: a conflict, and the extended table
	 * now serves the IDs (the file still reads through it) */
	size_t cn3;
	uint8_t *comp3 = build_compendium_ext(ids, 2, 0, 1, &cn3);
	assert_int_equal(hks_compendium_set_add(set, comp3, cn3, "extended.compendium", &conflict, &e), HKS_OK);
	assert_int_equal(conflict, 1);
	assert_int_equal(hks_compendium_set_count(set), 2);
	free(comp3);
	/* not a compendium */
	assert_int_equal(hks_compendium_set_add(set, p, n, "x.hkx", NULL, &e), HKS_E_MALFORMED);

	f = read_ok(p, n, set);
	assert_true(f->has_compendium_reference);
	assert_memory_equal(f->compendium_id, test_id, 8);
	/* the file does not depend on the set after parsing */
	hks_compendium_set_free(set);
	check_model(f, "20180100");
	write_equals(f, p, n);
	hks_file_free(f);

	/* the compendium itself as a file */
	hks_file *c = read_ok(comp, cn, NULL);
	assert_int_equal(c->container, HKS_CONTAINER_COMPENDIUM);
	assert_int_equal(c->num_compendium_ids, 2);
	assert_memory_equal(c->compendium_ids[1], test_id, 8);
	assert_int_equal(c->num_animations, 0);
	write_equals(c, comp, cn);
	hks_file_free(c);
	free(comp);
	free(comp2);
	free(p);
}

/* Every truncation fails cleanly (run under ASan/UBSan for the "no crash" part). */
static void test_truncated_every_length(void **state)
{
	(void)state;
	size_t n;
	uint8_t *p = build_file(0, NULL, &n);
	for (size_t len = 0; len < n; len++) {
		uint8_t *copy = malloc(len ? len : 1);
		memcpy(copy, p, len);
		hks_file *f = NULL;
		hks_error e;
		hks_result r = hks_file_read(copy, len, NULL, &f, &e);
		if (r == HKS_OK)
			fail_msg("truncated at %zu bytes of %zu parsed", len, n);
		assert_null(f);
		assert_true(e.message[0] != 0);
		free(copy);
	}
	free(p);
}

/* Every single-byte corruption: either an error with a message, or a file the
 * writer handles (OK or a clean error). */
static void test_corrupted_bytes(void **state)
{
	(void)state;
	size_t n;
	uint8_t *p = build_file(0, NULL, &n);
	size_t failures = 0;
	for (size_t i = 0; i < n; i++) {
		for (int k = 0; k < 2; k++) {
			uint8_t *copy = malloc(n);
			memcpy(copy, p, n);
			copy[i] = k ? (uint8_t)(copy[i] ^ 0xFF) : (uint8_t)(copy[i] + 1);
			hks_file *f = NULL;
			hks_error e;
			hks_result r = hks_file_read(copy, n, NULL, &f, &e);
			if (r != HKS_OK) {
				assert_true(e.message[0] != 0);
				failures++;
			} else {
				uint8_t *out = NULL;
				size_t on = 0;
				if (hks_file_write(f, NULL, &out, &on, &e) == HKS_OK)
					hks_buffer_free(NULL, out, on);
				else
					assert_true(e.message[0] != 0);
				hks_file_free(f);
			}
			free(copy);
		}
	}
	assert_true(failures > 0);
	free(p);
}

/* Find the DATA payload offset of a built file (TAG0, SDKV 16 bytes, DATA). */
static size_t data_payload(const uint8_t *p)
{
	assert_memory_equal(p + 24 + 4, "DATA", 4);
	return 32;
}

static size_t item_section(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 4 <= n; i += 4)
		if (!memcmp(p + i, "ITEM", 4))
			return i + 4;
	fail_msg("no ITEM");
	return 0;
}

static void test_bad_indices(void **state)
{
	(void)state;
	size_t n;
	uint8_t *p = build_file(0, NULL, &n);
	size_t data = data_payload(p), items = item_section(p, n);
	hks_error e;
	hks_file *f = NULL;

	/* root.namedVariants -> item 999 */
	uint8_t *c = malloc(n);
	memcpy(c, p, n);
	hks_put_le32(c + data, 999);
	assert_int_equal(hks_file_read(c, n, NULL, &f, &e), HKS_E_MALFORMED);
	assert_non_null(strstr(e.message, "999"));
	assert_int_equal(e.offset, (int64_t)data);

	/* an item whose type index is beyond the table */
	memcpy(c, p, n);
	hks_put_le32(c + items + 12 * 3, 0x10000000u | 500);
	assert_int_equal(hks_file_read(c, n, NULL, &f, &e), HKS_E_MALFORMED);
	assert_int_equal(e.offset, (int64_t)(items + 12 * 3));

	/* an item running past DATA */
	memcpy(c, p, n);
	hks_put_le32(c + items + 12 * 13 + 8, 0x7FFFFFFF);
	assert_int_equal(hks_file_read(c, n, NULL, &f, &e), HKS_E_MALFORMED);

	/* the root (item 1) is not an object */
	memcpy(c, p, n);
	hks_put_le32(c + items + 12 * 1, 0x20000000u | T_ROOT);
	assert_int_equal(hks_file_read(c, n, NULL, &f, &e), HKS_E_MALFORMED);

	/* namedVariants (an array field) refers to an object item */
	memcpy(c, p, n);
	hks_put_le32(c + data, 3);
	assert_int_equal(hks_file_read(c, n, NULL, &f, &e), HKS_E_MALFORMED);
	assert_null(f);
	free(c);
	free(p);
}

static void test_replace_spline_resized(void **state)
{
	(void)state;
	size_t n;
	uint8_t *p = build_file(0, NULL, &n);
	hks_file *f = read_ok(p, n, NULL);
	uint8_t data[100];
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(255 - i);
	const uint32_t blocks[2] = {0, 48}, fblocks[2] = {40, 88}, toffs[3] = {1, 2, 3};
	hks_spline_header h = f->animations[0].spline;
	h.num_frames = 300;
	h.num_blocks = 2;
	h.block_offsets = blocks;
	h.num_block_offsets = 2;
	h.float_block_offsets = fblocks;
	h.num_float_block_offsets = 2;
	h.transform_offsets = toffs; /* empty before: a new array item */
	h.num_transform_offsets = 3;
	h.data = data;
	h.data_size = sizeof(data);
	hks_error e;
	assert_int_equal(hks_file_replace_spline(f, 0, 9.9666f, &h, &e), HKS_OK);
	uint8_t *out = NULL;
	size_t on = 0;
	assert_int_equal(hks_file_write(f, NULL, &out, &on, &e), HKS_OK);
	assert_true(on > n);
	hks_file *g = read_ok(out, on, NULL);
	const hks_animation *a = &g->animations[0];
	assert_true(a->duration == 9.9666f);
	assert_int_equal(a->spline.num_frames, 300);
	assert_int_equal(a->spline.num_blocks, 2);
	assert_int_equal(a->spline.num_block_offsets, 2);
	assert_int_equal(a->spline.block_offsets[1], 48);
	assert_int_equal(a->spline.float_block_offsets[1], 88);
	assert_int_equal(a->spline.num_transform_offsets, 3);
	assert_int_equal(a->spline.transform_offsets[2], 3);
	assert_int_equal(a->spline.data_size, sizeof(data));
	assert_memory_equal(a->spline.data, data, sizeof(data));
	/* the rest of the file is intact */
	assert_int_equal(a->num_annotation_tracks, 2);
	assert_string_equal(a->annotation_track_names[1], "hip");
	assert_int_equal(g->bindings[0].animation, 0);
	assert_string_equal(g->bindings[0].original_skeleton_name, "Master");
	/* written again: a fixed point */
	write_equals(g, out, on);

	/* shrink to nothing: empty arrays become null fields, items disappear */
	hks_spline_header z = g->animations[0].spline;
	z.num_transform_offsets = 0;
	z.num_float_block_offsets = 0;
	z.data_size = 4;
	assert_int_equal(hks_file_replace_spline(g, 0, 1.0f, &z, &e), HKS_OK);
	uint8_t *out2 = NULL;
	size_t on2 = 0;
	assert_int_equal(hks_file_write(g, NULL, &out2, &on2, &e), HKS_OK);
	hks_file *h2 = read_ok(out2, on2, NULL);
	assert_int_equal(h2->animations[0].spline.num_transform_offsets, 0);
	assert_int_equal(h2->animations[0].spline.num_float_block_offsets, 0);
	assert_int_equal(h2->animations[0].spline.data_size, 4);
	assert_memory_equal(h2->animations[0].spline.data, data, 4);
	assert_int_equal(h2->internal->tagfile->num_items, NUM_ITEMS - 1); /* floatBlockOffsets' item is gone */
	hks_file_free(h2);
	hks_buffer_free(NULL, out2, on2);
	hks_file_free(g);
	hks_buffer_free(NULL, out, on);
	hks_file_free(f);
	free(p);
}

/*
 * A member flagged "not serialized" holds no value (CONTAINERS.md §2.7): the
 * writer's layout skips it (§4.2), so an item index found there is neither
 * renumbered nor kept. The reader used to follow it: a fuzzed file whose
 * binding.transformTrackToBoneIndices was flagged so read and wrote, but the
 * written file's stale index named a string ("elements of 1 bytes, expected
 * 2"). Now both sides treat the member as absent.
 */
static void test_nonserialized_member_ignored(void **state)
{
	(void)state;
	extra_member_flags[T_BINDING][2] = 0x01; /* transformTrackToBoneIndices */
	size_t n;
	uint8_t *p = build_file(0, NULL, &n);
	memset(extra_member_flags, 0, sizeof(extra_member_flags));
	hks_file *f = read_ok(p, n, NULL);
	assert_int_equal(f->num_bindings, 1);
	assert_int_equal(f->bindings[0].num_transform_track_to_bone_indices, 0);
	assert_string_equal(f->bindings[0].original_skeleton_name, "Master");
	uint8_t *out = NULL;
	size_t on = 0;
	hks_error e;
	assert_int_equal(hks_file_write(f, NULL, &out, &on, &e), HKS_OK);
	hks_file *g = read_ok(out, on, NULL);
	assert_int_equal(g->num_animations, 1);
	assert_int_equal(g->bindings[0].num_transform_track_to_bone_indices, 0);
	assert_string_equal(g->bindings[0].original_skeleton_name, "Master");
	/* the array only the non-serialized member named is not written */
	assert_int_equal(g->internal->tagfile->num_items, NUM_ITEMS - 1);
	write_equals(g, out, on);
	hks_file_free(g);
	hks_buffer_free(NULL, out, on);
	hks_file_free(f);
	free(p);
}

/*
 * An array member whose item holds no elements is read without an element
 * check, so the item may have another element size than the member needs.
 * Filling it when a replaced spline gives the array elements wrote count x
 * its size bytes (1-byte elements for 4-byte offsets), which did not read
 * back; the writer now makes a new item of the member's element type.
 */
static void test_replace_into_empty_foreign_item(void **state)
{
	(void)state;
	size_t n;
	uint8_t *p = build_file(0, NULL, &n);
	size_t items = item_section(p, n);
	/* item 12 (floatBlockOffsets): 0 chars instead of 1 hkUint32 */
	hks_put_le32(p + items + 12 * 12, 0x20000000u | T_CHAR);
	hks_put_le32(p + items + 12 * 12 + 8, 0);
	hks_file *f = read_ok(p, n, NULL);
	assert_int_equal(f->animations[0].spline.num_float_block_offsets, 0);
	const uint32_t fblocks[2] = {40, 88};
	hks_spline_header h = f->animations[0].spline;
	h.float_block_offsets = fblocks;
	h.num_float_block_offsets = 2;
	hks_error e;
	assert_int_equal(hks_file_replace_spline(f, 0, f->animations[0].duration, &h, &e), HKS_OK);
	uint8_t *out = NULL;
	size_t on = 0;
	assert_int_equal(hks_file_write(f, NULL, &out, &on, &e), HKS_OK);
	hks_file *g = read_ok(out, on, NULL);
	assert_int_equal(g->animations[0].spline.num_float_block_offsets, 2);
	assert_int_equal(g->animations[0].spline.float_block_offsets[0], 40);
	assert_int_equal(g->animations[0].spline.float_block_offsets[1], 88);
	hks_file_free(g);
	hks_buffer_free(NULL, out, on);
	hks_file_free(f);
	free(p);
}

/*
 * Two members at one offset (container.animations moved onto bindings, a
 * fuzz_file finding): both name the same item, and the writer renumbered the
 * field twice, the second time from the new number (item 7 -> 6 -> the
 * number of item 6, which was no longer written: 0), so the written file
 * lost its animation. Renumbering now reads the source index.
 */
static void test_members_sharing_an_offset(void **state)
{
	(void)state;
	member_offset_shift[T_CONTAINER][1] = 16; /* animations: 40 -> 56 */
	size_t n;
	uint8_t *p = build_file(0, NULL, &n);
	memset(member_offset_shift, 0, sizeof(member_offset_shift));
	hks_file *f = read_ok(p, n, NULL);
	assert_int_equal(f->num_animations, 1); /* through the binding */
	assert_int_equal(f->num_bindings, 1);
	uint8_t *out = NULL;
	size_t on = 0;
	hks_error e;
	assert_int_equal(hks_file_write(f, NULL, &out, &on, &e), HKS_OK);
	hks_file *g = read_ok(out, on, NULL);
	assert_int_equal(g->num_animations, 1);
	assert_int_equal(g->num_bindings, 1);
	assert_int_equal(g->bindings[0].animation, 0);
	write_equals(g, out, on);
	hks_file_free(g);
	hks_buffer_free(NULL, out, on);
	hks_file_free(f);
	free(p);

	/* fields 2 bytes apart: one index would overwrite the other's */
	member_offset_shift[T_CONTAINER][2] = -14; /* bindings: 56 -> 42 */
	p = build_file(0, NULL, &n);
	memset(member_offset_shift, 0, sizeof(member_offset_shift));
	f = read_ok(p, n, NULL);
	assert_int_equal(hks_file_write(f, NULL, &out, &on, &e), HKS_E_MALFORMED);
	assert_non_null(strstr(e.message, "overlap"));
	assert_null(out);
	hks_file_free(f);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_varint_forms),
		cmocka_unit_test(test_parse_and_roundtrip),
		cmocka_unit_test(test_compendium),
		cmocka_unit_test(test_truncated_every_length),
		cmocka_unit_test(test_corrupted_bytes),
		cmocka_unit_test(test_bad_indices),
		cmocka_unit_test(test_replace_spline_resized),
		cmocka_unit_test(test_nonserialized_member_ignored),
		cmocka_unit_test(test_replace_into_empty_foreign_item),
		cmocka_unit_test(test_members_sharing_an_offset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
