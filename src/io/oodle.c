/*
 * Oodle through the user's own library (issue 14; hkspline.h section "DCX
 * codecs"). The games ship the Oodle core library beside their executable
 * (oo2core_6_win64.dll); hkspline loads it at run time and calls its two
 * documented entry points, OodleLZ_Decompress and OodleLZ_Compress (Kraken),
 * through the prototypes below (written from Oodle's public documentation of
 * the argument order; no Oodle header or code is used).
 *
 * Everything the library answers is checked: the decompressed size must be
 * exactly the DCX header's uncompressedSize and the output buffer is exactly
 * that size; a compressed size beyond the buffer is an error. The decoder is
 * always asked to be fuzz-safe (it must not crash on corrupt input).
 */
#if !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L
#endif
#include "internal.h"
#include "platform.h"
#include "oodle.h"

#include <ctype.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

enum {
	OODLE_FUZZ_SAFE_YES = 1,
	OODLE_CHECK_CRC_NO = 0,
	OODLE_VERBOSITY_NONE = 0,
	OODLE_THREAD_PHASE_ALL = 3,
	OODLE_COMPRESSOR_KRAKEN = 8
};

struct hks_oodle {
	void *lib;
	hks_oodle_decompress_fn decompress;
	hks_oodle_compress_fn compress;
	char *path;
};

static const hks_dcx_codec *g_default_codec;

void hks_dcx_set_default_codec(const hks_dcx_codec *codec)
{
	g_default_codec = codec;
}

const hks_dcx_codec *hks_dcx_codec_for(const hks_options *opts)
{
	if (opts && opts->dcx_codec)
		return opts->dcx_codec;
	return g_default_codec;
}

static void *symbol(void *lib, const char *name)
{
	return hks_platform_dlsym(lib, name);
}

hks_result hks_oodle_open(const char *path, hks_oodle **out, hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, NULL, 0, err);
	if (!path || !out)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_oodle_open: NULL argument");
	*out = NULL;
	ctx.file = path;
	hks_err_object(&ctx, "Oodle library");
	if (hks_platform_path_kind(path) != HKS_PATH_FILE)
		return hks_fail(&ctx, HKS_E_IO, -1, "no such file");
	void *lib = hks_platform_dlopen(path);
	if (!lib) {
		char why[512];
		return hks_fail(&ctx, HKS_E_IO, -1, "cannot load the library: %s", hks_platform_dlerror(why, sizeof(why)));
	}
	void *d = symbol(lib, "OodleLZ_Decompress");
	if (!d) {
		hks_platform_dlclose(lib);
		return hks_fail(&ctx, HKS_E_UNSUPPORTED, -1, "the library has no OodleLZ_Decompress: not an Oodle core library");
	}
	void *c = symbol(lib, "OodleLZ_Compress");
	hks_oodle *o = (hks_oodle *)calloc(1, sizeof(hks_oodle));
	char *copy = o ? hks_platform_strndup(path, strlen(path)) : NULL;
	if (!o || !copy) {
		free(o);
		hks_platform_dlclose(lib);
		return hks_fail_nomem(&ctx, sizeof(hks_oodle));
	}
	o->lib = lib;
	memcpy(&o->decompress, &d, sizeof(d)); /* object pointer -> function pointer */
	if (c)
		memcpy(&o->compress, &c, sizeof(c));
	o->path = copy;
	*out = o;
	return HKS_OK;
}

hks_result hks_oodle_from_entry_points(const char *label, hks_oodle_decompress_fn decompress,
                                       hks_oodle_compress_fn compress, hks_oodle **out, hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, NULL, 0, err);
	if (!label || !decompress || !out)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_oodle_from_entry_points: NULL argument");
	*out = NULL;
	hks_oodle *o = (hks_oodle *)calloc(1, sizeof(hks_oodle));
	char *copy = o ? hks_platform_strndup(label, strlen(label)) : NULL;
	if (!o || !copy) {
		free(o);
		return hks_fail_nomem(&ctx, sizeof(hks_oodle));
	}
	o->decompress = decompress;
	o->compress = compress;
	o->path = copy;
	*out = o;
	return HKS_OK;
}

void hks_oodle_close(hks_oodle *o)
{
	if (!o)
		return;
	hks_platform_dlclose(o->lib);
	free(o->path);
	free(o);
}

