/*
 * glTF buffers of one import (docs/GLTF.md "Buffers"; glTF 2.0 §3.6.1):
 * the GLB BIN chunk, data: URIs (base64) and external files.
 *
 * External files are what Blender's "glTF Separate" export writes (x.gltf +
 * x.bin). They are opened only when the caller says where they live
 * (hks_gltf_read_options.source_path) or supplies them (loader.open), and only
 * on first use by an accessor of the imported animation, so buffers of meshes
 * or other animations are never read. A uri is a relative reference (RFC 3986
 * §4.2), percent-decoded (§2.1); absolute paths, other schemes and ".."
 * segments are refused: a .gltf from elsewhere must not make the importer read
 * files outside its own folder (their bytes would end up in the written .hkx).
 */
#ifndef _WIN32
#define _DEFAULT_SOURCE /* realpath, O_NOFOLLOW */
#endif
#include "author.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#ifndef _WIN32
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "platform.h"

static hks_result fail_buffer(hks_ctx *ctx, hks_result code, size_t index, const char *fmt, ...) HKS_PRINTF(4, 5);
static hks_result fail_buffer(hks_ctx *ctx, hks_result code, size_t index, const char *fmt, ...)
{
	char member[48];
	snprintf(member, sizeof(member), "buffers[%zu]", index);
	hks_err_member(ctx, member);
	va_list ap;
	va_start(ap, fmt);
	hks_result r = hks_failv(ctx, code, -1, fmt, ap);
	va_end(ap);
	return r;
}

static int ascii_lower(int c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }

static int starts_with_ci(const char *s, const char *prefix)
{
	for (; *prefix; s++, prefix++)
		if (ascii_lower((unsigned char)*s) != *prefix)
			return 0;
	return 1;
}

/* RFC 3986 §3.1: a uri with a scheme has ':' before any '/', '?' or '#'. */
static int has_scheme(const char *uri)
{
	for (const char *p = uri; *p && *p != '/' && *p != '?' && *p != '#'; p++)
		if (*p == ':')
			return 1;
	return 0;
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)ascii_lower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

uint64_t author_buffers_external_bytes(const json_t *root)
{
	const json_t *bufs = json_object_get(root, "buffers");
	uint64_t total = 0;
	for (size_t i = 0; json_is_array(bufs) && i < json_array_size(bufs); i++) {
		const json_t *b = json_array_get(bufs, i);
		const char *uri = json_string_value(json_object_get(b, "uri"));
		const json_t *len = json_object_get(b, "byteLength");
		if (!uri || has_scheme(uri) || !json_is_integer(len) || json_integer_value(len) <= 0)
			continue; /* data: URIs are part of the JSON, already counted as input */
		uint64_t v = (uint64_t)json_integer_value(len);
		total = v > (UINT64_C(1) << 40) - total ? (UINT64_C(1) << 40) : total + v;
	}
	return total;
}

/* data:[<mediatype>];base64,<payload> (RFC 2397); glTF 2.0 §3.6.1.1 allows
 * the media types application/octet-stream and application/gltf-buffer. */
static hks_result decode_data_uri(author_buffers *b, size_t index, const char *uri, uint64_t want)
{
	static const char *const types[2] = {"data:application/octet-stream;base64,",
	                                      "data:application/gltf-buffer;base64,"};
	const char *payload = NULL;
	for (int k = 0; k < 2 && !payload; k++)
		if (starts_with_ci(uri, types[k]))
			payload = uri + strlen(types[k]);
	if (!payload) {
		const char *comma = strchr(uri, ',');
		int base64 = comma && comma - uri >= 7 && starts_with_ci(comma - 7, ";base64");
		return fail_buffer(b->ctx, base64 ? HKS_E_MALFORMED : HKS_E_UNSUPPORTED, index,
		                   base64 ? "buffers[%zu]: data: URI media type %.*s (glTF allows application/octet-stream "
		                            "and application/gltf-buffer)"
		                          : "buffers[%zu]: a data: URI without base64 (%.*s...) is not supported",
		                   index, (int)(comma ? (comma - uri > 64 ? 64 : comma - uri) : 32), uri);
	}
	size_t len = strlen(payload);
	/* the decoded size is known before decoding: check the declared length first */
	if (len % 4 == 0 && (uint64_t)len / 4 * 3 < want)
		return fail_buffer(b->ctx, HKS_E_MALFORMED, index,
		                   "buffers[%zu]: byteLength %llu exceeds the at most %llu bytes its data: URI holds", index,
		                   (unsigned long long)want, (unsigned long long)len / 4 * 3);
	uint8_t *data;
	size_t size;
	char member[48];
	snprintf(member, sizeof(member), "buffers[%zu]", index);
	hks_err_member(b->ctx, member);
	HKS_TRY(author_base64_decode(b->ctx, b->arena, payload, len, &data, &size));
	if (want > size)
		return fail_buffer(b->ctx, HKS_E_MALFORMED, index, "buffers[%zu]: byteLength %llu exceeds its %zu decoded bytes",
		                   index, (unsigned long long)want, size);
	b->items[index].data = data;
	b->items[index].loaded = 1;
	return HKS_OK;
}

