/* cli_sweep.c - `dippm sweep MODEL`: predictions over batch sizes, any graph
 * symbol or template hyperparameter, and the largest batch that fits a GPU or
 * MIG profile and meets a latency target. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_pred.h"
#include "core/fit.h"
#include "core/gpu.h"
#include "core/max_batch.h"
#include "core/price.h"
#include "core/workload.h"
#include "util/fmt.h"
#include "util/jsonw.h"
#include "graph/load.h"
#include "graph/ops/tokens.h"
#include "core/report.h"
#include "core/sweep.h"
#include "util/xalloc.h"

#define MAX_POINTS 4096

enum { OPT_BATCH = CLI_OPT__OWN, OPT_OVER, OPT_MAX_BATCH, OPT_SLO_MS, OPT_HEADROOM };

static const struct cli_opt sweep_opts[] = {
    {"batch", 0, "RANGE", "the batch sizes (default 1..1024; 1..256 for a generation, 1..64 "
     "for a diffusion pipeline)", OPT_BATCH},
    {"over", 0, "NAME=RANGE", "also sweep a graph symbol (e.g. seq, height), a zoo: template's "
     "hyperparameter, input_tokens, output_tokens or steps", OPT_OVER},
    {"max-batch", 0, NULL, "the largest batch that fits the GPU or MIG profile (and meets "
     "--slo-ms) instead of rows", OPT_MAX_BATCH},
    {"slo-ms", 0, "X", "the latency target of --max-batch in milliseconds", OPT_SLO_MS},
    {"headroom", 0, "PCT",
     "percent of the memory kept spare by the fits column and --max-batch (default 10)",
     OPT_HEADROOM},
    {NULL, 0, NULL, NULL, 0},
};

const struct cli_cmd cli_cmd_sweep = {
    .name = "sweep",
    .usage = "dippm sweep MODEL [--batch RANGE] [--over NAME=RANGE] [--csv|--json]\n"
             "                   [--gpu NAME[:PROFILE]] [--precision P] [--runtime R]\n"
             "                   [--quant SCHEME] [--set NAME=VALUE]... [--weights FILE]\n"
             "                   [-o FILE]\n"
             "                   [--dispatch-us US] [--price-per-hour X [--price-of gpu]]\n"
             "       dippm sweep MODEL --max-batch [--gpu NAME[:PROFILE]] [--slo-ms X]\n"
             "                   [--headroom PCT] [--json]",
    .about =
        "One prediction per configuration. RANGE is a number, a list (1,8,64), A..B\n"
        "(powers of two from A up to B) or A..B:STEP (arithmetic). --batch defaults to\n"
        "1..1024 (11 points). --over sweeps a graph symbol (e.g. seq, height) or, for a\n"
        "zoo: template, a hyperparameter (e.g. --over depth=18,34,50,101).\n\n"
        "--max-batch answers: what is the largest batch that fits the GPU or MIG profile\n"
        "with HEADROOM percent of memory to spare (default 10) and, with --slo-ms, meets\n"
        "the latency target?\n\n"
        "Decoders: --input-tokens N --output-tokens M [--set kv=P] sweep the generation\n"
        "(TTFT, TPOT, tokens/s, J per output token, KV cache, memory) over --batch and\n"
        "--over input_tokens=RANGE or output_tokens=RANGE; --max-batch then counts the\n"
        "KV cache of every sequence. --kv-precision P is --set kv=P; --kv-inputs\n"
        "SUBSTRING names the KV-cache inputs of an exported decoder (as for predict);\n"
        "--tp N the GPUs of a tensor-parallel group (as for predict).\n\n"
        "Diffusion denoisers: --steps N [--no-guidance] [--vae SPEC]\n"
        "[--text-encoder SPEC[,SPEC]... | --no-text-encoder] sweep the pipeline (time\n"
        "per denoising step, VAE decode and text encoding, per batch and per image,\n"
        "images/s, J per image, memory with every model resident) over --batch\n"
        "(default 1..64) and --over steps=RANGE; --max-batch then gives the largest\n"
        "batch whose pipeline fits.",
    .common = CLI_C_SET | CLI_C_CONFIG | CLI_C_JSON | CLI_C_CSV | CLI_C_OUTPUT | CLI_C_DEPLOY,
    .groups = {sweep_opts, cli_gen_opts, cli_diff_opts},
};

/* Parses RANGE into vals (sorted as written): the count, -1 when malformed,
 * -2 when it holds more than max points (never cut short: 1..1048576:1 is
 * refused, not swept to its 4096th point). A list is read in place, so a
 * long one is not cut either. */
