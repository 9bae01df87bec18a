/*
 * Fuzz target: the Oodle plug-in boundary (src/io/oodle.c, docs/CONTAINERS.md
 * "Oodle"). The "library" is a fake OodleLZ_Decompress / OodleLZ_Compress
 * installed with hks_oodle_from_entry_points (the internal hook of
 * src/io/oodle.h), so the calls go through exactly the code that calls a
 * run-time-loaded library (hks_oodle_codec -> the DCX reader and writer).
 * The input drives what the fake answers: the size it claims (exact, one
 * more or less, zero, negative, INTPTR_MAX / MIN, any 32-bit value), how many
 * bytes it really writes and which ones. Input layout:
 *
 *   [0]      mode: bit 0: the DCX is the rest of the input as it is (else a
 *            valid KRAK header is built around it); bit 1: also compress;
 *            bits 2-3: the DCX tag (KRAK, KRAK, DFLT, ZSTD) of a built header
 *   [1]      decompress answer kind, [2..5] its value (le32)
 *   [6..7]   bytes the fake writes (le16; 0xFFFF: all it was given)
 *   [8]      compress answer kind, [9..12] its value
 *   [13..16] declared uncompressed size of a built header (le32, mod 8193)
 *   [17..]   the DCX (mode bit 0) or its payload
 *
 * Contracts: no out-of-bounds access whatever the fake answers (ASan: the
 * fake reads every compressed byte it is given and may write every byte of
 * the buffer it is told about); the fake is called with fuzz-safe decoding
 * and exactly the declared size; the read succeeds exactly when the fake
 * claims the declared size, the output is then the bytes the fake wrote
 * followed by zeros (never heap garbage); every failure is an error code
 * with a message and a location (object or member). Writing: success only
 * when the claimed compressed size fits the room given, the DCX written then
 * holds the claimed size and the fake's bytes, and reads back through the
 * fake.
 */
#include "fuzz.h"
#include "fuzz_common.h"
#include "../../src/io/oodle.h"

#include <stdint.h>

typedef struct fake_state {
	/* the script */
	uint8_t d_kind, c_kind;
	int32_t d_value, c_value;
	uint16_t d_write;
	const uint8_t *fill;
	size_t fill_size;
	/* what the library was given and did */
	const uint8_t *input;
	size_t input_size;
	int64_t expect_raw;   /* -1: any */
	int calls;
	size_t wrote;
	uint8_t *raw;         /* the buffer it was given */
	size_t raw_size;
	uint32_t sum;         /* of the compressed bytes read (keeps the reads) */
} fake_state;

static fake_state g;

static intptr_t answer(uint8_t kind, int32_t value, intptr_t exact, intptr_t wrote)
{
	switch (kind % 12) {
	case 0:
	case 1:
	case 2: return exact;
	case 3: return exact + 1;
	case 4: return exact - 1;
	case 5: return 0;
	case 6: return -1;
	case 7: return INTPTR_MAX;
	case 8: return INTPTR_MIN;
	case 9: return wrote;
	case 10: return (intptr_t)value;
	default: return exact + (intptr_t)value;
	}
}

static void fill_bytes(uint8_t *dst, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = g.fill_size ? (uint8_t)(g.fill[i % g.fill_size] ^ (uint8_t)(i / g.fill_size)) : (uint8_t)(i * 131u + 7u);
}

static intptr_t fake_decompress(const void *comp, intptr_t comp_size, void *raw, intptr_t raw_size, int fuzz_safe,
                                int check_crc, int verbosity, void *dec_base, intptr_t dec_size, void *callback,
                                void *callback_user, void *decoder_memory, intptr_t decoder_memory_size,
                                int thread_phase)
{
	(void)check_crc, (void)verbosity, (void)dec_base, (void)dec_size, (void)callback, (void)callback_user,
	    (void)decoder_memory, (void)decoder_memory_size, (void)thread_phase;
	g.calls++;
	FUZZ_CHECK(fuzz_safe == 1);
	FUZZ_CHECK(comp_size >= 0 && raw_size >= 0 && raw != NULL);
	FUZZ_CHECK(g.expect_raw < 0 || raw_size == g.expect_raw);
	const uint8_t *c = (const uint8_t *)comp;
	if (g.input) /* the compressed bytes lie inside the DCX given to the reader */
		FUZZ_CHECK(comp_size == 0 || (c >= g.input && (size_t)(c - g.input) + (size_t)comp_size <= g.input_size));
	for (intptr_t i = 0; i < comp_size; i++)
		g.sum = g.sum * 31u + c[i];
	/* untouched bytes are zero (the promise of oodle_decompress) */
	uint8_t *r = (uint8_t *)raw;
	for (intptr_t i = 0; i < raw_size; i++)
		FUZZ_CHECK(r[i] == 0);
	size_t w = g.d_write == 0xFFFF ? (size_t)raw_size : (size_t)g.d_write;
	if (w > (size_t)raw_size)
		w = (size_t)raw_size;
	fill_bytes(r, w);
	g.wrote = w;
	g.raw = r;
	g.raw_size = (size_t)raw_size;
	return answer(g.d_kind, g.d_value, raw_size, (intptr_t)w);
}

