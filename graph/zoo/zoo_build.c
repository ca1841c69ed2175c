/* zoo_build.c - the zoo's graph builder: scoped names, weightless
 * initializers, cached constants and the layer helpers the families share. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/arena.h"
#include "util/strmap.h"
#include "graph/zoo/zoo_impl.h"

void zb_init(struct zoo_build *b, const char *name)
{
    memset(b, 0, sizeof *b);
    b->g = graph_new(name);
    b->used = strmap_new();
    b->consts = strmap_new();
    graph_sym_add(b->g, "batch", 1);
}

void zb_fini(struct zoo_build *b)
{
    strmap_free(b->used);
    strmap_free(b->consts);
    graph_free(b->g);
    memset(b, 0, sizeof *b);
}

void zb_scope(struct zoo_build *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->scope, sizeof b->scope, fmt, ap);
    va_end(ap);
    b->block = b->scope[0] ? graph_strdup(b->g, b->scope) : NULL;
}

/* "<scope>.<local>" (or local alone), made unique among node names. */
static const char *unique_name(struct zoo_build *b, const char *local)
{
    char base[256];
    if (b->scope[0])
        snprintf(base, sizeof base, "%s.%s", b->scope, local);
    else
        snprintf(base, sizeof base, "%s", local);
    int dummy;
    const char *name = graph_strdup(b->g, base);
    for (int k = 1; strmap_get(b->used, name, &dummy) || graph_value_find(b->g, name) >= 0; k++)
        name = arena_printf(b->g->arena, "%s_%d", base, k);
    strmap_put(b->used, name, 1);
    return name;
}

int zb_input(struct zoo_build *b, const char *name, enum dtype dt, int rank, const int64_t *dims,
             const char *const *sym_names)
{
    struct dim d[IR_MAX_RANK];
    CHECK(rank <= IR_MAX_RANK);
    for (int i = 0; i < rank; i++) {
        d[i].v = dims[i];
        d[i].sym = sym_names && sym_names[i] ? graph_sym_add(b->g, sym_names[i], dims[i]) : -1;
        if (d[i].sym >= 0)
            d[i].v = -1;
    }
    int vi = graph_value_get(b->g, name);
    graph_value_set_type(b->g, vi, dt, rank, d);
    graph_input_add(b->g, vi);
    return vi;
}

#define POSITIONS_WHY "the model has %d position embeddings (%s)"

void zb_limit_positions(struct zoo_build *b, const char *sym, int rows, const char *param)
{
    graph_sym_limit(b->g, sym, 0, rows, 0, POSITIONS_WHY, rows, param);
}

enum status zoo_check_positions(const struct zoo_args *a, const char *fam, const char *sym,
                                const char *param, struct diag *d)
{
    int v = zoo_arg_int(a, sym), rows = zoo_arg_int(a, param);
    if (v <= rows)
        return ST_OK;
    return diag_set(d, ST_ERANGE, "zoo:%s: %s=%d exceeds the maximum %d: " POSITIONS_WHY, fam,
                    sym, v, rows, rows, param);
}

void zb_limit_context(struct zoo_build *b, int ctx, bool decode)
{
    if (decode)
        graph_sym_limit(b->g, "seq", 0, ctx - 1, 0,
                        "a decode step over seq cached tokens adds one, and the model's context "
                        "holds %d tokens (context)", ctx);
    else
        graph_sym_limit(b->g, "seq", 0, ctx, 0, "the model's context holds %d tokens (context)",
                        ctx);
}

void zb_limit_image(struct zoo_build *b, int64_t min, int64_t max, int64_t multiple,
                    const char *why)
{
    graph_sym_limit(b->g, "height", min, max, multiple, "%s", why);
    graph_sym_limit(b->g, "width", min, max, multiple, "%s", why);
}

int zb_image_input(struct zoo_build *b, int c, int res)
{
    const int64_t dims[4] = {1, c, res, res};
    const char *const syms[4] = {"batch", NULL, "height", "width"};
    return zb_input(b, "input", DT_FLOAT, 4, dims, syms);
}

