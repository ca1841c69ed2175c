/* bench_ref.c - the C side of the reference comparisons of `make bench`
 * (tests/bench/ref_*.py hold the Python side). Two modes:
 *
 *   bench_ref onnx SAMPLES_DIR TSV_OUT [FULL.onnx]
 *       times onnx_load_file, and onnx_load_file + graph_infer, on every
 *       .onnx file in SAMPLES_DIR (and FULL, a full-weight export) and
 *       writes TSV rows "onnx_load" / "onnx_load_infer" (bench_common.h).
 *
 *   bench_ref gnn WEIGHTS.dpw SAMPLES_DIR OUT.bin
 *       for graphs of 101 to 7,073 nodes computes the GNN's inputs exactly as
 *       predict_run does (teacher anchor, features, normalisation, adjacency), runs
 *       gnn_forward and writes inputs, outputs and timings to OUT.bin for
 *       ref_gnn_torch.py, which recomputes the forward in PyTorch from the
 *       same .dpw file and compares.
 *
 *   bench_ref gnn-check OUT.bin OUT.dpw [WEIGHTS.dpw]
 *       the same export for the four smallest graphs without timing, with
 *       WEIGHTS or a random model, which is saved to OUT.dpw (the test
 *       tests/bench/check_gnn_torch.sh of make check). Export format (little-endian):
 *         "DPBREF1\0", u32 n_graphs, then per graph:
 *         u32 label_len, label, i32 N, fn, fg,
 *         f32 xn[N*fn] (normalised), f32 xg[fg] (normalised), f32 anchor[3],
 *         f32 w0[N] (teacher shares),
 *         i32 pred_off[N+1], i32 pred[pred_off[N]],
 *         i32 succ_off[N+1], i32 succ[succ_off[N]],
 *         f32 out[3] (log outputs), f32 share[N],
 *         f64 forward wall/CPU median ms, f64 features+adjacency+forward
 *         wall/CPU median ms (the node rows cached from the run before, as
 *         when the same graph is predicted again), f64 the same with every
 *         node row made afresh wall/CPU median ms (the teacher's run is not
 *         included: predict_run does it anyway, for the roofline bound and
 *         the bound classes).
 * One core: run with OPENBLAS_NUM_THREADS=1. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "core/gnn.h"
#include "core/gnn_features.h"
#include "core/gpu.h"
#include "graph/load.h"
#include "graph/onnx/onnx_load.h"
#include "graph/ops/shape.h"
#include "core/sim.h"
#include "core/weights.h"
#include "util/xalloc.h"

/* ---- ONNX load ------------------------------------------------------- */

struct lctx {
    const char *path;
    bool infer;
    struct diag d;
};

static int run_load(void *v)
{
    struct lctx *c = v;
    struct graph *g = onnx_load_file(c->path, &c->d);
    if (!g)
        return 1;
    int rc = c->infer && graph_infer(g, &c->d) ? 1 : 0;
    graph_free(g);
    return rc;
}

static int bench_one_load(FILE *tsv, const char *path, const char *label, int reps)
{
    struct lctx c = {path, false, {0}};
    struct diag d = {0};
    struct graph *g = onnx_load_file(path, &d);
    if (!g) {
        fprintf(stderr, "bench_ref: %s\n", d.msg);
        return 1;
    }
    int nodes = g->n_nodes;
    graph_free(g);
    struct bstats s;
    for (int infer = 0; infer < 2; infer++) {
        c.infer = infer;
        if (bench_run(run_load, &c, reps, 4 * reps, 0.3, &s)) {
            fprintf(stderr, "bench_ref: %s\n", c.d.msg);
            return 1;
        }
        printf("  %-26s %-12s %5d nodes ", label, infer ? "load+infer" : "load", nodes);
        bench_print(stdout, &s);
        putchar('\n');
        bench_tsv(tsv, infer ? "onnx_load_infer" : "onnx_load", label, nodes, &s);
    }
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int mode_onnx(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: bench_ref onnx SAMPLES_DIR TSV_OUT [FULL.onnx]\n");
        return 2;
    }
    FILE *tsv = fopen(argv[3], "w");
    if (!tsv) {
        perror(argv[3]);
        return 1;
    }
    DIR *dir = opendir(argv[2]);
    if (!dir) {
        perror(argv[2]);
        return 1;
    }
    char *names[256];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) && n < 256) {
        size_t l = strlen(e->d_name);
        if (l > 5 && !strcmp(e->d_name + l - 5, ".onnx"))
            names[n++] = strdup(e->d_name);
    }
    closedir(dir);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    printf("ONNX load (onnx_load_file), and load + shape inference/cost (graph_infer)\n");
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", argv[2], names[i]);
        rc |= bench_one_load(tsv, path, names[i], 15);
        free(names[i]);
    }
    if (argc > 4)
        rc |= bench_one_load(tsv, argv[4], "resnet50 full weights", 5);
    fclose(tsv);
    return rc;
}

