/*
 * keras_tfjs_graph.c - TF.js graph models: modelTopology is a TensorFlow
 * GraphDef as JSON ({"node": [{"name", "op", "input": ["x", "y:1", "^ctl"],
 * "attr": {"strides": {"list": {"i": ["1","2","2","1"]}}, "padding": {"s":
 * base64}, "value": {"tensor": {"dtype", "tensorShape": {"dim": [{"size"}]}}}
 * ...}}]}). Const nodes carry only dtype and shape; their contents are in the
 * weight shards, which are never read.
 *
 * Mapping (layout convention as in keras_impl.h: NHWC tensors are turned
 * channels-first once, on demand, for Conv/pool/BatchNormalization):
 *   float Const           -> initializer (a parameter), dims from the
 *                            weightsManifest, permuted to the ONNX layout of
 *                            its use (HWIO filter -> OIHW, bias [C] -> [C,1,1]
 *                            against an NCHW tensor); element count unchanged
 *   integer Const         -> Constant node of known dtype/dims, unknown values
 *   Conv2D, _FusedConv2D, DepthwiseConv2dNative, FusedDepthwiseConv2dNative
 *                         -> Conv (+ BatchNormalization / activation nodes for
 *                            the fused ops)
 *   MatMul, _FusedMatMul  -> Gemm (constant weights) or MatMul
 *   Mean over 2 axes of a rank-4 tensor -> ReduceMean over H, W (the
 *                            axes live in the shard; Keras's global average
 *                            pooling is the only source of this pattern)
 *   Reshape feeding MatMul -> Reshape to [-1, K] with K from the weight;
 *                            other Reshapes keep an unknown target shape
 * Values that live only in the shard (Pad paddings, other Reshape targets)
 * leave the downstream shapes unknown rather than guessed; ops whose
 * attribute comes from the shard (ConcatV2's axis, Transpose's perm) and
 * ops outside the list below are an error naming the node and its op.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keras_impl.h"
#include "strmap.h"
#include "xalloc.h"

struct gnode {
    const cJSON *j;
    const char *name, *op;
    const cJSON *attr;
    const char *in[16];
    int n_in;
    bool done, is_const, float_const;
    int mw;             /* manifest index of a Const, or -1 */
    struct ktensor t;   /* output 0 */
    char path[48];
};

struct gctx {
    struct kctx *c;
    struct gnode *n;
    int nn;
    struct strmap *byname;
};

/* ---- attributes ---------------------------------------------------------------- */

static const cJSON *gattr(const struct gnode *g, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(g->attr, key);
}

static int b64(int ch)
{
    if (ch >= 'A' && ch <= 'Z') return ch - 'A';
    if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9') return ch - '0' + 52;
    if (ch == '+' || ch == '-') return 62;
    if (ch == '/' || ch == '_') return 63;
    return -1;
}

/* Decodes a base64 "s" attribute into buf (NUL-terminated). */
static const char *decode_s(const char *s, char *buf, size_t size)
{
    size_t o = 0;
    unsigned acc = 0;
    int bits = 0;
    for (; *s && *s != '='; s++) {
        int v = b64(*s);
        if (v < 0)
            break;
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (o + 1 < size)
                buf[o++] = (char)((acc >> bits) & 0xff);
        }
    }
    buf[o] = 0;
    return buf;
}

static const char *attr_s(const struct gnode *g, const char *key, const char *def, char *buf,
                          size_t size)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(gattr(g, key), "s");
    return cJSON_IsString(s) ? decode_s(s->valuestring, buf, size) : def;
}

/* "i" entries are JSON strings (int64) or numbers. */
static bool jint(const cJSON *e, int64_t *v)
{
    if (cJSON_IsString(e)) {
        char *end;
        long long x = strtoll(e->valuestring, &end, 10);
        if (*end || end == e->valuestring)
            return false;
        *v = x;
        return true;
    }
    if (kj_is_int(e)) {
        *v = (int64_t)e->valuedouble;
        return true;
    }
    return false;
}

static enum status attr_ints(struct gctx *G, const struct gnode *g, const char *key, int want,
                             int64_t *out, bool required)
{
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(gattr(g, key), "list"), "i");
    if (!l) {
        if (required)
            return kerr(G->c, g->path, "attr.%s: missing (node '%s', op %s)", key, g->name,
                        g->op);
        return ST_OK;
    }
    if (!cJSON_IsArray(l) || cJSON_GetArraySize(l) != want)
        return kerr(G->c, g->path, "attr.%s.list.i: expected %d integers", key, want);
    int i = 0;
    for (const cJSON *e = l->child; e; e = e->next, i++)
        if (!jint(e, &out[i]))
            return kerr(G->c, g->path, "attr.%s.list.i[%d]: expected an integer, got %s", key,
                        i, kjtype(e));
    return ST_OK;
}

static bool attr_b(const struct gnode *g, const char *key)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(gattr(g, key), "b"));
}

static double attr_f(const struct gnode *g, const char *key, double def)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(gattr(g, key), "f");
    return cJSON_IsNumber(f) ? f->valuedouble : def;
}

