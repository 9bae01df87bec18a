/*
 * DCX writer (CONTAINERS.md §7): always DFLT with zlib. The header of the
 * input DCX is kept (only the DCS sizes change) so that a rewritten archive
 * carries the same variant (version, level byte, flags). A KRAK header is
 * written as KRAK when the codec of the options can compress (the user's Oodle
 * library, Kraken at the header's level byte), else as DFLT with a note to the
 * codec; ZSTD inputs are written back as DFLT (§7.3 point 3).
 */
#include "internal.h"
#include "oodle.h"

#include <stdio.h>

#include <zlib.h>

/* DFLT_11000_44_9 (CONTAINERS.md §7.1, the Sekiro / Elden Ring anibnd variant). */
static void default_header(uint8_t h[HKS_DCX_HEADER_SIZE])
{
	memset(h, 0, HKS_DCX_HEADER_SIZE);
	memcpy(h + 0x00, "DCX\0", 4);
	hks_put_be32(h + 0x04, 0x00011000u);
	hks_put_be32(h + 0x08, 0x18);
	hks_put_be32(h + 0x0C, 0x24);
	hks_put_be32(h + 0x10, 0x44);
	hks_put_be32(h + 0x14, 0x4C);
	memcpy(h + 0x18, "DCS\0", 4);
	memcpy(h + 0x24, "DCP\0", 4);
	memcpy(h + 0x28, "DFLT", 4);
	hks_put_be32(h + 0x2C, 0x20);
	h[0x30] = 9;
	hks_put_be32(h + 0x40, 0x00010100u);
	memcpy(h + 0x44, "DCA\0", 4);
	hks_put_be32(h + 0x48, 8);
}

/* KRAK with the codec: HKS_OK, or HKS_E_UNSUPPORTED (with *why) when the codec
 * cannot, so that the caller writes DFLT; other results are errors. */
static hks_result krak_compress(hks_ctx *ctx, const hks_dcx_codec *codec, const uint8_t *like_header,
                                const void *data, size_t size, uint8_t **out, size_t *out_size, char *why,
                                size_t why_size)
{
	/* Generous room: Kraken's worst case is a few bytes per 256 KiB block. */
	size_t cap;
	if (!hks_add_size(size, size, &cap) || !hks_add_size(cap, 65536, &cap) ||
	    !hks_add_size(cap, HKS_DCX_HEADER_SIZE, &cap) || cap > ctx->limits.max_output_bytes + size + 65536) {
		snprintf(why, why_size, "%zu bytes are too many for the KRAK writer", size);
		return HKS_E_UNSUPPORTED;
	}
	uint8_t *buf = (uint8_t *)hks_malloc(ctx, cap);
	if (!buf)
		return ctx->err && ctx->err->code != HKS_OK ? ctx->err->code : HKS_E_NOMEM;
	size_t room = cap - HKS_DCX_HEADER_SIZE;
	char msg[1024] = "";
	int64_t n = codec->compress(codec->user, "KRAK", like_header[0x30], ctx->file, (const uint8_t *)data, size,
	                            buf + HKS_DCX_HEADER_SIZE, room, msg, sizeof(msg));
	msg[sizeof(msg) - 1] = '\0';
	if (n < 0 || n == 0) {
		hks_free(ctx, buf, cap);
		snprintf(why, why_size, "%s", msg[0] ? msg : "the compressor failed");
		return HKS_E_UNSUPPORTED;
	}
	if ((uint64_t)n > room || (uint64_t)n > UINT32_MAX) {
		hks_free(ctx, buf, cap);
		return hks_fail(ctx, HKS_E_INTERNAL, -1, "the Oodle compressor reported %lld bytes, more than the %zu it was given",
		                (long long)n, room);
	}
	memcpy(buf, like_header, HKS_DCX_HEADER_SIZE);
	hks_put_be32(buf + 0x1C, (uint32_t)size);
	hks_put_be32(buf + 0x20, (uint32_t)n);
	size_t used = HKS_DCX_HEADER_SIZE + (size_t)n;
	uint8_t *shrunk = (uint8_t *)hks_realloc(ctx, buf, cap, used);
	if (!shrunk) {
		hks_free(ctx, buf, cap);
		return ctx->err && ctx->err->code != HKS_OK ? ctx->err->code : HKS_E_NOMEM;
	}
	*out = shrunk;
	*out_size = used;
	return HKS_OK;
}

