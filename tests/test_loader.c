/*
 * The path loader on synthetic inputs written to a temporary folder: folder
 * walks (order, filters), loose files sniffed by content, BND4 binders and
 * DCX archives built with the library's own writers, unsupported DCX
 * compression reported per unit, skeleton lookup, concurrent loading.
 *
 * Valid Havok files come from tools/make_sample (built beside the CLI, whose
 * path ctest passes in HKSPLINE_CLI): a spline animation and a skeleton.
 */
#define _DEFAULT_SOURCE
#include "hks_test.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp_root[64];
static uint8_t *sample_bytes, *skeleton_bytes;
static size_t sample_size, skeleton_size;

static void write_bytes(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, size, f), size);
	assert_int_equal(fclose(f), 0);
}

static void make_dir(const char *path)
{
	assert_int_equal(mkdir(path, 0755), 0);
}

static char *path_in(const char *rel)
{
	static char buf[8][512];
	static int next;
	char *p = buf[next++ % 8];
	snprintf(p, 512, "%s/%s", tmp_root, rel);
	return p;
}

static int setup(void **state)
{
	(void)state;
	const char *cli = getenv("HKSPLINE_CLI");
	if (!cli || !*cli) {
		fprintf(stderr, "HKSPLINE_CLI is not set (run through ctest)\n");
		return -1;
	}
	snprintf(tmp_root, sizeof(tmp_root), "/tmp/hks_loader_XXXXXX");
	if (!mkdtemp(tmp_root))
		return -1;
	char tool[1024], cmd[4096];
	snprintf(tool, sizeof(tool), "%s", cli);
	char *slash = strrchr(tool, '/');
	if (!slash)
		return -1;
	snprintf(slash + 1, sizeof(tool) - (size_t)(slash + 1 - tool), "make_sample");
	snprintf(cmd, sizeof(cmd), "'%s' '%s/sample.bin' && '%s' --skeleton '%s/skeleton.bin'", tool, tmp_root, tool,
	         tmp_root);
	if (system(cmd) != 0)
		return -1;
	sample_bytes = hks_test_read_file(path_in("sample.bin"), &sample_size);
	skeleton_bytes = hks_test_read_file(path_in("skeleton.bin"), &skeleton_size);
	return sample_bytes && skeleton_bytes ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[4096];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp_root);
	if (system(cmd) != 0)
		return -1;
	free(sample_bytes);
	free(skeleton_bytes);
	return 0;
}

static hks_loader *new_loader(void)
{
	hks_loader *L = NULL;
	hks_error err;
	assert_int_equal(hks_loader_create(NULL, &L, &err), HKS_OK);
	assert_non_null(L);
	return L;
}

static void test_arguments(void **state)
{
	(void)state;
	hks_error err;
	assert_int_equal(hks_loader_create(NULL, NULL, &err), HKS_E_ARGUMENT);
	hks_loader *L = new_loader();
	assert_int_equal(hks_loader_add_path(L, NULL, &err), HKS_E_ARGUMENT);
	assert_int_equal(hks_loader_add_path(L, path_in("does-not-exist.hkx"), &err), HKS_E_IO);
	assert_int_equal(err.code, HKS_E_IO);
	assert_true(strlen(err.message) > 0);
	assert_int_equal(hks_loader_count(L), 0);
	assert_null(hks_loader_path(L, 0));
	hks_loaded *ld = (hks_loaded *)1;
	assert_int_equal(hks_loader_load(L, 0, &ld), HKS_E_ARGUMENT);
	assert_null(ld);
	hks_loader_free(L);
}

/* Folder walk: sorted, recursive, .hkx in any case plus .compendium, other
 * names and dot files skipped; content decides whether a unit parses. */
