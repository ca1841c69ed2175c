/*
 * keras_tfjs_detect.c - TF.js graph-model ops of detection post-processing
 * and loop bookkeeping, mapped to IR ops whose shape inference folds what
 * the model computes from shapes (Shape -> Gather -> Slice bounds):
 *
 *   Cast -> Cast
 *   Shape -> Shape (+ Gather back to TF's order for a channels-first value)
 *   Slice -> Slice (ends = begin + size; a size of -1: to the end)
 *   Select, SelectV2 -> Where       Where (one input) -> NonZero + Transpose
 *   Fill -> Expand                  ZerosLike, OnesLike -> Expand of 0 / 1
 *   Range -> Range                  Size -> Size       Rank -> Constant
 *   NonMaxSuppressionV3/V4/V5 -> Unsqueeze + NonMaxSuppression + Gather (the
 *     selected indices; V5's scores Gather them, V4/V5's count is their Size)
 *
 * Any other op is an error naming the node, unless the node declares its
 * outputs' shapes (attr _output_shapes, as TF writes them): then it is kept
 * as a node of domain ai.tensorflow with those shapes, reported as not
 * covered, and what follows it is counted (tg_opaque).
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "graph/keras/keras_tfjs_impl.h"

/* Input i in TF's order: a Const's value or the tensor; *rank its rank. */
static int value_of(struct gctx *G, struct gnode *node, int i, int *rank)
{
    struct gnode *s = tg_input_node(G, node, i);
    if (s->is_const) {
        *rank = G->c->w[s->mw].rank;
        return tg_const_value(G, s);
    }
    struct ktensor *t = tg_tin(G, node, i);
    *rank = t->rank;
    return kx_val(G->c, t, false, tg_gname(G, node, NULL));
}

static int const_i64(struct gctx *G, struct gnode *node, const char *sfx, int64_t v)
{
    return kx_const_i64(G->c, tg_gname(G, node, sfx), &v, 1);
}

/* Input i's dims as a rank-1 int64 value in TF's order (no Transpose of a
 * channels-first tensor: its Shape is gathered back). */
static int shape_of(struct gctx *G, struct gnode *node, int i, int *rank)
{
    struct gnode *s = tg_input_node(G, node, i);
    struct ktensor *x = s->is_const ? NULL : tg_tin(G, node, i);
    if (!x || !tg_is_cf(x)) {
        int in = value_of(G, node, i, rank);
        return kx_op(G->c, OP_Shape, tg_gname(G, node, NULL), &in, 1);
    }
    int in = x->vcf;
    *rank = x->rank;
    int v = kx_op(G->c, OP_Shape, tg_gname(G, node, "shape_cf"), &in, 1);
    int64_t perm[IR_MAX_RANK];
    for (int a = 0; a < x->rank; a++)
        perm[a] = kx_cf_axis(a, x->rank);
    int gi[2] = {v, kx_const_i64(G->c, tg_gname(G, node, "perm"), perm, x->rank)};
    v = kx_op(G->c, OP_Gather, tg_gname(G, node, NULL), gi, 2);
    graph_attr_int(G->c->g, kx_producer(G->c, v), "axis", 0);
    return v;
}

static enum status emit_shape_op(struct gctx *G, struct gnode *node)
{
    int r;
    int v = shape_of(G, node, 0, &r);
    tg_set_out(node, 1, v, false);
    node->t.dims[0] = (struct dim){r, -1};
    node->t.dt = DT_INT64;
    return ST_OK;
}

static enum status emit_size_rank(struct gctx *G, struct gnode *node)
{
    int r, v;
    if (!strcmp(node->op, "Rank")) {
        value_of(G, node, 0, &r);
        int64_t rr = r;
        v = kx_const_i64(G->c, tg_gname(G, node, NULL), &rr, 1);
        int in[2] = {v, kx_const_i64(G->c, tg_gname(G, node, "axes"), &(int64_t){0}, 1)};
        v = kx_op(G->c, OP_Squeeze, tg_gname(G, node, "scalar"), in, 2);
    } else {
        int in = value_of(G, node, 0, &r);
        v = kx_op(G->c, OP_Size, tg_gname(G, node, NULL), &in, 1);
    }
    tg_set_out(node, 0, v, false);
    node->t.dt = DT_INT64;
    return ST_OK;
}

