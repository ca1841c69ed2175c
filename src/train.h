/*
 * train.h - turning dataset rows into GNN inputs and fitting the model.
 *
 * train_prepare builds every row's graph once per distinct model, binds the
 * row's batch, runs shape inference and computes the raw node and graph
 * features (gnn_features.h), the node adjacency and the log targets. The
 * prepared set is independent of any model, so several models (the random
 * split, each leave-one-family-out run) train on one prepared set; features
 * are normalised with the model's statistics when a mini-batch is built.
 *
 * train_fit: mini-batches of graphs, Adam, cosine learning-rate decay,
 * loss = squared error on standardised log targets + share cross-entropy.
 * Deterministic given the seed (shuffling and initialisation).
 */
#ifndef DIPPM_TRAIN_H
#define DIPPM_TRAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "dataset.h"
#include "gnn.h"
#include "gnn_features.h"

struct train_sample {
    int row;      /* dataset row */
    int n;        /* nodes */
    int adj;      /* index into train_set.adj */
    float *xn;    /* n x FEAT_NODE_DIM raw features */
    float xg[FEAT_GRAPH_DIM];
    float y[GNN_T__COUNT]; /* log targets; NaN = missing */
    float *share; /* n teacher shares or NULL */
};

struct train_set {
    int n;
    struct train_sample *s;
    int n_adj;
    struct gnn_features_adj *adj;
    long total_nodes;
};

/* Prepares every row of ds. Model specs that are relative paths are also
 * looked up under the source tree. A row whose model cannot be built or
 * inferred, or whose share count differs from the model's node count, is
 * an error naming the row. progress: messages on stderr. */
enum status train_prepare(const struct dataset *ds, struct train_set *ts, bool progress,
                          struct diag *d);
void train_set_fini(struct train_set *ts);

struct train_opts {
    int epochs;
    int batch_graphs;
    float lr;
    float share_weight;
    uint64_t seed;
    struct gnn_arch arch; /* hidden, layers, head_hidden used when not fine-tuning */
    bool progress;
};
void train_opts_default(struct train_opts *o);

/* Fits m on samples idx[0..n_idx). If fine_tune, m is an already trained
 * model whose normalisation is kept; otherwise m is allocated here with
 * normalisation statistics computed on these samples and initialised from
 * the seed. */
enum status train_fit(struct gnn_model *m, bool fine_tune, const struct train_set *ts,
                      const int *idx, int n_idx, const struct train_opts *o, struct diag *d);

/* Predictions in original units (ms, J, MiB) for samples idx: pred[i*3+t]. */
void train_predict(const struct gnn_model *m, const struct train_set *ts, const int *idx,
                   int n_idx, double *pred);

/* Spec resolution shared with the predictor: a model path as given, or,
 * when a "samples/NAME" path does not exist as given, NAME in the samples
 * directory (datafile.h). Returns spec itself or a path in buf. */
const char *train_resolve_spec(const char *spec, char *buf, size_t size);

#endif
