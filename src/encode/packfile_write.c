/*
 * Packfile writer (CONTAINERS.md §5, §5.9): serializes a file read by
 * hks_packfile_parse, with the spline members of its animations taken from
 * the object model (possibly changed by hks_file_replace_spline).
 *
 * The data section is treated as a sequence of chunks: a chunk starts at
 * every object (virtual fixup), at every local or global fixup target and at
 * the contents root, and runs to the next such start. Objects and the arrays
 * and strings they own are therefore separate chunks (§5.5). A spline array
 * whose contents changed gets a new chunk (16-aligned start, zero padding);
 * every other chunk is copied. Chunks keep their position modulo 16, so
 * every following object and array keeps its alignment. Then every fixup is
 * remapped, the fixup tables are rebuilt (padded to 16 with 0xFF, §5.4) and
 * the header and section headers get the new offsets. An unmodified file
 * comes out byte for byte as it went in.
 */
#include "packfile.h"
#include "file_write.h"

#include <stdlib.h>

#define NO_INDEX UINT32_MAX

enum { SPLINE_ARRAYS = 5 };

typedef struct piece {
	uint32_t chunk;           /* original chunk index, or NO_INDEX for an inserted array */
	bool replaced;            /* content comes from `bytes`, not from the chunk */
	const uint8_t *bytes;     /* replacement / inserted content (NULL when empty) */
	uint32_t bytes_len;
	uint32_t lead, total;     /* leading zero bytes; bytes of the piece in the output */
	uint32_t new_start;
} piece;

typedef struct local_edit {
	uint32_t src;             /* old offset of the pointer slot */
	bool drop;                /* the array became empty: remove its local fixup */
	bool retarget;            /* point it at inserted piece `piece` */
	bool add;                 /* new local fixup (the array was empty) */
	uint32_t piece;
	uint32_t first_after;     /* add: index of the first original entry with a larger src */
} local_edit;

typedef struct patch {
	uint32_t at;              /* old data-section offset */
	uint32_t value;
} patch;

typedef struct writer {
	hks_ctx *ctx;
	const hks_file *file;
	const struct hks_packfile *pf;
	const hks_pf_layout *lay;
	const hks_pf_section *ds;
	const uint8_t *sec;       /* old data part */
	uint32_t sec_len;
	uint32_t *bounds;         /* chunk starts, ascending, then sec_len */
	uint32_t num_chunks;
	uint32_t *replacement;    /* per chunk: piece index of its replacement, or NO_INDEX */
	uint32_t *chunk_piece;    /* per chunk: the piece that carries it */
	piece *pieces;
	uint32_t num_pieces;
	uint32_t *insert_before;  /* per inserted piece: chunk index it precedes */
	uint8_t **owned;          /* encoded arrays to free */
	size_t *owned_size;
	uint32_t num_owned;
	uint32_t owned_cap, owned_size_cap; /* allocated entries of each (they differ after a failed growth) */
	uint32_t pieces_cap, insert_before_cap;
	local_edit *edits;
	uint32_t num_edits;
	patch *patches;
	uint32_t num_patches;
	uint32_t new_len;
} writer;

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Chunk containing old offset x (x < sec_len). */
static uint32_t chunk_of(const writer *w, uint32_t x)
{
	size_t lo = 0, hi = w->num_chunks;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (w->bounds[mid] <= x)
			lo = mid;
		else
			hi = mid;
	}
	return (uint32_t)lo;
}

/* New offset of old data offset x. */
static hks_result remap(writer *w, uint32_t x, uint32_t *out, const char *what)
{
	if (x >= w->sec_len) {
		*out = w->new_len + (x - w->sec_len);
		return HKS_OK;
	}
	uint32_t c = chunk_of(w, x);
	const piece *p = &w->pieces[w->chunk_piece[c]];
	if (p->replaced && x != w->bounds[c])
		return hks_fail(w->ctx, HKS_E_UNSUPPORTED, (int64_t)w->ds->start + x,
		                "%s at data offset %u points inside a replaced spline array", what, x);
	*out = p->new_start + (x - w->bounds[c]);
	return HKS_OK;
}

