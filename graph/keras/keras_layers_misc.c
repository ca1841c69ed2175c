/*
 * keras_layers_misc.c - Keras activation layers, merge layers, reshaping,
 * padding, upsampling, inference-time no-ops and preprocessing layers
 * mapped to IR ops. Layout convention: keras_impl.h.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/keras/keras_impl.h"

enum status keras_layer_emit_misc(struct kctx *c, const struct klayer *L, struct ktensor *in,
                                  int n_in, struct ktensor *out, int *n_out);

static int64_t dimv(const struct dim *d)
{
    return d->sym < 0 ? d->v : -1;
}

/* An existing IR value of t (no transpose), and its layout. */
static int any_val(const struct ktensor *t, bool *cf)
{
    *cf = t->vn < 0;
    return t->vn >= 0 ? t->vn : t->vcf;
}

/* out = in with a new value v in layout cf. */
static void same_shape(struct ktensor *o, const struct ktensor *x, int v, bool cf)
{
    struct ktensor t = *x;
    kx_tensor(o, t.rank, v, cf);
    memcpy(o->dims, t.dims, sizeof o->dims);
    o->dt = t.dt;
}

static enum status unary(struct kctx *c, const struct klayer *L, struct ktensor *x,
                         enum op op, struct ktensor *o, int *node)
{
    bool cf;
    int v = any_val(x, &cf);
    v = kx_op(c, op, kx_name(c, L, NULL), &v, 1);
    *node = kx_producer(c, v);
    same_shape(o, x, v, cf);
    return ST_OK;
}

/* ---- activation layers ----------------------------------------------------- */

static enum status emit_activation(struct kctx *c, const struct klayer *L, struct ktensor *x,
                                   struct ktensor *o)
{
    const char *act;
    enum status st = kx_activation_name(c, L, &act);
    if (st)
        return st;
    if (!act)
        return kerr(c, L->path, "config.activation: missing");
    bool cf;
    int v = any_val(x, &cf);
    int axis = cf ? kx_cf_axis(x->rank - 1, x->rank) : x->rank - 1;
    int r = kx_activation(c, L, act, v, axis);
    if (r < 0)
        return c->d->code;
    same_shape(o, x, r, cf);
    return ST_OK;
}

static int clip_max(struct kctx *c, const struct klayer *L, int v, double lo, double hi)
{
    int64_t none = 0;
    double lov = lo, hiv = hi;
    int in[3] = {v, kx_const_f(c, kx_name(c, L, "min"), &lov, 0, &none),
                 kx_const_f(c, kx_name(c, L, "max"), &hiv, 0, &none)};
    return kx_op(c, OP_Clip, kx_name(c, L, NULL), in, 3);
}

static enum status emit_relu(struct kctx *c, const struct klayer *L, struct ktensor *x,
                             struct ktensor *o)
{
    double maxv, slope, thr;
    enum status st = kcfg_float(c, L, "max_value", -1, &maxv);
    if (!st)
        st = kcfg_float(c, L, "negative_slope", 0, &slope);
    if (!st)
        st = kcfg_float(c, L, "threshold", 0, &thr);
    if (st)
        return st;
    if (thr != 0)
        return klerr(c, L, ST_EUNSUPPORTED, "a non-zero threshold (%g) is not supported", thr);
    bool cf;
    int v = any_val(x, &cf), ni;
    if (slope != 0) {
        v = kx_op(c, OP_LeakyRelu, kx_name(c, L, maxv >= 0 ? "leaky" : NULL), &v, 1);
        graph_attr_float(c->g, kx_producer(c, v), "alpha", slope);
        if (maxv >= 0)
            v = clip_max(c, L, v, -INFINITY, maxv);
    } else if (maxv == 6) {
        v = kx_op(c, OP_Relu6, kx_name(c, L, NULL), &v, 1);
    } else if (maxv >= 0) {
        v = clip_max(c, L, v, 0, maxv);
    } else {
        v = kx_op(c, OP_Relu, kx_name(c, L, NULL), &v, 1);
    }
    (void)ni;
    same_shape(o, x, v, cf);
    return ST_OK;
}