static int parse_range(const char *s, int64_t lo, int64_t hi, int64_t *vals, int max)
{
    int n = 0;
    const char *dots = strstr(s, "..");
    if (dots) {
        char a[32], rest[64];
        size_t la = (size_t)(dots - s);
        if (la == 0 || la >= sizeof a || strlen(dots + 2) >= sizeof rest)
            return -1;
        memcpy(a, s, la);
        a[la] = '\0';
        snprintf(rest, sizeof rest, "%s", dots + 2);
        char *colon = strchr(rest, ':');
        int64_t from, to, step = 0;
        if (colon) {
            *colon = '\0';
            if (cli_parse_int(colon + 1, 1, hi, &step))
                return -1;
        }
        if (cli_parse_int(a, lo, hi, &from) || cli_parse_int(rest, lo, hi, &to) || to < from)
            return -1;
        if (step && (to - from) / step >= max)
            return -2;
        if (step) {
            for (int64_t v = from; v <= to; v += step)
                vals[n++] = v;
        } else {
            int64_t v = from;
            for (; v <= to && n < max; v *= 2)
                vals[n++] = v;
            if (vals[n - 1] != to && n < max)
                vals[n++] = to;
        }
        return n;
    }
    for (const char *p = s; *p; p += *p == ',') {
        size_t len = strcspn(p, ",");
        char tok[32];
        if (len == 0) /* an empty item, as in 1,,2 */
            continue;
        if (len >= sizeof tok)
            return -1;
        if (n == max)
            return -2;
        memcpy(tok, p, len);
        tok[len] = '\0';
        if (cli_parse_int(tok, lo, hi, &vals[n++]))
            return -1;
        p += len;
    }
    return n ? n : -1;
}

/* The usage error for parse_range's result r < 0 on option opt's arg. */
static int range_error(const char *opt, const char *arg, int r, const char *examples)
{
    if (r == -2)
        return cli_usage_error("sweep", "%s '%s': more than %d points, the most one sweep takes",
                               opt, arg, MAX_POINTS);
    return cli_usage_error("sweep", "%s '%s': bad RANGE (use %s)", opt, arg, examples);
}

struct sweep {
    const char *spec;
    struct cli_common co;
    const char *over_name;
    int64_t over_vals[MAX_POINTS];
    int n_over;
    int64_t batches[MAX_POINTS];
    int n_batch;
    struct config cfg;
    struct predictor *p;
    struct price price; /* the cost column's */
    /* the options */
    const char *batch_arg;
    bool max_batch;
    enum workload workload;
    double slo, headroom;
    char over_buf[64];
    struct cli_gen gen;
    struct cli_diff diff;
};

/* The graph for one value of --over: a symbol is bound on the loaded graph;
 * a template hyperparameter rebuilds the template. A value the model cannot
 * take (ST_ERANGE) leaves *rc 0 and its reason in *refused. */
static struct graph *graph_for(struct sweep *s, struct graph *base, int64_t v, bool *owned,
                               struct diag *refused, int *rc)
{
    *owned = false;
    if (!s->over_name)
        return base;
    struct diag d = {0};
    if (graph_sym_find(base, s->over_name) >= 0) {
        if (graph_sym_set(base, s->over_name, v, &d)) {
            if (d.code == ST_ERANGE)
                *refused = d;
            else
                *rc = cli_fail(&d);
            return NULL;
        }
        return base;
    }
    if (strncmp(s->spec, "zoo:", 4) != 0) {
        cli_error("--over %s: the model has no symbol '%s' and is not a zoo: template",
                  s->over_name, s->over_name);
        *rc = 2;
        return NULL;
    }
    char spec[1024];
    snprintf(spec, sizeof spec, "%s:%s=%lld", s->spec, s->over_name, (long long)v);
    struct graph *g = cli_load_model_diag(spec, &s->co, &d);
    if (g)
        *owned = true;
    else if (d.code == ST_ERANGE)
        *refused = d;
    else
        *rc = cli_fail(&d);
    return g;
}

