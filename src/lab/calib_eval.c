/*
 * calib_eval.c - the graphs behind the calibration rows (one per distinct
 * spec, batch, sequence and phase, loaded once and cached), the teacher runs
 * (one per distinct graph and configuration, shared by the rows that need
 * it), the per-target estimates (generation, best offline throughput), the
 * coordinate-search fit of the global constants and the leave-one-model-out
 * folds.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lab/calib_impl.h"
#include "lab/dataset.h"
#include "core/diffusion.h"
#include "util/jsonw.h"
#include "util/strbuf.h"
#include "core/gpu.h"
#include "graph/load.h"
#include "graph/ops/shape.h"
#include "graph/ops/tokens.h"
#include "graph/zoo/zoo.h"

/* Batch sizes an offline-throughput row tries (the best that fits wins). */
static const int64_t offline_batches[CALIB_MAX_RUNS] = {8, 32, 128, 512, 2048, 0};
#define N_OFFLINE 5

/* ---- graphs -------------------------------------------------------------------- */

static enum status bind_and_infer(struct graph *g, const struct calib_binding *b,
                                  struct diag *d)
{
    int bs = graph_batch_sym(g);
    if (bs < 0)
        return diag_set(d, ST_EGRAPH, "%s: no batch symbol to bind", b->spec);
    g->syms[bs].val = b->batch;
    enum status st;
    if (b->seq > 0) {
        int ss = graph_seq_sym(g);
        if (ss < 0 || ss == bs)
            return diag_set(d, ST_EGRAPH, "%s: no sequence-length symbol to bind", b->spec);
        g->syms[ss].val = b->seq;
    }
    if (b->tokens > 0 && (st = graph_tokens_set(g, b->tokens, d)))
        return st;
    g->inferred = false;
    st = graph_infer(g, d);
    if (st)
        return st;
    if (g->totals.n_unsupported || g->totals.n_unknown)
        return diag_set(d, ST_EUNSUPPORTED,
                        "%s: %d node(s) without shape/cost support and %d downstream of them; "
                        "the calibration needs every node costed", b->spec,
                        g->totals.n_unsupported, g->totals.n_unknown);
    return ST_OK;
}

/* A binding of spec at (batch, seq); decode: one step over a cache of seq
 * tokens. Rows of a generation (input tokens given) compute the logits of
 * the last position only, as serving runtimes do. */
static int binding_get(struct calib_graphs *cg, const char *spec, int64_t batch, int64_t seq,
                       int64_t tokens, bool decode, bool last)
{
    for (int i = 0; i < cg->n_b; i++) {
        const struct calib_binding *b = &cg->b[i];
        if (b->batch == batch && b->seq == seq && b->tokens == tokens && b->decode == decode &&
            b->last == last &&
            !strcmp(b->spec, spec))
            return i;
    }
    if (cg->n_b == cg->cap_b) {
        int nc = cg->cap_b ? cg->cap_b * 2 : 64;
        struct calib_binding *nb = realloc(cg->b, (size_t)nc * sizeof *nb);
        if (!nb)
            return -1;
        cg->b = nb;
        cg->cap_b = nc;
    }
    struct calib_binding *b = &cg->b[cg->n_b];
    memset(b, 0, sizeof *b);
    snprintf(b->spec, sizeof b->spec, "%s", spec);
    b->batch = batch;
    b->seq = seq;
    b->tokens = tokens;
    b->decode = decode;
    b->last = last;
    char path[8192];
    if (!strncmp(spec, "samples/", 8))
        snprintf(path, sizeof path, "%.4000s/%.190s", cg->samples_dir, spec + 8);
    else
        snprintf(path, sizeof path, "%s%s%s", spec, decode ? ":phase=decode" : "",
                 last ? ":logits=last" : "");
    struct diag ld = {0};
    b->g = model_load(path, &ld);
    if (!b->g || bind_and_infer(b->g, b, &ld)) {
        graph_free(b->g);
        b->g = NULL;
        snprintf(b->err, sizeof b->err, "graph rejected (batch %lld, %s %lld): %.160s",
                 (long long)batch, decode ? "context" : "seq", (long long)seq, ld.msg);
    }
    for (int i = 0; b->g && i < b->g->n_nodes && !b->has_conv; i++)
        b->has_conv = b->g->nodes[i].op == OP_Conv || b->g->nodes[i].op == OP_ConvTranspose;
    return cg->n_b++;
}

