/*
 * hkspline bench decode [--json] [--repeat N] [-j N] [--poses N] [--path auto|reference|sse2|avx2]
 *                       [--per-clip] [--compendium P]... PATH...
 *
 * Streams the units of the paths through the worker pool (cli_units.h): a
 * worker loads one file (not timed), then for every spline animation in it,
 * timed with CLOCK_MONOTONIC: the walk from bytes to the stored structure
 * (hks_stored_read) and the sampling of every frame of every track
 * (hks_sample_frames, frame mode), `repeat` times; then (timed apart) `poses`
 * poses of all tracks in time mode through hks_pose_at. The file is freed
 * before the worker takes the next one, so at most one file per worker is in
 * memory, whatever the folder's size. A track-sample is one transform track
 * at one frame: 10 floats, 40 bytes of output (the convention of the
 * Animation Compression Library). Float tracks are decoded but not counted.
 *
 * For a comparison with another decoder the command prints the counts and a
 * checksum of the output (docs/BENCHMARKS.md "Comparing with another
 * decoder"); --per-clip lists them per animation.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cli_units.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if !defined(_WIN32)
#include <sys/resource.h>
#endif

#include "platform.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: hkspline bench decode [--json] [--repeat N] [-j N] [--poses N] [--path auto|reference|sse2|avx2]\n"
	             "                             [--per-clip] [--compendium P]... PATH...\n"
	             "       hkspline bench encode [--json] [--solver havok|quality] [--compendium P]... PATH...\n"
	             "       hkspline bench encode --scaling [--json] [--solver havok|quality]\n"
	             "       hkspline bench recompress [--json] [--compendium P]... PATH...\n"
	             "  decode: walk + sample every frame of every spline animation found (files streamed, one per\n"
	             "  worker; loading not timed), then N poses per animation in time mode; reports ns per\n"
	             "  track-sample, MB/s of output, ns per pose, peak RSS and checksums of the output\n"
	             "  encode: re-encode the decoded frames of every spline animation found\n"
	             "  recompress: re-compress (prediction, inversion, record) every spline animation, single thread\n"
	             "  ('hkspline bench encode --help'; figures in docs/BENCHMARKS.md)\n");
}

static double now_seconds(void)
{
	return hks_platform_monotonic_seconds();
}

/* CPU time of the calling thread: on a shared machine it leaves out the time
 * the thread was preempted (wall time does not). */
static double thread_cpu_seconds(void)
{
#if defined(CLOCK_THREAD_CPUTIME_ID)
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
		return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
#endif
	return now_seconds();
}

/* Peak resident set of the process (bytes); 0 where the platform has no getrusage. */
static unsigned long long peak_rss_bytes(void)
{
#if defined(_WIN32)
	return 0;
#else
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
#if defined(__APPLE__)
	return (unsigned long long)ru.ru_maxrss; /* bytes there */
#else
	return (unsigned long long)ru.ru_maxrss * 1024ull; /* kilobytes on Linux */
#endif
#endif
}

/* FNV-1a over 32-bit words (docs/BENCHMARKS.md): the bit patterns of the
 * output floats, in output order. */
#define FNV_OFFSET 14695981039346656037ull
#define FNV_PRIME 1099511628211ull
static uint64_t fnv_words(uint64_t h, const float *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t w;
		memcpy(&w, &v[i], 4);
		h = (h ^ w) * FNV_PRIME;
	}
	return h;
}
static uint64_t fnv_u64(uint64_t h, uint64_t v)
{
	h = (h ^ (uint32_t)v) * FNV_PRIME;
	return (h ^ (uint32_t)(v >> 32)) * FNV_PRIME;
}

typedef struct bench_job {
	hks_loader *loader;
	long repeat;
	long poses;
	int path;
	bool per_clip;
	size_t threads;
	/* per worker: the output buffer, reused from file to file */
	float **buf;
	size_t *buf_cap;
	/* per unit */
	struct bench_unit *units;
	struct bench_totals *tot;
} bench_job;

typedef struct bench_unit {
	bool load_failed;
	uint32_t animations, decode_failures;
	uint64_t track_samples, poses;
	double walk_s, sample_s, pose_s;
	double cpu_s;                     /* thread CPU time of the walks and samplings */
	uint64_t frames_hash, poses_hash; /* FNV over the per-animation checksums, in file order */
	char *messages;                   /* errors and --per-clip lines, printed in order */
	size_t messages_len;
} bench_unit;