static enum status unsupported(struct gctx *G, const struct gnode *g, const char *why)
{
    return diag_set(G->c->d, ST_EUNSUPPORTED, "%s: node '%s' (op %s) is not supported%s%s",
                    G->c->file, g->name, g->op, why ? ": " : "", why ? why : "");
}

/* ---- tensors --------------------------------------------------------------------- */

static struct gnode *input_node(struct gctx *G, const struct gnode *g, int i)
{
    const char *s = g->in[i];
    char nm[512];
    snprintf(nm, sizeof nm, "%s", s);
    char *colon = strrchr(nm, ':');
    if (colon && colon[1] >= '0' && colon[1] <= '9')
        *colon = 0;
    int idx;
    return strmap_get(G->byname, nm, &idx) ? &G->n[idx] : NULL;
}

static bool output_index_nonzero(const char *s)
{
    const char *colon = strrchr(s, ':');
    return colon && strcmp(colon, ":0") && colon[1] >= '0' && colon[1] <= '9';
}

/* Declares float Const node k as an initializer with dims (element count
 * checked against the manifest); role distinguishes layouts of one Const. */
static int gweight(struct gctx *G, struct gnode *k, const int64_t *dims, int rank,
                   const char *role)
{
    struct kweight *w = &G->c->w[k->mw];
    bool same = rank == w->rank;
    for (int i = 0; same && i < rank; i++)
        same = dims[i] == w->dims[i];
    char nm[600];
    snprintf(nm, sizeof nm, "%s%s%s", k->name, same ? "" : "/", same ? "" : role);
    int v = graph_value_find(G->c->g, nm);
    if (v >= 0)
        return v;
    v = graph_value_get(G->c->g, graph_strdup(G->c->g, nm));
    struct dim dd[IR_MAX_RANK];
    for (int i = 0; i < rank; i++)
        dd[i] = (struct dim){dims[i], -1};
    graph_value_set_type(G->c->g, v, w->dt, rank, dd);
    graph_init_add(G->c->g, v);
    w->used = true;
    return v;
}

/* A Const as-is: initializer (float) or data-less Constant (integer). */
static int const_value(struct gctx *G, struct gnode *k)
{
    struct kweight *w = &G->c->w[k->mw];
    if (k->float_const)
        return gweight(G, k, w->dims, w->rank, "");
    int v = graph_value_find(G->c->g, k->name);
    if (v >= 0)
        return v;
    struct tconst t = {.dt = w->dt, .rank = w->rank, .n = w->n};
    struct dim dd[IR_MAX_RANK];
    for (int i = 0; i < w->rank; i++) {
        t.dims[i] = w->dims[i];
        dd[i] = (struct dim){w->dims[i], -1};
    }
    v = kx_op(G->c, "Constant", graph_strdup(G->c->g, k->name), NULL, 0);
    graph_attr_tensor(G->c->g, kx_producer(G->c, v), "value", &t);
    graph_value_set_type(G->c->g, v, w->dt, w->rank, dd);
    return v;
}

/* A Const broadcast against a tensor of rank r held channels-first: right-
 * align to rank r, permute like the tensor, drop leading ones. */
static int const_bcast(struct gctx *G, struct gnode *k, int r, bool cf)
{
    struct kweight *w = &G->c->w[k->mw];
    if (!cf || r < 3 || !k->float_const || w->rank == 0)
        return const_value(G, k);
    int64_t a[IR_MAX_RANK], p[IR_MAX_RANK];
    for (int i = 0; i < r; i++)
        a[i] = i < r - w->rank ? 1 : w->dims[i - (r - w->rank)];
    p[0] = a[0];
    p[1] = a[r - 1];
    for (int i = 2; i < r; i++)
        p[i] = a[i - 1];
    int s = 0;
    while (s < r - 1 && p[s] == 1)
        s++;
    return gweight(G, k, p + s, r - s, "channels_first");
}

static struct klayer glayer(const struct gnode *g)
{
    return (struct klayer){.name = g->name, .cls = g->op, .cfg = NULL, .path = g->path,
                           .nprefix = "", .wprefix = ""};
}

static const char *gname(struct gctx *G, const struct gnode *g, const char *sfx)
{
    struct klayer L = glayer(g);
    return kx_name(G->c, &L, sfx);
}

/* The input tensor i of g (not a Const). */
static struct ktensor *tin(struct gctx *G, struct gnode *g, int i)
{
    struct gnode *s = input_node(G, g, i);
    return s ? &s->t : NULL;
}

static void set_out(struct gnode *g, int rank, int v, bool cf)
{
    kx_tensor(&g->t, rank, v, cf);
}

/* ---- op emitters -------------------------------------------------------------------- */

