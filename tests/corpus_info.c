/*
 * hkspline info BINDER:MEMBER (issue 12) on the corpus binders: the member
 * named by base name is the only file described, with its binder and member
 * in the JSON; a member the binder does not hold exits 1 and describes
 * nothing; with --skeleton the binder's skeleton lists every bone, each
 * parent before its child. A tagfile copied away from its compendium gets
 * one missing-compendium message naming where the loader looked, and loads
 * with --compendium.
 */
#define _DEFAULT_SOURCE
#include "hks_test.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static const char *corpus;
static const char *cli;

static int run(const char *cmd, char **out)
{
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	size_t cap = 1 << 20, n = 0, got;
	char *buf = malloc(cap);
	assert_non_null(buf);
	while ((got = fread(buf + n, 1, cap - n - 1, p)) > 0) {
		n += got;
		if (cap - n < 4096) {
			cap *= 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
	}
	buf[n] = '\0';
	int st = pclose(p);
	*out = buf;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static json_t *info(const char *member, const char *flags, int *status)
{
	char cmd[8192], *out = NULL;
	snprintf(cmd, sizeof(cmd), "'%s' info --json %s '%s/binders/sekiro-c1060.anibnd.dcx:%s' 2>/dev/null", cli, flags,
	         corpus, member);
	*status = run(cmd, &out);
	json_error_t e;
	json_t *root = json_loads(out, 0, &e);
	free(out);
	assert_non_null(root);
	return root;
}

static void test_binder_member(void **state)
{
	(void)state;
	int st;
	json_t *root = info("skeleton.hkx", "--skeleton", &st); /* base name, any case */
	assert_int_equal(st, 0);
	json_t *files = json_object_get(root, "files");
	assert_int_equal(json_array_size(files), 1);
	json_t *f = json_array_get(files, 0);
	assert_non_null(json_object_get(f, "binder"));
	assert_non_null(strstr(json_string_value(json_object_get(f, "member")), "Skeleton.HKX"));
	json_t *sk = json_array_get(json_object_get(f, "skeletons"), 0);
	json_t *bones = json_object_get(sk, "bone_list");
	size_t n = json_array_size(bones);
	assert_true(n > 1);
	assert_int_equal(n, json_integer_value(json_object_get(sk, "bones")));
	for (size_t i = 0; i < n; i++) {
		json_t *b = json_array_get(bones, i);
		long long parent = json_integer_value(json_object_get(b, "parent"));
		assert_true(parent >= -1 && parent < (long long)i);
		assert_int_equal(json_array_size(json_object_get(b, "rotation")), 4);
	}
	json_decref(root);

	root = info("no_such_member.hkx", "", &st);
	assert_int_equal(st, 1);
	assert_int_equal(json_array_size(json_object_get(root, "files")), 0);
	json_decref(root);
}

static void test_missing_compendium_message(void **state)
{
	(void)state;
	char folder[4096];
	snprintf(folder, sizeof(folder), "%s/elden_ring/c1000", corpus);
	size_t count = 0;
	char **files = hks_test_list_files(folder, ".hkx", &count);
	const char *pick = NULL;
	for (size_t i = 0; i < count && !pick; i++)
		if (!strstr(files[i], "keleton"))
			pick = files[i];
	assert_non_null(pick);
	char tmp[] = "/tmp/hks_cmsg_XXXXXX";
	assert_non_null(mkdtemp(tmp));
	char cmd[16384], *out = NULL;
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s/clip.hkx'", pick, tmp);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "'%s' info '%s/clip.hkx' 2>&1", cli, tmp);
	assert_int_equal(run(cmd, &out), 1);
	const char *m = strstr(out, "not found: searched ");
	assert_non_null(m);
	assert_null(strstr(m + strlen("not found: searched "), "searched")); /* one count, not two */
	assert_null(strstr(out, "searched 0 compendiums"));
	assert_non_null(strstr(out, "folder"));
	assert_non_null(strstr(out, tmp));
	assert_non_null(strstr(out, "--compendium"));
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s' info --compendium '%s' '%s/clip.hkx' 2>&1", cli, folder, tmp);
	assert_int_equal(run(cmd, &out), 0);
	free(out);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	assert_int_equal(system(cmd), 0);
	hks_test_free_list(files, count);
}

int main(void)
{
	corpus = hks_test_require_corpus("corpus_info");
	cli = getenv("HKSPLINE_CLI");
	if (!cli || !*cli) {
		fprintf(stderr, "HKSPLINE_CLI is not set (run through ctest)\n");
		return 1;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_binder_member),
		cmocka_unit_test(test_missing_compendium_message),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
