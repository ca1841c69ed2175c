/* gnn_features.c - node and graph feature vectors and the node adjacency. */
#include "core/gnn_features.h"

#include <math.h>
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
    RUNTIME_LIST(X)
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

void gnn_features_node(const struct graph *g, int ni, const struct config *cfg, const struct hw *hw,
                       const struct sim_result *sr, float *out)
{
    const struct node *n = &g->nodes[ni];
    memset(out, 0, sizeof(float) * FEAT_NODE_DIM);
    enum op_class c = n->op == OP__UNKNOWN ? OPC_OTHER : op_class_of(n->op);
    out[c] = 1;
    float *fr = out + OPC__COUNT;
    for (int i = 0; i < FEAT_FREQ__COUNT; i++)
        if (n->op == freq_ops[i])
            fr[i] = 1;
    float *s = fr + FEAT_FREQ__COUNT;
    s[FEAT_N_unsupported] = n->state != NODE_OK && n->state != NODE_NOT_RUN;
    if (n->n_out > 0 && n->out[0] >= 0) {
        const struct shape *sh = &g->values[n->out[0]].shape;
        if (sh->known) {
            s[FEAT_N_out_rank] = (float)sh->rank;
            if (sh->rank >= 1)
                s[FEAT_N_out_d0] = lg1p((double)sh->d[0]);
            if (sh->rank >= 2)
                s[FEAT_N_out_d1] = lg1p((double)sh->d[1]);
            if (sh->rank >= 3)
                s[FEAT_N_out_d2] = lg1p((double)sh->d[sh->rank - 2]);
            if (sh->rank >= 4)
                s[FEAT_N_out_d3] = lg1p((double)sh->d[sh->rank - 1]);
            double e = 1;
            for (int i = 0; i < sh->rank; i++)
                e *= (double)(sh->d[i] > 0 ? sh->d[i] : 0);
            s[FEAT_N_out_elems] = lg1p(e);
        }
    }
    const struct node_cost *k = &n->cost;
    double scale = prec_scale(g, cfg);
    double moved = k->bytes_read + k->bytes_written;
    s[FEAT_N_macs] = lg1p(k->macs);
    s[FEAT_N_flops] = lg1p(k->flops);
    s[FEAT_N_bytes_read] = lg1p(k->bytes_read);
    s[FEAT_N_bytes_written] = lg1p(k->bytes_written);
    s[FEAT_N_params] = lg1p(k->params);
    s[FEAT_N_param_bytes] = lg1p(k->param_bytes);
    s[FEAT_N_intensity] = moved > 0 ? lg1p(k->flops / moved) : 0;
    s[FEAT_N_prec_bytes] = lg1p(moved * scale);

    const int64_t *ks, *st, *dl;
    int nk = node_attr_ints(n, "kernel_shape", &ks);
    if (nk >= 1) {
        s[FEAT_N_kernel_h] = (float)ks[0];
        s[FEAT_N_kernel_w] = (float)ks[nk - 1];
    }
    int ns = node_attr_ints(n, "strides", &st);
    for (int i = 0; i < ns; i++)
        if (st[i] > s[FEAT_N_stride])
            s[FEAT_N_stride] = (float)st[i];
    int nd = node_attr_ints(n, "dilations", &dl);
    for (int i = 0; i < nd; i++)
        if (dl[i] > 1)
            s[FEAT_N_dilated] = 1;
    int64_t groups = node_attr_int(n, "group", 1);
    s[FEAT_N_groups] = lg1p((double)(groups > 0 ? groups : 1));
    if (c == OPC_CONV && groups > 1 && groups == first_in_channels(g, n))
        s[FEAT_N_depthwise] = 1;
    int nin = 0, fan = 0;
    for (int i = 0; i < n->n_in; i++)
        nin += n->in[i] >= 0;
    for (int i = 0; i < n->n_out; i++)
        if (n->out[i] >= 0)
            fan += g->values[n->out[i]].n_consumers;
    s[FEAT_N_n_inputs] = (float)nin;
    s[FEAT_N_fan_out] = lg1p(fan);
    double tc, tm;
    node_roof(n, scale, hw, &tc, &tm);
    s[FEAT_N_t_compute] = lg1p(tc * 1e6);
    s[FEAT_N_t_memory] = lg1p(tm * 1e6);
    s[FEAT_N_t_roof] = lg1p((tc > tm ? tc : tm) * 1e6);
    if (sr && ni < sr->n_nodes) {
        const struct sim_node *sn = &sr->nodes[ni];
        s[FEAT_N_t_teacher] = lg1p(sn->time_s * 1e6);
        s[FEAT_N_share_teacher] = (float)sn->time_share;
        s[FEAT_N_t_kcompute] = lg1p(sn->compute_s * 1e6);
        s[FEAT_N_t_kmemory] = lg1p(sn->memory_s * 1e6);
        s[FEAT_N_efficiency] = (float)sn->efficiency;
        s[FEAT_N_fused] = sn->fused;
        s[FEAT_N_kernel] = sn->kernel;
        s[FEAT_N_tensor_core] = sn->tensor_core;
        s[FEAT_N_b_compute] = sn->bound == BOUND_COMPUTE;
        s[FEAT_N_b_memory] = sn->bound == BOUND_MEMORY;
        s[FEAT_N_b_overhead] = sn->bound == BOUND_OVERHEAD;
    }
}

static float lgpos(double v)
{
    return v > 0 ? (float)log(v) : 0.0f;
}

void gnn_features_graph(const struct graph *g, const struct config *cfg, const struct hw *hw,
                        const struct sim_result *sr, float *out)
{
    memset(out, 0, sizeof(float) * FEAT_GRAPH_DIM);
    const struct graph_totals *t = &g->totals;
    const double mib = 1.0 / (1024.0 * 1024.0);
    double scale = prec_scale(g, cfg);
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
    double roof = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        double tc, tm;
        node_roof(&g->nodes[i], scale, hw, &tc, &tm);
        roof += tc > tm ? tc : tm;
    }
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
        out[FEAT_G__COUNT + FEAT_N_PREC + cfg->rt] = 1;
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
