/*
 * keras_layers_seq.c - Keras sequence and attention layers mapped to IR ops:
 * Embedding (Gather), LSTM / GRU / SimpleRNN (ONNX LSTM / GRU / RNN with
 * time-major Transposes, as tf2onnx emits them) and MultiHeadAttention
 * (projections, scaled dot-product attention and output projection written
 * out as MatMul / Softmax so MACs match the ONNX export).
 *
 * Parameters: ONNX recurrent ops take two bias vectors (input and recurrent,
 * [1, 2*gates*units]) where Keras keeps one ([gates*units]; GRU with
 * reset_after keeps two). The Keras bias is declared as the initializer and
 * zero-padded to the ONNX layout by a Pad node, so summed initializer
 * elements equal count_params(), and the zero half (a constant) is not a
 * parameter, just as tf2onnx fills it with zeros.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "graph/keras/keras_impl.h"

static int64_t dimv(const struct dim *d)
{
    return d->sym < 0 ? d->v : -1;
}

static enum status emit_embedding(struct kctx *c, const struct klayer *L, struct ktensor *x,
                                  struct ktensor *o)
{
    int64_t vocab, dim;
    enum status st = kcfg_int(c, L, "input_dim", true, 0, &vocab);
    if (!st)
        st = kcfg_int(c, L, "output_dim", true, 0, &dim);
    if (st)
        return st;
    if (vocab < 1 || dim < 1)
        return kerr(c, L->path, "config: input_dim and output_dim must be positive");
    int64_t wd[2] = {vocab, dim};
    int in[2] = {kx_weight(c, L, "embeddings", 2, wd, DT_FLOAT),
                 kx_val(c, x, false, kx_name(c, L, NULL))};
    if (in[0] < 0)
        return c->d->code;
    int v = kx_op(c, OP_Gather, kx_name(c, L, NULL), in, 2);
    struct ktensor t = *x;
    kx_tensor(o, t.rank + 1, v, false);
    memcpy(o->dims, t.dims, sizeof t.dims[0] * (size_t)t.rank);
    o->dims[t.rank] = (struct dim){dim, -1};
    return ST_OK;
}

static const char *onnx_act(const char *keras)
{
    if (!keras || !strcmp(keras, "tanh")) return "Tanh";
    if (!strcmp(keras, "sigmoid")) return "Sigmoid";
    if (!strcmp(keras, "hard_sigmoid") || !strcmp(keras, "hardSigmoid")) return "HardSigmoid";
    if (!strcmp(keras, "relu")) return "Relu";
    if (!strcmp(keras, "linear")) return "Affine";
    return NULL;
}

static enum status act_cfg(struct kctx *c, const struct klayer *L, const char *key,
                           const char *def, const char **out)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(L->cfg, key);
    const char *name = def;
    if (cJSON_IsString(j))
        name = j->valuestring;
    else if (cJSON_IsObject(j) && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "config")))
        name = cJSON_GetObjectItemCaseSensitive(j, "config")->valuestring;
    else if (j && !cJSON_IsNull(j))
        return kerr(c, L->path, "config.%s: expected an activation name, got %s", key,
                    kjtype(j));
    *out = onnx_act(name);
    if (!*out)
        return klerr(c, L, ST_EUNSUPPORTED, "%s \"%s\" has no ONNX recurrent equivalent", key,
                     name);
    return ST_OK;
}

static int squeeze(struct kctx *c, const struct klayer *L, int v, int64_t axis, const char *sfx)
{
    char nm[64];
    snprintf(nm, sizeof nm, "%s_axes", sfx);
    int in[2] = {v, kx_const_i64(c, kx_name(c, L, nm), &axis, 1)};
    return kx_op(c, OP_Squeeze, kx_name(c, L, sfx), in, 2);
}

/* Weights of one direction: W [1, g*u, F], R [1, g*u, u], B [1, 2*g*u] (the
 * Keras bias zero-padded unless GRU reset_after already has both halves). */
