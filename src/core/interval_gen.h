/*
 * interval_gen.h - makes the interval table (interval.h) from the measured
 * rows, and checks it: `dippm calibrate --intervals DIR` writes
 * DIR/intervals.tsv and DIR/intervals.md with these (`make intervals`).
 */
#ifndef DIPPM_INTERVAL_GEN_H
#define DIPPM_INTERVAL_GEN_H

#include <stddef.h>

#include "core/calib.h"
#include "core/interval.h"

/* Held-out errors: the fitted time and memory rows of set with their
 * leave-one-source-family-out prediction (calib_folds CF_FAMILY must have
 * run; rows without one are left out), then every row of the measured dataset `neusight`
 * (NULL: none) predicted by the teacher. Families point into set or are
 * static. *n_calib: how many came from set. Malloc'd. */
enum status interval_collect(const struct calib_set *set, const char *neusight,
                             struct interval_resid **out, int *n, int *n_calib, struct diag *d);

/* The markdown report: how the table was made (`command`, `inputs`), the
 * table, and leave-one-source-family-out coverage and median width per
 * target and runtime group and per family (malloc'd). */
char *interval_report(const struct interval_resid *res, int n, int n_calib,
                      const struct interval_table *t, const char *command, const char *inputs,
                      size_t *len);

#endif
