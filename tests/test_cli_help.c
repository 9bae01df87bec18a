/*
 * The help texts against docs/CLI.md: for every command, each --option its
 * --help mentions is documented in the command's section of CLI.md, and each
 * --option of the section's synopsis exists in the help. The top-level help
 * lists every command of CLI.md's table, mentions glTF and `bench encode`;
 * `decode -o x.fbx` names every accepted extension.
 */
#define _DEFAULT_SOURCE
#include "hks_test.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static char cli[2048];
static char *cli_md;

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

static bool word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/* Next "--option" token at or after *p in [*p, end); its length, 0 when none. */
static size_t next_option(const char **p, const char *end)
{
	for (const char *s = *p; s + 2 < end; s++) {
		if (s[0] == '-' && s[1] == '-' && s[2] >= 'a' && s[2] <= 'z' && (s == *p || !word_char(s[-1]))) {
			const char *e = s + 2;
			while (e < end && ((*e >= 'a' && *e <= 'z') || (*e >= '0' && *e <= '9') || *e == '-'))
				e++;
			*p = s;
			return (size_t)(e - s);
		}
	}
	return 0;
}

static bool has_option(const char *text, const char *end, const char *opt, size_t len)
{
	const char *p = text;
	size_t n;
	while ((n = next_option(&p, end)) != 0) {
		if (n == len && !memcmp(p, opt, len))
			return true;
		p += n;
	}
	return false;
}

/* Every option of [a, a_end) is in [b, b_end); prints the missing ones. */
static int missing(const char *what, const char *a, const char *a_end, const char *b, const char *b_end)
{
	int bad = 0;
	const char *p = a;
	size_t n;
	while ((n = next_option(&p, a_end)) != 0) {
		if (!(n == 6 && !memcmp(p, "--help", 6)) && !has_option(b, b_end, p, n)) {
			printf("%s: %.*s\n", what, (int)n, p);
			bad++;
		}
		p += n;
	}
	return bad;
}

static void section(const char *cmd, const char **start, const char **end)
{
	char head[64];
	snprintf(head, sizeof(head), "## `hkspline %s`", cmd);
	*start = strstr(cli_md, head);
	assert_non_null(*start);
	*end = strstr(*start + 4, "\n## ");
	if (!*end)
		*end = *start + strlen(*start);
}

static void test_command_help_matches_cli_md(void **state)
{
	(void)state;
	static const struct {
		const char *cmd;
		const char *help_args[2];
	} cmds[] = {
		{"info", {"info --help", NULL}},         {"check", {"check --help", NULL}},
		{"decode", {"decode --help", NULL}},     {"repack", {"repack --help", NULL}},
		{"bnd", {"bnd --help", NULL}},           {"encode", {"encode --help", NULL}},
		{"recompress", {"recompress --help", NULL}}, {"error", {"error --help", NULL}},
		{"stats", {"stats --help", NULL}},       {"bench", {"bench --help", "bench encode --help"}},
	};
	int bad = 0;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		const char *s, *e;
		section(cmds[i].cmd, &s, &e);
		const char *syn = strstr(s, "```");
		assert_true(syn && syn < e);
		syn += 3;
		const char *syn_end = strstr(syn, "```");
		assert_true(syn_end && syn_end < e);
		for (int k = 0; k < 2 && cmds[i].help_args[k]; k++) {
			char cmd[4096], *out = NULL;
			snprintf(cmd, sizeof(cmd), "'%s' %s 2>&1", cli, cmds[i].help_args[k]);
			assert_int_equal(run(cmd, &out), 0);
			char what[128];
			snprintf(what, sizeof(what), "'%s' mentions, CLI.md does not document", cmds[i].help_args[k]);
			bad += missing(what, out, out + strlen(out), s, e);
			free(out);
		}
		/* the synopsis against all the command's help texts together */
		char *all = calloc(1, 1);
		size_t all_len = 0;
		for (int k = 0; k < 2 && cmds[i].help_args[k]; k++) {
			char cmd[4096], *out = NULL;
			snprintf(cmd, sizeof(cmd), "'%s' %s 2>&1", cli, cmds[i].help_args[k]);
			run(cmd, &out);
			size_t n = strlen(out);
			all = realloc(all, all_len + n + 1);
			memcpy(all + all_len, out, n + 1);
			all_len += n;
			free(out);
		}
		char what[128];
		snprintf(what, sizeof(what), "CLI.md synopsis of %s has, its --help does not", cmds[i].cmd);
		bad += missing(what, syn, syn_end, all, all + all_len);
		free(all);
	}
	assert_int_equal(bad, 0);
}

static void test_top_level_help(void **state)
{
	(void)state;
	char cmd[4096], *out = NULL;
	snprintf(cmd, sizeof(cmd), "'%s' --help", cli);
	assert_int_equal(run(cmd, &out), 0);
	assert_non_null(strstr(out, "glTF"));
	assert_non_null(strstr(out, "bench encode"));
	/* every command of CLI.md's table is listed */
	const char *t = strstr(cli_md, "| Command | What |");
	assert_non_null(t);
	const char *t_end = strstr(t, "\n\n");
	int listed = 0;
	for (const char *p = strstr(t, "| [`"); p && p < t_end; p = strstr(p + 1, "| [`")) {
		const char *name = p + 4, *q = strchr(name, '`');
		char line[64];
		snprintf(line, sizeof(line), "  %.*s ", (int)(q - name), name);
		if (!strstr(out, line))
			printf("top-level help lacks %s\n", line);
		assert_non_null(strstr(out, line));
		listed++;
	}
	assert_true(listed >= 10);
	free(out);
}

static void test_decode_extension_message(void **state)
{
	(void)state;
	char cmd[4096], *out = NULL;
	snprintf(cmd, sizeof(cmd), "'%s' decode some.hkx -o x.fbx 2>&1", cli);
	assert_int_equal(run(cmd, &out), 2);
	assert_non_null(strstr(out, ".json"));
	assert_non_null(strstr(out, ".csv"));
	assert_non_null(strstr(out, ".glb"));
	assert_non_null(strstr(out, ".gltf"));
	free(out);
}

static int setup(void **state)
{
	(void)state;
	const char *c = getenv("HKSPLINE_CLI");
	if (!c || !*c)
		return -1;
	snprintf(cli, sizeof(cli), "%s", c);
	char path[4096];
	snprintf(path, sizeof(path), "%s", __FILE__);
	char *s = strstr(path, "tests/test_cli_help.c");
	if (!s)
		return -1;
	snprintf(s, sizeof(path) - (size_t)(s - path), "docs/CLI.md");
	size_t n = 0;
	cli_md = (char *)hks_test_read_file(path, &n);
	return cli_md ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	free(cli_md);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_command_help_matches_cli_md),
		cmocka_unit_test(test_top_level_help),
		cmocka_unit_test(test_decode_extension_message),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
