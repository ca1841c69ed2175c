/*
 * sim_fuse.c - the teacher's first pass: which nodes launch kernels and, for
 * the fused runtime, which are folded into a producer's kernel (elementwise
 * epilogues, merged sibling GEMMs, fused attention, grouped routed experts);
 * each node's work at the configured precision; the GEMM view of a kernel
 * (rows, columns, reduction length) and a routed expert's spread over the
 * experts a batch touches. sim.c times what this decides.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/ir/ops.h"
#include "graph/ops/tokens.h"
#include "core/sim_impl.h"

/* ---- node classification -------------------------------------------------- */

/* onnxruntime: is Transpose n folded into a matrix product? ORT's
 * transformers fold a transpose into the MatMul that reads it (FusedMatMul's
 * transA/transB) and attention's head transposes into its Attention or
 * MultiHeadAttention kernel, which reads Q, K and V and writes its output
 * in the layout the projections use: a transpose that a matrix product
 * produces or that only matrix products read. Any other (a window
 * partition, NCHW to tokens) runs as a kernel. */
static bool ort_transpose_folded(const struct graph *g, const struct node *n)
{
    if (n->n_in > 0 && n->in[0] >= 0) {
        int p = g->values[n->in[0]].producer;
        if (p >= 0 && g->nodes[p].op == OP_MatMul)
            return true;
    }
    if (n->n_out < 1 || n->out[0] < 0)
        return false;
    const struct value *o = &g->values[n->out[0]];
    for (int k = 0; k < o->n_consumers; k++) {
        enum op op = g->nodes[o->consumers[k]].op;
        if (op != OP_MatMul && op != OP_Gemm)
            return false;
    }
    return o->n_consumers > 0 && !(o->flags & VAL_OUTPUT);
}

enum node_kind sim_node_kind(const struct graph *g, const struct node *n, enum runtime rt)
{
    enum op_class c = n->op == OP__UNKNOWN ? OPC_OTHER : op_class_of(n->op);
    if (c == OPC_CONST)
        return NK_CONST;
    /* Outputs the shape engine folded to constants (shape subgraphs) are
     * computed on the host from Python ints or at engine build time. */
    if (n->n_out > 0 && n->out[0] >= 0 && g->values[n->out[0]].folded)
        return NK_CONST;
    if (op_is_view(n->op))
        return NK_VIEW;
    /* The engine picks layouts at build time: transposes become strides of a
     * neighbouring GEMM, concats are written in place by their producers,
     * slices are offsets of their consumer's reads (rotary halves, a routing
     * weight column). Inductor does the same: transposes and slices become
     * strides and offsets of the kernels that read them, and a concat's
     * inputs are written into its buffer by their producers. */
    if ((runtime_engine(rt) || runtime_inductor(rt)) &&
        (n->op == OP_Transpose || n->op == OP_Concat || n->op == OP_Slice))
        return NK_VIEW;
    /* ONNX Runtime runs concats, slices and the transposes it cannot fold
     * as kernels. */
    if (runtime_onnxruntime(rt) && n->op == OP_Transpose && ort_transpose_folded(g, n))
        return NK_VIEW;
    /* Eager PyTorch transposes are permute() views; GEMMs read them strided. */
    if (runtime_eager(rt) && n->op == OP_Transpose)
        return NK_VIEW;
    return NK_KERNEL;
}

/* Eager: is n the bias Add of an exported nn.Linear (MatMul + Add of a
 * weight)? PyTorch runs it as one addmm, so it folds into the MatMul. */
static bool eager_bias_add(const struct graph *g, const struct node *n, const struct node *root)
{
    if (n->op != OP_Add || (root->op != OP_MatMul && root->op != OP_Gemm) || n->n_in != 2)
        return false;
    for (int k = 0; k < 2; k++)
        if (n->in[k] >= 0 && (g->values[n->in[k]].flags & VAL_INIT))
            return true;
    return false;
}

/* Eager: is n the Mul of x * sigmoid(x) with root the Sigmoid of the same
 * x? Exporters write nn.SiLU (Swish) as these two ops; PyTorch runs one
 * silu kernel from one call. */
static bool eager_silu(const struct node *n, const struct node *root)
{
    if (n->op != OP_Mul || root->op != OP_Sigmoid || n->n_in != 2 || root->n_in < 1 ||
        root->in[0] < 0 || root->n_out < 1)
        return false;
    int x = root->in[0], s = root->out[0];
    return (n->in[0] == x && n->in[1] == s) || (n->in[0] == s && n->in[1] == x);
}

