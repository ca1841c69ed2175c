/*
 * cost.c - the per-node cost model and the graph totals.
 *
 * Conventions (every column of `dippm layers` follows these):
 *
 * MACs   multiply-accumulates of dot-product ops only: Conv (out elements x
 *        C_in/group x kernel), ConvTranspose (in elements x C_out/group x
 *        kernel), Gemm/MatMul (M x N x K per batch), Einsum (the product of
 *        every index size), LSTM/GRU/RNN (gates x hidden x (input + hidden)
 *        per step), Attention/SDPA (the projections and the two score
 *        products). Elementwise ops, normalisations, pooling and reductions
 *        have 0 MACs. This is torchvision's "GFLOPS" convention (ResNet-50:
 *        4.09 G at 224x224).
 * FLOPs  every arithmetic operation: 2 per MAC, + 1 per output element for a
 *        bias, + per-element costs for everything else, using onnx-tool's
 *        weights (op_infer.h FL_*): add/sub/mul/compare 1, div 4, sqrt 24,
 *        exp/pow 32, sin/cos 39, log 43, tanh = exp + 2 add + div = 38,
 *        sigmoid = exp + add + div = 37, erf counted as tanh, softmax 39 per
 *        element, layer/instance/group norm 7 per element + sqrt and divide
 *        per group, BatchNormalization 2 (inference: folded scale and shift).
 *        Pools: kernel elements per output (+ divide for average); reductions:
 *        per input element (+ divide/sqrt/log per output where needed).
 *        Data-movement ops (Transpose, Concat, Slice, Pad, Gather, ...) and
 *        Cast are 0 FLOPs.
 * Params elements of initializer inputs that are trainable-style weights:
 *        float tensors of rank >= 1 (plus the integer weights of quantised
 *        ops and DequantizeLinear inputs). Not params: BatchNormalization
 *        running mean and variance (inputs 3 and 4), integer index or shape
 *        tensors, rank-0 scalars (exponents, epsilons), and configuration
 *        inputs of ops such as Resize scales, Clip bounds, Pad pads, Reshape
 *        targets, Reduce axes. With this rule the torchvision exports match
 *        torchvision's own parameter counts. In graph totals an initializer
 *        shared by several nodes counts once.
 * Bytes  read = every present input (activations and parameters), written =
 *        every output, each with its own element size. Views (Reshape,
 *        Flatten, Squeeze, Unsqueeze, Identity, inference Dropout) move
 *        nothing: 0 bytes. Gather reads the rows it gathers (output size)
 *        plus the indices, not the whole table. Shape, Size and Constant are
 *        metadata: 0 bytes. A node whose outputs are all constant-folded
 *        costs nothing, and so does a node fed only by initializers and
 *        constants (a transposed or cast weight): runtimes fold both at load
 *        time. Such a weight counts as a parameter of the node that consumes
 *        it (the per-node params column), while graph totals count each
 *        initializer once.
 * Peak   live activation bytes over the topological order: a tensor is live
 *        from its producer until its last consumer (graph inputs from the
 *        start, graph outputs until the end); a view shares its input's
 *        storage; initializers, Constant outputs and tensors computed from
 *        them alone (folded at load) are not activations.
 *        The peak is taken while a node runs (its inputs and outputs live).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/ops/op_infer.h"
#include "util/xalloc.h"

/* ---- params -------------------------------------------------------------- */

/* Is input i of node n a parameter (see the conventions above)? strict:
 * only initializers themselves (graph totals); otherwise also weights
 * derived from them by constant nodes (a transposed or cast weight feeding
 * a MatMul is that MatMul's parameter in the per-node column). */
static bool input_is_param(const struct node *n, int i, const struct value *v, bool strict)
{
    if (!v->shape.known || !(strict ? (v->flags & VAL_INIT) != 0 : v->is_const) ||
        (v->folded && v->producer >= 0))
        return false;
    switch (n->op) {
    case OP_BatchNormalization: return i == 1 || i == 2;
    case OP_ConvInteger: return i == 1;
    case OP_MatMulInteger: return i <= 1;
    case OP_QLinearConv: return i == 3 || i == 8;
    case OP_QLinearMatMul: return i == 0 || i == 3;
    case OP_DequantizeLinear: return i == 0;
    case OP_LSTM: return (i >= 1 && i <= 3) || i == 7;
    case OP_GRU: case OP_RNN: return i >= 1 && i <= 3;
    case OP_ScatterElements: case OP_ScatterND:
        if (i == 1)
            return false;
        break;
    case OP_Range: case OP_ConstantOfShape: case OP_OneHot: case OP_Shape: case OP_Size:
    case OP_NonMaxSuppression: case OP_Where:
        if (n->op != OP_Where || i == 0)
            return false;
        break;
    default:
        if (op_is_config_only(n->op) && i > 0)
            return false;
        break;
    }
    return dtype_is_float(v->idtype) && v->shape.rank > 0;
}

