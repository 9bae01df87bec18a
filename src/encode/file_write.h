/*
 * The container writers behind hks_file_write (src/encode/file_write.c).
 */
#ifndef HKS_FILE_WRITE_H
#define HKS_FILE_WRITE_H

#include "internal.h"

/* Append the serialized file to `out` (src/encode/tagfile_write.c,
 * src/encode/packfile_write.c). */
hks_result hks_tagfile_write(hks_ctx *ctx, const hks_file *file, hks_bytebuf *out);
hks_result hks_packfile_write(hks_ctx *ctx, const hks_file *file, hks_bytebuf *out);

#endif
