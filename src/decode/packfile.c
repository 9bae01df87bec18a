/*
 * Binary Havok packfiles (CONTAINERS.md §5): hk_2010.2.0-r1 (file versions 8
 * and 9, 32- and 64-bit) and hk_2014.1.0-r1 (version 11, with the DS3 /
 * Bloodborne predicate header extension).
 *
 * Reading is in three steps:
 *   1. header and section headers, every offset checked against the file;
 *   2. the data section's local / global / virtual fixup tables (padding
 *      entries with src = -1 skipped), every entry checked against the
 *      section bounds; the virtual fixups name each object's class;
 *   3. the object graph from the contents root (hkRootLevelContainer ->
 *      named variants -> hkaAnimationContainer -> animations, bindings,
 *      skeletons), with member offsets from the flavour's layout
 *      (packfile_layout.c). Pointers are resolved only through fixups: the
 *      pointer slots themselves are zero in the file (§5.4).
 */
#include "packfile.h"

#include <stdlib.h>

static const uint8_t packfile_magic[8] = {0x57, 0xE0, 0xE0, 0x57, 0x10, 0xC0, 0xC0, 0x10};

#define PF_HEADER_SIZE 0x40u
#define PF_NO_OBJECT UINT32_MAX

typedef struct pf_object_key {
	uint32_t offset, index;
} pf_object_key;

typedef struct pf_reader {
	hks_ctx *ctx;
	hks_arena *arena;
	hks_file *file;
	struct hks_packfile *pf;
	const hks_pf_layout *lay;
	const uint8_t *sec;       /* data part of the data section */
	uint32_t sec_len;
	uint32_t sec_base;        /* its file offset */
	hks_pf_local *loc_sorted; /* sorted by src */
	hks_pf_global *glo_sorted;
	pf_object_key *obj_sorted; /* objects sorted by offset */
	uint32_t *anim_objects;   /* data offset of each file animation's object */
} pf_reader;

static int64_t file_off(const pf_reader *r, uint64_t rel) { return (int64_t)r->sec_base + (int64_t)rel; }

static int cmp_local(const void *a, const void *b)
{
	const hks_pf_local *x = (const hks_pf_local *)a, *y = (const hks_pf_local *)b;
	return x->src < y->src ? -1 : x->src > y->src;
}
static int cmp_global(const void *a, const void *b)
{
	const hks_pf_global *x = (const hks_pf_global *)a, *y = (const hks_pf_global *)b;
	return x->src < y->src ? -1 : x->src > y->src;
}
static int cmp_object_key(const void *a, const void *b)
{
	const pf_object_key *x = (const pf_object_key *)a, *y = (const pf_object_key *)b;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static bool find_local(const pf_reader *r, uint32_t src, uint32_t *dst)
{
	size_t lo = 0, hi = r->pf->num_locals;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->loc_sorted[mid].src < src)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < r->pf->num_locals && r->loc_sorted[lo].src == src) {
		*dst = r->loc_sorted[lo].dst;
		return true;
	}
	return false;
}

static const hks_pf_global *find_global(const pf_reader *r, uint32_t src)
{
	size_t lo = 0, hi = r->pf->num_globals;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->glo_sorted[mid].src < src)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < r->pf->num_globals && r->glo_sorted[lo].src == src)
		return &r->glo_sorted[lo];
	return NULL;
}

/* Index of the object starting at data offset `off`, or PF_NO_OBJECT. */
static uint32_t find_object(const pf_reader *r, uint32_t off)
{
	size_t lo = 0, hi = r->pf->num_objects;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->obj_sorted[mid].offset < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < r->pf->num_objects && r->obj_sorted[lo].offset == off)
		return r->obj_sorted[lo].index;
	return PF_NO_OBJECT;
}

/* ---- member readers (offsets relative to the data section) ------------- */

static hks_result need(pf_reader *r, uint32_t rel, uint32_t n, const char *member)
{
	if (!hks_range_ok(r->sec_len, rel, n)) {
		hks_err_member(r->ctx, member);
		return hks_fail(r->ctx, HKS_E_TRUNCATED, file_off(r, rel),
		                "member %s (%u bytes at data offset %u) runs past the data section (%u bytes)", member, n,
		                rel, r->sec_len);
	}
	return HKS_OK;
}

static hks_result rd_u32(pf_reader *r, uint32_t rel, uint32_t *v, const char *member)
{
	HKS_TRY(need(r, rel, 4, member));
	*v = hks_le32(r->sec + rel);
	return HKS_OK;
}

static hks_result rd_i32(pf_reader *r, uint32_t rel, int32_t *v, const char *member)
{
	uint32_t u = 0;
	HKS_TRY(rd_u32(r, rel, &u, member));
	*v = (int32_t)u;
	return HKS_OK;
}

static hks_result rd_f32(pf_reader *r, uint32_t rel, float *v, const char *member)
{
	uint32_t u = 0;
	HKS_TRY(rd_u32(r, rel, &u, member));
	*v = hks_f32_from_bits(u);
	return HKS_OK;
}

/* A pointer member to an object: resolved through a global (or local) fixup.
 * *index = PF_NO_OBJECT for a null pointer. */
