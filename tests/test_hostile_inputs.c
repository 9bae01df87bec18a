/*
 * Hostile inputs to the commands (issue 17), built here from synthetic data
 * (tests/fuzz/synth.h), never corpus bytes:
 *   M4  decode --time-step over a patched (huge) duration and a tiny step:
 *       refused against hks_limits before allocating, no output file;
 *   L8  repack of a file whose duration is NaN: the valid header floats are
 *       kept, the output is the input byte for byte;
 *   L5  an explicit --compendium wins over the folder's; two compendiums of one
 *       folder holding one ID with different types are reported;
 *   L6  inputs read whole are regular files within a size limit: /dev/zero and a
 *       FIFO end in an error at once.
 * Each ends in a clean error (status, message naming the file) or a valid result.
 */
#define _DEFAULT_SOURCE
#include "hks_test.h"
#include "hks_hostile.h"

#include "../tests/fuzz/synth.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *cli;

static int setup(void **state)
{
	(void)state;
	return hks_hostile_setup_cli("hks_hostile_in", &cli);
}

static int teardown(void **state)
{
	(void)state;
	return hks_hostile_teardown();
}

/* A tagfile with one spline animation (T tracks, `frames` frames), its duration replaced. */
static void write_spline_file(const char *path, uint32_t T, uint32_t frames, float duration, const uint8_t *cid)
{
	hks_packed_spline *p = synth_spline(T, 0, frames, 0, 0, "20160200");
	assert_non_null(p);
	if (!(duration == -1.0f)) /* -1: keep the clip's own */
		p->duration = duration;
	size_t n = 0;
	uint8_t *t = synth_tagfile(p, "20160200", cid, &n);
	assert_non_null(t);
	hks_hostile_write(path, t, n);
	free(t);
	hks_packed_spline_free(p);
}

static void test_decode_time_step_bounded(void **state)
{
	(void)state;
	char cmd[4096], *out = NULL;
	/* a 1e9 s duration: --time-step 0.01 would be 1e11 samples */
	write_spline_file(hks_hostile_path("long.hkx"), 3, 20, 1e9f, NULL);
	snprintf(cmd, sizeof(cmd), "'%s' decode '%s' --time-step 0.01 -o '%s'", cli, hks_hostile_path("long.hkx"),
	         hks_hostile_path("long.json"));
	assert_int_equal(hks_hostile_run(cmd, &out), 2);
	assert_non_null(strstr(out, "over the limit"));
	assert_non_null(strstr(out, "max_frames"));
	free(out);
	assert_int_equal(access(hks_hostile_path("long.json"), F_OK), -1); /* nothing written */
	/* a normal clip, a tiny step: 4e6 samples, refused */
	write_spline_file(hks_hostile_path("short.hkx"), 3, 121, 4.0f, NULL);
	snprintf(cmd, sizeof(cmd), "'%s' decode '%s' --time-step 1e-6 -o '%s'", cli, hks_hostile_path("short.hkx"),
	         hks_hostile_path("short.json"));
	assert_int_equal(hks_hostile_run(cmd, &out), 2);
	assert_non_null(strstr(out, "over the limit"));
	free(out);
	/* within the limit: works */
	snprintf(cmd, sizeof(cmd), "'%s' decode '%s' --time-step 0.01 -o '%s'", cli, hks_hostile_path("short.hkx"),
	         hks_hostile_path("short.json"));
	assert_int_equal(hks_hostile_run(cmd, &out), 0);
	free(out);
	struct stat st;
	assert_int_equal(stat(hks_hostile_path("short.json"), &st), 0);
	assert_true(st.st_size > 1000);
	/* NaN / infinite durations in time mode: refused cleanly */
	write_spline_file(hks_hostile_path("nan.hkx"), 3, 20, NAN, NULL);
	snprintf(cmd, sizeof(cmd), "'%s' decode '%s' --time-step 0.01 -o '%s'", cli, hks_hostile_path("nan.hkx"),
	         hks_hostile_path("nan.json"));
	assert_int_equal(hks_hostile_run(cmd, &out), 2);
	free(out);
	write_spline_file(hks_hostile_path("inf.hkx"), 3, 20, INFINITY, NULL);
	snprintf(cmd, sizeof(cmd), "'%s' decode '%s' --time-step 0.01 -o '%s'", cli, hks_hostile_path("inf.hkx"),
	         hks_hostile_path("inf.json"));
	assert_int_equal(hks_hostile_run(cmd, &out), 2);
	free(out);
}

