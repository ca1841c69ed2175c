/* generation.c - LLM generation: prefill and decode passes of a decoder,
 * the growing KV cache, memory and serving capacity (generation.h). */
#include "core/generation.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fit.h"
#include "core/gpu.h"
#include "core/sim.h"
#include "core/tp.h"
#include "util/xalloc.h"
#include "graph/zoo/zoo.h"

#define MIB 1048576.0
#define GEN_MAX_BATCH ((int64_t)1 << 20)
#define GEN_MAX_TOTAL_SYMS 8

struct gen_model {
    struct graph *prefill, *decode; /* the same graph for an export */
    bool own;                       /* built from a template: both are ours */
    char kv_sub[64];                /* substring naming the cache inputs */
    int tok_pre, tok_dec;           /* token-count symbol per graph (-1: fixed 1) */
    int past_pre, past_dec;         /* cache-length symbol per graph (-1: none) */
    int n_total, total[GEN_MAX_TOTAL_SYMS]; /* symbols bound to past + tokens */
    double kv_elems;                /* cache elements per token of one sequence */
    int tp;                         /* GPUs of the tensor-parallel group (1: one GPU) */
    int layers, hidden;             /* of a template: what its all-reduces carry */
};

static bool is_kv_input(const struct graph *g, int vi, const char *sub)
{
    const struct value *v = &g->values[vi];
    return v->name && strstr(v->name, sub) && v->rank >= 3 &&
           (v->dtype == DT_UNDEFINED || dtype_is_float(v->dtype));
}

static enum dtype value_dt(const struct value *v)
{
    return v->idtype != DT_UNDEFINED ? v->idtype : v->dtype;
}

/* Bytes of v under the current inference, in its own dtype (0 if unknown). */
static double value_bytes(const struct value *v)
{
    if (!v->shape.known)
        return 0;
    double e = 1;
    for (int i = 0; i < v->shape.rank; i++)
        e *= (double)v->shape.d[i];
    enum dtype dt = value_dt(v);
    return e * (dt == DT_UNDEFINED ? 4 : dtype_size(dt));
}

/* Cache tensors of an inferred graph: the KV inputs and the outputs after
 * the first (the logits) of rank 3 or more: the keys and values kept. */
static double kv_graph_bytes(const struct graph *g, const char *sub)
{
    double b = 0;
    for (int i = 0; i < g->n_inputs; i++)
        if (is_kv_input(g, g->inputs[i], sub))
            b += value_bytes(&g->values[g->inputs[i]]);
    for (int i = 1; i < g->n_outputs; i++) {
        const struct value *v = &g->values[g->outputs[i]];
        if (v->shape.known && v->shape.rank >= 3)
            b += value_bytes(v);
    }
    return b;
}

/* Symbol of dim k of value v other than batch, or -1. */
static int dim_sym(const struct graph *g, const struct value *v, int k)
{
    int bs = graph_batch_sym(g);
    if (k >= v->rank || !v->dims)
        return -1;
    int s = v->dims[k].sym;
    return s >= 0 && s != bs ? s : -1;
}

/* Finds the cache inputs of g: their past-length symbol and the cache
 * elements per token. */
static enum status detect_kv(struct gen_model *m, struct graph *g, struct diag *d)
{
    int bs = graph_batch_sym(g);
    m->past_dec = -1;
    int n_kv = 0;
    double elems = 0;
    for (int i = 0; i < g->n_inputs; i++) {
        int vi = g->inputs[i];
        if (!is_kv_input(g, vi, m->kv_sub))
            continue;
        const struct value *v = &g->values[vi];
        double e = 1;
        for (int k = 0; k < v->rank; k++) {
            int s = v->dims[k].sym;
            if (s >= 0 && s != bs) {
                if (m->past_dec >= 0 && m->past_dec != s)
                    return diag_set(d, ST_EUSAGE,
                                    "%s: cache input '%s' has two length symbols ('%s' and "
                                    "'%s'); expected one past-length axis", g->name, v->name,
                                    g->syms[m->past_dec].name, g->syms[s].name);
                m->past_dec = s;
            } else if (s < 0) {
                if (v->dims[k].v <= 0)
                    return diag_set(d, ST_EUSAGE, "%s: cache input '%s' has an unknown dim %d",
                                    g->name, v->name, k);
                e *= (double)v->dims[k].v;
            }
        }
        elems += e;
        n_kv++;
    }
    if (!n_kv)
        return diag_set(d, ST_EUSAGE,
                        "%s: not a decoder with a KV cache: no input name contains '%s' (name "
                        "the cache inputs with --kv-inputs SUBSTRING)", g->name, m->kv_sub);
    if (m->past_dec < 0)
        return diag_set(d, ST_EUSAGE, "%s: the KV-cache inputs ('%s') have no symbolic length "
                        "axis, so the cache cannot grow", g->name, m->kv_sub);
    m->kv_elems = elems;
    return ST_OK;
}

