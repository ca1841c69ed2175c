/*
 * keras_layers.c - Keras layers mapped to IR ops: convolutions, Dense,
 * normalisation, pooling. Merge, reshape, activation and preprocessing
 * layers are in keras_layers_misc.c; sequence and attention layers in
 * keras_layers_seq.c. Layout convention: keras_impl.h.
 *
 * Every emitter computes its output's Keras-order dims (what
 * compute_output_shape gives) because weight shapes depend on them: a
 * Dense kernel is [input last dim, units], a Conv kernel needs the input
 * channels. Dims that cannot be known (symbolic sizes through a strided
 * conv) stay unknown here; graph_infer resolves them for each binding.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/keras/keras_impl.h"

/* Layers whose class is not known here are dispatched on. */
enum status keras_layer_emit_misc(struct kctx *c, const struct klayer *L, struct ktensor *in,
                                  int n_in, struct ktensor *out, int *n_out);

enum status kx_activation_name(struct kctx *c, const struct klayer *L, const char **out)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(L->cfg, "activation");
    *out = NULL;
    if (!j || cJSON_IsNull(j))
        return ST_OK;
    if (cJSON_IsString(j)) {
        *out = j->valuestring;
        return ST_OK;
    }
    if (cJSON_IsObject(j)) { /* Keras 3: {"module", "class_name": "function", "config": "relu"} */
        const cJSON *cf = cJSON_GetObjectItemCaseSensitive(j, "config");
        const cJSON *cn = cJSON_GetObjectItemCaseSensitive(j, "class_name");
        if (cJSON_IsString(cf)) {
            *out = cf->valuestring;
            return ST_OK;
        }
        if (cJSON_IsString(cn)) {
            *out = cn->valuestring;
            return ST_OK;
        }
    }
    return kerr(c, L->path, "config.activation: expected an activation name, got %s",
                kjtype(j));
}

static int64_t dimv(const struct dim *d)
{
    return d->sym < 0 ? d->v : -1;
}

static struct dim fixed(int64_t v)
{
    return (struct dim){v, -1};
}

static const struct dim unknown = {-1, -1};

/* Output length of a conv/pool window along one axis (Keras conv_output_length). */
static struct dim conv_len(struct dim in, int64_t k, int64_t s, int64_t dil, bool same)
{
    if (same && s == 1)
        return in; /* symbolic dims pass through */
    int64_t n = dimv(&in);
    if (n < 0)
        return unknown;
    int64_t ek = (k - 1) * dil + 1;
    if (same)
        return fixed((n + s - 1) / s);
    return fixed(n >= ek ? (n - ek) / s + 1 : 0);
}

static enum status need_rank(struct kctx *c, const struct klayer *L, const struct ktensor *t,
                             int rank)
{
    if (t->rank != rank)
        return klerr(c, L, ST_EPARSE, "expects a rank-%d input, got rank %d", rank, t->rank);
    return ST_OK;
}

static enum status one_input(struct kctx *c, const struct klayer *L, int n_in)
{
    if (n_in != 1)
        return klerr(c, L, ST_EPARSE, "expects one input tensor, got %d", n_in);
    return ST_OK;
}

/* data_format: channels_last (default) or channels_first. */
static enum status read_cf(struct kctx *c, const struct klayer *L, bool *channels_first)
{
    const char *df;
    enum status st = kcfg_str(c, L, "data_format", "channels_last", &df);
    if (st)
        return st;
    if (strcmp(df, "channels_last") && strcmp(df, "channels_first"))
        return kerr(c, L->path, "config.data_format: expected \"channels_last\" or "
                                "\"channels_first\", got \"%s\"", df);
    *channels_first = !strcmp(df, "channels_first");
    return ST_OK;
}

static enum status read_padding(struct kctx *c, const struct klayer *L, bool *same,
                                bool *causal)
{
    const char *p;
    enum status st = kcfg_str(c, L, "padding", "valid", &p);
    if (st)
        return st;
    *causal = !strcmp(p, "causal");
    *same = !strcmp(p, "same");
    if (!*same && !*causal && strcmp(p, "valid"))
        return kerr(c, L->path, "config.padding: expected \"valid\", \"same\" or \"causal\", "
                                "got \"%s\"", p);
    return ST_OK;
}

