/* cli_predict.c - PLACEHOLDER until its issue lands. */
#include <stdio.h>

#include "cli.h"

int cli_predict(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "dippm: 'predict' is not built yet\n");
    return 5;
}