/* Percent-decode a relative reference and check that it stays below the base
 * folder. Returns the decoded path (arena) or NULL with the error recorded. */
static char *decode_relative_uri(author_buffers *b, size_t index, const char *uri)
{
	hks_ctx *ctx = b->ctx;
	size_t n = strlen(uri);
	if (!n) {
		fail_buffer(ctx, HKS_E_MALFORMED, index, "buffers[%zu]: empty uri", index);
		return NULL;
	}
	if (has_scheme(uri)) {
		fail_buffer(ctx, HKS_E_UNSUPPORTED, index,
		            "buffers[%zu]: uri %.64s has a scheme; only data: URIs and relative file paths are read", index, uri);
		return NULL;
	}
	if (strpbrk(uri, "?#")) {
		fail_buffer(ctx, HKS_E_UNSUPPORTED, index, "buffers[%zu]: uri %.64s has a query or fragment", index, uri);
		return NULL;
	}
	char *path = (char *)hks_arena_alloc(b->arena, n + 1);
	if (!path)
		return NULL;
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		if (uri[i] != '%') {
			path[o++] = uri[i];
			continue;
		}
		int hi = i + 2 < n ? hex_value(uri[i + 1]) : -1, lo = i + 2 < n ? hex_value(uri[i + 2]) : -1;
		if (hi < 0 || lo < 0) {
			fail_buffer(ctx, HKS_E_MALFORMED, index, "buffers[%zu]: uri %.64s: '%%' at %zu is not followed by two hex digits",
			            index, uri, i);
			return NULL;
		}
		if (hi == 0 && lo == 0) {
			fail_buffer(ctx, HKS_E_MALFORMED, index, "buffers[%zu]: uri %.64s encodes a NUL byte", index, uri);
			return NULL;
		}
		path[o++] = (char)(hi << 4 | lo);
		i += 2;
	}
	path[o] = '\0';
	/* after decoding: a leading '/' (absolute or network path), a backslash (a
	 * separator or drive on Windows, never a URI character) or a ".." segment
	 * would leave the folder of the .gltf */
	if (path[0] == '/' || strchr(path, '\\')) {
		fail_buffer(ctx, HKS_E_UNSUPPORTED, index,
		            "buffers[%zu]: uri %.64s is an absolute path or holds a backslash; only paths relative to the "
		            ".gltf's folder are read",
		            index, uri);
		return NULL;
	}
	for (const char *seg = path; seg;) {
		const char *end = strchr(seg, '/');
		size_t len = end ? (size_t)(end - seg) : strlen(seg);
		if (len == 2 && seg[0] == '.' && seg[1] == '.') {
			fail_buffer(ctx, HKS_E_UNSUPPORTED, index,
			            "buffers[%zu]: uri %.64s leaves the .gltf's folder (\"..\"); move the file below it", index, uri);
			return NULL;
		}
		seg = end ? end + 1 : NULL;
	}
	return path;
}

