/* bench_sweep.c - benchmark (not a test) of the prediction path by graph
 * size, and of a whole batch sweep:
 *
 *   1. shape inference + cost (graph_infer, rebinding the batch between
 *      runs so nothing is reused) per node count;
 *   2. predict_run (shape inference + teacher + features + GNN) per node
 *      count, and the same without weights (teacher only) to isolate the
 *      GNN's share;
 *   3. an 11-point batch sweep (1, 2, 4, ..., 1024) of ResNet-50 and a BERT
 *      encoder: the predict_run loop of `dippm sweep`.
 *
 * Graphs: zoo templates and the real ONNX samples, 101 to 7,073 nodes, plus
 * a 10,003-node residual CNN built with the IR builder (no template reaches
 * 10,000 nodes). Usage: bench_sweep SAMPLES_DIR [TSV_OUT [WEIGHTS]]. Run it
 * with OPENBLAS_NUM_THREADS=1 (one core). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "graph/load.h"
#include "core/predict.h"
#include "graph/ops/shape.h"
#include "util/xalloc.h"

struct gspec {
    const char *label;
    const char *spec; /* zoo spec or sample file name ("@resnet50.onnx"); NULL: synthetic */
};

static const struct gspec graphs[] = {
    {"gpt 3 layers", "zoo:gpt:layers=3"},
    {"resnet50 (sample)", "@resnet50.onnx"},
    {"bert-base (sample)", "@bert_base.onnx"},
    {"gpt 17 layers", "zoo:gpt:layers=17"},
    {"llama 18 layers", "zoo:llama:layers=18"},
    {"llama 36 layers", "zoo:llama:layers=36"},
    {"llama 90 layers", "zoo:llama:layers=90"},
    {"llama 128 layers", "zoo:llama:layers=128"},
    {"resnet-like synthetic", NULL},
};
#define N_GRAPHS (int)(sizeof graphs / sizeof graphs[0])

static void f32(struct graph *g, const char *name, int rank, const int64_t *d)
{
    struct dim dims[IR_MAX_RANK];
    for (int i = 0; i < rank; i++)
        dims[i] = (struct dim){d[i], -1};
    int vi = graph_value_get(g, name);
    graph_value_set_type(g, vi, DT_FLOAT, rank, dims);
    graph_init_add(g, vi);
}

/* blocks x (Conv-BN-Relu-Conv-BN-Add-Relu) at 64x56x56: 7 nodes a block. */
static struct graph *build_synthetic(int blocks, struct diag *d)
{
    struct graph *g = graph_new("bench-resnet-like");
    int bsym = graph_sym_add(g, "batch", 1);
    struct dim in[4] = {{-1, bsym}, {64, -1}, {56, -1}, {56, -1}};
    int x = graph_value_get(g, "x0");
    graph_value_set_type(g, x, DT_FLOAT, 4, in);
    graph_input_add(g, x);
    static const int64_t w[4] = {64, 64, 3, 3}, ch[1] = {64}, pads[4] = {1, 1, 1, 1};
    char prev[48] = "x0";
    for (int b = 0; b < blocks; b++) {
        char p[10][32], t[7][32];
        for (int k = 0; k < 10; k++) {
            snprintf(p[k], sizeof p[k], "p%d_%d", b, k);
            f32(g, p[k], k < 2 ? 4 : 1, k < 2 ? w : ch);
        }
        for (int k = 0; k < 7; k++)
            snprintf(t[k], sizeof t[k], "v%d_%d", b, k);
        const char *c1[2] = {prev, p[0]}, *c2[2] = {t[2], p[1]};
        const char *bn1[5] = {t[0], p[2], p[3], p[4], p[5]}, *bn2[5] = {t[3], p[6], p[7], p[8], p[9]};
        const char *r1[1] = {t[1]}, *ad[2] = {t[4], prev}, *r2[1] = {t[5]};
        const char *o[7] = {t[0], t[1], t[2], t[3], t[4], t[5], t[6]};
        graph_attr_ints(g, graph_node_add_named(g, OP_Conv, NULL, c1, 2, &o[0], 1), "pads", pads, 4);
        graph_node_add_named(g, OP_BatchNormalization, NULL, bn1, 5, &o[1], 1);
        graph_node_add_named(g, OP_Relu, NULL, r1, 1, &o[2], 1);
        graph_attr_ints(g, graph_node_add_named(g, OP_Conv, NULL, c2, 2, &o[3], 1), "pads", pads, 4);
        graph_node_add_named(g, OP_BatchNormalization, NULL, bn2, 5, &o[4], 1);
        graph_node_add_named(g, OP_Add, NULL, ad, 2, &o[5], 1);
        graph_node_add_named(g, OP_Relu, NULL, r2, 1, &o[6], 1);
        snprintf(prev, sizeof prev, "%s", t[6]);
    }
    graph_output_add(g, graph_value_get(g, prev));
    if (graph_finalize(g, d)) {
        graph_free(g);
        return NULL;
    }
    return g;
}

