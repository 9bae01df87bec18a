/*
 * DCX reader (CONTAINERS.md §7): header parse and DFLT (zlib) decompression.
 * KRAK (Oodle Kraken) goes to the codec of the options (the user's Oodle
 * library, src/io/oodle.c) and is refused with advice without one; ZSTD and
 * every other tag are reported, never guessed at (§7.2, §7.3).
 */
#include "internal.h"
#include "oodle.h"

#include <stdio.h>

#include <zlib.h>

/* Offsets of the DCX header fields (CONTAINERS.md §7.1; all big-endian). */
enum {
	DCX_VERSION = 0x04,
	DCX_DCS_OFFSET = 0x08,   /* 0x18: where "DCS\0" starts */
	DCX_DCP_OFFSET = 0x0C,   /* 0x24: where "DCP\0" starts */
	DCX_DCS = 0x18,
	DCX_UNCOMPRESSED = 0x1C,
	DCX_COMPRESSED = 0x20,
	DCX_DCP = 0x24,
	DCX_TAG = 0x28,
	DCX_DCP_SIZE = 0x2C,     /* 0x20 */
	DCX_LEVEL = 0x30,
	DCX_DCA = 0x44,
	DCX_DCA_SIZE = 0x48      /* 8: the payload follows at 0x44 + 8 */
};

static bool magic_at(const uint8_t *p, const char *m4) { return memcmp(p, m4, 4) == 0; }

/* The tag as a printable 4-character string. */
static void tag_name(const uint8_t *p, char out[5])
{
	for (int i = 0; i < 4; i++)
		out[i] = (p[i] >= 0x20 && p[i] < 0x7F) ? (char)p[i] : '?';
	out[4] = '\0';
}

/* Parse the fixed header; the payload is not checked here, so that an
 * unsupported compression is reported even when the payload is cut short. */
static hks_result parse_header(hks_ctx *ctx, const uint8_t *d, size_t size, hks_dcx_info *info)
{
	hks_err_object(ctx, "DCX header");
	if (size >= 4 && magic_at(d, "DCP\0"))
		return hks_fail(ctx, HKS_E_UNSUPPORTED, 0,
		                "a bare DCP stream without a DCX header is not supported (CONTAINERS.md §7.2)");
	if (size < 4 || !magic_at(d, "DCX\0"))
		return hks_fail(ctx, size < 4 ? HKS_E_TRUNCATED : HKS_E_MALFORMED, 0, "not a DCX file (no \"DCX\\0\" magic)");
	if (size < HKS_DCX_HEADER_SIZE)
		return hks_fail(ctx, HKS_E_TRUNCATED, (int64_t)size,
		                "the DCX header needs %d bytes, the file has %zu", HKS_DCX_HEADER_SIZE, size);
	memset(info, 0, sizeof(*info));
	memcpy(info->header, d, HKS_DCX_HEADER_SIZE);
	info->version = hks_be32(d + DCX_VERSION);
	/* The structure offsets are what the rest of the parse relies on. */
	if (hks_be32(d + DCX_DCS_OFFSET) != DCX_DCS || hks_be32(d + DCX_DCP_OFFSET) != DCX_DCP)
		return hks_fail(ctx, HKS_E_MALFORMED, DCX_DCS_OFFSET,
		                "DCX section offsets are 0x%x/0x%x, expected 0x18/0x24", hks_be32(d + DCX_DCS_OFFSET),
		                hks_be32(d + DCX_DCP_OFFSET));
	if (!magic_at(d + DCX_DCS, "DCS\0"))
		return hks_fail(ctx, HKS_E_MALFORMED, DCX_DCS, "missing \"DCS\\0\"");
	if (!magic_at(d + DCX_DCP, "DCP\0"))
		return hks_fail(ctx, HKS_E_MALFORMED, DCX_DCP, "missing \"DCP\\0\"");
	tag_name(d + DCX_TAG, info->compression);
	info->uncompressed_size = hks_be32(d + DCX_UNCOMPRESSED);
	info->compressed_size = hks_be32(d + DCX_COMPRESSED);
	info->level = d[DCX_LEVEL];
	if (hks_be32(d + DCX_DCP_SIZE) != 0x20)
		return hks_fail(ctx, HKS_E_MALFORMED, DCX_DCP_SIZE, "DCP size is 0x%x, expected 0x20",
		                hks_be32(d + DCX_DCP_SIZE));
	if (!magic_at(d + DCX_DCA, "DCA\0"))
		return hks_fail(ctx, HKS_E_MALFORMED, DCX_DCA, "missing \"DCA\\0\"");
	if (hks_be32(d + DCX_DCA_SIZE) != 8)
		return hks_fail(ctx, HKS_E_UNSUPPORTED, DCX_DCA_SIZE, "DCA size is %u, only 8 is known",
		                hks_be32(d + DCX_DCA_SIZE));
	info->header_size = HKS_DCX_HEADER_SIZE;
	return HKS_OK;
}

