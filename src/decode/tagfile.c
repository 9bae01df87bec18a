/* Placeholder: the tagfile reader (its owner replaces this file). */
#include "readers.h"

hks_result hks_tagfile_parse(hks_ctx *ctx, const uint8_t *data, size_t size, const hks_compendium_set *compendiums, hks_file *file)
{
	(void)data;
	(void)size;
	(void)file;
	(void)compendiums;
	return hks_fail(ctx, HKS_E_UNSUPPORTED, 0, "tagfile reader not implemented yet");
}