static enum status act_after(struct gctx *G, struct gnode *g, const char *op, int *v,
                             struct gnode *alpha, int rank)
{
    if (!strcmp(op, "Relu") || !strcmp(op, "Relu6") || !strcmp(op, "Elu") ||
        !strcmp(op, "Sigmoid") || !strcmp(op, "Tanh")) {
        *v = kx_op(G->c, op, gname(G, g, op), v, 1);
    } else if (!strcmp(op, "LeakyRelu")) {
        *v = kx_op(G->c, "LeakyRelu", gname(G, g, op), v, 1);
        graph_attr_float(G->c->g, kx_producer(G->c, *v), "alpha",
                         attr_f(g, "leakyrelu_alpha", 0.2));
    } else if (!strcmp(op, "Prelu") && alpha && alpha->is_const) {
        int in[2] = {*v, const_bcast(G, alpha, rank, true)};
        *v = kx_op(G->c, "PRelu", gname(G, g, op), in, 2);
    } else {
        char why[96];
        snprintf(why, sizeof why, "fused op \"%s\"", op);
        return unsupported(G, g, why);
    }
    return ST_OK;
}

static enum status window(struct gctx *G, struct gnode *g, int ni, const int64_t *ks,
                          bool dil, bool *nchw)
{
    char buf[32], pad[32];
    int64_t s[4] = {1, 1, 1, 1}, d[4] = {1, 1, 1, 1};
    *nchw = !strcmp(attr_s(g, "data_format", "NHWC", buf, sizeof buf), "NCHW");
    enum status st = attr_ints(G, g, "strides", 4, s, false);
    if (!st && dil)
        st = attr_ints(G, g, "dilations", 4, d, false);
    if (st)
        return st;
    int h = *nchw ? 2 : 1;
    int64_t ss[2] = {s[h], s[h + 1]}, dd[2] = {d[h], d[h + 1]};
    graph_attr_ints(G->c->g, ni, "kernel_shape", ks, 2);
    graph_attr_ints(G->c->g, ni, "strides", ss, 2);
    if (dil)
        graph_attr_ints(G->c->g, ni, "dilations", dd, 2);
    const char *p = attr_s(g, "padding", "VALID", pad, sizeof pad);
    if (!strcmp(p, "SAME")) {
        graph_attr_string(G->c->g, ni, "auto_pad", "SAME_UPPER");
    } else if (!strcmp(p, "VALID")) {
        int64_t z[4] = {0};
        graph_attr_ints(G->c->g, ni, "pads", z, 4);
    } else if (!strcmp(p, "EXPLICIT")) {
        int64_t e[8];
        st = attr_ints(G, g, "explicit_paddings", 8, e, true);
        if (st)
            return st;
        int64_t pads[4] = {e[2 * h], e[2 * h + 2], e[2 * h + 1], e[2 * h + 3]};
        graph_attr_ints(G->c->g, ni, "pads", pads, 4);
    } else {
        return kerr(G->c, g->path, "attr.padding: unknown padding \"%s\"", p);
    }
    return ST_OK;
}

static enum status emit_conv(struct gctx *G, struct gnode *g, bool depthwise, bool fused)
{
    struct ktensor *x = tin(G, g, 0);
    struct gnode *f = g->n_in > 1 ? input_node(G, g, 1) : NULL;
    if (!f || !f->is_const || G->c->w[f->mw].rank != 4)
        return unsupported(G, g, "the filter is not a constant of rank 4");
    if (x->rank != 4)
        return unsupported(G, g, "the input is not rank 4");
    const int64_t *fd = G->c->w[f->mw].dims; /* HWIO or HW,in,mult */
    int64_t wd[4] = {depthwise ? fd[2] * fd[3] : fd[3], depthwise ? 1 : fd[2], fd[0], fd[1]};
    char buf[32];
    bool nchw = !strcmp(attr_s(g, "data_format", "NHWC", buf, sizeof buf), "NCHW");
    int in[3] = {kx_val(G->c, x, !nchw, gname(G, g, NULL)), gweight(G, f, wd, 4, "oihw"), -1};
    const char *ops[4] = {0};
    int n_ops = 0, n_args = 0;
    struct gnode *args[6] = {0};
    if (fused) {
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(gattr(g, "fused_ops"), "list"), "s");
        static char dec[4][32];
        for (const cJSON *e = l ? l->child : NULL; e && n_ops < 4; e = e->next)
            if (cJSON_IsString(e))
                ops[n_ops] = decode_s(e->valuestring, dec[n_ops], sizeof dec[0]), n_ops++;
        for (int i = 2; i < g->n_in && n_args < 6; i++)
            args[n_args++] = input_node(G, g, i);
    }
    int ai = 0;
    bool bn = false;
    if (n_ops > 0 && !strcmp(ops[0], "BiasAdd")) {
        if (!args[0] || !args[0]->is_const)
            return unsupported(G, g, "BiasAdd argument is not a constant");
        in[2] = const_value(G, args[0]);
        ai = 1;
    } else if (n_ops > 0 && !strcmp(ops[0], "FusedBatchNorm")) {
        bn = true;
    } else if (n_ops > 0) {
        return act_after(G, g, ops[0], &in[0], NULL, 4); /* reports the unsupported op */
    }
    int v = kx_op(G->c, "Conv", gname(G, g, n_ops ? "conv" : NULL), in, in[2] >= 0 ? 3 : 2);
    int ni = kx_producer(G->c, v);
    int64_t ks[2] = {fd[0], fd[1]};
    enum status st = window(G, g, ni, ks, true, &nchw);
    if (st)
        return st;
    if (depthwise)
        graph_attr_int(G->c->g, ni, "group", fd[2]);
    if (bn) {
        int bi[5] = {v};
        for (int i = 0; i < 4; i++) {
            if (!args[i] || !args[i]->is_const)
                return unsupported(G, g, "FusedBatchNorm arguments are not constants");
            bi[i + 1] = const_value(G, args[i]);
        }
        ai = 4;
        v = kx_op(G->c, "BatchNormalization", gname(G, g, "bn"), bi, 5);
        graph_attr_float(G->c->g, kx_producer(G->c, v), "epsilon", attr_f(g, "epsilon", 1e-3));
    }
    for (int i = 1; i < n_ops; i++) {
        st = act_after(G, g, ops[i], &v, ai < n_args ? args[ai] : NULL, 4);
        if (st)
            return st;
    }
    set_out(g, 4, v, !nchw);
    if (nchw) {
        g->t.vn = v;
        g->t.vcf = -1;
    }
    return ST_OK;
}

