/*
 * config.h - a prediction configuration: which GPU (or MIG slice), precision,
 * runtime and batch. Input dims and sequence length are graph symbols
 * (graph_sym_set); batch is kept here too so it can be applied to any graph.
 */
#ifndef DIPPM_CONFIG_H
#define DIPPM_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/status.h"

/* The precisions, in the order every list shows them: X(id, name, bytes per
 * element). Which are only a compute mode and the other names each takes
 * are in config.c. */
#define PRECISION_LIST(X)          \
    X(PREC_FP32, "fp32", 4)        \
    X(PREC_TF32, "tf32", 4)        \
    X(PREC_FP16, "fp16", 2)        \
    X(PREC_BF16, "bf16", 2)        \
    X(PREC_INT8, "int8", 1)        \
    X(PREC_FP8, "fp8", 1)

enum precision {
#define X(id, name, bytes) id,
    PRECISION_LIST(X)
#undef X
    PREC__COUNT
};

/* "pytorch": eager, one kernel per op, attention as the graph writes it
 * (MatMul, Softmax, MatMul: PyTorch 1.x and models that spell it out);
 * "tensorrt": fused engine, its kernels enqueued one by one on a stream;
 * "pytorch-sdpa": eager with fused scaled-dot-product attention
 * (torch.nn.functional.scaled_dot_product_attention, the default attention
 * of PyTorch 2 models in transformers and diffusers); "tensorrt-graph": the
 * same fused engine captured once in a CUDA graph and replayed (trtexec
 * --useCudaGraph, TensorRT's demoBERT perf --enable_graph): one launch per
 * inference instead of one enqueue per kernel; "vllm": a serving engine
 * (vLLM) whose fused kernels replay as CUDA graphs like tensorrt-graph's,
 * and whose Python step loop schedules, samples and detokenises every
 * sequence of a decode step on the host (sim_params.seq_step_us);
 * "inductor": torch.compile's default mode (TorchInductor): cuBLAS GEMMs
 * and cuDNN convolutions as eager runs them, every chain of element-wise
 * ops, normalisations and reductions between them fused into one generated
 * Triton kernel, attention through SDPA, views free, and its generated
 * wrapper issuing each kernel at a fraction of eager's per-op dispatch;
 * "inductor-graph": torch.compile(mode="reduce-overhead"), the same kernels
 * replayed as a CUDA graph;
 * "onnxruntime": ONNX Runtime's CUDA execution provider: the session's
 * graph transformers fuse the patterns they know (BatchNorm folded into
 * a convolution with its bias and ReLU, a Linear's bias into its GEMM,
 * an activation or LayerNorm written out as element-wise ops into one
 * kernel, the residual Add with the LayerNorm after it, QKV projections
 * into one GEMM and attention into one kernel) but no general pointwise
 * chain after a GEMM or convolution; cuBLAS GEMMs and cuDNN convolutions
 * on NCHW tensors, TF32 on by default; its C++ executor launches every
 * kernel from the host at a fraction of eager's cost per op;
 * "onnxruntime-graph": the same session with enable_cuda_graph, its
 * kernels replayed as a CUDA graph.
 * The enum's order is the features' and the fitted constants' (append
 * only); the order lists show runtimes in and the other names each takes
 * are in config.c. RUNTIME_LIST_FEATURED is the runtimes the GNN's
 * features name (the weights' schema); a runtime after them shows the GNN
 * the featured runtime it resembles (runtime_feature). */
#define RUNTIME_LIST_FEATURED(X)           \
    X(RT_PYTORCH, "pytorch")               \
    X(RT_TENSORRT, "tensorrt")             \
    X(RT_PYTORCH_SDPA, "pytorch-sdpa")     \
    X(RT_TENSORRT_GRAPH, "tensorrt-graph") \
    X(RT_VLLM, "vllm")
#define RUNTIME_LIST(X)          \
    RUNTIME_LIST_FEATURED(X)     \
    X(RT_INDUCTOR, "inductor")   \
    X(RT_INDUCTOR_GRAPH, "inductor-graph") \
    X(RT_ONNXRUNTIME, "onnxruntime") \
    X(RT_ONNXRUNTIME_GRAPH, "onnxruntime-graph")

enum runtime {
#define X(id, name) id,
    RUNTIME_LIST(X)
#undef X
    RT__COUNT
};

/* How many runtimes the GNN's features name: the first RT__FEATURED. */
enum {
#define X(id, name) +1
    RT__FEATURED = 0 RUNTIME_LIST_FEATURED(X)
#undef X
};

/* Eager PyTorch (with or without fused attention): one dispatch per op. */
static inline bool runtime_eager(enum runtime r)
{
    return r == RT_PYTORCH || r == RT_PYTORCH_SDPA;
}

