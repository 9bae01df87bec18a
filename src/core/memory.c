/* The context (allocator + limits), the arena and the growable byte buffer. */
#include "internal.h"

#include <stdlib.h>

static void *default_alloc(void *user, size_t size)
{
	(void)user;
	return malloc(size ? size : 1);
}
static void *default_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
	(void)user;
	(void)old_size;
	return realloc(ptr, new_size ? new_size : 1);
}
static void default_free(void *user, void *ptr, size_t size)
{
	(void)user;
	(void)size;
	free(ptr);
}

void hks_ctx_init(hks_ctx *ctx, const hks_options *opts, uint64_t input_size, hks_error *err)
{
	memset(ctx, 0, sizeof(*ctx));
	if (opts && opts->allocator.alloc && opts->allocator.realloc && opts->allocator.free) {
		ctx->alloc = opts->allocator;
	} else {
		ctx->alloc.alloc = default_alloc;
		ctx->alloc.realloc = default_realloc;
		ctx->alloc.free = default_free;
		ctx->alloc.user = NULL;
	}
	if (opts)
		ctx->limits = opts->limits;
	hks_limits *l = &ctx->limits;
	if (!l->max_memory) {
		uint64_t m = input_size > (UINT64_C(1) << 40) ? (UINT64_C(1) << 44) : input_size * 16;
		l->max_memory = m + (UINT64_C(64) << 20);
	}
	if (!l->max_frames)
		l->max_frames = HKS_DEFAULT_MAX_FRAMES;
	if (!l->max_tracks)
		l->max_tracks = HKS_DEFAULT_MAX_TRACKS;
	if (!l->max_blocks)
		l->max_blocks = HKS_DEFAULT_MAX_BLOCKS;
	if (!l->max_output_bytes)
		l->max_output_bytes = HKS_DEFAULT_MAX_OUTPUT_BYTES;
	if (!l->max_objects)
		l->max_objects = HKS_DEFAULT_MAX_OBJECTS;
	if (!l->max_depth)
		l->max_depth = HKS_DEFAULT_MAX_DEPTH;
	ctx->err = err;
	ctx->file = opts ? opts->name : NULL;
	hks_error_clear(err);
}

static bool charge(hks_ctx *ctx, size_t size)
{
	if (size > ctx->limits.max_memory || ctx->in_use > ctx->limits.max_memory - size) {
		hks_fail(ctx, HKS_E_LIMIT, -1, "allocating %zu bytes would exceed the memory limit of %llu bytes",
		         size, (unsigned long long)ctx->limits.max_memory);
		return false;
	}
	ctx->in_use += size;
	if (ctx->in_use > ctx->peak)
		ctx->peak = ctx->in_use;
	return true;
}

void *hks_malloc(hks_ctx *ctx, size_t size)
{
	if (!charge(ctx, size))
		return NULL;
	void *p = ctx->alloc.alloc(ctx->alloc.user, size);
	if (!p) {
		ctx->in_use -= size;
		hks_fail_nomem(ctx, size);
	}
	return p;
}

void *hks_calloc(hks_ctx *ctx, size_t count, size_t size)
{
	size_t total;
	if (!hks_mul_size(count, size, &total)) {
		hks_fail(ctx, HKS_E_LIMIT, -1, "allocation of %zu x %zu bytes overflows", count, size);
		return NULL;
	}
	void *p = hks_malloc(ctx, total);
	if (p)
		memset(p, 0, total);
	return p;
}

void *hks_realloc(hks_ctx *ctx, void *ptr, size_t old_size, size_t new_size)
{
	if (!ptr)
		return hks_malloc(ctx, new_size);
	if (new_size > old_size && !charge(ctx, new_size - old_size))
		return NULL;
	void *p = ctx->alloc.realloc(ctx->alloc.user, ptr, old_size, new_size);
	if (!p) {
		if (new_size > old_size)
			ctx->in_use -= new_size - old_size;
		hks_fail_nomem(ctx, new_size);
		return NULL;
	}
	if (new_size < old_size)
		ctx->in_use -= old_size - new_size;
	return p;
}

void hks_free(hks_ctx *ctx, void *ptr, size_t size)
{
	if (!ptr)
		return;
	ctx->alloc.free(ctx->alloc.user, ptr, size);
	ctx->in_use = ctx->in_use >= size ? ctx->in_use - size : 0;
}

void hks_buffer_free(const hks_options *opts, void *ptr, size_t size)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, opts, 0, NULL);
	hks_free(&ctx, ptr, size);
}

