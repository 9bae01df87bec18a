#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "platform.h"

uint8_t *cli_read_file(const char *path, size_t *size)
{
	/* Only regular files (as the loader): a FIFO would block the open, /dev/zero never end.
	 * Bounded: a file over the limit is refused before anything is read. */
	hks_path_info st;
	if (hks_platform_stat(path, &st) != 0) {
		fprintf(stderr, "hkspline: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	if (st.kind != HKS_PATH_FILE) {
		fprintf(stderr, "hkspline: %s: not a regular file\n", path);
		return NULL;
	}
	if (st.size > CLI_MAX_INPUT_BYTES || st.size >= SIZE_MAX) {
		fprintf(stderr, "hkspline: %s: %llu bytes, over the input limit of %llu bytes\n", path,
		        (unsigned long long)st.size, (unsigned long long)CLI_MAX_INPUT_BYTES);
		return NULL;
	}
	FILE *f = hks_platform_fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "hkspline: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	/* the size known, one read; a file that grows meanwhile is read up to the limit */
	size_t cap = (size_t)st.size + 1, n = 0;
	uint8_t *buf = (uint8_t *)malloc(cap);
	if (!buf) {
		fclose(f);
		fprintf(stderr, "hkspline: %s: out of memory\n", path);
		return NULL;
	}
	for (;;) {
		if (n == cap) {
			if ((uint64_t)cap > CLI_MAX_INPUT_BYTES) {
				free(buf);
				fclose(f);
				fprintf(stderr, "hkspline: %s: over the input limit of %llu bytes\n", path,
				        (unsigned long long)CLI_MAX_INPUT_BYTES);
				return NULL;
			}
			size_t ncap = cap * 2;
			if ((uint64_t)ncap > CLI_MAX_INPUT_BYTES + 1)
				ncap = (size_t)CLI_MAX_INPUT_BYTES + 1;
			uint8_t *p = (uint8_t *)realloc(buf, ncap);
			if (!p) {
				free(buf);
				fclose(f);
				fprintf(stderr, "hkspline: %s: out of memory\n", path);
				return NULL;
			}
			buf = p;
			cap = ncap;
		}
		size_t k = fread(buf + n, 1, cap - n, f);
		n += k;
		if (k == 0)
			break;
	}
	bool bad = ferror(f) != 0;
	fclose(f);
	if (bad) {
		free(buf);
		fprintf(stderr, "hkspline: %s: read error\n", path);
		return NULL;
	}
	*size = n;
	return buf;
}

bool cli_parse_decimal(const char *s, double *out)
{
	/* [+-] digits [. digits] [(e|E) [+-] digits], at least one digit before the exponent */
	const char *p = s;
	if (*p == '+' || *p == '-')
		p++;
	size_t digits = 0;
	while (*p >= '0' && *p <= '9')
		p++, digits++;
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9')
			p++, digits++;
	}
	if (!digits)
		return false;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p)
		return false;
	char *end = NULL;
	double v = strtod(s, &end);
	if (end != p)
		return false;
	*out = v;
	return true;
}

bool cli_is_container_file(const char *path)
{
	hks_path_info st;
	if (hks_platform_stat(path, &st) != 0 || st.kind != HKS_PATH_FILE)
		return false;
	FILE *f = hks_platform_fopen(path, "rb");
	if (!f)
		return false;
	unsigned char m[8] = {0};
	size_t n = fread(m, 1, sizeof(m), f);
	fclose(f);
	hks_container c = hks_detect_container(m, n);
	return c == HKS_CONTAINER_BND4 || c == HKS_CONTAINER_DCX;
}

bool cli_write_file(const char *path, const void *data, size_t size)
{
	return cli_write_file_flags(path, data, size, 0);
}

/* Through a temporary file renamed over the target only on success (src/io/atomic.c):
 * a failed write leaves the target as it was. */
