/*
 * Hand-made hostile glTF (issue 17), written here: many channels sharing one
 * sparse key-time accessor (L2: validated and copied once; the bytes the
 * allocator hands out are counted, not the time), external buffers that are
 * a symlink out of the folder or a FIFO (L3), huge accessor counts,
 * byteOffset + count x stride past the view, sparse indices out of range,
 * non-finite and decreasing key times, skins with missing or repeated joints.
 * Each import ends in a clean error (code, member named) or a valid result.
 */
#define _DEFAULT_SOURCE
#include "hks_test.h"
#include "hks_hostile.h"

#include "../tests/fuzz/synth.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int setup(void **state)
{
	(void)state;
	return hks_hostile_setup("hks_hostile_g");
}

static int teardown(void **state)
{
	(void)state;
	return hks_hostile_teardown();
}

/* ---- a growable text ---- */
typedef struct text {
	char *p;
	size_t n, cap;
} text;

static void put(text *t, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		va_start(ap, fmt);
		int k = vsnprintf(t->p ? t->p + t->n : NULL, t->p ? t->cap - t->n : 0, fmt, ap);
		va_end(ap);
		assert_true(k >= 0);
		if (t->p && t->n + (size_t)k < t->cap) {
			t->n += (size_t)k;
			return;
		}
		t->cap = (t->cap + (size_t)k + 1) * 2;
		t->p = (char *)realloc(t->p, t->cap);
		assert_non_null(t->p);
	}
}

static void put_base64(text *t, const uint8_t *d, size_t n)
{
	static const char tb[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)d[i] << 16 | (i + 1 < n ? (uint32_t)d[i + 1] << 8 : 0) | (i + 2 < n ? d[i + 2] : 0);
		char q[5] = {tb[(v >> 18) & 63], tb[(v >> 12) & 63], i + 1 < n ? tb[(v >> 6) & 63] : '=',
		             i + 2 < n ? tb[v & 63] : '=', 0};
		put(t, "%s", q);
	}
}

/* A counting allocator: total bytes handed out. */
typedef struct counting {
	uint64_t total;
} counting;
static void *c_alloc(void *u, size_t s)
{
	((counting *)u)->total += s;
	return malloc(s ? s : 1);
}
static void *c_realloc(void *u, void *p, size_t o, size_t s)
{
	if (s > o)
		((counting *)u)->total += s - o;
	return realloc(p, s ? s : 1);
}
static void c_free(void *u, void *p, size_t s)
{
	(void)u;
	(void)s;
	free(p);
}

static hks_result import(const char *json, size_t n, const char *source_path, counting *c, hks_error *err)
{
	hks_gltf_read_options ro;
	memset(&ro, 0, sizeof(ro));
	ro.animation = -1;
	ro.source_path = source_path;
	if (c)
		ro.base.allocator = (hks_allocator){c_alloc, c_realloc, c_free, c};
	hks_gltf_animation *a = NULL;
	hks_result r = hks_gltf_read(json, n, synth_skeleton(), &ro, &a, err);
	if (r == HKS_OK) {
		assert_non_null(a);
		hks_gltf_animation_free(a);
	} else {
		assert_null(a);
		assert_int_not_equal(err->code, HKS_OK);
	}
	return r;
}

/* The nodes root/spine/head as a chain. */
static void put_nodes(text *t)
{
	put(t, "\"nodes\":[{\"name\":\"root\",\"children\":[1]},{\"name\":\"spine\",\"children\":[2],\"translation\":[0,1,0]},"
	       "{\"name\":\"head\",\"translation\":[0,0.5,0]}],\"scenes\":[{\"nodes\":[0]}],\"scene\":0,");
}

/* L2: C channels on one sampler whose key-time input is a sparse accessor of K keys (no
 * bufferView: its dense copy is K x 4 bytes). Returns the bytes the allocator handed out. */
