/*
 * keras_tfjs_shape.c - TF.js graph-model shape, index and multi-output ops.
 *
 * Their integer operands (axes, paddings, sizes, slice bounds, k) are Consts
 * whose values sit in the weight shards; tg_input_ints reads them
 * (keras_shard.c) and each op says which operand it could not read. An op
 * keeps the layout its input is held in where the mapping is exact
 * (ConcatV2, Pad, keep-dims reductions, Resize work channels-first after a
 * convolution without a Transpose); the others work in TF's own order.
 *
 *   Pad/PadV2/MirrorPad -> Pad          ConcatV2 -> Concat
 *   Mean/Sum/Max/Min/Prod -> Reduce*    Reshape -> Reshape
 *   Squeeze -> Squeeze                  ExpandDims -> Unsqueeze
 *   Transpose -> Transpose              ResizeBilinear/NearestNeighbor -> Resize
 *   StridedSlice -> Slice (+ Squeeze)   GatherV2 -> Gather, GatherNd -> GatherND
 *   (its index depth known: a Const, Pack or ConcatV2 of known parts)
 *   Pack -> Unsqueeze + Concat
 *   Unpack -> Split + Squeeze           Split/SplitV -> Split
 *   TopKV2 -> TopK                      ArgMax/ArgMin -> ArgMax/ArgMin
 */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/keras/keras_tfjs_impl.h"
#include "util/xalloc.h"

/* TF axis a of a rank-r tensor -> axis in the layout cf. */
static int lay_axis(int64_t a, int r, bool cf)
{
    if (a < 0)
        a += r;
    return cf ? kx_cf_axis((int)a, r) : (int)a;
}

/* An input tensor or, for a Const, its value (Keras order). */
static int operand(struct gctx *G, struct gnode *node, int i, bool cf, int *rank)
{
    struct gnode *s = tg_input_node(G, node, i);
    if (s->is_const) {
        *rank = G->c->w[s->mw].rank;
        return tg_const_value(G, s);
    }
    struct ktensor *t = tg_tin(G, node, i);
    *rank = t->rank;
    return kx_val(G->c, t, cf && t->rank >= 3, tg_gname(G, node, NULL));
}

/* Dim a (TF order) of input i when known at build time, else -1. */
static int64_t in_dim(struct gctx *G, struct gnode *node, int i, int a)
{
    struct gnode *s = tg_input_node(G, node, i);
    if (s->is_const) {
        const struct kweight *w = &G->c->w[s->mw];
        return a >= 0 && a < w->rank ? w->dims[a] : -1;
    }
    struct ktensor *t = tg_tin(G, node, i);
    return a >= 0 && a < t->rank && t->dims[a].sym < 0 ? t->dims[a].v : -1;
}

/* An int attribute ("i": "3" or 3), def when absent. */
static int64_t attr_int(const struct gnode *node, const char *key, int64_t def)
{
    const cJSON *i = cJSON_GetObjectItemCaseSensitive(tg_gattr(node, key), "i");
    if (cJSON_IsString(i))
        return strtoll(i->valuestring, NULL, 10);
    return cJSON_IsNumber(i) ? (int64_t)i->valuedouble : def;
}

/* Input i of node as one axis of a rank-`rank` tensor, made non-negative. */
static enum status input_axis(struct gctx *G, struct gnode *node, int i, int rank, int64_t *axis)
{
    int64_t n;
    enum status st = tg_input_ints(G, node, i, "its axis", 1, axis, &n);
    if (st)
        return st;
    if (n != 1 || *axis < -rank || *axis >= rank)
        return kerr(G->c, node->path, "axis: expected one value from %d to %d", -rank, rank - 1);
    if (*axis < 0)
        *axis += rank;
    return ST_OK;
}

/* Node op with n_out outputs named after node; returns the first output. */
static int op_multi(struct gctx *G, struct gnode *node, enum op op, const int *in, int n_in,
                    int *out, int n_out)
{
    for (int k = 0; k < n_out; k++) {
        char sfx[24];
        snprintf(sfx, sizeof sfx, "out%d", k);
        out[k] = graph_value_get(G->c->g, graph_strdup(G->c->g, tg_gname(G, node, k ? sfx : NULL)));
    }
    graph_node_add(G->c->g, op, G->c->g->values[out[0]].name, in, n_in, out, n_out);
    return out[0];
}

