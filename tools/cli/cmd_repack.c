/*
 * hkspline repack IN -o OUT: every spline animation of IN is walked to the
 * stored structure (FORMAT.md §2) and packed back to bytes (ENCODER.md §10),
 * the new data, block offsets and header fields are put into the file
 * (hks_file_replace_spline) and the file is written (tagfile / packfile
 * writers). On Havok-made input the result is the input, byte for byte.
 *
 * The Elden Ring trailing guard follows the file's SDK (20180100: the rule of
 * FORMAT.md §2.8; others: never) unless --guard says otherwise.
 *
 * IN may also be a BND4 binder or a DCX (around a binder or a single Havok
 * file): every Havok member is repacked and replaced, the binder is written
 * (hks_bnd4_write) and compressed again with the input's DCX header
 * (hks_dcx_compress). Members stored compressed inside the binder are kept.
 */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: hkspline repack [--compendium FILE|DIR]... [--guard auto|on|off] [--strict] IN -o OUT\n"
	        "Decode every spline animation of the Havok file IN (or of every Havok member of the binder\n"
	        "or DCX IN) to its stored structure and write it back to OUT. --guard: the Elden Ring trailing guard (auto: on for SDK 20180100 only).\n"
	        "--strict: conformance violations (FORMAT.md §6) are errors. Exit status 1 when an\n"
	        "animation cannot be repacked, 2 on usage or I/O errors.\n");
}

typedef struct repack_counts {
	unsigned animations, repacked, identical, conformance;
} repack_counts;

static bool same_bits(float a, float b) { return !memcmp(&a, &b, sizeof(float)); }

/* Walk, pack and replace animation `i`; 0 on success. */
static int repack_animation(hks_file *file, uint32_t i, int guard_mode, int strict, const char *name,
                            repack_counts *n)
{
	hks_animation *a = &file->animations[i];
	hks_error err;
	hks_walk_options wo;
	memset(&wo, 0, sizeof(wo));
	wo.base.name = name;
	wo.animation_index = (int32_t)i;
	wo.strict = strict;
	hks_stored_animation *s = NULL;
	if (hks_stored_read(a, &wo, &s, &err) != HKS_OK) {
		cli_print_error(&err);
		return 1;
	}
	if (s->conformance_issues) {
		char buf[2048];
		hks_error_format(&s->conformance, buf, sizeof(buf));
		fprintf(stderr, "hkspline repack: warning: animation %u: %u conformance issue(s), the first: %s\n", i,
		        s->conformance_issues, buf);
		n->conformance++;
	}
	if (a->spline.num_transform_offsets || a->spline.num_float_offsets)
		fprintf(stderr, "hkspline repack: warning: animation %u: per-track offsets are not written back\n", i);
	hks_pack_options po;
	memset(&po, 0, sizeof(po));
	po.base.name = name;
	po.guard = guard_mode < 0 ? hks_guard_for_sdk(file->sdk) : guard_mode;
	po.keep_float_offsets = 1;
	hks_packed_spline *p = NULL;
	if (hks_stored_pack(s, &po, &p, &err) != HKS_OK) {
		cli_print_error(&err);
		hks_stored_free(s);
		return 1;
	}
	const hks_spline_header *old = &a->spline, *new_h = &p->header;
	/* The header floats are recomputed from the duration (ENCODER.md §5.1). A non-finite
	 * duration (NaN, inf) would turn valid stored fields into that value: keep a stored field
	 * when its recomputation is not finite and it was (issue 17 L8). */
	float *fields[3] = {&p->header.block_duration, &p->header.block_inverse_duration, &p->header.frame_duration};
	const float stored[3] = {old->block_duration, old->block_inverse_duration, old->frame_duration};
	for (int k = 0; k < 3; k++)
		if (!isfinite(*fields[k]) && isfinite(stored[k]))
			*fields[k] = stored[k];
	bool same_header = same_bits(old->block_duration, new_h->block_duration) &&
	                   same_bits(old->block_inverse_duration, new_h->block_inverse_duration) &&
	                   same_bits(old->frame_duration, new_h->frame_duration) &&
	                   old->num_frames == new_h->num_frames && old->num_blocks == new_h->num_blocks &&
	                   old->max_frames_per_block == new_h->max_frames_per_block &&
	                   old->mask_and_quantization_size == new_h->mask_and_quantization_size;
	bool same = same_header && old->data_size == new_h->data_size && !memcmp(old->data, new_h->data, old->data_size) &&
	            old->num_block_offsets == new_h->num_block_offsets &&
	            !memcmp(old->block_offsets, new_h->block_offsets, 4 * (size_t)old->num_block_offsets) &&
	            old->num_float_block_offsets == new_h->num_float_block_offsets &&
	            !memcmp(old->float_block_offsets, new_h->float_block_offsets, 4 * (size_t)old->num_float_block_offsets);
	n->identical += same ? 1 : 0;
	/* the stored structure points into the old data: pack first, replace last */
	hks_result r = hks_file_replace_spline(file, i, p->duration, new_h, &err);
	hks_packed_spline_free(p);
	hks_stored_free(s);
	if (r != HKS_OK) {
		cli_print_error(&err);
		return 1;
	}
	n->repacked++;
	return 0;
}

