/*
 * Nothing destroyed (issue 17, H1, M1): the atomic writer of src/io/atomic.c
 * and the CLI commands that use it. A write failed half-way (the write hook,
 * an allocation failure, a file-size limit on the process, a missing folder)
 * must leave the target byte for byte as it was and no temporary file behind;
 * writing over the input works; --into keeps BINDER.bak; the binder lock
 * serializes concurrent read-modify-writes (two and more processes).
 */
#define _DEFAULT_SOURCE
#include "hks_test.h"
#include "hks_hostile.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void assert_file_is(const char *path, const uint8_t *want, size_t n)
{
	size_t got_size = 0;
	uint8_t *got = hks_test_read_file(path, &got_size);
	assert_non_null(got);
	assert_int_equal(got_size, n);
	assert_memory_equal(got, want, n);
	free(got);
}

/* Files in `dir` whose name contains ".tmp-" (the writer's temporaries). */
static int count_temporaries(const char *dir)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		n += strstr(e->d_name, ".tmp-") != NULL;
	closedir(d);
	return n;
}

static uint8_t *pattern(size_t n, unsigned seed)
{
	uint8_t *p = (uint8_t *)malloc(n ? n : 1);
	assert_non_null(p);
	uint32_t x = seed * 2654435761u + 1;
	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = (uint8_t)(x >> 16);
	}
	return p;
}

static int setup(void **state)
{
	(void)state;
	return hks_hostile_setup("hks_hostile_io");
}

static int teardown(void **state)
{
	(void)state;
	return hks_hostile_teardown();
}

/* ---- the library writer ---- */

typedef struct hook_state {
	uint64_t fail_at; /* fail the chunk that starts at or after this offset */
	int calls;
} hook_state;

static int failing_hook(void *user, uint64_t offset, size_t size)
{
	hook_state *h = (hook_state *)user;
	(void)size;
	h->calls++;
	return offset >= h->fail_at ? ENOSPC : 0;
}

static void test_atomic_write_ok_and_over_input(void **state)
{
	(void)state;
	const char *p = hks_hostile_path("a.bin");
	uint8_t *one = pattern(300000, 1), *two = pattern(123457, 2);
	hks_error err;
	assert_int_equal(hks_write_file_atomic(p, one, 300000, NULL, &err), HKS_OK);
	assert_file_is(p, one, 300000);
	/* over the file just read (its bytes in memory): the new content, nothing else */
	size_t n = 0;
	uint8_t *back = hks_test_read_file(p, &n);
	assert_non_null(back);
	back[0] ^= 0xFF;
	assert_int_equal(hks_write_file_atomic(p, back, n, NULL, &err), HKS_OK);
	assert_file_is(p, back, n);
	assert_int_equal(hks_write_file_atomic(p, two, 123457, NULL, &err), HKS_OK);
	assert_file_is(p, two, 123457);
	/* empty output */
	assert_int_equal(hks_write_file_atomic(hks_hostile_path("empty.bin"), "", 0, NULL, &err), HKS_OK);
	assert_file_is(hks_hostile_path("empty.bin"), (const uint8_t *)"", 0);
	/* the mode of the file replaced is kept */
	assert_int_equal(chmod(p, 0640), 0);
	assert_int_equal(hks_write_file_atomic(p, one, 10, NULL, &err), HKS_OK);
	struct stat st;
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
	assert_int_equal(count_temporaries(hks_hostile_root()), 0);
	/* a target that is not a regular file is written in place, never replaced by a rename */
	assert_int_equal(hks_write_file_atomic("/dev/null", one, 1000, NULL, &err), HKS_OK);
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(hks_write_file_atomic(hks_hostile_root(), one, 10, NULL, &err), HKS_E_IO); /* a folder */
	free(back);
	free(one);
	free(two);
}

