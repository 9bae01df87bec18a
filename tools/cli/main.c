/* hkspline: the command-line tool. Dispatches to one file per subcommand. */
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"

typedef struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} command;

static const command commands[] = {
	{"info", cmd_info, "describe containers, animations, bindings and skeletons"},
	{"check", cmd_check, "verify every spline animation found under the given paths"},
	{"decode", cmd_decode, "decode animations to frames (JSON, CSV, or glTF .glb/.gltf)"},
	{"bench", cmd_bench, "decode, encode and re-compression benchmarks (bench decode, bench encode, bench recompress)"},
	{"repack", cmd_repack, "decode to the stored structure and write it back"},
	{"encode", cmd_encode, "encode decoded frames (JSON) or a glTF animation into a Havok file"},
	{"bnd", cmd_bnd, "list, extract, replace and pack BND4 / DCX binders"},
	{"error", cmd_error, "compression error between two animations (local and object space)"},
	{"stats", cmd_stats, "compression statistics: ratio, bytes per category, lane counts"},
	{"recompress", cmd_recompress, "re-encode from decoded frames plus a reconstruction record, byte for byte"},
};

static void usage(FILE *out)
{
	fprintf(out, "hkspline %s: Havok spline-compressed animation codec\n\nusage: hkspline COMMAND [options]\n\ncommands:\n",
	        HKS_VERSION_STRING);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\nRun 'hkspline COMMAND --help' for a command's options (bench: 'hkspline bench encode --help',\n"
	             "glTF import: 'hkspline encode IN.glb --help'). See docs/CLI.md and docs/GLTF.md.\n");
}

/* Every command's output on stdout (JSON, text, `decode -o -`) is its result: when it could not
 * be written (a full disk, /dev/full, a closed pipe with SIGPIPE ignored), the command failed
 * even if everything else went well (docs/CLI.md: exit status 2, fatal error). */
static int finish_stdout(int status)
{
	errno = 0;
	bool flush_failed = fflush(stdout) != 0;
	if (flush_failed || ferror(stdout)) {
		if (status >= 2)
			return status; /* already reported (e.g. decode's "write error on -") */
		fprintf(stderr, "hkspline: error writing the standard output%s%s\n", flush_failed && errno ? ": " : "",
		        flush_failed && errno ? strerror(errno) : "");
		return 2;
	}
	return status;
}

/* SIGINT, SIGTERM, SIGHUP: the temporaries of writes in flight are removed, then the signal
 * ends the process as it would have (docs/RELIABILITY.md "Nothing destroyed"; the targets are
 * untouched either way; before, Ctrl-C in the middle of a write left .NAME.tmp-XXXXXX behind). */
static void on_terminating_signal(int sig)
{
	hks_atomic_remove_temporaries();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* `--compendium=P` is `--compendium P` (as `--oodle=P` is `--oodle P`, cli_oodle.c), and so for the
 * other path options every command spells alike (docs/CLI.md "Options"). The commands parse the
 * separate form only; the split argv lives until the process ends. */
static const char *const path_options[] = {"--compendium", "--skeleton", "--like", "--into", "--name", "--record"};

/* 0, or 2 after a usage message (an empty value: `--skeleton=`). Arguments after `--` are operands
 * and stay as they are. *split is the new argv to free (NULL when nothing was split). */
static int split_path_options(int *argc, char ***argv, char ***split)
{
	*split = NULL;
	int extra = 0;
	for (int i = 2; i < *argc && strcmp((*argv)[i], "--") != 0; i++)
		for (size_t k = 0; k < sizeof(path_options) / sizeof(path_options[0]); k++) {
			size_t n = strlen(path_options[k]);
			if (!strncmp((*argv)[i], path_options[k], n) && (*argv)[i][n] == '=') {
				if (!(*argv)[i][n + 1]) {
					fprintf(stderr, "hkspline %s: %s wants a value\n", (*argv)[1], (*argv)[i]);
					return 2;
				}
				extra++;
			}
		}
	if (!extra)
		return 0;
	char **out = (char **)calloc((size_t)*argc + (size_t)extra + 1, sizeof(char *));
	if (!out) {
		fprintf(stderr, "hkspline: out of memory\n");
		return 2;
	}
	int w = 0;
	bool operands = false;
	for (int i = 0; i < *argc; i++) {
		char *a = (*argv)[i];
		out[w++] = a;
		if (i >= 2 && !strcmp(a, "--"))
			operands = true;
		for (size_t k = 0; i >= 2 && !operands && k < sizeof(path_options) / sizeof(path_options[0]); k++) {
			size_t n = strlen(path_options[k]);
			if (!strncmp(a, path_options[k], n) && a[n] == '=') {
				a[n] = '\0'; /* argv's strings are writable (C11 5.1.2.2.1) */
				out[w++] = a + n + 1;
				break;
			}
		}
	}
	out[w] = NULL;
	*argc = w;
	*argv = out;
	*split = out;
	return 0;
}

/* Windows' command line reads \" as a quote inside an argument: "My Mods\" (a folder as cmd and
 * PowerShell complete it) swallows the closing quote and the next argument. A failed command whose
 * arguments hold a '"' says so (session 19 Windows trial: "cannot create folder" and no hint). */
static void quote_hint(int argc, char **argv)
{
	for (int i = 2; i < argc; i++)
		if (strchr(argv[i], '"')) {
			fprintf(stderr,
			        "hkspline: note: argument %d holds a '\"' (%s): a quoted path ending in a backslash, as in "
			        "\"My Mods\\\", ends in \\\" on Windows, which keeps the quote; drop the last backslash "
			        "(\"My Mods\")\n",
			        i - 1, argv[i]);
			return;
		}
}

int main(int argc, char **argv)
{
	hks_platform_init_process(&argc, &argv);
	signal(SIGINT, on_terminating_signal);
	signal(SIGTERM, on_terminating_signal);
#ifdef SIGHUP
	signal(SIGHUP, on_terminating_signal);
#endif
#ifdef SIGXFSZ
	/* A file-size limit (ulimit -f) must fail the write (EFBIG), not kill the process: the
	 * atomic writer then removes its temporary and reports (docs/RELIABILITY.md "Nothing
	 * destroyed"); killed, it left a .NAME.tmp-XXXXXX beside every target. */
	signal(SIGXFSZ, SIG_IGN);
#endif
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return finish_stdout(0);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("hkspline %s\n", HKS_VERSION_STRING);
		return finish_stdout(0);
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name)) {
			if (cli_oodle_setup(&argc, argv) != 0)
				return 2;
			char **split = NULL;
			if (split_path_options(&argc, &argv, &split) != 0)
				return 2;
			int status = finish_stdout(cli_oodle_finish(commands[i].run(argc - 1, argv + 1)));
			if (status != 0 && HKS_PLATFORM_WINDOWS)
				quote_hint(argc, argv);
			free(split);
			return status;
		}
	fprintf(stderr, "hkspline: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return 2;
}
