/* ops_const.c - shape producers that are folded to constants (Shape with
 * start/end, Size, Constant in all its attribute forms, ConstantOfShape,
 * Range) and Resize/Upsample, whose output size comes from constant scales
 * or sizes (inputs from opset 10/11, attributes before). */
#include <math.h>
#include <string.h>

#include "graph/ops/op_infer.h"

enum status shape_shape(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0);
    int64_t r = x->rank, s = node_attr_int(c->n, "start", 0), e = node_attr_int(c->n, "end", r);
    if (s < 0)
        s += r;
    if (e < 0)
        e += r;
    s = s < 0 ? 0 : s > r ? r : s;
    e = e < 0 ? 0 : e > r ? r : e;
    int64_t n = e > s ? e - s : 0;
    struct tconst *k = k_new(c, DT_INT64, 1, &n);
    for (int64_t i = 0; i < n; i++)
        k->i64[i] = x->d[s + i];
    out_fold(c, 0, k);
    return ST_OK;
}

enum status shape_size(struct infer_ctx *c)
{
    struct tconst *k = k_new(c, DT_INT64, 0, NULL);
    k->i64[0] = numel(in_s(c, 0));
    out_fold(c, 0, k);
    return ST_OK;
}

enum status shape_constant(struct infer_ctx *c)
{
    const struct node *n = c->n;
    for (int i = 0; i < n->n_attr; i++) {
        const struct attr *a = &n->attrs[i];
        struct tconst *k = NULL;
        if (!strcmp(a->name, "value") && a->type == ATTR_TENSOR) {
            if (a->t->i64 || a->t->f64 || a->t->n == 0) {
                k = a->t; /* lives in the graph arena, immutable */
                out_fold(c, 0, k);
            } else {
                out_shape(c, 0, a->t->rank, a->t->dims, a->t->dt);
            }
            return ST_OK;
        }
        if (!strcmp(a->name, "value_int") || !strcmp(a->name, "value_float")) {
            bool f = a->name[6] == 'f';
            k = k_new(c, f ? DT_FLOAT : DT_INT64, 0, NULL);
            k_set(k, 0, f ? node_attr_float(n, a->name, 0) : (double)node_attr_int(n, a->name, 0));
            out_fold(c, 0, k);
            return ST_OK;
        }
        if (!strcmp(a->name, "value_ints") || !strcmp(a->name, "value_floats")) {
            bool f = a->name[6] == 'f';
            int64_t len = a->n;
            k = k_new(c, f ? DT_FLOAT : DT_INT64, 1, &len);
            if (!k)
                return shape_fail(c, "%s has %lld values, more than %d", a->name,
                                  (long long)len, FOLD_MAX_ELEMS);
            for (int64_t e = 0; e < len; e++)
                k_set(k, e, f ? a->floats[e] : (double)a->ints[e]);
            out_fold(c, 0, k);
            return ST_OK;
        }
        if (!strcmp(a->name, "value_string")) {
            out_shape(c, 0, 0, NULL, DT_STRING);
            return ST_OK;
        }
        if (!strcmp(a->name, "value_strings")) {
            int64_t len = a->n;
            out_shape(c, 0, 1, &len, DT_STRING);
            return ST_OK;
        }
        if (!strcmp(a->name, "sparse_value"))
            return shape_unsupported(c, "sparse_value constants are not supported");
    }
    return shape_fail(c, "no value attribute (value, value_int(s), value_float(s), "
                      "value_string(s))");
}

enum status shape_constantofshape(struct infer_ctx *c)
{
    struct shape s;
    enum status st = const_shape(c, 0, &s);
    if (st)
        return st;
    int n = s.rank;
    const int64_t *t = s.d;
    for (int i = 0; i < n; i++)
        if (t[i] < 0)
            return shape_fail(c, "shape[%d] is %lld, expected >= 0", i, (long long)t[i]);
    const struct attr *v = node_attr(c->n, "value");
    enum dtype dt = v && v->type == ATTR_TENSOR ? v->t->dt : DT_FLOAT;
    double fill = v && v->type == ATTR_TENSOR && v->t->n > 0 ? k_getf(v->t, 0) : 0.0;
    out_shape(c, 0, n, t, dt);
    struct tconst *k = k_new(c, dt, n, t);
    if (k) {
        for (int64_t e = 0; e < k->n; e++)
            k_set(k, e, fill);
        out_fold(c, 0, k);
    }
    return ST_OK;
}

/* The difference is taken in uint64: it may not fit an int64
 * (Range(INT64_MIN, INT64_MAX, INT64_MAX) has 3 elements). */
uint64_t range_count_i64(int64_t start, int64_t limit, int64_t delta)
{
    if (delta > 0 ? limit <= start : limit >= start)
        return 0;
    uint64_t span = delta > 0 ? (uint64_t)limit - (uint64_t)start
                              : (uint64_t)start - (uint64_t)limit;
    uint64_t step = delta > 0 ? (uint64_t)delta : 0 - (uint64_t)delta;
    return span / step + (span % step != 0);
}

