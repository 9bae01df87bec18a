/*
 * Helpers shared by the hand-made hostile tests (tests/test_hostile_*.c): one
 * temporary folder per test program, paths inside it, plain file writes, and
 * a shell command's output. POSIX only (those tests are not built for
 * Windows; see HKS_POSIX_ONLY_TESTS in CMakeLists.txt).
 */
#ifndef HKS_HOSTILE_H
#define HKS_HOSTILE_H

#include <stddef.h>

/* Create the folder /tmp/PREFIX_XXXXXX (mkdtemp): 0, or -1 (cmocka setup). */
int hks_hostile_setup(const char *prefix);
/* As hks_hostile_setup, for tests that run the CLI: *cli is HKSPLINE_CLI (set
 * by ctest); -1 with a message when it is not set. */
int hks_hostile_setup_cli(const char *prefix, const char **cli);
/* Remove it with everything inside: 0, or -1 (cmocka teardown). */
int hks_hostile_teardown(void);
/* The folder (empty before hks_hostile_setup). */
const char *hks_hostile_root(void);
/* "ROOT/rel" in one of 8 rotating static buffers (valid for the next 7 calls). */
char *hks_hostile_path(const char *rel);
/* Write `size` bytes to `path` with stdio (asserts success). */
void hks_hostile_write(const char *path, const void *data, size_t size);
/* Run a shell command with stdout and stderr into *out (malloc'd, NUL-ended;
 * caller frees); its exit status, -1 when it did not exit normally. */
int hks_hostile_run(const char *cmd, char **out);

#endif
