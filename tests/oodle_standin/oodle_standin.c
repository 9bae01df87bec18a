/*
 * A stand-in for the Oodle core library, built by the tests (issue 14): the
 * same two exported entry points as the real library (OodleLZ_Decompress,
 * OodleLZ_Compress), but it "compresses" by storing, so round trips are
 * checkable without Oodle. Stored form: "HKSO", the raw size (u32 LE), the
 * compression level it was asked for (u8), the raw bytes.
 *
 * HKS_STANDIN_MODE picks a misbehaviour, to test that hkspline checks every
 * answer: "fail" (both return 0), "short" (decompress reports one byte less),
 * "long" (reports more than it was given room for), "nocompress" (compress
 * fails, decompress works).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#define STANDIN_EXPORT __declspec(dllexport)
#else
#define STANDIN_EXPORT __attribute__((visibility("default")))
#endif

static const char *mode(void)
{
	const char *m = getenv("HKS_STANDIN_MODE");
	return m ? m : "";
}

STANDIN_EXPORT intptr_t OodleLZ_Decompress(const void *comp, intptr_t comp_size, void *raw, intptr_t raw_size,
                                           int fuzz_safe, int check_crc, int verbosity, void *dec_base,
                                           intptr_t dec_size, void *callback, void *callback_user,
                                           void *decoder_memory, intptr_t decoder_memory_size, int thread_phase);
STANDIN_EXPORT intptr_t OodleLZ_Compress(int compressor, const void *raw, intptr_t raw_size, void *comp, int level,
                                         const void *options, const void *dictionary_base, const void *lrm,
                                         void *scratch, intptr_t scratch_size);

intptr_t OodleLZ_Decompress(const void *comp, intptr_t comp_size, void *raw, intptr_t raw_size, int fuzz_safe,
                            int check_crc, int verbosity, void *dec_base, intptr_t dec_size, void *callback,
                            void *callback_user, void *decoder_memory, intptr_t decoder_memory_size,
                            int thread_phase)
{
	(void)check_crc, (void)verbosity, (void)dec_base, (void)dec_size, (void)callback, (void)callback_user;
	(void)decoder_memory, (void)decoder_memory_size;
	const uint8_t *c = (const uint8_t *)comp;
	if (!strcmp(mode(), "fail") || fuzz_safe != 1 || thread_phase != 3)
		return 0;
	if (comp_size < 9 || memcmp(c, "HKSO", 4) != 0)
		return 0;
	uint32_t n = (uint32_t)c[4] | (uint32_t)c[5] << 8 | (uint32_t)c[6] << 16 | (uint32_t)c[7] << 24;
	if ((intptr_t)n != raw_size || comp_size != 9 + raw_size)
		return 0;
	memcpy(raw, c + 9, (size_t)raw_size);
	if (!strcmp(mode(), "short"))
		return raw_size - 1;
	if (!strcmp(mode(), "long"))
		return raw_size + 4096;
	return raw_size;
}

intptr_t OodleLZ_Compress(int compressor, const void *raw, intptr_t raw_size, void *comp, int level,
                          const void *options, const void *dictionary_base, const void *lrm, void *scratch,
                          intptr_t scratch_size)
{
	(void)options, (void)dictionary_base, (void)lrm, (void)scratch, (void)scratch_size;
	if (compressor != 8 /* Kraken */ || !strcmp(mode(), "fail") || !strcmp(mode(), "nocompress"))
		return 0;
	if (raw_size < 0 || raw_size > 0x7fffffff)
		return 0;
	uint8_t *c = (uint8_t *)comp;
	uint32_t n = (uint32_t)raw_size;
	memcpy(c, "HKSO", 4);
	c[4] = (uint8_t)n;
	c[5] = (uint8_t)(n >> 8);
	c[6] = (uint8_t)(n >> 16);
	c[7] = (uint8_t)(n >> 24);
	c[8] = (uint8_t)level;
	memcpy(c + 9, raw, (size_t)raw_size);
	return 9 + raw_size;
}
