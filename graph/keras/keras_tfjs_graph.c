/*
 * keras_tfjs_graph.c - TF.js graph models: modelTopology is a TensorFlow
 * GraphDef as JSON ({"node": [{"name", "op", "input": ["x", "y:1", "^ctl"],
 * "attr": {"strides": {"list": {"i": ["1","2","2","1"]}}, "padding": {"s":
 * base64}, "value": {"tensor": {"dtype", "tensorShape": {"dim": [{"size"}]}}}
 * ...}}]}). Const nodes carry only dtype and shape; their contents are in the
 * weight shards. Float weights are never read; the integer constants that
 * decide shapes are (keras_shard.c), from the shards beside the file.
 *
 * Mapping (layout convention as in keras_impl.h: NHWC tensors are turned
 * channels-first once, on demand, for Conv/pool/BatchNormalization):
 *   float Const           -> initializer (a parameter), dims from the
 *                            weightsManifest, permuted to the ONNX layout of
 *                            its use (HWIO filter -> OIHW, bias [C] -> [C,1,1]
 *                            against an NCHW tensor); element count unchanged
 *   integer Const         -> Constant node of known dtype/dims, with its
 *                            values when the shard could be read
 *   Conv2D, _FusedConv2D, DepthwiseConv2dNative, FusedDepthwiseConv2dNative
 *                         -> Conv (+ BatchNormalization / activation nodes for
 *                            the fused ops)
 *   MatMul, _FusedMatMul  -> Gemm (constant weights) or MatMul
 *   shape, index and multi-output ops -> keras_tfjs_shape.c
 *   detection post-processing (NMS, Where, Select, Fill, Range, Shape,
 *   Slice) and Cast -> keras_tfjs_detect.c
 *   TF1 while loops (Enter .. Exit) -> one IR Loop per frame
 *                            (keras_tfjs_control.c, keras_tfjs_loop.c)
 *   TF2 While / If / PartitionedCall with library.function bodies
 *                         -> Loop / If / inline (keras_tfjs_func.c)
 * "name:k" reads output k of a multi-output op (Split, Unpack, TopKV2);
 * the driver checks the index against the producer's outputs. Ops outside
 * these lists are an error naming the node and its op, unless the node
 * declares its output shapes (_output_shapes): see tg_opaque.
 *
 * The driver assigns every node its while-loop frame (the top level for a
 * model without loops), then emits the top level in dependency order
 * (Kahn's algorithm; a frame is one unit there, emitted with its body).
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/keras/keras_tfjs_impl.h"
#include "util/strmap.h"
#include "util/xalloc.h"

/* ---- attributes ---------------------------------------------------------------- */

const cJSON *tg_gattr(const struct gnode *node, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(node->attr, key);
}

static int b64(int ch)
{
    if (ch >= 'A' && ch <= 'Z') return ch - 'A';
    if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9') return ch - '0' + 52;
    if (ch == '+' || ch == '-') return 62;
    if (ch == '/' || ch == '_') return 63;
    return -1;
}

/* Decodes a base64 "s" attribute into buf (NUL-terminated). */
const char *tg_decode_s(const char *s, char *buf, size_t size)
{
    size_t o = 0;
    unsigned acc = 0;
    int bits = 0;
    for (; *s && *s != '='; s++) {
        int v = b64(*s);
        if (v < 0)
            break;
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (o + 1 < size)
                buf[o++] = (char)((acc >> bits) & 0xff);
        }
    }
    buf[o] = 0;
    return buf;
}

const char *tg_attr_s(const struct gnode *node, const char *key, const char *def, char *buf,
                          size_t size)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(tg_gattr(node, key), "s");
    return cJSON_IsString(s) ? tg_decode_s(s->valuestring, buf, size) : def;
}

/* "i" entries are JSON strings (int64) or numbers. */
static bool jint(const cJSON *e, int64_t *v)
{
    if (cJSON_IsString(e)) {
        char *end;
        long long x = strtoll(e->valuestring, &end, 10);
        if (*end || end == e->valuestring)
            return false;
        *v = x;
        return true;
    }
    if (kj_is_int(e)) {
        *v = (int64_t)e->valuedouble;
        return true;
    }
    return false;
}