static void test_folder_walk(void **state)
{
	(void)state;
	make_dir(path_in("walk"));
	make_dir(path_in("walk/sub"));
	write_bytes(path_in("walk/b.HKX"), sample_bytes, sample_size);
	write_bytes(path_in("walk/a.hkx"), "not havok at all", 16);
	write_bytes(path_in("walk/notes.txt"), sample_bytes, sample_size);
	write_bytes(path_in("walk/.hidden.hkx"), sample_bytes, sample_size);
	write_bytes(path_in("walk/sub/c.hkx"), sample_bytes, sample_size);
	write_bytes(path_in("walk/x.compendium"), "TCM0", 4);
	write_bytes(path_in("walk/y.bin"), sample_bytes, sample_size);

	hks_loader *L = new_loader();
	hks_error err;
	assert_int_equal(hks_loader_add_path(L, path_in("walk"), &err), HKS_OK);
	/* a loose file named explicitly is taken whatever its name */
	assert_int_equal(hks_loader_add_path(L, path_in("walk/y.bin"), &err), HKS_OK);
	assert_int_equal(hks_loader_count(L), 5);
	assert_string_equal(hks_loader_path(L, 0), path_in("walk/a.hkx"));
	assert_string_equal(hks_loader_path(L, 1), path_in("walk/b.HKX"));
	assert_string_equal(hks_loader_path(L, 2), path_in("walk/sub/c.hkx"));
	assert_string_equal(hks_loader_path(L, 3), path_in("walk/x.compendium"));
	assert_string_equal(hks_loader_path(L, 4), path_in("walk/y.bin"));

	hks_loaded *ld = NULL;
	assert_int_equal(hks_loader_load(L, 0, &ld), HKS_OK);
	assert_non_null(ld);
	assert_int_not_equal(ld->status, HKS_OK);
	assert_null(ld->file);
	assert_int_equal(ld->error.code, ld->status);
	assert_int_equal(ld->container, HKS_CONTAINER_UNKNOWN);
	assert_null(ld->member);
	hks_loaded_free(ld);

	for (size_t i = 1; i <= 4; i += 1) {
		if (i == 3)
			continue;
		assert_int_equal(hks_loader_load(L, i, &ld), HKS_OK);
		assert_int_equal(ld->status, HKS_OK);
		assert_non_null(ld->file);
		assert_int_equal(ld->container, HKS_CONTAINER_PACKFILE);
		assert_string_equal(ld->sdk, "hk_2010.2.0-r1");
		assert_int_equal(ld->size, sample_size);
		assert_memory_equal(ld->bytes, sample_bytes, sample_size);
		assert_int_equal(ld->file->num_animations, 1);
		assert_int_equal(ld->file->animations[0].kind, HKS_ANIMATION_SPLINE);
		assert_string_equal(ld->path, hks_loader_path(L, i));
		assert_string_equal(ld->container_path, hks_loader_path(L, i));
		hks_loaded_free(ld);
	}
	/* a truncated compendium: a parse failure of its own */
	assert_int_equal(hks_loader_load(L, 3, &ld), HKS_OK);
	assert_int_not_equal(ld->status, HKS_OK);
	assert_true(strstr(ld->error.file, "x.compendium") != NULL);
	hks_loaded_free(ld);
	hks_loader_free(L);
}

