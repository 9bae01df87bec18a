/*
 * Output files that a failure cannot destroy (docs/RELIABILITY.md, "Nothing
 * destroyed"): the bytes go to a temporary file in the target's folder, which
 * is flushed to the disk and renamed over the target only when everything was
 * written. On any failure the target is left as it was and the temporary
 * file is removed. Plus an advisory lock for read-modify-write of a file.
 *
 * The operating-system calls go through the platform layer
 * (src/core/platform.h: the temporary file, the sync, the rename that
 * replaces, the lock); what stays here under #ifndef _WIN32 is POSIX
 * behaviour without a Windows counterpart (symbolic links written through,
 * targets that are not regular files, the file mode, the folder fsync, hard
 * links for the backup, the check that a locked file was not replaced).
 */
#ifndef _WIN32
#define _DEFAULT_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "internal.h"
#include "platform.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifdef _WIN32
#include <windows.h>
#endif

#ifndef _WIN32
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#define CHUNK ((size_t)1 << 16)

struct hks_atomic_file {
	hks_allocator alloc;
	FILE *stream;
	char *target;     /* the path renamed over (symlinks resolved) */
	size_t target_cap;
	char *temp;       /* the temporary file */
	size_t temp_cap;
	uint64_t written; /* bytes given to hks_atomic_write */
	int (*write_hook)(void *user, uint64_t offset, size_t size);
	void *write_hook_user;
	uint32_t flags;
	int failed;       /* a write failed: commit refuses */
	int direct;       /* the target is not a regular file (/dev/null, a FIFO, a terminal): written in place */
	int slot;         /* its entry in temp_slots, -1 when none */
};

/* The temporaries in flight, for hks_atomic_remove_temporaries, which a signal handler calls
 * (SIGINT in the middle of a write left the .NAME.tmp-XXXXXX beside the target): fixed slots,
 * no allocation, lock-free atomics only. A slot is CREATING from before its file exists until
 * its path is copied (READY); the handler waits for a CREATING slot (the creating thread
 * blocks signals meanwhile, so it never runs the handler itself) and removes every READY path.
 * The owner frees its slot after the rename or the removal, so a handler running in between
 * removes a path that no longer exists. A slot holds PATH_MAX (4096) bytes: with 1024, a
 * target in a deep folder (a path of 1,024 bytes or more, which the system accepts) was not
 * registered and SIGINT left its temporary. A 33rd temporary at once is not registered (the
 * write is unaffected; the CLI holds at most two). */
enum { SLOT_FREE = 0, SLOT_CREATING = 1, SLOT_READY = 2 };
#define TEMP_SLOTS 32
#define TEMP_PATH_MAX 4096
static struct {
	atomic_int state;
	char path[TEMP_PATH_MAX];
} temp_slots[TEMP_SLOTS];

static int claim_slot(void)
{
	for (int i = 0; i < TEMP_SLOTS; i++) {
		int expected = SLOT_FREE;
		if (atomic_compare_exchange_strong(&temp_slots[i].state, &expected, SLOT_CREATING))
			return i;
	}
	return -1;
}

/* The file exists at `path` (or, with NULL, was not created): READY, or FREE again. */
static int publish_slot(int slot, const char *path)
{
	if (slot < 0)
		return -1;
	size_t n = path ? strlen(path) : TEMP_PATH_MAX;
	if (n >= TEMP_PATH_MAX) {
		atomic_store(&temp_slots[slot].state, SLOT_FREE);
		return -1;
	}
	memcpy(temp_slots[slot].path, path, n + 1);
	atomic_store(&temp_slots[slot].state, SLOT_READY);
	return slot;
}

static void unregister_temp(int slot)
{
	if (slot >= 0 && slot < TEMP_SLOTS)
		atomic_store(&temp_slots[slot].state, SLOT_FREE);
}