/* Pad. Without its paddings' values (no shard beside the model) the Pad is
 * kept with unknown paddings: the model still loads, and the shapes after
 * it are unknown (reported as not counted), never guessed. */
static enum status emit_pad(struct gctx *G, struct gnode *node)
{
    struct ktensor *x = tg_tin(G, node, 0);
    struct gnode *pk = node->n_in > 1 ? tg_input_node(G, node, 1) : NULL;
    const int64_t *known;
    if (pk && pk->is_const && tg_const_ints(G, pk, &known) < 0) {
        int in[2] = {kx_val(G->c, x, false, tg_gname(G, node, NULL)), tg_const_value(G, pk)};
        int v = kx_op(G->c, OP_Pad, tg_gname(G, node, NULL), in, 2);
        graph_attr_string(G->c->g, kx_producer(G->c, v), "mode",
                          !strcmp(node->op, "MirrorPad") ? "reflect" : "constant");
        tg_set_out(node, x->rank, v, false);
        return ST_OK;
    }
    if (pk && !pk->is_const) { /* computed [rank, 2] paddings -> [begins..., ends...] */
        int pv = kx_val(G->c, tg_tin(G, node, 1), false, tg_gname(G, node, NULL));
        pv = kx_op(G->c, OP_Transpose, tg_gname(G, node, "pads_t"), &pv, 1);
        graph_attr_ints(G->c->g, kx_producer(G->c, pv), "perm", (int64_t[]){1, 0}, 2);
        int rs[2] = {pv, kx_const_i64(G->c, tg_gname(G, node, "flat"), (int64_t[]){-1}, 1)};
        int in[2] = {kx_val(G->c, x, false, tg_gname(G, node, NULL)),
                     kx_op(G->c, OP_Reshape, tg_gname(G, node, "pads"), rs, 2)};
        int v = kx_op(G->c, OP_Pad, tg_gname(G, node, NULL), in, 2);
        graph_attr_string(G->c->g, kx_producer(G->c, v), "mode",
                          !strcmp(node->op, "MirrorPad") ? "reflect" : "constant");
        tg_set_out(node, x->rank, v, false);
        return ST_OK;
    }
    int64_t p[2 * IR_MAX_RANK], n;
    enum status st = tg_input_ints(G, node, 1, "its paddings", 2 * IR_MAX_RANK, p, &n);
    if (st)
        return st;
    if (n != 2 * x->rank)
        return kerr(G->c, node->path, "paddings: %lld values for a rank-%d tensor, expected %d",
                    (long long)n, x->rank, 2 * x->rank);
    bool cf = tg_is_cf(x);
    int64_t pads[2 * IR_MAX_RANK];
    for (int a = 0; a < x->rank; a++) {
        int j = lay_axis(a, x->rank, cf);
        pads[j] = p[2 * a];
        pads[x->rank + j] = p[2 * a + 1];
    }
    int in[2] = {kx_val(G->c, x, cf, tg_gname(G, node, NULL)),
                 kx_const_i64(G->c, tg_gname(G, node, "pads"), pads, 2 * x->rank)};
    int v = kx_op(G->c, OP_Pad, tg_gname(G, node, NULL), in, 2);
    graph_attr_string(G->c->g, kx_producer(G->c, v), "mode",
                      !strcmp(node->op, "MirrorPad") ? "reflect" : "constant");
    tg_set_out(node, x->rank, v, cf);
    return ST_OK;
}