static void build_binder(const char *path, bool dcx)
{
	hks_bnd4 *bnd = NULL;
	hks_error err;
	assert_int_equal(hks_bnd4_create(NULL, NULL, &bnd, &err), HKS_OK);
	assert_int_equal(hks_bnd4_add(bnd, "N:\\chr\\c9999\\hkx\\Skeleton.HKX", 1000000, 0x02, skeleton_bytes,
	                              skeleton_size, &err),
	                 HKS_OK);
	assert_int_equal(hks_bnd4_add(bnd, "N:\\chr\\c9999\\c9999.tae", 3000000, 0x02, "TAE junk", 8, &err), HKS_OK);
	assert_int_equal(hks_bnd4_add(bnd, "N:\\chr\\c9999\\hkx\\a000_000001.hkx", 1000000001, 0x02, sample_bytes,
	                              sample_size, &err),
	                 HKS_OK);
	assert_int_equal(hks_bnd4_add(bnd, "N:\\chr\\c9999\\hkx\\a000_000002.hkx", 1000000002, 0x02, "junk", 4, &err),
	                 HKS_OK);
	uint8_t *out = NULL;
	size_t out_size = 0;
	assert_int_equal(hks_bnd4_write(bnd, NULL, &out, &out_size, &err), HKS_OK);
	hks_bnd4_free(bnd);
	if (dcx) {
		uint8_t *z = NULL;
		size_t z_size = 0;
		assert_int_equal(hks_dcx_compress(out, out_size, NULL, NULL, &z, &z_size, &err), HKS_OK);
		write_bytes(path, z, z_size);
		hks_buffer_free(NULL, z, z_size);
	} else {
		write_bytes(path, out, out_size);
	}
	hks_buffer_free(NULL, out, out_size);
}

/* Binder members that are Havok files are units ("binder:basename"); the
 * .tae is skipped, a junk .hkx member is a unit that fails to parse. */
static void test_binders(void **state)
{
	(void)state;
	make_dir(path_in("bnd"));
	build_binder(path_in("bnd/c9999.anibnd"), false);
	build_binder(path_in("bnd/c9999.anibnd.dcx"), true);
	hks_loader *L = new_loader();
	hks_error err;
	assert_int_equal(hks_loader_add_path(L, path_in("bnd"), &err), HKS_OK);
	/* "c9999.anibnd" sorts before "c9999.anibnd.dcx" */
	assert_int_equal(hks_loader_count(L), 6);
	for (int b = 0; b < 2; b++) {
		const char *binder = path_in(b == 0 ? "bnd/c9999.anibnd" : "bnd/c9999.anibnd.dcx");
		char expect[600];
		snprintf(expect, sizeof(expect), "%s:Skeleton.HKX", binder);
		assert_string_equal(hks_loader_path(L, (size_t)b * 3), expect);
		snprintf(expect, sizeof(expect), "%s:a000_000001.hkx", binder);
		assert_string_equal(hks_loader_path(L, (size_t)b * 3 + 1), expect);
		snprintf(expect, sizeof(expect), "%s:a000_000002.hkx", binder);
		assert_string_equal(hks_loader_path(L, (size_t)b * 3 + 2), expect);

		hks_loaded *ld = NULL;
		assert_int_equal(hks_loader_load(L, (size_t)b * 3 + 1, &ld), HKS_OK);
		assert_int_equal(ld->status, HKS_OK);
		assert_string_equal(ld->container_path, binder);
		assert_string_equal(ld->member, "N:\\chr\\c9999\\hkx\\a000_000001.hkx");
		assert_int_equal(ld->size, sample_size);
		assert_memory_equal(ld->bytes, sample_bytes, sample_size);
		hks_loaded_free(ld);

		assert_int_equal(hks_loader_load(L, (size_t)b * 3 + 2, &ld), HKS_OK);
		assert_int_not_equal(ld->status, HKS_OK);
		hks_loaded_free(ld);

		/* the skeleton of a member: the binder's Skeleton.HKX */
		assert_int_equal(hks_loader_find_skeleton(L, (size_t)b * 3 + 1, &ld), HKS_OK);
		assert_non_null(ld);
		assert_int_equal(ld->file->num_skeletons, 1);
		assert_int_equal(ld->file->skeletons[0].num_bones, 2);
		snprintf(expect, sizeof(expect), "%s:Skeleton.HKX", binder);
		assert_string_equal(ld->path, expect);
		hks_loaded_free(ld);
	}
	hks_loader_free(L);
}

/* A DCX compressed with Oodle Kraken: the unit reports HKS_E_UNSUPPORTED
 * naming KRAK when loaded; adding the folder still succeeds. */
