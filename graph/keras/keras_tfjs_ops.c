/*
 * keras_tfjs_ops.c - TF.js graph-model ops mapped to IR ops (see the table in
 * keras_tfjs_graph.c): convolutions with their fused BiasAdd /
 * FusedBatchNorm / activation, MatMul, elementwise ops with layout-aware
 * constant broadcasting, pools, Softmax, AddN; the shape and index ops are
 * in keras_tfjs_shape.c.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "graph/keras/keras_tfjs_impl.h"

/* ---- op emitters -------------------------------------------------------------------- */

/* The fused activations that are one op of the same name. */
static const struct {
    const char *tf;
    enum op op;
} fused_acts[] = {
    {"Relu", OP_Relu}, {"Relu6", OP_Relu6}, {"Elu", OP_Elu}, {"Sigmoid", OP_Sigmoid},
    {"Tanh", OP_Tanh},
};

/* Fused activation op (as the file names it) after value *v. */
static enum status act_after(struct gctx *G, struct gnode *node, const char *op, int *v,
                             struct gnode *alpha, int rank)
{
    for (size_t i = 0; i < sizeof fused_acts / sizeof fused_acts[0]; i++)
        if (!strcmp(op, fused_acts[i].tf)) {
            *v = kx_op(G->c, fused_acts[i].op, tg_gname(G, node, op), v, 1);
            return ST_OK;
        }
    if (!strcmp(op, "LeakyRelu")) {
        *v = kx_op(G->c, OP_LeakyRelu, tg_gname(G, node, op), v, 1);
        graph_attr_float(G->c->g, kx_producer(G->c, *v), "alpha",
                         tg_attr_f(node, "leakyrelu_alpha", 0.2));
    } else if (!strcmp(op, "Prelu") && alpha && alpha->is_const) {
        int in[2] = {*v, tg_const_bcast(G, alpha, rank, true)};
        *v = kx_op(G->c, OP_PRelu, tg_gname(G, node, op), in, 2);
    } else {
        char why[96];
        snprintf(why, sizeof why, "fused op \"%s\"", op);
        return tg_unsupported(G, node, why);
    }
    return ST_OK;
}

static enum status window(struct gctx *G, struct gnode *node, int ni, const int64_t *ks,
                          bool dil, bool *nchw)
{
    char buf[32], pad[32];
    int64_t s[4] = {1, 1, 1, 1}, d[4] = {1, 1, 1, 1};
    *nchw = !strcmp(tg_attr_s(node, "data_format", "NHWC", buf, sizeof buf), "NCHW");
    enum status st = tg_attr_ints(G, node, "strides", 4, s, false);
    if (!st && dil)
        st = tg_attr_ints(G, node, "dilations", 4, d, false);
    if (st)
        return st;
    int h = *nchw ? 2 : 1;
    int64_t ss[2] = {s[h], s[h + 1]}, dd[2] = {d[h], d[h + 1]};
    graph_attr_ints(G->c->g, ni, "kernel_shape", ks, 2);
    graph_attr_ints(G->c->g, ni, "strides", ss, 2);
    if (dil)
        graph_attr_ints(G->c->g, ni, "dilations", dd, 2);
    const char *p = tg_attr_s(node, "padding", "VALID", pad, sizeof pad);
    if (!strcmp(p, "SAME")) {
        graph_attr_string(G->c->g, ni, "auto_pad", "SAME_UPPER");
    } else if (!strcmp(p, "VALID")) {
        int64_t z[4] = {0};
        graph_attr_ints(G->c->g, ni, "pads", z, 4);
    } else if (!strcmp(p, "EXPLICIT")) {
        int64_t e[8];
        st = tg_attr_ints(G, node, "explicit_paddings", 8, e, true);
        if (st)
            return st;
        int64_t pads[4] = {e[2 * h], e[2 * h + 2], e[2 * h + 1], e[2 * h + 3]};
        graph_attr_ints(G->c->g, ni, "pads", pads, 4);
    } else {
        return kerr(G->c, node->path, "attr.padding: unknown padding \"%s\"", p);
    }
    return ST_OK;
}

