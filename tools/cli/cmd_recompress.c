/*
 * hkspline recompress IN [-o OUT.hkx] [--record OUT.rec] [--exact]
 *                        [--cpu auto|intel|amd-zen|exact] [--ladder N] [--no-zlib]
 *
 * Re-compression (docs/RECORD.md): every spline animation of every Havok file
 * found under IN is decoded, predicted by the encoder and compared with the
 * original; the reconstruction record holds what the prediction got wrong.
 *   -o        writes the file with every animation replaced by the predictor's
 *             own re-encode, or, with --exact, by prediction + record
 *             (applied to freshly decoded frames), which must give the
 *             original bytes: the written file is compared with the input.
 *   --record  writes the record file (one record per spline animation).
 * -o and --record need IN to be a single Havok file.
 * One line per file: animations, record bytes against data bytes, parts the
 * prediction reproduces, animations the prediction alone reproduces, and with
 * --exact the animations the record reproduces.
 */
#include "cli.h"
#include "cli_units.h"
#include "platform.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: hkspline recompress IN [-o OUT.hkx] [--record OUT.rec] [--exact]\n"
	        "                            [--cpu auto|intel|amd-zen|exact] [--ladder 1..%d] [--no-zlib]\n"
	        "                            [--compendium FILE|DIR]... [-j N]\n"
	        "Re-encodes every spline animation of IN from its decoded frames and measures the reconstruction\n"
	        "record that gives back the original bytes (docs/RECORD.md).\n"
	        "  IN               a Havok file, a binder or DCX, a folder, or BINDER:MEMBER\n"
	        "  --record R       write the record (encode --record R then keeps unedited parts' bytes)\n"
	        "  -o OUT.hkx       write the prediction; with --exact, prediction plus record (the original bytes)\n"
	        "  --cpu C          the rcpss model the original was made with (default auto: from the data)\n"
	        "  --ladder N       predictor tolerance steps per part (default 2)\n"
	        "  --no-zlib        record bodies stored, not coded\n"
	        "  -j N             worker threads over a folder (no -o, no --record)\n",
	        HKS_RECORD_LADDER_MAX);
}

/* Messages of one unit under -j (recompress over a folder): collected on the
 * worker thread and printed with the unit's line, in unit order; NULL (one
 * thread, or one file) prints at once. */
typedef struct rc_log {
	char *text;
	size_t len;
} rc_log;
static _Thread_local rc_log *rc_current_log;

#if defined(__GNUC__) || defined(__clang__)
static void rc_message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#endif
static void rc_message(const char *fmt, ...)
{
	char line[2200];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	rc_log *log = rc_current_log;
	if (!log) {
		fputs(line, stderr);
		return;
	}
	size_t len = strlen(line);
	char *p = (char *)realloc(log->text, log->len + len + 1);
	if (!p)
		return;
	memcpy(p + log->len, line, len + 1);
	log->text = p;
	log->len += len;
}

static void rc_print_error(const hks_error *err)
{
	char buf[2048];
	hks_error_format(err, buf, sizeof(buf));
	rc_message("hkspline: %s\n", buf);
}

/* Decode every frame of `a` (raw rotations): the frames `decode` writes. */
static int decode_frames(const hks_animation *a, hks_stored_animation **s, float **t, float **f, hks_frames_in *in)
{
	hks_error err;
	if (hks_stored_read(a, NULL, s, &err) != HKS_OK) {
		rc_print_error(&err);
		return 1;
	}
	size_t nf = (size_t)(*s)->num_frames;
	*t = (float *)calloc(nf * (size_t)(*s)->num_transform_tracks * HKS_TRACK_SAMPLE_FLOATS + 1, sizeof(float));
	*f = (float *)calloc(nf * (size_t)(*s)->num_float_tracks + 1, sizeof(float));
	if (!*t || !*f) {
		rc_message("hkspline recompress: out of memory\n");
		return 1;
	}
	if (hks_sample_frames(*s, NULL, 0, (uint32_t)nf, *t, *f, &err) != HKS_OK) {
		rc_print_error(&err);
		return 1;
	}
	memset(in, 0, sizeof(*in));
	in->num_frames = (uint32_t)nf;
	in->num_transform_tracks = (uint32_t)(*s)->num_transform_tracks;
	in->num_float_tracks = (uint32_t)(*s)->num_float_tracks;
	in->duration = a->duration;
	in->transforms = in->num_transform_tracks ? *t : NULL;
	in->floats = in->num_float_tracks ? *f : NULL;
	return 0;
}

