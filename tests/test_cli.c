/*
 * The hkspline CLI (path from HKSPLINE_CLI, set by ctest) run on synthetic
 * inputs in a temporary folder: `check` exit statuses, the one JSON object
 * of `check --json` with its keys (issue 2's contract), determinism across
 * -j, folder walks, and `info --json`; `encode IN.json` without --like: the
 * JSON's source.path, a donor tagfile found through --skeleton or --into
 * (built here from synthetic frames, tests/fuzz/synth.h) with the JSON's
 * track layout, and the error naming the three ways when there is neither.
 *
 * JSON is parsed with jansson. The test targets do not link it, so the
 * library is opened at run time (dlopen) and the few functions needed are
 * looked up by name; the type macros of <jansson.h> need no symbols.
 */
#define _DEFAULT_SOURCE
#include "hks_test.h"

#include "../tests/fuzz/synth.h"

#include <dlfcn.h>
#include <math.h>
#include <stdbool.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmp_root[64];
static char cli[1024];
static char make_sample[1024];

/* jansson, looked up at run time */
static struct {
	json_t *(*loads)(const char *, size_t, json_error_t *);
	json_t *(*object_get)(const json_t *, const char *);
	size_t (*object_size)(const json_t *);
	json_int_t (*integer_value)(const json_t *);
	const char *(*string_value)(const json_t *);
	double (*number_value)(const json_t *);
	size_t (*array_size)(const json_t *);
	json_t *(*array_get)(const json_t *, size_t);
	void (*delete_)(json_t *);
} js;

static bool load_jansson(void)
{
	void *h = dlopen("libjansson.so.4", RTLD_NOW);
	if (!h)
		h = dlopen("libjansson.so", RTLD_NOW);
	if (!h)
		return false;
	*(void **)&js.loads = dlsym(h, "json_loads");
	*(void **)&js.object_get = dlsym(h, "json_object_get");
	*(void **)&js.object_size = dlsym(h, "json_object_size");
	*(void **)&js.integer_value = dlsym(h, "json_integer_value");
	*(void **)&js.string_value = dlsym(h, "json_string_value");
	*(void **)&js.number_value = dlsym(h, "json_number_value");
	*(void **)&js.array_size = dlsym(h, "json_array_size");
	*(void **)&js.array_get = dlsym(h, "json_array_get");
	*(void **)&js.delete_ = dlsym(h, "json_delete");
	return js.loads && js.object_get && js.object_size && js.integer_value && js.string_value && js.number_value && js.array_size &&
	       js.array_get && js.delete_;
}

static char *path_in(const char *rel)
{
	static char buf[8][512];
	static int next;
	char *p = buf[next++ % 8];
	snprintf(p, 512, "%s/%s", tmp_root, rel);
	return p;
}

static void write_bytes(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, size, f), size);
	assert_int_equal(fclose(f), 0);
}

/* A BND4 binder of one member `name` holding data[0..size), written to path */
static void write_binder(const char *path, const char *name, const uint8_t *data, size_t size, size_t keep)
{
	hks_bnd4 *bnd = NULL;
	hks_error err;
	assert_int_equal(hks_bnd4_create(NULL, NULL, &bnd, &err), HKS_OK);
	assert_int_equal(hks_bnd4_add(bnd, name, 1, 0, data, size, &err), HKS_OK);
	uint8_t *bytes = NULL;
	size_t bsize = 0;
	assert_int_equal(hks_bnd4_write(bnd, NULL, &bytes, &bsize, &err), HKS_OK);
	write_bytes(path, bytes, keep && keep < bsize ? keep : bsize);
	hks_buffer_free(NULL, bytes, bsize);
	hks_bnd4_free(bnd);
}

/* Run a shell command; capture stdout (malloc'd) and return the exit status. */
static int run(const char *cmd, char **out)
{
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	size_t cap = 4096, n = 0;
	char *buf = (char *)malloc(cap);
	assert_non_null(buf);
	size_t k;
	while ((k = fread(buf + n, 1, cap - n - 1, p)) > 0) {
		n += k;
		if (cap - n < 2) {
			cap *= 2;
			buf = (char *)realloc(buf, cap);
			assert_non_null(buf);
		}
	}
	buf[n] = '\0';
	int st = pclose(p);
	*out = buf;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static json_t *parse_one_object(const char *text)
{
	json_error_t e;
	/* json_loads rejects trailing content: stdout must be exactly one JSON value */
	json_t *root = js.loads(text, 0, &e);
	if (!root)
		fprintf(stderr, "JSON error: %s (line %d)\n--- output ---\n%s\n", e.text, e.line, text);
	assert_non_null(root);
	assert_true(json_is_object(root));
	return root;
}

static long long get_int(const json_t *obj, const char *key)
{
	json_t *v = js.object_get(obj, key);
	if (!v)
		fprintf(stderr, "missing key %s\n", key);
	assert_non_null(v);
	assert_true(json_is_integer(v));
	return (long long)js.integer_value(v);
}

/* The counters every check object (overall and per SDK) carries. */
static void assert_counts(const json_t *o, long long files, long long failed, long long animations,
                          long long header_ok)
{
	assert_int_equal(get_int(o, "files"), files);
	assert_int_equal(get_int(o, "files_failed"), failed);
	assert_int_equal(get_int(o, "animations"), animations);
	assert_int_equal(get_int(o, "header_ok"), header_ok);
}

static int setup(void **state)
{
	(void)state;
	const char *c = getenv("HKSPLINE_CLI");
	if (!c || !*c) {
		fprintf(stderr, "HKSPLINE_CLI is not set (run through ctest)\n");
		return -1;
	}
	if (!load_jansson()) {
		fprintf(stderr, "libjansson could not be loaded\n");
		return -1;
	}
	snprintf(cli, sizeof(cli), "%s", c);
	snprintf(make_sample, sizeof(make_sample), "%s", c);
	char *slash = strrchr(make_sample, '/');
	if (!slash)
		return -1;
	snprintf(slash + 1, sizeof(make_sample) - (size_t)(slash + 1 - make_sample), "make_sample");
	snprintf(tmp_root, sizeof(tmp_root), "/tmp/hks_cli_XXXXXX");
	if (!mkdtemp(tmp_root))
		return -1;
	char cmd[4096];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/tree/sub' && '%s' '%s/tree/sub/sample.hkx' && '%s' --skeleton '%s/tree/Skeleton.HKX'",
	         tmp_root, make_sample, tmp_root, make_sample, tmp_root);
	return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[4096];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp_root);
	return system(cmd) == 0 ? 0 : -1;
}

/* A junk file: one failed file at the parse stage, animation -1, exit 1. */
static void test_check_junk(void **state)
{
	(void)state;
	write_bytes(path_in("junk.hkx"), "this is not a Havok file", 24);
	char cmd[4096], *out = NULL;
	snprintf(cmd, sizeof(cmd), "'%s' check --json --no-progress '%s'", cli, path_in("junk.hkx"));
	assert_int_equal(run(cmd, &out), 1);
	json_t *root = parse_one_object(out);
	assert_counts(root, 1, 1, 0, 0);
	json_t *failures = js.object_get(root, "failures");
	assert_true(json_is_array(failures));
	assert_int_equal(js.array_size(failures), 1);
	json_t *f = js.array_get(failures, 0);
	assert_string_equal(js.string_value(js.object_get(f, "path")), path_in("junk.hkx"));
	assert_int_equal(get_int(f, "animation"), -1);
	assert_string_equal(js.string_value(js.object_get(f, "stage")), "parse");
	assert_true(strlen(js.string_value(js.object_get(f, "error"))) > 0);
	json_t *by_sdk = js.object_get(root, "by_sdk");
	assert_true(json_is_object(by_sdk));
	assert_int_equal(js.object_size(by_sdk), 1);
	js.delete_(root);
	free(out);
}

/* A folder walk: the sample animation passes, the skeleton counts as a file,
 * other names are skipped; exit 0; per-SDK counts add up. */
