/* cli_layers.c - PLACEHOLDER until its issue lands. */
#include <stdio.h>

#include "cli.h"

int cli_layers(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "dippm: 'layers' is not built yet\n");
    return 5;
}