static enum status rnn_weights(struct kctx *c, const struct klayer *Lw, int64_t g, int64_t units,
                               int64_t f, bool bias, bool reset_after, int *w, int *r, int *b)
{
    int64_t wd[3] = {1, g * units, f}, rd[3] = {1, g * units, units};
    *b = -1;
    if ((*w = kx_weight(c, Lw, "kernel", 3, wd, DT_FLOAT)) < 0 ||
        (*r = kx_weight(c, Lw, "recurrent_kernel", 3, rd, DT_FLOAT)) < 0)
        return c->d->code;
    if (!bias)
        return ST_OK;
    int64_t bd[2] = {1, reset_after ? 2 * g * units : g * units};
    if ((*b = kx_weight(c, Lw, "bias", 2, bd, DT_FLOAT)) < 0)
        return c->d->code;
    if (!reset_after) {
        int64_t pads[4] = {0, 0, 0, g * units};
        int pin[2] = {*b, kx_const_i64(c, kx_name(c, Lw, "bias_pads"), pads, 4)};
        *b = kx_op(c, OP_Pad, kx_name(c, Lw, "bias_onnx"), pin, 2);
    }
    return ST_OK;
}

static int concat0(struct kctx *c, const struct klayer *L, int a, int b, const char *what)
{
    int in[2] = {a, b};
    int v = kx_op(c, OP_Concat, kx_name(c, L, what), in, 2);
    graph_attr_int(c->g, kx_producer(c, v), "axis", 0);
    return v;
}

/* Bidirectional outputs [.., 2, ..] at axis `ax` after the transpose:
 * merge_mode concat -> Reshape to 2*units, sum/ave -> ReduceSum/ReduceMean. */
static int merge_dirs(struct kctx *c, const struct klayer *L, int v, int ax, int rank,
                      const char *merge, int64_t units, const char *sfx)
{
    char nm[64];
    snprintf(nm, sizeof nm, "%s_merge", sfx);
    if (!strcmp(merge, "concat")) {
        int64_t shp[3] = {0, 0, 2 * units};
        if (rank == 2)
            shp[1] = 2 * units;
        snprintf(nm, sizeof nm, "%s_shape", sfx);
        int in[2] = {v, kx_const_i64(c, kx_name(c, L, nm), shp, rank)};
        return kx_op(c, OP_Reshape, kx_name(c, L, sfx), in, 2);
    }
    int64_t axes = ax;
    if (!strcmp(merge, "sum")) {
        snprintf(nm, sizeof nm, "%s_axes", sfx);
        int in[2] = {v, kx_const_i64(c, kx_name(c, L, nm), &axes, 1)};
        v = kx_op(c, OP_ReduceSum, kx_name(c, L, sfx), in, 2);
    } else {
        v = kx_op(c, OP_ReduceMean, kx_name(c, L, sfx), &v, 1);
        graph_attr_ints(c->g, kx_producer(c, v), "axes", &axes, 1);
    }
    graph_attr_int(c->g, kx_producer(c, v), "keepdims", 0);
    return v;
}

/* kind: 0 LSTM (4 gates), 1 GRU (3), 2 SimpleRNN (1). L carries the config
 * (the inner layer's for Bidirectional, whose name then is bidir->name). */