/* Slice(x, begin, size): ends = begin + size, or the end where size < 0. */
static enum status emit_slice(struct gctx *G, struct gnode *node)
{
    int r, rb, rs;
    int x = value_of(G, node, 0, &r), b = value_of(G, node, 1, &rb), sz = value_of(G, node, 2, &rs);
    if (rb != 1 || rs != 1)
        return kerr(G->c, node->path, "begin/size: ranks %d and %d, expected 1", rb, rs);
    int in64[2];
    for (int k = 0; k < 2; k++) { /* int32 begin/size: as int64, like the limits below */
        in64[k] =
            kx_op(G->c, OP_Cast, tg_gname(G, node, k ? "size64" : "begin64"), k ? &sz : &b, 1);
        graph_attr_int(G->c->g, kx_producer(G->c, in64[k]), "to", DT_INT64);
    }
    int add[2] = {in64[0], in64[1]};
    int e = kx_op(G->c, OP_Add, tg_gname(G, node, "end"), add, 2);
    int lt[2] = {in64[1], const_i64(G, node, "zero", 0)};
    int neg = kx_op(G->c, OP_Less, tg_gname(G, node, "to_end"), lt, 2);
    int wh[3] = {neg, const_i64(G, node, "max", (int64_t)1 << 53), e}; /* exact as a double */
    e = kx_op(G->c, OP_Where, tg_gname(G, node, "ends"), wh, 3);
    int in[3] = {x, in64[0], e};
    int v = kx_op(G->c, OP_Slice, tg_gname(G, node, NULL), in, 3);
    struct ktensor *xt = tg_input_node(G, node, 0)->is_const ? NULL : tg_tin(G, node, 0);
    tg_set_out(node, r, v, false);
    node->t.dt = xt ? xt->dt : DT_FLOAT;
    return ST_OK;
}

static enum status emit_cast(struct gctx *G, struct gnode *node)
{
    struct ktensor *x = tg_tin(G, node, 0);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(tg_gattr(node, "DstT"), "type");
    enum dtype dt = DT_FLOAT;
    if (cJSON_IsString(t) && !strncmp(t->valuestring, "DT_", 3)) {
        char low[32];
        size_t i = 0;
        for (const char *c = t->valuestring + 3; *c && i + 1 < sizeof low; c++)
            low[i++] = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
        low[i] = 0;
        if (!dtype_from_name(low, &dt))
            return kerr(G->c, node->path, "attr.DstT: unknown type \"%s\"", t->valuestring);
    }
    bool cf = tg_is_cf(x);
    int in = kx_val(G->c, x, cf, tg_gname(G, node, NULL));
    int v = kx_op(G->c, OP_Cast, tg_gname(G, node, NULL), &in, 1);
    graph_attr_int(G->c->g, kx_producer(G->c, v), "to", dt);
    tg_set_out(node, x->rank, v, cf);
    node->t.dt = dt;
    return ST_OK;
}

static enum status emit_select(struct gctx *G, struct gnode *node)
{
    int r[3], in[3], rank = 0;
    for (int i = 0; i < 3; i++) {
        in[i] = value_of(G, node, i, &r[i]);
        rank = r[i] > rank ? r[i] : rank;
    }
    if (!strcmp(node->op, "Select") && r[0] == 1 && rank > 1) { /* a vector picks rows */
        int64_t ax[IR_MAX_RANK];
        for (int a = 1; a < rank; a++)
            ax[a - 1] = a;
        int un[2] = {in[0], kx_const_i64(G->c, tg_gname(G, node, "rows"), ax, rank - 1)};
        in[0] = kx_op(G->c, OP_Unsqueeze, tg_gname(G, node, "cond"), un, 2);
    }
    int v = kx_op(G->c, OP_Where, tg_gname(G, node, NULL), in, 3);
    tg_set_out(node, rank, v, false);
    return ST_OK;
}

/* Where(cond): the [n, rank] coordinates of the true elements. */
static enum status emit_where1(struct gctx *G, struct gnode *node)
{
    int r;
    int in = value_of(G, node, 0, &r);
    int v = kx_op(G->c, OP_NonZero, tg_gname(G, node, "nonzero"), &in, 1);
    v = kx_op(G->c, OP_Transpose, tg_gname(G, node, NULL), &v, 1);
    graph_attr_ints(G->c->g, kx_producer(G->c, v), "perm", (int64_t[]){1, 0}, 2);
    tg_set_out(node, 2, v, false);
    node->t.dims[1] = (struct dim){r, -1};
    node->t.dt = DT_INT64;
    return ST_OK;
}