static void test_unsupported_dcx(void **state)
{
	(void)state;
	make_dir(path_in("krak"));
	uint8_t *z = NULL;
	size_t z_size = 0;
	hks_error err;
	assert_int_equal(hks_dcx_compress(sample_bytes, sample_size, NULL, NULL, &z, &z_size, &err), HKS_OK);
	assert_true(z_size > 0x30);
	assert_memory_equal(z + 0x28, "DFLT", 4); /* CONTAINERS.md §7.1 */
	memcpy(z + 0x28, "KRAK", 4);
	write_bytes(path_in("krak/c0000.anibnd.dcx"), z, z_size);
	hks_buffer_free(NULL, z, z_size);
	write_bytes(path_in("krak/a.hkx"), sample_bytes, sample_size);

	hks_loader *L = new_loader();
	assert_int_equal(hks_loader_add_path(L, path_in("krak"), &err), HKS_OK);
	assert_int_equal(hks_loader_count(L), 2);
	assert_string_equal(hks_loader_path(L, 1), path_in("krak/c0000.anibnd.dcx"));
	hks_loaded *ld = NULL;
	assert_int_equal(hks_loader_load(L, 1, &ld), HKS_OK);
	assert_int_equal(ld->status, HKS_E_UNSUPPORTED);
	assert_true(strstr(ld->error.message, "KRAK") != NULL || strstr(ld->error.message, "Kraken") != NULL);
	hks_loaded_free(ld);
	assert_int_equal(hks_loader_load(L, 0, &ld), HKS_OK);
	assert_int_equal(ld->status, HKS_OK);
	hks_loaded_free(ld);
	hks_loader_free(L);
}

/* Skeleton in the same folder: Skeleton.HKX / skeleton.hkx in any case; a
 * file of that name without an hkaSkeleton does not count. */
static void test_folder_skeleton(void **state)
{
	(void)state;
	make_dir(path_in("chr1"));
	make_dir(path_in("chr2"));
	make_dir(path_in("chr3"));
	write_bytes(path_in("chr1/a000_000100.hkx"), sample_bytes, sample_size);
	write_bytes(path_in("chr1/SKELETON.hkx"), skeleton_bytes, skeleton_size);
	write_bytes(path_in("chr2/a000_000100.hkx"), sample_bytes, sample_size);
	write_bytes(path_in("chr2/skeleton.hkx"), sample_bytes, sample_size); /* no hkaSkeleton inside */
	write_bytes(path_in("chr3/a000_000100.hkx"), sample_bytes, sample_size);

	hks_loader *L = new_loader();
	hks_error err;
	assert_int_equal(hks_loader_add_path(L, path_in("chr1/a000_000100.hkx"), &err), HKS_OK);
	assert_int_equal(hks_loader_add_path(L, path_in("chr2/a000_000100.hkx"), &err), HKS_OK);
	assert_int_equal(hks_loader_add_path(L, path_in("chr3/a000_000100.hkx"), &err), HKS_OK);
	hks_loaded *ld = NULL;
	assert_int_equal(hks_loader_find_skeleton(L, 0, &ld), HKS_OK);
	assert_string_equal(ld->path, path_in("chr1/SKELETON.hkx"));
	assert_int_equal(ld->file->num_skeletons, 1);
	assert_string_equal(ld->file->skeletons[0].bone_names[1], "Child");
	hks_loaded_free(ld);
	assert_int_equal(hks_loader_find_skeleton(L, 1, &ld), HKS_E_NOT_FOUND);
	assert_null(ld);
	assert_int_equal(hks_loader_find_skeleton(L, 2, &ld), HKS_E_NOT_FOUND);
	assert_int_equal(hks_loader_find_skeleton(L, 3, &ld), HKS_E_ARGUMENT);
	hks_loader_free(L);
}

/* Symlink loops: a folder already open higher up the walk is skipped
 * (two self links would otherwise branch exponentially). */