const char *hks_oodle_path(const hks_oodle *o)
{
	return o ? o->path : NULL;
}

int hks_oodle_can_compress(const hks_oodle *o)
{
	return o && o->compress;
}

static int64_t oodle_decompress(void *user, const char *tag, const char *name, const uint8_t *src, size_t src_size,
                                uint8_t *dst, size_t dst_size, char *msg, size_t msg_size)
{
	(void)name;
	hks_oodle *o = (hks_oodle *)user;
	if (strcmp(tag, "KRAK") != 0) {
		snprintf(msg, msg_size, "the Oodle library decodes KRAK, not %s", tag);
		return -1;
	}
	if (src_size > (size_t)INTPTR_MAX || dst_size > (size_t)INTPTR_MAX) {
		snprintf(msg, msg_size, "payload too large for OodleLZ_Decompress");
		return -1;
	}
	/* A library that reports more bytes than it wrote must not hand heap
	 * garbage to the caller: the bytes it did not write are zero. */
	if (dst_size)
		memset(dst, 0, dst_size);
	intptr_t n = o->decompress(src, (intptr_t)src_size, dst, (intptr_t)dst_size, OODLE_FUZZ_SAFE_YES,
	                           OODLE_CHECK_CRC_NO, OODLE_VERBOSITY_NONE, NULL, 0, NULL, NULL, NULL, 0,
	                           OODLE_THREAD_PHASE_ALL);
	if (n <= 0) {
		snprintf(msg, msg_size, "OodleLZ_Decompress of %s failed (returned %lld: corrupt or not Kraken data)",
		         o->path, (long long)n);
		return -1;
	}
	return (int64_t)n;
}

static int64_t oodle_compress(void *user, const char *tag, int level, const char *name, const uint8_t *src,
                              size_t src_size, uint8_t *dst, size_t dst_cap, char *msg, size_t msg_size)
{
	(void)name;
	hks_oodle *o = (hks_oodle *)user;
	if (!o->compress) {
		snprintf(msg, msg_size, "%s has no OodleLZ_Compress", o->path);
		return -1;
	}
	if (strcmp(tag, "KRAK") != 0) {
		snprintf(msg, msg_size, "the Oodle library writes KRAK, not %s", tag);
		return -1;
	}
	if (src_size > (size_t)INTPTR_MAX / 4) {
		snprintf(msg, msg_size, "payload too large for OodleLZ_Compress");
		return -1;
	}
	/* as for decompression: bytes it claims but did not write are zero */
	if (dst_cap)
		memset(dst, 0, dst_cap);
	intptr_t n = o->compress(OODLE_COMPRESSOR_KRAKEN, src, (intptr_t)src_size, dst, level, NULL, NULL, NULL, NULL, 0);
	if (n <= 0) {
		snprintf(msg, msg_size, "OodleLZ_Compress of %s failed (returned %lld)", o->path, (long long)n);
		return -1;
	}
	/* n > dst_cap is checked by the writer */
	return (int64_t)n;
}

void hks_oodle_codec(hks_oodle *o, hks_dcx_codec *out)
{
	memset(out, 0, sizeof(*out));
	out->decompress = oodle_decompress;
	out->compress = o && o->compress ? oodle_compress : NULL;
	out->user = o;
}

/* ---- the library search ---------------------------------------------- */

static int library_name(const char *n)
{
#if HKS_PLATFORM_WINDOWS
	/* oo2core_*_win64.dll, any case */
	size_t len = strlen(n);
	const char *pre = "oo2core_", *suf = "_win64.dll";
	size_t a = strlen(pre), b = strlen(suf);
	if (len < a + b)
		return 0;
	for (size_t i = 0; i < a; i++)
		if (tolower((unsigned char)n[i]) != pre[i])
			return 0;
	for (size_t i = 0; i < b; i++)
		if (tolower((unsigned char)n[len - b + i]) != suf[i])
			return 0;
	return 1;
#else
	/* liboo2core*.so and liboo2core*.so.N */
	if (strncmp(n, "liboo2core", 10) != 0)
		return 0;
	const char *so = strstr(n + 10, ".so");
	return so && (so[3] == '\0' || so[3] == '.');
#endif
}

