/*
 * report.h - human and JSON renderings of a prediction, shared by
 * `dippm predict`, `dippm sweep`, and the plain-text report printed when
 * dippm runs without a terminal.
 */
#ifndef DIPPM_REPORT_H
#define DIPPM_REPORT_H

#include <stdio.h>

#include "core/interval.h"
#include "util/jsonw.h"
#include "core/mig.h"
#include "core/predict.h"

struct gen_result;
struct diff_result;
struct price;

struct report_ctx {
    const struct graph *g;
    const struct config *cfg;
    const struct prediction *pred;
    const struct mig_advice *mig; /* NULL: not computed */
    const struct predictor *p;    /* NULL: teacher only */
    const char *model_spec;       /* what the user typed */
    const struct gen_result *gen; /* generation block (generation.h), or NULL */
    double headroom;              /* memory kept spare: fits (fit.h), the generation block */
    const struct diff_result *diff; /* diffusion pipeline block (diffusion.h), or NULL */
    const struct price *price;    /* price.h; NULL or per_hour 0: no cost shown */
    const struct tp_group *tp;    /* tp.h: pred is one GPU's shard plus the group's
                                     all-reduces; NULL: one GPU */
};

/* Aligned human-readable block: model, configuration, latency (with the
 * teacher's roofline bound), throughput, energy, memory vs capacity, MIG
 * suggestion, weights and their accuracy. */
void report_prediction_text(FILE *f, const struct report_ctx *rc);

/* True when the teacher's host dispatch takes longer than the GPU's kernels
 * in an eager runtime: the GPU waits on the host (a CPU floor), and the
 * host's speed (config dispatch_us) sets the latency. */
bool report_launch_bound(const struct config *cfg, const struct prediction *pr);

/* The same as one JSON object (fields documented in man/dippm.1). */
void report_prediction_json(struct jsonw *w, const struct report_ctx *rc);

/* The costs of rc at its price (all 0 without one): per 1,000 samples, per
 * million output tokens of its generation, per 1,000 images of its
 * diffusion pipeline (0 without the block). */
struct report_cost {
    double per_1k_samples, per_1m_output_tokens, per_1k_images;
};
bool report_cost(const struct report_ctx *rc, struct report_cost *out);

/* The prediction's throughput_per_s, energy_j, energy_mj_per_sample,
 * memory_mib, capacity_mib and fits with headroom (fit_ok; predict's and
 * the sweep's rows). */
void report_json_figures(struct jsonw *w, const struct prediction *pr, double headroom);

/* The 80% intervals (interval.h, the shipped table) of a single pass's
 * latency and memory; invalid ones (no table, no rows) say why in note. */
struct report_intervals {
    struct interval lat, mem;
};
void report_intervals(const struct config *cfg, const struct prediction *pr,
                      struct report_intervals *out);

/* latency_ms_low/_high, throughput_per_s_low/_high, memory_mib_low/_high
 * (null without an interval), interval_coverage, interval_note and
 * memory_interval_note (predict's and the sweep's rows). */
void report_json_intervals(struct jsonw *w, const struct prediction *pr,
                           const struct report_intervals *iv, bool notes);

/* "symbols": {"NAME": value, ...}: the graph's symbols at their values. */
void report_json_symbols(struct jsonw *w, const struct graph *g);

/* The "quant" key of a configuration with a quantisation scheme (its
 * canonical spelling); nothing without one, so the default JSON is as
 * before. */
void report_quant_json(struct jsonw *w, const struct config *cfg);
/* "A100-SXM4-40GB" or "A100-SXM4-40GB 3g.20gb". */
const char *report_hw_label(const struct config *cfg, char *buf, size_t size);

/* Where the predictions come from, one line, never claiming measurement. */
const char *report_source_line(const struct predictor *p);

/* Loads model (NULL: the bundled default), predicts at the default
 * configuration and prints the report on stdout. Returns an exit code. */
int report_main(const char *model);

#endif