static uint64_t shared_sampler_bytes(uint32_t C, uint32_t K)
{
	size_t bn = (size_t)K * 12 + (size_t)K * 4 + (size_t)K * 4;
	uint8_t *bin = (uint8_t *)calloc(bn, 1);
	for (uint32_t i = 0; i < K; i++) {
		float x = (float)i * 0.01f, t = (float)i / 30.0f;
		memcpy(bin + (size_t)i * 12, &x, 4);                  /* output VEC3 */
		uint32_t idx = i;
		memcpy(bin + (size_t)K * 12 + (size_t)i * 4, &idx, 4); /* sparse indices (u32) */
		memcpy(bin + (size_t)K * 16 + (size_t)i * 4, &t, 4);   /* sparse values: the times */
	}
	text t = {0};
	put(&t, "{\"asset\":{\"version\":\"2.0\"},");
	put_nodes(&t);
	put(&t, "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,", bn);
	put_base64(&t, bin, bn);
	put(&t, "\"}],\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":%u},"
	        "{\"buffer\":0,\"byteOffset\":%u,\"byteLength\":%u},{\"buffer\":0,\"byteOffset\":%u,\"byteLength\":%u}],",
	    K * 12, K * 12, K * 4, K * 16, K * 4);
	put(&t, "\"accessors\":[{\"componentType\":5126,\"type\":\"SCALAR\",\"count\":%u,\"min\":[0],\"max\":[%g],"
	        "\"sparse\":{\"count\":%u,\"indices\":{\"bufferView\":1,\"componentType\":5125},\"values\":{\"bufferView\":2}}},"
	        "{\"bufferView\":0,\"componentType\":5126,\"type\":\"VEC3\",\"count\":%u}],",
	    K, (double)(K - 1) / 30.0, K, K);
	put(&t, "\"animations\":[{\"samplers\":[{\"input\":0,\"output\":1}],\"channels\":[");
	for (uint32_t c = 0; c < C; c++)
		put(&t, "%s{\"sampler\":0,\"target\":{\"node\":%u,\"path\":\"translation\"}}", c ? "," : "", c % 3);
	put(&t, "]}]}");
	counting cnt = {0};
	hks_error err;
	hks_result r = import(t.p, t.n, NULL, &cnt, &err);
	if (r != HKS_OK)
		printf("import: %s\n", err.message);
	assert_int_equal(r, HKS_OK);
	free(t.p);
	free(bin);
	return cnt.total;
}

static void test_shared_key_times(void **state)
{
	(void)state;
	uint32_t K = 3000;
	uint64_t few = shared_sampler_bytes(3, K), many = shared_sampler_bytes(600, K);
	/* 600 channels must not cost 200 times what 3 cost: the shared accessor is copied once. Each
	 * channel's own record is a few dozen bytes; a copy per channel would add 600 x 12 KB. */
	printf("allocated: 3 channels %llu bytes, 600 channels %llu bytes\n", (unsigned long long)few,
	       (unsigned long long)many);
	assert_true(many > few);
	assert_true(many - few < (uint64_t)600 * 2048);
}

/* A .gltf with one external buffer "ext.bin" and a plain animation using it. */
static void write_external_gltf(const char *dir, uint32_t K)
{
	text t = {0};
	put(&t, "{\"asset\":{\"version\":\"2.0\"},");
	put_nodes(&t);
	put(&t, "\"buffers\":[{\"byteLength\":%u,\"uri\":\"ext.bin\"}],"
	        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":%u},{\"buffer\":0,\"byteOffset\":%u,\"byteLength\":%u}],"
	        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"type\":\"SCALAR\",\"count\":%u,\"min\":[0],"
	        "\"max\":[1]},{\"bufferView\":1,\"componentType\":5126,\"type\":\"VEC3\",\"count\":%u}],"
	        "\"animations\":[{\"samplers\":[{\"input\":0,\"output\":1}],\"channels\":[{\"sampler\":0,\"target\":"
	        "{\"node\":0,\"path\":\"translation\"}}]}]}",
	    K * 16, K * 4, K * 4, K * 12, K, K);
	char p[600];
	snprintf(p, sizeof(p), "%s/a.gltf", dir);
	hks_hostile_write(p, t.p, t.n);
	free(t.p);
}

static uint8_t *external_bytes(uint32_t K, size_t *n)
{
	*n = (size_t)K * 16;
	uint8_t *b = (uint8_t *)calloc(*n, 1);
	for (uint32_t i = 0; i < K; i++) {
		float tt = (float)i / (float)(K - 1);
		memcpy(b + (size_t)i * 4, &tt, 4);
	}
	return b;
}

static hks_result import_file(const char *gltf, hks_error *err)
{
	size_t n = 0;
	uint8_t *j = hks_test_read_file(gltf, &n);
	assert_non_null(j);
	hks_result r = import((const char *)j, n, gltf, NULL, err);
	free(j);
	return r;
}

