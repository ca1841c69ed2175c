/* tokens.c - padding-free runs: the real tokens per sequence (tokens.h). */
#include "graph/ops/tokens.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

int graph_seq_sym(const struct graph *g)
{
    static const char *const names[] = {"seq", "sequence", "seq_len", "sequence_length",
                                        "seq_length", "S", "tokens"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        int s = graph_sym_find(g, names[i]);
        if (s >= 0)
            return s;
    }
    if (g->n_inputs > 0) {
        const struct value *v = &g->values[g->inputs[0]];
        if (v->rank >= 2 && v->dims[1].sym >= 0 && v->dims[1].sym != graph_batch_sym(g))
            return v->dims[1].sym;
    }
    return -1;
}

static enum status too_many(const struct graph *g, int64_t tokens, struct diag *d)
{
    const struct symbol *s = &g->syms[g->tokens_sym];
    return diag_set(d, ST_ERANGE, "%s=%lld exceeds %s=%lld: the real tokens of a sequence "
                    "padded to %lld are at most %lld", GRAPH_TOKENS_NAME, (long long)tokens,
                    s->name, (long long)s->val, (long long)s->val, (long long)s->val);
}

enum status graph_tokens_set(struct graph *g, int64_t tokens, struct diag *d)
{
    if (tokens < 0)
        return diag_set(d, ST_ERANGE, "%s=%lld: expected a token count from 1",
                        GRAPH_TOKENS_NAME, (long long)tokens);
    if (tokens == 0) {
        g->tokens = 0;
        return ST_OK;
    }
    int s = graph_seq_sym(g);
    if (s < 0)
        return diag_set(d, ST_EUSAGE, "%s=%lld: model '%s' has no sequence symbol (seq) whose "
                        "padding could be removed", GRAPH_TOKENS_NAME, (long long)tokens,
                        g->name ? g->name : "?");
    g->tokens_sym = s;
    if (tokens > g->syms[s].val)
        return too_many(g, tokens, d);
    g->tokens = tokens;
    g->inferred = false;
    return ST_OK;
}

/* Elements of a known shape, else -1. */
static double numel(const struct shape *sh)
{
    if (!sh->known)
        return -1;
    double e = 1;
    for (int i = 0; i < sh->rank; i++)
        e *= (double)sh->d[i];
    return e;
}

/* seq_dims and tok_scale of every value from its element count at the real
 * tokens (nt[vi], -1 if unknown) and at the padded length (its shape now):
 * the count of a value with k dims along the sequence scales as
 * (tokens / seq)^k. */
static void classify(struct graph *g, const double *nt, double ratio)
{
    for (int vi = 0; vi < g->n_values; vi++) {
        struct value *v = &g->values[vi];
        double ns = numel(&v->shape);
        if (ns <= 0 || nt[vi] <= 0 || nt[vi] == ns)
            continue;
        long k = lround(log(nt[vi] / ns) / log(ratio));
        if (k < 1)
            continue;
        v->seq_dims = (int)k;
        if (k == 1)
            v->tok_scale = nt[vi] / ns;
    }
}

enum status graph_tokens_infer(struct graph *g, struct diag *d)
{
    struct symbol *s = &g->syms[g->tokens_sym];
    int64_t seq = s->val;
    if (g->tokens > seq)
        return too_many(g, g->tokens, d);
    if (g->tokens == seq)
        return graph_infer_pass(g, d);
    s->val = g->tokens;
    enum status st = graph_infer_pass(g, d);
    s->val = seq;
    if (st) {
        diag_prefix(d, "%s=%lld", GRAPH_TOKENS_NAME, (long long)g->tokens);
        return st;
    }
    double *nt = xmalloc((size_t)(g->n_values > 0 ? g->n_values : 1) * sizeof *nt);
    for (int vi = 0; vi < g->n_values; vi++)
        nt[vi] = numel(&g->values[vi].shape);
    st = graph_infer_pass(g, d);
    if (!st) {
        classify(g, nt, (double)g->tokens / (double)seq);
        g->totals.peak_act_bytes = graph_peak_act_bytes(g, NULL);
    }
    free(nt);
    return st;
}

bool graph_node_per_seq(const struct graph *g, const struct node *n)
{
    if (g->tokens <= 0)
        return false;
    for (int pass = 0; pass < 2; pass++) {
        int cnt = pass ? n->n_out : n->n_in;
        const int *ix = pass ? n->out : n->in;
        for (int i = 0; i < cnt; i++)
            if (ix[i] >= 0 && g->values[ix[i]].seq_dims >= 2)
                return true;
    }
    return false;
}

double graph_node_tok_scale(const struct graph *g, const struct node *n)
{
    if (g->tokens <= 0 || graph_node_per_seq(g, n))
        return 1;
    double scale = 1;
    for (int pass = 0; pass < 2; pass++) {
        int cnt = pass ? n->n_out : n->n_in;
        const int *ix = pass ? n->out : n->in;
        for (int i = 0; i < cnt; i++)
            if (ix[i] >= 0 && g->values[ix[i]].seq_dims == 1 &&
                g->values[ix[i]].tok_scale < scale)
                scale = g->values[ix[i]].tok_scale;
    }
    return scale;
}

double graph_value_tok_scale(const struct graph *g, const struct node *n,
                             const struct value *v)
{
    if (g->tokens <= 0 || graph_node_per_seq(g, n))
        return 1;
    return v->tok_scale;
}
