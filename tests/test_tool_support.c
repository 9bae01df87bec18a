/*
 * The tool-support section of hkspline.h (src/io/frames_json.c, decoded.c,
 * skeleton.c, donor.c, src/metrics/compare_inputs.c, compare_dirs.c): the
 * decoded-frames JSON read and written (byte format, bit patterns, hostile
 * documents: issue 17 L7), the animation view of a packed spline, donor
 * selection independent of unrelated and hostile files (issue 17 L9), and
 * comparisons across tools (tracks matched by bone name, common frames).
 * Every input is generated here.
 */
#define _POSIX_C_SOURCE 200809L
#include "hks_test.h"

#include "../tests/fuzz/synth.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmp_root[256];

static const char *path_in(const char *rel)
{
	static char buf[4][512];
	static int k;
	k = (k + 1) & 3;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", tmp_root, rel);
	return buf[k];
}

static void write_bytes(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmp_root, sizeof(tmp_root), "/tmp/hks_tool_XXXXXX");
	return mkdtemp(tmp_root) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp_root);
	return system(cmd) == 0 ? 0 : -1;
}

static uint32_t bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

/* A clip of T tracks named `names` (NULL entries allowed), N frames, F float tracks. */
typedef struct clip {
	hks_decoded d;
	float *t, *f;
	const char *names[8];
} clip;

static void make_clip(clip *c, uint32_t index, uint32_t N, uint32_t T, uint32_t F, const char *const *names, float bump)
{
	memset(c, 0, sizeof(*c));
	c->t = (float *)calloc((size_t)N * T * 10 + 1, sizeof(float));
	c->f = (float *)calloc((size_t)N * F + 1, sizeof(float));
	assert_non_null(c->t);
	assert_non_null(c->f);
	for (uint32_t fr = 0; fr < N; fr++)
		for (uint32_t t = 0; t < T; t++) {
			float *v = c->t + ((size_t)fr * T + t) * 10;
			v[0] = (float)fr * 0.01f + (float)t;
			v[1] = 0.25f * (float)t;
			v[2] = -0.5f;
			v[6] = 1.0f; /* identity rotation */
			v[7] = v[8] = v[9] = 1.0f;
		}
	for (size_t i = 0; i < (size_t)N * F; i++)
		c->f[i] = 0.5f * (float)i;
	for (uint32_t t = 0; t < T && t < 8; t++)
		c->names[t] = names ? names[t] : NULL;
	c->d.index = index;
	c->d.num_frames = N;
	c->d.num_transform_tracks = T;
	c->d.num_float_tracks = F;
	c->d.duration = N > 1 ? (float)(N - 1) / 30.0f : 0.0f;
	c->d.frame_duration = 1.0f / 30.0f;
	c->d.transforms = c->t;
	c->d.floats = c->f;
	c->d.bone_names = c->names;
	(void)bump;
}

static void free_clip(clip *c)
{
	free(c->t);
	free(c->f);
}

static uint8_t *write_doc(hks_decoded *anims, uint32_t n, int hex, size_t *size)
{
	hks_frames_doc doc;
	memset(&doc, 0, sizeof(doc));
	doc.source_path = "x.hkx";
	doc.source_container = "tagfile";
	doc.source_sdk = "20160200";
	doc.hex = hex;
	doc.animations = anims;
	doc.num_animations = n;
	uint8_t *out = NULL;
	hks_error err;
	assert_int_equal(hks_frames_json_write(&doc, NULL, &out, size, &err), HKS_OK);
	return out;
}

/* The exact bytes of `decode -o OUT.json` for a small clip. */
static void test_frames_json_bytes(void **state)
{
	(void)state;
	static const char *const names[1] = {"Root"};
	clip c;
	make_clip(&c, 0, 2, 1, 1, names, 0);
	size_t size = 0;
	uint8_t *out = write_doc(&c.d, 1, 0, &size);
	static const char want[] =
	    "{\"source\":{\"path\":\"x.hkx\",\"container\":\"tagfile\",\"sdk\":\"20160200\",\"skeleton\":null,"
	    "\"mode\":\"frame\",\"hex\":false},\"animations\":[{\"index\":0,\"frames\":2,\"duration\":0.0333333351,"
	    "\"frame_duration\":0.0333333351,\"tracks\":[\n{\"bone\":\"Root\",\"translation\":[[0,0,-0.5],"
	    "[0.00999999978,0,-0.5]],\"rotation\":[[0,0,0,1],[0,0,0,1]],\"scale\":[[1,1,1],[1,1,1]]}],"
	    "\"float_tracks\":[[0,0.5]]}]}\n";
	assert_int_equal(size, strlen(want));
	assert_memory_equal(out, want, size);
	hks_buffer_free(NULL, out, size);
	free_clip(&c);
}

/* Written, read back, written again: the same bytes; bit patterns kept in hex
 * (NaN payloads included), non-finite values as strings otherwise. */
