/* ops_shape.c - shape functions of the data-movement ops (Reshape, Flatten,
 * Squeeze, Unsqueeze, Transpose, Concat, Split, Slice, Pad, Tile, Expand,
 * DepthToSpace, SpaceToDepth) with constant folding of their contents, so
 * that Shape -> Gather -> Concat -> Reshape chains resolve. Arguments that
 * moved from attributes to inputs across opsets are read from either
 * (ints_arg). Resize and the shape producers live in ops_const.c. */
#include <string.h>

#include "graph/ops/op_infer.h"
#include "graph/ops/shape.h"

/* Same contents under new dims (views: Reshape, Flatten, Squeeze, ...). */
static void fold_view(struct infer_ctx *c, const struct shape *o)
{
    const struct tconst *k = in_k(c, 0);
    if (!k)
        return;
    struct tconst *f = k_new(c, k->dt, 0, NULL);
    if (!f)
        return;
    *f = *k;
    f->rank = o->rank;
    memcpy(f->dims, o->d, sizeof(int64_t) * o->rank);
    out_fold(c, 0, f);
}

static struct shape shape_of(int rank, const int64_t *d)
{
    struct shape s = {.known = true, .rank = rank};
    memcpy(s.d, d, sizeof(int64_t) * rank);
    return s;
}

static int64_t flat_index(const struct tconst *k, const int64_t *co)
{
    int64_t idx = 0;
    for (int i = 0; i < k->rank; i++)
        idx = idx * k->dims[i] + co[i];
    return idx;
}

/* The coordinates ci in input 0 of output coordinates co (rank of o). */
typedef void gather_map(const int64_t *co, int rank, int64_t *ci, const void *arg);

/* Folds output 0 (dims o) when input 0 is constant: each element is the
 * input element at the coordinates map gives (Transpose, Slice, Tile,
 * Expand). */
static void fold_gather(struct infer_ctx *c, const struct shape *o, gather_map *map,
                        const void *arg)
{
    const struct tconst *k = in_k(c, 0);
    struct tconst *f = k ? k_new(c, k->dt, o->rank, o->d) : NULL;
    if (!f)
        return;
    int64_t co[IR_MAX_RANK], ci[IR_MAX_RANK];
    for (int64_t e = 0; e < f->n; e++) {
        unravel(e, o, co);
        map(co, o->rank, ci, arg);
        k_set(f, e, k_getf(k, flat_index(k, ci)));
    }
    out_fold(c, 0, f);
}

/* Output 0 as a view of input 0 with dims o (contents folded along). */
static void out_view(struct infer_ctx *c, const struct shape *o)
{
    out_like(c, 0, o, in_dt(c, 0));
    fold_view(c, o);
}

/* The dims o of a view op given input 0's shape x and its int list (n < 0:
 * absent). */
typedef enum status view_dims(struct infer_ctx *c, const struct shape *x, int64_t *t, int n,
                              struct shape *o);

/* A view op whose int list is input 1 or attribute name (Reshape's shape,
 * Squeeze's and Unsqueeze's axes). */
static enum status view_op(struct infer_ctx *c, const char *name, view_dims *dims)
{
    int64_t t[IR_MAX_RANK];
    int n;
    struct shape o;
    enum status st = ints_arg(c, 1, name, t, IR_MAX_RANK, &n);
    if (!st)
        st = dims(c, in_s(c, 0), t, n, &o);
    if (st)
        return st;
    out_view(c, &o);
    return ST_OK;
}