void cli_sweep_refused(FILE *f, struct jsonw *w, const struct cli_common *co,
                       const char *over_name, int64_t over, int64_t batch, const char *prefix,
                       const char *why)
{
    if (co->json) {
        jsonw_obj_begin(w);
        if (over_name)
            jsonw_key_int(w, over_name, over);
        jsonw_key_int(w, "batch", batch);
        jsonw_key_str(w, "refused", why);
        jsonw_obj_end(w);
    } else if (co->csv) {
        if (over_name)
            cli_error("sweep: no row for %s=%lld, batch %lld: %s", over_name, (long long)over,
                      (long long)batch, why);
        else
            cli_error("sweep: no row for batch %lld: %s", (long long)batch, why);
    } else {
        fprintf(f, "%s refused: %s\n", prefix, why);
    }
}

/* A row refused in the grid's columns. */
static void refused_row(FILE *f, struct jsonw *w, const struct sweep *s, int64_t over,
                        int64_t batch, const char *why)
{
    char prefix[48] = "";
    if (s->over_name)
        snprintf(prefix, sizeof prefix, "%10lld ", (long long)over);
    size_t n = strlen(prefix);
    snprintf(prefix + n, sizeof prefix - n, "%7lld", (long long)batch);
    cli_sweep_refused(f, w, &s->co, s->over_name, over, batch, prefix, why);
}

static void csv_header(FILE *f, const struct sweep *s)
{
    /* a quant column only with a scheme: the default header is as before */
    fprintf(f, "%s%sbatch,gpu,mig,precision,%sruntime,latency_ms,throughput_per_s,energy_j,"
               "energy_mj_per_sample,memory_mib,capacity_mib,fits,roofline_ms,source,"
               "latency_ms_low,latency_ms_high,memory_mib_low,memory_mib_high",
            s->over_name ? s->over_name : "", s->over_name ? "," : "",
            s->cfg.quant.scheme != QUANT_NONE ? "quant," : "");
    cli_cost_head(f, &s->co, &s->price, "", "cost_per_1k_samples");
}

