/* cli_calibrate.c - PLACEHOLDER until its issue lands. */
#include <stdio.h>

#include "cli.h"

int cli_calibrate(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "dippm: 'calibrate' is not built yet\n");
    return 5;
}
