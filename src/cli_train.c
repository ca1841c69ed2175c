/* cli_train.c - PLACEHOLDER until its issue lands. */
#include <stdio.h>

#include "cli.h"

int cli_train(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "dippm: 'train' is not built yet\n");
    return 5;
}