static void test_frames_json_roundtrip(void **state)
{
	(void)state;
	static const char *const names[3] = {"Root", NULL, "Weapon"};
	clip c[2];
	make_clip(&c[0], 0, 5, 3, 2, names, 0);
	make_clip(&c[1], 7, 3, 1, 0, NULL, 0);
	uint32_t payload = 0x7fc12345u, neg_inf = 0xff800000u;
	memcpy(&c[0].t[4], &payload, 4);
	memcpy(&c[0].t[11], &neg_inf, 4);
	c[0].f[3] = -0.0f;
	hks_decoded anims[2] = {c[0].d, c[1].d};
	for (int hex = 0; hex < 2; hex++) {
		size_t size = 0, size2 = 0;
		uint8_t *out = write_doc(anims, 2, hex, &size);
		hks_frames_doc *doc = NULL;
		hks_error err;
		assert_int_equal(hks_frames_json_read(out, size, NULL, &doc, &err), HKS_OK);
		assert_int_equal(doc->num_animations, 2);
		assert_int_equal(doc->hex, hex);
		assert_string_equal(doc->source_sdk, "20160200");
		const hks_decoded *a = hks_frames_doc_find(doc, 0), *b = hks_frames_doc_find(doc, 7);
		assert_non_null(a);
		assert_non_null(b);
		assert_null(hks_frames_doc_find(doc, 3));
		assert_ptr_equal(hks_frames_doc_find(doc, -1), a);
		assert_int_equal(a->num_frames, 5);
		assert_int_equal(a->num_transform_tracks, 3);
		assert_int_equal(a->num_float_tracks, 2);
		assert_string_equal(a->bone_names[0], "Root");
		assert_null(a->bone_names[1]);
		assert_string_equal(a->bone_names[2], "Weapon");
		for (size_t i = 0; i < 5 * 3 * 10; i++) {
			if (!hex && isnan(c[0].t[i]))
				assert_true(isnan(a->transforms[i]));
			else
				assert_int_equal(bits(a->transforms[i]), bits(c[0].t[i]));
		}
		for (size_t i = 0; i < 10; i++)
			assert_int_equal(bits(a->floats[i]), bits(c[0].f[i]));
		assert_int_equal(bits(a->duration), bits(c[0].d.duration));
		assert_ptr_equal(a->frames.transforms, a->transforms);
		assert_null(b->frames.floats);
		/* again: the same bytes (hex keeps every pattern; text writes NaN as "nan" either way) */
		hks_frames_doc copy = *doc;
		uint8_t *out2 = NULL;
		assert_int_equal(hks_frames_json_write(&copy, NULL, &out2, &size2, &err), HKS_OK);
		assert_int_equal(size2, size);
		assert_memory_equal(out2, out, size);
		hks_buffer_free(NULL, out2, size2);
		hks_frames_doc_free(doc);
		hks_buffer_free(NULL, out, size);
	}
	free_clip(&c[0]);
	free_clip(&c[1]);
}

/* A counting allocator: the largest single request. */
typedef struct counter {
	size_t largest;
} counter;

static void *c_alloc(void *u, size_t n)
{
	counter *c = (counter *)u;
	if (n > c->largest)
		c->largest = n;
	return malloc(n);
}

static void *c_realloc(void *u, void *p, size_t o, size_t n)
{
	(void)o;
	counter *c = (counter *)u;
	if (n > c->largest)
		c->largest = n;
	return realloc(p, n);
}

static void c_free(void *u, void *p, size_t n)
{
	(void)u;
	(void)n;
	free(p);
}

static hks_result read_text(const char *text, hks_error *err, size_t *largest)
{
	counter cnt = {0};
	hks_options o;
	memset(&o, 0, sizeof(o));
	o.allocator.alloc = c_alloc;
	o.allocator.realloc = c_realloc;
	o.allocator.free = c_free;
	o.allocator.user = &cnt;
	hks_frames_doc *doc = NULL;
	hks_result r = hks_frames_json_read(text, strlen(text), &o, &doc, err);
	if (r == HKS_OK)
		assert_non_null(doc);
	else
		assert_null(doc);
	hks_frames_doc_free(doc);
	if (largest)
		*largest = cnt.largest;
	return r;
}

#define ANIM(body) "{\"source\":{},\"animations\":[{" body "}]}"
#define TRACK "{\"bone\":\"a\",\"translation\":[[1,2,3]],\"rotation\":[[0,0,0,1]],\"scale\":[[1,1,1]]}"

