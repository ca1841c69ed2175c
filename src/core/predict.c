/* predict.c - the predictor: graph + configuration + weights -> prediction. */
#include "core/predict.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/datafile.h"
#include "core/gnn.h"
#include "core/gnn_features.h"
#include "core/gpu.h"
#include "graph/ops/shape.h"
#include "util/textsafe.h"
#include "core/weights.h"
#include "util/xalloc.h"

struct predictor {
    struct gnn_model m;
    char path[1024];
    char desc[WEIGHTS_DESC_MAX];
    char describe[WEIGHTS_DESC_MAX + 1100];
    /* Scratch reused across calls. */
    struct gnn_work w;
    struct gnn_features_cache fc;
};

/* OpenBLAS (0.3.x, pthreads build) takes a 128 MiB work buffer on its first
 * call and retries a failing allocation forever: under an address-space limit
 * (ulimit -v) the program would spin. Reserving the same amount once, before
 * the first call, turns that into an out-of-memory error. */
#define BLAS_BUFFER_BYTES (((size_t)128 << 20) + ((size_t)16 << 20))

enum status predict_blas_probe(struct diag *d)
{
    static bool ok;
    if (ok)
        return ST_OK;
    void *p = malloc(BLAS_BUFFER_BYTES);
    if (!p)
        return diag_set(d, ST_ENOMEM, "cannot reserve the %zu MiB the BLAS library needs for its "
                        "work buffer (is the address-space limit, ulimit -v, too low?)",
                        BLAS_BUFFER_BYTES >> 20);
    free(p);
    ok = true;
    return ST_OK;
}

struct predictor *predictor_new(const char *weights_path, struct diag *d)
{
    char buf[1024];
    const char *path = weights_path ? weights_path : datafile_weights(buf, sizeof buf);
    if (!path) {
        char where[2048];
        diag_set(d, ST_ENOTFOUND,
                 "no GNN weights found ($DIPPM_WEIGHTS is not set; looked for %s); run "
                 "'make weights' or pass --weights FILE",
                 datafile_searched(DATAFILE_WEIGHTS, DATAFILE_WEIGHTS_NAME, where, sizeof where));
        return NULL;
    }
    if (predict_blas_probe(d))
        return NULL;
    struct predictor *p = xcalloc(1, sizeof *p);
    if (weights_load(path, gnn_features_schema_id(), &p->m, p->desc, sizeof p->desc, d)) {
        free(p);
        return NULL;
    }
    if (p->m.arch.fn != FEAT_NODE_DIM || p->m.arch.fg != FEAT_GRAPH_DIM) {
        diag_set(d, ST_EWEIGHTS, "%s: %d node / %d graph features, this dippm computes %d / %d",
                 path, p->m.arch.fn, p->m.arch.fg, FEAT_NODE_DIM, FEAT_GRAPH_DIM);
        gnn_model_fini(&p->m);
        free(p);
        return NULL;
    }
    char *canon = realpath(path, NULL); /* "/src/build/../weights" reads badly */
    snprintf(p->path, sizeof p->path, "%s", canon ? canon : path);
    free(canon);
    snprintf(p->describe, sizeof p->describe, "%s (%s)", p->path,
             p->desc[0] ? tsafe(p->desc) : "no description"); /* from the file */
    gnn_work_init(&p->w);
    return p;
}

void predictor_free(struct predictor *p)
{
    if (!p)
        return;
    gnn_model_fini(&p->m);
    gnn_work_fini(&p->w);
    gnn_features_cache_fini(&p->fc);
    free(p);
}

const char *predictor_describe(const struct predictor *p)
{
    return p ? p->describe : "no weights: teacher figures (analytic model, not measured)";
}

const char *predictor_path(const struct predictor *p)
{
    return p->path;
}

/* Runs the GNN on the inferred graph, anchored on the teacher's result in
 * out->sim; fills out's GNN fields. Weights that
 * passed the load checks can still drive the output out of range: that is
 * ST_EWEIGHTS, never an inf or NaN figure. */
static enum status run_gnn(struct predictor *p, const struct graph *g, const struct config *cfg,
                           const struct hw *hw, struct prediction *out, struct diag *d)
{
    int n = g->n_nodes;
    const struct gnn_batch *b = gnn_features_batch(&p->fc, &p->m, g, cfg, hw, &out->sim);
    gnn_forward_keyed(&p->m, b, p->fc.key, &p->w);
    double v[GNN_T__COUNT];
    static const char *const what[GNN_T__COUNT] = {"latency", "energy", "memory"};
    for (int t = 0; t < GNN_T__COUNT; t++) {
        v[t] = exp(p->w.out[t]);
        if (!(v[t] > 0 && v[t] < 1e30))
            return diag_set(d, ST_EWEIGHTS, "%s: the network predicts a %s of %g for this model: "
                            "the weights are unusable (retrain or use other weights)",
                            p->path, what[t], v[t]);
    }
    for (int i = 0; i < n; i++)
        if (!(p->w.p[i] >= 0 && p->w.p[i] <= 1.0000001))
            return diag_set(d, ST_EWEIGHTS, "%s: the network gives node %d a time share of %g, "
                            "expected 0 to 1: the weights are unusable", p->path, i,
                            (double)p->w.p[i]);
    out->latency_ms = v[GNN_T_LATENCY];
    out->energy_j = v[GNN_T_ENERGY];
    out->memory_mib = v[GNN_T_MEMORY];
    for (int i = 0; i < n; i++)
        out->node_share[i] = p->w.p[i];
    out->from_gnn = true;
    return ST_OK;
}

