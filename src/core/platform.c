/* The platform layer (platform.h): POSIX and Win32 implementations. */
#if !defined(_WIN32)
#define _DEFAULT_SOURCE /* flock, fsync */
#define _POSIX_C_SOURCE 200809L
#endif
#include "platform.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

char *hks_platform_strndup(const char *s, size_t n)
{
	size_t len = 0;
	while (len < n && s[len])
		len++;
	char *p = (char *)malloc(len + 1);
	if (p) {
		memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

bool hks_platform_is_separator(char c)
{
	return c == '/' || (HKS_PLATFORM_WINDOWS && c == '\\');
}

const char *hks_platform_last_separator(const char *path)
{
	const char *last = NULL;
	for (const char *p = path; *p; p++)
		if (hks_platform_is_separator(*p))
			last = p;
	return last;
}

char hks_platform_separator_for(const char *dir)
{
	const char *last = HKS_PLATFORM_WINDOWS && dir ? hks_platform_last_separator(dir) : NULL;
	return HKS_PLATFORM_WINDOWS ? (last ? *last : '\\') : '/';
}

hks_path_kind hks_platform_path_kind(const char *path)
{
	hks_path_info info;
	return path && hks_platform_stat(path, &info) == 0 ? info.kind : HKS_PATH_NONE;
}

/* "b" added to an fopen mode that lacks it (Windows translates line ends otherwise). */
static void binary_mode(const char *mode, char out[8])
{
	size_t n = 0;
	bool has_b = false;
	for (; mode[n] && n < 6; n++) {
		out[n] = mode[n];
		if (mode[n] == 'b')
			has_b = true;
	}
	if (!has_b)
		out[n++] = 'b';
	out[n] = '\0';
}

/* The name part of `target` and its folder (with the separator), for temporaries. */
static size_t folder_length(const char *target)
{
	const char *sep = hks_platform_last_separator(target);
	return sep ? (size_t)(sep - target) + 1 : 0;
}

#if HKS_PLATFORM_WINDOWS
/* ======================================================================= */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <shellapi.h>
#include <fcntl.h>
#include <io.h>
#include <process.h>
#include <sys/stat.h>
#include <wchar.h>

/* UTF-8 -> UTF-16, malloc'd; NULL (errno EINVAL/ENOMEM) on failure. */
static wchar_t *widen(const char *s)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
	if (n <= 0) {
		errno = EINVAL;
		return NULL;
	}
	wchar_t *w = (wchar_t *)malloc((size_t)n * sizeof(wchar_t));
	if (!w) {
		errno = ENOMEM;
		return NULL;
	}
	MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n);
	return w;
}

/* UTF-16 -> UTF-8 into buf; false when it does not fit. */
static bool narrow(const wchar_t *w, char *buf, size_t size)
{
	int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, buf, (int)(size > INT32_MAX ? INT32_MAX : size), NULL, NULL);
	return n > 0;
}

static void set_errno_from_win32(DWORD e)
{
	switch (e) {
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
	case ERROR_INVALID_NAME:
		errno = ENOENT;
		break;
	case ERROR_ACCESS_DENIED:
	case ERROR_SHARING_VIOLATION:
		errno = EACCES;
		break;
	case ERROR_ALREADY_EXISTS:
	case ERROR_FILE_EXISTS:
		errno = EEXIST;
		break;
	case ERROR_LOCK_VIOLATION:
	case ERROR_IO_PENDING:
		errno = EWOULDBLOCK;
		break;
	case ERROR_NOT_ENOUGH_MEMORY:
	case ERROR_OUTOFMEMORY:
		errno = ENOMEM;
		break;
	case ERROR_DISK_FULL:
	case ERROR_HANDLE_DISK_FULL:
		errno = ENOSPC;
		break;
	default:
		errno = EIO;
		break;
	}
}

