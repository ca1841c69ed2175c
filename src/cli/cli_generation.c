/* cli_generation.c - generation options shared by `dippm predict` and
 * `dippm sweep`: --input-tokens, --output-tokens, --kv-inputs and the KV
 * cache precision (--kv-precision P or --set kv=P). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_pred.h"
#include "util/jsonw.h"
#include "core/report.h"
#include "core/sweep.h"
#include "core/tp.h"

const struct cli_opt cli_gen_opts[] = {
    {"input-tokens", 0, "N", "prompt tokens per sequence: predicts the generation of a "
     "decoder (with --output-tokens)", CLI_OPT_GEN_IN},
    {"output-tokens", 0, "M", "tokens generated per sequence (with --input-tokens)",
     CLI_OPT_GEN_OUT},
    {"kv-inputs", 0, "SUBSTRING", "names the KV-cache inputs of an exported decoder (default: "
     "names containing 'past')", CLI_OPT_GEN_KVIN},
    {"kv-precision", 0, "P", "the KV cache's precision: fp32, fp16, bf16, int8 or fp8 "
     "(default: the model precision); the same as --set kv=P", CLI_OPT_GEN_KVPREC},
    {"tp", 0, "N", "tensor parallelism over N GPUs (1, 2, 4 or 8) of a llama or moe "
     "template: one GPU's shard plus the all-reduces over NVLink or PCIe", CLI_OPT_GEN_TP},
    {NULL, 0, NULL, NULL, 0},
};

static int parse_kv(struct cli_gen *gen, const char *arg, const char *opt)
{
    if (!precision_parse(arg, &gen->kv) || !precision_storage(gen->kv)) {
        cli_error("%s '%s': expected a KV-cache precision: %s", opt, arg,
                  precision_storage_names());
        return -1;
    }
    gen->kv_set = true;
    return 1;
}

int cli_gen_opt(struct cli_gen *gen, int c, const char *arg)
{
    switch (c) {
    case CLI_OPT_GEN_IN:
    case CLI_OPT_GEN_OUT: {
        int64_t *v = c == CLI_OPT_GEN_IN ? &gen->in : &gen->out;
        if (cli_parse_int(arg, 1, (int64_t)1 << 24, v)) {
            cli_error("--%s '%s': expected a token count from 1 to 16777216",
                      c == CLI_OPT_GEN_IN ? "input-tokens" : "output-tokens", arg);
            return -1;
        }
        return 1;
    }
    case CLI_OPT_GEN_KVIN:
        if (!*arg) {
            fprintf(stderr, "dippm: --kv-inputs: expected a substring of the cache inputs' "
                            "names, e.g. past_key_values\n");
            return -1;
        }
        gen->kv_inputs = arg;
        return 1;
    case CLI_OPT_GEN_KVPREC: return parse_kv(gen, arg, "--kv-precision");
    case CLI_OPT_GEN_TP: {
        int64_t n;
        if (cli_parse_int(arg, 1, TP_MAX, &n) || !tp_valid((int)n)) {
            cli_error("--tp '%s': expected a GPU count of 1, 2, 4 or 8", arg);
            return -1;
        }
        gen->tp = (int)n;
        return 1;
    }
    case CLI_OPT_SET:
        if (strncmp(arg, "kv=", 3) == 0)
            return parse_kv(gen, arg + 3, "--set kv");
        return 0;
    default: return 0;
    }
}

bool cli_gen_wanted(const struct cli_gen *gen, const char *sub, int *rc)
{
    *rc = 0;
    if (!gen->in && !gen->out) {
        if (gen->tp > 1) {
            *rc = cli_usage_error(sub, "--tp %d predicts the generation of a decoder split "
                                       "over %d GPUs: give --input-tokens and --output-tokens",
                                  gen->tp, gen->tp);
        } else if (gen->kv_set || gen->kv_inputs) {
            *rc = cli_usage_error(sub, "the KV-cache options need --input-tokens and "
                                       "--output-tokens");
        }
        return false;
    }
    if (!gen->in || !gen->out) {
        *rc = cli_usage_error(sub, "generation needs both --input-tokens N and "
                                   "--output-tokens M");
        return false;
    }
    return true;
}

int cli_gen_prepare(const struct cli_gen *gen, struct graph *g, const struct config *cfg,
                    double headroom, struct gen_model **m, struct gen_request *rq)
{
    struct diag d = {0};
    int tp = gen->tp > 1 ? gen->tp : 1;
    if (tp > 1 && cfg->mig >= 0) {
        diag_set(&d, ST_EUSAGE, "--tp %d: a MIG slice cannot be part of a tensor-parallel "
                 "group (slices have no NVLink or peer access); give a whole GPU", tp);
        return cli_fail(&d);
    }
    if (gen_model_open_tp(g, gen->kv_inputs, tp, m, &d))
        return cli_fail(&d);
    *rq = (struct gen_request){.input_tokens = gen->in, .output_tokens = gen->out,
                               .batch = cfg->batch, .kv_prec = gen->kv_set ? gen->kv : cfg->prec,
                               .headroom = headroom};
    if (rq->kv_prec == PREC_TF32)
        rq->kv_prec = PREC_FP32; /* tf32 is a compute mode: the cache is stored as fp32 */
    return 0;
}