bool cli_write_file_flags(const char *path, const void *data, size_t size, uint32_t flags)
{
	hks_atomic_options ao;
	memset(&ao, 0, sizeof(ao));
	ao.base.name = path;
	ao.flags = flags;
	hks_error err;
	if (hks_write_file_atomic(path, data, size, &ao, &err) != HKS_OK) {
		cli_print_error(&err);
		return false;
	}
	return true;
}

bool cli_member_bytes(const hks_bnd4_entry *e, const uint8_t *data, size_t size, const hks_options *opts,
                      uint8_t **packed, size_t *packed_size)
{
	*packed = NULL;
	*packed_size = 0;
	if (!(e->flags & HKS_BND4_ENTRY_COMPRESSED) || hks_detect_container(data, size) == HKS_CONTAINER_DCX)
		return true;
	hks_dcx_info like;
	bool have_like = hks_dcx_read_info(e->data, (size_t)e->size, &like, NULL) == HKS_OK;
	hks_error err;
	if (hks_dcx_compress(data, size, have_like ? &like : NULL, opts, packed, packed_size, &err) != HKS_OK) {
		cli_print_error(&err);
		return false;
	}
	return true;
}

/* ---- loaders ---- */

hks_loader *cli_loader_open(const char *const *compendiums, size_t num_compendiums, const char *const *paths,
                            size_t num_paths, int *status)
{
	const hks_load_options lo = {.compendium_paths = compendiums, .num_compendium_paths = num_compendiums};
	hks_loader *loader = NULL;
	hks_error err;
	hks_result r = hks_loader_create(&lo, &loader, &err);
	if (r != HKS_OK) {
		cli_print_error(&err);
		if (status)
			*status = 2;
		return NULL;
	}
	for (size_t i = 0; i < num_paths; i++)
		if ((r = hks_loader_add_path(loader, paths[i], &err)) != HKS_OK) {
			cli_print_error(&err);
			hks_loader_free(loader);
			if (status)
				*status = cli_input_status(r);
			return NULL;
		}
	return loader;
}

/* ---- one input: a Havok file or BINDER:MEMBER ---- */

int cli_open_unit(hks_loader *loader, const char *in, const char *cmd, size_t *unit)
{
	/* hks_loader_open_unit (src/io/skeleton.c); its own refusals are named with the command */
	hks_error err;
	hks_result r = hks_loader_open_unit(loader, in, unit, &err);
	if (r == HKS_OK)
		return 0;
	if (!err.file[0] && (r == HKS_E_NOT_FOUND || r == HKS_E_ARGUMENT))
		fprintf(stderr, "hkspline %s: %s\n", cmd, err.message);
	else
		cli_print_error(&err);
	return cli_input_status(r);
}

void cli_print_load_failure(const hks_loader *loader, size_t unit, const hks_loaded *ld, hks_result r, const char *cmd)
{
	if (ld && ld->status != HKS_OK)
		cli_print_error(&ld->error);
	else
		fprintf(stderr, "hkspline %s: %s: %s\n", cmd, hks_loader_path(loader, unit), hks_result_name(r));
}

const char *cli_split_folder(const char *path, char *buf, size_t size)
{
	const char *sep = hks_platform_last_separator(path);
	if (!sep && HKS_PLATFORM_WINDOWS && path[0] && path[1] == ':') {
		snprintf(buf, size, "%.2s.", path); /* "C:name": the drive's current folder */
		return path + 2;
	}
	if (!sep) {
		snprintf(buf, size, ".");
		return path;
	}
	size_t keep = (size_t)(sep - path);
	if (keep == 0 || (HKS_PLATFORM_WINDOWS && keep == 2 && path[1] == ':'))
		keep++; /* the root */
	snprintf(buf, size, "%.*s", (int)keep, path);
	return sep + 1;
}