/* ---- arena ---- */

typedef struct arena_chunk {
	struct arena_chunk *next;
	size_t size;  /* bytes of this allocation, header included */
	size_t used;  /* bytes used after the header */
} arena_chunk;

#define CHUNK_HEADER (((sizeof(arena_chunk)) + 15) & ~(size_t)15)
#define CHUNK_MIN ((size_t)64 << 10)

struct hks_arena {
	hks_ctx own;         /* allocator and limits, copied */
	hks_ctx *ctx;        /* where errors go */
	arena_chunk *head;
	uint64_t bytes;
};

hks_arena *hks_arena_create(hks_ctx *ctx)
{
	hks_arena *a = (hks_arena *)hks_malloc(ctx, sizeof(hks_arena));
	if (!a)
		return NULL;
	memset(a, 0, sizeof(*a));
	a->own = *ctx;
	a->own.err = NULL;
	a->own.in_use = sizeof(hks_arena);
	ctx->in_use -= sizeof(hks_arena);
	a->ctx = ctx;
	return a;
}

void hks_arena_set_ctx(hks_arena *a, hks_ctx *ctx)
{
	if (a)
		a->ctx = ctx;
}

uint64_t hks_arena_bytes(const hks_arena *a) { return a ? a->bytes : 0; }

/* An arena block of `size` bytes (16-byte steps), not cleared: hks_arena_alloc
 * zeroes it, the copies below write it and zero the rest of the step. */
static void *arena_alloc_raw(hks_arena *a, size_t size)
{
	size_t need = (size + 15) & ~(size_t)15;
	if (need < size) {
		hks_fail(a->ctx, HKS_E_LIMIT, -1, "arena allocation of %zu bytes overflows", size);
		return NULL;
	}
	arena_chunk *c = a->head;
	if (!c || c->size - CHUNK_HEADER - c->used < need) {
		size_t body = need > CHUNK_MIN ? need : CHUNK_MIN;
		size_t total = body + CHUNK_HEADER;
		if (total < body) {
			hks_fail(a->ctx, HKS_E_LIMIT, -1, "arena allocation of %zu bytes overflows", size);
			return NULL;
		}
		/* charge against the arena's own accounting and the caller's limit */
		if (total > a->own.limits.max_memory || a->own.in_use > a->own.limits.max_memory - total) {
			hks_fail(a->ctx, HKS_E_LIMIT, -1,
			         "allocating %zu bytes would exceed the memory limit of %llu bytes", size,
			         (unsigned long long)a->own.limits.max_memory);
			return NULL;
		}
		c = (arena_chunk *)a->own.alloc.alloc(a->own.alloc.user, total);
		if (!c) {
			hks_fail_nomem(a->ctx, total);
			return NULL;
		}
		a->own.in_use += total;
		a->bytes += total;
		c->size = total;
		c->used = 0;
		if (a->head && need > CHUNK_MIN) {
			/* a big one-off: keep the current chunk as head for small allocations */
			c->next = a->head->next;
			a->head->next = c;
		} else {
			c->next = a->head;
			a->head = c;
		}
	}
	uint8_t *p = (uint8_t *)c + CHUNK_HEADER + c->used;
	c->used += need;
	return p;
}

void *hks_arena_alloc(hks_arena *a, size_t size)
{
	void *p = arena_alloc_raw(a, size);
	if (p)
		memset(p, 0, (size + 15) & ~(size_t)15);
	return p;
}

void *hks_arena_array(hks_arena *a, size_t count, size_t elem)
{
	size_t total;
	if (!hks_mul_size(count, elem, &total)) {
		hks_fail(a->ctx, HKS_E_LIMIT, -1, "array of %zu x %zu bytes overflows", count, elem);
		return NULL;
	}
	return hks_arena_alloc(a, total);
}

void *hks_arena_dup(hks_arena *a, const void *src, size_t size)
{
	/* not zeroed first: the copy writes every byte but the padding (zeroed as
	 * before); zeroing a binder's megabytes before copying them was a second pass.
	 * Size 0 copies nothing and still gives a distinct, zeroed 16-byte slot, so
	 * callers need no "at least one" idiom (which read a byte past an empty
	 * source: fuzz_record, a verbatim record with no data at the input's end). */
	size_t slot = size ? size : 1;
	void *p = arena_alloc_raw(a, slot);
	if (p) {
		if (size)
			memcpy(p, src, size);
		memset((uint8_t *)p + size, 0, ((slot + 15) & ~(size_t)15) - size);  /* the padding stays zero */
	}
	return p;
}