static bool find_local(const struct hks_packfile *pf, uint32_t src, uint32_t *dst)
{
	for (uint32_t i = 0; i < pf->num_locals; i++)
		if (pf->locals[i].src == src) {
			*dst = pf->locals[i].dst;
			return true;
		}
	return false;
}

static hks_result add_patch(writer *w, uint32_t at, uint32_t value)
{
	patch *p = (patch *)hks_realloc(w->ctx, w->patches, (size_t)w->num_patches * sizeof(patch),
	                                (size_t)(w->num_patches + 1) * sizeof(patch));
	if (!p)
		return HKS_E_NOMEM;
	w->patches = p;
	p[w->num_patches].at = at;
	p[w->num_patches].value = value;
	w->num_patches++;
	return HKS_OK;
}

static hks_result add_edit(writer *w, local_edit e)
{
	local_edit *p = (local_edit *)hks_realloc(w->ctx, w->edits, (size_t)w->num_edits * sizeof(local_edit),
	                                          (size_t)(w->num_edits + 1) * sizeof(local_edit));
	if (!p)
		return HKS_E_NOMEM;
	w->edits = p;
	p[w->num_edits++] = e;
	return HKS_OK;
}

static hks_result add_piece(writer *w, piece pc, uint32_t *index)
{
	/* each array keeps its own capacity, so that a failed growth of the
	 * second one still frees the first with its real size */
	uint32_t need = w->num_pieces + 1;
	if (w->pieces_cap < need) {
		piece *p = (piece *)hks_realloc(w->ctx, w->pieces, (size_t)w->pieces_cap * sizeof(piece),
		                                (size_t)need * sizeof(piece));
		if (!p)
			return HKS_E_NOMEM;
		w->pieces = p;
		w->pieces_cap = need;
	}
	if (w->insert_before_cap < need) {
		uint32_t *ib = (uint32_t *)hks_realloc(w->ctx, w->insert_before, (size_t)w->insert_before_cap * 4,
		                                       (size_t)need * 4);
		if (!ib)
			return HKS_E_NOMEM;
		w->insert_before = ib;
		w->insert_before_cap = need;
	}
	w->insert_before[w->num_pieces] = NO_INDEX;
	w->pieces[w->num_pieces] = pc;
	*index = w->num_pieces++;
	return HKS_OK;
}

/* Take ownership of `buf` (freed here when recording it fails, so that the
 * caller never leaks it). Each array has its own capacity: when the first
 * grows and the second cannot, both are still freed with their real sizes. */
static hks_result own(writer *w, uint8_t *buf, size_t size)
{
	uint32_t need = w->num_owned + 1;
	if (w->owned_cap < need) {
		uint8_t **o = (uint8_t **)hks_realloc(w->ctx, w->owned, (size_t)w->owned_cap * sizeof(uint8_t *),
		                                      (size_t)need * sizeof(uint8_t *));
		if (!o) {
			hks_free(w->ctx, buf, size);
			return HKS_E_NOMEM;
		}
		w->owned = o;
		w->owned_cap = need;
	}
	if (w->owned_size_cap < need) {
		size_t *z = (size_t *)hks_realloc(w->ctx, w->owned_size, (size_t)w->owned_size_cap * sizeof(size_t),
		                                  (size_t)need * sizeof(size_t));
		if (!z) {
			hks_free(w->ctx, buf, size);
			return HKS_E_NOMEM;
		}
		w->owned_size = z;
		w->owned_size_cap = need;
	}
	w->owned[w->num_owned] = buf;
	w->owned_size[w->num_owned] = size;
	w->num_owned++;
	return HKS_OK;
}