/* Fill(dims, value), ZerosLike(x), OnesLike(x): value broadcast to a shape. */
static enum status emit_fill(struct gctx *G, struct gnode *node)
{
    int r, rv, in[2];
    if (!strcmp(node->op, "Fill")) {
        in[0] = value_of(G, node, 1, &rv);
        in[1] = value_of(G, node, 0, &r);
        struct gnode *d = tg_input_node(G, node, 0);
        r = d->is_const && G->c->w[d->mw].rank == 1 ? (int)G->c->w[d->mw].dims[0]
            : !d->is_const && tg_tin(G, node, 0)->dims[0].sym < 0
                ? (int)tg_tin(G, node, 0)->dims[0].v
                : -1;
        if (r < 0 || r > IR_MAX_RANK)
            return tg_unsupported(G, node, "the rank of its dims is not known when the model is "
                                           "read");
    } else {
        double one = node->op[0] == 'O';
        in[0] = kx_const_f(G->c, tg_gname(G, node, "value"), &one, 0, NULL);
        in[1] = shape_of(G, node, 0, &r);
    }
    int v = kx_op(G->c, OP_Expand, tg_gname(G, node, NULL), in, 2);
    tg_set_out(node, r, v, false);
    return ST_OK;
}

static enum status emit_range(struct gctx *G, struct gnode *node)
{
    int r, in[3];
    for (int i = 0; i < 3; i++)
        in[i] = value_of(G, node, i, &r);
    int v = kx_op(G->c, OP_Range, tg_gname(G, node, NULL), in, 3);
    tg_set_out(node, 1, v, false);
    return ST_OK;
}

/* NonMaxSuppressionV3/V4/V5(boxes [N,4], scores [N], max_output_size,
 * iou_threshold, score_threshold[, soft_nms_sigma]). */
static enum status emit_nms(struct gctx *G, struct gnode *node)
{
    int rb, rs, r;
    int bx = value_of(G, node, 0, &rb), sc = value_of(G, node, 1, &rs);
    if (rb != 2 || rs != 1)
        return kerr(G->c, node->path, "boxes/scores: ranks %d and %d, expected 2 and 1", rb, rs);
    int ub[2] = {bx, kx_const_i64(G->c, tg_gname(G, node, "batch_axis"), (int64_t[]){0}, 1)};
    int us[2] = {sc, kx_const_i64(G->c, tg_gname(G, node, "class_axes"), (int64_t[]){0, 1}, 2)};
    int in[5] = {kx_op(G->c, OP_Unsqueeze, tg_gname(G, node, "boxes"), ub, 2),
                 kx_op(G->c, OP_Unsqueeze, tg_gname(G, node, "scores"), us, 2), -1, -1, -1};
    for (int i = 2; i < 5; i++)
        in[i] = value_of(G, node, i, &r);
    int sel = kx_op(G->c, OP_NonMaxSuppression, tg_gname(G, node, "nms"), in, 5);
    int gi[2] = {sel, const_i64(G, node, "column", 2)};
    int idx = kx_op(G->c, OP_Gather, tg_gname(G, node, NULL), gi, 2);
    graph_attr_int(G->c->g, kx_producer(G->c, idx), "axis", 1);
    idx = kx_op(G->c, OP_Squeeze, tg_gname(G, node, "indices"),
                (int[]){idx, kx_const_i64(G->c, tg_gname(G, node, "sq"), (int64_t[]){1}, 1)}, 2);
    tg_set_out(node, 1, idx, false);
    node->t.dt = DT_INT64;
    bool v5 = !strcmp(node->op, "NonMaxSuppressionV5");
    if (v5) {
        int gs[2] = {sc, idx};
        kx_tensor(tg_out(node, 1), 1, kx_op(G->c, OP_Gather, tg_gname(G, node, "selected_scores"),
                                            gs, 2), false);
    }
    if (v5 || !strcmp(node->op, "NonMaxSuppressionV4")) {
        struct ktensor *n = tg_out(node, v5 ? 2 : 1);
        kx_tensor(n, 0, kx_op(G->c, OP_Size, tg_gname(G, node, "valid_outputs"), &idx, 1), false);
        n->dt = DT_INT64;
    }
    return ST_OK;
}

static const struct {
    const char *op;
    int min_in;
    enum status (*fn)(struct gctx *G, struct gnode *node);
} detect_ops[] = {
    {"Cast", 1, emit_cast},          {"Shape", 1, emit_shape_op},     {"Size", 1, emit_size_rank},
    {"Rank", 1, emit_size_rank},     {"Slice", 3, emit_slice},
    {"Select", 3, emit_select},      {"SelectV2", 3, emit_select},
    {"Where", 1, emit_where1},       {"Fill", 2, emit_fill},
    {"ZerosLike", 1, emit_fill},     {"OnesLike", 1, emit_fill},
    {"Range", 3, emit_range},        {"NonMaxSuppressionV3", 5, emit_nms},
    {"NonMaxSuppressionV4", 5, emit_nms}, {"NonMaxSuppressionV5", 6, emit_nms},
};

