/*
 * Regression driver: runs every file of the given folders (seed corpora and
 * saved crashers) through one fuzz target, without libFuzzer. Built with the
 * normal compiler as part of the test suite, so every past crasher stays fixed.
 * Usage: regress_<target> DIR... ; exits 0 when every input ran.
 */
#define _DEFAULT_SOURCE
#include "fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		return 1;
	}
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = (uint8_t *)malloc(cap);
	for (;;) {
		if (n == cap) {
			cap *= 2;
			buf = (uint8_t *)realloc(buf, cap);
		}
		size_t k = fread(buf + n, 1, cap - n, f);
		if (!k)
			break;
		n += k;
	}
	fclose(f);
	/* exact-size copy so that ASan sees reads past the end */
	uint8_t *exact = (uint8_t *)malloc(n ? n : 1);
	memcpy(exact, buf, n);
	free(buf);
	LLVMFuzzerTestOneInput(exact, n);
	free(exact);
	return 0;
}

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int run_dir(const char *dir, size_t *count)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0; /* an absent folder (no crashers yet) is fine */
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			names = (char **)realloc(names, cap * sizeof(char *));
		}
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(char *), cmp);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		struct stat st;
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			rc |= run_file(path);
			(*count)++;
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	size_t count = 0;
	int rc = 0;
	for (int i = 1; i < argc; i++)
		rc |= run_dir(argv[i], &count);
	printf("%zu inputs ran\n", count);
	return rc;
}