/* The chunk starts: objects, fixup targets in this section, the root. */
static hks_result build_chunks(writer *w)
{
	const struct hks_packfile *pf = w->pf;
	size_t cap = 2 + (size_t)pf->num_objects + pf->num_locals + pf->num_globals;
	uint32_t *b = (uint32_t *)hks_malloc(w->ctx, cap * 4);
	if (!b)
		return HKS_E_NOMEM;
	size_t n = 0;
	b[n++] = 0;
	for (uint32_t i = 0; i < pf->num_objects; i++)
		b[n++] = pf->objects[i].offset;
	for (uint32_t i = 0; i < pf->num_locals; i++)
		b[n++] = pf->locals[i].dst;
	for (uint32_t i = 0; i < pf->num_globals; i++)
		if (pf->globals[i].section == pf->data_section)
			b[n++] = pf->globals[i].dst;
	if (pf->contents_section == pf->data_section)
		b[n++] = pf->contents_offset;
	qsort(b, n, 4, cmp_u32);
	size_t u = 0;
	for (size_t i = 0; i < n; i++)
		if (b[i] < w->sec_len && (u == 0 || b[i] != b[u - 1]))
			b[u++] = b[i];
	b[u] = w->sec_len; /* sentinel; cap >= u + 1 */
	w->bounds = b;
	w->num_chunks = (uint32_t)u;
	w->replacement = (uint32_t *)hks_malloc(w->ctx, (size_t)u * 4);
	w->chunk_piece = (uint32_t *)hks_malloc(w->ctx, (size_t)u * 4);
	if (!w->replacement || !w->chunk_piece)
		return HKS_E_NOMEM;
	for (uint32_t i = 0; i < u; i++)
		w->replacement[i] = NO_INDEX;
	return HKS_OK;
}

/* Encode a model array as stored bytes (u32 little-endian or raw bytes). */
static hks_result encode_array(writer *w, const void *src, uint32_t count, uint32_t elem, const uint8_t **out)
{
	*out = NULL;
	if (!count)
		return HKS_OK;
	size_t n = (size_t)count * elem;
	uint8_t *buf = (uint8_t *)hks_malloc(w->ctx, n);
	if (!buf)
		return HKS_E_NOMEM;
	HKS_TRY(own(w, buf, n));
	if (elem == 4) {
		const uint32_t *v = (const uint32_t *)src;
		for (uint32_t i = 0; i < count; i++)
			hks_put_le32(buf + 4 * (size_t)i, v[i]);
	} else {
		memcpy(buf, src, n);
	}
	*out = buf;
	return HKS_OK;
}