typedef struct rc_totals {
	unsigned animations, prediction_exact, record_exact, verbatim, failed;
	uint64_t record_bytes, data_bytes, parts, parts_exact;
} rc_totals;

/* One animation: recompress; optionally apply and replace. 0 on success. */
static int recompress_animation(hks_file *file, uint32_t i, const hks_recompress_options *o, bool exact,
                                bool replace, rc_totals *n, hks_record_file_entry *entry)
{
	const hks_animation *a = &file->animations[i];
	hks_error err;
	uint8_t *rec = NULL;
	size_t rec_size = 0;
	hks_packed_spline *pred = NULL;
	hks_recompress_report rep;
	hks_recompress_options ao = *o;
	ao.animation_index = (int32_t)i;
	if (hks_recompress(a, &ao, &rec, &rec_size, &pred, &rep, &err) != HKS_OK) {
		rc_print_error(&err);
		n->failed++;
		return 1;
	}
	n->animations++;
	n->prediction_exact += (unsigned)rep.prediction_exact;
	n->verbatim += (unsigned)rep.verbatim_animation;
	n->record_bytes += rep.record_bytes;
	n->data_bytes += rep.data_bytes;
	n->parts += rep.parts;
	n->parts_exact += rep.parts_exact;
	hks_packed_spline *out = NULL;
	int status = 0;
	if (exact) {
		hks_stored_animation *s = NULL;
		float *t = NULL, *f = NULL;
		hks_frames_in in;
		if (decode_frames(a, &s, &t, &f, &in) == 0) {
			hks_record_apply_report ar;
			if (hks_recompress_apply(&in, rec, rec_size, o, &out, &ar, &err) == HKS_OK) {
				const hks_spline_header *h = &a->spline, *g = &out->header;
				bool same = h->data_size == g->data_size && !memcmp(h->data, g->data, h->data_size) &&
				            h->num_block_offsets == g->num_block_offsets &&
				            !memcmp(h->block_offsets, g->block_offsets, 4 * (size_t)h->num_block_offsets) &&
				            h->num_float_block_offsets == g->num_float_block_offsets &&
				            (!h->num_float_block_offsets ||
				             !memcmp(h->float_block_offsets, g->float_block_offsets, 4 * (size_t)h->num_float_block_offsets));
				n->record_exact += same ? 1u : 0u;
				if (!same) {
					rc_message("hkspline recompress: animation %u: the record does not reproduce the data\n", i);
					status = 1;
				}
			} else {
				rc_print_error(&err);
				status = 1;
			}
		} else {
			status = 1;
		}
		if (s)
			hks_stored_free(s);
		free(t);
		free(f);
	}
	if (status == 0 && replace && !exact && pred) {
		/* -o writes the prediction: say what it changed (docs/METRICS.md §5) */
		hks_stored_animation *s = NULL;
		float *t = NULL, *f = NULL;
		hks_frames_in in;
		if (decode_frames(a, &s, &t, &f, &in) == 0) {
			char label[64];
			snprintf(label, sizeof(label), "animation %u prediction", i);
			cli_print_encode_summary(stdout, label, &in, pred);
		}
		if (s)
			hks_stored_free(s);
		free(t);
		free(f);
	}
	if (status == 0 && replace) {
		const hks_packed_spline *use = exact ? out : pred;
		if (!use) {
			rc_message("hkspline recompress: animation %u: the predictor could not encode it\n", i);
			status = 1;
		} else if (hks_file_replace_spline(file, i, use->duration, &use->header, &err) != HKS_OK) {
			rc_print_error(&err);
			status = 1;
		}
	}
	if (out)
		hks_packed_spline_free(out);
	if (pred)
		hks_packed_spline_free(pred);
	if (entry) {
		entry->animation = i;
		entry->record = rec;
		entry->size = rec_size;
	} else {
		hks_buffer_free(NULL, rec, rec_size);
	}
	return status;
}

