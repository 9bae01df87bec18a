/*
 * The container of `hkspline encode` without --like (cli_donor.h): skeleton
 * lookup, donor search, track layout, root motion and binder placement, shared
 * by the JSON path (cmd_encode.c) and the glTF path (cmd_gltf.c).
 *
 * Why a donor: Havok files are written by regenerating a parsed file; a tagfile
 * keeps its type table (inline TYPE) or compendium reference (TCRF) byte for
 * byte and only DATA / ITEM / PTCH are regenerated (CONTAINERS.md §4.1). The
 * project never synthesizes or embeds type tables, so a new clip is written
 * into an existing tagfile of the same game: the donor.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli_donor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "platform.h"

/* ---- skeleton, binding and donor: the library's (src/io/skeleton.c, decoded.c, donor.c) ---- */

int cli_load_skeleton(const hks_load_options *lo, const char *path, hks_loader **loader, hks_loaded **out,
                      const char *cmd)
{
	hks_error err;
	hks_result r = hks_skeleton_load(lo, path, loader, out, &err);
	if (r == HKS_OK)
		return 0;
	if (r == HKS_E_NOT_FOUND || r == HKS_E_ARGUMENT)
		fprintf(stderr, "hkspline %s: %s\n", cmd, err.message);
	else
		cli_print_error(&err);
	return cli_input_status(r);
}

const hks_binding *cli_binding_for(const hks_file *f, uint32_t anim) { return hks_file_binding_for(f, anim); }

const hks_skeleton *cli_pick_skeleton(const hks_file *own, const hks_file *ext, const hks_binding *bind)
{
	return hks_file_pick_skeleton(own, ext, bind);
}

int cli_warn_other_skeleton(const char *cmd, const char *path, uint32_t anim, const hks_binding *bind,
                            const hks_skeleton *sk, const char *skeleton_path)
{
	if (!bind || !bind->original_skeleton_name || !*bind->original_skeleton_name || !sk || !sk->name ||
	    !strcmp(bind->original_skeleton_name, sk->name))
		return 0;
	fprintf(stderr,
	        "hkspline %s: warning: %s animation %u is bound to skeleton \"%s\", but %s holds \"%s\": tracks are "
	        "matched to bones by index, so unless the two share their bones in order the bone names and the motion "
	        "land on the wrong bones; check that it is this clip's character\n",
	        cmd, path, anim, bind->original_skeleton_name, skeleton_path ? skeleton_path : "the skeleton given",
	        sk->name);
	return 1;
}

int cli_find_donor_for(const hks_load_options *lo, const char *where, const char *sdk, const char *skeleton_name,
                       const char *exclude, hks_loader **loader, hks_loaded **out, uint32_t *anim)
{
	hks_donor_options o;
	memset(&o, 0, sizeof(o));
	if (lo)
		o.load = *lo;
	o.sdk = sdk;
	o.skeleton_name = skeleton_name;
	o.exclude = exclude;
	hks_error err;
	hks_result r = hks_donor_find(where, &o, loader, out, anim, &err);
	if (r == HKS_OK)
		return 0;
	if (r == HKS_E_NOT_FOUND)
		return 1;
	cli_print_error(&err);
	return 2;
}

int cli_find_donor(const hks_load_options *lo, const char *where, const char *sdk, hks_loader **loader,
                   hks_loaded **out, uint32_t *anim)
{
	return cli_find_donor_for(lo, where, sdk, NULL, NULL, loader, out, anim);
}

/* ---- track layout and root motion ---- */

static bool has_root_motion(const hks_file *f, uint32_t anim)
{
	int32_t r = f->animations[anim].reference_frame;
	return r >= 0 && (uint32_t)r < f->num_reference_frames && f->reference_frames[r].class_name &&
	       !strcmp(f->reference_frames[r].class_name, "hkaDefaultAnimatedReferenceFrame");
}