static void test_external_buffers(void **state)
{
	(void)state;
	const uint32_t K = 8;
	size_t bn = 0;
	uint8_t *b = external_bytes(K, &bn);
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/ok' '%s/link' '%s/fifo' '%s/secret'", hks_hostile_root(), hks_hostile_root(), hks_hostile_root(),
	         hks_hostile_root());
	assert_int_equal(system(cmd), 0);
	hks_error err;
	/* a regular file beside the .gltf: imports */
	write_external_gltf(hks_hostile_path("ok"), K);
	hks_hostile_write(hks_hostile_path("ok/ext.bin"), b, bn);
	assert_int_equal(import_file(hks_hostile_path("ok/a.gltf"), &err), HKS_OK);
	/* a symlink to a file in another folder: refused, naming the buffer */
	write_external_gltf(hks_hostile_path("link"), K);
	hks_hostile_write(hks_hostile_path("secret/data.bin"), b, bn);
	assert_int_equal(symlink("../secret/data.bin", hks_hostile_path("link/ext.bin")), 0);
	assert_int_equal(import_file(hks_hostile_path("link/a.gltf"), &err), HKS_E_IO);
	assert_non_null(strstr(err.message, "outside the folder"));
	assert_string_equal(err.member, "buffers[0]");
	/* a FIFO: refused at once (an alarm turns a hang into a failure) */
	write_external_gltf(hks_hostile_path("fifo"), K);
	assert_int_equal(mkfifo(hks_hostile_path("fifo/ext.bin"), 0600), 0);
	alarm(60);
	assert_int_equal(import_file(hks_hostile_path("fifo/a.gltf"), &err), HKS_E_IO);
	alarm(0);
	assert_non_null(strstr(err.message, "not a regular file"));
	free(b);
}

/* One-sampler animations with a hostile accessor or key times: each a clean error. */
static hks_result one_sampler(const char *accessors, const char *views, uint32_t bytes, const uint8_t *bin)
{
	text t = {0};
	put(&t, "{\"asset\":{\"version\":\"2.0\"},");
	put_nodes(&t);
	put(&t, "\"buffers\":[{\"byteLength\":%u,\"uri\":\"data:application/octet-stream;base64,", bytes);
	put_base64(&t, bin, bytes);
	put(&t, "\"}],\"bufferViews\":%s,\"accessors\":%s,", views, accessors);
	put(&t, "\"animations\":[{\"samplers\":[{\"input\":0,\"output\":1}],\"channels\":[{\"sampler\":0,\"target\":"
	        "{\"node\":1,\"path\":\"translation\"}}]}]}");
	hks_error err;
	hks_result r = import(t.p, t.n, NULL, NULL, &err);
	if (r != HKS_OK) {
		assert_true(err.message[0] != '\0');
		assert_true(err.member[0] != '\0' || err.object[0] != '\0');
	}
	free(t.p);
	return r;
}

