/* train.c - prepared samples, mini-batches and the training loop. */
#include "lab/train.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "lab/gnn_train.h"
#include "util/datafile.h"
#include "util/fileio.h"
#include "util/fmt.h"
#include "core/gpu.h"
#include "core/predict.h"
#include "graph/load.h"
#include "graph/ops/shape.h"
#include "core/sim.h"
#include "util/xalloc.h"

const char *train_resolve_spec(const char *spec, char *buf, size_t size)
{
    if (strncmp(spec, "zoo:", 4) == 0 || spec[0] == '/' || file_exists(spec))
        return spec;
    if (strncmp(spec, "samples/", 8) == 0 && datafile_find(DATAFILE_SAMPLES, spec + 8, buf, size))
        return buf;
    return spec;
}

/* ---- preparation --------------------------------------------------------- */

static const struct dataset *sort_ds; /* qsort context (single-threaded use) */

static int cmp_row_spec(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    int c = strcmp(sort_ds->rows[x].spec, sort_ds->rows[y].spec);
    return c ? c : (x > y) - (x < y);
}

/* Inputs of g under cfg with the batch bound (features, teacher anchor);
 * targets are left missing. */
static enum status prepare_sample(struct graph *g, int adj, const struct config *cfg, int ri,
                                  struct train_sample *s, struct diag *d)
{
    struct hw hw;
    enum status st = predict_prepare(g, cfg, &hw, d);
    if (st)
        return st;
    struct sim_result sr;
    if ((st = sim_run(g, cfg, &sr, d)) || (st = predict_teacher_check(g, &sr, d))) {
        sim_result_fini(&sr);
        return st;
    }
    memset(s, 0, sizeof *s);
    s->row = ri;
    s->n = g->n_nodes;
    s->adj = adj;
    s->xn = xmalloc(sizeof(float) * (size_t)(s->n ? s->n : 1) * FEAT_NODE_DIM);
    s->w0 = xmalloc(sizeof(float) * (size_t)(s->n ? s->n : 1));
    for (int i = 0; i < s->n; i++)
        gnn_features_node(g, i, cfg, &hw, &sr, s->xn + (size_t)i * FEAT_NODE_DIM);
    gnn_features_graph(g, cfg, &hw, &sr, s->xg);
    gnn_features_anchor(&sr, s->n, s->w0, s->anchor);
    sim_result_fini(&sr);
    for (int t = 0; t < GNN_T__COUNT; t++)
        s->y[t] = NAN;
    return ST_OK;
}

static void sample_free(struct train_sample *s)
{
    free(s->xn);
    free(s->w0);
    free(s->share);
    if (s->partner) {
        sample_free(s->partner);
        free(s->partner);
    }
}

static enum status prepare_row(struct graph *g, int adj, const struct dataset_row *r, int ri,
                               struct train_sample *s, struct diag *d)
{
    struct config cfg;
    enum status st = dataset_row_config(r, &cfg, d);
    if (st)
        return st;
    cfg.batch = r->batch;
    if (r->n_shares && r->n_shares != g->n_nodes)
        return diag_set(d, ST_EPARSE,
                        "%d node shares but the model has %d nodes (the dataset was made from a "
                        "different version of the model; regenerate it)",
                        r->n_shares, g->n_nodes);
    if ((st = prepare_sample(g, adj, &cfg, ri, s, d)))
        return st;
    s->measured = r->label == DATASET_MEASURED;
    for (int t = 0; t < GNN_T__COUNT; t++)
        s->y[t] = isnan(r->target[t]) ? NAN : (float)log(r->target[t]);
    if (r->n_shares) {
        s->share = xmalloc(sizeof(float) * (size_t)s->n);
        double sum = 0;
        for (int i = 0; i < s->n; i++)
            sum += r->shares[i];
        for (int i = 0; i < s->n; i++)
            s->share[i] = sum > 0 ? (float)(r->shares[i] / sum) : 0;
        if (!(sum > 0)) {
            free(s->share);
            s->share = NULL;
        }
    }
    return ST_OK;
}

/* The smallest MIG slice of cfg's GPU bigger than cfg's (or -2: none). */
static int next_slice(const struct config *cfg)
{
    const struct gpu_spec *g = gpu_get(cfg->gpu);
    int best = -2;
    for (int m = 0; m < g->n_mig; m++)
        if (gpu_slice_bigger(cfg->gpu, m, cfg->mig) &&
            (best == -2 || gpu_slice_bigger(cfg->gpu, best, m)))
            best = m;
    return best;
}

