/*
 * interval_gen.h - makes the interval table (interval.h) from the measured
 * rows, and checks it: `dippm calibrate --intervals DIR` writes
 * DIR/intervals.tsv and DIR/intervals.md with these (`make intervals`).
 */
#ifndef DIPPM_INTERVAL_GEN_H
#define DIPPM_INTERVAL_GEN_H

#include <stddef.h>

#include "lab/calib.h"
#include "core/interval.h"

/* How many held-out errors came from where. */
struct interval_counts {
    int calib;    /* fitted calibration rows, leave-one-source-family-out */
    int neusight; /* the measured dataset's rows, teacher */
    int resid;    /* the residual files' rows (validation sets no fit uses) */
};

/* Family names read from residual files, owned here (interval_names_fini). */
struct interval_names {
    char **v;
    int n;
};
void interval_names_fini(struct interval_names *nm);

/* Held-out errors: the fitted time and memory rows of set with their
 * leave-one-source-family-out prediction (calib_folds CF_FAMILY must have
 * run; rows without one are left out), then every row of the measured
 * dataset `neusight` (NULL: none) predicted by the teacher, then the n_resid
 * rows resid[] (interval_read_resid). Families point into set, where
 * resid's do, or are static. Malloc'd.
 *
 * RESID FORMAT (tools/validate_tp.py, validate_quant.py, validate_compile.py
 * --resid FILE: published rows no fit uses, each predicted by dippm): a
 * header line naming the columns, then tab-separated
 *   family target kind gpu precision runtime measured predicted
 * target "time" or "memory"; kind "pass" (one forward pass) or "generation"
 * (a multi-token generation); gpu, precision and runtime dippm names;
 * measured and predicted in one unit, a time (a rate's inverse) or a
 * memory, both > 0; further columns are ignored. Anything else (a header
 * that names other columns, an empty file) is an error naming FILE:LINE and
 * the field. */
enum status interval_collect(const struct calib_set *set, const char *neusight,
                             const struct interval_resid *resid, int n_resid,
                             struct interval_resid **out, int *n, struct interval_counts *cnt,
                             struct diag *d);
/* Reads the n_files residual files (RESID FORMAT) into *out (malloc'd, *n
 * rows), family names into *names; nothing on error. */
enum status interval_read_resid(const char *const *files, int n_files,
                                struct interval_resid **out, int *n,
                                struct interval_names *names, struct diag *d);

/* The markdown report: how the table was made (`command`, `inputs`), the
 * table, and leave-one-source-family-out coverage and median width per
 * target and runtime group and per family (malloc'd). */
char *interval_report(const struct interval_resid *res, int n, const struct interval_counts *cnt,
                      const struct interval_table *t, const char *command, const char *inputs,
                      size_t *len);

#endif
