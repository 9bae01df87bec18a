/* Internal side of the DCX codecs (src/io/oodle.c, hkspline.h "DCX codecs"). */
#ifndef HKS_OODLE_H
#define HKS_OODLE_H

#include "hkspline.h"

/* The codec for a DCX read or written with `opts`: opts->dcx_codec, else the
 * process default, else NULL. */
const hks_dcx_codec *hks_dcx_codec_for(const hks_options *opts);

/* Where the games keep the Oodle library: the advice appended to KRAK errors. */
#define HKS_OODLE_ADVICE                                                                                     \
	"pass the game's own Oodle library with --oodle PATH (or HKSPLINE_OODLE): oo2core_6_win64.dll, next to " \
	"eldenring.exe or sekiro.exe. Unpack it first with a binder tool otherwise, then run hkspline on the "  \
	"unpacked folder or .anibnd"

/* The parameter lists of OodleLZ_Decompress and OodleLZ_Compress (Oodle 2.x,
 * written from Oodle's public documentation of the argument order; the
 * pointer-sized integers are OO_SINTa, the enums int). On x86-64 Windows
 * there is a single calling convention, so no __stdcall is needed. */
typedef intptr_t (*hks_oodle_decompress_fn)(const void *comp, intptr_t comp_size, void *raw, intptr_t raw_size,
                                            int fuzz_safe, int check_crc, int verbosity, void *dec_base,
                                            intptr_t dec_size, void *callback, void *callback_user,
                                            void *decoder_memory, intptr_t decoder_memory_size, int thread_phase);
typedef intptr_t (*hks_oodle_compress_fn)(int compressor, const void *raw, intptr_t raw_size, void *comp, int level,
                                          const void *options, const void *dictionary_base, const void *lrm,
                                          void *scratch, intptr_t scratch_size);

/* Tests and fuzzing (tests/fuzz/fuzz_oodle.c): an hks_oodle whose entry points
 * are these functions instead of a loaded library's, behind the same calls
 * (hks_oodle_codec); `label` stands for the library's path in messages;
 * `compress` may be NULL. Freed by hks_oodle_close. Internal: hkspline.h does
 * not declare it, so neither libhkspline.so nor hkspline.dll exports it. */
hks_result hks_oodle_from_entry_points(const char *label, hks_oodle_decompress_fn decompress,
                                       hks_oodle_compress_fn compress, hks_oodle **out, hks_error *err);

#endif
