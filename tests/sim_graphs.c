/* sim_graphs.c - hand-built graphs with shapes and costs set directly. */
#include "sim_graphs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void val(struct graph *g, const char *name, int rank, const int64_t *d, unsigned flags)
{
    struct dim dims[IR_MAX_RANK];
    for (int i = 0; i < rank; i++)
        dims[i] = (struct dim){d[i], -1};
    int vi = graph_value_get(g, name);
    graph_value_set_type(g, vi, DT_FLOAT, rank, dims);
    if (flags & VAL_INPUT)
        graph_input_add(g, vi);
    if (flags & VAL_INIT)
        graph_init_add(g, vi);
    if (flags & VAL_OUTPUT)
        graph_output_add(g, vi);
}

static int node(struct graph *g, enum op op, const char *name, const char *a, const char *b,
                const char *c, const char *out)
{
    const char *in[3] = {a, b, c};
    int n = c ? 3 : b ? 2 : 1;
    const char *o[1] = {out};
    return graph_node_add_named(g, op, name, in, n, o, 1);
}

static double numel(const struct value *v)
{
    double e = 1;
    for (int i = 0; i < v->rank; i++)
        e *= (double)v->dims[i].v;
    return e;
}

/* Shapes from the declared dims, costs by ir.h's conventions, liveness. */
static struct graph *finish(struct graph *g)
{
    struct diag d = {0};
    if (graph_finalize(g, &d)) {
        fprintf(stderr, "sim_graphs: %s\n", d.msg);
        abort();
    }
    for (int vi = 0; vi < g->n_values; vi++) {
        struct value *v = &g->values[vi];
        v->shape.known = true;
        v->shape.rank = v->rank;
        for (int i = 0; i < v->rank; i++)
            v->shape.d[i] = v->dims[i].v;
        v->idtype = DT_FLOAT;
    }
    memset(&g->totals, 0, sizeof g->totals);
    double live = 0, peak = 0;
    int *left = calloc((size_t)g->n_values, sizeof *left);
    for (int vi = 0; vi < g->n_values; vi++) {
        left[vi] = g->values[vi].n_consumers;
        if (g->values[vi].flags & VAL_INPUT)
            live += numel(&g->values[vi]) * 4;
        if (g->values[vi].flags & VAL_INIT) {
            g->totals.params += numel(&g->values[vi]);
            g->totals.param_bytes += numel(&g->values[vi]) * 4;
        }
    }
    peak = live;
    for (int t = 0; t < g->n_nodes; t++) {
        struct node *n = &g->nodes[g->topo[t]];
        struct node_cost *c = &n->cost;
        memset(c, 0, sizeof *c);
        const struct value *o = &g->values[n->out[0]];
        const struct value *x = &g->values[n->in[0]];
        double out = numel(o);
        switch (n->op) {
        case OP_MatMul: c->macs = out * (double)x->dims[x->rank - 1].v; break;
        case OP_Gemm: c->macs = out * (double)x->dims[1].v; break;
        case OP_Conv: {
            const struct value *w = &g->values[n->in[1]];
            c->macs = out * (double)(w->dims[1].v * w->dims[2].v * w->dims[3].v);
            break;
        }
        default: break;
        }
        switch (n->op) {
        case OP_Reshape: case OP_Flatten: case OP_Transpose: c->flops = 0; break;
        case OP_Softmax: case OP_LayerNormalization: c->flops = 5 * out; break;
        case OP_BatchNormalization: c->flops = 2 * out; break;
        default: c->flops = c->macs > 0 ? 2 * c->macs : out; break;
        }
        for (int k = 0; k < n->n_in; k++) {
            const struct value *v = &g->values[n->in[k]];
            c->bytes_read += numel(v) * 4;
            if (v->flags & VAL_INIT) {
                c->params += numel(v);
                c->param_bytes += numel(v) * 4;
            }
        }
        c->bytes_written = c->out_bytes = out * 4;
        n->state = NODE_OK;
        g->totals.macs += c->macs;
        g->totals.flops += c->flops;
        g->totals.bytes_read += c->bytes_read;
        g->totals.bytes_written += c->bytes_written;
        g->totals.act_bytes += out * 4;
        g->totals.n_counted++;
        live += out * 4;
        if (live > peak)
            peak = live;
        for (int k = 0; k < n->n_in; k++) {
            const struct value *v = &g->values[n->in[k]];
            if (--left[n->in[k]] == 0 && !(v->flags & (VAL_INIT | VAL_OUTPUT)))
                live -= numel(v) * 4;
        }
    }
    free(left);
    g->totals.peak_act_bytes = peak;
    g->inferred = true;
    return g;
}