/* May node n (class c) be folded into a kernel rooted at a node of class rc
 * in the fused runtime? */
static bool fusable(const struct node *n, enum op_class c, enum op_class rc)
{
    switch (c) {
    case OPC_ACT: case OPC_BINARY:
        return rc != OPC_RNN && rc != OPC_GATHER;
    case OPC_NORM:
        if (n->op == OP_BatchNormalization) /* folded into conv weights */
            return rc == OPC_CONV || rc == OPC_GEMM || rc == OPC_ACT || rc == OPC_BINARY;
        return rc == OPC_ACT || rc == OPC_BINARY;
    case OPC_REDUCE:
        return rc == OPC_ACT || rc == OPC_BINARY;
    default:
        return false;
    }
}

double sim_value_numel(const struct value *v)
{
    if (!v->shape.known)
        return -1;
    double e = 1;
    for (int i = 0; i < v->shape.rank; i++)
        e *= (double)v->shape.d[i];
    return e;
}

enum dtype sim_value_dtype(const struct value *v)
{
    return v->idtype != DT_UNDEFINED ? v->idtype : v->dtype;
}

/* Bytes of value v at the configured precision (float tensors take the
 * precision's size; integer tensors keep theirs); -1 if unknown. */
double sim_value_bytes(const struct value *v, int pb)
{
    double e = sim_value_numel(v);
    if (e < 0)
        return -1;
    enum dtype dt = sim_value_dtype(v);
    if (dt == DT_UNDEFINED || dtype_is_float(dt))
        return e * pb;
    return e * dtype_size(dt);
}

/* Ratio of the node's bytes at the configured precision to its bytes in the
 * file's dtypes, from the tensors it touches; in a padding-free run, of the
 * real tokens' share of each tensor (graph_value_tok_scale). */
static double byte_ratio(const struct graph *g, const struct node *n, int pb)
{
    double file = 0, cfgb = 0;
    for (int pass = 0; pass < 2; pass++) {
        int cnt = pass ? n->n_out : n->n_in;
        const int *ix = pass ? n->out : n->in;
        for (int i = 0; i < cnt; i++) {
            if (ix[i] < 0)
                continue;
            const struct value *v = &g->values[ix[i]];
            double e = sim_value_numel(v);
            if (e < 0)
                continue;
            enum dtype dt = sim_value_dtype(v);
            double fs = dt == DT_UNDEFINED ? 4 : dtype_size(dt);
            file += e * fs;
            e *= graph_value_tok_scale(g, n, v);
            cfgb += (dt == DT_UNDEFINED || dtype_is_float(dt)) ? e * pb : e * fs;
        }
    }
    return file > 0 ? cfgb / file : pb / 4.0;
}

/* A 2-D convolution with a 3x3 kernel, stride 1 and no dilation: the
 * shapes cuDNN runs with Winograd's or FFT's reduced arithmetic. */
static bool winograd_shape(const struct graph *g, const struct node *n)
{
    if (n->n_in < 2 || n->in[1] < 0)
        return false;
    const struct shape *w = &g->values[n->in[1]].shape;
    if (!w->known || w->rank != 4 || w->d[2] != 3 || w->d[3] != 3)
        return false;
    const int64_t *v;
    int nv = node_attr_ints(n, "strides", &v);
    for (int i = 0; i < nv; i++)
        if (v[i] != 1)
            return false;
    nv = node_attr_ints(n, "dilations", &v);
    for (int i = 0; i < nv; i++)
        if (v[i] != 1)
            return false;
    return true;
}

