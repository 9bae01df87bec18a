/*
 * One unit of a path (hks_loader_open_unit: a file, or BINDER:MEMBER) and the
 * skeleton file of a path (hks_skeleton_load), for `--skeleton S` and the
 * inputs of `decode`, `error`, `encode` and the Python binding.
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include "platform.h"
#include "io_internal.h"

#include <stdlib.h>
#include <strings.h>

/* Whether PATH is a BND4 binder or a DCX by its first bytes (hks_detect_container). */
static bool is_archive_file(const char *path)
{
	uint8_t head[8] = {0};
	FILE *f = hks_platform_fopen(path, "rb");
	size_t n = f ? fread(head, 1, sizeof(head), f) : 0;
	if (f)
		fclose(f);
	hks_container c = hks_detect_container(head, n);
	return c == HKS_CONTAINER_BND4 || c == HKS_CONTAINER_DCX;
}

hks_result hks_loader_open_unit(hks_loader *loader, const char *in, size_t *unit, hks_error *err)
{
	hks_error local;
	if (!err)
		err = &local;
	hks_ctx ctx;
	hks_ctx_init(&ctx, NULL, 0, err);
	if (!loader || !in || !unit)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "no loader, path or output pointer");
	const char *member = NULL;
	char *prefix = NULL;
	hks_result r = hks_loader_add_path(loader, in, err);
	if (r != HKS_OK) {
		/* BINDER:MEMBER. The binder is the shortest prefix before a ':' that is a binder or DCX file
		 * (else the shortest that is a file): a member's full name holds a ':' of its own
		 * ("N:\\...\\a000_000100.hkx"), and a Windows path one before ("C:\\mods\\c1060.anibnd.dcx").
		 * Without such a file, the last ':' (its error). */
		const char *colon = NULL, *file_colon = NULL;
		for (const char *c = in[0] ? strchr(in + 1, ':') : NULL; c && !colon; c = strchr(c + 1, ':')) {
			char *p = hks_platform_strndup(in, (size_t)(c - in));
			if (!p)
				return hks_fail_nomem(&ctx, strlen(in));
			if (hks_platform_path_kind(p) == HKS_PATH_FILE) {
				if (is_archive_file(p))
					colon = c;
				else if (!file_colon)
					file_colon = c;
			}
			free(p);
		}
		if (!colon)
			colon = file_colon ? file_colon : strrchr(in, ':');
		if (!colon || colon == in)
			return r;
		prefix = hks_platform_strndup(in, (size_t)(colon - in));
		if (!prefix)
			return hks_fail_nomem(&ctx, strlen(in));
		member = colon + 1;
		hks_error_clear(err);
		r = hks_loader_add_path(loader, prefix, err);
		if (r != HKS_OK) {
			free(prefix);
			return r;
		}
	}
	size_t n = hks_loader_count(loader), found = n;
	if (member) {
		size_t unit = n;
		r = hks_loader_member_unit(loader, prefix, member, &unit, err);
		if (r == HKS_OK)
			found = unit;
		/* a binder that cannot be opened (KRAK without Oodle, damaged, unreadable) is one failed
		 * unit under its own path: its error says why, where "has no member" misled (session 18
		 * new-user trial) */
		for (size_t i = 0; i < n && found == n; i++) {
			const char *p = hks_loader_path(loader, i);
			if (!p || strcmp(p, prefix) != 0)
				continue;
			hks_loaded *ld = NULL;
			hks_result lr = hks_loader_load(loader, i, &ld);
			if (lr != HKS_OK) {
				hks_loaded_free(ld);
				continue; /* keep "has no member" (err holds it) */
			}
			if (ld && ld->status != HKS_OK) {
				*err = ld->error;
				r = ld->status;
			}
			hks_loaded_free(ld);
			break;
		}
	} else if (n == 1)
		found = 0;
	else
		r = n ? hks_fail(&ctx, HKS_E_ARGUMENT, -1, "%s holds %zu Havok files; %s", in, n,
		                 hks_platform_path_kind(in) == HKS_PATH_DIR ? "give one of its files"
		                                                           : "name one as BINDER:MEMBER or give a file")
		      : hks_fail(&ctx, HKS_E_NOT_FOUND, -1, "%s holds no Havok file", in);
	free(prefix);
	if (found == n)
		return r;
	*unit = found;
	return HKS_OK;
}

