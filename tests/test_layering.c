/*
 * The layering rule of docs/DESIGN.md: reading never depends on writing.
 * No source under src/decode/ includes a header of src/encode/ or src/fit/,
 * and none calls (or declares) a writer (hks_*_write) or any function that
 * src/encode/ or src/fit/ defines.
 *
 * The sources are scanned as text: comments and string literals are blanked,
 * then every #include "..." and every hks_ identifier followed by '(' is
 * checked. The encoder's and fitter's function names are collected from their
 * own sources (external definitions at column 0), so a new encoder function is
 * covered without editing this test. The scanner itself is checked first on
 * hand-written snippets, so that a scanner that finds nothing cannot pass.
 */
#include "hks_test.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NAMES 4096

typedef struct names {
	char *v[MAX_NAMES];
	int n;
} names;

static void names_add(names *s, const char *p, size_t len)
{
	for (int i = 0; i < s->n; i++)
		if (strlen(s->v[i]) == len && memcmp(s->v[i], p, len) == 0)
			return;
	assert_true(s->n < MAX_NAMES);
	char *c = malloc(len + 1);
	assert_non_null(c);
	memcpy(c, p, len);
	c[len] = '\0';
	s->v[s->n++] = c;
}

static bool names_has(const names *s, const char *p, size_t len)
{
	for (int i = 0; i < s->n; i++)
		if (strlen(s->v[i]) == len && memcmp(s->v[i], p, len) == 0)
			return true;
	return false;
}