void hks_atomic_remove_temporaries(void)
{
	for (int i = 0; i < TEMP_SLOTS; i++) {
		/* another thread is creating this one: its path comes within the open() call (at most
		 * about a second of waiting, then it is given up) */
		for (int wait = 0; wait < 10000 && atomic_load(&temp_slots[i].state) == SLOT_CREATING; wait++) {
#ifdef _WIN32
			Sleep(0);
#else
			struct timespec ts = {0, 100000};
			nanosleep(&ts, NULL); /* async-signal-safe */
#endif
		}
		if (atomic_load(&temp_slots[i].state) == SLOT_READY) {
#ifdef _WIN32
			/* the console handler runs on a thread of its own; the file was opened with
			 * FILE_SHARE_DELETE, so it goes when the process's handles close */
			hks_platform_remove(temp_slots[i].path);
#else
			unlink(temp_slots[i].path); /* async-signal-safe */
#endif
		}
	}
}

static void ctx_for(hks_ctx *ctx, const hks_atomic_options *opts, const char *path, hks_error *err)
{
	hks_ctx_init(ctx, opts ? &opts->base : NULL, 0, err);
	if (!ctx->file)
		ctx->file = path;
}

static char *dup_str(hks_ctx *ctx, const char *s, size_t extra, size_t *cap)
{
	size_t n = strlen(s);
	char *p = (char *)hks_malloc(ctx, n + extra + 1);
	if (p) {
		memcpy(p, s, n + 1);
		*cap = n + extra + 1;
	}
	return p;
}

static void release(hks_atomic_file *f)
{
	unregister_temp(f->slot);
	hks_ctx ctx;
	memset(&ctx, 0, sizeof(ctx));
	ctx.alloc = f->alloc;
	ctx.limits.max_memory = UINT64_MAX;
	if (f->target)
		hks_free(&ctx, f->target, f->target_cap);
	if (f->temp)
		hks_free(&ctx, f->temp, f->temp_cap);
	hks_free(&ctx, f, sizeof(*f));
}

#ifdef _WIN32
/* Whether PATH's last component is one of Windows' reserved device names, which name the device
 * in every folder and with any extension ("NUL", "nul.json", "C:\\x\\COM1.txt"). */
static bool windows_device_name(const char *path)
{
	const char *sep = hks_platform_last_separator(path);
	const char *base = sep ? sep + 1 : (path[0] && path[1] == ':' ? path + 2 : path);
	size_t n = 0;
	while (base[n] && base[n] != '.' && base[n] != ' ' && base[n] != ':')
		n++;
	static const char *const plain[] = {"CON", "PRN", "AUX", "NUL"};
	for (size_t i = 0; i < 4; i++)
		if (n == 3 && !_strnicmp(base, plain[i], 3))
			return true;
	return n == 4 && (!_strnicmp(base, "COM", 3) || !_strnicmp(base, "LPT", 3)) && base[3] >= '1' && base[3] <= '9';
}
#endif

hks_result hks_atomic_open(const char *path, const hks_atomic_options *opts, hks_atomic_file **out, hks_error *err)
{
	hks_ctx ctx;
	ctx_for(&ctx, opts, path, err);
	if (!path || !*path || !out)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "atomic write: no path");
	*out = NULL;
	hks_atomic_file *f = (hks_atomic_file *)hks_calloc(&ctx, 1, sizeof(*f));
	if (!f)
		return hks_fail_nomem(&ctx, sizeof(*f));
	f->alloc = ctx.alloc;
	f->slot = -1;
	if (opts) {
		f->write_hook = opts->write_hook;
		f->write_hook_user = opts->write_hook_user;
		f->flags = opts->flags;
	}
	/* The target: a symlink is written through (the file it names is replaced, the link stays). */
#ifndef _WIN32
	struct stat st;
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		char *real = realpath(path, NULL);
		if (real) {
			f->target = dup_str(&ctx, real, 0, &f->target_cap);
			free(real);
		}
	}
#endif
	if (!f->target)
		f->target = dup_str(&ctx, path, 0, &f->target_cap);
	if (!f->target) {
		release(f);
		return hks_fail_nomem(&ctx, strlen(path));
	}
	/* An existing target that is not a regular file (/dev/null, /dev/stdout, a FIFO) cannot be
	 * replaced by a rename (that would put a regular file in its place): it is written in place. On
	 * Windows that is a device name (NUL, CON, COM1, "NUL.json": any folder, any extension). A folder
	 * is refused (on Windows the rename said "Permission denied"). */
#ifndef _WIN32
	bool exists = stat(f->target, &st) == 0;
	bool is_folder = exists && S_ISDIR(st.st_mode), in_place = exists && !S_ISREG(st.st_mode) && !is_folder;