static void row_out(FILE *f, struct jsonw *w, const struct sweep *s, int64_t over, int64_t b,
                    const struct prediction *pr)
{
    const struct gpu_spec *gs = gpu_get(s->cfg.gpu);
    const char *mig = s->cfg.mig >= 0 ? gs->mig[s->cfg.mig].name : "";
    struct report_intervals iv;
    report_intervals(&s->cfg, pr, &iv);
    bool fits = fit_ok(pr->memory_mib, s->headroom, pr->capacity_mib);
    if (s->co.json) {
        jsonw_obj_begin(w);
        if (s->over_name) {
            jsonw_key_int(w, s->over_name, over);
        }
        jsonw_key_int(w, "batch", b);
        jsonw_key_fixed(w, "latency_ms", pr->latency_ms, 4);
        report_json_figures(w, pr, s->headroom);
        jsonw_key_fixed(w, "roofline_ms", pr->sim.roofline_ms, 4);
        report_json_intervals(w, pr, &iv, false);
        cli_cost_cell(f, w, &s->co, &s->price, "cost_per_1k_samples", pr->throughput, 1e3);
        jsonw_obj_end(w);
    } else if (s->co.csv) {
        if (s->over_name)
            fprintf(f, "%lld,", (long long)over);
        char q[64] = "";
        if (s->cfg.quant.scheme != QUANT_NONE) {
            quant_format(&s->cfg.quant, q, sizeof q - 1);
            strcat(q, ",");
        }
        fprintf(f, "%lld,%s,%s,%s,%s%s,%.4f,%.2f,%.5f,%.4f,%.1f,%.1f,%s,%.4f,%s", (long long)b,
                gs->name, mig, precision_name(s->cfg.prec), q, runtime_name(s->cfg.rt),
                pr->latency_ms, pr->throughput, pr->energy_j, pr->energy_mj_per_sample,
                pr->memory_mib, pr->capacity_mib, fits ? "true" : "false",
                pr->sim.roofline_ms, pr->from_gnn ? "gnn" : "teacher");
        /* empty fields without an interval */
        if (iv.lat.valid)
            fprintf(f, ",%.4f,%.4f", iv.lat.low, iv.lat.high);
        else
            fputs(",,", f);
        if (iv.mem.valid)
            fprintf(f, ",%.1f,%.1f", iv.mem.low, iv.mem.high);
        else
            fputs(",,", f);
        cli_cost_cell(f, w, &s->co, &s->price, "", pr->throughput, 1e3);
    } else {
        char t[32];
        if (s->over_name)
            fprintf(f, "%10lld ", (long long)over);
        fprintf(f, "%7lld", (long long)b);
        fmt_col(f, fmt_ms(pr->latency_ms, t, sizeof t), 10);
        fmt_col(f, fmt_num(pr->throughput, t, sizeof t), 9);
        fmt_col(f, fmt_joules(pr->energy_j, t, sizeof t), 9);
        fmt_col(f, fmt_joules(pr->energy_mj_per_sample / 1e3, t, sizeof t), 10);
        fmt_col(f, fmt_mib(pr->memory_mib, t, sizeof t), 10);
        fmt_col(f, fits ? "yes" : "NO", 4);
        fmt_col(f, fmt_ms(pr->sim.roofline_ms, t, sizeof t), 10);
        cli_cost_cell(f, w, &s->co, &s->price, "", pr->throughput, 1e3);
    }
}

/* The interval of every row as factors of the prediction (the same for
 * each row: it depends on the GPU, precision and runtime). */
static struct report_intervals grid_intervals(const struct sweep *s)
{
    struct prediction one = {.latency_ms = 1, .throughput = 1, .memory_mib = 1};
    struct report_intervals iv;
    report_intervals(&s->cfg, &one, &iv);
    return iv;
}

/* The rows of one value of --over as the sweep gives them. */
struct rows {
    const struct sweep *s;
    FILE *f;
    struct jsonw *w;
    int64_t over;
    int rc, n;
};

/* A row, a refused row (a point the model cannot take, e.g. a sequence
 * beyond the position table) or, on any other error, the end. */
static bool grid_point(void *ctx, const struct sweep_point *pt)
{
    struct rows *r = ctx;
    if (pt->st && pt->why.code == ST_ERANGE) {
        refused_row(r->f, r->w, r->s, r->over, pt->batch, pt->why.msg);
        return true;
    }
    if (pt->st) {
        r->rc = cli_fail(&pt->why);
        return false;
    }
    row_out(r->f, r->w, r->s, r->over, pt->batch, &pt->pass);
    r->n++;
    return true;
}

