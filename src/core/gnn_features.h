/*
 * gnn_features.h - the GNN's input encoding.
 *
 * Per node (FEAT_NODE_DIM floats): op class one-hot, frequent-op indicators,
 * log-scaled output shape and element count, MACs, FLOPs, bytes read/written,
 * params, attributes (kernel, stride, groups, depthwise), bytes at the
 * configured precision, the node's roofline times on the configured GPU and
 * the teacher's view of the node (its modelled time, share, bound, fusion,
 * GEMM efficiency). Per graph (FEAT_GRAPH_DIM floats): batch, log totals,
 * node count, the teacher's latency/energy/memory and host share, precision
 * and runtime one-hots and the GPU/MIG spec from hw_from_config.
 *
 * The feature list is versioned: gnn_features_schema_id() is an FNV-64 hash of
 * the schema version and every feature name, stored in each weight file and
 * dataset so that features computed by a different schema are refused.
 * Values are raw (log-scaled where noted); normalisation (mean/std from the
 * training set) is applied by the GNN with statistics from the weight file.
 */
#ifndef DIPPM_GNN_FEATURES_H
#define DIPPM_GNN_FEATURES_H

#include <stdint.h>

#include "core/config.h"
#include "core/gnn.h"
#include "core/gpu.h"
#include "graph/ir/ir.h"
#include "core/sim.h"

#define FEAT_SCHEMA_VERSION 2

/* Frequent ops that get an indicator of their own besides the class one-hot. */
#define FEAT_FREQ_OPS(X)                                                              \
    X(Conv) X(ConvTranspose) X(Gemm) X(MatMul) X(BatchNormalization)                  \
    X(LayerNormalization) X(Relu) X(Add) X(Mul) X(MaxPool) X(GlobalAveragePool)       \
    X(Softmax) X(Transpose) X(Reshape) X(Concat)

/* Scalar node features after the one-hots (name, description). */
#define FEAT_NODE_SCALARS(X)                                                   \
    X(unsupported, "1 if shape/cost inference did not cover the node")        \
    X(out_rank, "rank of the first output")                                  \
    X(out_d0, "log1p of output dim 0")                                        \
    X(out_d1, "log1p of output dim 1")                                        \
    X(out_d2, "log1p of the second-to-last output dim (rank >= 3)")           \
    X(out_d3, "log1p of the last output dim (rank >= 4)")                     \
    X(out_elems, "log1p of output elements")                                  \
    X(macs, "log1p MACs")                                                     \
    X(flops, "log1p FLOPs")                                                   \
    X(bytes_read, "log1p bytes read")                                         \
    X(bytes_written, "log1p bytes written")                                   \
    X(params, "log1p parameter elements")                                     \
    X(param_bytes, "log1p parameter bytes")                                   \
    X(intensity, "log1p FLOPs per byte moved")                                \
    X(prec_bytes, "log1p bytes moved at the configured precision")            \
    X(kernel_h, "kernel height (Conv/pool), 0 otherwise")                     \
    X(kernel_w, "kernel width")                                               \
    X(stride, "largest stride")                                               \
    X(groups, "log1p groups")                                                 \
    X(depthwise, "1 if groups == input channels > 1")                         \
    X(dilated, "1 if any dilation > 1")                                       \
    X(n_inputs, "number of inputs")                                           \
    X(fan_out, "log1p consumers of the outputs")                              \
    X(t_compute, "log1p microseconds of FLOPs at the GPU's peak")             \
    X(t_memory, "log1p microseconds of precision bytes at the GPU's bandwidth") \
    X(t_roof, "log1p of the larger of the two")                               \
    X(t_teacher, "log1p microseconds of the teacher's node time")             \
    X(share_teacher, "the teacher's share of the graph's time in the node")   \
    X(t_kcompute, "log1p microseconds of the teacher's kernel compute time")  \
    X(t_kmemory, "log1p microseconds of the teacher's kernel memory time")    \
    X(efficiency, "the teacher's GEMM efficiency (0 if none)")               \
    X(fused, "1 if the teacher folds the node into a neighbour's kernel")     \
    X(kernel, "1 if the node launches a kernel")                              \
    X(tensor_core, "1 if the kernel runs on tensor cores")                    \
    X(b_compute, "1 if the teacher calls the node compute-bound")             \
    X(b_memory, "1 if memory-bound")                                          \
    X(b_overhead, "1 if overhead-bound")

