/* Placeholder: the path loader (its owner replaces this file). */
#include "internal.h"

hks_result hks_loader_create(const hks_load_options *opts, hks_loader **out, hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, opts ? &opts->base : NULL, 0, err);
	if (out)
		*out = NULL;
	return hks_fail(&ctx, HKS_E_UNSUPPORTED, -1, "loader not implemented yet");
}
hks_result hks_loader_add_path(hks_loader *l, const char *p, hks_error *e) { (void)l; (void)p; (void)e; return HKS_E_UNSUPPORTED; }
size_t hks_loader_count(const hks_loader *l) { (void)l; return 0; }
const char *hks_loader_path(const hks_loader *l, size_t i) { (void)l; (void)i; return NULL; }
hks_result hks_loader_load(hks_loader *l, size_t i, hks_loaded **o) { (void)l; (void)i; *o = NULL; return HKS_E_UNSUPPORTED; }
hks_result hks_loader_find_skeleton(hks_loader *l, size_t i, hks_loaded **o) { (void)l; (void)i; *o = NULL; return HKS_E_UNSUPPORTED; }
void hks_loaded_free(hks_loaded *l) { (void)l; }
void hks_loader_free(hks_loader *l) { (void)l; }