static enum status reshape_dims(struct infer_ctx *c, const struct shape *x, int64_t *t, int n,
                                struct shape *o)
{
    if (n < 0)
        return shape_fail(c, "the target shape (input 1 or attribute 'shape') is missing");
    bool allowzero = node_attr_int(c->n, "allowzero", 0) != 0;
    int neg = -1;
    int64_t known = 1;
    for (int i = 0; i < n; i++) {
        if (t[i] == 0 && !allowzero) {
            if (i >= x->rank)
                return shape_fail(c, "target dim %d is 0 (copy) but the input has rank %d", i,
                                  x->rank);
            t[i] = x->d[i];
        }
        if (t[i] == -1) {
            if (neg >= 0)
                return shape_fail(c, "target shape has more than one -1");
            neg = i;
            continue;
        }
        if (t[i] < 0)
            return shape_fail(c, "target dim %d is %lld, expected >= -1", i, (long long)t[i]);
        if (t[i] > 0 && known > INT64_MAX / t[i])
            return shape_fail(c, "target shape overflows: dims up to %d multiply to more than "
                                 "2^63", i);
        known *= t[i];
    }
    int64_t total = numel(x);
    char sx[160];
    if (neg >= 0) {
        if (known == 0 || total % known)
            return shape_fail(c, "cannot reshape %s (%lld elements) with -1: the other dims "
                              "multiply to %lld, expected a divisor",
                              shape_str(x, sx, sizeof sx), (long long)total, (long long)known);
        t[neg] = total / known;
    } else if (known != total) {
        struct shape ts = shape_of(n, t);
        char st_[160];
        return shape_fail(c, "cannot reshape %s (%lld elements) to %s (%lld elements), expected "
                          "equal element counts", shape_str(x, sx, sizeof sx), (long long)total,
                          shape_str(&ts, st_, sizeof st_), (long long)known);
    }
    *o = shape_of(n, t);
    return ST_OK;
}

enum status shape_reshape(struct infer_ctx *c)
{
    return view_op(c, "shape", reshape_dims);
}

enum status shape_flatten(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0);
    int64_t axis = node_attr_int(c->n, "axis", 1);
    if (axis < -x->rank || axis > x->rank)
        return shape_fail(c, "axis %lld out of range for rank %d, expected %d to %d",
                          (long long)axis, x->rank, -x->rank, x->rank);
    if (axis < 0)
        axis += x->rank;
    int64_t d[2] = {1, 1};
    for (int i = 0; i < x->rank; i++)
        d[i >= axis] *= x->d[i];
    struct shape o = shape_of(2, d);
    out_view(c, &o);
    return ST_OK;
}

static enum status squeeze_dims(struct infer_ctx *c, const struct shape *x, int64_t *ax, int n,
                                struct shape *o)
{
    enum status st;
    bool drop[IR_MAX_RANK] = {false};
    if (n < 0) {
        for (int i = 0; i < x->rank; i++)
            drop[i] = x->d[i] == 1;
    } else {
        for (int i = 0; i < n; i++) {
            int a;
            if ((st = norm_axis(c, ax[i], x->rank, &a)))
                return st;
            if (x->d[a] != 1)
                return shape_fail(c, "cannot squeeze axis %d of size %lld, expected size 1", a,
                                  (long long)x->d[a]);
            drop[a] = true;
        }
    }
    *o = (struct shape){.known = true};
    for (int i = 0; i < x->rank; i++)
        if (!drop[i])
            o->d[o->rank++] = x->d[i];
    return ST_OK;
}

enum status shape_squeeze(struct infer_ctx *c)
{
    return view_op(c, "axes", squeeze_dims);
}

static enum status unsqueeze_dims(struct infer_ctx *c, const struct shape *x, int64_t *ax, int n,
                                  struct shape *o)
{
    enum status st;
    if (n < 0)
        return shape_fail(c, "axes (input 1 or attribute) are missing");
    int r = x->rank + n;
    if (r > IR_MAX_RANK)
        return shape_fail(c, "output rank %d exceeds the supported %d", r, IR_MAX_RANK);
    bool ins[IR_MAX_RANK] = {false};
    for (int i = 0; i < n; i++) {
        int a;
        if ((st = norm_axis(c, ax[i], r, &a)))
            return st;
        if (ins[a])
            return shape_fail(c, "axis %d given twice", a);
        ins[a] = true;
    }
    *o = (struct shape){.known = true, .rank = r};
    for (int i = 0, j = 0; i < r; i++)
        o->d[i] = ins[i] ? 1 : x->d[j++];
    return ST_OK;
}

enum status shape_unsqueeze(struct infer_ctx *c)
{
    return view_op(c, "axes", unsqueeze_dims);
}

static void transpose_map(const int64_t *co, int rank, int64_t *ci, const void *perm)
{
    for (int i = 0; i < rank; i++)
        ci[((const int64_t *)perm)[i]] = co[i];
}

