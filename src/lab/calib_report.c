/*
 * calib_report.c - the calibration report (markdown): fitted constants,
 * rows mapped per source family and target, MAPE per source family, per GPU
 * or MIG slice and per target, in-sample and leave-one-model-out, the goals,
 * every used row predicted vs published, and the skipped rows counted per
 * reason (the full list is the mapping table).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab/calib_impl.h"
#include "core/gpu.h"
#include "core/report.h"
#include "util/stats.h"
#include "util/xalloc.h"

struct buf {
    char *s;
    size_t len, cap;
};

static void bp(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bp(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0)
            return;
        if (b->s && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        size_t nc = (b->cap ? b->cap * 2 : 8192) + (size_t)n;
        char *ns = realloc(b->s, nc);
        if (!ns)
            return;
        b->s = ns;
        b->cap = nc;
    }
}

static bool used(const struct calib_row *r)
{
    return r->use != CU_SKIP && r->n_run > 0 && r->pred > 0;
}

static double lomo_pred(const struct calib_row *r)
{
    return r->pred_lomo > 0 ? r->pred_lomo : r->pred;
}

static double ape(double pred, double meas)
{
    return fabs(pred - meas) / meas * 100.0;
}

/* Grouping keys. */
enum key { K_FAMILY, K_GPU, K_TARGET, K_MODEL };

static const char *key_of(const struct calib_row *r, enum key k, char *buf, size_t n)
{
    switch (k) {
    case K_FAMILY:
        return r->family;
    case K_GPU:
        return report_hw_label(&r->cfg, buf, n);
    case K_TARGET:
        return calib_target_name(r->target);
    default:
        return r->model_id;
    }
}

/* The leave-one-source-family-out prediction (< 0: none). */
static double losfo_pred(const struct calib_row *r)
{
    return r->pred_losfo;
}

struct agg {
    int n, n_losfo;
    double ins, lomo, losfo;
};

static void agg_add(struct agg *a, const struct calib_row *r)
{
    a->ins += ape(r->pred, r->measured);
    a->lomo += ape(lomo_pred(r), r->measured);
    if (losfo_pred(r) > 0) {
        a->losfo += ape(losfo_pred(r), r->measured);
        a->n_losfo++;
    }
    a->n++;
}

/* The sums of agg_add into MAPEs. */
static struct agg agg_mean(struct agg a)
{
    if (a.n) {
        a.ins /= a.n;
        a.lomo /= a.n;
    }
    if (a.n_losfo)
        a.losfo /= a.n_losfo;
    return a;
}

/* MAPE of the used rows whose key k equals val and whose target matches
 * (CT__COUNT: any). */
static struct agg aggregate(const struct calib_set *set, enum key k, const char *val,
                            enum calib_target t, enum calib_use use)
{
    struct agg a = {0};
    char buf[96];
    for (int i = 0; i < set->n_rows; i++) {
        const struct calib_row *r = &set->rows[i];
        if (!used(r) || r->use != use || (t != CT__COUNT && r->target != t))
            continue;
        if (val && strcmp(key_of(r, k, buf, sizeof buf), val))
            continue;
        agg_add(&a, r);
    }
    return agg_mean(a);
}

/* One table: rows = distinct keys, columns = targets present. */
static void table_by(struct buf *b, const struct calib_set *set, enum key k, const char *title,
                     enum calib_use use)
{
    bool fam = k == K_FAMILY;
    bp(b, "\n### %s\n\n| %s | target | n | MAPE in-sample | MAPE leave-one-model-out |%s\n"
          "|---|---|---|---|---|%s\n", title, fam ? "source family" : k == K_GPU ? "GPU / slice" : "model",
       fam ? " MAPE leave-one-source-family-out |" : "", fam ? "---|" : "");
    char seen[128][96];
    int ns = 0;
    char buf[96];
    for (int i = 0; i < set->n_rows; i++) {
        const struct calib_row *r = &set->rows[i];
        if (!used(r) || r->use != use)
            continue;
        const char *v = key_of(r, k, buf, sizeof buf);
        int j = 0;
        while (j < ns && strcmp(seen[j], v))
            j++;
        if (j < ns || ns == 128)
            continue;
        snprintf(seen[ns++], sizeof seen[0], "%s", v);
        for (int t = 0; t < CT__COUNT; t++) {
            struct agg a = aggregate(set, k, v, (enum calib_target)t, use);
            if (!a.n)
                continue;
            bp(b, "| %s | %s | %d | %.1f%% | %.1f%% |", v,
               calib_target_name((enum calib_target)t), a.n, a.ins, a.lomo);
            if (fam && a.n_losfo)
                bp(b, " %.1f%% |", a.losfo);
            else if (fam)
                bp(b, " - |");
            bp(b, "\n");
        }
    }
}