static void test_atomic_write_fails_half_way(void **state)
{
	(void)state;
	const char *p = hks_hostile_path("b.bin");
	size_t old_n = 200001, new_n = 500000;
	uint8_t *old = pattern(old_n, 3), *fresh = pattern(new_n, 4);
	hks_hostile_write(p, old, old_n);
	/* fail at every chunk boundary in turn, the first included */
	for (uint64_t at = 0; at < new_n; at += 65536) {
		hook_state h = {at, 0};
		hks_atomic_options ao;
		memset(&ao, 0, sizeof(ao));
		ao.write_hook = failing_hook;
		ao.write_hook_user = &h;
		hks_error err;
		assert_int_equal(hks_write_file_atomic(p, fresh, new_n, &ao, &err), HKS_E_IO);
		assert_true(h.calls >= 1);
		assert_non_null(strstr(err.message, "target is unchanged"));
		assert_int_equal(err.offset, (int64_t)at);
		assert_file_is(p, old, old_n);
		assert_int_equal(count_temporaries(hks_hostile_root()), 0);
	}
	/* streaming: an abort leaves the target */
	hks_atomic_file *f = NULL;
	hks_error err;
	assert_int_equal(hks_atomic_open(p, NULL, &f, &err), HKS_OK);
	assert_int_equal(hks_atomic_write(f, fresh, 70000, &err), HKS_OK);
	fputs("more", hks_atomic_stream(f));
	hks_atomic_abort(f);
	assert_file_is(p, old, old_n);
	assert_int_equal(count_temporaries(hks_hostile_root()), 0);
	/* no such folder: HKS_E_IO naming the path */
	assert_int_equal(hks_write_file_atomic(hks_hostile_path("no/such/dir/x.bin"), fresh, 10, NULL, &err), HKS_E_IO);
	assert_non_null(strstr(err.file, "no/such/dir/x.bin"));
	free(old);
	free(fresh);
}

/* A counting allocator that fails allocation number `fail_at` (0-based). */
typedef struct count_alloc {
	int n, fail_at;
	long live;
} count_alloc;
static void *ca_alloc(void *u, size_t s)
{
	count_alloc *c = (count_alloc *)u;
	if (c->n++ == c->fail_at)
		return NULL;
	c->live++;
	return malloc(s);
}
static void *ca_realloc(void *u, void *p, size_t o, size_t s)
{
	(void)o;
	count_alloc *c = (count_alloc *)u;
	if (c->n++ == c->fail_at)
		return NULL;
	return realloc(p, s);
}
static void ca_free(void *u, void *p, size_t s)
{
	(void)s;
	((count_alloc *)u)->live--;
	free(p);
}

static void test_atomic_write_allocation_failures(void **state)
{
	(void)state;
	const char *p = hks_hostile_path("c.bin");
	uint8_t *old = pattern(1000, 5), *fresh = pattern(2000, 6);
	hks_hostile_write(p, old, 1000);
	int ok_seen = 0;
	for (int k = 0; k < 16 && !ok_seen; k++) {
		count_alloc c = {0, k, 0};
		hks_atomic_options ao;
		memset(&ao, 0, sizeof(ao));
		ao.base.allocator = (hks_allocator){ca_alloc, ca_realloc, ca_free, &c};
		ao.flags = HKS_ATOMIC_BACKUP;
		hks_error err;
		hks_result r = hks_write_file_atomic(p, fresh, 2000, &ao, &err);
		assert_int_equal(c.live, 0);
		assert_int_equal(count_temporaries(hks_hostile_root()), 0);
		if (r == HKS_OK) {
			ok_seen = 1;
			assert_file_is(p, fresh, 2000);
			char bak[600];
			snprintf(bak, sizeof(bak), "%s.bak", p);
			assert_file_is(bak, old, 1000);
		} else {
			assert_int_equal(r, HKS_E_NOMEM);
			assert_file_is(p, old, 1000);
		}
	}
	assert_true(ok_seen);
	free(old);
	free(fresh);
}

/* A dangling symlink at TARGET.bak (planted by someone else, or a link left after its file was
 * moved) is a backup that exists: the write goes ahead, the link stays, and nothing is created
 * where it points (the backup copy used to follow it). */