bool cli_same_target(const char *a, const char *b)
{
	if (!strcmp(a, b))
		return true;
	hks_path_info x, y;
	bool ex = hks_platform_stat(a, &x) == 0, ey = hks_platform_stat(b, &y) == 0;
	if (ex || ey)
		return ex && ey && x.kind == HKS_PATH_FILE && y.kind == HKS_PATH_FILE && x.dev == y.dev && x.ino == y.ino;
	char da[4096], db[4096];
	const char *ba = cli_split_folder(a, da, sizeof(da)), *bb = cli_split_folder(b, db, sizeof(db));
	bool same_name = HKS_PLATFORM_WINDOWS ? !strcasecmp(ba, bb) : !strcmp(ba, bb);
	return same_name && hks_platform_stat(da, &x) == 0 && hks_platform_stat(db, &y) == 0 && x.dev == y.dev &&
	       x.ino == y.ino;
}

bool cli_output_over_loaded(const char *out, const hks_loaded *ld, const char *cmd, const char *what)
{
	const char *disk = ld ? (ld->container_path ? ld->container_path : ld->path) : NULL;
	if (!out || !disk || !cli_same_target(out, disk))
		return false;
	fprintf(stderr, "hkspline %s: %s names %s (%s): it would be replaced by the output; write elsewhere\n", cmd, out,
	        what, ld->path);
	return true;
}

int cli_input_status(hks_result r)
{
	return r == HKS_E_ARGUMENT || r == HKS_E_NOMEM || r == HKS_E_INTERNAL ? 2 : 1;
}

void cli_write_quoted(FILE *out, const char *s, char quote)
{
	fputc(quote, out);
	for (; s && *s; s++) {
		if (*s == quote)
			fputc(quote, out);
		fputc(*s, out);
	}
	fputc(quote, out);
}

void cli_csv_quoted(FILE *out, const char *s) { cli_write_quoted(out, s, '"'); }

bool cli_parse_solver(const char *cmd, const char *value, hks_encode_solver *out)
{
	if (!strcmp(value, "havok"))
		*out = HKS_SOLVER_HAVOK;
	else if (!strcmp(value, "quality"))
		*out = HKS_SOLVER_QUALITY;
	else {
		fprintf(stderr, "hkspline %s: --solver takes havok or quality\n", cmd);
		return false;
	}
	return true;
}

void cli_print_error(const hks_error *err)
{
	char buf[2048];
	hks_error_format(err, buf, sizeof(buf));
	fprintf(stderr, "hkspline: %s%s\n", buf,
	        err->code == HKS_E_TRUNCATED ? " (the data end before what they describe: a truncated file, such as an "
	                                       "incomplete copy or extraction, or a damaged one)"
	                                     : "");
}

/* ---- JSON ---- */

void cli_json_init(cli_json *j, FILE *out, bool pretty)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
	j->pretty = pretty;
}

void cli_json_init_nested(cli_json *j, FILE *out, bool pretty, int depth)
{
	cli_json_init(j, out, pretty);
	j->depth = depth > 0 ? (depth < 63 ? depth : 63) : 0;
	/* the placing writer emits the separator and indentation before the value */
	j->after_key = true;
}

static void newline(cli_json *j)
{
	if (!j->pretty)
		return;
	fputc('\n', j->out);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->out);
}

static void before_value(cli_json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->depth > 0) {
		if (j->need_comma[j->depth])
			fputc(',', j->out);
		newline(j);
		j->need_comma[j->depth] = true;
	}
}

static void begin(cli_json *j, char c)
{
	before_value(j);
	fputc(c, j->out);
	if (j->depth < 63)
		j->depth++;
	j->need_comma[j->depth] = false;
}

static void end(cli_json *j, char c)
{
	bool had = j->need_comma[j->depth];
	if (j->depth > 0)
		j->depth--;
	if (had)
		newline(j);
	fputc(c, j->out);
	if (j->depth == 0)
		fputc('\n', j->out);
}

void cli_json_begin_object(cli_json *j) { begin(j, '{'); }
void cli_json_end_object(cli_json *j) { end(j, '}'); }
void cli_json_begin_array(cli_json *j) { begin(j, '['); }
void cli_json_end_array(cli_json *j) { end(j, ']'); }

