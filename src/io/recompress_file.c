/*
 * `recompress IN -o OUT --record R` as one library call
 * (hks_recompress_file): every spline animation predicted and recorded
 * (hks_recompress), replaced by its prediction; the file and the record file
 * serialized.
 */
#include "internal.h"

hks_result hks_recompress_file(hks_file *file, const hks_recompress_options *opts, uint8_t **out, size_t *out_size,
                               uint8_t **record, size_t *record_size, hks_error *err)
{
	hks_error local;
	if (!err)
		err = &local;
	hks_recompress_options zero;
	memset(&zero, 0, sizeof(zero));
	const hks_recompress_options *o = opts ? opts : &zero;
	hks_ctx ctx;
	hks_ctx_init(&ctx, &o->base, 0, err);
	if (!file)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "no file");
	if (out)
		*out = NULL, *out_size = 0;
	if (record)
		*record = NULL, *record_size = 0;
	hks_record_file_entry *entries =
	    (hks_record_file_entry *)hks_calloc(&ctx, (size_t)file->num_animations + 1, sizeof(*entries));
	if (!entries)
		return err->code ? err->code : HKS_E_NOMEM;
	uint32_t n = 0;
	hks_result r = HKS_OK;
	for (uint32_t i = 0; i < file->num_animations && r == HKS_OK; i++) {
		if (file->animations[i].kind != HKS_ANIMATION_SPLINE)
			continue;
		hks_recompress_options ro = *o;
		ro.sdk = o->sdk ? o->sdk : file->sdk;
		ro.animation_index = (int32_t)i;
		uint8_t *rec = NULL;
		size_t rec_size = 0;
		hks_packed_spline *pred = NULL;
		r = hks_recompress(&file->animations[i], &ro, &rec, &rec_size, &pred, NULL, err);
		if (r == HKS_OK && !pred)
			r = hks_fail(&ctx, HKS_E_INTERNAL, -1, "animation %u: the predictor could not encode it", i);
		if (r == HKS_OK)
			r = hks_file_replace_spline(file, i, pred->duration, &pred->header, err);
		hks_packed_spline_free(pred);
		if (r == HKS_OK) {
			entries[n].animation = i;
			entries[n].record = rec;
			entries[n].size = rec_size;
			n++;
		} else
			hks_buffer_free(&o->base, rec, rec_size);
	}
	if (r == HKS_OK && record)
		r = hks_record_file_write(entries, n, &o->base, record, record_size, err);
	if (r == HKS_OK && out) {
		hks_write_options wo;
		memset(&wo, 0, sizeof(wo));
		wo.base = o->base;
		r = hks_file_write(file, &wo, out, out_size, err);
	}
	if (r != HKS_OK && record && *record) {
		hks_buffer_free(&o->base, *record, *record_size);
		*record = NULL;
		*record_size = 0;
	}
	for (uint32_t k = 0; k < n; k++)
		hks_buffer_free(&o->base, (void *)entries[k].record, entries[k].size);
	hks_free(&ctx, entries, ((size_t)file->num_animations + 1) * sizeof(*entries));
	return r;
}