enum status tg_attr_ints(struct gctx *G, const struct gnode *node, const char *key, int want,
                             int64_t *out, bool required)
{
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(tg_gattr(node, key), "list"), "i");
    if (!l && tg_gattr(node, key)) /* present in another form ("s": "zz"): not a default */
        return kerr(G->c, node->path, "attr.%s: expected a list of %d integers (list.i)", key,
                    want);
    if (!l) {
        if (required)
            return kerr(G->c, node->path, "attr.%s: missing (node '%s', op %s)", key, node->name,
                        node->op);
        return ST_OK;
    }
    if (!cJSON_IsArray(l) || cJSON_GetArraySize(l) != want)
        return kerr(G->c, node->path, "attr.%s.list.i: expected %d integers", key, want);
    int i = 0;
    for (const cJSON *e = l->child; e; e = e->next, i++)
        if (!jint(e, &out[i]))
            return kerr(G->c, node->path, "attr.%s.list.i[%d]: expected an integer, got %s", key,
                        i, kjtype(e));
    return ST_OK;
}

bool tg_attr_b(const struct gnode *node, const char *key)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(tg_gattr(node, key), "b"));
}

double tg_attr_f(const struct gnode *node, const char *key, double def)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(tg_gattr(node, key), "f");
    return cJSON_IsNumber(f) ? f->valuedouble : def;
}

enum status tg_unsupported(struct gctx *G, const struct gnode *node, const char *why)
{
    return diag_set(G->c->d, ST_EUNSUPPORTED, "%s: node '%s' (op %s) is not supported%s%s",
                    G->c->file, node->name, node->op, why ? ": " : "", why ? why : "");
}

/* ---- tensors --------------------------------------------------------------------- */

/* The output index an input string names ("x" and "x:0": 0, "x:2": 2), or
 * -1 for a malformed or out-of-range suffix. */
int tg_out_index(const char *s)
{
    const char *colon = strrchr(s, ':');
    if (!colon || colon[1] < '0' || colon[1] > '9')
        return 0;
    long v = 0;
    for (const char *p = colon + 1; *p; p++) {
        if (*p < '0' || *p > '9' || v > 100000)
            return -1;
        v = v * 10 + (*p - '0');
    }
    return (int)v;
}

struct gnode *tg_node_named(struct gctx *G, const char *s)
{
    char nm[512];
    snprintf(nm, sizeof nm, "%s", s);
    char *colon = strrchr(nm, ':');
    if (colon && colon[1] >= '0' && colon[1] <= '9')
        *colon = 0;
    int idx;
    if (strmap_get(G->byname, nm, &idx))
        return &G->n[idx];
    colon = strrchr(nm, ':'); /* in a function body: "node:output_arg:index" */
    if (colon)
        *colon = 0;
    return colon && strmap_get(G->byname, nm, &idx) ? &G->n[idx] : NULL;
}

struct gnode *tg_raw_input(struct gctx *G, const struct gnode *node, int i)
{
    return i < 0 || i >= node->n_in ? NULL : tg_node_named(G, node->in[i]);
}

/* An Enter of a Const (a loop invariant), or an Enter of such an Enter in
 * a nested loop, is read as the Const itself. */
struct gnode *tg_input_node(struct gctx *G, const struct gnode *node, int i)
{
    struct gnode *s = tg_raw_input(G, node, i), *e = s;
    for (int d = 0; d < 64 && e && e->n_in == 1 && !strcmp(e->op, "Enter") &&
                    tg_out_index(e->in[0]) == 0; d++) {
        e = tg_raw_input(G, e, 0);
        if (e && e->is_const)
            return e;
    }
    return s;
}

/* Declares float Const node k as an initializer with dims (element count
 * checked against the manifest); role distinguishes layouts of one Const. */
int tg_gweight(struct gctx *G, struct gnode *k, const int64_t *dims, int rank,
                   const char *role)
{
    struct kweight *w = &G->c->w[k->mw];
    bool same = rank == w->rank;
    for (int i = 0; same && i < rank; i++)
        same = dims[i] == w->dims[i];
    char nm[600];
    snprintf(nm, sizeof nm, "%s%s%s", k->name, same ? "" : "/", same ? "" : role);
    int v = graph_value_find(G->c->g, nm);
    if (v >= 0)
        return v;
    v = graph_value_get(G->c->g, graph_strdup(G->c->g, nm));
    struct dim dd[IR_MAX_RANK];
    for (int i = 0; i < rank; i++)
        dd[i] = (struct dim){dims[i], -1};
    graph_value_set_type(G->c->g, v, w->dt, rank, dd);
    graph_init_add(G->c->g, v);
    w->used = true;
    return v;
}