static hks_result check_payload(hks_ctx *ctx, size_t size, const hks_dcx_info *info)
{
	/* Bytes after the payload are tolerated (ignored); a short payload is not. */
	if (!hks_range_ok(size, info->header_size, info->compressed_size)) {
		hks_err_member(ctx, "compressedSize");
		return hks_fail(ctx, HKS_E_TRUNCATED, (int64_t)size,
		                "the payload declares %u compressed bytes at 0x%x, the file has %zu bytes",
		                info->compressed_size, info->header_size, size);
	}
	return HKS_OK;
}

hks_result hks_dcx_read_info(const void *data, size_t size, hks_dcx_info *info, hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, NULL, size, err);
	if (!data || !info)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_dcx_read_info: NULL argument");
	HKS_TRY(parse_header(&ctx, (const uint8_t *)data, size, info));
	return check_payload(&ctx, size, info);
}

/* The actionable refusal of CONTAINERS.md §7.3 (or §7.2 for the others). */
static hks_result refuse(hks_ctx *ctx, const hks_dcx_info *info)
{
	hks_err_member(ctx, "DCP");
	if (!strcmp(info->compression, "KRAK"))
		return hks_fail(ctx, HKS_E_UNSUPPORTED, DCX_TAG,
		                "compressed with Oodle Kraken (DCX KRAK), which needs the game's Oodle library: "
		                HKS_OODLE_ADVICE);
	if (!strcmp(info->compression, "ZSTD"))
		return hks_fail(ctx, HKS_E_UNSUPPORTED, DCX_TAG,
		                "compressed with Zstandard (DCX ZSTD), which this build of hkspline cannot decompress; "
		                "unpack it with an existing binder tool first");
	return hks_fail(ctx, HKS_E_UNSUPPORTED, DCX_TAG,
	                "DCX compression \"%s\" is not supported (only DFLT); unpack it with an existing binder "
	                "tool first",
	                info->compression);
}

static hks_result inflate_exact(hks_ctx *ctx, const uint8_t *src, uint32_t src_size, uint8_t *dst,
                                uint32_t dst_size)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (inflateInit(&z) != Z_OK)
		return hks_fail(ctx, HKS_E_NOMEM, -1, "zlib inflateInit failed");
	z.next_in = (Bytef *)(uintptr_t)src;
	z.avail_in = src_size;
	/* One byte of spare room (a local sink) tells "too long" apart from "exact". */
	uint8_t spare = 0;
	z.next_out = dst_size ? dst : &spare;
	z.avail_out = dst_size ? dst_size : 1;
	int rc = inflate(&z, Z_FINISH);
	if (rc != Z_STREAM_END && z.avail_out == 0 && dst_size && z.total_out == dst_size) {
		/* Output is full: see whether the stream wants to write more. */
		z.next_out = &spare;
		z.avail_out = 1;
		rc = inflate(&z, Z_FINISH);
	}
	uLong produced = z.total_out;
	uLong consumed = z.total_in;
	const char *zmsg = z.msg;
	inflateEnd(&z);
	int64_t at = (int64_t)HKS_DCX_HEADER_SIZE + (int64_t)consumed;
	hks_err_member(ctx, "DFLT payload");
	if (rc == Z_STREAM_END) {
		if (produced != dst_size)
			return hks_fail(ctx, HKS_E_MALFORMED, at,
			                "the zlib stream inflates to %lu bytes, the header declares %u",
			                (unsigned long)produced, dst_size);
		return HKS_OK;
	}
	if (produced > dst_size)
		return hks_fail(ctx, HKS_E_MALFORMED, at,
		                "the zlib stream inflates to more than the %u bytes the header declares", dst_size);
	if (rc == Z_DATA_ERROR)
		return hks_fail(ctx, HKS_E_MALFORMED, at, "invalid zlib data: %s", zmsg ? zmsg : "(no detail)");
	if (rc == Z_MEM_ERROR)
		return hks_fail(ctx, HKS_E_NOMEM, at, "zlib ran out of memory");
	return hks_fail(ctx, HKS_E_TRUNCATED, at, "the zlib stream ends after %lu of %u compressed bytes",
	                (unsigned long)consumed, src_size);
}