static void test_symlink_loop(void **state)
{
	(void)state;
	make_dir(path_in("loop"));
	make_dir(path_in("loop/sub"));
	write_bytes(path_in("loop/a.hkx"), sample_bytes, sample_size);
	write_bytes(path_in("loop/sub/b.hkx"), sample_bytes, sample_size);
	assert_int_equal(symlink(".", path_in("loop/self1")), 0);
	assert_int_equal(symlink(".", path_in("loop/self2")), 0);
	assert_int_equal(symlink("..", path_in("loop/sub/parent")), 0);
	hks_loader *L = new_loader();
	hks_error err;
	assert_int_equal(hks_loader_add_path(L, path_in("loop"), &err), HKS_OK);
	assert_int_equal(hks_loader_count(L), 2);
	assert_string_equal(hks_loader_path(L, 0), path_in("loop/a.hkx"));
	assert_string_equal(hks_loader_path(L, 1), path_in("loop/sub/b.hkx"));
	hks_loader_free(L);
}

typedef struct thread_arg {
	hks_loader *loader;
	size_t start, step;
	int ok;
	int bad_bytes;
} thread_arg;

static void *load_some(void *p)
{
	thread_arg *a = (thread_arg *)p;
	size_t n = hks_loader_count(a->loader);
	for (int round = 0; round < 3; round++)
		for (size_t i = a->start; i < n; i += a->step) {
			hks_loaded *ld = NULL;
			if (hks_loader_load(a->loader, i, &ld) != HKS_OK || !ld)
				continue;
			if (ld->status == HKS_OK) {
				a->ok++;
				bool skeleton = ld->file->num_skeletons > 0;
				const uint8_t *want = skeleton ? skeleton_bytes : sample_bytes;
				size_t want_size = skeleton ? skeleton_size : sample_size;
				if (ld->size != want_size || memcmp(ld->bytes, want, want_size))
					a->bad_bytes++;
			}
			hks_loaded_free(ld);
		}
	return NULL;
}

/* Several threads load units of two binders and a folder at once. */
static void test_concurrent_loads(void **state)
{
	(void)state;
	make_dir(path_in("many"));
	for (int i = 0; i < 12; i++) {
		char name[64];
		snprintf(name, sizeof(name), "many/a%03d.hkx", i);
		write_bytes(path_in(name), sample_bytes, sample_size);
	}
	build_binder(path_in("many/b1.anibnd.dcx"), true);
	build_binder(path_in("many/b2.anibnd.dcx"), true);
	hks_loader *L = new_loader();
	hks_error err;
	assert_int_equal(hks_loader_add_path(L, path_in("many"), &err), HKS_OK);
	assert_int_equal(hks_loader_count(L), 12 + 6);
	enum { THREADS = 4 };
	pthread_t tid[THREADS];
	thread_arg args[THREADS];
	for (int t = 0; t < THREADS; t++) {
		args[t].loader = L;
		args[t].start = 0;
		args[t].step = 1; /* every thread loads every unit */
		args[t].ok = args[t].bad_bytes = 0;
		assert_int_equal(pthread_create(&tid[t], NULL, load_some, &args[t]), 0);
	}
	int ok = 0;
	for (int t = 0; t < THREADS; t++) {
		pthread_join(tid[t], NULL);
		ok += args[t].ok;
		assert_int_equal(args[t].bad_bytes, 0);
	}
	/* 3 rounds x 4 threads x (12 loose samples + 2 binders x (sample + skeleton)) */
	assert_int_equal(ok, 3 * THREADS * (12 + 4));
	hks_loader_free(L);
}

typedef struct stream_arg {
	hks_loader *loader;
	size_t loaded, ok, bad_bytes;
	char paths[32][600];
} stream_arg;