/* The first library name (sorted) in folder `dir`, written as a path. */
static int find_in(const char *dir, char *out, size_t out_size)
{
	hks_dir *d = hks_platform_opendir(dir);
	if (!d)
		return 0;
	char best[1024] = "";
	const char *e;
	while ((e = hks_platform_readdir(d)) != NULL)
		if (library_name(e) && strlen(e) < sizeof(best) && (!best[0] || strcmp(e, best) < 0))
			snprintf(best, sizeof(best), "%s", e);
	hks_platform_closedir(d);
	if (!best[0])
		return 0;
	size_t n = strlen(dir);
	int sep = n > 0 && !hks_platform_is_separator(dir[n - 1]);
	char joint[2] = {sep ? hks_platform_separator_for(dir) : '\0', '\0'};
	int w = snprintf(out, out_size, "%s%s%s", dir, joint, best);
	return w > 0 && (size_t)w < out_size && hks_platform_path_kind(out) == HKS_PATH_FILE;
}

static int is_absolute(const char *p)
{
	if (hks_platform_is_separator(p[0]))
		return 1;
	return HKS_PLATFORM_WINDOWS && p[0] && p[1] == ':';
}

int hks_oodle_find(const char *near, char *out, size_t out_size)
{
	if (!near || !*near || !out || !out_size)
		return 0;
	/* an absolute folder path to walk up textually */
	char cwd[4096] = "";
	if (!is_absolute(near) && !hks_platform_getcwd(cwd, sizeof(cwd)))
		return 0;
	size_t n = strlen(cwd) + 1 + strlen(near);
	char *dir = (char *)malloc(n + 3);
	if (!dir)
		return 0;
	char joint[2] = {cwd[0] ? hks_platform_separator_for(cwd) : '\0', '\0'};
	snprintf(dir, n + 3, "%s%s%s", cwd, joint, near);
	/* A BINDER:MEMBER name: the binder is the shortest prefix before a ':' that is a file, as the
	 * loader splits it (docs/CLI.md; a member's full name holds a drive's ':' too, and a drive letter
	 * "C:" is not a binder). */
	if (hks_platform_path_kind(dir) == HKS_PATH_NONE) {
		for (char *colon = strlen(dir) > 2 ? strchr(dir + 2, ':') : NULL; colon; colon = strchr(colon + 1, ':')) {
			*colon = '\0';
			if (hks_platform_path_kind(dir) == HKS_PATH_FILE)
				break;
			*colon = ':';
		}
	}
	int is_dir = hks_platform_path_kind(dir) == HKS_PATH_DIR;
	int found = 0;
	for (int depth = 0; depth < 256; depth++) {
		if (is_dir && (found = find_in(dir, out, out_size)) != 0)
			break;
		is_dir = 1;
		/* the parent: drop trailing separators, then the last component */
		size_t len = strlen(dir);
		while (len > 1 && hks_platform_is_separator(dir[len - 1]))
			dir[--len] = '\0';
		const char *sep = hks_platform_last_separator(dir);
		if (!sep)
			break;
		size_t keep = (size_t)(sep - dir);
		if (keep == 0 || (HKS_PLATFORM_WINDOWS && keep == 2 && dir[1] == ':'))
			keep++; /* the root keeps its separator */
		if (keep >= len)
			break; /* already the root */
		dir[keep] = '\0';
	}
	free(dir);
	return found;
}

/* ---- the CLI's codec: explicit path, environment, folder search ------- */

struct hks_oodle_auto {
	hks_dcx_codec codec;
	char *explicit_path;
	hks_mutex lock;
	hks_oodle *oodle;        /* once loaded, under lock */
	hks_dcx_codec inner;     /* its codec */
	size_t missing;          /* under lock */
};

