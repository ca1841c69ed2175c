/* ops_misc.c - shape functions of the less common ops: CastLike, dynamic
 * quantisation, MaxUnpool, Unique, the NLL / softmax cross-entropy losses,
 * DFT / STFT and the window generators, MelWeightMatrix and Det. */
#include <string.h>

#include "graph/ops/op_infer.h"

enum status shape_castlike(struct infer_ctx *c)
{
    out_like(c, 0, in_s(c, 0), in_dt(c, 1));
    return ST_OK;
}

enum status shape_dynquant(struct infer_ctx *c)
{
    out_like(c, 0, in_s(c, 0), DT_UINT8);
    out_shape(c, 1, 0, NULL, DT_FLOAT);
    out_shape(c, 2, 0, NULL, DT_UINT8);
    return ST_OK;
}

enum status shape_maxunpool(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0);
    if (x->rank < 3)
        return shape_fail(c, "input 0 has rank %d, expected at least 3", x->rank);
    struct shape o = *x;
    if (in_v(c, 2)) {
        enum status st = const_ints_per_dim(c, 2, "output_shape", o.d, "");
        if (st)
            return st;
    } else {
        int ns = x->rank - 2;
        int64_t k[IR_MAX_RANK], s[IR_MAX_RANK], p[2 * IR_MAX_RANK] = {0};
        if (attr_ints(c->n, "kernel_shape", k, IR_MAX_RANK) != ns)
            return shape_fail(c, "kernel_shape must have %d values", ns);
        int nst = attr_ints(c->n, "strides", s, IR_MAX_RANK);
        attr_ints(c->n, "pads", p, 2 * IR_MAX_RANK);
        for (int i = 0; i < ns; i++)
            o.d[2 + i] = (x->d[2 + i] - 1) * (nst ? s[i] : 1) - p[i] - p[ns + i] + k[i];
    }
    out_like(c, 0, &o, in_dt(c, 0));
    return ST_OK;
}

enum status shape_unique(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0);
    int a;
    int64_t len;
    enum status st = optional_axis(c, x, &a, &len);
    if (st)
        return st;
    int64_t cnt = len;
    const struct tconst *k = in_k(c, 0);
    if (k && a < 0) {
        cnt = 0;
        for (int64_t e = 0; e < k->n; e++) {
            bool seen = false;
            for (int64_t f = 0; f < e && !seen; f++)
                seen = k_getf(k, f) == k_getf(k, e);
            cnt += !seen;
        }
    } else if (k) {
        /* distinct slices along the axis: slice i starts at i * inner
         * within each outer block */
        int64_t inner = 1, outer = 1;
        for (int i = a + 1; i < x->rank; i++)
            inner *= x->d[i];
        for (int i = 0; i < a; i++)
            outer *= x->d[i];
        cnt = 0;
        for (int64_t i = 0; i < len; i++) {
            bool seen = false;
            for (int64_t j = 0; j < i && !seen; j++) {
                bool same = true;
                for (int64_t o = 0; o < outer && same; o++)
                    for (int64_t e = 0; e < inner && same; e++)
                        same = k_getf(k, (o * len + i) * inner + e) ==
                               k_getf(k, (o * len + j) * inner + e);
                seen = same;
            }
            cnt += !seen;
        }
    } else {
        c->note = "data-dependent length: upper bound (all values distinct)";
    }
    out_along_axis(c, x, a, cnt);
    out_shape(c, 1, 1, &cnt, DT_INT64);
    out_shape(c, 2, 1, &len, DT_INT64);
    out_shape(c, 3, 1, &cnt, DT_INT64);
    return ST_OK;
}

enum status shape_loss(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0), *t = in_s(c, 1);
    if (x->rank < 2 || t->rank != x->rank - 1)
        return shape_fail(c, "scores rank %d and target rank %d, expected (N, C, d...) and "
                          "(N, d...)", x->rank, t->rank);
    for (int i = 0; i < t->rank; i++)
        if (t->d[i] != x->d[i ? i + 1 : 0])
            return shape_fail(c, "target dim %d is %lld, expected %lld", i, (long long)t->d[i],
                              (long long)x->d[i ? i + 1 : 0]);
    const char *red = node_attr_str(c->n, "reduction", "mean");
    if (!strcmp(red, "none"))
        out_like(c, 0, t, in_dt(c, 0));
    else if (!strcmp(red, "mean") || !strcmp(red, "sum"))
        out_shape(c, 0, 0, NULL, in_dt(c, 0));
    else
        return shape_fail(c, "reduction '%s', expected none, sum or mean", red);
    out_like(c, 1, x, in_dt(c, 0)); /* SoftmaxCrossEntropyLoss log_prob */
    return ST_OK;
}