/* Hostile documents: a clean error with the right code, bounded memory. */
static void test_frames_json_hostile(void **state)
{
	(void)state;
	hks_error err;
	size_t largest = 0;
	/* the baseline reads */
	assert_int_equal(read_text(ANIM("\"index\":3,\"frames\":1,\"duration\":0,\"tracks\":[" TRACK "]"), &err, NULL),
	                 HKS_OK);
	/* L7: an index beyond int32 (2^40 used to encode animation 0), negative, or not an integer */
	assert_int_equal(read_text(ANIM("\"index\":1099511627776,\"frames\":1,\"duration\":0,\"tracks\":[" TRACK "]"), &err,
	                           NULL),
	                 HKS_E_MALFORMED);
	assert_non_null(strstr(err.message, "index"));
	assert_string_equal(err.object, "animations[0]");
	assert_int_equal(read_text(ANIM("\"index\":2147483648,\"frames\":1,\"duration\":0,\"tracks\":[" TRACK "]"), &err,
	                           NULL),
	                 HKS_E_MALFORMED);
	assert_int_equal(read_text(ANIM("\"index\":-1,\"frames\":1,\"duration\":0,\"tracks\":[" TRACK "]"), &err, NULL),
	                 HKS_E_MALFORMED);
	assert_int_equal(read_text(ANIM("\"index\":\"0\",\"frames\":1,\"duration\":0,\"tracks\":[" TRACK "]"), &err, NULL),
	                 HKS_E_MALFORMED);
	assert_int_equal(read_text(ANIM("\"frames\":1,\"duration\":0,\"tracks\":[" TRACK "]"), &err, NULL), HKS_E_MALFORMED);
	assert_int_equal(read_text(ANIM("\"index\":2147483647,\"frames\":1,\"duration\":0,\"tracks\":[" TRACK "]"), &err,
	                           NULL),
	                 HKS_OK);
	/* absurd frame counts: refused before anything of that size is allocated */
	assert_int_equal(read_text(ANIM("\"index\":0,\"frames\":1000000,\"duration\":0,\"tracks\":[" TRACK "," TRACK "]"),
	                           &err, &largest),
	                 HKS_E_MALFORMED);
	assert_true(largest < (1u << 20)); /* the frames would need 80 MB */
	assert_int_equal(read_text(ANIM("\"index\":0,\"frames\":4000000000,\"duration\":0,\"tracks\":[]"), &err, NULL),
	                 HKS_E_MALFORMED);
	/* mismatched track lengths, short rows, non-floats */
	assert_int_equal(read_text(ANIM("\"index\":0,\"frames\":2,\"duration\":0,\"tracks\":[" TRACK "]"), &err, NULL),
	                 HKS_E_MALFORMED);
	assert_int_equal(err.track, 0);
	assert_int_equal(read_text(ANIM("\"index\":0,\"frames\":1,\"duration\":0,\"tracks\":[{\"translation\":[[1,2]],"
	                                "\"rotation\":[[0,0,0,1]],\"scale\":[[1,1,1]]}]"),
	                           &err, NULL),
	                 HKS_E_MALFORMED);
	assert_int_equal(read_text(ANIM("\"index\":0,\"frames\":1,\"duration\":0,\"tracks\":[{\"translation\":[[1,2,true]],"
	                                "\"rotation\":[[0,0,0,1]],\"scale\":[[1,1,1]]}]"),
	                           &err, NULL),
	                 HKS_E_MALFORMED);
	assert_int_equal(read_text(ANIM("\"index\":0,\"frames\":1,\"duration\":0,\"tracks\":[],\"float_tracks\":[[1],[]]"),
	                           &err, NULL),
	                 HKS_E_MALFORMED);
	assert_int_equal(read_text(ANIM("\"index\":0,\"frames\":1,\"tracks\":[]"), &err, NULL), HKS_E_MALFORMED);
	/* NaN / Inf spelled as strings and as bit patterns are values */
	assert_int_equal(read_text(ANIM("\"index\":0,\"frames\":1,\"duration\":\"inf\",\"tracks\":[],\"float_tracks\":"
	                                "[[\"nan\"],[\"-inf\"],[\"7fc00001\"]]"),
	                           &err, NULL),
	                 HKS_OK);
	/* not JSON at all, or cut: the parse error's position */
	const char *cut = ANIM("\"index\":0,\"frames\":1,\"duration\":0,\"tracks\":[" TRACK "]");
	for (size_t n = 0; n + 1 < strlen(cut); n += 7) {
		hks_frames_doc *doc = NULL;
		assert_int_equal(hks_frames_json_read(cut, n, NULL, &doc, &err), HKS_E_MALFORMED);
		assert_null(doc);
	}
	assert_int_equal(read_text("[1,2,3]", &err, NULL), HKS_E_MALFORMED);
	assert_int_equal(read_text("{\"animations\":{}}", &err, NULL), HKS_E_MALFORMED);
}

/* The hkaAnimation view of a packed spline walks and samples as its frames. */
static void test_animation_of_packed(void **state)
{
	(void)state;
	hks_packed_spline *p = synth_spline(2, 1, 12, 0, 0, "20160200");
	assert_non_null(p);
	hks_animation a = hks_animation_of_packed(p);
	assert_int_equal(a.kind, HKS_ANIMATION_SPLINE);
	assert_int_equal(a.number_of_transform_tracks, 2);
	assert_int_equal(a.number_of_float_tracks, 1);
	assert_int_equal(a.reference_frame, -1);
	assert_int_equal(a.data_offset, -1);
	assert_int_equal(bits(a.duration), bits(p->duration));
	hks_stored_animation *s = NULL;
	hks_error err;
	assert_int_equal(hks_stored_read(&a, NULL, &s, &err), HKS_OK);
	assert_int_equal(s->num_frames, 12);
	hks_stored_free(s);
	hks_packed_spline_free(p);
	hks_animation none = hks_animation_of_packed(NULL);
	assert_int_equal(none.kind, HKS_ANIMATION_SPLINE);
	assert_int_equal(none.spline.data_size, 0);
}