/* Finds the cache inputs, the past-length and token symbols of an export. */
static enum status detect_export(struct gen_model *m, struct graph *g, struct diag *d)
{
    enum status st = detect_kv(m, g, d);
    if (st)
        return st;
    m->tok_dec = -1;
    for (int i = 0; i < g->n_inputs && m->tok_dec < 0; i++) {
        const struct value *v = &g->values[g->inputs[i]];
        if (is_kv_input(g, g->inputs[i], m->kv_sub) || dtype_is_float(v->dtype))
            continue;
        for (int k = 0; k < v->rank && m->tok_dec < 0; k++) {
            int s = dim_sym(g, v, k);
            if (s >= 0 && s != m->past_dec)
                m->tok_dec = s;
        }
    }
    if (m->tok_dec < 0)
        return diag_set(d, ST_EUSAGE, "%s: no integer input (input_ids) with a symbolic token "
                        "axis, so the prompt cannot be prefilled with this graph", g->name);
    /* other symbols of the inputs (attention_mask: past + tokens) */
    for (int i = 0; i < g->n_inputs; i++) {
        const struct value *v = &g->values[g->inputs[i]];
        for (int k = 0; k < v->rank; k++) {
            int s = dim_sym(g, v, k);
            bool seen = s < 0 || s == m->past_dec || s == m->tok_dec;
            for (int t = 0; t < m->n_total && !seen; t++)
                seen = m->total[t] == s;
            if (!seen && m->n_total < GEN_MAX_TOTAL_SYMS)
                m->total[m->n_total++] = s;
        }
    }
    m->prefill = m->decode = g;
    m->tok_pre = m->tok_dec;
    m->past_pre = m->past_dec;
    return ST_OK;
}

static struct graph *build_phase(struct gen_model *m, const char *spec, const char *phase,
                                 struct diag *d)
{
    struct zoo_args a;
    if (zoo_args_parse(spec, &a, d) || zoo_args_set(&a, "phase", phase, d))
        return NULL;
    m->layers = (int)a.num[zoo_param_find(a.fam, "layers")];
    m->hidden = (int)a.num[zoo_param_find(a.fam, "hidden")];
    if (tp_shard_args(&a, m->tp, d))
        return NULL;
    /* serving computes the next token's logits only */
    if (zoo_param_find(a.fam, "logits") >= 0 && zoo_args_set(&a, "logits", "last", d))
        return NULL;
    return zoo_build(&a, d);
}

enum status gen_model_open(struct graph *g, const char *kv_inputs, struct gen_model **out,
                           struct diag *d)
{
    return gen_model_open_tp(g, kv_inputs, 1, out, d);
}

enum status gen_model_open_tp(struct graph *g, const char *kv_inputs, int tp,
                              struct gen_model **out, struct diag *d)
{
    *out = NULL;
    if (!tp_valid(tp))
        return diag_set(d, ST_EUSAGE, "--tp %d: expected 1, 2, 4 or 8 GPUs", tp);
    struct gen_model *m = xcalloc(1, sizeof *m);
    m->tp = tp;
    snprintf(m->kv_sub, sizeof m->kv_sub, "%s", kv_inputs && *kv_inputs ? kv_inputs : "past");
    char fam[32];
    const char *f = zoo_graph_family(g, fam, sizeof fam);
    enum status st;
    if (f && (!strcmp(f, "gpt") || !strcmp(f, "llama") || !strcmp(f, "moe"))) {
        snprintf(m->kv_sub, sizeof m->kv_sub, "past");
        m->own = true;
        m->prefill = build_phase(m, g->path, "prefill", d);
        m->decode = m->prefill ? build_phase(m, g->path, "decode", d) : NULL;
        if (!m->decode) {
            gen_model_free(m);
            return d ? d->code : ST_EINTERNAL;
        }
        if ((st = detect_kv(m, m->decode, d))) {
            gen_model_free(m);
            return st;
        }
        m->tok_pre = graph_sym_find(m->prefill, "seq");
        m->past_pre = -1;
        m->tok_dec = -1;
        m->past_dec = graph_sym_find(m->decode, "seq");
    } else if (f) {
        free(m);
        return diag_set(d, ST_EUSAGE, "%s: generation needs a decoder; zoo:%s is not one "
                        "(decoder templates: gpt, llama, moe)", g->path, f);
    } else if (tp > 1) {
        free(m);
        return tp_refuse_export(g->path ? g->path : g->name, tp, d);
    } else if ((st = detect_export(m, g, d))) {
        free(m);
        return st;
    }
    *out = m;
    return ST_OK;
}