char *hks_arena_strndup(hks_arena *a, const char *s, size_t n)
{
	char *p = (char *)arena_alloc_raw(a, n + 1);
	if (p) {
		memcpy(p, s, n);
		memset(p + n, 0, ((n + 1 + 15) & ~(size_t)15) - n);
	}
	return p;
}

char *hks_arena_strdup(hks_arena *a, const char *s)
{
	return hks_arena_strndup(a, s, strlen(s));
}

void hks_arena_free(hks_arena *a)
{
	if (!a)
		return;
	arena_chunk *c = a->head;
	while (c) {
		arena_chunk *next = c->next;
		a->own.alloc.free(a->own.alloc.user, c, c->size);
		c = next;
	}
	hks_allocator al = a->own.alloc;
	al.free(al.user, a, sizeof(hks_arena));
}

/* ---- byte buffer ---- */

void hks_bytebuf_init(hks_bytebuf *b, hks_ctx *ctx)
{
	memset(b, 0, sizeof(*b));
	b->ctx = ctx;
}

hks_result hks_bytebuf_reserve(hks_bytebuf *b, size_t extra)
{
	size_t need;
	if (!hks_add_size(b->size, extra, &need))
		return hks_fail(b->ctx, HKS_E_LIMIT, -1, "output size overflows");
	if (need > b->ctx->limits.max_output_bytes)
		return hks_fail(b->ctx, HKS_E_LIMIT, -1, "output of %zu bytes exceeds the limit of %llu bytes", need,
		                (unsigned long long)b->ctx->limits.max_output_bytes);
	if (need <= b->capacity)
		return HKS_OK;
	size_t cap = b->capacity ? b->capacity : 256;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	uint8_t *p = (uint8_t *)hks_realloc(b->ctx, b->data, b->capacity, cap);
	if (!p)
		return b->ctx->err ? b->ctx->err->code : HKS_E_NOMEM;
	b->data = p;
	b->capacity = cap;
	return HKS_OK;
}

hks_result hks_bytebuf_append(hks_bytebuf *b, const void *p, size_t n)
{
	HKS_TRY(hks_bytebuf_reserve(b, n));
	if (n)
		memcpy(b->data + b->size, p, n);
	b->size += n;
	return HKS_OK;
}

hks_result hks_bytebuf_zeros(hks_bytebuf *b, size_t n)
{
	HKS_TRY(hks_bytebuf_reserve(b, n));
	if (n)
		memset(b->data + b->size, 0, n);
	b->size += n;
	return HKS_OK;
}

hks_result hks_bytebuf_pad(hks_bytebuf *b, size_t align)
{
	size_t r = b->size % align;
	return r ? hks_bytebuf_zeros(b, align - r) : HKS_OK;
}

void hks_bytebuf_free(hks_bytebuf *b)
{
	hks_free(b->ctx, b->data, b->capacity);
	b->data = NULL;
	b->size = b->capacity = 0;
}

hks_result hks_bytebuf_finish(hks_bytebuf *b, uint8_t **out, size_t *size)
{
	/* Shrink so that the caller frees exactly `size` bytes (the allocator
	 * hook receives the allocated size, hkspline.h). When the shrinking
	 * realloc fails the buffer cannot be handed out: freeing it with its
	 * content size would lie to the allocator, and handing out the capacity
	 * would append unwritten bytes to the output. It is freed and the
	 * failure returned, so a caller that returns this result is correct by
	 * construction (an empty buffer is a success with *out = NULL). */
	uint8_t *p = b->data;
	size_t n = b->size;
	*out = NULL;
	*size = 0;
	if (p && n != b->capacity) {
		uint8_t *q = (uint8_t *)hks_realloc(b->ctx, p, b->capacity, n ? n : 1);
		if (!q) {
			hks_bytebuf_free(b);
			return HKS_E_NOMEM; /* recorded by hks_realloc */
		}
		p = q;
		if (!n)
			hks_free(b->ctx, p, 1), p = NULL;
	}
	b->data = NULL;
	b->capacity = 0;
	b->size = 0;
	*out = p;
	*size = p ? n : 0;
	return HKS_OK;
}

uint8_t *hks_bytebuf_take(hks_bytebuf *b, size_t *size)
{
	uint8_t *p = NULL;
	(void)hks_bytebuf_finish(b, &p, size);
	return p;
}
