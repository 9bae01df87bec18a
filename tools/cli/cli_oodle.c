/*
 * --oodle PATH (issue 14): accepted by every command, anywhere on the command
 * line, and taken out of argv before the command parses its own options. The
 * process-wide DCX codec (hks_oodle_auto) loads the user's Oodle library on
 * the first KRAK payload: --oodle PATH, else HKSPLINE_OODLE, else a search of
 * the input's folder and its parents (docs/WINDOWS.md).
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static hks_oodle_auto *g_auto;

int cli_oodle_setup(int *argc, char **argv)
{
	const char *path = NULL;
	int w = 1;
	for (int i = 1; i < *argc; i++) {
		if (!strcmp(argv[i], "--")) { /* the rest are operands */
			while (i < *argc)
				argv[w++] = argv[i++];
			break;
		}
		if (!strcmp(argv[i], "--oodle")) {
			if (i + 1 >= *argc || !argv[i + 1][0]) {
				fprintf(stderr, "hkspline: --oodle needs the path of the Oodle library (oo2core_6_win64.dll)\n");
				return 2;
			}
			path = argv[++i];
			continue;
		}
		if (!strncmp(argv[i], "--oodle=", 8)) {
			path = argv[i] + 8;
			if (!*path) {
				fprintf(stderr, "hkspline: --oodle needs the path of the Oodle library (oo2core_6_win64.dll)\n");
				return 2;
			}
			continue;
		}
		argv[w++] = argv[i];
	}
	argv[w] = NULL;
	*argc = w;
	hks_error err;
	if (hks_oodle_auto_create(path, &g_auto, &err) != HKS_OK) {
		fprintf(stderr, "hkspline: %s\n", err.message);
		return 2;
	}
	hks_dcx_set_default_codec(hks_oodle_auto_codec(g_auto));
	return 0;
}

int cli_oodle_finish(int rc)
{
	/* KRAK without a usable library is a setup problem, like a missing file:
	 * status 2 even for the commands that report per-file failures with 1. */
	if (rc == 1 && hks_oodle_auto_missing(g_auto) > 0)
		rc = 2;
	hks_oodle_auto_free(g_auto);
	g_auto = NULL;
	return rc;
}
