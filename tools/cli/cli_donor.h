/*
 * Where `hkspline encode` writes when there is no --like ORIGINAL (cli_donor.c):
 * the skeleton, a donor container (CONTAINERS.md §4.1: the tagfile writer keeps a
 * parsed file's TCRF or inline TYPE byte for byte and regenerates the rest, so a
 * new file is written into an existing one), the rebuilt track layout, the root
 * motion, and the optional placement into a binder (--into BINDER --name NAME).
 * Shared by the JSON path (cmd_encode.c) and the glTF path (cmd_gltf.c).
 */
#ifndef HKS_CLI_DONOR_H
#define HKS_CLI_DONOR_H

#include "cli.h"

/* The binding that names animation `anim` (a single binding of a single-animation
 * file counts too), or NULL. */
const hks_binding *cli_binding_for(const hks_file *f, uint32_t anim);

/* The skeleton the binding names (originalSkeletonName) in `own`, then `ext`; else
 * the first skeleton of either. NULL when neither holds one. */
const hks_skeleton *cli_pick_skeleton(const hks_file *own, const hks_file *ext, const hks_binding *bind);

/* A warning on standard error ("hkspline CMD: warning: ...") when animation `anim` of `path` is bound to a
 * skeleton of another name than `sk`, the one the user gave (--skeleton SKELETON_PATH): tracks are matched to
 * bones by index, so another character's skeleton gives wrong bone names and motion on the wrong bones.
 * Only a warning: some retail skeletons are named otherwise than their bindings say (Elden Ring's c0000
 * clips name "c0000", its skeleton is "Master"). Returns 1 when it warned. */
int cli_warn_other_skeleton(const char *cmd, const char *path, uint32_t anim, const hks_binding *bind,
                            const hks_skeleton *sk, const char *skeleton_path);

/* The skeleton file of `path`: the file itself, BINDER:MEMBER, or the first unit of
 * a binder / folder that holds an hkaSkeleton (units named like "skel" first).
 * Returns 0 with *loader and *out set (free both), or cli_input_status's status after printing why
 * ("hkspline CMD: ..."). */
int cli_load_skeleton(const hks_load_options *lo, const char *path, hks_loader **loader, hks_loaded **out,
                      const char *cmd);

/* A donor (hks_donor_find, the rule in hkspline.h): under `where` (a binder or
 * folder; BINDER:MEMBER searches the binder, a loose file its folder), of SDK
 * `sdk` and bound to skeleton `skeleton_name` when not NULL, never the file
 * `exclude`. Returns 0 with *loader, *out and *anim set, 1 when there is none
 * (nothing printed: the caller names the alternatives), 2 after printing an
 * error. cli_find_donor: no skeleton name, no exclusion. */
int cli_find_donor_for(const hks_load_options *lo, const char *where, const char *sdk, const char *skeleton_name,
                       const char *exclude, hks_loader **loader, hks_loaded **out, uint32_t *anim);
int cli_find_donor(const hks_load_options *lo, const char *where, const char *sdk, hks_loader **loader,
                   hks_loaded **out, uint32_t *anim);

/* Give animation `anim` of `file` a new track layout: T transform tracks bound to
 * the bones `track_to_bone`, F float tracks bound to the slots `float_to_slot`
 * (NULL when F is 0), no annotation tracks. The binding's arrays point to the
 * caller's arrays (keep them alive until the file is written); the tagfile writer
 * writes numberOfTransformTracks, numberOfFloatTracks, the binding's index
 * arrays and the emptied annotationTracks from these fields (CONTAINERS.md §3.5). */
void cli_apply_track_layout(hks_file *file, uint32_t anim, uint32_t T, const int16_t *track_to_bone, uint32_t F,
                            const int16_t *float_to_slot);

/* Root motion of animation `anim` for a new clip of `frames` frames: when the
 * animation has an hkaDefaultAnimatedReferenceFrame it gets one sample per frame
 * (CONTAINERS.md §3.4), `motion` or zeros when NULL, in *storage (malloc'd, keep
 * until the file is written, then free). A non-tagfile container cannot change
 * its sample count (the packfile writer keeps array sizes): that is an error when
 * the count differs. *note tells what happened ("carried", `zero_why`, "none").
 * Returns 0, or 2 after printing why. */
int cli_set_root_motion(hks_file *file, uint32_t anim, const float (*motion)[4], uint32_t frames, float duration,
                        const char *container_name, const char *zero_why, float (**storage)[4], const char **note);

/* --into BINDER --name NAME: place `bytes` into BINDER (DCX or plain BND4) as NAME,
 * replacing the member of that name, else adding it (ID and flags as the binder's
 * other .hkx members; "aXXX_YYYYYY.hkx" IDs follow the binder's numbering).
 * Returns 0, or 2 after printing why. The read-modify-write holds an exclusive
 * lock on BINDER (concurrent --into on one binder serialize); the old binder is
 * kept as BINDER.bak unless cli_into_no_backup (--no-backup) is set, and the new
 * one replaces it atomically (src/io/atomic.c). */
int cli_place_into_binder(const char *binder, const char *name, const uint8_t *bytes, size_t size);
/* cli_place_into_binder's checks without the write: 0 when BINDER reads and NAME is absent or an
 * animation member, else its status after printing why (encode calls it before writing -o). */
int cli_into_precheck(const char *binder, const char *name);
/* --no-backup: no BINDER.bak for --into. */
extern bool cli_into_no_backup;

#endif
