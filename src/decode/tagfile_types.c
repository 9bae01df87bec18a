/*
 * Tagfile sections, varints and the type table (CONTAINERS.md §2.1, §2.4–§2.8).
 */
#include "tagfile.h"

#include <stdio.h>

/* Bound for every walk along parent chains: a hostile table may contain cycles. */
#define TAG_MAX_CHAIN 256

hks_result hks_tag_read_section(hks_cursor *c, hks_tag_section *s)
{
	int64_t at = hks_cursor_offset(c);
	uint32_t word;
	const uint8_t *tag;
	HKS_TRY(hks_read_be32(c, &word, "section header"));
	HKS_TRY(hks_read_bytes(c, 4, &tag, "section tag"));
	memcpy(s->tag, tag, 4);
	s->tag[4] = 0;
	for (int i = 0; i < 4; i++)
		if (tag[i] < 0x20 || tag[i] > 0x7E)
			s->tag[i] = '?';
	s->offset = (uint32_t)(c->pos - 8);
	s->size = word & 0x3FFFFFFFu; /* 30 bits: a 24-bit mask breaks files >= 16 MiB (§2.1) */
	s->flags = word >> 30;
	if (s->flags & 2u)
		return hks_fail(c->ctx, HKS_E_MALFORMED, at, "section %s: bit 31 of the size word is set", s->tag);
	if (s->size < 8)
		return hks_fail(c->ctx, HKS_E_MALFORMED, at, "section %s: size %u is smaller than its header", s->tag,
		                s->size);
	if (!hks_range_ok(c->size, s->offset, s->size))
		return hks_fail(c->ctx, HKS_E_TRUNCATED, at, "section %s: size %u runs past the end (%zu bytes left)",
		                s->tag, s->size, c->size - s->offset);
	return HKS_OK;
}

/* §2.4: the first byte's leading bits select one of 8 lengths. */
hks_result hks_tag_read_varint(hks_cursor *c, uint64_t *v, const char *what)
{
	int64_t at = hks_cursor_offset(c);
	uint8_t b0;
	HKS_TRY(hks_read_u8(c, &b0, what));
	size_t extra;
	uint64_t value;
	if (b0 < 0x80) {
		*v = b0;
		return HKS_OK;
	} else if (b0 < 0xC0) {
		extra = 1, value = b0 & 0x3Fu;
	} else if (b0 < 0xE0) {
		extra = 2, value = b0 & 0x1Fu;
	} else if (b0 < 0xE8) {
		extra = 3, value = b0 & 0x07u;
	} else if (b0 < 0xF0) {
		extra = 4, value = b0 & 0x07u;
	} else if (b0 < 0xF8) {
		extra = 7, value = b0 & 0x07u;
	} else if (b0 == 0xF8) {
		extra = 5, value = 0;
	} else if (b0 == 0xF9) {
		extra = 8, value = 0;
	} else {
		return hks_fail(c->ctx, HKS_E_MALFORMED, at, "%s: invalid varint prefix byte 0x%02X", what, b0);
	}
	const uint8_t *p;
	c->pos--; /* report truncation at the varint's first byte */
	if (!hks_range_ok(c->size, c->pos, extra + 1))
		return hks_fail(c->ctx, HKS_E_TRUNCATED, at, "%s: varint of %zu bytes runs past the end", what, extra + 1);
	c->pos++;
	HKS_TRY(hks_read_bytes(c, extra, &p, what));
	for (size_t i = 0; i < extra; i++)
		value = (value << 8) | p[i];
	*v = value;
	return HKS_OK;
}

