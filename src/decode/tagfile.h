/*
 * The raw model of a Havok tagfile (TAG0) or compendium (TCM0): sections,
 * the type table, ITEM records and the DATA payload. The reader keeps it in
 * hks_file_internal.tagfile so that the writer can regenerate DATA / ITEM /
 * PTCH (CONTAINERS.md §4) and copy every other section byte for byte.
 */
#ifndef HKS_TAGFILE_H
#define HKS_TAGFILE_H

#include "readers.h"

/* Format word kinds (CONTAINERS.md §2.7: kind = format & 0x1F). */
enum {
	HKS_TAG_VOID = 0,
	HKS_TAG_OPAQUE = 1,
	HKS_TAG_BOOL = 2,
	HKS_TAG_STRING = 3,
	HKS_TAG_INT = 4,
	HKS_TAG_FLOAT = 5,
	HKS_TAG_POINTER = 6,
	HKS_TAG_RECORD = 7,
	HKS_TAG_ARRAY = 8
};

/* Format word bits. */
#define HKS_TAG_FMT_SIGNED 0x200u
#define HKS_TAG_FMT_INT8 0x2000u
#define HKS_TAG_FMT_INT16 0x4000u
#define HKS_TAG_FMT_INT32 0x8000u
#define HKS_TAG_FMT_INT64 0x10000u
#define HKS_TAG_FMT_FIXED_ARRAY 0x20u

/* Member flag: not serialized (its bytes are zero in DATA). */
#define HKS_TAG_MEMBER_NOT_SERIALIZED 0x01u

/* ITEM kinds (bits 28-31 of typeAndKind, CONTAINERS.md §2.9). */
#define HKS_TAG_ITEM_OBJECT 0x1u
#define HKS_TAG_ITEM_ARRAY 0x2u

typedef struct hks_tag_member {
	const char *name;
	uint32_t flags;
	uint32_t offset;   /* absolute byte offset in the object */
	uint32_t type;
} hks_tag_member;

typedef struct hks_tag_template {
	const char *name;  /* "tT", "vN", ... */
	uint64_t value;    /* a type index ('t') or an integer ('v') */
} hks_tag_template;

typedef struct hks_tag_type {
	const char *name;
	uint32_t num_templates;
	hks_tag_template *templates;
	int has_body;          /* an entry in TBOD/TBDY */
	uint32_t parent;
	uint32_t opt;          /* optional-fields mask of the body */
	uint32_t format, subtype, version, size, align, flags;
	uint32_t num_members;
	hks_tag_member *members;
	/* resolved through typedef inheritance (§2.7): from the first ancestor
	 * whose mask has the bit */
	uint32_t r_format, r_subtype, r_size, r_align;
} hks_tag_type;

/* A parsed TYPE section. Index 0 is the null type. */
typedef struct hks_tag_types {
	uint32_t count;
	hks_tag_type *types;
} hks_tag_types;

typedef struct hks_tag_item {
	uint32_t type;     /* type index */
	uint32_t kind;     /* HKS_TAG_ITEM_OBJECT / _ARRAY, 0 for the null item */
	uint32_t offset;   /* DATA-relative */
	uint32_t count;
	uint32_t elem_size;/* resolved size of the type (1 for char) */
} hks_tag_item;

/* A section as found in the file (header included in [offset, offset+size)). */
typedef struct hks_tag_section {
	char tag[5];
	uint32_t offset;
	uint32_t size;
	uint32_t flags;    /* bits 30-31 of the header word */
} hks_tag_section;

typedef struct hks_tagfile {
	const uint8_t *bytes;          /* the whole file (file arena) */
	size_t size;
	int is_compendium;
	hks_tag_section *top;          /* children of TAG0 / TCM0, in file order */
	uint32_t num_top;
	uint32_t root_size;            /* size declared by the TAG0/TCM0 header */
	uint32_t data_offset;          /* file offset of the DATA payload */
	uint32_t data_size;
	const hks_tag_types *types;    /* inline or the compendium's (copied into the file arena) */
	hks_tag_item *items;
	uint32_t num_items;
	uint32_t *animation_items;     /* hks_file.animations[i] -> item index */
	uint32_t num_animation_items;
} hks_tagfile;

/* Read one section header at the cursor (CONTAINERS.md §2.1): checks the
 * 30-bit size against the bytes left, bit 31 clear; advances past the header. */
hks_result hks_tag_read_section(hks_cursor *c, hks_tag_section *s);

/* ---- varints (CONTAINERS.md §2.4) ---- */
hks_result hks_tag_read_varint(hks_cursor *c, uint64_t *v, const char *what);
/* Shortest encoding of v into out (9 bytes max); returns the length. */
size_t hks_tag_write_varint(uint64_t v, uint8_t out[9]);

/* Parse a TYPE container's payload (its children: TPTR, TSTR, TNAM ...).
 * `base` is the file offset of the payload, for messages. */
hks_result hks_tag_parse_types(hks_ctx *ctx, hks_arena *arena, const uint8_t *payload, size_t size, int64_t base,
                               hks_tag_types **out);

/* Type helpers; every one is bounded and safe with any index. */
const hks_tag_type *hks_tag_type_get(const hks_tag_types *t, uint32_t index);
const char *hks_tag_type_name(const hks_tag_types *t, uint32_t index);
/* True when `type` is `name` or derives from it (parent chain, bounded). */
int hks_tag_type_is_a(const hks_tag_types *t, uint32_t type, const char *name);
/* Find a serialized member by name in the type or its ancestors (NULL when
 * absent or flagged not serialized: such a member holds no value, §2.7). */
const hks_tag_member *hks_tag_find_member(const hks_tag_types *t, uint32_t type, const char *name);

/* The compendium set gives the TYPE section bytes (payload) of an ID, or NULL. */
const uint8_t *hks_compendium_set_type_bytes(const hks_compendium_set *set, const uint8_t id[8], size_t *size);

#endif
