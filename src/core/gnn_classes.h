/*
 * gnn_classes.h - classes of nodes whose forward computation is the same.
 *
 * Two nodes of one graph with byte-identical normalised features compute the
 * same embedding; two nodes with the same embedding class whose predecessors
 * and successors, in CSR order, have the same classes compute the same first
 * layer, and so on (one refinement per message-passing layer, as in
 * Weisfeiler-Lehman colour refinement, but ordered: the aggregation sums
 * the neighbours in CSR order, so equal class sequences give equal floats).
 * gnn_forward computes each class once, on its representative (its first
 * node), and reads every node's values through its class: the result is the
 * per-node computation's, float for float, at the cost of one hash per node
 * and level. Repeated blocks (transformer layers, residual stages) make the
 * classes far fewer than the nodes.
 */
#ifndef DIPPM_GNN_CLASSES_H
#define DIPPM_GNN_CLASSES_H

#include "core/gnn.h"

/* Reserves room for n nodes, g graphs and levels + 1 levels. */
void gnn_classes_reserve(struct gnn_classes *c, size_t n, size_t g, int levels);
/* Every node its own class (what training uses: its backward pass needs
 * every node's values). */
void gnn_classes_identity(struct gnn_classes *c, const struct gnn_batch *b, int levels);
/* The classes of batch b (fn node features) for levels 0..levels. */
void gnn_classes_build(struct gnn_classes *c, const struct gnn_batch *b, int fn, int levels);
void gnn_classes_fini(struct gnn_classes *c);

#endif