static enum status emit_prelu(struct kctx *c, const struct klayer *L, struct ktensor *x,
                              struct ktensor *o)
{
    int64_t shared[IR_MAX_RANK];
    int ns;
    enum status st = kcfg_intlist(c, L, "shared_axes", IR_MAX_RANK, shared, &ns);
    if (st)
        return st;
    int r = x->rank;
    int64_t a[IR_MAX_RANK]; /* alpha in Keras order: input shape without batch */
    for (int i = 1; i < r; i++)
        a[i - 1] = dimv(&x->dims[i]);
    for (int i = 0; i < ns; i++) {
        if (shared[i] < 1 || shared[i] >= r)
            return kerr(c, L->path, "config.shared_axes[%d]: axis %lld out of range", i,
                        (long long)shared[i]);
        a[shared[i] - 1] = 1;
    }
    bool cf;
    int v = any_val(x, &cf);
    int64_t wd[IR_MAX_RANK];
    for (int i = 0; i < r - 1; i++) /* channels-first alpha: [C, d1, ..., d_{r-2}] */
        wd[i] = (cf && r >= 3) ? (i == 0 ? a[r - 2] : a[i - 1]) : a[i];
    int in[2] = {v, kx_weight(c, L, "alpha", r - 1, wd, DT_FLOAT)};
    if (in[1] < 0)
        return c->d->code;
    v = kx_op(c, OP_PRelu, kx_name(c, L, NULL), in, 2);
    same_shape(o, x, v, cf);
    return ST_OK;
}

/* ---- merge layers --------------------------------------------------------------- */

static enum status emit_merge(struct kctx *c, const struct klayer *L, struct ktensor *in,
                              int n_in, enum op op, bool binary, struct ktensor *o)
{
    if (n_in < 2 || (binary && n_in != 2))
        return klerr(c, L, ST_EPARSE, "expects %s input tensors, got %d",
                     binary ? "2" : "2 or more", n_in);
    bool cf = in[0].vn < 0;
    for (int i = 1; i < n_in; i++)
        if (in[i].rank != in[0].rank)
            return klerr(c, L, ST_EPARSE, "input %d has rank %d, input 0 rank %d", i,
                         in[i].rank, in[0].rank);
    int vals[KMAX_IO] = {0};
    for (int i = 0; i < n_in; i++)
        vals[i] = kx_val(c, &in[i], cf, kx_name(c, L, NULL));
    int v;
    if (op == OP_Mul || (op == OP_Add && n_in == 2) || op == OP_Sub) {
        v = vals[0];
        for (int i = 1; i < n_in; i++) {
            int pair[2] = {v, vals[i]};
            v = kx_op(c, op, kx_name(c, L, i == n_in - 1 ? NULL : op_name(op)), pair, 2);
        }
    } else {
        v = kx_op(c, op == OP_Add ? OP_Sum : op, kx_name(c, L, NULL), vals, n_in);
    }
    same_shape(o, &in[0], v, cf);
    /* broadcast: a 1 in input 0 takes the other inputs' dim */
    for (int i = 1; i < n_in; i++)
        for (int k = 1; k < o->rank; k++)
            if (dimv(&o->dims[k]) == 1)
                o->dims[k] = in[i].dims[k];
    return ST_OK;
}