static hks_result rd_object_ptr(pf_reader *r, uint32_t rel, uint32_t *index, const char *member)
{
	HKS_TRY(need(r, rel, r->lay->pointer, member));
	*index = PF_NO_OBJECT;
	uint32_t dst;
	const hks_pf_global *g = find_global(r, rel);
	if (g) {
		if (g->section != r->pf->data_section) {
			hks_err_member(r->ctx, member);
			return hks_fail(r->ctx, HKS_E_UNSUPPORTED, file_off(r, rel),
			                "pointer %s points into section %u, not the data section", member, g->section);
		}
		dst = g->dst;
	} else if (!find_local(r, rel, &dst)) {
		return HKS_OK;
	}
	*index = find_object(r, dst);
	if (*index == PF_NO_OBJECT) {
		hks_err_member(r->ctx, member);
		return hks_fail(r->ctx, HKS_E_MALFORMED, file_off(r, rel),
		                "pointer %s targets data offset %u where no object starts (no virtual fixup)", member, dst);
	}
	return HKS_OK;
}

/* An hkArray member: {ptr, i32 size, i32 capacityAndFlags}; the elements
 * are where the local fixup of the pointer slot says (§3.1, §5.4). */
static hks_result rd_array(pf_reader *r, uint32_t rel, uint32_t elem_size, uint32_t *count, uint32_t *dst,
                           const char *member)
{
	HKS_TRY(need(r, rel, r->lay->array, member));
	uint32_t n = hks_le32(r->sec + rel + r->lay->pointer);
	*count = 0;
	*dst = 0;
	if (n == 0)
		return HKS_OK;
	uint32_t at;
	if (!find_local(r, rel, &at)) {
		hks_err_member(r->ctx, member);
		return hks_fail(r->ctx, HKS_E_MALFORMED, file_off(r, rel),
		                "array %s has %u elements but no local fixup for its pointer", member, n);
	}
	if (!hks_range_ok(r->sec_len, at, (uint64_t)n * elem_size)) {
		hks_err_member(r->ctx, member);
		return hks_fail(r->ctx, HKS_E_MALFORMED, file_off(r, rel),
		                "array %s: %u elements of %u bytes at data offset %u run past the data section (%u bytes)",
		                member, n, elem_size, at, r->sec_len);
	}
	*count = n;
	*dst = at;
	return HKS_OK;
}

/* An hkStringPtr / char* member: a local fixup to a NUL-terminated string. */
static hks_result rd_string(pf_reader *r, uint32_t rel, const char **out, const char *member)
{
	HKS_TRY(need(r, rel, r->lay->pointer, member));
	*out = NULL;
	uint32_t at;
	if (!find_local(r, rel, &at))
		return HKS_OK;
	const uint8_t *s = r->sec + at;
	const uint8_t *nul = (const uint8_t *)memchr(s, 0, r->sec_len - at);
	if (!nul) {
		hks_err_member(r->ctx, member);
		return hks_fail(r->ctx, HKS_E_MALFORMED, file_off(r, at), "string %s is not NUL-terminated in the data section",
		                member);
	}
	*out = hks_arena_strndup(r->arena, (const char *)s, (size_t)(nul - s));
	return *out ? HKS_OK : HKS_E_NOMEM;
}

static hks_result rd_u32_array(pf_reader *r, uint32_t rel, const uint32_t **out, uint32_t *count, const char *member)
{
	uint32_t n, at;
	HKS_TRY(rd_array(r, rel, 4, &n, &at, member));
	*out = NULL;
	*count = n;
	if (!n)
		return HKS_OK;
	uint32_t *v = (uint32_t *)hks_arena_array(r->arena, n, 4);
	if (!v)
		return HKS_E_NOMEM;
	for (uint32_t i = 0; i < n; i++)
		v[i] = hks_le32(r->sec + at + 4u * i);
	*out = v;
	return HKS_OK;
}

static hks_result rd_i16_array(pf_reader *r, uint32_t rel, const int16_t **out, uint32_t *count, const char *member)
{
	uint32_t n, at;
	HKS_TRY(rd_array(r, rel, 2, &n, &at, member));
	*out = NULL;
	*count = n;
	if (!n)
		return HKS_OK;
	int16_t *v = (int16_t *)hks_arena_array(r->arena, n, 2);
	if (!v)
		return HKS_E_NOMEM;
	for (uint32_t i = 0; i < n; i++)
		v[i] = (int16_t)hks_le16(r->sec + at + 2u * i);
	*out = v;
	return HKS_OK;
}

static hks_result rd_f32_array(pf_reader *r, uint32_t rel, const float **out, uint32_t *count, const char *member)
{
	uint32_t n, at;
	HKS_TRY(rd_array(r, rel, 4, &n, &at, member));
	*out = NULL;
	*count = n;
	if (!n)
		return HKS_OK;
	float *v = (float *)hks_arena_array(r->arena, n, 4);
	if (!v)
		return HKS_E_NOMEM;
	for (uint32_t i = 0; i < n; i++)
		v[i] = hks_f32_from_bits(hks_le32(r->sec + at + 4u * i));
	*out = v;
	return HKS_OK;
}

static void load_vec4(const uint8_t *p, float out[4])
{
	for (int i = 0; i < 4; i++)
		out[i] = hks_f32_from_bits(hks_le32(p + 4 * i));
}

static hks_result rd_qs_array(pf_reader *r, uint32_t rel, const hks_qs_transform **out, uint32_t *count,
                              const char *member)
{
	uint32_t n, at;
	HKS_TRY(rd_array(r, rel, 48, &n, &at, member));
	*out = NULL;
	*count = n;
	if (!n)
		return HKS_OK;
	hks_qs_transform *v = (hks_qs_transform *)hks_arena_array(r->arena, n, sizeof(hks_qs_transform));
	if (!v)
		return HKS_E_NOMEM;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *p = r->sec + at + 48u * i;
		load_vec4(p, v[i].translation);
		load_vec4(p + 16, v[i].rotation);
		load_vec4(p + 32, v[i].scale);
	}
	*out = v;
	return HKS_OK;
}