static struct graph *open_graph(const char *samples, const struct gspec *s, struct diag *d)
{
    if (!s->spec)
        return build_synthetic(1429, d); /* 10,003 nodes */
    char path[1024];
    if (s->spec[0] == '@') {
        snprintf(path, sizeof path, "%s/%s", samples, s->spec + 1);
        return model_load(path, d);
    }
    return model_load(s->spec, d);
}

struct ctx {
    struct graph *g;
    struct predictor *p;
    struct config cfg;
    int rep;
    struct diag d;
};

static int run_infer(void *v)
{
    struct ctx *c = v;
    int bs = graph_batch_sym(c->g);
    if (bs >= 0 && graph_sym_set(c->g, c->g->syms[bs].name, 1 + (c->rep++ & 1), &c->d))
        return 1;
    return graph_infer(c->g, &c->d) ? 1 : 0;
}

static int run_predict(void *v)
{
    struct ctx *c = v;
    struct prediction pr;
    int rc = predict_run(c->p, c->g, &c->cfg, &pr, &c->d) ? 1 : 0;
    prediction_fini(&pr);
    return rc;
}

static int run_sweep(void *v)
{
    struct ctx *c = v;
    struct config cfg = c->cfg;
    for (int i = 0; i <= 10; i++) {
        cfg.batch = (int64_t)1 << i;
        struct prediction pr;
        int rc = predict_run(c->p, c->g, &cfg, &pr, &c->d) ? 1 : 0;
        prediction_fini(&pr);
        if (rc)
            return 1;
    }
    return 0;
}

static void row(FILE *tsv, const char *section, const char *label, int nodes,
                const struct bstats *s)
{
    printf("  %-24s %6d nodes ", label, nodes);
    bench_print(stdout, s);
    putchar('\n');
    bench_tsv(tsv, section, label, nodes, s);
}

static int fail(const char *what, const struct diag *d)
{
    fprintf(stderr, "bench_sweep: %s: %s\n", what, d->msg);
    return 1;
}

int main(int argc, char **argv)
{
    xalloc_init();
    const char *samples = argc > 1 ? argv[1] : "samples";
    FILE *tsv = NULL;
    if (argc > 2 && !(tsv = fopen(argv[2], "w"))) {
        perror(argv[2]);
        return 1;
    }
    struct diag d = {0};
    struct predictor *p = predictor_new(argc > 3 ? argv[3] : NULL, &d);
    if (!p)
        return fail("weights", &d);
    printf("weights: %s\n", predictor_describe(p));
    struct graph *g[N_GRAPHS];
    for (int i = 0; i < N_GRAPHS; i++)
        if (!(g[i] = open_graph(samples, &graphs[i], &d)))
            return fail(graphs[i].label, &d);

    struct bstats s;
    struct ctx c = {.p = p};
    config_default(&c.cfg);
    printf("\nshape inference + cost (graph_infer, batch rebound 1 <-> 2 between runs)\n");
    for (int i = 0; i < N_GRAPHS; i++) {
        c.g = g[i];
        if (bench_run(run_infer, &c, 15, 400, 0.4, &s))
            return fail(graphs[i].label, &c.d);
        row(tsv, "infer", graphs[i].label, g[i]->n_nodes, &s);
    }
    printf("\npredict_run, batch 1, default GPU (shape inference + teacher + GNN)\n");
    for (int i = 0; i < N_GRAPHS; i++) {
        c.g = g[i];
        c.cfg.batch = 1;
        if (bench_run(run_predict, &c, 10, 300, 0.6, &s))
            return fail(graphs[i].label, &c.d);
        row(tsv, "predict", graphs[i].label, g[i]->n_nodes, &s);
    }
    printf("\nthe same without weights (shape inference + teacher only)\n");
    c.p = NULL;
    for (int i = 0; i < N_GRAPHS; i++) {
        c.g = g[i];
        if (bench_run(run_predict, &c, 10, 300, 0.4, &s))
            return fail(graphs[i].label, &c.d);
        row(tsv, "teacher", graphs[i].label, g[i]->n_nodes, &s);
    }
    printf("\nwhole 11-point batch sweep (batch 1..1024, predict_run each)\n");
    c.p = p;
    for (int i = 1; i <= 2; i++) {
        c.g = g[i];
        if (bench_run(run_sweep, &c, 10, 200, 0.8, &s))
            return fail(graphs[i].label, &c.d);
        row(tsv, "sweep11", graphs[i].label, g[i]->n_nodes, &s);
    }
    for (int i = 0; i < N_GRAPHS; i++)
        graph_free(g[i]);
    predictor_free(p);
    if (tsv)
        fclose(tsv);
    return 0;
}
