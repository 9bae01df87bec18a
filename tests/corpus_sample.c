/*
 * Corpus: every spline animation walks and samples; block seams agree;
 * the Sekiro clips re-saved as hk_2010 packfiles decode to the same bits.
 *
 *  1. Every spline animation of the corpus (loaded through the path loader,
 *     compendiums resolved by ID over the whole corpus) walks to the stored
 *     structure and samples at every frame.
 *  2. At every block seam, the last local frame of block b and local frame 0
 *     of block b+1 are the same global frame (FORMAT.md §4.7): the largest
 *     difference per part is printed; float tracks must agree within 8e-6
 *     (REFERENCE.md §4: over 502 retail seams). Non-finite values are counted
 *     apart (FORMAT.md §5.3 rule 3).
 *  3. Clips with the same file name in sekiro/c1050/ (2016.2 tagfiles) and
 *     sekiro_ported_hk2010/c1050/ (hk_2010 packfiles) decode to bit-identical
 *     frames (same spline blocks in another container).
 */
#define _POSIX_C_SOURCE 200809L
#include "hks_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct seam_stats {
	double max_diff[4]; /* T, R, S, F */
	uint64_t seams, float_seams, nonfinite;
} seam_stats;

typedef struct decoded {
	float *frames;   /* frames × (T·10 + F) */
	size_t count;
	int ok;
} decoded;

static uint64_t g_animations, g_failed, g_frames, g_track_samples;
/* walk rejections by result code; sampling failures after a successful walk */
static uint64_t g_walk_rejected[16], g_sample_failed;

static void print_err(const char *path, uint32_t anim, const hks_error *e)
{
	char buf[1024];
	hks_error_format(e, buf, sizeof(buf));
	printf("FAIL %s animation %u: %s\n", path, anim, buf);
}

static void seam_check(const hks_stored_animation *s, seam_stats *st)
{
	size_t T = (size_t)s->num_transform_tracks, F = (size_t)s->num_float_tracks;
	float *a = malloc((T * 10 + F + 1) * sizeof(float)), *b = malloc((T * 10 + F + 1) * sizeof(float));
	assert_non_null(a);
	assert_non_null(b);
	for (uint32_t blk = 0; blk + 1 < s->num_blocks; blk++) {
		hks_error err;
		assert_int_equal(hks_sample_block_frame(s, blk, s->blocks[blk].num_frames - 1, NULL, a, a + T * 10, &err),
		                 HKS_OK);
		assert_int_equal(hks_sample_block_frame(s, blk + 1, 0, NULL, b, b + T * 10, &err), HKS_OK);
		st->seams++;
		if (F > 0)
			st->float_seams++;
		for (size_t t = 0; t < T; t++)
			for (int k = 0; k < 10; k++) {
				float x = a[t * 10 + k], y = b[t * 10 + k];
				if (!isfinite(x) || !isfinite(y)) {
					st->nonfinite++;
					continue;
				}
				int part = k < 3 ? 0 : k < 7 ? 1 : 2;
				double d = fabs((double)x - (double)y);
				if (d > st->max_diff[part])
					st->max_diff[part] = d;
			}
		for (size_t f = 0; f < F; f++) {
			float x = a[T * 10 + f], y = b[T * 10 + f];
			if (!isfinite(x) || !isfinite(y)) {
				st->nonfinite++;
				continue;
			}
			double d = fabs((double)x - (double)y);
			if (d > st->max_diff[3])
				st->max_diff[3] = d;
		}
	}
	free(a);
	free(b);
}

/* Decode animation `i` of a file: walk + all frames. Returns frames in *out (may be NULL). */
static int decode_animation(const char *path, const hks_animation *an, uint32_t index, seam_stats *st, decoded *out)
{
	hks_walk_options wo = {0};
	wo.animation_index = (int32_t)index;
	hks_stored_animation *s = NULL;
	hks_error err;
	if (hks_stored_read(an, &wo, &s, &err) != HKS_OK) {
		print_err(path, index, &err);
		g_walk_rejected[err.code < 16 ? err.code : 15]++;
		return 0;
	}
	size_t T = (size_t)s->num_transform_tracks, F = (size_t)s->num_float_tracks, n = (size_t)s->num_frames;
	size_t count = n * (T * 10 + F);
	float *buf = malloc((count + 1) * sizeof(float));
	assert_non_null(buf);
	int ok = hks_sample_frames(s, NULL, 0, (uint32_t)n, buf, buf + n * T * 10, &err) == HKS_OK;
	if (!ok) {
		print_err(path, index, &err);
		g_sample_failed++;
	}
	else {
		g_frames += n;
		g_track_samples += n * T;
		if (st)
			seam_check(s, st);
	}
	hks_stored_free(s);
	if (out && ok) {
		out->frames = buf;
		out->count = count;
		out->ok = 1;
	} else
		free(buf);
	return ok;
}