static enum status emit_concat(struct kctx *c, const struct klayer *L, struct ktensor *in,
                               int n_in, struct ktensor *o)
{
    int64_t axis;
    enum status st = kcfg_int(c, L, "axis", false, -1, &axis);
    if (st)
        return st;
    if (n_in < 1)
        return klerr(c, L, ST_EPARSE, "expects input tensors, got none");
    int r = in[0].rank;
    if (axis < 0)
        axis += r;
    if (axis < 0 || axis >= r)
        return kerr(c, L->path, "config.axis: out of range for rank %d", r);
    bool cf = in[0].vn < 0;
    int vals[KMAX_IO] = {0};
    int64_t sum = 0;
    for (int i = 0; i < n_in; i++) {
        if (in[i].rank != r)
            return klerr(c, L, ST_EPARSE, "input %d has rank %d, input 0 rank %d", i,
                         in[i].rank, r);
        vals[i] = kx_val(c, &in[i], cf, kx_name(c, L, NULL));
        int64_t d = dimv(&in[i].dims[axis]);
        sum = (sum < 0 || d < 0) ? -1 : sum + d;
    }
    int v = kx_op(c, OP_Concat, kx_name(c, L, NULL), vals, n_in);
    graph_attr_int(c->g, kx_producer(c, v), "axis", cf ? kx_cf_axis((int)axis, r) : axis);
    same_shape(o, &in[0], v, cf);
    o->dims[axis] = (struct dim){sum, -1};
    return ST_OK;
}

/* ---- reshaping -------------------------------------------------------------------- */

static enum status emit_reshape(struct kctx *c, const struct klayer *L, struct ktensor *x,
                                struct ktensor *o)
{
    int64_t ts[IR_MAX_RANK];
    int n;
    enum status st = kcfg_intlist(c, L, "target_shape", IR_MAX_RANK - 1, ts, &n);
    if (st)
        return st;
    if (n == 0)
        return kerr(c, L->path, "config.target_shape: missing");
    int64_t numel = 1, known = 1;
    int neg = -1;
    for (int i = 1; i < x->rank; i++)
        numel = (numel < 0 || dimv(&x->dims[i]) < 0) ? -1 : numel * dimv(&x->dims[i]);
    for (int i = 0; i < n; i++) {
        if (ts[i] == -1 && neg < 0)
            neg = i;
        else if (ts[i] < 1)
            return kerr(c, L->path, "config.target_shape[%d]: expected a positive size or one "
                                    "-1, got %lld", i, (long long)ts[i]);
        else
            known *= ts[i];
    }
    if (numel > 0 && (neg < 0 ? known != numel : numel % known))
        return klerr(c, L, ST_EPARSE, "cannot reshape %lld elements per sample into the target "
                                      "shape", (long long)numel);
    int64_t shp[IR_MAX_RANK];
    shp[0] = 0; /* ONNX: copy the batch dim */
    for (int i = 0; i < n; i++)
        shp[i + 1] = ts[i];
    int in[2] = {kx_val(c, x, false, kx_name(c, L, NULL)),
                 kx_const_i64(c, kx_name(c, L, "shape"), shp, n + 1)};
    int v = kx_op(c, OP_Reshape, kx_name(c, L, NULL), in, 2);
    struct dim b = x->dims[0];
    kx_tensor(o, n + 1, v, false);
    o->dims[0] = b;
    for (int i = 0; i < n; i++)
        o->dims[i + 1] = (struct dim){ts[i] >= 0 ? ts[i] : (numel > 0 ? numel / known : -1), -1};
    return ST_OK;
}

static enum status emit_flatten(struct kctx *c, const struct klayer *L, struct ktensor *x,
                                struct ktensor *o)
{
    int64_t numel = 1;
    for (int i = 1; i < x->rank; i++)
        numel = (numel < 0 || dimv(&x->dims[i]) < 0) ? -1 : numel * dimv(&x->dims[i]);
    int in = kx_val(c, x, false, kx_name(c, L, NULL));
    int v = kx_op(c, OP_Flatten, kx_name(c, L, NULL), &in, 1);
    graph_attr_int(c->g, kx_producer(c, v), "axis", 1);
    struct dim b = x->dims[0];
    kx_tensor(o, 2, v, false);
    o->dims[0] = b;
    o->dims[1] = (struct dim){numel, -1};
    return ST_OK;
}