/* A GPU that dominates cfg's whole GPU at its precision (pick-th of them,
 * cycling), or -1. */
static int newer_gpu(const struct config *cfg, int pick)
{
    int n = 0, found[16];
    for (int i = 0; i < gpu_count() && n < 16; i++)
        if (gpu_newer(i, cfg->gpu, cfg->prec))
            found[n++] = i;
    return n ? found[pick % n] : -1;
}

/* The ordered properties a partner changes. */
enum pkind {
    PK_BATCH,     /* half the batch */
    PK_WHOLE,     /* the whole GPU instead of a slice */
    PK_SLICE,     /* the next bigger slice */
    PK_PREC_DOWN, /* the next lower precision */
    PK_PREC,      /* the next lower or (kind & 2) the next higher precision */
    PK_TRT,       /* TensorRT instead of eager */
    PK_RT,        /* the next faster runtime: eager -> fused attention -> TensorRT ->
                     TensorRT replayed as a CUDA graph */
    PK_GPU,       /* a newer GPU */
};

/* Changes out (a copy of cfg) along property pk; false if it does not
 * apply. *slower: the partner should not be faster (a higher precision). */
static bool apply_kind(const struct graph *g, const struct config *cfg, enum pkind pk, int kind,
                       struct config *out, bool *slower)
{
    static const enum precision lower[PREC__COUNT][2] = {
        [PREC_FP32] = {PREC_TF32, PREC_TF32}, [PREC_TF32] = {PREC_FP16, PREC_BF16},
        [PREC_FP16] = {PREC_INT8, PREC_FP8},  [PREC_BF16] = {PREC_INT8, PREC_FP8},
        [PREC_INT8] = {PREC_INT8, PREC_INT8}, [PREC_FP8] = {PREC_FP8, PREC_FP8}};
    static const enum precision higher[PREC__COUNT] = {
        [PREC_FP32] = PREC_FP32, [PREC_TF32] = PREC_FP32, [PREC_FP16] = PREC_TF32,
        [PREC_BF16] = PREC_TF32, [PREC_INT8] = PREC_FP16, [PREC_FP8] = PREC_FP16};
    static const enum runtime faster_rt[RT__COUNT] = {
        [RT_PYTORCH] = RT_PYTORCH_SDPA, [RT_PYTORCH_SDPA] = RT_TENSORRT,
        [RT_TENSORRT] = RT_TENSORRT_GRAPH, [RT_TENSORRT_GRAPH] = RT_TENSORRT_GRAPH,
        [RT_VLLM] = RT_VLLM, [RT_INDUCTOR] = RT_INDUCTOR_GRAPH,
        [RT_INDUCTOR_GRAPH] = RT_INDUCTOR_GRAPH, [RT_ONNXRUNTIME] = RT_ONNXRUNTIME_GRAPH,
        [RT_ONNXRUNTIME_GRAPH] = RT_ONNXRUNTIME_GRAPH};
    *out = *cfg;
    *slower = false;
    switch (pk) {
    case PK_BATCH:
        out->batch = cfg->batch / 2;
        return graph_batch_sym(g) >= 0 && cfg->batch >= 2;
    case PK_WHOLE:
        out->mig = -1;
        return cfg->mig >= 0;
    case PK_SLICE:
        return cfg->mig >= 0 && (out->mig = next_slice(cfg)) != -2;
    case PK_PREC:
        *slower = kind & 2;
        out->prec = *slower ? higher[cfg->prec] : lower[cfg->prec][kind & 1];
        return out->prec != cfg->prec;
    case PK_PREC_DOWN:
        out->prec = lower[cfg->prec][kind & 1];
        return out->prec != cfg->prec;
    case PK_TRT:
        out->rt = RT_TENSORRT;
        return !runtime_engine(cfg->rt);
    case PK_RT:
        out->rt = faster_rt[cfg->rt];
        return out->rt != cfg->rt;
    default:
        return cfg->mig < 0 && (out->gpu = newer_gpu(cfg, kind)) >= 0;
    }
}

/* The partner kinds: basic (the default of dippm train) and all. */
static const enum pkind basic_kinds[] = {PK_BATCH, PK_WHOLE, PK_PREC_DOWN, PK_TRT};
static const enum pkind all_kinds_list[] = {PK_BATCH, PK_WHOLE, PK_SLICE,
                                            PK_PREC,  PK_RT,    PK_GPU};