static int run_get(struct calib_graphs *cg, int bi, const struct config *cfg)
{
    for (int i = 0; i < cg->n_r; i++) {
        const struct calib_run *r = &cg->r[i];
        if (r->bi == bi && r->cfg.gpu == cfg->gpu && r->cfg.mig == cfg->mig &&
            r->cfg.prec == cfg->prec && r->cfg.rt == cfg->rt && r->cfg.batch == cfg->batch)
            return i;
    }
    if (cg->n_r == cg->cap_r) {
        int nc = cg->cap_r ? cg->cap_r * 2 : 128;
        struct calib_run *nr = realloc(cg->r, (size_t)nc * sizeof *nr);
        if (!nr)
            return -1;
        cg->r = nr;
        cg->cap_r = nc;
    }
    struct calib_run *r = &cg->r[cg->n_r];
    memset(r, 0, sizeof *r);
    r->bi = bi;
    r->cfg = *cfg;
    return cg->n_r++;
}

/* Does spec name a template with parameter name? */
static bool has_param(const char *spec, const char *name)
{
    struct zoo_args a;
    struct diag d = {0};
    return !strncmp(spec, "zoo:", 4) && !zoo_args_parse(spec, &a, &d) &&
           zoo_param_find(a.fam, name) >= 0;
}

/* A template with the logits parameter (llama, moe; GPT-2 computes every
 * position's logits). */
static bool has_logits_param(const char *spec)
{
    return has_param(spec, "logits");
}

/* The runs a row needs: generation = prefill + one decode step at the mean
 * context; offline throughput = one run per batch tried; else one run. */
static enum status row_runs(struct calib_graphs *cg, struct calib_row *r, struct diag *d)
{
    struct config cfg = r->cfg;
    int bis[CALIB_MAX_RUNS], n = 0;
    bool last = r->in_tokens > 0 && has_logits_param(r->spec);
    if (r->steps > 0) {
        /* one denoising step: the denoiser over the conditional and the
         * unconditional half of the batch */
        bis[n++] = binding_get(cg, r->spec, 2 * r->batch, r->seq, 0, false, false);
        /* then one VAE decode of the batch */
        char vae[192];
        struct diag vd = {0};
        if (diff_vae_spec(r->spec, vae, sizeof vae, &vd)) {
            r->use = CU_SKIP;
            snprintf(r->reason, sizeof r->reason, "%.200s", vd.msg);
            r->n_run = 0;
            return ST_OK;
        }
        bis[n++] = binding_get(cg, vae, r->batch, 0, 0, false, false);
        /* and the text encoders, once, on every prompt of the batch */
        char text[DIFF_MAX_TEXT][DIFF_SPEC_MAX];
        int nt = 0;
        if (diff_text_specs(r->spec, text, &nt, &vd))
            nt = 0; /* a denoiser without a known encoder: the pipeline runs without */
        for (int i = 0; i < nt && n < CALIB_MAX_RUNS; i++)
            bis[n++] = binding_get(cg, text[i], 2 * r->batch, 0, 0, false, false);
    } else if (calib_row_is_generation(r)) {
        bis[n++] = binding_get(cg, r->spec, r->batch, r->in_tokens, 0, false, last);
        bis[n++] = binding_get(cg, r->spec, r->batch, r->in_tokens + r->out_tokens / 2, 0,
                               true, last);
    } else if (r->target == CT_THROUGHPUT && r->batch == 0) {
        for (int k = 0; k < N_OFFLINE; k++) {
            r->run_batch[n] = offline_batches[k];
            bis[n++] = binding_get(cg, r->spec, offline_batches[k], r->seq, r->tokens, false,
                                   last);
        }
    } else {
        bis[n++] = binding_get(cg, r->spec, r->batch, r->seq, r->tokens, false, last);
    }
    r->n_run = 0;
    for (int k = 0; k < n; k++) {
        if (bis[k] < 0)
            return diag_set(d, ST_ENOMEM, "calibration: out of memory");
        if (!cg->b[bis[k]].g) {
            if (r->target == CT_THROUGHPUT && r->batch == 0 && k > 0)
                break; /* larger offline batches stop at the first rejected one */
            r->use = CU_SKIP;
            snprintf(r->reason, sizeof r->reason, "%s", cg->b[bis[k]].err);
            r->n_run = 0;
            return ST_OK;
        }
        cfg.batch = cg->b[bis[k]].batch;
        int ri = run_get(cg, bis[k], &cfg);
        if (ri < 0)
            return diag_set(d, ST_ENOMEM, "calibration: out of memory");
        r->run_batch[r->n_run] = cfg.batch;
        r->run[r->n_run++] = ri;
    }
    return ST_OK;
}

