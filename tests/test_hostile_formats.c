/*
 * Hand-made hostile cases for the readers and the encoder (issue 17), built
 * here from synthetic data (tests/fuzz/synth.h, the library's writers):
 *   - tagfile type tables with cycles and self-references: every byte of the
 *     TYPE section set to each small type index in turn;
 *   - packfile fixups (and every other u32) pointing outside the file, at
 *     themselves, at the word before;
 *   - Havok XML with entity expansion (billion laughs), an external entity
 *     naming a local file, and deep nesting;
 *   - compendium ID collisions in one set;
 *   - encode options at their extremes (tolerance 0, negative, NaN, 1e30; max
 *     frames per block 1, 2, 257; degree 2);
 *   - records truncated, corrupted, or from another animation.
 * Each ends in a clean error (an expected code, a message) or a valid result;
 * every byte allocated is freed (a counting allocator).
 */
#define _DEFAULT_SOURCE
#include "hks_test.h"

#include "../tests/fuzz/synth.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct counting {
	long live;
	uint64_t bytes;
} counting;
static void *c_alloc(void *u, size_t s)
{
	((counting *)u)->live++;
	((counting *)u)->bytes += s;
	return malloc(s ? s : 1);
}
static void *c_realloc(void *u, void *p, size_t o, size_t s)
{
	(void)o;
	((counting *)u)->bytes += s;
	return realloc(p, s ? s : 1);
}
static void c_free(void *u, void *p, size_t s)
{
	(void)s;
	((counting *)u)->live--;
	free(p);
}

static bool clean_code(hks_result r)
{
	return r == HKS_E_TRUNCATED || r == HKS_E_MALFORMED || r == HKS_E_UNSUPPORTED || r == HKS_E_LIMIT ||
	       r == HKS_E_COMPENDIUM || r == HKS_E_NOT_FOUND;
}

/* Read (and when it reads, write and read again); clean or valid; every byte freed. */
static hks_result read_clean(const uint8_t *d, size_t n, const hks_compendium_set *set)
{
	counting c = {0, 0};
	hks_read_options ro;
	memset(&ro, 0, sizeof(ro));
	ro.base.allocator = (hks_allocator){c_alloc, c_realloc, c_free, &c};
	ro.base.limits.max_memory = 64u << 20;
	ro.compendiums = set;
	hks_file *f = NULL;
	hks_error e;
	hks_result r = hks_file_read(d, n, &ro, &f, &e);
	if (r == HKS_OK) {
		for (uint32_t a = 0; a < f->num_animations; a++) {
			if (f->animations[a].kind != HKS_ANIMATION_SPLINE)
				continue;
			hks_walk_options wo;
			memset(&wo, 0, sizeof(wo));
			wo.base = ro.base;
			wo.animation_index = (int32_t)a;
			hks_stored_animation *s = NULL;
			hks_error we;
			hks_result wr = hks_stored_read(&f->animations[a], &wo, &s, &we);
			assert_true(wr == HKS_OK || clean_code(wr));
			hks_stored_free(s);
		}
		hks_write_options wopt;
		memset(&wopt, 0, sizeof(wopt));
		wopt.base = ro.base;
		uint8_t *out = NULL;
		size_t out_size = 0;
		hks_result w = hks_file_write(f, &wopt, &out, &out_size, &e);
		assert_true(w == HKS_OK || clean_code(w) || w == HKS_E_ARGUMENT);
		if (w == HKS_OK)
			hks_buffer_free(&ro.base, out, out_size);
		hks_file_free(f);
	} else {
		assert_true(clean_code(r));
		assert_true(e.message[0] != '\0');
		assert_null(f);
	}
	assert_int_equal(c.live, 0);
	return r;
}

/* The byte range [*at, *at + *len) of the first section tagged `tag` (4 bytes after a 4-byte
 * size word, CONTAINERS.md §2.1). */
