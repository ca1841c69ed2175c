/* gnn_features.c - node and graph feature vectors and the node adjacency. */
#include "core/gnn_features.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/gnn.h"
#include "util/xalloc.h"

static const char *const node_names[FEAT_NODE_DIM] = {
#define X(id, str) "opc:" str,
    OP_CLASS_LIST(X)
#undef X
#define X(name) "op:" #name,
    FEAT_FREQ_OPS(X)
#undef X
#define X(name, desc) #name,
    FEAT_NODE_SCALARS(X)
#undef X
};

static const char *const graph_names[FEAT_GRAPH_DIM] = {
#define X(name, desc) #name,
    FEAT_GRAPH_SCALARS(X)
#undef X
#define X(id, name, bytes) "prec:" name,
    PRECISION_LIST(X)
#undef X
#define X(id, name) "rt:" name,
    RUNTIME_LIST_FEATURED(X)
#undef X
};

static const enum op freq_ops[FEAT_FREQ__COUNT] = {
#define X(name) OP_##name,
    FEAT_FREQ_OPS(X)
#undef X
};

uint64_t gnn_features_schema_id(void)
{
    uint64_t h = 0xcbf29ce484222325ull;
    char ver[16] = {'v', (char)('0' + FEAT_SCHEMA_VERSION), 0};
    const char *parts[3] = {ver, "node", "graph"};
    for (int p = 0; p < 3; p++) {
        int n = p == 0 ? 1 : p == 1 ? FEAT_NODE_DIM : FEAT_GRAPH_DIM;
        for (int i = 0; i < n; i++) {
            const char *s = p == 0 ? parts[0] : p == 1 ? node_names[i] : graph_names[i];
            for (; *s; s++) {
                h ^= (unsigned char)*s;
                h *= 0x100000001b3ull;
            }
            h ^= 0xff; /* separator */
            h *= 0x100000001b3ull;
        }
    }
    return h;
}

const char *gnn_features_node_name(int i)
{
    return i >= 0 && i < FEAT_NODE_DIM ? node_names[i] : "?";
}

const char *gnn_features_graph_name(int i)
{
    return i >= 0 && i < FEAT_GRAPH_DIM ? graph_names[i] : "?";
}

static float lg1p(double v)
{
    return v > 0 ? (float)log1p(v) : 0.0f;
}

/* Scale from the graph's stored element size to the configured precision:
 * the cost model counts bytes with each tensor's declared type (normally
 * float32); the configured precision changes what actually moves. */
static double prec_scale(const struct graph *g, const struct config *cfg)
{
    int es = 4;
    for (int i = 0; i < g->n_inputs; i++) {
        const struct value *v = &g->values[g->inputs[i]];
        enum dtype dt = v->idtype != DT_UNDEFINED ? v->idtype : v->dtype;
        if (dtype_is_float(dt)) {
            es = dtype_size(dt);
            break;
        }
    }
    return (double)precision_bytes(cfg->prec) / (es > 0 ? es : 4);
}

static int64_t first_in_channels(const struct graph *g, const struct node *n)
{
    if (n->n_in < 1 || n->in[0] < 0)
        return 0;
    const struct shape *s = &g->values[n->in[0]].shape;
    return s->known && s->rank >= 2 ? s->d[1] : 0;
}

/* Per-node roofline time (seconds) at the configured hardware. */
static void node_roof(const struct node *n, double scale, const struct hw *hw, double *tc,
                      double *tm)
{
    enum op_class c = op_class_of(n->op);
    double peak = (c == OPC_CONV || c == OPC_GEMM || c == OPC_ATTENTION || c == OPC_RNN)
                      ? hw->peak_flops
                      : hw->peak_fp32_flops;
    *tc = peak > 0 ? n->cost.flops / peak : 0;
    *tm = hw->bw_bytes > 0 ? (n->cost.bytes_read + n->cost.bytes_written) * scale / hw->bw_bytes
                           : 0;
}

/* A node's feature row is computed in two steps. node_args gathers what
 * each scalar feature is made from: the argument of lg1p for the scalars
 * log-scaled below, the value itself (already a float) for the others,
 * 0 where the node has none; v[0] is the op. node_finish makes the row from
 * that record alone, so equal records give equal rows (the cache of
 * gnn_features_batch relies on it). */