struct calib_graphs *calib_graphs_new(struct calib_set *set, const char *samples_dir,
                                      struct diag *d)
{
    struct calib_graphs *cg = calloc(1, sizeof *cg);
    if (!cg) {
        diag_set(d, ST_ENOMEM, "calibration: out of memory");
        return NULL;
    }
    snprintf(cg->samples_dir, sizeof cg->samples_dir, "%s", samples_dir);
    int n_used = 0;
    for (int i = 0; i < set->n_rows; i++) {
        struct calib_row *r = &set->rows[i];
        if (r->use == CU_SKIP)
            continue;
        if (row_runs(cg, r, d)) {
            calib_graphs_free(cg);
            return NULL;
        }
        n_used += r->use != CU_SKIP;
    }
    if (n_used == 0) {
        diag_set(d, ST_EUNSUPPORTED, "calibration: no usable row (%s)",
                 cg->n_b ? cg->b[0].err : "every row is skipped");
        calib_graphs_free(cg);
        return NULL;
    }
    return cg;
}

void calib_graphs_free(struct calib_graphs *cg)
{
    if (!cg)
        return;
    for (int i = 0; i < cg->n_b; i++)
        graph_free(cg->b[i].g);
    for (int i = 0; i < cg->n_r; i++)
        sim_prep_free(cg->r[i].prep);
    free(cg->b);
    free(cg->r);
    free(cg);
}

int calib_graphs_count(const struct calib_graphs *cg)
{
    int n = 0;
    for (int i = 0; i < cg->n_b; i++)
        n += cg->b[i].g != NULL;
    return n;
}

/* ---- evaluation --------------------------------------------------------------- */

static bool row_selected(const struct calib_graphs *cg, const struct calib_row *r, int sel)
{
    if (r->use == CU_SKIP || r->n_run == 0)
        return false;
    if ((sel & SEL_FP32) && r->cfg.prec != PREC_FP32)
        return false;
    if ((sel & SEL_CONV) && !cg->b[cg->r[r->run[0]].bi].has_conv)
        return false;
    if (sel & SEL_FIT_ONLY && (r->use != CU_FIT || r->held_out))
        return false;
    if (sel & SEL_HELD_OUT && !r->held_out)
        return false;
    bool mem = r->target == CT_MEMORY;
    if ((sel & SEL_POWER) && r->target != CT_POWER)
        return false;
    if ((sel & SEL_TIME) && !(sel & SEL_MEMORY) && mem)
        return false;
    if ((sel & SEL_MEMORY) && !(sel & SEL_TIME) && !mem)
        return false;
    int rt = (sel >> SEL_RT_SHIFT) & SEL_RT_MASK;
    if (rt && !calib_runtime_uses(r->cfg.rt, rt - 1))
        return false;
    return true;
}

