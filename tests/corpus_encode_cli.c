/*
 * `hkspline encode IN.json` without --like on real clips (docs/ENCODE.md,
 * "hkspline encode"). Clips: the Sekiro and Elden Ring animations whose folder
 * holds a skeleton, in sorted path order, every HKS_ENCODE_CLI_STEP-th
 * (default 200) starting with the first. For each clip:
 *   1. `decode CLIP -o c.json` (bone names from the folder's skeleton);
 *   2. path a: `encode c.json -o a.hkx` must name the JSON's source.path as its
 *      container and write the same bytes as `encode c.json --like CLIP`;
 *   3. path b: the JSON without its "source" object, `encode --skeleton
 *      FOLDER/skeleton.hkx --game G`: a donor tagfile of the folder gets the
 *      clip's track layout. Read back: SDK G, the clip's frame and track
 *      counts, each track bound to the bone the original binds it to (the
 *      donor's layout is rebuilt from the JSON's bone names), and the spline
 *      data byte for byte what the library's encoder makes of the same frames
 *      with Havok's defaults, the SDK and the written maxFramesPerBlock (the
 *      CLI adds nothing to the encode);
 *   4. path r: `recompress CLIP --record r.rec`, then `encode c.json --like CLIP
 *      --record r.rec`: the record puts back the original's spline data byte for
 *      byte (finite frames; the JSON writes NaN canonically, so a NaN part is
 *      refitted); how many whole files come back identical is printed;
 *   5. both outputs decode within the encoder's bound of the original's
 *      decoded frames: tolerance 0.001 + one quantization step of the lane +
 *      f32 slack, rotations + the sample's distance from unit length (the
 *      bound of corpus_encode, which the encoder's tolerance guard keeps,
 *      docs/ENCODE.md "Tolerance guarantee"): no component beyond it.
 * The figures are printed.
 */
#define _POSIX_C_SOURCE 200809L
#include "hks_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#define TOLERANCE 0.001
#define F32_SLACK 1e-5

typedef struct counts {
	unsigned clips, decoded, source_used, source_like_equal, donor_written, read_back, layout_ok, library_equal,
	    nonfinite, record_written, record_data_equal, record_file_equal;
	uint64_t components, beyond;
	double max_error[3]; /* translation, rotation component, scale */
} counts;