size_t hks_tag_write_varint(uint64_t v, uint8_t out[9])
{
	size_t n;
	uint8_t prefix;
	if (v < (UINT64_C(1) << 7))
		n = 1, prefix = 0x00;
	else if (v < (UINT64_C(1) << 14))
		n = 2, prefix = 0x80;
	else if (v < (UINT64_C(1) << 21))
		n = 3, prefix = 0xC0;
	else if (v < (UINT64_C(1) << 27))
		n = 4, prefix = 0xE0;
	else if (v < (UINT64_C(1) << 35))
		n = 5, prefix = 0xE8;
	else if (v < (UINT64_C(1) << 40))
		n = 6, prefix = 0xF8;
	else if (v < (UINT64_C(1) << 59))
		n = 8, prefix = 0xF0;
	else
		n = 9, prefix = 0xF9;
	for (size_t i = 0; i < n; i++)
		out[n - 1 - i] = i < 8 ? (uint8_t)(v >> (8 * i)) : 0;
	if (n == 6 || n == 9) /* the whole first byte is the prefix */
		out[0] = prefix;
	else
		out[0] |= prefix;
	return n;
}

/* ---- string sections (§2.5) ---- */

typedef struct string_table {
	const char **s;
	uint32_t n;
} string_table;

static hks_result parse_strings(hks_ctx *ctx, hks_arena *arena, const uint8_t *p, size_t size, int64_t base,
                                const char *what, string_table *out)
{
	/* 2019.1 (AC6) pads TST1/FST1 with 0xFF instead of NULs (docs/TAGFILE.md) */
	while (size && p[size - 1] == 0xFF)
		size--;
	uint32_t n = 0;
	for (size_t i = 0; i < size; i++)
		n += p[i] == 0;
	if (size && p[size - 1] != 0)
		return hks_fail(ctx, HKS_E_MALFORMED, base + (int64_t)size - 1, "%s: last string is not terminated", what);
	out->n = n;
	out->s = n ? (const char **)hks_arena_array(arena, n, sizeof(char *)) : NULL;
	if (n && !out->s)
		return ctx->err && ctx->err->code ? ctx->err->code : HKS_E_NOMEM;
	size_t start = 0;
	uint32_t k = 0;
	for (size_t i = 0; i < size; i++)
		if (p[i] == 0) {
			out->s[k++] = (const char *)p + start;
			start = i + 1;
		}
	return HKS_OK;
}

static hks_result nomem(hks_ctx *ctx)
{
	return ctx->err && ctx->err->code ? ctx->err->code : HKS_E_NOMEM;
}

/* ---- TNAM / TNA1 (§2.6) ---- */

static hks_result parse_names(hks_ctx *ctx, hks_arena *arena, hks_cursor *c, const string_table *tstr,
                              hks_tag_types *t)
{
	uint64_t count;
	HKS_TRY(hks_tag_read_varint(c, &count, "type count"));
	if (count == 0)
		return hks_fail(ctx, HKS_E_MALFORMED, hks_cursor_offset(c), "type table: count 0 (the null type is missing)");
	/* every type takes at least 2 bytes: check before allocating */
	if (count - 1 > (c->size - c->pos) / 2)
		return hks_fail(ctx, HKS_E_MALFORMED, hks_cursor_offset(c), "type table: count %llu exceeds the section",
		                (unsigned long long)count);
	if (count > ctx->limits.max_objects) /* a caller's limit, not a format violation */
		return hks_fail(ctx, HKS_E_LIMIT, hks_cursor_offset(c), "type table: %llu types exceed the limit of %u objects",
		                (unsigned long long)count, ctx->limits.max_objects);
	t->count = (uint32_t)count;
	t->types = (hks_tag_type *)hks_arena_array(arena, t->count, sizeof(hks_tag_type));
	if (!t->types)
		return nomem(ctx);
	t->types[0].name = "";
	for (uint32_t i = 1; i < t->count; i++) {
		hks_tag_type *ty = &t->types[i];
		uint64_t name, ntpl;
		int64_t at = hks_cursor_offset(c);
		HKS_TRY(hks_tag_read_varint(c, &name, "type name index"));
		if (name >= tstr->n)
			return hks_fail(ctx, HKS_E_MALFORMED, at, "type %u: name index %llu out of range (%u strings)", i,
			                (unsigned long long)name, tstr->n);
		ty->name = tstr->s[name];
		HKS_TRY(hks_tag_read_varint(c, &ntpl, "template count"));
		if (ntpl > (c->size - c->pos) / 2)
			return hks_fail(ctx, HKS_E_MALFORMED, at, "type %u: template count %llu exceeds the section", i,
			                (unsigned long long)ntpl);
		ty->num_templates = (uint32_t)ntpl;
		ty->templates = ntpl ? (hks_tag_template *)hks_arena_array(arena, ntpl, sizeof(hks_tag_template)) : NULL;
		if (ntpl && !ty->templates)
			return nomem(ctx);
		for (uint32_t k = 0; k < ty->num_templates; k++) {
			uint64_t pn, val;
			at = hks_cursor_offset(c);
			HKS_TRY(hks_tag_read_varint(c, &pn, "template parameter name"));
			HKS_TRY(hks_tag_read_varint(c, &val, "template parameter value"));
			if (pn >= tstr->n)
				return hks_fail(ctx, HKS_E_MALFORMED, at, "type %u: template name index %llu out of range", i,
				                (unsigned long long)pn);
			ty->templates[k].name = tstr->s[pn];
			ty->templates[k].value = val;
			if (ty->templates[k].name[0] == 't' && val >= count)
				return hks_fail(ctx, HKS_E_MALFORMED, at, "type %u: template type index %llu out of range", i,
				                (unsigned long long)val);
		}
	}
	return HKS_OK;
}