/* Spatial geometry shared by conv and pooling layers. */
struct geom {
    int nsp;          /* spatial dims */
    bool cfirst;      /* data_format channels_first */
    int cax;          /* channel axis (Keras order) */
    int sp0;          /* first spatial axis (Keras order) */
    int64_t k[3], s[3], dil[3];
    bool same, causal;
};

static void set_window_attrs(struct kctx *c, int ni, const struct geom *G, bool dil)
{
    graph_attr_ints(c->g, ni, "kernel_shape", G->k, G->nsp);
    graph_attr_ints(c->g, ni, "strides", G->s, G->nsp);
    if (dil)
        graph_attr_ints(c->g, ni, "dilations", G->dil, G->nsp);
    if (G->same) {
        graph_attr_string(c->g, ni, "auto_pad", "SAME_UPPER");
    } else {
        int64_t pads[6] = {0};
        graph_attr_ints(c->g, ni, "pads", pads, 2 * G->nsp);
    }
}

static void out_dims(const struct ktensor *x, const struct geom *G, int64_t channels,
                     struct ktensor *o)
{
    o->rank = x->rank;
    o->dims[0] = x->dims[0];
    o->dims[G->cax] = channels >= 0 ? fixed(channels) : x->dims[G->cax];
    for (int i = 0; i < G->nsp; i++)
        o->dims[G->sp0 + i] = conv_len(x->dims[G->sp0 + i], G->k[i], G->s[i], G->dil[i],
                                       G->same || G->causal);
}

static enum status read_geom(struct kctx *c, const struct klayer *L, const struct ktensor *x,
                             int nsp, const char *kkey, bool pool, struct geom *G)
{
    enum status st = need_rank(c, L, x, nsp + 2);
    if (!st)
        st = read_cf(c, L, &G->cfirst);
    if (!st)
        st = read_padding(c, L, &G->same, &G->causal);
    if (st)
        return st;
    G->nsp = nsp;
    G->cax = G->cfirst ? 1 : nsp + 1;
    G->sp0 = G->cfirst ? 2 : 1;
    st = kcfg_ints(c, L, kkey, nsp, pool ? 2 : -1, G->k);
    if (!st && !pool && G->k[0] < 0)
        return kerr(c, L->path, "config.%s: missing", kkey);
    if (!st)
        st = kcfg_ints(c, L, "strides", nsp, INT64_MIN, G->s);
    if (!st && G->s[0] == INT64_MIN) /* absent: pools default to the window, convs to 1 */
        for (int i = 0; i < nsp; i++)
            G->s[i] = pool ? G->k[i] : 1;
    if (!st)
        st = kcfg_ints(c, L, "dilation_rate", nsp, 1, G->dil);
    for (int i = 0; !st && i < nsp; i++)
        if (G->k[i] < 1 || G->s[i] < 1 || G->dil[i] < 1 || G->k[i] > 65536 || G->s[i] > 65536)
            return kerr(c, L->path, "config: %s, strides and dilation_rate must be 1 to 65536",
                        kkey);
    if (!st && G->causal && nsp != 1)
        return kerr(c, L->path, "config.padding: \"causal\" is only valid for 1-D layers");
    return st;
}

/* The channels-first IR value of x, left-padded for causal 1-D convs. */
static int conv_input(struct kctx *c, const struct klayer *L, struct ktensor *x,
                      const struct geom *G)
{
    int v = kx_val(c, x, !G->cfirst, kx_name(c, L, NULL));
    if (!G->causal)
        return v;
    int64_t pads[6] = {0, 0, (G->k[0] - 1) * G->dil[0], 0, 0, 0};
    int pv = kx_const_i64(c, kx_name(c, L, "causal_pads"), pads, 6);
    int in[2] = {v, pv};
    return kx_op(c, OP_Pad, kx_name(c, L, "causal_pad"), in, 2);
}

