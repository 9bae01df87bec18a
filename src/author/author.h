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
#define GLTF_UNSIGNED_INT 5125 /* sparse indices only */
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

/* Double quaternions (x, y, z, w) for the rest-pose correction (docs/GLTF.md "Rest poses"). */
void author_qmul(const double a[4], const double b[4], double out[4]);
void author_qconj(const double a[4], double out[4]);
void author_qnormalize(double q[4]); /* a zero or non-finite quaternion becomes the identity */
void author_qrotate(const double q[4], const double v[3], double out[3]);
void author_qmatrix(const double q[4], double m[3][3]);
double author_qangle(const double q[4]); /* rotation angle in radians, 0 .. pi */

/* Whether all n floats are finite. */
int author_finite(const float *v, size_t n);

/* Base64 (RFC 4648, with padding). */
hks_result author_base64_encode(hks_bytebuf *out, const uint8_t *data, size_t size);
/* Decode into memory of `arena`. Malformed input: HKS_E_MALFORMED. */
hks_result author_base64_decode(hks_ctx *ctx, hks_arena *arena, const char *text, size_t len, uint8_t **out,
                                size_t *out_size);

/* Decompose a column-major affine matrix into T·R·S (glTF 2.0 §3.5.2: node
 * matrices are decomposable, no shear). A negative determinant (a mirror) is
 * carried by negating all three scales, leaving a proper rotation. Returns
 * NULL on success, else why the matrix is refused (static text). */
const char *author_mat_decompose(const double m[16], author_trs *out);

/* ---- glTF buffers of one import (gltf_buffers.c, docs/GLTF.md "Buffers") ---- */

typedef struct author_buffer {
	const uint8_t *data;    /* NULL until loaded (external files load on first use) */
	size_t size;            /* byteLength */
	const char *uri;        /* NULL: the GLB BIN chunk */
	int loaded;
	void *owned;            /* read by the library (hks_malloc), freed in release */
	const void *lent;       /* from loader.open, handed back to loader.close */
	size_t lent_size;
} author_buffer;

typedef struct author_buffers {
	hks_ctx *ctx;
	hks_arena *arena;
	author_buffer *items;
	size_t count;
	const char *source_path;
	hks_gltf_file_loader loader;
} author_buffers;

/* Bytes of external files the buffers declare (for the default memory limit:
 * external buffers are input, like a GLB's BIN chunk). Capped at 2^40. */
uint64_t author_buffers_external_bytes(const json_t *root);
/* Check the `buffers` array (byteLength, uri kind and form) and decode data:
 * URIs; external files are not opened yet. `glb_bin` may be NULL. */
hks_result author_buffers_declare(author_buffers *b, const json_t *root, const uint8_t *glb_bin, size_t glb_bin_size);
/* Buffer `index` (< b->count) with its bytes, loading an external file on first use. */
hks_result author_buffer_get(author_buffers *b, size_t index, const author_buffer **out);
/* Free what the library read and hand lent bytes back to loader.close. */
void author_buffers_release(author_buffers *b);

#endif
