/*
 * The donor container of `encode --skeleton S` / `--into BINDER`
 * (hks_donor_find; the rule is in hkspline.h and docs/CLI.md "encode").
 *
 * Why a donor: Havok files are written by regenerating a parsed file; a
 * tagfile keeps its type table (inline TYPE) or compendium reference (TCRF)
 * byte for byte and only DATA / ITEM / PTCH are regenerated (CONTAINERS.md
 * §4.1). The project never synthesizes type tables, so a new clip is written
 * into an existing tagfile of the same game.
 *
 * The choice depends only on the qualifying candidates and their sorted
 * order: a unit that does not parse, is no tagfile, is of another SDK or
 * skeleton, or whose animation's header relations fail, is skipped whatever
 * it contains, and there is no cap on the units looked at.
 */
#define _XOPEN_SOURCE 700
#include "internal.h"
#include "platform.h"

#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <strings.h>

static bool contains_ci(const char *s, const char *needle)
{
	size_t n = strlen(needle);
	for (; s && *s; s++)
		if (!strncasecmp(s, needle, n))
			return true;
	return false;
}

static bool has_root_motion(const hks_file *f, uint32_t anim)
{
	int32_t r = f->animations[anim].reference_frame;
	return r >= 0 && (uint32_t)r < f->num_reference_frames && f->reference_frames[r].class_name &&
	       !strcmp(f->reference_frames[r].class_name, "hkaDefaultAnimatedReferenceFrame");
}

/* The first spline animation of `f` with a binding (of skeleton `skel` when
 * given) whose header relations hold (and with root motion when
 * `need_root_motion`); f->num_animations when there is none. */
static uint32_t donor_animation(const hks_file *f, const char *skel, bool need_root_motion)
{
	for (uint32_t a = 0; a < f->num_animations; a++) {
		const hks_binding *b = hks_file_binding_for(f, a);
		if (f->animations[a].kind != HKS_ANIMATION_SPLINE || !b)
			continue;
		if (skel && (!b->original_skeleton_name || strcmp(b->original_skeleton_name, skel) != 0))
			continue;
		if (need_root_motion && !has_root_motion(f, a))
			continue;
		hks_error e;
		if (hks_spline_check_header(f, a, &e) != HKS_OK)
			continue;
		return a;
	}
	return f->num_animations;
}

/* `path` names the file `exclude` names (both resolved; loose files only). */
static bool same_file(const char *path, const char *exclude)
{
	if (!exclude || !path)
		return false;
	/* the same object on disk (device and inode / volume and file index, src/core/platform.c) */
	hks_path_info a, b;
	if (hks_platform_stat(path, &a) != 0 || hks_platform_stat(exclude, &b) != 0)
		return !strcmp(path, exclude);
	return a.kind == HKS_PATH_FILE && b.kind == HKS_PATH_FILE && a.dev == b.dev && a.ino == b.ino;
}

hks_result hks_donor_find(const char *where_path, const hks_donor_options *opts, hks_loader **loader,
                          hks_loaded **out, uint32_t *anim, hks_error *err)
{
	hks_error local;
	if (!err)
		err = &local;
	hks_ctx ctx;
	hks_ctx_init(&ctx, opts ? &opts->load.base : NULL, 0, err);
	if (!where_path || !loader || !out || !anim)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "no path or no output pointer");
	*out = NULL;
	*loader = NULL;
	const hks_load_options *lo = opts ? &opts->load : NULL;
	const char *sdk = opts ? opts->sdk : NULL, *skel = opts ? opts->skeleton_name : NULL;
	const char *exclude = opts ? opts->exclude : NULL;
	char *where = strdup(where_path);
	if (!where)
		return hks_fail_nomem(&ctx, strlen(where_path));
	hks_result r = hks_loader_create(lo, loader, err);
	hks_error scratch;
	if (r == HKS_OK && (hks_loader_add_path(*loader, where, &scratch) != HKS_OK || hks_loader_count(*loader) == 1)) {
		/* BINDER:MEMBER -> the binder; a loose file -> its folder */
		char *colon = strrchr(where, ':');
		hks_loader_free(*loader);
		*loader = NULL;
		r = hks_loader_create(lo, loader, err);
		if (r == HKS_OK) {
			if (colon && colon != where) {
				*colon = 0;
			} else {
				char *dir = dirname(where);
				memmove(where, dir, strlen(dir) + 1);
			}
			r = hks_loader_add_path(*loader, where, err);
		}
	}
	size_t n = r == HKS_OK ? hks_loader_count(*loader) : 0, fallback = n;
	uint32_t fallback_anim = 0;
	for (size_t i = 0; i < n && !*out; i++) {
		const char *p = hks_loader_path(*loader, i);
		if (contains_ci(p, "skel"))
			continue;
		hks_loaded *ld = NULL;
		if (hks_loader_load(*loader, i, &ld) != HKS_OK || !ld || ld->status != HKS_OK ||
		    ld->file->container != HKS_CONTAINER_TAGFILE || (sdk && strcmp(ld->file->sdk, sdk) != 0) ||
		    (!ld->member && same_file(ld->container_path, exclude))) {
			hks_loaded_free(ld);
			continue;
		}
		uint32_t a = donor_animation(ld->file, skel, true);
		if (a < ld->file->num_animations) {
			*out = ld;
			*anim = a;
			break;
		}
		uint32_t b = donor_animation(ld->file, skel, false);
		if (b < ld->file->num_animations && fallback == n) {
			fallback = i;
			fallback_anim = b;
		}
		hks_loaded_free(ld);
	}
	if (!*out && fallback < n) {
		hks_loaded *ld = NULL;
		if (hks_loader_load(*loader, fallback, &ld) == HKS_OK && ld && ld->status == HKS_OK) {
			*out = ld;
			*anim = fallback_anim;
		} else
			hks_loaded_free(ld);
	}
	if (r == HKS_OK && !*out)
		r = hks_fail(&ctx, HKS_E_NOT_FOUND, -1,
		             "no donor tagfile%s%s%s%s with a spline animation and a binding among %zu units under %s",
		             sdk ? " of SDK " : "", sdk ? sdk : "", skel ? " bound to skeleton " : "", skel ? skel : "", n,
		             where);
	if (r != HKS_OK) {
		hks_loader_free(*loader);
		*loader = NULL;
	}
	free(where);
	return r;
}
