/*
 * Graded conformance of `hkspline check` on the modders' clips of
 * elden_ring/c0000_a7x/ (issue 12): errors fail a file, warnings do not
 * unless --strict.
 *
 * Nothing here is a measured figure: the test derives what must hold from the
 * two runs themselves. Without --strict, files_failed is the number of files
 * with an error-level entry and the exit status follows it; with --strict it
 * is the number of files with any entry; every other counter is the same in
 * both runs. The folder must hold warnings (that is what it is for); the files
 * that only have warnings are then checked on their own: exit 0 with every
 * animation decoded, and exit 1 with --strict. The files with errors are
 * checked on their own too: each fails without --strict, and none of its
 * animations that has an error decodes.
 */
#define _DEFAULT_SOURCE
#include "hks_test.h"

#include <jansson.h>
#include <stdbool.h>
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
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	assert_non_null(buf);
	size_t got;
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

static json_t *check_json(const char *args, int *status)
{
	size_t n = strlen(cli) + strlen(args) + 64;
	char *cmd = malloc(n);
	assert_non_null(cmd);
	snprintf(cmd, n, "'%s' check --json --no-progress -j 2 %s 2>/dev/null", cli, args);
	char *out = NULL;
	*status = run(cmd, &out);
	free(cmd);
	json_error_t e;
	json_t *root = json_loads(out, 0, &e);
	if (!root)
		fprintf(stderr, "JSON error: %s\n%s\n", e.text, out);
	free(out);
	assert_non_null(root);
	return root;
}

static long long num(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	if (!v)
		fprintf(stderr, "missing key %s\n", key);
	assert_true(json_is_integer(v));
	return (long long)json_integer_value(v);
}

/* Distinct paths of the entries, those with an error-level entry, those with
 * only warnings (each a ' '-separated, quoted argument list; counts returned). */
typedef struct path_sets {
	char **all;
	size_t n_all;
	bool *has_error;
} path_sets;

static void collect(const json_t *root, path_sets *ps)
{
	json_t *fails = json_object_get(root, "failures");
	assert_true(json_is_array(fails));
	ps->all = calloc(json_array_size(fails) + 1, sizeof(char *));
	ps->has_error = calloc(json_array_size(fails) + 1, sizeof(bool));
	ps->n_all = 0;
	for (size_t i = 0; i < json_array_size(fails); i++) {
		json_t *f = json_array_get(fails, i);
		const char *path = json_string_value(json_object_get(f, "path"));
		const char *level = json_string_value(json_object_get(f, "level"));
		assert_non_null(path);
		assert_non_null(level);
		bool err = strcmp(level, "error") == 0;
		assert_true(err || strcmp(level, "warning") == 0);
		size_t k = 0;
		while (k < ps->n_all && strcmp(ps->all[k], path))
			k++;
		if (k == ps->n_all)
			ps->all[ps->n_all++] = strdup(path);
		ps->has_error[k] |= err;
	}
}

static void free_sets(path_sets *ps)
{
	for (size_t i = 0; i < ps->n_all; i++)
		free(ps->all[i]);
	free(ps->all);
	free(ps->has_error);
}

/* The paths with (want_error) or without an error entry, as shell arguments. */
static char *arguments(const path_sets *ps, bool want_error, size_t *count)
{
	size_t cap = 16;
	for (size_t i = 0; i < ps->n_all; i++)
		cap += strlen(ps->all[i]) + 4;
	char *a = malloc(cap);
	assert_non_null(a);
	a[0] = '\0';
	*count = 0;
	for (size_t i = 0; i < ps->n_all; i++) {
		if (ps->has_error[i] != want_error)
			continue;
		assert_null(strchr(ps->all[i], '\''));
		strcat(a, " '");
		strcat(a, ps->all[i]);
		strcat(a, "'");
		(*count)++;
	}
	return a;
}

