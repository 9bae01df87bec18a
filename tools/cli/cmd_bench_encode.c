/*
 * hkspline bench encode [--json] [--solver havok|quality] [--compendium P]... PATH...
 * hkspline bench encode --scaling [--json] [--solver havok|quality]
 *
 * Corpus mode: loads every file under the paths and decodes every spline
 * animation to frames (not timed), then re-encodes the frames with Havok's
 * defaults and the file's SDK (hks_encode_spline: fit, quantize, pack),
 * single thread, timed with CLOCK_MONOTONIC. Throughput is MB/s of raw
 * input: 40 bytes per transform track-sample (10 floats, the convention of
 * the Animation Compression Library); float tracks are encoded but not
 * counted.
 *
 * Both wall time (CLOCK_MONOTONIC) and this thread's CPU time are reported:
 * on a shared machine the CPU time is the figure that means something.
 *
 * Scaling mode (thread CPU time): synthetic signals (smooth sines and slow rotations, built
 * here), encoded with the defaults; time per track-sample as frames per
 * block and the number of tracks grow. See docs/BENCHMARKS.md.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "platform.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: hkspline bench encode [--json] [--solver havok|quality] [--compendium P]... PATH...\n"
	             "       hkspline bench encode --scaling [--json] [--solver havok|quality]\n"
	             "  re-encode the decoded frames of every spline animation found (single thread, decoding\n"
	             "  and loading excluded); MB/s of raw input (40 bytes per track-sample). --scaling: time\n"
	             "  per track-sample against frames per block and track count, on synthetic signals.\n");
}

static double now_seconds(void)
{
	return hks_platform_monotonic_seconds();
}

/* CPU time of this thread: on a loaded machine wall time overstates the cost. */
static double cpu_seconds(void)
{
	return hks_platform_thread_cpu_seconds();
}

static void report(bool json, size_t animations, uint64_t track_samples, double seconds, double cpu,
                   uint64_t failures)
{
	double mbs = seconds > 0 ? (double)track_samples * 40.0 / seconds / 1e6 : 0.0;
	double mbs_cpu = cpu > 0 ? (double)track_samples * 40.0 / cpu / 1e6 : 0.0;
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
		cli_json_key(&j, "mb_per_s_cpu");
		cli_json_f64(&j, mbs_cpu);
		cli_json_end_object(&j);
		printf("\n");
	} else {
		printf("animations:          %zu\n", animations);
		printf("track-samples:       %llu\n", (unsigned long long)track_samples);
		printf("time:                %.3f s\n", seconds);
		printf("us per track-sample: %.3f\n", track_samples ? seconds * 1e6 / (double)track_samples : 0.0);
		printf("input:               %.3f MB/s (40 bytes per track-sample)\n", mbs);
		printf("thread CPU time:     %.3f s (%.3f MB/s)\n", cpu, mbs_cpu);
	}
	if (failures)
		fprintf(stderr, "hkspline bench encode: %llu animations failed\n", (unsigned long long)failures);
}

/* Synthetic frames: per track a different mix of sines (translation),
 * a slow rotation about a drifting axis, a mostly static scale. */
static void synth(float *tr, uint32_t frames, uint32_t tracks, float duration)
{
	for (uint32_t f = 0; f < frames; f++) {
		float t = duration * (float)f / (float)(frames - 1);
		for (uint32_t k = 0; k < tracks; k++) {
			float *s = tr + ((size_t)f * tracks + k) * HKS_TRACK_SAMPLE_FLOATS;
			float ph = 0.37f * (float)k;
			s[0] = 0.3f * sinf(1.1f * t + ph);
			s[1] = 0.1f * cosf(2.3f * t + ph) + 0.02f * (float)k;
			s[2] = 0.05f * sinf(0.7f * t);
			float ax = 1.0f, ay = 0.3f * sinf(0.2f * t + ph), az = 0.2f;
			float l = sqrtf(ax * ax + ay * ay + az * az);
			float ang = 0.4f * sinf(0.9f * t + ph);
			float sn = sinf(ang * 0.5f) / l;
			s[3] = ax * sn, s[4] = ay * sn, s[5] = az * sn, s[6] = cosf(ang * 0.5f);
			s[7] = 1.0f, s[8] = 1.0f + (k % 7 == 0 ? 0.1f * sinf(t) : 0.0f), s[9] = 1.0f;
		}
	}
}

