/*
 * Hostile-input sweep in the style of ufbx on the project's synthetic files
 * (the fuzz seed corpora of tests/fuzz/seeds/, written by tools/make_seeds.c
 * from project generators only): for the file reader (tagfile, TCRF tagfile
 * with its compendium, compendium, packfile, XML), BND4, DCX and the spline
 * walk + sampling, every truncation length, a changed byte at every position
 * and the failure of every allocation through the allocator hook. Each must
 * end in a clean error (code and message set, no output) or a valid result,
 * with every allocated byte freed (a counting allocator). Also: tiny
 * hks_limits give HKS_E_LIMIT before anything large is allocated. glTF:
 * the importer on its seeds and on an external-buffer file (loader callback,
 * every open handed back), the exporter under every allocation failure.
 */
#include "hks_test.h"
#include "internal.h"

#include "../tests/fuzz/spline_input.h"
#include "../tests/fuzz/synth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- counting allocator ---- */

typedef struct counting {
	long allocs;
	long fail_at; /* 1-based; 0 = never */
	long long live;
} counting;

static void *c_alloc(void *u, size_t n)
{
	counting *c = (counting *)u;
	if (++c->allocs == c->fail_at)
		return NULL;
	void *p = malloc(n ? n : 1);
	if (p)
		c->live += (long long)n;
	return p;
}
static void *c_realloc(void *u, void *p, size_t o, size_t n)
{
	counting *c = (counting *)u;
	if (++c->allocs == c->fail_at)
		return NULL;
	void *q = realloc(p, n ? n : 1);
	if (q)
		c->live += (long long)n - (long long)o;
	return q;
}
static void c_free(void *u, void *p, size_t n)
{
	counting *c = (counting *)u;
	c->live -= (long long)n;
	free(p);
}
static void counting_options(hks_options *o, counting *c)
{
	memset(o, 0, sizeof(*o));
	o->allocator.alloc = c_alloc;
	o->allocator.realloc = c_realloc;
	o->allocator.free = c_free;
	o->allocator.user = c;
}

/* ---- the seed files ---- */

static char g_seeds[4096];

static uint8_t *seed(const char *target, const char *name, size_t *size)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/%s/%s", g_seeds, target, name);
	uint8_t *d = hks_test_read_file(path, size);
	if (!d)
		fail_msg("cannot read seed %s (regenerate with tools/make_seeds)", path);
	return d;
}

static void check_error(hks_result r, const hks_error *err)
{
	assert_int_equal(err->code, r);
	assert_true(err->message[0] != '\0');
}

/* ---- one operation under sweep: returns its result; asserts no leak ---- */

typedef hks_result (*operation)(const uint8_t *d, size_t n, counting *c, const void *arg);

static hks_compendium_set *g_set;

static hks_result op_file(const uint8_t *d, size_t n, counting *c, const void *arg)
{
	hks_read_options ro;
	memset(&ro, 0, sizeof(ro));
	counting_options(&ro.base, c);
	ro.compendiums = (const hks_compendium_set *)arg;
	hks_file *f = NULL;
	hks_error err;
	hks_result r = hks_file_read(d, n, &ro, &f, &err);
	if (r == HKS_OK) {
		assert_non_null(f);
		/* a parsed file also writes (through the same allocator) */
		hks_write_options wo;
		memset(&wo, 0, sizeof(wo));
		counting_options(&wo.base, c);
		uint8_t *out = NULL;
		size_t out_size = 0;
		hks_result w = hks_file_write(f, &wo, &out, &out_size, &err);
		if (w == HKS_OK)
			hks_buffer_free(&wo.base, out, out_size);
		else
			check_error(w, &err);
		int is_xml = f->container == HKS_CONTAINER_XML;
		hks_file_free(f);
		r = w == HKS_E_UNSUPPORTED && is_xml ? HKS_OK : w; /* XML is read-only */
	} else {
		assert_null(f);
		check_error(r, &err);
	}
	return r;
}

