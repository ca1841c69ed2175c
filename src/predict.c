/* predict.c - PLACEHOLDER predictor (teacher only) until the GNN lands. */
#include "predict.h"

#include <stdlib.h>
#include <string.h>

#include "shape.h"

struct predictor {
    int unused;
};

struct predictor *predictor_new(const char *weights_path, struct diag *d)
{
    (void)weights_path;
    diag_set(d, ST_EWEIGHTS, "no GNN weights yet");
    return NULL;
}

void predictor_free(struct predictor *p)
{
    free(p);
}

const char *predictor_describe(const struct predictor *p)
{
    (void)p;
    return "no weights";
}

enum status predict_run(struct predictor *p, struct graph *g, const struct config *cfg,
                        struct prediction *out, struct diag *d)
{
    (void)p;
    memset(out, 0, sizeof *out);
    int bs = graph_batch_sym(g);
    if (bs >= 0)
        g->syms[bs].val = cfg->batch;
    enum status st = graph_infer(g, d);
    if (st)
        return st;
    if ((st = sim_run(g, cfg, &out->sim, d)))
        return st;
    out->latency_ms = out->sim.latency_ms;
    out->energy_j = out->sim.energy_j;
    out->memory_mib = out->sim.memory_mib;
    out->throughput = out->latency_ms > 0 ? cfg->batch * 1000.0 / out->latency_ms : 0;
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
