/*
 * Hostile-input sweep in the style of ufbx, on real files: for the smallest
 * corpus file of each container kind and SDK, truncations, changed bytes and
 * the failure of every allocation; a parsed file's spline animations are
 * walked and sampled (every frame) inside the sweep. Then the binders of the
 * corpus: DCX decompression and the BND4 read of the decompressed binder.
 * Each must end in a clean error or a valid result, with no crash, no
 * sanitizer report and no leak (a counting allocator).
 *
 * Runtime bound (the sanitizer build runs this test too, ~3x slower): every
 * truncation length up to SWEEP_EVERY bytes, then SWEEP_EVERY more lengths
 * spread evenly; changed bytes at up to SWEEP_FLIPS positions spread evenly
 * (every position of smaller files); for large files both spreads are cut so
 * that each parses at most SWEEP_BUDGET bytes. tests/test_sweep.c does every length
 * and position on the project's synthetic files.
 */
#include "hks_test.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SWEEP_EVERY 16384u
#define SWEEP_FLIPS 8192u
/* Bytes parsed by the spread truncations and by the changed bytes of one
 * file, each: a large file (the 250 KB XML) gets fewer positions. */
#define SWEEP_BUDGET (UINT64_C(96) << 20)

/* The i-th of `count` positions spread evenly over [0, n). */
static size_t spread(size_t i, size_t count, size_t n)
{
	return count >= n ? i : (size_t)((unsigned long long)i * n / count);
}

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
static const char *g_stage = "";  /* what the sweep is doing, for failure messages */
static size_t g_at;

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

/* Walk every spline animation with the same allocator and sample every frame:
 * a walk failure must be clean; a walked animation must sample or fail cleanly. */
static hks_result walk_and_sample(const hks_file *f, const hks_options *base)
{
	hks_result first = HKS_OK;
	for (uint32_t i = 0; i < f->num_animations; i++) {
		if (f->animations[i].kind != HKS_ANIMATION_SPLINE)
			continue;
		hks_walk_options wo;
		memset(&wo, 0, sizeof(wo));
		wo.base = *base;
		hks_stored_animation *s = NULL;
		hks_error err;
		hks_result r = hks_stored_read(&f->animations[i], &wo, &s, &err);
		if (r != HKS_OK) {
			assert_null(s);
			assert_int_equal(err.code, r);
			first = first ? first : r;
			continue;
		}
		size_t T = (size_t)s->num_transform_tracks, F = (size_t)s->num_float_tracks;
		float *tr = (float *)malloc((T * HKS_TRACK_SAMPLE_FLOATS + 1) * sizeof(float));
		float *fl = (float *)malloc((F + 1) * sizeof(float));
		hks_sample_options so;
		memset(&so, 0, sizeof(so));
		so.base = *base;
		for (int32_t fr = 0; fr < s->num_frames; fr++) {
			r = hks_sample_frames(s, &so, (uint32_t)fr, 1, tr, fl, &err);
			if (r != HKS_OK) {
				assert_int_equal(err.code, r);
				first = first ? first : r;
				break;
			}
		}
		if (r == HKS_OK) {
			r = hks_sample_time(s, s->duration * 0.5f, &so, tr, fl, &err);
			if (r != HKS_OK) {
				assert_int_equal(err.code, r);
				first = first ? first : r;
			}
		}
		free(tr);
		free(fl);
		hks_stored_free(s);
	}
	return first;
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
		r = walk_and_sample(f, &ro.base); /* its allocations are swept too */
		hks_file_free(f);
	} else {
		assert_null(f);
		assert_int_equal(err.code, r);
		assert_true(err.message[0] != '\0');
	}
	if (cnt->live != 0)
		fail_msg("%s %zu: %lld bytes not freed (result %s)", g_stage, g_at, cnt->live, hks_result_name(r));
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
	/* truncations, on an exact-size copy so that reads past the end are caught */
	size_t nspread = SWEEP_EVERY;
	if ((uint64_t)nspread * n > SWEEP_BUDGET)
		nspread = (size_t)(SWEEP_BUDGET / n) + 1;
	size_t ntrunc = n <= SWEEP_EVERY + nspread ? n : SWEEP_EVERY + nspread;
	for (size_t k = 0; k < ntrunc; k++) {
		size_t len = k < SWEEP_EVERY || n <= SWEEP_EVERY + nspread ? k : SWEEP_EVERY + spread(k - SWEEP_EVERY, nspread, n - SWEEP_EVERY);
		uint8_t *t = (uint8_t *)malloc(len ? len : 1);
		memcpy(t, d, len);
		memset(&cnt, 0, sizeof(cnt));
		g_stage = "truncated to", g_at = len;
		parse(t, len, &cnt);
		free(t);
	}
	/* changed bytes */
	size_t nflip = n < SWEEP_FLIPS ? n : SWEEP_FLIPS;
	if ((uint64_t)nflip * n > SWEEP_BUDGET)
		nflip = (size_t)(SWEEP_BUDGET / n) + 1;
	for (size_t k = 0; k < nflip; k++) {
		size_t i = spread(k, nflip, n);
		uint8_t old = d[i];
		d[i] = (uint8_t)(old ^ 0xA5);
		memset(&cnt, 0, sizeof(cnt));
		g_stage = "changed byte", g_at = i;
		parse(d, n, &cnt);
		d[i] = old;
	}
	/* the failure of every allocation */
	if (full == HKS_OK) {
		for (long k = 1; k <= allocs; k++) {
			memset(&cnt, 0, sizeof(cnt));
			cnt.fail_at = k;
			g_stage = "allocation failing:", g_at = (size_t)k;
			hks_result r = parse(d, n, &cnt);
			if (r == HKS_OK)
				fail_msg("%s: allocation %ld of %ld failed, yet the call succeeded", s->key, k, allocs);
		}
	}
	free(d);
}