static enum status emit_permute(struct kctx *c, const struct klayer *L, struct ktensor *x,
                                struct ktensor *o)
{
    int64_t dims[IR_MAX_RANK], perm[IR_MAX_RANK];
    int n;
    enum status st = kcfg_intlist(c, L, "dims", IR_MAX_RANK - 1, dims, &n);
    if (st)
        return st;
    if (n != x->rank - 1)
        return kerr(c, L->path, "config.dims: %d entries for a rank-%d input", n, x->rank);
    unsigned seen = 0;
    perm[0] = 0;
    for (int i = 0; i < n; i++) {
        if (dims[i] < 1 || dims[i] > n || (seen & (1u << dims[i])))
            return kerr(c, L->path, "config.dims: not a permutation of 1..%d", n);
        seen |= 1u << dims[i];
        perm[i + 1] = dims[i];
    }
    int in = kx_val(c, x, false, kx_name(c, L, NULL));
    int v = kx_op(c, OP_Transpose, kx_name(c, L, NULL), &in, 1);
    graph_attr_ints(c->g, kx_producer(c, v), "perm", perm, n + 1);
    struct ktensor t = *x;
    kx_tensor(o, t.rank, v, false);
    for (int i = 0; i < t.rank; i++)
        o->dims[i] = t.dims[perm[i]];
    return ST_OK;
}

/* ---- padding and resizing ----------------------------------------------------------- */

/* ZeroPadding: int, tuple of nsp ints (symmetric), or tuple of (begin, end). */
static enum status read_pads(struct kctx *c, const struct klayer *L, const char *key, int nsp,
                             int64_t *b, int64_t *e)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(L->cfg, key);
    for (int i = 0; i < nsp; i++)
        b[i] = e[i] = 1;
    if (!j || cJSON_IsNull(j))
        return ST_OK;
    if (kj_is_int(j)) {
        for (int i = 0; i < nsp; i++)
            b[i] = e[i] = (int64_t)j->valuedouble;
        return ST_OK;
    }
    if (!cJSON_IsArray(j) || cJSON_GetArraySize(j) != (nsp == 1 ? 2 : nsp))
        return kerr(c, L->path, "config.%s: expected an integer or %d entries, got %s", key,
                    nsp == 1 ? 2 : nsp, kjtype(j));
    if (nsp == 1 && kj_is_int(j->child)) { /* ZeroPadding1D (left, right) */
        b[0] = (int64_t)j->child->valuedouble;
        if (!kj_is_int(j->child->next))
            return kerr(c, L->path, "config.%s[1]: expected an integer", key);
        e[0] = (int64_t)j->child->next->valuedouble;
        return ST_OK;
    }
    int i = 0;
    for (const cJSON *p = j->child; p; p = p->next, i++) {
        if (kj_is_int(p)) {
            b[i] = e[i] = (int64_t)p->valuedouble;
        } else if (cJSON_IsArray(p) && cJSON_GetArraySize(p) == 2 && kj_is_int(p->child) &&
                   kj_is_int(p->child->next)) {
            b[i] = (int64_t)p->child->valuedouble;
            e[i] = (int64_t)p->child->next->valuedouble;
        } else {
            return kerr(c, L->path, "config.%s[%d]: expected an integer or [begin, end], "
                                    "got %s", key, i, kjtype(p));
        }
    }
    return ST_OK;
}

/* The data_format of a layer with nsp spatial axes (ZeroPadding, UpSampling,
 * Cropping) and the check that its input has them plus batch and channels. */
static enum status spatial_format(struct kctx *c, const struct klayer *L,
                                  const struct ktensor *x, int nsp, bool *cfirst)
{
    const char *df;
    enum status st = kcfg_str(c, L, "data_format", "channels_last", &df);
    if (st)
        return st;
    if (x->rank != nsp + 2)
        return klerr(c, L, ST_EPARSE, "expects a rank-%d input, got rank %d", nsp + 2, x->rank);
    *cfirst = !strcmp(df, "channels_first");
    return ST_OK;
}

/* o's dims are t's, with each known spatial dim d (from axis sp0) made
 * d * mul[i] + add[i]. */