static void counts(struct buf *b, const struct calib_set *set)
{
    bp(b, "## Rows mapped\n\nOne line of the table per published figure. *fit*: used by the "
          "fit; *eval*: predicted and reported, not fitted; *skip*: left out (reasons below).\n\n"
          "| source family | target | fit | eval | skip |\n|---|---|---|---|---|\n");
    char fams[64][32];
    int nf = 0;
    for (int i = 0; i < set->n_rows; i++) {
        int j = 0;
        while (j < nf && strcmp(fams[j], set->rows[i].family))
            j++;
        if (j == nf && nf < 64)
            snprintf(fams[nf++], sizeof fams[0], "%s", set->rows[i].family);
    }
    int tot[CU__COUNT] = {0};
    for (int f = 0; f < nf; f++)
        for (int t = 0; t < CT__COUNT; t++) {
            int c[CU__COUNT] = {0};
            for (int i = 0; i < set->n_rows; i++) {
                const struct calib_row *r = &set->rows[i];
                if (!strcmp(r->family, fams[f]) && r->target == (enum calib_target)t)
                    c[r->n_run > 0 || r->use == CU_SKIP ? r->use : CU_SKIP]++;
            }
            if (c[0] + c[1] + c[2])
                bp(b, "| %s | %s | %d | %d | %d |\n", fams[f],
                   calib_target_name((enum calib_target)t), c[0], c[1], c[2]);
            for (int u = 0; u < CU__COUNT; u++)
                tot[u] += c[u];
        }
    bp(b, "| **all** | | **%d** | **%d** | **%d** |\n", tot[0], tot[1], tot[2]);
}

static void goal(struct buf *b, const char *what, struct agg a, double target)
{
    if (!a.n)
        bp(b, "| %s | 0 | - | - | <= %.0f%% | - |\n", what, target);
    else
        bp(b, "| %s | %d | %.1f%% | %.1f%% | <= %.0f%% | %s |\n", what, a.n, a.ins, a.lomo,
           target, a.lomo <= target ? "yes" : "**no**");
}

static struct agg agg_mig(const struct calib_set *set, bool memory, bool mig)
{
    struct agg a = {0};
    for (int i = 0; i < set->n_rows; i++) {
        const struct calib_row *r = &set->rows[i];
        if (!used(r) || r->use != CU_FIT || (r->cfg.mig >= 0) != mig)
            continue;
        if (memory ? r->target != CT_MEMORY : r->target != CT_LATENCY)
            continue;
        agg_add(&a, r);
    }
    return agg_mean(a);
}

/* "TARGET N% [lo, hi] (n rows)": the cross-validated MAPE of the fitted
 * rows of target t (leave one model out, or with family one source family
 * out) with its bootstrap 95% interval over rows. */
static void fold_ci(struct buf *b, const struct calib_set *set, enum calib_target t, bool family)
{
    double *e = xmalloc(sizeof *e * (size_t)(set->n_rows > 0 ? set->n_rows : 1));
    int n = 0;
    for (int i = 0; i < set->n_rows; i++) {
        const struct calib_row *r = &set->rows[i];
        double p = family ? losfo_pred(r) : lomo_pred(r);
        if (used(r) && r->use == CU_FIT && r->target == t && p > 0)
            e[n++] = ape(p, r->measured);
    }
    double mean, lo, hi;
    stats_mean_ci95(e, n, &mean, &lo, &hi);
    if (n)
        bp(b, "%s %.1f%% [%.1f, %.1f] (%d rows)", calib_target_name(t), mean, lo, hi, n);
    free(e);
}