#else
	bool is_folder = hks_platform_path_kind(f->target) == HKS_PATH_DIR;
	/* (a real file of such a name, which newer Windows allow with an extension, is replaced as any) */
	bool in_place = !is_folder && windows_device_name(f->target) && hks_platform_path_kind(f->target) != HKS_PATH_FILE;
#endif
	if (is_folder) {
		hks_fail(&ctx, HKS_E_IO, -1, "is a folder");
		release(f);
		return HKS_E_IO;
	}
	if (in_place) {
		f->direct = 1;
		f->stream = hks_platform_fopen(f->target, "wb");
		if (!f->stream) {
			int e = errno;
			hks_fail(&ctx, HKS_E_IO, -1, "cannot open: %s", strerror(e));
			release(f);
			return HKS_E_IO;
		}
		*out = f;
		return HKS_OK;
	}
	/* The temporary file: ".NAME.tmp-XXXXXX" beside the target (a dot file: folder walks skip it).
	 * Its slot is claimed first and this thread's signals wait until the path is in it: a
	 * SIGINT between the creation and the registration left it behind (test_sigint_mid_write
	 * in tests/test_hostile_attack.c caught it). */
#ifndef _WIN32
	sigset_t all, old_mask;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old_mask);
#endif
	int slot = claim_slot();
	char *tmp = NULL;
	FILE *s = hks_platform_tempfile_beside(f->target, &tmp);
	int e = errno;
	if (s) {
		f->stream = s;
		f->temp = dup_str(&ctx, tmp, 0, &f->temp_cap);
		if (!f->temp) {
			fclose(s);
			f->stream = NULL;
			hks_platform_remove(tmp);
		}
		free(tmp);
	}
	f->slot = publish_slot(slot, f->temp);
#ifndef _WIN32
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
#endif
	if (!s) {
		release(f);
		return hks_fail(&ctx, HKS_E_IO, -1, "cannot create a temporary file in the folder of %s: %s", path,
		                strerror(e));
	}
	if (!f->temp) {
		release(f);
		return hks_fail_nomem(&ctx, strlen(path) + 16);
	}
#ifndef _WIN32
	/* The mode of the file it replaces, else what a plain create would give (0666 less the umask). */
	mode_t mode;
	if (stat(f->target, &st) == 0)
		mode = st.st_mode & 07777;
	else {
		mode_t mask = umask(0);
		umask(mask);
		mode = 0666 & ~mask;
	}
	(void)fchmod(fileno(f->stream), mode);
#endif
	*out = f;
	return HKS_OK;
}

FILE *hks_atomic_stream(hks_atomic_file *f) { return f ? f->stream : NULL; }

hks_result hks_atomic_write(hks_atomic_file *f, const void *bytes, size_t size, hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, NULL, 0, err);
	if (!f)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "atomic write: no file");
	ctx.file = f->target;
	if (f->failed)
		return hks_fail(&ctx, HKS_E_IO, (int64_t)f->written, "an earlier write failed");
	const uint8_t *p = (const uint8_t *)bytes;
	while (size > 0) {
		size_t n = size < CHUNK ? size : CHUNK;
		int e = f->write_hook ? f->write_hook(f->write_hook_user, f->written, n) : 0;
		if (e == 0 && fwrite(p, 1, n, f->stream) != n)
			e = errno ? errno : EIO;
		if (e != 0) {
			f->failed = 1;
			return hks_fail(&ctx, HKS_E_IO, (int64_t)f->written, "write failed: %s (the target is unchanged)",
			                strerror(e));
		}
		f->written += n;
		p += n;
		size -= n;
	}
	return HKS_OK;
}

void hks_atomic_abort(hks_atomic_file *f)
{
	if (!f)
		return;
	if (f->stream)
		fclose(f->stream);
	if (!f->direct && f->temp)
		hks_platform_remove(f->temp);
	release(f);
}

/* Keep the current target as TARGET.bak (a hard link where possible, else a copy) unless a TARGET.bak
 * exists: the first backup is the one kept. */
