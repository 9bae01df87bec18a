/*
 * Hostile-input sweep in the style of ufbx, on real files: for the smallest
 * corpus file of each container kind and SDK, every truncation length, a
 * changed byte at every position (of files up to SWEEP_FLIP_MAX bytes), and
 * the failure of every allocation. Each must end in a clean error or a valid
 * result, with no crash, no sanitizer report and no leak.
 */
#include "hks_test.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SWEEP_FLIP_MAX 40000u

typedef struct counting {
	long allocs;
	long fail_at; /* 1-based; 0 = never */
	long long live;
	long long peak;
} counting;

static void *c_alloc(void *u, size_t n)
{
	counting *c = (counting *)u;
	if (++c->allocs == c->fail_at)
		return NULL;
	void *p = malloc(n);
	if (p) {
		c->live += (long long)n;
		if (c->live > c->peak)
			c->peak = c->live;
	}
	return p;
}
static void *c_realloc(void *u, void *p, size_t o, size_t n)
{
	counting *c = (counting *)u;
	if (++c->allocs == c->fail_at)
		return NULL;
	void *q = realloc(p, n);
	if (q) {
		c->live += (long long)n - (long long)o;
		if (c->live > c->peak)
			c->peak = c->live;
	}
	return q;
}
static void c_free(void *u, void *p, size_t n)
{
	counting *c = (counting *)u;
	c->live -= (long long)n;
	free(p);
}

typedef struct sample {
	char key[64];
	char *path;
	size_t size;
} sample;

static hks_compendium_set *g_set;

static void index_compendiums(const char *corpus)
{
	size_t n = 0;
	char **files = hks_test_list_files(corpus, ".compendium", &n);
	hks_error err;
	if (hks_compendium_set_create(NULL, &g_set, &err) != HKS_OK) {
		g_set = NULL;
	} else {
		for (size_t i = 0; i < n; i++) {
			size_t size;
			uint8_t *d = hks_test_read_file(files[i], &size);
			if (d)
				hks_compendium_set_add(g_set, d, size, files[i], NULL, &err);
			free(d);
		}
	}
	hks_test_free_list(files, n);
}

/* One parse with an allocator; returns the result and checks for leaks. */
static hks_result parse(const uint8_t *d, size_t n, counting *cnt)
{
	hks_read_options ro;
	memset(&ro, 0, sizeof(ro));
	ro.base.allocator.alloc = c_alloc;
	ro.base.allocator.realloc = c_realloc;
	ro.base.allocator.free = c_free;
	ro.base.allocator.user = cnt;
	ro.compendiums = g_set;
	hks_file *f = NULL;
	hks_error err;
	hks_result r = hks_file_read(d, n, &ro, &f, &err);
	if (r == HKS_OK) {
		assert_non_null(f);
		hks_file_free(f);
	} else {
		assert_null(f);
		assert_int_equal(err.code, r);
		assert_true(err.message[0] != '\0');
	}
	assert_int_equal(cnt->live, 0);
	return r;
}

static void sweep_one(const sample *s)
{
	size_t n;
	uint8_t *d = hks_test_read_file(s->path, &n);
	assert_non_null(d);
	counting cnt = {0};
	hks_result full = parse(d, n, &cnt);
	long allocs = cnt.allocs;
	printf("  %-28s %8zu bytes  %s, %ld allocations, peak %lld bytes (%.1f x input)\n", s->key, n,
	       hks_result_name(full), allocs, cnt.peak, (double)cnt.peak / (double)n);
	/* every truncation length: on an exact-size copy so that reads past the end are caught */
	for (size_t len = 0; len < n; len++) {
		uint8_t *t = (uint8_t *)malloc(len ? len : 1);
		memcpy(t, d, len);
		memset(&cnt, 0, sizeof(cnt));
		parse(t, len, &cnt);
		free(t);
	}
	/* a changed byte at every position */
	if (n <= SWEEP_FLIP_MAX) {
		for (size_t i = 0; i < n; i++) {
			uint8_t old = d[i];
			d[i] = (uint8_t)(old ^ 0xA5);
			memset(&cnt, 0, sizeof(cnt));
			parse(d, n, &cnt);
			d[i] = old;
		}
	}
	/* the failure of every allocation */
	if (full == HKS_OK) {
		for (long k = 1; k <= allocs; k++) {
			memset(&cnt, 0, sizeof(cnt));
			cnt.fail_at = k;
			hks_result r = parse(d, n, &cnt);
			assert_int_not_equal(r, HKS_OK);
		}
	}
	free(d);
}

static void test_sweep(void **state)
{
	(void)state;
	const char *corpus = hks_test_corpus();
	index_compendiums(corpus);
	size_t nfiles = 0;
	char **files = hks_test_list_files(corpus, ".hkx,.compendium,.xml", &nfiles);
	sample samples[64];
	size_t ns = 0;
	for (size_t i = 0; i < nfiles; i++) {
		size_t size;
		uint8_t *d = hks_test_read_file(files[i], &size);
		if (!d)
			continue;
		/* class = container kind + SDK (parsed), so one of each is swept */
		char key[64];
		hks_file *f = NULL;
		hks_error err;
		hks_read_options ro;
		memset(&ro, 0, sizeof(ro));
		ro.compendiums = g_set;
		if (hks_file_read(d, size, &ro, &f, &err) == HKS_OK) {
			snprintf(key, sizeof(key), "%s %s ptr%u", hks_container_name(f->container), f->sdk, f->pointer_size);
			hks_file_free(f);
		} else {
			snprintf(key, sizeof(key), "%s (fails: %s)", hks_container_name(hks_detect_container(d, size)),
			         hks_result_name(err.code));
		}
		free(d);
		size_t j = 0;
		while (j < ns && strcmp(samples[j].key, key) != 0)
			j++;
		if (j == ns) {
			if (ns == sizeof(samples) / sizeof(samples[0]))
				continue;
			memcpy(samples[ns].key, key, sizeof(key));
			samples[ns].path = files[i];
			samples[ns].size = size;
			ns++;
		} else if (size < samples[j].size) {
			samples[j].path = files[i];
			samples[j].size = size;
		}
	}
	printf("sweeping %zu files (one per container kind and SDK)\n", ns);
	for (size_t j = 0; j < ns; j++)
		sweep_one(&samples[j]);
	hks_test_free_list(files, nfiles);
	hks_compendium_set_free(g_set);
}

int main(void)
{
	hks_test_require_corpus("corpus_sweep");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sweep),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
