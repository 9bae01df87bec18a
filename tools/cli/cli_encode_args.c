/*
 * The options `hkspline encode` takes whatever its input (decoded-frames JSON,
 * cmd_encode.c; glTF, cmd_gltf.c): the output and its container, the encoder's
 * parameters and the error control (docs/CLI.md "encode"). One parser, so that
 * both inputs spell, check and word them alike; each command keeps only what
 * is its own (its positional input, --animation, --help and glTF's --fps and
 * --untouched-tolerance).
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cli_donor.h"
#include "platform.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool cli_encode_args_init(cli_encode_args *a, int argc)
{
	memset(a, 0, sizeof(*a));
	a->rotq = HKS_ROT_THREECOMP40;
	a->cpu = HKS_CPU_AUTO;
	a->solver = HKS_SOLVER_HAVOK;
	a->compendiums = (const char **)calloc((size_t)argc + 1, sizeof(char *));
	bool ok = cli_error_control_init(&a->control, argc);
	return a->compendiums && ok;
}

void cli_encode_args_free(cli_encode_args *a)
{
	cli_error_control_free(&a->control);
	free(a->compendiums);
	a->compendiums = NULL;
}

/* A positive finite number. */
static bool positive_number(const char *s, float *out)
{
	double v = 0;
	if (!cli_parse_decimal(s, &v))
		return false;
	float f = (float)v; /* the option is a float: 1e39 would become inf, 1e-50 zero */
	if (!(f > 0) || !isfinite(f))
		return false;
	*out = f;
	return true;
}

bool cli_parse_rotation_quantization(const char *s, unsigned *selector)
{
	static const struct {
		const char *name;
		unsigned sel;
	} names[] = {{"40", HKS_ROT_THREECOMP40}, {"48", HKS_ROT_THREECOMP48}, {"24", HKS_ROT_THREECOMP24},
	             {"16", HKS_ROT_STRAIGHT16},  {"32", HKS_ROT_POLAR32},      {"uncompressed", HKS_ROT_UNCOMPRESSED}};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].name)) {
			*selector = names[i].sel;
			return true;
		}
	return false;
}

/* The tolerance an option sets: 0 T, 1 R, 2 S, 3 F, 4 all; -1 not a tolerance option. */
static int tolerance_slot(const char *a)
{
	static const char *const names[] = {"--translation-tolerance", "--rotation-tolerance", "--scale-tolerance",
	                                    "--float-tolerance", "--tolerance"};
	for (int k = 0; k < 5; k++)
		if (!strcmp(a, names[k]))
			return k;
	return -1;
}

