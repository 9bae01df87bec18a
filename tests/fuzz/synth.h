/*
 * Synthetic inputs built entirely by project code (no game data), shared by
 * tools/make_seeds.c (the fuzz seed corpora) and tests/test_sweep.c:
 *   - smooth frames for T transform and F float tracks;
 *   - the spline bytes of those frames (the encoder, hks_encode_spline);
 *   - a TAG0 tagfile (inline TYPE or TCRF), a TCM0 compendium and a Havok XML
 *     document (hkpackfile dialect) holding that spline.
 * The tagfile builder follows the layout of CONTAINERS.md §2 / §4.2 (the
 * same minimal type table as tests/test_tagfile.c). Header-only: every
 * function is static.
 */
#ifndef HKS_FUZZ_SYNTH_H
#define HKS_FUZZ_SYNTH_H

#include "hkspline.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct synth_buf {
	uint8_t *p;
	size_t n, cap;
} synth_buf;

static inline void synth_put(synth_buf *b, const void *src, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 64;
		b->p = (uint8_t *)realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	if (n)
		memcpy(b->p + b->n, src, n);
	b->n += n;
}
static inline void synth_put8(synth_buf *b, uint8_t v) { synth_put(b, &v, 1); }
static inline void synth_put32(synth_buf *b, uint32_t v)
{
	uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
	synth_put(b, x, 4);
}
static inline void synth_zeros(synth_buf *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		synth_put8(b, 0);
}
static inline void synth_le32_at(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}
static inline void synth_f32_at(uint8_t *p, float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	synth_le32_at(p, u);
}

/* ---- frames and their spline ---- */

/* Smooth motion: translations and scales along sines, rotations about a
 * fixed axis per track, floats ramping. `variant` changes amplitudes and
 * makes some lanes constant (static parts). Frame-major, as hks_frames_in. */