static double vbytes(const struct value *v)
{
    return v->shape.known ? (double)numel(&v->shape) * dtype_size(v->idtype) : 0.0;
}

void cost_params(struct infer_ctx *c)
{
    struct node_cost *nc = &c->n->cost;
    bool const_node = c->n->n_in > 0;
    for (int i = 0; i < c->n->n_in; i++)
        if (in_v(c, i) && !in_v(c, i)->is_const)
            const_node = false;
    if (const_node)
        return; /* the consumers of its outputs show these parameters */
    for (int i = 0; i < c->n->n_in; i++) {
        const struct value *v = in_v(c, i);
        if (v && input_is_param(c->n, i, v, false)) {
            nc->params += (double)numel(&v->shape);
            nc->param_bytes += vbytes(v);
        }
    }
}

void cost_node(struct infer_ctx *c, const struct op_impl *im)
{
    struct node_cost *nc = &c->n->cost;
    bool all_folded = c->n->n_out > 0;
    for (int i = 0; i < c->n->n_in; i++) {
        const struct value *v = in_v(c, i);
        if (v)
            nc->bytes_read += vbytes(v);
    }
    for (int j = 0; j < c->n->n_out; j++) {
        const struct value *v = out_v(c, j);
        nc->bytes_written += vbytes(v);
        all_folded &= v->folded != NULL;
    }
    nc->out_bytes = nc->bytes_written;
    bool const_node = c->n->n_in > 0 || c->n->op == OP_Constant;
    for (int i = 0; i < c->n->n_in; i++)
        if (in_v(c, i) && !in_v(c, i)->is_const)
            const_node = false;
    if (const_node) {
        /* weights prepared from initializers: done once at load time */
        nc->bytes_read = nc->bytes_written = nc->out_bytes = 0;
        return;
    }
    if (all_folded) {
        nc->bytes_read = nc->bytes_written = 0;
        return;
    }
    im->cost(c, nc);
}

/* ---- cost functions (columns of ops.def) ---------------------------------- */

static double onumel(const struct infer_ctx *c, int j)
{
    return j < c->n->n_out ? (double)numel(&out_v(c, j)->shape) : 0.0;
}

static double inumel(const struct infer_ctx *c, int i)
{
    const struct shape *s = in_s(c, i);
    return s ? (double)numel(s) : 0.0;
}

static double fl_of(const struct infer_ctx *c)
{
    return op_impl_get(c->n->op)->flops_per_elem;
}

void cost_conv(const struct infer_ctx *c, struct node_cost *nc)
{
    int wi = c->n->op == OP_QLinearConv ? 3 : 1, bi = c->n->op == OP_QLinearConv ? 8 : 2;
    const struct shape *w = in_s(c, wi);
    double per = 1.0;
    for (int i = 1; i < w->rank; i++)
        per *= (double)w->d[i];
    nc->macs = onumel(c, 0) * per;
    nc->flops = 2 * nc->macs + (c->n->op != OP_ConvInteger && in_v(c, bi) ? onumel(c, 0) : 0);
}

void cost_convtranspose(const struct infer_ctx *c, struct node_cost *nc)
{
    const struct shape *w = in_s(c, 1);
    double per = 1.0;
    for (int i = 1; i < w->rank; i++)
        per *= (double)w->d[i];
    nc->macs = inumel(c, 0) * per;
    nc->flops = 2 * nc->macs + (in_v(c, 2) ? onumel(c, 0) : 0);
}

void cost_gemm(const struct infer_ctx *c, struct node_cost *nc)
{
    const struct shape *a = in_s(c, 0);
    double k = (double)(node_attr_int(c->n, "transA", 0) ? a->d[0] : a->d[1]);
    nc->macs = onumel(c, 0) * k;
    nc->flops = 2 * nc->macs + (in_v(c, 2) ? onumel(c, 0) : 0);
}