static hks_result op_bnd4(const uint8_t *d, size_t n, counting *c, const void *arg)
{
	(void)arg;
	hks_options o;
	counting_options(&o, c);
	hks_bnd4 *b = NULL;
	hks_error err;
	hks_result r = hks_bnd4_read(d, n, &o, &b, &err);
	if (r == HKS_OK) {
		uint8_t *out = NULL;
		size_t out_size = 0;
		r = hks_bnd4_write(b, &o, &out, &out_size, &err);
		if (r == HKS_OK) {
			assert_non_null(out); /* a binder is never empty (header) */
			hks_buffer_free(&o, out, out_size);
		}
		else
			check_error(r, &err);
		hks_bnd4_free(b);
	} else {
		assert_null(b);
		check_error(r, &err);
	}
	return r;
}

static hks_result op_dcx(const uint8_t *d, size_t n, counting *c, const void *arg)
{
	(void)arg;
	hks_options o;
	counting_options(&o, c);
	uint8_t *out = NULL;
	size_t out_size = 0;
	hks_error err;
	hks_result r = hks_dcx_decompress(d, n, &o, &out, &out_size, NULL, &err);
	if (r == HKS_OK)
		hks_buffer_free(&o, out, out_size);
	else
		check_error(r, &err);
	return r;
}

/* Walk the spline-target input, then sample every frame and three times. */
static hks_result op_spline(const uint8_t *d, size_t n, counting *c, const void *arg)
{
	(void)arg;
	hks_animation a;
	uint32_t *offsets = NULL;
	int strict = 0;
	if (!spline_input_parse(d, n, &a, &offsets, &strict))
		return HKS_E_TRUNCATED;
	hks_walk_options wo;
	memset(&wo, 0, sizeof(wo));
	counting_options(&wo.base, c);
	hks_stored_animation *s = NULL;
	hks_error err;
	hks_result r = hks_stored_read(&a, &wo, &s, &err);
	if (r == HKS_OK) {
		uint32_t T = (uint32_t)s->num_transform_tracks, F = (uint32_t)s->num_float_tracks;
		float *tr = (float *)malloc(((size_t)T * HKS_TRACK_SAMPLE_FLOATS + 1) * sizeof(float));
		float *fl = (float *)malloc(((size_t)F + 1) * sizeof(float));
		hks_sample_options so;
		memset(&so, 0, sizeof(so));
		counting_options(&so.base, c);
		for (int32_t f = 0; f < s->num_frames && r == HKS_OK; f++) {
			r = hks_sample_frames(s, &so, (uint32_t)f, 1, tr, fl, &err);
			if (r != HKS_OK)
				check_error(r, &err);
		}
		const float times[3] = {0.0f, s->duration * 0.37f, s->duration};
		for (int i = 0; i < 3 && r == HKS_OK; i++) {
			r = hks_sample_time(s, times[i], &so, tr, fl, &err);
			if (r != HKS_OK)
				check_error(r, &err);
		}
		free(tr);
		free(fl);
		hks_stored_free(s);
	} else {
		assert_null(s);
		check_error(r, &err);
	}
	free(offsets);
	return r;
}

/* Every truncation, every changed byte, every allocation failure. */
/* Every truncation and changed byte (when `structural`), and the failure of
 * every allocation (when `allocations`). */
static void sweep_parts(const char *what, operation op, const uint8_t *d0, size_t n, const void *arg, int structural,
                        int allocations)
{
	size_t flip_from = structural ? 0 : n;
	counting c = {0};
	uint8_t *d = (uint8_t *)malloc(n ? n : 1);
	memcpy(d, d0, n);
	hks_result full = op(d, n, &c, arg);
	assert_int_equal(c.live, 0);
	long allocs = c.allocs;
	long ok_trunc = 0, ok_flip = 0;
	for (size_t len = 0; structural && len < n; len++) {
		uint8_t *t = (uint8_t *)malloc(len ? len : 1); /* exact size: ASan sees any over-read */
		memcpy(t, d, len);
		memset(&c, 0, sizeof(c));
		ok_trunc += op(t, len, &c, arg) == HKS_OK;
		if (c.live != 0)
			fail_msg("%s truncated to %zu bytes: %lld bytes not freed", what, len, c.live);
		free(t);
	}
	for (size_t i = flip_from; i < n; i++) {
		uint8_t old = d[i];
		d[i] = (uint8_t)(old ^ 0xA5);
		memset(&c, 0, sizeof(c));
		ok_flip += op(d, n, &c, arg) == HKS_OK;
		if (c.live != 0)
			fail_msg("%s with byte %zu changed: %lld bytes not freed", what, i, c.live);
		d[i] = old;
	}
	if (full != HKS_OK) /* every seed is valid */
		fail_msg("%s: the unchanged input gives %s", what, hks_result_name(full));
	for (long k = 1; allocations && k <= allocs; k++) {
		memset(&c, 0, sizeof(c));
		c.fail_at = k;
		hks_result r = op(d, n, &c, arg);
		if (c.live != 0)
			fail_msg("%s with allocation %ld failing: %lld bytes not freed", what, k, c.live);
		if (r == HKS_OK)
			fail_msg("%s: allocation %ld of %ld failed, yet the call succeeded", what, k, allocs);
	}
	printf("  %-34s %6zu bytes: %zu truncations (%ld valid), %zu changed bytes (%ld valid), %ld allocation failures\n",
	       what, n, structural ? n : 0, ok_trunc, n - flip_from, ok_flip, allocations ? allocs : 0);
	free(d);
}

