/*
 * The platform layer (src/core/platform.{h,c}), on Linux and under Wine:
 * binary files with UTF-8 (non-ASCII) names, folders, stat, replace-by-rename
 * over an existing file, temporaries beside a target, advisory locks between
 * two open files, threads with a mutex and a condition variable, memory
 * streams, dlopen failures, the small C library gaps.
 */
#include "hks_test.h"
#include "platform.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIR_ "platform_tmp"
/* "Ärger-€-ß" in UTF-8: a name no code page but UTF-8/UTF-16 spells */
#define UNAME DIR_ "/\xc3\x84rger-\xe2\x82\xac-\xc3\x9f.bin"

static void write_text(const char *path, const char *text)
{
	FILE *f = hks_platform_fopen(path, "w"); /* "b" is added */
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static size_t read_all(const char *path, char *buf, size_t cap)
{
	FILE *f = hks_platform_fopen(path, "rb");
	if (!f)
		return (size_t)-1;
	size_t n = fread(buf, 1, cap - 1, f);
	buf[n] = '\0';
	fclose(f);
	return n;
}

static void test_files_and_folders(void **state)
{
	(void)state;
	hks_platform_mkdir(DIR_);
	assert_int_equal(hks_platform_path_kind(DIR_), HKS_PATH_DIR);
	assert_int_equal(hks_platform_mkdir(DIR_), -1);
	assert_int_equal(errno, EEXIST);
	/* binary mode: "\n" stays one byte */
	write_text(UNAME, "a\nb\n");
	char buf[64];
	assert_int_equal(read_all(UNAME, buf, sizeof(buf)), 4);
	assert_string_equal(buf, "a\nb\n");
	hks_path_info info;
	assert_int_equal(hks_platform_stat(UNAME, &info), 0);
	assert_int_equal(info.kind, HKS_PATH_FILE);
	assert_int_equal(info.size, 4);
	hks_path_info again;
	assert_int_equal(hks_platform_stat(UNAME, &again), 0);
	assert_true(info.dev == again.dev && info.ino == again.ino);
	assert_int_equal(hks_platform_stat(DIR_ "/missing", &info), -1);
	assert_int_equal(hks_platform_path_kind(DIR_ "/missing"), HKS_PATH_NONE);
	/* the folder lists the UTF-8 name, without "." and ".." */
	hks_dir *d = hks_platform_opendir(DIR_);
	assert_non_null(d);
	int seen = 0;
	const char *e;
	while ((e = hks_platform_readdir(d)) != NULL) {
		assert_true(strcmp(e, ".") && strcmp(e, ".."));
		if (!strcmp(e, &UNAME[sizeof(DIR_)]))
			seen++;
	}
	hks_platform_closedir(d);
	assert_int_equal(seen, 1);
	assert_null(hks_platform_opendir(DIR_ "/missing"));
	/* separators */
	assert_true(hks_platform_is_separator('/'));
	assert_int_equal(hks_platform_is_separator('\\'), HKS_PLATFORM_WINDOWS);
	assert_string_equal(hks_platform_last_separator("a/b/c"), "/c");
	assert_null(hks_platform_last_separator("abc"));
	char cwd[4096];
	assert_non_null(hks_platform_getcwd(cwd, sizeof(cwd)));
	assert_int_equal(hks_platform_remove(UNAME), 0);
	assert_int_equal(hks_platform_path_kind(UNAME), HKS_PATH_NONE);
}

static void test_rename_tempfile_lock(void **state)
{
	(void)state;
	hks_platform_mkdir(DIR_);
	const char *target = DIR_ "/target.bin";
	write_text(target, "old");
	char *tmp = NULL;
	FILE *f = hks_platform_tempfile_beside(target, &tmp);
	assert_non_null(f);
	assert_non_null(tmp);
	/* beside the target: same folder */
	assert_int_equal(strncmp(tmp, DIR_ "/", strlen(DIR_) + 1), 0);
	assert_int_equal(hks_platform_path_kind(tmp), HKS_PATH_FILE);
	char *tmp2 = NULL;
	FILE *g = hks_platform_tempfile_beside(target, &tmp2);
	assert_non_null(g);
	assert_string_not_equal(tmp, tmp2); /* unique */
	fclose(g);
	hks_platform_remove(tmp2);
	free(tmp2);
	fputs("new", f);
	assert_int_equal(hks_platform_sync_file(f), 0);
	assert_int_equal(fclose(f), 0);
	/* replaces the existing file */
	assert_int_equal(hks_platform_rename_replace(tmp, target), 0);
	char buf[16];
	assert_int_equal(read_all(target, buf, sizeof(buf)), 3);
	assert_string_equal(buf, "new");
	assert_int_equal(hks_platform_path_kind(tmp), HKS_PATH_NONE);
	assert_int_equal(hks_platform_rename_replace(tmp, target), -1);
	free(tmp);

	/* locks: an exclusive lock keeps a second open file out until released */
	FILE *a = hks_platform_fopen(target, "r+b"), *b = hks_platform_fopen(target, "r+b");
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(hks_platform_lock_file(a, true, false), 0);
	assert_int_equal(hks_platform_lock_file(b, true, false), -1);
	assert_int_equal(hks_platform_lock_file(b, false, false), -1);
	assert_int_equal(hks_platform_unlock_file(a), 0);
	assert_int_equal(hks_platform_lock_file(b, true, false), 0);
	assert_int_equal(hks_platform_unlock_file(b), 0);
	/* shared locks coexist */
	assert_int_equal(hks_platform_lock_file(a, false, true), 0);
	assert_int_equal(hks_platform_lock_file(b, false, false), 0);
	fclose(a);
	fclose(b);
	hks_platform_remove(target);
}

typedef struct counter {
	hks_mutex m;
	hks_cond c;
	int value, done;
} counter;

static void *worker(void *arg)
{
	counter *k = (counter *)arg;
	for (int i = 0; i < 10000; i++) {
		hks_mutex_lock(&k->m);
		k->value++;
		hks_mutex_unlock(&k->m);
	}
	hks_mutex_lock(&k->m);
	k->done++;
	hks_cond_signal(&k->c);
	hks_mutex_unlock(&k->m);
	return NULL;
}

static void test_threads(void **state)
{
	(void)state;
	counter k;
	memset(&k, 0, sizeof(k));
	assert_int_equal(hks_mutex_init(&k.m), 0);
	assert_int_equal(hks_cond_init(&k.c), 0);
	hks_thread t[4];
	for (int i = 0; i < 4; i++)
		assert_int_equal(hks_thread_create(&t[i], worker, &k), 0);
	hks_mutex_lock(&k.m);
	double start = hks_platform_monotonic_seconds();
	while (k.done < 4 && hks_platform_monotonic_seconds() - start < 60)
		hks_cond_wait_ms(&k.c, &k.m, 50);
	hks_mutex_unlock(&k.m);
	for (int i = 0; i < 4; i++)
		assert_int_equal(hks_thread_join(&t[i]), 0);
	assert_int_equal(k.done, 4);
	assert_int_equal(k.value, 40000);
	/* a timed wait with nobody signalling returns */
	hks_mutex_lock(&k.m);
	hks_cond_wait_ms(&k.c, &k.m, 10);
	hks_mutex_unlock(&k.m);
	hks_cond_destroy(&k.c);
	hks_mutex_destroy(&k.m);
	assert_true(hks_platform_cpu_count() >= 1);
	assert_true(hks_platform_thread_cpu_seconds() >= 0);
}

static void test_memstream_dl_strings(void **state)
{
	(void)state;
	char *text = NULL;
	size_t size = 0;
	FILE *f = hks_platform_open_memstream(&text, &size);
	assert_non_null(f);
	for (int i = 0; i < 1000; i++)
		fprintf(f, "%d\n", i);
	assert_int_equal(hks_platform_close_memstream(f), 0);
	assert_non_null(text);
	assert_int_equal(size, strlen(text));
	assert_int_equal(strncmp(text, "0\n1\n2\n", 6), 0);
	assert_non_null(strstr(text, "\n999\n"));
	free(text);
	/* a missing library: NULL and a message */
	assert_null(hks_platform_dlopen(DIR_ "/no-such-library.so"));
	char why[256];
	assert_true(strlen(hks_platform_dlerror(why, sizeof(why))) > 0);
	char *s = hks_platform_strndup("abcdef", 3);
	assert_string_equal(s, "abc");
	free(s);
	s = hks_platform_strndup("ab", 10);
	assert_string_equal(s, "ab");
	free(s);
	/* a pipe or file is not a console */
	FILE *t = hks_platform_fopen(DIR_ "/not-a-console", "wb");
	assert_non_null(t);
	assert_false(hks_platform_is_terminal(t));
	fclose(t);
	hks_platform_remove(DIR_ "/not-a-console");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_files_and_folders),
	    cmocka_unit_test(test_rename_tempfile_lock),
	    cmocka_unit_test(test_threads),
	    cmocka_unit_test(test_memstream_dl_strings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