static void write_clip_file(const char *path, clip *c, uint32_t n)
{
	hks_decoded anims[2];
	for (uint32_t i = 0; i < n; i++)
		anims[i] = c[i].d;
	size_t size = 0;
	uint8_t *out = write_doc(anims, n, 0, &size);
	write_bytes(path, out, size);
	hks_buffer_free(NULL, out, size);
}

/* error across tools: tracks matched by bone name, common frames compared. */
static void test_compare_across_tools(void **state)
{
	(void)state;
	static const char *const na[3] = {"Root", "Child", "Extra"}, *const nb[3] = {"Child", "Root", "Other"};
	clip a, b, same;
	make_clip(&a, 0, 6, 3, 1, na, 0);
	make_clip(&b, 0, 5, 3, 0, nb, 0);
	make_clip(&same, 0, 6, 3, 1, na, 0);
	/* B: track 0 is A's track 1 and track 1 A's track 0 (same values), Child moved by 0.5 at frame 2 */
	for (uint32_t f = 0; f < 5; f++) {
		memcpy(b.t + ((size_t)f * 3 + 0) * 10, a.t + ((size_t)f * 3 + 1) * 10, 40);
		memcpy(b.t + ((size_t)f * 3 + 1) * 10, a.t + ((size_t)f * 3 + 0) * 10, 40);
	}
	b.t[((size_t)2 * 3 + 0) * 10 + 1] += 0.5f;
	write_clip_file(path_in("a.json"), &a, 1);
	write_clip_file(path_in("b.json"), &b, 1);
	write_clip_file(path_in("same.json"), &same, 1);

	hks_comparison *c = NULL;
	hks_error err;
	assert_int_equal(hks_compare_paths(path_in("a.json"), path_in("b.json"), NULL, &c, &err), HKS_OK);
	assert_true(c->matched_by_name);
	assert_false(c->complete);
	assert_int_equal(c->frames[0], 6);
	assert_int_equal(c->frames[1], 5);
	assert_int_equal(c->frames_compared, 5);
	assert_int_equal(c->result->num_frames, 5);
	assert_int_equal(c->result->num_transform_tracks, 2);
	assert_int_equal(c->result->num_float_tracks, 0);
	assert_int_equal(c->num_only_in[0], 1);
	assert_string_equal(c->only_in[0][0], "Extra");
	assert_int_equal(c->num_only_in[1], 1);
	assert_string_equal(c->only_in[1][0], "Other");
	assert_int_equal(c->track_in[0][0], 0);
	assert_int_equal(c->track_in[1][0], 1);
	assert_int_equal(c->track_in[0][1], 1);
	assert_int_equal(c->track_in[1][1], 0);
	/* the moved bone is the only error, found under its name */
	assert_true(fabs(c->result->metric[HKS_METRIC_TRANSLATION].max - 0.5) < 1e-6);
	assert_int_equal(c->result->metric[HKS_METRIC_TRANSLATION].worst_index, 1);
	assert_int_equal(c->result->metric[HKS_METRIC_TRANSLATION].worst_frame, 2);
	assert_string_equal(hks_comparison_bone_name(c, -1, 1), "Child");
	uint8_t *json = NULL;
	size_t size = 0;
	assert_int_equal(hks_comparison_json(c, HKS_COMPARISON_SUMMARY, 0, &json, &size, &err), HKS_OK);
	/* the buffer holds `size` bytes, no NUL: copy them (strndup may look one byte past) */
	char *text = (char *)malloc(size + 1);
	assert_non_null(text);
	memcpy(text, json, size);
	text[size] = '\0';
	assert_non_null(strstr(text, "\"max_translation\":"));
	assert_non_null(strstr(text, "\"frames_a\":6,\"frames_b\":5"));
	assert_non_null(strstr(text, "\"matched_by\":\"bone_name\",\"only_in_a\":[\"Extra\"],\"only_in_b\":[\"Other\"]"));
	assert_non_null(strstr(text, "\"complete\":false"));
	free(text);
	hks_buffer_free(NULL, json, size);
	hks_comparison_free(c);

	/* the same tracks: by index, complete, zero error */
	assert_int_equal(hks_compare_paths(path_in("a.json"), path_in("same.json"), NULL, &c, &err), HKS_OK);
	assert_false(c->matched_by_name);
	assert_true(c->complete);
	assert_int_equal(c->result->num_transform_tracks, 3);
	assert_true(c->result->metric[HKS_METRIC_LOCAL_VERTEX].max == 0);
	hks_comparison_free(c);

	/* different track counts without names: a clean mismatch naming the input */
	clip u;
	make_clip(&u, 0, 6, 2, 1, NULL, 0);
	write_clip_file(path_in("unnamed.json"), &u, 1);
	assert_int_equal(hks_compare_paths(path_in("a.json"), path_in("unnamed.json"), NULL, &c, &err), HKS_E_MISMATCH);
	assert_null(c);
	assert_non_null(strstr(err.message, "unnamed.json"));
	/* a missing animation, a missing file */
	hks_comparison_options o;
	memset(&o, 0, sizeof(o));
	o.animation = 4;
	assert_int_equal(hks_compare_paths(path_in("a.json"), path_in("same.json"), &o, &c, &err), HKS_E_NOT_FOUND);
	assert_int_equal(hks_compare_paths(path_in("a.json"), path_in("nothing.json"), NULL, &c, &err), HKS_E_IO);
	free_clip(&u);
	free_clip(&a);
	free_clip(&b);
	free_clip(&same);
}

