/*
 * The platform layer: every operating-system call of the library and the CLI
 * goes through here, so that the rest of the code is plain C11 and builds the
 * same on Linux (POSIX) and on Windows (mingw-w64, Win32 calls).
 *
 * Paths are UTF-8 strings everywhere; on Windows they are converted to UTF-16
 * and passed to the wide-character Win32 calls, so non-ASCII names work. Both
 * '/' and '\\' separate folders on Windows. Files are always opened in binary
 * mode. Functions returning int return 0 on success and -1 on failure, with
 * errno set (Win32 errors are mapped to the nearest errno value).
 */
#ifndef HKS_PLATFORM_H
#define HKS_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef _WIN32
#define HKS_PLATFORM_WINDOWS 1
#else
#define HKS_PLATFORM_WINDOWS 0
#endif

/* ---- paths and files ---- */

typedef enum hks_path_kind {
	HKS_PATH_NONE = 0, /* does not exist (or cannot be examined) */
	HKS_PATH_FILE,     /* a regular file */
	HKS_PATH_DIR,      /* a folder */
	HKS_PATH_OTHER     /* a device, socket, ... */
} hks_path_kind;

typedef struct hks_path_info {
	hks_path_kind kind;
	uint64_t size;   /* bytes, for a regular file */
	uint64_t dev;    /* identity of the object: equal (dev, ino) = the same */
	uint64_t ino;    /* object (used to detect folder loops) */
	int64_t mtime;   /* seconds since 1970 */
} hks_path_info;

/* Follows symbolic links. -1 (errno set) when the path cannot be examined. */
int hks_platform_stat(const char *path, hks_path_info *out);
/* HKS_PATH_NONE when it cannot be examined. */
hks_path_kind hks_platform_path_kind(const char *path);
/* fopen with a UTF-8 path; "b" is added to the mode when missing. */
FILE *hks_platform_fopen(const char *path, const char *mode);
/* A file created anew for writing (binary): fails when anything, a dangling link included, is at `path`
 * (POSIX O_EXCL, Windows _O_EXCL), so it never writes through a link or over a file someone else made. */
FILE *hks_platform_fopen_new(const char *path);
/* Create one folder (mode 0777 before umask on POSIX). EEXIST when it exists. */
int hks_platform_mkdir(const char *path);
/* Delete a file. */
int hks_platform_remove(const char *path);
/* Rename `from` to `to`, replacing `to` if it exists (atomically on POSIX;
 * MoveFileExW with MOVEFILE_REPLACE_EXISTING on Windows). Both paths should be
 * on the same volume (a temporary file beside the target). */
int hks_platform_rename_replace(const char *from, const char *to);
/* Create a new, unique, empty file in the folder of `target` (named after it,
 * ".NAME.tmp-XXXXXX"), opened "wb+". *tmp_path (malloc'd, free with free())
 * receives its path. NULL (errno set) on failure. */
FILE *hks_platform_tempfile_beside(const char *target, char **tmp_path);
/* Flush the stream's data and the OS buffers to the disk (fflush + fsync /
 * FlushFileBuffers). */
int hks_platform_sync_file(FILE *f);
/* The current folder (UTF-8) into buf; NULL when it does not fit. */
char *hks_platform_getcwd(char *buf, size_t size);
/* True for a path separator of the platform ('/'; and '\\' on Windows). */
bool hks_platform_is_separator(char c);
/* The last separator of `path`, or NULL. */
const char *hks_platform_last_separator(const char *path);
/* The separator to join a name to DIR with: '/' on POSIX; on Windows the one DIR already uses
 * last (so that a printed path does not mix the two), '\\' when it has none. */
char hks_platform_separator_for(const char *dir);

/* ---- file locks (advisory, whole file) ---- */

/* Lock the open file: exclusive (writers) or shared (readers). wait=false
 * fails at once with EWOULDBLOCK when another process holds a conflicting lock.
 * flock on POSIX, LockFileEx on Windows. Released by hks_platform_unlock_file
 * or by closing the file. */
int hks_platform_lock_file(FILE *f, bool exclusive, bool wait);
int hks_platform_unlock_file(FILE *f);

/* ---- folders ---- */

