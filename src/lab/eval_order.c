/* eval_order.c - ordering properties of a predictor over a configuration
 * grid (eval.h, eval_order_run). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab/eval.h"
#include "core/gpu.h"
#include "core/predict.h"
#include "graph/ops/shape.h"
#include "util/xalloc.h"
#include "graph/zoo/zoo.h"

static const struct {
    const char *name, *desc;
} orders[EVAL_ORDER__COUNT] = {
#define X(id, name, desc) {name, desc},
    EVAL_ORDER_LIST(X)
#undef X
};

const char *eval_order_name(int k)
{
    return k >= 0 && k < EVAL_ORDER__COUNT ? orders[k].name : "?";
}

const char *eval_order_desc(int k)
{
    return k >= 0 && k < EVAL_ORDER__COUNT ? orders[k].desc : "?";
}

static bool in_list(const char *list, const char *name)
{
    size_t l = strlen(name);
    for (const char *q = list; *q;) {
        const char *c = strchr(q, ',');
        size_t n = c ? (size_t)(c - q) : strlen(q);
        if (n == l && strncmp(q, name, l) == 0)
            return true;
        if (!c)
            break;
        q = c + 1;
    }
    return false;
}

/* One hardware target of the grid: a whole GPU or one MIG slice. */
struct hwcfg {
    int gpu, mig;
};

/* The grid's latencies and memory figures of one graph:
 * [batch][hw][prec][rt], NAN where the configuration is not supported or
 * could not be predicted. */
struct grid {
    int nb, nh;
    struct hwcfg *hw;
    double *gnn, *teacher, *gnn_mem, *teacher_mem;
};

/* The grid holds the runtimes the GNN was trained on (RT__FEATURED): a
 * later runtime's GNN figure is an extrapolation, not an ordering the
 * weights are held to. */
static size_t gidx(const struct grid *G, int b, int h, int p, int r)
{
    return (((size_t)b * G->nh + h) * PREC__COUNT + p) * RT__FEATURED + r;
}

/* Lower-precision pairs: (slower, faster). */
static const int prec_pairs[][2] = {
    {PREC_FP32, PREC_TF32}, {PREC_TF32, PREC_FP16}, {PREC_TF32, PREC_BF16},
    {PREC_FP16, PREC_INT8}, {PREC_BF16, PREC_INT8}, {PREC_FP16, PREC_FP8},
    {PREC_BF16, PREC_FP8},
};

/* Counts one ordered pair: `hi` is the configuration expected to be slower
 * or equal, `lo` the one expected to be faster or equal; a violation is
 * lo > hi (1 + tol), for the GNN's and for the teacher's latencies. */
static void count_pair(struct eval_order *o, int kind, double hi_g, double lo_g, double hi_t,
                       double lo_t, double tol)
{
    if (isnan(hi_g) || isnan(lo_g) || isnan(hi_t) || isnan(lo_t))
        return;
    struct eval_order_count *c = &o->kind[kind];
    c->pairs++;
    double eg = lo_g / hi_g - 1, et = lo_t / hi_t - 1;
    if (eg > tol) {
        c->gnn++;
        if (eg > c->gnn_worst)
            c->gnn_worst = eg;
    }
    if (et > tol) {
        c->teacher++;
        if (et > c->teacher_worst)
            c->teacher_worst = et;
    }
}

static void count_grid(const struct grid *G, const int *batches, double tol, struct eval_order *o)
{
#define LAT(arr, b, h, p, r) (G->arr[gidx(G, b, h, p, r)])
#define PAIR(kind, b1, h1, p1, r1, b2, h2, p2, r2)                                               \
    count_pair(o, kind, LAT(gnn, b1, h1, p1, r1), LAT(gnn, b2, h2, p2, r2),                      \
               LAT(teacher, b1, h1, p1, r1), LAT(teacher, b2, h2, p2, r2), tol)
    for (int b = 0; b < G->nb; b++)
        for (int h = 0; h < G->nh; h++)
            for (int p = 0; p < PREC__COUNT; p++)
                for (int r = 0; r < RT__FEATURED; r++) {
                    /* A bigger batch is not faster (per batch). */
                    if (b + 1 < G->nb && batches[b + 1] > batches[b]) {
                        PAIR(EVAL_ORDER_BATCH, b + 1, h, p, r, b, h, p, r);
                        size_t hi = gidx(G, b + 1, h, p, r), lo = gidx(G, b, h, p, r);
                        count_pair(o, EVAL_ORDER_MEM_BATCH, G->gnn_mem[hi], G->gnn_mem[lo],
                                   G->teacher_mem[hi], G->teacher_mem[lo], tol);
                    }
                    for (int h2 = 0; h2 < G->nh; h2++) {
                        if (G->hw[h2].gpu == G->hw[h].gpu &&
                            gpu_slice_bigger(G->hw[h].gpu, G->hw[h2].mig, G->hw[h].mig))
                            PAIR(EVAL_ORDER_SLICE, b, h, p, r, b, h2, p, r);
                        if (G->hw[h].mig < 0 && G->hw[h2].mig < 0 &&
                            gpu_newer(G->hw[h2].gpu, G->hw[h].gpu, (enum precision)p))
                            PAIR(EVAL_ORDER_GPU, b, h, p, r, b, h2, p, r);
                    }
                    for (size_t k = 0; k < sizeof prec_pairs / sizeof prec_pairs[0]; k++)
                        if (prec_pairs[k][0] == p)
                            PAIR(EVAL_ORDER_PRECISION, b, h, p, r, b, h, prec_pairs[k][1], r);
                    /* pytorch >= pytorch-sdpa (fused attention) >= tensorrt
                     * >= tensorrt-graph; tensorrt >= vllm (the same kernels
                     * replayed as CUDA graphs; its host work per sequence is
                     * in generation only) */
                    if (r == RT_PYTORCH)
                        PAIR(EVAL_ORDER_RUNTIME, b, h, p, r, b, h, p, RT_PYTORCH_SDPA);
                    if (r == RT_PYTORCH_SDPA)
                        PAIR(EVAL_ORDER_RUNTIME, b, h, p, r, b, h, p, RT_TENSORRT);
                    if (r == RT_TENSORRT) {
                        PAIR(EVAL_ORDER_RUNTIME, b, h, p, r, b, h, p, RT_TENSORRT_GRAPH);
                        PAIR(EVAL_ORDER_RUNTIME, b, h, p, r, b, h, p, RT_VLLM);
                    }
                }
#undef PAIR
#undef LAT
}