/* ---- TBOD / TBDY (§2.7) ---- */

static hks_result read_index(hks_cursor *c, const hks_tag_types *t, uint32_t *out, const char *what)
{
	int64_t at = hks_cursor_offset(c);
	uint64_t v;
	HKS_TRY(hks_tag_read_varint(c, &v, what));
	if (v >= t->count)
		return hks_fail(c->ctx, HKS_E_MALFORMED, at, "%s %llu out of range (%u types)", what, (unsigned long long)v,
		                t->count);
	*out = (uint32_t)v;
	return HKS_OK;
}

static hks_result read_u32v(hks_cursor *c, uint32_t *out, const char *what)
{
	int64_t at = hks_cursor_offset(c);
	uint64_t v = 0;
	HKS_TRY(hks_tag_read_varint(c, &v, what));
	if (v > UINT32_MAX)
		return hks_fail(c->ctx, HKS_E_MALFORMED, at, "%s %llu does not fit 32 bits", what, (unsigned long long)v);
	*out = (uint32_t)v;
	return HKS_OK;
}

static hks_result parse_bodies(hks_ctx *ctx, hks_arena *arena, hks_cursor *c, const string_table *fstr,
                               hks_tag_types *t)
{
	while (c->pos < c->size) {
		int64_t at = hks_cursor_offset(c);
		uint32_t index = 0;
		HKS_TRY(read_index(c, t, &index, "type body index"));
		if (index == 0)
			continue; /* a skip entry / the zero padding of the section */
		hks_tag_type *ty = &t->types[index];
		if (ty->has_body)
			return hks_fail(ctx, HKS_E_MALFORMED, at, "type %u (%s) has two bodies", index, ty->name);
		ty->has_body = 1;
		HKS_TRY(read_index(c, t, &ty->parent, "parent type index"));
		HKS_TRY(read_u32v(c, &ty->opt, "optional-fields mask"));
		hks_err_object_type(ctx, index, ty->name);
		if (ty->opt & ~0x7Fu)
			return hks_fail(ctx, HKS_E_UNSUPPORTED, at, "type %u (%s): optional-fields mask 0x%X has attributes or "
			                "unknown bits", index, ty->name, ty->opt);
		if (ty->opt & 0x01u)
			HKS_TRY(read_u32v(c, &ty->format, "format"));
		if (ty->opt & 0x02u)
			HKS_TRY(read_index(c, t, &ty->subtype, "subtype index"));
		if (ty->opt & 0x04u)
			HKS_TRY(read_u32v(c, &ty->version, "version"));
		if (ty->opt & 0x08u) {
			HKS_TRY(read_u32v(c, &ty->size, "byte size"));
			HKS_TRY(read_u32v(c, &ty->align, "alignment"));
		}
		if (ty->opt & 0x10u)
			HKS_TRY(read_u32v(c, &ty->flags, "type flags"));
		if (ty->opt & 0x20u) {
			uint32_t word;
			HKS_TRY(read_u32v(c, &word, "member count"));
			/* 2018.1: properties << 16 | fields; only fields are listed (§2.7) */
			uint32_t n = word & 0xFFFFu;
			if (n > (c->size - c->pos) / 4)
				return hks_fail(ctx, HKS_E_MALFORMED, at, "type %u (%s): %u members exceed the section", index,
				                ty->name, n);
			ty->num_members = n;
			ty->members = n ? (hks_tag_member *)hks_arena_array(arena, n, sizeof(hks_tag_member)) : NULL;
			if (n && !ty->members)
				return nomem(ctx);
			for (uint32_t k = 0; k < n; k++) {
				hks_tag_member *m = &ty->members[k];
				uint32_t name = 0;
				int64_t mat = hks_cursor_offset(c);
				HKS_TRY(read_u32v(c, &name, "member name index"));
				if (name >= fstr->n)
					return hks_fail(ctx, HKS_E_MALFORMED, mat, "type %u (%s): member name index %u out of range",
					                index, ty->name, name);
				m->name = fstr->s[name];
				HKS_TRY(read_u32v(c, &m->flags, "member flags"));
				HKS_TRY(read_u32v(c, &m->offset, "member offset"));
				HKS_TRY(read_index(c, t, &m->type, "member type index"));
			}
		}
		if (ty->opt & 0x40u) {
			uint64_t n;
			HKS_TRY(hks_tag_read_varint(c, &n, "interface count"));
			if (n > (c->size - c->pos) / 2)
				return hks_fail(ctx, HKS_E_MALFORMED, at, "type %u (%s): interface count exceeds the section", index,
				                ty->name);
			for (uint64_t k = 0; k < n; k++) {
				uint32_t it, val;
				HKS_TRY(read_index(c, t, &it, "interface type"));
				HKS_TRY(read_u32v(c, &val, "interface value"));
			}
		}
	}
	return HKS_OK;
}

