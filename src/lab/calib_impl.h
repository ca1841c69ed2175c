/*
 * calib_impl.h - internals shared by calib_eval.c, calib_fit.c and
 * calib_report.c.
 */
#ifndef DIPPM_CALIB_IMPL_H
#define DIPPM_CALIB_IMPL_H

#include "lab/calib.h"
#include "graph/ir/ir.h"

/* One graph, inferred for one (spec, batch, sequence, phase) binding. */
struct calib_binding {
    char spec[192];
    int64_t batch, seq;  /* seq: tokens (prefill) or cached context (decode); 0 = none */
    int64_t tokens;      /* real tokens per sequence, padding removed; 0 = padded */
    bool decode;
    bool last;           /* logits of the last position only (generation rows) */
    bool has_conv;       /* the graph has convolutions (conv_eff can change its runs) */
    struct graph *g;     /* NULL if rejected (err says why) */
    char err[240];
};

/* One teacher run: a binding under one configuration, shared by rows. */
struct calib_run {
    int bi;
    struct config cfg;
    bool need;           /* wanted by the current evaluation */
    struct sim_prep *prep; /* the teacher's constant-free part, made on first use */
    double mem_bytes;    /* usable memory of the GPU or slice */
    double idle_w, tdp_w; /* its idle and maximum board power */
    double latency_ms, memory_mib, energy_j, power_w;
    bool fits;           /* predicted memory within the GPU's or slice's usable memory */
};

struct calib_graphs {
    char samples_dir[4096];
    struct calib_binding *b;
    int n_b, cap_b;
    struct calib_run *r;
    int n_r, cap_r;
};

/* Most worker threads an evaluation uses (one per online CPU up to this). */
#define CALIB_MAX_THREADS 16

/* Row selections for calib_eval_sel (or-ed). */
enum {
    SEL_TIME = 1,       /* every target but memory */
    SEL_MEMORY = 2,     /* memory rows */
    SEL_FIT_ONLY = 4,   /* only fitted rows not held out */
    SEL_HELD_OUT = 8,   /* only held-out rows */
    SEL_RT_SHIFT = 4,   /* (runtime + 1) << SEL_RT_SHIFT (SEL_RT_MASK): only the
                           rows that run that runtime or use its constants */
    SEL_RT_MASK = 15,
    SEL_FP32 = 256,     /* only fp32 rows (CUDA-core GEMMs) */
    SEL_CONV = 512,     /* only rows whose graph has convolutions */
    SEL_POWER = 1024    /* only power rows (with SEL_FIT_ONLY: the power objective) */
};

_Static_assert((int)RT__COUNT < (int)SEL_RT_MASK, "the runtime field of a selection holds runtime + 1");

/* Does a row run with runtime `row` use the constants of runtime `knob`?
 * Its own runtime's, and its base runtime's (runtime_base): a graph-replayed
 * engine uses the engine's efficiencies and its own per-kernel cost, which
 * the serving engine (vllm) shares (runtime_graph). */
static inline bool calib_runtime_uses(enum runtime row, int knob)
{
    return (int)row == knob || (int)runtime_base(row) == knob ||
           (runtime_graph(row) && knob == RT_TENSORRT_GRAPH);
}

/* Runs the teacher for the selected rows and sets their pred, or with fold
 * >= 0 the prediction of that fold kind (pred_lomo or pred_losfo). */
enum status calib_eval_sel(struct calib_set *set, struct calib_graphs *cg,
                           const struct sim_params *p, int sel, int fold, struct diag *d);

#endif