static enum status emit_rnn(struct kctx *c, const struct klayer *L, struct ktensor *x, int kind,
                            const struct klayer *bidir, const char *merge, struct ktensor *out,
                            int *n_out)
{
    static const enum op ops[] = {OP_LSTM, OP_GRU, OP_RNN};
    static const int gates[] = {4, 3, 1};
    int64_t units;
    bool seq, state, back, bias, reset_after = false;
    const char *act, *ract = NULL;
    enum status st = kcfg_int(c, L, "units", true, 0, &units);
    if (!st)
        st = kcfg_bool(c, L, "return_sequences", false, &seq);
    if (!st)
        st = kcfg_bool(c, L, "return_state", false, &state);
    if (!st)
        st = kcfg_bool(c, L, "go_backwards", false, &back);
    if (!st)
        st = kcfg_bool(c, L, "use_bias", true, &bias);
    if (!st && kind == 1)
        st = kcfg_bool(c, L, "reset_after", true, &reset_after);
    if (!st)
        st = act_cfg(c, L, "activation", "tanh", &act);
    if (!st && kind != 2)
        st = act_cfg(c, L, "recurrent_activation", "sigmoid", &ract);
    if (st)
        return st;
    if (units < 1)
        return kerr(c, L->path, "config.units: must be positive");
    if (x->rank != 3)
        return klerr(c, L, ST_EPARSE, "expects a rank-3 input (batch, time, features), got "
                                      "rank %d", x->rank);
    bool stateful;
    if (!kcfg_bool(c, L, "stateful", false, &stateful) && stateful)
        return klerr(c, L, ST_EUNSUPPORTED, "stateful recurrent layers are not supported");
    if (bidir && state)
        return klerr(c, bidir, ST_EUNSUPPORTED, "return_state of a Bidirectional layer is not "
                                                "supported");
    const struct klayer *N = bidir ? bidir : L; /* node names */
    int64_t f = dimv(&x->dims[2]), g = gates[kind];
    int xv = kx_val(c, x, false, kx_name(c, N, NULL));
    int64_t perm[3] = {1, 0, 2};
    int xt = kx_op(c, OP_Transpose, kx_name(c, N, "time_major"), &xv, 1);
    graph_attr_ints(c->g, kx_producer(c, xt), "perm", perm, 3);
    int in[4] = {xt, -1, -1, -1};
    if (!bidir) {
        st = rnn_weights(c, L, g, units, f, bias, reset_after, &in[1], &in[2], &in[3]);
    } else {
        int wf, rf, bf, wb, rb, bb;
        char fw[300], bw[300];
        snprintf(fw, sizeof fw, "%s/forward_%s", bidir->name, L->name);
        snprintf(bw, sizeof bw, "%s/backward_%s", bidir->name, L->name);
        struct klayer Lf = *bidir, Lb = *bidir;
        Lf.name = graph_strdup(c->g, fw);
        Lb.name = graph_strdup(c->g, bw);
        st = rnn_weights(c, &Lf, g, units, f, bias, reset_after, &wf, &rf, &bf);
        if (!st)
            st = rnn_weights(c, &Lb, g, units, f, bias, reset_after, &wb, &rb, &bb);
        if (!st) {
            in[1] = concat0(c, N, wf, wb, "W");
            in[2] = concat0(c, N, rf, rb, "R");
            in[3] = bias ? concat0(c, N, bf, bb, "B") : -1;
        }
    }
    if (st)
        return st;
    int outs[3];
    const char *sfx[3] = {"Y", "Y_h", "Y_c"};
    int n_o = kind == 0 ? 3 : 2;
    for (int i = 0; i < n_o; i++)
        outs[i] = graph_value_get(c->g, kx_name(c, N, sfx[i]));
    int ni = graph_node_add(c->g, ops[kind], kx_name(c, N, op_name(ops[kind])), in, bias ? 4 : 3,
                            outs, n_o);
    graph_attr_int(c->g, ni, "hidden_size", units);
    graph_attr_string(c->g, ni, "direction", bidir ? "bidirectional" : back ? "reverse" : "forward");
    const char *acts[6] = {ract, act, act, ract, act, act};
    const char *racts[2] = {act, act};
    int dirs = bidir ? 2 : 1;
    if (kind == 2)
        graph_attr_strings(c->g, ni, "activations", racts, dirs);
    else if (kind == 0)
        graph_attr_strings(c->g, ni, "activations", acts, 3 * dirs);
    else {
        const char *gacts[4] = {ract, act, ract, act};
        graph_attr_strings(c->g, ni, "activations", gacts, 2 * dirs);
    }
    if (kind == 1 && reset_after)
        graph_attr_int(c->g, ni, "linear_before_reset", 1);
    struct dim b = x->dims[0], t = x->dims[1];
    int64_t width = bidir && !strcmp(merge, "concat") ? 2 * units : units;
    int y;
    if (seq && bidir) { /* Y [T, 2, b, u] -> [b, T, 2, u] */
        int64_t p4[4] = {2, 0, 1, 3};
        y = kx_op(c, OP_Transpose, kx_name(c, N, "Y_batch_major"), &outs[0], 1);
        graph_attr_ints(c->g, kx_producer(c, y), "perm", p4, 4);
        y = merge_dirs(c, N, y, 2, 3, merge, units, "output");
    } else if (seq) {
        y = squeeze(c, N, outs[0], 1, "Y_squeezed");
        y = kx_op(c, OP_Transpose, kx_name(c, N, NULL), &y, 1);
        graph_attr_ints(c->g, kx_producer(c, y), "perm", perm, 3);
    } else if (bidir) { /* Y_h [2, b, u] -> [b, 2, u] */
        y = kx_op(c, OP_Transpose, kx_name(c, N, "last_batch_major"), &outs[1], 1);
        graph_attr_ints(c->g, kx_producer(c, y), "perm", perm, 3);
        y = merge_dirs(c, N, y, 1, 2, merge, units, "output");
    } else {
        y = squeeze(c, N, outs[1], 0, "last");
    }
    kx_tensor(&out[0], seq ? 3 : 2, y, false);
    out[0].dims[0] = b;
    out[0].dims[1] = seq ? t : (struct dim){width, -1};
    if (seq)
        out[0].dims[2] = (struct dim){width, -1};
    *n_out = 1;
    if (state) {
        for (int i = 1; i < n_o; i++) {
            int h = squeeze(c, N, outs[i], 0, i == 1 ? "state_h" : "state_c");
            kx_tensor(&out[i], 2, h, false);
            out[i].dims[0] = b;
            out[i].dims[1] = (struct dim){units, -1};
        }
        *n_out = n_o;
    }
    return ST_OK;
}