/* L9: the donor depends only on the qualifying candidates and their order,
 * not on unrelated, unreadable or hostile files around them. */
static void test_donor_deterministic(void **state)
{
	(void)state;
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/donors'", tmp_root);
	assert_int_equal(system(cmd), 0);
	hks_packed_spline *p = synth_spline(3, 0, 20, 0, 0, "20160200");
	assert_non_null(p);
	size_t n = 0;
	uint8_t *good = synth_tagfile(p, "20160200", NULL, &n);
	assert_non_null(good);
	/* the good donor (bound to "Master") sorts last */
	write_bytes(path_in("donors/m_good.hkx"), good, n);
	/* a tagfile bound to another skeleton sorts first ("Master" -> "Other1") */
	uint8_t *other = (uint8_t *)malloc(n);
	assert_non_null(other);
	memcpy(other, good, n);
	for (size_t i = 0; i + 6 <= n; i++)
		if (!memcmp(other + i, "Master", 6))
			memcpy(other + i, "Other1", 6);
	write_bytes(path_in("donors/a_other.hkx"), other, n);
	/* hostile and unrelated files before it, more than the 512 the old search opened */
	write_bytes(path_in("donors/b_truncated.hkx"), good, n / 2);
	uint8_t junk[64];
	memset(junk, 0xA5, sizeof(junk));
	for (int i = 0; i < 530; i++) {
		char name[64];
		snprintf(name, sizeof(name), "donors/c_junk%03d.hkx", i);
		write_bytes(path_in(name), junk, sizeof(junk));
	}
	hks_donor_options o;
	memset(&o, 0, sizeof(o));
	o.skeleton_name = "Master";
	hks_loader *loader = NULL;
	hks_loaded *ld = NULL;
	uint32_t anim = 99;
	hks_error err;
	assert_int_equal(hks_donor_find(path_in("donors"), &o, &loader, &ld, &anim, &err), HKS_OK);
	assert_non_null(strstr(ld->path, "m_good.hkx"));
	assert_int_equal(anim, 0);
	hks_loaded_free(ld);
	hks_loader_free(loader);
	/* a loose file names its folder: the same choice */
	assert_int_equal(hks_donor_find(path_in("donors/a_other.hkx"), &o, &loader, &ld, &anim, &err), HKS_OK);
	assert_non_null(strstr(ld->path, "m_good.hkx"));
	hks_loaded_free(ld);
	hks_loader_free(loader);
	/* the output path is never its own donor; nothing else qualifies */
	o.exclude = path_in("donors/m_good.hkx");
	assert_int_equal(hks_donor_find(path_in("donors"), &o, &loader, &ld, &anim, &err), HKS_E_NOT_FOUND);
	assert_null(loader);
	assert_null(ld);
	assert_non_null(strstr(err.message, "Master"));
	/* without a skeleton name the first usable tagfile in sorted order */
	memset(&o, 0, sizeof(o));
	assert_int_equal(hks_donor_find(path_in("donors"), &o, &loader, &ld, &anim, &err), HKS_OK);
	assert_non_null(strstr(ld->path, "a_other.hkx"));
	hks_loaded_free(ld);
	hks_loader_free(loader);
	/* another SDK: none */
	o.sdk = "20180100";
	assert_int_equal(hks_donor_find(path_in("donors"), &o, &loader, &ld, &anim, &err), HKS_E_NOT_FOUND);
	free(other);
	free(good);
	hks_packed_spline_free(p);
}