/* A Const as-is: initializer (float) or data-less Constant (integer). */
int tg_const_value(struct gctx *G, struct gnode *k)
{
    struct kweight *w = &G->c->w[k->mw];
    if (k->float_const)
        return tg_gweight(G, k, w->dims, w->rank, "");
    int v = graph_value_find(G->c->g, k->name);
    if (v >= 0)
        return v;
    struct tconst t = {.dt = w->dt, .rank = w->rank, .n = w->n};
    const int64_t *iv;
    if (tg_const_ints(G, k, &iv) >= 0)
        t.i64 = (int64_t *)iv;
    struct dim dd[IR_MAX_RANK];
    for (int i = 0; i < w->rank; i++) {
        t.dims[i] = w->dims[i];
        dd[i] = (struct dim){w->dims[i], -1};
    }
    v = kx_op(G->c, OP_Constant, graph_strdup(G->c->g, k->name), NULL, 0);
    graph_attr_tensor(G->c->g, kx_producer(G->c, v), "value", &t);
    graph_value_set_type(G->c->g, v, w->dt, w->rank, dd);
    return v;
}

/* A Const broadcast against a tensor of rank r held channels-first: right-
 * align to rank r, permute like the tensor, drop leading ones. */
int tg_const_bcast(struct gctx *G, struct gnode *k, int r, bool cf)
{
    struct kweight *w = &G->c->w[k->mw];
    if (!cf || r < 3 || !k->float_const || w->rank == 0)
        return tg_const_value(G, k);
    int64_t a[IR_MAX_RANK], p[IR_MAX_RANK];
    for (int i = 0; i < r; i++)
        a[i] = i < r - w->rank ? 1 : w->dims[i - (r - w->rank)];
    p[0] = a[0];
    p[1] = a[r - 1];
    for (int i = 2; i < r; i++)
        p[i] = a[i - 1];
    int s = 0;
    while (s < r - 1 && p[s] == 1)
        s++;
    return tg_gweight(G, k, p + s, r - s, "channels_first");
}

/* A node of a loop body is named "<frame>/body/<node>" unless its name
 * already starts with the frame's. */
const char *tg_gname(struct gctx *G, const struct gnode *node, const char *sfx)
{
    char pre[600] = "";
    if (G->prefix)
        snprintf(pre, sizeof pre, "%s", G->prefix);
    if (node->frame >= 0) {
        const char *f = G->fr[node->frame].name;
        size_t n = strlen(f);
        if (strncmp(node->name, f, n) || node->name[n] != '/')
            snprintf(pre + strlen(pre), sizeof pre - strlen(pre), "%s/body/", f);
    }
    struct klayer L = {.name = node->name, .cls = node->op, .cfg = NULL, .path = node->path,
                       .nprefix = pre, .wprefix = ""};
    return kx_name(G->c, &L, sfx);
}

/* The input tensor i of node (not a Const); the driver checked its index. */
struct ktensor *tg_tin(struct gctx *G, struct gnode *node, int i)
{
    struct gnode *s = tg_input_node(G, node, i);
    int k = s ? tg_out_index(node->in[i]) : -1;
    if (!s || k < 0 || k > s->n_xt)
        return NULL;
    return k == 0 ? &s->t : &s->xt[k - 1];
}

struct ktensor *tg_out(struct gnode *node, int k)
{
    if (k == 0)
        return &node->t;
    if (k > node->n_xt) {
        node->xt = xreallocarray(node->xt, (size_t)k, sizeof *node->xt);
        for (int i = node->n_xt; i < k; i++)
            kx_tensor(&node->xt[i], 0, -1, false);
        node->n_xt = k;
    }
    return &node->xt[k - 1];
}

bool tg_is_cf(const struct ktensor *x)
{
    return x->rank >= 3 && x->vn < 0;
}