/* Typedef inheritance (§2.7): format, subtype and size/alignment come from the
 * first type along the parent chain that declares them. */
static void resolve_types(hks_tag_types *t)
{
	for (uint32_t i = 1; i < t->count; i++) {
		hks_tag_type *ty = &t->types[i];
		int got_fmt = 0, got_sub = 0, got_size = 0;
		uint32_t cur = i;
		for (int step = 0; cur && step < TAG_MAX_CHAIN; step++) {
			const hks_tag_type *a = &t->types[cur];
			if (!got_fmt && (a->opt & 0x01u))
				ty->r_format = a->format, got_fmt = 1;
			if (!got_sub && (a->opt & 0x02u))
				ty->r_subtype = a->subtype, got_sub = 1;
			if (!got_size && (a->opt & 0x08u))
				ty->r_size = a->size, ty->r_align = a->align, got_size = 1;
			if (got_fmt && got_sub && got_size)
				break;
			cur = a->parent;
		}
	}
}

hks_result hks_tag_parse_types(hks_ctx *ctx, hks_arena *arena, const uint8_t *payload, size_t size, int64_t base,
                               hks_tag_types **out)
{
	hks_cursor c = hks_cursor_make(ctx, payload, size, base);
	hks_tag_section tstr_s = {{0}, 0, 0, 0}, fstr_s = tstr_s, tnam_s = tstr_s, tbod_s = tstr_s;
	int have_tstr = 0, have_fstr = 0, have_tnam = 0, have_tbod = 0;
	hks_err_object(ctx, "section TYPE");
	while (c.pos < c.size) {
		hks_tag_section s;
		HKS_TRY(hks_tag_read_section(&c, &s));
		if (!strcmp(s.tag, "TSTR") || !strcmp(s.tag, "TST1"))
			tstr_s = s, have_tstr = 1;
		else if (!strcmp(s.tag, "FSTR") || !strcmp(s.tag, "FST1"))
			fstr_s = s, have_fstr = 1;
		else if (!strcmp(s.tag, "TNAM") || !strcmp(s.tag, "TNA1"))
			tnam_s = s, have_tnam = 1;
		else if (!strcmp(s.tag, "TBOD") || !strcmp(s.tag, "TBDY"))
			tbod_s = s, have_tbod = 1;
		c.pos = s.offset + s.size;
	}
	if (!have_tstr || !have_fstr || !have_tnam || !have_tbod)
		return hks_fail(ctx, HKS_E_MALFORMED, base, "TYPE section lacks %s", !have_tstr ? "TSTR" :
		                !have_fstr ? "FSTR" : !have_tnam ? "TNAM/TNA1" : "TBOD/TBDY");
	string_table tstr, fstr;
	HKS_TRY(parse_strings(ctx, arena, payload + tstr_s.offset + 8, tstr_s.size - 8, base + tstr_s.offset + 8,
	                      "TSTR", &tstr));
	HKS_TRY(parse_strings(ctx, arena, payload + fstr_s.offset + 8, fstr_s.size - 8, base + fstr_s.offset + 8,
	                      "FSTR", &fstr));
	hks_tag_types *t = (hks_tag_types *)hks_arena_alloc(arena, sizeof(hks_tag_types));
	if (!t)
		return nomem(ctx);
	hks_cursor nc = hks_cursor_make(ctx, payload + tnam_s.offset + 8, tnam_s.size - 8, base + tnam_s.offset + 8);
	hks_err_member(ctx, tnam_s.tag);
	HKS_TRY(parse_names(ctx, arena, &nc, &tstr, t));
	hks_cursor bc = hks_cursor_make(ctx, payload + tbod_s.offset + 8, tbod_s.size - 8, base + tbod_s.offset + 8);
	hks_err_member(ctx, tbod_s.tag);
	HKS_TRY(parse_bodies(ctx, arena, &bc, &fstr, t));
	resolve_types(t);
	*out = t;
	return HKS_OK;
}