static void spatial_dims(struct ktensor *o, const struct ktensor *t, int sp0, int nsp,
                         const int64_t *mul, const int64_t *add)
{
    memcpy(o->dims, t->dims, sizeof o->dims);
    for (int i = 0; i < nsp; i++) {
        int64_t d = dimv(&t->dims[sp0 + i]);
        o->dims[sp0 + i] = (struct dim){d < 0 ? -1 : d * mul[i] + add[i], -1};
    }
}

/* The result v of a ZeroPadding or UpSampling node computed channels-first,
 * in the layer's own layout (cfirst: the node's output is that layout too). */
static void spatial_out(struct ktensor *o, const struct ktensor *x, int v, bool cfirst, int nsp,
                        const int64_t *mul, const int64_t *add)
{
    struct ktensor t = *x;
    kx_tensor(o, t.rank, v, !cfirst);
    if (cfirst) {
        o->vn = v;
        o->vcf = -1;
    }
    spatial_dims(o, &t, cfirst ? 2 : 1, nsp, mul, add);
}

/* The configuration ZeroPadding and Cropping share: nsp spatial axes, the
 * begin and end amounts of each, the layout. */
struct spatial {
    int nsp;
    bool cfirst;
    int64_t b[3], e[3];
};

/* Reads s from config key ("padding", "cropping") and data_format, checks
 * the input's rank and that no amount is negative. */
static enum status spatial_pads(struct kctx *c, const struct klayer *L, const char *key,
                                const struct ktensor *x, struct spatial *s)
{
    enum status st = read_pads(c, L, key, s->nsp, s->b, s->e);
    if (!st)
        st = spatial_format(c, L, x, s->nsp, &s->cfirst);
    if (st)
        return st;
    for (int i = 0; i < s->nsp; i++)
        if (s->b[i] < 0 || s->e[i] < 0)
            return kerr(c, L->path, "config.%s: negative %s", key, key);
    return ST_OK;
}

static enum status emit_zeropad(struct kctx *c, const struct klayer *L, struct ktensor *x,
                                const struct spatial *s, struct ktensor *o)
{
    int nsp = s->nsp, r = nsp + 2;
    bool cfirst = s->cfirst;
    const int64_t *b = s->b, *e = s->e;
    int64_t pads[2 * 5] = {0}, add[3];
    for (int i = 0; i < nsp; i++) {
        pads[2 + i] = b[i];
        pads[r + 2 + i] = e[i];
        add[i] = b[i] + e[i];
    }
    int in[2] = {kx_val(c, x, !cfirst, kx_name(c, L, NULL)),
                 kx_const_i64(c, kx_name(c, L, "pads"), pads, 2 * r)};
    int v = kx_op(c, OP_Pad, kx_name(c, L, NULL), in, 2);
    graph_attr_string(c->g, kx_producer(c, v), "mode", "constant");
    static const int64_t ones[3] = {1, 1, 1};
    spatial_out(o, x, v, cfirst, nsp, ones, add);
    return ST_OK;
}

static enum status emit_upsample(struct kctx *c, const struct klayer *L, struct ktensor *x,
                                 int nsp, struct ktensor *o)
{
    int64_t size[3];
    const char *interp;
    bool cfirst = false;
    enum status st = kcfg_ints(c, L, nsp == 1 ? "size" : "size", nsp, 2, size);
    if (!st)
        st = kcfg_str(c, L, "interpolation", "nearest", &interp);
    if (!st)
        st = spatial_format(c, L, x, nsp, &cfirst);
    if (st)
        return st;
    const char *mode = !strcmp(interp, "nearest") ? "nearest"
                       : (!strcmp(interp, "bilinear") || !strcmp(interp, "linear")) ? "linear"
                       : !strcmp(interp, "bicubic") ? "cubic" : NULL;
    if (!mode)
        return klerr(c, L, ST_EUNSUPPORTED, "interpolation \"%s\" is not supported", interp);
    int r = nsp + 2;
    double scales[5] = {1, 1, 1, 1, 1};
    for (int i = 0; i < nsp; i++) {
        if (size[i] < 1)
            return kerr(c, L->path, "config.size: must be positive");
        scales[2 + i] = (double)size[i];
    }
    int64_t sd = r;
    int in[3] = {kx_val(c, x, !cfirst, kx_name(c, L, NULL)), -1,
                 kx_const_f(c, kx_name(c, L, "scales"), scales, 1, &sd)};
    int v = kx_op(c, OP_Resize, kx_name(c, L, NULL), in, 3);
    graph_attr_string(c->g, kx_producer(c, v), "mode", mode);
    static const int64_t zeros[3] = {0, 0, 0};
    spatial_out(o, x, v, cfirst, nsp, size, zeros);
    return ST_OK;
}

