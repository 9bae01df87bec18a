/*
 * The tagfile reader (TAG0, and TCM0 compendiums as files): sections, ITEM,
 * PTCH, then the object model, every member located by name through the
 * file's own type table (CONTAINERS.md §2).
 */
#include "tagfile.h"

#include <stdio.h>

static hks_result nomem(hks_ctx *ctx)
{
	return ctx->err && ctx->err->code ? ctx->err->code : HKS_E_NOMEM;
}

/* ---- the reader state ---- */

typedef struct tag_reader {
	hks_ctx *ctx;
	hks_arena *arena;
	hks_file *file;
	hks_tagfile *tf;
	const hks_tag_types *t;
	const uint8_t *data;       /* DATA payload */
	uint32_t data_size;
	int32_t *anim_of_item;     /* item -> hks_file.animations index, -1 */
	int32_t *frame_of_item;    /* item -> hks_file.reference_frames index, -1 */
	int32_t *skel_of_item;     /* item -> hks_file.skeletons index, -1 */
	uint8_t *binding_seen;     /* item -> 1 once listed */
	uint8_t *variant_seen;     /* item -> 1 once handled as a root variant */
	uint32_t cap_anims, cap_frames, cap_skels, cap_bindings;
	uint8_t *class_bits;       /* type -> CLASS_* bits of the type and its ancestors */
} tag_reader;

/* The classes the object model cares about, as bits per type. */
enum {
	CLASS_ANIMATION = 1,      /* hkaAnimation */
	CLASS_FRAME = 2,          /* hkaAnimatedReferenceFrame */
	CLASS_DEFAULT_FRAME = 4,  /* hkaDefaultAnimatedReferenceFrame */
	CLASS_SKELETON = 8,       /* hkaSkeleton */
	CLASS_BINDING = 16,       /* hkaAnimationBinding */
	CLASS_CONTAINER = 32      /* hkaAnimationContainer */
};

static uint8_t own_class_bits(const char *name)
{
	static const struct {
		const char *name;
		uint8_t bit;
	} classes[] = {{"hkaAnimation", CLASS_ANIMATION}, {"hkaAnimatedReferenceFrame", CLASS_FRAME},
	               {"hkaDefaultAnimatedReferenceFrame", CLASS_DEFAULT_FRAME}, {"hkaSkeleton", CLASS_SKELETON},
	               {"hkaAnimationBinding", CLASS_BINDING}, {"hkaAnimationContainer", CLASS_CONTAINER}};
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (!strcmp(name, classes[i].name))
			return classes[i].bit;
	return 0;
}

/*
 * Derivation bits of every type, in time linear in the table: each type's bits
 * are its own plus its parent's, computed along each parent path once
 * (memoized; a cyclic chain simply stops contributing).
 */
static hks_result compute_class_bits(tag_reader *r)
{
	uint32_t n = r->t->count;
	r->class_bits = (uint8_t *)hks_arena_alloc(r->arena, n);
	uint8_t *state = (uint8_t *)hks_arena_alloc(r->arena, n); /* 0 new, 1 on the path, 2 done */
	uint32_t *path = (uint32_t *)hks_arena_array(r->arena, n, 4);
	if (!r->class_bits || !state || !path)
		return nomem(r->ctx);
	state[0] = 2;
	for (uint32_t i = 1; i < n; i++) {
		uint32_t len = 0, cur = i;
		while (cur < n && state[cur] == 0) {
			state[cur] = 1;
			path[len++] = cur;
			cur = r->t->types[cur].parent;
		}
		uint8_t bits = cur < n && state[cur] == 2 ? r->class_bits[cur] : 0;
		while (len-- > 0) {
			uint32_t t = path[len];
			bits = (uint8_t)(bits | own_class_bits(r->t->types[t].name));
			r->class_bits[t] = bits;
			state[t] = 2;
		}
	}
	return HKS_OK;
}

static int is_class(const tag_reader *r, uint32_t type, uint8_t bit)
{
	return type < r->t->count && (r->class_bits[type] & bit);
}

/* A record in DATA: its type and its byte range (DATA-relative). */
typedef struct tag_view {
	uint32_t type;
	uint32_t off;
	uint32_t end;
	uint32_t item;
} tag_view;

static int64_t file_off(const tag_reader *r, uint64_t data_rel)
{
	return (int64_t)r->tf->data_offset + (int64_t)data_rel;
}

static const hks_tag_type *rtype(const tag_reader *r, uint32_t index)
{
	return &r->t->types[index < r->t->count ? index : 0];
}

static uint32_t kind_of(const tag_reader *r, uint32_t type)
{
	return rtype(r, type)->r_format & 0x1Fu;
}

/*
 * Locate member `name` of the record `v` and check that `width` bytes of it lie
 * inside the record. *found = 0 when the type has no such member (callers then
 * keep a default: members vary between SDKs).
 */