const hks_tag_type *hks_tag_type_get(const hks_tag_types *t, uint32_t index)
{
	return t && index < t->count ? &t->types[index] : NULL;
}

const char *hks_tag_type_name(const hks_tag_types *t, uint32_t index)
{
	const hks_tag_type *ty = hks_tag_type_get(t, index);
	return ty && ty->name ? ty->name : "";
}

int hks_tag_type_is_a(const hks_tag_types *t, uint32_t type, const char *name)
{
	for (int step = 0; type && type < t->count && step < TAG_MAX_CHAIN; step++) {
		if (!strcmp(t->types[type].name, name))
			return 1;
		type = t->types[type].parent;
	}
	return 0;
}

/*
 * Members flagged "not serialized" are skipped: their bytes carry no value
 * (CONTAINERS.md §2.7, zero in DATA), and the writer's layout scan skips them
 * (§4.2), so it neither renumbers an item index stored there nor keeps the
 * item it names. A reader that followed such a member read the binding's
 * transformTrackToBoneIndices through a stale index in the written file
 * (fuzz_file crasher nonserialized_member_reference.hkx).
 */
const hks_tag_member *hks_tag_find_member(const hks_tag_types *t, uint32_t type, const char *name)
{
	for (int step = 0; type && type < t->count && step < TAG_MAX_CHAIN; step++) {
		const hks_tag_type *ty = &t->types[type];
		for (uint32_t k = 0; k < ty->num_members; k++)
			if (!(ty->members[k].flags & HKS_TAG_MEMBER_NOT_SERIALIZED) && !strcmp(ty->members[k].name, name))
				return &ty->members[k];
		type = ty->parent;
	}
	return NULL;
}
