/*
 * Internal helpers shared by every module: the context (allocator, limits,
 * error record), the arena, and the one bounds-checking idiom of the project.
 *
 * The safety idiom: every read goes through an hks_cursor (or an explicit
 * hks_range_ok() check) that knows the buffer's length. A failed check calls
 * hks_fail(), which records the first error and returns its code; callers
 * propagate it with HKS_TRY().
 */
#ifndef HKS_INTERNAL_H
#define HKS_INTERNAL_H

#include "hkspline.h"

#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

#if defined(__MINGW32__)
/* mingw's C99 printf (__USE_MINGW_ANSI_STDIO, cmake/mingw-w64.cmake): %zu, %lld */
#define HKS_PRINTF(f, a) __attribute__((format(gnu_printf, f, a)))
#define HKS_UNLIKELY(x) __builtin_expect(!!(x), 0)
#elif defined(__GNUC__) || defined(__clang__)
#define HKS_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define HKS_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define HKS_PRINTF(f, a)
#define HKS_UNLIKELY(x) (x)
#endif

/* ---- context --------------------------------------------------------- */

typedef struct hks_ctx {
	hks_allocator alloc;   /* never has NULL functions after hks_ctx_init */
	hks_limits limits;     /* defaults filled in */
	hks_error *err;        /* may be NULL: then errors are only returned */
	const char *file;      /* name for messages */
	uint64_t in_use;       /* bytes currently allocated through this context */
	uint64_t peak;
} hks_ctx;

/* Fill defaults. `input_size` scales the default max_memory. `err` is cleared. */
void hks_ctx_init(hks_ctx *ctx, const hks_options *opts, uint64_t input_size, hks_error *err);

/* Allocation through the context: checks max_memory first, counts bytes. */
/* The sampler's basis functions (FORMAT.md §4.5, src/decode/sample.c): N[0..p] of span `span` at u, knots U
 * as f32, in the sampler's exact f32 order. A value is then N[0]·P0, plus N[j]·Pj in order j = 1 .. p. */
void hks_sample_basis(unsigned p, unsigned span, float u, const float *U, float N[4]);
/* One stored part decoded alone (src/decode/sample.c): the part as part `kind` (0 T, 1 R, 2 S) of a
 * one-track, one-block animation of num_frames frames, or as its float track (kind 3), with mask byte
 * `mask`; out takes num_frames × HKS_TRACK_SAMPLE_FLOATS floats (kind 3: num_frames). */
hks_result hks_sample_part(const hks_options *base, unsigned kind, const hks_stored_part *p, uint8_t mask,
                           uint32_t num_frames, float *out);

void *hks_malloc(hks_ctx *ctx, size_t size);
void *hks_calloc(hks_ctx *ctx, size_t count, size_t size);
void *hks_realloc(hks_ctx *ctx, void *ptr, size_t old_size, size_t new_size);
void hks_free(hks_ctx *ctx, void *ptr, size_t size);

/* ---- errors ---------------------------------------------------------- */

/*
 * Record an error (only if none is recorded yet) and return `code`.
 * `offset` is a byte offset in the input, -1 when unknown.
 */
hks_result hks_fail(hks_ctx *ctx, hks_result code, int64_t offset, const char *fmt, ...) HKS_PRINTF(4, 5);
hks_result hks_failv(hks_ctx *ctx, hks_result code, int64_t offset, const char *fmt, va_list ap);

/* Context setters for the error record; they only write while no error is recorded. */
void hks_err_object(hks_ctx *ctx, const char *fmt, ...) HKS_PRINTF(2, 3);
void hks_err_member(hks_ctx *ctx, const char *member);
/* hks_bnd4_read on a buffer of the library's (hks_dcx_decompress with `opts`'
 * allocator) that the binder takes over on success (freed by hks_bnd4_free);
 * on failure the caller still owns it. The loader's binders (src/io/loader.c). */
hks_result hks_bnd4_read_adopt(uint8_t *data, size_t size, const hks_options *opts, hks_bnd4 **out, hks_error *err);
/* hks_err_object(ctx, "%s (item %u)", name, item) and (ctx, "type %u (%s)",
 * index, name) without printf: the tagfile reader names every object and type
 * it reads, and formatting those was ~7 % of `check` (session 5). */