/* BINDER:MEMBER and the unit rules of hks_loader_open_unit. */
static void test_open_unit(void **state)
{
	(void)state;
	hks_packed_spline *p = synth_spline(1, 0, 4, 0, 0, "20160200");
	size_t n = 0;
	uint8_t *tag = synth_tagfile(p, "20160200", NULL, &n);
	hks_bnd4 *bnd = NULL;
	hks_error err;
	assert_int_equal(hks_bnd4_create(NULL, NULL, &bnd, &err), HKS_OK);
	assert_int_equal(hks_bnd4_add(bnd, "x\\a000_000001.hkx", 1, 0, tag, n, &err), HKS_OK);
	assert_int_equal(hks_bnd4_add(bnd, "x\\a000_000002.hkx", 2, 0, tag, n, &err), HKS_OK);
	uint8_t *bytes = NULL;
	size_t size = 0;
	assert_int_equal(hks_bnd4_write(bnd, NULL, &bytes, &size, &err), HKS_OK);
	write_bytes(path_in("u.anibnd"), bytes, size);
	hks_buffer_free(NULL, bytes, size);
	hks_bnd4_free(bnd);
	char in[600];
	hks_loader *l = NULL;
	size_t unit = 9;
	snprintf(in, sizeof(in), "%s:A000_000002.HKX", path_in("u.anibnd"));
	assert_int_equal(hks_loader_create(NULL, &l, &err), HKS_OK);
	assert_int_equal(hks_loader_open_unit(l, in, &unit, &err), HKS_OK);
	assert_non_null(strstr(hks_loader_path(l, unit), "a000_000002.hkx"));
	hks_loader_free(l);
	snprintf(in, sizeof(in), "%s:nothing.hkx", path_in("u.anibnd"));
	assert_int_equal(hks_loader_create(NULL, &l, &err), HKS_OK);
	assert_int_equal(hks_loader_open_unit(l, in, &unit, &err), HKS_E_NOT_FOUND);
	assert_non_null(strstr(err.message, "has no member 'nothing.hkx'"));
	hks_loader_free(l);
	assert_int_equal(hks_loader_create(NULL, &l, &err), HKS_OK);
	assert_int_equal(hks_loader_open_unit(l, path_in("u.anibnd"), &unit, &err), HKS_E_ARGUMENT);
	assert_non_null(strstr(err.message, "holds 2 Havok files"));
	hks_loader_free(l);
	free(tag);
	hks_packed_spline_free(p);
}


/* encode --like as one call: the bytes of encode + replace + write; a record
 * of the file (hks_recompress_file) gives the original bytes back. */
static void test_encode_like_and_recompress_file(void **state)
{
	(void)state;
	hks_packed_spline *p = synth_spline(3, 1, 40, 0, 0, "20160200");
	assert_non_null(p);
	size_t n = 0;
	uint8_t *tag = synth_tagfile(p, "20160200", NULL, &n);
	assert_non_null(tag);
	hks_error err;
	hks_file *f = NULL;
	assert_int_equal(hks_file_read(tag, n, NULL, &f, &err), HKS_OK);
	hks_decoded *d = NULL;
	assert_int_equal(hks_decode_animation(f, 0, NULL, &d, &err), HKS_OK);
	assert_int_equal(d->num_frames, 40);
	assert_int_equal(d->num_transform_tracks, 3);
	assert_int_equal(d->num_float_tracks, 1);
	assert_int_equal(hks_decode_animation(f, 5, NULL, &(hks_decoded *){NULL}, &err), HKS_E_NOT_FOUND);

	/* by hand: encode with the default options, replace, write */
	hks_encode_options eo;
	memset(&eo, 0, sizeof(eo));
	eo.sdk = f->sdk;
	eo.max_frames_per_block = (uint32_t)f->animations[0].spline.max_frames_per_block;
	hks_track_params pal[3], fpal[1];
	memset(pal, 0, sizeof(pal));
	memset(fpal, 0, sizeof(fpal));
	hks_stored_animation *orig = NULL;
	assert_int_equal(hks_stored_read(&f->animations[0], NULL, &orig, &err), HKS_OK);
	for (int t = 0; t < 3; t++) {
		uint8_t m0 = orig->blocks[0].tracks[t].mask[0];
		pal[t].translation_quantization = (uint8_t)((m0 & 3) + 1);
		pal[t].scale_quantization = (uint8_t)((m0 >> 6) + 1);
		pal[t].rotation_quantization = HKS_ENC_ROT_QUANT((m0 >> 2) & 15);
	}
	fpal[0].float_quantization = (uint8_t)(((orig->blocks[0].float_masks[0] >> 1) & 3) + 1);
	hks_stored_free(orig);
	eo.per_track = pal;
	eo.num_per_track = 3;
	eo.per_float_track = fpal;
	eo.num_per_float_track = 1;
	eo.defaults.translation_tolerance = eo.defaults.rotation_tolerance = eo.defaults.scale_tolerance =
	    eo.defaults.float_tolerance = 0.01f;
	hks_packed_spline *q = NULL;
	assert_int_equal(hks_encode_spline(&d->frames, &eo, &q, &err), HKS_OK);
	hks_file *g = NULL;
	assert_int_equal(hks_file_read(tag, n, NULL, &g, &err), HKS_OK);
	assert_int_equal(hks_file_replace_spline(g, 0, q->duration, &q->header, &err), HKS_OK);
	uint8_t *want = NULL, *got = NULL;
	size_t want_size = 0, got_size = 0;
	assert_int_equal(hks_file_write(g, NULL, &want, &want_size, &err), HKS_OK);

	hks_encode_like_options lo;
	memset(&lo, 0, sizeof(lo));
	lo.translation_tolerance = lo.rotation_tolerance = lo.scale_tolerance = lo.float_tolerance = 0.01f;
	hks_encode_like_report rep;
	hks_file *h = NULL;
	assert_int_equal(hks_file_read(tag, n, NULL, &h, &err), HKS_OK);
	assert_int_equal(hks_encode_like(h, 0, &d->frames, &lo, &got, &got_size, &rep, &err), HKS_OK);
	assert_int_equal(got_size, want_size);
	assert_memory_equal(got, want, got_size);
	assert_string_equal(rep.sdk, "20160200");
	assert_int_equal(rep.data_size, q->header.data_size);
	hks_buffer_free(NULL, got, got_size);
	hks_buffer_free(NULL, want, want_size);
	/* frames of another shape, an animation that is not there, a bad option */
	hks_frames_in fewer = d->frames;
	fewer.num_transform_tracks = 2;
	assert_int_equal(hks_encode_like(h, 0, &fewer, NULL, &got, &got_size, NULL, &err), HKS_E_MISMATCH);
	assert_int_equal(hks_encode_like(h, 3, &d->frames, NULL, &got, &got_size, NULL, &err), HKS_E_NOT_FOUND);
	lo.max_frames_per_block = 1;
	assert_int_equal(hks_encode_like(h, 0, &d->frames, &lo, &got, &got_size, NULL, &err), HKS_E_ARGUMENT);

	/* recompress the file, then the record applied to the decoded frames: the original bytes */
	hks_file *r = NULL;
	assert_int_equal(hks_file_read(tag, n, NULL, &r, &err), HKS_OK);
	uint8_t *pred = NULL, *rec = NULL;
	size_t pred_size = 0, rec_size = 0;
	assert_int_equal(hks_recompress_file(r, NULL, &pred, &pred_size, &rec, &rec_size, &err), HKS_OK);
	assert_true(pred_size > 0);
	assert_memory_equal(rec, "HKSF", 4);
	hks_file *o2 = NULL;
	assert_int_equal(hks_file_read(tag, n, NULL, &o2, &err), HKS_OK);
	memset(&lo, 0, sizeof(lo));
	lo.record = rec;
	lo.record_size = rec_size;
	assert_int_equal(hks_encode_like(o2, 0, &d->frames, &lo, &got, &got_size, &rep, &err), HKS_OK);
	assert_int_equal(got_size, n);
	assert_memory_equal(got, tag, n);
	assert_true(rep.record.data_matches);
	hks_buffer_free(NULL, got, got_size);
	/* a corrupted record: a clean error */
	rec[rec_size / 2] ^= 0x5A;
	lo.record_size = rec_size - 3;
	hks_result rr = hks_encode_like(o2, 0, &d->frames, &lo, &got, &got_size, NULL, &err);
	assert_int_not_equal(rr, HKS_OK);
	assert_null(got);
	hks_buffer_free(NULL, pred, pred_size);
	hks_buffer_free(NULL, rec, rec_size);
	hks_file_free(o2);
	hks_file_free(r);
	hks_file_free(h);
	hks_file_free(g);
	hks_packed_spline_free(q);
	hks_decoded_free(d);
	hks_file_free(f);
	free(tag);
	hks_packed_spline_free(p);
}

