/*
 * The corpus binders (CONTAINERS.md §6, §7): both DCX archives decompress,
 * every member equals the extracted file of the same base name in the
 * matching corpus folder, the BND4 re-packs byte for byte, the DCX re-compresses
 * to an archive that decompresses identically (whether the compressed bytes
 * match is printed as a measured figure), and the CLI's extract/pack/replace
 * round-trip.
 */
#define _DEFAULT_SOURCE
#include "hks_test.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* The two binders of corpus/binders/ and the folders holding their members
 * (corpus README.md). */
static const struct {
	const char *binder;
	const char *folder;
	uint32_t expect_entries; /* CONTAINERS.md §6.1 "Observed" */
} binders[] = {
	{"binders/sekiro-c1060.anibnd.dcx", "sekiro/c1060", 140},
	{"binders/eldenring-c3160.anibnd.dcx", "elden_ring/c3160", 69},
};

static const char *corpus;

static char *path_join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *p = (char *)malloc(n);
	snprintf(p, n, "%s/%s", a, b);
	return p;
}

static const char *base_name(const char *s)
{
	const char *b = s;
	for (const char *p = s; *p; p++)
		if (*p == '\\' || *p == '/')
			b = p + 1;
	return b;
}

/* The extracted counterpart of a member: same base name (exact, else ignoring case). */
static uint8_t *read_counterpart(const char *folder, const char *base, size_t *size)
{
	char *p = path_join(folder, base);
	uint8_t *d = hks_test_read_file(p, size);
	free(p);
	if (d)
		return d;
	size_t count = 0;
	char **files = hks_test_list_files(folder, base, &count);
	for (size_t i = 0; i < count && !d; i++)
		if (!strcasecmp(base_name(files[i]), base))
			d = hks_test_read_file(files[i], size);
	hks_test_free_list(files, count);
	return d;
}

static int run(const char *cmd)
{
	int rc = system(cmd);
	return rc;
}

/* The file at `path` holds exactly `want`. */
static void assert_file_bytes(const char *path, const uint8_t *want, size_t size)
{
	size_t n = 0;
	uint8_t *got = hks_test_read_file(path, &n);
	assert_non_null(got);
	assert_int_equal(n, size);
	assert_memory_equal(got, want, size);
	free(got);
}