/* Repack every spline animation of a parsed file and serialize it. 0 on success. */
static int repack_file(hks_file *file, int guard_mode, int strict, const char *name, repack_counts *n,
                       uint8_t **bytes, size_t *size)
{
	unsigned failed = 0, splines = 0;
	for (uint32_t i = 0; i < file->num_animations; i++) {
		if (file->animations[i].kind != HKS_ANIMATION_SPLINE)
			continue;
		n->animations++;
		splines++;
		failed += (unsigned)repack_animation(file, i, guard_mode, strict, name, n);
	}
	if (failed) {
		fprintf(stderr, "hkspline repack: %s: %u of %u spline animations could not be repacked; nothing written\n",
		        name, failed, splines);
		return 1;
	}
	hks_error err;
	hks_write_options wo;
	memset(&wo, 0, sizeof(wo));
	wo.base.name = name;
	if (hks_file_write(file, &wo, bytes, size, &err) != HKS_OK) {
		cli_print_error(&err);
		return 1;
	}
	return 0;
}

/* Read IN as a binder (after DCX when it is one): 0 on success. */
static int open_binder(const char *in, uint8_t **raw, size_t *raw_size, uint8_t **plain, size_t *plain_size,
                       hks_dcx_info *info, bool *is_dcx, hks_bnd4 **bnd)
{
	hks_error err;
	*raw = cli_read_file(in, raw_size);
	if (!*raw)
		return 1;
	*is_dcx = hks_detect_container(*raw, *raw_size) == HKS_CONTAINER_DCX;
	if (*is_dcx) {
		if (hks_dcx_decompress(*raw, *raw_size, NULL, plain, plain_size, info, &err) != HKS_OK) {
			cli_print_error(&err);
			return 1;
		}
	}
	if (hks_detect_container(*is_dcx ? *plain : *raw, *is_dcx ? *plain_size : *raw_size) != HKS_CONTAINER_BND4)
		return 0; /* a DCX around a single file: no binder */
	if (hks_bnd4_read(*is_dcx ? *plain : *raw, *is_dcx ? *plain_size : *raw_size, NULL, bnd, &err) != HKS_OK) {
		cli_print_error(&err);
		return 1;
	}
	return 0;
}