static enum status emit_conv(struct gctx *G, struct gnode *node, bool depthwise, bool fused)
{
    struct ktensor *x = tg_tin(G, node, 0);
    struct gnode *f = node->n_in > 1 ? tg_input_node(G, node, 1) : NULL;
    if (!f || !f->is_const || G->c->w[f->mw].rank != 4)
        return tg_unsupported(G, node, "the filter is not a constant of rank 4");
    if (x->rank != 4)
        return tg_unsupported(G, node, "the input is not rank 4");
    const int64_t *fd = G->c->w[f->mw].dims; /* HWIO or HW,in,mult */
    int64_t wd[4] = {depthwise ? fd[2] * fd[3] : fd[3], depthwise ? 1 : fd[2], fd[0], fd[1]};
    char buf[32];
    bool nchw = !strcmp(tg_attr_s(node, "data_format", "NHWC", buf, sizeof buf), "NCHW");
    int in[3] = {kx_val(G->c, x, !nchw, tg_gname(G, node, NULL)), tg_gweight(G, f, wd, 4, "oihw"),
                 -1};
    const char *ops[4] = {0};
    int n_ops = 0, n_args = 0;
    struct gnode *args[6] = {0};
    if (fused) {
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(tg_gattr(node, "fused_ops"), "list"), "s");
        static char dec[4][32];
        for (const cJSON *e = l ? l->child : NULL; e && n_ops < 4; e = e->next)
            if (cJSON_IsString(e))
                ops[n_ops] = tg_decode_s(e->valuestring, dec[n_ops], sizeof dec[0]), n_ops++;
        for (int i = 2; i < node->n_in && n_args < 6; i++)
            args[n_args++] = tg_input_node(G, node, i);
    }
    int ai = 0;
    bool bn = false;
    if (n_ops > 0 && !strcmp(ops[0], "BiasAdd")) {
        if (!args[0] || !args[0]->is_const)
            return tg_unsupported(G, node, "BiasAdd argument is not a constant");
        in[2] = tg_const_value(G, args[0]);
        ai = 1;
    } else if (n_ops > 0 && !strcmp(ops[0], "FusedBatchNorm")) {
        bn = true;
    } else if (n_ops > 0) {
        return act_after(G, node, ops[0], &in[0], NULL, 4); /* reports the unsupported op */
    }
    int v = kx_op(G->c, OP_Conv, tg_gname(G, node, n_ops ? "conv" : NULL), in, in[2] >= 0 ? 3 : 2);
    int ni = kx_producer(G->c, v);
    int64_t ks[2] = {fd[0], fd[1]};
    enum status st = window(G, node, ni, ks, true, &nchw);
    if (st)
        return st;
    if (depthwise)
        graph_attr_int(G->c->g, ni, "group", fd[2]);
    if (bn) {
        int bi[5] = {v};
        for (int i = 0; i < 4; i++) {
            if (!args[i] || !args[i]->is_const)
                return tg_unsupported(G, node, "FusedBatchNorm arguments are not constants");
            bi[i + 1] = tg_const_value(G, args[i]);
        }
        ai = 4;
        v = kx_op(G->c, OP_BatchNormalization, tg_gname(G, node, "bn"), bi, 5);
        graph_attr_float(G->c->g, kx_producer(G->c, v), "epsilon",
                         tg_attr_f(node, "epsilon", 1e-3));
    }
    for (int i = 1; i < n_ops; i++) {
        st = act_after(G, node, ops[i], &v, ai < n_args ? args[ai] : NULL, 4);
        if (st)
            return st;
    }
    tg_set_out(node, 4, v, !nchw);
    if (nchw) {
        node->t.vn = v;
        node->t.vcf = -1;
    }
    return ST_OK;
}