#define FEAT_GRAPH_SCALARS(X)                                                  \
    X(batch, "log2 batch")                                                    \
    X(tot_macs, "log1p total MACs")                                           \
    X(tot_flops, "log1p total FLOPs")                                         \
    X(tot_params, "log1p parameter elements")                                 \
    X(tot_param_mib, "log1p parameter MiB at the configured precision")       \
    X(tot_bytes_read, "log1p bytes read")                                     \
    X(tot_bytes_written, "log1p bytes written")                               \
    X(tot_act_mib, "log1p activation MiB at the configured precision")        \
    X(peak_act_mib, "log1p peak live activation MiB at the precision")        \
    X(mem_est_mib, "log1p of parameter MiB + peak activation MiB at the precision") \
    X(io_mib, "log1p input+output MiB")                                       \
    X(n_nodes, "log1p node count")                                            \
    X(unsupported_frac, "share of nodes not covered by inference")            \
    X(peak_tflops, "log peak TFLOP/s at the precision")                       \
    X(fp32_tflops, "log CUDA-core FP32 TFLOP/s")                              \
    X(bw_tbs, "log bandwidth TB/s")                                           \
    X(sms, "SMs / 100")                                                       \
    X(mem_gib, "log usable memory GiB")                                       \
    X(l2_mib, "log L2 MiB")                                                   \
    X(tdp, "TDP W / 100")                                                     \
    X(idle, "idle W / 100")                                                   \
    X(is_mig, "1 for a MIG slice")                                            \
    X(roof_compute_ms, "log1p ms of total FLOPs at peak")                     \
    X(roof_memory_ms, "log1p ms of total precision bytes at bandwidth")       \
    X(roof_nodes_ms, "log1p ms of the summed per-node roofline bounds")        \
    X(teacher_ms, "log of the teacher's latency ms")                          \
    X(teacher_j, "log of the teacher's energy J per batch")                   \
    X(teacher_mib, "log of the teacher's memory MiB")                         \
    X(host_frac, "the teacher's host dispatch time over its latency")         \
    X(kernels, "log1p of the teacher's kernel count")

enum feat_freq {
#define X(name) FEAT_FREQ_##name,
    FEAT_FREQ_OPS(X)
#undef X
    FEAT_FREQ__COUNT
};
enum feat_node_scalar {
#define X(name, desc) FEAT_N_##name,
    FEAT_NODE_SCALARS(X)
#undef X
    FEAT_N__COUNT
};
enum feat_graph_scalar {
#define X(name, desc) FEAT_G_##name,
    FEAT_GRAPH_SCALARS(X)
#undef X
    FEAT_G__COUNT
};

#define FEAT_NODE_DIM (OPC__COUNT + FEAT_FREQ__COUNT + FEAT_N__COUNT)
/* Precision one-hot slots, one per PRECISION_LIST entry. */
#define FEAT_N_PREC PREC__COUNT
#define FEAT_GRAPH_DIM (FEAT_G__COUNT + FEAT_N_PREC + RT__FEATURED)

/* Schema hash (FNV-64 over version and names); stable across runs. */
uint64_t gnn_features_schema_id(void);
/* Name of node feature i / graph feature i ("opc:conv", "op:Relu", "macs",
 * "prec:fp16", ...); "?" out of range. Static strings. */
const char *gnn_features_node_name(int i);
const char *gnn_features_graph_name(int i);

/* Node features of node ni of inferred graph g for hw/cfg into
 * out[FEAT_NODE_DIM]; sr is the teacher's result for the same g and cfg. */
