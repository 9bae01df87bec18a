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

/* The animation object of an encoder's packed output (hks_encode_spline), so
 * the tests can walk and sample it as if read from a file (no byte offsets). */
hks_animation hks_test_animation_of(const hks_packed_spline *p);

/* One quantization step of a lane (part 0 T, 1 R, 2 S, 3 float track t)
 * over all blocks of `s`: 8/16-bit scalars over [min, max] (FORMAT.md §3);
 * rotations the packed component step, tripled for the component the
 * ThreeComp packers rebuild from the others (ENCODER.md §9.5). */
double hks_test_lane_step(const hks_stored_animation *s, uint32_t t, int part, int lane);

/* The knot-edit (REFIT_INV) entries of a record: their payload bytes (before the body coder) into *payload_bytes
 * and how many name a ladder step above 0 (from version 18 mostly those on step 1's hybrid tries) into *later_step
 * (either may be NULL). 0 when the record does not read. */
int hks_test_record_knot_edits(const uint8_t *rec, size_t size, uint64_t *payload_bytes, uint64_t *later_step);

#endif