static enum status scalar_int(struct infer_ctx *c, int i, const char *what, int64_t *v)
{
    int64_t buf[1];
    int n;
    enum status st = const_ints(c, i, what, buf, 1, &n);
    if (st)
        return st;
    if (n != 1)
        return shape_fail(c, "%s has %d values, expected a scalar", what, n);
    *v = buf[0];
    return ST_OK;
}

enum status shape_dft(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0);
    if (x->rank < 2 || (x->d[x->rank - 1] != 1 && x->d[x->rank - 1] != 2))
        return shape_fail(c, "input must end in a dim of 1 (real) or 2 (complex)");
    int64_t axis = node_attr_int(c->n, "axis", c->opset >= 20 ? -2 : 1);
    enum status st;
    if (c->opset >= 20 && in_v(c, 2) && (st = scalar_int(c, 2, "axis", &axis)))
        return st;
    int a;
    if ((st = norm_axis(c, axis, x->rank, &a)))
        return st;
    if (a == x->rank - 1)
        return shape_fail(c, "axis %d is the real/imaginary dim", a);
    int64_t len = x->d[a];
    if (in_v(c, 1) && numel(in_s(c, 1)) > 0 && (st = scalar_int(c, 1, "dft_length", &len)))
        return st;
    struct shape o = *x;
    o.d[a] = node_attr_int(c->n, "onesided", 0) ? len / 2 + 1 : len;
    o.d[x->rank - 1] = 2;
    out_like(c, 0, &o, in_dt(c, 0));
    return ST_OK;
}

enum status shape_stft(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0);
    enum status st = need_rank(c, 0, 3, 3);
    if (st)
        return st;
    int64_t step, fl = -1;
    if ((st = scalar_int(c, 1, "frame_step", &step)))
        return st;
    if (in_v(c, 3) && (st = scalar_int(c, 3, "frame_length", &fl)))
        return st;
    if (fl < 0 && in_v(c, 2))
        fl = in_s(c, 2)->rank == 1 ? in_s(c, 2)->d[0] : -1;
    if (fl < 1 || step < 1 || fl > x->d[1])
        return shape_fail(c, "frame_length %lld / frame_step %lld do not fit a signal of %lld",
                          (long long)fl, (long long)step, (long long)x->d[1]);
    bool onesided = node_attr_int(c->n, "onesided", 1) != 0;
    int64_t od[4] = {x->d[0], (x->d[1] - fl) / step + 1, onesided ? fl / 2 + 1 : fl, 2};
    out_shape(c, 0, 4, od, in_dt(c, 0));
    return ST_OK;
}

enum status shape_window(struct infer_ctx *c)
{
    int64_t n;
    enum status st = scalar_int(c, 0, "size", &n);
    if (st)
        return st;
    if (n < 0)
        return shape_fail(c, "size %lld, expected >= 0", (long long)n);
    int64_t dt = node_attr_int(c->n, "output_datatype", DT_FLOAT);
    out_shape(c, 0, 1, &n, dt > 0 && dt < DT__COUNT ? (enum dtype)dt : DT_FLOAT);
    return ST_OK;
}

enum status shape_melweight(struct infer_ctx *c)
{
    int64_t bins, len;
    enum status st;
    if ((st = scalar_int(c, 0, "num_mel_bins", &bins)) || (st = scalar_int(c, 1, "dft_length",
                                                                           &len)))
        return st;
    int64_t od[2] = {len / 2 + 1, bins};
    int64_t dt = node_attr_int(c->n, "output_datatype", DT_FLOAT);
    out_shape(c, 0, 2, od, dt > 0 && dt < DT__COUNT ? (enum dtype)dt : DT_FLOAT);
    return ST_OK;
}

enum status shape_det(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0);
    if (x->rank < 2 || x->d[x->rank - 1] != x->d[x->rank - 2])
        return shape_fail(c, "input must be square matrices (..., M, M)");
    struct shape o = *x;
    o.rank -= 2;
    out_like(c, 0, &o, in_dt(c, 0));
    return ST_OK;
}