static enum status emit_concat(struct gctx *G, struct gnode *node)
{
    int n = node->n_in - 1, in[16], r = -1;
    int64_t axis, na;
    if (n < 1)
        return kerr(G->c, node->path, "input: ConcatV2 needs values and an axis");
    enum status st = tg_input_ints(G, node, n, "its axis", 1, &axis, &na);
    if (st)
        return st;
    /* channels-first when the first value is held so and no constant block
     * would need permuting */
    bool cf = !tg_input_node(G, node, 0)->is_const && tg_is_cf(tg_tin(G, node, 0));
    for (int i = 0; i < n && cf; i++) {
        struct gnode *s = tg_input_node(G, node, i);
        cf = !s->is_const || G->c->w[s->mw].rank < 3;
    }
    for (int i = 0; i < n; i++) {
        int ri;
        in[i] = operand(G, node, i, cf, &ri);
        if (r >= 0 && ri != r)
            return kerr(G->c, node->path, "input[%d]: rank %d, expected %d like input[0]", i, ri,
                        r);
        r = ri;
    }
    if (na != 1 || axis < -r || axis >= (r ? r : 1))
        return kerr(G->c, node->path, "axis: expected one value from %d to %d", -r, r - 1);
    int v = kx_op(G->c, OP_Concat, tg_gname(G, node, NULL), in, n);
    graph_attr_int(G->c->g, kx_producer(G->c, v), "axis", lay_axis(axis, r, cf));
    tg_set_out(node, r, v, cf);
    int a = (int)(axis < 0 ? axis + r : axis);
    int64_t sum = 0;
    for (int i = 0; i < n && sum >= 0; i++)
        sum = in_dim(G, node, i, a) < 0 ? -1 : sum + in_dim(G, node, i, a);
    if (r > 0)
        node->t.dims[a].v = sum; /* known when every part is: GatherNd's index depth */
    return ST_OK;
}

static enum status emit_reduce(struct gctx *G, struct gnode *node, enum op op)
{
    struct ktensor *x = tg_tin(G, node, 0);
    int64_t ax[IR_MAX_RANK] = {1, 2}, n = 2;
    struct gnode *ak = node->n_in > 1 ? tg_input_node(G, node, 1) : NULL;
    const int64_t *known;
    /* Without the shard, a Mean over two axes of a rank-4 tensor is the
     * spatial mean: Keras's global average pooling, the only such export. */
    bool pooling = op == OP_ReduceMean && x->rank == 4 && ak && ak->is_const &&
                   G->c->w[ak->mw].n == 2 && tg_const_ints(G, ak, &known) < 0;
    enum status st =
        pooling ? ST_OK : tg_input_ints(G, node, 1, "its axes", IR_MAX_RANK, ax, &n);
    if (st)
        return st;
    bool keep = tg_attr_b(node, "keep_dims");
    /* Reducing away every spatial axis of a channels-first tensor leaves
     * [N, C], the same in both orders. */
    bool spatial = tg_is_cf(x) && n == x->rank - 2;
    for (int i = 0; i < n && spatial; i++)
        spatial = (ax[i] < 0 ? ax[i] + x->rank : ax[i]) >= 1 &&
                  (ax[i] < 0 ? ax[i] + x->rank : ax[i]) <= x->rank - 2;
    bool cf = tg_is_cf(x) && (keep || spatial);
    for (int i = 0; i < n; i++) {
        if (ax[i] < -x->rank || ax[i] >= x->rank)
            return kerr(G->c, node->path, "axes: %lld is out of range for rank %d",
                        (long long)ax[i], x->rank);
        ax[i] = lay_axis(ax[i], x->rank, cf);
    }
    int in[2] = {kx_val(G->c, x, cf, tg_gname(G, node, NULL)), -1};
    int v;
    if (op == OP_ReduceSum) {
        in[1] = kx_const_i64(G->c, tg_gname(G, node, "axes"), ax, (int)n);
        v = kx_op(G->c, op, tg_gname(G, node, NULL), in, 2);
    } else {
        v = kx_op(G->c, op, tg_gname(G, node, NULL), in, 1);
        graph_attr_ints(G->c->g, kx_producer(G->c, v), "axes", ax, (int)n);
    }
    graph_attr_int(G->c->g, kx_producer(G->c, v), "keepdims", keep);
    tg_set_out(node, keep ? x->rank : x->rank - (int)n, v, cf);
    return ST_OK;
}

/* Reshape in TF order. Without the target's values, a Reshape whose
 * consumers are all MatMuls with a constant [K, N] weight is a flatten to
 * [-1, K]; otherwise the target stays unknown (and so does what follows). */