static int run_grid(struct sweep *s, struct graph *base)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct jsonw w;
    jsonw_init(&w, true);
    int rc = 0;
    char hw[128];
    if (s->co.json) {
        jsonw_obj_begin(&w);
        jsonw_key_str(&w, "model", base->name);
        jsonw_key_str(&w, "gpu", report_hw_label(&s->cfg, hw, sizeof hw));
        jsonw_key_str(&w, "precision", precision_name(s->cfg.prec));
        report_quant_json(&w, &s->cfg);
        jsonw_key_str(&w, "runtime", runtime_name(s->cfg.rt));
        if (base->tokens > 0) /* padding removed: the real tokens per sequence */
            jsonw_key_int(&w, GRAPH_TOKENS_NAME, base->tokens);
        jsonw_key_str(&w, "source", report_source_line(s->p));
        struct report_intervals iv = grid_intervals(s);
        jsonw_key_fixed(&w, "interval_coverage", INTERVAL_COVERAGE, 2);
        jsonw_key_str(&w, "interval_note", iv.lat.note);
        jsonw_key_str(&w, "memory_interval_note", iv.mem.note);
        cli_cost_json_head(&w, &s->price);
        jsonw_key(&w, "rows");
        jsonw_arr_begin(&w, false);
    } else if (s->co.csv) {
        csv_header(f, s);
    } else {
        char prec[96];
        fprintf(f, "%s on %s, %s, %s", base->name, report_hw_label(&s->cfg, hw, sizeof hw),
                config_prec_label(&s->cfg, prec, sizeof prec), runtime_name(s->cfg.rt));
        if (base->tokens > 0)
            fprintf(f, ", padding removed: %lld real tokens per sequence", (long long)base->tokens);
        fputc('\n', f);
        if (s->over_name)
            fprintf(f, "%10s ", s->over_name);
        fprintf(f, "%7s %10s %9s %9s %10s %10s %4s %10s", "batch", "latency", "samples/s",
                "energy", "per sample", "memory", "fits", "roofline");
        cli_cost_head(f, &s->co, &s->price, "cost/1k", "");
    }
    int n_over = s->over_name ? s->n_over : 1, n_rows = 0;
    for (int i = 0; i < n_over && !rc; i++) {
        bool owned;
        int64_t over = s->over_name ? s->over_vals[i] : 0;
        struct diag refused = {0};
        struct graph *g = graph_for(s, base, over, &owned, &refused, &rc);
        if (!g && refused.code) {
            for (int j = 0; j < s->n_batch; j++)
                refused_row(f, &w, s, over, s->batches[j], refused.msg);
            continue;
        }
        if (!g)
            break;
        struct sweep_job job = {.w = WORKLOAD_PASS, .p = s->p, .g = g, .cfg = &s->cfg};
        struct rows rows = {s, f, &w, over, 0, 0};
        sweep_batches(&job, s->batches, s->n_batch, grid_point, &rows);
        rc = rows.rc;
        n_rows += rows.n;
        if (owned)
            graph_free(g);
    }
    if (!rc && !n_rows) { /* every point refused */
        cli_error("sweep: the model takes none of the points");
        rc = status_exit_code(ST_ERANGE);
    }
    if (s->co.json) {
        jsonw_arr_end(&w);
        jsonw_obj_end(&w);
    } else if (!s->co.csv) {
        fprintf(f, "source: %s\n", report_source_line(s->p));
        struct report_intervals iv = grid_intervals(s);
        if (iv.lat.valid)
            fprintf(f, "interval: latency x%.3f to x%.3f of the prediction (%s)\n", iv.lat.low,
                    iv.lat.high, iv.lat.note);
        if (iv.mem.valid)
            fprintf(f, "interval: memory x%.3f to x%.3f of the prediction (%s)\n", iv.mem.low,
                    iv.mem.high, iv.mem.note);
    }
    fclose(f);
    if (!rc)
        rc = s->co.json ? cli_emit(&s->co, w.buf, w.len) : cli_emit(&s->co, buf, len);
    jsonw_fini(&w);
    free(buf);
    return rc;
}

static void max_batch_json(struct jsonw *w, const struct sweep *s, const struct graph *g,
                           const char *hw, const struct max_batch *mb, double headroom,
                           double slo, const char *why)
{
    jsonw_obj_begin(w);
    jsonw_key_str(w, "model", g->name);
    jsonw_key_str(w, "gpu", hw);
    jsonw_key_str(w, "precision", precision_name(s->cfg.prec));
    jsonw_key_str(w, "runtime", runtime_name(s->cfg.rt));
    jsonw_key_fixed(w, "headroom", headroom, 3);
    jsonw_key(w, "slo_ms");
    if (slo > 0)
        jsonw_fixed(w, slo, 3);
    else
        jsonw_null(w);
    jsonw_key_int(w, "max_batch", mb->best);
    if (mb->best) {
        jsonw_key_fixed(w, "latency_ms", mb->at_best.latency_ms, 4);
        jsonw_key_fixed(w, "throughput_per_s", mb->at_best.throughput, 2);
        jsonw_key_fixed(w, "memory_mib", mb->at_best.memory_mib, 1);
    }
    const struct prediction *cap = mb->at_best.capacity_mib > 0 ? &mb->at_best : &mb->at_fail;
    jsonw_key_fixed(w, "capacity_mib", cap->capacity_mib, 1);
    jsonw_key_str(w, "limit", mb->best >= MAX_BATCH_SEARCH ? "search limit" : why);
    jsonw_key_str(w, "source", report_source_line(s->p));
    jsonw_obj_end(w);
}