static void test_all_decode_and_seams(void **state)
{
	(void)state;
	const char *corpus = hks_test_corpus();
	hks_load_options lo = {0};
	const char *comps[1] = {corpus};
	lo.compendium_paths = comps;
	lo.num_compendium_paths = 1;
	hks_loader *loader = NULL;
	hks_error err;
	assert_int_equal(hks_loader_create(&lo, &loader, &err), HKS_OK);
	assert_int_equal(hks_loader_add_path(loader, corpus, &err), HKS_OK);
	size_t n = hks_loader_count(loader), load_failed = 0;
	seam_stats st = {{0}, 0, 0, 0};
	for (size_t u = 0; u < n; u++) {
		hks_loaded *ld = NULL;
		if (hks_loader_load(loader, u, &ld) != HKS_OK || !ld || ld->status != HKS_OK) {
			load_failed++;
			if (ld)
				hks_loaded_free(ld);
			continue;
		}
		for (uint32_t a = 0; a < ld->file->num_animations; a++) {
			if (ld->file->animations[a].kind != HKS_ANIMATION_SPLINE)
				continue;
			g_animations++;
			if (!decode_animation(ld->path, &ld->file->animations[a], a, &st, NULL))
				g_failed++;
		}
		hks_loaded_free(ld);
	}
	hks_loader_free(loader);
	printf("units %zu (%zu not parsed: other modules' concern, see corpus_tagfile)\n", n, load_failed);
	printf("spline animations %llu, decoded %llu, failed %llu; frames %llu, track-samples %llu\n",
	       (unsigned long long)g_animations, (unsigned long long)(g_animations - g_failed),
	       (unsigned long long)g_failed, (unsigned long long)g_frames, (unsigned long long)g_track_samples);
	printf("seams %llu (%llu with float tracks): max |difference| translation %.3g, rotation %.3g, scale %.3g, float %.3g; "
	       "%llu non-finite lane pairs skipped\n",
	       (unsigned long long)st.seams, (unsigned long long)st.float_seams, st.max_diff[0], st.max_diff[1], st.max_diff[2], st.max_diff[3],
	       (unsigned long long)st.nonfinite);
	fflush(stdout);
	printf("walk rejections: %llu malformed, %llu other; sampling failures after a successful walk: %llu\n",
	       (unsigned long long)g_walk_rejected[HKS_E_MALFORMED],
	       (unsigned long long)(g_failed - g_sample_failed - g_walk_rejected[HKS_E_MALFORMED]),
	       (unsigned long long)g_sample_failed);
	fflush(stdout);
	assert_true(g_animations > 0);
	assert_true(st.max_diff[3] <= 8e-6);
	/* The sampler must evaluate everything the walk accepts. The walk may
	 * reject input that violates a hard rule of FORMAT.md §6 (a clean
	 * "malformed" error, listed above); any other failure is a bug. In the
	 * corpus, 3 mod-made clips carry 1 blockOffsets entry for 2 blocks (H4). */
	assert_int_equal(g_sample_failed, 0);
	assert_int_equal(g_failed - g_sample_failed, g_walk_rejected[HKS_E_MALFORMED]);
}

static hks_file *read_file_at(const char *path, const hks_compendium_set *set, uint8_t **bytes)
{
	size_t size;
	*bytes = hks_test_read_file(path, &size);
	if (!*bytes)
		return NULL;
	hks_read_options ro = {0};
	ro.compendiums = set;
	hks_file *f = NULL;
	hks_error err;
	if (hks_file_read(*bytes, size, &ro, &f, &err) != HKS_OK) {
		print_err(path, 0, &err);
		return NULL;
	}
	return f;
}

static void test_ported_clips_identical(void **state)
{
	(void)state;
	const char *corpus = hks_test_corpus();
	char dir_tag[1024], dir_pack[1024];
	snprintf(dir_tag, sizeof(dir_tag), "%s/sekiro/c1050", corpus);
	snprintf(dir_pack, sizeof(dir_pack), "%s/sekiro_ported_hk2010/c1050", corpus);
	/* compendiums of the tagfile folder */
	hks_compendium_set *set = NULL;
	hks_error err;
	assert_int_equal(hks_compendium_set_create(NULL, &set, &err), HKS_OK);
	size_t nc = 0;
	char **comps = hks_test_list_files(dir_tag, ".compendium", &nc);
	for (size_t i = 0; i < nc; i++) {
		size_t size;
		uint8_t *b = hks_test_read_file(comps[i], &size);
		assert_non_null(b);
		assert_int_equal(hks_compendium_set_add(set, b, size, comps[i], NULL, &err), HKS_OK);
		free(b);
	}
	hks_test_free_list(comps, nc);
	size_t ntag = 0;
	char **tags = hks_test_list_files(dir_tag, ".hkx", &ntag);
	size_t pairs = 0, identical = 0, spline_pairs = 0;
	for (size_t i = 0; i < ntag; i++) {
		const char *name = strrchr(tags[i], '/') + 1;
		char other[1200];
		snprintf(other, sizeof(other), "%s/%s", dir_pack, name);
		FILE *probe = fopen(other, "rb");
		if (!probe)
			continue;
		fclose(probe);
		pairs++;
		uint8_t *b1 = NULL, *b2 = NULL;
		hks_file *f1 = read_file_at(tags[i], set, &b1), *f2 = read_file_at(other, set, &b2);
		if (f1 && f2 && f1->num_animations == 1 && f2->num_animations == 1 &&
		    f1->animations[0].kind == HKS_ANIMATION_SPLINE && f2->animations[0].kind == HKS_ANIMATION_SPLINE) {
			spline_pairs++;
			decoded d1 = {0}, d2 = {0};
			decode_animation(tags[i], &f1->animations[0], 0, NULL, &d1);
			decode_animation(other, &f2->animations[0], 0, NULL, &d2);
			if (d1.ok && d2.ok && d1.count == d2.count && !memcmp(d1.frames, d2.frames, d1.count * sizeof(float)))
				identical++;
			else
				printf("DIFFERENT %s\n", name);
			free(d1.frames);
			free(d2.frames);
		}
		hks_file_free(f1);
		hks_file_free(f2);
		free(b1);
		free(b2);
	}
	hks_test_free_list(tags, ntag);
	hks_compendium_set_free(set);
	printf("sekiro/c1050 vs sekiro_ported_hk2010/c1050: %zu same-name files, %zu spline pairs, %zu bit-identical\n",
	       pairs, spline_pairs, identical);
	fflush(stdout);
	assert_true(spline_pairs > 0);
	assert_int_equal(identical, spline_pairs);
}