static int run(const char *cmd)
{
	int status = system(cmd);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Run a command with stdout and stderr into `log`; the exit status. */
static int run_logged(const char *cmd, const char *log)
{
	char full[16384];
	snprintf(full, sizeof(full), "%s >'%s' 2>&1", cmd, log);
	return run(full);
}

static int file_contains(const char *path, const char *needle)
{
	size_t size = 0;
	uint8_t *b = hks_test_read_file(path, &size);
	int found = b && strstr((const char *)b, needle) != NULL;
	free(b);
	return found;
}

static int files_equal(const char *a, const char *b)
{
	size_t na = 0, nb = 0;
	uint8_t *pa = hks_test_read_file(a, &na), *pb = hks_test_read_file(b, &nb);
	int eq = pa && pb && na == nb && !memcmp(pa, pb, na);
	free(pa);
	free(pb);
	return eq;
}

/* The decode JSON without its "source" object (it holds no nested object). */
static int strip_source(const char *in, const char *out)
{
	size_t size = 0;
	char *text = (char *)hks_test_read_file(in, &size);
	if (!text)
		return 0;
	char *a = strstr(text, "\"source\":{"), *b = a ? strchr(a, '}') : NULL;
	int ok = 0;
	if (a && b) {
		b++;
		if (*b == ',')
			b++;
		FILE *f = fopen(out, "wb");
		if (f) {
			ok = fwrite(text, 1, (size_t)(a - text), f) == (size_t)(a - text) &&
			     fwrite(b, 1, strlen(b), f) == strlen(b);
			ok &= fclose(f) == 0;
		}
	}
	free(text);
	return ok;
}

/* Decoded frames of a stored animation (malloc'd, T·10 per frame). */
static float *sample_all(const hks_stored_animation *s)
{
	uint32_t n = (uint32_t)s->num_frames, T = (uint32_t)s->num_transform_tracks, F = (uint32_t)s->num_float_tracks;
	float *tr = malloc(((size_t)n * T * 10 + 1) * sizeof(float)), *fl = malloc(((size_t)n * F + 1) * sizeof(float));
	hks_error err;
	if (!tr || !fl || hks_sample_frames(s, NULL, 0, n, tr, fl, &err) != HKS_OK) {
		free(tr);
		tr = NULL;
	}
	free(fl);
	return tr;
}

static int all_finite(const float *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return 0;
	return 1;
}

/* Components of `got` beyond the bound of `want` (both T·10 per frame). */
static void count_beyond(counts *c, const hks_stored_animation *s, const float *got, const float *want, uint32_t n,
                         uint32_t T, const char *label)
{
	for (uint32_t t = 0; t < T; t++)
		for (int k = 0; k < 10; k++) {
			int part = k < 3 ? 0 : k < 7 ? 1 : 2, lane = part == 0 ? k : part == 1 ? k - 3 : k - 7;
			double bound = TOLERANCE + hks_test_lane_step(s, t, part, lane) + F32_SLACK;
			for (uint32_t f = 0; f < n; f++) {
				size_t i = ((size_t)f * T + t) * 10 + (size_t)k;
				if (!isfinite(want[i]) || !isfinite(got[i]))
					continue;
				double d = fabs((double)got[i] - (double)want[i]), sample_bound = bound;
				if (part == 1) {
					/* the guard bounds a rotation within E of the sample or of its unit form
					 * (docs/FIT.md): a sample off unit length adds its distance from it */
					const float *q = &want[((size_t)f * T + t) * 10 + 3];
					sample_bound += fabs(1.0 - sqrt((double)q[0] * q[0] + (double)q[1] * q[1] +
					                                (double)q[2] * q[2] + (double)q[3] * q[3]));
				}
				c->components++;
				if (d > c->max_error[part])
					c->max_error[part] = d;
				if (d > sample_bound) {
					if (c->beyond < 5)
						printf("  beyond: %s track %u component %d frame %u: %.6g > %.6g\n", label, t, k, f, d,
						       sample_bound);
					c->beyond++;
				}
			}
		}
}

/* Load one written file (TCRF resolved through the game folder's compendiums). */
static hks_loaded *load_written(hks_loader **loader, const char *path, const char *game_dir)
{
	hks_load_options lo;
	memset(&lo, 0, sizeof(lo));
	const char *cp[1] = {game_dir};
	lo.compendium_paths = cp;
	lo.num_compendium_paths = 1;
	hks_error err;
	hks_loaded *ld = NULL;
	if (hks_loader_create(&lo, loader, &err) != HKS_OK || hks_loader_add_path(*loader, path, &err) != HKS_OK ||
	    hks_loader_count(*loader) != 1 || hks_loader_load(*loader, 0, &ld) != HKS_OK || !ld || ld->status != HKS_OK) {
		if (ld && ld->status != HKS_OK)
			printf("  %s: %s\n", path, ld->error.message);
		hks_loaded_free(ld);
		return NULL;
	}
	return ld;
}

static const hks_binding *binding_of(const hks_file *f, uint32_t anim)
{
	for (uint32_t i = 0; i < f->num_bindings; i++)
		if (f->bindings[i].animation == (int32_t)anim)
			return &f->bindings[i];
	return f->num_bindings == 1 && f->num_animations == 1 ? &f->bindings[0] : NULL;
}

/* The bone of track t (an empty map is the identity, CONTAINERS.md §3.5). */
static int32_t bone_of(const hks_binding *b, uint32_t t)
{
	if (!b || !b->num_transform_track_to_bone_indices)
		return (int32_t)t;
	return t < b->num_transform_track_to_bone_indices ? b->transform_track_to_bone_indices[t] : -1;
}

static void one_clip(const char *cli, const char *clip, const char *skeleton, const char *game_dir, const char *game,
                     const char *sdk, const char *tmp, counts *c)
{
	char cmd[12288], json[1024], nosrc[1024], a[1024], like[1024], b[1024], log[1024];
	snprintf(json, sizeof(json), "%s/c.json", tmp);
	snprintf(nosrc, sizeof(nosrc), "%s/nosrc.json", tmp);
	snprintf(a, sizeof(a), "%s/a.hkx", tmp);
	snprintf(like, sizeof(like), "%s/like.hkx", tmp);
	snprintf(b, sizeof(b), "%s/b.hkx", tmp);
	char rec[2048], rhkx[2048];
	snprintf(rec, sizeof(rec), "%s/r.rec", tmp);
	snprintf(rhkx, sizeof(rhkx), "%s/r.hkx", tmp);
	snprintf(log, sizeof(log), "%s/log.txt", tmp);
	c->clips++;
	hks_loader *lo_orig = NULL, *lo_a = NULL, *lo_b = NULL, *lo_r = NULL;
	hks_loaded *orig = load_written(&lo_orig, clip, game_dir), *la = NULL, *lb = NULL, *lr = NULL;
	hks_stored_animation *so = NULL, *sa = NULL, *sb = NULL;
	hks_packed_spline *ref = NULL;
	float *fo = NULL, *fa = NULL, *fb = NULL;
	hks_error err;
	if (!orig || !orig->file->num_animations || orig->file->animations[0].kind != HKS_ANIMATION_SPLINE ||
	    hks_stored_read(&orig->file->animations[0], NULL, &so, &err) != HKS_OK || !(fo = sample_all(so))) {
		printf("  %s: the original does not decode\n", clip);
		goto out;
	}
	uint32_t n = (uint32_t)so->num_frames, T = (uint32_t)so->num_transform_tracks;
	snprintf(cmd, sizeof(cmd), "'%s' decode '%s' --compendium '%s' -o '%s'", cli, clip, game_dir, json);
	if (run_logged(cmd, log) != 0) {
		printf("  %s: decode failed\n", clip);
		goto out;
	}
	c->decoded++;

	/* path a: the JSON's source.path, the same bytes as --like */
	snprintf(cmd, sizeof(cmd), "'%s' encode '%s' --compendium '%s' -o '%s'", cli, json, game_dir, a);
	int rc_a = run_logged(cmd, log);
	if (rc_a == 0 && file_contains(log, "(the JSON's source.path)"))
		c->source_used++;
	else
		printf("  %s: path a: exit %d\n", clip, rc_a);
	snprintf(cmd, sizeof(cmd), "'%s' encode '%s' --compendium '%s' --like '%s' -o '%s'", cli, json, game_dir, clip, like);
	if (rc_a == 0 && run_logged(cmd, log) == 0 && files_equal(a, like))
		c->source_like_equal++;
	else
		printf("  %s: path a differs from --like\n", clip);

	/* path r: the record of a re-compression puts the original's bytes back */
	snprintf(cmd, sizeof(cmd), "'%s' recompress '%s' --compendium '%s' --record '%s'", cli, clip, game_dir, rec);
	int rc_r = run_logged(cmd, log);
	snprintf(cmd, sizeof(cmd), "'%s' encode '%s' --compendium '%s' --like '%s' --record '%s' -o '%s'", cli, json,
	         game_dir, clip, rec, rhkx);
	if (rc_r == 0 && run_logged(cmd, log) == 0 && (lr = load_written(&lo_r, rhkx, game_dir)) &&
	    lr->file->num_animations) {
		c->record_written++;
		/* the summary counts the parts written (it said "0 parts" when the record restored them all) */
		assert_false(file_contains(log, "blocks; 0 parts"));
		const hks_spline_header *ho = &orig->file->animations[0].spline, *hr = &lr->file->animations[0].spline;
		size_t nf = (size_t)so->num_frames * T * 10;
		if (!all_finite(fo, nf))
			; /* counted as non-finite below */
		else if (hr->data_size == ho->data_size && !memcmp(hr->data, ho->data, ho->data_size))
			c->record_data_equal++;
		else
			printf("  %s: path r: the record did not put back the spline data\n", clip);
		if (files_equal(rhkx, clip))
			c->record_file_equal++;
	} else
		printf("  %s: path r: recompress exit %d, or encode --record failed\n", clip, rc_r);

	/* path b: a donor from the skeleton's folder */
	if (!strip_source(json, nosrc)) {
		printf("  %s: no source object in the JSON\n", clip);
		goto out;
	}
	snprintf(cmd, sizeof(cmd), "'%s' encode '%s' --compendium '%s' --skeleton '%s' --game %s -o '%s'", cli, nosrc,
	         game_dir, skeleton, game, b);
	int rc_b = run_logged(cmd, log);
	if (rc_b == 0 && file_contains(log, "container: donor"))
		c->donor_written++;
	else {
		printf("  %s: path b: exit %d\n", clip, rc_b);
		goto out;
	}
	if (!(la = load_written(&lo_a, a, game_dir)) || !(lb = load_written(&lo_b, b, game_dir)) ||
	    hks_stored_read(&la->file->animations[0], NULL, &sa, &err) != HKS_OK ||
	    hks_stored_read(&lb->file->animations[0], NULL, &sb, &err) != HKS_OK || !(fa = sample_all(sa)) ||
	    !(fb = sample_all(sb))) {
		printf("  %s: a written file does not read back\n", clip);
		goto out;
	}
	c->read_back++;
	const hks_file *fbf = lb->file;
	const hks_animation *ab = &fbf->animations[0];
	const hks_binding *bo = binding_of(orig->file, 0), *bb = binding_of(fbf, 0);
	int layout = !strcmp(fbf->sdk, sdk) && (uint32_t)sb->num_frames == n && (uint32_t)sb->num_transform_tracks == T &&
	             sb->num_float_tracks == so->num_float_tracks && bb && bb->num_transform_track_to_bone_indices == T;
	for (uint32_t t = 0; layout && t < T; t++)
		layout = bone_of(bb, t) == bone_of(bo, t);
	if (layout)
		c->layout_ok++;
	else
		printf("  %s: path b: layout differs (SDK %s, %d frames, %d tracks)\n", clip, fbf->sdk, sb->num_frames,
		       sb->num_transform_tracks);
	size_t comps = (size_t)n * T * 10;
	if (!all_finite(fo, comps)) {
		c->nonfinite++; /* "nan" in the JSON is a canonical NaN: the encode may differ in NaN bits */
	} else {
		/* the library's encode of the same frames: the CLI adds nothing */
		uint32_t F = (uint32_t)so->num_float_tracks;
		float *ff = calloc((size_t)n * F + 1, sizeof(float));
		assert_non_null(ff);
		assert_int_equal(hks_sample_frames(so, NULL, 0, n, fo, ff, &err), HKS_OK);
		hks_frames_in in;
		memset(&in, 0, sizeof(in));
		in.num_frames = n;
		in.num_transform_tracks = T;
		in.num_float_tracks = F;
		in.duration = so->duration;
		in.transforms = T ? fo : NULL;
		in.floats = F ? ff : NULL;
		hks_encode_options eo;
		memset(&eo, 0, sizeof(eo));
		eo.sdk = sdk;
		eo.max_frames_per_block = (uint32_t)ab->spline.max_frames_per_block;
		if (hks_encode_spline(&in, &eo, &ref, &err) == HKS_OK && ref->header.data_size == ab->spline.data_size &&
		    !memcmp(ref->header.data, ab->spline.data, ab->spline.data_size))
			c->library_equal++;
		else
			printf("  %s: path b: the spline data differs from the library's encode\n", clip);
		free(ff);
	}
	count_beyond(c, sa, fa, fo, n, T, a);
	count_beyond(c, sb, fb, fo, n, T, b);
out:
	hks_packed_spline_free(ref);
	free(fo);
	free(fa);
	free(fb);
	hks_stored_free(so);
	hks_stored_free(sa);
	hks_stored_free(sb);
	hks_loaded_free(orig);
	hks_loaded_free(la);
	hks_loaded_free(lb);
	hks_loaded_free(lr);
	hks_loader_free(lo_r);
	hks_loader_free(lo_orig);
	hks_loader_free(lo_a);
	hks_loader_free(lo_b);
}

static void test_encode_cli_corpus(void **state)
{
	(void)state;
	const char *cli = getenv("HKSPLINE_CLI");
	if (!cli || !*cli) {
		printf("SKIPPED: HKSPLINE_CLI is not set (run through ctest)\n");
		skip();
	}
	const char *env = getenv("HKS_ENCODE_CLI_STEP");
	size_t step = env && atol(env) > 0 ? (size_t)atol(env) : 200;
	static const struct {
		const char *folder, *game, *sdk;
	} games[] = {{"sekiro", "sekiro", "20160200"}, {"elden_ring", "eldenring", "20180100"}};
	char tmp[] = "/tmp/hks_encode_cli_XXXXXX";
	assert_non_null(mkdtemp(tmp));
	for (size_t g = 0; g < 2; g++) {
		char dir[2048];
		snprintf(dir, sizeof(dir), "%s/%s", hks_test_corpus(), games[g].folder);
		size_t nfiles = 0;
		char **files = hks_test_list_files(dir, ".hkx", &nfiles);
		counts c;
		memset(&c, 0, sizeof(c));
		size_t candidates = 0;
		for (size_t i = 0; i < nfiles; i++) {
			const char *base = strrchr(files[i], '/') + 1;
			if (!strcasecmp(base, "skeleton.hkx"))
				continue;
			/* the folder's skeleton (any case) */
			char skel[2048] = "";
			for (size_t j = 0; j < nfiles && !skel[0]; j++) {
				const char *bj = strrchr(files[j], '/') + 1;
				if (!strcasecmp(bj, "skeleton.hkx") && bj - files[j] == base - files[i] &&
				    !strncmp(files[i], files[j], (size_t)(base - files[i])))
					snprintf(skel, sizeof(skel), "%s", files[j]);
			}
			if (!skel[0])
				continue;
			if (candidates++ % step != 0)
				continue;
			printf("%s\n", files[i]);
			fflush(stdout);
			one_clip(cli, files[i], skel, dir, games[g].game, games[g].sdk, tmp, &c);
		}
		printf("%s: %zu candidate clips, every %zu-th: %u clips; decoded %u; path a: source used %u, equal to --like "
		       "%u; path b: donor written %u, read back %u, layout as the original's %u, spline data equal to the "
		       "library's encode %u (%u with non-finite frames not compared); path r: encode --record written %u, spline "
		       "data put back %u, whole file identical %u; components %llu, beyond the bound "
		       "%llu; max error translation %.4g, rotation component %.4g, scale %.4g\n",
		       games[g].folder, candidates, step, c.clips, c.decoded, c.source_used, c.source_like_equal,
		       c.donor_written, c.read_back, c.layout_ok, c.library_equal, c.nonfinite, c.record_written,
		       c.record_data_equal, c.record_file_equal,
		       (unsigned long long)c.components, (unsigned long long)c.beyond, c.max_error[0], c.max_error[1],
		       c.max_error[2]);
		assert_true(c.clips > 0);
		assert_int_equal(c.decoded, c.clips);
		assert_int_equal(c.source_used, c.clips);
		assert_int_equal(c.source_like_equal, c.clips);
		assert_int_equal(c.donor_written, c.clips);
		assert_int_equal(c.read_back, c.clips);
		assert_int_equal(c.layout_ok, c.clips);
		assert_int_equal(c.library_equal + c.nonfinite, c.clips);
		assert_int_equal(c.record_written, c.clips);
		assert_int_equal(c.record_data_equal + c.nonfinite, c.clips);
		assert_int_equal(c.beyond, 0);
		hks_test_free_list(files, nfiles);
	}
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	assert_int_equal(run(cmd), 0);
}

int main(void)
{
	hks_test_require_corpus("corpus_encode_cli");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode_cli_corpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