/* An array of string pointers (elements of `stride` bytes, string at +0). */
static hks_result rd_string_array(pf_reader *r, uint32_t rel, uint32_t stride, const char *const **out,
                                  uint32_t *count, uint32_t *first, const char *member)
{
	uint32_t n, at;
	HKS_TRY(rd_array(r, rel, stride, &n, &at, member));
	*out = NULL;
	*count = n;
	if (first)
		*first = at;
	if (!n)
		return HKS_OK;
	const char **v = (const char **)hks_arena_array(r->arena, n, sizeof(char *));
	if (!v)
		return HKS_E_NOMEM;
	for (uint32_t i = 0; i < n; i++)
		HKS_TRY(rd_string(r, at + stride * i, &v[i], member));
	*out = v;
	return HKS_OK;
}

/* ---- header, sections, fixups ------------------------------------------ */

static hks_result parse_header(pf_reader *r, const uint8_t *data, size_t size)
{
	struct hks_packfile *pf = r->pf;
	hks_ctx *ctx = r->ctx;
	hks_err_object(ctx, "packfile header");
	if (size < PF_HEADER_SIZE)
		return hks_fail(ctx, HKS_E_TRUNCATED, (int64_t)size, "packfile header needs %u bytes, the file has %zu",
		                PF_HEADER_SIZE, size);
	if (memcmp(data, packfile_magic, 8) != 0)
		return hks_fail(ctx, HKS_E_MALFORMED, 0, "not a packfile (bad magic)");
	pf->file_version = hks_le32(data + 0x0C);
	memcpy(pf->rules, data + 0x10, 4);
	if (pf->rules[1] != 1)
		return hks_fail(ctx, HKS_E_UNSUPPORTED, 0x11, "big-endian packfiles are not supported");
	if (pf->rules[0] != 4 && pf->rules[0] != 8)
		return hks_fail(ctx, HKS_E_MALFORMED, 0x10, "pointer size %u in the layout rules", pf->rules[0]);
	pf->num_sections = hks_le32(data + 0x14);
	pf->contents_section = hks_le32(data + 0x18);
	pf->contents_offset = hks_le32(data + 0x1C);
	/* contentsVersion: 16 bytes, NUL-terminated (then 0xFF) */
	const uint8_t *ver = data + 0x28;
	const uint8_t *nul = (const uint8_t *)memchr(ver, 0, 16);
	size_t vlen = nul ? (size_t)(nul - ver) : 16;
	if (vlen >= sizeof(r->file->sdk))
		vlen = sizeof(r->file->sdk) - 1;
	memcpy(r->file->sdk, ver, vlen);
	r->file->sdk[vlen] = 0;
	int16_t max_predicate = (int16_t)hks_le16(data + 0x3C);
	int16_t predicate_bytes = (int16_t)hks_le16(data + 0x3E);
	pf->header_size = PF_HEADER_SIZE;
	/* §5.1: the v11 (DS3 / Bloodborne) extension follows the header when maxPredicate != -1 */
	if (max_predicate != -1) {
		if (predicate_bytes < 0)
			return hks_fail(ctx, HKS_E_MALFORMED, 0x3E, "negative predicateArraySizePlusPadding %d", predicate_bytes);
		pf->header_size += (uint32_t)predicate_bytes;
	}
	/* §5.2: 16 more bytes (0xFF) per section header after version 9 */
	pf->section_header_size = pf->file_version > 9 ? 64 : 48;
	if (pf->num_sections == 0 || pf->num_sections > 64)
		return hks_fail(ctx, HKS_E_MALFORMED, 0x14, "implausible section count %u", pf->num_sections);
	uint64_t headers_end = pf->header_size + (uint64_t)pf->num_sections * pf->section_header_size;
	if (headers_end > size)
		return hks_fail(ctx, HKS_E_TRUNCATED, (int64_t)size, "section headers end at %llu, the file has %zu bytes",
		                (unsigned long long)headers_end, size);
	r->file->pointer_size = pf->rules[0];
	r->file->file_version = pf->file_version;
	return HKS_OK;
}

static hks_result parse_sections(pf_reader *r, const uint8_t *data, size_t size)
{
	struct hks_packfile *pf = r->pf;
	hks_ctx *ctx = r->ctx;
	pf->sections = (hks_pf_section *)hks_arena_array(r->arena, pf->num_sections, sizeof(hks_pf_section));
	if (!pf->sections)
		return HKS_E_NOMEM;
	pf->data_section = UINT32_MAX;
	pf->classnames_section = UINT32_MAX;
	for (uint32_t i = 0; i < pf->num_sections; i++) {
		uint32_t at = pf->header_size + i * pf->section_header_size;
		hks_pf_section *s = &pf->sections[i];
		hks_err_object(ctx, "section header %u", i);
		memcpy(s->tag, data + at, 20);
		s->start = hks_le32(data + at + 20);
		s->local_fixups = hks_le32(data + at + 24);
		s->global_fixups = hks_le32(data + at + 28);
		s->virtual_fixups = hks_le32(data + at + 32);
		s->exports = hks_le32(data + at + 36);
		s->imports = hks_le32(data + at + 40);
		s->end = hks_le32(data + at + 44);
		s->extra = pf->section_header_size > 48 ? data + at + 48 : NULL;
		if (!(s->local_fixups <= s->global_fixups && s->global_fixups <= s->virtual_fixups &&
		      s->virtual_fixups <= s->exports && s->exports <= s->imports && s->imports <= s->end))
			return hks_fail(ctx, HKS_E_MALFORMED, at + 24, "section %u: fixup table offsets are not ascending", i);
		if (!hks_range_ok(size, s->start, s->end))
			return hks_fail(ctx, HKS_E_TRUNCATED, at + 20,
			                "section %u: %u bytes at %u run past the end of the file (%zu bytes)", i, s->end,
			                s->start, size);
		char tag[21];
		memcpy(tag, s->tag, 20);
		tag[20] = 0;
		if (!strcmp(tag, "__data__") && pf->data_section == UINT32_MAX)
			pf->data_section = i;
		else if (!strcmp(tag, "__classnames__") && pf->classnames_section == UINT32_MAX)
			pf->classnames_section = i;
	}
	hks_err_object(ctx, "packfile header");
	if (pf->data_section == UINT32_MAX)
		return hks_fail(ctx, HKS_E_MALFORMED, pf->header_size, "no __data__ section");
	if (pf->classnames_section == UINT32_MAX)
		return hks_fail(ctx, HKS_E_MALFORMED, pf->header_size, "no __classnames__ section");
	return HKS_OK;
}