static bool find_section(const uint8_t *d, size_t n, const char *tag, size_t *at, size_t *len)
{
	for (size_t i = 4; i + 4 <= n; i++)
		if (!memcmp(d + i, tag, 4)) {
			uint32_t size = ((uint32_t)(d[i - 4] & 0x3F) << 24) | (uint32_t)d[i - 3] << 16 |
			                (uint32_t)d[i - 2] << 8 | d[i - 1];
			if (size < 8 || i - 4 + size > n)
				continue;
			*at = i + 4;
			*len = size - 8;
			return true;
		}
	return false;
}

static void test_tagfile_type_cycles(void **state)
{
	(void)state;
	hks_packed_spline *p = synth_spline(2, 1, 12, 0, 0, "20160200");
	assert_non_null(p);
	size_t n = 0;
	uint8_t *t = synth_tagfile(p, "20160200", NULL, &n);
	assert_non_null(t);
	assert_int_equal(read_clean(t, n, NULL), HKS_OK);
	/* TBDY holds each type's parent, format and members by type index; TNA1 the names and
	 * template arguments. Every byte of both set to each index 0..ST_COUNT+1: parents that
	 * point at the type itself or at a child, member types forming cycles. */
	static const char *const secs[] = {"TBDY", "TBOD", "TNA1", "TNAM"};
	uint8_t *m = (uint8_t *)malloc(n);
	size_t tried = 0, ok = 0;
	for (size_t s = 0; s < 4; s++) {
		size_t at = 0, len = 0;
		if (!find_section(t, n, secs[s], &at, &len))
			continue;
		for (size_t i = at; i < at + len; i++)
			for (uint8_t v = 0; v < ST_COUNT + 2; v++) {
				if (t[i] == v)
					continue;
				memcpy(m, t, n);
				m[i] = v;
				ok += read_clean(m, n, NULL) == HKS_OK;
				tried++;
			}
	}
	printf("type table: %zu variants, %zu read\n", tried, ok);
	assert_true(tried > 100);
	free(m);
	free(t);
	hks_packed_spline_free(p);
}

static void test_packfile_fixups(void **state)
{
	(void)state;
	const char *cli = getenv("HKSPLINE_CLI");
	if (!cli || !*cli) {
		printf("HKSPLINE_CLI not set: not run\n");
		return;
	}
	char tool[1024], cmd[2048];
	snprintf(tool, sizeof(tool), "%s", cli);
	char *slash = strrchr(tool, '/');
	assert_non_null(slash);
	snprintf(slash + 1, sizeof(tool) - (size_t)(slash + 1 - tool), "make_sample");
	char path[] = "/tmp/hks_hostile_pf_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' >/dev/null", tool, path);
	assert_int_equal(system(cmd), 0);
	size_t n = 0;
	uint8_t *d = hks_test_read_file(path, &n);
	remove(path);
	assert_non_null(d);
	assert_int_equal(read_clean(d, n, NULL), HKS_OK);
	uint8_t *m = (uint8_t *)malloc(n);
	size_t tried = 0;
	/* every aligned word (fixup sources and targets among them): outside, itself, the word before */
	for (size_t i = 0; i + 4 <= n; i += 4) {
		const uint32_t vals[] = {0xFFFFFFFFu, (uint32_t)n, (uint32_t)i, (uint32_t)(i >= 4 ? i - 4 : 0), 0x7FFFFFF0u};
		for (size_t k = 0; k < sizeof(vals) / sizeof(vals[0]); k++) {
			memcpy(m, d, n);
			m[i] = (uint8_t)vals[k];
			m[i + 1] = (uint8_t)(vals[k] >> 8);
			m[i + 2] = (uint8_t)(vals[k] >> 16);
			m[i + 3] = (uint8_t)(vals[k] >> 24);
			read_clean(m, n, NULL);
			tried++;
		}
	}
	printf("packfile: %zu variants\n", tried);
	free(m);
	free(d);
}