static void test_check_folder(void **state)
{
	(void)state;
	write_bytes(path_in("tree/readme.txt"), "skip me", 7);
	char cmd[4096], *out = NULL;
	snprintf(cmd, sizeof(cmd), "'%s' check --json --no-progress -j 2 '%s'", cli, path_in("tree"));
	assert_int_equal(run(cmd, &out), 0);
	json_t *root = parse_one_object(out);
	assert_counts(root, 2, 0, 1, 1);
	assert_int_equal(get_int(root, "decoded"), 1);
	assert_int_equal(get_int(root, "walk_exact"), 1);
	json_t *by_sdk = js.object_get(root, "by_sdk");
	assert_int_equal(js.object_size(by_sdk), 1);
	json_t *sdk = js.object_get(by_sdk, "hk_2010.2.0-r1");
	assert_non_null(sdk);
	assert_counts(sdk, 2, 0, 1, 1);
	assert_int_equal(js.array_size(js.object_get(root, "failures")), 0);
	js.delete_(root);
	free(out);
}

/* check --reencode's keys (docs/CLI.md, the contract of issue 19's measurements), overall and per SDK, and
 * the relations between them: every record reproduces its animation; invisible control points bound the
 * parts and animations a record-free re-compression can reach. */
static void assert_reencode_keys(const json_t *o)
{
	long long anims = get_int(o, "animations"), parts = get_int(o, "reencode_spline_parts");
	long long exact_parts = get_int(o, "reencode_spline_parts_exact");
	assert_int_equal(get_int(o, "record_exact"), anims);
	assert_true(get_int(o, "reencode_exact") <= anims);
	assert_true(exact_parts <= parts);
	assert_true(get_int(o, "record_bytes") > 0 && get_int(o, "data_bytes") > 0);
	assert_true(get_int(o, "inverted_parts") >= 0);
	assert_true(get_int(o, "hidden_point_parts") <= parts);
	assert_true(get_int(o, "hidden_points") >= get_int(o, "hidden_point_parts"));
	assert_true(get_int(o, "hidden_point_parts_exact") <= exact_parts);
	assert_true(get_int(o, "hidden_point_free_animations") <= anims);
	assert_true(json_is_object(js.object_get(o, "reencode_first_diff")));
	json_t *amb = js.object_get(o, "inverted_ambiguity");
	assert_true(json_is_object(amb));
	assert_true(get_int(amb, "bound") >= 0 && get_int(amb, "control point") >= 0 && get_int(amb, "mask") >= 0);
	json_t *secs = js.object_get(o, "reencode_seconds");
	assert_true(json_is_number(secs) && js.number_value(secs) >= 0.0);
}

static void test_check_reencode(void **state)
{
	(void)state;
	char cmd[4096], *out = NULL;
	snprintf(cmd, sizeof(cmd), "'%s' check --reencode --json --no-progress '%s'", cli, path_in("tree/sub/sample.hkx"));
	assert_int_equal(run(cmd, &out), 0);
	json_t *root = parse_one_object(out);
	assert_int_equal(get_int(root, "animations"), 1);
	assert_reencode_keys(root);
	json_t *sdk = js.object_get(js.object_get(root, "by_sdk"), "hk_2010.2.0-r1");
	assert_non_null(sdk);
	assert_reencode_keys(sdk);
	js.delete_(root);
	free(out);
}

/* The same output for every -j; a mixed set fails as a whole (exit 1). */
static void test_check_deterministic(void **state)
{
	(void)state;
	write_bytes(path_in("junk2.hkx"), "junk", 4);
	char cmd[4096], *out1 = NULL, *out4 = NULL;
	snprintf(cmd, sizeof(cmd), "'%s' check --json --no-progress -j 1 '%s' '%s' '%s'", cli, path_in("tree"),
	         path_in("junk2.hkx"), path_in("tree/sub/sample.hkx"));
	assert_int_equal(run(cmd, &out1), 1);
	snprintf(cmd, sizeof(cmd), "'%s' check --json --no-progress -j4 '%s' '%s' '%s'", cli, path_in("tree"),
	         path_in("junk2.hkx"), path_in("tree/sub/sample.hkx"));
	assert_int_equal(run(cmd, &out4), 1);
	assert_string_equal(out1, out4);
	json_t *root = parse_one_object(out1);
	assert_counts(root, 4, 1, 2, 2);
	js.delete_(root);
	free(out1);
	free(out4);
}

/* Usage errors: exit 2; an unreadable path is a failed file (exit 1). */
static void test_check_usage(void **state)
{
	(void)state;
	char cmd[4096], *out = NULL;
	snprintf(cmd, sizeof(cmd), "'%s' check 2>/dev/null", cli);
	assert_int_equal(run(cmd, &out), 2);
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s' check --bogus '%s' 2>/dev/null", cli, path_in("tree"));
	assert_int_equal(run(cmd, &out), 2);
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s' check -j 0 '%s' 2>/dev/null", cli, path_in("tree"));
	assert_int_equal(run(cmd, &out), 2);
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s' check --json --no-progress '%s'", cli, path_in("missing.hkx"));
	assert_int_equal(run(cmd, &out), 1);
	json_t *root = parse_one_object(out);
	assert_counts(root, 1, 1, 0, 0);
	js.delete_(root);
	free(out);
	/* text mode: a summary line, exit 0 */
	snprintf(cmd, sizeof(cmd), "'%s' check --no-progress '%s'", cli, path_in("tree/sub/sample.hkx"));
	assert_int_equal(run(cmd, &out), 0);
	assert_non_null(strstr(out, "total"));
	free(out);
}

/* info --json: the animation's header fields and the selectors in its masks. */
static void test_info_json(void **state)
{
	(void)state;
	char cmd[4096], *out = NULL;
	snprintf(cmd, sizeof(cmd), "'%s' info --json '%s'", cli, path_in("tree"));
	assert_int_equal(run(cmd, &out), 0);
	json_t *root = parse_one_object(out);
	json_t *files = js.object_get(root, "files");
	assert_int_equal(js.array_size(files), 2);
	/* sorted walk: "Skeleton.HKX" < "sub" */
	json_t *skel = js.array_get(files, 0);
	assert_string_equal(js.string_value(js.object_get(skel, "container")), "packfile");
	json_t *skeletons = js.object_get(skel, "skeletons");
	assert_int_equal(js.array_size(skeletons), 1);
	assert_int_equal(get_int(js.array_get(skeletons, 0), "bones"), 2);
	json_t *f = js.array_get(files, 1);
	assert_string_equal(js.string_value(js.object_get(f, "sdk")), "hk_2010.2.0-r1");
	json_t *anims = js.object_get(f, "animations");
	assert_int_equal(js.array_size(anims), 1);
	json_t *a = js.array_get(anims, 0);
	assert_int_equal(get_int(a, "frames"), 31);
	assert_int_equal(get_int(a, "transform_tracks"), 2);
	assert_int_equal(get_int(a, "blocks"), 1);
	assert_int_equal(get_int(a, "max_frames_per_block"), 256);
	assert_int_equal(get_int(a, "data_size"), 64);
	json_t *sel = js.object_get(a, "rotation_selectors");
	assert_int_equal(js.object_size(sel), 1);
	assert_int_equal(get_int(sel, "Uncompressed"), 1);
	json_t *bindings = js.object_get(f, "bindings");
	assert_int_equal(get_int(js.array_get(bindings, 0), "track_to_bone"), 2);
	js.delete_(root);
	free(out);
	/* a junk file: exit 1, still one JSON object */
	snprintf(cmd, sizeof(cmd), "'%s' info --json '%s'", cli, path_in("junk.hkx"));
	assert_int_equal(run(cmd, &out), 1);
	root = parse_one_object(out);
	js.delete_(root);
	free(out);
}

/* ---- encode IN.json without --like ---- */

static char *read_text(const char *path)
{
	size_t size = 0;
	uint8_t *bytes = hks_test_read_file(path, &size);
	assert_non_null(bytes);
	return (char *)bytes; /* NUL-terminated by hks_test_read_file */
}

static void write_text(const char *path, const char *text)
{
	write_bytes(path, text, strlen(text));
}

/* `text` with every occurrence of `from` replaced by `to` (malloc'd). */
static char *replace_all(const char *text, const char *from, const char *to)
{
	size_t nf = strlen(from), nt = strlen(to), count = 0;
	for (const char *p = strstr(text, from); p; p = strstr(p + nf, from))
		count++;
	char *out = (char *)malloc(strlen(text) + count * (nt + 1) + 1), *o = out;
	assert_non_null(out);
	const char *p = text;
	for (const char *q = strstr(p, from); q; q = strstr(p, from)) {
		memcpy(o, p, (size_t)(q - p));
		o += q - p;
		memcpy(o, to, nt);
		o += nt;
		p = q + nf;
	}
	strcpy(o, p);
	return out;
}