static void test_repack_nan_duration(void **state)
{
	(void)state;
	char cmd[4096], *out = NULL;
	write_spline_file(hks_hostile_path("nan.hkx"), 2, 30, NAN, NULL);
	snprintf(cmd, sizeof(cmd), "'%s' repack '%s' -o '%s'", cli, hks_hostile_path("nan.hkx"), hks_hostile_path("nan_re.hkx"));
	int rc = hks_hostile_run(cmd, &out);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "1 with data, offsets and header identical"));
	free(out);
	size_t a = 0, b = 0;
	uint8_t *x = hks_test_read_file(hks_hostile_path("nan.hkx"), &a), *y = hks_test_read_file(hks_hostile_path("nan_re.hkx"), &b);
	assert_non_null(x);
	assert_non_null(y);
	assert_int_equal(a, b);
	assert_memory_equal(x, y, a);
	free(x);
	free(y);
}

static void test_compendium_choice(void **state)
{
	(void)state;
	static const uint8_t id[8] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88};
	char cmd[4096], *out = NULL;
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/cf' '%s/other'", hks_hostile_root(), hks_hostile_root());
	assert_int_equal(system(cmd), 0);
	write_spline_file(hks_hostile_path("cf/a.hkx"), 2, 10, -1.0f, id);
	size_t cn = 0;
	uint8_t *c = synth_compendium(id, &cn);
	hks_hostile_write(hks_hostile_path("cf/a.compendium"), c, cn);
	hks_hostile_write(hks_hostile_path("other/good.compendium"), c, cn);
	/* one compendium: loads */
	snprintf(cmd, sizeof(cmd), "'%s' info '%s'", cli, hks_hostile_path("cf/a.hkx"));
	assert_int_equal(hks_hostile_run(cmd, &out), 0);
	free(out);
	/* a second one in the folder with the same ID and other TYPE bytes (a hash changed) */
	uint8_t *d = (uint8_t *)malloc(cn);
	memcpy(d, c, cn);
	size_t at = 0;
	for (size_t i = 0; i + 4 <= cn; i++)
		if (!memcmp(d + i, "THSH", 4))
			at = i;
	assert_true(at > 0);
	uint32_t sec = ((uint32_t)(d[at - 4] & 0x3F) << 24) | (uint32_t)d[at - 3] << 16 | (uint32_t)d[at - 2] << 8 |
	               d[at - 1];
	assert_true(sec > 9 && at - 4 + sec <= cn);
	d[at - 4 + sec - 1] ^= 0x5A; /* the last byte of the section: a type hash */
	hks_hostile_write(hks_hostile_path("cf/b.compendium"), d, cn);
	snprintf(cmd, sizeof(cmd), "'%s' info '%s'", cli, hks_hostile_path("cf/a.hkx"));
	assert_int_not_equal(hks_hostile_run(cmd, &out), 0);
	assert_non_null(strstr(out, "1122334455667788"));
	assert_non_null(strstr(out, "b.compendium"));
	assert_non_null(strstr(out, "--compendium"));
	free(out);
	/* an explicit --compendium wins over the folder search */
	snprintf(cmd, sizeof(cmd), "'%s' info --compendium '%s' '%s'", cli, hks_hostile_path("other/good.compendium"),
	         hks_hostile_path("cf/a.hkx"));
	assert_int_equal(hks_hostile_run(cmd, &out), 0);
	free(out);
	free(c);
	free(d);
}

static void test_inputs_regular_and_bounded(void **state)
{
	(void)state;
	char cmd[4096], *out = NULL;
	snprintf(cmd, sizeof(cmd), "'%s' bnd list /dev/zero", cli);
	assert_int_not_equal(hks_hostile_run(cmd, &out), 0);
	assert_non_null(strstr(out, "not a regular file"));
	free(out);
	assert_int_equal(mkfifo(hks_hostile_path("fifo.anibnd"), 0600), 0);
	/* a FIFO without a writer would block an open(); `timeout` turns a hang into a failure (124) */
	snprintf(cmd, sizeof(cmd), "timeout 60 '%s' bnd list '%s'", cli, hks_hostile_path("fifo.anibnd"));
	int rc = hks_hostile_run(cmd, &out);
	assert_int_not_equal(rc, 124);
	assert_int_not_equal(rc, 0);
	assert_non_null(strstr(out, "not a regular file"));
	free(out);
}