int64_t tg_const_ints(struct gctx *G, struct gnode *k, const int64_t **vals)
{
    if (!k->is_const || k->float_const)
        return -1;
    if (k->iv_state == 0) {
        const struct kweight *w = &G->c->w[k->mw];
        k->iv = xmalloc(sizeof *k->iv * (size_t)(w->n + 1));
        k->iv_state = kshard_ints(G->c, k->mw, k->iv) ? 1 : -1;
    }
    *vals = k->iv;
    return k->iv_state > 0 ? G->c->w[k->mw].n : -1;
}

enum status tg_input_ints(struct gctx *G, struct gnode *node, int i, const char *what,
                          int64_t max, int64_t *out, int64_t *n)
{
    struct gnode *k = i < node->n_in ? tg_input_node(G, node, i) : NULL;
    const int64_t *v;
    int64_t cnt = k ? tg_const_ints(G, k, &v) : -1;
    char why[600];
    if (cnt < 0) {
        if (k && k->is_const)
            snprintf(why, sizeof why, "%s is stored in the weight shard '%s', which could not "
                     "be read beside the model file", what, kshard_name(G->c, k->mw));
        else
            snprintf(why, sizeof why, "%s is not a constant", what);
        return tg_unsupported(G, node, why);
    }
    if (cnt > max) {
        snprintf(why, sizeof why, "%s has %lld values, expected at most %lld", what,
                 (long long)cnt, (long long)max);
        return tg_unsupported(G, node, why);
    }
    memcpy(out, v, sizeof *out * (size_t)cnt);
    *n = cnt;
    return ST_OK;
}

void tg_set_out(struct gnode *node, int rank, int v, bool cf)
{
    kx_tensor(&node->t, rank, v, cf);
}

/* ---- driver ---------------------------------------------------------------------------- */

enum status tg_parse_nodes(struct gctx *G, const cJSON *nodes, const char *path, int extra)
{
    struct kctx *c = G->c;
    int n = cJSON_GetArraySize(nodes);
    G->n = xcalloc((size_t)n + (size_t)extra + 1, sizeof *G->n);
    G->byname = strmap_new();
    int i = 0;
    for (const cJSON *e = nodes->child; e; e = e->next, i++) {
        struct gnode *node = &G->n[G->nn++];
        snprintf(node->path, sizeof node->path, "%s.node[%d]", path, i);
        node->j = e;
        node->mw = -1;
        node->frame = -1;
        node->t.vn = node->t.vcf = -1;
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(e, "name");
        const cJSON *op = cJSON_GetObjectItemCaseSensitive(e, "op");
        const cJSON *in = cJSON_GetObjectItemCaseSensitive(e, "input");
        if (!cJSON_IsString(nm))
            return kerr(c, node->path, "name: expected a string, got %s", kjtype(nm));
        if (!cJSON_IsString(op))
            return kerr(c, node->path, "op: expected a string, got %s", kjtype(op));
        if (in && !cJSON_IsArray(in))
            return kerr(c, node->path, "input: expected an array of strings, got %s", kjtype(in));
        node->name = nm->valuestring;
        node->op = op->valuestring;
        node->attr = cJSON_GetObjectItemCaseSensitive(e, "attr");
        int k = 0;
        for (const cJSON *s = in ? in->child : NULL; s; s = s->next, k++) {
            if (!cJSON_IsString(s))
                return kerr(c, node->path, "input[%d]: expected a string, got %s", k, kjtype(s));
            if (s->valuestring[0] == '^') { /* control dependency: places a node in a frame */
                if (!node->ctl)
                    node->ctl = s->valuestring + 1;
                continue;
            }
            if (node->n_in >= 16)
                return kerr(c, node->path, "input: more than 16 data inputs");
            node->in[node->n_in++] = s->valuestring;
        }
        int dup;
        if (strmap_get(G->byname, node->name, &dup))
            return kerr(c, node->path, "name: node '%s' is defined twice", node->name);
        strmap_put(G->byname, node->name, i);
        if (!strcmp(node->op, "Const")) {
            node->is_const = true;
            node->mw = keras_manifest_find(c, node->name);
            if (node->mw < 0 || strcmp(c->w[node->mw].name, node->name))
                return kerr(c, node->path, "Const '%s' has no weightsManifest entry", node->name);
            node->float_const = dtype_is_float(c->w[node->mw].dt);
            node->done = true;
        }
    }
    return ST_OK;
}