/* The configuration that differs from cfg in one property of kinds[] and
 * is supported, trying kinds[kind % n] first. False if none applies. */
static bool find_partner(const struct graph *g, const struct config *cfg, const enum pkind *kinds,
                         int n, int kind, struct config *out, bool *slower)
{
    for (int k = 0; k < n; k++)
        if (apply_kind(g, cfg, kinds[(kind + k) % n], kind, out, slower) &&
            config_supported(out, NULL) == ST_OK)
            return true;
    return false;
}

/* Attaches to s (row r, graph g) a partner configuration for the ordering
 * penalty, when the teacher itself keeps the ordering (the anchor latency
 * of the partner not above the row's, or not below it for a slower one). */
static void prepare_partner(struct graph *g, int adj, const struct dataset_row *r, int ri,
                            bool all_kinds, struct train_sample *s)
{
    struct config cfg, pc;
    if (dataset_row_config(r, &cfg, NULL))
        return;
    cfg.batch = r->batch;
    uint64_t h = (uint64_t)ri * 0x9e3779b97f4a7c15ull;
    bool slower = false, found;
    if (all_kinds) {
        int n = (int)(sizeof all_kinds_list / sizeof all_kinds_list[0]);
        int kind = (int)((h >> 40) % (uint64_t)(n * 4));
        /* the lowest precisions pair with the next higher one first: nothing
         * else holds them to the order of the precisions they beat */
        if (cfg.prec == PREC_INT8 || cfg.prec == PREC_FP8)
            kind = 3;
        found = find_partner(g, &cfg, all_kinds_list, n, kind, &pc, &slower);
    } else {
        found = find_partner(g, &cfg, basic_kinds, 4, (int)(h >> 60) & 3, &pc, &slower);
    }
    if (!found)
        return;
    struct train_sample *p = xcalloc(1, sizeof *p);
    struct diag pd = {0};
    bool bad = prepare_sample(g, adj, &pc, ri, p, &pd) != ST_OK;
    if (!bad) { /* only pairs whose order the teacher keeps */
        double pa = p->anchor[GNN_T_LATENCY], sa = s->anchor[GNN_T_LATENCY];
        bad = slower ? !(sa <= pa) : !(pa <= sa);
    }
    if (bad) {
        sample_free(p);
        free(p);
        return;
    }
    s->partner = p;
    s->partner_slower = slower;
}

/* True for the rows (a hashed fraction frac) that get an ordering partner. */
static bool gets_partner(int ri, double frac)
{
    uint64_t z = (uint64_t)ri * 0xbf58476d1ce4e5b9ull + 0x94d049bb133111ebull;
    z ^= z >> 31;
    z *= 0x9e3779b97f4a7c15ull;
    return (double)(z >> 11) * (1.0 / 9007199254740992.0) < frac;
}

/* What the prepared rows' features may take: three quarters of the smaller
 * of the machine's memory and the address-space limit (ulimit -v); the
 * rest is the graphs' and the model's. Every row is kept for the
 * epochs, so a dataset past it is refused before it is built, not left to
 * the out-of-memory killer. */
static double feature_budget(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    double mem = pages > 0 && psize > 0 ? (double)pages * (double)psize : 1e18;
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        (double)rl.rlim_cur < mem)
        mem = (double)rl.rlim_cur;
    return mem * 0.75;
}

/* ST_ENOMEM when row ri's sample (and its partner's) would take the
 * prepared features past budget; *used grows by its share otherwise. */
static enum status feature_room(const struct graph *g, const struct dataset_row *r, int ri,
                                bool partner, double budget, double *used, struct diag *d)
{
    /* the raw rows and, as much again, their normalised copy in a
     * mini-batch and the layers' activations (measured: 10 rows of a
     * 100,000-node chain, 260 bytes of raw features a node, peak at
     * 650 MB in dippm eval; 200 sampled rows train in 74 MB) */
    double need = 2.0 * (double)g->n_nodes * (double)(sizeof(float) * (FEAT_NODE_DIM + 2)) *
                  (partner ? 2 : 1);
    if (*used + need <= budget) {
        *used += need;
        return ST_OK;
    }
    char a[16], b[16];
    return diag_set(d, ST_ENOMEM, "row %d (%s, %d nodes): the rows' features would take more "
                    "than %s, the most dippm keeps (3/4 of the memory or of ulimit -v; %s "
                    "so far): train or evaluate on fewer rows or smaller models",
                    ri + 1, r->spec, g->n_nodes, fmt_bytes(budget, a, sizeof a),
                    fmt_bytes(*used, b, sizeof b));
}