/* A fused engine (TensorRT-style), enqueued per kernel or replayed as a
 * CUDA graph, or a serving engine built from the same kind of fused
 * kernels: the same kernels, fusion and efficiencies. */
static inline bool runtime_engine(enum runtime r)
{
    return r == RT_TENSORRT || r == RT_TENSORRT_GRAPH || r == RT_VLLM;
}

/* torch.compile (TorchInductor), launched per kernel or replayed as a CUDA
 * graph: generated fused kernels between library GEMMs (sim_fuse.c). */
static inline bool runtime_inductor(enum runtime r)
{
    return r == RT_INDUCTOR || r == RT_INDUCTOR_GRAPH;
}

/* ONNX Runtime's CUDA execution provider, launched per kernel or replayed
 * as a CUDA graph: the session's pattern fusions (sim_fuse.c). */
static inline bool runtime_onnxruntime(enum runtime r)
{
    return r == RT_ONNXRUNTIME || r == RT_ONNXRUNTIME_GRAPH;
}

/* Kernels replayed from a captured CUDA graph: no stream launch per kernel
 * (sim_params.graph_kernel_us). */
static inline bool runtime_graph(enum runtime r)
{
    return r == RT_TENSORRT_GRAPH || r == RT_VLLM || r == RT_INDUCTOR_GRAPH ||
           r == RT_ONNXRUNTIME_GRAPH;
}

/* The runtime whose fitted constants r uses: pytorch-sdpa is the same
 * framework as pytorch (dispatch, efficiencies, context), only its
 * attention runs as one kernel; tensorrt-graph is the same engine as
 * tensorrt, only launched differently (sim_params.graph_kernel_us); vllm
 * runs the same kind of kernels and keeps only its host cost per sequence
 * of a decode step (sim_params.seq_step_us[RT_VLLM]) apart;
 * inductor-graph is inductor's kernels replayed as a CUDA graph, and
 * onnxruntime-graph onnxruntime's. */
static inline enum runtime runtime_base(enum runtime r)
{
    if (r == RT_PYTORCH_SDPA)
        return RT_PYTORCH;
    if (r == RT_INDUCTOR_GRAPH)
        return RT_INDUCTOR;
    if (r == RT_ONNXRUNTIME_GRAPH)
        return RT_ONNXRUNTIME;
    return r == RT_TENSORRT_GRAPH || r == RT_VLLM ? RT_TENSORRT : r;
}

/* Quantisation schemes, in the order lists show them: X(id, name, bits per
 * weight, bytes per weight scale, activation precision, options it takes).
 * A scheme quantises the weights of the Linear layers (a MatMul or Gemm
 * reading an initializer as its second input) but the output projection
 * (lm_head) and the embeddings, which GPTQ, AWQ and TensorRT-LLM's
 * quantisers leave in 16 bits; the rest of the model runs at the
 * activation precision. Weight-only schemes (a16) dequantise each weight
 * tile in the GEMM's prologue and run fp16 tensor-core math (Marlin,
 * TensorRT-LLM's weight-only GEMMs); GPTQ and AWQ checkpoints keep one
 * fp16 scale per group of weights, W8A8 ones one fp32 scale per output
 * channel (SmoothQuant, FP8 per-row) or per tensor. The options a scheme
 * takes after a colon are in config.c (quant_parse); "none" is the
 * default: every weight at --precision. */
#define QUANT_OPT_GROUP 1 /* :gN (N weights per scale along K) or :row (per output channel) */
#define QUANT_OPT_ACT 2   /* :static or :dynamic activation scales */
#define QUANT_OPT_ROW 4   /* :tensor or :row (per-channel weight, per-token activation scales) */
#define QUANT_LIST(X)                                                 \
    X(QUANT_NONE, "none", 0, 0, PREC_FP32, 0)                         \
    X(QUANT_W8A16, "w8a16", 8, 2, PREC_FP16, QUANT_OPT_GROUP)         \
    X(QUANT_W4A16, "w4a16", 4, 2, PREC_FP16, QUANT_OPT_GROUP)         \
    X(QUANT_W8A8, "w8a8", 8, 4, PREC_INT8, QUANT_OPT_ACT)             \
    X(QUANT_FP8, "fp8", 8, 4, PREC_FP8, QUANT_OPT_ROW)

enum quant_scheme {
#define X(id, name, bits, scale_bytes, act, opts) id,
    QUANT_LIST(X)
#undef X
    QUANT__COUNT
};

/* A scheme with its options. */
struct quant {
    enum quant_scheme scheme;
    int group;    /* weights per scale along K; 0: one scale per output channel (or, for
                   * fp8:tensor and w8a8, per tensor where per_tensor says so) */
    bool dynamic; /* activation scales computed every call: a quantisation pass before
                   * each quantised GEMM (w8a8:dynamic, fp8:row) */
    bool per_tensor; /* one weight scale per tensor (fp8:tensor) */
};

