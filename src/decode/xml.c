/* Placeholder: the xml reader (its owner replaces this file). */
#include "readers.h"

hks_result hks_xml_parse(hks_ctx *ctx, const uint8_t *data, size_t size, hks_file *file)
{
	(void)data;
	(void)size;
	(void)file;
	return hks_fail(ctx, HKS_E_UNSUPPORTED, 0, "xml reader not implemented yet");
}
