/* bench_shape.c - benchmark (not a test): graph_infer (shape inference +
 * cost + totals/liveness) on 2,000-node graphs built with the IR builder:
 *   resnet-like: 286 residual blocks of Conv-BN-Relu-Conv-BN-Add-Relu;
 *   transformer-like: blocks with a Shape->Gather->Unsqueeze->Concat->Reshape
 *   subgraph (constant folded on every run), MatMul, Softmax, LayerNorm.
 * Prints the median and minimum of repeated runs, and the same after a batch
 * rebinding (the path the explorer follows while a key is held down).
 * Usage: bench_shape [REPEATS] (default 200). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "graph/ops/shape.h"
#include "util/xalloc.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void f32(struct graph *g, const char *name, int rank, const int64_t *d, bool init)
{
    struct dim dims[IR_MAX_RANK];
    for (int i = 0; i < rank; i++)
        dims[i] = (struct dim){d[i], -1};
    int vi = graph_value_get(g, name);
    graph_value_set_type(g, vi, DT_FLOAT, rank, dims);
    if (init)
        graph_init_add(g, vi);
}

static void i64c(struct graph *g, const char *name, int n, const int64_t *v)
{
    struct tconst t = {.dt = DT_INT64, .rank = n == 1 ? 0 : 1, .dims = {n}, .n = n,
                       .i64 = (int64_t *)v};
    int vi = graph_value_get(g, name);
    struct dim dm = {n, -1};
    graph_value_set_type(g, vi, DT_INT64, t.rank, &dm);
    graph_init_add(g, vi);
    graph_value_set_data(g, vi, &t);
}

static int node(struct graph *g, enum op op, const char *name, const char *a, const char *b,
                const char *c, const char *out)
{
    const char *in[3] = {a, b, c};
    int n = c ? 3 : b ? 2 : 1;
    return graph_node_add_named(g, op, name, in, n, &out, 1);
}

static struct graph *build_resnet(int blocks)
{
    struct graph *g = graph_new("bench-resnet");
    int bsym = graph_sym_add(g, "batch", 1);
    struct dim in[4] = {{-1, bsym}, {64, -1}, {56, -1}, {56, -1}};
    int x = graph_value_get(g, "x0");
    graph_value_set_type(g, x, DT_FLOAT, 4, in);
    graph_input_add(g, x);
    int64_t w[4] = {64, 64, 3, 3}, ch[1] = {64}, pads[4] = {1, 1, 1, 1};
    char prev[64] = "x0";
    for (int b = 0; b < blocks; b++) {
        char p[10][48], t[7][48], n[48];
        for (int k = 0; k < 10; k++)
            snprintf(p[k], sizeof p[k], "p%d_%d", b, k);
        for (int k = 0; k < 7; k++)
            snprintf(t[k], sizeof t[k], "v%d_%d", b, k);
        f32(g, p[0], 4, w, true);
        f32(g, p[1], 4, w, true);
        for (int k = 2; k < 10; k++)
            f32(g, p[k], 1, ch, true);
        snprintf(n, sizeof n, "conv1_%d", b);
        graph_attr_ints(g, node(g, OP_Conv, n, prev, p[0], NULL, t[0]), "pads", pads, 4);
        const char *bn1[5] = {t[0], p[2], p[3], p[4], p[5]}, *o1 = t[1];
        snprintf(n, sizeof n, "bn1_%d", b);
        graph_node_add_named(g, OP_BatchNormalization, n, bn1, 5, &o1, 1);
        snprintf(n, sizeof n, "relu1_%d", b);
        node(g, OP_Relu, n, t[1], NULL, NULL, t[2]);
        snprintf(n, sizeof n, "conv2_%d", b);
        graph_attr_ints(g, node(g, OP_Conv, n, t[2], p[1], NULL, t[3]), "pads", pads, 4);
        const char *bn2[5] = {t[3], p[6], p[7], p[8], p[9]}, *o2 = t[4];
        snprintf(n, sizeof n, "bn2_%d", b);
        graph_node_add_named(g, OP_BatchNormalization, n, bn2, 5, &o2, 1);
        snprintf(n, sizeof n, "add_%d", b);
        node(g, OP_Add, n, t[4], prev, NULL, t[5]);
        snprintf(n, sizeof n, "relu2_%d", b);
        node(g, OP_Relu, n, t[5], NULL, NULL, t[6]);
        snprintf(prev, sizeof prev, "%s", t[6]);
    }
    graph_output_add(g, graph_value_get(g, prev));
    return g;
}

/* 14 nodes per block: the Reshape target comes from the input's shape. */
static struct graph *build_transformer(int blocks)
{
    struct graph *g = graph_new("bench-transformer");
    int bsym = graph_sym_add(g, "batch", 1), ssym = graph_sym_add(g, "seq", 128);
    struct dim in[3] = {{-1, bsym}, {-1, ssym}, {256, -1}};
    int x = graph_value_get(g, "x0");
    graph_value_set_type(g, x, DT_FLOAT, 3, in);
    graph_input_add(g, x);
    static const int64_t zero[1] = {0}, one[1] = {1}, heads[2] = {8, 32}, perm[4] = {0, 2, 1, 3};
    i64c(g, "i0", 1, zero);
    i64c(g, "i1", 1, one);
    i64c(g, "ax0", 1, zero);
    i64c(g, "heads", 2, heads);
    int64_t wd[2] = {256, 256}, ln[1] = {256};
    char prev[64] = "x0";
    for (int b = 0; b < blocks; b++) {
        char v[20][48], n[128], w[48], s[48], bb[48];
        for (int k = 0; k < 20; k++)
            snprintf(v[k], sizeof v[k], "t%d_%d", b, k);
        snprintf(w, sizeof w, "w%d", b);
        snprintf(s, sizeof s, "lns%d", b);
        snprintf(bb, sizeof bb, "lnb%d", b);
        f32(g, w, 2, wd, true);
        f32(g, s, 1, ln, true);
        f32(g, bb, 1, ln, true);
#define N(op, a, b2, c2, out) (snprintf(n, sizeof n, "%s_%d_%s", #op, b, out), \
                               node(g, OP_##op, n, a, b2, c2, out))
        N(MatMul, prev, w, NULL, v[0]);
        N(Shape, prev, NULL, NULL, v[1]);
        int g0 = N(Gather, v[1], "i0", NULL, v[2]);
        int g1 = N(Gather, v[1], "i1", NULL, v[3]);
        graph_attr_int(g, g0, "axis", 0);
        graph_attr_int(g, g1, "axis", 0);
        N(Unsqueeze, v[2], "ax0", NULL, v[4]);
        N(Unsqueeze, v[3], "ax0", NULL, v[5]);
        N(Concat, v[4], v[5], "heads", v[6]);
        graph_attr_int(g, g->n_nodes - 1, "axis", 0);
        N(Reshape, v[0], v[6], NULL, v[7]);
        int tr = N(Transpose, v[7], NULL, NULL, v[8]);
        graph_attr_ints(g, tr, "perm", perm, 4);
        N(Softmax, v[8], NULL, NULL, v[9]);
        int tr2 = N(Transpose, v[9], NULL, NULL, v[10]);
        graph_attr_ints(g, tr2, "perm", perm, 4);
        N(Reshape, v[10], v[1], NULL, v[11]);
        N(Add, v[11], prev, NULL, v[12]);
        N(LayerNormalization, v[12], s, bb, v[13]);
#undef N
        snprintf(prev, sizeof prev, "%s", v[13]);
    }
    graph_output_add(g, graph_value_get(g, prev));
    return g;
}

static void run(const char *what, struct graph *g, int reps)
{
    struct diag d = {0};
    if (graph_finalize(g, &d) || graph_infer(g, &d)) {
        fprintf(stderr, "bench_shape: %s: %s\n", what, d.msg);
        exit(1);
    }
    if (g->totals.n_unsupported || g->totals.n_unknown) {
        fprintf(stderr, "bench_shape: %s: %d nodes not counted\n", what,
                g->totals.n_unsupported + g->totals.n_unknown);
        exit(1);
    }
    double *t = malloc(sizeof(double) * (size_t)reps);
    for (int pass = 0; pass < 2; pass++) {
        for (int r = 0; r < reps; r++) {
            if (pass == 1)
                graph_sym_set(g, "batch", 1 + r % 64, &d);
            double t0 = now_s();
            graph_infer(g, &d);
            t[r] = now_s() - t0;
        }
        qsort(t, (size_t)reps, sizeof *t, cmp_d);
        printf("%-18s %5d nodes  %-16s median %.3f ms  min %.3f ms  (%d runs; %.0f GMACs at "
               "the last binding)\n", what, g->n_nodes, pass ? "rebind batch" : "same bindings",
               t[reps / 2] * 1e3, t[0] * 1e3, reps, g->totals.macs / 1e9);
    }
    free(t);
}

int main(int argc, char **argv)
{
    xalloc_init();
    int reps = argc > 1 ? atoi(argv[1]) : 200;
    if (reps < 1)
        reps = 1;
    struct graph *g = build_resnet(286); /* 7 * 286 = 2002 nodes */
    run("resnet-like", g, reps);
    graph_free(g);
    g = build_transformer(143); /* 14 * 143 = 2002 nodes */
    run("transformer-like", g, reps);
    graph_free(g);
    return 0;
}