/* ---- GNN forward export ---------------------------------------------- */

struct gctx {
    const struct gnn_model *m;
    const struct graph *g;
    const struct config *cfg;
    const struct hw *hw;
    const struct sim_result *sr;
    struct gnn_features_cache fc;
    const struct gnn_batch *b;
    struct gnn_work w;
};

/* What predict.c's run_gnn does before gnn_forward. */
static void prepare(struct gctx *c)
{
    c->b = gnn_features_batch(&c->fc, c->m, c->g, c->cfg, c->hw, c->sr);
}

/* The forward alone, its classes built every time. */
static int run_forward(void *v)
{
    struct gctx *c = v;
    gnn_forward(c->m, c->b, &c->w);
    return 0;
}

/* Features + forward as a repeated prediction of the same graph and
 * configuration runs them: the node rows come from the cache, and the
 * forward reuses the classes of the run before (the same key). */
static int run_full(void *v)
{
    struct gctx *c = v;
    prepare(c);
    gnn_forward_keyed(c->m, c->b, c->fc.key, &c->w);
    return 0;
}

/* The same with every node row made afresh (the cache emptied first), as
 * for a graph or configuration not predicted before. */
static int run_cold(void *v)
{
    struct gctx *c = v;
    gnn_features_cache_clear(&c->fc);
    return run_full(c);
}

static void put(FILE *f, const void *p, size_t size, size_t n)
{
    if (n && fwrite(p, size, n, f) != n) {
        perror("bench_ref: write");
        exit(1);
    }
}

static void put_i32(FILE *f, int32_t v)
{
    put(f, &v, sizeof v, 1);
}

static const char *const gnn_graphs[] = {
    "zoo:gpt:layers=3",    "zoo:resnet:depth=50", "zoo:bert",          "zoo:gpt:layers=17",
    "zoo:llama:layers=18", "zoo:llama:layers=36", "zoo:llama:layers=90", "zoo:llama:layers=128",
};
#define N_GNN_GRAPHS (int)(sizeof gnn_graphs / sizeof gnn_graphs[0])

static int export_graph(FILE *f, const struct gnn_model *m, const char *spec, bool timed)
{
    struct diag d = {0};
    struct graph *g = model_load(spec, &d);
    struct config cfg;
    config_default(&cfg);
    struct hw hw;
    struct sim_result sr = {0};
    if (!g || graph_infer(g, &d) || hw_from_config(&cfg, &hw, &d) || sim_run(g, &cfg, &sr, &d)) {
        fprintf(stderr, "bench_ref: %s: %s\n", spec, d.msg);
        sim_result_fini(&sr);
        graph_free(g);
        return 1;
    }
    int n = g->n_nodes;
    struct gctx c = {.m = m, .g = g, .cfg = &cfg, .hw = &hw, .sr = &sr};
    gnn_work_init(&c.w);
    prepare(&c);
    gnn_forward(m, c.b, &c.w);
    const struct gnn_batch *b = c.b;

    uint32_t len = (uint32_t)strlen(spec);
    put(f, &len, 4, 1);
    put(f, spec, 1, len);
    put_i32(f, n);
    put_i32(f, FEAT_NODE_DIM);
    put_i32(f, FEAT_GRAPH_DIM);
    put(f, b->xn, sizeof(float), (size_t)n * FEAT_NODE_DIM);
    put(f, b->xg, sizeof(float), FEAT_GRAPH_DIM);
    put(f, b->anchor, sizeof(float), GNN_T__COUNT);
    put(f, b->w0, sizeof(float), (size_t)n);
    put(f, b->pred_off, sizeof(int), (size_t)n + 1);
    put(f, b->pred, sizeof(int), (size_t)b->pred_off[n]);
    put(f, b->succ_off, sizeof(int), (size_t)n + 1);
    put(f, b->succ, sizeof(int), (size_t)b->succ_off[n]);
    put(f, c.w.out, sizeof(float), GNN_T__COUNT);
    put(f, c.w.p, sizeof(float), (size_t)n);

    struct bstats fw = {0}, full = {0}, cold = {0};
    if (timed) {
        bench_run(run_forward, &c, 10, 500, 0.4, &fw);
        bench_run(run_full, &c, 10, 500, 0.4, &full);
        bench_run(run_cold, &c, 10, 500, 0.4, &cold);
        printf("  %-22s %5d nodes  forward ", spec, n);
        bench_print(stdout, &fw);
        printf("\n  %-22s %5s        +features ", "", "");
        bench_print(stdout, &full);
        printf("\n  %-22s %5s        +features, cold ", "", "");
        bench_print(stdout, &cold);
        putchar('\n');
    }
    double t[6] = {fw.med, fw.cpu_med, full.med, full.cpu_med, cold.med, cold.cpu_med};
    put(f, t, sizeof(double), 6);
    gnn_work_fini(&c.w);
    gnn_features_cache_fini(&c.fc);
    sim_result_fini(&sr);
    graph_free(g);
    return 0;
}