int zb_weight(struct zoo_build *b, const char *local, int rank, const int64_t *dims)
{
    char name[256];
    if (b->scope[0])
        snprintf(name, sizeof name, "%s.%s", b->scope, local);
    else
        snprintf(name, sizeof name, "%s", local);
    CHECK(graph_value_find(b->g, name) < 0);
    struct dim d[IR_MAX_RANK];
    for (int i = 0; i < rank; i++)
        d[i] = (struct dim){dims[i], -1};
    int vi = graph_value_get(b->g, name);
    graph_value_set_type(b->g, vi, DT_FLOAT, rank, d);
    graph_init_add(b->g, vi);
    return vi;
}

int zb_node_multi(struct zoo_build *b, enum op op, const char *local, const int *in, int n_in,
                  int *out, int n_out)
{
    const char *name = unique_name(b, local ? local : op_name(op));
    for (int i = 0; i < n_out; i++) {
        const char *vn = i == 0 ? name : arena_printf(b->g->arena, "%s:%d", name, i);
        out[i] = graph_value_get(b->g, vn);
    }
    int ni = graph_node_add(b->g, op, name, in, n_in, out, n_out);
    b->g->nodes[ni].block = b->block;
    return ni;
}

int zb_node(struct zoo_build *b, enum op op, const char *local, const int *in, int n_in)
{
    int out;
    zb_node_multi(b, op, local, in, n_in, &out, 1);
    return out;
}

int zb_last(const struct zoo_build *b)
{
    return b->g->n_nodes - 1;
}

/* Constants are emitted outside any block so they are shared. */
static int const_node(struct zoo_build *b, const char *key, const struct tconst *t)
{
    int vi;
    const char *k = graph_strdup(b->g, key);
    if (strmap_get(b->consts, k, &vi))
        return vi;
    char saved[sizeof b->scope];
    const char *saved_block = b->block;
    memcpy(saved, b->scope, sizeof saved);
    b->scope[0] = '\0';
    b->block = NULL;
    vi = zb_node(b, OP_Constant, "const", NULL, 0);
    graph_attr_tensor(b->g, zb_last(b), "value", t);
    memcpy(b->scope, saved, sizeof saved);
    b->block = saved_block;
    strmap_put(b->consts, k, vi);
    return vi;
}

int zb_const_ints(struct zoo_build *b, const int64_t *v, int n, bool rank0)
{
    char key[512];
    int off = snprintf(key, sizeof key, "i%d:", rank0 ? 0 : 1);
    for (int i = 0; i < n && off < (int)sizeof key - 24; i++)
        off += snprintf(key + off, sizeof key - (size_t)off, "%lld,", (long long)v[i]);
    CHECK(off < (int)sizeof key - 24);
    struct tconst t = {.dt = DT_INT64, .rank = rank0 ? 0 : 1, .n = n, .i64 = (int64_t *)v};
    t.dims[0] = n;
    return const_node(b, key, &t);
}

static int const_nodata(struct zoo_build *b, enum dtype dt, const char *key, int rank,
                        const int64_t *dims)
{
    char k[160];
    snprintf(k, sizeof k, "%s:%s", dt == DT_INT64 ? "n" : "nf", key);
    struct tconst t = {.dt = dt, .rank = rank, .n = 1};
    for (int i = 0; i < rank; i++) {
        t.dims[i] = dims[i];
        t.n *= dims[i];
    }
    return const_node(b, k, &t);
}

int zb_const_nodata(struct zoo_build *b, const char *key, int rank, const int64_t *dims)
{
    return const_nodata(b, DT_INT64, key, rank, dims);
}

int zb_const_float_nodata(struct zoo_build *b, const char *key, int rank, const int64_t *dims)
{
    return const_nodata(b, DT_FLOAT, key, rank, dims);
}

int zb_const_float(struct zoo_build *b, double v)
{
    char key[64];
    snprintf(key, sizeof key, "f:%.17g", v);
    struct tconst t = {.dt = DT_FLOAT, .rank = 0, .n = 1, .f64 = &v};
    return const_node(b, key, &t);
}

/* ---- layers ------------------------------------------------------------ */

/* The parameter "local.part" (weight, bias, running_mean, ...) of a layer. */
static int zb_param(struct zoo_build *b, const char *local, const char *part, int rank,
                    const int64_t *dims)
{
    char wn[128];
    snprintf(wn, sizeof wn, "%s.%s", local, part);
    return zb_weight(b, wn, rank, dims);
}