/* Replace the first `from` in `text` by `to` (malloc'd). */
static char *replace_first(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	assert_non_null(at);
	size_t a = (size_t)(at - text), fl = strlen(from), tl = strlen(to), n = strlen(text);
	char *o = (char *)malloc(n - fl + tl + 1);
	memcpy(o, text, a);
	memcpy(o + a, to, tl);
	memcpy(o + a + tl, at + fl, n - a - fl + 1);
	return o;
}

/* Decoded-frames JSON with NaN / Inf / absurd counts / mismatched track lengths / bad durations:
 * `encode` ends with status 0, 1 or 2 (never a signal), a message when it fails, and an existing
 * output file untouched when it fails. */
static void test_frames_json_hostile(void **state)
{
	(void)state;
	char tool[1024], cmd[4096], *out = NULL;
	snprintf(tool, sizeof(tool), "%s", cli);
	char *slash = strrchr(tool, '/');
	snprintf(slash + 1, sizeof(tool) - (size_t)(slash + 1 - tool), "make_sample");
	snprintf(cmd, sizeof(cmd), "'%s' '%s' >/dev/null && '%s' decode '%s' -o '%s'", tool, hks_hostile_path("fj.hkx"), cli,
	         hks_hostile_path("fj.hkx"), hks_hostile_path("fj.json"));
	assert_int_equal(system(cmd), 0);
	size_t n = 0;
	char *json = (char *)hks_test_read_file(hks_hostile_path("fj.json"), &n);
	assert_non_null(json);
	static const char *const edits[][2] = {
		{"\"frames\":31", "\"frames\":4000000000"},   {"\"frames\":31", "\"frames\":-5"},
		{"\"frames\":31", "\"frames\":1e300"},        {"\"frames\":31", "\"frames\":2"},
		{"[1,2,3]", "[NaN,2,3]"},                     {"[1,2,3]", "[1e999,2,3]"},
		{"[1,2,3]", "[\"inf\",2,3]"},                 {"[1,2,3],[1,2,3]", "[1,2,3]"},
		{"[1,2,3],[1,2,3]", "[1,2,3],[1,2,3],[1,2,3]"}, {"[1,2,3]", "[1,2]"},
		{"[0,0,0,1]", "[0,0,0,0]"},                   {"\"duration\":1", "\"duration\":0"},
		{"\"duration\":1", "\"duration\":-1"},        {"\"duration\":1", "\"duration\":1e39"},
		{"\"index\":0", "\"index\":1099511627776"},   {"\"tracks\":[", "\"tracks\":[{},"},
		{"\"animations\":[", "\"animations\":[[],"},
	};
	static const uint8_t keep[5] = {'k', 'e', 'e', 'p', '\n'};
	for (size_t k = 0; k < sizeof(edits) / sizeof(edits[0]); k++) {
		char *e = replace_first(json, edits[k][0], edits[k][1]);
		hks_hostile_write(hks_hostile_path("fj_edit.json"), e, strlen(e));
		hks_hostile_write(hks_hostile_path("fj_out.hkx"), keep, sizeof(keep));
		snprintf(cmd, sizeof(cmd), "'%s' encode '%s' -o '%s'", cli, hks_hostile_path("fj_edit.json"), hks_hostile_path("fj_out.hkx"));
		int rc = hks_hostile_run(cmd, &out);
		printf("%-40s -> %-48s exit %d\n", edits[k][0], edits[k][1], rc);
		assert_true(rc >= 0 && rc <= 2);
		if (rc != 0) {
			assert_true(strlen(out) > 0);
			/* the error's location names the track; the message does not repeat it ("track 3: track 3:",
			 * session 24 new-user trial) */
			for (int t = 0; t < 10; t++) {
				char twice[64];
				snprintf(twice, sizeof(twice), "track %d: track %d", t, t);
				assert_null(strstr(out, twice));
				snprintf(twice, sizeof(twice), "track %d: float track %d", t, t);
				assert_null(strstr(out, twice));
			}
			size_t got = 0;
			uint8_t *o = hks_test_read_file(hks_hostile_path("fj_out.hkx"), &got);
			assert_non_null(o);
			assert_int_equal(got, sizeof(keep));
			assert_memory_equal(o, keep, sizeof(keep));
			free(o);
		}
		free(out);
		free(e);
	}
	free(json);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_time_step_bounded),
		cmocka_unit_test(test_repack_nan_duration),
		cmocka_unit_test(test_compendium_choice),
		cmocka_unit_test(test_inputs_regular_and_bounded),
		cmocka_unit_test(test_frames_json_hostile),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