int cmd_repack(int argc, char **argv)
{
	const char **compendiums = (const char **)calloc((size_t)argc + 1, sizeof(char *));
	size_t num_compendiums = 0;
	const char *in = NULL, *out = NULL;
	int guard_mode = -1, strict = 0, status = 2;
	hks_loader *loader = NULL;
	hks_loaded *ld = NULL;
	uint8_t *raw = NULL, *plain = NULL, *result = NULL;
	size_t raw_size = 0, plain_size = 0, result_size = 0;
	hks_dcx_info info;
	bool is_dcx = false;
	hks_bnd4 *bnd = NULL;
	memset(&info, 0, sizeof(info));
	if (!compendiums) {
		fprintf(stderr, "hkspline repack: out of memory\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			status = 0;
			goto done;
		} else if (!strcmp(a, "--compendium") && i + 1 < argc) {
			compendiums[num_compendiums++] = argv[++i];
		} else if (!strcmp(a, "-o") && i + 1 < argc) {
			out = argv[++i];
		} else if (!strcmp(a, "--guard") && i + 1 < argc) {
			const char *g = argv[++i];
			if (!strcmp(g, "auto"))
				guard_mode = -1;
			else if (!strcmp(g, "on"))
				guard_mode = 1;
			else if (!strcmp(g, "off"))
				guard_mode = 0;
			else {
				fprintf(stderr, "hkspline repack: --guard takes auto, on or off\n");
				goto done;
			}
		} else if (!strcmp(a, "--strict")) {
			strict = 1;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "hkspline repack: unknown or incomplete option '%s'\n", a);
			usage(stderr);
			goto done;
		} else if (!in) {
			in = a;
		} else {
			fprintf(stderr, "hkspline repack: one input file only ('%s' and '%s')\n", in, a);
			goto done;
		}
	}
	if (!in || !out) {
		usage(stderr);
		goto done;
	}

	hks_error err;
	loader = cli_loader_open(compendiums, num_compendiums, &in, 1, &status);
	if (!loader)
		goto done;
	status = 1; /* from here on, until the write, a failure is the input's */
	if (open_binder(in, &raw, &raw_size, &plain, &plain_size, &info, &is_dcx, &bnd))
		goto done;
	if (is_dcx) /* the zlib level that reproduces the input's stream, as bnd replace (docs/BINDERS.md) */
		info.deflate_level = (uint8_t)hks_dcx_match_level(plain, plain_size, raw, raw_size);
	if (!bnd && !is_dcx && cli_is_container_file(out)) {
		/* a bare .hkx over a binder would lose it (as encode -o and recompress -o refuse) */
		fprintf(stderr, "hkspline repack: -o %s is a binder / DCX and %s a single Havok file: write elsewhere\n", out,
		        in);
		status = 2;
		goto done;
	}
	size_t units = hks_loader_count(loader);
	if (!bnd && units != 1) {
		fprintf(stderr, "hkspline repack: %s holds %zu Havok files; repack takes one file or one binder\n", in, units);
		goto done;
	}

	repack_counts n = {0, 0, 0, 0};
	unsigned members = 0, members_same = 0, members_kept = 0;
	uint32_t next_entry = 0;
	status = 1;
	for (size_t u = 0; u < units; u++) {
		hks_result r = hks_loader_load(loader, u, &ld);
		if (r != HKS_OK || !ld) {
			fprintf(stderr, "hkspline repack: %s: %s\n", hks_loader_path(loader, u), hks_result_name(r));
			goto done;
		}
		if (ld->status != HKS_OK) {
			cli_print_error(&ld->error);
			goto done;
		}
		uint8_t *bytes = NULL;
		size_t size = 0;
		if (repack_file(ld->file, guard_mode, strict, ld->path, &n, &bytes, &size))
			goto done;
		bool same = size == ld->size && !memcmp(bytes, ld->bytes, size);
		if (!bnd) {
			result = bytes;
			result_size = size;
		} else {
			/* the loader lists members in binder order: match names from the last match on */
			uint32_t e = next_entry;
			while (e < bnd->num_entries && strcmp(bnd->entries[e].name ? bnd->entries[e].name : "", ld->member))
				e++;
			if (e == bnd->num_entries) {
				fprintf(stderr, "hkspline repack: %s: member not found in the binder\n", ld->path);
				hks_buffer_free(NULL, bytes, size);
				goto done;
			}
			next_entry = e + 1;
			members++;
			members_same += same ? 1 : 0;
			if (bnd->entries[e].flags & HKS_BND4_ENTRY_COMPRESSED) {
				fprintf(stderr, "hkspline repack: warning: %s is stored compressed in the binder; kept as is\n",
				        ld->path);
				members_kept++;
			} else if (hks_bnd4_replace(bnd, e, bytes, size, &err) != HKS_OK) {
				cli_print_error(&err);
				hks_buffer_free(NULL, bytes, size);
				goto done;
			}
			hks_buffer_free(NULL, bytes, size);
		}
		hks_loaded_free(ld);
		ld = NULL;
	}
	status = 2; /* writing: a failure is fatal (docs/CLI.md "Exit statuses") */
	if (bnd) {
		if (hks_bnd4_write(bnd, NULL, &result, &result_size, &err) != HKS_OK) {
			cli_print_error(&err);
			goto done;
		}
	}
	if (is_dcx) {
		uint8_t *packed = NULL;
		size_t packed_size = 0;
		bool same_plain = bnd ? (result_size == plain_size && !memcmp(result, plain, plain_size)) : false;
		if (hks_dcx_compress(result, result_size, &info, NULL, &packed, &packed_size, &err) != HKS_OK) {
			cli_print_error(&err);
			goto done;
		}
		if (bnd)
			printf("%s: binder contents %s the input's\n", in, same_plain ? "identical to" : "differ from");
		hks_buffer_free(NULL, result, result_size);
		result = packed;
		result_size = packed_size;
	}
	if (!cli_write_file(out, result, result_size))
		goto done;
	bool same_file = result_size == raw_size && !memcmp(result, raw, raw_size);
	if (bnd)
		printf("%s: %u Havok member(s), %u identical after repacking%s; ", in, members, members_same,
		       members_kept ? " (compressed members kept as is)" : "");
	printf("%s: %u spline animation(s) repacked, %u with data, offsets and header identical to the input%s; "
	       "wrote %s (%zu bytes, %s the input)\n",
	       in, n.repacked, n.identical, n.conformance ? " (some with conformance warnings)" : "", out, result_size,
	       same_file ? "identical to" : "differs from");
	status = 0;
done:
	if (result)
		hks_buffer_free(NULL, result, result_size);
	if (plain)
		hks_buffer_free(NULL, plain, plain_size);
	free(raw);
	hks_bnd4_free(bnd);
	hks_loaded_free(ld);
	hks_loader_free(loader);
	free(compendiums);
	return status;
}