/* The featured runtime (< RT__FEATURED) the GNN's features show for r: r
 * itself, or for a runtime the weights were not trained on, the featured
 * runtime it resembles: inductor is PyTorch with fused attention and a
 * lighter host (pytorch-sdpa), inductor-graph fused kernels replayed as a
 * CUDA graph (tensorrt-graph); onnxruntime is a C++ runtime that fuses the
 * graph once and enqueues each kernel from the host, attention as one
 * kernel (tensorrt), and onnxruntime-graph the same replayed as a CUDA
 * graph (tensorrt-graph). The teacher's figures the GNN is anchored on
 * carry the difference. */
static inline enum runtime runtime_feature(enum runtime r)
{
    switch (r) {
    case RT_INDUCTOR: return RT_PYTORCH_SDPA;
    case RT_ONNXRUNTIME: return RT_TENSORRT;
    case RT_INDUCTOR_GRAPH: case RT_ONNXRUNTIME_GRAPH: return RT_TENSORRT_GRAPH;
    default: return r;
    }
}

struct config {
    int gpu;  /* index into the GPU table (gpu.h) */
    int mig;  /* MIG profile index of that GPU, or -1 for the whole GPU */
    enum precision prec;
    enum runtime rt;
    int64_t batch;
    /* The host's dispatch per op of an eager runtime in microseconds, for
     * a harness or host faster or slower than the calibrated one; 0: the
     * calibrated sim_params dispatch_us. Ignored by the other runtimes. */
    double dispatch_us;
    /* The weights' quantisation (QUANT_NONE: every weight at prec). With a
     * scheme, prec is its activation precision. */
    struct quant quant;
};

const char *precision_name(enum precision p);
int precision_bytes(enum precision p);
/* A type tensors are stored in (false for tf32, a compute mode). */
bool precision_storage(enum precision p);
/* A name or alias of PRECISION_LIST, any case. */
bool precision_parse(const char *s, enum precision *out);
/* "fp32, tf32, fp16, bf16, int8 or fp8": every precision, for messages. */
const char *precision_names(void);
/* "fp32, fp16, bf16, int8 or fp8": the storage precisions (a KV cache's). */
const char *precision_storage_names(void);
const char *runtime_name(enum runtime r);
/* A name or alias of RUNTIME_LIST, any case. */
bool runtime_parse(const char *s, enum runtime *out);
/* "pytorch, pytorch-sdpa, inductor, ..., vllm": every runtime
 * name in the order lists show them, for messages. */
const char *runtime_names(void);

const char *quant_name(enum quant_scheme q);
/* Bits per quantised weight (0 for none). */
int quant_bits(enum quant_scheme q);
/* Bytes of one weight scale. */
int quant_scale_bytes(enum quant_scheme q);
/* The precision a scheme's activations (and its GEMMs' math) run in. */
enum precision quant_act_precision(enum quant_scheme q);
/* Whether q keeps activations in 16 bits (dequantises weights in the GEMM). */
bool quant_weight_only(enum quant_scheme q);
/* Whether scheme q's activations run in p: its activation precision, or
 * bf16 for a weight-only scheme (QUANT_NONE runs in any). */
bool quant_precision_ok(enum quant_scheme q, enum precision p);
/* Sets c's scheme to q, and its precision to q's activation precision
 * where the current one is not q's (quant_precision_ok); returns whether
 * the precision moved. */
bool config_set_quant(struct config *c, const struct quant *q);
/* Parses SCHEME[:OPTION...] (any case): w4a16[:gN|:row], w8a16[:gN|:row],
 * w8a8[:static|:dynamic], fp8[:tensor|:row] or none. On error ST_EUSAGE
 * with a message naming what was given and the accepted forms. */
enum status quant_parse(const char *s, struct quant *out, struct diag *d);
/* Whether x and y are the same scheme with the same options. */
bool quant_equal(const struct quant *x, const struct quant *y);
/* The canonical spelling of q, e.g. "w4a16:g128", "w8a8:dynamic". */
void quant_format(const struct quant *q, char *buf, size_t size);
/* cfg's precision as a report shows it: "fp16", or with a scheme
 * "fp16, w4a16:g128 weights"; returns buf. */
const char *config_prec_label(const struct config *cfg, char *buf, size_t size);
/* "none, w8a16[:gN|:row], ...": every scheme with its options, for messages
 * and help. */
const char *quant_forms(void);

/* The default GPU: the first row of the GPU table (gpu.c), the
 * A100-SXM4-40GB of the DIPPM paper (tests/test_gpu.c checks the name). */
#define CONFIG_DEFAULT_GPU 0

/* Defaults: A100-SXM4-40GB (the paper's GPU), whole GPU, fp32, pytorch, batch 1,
 * the calibrated host dispatch. */
void config_default(struct config *c);

#endif
