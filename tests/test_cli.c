/*
 * The hkspline CLI (path from HKSPLINE_CLI, set by ctest) run on synthetic
 * inputs in a temporary folder: `check` exit statuses, the one JSON object
 * of `check --json` with its keys (issue 2's contract), determinism across
 * -j, folder walks, and `info --json`.
 *
 * JSON is parsed with jansson. The test targets do not link it, so the
 * library is opened at run time (dlopen) and the few functions needed are
 * looked up by name; the type macros of <jansson.h> need no symbols.
 */
#define _DEFAULT_SOURCE
#include "hks_test.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

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
	*(void **)&js.array_size = dlsym(h, "json_array_size");
	*(void **)&js.array_get = dlsym(h, "json_array_get");
	*(void **)&js.delete_ = dlsym(h, "json_delete");
	return js.loads && js.object_get && js.object_size && js.integer_value && js.string_value && js.array_size &&
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_check_junk),
	    cmocka_unit_test(test_check_folder),
	    cmocka_unit_test(test_check_deterministic),
	    cmocka_unit_test(test_check_usage),
	    cmocka_unit_test(test_info_json),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