static void test_graded_check(void **state)
{
	(void)state;
	size_t dn = strlen(corpus) + 64;
	char *dir = malloc(dn);
	snprintf(dir, dn, "'%s/elden_ring/c0000_a7x'", corpus);
	int st_n, st_s;
	json_t *n = check_json(dir, &st_n);
	char *sargs = malloc(dn + 16);
	snprintf(sargs, dn + 16, "--strict %s", dir);
	json_t *s = check_json(sargs, &st_s);

	/* the same counters except files_failed */
	const char *same[] = {"files", "warnings", "animations", "header_ok", "decoded", "walk_exact"};
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++)
		assert_int_equal(num(n, same[i]), num(s, same[i]));
	assert_true(num(n, "warnings") > 0);
	assert_int_equal(json_array_size(json_object_get(n, "failures")), json_array_size(json_object_get(s, "failures")));

	path_sets ps;
	collect(n, &ps);
	size_t with_error = 0;
	for (size_t i = 0; i < ps.n_all; i++)
		with_error += ps.has_error[i];
	printf("c0000_a7x: %lld files, %zu with entries, %zu with errors, %lld warnings; exit %d, --strict exit %d\n",
	       num(n, "files"), ps.n_all, with_error, num(n, "warnings"), st_n, st_s);
	assert_int_equal(num(n, "files_failed"), (long long)with_error);
	assert_int_equal(num(s, "files_failed"), (long long)ps.n_all);
	assert_int_equal(st_n, with_error ? 1 : 0);
	assert_int_equal(st_s, 1);
	/* warnings per SDK add up to the total */
	long long w = 0;
	const char *key;
	json_t *v;
	json_object_foreach(json_object_get(n, "by_sdk"), key, v) w += num(v, "warnings");
	assert_int_equal(w, num(n, "warnings"));

	/* the files with only warnings: they decode and pass, and fail --strict */
	size_t nw = 0, ne = 0;
	char *warn_args = arguments(&ps, false, &nw);
	char *err_args = arguments(&ps, true, &ne);
	assert_true(nw > 0);
	int st;
	json_t *wj = check_json(warn_args, &st);
	assert_int_equal(st, 0);
	assert_int_equal(num(wj, "files_failed"), 0);
	assert_int_equal(num(wj, "files"), (long long)nw);
	assert_int_equal(num(wj, "decoded"), num(wj, "animations"));
	assert_true(num(wj, "warnings") > 0);
	json_decref(wj);
	size_t sn = strlen(warn_args) + 16;
	char *strict_warn = malloc(sn);
	snprintf(strict_warn, sn, "--strict%s", warn_args);
	wj = check_json(strict_warn, &st);
	assert_int_equal(st, 1);
	assert_int_equal(num(wj, "files_failed"), (long long)nw);
	json_decref(wj);

	/* the files with errors fail on their own; an animation with an error
	 * entry at the decode stage did not decode */
	if (ne) {
		json_t *ej = check_json(err_args, &st);
		assert_int_equal(st, 1);
		assert_int_equal(num(ej, "files_failed"), (long long)ne);
		json_t *fails = json_object_get(ej, "failures");
		long long decode_errors = 0;
		for (size_t i = 0; i < json_array_size(fails); i++) {
			json_t *f = json_array_get(fails, i);
			if (!strcmp(json_string_value(json_object_get(f, "level")), "error") &&
			    !strcmp(json_string_value(json_object_get(f, "stage")), "decode"))
				decode_errors++;
		}
		assert_int_equal(num(ej, "animations") - num(ej, "decoded"), decode_errors);
		json_decref(ej);
	}
	free(strict_warn);
	free(warn_args);
	free(err_args);
	free_sets(&ps);
	json_decref(n);
	json_decref(s);
	free(sargs);
	free(dir);
}

int main(void)
{
	corpus = hks_test_require_corpus("corpus_check");
	cli = getenv("HKSPLINE_CLI");
	if (!cli || !*cli) {
		fprintf(stderr, "HKSPLINE_CLI is not set (run through ctest)\n");
		return 1;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_graded_check),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
