/* Helpers of the hostile tests (hks_hostile.h). POSIX only: compiled to
 * nothing on Windows, where those tests are not built. */
#ifndef _WIN32
#define _DEFAULT_SOURCE
#include "hks_test.h"
#include "hks_hostile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static char g_root[96];

int hks_hostile_setup(const char *prefix)
{
	snprintf(g_root, sizeof(g_root), "/tmp/%s_XXXXXX", prefix);
	return mkdtemp(g_root) ? 0 : -1;
}

int hks_hostile_setup_cli(const char *prefix, const char **cli)
{
	*cli = getenv("HKSPLINE_CLI");
	if (!*cli || !**cli) {
		fprintf(stderr, "HKSPLINE_CLI is not set (run through ctest)\n");
		return -1;
	}
	return hks_hostile_setup(prefix);
}

int hks_hostile_teardown(void)
{
	if (!g_root[0])
		return 0;
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_root);
	return system(cmd) == 0 ? 0 : -1;
}

const char *hks_hostile_root(void)
{
	return g_root;
}

char *hks_hostile_path(const char *rel)
{
	static char buf[8][512];
	static int next;
	char *p = buf[next++ % 8];
	snprintf(p, 512, "%s/%s", g_root, rel);
	return p;
}

void hks_hostile_write(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, size, f), size);
	assert_int_equal(fclose(f), 0);
}

int hks_hostile_run(const char *cmd, char **out)
{
	char full[8192];
	snprintf(full, sizeof(full), "%s 2>&1", cmd);
	FILE *p = popen(full, "r");
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
#else
typedef int hks_hostile_unused; /* ISO C: no empty translation unit */
#endif