static enum status placeholder(struct gctx *G, struct gnode *node)
{
    const cJSON *sh = cJSON_GetObjectItemCaseSensitive(tg_gattr(node, "shape"), "shape");
    const cJSON *dl = cJSON_GetObjectItemCaseSensitive(sh, "dim");
    if (!cJSON_IsArray(dl))
        return kerr(G->c, node->path, "attr.shape.shape.dim: expected an array (the input's "
                                      "shape), got %s", kjtype(dl));
    struct ktensor t = {.dt = DT_FLOAT};
    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(tg_gattr(node, "dtype"), "type");
    if (cJSON_IsString(dt) && !strncmp(dt->valuestring, "DT_", 3)) {
        char low[32];
        size_t i = 0;
        for (const char *s = dt->valuestring + 3; *s && i + 1 < sizeof low; s++)
            low[i++] = (char)(*s >= 'A' && *s <= 'Z' ? *s - 'A' + 'a' : *s);
        low[i] = 0;
        if (!dtype_from_name(low, &t.dt))
            t.dt = DT_FLOAT;
    }
    t.rank = cJSON_GetArraySize(dl);
    if (t.rank > IR_MAX_RANK)
        return kerr(G->c, node->path, "attr.shape: rank %d exceeds %d", t.rank, IR_MAX_RANK);
    int i = 0;
    double numel = 1;
    static const char *const img[] = {"batch", "height", "width", "channels"};
    for (const cJSON *e = dl->child; e; e = e->next, i++) {
        int64_t v = -1;
        const cJSON *sz = cJSON_GetObjectItemCaseSensitive(e, "size");
        if (sz && !jint(sz, &v))
            return kerr(G->c, node->path, "attr.shape.shape.dim[%d].size: expected an integer, "
                                          "got %s", i, kjtype(sz));
        numel *= v > 0 ? (double)v : 1;
        if (numel > 0x1p40)
            return kerr(G->c, node->path, "attr.shape.shape.dim[%d].size: %lld makes the input "
                        "hold more than 2^40 elements", i, (long long)v);
        if (v >= 0) {
            t.dims[i] = (struct dim){v, -1};
        } else {
            const char *nm = i == 0 ? "batch" : t.rank == 4 ? img[i] : "seq";
            t.dims[i] = (struct dim){-1, graph_sym_add(G->c->g, nm, i == 0 ? 1 : 224)};
        }
    }
    int v = graph_value_get(G->c->g, graph_strdup(G->c->g, node->name));
    graph_value_set_type(G->c->g, v, t.dt, t.rank, t.dims);
    graph_input_add(G->c->g, v);
    t.vn = v;
    t.vcf = t.rank < 3 ? v : -1;
    node->t = t;
    node->done = true;
    return ST_OK;
}

static bool is_identity(const char *op)
{
    return !strcmp(op, "Identity") || !strcmp(op, "StopGradient") || !strcmp(op, "Snapshot");
}

/* Maps node (its inputs done): an identity aliases its input, no node. */
static enum status emit(struct gctx *G, struct gnode *node)
{
    enum status st = tg_emit_control(G, node);
    if (st != ST_ENOTFOUND)
        return st;
    if (is_identity(node->op)) {
        struct gnode *s = node->n_in ? tg_input_node(G, node, 0) : NULL;
        if (!s || s->is_const)
            return tg_unsupported(G, node, "identity of a constant");
        node->t = *tg_tin(G, node, 0);
        return ST_OK;
    }
    if (node->n_in < 1)
        return kerr(G->c, node->path, "input: op %s needs inputs", node->op);
    return keras_tfjs_emit_node(G, node);
}

/* Every input of node names an output its producer (emitted before node) has. */
enum status tg_check_outputs(struct gctx *G, struct gnode *node)
{
    for (int k = 0; k < node->n_in; k++) {
        struct gnode *s = tg_input_node(G, node, k);
        int i = tg_out_index(node->in[k]);
        if (i > 0 && (s->is_const || i > s->n_xt))
            return kerr(G->c, node->path, "input[%d]: '%s' reads output %d of node '%s' (op %s), "
                        "which has %d output%s", k, node->in[k], i, s->name, s->op,
                        s->n_xt + 1, s->n_xt ? "s" : "");
    }
    return ST_OK;
}

enum status tg_emit_one(struct gctx *G, struct gnode *node)
{
    enum status st = tg_check_outputs(G, node);
    return st ? st : emit(G, node);
}

