/* bench_gnn.c - predictor latency: ResNet-50 (samples/resnet50.onnx) and a
 * ~2,000-node graph, GNN forward including features and adjacency, plus the
 * full predict_run (shape inference + teacher + GNN). One core:
 * OPENBLAS_NUM_THREADS=1. Usage: bench_gnn SAMPLES_DIR [WEIGHTS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "graph/load.h"
#include "core/predict.h"
#include "graph/shape.h"
#include "util/xalloc.h"

/* Process CPU time: on a shared machine wall time measures the neighbours;
 * with OPENBLAS_NUM_THREADS=1 CPU time is the one-core cost. */
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int bench(struct predictor *p, const char *spec, int64_t batch)
{
    struct diag d = {0};
    struct graph *g = model_load(spec, &d);
    if (!g) {
        fprintf(stderr, "bench_gnn: %s\n", d.msg);
        return 1;
    }
    struct config cfg;
    config_default(&cfg);
    cfg.batch = batch;
    struct prediction pr;
    int iters = 0;
    double t0 = now(), t;
    do { /* at least 20 runs and 0.5 s */
        if (predict_run(p, g, &cfg, &pr, &d)) {
            fprintf(stderr, "bench_gnn: %s\n", d.msg);
            prediction_fini(&pr);
            graph_free(g);
            return 1;
        }
        prediction_fini(&pr);
        iters++;
        t = now() - t0;
    } while (iters < 20 || t < 0.5);
    double full = t / iters * 1e3;
    /* Teacher-only path, to isolate the GNN's share. */
    iters = 0;
    t0 = now();
    do {
        predict_run(NULL, g, &cfg, &pr, &d);
        prediction_fini(&pr);
        iters++;
        t = now() - t0;
    } while (iters < 20 || t < 0.5);
    double teacher = t / iters * 1e3;
    printf("%-38s %5d nodes  predict_run %.3f ms CPU (shape+teacher %.3f, GNN %.3f)\n", spec,
           g->n_nodes, full, teacher, full - teacher);
    graph_free(g);
    return 0;
}

int main(int argc, char **argv)
{
    xalloc_init();
    const char *dir = argc > 1 ? argv[1] : "samples";
    struct diag d = {0};
    struct predictor *p = predictor_new(argc > 2 ? argv[2] : NULL, &d);
    if (!p) {
        fprintf(stderr, "bench_gnn: %s\n", d.msg);
        return 1;
    }
    printf("weights: %s\n", predictor_describe(p));
    char path[1024];
    snprintf(path, sizeof path, "%s/resnet50.onnx", dir);
    int rc = bench(p, path, 1);
    /* A deep DenseNet (~700 nodes) and a 72-layer GPT-2-XL-wide decoder
     * (~2,000 nodes). */
    rc |= bench(p, "zoo:densenet:preset=densenet201", 1);
    rc |= bench(p, "zoo:gpt:preset=gpt2-xl:layers=72", 1);
    predictor_free(p);
    return rc;
}