/* A diffusion pipeline's figures as diffusion.c predicts them: the text
 * encoders once, steps x the denoising step, one VAE decode (runs 2.. of
 * the row are the encoders). */
static double pipeline_prediction(const struct calib_graphs *cg, const struct calib_row *r)
{
    const struct calib_run *a = &cg->r[r->run[0]], *vae = &cg->r[r->run[1]];
    double ms = (double)r->steps * a->latency_ms + vae->latency_ms;
    double ej = (double)r->steps * a->energy_j + vae->energy_j;
    for (int k = 2; k < r->n_run; k++) {
        ms += cg->r[r->run[k]].latency_ms;
        ej += cg->r[r->run[k]].energy_j;
    }
    switch (r->target) {
    case CT_LATENCY: return ms;
    case CT_THROUGHPUT: return (double)r->batch * 1e3 / ms;
    case CT_ENERGY: return ej / (double)r->batch;
    case CT_POWER: return ej * 1e3 / ms;
    default: return -1;
    }
}

static double row_prediction(const struct calib_graphs *cg, const struct calib_row *r,
                             const struct sim_params *p)
{
    const struct calib_run *a = &cg->r[r->run[0]];
    if (r->steps > 0)
        return pipeline_prediction(cg, r);
    switch (r->target) {
    case CT_MEMORY:
        return a->memory_mib;
    case CT_POWER:
        if (!calib_row_is_generation(r))
            return a->power_w;
        break;
    case CT_ENERGY:
        return a->energy_j / (double)r->batch;
    case CT_THROUGHPUT:
        if (r->batch == 0) {
            double best = 0;
            for (int k = 0; k < r->n_run; k++) {
                const struct calib_run *x = &cg->r[r->run[k]];
                if (!x->fits)
                    continue;
                double t = (double)r->run_batch[k] * 1e3 / x->latency_ms;
                best = t > best ? t : best;
            }
            return best;
        }
        return (double)r->batch * 1e3 / a->latency_ms;
    default:
        break;
    }
    double req_ms = sim_request_ms(p, a->cfg.rt);
    if (calib_row_is_first_token(r))
        return a->latency_ms + req_ms;
    if (!calib_row_is_generation(r))
        return r->gpu_timed ? a->latency_ms - sim_call_ms(p, a->cfg.rt) : a->latency_ms;
    const struct calib_run *dec = &cg->r[r->run[1]];
    double host_ms = sim_decode_host_ms(p, dec->cfg.rt, r->batch);
    double total_ms = a->latency_ms + req_ms + (double)r->out_tokens * (dec->latency_ms + host_ms);
    if (r->target == CT_GEN_TPUT)
        return (double)r->batch * (double)r->out_tokens * 1e3 / total_ms;
    double host_w = sim_decode_host_w(p, dec->cfg.rt, dec->idle_w, dec->tdp_w);
    double energy_j = a->energy_j + a->idle_w * req_ms * 1e-3 +
                      (double)r->out_tokens * (dec->energy_j + host_w * host_ms * 1e-3);
    if (r->target == CT_ENERGY_TOKEN)
        return energy_j / ((double)r->batch * (double)r->out_tokens);
    if (r->target == CT_POWER)
        return energy_j * 1e3 / total_ms;
    return total_ms;
}

/* One teacher run of the evaluation, done by whichever worker takes it:
 * the constant-free part is prepared once per run, then only the timing
 * and memory passes run for each set of constants. */
static enum status run_one(const struct calib_graphs *cg, struct calib_run *x,
                           const struct sim_params *p, struct diag *d)
{
    if (!x->prep) {
        struct hw hw;
        enum status st = hw_from_config(&x->cfg, &hw, d);
        if (!st)
            st = sim_prepare(cg->b[x->bi].g, &x->cfg, &x->prep, d);
        if (st) {
            diag_prefix(d, "calibration: %s batch %lld", cg->b[x->bi].spec,
                        (long long)x->cfg.batch);
            return st;
        }
        x->mem_bytes = hw.mem_bytes;
        x->idle_w = hw.idle_w;
        x->tdp_w = hw.tdp_w;
    }
    struct sim_totals t;
    sim_run_prepared(x->prep, p, &t);
    x->latency_ms = t.latency_ms;
    x->memory_mib = t.memory_mib;
    x->energy_j = t.energy_j;
    x->power_w = t.avg_power_w;
    x->fits = t.memory_mib * 1048576.0 <= x->mem_bytes;
    return ST_OK;
}