enum status shape_transpose(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0);
    int64_t perm[IR_MAX_RANK];
    int n = attr_ints(c->n, "perm", perm, IR_MAX_RANK);
    if (!n) {
        for (int i = 0; i < x->rank; i++)
            perm[i] = x->rank - 1 - i;
        n = x->rank;
    }
    if (n != x->rank)
        return shape_fail(c, "perm has %d entries, expected %d (the input's rank)", n, x->rank);
    bool seen[IR_MAX_RANK] = {false};
    struct shape o = {.known = true, .rank = n};
    for (int i = 0; i < n; i++) {
        if (perm[i] < 0 || perm[i] >= n || seen[perm[i]])
            return shape_fail(c, "perm is not a permutation of 0..%d", n - 1);
        seen[perm[i]] = true;
        o.d[i] = x->d[perm[i]];
    }
    out_like(c, 0, &o, in_dt(c, 0));
    fold_gather(c, &o, transpose_map, perm);
    return ST_OK;
}

enum status shape_concat(struct infer_ctx *c)
{
    const struct shape *x = NULL;
    for (int i = 0; i < c->n->n_in && !x; i++)
        x = in_s(c, i);
    if (!x)
        return shape_fail(c, "no inputs");
    const struct attr *aa = node_attr(c->n, "axis");
    if (!aa)
        return shape_fail(c, "attribute axis is required");
    int axis;
    enum status st = norm_axis(c, node_attr_int(c->n, "axis", 0), x->rank, &axis);
    if (st)
        return st;
    struct shape o = *x;
    o.d[axis] = 0;
    for (int i = 0; i < c->n->n_in; i++) {
        const struct shape *s = in_s(c, i);
        if (!s)
            continue;
        if (s->rank != x->rank)
            return shape_fail(c, "input %d '%s' has rank %d, expected %d like input 0", i,
                              in_v(c, i)->name, s->rank, x->rank);
        for (int k = 0; k < s->rank; k++)
            if (k != axis && s->d[k] != x->d[k])
                return shape_fail(c, "input %d '%s' has dim %d = %lld, expected %lld (all dims "
                                  "but the concat axis %d must match)", i, in_v(c, i)->name, k,
                                  (long long)s->d[k], (long long)x->d[k], axis);
        o.d[axis] += s->d[axis];
    }
    enum dtype dt = in_dt(c, 0);
    out_like(c, 0, &o, dt);
    for (int i = 0; i < c->n->n_in; i++)
        if (in_v(c, i) && !in_k(c, i))
            return ST_OK;
    struct tconst *f = k_new(c, dt, o.rank, o.d);
    if (!f)
        return ST_OK;
    int64_t co[IR_MAX_RANK];
    for (int64_t e = 0; e < f->n; e++) {
        unravel(e, &o, co);
        int64_t off = co[axis];
        for (int i = 0; i < c->n->n_in; i++) {
            const struct tconst *k = in_k(c, i);
            if (!k)
                continue;
            if (off < k->dims[axis]) {
                co[axis] = off;
                k_set(f, e, k_getf(k, flat_index(k, co)));
                break;
            }
            off -= k->dims[axis];
        }
    }
    out_fold(c, 0, f);
    return ST_OK;
}

enum status shape_split(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0);
    int axis;
    enum status st = norm_axis(c, node_attr_int(c->n, "axis", 0), x->rank, &axis);
    if (st)
        return st;
    int nout = c->n->n_out;
    int64_t sz[64];
    int n;
    if (nout > 64)
        return shape_fail(c, "%d outputs, at most 64 supported", nout);
    if ((st = ints_arg(c, 1, "split", sz, 64, &n)))
        return st;
    int64_t dim = x->d[axis];
    if (n < 0) {
        int64_t parts = node_attr_int(c->n, "num_outputs", nout);
        if (parts != nout)
            return shape_fail(c, "num_outputs is %lld but the node has %d outputs",
                              (long long)parts, nout);
        int64_t chunk = (dim + nout - 1) / nout;
        if (!node_attr(c->n, "num_outputs") && dim % nout)
            return shape_fail(c, "axis %d of size %lld does not split evenly into %d outputs",
                              axis, (long long)dim, nout);
        for (int j = 0; j < nout; j++) {
            int64_t left = dim - chunk * j;
            sz[j] = left < chunk ? (left > 0 ? left : 0) : chunk;
        }
        n = nout;
    }
    if (n != nout)
        return shape_fail(c, "split has %d sizes, expected %d (one per output)", n, nout);
    int64_t sum = 0;
    for (int j = 0; j < n; j++)
        sum += sz[j];
    if (sum != dim)
        return shape_fail(c, "split sizes add up to %lld, expected %lld (axis %d)",
                          (long long)sum, (long long)dim, axis);
    for (int j = 0; j < nout; j++) {
        struct shape o = *x;
        o.d[axis] = sz[j];
        out_like(c, j, &o, in_dt(c, 0));
    }
    return ST_OK;
}

