/*
 * gnn_train.h - training the GNN (gnn.h): the loss with its backward pass,
 * and Adam.
 *
 * Loss: mean over graphs of weight_g x squared log error on present (non-NaN)
 * targets plus share_weight x cross-entropy between the label's node shares
 * and the predicted share_i, plus an ordering penalty on pairs of graphs
 * (gnn_targets).
 */
#ifndef DIPPM_GNN_TRAIN_H
#define DIPPM_GNN_TRAIN_H

#include <stddef.h>

#include "core/gnn.h"

/* Training targets for a batch (standardised log targets). */
struct gnn_targets {
    const float *y;          /* n_graphs x GNN_T__COUNT log labels; NaN = missing */
    const float *weight;     /* n_graphs loss weights, or NULL = all 1 */
    const float *share;      /* n_nodes teacher shares, or NULL */
    const unsigned char *has_share; /* n_graphs flags, or NULL = all (if share) */
    float share_weight;
    /* Ordering pairs: graph fast[k] should not be predicted slower than
     * graph slow[k]; each excess e = y_lat(fast) - y_lat(slow) > 0 adds
     * order_weight e^2 (per graph of the batch) to the loss. */
    int n_pairs;
    const int *pair_fast, *pair_slow;
    float order_weight;
};

/* Forward + loss; if grad != NULL (n_params floats) also backward, with the
 * gradient ADDED to grad. Returns the loss (mean over graphs). Parts of the
 * loss go to *reg_loss (targets and ordering penalty) and *share_loss when
 * not NULL. */
double gnn_loss(const struct gnn_model *m, const struct gnn_batch *b,
                const struct gnn_targets *tg, struct gnn_work *w, float *grad,
                double *reg_loss, double *share_loss);

/* Adam with decoupled weight decay. */
struct gnn_adam {
    float *mom, *vel;
    size_t n;
    long t;
    float lr, beta1, beta2, eps, wd;
};
void gnn_adam_init(struct gnn_adam *a, size_t n, float lr);
void gnn_adam_step(struct gnn_adam *a, float *w, const float *g);
/* Zeroes every gradient but those of target t's output weights (its column
 * of the graph head's last layer and of the linear skip, and its bias):
 * training then moves only t's correction, and every other output of the
 * model stays exactly as it was. */
void gnn_grad_keep_target(const struct gnn_model *m, int t, float *grad);
void gnn_adam_fini(struct gnn_adam *a);

#endif
