/*
 * The batch commands of issue 16 on real files, through the CLI
 * ($HKSPLINE_CLI):
 *   1. `bench decode --json` prints the keys of docs/CLI.md (peak_rss_bytes,
 *      pose_ns, threads, ns_per_track_sample, mb_per_s, animations,
 *      track_samples, the checksums); the counts and checksums are the same
 *      for -j 1 and -j 2 and for --path reference and --path sse2;
 *      `--per-clip` prints one line per animation.
 *   2. `check --json` and `stats --json` give the same bytes for -j 1 and -j 2.
 *   3. `recompress --exact` over a folder gives the same output for -j 1 and
 *      -j 2.
 * Folders: sekiro/c1451 and sekiro_ported_hk2010 (bench, check, stats) and
 * ds3 (recompress), small enough for a few seconds. No timing is checked.
 */
#define _POSIX_C_SOURCE 200809L
#include "hks_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static const char *cli(void)
{
	const char *c = getenv("HKSPLINE_CLI");
	return c && *c ? c : NULL;
}

/* Run `cmd`, its stdout into a malloc'd string; the exit status. */
static int capture(const char *cmd, char **out)
{
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	assert_non_null(buf);
	size_t n;
	while ((n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
		len += n;
		if (cap - len < 4096) {
			cap *= 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
	}
	buf[len] = 0;
	int st = pclose(p);
	*out = buf;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The value text after "key": in a one-line JSON object (up to , or }). */
static void json_value(const char *json, const char *key, char *val, size_t cap)
{
	char pat[64];
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	const char *p = strstr(json, pat);
	if (!p) {
		print_error("key %s missing in %s\n", key, json);
		fail();
	}
	p += strlen(pat);
	size_t i = 0;
	while (p[i] && p[i] != ',' && p[i] != '}' && i + 1 < cap) {
		val[i] = p[i];
		i++;
	}
	val[i] = 0;
}

static void test_bench_json(void **state)
{
	(void)state;
	const char *corpus = hks_test_corpus();
	char cmd[4096], *a = NULL, *b = NULL, *c = NULL;
	const char *keys[] = {"files", "animations", "track_samples", "ns_per_track_sample", "cpu_ns_per_track_sample",
	                      "mb_per_s", "poses", "pose_ns", "threads", "peak_rss_bytes", "frames_checksum",
	                      "poses_checksum", "path", "decode_failures"};
	snprintf(cmd, sizeof(cmd), "'%s' bench decode --json -j 1 '%s/sekiro_ported_hk2010' '%s/sekiro/c1451'", cli(),
	         corpus, corpus);
	assert_int_equal(capture(cmd, &a), 0);
	snprintf(cmd, sizeof(cmd), "'%s' bench decode --json -j 2 --path reference '%s/sekiro_ported_hk2010' '%s/sekiro/c1451'",
	         cli(), corpus, corpus);
	assert_int_equal(capture(cmd, &b), 0);
	char va[128], vb[128];
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		json_value(a, keys[k], va, sizeof(va));
	json_value(a, "threads", va, sizeof(va));
	assert_string_equal(va, "1");
	json_value(b, "threads", vb, sizeof(vb));
	assert_string_equal(vb, "2");
	json_value(b, "path", vb, sizeof(vb));
	assert_string_equal(vb, "\"reference\"");
	const char *same[] = {"files", "animations", "track_samples", "poses", "frames_checksum", "poses_checksum",
	                      "decode_failures"};
	for (size_t k = 0; k < sizeof(same) / sizeof(same[0]); k++) {
		json_value(a, same[k], va, sizeof(va));
		json_value(b, same[k], vb, sizeof(vb));
		assert_string_equal(va, vb);
	}
	json_value(a, "animations", va, sizeof(va));
	unsigned long anims = strtoul(va, NULL, 10);
	assert_true(anims > 0);
	json_value(a, "peak_rss_bytes", va, sizeof(va));
	assert_true(strtoull(va, NULL, 10) > 0);
	/* --per-clip: one line per animation after the header line */
	snprintf(cmd, sizeof(cmd), "'%s' bench decode --per-clip --poses 2 '%s/sekiro_ported_hk2010' '%s/sekiro/c1451'",
	         cli(), corpus, corpus);
	assert_int_equal(capture(cmd, &c), 0);
	unsigned long lines = 0;
	for (const char *p = c; (p = strchr(p, '\t')) != NULL;) {
		const char *eol = strchr(p, '\n');
		lines++;
		p = eol ? eol + 1 : p + strlen(p);
	}
	assert_int_equal(lines, anims + 1);
	printf("bench decode: %lu animations, checksums equal for -j 1 / -j 2 and sse2 / reference\n", anims);
	free(a);
	free(b);
	free(c);
}

static void same_output(const char *args_j1, const char *args_j2)
{
	char cmd[4096], *a = NULL, *b = NULL;
	snprintf(cmd, sizeof(cmd), "'%s' %s 2>/dev/null", cli(), args_j1);
	int sa = capture(cmd, &a);
	snprintf(cmd, sizeof(cmd), "'%s' %s 2>/dev/null", cli(), args_j2);
	int sb = capture(cmd, &b);
	assert_int_equal(sa, sb);
	assert_true(strlen(a) > 0);
	assert_string_equal(a, b);
	free(a);
	free(b);
}

static void test_batch_commands_same_for_every_j(void **state)
{
	(void)state;
	const char *corpus = hks_test_corpus();
	char j1[2048], j2[2048];
	snprintf(j1, sizeof(j1), "check --json --no-progress -j 1 '%s/sekiro_ported_hk2010' '%s/sekiro/c1451'", corpus,
	         corpus);
	snprintf(j2, sizeof(j2), "check --json --no-progress -j 2 '%s/sekiro_ported_hk2010' '%s/sekiro/c1451'", corpus,
	         corpus);
	same_output(j1, j2);
	snprintf(j1, sizeof(j1), "stats --json --no-progress -j 1 '%s/sekiro_ported_hk2010'", corpus);
	snprintf(j2, sizeof(j2), "stats --json --no-progress -j 2 '%s/sekiro_ported_hk2010'", corpus);
	same_output(j1, j2);
	snprintf(j1, sizeof(j1), "recompress --exact -j 1 '%s/ds3'", corpus);
	snprintf(j2, sizeof(j2), "recompress --exact -j 2 '%s/ds3'", corpus);
	same_output(j1, j2);
}

int main(void)
{
	if (!hks_test_require_corpus("corpus_bench_cli"))
		return 77;
	if (!cli()) {
		printf("SKIPPED corpus_bench_cli: HKSPLINE_CLI not set\n");
		return 77;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bench_json),
		cmocka_unit_test(test_batch_commands_same_for_every_j),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