static hks_result keep_backup(hks_ctx *ctx, const char *target)
{
	size_t n = strlen(target);
	char *bak = (char *)hks_malloc(ctx, n + 5);
	if (!bak)
		return hks_fail_nomem(ctx, n + 5);
	memcpy(bak, target, n);
	memcpy(bak + n, ".bak", 5);
	hks_result r = HKS_OK;
	bool bak_exists = hks_platform_path_kind(bak) != HKS_PATH_NONE;
#ifndef _WIN32
	/* a dangling symlink named TARGET.bak is something there too: never write through it */
	struct stat lst;
	bak_exists = bak_exists || lstat(bak, &lst) == 0;
#endif
	if (hks_platform_path_kind(target) == HKS_PATH_NONE || bak_exists) {
		/* nothing to keep, or a backup kept already: the first one stays, so TARGET.bak is the file
		 * as it was before the first replacement, however many follow (as the Blender add-on keeps
		 * its BINDER.bak; replacing it each time lost the pristine binder on the second --into) */
		hks_free(ctx, bak, n + 5);
		return HKS_OK;
	}
#ifndef _WIN32
	if (link(target, bak) == 0 || errno == EEXIST) {
		/* EEXIST: something appeared at TARGET.bak since the check; it stays as it is */
		hks_free(ctx, bak, n + 5);
		return HKS_OK;
	}
#endif
	/* no hard links here: copy, into a file created anew (O_EXCL: never through a link that
	 * appeared at TARGET.bak, never over a file someone else made there) */
	FILE *in = hks_platform_fopen(target, "rb");
	FILE *out = in ? hks_platform_fopen_new(bak) : NULL;
	bool created = out != NULL;
	bool ok = in && out;
	char buf[8192];
	size_t k;
	while (ok && (k = fread(buf, 1, sizeof(buf), in)) > 0)
		ok = fwrite(buf, 1, k, out) == k;
	ok = ok && !ferror(in);
	if (out)
		ok = (fclose(out) == 0) && ok;
	if (in)
		fclose(in);
	if (!ok) {
		if (created)
			hks_platform_remove(bak);
		r = hks_fail(ctx, HKS_E_IO, -1, "cannot keep the backup %s", bak);
	}
	hks_free(ctx, bak, n + 5);
	return r;
}

hks_result hks_atomic_commit(hks_atomic_file *f, hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, NULL, 0, err);
	if (!f)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "atomic write: no file");
	ctx.alloc = f->alloc;
	ctx.file = f->target;
	hks_result r = HKS_OK;
	if (f->failed)
		r = hks_fail(&ctx, HKS_E_IO, (int64_t)f->written, "an earlier write failed (the target is unchanged)");
	else if (fflush(f->stream) != 0 || ferror(f->stream))
		r = hks_fail(&ctx, HKS_E_IO, -1, "write failed: %s (the target is unchanged)", strerror(errno));
	else if (!f->direct && hks_platform_sync_file(f->stream) != 0 && errno != EINVAL && errno != EROFS)
		/* EINVAL / EROFS: a file that cannot be synced (a read-only mount's device). A device or
		 * pipe written in place is not synced (Windows' NUL fails FlushFileBuffers) */
		r = hks_fail(&ctx, HKS_E_IO, -1, "sync failed: %s (the target is unchanged)", strerror(errno));
	if (f->direct) {
		/* not a regular file: written in place, nothing to rename */
		int closed = fclose(f->stream);
		f->stream = NULL;
		if (r == HKS_OK && closed != 0)
			r = hks_fail(&ctx, HKS_E_IO, -1, "write failed on close: %s", strerror(errno));
		release(f);
		return r;
	}
	int closed = fclose(f->stream);
	f->stream = NULL;
	if (r == HKS_OK && closed != 0)
		r = hks_fail(&ctx, HKS_E_IO, -1, "write failed on close: %s (the target is unchanged)", strerror(errno));
	if (r == HKS_OK && (f->flags & HKS_ATOMIC_BACKUP))
		r = keep_backup(&ctx, f->target);
	if (r == HKS_OK) {
		if (hks_platform_rename_replace(f->temp, f->target) != 0)
			r = hks_fail(&ctx, HKS_E_IO, -1, "cannot replace the file: %s (the target is unchanged)",
			             strerror(errno));
#ifndef _WIN32
		else {
			/* make the rename itself durable: fsync the folder */
			const char *base = f->target;
			for (const char *p = f->target; *p; p++)
				if (*p == '/')
					base = p + 1;
			size_t dl = (size_t)(base - f->target);
			char dir[4096];
			if (dl == 0)
				snprintf(dir, sizeof(dir), ".");
			else
				snprintf(dir, sizeof(dir), "%.*s", (int)(dl < sizeof(dir) - 1 ? dl : sizeof(dir) - 1),
				         f->target);
			int dfd = open(dir, O_RDONLY);
			if (dfd >= 0) {
				(void)fsync(dfd);
				close(dfd);
			}
		}
#endif
	}
	if (r != HKS_OK)
		hks_platform_remove(f->temp);
	release(f);
	return r;
}