static void check_cli(const char *binder_path, const uint8_t *bnd_bytes, size_t bnd_size, const hks_bnd4 *bnd,
                      const uint8_t *dcx, size_t dcx_size, int deflate_level)
{
	const char *cli = getenv("HKSPLINE_CLI");
	if (!cli || !*cli) {
		printf("  CLI round trip: skipped (HKSPLINE_CLI not set)\n");
		return;
	}
	char tmpl[] = "/tmp/hks_corpus_binders_XXXXXX";
	char *dir = mkdtemp(tmpl);
	assert_non_null(dir);
	char cmd[4096];
	/* pack(extract(x)) == x for the BND4 bytes */
	snprintf(cmd, sizeof(cmd), "'%s' bnd extract '%s' -o '%s/x' >/dev/null", cli, binder_path, dir);
	assert_int_equal(run(cmd), 0);
	snprintf(cmd, sizeof(cmd), "'%s' bnd pack '%s/x' -o '%s/packed.anibnd' --no-dcx >/dev/null", cli, dir, dir);
	assert_int_equal(run(cmd), 0);
	char out[1024];
	snprintf(out, sizeof(out), "%s/packed.anibnd", dir);
	size_t n = 0;
	uint8_t *packed = hks_test_read_file(out, &n);
	assert_non_null(packed);
	assert_int_equal(n, bnd_size);
	assert_memory_equal(packed, bnd_bytes, bnd_size);
	free(packed);
	/* pack as DCX (the manifest kept the DCX header) */
	snprintf(cmd, sizeof(cmd), "'%s' bnd pack '%s/x' -o '%s/packed.dcx' >/dev/null", cli, dir, dir);
	assert_int_equal(run(cmd), 0);
	snprintf(out, sizeof(out), "%s/packed.dcx", dir);
	uint8_t *pd = hks_test_read_file(out, &n);
	assert_non_null(pd);
	uint8_t *inflated;
	size_t inflated_size;
	hks_error e;
	assert_int_equal(hks_dcx_decompress(pd, n, NULL, &inflated, &inflated_size, NULL, &e), HKS_OK);
	assert_int_equal(inflated_size, bnd_size);
	assert_memory_equal(inflated, bnd_bytes, bnd_size);
	hks_buffer_free(NULL, inflated, inflated_size);
	free(pd);
	if (deflate_level) {
		/* with the deflate level measured above, pack(extract(x)) == x for the DCX too */
		snprintf(cmd, sizeof(cmd), "'%s' bnd pack '%s/x' -o '%s/exact.dcx' --deflate-level %d >/dev/null", cli, dir,
		         dir, deflate_level);
		assert_int_equal(run(cmd), 0);
		snprintf(out, sizeof(out), "%s/exact.dcx", dir);
		assert_file_bytes(out, dcx, dcx_size);
		printf("  CLI: pack --deflate-level %d gives the original .dcx byte for byte\n", deflate_level);
		/* repack finds the level itself (it deflated at the header's level byte before session 18) */
		snprintf(cmd, sizeof(cmd), "'%s' repack '%s' -o '%s/repacked.dcx' >/dev/null", cli, binder_path, dir);
		assert_int_equal(run(cmd), 0);
		snprintf(out, sizeof(out), "%s/repacked.dcx", dir);
		assert_file_bytes(out, dcx, dcx_size);
		printf("  CLI: repack gives the original .dcx byte for byte\n");
	}

	/* replace the last animation by the bytes of the first member, by base name */
	uint32_t last = bnd->num_entries - 1;
	const char *target = base_name(bnd->entries[last].name);
	char src[1024];
	snprintf(src, sizeof(src), "%s/x/%s", dir, base_name(bnd->entries[0].name));
	snprintf(cmd, sizeof(cmd), "'%s' bnd replace '%s' '%s' '%s' -o '%s/replaced.dcx' >/dev/null", cli, binder_path,
	         target, src, dir);
	assert_int_equal(run(cmd), 0);
	snprintf(out, sizeof(out), "%s/replaced.dcx", dir);
	uint8_t *rd = hks_test_read_file(out, &n);
	assert_non_null(rd);
	assert_memory_equal(rd, "DCX\0", 4);
	assert_int_equal(hks_dcx_decompress(rd, n, NULL, &inflated, &inflated_size, NULL, &e), HKS_OK);
	hks_bnd4 *r;
	assert_int_equal(hks_bnd4_read(inflated, inflated_size, NULL, &r, &e), HKS_OK);
	assert_int_equal(r->num_entries, bnd->num_entries);
	assert_int_equal(r->hash_table_conforms, 1);
	for (uint32_t i = 0; i < r->num_entries; i++) {
		const hks_bnd4_entry *want = &bnd->entries[i == last ? 0 : i];
		assert_string_equal(r->entries[i].name, bnd->entries[i].name);
		assert_int_equal(r->entries[i].id, bnd->entries[i].id);
		assert_int_equal(r->entries[i].size, want->size);
		assert_memory_equal(r->entries[i].data, want->data, (size_t)want->size);
	}
	hks_bnd4_free(r);
	hks_buffer_free(NULL, inflated, inflated_size);
	free(rd);
	printf("  CLI: pack(extract) identical BND4, pack to DCX decompresses identical, replace of %s verified\n",
	       target);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(run(cmd), 0);
}

