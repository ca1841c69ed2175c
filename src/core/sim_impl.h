/*
 * sim_impl.h - internals of the teacher shared by sim.c, sim_fuse.c,
 * sim_kernel.c and sim_params.c: the fixed (not fitted) constants, the
 * per-kernel model and pass 1 (kernels, fusion, work).
 */
#ifndef DIPPM_SIM_IMPL_H
#define DIPPM_SIM_IMPL_H

#include "core/sim.h"

#define SIM_N_TILES 4

/* Constants that calibration does not fit (too few rows constrain them);
 * each is documented where it is defined, in sim_params.c. */
struct sim_fixed {
    int tile_m[SIM_N_TILES], tile_n[SIM_N_TILES];
    double tile_peak[SIM_N_TILES]; /* fraction of peak each tile shape's main loop reaches */
    double attn_k_half;        /* the head size at which a fused attention kernel's fixed
                                  per-block work halves its efficiency */
    int split_k_max;           /* largest split-K factor the GEMM libraries choose */
    double split_k_min_k;      /* smallest K slice per split */
    double skinny_m;           /* at most this many rows: matrix-vector / small-M kernels */
    double skinny_n;           /* columns per CTA of those kernels */
    double skinny_peak;        /* fraction of peak their main loop reaches */
    int align_elems[PREC__COUNT]; /* tensor-core alignment of K and N, in elements */
    double misalign_eff;       /* tensor-core efficiency kept by misaligned K/N */
    double grouped_eff;        /* tensor-core efficiency kept by grouped (not depthwise) convs */
    double vec_eff;            /* fraction of CUDA-core peak for elementwise/reduction math */
    double dw_eff;             /* fraction of CUDA-core peak for depthwise convolution */
    double reduce_bw_eff;      /* bandwidth kept by reductions (norms and softmax: sim_params) */
    double gather_bw_eff;      /* bandwidth kept by gathers and scatters (irregular access) */
    double view_dispatch_frac; /* eager: host cost of a view op relative to a kernel op */
    double p_compute;          /* dynamic power share at full tensor/CUDA-core utilisation */
    double dequant_flops;      /* CUDA-core work to dequantise one weight (weight-only GEMMs) */
    double dequant_rows;       /* rows of A a weight-only GEMM serves per dequantised weight tile */
    double simt_winograd;      /* rate of a 3x3 stride-1 FP32 convolution on CUDA cores, in
                                  direct-convolution FLOPs, against cuda_eff x the FP32 peak */
};

extern const struct sim_fixed sim_fixed;

/* What a GPU family keeps of its datasheet figures under eager PyTorch's
 * FP32 work, beyond the global constants: the share of its CUDA-core FP32
 * peak an SGEMM reaches (power-limited clocks; dual-issue FP32 lanes a GEMM
 * cannot fill) and of its DRAM bandwidth a streaming kernel reaches (GDDR6
 * boards less than HBM ones). Fitted per family on NeuSight's train-split
 * kernels where it has some (sim_params.c; dippm eval --kernels --fit
 * prints them); 1 elsewhere. */
struct sim_board {
    const char *family; /* gpu_spec.family */
    double fp32_keep, bw_keep;
    /* The one CTA tile (index into sim_fixed.tile_m/tile_n) cuBLAS's FP32
     * strided-batched SGEMM runs on the family whatever the shape, without
     * split-K; -1 where its heuristics pick among tiles as the model does. */
    int batched_sgemm_tile;
    /* The SM's datasheet: resident threads and its L1 data cache (the
     * unified L1/shared memory), which hold the rows a row-wise kernel
     * reads more than once (sim_row_miss); 0 KiB: unknown. */
    int sm_threads;
    double l1_kib;
};
/* The constants of hw's GPU family ({NULL, 1, 1, -1, 2048, 0} when it has
 * none). */
const struct sim_board *sim_board_of(const struct hw *hw);

/* One kernel's work and shape as the kernel model sees it. */
struct sim_kernel_in {
    enum op_class cls;
    double flops, bytes;
    double vec_flops;   /* fused elementwise epilogue FLOPs (CUDA cores) */
    bool gemm;          /* conv or matrix product with known M, N, K */
    double m, n, k;     /* GEMM view: rows, columns, reduction length */
    double batches;     /* independent GEMMs (batched MatMul) */
    bool depthwise;     /* group == input channels > 1 */
    bool grouped;       /* 1 < group < input channels */
    bool winograd;      /* a dense 3x3 stride-1 2-D convolution (cuDNN's Winograd shapes) */
    bool attention;     /* fused attention: M queries, N keys, K head size */
    double q_block;     /* attention: query rows per CTA */
    /* A row-wise kernel (eager layer norm, block softmax) that reads its
     * input again after a first pass over each row: the bytes of those
     * further passes, the bytes of one row and the threads of the block
     * that owns a row. The passes cost DRAM traffic only for rows the L1
     * and L2 no longer hold (sim_row_miss); 0: none. */
    double reread_bytes, row_bytes;
    int row_block;
    /* a block softmax whose rows end in loads one element wide (sim.c
     * row_rereads): its bandwidth is capped by softmax_thread_bpc */
    bool row_tail;
};