/* Predicts every configuration of the grid for g. */
static enum status fill_grid(struct predictor *p, struct graph *g, const int *batches,
                             struct grid *G, struct diag *d)
{
    for (int b = 0; b < G->nb; b++)
        for (int h = 0; h < G->nh; h++)
            for (int pr = 0; pr < PREC__COUNT; pr++)
                for (int r = 0; r < RT__FEATURED; r++) {
                    size_t i = gidx(G, b, h, pr, r);
                    G->gnn[i] = G->teacher[i] = G->gnn_mem[i] = G->teacher_mem[i] = NAN;
                    struct config cfg = {.gpu = G->hw[h].gpu, .mig = G->hw[h].mig,
                                         .prec = (enum precision)pr, .rt = (enum runtime)r,
                                         .batch = batches[b]};
                    if (config_supported(&cfg, NULL) != ST_OK)
                        continue;
                    struct prediction out;
                    struct diag pd = {0};
                    enum status st = predict_run(p, g, &cfg, &out, &pd);
                    if (st == ST_OK) {
                        G->gnn[i] = out.latency_ms;
                        G->teacher[i] = out.sim.latency_ms;
                        G->gnn_mem[i] = out.memory_mib;
                        G->teacher_mem[i] = out.sim.memory_mib;
                    }
                    prediction_fini(&out);
                    if (st == ST_ENOMEM) {
                        diag_set(d, st, "%s", pd.msg);
                        return st;
                    }
                }
    return ST_OK;
}

enum status eval_order_run(struct predictor *p, const char *families, double tol,
                           struct eval_order *o, struct diag *d)
{
    memset(o, 0, sizeof *o);
    o->tol = tol;
    struct grid G = {0};
    int batches[11];
    for (int i = 0; i < 11; i++)
        batches[i] = 1 << i; /* 1 .. 1024 */
    G.hw = xmalloc(sizeof *G.hw * 256);
    for (int gi = 0; gi < gpu_count() && G.nh < 256; gi++) {
        const struct gpu_spec *gs = gpu_get(gi);
        G.hw[G.nh++] = (struct hwcfg){gi, -1};
        for (int m = 0; m < gs->n_mig && G.nh < 256; m++)
            if (!gs->mig[m].media) /* "+me" slices have their base's resources */
                G.hw[G.nh++] = (struct hwcfg){gi, m};
    }
    size_t cells = (size_t)11 * G.nh * PREC__COUNT * RT__FEATURED;
    G.gnn = xmalloc(sizeof(double) * cells);
    G.teacher = xmalloc(sizeof(double) * cells);
    G.gnn_mem = xmalloc(sizeof(double) * cells);
    G.teacher_mem = xmalloc(sizeof(double) * cells);
    enum status st = ST_OK;
    for (int f = 0; f < zoo_family_count() && !st; f++) {
        const char *name = zoo_family_name(f);
        if (families && !in_list(families, name))
            continue;
        char spec[96];
        snprintf(spec, sizeof spec, "zoo:%s", name);
        struct diag gd = {0};
        struct graph *g = zoo_build_spec(spec, &gd);
        if (!g) {
            st = diag_set(d, gd.code, "%s: %s", spec, gd.msg);
            break;
        }
        G.nb = graph_batch_sym(g) >= 0 ? 11 : 1;
        st = fill_grid(p, g, batches, &G, d);
        if (!st) {
            count_grid(&G, batches, tol, o);
            o->n_graphs++;
        }
        graph_free(g);
    }
    free(G.hw);
    free(G.gnn);
    free(G.teacher);
    free(G.gnn_mem);
    free(G.teacher_mem);
    if (!st && o->n_graphs == 0)
        st = diag_set(d, ST_EUSAGE, "no zoo family matches '%s'", families ? families : "");
    return st;
}
