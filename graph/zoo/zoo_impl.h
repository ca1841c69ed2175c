/*
 * zoo_impl.h - internals shared by the zoo: the family table and a small
 * graph builder that emits ONNX-style nodes (Conv, BatchNormalization,
 * MatMul + Add, LayerNormalization, attention ...) with weightless
 * initializers, scoped names and block labels.
 *
 * Builder values are value indices. Node and output value names are
 * "<scope>.<local>" made unique with a numeric suffix; weights are
 * "<scope>.<local>.weight" etc. Constant int64 tensors (Reshape targets,
 * Gather indices, Slice bounds) are Constant nodes, cached per content, so
 * they are not counted as parameters.
 */
#ifndef DIPPM_ZOO_IMPL_H
#define DIPPM_ZOO_IMPL_H

#include <stdbool.h>
#include <stddef.h>

#include "graph/zoo/zoo.h"

struct strmap;
struct zoo_build;

struct zoo_family {
    const char *name;
    const char *help;
    int n_params;
    const struct zoo_param *params;
    /* Prefix of preset names in graph names ("efficientnet_" + "b0"); NULL
     * when the preset names are complete ("resnet50"). */
    const char *preset_prefix;
    /* Graph name when there is no preset (may be NULL: the family name). */
    void (*name_fn)(const struct zoo_args *a, char *buf, size_t size);
    /* Cross-parameter constraints (may be NULL). */
    enum status (*check)(const struct zoo_args *a, struct diag *d);
    /* Emits nodes and marks outputs (zb_output) into b->g; the caller
     * finalizes. Configurations passed have passed check. */
    enum status (*build)(struct zoo_build *b, const struct zoo_args *a, struct diag *d);
};

/* Family tables (one per zoo_*.c file). */
extern const struct zoo_family zoo_fam_resnet, zoo_fam_vgg, zoo_fam_mobilenet_v2,
    zoo_fam_mobilenet_v3, zoo_fam_efficientnet, zoo_fam_densenet, zoo_fam_convnext,
    zoo_fam_vit, zoo_fam_swin, zoo_fam_bert, zoo_fam_gpt, zoo_fam_llama, zoo_fam_mlp,
    zoo_fam_randnet, zoo_fam_moe, zoo_fam_t5, zoo_fam_bart, zoo_fam_unet, zoo_fam_dit, zoo_fam_vae,
    zoo_fam_kernel;

const struct zoo_family *zoo_family_get(int fam);

/* Parameter accessors by name (CHECK on a wrong name: programmer error). */
int zoo_arg_int(const struct zoo_args *a, const char *name);
/* ST_ERANGE "zoo:FAM: NUM=n is not a multiple of DIV=k" unless k divides n. */
enum status zoo_check_multiple(const struct zoo_args *a, const char *fam, const char *num,
                               const char *div, struct diag *d);
double zoo_arg_float(const struct zoo_args *a, const char *name);
/* ENUM: the choice's name. */
const char *zoo_arg_enum(const struct zoo_args *a, const char *name);
/* INTS: borrowed array of n_items entries. */
const int *zoo_arg_ints(const struct zoo_args *a, const char *name);

/* torchvision's _make_divisible(v, divisor, min_value=None). */
int zoo_make_divisible(double v, int divisor);

/* ---- builder ------------------------------------------------------------ */

struct zoo_build {
    struct graph *g;
    char scope[160];          /* name prefix and block label ("" = none) */
    const char *block;        /* arena copy of scope, or NULL */
    struct strmap *used;      /* node names in use */
    struct strmap *consts;    /* constant key -> value index */
};

void zb_init(struct zoo_build *b, const char *name);
void zb_fini(struct zoo_build *b);
/* Sets scope (printf-style; "" clears it). Nodes added afterwards carry the
 * scope as their block label and name prefix. */