static hks_result member_at(tag_reader *r, const tag_view *v, const char *name, uint32_t want_kind, uint32_t width,
                            uint32_t *off, const hks_tag_member **mem, int *found)
{
	*found = 0;
	/* Members are only read from records: the writer lays out an object by
	 * its type's format (§4.2), so reading a non-record's "members" would let
	 * the two disagree (a record retyped as a string in TBDY wrote a file
	 * whose pointers were not renumbered: fuzz_file, HKS_FUZZ_STRICT). */
	if (kind_of(r, v->type) != HKS_TAG_RECORD)
		return hks_fail(r->ctx, HKS_E_MALFORMED, file_off(r, v->off), "%s has format kind %u, not a record",
		                hks_tag_type_name(r->t, v->type), kind_of(r, v->type));
	const hks_tag_member *m = hks_tag_find_member(r->t, v->type, name);
	if (!m)
		return HKS_OK;
	hks_err_member(r->ctx, name);
	uint32_t k = kind_of(r, m->type);
	if (k != want_kind && !(want_kind == HKS_TAG_INT && k == HKS_TAG_BOOL))
		return hks_fail(r->ctx, HKS_E_MALFORMED, file_off(r, v->off),
		                "member %s of %s has format kind %u, expected %u", name, hks_tag_type_name(r->t, v->type), k,
		                want_kind);
	uint64_t at = (uint64_t)v->off + m->offset;
	if (at + width > v->end)
		return hks_fail(r->ctx, HKS_E_MALFORMED, file_off(r, v->off),
		                "member %s (offset %u, %u bytes) lies outside its %s record (%u bytes)", name, m->offset, width,
		                hks_tag_type_name(r->t, v->type), v->end - v->off);
	*off = (uint32_t)at;
	if (mem)
		*mem = m;
	*found = 1;
	return HKS_OK;
}

static uint32_t int_width(uint32_t format)
{
	if (format & HKS_TAG_FMT_INT8)
		return 1;
	if (format & HKS_TAG_FMT_INT16)
		return 2;
	if (format & HKS_TAG_FMT_INT32)
		return 4;
	if (format & HKS_TAG_FMT_INT64)
		return 8;
	return 0;
}

static hks_result get_int(tag_reader *r, const tag_view *v, const char *name, int64_t *out)
{
	const hks_tag_member *m = hks_tag_find_member(r->t, v->type, name);
	if (!m)
		return HKS_OK;
	uint32_t fmt = rtype(r, m->type)->r_format, w = int_width(fmt);
	if (!w)
		return hks_fail(r->ctx, HKS_E_MALFORMED, file_off(r, v->off), "member %s: integer format 0x%X has no width",
		                name, fmt);
	uint32_t off;
	int found;
	HKS_TRY(member_at(r, v, name, HKS_TAG_INT, w, &off, NULL, &found));
	const uint8_t *p = r->data + off;
	uint64_t u = w == 1 ? p[0] : w == 2 ? hks_le16(p) : w == 4 ? hks_le32(p) : hks_le64(p);
	if ((fmt & HKS_TAG_FMT_SIGNED) && w < 8 && (u >> (8 * w - 1)) & 1u)
		u |= ~UINT64_C(0) << (8 * w);
	*out = (int64_t)u;
	return HKS_OK;
}

static hks_result get_i32(tag_reader *r, const tag_view *v, const char *name, int32_t *out)
{
	int64_t x = *out;
	HKS_TRY(get_int(r, v, name, &x));
	*out = (int32_t)x;
	return HKS_OK;
}

static hks_result get_f32(tag_reader *r, const tag_view *v, const char *name, float *out)
{
	uint32_t off;
	int found;
	HKS_TRY(member_at(r, v, name, HKS_TAG_FLOAT, 4, &off, NULL, &found));
	if (found)
		*out = hks_f32_from_bits(hks_le32(r->data + off));
	return HKS_OK;
}

/* An item index stored in the low u32 of a pointer-like field (§2.10). */
static hks_result item_ref(tag_reader *r, uint32_t off, uint32_t want_kind, const char *name, uint32_t *item)
{
	uint32_t idx = hks_le32(r->data + off);
	if (idx >= r->tf->num_items)
		return hks_fail(r->ctx, HKS_E_MALFORMED, file_off(r, off), "%s: item index %u out of range (%u items)", name,
		                idx, r->tf->num_items);
	if (idx && r->tf->items[idx].kind != want_kind)
		return hks_fail(r->ctx, HKS_E_MALFORMED, file_off(r, off), "%s: item %u is %s, expected %s", name, idx,
		                r->tf->items[idx].kind == HKS_TAG_ITEM_OBJECT ? "an object" : "an array",
		                want_kind == HKS_TAG_ITEM_OBJECT ? "an object" : "an array");
	*item = idx;
	return HKS_OK;
}

static hks_result get_ref(tag_reader *r, const tag_view *v, const char *name, uint32_t *item)
{
	uint32_t off;
	int found;
	*item = 0;
	HKS_TRY(member_at(r, v, name, HKS_TAG_POINTER, 8, &off, NULL, &found));
	return found ? item_ref(r, off, HKS_TAG_ITEM_OBJECT, name, item) : HKS_OK;
}

static hks_result string_at(tag_reader *r, uint32_t off, const char *name, const char **out)
{
	uint32_t idx = 0;
	HKS_TRY(item_ref(r, off, HKS_TAG_ITEM_ARRAY, name, &idx));
	if (!idx) {
		*out = NULL;
		return HKS_OK;
	}
	const hks_tag_item *it = &r->tf->items[idx];
	if (it->elem_size != 1)
		return hks_fail(r->ctx, HKS_E_MALFORMED, file_off(r, off), "%s: item %u is not a char array", name, idx);
	*out = hks_arena_strndup(r->arena, (const char *)r->data + it->offset, it->count);
	return *out ? HKS_OK : nomem(r->ctx);
}

static hks_result get_string(tag_reader *r, const tag_view *v, const char *name, const char **out)
{
	uint32_t off;
	int found;
	*out = NULL;
	HKS_TRY(member_at(r, v, name, HKS_TAG_STRING, 8, &off, NULL, &found));
	return found ? string_at(r, off, name, out) : HKS_OK;
}