void gen_model_free(struct gen_model *m)
{
    if (!m)
        return;
    if (m->own) {
        graph_free(m->prefill);
        graph_free(m->decode);
    }
    free(m);
}

bool gen_is_decoder(const struct graph *g)
{
    char fam[32];
    const char *f = zoo_graph_family(g, fam, sizeof fam);
    if (f)
        return !strcmp(f, "gpt") || !strcmp(f, "llama") || !strcmp(f, "moe");
    for (int i = 0; i < g->n_inputs; i++)
        if (is_kv_input(g, g->inputs[i], "past"))
            return true;
    return false;
}

double gen_model_kv_elems(const struct gen_model *m)
{
    return m->kv_elems;
}

int gen_model_tp(const struct gen_model *m)
{
    return m->tp;
}

double gen_model_comm_ms(const struct gen_model *m, const struct config *cfg, int64_t batch,
                         int64_t tokens)
{
    if (m->tp <= 1)
        return 0;
    struct tp_link l;
    tp_link_of(gpu_get(cfg->gpu), &l);
    return tp_pass_ms(&l, m->tp, m->layers, m->hidden, (double)batch, (double)tokens, cfg->prec);
}

/* Binds tokens and cache length on graph g of m (tok/past: its symbols). */
static enum status bind(struct gen_model *m, struct graph *g, int tok, int past, int64_t tokens,
                        int64_t cached, struct diag *d)
{
    enum status st;
    if (tok >= 0 && (st = graph_sym_set(g, g->syms[tok].name, tokens, d)))
        return st;
    if (past >= 0 && (st = graph_sym_set(g, g->syms[past].name, cached, d)))
        return st;
    for (int i = 0; g == m->decode && !m->own && i < m->n_total; i++)
        if ((st = graph_sym_set(g, g->syms[m->total[i]].name, cached + tokens, d)))
            return st;
    return ST_OK;
}

/* One pass: latency, energy and the memory parts outside the cache. */
struct pass {
    double ms, energy_j, act_mib, weights_mib, ctx_mib, cap_mib, bw_bytes, idle_w;
    bool gnn;
};

static enum status run_pass(struct predictor *p, struct gen_model *m, bool prefill,
                            const struct config *cfg, int64_t batch, int64_t tokens,
                            int64_t cached, struct pass *out, struct diag *d)
{
    struct graph *g = prefill ? m->prefill : m->decode;
    enum status st = bind(m, g, prefill ? m->tok_pre : m->tok_dec,
                          prefill ? m->past_pre : m->past_dec, tokens, cached, d);
    if (st)
        return st;
    struct config c = *cfg;
    c.batch = batch;
    struct prediction pr;
    if ((st = predict_run(p, g, &c, &pr, d))) {
        prediction_fini(&pr);
        return st;
    }
    double peak = pr.sim.act_live_bytes, kvb = kv_graph_bytes(g, m->kv_sub);
    double share = peak > 0 && kvb < peak ? 1 - kvb / peak : 0;
    struct hw hw;
    hw_from_config(&c, &hw, NULL);
    /* A decode step also costs per sequence (scheduling, sampling, stop
     * checks): sim_params seq_step_us, at the power sim_decode_host_w. */
    double host_ms = prefill ? 0 : sim_decode_host_ms(NULL, c.rt, batch);
    double host_w = sim_decode_host_w(NULL, c.rt, hw.idle_w, hw.tdp_w);
    /* the group's all-reduces, with each GPU drawing at least its idle power */
    double comm_ms = gen_model_comm_ms(m, cfg, batch, prefill ? tokens : 1);
    *out = (struct pass){.ms = pr.latency_ms + host_ms + comm_ms,
                         .energy_j = pr.energy_j + host_w * host_ms * 1e-3 +
                                     hw.idle_w * comm_ms * 1e-3,
                         .act_mib = pr.sim.act_peak_mib * share,
                         .weights_mib = pr.sim.weights_mib,
                         .ctx_mib = pr.sim.context_mib + pr.sim.workspace_mib,
                         .cap_mib = pr.capacity_mib, .bw_bytes = hw.bw_bytes,
                         .idle_w = hw.idle_w,
                         .gnn = pr.from_gnn};
    prediction_fini(&pr);
    return ST_OK;
}