typedef struct pair_log {
	unsigned calls, items, compared;
	char a[8][512];
	int64_t animation[8];
	bool error[8];
} pair_log;

static void log_pair(void *user, size_t index, const hks_dir_pair *pair)
{
	pair_log *l = (pair_log *)user;
	__atomic_fetch_add(&l->calls, 1, __ATOMIC_SEQ_CST);
	if (index < 8) {
		snprintf(l->a[index], sizeof(l->a[index]), "%s", pair->a);
		l->animation[index] = pair->num_items ? pair->items[0].animation : -2;
		l->error[index] = pair->num_items && pair->items[0].error != NULL;
	}
}

/* Folder comparison: pairs by relative path, per-pair failures as items. */
static void test_compare_dirs(void **state)
{
	(void)state;
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/dA/sub' '%s/dB/sub'", tmp_root, tmp_root);
	assert_int_equal(system(cmd), 0);
	hks_packed_spline *p = synth_spline(2, 0, 12, 0, 0, "20160200");
	size_t n = 0;
	uint8_t *tag = synth_tagfile(p, "20160200", NULL, &n);
	assert_non_null(tag);
	write_bytes(path_in("dA/x1.hkx"), tag, n);
	write_bytes(path_in("dB/x1.hkx"), tag, n);
	write_bytes(path_in("dA/sub/x2.hkx"), tag, n);
	write_bytes(path_in("dB/sub/x2.hkx"), tag, n / 2); /* B's copy is cut: the pair fails, named */
	write_bytes(path_in("dA/only_a.hkx"), tag, n);
	hks_dir_options o;
	memset(&o, 0, sizeof(o));
	pair_log log;
	memset(&log, 0, sizeof(log));
	o.threads = 2;
	o.on_pair = log_pair;
	o.user = &log;
	hks_dir_summary sum;
	hks_error err;
	assert_int_equal(hks_compare_dirs(path_in("dA"), path_in("dB"), &o, &sum, &err), HKS_OK);
	assert_int_equal(sum.files_a, 3);
	assert_int_equal(sum.pairs, 2);
	assert_int_equal(sum.unmatched, 1);
	assert_int_equal(sum.compared, 1);
	assert_int_equal(sum.failed, 1);
	assert_int_equal(log.calls, 2);
	/* pairs in A's (sorted) order: sub/x2.hkx, then x1.hkx */
	assert_non_null(strstr(log.a[0], "sub/x2.hkx"));
	assert_true(log.error[0]);
	assert_int_equal(log.animation[0], -1);
	assert_non_null(strstr(log.a[1], "x1.hkx"));
	assert_false(log.error[1]);
	assert_int_equal(log.animation[1], 0);
	assert_int_equal(hks_compare_dirs(path_in("dA"), path_in("nothing"), &o, &sum, &err), HKS_E_IO);
	free(tag);
	hks_packed_spline_free(p);
}