#define NODE_ARGS (1 + FEAT_N__COUNT)

static const bool log_scaled[FEAT_N__COUNT] = {
    [FEAT_N_out_d0] = 1,       [FEAT_N_out_d1] = 1,        [FEAT_N_out_d2] = 1,
    [FEAT_N_out_d3] = 1,       [FEAT_N_out_elems] = 1,     [FEAT_N_macs] = 1,
    [FEAT_N_flops] = 1,        [FEAT_N_bytes_read] = 1,    [FEAT_N_bytes_written] = 1,
    [FEAT_N_params] = 1,       [FEAT_N_param_bytes] = 1,   [FEAT_N_intensity] = 1,
    [FEAT_N_prec_bytes] = 1,   [FEAT_N_groups] = 1,        [FEAT_N_fan_out] = 1,
    [FEAT_N_t_compute] = 1,    [FEAT_N_t_memory] = 1,      [FEAT_N_t_roof] = 1,
    [FEAT_N_t_teacher] = 1,    [FEAT_N_t_kcompute] = 1,    [FEAT_N_t_kmemory] = 1,
};

/* Output shape and cost arguments of node n into a[]. Every argument is
 * written (0 where the node has none): node_args does not clear the record
 * first, as a memset of it costs as much as filling it. */
static void args_shape_cost(const struct graph *g, const struct node *n, double scale, double *a)
{
    const struct shape *sh = n->n_out > 0 && n->out[0] >= 0 ? &g->values[n->out[0]].shape : NULL;
    if (sh && sh->known) {
        int r = sh->rank;
        double e = 1;
        for (int i = 0; i < r; i++)
            e *= (double)(sh->d[i] > 0 ? sh->d[i] : 0);
        a[FEAT_N_out_rank] = (float)r;
        a[FEAT_N_out_d0] = r >= 1 ? (double)sh->d[0] : 0;
        a[FEAT_N_out_d1] = r >= 2 ? (double)sh->d[1] : 0;
        a[FEAT_N_out_d2] = r >= 3 ? (double)sh->d[r - 2] : 0;
        a[FEAT_N_out_d3] = r >= 4 ? (double)sh->d[r - 1] : 0;
        a[FEAT_N_out_elems] = e;
    } else {
        a[FEAT_N_out_rank] = a[FEAT_N_out_d0] = a[FEAT_N_out_d1] = 0;
        a[FEAT_N_out_d2] = a[FEAT_N_out_d3] = a[FEAT_N_out_elems] = 0;
    }
    const struct node_cost *k = &n->cost;
    double moved = k->bytes_read + k->bytes_written;
    a[FEAT_N_macs] = k->macs;
    a[FEAT_N_flops] = k->flops;
    a[FEAT_N_bytes_read] = k->bytes_read;
    a[FEAT_N_bytes_written] = k->bytes_written;
    a[FEAT_N_params] = k->params;
    a[FEAT_N_param_bytes] = k->param_bytes;
    a[FEAT_N_intensity] = moved > 0 ? k->flops / moved : 0;
    a[FEAT_N_prec_bytes] = moved * scale;
}

/* Attribute and connectivity arguments of node n (op class c) into a[]. */
static void args_attrs(const struct graph *g, const struct node *n, enum op_class c, double *a)
{
    const int64_t *ks = NULL, *st = NULL, *dl = NULL;
    bool attrs = n->n_attr > 0; /* else every lookup below finds nothing */
    int nk = attrs ? node_attr_ints(n, "kernel_shape", &ks) : 0;
    a[FEAT_N_kernel_h] = nk >= 1 ? (float)ks[0] : 0;
    a[FEAT_N_kernel_w] = nk >= 1 ? (float)ks[nk - 1] : 0;
    float stride = 0;
    int ns = attrs ? node_attr_ints(n, "strides", &st) : 0;
    for (int i = 0; i < ns; i++)
        if (st[i] > stride)
            stride = (float)st[i];
    a[FEAT_N_stride] = stride;
    int nd = attrs ? node_attr_ints(n, "dilations", &dl) : 0, dilated = 0;
    for (int i = 0; i < nd; i++)
        dilated |= dl[i] > 1;
    a[FEAT_N_dilated] = dilated;
    int64_t groups = attrs ? node_attr_int(n, "group", 1) : 1;
    a[FEAT_N_groups] = (double)(groups > 0 ? groups : 1);
    a[FEAT_N_depthwise] = c == OPC_CONV && groups > 1 && groups == first_in_channels(g, n);
    int nin = 0, fan = 0;
    for (int i = 0; i < n->n_in; i++)
        nin += n->in[i] >= 0;
    for (int i = 0; i < n->n_out; i++)
        if (n->out[i] >= 0)
            fan += g->values[n->out[i]].n_consumers;
    a[FEAT_N_n_inputs] = (float)nin;
    a[FEAT_N_fan_out] = fan;
}