enum status keras_tfjs_emit_detect(struct gctx *G, struct gnode *node)
{
    for (size_t i = 0; i < sizeof detect_ops / sizeof detect_ops[0]; i++) {
        if (strcmp(node->op, detect_ops[i].op))
            continue;
        if (node->n_in < detect_ops[i].min_in)
            return kerr(G->c, node->path, "input: op %s needs %d data inputs, got %d", node->op,
                        detect_ops[i].min_in, node->n_in);
        return detect_ops[i].fn(G, node);
    }
    return ST_ENOTFOUND;
}

/* "DT_FLOAT" -> DT_FLOAT (attr key's "type"), def if absent or unknown. */
static enum dtype attr_dtype(const struct gnode *node, const char *key, enum dtype def)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(tg_gattr(node, key), "type");
    char low[32];
    size_t i = 0;
    if (!cJSON_IsString(t) || strncmp(t->valuestring, "DT_", 3))
        return def;
    for (const char *c = t->valuestring + 3; *c && i + 1 < sizeof low; c++)
        low[i++] = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
    low[i] = 0;
    enum dtype dt;
    return dtype_from_name(low, &dt) ? dt : def;
}

/* Declared shape k (a TensorShapeProto: {"dim": [{"size": "4"}]}) into t. */
static enum status declared(struct gctx *G, struct gnode *node, const cJSON *s, int k,
                            struct ktensor *t)
{
    const cJSON *dl = cJSON_GetObjectItemCaseSensitive(s, "dim");
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "unknownRank")) ||
        cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "unknown_rank")))
        return tg_unsupported(G, node, "its declared output shape has an unknown rank");
    int r = dl ? cJSON_GetArraySize(dl) : 0;
    if ((dl && !cJSON_IsArray(dl)) || r > IR_MAX_RANK)
        return kerr(G->c, node->path, "attr._output_shapes.list.shape[%d].dim: expected an array "
                    "of at most %d dims", k, IR_MAX_RANK);
    kx_tensor(t, r, -1, false);
    int i = 0;
    double numel = 1;
    for (const cJSON *e = dl ? dl->child : NULL; e; e = e->next, i++) {
        const cJSON *sz = cJSON_GetObjectItemCaseSensitive(e, "size");
        char *end = NULL;
        bool num_ok = !cJSON_IsNumber(sz) || fabs(sz->valuedouble) <= 0x1p40;
        long long v = cJSON_IsString(sz) ? strtoll(sz->valuestring, &end, 10)
                      : cJSON_IsNumber(sz) && num_ok ? (long long)sz->valuedouble : -1;
        if (!num_ok || (end && *end) || v < -1 || v > (1LL << 40))
            return kerr(G->c, node->path, "attr._output_shapes.list.shape[%d].dim[%d].size: "
                        "expected an integer from -1 to 2^40", k, i);
        t->dims[i] = (struct dim){v, -1};
        numel *= v > 0 ? (double)v : 1;
    }
    if (numel > 0x1p40)
        return kerr(G->c, node->path, "attr._output_shapes.list.shape[%d]: %.3g elements, more "
                    "than 2^40", k, numel);
    t->dt = attr_dtype(node, "T", attr_dtype(node, "dtype", DT_FLOAT));
    return ST_OK;
}

enum status tg_opaque(struct gctx *G, struct gnode *node)
{
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(tg_gattr(node, "_output_shapes"), "list"), "shape");
    int n = cJSON_IsArray(l) ? cJSON_GetArraySize(l) : 0;
    if (n < 1 || n > 16)
        return tg_unsupported(G, node, NULL);
    struct ktensor t[16];
    int k = 0, in[16], out[16];
    for (const cJSON *s = l->child; s; s = s->next, k++) {
        enum status st = declared(G, node, s, k, &t[k]);
        if (st)
            return st;
    }
    for (int i = 0; i < node->n_in; i++) {
        int r;
        in[i] = value_of(G, node, i, &r);
    }
    for (k = 0; k < n; k++) {
        char sfx[24];
        snprintf(sfx, sizeof sfx, "out%d", k);
        out[k] = graph_value_get(G->c->g, tg_gname(G, node, k ? sfx : NULL));
        graph_value_set_type(G->c->g, out[k], t[k].dt, t[k].rank, t[k].dims);
    }
    graph_node_add_type(G->c->g, node->op, "ai.tensorflow", G->c->g->values[out[0]].name, in,
                        node->n_in, out, n);
    for (k = 0; k < n; k++) {
        struct ktensor *o = tg_out(node, k);
        *o = t[k];
        o->vn = out[k];
    }
    return ST_OK;
}
