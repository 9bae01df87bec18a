/*
 * Authoring module (glTF 2.0 export and import, docs/GLTF.md): helpers shared
 * by the glTF writer and reader. Public API: hkspline.h, section "authoring".
 */
#ifndef HKS_AUTHOR_H
#define HKS_AUTHOR_H

#include "internal.h"

#include <jansson.h>

/* glTF constants (glTF 2.0 specification §3.6, §5.24). */
#define GLTF_FLOAT 5126
#define GLTF_BYTE 5120
#define GLTF_UNSIGNED_BYTE 5121
#define GLTF_SHORT 5122
#define GLTF_UNSIGNED_SHORT 5123
#define GLB_MAGIC 0x46546C67u      /* "glTF" */
#define GLB_CHUNK_JSON 0x4E4F534Au /* "JSON" */
#define GLB_CHUNK_BIN 0x004E4942u  /* "BIN\0" */

/* A rigid transform with scale, in double: model matrix = T · R · S. */
typedef struct author_trs {
	double t[3], r[4], s[3];
} author_trs;

/* Column-major 4x4 (glTF's matrix layout). */
void author_trs_matrix(const author_trs *x, double m[16]);
void author_mat_mul(const double a[16], const double b[16], double out[16]);
/* Inverse of an affine matrix (last row 0 0 0 1); 0 when singular. */
int author_mat_inverse_affine(const double m[16], double out[16]);

/* Normalize a quaternion in place; 0 when its length is 0 or not finite. */
int author_quat_normalize(float q[4]);
/* Spherical interpolation of unit quaternions along the shorter arc (glTF LINEAR rotation). */
void author_quat_slerp(const float a[4], const float b[4], float u, float out[4]);

/* Whether all n floats are finite. */
int author_finite(const float *v, size_t n);

/* Base64 (RFC 4648, with padding). */
hks_result author_base64_encode(hks_bytebuf *out, const uint8_t *data, size_t size);
/* Decode into memory of `arena`. Malformed input: HKS_E_MALFORMED. */
hks_result author_base64_decode(hks_ctx *ctx, hks_arena *arena, const char *text, size_t len, uint8_t **out,
                                size_t *out_size);

#endif