static enum status emit_reshape(struct gctx *G, struct gnode *node)
{
    struct ktensor *x = tg_tin(G, node, 0);
    struct gnode *sh = tg_input_node(G, node, 1);
    if (!sh || !sh->is_const || G->c->w[sh->mw].rank != 1)
        return tg_unsupported(G, node, "the target shape is not a constant vector");
    int64_t rank = G->c->w[sh->mw].dims[0], k = -1;
    const int64_t *known;
    bool flat = rank == 2 && tg_const_ints(G, sh, &known) < 0;
    int gi = (int)(node - G->n);
    for (int e = G->cons_off[gi]; e < G->cons_off[gi + 1] && flat; e++) {
        struct gnode *u = &G->n[G->cons[e]];
        for (int j = 0; j < u->n_in && flat; j++) {
            if (tg_input_node(G, u, j) != node)
                continue;
            struct gnode *w = u->n_in > 1 ? tg_input_node(G, u, 1) : NULL;
            flat = (!strcmp(u->op, "MatMul") || !strcmp(u->op, "_FusedMatMul")) && j == 0 &&
                   w && w->is_const && G->c->w[w->mw].rank == 2 && !tg_attr_b(u, "transpose_a");
            int64_t kk = flat ? G->c->w[w->mw].dims[tg_attr_b(u, "transpose_b") ? 1 : 0] : -1;
            flat = flat && (k < 0 || kk == k);
            k = kk;
        }
    }
    int in[2] = {kx_val(G->c, x, false, tg_gname(G, node, NULL)), -1};
    if (flat && k > 0) {
        int64_t shp[2] = {-1, k};
        in[1] = kx_const_i64(G->c, tg_gname(G, node, "shape"), shp, 2);
    } else {
        in[1] = tg_const_value(G, sh);
    }
    int v = kx_op(G->c, OP_Reshape, tg_gname(G, node, NULL), in, 2);
    tg_set_out(node, (int)rank, v, false);
    if (!flat && tg_const_ints(G, sh, &known) == rank) { /* the dims it knows here */
        int64_t n = 1, neg = -1;
        for (int i = 0; i < x->rank; i++)
            n = n >= 0 && x->dims[i].sym < 0 && x->dims[i].v >= 0 ? n * x->dims[i].v : -1;
        for (int i = 0; i < rank; i++) {
            node->t.dims[i].v = known[i] >= 0 ? known[i] : -1;
            n = known[i] > 0 && n >= 0 ? n / known[i] : n;
            neg = known[i] < 0 ? i : neg;
        }
        if (neg >= 0 && n >= 0)
            node->t.dims[neg].v = n;
    }
    return ST_OK;
}

/* Squeeze/Unsqueeze in TF order over the given axes. */
static int squeeze(struct gctx *G, struct gnode *node, enum op op, int v, int64_t *axes, int n,
                   const char *sfx)
{
    int in[2] = {v, kx_const_i64(G->c, tg_gname(G, node, "axes"), axes, n)};
    return kx_op(G->c, op, tg_gname(G, node, sfx), in, 2);
}

static enum status emit_squeeze(struct gctx *G, struct gnode *node)
{
    struct ktensor *x = tg_tin(G, node, 0);
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(tg_gattr(node, "squeeze_dims"), "list"), "i");
    int n = l ? cJSON_GetArraySize(l) : 0;
    if (n < 1 || n > x->rank)
        return tg_unsupported(G, node, "squeeze_dims must list the axes");
    int64_t axes[IR_MAX_RANK];
    enum status st = tg_attr_ints(G, node, "squeeze_dims", n, axes, true);
    if (st)
        return st;
    for (int i = 0; i < n; i++)
        if (axes[i] < 0)
            axes[i] += x->rank;
    int v = squeeze(G, node, OP_Squeeze, kx_val(G->c, x, false, tg_gname(G, node, NULL)), axes, n,
                    NULL);
    tg_set_out(node, x->rank - n, v, false);
    return ST_OK;
}