static hks_result parse_fixups(pf_reader *r)
{
	struct hks_packfile *pf = r->pf;
	hks_ctx *ctx = r->ctx;
	const hks_pf_section *ds = &pf->sections[pf->data_section];
	const hks_pf_section *cs = &pf->sections[pf->classnames_section];
	const uint8_t *base = pf->bytes + ds->start;
	r->sec = base;
	r->sec_len = ds->local_fixups;
	r->sec_base = ds->start;
	const uint32_t P = pf->rules[0];

	/* local: {i32 src, i32 dst}; -1 src = padding (§5.4) */
	hks_err_object(ctx, "section __data__ local fixups");
	uint32_t nloc = (ds->global_fixups - ds->local_fixups) / 8;
	pf->locals = (hks_pf_local *)hks_arena_array(r->arena, nloc ? nloc : 1, sizeof(hks_pf_local));
	if (!pf->locals)
		return HKS_E_NOMEM;
	for (uint32_t i = 0; i < nloc; i++) {
		uint32_t at = ds->local_fixups + 8 * i;
		uint32_t src = hks_le32(base + at), dst = hks_le32(base + at + 4);
		if (src == UINT32_MAX)
			continue;
		if (!hks_range_ok(r->sec_len, src, P) || dst > r->sec_len)
			return hks_fail(ctx, HKS_E_MALFORMED, file_off(r, at),
			                "local fixup %u (src %u, dst %u) outside the data section (%u bytes)", i, src, dst,
			                r->sec_len);
		pf->locals[pf->num_locals].src = src;
		pf->locals[pf->num_locals].dst = dst;
		pf->num_locals++;
	}

	/* global: {i32 src, i32 dstSection, i32 dst} */
	hks_err_object(ctx, "section __data__ global fixups");
	uint32_t nglo = (ds->virtual_fixups - ds->global_fixups) / 12;
	pf->globals = (hks_pf_global *)hks_arena_array(r->arena, nglo ? nglo : 1, sizeof(hks_pf_global));
	if (!pf->globals)
		return HKS_E_NOMEM;
	for (uint32_t i = 0; i < nglo; i++) {
		uint32_t at = ds->global_fixups + 12 * i;
		uint32_t src = hks_le32(base + at), sec = hks_le32(base + at + 4), dst = hks_le32(base + at + 8);
		if (src == UINT32_MAX)
			continue;
		if (!hks_range_ok(r->sec_len, src, P))
			return hks_fail(ctx, HKS_E_MALFORMED, file_off(r, at),
			                "global fixup %u: src %u outside the data section (%u bytes)", i, src, r->sec_len);
		if (sec >= pf->num_sections || dst > pf->sections[sec].local_fixups)
			return hks_fail(ctx, HKS_E_MALFORMED, file_off(r, at + 4),
			                "global fixup %u: target section %u offset %u does not exist", i, sec, dst);
		hks_pf_global *g = &pf->globals[pf->num_globals++];
		g->src = src;
		g->section = sec;
		g->dst = dst;
	}

	/* virtual: {i32 object, i32 classNameSection, i32 classNameOffset}: one per object */
	hks_err_object(ctx, "section __data__ virtual fixups");
	uint32_t nvir = (ds->exports - ds->virtual_fixups) / 12;
	if (nvir > ctx->limits.max_objects)
		return hks_fail(ctx, HKS_E_LIMIT, file_off(r, ds->virtual_fixups), "%u objects exceed the limit of %u", nvir,
		                ctx->limits.max_objects);
	pf->objects = (hks_pf_object *)hks_arena_array(r->arena, nvir ? nvir : 1, sizeof(hks_pf_object));
	if (!pf->objects)
		return HKS_E_NOMEM;
	for (uint32_t i = 0; i < nvir; i++) {
		uint32_t at = ds->virtual_fixups + 12 * i;
		uint32_t obj = hks_le32(base + at), sec = hks_le32(base + at + 4), name = hks_le32(base + at + 8);
		if (obj == UINT32_MAX)
			continue;
		if (obj >= r->sec_len)
			return hks_fail(ctx, HKS_E_MALFORMED, file_off(r, at),
			                "virtual fixup %u: object offset %u outside the data section (%u bytes)", i, obj,
			                r->sec_len);
		if (sec != pf->classnames_section || name >= cs->local_fixups)
			return hks_fail(ctx, HKS_E_MALFORMED, file_off(r, at + 4),
			                "virtual fixup %u: class name at section %u offset %u is not in __classnames__", i, sec,
			                name);
		const uint8_t *s = pf->bytes + cs->start + name;
		const uint8_t *nul = (const uint8_t *)memchr(s, 0, cs->local_fixups - name);
		if (!nul)
			return hks_fail(ctx, HKS_E_MALFORMED, (int64_t)cs->start + name,
			                "class name of virtual fixup %u is not NUL-terminated", i);
		hks_pf_object *o = &pf->objects[pf->num_objects++];
		o->offset = obj;
		o->class_section = sec;
		o->class_offset = name;
		o->class_name = hks_arena_strndup(r->arena, (const char *)s, (size_t)(nul - s));
		if (!o->class_name)
			return HKS_E_NOMEM;
	}

	/* lookup copies */
	r->loc_sorted = (hks_pf_local *)hks_arena_dup(r->arena, pf->locals, (size_t)pf->num_locals * sizeof(hks_pf_local));
	r->glo_sorted = (hks_pf_global *)hks_arena_dup(r->arena, pf->globals, (size_t)pf->num_globals * sizeof(hks_pf_global));
	r->obj_sorted = (pf_object_key *)hks_arena_array(r->arena, pf->num_objects ? pf->num_objects : 1, sizeof(pf_object_key));
	if (!r->loc_sorted || !r->glo_sorted || !r->obj_sorted)
		return HKS_E_NOMEM;
	qsort(r->loc_sorted, pf->num_locals, sizeof(hks_pf_local), cmp_local);
	qsort(r->glo_sorted, pf->num_globals, sizeof(hks_pf_global), cmp_global);
	for (uint32_t i = 0; i < pf->num_objects; i++) {
		r->obj_sorted[i].offset = pf->objects[i].offset;
		r->obj_sorted[i].index = i;
	}
	qsort(r->obj_sorted, pf->num_objects, sizeof(pf_object_key), cmp_object_key);
	hks_err_object(ctx, "section __data__ fixups");
	for (uint32_t i = 1; i < pf->num_locals; i++)
		if (r->loc_sorted[i].src == r->loc_sorted[i - 1].src)
			return hks_fail(ctx, HKS_E_MALFORMED, file_off(r, r->loc_sorted[i].src),
			                "two local fixups for the pointer at data offset %u", r->loc_sorted[i].src);
	for (uint32_t i = 1; i < pf->num_globals; i++)
		if (r->glo_sorted[i].src == r->glo_sorted[i - 1].src)
			return hks_fail(ctx, HKS_E_MALFORMED, file_off(r, r->glo_sorted[i].src),
			                "two global fixups for the pointer at data offset %u", r->glo_sorted[i].src);
	for (uint32_t i = 1; i < pf->num_objects; i++)
		if (r->obj_sorted[i].offset == r->obj_sorted[i - 1].offset)
			return hks_fail(ctx, HKS_E_MALFORMED, file_off(r, r->obj_sorted[i].offset),
			                "two virtual fixups for the object at data offset %u", r->obj_sorted[i].offset);
	return HKS_OK;
}

