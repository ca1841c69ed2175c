/*
 * sim_quant.c - what a quantisation scheme (config.h QUANT_LIST) changes in
 * the teacher: the bytes of the weights it quantises (bits per weight plus
 * the scales), the dequantisation a weight-only GEMM does in its prologue,
 * and the pass a scheme with dynamic activation scales runs over each
 * quantised GEMM's input. Everything else follows the activation
 * precision, which the scheme sets as cfg->prec.
 */
#include <math.h>

#include "graph/ir/ops.h"
#include "core/sim_impl.h"

/* Whether node n is a matrix product whose second input is value vi and
 * whose output is not the graph's (an lm_head's logits). */
static bool weight_gemm_of(const struct graph *g, const struct node *n, int vi)
{
    return (n->op == OP_MatMul || n->op == OP_Gemm) && n->n_in >= 2 && n->in[1] == vi &&
           (n->in[0] < 0 || n->in[0] != vi) && n->n_out >= 1 && n->out[0] >= 0 &&
           !(g->values[n->out[0]].flags & VAL_OUTPUT);
}

/* Whether every reader of value vi takes it as a Linear layer's weight: a
 * GEMM's second input, or (depth > 0) a Transpose whose output is read so,
 * as exports of nn.Linear spell out the [out, in] weight's transpose. */
static bool gemm_weight_use(const struct graph *g, int vi, int depth)
{
    const struct value *v = &g->values[vi];
    if (v->n_consumers < 1 || (v->flags & VAL_OUTPUT))
        return false;
    for (int c = 0; c < v->n_consumers; c++) {
        const struct node *n = &g->nodes[v->consumers[c]];
        bool ok = weight_gemm_of(g, n, vi) ||
                  (depth > 0 && n->op == OP_Transpose && n->n_out >= 1 && n->out[0] >= 0 &&
                   gemm_weight_use(g, n->out[0], depth - 1));
        if (!ok)
            return false;
    }
    return true;
}

/* A float initializer of rank 2 or more (a weight matrix or experts' stack). */
static bool float_weight(const struct value *v)
{
    enum dtype dt = sim_value_dtype(v);
    return (v->flags & VAL_INIT) && v->shape.known && v->shape.rank >= 2 &&
           (dt == DT_UNDEFINED || dtype_is_float(dt));
}

bool sim_quant_weight(const struct graph *g, const struct config *cfg, int vi)
{
    if (cfg->quant.scheme == QUANT_NONE || vi < 0 || vi >= g->n_values)
        return false;
    const struct value *v = &g->values[vi];
    /* every reader a Linear layer's GEMM (not the lm_head, whose output is
     * the graph's; not an embedding's Gather of tied weights) */
    if (float_weight(v))
        return gemm_weight_use(g, vi, 1);
    /* the transpose of such an initializer, read by the GEMM */
    if (v->producer < 0 || !v->shape.known)
        return false;
    const struct node *t = &g->nodes[v->producer];
    return t->op == OP_Transpose && t->n_in >= 1 && t->in[0] >= 0 &&
           float_weight(&g->values[t->in[0]]) && gemm_weight_use(g, t->in[0], 1);
}

/* The reduction length of weight vi as its GEMMs read it: the rows of a
 * MatMul's [..., K, N] weight, the columns of a Gemm's transposed one,
 * through a Transpose to its output. */
static double weight_k(const struct graph *g, int vi)
{
    const struct value *v = &g->values[vi];
    const struct node *n = &g->nodes[v->consumers[0]];
    if (n->op == OP_Transpose)
        return weight_k(g, n->out[0]);
    const struct shape *s = &v->shape;
    bool trans = n->op == OP_Gemm && node_attr_int(n, "transB", 0) != 0;
    return (double)s->d[trans ? s->rank - 1 : s->rank - 2];
}

double sim_weight_bytes(const struct graph *g, const struct config *cfg, int vi, int pb)
{
    const struct value *v = &g->values[vi];
    if (!sim_quant_weight(g, cfg, vi))
        return sim_value_bytes(v, pb);
    const struct quant *q = &cfg->quant;
    double e = sim_value_numel(v), k = weight_k(g, vi);
    /* scales: one per group of K, one per output channel (a row of the
     * transposed weight: K weights), or one per tensor */
    double scales = q->per_tensor ? 1 : q->group > 0 ? ceil(k / q->group) * (e / k) : e / k;
    return e * quant_bits(q->scheme) / 8.0 + scales * quant_scale_bytes(q->scheme);
}

double sim_quant_delta_bytes(const struct graph *g, const struct node *n,
                             const struct config *cfg, int pb)
{
    if (cfg->quant.scheme == QUANT_NONE || n->n_in < 2 || !sim_quant_weight(g, cfg, n->in[1]))
        return 0;
    return sim_weight_bytes(g, cfg, n->in[1], pb) - sim_value_bytes(&g->values[n->in[1]], pb);
}

bool sim_quant_kernel(const struct graph *g, const struct node *n, const struct config *cfg,
                      struct sim_kernel_in *k, struct sim_kernel_in *pass)
{
    if (!k->gemm || cfg->quant.scheme == QUANT_NONE || n->n_in < 2 ||
        !sim_quant_weight(g, cfg, n->in[1]))
        return false;
    const struct sim_fixed *f = &sim_fixed;
    double weights = k->k * k->n * k->batches;
    if (quant_weight_only(cfg->quant.scheme))
        /* each weight is dequantised again for every block of rows the
         * kernel's CTAs take at once; on the CUDA cores beside the
         * tensor-core main loop, as an epilogue runs */
        k->vec_flops += weights * f->dequant_flops * ceil(k->m / f->dequant_rows);
    if (!cfg->quant.dynamic)
        return false;
    /* per-token scales: a kernel reads the 16-bit input rows, takes each
     * row's absolute maximum and writes the 8-bit rows and their scales
     * before the GEMM can start */
    double elems = k->m * k->k * k->batches;
    *pass = (struct sim_kernel_in){.cls = OPC_REDUCE, .flops = 3 * elems, .batches = 1,
                                   .bytes = elems * (2 + 1) + k->m * k->batches * 4};
    return true;
}
