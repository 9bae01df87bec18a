/*
 * The compendium set: TCM0 files indexed by their 64-bit IDs (CONTAINERS.md §2.11).
 *
 * Every TYPE section is parsed once, eagerly, in hks_compendium_set_add: once
 * built, the set is only read, so several threads may look IDs up at once.
 */
#include "tagfile.h"

#include <stdio.h>

typedef struct compendium_entry {
	char *name;
	hks_arena *arena;           /* owns the entry, its bytes and its parsed types */
	const uint8_t *bytes;
	size_t size;
	const uint8_t *type_payload; /* payload of the TYPE container */
	size_t type_size;
	hks_tag_types *types;
} compendium_entry;

typedef struct compendium_id {
	uint8_t id[8];
	uint32_t entry;
} compendium_id;

struct hks_compendium_set {
	hks_options opts;
	compendium_entry **entries;
	size_t num_entries, cap_entries;
	compendium_id *ids;
	size_t num_ids, cap_ids;
};

void hks_format_id(const uint8_t id[8], char buf[17])
{
	for (int i = 0; i < 8; i++)
		snprintf(buf + 2 * i, 3, "%02x", id[i]);
}

hks_result hks_compendium_set_create(const hks_options *opts, hks_compendium_set **out, hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, opts, 0, err);
	if (!out)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_compendium_set_create: NULL argument");
	*out = NULL;
	hks_compendium_set *s = (hks_compendium_set *)hks_calloc(&ctx, 1, sizeof(*s));
	if (!s)
		return hks_fail_nomem(&ctx, sizeof(*s));
	if (opts)
		s->opts = *opts;
	s->opts.name = NULL;
	*out = s;
	return HKS_OK;
}

static const compendium_id *find_id(const hks_compendium_set *set, const uint8_t id[8])
{
	for (size_t i = 0; i < set->num_ids; i++)
		if (!memcmp(set->ids[i].id, id, 8))
			return &set->ids[i];
	return NULL;
}

int hks_compendium_set_contains(const hks_compendium_set *set, const uint8_t id[8])
{
	return set && id && find_id(set, id) != NULL;
}

size_t hks_compendium_set_count(const hks_compendium_set *set)
{
	return set ? set->num_entries : 0;
}

const uint8_t *hks_compendium_set_type_bytes(const hks_compendium_set *set, const uint8_t id[8], size_t *size)
{
	const compendium_id *ci = set && id ? find_id(set, id) : NULL;
	if (!ci)
		return NULL;
	const compendium_entry *e = set->entries[ci->entry];
	*size = e->type_size;
	return e->type_payload;
}

/* Grow an array of `elem`-sized items to hold one more. */
static bool grow(hks_ctx *ctx, void **array, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return true;
	size_t ncap = *cap ? *cap * 2 : 8;
	while (ncap < need)
		ncap *= 2;
	void *p = hks_realloc(ctx, *array, *cap * elem, ncap * elem);
	if (!p)
		return false;
	*array = p;
	*cap = ncap;
	return true;
}

/* `longer` holds every type of `shorter` under the same index and name, plus more. */
static bool types_extend(const hks_tag_types *shorter, const hks_tag_types *longer)
{
	if (longer->count <= shorter->count)
		return false;
	for (uint32_t i = 1; i < shorter->count; i++) {
		const char *a = shorter->types[i].name, *b = longer->types[i].name;
		if ((a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0))
			return false;
	}
	return true;
}