/* A consumer while paths are being added: takes units in order as they appear. */
static void *load_streaming(void *p)
{
	stream_arg *a = (stream_arg *)p;
	for (size_t i = 0;; i++) {
		if (i >= hks_loader_wait_count(a->loader, i))
			break;
		hks_loaded *ld = NULL;
		if (hks_loader_load(a->loader, i, &ld) != HKS_OK || !ld)
			continue;
		if (i < 32)
			snprintf(a->paths[i], sizeof(a->paths[i]), "%s", ld->path);
		a->loaded++;
		if (ld->status == HKS_OK) {
			a->ok++;
			bool skeleton = ld->file->num_skeletons > 0;
			if (ld->size != (skeleton ? skeleton_size : sample_size) ||
			    memcmp(ld->bytes, skeleton ? skeleton_bytes : sample_bytes, ld->size))
				a->bad_bytes++;
		}
		hks_loaded_free(ld);
	}
	return NULL;
}

/* Loads overlapping the adding (hks_loader_begin_adding): every unit is seen,
 * in the order and with the bytes of a loader filled first. */
static void test_streaming(void **state)
{
	(void)state;
	make_dir(path_in("stream"));
	make_dir(path_in("stream/z"));
	for (int i = 0; i < 8; i++) {
		char name[64];
		snprintf(name, sizeof(name), i < 4 ? "stream/a%03d.hkx" : "stream/z/c%03d.hkx", i);
		write_bytes(path_in(name), sample_bytes, sample_size);
	}
	build_binder(path_in("stream/b.anibnd.dcx"), true);
	const char *paths[2];
	char p0[600], p1[600];
	snprintf(p0, sizeof(p0), "%s", path_in("stream"));
	snprintf(p1, sizeof(p1), "%s", path_in("stream/z/c004.hkx"));
	paths[0] = p0;
	paths[1] = p1;

	hks_loader *ref = new_loader();
	hks_error err;
	for (int i = 0; i < 2; i++)
		assert_int_equal(hks_loader_add_path(ref, paths[i], &err), HKS_OK);
	size_t n = hks_loader_count(ref);
	assert_int_equal(n, 8 + 3 + 1);

	hks_loader *L = new_loader();
	assert_int_equal(hks_loader_begin_adding(L, paths, 2), HKS_OK);
	stream_arg arg;
	memset(&arg, 0, sizeof(arg));
	arg.loader = L;
	pthread_t tid;
	assert_int_equal(pthread_create(&tid, NULL, load_streaming, &arg), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(hks_loader_add_path(L, paths[i], &err), HKS_OK);
	hks_loader_end_adding(L);
	pthread_join(tid, NULL);
	assert_int_equal(arg.loaded, n);
	assert_int_equal(arg.bad_bytes, 0);
	/* the loose samples, the binder's sample and skeleton (its junk member fails) */
	assert_int_equal(arg.ok, 8 + 1 + 2);
	/* the binder met in the walk is opened after it (its members come last); the
	 * walk order puts every unit back in the place a loader filled first gives it */
	assert_int_equal(hks_loader_count(L), n);
	size_t order[32], ref_order[32];
	assert_int_equal(hks_loader_walk_order(L, order, n - 1), HKS_E_ARGUMENT);
	assert_int_equal(hks_loader_walk_order(L, order, n), HKS_OK);
	assert_int_equal(hks_loader_walk_order(ref, ref_order, n), HKS_OK);
	bool moved = false;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(ref_order[i], i);
		assert_string_equal(arg.paths[order[i]], hks_loader_path(ref, i));
		assert_string_equal(hks_loader_path(L, order[i]), hks_loader_path(ref, i));
		moved |= order[i] != i;
	}
	assert_true(moved); /* the binder sits between loose files in the walk */
	/* after the end, wait_count answers at once */
	assert_int_equal(hks_loader_wait_count(L, n), n);
	hks_loader_free(L);
	hks_loader_free(ref);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_streaming),
	    cmocka_unit_test(test_arguments),
	    cmocka_unit_test(test_folder_walk),
	    cmocka_unit_test(test_binders),
	    cmocka_unit_test(test_unsupported_dcx),
	    cmocka_unit_test(test_folder_skeleton),
	    cmocka_unit_test(test_concurrent_loads),
	    cmocka_unit_test(test_symlink_loop),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