/* The loaded library, loading it for `name` first when needed. NULL with msg. */
static hks_oodle *auto_resolve(hks_oodle_auto *a, const char *name, char *msg, size_t msg_size, int counting)
{
	hks_mutex_lock(&a->lock);
	hks_oodle *o = a->oodle;
	if (!o) {
		const char *env = getenv("HKSPLINE_OODLE");
		char found[4096];
		const char *path = NULL, *how = NULL;
		if (a->explicit_path) {
			path = a->explicit_path;
			how = "--oodle";
		} else if (env && *env) {
			path = env;
			how = "HKSPLINE_OODLE";
		} else if (name && hks_oodle_find(name, found, sizeof(found))) {
			path = found;
			how = "found beside the input";
		}
		if (!path) {
			snprintf(msg, msg_size, "no Oodle library given or found beside the input or above (%s)",
			         HKS_PLATFORM_WINDOWS ? "oo2core_*_win64.dll" : "liboo2core*.so");
		} else {
			hks_error e;
			if (hks_oodle_open(path, &o, &e) == HKS_OK) {
				a->oodle = o;
				hks_oodle_codec(o, &a->inner);
			} else {
				char why[1024];
				hks_error_format(&e, why, sizeof(why));
				snprintf(msg, msg_size, "the Oodle library %s (%s) is not usable: %s", path, how, why);
				o = NULL;
			}
		}
		if (!o && counting)
			a->missing++;
	}
	hks_mutex_unlock(&a->lock);
	return o;
}

static int64_t auto_decompress(void *user, const char *tag, const char *name, const uint8_t *src, size_t src_size,
                               uint8_t *dst, size_t dst_size, char *msg, size_t msg_size)
{
	hks_oodle_auto *a = (hks_oodle_auto *)user;
	if (!auto_resolve(a, name, msg, msg_size, 1))
		return HKS_DCX_CODEC_UNAVAILABLE;
	return a->inner.decompress(a->inner.user, tag, name, src, src_size, dst, dst_size, msg, msg_size);
}

static int64_t auto_compress(void *user, const char *tag, int level, const char *name, const uint8_t *src,
                             size_t src_size, uint8_t *dst, size_t dst_cap, char *msg, size_t msg_size)
{
	hks_oodle_auto *a = (hks_oodle_auto *)user;
	if (!auto_resolve(a, name, msg, msg_size, 0))
		return HKS_DCX_CODEC_UNAVAILABLE;
	if (!a->inner.compress) {
		snprintf(msg, msg_size, "%s has no OodleLZ_Compress", hks_oodle_path(a->oodle));
		return -1;
	}
	return a->inner.compress(a->inner.user, tag, level, name, src, src_size, dst, dst_cap, msg, msg_size);
}

static void auto_note(void *user, const char *message)
{
	(void)user;
	fprintf(stderr, "hkspline: note: %s\n", message);
}

hks_result hks_oodle_auto_create(const char *explicit_path, hks_oodle_auto **out, hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, NULL, 0, err);
	if (!out)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_oodle_auto_create: NULL argument");
	*out = NULL;
	hks_oodle_auto *a = (hks_oodle_auto *)calloc(1, sizeof(hks_oodle_auto));
	if (!a)
		return hks_fail_nomem(&ctx, sizeof(hks_oodle_auto));
	if (explicit_path && !(a->explicit_path = hks_platform_strndup(explicit_path, strlen(explicit_path)))) {
		free(a);
		return hks_fail_nomem(&ctx, strlen(explicit_path));
	}
	if (hks_mutex_init(&a->lock) != 0) {
		free(a->explicit_path);
		free(a);
		return hks_fail(&ctx, HKS_E_INTERNAL, -1, "mutex initialisation failed");
	}
	a->codec.decompress = auto_decompress;
	a->codec.compress = auto_compress;
	a->codec.note = auto_note;
	a->codec.user = a;
	*out = a;
	return HKS_OK;
}

const hks_dcx_codec *hks_oodle_auto_codec(hks_oodle_auto *a)
{
	return a ? &a->codec : NULL;
}

size_t hks_oodle_auto_missing(const hks_oodle_auto *a)
{
	if (!a)
		return 0;
	hks_oodle_auto *m = (hks_oodle_auto *)a;
	hks_mutex_lock(&m->lock);
	size_t n = m->missing;
	hks_mutex_unlock(&m->lock);
	return n;
}

void hks_oodle_auto_free(hks_oodle_auto *a)
{
	if (!a)
		return;
	if (g_default_codec == &a->codec)
		g_default_codec = NULL;
	hks_oodle_close(a->oodle);
	hks_mutex_destroy(&a->lock);
	free(a->explicit_path);
	free(a);
}