int hks_platform_stat(const char *path, hks_path_info *out)
{
	memset(out, 0, sizeof(*out));
	wchar_t *w = widen(path);
	if (!w)
		return -1;
	/* Follow links: open the object itself (FILE_FLAG_BACKUP_SEMANTICS opens folders). */
	HANDLE h = CreateFileW(w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
	                       FILE_FLAG_BACKUP_SEMANTICS, NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE) {
		set_errno_from_win32(GetLastError());
		return -1;
	}
	BY_HANDLE_FILE_INFORMATION bi;
	BOOL ok = GetFileInformationByHandle(h, &bi);
	DWORD type = GetFileType(h);
	CloseHandle(h);
	if (!ok) {
		set_errno_from_win32(GetLastError());
		return -1;
	}
	if (bi.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)
		out->kind = HKS_PATH_DIR;
	else if (type == FILE_TYPE_DISK)
		out->kind = HKS_PATH_FILE;
	else
		out->kind = HKS_PATH_OTHER;
	out->size = ((uint64_t)bi.nFileSizeHigh << 32) | bi.nFileSizeLow;
	out->dev = bi.dwVolumeSerialNumber;
	out->ino = ((uint64_t)bi.nFileIndexHigh << 32) | bi.nFileIndexLow;
	uint64_t t = ((uint64_t)bi.ftLastWriteTime.dwHighDateTime << 32) | bi.ftLastWriteTime.dwLowDateTime;
	out->mtime = (int64_t)(t / 10000000u) - INT64_C(11644473600);
	return 0;
}

FILE *hks_platform_fopen(const char *path, const char *mode)
{
	char m[8];
	binary_mode(mode, m);
	wchar_t *w = widen(path);
	wchar_t wm[8];
	size_t i = 0;
	for (; m[i]; i++)
		wm[i] = (wchar_t)m[i];
	wm[i] = 0;
	if (!w)
		return NULL;
	FILE *f = _wfopen(w, wm);
	free(w);
	return f;
}

FILE *hks_platform_fopen_new(const char *path)
{
	wchar_t *w = widen(path);
	if (!w)
		return NULL;
	int fd = _wopen(w, _O_WRONLY | _O_CREAT | _O_EXCL | _O_BINARY | _O_NOINHERIT, _S_IREAD | _S_IWRITE);
	free(w);
	if (fd < 0)
		return NULL;
	FILE *f = _fdopen(fd, "wb");
	if (!f)
		_close(fd);
	return f;
}

char *hks_platform_getcwd(char *buf, size_t size)
{
	wchar_t w[4096];
	DWORD n = GetCurrentDirectoryW(4096, w);
	if (n == 0 || n >= 4096 || !narrow(w, buf, size))
		return NULL;
	return buf;
}

int hks_platform_mkdir(const char *path)
{
	wchar_t *w = widen(path);
	if (!w)
		return -1;
	BOOL ok = CreateDirectoryW(w, NULL);
	free(w);
	if (!ok) {
		set_errno_from_win32(GetLastError());
		return -1;
	}
	return 0;
}

int hks_platform_remove(const char *path)
{
	wchar_t *w = widen(path);
	if (!w)
		return -1;
	BOOL ok = DeleteFileW(w);
	free(w);
	if (!ok) {
		set_errno_from_win32(GetLastError());
		return -1;
	}
	return 0;
}

int hks_platform_rename_replace(const char *from, const char *to)
{
	wchar_t *a = widen(from), *b = widen(to);
	BOOL ok = a && b && MoveFileExW(a, b, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH);
	DWORD e = GetLastError();
	int saved = errno;
	free(a);
	free(b);
	if (!ok) {
		if (a && b)
			set_errno_from_win32(e);
		else
			errno = saved;
		return -1;
	}
	return 0;
}

int hks_platform_sync_file(FILE *f)
{
	if (fflush(f) != 0)
		return -1;
	HANDLE h = (HANDLE)_get_osfhandle(_fileno(f));
	if (h == INVALID_HANDLE_VALUE || !FlushFileBuffers(h)) {
		errno = EIO;
		return -1;
	}
	return 0;
}

