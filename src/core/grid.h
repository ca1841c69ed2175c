/*
 * grid.h - a two-dimensional sweep: predictions over the batch against the
 * precision or against the GPU's MIG slices (the explorer's heat map). The
 * slice axis is the MIG advisor's own (mig_advise at every batch), so each
 * cell's latency, memory and fit are those of the advisor and of `dippm
 * predict --gpu GPU:PROFILE`.
 */
#ifndef DIPPM_GRID_H
#define DIPPM_GRID_H

#include <stdbool.h>
#include <stdint.h>

#include "core/config.h"
#include "core/mig.h"
#include "core/predict.h"
#include "graph/ir/ir.h"

#define GRID_MAX_ROWS 32
#define GRID_MAX_COLS (MIG_MAX_PROFILES + 1) /* the slices and the whole GPU */

enum grid_axis { GRID_PRECISION, GRID_SLICE, GRID__AXES };

struct grid_cell {
    bool ok;   /* predicted; else the column's why says why not */
    bool fits; /* memory + headroom within the usable memory (fit_ok) */
    double latency_ms, throughput, memory_mib, usable_mib;
};

struct grid {
    enum grid_axis axis;
    int n_rows, n_cols;
    int64_t batch[GRID_MAX_ROWS];
    struct config col[GRID_MAX_COLS];          /* each column's configuration (batch aside) */
    char col_name[GRID_MAX_COLS][24];          /* "fp16", "3g.20gb", "full GPU" */
    char col_why[GRID_MAX_COLS][DIAG_MSG_MAX]; /* its first failure, "" if none */
    struct grid_cell cell[GRID_MAX_ROWS][GRID_MAX_COLS];
};

/* "precision" or "MIG slice". */
const char *grid_axis_name(enum grid_axis a);

/* Predicts cfg at every batch of batch[n_batch] (at most GRID_MAX_ROWS)
 * against every precision (cfg's GPU, slice and runtime) or every MIG
 * profile of cfg's GPU and the whole GPU (cfg's precision and runtime). A
 * cell that cannot be predicted (a precision the runtime does not run) is
 * left !ok with the reason in its column's why; only bad arguments fail.
 * g's bindings are left at the last cell. */
enum status grid_run(struct predictor *p, struct graph *g, const struct config *cfg,
                     enum grid_axis axis, const int64_t *batch, int n_batch, double headroom,
                     struct grid *out, struct diag *d);

#endif