/* The teacher's arguments of node ni (all 0 without its result) into a[]. */
static void args_teacher(const struct sim_result *sr, int ni, double *a)
{
    if (sr && ni < sr->n_nodes) {
        const struct sim_node *sn = &sr->nodes[ni];
        a[FEAT_N_t_teacher] = sn->time_s * 1e6;
        a[FEAT_N_share_teacher] = (float)sn->time_share;
        a[FEAT_N_t_kcompute] = sn->compute_s * 1e6;
        a[FEAT_N_t_kmemory] = sn->memory_s * 1e6;
        a[FEAT_N_efficiency] = (float)sn->efficiency;
        a[FEAT_N_fused] = sn->fused;
        a[FEAT_N_kernel] = sn->kernel;
        a[FEAT_N_tensor_core] = sn->tensor_core;
        a[FEAT_N_b_compute] = sn->bound == BOUND_COMPUTE;
        a[FEAT_N_b_memory] = sn->bound == BOUND_MEMORY;
        a[FEAT_N_b_overhead] = sn->bound == BOUND_OVERHEAD;
    } else {
        for (int k = FEAT_N_t_teacher; k <= FEAT_N_b_overhead; k++)
            a[k] = 0;
    }
}

_Static_assert(FEAT_N__COUNT == 37 && FEAT_N_b_overhead == FEAT_N__COUNT - 1,
               "node_args writes every scalar: give a new one its argument in args_*");

/* The record of node ni into v[NODE_ARGS]; *roof gets its roofline bound
 * (seconds), which the graph features sum. scale is prec_scale(g, cfg). */
static void node_args(const struct graph *g, int ni, double scale, const struct hw *hw,
                      const struct sim_result *sr, double *v, double *roof)
{
    const struct node *n = &g->nodes[ni];
    double *a = v + 1;
    v[0] = n->op;
    enum op_class c = n->op == OP__UNKNOWN ? OPC_OTHER : op_class_of(n->op);
    a[FEAT_N_unsupported] = n->state != NODE_OK && n->state != NODE_NOT_RUN;
    args_shape_cost(g, n, scale, a);
    args_attrs(g, n, c, a);
    double tc, tm;
    node_roof(n, scale, hw, &tc, &tm);
    a[FEAT_N_t_compute] = tc * 1e6;
    a[FEAT_N_t_memory] = tm * 1e6;
    a[FEAT_N_t_roof] = (tc > tm ? tc : tm) * 1e6;
    *roof = tc > tm ? tc : tm;
    args_teacher(sr, ni, a);
}

/* The raw feature row of a record of node_args. */
static void node_finish(const double *v, float *out)
{
    memset(out, 0, sizeof(float) * FEAT_NODE_DIM);
    enum op op = (enum op)v[0];
    out[op == OP__UNKNOWN ? OPC_OTHER : op_class_of(op)] = 1;
    float *fr = out + OPC__COUNT;
    for (int i = 0; i < FEAT_FREQ__COUNT; i++)
        if (op == freq_ops[i])
            fr[i] = 1;
    float *s = fr + FEAT_FREQ__COUNT;
    const double *a = v + 1;
    for (int k = 0; k < FEAT_N__COUNT; k++)
        s[k] = log_scaled[k] ? lg1p(a[k]) : (float)a[k];
}