/* Plan the changes of one spline animation object. */
static hks_result plan_spline(writer *w, const hks_pf_spline_ref *ref)
{
	const hks_pf_layout *l = w->lay;
	const hks_animation *a = &w->file->animations[ref->animation];
	const hks_spline_header *s = &a->spline;
	const uint32_t o = ref->object;
	hks_err_object(w->ctx, "hkaSplineCompressedAnimation at data offset %u", o);
	if (a->kind != HKS_ANIMATION_SPLINE)
		return hks_fail(w->ctx, HKS_E_ARGUMENT, -1, "animation %u is no longer a spline animation", ref->animation);
	if (!hks_range_ok(w->sec_len, o, l->spline_size))
		return hks_fail(w->ctx, HKS_E_INTERNAL, -1, "spline object outside the data section");

	/* scalar members: always written from the model */
	HKS_TRY(add_patch(w, o + l->anim_duration, hks_f32_bits(a->duration)));
	HKS_TRY(add_patch(w, o + l->spline_num_frames, (uint32_t)s->num_frames));
	HKS_TRY(add_patch(w, o + l->spline_num_blocks, (uint32_t)s->num_blocks));
	HKS_TRY(add_patch(w, o + l->spline_max_frames_per_block, (uint32_t)s->max_frames_per_block));
	HKS_TRY(add_patch(w, o + l->spline_mask_and_quantization_size, (uint32_t)s->mask_and_quantization_size));
	HKS_TRY(add_patch(w, o + l->spline_block_duration, hks_f32_bits(s->block_duration)));
	HKS_TRY(add_patch(w, o + l->spline_block_inverse_duration, hks_f32_bits(s->block_inverse_duration)));
	HKS_TRY(add_patch(w, o + l->spline_frame_duration, hks_f32_bits(s->frame_duration)));
	HKS_TRY(add_patch(w, o + l->spline_endian, (uint32_t)s->endian));

	const uint32_t member[SPLINE_ARRAYS] = {l->spline_block_offsets, l->spline_float_block_offsets,
	                                        l->spline_transform_offsets, l->spline_float_offsets, l->spline_data};
	const void *src[SPLINE_ARRAYS] = {s->block_offsets, s->float_block_offsets, s->transform_offsets,
	                                  s->float_offsets, s->data};
	const uint32_t count[SPLINE_ARRAYS] = {s->num_block_offsets, s->num_float_block_offsets,
	                                       s->num_transform_offsets, s->num_float_offsets, s->data_size};
	const uint32_t elem[SPLINE_ARRAYS] = {4, 4, 4, 4, 1};
	const char *names[SPLINE_ARRAYS] = {"blockOffsets", "floatBlockOffsets", "transformOffsets", "floatOffsets",
	                                    "data"};
	uint32_t old_count[SPLINE_ARRAYS], old_dst[SPLINE_ARRAYS];
	bool has_fixup[SPLINE_ARRAYS];
	for (int k = 0; k < SPLINE_ARRAYS; k++) {
		old_count[k] = hks_le32(w->sec + o + member[k] + l->pointer);
		has_fixup[k] = find_local(w->pf, o + member[k], &old_dst[k]);
		if (old_count[k] && !has_fixup[k])
			return hks_fail(w->ctx, HKS_E_INTERNAL, -1, "array %s without fixup", names[k]);
	}
	for (int k = 0; k < SPLINE_ARRAYS; k++) {
		hks_err_member(w->ctx, names[k]);
		if (count[k] && !src[k])
			return hks_fail(w->ctx, HKS_E_ARGUMENT, -1, "array %s has %u elements and no storage", names[k], count[k]);
		const uint8_t *bytes;
		HKS_TRY(encode_array(w, src[k], count[k], elem[k], &bytes));
		size_t nbytes = (size_t)count[k] * elem[k];
		if (nbytes > UINT32_MAX / 2)
			return hks_fail(w->ctx, HKS_E_LIMIT, -1, "array %s is too large for a packfile", names[k]);
		if (old_count[k] == count[k] && (!count[k] || !memcmp(bytes, w->sec + old_dst[k], nbytes)))
			continue; /* unchanged: the chunk is copied */
		HKS_TRY(add_patch(w, o + member[k] + l->pointer, count[k]));
		/* capacityAndFlags = size | 0x80000000 (§3.1): storage not owned by the runtime */
		HKS_TRY(add_patch(w, o + member[k] + l->pointer + 4, count[k] | 0x80000000u));
		if (old_count[k]) {
			uint32_t c = chunk_of(w, old_dst[k]);
			uint64_t old_len = (uint64_t)old_count[k] * elem[k];
			if (w->bounds[c] != old_dst[k] || old_dst[k] + old_len > w->bounds[c + 1] || w->replacement[c] != NO_INDEX)
				return hks_fail(w->ctx, HKS_E_UNSUPPORTED, (int64_t)w->ds->start + old_dst[k],
				                "array %s shares its storage with other data; cannot replace it", names[k]);
			piece pc = {c, true, bytes, (uint32_t)nbytes, 0, 0, 0};
			uint32_t chunk_len = w->bounds[c + 1] - w->bounds[c];
			/* keep the chunk's length modulo 16 so everything after it keeps its alignment */
			pc.total = (uint32_t)nbytes + ((chunk_len - (uint32_t)nbytes) & 15u);
			uint32_t pi;
			HKS_TRY(add_piece(w, pc, &pi));
			w->replacement[c] = pi;
			if (!count[k]) {
				local_edit e = {o + member[k], true, false, false, 0, 0};
				HKS_TRY(add_edit(w, e));
			}
		} else if (count[k]) {
			/* a new array: insert it before the next array of this object that has storage,
			 * else after the previous one, else right after the object */
			uint32_t before = NO_INDEX;
			for (int j = k + 1; j < SPLINE_ARRAYS && before == NO_INDEX; j++)
				if (old_count[j])
					before = chunk_of(w, old_dst[j]);
			for (int j = k - 1; j >= 0 && before == NO_INDEX; j--)
				if (old_count[j])
					before = chunk_of(w, old_dst[j]) + 1;
			if (before == NO_INDEX)
				before = chunk_of(w, o) + 1;
			piece pc = {NO_INDEX, true, bytes, (uint32_t)nbytes, 0, 0, 0};
			uint32_t pi;
			HKS_TRY(add_piece(w, pc, &pi));
			w->insert_before[pi] = before;
			local_edit e = {o + member[k], false, has_fixup[k], !has_fixup[k], pi, 0};
			HKS_TRY(add_edit(w, e));
		}
		HKS_TRY(add_patch(w, o + member[k], 0)); /* pointer slots are zero in the file (§5.4) */
		if (l->pointer == 8)
			HKS_TRY(add_patch(w, o + member[k] + 4, 0));
	}
	hks_err_member(w->ctx, NULL);
	return HKS_OK;
}