/* Finishes a channels-first conv output: activation, ktensor layout. */
static enum status conv_finish(struct kctx *c, const struct klayer *L, int v,
                               const struct geom *G, struct ktensor *o)
{
    const char *act;
    enum status st = kx_activation_name(c, L, &act);
    if (st)
        return st;
    v = kx_activation(c, L, act, v, 1);
    if (v < 0)
        return c->d ? c->d->code : ST_EUNSUPPORTED;
    int rank = o->rank;
    struct dim dims[IR_MAX_RANK];
    memcpy(dims, o->dims, sizeof dims);
    kx_tensor(o, rank, v, !G->cfirst);
    if (G->cfirst) {
        o->vn = v;
        o->vcf = -1;
    }
    memcpy(o->dims, dims, sizeof dims);
    return ST_OK;
}

static int64_t chan(const struct ktensor *x, const struct geom *G)
{
    return dimv(&x->dims[G->cax]);
}

/* ---- convolutions ----------------------------------------------------------- */

static enum status emit_conv(struct kctx *c, const struct klayer *L, struct ktensor *x, int nsp,
                             struct ktensor *o)
{
    struct geom G;
    int64_t filters, groups;
    bool bias;
    enum status st = read_geom(c, L, x, nsp, "kernel_size", false, &G);
    if (!st)
        st = kcfg_int(c, L, "filters", true, 0, &filters);
    if (!st)
        st = kcfg_int(c, L, "groups", false, 1, &groups);
    if (!st)
        st = kcfg_bool(c, L, "use_bias", true, &bias);
    if (st)
        return st;
    int64_t cin = chan(x, &G);
    if (filters < 1 || groups < 1 || (cin > 0 && cin % groups) || filters % groups)
        return klerr(c, L, ST_EPARSE, "filters %lld and groups %lld do not divide the %lld "
                                      "input channels", (long long)filters, (long long)groups,
                     (long long)cin);
    int64_t wd[5] = {filters, cin < 0 ? -1 : cin / groups, G.k[0], G.k[1], G.k[2]};
    int in[3] = {conv_input(c, L, x, &G), kx_weight(c, L, "kernel", nsp + 2, wd, DT_FLOAT), -1};
    if (in[1] < 0)
        return c->d->code;
    if (bias && (in[2] = kx_weight(c, L, "bias", 1, &filters, DT_FLOAT)) < 0)
        return c->d->code;
    int v = kx_op(c, OP_Conv, kx_name(c, L, NULL), in, bias ? 3 : 2);
    int ni = kx_producer(c, v);
    set_window_attrs(c, ni, &G, true);
    if (groups > 1)
        graph_attr_int(c->g, ni, "group", groups);
    out_dims(x, &G, filters, o);
    return conv_finish(c, L, v, &G, o);
}