void gnn_features_node(const struct graph *g, int ni, const struct config *cfg, const struct hw *hw,
                       const struct sim_result *sr, float *out)
{
    double v[NODE_ARGS], roof;
    node_args(g, ni, prec_scale(g, cfg), hw, sr, v, &roof);
    node_finish(v, out);
}

static float lgpos(double v)
{
    return v > 0 ? (float)log(v) : 0.0f;
}

/* The graph features, given prec_scale(g, cfg) and the sum of the nodes'
 * roofline bounds in seconds (in node order). */
static void graph_features(const struct graph *g, const struct config *cfg, const struct hw *hw,
                           const struct sim_result *sr, double scale, double roof, float *out)
{
    memset(out, 0, sizeof(float) * FEAT_GRAPH_DIM);
    const struct graph_totals *t = &g->totals;
    const double mib = 1.0 / (1024.0 * 1024.0);
    out[FEAT_G_batch] = (float)log2((double)(cfg->batch > 0 ? cfg->batch : 1));
    out[FEAT_G_tot_macs] = lg1p(t->macs);
    out[FEAT_G_tot_flops] = lg1p(t->flops);
    out[FEAT_G_tot_params] = lg1p(t->params);
    out[FEAT_G_tot_param_mib] = lg1p(t->param_bytes * scale * mib);
    out[FEAT_G_tot_bytes_read] = lg1p(t->bytes_read);
    out[FEAT_G_tot_bytes_written] = lg1p(t->bytes_written);
    out[FEAT_G_tot_act_mib] = lg1p(t->act_bytes * scale * mib);
    out[FEAT_G_peak_act_mib] = lg1p(t->peak_act_bytes * scale * mib);
    out[FEAT_G_mem_est_mib] = lg1p((t->param_bytes + t->peak_act_bytes) * scale * mib);
    out[FEAT_G_io_mib] = lg1p((t->input_bytes + t->output_bytes) * scale * mib);
    out[FEAT_G_n_nodes] = lg1p(g->n_nodes);
    out[FEAT_G_unsupported_frac] =
        g->n_nodes > 0 ? (float)(t->n_unsupported + t->n_unknown) / (float)g->n_nodes : 0;
    out[FEAT_G_peak_tflops] = lgpos(hw->peak_flops * 1e-12);
    out[FEAT_G_fp32_tflops] = lgpos(hw->peak_fp32_flops * 1e-12);
    out[FEAT_G_bw_tbs] = lgpos(hw->bw_bytes * 1e-12);
    out[FEAT_G_sms] = (float)hw->sms / 100.0f;
    out[FEAT_G_mem_gib] = lgpos(hw->mem_bytes / (1024.0 * 1024.0 * 1024.0));
    out[FEAT_G_l2_mib] = lgpos(hw->l2_bytes * mib);
    out[FEAT_G_tdp] = (float)(hw->tdp_w / 100.0);
    out[FEAT_G_idle] = (float)(hw->idle_w / 100.0);
    out[FEAT_G_is_mig] = hw->mig != NULL;
    out[FEAT_G_roof_compute_ms] = hw->peak_flops > 0 ? lg1p(t->flops / hw->peak_flops * 1e3) : 0;
    out[FEAT_G_roof_memory_ms] =
        hw->bw_bytes > 0 ? lg1p((t->bytes_read + t->bytes_written) * scale / hw->bw_bytes * 1e3)
                         : 0;
    out[FEAT_G_roof_nodes_ms] = lg1p(roof * 1e3);
    if (sr) {
        out[FEAT_G_teacher_ms] = lgpos(sr->latency_ms);
        out[FEAT_G_teacher_j] = lgpos(sr->energy_j);
        out[FEAT_G_teacher_mib] = lgpos(sr->memory_mib);
        out[FEAT_G_host_frac] = sr->latency_ms > 0 ? (float)(sr->host_ms / sr->latency_ms) : 0;
        out[FEAT_G_kernels] = lg1p(sr->n_kernels);
    }
    if ((unsigned)cfg->prec < PREC__COUNT)
        out[FEAT_G__COUNT + cfg->prec] = 1;
    if ((unsigned)cfg->rt < RT__COUNT)
        out[FEAT_G__COUNT + FEAT_N_PREC + runtime_feature(cfg->rt)] = 1;
}