/* Order the pieces: inserted ones before their chunk, then each chunk (or its
 * replacement); assign output offsets. */
static hks_result layout_pieces(writer *w, uint32_t **order_out, uint32_t *count_out)
{
	uint32_t base_pieces = w->num_pieces;
	/* a copy piece for every chunk without a replacement */
	for (uint32_t c = 0; c < w->num_chunks; c++) {
		if (w->replacement[c] != NO_INDEX) {
			w->chunk_piece[c] = w->replacement[c];
			continue;
		}
		piece pc = {c, false, NULL, 0, 0, w->bounds[c + 1] - w->bounds[c], 0};
		HKS_TRY(add_piece(w, pc, &w->chunk_piece[c]));
	}
	uint32_t *order = (uint32_t *)hks_malloc(w->ctx, (size_t)w->num_pieces * 4);
	if (!order)
		return HKS_E_NOMEM;
	uint32_t n = 0;
	uint64_t cur = 0;
	for (uint32_t c = 0; c <= w->num_chunks; c++) {
		for (uint32_t i = 0; i < base_pieces; i++) {
			piece *p = &w->pieces[i];
			if (p->chunk != NO_INDEX || w->insert_before[i] != c)
				continue;
			p->lead = (uint32_t)((16 - (cur & 15)) & 15);
			uint32_t body = p->lead + p->bytes_len;
			p->total = body + ((16 - (body & 15)) & 15);
			p->new_start = (uint32_t)cur + p->lead;
			cur += p->total;
			order[n++] = i;
		}
		if (c == w->num_chunks)
			break;
		piece *p = &w->pieces[w->chunk_piece[c]];
		p->new_start = (uint32_t)cur;
		cur += p->total;
		order[n++] = w->chunk_piece[c];
		if (cur > UINT32_MAX / 2) {
			hks_free(w->ctx, order, (size_t)w->num_pieces * 4);
			return hks_fail(w->ctx, HKS_E_LIMIT, -1, "the data section would exceed 2 GiB");
		}
	}
	w->new_len = (uint32_t)cur;
	*order_out = order;
	*count_out = n;
	return HKS_OK;
}

static hks_result pad_ff(hks_bytebuf *out, size_t section_start)
{
	static const uint8_t ff[16] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	                               0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
	size_t rel = out->size - section_start;
	size_t pad = (16 - (rel & 15)) & 15;
	return hks_bytebuf_append(out, ff, pad);
}

static hks_result put32(hks_bytebuf *out, uint32_t v)
{
	uint8_t b[4];
	hks_put_le32(b, v);
	return hks_bytebuf_append(out, b, 4);
}