static void test_xml_entities_and_depth(void **state)
{
	(void)state;
	hks_packed_spline *p = synth_spline(2, 0, 10, 0, 0, "20160200");
	size_t n = 0;
	uint8_t *x0 = synth_xml(p, &n);
	assert_non_null(x0);
	uint8_t *x = (uint8_t *)malloc(n + 1); /* NUL-terminated for the string searches below */
	memcpy(x, x0, n);
	x[n] = 0;
	free(x0);
	assert_int_equal(read_clean(x, n, NULL), HKS_OK);
	/* billion laughs before the root */
	const char *decl_end = strstr((const char *)x, "?>");
	assert_non_null(decl_end);
	size_t head = (size_t)(decl_end + 2 - (const char *)x);
	static const char laughs[] =
	    "\n<!DOCTYPE hkpackfile [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">"
	    "<!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;\"><!ENTITY d \"&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;\">"
	    "<!ENTITY e \"&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;\"><!ENTITY f \"&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;\">"
	    "<!ENTITY g \"&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;\"><!ENTITY h \"&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;\">]>\n";
	static const char xxe[] = "\n<!DOCTYPE hkpackfile [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>\n";
	const char *dtds[2] = {laughs, xxe};
	for (int k = 0; k < 2; k++) {
		size_t dl = strlen(dtds[k]);
		uint8_t *m = (uint8_t *)malloc(n + dl + 64);
		memcpy(m, x, head);
		memcpy(m + head, dtds[k], dl);
		memcpy(m + head + dl, x + head, n - head);
		size_t mn = n + dl;
		m[mn] = 0;
		/* use the entity inside the first hkparam value */
		char *hp = strstr((char *)m + head + dl, "<hkparam name=\"duration\">");
		assert_non_null(hp);
		char *gt = strchr(hp, '>') + 1;
		const char *ref = k == 0 ? "&h;" : "&x;";
		memmove(gt + 3, gt, (size_t)((char *)m + mn - gt) + 1);
		memcpy(gt, ref, 3);
		mn += 3;
		hks_result r = read_clean(m, mn, NULL);
		assert_int_not_equal(r, HKS_OK);
		free(m);
	}
	/* nesting far deeper than any Havok file: refused with HKS_E_LIMIT or malformed */
	size_t depth = 100000, cap = head + depth * 7 + 64;
	char *deep = (char *)malloc(cap);
	memcpy(deep, x, head);
	size_t k = head;
	for (size_t i = 0; i < depth; i++)
		k += (size_t)snprintf(deep + k, cap - k, "<a>");
	for (size_t i = 0; i < depth && k + 5 < cap; i++)
		k += (size_t)snprintf(deep + k, cap - k, "</a>");
	assert_true(clean_code(read_clean((const uint8_t *)deep, k, NULL)));
	free(deep);
	free(x);
	hks_packed_spline_free(p);
}