static enum status emit_matmul(struct gctx *G, struct gnode *g, bool fused)
{
    struct ktensor *a = tin(G, g, 0);
    struct gnode *b = g->n_in > 1 ? input_node(G, g, 1) : NULL;
    if (!a || !b)
        return unsupported(G, g, "missing operands");
    bool ta = attr_b(g, "transpose_a"), tb = attr_b(g, "transpose_b");
    if (ta)
        return unsupported(G, g, "transpose_a is not supported");
    int av = kx_val(G->c, a, false, gname(G, g, NULL));
    int v;
    const char *ops[4] = {0};
    int n_ops = 0;
    static char dec[4][32];
    if (fused) {
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(gattr(g, "fused_ops"), "list"), "s");
        for (const cJSON *e = l ? l->child : NULL; e && n_ops < 4; e = e->next)
            if (cJSON_IsString(e))
                ops[n_ops] = decode_s(e->valuestring, dec[n_ops], sizeof dec[0]), n_ops++;
    }
    bool has_bias = n_ops > 0 && !strcmp(ops[0], "BiasAdd");
    if (n_ops > 0 && !has_bias)
        return act_after(G, g, ops[0], &av, NULL, 2);
    if (b->is_const && b->float_const && a->rank == 2) {
        struct gnode *bias = has_bias && g->n_in > 2 ? input_node(G, g, 2) : NULL;
        if (has_bias && (!bias || !bias->is_const))
            return unsupported(G, g, "BiasAdd argument is not a constant");
        int in[3] = {av, const_value(G, b), bias ? const_value(G, bias) : -1};
        v = kx_op(G->c, "Gemm", gname(G, g, n_ops > 1 ? "gemm" : NULL), in, bias ? 3 : 2);
        if (tb)
            graph_attr_int(G->c->g, kx_producer(G->c, v), "transB", 1);
    } else {
        if (tb)
            return unsupported(G, g, "transpose_b of a non-constant operand");
        struct ktensor *bt = b->is_const ? NULL : &b->t;
        int in[2] = {av, bt ? kx_val(G->c, bt, false, gname(G, g, NULL)) : const_value(G, b)};
        v = kx_op(G->c, "MatMul", gname(G, g, has_bias ? "matmul" : NULL), in, 2);
        if (has_bias) {
            struct gnode *bias = g->n_in > 2 ? input_node(G, g, 2) : NULL;
            if (!bias || !bias->is_const)
                return unsupported(G, g, "BiasAdd argument is not a constant");
            int in2[2] = {v, const_value(G, bias)};
            v = kx_op(G->c, "Add", gname(G, g, n_ops > 1 ? "bias" : NULL), in2, 2);
        }
    }
    for (int i = 1; i < n_ops; i++) {
        enum status st = act_after(G, g, ops[i], &v, NULL, a->rank);
        if (st)
            return st;
    }
    set_out(g, a->rank, v, false);
    return ST_OK;
}

/* Binary elementwise op; Const operands are broadcast in the tensor's layout. */
static enum status emit_binary(struct gctx *G, struct gnode *g, const char *op)
{
    struct gnode *s0 = input_node(G, g, 0), *s1 = input_node(G, g, 1);
    struct gnode *t0 = s0->is_const ? s1 : s0;
    if (t0->is_const)
        return unsupported(G, g, "both operands are constants");
    int r = t0->t.rank;
    bool cf = t0->t.vn < 0;
    int in[2];
    for (int i = 0; i < 2; i++) {
        struct gnode *s = i ? s1 : s0;
        if (s->is_const)
            in[i] = const_bcast(G, s, r, cf);
        else
            in[i] = kx_val(G->c, &s->t, cf && s->t.rank >= 3, gname(G, g, NULL));
        if (!s->is_const && s->t.rank > r)
            r = s->t.rank;
    }
    int v;
    if (!strcmp(op, "SquaredDifference")) {
        v = kx_op(G->c, "Sub", gname(G, g, "diff"), in, 2);
        int sq[2] = {v, v};
        v = kx_op(G->c, "Mul", gname(G, g, NULL), sq, 2);
    } else {
        v = kx_op(G->c, op, gname(G, g, NULL), in, 2);
    }
    set_out(g, r, v, cf && r >= 3);
    return ST_OK;
}