enum status train_prepare(const struct dataset *ds, struct train_set *ts, double pair_frac,
                          bool all_kinds, bool progress, struct diag *d)
{
    memset(ts, 0, sizeof *ts);
    if (ds->n == 0)
        return diag_set(d, ST_EUSAGE, "the dataset has no rows");
    int *order = xmalloc(sizeof(int) * (size_t)ds->n);
    for (int i = 0; i < ds->n; i++)
        order[i] = i;
    sort_ds = ds;
    qsort(order, (size_t)ds->n, sizeof(int), cmp_row_spec);
    ts->s = xcalloc((size_t)ds->n, sizeof *ts->s);
    enum status st = ST_OK;
    struct graph *g = NULL;
    const char *cur = NULL;
    int adj_cap = 0;
    double budget = feature_budget(), used = 0;
    for (int k = 0; k < ds->n && !st; k++) {
        const struct dataset_row *r = &ds->rows[order[k]];
        if (!cur || strcmp(cur, r->spec) != 0) {
            graph_free(g);
            char buf[DATASET_SPEC_MAX + 512];
            struct diag gd = {0};
            g = model_load(train_resolve_spec(r->spec, buf, sizeof buf), &gd);
            if (!g) {
                st = diag_set(d, gd.code, "row %d: %s", order[k] + 1, gd.msg);
                break;
            }
            cur = r->spec;
            if (ts->n_adj == adj_cap) {
                adj_cap = adj_cap ? adj_cap * 2 : 64;
                ts->adj = xreallocarray(ts->adj, (size_t)adj_cap, sizeof *ts->adj);
            }
            memset(&ts->adj[ts->n_adj], 0, sizeof ts->adj[0]);
            gnn_features_adj_build(g, &ts->adj[ts->n_adj++]);
        }
        bool partner = gets_partner(order[k], pair_frac);
        if ((st = feature_room(g, r, order[k], partner, budget, &used, d)))
            break;
        struct diag rd = {0};
        st = prepare_row(g, ts->n_adj - 1, r, order[k], &ts->s[ts->n], &rd);
        if (st) {
            diag_set(d, st, "row %d (%s, batch %lld): %s", order[k] + 1, r->spec,
                     (long long)r->batch, rd.msg);
            break;
        }
        if (partner) {
            prepare_partner(g, ts->n_adj - 1, r, order[k], all_kinds, &ts->s[ts->n]);
            ts->n_partners += ts->s[ts->n].partner != NULL;
        }
        ts->total_nodes += ts->s[ts->n].n;
        ts->n++;
        if (progress && ts->n % 2000 == 0)
            fprintf(stderr, "dippm: prepared %d/%d rows\n", ts->n, ds->n);
    }
    graph_free(g);
    free(order);
    /* Back to dataset order so splits and shuffles do not depend on sorting. */
    if (!st) {
        struct train_sample *byrow = xcalloc((size_t)ds->n, sizeof *byrow);
        for (int i = 0; i < ts->n; i++)
            byrow[ts->s[i].row] = ts->s[i];
        free(ts->s);
        ts->s = byrow;
    } else {
        train_set_fini(ts);
    }
    return st;
}

void train_set_fini(struct train_set *ts)
{
    if (!ts)
        return;
    for (int i = 0; i < ts->n; i++)
        sample_free(&ts->s[i]);
    free(ts->s);
    for (int i = 0; i < ts->n_adj; i++)
        gnn_features_adj_fini(&ts->adj[i]);
    free(ts->adj);
    memset(ts, 0, sizeof *ts);
}

void train_opts_default(struct train_opts *o)
{
    memset(o, 0, sizeof *o);
    /* Chosen on a 2,000-row pilot: a narrow model trained for more steps beat
     * a 64-wide one at equal CPU time (13% vs 22% latency MAPE). */
    o->epochs = 30;
    o->batch_graphs = 8;
    o->lr = 3e-3f;
    o->share_weight = 0.2f;
    o->teacher_weight = (float)TRAIN_DEFAULT_TEACHER_WEIGHT;
    o->order_weight = (float)TRAIN_DEFAULT_ORDER_WEIGHT;
    o->seed = TRAIN_DEFAULT_SEED;
    o->only_target = -1;
    o->arch = (struct gnn_arch){FEAT_NODE_DIM, FEAT_GRAPH_DIM, 24, 2, 32};
}