/* ---- objects ------------------------------------------------------------ */

typedef struct pf_lists {
	uint32_t *containers;
	uint32_t num_containers;
	uint32_t num_animations, num_bindings, num_skeletons;
} pf_lists;

static void set_object_context(pf_reader *r, uint32_t index)
{
	const hks_pf_object *o = &r->pf->objects[index];
	hks_err_object(r->ctx, "%s at data offset %u", o->class_name, o->offset);
}

static hks_result read_reference_frame(pf_reader *r, uint32_t index, int32_t *out)
{
	const hks_pf_layout *l = r->lay;
	const hks_pf_object *o = &r->pf->objects[index];
	hks_reference_frame *f = &r->file->reference_frames[r->file->num_reference_frames];
	set_object_context(r, index);
	f->class_name = o->class_name;
	if (!strcmp(o->class_name, "hkaDefaultAnimatedReferenceFrame")) {
		uint32_t b = o->offset;
		HKS_TRY(need(r, b + l->frame_up, 32, "up/forward"));
		load_vec4(r->sec + b + l->frame_up, f->up);
		load_vec4(r->sec + b + l->frame_forward, f->forward);
		HKS_TRY(rd_f32(r, b + l->frame_duration, &f->duration, "duration"));
		uint32_t n, at;
		HKS_TRY(rd_array(r, b + l->frame_samples, 16, &n, &at, "referenceFrameSamples"));
		if (n) {
			float(*s)[4] = (float(*)[4])hks_arena_array(r->arena, n, sizeof(float[4]));
			if (!s)
				return HKS_E_NOMEM;
			for (uint32_t i = 0; i < n; i++)
				load_vec4(r->sec + at + 16u * i, s[i]);
			f->samples = (const float(*)[4])s;
		}
		f->num_samples = n;
	}
	*out = (int32_t)r->file->num_reference_frames++;
	return HKS_OK;
}