static void sweep(const char *what, operation op, const uint8_t *d, size_t n, const void *arg, size_t unused)
{
	(void)unused;
	sweep_parts(what, op, d, n, arg, 1, 1);
}

static void test_file_reader(void **state)
{
	(void)state;
	static const char *names[] = {"tagfile_20160200.hkx", "tagfile_20180100.hkx", "types.compendium",
	                              "packfile_2010.hkx", "packfile_skeleton.hkx", "packfile.xml"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t n;
		uint8_t *d = seed("file", names[i], &n);
		sweep(names[i], op_file, d, n, NULL, 0);
		free(d);
	}
}

/* The TCRF tagfile of the compendium seed, read against its compendium. */
static void test_tcrf_tagfile(void **state)
{
	(void)state;
	size_t n;
	uint8_t *d = seed("compendium", "compendium_and_tcrf.bin", &n);
	assert_true(n > 4);
	size_t len = hks_le32(d);
	assert_true(len <= n - 4);
	hks_error err;
	assert_int_equal(hks_compendium_set_create(NULL, &g_set, &err), HKS_OK);
	assert_int_equal(hks_compendium_set_add(g_set, d + 4, len, "types.compendium", NULL, &err), HKS_OK);
	sweep("TCRF tagfile + compendium set", op_file, d + 4 + len, n - 4 - len, g_set, 0);
	/* without the set: a clean compendium error */
	counting c = {0};
	assert_int_equal(op_file(d + 4 + len, n - 4 - len, &c, NULL), HKS_E_COMPENDIUM);
	hks_compendium_set_free(g_set);
	free(d);
}

static void test_binder_and_dcx(void **state)
{
	(void)state;
	size_t n;
	uint8_t *d = seed("bnd4", "anibnd_4.bnd", &n);
	sweep_parts("anibnd_4.bnd (hks_bnd4_read + write)", op_bnd4, d, n, NULL, 1, 0);
	free(d);
	d = seed("dcx", "anibnd.dcx", &n);
	sweep("anibnd.dcx (hks_dcx_decompress)", op_dcx, d, n, NULL, 0);
	free(d);
}

/* Kept apart so that its failure names the module: hks_bnd4_hash_table
 * (src/decode/bnd4.c) and hks_bnd4_write (src/encode/bnd4_write.c) must
 * return HKS_E_NOMEM when their final shrink fails (hks_bytebuf_finish). */
static void test_binder_allocation_failures(void **state)
{
	(void)state;
	size_t n;
	uint8_t *d = seed("bnd4", "anibnd_4.bnd", &n);
	sweep_parts("anibnd_4.bnd (allocation failures)", op_bnd4, d, n, NULL, 0, 1);
	free(d);
}

static void test_walk_and_sample(void **state)
{
	(void)state;
	static const char *names[] = {"sekiro_3t1f.bin", "eldenring_guard_3blocks.bin", "quant8_tc48.bin",
	                              "floats_only.bin"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t n;
		uint8_t *d = seed("spline", names[i], &n);
		/* truncations and changes of the header too; the strict byte (40) off */
		sweep(names[i], op_spline, d, n, NULL, 0);
		free(d);
	}
}

/* ---- glTF (src/author, docs/GLTF.md): import of the fuzz seeds and of an
 * external-buffer file served by a loader callback; export under every
 * allocation failure (hks_gltf_write must give HKS_E_NOMEM when the final
 * shrink of hks_bytebuf_take fails). ---- */