/* The line printed per file. */
static void rc_format_line(char *buf, size_t cap, const char *path, const rc_totals *n, bool exact)
{
	int k = snprintf(buf, cap,
	                 "%s: %u animations; record %llu B / data %llu B = %.2f %%; parts exact by prediction %llu / %llu "
	                 "(%.1f %%); animations exact by prediction %u",
	                 path, n->animations, (unsigned long long)n->record_bytes, (unsigned long long)n->data_bytes,
	                 n->data_bytes ? 100.0 * (double)n->record_bytes / (double)n->data_bytes : 0.0,
	                 (unsigned long long)n->parts_exact, (unsigned long long)n->parts,
	                 n->parts ? 100.0 * (double)n->parts_exact / (double)n->parts : 0.0, n->prediction_exact);
	size_t used = k > 0 ? ((size_t)k < cap ? (size_t)k : cap - 1) : 0;
	if (exact && used < cap)
		used += (size_t)snprintf(buf + used, cap - used, "; exact with record %u / %u", n->record_exact,
		                         n->animations);
	if (n->verbatim && used < cap)
		used += (size_t)snprintf(buf + used, cap - used, "; stored whole %u", n->verbatim);
	if (used < cap)
		snprintf(buf + used, cap - used, "\n");
}

/* -j N over a folder: a task per file on the worker pool, its line and its
 * messages handed back in file order (the output does not depend on -j). */
typedef struct rc_unit {
	rc_log log;
	char *line;
	int status;
} rc_unit;

typedef struct rc_job {
	hks_loader *loader;
	const hks_recompress_options *o;
	bool exact;
	rc_unit *units;
	int status;
} rc_job;

static void rc_work(void *ctx, size_t worker, size_t u)
{
	(void)worker;
	rc_job *J = (rc_job *)ctx;
	rc_unit *U = &J->units[u];
	rc_current_log = &U->log;
	hks_loaded *ld = NULL;
	hks_result r = hks_loader_load(J->loader, u, &ld);
	if (r != HKS_OK || !ld || ld->status != HKS_OK) {
		if (ld)
			rc_print_error(&ld->error);
		else
			rc_message("hkspline recompress: %s: %s\n", hks_loader_path(J->loader, u), hks_result_name(r));
		hks_loaded_free(ld);
		U->status = 1;
		rc_current_log = NULL;
		return;
	}
	hks_file *file = ld->file;
	rc_totals n;
	memset(&n, 0, sizeof(n));
	hks_recompress_options fo = *J->o;
	fo.sdk = file->sdk;
	fo.base.name = ld->path;
	for (uint32_t i = 0; i < file->num_animations; i++)
		if (file->animations[i].kind == HKS_ANIMATION_SPLINE)
			recompress_animation(file, i, &fo, J->exact, false, &n, NULL);
	if (n.failed || (J->exact && n.record_exact != n.animations))
		U->status = 1;
	size_t cap = strlen(ld->path) + 400;
	U->line = (char *)malloc(cap);
	if (U->line)
		rc_format_line(U->line, cap, ld->path, &n, J->exact);
	else
		U->status = 2;
	hks_loaded_free(ld);
	rc_current_log = NULL;
}

static void rc_deliver(void *ctx, size_t u)
{
	rc_job *J = (rc_job *)ctx;
	rc_unit *U = &J->units[u];
	if (U->log.text)
		fputs(U->log.text, stderr);
	if (U->line)
		fputs(U->line, stdout);
	if (U->status > J->status)
		J->status = U->status;
	free(U->log.text);
	free(U->line);
	U->log.text = U->line = NULL;
}

/* Write the re-compressed file and its record (either may be NULL) to temporaries, then rename
 * both: a failure before the renames leaves both targets as they were (src/io/atomic.c). */
static bool write_pair(const char *out_path, const uint8_t *out, size_t out_size, const char *rec_path,
                       const uint8_t *rec, size_t rec_size)
{
	const char *paths[2] = {out_path, rec_path};
	const uint8_t *bytes[2] = {out, rec};
	size_t sizes[2] = {out_size, rec_size};
	hks_atomic_file *files[2] = {NULL, NULL};
	hks_error err;
	bool ok = true;
	for (int k = 0; k < 2 && ok; k++) {
		if (!paths[k])
			continue;
		hks_atomic_options ao;
		memset(&ao, 0, sizeof(ao));
		ao.base.name = paths[k];
		if (hks_atomic_open(paths[k], &ao, &files[k], &err) != HKS_OK ||
		    hks_atomic_write(files[k], bytes[k], sizes[k], &err) != HKS_OK) {
			cli_print_error(&err);
			ok = false;
		}
	}
	for (int k = 0; k < 2; k++) {
		if (!files[k])
			continue;
		if (!ok)
			hks_atomic_abort(files[k]);
		else if (hks_atomic_commit(files[k], &err) != HKS_OK) {
			cli_print_error(&err);
			ok = false;
		}
		files[k] = NULL;
	}
	return ok;
}

