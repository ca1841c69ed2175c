/*
 * sim_params.c - every constant of the teacher, in one place, with its reason
 * and source. Two groups:
 *   - sim_params_default(): the global constants `dippm calibrate` fits to the
 *     published rows (tests/data/calib_map.tsv) and `dippm eval --kernels --fit`
 *     to NeuSight's measured kernels; their values are the FIT_* macros of
 *     sim_fitted.h, which both commands write (--write-params), never copied
 *     by hand, and calibrate reports whether it reproduces them.
 *   - sim_fixed: constants the calibration rows cannot pin down, set from
 *     documented hardware and library behaviour (estimates are marked).
 */
#include "core/sim_impl.h"

#include <string.h>

#include "core/sim_fitted.h"


/* ---- fitted (dippm calibrate) ------------------------------------------- */
/* torch.compile (inductor) keeps eager PyTorch's libraries and process:
 * its GEMMs are cuBLAS's heuristic picks on the same layouts, its
 * convolutions cuDNN's (NCHW unless the model asks for channels_last), its
 * kernels launch on a stream like eager's, and its context is the same
 * PyTorch process. It takes eager's fitted value of each of these; what it
 * changes, fusion and the host's cost per kernel and per call, is below
 * and in sim_fuse.c. */
#define INDUCTOR_AS_EAGER(name) FIT_##name##_PYTORCH
/* ONNX Runtime's CUDA execution provider calls the same libraries on the
 * same layouts: cuBLAS GEMMs with cuBLAS's heuristic pick (no tactic
 * timing; its TunableOp is off by default), cuDNN convolutions on NCHW
 * tensors (prefer_nhwc is off by default), so cuDNN transforms layouts
 * around tensor-core convolutions as it does for eager PyTorch (its
 * exhaustive algorithm search, cudnn_conv_algo_search's default, picks
 * among the same NCHW kernels), and its kernels launch on a stream. It
 * takes eager's fitted value of each; its fusion, its host cost per
 * kernel and per call and its TF32 default are its own (below, sim_fuse.c,
 * sim_kernel.c). */
#define ORT_AS_EAGER(name) FIT_##name##_PYTORCH