hks_result hks_write_file_atomic(const char *path, const void *bytes, size_t size, const hks_atomic_options *opts,
                                 hks_error *err)
{
	hks_atomic_file *f = NULL;
	HKS_TRY(hks_atomic_open(path, opts, &f, err));
	hks_result r = hks_atomic_write(f, bytes, size, err);
	if (r != HKS_OK) {
		hks_atomic_abort(f);
		return r;
	}
	return hks_atomic_commit(f, err);
}

/* ---- lock ---- */

struct hks_file_lock {
	hks_allocator alloc;
	FILE *f; /* the locked file (Windows: its sibling PATH.lock) */
};

hks_result hks_lock_file(const char *path, const hks_options *opts, hks_file_lock **out, hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, opts, 0, err);
	if (!ctx.file)
		ctx.file = path;
	if (!path || !out)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "lock: no path");
	*out = NULL;
	hks_file_lock *l = (hks_file_lock *)hks_calloc(&ctx, 1, sizeof(*l));
	if (!l)
		return hks_fail_nomem(&ctx, sizeof(*l));
	l->alloc = ctx.alloc;
	/* Windows: a handle open on the file itself keeps MoveFileExW from replacing it (the
	 * commit of the read-modify-write), so the lock is taken on a sibling "PATH.lock",
	 * created when missing and left in place (every process locks the same sibling).
	 * POSIX: the file itself; when another process replaced it (rename) while we waited,
	 * the lock is on the old file: lock the new one instead. */
	size_t plen = strlen(path);
	char *lock_path = (char *)hks_malloc(&ctx, plen + 6);
	if (!lock_path) {
		hks_free(&ctx, l, sizeof(*l));
		return hks_fail_nomem(&ctx, plen + 6);
	}
	memcpy(lock_path, path, plen + 1);
	if (HKS_PLATFORM_WINDOWS)
		memcpy(lock_path + plen, ".lock", 6);
	for (int attempt = 0;; attempt++) {
		/* "e": close-on-exec (glibc), so that a child process does not hold the lock */
		FILE *f = hks_platform_fopen(lock_path, HKS_PLATFORM_WINDOWS ? "ab" : "rbe");
		int e = errno;
		if (!f) {
			hks_free(&ctx, lock_path, plen + 6);
			hks_free(&ctx, l, sizeof(*l));
			return hks_fail(&ctx, e == ENOENT ? HKS_E_NOT_FOUND : HKS_E_IO, -1, "cannot open to lock: %s",
			                strerror(e));
		}
		if (hks_platform_lock_file(f, true, true) != 0) {
			e = errno;
			fclose(f);
			hks_free(&ctx, lock_path, plen + 6);
			hks_free(&ctx, l, sizeof(*l));
			return hks_fail(&ctx, HKS_E_IO, -1, "cannot lock: %s", strerror(e));
		}
		int same = 1;
#ifndef _WIN32
		struct stat a, b;
		same = fstat(fileno(f), &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
#endif
		if (same) {
			l->f = f;
			break;
		}
		fclose(f);
		if (attempt > 1000) {
			hks_free(&ctx, lock_path, plen + 6);
			hks_free(&ctx, l, sizeof(*l));
			return hks_fail(&ctx, HKS_E_IO, -1, "cannot lock: the file keeps being replaced");
		}
	}
	hks_free(&ctx, lock_path, plen + 6);
	*out = l;
	return HKS_OK;
}

void hks_unlock_file(hks_file_lock *l)
{
	if (!l)
		return;
	hks_platform_unlock_file(l->f);
	fclose(l->f);
	hks_ctx ctx;
	memset(&ctx, 0, sizeof(ctx));
	ctx.alloc = l->alloc;
	hks_free(&ctx, l, sizeof(*l));
}