static hks_result read_animation(pf_reader *r, uint32_t index, hks_animation *a)
{
	const hks_pf_layout *l = r->lay;
	const hks_pf_object *o = &r->pf->objects[index];
	uint32_t b = o->offset;
	set_object_context(r, index);
	a->class_name = o->class_name;
	a->object_offset = file_off(r, b);
	a->data_offset = -1;
	a->reference_frame = -1;
	HKS_TRY(rd_i32(r, b + l->anim_type, &a->type, "type"));
	HKS_TRY(rd_f32(r, b + l->anim_duration, &a->duration, "duration"));
	HKS_TRY(rd_i32(r, b + l->anim_num_transform_tracks, &a->number_of_transform_tracks, "numberOfTransformTracks"));
	HKS_TRY(rd_i32(r, b + l->anim_num_float_tracks, &a->number_of_float_tracks, "numberOfFloatTracks"));
	HKS_TRY(rd_string_array(r, b + l->anim_annotation_tracks, l->annotation_track_size, &a->annotation_track_names,
	                        &a->num_annotation_tracks, NULL, "annotationTracks"));
	uint32_t motion;
	HKS_TRY(rd_object_ptr(r, b + l->anim_extracted_motion, &motion, "extractedMotion"));
	if (motion != PF_NO_OBJECT) {
		HKS_TRY(read_reference_frame(r, motion, &a->reference_frame));
		set_object_context(r, index);
	}

	if (!strcmp(o->class_name, "hkaSplineCompressedAnimation")) {
		hks_spline_header *s = &a->spline;
		a->kind = HKS_ANIMATION_SPLINE;
		HKS_TRY(rd_i32(r, b + l->spline_num_frames, &s->num_frames, "numFrames"));
		HKS_TRY(rd_i32(r, b + l->spline_num_blocks, &s->num_blocks, "numBlocks"));
		HKS_TRY(rd_i32(r, b + l->spline_max_frames_per_block, &s->max_frames_per_block, "maxFramesPerBlock"));
		HKS_TRY(rd_i32(r, b + l->spline_mask_and_quantization_size, &s->mask_and_quantization_size,
		               "maskAndQuantizationSize"));
		HKS_TRY(rd_f32(r, b + l->spline_block_duration, &s->block_duration, "blockDuration"));
		HKS_TRY(rd_f32(r, b + l->spline_block_inverse_duration, &s->block_inverse_duration, "blockInverseDuration"));
		HKS_TRY(rd_f32(r, b + l->spline_frame_duration, &s->frame_duration, "frameDuration"));
		HKS_TRY(rd_u32_array(r, b + l->spline_block_offsets, &s->block_offsets, &s->num_block_offsets, "blockOffsets"));
		HKS_TRY(rd_u32_array(r, b + l->spline_float_block_offsets, &s->float_block_offsets,
		                     &s->num_float_block_offsets, "floatBlockOffsets"));
		HKS_TRY(rd_u32_array(r, b + l->spline_transform_offsets, &s->transform_offsets, &s->num_transform_offsets,
		                     "transformOffsets"));
		HKS_TRY(rd_u32_array(r, b + l->spline_float_offsets, &s->float_offsets, &s->num_float_offsets,
		                     "floatOffsets"));
		uint32_t n, at;
		HKS_TRY(rd_array(r, b + l->spline_data, 1, &n, &at, "data"));
		s->data = n ? r->sec + at : NULL;
		s->data_size = n;
		a->data_offset = n ? file_off(r, at) : -1;
		HKS_TRY(rd_i32(r, b + l->spline_endian, &s->endian, "endian"));
	} else if (!strcmp(o->class_name, "hkaInterleavedUncompressedAnimation")) {
		a->kind = HKS_ANIMATION_INTERLEAVED;
		HKS_TRY(rd_qs_array(r, b + l->interleaved_transforms, &a->transforms, &a->num_transforms, "transforms"));
		HKS_TRY(rd_f32_array(r, b + l->interleaved_floats, &a->floats, &a->num_floats, "floats"));
	} else {
		a->kind = HKS_ANIMATION_OTHER;
	}
	return HKS_OK;
}

static hks_result read_binding(pf_reader *r, uint32_t index, hks_binding *bd)
{
	const hks_pf_layout *l = r->lay;
	const hks_pf_object *o = &r->pf->objects[index];
	uint32_t b = o->offset;
	set_object_context(r, index);
	bd->animation = -1;
	if (strcmp(o->class_name, "hkaAnimationBinding") != 0)
		return hks_fail(r->ctx, HKS_E_MALFORMED, file_off(r, b), "a binding slot holds a %s", o->class_name);
	HKS_TRY(rd_string(r, b + l->binding_skeleton_name, &bd->original_skeleton_name, "originalSkeletonName"));
	uint32_t anim;
	HKS_TRY(rd_object_ptr(r, b + l->binding_animation, &anim, "animation"));
	if (anim != PF_NO_OBJECT) {
		for (uint32_t i = 0; i < r->file->num_animations; i++)
			if (r->anim_objects[i] == r->pf->objects[anim].offset) {
				bd->animation = (int32_t)i;
				break;
			}
	}
	HKS_TRY(rd_i16_array(r, b + l->binding_transform_track_to_bone, &bd->transform_track_to_bone_indices,
	                     &bd->num_transform_track_to_bone_indices, "transformTrackToBoneIndices"));
	HKS_TRY(rd_i16_array(r, b + l->binding_float_track_to_slot, &bd->float_track_to_float_slot_indices,
	                     &bd->num_float_track_to_float_slot_indices, "floatTrackToFloatSlotIndices"));
	if (l->binding_partition_indices != UINT32_MAX)
		HKS_TRY(rd_i16_array(r, b + l->binding_partition_indices, &bd->partition_indices, &bd->num_partition_indices,
		                     "partitionIndices"));
	HKS_TRY(need(r, b + l->binding_blend_hint, 1, "blendHint"));
	bd->blend_hint = (int8_t)r->sec[b + l->binding_blend_hint];
	return HKS_OK;
}