hks_result hks_compendium_set_add(hks_compendium_set *set, const void *data, size_t size, const char *name,
                                  int *conflict, hks_error *err)
{
	hks_options o = set ? set->opts : (hks_options){0};
	o.name = name;
	hks_ctx ctx;
	hks_ctx_init(&ctx, &o, size, err);
	if (!set || (!data && size))
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_compendium_set_add: NULL argument");
	if (conflict)
		*conflict = 0;
	if (hks_detect_container(data, size) != HKS_CONTAINER_COMPENDIUM)
		return hks_fail(&ctx, HKS_E_MALFORMED, 4, "not a compendium (no TCM0 magic)");
	hks_arena *arena = hks_arena_create(&ctx);
	if (!arena)
		return err && err->code ? err->code : HKS_E_NOMEM;
	compendium_entry *e = (compendium_entry *)hks_arena_alloc(arena, sizeof(*e));
	uint8_t *copy = e ? (uint8_t *)hks_arena_dup(arena, data, size) : NULL;
	hks_result r = HKS_OK;
	if (!copy) {
		r = err && err->code ? err->code : HKS_E_NOMEM;
		goto fail;
	}
	e->arena = arena;
	e->bytes = copy;
	e->size = size;
	e->name = hks_arena_strdup(arena, name ? name : "");

	/* TCM0 { TCID, TYPE { ... } } (§2.2) */
	hks_cursor c = hks_cursor_make(&ctx, copy, size, 0);
	hks_tag_section root;
	hks_err_object(&ctx, "section TCM0");
	if ((r = hks_tag_read_section(&c, &root)) != HKS_OK)
		goto fail;
	hks_cursor body = hks_cursor_make(&ctx, copy + 8, root.size - 8, 8);
	const uint8_t *tcid = NULL;
	size_t tcid_size = 0;
	int64_t tcid_at = -1;
	while (body.pos < body.size) {
		hks_tag_section s;
		if ((r = hks_tag_read_section(&body, &s)) != HKS_OK)
			goto fail;
		if (!strcmp(s.tag, "TCID")) {
			tcid = body.data + s.offset + 8;
			tcid_size = s.size - 8;
			tcid_at = 8 + (int64_t)s.offset;
		} else if (!strcmp(s.tag, "TYPE")) {
			e->type_payload = body.data + s.offset + 8;
			e->type_size = s.size - 8;
			if ((r = hks_tag_parse_types(&ctx, arena, e->type_payload, e->type_size, 16 + (int64_t)s.offset,
			                             &e->types)) != HKS_OK)
				goto fail;
		}
		body.pos = s.offset + s.size;
	}
	if (!tcid || !e->types) {
		r = hks_fail(&ctx, HKS_E_MALFORMED, 0, "compendium without %s section", !tcid ? "TCID" : "TYPE");
		goto fail;
	}
	if (tcid_size % 8) {
		r = hks_fail(&ctx, HKS_E_MALFORMED, tcid_at, "TCID size %zu is not a multiple of 8", tcid_size);
		goto fail;
	}

	size_t added = 0;
	uint32_t entry_index = (uint32_t)set->num_entries;
	if (!grow(&ctx, (void **)&set->ids, &set->cap_ids, set->num_ids + tcid_size / 8, sizeof(compendium_id)) ||
	    !grow(&ctx, (void **)&set->entries, &set->cap_entries, set->num_entries + 1, sizeof(compendium_entry *))) {
		r = err && err->code ? err->code : HKS_E_NOMEM;
		goto fail;
	}
	for (size_t i = 0; i < tcid_size / 8; i++) {
		const uint8_t *id = tcid + 8 * i;
		const compendium_id *old = find_id(set, id);
		if (old) {
			/* Different TYPE bytes for one ID are a conflict (§2.11). The corpus
			 * shows why it happens: the same ID is shipped with a table and with
			 * that table plus types appended (docs/TAGFILE.md). The extended table
			 * serves every file the shorter one serves, so it wins; otherwise the
			 * first one stays. */
			const compendium_entry *oe = set->entries[old->entry];
			if (oe->type_size != e->type_size || memcmp(oe->type_payload, e->type_payload, e->type_size)) {
				if (conflict)
					*conflict = 1;
				if (types_extend(oe->types, e->types)) {
					set->ids[old - set->ids].entry = entry_index;
					added++;
				}
			}
			continue;
		}
		memcpy(set->ids[set->num_ids].id, id, 8);
		set->ids[set->num_ids].entry = entry_index;
		set->num_ids++;
		added++;
	}
	if (!added) {
		hks_arena_free(arena);
		return HKS_OK;
	}
	hks_arena_set_ctx(arena, NULL);
	set->entries[set->num_entries++] = e;
	return HKS_OK;
fail:
	hks_arena_free(arena);
	return r;
}

void hks_compendium_set_free(hks_compendium_set *set)
{
	if (!set)
		return;
	hks_ctx ctx;
	hks_ctx_init(&ctx, &set->opts, 0, NULL);
	for (size_t i = 0; i < set->num_entries; i++)
		hks_arena_free(set->entries[i]->arena);
	hks_free(&ctx, set->entries, set->cap_entries * sizeof(compendium_entry *));
	hks_free(&ctx, set->ids, set->cap_ids * sizeof(compendium_id));
	hks_free(&ctx, set, sizeof(*set));
}
