/* hkspline decode: placeholder until its module lands (owner replaces this file). */
#include "cli.h"

int cmd_decode(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "hkspline decode: not implemented yet\n");
	return 2;
}