/* Cropping1D/2D/3D: Slice of the spatial axes (channels-first for 2D/3D). */
static enum status emit_cropping(struct kctx *c, const struct klayer *L, struct ktensor *x,
                                 const struct spatial *s, struct ktensor *o)
{
    int nsp = s->nsp;
    bool cfirst = s->cfirst;
    const int64_t *b = s->b, *e = s->e;
    bool cf = nsp > 1 && !cfirst; /* Cropping1D crops axis 1 of (batch, steps, channels) */
    int sp0 = cfirst ? 2 : 1, ir0 = (cf || cfirst) ? 2 : 1;
    int64_t starts[3], ends[3], axes[3], add[3];
    for (int i = 0; i < nsp; i++) {
        starts[i] = b[i];
        ends[i] = e[i] ? -e[i] : INT64_MAX;
        axes[i] = ir0 + i;
        add[i] = -b[i] - e[i];
    }
    int in[4] = {kx_val(c, x, cf, kx_name(c, L, NULL)),
                 kx_const_i64(c, kx_name(c, L, "starts"), starts, nsp),
                 kx_const_i64(c, kx_name(c, L, "ends"), ends, nsp),
                 kx_const_i64(c, kx_name(c, L, "axes"), axes, nsp)};
    int v = kx_op(c, OP_Slice, kx_name(c, L, NULL), in, 4);
    struct ktensor t = *x;
    kx_tensor(o, t.rank, v, cf);
    static const int64_t ones[3] = {1, 1, 1};
    spatial_dims(o, &t, sp0, nsp, ones, add);
    return ST_OK;
}

/* RepeatVector(n): (batch, f) -> (batch, n, f) as Unsqueeze + Tile. */
static enum status emit_repeat(struct kctx *c, const struct klayer *L, struct ktensor *x,
                               struct ktensor *o)
{
    int64_t n;
    enum status st = kcfg_int(c, L, "n", true, 0, &n);
    if (st)
        return st;
    if (n < 1)
        return kerr(c, L->path, "config.n: must be positive");
    if (x->rank != 2)
        return klerr(c, L, ST_EPARSE, "expects a rank-2 input, got rank %d", x->rank);
    int64_t ax = 1, reps[3] = {1, n, 1};
    int in[2] = {kx_val(c, x, false, kx_name(c, L, NULL)),
                 kx_const_i64(c, kx_name(c, L, "axes"), &ax, 1)};
    int v = kx_op(c, OP_Unsqueeze, kx_name(c, L, "unsqueeze"), in, 2);
    int in2[2] = {v, kx_const_i64(c, kx_name(c, L, "repeats"), reps, 3)};
    v = kx_op(c, OP_Tile, kx_name(c, L, NULL), in2, 2);
    struct ktensor t = *x;
    kx_tensor(o, 3, v, false);
    o->dims[0] = t.dims[0];
    o->dims[1] = (struct dim){n, -1};
    o->dims[2] = t.dims[1];
    return ST_OK;
}

/* ---- preprocessing ---------------------------------------------------------------------- */