/* The data section: pieces, patches, fixup tables. Returns the new section header offsets. */
static hks_result write_data_section(writer *w, hks_bytebuf *out, uint32_t rel[6])
{
	const struct hks_packfile *pf = w->pf;
	uint32_t *order = NULL, n = 0;
	HKS_TRY(layout_pieces(w, &order, &n));
	size_t start = out->size;
	hks_result r = hks_bytebuf_reserve(out, w->new_len);
	for (uint32_t i = 0; i < n && r == HKS_OK; i++) {
		const piece *p = &w->pieces[order[i]];
		if (!p->replaced) {
			r = hks_bytebuf_append(out, w->sec + w->bounds[p->chunk], p->total);
			continue;
		}
		r = hks_bytebuf_zeros(out, p->lead);
		if (r == HKS_OK)
			r = hks_bytebuf_append(out, p->bytes, p->bytes_len);
		if (r == HKS_OK)
			r = hks_bytebuf_zeros(out, p->total - p->lead - p->bytes_len);
	}
	hks_free(w->ctx, order, (size_t)w->num_pieces * 4);
	HKS_TRY(r);
	uint8_t *d = out->data + start;
	for (uint32_t i = 0; i < w->num_patches; i++) {
		uint32_t at;
		HKS_TRY(remap(w, w->patches[i].at, &at, "a patched member"));
		uint32_t c = chunk_of(w, w->patches[i].at);
		if (w->pieces[w->chunk_piece[c]].replaced || at + 4 > w->new_len)
			return hks_fail(w->ctx, HKS_E_INTERNAL, -1, "patch at data offset %u lands in replaced data",
			                w->patches[i].at);
		hks_put_le32(d + at, w->patches[i].value);
	}

	/* local fixups, in the original order; edits applied */
	for (uint32_t e = 0; e < w->num_edits; e++) {
		local_edit *ed = &w->edits[e];
		ed->first_after = pf->num_locals;
		for (uint32_t j = 0; ed->add && j < pf->num_locals; j++)
			if (pf->locals[j].src > ed->src) {
				ed->first_after = j;
				break;
			}
	}
	rel[0] = w->new_len;
	for (uint32_t i = 0; i <= pf->num_locals; i++) {
		/* new entries go before the first original entry past their slot */
		for (uint32_t e = 0; e < w->num_edits; e++) {
			const local_edit *ed = &w->edits[e];
			if (!ed->add || ed->first_after != i)
				continue;
			uint32_t src;
			HKS_TRY(remap(w, ed->src, &src, "a new local fixup"));
			HKS_TRY(put32(out, src));
			HKS_TRY(put32(out, w->pieces[ed->piece].new_start));
		}
		if (i == pf->num_locals)
			break;
		const hks_pf_local *lf = &pf->locals[i];
		bool drop = false;
		uint32_t dst_new = 0;
		bool retarget = false;
		for (uint32_t e = 0; e < w->num_edits; e++) {
			if (w->edits[e].src != lf->src)
				continue;
			drop |= w->edits[e].drop;
			if (w->edits[e].retarget) {
				retarget = true;
				dst_new = w->pieces[w->edits[e].piece].new_start;
			}
		}
		if (drop)
			continue;
		uint32_t src;
		HKS_TRY(remap(w, lf->src, &src, "a local fixup source"));
		if (!retarget)
			HKS_TRY(remap(w, lf->dst, &dst_new, "a local fixup target"));
		HKS_TRY(put32(out, src));
		HKS_TRY(put32(out, dst_new));
	}
	HKS_TRY(pad_ff(out, start));
	rel[1] = (uint32_t)(out->size - start);
	for (uint32_t i = 0; i < pf->num_globals; i++) {
		const hks_pf_global *g = &pf->globals[i];
		uint32_t src, dst = g->dst;
		HKS_TRY(remap(w, g->src, &src, "a global fixup source"));
		if (g->section == pf->data_section)
			HKS_TRY(remap(w, g->dst, &dst, "a global fixup target"));
		HKS_TRY(put32(out, src));
		HKS_TRY(put32(out, g->section));
		HKS_TRY(put32(out, dst));
	}
	HKS_TRY(pad_ff(out, start));
	rel[2] = (uint32_t)(out->size - start);
	for (uint32_t i = 0; i < pf->num_objects; i++) {
		const hks_pf_object *o = &pf->objects[i];
		uint32_t at;
		HKS_TRY(remap(w, o->offset, &at, "an object"));
		HKS_TRY(put32(out, at));
		HKS_TRY(put32(out, o->class_section));
		HKS_TRY(put32(out, o->class_offset));
	}
	HKS_TRY(pad_ff(out, start));
	rel[3] = (uint32_t)(out->size - start);
	/* exports / imports name offsets in the data section; none in the files in scope */
	const hks_pf_section *ds = w->ds;
	uint32_t tail = ds->end - ds->exports;
	if (tail && w->new_len != w->sec_len)
		return hks_fail(w->ctx, HKS_E_UNSUPPORTED, (int64_t)ds->start + ds->exports,
		                "rewriting a packfile with exports or imports is not supported");
	HKS_TRY(hks_bytebuf_append(out, pf->bytes + ds->start + ds->exports, tail));
	rel[4] = rel[3] + (ds->imports - ds->exports);
	rel[5] = (uint32_t)(out->size - start);
	return HKS_OK;
}

