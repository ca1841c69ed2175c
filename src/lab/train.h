/*
 * train.h - turning dataset rows into GNN inputs and fitting the model.
 *
 * train_prepare builds every row's graph once per distinct model, binds the
 * row's batch, runs shape inference and the teacher (the anchor of the GNN,
 * gnn.h) and computes the raw node and graph features (gnn_features.h), the
 * node adjacency and the log targets. The
 * prepared set is independent of any model, so several models (the random
 * split, each leave-one-family-out run) train on one prepared set; features
 * are normalised with the model's statistics when a mini-batch is built.
 *
 * train_fit: mini-batches of graphs, Adam, cosine learning-rate decay,
 * loss = squared log error (rows weighted: measured 1, teacher-labelled
 * teacher_weight when the data mixes both) + share cross-entropy.
 * Deterministic given the seed (shuffling and initialisation).
 */
#ifndef DIPPM_TRAIN_H
#define DIPPM_TRAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "lab/dataset.h"
#include "core/gnn.h"
#include "core/gnn_features.h"

struct train_sample {
    int row;      /* dataset row */
    int n;        /* nodes */
    int adj;      /* index into train_set.adj */
    bool measured; /* the row's labels are real measurements */
    float *xn;    /* n x FEAT_NODE_DIM raw features */
    float xg[FEAT_GRAPH_DIM];
    float *w0;    /* n teacher node time shares (the anchor, gnn.h) */
    float anchor[GNN_T__COUNT]; /* log teacher latency ms, energy J, memory MiB */
    float y[GNN_T__COUNT]; /* log targets; NaN = missing */
    float *share; /* n label shares or NULL */
    struct train_sample *partner; /* a configuration that should not be slower, or NULL */
    bool partner_slower;          /* the partner should not be faster instead */
};

struct train_set {
    int n;
    struct train_sample *s;
    int n_adj;
    struct gnn_features_adj *adj;
    long total_nodes;
    int n_partners;  /* samples with an ordering partner */
};

/* Prepares every row of ds. A hashed fraction pair_frac of the rows also
 * gets an ordering partner: the same model with one property changed
 * towards faster (half the batch, the whole GPU instead of a MIG slice, the
 * next lower precision, TensorRT instead of eager), kept when the teacher
 * agrees; train_fit penalises a partner predicted slower than its row.
 * all_kinds adds the next bigger slice, the next faster runtime (eager,
 * fused attention, TensorRT), a newer GPU and, for the lowest precisions,
 * the next higher precision as a partner that must not be faster.
 * Model specs that are relative paths are also looked up under the source tree. A row whose model cannot be built or
 * inferred, or whose share count differs from the model's node count, is
 * an error naming the row. progress: messages on stderr. */
enum status train_prepare(const struct dataset *ds, struct train_set *ts, double pair_frac,
                          bool all_kinds, bool progress, struct diag *d);
void train_set_fini(struct train_set *ts);

struct train_opts {
    int epochs;
    int batch_graphs;
    float lr;
    float share_weight;
    float teacher_weight; /* loss weight of teacher rows when measured rows are present */
    float order_weight;   /* weight of the ordering penalty on partner pairs */
    uint64_t seed;
    struct gnn_arch arch; /* hidden, layers, head_hidden used when not fine-tuning */
    int only_target;      /* -1: train every weight; else only that target's output
                             weights (gnn_grad_keep_target), the rest frozen */
    bool progress;
};
/* Defaults of train_opts_default that the CLI's help prints (cli_training.c). */
#define TRAIN_DEFAULT_SEED 1
#define TRAIN_DEFAULT_TEACHER_WEIGHT 0.1
#define TRAIN_DEFAULT_ORDER_WEIGHT 1
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
