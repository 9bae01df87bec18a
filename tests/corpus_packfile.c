/*
 * Corpus test (label "corpus"): every binary packfile and Havok XML file of
 * the corpus, found by content (not by extension), must parse; spline
 * animations are counted per (container, SDK, pointer size) and per corpus
 * folder and compared with the corpus README's figures; every packfile must
 * re-serialize to identical bytes, and a rewrite with a changed spline must
 * read back; the Sekiro clips re-saved as hk_2010 packfiles must carry the
 * same spline header and data bytes as the original tagfiles.
 */
#include "hks_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tally {
	char key[96];
	unsigned files, splines;
} tally;

static tally tallies[64];
static unsigned num_tallies;

static void count(const char *key, unsigned files, unsigned splines)
{
	for (unsigned i = 0; i < num_tallies; i++)
		if (!strcmp(tallies[i].key, key)) {
			tallies[i].files += files;
			tallies[i].splines += splines;
			return;
		}
	if (num_tallies < 64) {
		snprintf(tallies[num_tallies].key, sizeof(tallies[num_tallies].key), "%s", key);
		tallies[num_tallies].files = files;
		tallies[num_tallies].splines = splines;
		num_tallies++;
	}
}

static unsigned tally_splines(const char *key)
{
	for (unsigned i = 0; i < num_tallies; i++)
		if (!strcmp(tallies[i].key, key))
			return tallies[i].splines;
	return 0;
}

/* "skyrim" for "<corpus>/skyrim/...". */
static void top_folder(const char *corpus, const char *path, char *out, size_t size)
{
	const char *rel = path + strlen(corpus);
	while (*rel == '/')
		rel++;
	const char *slash = strchr(rel, '/');
	size_t n = slash ? (size_t)(slash - rel) : strlen(rel);
	if (n >= size)
		n = size - 1;
	memcpy(out, rel, n);
	out[n] = 0;
}

static unsigned num_splines(const hks_file *f)
{
	unsigned n = 0;
	for (uint32_t i = 0; i < f->num_animations; i++)
		n += f->animations[i].kind == HKS_ANIMATION_SPLINE;
	return n;
}

/* Rewrite with every spline's data grown by 16 bytes and check the result reads back. */
static int rewrite_changed(hks_file *file, const char *path)
{
	hks_error e;
	for (uint32_t i = 0; i < file->num_animations; i++) {
		if (file->animations[i].kind != HKS_ANIMATION_SPLINE)
			continue;
		hks_spline_header h = file->animations[i].spline;
		uint8_t *grown = (uint8_t *)malloc(h.data_size + 16u);
		memcpy(grown, h.data, h.data_size);
		memset(grown + h.data_size, 0x5A, 16);
		h.data = grown;
		h.data_size += 16;
		hks_result r = hks_file_replace_spline(file, i, file->animations[i].duration, &h, &e);
		free(grown);
		if (r != HKS_OK) {
			printf("FAIL replace %s: %s\n", path, e.message);
			return 0;
		}
	}
	uint8_t *out = NULL;
	size_t out_size = 0;
	if (hks_file_write(file, NULL, &out, &out_size, &e) != HKS_OK) {
		printf("FAIL changed write %s: %s\n", path, e.message);
		return 0;
	}
	hks_file *back = NULL;
	int ok = hks_file_read(out, out_size, NULL, &back, &e) == HKS_OK;
	if (!ok)
		printf("FAIL changed read-back %s: %s\n", path, e.message);
	for (uint32_t i = 0; ok && i < file->num_animations; i++) {
		const hks_animation *a = &file->animations[i], *b = &back->animations[i];
		if (a->kind != HKS_ANIMATION_SPLINE)
			continue;
		ok = b->kind == HKS_ANIMATION_SPLINE && b->spline.data_size == a->spline.data_size &&
		     !memcmp(b->spline.data, a->spline.data, a->spline.data_size) &&
		     b->spline.num_block_offsets == a->spline.num_block_offsets &&
		     b->num_annotation_tracks == a->num_annotation_tracks && b->reference_frame == a->reference_frame;
		if (!ok)
			printf("FAIL changed read-back %s: animation %u differs\n", path, i);
	}
	ok = ok && back->num_bindings == file->num_bindings && back->num_skeletons == file->num_skeletons;
	hks_file_free(back);
	hks_buffer_free(NULL, out, out_size);
	return ok;
}