/* ---- sweep ----------------------------------------------------------------- */

/* Appends " x N over LINK (memory per GPU)" to the GPU label hw of a
 * tensor-parallel group; nothing for one GPU. */
static void tp_label(const struct gen_model *m, const struct config *cfg, char *hw, size_t size)
{
    int n = gen_model_tp(m);
    if (n <= 1)
        return;
    struct tp_link l;
    tp_link_of(gpu_get(cfg->gpu), &l);
    size_t len = strlen(hw);
    snprintf(hw + len, size - len, " x %d over %s (memory per GPU)", n, l.name);
}

static void gen_row(FILE *f, struct jsonw *w, const struct cli_sweep_gen *s,
                    const struct gen_result *r)
{
    const struct cli_common *co = s->co;
    if (co->json) {
        jsonw_obj_begin(w);
        gen_report_json_timing(w, r);
        jsonw_key_fixed(w, "energy_j_per_output_token", r->energy_j_per_output_token, 6);
        jsonw_key_fixed(w, "kv_cache_mib", r->kv_cache_mib, 2);
        jsonw_key_fixed(w, "memory_mib", r->mem.total_mib, 1);
        jsonw_key_bool(w, "fits", r->mem.fits);
        cli_cost_cell(f, w, co, s->price, "cost_per_1m_output_tokens", r->output_tokens_per_s,
                      1e6);
        jsonw_obj_end(w);
        return;
    }
    if (co->csv) {
        if (r->tp > 1)
            fprintf(f, "%d,", r->tp);
        fprintf(f, "%lld,%lld,%lld,%.4f,%.4f,%.3f,%.2f,%.6f,%.2f,%.1f,%s",
                (long long)r->input_tokens, (long long)r->output_tokens, (long long)r->batch,
                r->ttft_ms, r->tpot_ms, r->e2e_ms, r->output_tokens_per_s,
                r->energy_j_per_output_token, r->kv_cache_mib, r->mem.total_mib,
                r->mem.fits ? "true" : "false");
    } else {
        fprintf(f, "%8lld %8lld %7lld %11.3f %10.3f %12.1f %11.1f %10.5f %11.0f %11.0f %5s",
                (long long)r->input_tokens, (long long)r->output_tokens, (long long)r->batch,
                r->ttft_ms, r->tpot_ms, r->e2e_ms, r->output_tokens_per_s,
                r->energy_j_per_output_token, r->kv_cache_mib, r->mem.total_mib,
                r->mem.fits ? "yes" : "NO");
    }
    cli_cost_cell(f, w, co, s->price, "", r->output_tokens_per_s, 1e6);
}