/* hkArray<T> member: its item, count and element type (count only in ITEM, §2.10). */
static hks_result get_array(tag_reader *r, const tag_view *v, const char *name, uint32_t *item, uint32_t *count,
                            uint32_t *elem_type)
{
	uint32_t off;
	int found;
	const hks_tag_member *m;
	*item = 0, *count = 0, *elem_type = 0;
	HKS_TRY(member_at(r, v, name, HKS_TAG_ARRAY, 16, &off, &m, &found));
	if (!found)
		return HKS_OK;
	if (rtype(r, m->type)->r_format & HKS_TAG_FMT_FIXED_ARRAY)
		return hks_fail(r->ctx, HKS_E_MALFORMED, file_off(r, off), "member %s: a fixed array, expected hkArray",
		                name);
	HKS_TRY(item_ref(r, off, HKS_TAG_ITEM_ARRAY, name, item));
	if (*item) {
		*count = r->tf->items[*item].count;
		*elem_type = r->tf->items[*item].type;
	}
	return HKS_OK;
}

/* A view of element i of array item `item`. */
static tag_view element(const tag_reader *r, uint32_t item, uint32_t i)
{
	const hks_tag_item *it = &r->tf->items[item];
	tag_view v;
	v.type = it->type;
	v.off = it->offset + i * it->elem_size; /* inside DATA: checked when ITEM was read */
	v.end = v.off + it->elem_size;
	v.item = item;
	return v;
}

static tag_view object_view(const tag_reader *r, uint32_t item)
{
	return element(r, item, 0);
}

/* Copy an hkArray of fixed-size scalars (little-endian) to host order in the arena. */
static hks_result get_scalar_array(tag_reader *r, const tag_view *v, const char *name, uint32_t elem_bytes,
                                   void **out, uint32_t *count)
{
	uint32_t item, n, et;
	*out = NULL;
	*count = 0;
	HKS_TRY(get_array(r, v, name, &item, &n, &et));
	if (!n)
		return HKS_OK;
	const hks_tag_item *it = &r->tf->items[item];
	if (it->elem_size != elem_bytes)
		return hks_fail(r->ctx, HKS_E_MALFORMED, file_off(r, it->offset),
		                "member %s: elements of %u bytes, expected %u", name, it->elem_size, elem_bytes);
	size_t total = (size_t)n * elem_bytes;
	uint8_t *dst = (uint8_t *)hks_arena_alloc(r->arena, total);
	if (!dst)
		return nomem(r->ctx);
	const uint8_t *src = r->data + it->offset;
	/* scalars are 2 or 4 bytes wide; composite elements (hkQsTransform,
	 * hkVector4) are arrays of 4-byte floats */
	if (elem_bytes == 2) {
		for (size_t i = 0; i < n; i++) {
			uint16_t x = hks_le16(src + 2 * i);
			memcpy(dst + 2 * i, &x, 2);
		}
	} else if (elem_bytes % 4 == 0) {
		for (size_t i = 0; i < total / 4; i++) {
			uint32_t x = hks_le32(src + 4 * i);
			memcpy(dst + 4 * i, &x, 4);
		}
	} else {
		memcpy(dst, src, total);
	}
	*out = dst;
	*count = n;
	return HKS_OK;
}

/* hkVector4 member (fixed array of 4 floats, 16 bytes). */
static hks_result get_vec4(tag_reader *r, const tag_view *v, const char *name, float out[4])
{
	uint32_t off;
	int found;
	const hks_tag_member *m;
	HKS_TRY(member_at(r, v, name, HKS_TAG_ARRAY, 16, &off, &m, &found));
	if (!found)
		return HKS_OK;
	/* Only a fixed array of floats holds the four values: the writer
	 * renumbers the first word of an hkArray and every pointer element
	 * (§4.2), so reading one of those as floats would not read back. */
	const hks_tag_type *mt = rtype(r, m->type);
	if (!(mt->r_format & HKS_TAG_FMT_FIXED_ARRAY) || kind_of(r, mt->r_subtype) != HKS_TAG_FLOAT)
		return hks_fail(r->ctx, HKS_E_MALFORMED, file_off(r, off), "member %s: not a fixed array of floats", name);
	for (int i = 0; i < 4; i++)
		out[i] = hks_f32_from_bits(hks_le32(r->data + off + 4 * i));
	return HKS_OK;
}

/* Array of pointer-like elements: call `fn` for every non-null item. */
typedef hks_result (*item_fn)(tag_reader *r, uint32_t item);

static hks_result for_each_pointer(tag_reader *r, const tag_view *v, const char *name, item_fn fn)
{
	uint32_t item, n, et;
	HKS_TRY(get_array(r, v, name, &item, &n, &et));
	if (!n)
		return HKS_OK;
	if (kind_of(r, et) != HKS_TAG_POINTER || r->tf->items[item].elem_size < 4)
		return hks_fail(r->ctx, HKS_E_MALFORMED, file_off(r, r->tf->items[item].offset),
		                "member %s: elements are not pointers", name);
	for (uint32_t i = 0; i < n; i++) {
		tag_view e = element(r, item, i);
		uint32_t obj = 0;
		HKS_TRY(item_ref(r, e.off, HKS_TAG_ITEM_OBJECT, name, &obj));
		if (obj)
			HKS_TRY(fn(r, obj));
	}
	return HKS_OK;
}

static void set_object_context(tag_reader *r, uint32_t item)
{
	hks_err_object_item(r->ctx, hks_tag_type_name(r->t, r->tf->items[item].type), item);
	hks_err_member(r->ctx, "");
}

/* ---- objects of the animation model ---- */

