/* ops_gather.c - shape functions of indexing ops: Gather (folded on
 * constants: Shape -> Gather picks a dim), GatherElements, GatherND,
 * ScatterElements/ScatterND, Compress, OneHot, and the data-dependent
 * NonZero and NonMaxSuppression, whose output length is bounded above
 * (documented in the node's note) unless the input is a known constant. */
#include <string.h>

#include "graph/ops/op_infer.h"

/* The Range node whose values index value vi reaches unchanged (through
 * Unsqueeze, Squeeze, Reshape, Flatten, Cast, Expand or Identity), or NULL. */
static const struct node *index_range(const struct graph *g, int vi)
{
    for (int hop = 0; hop < 16 && vi >= 0; hop++) {
        const struct value *v = &g->values[vi];
        if (v->producer < 0)
            return NULL;
        const struct node *n = &g->nodes[v->producer];
        if (n->op == OP_Range)
            return n;
        if (n->op != OP_Unsqueeze && n->op != OP_Squeeze && n->op != OP_Reshape &&
            n->op != OP_Flatten && n->op != OP_Cast && n->op != OP_Expand &&
            n->op != OP_Identity)
            return NULL;
        vi = n->n_in ? n->in[0] : -1;
    }
    return NULL;
}

/* A position table: a Gather of an initializer's rows by a Range over the
 * sequence (BERT's position_ids = arange(seq)). The Range may be too long to
 * fold, so its last value comes from start, limit and delta. ST_ERANGE when
 * it passes the table's rows. */
static enum status check_positions(struct infer_ctx *c, const struct shape *x)
{
    const struct graph *g = c->g;
    const struct value *data = in_v(c, 0);
    const struct node *r = index_range(g, c->n->in[1]);
    if (!r || !(data->flags & VAL_INIT) || node_attr_int(c->n, "axis", 0) != 0 || r->n_in < 3)
        return ST_OK;
    const struct tconst *k[3];
    for (int i = 0; i < 3; i++) {
        k[i] = r->in[i] >= 0 ? g->values[r->in[i]].folded : NULL;
        if (!k[i] || k[i]->n != 1 || !k[i]->i64)
            return ST_OK;
    }
    int64_t start = k_geti(k[0], 0), delta = k_geti(k[2], 0);
    uint64_t n = delta ? range_count_i64(start, k_geti(k[1], 0), delta) : 0;
    if (n == 0 || n > (uint64_t)1 << 53)
        return ST_OK; /* Range reports those itself */
    int64_t last = delta > 0 ? start + (int64_t)(n - 1) * delta : start;
    if (last < x->d[0])
        return ST_OK;
    return shape_refuse(c, "sequence length %lld exceeds the model's %lld positions "
                        "(initializer '%s', gathered by node '%s')", (long long)last + 1,
                        (long long)x->d[0], data->name, c->n->name);
}

enum status shape_gather(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0), *idx = in_s(c, 1);
    if (x->rank < 1)
        return shape_fail(c, "data has rank 0, expected >= 1");
    int a;
    enum status st = norm_axis(c, node_attr_int(c->n, "axis", 0), x->rank, &a);
    if (st)
        return st;
    int r = x->rank - 1 + idx->rank;
    if (r > IR_MAX_RANK)
        return shape_fail(c, "output rank %d exceeds the supported %d", r, IR_MAX_RANK);
    struct shape o = {.known = true, .rank = 0};
    for (int i = 0; i < a; i++)
        o.d[o.rank++] = x->d[i];
    for (int i = 0; i < idx->rank; i++)
        o.d[o.rank++] = idx->d[i];
    for (int i = a + 1; i < x->rank; i++)
        o.d[o.rank++] = x->d[i];
    if ((st = check_positions(c, x)))
        return st;
    const struct tconst *ki = in_k(c, 1);
    if (ki) {
        for (int64_t e = 0; e < ki->n; e++) {
            int64_t v = k_geti(ki, e);
            if (v < -x->d[a] || v >= x->d[a])
                return shape_fail(c, "index %lld out of range for axis %d of size %lld",
                                  (long long)v, a, (long long)x->d[a]);
        }
    }
    out_like(c, 0, &o, in_dt(c, 0));
    const struct tconst *kd = in_k(c, 0);
    struct tconst *f = kd && ki ? k_new(c, kd->dt, o.rank, o.d) : NULL;
    if (f) {
        int64_t co[IR_MAX_RANK];
        for (int64_t e = 0; e < f->n; e++) {
            unravel(e, &o, co);
            /* co = [pre (a) | idx (q) | post]; index into indices then data */
            int64_t ii = 0;
            for (int i = 0; i < idx->rank; i++)
                ii = ii * idx->d[i] + co[a + i];
            int64_t sel = k_geti(ki, ii);
            if (sel < 0)
                sel += x->d[a];
            int64_t di = 0;
            for (int i = 0; i < x->rank; i++) {
                int64_t ci = i < a ? co[i] : i == a ? sel : co[i - 1 + idx->rank];
                di = di * x->d[i] + ci;
            }
            k_set(f, e, k_getf(kd, di));
        }
        out_fold(c, 0, f);
    }
    return ST_OK;
}

enum status shape_gatherelements(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0), *idx = in_s(c, 1);
    if (x->rank != idx->rank)
        return shape_fail(c, "indices have rank %d, expected %d (the data's rank)", idx->rank,
                          x->rank);
    int a;
    enum status st = norm_axis(c, node_attr_int(c->n, "axis", 0), x->rank, &a);
    if (st)
        return st;
    out_like(c, 0, idx, in_dt(c, 0));
    return ST_OK;
}