static void goals(struct buf *b, const struct calib_set *set)
{
    bp(b, "\n## Goals (fitted rows; the leave-one-model-out figure is the honest one)\n\n"
          "| rows | n | MAPE in-sample | MAPE LOMO | goal (LOMO) | met |\n"
          "|---|---|---|---|---|---|\n");
    goal(b, "latency, every mapped row", aggregate(set, K_TARGET, NULL, CT_LATENCY, CU_FIT), 15);
    goal(b, "memory, every mapped row", aggregate(set, K_TARGET, NULL, CT_MEMORY, CU_FIT), 10);
    goal(b, "latency, MIG slices", agg_mig(set, false, true), 15);
    goal(b, "memory, MIG slices", agg_mig(set, true, true), 8);
    goal(b, "offline throughput (MLPerf)",
         aggregate(set, K_TARGET, NULL, CT_THROUGHPUT, CU_FIT), 20);
    goal(b, "generation throughput (TensorRT-LLM, vLLM)",
         aggregate(set, K_TARGET, NULL, CT_GEN_TPUT, CU_FIT), 20);
    char fams[64][32];
    int nf = 0;
    for (int i = 0; i < set->n_rows; i++) {
        const struct calib_row *r = &set->rows[i];
        if (!used(r) || r->use != CU_FIT)
            continue;
        int j = 0;
        while (j < nf && strcmp(fams[j], r->family))
            j++;
        if (j == nf && nf < 64)
            snprintf(fams[nf++], sizeof fams[0], "%s", r->family);
    }
    for (int f = 0; f < nf; f++) {
        char what[96];
        snprintf(what, sizeof what, "time targets, family %.31s", fams[f]);
        struct agg a = {0};
        for (int t = 0; t < CT__COUNT; t++) {
            if (t == CT_MEMORY || t == CT_POWER || t == CT_ENERGY || t == CT_ENERGY_TOKEN)
                continue;
            struct agg x = aggregate(set, K_FAMILY, fams[f], (enum calib_target)t, CU_FIT);
            a.ins += x.ins * x.n;
            a.lomo += x.lomo * x.n;
            a.n += x.n;
        }
        if (a.n) {
            a.ins /= a.n;
            a.lomo /= a.n;
            goal(b, what, a, 20);
        }
    }
    goal(b, "average power (ML.ENERGY, fitted)",
         aggregate(set, K_TARGET, NULL, CT_POWER, CU_FIT), 20);
    goal(b, "energy per output token (ML.ENERGY, predicted, not fitted)",
         aggregate(set, K_TARGET, NULL, CT_ENERGY_TOKEN, CU_EVAL), 20);
    goal(b, "energy per image (ML.ENERGY diffusion, predicted, not fitted)",
         aggregate(set, K_TARGET, NULL, CT_ENERGY, CU_EVAL), 20);
    bp(b, "\nLeave-one-model-out MAPE of the fitted rows with a bootstrap 95%% interval "
          "over rows: ");
    fold_ci(b, set, CT_LATENCY, false);
    bp(b, "; ");
    fold_ci(b, set, CT_MEMORY, false);
    bp(b, ".\n");
    bool any = false;
    for (int i = 0; i < set->n_rows && !any; i++)
        any = losfo_pred(&set->rows[i]) > 0;
    if (!any)
        return;
    bp(b, "\nLeave-one-source-family-out MAPE (each source family's rows predicted by the "
          "constants refitted without that family; a constant only its rows pin goes back to "
          "its a-priori value), with a bootstrap 95%% interval over rows: ");
    fold_ci(b, set, CT_LATENCY, true);
    bp(b, "; ");
    fold_ci(b, set, CT_MEMORY, true);
    bp(b, ".\n");
}

