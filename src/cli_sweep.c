/* cli_sweep.c - PLACEHOLDER until its issue lands. */
#include <stdio.h>

#include "cli.h"

int cli_sweep(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "dippm: 'sweep' is not built yet\n");
    return 5;
}