/* in[2] = the bias [out] of layer local when bias is set; the input count. */
static int zb_bias(struct zoo_build *b, const char *local, int out, bool bias, int *in)
{
    if (!bias)
        return 2;
    const int64_t bd[1] = {out};
    in[2] = zb_param(b, local, "bias", 1, bd);
    return 3;
}

int zb_conv(struct zoo_build *b, int x, const char *local, int cin, int cout, int k, int stride,
            int pad, int groups, bool bias)
{
    const int64_t wd[4] = {cout, cin / groups, k, k};
    int in[3] = {x, zb_param(b, local, "weight", 4, wd), -1};
    int n_in = zb_bias(b, local, cout, bias, in);
    int y = zb_node(b, OP_Conv, local, in, n_in);
    int ni = zb_last(b);
    const int64_t ks[2] = {k, k}, st[2] = {stride, stride}, pd[4] = {pad, pad, pad, pad};
    const int64_t dil[2] = {1, 1};
    graph_attr_ints(b->g, ni, "dilations", dil, 2);
    graph_attr_int(b->g, ni, "group", groups);
    graph_attr_ints(b->g, ni, "kernel_shape", ks, 2);
    graph_attr_ints(b->g, ni, "pads", pd, 4);
    graph_attr_ints(b->g, ni, "strides", st, 2);
    return y;
}

int zb_bn(struct zoo_build *b, int x, const char *local, int c)
{
    static const char *const parts[4] = {"weight", "bias", "running_mean", "running_var"};
    int in[5] = {x};
    const int64_t d[1] = {c};
    for (int i = 0; i < 4; i++)
        in[i + 1] = zb_param(b, local, parts[i], 1, d);
    int y = zb_node(b, OP_BatchNormalization, local, in, 5);
    graph_attr_float(b->g, zb_last(b), "epsilon", 1e-5);
    return y;
}