/* ---- mini-batches ------------------------------------------------------------ */

struct mb {
    int cap_n, cap_g, cap_e;
    int *goff, *pred_off, *pred, *succ_off, *succ, *pfast, *pslow;
    float *xn, *xg, *y, *share, *w0, *anchor, *wt;
    unsigned char *has_share;
    const struct train_sample **list;
};

static void mb_fini(struct mb *b)
{
    void *ps[] = {b->goff, b->pred_off, b->pred, b->succ_off, b->succ, b->pfast, b->pslow,
                  b->xn, b->xg, b->y, b->share, b->w0, b->anchor, b->wt, b->has_share,
                  (void *)b->list};
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
        free(ps[i]);
}

static void mb_reserve(struct mb *b, int N, int E, int G)
{
    if (N + 1 > b->cap_n) {
        b->cap_n = (N + 1) * 2;
        b->pred_off = xreallocarray(b->pred_off, (size_t)b->cap_n, sizeof(int));
        b->succ_off = xreallocarray(b->succ_off, (size_t)b->cap_n, sizeof(int));
        b->xn = xreallocarray(b->xn, (size_t)b->cap_n * FEAT_NODE_DIM, sizeof(float));
        b->share = xreallocarray(b->share, (size_t)b->cap_n, sizeof(float));
        b->w0 = xreallocarray(b->w0, (size_t)b->cap_n, sizeof(float));
    }
    if (E + 1 > b->cap_e) {
        b->cap_e = (E + 1) * 2;
        b->pred = xreallocarray(b->pred, (size_t)b->cap_e, sizeof(int));
        b->succ = xreallocarray(b->succ, (size_t)b->cap_e, sizeof(int));
    }
    if (G + 1 > b->cap_g) {
        b->cap_g = (G + 1) * 2;
        b->goff = xreallocarray(b->goff, (size_t)b->cap_g, sizeof(int));
        b->pfast = xreallocarray(b->pfast, (size_t)b->cap_g, sizeof(int));
        b->pslow = xreallocarray(b->pslow, (size_t)b->cap_g, sizeof(int));
        b->xg = xreallocarray(b->xg, (size_t)b->cap_g * FEAT_GRAPH_DIM, sizeof(float));
        b->y = xreallocarray(b->y, (size_t)b->cap_g * GNN_T__COUNT, sizeof(float));
        b->anchor = xreallocarray(b->anchor, (size_t)b->cap_g * GNN_T__COUNT, sizeof(float));
        b->wt = xreallocarray(b->wt, (size_t)b->cap_g, sizeof(float));
        b->has_share = xreallocarray(b->has_share, (size_t)b->cap_g, 1);
        b->list = xreallocarray((void *)b->list, (size_t)b->cap_g, sizeof *b->list);
    }
}

/* Assembles samples idx[0..n) into b/gb/tg with m's normalisation; teacher
 * rows get loss weight teacher_w. With tg and pairs, the samples' ordering
 * partners are appended as extra graphs (no targets) with their pairs. */