static enum status emit_matmul(struct gctx *G, struct gnode *node, bool fused)
{
    struct ktensor *a = tg_tin(G, node, 0);
    struct gnode *b = node->n_in > 1 ? tg_input_node(G, node, 1) : NULL;
    if (!a || !b)
        return tg_unsupported(G, node, "missing operands");
    bool ta = tg_attr_b(node, "transpose_a"), tb = tg_attr_b(node, "transpose_b");
    if (ta)
        return tg_unsupported(G, node, "transpose_a is not supported");
    int av = kx_val(G->c, a, false, tg_gname(G, node, NULL));
    int v;
    const char *ops[4] = {0};
    int n_ops = 0;
    static char dec[4][32];
    if (fused) {
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(tg_gattr(node, "fused_ops"), "list"), "s");
        for (const cJSON *e = l ? l->child : NULL; e && n_ops < 4; e = e->next)
            if (cJSON_IsString(e))
                ops[n_ops] = tg_decode_s(e->valuestring, dec[n_ops], sizeof dec[0]), n_ops++;
    }
    bool has_bias = n_ops > 0 && !strcmp(ops[0], "BiasAdd");
    if (n_ops > 0 && !has_bias)
        return act_after(G, node, ops[0], &av, NULL, 2);
    if (b->is_const && b->float_const && a->rank == 2) {
        struct gnode *bias = has_bias && node->n_in > 2 ? tg_input_node(G, node, 2) : NULL;
        if (has_bias && (!bias || !bias->is_const))
            return tg_unsupported(G, node, "BiasAdd argument is not a constant");
        int in[3] = {av, tg_const_value(G, b), bias ? tg_const_value(G, bias) : -1};
        v = kx_op(G->c, OP_Gemm, tg_gname(G, node, n_ops > 1 ? "gemm" : NULL), in, bias ? 3 : 2);
        if (tb)
            graph_attr_int(G->c->g, kx_producer(G->c, v), "transB", 1);
    } else {
        if (tb)
            return tg_unsupported(G, node, "transpose_b of a non-constant operand");
        struct ktensor *bt = b->is_const ? NULL : tg_tin(G, node, 1);
        int in[2] = {av,
                     bt ? kx_val(G->c, bt, false, tg_gname(G, node, NULL)) : tg_const_value(G, b)};
        v = kx_op(G->c, OP_MatMul, tg_gname(G, node, has_bias ? "matmul" : NULL), in, 2);
        if (has_bias) {
            struct gnode *bias = node->n_in > 2 ? tg_input_node(G, node, 2) : NULL;
            if (!bias || !bias->is_const)
                return tg_unsupported(G, node, "BiasAdd argument is not a constant");
            int in2[2] = {v, tg_const_value(G, bias)};
            v = kx_op(G->c, OP_Add, tg_gname(G, node, n_ops > 1 ? "bias" : NULL), in2, 2);
        }
    }
    for (int i = 1; i < n_ops; i++) {
        enum status st = act_after(G, node, ops[i], &v, NULL, a->rank);
        if (st)
            return st;
    }
    tg_set_out(node, a->rank, v, false);
    return ST_OK;
}

/* Binary elementwise op; Const operands are broadcast in the tensor's layout.
 * TF's SquaredDifference is a Sub squared by a Mul. */
static enum status emit_binary(struct gctx *G, struct gnode *node, enum op op)
{
    struct gnode *s0 = tg_input_node(G, node, 0), *s1 = tg_input_node(G, node, 1);
    if (s0->is_const && s1->is_const)
        return tg_unsupported(G, node, "both operands are constants");
    struct ktensor *t0 = tg_tin(G, node, s0->is_const ? 1 : 0);
    int r = t0->rank;
    /* channels-first only between tensors of one rank: a lower-rank tensor
     * broadcasts against the trailing axes in TF's order */
    bool cf = tg_is_cf(t0) && (s0->is_const || s1->is_const ||
                               tg_tin(G, node, 0)->rank == tg_tin(G, node, 1)->rank);
    int in[2];
    for (int i = 0; i < 2; i++) {
        struct gnode *s = i ? s1 : s0;
        struct ktensor *t = s->is_const ? NULL : tg_tin(G, node, i);
        if (!t)
            in[i] = tg_const_bcast(G, s, r, cf);
        else
            in[i] = kx_val(G->c, t, cf && t->rank >= 3, tg_gname(G, node, NULL));
        if (t && t->rank > r)
            r = t->rank;
    }
    int v;
    if (!strcmp(node->op, "SquaredDifference")) {
        v = kx_op(G->c, OP_Sub, tg_gname(G, node, "diff"), in, 2);
        int sq[2] = {v, v};
        v = kx_op(G->c, OP_Mul, tg_gname(G, node, NULL), sq, 2);
    } else {
        v = kx_op(G->c, op, tg_gname(G, node, NULL), in, 2);
    }
    tg_set_out(node, r, v, cf && r >= 3);
    return ST_OK;
}