static void write_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		default:
			if (*p < 0x20)
				fprintf(out, "\\u%04x", *p);
			else
				fputc(*p, out);
		}
	}
	fputc('"', out);
}

void cli_json_key(cli_json *j, const char *key)
{
	before_value(j);
	write_string(j->out, key);
	fputc(':', j->out);
	if (j->pretty)
		fputc(' ', j->out);
	j->after_key = true;
}

void cli_json_string(cli_json *j, const char *s)
{
	before_value(j);
	if (s)
		write_string(j->out, s);
	else
		fputs("null", j->out);
}

void cli_json_int(cli_json *j, long long v)
{
	before_value(j);
	fprintf(j->out, "%lld", v);
}

void cli_json_uint(cli_json *j, unsigned long long v)
{
	before_value(j);
	fprintf(j->out, "%llu", v);
}

void cli_json_bool(cli_json *j, bool v)
{
	before_value(j);
	fputs(v ? "true" : "false", j->out);
}

void cli_json_null(cli_json *j)
{
	before_value(j);
	fputs("null", j->out);
}

static bool nonfinite(cli_json *j, double v)
{
	if (isnan(v)) {
		fputs("\"nan\"", j->out);
		return true;
	}
	if (isinf(v)) {
		fputs(v > 0 ? "\"inf\"" : "\"-inf\"", j->out);
		return true;
	}
	return false;
}

void cli_json_f32(cli_json *j, float v)
{
	before_value(j);
	if (!nonfinite(j, v))
		fprintf(j->out, "%.9g", (double)v);
}

void cli_json_f64(cli_json *j, double v)
{
	before_value(j);
	if (!nonfinite(j, v))
		fprintf(j->out, "%.17g", v);
}

void cli_json_raw(cli_json *j, const char *token)
{
	before_value(j);
	fputs(token, j->out);
}

/* ---- compression statistics as JSON (keys: docs/METRICS.md §5) ---- */

void cli_stats_categories(const hks_spline_stats *s, cli_stats_category out[CLI_STATS_CATEGORIES])
{
	const cli_stats_category cats[CLI_STATS_CATEGORIES] = {
	    {"masks", "masks", s->masks},
	    {"knots", "knots", s->knots},
	    {"bounds", "bounds", s->bounds},
	    {"static_values", "static values", s->static_values},
	    {"control_points", "control points", s->control_points},
	    {"packed_quaternions", "packed quaternions", s->packed_quaternions},
	    {"padding", "padding", s->padding},
	    {"guard", "guard", s->guard}};
	memcpy(out, cats, sizeof(cats));
}

const char *cli_selector_name(unsigned s)
{
	static const char *const names[6] = {"Polar32",    "ThreeComp40", "ThreeComp48",
	                                     "ThreeComp24", "Straight16", "Uncompressed"};
	return s < 6 ? names[s] : NULL;
}

static const char *const stats_part_keys[4] = {"translation", "rotation", "scale", "float"};

static void json_u64_array(cli_json *j, const uint64_t *v, size_t n)
{
	cli_json_begin_array(j);
	for (size_t i = 0; i < n; i++)
		cli_json_uint(j, v[i]);
	cli_json_end_array(j);
}