enum status shape_gathernd(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0), *idx = in_s(c, 1);
    int64_t b = node_attr_int(c->n, "batch_dims", 0);
    if (idx->rank < 1)
        return shape_fail(c, "indices have rank 0, expected >= 1");
    int64_t last = idx->d[idx->rank - 1];
    if (b < 0 || b >= idx->rank || b + last > x->rank)
        return shape_fail(c, "batch_dims %lld and index depth %lld exceed the data rank %d",
                          (long long)b, (long long)last, x->rank);
    struct shape o = {.known = true, .rank = 0};
    for (int i = 0; i < idx->rank - 1; i++)
        o.d[o.rank++] = idx->d[i];
    for (int64_t i = b + last; i < x->rank; i++) {
        if (o.rank >= IR_MAX_RANK)
            return shape_fail(c, "output rank exceeds the supported %d", IR_MAX_RANK);
        o.d[o.rank++] = x->d[i];
    }
    out_like(c, 0, &o, in_dt(c, 0));
    return ST_OK;
}

enum status shape_scatter(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0), *idx = in_s(c, 1), *u = in_s(c, 2);
    if (c->n->op == OP_ScatterElements || c->n->op == OP_Scatter) {
        if (idx->rank != x->rank || u->rank != x->rank)
            return shape_fail(c, "data, indices, updates have ranks %d, %d, %d, expected equal",
                              x->rank, idx->rank, u->rank);
    } else {
        if (idx->rank < 1 || idx->d[idx->rank - 1] > x->rank)
            return shape_fail(c, "index depth exceeds the data rank %d", x->rank);
        int64_t ur = idx->rank - 1 + x->rank - idx->d[idx->rank - 1];
        if (u->rank != ur)
            return shape_fail(c, "updates have rank %d, expected %lld", u->rank, (long long)ur);
    }
    out_like(c, 0, x, in_dt(c, 0));
    return ST_OK;
}

enum status shape_compress(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0), *cond = in_s(c, 1);
    if (cond->rank != 1)
        return shape_fail(c, "condition has rank %d, expected 1", cond->rank);
    int a;
    int64_t len;
    enum status st = optional_axis(c, x, &a, &len);
    if (st)
        return st;
    int64_t cnt = cond->d[0] < len ? cond->d[0] : len;
    const struct tconst *k = in_k(c, 1);
    if (k) {
        cnt = 0;
        for (int64_t e = 0; e < k->n && e < len; e++)
            cnt += k_getf(k, e) != 0.0;
    } else {
        c->note = "data-dependent length: upper bound (every condition true)";
    }
    out_along_axis(c, x, a, cnt);
    return ST_OK;
}

enum status shape_onehot(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0);
    int64_t depth[1];
    int n;
    const struct tconst *k = in_k(c, 1);
    if (!k)
        return shape_unsupported(c, "depth is computed at run time and could not be folded");
    if (k->n != 1)
        return shape_fail(c, "depth has %lld values, expected 1", (long long)k->n);
    depth[0] = (int64_t)k_getf(k, 0);
    n = x->rank + 1;
    if (n > IR_MAX_RANK)
        return shape_fail(c, "output rank %d exceeds the supported %d", n, IR_MAX_RANK);
    int a;
    enum status st = norm_axis(c, node_attr_int(c->n, "axis", -1), n, &a);
    if (st)
        return st;
    struct shape o = {.known = true, .rank = n};
    for (int i = 0, j = 0; i < n; i++)
        o.d[i] = i == a ? depth[0] : x->d[j++];
    out_like(c, 0, &o, in_dt(c, 2));
    return ST_OK;
}

enum status shape_nonzero(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0);
    int64_t cnt = numel(x);
    const struct tconst *k = in_k(c, 0);
    if (k) {
        cnt = 0;
        for (int64_t e = 0; e < k->n; e++)
            cnt += k_getf(k, e) != 0.0;
    } else {
        c->note = "data-dependent length: upper bound (every element non-zero)";
    }
    int64_t od[2] = {x->rank, cnt};
    out_shape(c, 0, 2, od, DT_INT64);
    return ST_OK;
}

enum status shape_nms(struct infer_ctx *c)
{
    const struct shape *boxes = in_s(c, 0), *scores = in_s(c, 1);
    enum status st;
    if ((st = need_rank(c, 0, 3, 3)) || (st = need_rank(c, 1, 3, 3)))
        return st;
    if (boxes->d[2] != 4 || scores->d[0] != boxes->d[0] || scores->d[2] != boxes->d[1])
        return shape_fail(c, "boxes [B, N, 4] and scores [B, C, N] do not match");
    int64_t per_class = boxes->d[1];
    const struct tconst *k = in_k(c, 2);
    if (!in_v(c, 2))
        per_class = 0; /* the default max_output_boxes_per_class is 0 */
    else if (k && k->n > 0 && k_geti(k, 0) < per_class)
        per_class = k_geti(k, 0) < 0 ? 0 : k_geti(k, 0);
    int64_t od[2] = {scores->d[0] * scores->d[1] * per_class, 3};
    c->note = "data-dependent length: upper bound (no box suppressed)";
    out_shape(c, 0, 2, od, DT_INT64);
    return ST_OK;
}