/* Encode `tracks` synthetic tracks of `frames` frames with blocks of `mfpb`
 * frames; *secs: the thread CPU time of the encode. 0, 1 (encoder error,
 * printed) or 2 (out of memory). */
static int time_one_encode(uint32_t mfpb, uint32_t tracks, uint32_t frames, hks_encode_solver solver, double *secs)
{
	float *tr = malloc((size_t)frames * tracks * HKS_TRACK_SAMPLE_FLOATS * sizeof(float));
	if (!tr)
		return 2;
	synth(tr, frames, tracks, (float)(frames - 1) / 30.0f);
	hks_frames_in in = {frames, tracks, 0, (float)(frames - 1) / 30.0f, tr, NULL};
	const hks_encode_options o = {.max_frames_per_block = mfpb, .solver = solver};
	hks_packed_spline *p = NULL;
	hks_error err;
	double t0 = cpu_seconds();
	hks_result r = hks_encode_spline(&in, &o, &p, &err);
	*secs = cpu_seconds() - t0;
	hks_packed_spline_free(p);
	free(tr);
	if (r != HKS_OK) {
		cli_print_error(&err);
		return 1;
	}
	return 0;
}

/* Two sweeps: frames per block (40 tracks), then tracks (256 frames per block);
 * each row printed as soon as it is measured. */
static int bench_scaling(bool json, hks_encode_solver solver)
{
	static const uint32_t mfpb_list[] = {16, 32, 64, 128, 256};
	static const uint32_t track_list[] = {10, 40, 160};
	const uint32_t frames = 1021; /* 30 fps, 34 s: 4 full blocks of 256 */
	cli_json j;
	if (json) {
		cli_json_init(&j, stdout, false);
		cli_json_begin_array(&j);
	} else {
		printf("thread CPU time per encode\n%-17s %-7s %-7s %-10s %-14s %s\n", "frames/block", "tracks", "frames",
		       "seconds", "us/track-sample", "MB/s");
	}
	for (int axis = 0; axis < 2; axis++) {
		size_t count = axis == 0 ? sizeof(mfpb_list) / sizeof(mfpb_list[0]) : sizeof(track_list) / sizeof(track_list[0]);
		for (size_t i = 0; i < count; i++) {
			uint32_t mfpb = axis == 0 ? mfpb_list[i] : 256, tracks = axis == 0 ? 40 : track_list[i];
			double secs = 0;
			int rc = time_one_encode(mfpb, tracks, frames, solver, &secs);
			if (rc)
				return rc;
			uint64_t ts = (uint64_t)frames * tracks;
			if (!json) {
				printf("%-17u %-7u %-7u %-10.3f %-14.3f %.3f\n", mfpb, tracks, frames, secs, secs * 1e6 / (double)ts,
				       (double)ts * 40.0 / secs / 1e6);
				continue;
			}
			cli_json_begin_object(&j);
			cli_json_key(&j, "frames_per_block");
			cli_json_uint(&j, mfpb);
			cli_json_key(&j, "tracks");
			cli_json_uint(&j, tracks);
			cli_json_key(&j, "frames");
			cli_json_uint(&j, frames);
			cli_json_key(&j, "seconds");
			cli_json_f64(&j, secs);
			cli_json_key(&j, "mb_per_s");
			cli_json_f64(&j, secs > 0 ? (double)ts * 40.0 / secs / 1e6 : 0.0);
			cli_json_end_object(&j);
		}
	}
	if (json) {
		cli_json_end_array(&j);
		printf("\n");
	}
	return 0;
}