static void test_packfiles_and_xml(void **state)
{
	(void)state;
	const char *corpus = hks_test_corpus();
	size_t n = 0;
	char **files = hks_test_list_files(corpus, ".hkx,.xml", &n);
	unsigned parsed = 0, failed = 0, packfiles = 0, identical = 0, rewritten = 0, xml_files = 0;
	for (size_t i = 0; i < n; i++) {
		size_t size = 0;
		uint8_t *bytes = hks_test_read_file(files[i], &size);
		assert_non_null(bytes);
		hks_container kind = hks_detect_container(bytes, size);
		if (kind != HKS_CONTAINER_PACKFILE && kind != HKS_CONTAINER_XML) {
			free(bytes);
			continue;
		}
		hks_read_options ro;
		memset(&ro, 0, sizeof(ro));
		ro.base.name = files[i];
		hks_file *file = NULL;
		hks_error e;
		if (hks_file_read(bytes, size, &ro, &file, &e) != HKS_OK) {
			char msg[1400];
			hks_error_format(&e, msg, sizeof(msg));
			printf("FAIL parse %s\n", msg);
			failed++;
			free(bytes);
			continue;
		}
		parsed++;
		char key[96], folder[64];
		snprintf(key, sizeof(key), "%s %s ptr%u", hks_container_name(file->container), file->sdk, file->pointer_size);
		count(key, 1, num_splines(file));
		top_folder(corpus, files[i], folder, sizeof(folder));
		snprintf(key, sizeof(key), "folder %s %s", folder, hks_container_name(file->container));
		count(key, 1, num_splines(file));
		snprintf(key, sizeof(key), "folder %s", folder);
		count(key, 1, num_splines(file));
		if (kind == HKS_CONTAINER_XML)
			xml_files++;
		if (kind == HKS_CONTAINER_PACKFILE) {
			packfiles++;
			uint8_t *out = NULL;
			size_t out_size = 0;
			if (hks_file_write(file, NULL, &out, &out_size, &e) == HKS_OK) {
				if (out_size == size && !memcmp(out, bytes, size))
					identical++;
				else
					printf("FAIL re-serialize %s: bytes differ\n", files[i]);
				hks_buffer_free(NULL, out, out_size);
			} else {
				printf("FAIL re-serialize %s: %s\n", files[i], e.message);
			}
			rewritten += (unsigned)rewrite_changed(file, files[i]);
		}
		hks_file_free(file);
		free(bytes);
	}
	hks_test_free_list(files, n);

	printf("spline animations by container / SDK / pointer size (files, splines):\n");
	for (unsigned i = 0; i < num_tallies; i++)
		if (strncmp(tallies[i].key, "folder ", 7) != 0)
			printf("  %-40s %5u files %5u splines\n", tallies[i].key, tallies[i].files, tallies[i].splines);
	printf("by corpus folder:\n");
	for (unsigned i = 0; i < num_tallies; i++)
		if (!strncmp(tallies[i].key, "folder ", 7))
			printf("  %-40s %5u files %5u splines\n", tallies[i].key + 7, tallies[i].files, tallies[i].splines);
	printf("parsed %u (xml %u), failed %u; packfiles %u, re-serialized identical %u, rewritten with changed "
	       "splines and read back %u\n",
	       parsed, xml_files, failed, packfiles, identical, rewritten);

	assert_int_equal(failed, 0);
	assert_true(packfiles > 0);
	assert_int_equal(identical, packfiles);
	assert_int_equal(rewritten, packfiles);
	/* the figures of the corpus README (spline animations per folder) */
	assert_int_equal(tally_splines("folder sekiro_ported_hk2010"), 395);
	assert_int_equal(tally_splines("folder skyrim"), 395);
	assert_int_equal(tally_splines("folder bloodborne") + tally_splines("folder ds3"), 2);
	assert_int_equal(tally_splines("folder ds1_ptde"), 2);
}