static hks_result add_reference_frame(tag_reader *r, uint32_t item, int32_t *index)
{
	if (r->frame_of_item[item] >= 0) {
		*index = r->frame_of_item[item];
		return HKS_OK;
	}
	hks_file *f = r->file;
	if (f->num_reference_frames >= r->cap_frames)
		return hks_fail(r->ctx, HKS_E_INTERNAL, -1, "reference frame count exceeds its bound");
	set_object_context(r, item);
	hks_reference_frame *rf = &f->reference_frames[f->num_reference_frames];
	tag_view v = object_view(r, item);
	rf->class_name = hks_tag_type_name(r->t, v.type);
	if (is_class(r, v.type, CLASS_DEFAULT_FRAME)) {
		HKS_TRY(get_vec4(r, &v, "up", rf->up));
		HKS_TRY(get_vec4(r, &v, "forward", rf->forward));
		HKS_TRY(get_f32(r, &v, "duration", &rf->duration));
		void *samples;
		HKS_TRY(get_scalar_array(r, &v, "referenceFrameSamples", 16, &samples, &rf->num_samples));
		rf->samples = (const float(*)[4])samples;
	}
	*index = (int32_t)f->num_reference_frames;
	r->frame_of_item[item] = *index;
	f->num_reference_frames++;
	return HKS_OK;
}

static hks_result read_spline(tag_reader *r, const tag_view *v, hks_animation *a)
{
	hks_spline_header *s = &a->spline;
	HKS_TRY(get_i32(r, v, "numFrames", &s->num_frames));
	HKS_TRY(get_i32(r, v, "numBlocks", &s->num_blocks));
	HKS_TRY(get_i32(r, v, "maxFramesPerBlock", &s->max_frames_per_block));
	HKS_TRY(get_i32(r, v, "maskAndQuantizationSize", &s->mask_and_quantization_size));
	HKS_TRY(get_f32(r, v, "blockDuration", &s->block_duration));
	HKS_TRY(get_f32(r, v, "blockInverseDuration", &s->block_inverse_duration));
	HKS_TRY(get_f32(r, v, "frameDuration", &s->frame_duration));
	HKS_TRY(get_i32(r, v, "endian", &s->endian));
	void *p;
	HKS_TRY(get_scalar_array(r, v, "blockOffsets", 4, &p, &s->num_block_offsets));
	s->block_offsets = (const uint32_t *)p;
	HKS_TRY(get_scalar_array(r, v, "floatBlockOffsets", 4, &p, &s->num_float_block_offsets));
	s->float_block_offsets = (const uint32_t *)p;
	HKS_TRY(get_scalar_array(r, v, "transformOffsets", 4, &p, &s->num_transform_offsets));
	s->transform_offsets = (const uint32_t *)p;
	HKS_TRY(get_scalar_array(r, v, "floatOffsets", 4, &p, &s->num_float_offsets));
	s->float_offsets = (const uint32_t *)p;
	uint32_t item, n, et;
	HKS_TRY(get_array(r, v, "data", &item, &n, &et));
	if (n) {
		if (r->tf->items[item].elem_size != 1)
			return hks_fail(r->ctx, HKS_E_MALFORMED, file_off(r, r->tf->items[item].offset),
			                "member data: elements are not bytes");
		s->data = r->data + r->tf->items[item].offset; /* the file copy lives in the arena */
		s->data_size = n;
		a->data_offset = file_off(r, r->tf->items[item].offset);
	}
	return HKS_OK;
}

static hks_result add_animation(tag_reader *r, uint32_t item, int32_t *index)
{
	if (r->anim_of_item[item] >= 0) {
		*index = r->anim_of_item[item];
		return HKS_OK;
	}
	hks_file *f = r->file;
	if (f->num_animations >= r->cap_anims)
		return hks_fail(r->ctx, HKS_E_INTERNAL, -1, "animation count exceeds its bound");
	uint32_t ai = f->num_animations;
	hks_animation *a = &f->animations[ai];
	tag_view v = object_view(r, item);
	set_object_context(r, item);
	hks_err_location(r->ctx, (int32_t)ai, -1, -1, HKS_PART_NONE);
	a->class_name = hks_tag_type_name(r->t, v.type);
	a->reference_frame = -1;
	a->object_offset = file_off(r, v.off);
	a->data_offset = -1;
	/* register first: a cycle through extractedMotion cannot recurse here again */
	r->anim_of_item[item] = (int32_t)ai;
	r->tf->animation_items[ai] = item;
	f->num_animations++;
	r->tf->num_animation_items = f->num_animations;

	HKS_TRY(get_i32(r, &v, "type", &a->type));
	HKS_TRY(get_f32(r, &v, "duration", &a->duration));
	HKS_TRY(get_i32(r, &v, "numberOfTransformTracks", &a->number_of_transform_tracks));
	HKS_TRY(get_i32(r, &v, "numberOfFloatTracks", &a->number_of_float_tracks));
	if (!strcmp(a->class_name, "hkaSplineCompressedAnimation")) {
		a->kind = HKS_ANIMATION_SPLINE;
		HKS_TRY(read_spline(r, &v, a));
	} else if (!strcmp(a->class_name, "hkaInterleavedUncompressedAnimation")) {
		a->kind = HKS_ANIMATION_INTERLEAVED;
		void *p;
		HKS_TRY(get_scalar_array(r, &v, "transforms", 48, &p, &a->num_transforms));
		a->transforms = (const hks_qs_transform *)p;
		HKS_TRY(get_scalar_array(r, &v, "floats", 4, &p, &a->num_floats));
		a->floats = (const float *)p;
	} else {
		a->kind = HKS_ANIMATION_OTHER;
	}
	uint32_t motion;
	HKS_TRY(get_ref(r, &v, "extractedMotion", &motion));
	if (motion) {
		int32_t fi = -1;
		HKS_TRY(add_reference_frame(r, motion, &fi));
		f->animations[ai].reference_frame = fi;
	}
	uint32_t tracks, n, et;
	set_object_context(r, item);
	HKS_TRY(get_array(r, &v, "annotationTracks", &tracks, &n, &et));
	if (n) {
		const char **names = (const char **)hks_arena_array(r->arena, n, sizeof(char *));
		if (!names)
			return nomem(r->ctx);
		for (uint32_t i = 0; i < n; i++) {
			tag_view e = element(r, tracks, i);
			HKS_TRY(get_string(r, &e, "trackName", &names[i]));
		}
		a->annotation_track_names = names;
		a->num_annotation_tracks = n;
	}
	hks_err_location(r->ctx, -1, -1, -1, HKS_PART_NONE);
	*index = (int32_t)ai;
	return HKS_OK;
}