int hks_platform_lock_file(FILE *f, bool exclusive, bool wait)
{
	HANDLE h = (HANDLE)_get_osfhandle(_fileno(f));
	if (h == INVALID_HANDLE_VALUE) {
		errno = EBADF;
		return -1;
	}
	OVERLAPPED ov;
	memset(&ov, 0, sizeof(ov));
	DWORD flags = (exclusive ? LOCKFILE_EXCLUSIVE_LOCK : 0) | (wait ? 0 : LOCKFILE_FAIL_IMMEDIATELY);
	if (!LockFileEx(h, flags, 0, MAXDWORD, MAXDWORD, &ov)) {
		set_errno_from_win32(GetLastError());
		return -1;
	}
	return 0;
}

int hks_platform_unlock_file(FILE *f)
{
	HANDLE h = (HANDLE)_get_osfhandle(_fileno(f));
	OVERLAPPED ov;
	memset(&ov, 0, sizeof(ov));
	if (h == INVALID_HANDLE_VALUE || !UnlockFileEx(h, 0, MAXDWORD, MAXDWORD, &ov)) {
		errno = EBADF;
		return -1;
	}
	return 0;
}

FILE *hks_platform_tempfile_beside(const char *target, char **tmp_path)
{
	*tmp_path = NULL;
	size_t dir = folder_length(target), len = strlen(target);
	char *p = (char *)malloc(len + 32);
	if (!p) {
		errno = ENOMEM;
		return NULL;
	}
	static volatile LONG counter;
	for (int attempt = 0; attempt < 100; attempt++) {
		unsigned long n = (unsigned long)GetCurrentProcessId() * 7919u + (unsigned long)InterlockedIncrement(&counter) +
		                  (unsigned long)GetTickCount();
		snprintf(p, len + 32, "%.*s.%s.tmp-%06lx", (int)dir, target, target + dir, n & 0xffffffu);
		wchar_t *w = widen(p);
		if (!w)
			break;
		HANDLE h = CreateFileW(w, GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_DELETE, NULL, CREATE_NEW,
		                       FILE_ATTRIBUTE_NORMAL, NULL);
		free(w);
		if (h == INVALID_HANDLE_VALUE) {
			if (GetLastError() == ERROR_FILE_EXISTS)
				continue;
			set_errno_from_win32(GetLastError());
			break;
		}
		int fd = _open_osfhandle((intptr_t)h, _O_RDWR | _O_BINARY);
		FILE *f = fd >= 0 ? _fdopen(fd, "w+b") : NULL;
		if (!f) {
			if (fd >= 0)
				_close(fd);
			else
				CloseHandle(h);
			hks_platform_remove(p);
			break;
		}
		*tmp_path = p;
		return f;
	}
	free(p);
	return NULL;
}

struct hks_dir {
	HANDLE h;
	WIN32_FIND_DATAW data;
	bool first, done;
	char name[MAX_PATH * 4];
};

hks_dir *hks_platform_opendir(const char *path)
{
	size_t n = strlen(path);
	char *pattern = (char *)malloc(n + 3);
	if (!pattern) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(pattern, path, n);
	if (n && !hks_platform_is_separator(path[n - 1]))
		pattern[n++] = '\\';
	pattern[n++] = '*';
	pattern[n] = '\0';
	wchar_t *w = widen(pattern);
	free(pattern);
	if (!w)
		return NULL;
	hks_dir *d = (hks_dir *)calloc(1, sizeof(hks_dir));
	if (!d) {
		free(w);
		errno = ENOMEM;
		return NULL;
	}
	d->h = FindFirstFileW(w, &d->data);
	free(w);
	if (d->h == INVALID_HANDLE_VALUE) {
		DWORD e = GetLastError();
		free(d);
		set_errno_from_win32(e);
		return NULL;
	}
	d->first = true;
	return d;
}