static hks_result write_all(writer *w, hks_bytebuf *out)
{
	const struct hks_packfile *pf = w->pf;
	hks_ctx *ctx = w->ctx;
	HKS_TRY(build_chunks(w));
	for (uint32_t i = 0; i < pf->num_splines; i++)
		HKS_TRY(plan_spline(w, &pf->splines[i]));
	hks_err_object(ctx, "packfile");

	/* sections in file order; the header and section headers come first */
	uint32_t *by_start = (uint32_t *)hks_malloc(ctx, (size_t)pf->num_sections * 4);
	uint32_t *new_start = (uint32_t *)hks_malloc(ctx, (size_t)pf->num_sections * 4);
	uint32_t(*new_rel)[6] = (uint32_t(*)[6])hks_malloc(ctx, (size_t)pf->num_sections * sizeof(uint32_t[6]));
	hks_result r = by_start && new_start && new_rel ? HKS_OK : HKS_E_NOMEM;
	size_t headers_end = pf->header_size + (size_t)pf->num_sections * pf->section_header_size;
	const size_t base = out->size; /* the file starts here in `out` */
	if (r == HKS_OK) {
		for (uint32_t i = 0; i < pf->num_sections; i++)
			by_start[i] = i;
		for (uint32_t i = 1; i < pf->num_sections; i++) /* insertion sort: a handful of sections */
			for (uint32_t j = i; j > 0 && pf->sections[by_start[j]].start < pf->sections[by_start[j - 1]].start; j--) {
				uint32_t t = by_start[j];
				by_start[j] = by_start[j - 1];
				by_start[j - 1] = t;
			}
		r = hks_bytebuf_zeros(out, headers_end);
	}
	size_t old_cursor = headers_end;
	for (uint32_t k = 0; k < pf->num_sections && r == HKS_OK; k++) {
		uint32_t i = by_start[k];
		const hks_pf_section *s = &pf->sections[i];
		if (s->start < old_cursor) {
			r = hks_fail(ctx, HKS_E_UNSUPPORTED, -1, "section %u overlaps the headers or another section", i);
			break;
		}
		/* bytes between sections are kept as they were */
		r = hks_bytebuf_append(out, pf->bytes + old_cursor, s->start - old_cursor);
		if (r != HKS_OK)
			break;
		new_start[i] = (uint32_t)(out->size - base);
		if (i == pf->data_section) {
			r = write_data_section(w, out, new_rel[i]);
		} else {
			r = hks_bytebuf_append(out, pf->bytes + s->start, s->end);
			new_rel[i][0] = s->local_fixups;
			new_rel[i][1] = s->global_fixups;
			new_rel[i][2] = s->virtual_fixups;
			new_rel[i][3] = s->exports;
			new_rel[i][4] = s->imports;
			new_rel[i][5] = s->end;
		}
		old_cursor = (size_t)s->start + s->end;
	}
	if (r == HKS_OK && out->size - base > UINT32_MAX)
		r = hks_fail(ctx, HKS_E_LIMIT, -1, "the packfile would exceed 4 GiB");
	if (r == HKS_OK)
		r = hks_bytebuf_append(out, pf->bytes + old_cursor, pf->size - old_cursor);
	if (r == HKS_OK) {
		/* header: as read, with the new contents offset (§5.1) */
		uint8_t *h = out->data + base;
		memcpy(h, pf->bytes, pf->header_size);
		if (pf->contents_section == pf->data_section) {
			uint32_t c;
			r = remap(w, pf->contents_offset, &c, "the contents root");
			if (r == HKS_OK)
				hks_put_le32(h + 0x1C, c);
		}
		for (uint32_t i = 0; i < pf->num_sections && r == HKS_OK; i++) {
			uint8_t *sh = h + pf->header_size + (size_t)i * pf->section_header_size;
			const hks_pf_section *s = &pf->sections[i];
			memcpy(sh, s->tag, 20);
			hks_put_le32(sh + 20, new_start[i]);
			for (int k = 0; k < 6; k++)
				hks_put_le32(sh + 24 + 4 * k, new_rel[i][k]);
			if (s->extra)
				memcpy(sh + 48, s->extra, pf->section_header_size - 48);
		}
	}
	hks_free(ctx, by_start, by_start ? (size_t)pf->num_sections * 4 : 0);
	hks_free(ctx, new_start, new_start ? (size_t)pf->num_sections * 4 : 0);
	hks_free(ctx, new_rel, new_rel ? (size_t)pf->num_sections * sizeof(uint32_t[6]) : 0);
	return r;
}