static hks_result animation_fn(tag_reader *r, uint32_t item)
{
	int32_t ignored = -1;
	if (!is_class(r, r->tf->items[item].type, CLASS_ANIMATION))
		return HKS_OK;
	return add_animation(r, item, &ignored);
}

static hks_result binding_fn(tag_reader *r, uint32_t item)
{
	if (r->binding_seen[item] || !is_class(r, r->tf->items[item].type, CLASS_BINDING))
		return HKS_OK;
	hks_file *f = r->file;
	if (f->num_bindings >= r->cap_bindings)
		return hks_fail(r->ctx, HKS_E_INTERNAL, -1, "binding count exceeds its bound");
	r->binding_seen[item] = 1;
	hks_binding *b = &f->bindings[f->num_bindings++];
	tag_view v = object_view(r, item);
	set_object_context(r, item);
	b->animation = -1;
	HKS_TRY(get_string(r, &v, "originalSkeletonName", &b->original_skeleton_name));
	uint32_t anim;
	HKS_TRY(get_ref(r, &v, "animation", &anim));
	void *p;
	HKS_TRY(get_scalar_array(r, &v, "transformTrackToBoneIndices", 2, &p, &b->num_transform_track_to_bone_indices));
	b->transform_track_to_bone_indices = (const int16_t *)p;
	HKS_TRY(get_scalar_array(r, &v, "floatTrackToFloatSlotIndices", 2, &p,
	                         &b->num_float_track_to_float_slot_indices));
	b->float_track_to_float_slot_indices = (const int16_t *)p;
	HKS_TRY(get_scalar_array(r, &v, "partitionIndices", 2, &p, &b->num_partition_indices));
	b->partition_indices = (const int16_t *)p;
	int64_t hint = 0;
	HKS_TRY(get_int(r, &v, "blendHint", &hint));
	b->blend_hint = (int8_t)hint;
	if (anim && is_class(r, r->tf->items[anim].type, CLASS_ANIMATION)) {
		int32_t ai = -1;
		HKS_TRY(add_animation(r, anim, &ai)); /* shared with container.animations (§2.10) */
		b->animation = ai;
	}
	return HKS_OK;
}

static hks_result skeleton_fn(tag_reader *r, uint32_t item)
{
	if (r->skel_of_item[item] >= 0 || !is_class(r, r->tf->items[item].type, CLASS_SKELETON))
		return HKS_OK;
	hks_file *f = r->file;
	if (f->num_skeletons >= r->cap_skels)
		return hks_fail(r->ctx, HKS_E_INTERNAL, -1, "skeleton count exceeds its bound");
	r->skel_of_item[item] = (int32_t)f->num_skeletons;
	hks_skeleton *s = &f->skeletons[f->num_skeletons++];
	tag_view v = object_view(r, item);
	set_object_context(r, item);
	HKS_TRY(get_string(r, &v, "name", &s->name));
	void *p;
	HKS_TRY(get_scalar_array(r, &v, "parentIndices", 2, &p, &s->num_parent_indices));
	s->parent_indices = (const int16_t *)p;
	HKS_TRY(get_scalar_array(r, &v, "referencePose", 48, &p, &s->num_reference_pose));
	s->reference_pose = (const hks_qs_transform *)p;
	HKS_TRY(get_scalar_array(r, &v, "referenceFloats", 4, &p, &s->num_reference_floats));
	s->reference_floats = (const float *)p;
	uint32_t bones, n, et;
	HKS_TRY(get_array(r, &v, "bones", &bones, &n, &et));
	if (n) {
		const char **names = (const char **)hks_arena_array(r->arena, n, sizeof(char *));
		uint8_t *lock = (uint8_t *)hks_arena_alloc(r->arena, n);
		if (!names || !lock)
			return nomem(r->ctx);
		for (uint32_t i = 0; i < n; i++) {
			tag_view e = element(r, bones, i);
			int64_t lt = 0;
			HKS_TRY(get_string(r, &e, "name", &names[i]));
			HKS_TRY(get_int(r, &e, "lockTranslation", &lt));
			lock[i] = lt != 0;
		}
		s->bone_names = names;
		s->lock_translation = lock;
		s->num_bones = n;
	}
	uint32_t slots;
	HKS_TRY(get_array(r, &v, "floatSlots", &slots, &n, &et));
	if (n) {
		if (kind_of(r, et) != HKS_TAG_STRING || r->tf->items[slots].elem_size < 4)
			return hks_fail(r->ctx, HKS_E_MALFORMED, file_off(r, r->tf->items[slots].offset),
			                "floatSlots: elements are not strings");
		const char **names = (const char **)hks_arena_array(r->arena, n, sizeof(char *));
		if (!names)
			return nomem(r->ctx);
		for (uint32_t i = 0; i < n; i++)
			HKS_TRY(string_at(r, element(r, slots, i).off, "floatSlots", &names[i]));
		s->float_slots = names;
		s->num_float_slots = n;
	}
	return HKS_OK;
}

static hks_result container_fn(tag_reader *r, uint32_t item)
{
	tag_view v = object_view(r, item);
	set_object_context(r, item);
	HKS_TRY(for_each_pointer(r, &v, "skeletons", skeleton_fn));
	set_object_context(r, item);
	HKS_TRY(for_each_pointer(r, &v, "animations", animation_fn));
	set_object_context(r, item);
	HKS_TRY(for_each_pointer(r, &v, "bindings", binding_fn));
	return HKS_OK;
}