const char *hks_platform_readdir(hks_dir *d)
{
	while (!d->done) {
		if (!d->first && !FindNextFileW(d->h, &d->data)) {
			d->done = true;
			break;
		}
		d->first = false;
		const wchar_t *n = d->data.cFileName;
		if (n[0] == L'.' && (n[1] == 0 || (n[1] == L'.' && n[2] == 0)))
			continue;
		if (narrow(n, d->name, sizeof(d->name)))
			return d->name;
	}
	return NULL;
}

void hks_platform_closedir(hks_dir *d)
{
	if (!d)
		return;
	FindClose(d->h);
	free(d);
}

static unsigned __stdcall thread_start(void *arg)
{
	hks_thread *t = (hks_thread *)arg;
	t->fn(t->arg);
	return 0;
}

int hks_thread_create(hks_thread *t, hks_thread_fn fn, void *arg)
{
	t->fn = fn;
	t->arg = arg;
	uintptr_t h = _beginthreadex(NULL, 0, thread_start, t, 0, NULL);
	if (!h)
		return -1;
	t->handle = (void *)h;
	return 0;
}

int hks_thread_join(hks_thread *t)
{
	if (WaitForSingleObject((HANDLE)t->handle, INFINITE) != WAIT_OBJECT_0)
		return -1;
	CloseHandle((HANDLE)t->handle);
	t->handle = NULL;
	return 0;
}

typedef struct once_call {
	void (*fn)(void);
} once_call;

static BOOL CALLBACK once_trampoline(PINIT_ONCE once, PVOID param, PVOID *context)
{
	(void)once;
	(void)context;
	((const once_call *)param)->fn();
	return TRUE;
}

void hks_platform_once(hks_once *once, void (*fn)(void))
{
	once_call call = {fn};
	InitOnceExecuteOnce((PINIT_ONCE)&once->init_once, once_trampoline, &call, NULL);
}

int hks_mutex_init(hks_mutex *m)
{
	InitializeSRWLock((PSRWLOCK)&m->srw);
	return 0;
}

void hks_mutex_destroy(hks_mutex *m)
{
	(void)m;
}

void hks_mutex_lock(hks_mutex *m)
{
	AcquireSRWLockExclusive((PSRWLOCK)&m->srw);
}

void hks_mutex_unlock(hks_mutex *m)
{
	ReleaseSRWLockExclusive((PSRWLOCK)&m->srw);
}

int hks_cond_init(hks_cond *c)
{
	InitializeConditionVariable((PCONDITION_VARIABLE)&c->cv);
	return 0;
}

void hks_cond_destroy(hks_cond *c)
{
	(void)c;
}

void hks_cond_signal(hks_cond *c)
{
	WakeConditionVariable((PCONDITION_VARIABLE)&c->cv);
}

void hks_cond_broadcast(hks_cond *c)
{
	WakeAllConditionVariable((PCONDITION_VARIABLE)&c->cv);
}

void hks_cond_wait_ms(hks_cond *c, hks_mutex *m, unsigned ms)
{
	SleepConditionVariableSRW((PCONDITION_VARIABLE)&c->cv, (PSRWLOCK)&m->srw, ms, 0);
}

unsigned hks_platform_cpu_count(void)
{
	SYSTEM_INFO si;
	GetSystemInfo(&si);
	return si.dwNumberOfProcessors ? (unsigned)si.dwNumberOfProcessors : 1u;
}

double hks_platform_monotonic_seconds(void)
{
	LARGE_INTEGER f, c;
	QueryPerformanceFrequency(&f);
	QueryPerformanceCounter(&c);
	return (double)c.QuadPart / (double)f.QuadPart;
}

double hks_platform_thread_cpu_seconds(void)
{
	FILETIME a, b, k, u;
	if (!GetThreadTimes(GetCurrentThread(), &a, &b, &k, &u))
		return 0;
	uint64_t t = (((uint64_t)u.dwHighDateTime << 32) | u.dwLowDateTime) +
	             (((uint64_t)k.dwHighDateTime << 32) | k.dwLowDateTime);
	return (double)t * 1e-7;
}