/* The decode JSON without its "source" object (no nested braces inside it). */
static char *without_source(const char *text)
{
	const char *a = strstr(text, "\"source\":{");
	assert_non_null(a);
	const char *b = strchr(a, '}');
	assert_non_null(b);
	b++;
	if (*b == ',')
		b++;
	char *out = (char *)malloc(strlen(text) + 1);
	assert_non_null(out);
	memcpy(out, text, (size_t)(a - text));
	strcpy(out + (a - text), b);
	return out;
}

static bool files_equal(const char *a, const char *b)
{
	size_t na = 0, nb = 0;
	uint8_t *pa = hks_test_read_file(a, &na), *pb = hks_test_read_file(b, &nb);
	bool eq = pa && pb && na == nb && !memcmp(pa, pb, na);
	free(pa);
	free(pb);
	return eq;
}

/* The donor folder enc/chr: the skeleton (Root, Child) and a tagfile of SDK
 * 20160200 holding a synthetic 3-track clip and its binding; and the binder
 * enc/c.anibnd with the same two files. */
static void make_donors(void)
{
	char cmd[4096], *out = NULL;
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/enc/chr' && '%s' --skeleton '%s/enc/chr/Skeleton.HKX'", tmp_root,
	         make_sample, tmp_root);
	assert_int_equal(run(cmd, &out), 0);
	free(out);
	hks_packed_spline *p = synth_spline(3, 0, 20, 0, 0, "20160200");
	assert_non_null(p);
	size_t tag_size = 0, skel_size = 0;
	uint8_t *tag = synth_tagfile(p, "20160200", NULL, &tag_size);
	assert_non_null(tag);
	/* a donor must be bound to the skeleton it is found with (hks_donor_find): the
	 * synthetic binding names "Master", make_sample's skeleton is "Sample" */
	for (size_t i = 0; i + 6 <= tag_size; i++)
		if (!memcmp(tag + i, "Master", 6))
			memcpy(tag + i, "Sample", 6);
	write_bytes(path_in("enc/chr/a000_000100.hkx"), tag, tag_size);
	uint8_t *skel = hks_test_read_file(path_in("enc/chr/Skeleton.HKX"), &skel_size);
	assert_non_null(skel);
	hks_bnd4 *bnd = NULL;
	hks_error err;
	assert_int_equal(hks_bnd4_create(NULL, NULL, &bnd, &err), HKS_OK);
	assert_int_equal(hks_bnd4_add(bnd, "Skeleton.HKX", 1000000, 0, skel, skel_size, &err), HKS_OK);
	assert_int_equal(hks_bnd4_add(bnd, "a000_000100.hkx", 1000000100, 0, tag, tag_size, &err), HKS_OK);
	uint8_t *bytes = NULL;
	size_t size = 0;
	assert_int_equal(hks_bnd4_write(bnd, NULL, &bytes, &size, &err), HKS_OK);
	write_bytes(path_in("enc/c.anibnd"), bytes, size);
	hks_buffer_free(NULL, bytes, size);
	hks_bnd4_free(bnd);
	free(skel);
	free(tag);
	hks_packed_spline_free(p);
}

/* The JSON's frames of animation 0, frame-major (T·10 per frame). */
static float *json_frames(const char *json_path, uint32_t *frames, uint32_t *tracks)
{
	char *text = read_text(json_path);
	json_t *root = parse_one_object(text);
	json_t *anim = js.array_get(js.object_get(root, "animations"), 0);
	uint32_t n = (uint32_t)get_int(anim, "frames");
	json_t *tr = js.object_get(anim, "tracks");
	uint32_t T = (uint32_t)js.array_size(tr);
	float *v = (float *)calloc((size_t)n * T * 10 + 1, sizeof(float));
	assert_non_null(v);
	static const char *const parts[3] = {"translation", "rotation", "scale"};
	static const int first[3] = {0, 3, 7}, lanes[3] = {3, 4, 3};
	for (uint32_t t = 0; t < T; t++)
		for (int k = 0; k < 3; k++) {
			json_t *rows = js.object_get(js.array_get(tr, t), parts[k]);
			assert_int_equal(js.array_size(rows), n);
			for (uint32_t f = 0; f < n; f++)
				for (int l = 0; l < lanes[k]; l++)
					v[((size_t)f * T + t) * 10 + (size_t)(first[k] + l)] =
					    (float)js.number_value(js.array_get(js.array_get(rows, f), (size_t)l));
		}
	js.delete_(root);
	free(text);
	*frames = n;
	*tracks = T;
	return v;
}

/*
 * Read back `hkx` (a whole file, or the member `member` of the binder `hkx`):
 * animation 0 has the JSON's frame and track counts, the binding maps track t to
 * bone want_bones[t] (NULL: not checked), and every sampled component is within
 * the encoder's tolerance (0.001) plus the 16-bit quantization step of the
 * sample's small ranges (< 1e-4; ThreeComp40 rotations: 4e-4) of the JSON's value.
 */
static void check_written(const char *hkx, const char *member, const char *json_path, const char *want_sdk,
                          const int16_t *want_bones)
{
	hks_loader *loader = NULL;
	hks_error err;
	assert_int_equal(hks_loader_create(NULL, &loader, &err), HKS_OK);
	assert_int_equal(hks_loader_add_path(loader, hkx, &err), HKS_OK);
	size_t unit = hks_loader_count(loader);
	for (size_t i = 0; i < hks_loader_count(loader); i++) {
		const char *p = hks_loader_path(loader, i);
		if (!member || (strlen(p) > strlen(member) && !strcmp(p + strlen(p) - strlen(member), member)))
			unit = i;
	}
	assert_true(unit < hks_loader_count(loader));
	hks_loaded *ld = NULL;
	assert_int_equal(hks_loader_load(loader, unit, &ld), HKS_OK);
	if (ld->status != HKS_OK)
		fprintf(stderr, "%s: %s\n", hkx, ld->error.message);
	assert_int_equal(ld->status, HKS_OK);
	const hks_file *f = ld->file;
	if (want_sdk)
		assert_string_equal(f->sdk, want_sdk);
	uint32_t n = 0, T = 0;
	float *want = json_frames(json_path, &n, &T);
	assert_true(f->num_animations >= 1);
	const hks_animation *a = &f->animations[0];
	assert_int_equal(a->kind, HKS_ANIMATION_SPLINE);
	assert_int_equal(a->number_of_transform_tracks, (int32_t)T);
	assert_int_equal(a->spline.num_frames, (int32_t)n);
	if (want_bones) {
		assert_true(f->num_bindings >= 1);
		assert_int_equal(f->bindings[0].num_transform_track_to_bone_indices, T);
		for (uint32_t t = 0; t < T; t++)
			assert_int_equal(f->bindings[0].transform_track_to_bone_indices[t], want_bones[t]);
	}
	hks_stored_animation *s = NULL;
	assert_int_equal(hks_stored_read(a, NULL, &s, &err), HKS_OK);
	float *got = (float *)calloc((size_t)n * T * 10 + 1, sizeof(float)), fl[1];
	assert_non_null(got);
	assert_int_equal(hks_sample_frames(s, NULL, 0, n, got, fl, &err), HKS_OK);
	for (size_t i = 0; i < (size_t)n * T * 10; i++) {
		int k = (int)(i % 10);
		double bound = 0.001 + (k >= 3 && k < 7 ? 4e-4 : 1e-4);
		if (!(fabs((double)got[i] - (double)want[i]) <= bound))
			fprintf(stderr, "%s: component %zu: %.9g, JSON %.9g\n", hkx, i, (double)got[i], (double)want[i]);
		assert_true(fabs((double)got[i] - (double)want[i]) <= bound);
	}
	free(got);
	free(want);
	hks_stored_free(s);
	hks_loaded_free(ld);
	hks_loader_free(loader);
}