/* A root variant: handled by its class (CONTAINERS.md §2.12). */
static hks_result variant_fn(tag_reader *r, uint32_t item)
{
	/* a container named by many variants is read once (bounded work) */
	if (r->variant_seen[item])
		return HKS_OK;
	r->variant_seen[item] = 1;
	uint32_t type = r->tf->items[item].type;
	if (is_class(r, type, CLASS_CONTAINER))
		return container_fn(r, item);
	if (is_class(r, type, CLASS_SKELETON))
		return skeleton_fn(r, item);
	if (is_class(r, type, CLASS_ANIMATION))
		return animation_fn(r, item);
	if (is_class(r, type, CLASS_BINDING))
		return binding_fn(r, item);
	return HKS_OK;
}

static hks_result read_objects(tag_reader *r)
{
	hks_tagfile *tf = r->tf;
	hks_file *f = r->file;
	uint32_t n = tf->num_items;
	HKS_TRY(compute_class_bits(r));
	r->anim_of_item = (int32_t *)hks_arena_array(r->arena, n, sizeof(int32_t));
	r->frame_of_item = (int32_t *)hks_arena_array(r->arena, n, sizeof(int32_t));
	r->skel_of_item = (int32_t *)hks_arena_array(r->arena, n, sizeof(int32_t));
	r->binding_seen = (uint8_t *)hks_arena_alloc(r->arena, n);
	r->variant_seen = (uint8_t *)hks_arena_alloc(r->arena, n);
	if (!r->anim_of_item || !r->frame_of_item || !r->skel_of_item || !r->binding_seen || !r->variant_seen)
		return nomem(r->ctx);
	/* bound every list by the object items of its class, before allocating */
	for (uint32_t i = 0; i < n; i++) {
		r->anim_of_item[i] = r->frame_of_item[i] = r->skel_of_item[i] = -1;
		if (tf->items[i].kind != HKS_TAG_ITEM_OBJECT)
			continue;
		uint32_t t = tf->items[i].type;
		r->cap_anims += (uint32_t)is_class(r, t, CLASS_ANIMATION);
		r->cap_frames += (uint32_t)is_class(r, t, CLASS_FRAME);
		r->cap_skels += (uint32_t)is_class(r, t, CLASS_SKELETON);
		r->cap_bindings += (uint32_t)is_class(r, t, CLASS_BINDING);
	}
	f->animations = r->cap_anims ? (hks_animation *)hks_arena_array(r->arena, r->cap_anims, sizeof(hks_animation)) : NULL;
	tf->animation_items = r->cap_anims ? (uint32_t *)hks_arena_array(r->arena, r->cap_anims, 4) : NULL;
	f->reference_frames = r->cap_frames ? (hks_reference_frame *)hks_arena_array(r->arena, r->cap_frames,
	                                                                              sizeof(hks_reference_frame)) : NULL;
	f->skeletons = r->cap_skels ? (hks_skeleton *)hks_arena_array(r->arena, r->cap_skels, sizeof(hks_skeleton)) : NULL;
	f->bindings = r->cap_bindings ? (hks_binding *)hks_arena_array(r->arena, r->cap_bindings, sizeof(hks_binding)) : NULL;
	if ((r->cap_anims && (!f->animations || !tf->animation_items)) || (r->cap_frames && !f->reference_frames) ||
	    (r->cap_skels && !f->skeletons) || (r->cap_bindings && !f->bindings))
		return nomem(r->ctx);

	if (n < 2 || tf->items[1].kind != HKS_TAG_ITEM_OBJECT)
		return hks_fail(r->ctx, HKS_E_MALFORMED, -1, "item 1 (the root object) is missing");
	/* item 1 is the root, hkRootLevelContainer (§2.9) */
	tag_view root = object_view(r, 1);
	set_object_context(r, 1);
	uint32_t variants, nv, et;
	HKS_TRY(get_array(r, &root, "namedVariants", &variants, &nv, &et));
	for (uint32_t i = 0; i < nv; i++) {
		tag_view e = element(r, variants, i);
		uint32_t obj;
		set_object_context(r, 1);
		HKS_TRY(get_ref(r, &e, "variant", &obj));
		if (obj)
			HKS_TRY(variant_fn(r, obj));
	}
	return HKS_OK;
}

/* ---- sections, ITEM, PTCH ---- */