/* The predictor reads and writes the cache at the model's precision; a
 * separate KV precision changes that traffic by (model - kv) bytes per
 * element at the sustained bandwidth. Time and energy scale together. */
static void kv_adjust(struct pass *ps, const struct gen_model *m, const struct config *cfg,
                      const struct gen_request *rq, int64_t batch, int64_t cache_tokens)
{
    double delta = precision_bytes(cfg->prec) - precision_bytes(rq->kv_prec);
    if (delta == 0 || ps->ms <= 0)
        return;
    double bw = ps->bw_bytes * sim_params_default()->bw_eff;
    double s = (double)batch * (double)cache_tokens * m->kv_elems * delta / bw;
    double ms = ps->ms - s * 1e3;
    if (ms < ps->ms * 0.05)
        ms = ps->ms * 0.05;
    ps->energy_j *= ms / ps->ms;
    ps->ms = ms;
}

struct timing {
    double ttft_ms, tpot_ms, energy_j, act_mib, weights_mib, ctx_mib, cap_mib;
    double pre_act_mib, dec_act_mib; /* of the prefill and of a decode step */
    bool gnn;
};

/* Sum over the integers a..b of the linear interpolation through (x_k, y_k). */
static double interp_sum(const int64_t *x, const double *y, int n)
{
    double s = y[0];
    for (int k = 0; k + 1 < n; k++) {
        double w = (double)(x[k + 1] - x[k]);
        s += w * y[k] + (y[k + 1] - y[k]) * (w + 1) / 2;
    }
    return s;
}

static enum status time_batch(struct predictor *p, struct gen_model *m, const struct config *cfg,
                              const struct gen_request *rq, int64_t batch, struct timing *t,
                              struct diag *d)
{
    int64_t n = rq->input_tokens, mo = rq->output_tokens;
    struct pass pre, dec;
    enum status st = run_pass(p, m, true, cfg, batch, n, 1, &pre, d);
    if (st)
        return st;
    kv_adjust(&pre, m, cfg, rq, batch, n);
    /* decode steps: output tokens 2..M over caches of N .. N + M - 2 */
    int64_t steps = mo - 1, a = n, b = n + (steps > 0 ? steps - 1 : 0);
    int k = steps <= 1 ? 1 : steps < GEN_DECODE_POINTS ? (int)steps : GEN_DECODE_POINTS;
    int64_t x[GEN_DECODE_POINTS];
    double ms[GEN_DECODE_POINTS], ej[GEN_DECODE_POINTS];
    for (int i = 0; i < k; i++) {
        x[i] = k == 1 ? a : a + (int64_t)llround((double)(b - a) * i / (k - 1));
        if ((st = run_pass(p, m, false, cfg, batch, 1, x[i], &dec, d)))
            return st;
        kv_adjust(&dec, m, cfg, rq, batch, x[i]);
        ms[i] = dec.ms;
        ej[i] = dec.energy_j;
    }
    double sum_ms = interp_sum(x, ms, k), sum_j = interp_sum(x, ej, k);
    int64_t count = k == 1 ? 1 : b - a + 1;
    /* the request's fixed cost (sim_params request_us) comes before the
     * first token, with the GPU idle */
    double req_ms = sim_request_ms(NULL, cfg->rt);
    pre.ms += req_ms;
    pre.energy_j += pre.idle_w * req_ms * 1e-3;
    t->ttft_ms = pre.ms;
    t->tpot_ms = sum_ms / (double)count;
    t->energy_j = pre.energy_j + (steps > 0 ? sum_j / (double)count * (double)steps : 0);
    t->act_mib = pre.act_mib > dec.act_mib ? pre.act_mib : dec.act_mib;
    t->pre_act_mib = pre.act_mib;
    t->dec_act_mib = dec.act_mib;
    t->weights_mib = dec.weights_mib;
    t->ctx_mib = dec.ctx_mib;
    t->cap_mib = dec.cap_mib;
    t->gnn = pre.gnn && dec.gnn;
    return ST_OK;
}