enum status predict_prepare(struct graph *g, const struct config *cfg, struct hw *hw,
                            struct diag *d)
{
    enum status st;
    int bs = graph_batch_sym(g);
    if (bs >= 0 && g->syms[bs].val != cfg->batch &&
        (st = graph_sym_set(g, g->syms[bs].name, cfg->batch, d)))
        return st;
    if (graph_infer_stale(g) && (st = graph_infer(g, d)))
        return st;
    return hw_from_config(cfg, hw, d);
}

/* The teacher's constants for cfg: the calibrated ones (NULL), or a copy in
 * buf with cfg's host dispatch for an eager runtime. The GNN, anchored on
 * the teacher's result and fed its host share, follows the change. */
static const struct sim_params *teacher_params(const struct config *cfg, struct sim_params *buf)
{
    if (!(cfg->dispatch_us > 0) || !runtime_eager(cfg->rt))
        return NULL;
    *buf = *sim_params_default();
    buf->dispatch_us[runtime_base(cfg->rt)] = cfg->dispatch_us;
    return buf;
}

double predict_dispatch_us(const struct config *cfg)
{
    struct sim_params buf;
    const struct sim_params *sp = teacher_params(cfg, &buf);
    return (sp ? sp : sim_params_default())->dispatch_us[runtime_base(cfg->rt)];
}

/* The node whose time is not finite, else the kernel that takes longest
 * (the work; a view's time is only the host's dispatch of it), else the
 * node that does. */
static int slowest_node(const struct sim_result *sr)
{
    int worst = -1, worst_kernel = -1;
    for (int i = 0; i < sr->n_nodes; i++) {
        double t = sr->nodes[i].time_s;
        if (!isfinite(t))
            return i;
        if (worst < 0 || t > sr->nodes[worst].time_s)
            worst = i;
        if (sr->nodes[i].kernel && (worst_kernel < 0 || t > sr->nodes[worst_kernel].time_s))
            worst_kernel = i;
    }
    return worst_kernel >= 0 ? worst_kernel : worst;
}

enum status predict_teacher_check(const struct graph *g, const struct sim_result *sr,
                                  struct diag *d)
{
    static const char *const what[] = {"latency", "energy", "memory"};
    static const char *const unit[] = {"ms", "J", "MiB"};
    const double v[] = {sr->latency_ms, sr->energy_j, sr->memory_mib};
    for (int t = 0; t < 3; t++) {
        if (v[t] >= 0 && v[t] <= PREDICT_TEACHER_MAX)
            continue;
        const char *model = g->path ? g->path : g->name ? g->name : "the model";
        int i = slowest_node(sr);
        if (i < 0 || i >= g->n_nodes)
            return diag_set(d, ST_ENOMEM, "%s: the teacher's %s is %g %s, beyond the %g %s "
                            "dippm can predict (the model's work overflows)", model, what[t],
                            v[t], unit[t], PREDICT_TEACHER_MAX, unit[t]);
        const struct sim_node *n = &sr->nodes[i];
        return diag_set(d, ST_ENOMEM, "%s: the teacher's %s is %g %s, beyond the %g %s dippm "
                        "can predict: the model's work overflows (node '%s' (%s) takes the "
                        "most: %g FLOPs, %g bytes, %g s)", model, what[t], v[t], unit[t],
                        PREDICT_TEACHER_MAX, unit[t], g->nodes[i].name, g->nodes[i].op_type,
                        n->flops, n->bytes, n->time_s);
    }
    return ST_OK;
}

enum status predict_run(struct predictor *p, struct graph *g, const struct config *cfg,
                        struct prediction *out, struct diag *d)
{
    memset(out, 0, sizeof *out);
    struct hw hw;
    enum status st = predict_prepare(g, cfg, &hw, d);
    if (st)
        return st;
    int bs = graph_batch_sym(g);
    struct sim_params params;
    if ((st = sim_run_params(g, cfg, teacher_params(cfg, &params), &out->sim, d)) ||
        (st = predict_teacher_check(g, &out->sim, d)))
        return st;
    out->n_nodes = g->n_nodes;
    out->node_share = xcalloc((size_t)(g->n_nodes > 0 ? g->n_nodes : 1), sizeof(double));
    int64_t batch = bs >= 0 ? cfg->batch : 1;
    if (p && g->n_nodes > 0) {
        if ((st = run_gnn(p, g, cfg, &hw, out, d)))
            return st;
    } else {
        out->latency_ms = out->sim.latency_ms;
        out->energy_j = out->sim.energy_j;
        out->memory_mib = out->sim.memory_mib;
        double tot = 0;
        for (int i = 0; i < out->sim.n_nodes; i++)
            tot += out->sim.nodes[i].time_s;
        for (int i = 0; i < out->sim.n_nodes && i < g->n_nodes && tot > 0; i++)
            out->node_share[i] = out->sim.nodes[i].time_s / tot;
    }
    out->throughput = out->latency_ms > 0 ? (double)batch * 1000.0 / out->latency_ms : 0;
    out->energy_mj_per_sample = batch > 0 ? out->energy_j * 1000.0 / (double)batch : 0;
    out->capacity_mib = hw.mem_bytes / (1024.0 * 1024.0);
    return ST_OK;
}

void prediction_fini(struct prediction *out)
{
    if (!out)
        return;
    sim_result_fini(&out->sim);
    free(out->node_share);
    out->node_share = NULL;
}