static hks_result read_items(tag_reader *r, const hks_tag_section *s)
{
	hks_tagfile *tf = r->tf;
	const uint8_t *p = tf->bytes + s->offset + 8;
	uint32_t n = (s->size - 8) / 12;
	hks_err_object(r->ctx, "section ITEM");
	hks_err_member(r->ctx, "");
	if ((s->size - 8) % 12)
		return hks_fail(r->ctx, HKS_E_MALFORMED, s->offset, "ITEM size %u is not a multiple of 12", s->size - 8);
	if (n > r->ctx->limits.max_objects)
		return hks_fail(r->ctx, HKS_E_LIMIT, s->offset, "%u items exceed the limit of %u objects", n,
		                r->ctx->limits.max_objects);
	tf->items = n ? (hks_tag_item *)hks_arena_array(r->arena, n, sizeof(hks_tag_item)) : NULL;
	if (n && !tf->items)
		return nomem(r->ctx);
	tf->num_items = n;
	for (uint32_t i = 0; i < n; i++) {
		int64_t at = (int64_t)s->offset + 8 + 12 * (int64_t)i;
		uint32_t tk = hks_le32(p + 12 * i);
		hks_tag_item *it = &tf->items[i];
		it->type = tk & 0x00FFFFFFu;
		it->kind = tk >> 28;
		it->offset = hks_le32(p + 12 * i + 4);
		it->count = hks_le32(p + 12 * i + 8);
		if (i == 0)
			continue; /* the null item */
		if (it->kind != HKS_TAG_ITEM_OBJECT && it->kind != HKS_TAG_ITEM_ARRAY)
			return hks_fail(r->ctx, HKS_E_MALFORMED, at, "item %u: unknown kind 0x%X", i, tk);
		if (it->type == 0 || it->type >= r->t->count)
			return hks_fail(r->ctx, HKS_E_MALFORMED, at, "item %u: type index %u out of range (%u types)", i,
			                it->type, r->t->count);
		it->elem_size = r->t->types[it->type].r_size;
		if (it->kind == HKS_TAG_ITEM_OBJECT && it->count != 1)
			return hks_fail(r->ctx, HKS_E_MALFORMED, at, "item %u: object with count %u", i, it->count);
		/* elements of size 0 take no DATA bytes, so the range check below bounds nothing: bound
		 * their count by max_objects (each is an object the writer walks; fuzz_tagfile found
		 * 4e9 of them costing 24 s) */
		if (it->elem_size == 0 && it->count > r->ctx->limits.max_objects)
			return hks_fail(r->ctx, HKS_E_LIMIT, at, "item %u (%s): %u elements of 0 bytes exceed the limit of %u objects",
			                i, r->t->types[it->type].name, it->count, r->ctx->limits.max_objects);
		if (!hks_range_ok(tf->data_size, it->offset, (uint64_t)it->count * it->elem_size))
			return hks_fail(r->ctx, HKS_E_MALFORMED, at, "item %u (%s): %u x %u bytes at %u run past DATA (%u bytes)",
			                i, r->t->types[it->type].name, it->count, it->elem_size, it->offset, tf->data_size);
	}
	return HKS_OK;
}

/* PTCH (§2.9) is only a cross-check for a reader: validate its framing and ranges. */
static hks_result check_patches(tag_reader *r, const hks_tag_section *s)
{
	hks_cursor c = hks_cursor_make(r->ctx, r->tf->bytes + s->offset + 8, s->size - 8, s->offset + 8);
	hks_err_object(r->ctx, "section PTCH");
	hks_err_member(r->ctx, "");
	while (c.pos < c.size) {
		int64_t at = hks_cursor_offset(&c);
		uint32_t type, n;
		HKS_TRY(hks_read_le32(&c, &type, "patch type"));
		HKS_TRY(hks_read_le32(&c, &n, "patch count"));
		if (type >= r->t->count)
			return hks_fail(r->ctx, HKS_E_MALFORMED, at, "patch group type %u out of range", type);
		if (n > (c.size - c.pos) / 4)
			return hks_fail(r->ctx, HKS_E_TRUNCATED, at, "patch group of %u offsets runs past PTCH", n);
		for (uint32_t i = 0; i < n; i++) {
			uint32_t off;
			HKS_TRY(hks_read_le32(&c, &off, "patch offset"));
			if (!hks_range_ok(r->tf->data_size, off, 4))
				return hks_fail(r->ctx, HKS_E_MALFORMED, hks_cursor_offset(&c) - 4,
				                "patch offset %u outside DATA (%u bytes)", off, r->tf->data_size);
		}
	}
	return HKS_OK;
}