static int g_ext_opens, g_ext_closes;

typedef struct ext_bytes {
	const uint8_t *data;
	size_t size;
} ext_bytes;

static hks_result ext_open(void *user, const char *path, uint64_t byte_length, const void **data, size_t *size)
{
	const ext_bytes *e = (const ext_bytes *)user;
	(void)path;
	(void)byte_length;
	g_ext_opens++;
	*data = e->data;
	*size = e->size;
	return HKS_OK;
}

static void ext_close(void *user, const void *data, size_t size)
{
	(void)user;
	(void)data;
	(void)size;
	g_ext_closes++;
}

/* arg: NULL, or the ext_bytes behind every external uri */
static hks_result op_gltf_read(const uint8_t *d, size_t n, counting *c, const void *arg)
{
	static const char *const slots[1] = {"blink"};
	hks_gltf_read_options ro;
	memset(&ro, 0, sizeof(ro));
	counting_options(&ro.base, c);
	ro.animation = -1;
	ro.float_slot_names = slots;
	ro.num_float_tracks = 1;
	if (arg) {
		ro.loader.open = ext_open;
		ro.loader.close = ext_close;
		ro.loader.user = (void *)(uintptr_t)arg;
	}
	g_ext_opens = g_ext_closes = 0;
	hks_gltf_animation *a = NULL;
	hks_error err;
	hks_result r = hks_gltf_read(d, n, synth_skeleton(), &ro, &a, &err);
	if (r == HKS_OK) {
		assert_non_null(a);
		assert_int_equal(a->num_transform_tracks, 3);
		hks_gltf_animation_free(a);
	} else {
		assert_null(a);
		check_error(r, &err);
	}
	if (g_ext_opens != g_ext_closes)
		fail_msg("glTF loader: %d opens, %d closes", g_ext_opens, g_ext_closes);
	return r;
}

/* arg: non-NULL for GLB. The input bytes are not used (allocation sweep only). */
static hks_result op_gltf_write(const uint8_t *d, size_t n, counting *c, const void *arg)
{
	(void)d;
	(void)n;
	enum { FRAMES = 9, T = 3, F = 1 };
	static float tr[FRAMES * T * HKS_TRACK_SAMPLE_FLOATS], fl[FRAMES * F];
	synth_frames(T, F, FRAMES, 0, tr, fl);
	hks_gltf_clip clip;
	memset(&clip, 0, sizeof(clip));
	clip.num_frames = FRAMES;
	clip.frame_duration = 1.0f / 30.0f;
	clip.duration = (float)(FRAMES - 1) / 30.0f;
	clip.num_transform_tracks = T;
	clip.num_float_tracks = F;
	clip.transforms = tr;
	clip.floats = fl;
	hks_gltf_write_options wo;
	memset(&wo, 0, sizeof(wo));
	counting_options(&wo.base, c);
	wo.binary = arg != NULL;
	uint8_t *out = NULL;
	size_t size = 0;
	hks_error err;
	hks_result r = hks_gltf_write(synth_skeleton(), &clip, 1, &wo, &out, &size, NULL, &err);
	if (r == HKS_OK) {
		assert_non_null(out);
		assert_true(size > 0);
		hks_buffer_free(&wo.base, out, size);
	} else {
		check_error(r, &err);
	}
	return r;
}

/* JSON text: a change of 0xA5 (sweep_parts) makes invalid UTF-8, which the
 * JSON parser rejects before the importer sees anything. Here each byte is
 * replaced by characters that keep the text JSON-like (digits, sign, quote,
 * brace, letter), so that indices, counts, offsets, names and uris change. */
static void sweep_json(const char *what, const uint8_t *d0, size_t n, const void *arg)
{
	static const char repl[] = "09-\"}ex.";
	uint8_t *d = (uint8_t *)malloc(n ? n : 1);
	memcpy(d, d0, n);
	long ok = 0, runs = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k + 1 < sizeof(repl); k++) {
			if (d0[i] == (uint8_t)repl[k])
				continue;
			d[i] = (uint8_t)repl[k];
			counting c = {0};
			ok += op_gltf_read(d, n, &c, arg) == HKS_OK;
			runs++;
			if (c.live != 0)
				fail_msg("%s with byte %zu set to '%c': %lld bytes not freed", what, i, repl[k], c.live);
			d[i] = d0[i];
		}
	printf("  %-34s %6zu bytes: %ld JSON character changes (%ld valid)\n", what, n, runs, ok);
	free(d);
}

