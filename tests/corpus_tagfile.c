/*
 * Corpus test of the tagfile reader and writer: every TAG0 / TCM0 file of the
 * corpus parses (compendiums resolved by ID from one set holding every
 * .compendium), spline animations are counted per SDK, and every file
 * re-serializes to identical bytes.
 */
#include "hks_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *corpus;
static char **paths;
static size_t num_paths;
static hks_compendium_set *set;

/* The TCRF ID as the file states it, found by walking the top-level sections
 * (independent of the library's reader). Returns 0 when there is none. */
static int file_tcrf_id(const uint8_t *p, size_t n, char hex[17])
{
	if (n < 8)
		return 0;
	size_t end = ((size_t)p[0] << 24 | (size_t)p[1] << 16 | (size_t)p[2] << 8 | p[3]) & 0x3FFFFFFFu;
	if (end > n)
		end = n;
	for (size_t pos = 8; pos + 8 <= end;) {
		size_t sz = ((size_t)p[pos] << 24 | (size_t)p[pos + 1] << 16 | (size_t)p[pos + 2] << 8 | p[pos + 3]) &
		            0x3FFFFFFFu;
		if (sz < 8)
			return 0;
		if (!memcmp(p + pos + 4, "TCRF", 4) && pos + 16 <= n) {
			hks_format_id(p + pos + 8, hex);
			return 1;
		}
		pos += sz;
	}
	return 0;
}