static enum status emit_depthwise(struct kctx *c, const struct klayer *L, struct ktensor *x,
                                  int nsp, bool separable, struct ktensor *o)
{
    struct geom G;
    int64_t dm, filters = 0;
    bool bias;
    enum status st = read_geom(c, L, x, nsp, "kernel_size", false, &G);
    if (!st)
        st = kcfg_int(c, L, "depth_multiplier", false, 1, &dm);
    if (!st)
        st = kcfg_bool(c, L, "use_bias", true, &bias);
    if (!st && separable)
        st = kcfg_int(c, L, "filters", true, 0, &filters);
    if (st)
        return st;
    int64_t cin = chan(x, &G);
    if (cin < 1)
        return klerr(c, L, ST_EPARSE, "the input's channel dim is unknown");
    /* TF.js omits depth_multiplier from SeparableConv2D configs; its
     * weightsManifest kernel [k..., in, multiplier] is the truth. */
    char key[512];
    snprintf(key, sizeof key, "%s/depthwise_kernel", L->name);
    int wi = c->w && !cJSON_GetObjectItemCaseSensitive(L->cfg, "depth_multiplier")
                 ? keras_manifest_find(c, key) : -1;
    if (wi >= 0 && c->w[wi].rank == nsp + 2 && c->w[wi].dims[nsp] == cin)
        dm = c->w[wi].dims[nsp + 1];
    if (dm < 1 || (separable && filters < 1))
        return kerr(c, L->path, "config: depth_multiplier and filters must be positive");
    int64_t wd[5] = {cin * dm, 1, G.k[0], G.k[1], G.k[2]};
    int64_t nb = separable ? filters : cin * dm;
    int in[3] = {conv_input(c, L, x, &G),
                 kx_weight(c, L, "depthwise_kernel", nsp + 2, wd, DT_FLOAT), -1};
    if (in[1] < 0)
        return c->d->code;
    bool dw_bias = bias && !separable;
    if (dw_bias && (in[2] = kx_weight(c, L, "bias", 1, &nb, DT_FLOAT)) < 0)
        return c->d->code;
    int v = kx_op(c, OP_Conv, kx_name(c, L, separable ? "depthwise" : NULL), in, dw_bias ? 3 : 2);
    int ni = kx_producer(c, v);
    set_window_attrs(c, ni, &G, true);
    graph_attr_int(c->g, ni, "group", cin);
    out_dims(x, &G, separable ? filters : cin * dm, o);
    if (separable) {
        int64_t pd[5] = {filters, cin * dm, 1, 1, 1};
        int pin[3] = {v, kx_weight(c, L, "pointwise_kernel", nsp + 2, pd, DT_FLOAT), -1};
        if (pin[1] < 0)
            return c->d->code;
        if (bias && (pin[2] = kx_weight(c, L, "bias", 1, &nb, DT_FLOAT)) < 0)
            return c->d->code;
        v = kx_op(c, OP_Conv, kx_name(c, L, NULL), pin, bias ? 3 : 2);
        int64_t ones[3] = {1, 1, 1}, zeros[6] = {0};
        graph_attr_ints(c->g, kx_producer(c, v), "kernel_shape", ones, nsp);
        graph_attr_ints(c->g, kx_producer(c, v), "pads", zeros, 2 * nsp);
    }
    return conv_finish(c, L, v, &G, o);
}

static enum status emit_conv_transpose(struct kctx *c, const struct klayer *L,
                                       struct ktensor *x, int nsp, struct ktensor *o)
{
    struct geom G;
    int64_t filters, opad[3];
    bool bias;
    enum status st = read_geom(c, L, x, nsp, "kernel_size", false, &G);
    if (!st)
        st = kcfg_int(c, L, "filters", true, 0, &filters);
    if (!st)
        st = kcfg_bool(c, L, "use_bias", true, &bias);
    if (!st)
        st = kcfg_ints(c, L, "output_padding", nsp, -1, opad);
    if (st)
        return st;
    int64_t cin = chan(x, &G);
    if (filters < 1)
        return kerr(c, L->path, "config.filters: must be positive");
    int64_t wd[5] = {cin, filters, G.k[0], G.k[1], G.k[2]};
    int in[3] = {kx_val(c, x, !G.cfirst, kx_name(c, L, NULL)),
                 kx_weight(c, L, "kernel", nsp + 2, wd, DT_FLOAT), -1};
    if (in[1] < 0)
        return c->d->code;
    if (bias && (in[2] = kx_weight(c, L, "bias", 1, &filters, DT_FLOAT)) < 0)
        return c->d->code;
    int v = kx_op(c, OP_ConvTranspose, kx_name(c, L, NULL), in, bias ? 3 : 2);
    int ni = kx_producer(c, v);
    graph_attr_ints(c->g, ni, "kernel_shape", G.k, nsp);
    graph_attr_ints(c->g, ni, "strides", G.s, nsp);
    graph_attr_ints(c->g, ni, "dilations", G.dil, nsp);
    /* Keras deconv_output_length: same -> in*s; valid -> in*s + max(k-s, 0);
     * with output_padding op: (in-1)*s + k - 2*pad + op, pad = k/2 (same) or 0. */
    int64_t pads[6] = {0}, op[3] = {0};
    for (int i = 0; i < nsp; i++) {
        int64_t ek = (G.k[i] - 1) * G.dil[i] + 1;
        if (opad[0] >= 0) {
            op[i] = opad[i];
            pads[i] = pads[i + nsp] = G.same ? G.k[i] / 2 : 0;
        } else if (!G.same) {
            op[i] = G.s[i] > ek ? G.s[i] - ek : 0;
        }
        int64_t n = dimv(&x->dims[G.sp0 + i]);
        o->dims[G.sp0 + i] = n < 0 ? unknown
                                   : fixed((n - 1) * G.s[i] + ek - 2 * pads[i] + op[i]);
        if (opad[0] < 0 && G.same && n >= 0)
            o->dims[G.sp0 + i] = fixed(n * G.s[i]);
    }
    if (opad[0] < 0 && G.same) {
        graph_attr_string(c->g, ni, "auto_pad", "SAME_UPPER");
    } else {
        graph_attr_ints(c->g, ni, "pads", pads, 2 * nsp);
        graph_attr_ints(c->g, ni, "output_padding", op, nsp);
    }
    o->rank = x->rank;
    o->dims[0] = x->dims[0];
    o->dims[G.cax] = fixed(filters);
    return conv_finish(c, L, v, &G, o);
}