void gnn_features_graph(const struct graph *g, const struct config *cfg, const struct hw *hw,
                        const struct sim_result *sr, float *out)
{
    double scale = prec_scale(g, cfg), roof = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        double tc, tm;
        node_roof(&g->nodes[i], scale, hw, &tc, &tm);
        roof += tc > tm ? tc : tm;
    }
    graph_features(g, cfg, hw, sr, scale, roof, out);
}

void gnn_features_anchor(const struct sim_result *sr, int n, float *w0, float *anchor)
{
    double tot = 0;
    for (int i = 0; i < n && i < sr->n_nodes; i++)
        tot += sr->nodes[i].time_s > 0 ? sr->nodes[i].time_s : 0;
    for (int i = 0; i < n; i++) {
        double t = i < sr->n_nodes && sr->nodes[i].time_s > 0 ? sr->nodes[i].time_s : 0;
        w0[i] = tot > 0 ? (float)(t / tot) : 1.0f / (float)n;
    }
    const double v[GNN_T__COUNT] = {sr->latency_ms, sr->energy_j, sr->memory_mib};
    for (int t = 0; t < GNN_T__COUNT; t++)
        anchor[t] = v[t] > 0 ? (float)log(v[t]) : 0;
}

/* ---- adjacency ------------------------------------------------------- */

/* Inserts p into the sorted row idx[b..*w) unless it is there already. */
static void row_insert(int *idx, int b, int *w, int p)
{
    int j = *w - 1;
    while (j >= b && idx[j] > p)
        j--;
    if (j >= b && idx[j] == p)
        return;
    for (int k = *w; k > j + 1; k--)
        idx[k] = idx[k - 1];
    idx[j + 1] = p;
    (*w)++;
}

/* Each node's distinct producer nodes, sorted, are its pred row; the succ
 * rows are the transpose, filled in node order and so sorted and distinct
 * too. One pass over the inputs (the value table is the slow part). */
void gnn_features_adj_build(const struct graph *g, struct gnn_features_adj *a)
{
    int n = g->n_nodes;
    a->n = n;
    if (n + 1 > a->cap_n) {
        a->cap_n = n + 1 + n / 2;
        a->pred_off = xreallocarray(a->pred_off, (size_t)a->cap_n, sizeof(int));
        a->succ_off = xreallocarray(a->succ_off, (size_t)a->cap_n, sizeof(int));
        a->fill = xreallocarray(a->fill, (size_t)a->cap_n, sizeof(int));
    }
    int w = 0;
    for (int i = 0; i < n; i++) {
        const struct node *nd = &g->nodes[i];
        a->pred_off[i] = w;
        if (w + nd->n_in + 1 > a->cap_e) {
            a->cap_e = w + nd->n_in + 1 + (w + nd->n_in) / 2;
            a->pred = xreallocarray(a->pred, (size_t)a->cap_e, sizeof(int));
            a->succ = xreallocarray(a->succ, (size_t)a->cap_e, sizeof(int));
        }
        for (int k = 0; k < nd->n_in; k++) {
            int p = nd->in[k] >= 0 ? g->values[nd->in[k]].producer : -1;
            if (p >= 0 && p != i)
                row_insert(a->pred, a->pred_off[i], &w, p);
        }
    }
    a->pred_off[n] = w;
    memset(a->succ_off, 0, sizeof(int) * (size_t)(n + 1));
    for (int e = 0; e < w; e++)
        a->succ_off[a->pred[e] + 1]++;
    for (int i = 0; i < n; i++)
        a->succ_off[i + 1] += a->succ_off[i];
    memcpy(a->fill, a->succ_off, sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        for (int e = a->pred_off[i]; e < a->pred_off[i + 1]; e++)
            a->succ[a->fill[a->pred[e]]++] = i;
}

void gnn_features_adj_fini(struct gnn_features_adj *a)
{
    if (!a)
        return;
    free(a->pred_off);
    free(a->pred);
    free(a->succ_off);
    free(a->succ);
    free(a->fill);
    memset(a, 0, sizeof *a);
}

/* ---- the batch of one graph, and the cache of node rows ---------------- */

static uint64_t word(const double *v, int k)
{
    uint64_t w;
    memcpy(&w, v + k, sizeof w);
    return w;
}

/* A hash of a node record's bits: four independent multiply lanes (named,
 * so that they stay in registers), then mixed. */
static uint64_t hash_args(const double *v)
{
    const uint64_t p = 0x100000001b3ull;
    uint64_t a0 = 0x9e3779b97f4a7c15ull, a1 = 0xc2b2ae3d27d4eb4full, a2 = 0x165667b19e3779f9ull,
             a3 = 0x27d4eb2f165667c5ull;
    int k = 0;
    for (; k + 4 <= NODE_ARGS; k += 4) {
        a0 = (a0 ^ word(v, k)) * p;
        a1 = (a1 ^ word(v, k + 1)) * p;
        a2 = (a2 ^ word(v, k + 2)) * p;
        a3 = (a3 ^ word(v, k + 3)) * p;
    }
    for (; k < NODE_ARGS; k++)
        a0 = (a0 ^ word(v, k)) * p;
    uint64_t h = a0 ^ (a1 >> 21 | a1 << 43) ^ (a2 >> 37 | a2 << 27) ^ (a3 >> 50 | a3 << 14);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 33);
}