int cli_encode_args_parse(cli_encode_args *e, int argc, char **argv, int *i)
{
	int ecr = cli_error_control_parse(&e->control, argc, argv, i);
	if (ecr != 0)
		return ecr;
	const char *a = argv[*i];
	bool has = *i + 1 < argc;
	const char *v = has ? argv[*i + 1] : NULL;
	int slot = tolerance_slot(a);
	if (!strcmp(a, "--no-backup")) {
		cli_into_no_backup = true;
		return 1;
	}
	if (!strcmp(a, "--continuity")) {
		e->continuity = true;
		return 1;
	}
	if (!strcmp(a, "--no-guard")) {
		e->unguarded = true;
		return 1;
	}
	if (!has)
		return 0; /* every other option takes a value: the command reports it incomplete */
	const char **text = !strcmp(a, "-o")         ? &e->out
	                    : !strcmp(a, "--like")     ? &e->like
	                    : !strcmp(a, "--skeleton") ? &e->skeleton
	                    : !strcmp(a, "--into")     ? &e->into
	                    : !strcmp(a, "--name")     ? &e->name
	                    : !strcmp(a, "--record")   ? &e->record_path
	                                               : NULL;
	if (text == &e->name) {
		/* a member name: not empty (it became the binder folder's prefix alone), no control
		 * characters (a newline in a binder's name list), not ending in a separator */
		size_t n = strlen(v);
		bool bad = n == 0 || v[n - 1] == '\\' || v[n - 1] == '/';
		for (size_t k = 0; k < n && !bad; k++)
			bad = (unsigned char)v[k] < 0x20 || v[k] == 0x7F;
		if (bad) {
			fprintf(stderr, "hkspline encode: --name wants a member file name (not empty, no control characters, "
			                "not ending in a separator)\n");
			return -1;
		}
		*text = v;
	} else if (text) {
		*text = v;
	} else if (!strcmp(a, "--compendium")) {
		e->compendiums[e->num_compendiums++] = v;
	} else if (slot >= 0) {
		float t;
		if (!positive_number(v, &t)) {
			fprintf(stderr, "hkspline encode: %s wants a positive number\n", a);
			return -1;
		}
		for (int k = 0; k < 4; k++)
			if (slot == 4 || slot == k)
				e->tol[k] = t;
	} else if (!strcmp(a, "--game")) {
		if (!strcmp(v, "sekiro"))
			e->sdk = "20160200";
		else if (!strcmp(v, "eldenring") || !strcmp(v, "elden-ring"))
			e->sdk = "20180100";
		else {
			fprintf(stderr, "hkspline encode: --game takes sekiro or eldenring\n");
			return -1;
		}
	} else if (!strcmp(a, "--degree")) {
		e->degree = atoi(v);
		if (e->degree < 1 || e->degree > 3) {
			fprintf(stderr, "hkspline encode: --degree takes 1, 2 or 3\n");
			return -1;
		}
	} else if (!strcmp(a, "--rotation-quantization")) {
		if (!cli_parse_rotation_quantization(v, &e->rotq)) {
			fprintf(stderr, "hkspline encode: --rotation-quantization takes 40, 48, 24, 16, 32 or uncompressed\n");
			return -1;
		}
		e->have_rotq = true;
	} else if (!strcmp(a, "--max-frames-per-block")) {
		e->max_frames_per_block = strtol(v, NULL, 10);
		if (e->max_frames_per_block < 2 || e->max_frames_per_block > 256) {
			fprintf(stderr, "hkspline encode: --max-frames-per-block takes 2 .. 256\n");
			return -1;
		}
	} else if (!strcmp(a, "--cpu")) {
		if (hks_cpu_model_parse(v, &e->cpu) != 0) {
			fprintf(stderr, "hkspline encode: --cpu takes auto, intel, amd-zen, native or exact\n");
			return -1;
		}
	} else if (!strcmp(a, "--solver")) {
		if (!cli_parse_solver("encode", v, &e->solver))
			return -1;
	} else {
		return 0;
	}
	(*i)++;
	return 1;
}

bool cli_encode_args_complete(const cli_encode_args *a, const char *in)
{
	const char *missing = !in                   ? "an input file (IN)"
	                      : !a->out             ? "-o OUT (the file written; with --into it is written too)"
	                      : a->into && !a->name ? "--name NAME (the member --into replaces or adds)"
	                      : a->name && !a->into ? "--into BINDER (the binder --name names a member of)"
	                                            : NULL;
	if (missing)
		fprintf(stderr, "hkspline encode: missing %s\n\n", missing);
	return !missing;
}

bool cli_encode_args_record_missing(const cli_encode_args *a)
{
	hks_path_kind kind = a->record_path ? hks_platform_path_kind(a->record_path) : HKS_PATH_FILE;
	if (kind == HKS_PATH_FILE)
		return false;
	fprintf(stderr, "hkspline encode: --record %s: %s (make it with: hkspline recompress ORIGINAL --record R)\n",
	        a->record_path, kind == HKS_PATH_NONE ? "no such file" : "not a regular file");
	return true;
}

bool cli_encode_args_clash(const cli_encode_args *a, const char *in)
{
	/* -o over the frames being encoded (or the record or skeleton read beside them) replaced that input
	 * with the .hkx, status 0 (session 24 new-user trial). -o naming --like ORIGINAL stays allowed: writing
	 * the edited clip over the working copy it came from is the modder's in-place edit, and ORIGINAL is
	 * read whole before anything is written. */
	const char *what = cli_same_target(a->out, in)                             ? "the input IN"
	                   : a->record_path && cli_same_target(a->out, a->record_path) ? "--record"
	                   : a->skeleton && cli_same_target(a->out, a->skeleton)       ? "--skeleton"
	                                                                               : NULL;
	for (size_t i = 0; !what && i < a->num_compendiums; i++)
		if (cli_same_target(a->out, a->compendiums[i]))
			what = "a --compendium file";
	hks_path_info st;
	if (!what && a->skeleton && hks_platform_stat(a->out, &st) == 0) {
		/* --skeleton a folder or binder: the file it resolves to (an existing -o only can be it) */
		hks_load_options lo;
		memset(&lo, 0, sizeof(lo));
		lo.compendium_paths = a->compendiums;
		lo.num_compendium_paths = a->num_compendiums;
		hks_loader *loader = NULL;
		hks_loaded *skel = NULL;
		hks_error err;
		if (hks_skeleton_load(&lo, a->skeleton, &loader, &skel, &err) == HKS_OK && skel &&
		    cli_same_target(a->out, skel->container_path ? skel->container_path : skel->path))
			what = "the skeleton file of --skeleton";
		hks_loaded_free(skel);
		hks_loader_free(loader);
	}
	if (what)
		fprintf(stderr, "hkspline encode: -o %s names %s: it would be replaced by the output; write elsewhere\n",
		        a->out, what);
	return what != NULL;
}

