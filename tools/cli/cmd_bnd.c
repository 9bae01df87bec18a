/* hkspline bnd: placeholder until its module lands (owner replaces this file). */
#include "cli.h"

int cmd_bnd(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "hkspline bnd: not implemented yet\n");
	return 2;
}