hks_result author_buffers_declare(author_buffers *b, const json_t *root, const uint8_t *glb_bin, size_t glb_bin_size)
{
	hks_ctx *ctx = b->ctx;
	const json_t *bufs = json_object_get(root, "buffers");
	if (bufs && !json_is_array(bufs)) {
		hks_err_member(ctx, "buffers");
		return hks_fail(ctx, HKS_E_MALFORMED, -1, "buffers is not an array");
	}
	size_t n = bufs ? json_array_size(bufs) : 0;
	if (n > ctx->limits.max_objects)
		return hks_fail(ctx, HKS_E_LIMIT, -1, "%zu buffers exceed the object limit", n);
	b->count = n;
	b->items = (author_buffer *)hks_arena_array(b->arena, n + 1, sizeof(author_buffer));
	if (!b->items)
		return ctx->err && ctx->err->code ? ctx->err->code : HKS_E_NOMEM;
	for (size_t i = 0; i < n; i++) {
		const json_t *jb = json_array_get(bufs, i);
		const json_t *len = json_object_get(jb, "byteLength"), *juri = json_object_get(jb, "uri");
		const char *uri = json_string_value(juri);
		/* glTF 2.0 §5.10: byteLength >= 1 */
		if (!json_is_integer(len) || json_integer_value(len) < 1)
			return fail_buffer(ctx, HKS_E_MALFORMED, i, "buffers[%zu]: byteLength missing or below 1", i);
		if (juri && !uri)
			return fail_buffer(ctx, HKS_E_MALFORMED, i, "buffers[%zu]: uri is not a string", i);
		uint64_t want = (uint64_t)json_integer_value(len);
		author_buffer *it = &b->items[i];
		it->size = (size_t)want;
		if ((uint64_t)it->size != want)
			return fail_buffer(ctx, HKS_E_LIMIT, i, "buffers[%zu]: byteLength %llu does not fit in memory", i,
			                   (unsigned long long)want);
		if (!uri) {
			/* glTF 2.0 §4.4.3.3: only the first buffer may be the GLB BIN chunk.
			 * Another buffer without uri has no data (e.g. the fallback buffer of
			 * EXT_meshopt_compression): an error only when an accessor uses it. */
			if (i != 0 || !glb_bin)
				continue;
			if (want > glb_bin_size)
				return fail_buffer(ctx, HKS_E_MALFORMED, i, "buffers[%zu]: byteLength %llu exceeds the BIN chunk's %zu bytes",
				                   i, (unsigned long long)want, glb_bin_size);
			it->data = glb_bin;
			it->loaded = 1;
			continue;
		}
		if (starts_with_ci(uri, "data:")) {
			HKS_TRY(decode_data_uri(b, i, uri, want));
			continue;
		}
		/* an external file: checked now, read on first use */
		if (!b->source_path && !b->loader.open)
			return fail_buffer(ctx, HKS_E_UNSUPPORTED, i,
			                   "buffers[%zu] refers to an external file (%.64s) and no folder was given "
			                   "(hks_gltf_read_options.source_path / loader)",
			                   i, uri);
		it->uri = decode_relative_uri(b, i, uri);
		if (!it->uri)
			return ctx->err && ctx->err->code ? ctx->err->code : HKS_E_NOMEM;
	}
	return HKS_OK;
}

/* source_path's folder (up to its last separator) + the decoded relative uri. */
static char *resolve(author_buffers *b, const char *rel)
{
	const char *base = b->source_path ? b->source_path : "";
	size_t dir = 0;
	for (size_t i = 0; base[i]; i++)
		if (base[i] == '/' || base[i] == '\\')
			dir = i + 1;
	size_t n = strlen(rel);
	char *p = (char *)hks_arena_alloc(b->arena, dir + n + 1);
	if (!p)
		return NULL;
	memcpy(p, base, dir);
	memcpy(p + dir, rel, n + 1);
	return p;
}

#ifndef _WIN32
/* Open an external buffer only when it is a regular file inside the .gltf's folder once every
 * symlink is resolved (issue 17 L3: a link must not carry another folder's bytes into the output),
 * without blocking on a FIFO. NULL after recording the error. */