static enum status emit_rescaling(struct kctx *c, const struct klayer *L, struct ktensor *x,
                                  struct ktensor *o)
{
    double scale, offset;
    enum status st = kcfg_float(c, L, "scale", 1.0, &scale);
    if (!st)
        st = kcfg_float(c, L, "offset", 0.0, &offset);
    if (st)
        return st;
    bool cf;
    int v = any_val(x, &cf);
    int64_t none = 0;
    int in[2] = {v, kx_const_f(c, kx_name(c, L, "scale"), &scale, 0, &none)};
    v = kx_op(c, OP_Mul, kx_name(c, L, offset != 0 ? "mul" : NULL), in, 2);
    if (offset != 0) {
        int in2[2] = {v, kx_const_f(c, kx_name(c, L, "offset"), &offset, 0, &none)};
        v = kx_op(c, OP_Add, kx_name(c, L, NULL), in2, 2);
    }
    same_shape(o, x, v, cf);
    return ST_OK;
}

/* Normalization: (x - mean) / sqrt(variance). Without a mean in the config the
 * statistics are weights (adapt()): mean and variance, plus Keras 2's int64
 * "count" scalar, which count_params() includes. */
static enum status emit_normalization(struct kctx *c, const struct klayer *L, struct ktensor *x,
                                      struct ktensor *o)
{
    int axis;
    int64_t ax[IR_MAX_RANK];
    int n;
    enum status st = kcfg_intlist(c, L, "axis", IR_MAX_RANK, ax, &n);
    if (st)
        return st;
    axis = n == 0 ? x->rank - 1 : (int)(ax[0] < 0 ? ax[0] + x->rank : ax[0]);
    if (n > 1 || axis != x->rank - 1)
        return klerr(c, L, ST_EUNSUPPORTED, "normalising other than the last axis is not "
                                            "supported");
    int64_t ch = dimv(&x->dims[axis]);
    if (ch < 1)
        return klerr(c, L, ST_EPARSE, "the normalised dim is unknown");
    const cJSON *mean = cJSON_GetObjectItemCaseSensitive(L->cfg, "mean");
    int mv, vv;
    if (mean && !cJSON_IsNull(mean)) {
        return klerr(c, L, ST_EUNSUPPORTED, "a mean/variance given in the config is not "
                                            "supported; save the adapted layer instead");
    }
    mv = kx_weight(c, L, "mean", 1, &ch, DT_FLOAT);
    vv = mv < 0 ? -1 : kx_weight(c, L, "variance", 1, &ch, DT_FLOAT);
    if (vv < 0)
        return c->d->code;
    if (!c->keras3) {
        int64_t none = 0;
        if (kx_weight(c, L, "count", 0, &none, DT_INT64) < 0)
            return c->d->code;
    }
    int xv = kx_val(c, x, false, kx_name(c, L, NULL));
    int in[2] = {xv, mv};
    int s = kx_op(c, OP_Sub, kx_name(c, L, "sub"), in, 2);
    int sd = kx_op(c, OP_Sqrt, kx_name(c, L, "std"), &vv, 1);
    int in2[2] = {s, sd};
    int v = kx_op(c, OP_Div, kx_name(c, L, NULL), in2, 2);
    same_shape(o, x, v, false);
    return ST_OK;
}

/* ---- dispatch ------------------------------------------------------------------------------ */

/* 1, 2 or 3 when the class k is prefix followed by "1D", "2D" or "3D", else 0. */
static int spatial_rank(const char *k, const char *prefix)
{
    size_t n = strlen(prefix);
    if (strncmp(k, prefix, n) || strlen(k) != n + 2 || k[n + 1] != 'D' || k[n] < '1' ||
        k[n] > '3')
        return 0;
    return k[n] - '0';
}

static const char *const noops[] = {
    "Dropout", "SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D", "GaussianNoise",
    "GaussianDropout", "AlphaDropout", "ActivityRegularization", "Masking",
};

/* op (LeakyRelu, Elu) of x with attribute alpha = a. */
static enum status unary_alpha(struct kctx *c, const struct klayer *L, struct ktensor *x,
                               enum op op, double a, struct ktensor *o)
{
    int ni;
    enum status st = unary(c, L, x, op, o, &ni);
    if (!st)
        graph_attr_float(c->g, ni, "alpha", a);
    return st;
}