static DWORD g_dl_error; /* last LoadLibrary / GetProcAddress failure */

void *hks_platform_dlopen(const char *path)
{
	wchar_t *w = widen(path);
	if (!w) {
		g_dl_error = ERROR_INVALID_NAME;
		return NULL;
	}
	/* LOAD_WITH_ALTERED_SEARCH_PATH (the library's own folder first, for its
	 * dependencies) wants backslashes */
	for (wchar_t *c = w; *c; c++)
		if (*c == L'/')
			*c = L'\\';
	HMODULE h = LoadLibraryExW(w, NULL, LOAD_WITH_ALTERED_SEARCH_PATH);
	free(w);
	if (!h)
		g_dl_error = GetLastError();
	return (void *)h;
}

void *hks_platform_dlsym(void *lib, const char *name)
{
	FARPROC p = GetProcAddress((HMODULE)lib, name);
	if (!p)
		g_dl_error = GetLastError();
	void *out;
	memcpy(&out, &p, sizeof(out));
	return out;
}

void hks_platform_dlclose(void *lib)
{
	if (lib)
		FreeLibrary((HMODULE)lib);
}

const char *hks_platform_dlerror(char *buf, size_t size)
{
	if (!size)
		return buf;
	wchar_t w[512];
	DWORD n = FormatMessageW(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, g_dl_error, 0, w, 512, NULL);
	while (n > 0 && (w[n - 1] == L'\n' || w[n - 1] == L'\r' || w[n - 1] == L' ' || w[n - 1] == L'.'))
		w[--n] = 0;
	if (!n || !narrow(w, buf, size)) {
		snprintf(buf, size, "Windows error %lu", (unsigned long)g_dl_error);
		return buf;
	}
	/* an insert the message asks for ("%1 is not a valid Win32 application"): the library */
	char *ins = strstr(buf, "%1");
	if (ins) {
		char tail[512];
		snprintf(tail, sizeof(tail), "%s", ins + 2);
		snprintf(ins, size - (size_t)(ins - buf), "the library%s", tail);
	}
	return buf;
}

bool hks_platform_is_terminal(FILE *f)
{
	HANDLE h = (HANDLE)_get_osfhandle(_fileno(f));
	DWORD mode;
	return h != INVALID_HANDLE_VALUE && GetFileType(h) == FILE_TYPE_CHAR && GetConsoleMode(h, &mode);
}

void hks_platform_init_process(int *argc, char ***argv)
{
	_setmode(_fileno(stdin), _O_BINARY);
	_setmode(_fileno(stdout), _O_BINARY);
	_setmode(_fileno(stderr), _O_BINARY);
	int n = 0;
	wchar_t **w = CommandLineToArgvW(GetCommandLineW(), &n);
	if (!w || n <= 0)
		return;
	char **v = (char **)calloc((size_t)n + 1, sizeof(char *));
	for (int i = 0; v && i < n; i++) {
		int len = WideCharToMultiByte(CP_UTF8, 0, w[i], -1, NULL, 0, NULL, NULL);
		v[i] = len > 0 ? (char *)malloc((size_t)len) : NULL;
		if (!v[i] || !WideCharToMultiByte(CP_UTF8, 0, w[i], -1, v[i], len, NULL, NULL)) {
			LocalFree(w);
			return; /* keep the original argv (leaks the partial copy, once) */
		}
	}
	LocalFree(w);
	if (!v)
		return;
	*argc = n;
	*argv = v;
}

/* Memory streams: a delete-on-close temporary file, read back at close. */
typedef struct memstream_entry {
	FILE *f;
	char **out;
	size_t *out_size;
	struct memstream_entry *next;
} memstream_entry;
static memstream_entry *g_memstreams;
static SRWLOCK g_memstreams_lock = SRWLOCK_INIT;