hks_result hks_tagfile_parse(hks_ctx *ctx, const uint8_t *data, size_t size, const hks_compendium_set *compendiums,
                             hks_file *file)
{
	hks_arena *arena = file->internal->arena;
	tag_reader r;
	memset(&r, 0, sizeof(r));
	r.ctx = ctx;
	r.arena = arena;
	r.file = file;
	hks_tagfile *tf = (hks_tagfile *)hks_arena_alloc(arena, sizeof(hks_tagfile));
	if (!tf)
		return nomem(ctx);
	r.tf = tf;
	tf->bytes = data;
	tf->size = size;
	file->internal->tagfile = tf;
	file->pointer_size = 8;

	hks_cursor c = hks_cursor_make(ctx, data, size, 0);
	hks_tag_section root;
	hks_err_object(ctx, "file header");
	HKS_TRY(hks_tag_read_section(&c, &root));
	tf->is_compendium = !strcmp(root.tag, "TCM0");
	if (strcmp(root.tag, "TAG0") && !tf->is_compendium)
		return hks_fail(ctx, HKS_E_MALFORMED, 4, "not a tagfile (section %s)", root.tag);
	if (root.flags != 0)
		return hks_fail(ctx, HKS_E_MALFORMED, 0, "%s is not a container section", root.tag);
	tf->root_size = root.size;
	file->container = tf->is_compendium ? HKS_CONTAINER_COMPENDIUM : HKS_CONTAINER_TAGFILE;

	/* the children of TAG0 / TCM0: each at least 8 bytes */
	uint32_t max_top = (root.size - 8) / 8;
	tf->top = max_top ? (hks_tag_section *)hks_arena_array(arena, max_top, sizeof(hks_tag_section)) : NULL;
	if (max_top && !tf->top)
		return nomem(ctx);
	hks_cursor body = hks_cursor_make(ctx, data, root.size, 0);
	body.pos = 8;
	const hks_tag_section *type_s = NULL, *tcrf_s = NULL, *indx_s = NULL, *tcid_s = NULL, *data_s = NULL;
	while (body.pos < body.size) {
		/* A root of 9..15 bytes leaves max_top = 0 (no array) with bytes
		 * still to read: read the header into a scratch record, which fails
		 * as truncated, instead of indexing the absent array (fuzz_compendium
		 * crasher). Sections are >= 8 bytes, so max_top bounds num_top. */
		hks_tag_section scratch;
		hks_tag_section *s = tf->num_top < max_top ? &tf->top[tf->num_top] : &scratch;
		hks_err_object(ctx, "section %s", root.tag);
		HKS_TRY(hks_tag_read_section(&body, s));
		if (s == &scratch)
			return hks_fail(ctx, HKS_E_MALFORMED, s->offset, "%s holds more sections than fit in it", root.tag);
		tf->num_top++;
		body.pos = s->offset + s->size;
		if (!strcmp(s->tag, "SDKV")) {
			size_t n = s->size - 8 < sizeof(file->sdk) - 1 ? s->size - 8 : sizeof(file->sdk) - 1;
			for (size_t i = 0; i < n && data[s->offset + 8 + i]; i++)
				file->sdk[i] = (char)data[s->offset + 8 + i];
		} else if (!strcmp(s->tag, "DATA")) {
			data_s = s;
		} else if (!strcmp(s->tag, "TYPE")) {
			type_s = s;
		} else if (!strcmp(s->tag, "TCRF")) {
			tcrf_s = s;
		} else if (!strcmp(s->tag, "INDX")) {
			indx_s = s;
		} else if (!strcmp(s->tag, "TCID")) {
			tcid_s = s;
		}
	}

	if (tf->is_compendium) {
		/* TCM0 { TCID, TYPE } (§2.11): types only, no objects */
		if (!tcid_s || !type_s)
			return hks_fail(ctx, HKS_E_MALFORMED, 0, "compendium without %s section", !tcid_s ? "TCID" : "TYPE");
		if ((tcid_s->size - 8) % 8)
			return hks_fail(ctx, HKS_E_MALFORMED, tcid_s->offset, "TCID size %u is not a multiple of 8",
			                tcid_s->size - 8);
		file->num_compendium_ids = (tcid_s->size - 8) / 8;
		file->compendium_ids = (const uint8_t(*)[8])(data + tcid_s->offset + 8);
		hks_tag_types *types;
		HKS_TRY(hks_tag_parse_types(ctx, arena, data + type_s->offset + 8, type_s->size - 8, type_s->offset + 8,
		                            &types));
		tf->types = types;
		hks_err_object(ctx, "%s", "");
		hks_err_member(ctx, "");
		return HKS_OK;
	}

	if (!data_s || !indx_s)
		return hks_fail(ctx, HKS_E_MALFORMED, 0, "tagfile without %s section", !data_s ? "DATA" : "INDX");
	tf->data_offset = data_s->offset + 8;
	tf->data_size = data_s->size - 8;
	r.data = data + tf->data_offset;
	r.data_size = tf->data_size;

	hks_tag_types *types = NULL;
	if (type_s) {
		HKS_TRY(hks_tag_parse_types(ctx, arena, data + type_s->offset + 8, type_s->size - 8, type_s->offset + 8,
		                            &types));
	} else if (tcrf_s) {
		hks_err_object(ctx, "section TCRF");
		if (tcrf_s->size - 8 < 8)
			return hks_fail(ctx, HKS_E_MALFORMED, tcrf_s->offset, "TCRF payload of %u bytes holds no ID",
			                tcrf_s->size - 8);
		memcpy(file->compendium_id, data + tcrf_s->offset + 8, 8);
		file->has_compendium_reference = 1;
		size_t tsize = 0;
		const uint8_t *tbytes = hks_compendium_set_type_bytes(compendiums, file->compendium_id, &tsize);
		if (!tbytes) {
			char id[17];
			hks_format_id(file->compendium_id, id);
			return hks_fail(ctx, HKS_E_COMPENDIUM, tcrf_s->offset,
			                "compendium %s not found (searched %zu compendiums); pass the folder or binder that "
			                "holds it (--compendium)", id, hks_compendium_set_count(compendiums));
		}
		/* a private copy: the file must not depend on the set's lifetime */
		const uint8_t *copy = (const uint8_t *)hks_arena_dup(arena, tbytes, tsize);
		if (!copy)
			return nomem(ctx);
		HKS_TRY(hks_tag_parse_types(ctx, arena, copy, tsize, -1, &types));
	} else {
		return hks_fail(ctx, HKS_E_MALFORMED, 0, "tagfile without TYPE or TCRF section");
	}
	tf->types = types;
	r.t = types;

	/* INDX { ITEM, PTCH } */
	hks_cursor ic = hks_cursor_make(ctx, data, indx_s->offset + indx_s->size, 0);
	ic.pos = indx_s->offset + 8;
	const hks_tag_section *item_s = NULL, *ptch_s = NULL;
	hks_tag_section sub[8];
	uint32_t nsub = 0;
	while (ic.pos < ic.size) {
		hks_tag_section s;
		hks_err_object(ctx, "section INDX");
		HKS_TRY(hks_tag_read_section(&ic, &s));
		ic.pos = s.offset + s.size;
		if (nsub < 8 && (!strcmp(s.tag, "ITEM") || !strcmp(s.tag, "PTCH"))) {
			sub[nsub] = s;
			if (!strcmp(s.tag, "ITEM"))
				item_s = &sub[nsub];
			else
				ptch_s = &sub[nsub];
			nsub++;
		}
	}
	if (!item_s)
		return hks_fail(ctx, HKS_E_MALFORMED, indx_s->offset, "INDX without ITEM");
	HKS_TRY(read_items(&r, item_s));
	if (ptch_s)
		HKS_TRY(check_patches(&r, ptch_s));
	HKS_TRY(read_objects(&r));
	/* success: no stale context in the caller's error record */
	hks_err_object(ctx, "%s", "");
	hks_err_member(ctx, "");
	return HKS_OK;
}