static int run_max_batch(struct sweep *s, struct graph *g, double headroom, double slo)
{
    char hw[128];
    report_hw_label(&s->cfg, hw, sizeof hw);
    struct max_batch mb;
    struct diag d = {0};
    int rc = 0;
    if (max_batch_search(s->p, g, &s->cfg, headroom, slo, &mb, &d)) {
        rc = cli_fail(&d);
        goto out;
    }
    const struct prediction *at_fail = &mb.at_fail, *at_best = &mb.at_best;
    char why[320] = "", t1[32], t2[32], t3[32];
    if (at_fail->capacity_mib > 0) {
        bool mem = !fit_ok(at_fail->memory_mib, headroom, at_fail->capacity_mib);
        if (mem)
            snprintf(why, sizeof why, "at batch %lld memory %s + %.0f%% exceeds %s usable",
                     (long long)mb.fail_batch, fmt_mib(at_fail->memory_mib, t1, sizeof t1),
                     headroom * 100, fmt_mib(at_fail->capacity_mib, t2, sizeof t2));
        else
            snprintf(why, sizeof why, "at batch %lld latency %s exceeds the %s target",
                     (long long)mb.fail_batch, fmt_ms(at_fail->latency_ms, t1, sizeof t1),
                     fmt_ms(slo, t2, sizeof t2));
    }
    if (s->co.json) {
        struct jsonw w;
        jsonw_init(&w, true);
        max_batch_json(&w, s, g, hw, &mb, headroom, slo, why);
        rc = cli_emit(&s->co, w.buf, w.len);
        jsonw_fini(&w);
    } else if (mb.best) {
        char t4[32];
        printf("largest batch on %s: %lld (%s of %s usable with %.0f%% headroom, %s, "
               "%s samples/s)\n",
               hw, (long long)mb.best, fmt_mib(at_best->memory_mib, t1, sizeof t1),
               fmt_mib(at_best->capacity_mib, t2, sizeof t2), headroom * 100,
               fmt_ms(at_best->latency_ms, t3, sizeof t3), fmt_num(at_best->throughput, t4, sizeof t4));
        printf("limit: %s\n", mb.best >= MAX_BATCH_SEARCH ? "searched up to 65536" : why);
        printf("source: %s\n", report_source_line(s->p));
    } else {
        printf("no batch fits on %s: %s\n", hw, why);
        printf("source: %s\n", report_source_line(s->p));
        rc = 1;
    }
out:
    prediction_fini(&mb.at_best);
    prediction_fini(&mb.at_fail);
    return rc;
}

static int sweep_opt(void *ctx, int id, const char *arg)
{
    struct sweep *s = ctx;
    switch (id) {
    case OPT_BATCH: s->batch_arg = arg; return -1;
    case OPT_MAX_BATCH: s->max_batch = true; return -1;
    case OPT_SLO_MS:
        if (cli_pred_parse_ms(arg, &s->slo))
            return cli_usage_error("sweep", "--slo-ms '%s': expected milliseconds > 0", arg);
        return -1;
    case OPT_HEADROOM:
        if (cli_pred_parse_pct(arg, &s->headroom))
            return cli_usage_error("sweep", "--headroom '%s': expected a percentage", arg);
        return -1;
    case OPT_OVER: {
        const char *eq = strchr(arg, '=');
        if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof s->over_buf)
            return cli_usage_error("sweep", "--over '%s': expected NAME=RANGE", arg);
        memcpy(s->over_buf, arg, (size_t)(eq - arg));
        s->over_buf[eq - arg] = '\0';
        s->n_over = parse_range(eq + 1, 1, (int64_t)1 << 31, s->over_vals, MAX_POINTS);
        if (s->n_over < 0)
            return range_error("--over", arg, s->n_over, "8, 1,2,4, 1..64 or 160..320:32");
        s->over_name = s->over_buf;
        return -1;
    }
    }
    int r = cli_diff_opt(&s->diff, id, arg, "sweep");
    if (r == 0)
        r = cli_gen_opt(&s->gen, id, arg);
    return r > 0 ? -1 : r < 0 ? 2 : CLI_OPTS_COMMON;
}