static void test_atomic_backup_never_follows_a_link(void **state)
{
	(void)state;
	const char *p = hks_hostile_path("d.bin");
	char bak[600], victim[600];
	snprintf(bak, sizeof(bak), "%s.bak", p);
	snprintf(victim, sizeof(victim), "%s", hks_hostile_path("victim.bin"));
	uint8_t *old = pattern(1000, 7), *fresh = pattern(1500, 8);
	hks_hostile_write(p, old, 1000);
	unlink(bak);
	unlink(victim);
	assert_int_equal(symlink(victim, bak), 0);
	hks_atomic_options ao;
	memset(&ao, 0, sizeof(ao));
	ao.flags = HKS_ATOMIC_BACKUP;
	hks_error err;
	assert_int_equal(hks_write_file_atomic(p, fresh, 1500, &ao, &err), HKS_OK);
	assert_file_is(p, fresh, 1500);
	assert_int_equal(access(victim, F_OK), -1);
	struct stat st;
	assert_int_equal(lstat(bak, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	unlink(bak);
	free(old);
	free(fresh);
}

/* ---- the lock: N processes each append their tag K times by read-modify-write ---- */

static void test_lock_serializes_processes(void **state)
{
	(void)state;
	const char *p = hks_hostile_path("counter.bin");
	hks_hostile_write(p, "", 0);
	enum { PROCS = 4, ROUNDS = 25 };
	pid_t kids[PROCS];
	for (int k = 0; k < PROCS; k++) {
		kids[k] = fork();
		assert_true(kids[k] >= 0);
		if (kids[k] == 0) {
			for (int r = 0; r < ROUNDS; r++) {
				hks_file_lock *l = NULL;
				hks_error err;
				if (hks_lock_file(p, NULL, &l, &err) != HKS_OK)
					_exit(3);
				size_t n = 0;
				uint8_t *b = hks_test_read_file(p, &n);
				if (!b)
					_exit(4);
				uint8_t *nb = (uint8_t *)malloc(n + 1);
				memcpy(nb, b, n);
				nb[n] = (uint8_t)('a' + k);
				usleep(200); /* widen the window a lost update needs */
				if (hks_write_file_atomic(p, nb, n + 1, NULL, &err) != HKS_OK)
					_exit(5);
				hks_unlock_file(l);
				free(b);
				free(nb);
			}
			_exit(0);
		}
	}
	for (int k = 0; k < PROCS; k++) {
		int st = 0;
		assert_int_equal(waitpid(kids[k], &st, 0), kids[k]);
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 0);
	}
	size_t n = 0;
	uint8_t *b = hks_test_read_file(p, &n);
	assert_non_null(b);
	assert_int_equal(n, PROCS * ROUNDS);
	int per[PROCS] = {0};
	for (size_t i = 0; i < n; i++) {
		assert_true(b[i] >= 'a' && b[i] < 'a' + PROCS);
		per[b[i] - 'a']++;
	}
	for (int k = 0; k < PROCS; k++)
		assert_int_equal(per[k], ROUNDS);
	free(b);
	hks_error err;
	hks_file_lock *l = NULL;
	assert_int_equal(hks_lock_file(hks_hostile_path("missing.bin"), NULL, &l, &err), HKS_E_NOT_FOUND);
	assert_null(l);
}

/* ---- the CLI ---- */

static const char *cli_path(void)
{
	const char *c = getenv("HKSPLINE_CLI");
	return c && *c ? c : NULL;
}

static int sh(const char *cmd)
{
	int st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A binder of `n` members of `each` bytes, written to `path`; returns its bytes. */
static uint8_t *make_binder(const char *path, int n, size_t each, size_t *size)
{
	hks_bnd4 *b = NULL;
	hks_error e;
	assert_int_equal(hks_bnd4_create(NULL, NULL, &b, &e), HKS_OK);
	for (int i = 0; i < n; i++) {
		char name[64];
		snprintf(name, sizeof(name), "N:\\chr\\a000_%06d.hkx", i);
		uint8_t *d = pattern(each, 100 + (unsigned)i);
		assert_int_equal(hks_bnd4_add(b, name, 1000000000 + i, 0x02, d, each, &e), HKS_OK);
		free(d);
	}
	uint8_t *bytes = NULL;
	assert_int_equal(hks_bnd4_write(b, NULL, &bytes, size, &e), HKS_OK);
	hks_bnd4_free(b);
	hks_hostile_write(path, bytes, *size);
	uint8_t *copy = (uint8_t *)malloc(*size);
	memcpy(copy, bytes, *size);
	hks_buffer_free(NULL, bytes, *size);
	return copy;
}

/* `bnd replace B M F -o B` over its own input, under a file-size limit smaller than the
 * result (the "2 MiB limit"): the command fails and B is byte-identical. */
static void test_cli_replace_under_file_size_limit(void **state)
{
	(void)state;
	const char *cli = cli_path();
	if (!cli) {
		printf("HKSPLINE_CLI not set: CLI part not run\n");
		return;
	}
	size_t size = 0;
	uint8_t *orig = make_binder(hks_hostile_path("big.anibnd"), 40, 20000, &size); /* ~800 KB */
	uint8_t *member = pattern(600000, 9);
	hks_hostile_write(hks_hostile_path("member.hkx"), member, 600000);
	char cmd[2048];
	/* 1,000 KiB: the original fits, the new binder (~1.4 MB) does not. SIGXFSZ is ignored in the
	 * child so the write fails with EFBIG (as on a full disk) instead of killing it */
	assert_true(size < 1000 * 1024);
	snprintf(cmd, sizeof(cmd),
	         "trap '' XFSZ; ulimit -f 1000; '%s' bnd replace '%s' a000_000003.hkx '%s' -o '%s' >/dev/null 2>&1", cli,
	         hks_hostile_path("big.anibnd"), hks_hostile_path("member.hkx"), hks_hostile_path("big.anibnd"));
	int rc = sh(cmd);
	assert_int_not_equal(rc, 0);
	assert_file_is(hks_hostile_path("big.anibnd"), orig, size);
	assert_int_equal(count_temporaries(hks_hostile_root()), 0);
	/* without the limit it works, over its own input */
	snprintf(cmd, sizeof(cmd), "'%s' bnd replace '%s' a000_000003.hkx '%s' -o '%s' >/dev/null", cli,
	         hks_hostile_path("big.anibnd"), hks_hostile_path("member.hkx"), hks_hostile_path("big.anibnd"));
	assert_int_equal(sh(cmd), 0);
	size_t n = 0;
	uint8_t *now = hks_test_read_file(hks_hostile_path("big.anibnd"), &n);
	hks_bnd4 *b = NULL;
	hks_error e;
	assert_int_equal(hks_bnd4_read(now, n, NULL, &b, &e), HKS_OK);
	assert_int_equal(b->num_entries, 40);
	assert_int_equal(b->entries[3].size, 600000);
	assert_memory_equal(b->entries[3].data, member, 600000);
	hks_bnd4_free(b);
	free(now);
	free(orig);
	free(member);
}

/* encode --into: BINDER.bak holds the binder as it was (unless --no-backup); concurrent
 * --into on one binder all land (the lock); a failed write leaves the binder whole. */
static void test_cli_into_backup_and_lock(void **state)
{
	(void)state;
	const char *cli = cli_path();
	if (!cli) {
		printf("HKSPLINE_CLI not set: CLI part not run\n");
		return;
	}
	char make_sample[1024];
	snprintf(make_sample, sizeof(make_sample), "%s", cli);
	char *slash = strrchr(make_sample, '/');
	assert_non_null(slash);
	snprintf(slash + 1, sizeof(make_sample) - (size_t)(slash + 1 - make_sample), "make_sample");
	char cmd[4096];
	snprintf(cmd, sizeof(cmd), "'%s' '%s' >/dev/null && '%s' decode '%s' -o '%s' >/dev/null", make_sample,
	         hks_hostile_path("s.hkx"), cli, hks_hostile_path("s.hkx"), hks_hostile_path("s.json"));
	assert_int_equal(sh(cmd), 0);
	size_t size = 0;
	uint8_t *orig = make_binder(hks_hostile_path("c.anibnd"), 3, 100, &size);
	/* one --into: a .bak with the old bytes */
	snprintf(cmd, sizeof(cmd), "'%s' encode '%s' -o '%s' --into '%s' --name a000_000100.hkx >/dev/null", cli,
	         hks_hostile_path("s.json"), hks_hostile_path("o.hkx"), hks_hostile_path("c.anibnd"));
	assert_int_equal(sh(cmd), 0);
	assert_file_is(hks_hostile_path("c.anibnd.bak"), orig, size);
	size_t after_size = 0;
	uint8_t *after = hks_test_read_file(hks_hostile_path("c.anibnd"), &after_size);
	assert_non_null(after);
	/* a second --into with backups: the first .bak stays (the pristine binder; it held the state
	 * after the first --into before session 18) */
	snprintf(cmd, sizeof(cmd), "'%s' encode '%s' -o '%s' --into '%s' --name a000_000103.hkx >/dev/null", cli,
	         hks_hostile_path("s.json"), hks_hostile_path("o.hkx"), hks_hostile_path("c.anibnd"));
	assert_int_equal(sh(cmd), 0);
	assert_file_is(hks_hostile_path("c.anibnd.bak"), orig, size);
	/* --no-backup: the .bak stays the older one */
	snprintf(cmd, sizeof(cmd),
	         "'%s' encode '%s' -o '%s' --into '%s' --name a000_000101.hkx --no-backup >/dev/null", cli,
	         hks_hostile_path("s.json"), hks_hostile_path("o.hkx"), hks_hostile_path("c.anibnd"));
	assert_int_equal(sh(cmd), 0);
	assert_file_is(hks_hostile_path("c.anibnd.bak"), orig, size);
	/* a failed write (file-size limit below the new binder): binder unchanged */
	free(after);
	after = hks_test_read_file(hks_hostile_path("c.anibnd"), &after_size);
	snprintf(cmd, sizeof(cmd),
	         "trap '' XFSZ; ulimit -f %zu; '%s' encode '%s' -o '%s' --into '%s' --name a000_000102.hkx --no-backup "
	         ">/dev/null 2>&1",
	         after_size / 1024, cli, hks_hostile_path("s.json"), hks_hostile_path("o2.hkx"), hks_hostile_path("c.anibnd"));
	assert_int_not_equal(sh(cmd), 0);
	assert_file_is(hks_hostile_path("c.anibnd"), after, after_size);
	assert_int_equal(count_temporaries(hks_hostile_root()), 0);
	/* six concurrent --into, one member each: all six land */
	enum { N = 6 };
	snprintf(cmd, sizeof(cmd), "cd '%s' && for k in 0 1 2 3 4 5; do '%s' encode s.json -o p$k.hkx --into c.anibnd "
	                           "--name a000_00020$k.hkx --no-backup >/dev/null 2>&1 & done; wait",
	         hks_hostile_root(), cli);
	assert_int_equal(sh(cmd), 0);
	size_t n = 0;
	uint8_t *now = hks_test_read_file(hks_hostile_path("c.anibnd"), &n);
	hks_bnd4 *b = NULL;
	hks_error e;
	assert_int_equal(hks_bnd4_read(now, n, NULL, &b, &e), HKS_OK);
	int found = 0;
	for (uint32_t i = 0; i < b->num_entries; i++)
		found += strstr(b->entries[i].name, "a000_00020") != NULL;
	assert_int_equal(found, N);
	hks_bnd4_free(b);
	free(now);
	free(after);
	free(orig);
}

/* encode --into a binder whose folder is read-only: refused before anything is written, status 2
 * (-o was written, then the binder's temporary failed; session 19 Windows trial). Root ignores
 * folder modes, so as root the CLI runs as `nobody` through runuser when it can, else skips. */
static void test_cli_into_read_only_folder(void **state)
{
	(void)state;
	const char *cli = cli_path();
	if (!cli) {
		printf("HKSPLINE_CLI not set: CLI part not run\n");
		return;
	}
	char dir[] = "/tmp/hks_ro_XXXXXX", cmd[8192];
	assert_non_null(mkdtemp(dir));
	const char *as = "";
	if (geteuid() == 0) {
		snprintf(cmd, sizeof(cmd), "chmod 755 '%s' && runuser -u nobody -- '%s' --help >/dev/null 2>&1", dir, cli);
		if (sh(cmd) != 0) {
			printf("SKIPPED read-only --into: root, and the CLI cannot run as nobody here\n");
			snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
			(void)sh(cmd);
			return;
		}
		as = "runuser -u nobody -- ";
	}
	char make_sample[1024];
	snprintf(make_sample, sizeof(make_sample), "%s", cli);
	char *slash = strrchr(make_sample, '/');
	assert_non_null(slash);
	snprintf(slash + 1, sizeof(make_sample) - (size_t)(slash + 1 - make_sample), "make_sample");
	snprintf(cmd, sizeof(cmd),
	         "cd '%s' && mkdir ro out && chmod 777 out && '%s' s.hkx >/dev/null && '%s' decode s.hkx -o s.json >/dev/null "
	         "&& chmod 644 s.hkx s.json",
	         dir, make_sample, cli);
	assert_int_equal(sh(cmd), 0);
	char binder[600];
	snprintf(binder, sizeof(binder), "%s/ro/c.anibnd", dir);
	size_t size = 0;
	uint8_t *orig = make_binder(binder, 3, 100, &size);
	snprintf(cmd, sizeof(cmd), "chmod 555 '%s/ro' && chmod 644 '%s' && cd '%s' && %s'%s' encode s.json -o out/o.hkx --into "
	         "ro/c.anibnd --name a000_000100.hkx >/dev/null 2>out/err.txt; s=$?; grep -q 'temporary' out/err.txt && exit $s",
	         dir, binder, dir, as, cli);
	assert_int_equal(sh(cmd), 2);
	snprintf(cmd, sizeof(cmd), "%s/out/o.hkx", dir);
	assert_int_equal(access(cmd, F_OK), -1);
	assert_file_is(binder, orig, size);
	free(orig);
	snprintf(cmd, sizeof(cmd), "chmod 755 '%s/ro' && rm -rf '%s'", dir, dir);
	assert_int_equal(sh(cmd), 0);
}

/* M3: `bnd extract` of hostile member names into the binder's own folder: every file lands inside
 * the folder (listed afterwards), names never collide (Unicode case folding), the binder is not
 * overwritten, and pack(extract(x)) == x. */
static void test_cli_extract_hostile_names(void **state)
{
	(void)state;
	const char *cli = cli_path();
	if (!cli) {
		printf("HKSPLINE_CLI not set: CLI part not run\n");
		return;
	}
	static const char *const names[] = {
		"N:\\x\\dup.hkx",           /* 0 */
		("N:\\x\\a\x01" "b.hkx"),     /* 1 control character: numbered */
		"N:\\y\\DUP.HKX",           /* 2 collides with 0 ignoring case */
		"N:\\x\\\xC3\x89t\xC3\xA9.hkx",  /* 3 "Été.hkx" */
		"N:\\x\\\xC3\xA9T\xC3\x89.HKX",  /* 4 "éTÉ.HKX": the same folded */
		"entry_00001.bin",          /* 5 the name member 1 would fall back to */
		"..",                       /* 6 */
		"N:\\..\\..\\..\\escape.hkx",  /* 7 base name only */
		"/etc/passwd",              /* 8 absolute: base name only */
		"C:evil.hkx",               /* 9 drive letter: numbered */
		"N:\\x\\c.anibnd",          /* 10 the binder's own name */
		"N:\\x\\CON.hkx",           /* 11 a Windows device name */
		"N:\\x\\",                  /* 12 empty base name */
		"N:\\x\\_HKSPLINE_BND.TXT", /* 13 the manifest's name, other case */
		"N:\\x\\trail.hkx.",        /* 14 a trailing dot */
	};
	enum { N = sizeof(names) / sizeof(names[0]) };
	hks_bnd4 *b = NULL;
	hks_error e;
	assert_int_equal(hks_bnd4_create(NULL, NULL, &b, &e), HKS_OK);
	for (int i = 0; i < N; i++) {
		uint8_t *d = pattern(50 + (size_t)i, 200 + (unsigned)i);
		assert_int_equal(hks_bnd4_add(b, names[i], i, 0x02, d, 50 + (size_t)i, &e), HKS_OK);
		free(d);
	}
	uint8_t *bytes = NULL;
	size_t size = 0;
	assert_int_equal(hks_bnd4_write(b, NULL, &bytes, &size, &e), HKS_OK);
	hks_bnd4_free(b);
	char cmd[4096];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/ex'", hks_hostile_root());
	assert_int_equal(sh(cmd), 0);
	hks_hostile_write(hks_hostile_path("ex/c.anibnd"), bytes, size);
	snprintf(cmd, sizeof(cmd), "cd '%s/ex' && '%s' bnd extract c.anibnd -o . >/dev/null", hks_hostile_root(), cli);
	assert_int_equal(sh(cmd), 0);
	assert_file_is(hks_hostile_path("ex/c.anibnd"), bytes, size);
	/* the folder holds the binder, the manifest and one regular file per member, nothing else;
	 * its parent only what was there */
	DIR *d = opendir(hks_hostile_path("ex"));
	assert_non_null(d);
	int files = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char fp[1024];
		snprintf(fp, sizeof(fp), "%s/ex/%s", hks_hostile_root(), de->d_name);
		struct stat st;
		assert_int_equal(lstat(fp, &st), 0);
		assert_true(S_ISREG(st.st_mode));
		files++;
	}
	closedir(d);
	assert_int_equal(files, N + 2);
	assert_int_equal(access(hks_hostile_path("escape.hkx"), F_OK), -1);
	assert_int_equal(access("/etc/passwd.bak", F_OK), -1);
	/* expected names: plain ones kept, collisions numbered, the fallback of 1 not taking 5's name */
	static const char *const want[] = {"dup.hkx", "entry_00001_1.bin", "entry_00002.bin",
	                                   "\xC3\x89t\xC3\xA9.hkx", "entry_00004.bin", "entry_00001.bin",
	                                   "entry_00006.bin", "escape.hkx", "passwd", "entry_00009.bin",
	                                   "entry_00010.bin", "entry_00011.bin", "entry_00012.bin",
	                                   "entry_00013.bin", "entry_00014.bin"};
	for (int i = 0; i < N; i++) {
		char rel[256];
		snprintf(rel, sizeof(rel), "ex/%s", want[i]);
		uint8_t *p = pattern(50 + (size_t)i, 200 + (unsigned)i);
		assert_file_is(hks_hostile_path(rel), p, 50 + (size_t)i);
		free(p);
	}
	/* pack(extract(x)) == x */
	snprintf(cmd, sizeof(cmd), "'%s' bnd pack '%s/ex' -o '%s/re.anibnd' >/dev/null", cli, hks_hostile_root(), hks_hostile_root());
	assert_int_equal(sh(cmd), 0);
	assert_file_is(hks_hostile_path("re.anibnd"), bytes, size);
	hks_buffer_free(NULL, bytes, size);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_atomic_write_ok_and_over_input),
		cmocka_unit_test(test_atomic_write_fails_half_way),
		cmocka_unit_test(test_atomic_write_allocation_failures),
		cmocka_unit_test(test_atomic_backup_never_follows_a_link),
		cmocka_unit_test(test_lock_serializes_processes),
		cmocka_unit_test(test_cli_replace_under_file_size_limit),
		cmocka_unit_test(test_cli_into_backup_and_lock),
		cmocka_unit_test(test_cli_into_read_only_folder),
		cmocka_unit_test(test_cli_extract_hostile_names),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