FILE *hks_platform_open_memstream(char **out, size_t *out_size)
{
	wchar_t dir[MAX_PATH + 1], name[MAX_PATH + 1];
	DWORD n = GetTempPathW(MAX_PATH + 1, dir);
	if (n == 0 || n > MAX_PATH || !GetTempFileNameW(dir, L"hks", 0, name))
		return NULL;
	FILE *f = _wfopen(name, L"w+bD");
	if (!f) {
		DeleteFileW(name);
		return NULL;
	}
	memstream_entry *e = (memstream_entry *)malloc(sizeof(*e));
	if (!e) {
		fclose(f);
		return NULL;
	}
	e->f = f;
	e->out = out;
	e->out_size = out_size;
	AcquireSRWLockExclusive(&g_memstreams_lock);
	e->next = g_memstreams;
	g_memstreams = e;
	ReleaseSRWLockExclusive(&g_memstreams_lock);
	return f;
}

int hks_platform_close_memstream(FILE *f)
{
	AcquireSRWLockExclusive(&g_memstreams_lock);
	memstream_entry **pp = &g_memstreams, *e = NULL;
	for (; *pp; pp = &(*pp)->next)
		if ((*pp)->f == f) {
			e = *pp;
			*pp = e->next;
			break;
		}
	ReleaseSRWLockExclusive(&g_memstreams_lock);
	if (!e)
		return fclose(f);
	int rc = -1;
	char *buf = NULL;
	long size = -1;
	if (fflush(f) == 0 && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = (char *)malloc((size_t)size + 1)) != NULL && fread(buf, 1, (size_t)size, f) == (size_t)size) {
		buf[size] = '\0';
		*e->out = buf;
		*e->out_size = (size_t)size;
		buf = NULL;
		rc = 0;
	}
	free(buf);
	if (fclose(f) != 0)
		rc = -1;
	free(e);
	return rc;
}

#else
/* ======================================================================= */
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int hks_platform_stat(const char *path, hks_path_info *out)
{
	memset(out, 0, sizeof(*out));
	struct stat st;
	if (stat(path, &st) != 0)
		return -1;
	out->kind = S_ISREG(st.st_mode) ? HKS_PATH_FILE : S_ISDIR(st.st_mode) ? HKS_PATH_DIR : HKS_PATH_OTHER;
	out->size = st.st_size > 0 ? (uint64_t)st.st_size : 0;
	out->dev = (uint64_t)st.st_dev;
	out->ino = (uint64_t)st.st_ino;
	out->mtime = (int64_t)st.st_mtime;
	return 0;
}

FILE *hks_platform_fopen(const char *path, const char *mode)
{
	char m[8];
	binary_mode(mode, m);
	return fopen(path, m);
}

FILE *hks_platform_fopen_new(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, "wb");
	if (!f)
		close(fd);
	return f;
}

char *hks_platform_getcwd(char *buf, size_t size)
{
	return getcwd(buf, size);
}

int hks_platform_mkdir(const char *path)
{
	return mkdir(path, 0777);
}

int hks_platform_remove(const char *path)
{
	return unlink(path);
}

int hks_platform_rename_replace(const char *from, const char *to)
{
	return rename(from, to);
}

int hks_platform_sync_file(FILE *f)
{
	if (fflush(f) != 0)
		return -1;
	return fsync(fileno(f));
}

int hks_platform_lock_file(FILE *f, bool exclusive, bool wait)
{
	int op = (exclusive ? LOCK_EX : LOCK_SH) | (wait ? 0 : LOCK_NB);
	for (;;) {
		if (flock(fileno(f), op) == 0)
			return 0;
		if (errno != EINTR)
			return -1;
	}
}

int hks_platform_unlock_file(FILE *f)
{
	return flock(fileno(f), LOCK_UN);
}