static void mb_build(struct mb *b, const struct gnn_model *m, const struct train_set *ts,
                     const int *idx, int n, float teacher_w, bool pairs, struct gnn_batch *gb,
                     struct gnn_targets *tg)
{
    int G = n, np = 0;
    mb_reserve(b, 0, 0, 2 * n);
    for (int k = 0; k < n; k++)
        b->list[k] = &ts->s[idx[k]];
    for (int k = 0; k < n && pairs; k++)
        if (b->list[k]->partner) {
            bool up = b->list[k]->partner_slower;
            b->pfast[np] = up ? k : G;
            b->pslow[np++] = up ? G : k;
            b->list[G++] = b->list[k]->partner;
        }
    int N = 0, E = 0;
    for (int k = 0; k < G; k++) {
        N += b->list[k]->n;
        E += ts->adj[b->list[k]->adj].pred_off[b->list[k]->n];
    }
    mb_reserve(b, N, E, G);
    int no = 0, ep = 0, es = 0;
    for (int k = 0; k < G; k++) {
        const struct train_sample *s = b->list[k];
        const struct gnn_features_adj *a = &ts->adj[s->adj];
        b->goff[k] = no;
        memcpy(b->xn + (size_t)no * FEAT_NODE_DIM, s->xn,
               sizeof(float) * (size_t)s->n * FEAT_NODE_DIM);
        memcpy(b->xg + (size_t)k * FEAT_GRAPH_DIM, s->xg, sizeof(float) * FEAT_GRAPH_DIM);
        memcpy(b->y + (size_t)k * GNN_T__COUNT, s->y, sizeof s->y);
        memcpy(b->anchor + (size_t)k * GNN_T__COUNT, s->anchor, sizeof s->anchor);
        b->wt[k] = s->measured ? 1.0f : teacher_w;
        b->has_share[k] = s->share != NULL;
        memcpy(b->w0 + no, s->w0, sizeof(float) * (size_t)s->n);
        for (int i = 0; i < s->n; i++) {
            b->share[no + i] = s->share ? s->share[i] : 0;
            b->pred_off[no + i] = ep;
            for (int e = a->pred_off[i]; e < a->pred_off[i + 1]; e++)
                b->pred[ep++] = no + a->pred[e];
            b->succ_off[no + i] = es;
            for (int e = a->succ_off[i]; e < a->succ_off[i + 1]; e++)
                b->succ[es++] = no + a->succ[e];
        }
        no += s->n;
    }
    b->goff[G] = no;
    b->pred_off[no] = ep;
    b->succ_off[no] = es;
    gnn_normalize_nodes(m, b->xn, (size_t)no);
    gnn_normalize_graph(m, b->xg, (size_t)G);
    *gb = (struct gnn_batch){G, no, b->goff, b->xn, b->xg, b->pred_off, b->pred, b->succ_off,
                             b->succ, b->w0, b->anchor};
    if (tg)
        *tg = (struct gnn_targets){b->y, b->wt, b->share, b->has_share, 0, np, b->pfast,
                                   b->pslow, 0};
}

/* ---- statistics ------------------------------------------------------------------ */

static void feature_stats(struct gnn_model *m, const struct train_set *ts, const int *idx,
                          int n)
{
    int fn = m->arch.fn, fg = m->arch.fg;
    double *sn = xcalloc((size_t)fn * 2, sizeof(double));
    double *sg = xcalloc((size_t)fg * 2, sizeof(double));
    long nn = 0;
    for (int k = 0; k < n; k++) {
        const struct train_sample *s = &ts->s[idx[k]];
        for (int i = 0; i < s->n; i++)
            for (int f = 0; f < fn; f++) {
                double v = s->xn[(size_t)i * fn + f];
                sn[f] += v;
                sn[fn + f] += v * v;
            }
        nn += s->n;
        for (int f = 0; f < fg; f++) {
            sg[f] += s->xg[f];
            sg[fg + f] += (double)s->xg[f] * s->xg[f];
        }
    }
    for (int f = 0; f < fn; f++) {
        double mu = nn ? sn[f] / nn : 0, var = nn ? sn[fn + f] / nn - mu * mu : 0;
        m->node_mean[f] = (float)mu;
        m->node_std[f] = var > 1e-8 ? (float)sqrt(var) : 1.0f;
    }
    for (int f = 0; f < fg; f++) {
        double mu = n ? sg[f] / n : 0, var = n ? sg[fg + f] / n - mu * mu : 0;
        m->graph_mean[f] = (float)mu;
        m->graph_std[f] = var > 1e-8 ? (float)sqrt(var) : 1.0f;
    }
    free(sn);
    free(sg);
}

/* ---- the loop ------------------------------------------------------------------------- */