static void test_compendium_collisions(void **state)
{
	(void)state;
	static const uint8_t id[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	size_t cn = 0;
	uint8_t *c = synth_compendium(id, &cn);
	hks_compendium_set *set = NULL;
	hks_error e;
	assert_int_equal(hks_compendium_set_create(NULL, &set, &e), HKS_OK);
	int conflict = -1;
	assert_int_equal(hks_compendium_set_add(set, c, cn, "a", &conflict, &e), HKS_OK);
	assert_int_equal(conflict, 0);
	/* the same bytes again: no conflict */
	assert_int_equal(hks_compendium_set_add(set, c, cn, "a again", &conflict, &e), HKS_OK);
	assert_int_equal(conflict, 0);
	/* the same ID, a type hash changed: a conflict, the first table stays and still serves */
	size_t at = 0, len = 0;
	assert_true(find_section(c, cn, "THSH", &at, &len));
	uint8_t *d = (uint8_t *)malloc(cn);
	memcpy(d, c, cn);
	d[at + len - 1] ^= 0x5A;
	hks_result r = hks_compendium_set_add(set, d, cn, "b", &conflict, &e);
	assert_true(r == HKS_OK || clean_code(r));
	if (r == HKS_OK)
		assert_int_equal(conflict, 1);
	assert_true(hks_compendium_set_contains(set, id));
	hks_packed_spline *p = synth_spline(2, 0, 10, 0, 0, "20160200");
	size_t tn = 0;
	uint8_t *t = synth_tagfile(p, "20180100", id, &tn);
	assert_int_equal(read_clean(t, tn, set), HKS_OK);
	/* a TCRF naming an ID no compendium has */
	static const uint8_t other[8] = {9, 9, 9, 9, 9, 9, 9, 9};
	uint8_t *t2 = synth_tagfile(p, "20180100", other, &tn);
	assert_int_equal(read_clean(t2, tn, set), HKS_E_COMPENDIUM);
	hks_compendium_set_free(set);
	free(t);
	free(t2);
	free(d);
	free(c);
	hks_packed_spline_free(p);
}

/* Encode options at their extremes: clean refusal (HKS_E_ARGUMENT / LIMIT) or a result that walks. */
static void test_encode_extremes(void **state)
{
	(void)state;
	enum { T = 2, F = 1, N = 40 };
	float tr[N * T * HKS_TRACK_SAMPLE_FLOATS], fl[N * F];
	synth_frames(T, F, N, 0, tr, fl);
	hks_frames_in in;
	memset(&in, 0, sizeof(in));
	in.num_frames = N;
	in.num_transform_tracks = T;
	in.num_float_tracks = F;
	in.duration = (float)(N - 1) / 30.0f;
	in.transforms = tr;
	in.floats = fl;
	const float tols[] = {0.0f, -1.0f, NAN, INFINITY, 1e30f, 1e-30f};
	const uint32_t mfpb[] = {0, 1, 2, 3, 256, 257, 100000};
	const uint8_t degrees[] = {1, 2, 3, 0, 4};
	size_t ok = 0, refused = 0;
	for (size_t a = 0; a < sizeof(tols) / sizeof(tols[0]); a++)
		for (size_t b = 0; b < sizeof(mfpb) / sizeof(mfpb[0]); b++)
			for (size_t c = 0; c < sizeof(degrees) / sizeof(degrees[0]); c++) {
				counting cnt = {0, 0};
				hks_encode_options eo;
				memset(&eo, 0, sizeof(eo));
				eo.base.allocator = (hks_allocator){c_alloc, c_realloc, c_free, &cnt};
				eo.defaults.rotation_tolerance = eo.defaults.translation_tolerance = eo.defaults.scale_tolerance =
				    eo.defaults.float_tolerance = tols[a];
				eo.defaults.rotation_degree = eo.defaults.translation_degree = eo.defaults.scale_degree =
				    eo.defaults.float_degree = degrees[c];
				eo.max_frames_per_block = mfpb[b];
				hks_packed_spline *p = NULL;
				hks_error e;
				hks_result r = hks_encode_spline(&in, &eo, &p, &e);
				if (r == HKS_OK) {
					ok++;
					hks_animation an = hks_test_animation_of(p);
					hks_stored_animation *s = NULL;
					hks_walk_options wo;
					memset(&wo, 0, sizeof(wo));
					assert_int_equal(hks_stored_read(&an, &wo, &s, &e), HKS_OK);
					hks_stored_free(s);
					hks_packed_spline_free(p);
				} else {
					refused++;
					assert_true(r == HKS_E_ARGUMENT || r == HKS_E_LIMIT);
					assert_true(e.message[0] != '\0');
				}
				assert_int_equal(cnt.live, 0);
			}
	printf("encode extremes: %zu encoded, %zu refused\n", ok, refused);
	assert_true(ok > 0 && refused > 0);
}

/* Records truncated at every length, every byte changed, and applied to another animation. */
static void test_records_hostile(void **state)
{
	(void)state;
	hks_packed_spline *p1 = synth_spline(2, 1, 31, 0, 0, "20160200");
	hks_packed_spline *p2 = synth_spline(3, 0, 20, 0, 1, "20160200");
	assert_non_null(p1);
	assert_non_null(p2);
	hks_animation a1 = hks_test_animation_of(p1);
	hks_recompress_options ro;
	memset(&ro, 0, sizeof(ro));
	ro.no_zlib = 1;
	uint8_t *rec = NULL;
	size_t rn = 0;
	hks_error e;
	assert_int_equal(hks_recompress(&a1, &ro, &rec, &rn, NULL, NULL, &e), HKS_OK);
	/* the frames of both animations */
	hks_frames_in fin[2];
	float *bufs[4];
	hks_packed_spline *ps[2] = {p1, p2};
	for (int k = 0; k < 2; k++) {
		hks_animation an = hks_test_animation_of(ps[k]);
		hks_stored_animation *s = NULL;
		hks_walk_options wo;
		memset(&wo, 0, sizeof(wo));
		assert_int_equal(hks_stored_read(&an, &wo, &s, &e), HKS_OK);
		uint32_t N = (uint32_t)s->num_frames, T = (uint32_t)s->num_transform_tracks, F = (uint32_t)s->num_float_tracks;
		bufs[2 * k] = (float *)calloc((size_t)N * T * HKS_TRACK_SAMPLE_FLOATS + 1, sizeof(float));
		bufs[2 * k + 1] = (float *)calloc((size_t)N * F + 1, sizeof(float));
		assert_int_equal(hks_sample_frames(s, NULL, 0, N, bufs[2 * k], bufs[2 * k + 1], &e), HKS_OK);
		memset(&fin[k], 0, sizeof(fin[k]));
		fin[k].num_frames = N;
		fin[k].num_transform_tracks = T;
		fin[k].num_float_tracks = F;
		fin[k].duration = s->duration;
		fin[k].transforms = T ? bufs[2 * k] : NULL;
		fin[k].floats = F ? bufs[2 * k + 1] : NULL;
		hks_stored_free(s);
	}
	hks_recompress_options ao;
	memset(&ao, 0, sizeof(ao));
	hks_packed_spline *out = NULL;
	hks_record_apply_report rep;
	assert_int_equal(hks_recompress_apply(&fin[0], rec, rn, &ao, &out, &rep, &e), HKS_OK);
	assert_true(rep.data_matches);
	hks_packed_spline_free(out);
	/* from another file: the frames of the other animation */
	out = NULL;
	hks_result r = hks_recompress_apply(&fin[1], rec, rn, &ao, &out, &rep, &e);
	assert_true(r == HKS_E_MISMATCH || r == HKS_E_ARGUMENT || r == HKS_E_MALFORMED);
	assert_null(out);
	/* truncated at every length, every byte changed */
	for (size_t len = 0; len < rn; len++) {
		out = NULL;
		r = hks_recompress_apply(&fin[0], rec, len, &ao, &out, &rep, &e);
		assert_true(r == HKS_E_TRUNCATED || r == HKS_E_MALFORMED || r == HKS_E_UNSUPPORTED);
		assert_null(out);
	}
	uint8_t *m = (uint8_t *)malloc(rn);
	size_t ok = 0;
	for (size_t i = 0; i < rn; i++) {
		memcpy(m, rec, rn);
		m[i] ^= 0xA5;
		out = NULL;
		r = hks_recompress_apply(&fin[0], m, rn, &ao, &out, &rep, &e);
		if (r == HKS_OK) {
			ok++;
			hks_packed_spline_free(out);
		} else
			assert_true(r != HKS_E_INTERNAL && e.message[0] != '\0');
	}
	printf("records: %zu of %zu changed bytes still applied\n", ok, rn);
	free(m);
	for (int k = 0; k < 4; k++)
		free(bufs[k]);
	hks_buffer_free(NULL, rec, rn);
	hks_packed_spline_free(p1);
	hks_packed_spline_free(p2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tagfile_type_cycles),   cmocka_unit_test(test_packfile_fixups),
		cmocka_unit_test(test_xml_entities_and_depth), cmocka_unit_test(test_compendium_collisions),
		cmocka_unit_test(test_encode_extremes),       cmocka_unit_test(test_records_hostile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