void cost_matmul(const struct infer_ctx *c, struct node_cost *nc)
{
    const struct shape *a = in_s(c, 0);
    nc->macs = onumel(c, 0) * (double)a->d[a->rank - 1];
    nc->flops = 2 * nc->macs;
}

void cost_einsum(const struct infer_ctx *c, struct node_cost *nc)
{
    double it = einsum_iterations(c);
    if (c->n->n_in >= 2) {
        nc->macs = it;
        nc->flops = 2 * it;
    } else {
        nc->flops = it > onumel(c, 0) ? it : 0; /* a pure transpose adds nothing */
    }
}

void cost_ew(const struct infer_ctx *c, struct node_cost *nc)
{
    nc->flops = onumel(c, 0) * fl_of(c);
}

void cost_ew_in(const struct infer_ctx *c, struct node_cost *nc)
{
    nc->flops = inumel(c, 0) * fl_of(c);
}

void cost_norm(const struct infer_ctx *c, struct node_cost *nc)
{
    const struct shape *x = in_s(c, 0);
    double groups = 1;
    enum op op = c->n->op;
    if (op == OP_LayerNormalization || op == OP_SkipLayerNormalization ||
        op == OP_SimplifiedLayerNormalization || op == OP_RMSNormalization) {
        int64_t axis = op == OP_SkipLayerNormalization ? -1 : node_attr_int(c->n, "axis", -1);
        if (axis < 0)
            axis += x->rank;
        for (int i = 0; i < axis && i < x->rank; i++)
            groups *= (double)x->d[i];
    } else if (x->rank >= 2) {
        groups = (double)x->d[0] * (c->n->op == OP_GroupNormalization
                                        ? (double)node_attr_int(c->n, "num_groups", 1)
                                        : (double)x->d[1]);
    }
    nc->flops = onumel(c, 0) * fl_of(c) + groups * (FL_SQRT + FL_DIV);
}

void cost_lrn(const struct infer_ctx *c, struct node_cost *nc)
{
    double size = (double)node_attr_int(c->n, "size", 1);
    nc->flops = onumel(c, 0) * (2 * size + FL_POW + FL_DIV + 2 * FL_MUL + FL_ADD);
}

void cost_variadic(const struct infer_ctx *c, struct node_cost *nc)
{
    double k = c->n->n_in > 1 ? c->n->n_in - 1 : 0;
    nc->flops = onumel(c, 0) * (k * fl_of(c) + (c->n->op == OP_Mean ? FL_DIV : 0));
}

void cost_pool(const struct infer_ctx *c, struct node_cost *nc)
{
    enum op op = c->n->op;
    bool avg = op == OP_AveragePool || op == OP_GlobalAveragePool;
    if (op == OP_GlobalAveragePool || op == OP_GlobalMaxPool || op == OP_GlobalLpPool) {
        nc->flops = inumel(c, 0) * fl_of(c) + onumel(c, 0) * (avg ? FL_DIV : 0);
        return;
    }
    int64_t k[IR_MAX_RANK];
    int nk = attr_ints(c->n, "kernel_shape", k, IR_MAX_RANK);
    double win = 1;
    for (int i = 0; i < nk; i++)
        win *= (double)k[i];
    nc->flops = onumel(c, 0) * (win * fl_of(c) + (avg ? FL_DIV : 0));
}

void cost_roialign(const struct infer_ctx *c, struct node_cost *nc)
{
    double sr = (double)node_attr_int(c->n, "sampling_ratio", 0);
    if (sr <= 0)
        sr = 2; /* adaptive sampling: about 2 per bin edge for typical boxes */
    /* bilinear sample: 4 taps, 3 lerps of (mul + add + mul) */
    nc->flops = onumel(c, 0) * sr * sr * (9 * FL_MUL + FL_ADD);
}

void cost_reduce(const struct infer_ctx *c, struct node_cost *nc)
{
    double extra = 0;
    switch (c->n->op) {
    case OP_ReduceMean: extra = FL_DIV; break;
    case OP_ReduceL2: extra = FL_SQRT; break;
    case OP_ReduceLogSumExp: extra = FL_LOG; break;
    default: break;
    }
    nc->flops = inumel(c, 0) * fl_of(c) + onumel(c, 0) * extra;
}

