/*
 * Corpus test (label "corpus"): the path loader over the whole corpus, with
 * the corpus root as the --compendium path (CONTAINERS.md §2.11).
 *
 *  1. Every unit parses, except TCRF tagfiles whose compendium ID no
 *     compendium of the corpus provides (corpus/README.md: three Armored
 *     Core 6 clips); those fail with HKS_E_COMPENDIUM naming the ID their
 *     MANIFEST row gives.
 *  2. The spline animations found per top-level folder equal the MANIFEST's
 *     spline-animation rows, and the corpus README's figures (Sekiro 1,170,
 *     Elden Ring 1,416, Sekiro hk_2010 re-saves 395, Skyrim 395).
 *     Counts per container / SDK are printed.
 *  3. Every Havok member of each binder in corpus/binders/, read through the
 *     loader, has the same bytes as an extracted file of the corpus.
 */
#define _DEFAULT_SOURCE
#include "hks_test.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct manifest_row {
	char *path;      /* relative to the corpus root */
	char *kind;      /* spline-animation, skeleton, compendium, other */
	char *ref;       /* compendium ID referenced ("" when none) */
} manifest_row;

static manifest_row *rows;
static size_t num_rows;
static const char *corpus;

static char *field_dup(const char *s, size_t n)
{
	char *p = (char *)malloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

static void read_manifest(void)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/MANIFEST.tsv", corpus);
	size_t size = 0;
	char *text = (char *)hks_test_read_file(path, &size);
	assert_non_null(text);
	text[size] = '\0';
	size_t cap = 4096;
	rows = (manifest_row *)calloc(cap, sizeof(manifest_row));
	char *line = text;
	bool header = true;
	while (line && *line) {
		char *end = strchr(line, '\n');
		if (end)
			*end = '\0';
		if (!header && *line) {
			const char *col[12] = {0};
			size_t len[12] = {0};
			int c = 0;
			const char *p = line;
			while (c < 12) {
				const char *t = strchr(p, '\t');
				col[c] = p;
				len[c] = t ? (size_t)(t - p) : strlen(p);
				c++;
				if (!t)
					break;
				p = t + 1;
			}
			assert_true(c >= 7);
			if (num_rows == cap) {
				cap *= 2;
				rows = (manifest_row *)realloc(rows, cap * sizeof(manifest_row));
			}
			rows[num_rows].path = field_dup(col[2], len[2]);
			rows[num_rows].kind = field_dup(col[5], len[5]);
			rows[num_rows].ref = field_dup(col[6], len[6]);
			num_rows++;
		}
		header = false;
		line = end ? end + 1 : NULL;
	}
	free(text);
}

static const manifest_row *find_row(const char *rel)
{
	for (size_t i = 0; i < num_rows; i++)
		if (!strcmp(rows[i].path, rel))
			return &rows[i];
	return NULL;
}

/* FNV-1a, to find candidate files with the same bytes quickly. */
static uint64_t fnv(const uint8_t *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 1099511628211ull;
	}
	return h;
}

typedef struct unit_info {
	char *path;
	bool loose;
	bool in_binder_dir;
	hks_result status;
	hks_error error;
	hks_container container;
	char sdk[32];
	uint32_t splines;
	uint32_t interleaved;
	uint64_t hash;
	size_t size;
} unit_info;

typedef struct group_count {
	char key[96];
	uint64_t files, splines, mislabeled;
} group_count;

static size_t bump(group_count *g, size_t *n, const char *key, uint32_t splines)
{
	size_t i = 0;
	while (i < *n && strcmp(g[i].key, key))
		i++;
	if (i == *n) {
		snprintf(g[i].key, sizeof(g[i].key), "%s", key);
		(*n)++;
	}
	g[i].files++;
	g[i].splines += splines;
	return i;
}