static enum status emit_expand(struct gctx *G, struct gnode *node)
{
    struct ktensor *x = tg_tin(G, node, 0);
    int64_t axis;
    if (x->rank >= IR_MAX_RANK)
        return kerr(G->c, node->path, "a rank-%d tensor cannot take another axis", x->rank);
    enum status st = input_axis(G, node, 1, x->rank + 1, &axis);
    if (st)
        return st;
    int v = squeeze(G, node, OP_Unsqueeze, kx_val(G->c, x, false, tg_gname(G, node, NULL)), &axis,
                    1, NULL);
    tg_set_out(node, x->rank + 1, v, false);
    return ST_OK;
}

static enum status emit_transpose(struct gctx *G, struct gnode *node)
{
    struct ktensor *x = tg_tin(G, node, 0);
    int64_t perm[IR_MAX_RANK], n;
    enum status st = tg_input_ints(G, node, 1, "its permutation", IR_MAX_RANK, perm, &n);
    if (st)
        return st;
    if (n != x->rank)
        return kerr(G->c, node->path, "perm: %lld values for a rank-%d tensor", (long long)n,
                    x->rank);
    int in = kx_val(G->c, x, false, tg_gname(G, node, NULL));
    int v = kx_op(G->c, OP_Transpose, tg_gname(G, node, NULL), &in, 1);
    graph_attr_ints(G->c->g, kx_producer(G->c, v), "perm", perm, (int)n);
    tg_set_out(node, x->rank, v, false);
    return ST_OK;
}

static enum status emit_resize(struct gctx *G, struct gnode *node, bool nearest)
{
    struct ktensor *x = tg_tin(G, node, 0);
    int64_t size[2], n;
    enum status st = tg_input_ints(G, node, 1, "its size", 2, size, &n);
    if (st)
        return st;
    if (n != 2 || x->rank != 4)
        return kerr(G->c, node->path, "size: expected 2 values for a rank-4 image, got %lld for "
                    "rank %d", (long long)n, x->rank);
    int in[4] = {kx_val(G->c, x, true, tg_gname(G, node, NULL)), -1, -1,
                 kx_const_i64(G->c, tg_gname(G, node, "sizes"), size, 2)};
    int v = kx_op(G->c, OP_Resize, tg_gname(G, node, NULL), in, 4);
    int64_t axes[2] = {2, 3};
    graph_attr_ints(G->c->g, kx_producer(G->c, v), "axes", axes, 2);
    graph_attr_string(G->c->g, kx_producer(G->c, v), "mode", nearest ? "nearest" : "linear");
    tg_set_out(node, 4, v, true);
    return ST_OK;
}

/* TF's begin/end masks and shrink axes as ONNX Slice bounds (+ Squeeze). */
static enum status emit_strided_slice(struct gctx *G, struct gnode *node)
{
    struct ktensor *x = tg_tin(G, node, 0);
    int64_t b[IR_MAX_RANK], e[IR_MAX_RANK], s[IR_MAX_RANK], nb, ne, ns;
    enum status st = tg_input_ints(G, node, 1, "its begin", IR_MAX_RANK, b, &nb);
    if (!st)
        st = tg_input_ints(G, node, 2, "its end", IR_MAX_RANK, e, &ne);
    if (!st)
        st = tg_input_ints(G, node, 3, "its strides", IR_MAX_RANK, s, &ns);
    if (st)
        return st;
    int64_t nm = attr_int(node, "new_axis_mask", 0), na[IR_MAX_RANK];
    int nnew = 0;
    for (int i = 0; i < nb; i++)
        if (nm >> i & 1)
            na[nnew++] = i; /* a new axis of size 1, entry i of the unsqueezed tensor */
    if (nb != ne || nb != ns || nb > x->rank + nnew || x->rank + nnew > IR_MAX_RANK)
        return kerr(G->c, node->path, "begin/end/strides: %lld/%lld/%lld values for a rank-%d "
                    "tensor", (long long)nb, (long long)ne, (long long)ns, x->rank);
    if (attr_int(node, "ellipsis_mask", 0))
        return tg_unsupported(G, node, "ellipsis_mask");
    int64_t bm = attr_int(node, "begin_mask", 0), em = attr_int(node, "end_mask", 0);
    int64_t sm = attr_int(node, "shrink_axis_mask", 0), axes[IR_MAX_RANK], sq[IR_MAX_RANK];
    int nsq = 0;
    for (int i = 0; i < nb; i++) {
        if (s[i] == 0)
            return kerr(G->c, node->path, "strides[%d]: 0, expected non-zero", i);
        axes[i] = i;
        if (nm >> i & 1) {
            b[i] = 0, e[i] = INT64_MAX, s[i] = 1;
            continue;
        }
        if (bm >> i & 1)
            b[i] = s[i] > 0 ? 0 : INT64_MAX;
        if (em >> i & 1)
            e[i] = s[i] > 0 ? INT64_MAX : INT64_MIN;
        if (sm >> i & 1) {
            e[i] = b[i] == -1 ? INT64_MAX : b[i] + 1;
            s[i] = 1;
            sq[nsq++] = i;
        }
    }
    int in[5] = {kx_val(G->c, x, false, tg_gname(G, node, NULL)),
                 kx_const_i64(G->c, tg_gname(G, node, "starts"), b, (int)nb),
                 kx_const_i64(G->c, tg_gname(G, node, "ends"), e, (int)nb),
                 kx_const_i64(G->c, tg_gname(G, node, "axes"), axes, (int)nb),
                 kx_const_i64(G->c, tg_gname(G, node, "steps"), s, (int)nb)};
    if (nnew)
        in[0] = squeeze(G, node, OP_Unsqueeze, in[0], na, nnew, "new_axis");
    int v = kx_op(G->c, OP_Slice, tg_gname(G, node, nsq ? "slice" : NULL), in, 5);
    if (nsq)
        v = squeeze(G, node, OP_Squeeze, v, sq, nsq, NULL);
    tg_set_out(node, x->rank + nnew - nsq, v, false);
    return ST_OK;
}