enum status shape_range(struct infer_ctx *c)
{
    const struct tconst *s = in_k(c, 0), *l = in_k(c, 1), *d = in_k(c, 2);
    for (int i = 0; i < 3; i++)
        if (numel(in_s(c, i)) != 1)
            return shape_fail(c, "input %d has %lld elements, expected a scalar", i,
                              (long long)numel(in_s(c, i)));
    if (!s || !l || !d)
        return shape_unsupported(c, "start/limit/delta are computed at run time and could not "
                                 "be folded");
    enum dtype dt = in_dt(c, 0);
    bool ints = dtype_is_int(dt);
    double start = k_getf(s, 0), limit = k_getf(l, 0), delta = k_getf(d, 0);
    int64_t is = k_geti(s, 0), id = k_geti(d, 0);
    if (ints ? id == 0 : delta == 0.0)
        return shape_fail(c, "delta is 0, expected non-zero");
    /* at most 2^53 elements, the bound of every tensor */
    uint64_t icnt = ints ? range_count_i64(is, k_geti(l, 0), id) : 0;
    double cnt = ints ? (double)icnt : ceil((limit - start) / delta);
    if (isnan(cnt))
        return shape_fail(c, "start %g, limit %g, delta %g: not a number of elements", start,
                          limit, delta);
    if (icnt > (uint64_t)1 << 53)
        return shape_fail(c, "too many elements: Range(%lld, %lld, %lld) has %.3g, more than 2^53",
                          (long long)is, (long long)k_geti(l, 0), (long long)id, cnt);
    if (cnt > 9007199254740992.0)
        return shape_fail(c, "too many elements: Range(%g, %g, %g) has %.3g, more than 2^53",
                          start, limit, delta, cnt);
    int64_t n = cnt > 0 ? (int64_t)cnt : 0;
    out_shape(c, 0, 1, &n, dt);
    struct tconst *k = k_new(c, dt, 1, &n);
    if (k) {
        for (int64_t e = 0; e < n; e++) {
            if (ints) /* exact: every element lies between start and limit */
                k_seti(k, e, (int64_t)((uint64_t)is + (uint64_t)e * (uint64_t)id));
            else
                k_set(k, e, start + (double)e * delta);
        }
        out_fold(c, 0, k);
    }
    return ST_OK;
}

/* ---- Resize / Upsample -------------------------------------------------- */

enum status shape_resize(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0);
    int r = x->rank;
    double scales[IR_MAX_RANK];
    int64_t sizes[IR_MAX_RANK], axes[IR_MAX_RANK];
    int ns = -1, nz = -1;
    int na = attr_ints(c->n, "axes", axes, IR_MAX_RANK);
    /* where the scales and sizes are: Upsample-7 attr, Upsample-9 / Resize-10
     * input 1, Resize-11+ inputs 2 and 3 */
    int si = c->n->op == OP_Upsample || c->opset < 11 ? 1 : 2, zi = si == 2 ? 3 : -1;
    enum status st;
    if (in_v(c, si) && numel(in_s(c, si)) > 0) {
        const struct tconst *k = in_k(c, si);
        if (!k)
            return shape_unsupported(c, "scales '%s' are computed at run time and could not be "
                                     "folded", in_v(c, si)->name);
        if (k->n > IR_MAX_RANK)
            return shape_fail(c, "scales has %lld values, expected %d", (long long)k->n, r);
        ns = (int)k->n;
        for (int i = 0; i < ns; i++)
            scales[i] = k_getf(k, i);
    } else if (zi >= 0 && in_v(c, zi) && numel(in_s(c, zi)) > 0) {
        if ((st = const_ints(c, zi, "sizes", sizes, IR_MAX_RANK, &nz)))
            return st;
    } else {
        const struct attr *a = node_attr(c->n, "scales");
        if (!a || (a->type != ATTR_FLOATS && a->type != ATTR_INTS))
            return shape_fail(c, "neither scales nor sizes is given");
        ns = a->n > IR_MAX_RANK ? IR_MAX_RANK : a->n;
        for (int i = 0; i < ns; i++)
            scales[i] = a->type == ATTR_FLOATS ? a->floats[i] : (double)a->ints[i];
    }
    if (!na) {
        na = r;
        for (int i = 0; i < r; i++)
            axes[i] = i;
    }
    int given = ns >= 0 ? ns : nz;
    if (given != na)
        return shape_fail(c, "%s has %d values, expected %d", ns >= 0 ? "scales" : "sizes", given,
                          na);
    struct shape o = *x;
    int ax[IR_MAX_RANK];
    for (int i = 0; i < na; i++)
        if ((st = norm_axis(c, axes[i], r, &ax[i])))
            return st;
    if (ns >= 0) {
        for (int i = 0; i < na; i++) {
            if (scales[i] <= 0)
                return shape_fail(c, "scale %g for axis %d, expected > 0", scales[i], ax[i]);
            o.d[ax[i]] = (int64_t)floor((double)x->d[ax[i]] * scales[i] + 1e-9);
        }
    } else {
        const char *pol = node_attr_str(c->n, "keep_aspect_ratio_policy", "stretch");
        if (!strcmp(pol, "stretch")) {
            for (int i = 0; i < na; i++)
                o.d[ax[i]] = sizes[i];
        } else {
            bool larger = !strcmp(pol, "not_smaller");
            double sc = larger ? 0.0 : 1e300;
            for (int i = 0; i < na; i++) {
                double s = x->d[ax[i]] ? (double)sizes[i] / (double)x->d[ax[i]] : 1.0;
                sc = larger ? (s > sc ? s : sc) : (s < sc ? s : sc);
            }
            for (int i = 0; i < na; i++)
                o.d[ax[i]] = (int64_t)floor((double)x->d[ax[i]] * sc + 0.5);
        }
    }
    out_like(c, 0, &o, in_dt(c, 0));
    return ST_OK;
}