/* Path a: the JSON's own source.path, byte for byte the --like result. */
static void test_encode_json_source(void **state)
{
	(void)state;
	char cmd[8192], *out = NULL;
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/enc' && '%s' decode '%s' --skeleton '%s' -o '%s'", tmp_root, cli,
	         path_in("tree/sub/sample.hkx"), path_in("tree/Skeleton.HKX"), path_in("enc/s.json"));
	assert_int_equal(run(cmd, &out), 0);
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s' encode '%s' -o '%s' 2>&1", cli, path_in("enc/s.json"), path_in("enc/a.hkx"));
	assert_int_equal(run(cmd, &out), 0);
	assert_non_null(strstr(out, "(the JSON's source.path)"));
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s' encode '%s' -o '%s' --like '%s'", cli, path_in("enc/s.json"),
	         path_in("enc/like.hkx"), path_in("tree/sub/sample.hkx"));
	assert_int_equal(run(cmd, &out), 0);
	free(out);
	assert_true(files_equal(path_in("enc/a.hkx"), path_in("enc/like.hkx")));
	check_written(path_in("enc/a.hkx"), NULL, path_in("enc/s.json"), "hk_2010.2.0-r1", NULL);
	/* --no-guard: Havok's fit as is (the sample's slow motion stays within the bound anyway) */
	snprintf(cmd, sizeof(cmd), "'%s' encode '%s' -o '%s' --no-guard", cli, path_in("enc/s.json"),
	         path_in("enc/ng.hkx"));
	assert_int_equal(run(cmd, &out), 0);
	free(out);
	check_written(path_in("enc/ng.hkx"), NULL, path_in("enc/s.json"), "hk_2010.2.0-r1", NULL);
	/* a relative source.path (decode run inside the folder) is found beside the JSON when the
	 * encode runs elsewhere */
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' decode sample.hkx --skeleton ../Skeleton.HKX -o rel.json",
	         path_in("tree/sub"), cli);
	assert_int_equal(run(cmd, &out), 0);
	free(out);
	snprintf(cmd, sizeof(cmd), "cd / && '%s' encode '%s' -o '%s' 2>&1", cli, path_in("tree/sub/rel.json"),
	         path_in("enc/rel.hkx"));
	assert_int_equal(run(cmd, &out), 0);
	assert_non_null(strstr(out, "(the JSON's source.path)"));
	free(out);
	assert_true(files_equal(path_in("enc/rel.hkx"), path_in("enc/like.hkx")));
}

/* LAPACK is loaded at the first quality-mode solve, not when the CLI starts (docs/BUILDING.md):
 * a check maps neither LAPACKE nor OpenBLAS (whose threads spun for a tenth of a second of CPU in
 * every process); an encode with --solver quality loads LAPACKE in a LAPACK build. glibc's loader
 * tells which libraries it opens (LD_DEBUG=libs); under Wine the CLI is a wrapper script and the
 * second half is skipped. */
static void test_lapack_loaded_only_to_solve(void **state)
{
	(void)state;
	char cmd[8192], *out = NULL;
	snprintf(cmd, sizeof(cmd), "LD_DEBUG=libs '%s' check --no-progress '%s' 2>&1", cli, path_in("tree/sub/sample.hkx"));
	assert_int_equal(run(cmd, &out), 0);
	assert_null(strstr(out, "lapacke"));
	assert_null(strstr(out, "openblas"));
	free(out);
	FILE *f = fopen(cli, "rb");
	assert_non_null(f);
	char magic[4] = {0};
	size_t got = fread(magic, 1, 4, f);
	fclose(f);
	if (!HKS_WITH_LAPACK || got != 4 || memcmp(magic, "\x7f" "ELF", 4) != 0)
		return;
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/lap' && '%s' decode '%s' --skeleton '%s' -o '%s'", tmp_root, cli,
	         path_in("tree/sub/sample.hkx"), path_in("tree/Skeleton.HKX"), path_in("lap/s.json"));
	assert_int_equal(run(cmd, &out), 0);
	free(out);
	snprintf(cmd, sizeof(cmd), "LD_DEBUG=libs '%s' encode '%s' --solver quality -o '%s' 2>&1", cli,
	         path_in("lap/s.json"), path_in("lap/q.hkx"));
	assert_int_equal(run(cmd, &out), 0);
	/* "calling init": the library was found and loaded, not only searched for */
	const char *init = strstr(out, "calling init:");
	bool loaded = false;
	for (; init && !loaded; init = strstr(init + 1, "calling init:")) {
		const char *eol = strchr(init, '\n');
		const char *hit = strstr(init, "liblapacke");
		loaded = hit && (!eol || hit < eol);
	}
	assert_true(loaded);
	free(out);
}

/* recompress BINDER:MEMBER, as decode and encode --like take one member (it said "No such file or
 * directory"): --exact writes the member's own bytes back; a missing member is named */
static void test_recompress_binder_member(void **state)
{
	(void)state;
	size_t size = 0;
	uint8_t *sample = hks_test_read_file(path_in("tree/sub/sample.hkx"), &size);
	assert_non_null(sample);
	hks_bnd4 *bnd = NULL;
	hks_error err;
	assert_int_equal(hks_bnd4_create(NULL, NULL, &bnd, &err), HKS_OK);
	assert_int_equal(hks_bnd4_add(bnd, "N:\\x\\a000_000001.hkx", 1000000001, 0, sample, size, &err), HKS_OK);
	assert_int_equal(hks_bnd4_add(bnd, "N:\\x\\a000_000002.hkx", 1000000002, 0, sample, size, &err), HKS_OK);
	uint8_t *bytes = NULL;
	size_t bsize = 0;
	assert_int_equal(hks_bnd4_write(bnd, NULL, &bytes, &bsize, &err), HKS_OK);
	char cmd[8192], *out = NULL;
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/rcm'", tmp_root);
	assert_int_equal(run(cmd, &out), 0);
	free(out);
	write_bytes(path_in("rcm/c.anibnd"), bytes, bsize);
	hks_buffer_free(NULL, bytes, bsize);
	hks_bnd4_free(bnd);
	snprintf(cmd, sizeof(cmd), "'%s' recompress '%s:a000_000002.hkx' --exact -o '%s' --record '%s' 2>&1", cli,
	         path_in("rcm/c.anibnd"), path_in("rcm/out.hkx"), path_in("rcm/out.rec"));
	assert_int_equal(run(cmd, &out), 0);
	assert_non_null(strstr(out, "c.anibnd:a000_000002.hkx: 1 animations"));
	free(out);
	size_t got_size = 0;
	uint8_t *got = hks_test_read_file(path_in("rcm/out.hkx"), &got_size);
	assert_non_null(got);
	assert_int_equal(got_size, size);
	assert_memory_equal(got, sample, size);
	free(got);
	snprintf(cmd, sizeof(cmd), "'%s' recompress '%s:missing.hkx' 2>&1", cli, path_in("rcm/c.anibnd"));
	assert_int_equal(run(cmd, &out), 1); /* a failed input (docs/CLI.md "Exit statuses") */
	assert_non_null(strstr(out, "has no member 'missing.hkx'"));
	free(out);
	/* a path with a ':' that names no binder keeps its own error (a missing C:\x.hkx said "C: No such
	 * file") */
	snprintf(cmd, sizeof(cmd), "'%s' recompress '%s' 2>&1", cli, path_in("rcm/C:nope.hkx"));
	assert_int_equal(run(cmd, &out), 1);
	assert_non_null(strstr(out, "C:nope.hkx"));
	free(out);
	free(sample);
}

/* encode enc/nosrc.json -o enc/OUT --into enc/c.anibnd --name NAME [EXTRA]: its status, output in *out */
static int encode_into(const char *name, const char *out_hkx, const char *extra, char **out)
{
	char cmd[8192], json[1024], hkx[1024], binder[1024];
	snprintf(json, sizeof(json), "%s", path_in("enc/nosrc.json"));
	snprintf(hkx, sizeof(hkx), "%s", path_in(out_hkx));
	snprintf(binder, sizeof(binder), "%s", path_in("enc/c.anibnd"));
	snprintf(cmd, sizeof(cmd), "'%s' encode '%s' -o '%s' --into '%s' --name %s %s 2>&1", cli, json, hkx, binder, name,
	         extra);
	return run(cmd, out);
}

/* Path b: no usable source; a donor through --skeleton (its folder) or --into
 * (the binder), bones bound by the JSON's names. */