/* Writes the export header and graphs [0, n) of gnn_graphs. */
static int write_export(const char *path, const struct gnn_model *m, int n, bool timed)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        return 1;
    }
    put(f, "DPBREF1", 1, 8);
    uint32_t ng = (uint32_t)n;
    put(f, &ng, 4, 1);
    int rc = 0;
    for (int i = 0; i < n && !rc; i++)
        rc = export_graph(f, m, gnn_graphs[i], timed);
    if (fclose(f)) {
        perror(path);
        rc = 1;
    }
    return rc;
}

static int mode_gnn(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: bench_ref gnn WEIGHTS.dpw SAMPLES_DIR OUT.bin\n");
        return 2;
    }
    struct gnn_model m;
    struct diag d = {0};
    char desc[WEIGHTS_DESC_MAX];
    if (weights_load(argv[2], gnn_features_schema_id(), &m, desc, sizeof desc, &d)) {
        fprintf(stderr, "bench_ref: %s\n", d.msg);
        return 1;
    }
    printf("GNN forward in C (%s: hidden %d, %d layers)\n", argv[2], m.arch.hidden,
           m.arch.layers);
    int rc = write_export(argv[4], &m, N_GNN_GRAPHS, true);
    gnn_model_fini(&m);
    return rc;
}

/* For the test: the four smallest graphs, untimed, with WEIGHTS if given,
 * else a random model (every tensor random, also those a fresh model starts
 * at zero; non-trivial normalisation and bounds) saved to OUT.dpw for the
 * Python side. */
static int mode_check(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: bench_ref gnn-check OUT.bin OUT.dpw [WEIGHTS.dpw]\n");
        return 2;
    }
    struct gnn_model m;
    struct diag d = {0};
    if (argc > 4) {
        if (weights_load(argv[4], gnn_features_schema_id(), &m, NULL, 0, &d)) {
            fprintf(stderr, "bench_ref: %s\n", d.msg);
            return 1;
        }
    } else {
        struct gnn_arch a = {FEAT_NODE_DIM, FEAT_GRAPH_DIM, 24, 3, 16};
        if (gnn_model_alloc(&m, &a, &d)) {
            fprintf(stderr, "bench_ref: %s\n", d.msg);
            return 1;
        }
        gnn_model_init(&m, 7);
        for (int i = 0; i < a.fn; i++) {
            m.node_mean[i] = 0.05f * (float)(i % 7);
            m.node_std[i] = 1.0f + 0.25f * (float)(i % 3);
        }
        for (int i = 0; i < a.fg; i++) {
            m.graph_mean[i] = 0.1f * (float)(i % 5);
            m.graph_std[i] = 2.0f - 0.3f * (float)(i % 4);
        }
        uint64_t s = 99;
        for (size_t k = 0; k < m.n_params; k++)
            if (m.w[k] == 0.0f) {
                s = s * 6364136223846793005ull + 1442695040888963407ull;
                m.w[k] = (float)((double)(s >> 11) / 9007199254740992.0 - 0.5) * 0.06f;
            }
        for (int t = 0; t < GNN_T__COUNT; t++)
            m.bound[t] = 4.0f + (float)t;
        m.node_bound = 3.0f;
    }
    int rc = 0;
    if (weights_save(argv[3], &m, gnn_features_schema_id(), "bench_ref gnn-check", true, &d)) {
        fprintf(stderr, "bench_ref: %s\n", d.msg);
        rc = 1;
    }
    if (!rc)
        rc = write_export(argv[2], &m, 4, false);
    gnn_model_fini(&m);
    return rc;
}

int main(int argc, char **argv)
{
    xalloc_init();
    if (argc > 1 && !strcmp(argv[1], "onnx"))
        return mode_onnx(argc, argv);
    if (argc > 1 && !strcmp(argv[1], "gnn"))
        return mode_gnn(argc, argv);
    if (argc > 1 && !strcmp(argv[1], "gnn-check"))
        return mode_check(argc, argv);
    fprintf(stderr, "usage: bench_ref onnx SAMPLES_DIR TSV_OUT [FULL.onnx]\n"
                    "       bench_ref gnn WEIGHTS.dpw SAMPLES_DIR OUT.bin\n"
                    "       bench_ref gnn-check OUT.bin OUT.dpw [WEIGHTS.dpw]\n");
    return 2;
}
