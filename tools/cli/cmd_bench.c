/*
 * hkspline bench decode [--json] [--repeat N] PATH...
 *
 * Loads every file under the paths (not timed), then, single-threaded and
 * timed with CLOCK_MONOTONIC: for every spline animation, walk the bytes to
 * the stored structure (hks_stored_read) and sample every frame of every
 * track (hks_sample_frames). A track-sample is one transform track at one
 * frame: 10 floats, 40 bytes of output (the convention of the Animation
 * Compression Library). Float tracks are decoded too but not counted.
 * The figures of record (and of --json) are the mean over the repeats; the
 * text output adds the best repeat, which filters out preemption on a
 * shared machine.
 * See docs/BENCHMARKS.md.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static void usage(FILE *out)
{
	fprintf(out, "usage: hkspline bench decode [--json] [--repeat N] [--compendium P]... PATH...\n"
	             "       hkspline bench encode [--json] [--solver havok|quality] [--compendium P]... PATH...\n"
	             "       hkspline bench encode --scaling [--json] [--solver havok|quality]\n"
	             "  decode: walk + sample every frame of every spline animation found, single thread,\n"
	             "  file loading excluded; reports ns per track-sample and MB/s of output\n"
	             "  encode: re-encode the decoded frames of every spline animation found\n"
	             "  ('hkspline bench encode --help'; figures in docs/BENCHMARKS.md)\n");
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct bench_anim {
	const hks_animation *anim;
	const char *path;
	uint32_t index;
} bench_anim;

/* The first few failures are printed (outside the timing that matters:
 * failures make the figures meaningless anyway). */
static void report_failure(const char *path, const hks_error *err)
{
	char buf[1024];
	hks_error_format(err, buf, sizeof(buf));
	fprintf(stderr, "hkspline bench: %s: %s\n", path, buf);
}

