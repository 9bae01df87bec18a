/*
 * hkspline bench recompress [--json] [--compendium P]... PATH...
 *
 * Re-compression throughput (docs/RECORD.md): every spline animation found
 * under the paths is loaded (not timed), then hks_recompress runs on it
 * (walk, sample, predict, invert, record, verify: the whole of what
 * `recompress` and `check --reencode` do per animation), single thread,
 * timed with CLOCK_MONOTONIC (wall) and the thread's CPU clock. MB/s of raw
 * input: 40 bytes per transform track-sample, as `bench encode`.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static double clock_of(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: hkspline bench recompress [--json] [--compendium P]... PATH...\n"
	             "  re-compress every spline animation found (hks_recompress: prediction, inversion, record,\n"
	             "  verification), single thread, loading excluded; MB/s of raw input (40 bytes per\n"
	             "  track-sample).\n");
}

int cmd_bench_recompress(int argc, char **argv)
{
	bool json = false;
	const char **paths = calloc((size_t)argc + 1, sizeof(char *));
	const char **comps = calloc((size_t)argc + 1, sizeof(char *));
	size_t npaths = 0, ncomps = 0;
	int status = 2;
	hks_loader *loader = NULL;
	if (!paths || !comps) {
		fprintf(stderr, "hkspline bench recompress: out of memory\n");
		goto done;
	}
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (!strcmp(argv[i], "--compendium") && i + 1 < argc)
			comps[ncomps++] = argv[++i];
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			status = 0;
			goto done;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "hkspline bench recompress: unknown option '%s'\n", argv[i]);
			usage(stderr);
			goto done;
		} else
			paths[npaths++] = argv[i];
	}
	if (npaths == 0) {
		usage(stderr);
		goto done;
	}
	loader = cli_loader_open(comps, ncomps, paths, npaths, &status);
	if (!loader)
		goto done;
	uint64_t animations = 0, track_samples = 0, failures = 0, load_failures = 0;
	double seconds = 0, cpu = 0;
	for (size_t u = 0; u < hks_loader_count(loader); u++) {
		hks_loaded *ld = NULL;
		hks_result lr = hks_loader_load(loader, u, &ld);
		if (lr != HKS_OK || !ld || ld->status != HKS_OK) {
			/* named, counted and failing the run (it was skipped silently, exit 0) */
			cli_print_load_failure(loader, u, ld, lr, "bench recompress");
			load_failures++;
			hks_loaded_free(ld);
			continue;
		}
		for (uint32_t a = 0; a < ld->file->num_animations; a++) {
			const hks_animation *an = &ld->file->animations[a];
			if (an->kind != HKS_ANIMATION_SPLINE)
				continue;
			hks_recompress_options o;
			memset(&o, 0, sizeof(o));
			o.sdk = ld->file->sdk;
			o.animation_index = (int32_t)a;
			uint8_t *rec = NULL;
			size_t rec_size = 0;
			hks_error err;
			double t0 = clock_of(CLOCK_MONOTONIC), c0 = clock_of(CLOCK_THREAD_CPUTIME_ID);
			hks_result r = hks_recompress(an, &o, &rec, &rec_size, NULL, NULL, &err);
			seconds += clock_of(CLOCK_MONOTONIC) - t0;
			cpu += clock_of(CLOCK_THREAD_CPUTIME_ID) - c0;
			if (r == HKS_OK) {
				animations++;
				track_samples += (uint64_t)(an->spline.num_frames > 0 ? an->spline.num_frames : 0) *
				                 (uint64_t)(an->number_of_transform_tracks > 0 ? an->number_of_transform_tracks : 0);
				hks_buffer_free(NULL, rec, rec_size);
			} else {
				failures++;
			}
		}
		hks_loaded_free(ld);
	}
	double mbs = seconds > 0 ? (double)track_samples * 40.0 / seconds / 1e6 : 0.0;
	if (json) {
		cli_json j;
		cli_json_init(&j, stdout, false);
		cli_json_begin_object(&j);
		cli_json_key(&j, "animations");
		cli_json_uint(&j, animations);
		cli_json_key(&j, "track_samples");
		cli_json_uint(&j, track_samples);
		cli_json_key(&j, "seconds");
		cli_json_f64(&j, seconds);
		cli_json_key(&j, "mb_per_s");
		cli_json_f64(&j, mbs);
		cli_json_key(&j, "cpu_seconds");
		cli_json_f64(&j, cpu);
		cli_json_key(&j, "failures");
		cli_json_uint(&j, failures);
		cli_json_end_object(&j);
		printf("\n");
	} else {
		printf("animations:      %llu\ntrack-samples:   %llu\ntime:            %.3f s\ninput:           %.3f MB/s\n"
		       "thread CPU time: %.3f s\nfailures:        %llu\n",
		       (unsigned long long)animations, (unsigned long long)track_samples, seconds, mbs, cpu,
		       (unsigned long long)failures);
	}
	if (load_failures)
		fprintf(stderr, "hkspline bench recompress: %llu file(s) failed to load\n", (unsigned long long)load_failures);
	status = failures || load_failures ? 1 : 0;
done:
	hks_loader_free(loader);
	free(paths);
	free(comps);
	return status;
}
