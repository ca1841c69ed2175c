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

/* The tensors in the weight file's order, which is fixed (layout() in
 * gnn.c adds them in this order and names them): the embedding's weight
 * and bias, a weight and a bias per message-passing layer, then the
 * heads' tensors (enum gnn_head_tensor). */
enum { TENSOR_EMBED_W, TENSOR_EMBED_B, TENSOR_LAYERS };

/* The heads' tensors after the layers', in order: the node head's MLP (a
 * score per node: H to H, relu, H to 1), the graph head's MLP (readout to
 * head_hidden, relu, head_hidden to head_hidden, relu, to one output per
 * target) and the linear skip from the readout to the outputs. */
enum gnn_head_tensor {
    NODE_MLP_W1,  /* node1.w */
    NODE_MLP_B1,  /* node1.b */
    NODE_MLP_W2,  /* node2.w */
    NODE_MLP_B2,  /* node2.b */
    GRAPH_MLP_W1, /* head1.w */
    GRAPH_MLP_B1, /* head1.b */
    GRAPH_MLP_W2, /* head2.w */
    GRAPH_MLP_B2, /* head2.b */
    GRAPH_MLP_W3, /* head3.w: the output layer */
    GRAPH_MLP_B3, /* head3.b */
    SKIP_W,       /* skip.w: the linear skip, no bias */
};

/* The tensor index of message-passing layer l's weight (mp<l>.w); its
 * bias (mp<l>.b) is the next. */
static inline int layer_tensor(int l)
{
    return TENSOR_LAYERS + 2 * l;
}

/* The tensor index of head tensor h. */
static inline int head_tensor(const struct gnn_model *m, enum gnn_head_tensor h)
{
    return layer_tensor(m->arch.layers) + (int)h;
}

/* Tensor ti's values in m->w (rows x cols, row-major). */
static inline const float *tensor_values(const struct gnn_model *m, int ti)
{
    return m->w + m->t[ti].off;
}

/* Head tensor h's values. */
static inline const float *head_values(const struct gnn_model *m, enum gnn_head_tensor h)
{
    return tensor_values(m, head_tensor(m, h));
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