void gnn_features_node(const struct graph *g, int ni, const struct config *cfg, const struct hw *hw,
                       const struct sim_result *sr, float *out);
/* Graph features into out[FEAT_GRAPH_DIM]. g must be inferred with the batch bound. */
void gnn_features_graph(const struct graph *g, const struct config *cfg, const struct hw *hw,
                        const struct sim_result *sr, float *out);

/* The anchor of the GNN (gnn.h): w0[n] the teacher's node time shares
 * (summing to 1; uniform when the teacher gives no node any time) and
 * anchor[3] the logs of its latency ms, energy J and memory MiB. */
void gnn_features_anchor(const struct sim_result *sr, int n, float *w0, float *anchor);

/* Node adjacency of g in CSR form (node -> distinct predecessor / successor
 * nodes through tensor edges; initializers and graph inputs are not nodes).
 * Start from a zeroed struct; a build reuses the arrays of the previous one
 * (growing them only when needed). Free with gnn_features_adj_fini. */
struct gnn_features_adj {
    int n;
    int *pred_off, *pred; /* pred[pred_off[i] .. pred_off[i+1]) */
    int *succ_off, *succ;
    int *fill;            /* scratch */
    int cap_n, cap_e;
};
void gnn_features_adj_build(const struct graph *g, struct gnn_features_adj *a);
void gnn_features_adj_fini(struct gnn_features_adj *a);

/* What the forward of one graph needs, built by gnn_features_batch: the
 * normalised node rows, graph row, anchor and adjacency, and a cache of
 * the normalised node rows made so far. A node's row is a function of a
 * record of its inputs (op, output shape, cost, attributes, connectivity,
 * roofline times at the configuration, the teacher's view of it); a node
 * whose record equals one seen before, in this call (another node of the
 * same kind) or an earlier one (the same graph predicted again), gets the
 * row made then instead of its logarithms and normalisation again. The
 * records are compared in full, so a changed graph, batch or configuration
 * can never get a stale row; the cache is emptied when the model's
 * normalisation differs from the one the rows were made with, and before
 * it outgrows twice the graph. Each batch gets a key for gnn_forward_keyed
 * (gnn.h), in c->key: a batch whose rows are all the entries its nodes had
 * in the call before, with the same adjacency, keeps that call's key (so
 * the forward reuses the classes it built for it); any other gets a new
 * one. Start from a zeroed struct; free with gnn_features_cache_fini. */
struct gnn_features_cache {
    /* the batch of the last call and the arrays it points to */
    struct gnn_batch b;
    struct gnn_features_adj adj[2]; /* adj[cur] the last call's, the other the one before */
    int cur;
    uint64_t key; /* the last batch's key for gnn_forward_keyed; 0 after a clear */
    float *xn, *w0;
    int *last; /* per node, its entry in the call before (a hint, checked) */
    size_t cap_n;
    float xg[FEAT_GRAPH_DIM], anchor[GNN_T__COUNT];
    int goff[2];
    /* the rows made so far: entry e's node record and normalised row */
    size_t n_ent, cap_ent, mask;
    int *slot;      /* open addressing over mask + 1 slots: entry + 1, 0 empty */
    uint64_t *hash; /* per entry */
    double *args;   /* per entry, the record */
    float *row;     /* per entry, FEAT_NODE_DIM floats */
    float *mean, *std; /* the normalisation the rows were made with */
};

/* The batch of one graph g (inferred, with the teacher's result sr for g
 * and cfg) for m: the same floats as gnn_features_node, _graph and
 * _anchor, gnn_normalize_nodes/_graph and gnn_features_adj_build give.
 * Valid until the next call on c. */
const struct gnn_batch *gnn_features_batch(struct gnn_features_cache *c, const struct gnn_model *m,
                                           const struct graph *g, const struct config *cfg,
                                           const struct hw *hw, const struct sim_result *sr);
/* Forgets the rows made so far: the next call makes every row afresh. */
void gnn_features_cache_clear(struct gnn_features_cache *c);
void gnn_features_cache_fini(struct gnn_features_cache *c);

#endif