/* ---- Dense, normalisation ------------------------------------------------------- */

static enum status emit_dense(struct kctx *c, const struct klayer *L, struct ktensor *x,
                              struct ktensor *o)
{
    int64_t units;
    bool bias;
    const char *act;
    enum status st = kcfg_int(c, L, "units", true, 0, &units);
    if (!st)
        st = kcfg_bool(c, L, "use_bias", true, &bias);
    if (!st)
        st = kx_activation_name(c, L, &act);
    if (st)
        return st;
    if (units < 1)
        return kerr(c, L->path, "config.units: must be positive, got %lld", (long long)units);
    if (x->rank < 2)
        return klerr(c, L, ST_EPARSE, "expects an input of rank >= 2, got rank %d", x->rank);
    int64_t fin = dimv(&x->dims[x->rank - 1]);
    int64_t wd[2] = {fin, units};
    int xv = kx_val(c, x, false, kx_name(c, L, NULL));
    int w = kx_weight(c, L, "kernel", 2, wd, DT_FLOAT), b = -1;
    if (w < 0 || (bias && (b = kx_weight(c, L, "bias", 1, &units, DT_FLOAT)) < 0))
        return c->d->code;
    int v;
    if (x->rank == 2) {
        int in[3] = {xv, w, b};
        v = kx_op(c, OP_Gemm, kx_name(c, L, NULL), in, bias ? 3 : 2);
    } else {
        int in[2] = {xv, w};
        v = kx_op(c, OP_MatMul, kx_name(c, L, bias ? "matmul" : NULL), in, 2);
        if (bias) {
            int in2[2] = {v, b};
            v = kx_op(c, OP_Add, kx_name(c, L, NULL), in2, 2);
        }
    }
    v = kx_activation(c, L, act, v, x->rank - 1);
    if (v < 0)
        return c->d->code;
    struct ktensor t = *x;
    kx_tensor(o, x->rank, v, false);
    memcpy(o->dims, t.dims, sizeof o->dims);
    o->dims[x->rank - 1] = fixed(units);
    return ST_OK;
}

/* A single normalisation axis, as a non-negative Keras axis. */
static enum status norm_axis(struct kctx *c, const struct klayer *L, const struct ktensor *x,
                             int *axis)
{
    int64_t ax[IR_MAX_RANK];
    int n;
    enum status st = kcfg_intlist(c, L, "axis", IR_MAX_RANK, ax, &n);
    if (st)
        return st;
    if (n == 0) {
        ax[0] = -1;
        n = 1;
    }
    if (n != 1)
        return klerr(c, L, ST_EUNSUPPORTED, "normalising over %d axes is not supported (one "
                                            "axis expected)", n);
    int a = (int)(ax[0] < 0 ? ax[0] + x->rank : ax[0]);
    if (a < 1 || a >= x->rank)
        return kerr(c, L->path, "config.axis: %lld is out of range for a rank-%d input",
                    (long long)ax[0], x->rank);
    *axis = a;
    return ST_OK;
}

