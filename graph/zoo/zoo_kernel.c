/*
 * zoo_kernel.c - one operator on its own: a batched matrix product, a linear
 * layer, an element-wise op, a layer norm or a softmax, as one GPU kernel.
 * What a person asks when tuning a layer's shape ("how long does this GEMM
 * take on an L4?"), and the form in which measured single-kernel timings
 * (tests/data/neusight/kernels.tsv) are predicted and learnt from.
 *
 * Shapes follow PyTorch's operators, with the batch symbol as dim 0:
 *   matmul     torch.bmm  [batch, m, k] x [batch, k, n] (both activations)
 *   linear     nn.Linear  [batch, m, k] -> [batch, m, n] (weight k x n, bias)
 *   unary and binary element-wise ops, layernorm, softmax: [batch, m]
 *   (layernorm and softmax over the last axis; "_scalar" ops take a
 *   constant scalar as their second operand).
 */
#include <stdio.h>
#include <string.h>

#include "graph/zoo/zoo_impl.h"

/* op name, ONNX op (catalogue), operand kind */
#define KERNEL_OPS(X)                               \
    X("matmul", OP_MatMul, KO_MATMUL)               \
    X("linear", OP_MatMul, KO_LINEAR)               \
    X("add", OP_Add, KO_BINARY)                     \
    X("add_scalar", OP_Add, KO_SCALAR)              \
    X("mul", OP_Mul, KO_BINARY)                     \
    X("mul_scalar", OP_Mul, KO_SCALAR)              \
    X("div", OP_Div, KO_BINARY)                     \
    X("div_scalar", OP_Div, KO_SCALAR)              \
    X("pow", OP_Pow, KO_BINARY)                     \
    X("pow_scalar", OP_Pow, KO_SCALAR)              \
    X("gelu", OP_Gelu, KO_UNARY)                    \
    X("relu", OP_Relu, KO_UNARY)                    \
    X("tanh", OP_Tanh, KO_UNARY)                    \
    X("layernorm", OP_LayerNormalization, KO_NORM)  \
    X("softmax", OP_Softmax, KO_SOFTMAX)

enum kernel_kind { KO_MATMUL, KO_LINEAR, KO_BINARY, KO_SCALAR, KO_UNARY, KO_NORM, KO_SOFTMAX };

static const char *const kernel_names[] = {
#define X(name, onnx, kind) name,
    KERNEL_OPS(X)
#undef X
};
static const enum op kernel_onnx[] = {
#define X(name, onnx, kind) onnx,
    KERNEL_OPS(X)
#undef X
};
static const enum kernel_kind kernel_kinds[] = {
#define X(name, onnx, kind) kind,
    KERNEL_OPS(X)
#undef X
};
#define N_KERNEL_OPS ((int)(sizeof kernel_names / sizeof kernel_names[0]))

static const struct zoo_param kernel_params[] = {
    {.name = "op", .type = ZOO_PT_ENUM, .n_choices = N_KERNEL_OPS, .choices = kernel_names,
     .def = "matmul",
     .help = "the operator: matmul (torch.bmm), linear (nn.Linear), an element-wise op "
             "(add, mul, div, pow, each also _scalar; gelu, relu, tanh), layernorm or softmax"},
    {.name = "m", .type = ZOO_PT_INT, .min = 1, .max = 16777216, .smin = 1, .smax = 8192,
     .def = "1024", .help = "matmul, linear: rows of each product; element-wise, layernorm, "
                            "softmax: columns of each row (the normalised axis)"},
    {.name = "n", .type = ZOO_PT_INT, .min = 1, .max = 1048576, .smin = 1, .smax = 8192,
     .def = "1024", .help = "matmul: columns of each product; linear: output features"},
    {.name = "k", .type = ZOO_PT_INT, .min = 1, .max = 1048576, .smin = 1, .smax = 8192,
     .def = "1024", .help = "matmul: the inner dimension; linear: input features"},
};

static int kernel_op_index(const char *name)
{
    for (int i = 0; i < N_KERNEL_OPS; i++)
        if (kernel_names[i] == name || strcmp(kernel_names[i], name) == 0)
            return i;
    return 0;
}

static enum status kernel_build(struct zoo_build *b, const struct zoo_args *a, struct diag *d)
{
    (void)d;
    int op = kernel_op_index(zoo_arg_enum(a, "op"));
    int64_t m = zoo_arg_int(a, "m"), n = zoo_arg_int(a, "n"), k = zoo_arg_int(a, "k");
    const char *const syms3[3] = {"batch", NULL, NULL};
    enum op onnx = kernel_onnx[op];
    int y = -1;
    switch (kernel_kinds[op]) {
    case KO_MATMUL: {
        const int64_t da[3] = {1, m, k}, db[3] = {1, k, n};
        int in[2] = {zb_input(b, "a", DT_FLOAT, 3, da, syms3),
                     zb_input(b, "b", DT_FLOAT, 3, db, syms3)};
        y = zb_node(b, onnx, "bmm", in, 2);
        break;
    }
    case KO_LINEAR: {
        const int64_t dx[3] = {1, m, k};
        y = zb_linear(b, zb_input(b, "input", DT_FLOAT, 3, dx, syms3), "fc", (int)k, (int)n,
                      true);
        break;
    }
    default: {
        const int64_t dx[2] = {1, m};
        int x = zb_input(b, "input", DT_FLOAT, 2, dx, syms3);
        enum kernel_kind kind = kernel_kinds[op];
        if (kind == KO_BINARY)
            y = zb_binary(b, onnx, x, zb_input(b, "other", DT_FLOAT, 2, dx, syms3));
        else if (kind == KO_SCALAR)
            y = zb_binary(b, onnx, x, zb_const_float(b, 2.0));
        else if (kind == KO_UNARY)
            y = zb_act(b, x, onnx);
        else if (kind == KO_NORM)
            y = zb_layernorm(b, x, "ln", (int)m, 1e-5);
        else
            y = zb_softmax(b, x, -1);
        break;
    }
    }
    zb_output(b, y);
    return ST_OK;
}

static void kernel_name(const struct zoo_args *a, char *buf, size_t size)
{
    const char *op = zoo_arg_enum(a, "op");
    int ki = kernel_kinds[kernel_op_index(op)];
    if (ki == KO_MATMUL)
        snprintf(buf, size, "%s_%dx%dx%d", op, zoo_arg_int(a, "m"), zoo_arg_int(a, "n"),
                 zoo_arg_int(a, "k"));
    else if (ki == KO_LINEAR)
        snprintf(buf, size, "%s_%dx%dx%d", op, zoo_arg_int(a, "m"), zoo_arg_int(a, "k"),
                 zoo_arg_int(a, "n"));
    else
        snprintf(buf, size, "%s_%d", op, zoo_arg_int(a, "m"));
}

const struct zoo_family zoo_fam_kernel = {
    .name = "kernel",
    .help = "one operator on its own (batched matmul, linear, element-wise, layer norm, "
            "softmax): a single GPU kernel, batch = rows (or products)",
    .n_params = sizeof kernel_params / sizeof kernel_params[0],
    .params = kernel_params,
    .name_fn = kernel_name,
    .check = NULL,
    .build = kernel_build,
};
