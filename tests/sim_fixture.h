/* sim_fixture.h - what the teacher's runtime tests share: a model loaded
 * with its batch and one more symbol bound, a teacher run in fp16 on a named
 * GPU, and a node looked up by name. Each failure names the model, runtime
 * or node. Include after <cmocka.h>. */
#ifndef DIPPM_TEST_SIM_FIXTURE_H
#define DIPPM_TEST_SIM_FIXTURE_H

#include <string.h>

#include "core/gpu.h"
#include "core/sim.h"
#include "graph/load.h"
#include "graph/ops/shape.h"

/* spec with its batch symbol at batch and sym (if not NULL) at val, inferred. */
static struct graph *fixture_build(const char *spec, int64_t batch, const char *sym, int64_t val)
{
    struct diag d = {0};
    struct graph *g = model_load(spec, &d);
    if (!g)
        fail_msg("%s: %s", spec, d.msg);
    g->syms[graph_batch_sym(g)].val = batch;
    if (sym)
        g->syms[graph_sym_find(g, sym)].val = val;
    if (graph_infer(g, &d))
        fail_msg("%s: %s", spec, d.msg);
    return g;
}

/* The teacher on g in precision prec on the GPU named gpu with runtime rt. */
static struct sim_result fixture_run_prec(const struct graph *g, const char *gpu,
                                          enum runtime rt, int64_t batch, enum precision prec)
{
    struct config c;
    config_default(&c);
    c.gpu = gpu_find(gpu);
    c.prec = prec;
    c.rt = rt;
    c.batch = batch;
    struct sim_result r;
    struct diag d = {0};
    if (sim_run(g, &c, &r, &d))
        fail_msg("%s: %s", runtime_name(rt), d.msg);
    return r;
}

/* The same in fp16. */
static struct sim_result fixture_run(const struct graph *g, const char *gpu, enum runtime rt,
                                     int64_t batch)
{
    return fixture_run_prec(g, gpu, rt, batch, PREC_FP16);
}

static int fixture_node(const struct graph *g, const char *name)
{
    for (int i = 0; i < g->n_nodes; i++)
        if (!strcmp(g->nodes[i].name, name))
            return i;
    fail_msg("no node %s", name);
    return -1;
}

#endif