/* gamma/beta of a norm layer, or a Constant of ones/zeros when disabled. */
static int affine(struct kctx *c, const struct klayer *L, const char *key, const char *wname,
                  int64_t ch, double fill)
{
    bool on;
    if (kcfg_bool(c, L, key, true, &on))
        return -1;
    if (on)
        return kx_weight(c, L, wname, 1, &ch, DT_FLOAT);
    double *vals = calloc((size_t)ch, sizeof *vals);
    if (!vals) {
        diag_set(c->d, ST_ENOMEM, "%s: out of memory", c->file);
        return -1;
    }
    for (int64_t i = 0; i < ch; i++)
        vals[i] = fill;
    int v = kx_const_f(c, kx_name(c, L, wname), vals, 1, &ch);
    free(vals);
    return v;
}

static enum status emit_batchnorm(struct kctx *c, const struct klayer *L, struct ktensor *x,
                                  struct ktensor *o)
{
    int axis;
    double eps, mom;
    enum status st = norm_axis(c, L, x, &axis);
    if (!st)
        st = kcfg_float(c, L, "epsilon", 1e-3, &eps);
    if (!st)
        st = kcfg_float(c, L, "momentum", 0.99, &mom);
    if (st)
        return st;
    bool cf;
    if (axis == x->rank - 1 && x->rank >= 3)
        cf = true;
    else if (axis == 1)
        cf = false;
    else
        return klerr(c, L, ST_EUNSUPPORTED, "normalising axis %d of a rank-%d tensor is not "
                                            "supported (channel axis 1 or last)", axis, x->rank);
    int64_t ch = dimv(&x->dims[axis]);
    if (ch < 1)
        return klerr(c, L, ST_EPARSE, "the channel dim (axis %d) is unknown", axis);
    int in[5] = {kx_val(c, x, cf, kx_name(c, L, NULL)), affine(c, L, "scale", "gamma", ch, 1.0),
                 affine(c, L, "center", "beta", ch, 0.0), -1, -1};
    if (in[1] < 0 || in[2] < 0 || (in[3] = kx_weight(c, L, "moving_mean", 1, &ch, DT_FLOAT)) < 0 ||
        (in[4] = kx_weight(c, L, "moving_variance", 1, &ch, DT_FLOAT)) < 0)
        return c->d->code;
    int v = kx_op(c, OP_BatchNormalization, kx_name(c, L, NULL), in, 5);
    graph_attr_float(c->g, kx_producer(c, v), "epsilon", eps);
    graph_attr_float(c->g, kx_producer(c, v), "momentum", mom);
    struct ktensor t = *x;
    kx_tensor(o, x->rank, v, cf);
    memcpy(o->dims, t.dims, sizeof o->dims);
    return ST_OK;
}

static enum status emit_layernorm(struct kctx *c, const struct klayer *L, struct ktensor *x,
                                  struct ktensor *o)
{
    int axis;
    double eps;
    enum status st = norm_axis(c, L, x, &axis);
    if (!st)
        st = kcfg_float(c, L, "epsilon", 1e-3, &eps);
    if (st)
        return st;
    if (axis != x->rank - 1)
        return klerr(c, L, ST_EUNSUPPORTED, "normalising axis %d of a rank-%d tensor is not "
                                            "supported (last axis only)", axis, x->rank);
    int64_t ch = dimv(&x->dims[axis]);
    if (ch < 1)
        return klerr(c, L, ST_EPARSE, "the normalised dim is unknown");
    int in[3] = {kx_val(c, x, false, kx_name(c, L, NULL)), affine(c, L, "scale", "gamma", ch, 1.0),
                 affine(c, L, "center", "beta", ch, 0.0)};
    if (in[1] < 0 || in[2] < 0)
        return c->d->code;
    int v = kx_op(c, OP_LayerNormalization, kx_name(c, L, NULL), in, 3);
    graph_attr_int(c->g, kx_producer(c, v), "axis", -1);
    graph_attr_float(c->g, kx_producer(c, v), "epsilon", eps);
    struct ktensor t = *x;
    kx_tensor(o, x->rank, v, false);
    memcpy(o->dims, t.dims, sizeof o->dims);
    return ST_OK;
}