void cost_topk(const struct infer_ctx *c, struct node_cost *nc)
{
    const struct shape *o = &out_v(c, 0)->shape;
    double k = 1;
    for (int i = 0; i < o->rank; i++)
        if (o->d[i] != in_s(c, 0)->d[i])
            k = (double)o->d[i];
    nc->flops = inumel(c, 0) * FL_CMP * ceil(log2(k + 1.0));
}

void cost_view(const struct infer_ctx *c, struct node_cost *nc)
{
    (void)c;
    nc->bytes_read = nc->bytes_written = 0;
}

void cost_move(const struct infer_ctx *c, struct node_cost *nc)
{
    (void)c;
    (void)nc;
}

void cost_meta(const struct infer_ctx *c, struct node_cost *nc)
{
    (void)c;
    nc->bytes_read = nc->bytes_written = nc->out_bytes = 0;
}

void cost_resize(const struct infer_ctx *c, struct node_cost *nc)
{
    const char *mode = node_attr_str(c->n, "mode", c->n->op == OP_GridSample ? "linear"
                                                                              : "nearest");
    const struct shape *x = in_s(c, 0), *o = &out_v(c, 0)->shape;
    int nd = 0;
    for (int i = 0; i < x->rank && i < o->rank; i++)
        nd += c->n->op == OP_GridSample ? i >= 2 : x->d[i] != o->d[i];
    double per = 0;
    if (!strcmp(mode, "linear") || !strcmp(mode, "bilinear"))
        per = (pow(2, nd) - 1) * (2 * FL_MUL + FL_ADD);
    else if (!strcmp(mode, "cubic") || !strcmp(mode, "bicubic"))
        per = pow(4, nd) * (FL_MUL + FL_ADD);
    nc->flops = onumel(c, 0) * per;
}

void cost_gather(const struct infer_ctx *c, struct node_cost *nc)
{
    const struct value *idx = in_v(c, 1);
    nc->bytes_read = nc->bytes_written + vbytes(idx);
}

void cost_scatter(const struct infer_ctx *c, struct node_cost *nc)
{
    (void)c;
    (void)nc;
}

void cost_nms(const struct infer_ctx *c, struct node_cost *nc)
{
    const struct shape *b = in_s(c, 0), *s = in_s(c, 1);
    double n = (double)b->d[1];
    /* sort + pairwise IoU (about 12 FLOPs each) per batch and class */
    nc->flops = (double)s->d[0] * (double)s->d[1] * (n * log2(n + 1.0) + n * n * 12);
}

void cost_rnn(const struct infer_ctx *c, struct node_cost *nc)
{
    const struct shape *x = in_s(c, 0), *w = in_s(c, 1), *r = in_s(c, 2);
    bool layout = node_attr_int(c->n, "layout", 0) != 0;
    double seq = (double)(layout ? x->d[1] : x->d[0]), batch = (double)(layout ? x->d[0] : x->d[1]);
    double dirs = (double)w->d[0], gh = (double)w->d[1], in = (double)w->d[2];
    double h = (double)r->d[2];
    double steps = seq * batch * dirs;
    nc->macs = steps * gh * (in + h);
    double gate;
    switch (c->n->op) {
    case OP_LSTM: gate = 3 * FL_SIGMOID + 2 * FL_TANH + 3 * FL_MUL + FL_ADD; break;
    case OP_GRU: gate = 2 * FL_SIGMOID + FL_TANH + 3 * FL_MUL + 2 * FL_ADD; break;
    default: gate = FL_TANH; break;
    }
    nc->flops = 2 * nc->macs + steps * (h * gate + (in_v(c, 3) ? 2 * gh : 0));
}

void cost_attention(const struct infer_ctx *c, struct node_cost *nc)
{
    const struct shape *x = in_s(c, 0);
    double scores, proj = 0, dqk, dv;
    if (in_v(c, 1) && in_s(c, 1)->rank == 2) {
        const struct shape *w = in_s(c, 1), *pres = c->n->n_out > 1 ? &out_v(c, 1)->shape : NULL;
        double heads = (double)node_attr_int(c->n, "num_heads", 1);
        double b = (double)x->d[0], s = (double)x->d[1];
        double t = pres && pres->known ? (double)pres->d[3] : s;
        double vh = onumel(c, 0) / (b * s);
        proj = b * s * (double)w->d[0] * (double)w->d[1];
        dqk = ((double)w->d[1] - vh) / 2 / heads;
        dv = vh / heads;
        scores = b * heads * s * t;
    } else {
        const struct shape *k = in_s(c, 1), *v = in_s(c, 2);
        if (x->rank == 4) {
            scores = (double)x->d[0] * (double)x->d[1] * (double)x->d[2] * (double)k->d[2];
            dqk = (double)x->d[3];
            dv = (double)v->d[3];
        } else {
            double heads = (double)node_attr_int(c->n, "q_num_heads", 1);
            double kvh = (double)node_attr_int(c->n, "kv_num_heads", heads);
            scores = (double)x->d[0] * heads * (double)x->d[1] * (double)k->d[1];
            dqk = (double)x->d[2] / heads;
            dv = (double)v->d[2] / kvh;
        }
    }
    nc->macs = proj + scores * (dqk + dv);
    nc->flops = 2 * nc->macs + scores * (FL_SOFTMAX + FL_MUL);
}

