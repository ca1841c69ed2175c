/*
 * accuracy.h - the accuracy figures the About screen shows, read from
 * weights/accuracy.tsv (written by tools/accuracy_tables.py with the tables
 * of weights/README.md, so that the screen parses no report at run time).
 * One line per figure: table, label, method, rows, MAPE, the bootstrap 95%
 * interval's low and high, the goal it is held to (percent; "-" for none).
 */
#ifndef DIPPM_UI_ACCURACY_H
#define DIPPM_UI_ACCURACY_H

#include <stddef.h>

#define ACC_NONE (-1.0) /* a "-" number: no interval, no goal */

struct acc_figure {
    const char *table, *label, *method; /* into acc_file.text */
    long rows;
    double mape, low, high, goal;       /* percent, or ACC_NONE */
};

struct acc_file {
    char *text;              /* the file, cut into fields */
    struct acc_figure *fig;
    int n;
};

/* Reads path strictly: comment lines (#) first, then the header line
 * exactly, then lines of 8 tab-separated fields with numbers where numbers
 * belong. On failure returns -1 with err saying which line and field, and
 * leaves *f empty. */
int acc_read(const char *path, struct acc_file *f, char *err, size_t errsize);

void acc_free(struct acc_file *f);

#endif
