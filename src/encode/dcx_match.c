/*
 * Which zlib level reproduces a DCX's compressed stream (CONTAINERS.md §7):
 * `bnd pack` / `bnd replace` deflate at that level, so that an unchanged
 * binder comes back byte for byte whichever tool wrote it (the level byte of
 * the header is what FromSoftware's writer used; binder tools built on .NET
 * deflate at 6 behind the same header, docs/BINDERS.md).
 *
 * Each candidate level deflates `raw` in chunks and compares with the stored
 * stream as it goes, stopping at the first differing byte (usually within
 * the first few kilobytes), so a miss is cheap. The zlib header's byte 1 is
 * skipped there (hks_dcx_compress writes the header level's FLEVEL into it);
 * a level whose stream matches is then confirmed by hks_dcx_compress itself,
 * header and all.
 */
#include "internal.h"

#include <zlib.h>

#define MATCH_CHUNK 65536u

/* Whether zlib at `level` (default strategy and memory) gives `stream` exactly,
 * byte 1 aside. */
static bool stream_matches(const uint8_t *raw, size_t raw_size, const uint8_t *stream, size_t stream_size, int level,
                           uint8_t *chunk)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (deflateInit(&z, level) != Z_OK)
		return false;
	z.next_in = (Bytef *)(uintptr_t)raw;
	z.avail_in = (uInt)raw_size;
	size_t at = 0;
	bool same = true;
	int rc = Z_OK;
	while (same && rc != Z_STREAM_END) {
		z.next_out = chunk;
		z.avail_out = MATCH_CHUNK;
		rc = deflate(&z, Z_FINISH);
		if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
			same = false;
			break;
		}
		size_t got = MATCH_CHUNK - z.avail_out;
		if (got > stream_size - at) {
			same = false;
			break;
		}
		for (size_t i = 0; i < got; i++) {
			if (at + i != 1 && chunk[i] != stream[at + i]) {
				same = false;
				break;
			}
		}
		at += got;
		if (rc == Z_BUF_ERROR && got == 0)
			same = false; /* no progress: cannot happen with Z_FINISH and room, but never loop */
	}
	deflateEnd(&z);
	return same && at == stream_size;
}

int hks_dcx_match_level(const void *raw, size_t raw_size, const void *dcx, size_t dcx_size)
{
	hks_dcx_info info;
	if (!raw || !dcx || raw_size > UINT32_MAX || hks_dcx_read_info(dcx, dcx_size, &info, NULL) != HKS_OK)
		return 0;
	if (memcmp(info.compression, "DFLT", 4) != 0 || info.uncompressed_size != raw_size ||
	    info.header_size != HKS_DCX_HEADER_SIZE || dcx_size - info.header_size < info.compressed_size)
		return 0;
	const uint8_t *stream = (const uint8_t *)dcx + info.header_size;
	hks_ctx ctx;
	hks_ctx_init(&ctx, NULL, raw_size, NULL);
	uint8_t *chunk = (uint8_t *)hks_malloc(&ctx, MATCH_CHUNK);
	if (!chunk)
		return 0;
	int first = info.level >= 1 && info.level <= 9 ? info.level : 9;
	int found = 0;
	for (int k = 0; k <= 9 && !found; k++) {
		int level = k == 0 ? first : 10 - k; /* the header's level, then 9 down to 1 */
		if (k > 0 && level == first)
			continue;
		if (!stream_matches((const uint8_t *)raw, raw_size, stream, info.compressed_size, level, chunk))
			continue;
		/* confirm with the writer: header, FLEVEL byte and stream */
		hks_dcx_info like = info;
		like.deflate_level = (uint8_t)level;
		uint8_t *out = NULL;
		size_t out_size = 0;
		if (hks_dcx_compress(raw, raw_size, &like, NULL, &out, &out_size, NULL) == HKS_OK) {
			if (out_size == info.header_size + (size_t)info.compressed_size &&
			    memcmp(out, dcx, out_size) == 0)
				found = level;
			hks_buffer_free(NULL, out, out_size);
		}
	}
	hks_free(&ctx, chunk, MATCH_CHUNK);
	return found;
}