void cost_mha(const struct infer_ctx *c, struct node_cost *nc)
{
    /* scores B*heads*S*L, each with a head_size dot product and a weighted
     * sum over head_size_v; projections are separate MatMuls */
    const struct shape *q = in_s(c, 0), *k = in_s(c, 1), *v = in_s(c, 2);
    double heads = (double)node_attr_int(c->n, "num_heads", 1);
    double scores = (double)q->d[0] * heads * (double)q->d[1] * (double)k->d[1];
    nc->macs = scores * ((double)q->d[2] / heads + (double)v->d[2] / heads);
    nc->flops = 2 * nc->macs + scores * (FL_SOFTMAX + FL_MUL);
}

void cost_sdpa(const struct infer_ctx *c, struct node_cost *nc)
{
    const struct shape *q = in_s(c, 0), *k = in_s(c, 1);
    int r = q->rank;
    double lq = (double)q->d[r - 2], e = (double)q->d[r - 1], lk = (double)k->d[r - 2];
    double batch = onumel(c, 0) / (lq * (double)out_v(c, 0)->shape.d[r - 1]);
    double ev = (double)out_v(c, 0)->shape.d[r - 1];
    double scores = batch * lq * lk;
    nc->macs = scores * (e + ev);
    nc->flops = 2 * nc->macs + scores * (FL_SOFTMAX + FL_MUL + (in_v(c, 3) ? FL_ADD : 0));
}

void cost_dft(const struct infer_ctx *c, struct node_cost *nc)
{
    /* radix-2 FFT: 5 N log2 N FLOPs per complex transform of length N */
    const struct shape *o = &out_v(c, 0)->shape;
    double total = onumel(c, 0) / 2, n = 1;
    for (int i = 1; i < o->rank - 1; i++)
        n = (double)o->d[i] > n ? (double)o->d[i] : n;
    nc->flops = 5 * total * log2(n + 1.0);
}

void cost_det(const struct infer_ctx *c, struct node_cost *nc)
{
    /* LU factorisation: n^3 / 3 multiply-accumulates per matrix */
    const struct shape *x = in_s(c, 0);
    double n = (double)x->d[x->rank - 1];
    nc->macs = onumel(c, 0) * n * n * n / 3;
    nc->flops = 2 * nc->macs;
}

/* ---- graph totals and liveness --------------------------------------------- */

static bool is_activation(const struct graph *g, const struct value *v)
{
    (void)g;
    if (v->flags & VAL_INIT || !v->shape.known || v->is_const)
        return false;
    return v->producer >= 0 || (v->flags & VAL_INPUT);
}

/* The storage root of every value (a view aliases its input's storage) and
 * the last topological step that uses each root (graph outputs: nn, the
 * end). */
static void storage_roots(const struct graph *g, int *root, int *last)
{
    int nv = g->n_values, nn = g->n_nodes;
    for (int vi = 0; vi < nv; vi++) {
        root[vi] = vi;
        last[vi] = -1;
    }
    for (int p = 0; p < nn; p++) {
        const struct node *n = &g->nodes[g->topo[p]];
        if (n->state == NODE_OK && op_is_view(n->op) && n->n_in > 0 && n->in[0] >= 0 &&
            n->n_out > 0 && n->out[0] >= 0)
            root[n->out[0]] = root[n->in[0]];
    }
    for (int p = 0; p < nn; p++) {
        const struct node *n = &g->nodes[g->topo[p]];
        for (int i = 0; i < n->n_in; i++)
            if (n->in[i] >= 0 && last[root[n->in[i]]] < p)
                last[root[n->in[i]]] = p;
        for (int j = 0; j < n->n_out; j++)
            if (n->out[j] >= 0 && last[root[n->out[j]]] < p)
                last[root[n->out[j]]] = p;
    }
    for (int i = 0; i < g->n_outputs; i++)
        last[root[g->outputs[i]]] = nn;
}

