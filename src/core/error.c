/* Results and the error record. */
#include "internal.h"

#include <stdio.h>

const char *hks_result_name(hks_result r)
{
	switch (r) {
	case HKS_OK: return "ok";
	case HKS_E_ARGUMENT: return "invalid argument";
	case HKS_E_NOMEM: return "out of memory";
	case HKS_E_TRUNCATED: return "truncated";
	case HKS_E_MALFORMED: return "malformed";
	case HKS_E_UNSUPPORTED: return "unsupported";
	case HKS_E_LIMIT: return "limit exceeded";
	case HKS_E_COMPENDIUM: return "compendium not found";
	case HKS_E_IO: return "i/o error";
	case HKS_E_NOT_FOUND: return "not found";
	case HKS_E_MISMATCH: return "mismatch";
	case HKS_E_INTERNAL: return "internal error";
	}
	return "unknown result";
}

void hks_error_clear(hks_error *err)
{
	if (!err)
		return;
	memset(err, 0, sizeof(*err));
	err->code = HKS_OK;
	err->offset = -1;
	err->animation = -1;
	err->block = -1;
	err->track = -1;
	err->part = HKS_PART_NONE;
}

static void copy_str(char *dst, size_t cap, const char *src)
{
	if (!src) {
		dst[0] = '\0';
		return;
	}
	size_t n = strlen(src);
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static bool err_open(const hks_ctx *ctx)
{
	return ctx && ctx->err && ctx->err->code == HKS_OK;
}

hks_result hks_failv(hks_ctx *ctx, hks_result code, int64_t offset, const char *fmt, va_list ap)
{
	if (err_open(ctx)) {
		hks_error *e = ctx->err;
		e->code = code;
		e->offset = offset;
		vsnprintf(e->message, sizeof(e->message), fmt, ap);
		if (e->file[0] == '\0')
			copy_str(e->file, sizeof(e->file), ctx->file);
	}
	return code;
}

hks_result hks_fail(hks_ctx *ctx, hks_result code, int64_t offset, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	hks_failv(ctx, code, offset, fmt, ap);
	va_end(ap);
	return code;
}

hks_result hks_fail_nomem(hks_ctx *ctx, size_t size)
{
	return hks_fail(ctx, HKS_E_NOMEM, -1, "allocation of %zu bytes failed", size);
}

void hks_err_object(hks_ctx *ctx, const char *fmt, ...)
{
	if (!err_open(ctx))
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ctx->err->object, sizeof(ctx->err->object), fmt, ap);
	va_end(ap);
}

/* What snprintf would write into err->object, truncated the same way (cap - 1 bytes and a NUL). */
typedef struct object_text {
	char *o;
	size_t at, cap;
} object_text;

static void object_str(object_text *t, const char *s)
{
	for (const char *p = s ? s : "(null)"; *p && t->at + 1 < t->cap; p++)
		t->o[t->at++] = *p;
}

static void object_uint(object_text *t, uint32_t v)
{
	char digits[16];
	size_t nd = 0;
	do {
		digits[nd++] = (char)('0' + v % 10u);
		v /= 10u;
	} while (v);
	while (nd && t->at + 1 < t->cap)
		t->o[t->at++] = digits[--nd];
}

void hks_err_object_item(hks_ctx *ctx, const char *name, uint32_t item)
{
	if (!err_open(ctx))
		return;
	object_text t = {ctx->err->object, 0, sizeof(ctx->err->object)};
	object_str(&t, name);
	object_str(&t, " (item ");
	object_uint(&t, item);
	object_str(&t, ")");
	t.o[t.at] = '\0';
}

void hks_err_object_type(hks_ctx *ctx, uint32_t index, const char *name)
{
	if (!err_open(ctx))
		return;
	object_text t = {ctx->err->object, 0, sizeof(ctx->err->object)};
	object_str(&t, "type ");
	object_uint(&t, index);
	object_str(&t, " (");
	object_str(&t, name);
	object_str(&t, ")");
	t.o[t.at] = '\0';
}

void hks_err_member(hks_ctx *ctx, const char *member)
{
	if (err_open(ctx))
		copy_str(ctx->err->member, sizeof(ctx->err->member), member);
}

void hks_err_location(hks_ctx *ctx, int32_t animation, int32_t block, int32_t track, hks_part part)
{
	if (!err_open(ctx))
		return;
	ctx->err->animation = animation;
	ctx->err->block = block;
	ctx->err->track = track;
	ctx->err->part = part;
}

static const char *part_name(hks_part p)
{
	switch (p) {
	case HKS_PART_TRANSLATION: return "translation";
	case HKS_PART_ROTATION: return "rotation";
	case HKS_PART_SCALE: return "scale";
	case HKS_PART_FLOAT: return "float";
	default: return "";
	}
}

size_t hks_error_format(const hks_error *e, char *buf, size_t size)
{
	char tmp[1600];
	size_t n = 0;
#define APPEND(...)                                                         \
	do {                                                                    \
		int k_ = snprintf(tmp + n, sizeof(tmp) - n, __VA_ARGS__);           \
		if (k_ > 0)                                                         \
			n += ((size_t)k_ < sizeof(tmp) - n) ? (size_t)k_ : sizeof(tmp) - n - 1; \
	} while (0)
	if (!e) {
		APPEND("(no error record)");
	} else {
		if (e->file[0])
			APPEND("%s: ", e->file);
		if (e->object[0])
			APPEND("%s: ", e->object);
		if (e->member[0])
			APPEND("%s: ", e->member);
		if (e->animation >= 0)
			APPEND("animation %d: ", (int)e->animation);
		if (e->block >= 0)
			APPEND("block %d: ", (int)e->block);
		if (e->track >= 0)
			APPEND("track %d: ", (int)e->track);
		if (e->part != HKS_PART_NONE)
			APPEND("%s: ", part_name(e->part));
		if (e->offset >= 0)
			APPEND("at byte %lld: ", (long long)e->offset);
		APPEND("%s", e->message[0] ? e->message : hks_result_name(e->code));
	}
#undef APPEND
	if (buf && size) {
		size_t c = n < size - 1 ? n : size - 1;
		memcpy(buf, tmp, c);
		buf[c] = '\0';
	}
	return n;
}