/* The runs are independent (the teacher reads its graph and writes only its
 * result), so workers take them in turn: the results do not depend on the
 * number of workers. */
struct pool {
    const struct calib_graphs *cg;
    struct calib_run *runs;
    const int *todo;
    int n;
    const struct sim_params *p;
    atomic_int next;
    enum status st[CALIB_MAX_THREADS];
    struct diag d[CALIB_MAX_THREADS];
};

struct worker {
    struct pool *pool;
    int id;
};

static void *work(void *arg)
{
    struct worker *w = arg;
    struct pool *pl = w->pool;
    for (;;) {
        int i = atomic_fetch_add(&pl->next, 1);
        if (i >= pl->n || pl->st[w->id])
            break;
        pl->st[w->id] = run_one(pl->cg, &pl->runs[pl->todo[i]], pl->p, &pl->d[w->id]);
    }
    return NULL;
}

int calib_thread_count(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int t = cpus > 1 ? (int)cpus : 1;
    return t > CALIB_MAX_THREADS ? CALIB_MAX_THREADS : t;
}

static int worker_count(int n)
{
    int t = calib_thread_count();
    return t > n / 8 + 1 ? n / 8 + 1 : t; /* a few runs are not worth a thread */
}

static enum status run_all(struct calib_graphs *cg, const int *todo, int n,
                           const struct sim_params *p, struct diag *d)
{
    struct pool pl = {.cg = cg, .runs = cg->r, .todo = todo, .n = n, .p = p};
    atomic_init(&pl.next, 0);
    int nt = worker_count(n);
    pthread_t th[CALIB_MAX_THREADS];
    struct worker w[CALIB_MAX_THREADS];
    int started = 0;
    for (int t = 1; t < nt; t++) {
        w[t] = (struct worker){&pl, t};
        if (pthread_create(&th[t], NULL, work, &w[t]))
            break;
        started = t;
    }
    w[0] = (struct worker){&pl, 0};
    work(&w[0]);
    for (int t = 1; t <= started; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < nt; t++)
        if (pl.st[t]) {
            if (d)
                *d = pl.d[t];
            return pl.st[t];
        }
    return ST_OK;
}

enum status calib_eval_sel(struct calib_set *set, struct calib_graphs *cg,
                           const struct sim_params *p, int sel, int fold, struct diag *d)
{
    for (int i = 0; i < cg->n_r; i++)
        cg->r[i].need = false;
    for (int i = 0; i < set->n_rows; i++)
        if (row_selected(cg, &set->rows[i], sel))
            for (int k = 0; k < set->rows[i].n_run; k++)
                cg->r[set->rows[i].run[k]].need = true;
    int *todo = malloc(((size_t)cg->n_r + 1) * sizeof *todo), n = 0;
    if (!todo)
        return diag_set(d, ST_ENOMEM, "calibration: out of memory");
    for (int i = 0; i < cg->n_r; i++)
        if (cg->r[i].need)
            todo[n++] = i;
    enum status st = run_all(cg, todo, n, p, d);
    free(todo);
    if (st)
        return st;
    for (int i = 0; i < set->n_rows; i++) {
        struct calib_row *r = &set->rows[i];
        if (!row_selected(cg, r, sel))
            continue;
        double v = row_prediction(cg, r, p ? p : sim_params_default());
        if (fold == CF_MODEL)
            r->pred_lomo = v;
        else if (fold == CF_FAMILY)
            r->pred_losfo = v;
        else
            r->pred = v;
    }
    return ST_OK;
}

