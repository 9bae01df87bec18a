/* Placeholder: the packfile reader (its owner replaces this file). */
#include "readers.h"

hks_result hks_packfile_parse(hks_ctx *ctx, const uint8_t *data, size_t size, hks_file *file)
{
	(void)data;
	(void)size;
	(void)file;
	return hks_fail(ctx, HKS_E_UNSUPPORTED, 0, "packfile reader not implemented yet");
}