static void test_gltf_import(void **state)
{
	(void)state;
	static const char *names[] = {"synthetic.glb", "synthetic.gltf", "features.gltf"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t n;
		uint8_t *d = seed("gltf", names[i], &n);
		sweep(names[i], op_gltf_read, d, n, NULL, 0);
		if (d[0] == '{')
			sweep_json(names[i], d, n, NULL);
		free(d);
	}
	/* "glTF Separate": times 0, 1 and two translations of "head" in an external buffer */
	static const float bin[8] = {0, 1, 0.5f, 0.25f, 0, 1, 2, 3};
	uint8_t bytes[sizeof(bin)];
	for (size_t i = 0; i < 8; i++) {
		uint32_t b;
		memcpy(&b, &bin[i], 4);
		for (int k = 0; k < 4; k++)
			bytes[4 * i + (size_t)k] = (uint8_t)(b >> (8 * k));
	}
	ext_bytes ext = {bytes, sizeof(bytes)};
	static const char text[] =
	    "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"head\"},{\"name\":\"spine\","
	    "\"matrix\":[1,0,0,0,0,0,1,0,0,-1,0,0,0,1,0,1]}],"
	    "\"buffers\":[{\"byteLength\":32,\"uri\":\"ext%20anim.bin\"}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":32}],"
	    "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},"
	    "{\"bufferView\":0,\"byteOffset\":8,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}],"
	    "\"animations\":[{\"samplers\":[{\"input\":0,\"output\":1}],"
	    "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}}]}]}";
	sweep("external buffer (loader)", op_gltf_read, (const uint8_t *)text, sizeof(text) - 1, &ext, 0);
	sweep_json("external buffer (loader)", (const uint8_t *)text, sizeof(text) - 1, &ext);
}

static void test_gltf_export_allocation_failures(void **state)
{
	(void)state;
	static const uint8_t none[1] = {0};
	sweep_parts("glTF write (GLB)", op_gltf_write, none, 0, none, 0, 1);
	sweep_parts("glTF write (.gltf)", op_gltf_write, none, 0, NULL, 0, 1);
}

/* ---- limits: tiny values give HKS_E_LIMIT ---- */