static hks_result read_skeleton(pf_reader *r, uint32_t index, hks_skeleton *sk)
{
	const hks_pf_layout *l = r->lay;
	const hks_pf_object *o = &r->pf->objects[index];
	uint32_t b = o->offset;
	set_object_context(r, index);
	if (strcmp(o->class_name, "hkaSkeleton") != 0)
		return hks_fail(r->ctx, HKS_E_MALFORMED, file_off(r, b), "a skeleton slot holds a %s", o->class_name);
	HKS_TRY(rd_string(r, b + l->skeleton_name, &sk->name, "name"));
	HKS_TRY(rd_i16_array(r, b + l->skeleton_parent_indices, &sk->parent_indices, &sk->num_parent_indices,
	                     "parentIndices"));
	uint32_t first = 0;
	HKS_TRY(rd_string_array(r, b + l->skeleton_bones, l->bone_size, &sk->bone_names, &sk->num_bones, &first, "bones"));
	if (sk->num_bones) {
		uint8_t *lock = (uint8_t *)hks_arena_alloc(r->arena, sk->num_bones);
		if (!lock)
			return HKS_E_NOMEM;
		for (uint32_t i = 0; i < sk->num_bones; i++)
			lock[i] = r->sec[first + i * l->bone_size + l->bone_lock_translation];
		sk->lock_translation = lock;
	}
	HKS_TRY(rd_qs_array(r, b + l->skeleton_reference_pose, &sk->reference_pose, &sk->num_reference_pose,
	                    "referencePose"));
	HKS_TRY(rd_f32_array(r, b + l->skeleton_reference_floats, &sk->reference_floats, &sk->num_reference_floats,
	                     "referenceFloats"));
	HKS_TRY(rd_string_array(r, b + l->skeleton_float_slots, l->pointer, &sk->float_slots, &sk->num_float_slots, NULL,
	                        "floatSlots"));
	return HKS_OK;
}

/* The object-pointer elements of an hkArray<T*> member. */
static hks_result rd_object_ptr_array(pf_reader *r, uint32_t rel, uint32_t *count, uint32_t *first, const char *member)
{
	return rd_array(r, rel, r->lay->pointer, count, first, member);
}

/* Collect the hkaAnimationContainer objects reachable from the contents root. */
static hks_result collect_containers(pf_reader *r, pf_lists *lists)
{
	struct hks_packfile *pf = r->pf;
	const hks_pf_layout *l = r->lay;
	hks_err_object(r->ctx, "packfile header");
	if (pf->contents_section != pf->data_section)
		return hks_fail(r->ctx, HKS_E_MALFORMED, 0x18, "contents section %u is not the data section %u",
		                pf->contents_section, pf->data_section);
	uint32_t root = find_object(r, pf->contents_offset);
	if (root == PF_NO_OBJECT)
		return hks_fail(r->ctx, HKS_E_MALFORMED, 0x1C, "no object at the contents offset %u", pf->contents_offset);
	lists->containers = (uint32_t *)hks_arena_array(r->arena, pf->num_objects, 4);
	if (!lists->containers)
		return HKS_E_NOMEM;
	const hks_pf_object *ro = &pf->objects[root];
	if (!strcmp(ro->class_name, "hkaAnimationContainer")) {
		lists->containers[lists->num_containers++] = root;
		return HKS_OK;
	}
	if (strcmp(ro->class_name, "hkRootLevelContainer") != 0)
		return HKS_OK; /* some other root: no animation content */
	set_object_context(r, root);
	uint32_t n, at;
	HKS_TRY(rd_array(r, ro->offset + l->root_named_variants, l->variant_size, &n, &at, "namedVariants"));
	for (uint32_t i = 0; i < n; i++) {
		uint32_t v;
		HKS_TRY(rd_object_ptr(r, at + i * l->variant_size + l->variant_variant, &v, "namedVariants.variant"));
		if (v == PF_NO_OBJECT || strcmp(pf->objects[v].class_name, "hkaAnimationContainer") != 0)
			continue;
		bool seen = false;
		for (uint32_t k = 0; k < lists->num_containers; k++)
			seen |= lists->containers[k] == v;
		if (!seen)
			lists->containers[lists->num_containers++] = v;
	}
	return HKS_OK;
}