/* A generation or diffusion sweep takes no latency target, and its batches
 * default to a range that fits such workloads: 0, or the usage error's
 * exit code. */
static int workload_defaults(enum workload wl, double slo, bool max_batch,
                             const char **batch_arg)
{
    if (wl == WORKLOAD_PASS)
        return 0;
    if (slo > 0)
        return cli_usage_error("sweep", "--slo-ms is not used with %s sweeps",
                               workload_name(wl));
    if (!strcmp(*batch_arg, "1..1024") && !max_batch)
        *batch_arg = wl == WORKLOAD_GENERATION ? "1..256" : "1..64";
    return 0;
}

/* Options into s, checked, and the batches; -1 to go on, else the exit code. */
static int parse_args(struct sweep *s, int argc, char **argv)
{
    int rc = cli_parse(&cli_cmd_sweep, &s->co, argc, argv, sweep_opt, s);
    if (rc >= 0)
        return rc;
    if (optind + 1 != argc)
        return cli_usage_error("sweep", "expected exactly one MODEL");
    if (s->co.json && s->co.csv)
        return cli_usage_error("sweep", "--json and --csv exclude each other");
    bool tokens = cli_gen_wanted(&s->gen, "sweep", &rc);
    if (rc || (rc = cli_diff_check(&s->diff, &s->gen, "sweep")))
        return rc;
    s->workload = workload_asked(tokens, s->diff.steps);
    if ((rc = workload_defaults(s->workload, s->slo, s->max_batch, &s->batch_arg)))
        return rc;
    s->n_batch = parse_range(s->batch_arg, 1, 1 << 20, s->batches, MAX_POINTS);
    if (s->n_batch < 0)
        return range_error("--batch", s->batch_arg, s->n_batch,
                           "8, 1,2,4, 1..1024 or 8..256:8; batch 1 to 1048576");
    s->spec = argv[optind];
    return -1;
}

/* Loads the model and runs the sweep asked for. */
static int run(struct sweep *s)
{
    int rc;
    struct graph *g = cli_load_model(s->spec, &s->co, &rc);
    if (!g)
        return rc;
    if (graph_batch_sym(g) < 0 && (s->n_batch > 1 || s->max_batch)) {
        cli_error("%s: the model has no batch dimension to sweep", s->spec);
        rc = 2;
    } else if (!(rc = cli_config(&s->co, g, &s->cfg)) &&
               !(rc = cli_pred_price(&s->co, &s->cfg, "sweep", &s->price))) {
        s->p = cli_pred_predictor(&s->co, &rc);
        struct cli_sweep_gen sg = {&s->co, &s->gen, g, &s->cfg, s->p, s->over_name,
                                   s->over_vals, s->batches, s->n_over, s->n_batch,
                                   s->max_batch, s->headroom, &s->price};
        if (!rc)
            rc = s->workload == WORKLOAD_GENERATION ? cli_sweep_gen(&sg)
                 : s->workload == WORKLOAD_DIFFUSION ? cli_sweep_diff(&sg, &s->diff)
                 : s->max_batch ? run_max_batch(s, g, s->headroom, s->slo) : run_grid(s, g);
        predictor_free(s->p);
    }
    graph_free(g);
    return rc;
}

int cli_sweep(int argc, char **argv)
{
    struct sweep *s = xcalloc(1, sizeof *s);
    cli_common_init(&s->co);
    s->batch_arg = "1..1024";
    s->headroom = FIT_HEADROOM_DEFAULT;
    int rc = parse_args(s, argc, argv);
    if (rc < 0)
        rc = run(s);
    free(s);
    return rc;
}