static const struct sim_params fitted = {
    /* Large aligned GEMMs: cuBLAS reaches ~250-290 of 312 TFLOPS FP16 on A100
     * (NVIDIA "Matrix Multiplication Background" guide); the tile, wave and
     * K terms in sim_kernel.c already take the size losses. Per runtime: an
     * engine times every tactic at build time and keeps the fastest, eager
     * PyTorch takes cuBLAS's heuristic pick and runs matrix products on
     * strided views (transposed attention operands). A-priori 0.80 each;
     * fitted 0.59 eager and 0.77 engine (dippm calibrate, 838 rows). */
    .tc_eff = {[RT_PYTORCH] = FIT_TC_EFF_PYTORCH, [RT_TENSORRT] = FIT_TC_EFF_TENSORRT,
               [RT_INDUCTOR] = INDUCTOR_AS_EAGER(TC_EFF), [RT_ONNXRUNTIME] = ORT_AS_EAGER(TC_EFF)},
    /* FP32 SGEMM on CUDA cores reaches ~80-90% of 19.5 TFLOPS (a-priori
     * 0.85). Fitted with simt_k_half below on NeuSight's measured single
     * kernels (dippm eval --kernels --fit: the train split's FP32 matmul
     * and linear rows on A100-PCIe-40GB, T4 and V100, but for A100's batched
     * ones: batched_sgemm_eff's). */
    .cuda_eff = FIT_CUDA_EFF,
    /* STREAM-like kernels sustain ~80-90% of HBM peak on A100; a-priori
     * 0.85, fitted 0.95. */
    .bw_eff = FIT_BW_EFF,
    /* Kernel launch latency plus ramp-up/drain of a grid: 2-6 us per kernel
     * on A100 (Nsight traces of back-to-back small kernels); a-priori 3,
     * fitted per runtime: 7.9 eager, 6.8 engine. The engine figure is the
     * average over engines enqueued kernel by kernel on a stream
     * (FasterTransformer's and TensorRT-LLM's decode steps add per-step
     * synchronisation); an engine replayed as a CUDA graph has its own
     * figure below. */
    .kernel_us = {[RT_PYTORCH] = FIT_KERNEL_US_PYTORCH, [RT_TENSORRT] = FIT_KERNEL_US_TENSORRT,
                  [RT_INDUCTOR] = INDUCTOR_AS_EAGER(KERNEL_US),
                  [RT_ONNXRUNTIME] = ORT_AS_EAGER(KERNEL_US)},
    /* An engine replayed as a CUDA graph: the host launches the whole graph
     * once (call_us) and the GPU front end starts each node from the
     * uploaded graph, without a stream launch per kernel; what remains per
     * kernel is the grid's ramp-up and drain and the dependency between
     * consecutive nodes. NVIDIA's CUDA Graphs introduction shows back-to-back
     * short kernels losing about half the per-kernel gap they lose on a
     * stream; a-priori 2 us, fitted 5.3 on the mapped sources that replay
     * a graph: TensorRT's demoBERT (perf --enable_graph), NVIDIA's MLPerf
     * SingleStream harness (use_graphs), AITemplate's benchmarks
     * (graph_mode) and vLLM's decode steps (ML.ENERGY). */
    .graph_kernel_us = FIT_GRAPH_KERNEL_US,
    /* Eager PyTorch issues every op from Python through the dispatcher
     * (10-40 us per nn.Module call, PyTorch 1.12); an engine enqueues
     * pre-built kernels (a few us each); a-priori 25 and 1.5, fitted.
     * torch.compile's generated wrapper (inductor) skips the module calls
     * and the dispatcher and calls each kernel's launcher directly: a
     * Triton kernel through Inductor's CachingAutotuner, 6.8-9.1 us per
     * kernel on a current host (meta-pytorch/tritonbench pull request
     * 1017's per-kernel benchmark), an extern cuBLAS/cuDNN call about the
     * same; a-priori 9, not fitted (no published row isolates it).
     * ONNX Runtime's sequential executor runs each node's Compute from C++
     * (no Python, no dispatcher): fetch its inputs from the execution
     * frame, allocate the output from the arena, set up the cuBLAS or
     * cuDNN call and launch, a few microseconds more than an engine's bare
     * enqueue. A-priori 7 us, not fitted; bounded by ONNX Runtime's own
     * BERT-large notebook (PyTorch_Bert-Squad_OnnxRuntime_GPU.ipynb,
     * ORT 1.16, fp16, batch 1, 128 tokens on an RTX 4090, a GPU outside
     * dippm's table: 1.74 ms for ~220 kernels, under 8 us a kernel with
     * the GPU's work in it). */
    .dispatch_us = {[RT_PYTORCH] = FIT_DISPATCH_US_PYTORCH,
                    [RT_TENSORRT] = FIT_DISPATCH_US_TENSORRT, [RT_INDUCTOR] = 9.0,
                    [RT_ONNXRUNTIME] = 7.0},
    /* One call: Python forward entry, input handling and synchronisation
     * (eager), or enqueue + stream sync (engine); a-priori 100 and 30,
     * fitted 300 and 90 (on wall-clock timings that synchronise after
     * every call, such as DeepLearningExamples' and MLPerf's loadgen; a
     * source that times with CUDA events, around one call or a loop of
     * back-to-back calls, has no call cost: calib_map.tsv's timing column). */
    /* torch.compile's call is eager's plus what Dynamo adds once per call:
     * evaluating the guards and entering the compiled graph, ~33-44 us end
     * to end around a one-kernel graph (tritonbench pull requests 1016 and
     * 1017, less their per-kernel part); a-priori 35 us more, not fitted.
     * reduce-overhead (inductor-graph) launches its CUDA graph inside it. */
    /* ONNX Runtime's session.run: the Python binding wraps the inputs,
     * copies them to the GPU and the outputs back (or binds them with IO
     * binding), runs the executor and synchronises; a-priori the engine's
     * a-priori 30 us plus ~20 us for the binding and the copies of a
     * model's small inputs (token ids, one image), not fitted. */
    .call_us = {[RT_PYTORCH] = FIT_CALL_US_PYTORCH, [RT_TENSORRT] = FIT_CALL_US_TENSORRT,
                [RT_INDUCTOR] = FIT_CALL_US_PYTORCH + 35.0, [RT_ONNXRUNTIME] = 50.0},
    /* CUDA context with cuBLAS/cuDNN loaded as NVML reports it: ~1.0-1.5 GiB
     * for PyTorch on A100 with CUDA 11 (lazy loading off); a-priori 1,200
     * MiB, fitted (its fixed part; the per-SM part is below) on the MIG
     * sweeps' memory rows. The engine figure is fitted to the
     * FasterTransformer GPT rows, whose process also holds PyTorch and FT's
     * preallocated buffers: it is a heavy engine process, not bare TensorRT. */
    .context_mib = {[RT_PYTORCH] = FIT_CONTEXT_MIB_PYTORCH,
                    [RT_TENSORRT] = FIT_CONTEXT_MIB_TENSORRT,
                    [RT_INDUCTOR] = INDUCTOR_AS_EAGER(CONTEXT_MIB),
                    /* a CUDA context with cuBLAS and cuDNN loaded, as
                     * PyTorch's (estimate: no ORT memory row is fitted) */
                    [RT_ONNXRUNTIME] = ORT_AS_EAGER(CONTEXT_MIB)},
    /* Part of the context grows with the SMs the process sees: CUDA reserves
     * local memory for the stack of every thread the GPU can hold (1 KiB by
     * default x 2,048 threads per SM = 2 MiB per SM), and the libraries size
     * some buffers by SM. Published MIG sweeps see it: the same encoder at
     * the same batch holds ~360 MiB more on a 7g.40gb slice (98 SMs) than on
     * a 1g.5gb (14). A-priori 2 MiB per SM; fitted 3.5. */
    .context_sm_mib = FIT_CONTEXT_SM_MIB,
    /* cuBLAS workspace (PyTorch keeps a few MiB per handle/stream) and cuDNN
     * algorithm scratch; TensorRT tactic scratch. Estimates, not fitted. */
    .workspace_mib = {[RT_PYTORCH] = 64.0, [RT_TENSORRT] = 64.0, [RT_INDUCTOR] = 64.0,
                      [RT_ONNXRUNTIME] = 64.0},
    /* Allocators round and cache blocks: device memory per byte of peak live
     * activations; a-priori 1.3, fitted on the memory rows. */
    .act_factor = FIT_ACT_FACTOR,
    /* Convolutions run as implicit GEMMs: address generation, halos and
     * filter-size tails cost ~10-30% against a dense GEMM of the same size
     * (cuDNN/CUTLASS). Eager PyTorch keeps NCHW tensors, so cuDNN adds
     * NCHW<->NHWC transforms around tensor-core convolutions and picks
     * tactics heuristically; an engine picks NHWC tactics by timing them at
     * build time. A-priori 0.8 each; fitted per runtime. */
    .conv_eff = {[RT_PYTORCH] = FIT_CONV_EFF_PYTORCH, [RT_TENSORRT] = FIT_CONV_EFF_TENSORRT,
                 [RT_INDUCTOR] = INDUCTOR_AS_EAGER(CONV_EFF), [RT_ONNXRUNTIME] = ORT_AS_EAGER(CONV_EFF)},
    /* Depthwise convolutions reach only part of streaming bandwidth: halo
     * re-reads and per-channel strided access. Eager PyTorch runs them on
     * NCHW tensors through cuDNN's generic kernels; an engine picks an NHWC
     * tactic by timing. A-priori 0.5 each; fitted 0.17 eager (cuDNN's NCHW
     * depthwise kernels are known to run far below bandwidth) and 0.55
     * engine (one EfficientNet row: weakly determined). */
    .dw_bw_eff = {[RT_PYTORCH] = FIT_DW_BW_EFF_PYTORCH, [RT_TENSORRT] = FIT_DW_BW_EFF_TENSORRT,
                  [RT_INDUCTOR] = INDUCTOR_AS_EAGER(DW_BW_EFF),
                  [RT_ONNXRUNTIME] = ORT_AS_EAGER(DW_BW_EFF)},
    /* A serving engine's decode step also costs per sequence in the batch:
     * scheduling, sampling, stop checks and detokenising on the host (the
     * GPU waits in TensorRT-LLM's and FasterTransformer's loops; vLLM's
     * keeps it clocked, sim_decode_host_w). Measured step times grow with
     * the number of sequences beyond what the KV-cache traffic explains:
     * ML.ENERGY's vLLM rows from ~8 ms at 8 sequences to ~55 ms at 474 for
     * Qwen3-8B. Only generation uses it (src/core/generation.c). Eager
     * generate() samples the whole batch in one vectorised call: 0, not
     * fitted. A-priori 5 us for an engine's C++ step loop (TensorRT-LLM,
     * FasterTransformer) and 30 us for vLLM's Python one (its scheduler,
     * sampler and detokeniser touch every request object every step);
     * fitted 15 and 61. */
    .seq_step_us = {[RT_PYTORCH] = 0, [RT_TENSORRT] = FIT_SEQ_STEP_US_TENSORRT,
                    [RT_VLLM] = FIT_SEQ_STEP_US_VLLM, [RT_INDUCTOR] = 0, [RT_ONNXRUNTIME] = 0},
    /* A generation request costs a fixed time before its first token beyond
     * the prefill pass: the runtime sets up the request's buffers, sampling
     * state and KV-cache blocks, copies the prompt in and synchronises
     * (TensorRT-LLM's gptSessionBenchmark times the whole generate() call).
     * TensorRT-LLM's batch-1 first-token rows show it: a 128-token prompt
     * on H100 in FP8 takes 5.5-7 ms where the prefill's kernels explain
     * ~4. Only generation uses it (src/core/generation.c); vllm shares the
     * engine's figure (no vLLM first-token row is fitted); eager
     * generate() is not fitted: 0. A-priori 500 us; fitted 1.5 ms. */
    .request_us = {[RT_PYTORCH] = 0, [RT_TENSORRT] = FIT_REQUEST_US_TENSORRT, [RT_INDUCTOR] = 0,
                   [RT_ONNXRUNTIME] = 0},
    /* Hopper (H100, H200) tables quote math peaks at the 1,980 MHz boost
     * clock; under a sustained tensor-core load the 700 W boards settle
     * lower (~1,750 MHz is commonly reported), and its larger peaks are
     * harder to feed. A100's sustain is part of tc_eff (fitted on A100
     * rows), so this is the further fraction Hopper keeps, on tensor and
     * CUDA-core math alike. A-priori 1; fitted 0.86 (an effective ~1,700 MHz). */
    .hopper_clock = FIT_HOPPER_CLOCK,
    /* Compute and memory overlap inside a kernel only as far as its
     * pipeline hides one behind the other: the time is (c^p + m^p)^(1/p);
     * a GEMM's fused epilogue math overlaps its main loop the same way.
     * A-priori 4 (at c = m the kernel takes 19% longer than either);
     * fitted. */
    .overlap_p = FIT_OVERLAP_P,
    /* A GEMM tile spends a fixed prologue and epilogue worth k_half K-steps
     * of its main loop: efficiency K / (K + k_half). Ampere/Hopper GEMMs
     * fill a 3-4 stage operand pipeline of 32 K each before the first MMA,
     * then load and store C. A-priori 96; fitted 77. */
    .k_half = FIT_K_HALF,
    /* An FP32 GEMM on CUDA cores (cuBLAS's SGEMM: eager PyTorch's matrix
     * products in FP32, TF32 off) loads 8 K per main-loop step into a
     * 2-stage pipeline, so its fixed part is short against tensor-core
     * tiles'. A-priori 16; fitted on NeuSight's measured single kernels
     * (dippm calibrate --kernels; train split). */
    .simt_k_half = FIT_SIMT_K_HALF,
    /* The one-tile batched SGEMM of Ampere and Ada (sim_board) against the
     * shape-chosen kernels cuda_eff describes: a-priori 1; fitted on the
     * A100 train split's batched rows of at least 1 ms (dippm eval
     * --kernels --fit). */
    .batched_sgemm_eff = FIT_BATCHED_SGEMM_EFF,
    /* A layer or group norm reads its rows for the statistics and again to
     * normalise, with block synchronisation between. A-priori 0.7 (the
     * figure reductions keep); fitted on NeuSight's train-split layer norm
     * kernels of at least 300 us (dippm eval --kernels --fit). */
    .norm_bw_eff = FIT_NORM_BW_EFF,
    /* Eager PyTorch's softmax over rows of up to 1024 (softmax_warp_forward)
     * holds a row in a warp's registers and streams like an element-wise
     * kernel; over longer rows (cunn_SoftMaxForward, a block a row) it
     * streams too while the row is float4 loads the whole block shares
     * evenly (1024, 2048, 4096 or 8192 floats), but a row with a scalar
     * tail, or not 16-byte aligned, leaves its threads waiting on loads one
     * element wide: its bandwidth is capped by what the resident threads
     * keep in flight, every SM's threads x the clock x this many bytes
     * (sim_kernel.c). NeuSight's kernels show the cap is the threads', not
     * the board's: such rows keep 0.62 of the streaming bandwidth on A100,
     * 0.66 on V100 (2048 threads an SM), 0.82 on T4 (1024 threads, a
     * fifth of A100's bandwidth an SM) and all of it on L4 (a sixth),
     * while tail-free rows stream on all four. A-priori 0.003; fitted on
     * the train-split softmax rows of at least 300 us (their lengths are
     * random: nearly all have a tail). */
    .softmax_thread_bpc = FIT_SOFTMAX_THREAD_BPC,
    /* Eager PyTorch's layer norm (vectorized_layer_norm_kernel, 128
     * threads a row) reads each row twice, and its softmax over rows of
     * more than 1024 (cunn_SoftMaxForward, 256 or 512 threads) three times:
     * max, sum, output. The later passes find the row in the L1 while the
     * rows in flight (the SM's resident blocks) fit it, else in the L2
     * while every SM's rows fit that; past both they go to DRAM (sim.c
     * row_rereads, sim_kernel.c sim_row_miss). NeuSight's kernels show it:
     * a norm over rows of 1024 keeps 1.4x the bandwidth of one over 4096
     * on T4, the same rows on L4 (48 MB of L2) do not slow down, and a
     * softmax over 16384 runs 1.5-1.8x slower than one over 4096 on A100,
     * T4 and V100. The share of the caches a norm's rows find and how
     * sharp the edge is (the re-reads all miss at 1 + row_cache_soft
     * times the share) are fitted with norm_bw_eff on the train-split layer
     * norms of at least 300 us (dippm eval --kernels --fit), whose lengths
     * (up to 4096) cross the edge; a-priori 0.5 and 1. No train-split
     * softmax row is long enough to see the edge; the softmax's rows live
     * in the same caches and take the norms' share (the test split's rows
     * up to 16384 are its check). */
    .row_cache = FIT_ROW_CACHE,
    .row_cache_soft = FIT_ROW_CACHE_SOFT,
    /* Board power while a kernel runs, as shares of the idle-to-TDP range:
     * any running kernel holds boost clocks and wakes the SMs and caches
     * (p_active); streaming HBM adds p_memory at full bandwidth, and math
     * p_compute at the rate the best GEMMs reach (tc_eff or cuda_eff of the
     * peak the board sustains: a Hopper board below boost clock is at its
     * power limit, so its use counts against hopper_clock x the peak). A-priori
     * 0.2 and 0.6 (A100/H100 power studies, e.g. arXiv 2312.02741); fitted
     * to the average power of the ML.ENERGY H100 rows. */
    .p_active = FIT_P_ACTIVE,
    .p_memory = FIT_P_MEMORY,
};