/* GEMM view of a conv or matrix product from its output shape and MACs. */
void sim_gemm_view(const struct graph *g, const struct node *n, enum op_class c,
                      struct sim_kernel_in *k)
{
    if ((c != OPC_CONV && c != OPC_GEMM) || n->cost.macs <= 0 || n->n_out < 1 || n->out[0] < 0)
        return;
    const struct value *o = &g->values[n->out[0]];
    if (!o->shape.known || o->shape.rank < 1)
        return;
    const struct shape *s = &o->shape;
    double m = 1, nn = 1, b = 1;
    if (c == OPC_CONV) {
        if (s->rank < 2)
            return;
        nn = (double)s->d[1];
        m = (double)s->d[0];
        for (int i = 2; i < s->rank; i++)
            m *= (double)s->d[i];
        int64_t group = node_attr_int(n, "group", 1);
        int64_t cin = -1;
        if (n->n_in > 0 && n->in[0] >= 0) {
            const struct value *x = &g->values[n->in[0]];
            if (x->shape.known && x->shape.rank >= 2)
                cin = x->shape.d[1];
        }
        k->depthwise = group > 1 && group == cin;
        k->grouped = group > 1 && !k->depthwise;
        k->winograd = group == 1 && winograd_shape(g, n);
    } else {
        nn = (double)s->d[s->rank - 1];
        m = s->rank >= 2 ? (double)s->d[s->rank - 2] : 1;
        for (int i = 0; i + 2 < s->rank; i++)
            b *= (double)s->d[i];
        /* Gemm/MatMul with a 2-D weight: leading dims fold into M. */
        if (n->op != OP_MatMul || n->n_in < 2 || n->in[1] < 0 ||
            g->values[n->in[1]].shape.rank <= 2) {
            m *= b;
            b = 1;
        }
    }
    if (m <= 0 || nn <= 0 || b <= 0)
        return;
    k->gemm = true;
    k->m = m;
    k->n = nn;
    k->batches = b;
    k->k = n->cost.macs / (m * nn * b);
    if (k->k < 1)
        k->k = 1;
}

/* A routed expert's matrix product (attribute routed_experts = [E, k]: one
 * of the k experts a token runs, out of E, applied to all M tokens as the
 * static graph does). The real kernel is a grouped GEMM over the experts the
 * batch touches: E (1 - (1 - k/E)^M) on average, each over M k / touched
 * rows. Returns that count divided by k (1 when the node is not routed). */
double sim_routed_spread(const struct graph *g, const struct node *n)
{
    const int64_t *re;
    if (n->op != OP_MatMul || node_attr_ints(n, "routed_experts", &re) != 2 || re[1] < 1 ||
        re[0] < re[1] || n->n_in < 1 || n->in[0] < 0)
        return 1;
    const struct shape *x = &g->values[n->in[0]].shape;
    if (!x->known || x->rank < 1)
        return 1;
    double m = 1;
    for (int i = 0; i + 1 < x->rank; i++)
        m *= (double)x->d[i];
    double e = (double)re[0], k = (double)re[1];
    double touched = e * (1 - pow(1 - k / e, m));
    return touched > k ? touched / k : 1;
}

/* Fused runtime: an earlier routed-expert MatMul of the same layer with a
 * weight of the same shape, still a kernel of its own (the first expert of
 * this projection), or -1. Serving engines run a layer's experts as one
 * grouped GEMM. The layer ends, looking back, at the first matrix product
 * that is not a routed expert (the router, attention); at most
 * EXPERT_LOOKBACK nodes are looked at. */
#define EXPERT_LOOKBACK 512
static int expert_group(const struct graph *g, const struct sim_result *r, const struct node *n,
                        int t)
{
    const int64_t *re;
    if (n->op != OP_MatMul || n->n_in < 2 || n->in[1] < 0 ||
        node_attr_ints(n, "routed_experts", &re) != 2)
        return -1;
    const struct shape *w = &g->values[n->in[1]].shape;
    for (int u = t - 1; u >= 0 && u >= t - EXPERT_LOOKBACK; u--) {
        int j = g->topo ? g->topo[u] : u;
        const struct node *m = &g->nodes[j];
        const int64_t *rm;
        if (m->op != OP_MatMul && m->op != OP_Gemm)
            continue;
        /* another matrix product (attention, a router) ends the layer */
        if (node_attr_ints(m, "routed_experts", &rm) != 2)
            return -1;
        if (m->n_in < 2 || m->in[1] < 0 || m->state != NODE_OK || rm[0] != re[0] ||
            rm[1] != re[1])
            continue;
        const struct shape *wm = &g->values[m->in[1]].shape;
        if (wm->rank != w->rank || memcmp(wm->d, w->d, (size_t)w->rank * sizeof w->d[0]))
            continue;
        if (r->nodes[j].kernel && r->nodes[j].fused_into < 0)
            return j;
    }
    return -1;
}

/* ---- the run -------------------------------------------------------------- */

static bool weight_gemm(const struct graph *g, const struct node *n)
{
    return (n->op == OP_MatMul || n->op == OP_Gemm) && n->n_in >= 2 && n->in[1] >= 0 &&
           (g->values[n->in[1]].flags & VAL_INIT);
}