static enum status emit_unary(struct gctx *G, struct gnode *g, const char *op)
{
    struct ktensor *x = tin(G, g, 0);
    bool cf = x->vn < 0;
    int v = cf ? x->vcf : x->vn;
    if (!strcmp(op, "Rsqrt")) {
        v = kx_op(G->c, "Sqrt", gname(G, g, "sqrt"), &v, 1);
        op = "Reciprocal";
    } else if (!strcmp(op, "Square")) {
        int sq[2] = {v, v};
        v = kx_op(G->c, "Mul", gname(G, g, NULL), sq, 2);
        set_out(g, x->rank, v, cf);
        return ST_OK;
    }
    v = kx_op(G->c, op, gname(G, g, NULL), &v, 1);
    if (!strcmp(op, "LeakyRelu"))
        graph_attr_float(G->c->g, kx_producer(G->c, v), "alpha", attr_f(g, "alpha", 0.2));
    set_out(g, x->rank, v, cf);
    return ST_OK;
}

static enum status emit_pool(struct gctx *G, struct gnode *g, bool max)
{
    struct ktensor *x = tin(G, g, 0);
    int64_t k[4];
    enum status st = attr_ints(G, g, "ksize", 4, k, true);
    if (st)
        return st;
    if (x->rank != 4)
        return unsupported(G, g, "the input is not rank 4");
    char buf[32];
    bool nchw = !strcmp(attr_s(g, "data_format", "NHWC", buf, sizeof buf), "NCHW");
    int h = nchw ? 2 : 1;
    int64_t ks[2] = {k[h], k[h + 1]};
    int in = kx_val(G->c, x, !nchw, gname(G, g, NULL));
    int v = kx_op(G->c, max ? "MaxPool" : "AveragePool", gname(G, g, NULL), &in, 1);
    st = window(G, g, kx_producer(G->c, v), ks, false, &nchw);
    if (st)
        return st;
    set_out(g, 4, v, !nchw);
    if (nchw) {
        g->t.vn = v;
        g->t.vcf = -1;
    }
    return ST_OK;
}

static enum status emit_mean(struct gctx *G, struct gnode *g)
{
    struct ktensor *x = tin(G, g, 0);
    struct gnode *ax = input_node(G, g, 1);
    if (!ax || !ax->is_const || G->c->w[ax->mw].n != 2 || x->rank != 4)
        return unsupported(G, g, "only the mean over the two spatial axes of a rank-4 tensor "
                                 "is supported (its axes are stored in the weight shard)");
    bool keep = attr_b(g, "keep_dims");
    int in = kx_val(G->c, x, true, gname(G, g, NULL));
    int64_t axes[2] = {2, 3};
    int v = kx_op(G->c, "ReduceMean", gname(G, g, NULL), &in, 1);
    graph_attr_ints(G->c->g, kx_producer(G->c, v), "axes", axes, 2);
    graph_attr_int(G->c->g, kx_producer(G->c, v), "keepdims", keep);
    set_out(g, keep ? 4 : 2, v, true);
    return ST_OK;
}

/* Reshape: the target is in the shard. When every consumer is a MatMul whose
 * constant weight is [K, N], the target is [-1, K] (a flatten). */
static enum status emit_reshape(struct gctx *G, struct gnode *g)
{
    struct ktensor *x = tin(G, g, 0);
    struct gnode *sh = input_node(G, g, 1);
    if (!sh || !sh->is_const || G->c->w[sh->mw].rank != 1)
        return unsupported(G, g, "the target shape is not a constant vector");
    int64_t rank = G->c->w[sh->mw].dims[0], k = -1;
    bool flat = rank == 2;
    for (int i = 0; i < G->nn && flat; i++) {
        struct gnode *u = &G->n[i];
        for (int j = 0; j < u->n_in; j++) {
            if (input_node(G, u, j) != g)
                continue;
            struct gnode *w = u->n_in > 1 ? input_node(G, u, 1) : NULL;
            bool mm = (!strcmp(u->op, "MatMul") || !strcmp(u->op, "_FusedMatMul")) && j == 0 &&
                      w && w->is_const && G->c->w[w->mw].rank == 2 && !attr_b(u, "transpose_a");
            if (!mm) {
                flat = false;
                break;
            }
            int64_t kk = G->c->w[w->mw].dims[attr_b(u, "transpose_b") ? 1 : 0];
            if (k >= 0 && kk != k)
                flat = false;
            k = kk;
        }
    }
    int in[2] = {kx_val(G->c, x, false, gname(G, g, NULL)), -1};
    if (flat && k > 0) {
        int64_t shp[2] = {-1, k};
        in[1] = kx_const_i64(G->c, gname(G, g, "shape"), shp, 2);
    } else {
        in[1] = const_value(G, sh);
    }
    int v = kx_op(G->c, "Reshape", gname(G, g, NULL), in, 2);
    set_out(g, (int)rank, v, false);
    return ST_OK;
}