void zb_scope(struct zoo_build *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Limits symbol sym to the rows of a learned position table set by the
 * template parameter param ("seq=513 exceeds the maximum 512: ..."). */
void zb_limit_positions(struct zoo_build *b, const char *sym, int rows, const char *param);
/* The same refusal for the template parameter sym (the symbol's default):
 * ST_ERANGE "zoo:FAM: seq=513 exceeds the maximum 512: ..." */
enum status zoo_check_positions(const struct zoo_args *a, const char *fam, const char *sym,
                                const char *param, struct diag *d);
/* A decoder's seq within its context of ctx tokens (parameter "context"):
 * prefill takes up to ctx tokens; a decode step over seq cached tokens
 * writes position seq + 1, so seq <= ctx - 1. */
void zb_limit_context(struct zoo_build *b, int ctx, bool decode);

/* Limits the height and width symbols (graph_sym_limit; why is a phrase). */
void zb_limit_image(struct zoo_build *b, int64_t min, int64_t max, int64_t multiple,
                    const char *why);

/* [batch, c, height, width] float input named "input" with symbols. */
int zb_image_input(struct zoo_build *b, int c, int res);
/* Graph input with the given dims; sym_names[i] non-NULL makes dim i that
 * symbol (with default dims[i]). */
int zb_input(struct zoo_build *b, const char *name, enum dtype dt, int rank, const int64_t *dims,
             const char *const *sym_names);
/* A decoder's KV cache inputs past_key.l and past_value.l [batch, heads,
 * seq, hd] for each of its layers, into past_k[l] and past_v[l]. */
void zb_past_kv(struct zoo_build *b, int layers, int heads, int64_t seq, int hd, int *past_k,
                int *past_v);
/* Weight initializer "<scope>.<local>" with dims (float32). */
int zb_weight(struct zoo_build *b, const char *local, int rank, const int64_t *dims);
/* Generic node with one output; returns the output value. */
int zb_node(struct zoo_build *b, enum op op, const char *local, const int *in, int n_in);
/* Generic node with n_out outputs written to out[]; returns the node index. */
int zb_node_multi(struct zoo_build *b, enum op op, const char *local, const int *in, int n_in,
                  int *out, int n_out);
/* Last node added (for attributes). */
int zb_last(const struct zoo_build *b);

/* Constant int64 tensor of rank 1 (or 0 when rank0), cached. */
int zb_const_ints(struct zoo_build *b, const int64_t *v, int n, bool rank0);
/* Constant int64 tensor with dims but no contents (e.g. Swin's relative
 * position index), cached under key. */
int zb_const_nodata(struct zoo_build *b, const char *key, int rank, const int64_t *dims);
/* The same with float32 contents (a buffer that is not a parameter, e.g. a
 * fixed sin-cos position embedding), cached under key. */
int zb_const_float_nodata(struct zoo_build *b, const char *key, int rank, const int64_t *dims);
/* Constant float scalar, cached. */
int zb_const_float(struct zoo_build *b, double v);

int zb_conv(struct zoo_build *b, int x, const char *local, int cin, int cout, int k, int stride,
            int pad, int groups, bool bias);
int zb_bn(struct zoo_build *b, int x, const char *local, int c);
/* Unary op (Relu, Sigmoid, HardSwish, HardSigmoid, Gelu, Tanh, Softplus);
 * OP_Relu6 is emitted as Clip(x, 0, 6) and OP_Silu as Sigmoid + Mul, as the
 * ONNX exporter does. */
int zb_act(struct zoo_build *b, int x, enum op op);
int zb_binary(struct zoo_build *b, enum op op, int x, int y);
int zb_maxpool(struct zoo_build *b, int x, int k, int stride, int pad);
int zb_avgpool(struct zoo_build *b, int x, int k, int stride);
int zb_gap(struct zoo_build *b, int x);
int zb_flatten(struct zoo_build *b, int x);
/* Gemm on a 2-D input (weight [out, in], transB=1). */
int zb_gemm(struct zoo_build *b, int x, const char *local, int in, int out, bool bias);
/* MatMul with weight [in, out] (+ Add bias) on an N-D input. */
int zb_linear(struct zoo_build *b, int x, const char *local, int in, int out, bool bias);
/* GroupNormalization with 32 groups and scale and bias [c]. */
int zb_group_norm(struct zoo_build *b, int x, const char *local, int c, double eps);
/* LayerNormalization over the last axis with scale and bias [c]. */
int zb_layernorm(struct zoo_build *b, int x, const char *local, int c, double eps);
int zb_reshape(struct zoo_build *b, int x, const int64_t *shape, int n);
int zb_transpose(struct zoo_build *b, int x, const int64_t *perm, int n);
int zb_concat(struct zoo_build *b, const int *xs, int n, int axis);
int zb_softmax(struct zoo_build *b, int x, int axis);
/* Gather along axis with constant scalar index (drops that axis). */
int zb_take(struct zoo_build *b, int x, int axis, int64_t index);
/* "to the end" for Slice ends: clamped to the dim like INT64_MAX, but exact
 * in a double so dippm JSON (cJSON numbers) round-trips it. */
#define ZB_SLICE_END ((int64_t)1 << 40)
/* Slice x along the given axes (ends may be ZB_SLICE_END; steps may be NULL). */
int zb_slice(struct zoo_build *b, int x, const int64_t *starts, const int64_t *ends,
             const int64_t *axes, const int64_t *steps, int n);
/* Squeeze-and-excitation (torchvision SqueezeExcitation): GAP, 1x1 conv
 * c->sq (bias), act, 1x1 conv sq->c (bias), gate, Mul. */
int zb_se(struct zoo_build *b, int x, int c, int sq, enum op act, enum op gate);

/* Multi-head self-attention on x [B, S, D] up to (not including) the output
 * projection; returns the context [B, S, D]. fused: one qkv projection
 * "<qkv>" [D, 3D] split in three (ViT in_proj, GPT c_attn), else separate
 * "query", "key", "value" projections (BERT). mask (or -1) is added to the
 * scores (broadcast to [B, heads, S, T]); causal (or -1) is a boolean
 * [.., S, T] mask applied with Where. past_k/past_v (or -1): KV cache
 * [B, heads, P, D/heads] concatenated before the new keys. present_k/v
 * (or NULL) receive the keys and values [B, heads, P + S, D/heads] that a
 * KV cache would keep. */
int zb_attention(struct zoo_build *b, int x, int dim, int heads, const char *qkv, int mask,
                 int causal, int past_k, int past_v, int *present_k, int *present_v);
/* Scaled dot-product attention on q [B, heads, S, hd], the keys transposed
 * kt [B, heads, hd, T] and v [B, heads, T, hd]: scores times 1/sqrt(hd),
 * softmax, context merged back to [B, S, heads x hd]. */
int zb_sdpa(struct zoo_build *b, int q, int kt, int v, int heads, int hd);
/* diffusers Attention "<name>" of x [B, N, c] over ctx [B, T, kv_dim]
 * (self-attention: ctx = x, kv_dim = c): to_q/to_k/to_v (biased when
 * qkv_bias), scaled dot product over heads, to_out.0 (biased). */
int zb_cross_attention(struct zoo_build *b, const char *name, int x, int ctx, int c, int kv_dim,
                       int heads, bool qkv_bias);

/* Unsqueeze x at the given axes. */
int zb_unsqueeze(struct zoo_build *b, int x, const int64_t *axes, int n);
/* RMSNorm over the last axis (width c) with weight "<local>.weight",
 * decomposed (Pow, ReduceMean, Add, Sqrt, Div, Mul) as the exporter writes it. */
int zb_rmsnorm(struct zoo_build *b, int x, const char *local, int c);
/* Rotary embedding x * cos + rotate_half(x) * sin on [B, S, h, hd]. */
int zb_rope(struct zoo_build *b, int x, int hd, int cos, int sin);

/* A LLaMA-style decoder (zoo_llama.c), shared by the llama and moe
 * families: RMSNorm, rotary, grouped-query attention with head_dim wide
 * heads (optionally RMS-normed per head, Qwen3), a SwiGLU MLP of width inter
 * or, with experts > 0, a mixture of experts of that width (zb_moe_mlp). */
struct zb_decoder {
    int layers, hidden, heads, kv_heads, head_dim, inter, vocab, context;
    int experts, top_k; /* 0, 0: dense MLP */
    bool tied, decode, qk_norm;
    bool last_logits; /* LM head on the last position only */
};
enum status zb_decoder_build(struct zoo_build *b, const struct zb_decoder *c);
/* SwiGLU MLP "<prefix>.gate_proj/up_proj/down_proj" on y [.., h]. */
int zb_swiglu(struct zoo_build *b, int y, const char *prefix, int h, int inter);
/* Mixture-of-experts MLP (zoo_moe.c): router, top_k routed experts of
 * width inter run on every token, the others resident but not read. */
int zb_moe_mlp(struct zoo_build *b, int y, int h, int inter, int experts, int top_k);

/* Marks v as a graph output. */
void zb_output(struct zoo_build *b, int v);
/* Finalizes, sets format/path/name and hands the graph over (NULL with diag
 * on error; the graph then stays owned by b and zb_fini frees it). */
struct graph *zb_finish(struct zoo_build *b, const char *spec, struct diag *d);

#endif