static inline void synth_frames(uint32_t T, uint32_t F, uint32_t frames, unsigned variant, float *tr, float *fl)
{
	for (uint32_t f = 0; f < frames; f++) {
		float u = (float)f / (float)(frames - 1);
		for (uint32_t t = 0; t < T; t++) {
			float *s = tr + ((size_t)f * T + t) * HKS_TRACK_SAMPLE_FLOATS;
			float a = 0.1f * (float)(t + 1 + variant);
			s[0] = (t + variant) % 3 == 0 ? 0.5f : a * sinf(6.0f * u + (float)t);
			s[1] = a * cosf(3.0f * u);
			s[2] = (float)t;
			float ang = (variant % 2 ? 1.5f : 0.5f) * u * (float)(t + 1);
			float ax[3] = {(float)(t % 2), 1.0f, (float)(t % 3) * 0.5f};
			float len = sqrtf(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
			for (int k = 0; k < 3; k++)
				s[3 + k] = sinf(ang / 2) * ax[k] / len;
			s[6] = cosf(ang / 2);
			s[7] = 1.0f;
			s[8] = t == 1 ? 1.0f + 0.2f * u : 1.0f;
			s[9] = 1.0f;
		}
		for (uint32_t i = 0; i < F; i++)
			fl[(size_t)f * F + i] = u * (float)(i + 1);
	}
}

/* The spline of synthetic frames (NULL on failure). `mfpb` 0 = 256. */
static inline hks_packed_spline *synth_spline(uint32_t T, uint32_t F, uint32_t frames, uint32_t mfpb, unsigned variant,
                                       const char *sdk)
{
	float *tr = (float *)calloc((size_t)frames * T * HKS_TRACK_SAMPLE_FLOATS + 1, sizeof(float));
	float *fl = (float *)calloc((size_t)frames * F + 1, sizeof(float));
	synth_frames(T, F, frames, variant, tr, fl);
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
	eo.max_frames_per_block = mfpb;
	eo.sdk = sdk;
	if (variant % 3 == 2) /* other quantizations: 8-bit scalars, ThreeComp48 */
		eo.defaults.translation_quantization = HKS_ENC_SCALAR_8BIT,
		eo.defaults.rotation_quantization = HKS_ENC_ROT_QUANT(HKS_ROT_THREECOMP48);
	hks_packed_spline *p = NULL;
	hks_error err;
	if (hks_encode_spline(&in, &eo, &p, &err) != HKS_OK) {
		fprintf(stderr, "synth_spline: %s\n", err.message);
		p = NULL;
	}
	free(tr);
	free(fl);
	return p;
}

/* ---- tagfile (CONTAINERS.md §2) ---- */

static inline void synth_varint(synth_buf *b, uint64_t v)
{
	if (v < 0x80) {
		synth_put8(b, (uint8_t)v);
	} else if (v < 0x4000) {
		synth_put8(b, (uint8_t)(0x80 | (v >> 8)));
		synth_put8(b, (uint8_t)v);
	} else {
		synth_put8(b, (uint8_t)(0xC0 | (v >> 16)));
		synth_put8(b, (uint8_t)(v >> 8));
		synth_put8(b, (uint8_t)v);
	}
}

/* A section: big-endian size with the leaf flag, tag, body padded to 4 (§2.2). */
static inline void synth_section(synth_buf *out, const char *tag, const synth_buf *body, int leaf)
{
	size_t padded = (body->n + 3) & ~(size_t)3;
	uint32_t size = (uint32_t)(8 + padded) | (leaf ? 0x40000000u : 0);
	uint8_t h[8] = {(uint8_t)(size >> 24), (uint8_t)(size >> 16), (uint8_t)(size >> 8), (uint8_t)size};
	memcpy(h + 4, tag, 4);
	synth_put(out, h, 8);
	synth_put(out, body->p, body->n);
	synth_zeros(out, padded - body->n);
}

enum {
	ST_ROOT = 1, ST_ARR_NV, ST_NV, ST_STRPTR, ST_REFVARIANT, ST_REFOBJ, ST_CONTAINER, ST_ARR_PTR, ST_PTR, ST_ANIM,
	ST_SPLINE, ST_INT, ST_FLOAT, ST_ARR_U32, ST_HKUINT32, ST_UINT, ST_ARR_U8, ST_U8, ST_CHAR, ST_BINDING,
	ST_ARR_I16, ST_I16, ST_I8, ST_COUNT
};

typedef struct synth_member {
	const char *name;
	uint32_t flags, offset, type;
} synth_member;

typedef struct synth_type {
	const char *name;
	uint32_t tparam;
	uint32_t parent, opt, format, subtype, size, align, flags;
	synth_member m[14];
	uint32_t nm;
} synth_type;

/* A minimal type table (§2.7): 64-bit layouts of the classes the reader needs. */
static const synth_type synth_types[ST_COUNT] = {
	[ST_ROOT] = {"hkRootLevelContainer", 0, 0, 0x29, 7, 0, 16, 8, 0, {{"namedVariants", 0x20, 0, ST_ARR_NV}}, 1},
	[ST_ARR_NV] = {"hkArray", ST_NV, 0, 0x0B, 8, ST_NV, 16, 8, 0, {{0}}, 0},
	[ST_NV] = {"hkRootLevelContainer::NamedVariant", 0, 0, 0x29, 7, 0, 24, 8, 0,
	           {{"name", 0x24, 0, ST_STRPTR}, {"className", 0x24, 8, ST_STRPTR}, {"variant", 0x24, 16, ST_REFVARIANT}},
	           3},
	[ST_STRPTR] = {"hkStringPtr", 0, 0, 0x09, 0x83, 0, 8, 8, 0, {{0}}, 0},
	[ST_REFVARIANT] = {"hkRefVariant", 0, 0, 0x0B, 6, ST_REFOBJ, 8, 8, 0, {{0}}, 0},
	[ST_REFOBJ] = {"hkReferencedObject", 0, 0, 0x29, 7, 0, 24, 8, 0,
	               {{"memSizeAndFlags", 0x25, 16, ST_I16}, {"refCount", 0x25, 18, ST_I16}}, 2},
	[ST_CONTAINER] = {"hkaAnimationContainer", 0, ST_REFOBJ, 0x29, 7, 0, 104, 8, 0,
	                  {{"skeletons", 0x20, 24, ST_ARR_PTR}, {"animations", 0x20, 40, ST_ARR_PTR},
	                   {"bindings", 0x20, 56, ST_ARR_PTR}}, 3},
	[ST_ARR_PTR] = {"hkArray", ST_PTR, 0, 0x0B, 8, ST_PTR, 16, 8, 0, {{0}}, 0},
	[ST_PTR] = {"hkRefPtr", ST_REFOBJ, 0, 0x0B, 6, ST_REFOBJ, 8, 8, 0, {{0}}, 0},
	[ST_ANIM] = {"hkaAnimation", 0, ST_REFOBJ, 0x39, 7, 0, 64, 8, 3,
	             {{"type", 0x20, 24, ST_INT}, {"duration", 0x20, 28, ST_FLOAT},
	              {"numberOfTransformTracks", 0x20, 32, ST_INT}, {"numberOfFloatTracks", 0x20, 36, ST_INT}},
	             4},
	[ST_SPLINE] = {"hkaSplineCompressedAnimation", 0, ST_ANIM, 0x29, 7, 0, 184, 8, 0,
	               {{"numFrames", 0x22, 64, ST_INT}, {"numBlocks", 0x22, 68, ST_INT},
	                {"maxFramesPerBlock", 0x22, 72, ST_INT}, {"maskAndQuantizationSize", 0x22, 76, ST_INT},
	                {"blockDuration", 0x22, 80, ST_FLOAT}, {"blockInverseDuration", 0x22, 84, ST_FLOAT},
	                {"frameDuration", 0x22, 88, ST_FLOAT}, {"blockOffsets", 0x22, 96, ST_ARR_U32},
	                {"floatBlockOffsets", 0x22, 112, ST_ARR_U32}, {"transformOffsets", 0x22, 128, ST_ARR_U32},
	                {"floatOffsets", 0x22, 144, ST_ARR_U32}, {"data", 0x22, 160, ST_ARR_U8},
	                {"endian", 0x22, 176, ST_INT}},
	               13},
	[ST_INT] = {"int", 0, 0, 0x09, 0x8204, 0, 4, 4, 0, {{0}}, 0},
	[ST_FLOAT] = {"float", 0, 0, 0x09, 0x174605, 0, 4, 4, 0, {{0}}, 0},
	[ST_ARR_U32] = {"hkArray", ST_HKUINT32, 0, 0x0B, 8, ST_HKUINT32, 16, 8, 0, {{0}}, 0},
	[ST_HKUINT32] = {"hkUint32", 0, ST_UINT, 0x00, 0, 0, 0, 0, 0, {{0}}, 0},
	[ST_UINT] = {"unsigned int", 0, 0, 0x09, 0x8004, 0, 4, 4, 0, {{0}}, 0},
	[ST_ARR_U8] = {"hkArray", ST_U8, 0, 0x0B, 8, ST_U8, 16, 8, 0, {{0}}, 0},
	[ST_U8] = {"hkUint8", 0, 0, 0x09, 0x2004, 0, 1, 1, 0, {{0}}, 0},
	[ST_CHAR] = {"char", 0, 0, 0x09, 0x2004, 0, 1, 1, 0, {{0}}, 0},
	[ST_BINDING] = {"hkaAnimationBinding", 0, ST_REFOBJ, 0x29, 7, 0, 96, 8, 0,
	                {{"originalSkeletonName", 0x20, 24, ST_STRPTR}, {"animation", 0x20, 32, ST_PTR},
	                 {"transformTrackToBoneIndices", 0x20, 40, ST_ARR_I16}, {"blendHint", 0x20, 88, ST_I8}},
	                4},
	[ST_ARR_I16] = {"hkArray", ST_I16, 0, 0x0B, 8, ST_I16, 16, 8, 0, {{0}}, 0},
	[ST_I16] = {"hkInt16", 0, 0, 0x09, 0x4204, 0, 2, 2, 0, {{0}}, 0},
	[ST_I8] = {"hkInt8", 0, 0, 0x09, 0x2204, 0, 1, 1, 0, {{0}}, 0},
};

static inline uint32_t synth_string_index(const char **list, uint32_t *n, const char *s)
{
	for (uint32_t i = 0; i < *n; i++)
		if (!strcmp(list[i], s))
			return i;
	list[*n] = s;
	return (*n)++;
}

/* TYPE { TPTR TSTR TNA1 FSTR TBDY THSH TPAD } (§2.6 - §2.8). */
static inline void synth_type_section(synth_buf *out)
{
	const char *tstr[64], *fstr[64];
	uint32_t ntstr = 0, nfstr = 0;
	synth_buf tptr = {0}, ts = {0}, tna = {0}, fs = {0}, tbd = {0}, thsh = {0}, tpad = {0}, type = {0};
	synth_zeros(&tptr, 8 * ST_COUNT);
	synth_varint(&tna, ST_COUNT);
	uint32_t tparam_name = synth_string_index(tstr, &ntstr, "tT");
	for (uint32_t i = 1; i < ST_COUNT; i++) {
		synth_varint(&tna, synth_string_index(tstr, &ntstr, synth_types[i].name));
		synth_varint(&tna, synth_types[i].tparam ? 1 : 0);
		if (synth_types[i].tparam) {
			synth_varint(&tna, tparam_name);
			synth_varint(&tna, synth_types[i].tparam);
		}
	}
	for (uint32_t i = 1; i < ST_COUNT; i++) {
		const synth_type *t = &synth_types[i];
		synth_varint(&tbd, i);
		synth_varint(&tbd, t->parent);
		synth_varint(&tbd, t->opt);
		if (t->opt & 0x01)
			synth_varint(&tbd, t->format);
		if (t->opt & 0x02)
			synth_varint(&tbd, t->subtype);
		if (t->opt & 0x08) {
			synth_varint(&tbd, t->size);
			synth_varint(&tbd, t->align);
		}
		if (t->opt & 0x10)
			synth_varint(&tbd, t->flags);
		if (t->opt & 0x20) {
			synth_varint(&tbd, t->nm);
			for (uint32_t k = 0; k < t->nm; k++) {
				synth_varint(&tbd, synth_string_index(fstr, &nfstr, t->m[k].name));
				synth_varint(&tbd, t->m[k].flags);
				synth_varint(&tbd, t->m[k].offset);
				synth_varint(&tbd, t->m[k].type);
			}
		}
	}
	for (uint32_t i = 0; i < ntstr; i++)
		synth_put(&ts, tstr[i], strlen(tstr[i]) + 1);
	for (uint32_t i = 0; i < nfstr; i++)
		synth_put(&fs, fstr[i], strlen(fstr[i]) + 1);
	synth_varint(&thsh, 1);
	synth_varint(&thsh, ST_SPLINE);
	synth_put32(&thsh, 0x12345678u);
	synth_section(&type, "TPTR", &tptr, 1);
	synth_section(&type, "TSTR", &ts, 1);
	synth_section(&type, "TNA1", &tna, 1);
	synth_section(&type, "FSTR", &fs, 1);
	synth_section(&type, "TBDY", &tbd, 1);
	synth_section(&type, "THSH", &thsh, 1);
	synth_section(&type, "TPAD", &tpad, 1);
	synth_section(out, "TYPE", &type, 0);
	free(tptr.p), free(ts.p), free(tna.p), free(fs.p), free(tbd.p), free(thsh.p), free(type.p);
}

typedef struct synth_data {
	synth_buf data;
	uint32_t items[32][3]; /* type | kind << 28, offset, count */
	uint32_t num_items;
	uint32_t patches[64][2]; /* type, offset */
	uint32_t npatch;
} synth_data;

static inline uint32_t synth_place(synth_data *d, uint32_t number, uint32_t kind, uint32_t type, uint32_t count,
                            uint32_t elem_size, uint32_t align)
{
	while (d->data.n % align)
		synth_put8(&d->data, 0);
	uint32_t off = (uint32_t)d->data.n;
	synth_zeros(&d->data, (size_t)count * elem_size);
	d->items[number][0] = type | (kind << 28);
	d->items[number][1] = off;
	d->items[number][2] = count;
	if (number + 1 > d->num_items)
		d->num_items = number + 1;
	return off;
}

static inline void synth_ptr(synth_data *d, uint32_t at, uint32_t item, uint32_t decl_type)
{
	synth_le32_at(d->data.p + at, item);
	d->patches[d->npatch][0] = decl_type;
	d->patches[d->npatch][1] = at;
	d->npatch++;
}

static inline void synth_string_item(synth_data *d, uint32_t number, const char *s)
{
	uint32_t n = (uint32_t)strlen(s) + 1;
	uint32_t off = synth_place(d, number, 2, ST_CHAR, n, 1, 2);
	memcpy(d->data.p + off, s, n);
}

static inline int synth_patch_cmp(const void *a, const void *b)
{
	const uint32_t *x = (const uint32_t *)a, *y = (const uint32_t *)b;
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

static inline void synth_u32_array(synth_data *d, uint32_t number, const uint32_t *v, uint32_t n)
{
	uint32_t o = synth_place(d, number, 2, ST_HKUINT32, n, 4, 16);
	for (uint32_t i = 0; i < n; i++)
		synth_le32_at(d->data.p + o + 4 * i, v[i]);
}

/*
 * A tagfile holding hkaSplineCompressedAnimation `p` and its binding, with an
 * inline TYPE section (compendium_id NULL) or a TCRF reference to
 * `compendium_id` (§2.11). malloc'd; *size receives the length.
 */
static inline uint8_t *synth_tagfile(const hks_packed_spline *p, const char *sdk, const uint8_t *compendium_id,
                              size_t *size)
{
	const hks_spline_header *h = &p->header;
	synth_data d;
	memset(&d, 0, sizeof(d));
	uint32_t o;
	o = synth_place(&d, 1, 1, ST_ROOT, 1, 16, 8);
	synth_ptr(&d, o + 0, 2, ST_ARR_NV);
	o = synth_place(&d, 2, 2, ST_NV, 1, 24, 16);
	synth_ptr(&d, o + 0, 4, ST_STRPTR);
	synth_ptr(&d, o + 8, 5, ST_STRPTR);
	synth_ptr(&d, o + 16, 3, ST_REFVARIANT);
	synth_string_item(&d, 4, "Animation Container");
	synth_string_item(&d, 5, "hkaAnimationContainer");
	o = synth_place(&d, 3, 1, ST_CONTAINER, 1, 104, 8);
	synth_ptr(&d, o + 40, 6, ST_ARR_PTR);
	synth_ptr(&d, o + 56, 7, ST_ARR_PTR);
	o = synth_place(&d, 6, 2, ST_PTR, 1, 8, 16);
	synth_ptr(&d, o, 8, ST_PTR);
	o = synth_place(&d, 7, 2, ST_PTR, 1, 8, 16);
	synth_ptr(&d, o, 9, ST_PTR);
	uint32_t s = synth_place(&d, 8, 1, ST_SPLINE, 1, 184, 8);
	synth_le32_at(d.data.p + s + 24, 3);
	synth_f32_at(d.data.p + s + 28, p->duration);
	synth_le32_at(d.data.p + s + 32, (uint32_t)p->num_transform_tracks);
	synth_le32_at(d.data.p + s + 36, (uint32_t)p->num_float_tracks);
	synth_le32_at(d.data.p + s + 64, (uint32_t)h->num_frames);
	synth_le32_at(d.data.p + s + 68, (uint32_t)h->num_blocks);
	synth_le32_at(d.data.p + s + 72, (uint32_t)h->max_frames_per_block);
	synth_le32_at(d.data.p + s + 76, (uint32_t)h->mask_and_quantization_size);
	synth_f32_at(d.data.p + s + 80, h->block_duration);
	synth_f32_at(d.data.p + s + 84, h->block_inverse_duration);
	synth_f32_at(d.data.p + s + 88, h->frame_duration);
	synth_ptr(&d, s + 96, 10, ST_ARR_U32);
	synth_ptr(&d, s + 112, 11, ST_ARR_U32);
	synth_ptr(&d, s + 160, 12, ST_ARR_U8);
	synth_u32_array(&d, 10, h->block_offsets, h->num_block_offsets);
	synth_u32_array(&d, 11, h->float_block_offsets, h->num_float_block_offsets);
	o = synth_place(&d, 12, 2, ST_U8, h->data_size, 1, 16);
	memcpy(d.data.p + o, h->data, h->data_size);
	o = synth_place(&d, 9, 1, ST_BINDING, 1, 96, 8);
	synth_ptr(&d, o + 24, 14, ST_STRPTR);
	synth_ptr(&d, o + 32, 8, ST_PTR);
	synth_ptr(&d, o + 40, 13, ST_ARR_I16);
	uint32_t ntb = p->num_transform_tracks > 0 ? (uint32_t)p->num_transform_tracks : 1;
	uint32_t a = synth_place(&d, 13, 2, ST_I16, ntb, 2, 16);
	for (uint32_t i = 0; i < ntb; i++)
		d.data.p[a + 2 * i] = (uint8_t)i;
	synth_string_item(&d, 14, "Master");
	while (d.data.n % 16)
		synth_put8(&d.data, 0);

	synth_buf item = {0}, ptch = {0}, indx = {0}, body = {0}, sdkv = {0}, out = {0};
	for (uint32_t i = 0; i < d.num_items; i++)
		for (int k = 0; k < 3; k++)
			synth_put32(&item, d.items[i][k]);
	qsort(d.patches, d.npatch, sizeof(d.patches[0]), synth_patch_cmp);
	for (uint32_t i = 0; i < d.npatch;) {
		uint32_t j = i;
		while (j < d.npatch && d.patches[j][0] == d.patches[i][0])
			j++;
		synth_put32(&ptch, d.patches[i][0]);
		synth_put32(&ptch, j - i);
		for (; i < j; i++)
			synth_put32(&ptch, d.patches[i][1]);
	}
	synth_section(&indx, "ITEM", &item, 1);
	synth_section(&indx, "PTCH", &ptch, 1);
	synth_put(&sdkv, sdk, 8);
	synth_section(&body, "SDKV", &sdkv, 1);
	synth_section(&body, "DATA", &d.data, 1);
	if (compendium_id) {
		synth_buf tcrf = {0};
		synth_put(&tcrf, compendium_id, 8);
		synth_zeros(&tcrf, 16);
		synth_section(&body, "TCRF", &tcrf, 1);
		free(tcrf.p);
	} else {
		synth_type_section(&body);
	}
	synth_section(&body, "INDX", &indx, 0);
	synth_section(&out, "TAG0", &body, 0);
	free(item.p), free(ptch.p), free(indx.p), free(body.p), free(sdkv.p), free(d.data.p);
	*size = out.n;
	return out.p;
}

/* A compendium TCM0 { TCID, TYPE } (§2.11) listing one ID. */
static inline uint8_t *synth_compendium(const uint8_t id[8], size_t *size)
{
	synth_buf body = {0}, tcid = {0}, out = {0};
	synth_put(&tcid, id, 8);
	synth_section(&body, "TCID", &tcid, 1);
	synth_type_section(&body);
	synth_section(&out, "TCM0", &body, 0);
	free(body.p), free(tcid.p);
	*size = out.n;
	return out.p;
}

/* ---- Havok XML, hkpackfile dialect (CONTAINERS.md §8) ---- */

static inline void synth_printf(synth_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	char *tmp = (char *)malloc((size_t)n + 1);
	if (!tmp)
		abort();
	va_start(ap, fmt);
	vsnprintf(tmp, (size_t)n + 1, fmt, ap);
	va_end(ap);
	synth_put(b, tmp, (size_t)n);
	free(tmp);
}

static inline void synth_xml_u32s(synth_buf *b, const char *name, const uint32_t *v, uint32_t n)
{
	synth_printf(b, "      <hkparam name=\"%s\" numelements=\"%u\">", name, n);
	for (uint32_t i = 0; i < n; i++)
		synth_printf(b, i ? " %u" : "%u", v[i]);
	synth_printf(b, "</hkparam>\n");
}

static inline uint8_t *synth_xml(const hks_packed_spline *p, size_t *size)
{
	const hks_spline_header *h = &p->header;
	synth_buf b = {0};
	synth_printf(&b, "<?xml version=\"1.0\" encoding=\"ascii\"?>\n"
	                 "<hkpackfile classversion=\"8\" contentsversion=\"hk_2010.2.0-r1\" toplevelobject=\"#0010\">\n"
	                 "  <hksection name=\"__data__\">\n"
	                 "    <hkobject name=\"#0010\" class=\"hkRootLevelContainer\" signature=\"0x2772c11e\">\n"
	                 "      <hkparam name=\"namedVariants\" numelements=\"1\">\n"
	                 "        <hkobject>\n"
	                 "          <hkparam name=\"name\">Merged Animation Container</hkparam>\n"
	                 "          <hkparam name=\"className\">hkaAnimationContainer</hkparam>\n"
	                 "          <hkparam name=\"variant\">#0011</hkparam>\n"
	                 "        </hkobject>\n"
	                 "      </hkparam>\n"
	                 "    </hkobject>\n");
	synth_printf(&b, "    <hkobject name=\"#0011\" class=\"hkaAnimationContainer\" signature=\"0x8dc20333\">\n"
	                 "      <hkparam name=\"animations\" numelements=\"1\">#0012</hkparam>\n"
	                 "      <hkparam name=\"bindings\" numelements=\"1\">#0013</hkparam>\n"
	                 "    </hkobject>\n"
	                 "    <hkobject name=\"#0012\" class=\"hkaSplineCompressedAnimation\" signature=\"0x792ee0bb\">\n"
	                 "      <hkparam name=\"type\">HK_SPLINE_COMPRESSED_ANIMATION</hkparam>\n");
	synth_printf(&b, "      <hkparam name=\"duration\">%.9g</hkparam>\n", (double)p->duration);
	synth_printf(&b, "      <hkparam name=\"numberOfTransformTracks\">%d</hkparam>\n", p->num_transform_tracks);
	synth_printf(&b, "      <hkparam name=\"numberOfFloatTracks\">%d</hkparam>\n", p->num_float_tracks);
	synth_printf(&b, "      <hkparam name=\"numFrames\">%d</hkparam>\n", h->num_frames);
	synth_printf(&b, "      <hkparam name=\"numBlocks\">%d</hkparam>\n", h->num_blocks);
	synth_printf(&b, "      <hkparam name=\"maxFramesPerBlock\">%d</hkparam>\n", h->max_frames_per_block);
	synth_printf(&b, "      <hkparam name=\"maskAndQuantizationSize\">%d</hkparam>\n", h->mask_and_quantization_size);
	synth_printf(&b, "      <hkparam name=\"blockDuration\">%.9g</hkparam>\n", (double)h->block_duration);
	synth_printf(&b, "      <hkparam name=\"blockInverseDuration\">%.9g</hkparam>\n", (double)h->block_inverse_duration);
	synth_printf(&b, "      <hkparam name=\"frameDuration\">%.9g</hkparam>\n", (double)h->frame_duration);
	synth_xml_u32s(&b, "blockOffsets", h->block_offsets, h->num_block_offsets);
	synth_xml_u32s(&b, "floatBlockOffsets", h->float_block_offsets, h->num_float_block_offsets);
	synth_printf(&b, "      <hkparam name=\"transformOffsets\" numelements=\"0\"></hkparam>\n"
	                 "      <hkparam name=\"floatOffsets\" numelements=\"0\"></hkparam>\n");
	synth_printf(&b, "      <hkparam name=\"data\" numelements=\"%u\">", h->data_size);
	for (uint32_t i = 0; i < h->data_size; i++)
		synth_printf(&b, "%s%u", i % 16 ? " " : "\n        ", h->data[i]);
	synth_printf(&b, "\n      </hkparam>\n"
	                 "      <hkparam name=\"endian\">0</hkparam>\n"
	                 "    </hkobject>\n"
	                 "    <hkobject name=\"#0013\" class=\"hkaAnimationBinding\" signature=\"0x66eac971\">\n"
	                 "      <hkparam name=\"originalSkeletonName\">Master</hkparam>\n"
	                 "      <hkparam name=\"animation\">#0012</hkparam>\n"
	                 "      <hkparam name=\"blendHint\">NORMAL</hkparam>\n"
	                 "    </hkobject>\n"
	                 "  </hksection>\n"
	                 "</hkpackfile>\n");
	*size = b.n;
	return b.p;
}

/* ---- skeleton and glTF (docs/GLTF.md) ---- */

/* A 3-bone chain (root, spine, head) in an identity-rotation reference pose;
 * the arrays are static, so the skeleton needs no freeing. */
static inline const hks_skeleton *synth_skeleton(void)
{
	static const char *const names[3] = {"root", "spine", "head"};
	static const int16_t parents[3] = {-1, 0, 1};
	static const uint8_t lock[3] = {0, 0, 0};
	static const hks_qs_transform pose[3] = {
	    {{0, 0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1, 0}},
	    {{0, 1, 0, 0}, {0, 0, 0, 1}, {1, 1, 1, 0}},
	    {{0, 0.5f, 0, 0}, {0, 0, 0, 1}, {1, 1, 1, 0}},
	};
	static const char *const slots[1] = {"blink"};
	static const float ref_floats[1] = {0.25f};
	static hks_skeleton sk;
	sk.name = "Synthetic";
	sk.num_bones = 3;
	sk.bone_names = names;
	sk.lock_translation = lock;
	sk.parent_indices = parents;
	sk.num_parent_indices = 3;
	sk.reference_pose = pose;
	sk.num_reference_pose = 3;
	sk.float_slots = slots;
	sk.num_float_slots = 1;
	sk.reference_floats = ref_floats;
	sk.num_reference_floats = 1;
	return &sk;
}

/* A glTF (binary GLB or JSON) of synthetic frames on synth_skeleton(): 3
 * transform tracks, 1 float track. malloc'd (NULL on failure). */
static inline uint8_t *synth_gltf(uint32_t frames, int binary, size_t *size)
{
	const uint32_t T = 3, F = 1;
	float *tr = (float *)calloc((size_t)frames * T * HKS_TRACK_SAMPLE_FLOATS, sizeof(float));
	float *fl = (float *)calloc((size_t)frames * F, sizeof(float));
	synth_frames(T, F, frames, 0, tr, fl);
	hks_gltf_clip clip;
	memset(&clip, 0, sizeof(clip));
	clip.name = "synthetic";
	clip.num_frames = frames;
	clip.frame_duration = 1.0f / 30.0f;
	clip.duration = (float)(frames - 1) / 30.0f;
	clip.num_transform_tracks = T;
	clip.num_float_tracks = F;
	clip.transforms = tr;
	clip.floats = fl;
	hks_gltf_write_options wo;
	memset(&wo, 0, sizeof(wo));
	wo.binary = binary;
	uint8_t *out = NULL, *copy = NULL;
	size_t n = 0;
	hks_error err;
	if (hks_gltf_write(synth_skeleton(), &clip, 1, &wo, &out, &n, NULL, &err) == HKS_OK) {
		copy = (uint8_t *)malloc(n ? n : 1);
		memcpy(copy, out, n);
		*size = n;
		hks_buffer_free(&wo.base, out, n);
	} else {
		fprintf(stderr, "synth_gltf: %s\n", err.message);
	}
	free(tr);
	free(fl);
	return copy;
}

#endif