static void test_binders(void **state)
{
	(void)state;
	int dcx_bytes_identical = 0, reproducible = 0;
	for (size_t b = 0; b < sizeof(binders) / sizeof(binders[0]); b++) {
		char *path = path_join(corpus, binders[b].binder);
		char *folder = path_join(corpus, binders[b].folder);
		size_t size = 0;
		uint8_t *dcx = hks_test_read_file(path, &size);
		assert_non_null(dcx);
		hks_options o = {0};
		o.name = path;
		hks_error e;
		hks_dcx_info info;
		uint8_t *raw;
		size_t raw_size;
		hks_result r = hks_dcx_decompress(dcx, size, &o, &raw, &raw_size, &info, &e);
		if (r != HKS_OK) {
			char m[1024];
			hks_error_format(&e, m, sizeof(m));
			fail_msg("%s", m);
		}
		assert_int_equal(raw_size, info.uncompressed_size);
		printf("%s: DCX %s version 0x%08x level %u, %u -> %u bytes\n", binders[b].binder, info.compression,
		       info.version, info.level, info.compressed_size, info.uncompressed_size);

		hks_bnd4 *bnd;
		assert_int_equal(hks_bnd4_read(raw, raw_size, &o, &bnd, &e), HKS_OK);
		assert_int_equal(bnd->num_entries, binders[b].expect_entries);
		assert_int_equal(bnd->hash_table_conforms, 1);
		assert_int_equal(bnd->bucket_count, hks_bnd4_bucket_count(bnd->num_entries));

		/* members against the extracted files */
		uint32_t matched = 0, without = 0, compressed = 0;
		for (uint32_t i = 0; i < bnd->num_entries; i++) {
			const hks_bnd4_entry *m = &bnd->entries[i];
			compressed += (m->flags & HKS_BND4_ENTRY_COMPRESSED) != 0;
			size_t n = 0;
			uint8_t *file = read_counterpart(folder, base_name(m->name), &n);
			if (!file) {
				without++;
				printf("  no extracted counterpart: %s\n", m->name);
				continue;
			}
			if (n != m->size || memcmp(file, m->data, n) != 0)
				fail_msg("%s: member %u (%s) differs from %s/%s", binders[b].binder, i, m->name, binders[b].folder,
				         base_name(m->name));
			matched++;
			free(file);
		}
		printf("  %u members: %u identical to their extracted file, %u without a counterpart, %u DCX-compressed, "
		       "hash table conforms, %u buckets\n",
		       bnd->num_entries, matched, without, compressed, bnd->bucket_count);
		assert_true(matched > 0);

		/* BND4 re-pack */
		uint8_t *packed;
		size_t packed_size;
		assert_int_equal(hks_bnd4_write(bnd, &o, &packed, &packed_size, &e), HKS_OK);
		assert_int_equal(packed_size, raw_size);
		assert_memory_equal(packed, raw, raw_size);
		printf("  BND4 re-pack: identical (%zu bytes)\n", packed_size);

		/* DCX re-compress */
		uint8_t *again;
		size_t again_size;
		assert_int_equal(hks_dcx_compress(packed, packed_size, &info, &o, &again, &again_size, &e), HKS_OK);
		assert_memory_equal(again, dcx, 0x1C); /* header kept up to the sizes */
		assert_memory_equal(again + 0x24, dcx + 0x24, 0x4C - 0x24);
		uint8_t *back;
		size_t back_size;
		assert_int_equal(hks_dcx_decompress(again, again_size, &o, &back, &back_size, NULL, &e), HKS_OK);
		assert_int_equal(back_size, raw_size);
		assert_memory_equal(back, raw, raw_size);
		bool identical = again_size == size && !memcmp(again, dcx, size);
		dcx_bytes_identical += identical;
		printf("  DCX re-compress (zlib level %u): decompresses identical; compressed bytes %s (%zu vs %zu bytes)\n",
		       info.level, identical ? "IDENTICAL" : "differ", again_size, size);
		/* Which deflate effort, if any, makes our writer reproduce the archive
		 * (the zlib header follows the level byte whatever the effort). */
		int level_found = 0;
		for (int level = 1; level <= 9 && !level_found; level++) {
			hks_dcx_info with = info;
			with.deflate_level = (uint8_t)level;
			uint8_t *z;
			size_t z_size;
			assert_int_equal(hks_dcx_compress(packed, packed_size, &with, &o, &z, &z_size, &e), HKS_OK);
			if (z_size == size && !memcmp(z, dcx, size))
				level_found = level;
			hks_buffer_free(&o, z, z_size);
		}
		if (level_found) {
			reproducible++;
			printf("  measured: with deflate level %d (header level byte %u) the archive is reproduced byte for "
			       "byte\n",
			       level_found, info.level);
		} else {
			printf("  measured: no deflate level 1-9 reproduces the archive's compressed bytes\n");
		}

		check_cli(path, raw, raw_size, bnd, dcx, size, level_found);

		hks_buffer_free(&o, back, back_size);
		hks_buffer_free(&o, again, again_size);
		hks_buffer_free(&o, packed, packed_size);
		hks_bnd4_free(bnd);
		hks_buffer_free(&o, raw, raw_size);
		free(dcx);
		free(folder);
		free(path);
	}
	printf("DCX compressed bytes identical after re-compression at the header's level: %d of %zu binders; "
	       "reproducible with some deflate level: %d of %zu\n",
	       dcx_bytes_identical, sizeof(binders) / sizeof(binders[0]), reproducible,
	       sizeof(binders) / sizeof(binders[0]));
}

int main(void)
{
	corpus = hks_test_require_corpus("corpus_binders");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_binders),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
