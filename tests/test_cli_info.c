/*
 * hkspline info --skeleton (issue 12) on the project's generated skeleton
 * (make_sample --skeleton: "Sample", bones Root and Child of Root, identity
 * reference pose): the JSON lists every bone with its parent and pose, the
 * text prints one line per bone; without --skeleton neither appears.
 */
#define _DEFAULT_SOURCE
#include "hks_test.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char cli[2048], make_sample[2048], dir[64];

static int run(const char *cmd, char **out)
{
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	size_t cap = 1 << 16, n = 0, got;
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

static int setup(void **state)
{
	(void)state;
	const char *c = getenv("HKSPLINE_CLI");
	if (!c || !*c)
		return -1;
	snprintf(cli, sizeof(cli), "%s", c);
	snprintf(make_sample, sizeof(make_sample), "%s", c);
	char *slash = strrchr(make_sample, '/');
	if (!slash)
		return -1;
	snprintf(slash + 1, sizeof(make_sample) - (size_t)(slash + 1 - make_sample), "make_sample");
	snprintf(dir, sizeof(dir), "/tmp/hks_info_XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "'%s' --skeleton '%s/Skeleton.HKX'", make_sample, dir);
	return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_skeleton_json(void **state)
{
	(void)state;
	char cmd[4200], *out = NULL;
	snprintf(cmd, sizeof(cmd), "'%s' info --json --skeleton '%s/Skeleton.HKX'", cli, dir);
	assert_int_equal(run(cmd, &out), 0);
	json_error_t e;
	json_t *root = json_loads(out, 0, &e);
	free(out);
	assert_non_null(root);
	json_t *sk = json_array_get(json_object_get(json_array_get(json_object_get(root, "files"), 0), "skeletons"), 0);
	assert_non_null(sk);
	json_t *bones = json_object_get(sk, "bone_list");
	assert_int_equal(json_array_size(bones), json_integer_value(json_object_get(sk, "bones")));
	assert_int_equal(json_array_size(bones), 2);
	json_t *b0 = json_array_get(bones, 0), *b1 = json_array_get(bones, 1);
	assert_string_equal(json_string_value(json_object_get(b0, "name")), "Root");
	assert_int_equal(json_integer_value(json_object_get(b0, "parent")), -1);
	assert_string_equal(json_string_value(json_object_get(b1, "name")), "Child");
	assert_int_equal(json_integer_value(json_object_get(b1, "parent")), 0);
	json_t *rot = json_object_get(b1, "rotation");
	assert_int_equal(json_array_size(rot), 4);
	assert_true(json_number_value(json_array_get(rot, 3)) == 1.0);
	assert_int_equal(json_array_size(json_object_get(b1, "translation")), 3);
	assert_int_equal(json_array_size(json_object_get(b1, "scale")), 3);
	assert_true(json_is_array(json_object_get(sk, "float_slot_list")));
	assert_int_equal(json_array_size(json_object_get(sk, "float_slot_list")),
	                 json_integer_value(json_object_get(sk, "float_slots")));
	json_decref(root);

	/* without --skeleton: the counts only */
	snprintf(cmd, sizeof(cmd), "'%s' info --json '%s/Skeleton.HKX'", cli, dir);
	assert_int_equal(run(cmd, &out), 0);
	assert_null(strstr(out, "bone_list"));
	free(out);
}

static void test_skeleton_text(void **state)
{
	(void)state;
	char cmd[4200], *out = NULL;
	snprintf(cmd, sizeof(cmd), "'%s' info --skeleton '%s/Skeleton.HKX'", cli, dir);
	assert_int_equal(run(cmd, &out), 0);
	assert_non_null(strstr(out, "bone 0: \"Root\", parent -1"));
	assert_non_null(strstr(out, "bone 1: \"Child\", parent 0"));
	assert_non_null(strstr(out, "rotation (0 0 0 1)"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_skeleton_json),
		cmocka_unit_test(test_skeleton_text),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