void cli_json_spline_stats(cli_json *j, const hks_spline_stats *s)
{
	cli_json_begin_object(j);
	cli_json_key(j, "frames");
	cli_json_uint(j, s->frames);
	cli_json_key(j, "transform_tracks");
	cli_json_uint(j, s->transform_tracks);
	cli_json_key(j, "float_tracks");
	cli_json_uint(j, s->float_tracks);
	cli_json_key(j, "blocks");
	cli_json_uint(j, s->blocks);
	cli_json_key(j, "raw_size");
	cli_json_uint(j, s->raw_size);
	cli_json_key(j, "compressed_size");
	cli_json_uint(j, s->compressed_size);
	cli_json_key(j, "ratio");
	cli_json_f64(j, s->ratio);
	cli_json_key(j, "bytes");
	cli_json_begin_object(j);
	cli_stats_category cats[CLI_STATS_CATEGORIES];
	cli_stats_categories(s, cats);
	for (size_t i = 0; i < CLI_STATS_CATEGORIES; i++) {
		cli_json_key(j, cats[i].key);
		cli_json_uint(j, cats[i].bytes);
	}
	cli_json_key(j, "unaccounted");
	cli_json_int(j, s->unaccounted);
	cli_json_end_object(j);
	cli_json_key(j, "parts");
	cli_json_begin_object(j);
	for (int p = 0; p < 4; p++) {
		cli_json_key(j, stats_part_keys[p]);
		cli_json_begin_object(j);
		cli_json_key(j, "spline");
		cli_json_uint(j, s->spline_parts[p]);
		cli_json_key(j, "static");
		cli_json_uint(j, s->static_parts[p]);
		cli_json_key(j, "absent");
		cli_json_uint(j, s->absent_parts[p]);
		cli_json_key(j, "spline_lanes");
		cli_json_uint(j, s->spline_lanes[p]);
		cli_json_key(j, "static_lanes");
		cli_json_uint(j, s->static_lanes[p]);
		cli_json_key(j, "absent_lanes");
		cli_json_uint(j, s->absent_lanes[p]);
		cli_json_key(j, "control_points");
		cli_json_uint(j, s->control_point_count[p]);
		cli_json_key(j, "degrees");
		json_u64_array(j, s->degrees[p], 4);
		if (p != 1) {
			cli_json_key(j, "quantization_8bit");
			cli_json_uint(j, s->quantization_8bit[p]);
			cli_json_key(j, "quantization_16bit");
			cli_json_uint(j, s->quantization_16bit[p]);
		}
		cli_json_end_object(j);
	}
	cli_json_end_object(j);
	cli_json_key(j, "selectors");
	json_u64_array(j, s->selectors, 6);
	cli_json_key(j, "invalid_selectors");
	uint64_t bad = 0;
	for (int k = 6; k < 16; k++)
		bad += s->selectors[k];
	cli_json_uint(j, bad);
	cli_json_end_object(j);
}

/* ---- the per-animation summary of encode (docs/METRICS.md §5) ---- */

void cli_print_encode_summary(FILE *out, const char *label, const hks_frames_in *reference,
                              const hks_packed_spline *packed)
{
	hks_animation a = hks_animation_of_packed(packed);
	hks_stored_animation *s = NULL;
	hks_compare_result *r = NULL;
	float *t = NULL, *f = NULL;
	hks_error err;
	hks_error_clear(&err);
	if (hks_stored_read(&a, NULL, &s, &err) == HKS_OK) {
		size_t nf = (size_t)s->num_frames, T = (size_t)s->num_transform_tracks, F = (size_t)s->num_float_tracks;
		t = (float *)calloc(nf * T * HKS_TRACK_SAMPLE_FLOATS + 1, sizeof(float));
		f = (float *)calloc(nf * F + 1, sizeof(float));
		hks_frames_in b;
		memset(&b, 0, sizeof(b));
		b.num_frames = (uint32_t)nf;
		b.num_transform_tracks = (uint32_t)T;
		b.num_float_tracks = (uint32_t)F;
		b.duration = s->duration;
		b.transforms = T ? t : NULL;
		b.floats = F ? f : NULL;
		if (t && f && hks_sample_frames(s, NULL, 0, (uint32_t)nf, t, f, &err) == HKS_OK)
			hks_compare_frames(reference, &b, NULL, &r, &err);
	}
	if (r) {
		hks_spline_stats st;
		hks_spline_stats_compute(s, &st);
		char line[1024];
		hks_compare_summary_line(r, &st, NULL, line, sizeof(line));
		fprintf(out, "%s: %s\n", label, line);
	} else {
		char msg[1024];
		hks_error_format(&err, msg, sizeof(msg));
		fprintf(out, "%s: no error summary (%s)\n", label, msg);
	}
	hks_compare_result_free(r);
	free(t);
	free(f);
	hks_stored_free(s);
}
