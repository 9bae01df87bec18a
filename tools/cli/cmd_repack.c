/* hkspline repack: placeholder until its module lands (owner replaces this file). */
#include "cli.h"

int cmd_repack(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "hkspline repack: not implemented yet\n");
	return 2;
}
