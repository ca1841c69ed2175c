/* bench_gnn.c - predictor latency: ResNet-50 (samples/resnet50.onnx), a
 * deep DenseNet, a 2,013-node LLaMA and a 72-layer GPT-2-XL-wide decoder:
 * the full predict_run (shape inference + teacher + features + GNN) and
 * predict_run without weights (shape + teacher), whose difference is the
 * GNN's share. Each is the median of repeated runs (bench_common.h) of the
 * same graph and configuration, as a user re-predicting it gets them: the
 * GNN's node rows and node classes come from its caches
 * (gnn_features_batch). One core: OPENBLAS_NUM_THREADS=1.
 * Usage: bench_gnn SAMPLES_DIR [WEIGHTS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "graph/load.h"
#include "core/predict.h"
#include "graph/ops/shape.h"
#include "util/xalloc.h"

struct run {
    struct predictor *p;
    struct graph *g;
    struct config cfg;
    struct diag d;
};

static int run_predict(void *v)
{
    struct run *r = v;
    struct prediction pr;
    int rc = predict_run(r->p, r->g, &r->cfg, &pr, &r->d) != ST_OK;
    prediction_fini(&pr);
    return rc;
}

static int bench(struct predictor *p, const char *spec)
{
    struct run r = {.p = p};
    r.g = model_load(spec, &r.d);
    if (!r.g) {
        fprintf(stderr, "bench_gnn: %s\n", r.d.msg);
        return 1;
    }
    config_default(&r.cfg);
    struct bstats full, teacher;
    int rc = bench_run(run_predict, &r, 20, 2000, 0.5, &full);
    r.p = NULL; /* teacher only, to isolate the GNN's share */
    rc = rc || bench_run(run_predict, &r, 20, 2000, 0.5, &teacher);
    if (rc)
        fprintf(stderr, "bench_gnn: %s: %s\n", spec, r.d.msg);
    else
        printf("%-38s %5d nodes  predict_run %.3f ms CPU [wall IQR %.3f-%.3f] (shape+teacher "
               "%.3f, GNN %.3f; medians of %d and %d runs)\n",
               spec, r.g->n_nodes, full.cpu_med, full.p25, full.p75, teacher.cpu_med,
               full.cpu_med - teacher.cpu_med, full.n, teacher.n);
    graph_free(r.g);
    return rc;
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
    printf("load average: ");
    FILE *la = fopen("/proc/loadavg", "r");
    char buf[128] = "?";
    if (la && fgets(buf, sizeof buf, la))
        buf[strcspn(buf, "\n")] = 0;
    if (la)
        fclose(la);
    printf("%s\n", buf);
    char path[1024];
    snprintf(path, sizeof path, "%s/resnet50.onnx", dir);
    int rc = bench(p, path);
    rc |= bench(p, "zoo:densenet:preset=densenet201");
    rc |= bench(p, "zoo:llama:layers=36");
    rc |= bench(p, "zoo:gpt:preset=gpt2-xl:layers=72");
    predictor_free(p);
    return rc;
}