static uint64_t rng_step(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

enum status train_fit(struct gnn_model *m, bool fine_tune, const struct train_set *ts,
                      const int *idx, int n_idx, const struct train_opts *o, struct diag *d)
{
    if (n_idx <= 0)
        return diag_set(d, ST_EUSAGE, "no training rows");
    if (!fine_tune) {
        struct gnn_arch a = o->arch;
        a.fn = FEAT_NODE_DIM;
        a.fg = FEAT_GRAPH_DIM;
        enum status st = gnn_model_alloc(m, &a, d);
        if (st)
            return st;
        feature_stats(m, ts, idx, n_idx);
        gnn_model_init(m, o->seed);
    }
    int *perm = xmalloc(sizeof(int) * (size_t)n_idx);
    memcpy(perm, idx, sizeof(int) * (size_t)n_idx);
    float *grad = xmalloc(sizeof(float) * m->n_params);
    struct gnn_adam opt;
    gnn_adam_init(&opt, m->n_params, o->lr);
    struct gnn_work w;
    gnn_work_init(&w);
    struct mb b = {0};
    uint64_t rng = o->seed * 0x2545f4914f6cdd1dull + 7;
    int bg = o->batch_graphs > 0 ? o->batch_graphs : 16;
    /* Teacher rows regularise measured ones (pull the corrections to the
     * teacher) with a lower weight; alone, they are the whole signal. */
    bool any_measured = false;
    for (int k = 0; k < n_idx && !any_measured; k++)
        any_measured = ts->s[idx[k]].measured;
    float teacher_w = any_measured ? o->teacher_weight : 1.0f;
    long steps_per_epoch = (n_idx + bg - 1) / bg, total = steps_per_epoch * o->epochs, step = 0;
    long warm = total / 50 + 1;
    clock_t t0 = clock();
    for (int ep = 0; ep < o->epochs; ep++) {
        for (int i = n_idx - 1; i > 0; i--) { /* Fisher-Yates */
            int j = (int)(rng_step(&rng) % (uint64_t)(i + 1));
            int t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        double sum_reg = 0, sum_sh = 0;
        int nb = 0;
        for (int k = 0; k < n_idx; k += bg, step++) {
            int n = n_idx - k < bg ? n_idx - k : bg;
            struct gnn_batch gb;
            struct gnn_targets tg;
            mb_build(&b, m, ts, perm + k, n, teacher_w, o->order_weight > 0, &gb, &tg);
            tg.share_weight = o->share_weight;
            tg.order_weight = o->order_weight;
            memset(grad, 0, sizeof(float) * m->n_params);
            double reg, sh;
            gnn_loss(m, &gb, &tg, &w, grad, &reg, &sh);
            if (o->only_target >= 0)
                gnn_grad_keep_target(m, o->only_target, grad);
            sum_reg += reg;
            sum_sh += sh;
            nb++;
            double frac = (double)step / (double)(total > 1 ? total : 1);
            double lr = o->lr * (0.02 + 0.98 * 0.5 * (1 + cos(M_PI * frac)));
            if (step < warm)
                lr *= (double)(step + 1) / (double)warm;
            opt.lr = (float)lr;
            gnn_adam_step(&opt, m->w, grad);
        }
        if (o->progress)
            fprintf(stderr, "dippm train: epoch %d/%d  loss %.5f (targets %.5f, shares %.5f)  "
                            "%.0f s\n",
                    ep + 1, o->epochs, (sum_reg + sum_sh) / nb, sum_reg / nb, sum_sh / nb,
                    (double)(clock() - t0) / CLOCKS_PER_SEC);
        for (size_t i = 0; i < m->n_params; i++)
            if (!isfinite(m->w[i])) {
                free(perm);
                free(grad);
                gnn_adam_fini(&opt);
                gnn_work_fini(&w);
                mb_fini(&b);
                return diag_set(d, ST_EINTERNAL, "training diverged at epoch %d (non-finite "
                                "weights); lower --lr", ep + 1);
            }
    }
    free(perm);
    free(grad);
    gnn_adam_fini(&opt);
    gnn_work_fini(&w);
    mb_fini(&b);
    return ST_OK;
}

void train_predict(const struct gnn_model *m, const struct train_set *ts, const int *idx,
                   int n_idx, double *pred)
{
    struct gnn_work w;
    gnn_work_init(&w);
    struct mb b = {0};
    const int bg = 64;
    for (int k = 0; k < n_idx; k += bg) {
        int n = n_idx - k < bg ? n_idx - k : bg;
        struct gnn_batch gb;
        mb_build(&b, m, ts, idx + k, n, 1.0f, false, &gb, NULL);
        gnn_forward(m, &gb, &w);
        for (int g = 0; g < n; g++)
            for (int t = 0; t < GNN_T__COUNT; t++)
                pred[(size_t)(k + g) * GNN_T__COUNT + t] = exp(w.out[g * GNN_T__COUNT + t]);
    }
    gnn_work_fini(&w);
    mb_fini(&b);
}
