/* Helpers shared by the tests. */
#ifndef HKS_TEST_H
#define HKS_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "hkspline.h"

/* The corpus folder: $HKSPLINE_CORPUS, else the build's default
 * (../shared/corpus beside the source tree), else NULL. */
const char *hks_test_corpus(void);

/* For corpus test programs: when the corpus is absent, print a visible
 * message and exit with 77 (ctest reports the test as skipped). */
const char *hks_test_require_corpus(const char *test_name);

/* Read a whole file (malloc'd, with a NUL byte after the last one; caller
 * frees). NULL on failure. */
uint8_t *hks_test_read_file(const char *path, size_t *size);

/* List files below `dir` (recursively) whose name ends with one of the
 * comma-separated suffixes (case-insensitive), sorted. Caller frees with
 * hks_test_free_list. */
char **hks_test_list_files(const char *dir, const char *suffixes, size_t *count);
void hks_test_free_list(char **list, size_t count);

#endif
