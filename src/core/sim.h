/*
 * sim.h - the teacher: an analytic GPU performance model. Given an inferred
 * graph (graph_infer done) and a configuration it predicts per-node kernel
 * time (roofline with size-dependent efficiency, launch overhead, fusion for
 * the fused runtime), latency, memory and energy. Every constant is named and
 * documented in sim_params.c with its reason and source; the global ones are
 * fitted by `dippm calibrate` (calib.h, report in weights/calibration.md).
 * Its numbers are simulated, never measured: callers must label them so.
 *
 * Conventions: shapes, costs and the liveness peak come from the graph's
 * current bindings (bind cfg->batch to the batch symbol and run graph_infer
 * first; cfg->batch itself is only validated). Float tensors are re-sized from
 * the file's dtype to the configured precision. sim_run is deterministic,
 * allocates only r->nodes and costs well under 1 us per node.
 */
#ifndef DIPPM_SIM_H
#define DIPPM_SIM_H

#include "core/config.h"
#include "core/gpu.h"
#include "graph/ir/ir.h"

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
    /* Additive fields (sim engineer). */
    int fused_into;      /* node index of the kernel this node was folded into, -1 if none */
    bool kernel;         /* launches a GPU kernel (false: fused, view, constant, folded) */
    double flops;        /* this node's FLOPs */
    double bytes;        /* this node's bytes moved, scaled to the configured precision */
    double kflops, kbytes; /* the whole kernel's work (this node plus what was fused into it) */
    double kflops_vec;   /* part of kflops that fused elementwise epilogues do on CUDA cores */
    double compute_s, memory_s; /* the kernel's modelled compute and memory times */
    double efficiency;   /* fraction of the precision's peak the kernel's GEMM reaches (0 if none) */
    bool tensor_core;    /* runs on tensor cores */
    int merged;          /* sibling GEMMs merged into this kernel (tensorrt QKV) */
    bool attention;      /* a fused attention kernel (scores, softmax, context) */
    double time_share;   /* time_s / latency */
    double energy_share; /* energy_j / energy of the batch */
};

/* The teacher's global constants that `dippm calibrate` fits to published
 * A100 measurements (calib.h). The values in use are sim_params_default();
 * each field is documented with its reason and source in sim_params.c. */
struct sim_params {
    double tc_eff[RT__COUNT];    /* fraction of tensor-core peak for a large aligned GEMM */
    double cuda_eff;             /* fraction of CUDA-core FP32 peak for a large GEMM */
    double bw_eff;               /* fraction of DRAM bandwidth a streaming kernel sustains */
    double kernel_us[RT__COUNT]; /* GPU-side fixed cost of one kernel (launch, ramp, tail) */
    double graph_kernel_us;      /* the same for a kernel of an engine replayed as a CUDA graph */
    double dispatch_us[RT__COUNT]; /* host cost to issue one op (eager) or one kernel (engine) */
    double call_us[RT__COUNT];   /* fixed cost of one inference call (entry, enqueue, sync) */
    double context_mib[RT__COUNT]; /* CUDA context + libraries as NVML counts them */
    double context_sm_mib;       /* further context per SM of the GPU or slice (thread stacks) */
    double workspace_mib[RT__COUNT]; /* cuBLAS/cuDNN/TensorRT scratch */
    double act_factor;           /* device memory held per byte of peak live activations */
    double dw_bw_eff[RT__COUNT]; /* bandwidth kept by depthwise convolutions */
    double conv_eff[RT__COUNT];  /* implicit-GEMM convolution efficiency relative to a GEMM */
    double seq_step_us[RT__COUNT]; /* host cost per sequence per generation step */
    double request_us[RT__COUNT]; /* fixed cost of one generation request before its first token */
    double overlap_p;            /* p-norm combining a kernel's compute and memory times */
    double k_half;               /* K at which a GEMM tile's fixed prologue/epilogue halves its efficiency */
    double simt_k_half;          /* the same for FP32 GEMMs on CUDA cores (SGEMM) */
    double batched_sgemm_eff;    /* share of cuda_eff a fixed-tile batched SGEMM keeps (sim_board) */
    double norm_bw_eff;          /* bandwidth kept by layer/group norms (two passes, block sync) */
    double softmax_thread_bpc;   /* bytes per clock a resident thread of a block softmax moves */
    double row_cache;            /* share of the L1 and L2 that keeps the rows a row kernel re-reads */
    double row_cache_soft;       /* how far past that share the re-reads all miss (x the share) */
    double hopper_clock;         /* fraction of the boost-clock math peak Hopper holds under load */
    double p_active;             /* dynamic power share of a running kernel at any load */
    double p_memory;             /* further dynamic power share at full DRAM bandwidth */
};