/* Unary elementwise op; TF's Rsqrt is a Sqrt before it (the Reciprocal),
 * Square a Mul of x by itself. */
static enum status emit_unary(struct gctx *G, struct gnode *node, enum op op)
{
    struct ktensor *x = tg_tin(G, node, 0);
    bool cf = x->vn < 0;
    int v = cf ? x->vcf : x->vn;
    if (!strcmp(node->op, "Rsqrt")) {
        v = kx_op(G->c, OP_Sqrt, tg_gname(G, node, "sqrt"), &v, 1);
    } else if (!strcmp(node->op, "Square")) {
        int sq[2] = {v, v};
        v = kx_op(G->c, OP_Mul, tg_gname(G, node, NULL), sq, 2);
        tg_set_out(node, x->rank, v, cf);
        return ST_OK;
    }
    v = kx_op(G->c, op, tg_gname(G, node, NULL), &v, 1);
    if (op == OP_LeakyRelu)
        graph_attr_float(G->c->g, kx_producer(G->c, v), "alpha", tg_attr_f(node, "alpha", 0.2));
    tg_set_out(node, x->rank, v, cf);
    return ST_OK;
}

static enum status emit_pool(struct gctx *G, struct gnode *node, bool max)
{
    struct ktensor *x = tg_tin(G, node, 0);
    int64_t k[4];
    enum status st = tg_attr_ints(G, node, "ksize", 4, k, true);
    if (st)
        return st;
    if (x->rank != 4)
        return tg_unsupported(G, node, "the input is not rank 4");
    char buf[32];
    bool nchw = !strcmp(tg_attr_s(node, "data_format", "NHWC", buf, sizeof buf), "NCHW");
    int h = nchw ? 2 : 1;
    int64_t ks[2] = {k[h], k[h + 1]};
    int in = kx_val(G->c, x, !nchw, tg_gname(G, node, NULL));
    int v = kx_op(G->c, max ? OP_MaxPool : OP_AveragePool, tg_gname(G, node, NULL), &in, 1);
    st = window(G, node, kx_producer(G->c, v), ks, false, &nchw);
    if (st)
        return st;
    tg_set_out(node, 4, v, !nchw);
    if (nchw) {
        node->t.vn = v;
        node->t.vcf = -1;
    }
    return ST_OK;
}