struct graph *sg_gemm(int64_t m, int64_t k, int64_t n)
{
    struct graph *g = graph_new("gemm");
    val(g, "x", 2, (int64_t[]){m, k}, VAL_INPUT);
    val(g, "W", 2, (int64_t[]){k, n}, VAL_INIT);
    val(g, "y", 2, (int64_t[]){m, n}, VAL_OUTPUT);
    node(g, OP_MatMul, "mm", "x", "W", NULL, "y");
    return finish(g);
}

struct graph *sg_mlp(int64_t batch, int64_t width, int n_layers)
{
    struct graph *g = graph_new("mlp");
    char a[32], w[32], b[32], h[32], r[32];
    val(g, "x0", 2, (int64_t[]){batch, width}, VAL_INPUT);
    snprintf(a, sizeof a, "x0");
    for (int l = 0; l < n_layers; l++) {
        snprintf(w, sizeof w, "W%d", l);
        snprintf(b, sizeof b, "b%d", l);
        snprintf(h, sizeof h, "h%d", l);
        snprintf(r, sizeof r, "hb%d", l);
        val(g, w, 2, (int64_t[]){width, width}, VAL_INIT);
        val(g, b, 1, (int64_t[]){width}, VAL_INIT);
        val(g, h, 2, (int64_t[]){batch, width}, 0);
        val(g, r, 2, (int64_t[]){batch, width}, 0);
        node(g, OP_MatMul, NULL, a, w, NULL, h);
        node(g, OP_Add, NULL, h, b, NULL, r);
        snprintf(a, sizeof a, "x%d", l + 1);
        val(g, a, 2, (int64_t[]){batch, width}, l == n_layers - 1 ? VAL_OUTPUT : 0);
        node(g, OP_Relu, NULL, r, NULL, NULL, a);
    }
    return finish(g);
}

static void conv_bn(struct graph *g, const char *in, const char *out, int64_t batch, int64_t cin,
                    int64_t cout, int64_t hw, int64_t ksz, const char *tag)
{
    char w[40], c[40], s[40], bb[40], m[40], v[40];
    snprintf(w, sizeof w, "%s.w", tag);
    snprintf(c, sizeof c, "%s.c", tag);
    snprintf(s, sizeof s, "%s.s", tag);
    snprintf(bb, sizeof bb, "%s.b", tag);
    snprintf(m, sizeof m, "%s.m", tag);
    snprintf(v, sizeof v, "%s.v", tag);
    val(g, w, 4, (int64_t[]){cout, cin, ksz, ksz}, VAL_INIT);
    val(g, c, 4, (int64_t[]){batch, cout, hw, hw}, 0);
    val(g, out, 4, (int64_t[]){batch, cout, hw, hw}, 0);
    for (int i = 0; i < 4; i++)
        val(g, (const char *[]){s, bb, m, v}[i], 1, (int64_t[]){cout}, VAL_INIT);
    int ni = node(g, OP_Conv, NULL, in, w, NULL, c);
    graph_attr_ints(g, ni, "kernel_shape", (int64_t[]){ksz, ksz}, 2);
    graph_attr_ints(g, ni, "pads", (int64_t[]){ksz / 2, ksz / 2, ksz / 2, ksz / 2}, 4);
    const char *bn_in[5] = {c, s, bb, m, v}, *bn_out[1] = {out};
    graph_node_add_named(g, OP_BatchNormalization, NULL, bn_in, 5, bn_out, 1);
}

struct graph *sg_cnn(int64_t batch, int64_t ch, int64_t hw, int n_blocks)
{
    struct graph *g = graph_new("cnn");
    val(g, "img", 4, (int64_t[]){batch, 3, hw, hw}, VAL_INPUT);
    conv_bn(g, "img", "stem.bn", batch, 3, ch, hw, 3, "stem");
    val(g, "a0", 4, (int64_t[]){batch, ch, hw, hw}, 0);
    node(g, OP_Relu, NULL, "stem.bn", NULL, NULL, "a0");
    char in[32], t1[32], t2[32], t3[32], t4[32], tag[32];
    for (int b = 0; b < n_blocks; b++) {
        snprintf(in, sizeof in, "a%d", b);
        snprintf(t1, sizeof t1, "blk%d.bn1", b);
        snprintf(t2, sizeof t2, "blk%d.r1", b);
        snprintf(t3, sizeof t3, "blk%d.bn2", b);
        snprintf(t4, sizeof t4, "blk%d.sum", b);
        snprintf(tag, sizeof tag, "blk%d.c1", b);
        conv_bn(g, in, t1, batch, ch, ch, hw, 3, tag);
        val(g, t2, 4, (int64_t[]){batch, ch, hw, hw}, 0);
        node(g, OP_Relu, NULL, t1, NULL, NULL, t2);
        snprintf(tag, sizeof tag, "blk%d.c2", b);
        conv_bn(g, t2, t3, batch, ch, ch, hw, 3, tag);
        val(g, t4, 4, (int64_t[]){batch, ch, hw, hw}, 0);
        node(g, OP_Add, NULL, t3, in, NULL, t4);
        snprintf(in, sizeof in, "a%d", b + 1);
        val(g, in, 4, (int64_t[]){batch, ch, hw, hw}, 0);
        node(g, OP_Relu, NULL, t4, NULL, NULL, in);
    }
    val(g, "gap", 4, (int64_t[]){batch, ch, 1, 1}, 0);
    node(g, OP_GlobalAveragePool, NULL, in, NULL, NULL, "gap");
    val(g, "flat", 2, (int64_t[]){batch, ch}, 0);
    node(g, OP_Flatten, NULL, "gap", NULL, NULL, "flat");
    val(g, "fc.w", 2, (int64_t[]){ch, 1000}, VAL_INIT);
    val(g, "logits", 2, (int64_t[]){batch, 1000}, VAL_OUTPUT);
    node(g, OP_Gemm, NULL, "flat", "fc.w", NULL, "logits");
    return finish(g);
}