static int bench_decode(int argc, char **argv)
{
	bool json = false;
	long repeat = 1;
	const char **paths = calloc((size_t)argc, sizeof(char *));
	const char **comps = calloc((size_t)argc, sizeof(char *));
	size_t npaths = 0, ncomps = 0;
	if (!paths || !comps) {
		fprintf(stderr, "hkspline bench: out of memory\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
			repeat = strtol(argv[++i], NULL, 10);
			if (repeat < 1 || repeat > 1000000) {
				fprintf(stderr, "hkspline bench: --repeat wants 1..1000000\n");
				return 2;
			}
		} else if (!strcmp(argv[i], "--compendium") && i + 1 < argc)
			comps[ncomps++] = argv[++i];
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "hkspline bench: unknown option '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		} else
			paths[npaths++] = argv[i];
	}
	if (npaths == 0) {
		usage(stderr);
		return 2;
	}
	hks_loader *loader = cli_loader_open(comps, ncomps, paths, npaths);
	if (!loader)
		return 2;
	/* Load everything first (not timed). */
	size_t nunits = hks_loader_count(loader);
	hks_loaded **units = calloc(nunits ? nunits : 1, sizeof(*units));
	size_t cap = 1024, nanims = 0, load_failures = 0;
	bench_anim *anims = malloc(cap * sizeof(*anims));
	if (!units || !anims) {
		fprintf(stderr, "hkspline bench: out of memory\n");
		return 2;
	}
	for (size_t u = 0; u < nunits; u++) {
		if (hks_loader_load(loader, u, &units[u]) != HKS_OK || !units[u] || units[u]->status != HKS_OK) {
			if (load_failures < 5 && units[u])
				report_failure(units[u]->path, &units[u]->error);
			load_failures++;
			continue;
		}
		const hks_file *f = units[u]->file;
		for (uint32_t a = 0; a < f->num_animations; a++) {
			if (f->animations[a].kind != HKS_ANIMATION_SPLINE)
				continue;
			if (nanims == cap) {
				cap *= 2;
				bench_anim *p = realloc(anims, cap * sizeof(*anims));
				if (!p) {
					fprintf(stderr, "hkspline bench: out of memory\n");
					return 2;
				}
				anims = p;
			}
			anims[nanims].anim = &f->animations[a];
			anims[nanims].path = units[u]->path;
			anims[nanims].index = a;
			nanims++;
		}
	}
	/* One output buffer, sized for the largest animation (not timed). */
	size_t max_floats = 1;
	for (size_t i = 0; i < nanims; i++) {
		const hks_animation *an = anims[i].anim;
		size_t frames = an->spline.num_frames > 0 ? (size_t)an->spline.num_frames : 0;
		size_t t = an->number_of_transform_tracks > 0 ? (size_t)an->number_of_transform_tracks : 0;
		size_t fl = an->number_of_float_tracks > 0 ? (size_t)an->number_of_float_tracks : 0;
		size_t need = frames * (t * HKS_TRACK_SAMPLE_FLOATS + fl);
		if (need > max_floats)
			max_floats = need;
	}
	float *out = malloc(max_floats * sizeof(float));
	if (!out) {
		fprintf(stderr, "hkspline bench: out of memory for %zu floats\n", max_floats);
		return 2;
	}
	hks_error err;
	uint64_t track_samples = 0, decode_failures = 0;
	double elapsed = 0.0, sampling = 0.0, best = 0.0;
	for (long r = 0; r < repeat; r++) {
		uint64_t samples = 0;
		double t0 = now_seconds();
		for (size_t i = 0; i < nanims; i++) {
			hks_walk_options wo = {0};
			wo.animation_index = (int32_t)anims[i].index;
			hks_stored_animation *s = NULL;
			if (hks_stored_read(anims[i].anim, &wo, &s, &err) != HKS_OK) {
				if (r == 0 && decode_failures < 5)
					report_failure(anims[i].path, &err);
				decode_failures++;
				continue;
			}
			size_t T = (size_t)s->num_transform_tracks;
			float *fl = s->num_float_tracks > 0 ? out + (size_t)s->num_frames * T * HKS_TRACK_SAMPLE_FLOATS : NULL;
			double ts = now_seconds();
			hks_result sr = hks_sample_frames(s, NULL, 0, (uint32_t)s->num_frames, out, fl, &err);
			sampling += now_seconds() - ts;
			if (sr != HKS_OK) {
				if (r == 0 && decode_failures < 5)
					report_failure(anims[i].path, &err);
				decode_failures++;
			}
			else
				samples += (uint64_t)s->num_frames * T;
			hks_stored_free(s);
		}
		double this_repeat = now_seconds() - t0;
		elapsed += this_repeat;
		if (r == 0 || this_repeat < best)
			best = this_repeat;
		track_samples = samples;
	}
	uint64_t total = track_samples * (uint64_t)repeat;
	double ns = total ? elapsed * 1e9 / (double)total : 0.0;
	double mbs = elapsed > 0 ? (double)total * 40.0 / elapsed / 1e6 : 0.0;
	if (json) {
		cli_json j;
		cli_json_init(&j, stdout, false);
		cli_json_begin_object(&j);
		cli_json_key(&j, "animations");
		cli_json_uint(&j, nanims);
		cli_json_key(&j, "track_samples");
		cli_json_uint(&j, track_samples);
		cli_json_key(&j, "ns_per_track_sample");
		cli_json_f64(&j, ns);
		cli_json_key(&j, "mb_per_s");
		cli_json_f64(&j, mbs);
		cli_json_end_object(&j);
	} else {
		printf("animations:          %zu\n", nanims);
		printf("track-samples:       %llu (x %ld repeats)\n", (unsigned long long)track_samples, repeat);
		printf("time:                %.3f s\n", elapsed);
		printf("ns per track-sample: %.2f (walk %.2f + sampling %.2f)\n", ns,
		       total ? (elapsed - sampling) * 1e9 / (double)total : 0.0, total ? sampling * 1e9 / (double)total : 0.0);
		printf("output:              %.1f MB/s (40 bytes per track-sample)\n", mbs);
		if (repeat > 1 && track_samples)
			printf("best repeat:         %.2f ns per track-sample, %.1f MB/s\n", best * 1e9 / (double)track_samples,
			       (double)track_samples * 40.0 / best / 1e6);
	}
	if (load_failures || decode_failures)
		fprintf(stderr, "hkspline bench: %zu files failed to load, %llu animation decodes failed\n", load_failures,
		        (unsigned long long)decode_failures);
	free(out);
	free(anims);
	for (size_t u = 0; u < nunits; u++)
		if (units[u])
			hks_loaded_free(units[u]);
	free(units);
	hks_loader_free(loader);
	free(paths);
	free(comps);
	return decode_failures ? 1 : 0;
}

int cmd_bench(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "decode"))
		return bench_decode(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "encode"))
		return cmd_bench_encode(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "recompress"))
		return cmd_bench_recompress(argc - 1, argv + 1);
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	usage(stderr);
	return 2;
}