typedef struct hks_dir hks_dir;
/* NULL (errno set) on failure. */
hks_dir *hks_platform_opendir(const char *path);
/* The next entry's name (UTF-8; "." and ".." are skipped), NULL at the end.
 * Valid until the next call. */
const char *hks_platform_readdir(hks_dir *d);
void hks_platform_closedir(hks_dir *d);

/* ---- threads ---- */

typedef void *(*hks_thread_fn)(void *arg);
#if HKS_PLATFORM_WINDOWS
/* Win32: a thread HANDLE; SRWLOCK and CONDITION_VARIABLE are one pointer each. */
typedef struct hks_thread {
	void *handle;
	hks_thread_fn fn;
	void *arg;
} hks_thread;
typedef struct hks_mutex {
	void *srw;
} hks_mutex;
typedef struct hks_cond {
	void *cv;
} hks_cond;
/* an INIT_ONCE (one pointer) */
typedef struct hks_once {
	void *init_once;
} hks_once;
#define HKS_ONCE_INIT {NULL}
#else
#include <pthread.h>
typedef struct hks_thread {
	pthread_t thread;
} hks_thread;
typedef struct hks_mutex {
	pthread_mutex_t m;
} hks_mutex;
typedef struct hks_cond {
	pthread_cond_t c;
} hks_cond;
typedef struct hks_once {
	pthread_once_t o;
} hks_once;
#define HKS_ONCE_INIT {PTHREAD_ONCE_INIT}
#endif

/* The thread structure must stay in place until hks_thread_join. */
int hks_thread_create(hks_thread *t, hks_thread_fn fn, void *arg);
int hks_thread_join(hks_thread *t);
int hks_mutex_init(hks_mutex *m);
void hks_mutex_destroy(hks_mutex *m);
void hks_mutex_lock(hks_mutex *m);
void hks_mutex_unlock(hks_mutex *m);
int hks_cond_init(hks_cond *c);
void hks_cond_destroy(hks_cond *c);
void hks_cond_signal(hks_cond *c);
void hks_cond_broadcast(hks_cond *c);
/* Wait at most `ms` milliseconds (spurious wake-ups possible). */
void hks_cond_wait_ms(hks_cond *c, hks_mutex *m, unsigned ms);
/* Run fn exactly once per `once` (statically HKS_ONCE_INIT) over all threads; every
 * caller returns after it has run. */
void hks_platform_once(hks_once *once, void (*fn)(void));
/* Processors online (at least 1). */
unsigned hks_platform_cpu_count(void);

/* ---- time ---- */

/* Monotonic seconds (an arbitrary origin). */
double hks_platform_monotonic_seconds(void);
/* CPU seconds of the calling thread (0 when unknown). */
double hks_platform_thread_cpu_seconds(void);

/* ---- shared libraries ---- */

/* dlopen / LoadLibraryW. NULL on failure; hks_platform_dlerror describes it. */
void *hks_platform_dlopen(const char *path);
void *hks_platform_dlsym(void *lib, const char *name);
void hks_platform_dlclose(void *lib);
/* The last failure of this thread's dlopen/dlsym, written into buf. */
const char *hks_platform_dlerror(char *buf, size_t size);

/* ---- console ---- */

/* True when the stream is an interactive terminal (a console on Windows). */
bool hks_platform_is_terminal(FILE *f);

/* Program start-up (the CLI's main): on Windows, argv is rebuilt as UTF-8 from
 * the wide command line (the process keeps it until exit) and stdin/stdout/
 * stderr are switched to binary mode, so that output bytes are those of Linux
 * (no CR inserted before LF). Nothing to do on POSIX. */
void hks_platform_init_process(int *argc, char ***argv);

/* ---- small C library gaps (mingw lacks them) ---- */

char *hks_platform_strndup(const char *s, size_t n);

/* A growable in-memory output stream, like POSIX open_memstream: write with
 * the FILE*, then hks_platform_close_memstream stores the malloc'd,
 * NUL-terminated text in *out / *out_size (a temporary file read back on
 * Windows). Close such a stream with hks_platform_close_memstream only. */
FILE *hks_platform_open_memstream(char **out, size_t *out_size);
int hks_platform_close_memstream(FILE *f);

#endif