/* ---- binders: DCX and BND4 ---- */

static hks_result dcx_once(const uint8_t *d, size_t n, counting *cnt)
{
	hks_options o;
	memset(&o, 0, sizeof(o));
	o.allocator.alloc = c_alloc;
	o.allocator.realloc = c_realloc;
	o.allocator.free = c_free;
	o.allocator.user = cnt;
	uint8_t *out = NULL;
	size_t out_size = 0;
	hks_error err;
	hks_result r = hks_dcx_decompress(d, n, &o, &out, &out_size, NULL, &err);
	if (r == HKS_OK) {
		hks_buffer_free(&o, out, out_size);
	} else {
		assert_null(out);
		assert_int_equal(err.code, r);
		assert_true(err.message[0] != '\0');
	}
	assert_int_equal(cnt->live, 0);
	return r;
}

static hks_result bnd4_once(const uint8_t *d, size_t n, counting *cnt)
{
	hks_options o;
	memset(&o, 0, sizeof(o));
	o.allocator.alloc = c_alloc;
	o.allocator.realloc = c_realloc;
	o.allocator.free = c_free;
	o.allocator.user = cnt;
	hks_bnd4 *b = NULL;
	hks_error err;
	hks_result r = hks_bnd4_read(d, n, &o, &b, &err);
	if (r == HKS_OK) {
		hks_bnd4_free(b);
	} else {
		assert_null(b);
		assert_int_equal(err.code, r);
		assert_true(err.message[0] != '\0');
	}
	assert_int_equal(cnt->live, 0);
	return r;
}

typedef hks_result (*once_fn)(const uint8_t *d, size_t n, counting *cnt);

/* Every truncation and changed byte of the first `head` bytes (the headers),
 * `spread_count` more of each spread over the rest, every allocation failure. */
static void sweep_binary(const char *what, once_fn once, uint8_t *d, size_t n, size_t head, size_t spread_count)
{
	counting cnt = {0};
	assert_int_equal(once(d, n, &cnt), HKS_OK);
	long allocs = cnt.allocs;
	if (head > n)
		head = n;
	size_t total = head + (n > head ? spread_count : 0);
	for (size_t k = 0; k < total; k++) {
		size_t len = k < head ? k : head + spread(k - head, spread_count, n - head);
		uint8_t *t = (uint8_t *)malloc(len ? len : 1);
		memcpy(t, d, len);
		memset(&cnt, 0, sizeof(cnt));
		once(t, len, &cnt);
		free(t);
		size_t i = len;
		uint8_t old = d[i];
		d[i] = (uint8_t)(old ^ 0xA5);
		memset(&cnt, 0, sizeof(cnt));
		once(d, n, &cnt);
		d[i] = old;
	}
	for (long k = 1; k <= allocs; k++) {
		memset(&cnt, 0, sizeof(cnt));
		cnt.fail_at = k;
		assert_int_not_equal(once(d, n, &cnt), HKS_OK);
	}
	printf("  %-40s %9zu bytes: %zu truncations and changed bytes, %ld allocation failures\n", what, n, total,
	       allocs);
}

static void test_binders(void **state)
{
	(void)state;
	const char *corpus = hks_test_corpus();
	size_t nfiles = 0;
	char **files = hks_test_list_files(corpus, ".dcx", &nfiles);
	printf("sweeping %zu DCX binders\n", nfiles);
	for (size_t i = 0; i < nfiles; i++) {
		size_t n;
		uint8_t *d = hks_test_read_file(files[i], &n);
		assert_non_null(d);
		const char *base = strrchr(files[i], '/') ? strrchr(files[i], '/') + 1 : files[i];
		char what[128];
		snprintf(what, sizeof(what), "%s (DCX)", base);
		sweep_binary(what, dcx_once, d, n, HKS_DCX_HEADER_SIZE + 64, 96);
		uint8_t *bnd = NULL;
		size_t bnd_size = 0;
		hks_error err;
		assert_int_equal(hks_dcx_decompress(d, n, NULL, &bnd, &bnd_size, NULL, &err), HKS_OK);
		hks_bnd4 *b = NULL;
		assert_int_equal(hks_bnd4_read(bnd, bnd_size, NULL, &b, &err), HKS_OK);
		size_t headers = (size_t)b->headers_end;
		hks_bnd4_free(b);
		snprintf(what, sizeof(what), "%s (BND4)", base);
		/* the headers (entries, names, hash table) byte by byte, capped */
		sweep_binary(what, bnd4_once, bnd, bnd_size, headers < 4096 ? headers : 4096, 128);
		hks_buffer_free(NULL, bnd, bnd_size);
		free(d);
	}
	hks_test_free_list(files, nfiles);
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
		cmocka_unit_test(test_binders),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
