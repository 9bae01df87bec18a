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

#endif
