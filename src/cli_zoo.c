/* cli_zoo.c - PLACEHOLDER until its issue lands. */
#include <stdio.h>

#include "cli.h"

int cli_zoo(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "dippm: 'zoo' is not built yet\n");
    return 5;
}
