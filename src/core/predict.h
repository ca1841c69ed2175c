/*
 * predict.h - ties graph + configuration + weights together: binds the batch,
 * re-runs shape inference, runs the teacher for the roofline bound and bound
 * classes, and the GNN for latency, energy, memory and per-node time shares.
 */
#ifndef DIPPM_PREDICT_H
#define DIPPM_PREDICT_H

#include "core/config.h"
#include "graph/ir/ir.h"
#include "core/sim.h"

struct predictor; /* opaque: loaded weights and scratch buffers */

struct prediction {
    double latency_ms;      /* GNN */
    double throughput;      /* samples/s = batch / latency */
    double energy_j;        /* per batch, GNN */
    double energy_mj_per_sample;
    double memory_mib;      /* peak device memory, GNN */
    double capacity_mib;    /* usable memory of the GPU or MIG slice */
    struct sim_result sim;  /* the teacher's figures (roofline, bounds, memory parts) */
    double *node_share;     /* n_nodes predicted time shares summing to 1 (malloc'd) */
    int n_nodes;
    bool from_gnn;          /* false if no weights were loaded: teacher figures only */
};

/* Loads weights from path (NULL: datafile_weights, i.e. $DIPPM_WEIGHTS, then
 * the weights directories of datafile.h). NULL on error with diag. */
struct predictor *predictor_new(const char *weights_path, struct diag *d);
/* ST_ENOMEM when the BLAS library's work buffer could not be allocated
 * (checked before its first use; predictor_new calls it, training must). */
enum status predict_blas_probe(struct diag *d);
void predictor_free(struct predictor *p);
/* A one-line description of the weights: name, label source and accuracy. */
const char *predictor_describe(const struct predictor *p);
/* The canonical path of the weight file p was loaded from. */
const char *predictor_path(const struct predictor *p);

/* Applies cfg->batch to g's batch symbol, runs graph_infer and fills hw
 * from cfg: predict_run's (and training's) first step. */
struct hw;
enum status predict_prepare(struct graph *g, const struct config *cfg, struct hw *hw,
                            struct diag *d);

/* The largest latency (ms), energy (J) and memory (MiB) the teacher may
 * give: past it (or not finite) the model's work has overflowed, and the
 * GNN, anchored on the teacher, would be driven out of its range too. */
#define PREDICT_TEACHER_MAX 1e24

/* ST_ENOMEM naming the model, the figure and the slowest node when the
 * teacher's result sr for g is past PREDICT_TEACHER_MAX or not finite, so
 * such a model is never blamed on the weights. predict_run and training
 * check every teacher run with it. */
enum status predict_teacher_check(const struct graph *g, const struct sim_result *sr,
                                  struct diag *d);

/* Applies cfg->batch to g's batch symbol, runs graph_infer, the teacher and
 * the GNN. p may be NULL (teacher only, from_gnn = false). out is always
 * initialised (also on error) and must be released with prediction_fini. */
enum status predict_run(struct predictor *p, struct graph *g, const struct config *cfg,
                        struct prediction *out, struct diag *d);
void prediction_fini(struct prediction *out);

/* The host's dispatch per op in microseconds that predict_run gives the
 * teacher for cfg: cfg->dispatch_us when set (eager runtimes), else the
 * calibrated one of cfg's runtime (sim_params dispatch_us). */
double predict_dispatch_us(const struct config *cfg);

#endif