static void test_encode_json_donor(void **state)
{
	(void)state;
	make_donors();
	char *text = read_text(path_in("enc/s.json"));
	char *nosrc = without_source(text);
	write_text(path_in("enc/nosrc.json"), nosrc);
	/* a source that does not load falls through to the donor */
	char *missing = replace_all(text, "sub/sample.hkx", "sub/missing.hkx");
	write_text(path_in("enc/missing.json"), missing);
	/* the same tracks named the other way round: the binding follows the names */
	char *swapped = replace_all(nosrc, "\"bone\":\"Root\"", "\"bone\":\"@\"");
	char *swapped2 = replace_all(swapped, "\"bone\":\"Child\"", "\"bone\":\"Root\"");
	char *swapped3 = replace_all(swapped2, "\"bone\":\"@\"", "\"bone\":\"Child\"");
	write_text(path_in("enc/swapped.json"), swapped3);
	char *unknown = replace_all(nosrc, "\"bone\":\"Child\"", "\"bone\":\"Nowhere\"");
	write_text(path_in("enc/unknown.json"), unknown);
	static const int16_t identity[2] = {0, 1}, reversed[2] = {1, 0};

	char cmd[8192], *out = NULL;
	snprintf(cmd, sizeof(cmd), "'%s' encode '%s' -o '%s' --skeleton '%s' 2>&1", cli, path_in("enc/nosrc.json"),
	         path_in("enc/b.hkx"), path_in("enc/chr/Skeleton.HKX"));
	assert_int_equal(run(cmd, &out), 0);
	assert_non_null(strstr(out, "container: donor"));
	assert_non_null(strstr(out, "a000_000100.hkx"));
	free(out);
	check_written(path_in("enc/b.hkx"), NULL, path_in("enc/nosrc.json"), "20160200", identity);

	snprintf(cmd, sizeof(cmd), "'%s' encode '%s' -o '%s' --skeleton '%s' 2>&1", cli, path_in("enc/missing.json"),
	         path_in("enc/m.hkx"), path_in("enc/chr/Skeleton.HKX"));
	assert_int_equal(run(cmd, &out), 0);
	assert_non_null(strstr(out, "does not fit"));
	assert_non_null(strstr(out, "container: donor"));
	free(out);
	assert_true(files_equal(path_in("enc/b.hkx"), path_in("enc/m.hkx")));

	snprintf(cmd, sizeof(cmd), "'%s' encode '%s' -o '%s' --skeleton '%s' --game sekiro 2>&1", cli,
	         path_in("enc/swapped.json"), path_in("enc/sw.hkx"), path_in("enc/chr/Skeleton.HKX"));
	assert_int_equal(run(cmd, &out), 0);
	free(out);
	check_written(path_in("enc/sw.hkx"), NULL, path_in("enc/swapped.json"), "20160200", reversed);

	/* --into: the donor and the skeleton come from the binder; the output is added to it */
	assert_int_equal(encode_into("a000_000200.hkx", "enc/b2.hkx", "", &out), 0);
	assert_non_null(strstr(out, "container: donor"));
	assert_non_null(strstr(out, "added a000_000200.hkx"));
	free(out);
	assert_true(files_equal(path_in("enc/b.hkx"), path_in("enc/b2.hkx")));
	check_written(path_in("enc/c.anibnd"), ":a000_000200.hkx", path_in("enc/nosrc.json"), "20160200", identity);
	/* --into replaces animations only: the skeleton member is refused, whatever its name, and
	 * the binder keeps its bytes; an animation member is replaced */
	size_t before_size = 0, after_size = 0;
	uint8_t *before = hks_test_read_file(path_in("enc/c.anibnd"), &before_size);
	assert_int_equal(encode_into("Skeleton.HKX", "enc/b3.hkx", "--no-backup", &out), 2);
	assert_non_null(strstr(out, "'Skeleton.HKX' of"));
	assert_non_null(strstr(out, "holds no animation (1 skeleton(s))"));
	free(out);
	uint8_t *after = hks_test_read_file(path_in("enc/c.anibnd"), &after_size);
	assert_int_equal(before_size, after_size);
	assert_memory_equal(before, after, before_size);
	free(after);
	assert_int_equal(encode_into("a000_000100.hkx", "enc/b3.hkx", "--no-backup", &out), 0);
	assert_non_null(strstr(out, "replaced a000_000100.hkx"));
	free(out);
	check_written(path_in("enc/c.anibnd"), ":a000_000100.hkx", path_in("enc/nosrc.json"), "20160200", identity);
	free(before);

	/* a bone the skeleton lacks: exit 2, named */
	snprintf(cmd, sizeof(cmd), "'%s' encode '%s' -o '%s' --skeleton '%s' 2>&1", cli, path_in("enc/unknown.json"),
	         path_in("enc/u.hkx"), path_in("enc/chr/Skeleton.HKX"));
	assert_int_equal(run(cmd, &out), 2);
	assert_non_null(strstr(out, "Nowhere"));
	free(out);
	/* no donor of the wanted SDK */
	snprintf(cmd, sizeof(cmd), "'%s' encode '%s' -o '%s' --skeleton '%s' --game eldenring 2>&1", cli,
	         path_in("enc/nosrc.json"), path_in("enc/e.hkx"), path_in("enc/chr/Skeleton.HKX"));
	assert_int_equal(run(cmd, &out), 2);
	assert_non_null(strstr(out, "no donor tagfile of SDK 20180100"));
	free(out);
	free(text);
	free(nosrc);
	free(missing);
	free(swapped);
	free(swapped2);
	free(swapped3);
	free(unknown);
}

/* Each of `forms` (an hkspline command line, `%s` up to three times for `arg`) exits with `want`. */
static void expect_statuses(const char *const *forms, size_t n, const char *arg, int want)
{
	for (size_t f = 0; f < n; f++) {
		char args[4096], cmd[8192], *out = NULL;
		snprintf(args, sizeof(args), forms[f], arg, arg, arg, arg);
		snprintf(cmd, sizeof(cmd), "'%s' %s 2>&1", cli, args);
		int st = run(cmd, &out);
		if (st != want)
			fail_msg("%s: status %d, not %d\n%s", cmd, st, want, out);
		free(out);
	}
}

/* BINDER:MEMBER (session 19 Windows trial): a member's full name holds a ':' ("N:\\...") and
 * split BINDER:MEMBER at the wrong place; two members with one base name could not be named at
 * all (the base name said "has no member"); a member that is no Havok file said "has no member". */
static void test_member_names(void **state)
{
	(void)state;
	size_t size = 0;
	uint8_t *sample = hks_test_read_file(path_in("tree/sub/sample.hkx"), &size);
	assert_non_null(sample);
	hks_bnd4 *bnd = NULL;
	hks_error err;
	assert_int_equal(hks_bnd4_create(NULL, NULL, &bnd, &err), HKS_OK);
	assert_int_equal(hks_bnd4_add(bnd, "N:\\m\\one\\a000_000100.hkx", 1, 0x40, sample, size, &err), HKS_OK);
	assert_int_equal(hks_bnd4_add(bnd, "N:\\m\\two\\a000_000100.hkx", 2, 0x40, sample, size, &err), HKS_OK);
	assert_int_equal(hks_bnd4_add(bnd, "N:\\m\\a000_000200.hkx", 3, 0x40, sample, size, &err), HKS_OK);
	assert_int_equal(hks_bnd4_add(bnd, "N:\\m\\c.tae", 4, 0x40, "TAE ", 4, &err), HKS_OK);
	uint8_t *bytes = NULL;
	size_t bsize = 0;
	assert_int_equal(hks_bnd4_write(bnd, NULL, &bytes, &bsize, &err), HKS_OK);
	char dir[2048];
	snprintf(dir, sizeof(dir), "%s", path_in("mn"));
	char cmd[8192], *out = NULL;
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", dir);
	assert_int_equal(run(cmd, &out), 0);
	free(out);
	write_bytes(path_in("mn/m.anibnd"), bytes, bsize);
	hks_buffer_free(NULL, bytes, bsize);
	hks_bnd4_free(bnd);
	free(sample);
	const char *b = path_in("mn/m.anibnd");
	static const struct {
		const char *cmd, *member, *expect;
		int status;
	} cases[] = {
	    {"info", "N:\\m\\two\\a000_000100.hkx", "a000_000100.hkx", 0},
	    {"info", "n:\\M\\ONE\\a000_000100.hkx", "a000_000100.hkx", 0},
	    {"info", "a000_000200.hkx", "a000_000200.hkx", 0},
	    {"info", "a000_000100.hkx", "give the full name", 2},
	    {"info", "c.tae", "is not a Havok file", 1},
	    {"info", "a999.hkx", "has no member", 1},
	    {"decode", "N:\\m\\two\\a000_000100.hkx", "\"frames\"", 0},
	    {"decode", "c.tae", "is not a Havok file", 1},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(cmd, sizeof(cmd), "'%s' %s '%s:%s'%s 2>&1", cli, cases[i].cmd, b, cases[i].member,
		         strcmp(cases[i].cmd, "decode") ? "" : " -o -");
		int st = run(cmd, &out);
		if (st != cases[i].status || !strstr(out, cases[i].expect))
			fail_msg("%s: status %d (want %d), output lacks '%s':\n%.600s", cmd, st, cases[i].status,
			         cases[i].expect, out);
		free(out);
	}
}