static uint32_t hks_f32_bits_test(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static int is_magic(const uint8_t *p, size_t n, const char *m)
{
	return n >= 8 && !memcmp(p + 4, m, 4);
}

static int setup(void **state)
{
	(void)state;
	paths = hks_test_list_files(corpus, ".hkx,.compendium", &num_paths);
	assert_non_null(paths);
	hks_error e;
	assert_int_equal(hks_compendium_set_create(NULL, &set, &e), HKS_OK);
	size_t conflicts = 0, compendium_files = 0;
	for (size_t i = 0; i < num_paths; i++) {
		size_t n;
		uint8_t *p = hks_test_read_file(paths[i], &n);
		assert_non_null(p);
		if (is_magic(p, n, "TCM0")) {
			int conflict = 0;
			hks_result r = hks_compendium_set_add(set, p, n, paths[i], &conflict, &e);
			if (r != HKS_OK)
				fail_msg("%s: %s", paths[i], e.message);
			conflicts += conflict != 0;
			compendium_files++;
		}
		free(p);
	}
	printf("compendium files: %zu, indexed: %zu, ID conflicts: %zu\n", compendium_files,
	       hks_compendium_set_count(set), conflicts);
	assert_true(compendium_files > 0);
	/* several compendium files list one ID with different TYPE bytes (docs/TAGFILE.md) */
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	hks_compendium_set_free(set);
	hks_test_free_list(paths, num_paths);
	return 0;
}

static void test_parse_all(void **state)
{
	(void)state;
	hks_read_options ro;
	memset(&ro, 0, sizeof(ro));
	ro.compendiums = set;
	size_t parsed = 0, missing = 0, tagfiles = 0, compendiums = 0, other_failures = 0;
	size_t spline_2015 = 0, spline_2016 = 0, spline_2018 = 0, spline_2019 = 0, interleaved = 0, skeletons = 0;
	size_t interleaved_2016 = 0;
	for (size_t i = 0; i < num_paths; i++) {
		size_t n;
		uint8_t *p = hks_test_read_file(paths[i], &n);
		assert_non_null(p);
		if (!is_magic(p, n, "TAG0") && !is_magic(p, n, "TCM0")) {
			free(p);
			continue;
		}
		int is_tag = is_magic(p, n, "TAG0");
		tagfiles += is_tag;
		compendiums += !is_tag;
		hks_file *f = NULL;
		hks_error e;
		ro.base.name = paths[i];
		hks_result r = hks_file_read(p, n, &ro, &f, &e);
		if (r == HKS_E_COMPENDIUM) {
			char id[17];
			assert_true(file_tcrf_id(p, n, id));
			assert_non_null(strstr(e.message, id));
			printf("missing compendium (expected for 3 files): %s: %s\n", paths[i], e.message);
			missing++;
		} else if (r != HKS_OK) {
			char buf[1024];
			hks_error_format(&e, buf, sizeof(buf));
			printf("FAILED: %s\n", buf);
			other_failures++;
		} else {
			parsed++;
			for (uint32_t a = 0; a < f->num_animations; a++) {
				if (f->animations[a].kind == HKS_ANIMATION_INTERLEAVED) {
					interleaved++;
					interleaved_2016 += !strcmp(f->sdk, "20160200");
				}
				if (f->animations[a].kind != HKS_ANIMATION_SPLINE)
					continue;
				if (f->animations[a].spline.num_block_offsets != (uint32_t)f->animations[a].spline.num_blocks)
					printf("note: %s: animation %u: %u block offsets for numBlocks %d\n", paths[i], a,
					       f->animations[a].spline.num_block_offsets, f->animations[a].spline.num_blocks);
				if (!strcmp(f->sdk, "20150100"))
					spline_2015++;
				else if (!strcmp(f->sdk, "20160200"))
					spline_2016++;
				else if (!strcmp(f->sdk, "20180100"))
					spline_2018++;
				else if (!strcmp(f->sdk, "20190100"))
					spline_2019++;
			}
			skeletons += f->num_skeletons;
			hks_file_free(f);
		}
		free(p);
	}
	printf("tagfiles: %zu, compendiums: %zu, parsed: %zu, missing compendium: %zu, other failures: %zu\n", tagfiles,
	       compendiums, parsed, missing, other_failures);
	printf("spline animations: 20150100: %zu, 20160200: %zu, 20180100: %zu, 20190100: %zu; interleaved: %zu; "
	       "skeletons: %zu\n", spline_2015, spline_2016, spline_2018, spline_2019, interleaved, skeletons);
	assert_int_equal(other_failures, 0);
	assert_int_equal(missing, 3);
	/* The corpus README's counts. Its Sekiro figure (1,170) counts the files the
	 * MANIFEST labels "spline-animation", and one of them holds an
	 * hkaInterleavedUncompressedAnimation (docs/TAGFILE.md): 1,169 + 1. */
	assert_int_equal(spline_2016 + interleaved_2016, 1170);
	assert_int_equal(interleaved_2016, 1);
	assert_int_equal(spline_2018, 1416);
	assert_int_equal(spline_2015, 3);
}

/* Every file that parses re-serializes to identical bytes (CONTAINERS.md §4.4). */
static void test_roundtrip_all(void **state)
{
	(void)state;
	hks_read_options ro;
	memset(&ro, 0, sizeof(ro));
	ro.compendiums = set;
	size_t identical = 0, different = 0, tagfiles = 0, compendiums = 0;
	for (size_t i = 0; i < num_paths; i++) {
		size_t n;
		uint8_t *p = hks_test_read_file(paths[i], &n);
		assert_non_null(p);
		int is_tag = is_magic(p, n, "TAG0");
		if (!is_tag && !is_magic(p, n, "TCM0")) {
			free(p);
			continue;
		}
		hks_file *f = NULL;
		hks_error e;
		if (hks_file_read(p, n, &ro, &f, &e) != HKS_OK) {
			assert_int_equal(e.code, HKS_E_COMPENDIUM); /* the files counted in test_parse_all */
			free(p);
			continue;
		}
		uint8_t *out = NULL;
		size_t out_size = 0;
		hks_result r = hks_file_write(f, NULL, &out, &out_size, &e);
		if (r != HKS_OK) {
			printf("WRITE FAILED: %s: %s\n", paths[i], e.message);
			different++;
		} else if (out_size != n || memcmp(out, p, n)) {
			size_t k = 0;
			while (k < n && k < out_size && out[k] == p[k])
				k++;
			if (different < 20)
				printf("DIFFERENT: %s: %zu bytes vs %zu, first difference at %zu\n", paths[i], out_size, n, k);
			different++;
		} else {
			identical++;
			tagfiles += is_tag;
			compendiums += !is_tag;
		}
		hks_buffer_free(NULL, out, out_size);
		hks_file_free(f);
		free(p);
	}
	printf("round trip: %zu identical (%zu tagfiles, %zu compendiums), %zu different\n", identical, tagfiles,
	       compendiums, different);
	assert_int_equal(different, 0);
	assert_true(identical > 0);
}

/*
 * hks_file_replace_spline end to end on one corpus file, chosen by a rule: the
 * first tagfile in sorted order with a spline animation of at least 2 blocks.
 * Its last block is dropped (numBlocks, numFrames, duration adjusted, data cut
 * at blockOffsets[last]); the written file must read back with those values,
 * and writing it again must give the same bytes.
 */
static void test_replace_spline_drop_last_block(void **state)
{
	(void)state;
	hks_read_options ro;
	memset(&ro, 0, sizeof(ro));
	ro.compendiums = set;
	int done = 0;
	for (size_t i = 0; i < num_paths && !done; i++) {
		size_t n;
		uint8_t *p = hks_test_read_file(paths[i], &n);
		assert_non_null(p);
		hks_file *f = NULL;
		hks_error e;
		if (!is_magic(p, n, "TAG0") || hks_file_read(p, n, &ro, &f, &e) != HKS_OK) {
			free(p);
			continue;
		}
		uint32_t a = 0;
		while (a < f->num_animations &&
		       !(f->animations[a].kind == HKS_ANIMATION_SPLINE && f->animations[a].spline.num_blocks >= 2 &&
		         f->animations[a].spline.num_block_offsets == (uint32_t)f->animations[a].spline.num_blocks))
			a++;
		if (a == f->num_animations) {
			hks_file_free(f);
			free(p);
			continue;
		}
		printf("replace-spline file: %s, animation %u\n", paths[i], a);
		const hks_spline_header *old = &f->animations[a].spline;
		hks_spline_header h = *old;
		uint32_t last = (uint32_t)old->num_blocks - 1;
		h.num_blocks = old->num_blocks - 1;
		h.num_frames = (int32_t)last * (old->max_frames_per_block - 1) + 1;
		h.num_block_offsets = last;
		if (h.num_float_block_offsets > last)
			h.num_float_block_offsets = last;
		h.data_size = old->block_offsets[last];
		float duration = (float)(h.num_frames - 1) * old->frame_duration;
		uint32_t old_data_size = old->data_size, num_tracks = (uint32_t)f->animations[a].number_of_transform_tracks;
		uint8_t *prefix = malloc(h.data_size);
		assert_non_null(prefix);
		memcpy(prefix, old->data, h.data_size);
		uint32_t num_bindings = f->num_bindings, num_animations = f->num_animations;
		assert_int_equal(hks_file_replace_spline(f, a, duration, &h, &e), HKS_OK);

		uint8_t *out = NULL;
		size_t out_size = 0;
		assert_int_equal(hks_file_write(f, NULL, &out, &out_size, &e), HKS_OK);
		assert_true(out_size < n); /* a block fewer */
		hks_file *g = NULL;
		assert_int_equal(hks_file_read(out, out_size, &ro, &g, &e), HKS_OK);
		assert_int_equal(g->num_animations, num_animations);
		assert_int_equal(g->num_bindings, num_bindings);
		const hks_animation *ga = &g->animations[a];
		assert_int_equal(ga->kind, HKS_ANIMATION_SPLINE);
		assert_int_equal(ga->number_of_transform_tracks, num_tracks);
		assert_int_equal(ga->spline.num_blocks, h.num_blocks);
		assert_int_equal(ga->spline.num_frames, h.num_frames);
		assert_int_equal(hks_f32_bits_test(ga->duration), hks_f32_bits_test(duration));
		assert_int_equal(ga->spline.num_block_offsets, last);
		assert_memory_equal(ga->spline.block_offsets, f->animations[a].spline.block_offsets, 4 * (size_t)last);
		assert_int_equal(ga->spline.data_size, h.data_size);
		assert_true(ga->spline.data_size < old_data_size);
		assert_memory_equal(ga->spline.data, prefix, h.data_size);
		if (num_bindings)
			assert_int_equal(g->bindings[0].animation, f->bindings[0].animation);

		/* the written file is a fixed point of read + write */
		uint8_t *again = NULL;
		size_t again_size = 0;
		assert_int_equal(hks_file_write(g, NULL, &again, &again_size, &e), HKS_OK);
		assert_int_equal(again_size, out_size);
		assert_memory_equal(again, out, out_size);
		printf("replace-spline: %zu -> %zu bytes, data %u -> %u bytes, blocks %d -> %d\n", n, out_size,
		       old_data_size, h.data_size, h.num_blocks + 1, h.num_blocks);

		hks_buffer_free(NULL, again, again_size);
		hks_file_free(g);
		hks_buffer_free(NULL, out, out_size);
		free(prefix);
		hks_file_free(f);
		free(p);
		done = 1;
	}
	assert_true(done);
}

int main(void)
{
	corpus = hks_test_require_corpus("corpus_tagfile");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_all),
		cmocka_unit_test(test_roundtrip_all),
		cmocka_unit_test(test_replace_spline_drop_last_block),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
