/*
 * bnd extract / pack on the corpus binders (issue 12): extract records the
 * zlib level that reproduces the DCX stream (dcx-deflate-level in the
 * manifest, 0 for none) and pack uses it. The recorded level is checked
 * against the truth: when it is N > 0, pack gives back the archive byte for
 * byte; when it is 0, no zlib level 1-9 reproduces the archive
 * (hks_dcx_compress tried at each) and pack's note says so. Either way the
 * repacked archive decompresses to the original BND4.
 */
#define _DEFAULT_SOURCE
#include "hks_test.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *corpus;
static const char *cli;

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

static void one_binder(const char *path, const char *tmp)
{
	size_t src_size = 0;
	uint8_t *src = hks_test_read_file(path, &src_size);
	assert_non_null(src);
	char cmd[8192], *out = NULL;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/x' && '%s' bnd extract '%s' -o '%s/x'", tmp, cli, path, tmp);
	assert_int_equal(run(cmd, &out), 0);
	assert_non_null(strstr(out, "note: "));
	free(out);
	char mp[4200];
	snprintf(mp, sizeof(mp), "%s/x/_hkspline_bnd.txt", tmp);
	size_t msize = 0;
	char *manifest = (char *)hks_test_read_file(mp, &msize);
	assert_non_null(manifest);
	const char *line = strstr(manifest, "\ndcx-deflate-level\t");
	assert_non_null(line);
	int level = atoi(line + strlen("\ndcx-deflate-level\t"));
	free(manifest);
	assert_true(level >= 0 && level <= 9);

	snprintf(cmd, sizeof(cmd), "'%s' bnd pack '%s/x' -o '%s/re.dcx'", cli, tmp, tmp);
	assert_int_equal(run(cmd, &out), 0);
	assert_non_null(strstr(out, level ? "reproduces the original DCX stream" : "no zlib level reproduces"));
	free(out);
	snprintf(mp, sizeof(mp), "%s/re.dcx", tmp);
	size_t re_size = 0;
	uint8_t *re = hks_test_read_file(mp, &re_size);
	assert_non_null(re);

	uint8_t *raw = NULL, *raw2 = NULL;
	size_t raw_size = 0, raw2_size = 0;
	hks_dcx_info info;
	assert_int_equal(hks_dcx_decompress(src, src_size, NULL, &raw, &raw_size, &info, NULL), HKS_OK);
	assert_int_equal(hks_dcx_decompress(re, re_size, NULL, &raw2, &raw2_size, NULL, NULL), HKS_OK);
	assert_int_equal(raw_size, raw2_size);
	assert_memory_equal(raw, raw2, raw_size);
	assert_int_equal(hks_dcx_match_level(raw, raw_size, src, src_size), level);
	bool same = re_size == src_size && !memcmp(re, src, src_size);
	printf("%s: dcx-deflate-level %d, repacked %s\n", path, level, same ? "byte for byte" : "with other compressed bytes");
	if (level) {
		assert_true(same);
	} else {
		assert_false(same);
		for (int l = 1; l <= 9; l++) {
			hks_dcx_info like = info;
			like.deflate_level = (uint8_t)l;
			uint8_t *c = NULL;
			size_t c_size = 0;
			assert_int_equal(hks_dcx_compress(raw, raw_size, &like, NULL, &c, &c_size, NULL), HKS_OK);
			assert_false(c_size == src_size && !memcmp(c, src, src_size));
			hks_buffer_free(NULL, c, c_size);
		}
	}
	hks_buffer_free(NULL, raw, raw_size);
	hks_buffer_free(NULL, raw2, raw2_size);
	free(re);
	free(src);
}

static void test_binders(void **state)
{
	(void)state;
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/binders", corpus);
	size_t count = 0;
	char **files = hks_test_list_files(dir, ".dcx", &count);
	assert_true(count > 0);
	char tmp[] = "/tmp/hks_bndlvl_XXXXXX";
	assert_non_null(mkdtemp(tmp));
	for (size_t i = 0; i < count; i++)
		one_binder(files[i], tmp);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	assert_int_equal(system(cmd), 0);
	hks_test_free_list(files, count);
}

int main(void)
{
	corpus = hks_test_require_corpus("corpus_bnd_level");
	cli = getenv("HKSPLINE_CLI");
	if (!cli || !*cli) {
		fprintf(stderr, "HKSPLINE_CLI is not set (run through ctest)\n");
		return 1;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_binders),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
