/* cli_eval.c - PLACEHOLDER until its issue lands. */
#include <stdio.h>

#include "cli.h"

int cli_eval(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "dippm: 'eval' is not built yet\n");
    return 5;
}