static int rnn_kind(const char *k)
{
    return !strcmp(k, "LSTM") ? 0 : !strcmp(k, "GRU") ? 1 : !strcmp(k, "SimpleRNN") ? 2 : -1;
}

/* A wrapper's inner layer: {"class_name", "config"} under config.layer. */
static enum status inner_layer(struct kctx *c, const struct klayer *L, struct klayer *I)
{
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(L->cfg, "layer");
    const cJSON *cn = cJSON_GetObjectItemCaseSensitive(l, "class_name");
    const cJSON *cf = cJSON_GetObjectItemCaseSensitive(l, "config");
    if (!cJSON_IsObject(l) || !cJSON_IsString(cn) || !cJSON_IsObject(cf))
        return kerr(c, L->path, "config.layer: expected {\"class_name\", \"config\"}, got %s",
                    kjtype(l));
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(cf, "name");
    char p[320];
    snprintf(p, sizeof p, "%s.config.layer", L->path);
    *I = *L;
    I->cls = cn->valuestring;
    I->cfg = cf;
    I->name = cJSON_IsString(nm) ? nm->valuestring : L->name;
    I->path = graph_strdup(c->g, p);
    return ST_OK;
}

static enum status emit_bidirectional(struct kctx *c, const struct klayer *L, struct ktensor *x,
                                      struct ktensor *out, int *n_out)
{
    struct klayer I;
    const char *merge;
    enum status st = inner_layer(c, L, &I);
    if (!st)
        st = kcfg_str(c, L, "merge_mode", "concat", &merge);
    if (st)
        return st;
    int kind = rnn_kind(I.cls);
    if (kind < 0)
        return klerr(c, L, ST_EUNSUPPORTED, "wrapping a %s is not supported (LSTM, GRU or "
                                            "SimpleRNN)", I.cls);
    if (strcmp(merge, "concat") && strcmp(merge, "sum") && strcmp(merge, "ave"))
        return klerr(c, L, ST_EUNSUPPORTED, "merge_mode \"%s\" is not supported (concat, sum, "
                                            "ave)", merge);
    return emit_rnn(c, &I, x, kind, L, merge, out, n_out);
}

/* ---- MultiHeadAttention ------------------------------------------------------ */