/* docs/CLI.md "Exit statuses": an input that cannot be read, parsed or used is status 1 for every
 * command (decode, error, encode, repack, recompress, stats and bench said 2 where info and check
 * said 1); usage errors stay 2. A file without a spline animation is refused by recompress -o /
 * --record (it wrote a 6-byte record and said nothing) and named as such by decode to glTF (it
 * said "no skeleton"). --compendium=P and the other path options take the '=' form. */
static void test_exit_statuses(void **state)
{
	(void)state;
	char cmd[8192], *out = NULL;
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/xs' && head -c 100 /dev/zero > '%s'", tmp_root, path_in("xs/junk.hkx"));
	assert_int_equal(run(cmd, &out), 0);
	free(out);
	static const char *const forms[] = {
	    "info %s",          "check %s",         "stats %s",         "decode %s -o %s.json", "decode %s -o %s.glb",
	    "repack %s -o %s.hkx", "recompress %s",  "error %s %s",      "encode %s -o %s.hkx",  "bench decode %s"};
	static const char *const inputs[] = {"xs/junk.hkx", "xs/missing.hkx"};
	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		char in[2048];
		snprintf(in, sizeof(in), "'%s'", path_in(inputs[i]));
		expect_statuses(forms, sizeof(forms) / sizeof(forms[0]), in, 1);
	}
	/* encode --like a file that does not load, --skeleton that does not exist: 1 */
	snprintf(cmd, sizeof(cmd), "'%s' decode '%s' -o '%s' 2>&1", cli, path_in("tree/sub/sample.hkx"), path_in("xs/s.json"));
	assert_int_equal(run(cmd, &out), 0);
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s' decode '%s' --skeleton '%s' -o '%s' 2>&1", cli, path_in("tree/sub/sample.hkx"),
	         path_in("tree/Skeleton.HKX"), path_in("xs/s.glb"));
	assert_int_equal(run(cmd, &out), 0);
	free(out);
	static const char *const encodes[] = {"encode '%s/xs/s.json' --like '%s/xs/junk.hkx' -o '%s/xs/o.hkx'",
	                                      "encode '%s/enc/nosrc.json' --skeleton '%s/xs/missing.hkx' -o '%s/xs/o.hkx'",
	                                      "encode '%s/xs/missing.glb' --like '%s/tree/sub/sample.hkx' -o '%s/xs/o.hkx'",
	                                      "encode '%s/xs/s.glb' --like '%s/tree/Skeleton.HKX' -o '%s/xs/o.hkx'",
	                                      "encode '%s/xs/s.json' --into '%s/xs/missing.dcx' --name a.hkx -o '%s/xs/o.hkx'",
	                                      "encode '%s/xs/s.json' --into '%s/xs/junk.hkx' --name a.hkx -o '%s/xs/o.hkx'",
	                                      "bench encode '%s/xs/junk.hkx' '%s/xs/junk.hkx' '%s/xs/junk.hkx'",
	                                      "bench recompress '%s/xs/junk.hkx' '%s/xs/junk.hkx' '%s/xs/junk.hkx'"};
	expect_statuses(encodes, sizeof(encodes) / sizeof(encodes[0]), tmp_root, 1);
	assert_int_equal(access(path_in("xs/o.hkx"), F_OK), -1);
	/* an output that cannot be written: 2 (repack, recompress and bnd said 1) */
	static const char *const unwritable[] = {
	    "decode '%s/tree/sub/sample.hkx' -o '%s/xs/nodir/x.json'",
	    "repack '%s/tree/sub/sample.hkx' -o '%s/xs/nodir/x.hkx'",
	    "recompress '%s/tree/sub/sample.hkx' -o '%s/xs/nodir/x.hkx'",
	    "recompress '%s/tree/sub/sample.hkx' --record '%s/xs/nodir/x.rec'",
	    "bnd replace '%s/xs/b.anibnd' a.hkx '%s/tree/sub/sample.hkx' -o '%s/xs/nodir/b.anibnd'",
	    "bnd extract '%s/xs/b.anibnd' -o '%s/xs/junk.hkx/sub'",
	};
	{
		size_t size = 0;
		uint8_t *sample = hks_test_read_file(path_in("tree/sub/sample.hkx"), &size);
		assert_non_null(sample);
		write_binder(path_in("xs/b.anibnd"), "a.hkx", sample, size, 0);
		/* a damaged binder: BINDER:MEMBER names the binder's own error, not "has no member" */
		size_t whole = 0;
		uint8_t *b = hks_test_read_file(path_in("xs/b.anibnd"), &whole);
		assert_non_null(b);
		write_binder(path_in("xs/cut.anibnd"), "a.hkx", sample, size, whole / 2);
		free(b);
		free(sample);
	}
	expect_statuses(unwritable, sizeof(unwritable) / sizeof(unwritable[0]), tmp_root, 2);
	snprintf(cmd, sizeof(cmd), "'%s' decode '%s:a.hkx' -o '%s' 2>&1", cli, path_in("xs/cut.anibnd"), path_in("xs/c.json"));
	assert_int_equal(run(cmd, &out), 1);
	assert_null(strstr(out, "has no member"));
	assert_non_null(strstr(out, "cut.anibnd"));
	free(out);
	/* -o naming a binder for a bare .hkx is refused, the binder kept (recompress replaced it) */
	size_t bsize0 = 0;
	uint8_t *b0 = hks_test_read_file(path_in("xs/b.anibnd"), &bsize0);
	assert_non_null(b0);
	static const char *const clobber[] = {"recompress '%s/tree/sub/sample.hkx' -o '%s/xs/b.anibnd'",
	                                      "repack '%s/tree/sub/sample.hkx' -o '%s/xs/b.anibnd'"};
	for (size_t f = 0; f < sizeof(clobber) / sizeof(clobber[0]); f++) {
		expect_statuses(&clobber[f], 1, tmp_root, 2);
		size_t bs = 0;
		uint8_t *b = hks_test_read_file(path_in("xs/b.anibnd"), &bs);
		assert_non_null(b);
		assert_int_equal(bs, bsize0);
		assert_memory_equal(b, b0, bs);
		free(b);
	}
	free(b0);
	/* encode without what --into needs: the missing option is named (only the usage was printed) */
	snprintf(cmd, sizeof(cmd), "'%s' encode '%s/xs/s.json' --into '%s/xs/b.anibnd' -o '%s/xs/o.hkx' 2>&1", cli, tmp_root,
	         tmp_root, tmp_root);
	assert_int_equal(run(cmd, &out), 2);
	assert_non_null(strstr(out, "missing --name"));
	free(out);
	/* -o and --record naming one new file in two spellings: refused, nothing written (the record
	 * replaced the output and the command said nothing; session 19 Windows trial) */
	snprintf(cmd, sizeof(cmd), "'%s' recompress '%s' -o '%s' --record '%s/xs/./same.bin' 2>&1", cli,
	         path_in("tree/sub/sample.hkx"), path_in("xs/same.bin"), tmp_root);
	assert_int_equal(run(cmd, &out), 2);
	assert_non_null(strstr(out, "same file"));
	free(out);
	assert_int_equal(access(path_in("xs/same.bin"), F_OK), -1);
	/* bnd pack -o inside DIR: refused (it overwrote a member file) */
	snprintf(cmd, sizeof(cmd), "'%s' bnd extract '%s' -o '%s' >/dev/null && '%s' bnd pack '%s' -o '%s' 2>&1", cli,
	         path_in("xs/b.anibnd"), path_in("xs/bx"), cli, path_in("xs/bx"), path_in("xs/bx/a.hkx"));
	assert_int_equal(run(cmd, &out), 2);
	assert_non_null(strstr(out, "inside"));
	free(out);
	/* a refused --into (a member without an animation) writes no -o either */
	snprintf(cmd, sizeof(cmd), "'%s' encode '%s' --into '%s' --name Skeleton.HKX -o '%s' 2>&1", cli,
	         path_in("xs/s.json"), path_in("enc/c.anibnd"), path_in("xs/into.hkx"));
	assert_int_equal(run(cmd, &out), 2);
	free(out);
	assert_int_equal(access(path_in("xs/into.hkx"), F_OK), -1);
	/* '=' with an empty value is a usage error; after '--' nothing is split */
	snprintf(cmd, sizeof(cmd), "'%s' decode --skeleton= '%s' -o - 2>&1", cli, path_in("tree/sub/sample.hkx"));
	assert_int_equal(run(cmd, &out), 2);
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s' info -- '--compendium=%s' 2>&1", cli, path_in("tree"));
	assert_int_equal(run(cmd, &out), 1); /* one operand named so, which does not exist */
	free(out);
	/* usage errors stay 2 */
	snprintf(cmd, sizeof(cmd), "'%s' decode --bogus '%s' -o x.json 2>&1", cli, path_in("tree/sub/sample.hkx"));
	assert_int_equal(run(cmd, &out), 2);
	free(out);
	/* the '=' form of the path options */
	snprintf(cmd, sizeof(cmd), "'%s' decode --skeleton='%s' --compendium='%s' '%s' -o - 2>&1", cli,
	         path_in("tree/Skeleton.HKX"), path_in("tree"), path_in("tree/sub/sample.hkx"));
	assert_int_equal(run(cmd, &out), 0);
	assert_non_null(strstr(out, "Skeleton.HKX"));
	free(out);
	/* a skeleton-only file: recompress writes nothing, decode to glTF names the missing animation */
	snprintf(cmd, sizeof(cmd), "'%s' recompress '%s' --record '%s' -o '%s' 2>&1", cli, path_in("tree/Skeleton.HKX"),
	         path_in("xs/s.rec"), path_in("xs/s.hkx"));
	assert_int_equal(run(cmd, &out), 1);
	assert_non_null(strstr(out, "has no spline animation to re-compress"));
	free(out);
	assert_int_equal(access(path_in("xs/s.rec"), F_OK), -1);
	assert_int_equal(access(path_in("xs/s.hkx"), F_OK), -1);
	snprintf(cmd, sizeof(cmd), "'%s' decode '%s' -o '%s' 2>&1", cli, path_in("tree/Skeleton.HKX"), path_in("xs/s.glb"));
	assert_int_equal(run(cmd, &out), 1);
	assert_non_null(strstr(out, "has no animation to export"));
	free(out);
	/* bench names a file that fails to load once */
	snprintf(cmd, sizeof(cmd), "'%s' bench decode '%s' 2>&1", cli, path_in("xs/junk.hkx"));
	assert_int_equal(run(cmd, &out), 1);
	const char *first = strstr(out, "junk.hkx");
	assert_non_null(first);
	const char *line_end = strchr(first, '\n');
	const char *second = strstr(first + 1, "junk.hkx");
	assert_true(!second || (line_end && second > line_end));
	free(out);
}

