/*
 * sim.h - the teacher: an analytic GPU performance model. Given an inferred
 * graph (graph_infer done) and a configuration it predicts per-node kernel
 * time (roofline with size-dependent efficiency, launch overhead, fusion for
 * the fused runtime), latency, memory and energy. Every constant is named and
 * documented in sim.c with its source. Its numbers are simulated, never
 * measured: callers must label them so.
 */
#ifndef DIPPM_SIM_H
#define DIPPM_SIM_H

#include "config.h"
#include "gpu.h"
#include "ir.h"

#define BOUND_LIST(X)                \
    X(BOUND_COMPUTE, "compute")      \
    X(BOUND_MEMORY, "memory")        \
    X(BOUND_OVERHEAD, "overhead")    \
    X(BOUND_NONE, "-")

enum bound {
#define X(id, name) id,
    BOUND_LIST(X)
#undef X
    BOUND__COUNT
};
const char *bound_name(enum bound b);

struct sim_node {
    double time_s;       /* kernel time incl. launch overhead (0 if fused away) */
    double roofline_s;   /* max(flops/peak, bytes/bw): the ideal bound */
    double energy_j;
    double intensity;    /* FLOPs per byte moved */
    enum bound bound;
    bool fused;          /* folded into a neighbour's kernel (tensorrt runtime) */
};

struct sim_result {
    double latency_ms;
    double roofline_ms;   /* sum of per-node roofline bounds: a lower bound */
    double energy_j;      /* per batch */
    double avg_power_w;
    double memory_mib;    /* context + weights + peak activations + workspace */
    double context_mib, weights_mib, act_peak_mib, workspace_mib;
    int n_kernels;
    int n_nodes;
    struct sim_node *nodes; /* n_nodes entries, indexed like graph->nodes (malloc'd) */
};

/* Runs the model for cfg on g (g must be inferred with the batch applied).
 * Fills r; free with sim_result_fini. Errors: ST_ERANGE for a bad config. */
enum status sim_run(const struct graph *g, const struct config *cfg, struct sim_result *r,
                    struct diag *d);
/* Frees r->nodes; NULL-safe and idempotent. */
void sim_result_fini(struct sim_result *r);

#endif