struct graph *sg_attn(int64_t batch, int64_t seq, int64_t d)
{
    struct graph *g = graph_new("attn");
    val(g, "x", 3, (int64_t[]){batch, seq, d}, VAL_INPUT);
    val(g, "ln.s", 1, (int64_t[]){d}, VAL_INIT);
    val(g, "ln.b", 1, (int64_t[]){d}, VAL_INIT);
    val(g, "xn", 3, (int64_t[]){batch, seq, d}, 0);
    node(g, OP_LayerNormalization, NULL, "x", "ln.s", "ln.b", "xn");
    val(g, "Wq", 2, (int64_t[]){d, d}, VAL_INIT);
    val(g, "Wv", 2, (int64_t[]){d, d}, VAL_INIT);
    val(g, "q", 3, (int64_t[]){batch, seq, d}, 0);
    val(g, "v", 3, (int64_t[]){batch, seq, d}, 0);
    node(g, OP_MatMul, NULL, "xn", "Wq", NULL, "q");
    node(g, OP_MatMul, NULL, "xn", "Wv", NULL, "v");
    val(g, "kt", 3, (int64_t[]){batch, d, seq}, 0);
    int t = node(g, OP_Transpose, NULL, "q", NULL, NULL, "kt");
    graph_attr_ints(g, t, "perm", (int64_t[]){0, 2, 1}, 3);
    val(g, "s", 3, (int64_t[]){batch, seq, seq}, 0);
    node(g, OP_MatMul, NULL, "q", "kt", NULL, "s");
    val(g, "p", 3, (int64_t[]){batch, seq, seq}, 0);
    node(g, OP_Softmax, NULL, "s", NULL, NULL, "p");
    val(g, "o", 3, (int64_t[]){batch, seq, d}, 0);
    node(g, OP_MatMul, NULL, "p", "v", NULL, "o");
    val(g, "y", 3, (int64_t[]){batch, seq, d}, VAL_OUTPUT);
    node(g, OP_Add, NULL, "o", "x", NULL, "y");
    return finish(g);
}

struct graph *sg_dwconv(int64_t batch, int64_t ch, int64_t hw)
{
    struct graph *g = graph_new("dw");
    val(g, "x", 4, (int64_t[]){batch, ch, hw, hw}, VAL_INPUT);
    val(g, "w", 4, (int64_t[]){ch, 1, 3, 3}, VAL_INIT);
    val(g, "y", 4, (int64_t[]){batch, ch, hw, hw}, VAL_OUTPUT);
    int ni = node(g, OP_Conv, "dw", "x", "w", NULL, "y");
    graph_attr_int(g, ni, "group", ch);
    graph_attr_ints(g, ni, "kernel_shape", (int64_t[]){3, 3}, 2);
    graph_attr_ints(g, ni, "pads", (int64_t[]){1, 1, 1, 1}, 4);
    return finish(g);
}

struct graph *sg_swish(int64_t batch, int64_t width)
{
    struct graph *g = graph_new("swish");
    val(g, "x", 2, (int64_t[]){batch, width}, VAL_INPUT);
    val(g, "W", 2, (int64_t[]){width, width}, VAL_INIT);
    val(g, "h", 2, (int64_t[]){batch, width}, 0);
    val(g, "s", 2, (int64_t[]){batch, width}, 0);
    val(g, "y", 2, (int64_t[]){batch, width}, VAL_OUTPUT);
    node(g, OP_MatMul, "mm", "x", "W", NULL, "h");
    node(g, OP_Sigmoid, "sig", "h", NULL, NULL, "s");
    node(g, OP_Mul, "swish", "h", "s", NULL, "y");
    return finish(g);
}