static void rows_table(struct buf *b, const struct calib_set *set)
{
    bp(b, "\n## Every used row: predicted (simulated) vs published (measured)\n\n"
          "| table line | model | family | use | target | GPU / slice | prec | runtime | batch | "
          "seq | in+out tokens / steps | published | in-sample | LOMO |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    char gl[96];
    for (int i = 0; i < set->n_rows; i++) {
        const struct calib_row *r = &set->rows[i];
        if (!used(r))
            continue;
        double e = (r->pred - r->measured) / r->measured * 100;
        double el = (lomo_pred(r) - r->measured) / r->measured * 100;
        char tok[48], seq[48];
        if (r->tokens > 0) /* padding removed */
            snprintf(seq, sizeof seq, "%lld (%lld real)", (long long)r->seq,
                     (long long)r->tokens);
        else
            snprintf(seq, sizeof seq, "%lld", (long long)r->seq);
        if (r->steps > 0)
            snprintf(tok, sizeof tok, "%lld steps", (long long)r->steps);
        else
            snprintf(tok, sizeof tok, "%lld+%lld", (long long)r->in_tokens,
                     (long long)r->out_tokens);
        bp(b, "| %d | %s | %s | %s | %s | %s | %s | %s | %lld | %s | %s | %.4g | "
              "%.4g (%+.0f%%) | %+.0f%% |\n",
           r->tsv_line, r->model_id, r->family, calib_use_name(r->use),
           calib_target_name(r->target), report_hw_label(&r->cfg, gl, sizeof gl),
           precision_name(r->cfg.prec), runtime_name(r->cfg.rt), (long long)r->batch,
           seq, tok, r->measured, r->pred, e, el);
    }
}

static void skipped(struct buf *b, const struct calib_set *set)
{
    bp(b, "\n## Skipped figures, per reason\n\nThe full list (file, line, reason) is "
          "tests/data/calib_map.tsv.\n\n| reason | figures |\n|---|---|\n");
    for (int i = 0; i < set->n_rows; i++) {
        const struct calib_row *r = &set->rows[i];
        bool skip = r->use == CU_SKIP || r->n_run == 0;
        if (!skip)
            continue;
        bool seen = false;
        for (int j = 0; j < i && !seen; j++)
            seen = (set->rows[j].use == CU_SKIP || set->rows[j].n_run == 0) &&
                   !strcmp(set->rows[j].reason, r->reason);
        if (seen)
            continue;
        int cnt = 0;
        for (int j = i; j < set->n_rows; j++)
            cnt += (set->rows[j].use == CU_SKIP || set->rows[j].n_run == 0) &&
                   !strcmp(set->rows[j].reason, r->reason);
        bp(b, "| %s | %d |\n", r->reason, cnt);
    }
}

char *calib_report(const struct calib_set *set, const struct calib_graphs *cg,
                   const struct sim_params *fitted, const struct sim_params *usedp,
                   const char *command, double seconds, const char *used_summary)
{
    struct buf b = {0};
    bp(&b, "# Teacher calibration report\n\n");
    bp(&b, "Written by `%s` (%.0f s wall clock, %d threads). Mapping table "
           "`tests/data/calib_map.tsv` (%d figures) over ", command, seconds,
       calib_thread_count(), set->n_rows);
    for (int f = 0; f < set->n_files; f++)
        bp(&b, "%s`tests/data/%s` (%d rows)", f ? " and " : "", set->files[f],
           set->n_json_rows[f]);
    bp(&b, ". Every *predicted* figure below is **simulated by the teacher** (src/core/sim*.c), "
           "never measured; every *published* figure was read from the source cited in the "
           "data file. %d graph bindings (samples and zoo templates with the real models' "
           "hyperparameters) were loaded.\n\n", calib_graphs_count(cg));
    bp(&b, "The fit minimises the mean absolute log error over the fitted rows, each source "
           "family weighted equally, separately for time targets (latency, offline and "
           "generation throughput), memory and average power; it moves only the %d global "
           "constants below (a coordinate search, 8 rounds, deterministic). Energy per token "
           "is never fitted: it is predicted time x predicted power, the check of both. "
           "Generation rows are estimated as one prefill pass over the input tokens plus "
           "output tokens x one decode step at the mean context (the template's decode phase "
           "with its KV cache, logits of the last position only, plus the step loop's "
           "per-sequence cost seq_step_us, the engine's or vLLM's); offline "
           "throughput as the best batch / latency over batches 8..2048 that fit the GPU or "
           "slice; a diffusion pipeline as the text encoders once over the prompts, steps x "
           "the denoiser on twice the batch (classifier-free guidance) and one VAE decode of "
           "the batch, as `dippm predict --steps` does. A latency its source timed with "
           "CUDA events around the GPU work alone or around a loop of back-to-back calls "
           "(timing `gpu` in the table: TensorRT's demoBERT perf binary, trtexec, "
           "AITemplate's benchmarks) is compared with the prediction less the host's "
           "cost of the call, call_us. Leave-one-model-out (LOMO): for "
           "each model, its rows are held out, the constants are refitted from the full fit "
           "with 2 rounds of a narrower search (a constant that only the held-out rows "
           "depend on goes back to its a-priori value), and the held-out rows are "
           "predicted. After a change to the teacher or the graphs, "
           "re-run `dippm calibrate --write-params src/core/sim_fitted.h -o "
           "weights/calibration.md --force` and rebuild until the line below says *Reproduced: "
           "yes*.\n\n",
       calib_knob_count());
    bp(&b, "## Fitted constants\n\n| constant | fitted | compiled in (src/core/sim_params.c) |\n"
           "|---|---|---|\n");
    bool same = true;
    for (int k = 0; k < calib_knob_count(); k++) {
        double f = calib_knob_value(fitted, k), u = calib_knob_value(usedp, k);
        if (fabs(f - u) > 0.01 * fabs(u) + 1e-9)
            same = false;
        double lo, hi;
        calib_knob_range(k, &lo, &hi);
        bool edge = fabs(f - lo) < 1e-9 * (fabs(lo) + 1) || fabs(f - hi) < 1e-9 * (fabs(hi) + 1);
        bp(&b, "| %s | %.4g%s | %.4g |\n", calib_knob_name(k), f,
           edge ? " (search bound)" : "", u);
    }
    bp(&b, "\nReproduced: **%s** (compiled-in constants %s). The tables below use the "
           "fitted constants. With the compiled-in ones: %s.\n\n", same ? "yes" : "no",
       same ? "equal the fit within 1%" : "differ from the fit by more than 1%", used_summary);
    counts(&b, set);
    goals(&b, set);
    bp(&b, "\n## MAPE (mean absolute percentage error) of the fitted rows\n");
    table_by(&b, set, K_FAMILY, "Per source family", CU_FIT);
    table_by(&b, set, K_GPU, "Per GPU and MIG slice", CU_FIT);
    table_by(&b, set, K_MODEL, "Per model", CU_FIT);
    bp(&b, "\n## MAPE of the evaluated rows (not fitted)\n\nRows whose configuration is known "
           "only approximately (the reason is in the mapping script): runs that remove the "
           "padding (MLPerf BERT, FasterTransformer EFF-FT) at their mean real tokens per "
           "sequence, whose attention is costed at the padded length (an upper bound), the "
           "DIPPM memory point of an unstated setup. Their leave-one-model-out column is the fold "
           "without their model, or the full fit when the model has no fitted rows.\n");
    table_by(&b, set, K_FAMILY, "Per source family (evaluated rows)", CU_EVAL);
    table_by(&b, set, K_GPU, "Per GPU and MIG slice (evaluated rows)", CU_EVAL);
    rows_table(&b, set);
    skipped(&b, set);
    return b.s;
}

void calib_summary(const struct calib_set *set, bool lomo, char *buf, size_t n)
{
    struct agg l = aggregate(set, K_TARGET, NULL, CT_LATENCY, CU_FIT);
    struct agg m = aggregate(set, K_TARGET, NULL, CT_MEMORY, CU_FIT);
    struct agg g = aggregate(set, K_TARGET, NULL, CT_GEN_TPUT, CU_FIT);
    struct agg t = aggregate(set, K_TARGET, NULL, CT_THROUGHPUT, CU_FIT);
    if (!lomo) {
        snprintf(buf, n, "MAPE latency %.1f%% (%d rows), memory %.1f%% (%d), offline "
                 "throughput %.1f%% (%d), generation %.1f%% (%d)", l.ins, l.n, m.ins, m.n, t.ins,
                 t.n, g.ins, g.n);
        return;
    }
    snprintf(buf, n, "MAPE in-sample / LOMO: latency %.1f%% / %.1f%% (%d rows), memory %.1f%% / "
             "%.1f%% (%d), offline throughput %.1f%% / %.1f%% (%d), generation %.1f%% / %.1f%% "
             "(%d)", l.ins, l.lomo, l.n, m.ins, m.lomo, m.n, t.ins, t.lomo, t.n, g.ins, g.lomo,
             g.n);
}