/* A MatMul of two activations (attention scores or context). */
static bool act_matmul(const struct graph *g, const struct node *n)
{
    if (n->op != OP_MatMul)
        return false;
    for (int k = 0; k < n->n_in; k++)
        if (n->in[k] >= 0 && (g->values[n->in[k]].flags & VAL_INIT))
            return false;
    return true;
}

/* Fused runtime: an earlier Linear reading the same input that this one can
 * be merged with (engines concatenate Q, K and V projections into one
 * GEMM); -1 if none. */
static int sibling_gemm(const struct graph *g, const struct sim_result *r, const struct node *n,
                        int self)
{
    if (!weight_gemm(g, n) || n->in[0] < 0)
        return -1;
    const int64_t *re;
    bool routed = node_attr_ints(n, "routed_experts", &re) == 2;
    const struct value *x = &g->values[n->in[0]];
    for (int c = 0; c < x->n_consumers; c++) {
        int m = x->consumers[c];
        const struct sim_node *ms = &r->nodes[m];
        /* routed experts merge with routed experts only (the router is a
         * GEMM of its own) */
        if (m != self && ms->kernel && ms->fused_into < 0 && g->nodes[m].op == n->op &&
            g->nodes[m].state == NODE_OK && weight_gemm(g, &g->nodes[m]) &&
            (node_attr_ints(&g->nodes[m], "routed_experts", &re) == 2) == routed)
            return m;
    }
    return -1;
}

/* Fused runtime: attention. Softmax folds into the score MatMul and the
 * context MatMul into that kernel (fused multi-head attention: the scores
 * stay on chip, as TensorRT's MHA plugin, FasterTransformer and
 * AITemplate do). */
static bool mha_fusable(const struct graph *g, const struct node *n, const struct value *v,
                        const struct node *root)
{
    if (!act_matmul(g, root))
        return false;
    if (n->op == OP_Softmax)
        return true;
    return act_matmul(g, n) && g->nodes[v->producer].op == OP_Softmax;
}

/* Does value vi reach a Softmax through at most three single-consumer
 * Mul/Div/Add nodes (the attention scale and mask)? */
static bool feeds_softmax(const struct graph *g, int vi)
{
    for (int hop = 0; hop < 4 && vi >= 0; hop++) {
        const struct value *v = &g->values[vi];
        if (v->n_consumers != 1)
            return false;
        const struct node *m = &g->nodes[v->consumers[0]];
        if (m->op == OP_Softmax)
            return true;
        if ((m->op != OP_Mul && m->op != OP_Div && m->op != OP_Add) || m->n_out < 1)
            return false;
        vi = m->out[0];
    }
    return false;
}

/* pytorch-sdpa: torch.nn.functional.scaled_dot_product_attention runs the
 * score MatMul, its scale and mask, the Softmax and the context MatMul as
 * one kernel (flash or memory-efficient attention); the rest of the model
 * stays eager. */
static bool sdpa_fusable(const struct graph *g, const struct node *n, const struct value *v,
                         const struct node *root)
{
    if (!act_matmul(g, root))
        return false;
    if (n->op == OP_Mul || n->op == OP_Div || n->op == OP_Add)
        return n->n_out > 0 && feeds_softmax(g, n->out[0]);
    return mha_fusable(g, n, v, root);
}

/* torch.compile (inductor, default mode): may node n (class c), reading v,
 * fold into the kernel rooted at rn? Library GEMMs and convolutions take no
 * epilogue (Inductor fuses into a GEMM only with max-autotune's Triton
 * templates, and keeps BatchNorm out of the convolution without freezing),
 * but for a Linear's bias (addmm); every chain of element-wise ops,
 * normalisations, reductions and softmaxes between them becomes one
 * generated kernel; attention the model spells out runs as SDPA's fused
 * kernel (Inductor's attention patterns rewrite it so). */
static bool inductor_fusable(const struct graph *g, const struct node *n, enum op_class c,
                             const struct value *v, const struct node *rn)
{
    enum op_class rc = op_class_of(rn->op);
    if (eager_bias_add(g, n, rn) || sdpa_fusable(g, n, v, rn))
        return true;
    if (rc == OPC_GEMM || rc == OPC_CONV)
        return false;
    if (c == OPC_SOFTMAX || (c == OPC_NORM && n->op == OP_BatchNormalization))
        return rc == OPC_ACT || rc == OPC_BINARY || rc == OPC_NORM || rc == OPC_REDUCE;
    return fusable(n, c, rc);
}

/* A Conv's element-wise consumer the CUDA execution provider runs in
 * cuDNN's convolution-bias-activation call: a bias Add (ConvAddFusion) or
 * a ReLU, the one activation cuDNN's call takes (ConvActivationFusion). */