enum status calib_evaluate(struct calib_set *set, struct calib_graphs *cg,
                           const struct sim_params *p, struct diag *d)
{
    return calib_eval_sel(set, cg, p, SEL_TIME | SEL_MEMORY, -1, d);
}

/* ---- export for the GNN ---------------------------------------------------- */

/* One fitted row as a dataset row (dataset.h JSONL, label "measured"), or
 * false when the row is more than one teacher run (a generation, an offline
 * sweep, a diffusion pipeline), a target the GNN does not predict, or a run
 * without padding (a dataset row has no form for its real tokens). */
static bool export_row(const struct calib_row *r, struct jsonw *w)
{
    if (r->use != CU_FIT || r->steps > 0 || r->tokens > 0 || calib_row_is_generation(r) ||
        (r->target != CT_LATENCY && r->target != CT_MEMORY))
        return false;
    /* the sequence length as a template parameter: seq where the template
     * has one; decoders (gpt, llama, moe) default their seq symbol to the
     * context, whose rotary or position table then has seq rows instead of
     * the model's maximum (under 0.5% of the weights) */
    const char *seq_param = has_param(r->spec, "seq")       ? "seq"
                            : has_param(r->spec, "context") ? "context"
                                                            : NULL;
    if (r->seq > 0 && !seq_param)
        return false; /* a sample's sequence axis is not a spec parameter */
    char spec[DATASET_SPEC_MAX];
    int n = snprintf(spec, sizeof spec, "%s", r->spec);
    if (r->seq > 0)
        n += snprintf(spec + n, sizeof spec - (size_t)n, ":%s=%lld", seq_param,
                      (long long)r->seq);
    if (r->in_tokens > 0 && has_logits_param(r->spec))
        n += snprintf(spec + n, sizeof spec - (size_t)n, ":logits=last");
    if (n >= (int)sizeof spec)
        return false;
    const struct gpu_spec *gs = gpu_get(r->cfg.gpu);
    jsonw_obj_begin(w);
    jsonw_key_str(w, "spec", spec);
    jsonw_key_str(w, "label", "measured");
    jsonw_key(w, "family"); /* leave-one-model-out groups by it */
    jsonw_str(w, r->model_id);
    jsonw_key_str(w, "gpu", gs ? gs->name : "?");
    jsonw_key_str(w, "mig", gs && r->cfg.mig >= 0 ? gs->mig[r->cfg.mig].name : "none");
    jsonw_key_str(w, "precision", precision_name(r->cfg.prec));
    jsonw_key_str(w, "runtime", runtime_name(r->cfg.rt));
    jsonw_key_int(w, "batch", r->batch);
    jsonw_key(w, r->target == CT_LATENCY ? "latency_ms" : "memory_mib");
    /* published MB are MiB as the sources count them (NVML). A figure timed
     * on the GPU alone gets the teacher's host cost of the call added, so
     * that every label is a latency as the caller sees it. */
    double host_ms = r->gpu_timed ? sim_call_ms(NULL, r->cfg.rt) : 0;
    /* a time to first token is the prefill pass plus the request's fixed
     * cost, which the pass's label does not include */
    if (calib_row_is_first_token(r))
        host_ms -= sim_request_ms(NULL, r->cfg.rt);
    jsonw_num(w, r->measured + host_ms, true);
    jsonw_obj_end(w);
    return true;
}

char *calib_export_rows(const struct calib_set *set, size_t *len, int *n_rows)
{
    struct strbuf out = STRBUF_INIT;
    *n_rows = 0;
    for (int i = 0; i < set->n_rows; i++) {
        struct jsonw w;
        jsonw_init(&w, false);
        if (export_row(&set->rows[i], &w)) {
            strbuf_add(&out, w.buf, w.len);
            strbuf_add(&out, "\n", 1);
            ++*n_rows;
        }
        jsonw_fini(&w);
    }
    return strbuf_take(&out, len);
}