int zb_act(struct zoo_build *b, int x, enum op op)
{
    if (op == OP_Relu6) {
        int in[3] = {x, zb_const_float(b, 0.0), zb_const_float(b, 6.0)};
        return zb_node(b, OP_Clip, "relu6", in, 3);
    }
    if (op == OP_Silu) {
        int s = zb_node(b, OP_Sigmoid, "silu.sigmoid", &x, 1);
        int in[2] = {x, s};
        return zb_node(b, OP_Mul, "silu", in, 2);
    }
    char local[32];
    snprintf(local, sizeof local, "%s", op_name(op));
    for (char *p = local; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    return zb_node(b, op, local, &x, 1);
}

int zb_binary(struct zoo_build *b, enum op op, int x, int y)
{
    int in[2] = {x, y};
    char local[32];
    snprintf(local, sizeof local, "%s", op_name(op));
    local[0] = (char)(local[0] - 'A' + 'a');
    return zb_node(b, op, local, in, 2);
}

int zb_maxpool(struct zoo_build *b, int x, int k, int stride, int pad)
{
    int y = zb_node(b, OP_MaxPool, "maxpool", &x, 1);
    const int64_t ks[2] = {k, k}, st[2] = {stride, stride}, pd[4] = {pad, pad, pad, pad};
    graph_attr_ints(b->g, zb_last(b), "kernel_shape", ks, 2);
    graph_attr_ints(b->g, zb_last(b), "pads", pd, 4);
    graph_attr_ints(b->g, zb_last(b), "strides", st, 2);
    return y;
}

int zb_avgpool(struct zoo_build *b, int x, int k, int stride)
{
    int y = zb_node(b, OP_AveragePool, "avgpool", &x, 1);
    const int64_t ks[2] = {k, k}, st[2] = {stride, stride}, pd[4] = {0, 0, 0, 0};
    graph_attr_ints(b->g, zb_last(b), "kernel_shape", ks, 2);
    graph_attr_ints(b->g, zb_last(b), "pads", pd, 4);
    graph_attr_ints(b->g, zb_last(b), "strides", st, 2);
    return y;
}

void zb_past_kv(struct zoo_build *b, int layers, int heads, int64_t seq, int hd, int *past_k,
                int *past_v)
{
    const int64_t dims[4] = {1, heads, seq, hd};
    const char *const syms[4] = {"batch", NULL, "seq", NULL};
    for (int l = 0; l < layers; l++) {
        char name[48];
        snprintf(name, sizeof name, "past_key.%d", l);
        past_k[l] = zb_input(b, name, DT_FLOAT, 4, dims, syms);
        snprintf(name, sizeof name, "past_value.%d", l);
        past_v[l] = zb_input(b, name, DT_FLOAT, 4, dims, syms);
    }
}

int zb_gap(struct zoo_build *b, int x)
{
    return zb_node(b, OP_GlobalAveragePool, "avgpool", &x, 1);
}

int zb_flatten(struct zoo_build *b, int x)
{
    int y = zb_node(b, OP_Flatten, "flatten", &x, 1);
    graph_attr_int(b->g, zb_last(b), "axis", 1);
    return y;
}

int zb_gemm(struct zoo_build *b, int x, const char *local, int in, int out, bool bias)
{
    const int64_t wd[2] = {out, in};
    int ins[3] = {x, zb_param(b, local, "weight", 2, wd), -1};
    int n_in = zb_bias(b, local, out, bias, ins);
    int y = zb_node(b, OP_Gemm, local, ins, n_in);
    graph_attr_float(b->g, zb_last(b), "alpha", 1.0);
    graph_attr_float(b->g, zb_last(b), "beta", 1.0);
    graph_attr_int(b->g, zb_last(b), "transB", 1);
    return y;
}

int zb_linear(struct zoo_build *b, int x, const char *local, int in, int out, bool bias)
{
    const int64_t wd[2] = {in, out};
    int ins[2] = {x, zb_param(b, local, "weight", 2, wd)};
    int y = zb_node(b, OP_MatMul, local, ins, 2);
    if (!bias)
        return y;
    const int64_t bd[1] = {out};
    int bi = zb_param(b, local, "bias", 1, bd);
    char an[128];
    snprintf(an, sizeof an, "%s.add", local);
    int ai[2] = {y, bi};
    return zb_node(b, OP_Add, an, ai, 2);
}

/* A normalisation node op with a weight and a bias of [c] and epsilon eps;
 * its other attribute is name = v. */
static int zb_affine_norm(struct zoo_build *b, enum op op, int x, const char *local, int c,
                          double eps, const char *name, int64_t v)
{
    const int64_t d[1] = {c};
    int in[3] = {x, zb_param(b, local, "weight", 1, d), -1};
    in[2] = zb_param(b, local, "bias", 1, d);
    int y = zb_node(b, op, local, in, 3);
    graph_attr_int(b->g, zb_last(b), name, v);
    graph_attr_float(b->g, zb_last(b), "epsilon", eps);
    return y;
}

int zb_layernorm(struct zoo_build *b, int x, const char *local, int c, double eps)
{
    return zb_affine_norm(b, OP_LayerNormalization, x, local, c, eps, "axis", -1);
}

int zb_group_norm(struct zoo_build *b, int x, const char *local, int c, double eps)
{
    return zb_affine_norm(b, OP_GroupNormalization, x, local, c, eps, "num_groups", 32);
}

int zb_reshape(struct zoo_build *b, int x, const int64_t *shape, int n)
{
    int in[2] = {x, zb_const_ints(b, shape, n, false)};
    return zb_node(b, OP_Reshape, "reshape", in, 2);
}

int zb_transpose(struct zoo_build *b, int x, const int64_t *perm, int n)
{
    int y = zb_node(b, OP_Transpose, "transpose", &x, 1);
    graph_attr_ints(b->g, zb_last(b), "perm", perm, n);
    return y;
}

int zb_concat(struct zoo_build *b, const int *xs, int n, int axis)
{
    int y = zb_node(b, OP_Concat, "concat", xs, n);
    graph_attr_int(b->g, zb_last(b), "axis", axis);
    return y;
}

int zb_softmax(struct zoo_build *b, int x, int axis)
{
    int y = zb_node(b, OP_Softmax, "softmax", &x, 1);
    graph_attr_int(b->g, zb_last(b), "axis", axis);
    return y;
}

int zb_take(struct zoo_build *b, int x, int axis, int64_t index)
{
    int in[2] = {x, zb_const_ints(b, &index, 1, true)};
    int y = zb_node(b, OP_Gather, "gather", in, 2);
    graph_attr_int(b->g, zb_last(b), "axis", axis);
    return y;
}

int zb_slice(struct zoo_build *b, int x, const int64_t *starts, const int64_t *ends,
             const int64_t *axes, const int64_t *steps, int n)
{
    int in[5] = {x, zb_const_ints(b, starts, n, false), zb_const_ints(b, ends, n, false),
                 zb_const_ints(b, axes, n, false), -1};
    if (steps)
        in[4] = zb_const_ints(b, steps, n, false);
    return zb_node(b, OP_Slice, "slice", in, steps ? 5 : 4);
}

int zb_se(struct zoo_build *b, int x, int c, int sq, enum op act, enum op gate)
{
    int s = zb_gap(b, x);
    s = zb_conv(b, s, "fc1", c, sq, 1, 1, 0, 1, true);
    s = zb_act(b, s, act);
    s = zb_conv(b, s, "fc2", sq, c, 1, 1, 0, 1, true);
    s = zb_act(b, s, gate);
    return zb_binary(b, OP_Mul, s, x);
}

/* [B, S, D] -> [B, heads, S, hd] (perm 0,2,1,3) or, for keys, [B, heads, hd, S]. */
static int split_heads(struct zoo_build *b, int x, int heads, int hd, bool key_t)
{
    const int64_t shape[4] = {0, 0, heads, hd};
    static const int64_t perm_q[4] = {0, 2, 1, 3}, perm_k[4] = {0, 2, 3, 1};
    return zb_transpose(b, zb_reshape(b, x, shape, 4), key_t ? perm_k : perm_q, 4);
}

int zb_attention(struct zoo_build *b, int x, int dim, int heads, const char *qkv, int mask,
                 int causal, int past_k, int past_v, int *present_k, int *present_v)
{
    int hd = dim / heads, q, k, v;
    if (qkv) {
        int y = zb_linear(b, x, qkv, dim, 3 * dim, true);
        const int64_t sizes[3] = {dim, dim, dim};
        int in[2] = {y, zb_const_ints(b, sizes, 3, false)}, out[3];
        zb_node_multi(b, OP_Split, "split", in, 2, out, 3);
        graph_attr_int(b->g, zb_last(b), "axis", -1);
        q = out[0], k = out[1], v = out[2];
    } else {
        q = zb_linear(b, x, "query", dim, dim, true);
        k = zb_linear(b, x, "key", dim, dim, true);
        v = zb_linear(b, x, "value", dim, dim, true);
    }
    q = split_heads(b, q, heads, hd, false);
    v = split_heads(b, v, heads, hd, false);
    if (past_k >= 0 || present_k) {
        /* the cache holds [B, heads, P, hd]: append, then transpose the keys */
        k = split_heads(b, k, heads, hd, false);
        if (past_k >= 0) {
            int ck[2] = {past_k, k}, cv[2] = {past_v, v};
            k = zb_concat(b, ck, 2, 2);
            v = zb_concat(b, cv, 2, 2);
        }
        if (present_k)
            *present_k = k;
        if (present_v)
            *present_v = v;
        static const int64_t perm[4] = {0, 1, 3, 2};
        k = zb_transpose(b, k, perm, 4);
    } else {
        k = split_heads(b, k, heads, hd, true);
    }
    int s = zb_binary(b, OP_MatMul, q, k);
    s = zb_binary(b, OP_Div, s, zb_const_float(b, sqrt((double)hd)));
    if (mask >= 0)
        s = zb_binary(b, OP_Add, s, mask);
    if (causal >= 0) {
        int in[3] = {causal, s, zb_const_float(b, -3.4028234663852886e38)};
        s = zb_node(b, OP_Where, "where", in, 3);
    }
    s = zb_softmax(b, s, -1);
    int c = zb_binary(b, OP_MatMul, s, v);
    static const int64_t perm_back[4] = {0, 2, 1, 3};
    c = zb_transpose(b, c, perm_back, 4);
    const int64_t merged[3] = {0, 0, dim};
    return zb_reshape(b, c, merged, 3);
}

int zb_sdpa(struct zoo_build *b, int q, int kt, int v, int heads, int hd)
{
    int s = zb_binary(b, OP_MatMul, q, kt);
    s = zb_binary(b, OP_Mul, s, zb_const_float(b, 1.0 / sqrt((double)hd)));
    int o = zb_binary(b, OP_MatMul, zb_softmax(b, s, -1), v);
    static const int64_t back[4] = {0, 2, 1, 3};
    const int64_t merged[3] = {0, 0, (int64_t)heads * hd};
    return zb_reshape(b, zb_transpose(b, o, back, 4), merged, 3);
}

int zb_cross_attention(struct zoo_build *b, const char *name, int x, int ctx, int c, int kv_dim,
                       int heads, bool qkv_bias)
{
    char n[4][64];
    static const char *const parts[4] = {"to_q", "to_k", "to_v", "to_out.0"};
    for (int i = 0; i < 4; i++)
        snprintf(n[i], sizeof n[i], "%s.%s", name, parts[i]);
    int hd = c / heads;
    const int64_t shape[4] = {0, 0, heads, hd};
    static const int64_t pq[4] = {0, 2, 1, 3}, pk[4] = {0, 2, 3, 1};
    int q = zb_transpose(b, zb_reshape(b, zb_linear(b, x, n[0], c, c, qkv_bias), shape, 4), pq,
                         4);
    int k = zb_transpose(b, zb_reshape(b, zb_linear(b, ctx, n[1], kv_dim, c, qkv_bias), shape, 4),
                         pk, 4);
    int v = zb_transpose(b, zb_reshape(b, zb_linear(b, ctx, n[2], kv_dim, c, qkv_bias), shape, 4),
                         pq, 4);
    return zb_linear(b, zb_sdpa(b, q, k, v, heads, hd), n[3], c, c, true);
}

int zb_unsqueeze(struct zoo_build *b, int x, const int64_t *axes, int n)
{
    int in[2] = {x, zb_const_ints(b, axes, n, false)};
    return zb_node(b, OP_Unsqueeze, "unsqueeze", in, 2);
}

int zb_rmsnorm(struct zoo_build *b, int x, const char *local, int c)
{
    static const int64_t last[1] = {-1};
    int sq = zb_binary(b, OP_Pow, x, zb_const_float(b, 2.0));
    int ri[2] = {sq, zb_const_ints(b, last, 1, false)};
    int ms = zb_node(b, OP_ReduceMean, "reducemean", ri, 2);
    graph_attr_int(b->g, zb_last(b), "keepdims", 1);
    int rms = zb_act(b, zb_binary(b, OP_Add, ms, zb_const_float(b, 1e-5)), OP_Sqrt);
    const int64_t wd[1] = {c};
    return zb_binary(b, OP_Mul, zb_binary(b, OP_Div, x, rms), zb_param(b, local, "weight", 1, wd));
}

int zb_rope(struct zoo_build *b, int x, int hd, int cos, int sin)
{
    const int64_t s0 = 0, mid = hd / 2, end = ZB_SLICE_END, axis = -1;
    int x1 = zb_slice(b, x, &s0, &mid, &axis, NULL, 1);
    int x2 = zb_slice(b, x, &mid, &end, &axis, NULL, 1);
    int parts[2] = {zb_node(b, OP_Neg, "neg", &x2, 1), x1};
    int rot = zb_concat(b, parts, 2, -1);
    return zb_binary(b, OP_Add, zb_binary(b, OP_Mul, x, cos), zb_binary(b, OP_Mul, rot, sin));
}

void zb_output(struct zoo_build *b, int v)
{
    graph_output_add(b->g, v);
}

struct graph *zb_finish(struct zoo_build *b, const char *spec, struct diag *d)
{
    struct graph *g = b->g;
    g->format = graph_strdup(g, "zoo");
    g->path = graph_strdup(g, spec);
    g->opset = 20; /* Gelu */
    if (graph_finalize(g, d) != ST_OK) {
        diag_prefix(d, "%s", spec);
        return NULL;
    }
    b->g = NULL;
    return g;
}
