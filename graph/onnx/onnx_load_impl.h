/*
 * onnx_load_impl.h - internals shared by onnx_load.c (the model and its
 * main graph) and onnx_control.c (If/Loop/Scan bodies): the conversion
 * context and the per-element converters. Not a public header.
 */
#ifndef DIPPM_ONNX_LOAD_IMPL_H
#define DIPPM_ONNX_LOAD_IMPL_H

#include "graph/ir/ir.h"
#include "onnx.pb-c.h"

struct strmap;

/* A subgraph being read: names defined in it (inputs, initializers, node
 * outputs) are stored as "<prefix>/<name>"; other names resolve in the
 * enclosing scopes, then at top level. */
struct onnx_scope {
    struct onnx_scope *up;
    const char *prefix;
    struct strmap *local;
};

struct lctx {
    struct graph *g;
    const char *name; /* file name for messages */
    struct diag *d;
    struct strmap *node_names;
    struct strmap *name_next; /* base name -> next "#k" suffix to try */
    struct onnx_scope *scope; /* innermost subgraph being read, NULL at top level */
    int depth;                /* subgraph nesting */
};

enum status onnx_add_node(struct lctx *c, const Onnx__NodeProto *np, int idx);
enum status onnx_add_initializer(struct lctx *c, const Onnx__TensorProto *t,
                                 const int64_t *sparse_dims, size_t n_sparse_dims, size_t idx);
enum status onnx_set_value_type(struct lctx *c, const char *what, int vi, const Onnx__TypeProto *tp,
                                bool is_input);

/* Reads the subgraph attribute a of node ni (named nname) into the graph as
 * a body of ni (onnx_control.c). */
enum status onnx_load_body(struct lctx *c, int ni, const char *nname,
                           const Onnx__AttributeProto *a);

#endif