static bool ort_conv_epilogue(const struct graph *g, const struct node *n)
{
    if (n->op == OP_Relu)
        return true;
    if (n->op != OP_Add || n->n_in != 2)
        return false;
    for (int k = 0; k < 2; k++)
        if (n->in[k] >= 0 && (g->values[n->in[k]].flags & VAL_INIT))
            return true;
    return false;
}

/* onnxruntime: may node n (class c), reading v, fold into the kernel
 * rooted at rn? ONNX Runtime fuses patterns, not chains: BatchNorm folds
 * into the convolution before it (ConvBNFusion), the bias and a ReLU run
 * in cuDNN's call; a Linear's bias Add joins its GEMM (MatMulAddFusion,
 * or the bias input of Attention, BiasGelu and SkipLayerNormalization);
 * attention's score MatMul, scale, mask, Softmax and context MatMul are
 * one Attention kernel (fused multi-head or memory-efficient attention);
 * an activation or normalisation the exporter writes out as element-wise
 * ops (Gelu, FastGelu, LayerNorm, RMSNorm) is one kernel, and so is the
 * residual Add with the LayerNorm after it (SkipLayerNormalization). No
 * other element-wise op joins a GEMM or convolution. */
static bool ort_fusable(const struct graph *g, const struct node *n, enum op_class c,
                        const struct value *v, const struct node *rn)
{
    enum op_class rc = op_class_of(rn->op);
    if (eager_bias_add(g, n, rn) || sdpa_fusable(g, n, v, rn))
        return true;
    if (rc == OPC_CONV)
        return n->op == OP_BatchNormalization || ort_conv_epilogue(g, n);
    if (rc == OPC_GEMM)
        return false;
    return fusable(n, c, rc);
}

/* Fused runtime: x -> n -> m <- x (Swish/SiLU x * sigmoid(x), HardSwish):
 * every other consumer of v also consumes n's output, so the whole diamond
 * stays in the producer's epilogue. */
static bool diamond(const struct graph *g, const struct value *v, const struct node *n)
{
    if (n->n_out < 1 || n->out[0] < 0)
        return false;
    enum op_class c = op_class_of(n->op);
    if (c != OPC_ACT && c != OPC_BINARY)
        return false;
    const struct value *o = &g->values[n->out[0]];
    for (int k = 0; k < v->n_consumers; k++) {
        const struct node *m = &g->nodes[v->consumers[k]];
        if (m == n)
            continue;
        bool uses = false;
        for (int j = 0; j < o->n_consumers && !uses; j++)
            uses = &g->nodes[o->consumers[j]] == m;
        if (!uses)
            return false;
    }
    return true;
}

/* Engine: does every consumer of v run element-wise? An engine compiles a
 * producer's element-wise consumers into one pointwise region (TensorRT's
 * pointwise fusion), however they branch and rejoin: Hugging Face GPT-2's
 * gelu_new reads the GEMM output in three of its eight ops. The first
 * consumer folds into the producer and the others follow it there. */
static bool pointwise_fanout(const struct graph *g, const struct value *v)
{
    for (int k = 0; k < v->n_consumers; k++) {
        enum op_class c = op_class_of(g->nodes[v->consumers[k]].op);
        if (c != OPC_ACT && c != OPC_BINARY)
            return false;
    }
    return true;
}

/* Folds node self into kernel root. gemm: self is a matrix product (merged
 * QKV sibling or attention context) whose FLOPs run on the root's tensor
 * cores; otherwise its FLOPs are an elementwise epilogue on CUDA cores. */
static void fuse_into(struct sim_result *r, int self, int root, double saved_bytes, bool gemm)
{
    struct sim_node *sn = &r->nodes[self], *rs = &r->nodes[root];
    rs->kflops += sn->flops;
    if (!gemm)
        rs->kflops_vec += sn->flops;
    rs->kbytes += sn->bytes - saved_bytes;
    if (rs->kbytes < 0)
        rs->kbytes = 0;
    sn->kernel = false;
    sn->fused = true;
    sn->fused_into = root;
    sn->kflops = sn->kbytes = 0;
}

