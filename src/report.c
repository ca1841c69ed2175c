/* report.c - PLACEHOLDER report until predictions land. */
#include "report.h"

#include <stdio.h>

#include "load.h"

int report_main(const char *model)
{
    if (!model)
        model = model_default_path();
    if (!model) {
        fprintf(stderr, "dippm: no model given and the bundled default model was not found\n");
        return 3;
    }
    char *argv[] = {"info", (char *)model, NULL};
    extern int cli_info(int, char **);
    return cli_info(2, argv);
}