static void test_corpus_containers(void **state)
{
	(void)state;
	read_manifest();
	printf("MANIFEST: %zu files\n", num_rows);

	const char *paths[1] = {corpus};
	hks_load_options lo;
	memset(&lo, 0, sizeof(lo));
	lo.compendium_paths = paths;
	lo.num_compendium_paths = 1;
	hks_loader *L = NULL;
	hks_error err;
	assert_int_equal(hks_loader_create(&lo, &L, &err), HKS_OK);
	assert_int_equal(hks_loader_add_path(L, corpus, &err), HKS_OK);
	size_t n = hks_loader_count(L);
	printf("loader: %zu units\n", n);
	unit_info *u = (unit_info *)calloc(n, sizeof(unit_info));
	assert_non_null(u);

	/* every compendium ID the corpus provides */
	uint8_t(*ids)[8] = NULL;
	size_t num_ids = 0;
	size_t root_len = strlen(corpus);
	char binders_dir[1024];
	snprintf(binders_dir, sizeof(binders_dir), "%s/binders/", corpus);

	for (size_t i = 0; i < n; i++) {
		hks_loaded *ld = NULL;
		assert_int_equal(hks_loader_load(L, i, &ld), HKS_OK);
		assert_non_null(ld);
		unit_info *x = &u[i];
		x->loose = ld->member == NULL;
		x->in_binder_dir = !strncmp(ld->container_path, binders_dir, strlen(binders_dir));
		const char *p = ld->path;
		if (!strncmp(p, corpus, root_len) && p[root_len] == '/')
			p += root_len + 1;
		x->path = strdup(p);
		x->status = ld->status;
		x->error = ld->error;
		x->container = ld->container;
		memcpy(x->sdk, ld->sdk, sizeof(x->sdk));
		x->size = ld->size;
		x->hash = ld->bytes ? fnv(ld->bytes, ld->size) : 0;
		if (ld->status == HKS_OK) {
			for (uint32_t a = 0; a < ld->file->num_animations; a++)
				if (ld->file->animations[a].kind == HKS_ANIMATION_SPLINE)
					x->splines++;
				else if (ld->file->animations[a].kind == HKS_ANIMATION_INTERLEAVED)
					x->interleaved++;
			if (ld->file->container == HKS_CONTAINER_COMPENDIUM && ld->member == NULL) {
				ids = realloc(ids, (num_ids + ld->file->num_compendium_ids) * 8);
				for (uint32_t k = 0; k < ld->file->num_compendium_ids; k++)
					memcpy(ids[num_ids++], ld->file->compendium_ids[k], 8);
			}
		}
		hks_loaded_free(ld);
	}
	printf("compendium IDs provided by the corpus's extracted compendiums: %zu\n", num_ids);

	/* 1. parse status against the MANIFEST */
	size_t failures = 0, missing_compendium = 0, loose = 0;
	for (size_t i = 0; i < n; i++) {
		unit_info *x = &u[i];
		const manifest_row *row = x->loose ? find_row(x->path) : NULL;
		if (x->loose) {
			loose++;
			if (!row)
				printf("not in MANIFEST: %s\n", x->path);
			assert_non_null(row);
		}
		bool id_missing = false;
		if (row && row->ref[0]) {
			id_missing = true;
			for (size_t k = 0; k < num_ids; k++) {
				char hex[17];
				hks_format_id(ids[k], hex);
				if (!strcmp(hex, row->ref))
					id_missing = false;
			}
		}
		if (x->status != HKS_OK) {
			failures++;
			char buf[2048];
			hks_error_format(&x->error, buf, sizeof(buf));
			printf("parse failure: %s\n", buf);
		}
		if (id_missing) {
			missing_compendium++;
			assert_int_equal(x->status, HKS_E_COMPENDIUM);
			assert_non_null(strstr(x->error.message, row->ref));
		} else {
			if (x->status != HKS_OK)
				printf("UNEXPECTED failure: %s\n", x->path);
			assert_int_equal(x->status, HKS_OK);
		}
	}
	printf("loose files %zu (MANIFEST %zu); failures %zu, of which missing compendium %zu\n", loose, num_rows,
	       failures, missing_compendium);
	assert_int_equal(loose, num_rows);
	assert_int_equal(missing_compendium, 3); /* corpus/README.md: three Armored Core 6 clips */
	assert_int_equal(failures, missing_compendium);

	/* 2. spline animations per top-level folder (loose files) and per container / SDK */
	group_count *by_folder = (group_count *)calloc(n + 1, sizeof(group_count));
	group_count *by_kind = (group_count *)calloc(n + 1, sizeof(group_count));
	group_count *expected = (group_count *)calloc(num_rows + 1, sizeof(group_count));
	size_t nf = 0, nk = 0, ne = 0;
	for (size_t i = 0; i < n; i++) {
		char key[96];
		snprintf(key, sizeof(key), "%s %s", hks_container_name(u[i].container), u[i].sdk[0] ? u[i].sdk : "-");
		if (u[i].in_binder_dir)
			snprintf(key, sizeof(key), "binders: %s %s", hks_container_name(u[i].container),
			         u[i].sdk[0] ? u[i].sdk : "-");
		bump(by_kind, &nk, key, u[i].splines);
		if (!u[i].loose)
			continue;
		const char *slash = strchr(u[i].path, '/');
		snprintf(key, sizeof(key), "%.*s", slash ? (int)(slash - u[i].path) : (int)strlen(u[i].path), u[i].path);
		size_t g = bump(by_folder, &nf, key, u[i].splines);
		/* The corpus wins over its MANIFEST: a file labelled spline-animation
		 * that holds an hkaInterleavedUncompressedAnimation instead is counted
		 * apart and reported. */
		const manifest_row *row = find_row(u[i].path);
		if (row && !strcmp(row->kind, "spline-animation") && u[i].splines == 0 && u[i].interleaved > 0) {
			by_folder[g].mislabeled++;
			printf("MANIFEST says spline-animation, the file holds %u hkaInterleavedUncompressedAnimation: %s\n",
			       u[i].interleaved, u[i].path);
		}
	}
	for (size_t r = 0; r < num_rows; r++) {
		char key[96];
		const char *slash = strchr(rows[r].path, '/');
		snprintf(key, sizeof(key), "%.*s", slash ? (int)(slash - rows[r].path) : (int)strlen(rows[r].path),
		         rows[r].path);
		bump(expected, &ne, key, !strcmp(rows[r].kind, "spline-animation") ? 1u : 0u);
	}
	printf("\n%-40s %8s %10s\n", "container / SDK", "files", "splines");
	for (size_t k = 0; k < nk; k++)
		printf("%-40s %8llu %10llu\n", by_kind[k].key, (unsigned long long)by_kind[k].files,
		       (unsigned long long)by_kind[k].splines);
	printf("\n%-28s %8s %10s %12s %10s\n", "folder", "files", "splines", "interleaved*", "MANIFEST");
	uint64_t total = 0;
	for (size_t e = 0; e < ne; e++) {
		size_t f = 0;
		while (f < nf && strcmp(by_folder[f].key, expected[e].key))
			f++;
		uint64_t found = f < nf ? by_folder[f].splines : 0, mislabeled = f < nf ? by_folder[f].mislabeled : 0;
		total += found;
		printf("%-28s %8llu %10llu %12llu %10llu\n", expected[e].key,
		       (unsigned long long)(f < nf ? by_folder[f].files : 0), (unsigned long long)found,
		       (unsigned long long)mislabeled, (unsigned long long)expected[e].splines);
		/* every file the MANIFEST labels spline-animation is found with its animation */
		assert_int_equal(found + mislabeled, expected[e].splines);
		/* the corpus README's figures (labels, as the MANIFEST) */
		if (!strcmp(expected[e].key, "sekiro"))
			assert_int_equal(found + mislabeled, 1170);
		if (!strcmp(expected[e].key, "elden_ring"))
			assert_int_equal(found + mislabeled, 1416);
		if (!strcmp(expected[e].key, "sekiro_ported_hk2010"))
			assert_int_equal(found + mislabeled, 395);
		if (!strcmp(expected[e].key, "skyrim"))
			assert_int_equal(found + mislabeled, 395);
	}
	printf("* labelled spline-animation in the MANIFEST, holding an interleaved animation\n");
	printf("%-28s %8s %10llu\n", "total (loose files)", "", (unsigned long long)total);

	/* 3. binder members equal extracted files */
	size_t members = 0, matched = 0, compendiums_by_id = 0;
	for (size_t i = 0; i < n; i++) {
		if (!u[i].in_binder_dir || u[i].loose)
			continue;
		members++;
		bool found = false;
		for (size_t j = 0; j < n && !found; j++) {
			if (!u[j].loose || u[j].size != u[i].size || u[j].hash != u[i].hash)
				continue;
			/* confirm byte for byte: the loose file against the member read again */
			char full[2048];
			snprintf(full, sizeof(full), "%s/%s", corpus, u[j].path);
			size_t fs = 0;
			uint8_t *fb = hks_test_read_file(full, &fs);
			hks_loaded *ld = NULL;
			assert_int_equal(hks_loader_load(L, i, &ld), HKS_OK);
			found = fb && fs == ld->size && !memcmp(fb, ld->bytes, fs);
			hks_loaded_free(ld);
			free(fb);
		}
		if (!found && u[i].container == HKS_CONTAINER_COMPENDIUM) {
			/* The corpus stores compendiums once per ID (corpus/README.md): a
			 * binder's compendium without an identical file must have every
			 * one of its IDs provided by an extracted compendium. */
			hks_loaded *ld = NULL;
			assert_int_equal(hks_loader_load(L, i, &ld), HKS_OK);
			assert_int_equal(ld->status, HKS_OK);
			uint32_t provided = 0;
			for (uint32_t k = 0; k < ld->file->num_compendium_ids; k++)
				for (size_t m = 0; m < num_ids; m++)
					if (!memcmp(ids[m], ld->file->compendium_ids[k], 8)) {
						provided++;
						break;
					}
			printf("binder compendium without an identical extracted file: %s; %u of its %u IDs provided "
			       "by extracted compendiums\n",
			       u[i].path, provided, ld->file->num_compendium_ids);
			assert_true(ld->file->num_compendium_ids > 0);
			assert_int_equal(provided, ld->file->num_compendium_ids);
			hks_loaded_free(ld);
			compendiums_by_id++;
			continue;
		}
		if (!found)
			printf("binder member without an identical extracted file: %s\n", u[i].path);
		matched += found;
	}
	printf("\nbinder members %zu: identical to an extracted file %zu, compendiums matched by ID %zu\n", members,
	       matched, compendiums_by_id);
	assert_true(members > 0);
	assert_int_equal(matched + compendiums_by_id, members);

	for (size_t i = 0; i < n; i++)
		free(u[i].path);
	free(u);
	free(ids);
	free(by_folder);
	free(by_kind);
	free(expected);
	hks_loader_free(L);
	for (size_t r = 0; r < num_rows; r++) {
		free(rows[r].path);
		free(rows[r].kind);
		free(rows[r].ref);
	}
	free(rows);
}

int main(void)
{
	corpus = hks_test_require_corpus("corpus_containers");
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_corpus_containers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