int cli_encode_write_file(const cli_encode_args *opt, hks_file *file, uint8_t **bytes, size_t *size)
{
	*bytes = NULL;
	*size = 0;
	if (opt->sdk && strcmp(opt->sdk, file->sdk) != 0)
		fprintf(stderr, "hkspline encode: warning: encoding for SDK %s into a file of SDK %s (its type table is kept)\n",
		        opt->sdk, file->sdk);
	/* -o over a binder (the one --like / --into read from, typically) replaced the whole binder
	 * with the bare .hkx, status 0 */
	if (cli_is_container_file(opt->out)) {
		fprintf(stderr,
		        "hkspline encode: -o %s is a binder / DCX: the output is a bare .hkx and would replace it; "
		        "write it elsewhere and use --into BINDER --name NAME to put it in the binder\n",
		        opt->out);
		return 2;
	}
	hks_write_options wo;
	memset(&wo, 0, sizeof(wo)); /* default allocator: the caller frees with hks_buffer_free(NULL, ...) */
	wo.base.name = opt->out;
	hks_error err;
	if (hks_file_write(file, &wo, bytes, size, &err) != HKS_OK) {
		cli_print_error(&err);
		return 1;
	}
	if (!cli_write_file(opt->out, *bytes, *size)) {
		hks_buffer_free(NULL, *bytes, *size);
		*bytes = NULL;
		*size = 0;
		return 2;
	}
	return 0;
}

int cli_encode_frames(const cli_encode_args *opt, const hks_frames_in *frames, const hks_encode_options *eo,
                      uint32_t animation, hks_packed_spline **packed)
{
	hks_error err;
	if (!opt->record_path) {
		if (hks_encode_spline(frames, eo, packed, &err) != HKS_OK) {
			cli_print_error(&err);
			return 1;
		}
		return 0;
	}
	/* the record of this animation in the record file: prediction + corrections; parts whose
	 * frames equal the original's get their original bytes, the others are fitted afresh
	 * (docs/RECORD.md) */
	size_t rsize = 0;
	uint8_t *rbytes = cli_read_file(opt->record_path, &rsize);
	hks_record_file_entry *entries = NULL;
	uint32_t count = 0;
	hks_options ro;
	memset(&ro, 0, sizeof(ro));
	ro.name = opt->record_path; /* messages name the record file */
	if (!rbytes || hks_record_file_read(rbytes, rsize, &ro, &entries, &count, &err) != HKS_OK) {
		if (rbytes)
			cli_print_error(&err);
		free(rbytes);
		return 1;
	}
	const hks_record_file_entry *e = NULL;
	for (uint32_t k = 0; k < count; k++)
		if (entries[k].animation == animation)
			e = &entries[k];
	hks_record_apply_report ar;
	hks_result rr = HKS_E_NOT_FOUND;
	if (!e)
		fprintf(stderr, "hkspline encode: %s holds no record of animation %u\n", opt->record_path, animation);
	else
		rr = hks_recompress_apply(frames, e->record, e->size, NULL, packed, &ar, &err);
	if (e && rr != HKS_OK) {
		if (!err.file[0])
			snprintf(err.file, sizeof(err.file), "record %s", opt->record_path);
		cli_print_error(&err);
	}
	if (rr == HKS_OK)
		fprintf(stderr, "hkspline encode: record: %llu of %llu corrected parts kept, %llu refitted%s\n",
		        (unsigned long long)ar.applied, (unsigned long long)ar.entries, (unsigned long long)ar.refitted,
		        ar.data_matches ? " (the original data)" : "");
	if (rr == HKS_OK && ar.entries && !ar.applied)
		fprintf(stderr,
		        "hkspline encode: warning: none of %s's corrected parts matched the frames: was it made from this "
		        "clip (hkspline recompress ORIGINAL --record R)? Expected only when every corrected part was "
		        "edited\n",
		        opt->record_path);
	hks_buffer_free(NULL, entries, count * sizeof(*entries));
	free(rbytes);
	return rr == HKS_OK ? 0 : 1;
}