hks_result hks_dcx_compress(const void *data, size_t size, const hks_dcx_info *like, const hks_options *opts,
                            uint8_t **out, size_t *out_size, hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, opts, size, err);
	hks_err_object(&ctx, "DCX writer");
	if ((!data && size) || !out || !out_size)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_dcx_compress: NULL argument");
	*out = NULL;
	*out_size = 0;
	/* DCS stores 32-bit sizes; zlib's avail_in is 32-bit too. */
	if (size > UINT32_MAX)
		return hks_fail(&ctx, HKS_E_LIMIT, -1, "%zu bytes do not fit a DCX (at most 4 GiB - 1)", size);

	if (like && like->header_size == HKS_DCX_HEADER_SIZE && memcmp(like->header + 0x28, "KRAK", 4) == 0) {
		const hks_dcx_codec *codec = hks_dcx_codec_for(opts);
		char why[1200] = "no Oodle compressor was given";
		if (codec && codec->compress) {
			hks_result r = krak_compress(&ctx, codec, like->header, data, size, out, out_size, why, sizeof(why));
			if (r != HKS_E_UNSUPPORTED)
				return r;
		}
		if (codec && codec->note) {
			char note[1400];
			snprintf(note, sizeof(note), "%s: written as DCX DFLT instead of KRAK (%s)",
			         ctx.file ? ctx.file : "DCX", why);
			codec->note(codec->user, note);
		}
	}
	uint8_t header[HKS_DCX_HEADER_SIZE];
	if (like && like->header_size == HKS_DCX_HEADER_SIZE && memcmp(like->header + 0x28, "DFLT", 4) == 0)
		memcpy(header, like->header, HKS_DCX_HEADER_SIZE);
	else
		default_header(header);
	/* The level byte drives zlib (9 gives the "78 DA" streams of §7.1) unless
	 * the caller asks for another deflate effort. */
	int header_level = header[0x30] >= 1 && header[0x30] <= 9 ? header[0x30] : 9;
	int level = like && like->deflate_level >= 1 && like->deflate_level <= 9 ? like->deflate_level : header_level;

	z_stream z;
	memset(&z, 0, sizeof(z));
	if (deflateInit(&z, level) != Z_OK)
		return hks_fail(&ctx, HKS_E_NOMEM, -1, "zlib deflateInit failed");
	uLong bound = deflateBound(&z, (uLong)size);
	size_t total;
	if (!hks_add_size((size_t)bound, HKS_DCX_HEADER_SIZE, &total) || total > ctx.limits.max_output_bytes) {
		deflateEnd(&z);
		return hks_fail(&ctx, HKS_E_LIMIT, -1, "the compressed output may exceed the output limit of %llu bytes",
		                (unsigned long long)ctx.limits.max_output_bytes);
	}
	uint8_t *buf = (uint8_t *)hks_malloc(&ctx, total);
	if (!buf) {
		deflateEnd(&z);
		return err && err->code != HKS_OK ? err->code : HKS_E_NOMEM;
	}
	z.next_in = (Bytef *)(uintptr_t)data;
	z.avail_in = (uInt)size;
	z.next_out = buf + HKS_DCX_HEADER_SIZE;
	z.avail_out = (uInt)bound;
	int rc = deflate(&z, Z_FINISH);
	uLong produced = z.total_out;
	deflateEnd(&z);
	if (rc != Z_STREAM_END || produced > UINT32_MAX) {
		hks_free(&ctx, buf, total);
		return hks_fail(&ctx, HKS_E_INTERNAL, -1, "zlib deflate did not finish within deflateBound (%d)", rc);
	}
	/* The zlib header's FLEVEL field is informational (RFC 1950 §2.2): write the
	 * one of the DCX level byte, so that a stream deflated with another effort
	 * still starts like the archive's. The corpus shows a producer doing this:
	 * a level-6 deflate stream behind "78 DA" (docs/BINDERS.md). */
	if (level != header_level) {
		uint8_t *z = buf + HKS_DCX_HEADER_SIZE;
		unsigned flevel = header_level == 1 ? 0 : header_level < 6 ? 1 : header_level == 6 ? 2 : 3;
		unsigned flg = (flevel << 6) | (z[1] & 0x20); /* keep FDICT (never set here) */
		unsigned fcheck = (31 - ((unsigned)z[0] * 256 + flg) % 31) % 31;
		z[1] = (uint8_t)(flg | fcheck);
	}
	hks_put_be32(header + 0x1C, (uint32_t)size);
	hks_put_be32(header + 0x20, (uint32_t)produced);
	memcpy(buf, header, HKS_DCX_HEADER_SIZE);
	size_t used = HKS_DCX_HEADER_SIZE + (size_t)produced;
	uint8_t *shrunk = (uint8_t *)hks_realloc(&ctx, buf, total, used);
	if (!shrunk) {
		hks_free(&ctx, buf, total);
		return err && err->code != HKS_OK ? err->code : HKS_E_NOMEM;
	}
	*out = shrunk;
	*out_size = used;
	return HKS_OK;
}