/* The CLI on inputs whose tracks and frames differ: compared, said, exit 0;
 * exit 1 with --strict (needs HKSPLINE_CLI, set by ctest; skipped without). */
static void test_cli_error_strict(void **state)
{
	(void)state;
	const char *cli = getenv("HKSPLINE_CLI");
	if (!cli || access(cli, X_OK) != 0) {
		fprintf(stderr, "test_cli_error_strict: HKSPLINE_CLI not set, skipped\n");
		skip();
	}
	static const char *const na[3] = {"Root", "Child", "Extra"}, *const nb[2] = {"Child", "Root"};
	clip a, b;
	make_clip(&a, 0, 6, 3, 0, na, 0);
	make_clip(&b, 0, 5, 2, 0, nb, 0);
	write_clip_file(path_in("sa.json"), &a, 1);
	write_clip_file(path_in("sb.json"), &b, 1);
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "'%s' error '%s' '%s' > '%s' 2>&1", cli, path_in("sa.json"), path_in("sb.json"),
	         path_in("strict.out"));
	int st = system(cmd);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	size_t n = 0;
	uint8_t *text = hks_test_read_file(path_in("strict.out"), &n);
	assert_non_null(text);
	char *t = strndup((const char *)text, n);
	assert_non_null(strstr(t, "not everything compared: compared 5 common frames (A 6, B 5), 2 tracks (A 3, B 2) "
	                          "matched by bone name, 1 only in A (Extra)"));
	free(t);
	free(text);
	snprintf(cmd, sizeof(cmd), "'%s' error --strict --json '%s' '%s' > /dev/null 2>&1", cli, path_in("sa.json"),
	         path_in("sb.json"));
	st = system(cmd);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	snprintf(cmd, sizeof(cmd), "'%s' error --strict '%s' '%s' > /dev/null 2>&1", cli, path_in("sa.json"),
	         path_in("sa.json"));
	st = system(cmd);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* two folders (test_compare_dirs made dA): exit 0 when something was compared and nothing
	 * failed; exit 1, said, when nothing was compared */
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/dE' '%s/dF' '%s/dD' && cp '%s' '%s' && cp '%s' '%s'", tmp_root, tmp_root,
	         tmp_root, path_in("dA/x1.hkx"), path_in("dF/x1.hkx"), path_in("dA/x1.hkx"), path_in("dD/other.hkx"));
	assert_int_equal(system(cmd), 0);
	static const struct {
		const char *a, *b;
		int status;
		const char *said;
	} folders[] = {
	    {"dF", "dA", 0, "1 animations compared, 0 failed"},
	    {"dA", "dD", 1, "nothing compared: no file of the first folder has a counterpart"},
	    {"dE", "dA", 1, "nothing compared: the first folder holds no Havok file"},
	};
	for (size_t i = 0; i < sizeof(folders) / sizeof(folders[0]); i++) {
		char a_dir[1024], b_dir[1024];
		snprintf(a_dir, sizeof(a_dir), "%s", path_in(folders[i].a));
		snprintf(b_dir, sizeof(b_dir), "%s", path_in(folders[i].b));
		char fcmd[4096];
		snprintf(fcmd, sizeof(fcmd), "'%s' error --no-progress '%s' '%s' > '%s' 2>&1", cli, a_dir, b_dir,
		         path_in("folders.out"));
		st = system(fcmd);
		text = hks_test_read_file(path_in("folders.out"), &n);
		assert_non_null(text);
		t = strndup((const char *)text, n);
		printf("error %s %s: status %d: %s", folders[i].a, folders[i].b, WEXITSTATUS(st), t);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == folders[i].status);
		assert_non_null(strstr(t, folders[i].said));
		free(t);
		free(text);
	}
	free_clip(&a);
	free_clip(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_frames_json_bytes),   cmocka_unit_test(test_frames_json_roundtrip),
	    cmocka_unit_test(test_frames_json_hostile), cmocka_unit_test(test_animation_of_packed),
	    cmocka_unit_test(test_compare_across_tools), cmocka_unit_test(test_donor_deterministic),
	    cmocka_unit_test(test_open_unit),           cmocka_unit_test(test_encode_like_and_recompress_file),
	    cmocka_unit_test(test_compare_dirs),        cmocka_unit_test(test_cli_error_strict),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