static void fill(struct gen_result *out, const struct gen_model *m, const struct gen_request *rq,
                 int64_t batch, const struct timing *t)
{
    int64_t mo = rq->output_tokens;
    out->input_tokens = rq->input_tokens;
    out->output_tokens = mo;
    out->batch = batch;
    out->kv_prec = rq->kv_prec;
    out->ttft_ms = t->ttft_ms;
    out->tpot_ms = t->tpot_ms;
    out->e2e_ms = t->ttft_ms + (double)(mo - 1) * t->tpot_ms;
    out->output_tokens_per_s = out->e2e_ms > 0 ? (double)(batch * mo) * 1e3 / out->e2e_ms : 0;
    out->energy_j = t->energy_j;
    out->energy_j_per_output_token = t->energy_j / (double)(batch * mo);
    out->kv_bytes_per_token = m->kv_elems * precision_bytes(rq->kv_prec);
    out->kv_cache_mib = out->kv_bytes_per_token * (double)(rq->input_tokens + mo) *
                        (double)batch / MIB;
    struct gen_memory *g = &out->mem;
    g->weights_mib = t->weights_mib;
    g->kv_cache_mib = out->kv_cache_mib;
    g->activations_mib = t->act_mib;
    g->context_mib = t->ctx_mib;
    g->total_mib = g->weights_mib + g->kv_cache_mib + g->activations_mib + g->context_mib;
    g->capacity_mib = t->cap_mib;
    g->fits = fit_ok(g->total_mib, rq->headroom, g->capacity_mib);
    g->over_mib = fit_over_mib(g->total_mib, rq->headroom, g->capacity_mib);
    out->from_gnn = t->gnn;
}

/* Parameters, and those without the resident experts (initializers held
 * only by an Identity whose output nothing reads). */
static void count_params(const struct gen_model *m, struct gen_result *out)
{
    const struct graph *g = m->decode;
    out->params = g->totals.params;
    double idle = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const struct node *n = &g->nodes[i];
        if (n->op != OP_Identity || n->n_in < 1 || n->in[0] < 0 || n->out[0] < 0)
            continue;
        const struct value *w = &g->values[n->in[0]], *o = &g->values[n->out[0]];
        if (!(w->flags & VAL_INIT) || o->n_consumers || (o->flags & VAL_OUTPUT) ||
            !w->shape.known)
            continue;
        double e = 1;
        for (int k = 0; k < w->shape.rank; k++)
            e *= (double)w->shape.d[k];
        idle += e;
    }
    out->active_params = out->params - idle;
}

enum status gen_request_check(const struct gen_model *m, const struct gen_request *rq,
                              struct diag *d)
{
    if (rq->input_tokens < 1 || rq->output_tokens < 1 || rq->batch < 1 ||
        rq->input_tokens > ((int64_t)1 << 30) || rq->output_tokens > ((int64_t)1 << 30))
        return diag_set(d, ST_ERANGE, "generation: input and output tokens and batch must be "
                        "at least 1 (got %lld, %lld, %lld)", (long long)rq->input_tokens,
                        (long long)rq->output_tokens, (long long)rq->batch);
    if (!precision_storage(rq->kv_prec))
        return diag_set(d, ST_ERANGE, "generation: KV-cache precision %s is not a storage type "
                        "(%s)", precision_name(rq->kv_prec), precision_storage_names());
    /* the last token's position: the context a template's prefill is limited to */
    const struct symbol *s = m->tok_pre >= 0 ? &m->prefill->syms[m->tok_pre] : NULL;
    int64_t total = rq->input_tokens + rq->output_tokens;
    if (s && s->max && total > s->max)
        return diag_set(d, ST_ERANGE, "generation: input_tokens %lld + output_tokens %lld = "
                        "%lld exceeds the maximum %lld: %s", (long long)rq->input_tokens,
                        (long long)rq->output_tokens, (long long)total, (long long)s->max,
                        s->why);
    return ST_OK;
}

