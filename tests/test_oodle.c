/*
 * DCX KRAK through a codec (issue 14), with the Oodle stand-in the build makes
 * (tests/oodle_standin: the real entry points, "compresses" by storing; path
 * in HKS_OODLE_STANDIN, set by ctest). Runs natively on Linux (.so) and under
 * Wine (.dll).
 *
 *  - no codec: HKS_E_UNSUPPORTED naming --oodle and where the games keep the
 *    library;
 *  - the stand-in opened by path: a KRAK DCX written through it (level byte
 *    handed to OodleLZ_Compress) decompresses to the same bytes;
 *  - a stand-in that fails, reports too few or too many bytes: clean errors;
 *  - an embedder's own callbacks in the options, and a lying one;
 *  - writing KRAK without a compressor: DFLT and a note;
 *  - the library search (folder of the input and its parents) and the CLI's
 *    resolution order: --oodle, HKSPLINE_OODLE, folder search, none;
 *  - the CLI (HKSPLINE_CLI): check on a KRAK DCX by --oodle, by the
 *    environment variable, by folder search; without a library exit 2 and
 *    the actionable message; a failing library is a per-file failure.
 */
#if !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L /* setenv */
#endif
#include "hks_test.h"
#include "platform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#define EXIT_OF(status) (status)
#else
#include <sys/wait.h>
#define EXIT_OF(status) (WIFEXITED(status) ? WEXITSTATUS(status) : -1)
#endif

#define TMP "oodle_tmp"

static char g_standin[4096];
static char g_libname[4096];

static void set_env(const char *name, const char *value)
{
#ifdef _WIN32
	_putenv_s(name, value ? value : "");
#else
	if (value)
		setenv(name, value, 1);
	else
		unsetenv(name);
#endif
}