static struct ktensor *mha_arg(const char *name, int pos, struct ktensor *in, int n_in,
                               const struct kkwargs *kw)
{
    for (int i = 0; i < kw->n; i++)
        if (!strcmp(kw->name[i], name))
            return kw->t[i];
    return pos < n_in ? &in[pos] : NULL;
}

/* x [b, T, D] -> projection to [b, heads, T, dh] (or [b, heads, dh, T] when
 * keyT), with weights "<which>/kernel" [D, heads*dh] and "<which>/bias". */
static int mha_proj(struct kctx *c, const struct klayer *L, struct ktensor *x, const char *which,
                    int64_t heads, int64_t dh, bool bias, bool keyT)
{
    char wn[64], nm[64];
    int64_t d = dimv(&x->dims[2]);
    int64_t wd[2] = {d, heads * dh}, bd = heads * dh;
    snprintf(wn, sizeof wn, "%s/kernel", which);
    int in[2] = {kx_val(c, x, false, kx_name(c, L, NULL)), kx_weight(c, L, wn, 2, wd, DT_FLOAT)};
    if (in[1] < 0)
        return -1;
    snprintf(nm, sizeof nm, "%s", which);
    int v = kx_op(c, OP_MatMul, kx_name(c, L, nm), in, 2);
    if (bias) {
        snprintf(wn, sizeof wn, "%s/bias", which);
        int in2[2] = {v, kx_weight(c, L, wn, 1, &bd, DT_FLOAT)};
        if (in2[1] < 0)
            return -1;
        snprintf(nm, sizeof nm, "%s_bias", which);
        v = kx_op(c, OP_Add, kx_name(c, L, nm), in2, 2);
    }
    int64_t shp[4] = {0, 0, heads, dh};
    snprintf(nm, sizeof nm, "%s_split_shape", which);
    int in3[2] = {v, kx_const_i64(c, kx_name(c, L, nm), shp, 4)};
    snprintf(nm, sizeof nm, "%s_split", which);
    v = kx_op(c, OP_Reshape, kx_name(c, L, nm), in3, 2);
    int64_t perm[4] = {0, 2, keyT ? 3 : 1, keyT ? 1 : 3};
    snprintf(nm, sizeof nm, "%s_heads", which);
    v = kx_op(c, OP_Transpose, kx_name(c, L, nm), &v, 1);
    graph_attr_ints(c->g, kx_producer(c, v), "perm", perm, 4);
    return v;
}