static enum status emit_gather(struct gctx *G, struct gnode *node)
{
    if (attr_int(node, "batch_dims", 0))
        return tg_unsupported(G, node, "batch_dims other than 0");
    int r0, r1;
    int in[2] = {operand(G, node, 0, false, &r0), operand(G, node, 1, false, &r1)};
    int64_t axis;
    enum status st = input_axis(G, node, 2, r0, &axis);
    if (st)
        return st;
    if (r0 + r1 - 1 > IR_MAX_RANK)
        return kerr(G->c, node->path, "the gathered tensor's rank %d exceeds %d", r0 + r1 - 1,
                    IR_MAX_RANK);
    int v = kx_op(G->c, OP_Gather, tg_gname(G, node, NULL), in, 2);
    graph_attr_int(G->c->g, kx_producer(G->c, v), "axis", lay_axis(axis, r0, false));
    tg_set_out(node, r0 + r1 - 1, v, false);
    return ST_OK;
}

/* GatherNd: the index depth (the indices' last dim) must be known here to
 * give the output's rank: a constant, a Pack or a ConcatV2 of known parts. */
static enum status emit_gather_nd(struct gctx *G, struct gnode *node)
{
    if (attr_int(node, "batch_dims", 0))
        return tg_unsupported(G, node, "batch_dims other than 0");
    int r0, r1;
    int in[2] = {operand(G, node, 0, false, &r0), operand(G, node, 1, false, &r1)};
    int64_t q = r1 > 0 ? in_dim(G, node, 1, r1 - 1) : -1;
    if (q < 1 || q > r0 || r1 - 1 + r0 - q < 0)
        return tg_unsupported(G, node, "the depth of its indices (their last dim) is not known "
                                       "when the model is read");
    int v = kx_op(G->c, OP_GatherND, tg_gname(G, node, NULL), in, 2);
    tg_set_out(node, (int)(r1 - 1 + r0 - q), v, false);
    return ST_OK;
}