void hks_err_object_item(hks_ctx *ctx, const char *name, uint32_t item);
void hks_err_object_type(hks_ctx *ctx, uint32_t index, const char *name);
void hks_err_location(hks_ctx *ctx, int32_t animation, int32_t block, int32_t track, hks_part part);

/* The allocation failure error. */
hks_result hks_fail_nomem(hks_ctx *ctx, size_t size);

#define HKS_TRY(expr)                                   \
	do {                                                \
		hks_result hks_try_r_ = (expr);                 \
		if (HKS_UNLIKELY(hks_try_r_ != HKS_OK))         \
			return hks_try_r_;                          \
	} while (0)

/* Overflow-safe arithmetic. Return false on overflow. */
static inline bool hks_add_size(size_t a, size_t b, size_t *out)
{
	if (a > SIZE_MAX - b)
		return false;
	*out = a + b;
	return true;
}
static inline bool hks_mul_size(size_t a, size_t b, size_t *out)
{
	if (a != 0 && b > SIZE_MAX / a)
		return false;
	*out = a * b;
	return true;
}
/* [off, off + len) inside a buffer of `size` bytes. */
static inline bool hks_range_ok(size_t size, uint64_t off, uint64_t len)
{
	return off <= size && len <= size - off;
}

/* ---- little/big endian loads (no alignment assumptions) -------------- */

static inline uint16_t hks_le16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t hks_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint64_t hks_le64(const uint8_t *p) { return (uint64_t)hks_le32(p) | ((uint64_t)hks_le32(p + 4) << 32); }
static inline uint16_t hks_be16(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }
static inline uint32_t hks_be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}
static inline uint64_t hks_be64(const uint8_t *p) { return ((uint64_t)hks_be32(p) << 32) | hks_be32(p + 4); }
/* f32 from its bit pattern, bit for bit (NaN payloads kept). */
static inline float hks_f32_from_bits(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}
static inline uint32_t hks_f32_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}
/* hks_dequantize_scalar (decode/quantization.c, FORMAT.md §3.1) inline, for the re-compressor's searches,
 * which call it in their innermost loops: the same f32 operations in the same order (1/65535 and 1/255 as
 * their binary32 patterns), so the same bits. */
static inline float hks_dequantize_scalar_inline(unsigned quantization, uint32_t value, float min, float max)
{
	const float scale = hks_f32_from_bits(quantization ? 0x37800080u : 0x3B808081u);
	float s = (float)value * scale;
	float d = max - min;
	return (s * d) + min;
}
static inline void hks_put_le16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void hks_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline void hks_put_le64(uint8_t *p, uint64_t v) { hks_put_le32(p, (uint32_t)v); hks_put_le32(p + 4, (uint32_t)(v >> 32)); }
static inline void hks_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}

/* FORMAT.md §3.4-3.6: the ThreeComp40/48/24 unpackers' scales ≈ 1/(centre·√2), as f32 bits (the
 * decoder's, and the encoder's exact repacking, hks_repack_quaternion_exact). */
#define HKS_BITS_S40 0x39B51B97u
#define HKS_BITS_S48 0x383507C7u
#define HKS_BITS_S24 0x3C37E485u

/* ---- the cursor: the single bounds-checked reader -------------------- */

typedef struct hks_cursor {
	const uint8_t *data;
	size_t size;      /* readable bytes from data[0] */
	size_t pos;       /* current position, relative to data */
	int64_t base;     /* file offset of data[0], for messages */
	hks_ctx *ctx;
} hks_cursor;

static inline hks_cursor hks_cursor_make(hks_ctx *ctx, const void *data, size_t size, int64_t base)
{
	hks_cursor c;
	c.data = (const uint8_t *)data;
	c.size = size;
	c.pos = 0;
	c.base = base;
	c.ctx = ctx;
	return c;
}

/* Ensure `n` bytes can be read at the current position; else a truncation error naming `what`. */
hks_result hks_cursor_need(hks_cursor *c, size_t n, const char *what);

static inline int64_t hks_cursor_offset(const hks_cursor *c) { return c->base + (int64_t)c->pos; }

