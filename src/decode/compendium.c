/* Placeholder: the compendium set (its owner replaces this file). */
#include "internal.h"

#include <stdio.h>

hks_result hks_compendium_set_create(const hks_options *opts, hks_compendium_set **out, hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, opts, 0, err);
	if (out)
		*out = NULL;
	return hks_fail(&ctx, HKS_E_UNSUPPORTED, -1, "compendium set not implemented yet");
}
hks_result hks_compendium_set_add(hks_compendium_set *s, const void *d, size_t n, const char *name, int *c, hks_error *e)
{
	(void)s; (void)d; (void)n; (void)name; (void)c; (void)e;
	return HKS_E_UNSUPPORTED;
}
int hks_compendium_set_contains(const hks_compendium_set *s, const uint8_t id[8]) { (void)s; (void)id; return 0; }
size_t hks_compendium_set_count(const hks_compendium_set *s) { (void)s; return 0; }
void hks_compendium_set_free(hks_compendium_set *s) { (void)s; }
void hks_format_id(const uint8_t id[8], char buf[17])
{
	for (int i = 0; i < 8; i++)
		snprintf(buf + 2 * i, 3, "%02x", id[i]);
}