/* KRAK through the codec; its answer is checked like a zlib stream's: exactly
 * the declared size, into a buffer of exactly that size. */
static hks_result codec_exact(hks_ctx *ctx, const hks_dcx_codec *codec, const hks_dcx_info *info,
                              const uint8_t *src, uint8_t *dst)
{
	char msg[1024] = "";
	uint8_t spare = 0;
	int64_t n = codec->decompress(codec->user, info->compression, ctx->file, src, info->compressed_size,
	                              info->uncompressed_size ? dst : &spare, info->uncompressed_size, msg,
	                              sizeof(msg));
	msg[sizeof(msg) - 1] = '\0';
	hks_err_member(ctx, "KRAK payload");
	if (n < 0) {
		if (!msg[0])
			snprintf(msg, sizeof(msg), "the decompressor failed");
		if (n == HKS_DCX_CODEC_UNAVAILABLE) /* no library at all: the advice of refuse() */
			return hks_fail(ctx, HKS_E_UNSUPPORTED, DCX_TAG, "compressed with Oodle Kraken (DCX KRAK): %s; %s",
			                msg, HKS_OODLE_ADVICE);
		return hks_fail(ctx, HKS_E_MALFORMED, HKS_DCX_HEADER_SIZE, "KRAK payload not decompressed: %s", msg);
	}
	if ((uint64_t)n != info->uncompressed_size)
		return hks_fail(ctx, HKS_E_MALFORMED, HKS_DCX_HEADER_SIZE,
		                "the Oodle decompressor returned %lld bytes, the header declares %u (corrupt payload or "
		                "a wrong library)",
		                (long long)n, info->uncompressed_size);
	return HKS_OK;
}

hks_result hks_dcx_decompress(const void *data, size_t size, const hks_options *opts, uint8_t **out,
                              size_t *out_size, hks_dcx_info *info_out, hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, opts, size, err);
	if (!data || !out || !out_size)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_dcx_decompress: NULL argument");
	*out = NULL;
	*out_size = 0;
	hks_dcx_info info;
	HKS_TRY(parse_header(&ctx, (const uint8_t *)data, size, &info));
	if (info_out)
		*info_out = info;
	const hks_dcx_codec *codec = hks_dcx_codec_for(opts);
	bool krak = !strcmp(info.compression, "KRAK") && codec && codec->decompress;
	if (strcmp(info.compression, "DFLT") != 0 && !krak)
		return refuse(&ctx, &info);
	HKS_TRY(check_payload(&ctx, size, &info));
	if (info.uncompressed_size > ctx.limits.max_output_bytes) {
		hks_err_member(&ctx, "uncompressedSize");
		return hks_fail(&ctx, HKS_E_LIMIT, DCX_UNCOMPRESSED,
		                "uncompressed size %u exceeds the output limit of %llu bytes", info.uncompressed_size,
		                (unsigned long long)ctx.limits.max_output_bytes);
	}
	size_t alloc = info.uncompressed_size ? info.uncompressed_size : 1;
	if (alloc > ctx.limits.max_memory) {
		hks_err_member(&ctx, "uncompressedSize");
		return hks_fail(&ctx, HKS_E_LIMIT, DCX_UNCOMPRESSED,
		                "uncompressed size %u exceeds the memory limit of %llu bytes", info.uncompressed_size,
		                (unsigned long long)ctx.limits.max_memory);
	}
	uint8_t *buf = (uint8_t *)hks_malloc(&ctx, alloc);
	if (!buf) {
		hks_err_member(&ctx, "uncompressedSize");
		return err && err->code != HKS_OK ? err->code : HKS_E_NOMEM;
	}
	hks_result r = krak ? codec_exact(&ctx, codec, &info, (const uint8_t *)data + info.header_size, buf)
	                    : inflate_exact(&ctx, (const uint8_t *)data + info.header_size, info.compressed_size, buf,
	                                    info.uncompressed_size);
	if (r != HKS_OK) {
		hks_free(&ctx, buf, alloc);
		return r;
	}
	if (alloc != info.uncompressed_size) {
		/* Empty payload: hand back a zero-size buffer the caller can free as such. */
		hks_free(&ctx, buf, alloc);
		buf = NULL;
	}
	*out = buf;
	*out_size = info.uncompressed_size;
	return HKS_OK;
}