static void names_free(names *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->v[i]);
	s->n = 0;
}

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Blank comments and the contents of string and character literals (keeping
 * newlines and the quotes of #include "..." lines). */
static void blank(char *t)
{
	bool line_start = true, include_line = false;
	for (char *p = t; *p; p++) {
		if (*p == '\n') {
			line_start = true;
			include_line = false;
			continue;
		}
		if (line_start && *p == '#') {
			const char *q = p + 1;
			while (*q == ' ' || *q == '\t')
				q++;
			include_line = strncmp(q, "include", 7) == 0;
		}
		if (*p != ' ' && *p != '\t')
			line_start = false;
		if (p[0] == '/' && p[1] == '*') {
			for (; *p && !(p[0] == '*' && p[1] == '/'); p++)
				if (*p != '\n')
					*p = ' ';
			if (!*p)
				return;
			p[0] = p[1] = ' ';
			p++;
		} else if (p[0] == '/' && p[1] == '/') {
			for (; *p && *p != '\n'; p++)
				*p = ' ';
			if (!*p)
				return;
			p--;
		} else if ((*p == '"' && !include_line) || *p == '\'') {
			char q = *p++;
			for (; *p && *p != q && *p != '\n'; p++) {
				if (*p == '\\' && p[1] && p[1] != '\n')
					*p++ = ' ';
				*p = ' ';
			}
			if (!*p)
				return;
		}
	}
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *t = malloc((size_t)n + 1);
	assert_non_null(t);
	size_t got = fread(t, 1, (size_t)n, f);
	fclose(f);
	t[got] = '\0';
	return t;
}

/* External function definitions at column 0: "type hks_name(" on a line that
 * does not start with static / # / whitespace and does not end with ';'. */
static void collect_definitions(char *t, names *defs)
{
	blank(t);
	for (char *line = t; line && *line;) {
		char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		bool candidate = ident_char(line[0]) && strncmp(line, "static", 6) != 0 && strncmp(line, "typedef", 7) != 0;
		if (candidate) {
			size_t k = len;
			while (k && (line[k - 1] == ' ' || line[k - 1] == '\t' || line[k - 1] == '\r'))
				k--;
			if (k && line[k - 1] == ';')
				candidate = false;
		}
		for (size_t i = 0; candidate && i + 4 < len; i++) {
			if ((i == 0 || !ident_char(line[i - 1])) && strncmp(line + i, "hks_", 4) == 0) {
				size_t j = i;
				while (j < len && ident_char(line[j]))
					j++;
				if (j < len && line[j] == '(') {
					names_add(defs, line + i, j - i);
					break;
				}
				i = j;
			}
		}
		line = end ? end + 1 : NULL;
	}
}

/* Violations in one decode source (already read into t, modified in place);
 * each is printed with `label`. */
static int scan_decode_source(char *t, const char *label, const names *headers, const names *defs)
{
	int bad = 0;
	blank(t);
	int lineno = 1;
	for (char *p = t; *p; p++) {
		if (*p == '\n') {
			lineno++;
			continue;
		}
		if (*p == '#') {
			char *q = p + 1;
			while (*q == ' ' || *q == '\t')
				q++;
			if (strncmp(q, "include", 7) == 0) {
				q += 7;
				while (*q == ' ' || *q == '\t')
					q++;
				if (*q == '"' || *q == '<') {
					char close = *q == '"' ? '"' : '>';
					char *s = q + 1, *e = s;
					while (*e && *e != close && *e != '\n')
						e++;
					const char *base = s;
					for (const char *c = s; c < e; c++)
						if (*c == '/')
							base = c + 1;
					if (names_has(headers, base, (size_t)(e - base))) {
						printf("LAYERING: %s:%d includes encoder/fitter header \"%.*s\"\n", label, lineno,
						       (int)(e - s), s);
						bad++;
					}
					p = e > p ? e - 1 : p;
				}
			}
			continue;
		}
		if ((p == t || !ident_char(p[-1])) && strncmp(p, "hks_", 4) == 0) {
			char *e = p;
			while (ident_char(*e))
				e++;
			char *after = e;
			while (*after == ' ' || *after == '\t')
				after++;
			size_t len = (size_t)(e - p);
			if (*after == '(') {
				bool writer = len > 6 && memcmp(e - 6, "_write", 6) == 0;
				if (writer || names_has(defs, p, len)) {
					printf("LAYERING: %s:%d uses %s %.*s\n", label, lineno,
					       writer ? "the writer" : "the encoder/fitter function", (int)len, p);
					bad++;
				}
			}
			p = e - 1;
		}
	}
	return bad;
}

static const char *source_root(char *buf, size_t size)
{
	const char *env = getenv("HKSPLINE_SOURCE_DIR");
	if (env && *env) {
		snprintf(buf, size, "%s", env);
		return buf;
	}
	/* this file is tests/test_layering.c under the source root */
	snprintf(buf, size, "%s", __FILE__);
	char *s = strstr(buf, "tests/test_layering.c");
	if (!s)
		return NULL;
	if (s == buf)
		snprintf(buf, size, ".");
	else
		s[-1] = '\0';
	return buf;
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Headers (basenames) and defined functions of one folder. */
static void collect_folder(const char *dir, names *headers, names *defs)
{
	DIR *d = opendir(dir);
	if (!d)
		fail_msg("cannot open %s", dir);
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (has_suffix(de->d_name, ".h")) {
			names_add(headers, de->d_name, strlen(de->d_name));
		} else if (has_suffix(de->d_name, ".c")) {
			char *t = slurp(path);
			assert_non_null(t);
			collect_definitions(t, defs);
			free(t);
		}
	}
	closedir(d);
}

static void test_scanner_finds_violations(void **state)
{
	(void)state;
	names headers = {0}, defs = {0};
	names_add(&headers, "fit.h", 5);
	char enc[] = "#include \"internal.h\"\n"
	             "hks_result hks_encode_thing(int a, int b)\n{\n\treturn 0;\n}\n"
	             "static int hks_local_helper(void) { return 1; }\n"
	             "int hks_declared_only(void);\n";
	collect_definitions(enc, &defs);
	assert_int_equal(defs.n, 1);
	assert_string_equal(defs.v[0], "hks_encode_thing");

	char bad[] = "#include \"internal.h\"\n#include \"../fit/fit.h\"\n"
	             "static int f(void) { return hks_tagfile_write (0, 0, 0) + hks_encode_thing(1, 2); }\n";
	assert_int_equal(scan_decode_source(bad, "snippet", &headers, &defs), 3);

	char clean[] = "#include \"internal.h\"\n/* hks_tagfile_write(ctx) and #include \"fit.h\" */\n"
	               "// hks_encode_thing(1, 2)\n"
	               "static const char *m = \"hks_file_write(\\\"x\\\")\";\n"
	               "static char c = '\"';\n"
	               "static int g(void) { return hks_encode_thing_not(1) + (int)sizeof(hks_encode_thing); }\n";
	assert_int_equal(scan_decode_source(clean, "snippet", &headers, &defs), 0);
	names_free(&headers);
	names_free(&defs);
}

static void test_decode_does_not_depend_on_encode_or_fit(void **state)
{
	(void)state;
	char root[4096];
	if (!source_root(root, sizeof(root)))
		fail_msg("cannot locate the source tree (set HKSPLINE_SOURCE_DIR)");
	names headers = {0}, defs = {0};
	char dir[4096 + 32];
	snprintf(dir, sizeof(dir), "%s/src/encode", root);
	collect_folder(dir, &headers, &defs);
	snprintf(dir, sizeof(dir), "%s/src/fit", root);
	collect_folder(dir, &headers, &defs);
	/* the scan must see the encoder, or it proves nothing */
	assert_true(headers.n >= 2);
	assert_true(names_has(&defs, "hks_tagfile_write", strlen("hks_tagfile_write")));
	assert_true(names_has(&defs, "hks_encode", strlen("hks_encode")) || defs.n >= 20);

	snprintf(dir, sizeof(dir), "%s/src/decode", root);
	DIR *d = opendir(dir);
	if (!d)
		fail_msg("cannot open %s", dir);
	int bad = 0, scanned = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (!has_suffix(de->d_name, ".c") && !has_suffix(de->d_name, ".h"))
			continue;
		char path[8192 + 300];
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		char *t = slurp(path);
		assert_non_null(t);
		char label[300];
		snprintf(label, sizeof(label), "src/decode/%s", de->d_name);
		bad += scan_decode_source(t, label, &headers, &defs);
		free(t);
		scanned++;
	}
	closedir(d);
	assert_true(scanned >= 5);
	names_free(&headers);
	names_free(&defs);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scanner_finds_violations),
		cmocka_unit_test(test_decode_does_not_depend_on_encode_or_fit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