/* ONNX Slice semantics for one axis: clamps start/end, returns the count. */
static int64_t slice_axis(int64_t dim, int64_t *start, int64_t end, int64_t step)
{
    int64_t s = *start, e = end;
    if (s < 0)
        s += dim;
    if (e < 0)
        e += dim;
    if (step > 0) {
        s = s < 0 ? 0 : s > dim ? dim : s;
        e = e < 0 ? 0 : e > dim ? dim : e;
        *start = s;
        return e > s ? (e - s + step - 1) / step : 0;
    }
    s = s < 0 ? -1 : s > dim - 1 ? dim - 1 : s;
    e = e < -1 ? -1 : e > dim - 1 ? dim - 1 : e;
    *start = s;
    return s > e ? (s - e + (-step) - 1) / (-step) : 0;
}

/* The first element and the step of each axis of a Slice. */
struct slice_of {
    const int64_t *begin, *step;
};

static void slice_map(const int64_t *co, int rank, int64_t *ci, const void *arg)
{
    const struct slice_of *sl = arg;
    for (int i = 0; i < rank; i++)
        ci[i] = sl->begin[i] + co[i] * sl->step[i];
}

enum status shape_slice(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0);
    int64_t starts[IR_MAX_RANK], ends[IR_MAX_RANK], axes[IR_MAX_RANK], steps[IR_MAX_RANK];
    int ns, ne, na = -1, nst = -1;
    enum status st;
    if (c->opset < 10 && !in_v(c, 1)) {
        ns = attr_ints(c->n, "starts", starts, IR_MAX_RANK);
        ne = attr_ints(c->n, "ends", ends, IR_MAX_RANK);
        if (node_attr(c->n, "axes"))
            na = attr_ints(c->n, "axes", axes, IR_MAX_RANK);
    } else {
        if (!in_v(c, 1) || !in_v(c, 2))
            return shape_fail(c, "inputs starts and ends are required (opset %d)", c->opset);
        if ((st = const_ints(c, 1, "starts", starts, IR_MAX_RANK, &ns)) ||
            (st = const_ints(c, 2, "ends", ends, IR_MAX_RANK, &ne)))
            return st;
        if (in_v(c, 3) && (st = const_ints(c, 3, "axes", axes, IR_MAX_RANK, &na)))
            return st;
        if (in_v(c, 4) && (st = const_ints(c, 4, "steps", steps, IR_MAX_RANK, &nst)))
            return st;
    }
    if (ns != ne || (na >= 0 && na != ns) || (nst >= 0 && nst != ns))
        return shape_fail(c, "starts/ends/axes/steps have %d/%d/%d/%d entries, expected equal",
                          ns, ne, na, nst);
    int64_t begin[IR_MAX_RANK] = {0}, step_of[IR_MAX_RANK];
    bool seen[IR_MAX_RANK] = {false};
    struct shape o = *x;
    for (int i = 0; i < x->rank; i++)
        step_of[i] = 1;
    for (int i = 0; i < ns; i++) {
        int a;
        if ((st = norm_axis(c, na >= 0 ? axes[i] : i, x->rank, &a)))
            return st;
        if (seen[a])
            return shape_fail(c, "axis %d is sliced twice (axes must be unique)", a);
        seen[a] = true;
        int64_t step = nst >= 0 ? steps[i] : 1;
        if (step == 0)
            return shape_fail(c, "step for axis %d is 0, expected non-zero", a);
        begin[a] = starts[i];
        step_of[a] = step;
        o.d[a] = slice_axis(x->d[a], &begin[a], ends[i], step);
    }
    out_like(c, 0, &o, in_dt(c, 0));
    const struct slice_of sl = {begin, step_of};
    fold_gather(c, &o, slice_map, &sl);
    return ST_OK;
}

