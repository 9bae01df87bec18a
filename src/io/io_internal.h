/*
 * Internal helpers of the path loader (src/io/): a light sniff of a Havok
 * file's identity (SDK string, compendium reference) that runs before the
 * full parse, so the loader can pick the right compendium set and report the
 * SDK of files that fail to parse.
 */
#ifndef HKS_IO_INTERNAL_H
#define HKS_IO_INTERNAL_H

#include "internal.h"

typedef struct hks_sniff {
	hks_container container;  /* hks_detect_container */
	char sdk[32];             /* SDKV (tagfile) or contentsVersion (packfile); "" when unknown */
	int has_tcrf;             /* a TCRF section was found among TAG0's children */
	uint8_t tcrf_id[8];       /* its 8-byte compendium ID, file order */
} hks_sniff;

/*
 * Identify a file without parsing it: only the top-level section headers of a
 * tagfile (CONTAINERS.md §2.1-2.3) or the fixed packfile header (§5.1) are
 * looked at, every read bounds-checked. Never fails: fields it cannot read
 * stay empty.
 */
void hks_sniff_bytes(const uint8_t *data, size_t size, hks_sniff *out);

/* True when the sniffed kind is one hks_file_read parses. */
static inline bool hks_sniff_is_havok(hks_container c)
{
	return c == HKS_CONTAINER_TAGFILE || c == HKS_CONTAINER_COMPENDIUM || c == HKS_CONTAINER_PACKFILE ||
	       c == HKS_CONTAINER_XML;
}

/* The unit of member MEMBER of the binder at BINDER (the path as given to
 * hks_loader_add_path): MEMBER is its full entry name or its base name, in any case.
 * HKS_E_ARGUMENT when a base name names several entries (the full name is needed),
 * HKS_E_NOT_FOUND when the binder has no such entry, or when the entry is no Havok
 * file (a .tae): each with a message saying which. (src/io/loader.c) */
struct hks_loader;
hks_result hks_loader_member_unit(struct hks_loader *loader, const char *binder, const char *member, size_t *unit,
                                  hks_error *err);

#endif