/* Pack: every value gets a new axis, then they are concatenated on it. */
static enum status emit_pack(struct gctx *G, struct gnode *node)
{
    int in[16], r = -1;
    int64_t axis = attr_int(node, "axis", 0);
    for (int i = 0; i < node->n_in; i++) {
        int ri, v = operand(G, node, i, false, &ri);
        if (r >= 0 && ri != r)
            return kerr(G->c, node->path, "input[%d]: rank %d, expected %d like input[0]", i, ri,
                        r);
        r = ri;
        if (axis < -r - 1 || axis > r || r >= IR_MAX_RANK)
            return kerr(G->c, node->path, "attr.axis: %lld is out of range for rank %d",
                        (long long)axis, r);
        int64_t a = axis < 0 ? axis + r + 1 : axis;
        in[i] = squeeze(G, node, OP_Unsqueeze, v, &a, 1, "unsqueeze");
    }
    int v = kx_op(G->c, OP_Concat, tg_gname(G, node, NULL), in, node->n_in);
    graph_attr_int(G->c->g, kx_producer(G->c, v), "axis", axis < 0 ? axis + r + 1 : axis);
    tg_set_out(node, r + 1, v, false);
    node->t.dims[axis < 0 ? axis + r + 1 : axis].v = node->n_in;
    return ST_OK;
}

/* Split (equal parts, or split sizes) of input xi along axis into n outputs
 * of node; Unpack also drops the axis. */
static enum status split_into(struct gctx *G, struct gnode *node, int xi, int64_t axis, int64_t n,
                              const int64_t *sizes, bool drop)
{
    struct ktensor *x = tg_tin(G, node, xi);
    if (n < 1 || n > 1024)
        return kerr(G->c, node->path, "%lld outputs, expected 1 to 1024", (long long)n);
    if (axis < -x->rank || axis >= x->rank)
        return kerr(G->c, node->path, "axis %lld: out of range for rank %d", (long long)axis,
                    x->rank);
    bool cf = !drop && tg_is_cf(x);
    int in[2] = {kx_val(G->c, x, cf, tg_gname(G, node, NULL)), -1};
    if (sizes)
        in[1] = kx_const_i64(G->c, tg_gname(G, node, "split"), sizes, (int)n);
    int *out = xmalloc(sizeof *out * (size_t)n);
    op_multi(G, node, OP_Split, in, sizes ? 2 : 1, out, (int)n);
    graph_attr_int(G->c->g, G->c->g->n_nodes - 1, "axis", lay_axis(axis, x->rank, cf));
    int64_t a = axis < 0 ? axis + x->rank : axis;
    int r = x->rank;
    for (int k = 0; k < n; k++) {
        int v = out[k];
        if (drop) {
            char sfx[24];
            snprintf(sfx, sizeof sfx, "squeeze%d", k);
            v = squeeze(G, node, OP_Squeeze, v, &a, 1, sfx);
        }
        kx_tensor(tg_out(node, k), drop ? r - 1 : r, v, cf);
    }
    free(out);
    return ST_OK;
}

static enum status emit_split(struct gctx *G, struct gnode *node)
{
    int64_t axis, n, sizes[1024];
    if (!strcmp(node->op, "Unpack"))
        return split_into(G, node, 0, attr_int(node, "axis", 0), attr_int(node, "num", -1), NULL,
                          true);
    bool v = !strcmp(node->op, "SplitV");
    enum status st = tg_input_ints(G, node, v ? 2 : 0, "its axis", 1, &axis, &n);
    if (st || !v)
        return st ? st : split_into(G, node, 1, axis, attr_int(node, "num_split", -1), NULL, false);
    if ((st = tg_input_ints(G, node, 1, "its size_splits", 1024, sizes, &n)))
        return st;
    for (int i = 0; i < n; i++)
        if (sizes[i] < 0)
            return tg_unsupported(G, node, "a size_splits entry of -1 (the rest)");
    return split_into(G, node, 0, axis, n, sizes, false);
}

static enum status emit_topk(struct gctx *G, struct gnode *node)
{
    struct ktensor *x = tg_tin(G, node, 0);
    int64_t k, n;
    int in[2] = {kx_val(G->c, x, false, tg_gname(G, node, NULL)), -1};
    if (!tg_input_node(G, node, 1)->is_const) { /* computed k: folded by shape inference */
        in[1] = kx_val(G->c, tg_tin(G, node, 1), false, tg_gname(G, node, NULL));
    } else {
        enum status st = tg_input_ints(G, node, 1, "its k", 1, &k, &n);
        if (st)
            return st;
        if (k < 0)
            return kerr(G->c, node->path, "k: %lld, expected >= 0", (long long)k);
        in[1] = kx_const_i64(G->c, tg_gname(G, node, "k"), &k, 1);
    }
    int out[2];
    op_multi(G, node, OP_TopK, in, 2, out, 2);
    graph_attr_int(G->c->g, G->c->g->n_nodes - 1, "axis", -1);
    kx_tensor(tg_out(node, 0), x->rank, out[0], false);
    kx_tensor(tg_out(node, 1), x->rank, out[1], false);
    return ST_OK;
}

