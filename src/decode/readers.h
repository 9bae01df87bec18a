/*
 * Internal interface between hks_file_read (file.c) and the container readers.
 * Each reader fills an hks_file whose memory lives in file->internal->arena.
 */
#ifndef HKS_READERS_H
#define HKS_READERS_H

#include "internal.h"

struct hks_tagfile;   /* raw tagfile model (tagfile.h), kept for the writer */
struct hks_packfile;  /* raw packfile model (packfile.h), kept for the writer */

struct hks_file_internal {
	hks_arena *arena;                 /* owns the hks_file and everything it points to */
	struct hks_tagfile *tagfile;      /* container TAGFILE / COMPENDIUM */
	struct hks_packfile *packfile;    /* container PACKFILE */
	const uint8_t *source;            /* a copy of the input bytes (arena) */
	size_t source_size;
};

/* TAG0 or TCM0 (src/decode/tagfile.c). */
hks_result hks_tagfile_parse(hks_ctx *ctx, const uint8_t *data, size_t size,
                             const hks_compendium_set *compendiums, hks_file *file);
/* Binary packfile (src/decode/packfile.c). */
hks_result hks_packfile_parse(hks_ctx *ctx, const uint8_t *data, size_t size, hks_file *file);
/* Havok XML (src/decode/xml.c). */
hks_result hks_xml_parse(hks_ctx *ctx, const uint8_t *data, size_t size, hks_file *file);

#endif