static enum status emit_squeeze(struct gctx *G, struct gnode *g)
{
    struct ktensor *x = tin(G, g, 0);
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(gattr(g, "squeeze_dims"), "list"), "i");
    int n = l ? cJSON_GetArraySize(l) : 0;
    if (n < 1 || n > x->rank)
        return unsupported(G, g, "squeeze_dims must list the axes");
    int64_t axes[IR_MAX_RANK];
    enum status st = attr_ints(G, g, "squeeze_dims", n, axes, true);
    if (st)
        return st;
    bool cf = x->vn < 0;
    for (int i = 0; i < n; i++) {
        if (axes[i] < 0)
            axes[i] += x->rank;
        if (cf)
            axes[i] = kx_cf_axis((int)axes[i], x->rank);
    }
    int in[2] = {cf ? x->vcf : x->vn, kx_const_i64(G->c, gname(G, g, "axes"), axes, n)};
    int v = kx_op(G->c, "Squeeze", gname(G, g, NULL), in, 2);
    int r = x->rank - n;
    /* channels-first order survives only if the channel axis and batch stay */
    set_out(g, r, v, false);
    if (cf && r >= 3)
        return unsupported(G, g, "squeezing a spatial axis of a channels-first tensor");
    return ST_OK;
}

static enum status emit_pad(struct gctx *G, struct gnode *g)
{
    struct ktensor *x = tin(G, g, 0);
    struct gnode *p = input_node(G, g, 1);
    if (!p || !p->is_const)
        return unsupported(G, g, "the paddings are not a constant");
    int in[2] = {kx_val(G->c, x, false, gname(G, g, NULL)), const_value(G, p)};
    int v = kx_op(G->c, "Pad", gname(G, g, NULL), in, 2);
    graph_attr_string(G->c->g, kx_producer(G->c, v), "mode",
                      !strcmp(g->op, "MirrorPad") ? "reflect" : "constant");
    set_out(g, x->rank, v, false);
    return ST_OK;
}

static enum status emit_node(struct gctx *G, struct gnode *g)
{
    const char *op = g->op;
    static const char *const unary_ops[][2] = {
        {"Relu", "Relu"}, {"Relu6", "Relu6"}, {"Sigmoid", "Sigmoid"}, {"Tanh", "Tanh"},
        {"Elu", "Elu"}, {"Selu", "Selu"}, {"Softplus", "Softplus"}, {"Exp", "Exp"},
        {"Sqrt", "Sqrt"}, {"Rsqrt", "Rsqrt"}, {"Square", "Square"}, {"Neg", "Neg"},
        {"Abs", "Abs"}, {"Log", "Log"}, {"Reciprocal", "Reciprocal"}, {"Floor", "Floor"},
        {"Ceil", "Ceil"}, {"LeakyRelu", "LeakyRelu"},
    };
    static const char *const binary_ops[][2] = {
        {"Add", "Add"}, {"AddV2", "Add"}, {"BiasAdd", "Add"}, {"Sub", "Sub"}, {"Mul", "Mul"},
        {"RealDiv", "Div"}, {"Div", "Div"}, {"Maximum", "Max"}, {"Minimum", "Min"},
        {"Pow", "Pow"}, {"SquaredDifference", "SquaredDifference"}, {"Prelu", "PRelu"},
    };
    for (size_t i = 0; i < sizeof unary_ops / sizeof unary_ops[0]; i++)
        if (!strcmp(op, unary_ops[i][0]))
            return emit_unary(G, g, unary_ops[i][1]);
    for (size_t i = 0; i < sizeof binary_ops / sizeof binary_ops[0]; i++)
        if (!strcmp(op, binary_ops[i][0])) {
            if (g->n_in != 2)
                return kerr(G->c, g->path, "input: expected 2 inputs, got %d", g->n_in);
            return emit_binary(G, g, binary_ops[i][1]);
        }
    if (!strcmp(op, "Conv2D") || !strcmp(op, "_FusedConv2D"))
        return emit_conv(G, g, false, op[0] == '_');
    if (!strcmp(op, "DepthwiseConv2dNative") || !strcmp(op, "FusedDepthwiseConv2dNative"))
        return emit_conv(G, g, true, op[0] == 'F');
    if (!strcmp(op, "MatMul") || !strcmp(op, "_FusedMatMul"))
        return emit_matmul(G, g, op[0] == '_');
    if (!strcmp(op, "MaxPool") || !strcmp(op, "AvgPool"))
        return emit_pool(G, g, op[0] == 'M');
    if (!strcmp(op, "Mean"))
        return emit_mean(G, g);
    if (!strcmp(op, "Reshape"))
        return emit_reshape(G, g);
    if (!strcmp(op, "Squeeze"))
        return emit_squeeze(G, g);
    if (!strcmp(op, "Pad") || !strcmp(op, "PadV2") || !strcmp(op, "MirrorPad"))
        return emit_pad(G, g);
    if (!strcmp(op, "FusedBatchNorm") || !strcmp(op, "FusedBatchNormV2") ||
        !strcmp(op, "FusedBatchNormV3")) {
        struct ktensor *x = tin(G, g, 0);
        int in[5] = {kx_val(G->c, x, x->rank >= 3, gname(G, g, NULL))};
        for (int i = 1; i < 5; i++) {
            struct gnode *a = i < g->n_in ? input_node(G, g, i) : NULL;
            if (!a || !a->is_const)
                return unsupported(G, g, "scale/offset/mean/variance are not constants");
            in[i] = const_value(G, a);
        }
        int v = kx_op(G->c, "BatchNormalization", gname(G, g, NULL), in, 5);
        graph_attr_float(G->c->g, kx_producer(G->c, v), "epsilon", attr_f(g, "epsilon", 1e-3));
        set_out(g, x->rank, v, x->rank >= 3);
        return ST_OK;
    }
    if (!strcmp(op, "Softmax")) {
        struct ktensor *x = tin(G, g, 0);
        int in = kx_val(G->c, x, false, gname(G, g, NULL));
        int v = kx_op(G->c, "Softmax", gname(G, g, NULL), &in, 1);
        graph_attr_int(G->c->g, kx_producer(G->c, v), "axis", -1);
        set_out(g, x->rank, v, false);
        return ST_OK;
    }
    if (!strcmp(op, "AddN")) {
        int in[16];
        struct ktensor *x0 = tin(G, g, 0);
        bool cf = x0->vn < 0;
        for (int i = 0; i < g->n_in; i++) {
            struct ktensor *x = tin(G, g, i);
            if (input_node(G, g, i)->is_const)
                return unsupported(G, g, "constant operand");
            in[i] = kx_val(G->c, x, cf, gname(G, g, NULL));
        }
        int v = kx_op(G->c, "Sum", gname(G, g, NULL), in, g->n_in);
        set_out(g, x0->rank, v, cf);
        return ST_OK;
    }
    if (!strcmp(op, "ConcatV2"))
        return unsupported(G, g, "its axis is stored in the weight shard, which is not read");
    return unsupported(G, g, NULL);
}