static void test_hostile_accessors(void **state)
{
	(void)state;
	uint8_t bin[256];
	memset(bin, 0, sizeof(bin));
	float times[4] = {0.0f, 0.5f, 1.0f, 1.5f};
	memcpy(bin, times, sizeof(times));
	const char *views = "[{\"buffer\":0,\"byteLength\":16},{\"buffer\":0,\"byteOffset\":16,\"byteLength\":48}]";
	/* valid */
	assert_int_equal(one_sampler("[{\"bufferView\":0,\"componentType\":5126,\"type\":\"SCALAR\",\"count\":4},"
	                             "{\"bufferView\":1,\"componentType\":5126,\"type\":\"VEC3\",\"count\":4}]",
	                             views, 64, bin),
	                 HKS_OK);
	/* a huge count */
	assert_int_not_equal(one_sampler("[{\"bufferView\":0,\"componentType\":5126,\"type\":\"SCALAR\",\"count\":4000000000},"
	                                 "{\"bufferView\":1,\"componentType\":5126,\"type\":\"VEC3\",\"count\":4}]",
	                                 views, 64, bin),
	                     HKS_OK);
	/* byteOffset + count x stride past the view, and near 2^63 */
	assert_int_not_equal(one_sampler("[{\"bufferView\":0,\"byteOffset\":8,\"componentType\":5126,\"type\":\"SCALAR\",\"count\":4},"
	                                 "{\"bufferView\":1,\"componentType\":5126,\"type\":\"VEC3\",\"count\":4}]",
	                                 views, 64, bin),
	                     HKS_OK);
	assert_int_not_equal(
	    one_sampler("[{\"bufferView\":0,\"byteOffset\":9223372036854775800,\"componentType\":5126,\"type\":\"SCALAR\","
	                "\"count\":4},{\"bufferView\":1,\"componentType\":5126,\"type\":\"VEC3\",\"count\":4}]",
	                views, 64, bin),
	    HKS_OK);
	/* a strided view whose last element runs past it */
	assert_int_not_equal(one_sampler("[{\"bufferView\":0,\"componentType\":5126,\"type\":\"SCALAR\",\"count\":4},"
	                                 "{\"bufferView\":1,\"componentType\":5126,\"type\":\"VEC3\",\"count\":4}]",
	                                 "[{\"buffer\":0,\"byteLength\":16},{\"buffer\":0,\"byteOffset\":16,\"byteLength\":48,"
	                                 "\"byteStride\":252}]",
	                                 64, bin),
	                     HKS_OK);
	/* sparse indices out of range */
	uint8_t sp[256];
	memcpy(sp, bin, sizeof(sp));
	uint32_t idx = 99;
	memcpy(sp + 64, &idx, 4);
	assert_int_not_equal(
	    one_sampler("[{\"bufferView\":0,\"componentType\":5126,\"type\":\"SCALAR\",\"count\":4},"
	                "{\"componentType\":5126,\"type\":\"VEC3\",\"count\":4,\"sparse\":{\"count\":1,\"indices\":"
	                "{\"bufferView\":2,\"componentType\":5125},\"values\":{\"bufferView\":3}}}]",
	                "[{\"buffer\":0,\"byteLength\":16},{\"buffer\":0,\"byteOffset\":16,\"byteLength\":48},"
	                "{\"buffer\":0,\"byteOffset\":64,\"byteLength\":4},{\"buffer\":0,\"byteOffset\":68,\"byteLength\":12}]",
	                80, sp),
	    HKS_OK);
	/* non-finite, decreasing, repeated key times; a single key (zero duration); negative times */
	static const float bad_times[][4] = {{0.0f, NAN, 1.0f, 2.0f}, {0.0f, INFINITY, 1.0f, 2.0f}, {0.0f, 1.0f, 0.5f, 2.0f},
	                                     {0.0f, 1.0f, 1.0f, 2.0f}, {-INFINITY, 0.0f, 1.0f, 2.0f}};
	for (size_t k = 0; k < sizeof(bad_times) / sizeof(bad_times[0]); k++) {
		uint8_t b2[64];
		memset(b2, 0, sizeof(b2));
		memcpy(b2, bad_times[k], 16);
		assert_int_not_equal(one_sampler("[{\"bufferView\":0,\"componentType\":5126,\"type\":\"SCALAR\",\"count\":4},"
		                                 "{\"bufferView\":1,\"componentType\":5126,\"type\":\"VEC3\",\"count\":4}]",
		                                 views, 64, b2),
		                     HKS_OK);
	}
	static const float neg[4] = {-2.0f, -1.0f, -0.5f, -0.25f};
	uint8_t b3[64];
	memset(b3, 0, sizeof(b3));
	memcpy(b3, neg, 16);
	hks_result r = one_sampler("[{\"bufferView\":0,\"componentType\":5126,\"type\":\"SCALAR\",\"count\":4},"
	                           "{\"bufferView\":1,\"componentType\":5126,\"type\":\"VEC3\",\"count\":4}]",
	                           views, 64, b3);
	assert_true(r == HKS_OK || r == HKS_E_MALFORMED || r == HKS_E_UNSUPPORTED);
	r = one_sampler("[{\"bufferView\":0,\"componentType\":5126,\"type\":\"SCALAR\",\"count\":1},"
	                "{\"bufferView\":1,\"componentType\":5126,\"type\":\"VEC3\",\"count\":1}]",
	                views, 64, bin);
	assert_true(r == HKS_OK || r == HKS_E_MALFORMED || r == HKS_E_UNSUPPORTED);
}

/* Skins whose joints are missing (an index past the nodes) or repeated: a clean result either way. */
static void test_hostile_skins(void **state)
{
	(void)state;
	static const char *const skins[] = {"[{\"joints\":[0,1,7]}]", "[{\"joints\":[0,0,0,1,1,2]}]", "[{\"joints\":[]}]",
	                                    "[{\"joints\":[-1]}]", "[{\"joints\":\"x\"}]"};
	uint8_t bin[64];
	memset(bin, 0, sizeof(bin));
	float times[4] = {0.0f, 0.5f, 1.0f, 1.5f};
	memcpy(bin, times, sizeof(times));
	for (size_t k = 0; k < sizeof(skins) / sizeof(skins[0]); k++) {
		text t = {0};
		put(&t, "{\"asset\":{\"version\":\"2.0\"},\"skins\":%s,", skins[k]);
		put_nodes(&t);
		put(&t, "\"buffers\":[{\"byteLength\":64,\"uri\":\"data:application/octet-stream;base64,");
		put_base64(&t, bin, 64);
		put(&t, "\"}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":16},{\"buffer\":0,\"byteOffset\":16,\"byteLength\":48}],"
		        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"type\":\"SCALAR\",\"count\":4},"
		        "{\"bufferView\":1,\"componentType\":5126,\"type\":\"VEC3\",\"count\":4}],"
		        "\"animations\":[{\"samplers\":[{\"input\":0,\"output\":1}],\"channels\":[{\"sampler\":0,\"target\":"
		        "{\"node\":1,\"path\":\"translation\"}}]}]}");
		hks_error err;
		hks_result r = import(t.p, t.n, NULL, NULL, &err);
		assert_true(r == HKS_OK || r == HKS_E_MALFORMED || r == HKS_E_NOT_FOUND);
		free(t.p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shared_key_times),
		cmocka_unit_test(test_external_buffers),
		cmocka_unit_test(test_hostile_accessors),
		cmocka_unit_test(test_hostile_skins),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
