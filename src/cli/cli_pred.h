/*
 * cli_pred.h - helpers shared by the predict and sweep subcommands.
 */
#ifndef DIPPM_CLI_PRED_H
#define DIPPM_CLI_PRED_H

#include <stdio.h>

#include "cli/cli.h"
#include "core/diffusion.h"
#include "core/generation.h"
#include "core/predict.h"

/* "10" or "10%" -> 0.10; -1 if not a percentage from 0 to 1000. */
int cli_pred_parse_pct(const char *arg, double *out);
/* Milliseconds > 0; -1 on error. */
int cli_pred_parse_ms(const char *arg, double *out);
/* Loads --weights (an error if given and bad) or the default weights; with
 * no default weights, prints a note and returns NULL with *rc = 0 (the
 * teacher's estimate is then shown, labelled as such). */
struct predictor *cli_pred_predictor(const struct cli_common *co, int *rc);

/* The price of cfg per hour: --price-per-hour (with --price-of gpu, times
 * the slice's share), else the user's price table (price.h); per_hour 0
 * when neither prices it. 0, or the exit code (a malformed price table, or
 * --price-of without a price; message printed). */
struct price;
int cli_pred_price(const struct cli_common *co, const struct config *cfg, const char *sub,
                   struct price *out);

/* The sweep's cost column, last in every row, at price p (none when p is
 * NULL or has no price): the JSON object's "price_per_hour" and
 * "price_source"; the end of the header line (" TEXT_NAME" in text, ",KEY"
 * in CSV, then '\n'); the end of a row: the cost of n units at rate_per_s
 * (in JSON the row's KEY; in text and CSV the cell, then '\n'). */
struct jsonw;
void cli_cost_json_head(struct jsonw *w, const struct price *p);
void cli_cost_head(FILE *f, const struct cli_common *co, const struct price *p,
                   const char *text_name, const char *key);
void cli_cost_cell(FILE *f, struct jsonw *w, const struct cli_common *co, const struct price *p,
                   const char *key, double rate_per_s, double n);

/* ---- generation options (predict and sweep) ---------------------------- */

enum { CLI_OPT_GEN_IN = 1200, CLI_OPT_GEN_OUT, CLI_OPT_GEN_KVIN, CLI_OPT_GEN_KVPREC,
       CLI_OPT_GEN_TP };

/* --input-tokens, --output-tokens, --kv-inputs, --kv-precision, --tp */
extern const struct cli_opt cli_gen_opts[];

struct cli_gen {
    int64_t in, out;       /* 0: not given */
    const char *kv_inputs; /* NULL: "past" */
    bool kv_set;
    enum precision kv;
    int tp;                /* GPUs of a tensor-parallel group; 0: not given (one) */
};

/* Handles the generation options and "--set kv=PRECISION" (before
 * cli_common_opt, which takes integer --set values only). Returns 1 if
 * handled, 0 if not a generation option, -1 on a bad value (message printed). */
int cli_gen_opt(struct cli_gen *gen, int c, const char *arg);
/* True when --input-tokens or --output-tokens was given (both are then
 * required: returns false and prints why when only one is; so is --tp
 * above 1). */
bool cli_gen_wanted(const struct cli_gen *gen, const char *sub, int *rc);
/* Opens g as a decoder (one GPU's shard with --tp) and fills rq from gen
 * and cfg; prints errors (--tp on a MIG slice, on an export). */
int cli_gen_prepare(const struct cli_gen *gen, struct graph *g, const struct config *cfg,
                    double headroom, struct gen_model **m, struct gen_request *rq);

/* `dippm sweep` with generation: rows over batches and input_tokens or
 * output_tokens (--over), or the largest batch (--max-batch). */
struct cli_sweep_gen {
    const struct cli_common *co;
    const struct cli_gen *gen;
    struct graph *g;
    const struct config *cfg;
    struct predictor *p;
    const char *over_name; /* NULL, "input_tokens" or "output_tokens" */
    const int64_t *over_vals, *batches;
    int n_over, n_batch;
    bool max_batch;
    double headroom;
    const struct price *price; /* the cost column's (cli_pred_price) */
};
int cli_sweep_gen(const struct cli_sweep_gen *s);

/* Opens the JSON object of a sweep (rows or --max-batch) in w, initialised:
 * "model" and "gpu" (hw). */
void cli_sweep_json_open(struct jsonw *w, const struct cli_sweep_gen *s, const char *hw);
/* Closes a --max-batch object with "source", prints it and frees w: the
 * exit code. */
int cli_sweep_json_emit(struct jsonw *w, const struct cli_sweep_gen *s);
/* Unless rc is set, ends the rows (the JSON array and object, or the table's
 * source line); closes f (a memory stream on buf, len), prints w or the
 * stream, frees both: rc, or the exit code of printing. */
int cli_sweep_rows_emit(const struct cli_sweep_gen *s, FILE *f, struct jsonw *w, char **buf,
                        size_t *len, int rc);

/* A sweep point the model cannot take (ST_ERANGE, reason why): in text the
 * line prefix (its columns) and the reason, in JSON a row of over_name (if
 * not NULL), batch and "refused"; CSV keeps numbers only, so the point is
 * named on standard error instead. */
void cli_sweep_refused(FILE *f, struct jsonw *w, const struct cli_common *co,
                       const char *over_name, int64_t over, int64_t batch, const char *prefix,
                       const char *why);

/* ---- diffusion pipeline options (predict and sweep) -------------------- */

enum {
    CLI_OPT_DIFF_STEPS = 1300,
    CLI_OPT_DIFF_NO_GUIDANCE,
    CLI_OPT_DIFF_VAE,
    CLI_OPT_DIFF_TEXT,
    CLI_OPT_DIFF_NO_TEXT
};

/* --steps, --no-guidance, --vae, --text-encoder, --no-text-encoder */
extern const struct cli_opt cli_diff_opts[];

struct cli_diff {
    int64_t steps;    /* denoising steps; 0: no pipeline */
    bool no_guidance;
    const char *vae;  /* NULL: derived from the denoiser */
    /* --text-encoder specs (pointing into spec_buf); none: derived */
    const char *text[DIFF_MAX_TEXT];
    int n_text;
    bool no_text;     /* --no-text-encoder */
    char spec_buf[DIFF_MAX_TEXT][DIFF_SPEC_MAX];
};

/* 1 if c was a diffusion option, 0 if not, -1 on a bad value (printed). */
int cli_diff_opt(struct cli_diff *df, int c, const char *arg, const char *sub);
/* The pipeline request of df (steps, guidance, VAE, text encoders). */
struct diff_request cli_diff_request(const struct cli_diff *df, int64_t batch);
/* --no-guidance, --vae and the text encoder options need --steps, and a
 * pipeline is not a generation: 0 when consistent, else the usage error's
 * exit code. */
int cli_diff_check(const struct cli_diff *df, const struct cli_gen *gen, const char *sub);
/* `dippm sweep --steps N`: pipeline rows over batches and steps (--over
 * steps=RANGE), or the largest batch whose pipeline fits (--max-batch);
 * s->gen is not used. */
int cli_sweep_diff(const struct cli_sweep_gen *s, const struct cli_diff *df);

#endif