static hks_result read_objects(pf_reader *r)
{
	const hks_pf_layout *l = r->lay;
	hks_file *file = r->file;
	pf_lists lists;
	memset(&lists, 0, sizeof(lists));
	HKS_TRY(collect_containers(r, &lists));

	/* count first, then allocate: every count is bounded by the data section */
	for (uint32_t c = 0; c < lists.num_containers; c++) {
		uint32_t b = r->pf->objects[lists.containers[c]].offset, n, at;
		set_object_context(r, lists.containers[c]);
		HKS_TRY(rd_object_ptr_array(r, b + l->container_skeletons, &n, &at, "skeletons"));
		lists.num_skeletons += n;
		HKS_TRY(rd_object_ptr_array(r, b + l->container_animations, &n, &at, "animations"));
		lists.num_animations += n;
		HKS_TRY(rd_object_ptr_array(r, b + l->container_bindings, &n, &at, "bindings"));
		lists.num_bindings += n;
	}
	uint64_t total = (uint64_t)lists.num_skeletons + lists.num_animations + lists.num_bindings;
	if (total > r->ctx->limits.max_objects)
		return hks_fail(r->ctx, HKS_E_LIMIT, -1, "%llu container entries exceed the object limit",
		                (unsigned long long)total);
	if (lists.num_animations) {
		file->animations = (hks_animation *)hks_arena_array(r->arena, lists.num_animations, sizeof(hks_animation));
		file->reference_frames =
		    (hks_reference_frame *)hks_arena_array(r->arena, lists.num_animations, sizeof(hks_reference_frame));
		r->anim_objects = (uint32_t *)hks_arena_array(r->arena, lists.num_animations, 4);
		r->pf->splines = (hks_pf_spline_ref *)hks_arena_array(r->arena, lists.num_animations, sizeof(hks_pf_spline_ref));
		if (!file->animations || !file->reference_frames || !r->anim_objects || !r->pf->splines)
			return HKS_E_NOMEM;
	}
	if (lists.num_bindings &&
	    !(file->bindings = (hks_binding *)hks_arena_array(r->arena, lists.num_bindings, sizeof(hks_binding))))
		return HKS_E_NOMEM;
	if (lists.num_skeletons &&
	    !(file->skeletons = (hks_skeleton *)hks_arena_array(r->arena, lists.num_skeletons, sizeof(hks_skeleton))))
		return HKS_E_NOMEM;

	/* animations of every container first: bindings refer to them */
	for (uint32_t c = 0; c < lists.num_containers; c++) {
		uint32_t b = r->pf->objects[lists.containers[c]].offset, n, at;
		set_object_context(r, lists.containers[c]);
		HKS_TRY(rd_object_ptr_array(r, b + l->container_animations, &n, &at, "animations"));
		for (uint32_t i = 0; i < n; i++) {
			uint32_t obj;
			set_object_context(r, lists.containers[c]);
			HKS_TRY(rd_object_ptr(r, at + i * l->pointer, &obj, "animations"));
			if (obj == PF_NO_OBJECT)
				return hks_fail(r->ctx, HKS_E_MALFORMED, file_off(r, at + i * l->pointer),
				                "animation %u of the container is a null pointer", i);
			uint32_t ai = file->num_animations;
			hks_err_location(r->ctx, (int32_t)ai, -1, -1, HKS_PART_NONE);
			HKS_TRY(read_animation(r, obj, &file->animations[ai]));
			hks_err_location(r->ctx, -1, -1, -1, HKS_PART_NONE);
			r->anim_objects[ai] = r->pf->objects[obj].offset;
			if (file->animations[ai].kind == HKS_ANIMATION_SPLINE) {
				r->pf->splines[r->pf->num_splines].animation = ai;
				r->pf->splines[r->pf->num_splines].object = r->pf->objects[obj].offset;
				r->pf->num_splines++;
			}
			file->num_animations++;
		}
	}
	for (uint32_t c = 0; c < lists.num_containers; c++) {
		uint32_t b = r->pf->objects[lists.containers[c]].offset, n, at;
		set_object_context(r, lists.containers[c]);
		HKS_TRY(rd_object_ptr_array(r, b + l->container_bindings, &n, &at, "bindings"));
		for (uint32_t i = 0; i < n; i++) {
			uint32_t obj;
			set_object_context(r, lists.containers[c]);
			HKS_TRY(rd_object_ptr(r, at + i * l->pointer, &obj, "bindings"));
			if (obj == PF_NO_OBJECT)
				return hks_fail(r->ctx, HKS_E_MALFORMED, file_off(r, at + i * l->pointer),
				                "binding %u of the container is a null pointer", i);
			HKS_TRY(read_binding(r, obj, &file->bindings[file->num_bindings++]));
		}
		set_object_context(r, lists.containers[c]);
		HKS_TRY(rd_object_ptr_array(r, b + l->container_skeletons, &n, &at, "skeletons"));
		for (uint32_t i = 0; i < n; i++) {
			uint32_t obj;
			set_object_context(r, lists.containers[c]);
			HKS_TRY(rd_object_ptr(r, at + i * l->pointer, &obj, "skeletons"));
			if (obj == PF_NO_OBJECT)
				return hks_fail(r->ctx, HKS_E_MALFORMED, file_off(r, at + i * l->pointer),
				                "skeleton %u of the container is a null pointer", i);
			HKS_TRY(read_skeleton(r, obj, &file->skeletons[file->num_skeletons++]));
		}
	}
	return HKS_OK;
}

hks_result hks_packfile_parse(hks_ctx *ctx, const uint8_t *data, size_t size, hks_file *file)
{
	if (!file || !file->internal || !file->internal->arena || (!data && size))
		return hks_fail(ctx, HKS_E_ARGUMENT, -1, "hks_packfile_parse: NULL argument");
	pf_reader r;
	memset(&r, 0, sizeof(r));
	r.ctx = ctx;
	r.arena = file->internal->arena;
	r.file = file;
	r.pf = (struct hks_packfile *)hks_arena_alloc(r.arena, sizeof(struct hks_packfile));
	if (!r.pf)
		return HKS_E_NOMEM;
	r.pf->bytes = data;
	r.pf->size = size;
	file->container = HKS_CONTAINER_PACKFILE;
	HKS_TRY(parse_header(&r, data, size));
	HKS_TRY(parse_sections(&r, data, size));
	if (!hks_pf_layout_compute(r.pf->rules[0], r.pf->file_version, r.pf->rules[2] != 0, &r.pf->layout))
		return hks_fail(ctx, HKS_E_UNSUPPORTED, 0x10, "no layout for pointer size %u", r.pf->rules[0]);
	r.lay = &r.pf->layout;
	HKS_TRY(parse_fixups(&r));
	HKS_TRY(read_objects(&r));
	file->internal->packfile = r.pf;
	return HKS_OK;
}