const struct sim_params *sim_params_default(void)
{
    return &fitted;
}

/* ---- per GPU family (dippm eval --kernels --fit) ---------------------------- */
/* Fitted on each family's train-split rows of NeuSight's measured kernels
 * (eager PyTorch 2.1, FP32 with TF32 off): fp32_keep the geometric mean of
 * predicted over measured time of its matmul and linear rows of at least
 * 1 ms, bw_keep that of its element-wise rows of at least 300 us (times the
 * figures in use when the fit ran). A family shares its SM design and memory
 * technology; its boards' clocks differ through the GPU table's sustain.
 * NeuSight has no train-split row on H100 or L4: H100 takes hopper_clock
 * (fitted on published rows) and L4 the a-priori figures below, so both stay
 * GPUs no fit has seen. */
/* Ampere and Ada (sm_80, sm_86, sm_89: A100, L4) share cuBLAS's
 * ampere_sgemm kernels, and every strided-batched FP32 product (torch.bmm,
 * the attention matmuls of eager PyTorch) runs ampere_sgemm_128x128_nn
 * whatever its shape: all 12,705 A100-PCIe-40/80GB batched rows of
 * NeuSight's train and test splits name it, N = 64 included, where a
 * 128-wide tile wastes half its columns (those rows measure 1.5x the time
 * a best-tile model gives). Volta and Turing (volta_sgemm_*) and Hopper
 * (sm80_xmma_gemm_* tile sizes) choose among tiles by shape, as the model
 * does. */
