/*
 * ops.h - the op catalogue generated from ops.def: enum op, names, arity and
 * class. Adding an op is one line in ops.def.
 */
#ifndef DIPPM_OPS_H
#define DIPPM_OPS_H

#include <stdbool.h>

/* Facts about an op, the last column of ops.def (described there). */
enum op_flag {
    OPF_VIEW = 1 << 0, /* the output is a view of the input's storage */
    OPF_ARGS = 1 << 1, /* inputs after the first are arguments, never parameters */
};

enum op {
#define X(name, min_in, max_in, cls, ...) OP_##name,
#include "graph/ir/ops.def"
#undef X
    OP__COUNT,
    OP__UNKNOWN = OP__COUNT
};

/* Op classes: coarse groups used by features and the cost model. */
#define OP_CLASS_LIST(X)                       \
    X(OPC_CONV, "conv")                        \
    X(OPC_GEMM, "gemm")                        \
    X(OPC_NORM, "norm")                        \
    X(OPC_ACT, "elementwise")                  \
    X(OPC_BINARY, "binary")                    \
    X(OPC_POOL, "pool")                        \
    X(OPC_REDUCE, "reduce")                    \
    X(OPC_SOFTMAX, "softmax")                  \
    X(OPC_MOVE, "data-movement")               \
    X(OPC_GATHER, "gather")                    \
    X(OPC_CONST, "shape/const")                \
    X(OPC_RNN, "recurrent")                    \
    X(OPC_ATTENTION, "attention")              \
    X(OPC_OTHER, "other")

enum op_class {
#define X(id, str) id,
    OP_CLASS_LIST(X)
#undef X
    OPC__COUNT
};

/* Catalogue lookup by op_type; OP__UNKNOWN if absent. */
enum op op_lookup(const char *op_type);
/* Canonical name ("?" for OP__UNKNOWN). */
const char *op_name(enum op op);
int op_min_inputs(enum op op);
/* -1 = variadic. */
int op_max_inputs(enum op op);
enum op_class op_class_of(enum op op);
/* OPF_VIEW: Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout (false
 * for OP__UNKNOWN). */
bool op_is_view(enum op op);
/* OPF_ARGS: inputs after the first configure the op (shape, axes, indices,
 * scales, bounds) and are never counted as parameters. */
bool op_is_config_only(enum op op);
const char *op_class_name(enum op_class c);

#endif
