/*
 * gnn_classes.h - classes of nodes whose GNN forward computation is the same.
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

#include <stddef.h>
#include <stdint.h>

#define GNN_CLASS_LEVELS 17

/* Level l's class of node i is cls[l * cap_n + i], class k's first node
 * rep[l * cap_n + k]; graph g's level-0 classes are coff[g]..coff[g+1]
 * (classes are numbered in order of first appearance). */
struct gnn_classes {
    size_t cap_n, cap_g, cap_lv, tab_mask;
    int *cls, *rep, *coff;
    int *tab;      /* open addressing: class + 1 (0 = empty) */
    uint32_t *tag; /* level 0: per class, a hash of its key */
    int *key;      /* levels 1..: per class, own class and side codes */
    uint64_t *hv;  /* level 0: per node, its row's hash (a first pass) */
    int n_cls[GNN_CLASS_LEVELS];
};

/* The batch as the classes see it (gnn.h's struct gnn_batch). */
struct gnn_classes_graph {
    int n_nodes, n_graphs, fn;
    const int *goff;
    const float *xn; /* n_nodes x fn */
    const int *pred_off, *pred, *succ_off, *succ;
};

/* Every node its own class, levels 0..levels (what training uses: its
 * backward pass needs every node's values). */
void gnn_classes_identity(struct gnn_classes *c, const struct gnn_classes_graph *g, int levels);
/* The classes of g for levels 0..levels (levels < GNN_CLASS_LEVELS). */
void gnn_classes_build(struct gnn_classes *c, const struct gnn_classes_graph *g, int levels);
void gnn_classes_fini(struct gnn_classes *c);

#endif