#define AMPERE_BATCHED_SGEMM_TILE 1 /* sim_fixed.tile_m/tile_n[1]: 128 x 128 */
/* The last two columns are each SM architecture's tuning-guide figures:
 * resident threads per SM (Volta, Ampere GA100, Hopper 2048; Ada 1536;
 * Turing 1024) and the most of the unified L1/shared memory the L1 data
 * cache can take (GA100 192 KiB, Hopper 256, Volta and Ada 128, Turing 64
 * of its 96). */
static const struct sim_board boards[] = {
    /* A100-PCIe-40GB: 3054 linear, 204 element-wise rows */
    {"A100", FIT_BOARD_A100, AMPERE_BATCHED_SGEMM_TILE, 2048, 192},
    /* L4 (Ada, 72 W): a board of T4's power class holds about T4's share of
     * its boost clock under load (T4: sustain x fp32_keep = 0.75 x 0.777);
     * and its 30.3 TFLOPS count 128 FP32 lanes per SM, half of which share a
     * datapath with INT32, so an SGEMM keeps ~0.7 of what one on a single-
     * issue SM keeps (published SGEMM figures on Ampere GA10x and Ada parts
     * reach ~0.6-0.67 of the doubled peak where A100 reaches ~0.9):
     * 0.7 x 0.75 x 0.777 / 0.85 (L4's sustain) = 0.48, an a-priori estimate.
     * Its GDDR6 keeps T4's fitted GDDR6 share of bandwidth. */
    {"L4", 0.48, 0.8472, AMPERE_BATCHED_SGEMM_TILE, 1536, 128},
    {"T4", FIT_BOARD_T4, -1, 1024, 64},   /* T4-PCIe-16GB: 8328 GEMM, 2985 element-wise rows */
    {"V100", FIT_BOARD_V100, -1, 2048, 128}, /* V100-PCIe-32GB: 5463 GEMM, 644 element-wise rows */
    /* Hopper: no kernel row to fit; the SM's figures only */
    {"H100", 1.0, 1.0, -1, 2048, 256},
    {"H200", 1.0, 1.0, -1, 2048, 256},
};
static const struct sim_board no_board = {NULL, 1.0, 1.0, -1, 2048, 0};

