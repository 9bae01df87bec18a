/* hkspline info: placeholder until its module lands (owner replaces this file). */
#include "cli.h"

int cmd_info(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "hkspline info: not implemented yet\n");
	return 2;
}
