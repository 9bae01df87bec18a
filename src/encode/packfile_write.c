/* Placeholder: the packfile writer (its owner replaces this file). */
#include "readers.h"

hks_result hks_packfile_write(hks_ctx *ctx, const hks_file *file, hks_bytebuf *out)
{
	(void)file;
	(void)out;
	return hks_fail(ctx, HKS_E_UNSUPPORTED, -1, "packfile writer not implemented yet");
}