/* ---- driver ---------------------------------------------------------------------------- */

static enum status parse_nodes(struct gctx *G, const cJSON *nodes, const char *path)
{
    struct kctx *c = G->c;
    int n = cJSON_GetArraySize(nodes);
    G->n = xcalloc((size_t)n + 1, sizeof *G->n);
    G->byname = strmap_new();
    int i = 0;
    for (const cJSON *e = nodes->child; e; e = e->next, i++) {
        struct gnode *g = &G->n[G->nn++];
        snprintf(g->path, sizeof g->path, "%s.node[%d]", path, i);
        g->j = e;
        g->mw = -1;
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(e, "name");
        const cJSON *op = cJSON_GetObjectItemCaseSensitive(e, "op");
        const cJSON *in = cJSON_GetObjectItemCaseSensitive(e, "input");
        if (!cJSON_IsString(nm))
            return kerr(c, g->path, "name: expected a string, got %s", kjtype(nm));
        if (!cJSON_IsString(op))
            return kerr(c, g->path, "op: expected a string, got %s", kjtype(op));
        if (in && !cJSON_IsArray(in))
            return kerr(c, g->path, "input: expected an array of strings, got %s", kjtype(in));
        g->name = nm->valuestring;
        g->op = op->valuestring;
        g->attr = cJSON_GetObjectItemCaseSensitive(e, "attr");
        int k = 0;
        for (const cJSON *s = in ? in->child : NULL; s; s = s->next, k++) {
            if (!cJSON_IsString(s))
                return kerr(c, g->path, "input[%d]: expected a string, got %s", k, kjtype(s));
            if (s->valuestring[0] == '^')
                continue; /* control dependency */
            if (g->n_in >= 16)
                return kerr(c, g->path, "input: more than 16 data inputs");
            g->in[g->n_in++] = s->valuestring;
        }
        int dup;
        if (strmap_get(G->byname, g->name, &dup))
            return kerr(c, g->path, "name: node '%s' is defined twice", g->name);
        strmap_put(G->byname, g->name, i);
        if (!strcmp(g->op, "Const")) {
            g->is_const = true;
            g->mw = keras_manifest_find(c, g->name);
            if (g->mw < 0 || strcmp(c->w[g->mw].name, g->name))
                return kerr(c, g->path, "Const '%s' has no weightsManifest entry", g->name);
            g->float_const = dtype_is_float(c->w[g->mw].dt);
            g->done = true;
        }
    }
    return ST_OK;
}