static void test_limits(void **state)
{
	(void)state;
	hks_error err;
	size_t n;
	uint8_t *d = seed("file", "tagfile_20180100.hkx", &n);
	hks_read_options ro;
	hks_file *f = NULL;
	memset(&ro, 0, sizeof(ro));
	ro.base.limits.max_objects = 2;
	assert_int_equal(hks_file_read(d, n, &ro, &f, &err), HKS_E_LIMIT);
	assert_null(f);
	memset(&ro, 0, sizeof(ro));
	ro.base.limits.max_memory = 1024;
	assert_int_equal(hks_file_read(d, n, &ro, &f, &err), HKS_E_LIMIT);
	memset(&ro, 0, sizeof(ro));
	assert_int_equal(hks_file_read(d, n, &ro, &f, &err), HKS_OK);
	hks_write_options wo;
	memset(&wo, 0, sizeof(wo));
	wo.base.limits.max_output_bytes = 64;
	uint8_t *out = NULL;
	size_t out_size = 0;
	assert_int_equal(hks_file_write(f, &wo, &out, &out_size, &err), HKS_E_LIMIT);
	/* the walk: frames, tracks, blocks (the animation has 40 frames, 2 tracks, 3 blocks) */
	hks_walk_options w;
	hks_stored_animation *s = NULL;
	memset(&w, 0, sizeof(w));
	w.base.limits.max_frames = 39;
	assert_int_equal(hks_stored_read(&f->animations[0], &w, &s, &err), HKS_E_LIMIT);
	memset(&w, 0, sizeof(w));
	w.base.limits.max_tracks = 1;
	assert_int_equal(hks_stored_read(&f->animations[0], &w, &s, &err), HKS_E_LIMIT);
	memset(&w, 0, sizeof(w));
	w.base.limits.max_blocks = 2;
	assert_int_equal(hks_stored_read(&f->animations[0], &w, &s, &err), HKS_E_LIMIT);
	memset(&w, 0, sizeof(w));
	w.base.limits.max_memory = 256;
	assert_int_equal(hks_stored_read(&f->animations[0], &w, &s, &err), HKS_E_LIMIT);
	assert_null(s);
	hks_file_free(f);
	free(d);

	/* DCX: the declared output size against max_output_bytes and max_memory */
	d = seed("dcx", "anibnd.dcx", &n);
	hks_options o;
	memset(&o, 0, sizeof(o));
	o.limits.max_output_bytes = 100;
	assert_int_equal(hks_dcx_decompress(d, n, &o, &out, &out_size, NULL, &err), HKS_E_LIMIT);
	assert_null(out);
	memset(&o, 0, sizeof(o));
	o.limits.max_memory = 100;
	assert_int_equal(hks_dcx_decompress(d, n, &o, &out, &out_size, NULL, &err), HKS_E_LIMIT);
	free(d);

	/* BND4: entry count against max_objects */
	d = seed("bnd4", "anibnd_4.bnd", &n);
	memset(&o, 0, sizeof(o));
	o.limits.max_objects = 3;
	hks_bnd4 *b = NULL;
	assert_int_equal(hks_bnd4_read(d, n, &o, &b, &err), HKS_E_LIMIT);
	assert_null(b);
	free(d);

	/* packfile and XML readers: objects and memory */
	static const char *more[] = {"packfile_2010.hkx", "packfile.xml"};
	for (int i = 0; i < 2; i++) {
		d = seed("file", more[i], &n);
		memset(&ro, 0, sizeof(ro));
		ro.base.limits.max_objects = 1;
		assert_int_equal(hks_file_read(d, n, &ro, &f, &err), HKS_E_LIMIT);
		memset(&ro, 0, sizeof(ro));
		ro.base.limits.max_memory = 512;
		assert_int_equal(hks_file_read(d, n, &ro, &f, &err), HKS_E_LIMIT);
		assert_null(f);
		free(d);
	}

	/* the encoder: frames, tracks, blocks */
	float frames[3 * HKS_TRACK_SAMPLE_FLOATS];
	memset(frames, 0, sizeof(frames));
	for (int k = 0; k < 3; k++)
		frames[k * HKS_TRACK_SAMPLE_FLOATS + 6] = frames[k * HKS_TRACK_SAMPLE_FLOATS + 7] = 1.0f;
	hks_frames_in in;
	memset(&in, 0, sizeof(in));
	in.num_frames = 3;
	in.num_transform_tracks = 1;
	in.duration = 1.0f;
	in.transforms = frames;
	hks_encode_options eo;
	hks_packed_spline *p = NULL;
	memset(&eo, 0, sizeof(eo));
	eo.base.limits.max_frames = 2;
	assert_int_equal(hks_encode_spline(&in, &eo, &p, &err), HKS_E_LIMIT);
	memset(&eo, 0, sizeof(eo));
	eo.base.limits.max_blocks = 1;
	eo.max_frames_per_block = 2;
	assert_int_equal(hks_encode_spline(&in, &eo, &p, &err), HKS_E_LIMIT);
	assert_null(p);
	memset(&eo, 0, sizeof(eo));
	assert_int_equal(hks_encode_spline(&in, &eo, &p, &err), HKS_OK);
	hks_packed_spline_free(p);
}

int main(void)
{
	/* the seeds beside this source file: tests/fuzz/seeds */
	snprintf(g_seeds, sizeof(g_seeds), "%s", __FILE__);
	char *slash = strrchr(g_seeds, '/');
	if (slash)
		snprintf(slash + 1, sizeof(g_seeds) - (size_t)(slash + 1 - g_seeds), "fuzz/seeds");
	else
		snprintf(g_seeds, sizeof(g_seeds), "tests/fuzz/seeds");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_file_reader),
		cmocka_unit_test(test_tcrf_tagfile),
		cmocka_unit_test(test_binder_and_dcx),
		cmocka_unit_test(test_binder_allocation_failures),
		cmocka_unit_test(test_walk_and_sample),
		cmocka_unit_test(test_gltf_import),
		cmocka_unit_test(test_gltf_export_allocation_failures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