static void assert_file_is(const char *path, const uint8_t *bytes, size_t size)
{
	size_t got = 0;
	uint8_t *now = hks_test_read_file(path, &got);
	assert_non_null(now);
	if (got != size || memcmp(now, bytes, size) != 0)
		fail_msg("%s was changed", path);
	free(now);
}

/* An output naming one of the command's own inputs (session 24 new-user trial), each with status 0:
 * recompress -o IN without --exact replaced the clip with the predictor's lossy re-encode; encode -o
 * replaced its frames (JSON, glTF), its --record or its --skeleton with the .hkx; bnd replace -o FILE
 * replaced the new member's file with the binder. Each is refused with 2 and every input kept; the forms
 * that write the same bytes (recompress --exact) or edit the working copy (encode -o ORIGINAL) stay. A
 * skeleton folder whose skeleton file cannot be read names that file's error, not "no hkaSkeleton". */
static void test_outputs_over_inputs(void **state)
{
	(void)state;
	char cmd[8192], *out = NULL;
	const char *r = tmp_root;
	snprintf(cmd, sizeof(cmd),
	         "cd '%s' && mkdir -p ov/skdir && cp tree/sub/sample.hkx ov/in.hkx && cp tree/Skeleton.HKX ov/ && "
	         "head -c 300 tree/Skeleton.HKX > ov/skdir/Skeleton.HKX && cp tree/sub/sample.hkx ov/skdir/a.hkx && '%s' decode ov/in.hkx -o ov/f.json && "
	         "'%s' decode ov/in.hkx --skeleton ov/Skeleton.HKX -o ov/g.glb && '%s' recompress ov/in.hkx --record ov/in.rec && "
	         /* the review's forms: a folder of one clip, a skeleton folder, the skeleton beside --like, an
	          * external glTF buffer (the name is checked before the glTF is read, so any bytes do) */
	         "mkdir -p ov/one ov/skd ov/w && cp tree/sub/sample.hkx ov/one/a.hkx && cp tree/Skeleton.HKX ov/skd/ && "
	         "cp tree/sub/sample.hkx ov/w/in.hkx && cp tree/Skeleton.HKX ov/w/ && "
	         "'%s' decode ov/in.hkx --skeleton ov/Skeleton.HKX -o ov/g.gltf && "
	         "sed 's/\"uri\":\"data:[^\"]*\"/\"uri\":\"ext0.bin\"/' ov/g.gltf > ov/ext.gltf && "
	         "grep -q ext0.bin ov/ext.gltf && cp ov/in.rec ov/ext0.bin 2>&1",
	         r, cli, cli, cli, cli);
	assert_int_equal(run(cmd, &out), 0);
	free(out);
	static const char *const kept_names[] = {"ov/in.hkx",       "ov/f.json",           "ov/g.glb",
	                                         "ov/in.rec",       "ov/Skeleton.HKX",     "ov/one/a.hkx",
	                                         "ov/skd/Skeleton.HKX", "ov/w/Skeleton.HKX", "ov/ext0.bin"};
	enum { KEPT = sizeof(kept_names) / sizeof(kept_names[0]) };
	uint8_t *kept[KEPT];
	size_t kept_size[KEPT];
	for (size_t k = 0; k < KEPT; k++) {
		kept[k] = hks_test_read_file(path_in(kept_names[k]), &kept_size[k]);
		assert_non_null(kept[k]);
	}
	write_binder(path_in("ov/b.anibnd"), "a.hkx", kept[0], kept_size[0], 0);
	static const char *const refused[] = {
	    "recompress '%s/ov/in.hkx' -o '%s/ov/in.hkx'",
	    "encode '%s/ov/f.json' --like '%s/ov/in.hkx' -o '%s/ov/f.json'",
	    "encode '%s/ov/g.glb' --like '%s/ov/in.hkx' -o '%s/ov/g.glb'",
	    "encode '%s/ov/f.json' --record '%s/ov/in.rec' -o '%s/ov/in.rec'",
	    "encode '%s/ov/f.json' --skeleton '%s/ov/Skeleton.HKX' -o '%s/ov/Skeleton.HKX'",
	    "encode '%s/ov/g.glb' --skeleton '%s/ov/Skeleton.HKX' -o '%s/ov/./Skeleton.HKX'",
	    "bnd replace '%s/ov/b.anibnd' a.hkx '%s/ov/in.hkx' -o '%s/ov/in.hkx'",
	    "error -jx '%s/ov/in.hkx' '%s/ov/in.hkx'",
	    "recompress '%s/ov/one' -o '%s/ov/one/a.hkx'",
	    "recompress '%s/ov/one' --record '%s/ov/one/./a.hkx'",
	    "encode '%s/ov/f.json' --skeleton '%s/ov/skd' -o '%s/ov/skd/Skeleton.HKX'",
	    "encode '%s/ov/g.glb' --like '%s/ov/in.hkx' --skeleton '%s/ov/skd' -o '%s/ov/skd/Skeleton.HKX'",
	    "encode '%s/ov/g.glb' --like '%s/ov/w/in.hkx' -o '%s/ov/w/Skeleton.HKX'",
	    "encode '%s/ov/f.json' --like '%s/ov/in.hkx' --compendium '%s/ov/ext0.bin' -o '%s/ov/ext0.bin'",
	    "encode '%s/ov/ext.gltf' --like '%s/ov/in.hkx' --skeleton '%s/ov/Skeleton.HKX' -o '%s/ov/ext0.bin'",
	};
	for (size_t f = 0; f < sizeof(refused) / sizeof(refused[0]); f++) {
		expect_statuses(&refused[f], 1, tmp_root, 2);
		for (size_t k = 0; k < KEPT; k++)
			assert_file_is(path_in(kept_names[k]), kept[k], kept_size[k]);
	}
	static const char *const allowed[] = {
	    "recompress '%s/ov/in.hkx' --exact -o '%s/ov/in.hkx'",
	    "error -j1 '%s/ov/in.hkx' '%s/ov/in.hkx'",
	    "error -j 2 '%s/ov/in.hkx' '%s/ov/in.hkx'",
	};
	expect_statuses(allowed, sizeof(allowed) / sizeof(allowed[0]), tmp_root, 0);
	assert_file_is(path_in("ov/in.hkx"), kept[0], kept_size[0]);
	/* the in-place edit of the working copy */
	snprintf(cmd, sizeof(cmd), "'%s' encode '%s' --like '%s' -o '%s' 2>&1", cli, path_in("ov/f.json"),
	         path_in("ov/in.hkx"), path_in("ov/in.hkx"));
	assert_int_equal(run(cmd, &out), 0);
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s' check '%s' 2>&1", cli, path_in("ov/in.hkx"));
	assert_int_equal(run(cmd, &out), 0);
	free(out);
	/* the skeleton folder's unreadable skeleton file is named with its own error */
	snprintf(cmd, sizeof(cmd), "'%s' decode '%s' --skeleton '%s' -o '%s' 2>&1", cli, path_in("tree/sub/sample.hkx"),
	         path_in("ov/skdir"), path_in("ov/x.glb"));
	assert_int_not_equal(run(cmd, &out), 0);
	assert_non_null(strstr(out, "no readable hkaSkeleton"));
	assert_non_null(strstr(out, "skdir/Skeleton.HKX"));
	free(out);
	for (size_t k = 0; k < KEPT; k++)
		free(kept[k]);
}