void cli_apply_track_layout(hks_file *file, uint32_t anim, uint32_t T, const int16_t *track_to_bone, uint32_t F,
                            const int16_t *float_to_slot)
{
	hks_animation *a = &file->animations[anim];
	a->number_of_transform_tracks = (int32_t)T;
	a->number_of_float_tracks = (int32_t)F;
	a->num_annotation_tracks = 0;
	hks_binding *bind = (hks_binding *)(uintptr_t)cli_binding_for(file, anim);
	if (!bind)
		return;
	bind->transform_track_to_bone_indices = T ? track_to_bone : NULL;
	bind->num_transform_track_to_bone_indices = T;
	bind->float_track_to_float_slot_indices = F ? float_to_slot : NULL;
	bind->num_float_track_to_float_slot_indices = F;
}

int cli_set_root_motion(hks_file *file, uint32_t anim, const float (*motion)[4], uint32_t frames, float duration,
                        const char *container_name, const char *zero_why, float (**storage)[4], const char **note)
{
	const hks_animation *a = &file->animations[anim];
	*storage = NULL;
	*note = "none";
	if (!has_root_motion(file, anim)) {
		if (motion)
			fprintf(stderr, "hkspline encode: warning: %s has no hkaDefaultAnimatedReferenceFrame; the root motion is "
			                "dropped\n",
			        container_name);
		return 0;
	}
	hks_reference_frame *rf = &file->reference_frames[a->reference_frame];
	if (file->container != HKS_CONTAINER_TAGFILE) {
		/* the packfile writer copies every object but the spline arrays (src/encode/packfile_write.c) */
		if (frames != rf->num_samples) {
			fprintf(stderr, "hkspline encode: %s is not a tagfile: its root motion cannot be regenerated\n",
			        container_name);
			return 2;
		}
		*note = "kept (the container's own samples)";
		return 0;
	}
	float(*samples)[4] = calloc((size_t)frames + 1, sizeof(float[4]));
	if (!samples) {
		fprintf(stderr, "hkspline encode: out of memory\n");
		return 2;
	}
	if (motion)
		memcpy(samples, motion, (size_t)frames * sizeof(float[4]));
	rf->samples = (const float(*)[4])samples;
	rf->num_samples = frames;
	rf->duration = duration;
	*storage = samples;
	*note = motion ? "carried" : zero_why;
	return 0;
}

/* ---- --into BINDER --name NAME ---- */

bool cli_into_no_backup = false;

/* Place `bytes` into BINDER (DCX or plain BND4) as NAME: replace the member, else add it. */
/* --into replaces animations only: a member that parses and holds no animation (a skeleton,
 * say) or that is no Havok file at all is refused, whatever its name (docs/CLI.md "encode"):
 * `--name Skeleton.HKX` by mistake would have put an animation in the skeleton's place.
 * A member the loader lists but cannot parse (a damaged animation) may be replaced. Returns
 * 0 when it may be replaced, else 2 after printing why. */
