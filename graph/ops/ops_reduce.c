/* ops_reduce.c - shape functions of reductions (axes as attribute or, from
 * opset 13 for ReduceSum and 18 for the others, as input; keepdims;
 * noop_with_empty_axes), ArgMax/ArgMin and TopK, with folding of small
 * constant reductions (ReduceProd of a shape slice is common in exports). */
#include <string.h>

#include "graph/ops/op_infer.h"

static void fold_reduce(struct infer_ctx *c, const bool *red, const struct shape *o)
{
    const struct tconst *k = in_k(c, 0);
    enum op op = c->n->op;
    if (!k || (op != OP_ReduceSum && op != OP_ReduceProd && op != OP_ReduceMax &&
               op != OP_ReduceMin))
        return;
    struct tconst *f = k_new(c, k->dt, o->rank, o->d);
    if (!f)
        return;
    /* accumulate every input element into its output slot */
    struct shape ks = {.known = true, .rank = k->rank};
    memcpy(ks.d, k->dims, sizeof(int64_t) * k->rank);
    int64_t co[IR_MAX_RANK];
    for (int64_t e = 0; e < k->n; e++) {
        unravel(e, &ks, co);
        int64_t idx = 0;
        for (int i = 0, j = 0; i < k->rank; i++) {
            if (red[i] && o->rank < k->rank)
                continue; /* dropped dim */
            idx = idx * o->d[j] + (red[i] ? 0 : co[i]);
            j++;
        }
        double v = k_getf(k, e), acc = k_getf(f, idx);
        bool first = true;
        for (int i = 0; i < k->rank; i++)
            if (red[i] && co[i] != 0)
                first = false;
        if (first)
            acc = v;
        else if (op == OP_ReduceSum)
            acc += v;
        else if (op == OP_ReduceProd)
            acc *= v;
        else if (op == OP_ReduceMax)
            acc = v > acc ? v : acc;
        else
            acc = v < acc ? v : acc;
        k_set(f, idx, acc);
    }
    out_fold(c, 0, f);
}

enum status shape_reduce(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0);
    int64_t axes[IR_MAX_RANK];
    int n;
    enum status st = ints_arg(c, 1, "axes", axes, IR_MAX_RANK, &n);
    if (st)
        return st;
    bool keep = node_attr_int(c->n, "keepdims", 1) != 0;
    bool red[IR_MAX_RANK] = {false};
    if (n <= 0) {
        if (node_attr_int(c->n, "noop_with_empty_axes", 0)) {
            out_like(c, 0, x, in_dt(c, 0));
            return ST_OK;
        }
        for (int i = 0; i < x->rank; i++)
            red[i] = true;
    }
    for (int i = 0; i < n; i++) {
        int a;
        if ((st = norm_axis(c, axes[i], x->rank, &a)))
            return st;
        red[a] = true;
    }
    struct shape o = {.known = true};
    for (int i = 0; i < x->rank; i++) {
        if (!red[i])
            o.d[o.rank++] = x->d[i];
        else if (keep)
            o.d[o.rank++] = 1;
    }
    out_like(c, 0, &o, in_dt(c, 0));
    fold_reduce(c, red, &o);
    return ST_OK;
}

enum status shape_argminmax(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0);
    int a;
    enum status st = norm_axis(c, node_attr_int(c->n, "axis", 0), x->rank, &a);
    if (st)
        return st;
    struct shape o = *x;
    if (node_attr_int(c->n, "keepdims", 1)) {
        o.d[a] = 1;
    } else {
        memmove(o.d + a, o.d + a + 1, sizeof(int64_t) * (x->rank - a - 1));
        o.rank--;
    }
    out_like(c, 0, &o, DT_INT64);
    return ST_OK;
}

enum status shape_topk(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0);
    int a;
    enum status st = norm_axis(c, node_attr_int(c->n, "axis", -1), x->rank, &a);
    if (st)
        return st;
    int64_t k;
    if (in_v(c, 1)) {
        int64_t buf[1];
        int n;
        if ((st = const_ints(c, 1, "K", buf, 1, &n)))
            return st;
        if (n != 1)
            return shape_fail(c, "K has %d values, expected 1", n);
        k = buf[0];
    } else {
        k = node_attr_int(c->n, "k", -1);
    }
    if (k < 0 || k > x->d[a])
        return shape_fail(c, "K = %lld, expected 0 to %lld (axis %d size)", (long long)k,
                          (long long)x->d[a], a);
    struct shape o = *x;
    o.d[a] = k;
    out_like(c, 0, &o, in_dt(c, 0));
    out_like(c, 1, &o, DT_INT64);
    return ST_OK;
}