/* Kraken's worst case the fake may use: the input plus a block header per
 * 256 KiB and a little more (the writer gives twice the input + 64 KiB). */
static size_t compress_room(size_t raw)
{
	return raw + 512 + raw / 8;
}

static intptr_t fake_compress(int compressor, const void *raw, intptr_t raw_size, void *comp, int level,
                              const void *options, const void *dictionary_base, const void *lrm, void *scratch,
                              intptr_t scratch_size)
{
	(void)options, (void)dictionary_base, (void)lrm, (void)scratch, (void)scratch_size;
	g.calls++;
	FUZZ_CHECK(compressor == 8); /* Kraken */
	FUZZ_CHECK(raw_size >= 0 && (raw_size == 0 || raw != NULL) && comp != NULL);
	(void)level;
	const uint8_t *s = (const uint8_t *)raw;
	for (intptr_t i = 0; i < raw_size; i++)
		g.sum = g.sum * 31u + s[i];
	size_t w = g.d_write == 0xFFFF ? compress_room((size_t)raw_size) : (size_t)g.d_write;
	if (w > compress_room((size_t)raw_size))
		w = compress_room((size_t)raw_size);
	fill_bytes((uint8_t *)comp, w);
	g.wrote = w;
	g.raw = (uint8_t *)comp;
	return answer(g.c_kind, g.c_value, (intptr_t)w, (intptr_t)w);
}

