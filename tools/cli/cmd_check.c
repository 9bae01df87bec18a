/* hkspline check: placeholder until its module lands (owner replaces this file). */
#include "cli.h"

int cmd_check(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "hkspline check: not implemented yet\n");
	return 2;
}