/* Same clip in sekiro/c1050 (tagfile) and sekiro_ported_hk2010/c1050 (packfile). */
static void test_sekiro_resaves_match_tagfiles(void **state)
{
	(void)state;
	const char *corpus = hks_test_corpus();
	hks_compendium_set *set = NULL;
	hks_error e;
	assert_int_equal(hks_compendium_set_create(NULL, &set, &e), HKS_OK);
	size_t nc = 0;
	char **comps = hks_test_list_files(corpus, ".compendium", &nc);
	for (size_t i = 0; i < nc; i++) {
		size_t size = 0;
		uint8_t *bytes = hks_test_read_file(comps[i], &size);
		assert_non_null(bytes);
		if (hks_compendium_set_add(set, bytes, size, comps[i], NULL, &e) != HKS_OK)
			printf("note: compendium %s not indexed: %s\n", comps[i], e.message);
		free(bytes);
	}
	hks_test_free_list(comps, nc);

	char dir[1024];
	snprintf(dir, sizeof(dir), "%s/sekiro_ported_hk2010/c1050", corpus);
	size_t n = 0;
	char **ported = hks_test_list_files(dir, ".hkx", &n);
	unsigned pairs = 0, same = 0, interleaved = 0;
	for (size_t i = 0; i < n; i++) {
		const char *name = strrchr(ported[i], '/') + 1;
		char original[1400];
		snprintf(original, sizeof(original), "%s/sekiro/c1050/%s", corpus, name);
		size_t sa = 0, sb = 0;
		uint8_t *a = hks_test_read_file(ported[i], &sa);
		uint8_t *b = hks_test_read_file(original, &sb);
		if (!a || !b) {
			free(a);
			free(b);
			continue;
		}
		pairs++;
		hks_read_options ro;
		memset(&ro, 0, sizeof(ro));
		ro.compendiums = set;
		hks_file *fa = NULL, *fb = NULL;
		hks_result ra = hks_file_read(a, sa, &ro, &fa, &e);
		if (ra != HKS_OK)
			printf("FAIL %s: %s\n", ported[i], e.message);
		hks_result rb = hks_file_read(b, sb, &ro, &fb, &e);
		if (rb != HKS_OK)
			printf("FAIL %s: %s\n", original, e.message);
		int ok = ra == HKS_OK && rb == HKS_OK && fa->num_animations == fb->num_animations;
		for (uint32_t k = 0; ok && k < fa->num_animations; k++) {
			const hks_animation *x = &fa->animations[k], *y = &fb->animations[k];
			const hks_spline_header *p = &x->spline, *q = &y->spline;
			if (x->kind == HKS_ANIMATION_INTERLEAVED && y->kind == HKS_ANIMATION_INTERLEAVED) {
				/* one clip of the folder is uncompressed in both containers */
				ok = x->num_transforms == y->num_transforms && x->num_floats == y->num_floats &&
				     !memcmp(&x->duration, &y->duration, 4) &&
				     (!x->num_transforms ||
				      !memcmp(x->transforms, y->transforms, x->num_transforms * sizeof(hks_qs_transform))) &&
				     (!x->num_floats || !memcmp(x->floats, y->floats, x->num_floats * sizeof(float)));
				interleaved += (unsigned)ok;
				if (!ok)
					printf("FAIL %s: interleaved animation %u differs from the tagfile\n", name, k);
				continue;
			}
			ok = x->kind == HKS_ANIMATION_SPLINE && y->kind == HKS_ANIMATION_SPLINE &&
			     !memcmp(&x->duration, &y->duration, 4) &&
			     x->number_of_transform_tracks == y->number_of_transform_tracks &&
			     x->number_of_float_tracks == y->number_of_float_tracks && p->num_frames == q->num_frames &&
			     p->num_blocks == q->num_blocks && p->max_frames_per_block == q->max_frames_per_block &&
			     p->mask_and_quantization_size == q->mask_and_quantization_size &&
			     !memcmp(&p->block_duration, &q->block_duration, 4) &&
			     !memcmp(&p->block_inverse_duration, &q->block_inverse_duration, 4) &&
			     !memcmp(&p->frame_duration, &q->frame_duration, 4) && p->endian == q->endian &&
			     p->num_block_offsets == q->num_block_offsets &&
			     p->num_float_block_offsets == q->num_float_block_offsets &&
			     p->num_transform_offsets == q->num_transform_offsets &&
			     p->num_float_offsets == q->num_float_offsets && p->data_size == q->data_size &&
			     (!p->num_block_offsets || !memcmp(p->block_offsets, q->block_offsets, 4u * p->num_block_offsets)) &&
			     (!p->num_float_block_offsets ||
			      !memcmp(p->float_block_offsets, q->float_block_offsets, 4u * p->num_float_block_offsets)) &&
			     (!p->num_transform_offsets ||
			      !memcmp(p->transform_offsets, q->transform_offsets, 4u * p->num_transform_offsets)) &&
			     (!p->num_float_offsets || !memcmp(p->float_offsets, q->float_offsets, 4u * p->num_float_offsets)) &&
			     (!p->data_size || !memcmp(p->data, q->data, p->data_size));
			if (!ok)
				printf("FAIL %s: animation %u differs from the tagfile\n", name, k);
		}
		same += (unsigned)ok;
		hks_file_free(fa);
		hks_file_free(fb);
		free(a);
		free(b);
	}
	hks_test_free_list(ported, n);
	hks_compendium_set_free(set);
	printf("sekiro c1050: %u clips in both folders, %u identical (spline header and data; %u of them "
	       "interleaved, compared transform by transform)\n",
	       pairs, same, interleaved);
	assert_true(pairs > 0);
	assert_int_equal(same, pairs);
}

int main(void)
{
	hks_test_require_corpus("corpus_packfile");
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_packfiles_and_xml),
	    cmocka_unit_test(test_sekiro_resaves_match_tagfiles),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