/* ---- pooling ---------------------------------------------------------------------- */

static enum status emit_pool(struct kctx *c, const struct klayer *L, struct ktensor *x, int nsp,
                             bool max, struct ktensor *o)
{
    struct geom G;
    enum status st = read_geom(c, L, x, nsp, "pool_size", true, &G);
    if (st)
        return st;
    for (int i = 0; i < nsp; i++)
        G.dil[i] = 1;
    int in = kx_val(c, x, !G.cfirst, kx_name(c, L, NULL));
    int v = kx_op(c, max ? OP_MaxPool : OP_AveragePool, kx_name(c, L, NULL), &in, 1);
    set_window_attrs(c, kx_producer(c, v), &G, false);
    out_dims(x, &G, -1, o);
    struct dim dims[IR_MAX_RANK];
    memcpy(dims, o->dims, sizeof dims);
    kx_tensor(o, x->rank, v, !G.cfirst);
    if (G.cfirst) {
        o->vn = v;
        o->vcf = -1;
    }
    memcpy(o->dims, dims, sizeof dims);
    return ST_OK;
}

static enum status emit_global_pool(struct kctx *c, const struct klayer *L, struct ktensor *x,
                                    int nsp, bool max, struct ktensor *o)
{
    bool cfirst, keep;
    enum status st = need_rank(c, L, x, nsp + 2);
    if (!st)
        st = read_cf(c, L, &cfirst);
    if (!st)
        st = kcfg_bool(c, L, "keepdims", false, &keep);
    if (st)
        return st;
    int cax = cfirst ? 1 : nsp + 1;
    int in = kx_val(c, x, !cfirst, kx_name(c, L, NULL));
    int v = kx_op(c, max ? OP_GlobalMaxPool : OP_GlobalAveragePool,
                  kx_name(c, L, keep ? NULL : "pool"), &in, 1);
    struct dim ch = x->dims[cax], b = x->dims[0];
    if (keep) {
        kx_tensor(o, x->rank, v, !cfirst);
        if (cfirst) {
            o->vn = v;
            o->vcf = -1;
        }
        o->dims[0] = b;
        for (int i = 1; i < x->rank; i++)
            o->dims[i] = fixed(1);
        o->dims[cax] = ch;
        return ST_OK;
    }
    v = kx_op(c, OP_Flatten, kx_name(c, L, NULL), &v, 1);
    graph_attr_int(c->g, kx_producer(c, v), "axis", 1);
    kx_tensor(o, 2, v, false);
    o->dims[0] = b;
    o->dims[1] = ch;
    return ST_OK;
}

/* ---- dispatch ------------------------------------------------------------------------- */

struct kspatial {
    const char *cls;
    int kind; /* 0 conv, 1 depthwise, 2 separable, 3 transpose, 4 maxpool, 5 avgpool,
                 6 global max, 7 global avg */
    int nsp;
};

static const struct kspatial spatial[] = {
    {"Conv1D", 0, 1}, {"Conv2D", 0, 2}, {"Conv3D", 0, 3},
    {"Convolution1D", 0, 1}, {"Convolution2D", 0, 2}, {"Convolution3D", 0, 3},
    {"DepthwiseConv1D", 1, 1}, {"DepthwiseConv2D", 1, 2},
    {"SeparableConv1D", 2, 1}, {"SeparableConv2D", 2, 2},
    {"SeparableConvolution1D", 2, 1}, {"SeparableConvolution2D", 2, 2},
    {"Conv1DTranspose", 3, 1}, {"Conv2DTranspose", 3, 2}, {"Conv3DTranspose", 3, 3},
    {"Deconvolution2D", 3, 2}, {"Deconvolution3D", 3, 3},
    {"MaxPooling1D", 4, 1}, {"MaxPooling2D", 4, 2}, {"MaxPooling3D", 4, 3},
    {"MaxPool1D", 4, 1}, {"MaxPool2D", 4, 2}, {"MaxPool3D", 4, 3},
    {"AveragePooling1D", 5, 1}, {"AveragePooling2D", 5, 2}, {"AveragePooling3D", 5, 3},
    {"AvgPool1D", 5, 1}, {"AvgPool2D", 5, 2}, {"AvgPool3D", 5, 3},
    {"GlobalMaxPooling1D", 6, 1}, {"GlobalMaxPooling2D", 6, 2}, {"GlobalMaxPooling3D", 6, 3},
    {"GlobalMaxPool1D", 6, 1}, {"GlobalMaxPool2D", 6, 2}, {"GlobalMaxPool3D", 6, 3},
    {"GlobalAveragePooling1D", 7, 1}, {"GlobalAveragePooling2D", 7, 2},
    {"GlobalAveragePooling3D", 7, 3}, {"GlobalAvgPool1D", 7, 1}, {"GlobalAvgPool2D", 7, 2},
    {"GlobalAvgPool3D", 7, 3},
};