void gnn_features_cache_clear(struct gnn_features_cache *c)
{
    c->n_ent = 0;
    c->key = 0; /* entry numbers now mean other rows */
    if (c->slot)
        memset(c->slot, 0, sizeof(int) * (c->mask + 1));
}

/* Room for n more entries, made with m's normalisation. */
static void cache_reserve(struct gnn_features_cache *c, const struct gnn_model *m, size_t n)
{
    size_t fb = sizeof(float) * FEAT_NODE_DIM;
    if (!c->mean || memcmp(c->mean, m->node_mean, fb) || memcmp(c->std, m->node_std, fb)) {
        if (!c->mean) {
            c->mean = xmalloc(fb);
            c->std = xmalloc(fb);
        }
        memcpy(c->mean, m->node_mean, fb);
        memcpy(c->std, m->node_std, fb);
        gnn_features_cache_clear(c);
    }
    if (c->n_ent + n > 2 * n + 1024)
        gnn_features_cache_clear(c);
    if (c->n_ent + n <= c->cap_ent)
        return;
    size_t cap = c->n_ent + n + (c->n_ent + n) / 2, t = 64;
    c->hash = xreallocarray(c->hash, cap, sizeof(uint64_t));
    c->args = xreallocarray(c->args, cap, sizeof(double) * NODE_ARGS);
    c->row = xreallocarray(c->row, cap, fb);
    c->cap_ent = cap;
    while (t < 2 * cap)
        t *= 2;
    free(c->slot);
    c->slot = xcalloc(t, sizeof(int));
    c->mask = t - 1;
    for (size_t e = 0; e < c->n_ent; e++) { /* the kept entries in the new table */
        size_t s = (size_t)c->hash[e] & c->mask;
        while (c->slot[s])
            s = (s + 1) & c->mask;
        c->slot[s] = (int)e + 1;
    }
}

/* A row copy as vector moves (a memcpy of this fixed size is inlined as a
 * rep movs, whose start-up costs more than the copy). */
static void copy_row(float *restrict d, const float *restrict s)
{
    for (int k = 0; k < FEAT_NODE_DIM; k++)
        d[k] = s[k];
}

static bool same_args(const struct gnn_features_cache *c, int e, const double *v)
{
    return memcmp(c->args + (size_t)e * NODE_ARGS, v, sizeof(double) * NODE_ARGS) == 0;
}

/* The normalised row of node i's record v into out: the cached one (first
 * tried: the entry node i had in the call before), or made and kept
 * (cache_reserve has made room). Whether it is the entry of the call before. */
