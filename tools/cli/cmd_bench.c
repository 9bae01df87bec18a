/* hkspline bench: placeholder until its module lands (owner replaces this file). */
#include "cli.h"

int cmd_bench(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "hkspline bench: not implemented yet\n");
	return 2;
}