/* Readers: check, read, advance. On failure the value is left unchanged. */
hks_result hks_read_u8(hks_cursor *c, uint8_t *v, const char *what);
hks_result hks_read_le16(hks_cursor *c, uint16_t *v, const char *what);
hks_result hks_read_le32(hks_cursor *c, uint32_t *v, const char *what);
hks_result hks_read_le64(hks_cursor *c, uint64_t *v, const char *what);
hks_result hks_read_be32(hks_cursor *c, uint32_t *v, const char *what);
hks_result hks_read_f32(hks_cursor *c, float *v, const char *what);
/* Borrow `n` bytes (pointer into the buffer). */
hks_result hks_read_bytes(hks_cursor *c, size_t n, const uint8_t **p, const char *what);
hks_result hks_skip(hks_cursor *c, size_t n, const char *what);
/* Advance to the next multiple of `a` (a power of two) relative to data[0]. */
hks_result hks_align(hks_cursor *c, size_t a, const char *what);

/* ---- arena: many allocations, one free ------------------------------- */

typedef struct hks_arena hks_arena;

/* The arena keeps its own copy of the context's allocator and limits; it
 * charges every block to the context it was created from only for the
 * max_memory check. */
hks_arena *hks_arena_create(hks_ctx *ctx);
void *hks_arena_alloc(hks_arena *a, size_t size);          /* 16-aligned, zeroed; NULL + error on failure */
void *hks_arena_array(hks_arena *a, size_t count, size_t elem);
void *hks_arena_dup(hks_arena *a, const void *src, size_t size);
char *hks_arena_strdup(hks_arena *a, const char *s);
char *hks_arena_strndup(hks_arena *a, const char *s, size_t n);
void hks_arena_free(hks_arena *a);
/* The context an arena reports errors to (swap when the arena outlives a call). */
void hks_arena_set_ctx(hks_arena *a, hks_ctx *ctx);
uint64_t hks_arena_bytes(const hks_arena *a);

/* ---- growable byte buffer (for writers) ------------------------------ */

typedef struct hks_bytebuf {
	uint8_t *data;
	size_t size;
	size_t capacity;
	hks_ctx *ctx;
} hks_bytebuf;

void hks_bytebuf_init(hks_bytebuf *b, hks_ctx *ctx);
hks_result hks_bytebuf_reserve(hks_bytebuf *b, size_t extra);
hks_result hks_bytebuf_append(hks_bytebuf *b, const void *p, size_t n);
hks_result hks_bytebuf_zeros(hks_bytebuf *b, size_t n);
hks_result hks_bytebuf_pad(hks_bytebuf *b, size_t align); /* zero-pad size to a multiple of align */
void hks_bytebuf_free(hks_bytebuf *b);
/* Hand the buffer to the caller, shrunk to its size (the caller frees it with
 * hks_buffer_free, the same options and *size). HKS_E_NOMEM (recorded, the
 * buffer freed, *out NULL) when the shrinking realloc fails; HKS_OK with
 * *out NULL and *size 0 for an empty buffer. Writers end with
 * `return hks_bytebuf_finish(&buf, out, out_size);`. */
hks_result hks_bytebuf_finish(hks_bytebuf *b, uint8_t **out, size_t *size);
/* The older form of hks_bytebuf_finish: NULL both for an empty buffer and for
 * a failed shrink (the failure recorded), so only callers whose output is
 * never empty may read NULL as HKS_E_NOMEM. Prefer hks_bytebuf_finish. */
uint8_t *hks_bytebuf_take(hks_bytebuf *b, size_t *size);

/* The AVX2 sampling path (docs/DECODE.md "Evaluation paths"): x86 builds
 * with gcc or clang compile its kernels for AVX2 with function attributes
 * (no FMA: nothing is fused) and use them only when the CPU has AVX2
 * (hks_cpu_avx2, checked at run time). */
#if defined(__SSE2__) && (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define HKS_HAVE_AVX2 1
#define HKS_TARGET_AVX2 __attribute__((target("avx2")))
/* 1 when the running CPU (and OS) support AVX2. */
int hks_cpu_avx2(void);
/* hks_unpack_quaternions for ThreeComp40, eight values per AVX2 register;
 * the same bits. Call only when hks_cpu_avx2(). */
void hks_unpack_threecomp40_avx2(const uint8_t *bytes, size_t count, float *out);
#endif

#endif /* HKS_INTERNAL_H */
