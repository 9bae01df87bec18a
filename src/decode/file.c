/* hks_file_read: sniff the container and hand the bytes to its reader. */
#include "readers.h"

static const uint8_t packfile_magic[8] = {0x57, 0xE0, 0xE0, 0x57, 0x10, 0xC0, 0xC0, 0x10};

const char *hks_container_name(hks_container c)
{
	switch (c) {
	case HKS_CONTAINER_TAGFILE: return "tagfile";
	case HKS_CONTAINER_COMPENDIUM: return "compendium";
	case HKS_CONTAINER_PACKFILE: return "packfile";
	case HKS_CONTAINER_XML: return "xml";
	case HKS_CONTAINER_BND4: return "bnd4";
	case HKS_CONTAINER_DCX: return "dcx";
	default: return "unknown";
	}
}

static bool is_xml(const uint8_t *p, size_t n)
{
	size_t i = 0;
	if (n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF)
		i = 3; /* UTF-8 byte order mark */
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n'))
		i++;
	return i < n && p[i] == '<';
}

hks_container hks_detect_container(const void *data, size_t size)
{
	const uint8_t *p = (const uint8_t *)data;
	if (!p)
		return HKS_CONTAINER_UNKNOWN;
	if (size >= 8 && !memcmp(p + 4, "TAG0", 4))
		return HKS_CONTAINER_TAGFILE;
	if (size >= 8 && !memcmp(p + 4, "TCM0", 4))
		return HKS_CONTAINER_COMPENDIUM;
	if (size >= 8 && !memcmp(p, packfile_magic, 8))
		return HKS_CONTAINER_PACKFILE;
	if (size >= 4 && !memcmp(p, "BND4", 4))
		return HKS_CONTAINER_BND4;
	if (size >= 4 && !memcmp(p, "DCX\0", 4))
		return HKS_CONTAINER_DCX;
	if (is_xml(p, size))
		return HKS_CONTAINER_XML;
	return HKS_CONTAINER_UNKNOWN;
}

hks_result hks_file_read(const void *data, size_t size, const hks_read_options *opts, hks_file **out,
                         hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, opts ? &opts->base : NULL, size, err);
	if (!out || (!data && size))
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_file_read: NULL argument");
	*out = NULL;
	hks_container kind = hks_detect_container(data, size);
	switch (kind) {
	case HKS_CONTAINER_TAGFILE:
	case HKS_CONTAINER_COMPENDIUM:
	case HKS_CONTAINER_PACKFILE:
	case HKS_CONTAINER_XML:
		break;
	case HKS_CONTAINER_BND4:
		return hks_fail(&ctx, HKS_E_UNSUPPORTED, 0, "this is a BND4 binder: read it with hks_bnd4_read");
	case HKS_CONTAINER_DCX:
		return hks_fail(&ctx, HKS_E_UNSUPPORTED, 0, "this is a DCX archive: decompress it with hks_dcx_decompress");
	default:
		return hks_fail(&ctx, HKS_E_UNSUPPORTED, 0, "not a Havok file (unknown magic)");
	}

	hks_arena *arena = hks_arena_create(&ctx);
	if (!arena)
		return err ? err->code : HKS_E_NOMEM;
	hks_file *file = (hks_file *)hks_arena_alloc(arena, sizeof(hks_file));
	hks_file_internal *in = file ? (hks_file_internal *)hks_arena_alloc(arena, sizeof(hks_file_internal)) : NULL;
	uint8_t *copy = in ? (uint8_t *)hks_arena_dup(arena, data, size) : NULL;
	if (!copy) {
		hks_result r = err && err->code ? err->code : HKS_E_NOMEM;
		hks_arena_free(arena);
		return r;
	}
	in->arena = arena;
	in->source = copy;
	in->source_size = size;
	file->internal = in;
	file->container = kind;

	hks_result r;
	if (kind == HKS_CONTAINER_PACKFILE)
		r = hks_packfile_parse(&ctx, copy, size, file);
	else if (kind == HKS_CONTAINER_XML)
		r = hks_xml_parse(&ctx, copy, size, file);
	else
		r = hks_tagfile_parse(&ctx, copy, size, opts ? opts->compendiums : NULL, file);
	if (r != HKS_OK) {
		hks_arena_free(arena);
		return r;
	}
	hks_arena_set_ctx(arena, NULL);
	*out = file;
	return HKS_OK;
}

void hks_file_free(hks_file *file)
{
	if (file && file->internal)
		hks_arena_free(file->internal->arena);
}

hks_result hks_file_replace_spline(hks_file *file, uint32_t animation, float duration,
                                   const hks_spline_header *spline, hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, NULL, 0, err);
	if (!file || !file->internal || !spline)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_file_replace_spline: NULL argument");
	if (animation >= file->num_animations || file->animations[animation].kind != HKS_ANIMATION_SPLINE)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "animation %u is not a spline animation", animation);
	hks_arena *arena = file->internal->arena;
	hks_arena_set_ctx(arena, &ctx);
	hks_spline_header h = *spline;
	/* copy first: the source may alias the arrays being replaced */
	const void *src[5] = {spline->block_offsets, spline->float_block_offsets, spline->transform_offsets,
	                      spline->float_offsets, spline->data};
	size_t bytes[5] = {(size_t)spline->num_block_offsets * 4, (size_t)spline->num_float_block_offsets * 4,
	                   (size_t)spline->num_transform_offsets * 4, (size_t)spline->num_float_offsets * 4,
	                   spline->data_size};
	void *dst[5] = {0};
	for (int i = 0; i < 5; i++) {
		if (bytes[i] && !src[i]) {
			hks_arena_set_ctx(arena, NULL);
			return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_file_replace_spline: NULL array with a size");
		}
		dst[i] = hks_arena_dup(arena, src[i], bytes[i]);
		if (!dst[i]) {
			hks_arena_set_ctx(arena, NULL);
			return err && err->code ? err->code : HKS_E_NOMEM;
		}
	}
	hks_arena_set_ctx(arena, NULL);
	h.block_offsets = (const uint32_t *)dst[0];
	h.float_block_offsets = (const uint32_t *)dst[1];
	h.transform_offsets = (const uint32_t *)dst[2];
	h.float_offsets = (const uint32_t *)dst[3];
	h.data = (const uint8_t *)dst[4];
	hks_animation *a = &file->animations[animation];
	a->spline = h;
	a->duration = duration;
	a->data_offset = -1;
	return HKS_OK;
}