/* The share of a row-wise kernel's re-reads that miss both the L1 and the
 * L2 of hw and go to DRAM: the rows in flight (the SM's resident blocks,
 * one row each) against p->row_cache of each cache, rising from 0 at that
 * share to 1 at (1 + row_cache_soft) times it. */
double sim_row_miss(const struct hw *hw, const struct sim_params *p, double row_bytes,
                    int block);

struct sim_kernel_out {
    double compute_s, memory_s; /* modelled times with efficiencies (no overhead) */
    double roofline_s;          /* ideal: max(flops / peak, bytes / bandwidth) */
    double eff;                 /* GEMM efficiency vs the peak used (0 if not a GEMM) */
    bool tc;                    /* tensor cores */
    double clock;               /* fraction of the boost-clock peaks the GPU holds (hopper_clock) */
    double peak;                /* the math peak the kernel runs on (FLOP/s): tensor cores at
                                 * the precision it runs in (TF32 for an fp32 convolution),
                                 * or CUDA cores */
};

/* Two streams of one kernel that overlap, but not perfectly (compute and
 * memory; a GEMM's main loop and its fused epilogue): the p-norm of the two
 * times (p large: the max; p = 1: the sum). Never below the larger one. */
double sim_overlap(double c, double m, double p);

/* Fills out for one kernel on hw at cfg's precision. Pure, no allocation. */
void sim_kernel_time(const struct hw *hw, const struct config *cfg, const struct sim_params *p,
                     const struct sim_kernel_in *in, struct sim_kernel_out *out);

/* ---- sim_fuse.c: pass 1 (kernels, fusion, work) ---------------------- */

enum node_kind {
    NK_KERNEL,  /* launches a kernel */
    NK_VIEW,    /* metadata only: eager dispatches it, nothing runs on the GPU */
    NK_CONST,   /* shape arithmetic / constants: folded before run time */
};
enum node_kind sim_node_kind(const struct graph *g, const struct node *n, enum runtime rt);
/* Elements of a value under the current bindings, or -1 if unknown. */
double sim_value_numel(const struct value *v);
/* The dtype a value has at run time (the inferred one if any). */
enum dtype sim_value_dtype(const struct value *v);
/* Bytes of a value at the configured precision (pb bytes per float), or -1. */
double sim_value_bytes(const struct value *v, int pb);
/* Rows, columns, reduction length and batch count of a conv/GEMM kernel. */
void sim_gemm_view(const struct graph *g, const struct node *n, enum op_class c,
                   struct sim_kernel_in *k);
/* Experts a routed MatMul's batch touches, over top_k (1: not routed). */
double sim_routed_spread(const struct graph *g, const struct node *n);
/* Pass 1: each node's work, kernel roots and fusion into r->nodes. */
void sim_pass_fuse(const struct graph *g, const struct config *cfg, struct sim_result *r);

/* ---- sim_quant.c: quantisation schemes (config.h QUANT_LIST) -------- */

/* Whether value vi is a weight cfg's scheme quantises: an initializer read
 * only as the weight of Linear GEMMs (not the lm_head, not embeddings). */
bool sim_quant_weight(const struct graph *g, const struct config *cfg, int vi);
/* Bytes of initializer vi under cfg: quantised weights at the scheme's bits
 * plus their scales, the others as sim_value_bytes at pb bytes per float. */
double sim_weight_bytes(const struct graph *g, const struct config *cfg, int vi, int pb);
/* What cfg's scheme changes in the bytes node n reads (its quantised
 * weight's bytes less the same weight at pb); 0 for other nodes. */
double sim_quant_delta_bytes(const struct graph *g, const struct node *n,
                             const struct config *cfg, int pb);
/* Adds to GEMM kernel k of node n the dequantisation of a weight-only
 * scheme; true when a scheme with dynamic activation scales also runs a
 * quantisation pass before it, filled into pass. */
bool sim_quant_kernel(const struct graph *g, const struct node *n, const struct config *cfg,
                      struct sim_kernel_in *k, struct sim_kernel_in *pass);

#endif