/* Neither --like, a usable source, --skeleton nor --into: exit 2, the three ways named,
 * nothing written. */
static void test_encode_json_no_container(void **state)
{
	(void)state;
	char cmd[8192], *out = NULL;
	snprintf(cmd, sizeof(cmd), "'%s' encode '%s' -o '%s' 2>&1", cli, path_in("enc/nosrc.json"), path_in("enc/none.hkx"));
	assert_int_equal(run(cmd, &out), 2);
	assert_non_null(strstr(out, "--like ORIGINAL"));
	assert_non_null(strstr(out, "--skeleton S"));
	assert_non_null(strstr(out, "--into BINDER"));
	free(out);
	struct stat st;
	assert_int_not_equal(stat(path_in("enc/none.hkx"), &st), 0);
	/* --into without --name is a usage error */
	snprintf(cmd, sizeof(cmd), "'%s' encode '%s' -o '%s' --into '%s' 2>/dev/null", cli, path_in("enc/nosrc.json"),
	         path_in("enc/none.hkx"), path_in("enc/c.anibnd"));
	assert_int_equal(run(cmd, &out), 2);
	free(out);
}

/* Damaged spline data: every decode that fails (JSON and glTF) names the file in its message, which the
 * library's error record carries from the walk options (a message without it left the user guessing which
 * file of a batch it was). Bytes are overwritten with 0xFF at offsets across the sample; some must fail. */
static void test_decode_errors_name_file(void **state)
{
	(void)state;
	char cmd[4096], *out = NULL, src[600], bad[600], json[600], glb[600]; /* path_in's buffers are reused */
	snprintf(src, sizeof(src), "%s", path_in("tree/sub/sample.hkx"));
	snprintf(bad, sizeof(bad), "%s", path_in("dmg.hkx"));
	snprintf(json, sizeof(json), "%s", path_in("dmg.json"));
	snprintf(glb, sizeof(glb), "%s", path_in("dmg.glb"));
	struct stat st;
	assert_int_equal(stat(src, &st), 0);
	int failures = 0, walk_failures = 0;
	for (long off = 0; off + 8 <= (long)st.st_size; off += 37) {
		snprintf(cmd, sizeof(cmd),
		         "cp '%s' '%s' && printf '\\377\\377\\377\\377\\377\\377\\377\\377' | dd of='%s' bs=1 seek=%ld "
		         "conv=notrunc 2>/dev/null",
		         src, bad, bad, off);
		assert_int_equal(run(cmd, &out), 0);
		free(out);
		for (int k = 0; k < 2; k++) {
			snprintf(cmd, sizeof(cmd), "'%s' decode '%s' -o '%s' 2>&1", cli, bad, k ? glb : json);
			int rc = run(cmd, &out);
			if (rc != 0) {
				failures++;
				if (!strstr(out, bad))
					fprintf(stderr, "offset %ld: the message does not name %s:\n%s\n", off, bad, out);
				assert_non_null(strstr(out, bad));
				/* the walk's own messages ("hkaSplineCompressedAnimation: MEMBER: ..."), not the loader's
				 * ("... at data offset N: ...") */
				walk_failures += strstr(out, "hkaSplineCompressedAnimation: ") != NULL;
			}
			free(out);
		}
	}
	assert_true(failures > 0);
	assert_true(walk_failures > 0);
}

/* Messages a new user's trial asked for (session 31): each says what is wrong and what to do. */
static void test_messages_say_what_to_do(void **state)
{
	(void)state;
	char cmd[4096], *out = NULL;
	struct {
		const char *args;
		int status;
		const char *says;
	} cases[] = {
	    /* a Havok file given to encode: where frames come from */
	    {"encode '%s/tree/sub/sample.hkx' -o '%s/msg/o.hkx'", 1, "hkspline decode IN -o OUT.json"},
	    /* decode without -o: what is missing */
	    {"decode '%s/tree/sub/sample.hkx'", 2, "missing -o OUT"},
	    /* a folder of several files: one of its files, not BINDER:MEMBER */
	    {"decode '%s/msg/two' -o '%s/msg/o.json'", 2, "give one of its files"},
	    /* a truncated file: said so */
	    {"decode '%s/msg/trunc.hkx' -o '%s/msg/o.json'", 1, "truncated file"},
	    /* --record that does not exist: said before the input is read, status 1 */
	    {"encode '%s/msg/s.json' --like '%s/tree/sub/sample.hkx' --record '%s/msg/none.rec' -o '%s/msg/o.hkx'", 1,
	     "no such file"},
	};
	snprintf(cmd, sizeof(cmd),
	         "mkdir -p '%s/msg/two' && cp '%s' '%s/msg/two/a.hkx' && cp '%s' '%s/msg/two/b.hkx' && head -c 700 '%s' > "
	         "'%s/msg/trunc.hkx' && '%s' decode '%s' -o '%s/msg/s.json'",
	         tmp_root, path_in("tree/sub/sample.hkx"), tmp_root, path_in("tree/sub/sample.hkx"), tmp_root,
	         path_in("tree/sub/sample.hkx"), tmp_root, cli, path_in("tree/sub/sample.hkx"), tmp_root);
	assert_int_equal(run(cmd, &out), 0);
	free(out);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char args[2048];
		snprintf(args, sizeof(args), cases[i].args, tmp_root, tmp_root, tmp_root, tmp_root);
		snprintf(cmd, sizeof(cmd), "'%s' %s 2>&1", cli, args);
		int rc = run(cmd, &out);
		if (rc != cases[i].status || !strstr(out, cases[i].says))
			fprintf(stderr, "%s: status %d, wanted %d and \"%s\":\n%s\n", args, rc, cases[i].status, cases[i].says,
			        out);
		assert_int_equal(rc, cases[i].status);
		assert_non_null(strstr(out, cases[i].says));
		free(out);
	}
	assert_int_equal(access(path_in("msg/o.hkx"), F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_check_junk),
	    cmocka_unit_test(test_check_folder),
	    cmocka_unit_test(test_check_deterministic),
	    cmocka_unit_test(test_check_reencode),
	    cmocka_unit_test(test_check_usage),
	    cmocka_unit_test(test_info_json),
	    cmocka_unit_test(test_encode_json_source),
	    cmocka_unit_test(test_lapack_loaded_only_to_solve),
	    cmocka_unit_test(test_recompress_binder_member),
	    cmocka_unit_test(test_encode_json_donor),
	    cmocka_unit_test(test_encode_json_no_container),
	    cmocka_unit_test(test_exit_statuses),
	    cmocka_unit_test(test_outputs_over_inputs),
	    cmocka_unit_test(test_member_names),
	    cmocka_unit_test(test_decode_errors_name_file),
	    cmocka_unit_test(test_messages_say_what_to_do),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