/* The layers of one input whose emitter takes no other argument. */
static const struct {
    const char *cls;
    enum status (*emit)(struct kctx *c, const struct klayer *L, struct ktensor *x,
                        struct ktensor *o);
} one_in[] = {
    {"Activation", emit_activation}, {"ReLU", emit_relu},
    {"PReLU", emit_prelu},           {"Reshape", emit_reshape},
    {"Flatten", emit_flatten},       {"Permute", emit_permute},
    {"RepeatVector", emit_repeat},   {"Rescaling", emit_rescaling},
    {"Normalization", emit_normalization},
};

enum status keras_layer_emit_misc(struct kctx *c, const struct klayer *L, struct ktensor *in,
                                  int n_in, struct ktensor *out, int *n_out)
{
    const char *k = L->cls;
    *n_out = 1;
    if (!strcmp(k, "Add") || !strcmp(k, "Multiply") || !strcmp(k, "Average") ||
        !strcmp(k, "Maximum") || !strcmp(k, "Minimum") || !strcmp(k, "Subtract"))
        return emit_merge(c, L, in, n_in,
                          k[0] == 'A' ? (k[1] == 'd' ? OP_Add : OP_Mean)
                          : k[0] == 'S' ? OP_Sub
                          : k[1] == 'u' ? OP_Mul
                          : k[1] == 'a' ? OP_Max : OP_Min,
                          k[0] == 'S', out);
    if (!strcmp(k, "Concatenate"))
        return emit_concat(c, L, in, n_in, out);
    if (n_in != 1)
        return klerr(c, L, ST_EPARSE, "expects one input tensor, got %d", n_in);
    for (size_t i = 0; i < sizeof noops / sizeof noops[0]; i++)
        if (!strcmp(k, noops[i])) {
            /* Inference graphs drop these (tf2onnx does too). */
            *out = *in;
            return ST_OK;
        }
    for (size_t i = 0; i < sizeof one_in / sizeof one_in[0]; i++)
        if (!strcmp(k, one_in[i].cls))
            return one_in[i].emit(c, L, in, out);
    int ni;
    if (!strcmp(k, "LeakyReLU")) {
        double a;
        enum status st = kcfg_float(c, L, "negative_slope", c->keras3 ? 0.3 : 0.3, &a);
        if (!st && !cJSON_GetObjectItemCaseSensitive(L->cfg, "negative_slope"))
            st = kcfg_float(c, L, "alpha", 0.3, &a);
        return st ? st : unary_alpha(c, L, in, OP_LeakyRelu, a, out);
    }
    if (!strcmp(k, "ELU")) {
        double a;
        enum status st = kcfg_float(c, L, "alpha", 1.0, &a);
        return st ? st : unary_alpha(c, L, in, OP_Elu, a, out);
    }
    if (!strcmp(k, "Softmax")) {
        int64_t axis;
        enum status st = kcfg_int(c, L, "axis", false, -1, &axis);
        if (st)
            return st;
        if (axis < 0)
            axis += in->rank;
        if (axis < 0 || axis >= in->rank)
            return kerr(c, L->path, "config.axis: out of range for rank %d", in->rank);
        bool cf = in->vn < 0;
        st = unary(c, L, in, OP_Softmax, out, &ni);
        if (!st)
            graph_attr_int(c->g, ni, "axis", cf ? kx_cf_axis((int)axis, in->rank) : axis);
        return st;
    }
    int nsp;
    if ((nsp = spatial_rank(k, "UpSampling")))
        return emit_upsample(c, L, in, nsp, out);
    bool pad = (nsp = spatial_rank(k, "ZeroPadding")) != 0;
    if (pad || (nsp = spatial_rank(k, "Cropping"))) {
        struct spatial s = {.nsp = nsp};
        enum status st = spatial_pads(c, L, pad ? "padding" : "cropping", in, &s);
        if (st)
            return st;
        return pad ? emit_zeropad(c, L, in, &s, out) : emit_cropping(c, L, in, &s, out);
    }
    return diag_set(c->d, ST_EUNSUPPORTED, "%s: layer '%s%s' (class %s) is not supported",
                    c->file, L->nprefix, L->name, L->cls);
}