/* Pass 1: own work of each node, kernel roots and fusion. */
void sim_pass_fuse(const struct graph *g, const struct config *cfg, struct sim_result *r)
{
    int pb = precision_bytes(cfg->prec);
    for (int t = 0; t < g->n_nodes; t++) {
        int i = g->topo ? g->topo[t] : t;
        const struct node *n = &g->nodes[i];
        struct sim_node *sn = &r->nodes[i];
        sn->fused_into = -1;
        sn->bound = BOUND_NONE;
        enum node_kind kind = sim_node_kind(g, n, cfg->rt);
        if (n->state == NODE_NOT_RUN)
            continue; /* an If branch that does not run */
        if (n->state != NODE_OK) {
            r->n_unmodelled++;
            if (kind == NK_KERNEL)
                sn->kernel = true;
            continue;
        }
        sn->flops = n->cost.flops * graph_node_tok_scale(g, n);
        sn->bytes = (n->cost.bytes_read + n->cost.bytes_written) * byte_ratio(g, n, pb);
        double spread = sim_routed_spread(g, n);
        if (spread > 1) /* every touched expert's weights are read */
            sn->bytes += sim_value_bytes(&g->values[n->in[1]], pb) * (spread - 1);
        /* a quantised weight is read at its scheme's bytes */
        sn->bytes += sim_quant_delta_bytes(g, n, cfg, pb) * (spread > 1 ? spread : 1);
        sn->intensity = sn->bytes > 0 ? sn->flops / sn->bytes : 0;
        if (kind != NK_KERNEL)
            continue;
        sn->kernel = true;
        sn->kflops = sn->flops;
        sn->kbytes = sn->bytes;
        bool ind = runtime_inductor(cfg->rt), sdpa = cfg->rt == RT_PYTORCH_SDPA;
        bool ort = runtime_onnxruntime(cfg->rt), eng = runtime_engine(cfg->rt);
        if (!eng && !ind && !ort && n->op != OP_Add && n->op != OP_Mul &&
            !(sdpa && (n->op == OP_Div || n->op == OP_Softmax || n->op == OP_MatMul)))
            continue;
        if (eng || ort) {
            /* ONNX Runtime's Attention packs the Q, K and V weights */
            int sib = sibling_gemm(g, r, n, i);
            if (sib >= 0) {
                /* the shared input is read once */
                const struct value *x = &g->values[n->in[0]];
                double xb = sim_value_bytes(x, pb) * graph_value_tok_scale(g, n, x);
                fuse_into(r, i, sib, xb > 0 ? xb : 0, true);
                r->nodes[sib].merged++;
                continue;
            }
            int grp = eng ? expert_group(g, r, n, t) : -1;
            if (grp >= 0) {
                /* one grouped GEMM launch for the layer's routed experts */
                fuse_into(r, i, grp, 0, true);
                r->nodes[grp].merged++;
                continue;
            }
        }
        enum op_class c = op_class_of(n->op);
        for (int k = 0; k < n->n_in; k++) {
            int vi = n->in[k];
            if (vi < 0)
                continue;
            const struct value *v = &g->values[vi];
            if (v->producer < 0 || (v->flags & VAL_OUTPUT))
                continue;
            bool shared = v->n_consumers != 1;
            if (shared && !((eng || ind || ort) && (diamond(g, v, n) || pointwise_fanout(g, v))))
                continue;
            int root = v->producer;
            if (r->nodes[root].fused_into >= 0)
                root = r->nodes[root].fused_into;
            if (!r->nodes[root].kernel || g->nodes[root].state != NODE_OK)
                continue;
            const struct node *rn = &g->nodes[root];
            bool ok = eng   ? fusable(n, c, op_class_of(rn->op)) || mha_fusable(g, n, v, rn)
                      : ind ? inductor_fusable(g, n, c, v, rn)
                      : ort ? ort_fusable(g, n, c, v, rn)
                            : eager_bias_add(g, n, rn) || eager_silu(n, rn) ||
                                  (sdpa && sdpa_fusable(g, n, v, rn));
            if (!ok)
                continue;
            double vb = sim_value_bytes(v, pb) * graph_value_tok_scale(g, n, v);
            if (n->op == OP_Softmax && act_matmul(g, rn))
                r->nodes[root].attention = true;
            /* a value read inside the kernel is neither written nor read
             * back; one of several consumers saves its read alone when
             * another already kept it in the kernel */
            bool kept = false;
            for (int j = 0; shared && j < v->n_consumers && !kept; j++)
                kept = v->consumers[j] != i && r->nodes[v->consumers[j]].fused_into == root;
            fuse_into(r, i, root, vb > 0 ? (kept ? vb : 2 * vb) : 0, c == OPC_GEMM);
            break;
        }
    }
}