static enum status emit_argmax(struct gctx *G, struct gnode *node)
{
    struct ktensor *x = tg_tin(G, node, 0);
    int64_t axis;
    enum status st = input_axis(G, node, 1, x->rank, &axis);
    if (st)
        return st;
    int in = kx_val(G->c, x, false, tg_gname(G, node, NULL));
    int v = kx_op(G->c, node->op[3] == 'M' && node->op[4] == 'a' ? OP_ArgMax : OP_ArgMin,
                  tg_gname(G, node, NULL), &in, 1);
    graph_attr_int(G->c->g, kx_producer(G->c, v), "axis", lay_axis(axis, x->rank, false));
    graph_attr_int(G->c->g, kx_producer(G->c, v), "keepdims", 0);
    tg_set_out(node, x->rank - 1, v, false);
    node->t.dt = DT_INT64;
    return ST_OK;
}

typedef enum status (*shape_emit)(struct gctx *G, struct gnode *node);

static enum status emit_mean(struct gctx *G, struct gnode *node)
{
    return emit_reduce(G, node, OP_ReduceMean);
}
static enum status emit_sum(struct gctx *G, struct gnode *node)
{
    return emit_reduce(G, node, OP_ReduceSum);
}
static enum status emit_max(struct gctx *G, struct gnode *node)
{
    return emit_reduce(G, node, OP_ReduceMax);
}
static enum status emit_min(struct gctx *G, struct gnode *node)
{
    return emit_reduce(G, node, OP_ReduceMin);
}
static enum status emit_prod(struct gctx *G, struct gnode *node)
{
    return emit_reduce(G, node, OP_ReduceProd);
}
static enum status emit_resize_bilinear(struct gctx *G, struct gnode *node)
{
    return emit_resize(G, node, false);
}
static enum status emit_resize_nearest(struct gctx *G, struct gnode *node)
{
    return emit_resize(G, node, true);
}

/* Each op with the data inputs it needs (TF's own signatures). */
static const struct {
    const char *op;
    int min_in;
    shape_emit fn;
} shape_ops[] = {
    {"Mean", 2, emit_mean},          {"Sum", 2, emit_sum},
    {"Max", 2, emit_max},            {"Min", 2, emit_min},
    {"Prod", 2, emit_prod},          {"Pad", 2, emit_pad},
    {"PadV2", 2, emit_pad},          {"MirrorPad", 2, emit_pad},
    {"ConcatV2", 2, emit_concat},    {"Reshape", 2, emit_reshape},
    {"Squeeze", 1, emit_squeeze},    {"ExpandDims", 2, emit_expand},
    {"Transpose", 2, emit_transpose}, {"ResizeBilinear", 2, emit_resize_bilinear},
    {"ResizeNearestNeighbor", 2, emit_resize_nearest},
    {"StridedSlice", 4, emit_strided_slice}, {"GatherV2", 3, emit_gather},
    {"GatherNd", 2, emit_gather_nd},
    {"Pack", 1, emit_pack},          {"Unpack", 1, emit_split},
    {"Split", 2, emit_split},        {"SplitV", 3, emit_split},
    {"TopKV2", 2, emit_topk},        {"ArgMax", 2, emit_argmax},
    {"ArgMin", 2, emit_argmax},
};

enum status keras_tfjs_emit_shape(struct gctx *G, struct gnode *node)
{
    for (size_t i = 0; i < sizeof shape_ops / sizeof shape_ops[0]; i++) {
        if (strcmp(node->op, shape_ops[i].op))
            continue;
        if (node->n_in < shape_ops[i].min_in)
            return kerr(G->c, node->path, "input: op %s needs %d data inputs, got %d", node->op,
                        shape_ops[i].min_in, node->n_in);
        return shape_ops[i].fn(G, node);
    }
    return ST_ENOTFOUND;
}