static int check_replaceable(const char *binder, const char *member)
{
	hks_load_options lo;
	memset(&lo, 0, sizeof(lo));
	lo.base.name = binder;
	hks_loader *loader = NULL;
	hks_error err;
	if (hks_loader_create(&lo, &loader, &err) != HKS_OK || hks_loader_add_path(loader, binder, &err) != HKS_OK) {
		cli_print_error(&err);
		hks_loader_free(loader);
		return 2;
	}
	int rc = 2;
	bool listed = false;
	/* display paths name a member by its base name ("BINDER:a000_000000.hkx") */
	const char *base = member;
	for (const char *c = member; *c; c++)
		if (*c == '\\' || *c == '/')
			base = c + 1;
	size_t mlen = strlen(base), flen = strlen(member);
	for (size_t i = 0, n = hks_loader_count(loader); i < n && !listed; i++) {
		/* by the display path first: only the candidate is parsed. It ends in the base name
		 * ("BINDER:a000_000000.hkx"), or in the full name when two members share the base name
		 * ("BINDER:N:\x\a000_000000.hkx"; matching the base name alone refused such an
		 * animation as "not a Havok file") */
		const char *path = hks_loader_path(loader, i);
		size_t plen = path ? strlen(path) : 0;
		bool by_base = plen > mlen && path[plen - mlen - 1] == ':' && !strcmp(path + plen - mlen, base);
		bool by_full = plen > flen && path[plen - flen - 1] == ':' && !strcmp(path + plen - flen, member);
		if (!by_base && !by_full)
			continue;
		hks_loaded *u = NULL;
		if (hks_loader_load(loader, i, &u) != HKS_OK || !u) {
			fprintf(stderr, "hkspline encode: out of memory\n");
			break;
		}
		if (u->member && !strcmp(u->member, member)) {
			listed = true;
			/* a member that could not be read (a KRAK member without Oodle, a limit, an I/O
			 * error) may hold anything: a skeleton behind KRAK was replaced. Only a damaged
			 * member (truncated, malformed; CLI.md "encode") or one whose compendium is
			 * elsewhere (--compendium) is replaced unseen */
			hks_result st = u->status;
			if (st == HKS_OK && u->file && !u->file->num_animations)
				fprintf(stderr,
				        "hkspline encode: member '%s' of %s holds no animation (%u skeleton(s)); --into replaces "
				        "or adds animations only: choose another --name (hkspline bnd replace replaces any member)\n",
				        member, binder, u->file->num_skeletons);
			else if (st != HKS_OK && st != HKS_E_TRUNCATED && st != HKS_E_MALFORMED && st != HKS_E_COMPENDIUM) {
				char msg[1024];
				hks_error_format(&u->error, msg, sizeof(msg));
				fprintf(stderr,
				        "hkspline encode: member '%s' of %s cannot be read, so what it holds is unknown (%s); --into "
				        "replaces or adds animations only (hkspline bnd replace replaces any member)\n",
				        member, binder, msg);
			} else
				rc = 0;
		}
		hks_loaded_free(u);
	}
	if (!listed)
		fprintf(stderr,
		        "hkspline encode: member '%s' of %s is not a Havok file; --into replaces or adds animations only: "
		        "choose another --name (hkspline bnd replace replaces any member)\n",
		        member, binder);
	hks_loader_free(loader);
	return listed ? rc : 2;
}

static int place_into(const char *binder, const char *name, const uint8_t *bytes, size_t size, bool dry_run);

/* 0 when a temporary can be made beside BINDER (what replacing it takes), else 2 after printing
 * why: a read-only folder is found before -o is written, not after (session 19 trial) */
static int binder_writable(const char *binder)
{
	hks_atomic_file *f = NULL;
	hks_error err;
	if (hks_atomic_open(binder, NULL, &f, &err) != HKS_OK) {
		cli_print_error(&err);
		return 2;
	}
	hks_atomic_abort(f);
	return 0;
}

int cli_place_into_binder(const char *binder, const char *name, const uint8_t *bytes, size_t size)
{
	return place_into(binder, name, bytes, size, false);
}

int cli_into_precheck(const char *binder, const char *name)
{
	return place_into(binder, name, NULL, 0, true);
}

/* dry_run: every check up to the replacement (the binder reads, NAME is an animation member or
 * absent), nothing written: encode runs it before writing -o, so a refused --into leaves no output */
