/* The options check, stats and info share, parsed once (cli_units.h, docs/CLI.md). */
#define _POSIX_C_SOURCE 200809L
#include "cli_units.h"

#include <stdlib.h>
#include <string.h>
#include "platform.h"

/* Thread counts: 1 to 1024, the whole argument a decimal number. */
static bool parse_jobs(const char *s, long *out)
{
	char *end = NULL;
	long v = strtol(s, &end, 10);
	if (!s[0] || *end || v < 1 || v > 1024)
		return false;
	*out = v;
	return true;
}

static bool set_flag(const cli_flag *flags, const char *arg)
{
	for (const cli_flag *f = flags; f && f->name; f++)
		if (!strcmp(arg, f->name)) {
			*f->set = true;
			return true;
		}
	return false;
}

int cli_unit_args_parse(cli_unit_args *a, int argc, char **argv, const char *cmd, const cli_flag *flags,
                        void (*usage)(FILE *out))
{
	memset(a, 0, sizeof(*a));
	a->progress = true;
	/* every argument is at most one compendium or path: argc bounds both lists */
	a->compendiums = (const char **)calloc((size_t)argc + 1, sizeof(char *));
	a->paths = (const char **)calloc((size_t)argc + 1, sizeof(char *));
	if (!a->compendiums || !a->paths) {
		fprintf(stderr, "hkspline %s: out of memory\n", cmd);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(arg, "--json")) {
			a->json = true;
		} else if (!strcmp(arg, "--no-progress")) {
			a->progress = false;
		} else if (!strcmp(arg, "-j") || !strcmp(arg, "--jobs")) {
			if (i + 1 >= argc || !parse_jobs(argv[i + 1], &a->jobs)) {
				fprintf(stderr, "hkspline %s: %s needs a thread count from 1 to 1024\n", cmd, arg);
				return 2;
			}
			i++;
		} else if (!strncmp(arg, "-j", 2) && arg[2]) {
			if (!parse_jobs(arg + 2, &a->jobs)) {
				fprintf(stderr, "hkspline %s: bad thread count '%s'\n", cmd, arg + 2);
				return 2;
			}
		} else if (!strcmp(arg, "--compendium")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "hkspline %s: --compendium needs a file or folder\n", cmd);
				return 2;
			}
			a->compendiums[a->num_compendiums++] = argv[++i];
		} else if (!strcmp(arg, "--")) {
			for (i++; i < argc; i++)
				a->paths[a->num_paths++] = argv[i];
		} else if (set_flag(flags, arg)) {
			continue;
		} else if (arg[0] == '-' && arg[1]) {
			/* a lone "-" is a path like any other */
			fprintf(stderr, "hkspline %s: unknown option '%s'\n", cmd, arg);
			usage(stderr);
			return 2;
		} else {
			a->paths[a->num_paths++] = arg;
		}
	}
	if (!a->num_paths) {
		usage(stderr);
		return 2;
	}
	if (a->jobs == 0) {
		a->jobs = hks_platform_cpu_count();
	}
	return -1;
}

void cli_unit_args_free(cli_unit_args *a)
{
	free(a->compendiums);
	free(a->paths);
	a->compendiums = a->paths = NULL;
	a->num_compendiums = a->num_paths = 0;
}

hks_loader *cli_unit_loader(const cli_unit_args *a)
{
	return cli_loader_open(a->compendiums, a->num_compendiums, NULL, 0, NULL);
}
