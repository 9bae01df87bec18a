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

#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out, "usage: hkspline recompress IN [-o OUT.hkx] [--record OUT.rec] [--exact]\n"
	             "                            [--cpu auto|intel|amd-zen|exact] [--ladder 1..%d] [--no-zlib]\n"
	             "                            [--compendium FILE|DIR]...\n",
	        HKS_RECORD_LADDER_MAX);
}

/* Decode every frame of `a` (raw rotations): the frames `decode` writes. */
static int decode_frames(const hks_animation *a, hks_stored_animation **s, float **t, float **f, hks_frames_in *in)
{
	hks_error err;
	if (hks_stored_read(a, NULL, s, &err) != HKS_OK) {
		cli_print_error(&err);
		return 1;
	}
	size_t nf = (size_t)(*s)->num_frames;
	*t = (float *)calloc(nf * (size_t)(*s)->num_transform_tracks * HKS_TRACK_SAMPLE_FLOATS + 1, sizeof(float));
	*f = (float *)calloc(nf * (size_t)(*s)->num_float_tracks + 1, sizeof(float));
	if (!*t || !*f) {
		fprintf(stderr, "hkspline recompress: out of memory\n");
		return 1;
	}
	if (hks_sample_frames(*s, NULL, 0, (uint32_t)nf, *t, *f, &err) != HKS_OK) {
		cli_print_error(&err);
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
		cli_print_error(&err);
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
					fprintf(stderr, "hkspline recompress: animation %u: the record does not reproduce the data\n", i);
					status = 1;
				}
			} else {
				cli_print_error(&err);
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
			fprintf(stderr, "hkspline recompress: animation %u: the predictor could not encode it\n", i);
			status = 1;
		} else if (hks_file_replace_spline(file, i, use->duration, &use->header, &err) != HKS_OK) {
			cli_print_error(&err);
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

static int recompress_main(int argc, char **argv, const char **compendiums)
{
	const char *in = NULL, *out_path = NULL, *rec_path = NULL;
	size_t num_compendiums = 0;
	bool exact = false;
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
	if (hks_loader_create(&lo, &loader, &err) != HKS_OK || hks_loader_add_path(loader, in, &err) != HKS_OK) {
		cli_print_error(&err);
		hks_loader_free(loader);
		return 2;
	}
	size_t units = hks_loader_count(loader);
	if ((out_path || rec_path) && units != 1) {
		fprintf(stderr, "hkspline recompress: -o and --record need exactly one Havok file (found %zu)\n", units);
		hks_loader_free(loader);
		return 2;
	}
	int status = 0;
	rc_totals all;
	memset(&all, 0, sizeof(all));
	for (size_t u = 0; u < units; u++) {
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
		printf("%s: %u animations; record %llu B / data %llu B = %.2f %%; parts exact by prediction %llu / %llu "
		       "(%.1f %%); animations exact by prediction %u",
		       ld->path, n.animations, (unsigned long long)n.record_bytes, (unsigned long long)n.data_bytes,
		       n.data_bytes ? 100.0 * (double)n.record_bytes / (double)n.data_bytes : 0.0,
		       (unsigned long long)n.parts_exact, (unsigned long long)n.parts,
		       n.parts ? 100.0 * (double)n.parts_exact / (double)n.parts : 0.0, n.prediction_exact);
		if (exact)
			printf("; exact with record %u / %u", n.record_exact, n.animations);
		if (n.verbatim)
			printf("; stored whole %u", n.verbatim);
		printf("\n");
		if (exact && n.record_exact != n.animations)
			status = 1;
		if (rec_path && status == 0) {
			uint8_t *bytes = NULL;
			size_t size = 0;
			if (hks_record_file_write(entries, num_entries, NULL, &bytes, &size, &err) != HKS_OK) {
				cli_print_error(&err);
				status = 1;
			} else {
				if (!cli_write_file(rec_path, bytes, size))
					status = 1;
				hks_buffer_free(NULL, bytes, size);
			}
		}
		for (uint32_t k = 0; k < num_entries; k++)
			hks_buffer_free(NULL, (void *)entries[k].record, entries[k].size);
		free(entries);
		if (out_path && status == 0) {
			hks_write_options wo;
			memset(&wo, 0, sizeof(wo));
			wo.base.name = ld->path;
			uint8_t *bytes = NULL;
			size_t size = 0;
			if (hks_file_write(file, &wo, &bytes, &size, &err) != HKS_OK) {
				cli_print_error(&err);
				status = 1;
			} else {
				if (exact && (size != ld->size || memcmp(bytes, ld->bytes, size) != 0)) {
					fprintf(stderr, "hkspline recompress: %s: the written file differs from the input\n", ld->path);
					status = 1;
				}
				if (!cli_write_file(out_path, bytes, size))
					status = 1;
				hks_buffer_free(NULL, bytes, size);
			}
		}
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
