/*
 * calib_impl.h - internals shared by calib.c and calib_report.c.
 */
#ifndef DIPPM_CALIB_IMPL_H
#define DIPPM_CALIB_IMPL_H

#include "calib.h"
#include "ir.h"

#define CALIB_MAX_GRAPHS 256

/* One loaded graph, inferred for one (model, batch, seq) binding. */
struct calib_graph {
    int model;
    int64_t batch, seq;
    struct graph *g; /* NULL if this binding was rejected (err says why) */
    char err[600];
};

struct calib_graphs {
    char spec[CM__COUNT][1024];
    char err[CM__COUNT][600]; /* why a model's graph is unusable, "" if fine */
    int n;
    struct calib_graph g[CALIB_MAX_GRAPHS];
};

int calib_graph_index(const struct calib_graphs *cg, const struct calib_row *r);
const char *calib_model_name(int m);
/* The fitted knobs: count, name and value in p. */
int calib_knob_count(void);
const char *calib_knob_name(int k);
double calib_knob_value(const struct sim_params *p, int k);
void calib_knob_range(int k, double *lo, double *hi);

#endif