static enum status placeholder(struct gctx *G, struct gnode *g)
{
    const cJSON *sh = cJSON_GetObjectItemCaseSensitive(gattr(g, "shape"), "shape");
    const cJSON *dl = cJSON_GetObjectItemCaseSensitive(sh, "dim");
    if (!cJSON_IsArray(dl))
        return kerr(G->c, g->path, "attr.shape.shape.dim: expected an array (the input's shape), "
                                   "got %s", kjtype(dl));
    struct ktensor t = {.dt = DT_FLOAT};
    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(gattr(g, "dtype"), "type");
    if (cJSON_IsString(dt) && !strncmp(dt->valuestring, "DT_", 3)) {
        char low[32];
        size_t i = 0;
        for (const char *s = dt->valuestring + 3; *s && i + 1 < sizeof low; s++)
            low[i++] = (char)(*s >= 'A' && *s <= 'Z' ? *s - 'A' + 'a' : *s);
        low[i] = 0;
        if (!dtype_from_name(low, &t.dt))
            t.dt = DT_FLOAT;
    }
    t.rank = cJSON_GetArraySize(dl);
    if (t.rank > IR_MAX_RANK)
        return kerr(G->c, g->path, "attr.shape: rank %d exceeds %d", t.rank, IR_MAX_RANK);
    int i = 0;
    static const char *const img[] = {"batch", "height", "width", "channels"};
    for (const cJSON *e = dl->child; e; e = e->next, i++) {
        int64_t v = -1;
        const cJSON *sz = cJSON_GetObjectItemCaseSensitive(e, "size");
        if (sz && !jint(sz, &v))
            return kerr(G->c, g->path, "attr.shape.shape.dim[%d].size: expected an integer, "
                                       "got %s", i, kjtype(sz));
        if (v >= 0) {
            t.dims[i] = (struct dim){v, -1};
        } else {
            const char *nm = i == 0 ? "batch" : t.rank == 4 ? img[i] : "seq";
            t.dims[i] = (struct dim){-1, graph_sym_add(G->c->g, nm, i == 0 ? 1 : 224)};
        }
    }
    int v = graph_value_get(G->c->g, graph_strdup(G->c->g, g->name));
    graph_value_set_type(G->c->g, v, t.dt, t.rank, t.dims);
    graph_input_add(G->c->g, v);
    t.vn = v;
    t.vcf = t.rank < 3 ? v : -1;
    g->t = t;
    g->done = true;
    return ST_OK;
}

enum status keras_tfjs_graph_build(struct kctx *c, const cJSON *topo, const char *path)
{
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(topo, "node");
    char p[64];
    snprintf(p, sizeof p, "%s.node", path);
    if (!cJSON_IsArray(nodes))
        return kerr(c, p, "expected an array of nodes, got %s", kjtype(nodes));
    if (!c->w)
        return kerr(c, "weightsManifest", "missing: a graph model's constants are declared "
                                         "there");
    struct gctx G = {.c = c};
    enum status st = parse_nodes(&G, nodes, path);
    for (int i = 0; !st && i < G.nn; i++)
        if (!strcmp(G.n[i].op, "Placeholder"))
            st = placeholder(&G, &G.n[i]);
    /* Run nodes whose inputs exist until none is left or none can run. */
    for (bool progress = true; !st && progress;) {
        progress = false;
        for (int i = 0; !st && i < G.nn; i++) {
            struct gnode *g = &G.n[i];
            if (g->done || !strcmp(g->op, "NoOp"))
                continue;
            bool ready = true;
            for (int k = 0; k < g->n_in && ready && !st; k++) {
                struct gnode *s = input_node(&G, g, k);
                if (!s)
                    st = kerr(c, g->path, "input[%d]: '%s' is not a node of the graph", k,
                              g->in[k]);
                else if (output_index_nonzero(g->in[k]))
                    st = unsupported(&G, g, "it reads a second output of another node");
                else
                    ready = s->done;
            }
            if (st || !ready)
                continue;
            if (!strcmp(g->op, "Identity") || !strcmp(g->op, "StopGradient") ||
                !strcmp(g->op, "Snapshot")) {
                struct gnode *s = input_node(&G, g, 0);
                if (!s || s->is_const) {
                    st = unsupported(&G, g, "identity of a constant");
                    break;
                }
                g->t = s->t; /* alias: no node */
                g->done = true;
                progress = true;
                continue;
            }
            if (g->n_in < 1)
                st = kerr(c, g->path, "input: op %s needs inputs", g->op);
            if (!st)
                st = emit_node(&G, g);
            g->done = !st;
            progress = true;
        }
    }
    for (int i = 0; !st && i < G.nn; i++)
        if (!G.n[i].done && strcmp(G.n[i].op, "NoOp"))
            st = kerr(c, G.n[i].path, "node '%s' can never run: its inputs form a cycle",
                      G.n[i].name);
    /* Outputs: computed nodes that nothing reads. */
    for (int i = 0; !st && i < G.nn; i++) {
        struct gnode *g = &G.n[i];
        if (g->is_const || !strcmp(g->op, "NoOp") || !strcmp(g->op, "Placeholder"))
            continue;
        bool used = false;
        for (int j = 0; j < G.nn && !used; j++)
            for (int k = 0; k < G.n[j].n_in && !used; k++)
                used = input_node(&G, &G.n[j], k) == g;
        if (used)
            continue;
        int v = kx_val(c, &g->t, false, g->name);
        if (c->g->values[v].flags & (VAL_OUTPUT | VAL_INPUT) ||
            graph_value_find(c->g, g->name) < 0)
            v = kx_op(c, "Identity", graph_strdup(c->g, g->name), &v, 1);
        graph_output_add(c->g, v);
    }
    free(G.n);
    strmap_free(G.byname);
    return st;
}
