/*
 * sim_quant.c - what a quantisation scheme (config.h QUANT_LIST) changes in
 * the teacher: the bytes of the weights it quantises (bits per weight plus
 * the scales), the dequantisation a weight-only GEMM does in its prologue,
 * and the pass a scheme with dynamic activation scales runs over each
 * quantised GEMM's input. Everything else follows the activation
 * precision, which the scheme sets as cfg->prec.
 */
#include <math.h>

#include "graph/ops.h"
#include "core/sim_impl.h"

/* Whether node n is a matrix product whose second input is v. */
static bool weight_gemm_of(const struct graph *g, const struct node *n, int vi)
{
    return (n->op == OP_MatMul || n->op == OP_Gemm) && n->n_in >= 2 && n->in[1] == vi &&
           (n->in[0] < 0 || n->in[0] != vi) && n->n_out >= 1 && n->out[0] >= 0 &&
           !(g->values[n->out[0]].flags & VAL_OUTPUT);
}

bool sim_quant_weight(const struct graph *g, const struct config *cfg, int vi)
{
    if (cfg->quant.scheme == QUANT_NONE || vi < 0 || vi >= g->n_values)
        return false;
    const struct value *v = &g->values[vi];
    if (!(v->flags & VAL_INIT) || v->n_consumers < 1 || !v->shape.known || v->shape.rank < 2)
        return false;
    enum dtype dt = sim_value_dtype(v);
    if (dt != DT_UNDEFINED && !dtype_is_float(dt))
        return false;
    /* every reader a Linear layer's GEMM (not the lm_head, whose output is
     * the graph's; not an embedding's Gather of tied weights) */
    for (int c = 0; c < v->n_consumers; c++)
        if (!weight_gemm_of(g, &g->nodes[v->consumers[c]], vi))
            return false;
    return true;
}

/* The reduction length of weight v read by its first consumer: rows of a
 * MatMul's [..., K, N] weight, columns of a Gemm's transposed one. */
static double weight_k(const struct graph *g, const struct value *v)
{
    const struct shape *s = &v->shape;
    const struct node *n = &g->nodes[v->consumers[0]];
    bool trans = n->op == OP_Gemm && node_attr_int(n, "transB", 0) != 0;
    return (double)s->d[trans ? s->rank - 1 : s->rank - 2];
}

double sim_weight_bytes(const struct graph *g, const struct config *cfg, int vi, int pb)
{
    const struct value *v = &g->values[vi];
    if (!sim_quant_weight(g, cfg, vi))
        return sim_value_bytes(v, pb);
    const struct quant *q = &cfg->quant;
    double e = sim_value_numel(v), k = weight_k(g, v);
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