enum status keras_layer_emit(struct kctx *c, const struct klayer *L, struct ktensor *in,
                             int n_in, const struct kkwargs *kw, struct ktensor *out,
                             int *n_out)
{
    *n_out = 1;
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < sizeof spatial / sizeof spatial[0]; i++) {
        if (strcmp(spatial[i].cls, L->cls))
            continue;
        enum status st = one_input(c, L, n_in);
        if (st)
            return st;
        int nsp = spatial[i].nsp;
        switch (spatial[i].kind) {
        case 0: return emit_conv(c, L, in, nsp, out);
        case 1: return emit_depthwise(c, L, in, nsp, false, out);
        case 2: return emit_depthwise(c, L, in, nsp, true, out);
        case 3: return emit_conv_transpose(c, L, in, nsp, out);
        case 4: return emit_pool(c, L, in, nsp, true, out);
        case 5: return emit_pool(c, L, in, nsp, false, out);
        case 6: return emit_global_pool(c, L, in, nsp, true, out);
        default: return emit_global_pool(c, L, in, nsp, false, out);
        }
    }
    if (!strcmp(L->cls, "Dense") || !strcmp(L->cls, "BatchNormalization") ||
        !strcmp(L->cls, "LayerNormalization")) {
        enum status st = one_input(c, L, n_in);
        if (st)
            return st;
        if (L->cls[0] == 'D')
            return emit_dense(c, L, in, out);
        if (L->cls[0] == 'B')
            return emit_batchnorm(c, L, in, out);
        return emit_layernorm(c, L, in, out);
    }
    if (!strcmp(L->cls, "TimeDistributed")) {
        /* Layers acting on the last axis apply to every time step as they are. */
        static const char *const per_step[] = {"Dense", "Activation", "Dropout", "ReLU",
                                               "LeakyReLU", "ELU", "LayerNormalization"};
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(L->cfg, "layer");
        const cJSON *cn = cJSON_GetObjectItemCaseSensitive(l, "class_name");
        const cJSON *cf = cJSON_GetObjectItemCaseSensitive(l, "config");
        if (!cJSON_IsString(cn) || !cJSON_IsObject(cf))
            return kerr(c, L->path, "config.layer: expected {\"class_name\", \"config\"}, got %s",
                        kjtype(l));
        for (size_t i = 0; i < sizeof per_step / sizeof per_step[0]; i++)
            if (!strcmp(cn->valuestring, per_step[i])) {
                char p[320];
                snprintf(p, sizeof p, "%s.config.layer", L->path);
                struct klayer I = *L;
                I.cls = cn->valuestring;
                I.cfg = cf;
                I.path = graph_strdup(c->g, p);
                return keras_layer_emit(c, &I, in, n_in, kw, out, n_out);
            }
        return klerr(c, L, ST_EUNSUPPORTED, "wrapping a %s is not supported", cn->valuestring);
    }
    enum status st = keras_layer_emit_seq(c, L, in, n_in, kw, out, n_out);
    if (st != ST_ENOTFOUND)
        return st;
    return keras_layer_emit_misc(c, L, in, n_in, out, n_out);
}