static bool node_row(struct gnn_features_cache *c, const struct gnn_model *m, int i,
                     const double *v, float *out)
{
    int e = c->last[i];
    if (e >= 0 && (size_t)e < c->n_ent && same_args(c, e, v)) {
        copy_row(out, c->row + (size_t)e * FEAT_NODE_DIM);
        return true;
    }
    uint64_t h = hash_args(v);
    size_t s = (size_t)h & c->mask;
    while ((e = c->slot[s] - 1) >= 0) {
        if (c->hash[e] == h && same_args(c, e, v)) {
            copy_row(out, c->row + (size_t)e * FEAT_NODE_DIM);
            c->last[i] = e;
            return false;
        }
        s = (s + 1) & c->mask;
    }
    node_finish(v, out);
    gnn_normalize_nodes(m, out, 1);
    e = (int)c->n_ent++;
    c->slot[s] = e + 1;
    c->hash[e] = h;
    memcpy(c->args + (size_t)e * NODE_ARGS, v, sizeof(double) * NODE_ARGS);
    memcpy(c->row + (size_t)e * FEAT_NODE_DIM, out, sizeof(float) * FEAT_NODE_DIM);
    c->last[i] = e;
    return false;
}

static bool same_adj(const struct gnn_features_adj *a, const struct gnn_features_adj *b)
{
    size_t n = (size_t)a->n;
    return a->n == b->n && b->pred_off &&
           !memcmp(a->pred_off, b->pred_off, sizeof(int) * (n + 1)) &&
           !memcmp(a->pred, b->pred, sizeof(int) * (size_t)a->pred_off[n]);
}

/* Keys of batches (gnn_forward_keyed), unique in the process. */
static uint64_t new_key(void)
{
    static atomic_uint_fast64_t next = 1;
    return atomic_fetch_add(&next, 1);
}

const struct gnn_batch *gnn_features_batch(struct gnn_features_cache *c, const struct gnn_model *m,
                                           const struct graph *g, const struct config *cfg,
                                           const struct hw *hw, const struct sim_result *sr)
{
    int n = g->n_nodes;
    if ((size_t)n > c->cap_n) {
        c->cap_n = (size_t)n + (size_t)n / 2 + 16;
        free(c->xn);
        free(c->w0);
        free(c->last);
        c->xn = xmalloc(sizeof(float) * c->cap_n * FEAT_NODE_DIM);
        c->w0 = xmalloc(sizeof(float) * c->cap_n);
        c->last = xmalloc(sizeof(int) * c->cap_n);
        for (size_t i = 0; i < c->cap_n; i++)
            c->last[i] = -1;
    }
    cache_reserve(c, m, (size_t)n); /* may clear the cache, and so the key */
    bool same = c->key != 0 && n == c->b.n_nodes;
    double scale = prec_scale(g, cfg), roof = 0;
    for (int i = 0; i < n; i++) {
        double v[NODE_ARGS], r;
        node_args(g, i, scale, hw, sr, v, &r);
        roof += r;
        if (!node_row(c, m, i, v, c->xn + (size_t)i * FEAT_NODE_DIM))
            same = false;
    }
    graph_features(g, cfg, hw, sr, scale, roof, c->xg);
    gnn_normalize_graph(m, c->xg, 1);
    gnn_features_anchor(sr, n, c->w0, c->anchor);
    const struct gnn_features_adj *a = &c->adj[c->cur ^ 1];
    gnn_features_adj_build(g, &c->adj[c->cur ^ 1]);
    same = same && same_adj(a, &c->adj[c->cur]);
    c->cur ^= 1;
    if (!same)
        c->key = new_key();
    c->goff[0] = 0;
    c->goff[1] = n;
    c->b = (struct gnn_batch){1,           n,       c->goff,     c->xn,   c->xg, a->pred_off,
                              a->pred,     a->succ_off, a->succ, c->w0,   c->anchor};
    return &c->b;
}

void gnn_features_cache_fini(struct gnn_features_cache *c)
{
    if (!c)
        return;
    gnn_features_adj_fini(&c->adj[0]);
    gnn_features_adj_fini(&c->adj[1]);
    free(c->xn);
    free(c->w0);
    free(c->last);
    free(c->slot);
    free(c->hash);
    free(c->args);
    free(c->row);
    free(c->mean);
    free(c->std);
    memset(c, 0, sizeof *c);
}