/* Bytes a value holds while live: of the real tokens in a padding-free
 * run (tok_scale, graph/ops/tokens.h), else all of it. */
static double live_bytes(const struct value *v)
{
    return v->seq_dims == 1 ? vbytes(v) * v->tok_scale : vbytes(v);
}

double graph_peak_act_bytes(const struct graph *g, const bool *hidden)
{
    int nv = g->n_values, nn = g->n_nodes;
    int *root = xmalloc(sizeof(int) * (size_t)(nv + 1));
    int *last = xmalloc(sizeof(int) * (size_t)(nv + 1));
    storage_roots(g, root, last);
    double live = 0;
    for (int i = 0; i < g->n_inputs; i++)
        if (is_activation(g, &g->values[g->inputs[i]]))
            live += live_bytes(&g->values[g->inputs[i]]);
    double peak = live;
    /* frees[p]: bytes whose last use is step p (sizes of roots) */
    double *frees = xcalloc((size_t)nn + 1, sizeof(double));
    for (int vi = 0; vi < nv; vi++) {
        const struct value *v = &g->values[vi];
        if (root[vi] == vi && is_activation(g, v) && !(hidden && hidden[vi]) && last[vi] >= 0 &&
            last[vi] < nn)
            frees[last[vi]] += live_bytes(v);
    }
    for (int p = 0; p < nn; p++) {
        const struct node *n = &g->nodes[g->topo[p]];
        for (int j = 0; j < n->n_out; j++) {
            int vi = n->out[j];
            if (vi >= 0 && root[vi] == vi && is_activation(g, &g->values[vi]) &&
                !(hidden && hidden[vi]))
                live += live_bytes(&g->values[vi]);
        }
        if (live > peak)
            peak = live;
        live -= frees[p];
    }
    free(frees);
    free(last);
    free(root);
    return peak;
}

void cost_totals(struct graph *g)
{
    struct graph_totals *t = &g->totals;
    memset(t, 0, sizeof *t);
    int nv = g->n_values, nn = g->n_nodes;
    bool *counted = xcalloc((size_t)nv + 1, sizeof(bool));
    for (int p = 0; p < nn; p++) {
        const struct node *n = &g->nodes[g->topo[p]];
        for (int i = 0; i < n->n_in; i++) {
            int vi = n->in[i];
            if (vi >= 0 && !counted[vi] && input_is_param(n, i, &g->values[vi], true)) {
                counted[vi] = true;
                t->params += (double)numel(&g->values[vi].shape);
                t->param_bytes += vbytes(&g->values[vi]);
            }
        }
        if (n->state == NODE_UNSUPPORTED)
            t->n_unsupported++;
        else if (n->state == NODE_UNKNOWN_INPUT)
            t->n_unknown++;
        else if (n->state == NODE_NOT_RUN)
            t->n_not_run++;
        if (n->state != NODE_OK)
            continue;
        t->n_counted++;
        t->macs += n->cost.macs;
        t->flops += n->cost.flops;
        t->bytes_read += n->cost.bytes_read;
        t->bytes_written += n->cost.bytes_written;
    }
    /* activation bytes written (a view's output aliases its input) */
    for (int p = 0; p < nn; p++) {
        const struct node *n = &g->nodes[g->topo[p]];
        if (n->state == NODE_OK && op_is_view(n->op) && n->n_in > 0 && n->in[0] >= 0)
            continue;
        for (int j = 0; j < n->n_out; j++)
            if (n->out[j] >= 0 && is_activation(g, &g->values[n->out[j]]))
                t->act_bytes += vbytes(&g->values[n->out[j]]);
    }
    for (int i = 0; i < g->n_inputs; i++)
        if (is_activation(g, &g->values[g->inputs[i]]))
            t->input_bytes += vbytes(&g->values[g->inputs[i]]);
    for (int i = 0; i < g->n_outputs; i++)
        t->output_bytes += vbytes(&g->values[g->outputs[i]]);
    t->peak_act_bytes = graph_peak_act_bytes(g, NULL);
    free(counted);
}