/* The rows of one value of --over as the sweep gives them. */
struct gen_rows {
    const struct cli_sweep_gen *s;
    FILE *f;
    struct jsonw *w;
    const struct gen_request *rq;
    int64_t over;
    int rc, n;
};

/* A row, a refused row (with --over: beyond the context) or, on any other
 * error, the end. */
static bool gen_point(void *ctx, const struct sweep_point *pt)
{
    struct gen_rows *r = ctx;
    const struct cli_sweep_gen *s = r->s;
    if (pt->st == ST_OK) {
        gen_row(r->f, r->w, s, &pt->gen);
        r->n++;
    } else if (pt->why.code == ST_ERANGE && s->over_name) {
        char prefix[32];
        snprintf(prefix, sizeof prefix, "%8lld %8lld %7lld", (long long)r->rq->input_tokens,
                 (long long)r->rq->output_tokens, (long long)pt->batch);
        cli_sweep_refused(r->f, r->w, s->co, s->over_name, r->over, pt->batch, prefix,
                          pt->why.msg);
    } else {
        r->rc = cli_fail(&pt->why);
        return false;
    }
    return true;
}

static int sweep_max_batch(const struct cli_sweep_gen *s, struct gen_model *m,
                           struct gen_request *rq)
{
    struct gen_result r;
    struct diag d = {0};
    rq->batch = 1;
    if (gen_run(s->p, m, s->cfg, rq, &r, &d))
        return cli_fail(&d);
    char hw[128], *buf = NULL;
    size_t len = 0;
    report_hw_label(s->cfg, hw, sizeof hw);
    int rc;
    if (s->co->json) {
        struct jsonw w;
        jsonw_init(&w, true);
        cli_sweep_json_open(&w, s, hw);
        gen_report_json(&w, &r, rq->headroom);
        return cli_sweep_json_emit(&w, s);
    }
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return 7;
    tp_label(m, s->cfg, hw, sizeof hw);
    if (r.max_batch > 0)
        fprintf(f, "largest batch on %s for %lld + %lld tokens: %lld (%.1f output tokens/s; "
                   "KV cache %.1f MiB per sequence, %.0f%% headroom)\n",
                hw, (long long)rq->input_tokens, (long long)rq->output_tokens,
                (long long)r.max_batch, r.max_output_tokens_per_s, r.kv_cache_mib,
                rq->headroom * 100);
    else
        fprintf(f, "no batch fits on %s: one sequence needs %.0f MiB, %.0f MiB over the %.0f "
                   "MiB usable with %.0f%% headroom\n", hw, r.mem.total_mib, r.mem.over_mib,
                r.mem.capacity_mib, rq->headroom * 100);
    fprintf(f, "source: %s\n", report_source_line(s->p));
    fclose(f);
    rc = cli_emit(s->co, buf, len);
    free(buf);
    return rc ? rc : r.max_batch > 0 ? 0 : 1;
}

void cli_sweep_json_open(struct jsonw *w, const struct cli_sweep_gen *s, const char *hw)
{
    jsonw_obj_begin(w);
    jsonw_key_str(w, "model", s->g->name);
    jsonw_key_str(w, "gpu", hw);
    report_quant_json(w, s->cfg);
}

int cli_sweep_json_emit(struct jsonw *w, const struct cli_sweep_gen *s)
{
    jsonw_key_str(w, "source", report_source_line(s->p));
    jsonw_obj_end(w);
    int rc = cli_emit(s->co, w->buf, w->len);
    jsonw_fini(w);
    return rc;
}