enum status shape_pad(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0);
    int64_t pads[2 * IR_MAX_RANK], axes[IR_MAX_RANK];
    int np, na = -1;
    enum status st;
    if (in_v(c, 1)) {
        if ((st = const_ints(c, 1, "pads", pads, 2 * IR_MAX_RANK, &np)))
            return st;
        if (in_v(c, 3) && (st = const_ints(c, 3, "axes", axes, IR_MAX_RANK, &na)))
            return st;
    } else {
        np = attr_ints(c->n, node_attr(c->n, "paddings") ? "paddings" : "pads", pads,
                       2 * IR_MAX_RANK);
    }
    if (na < 0) {
        na = x->rank;
        for (int i = 0; i < na; i++)
            axes[i] = i;
    }
    if (np != 2 * na)
        return shape_fail(c, "pads has %d values, expected %d (begin and end for %d axes)", np,
                          2 * na, na);
    struct shape o = *x;
    for (int i = 0; i < na; i++) {
        int a;
        if ((st = norm_axis(c, axes[i], x->rank, &a)))
            return st;
        o.d[a] += pads[i] + pads[na + i];
        if (o.d[a] < 0)
            return shape_fail(c, "axis %d would have size %lld after padding, expected >= 0", a,
                              (long long)o.d[a]);
    }
    out_like(c, 0, &o, in_dt(c, 0));
    return ST_OK;
}

static void tile_map(const int64_t *co, int rank, int64_t *ci, const void *dims)
{
    for (int i = 0; i < rank; i++)
        ci[i] = co[i] % ((const int64_t *)dims)[i];
}

enum status shape_tile(struct infer_ctx *c)
{
    const struct shape *x = in_s(c, 0);
    int64_t rep[IR_MAX_RANK];
    enum status st = const_ints_per_dim(c, 1, "repeats", rep, " (the input's rank)");
    if (st)
        return st;
    struct shape o = *x;
    for (int i = 0; i < x->rank; i++) {
        if (rep[i] < 0)
            return shape_fail(c, "repeats[%d] is %lld, expected >= 0", i, (long long)rep[i]);
        o.d[i] *= rep[i];
    }
    out_like(c, 0, &o, in_dt(c, 0));
    fold_gather(c, &o, tile_map, x->d);
    return ST_OK;
}

/* Broadcast of constant k to rank: size-1 dims repeat their element. */
static void expand_map(const int64_t *co, int rank, int64_t *ci, const void *arg)
{
    const struct tconst *k = arg;
    for (int i = 0; i < k->rank; i++) {
        int j = i + rank - k->rank;
        ci[i] = k->dims[i] == 1 ? 0 : co[j];
    }
}

enum status shape_expand(struct infer_ctx *c)
{
    struct shape ts, o;
    enum status st = const_shape(c, 1, &ts);
    if (!st)
        st = broadcast(c, in_s(c, 0), &ts, &o);
    if (st)
        return st;
    out_like(c, 0, &o, in_dt(c, 0));
    fold_gather(c, &o, expand_map, in_k(c, 0));
    return ST_OK;
}

/* DepthToSpace (to_depth false) and its inverse SpaceToDepth: blocksize^2
 * channels trade places with a blocksize x blocksize spatial block. */
static enum status depth_space(struct infer_ctx *c, bool to_depth)
{
    const struct shape *x = in_s(c, 0);
    enum status st = need_rank(c, 0, 4, 4);
    if (st)
        return st;
    int64_t b = node_attr_int(c->n, "blocksize", 0);
    if (to_depth && (b < 1 || x->d[2] % b || x->d[3] % b))
        return shape_fail(c, "blocksize %lld does not divide the spatial dims %lldx%lld",
                          (long long)b, (long long)x->d[2], (long long)x->d[3]);
    if (!to_depth && (b < 1 || x->d[1] % (b * b)))
        return shape_fail(c, "blocksize %lld: channels %lld not divisible by blocksize^2",
                          (long long)b, (long long)x->d[1]);
    int64_t up = to_depth ? 1 : b, down = to_depth ? b : 1; /* of the spatial dims */
    int64_t od[4] = {x->d[0], x->d[1] * down * down / (up * up), x->d[2] * up / down,
                     x->d[3] * up / down};
    out_shape(c, 0, 4, od, in_dt(c, 0));
    return ST_OK;
}

enum status shape_depthtospace(struct infer_ctx *c)
{
    return depth_space(c, false);
}

enum status shape_spacetodepth(struct infer_ctx *c)
{
    return depth_space(c, true);
}