FILE *hks_platform_tempfile_beside(const char *target, char **tmp_path)
{
	*tmp_path = NULL;
	size_t dir = folder_length(target), len = strlen(target);
	char *p = (char *)malloc(len + 32);
	if (!p) {
		errno = ENOMEM;
		return NULL;
	}
	snprintf(p, len + 32, "%.*s.%s.tmp-XXXXXX", (int)dir, target, target + dir);
	int fd = mkstemp(p);
	if (fd < 0) {
		int e = errno;
		free(p);
		errno = e;
		return NULL;
	}
	FILE *f = fdopen(fd, "w+b");
	if (!f) {
		int e = errno;
		close(fd);
		unlink(p);
		free(p);
		errno = e;
		return NULL;
	}
	*tmp_path = p;
	return f;
}

struct hks_dir {
	DIR *d;
};

hks_dir *hks_platform_opendir(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return NULL;
	hks_dir *h = (hks_dir *)malloc(sizeof(hks_dir));
	if (!h) {
		closedir(d);
		errno = ENOMEM;
		return NULL;
	}
	h->d = d;
	return h;
}

const char *hks_platform_readdir(hks_dir *d)
{
	struct dirent *e;
	while ((e = readdir(d->d)) != NULL) {
		const char *n = e->d_name;
		if (n[0] == '.' && (n[1] == 0 || (n[1] == '.' && n[2] == 0)))
			continue;
		return n;
	}
	return NULL;
}

void hks_platform_closedir(hks_dir *d)
{
	if (!d)
		return;
	closedir(d->d);
	free(d);
}

int hks_thread_create(hks_thread *t, hks_thread_fn fn, void *arg)
{
	return pthread_create(&t->thread, NULL, fn, arg) == 0 ? 0 : -1;
}

int hks_thread_join(hks_thread *t)
{
	return pthread_join(t->thread, NULL) == 0 ? 0 : -1;
}

void hks_platform_once(hks_once *once, void (*fn)(void))
{
	pthread_once(&once->o, fn);
}

int hks_mutex_init(hks_mutex *m)
{
	return pthread_mutex_init(&m->m, NULL) == 0 ? 0 : -1;
}

void hks_mutex_destroy(hks_mutex *m)
{
	pthread_mutex_destroy(&m->m);
}

void hks_mutex_lock(hks_mutex *m)
{
	pthread_mutex_lock(&m->m);
}

void hks_mutex_unlock(hks_mutex *m)
{
	pthread_mutex_unlock(&m->m);
}

int hks_cond_init(hks_cond *c)
{
	return pthread_cond_init(&c->c, NULL) == 0 ? 0 : -1;
}

void hks_cond_destroy(hks_cond *c)
{
	pthread_cond_destroy(&c->c);
}

void hks_cond_signal(hks_cond *c)
{
	pthread_cond_signal(&c->c);
}

void hks_cond_broadcast(hks_cond *c)
{
	pthread_cond_broadcast(&c->c);
}

void hks_cond_wait_ms(hks_cond *c, hks_mutex *m, unsigned ms)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&c->c, &m->m, &until);
}

unsigned hks_platform_cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1u;
}

double hks_platform_monotonic_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double hks_platform_thread_cpu_seconds(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void *hks_platform_dlopen(const char *path)
{
	return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

void *hks_platform_dlsym(void *lib, const char *name)
{
	return dlsym(lib, name);
}

void hks_platform_dlclose(void *lib)
{
	if (lib)
		dlclose(lib);
}

const char *hks_platform_dlerror(char *buf, size_t size)
{
	const char *e = dlerror();
	if (size)
		snprintf(buf, size, "%s", e ? e : "unknown error");
	return buf;
}

bool hks_platform_is_terminal(FILE *f)
{
	return isatty(fileno(f)) == 1;
}

void hks_platform_init_process(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
}

FILE *hks_platform_open_memstream(char **out, size_t *out_size)
{
	return open_memstream(out, out_size);
}

int hks_platform_close_memstream(FILE *f)
{
	return fclose(f);
}
#endif