#if defined(__GNUC__) || defined(__clang__)
static void unit_printf(bench_unit *u, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#endif
static void unit_printf(bench_unit *u, const char *fmt, ...)
{
	char line[1400];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	size_t len = (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;
	char *p = realloc(u->messages, u->messages_len + len + 1);
	if (!p)
		return;
	memcpy(p + u->messages_len, line, len + 1);
	u->messages = p;
	u->messages_len += len;
}

static void unit_error(bench_unit *u, const char *path, const hks_error *err)
{
	char buf[1024];
	hks_error_format(err, buf, sizeof(buf));
	if (err->file[0]) /* the message names the file already */
		unit_printf(u, "E hkspline bench: %s\n", buf);
	else
		unit_printf(u, "E hkspline bench: %s: %s\n", path, buf);
}

/*
 * The worker's output buffer, reused from animation to animation and called
 * before the timed region. A new buffer is written once here: the first
 * write to each fresh page of an allocation is a page fault served by the
 * kernel (microseconds per page on a virtual machine), a cost of the
 * allocation, not of the decoder, which the timed sampling would otherwise
 * pay for every growth (skyrim/ in folder order regrew its buffer to several
 * megabytes many times). It grows by at least half, so a run of ever larger
 * clips reallocates a few times only.
 */
static float *worker_buffer(bench_job *J, size_t worker, size_t floats)
{
	if (floats > J->buf_cap[worker]) {
		size_t cap = J->buf_cap[worker] + J->buf_cap[worker] / 2;
		if (cap < floats)
			cap = floats;
		free(J->buf[worker]);
		J->buf[worker] = malloc(cap * sizeof(float));
		J->buf_cap[worker] = J->buf[worker] ? cap : 0;
		if (J->buf[worker])
			memset(J->buf[worker], 0, cap * sizeof(float));
	}
	return J->buf[worker];
}

static void bench_one(void *ctx, size_t worker, size_t index)
{
	bench_job *J = (bench_job *)ctx;
	bench_unit *u = &J->units[index];
	hks_loaded *ld = NULL;
	const char *path = hks_loader_path(J->loader, index);
	hks_result lr = hks_loader_load(J->loader, index, &ld);
	if (lr != HKS_OK || !ld || ld->status != HKS_OK) {
		u->load_failed = true;
		if (ld)
			unit_error(u, ld->path, &ld->error);
		else
			unit_printf(u, "E hkspline bench: %s: %s\n", path, hks_result_name(lr));
		if (ld)
			hks_loaded_free(ld);
		return;
	}
	const hks_file *f = ld->file;
	u->frames_hash = FNV_OFFSET;
	u->poses_hash = FNV_OFFSET;
	hks_sample_options so;
	memset(&so, 0, sizeof(so));
	so.path = J->path;
	for (uint32_t a = 0; a < f->num_animations; a++) {
		const hks_animation *an = &f->animations[a];
		if (an->kind != HKS_ANIMATION_SPLINE)
			continue;
		u->animations++;
		size_t frames = an->spline.num_frames > 0 ? (size_t)an->spline.num_frames : 0;
		size_t T = an->number_of_transform_tracks > 0 ? (size_t)an->number_of_transform_tracks : 0;
		size_t F = an->number_of_float_tracks > 0 ? (size_t)an->number_of_float_tracks : 0;
		float *out = worker_buffer(J, worker, frames * (T * HKS_TRACK_SAMPLE_FLOATS + F) + T * 10 + F + 1);
		if (!out) {
			unit_printf(u, "E hkspline bench: %s: out of memory\n", ld->path);
			u->decode_failures++;
			continue;
		}
		hks_error err;
		bool ok = true;
		uint64_t hash_frames = FNV_OFFSET;
		hks_stored_animation *s = NULL;
		for (long r = 0; r < J->repeat && ok; r++) {
			double c0 = thread_cpu_seconds();
			hks_walk_options wo;
			memset(&wo, 0, sizeof(wo));
			wo.animation_index = (int32_t)a;
			double t0 = now_seconds();
			hks_result wr = hks_stored_read(an, &wo, &s, &err);
			double t1 = now_seconds();
			u->walk_s += t1 - t0;
			if (wr != HKS_OK) {
				unit_error(u, ld->path, &err);
				ok = false;
				s = NULL;
				break;
			}
			size_t Ts = (size_t)s->num_transform_tracks, nf = (size_t)s->num_frames;
			float *fl = s->num_float_tracks > 0 ? out + nf * Ts * HKS_TRACK_SAMPLE_FLOATS : NULL;
			hks_result sr = hks_sample_frames(s, &so, 0, (uint32_t)nf, out, fl, &err);
			u->sample_s += now_seconds() - t1;
			u->cpu_s += thread_cpu_seconds() - c0;
			if (sr != HKS_OK) {
				unit_error(u, ld->path, &err);
				ok = false;
			} else {
				u->track_samples += (uint64_t)nf * Ts;
				if (r == 0)
					hash_frames = fnv_words(FNV_OFFSET, out, nf * Ts * HKS_TRACK_SAMPLE_FLOATS);
			}
			if (r + 1 < J->repeat || !ok) {
				hks_stored_free(s);
				s = NULL;
			}
		}
		if (!ok) {
			u->decode_failures++;
			hks_stored_free(s);
			continue;
		}
		/* time mode: `poses` poses at t = duration · (k + 1/2) / poses */
		uint64_t hash_poses = FNV_OFFSET;
		hks_pose_sampler *ps = NULL;
		if (J->poses > 0 && hks_pose_sampler_create(s, &so, &ps, &err) == HKS_OK) {
			size_t Ts = (size_t)s->num_transform_tracks;
			float *fl = s->num_float_tracks > 0 ? out + Ts * HKS_TRACK_SAMPLE_FLOATS : NULL;
			double pose_s = 0.0;
			for (long k = 0; k < J->poses && ok; k++) {
				float t = (float)((double)s->duration * ((double)k + 0.5) / (double)J->poses);
				double t0 = now_seconds();
				hks_result pr = hks_pose_at(ps, t, out, fl, &err);
				pose_s += now_seconds() - t0;
				if (pr != HKS_OK) {
					unit_error(u, ld->path, &err);
					ok = false;
				} else
					hash_poses = fnv_words(hash_poses, out, Ts * HKS_TRACK_SAMPLE_FLOATS);
			}
			u->pose_s += pose_s;
			u->poses += ok ? (uint64_t)J->poses : 0;
			hks_pose_sampler_free(ps);
		} else if (J->poses > 0) {
			unit_error(u, ld->path, &err);
			ok = false;
		}
		if (!ok)
			u->decode_failures++;
		u->frames_hash = fnv_u64(u->frames_hash, hash_frames);
		u->poses_hash = fnv_u64(u->poses_hash, hash_poses);
		if (J->per_clip)
			unit_printf(u, "C %s\t%u\t%d\t%d\t%016llx\t%016llx\n", ld->path, a, s->num_frames, s->num_transform_tracks,
			            (unsigned long long)hash_frames, (unsigned long long)hash_poses);
		hks_stored_free(s);
	}
	hks_loaded_free(ld);
}

typedef struct bench_totals {
	size_t files, load_failures, printed_errors;
	uint64_t animations, decode_failures, track_samples, poses;
	double walk_s, sample_s, pose_s, cpu_s;
	uint64_t frames_hash, poses_hash;
} bench_totals;

/* On the calling thread, in unit order: totals, checksums and messages never
 * depend on -j. */
static void bench_deliver(void *ctx, size_t index)
{
	bench_job *J = (bench_job *)ctx;
	bench_totals *t = J->tot;
	bench_unit *u = &J->units[index];
	t->files++;
	if (u->load_failed)
		t->load_failures++;
	t->animations += u->animations;
	t->decode_failures += u->decode_failures;
	t->track_samples += u->track_samples;
	t->poses += u->poses;
	t->walk_s += u->walk_s;
	t->sample_s += u->sample_s;
	t->pose_s += u->pose_s;
	t->cpu_s += u->cpu_s;
	if (!u->load_failed && u->animations) {
		t->frames_hash = fnv_u64(t->frames_hash, u->frames_hash);
		t->poses_hash = fnv_u64(t->poses_hash, u->poses_hash);
	}
	/* messages: "E ..." to stderr (the first few), "C ..." (per clip) to stdout */
	for (char *line = u->messages; line && *line;) {
		char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) + 1 : strlen(line);
		if (line[0] == 'C')
			fwrite(line + 2, 1, len - 2, stdout);
		else if (t->printed_errors++ < 5)
			fwrite(line + 2, 1, len - 2, stderr);
		line += len;
	}
	free(u->messages);
	u->messages = NULL;
}

static bool parse_long(const char *s, long lo, long hi, long *out)
{
	char *end = NULL;
	long v = strtol(s, &end, 10);
	if (!s[0] || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

static int bench_decode(int argc, char **argv)
{
	bool json = false, per_clip = false;
	long repeat = 1, jobs = 1, poses = 16;
	int path = HKS_SAMPLE_PATH_AUTO;
	const char **paths = calloc((size_t)argc + 1, sizeof(char *));
	const char **comps = calloc((size_t)argc + 1, sizeof(char *));
	size_t npaths = 0, ncomps = 0;
	if (!paths || !comps) {
		fprintf(stderr, "hkspline bench: out of memory\n");
		return 2;
	}
	int status = 2;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--json"))
			json = true;
		else if (!strcmp(a, "--per-clip"))
			per_clip = true;
		else if (!strcmp(a, "--repeat") && i + 1 < argc) {
			if (!parse_long(argv[++i], 1, 1000000, &repeat)) {
				fprintf(stderr, "hkspline bench: --repeat wants 1..1000000\n");
				goto done;
			}
		} else if (!strcmp(a, "--poses") && i + 1 < argc) {
			if (!parse_long(argv[++i], 0, 1000000, &poses)) {
				fprintf(stderr, "hkspline bench: --poses wants 0..1000000\n");
				goto done;
			}
		} else if ((!strcmp(a, "-j") || !strcmp(a, "--jobs")) && i + 1 < argc) {
			if (!parse_long(argv[++i], 1, 1024, &jobs)) {
				fprintf(stderr, "hkspline bench: -j wants 1..1024\n");
				goto done;
			}
		} else if (!strncmp(a, "-j", 2) && a[2]) {
			if (!parse_long(a + 2, 1, 1024, &jobs)) {
				fprintf(stderr, "hkspline bench: -j wants 1..1024\n");
				goto done;
			}
		} else if (!strcmp(a, "--path") && i + 1 < argc) {
			const char *v = argv[++i];
			if (!strcmp(v, "auto"))
				path = HKS_SAMPLE_PATH_AUTO;
			else if (!strcmp(v, "reference"))
				path = HKS_SAMPLE_PATH_REFERENCE;
			else if (!strcmp(v, "sse2"))
				path = HKS_SAMPLE_PATH_SSE2;
			else if (!strcmp(v, "avx2"))
				path = HKS_SAMPLE_PATH_AVX2;
			else {
				fprintf(stderr, "hkspline bench: --path takes auto, reference, sse2 or avx2\n");
				goto done;
			}
		} else if (!strcmp(a, "--compendium") && i + 1 < argc)
			comps[ncomps++] = argv[++i];
		else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			status = 0;
			goto done;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "hkspline bench: unknown option '%s'\n", a);
			usage(stderr);
			goto done;
		} else
			paths[npaths++] = a;
	}
	if (npaths == 0) {
		usage(stderr);
		goto done;
	}
	hks_loader *loader = cli_loader_open(comps, ncomps, paths, npaths, &status);
	if (!loader)
		goto done;
	size_t nunits = hks_loader_count(loader);
	bench_job job;
	memset(&job, 0, sizeof(job));
	job.loader = loader;
	job.repeat = repeat;
	job.poses = poses;
	job.path = path;
	job.per_clip = per_clip;
	job.threads = (size_t)jobs;
	job.buf = calloc(job.threads, sizeof(float *));
	job.buf_cap = calloc(job.threads, sizeof(size_t));
	job.units = calloc(nunits ? nunits : 1, sizeof(bench_unit));
	if (!job.buf || !job.buf_cap || !job.units) {
		fprintf(stderr, "hkspline bench: out of memory\n");
		hks_loader_free(loader);
		goto done;
	}
	bench_totals tot;
	memset(&tot, 0, sizeof(tot));
	job.tot = &tot;
	tot.frames_hash = FNV_OFFSET;
	tot.poses_hash = FNV_OFFSET;
	if (per_clip && !json)
		printf("# path\tanimation\tframes\ttracks\tframes_checksum\tposes_checksum\n");
	cli_pool pool;
	memset(&pool, 0, sizeof(pool));
	pool.count = nunits;
	pool.threads = job.threads;
	pool.label = "files";
	pool.ctx = &job;
	pool.work = bench_one;
	pool.deliver = bench_deliver;
	double w0 = now_seconds();
	cli_pool_run(&pool);
	double wall = now_seconds() - w0;
	double timed = tot.walk_s + tot.sample_s;
	uint64_t total = tot.track_samples; /* over all repeats */
	uint64_t per_pass = repeat ? tot.track_samples / (uint64_t)repeat : 0;
	double ns = total ? timed * 1e9 / (double)total : 0.0;
	double mbs = timed > 0 ? (double)total * 40.0 / timed / 1e6 : 0.0;
	double pose_ns = tot.poses ? tot.pose_s * 1e9 / (double)tot.poses : 0.0;
	unsigned long long rss = peak_rss_bytes();
	int used_path = hks_sample_path_resolve(path);
	char fh[17], ph[17];
	snprintf(fh, sizeof(fh), "%016llx", (unsigned long long)tot.frames_hash);
	snprintf(ph, sizeof(ph), "%016llx", (unsigned long long)tot.poses_hash);
	if (json) {
		cli_json j;
		cli_json_init(&j, stdout, false);
		cli_json_begin_object(&j);
		cli_json_key(&j, "files");
		cli_json_uint(&j, tot.files);
		cli_json_key(&j, "animations");
		cli_json_uint(&j, tot.animations);
		cli_json_key(&j, "track_samples");
		cli_json_uint(&j, per_pass);
		cli_json_key(&j, "repeat");
		cli_json_uint(&j, (unsigned long long)repeat);
		cli_json_key(&j, "ns_per_track_sample");
		cli_json_f64(&j, ns);
		cli_json_key(&j, "walk_ns_per_track_sample");
		cli_json_f64(&j, total ? tot.walk_s * 1e9 / (double)total : 0.0);
		cli_json_key(&j, "sample_ns_per_track_sample");
		cli_json_f64(&j, total ? tot.sample_s * 1e9 / (double)total : 0.0);
		cli_json_key(&j, "cpu_ns_per_track_sample");
		cli_json_f64(&j, total ? tot.cpu_s * 1e9 / (double)total : 0.0);
		cli_json_key(&j, "mb_per_s");
		cli_json_f64(&j, mbs);
		cli_json_key(&j, "poses");
		cli_json_uint(&j, tot.poses);
		cli_json_key(&j, "pose_ns");
		cli_json_f64(&j, pose_ns);
		cli_json_key(&j, "threads");
		cli_json_uint(&j, job.threads);
		cli_json_key(&j, "path");
		cli_json_string(&j, hks_sample_path_name(used_path));
		cli_json_key(&j, "wall_seconds");
		cli_json_f64(&j, wall);
		cli_json_key(&j, "peak_rss_bytes");
		cli_json_uint(&j, rss);
		cli_json_key(&j, "frames_checksum");
		cli_json_string(&j, fh);
		cli_json_key(&j, "poses_checksum");
		cli_json_string(&j, ph);
		cli_json_key(&j, "load_failures");
		cli_json_uint(&j, tot.load_failures);
		cli_json_key(&j, "decode_failures");
		cli_json_uint(&j, tot.decode_failures);
		cli_json_end_object(&j);
		printf("\n");
	} else {
		printf("files:               %zu\n", tot.files);
		printf("animations:          %llu\n", (unsigned long long)tot.animations);
		printf("track-samples:       %llu (x %ld repeats)\n", (unsigned long long)per_pass, repeat);
		printf("timed:               %.3f s (walk + sampling, summed over %zu thread%s; wall %.3f s with loading)\n",
		       timed, job.threads, job.threads == 1 ? "" : "s", wall);
		printf("ns per track-sample: %.2f (walk %.2f + sampling %.2f), path %s\n", ns,
		       total ? tot.walk_s * 1e9 / (double)total : 0.0, total ? tot.sample_s * 1e9 / (double)total : 0.0,
		       hks_sample_path_name(used_path));
		printf("thread CPU time:     %.2f ns per track-sample (walk + sampling, preemption left out)\n",
		       total ? tot.cpu_s * 1e9 / (double)total : 0.0);
		printf("output:              %.1f MB/s (40 bytes per track-sample)\n", mbs);
		printf("poses:               %llu, %.1f ns per pose of all tracks (time mode)\n",
		       (unsigned long long)tot.poses, pose_ns);
		printf("peak RSS:            %.1f MB\n", (double)rss / 1e6);
		printf("checksums:           frames %s, poses %s\n", fh, ph);
	}
	if (tot.load_failures || tot.decode_failures)
		fprintf(stderr, "hkspline bench: %zu files failed to load, %llu animation decodes failed\n", tot.load_failures,
		        (unsigned long long)tot.decode_failures);
	status = tot.load_failures || tot.decode_failures ? 1 : 0;
	for (size_t t = 0; t < job.threads; t++)
		free(job.buf[t]);
	free(job.buf);
	free(job.buf_cap);
	free(job.units);
	hks_loader_free(loader);
done:
	free(paths);
	free(comps);
	return status;
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