static void copy_file(const char *from, const char *to)
{
	size_t n = 0;
	uint8_t *b = hks_test_read_file(from, &n);
	assert_non_null(b);
	FILE *f = hks_platform_fopen(to, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
	free(b);
}

static void write_file(const char *path, const uint8_t *b, size_t n)
{
	FILE *f = hks_platform_fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
	(void)state;
	const char *s = getenv("HKS_OODLE_STANDIN");
	if (!s || !*s) {
		fprintf(stderr, "HKS_OODLE_STANDIN is not set (run through ctest)\n");
		return -1;
	}
	snprintf(g_standin, sizeof(g_standin), "%s", s);
	const char *sep = hks_platform_last_separator(g_standin);
	snprintf(g_libname, sizeof(g_libname), "%s", sep ? sep + 1 : g_standin);
	set_env("HKSPLINE_OODLE", NULL);
	set_env("HKS_STANDIN_MODE", NULL);
	/* TMP/game/chr/sub: the library in TMP/game; TMP/nolib: none above it */
	hks_platform_mkdir(TMP);
	hks_platform_mkdir(TMP "/game");
	hks_platform_mkdir(TMP "/game/chr");
	hks_platform_mkdir(TMP "/game/chr/sub");
	hks_platform_mkdir(TMP "/nolib");
	char dst[4200];
	snprintf(dst, sizeof(dst), TMP "/game/%s", g_libname);
	FILE *f = hks_platform_fopen(dst, "rb");
	if (f)
		fclose(f);
	else
		copy_file(g_standin, dst);
	return 0;
}

/* A KRAK DCX header (Elden Ring's variant: version 0x11000, level 6). */
static void krak_like(hks_dcx_info *like)
{
	memset(like, 0, sizeof(*like));
	uint8_t *plain = NULL;
	size_t n = 0;
	hks_error e;
	const uint8_t one = 0;
	assert_int_equal(hks_dcx_compress(&one, 1, NULL, NULL, &plain, &n, &e), HKS_OK);
	assert_int_equal(hks_dcx_read_info(plain, n, like, &e), HKS_OK);
	hks_buffer_free(NULL, plain, n);
	memcpy(like->header + 0x28, "KRAK", 4);
	like->header[0x30] = 6;
	memcpy(like->compression, "KRAK", 5);
	like->level = 6;
}

static uint8_t g_payload[5000];

static void fill_payload(void)
{
	for (size_t i = 0; i < sizeof(g_payload); i++)
		g_payload[i] = (uint8_t)(i * 7 + i / 13);
}

/* A KRAK DCX of g_payload made through `codec`; freed with hks_buffer_free. */
static uint8_t *make_krak(const hks_dcx_codec *codec, size_t *size)
{
	hks_dcx_info like;
	krak_like(&like);
	hks_options o = {0};
	o.dcx_codec = codec;
	uint8_t *out = NULL;
	hks_error e;
	assert_int_equal(hks_dcx_compress(g_payload, sizeof(g_payload), &like, &o, &out, size, &e), HKS_OK);
	assert_memory_equal(out + 0x28, "KRAK", 4);
	assert_int_equal(out[0x30], 6);
	return out;
}

static void test_no_codec_is_actionable(void **state)
{
	(void)state;
	fill_payload();
	hks_oodle *o = NULL;
	hks_error e;
	assert_int_equal(hks_oodle_open(g_standin, &o, &e), HKS_OK);
	hks_dcx_codec c;
	hks_oodle_codec(o, &c);
	size_t n = 0;
	uint8_t *dcx = make_krak(&c, &n);
	hks_options opts = {0};
	opts.name = "c3160.anibnd.dcx";
	uint8_t *out = NULL;
	size_t out_size = 0;
	assert_int_equal(hks_dcx_decompress(dcx, n, &opts, &out, &out_size, NULL, &e), HKS_E_UNSUPPORTED);
	assert_null(out);
	assert_non_null(strstr(e.message, "KRAK"));
	assert_non_null(strstr(e.message, "--oodle"));
	assert_non_null(strstr(e.message, "HKSPLINE_OODLE"));
	assert_non_null(strstr(e.message, "oo2core_6_win64.dll"));
	assert_non_null(strstr(e.message, "eldenring.exe"));
	assert_non_null(strstr(e.message, "sekiro.exe"));
	hks_buffer_free(NULL, dcx, n);
	hks_oodle_close(o);
}

static void test_standin_round_trip(void **state)
{
	(void)state;
	fill_payload();
	hks_oodle *o = NULL;
	hks_error e;
	assert_int_equal(hks_oodle_open(g_standin, &o, &e), HKS_OK);
	assert_true(hks_oodle_can_compress(o));
	assert_string_equal(hks_oodle_path(o), g_standin);
	hks_dcx_codec c;
	hks_oodle_codec(o, &c);
	size_t n = 0;
	uint8_t *dcx = make_krak(&c, &n);
	/* the stand-in stored the level it was asked for: the header's */
	assert_int_equal(n, HKS_DCX_HEADER_SIZE + 9 + sizeof(g_payload));
	assert_int_equal(dcx[HKS_DCX_HEADER_SIZE + 8], 6);
	hks_options opts = {0};
	opts.dcx_codec = &c;
	uint8_t *out = NULL;
	size_t out_size = 0;
	hks_dcx_info info;
	assert_int_equal(hks_dcx_decompress(dcx, n, &opts, &out, &out_size, &info, &e), HKS_OK);
	assert_string_equal(info.compression, "KRAK");
	assert_int_equal(out_size, sizeof(g_payload));
	assert_memory_equal(out, g_payload, sizeof(g_payload));
	hks_buffer_free(NULL, out, out_size);

	/* the process default is used when the options have none */
	hks_dcx_set_default_codec(&c);
	assert_int_equal(hks_dcx_decompress(dcx, n, NULL, &out, &out_size, NULL, &e), HKS_OK);
	hks_buffer_free(NULL, out, out_size);
	hks_dcx_set_default_codec(NULL);

	/* a lying or failing library: clean errors, nothing handed out */
	const char *modes[] = {"short", "long", "fail"};
	for (size_t m = 0; m < 3; m++) {
		set_env("HKS_STANDIN_MODE", modes[m]);
		out = NULL;
		assert_int_equal(hks_dcx_decompress(dcx, n, &opts, &out, &out_size, NULL, &e), HKS_E_MALFORMED);
		assert_null(out);
		assert_non_null(strstr(e.message, "Oodle"));
	}
	set_env("HKS_STANDIN_MODE", NULL);
	/* a truncated payload is refused before the library sees it */
	assert_int_equal(hks_dcx_decompress(dcx, n - 1, &opts, &out, &out_size, NULL, &e), HKS_E_TRUNCATED);
	hks_buffer_free(NULL, dcx, n);
	hks_oodle_close(o);

	/* not a library, not there */
	assert_int_equal(hks_oodle_open(TMP "/nolib/none.dll", &o, &e), HKS_E_IO);
	write_file(TMP "/nolib/fake.dll", (const uint8_t *)"not a library", 13);
	assert_int_equal(hks_oodle_open(TMP "/nolib/fake.dll", &o, &e), HKS_E_IO);
	assert_null(o);
	hks_platform_remove(TMP "/nolib/fake.dll");
}

/* An embedder's own codec: XOR 0x5A, and a lying variant. */
static int64_t xor_decompress(void *user, const char *tag, const char *name, const uint8_t *src, size_t src_size,
                              uint8_t *dst, size_t dst_size, char *msg, size_t msg_size)
{
	(void)tag, (void)name, (void)msg, (void)msg_size;
	int lie = user != NULL;
	if (src_size != dst_size)
		return -1;
	for (size_t i = 0; i < dst_size; i++)
		dst[i] = src[i] ^ 0x5A;
	return lie ? (int64_t)dst_size + 1 : (int64_t)dst_size;
}

static int64_t xor_compress(void *user, const char *tag, int level, const char *name, const uint8_t *src,
                            size_t src_size, uint8_t *dst, size_t dst_cap, char *msg, size_t msg_size)
{
	(void)user, (void)tag, (void)level, (void)name, (void)msg, (void)msg_size;
	if (dst_cap < src_size)
		return -1;
	for (size_t i = 0; i < src_size; i++)
		dst[i] = src[i] ^ 0x5A;
	return (int64_t)src_size;
}

static int g_notes;
static void count_note(void *user, const char *message)
{
	(void)user;
	assert_non_null(strstr(message, "DFLT"));
	g_notes++;
}

static void test_embedder_callbacks(void **state)
{
	(void)state;
	fill_payload();
	hks_dcx_codec c = {xor_decompress, xor_compress, count_note, NULL};
	size_t n = 0;
	uint8_t *dcx = make_krak(&c, &n);
	assert_int_equal(n, HKS_DCX_HEADER_SIZE + sizeof(g_payload));
	hks_options opts = {0};
	opts.dcx_codec = &c;
	uint8_t *out = NULL;
	size_t out_size = 0;
	hks_error e;
	assert_int_equal(hks_dcx_decompress(dcx, n, &opts, &out, &out_size, NULL, &e), HKS_OK);
	assert_memory_equal(out, g_payload, sizeof(g_payload));
	hks_buffer_free(NULL, out, out_size);
	int liar_tag = 1;
	hks_dcx_codec liar = {xor_decompress, NULL, NULL, &liar_tag};
	opts.dcx_codec = &liar;
	assert_int_equal(hks_dcx_decompress(dcx, n, &opts, &out, &out_size, NULL, &e), HKS_E_MALFORMED);
	assert_non_null(strstr(e.message, "declares"));
	hks_buffer_free(NULL, dcx, n);

	/* writing KRAK without a compressor: DFLT, with a note */
	hks_dcx_codec decode_only = {xor_decompress, NULL, count_note, NULL};
	hks_dcx_info like;
	krak_like(&like);
	opts.dcx_codec = &decode_only;
	g_notes = 0;
	assert_int_equal(hks_dcx_compress(g_payload, sizeof(g_payload), &like, &opts, &out, &out_size, &e), HKS_OK);
	assert_memory_equal(out + 0x28, "DFLT", 4);
	assert_int_equal(g_notes, 1);
	hks_buffer_free(NULL, out, out_size);
}

static void test_find_and_auto(void **state)
{
	(void)state;
	fill_payload();
	char found[4096], want[4200];
	snprintf(want, sizeof(want), TMP "/game/%s", g_libname);
	/* from a file two folders down, from a folder, from a BINDER:MEMBER name */
	assert_true(hks_oodle_find(TMP "/game/chr/sub/c3160.anibnd.dcx", found, sizeof(found)));
	assert_non_null(strstr(found, want));
	assert_true(hks_oodle_find(TMP "/game/chr", found, sizeof(found)));
	assert_non_null(strstr(found, want));
	assert_true(hks_oodle_find(TMP "/game/chr/x.anibnd.dcx:a000_000000.hkx", found, sizeof(found)));
	/* a member's full name holds a drive's ':' too: the binder is the shortest prefix that is a file */
	assert_true(hks_oodle_find(TMP "/game/chr/sub/c3160.anibnd.dcx:N:\\FDP\\a000_000000.hkx", found, sizeof(found)));
	assert_non_null(strstr(found, want));
	assert_false(hks_oodle_find("/", found, sizeof(found)) && strstr(found, want));
	assert_false(hks_oodle_find(TMP "/nolib/c.anibnd.dcx", found, sizeof(found)));

	hks_oodle *o = NULL;
	hks_error e;
	assert_int_equal(hks_oodle_open(g_standin, &o, &e), HKS_OK);
	hks_dcx_codec c;
	hks_oodle_codec(o, &c);
	size_t n = 0;
	uint8_t *dcx = make_krak(&c, &n);
	hks_oodle_close(o);
	uint8_t *out = NULL;
	size_t out_size = 0;

	/* resolution: none, then folder search, environment, explicit path */
	struct {
		const char *explicit_path, *env, *name;
		hks_result want;
	} cases[] = {
	    {NULL, NULL, TMP "/nolib/c.dcx", HKS_E_UNSUPPORTED},
	    {NULL, NULL, TMP "/game/chr/sub/c.dcx", HKS_OK},
	    {NULL, g_standin, TMP "/nolib/c.dcx", HKS_OK},
	    {g_standin, NULL, TMP "/nolib/c.dcx", HKS_OK},
	    {TMP "/nolib/missing.dll", g_standin, TMP "/game/c.dcx", HKS_E_UNSUPPORTED}, /* --oodle wins */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		set_env("HKSPLINE_OODLE", cases[i].env);
		hks_oodle_auto *a = NULL;
		assert_int_equal(hks_oodle_auto_create(cases[i].explicit_path, &a, &e), HKS_OK);
		hks_options opts = {0};
		opts.dcx_codec = hks_oodle_auto_codec(a);
		opts.name = cases[i].name;
		hks_result r = hks_dcx_decompress(dcx, n, &opts, &out, &out_size, NULL, &e);
		if (r != cases[i].want)
			fail_msg("case %zu: %s (%s)", i, hks_result_name(r), e.message);
		if (r == HKS_OK) {
			assert_memory_equal(out, g_payload, sizeof(g_payload));
			hks_buffer_free(NULL, out, out_size);
			assert_int_equal(hks_oodle_auto_missing(a), 0);
		} else {
			assert_non_null(strstr(e.message, "--oodle"));
			assert_int_equal(hks_oodle_auto_missing(a), 1);
		}
		hks_oodle_auto_free(a);
	}
	set_env("HKSPLINE_OODLE", NULL);
	hks_buffer_free(NULL, dcx, n);
}

/* ---- the CLI -------------------------------------------------------------- */

static char g_cli[4096];

/* system() with a UTF-8 command line (on Windows through the wide _wsystem,
 * so that non-ASCII names reach the program as they are). */
static int system_utf8(const char *cmd)
{
#ifdef _WIN32
	wchar_t w[8192];
	if (!MultiByteToWideChar(CP_UTF8, 0, cmd, -1, w, 8192))
		return -1;
	return _wsystem(w);
#else
	return system(cmd);
#endif
}

static int run_cli(const char *args, char *output, size_t output_size)
{
	char cmd[16384];
	/* cmd.exe drops the first and the last quote of a line with more than
	 * two: one more pair around the whole command keeps the others */
	const char *outer = HKS_PLATFORM_WINDOWS ? "\"" : "";
	snprintf(cmd, sizeof(cmd), "%s\"%s\" %s > " TMP "/cli.out 2>&1%s", outer, g_cli, args, outer);
	int status = system_utf8(cmd);
	size_t n = 0;
	uint8_t *b = hks_test_read_file(TMP "/cli.out", &n);
	output[0] = '\0';
	if (b) {
		snprintf(output, output_size, "%.*s", (int)n, (const char *)b);
		free(b);
	}
	return EXIT_OF(status);
}

static void test_cli(void **state)
{
	(void)state;
	const char *c = getenv("HKSPLINE_CLI");
	if (!c || !*c) {
		print_message("SKIPPED: HKSPLINE_CLI is not set (run through ctest)\n");
		skip();
	}
	snprintf(g_cli, sizeof(g_cli), "%s", c);
#ifdef _WIN32
	for (char *p = g_cli; *p; p++)
		if (*p == '/')
			*p = '\\';
#endif
	/* a sample Havok file from make_sample (beside the CLI), in a KRAK DCX */
	char make[4200], cmd[8400];
	snprintf(make, sizeof(make), "%s", g_cli);
	char *sep = (char *)hks_platform_last_separator(make);
	assert_non_null(sep);
	snprintf(sep + 1, sizeof(make) - (size_t)(sep + 1 - make), "make_sample%s", HKS_PLATFORM_WINDOWS ? ".exe" : "");
	snprintf(cmd, sizeof(cmd), "\"%s\" " TMP "/sample.hkx", make);
	assert_int_equal(EXIT_OF(system(cmd)), 0);
	size_t hn = 0;
	uint8_t *hkx = hks_test_read_file(TMP "/sample.hkx", &hn);
	assert_non_null(hkx);
	hks_oodle *o = NULL;
	hks_error e;
	assert_int_equal(hks_oodle_open(g_standin, &o, &e), HKS_OK);
	hks_dcx_codec codec;
	hks_oodle_codec(o, &codec);
	hks_dcx_info like;
	krak_like(&like);
	hks_options opts = {0};
	opts.dcx_codec = &codec;
	uint8_t *dcx = NULL;
	size_t n = 0;
	assert_int_equal(hks_dcx_compress(hkx, hn, &like, &opts, &dcx, &n, &e), HKS_OK);
	write_file(TMP "/nolib/sample.hkx.dcx", dcx, n);
	write_file(TMP "/game/chr/sub/sample.hkx.dcx", dcx, n);
	hks_buffer_free(NULL, dcx, n);
	hks_oodle_close(o);
	free(hkx);

	static char out[65536];
	char args[8192];
	/* no library anywhere: the actionable error, exit 2 */
	assert_int_equal(run_cli("check --json " TMP "/nolib/sample.hkx.dcx", out, sizeof(out)), 2);
	assert_non_null(strstr(out, "--oodle"));
	assert_non_null(strstr(out, "eldenring.exe"));
	assert_int_equal(run_cli("decode " TMP "/nolib/sample.hkx.dcx -o " TMP "/d.json", out, sizeof(out)), 2);
	assert_non_null(strstr(out, "--oodle"));
	/* --oodle PATH (before or after the command's own options) */
	snprintf(args, sizeof(args), "check --json --oodle \"%s\" " TMP "/nolib/sample.hkx.dcx", g_standin);
	assert_int_equal(run_cli(args, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "\"decoded\": 1"));
	snprintf(args, sizeof(args), "decode " TMP "/nolib/sample.hkx.dcx -o " TMP "/d.json --oodle=%s", g_standin);
	assert_int_equal(run_cli(args, out, sizeof(out)), 0);
	assert_int_equal(run_cli("check --json --oodle", out, sizeof(out)), 2);
	/* HKSPLINE_OODLE */
	set_env("HKSPLINE_OODLE", g_standin);
	assert_int_equal(run_cli("check --json " TMP "/nolib/sample.hkx.dcx", out, sizeof(out)), 0);
	set_env("HKSPLINE_OODLE", NULL);
	/* the folder search: TMP/game holds the library */
	assert_int_equal(run_cli("check --json " TMP "/game/chr/sub/sample.hkx.dcx", out, sizeof(out)), 0);
	assert_non_null(strstr(out, "\"decoded\": 1"));
	/* writing: repack keeps KRAK through OodleLZ_Compress (the stand-in stores,
	 * so the archive comes back byte for byte); without a compressor, DFLT and
	 * a note */
	snprintf(args, sizeof(args), "repack --oodle \"%s\" " TMP "/nolib/sample.hkx.dcx -o " TMP "/r.dcx", g_standin);
	assert_int_equal(run_cli(args, out, sizeof(out)), 0);
	size_t a_n = 0, b_n = 0;
	uint8_t *a = hks_test_read_file(TMP "/nolib/sample.hkx.dcx", &a_n), *b = hks_test_read_file(TMP "/r.dcx", &b_n);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(a_n, b_n);
	assert_memory_equal(a, b, a_n);
	free(b);
	set_env("HKS_STANDIN_MODE", "nocompress");
	assert_int_equal(run_cli(args, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "note"));
	assert_non_null(strstr(out, "DFLT"));
	b = hks_test_read_file(TMP "/r.dcx", &b_n);
	assert_non_null(b);
	assert_memory_equal(b + 0x28, "DFLT", 4);
	free(a);
	free(b);
	set_env("HKS_STANDIN_MODE", NULL);
	/* a non-ASCII (UTF-8) folder name through the command line and the folder search */
	hks_platform_mkdir(TMP "/game/\xc3\x84rger-\xe2\x82\xac");
	copy_file(TMP "/nolib/sample.hkx.dcx", TMP "/game/\xc3\x84rger-\xe2\x82\xac/sample.hkx.dcx");
	assert_int_equal(run_cli("check --json \"" TMP "/game/\xc3\x84rger-\xe2\x82\xac/sample.hkx.dcx\"", out, sizeof(out)),
	                 0);
	assert_non_null(strstr(out, "\"decoded\": 1"));
	/* a library that fails: a failed file (exit 1), not a missing library */
	set_env("HKS_STANDIN_MODE", "fail");
	assert_int_equal(run_cli("check --json " TMP "/game/chr/sub/sample.hkx.dcx", out, sizeof(out)), 1);
	assert_non_null(strstr(out, "not decompressed"));
	set_env("HKS_STANDIN_MODE", NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_no_codec_is_actionable),
	    cmocka_unit_test(test_standin_round_trip),
	    cmocka_unit_test(test_embedder_callbacks),
	    cmocka_unit_test(test_find_and_auto),
	    cmocka_unit_test(test_cli),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
