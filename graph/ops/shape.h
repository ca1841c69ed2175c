/*
 * shape.h - shape inference and cost for a whole graph under the current
 * symbol bindings.
 *
 * graph_infer walks the topological order: resolves graph-input dims from
 * symbols, folds constant shape subgraphs (Shape -> Gather -> Concat ->
 * Reshape, Range, Expand, ConstantOfShape), infers every output shape and
 * dtype, computes each node's cost (ir.h struct node_cost) and the graph
 * totals including the liveness peak. Re-run after every graph_sym_set.
 *
 * An op without shape support marks its node NODE_UNSUPPORTED and the nodes
 * downstream NODE_UNKNOWN_INPUT; totals count them (n_unsupported, n_unknown)
 * and are never silently zero. A genuine inconsistency (mismatched dims, a
 * bound input size that the model cannot take) returns ST_ESHAPE with the
 * node's name and what was expected; inference still walks the rest of the
 * graph (the failing node is marked NODE_UNSUPPORTED with the message in its
 * note) so totals and tables show everything else.
 *
 * Per node, node->note says why it is not counted or carries a caveat (a
 * data-dependent length reported as its upper bound). Per value,
 * value->folded holds known contents (shape subgraphs, small constants) and
 * value->is_const marks tensors computed from initializers alone (folded by
 * runtimes at load: they cost nothing and are not activations). Cost
 * conventions are documented at the top of graph/ops/cost.c. All of it lives in
 * g->scratch, recreated by every call.
 */
#ifndef DIPPM_SHAPE_H
#define DIPPM_SHAPE_H

#include "graph/ir/ir.h"

/* Requires graph_finalize. Results stay valid until the next call. */
enum status graph_infer(struct graph *g, struct diag *d);
/* True unless g's last graph_infer succeeded with the symbol values it
 * has now (and nothing re-finalized it since): a caller that re-predicts
 * one binding many times (the MIG advisor, a heat map's row) skips the
 * identical inference. A symbol written directly is compared too. */
bool graph_infer_stale(const struct graph *g);

/* Formats a shape as "[1, 3, 224, 224]" ("?" for unknown) into buf. */
const char *shape_str(const struct shape *s, char *buf, int size);

struct jsonw;
/* Writes s as a JSON array of dims on one line, or null when unknown. */
void shape_json(struct jsonw *w, const struct shape *s);

/* Element count of a known shape (1 for rank 0); -1 if unknown. */
int64_t shape_numel(const struct shape *s);

#endif
