/*
 * gnn_impl.h - what the forward pass (gnn.c) and the training pass
 * (gnn_train.c) share inside the GNN: the tensor order of the weight file
 * and the forward pass with the choice of node classes. Not for other
 * modules: they use gnn.h and gnn_train.h.
 */
#ifndef DIPPM_GNN_IMPL_H
#define DIPPM_GNN_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/gnn.h"

/* Tensor order (fixed; the weight file stores them in this order). */
enum { T_EMB_W, T_EMB_B, T_L0 }; /* then 2 per layer, then the heads */
enum { H_N1W, H_N1B, H_N2W, H_N2B, H_1W, H_1B, H_2W, H_2B, H_3W, H_3B, H_SKIP, H__COUNT };

static inline int head_idx(const struct gnn_model *m, int h)
{
    return T_L0 + 2 * m->arch.layers + h;
}

static inline const float *P(const struct gnn_model *m, int ti)
{
    return m->w + m->t[ti].off;
}

/* Readout width: mean, max, summed node correction S, graph features. */
static inline int readout_dim(const struct gnn_arch *a)
{
    return 2 * a->hidden + 1 + a->fg;
}

/* The forward pass; classes false gives every node its own class (the
 * backward pass needs every node's rows), key as gnn_forward_keyed's. */
void gnn_forward_impl(const struct gnn_model *m, const struct gnn_batch *b, struct gnn_work *w,
                      bool classes, uint64_t key);

#endif
