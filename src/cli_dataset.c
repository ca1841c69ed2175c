/* cli_dataset.c - PLACEHOLDER until its issue lands. */
#include <stdio.h>

#include "cli.h"

int cli_dataset(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "dippm: 'dataset' is not built yet\n");
    return 5;
}