static int place_into(const char *binder, const char *name, const uint8_t *bytes, size_t size, bool dry_run)
{
	hks_error err;
	hks_options o;
	memset(&o, 0, sizeof(o));
	o.name = binder;
	size_t raw_size = 0, plain_size = 0, out_size = 0;
	/* read-modify-write under an exclusive lock: a concurrent --into waits, then reads our result */
	hks_file_lock *lock = NULL;
	hks_result lr = hks_lock_file(binder, &o, &lock, &err);
	if (lr != HKS_OK) {
		/* a binder that is missing or cannot be read is a failed input (docs/CLI.md "Exit
		 * statuses"); one that reads but cannot be locked (Windows locks through a BINDER.lock
		 * beside it: a read-only folder) cannot be written: status 2 */
		cli_print_error(&err);
		FILE *probe = lr == HKS_E_NOT_FOUND ? NULL : hks_platform_fopen(binder, "rb");
		if (probe)
			fclose(probe);
		return probe ? 2 : cli_input_status(lr);
	}
	uint8_t *raw = cli_read_file(binder, &raw_size), *plain = NULL, *out = NULL;
	hks_bnd4 *bnd = NULL;
	hks_dcx_info info;
	int rc = 2;
	bool dcx = false;
	if (!raw) {
		hks_unlock_file(lock);
		return 1;
	}
	const uint8_t *bnd_bytes = raw;
	size_t bnd_size = raw_size;
	if (hks_detect_container(raw, raw_size) == HKS_CONTAINER_DCX) {
		hks_result dr = hks_dcx_decompress(raw, raw_size, &o, &plain, &plain_size, &info, &err);
		if (dr != HKS_OK) {
			cli_print_error(&err);
			rc = cli_input_status(dr); /* KRAK without a library: 2, by cli_oodle_finish */
			goto out;
		}
		dcx = true;
		bnd_bytes = plain;
		bnd_size = plain_size;
		/* write back at the zlib level that reproduces the binder's stream, as bnd replace does
		 * (docs/BINDERS.md; the header's level byte gave other compressed bytes for Sekiro's) */
		if (!dry_run)
			info.deflate_level = (uint8_t)hks_dcx_match_level(plain, plain_size, raw, raw_size);
	}
	hks_result br = hks_bnd4_read(bnd_bytes, bnd_size, &o, &bnd, &err);
	if (br != HKS_OK) {
		cli_print_error(&err);
		rc = cli_input_status(br);
		goto out;
	}
	uint32_t index = 0;
	hks_result fr = hks_bnd4_find(bnd, name, &index, &err);
	const char *action = "replaced";
	if (fr == HKS_OK) {
		if (check_replaceable(binder, bnd->entries[index].name) != 0)
			goto out;
		if (dry_run) {
			rc = binder_writable(binder);
			goto out;
		}
		/* a member stored DCX-compressed stays so: the new bytes compressed like it (as bnd replace) */
		uint8_t *packed = NULL;
		size_t packed_size = 0;
		if (!cli_member_bytes(&bnd->entries[index], bytes, size, &o, &packed, &packed_size))
			goto out;
		hks_result rr = hks_bnd4_replace(bnd, index, packed ? packed : bytes, packed ? packed_size : size, &err);
		hks_buffer_free(&o, packed, packed_size);
		if (rr != HKS_OK) {
			cli_print_error(&err);
			goto out;
		}
	} else if (fr == HKS_E_NOT_FOUND) {
		if (dry_run) {
			rc = binder_writable(binder);
			goto out;
		}
		/* a new member: the full name, ID and flags follow the binder's other .hkx members */
		if (hks_bnd4_add_like(bnd, name, bytes, size, &err) != HKS_OK) {
			cli_print_error(&err);
			goto out;
		}
		action = "added";
	} else {
		cli_print_error(&err);
		goto out;
	}
	uint8_t *written = NULL;
	size_t written_size = 0;
	if (hks_bnd4_write(bnd, &o, &written, &written_size, &err) != HKS_OK) {
		cli_print_error(&err);
		goto out;
	}
	if (dcx) {
		hks_result r = hks_dcx_compress(written, written_size, &info, &o, &out, &out_size, &err);
		hks_buffer_free(&o, written, written_size);
		if (r != HKS_OK) {
			cli_print_error(&err);
			goto out;
		}
	} else {
		out = written;
		out_size = written_size;
	}
	if (!cli_write_file_flags(binder, out, out_size, cli_into_no_backup ? 0 : HKS_ATOMIC_BACKUP))
		goto out;
	printf("%s: %s %s (%zu bytes; binder %zu bytes%s)\n", binder, action, name, size, out_size, dcx ? ", DCX" : "");
	rc = 0;
out:
	hks_buffer_free(&o, out, out_size);
	hks_bnd4_free(bnd);
	hks_buffer_free(&o, plain, plain_size);
	free(raw);
	hks_unlock_file(lock);
	return rc;
}