static void check_located(const hks_error *err, hks_result r)
{
	FUZZ_CHECK(r != HKS_OK && err->code == r);
	FUZZ_CHECK(err->message[0] != '\0');
	FUZZ_CHECK(err->object[0] != '\0' || err->member[0] != '\0');
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

/* A valid DCX header (CONTAINERS.md §7.1) for `tag` around `payload`. */
static uint8_t *build_dcx(const char *tag, uint32_t uncompressed, const uint8_t *payload, size_t n, size_t *size)
{
	uint8_t *d = (uint8_t *)calloc(1, HKS_DCX_HEADER_SIZE + n + 1);
	if (!d)
		return NULL;
	memcpy(d, "DCX\0", 4);
	be32(d + 0x04, 0x11000);
	be32(d + 0x08, 0x18);
	be32(d + 0x0C, 0x24);
	be32(d + 0x10, 0x44);
	be32(d + 0x14, 0x4C);
	memcpy(d + 0x18, "DCS\0", 4);
	be32(d + 0x1C, uncompressed);
	be32(d + 0x20, (uint32_t)n);
	memcpy(d + 0x24, "DCP\0", 4);
	memcpy(d + 0x28, tag, 4);
	be32(d + 0x2C, 0x20);
	d[0x30] = 6;
	be32(d + 0x40, 0x00010100u);
	memcpy(d + 0x44, "DCA\0", 4);
	be32(d + 0x48, 8);
	if (n)
		memcpy(d + HKS_DCX_HEADER_SIZE, payload, n);
	*size = HKS_DCX_HEADER_SIZE + n;
	return d;
}

/* Read `dcx` through the codec and check the contracts. */
static void read_through(const hks_dcx_codec *codec, const uint8_t *dcx, size_t size)
{
	hks_options o;
	fuzz_options(&o);
	o.dcx_codec = codec;
	o.name = "fuzz.dcx";
	hks_dcx_info info;
	memset(&info, 0, sizeof(info));
	int have_info = hks_dcx_read_info(dcx, size, &info, &(hks_error){0}) == HKS_OK;
	int krak = have_info && !strcmp(info.compression, "KRAK");
	g.input = dcx;
	g.input_size = size;
	g.expect_raw = have_info ? (int64_t)info.uncompressed_size : -1;
	g.calls = 0;
	g.wrote = 0;
	uint8_t *out = NULL;
	size_t out_size = 0;
	hks_error err;
	hks_result r = hks_dcx_decompress(dcx, size, &o, &out, &out_size, NULL, &err);
	FUZZ_CHECK(g.calls <= 1);
	FUZZ_CHECK(g.calls == 0 || krak);
	if (r != HKS_OK) {
		FUZZ_CHECK(out == NULL);
		check_located(&err, r);
		return;
	}
	if (krak) {
		/* succeeded: the fake was asked and claimed exactly the declared size */
		FUZZ_CHECK(g.calls == 1);
		intptr_t claimed = answer(g.d_kind, g.d_value, (intptr_t)info.uncompressed_size, (intptr_t)g.wrote);
		FUZZ_CHECK(claimed == (intptr_t)info.uncompressed_size);
		FUZZ_CHECK(out_size == info.uncompressed_size);
		uint8_t *want = (uint8_t *)calloc(1, out_size + 1);
		FUZZ_CHECK(want != NULL);
		fill_bytes(want, g.wrote);
		FUZZ_CHECK(out_size == 0 || memcmp(out, want, out_size) == 0);
		free(want);
	}
	hks_buffer_free(&o, out, out_size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 17)
		return 0;
	memset(&g, 0, sizeof(g));
	uint8_t mode = data[0];
	g.d_kind = data[1];
	g.d_value = (int32_t)le32(data + 2);
	g.d_write = (uint16_t)(data[6] | data[7] << 8);
	g.c_kind = data[8];
	g.c_value = (int32_t)le32(data + 9);
	uint32_t declared = le32(data + 13) % 8193u; /* small: many executions */
	const uint8_t *rest = data + 17;
	size_t n = size - 17;
	g.fill = rest;
	g.fill_size = n;

	hks_oodle *lib = NULL;
	hks_error err;
	FUZZ_CHECK(hks_oodle_from_entry_points("fuzz-oodle", fake_decompress, (mode & 2) ? fake_compress : NULL, &lib,
	                                       &err) == HKS_OK);
	hks_dcx_codec codec;
	hks_oodle_codec(lib, &codec);
	FUZZ_CHECK(codec.decompress != NULL && ((mode & 2) != 0) == (codec.compress != NULL));

	if (mode & 1) {
		read_through(&codec, rest, n);
	} else {
		static const char *const tags[4] = {"KRAK", "KRAK", "DFLT", "ZSTD"};
		size_t dn = 0;
		uint8_t *dcx = build_dcx(tags[(mode >> 2) & 3], declared, rest, n, &dn);
		if (dcx) {
			read_through(&codec, dcx, dn);
			free(dcx);
		}
	}

	if (mode & 2) {
		/* the writer: KRAK through the fake compressor, then read back through the fake */
		size_t hn = 0;
		uint8_t *like_dcx = build_dcx("KRAK", 0, NULL, 0, &hn);
		hks_dcx_info like;
		FUZZ_CHECK(like_dcx && hks_dcx_read_info(like_dcx, hn, &like, &err) == HKS_OK);
		free(like_dcx);
		hks_options o;
		fuzz_options(&o);
		o.dcx_codec = &codec;
		o.name = "fuzz-out.dcx";
		g.calls = 0;
		g.wrote = 0;
		g.input = NULL;
		uint8_t *out = NULL;
		size_t out_size = 0;
		hks_result r = hks_dcx_compress(rest, n, &like, &o, &out, &out_size, &err);
		size_t room = 2 * n + 65536; /* src/encode/dcx_write.c */
		intptr_t claimed = answer(g.c_kind, g.c_value, (intptr_t)g.wrote, (intptr_t)g.wrote);
		if (r != HKS_OK) {
			FUZZ_CHECK(out == NULL);
			check_located(&err, r);
			/* only an answer beyond the room is an error; a failure falls back to DFLT */
			FUZZ_CHECK(claimed > 0 && (uint64_t)claimed > room);
		} else {
			hks_dcx_info info;
			FUZZ_CHECK(hks_dcx_read_info(out, out_size, &info, &err) == HKS_OK);
			FUZZ_CHECK(info.uncompressed_size == n);
			if (claimed > 0) {
				FUZZ_CHECK(!strcmp(info.compression, "KRAK") && info.compressed_size == (uint64_t)claimed);
				/* the fake's bytes, then zeros where it claimed more than it wrote */
				size_t k = (size_t)claimed, w = k < g.wrote ? k : g.wrote;
				uint8_t *want = (uint8_t *)calloc(1, k + 1);
				FUZZ_CHECK(want != NULL && out_size == HKS_DCX_HEADER_SIZE + k);
				fill_bytes(want, w);
				FUZZ_CHECK(memcmp(out + HKS_DCX_HEADER_SIZE, want, k) == 0);
				free(want);
				/* and read back through the fake (it answers by the script again) */
				g.d_write = 0xFFFF;
				read_through(&codec, out, out_size);
			} else {
				/* the compressor failed: DFLT, which reads back to the input */
				FUZZ_CHECK(!strcmp(info.compression, "DFLT"));
				uint8_t *back = NULL;
				size_t bn = 0;
				FUZZ_CHECK(hks_dcx_decompress(out, out_size, &o, &back, &bn, NULL, &err) == HKS_OK);
				FUZZ_CHECK(bn == n && (n == 0 || memcmp(back, rest, n) == 0));
				hks_buffer_free(&o, back, bn);
			}
			hks_buffer_free(&o, out, out_size);
		}
	}
	hks_oodle_close(lib);
	return 0;
}