static bool contains_ci(const char *s, const char *needle)
{
	size_t n = strlen(needle);
	for (; s && *s; s++)
		if (!strncasecmp(s, needle, n))
			return true;
	return false;
}

hks_result hks_skeleton_load(const hks_load_options *lo, const char *path, hks_loader **loader, hks_loaded **out,
                             hks_error *err)
{
	hks_error local;
	if (!err)
		err = &local;
	hks_ctx ctx;
	hks_ctx_init(&ctx, lo ? &lo->base : NULL, 0, err);
	if (!loader || !out || !path)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "no path or no output pointer");
	*out = NULL;
	*loader = NULL;
	hks_result r = hks_loader_create(lo, loader, err);
	if (r != HKS_OK)
		return r;
	hks_error scratch;
	if (hks_loader_add_path(*loader, path, &scratch) != HKS_OK || hks_loader_count(*loader) == 1) {
		/* one unit: the file itself, or BINDER:MEMBER */
		hks_loader_free(*loader);
		*loader = NULL;
		if ((r = hks_loader_create(lo, loader, err)) != HKS_OK)
			return r;
		size_t unit = 0;
		if ((r = hks_loader_open_unit(*loader, path, &unit, err)) != HKS_OK ||
		    (r = hks_loader_load(*loader, unit, out)) != HKS_OK || !*out) {
			if (r == HKS_OK)
				r = hks_fail_nomem(&ctx, sizeof(hks_loaded));
			goto fail;
		}
		if ((*out)->status != HKS_OK) {
			*err = (*out)->error;
			r = (*out)->status;
			goto fail;
		}
		if ((*out)->file->num_skeletons == 0) {
			r = hks_fail(&ctx, HKS_E_NOT_FOUND, -1, "%s holds no hkaSkeleton", path);
			goto fail;
		}
		return HKS_OK;
	}
	/* a binder or folder: units named like "skel" first, then the others */
	size_t n = hks_loader_count(*loader);
	hks_error skel_err; /* why the first unit named like "skel" could not be read (a compendium not found) */
	hks_result skel_r = HKS_OK;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			if ((pass == 0) != contains_ci(hks_loader_path(*loader, i), "skel"))
				continue;
			hks_loaded *ld = NULL;
			if (hks_loader_load(*loader, i, &ld) == HKS_OK && ld && ld->status == HKS_OK && ld->file->num_skeletons) {
				*out = ld;
				return HKS_OK;
			}
			if (pass == 0 && skel_r == HKS_OK && ld && ld->status != HKS_OK) {
				skel_err = ld->error;
				skel_r = ld->status;
			}
			hks_loaded_free(ld);
		}
	if (skel_r != HKS_OK) {
		/* "no hkaSkeleton" hid the cause when the skeleton file is there but unreadable (session 24 new-user
		 * trial): report that file's own error, which names it, its offset and the compendium it needs */
		*err = skel_err;
		size_t cap = sizeof(err->message);
		int k = snprintf(err->message, cap, "no readable hkaSkeleton under %s: ", path);
		if (k > 0 && (size_t)k < cap) {
			const char *end = memchr(skel_err.message, '\0', sizeof(skel_err.message));
			size_t len = end ? (size_t)(end - skel_err.message) : sizeof(skel_err.message);
			if (len > cap - 1 - (size_t)k)
				len = cap - 1 - (size_t)k;
			memcpy(err->message + k, skel_err.message, len);
			err->message[(size_t)k + len] = '\0';
		}
		r = skel_r;
		goto fail;
	}
	r = hks_fail(&ctx, HKS_E_NOT_FOUND, -1, "no hkaSkeleton under %s", path);
fail:
	if (*out)
		hks_loaded_free(*out);
	*out = NULL;
	hks_loader_free(*loader);
	*loader = NULL;
	return r;
}