enum status keras_tfjs_emit_node(struct gctx *G, struct gnode *node)
{
    const char *op = node->op;
    static const struct {
        const char *tf;
        enum op op;
    } unary_ops[] = {
        {"Relu", OP_Relu}, {"Relu6", OP_Relu6}, {"Sigmoid", OP_Sigmoid}, {"Tanh", OP_Tanh},
        {"Elu", OP_Elu}, {"Selu", OP_Selu}, {"Softplus", OP_Softplus}, {"Exp", OP_Exp},
        {"Sqrt", OP_Sqrt}, {"Rsqrt", OP_Reciprocal}, {"Square", OP_Mul}, {"Neg", OP_Neg},
        {"Abs", OP_Abs}, {"Log", OP_Log}, {"Reciprocal", OP_Reciprocal}, {"Floor", OP_Floor},
        {"Ceil", OP_Ceil}, {"LeakyRelu", OP_LeakyRelu},
    };
    static const struct {
        const char *tf;
        enum op op;
    } binary_ops[] = {
        {"Add", OP_Add}, {"AddV2", OP_Add}, {"BiasAdd", OP_Add}, {"Sub", OP_Sub}, {"Mul", OP_Mul},
        {"RealDiv", OP_Div}, {"Div", OP_Div}, {"Maximum", OP_Max}, {"Minimum", OP_Min},
        {"Pow", OP_Pow}, {"SquaredDifference", OP_Mul}, {"Prelu", OP_PRelu},
        {"FloorDiv", OP_Div}, {"FloorMod", OP_Mod}, {"Equal", OP_Equal}, {"Less", OP_Less},
        {"Greater", OP_Greater}, {"LessEqual", OP_LessOrEqual},
        {"GreaterEqual", OP_GreaterOrEqual}, {"LogicalAnd", OP_And}, {"LogicalOr", OP_Or},
    };
    for (size_t i = 0; i < sizeof unary_ops / sizeof unary_ops[0]; i++)
        if (!strcmp(op, unary_ops[i].tf))
            return emit_unary(G, node, unary_ops[i].op);
    for (size_t i = 0; i < sizeof binary_ops / sizeof binary_ops[0]; i++)
        if (!strcmp(op, binary_ops[i].tf)) {
            if (node->n_in != 2)
                return kerr(G->c, node->path, "input: expected 2 inputs, got %d", node->n_in);
            return emit_binary(G, node, binary_ops[i].op);
        }
    enum status st = keras_tfjs_emit_shape(G, node);
    if (st == ST_ENOTFOUND)
        st = keras_tfjs_emit_detect(G, node);
    if (st != ST_ENOTFOUND)
        return st;
    if (!strcmp(op, "Conv2D") || !strcmp(op, "_FusedConv2D"))
        return emit_conv(G, node, false, op[0] == '_');
    if (!strcmp(op, "DepthwiseConv2dNative") || !strcmp(op, "FusedDepthwiseConv2dNative"))
        return emit_conv(G, node, true, op[0] == 'F');
    if (!strcmp(op, "MatMul") || !strcmp(op, "_FusedMatMul"))
        return emit_matmul(G, node, op[0] == '_');
    if (!strcmp(op, "MaxPool") || !strcmp(op, "AvgPool"))
        return emit_pool(G, node, op[0] == 'M');
    if (!strcmp(op, "FusedBatchNorm") || !strcmp(op, "FusedBatchNormV2") ||
        !strcmp(op, "FusedBatchNormV3")) {
        struct ktensor *x = tg_tin(G, node, 0);
        int in[5] = {kx_val(G->c, x, x->rank >= 3, tg_gname(G, node, NULL))};
        for (int i = 1; i < 5; i++) {
            struct gnode *a = i < node->n_in ? tg_input_node(G, node, i) : NULL;
            if (!a || !a->is_const)
                return tg_unsupported(G, node, "scale/offset/mean/variance are not constants");
            in[i] = tg_const_value(G, a);
        }
        int v = kx_op(G->c, OP_BatchNormalization, tg_gname(G, node, NULL), in, 5);
        graph_attr_float(G->c->g, kx_producer(G->c, v), "epsilon",
                         tg_attr_f(node, "epsilon", 1e-3));
        tg_set_out(node, x->rank, v, x->rank >= 3);
        return ST_OK;
    }
    if (!strcmp(op, "Softmax")) {
        struct ktensor *x = tg_tin(G, node, 0);
        int in = kx_val(G->c, x, false, tg_gname(G, node, NULL));
        int v = kx_op(G->c, OP_Softmax, tg_gname(G, node, NULL), &in, 1);
        graph_attr_int(G->c->g, kx_producer(G->c, v), "axis", -1);
        tg_set_out(node, x->rank, v, false);
        return ST_OK;
    }
    if (!strcmp(op, "AddN")) {
        int in[16];
        struct ktensor *x0 = tg_tin(G, node, 0);
        bool cf = x0->vn < 0;
        for (int i = 0; i < node->n_in; i++) {
            struct ktensor *x = tg_tin(G, node, i);
            if (tg_input_node(G, node, i)->is_const)
                return tg_unsupported(G, node, "constant operand");
            in[i] = kx_val(G->c, x, cf, tg_gname(G, node, NULL));
        }
        int v = kx_op(G->c, OP_Sum, tg_gname(G, node, NULL), in, node->n_in);
        tg_set_out(node, x0->rank, v, cf);
        return ST_OK;
    }
    return tg_opaque(G, node);
}

