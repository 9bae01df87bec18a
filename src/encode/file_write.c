/*
 * File-level write dispatch: an hks_file back to the bytes of its container
 * (tagfile / compendium or packfile). The container writers are
 * src/encode/tagfile_write.c and src/encode/packfile_write.c; reading
 * (src/decode/file.c) never calls them.
 */
#include "file_write.h"
#include "readers.h"

hks_result hks_file_write(const hks_file *file, const hks_write_options *opts, uint8_t **out, size_t *out_size,
                          hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, opts ? &opts->base : NULL, file && file->internal ? file->internal->source_size : 0, err);
	if (!file || !file->internal || !out || !out_size)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_file_write: NULL argument");
	*out = NULL;
	*out_size = 0;
	hks_bytebuf buf;
	hks_bytebuf_init(&buf, &ctx);
	hks_result r;
	switch (file->container) {
	case HKS_CONTAINER_TAGFILE:
	case HKS_CONTAINER_COMPENDIUM:
		r = hks_tagfile_write(&ctx, file, &buf);
		break;
	case HKS_CONTAINER_PACKFILE:
		r = hks_packfile_write(&ctx, file, &buf);
		break;
	default:
		r = hks_fail(&ctx, HKS_E_UNSUPPORTED, -1, "writing %s files is not supported",
		             hks_container_name(file->container));
	}
	if (r != HKS_OK) {
		hks_bytebuf_free(&buf);
		return r;
	}
	return hks_bytebuf_finish(&buf, out, out_size);
}