hks_result hks_packfile_write(hks_ctx *ctx, const hks_file *file, hks_bytebuf *out)
{
	if (!file || !file->internal || !out)
		return hks_fail(ctx, HKS_E_ARGUMENT, -1, "hks_packfile_write: NULL argument");
	const struct hks_packfile *pf = file->internal->packfile;
	if (!pf || file->container != HKS_CONTAINER_PACKFILE)
		return hks_fail(ctx, HKS_E_ARGUMENT, -1, "the file was not read from a packfile");
	writer w;
	memset(&w, 0, sizeof(w));
	w.ctx = ctx;
	w.file = file;
	w.pf = pf;
	w.lay = &pf->layout;
	w.ds = &pf->sections[pf->data_section];
	w.sec = pf->bytes + w.ds->start;
	w.sec_len = w.ds->local_fixups;
	hks_result r = write_all(&w, out);
	size_t nb = (size_t)pf->num_objects + pf->num_locals + pf->num_globals + 2;
	hks_free(ctx, w.bounds, w.bounds ? nb * 4 : 0);
	hks_free(ctx, w.replacement, w.replacement ? (size_t)w.num_chunks * 4 : 0);
	hks_free(ctx, w.chunk_piece, w.chunk_piece ? (size_t)w.num_chunks * 4 : 0);
	hks_free(ctx, w.pieces, (size_t)w.pieces_cap * sizeof(piece));
	hks_free(ctx, w.insert_before, (size_t)w.insert_before_cap * 4);
	for (uint32_t i = 0; i < w.num_owned; i++)
		hks_free(ctx, w.owned[i], w.owned_size[i]);
	hks_free(ctx, w.owned, (size_t)w.owned_cap * sizeof(uint8_t *));
	hks_free(ctx, w.owned_size, (size_t)w.owned_size_cap * sizeof(size_t));
	hks_free(ctx, w.edits, (size_t)w.num_edits * sizeof(local_edit));
	hks_free(ctx, w.patches, (size_t)w.num_patches * sizeof(patch));
	return r;
}