/* Checks the inputs of G's nodes, builds their consumer lists, assigns
 * frames and emits the top level. */
enum status tg_link(struct gctx *G)
{
    enum status st = ST_OK;
    struct kctx *c = G->c;
    /* Validate the inputs, then build consumer lists (CSR) once. */
    for (int i = 0; !st && i < G->nn; i++) {
        struct gnode *node = &G->n[i];
        for (int k = 0; k < node->n_in && !st; k++) {
            if (!tg_input_node(G, node, k))
                st = kerr(c, node->path, "input[%d]: '%s' is not a node of the graph", k,
                          node->in[k]);
            else if (tg_out_index(node->in[k]) < 0)
                st = kerr(c, node->path, "input[%d]: '%s' names no output index (expected "
                          "NODE or NODE:INDEX)", k, node->in[k]);
        }
    }
    /* Consumer lists (CSR) once, over the inputs as written. */
    G->cons_off = xcalloc((size_t)G->nn + 2, sizeof *G->cons_off);
    int *fill = xcalloc((size_t)G->nn + 1, sizeof *fill);
    for (int i = 0; !st && i < G->nn; i++)
        for (int k = 0; k < G->n[i].n_in; k++)
            G->cons_off[(tg_raw_input(G, &G->n[i], k) - G->n) + 1]++;
    for (int i = 0; i < G->nn; i++)
        G->cons_off[i + 1] += G->cons_off[i];
    G->cons = xcalloc((size_t)G->cons_off[G->nn] + 1, sizeof *G->cons);
    memcpy(fill, G->cons_off, sizeof *fill * (size_t)G->nn);
    for (int i = 0; !st && i < G->nn; i++)
        for (int k = 0; k < G->n[i].n_in; k++)
            G->cons[fill[tg_raw_input(G, &G->n[i], k) - G->n]++] = i;
    free(fill);
    G->frame = -1;
    if (!st)
        st = tg_frames(G);
    if (!st)
        st = tg_emit_scope(G, -1);
    return st;
}

void tg_free(struct gctx *G)
{
    free(G->cons_off);
    for (int i = 0; i < G->nfr; i++)
        free((char *)G->fr[i].name);
    free(G->fr);
    free(G->cons);
    for (int i = 0; i < G->nn; i++) {
        free(G->n[i].xt);
        free(G->n[i].iv);
    }
    free(G->n);
    strmap_free(G->byname);
    free(G->mem_off);
    free(G->mem);
    free(G->kid_off);
    free(G->kids);
    free(G->unit);
}

enum status keras_tfjs_graph_build(struct kctx *c, const cJSON *topo, const char *path)
{
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(topo, "node");
    char p[64];
    snprintf(p, sizeof p, "%s.node", path);
    if (!cJSON_IsArray(nodes))
        return kerr(c, p, "expected an array of nodes, got %s", kjtype(nodes));
    if (!c->w)
        return kerr(c, "weightsManifest", "missing: a graph model's constants are declared "
                                         "there");
    struct gctx G = {.c = c, .lib = cJSON_GetObjectItemCaseSensitive(
                                 cJSON_GetObjectItemCaseSensitive(topo, "library"), "function")};
    tg_funcs_index(&G);
    enum status st = tg_parse_nodes(&G, nodes, path, 0);
    for (int i = 0; !st && i < G.nn; i++)
        if (!strcmp(G.n[i].op, "Placeholder"))
            st = placeholder(&G, &G.n[i]);
    if (!st)
        st = tg_link(&G);
    /* Outputs: computed nodes that nothing reads. */
    for (int i = 0; !st && i < G.nn; i++) {
        struct gnode *node = &G.n[i];
        if (node->is_const || !strcmp(node->op, "NoOp") || !strcmp(node->op, "Placeholder") ||
            G.cons_off[i + 1] > G.cons_off[i] || node->frame >= 0 ||
            (node->t.vn < 0 && node->t.vcf < 0))
            continue;
        int v = kx_val(c, &node->t, false, node->name);
        if (c->g->values[v].flags & (VAL_OUTPUT | VAL_INPUT) ||
            graph_value_find(c->g, node->name) < 0)
            v = kx_op(c, OP_Identity, graph_strdup(c->g, node->name), &v, 1);
        graph_output_add(c->g, v);
    }
    tg_free(&G);
    tg_funcs_free(&G);
    return st;
}