/* Is IN up to one of its ':' an existing binder or DCX (BINDER:MEMBER)? */
/* IN's first `len` bytes as a string to free() (the path part of BINDER:MEMBER); NULL when out of memory. */
static char *input_prefix(const char *in, size_t len)
{
	char *prefix = (char *)malloc(len + 1);
	if (prefix) {
		memcpy(prefix, in, len);
		prefix[len] = 0;
	}
	return prefix;
}

static bool names_a_member(const char *in)
{
	bool found = false;
	for (const char *c = strchr(in, ':'); c && !found; c = strchr(c + 1, ':')) {
		char *prefix = input_prefix(in, (size_t)(c - in));
		if (!prefix)
			return false;
		found = cli_is_container_file(prefix);
		free(prefix);
	}
	return found;
}

static int recompress_main(int argc, char **argv, const char **compendiums)
{
	const char *in = NULL, *out_path = NULL, *rec_path = NULL;
	size_t num_compendiums = 0;
	bool exact = false;
	long jobs = 1;
	hks_recompress_options o;
	memset(&o, 0, sizeof(o));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--compendium") && i + 1 < argc) {
			compendiums[num_compendiums++] = argv[++i];
		} else if (!strcmp(a, "-o") && i + 1 < argc) {
			out_path = argv[++i];
		} else if (!strcmp(a, "--record") && i + 1 < argc) {
			rec_path = argv[++i];
		} else if (!strcmp(a, "--exact")) {
			exact = true;
		} else if (!strcmp(a, "--no-zlib")) {
			o.no_zlib = 1;
		} else if (!strcmp(a, "--cpu") && i + 1 < argc) {
			if (hks_cpu_model_parse(argv[++i], &o.cpu) != 0 || o.cpu == HKS_CPU_NATIVE) {
				fprintf(stderr, "hkspline recompress: --cpu %s: expected auto, intel, amd-zen or exact\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(a, "--ladder") && i + 1 < argc) {
			long v = atol(argv[++i]);
			if (v < 1 || v > HKS_RECORD_LADDER_MAX) {
				fprintf(stderr, "hkspline recompress: --ladder %s: expected 1..%d\n", argv[i], HKS_RECORD_LADDER_MAX);
				return 2;
			}
			o.ladder = (uint32_t)v;
		} else if ((!strcmp(a, "-j") || !strcmp(a, "--jobs") || (!strncmp(a, "-j", 2) && a[2])) &&
		           (a[2] || i + 1 < argc)) {
			const char *v = (a[1] == 'j' && a[2]) ? a + 2 : argv[++i];
			char *end = NULL;
			jobs = strtol(v, &end, 10);
			if (!v[0] || *end || jobs < 1 || jobs > 1024) {
				fprintf(stderr, "hkspline recompress: -j %s: expected 1..1024\n", v);
				return 2;
			}
		} else if (a[0] == '-' || in) {
			usage(stderr);
			return 2;
		} else {
			in = a;
		}
	}
	if (!in) {
		usage(stderr);
		return 2;
	}
	hks_load_options lo;
	memset(&lo, 0, sizeof(lo));
	lo.compendium_paths = compendiums;
	lo.num_compendium_paths = num_compendiums;
	hks_loader *loader = NULL;
	hks_error err;
	size_t only = SIZE_MAX; /* IN named one member of a binder (BINDER:MEMBER) */
	if (hks_loader_create(&lo, &loader, &err) != HKS_OK) {
		cli_print_error(&err);
		return 2;
	}
	hks_result added = hks_loader_add_path(loader, in, &err);
	if (added != HKS_OK) {
		/* not a file or folder: BINDER:MEMBER, as decode and encode --like take it (docs/CLI.md),
		 * when IN up to one of its ':' is a binder or DCX (a Windows path has a ':' too: a
		 * missing C:\x.hkx keeps its own error) */
		hks_loader_free(loader);
		loader = NULL;
		if (!names_a_member(in)) {
			cli_print_error(&err);
			return cli_input_status(added); /* a missing or unreadable IN: 1 */
		}
		if (hks_loader_create(&lo, &loader, &err) != HKS_OK) {
			cli_print_error(&err);
			return 2;
		}
		int opened = cli_open_unit(loader, in, "recompress", &only);
		if (opened != 0) {
			hks_loader_free(loader);
			return opened;
		}
	}
	if (out_path && rec_path && cli_same_target(out_path, rec_path)) {
		fprintf(stderr, "hkspline recompress: -o and --record name the same file (%s): one would overwrite the other\n",
		        rec_path);
		hks_loader_free(loader);
		return 2;
	}
	/* --record over the input (or the binder holding it) replaced the Havok file with its record,
	 * and -o over a binder / DCX input replaced the binder (its other members, names, DCX) with
	 * the bare .hkx, both with status 0. -o over a loose Havok file without --exact replaced it with the
	 * predictor's lossy re-encode, status 0 (session 24 new-user trial); with --exact it rewrites the same
	 * bytes in place (kept). */
	const char *clash = NULL;
	for (const char *c = in; c && !clash; c = strchr(c + 1, ':')) {
		char *prefix = input_prefix(in, c == in ? strlen(in) : (size_t)(c - in));
		if (!prefix)
			break;
		if (rec_path && cli_same_target(rec_path, prefix))
			clash = "--record names the input";
		else if (out_path && cli_same_target(out_path, prefix) && cli_is_container_file(prefix))
			clash = "-o names the binder / DCX holding the input (it would become a bare .hkx)";
		else if (out_path && !exact && cli_same_target(out_path, prefix))
			clash = "-o names the input and, without --exact, writes the predictor's lossy re-encode";
		free(prefix);
	}
	if (clash) {
		fprintf(stderr, "hkspline recompress: %s (%s): the input would be replaced; write elsewhere\n", clash, in);
		hks_loader_free(loader);
		return 2;
	}
	if (out_path && cli_is_container_file(out_path)) {
		/* -o writes a bare .hkx: over any binder or DCX it would lose that binder (a loose IN replaced a
		 * modder's working binder copy, session 18 new-user trial) */
		fprintf(stderr, "hkspline recompress: -o %s is a binder / DCX; -o writes a single .hkx: write elsewhere\n",
		        out_path);
		hks_loader_free(loader);
		return 2;
	}
	size_t units = only != SIZE_MAX ? 1 : hks_loader_count(loader);
	if ((out_path || rec_path) && units != 1) {
		fprintf(stderr, "hkspline recompress: -o and --record need exactly one Havok file (found %zu)\n", units);
		hks_loader_free(loader);
		return 2;
	}
	if (jobs > 1 && !out_path && !rec_path && only == SIZE_MAX) {
		rc_job job;
		memset(&job, 0, sizeof(job));
		job.loader = loader;
		job.o = &o;
		job.exact = exact;
		job.units = (rc_unit *)calloc(units ? units : 1, sizeof(rc_unit));
		if (!job.units) {
			hks_loader_free(loader);
			return 2;
		}
		cli_pool pool;
		memset(&pool, 0, sizeof(pool));
		pool.count = units;
		pool.threads = (size_t)jobs;
		pool.label = "files";
		pool.ctx = &job;
		pool.work = rc_work;
		pool.deliver = rc_deliver;
		cli_pool_run(&pool);
		free(job.units);
		hks_loader_free(loader);
		return job.status;
	}
	int status = 0;
	rc_totals all;
	memset(&all, 0, sizeof(all));
	for (size_t k = 0; k < units; k++) {
		size_t u = only != SIZE_MAX ? only : k;
		hks_loaded *ld = NULL;
		hks_result r = hks_loader_load(loader, u, &ld);
		if (r != HKS_OK || !ld || ld->status != HKS_OK) {
			if (ld)
				cli_print_error(&ld->error);
			else
				fprintf(stderr, "hkspline recompress: %s: %s\n", hks_loader_path(loader, u), hks_result_name(r));
			hks_loaded_free(ld);
			status = 1;
			continue;
		}
		/* IN a folder of one Havok file: the file is an input as much as IN itself (session 24 review) */
		if ((rec_path && cli_output_over_loaded(rec_path, ld, "recompress", "the input it re-compresses")) ||
		    (out_path && !exact &&
		     cli_output_over_loaded(out_path, ld, "recompress", "the input, and without --exact -o writes the "
		                                                        "predictor's lossy re-encode"))) {
			hks_loaded_free(ld);
			status = 2;
			break;
		}
		hks_file *file = ld->file;
		rc_totals n;
		memset(&n, 0, sizeof(n));
		hks_recompress_options fo = o;
		fo.sdk = file->sdk;
		fo.base.name = ld->path;
		hks_record_file_entry *entries =
			(hks_record_file_entry *)calloc(file->num_animations + 1u, sizeof(hks_record_file_entry));
		uint32_t num_entries = 0;
		if (!entries) {
			hks_loaded_free(ld);
			status = 2;
			break;
		}
		for (uint32_t i = 0; i < file->num_animations; i++) {
			if (file->animations[i].kind != HKS_ANIMATION_SPLINE)
				continue;
			if (recompress_animation(file, i, &fo, exact, out_path != NULL, &n,
			                         rec_path ? &entries[num_entries] : NULL) == 0 &&
			    rec_path)
				num_entries++;
			else if (rec_path && entries[num_entries].record)
				hks_buffer_free(NULL, (void *)entries[num_entries].record, entries[num_entries].size),
					entries[num_entries].record = NULL;
		}
		if (n.failed)
			status = 1;
		if ((out_path || rec_path) && n.animations == 0) {
			/* a skeleton or compendium: no record or file to make (encode refuses it too) */
			fprintf(stderr, "hkspline recompress: %s has no spline animation to re-compress; nothing written\n",
			        ld->path);
			status = 1;
		}
		{
			size_t cap = strlen(ld->path) + 400;
			char *line = (char *)malloc(cap);
			if (line) {
				rc_format_line(line, cap, ld->path, &n, exact);
				fputs(line, stdout);
				free(line);
			}
		}
		if (exact && n.record_exact != n.animations)
			status = 1;
		uint8_t *rec_bytes = NULL, *out_bytes = NULL;
		size_t rec_size = 0, out_size = 0;
		if (rec_path && status == 0 &&
		    hks_record_file_write(entries, num_entries, NULL, &rec_bytes, &rec_size, &err) != HKS_OK) {
			cli_print_error(&err);
			status = 1;
		}
		for (uint32_t e = 0; e < num_entries; e++)
			hks_buffer_free(NULL, (void *)entries[e].record, entries[e].size);
		free(entries);
		bool write_out = false;
		if (out_path && status == 0) {
			hks_write_options wo;
			memset(&wo, 0, sizeof(wo));
			wo.base.name = ld->path;
			if (hks_file_write(file, &wo, &out_bytes, &out_size, &err) != HKS_OK) {
				cli_print_error(&err);
				status = 1;
			} else {
				write_out = true; /* also when --exact finds a difference: the file shows it */
				if (exact && (out_size != ld->size || memcmp(out_bytes, ld->bytes, out_size) != 0)) {
					fprintf(stderr, "hkspline recompress: %s: the written file differs from the input\n", ld->path);
					status = 1;
					/* never over the input itself (-o IN --exact rewrites it only with the same bytes) */
					if (cli_same_target(out_path, ld->path))
						write_out = false;
				}
			}
		}
		/* the file and its record are one result: neither replaces its target unless both were made
		 * and written (a file that could not be written back, e.g. a reference the writer refuses,
		 * must not leave its record behind) */
		if ((out_path && !write_out) || (rec_path && !rec_bytes)) {
			if (status == 0)
				status = 1;
		} else if ((write_out || rec_bytes) &&
		    !write_pair(write_out ? out_path : NULL, out_bytes, out_size, rec_bytes ? rec_path : NULL, rec_bytes,
		                rec_size))
			status = 2; /* an output that cannot be written is fatal (docs/CLI.md "Exit statuses") */
		hks_buffer_free(NULL, out_bytes, out_size);
		hks_buffer_free(NULL, rec_bytes, rec_size);
		all.animations += n.animations;
		hks_loaded_free(ld);
	}
	hks_loader_free(loader);
	return status;
}

int cmd_recompress(int argc, char **argv)
{
	const char **compendiums = (const char **)calloc((size_t)argc + 1, sizeof(char *));
	if (!compendiums)
		return 2;
	int rc = recompress_main(argc, argv, compendiums);
	free(compendiums);
	return rc;
}
