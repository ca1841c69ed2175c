/*
 * calib_eval.c - the graphs behind the calibration rows (one per distinct
 * spec, batch, sequence and phase, loaded once and cached), the teacher runs
 * (one per distinct graph and configuration, shared by the rows that need
 * it), the per-target estimates (generation, best offline throughput), the
 * coordinate-search fit of the global constants and the leave-one-model-out
 * folds.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib_impl.h"
#include "gpu.h"
#include "load.h"
#include "shape.h"

/* Batch sizes an offline-throughput row tries (the best that fits wins). */
static const int64_t offline_batches[CALIB_MAX_RUNS] = {8, 32, 128, 512, 2048, 0};
#define N_OFFLINE 5

/* ---- graphs -------------------------------------------------------------------- */

static int seq_symbol(const struct graph *g)
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
        if (v->rank >= 2 && v->dims[1].sym >= 0)
            return v->dims[1].sym;
    }
    return -1;
}

static enum status bind_and_infer(struct graph *g, const struct calib_binding *b,
                                  struct diag *d)
{
    int bs = graph_batch_sym(g);
    if (bs < 0)
        return diag_set(d, ST_EGRAPH, "%s: no batch symbol to bind", b->spec);
    g->syms[bs].val = b->batch;
    if (b->seq > 0) {
        int ss = seq_symbol(g);
        if (ss < 0 || ss == bs)
            return diag_set(d, ST_EGRAPH, "%s: no sequence-length symbol to bind", b->spec);
        g->syms[ss].val = b->seq;
    }
    g->inferred = false;
    enum status st = graph_infer(g, d);
    if (st)
        return st;
    if (g->totals.n_unsupported || g->totals.n_unknown)
        return diag_set(d, ST_EUNSUPPORTED,
                        "%s: %d node(s) without shape/cost support and %d downstream of them; "
                        "the calibration needs every node costed", b->spec,
                        g->totals.n_unsupported, g->totals.n_unknown);
    return ST_OK;
}

static int binding_get(struct calib_graphs *cg, const char *spec, int64_t batch, int64_t seq,
                       bool decode)
{
    for (int i = 0; i < cg->n_b; i++) {
        const struct calib_binding *b = &cg->b[i];
        if (b->batch == batch && b->seq == seq && b->decode == decode && !strcmp(b->spec, spec))
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
    b->decode = decode;
    char path[8192];
    if (!strncmp(spec, "samples/", 8))
        snprintf(path, sizeof path, "%.4000s/%.190s", cg->samples_dir, spec + 8);
    else
        snprintf(path, sizeof path, "%s%s", spec, decode ? ":phase=decode" : "");
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

static bool is_gen(const struct calib_row *r)
{
    return r->target == CT_GEN_TPUT || (r->target == CT_LATENCY && r->out_tokens > 1);
}

/* The runs a row needs: generation = prefill + one decode step at the mean
 * context; offline throughput = one run per batch tried; else one run. */
static enum status row_runs(struct calib_graphs *cg, struct calib_row *r, struct diag *d)
{
    struct config cfg = r->cfg;
    int bis[CALIB_MAX_RUNS], n = 0;
    if (is_gen(r)) {
        bis[n++] = binding_get(cg, r->spec, r->batch, r->in_tokens, false);
        bis[n++] = binding_get(cg, r->spec, r->batch, r->in_tokens + r->out_tokens / 2, true);
    } else if (r->target == CT_THROUGHPUT && r->batch == 0) {
        for (int k = 0; k < N_OFFLINE; k++) {
            r->run_batch[n] = offline_batches[k];
            bis[n++] = binding_get(cg, r->spec, offline_batches[k], r->seq, false);
        }
    } else {
        bis[n++] = binding_get(cg, r->spec, r->batch, r->seq, false);
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
    if ((sel & SEL_TIME) && !(sel & SEL_MEMORY) && mem)
        return false;
    if ((sel & SEL_MEMORY) && !(sel & SEL_TIME) && !mem)
        return false;
    int rt = (sel >> SEL_RT_SHIFT) & 3;
    if (rt && (int)r->cfg.rt != rt - 1)
        return false;
    return true;
}

static double row_prediction(const struct calib_graphs *cg, const struct calib_row *r)
{
    const struct calib_run *a = &cg->r[r->run[0]];
    switch (r->target) {
    case CT_MEMORY:
        return a->memory_mib;
    case CT_POWER:
        return a->power_w;
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
    if (!is_gen(r))
        return a->latency_ms;
    const struct calib_run *dec = &cg->r[r->run[1]];
    double total_ms = a->latency_ms + (double)r->out_tokens * dec->latency_ms;
    if (r->target == CT_GEN_TPUT)
        return (double)r->batch * (double)r->out_tokens * 1e3 / total_ms;
    if (r->target == CT_ENERGY_TOKEN)
        return (a->energy_j + (double)r->out_tokens * dec->energy_j) /
               ((double)r->batch * (double)r->out_tokens);
    return total_ms;
}

enum status calib_eval_sel(struct calib_set *set, struct calib_graphs *cg,
                           const struct sim_params *p, int sel, bool lomo, struct diag *d)
{
    for (int i = 0; i < cg->n_r; i++)
        cg->r[i].need = false;
    for (int i = 0; i < set->n_rows; i++)
        if (row_selected(cg, &set->rows[i], sel))
            for (int k = 0; k < set->rows[i].n_run; k++)
                cg->r[set->rows[i].run[k]].need = true;
    for (int i = 0; i < cg->n_r; i++) {
        struct calib_run *x = &cg->r[i];
        if (!x->need)
            continue;
        struct sim_result res;
        enum status st = sim_run_params(cg->b[x->bi].g, &x->cfg, p, &res, d);
        if (st) {
            diag_prefix(d, "calibration: %s batch %lld", cg->b[x->bi].spec,
                        (long long)x->cfg.batch);
            return st;
        }
        struct hw hw;
        if ((st = hw_from_config(&x->cfg, &hw, d))) {
            sim_result_fini(&res);
            return st;
        }
        x->latency_ms = res.latency_ms;
        x->memory_mib = res.memory_mib;
        x->energy_j = res.energy_j;
        x->power_w = res.avg_power_w;
        x->fits = res.memory_mib * 1048576.0 <= hw.mem_bytes;
        sim_result_fini(&res);
    }
    for (int i = 0; i < set->n_rows; i++) {
        struct calib_row *r = &set->rows[i];
        if (!row_selected(cg, r, sel))
            continue;
        double v = row_prediction(cg, r);
        if (lomo)
            r->pred_lomo = v;
        else
            r->pred = v;
    }
    return ST_OK;
}

enum status calib_evaluate(struct calib_set *set, struct calib_graphs *cg,
                           const struct sim_params *p, struct diag *d)
{
    return calib_eval_sel(set, cg, p, SEL_TIME | SEL_MEMORY, false, d);
}