static FILE *open_inside(author_buffers *b, size_t index, const char *path, hks_result *r)
{
	hks_ctx *ctx = b->ctx;
	const char *base = b->source_path ? b->source_path : "";
	size_t dir = 0;
	for (size_t i = 0; base[i]; i++)
		if (base[i] == '/')
			dir = i + 1;
	char folder[4096];
	snprintf(folder, sizeof(folder), "%.*s", dir ? (int)dir : 1, dir ? base : ".");
	char *real_dir = realpath(folder, NULL), *real = realpath(path, NULL);
	size_t n = real_dir ? strlen(real_dir) : 0;
	bool inside = real_dir && real && !strncmp(real, real_dir, n) && (real[n] == '/' || (n == 1 && real[0] == '/'));
	FILE *f = NULL;
	if (!real)
		*r = fail_buffer(ctx, HKS_E_NOT_FOUND, index, "buffers[%zu]: cannot open %s", index, path);
	else if (!inside)
		*r = fail_buffer(ctx, HKS_E_IO, index, "buffers[%zu]: %s leads outside the folder of the .gltf (a link?)",
		                 index, path);
	else {
		int fd = open(real, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
		struct stat st;
		if (fd < 0)
			*r = fail_buffer(ctx, HKS_E_NOT_FOUND, index, "buffers[%zu]: cannot open %s", index, path);
		else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
			close(fd);
			*r = fail_buffer(ctx, HKS_E_IO, index, "buffers[%zu]: %s is not a regular file", index, path);
		} else {
			int fl = fcntl(fd, F_GETFL);
			if (fl >= 0)
				(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
			f = fdopen(fd, "rb");
			if (!f) {
				close(fd);
				*r = fail_buffer(ctx, HKS_E_IO, index, "buffers[%zu]: cannot open %s", index, path);
			}
		}
	}
	free(real_dir);
	free(real);
	return f;
}
#endif

/* Read the first `want` bytes of `path` (stdio), after checking its size. */
static hks_result read_file(author_buffers *b, size_t index, const char *path, author_buffer *it)
{
	hks_ctx *ctx = b->ctx;
#ifdef _WIN32
	FILE *f = hks_platform_fopen(path, "rb");
	if (!f)
		return fail_buffer(ctx, HKS_E_NOT_FOUND, index, "buffers[%zu]: cannot open %s", index, path);
#else
	hks_result open_r = HKS_OK;
	FILE *f = open_inside(b, index, path, &open_r);
	if (!f)
		return open_r;
#endif
	long end = -1;
	if (fseek(f, 0, SEEK_END) == 0)
		end = ftell(f);
	if (end < 0 || fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		return fail_buffer(ctx, HKS_E_IO, index, "buffers[%zu]: cannot read %s (not a regular file?)", index, path);
	}
	if ((uint64_t)end < (uint64_t)it->size) {
		fclose(f);
		return fail_buffer(ctx, HKS_E_TRUNCATED, index, "buffers[%zu]: byteLength %zu but %s has %ld bytes", index,
		                   it->size, path, end);
	}
	void *p = hks_malloc(ctx, it->size);
	if (!p) {
		fclose(f);
		return ctx->err && ctx->err->code ? ctx->err->code : HKS_E_NOMEM;
	}
	size_t got = fread(p, 1, it->size, f);
	fclose(f);
	if (got != it->size) {
		hks_free(ctx, p, it->size);
		return fail_buffer(ctx, HKS_E_IO, index, "buffers[%zu]: reading %s stopped after %zu of %zu bytes", index, path,
		                   got, it->size);
	}
	it->owned = p;
	it->data = (const uint8_t *)p;
	return HKS_OK;
}

hks_result author_buffer_get(author_buffers *b, size_t index, const author_buffer **out)
{
	author_buffer *it = &b->items[index];
	*out = it;
	if (it->loaded)
		return HKS_OK;
	hks_ctx *ctx = b->ctx;
	if (!it->uri)
		return fail_buffer(ctx, HKS_E_MALFORMED, index,
		                   "buffers[%zu] has no uri and is not a GLB BIN chunk: it holds no data (an extension's "
		                   "fallback buffer?)",
		                   index);
	char *path = resolve(b, it->uri);
	if (!path)
		return ctx->err && ctx->err->code ? ctx->err->code : HKS_E_NOMEM;
	if (!b->loader.open) {
		HKS_TRY(read_file(b, index, path, it));
	} else {
		const void *data = NULL;
		size_t size = 0;
		hks_result r = b->loader.open(b->loader.user, path, (uint64_t)it->size, &data, &size);
		if (r != HKS_OK || !data) {
			if (r == HKS_OK && b->loader.close)
				b->loader.close(b->loader.user, data, size);
			return fail_buffer(ctx, r != HKS_OK ? r : HKS_E_IO, index, "buffers[%zu]: the loader could not open %s (%s)",
			                   index, path, hks_result_name(r != HKS_OK ? r : HKS_E_IO));
		}
		it->lent = data;
		it->lent_size = size;
		if (size < it->size)
			return fail_buffer(ctx, HKS_E_TRUNCATED, index, "buffers[%zu]: byteLength %zu but %s has %zu bytes", index,
			                   it->size, path, size);
		it->data = (const uint8_t *)data;
	}
	it->loaded = 1;
	return HKS_OK;
}

void author_buffers_release(author_buffers *b)
{
	for (size_t i = 0; b->items && i < b->count; i++) {
		author_buffer *it = &b->items[i];
		if (it->owned)
			hks_free(b->ctx, it->owned, it->size);
		if (it->lent && b->loader.close)
			b->loader.close(b->loader.user, it->lent, it->lent_size);
		it->owned = NULL;
		it->lent = NULL;
		it->data = NULL;
		it->loaded = 0;
	}
}
