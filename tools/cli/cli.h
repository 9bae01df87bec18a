/* The hkspline command-line tool: shared declarations. Each subcommand lives in
 * its own cmd_<name>.c and is listed in main.c. */
#ifndef HKS_CLI_H
#define HKS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hkspline.h"

/* Subcommands: return the process exit status (0 ok, 1 failures found, 2 usage / fatal). */
int cmd_info(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_decode(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_repack(int argc, char **argv);
int cmd_bnd(int argc, char **argv);
int cmd_encode(int argc, char **argv);
int cmd_bench_encode(int argc, char **argv); /* `bench encode` (cmd_bench_encode.c) */
int cmd_bench_recompress(int argc, char **argv); /* `bench recompress` (cmd_bench_recompress.c) */
int cmd_stats(int argc, char **argv);
int cmd_error(int argc, char **argv);
int cmd_recompress(int argc, char **argv); /* cmd_recompress.c */
/* cli_oodle.c: --oodle PATH (any command) taken out of argv; the KRAK codec
 * installed. 0, or 2 on a usage error. cli_oodle_finish maps the command's
 * status (2 when a KRAK payload found no usable library). */
int cli_oodle_setup(int *argc, char **argv);
int cli_oodle_finish(int rc);

/* ---- small utilities (cli_util.c) ---- */

/* Inputs read whole by cli_read_file are refused above this size (the loader's default file limit). */
#define CLI_MAX_INPUT_BYTES HKS_DEFAULT_MAX_OUTPUT_BYTES
/* Read a whole file into malloc'd memory. Returns NULL and prints a message on failure. */
uint8_t *cli_read_file(const char *path, size_t *size);
/* Write a buffer to a file; false (with a message) on failure. */
bool cli_write_file(const char *path, const void *data, size_t size);
/* A number option's value in plain decimal notation ("12", "-0.5", "1e-3"): the whole text, no
 * leading space, no hexadecimal ("0x10" read 16), no "inf" or "nan" (strtod takes all three).
 * The caller checks the range. */
bool cli_parse_decimal(const char *s, double *out);
/* An existing file whose magic is a binder's or a DCX's ("BND4", "DCX\0"): a bare .hkx written
 * over it would lose the binder (encode -o, recompress -o refuse it). */
bool cli_is_container_file(const char *path);
/* The same with HKS_ATOMIC_* flags (HKS_ATOMIC_BACKUP keeps PATH.bak). */
bool cli_write_file_flags(const char *path, const void *data, size_t size, uint32_t flags);
/* The bytes to store for binder member `e` given a member file's `data`: for a member stored
 * DCX-compressed (HKS_BND4_ENTRY_COMPRESSED) and data that is no DCX, `data` compressed like the
 * member's DCX (*packed, freed with hks_buffer_free(NULL, ...)); else *packed is NULL and the data
 * is stored as given. false (message printed) when the compression fails. */
bool cli_member_bytes(const hks_bnd4_entry *e, const uint8_t *data, size_t size, const hks_options *opts,
                      uint8_t **packed, size_t *packed_size);
/* A loader that searches the `num_compendiums` compendium locations (--compendium)
 * and holds every unit of the `num_paths` PATHs; NULL after printing the first
 * error (a PATH that cannot be read is one), with the exit status it calls for in
 * *status when `status` is not NULL (cli_input_status). Keep both arrays alive until
 * the loader is freed. */
hks_loader *cli_loader_open(const char *const *compendiums, size_t num_compendiums, const char *const *paths,
                            size_t num_paths, int *status);
/*
 * Add IN to the loader and find its unit: IN itself when it holds one Havok
 * file, or BINDER:MEMBER (member by full name or base name, case-insensitive).
 * Returns 0 and *unit, or cli_input_status's status after printing why ("hkspline CMD: ...").
 */
int cli_open_unit(hks_loader *loader, const char *in, const char *cmd, size_t *unit);
/* The exit status of an input that failed with `r` (docs/CLI.md "Exit statuses"): 1 when the input
 * could not be read, parsed or resolved (a missing file or member, a damaged file, a compendium not
 * found), 2 for a usage error (an ambiguous member name), no memory or an internal failure. */
int cli_input_status(hks_result r);
/* Whether two output paths name one file: equal strings; one existing regular file (same
 * device and inode); or, when neither exists yet, the same name in the same folder however
 * the folder is spelled ("w/same.bin", "w/./same.bin", and on Windows "W\\SAME.BIN"). */
bool cli_same_target(const char *a, const char *b);
/* Whether `out` names the file on disk that `ld` was read from (a loaded skeleton, the unit of a folder), after
 * printing "hkspline CMD: -o OUT names WHAT (PATH) ..." : the caller refuses with exit 2 */
bool cli_output_over_loaded(const char *out, const hks_loaded *ld, const char *cmd, const char *what);
/* The folder of PATH into buf, as stat takes it: "." for a bare name, a root with its separator
 * ("/", "C:\\"), "C:." for Windows' "C:name" (the drive's current folder). Returns PATH's base
 * name. */
const char *cli_split_folder(const char *path, char *buf, size_t size);
/* Why unit `unit` did not load: its error record, else hks_loader_load's result `r` ("hkspline CMD: ..."). */
void cli_print_load_failure(const hks_loader *loader, size_t unit, const hks_loaded *ld, hks_result r, const char *cmd);
/* The one-line error summary `encode` prints per animation: the packed result
 * walked and sampled at every frame against the frames it was encoded from
 * (hks_compare_summary_line, docs/METRICS.md §5). */
/* encode's error-control options (--object-tolerance, --shell, --shell-override,
 * --bone-tolerance, --optimize, --report), shared by the JSON and the glTF paths
 * (cli_error_control.c). */
typedef struct cli_error_control_args {
	hks_error_control ctl;
	hks_error_control_report report;
	hks_bone_tolerance *bone_tols;
	hks_shell_override *shell_ovr;
	char **strings;
	size_t num_strings;
	bool use;          /* a control was asked for */
	bool print_report; /* --report */
} cli_error_control_args;
bool cli_error_control_init(cli_error_control_args *a, int argc);
void cli_error_control_free(cli_error_control_args *a);
/* argv[*i] one of the options: 1 (consumed; *i advanced past its value), -1 (a bad value,
 * printed), 0 (not one of them). */
int cli_error_control_parse(cli_error_control_args *a, int argc, char **argv, int *i);
/* Sets o->control when a control was asked for; false (printed) when it needs a skeleton and
 * there is none (`where` names where one was looked for). */
bool cli_error_control_attach(cli_error_control_args *a, hks_encode_options *o, const hks_skeleton *sk,
                              const int16_t *track_to_bone, uint32_t num_track_to_bone, const char *where);
/* After the encode: the error-control line(s); false when the bound was not met. */
bool cli_error_control_print(cli_error_control_args *a, const char *out_path);
/* The options encode takes from either input, JSON or glTF (cli_encode_args.c). */
typedef struct cli_encode_args {
	const char *out, *like, *skeleton, *into, *name, *record_path;
	const char *sdk;                 /* --game: the target SDK, NULL for the container's */
	const char **compendiums;        /* --compendium, in order */
	size_t num_compendiums;
	float tol[4];                    /* T, R, S, F; 0 = the original's or Havok's */
	int degree;                      /* 0 = the original's or Havok's */
	bool have_rotq;
	unsigned rotq;                   /* --rotation-quantization selector */
	long max_frames_per_block;       /* 0 = the original's */
	hks_cpu_model cpu;
	hks_encode_solver solver;
	bool continuity, unguarded;      /* --continuity, --no-guard */
	cli_error_control_args control;  /* --object-tolerance, --bone-tolerance, --optimize ... */
} cli_encode_args;
bool cli_encode_args_init(cli_encode_args *a, int argc);
void cli_encode_args_free(cli_encode_args *a);
/* argv[*i] one of the shared options: 1 (consumed, *i past its value), -1 (a bad value,
 * printed), 0 (not one of them, or its value is missing). */
int cli_encode_args_parse(cli_encode_args *a, int argc, char **argv, int *i);
bool cli_parse_rotation_quantization(const char *s, unsigned *selector);
/* Whether IN, -o and the --into / --name pair are all there; else false after saying which is
 * missing (the caller prints the usage). */
bool cli_encode_args_complete(const cli_encode_args *a, const char *in);
/* --record names no file: says so (before the input is read; a glTF import takes a while), true then
 * (exit status 1, a missing input) */
bool cli_encode_args_record_missing(const cli_encode_args *a);
/* Whether -o names IN, --record or --skeleton (after printing why): a usage error, exit 2 */
bool cli_encode_args_clash(const cli_encode_args *a, const char *in);
/* The encode itself: hks_encode_spline with eo, or with --record the record's entry for
 * `animation` applied to the frames (hks_recompress_apply). 0, or 1 (printed). */
int cli_encode_frames(const cli_encode_args *opt, const hks_frames_in *frames, const hks_encode_options *eo,
                      uint32_t animation, hks_packed_spline **packed);
/* After the encode: the warning when --game differs from the container's SDK, then the file
 * regenerated (hks_file_write) and written to opt->out (a temporary renamed over it). 0, and
 * *bytes (free with hks_buffer_free(NULL, ...)) for --into; else printed: 1 the file could not be
 * regenerated, 2 not written. */
int cli_encode_write_file(const cli_encode_args *opt, hks_file *file, uint8_t **bytes, size_t *size);
/* The error-control line(s) of encode (cli_error_control.c). */
void cli_print_error_control(FILE *out, const char *label, const hks_error_control *c,
                             const hks_error_control_report *r, bool per_track);
void cli_print_encode_summary(FILE *out, const char *label, const hks_frames_in *reference,
                              const hks_packed_spline *packed);
/* `s` between two `quote` characters, every inner `quote` doubled (the escape
 * of CSV fields, RFC 4180, and of gnuplot's single-quoted strings); NULL as
 * an empty quoted string. */
void cli_write_quoted(FILE *out, const char *s, char quote);
/* A CSV field: cli_write_quoted with double quotes. */
void cli_csv_quoted(FILE *out, const char *s);
/* --solver havok|quality of `encode` and `bench encode`; false after printing
 * "hkspline CMD: --solver takes havok or quality". */
bool cli_parse_solver(const char *cmd, const char *value, hks_encode_solver *out);
/* Print an hks_error to stderr as "hkspline: <formatted error>". */
void cli_print_error(const hks_error *err);

/* A minimal streaming JSON writer. Strings are escaped; non-finite floats are
 * written as the strings "nan", "inf", "-inf". */
typedef struct cli_json {
	FILE *out;
	int depth;
	bool need_comma[64];
	bool after_key;
	bool pretty;
} cli_json;

void cli_json_init(cli_json *j, FILE *out, bool pretty);
/* A writer for one value that another writer places later with cli_json_raw at
 * nesting depth `depth` (e.g. an array item rendered on a worker thread): the
 * value is written without a leading separator, indented for that depth. */
void cli_json_init_nested(cli_json *j, FILE *out, bool pretty, int depth);
void cli_json_begin_object(cli_json *j);
void cli_json_end_object(cli_json *j);
void cli_json_begin_array(cli_json *j);
void cli_json_end_array(cli_json *j);
void cli_json_key(cli_json *j, const char *key);
void cli_json_string(cli_json *j, const char *s);
void cli_json_int(cli_json *j, long long v);
void cli_json_uint(cli_json *j, unsigned long long v);
void cli_json_bool(cli_json *j, bool v);
void cli_json_null(cli_json *j);
/* %.9g (parses back to the same f32); non-finite as strings. */
void cli_json_f32(cli_json *j, float v);
/* %.17g for doubles; non-finite as strings. */
void cli_json_f64(cli_json *j, double v);
/* Raw pre-formatted token (a number or literal). */
void cli_json_raw(cli_json *j, const char *token);
/* The compression statistics object of `stats --json` and `info --json` (docs/METRICS.md §5). */
void cli_json_spline_stats(cli_json *j, const hks_spline_stats *s);

/* The byte categories of hks_spline_stats in report order (docs/METRICS.md §5):
 * JSON key, text label and byte count. */
enum { CLI_STATS_CATEGORIES = 8 };
typedef struct cli_stats_category {
	const char *key;
	const char *label;
	uint64_t bytes;
} cli_stats_category;
void cli_stats_categories(const hks_spline_stats *s, cli_stats_category out[CLI_STATS_CATEGORIES]);

/* The name of rotation selector code s (FORMAT.md §2.3: 0 Polar32 ... 5
 * Uncompressed); NULL for the invalid codes 6-15. */
const char *cli_selector_name(unsigned s);

#endif