/* The CLI's --hex CSV carries the library's frames bit for bit. */
static void test_cli_decode_hex_csv(void **state)
{
	(void)state;
	const char *cli = getenv("HKSPLINE_CLI");
	if (!cli || !*cli) {
		printf("HKSPLINE_CLI not set: CLI check skipped\n");
		return;
	}
	const char *corpus = hks_test_corpus();
	char in[1024], csv[256], cmd[3000];
	snprintf(in, sizeof(in), "%s/sekiro/c1050/a000_000200.hkx", corpus);
	snprintf(csv, sizeof(csv), "/tmp/hks_corpus_sample_%ld.csv", (long)getpid());
	snprintf(cmd, sizeof(cmd), "'%s' decode --hex --compendium '%s/sekiro/c1050' '%s' -o '%s'", cli, corpus, in, csv);
	assert_int_equal(system(cmd), 0);
	/* the library's frames */
	hks_compendium_set *set = NULL;
	hks_error err;
	assert_int_equal(hks_compendium_set_create(NULL, &set, &err), HKS_OK);
	size_t nc = 0;
	char dir[1100];
	snprintf(dir, sizeof(dir), "%s/sekiro/c1050", corpus);
	char **comps = hks_test_list_files(dir, ".compendium", &nc);
	for (size_t i = 0; i < nc; i++) {
		size_t size;
		uint8_t *b = hks_test_read_file(comps[i], &size);
		assert_int_equal(hks_compendium_set_add(set, b, size, comps[i], NULL, &err), HKS_OK);
		free(b);
	}
	hks_test_free_list(comps, nc);
	uint8_t *bytes = NULL;
	hks_file *f = read_file_at(in, set, &bytes);
	assert_non_null(f);
	decoded d = {0};
	assert_true(decode_animation(in, &f->animations[0], 0, NULL, &d));
	uint32_t T = (uint32_t)f->animations[0].number_of_transform_tracks;
	uint32_t frames = (uint32_t)f->animations[0].spline.num_frames;
	FILE *fp = fopen(csv, "r");
	assert_non_null(fp);
	char line[1024];
	assert_non_null(fgets(line, sizeof(line), fp)); /* header */
	size_t rows = 0, mismatches = 0;
	while (fgets(line, sizeof(line), fp)) {
		unsigned anim, track, frame;
		char kind[16];
		if (sscanf(line, "%u,%15[a-z],%u,", &anim, kind, &track) != 3 || strcmp(kind, "transform"))
			continue;
		/* fields: animation,kind,track,bone,frame,time,10 values,value */
		char *fields[18];
		int nf = 0;
		for (char *p = line; nf < 18;) {
			fields[nf++] = p;
			char *c = strchr(p, ',');
			if (!c)
				break;
			*c = 0;
			p = c + 1;
		}
		assert_true(nf >= 16);
		frame = (unsigned)strtoul(fields[4], NULL, 10);
		assert_true(track < T && frame < frames);
		for (int k = 0; k < 10; k++) {
			uint32_t bits = (uint32_t)strtoul(fields[6 + k], NULL, 16);
			uint32_t want;
			memcpy(&want, &d.frames[((size_t)frame * T + track) * 10 + (size_t)k], 4);
			if (bits != want)
				mismatches++;
		}
		rows++;
	}
	fclose(fp);
	remove(csv);
	printf("CLI --hex CSV: %zu rows, %zu mismatching values\n", rows, mismatches);
	assert_int_equal(rows, (size_t)T * frames);
	assert_int_equal(mismatches, 0);
	free(d.frames);
	hks_file_free(f);
	free(bytes);
	hks_compendium_set_free(set);
}

int main(void)
{
	hks_test_require_corpus("corpus_sample");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ported_clips_identical),
		cmocka_unit_test(test_cli_decode_hex_csv),
		cmocka_unit_test(test_all_decode_and_seams),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