/* The calibrated constants compiled into the program (static, never NULL). */
const struct sim_params *sim_params_default(void);

struct sim_result {
    double latency_ms;
    double roofline_ms;   /* sum of per-node roofline bounds: a lower bound */
    double energy_j;      /* per batch */
    double avg_power_w;
    double memory_mib;    /* context + weights + peak activations + workspace */
    double context_mib, weights_mib, act_peak_mib, workspace_mib;
    double act_live_bytes; /* the liveness peak act_peak_mib is scaled from: the graph's,
                            * less what the runtime's fused kernels keep on chip */
    int n_kernels;
    int n_nodes;
    /* Additive fields (sim engineer). */
    double gpu_busy_ms;   /* sum of kernel times */
    double host_ms;       /* host-side dispatch time (eager: the CPU floor) */
    int n_unmodelled;     /* nodes without shape/cost (counted as bare kernels) */
    struct sim_node *nodes; /* n_nodes entries, indexed like graph->nodes (malloc'd) */
};

/* Runs the model for cfg on g (g must be inferred with the batch applied).
 * Fills r; free with sim_result_fini. Errors: ST_ERANGE for a bad config. */
enum status sim_run(const struct graph *g, const struct config *cfg, struct sim_result *r,
                    struct diag *d);
/* sim_run with explicit constants (calibration); params NULL = default. */
enum status sim_run_params(const struct graph *g, const struct config *cfg,
                           const struct sim_params *params, struct sim_result *r, struct diag *d);
/* Many runs of one graph and configuration with different constants (the
 * calibration): sim_prepare does everything that does not depend on the
 * constants once (fusion, kernel shapes, weight bytes); sim_run_prepared
 * then gives the totals sim_run_params would give, without per-node
 * results. The preparation keeps no pointer to g. */
struct sim_prep;
struct sim_totals {
    double latency_ms, energy_j, avg_power_w, memory_mib;
};
enum status sim_prepare(const struct graph *g, const struct config *cfg, struct sim_prep **out,
                        struct diag *d);
/* params NULL = default. */
void sim_run_prepared(const struct sim_prep *sp, const struct sim_params *params,
                      struct sim_totals *out);
void sim_prep_free(struct sim_prep *sp);

/* The per-sequence time of one decode step of a generation over batch
 * sequences beyond the model's forward pass (seq_step_us each): host work
 * (scheduling, sampling, stop checks) while the GPU idles, and for the
 * serving runtime (vllm) also the GPU work its measured steps show outside
 * the forward pass; params NULL = default. */
double sim_decode_host_ms(const struct sim_params *params, enum runtime rt, int64_t batch);
/* The board power during that time: idle where the host works alone; for
 * vllm, a GPU kept clocked and lightly busy (p_active of the dynamic range:
 * sampling kernels and gaps too short to drop the clocks). */
double sim_decode_host_w(const struct sim_params *params, enum runtime rt, double idle_w,
                         double tdp_w);

/* The host's fixed cost of one inference call in rt (entry, enqueue, sync:
 * call_us), in ms; params NULL = default. A timing taken on the GPU alone
 * (CUDA events) is a prediction less this. */
double sim_call_ms(const struct sim_params *params, enum runtime rt);
/* The fixed cost of one generation request (request_us) in ms. */
double sim_request_ms(const struct sim_params *params, enum runtime rt);

/* Frees r->nodes; NULL-safe and idempotent. */
void sim_result_fini(struct sim_result *r);

#endif