static enum status run_batch(struct predictor *p, struct gen_model *m, const struct config *cfg,
                             const struct gen_request *rq, struct gen_result *out,
                             struct timing *t, struct diag *d)
{
    memset(out, 0, sizeof *out);
    enum status st = gen_request_check(m, rq, d);
    if (st)
        return st;
    if ((st = time_batch(p, m, cfg, rq, rq->batch, t, d)))
        return st;
    fill(out, m, rq, rq->batch, t);
    count_params(m, out);
    if (m->tp > 1) {
        out->tp = m->tp;
        out->energy_j *= m->tp;
        out->energy_j_per_output_token *= m->tp;
        out->ttft_comm_ms = gen_model_comm_ms(m, cfg, rq->batch, rq->input_tokens);
        out->tpot_comm_ms = gen_model_comm_ms(m, cfg, rq->batch, 1);
    } else {
        out->tp = 1;
    }
    return ST_OK;
}

/* The serving capacity: an engine with in-flight batching keeps max_batch
 * sequences resident and prefills prompts in steps of at most
 * GEN_STEP_TOKENS tokens, not the whole batch's prompts at once. So memory
 * holds the weights, the context, one step's activations (a full chunk) and
 * each sequence's KV cache and decode activations. The time is still the
 * prefill of the batch plus its decode steps: overlapping the two (prefill
 * compute under decode traffic) made prompt-heavy rows of the published
 * maximum-load figures 40-80% too fast. */
static enum status run_max(struct predictor *p, struct gen_model *m, const struct config *cfg,
                           const struct gen_request *rq, struct gen_result *out, struct diag *d)
{
    struct timing t;
    enum status st = run_batch(p, m, cfg, rq, out, &t, d);
    if (st)
        return st;
    double b = (double)rq->batch, tokens = (double)rq->input_tokens * b;
    double per_seq = out->kv_cache_mib / b + t.dec_act_mib / b;
    double step = tokens > 0 ? t.pre_act_mib / tokens * GEN_STEP_TOKENS : 0;
    out->serve_step_act_mib = step;
    out->serve_seq_mib = per_seq;
    const struct gen_memory *g = &out->mem;
    double room = g->capacity_mib / (1 + rq->headroom) - g->weights_mib - g->context_mib - step;
    int64_t mb = 0;
    if (room > 0 && per_seq > 0)
        mb = room / per_seq >= (double)GEN_MAX_BATCH ? GEN_MAX_BATCH : (int64_t)(room / per_seq);
    out->max_batch = mb;
    if (mb == 0)
        return ST_OK;
    struct gen_result at;
    struct gen_request r = *rq;
    r.batch = mb;
    if (mb != rq->batch && (st = run_batch(p, m, cfg, &r, &at, &t, d)))
        return st;
    double pre = t.ttft_ms, dec = (double)(rq->output_tokens - 1) * t.tpot_ms;
    double ms = pre + dec;
    out->max_output_tokens_per_s = ms > 0 ? (double)mb * (double)rq->output_tokens * 1e3 / ms : 0;
    return ST_OK;
}

/* An export's graph is the caller's: its symbol bindings are put back (and
 * its shapes left to be re-inferred) whatever happened. */
typedef enum status (*gen_fn)(struct predictor *, struct gen_model *, const struct config *,
                              const struct gen_request *, struct gen_result *, struct diag *);

static enum status keep_bindings(gen_fn fn, struct predictor *p, struct gen_model *m,
                                 const struct config *cfg, const struct gen_request *rq,
                                 struct gen_result *out, struct diag *d)
{
    struct graph *g = m->decode;
    int n = m->own ? 0 : g->n_syms;
    int64_t *saved = xmalloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; i++)
        saved[i] = g->syms[i].val;
    enum status st = fn(p, m, cfg, rq, out, d);
    for (int i = 0; i < n; i++)
        g->syms[i].val = saved[i];
    if (n)
        g->inferred = false;
    free(saved);
    return st;
}

static enum status run_static(struct predictor *p, struct gen_model *m,
                              const struct config *cfg, const struct gen_request *rq,
                              struct gen_result *out, struct diag *d)
{
    struct timing t;
    return run_batch(p, m, cfg, rq, out, &t, d);
}

enum status gen_run_batch(struct predictor *p, struct gen_model *m, const struct config *cfg,
                          const struct gen_request *rq, struct gen_result *out, struct diag *d)
{
    return keep_bindings(run_static, p, m, cfg, rq, out, d);
}

enum status gen_run(struct predictor *p, struct gen_model *m, const struct config *cfg,
                    const struct gen_request *rq, struct gen_result *out, struct diag *d)
{
    return keep_bindings(run_max, p, m, cfg, rq, out, d);
}
