/* gpu_targets.h - the rows of tests/data/gpu-targets.tsv (GPU[:PROFILE]
 * targets and the GPU and slice, or the whole error message, each must give),
 * read by test_gpu.c for the core parser and test_ui_screens.c for the
 * explorer's :gpu; tests/cli/gpu_targets.sh reads the same file for --gpu. */
#ifndef DIPPM_TEST_GPU_TARGETS_H
#define DIPPM_TEST_GPU_TARGETS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GPU_TARGETS_MAX 64

struct gpu_target_row {
    char spec[64];
    char gpu[64];      /* the GPU's table name, or "error" */
    char profile[400]; /* a profile, "full", "-" (none given), or the message */
};

/* Reads the table into rows; returns the number of rows, -1 if the file
 * cannot be read or a line is not SPEC<TAB>GPU<TAB>PROFILE. */
static int gpu_targets_load(struct gpu_target_row *rows, int max)
{
    const char *top = getenv("TOP_SRCDIR");
    char path[1024], line[600];
    snprintf(path, sizeof path, "%s/tests/data/gpu-targets.tsv", top && *top ? top : DIPPM_SRCDIR);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '#' || !line[0])
            continue;
        char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
        if (!t2 || n == max) {
            n = -1;
            break;
        }
        *t1 = *t2 = '\0';
        snprintf(rows[n].spec, sizeof rows[n].spec, "%s", line);
        snprintf(rows[n].gpu, sizeof rows[n].gpu, "%s", t1 + 1);
        snprintf(rows[n].profile, sizeof rows[n].profile, "%s", t2 + 1);
        n++;
    }
    fclose(f);
    return n;
}

#endif