int cmd_bench_encode(int argc, char **argv)
{
	bool json = false, scaling = false;
	hks_encode_solver solver = HKS_SOLVER_HAVOK;
	const char **paths = calloc((size_t)argc + 1, sizeof(char *));
	const char **comps = calloc((size_t)argc + 1, sizeof(char *));
	size_t npaths = 0, ncomps = 0;
	int status = 2;
	hks_loader *loader = NULL;
	if (!paths || !comps) {
		fprintf(stderr, "hkspline bench encode: out of memory\n");
		goto done;
	}
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (!strcmp(argv[i], "--scaling"))
			scaling = true;
		else if (!strcmp(argv[i], "--solver") && i + 1 < argc) {
			if (!cli_parse_solver("bench encode", argv[++i], &solver))
				goto done;
		} else if (!strcmp(argv[i], "--compendium") && i + 1 < argc)
			comps[ncomps++] = argv[++i];
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			status = 0;
			goto done;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "hkspline bench encode: unknown option '%s'\n", argv[i]);
			usage(stderr);
			goto done;
		} else
			paths[npaths++] = argv[i];
	}
	if (scaling) {
		status = bench_scaling(json, solver);
		goto done;
	}
	if (npaths == 0) {
		usage(stderr);
		goto done;
	}
	loader = cli_loader_open(comps, ncomps, paths, npaths, &status);
	if (!loader)
		goto done;
	hks_error err;
	size_t animations = 0;
	uint64_t track_samples = 0, failures = 0, load_failures = 0;
	double seconds = 0, cpu = 0;
	for (size_t u = 0; u < hks_loader_count(loader); u++) {
		hks_loaded *ld = NULL;
		hks_result lr = hks_loader_load(loader, u, &ld);
		if (lr != HKS_OK || !ld || ld->status != HKS_OK) {
			/* named, counted and failing the run (it was skipped silently, exit 0) */
			cli_print_load_failure(loader, u, ld, lr, "bench encode");
			load_failures++;
			hks_loaded_free(ld);
			continue;
		}
		for (uint32_t a = 0; a < ld->file->num_animations; a++) {
			const hks_animation *an = &ld->file->animations[a];
			if (an->kind != HKS_ANIMATION_SPLINE)
				continue;
			hks_stored_animation *s = NULL;
			if (hks_stored_read(an, NULL, &s, &err) != HKS_OK)
				continue;
			uint32_t n = (uint32_t)s->num_frames, T = (uint32_t)s->num_transform_tracks,
			         F = (uint32_t)s->num_float_tracks;
			float *tr = malloc(((size_t)n * T * HKS_TRACK_SAMPLE_FLOATS + 1) * sizeof(float));
			float *fl = malloc(((size_t)n * F + 1) * sizeof(float));
			if (tr && fl && hks_sample_frames(s, NULL, 0, n, tr, fl, &err) == HKS_OK) {
				hks_frames_in in = {n, T, F, s->duration, T ? tr : NULL, F ? fl : NULL};
				hks_encode_options o;
				memset(&o, 0, sizeof(o));
				o.sdk = ld->file->sdk;
				o.solver = solver;
				hks_packed_spline *p = NULL;
				double t0 = now_seconds(), c0 = cpu_seconds();
				hks_result r = hks_encode_spline(&in, &o, &p, &err);
				seconds += now_seconds() - t0;
				cpu += cpu_seconds() - c0;
				hks_packed_spline_free(p);
				if (r == HKS_OK) {
					animations++;
					track_samples += (uint64_t)n * T;
				} else {
					if (failures < 5) {
						char buf[1024];
						hks_error_format(&err, buf, sizeof(buf));
						fprintf(stderr, "hkspline bench encode: %s animation %u: %s\n", ld->path, a, buf);
					}
					failures++;
				}
			}
			free(tr);
			free(fl);
			hks_stored_free(s);
		}
		hks_loaded_free(ld);
	}
	report(json, animations, track_samples, seconds, cpu, failures);
	if (load_failures)
		fprintf(stderr, "hkspline bench encode: %llu file(s) failed to load\n", (unsigned long long)load_failures);
	status = failures || load_failures ? 1 : 0;
done:
	hks_loader_free(loader);
	free(paths);
	free(comps);
	return status;
}
