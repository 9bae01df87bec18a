/* The glTF parts of the CLI (cmd_gltf.c, docs/GLTF.md): `decode ... -o OUT.glb|OUT.gltf`
 * and `encode IN.glb|IN.gltf ...`, dispatched from cmd_decode.c / cmd_encode.c. */
#ifndef HKS_CMD_GLTF_H
#define HKS_CMD_GLTF_H

#include <stdbool.h>

/* Whether a path ends in .glb or .gltf (any case). */
bool cli_is_gltf_path(const char *path);

/* hkspline decode IN [--skeleton S] [--compendium P]... -o OUT.glb|OUT.gltf */
int cli_decode_gltf(int argc, char **argv);

/* hkspline encode IN.glb|IN.gltf --skeleton S [--like ORIGINAL] [--game sekiro|eldenring] -o OUT.hkx
 *                 [--into BINDER --name NAME] */
int cli_encode_gltf(int argc, char **argv);

#endif