static enum status emit_mha(struct kctx *c, const struct klayer *L, struct ktensor *in, int n_in,
                            const struct kkwargs *kw, struct ktensor *o)
{
    int64_t heads, kd, vd, outd[IR_MAX_RANK];
    int n_outd;
    bool bias;
    enum status st = kcfg_int(c, L, "num_heads", true, 0, &heads);
    if (!st)
        st = kcfg_int(c, L, "key_dim", true, 0, &kd);
    if (!st)
        st = kcfg_int(c, L, "value_dim", false, kd, &vd);
    if (!st)
        st = kcfg_bool(c, L, "use_bias", true, &bias);
    if (!st)
        st = kcfg_intlist(c, L, "output_shape", IR_MAX_RANK, outd, &n_outd);
    if (st)
        return st;
    /* Keras 2 saves the built default, (1,) for rank-3 inputs: the sequence axis. */
    int64_t axes[IR_MAX_RANK];
    int n_axes;
    st = kcfg_intlist(c, L, "attention_axes", IR_MAX_RANK, axes, &n_axes);
    if (st)
        return st;
    if (n_axes > 1 || (n_axes == 1 && axes[0] != 1 && axes[0] != -2))
        return klerr(c, L, ST_EUNSUPPORTED, "attention over axes other than the sequence axis "
                                            "is not supported");
    if (heads < 1 || kd < 1 || vd < 1)
        return kerr(c, L->path, "config: num_heads, key_dim and value_dim must be positive");
    struct ktensor *q = mha_arg("query", 0, in, n_in, kw), *v = mha_arg("value", 1, in, n_in, kw);
    struct ktensor *k = mha_arg("key", 2, in, n_in, kw);
    if (!q || !v)
        return klerr(c, L, ST_EPARSE, "needs query and value tensors");
    if (!k)
        k = v;
    if (q->rank != 3 || v->rank != 3 || k->rank != 3)
        return klerr(c, L, ST_EUNSUPPORTED, "only rank-3 (batch, seq, features) inputs are "
                                            "supported");
    int64_t dout = n_outd ? outd[0] : dimv(&q->dims[2]);
    if (n_outd > 1)
        return klerr(c, L, ST_EUNSUPPORTED, "a multi-dimensional output_shape is not supported");
    int qh = mha_proj(c, L, q, "query", heads, kd, bias, false);
    int kh = qh < 0 ? -1 : mha_proj(c, L, k, "key", heads, kd, bias, true);
    int vh = kh < 0 ? -1 : mha_proj(c, L, v, "value", heads, vd, bias, false);
    if (vh < 0)
        return c->d->code;
    int64_t none = 0;
    double scale = 1.0 / sqrt((double)kd);
    int in1[2] = {qh, kx_const_f(c, kx_name(c, L, "scale"), &scale, 0, &none)};
    qh = kx_op(c, OP_Mul, kx_name(c, L, "query_scaled"), in1, 2);
    int in2[2] = {qh, kh};
    int s = kx_op(c, OP_MatMul, kx_name(c, L, "scores"), in2, 2);
    s = kx_op(c, OP_Softmax, kx_name(c, L, "probs"), &s, 1);
    graph_attr_int(c->g, kx_producer(c, s), "axis", -1);
    int in3[2] = {s, vh};
    int ctx = kx_op(c, OP_MatMul, kx_name(c, L, "context"), in3, 2);
    int64_t perm[4] = {0, 2, 1, 3}, shp[3] = {0, 0, heads * vd};
    ctx = kx_op(c, OP_Transpose, kx_name(c, L, "context_merge"), &ctx, 1);
    graph_attr_ints(c->g, kx_producer(c, ctx), "perm", perm, 4);
    int in4[2] = {ctx, kx_const_i64(c, kx_name(c, L, "merge_shape"), shp, 3)};
    ctx = kx_op(c, OP_Reshape, kx_name(c, L, "context_flat"), in4, 2);
    int64_t wd[2] = {heads * vd, dout};
    int in5[2] = {ctx, kx_weight(c, L, "attention_output/kernel", 2, wd, DT_FLOAT)};
    if (in5[1] < 0)
        return c->d->code;
    int y = kx_op(c, OP_MatMul, kx_name(c, L, bias ? "output" : NULL), in5, 2);
    if (bias) {
        int in6[2] = {y, kx_weight(c, L, "attention_output/bias", 1, &dout, DT_FLOAT)};
        if (in6[1] < 0)
            return c->d->code;
        y = kx_op(c, OP_Add, kx_name(c, L, NULL), in6, 2);
    }
    struct dim b = q->dims[0], t = q->dims[1];
    kx_tensor(o, 3, y, false);
    o->dims[0] = b;
    o->dims[1] = t;
    o->dims[2] = (struct dim){dout, -1};
    return ST_OK;
}

enum status keras_layer_emit_seq(struct kctx *c, const struct klayer *L, struct ktensor *in,
                                 int n_in, const struct kkwargs *kw, struct ktensor *out,
                                 int *n_out)
{
    const char *k = L->cls;
    int kind = rnn_kind(k);
    if (!strcmp(k, "MultiHeadAttention"))
        return emit_mha(c, L, in, n_in, kw, out);
    if (kind < 0 && strcmp(k, "Embedding") && strcmp(k, "Bidirectional"))
        return ST_ENOTFOUND;
    if (n_in != 1)
        return klerr(c, L, ST_EPARSE, "expects one input tensor, got %d", n_in);
    if (!strcmp(k, "Bidirectional"))
        return emit_bidirectional(c, L, in, out, n_out);
    if (kind < 0)
        return emit_embedding(c, L, in, out);
    return emit_rnn(c, L, in, kind, NULL, NULL, out, n_out);
}