const struct sim_board *sim_board_of(const struct hw *hw)
{
    const char *fam = hw && hw->gpu ? hw->gpu->family : NULL;
    for (size_t i = 0; fam && i < sizeof boards / sizeof boards[0]; i++)
        if (boards[i].family[0] == fam[0] && !strcmp(boards[i].family, fam))
            return &boards[i];
    return &no_board;
}

/* ---- fixed -------------------------------------------------------------- */
const struct sim_fixed sim_fixed = {
    /* CTA tile shapes cuBLAS/CUTLASS pick from on Ampere/Hopper, largest
     * first, and the fraction of peak each main loop reaches when every SM
     * is busy (smaller tiles re-read operands more: CUTLASS profiler ratios,
     * estimates). The kernel model picks the best tile per GEMM, as the
     * libraries' heuristics do. */
    .tile_m = {256, 128, 128, 64},
    .tile_n = {128, 128, 64, 64},
    .tile_peak = {1.00, 0.95, 0.85, 0.65},
    /* cuBLAS splits K up to 16 ways when M x N tiles cannot fill the SMs,
     * keeping at least 128 of K per split. */
    .split_k_max = 16,
    /* A fused attention kernel loads its query block and writes its output
     * once per block while its inner products run over the head size: its
     * efficiency keeps d / (d + 32) of the tile's (d = 64: 0.67). Not
     * fitted: the GEMM figure (k_half) is a pipeline fill the attention
     * loop over the keys amortises. */
    .attn_k_half = 32.0,
    /* GEMMs of at most 16 rows run as matrix-vector or small-M kernels
     * (cuBLAS gemv/gemvx, TensorRT-LLM's and FasterTransformer's decode
     * GEMMs): 128 columns per CTA, ~70% of the main-loop peak on the rows
     * they have (estimate). Their time is the weights streamed from DRAM,
     * which the memory term of the roofline already gives. */
    .skinny_m = 16,
    .skinny_n = 128,
    .skinny_peak = 0.7,
    .split_k_min_k = 128.0,
    /* Tensor cores need K and N multiples of 16 bytes: 4 TF32, 8 FP16/BF16,
     * 16 INT8 or FP8 elements (NVIDIA Deep Learning Performance guide, "Tensor Core
     * requirements"); FP32 has no tensor-core path (0 = no requirement). */
    .align_elems = {[PREC_FP32] = 0, [PREC_TF32] = 4, [PREC_FP16] = 8, [PREC_BF16] = 8,
                    [PREC_INT8] = 16, [PREC_FP8] = 16},
    /* Misaligned dims fall back to padded or slower kernels: the guide shows
     * 2-4x slowdowns for odd dims; we keep half the efficiency (estimate). */
    .misalign_eff = 0.5,
    /* Grouped convolutions (ResNeXt) run implicit GEMMs per group at roughly
     * half the efficiency of dense ones (cuDNN, estimate). */
    .grouped_eff = 0.5,
    /* Elementwise and reduction arithmetic on CUDA cores rarely exceeds half
     * of the FMA peak (transcendentals, conversions; estimate). */
    .vec_eff = 0.5,
    /* Depthwise convolutions do 9-25 MACs per loaded element on CUDA cores;
     * cuDNN reaches ~30% of FP32 peak on them (estimate). */
    .dw_eff = 0.3,
    /* A 3x3 stride-1 FP32 convolution on CUDA cores (V100, T4; cuDNN's
     * Winograd, FFT and implicit-SGEMM kernels) runs at 1.34 x cuda_eff x
     * the FP32 peak in direct-convolution FLOPs: Winograd's F(2x2,3x3)
     * does 2.25x fewer multiplications. Set from NeuSight's measured
     * train-split convolutions on V100 and T4 (every one 3x3, stride 1):
     * `python3 tools/neusight_conv.py` prints the geometric mean of
     * predicted over measured time per GPU, 1 when this figure is right
     * (V100 1.06, T4 0.93 over 180 and 193 rows; MAPE 44% and 41%: the
     * algorithm cuDNN picks per shape is not modelled). Before it, these
     * convolutions carried conv_eff, the tensor-core convolutions' loss,
     * and were predicted 3.2x (V100) and 4.6x (T4) too slow. */
    .simt_winograd = 1.34,
    /* Reductions need two passes or block synchronisation: ~70% of
     * streaming bandwidth (estimate; norms and softmax have fitted figures
     * of their own, norm_bw_eff and softmax_thread_bpc). */
    .reduce_bw_eff = 0.7,
    /* Gathers/scatters touch memory irregularly: ~50% of streaming
     * bandwidth (estimate). */
    .gather_bw_eff = 0.5,
    /* A view op (reshape, flatten, squeeze) costs the Python/dispatcher part
     * of an op (~30%) but launches nothing (estimate). */
    .view_dispatch_frac = 0.3,
    /* Dynamic power: a kernel that runs its math as fast as the library's
     * best GEMMs (tc_eff or cuda_eff of the sustained peak) draws the full
     * idle-to-TDP range (estimate; checked by the ML.ENERGY diffusion rows'
     * energy per image, which no fit reads).
     * Added to the fitted active and memory shares (sim_params) and capped
     * at 1. */
    .p_compute = 1.0,
    /* A weight-only GEMM (w8a16, w4a16) turns each weight into fp16 in
     * registers before the MMA: unpack (one lop3 or prmt per pair of
     * weights), subtract the offset and multiply by the group's scale (one
     * half2 each per pair), the int-to-half conversion of FasterTransformer's
     * and Marlin's kernels (Kim et al., "Who Says Elephants Can't Run?",
     * arXiv 2211.10017, section 3). Three half2 instructions per pair are
     * three FMA-rate issue slots per weight on the CUDA-core vector peak
     * (derived from the instruction count, not fitted). */
    .dequant_flops = 3.0,
    /* Marlin keeps at most 4 x 16 = 64 rows of A per CTA (thread_m_blocks 1
     * to 4 in IST-DASLab/marlin's marlin_cuda_kernel.cu) and runs larger
     * batches as several 64-row problems, each dequantising the weights
     * again; TensorRT-LLM's weight-only GEMMs (CUTLASS fpA_intB) take tiles
     * of 16 to 128 rows. 64, from Marlin's kernel. */
    .dequant_rows = 64.0,
};