int cli_sweep_rows_emit(const struct cli_sweep_gen *s, FILE *f, struct jsonw *w, char **buf,
                        size_t *len, int rc)
{
    if (s->co->json && !rc) {
        jsonw_arr_end(w);
        jsonw_obj_end(w);
    } else if (!s->co->csv && !rc) {
        fprintf(f, "source: %s\n", report_source_line(s->p));
    }
    fclose(f);
    if (!rc)
        rc = s->co->json ? cli_emit(s->co, w->buf, w->len) : cli_emit(s->co, *buf, *len);
    jsonw_fini(w);
    free(*buf);
    return rc;
}

int cli_sweep_gen(const struct cli_sweep_gen *s)
{
    bool over_in = s->over_name && !strcmp(s->over_name, "input_tokens");
    bool over_out = s->over_name && !strcmp(s->over_name, "output_tokens");
    if (s->over_name && !over_in && !over_out)
        return cli_usage_error("sweep", "with --input-tokens/--output-tokens, --over takes "
                                        "input_tokens=RANGE or output_tokens=RANGE");
    struct gen_model *m;
    struct gen_request rq;
    int rc = cli_gen_prepare(s->gen, s->g, s->cfg, s->headroom, &m, &rq);
    if (rc)
        return rc;
    if (s->max_batch) {
        rc = sweep_max_batch(s, m, &rq);
        gen_model_free(m);
        return rc;
    }
    char *buf = NULL, hw[128];
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct jsonw w;
    jsonw_init(&w, true);
    report_hw_label(s->cfg, hw, sizeof hw);
    if (s->co->json) {
        cli_sweep_json_open(&w, s, hw);
        if (gen_model_tp(m) > 1)
            jsonw_key_int(&w, "tp", gen_model_tp(m));
        jsonw_key_str(&w, "kv_precision", precision_name(rq.kv_prec));
        jsonw_key_str(&w, "source", report_source_line(s->p));
        cli_cost_json_head(&w, s->price);
        jsonw_key(&w, "rows");
        jsonw_arr_begin(&w, false);
    } else if (s->co->csv) {
        fprintf(f, "%sinput_tokens,output_tokens,batch,ttft_ms,tpot_ms,e2e_ms,output_tokens_per_s,"
                   "energy_j_per_output_token,kv_cache_mib,memory_mib,fits",
                gen_model_tp(m) > 1 ? "tp," : "");
        cli_cost_head(f, s->co, s->price, "", "cost_per_1m_output_tokens");
    } else {
        tp_label(m, s->cfg, hw, sizeof hw);
        char prec[96];
        fprintf(f, "%s on %s, %s, %s, KV cache %s\n", s->g->name, hw,
                config_prec_label(s->cfg, prec, sizeof prec), runtime_name(s->cfg->rt),
                precision_name(rq.kv_prec));
        fprintf(f, "%8s %8s %7s %11s %10s %12s %11s %10s %11s %11s %5s", "input", "output",
                "batch", "ttft_ms", "tpot_ms", "e2e_ms", "tokens/s", "J/token", "kv_MiB",
                "memory_MiB", "fits");
        cli_cost_head(f, s->co, s->price, "cost/Mtok", "");
    }
    int n_over = s->over_name ? s->n_over : 1, n_rows = 0;
    for (int i = 0; i < n_over && !rc; i++) {
        struct sweep_job job = {.w = WORKLOAD_GENERATION, .p = s->p, .cfg = s->cfg, .gm = m,
                                .gen = rq};
        if (over_in)
            job.gen.input_tokens = s->over_vals[i];
        if (over_out)
            job.gen.output_tokens = s->over_vals[i];
        struct gen_rows rows = {s, f, &w, &job.gen, s->over_name ? s->over_vals[i] : 0, 0, 0};
        sweep_batches(&job, s->batches, s->n_batch, gen_point, &rows);
        rc = rows.rc;
        n_rows += rows.n;
    }
    if (!rc && !n_rows) {
        cli_error("sweep: the model takes none of the points");
        rc = status_exit_code(ST_ERANGE);
    }
    rc = cli_sweep_rows_emit(s, f, &w, &buf, &len, rc);
    gen_model_free(m);
    return rc;
}
