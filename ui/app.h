/*
 * app.h - the explorer's controller state: the model, the configuration, the
 * latest prediction and everything derived from it, plus the view state.
 * Curses-free: every change goes through an app_* call that re-runs shape
 * inference and the predictor, and on failure restores the last good
 * configuration and says why in the diag (the caller shows it in the status
 * line). Screens read struct app; they never change the model themselves.
 */
#ifndef DIPPM_UI_APP_H
#define DIPPM_UI_APP_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "generation.h"
#include "ir.h"
#include "mig.h"
#include "predict.h"
#include "ui_state.h"

#define APP_SWEEP_MAX 11 /* batch 1, 2, 4, ... 1024 */
#define APP_MAX_TPARAMS 32
#define APP_SPEC_MAX 1024
#define APP_BATCH_MAX ((int64_t)1 << 20)

struct app_sweep {
    unsigned gen; /* app generation it was computed for; valid when == app->gen */
    bool valid;
    int n;
    int64_t batch[APP_SWEEP_MAX];
    double latency_ms[APP_SWEEP_MAX], throughput[APP_SWEEP_MAX], memory_mib[APP_SWEEP_MAX];
    bool ok[APP_SWEEP_MAX];
    char err[DIAG_MSG_MAX + 32]; /* first failing point, if any */
};

/* A pinned configuration and its headline figures (pin / compare). */
struct app_snapshot {
    bool valid;
    struct config cfg;
    double latency_ms, throughput, energy_j, memory_mib;
    char label[160];
};

struct zoo_param;

/* One template hyperparameter of a zoo model. */
struct app_tparam {
    char name[32];
    char value[64];
    char range[96];              /* "one of 18, 34, 50", "1 to 64" */
    const char *help;            /* one line, static; may be NULL */
    const struct zoo_param *zp;  /* the template's descriptor (static) */
};

struct app {
    char spec[APP_SPEC_MAX]; /* the model as opened: a path or "zoo:family:k=v" */
    struct graph *g;
    struct predictor *p;     /* NULL: teacher only */
    char weights_note[DIAG_MSG_MAX];  /* why there is no GNN, or the weights' description */
    struct config cfg;
    double slo_ms;           /* latency target for the MIG advisor, 0 = none */
    double headroom;         /* MIG memory headroom fraction */
    struct prediction pred;
    bool have_pred;
    struct mig_advice mig;
    bool have_mig;
    char mig_err[DIAG_MSG_MAX];
    bool mig_stale;          /* the MIG advice predates the last change */
    double recompute_ms;     /* wall time of the last re-infer + predict */
    double mig_ms;           /* wall time of the last MIG advice (one prediction per slice) */
    unsigned gen;            /* bumped after every successful recompute */
    unsigned sweep_gen;      /* bumped when anything but batch and SLO changes */
    struct app_sweep sweep;
    struct app_snapshot pinned;
    /* Generation of a decoder (generation.h): prompt and output lengths and
     * the KV-cache precision (Setup fields, :set input_tokens=N
     * output_tokens=M kv=P), computed with the MIG advice after the redraw. */
    bool is_decoder;
    int64_t gen_in, gen_out;
    bool kv_set;
    enum precision kv_prec;   /* when kv_set; else the model precision */
    bool have_gen;
    struct gen_result genr;
    char gen_err[DIAG_MSG_MAX];
    bool is_template;
    char family[64];
    int n_tparams;
    struct app_tparam tparams[APP_MAX_TPARAMS];
    /* Layer table rows: node indices after filter and sort. */
    int *rows;
    int n_rows;
    bool rows_dirty;
    struct ui_state st;
};

/* Opens spec (NULL: the bundled default model), loads the GNN weights if
 * any (their absence is not an error: teacher only) and predicts with the
 * default configuration. On failure the app holds no model and diag says
 * why; app_fini is still required. */
enum status app_init(struct app *a, const char *spec, struct diag *d);
void app_fini(struct app *a);

/* Re-runs shape inference and the predictor for the current configuration
 * and marks the MIG advice stale (app_update_mig refreshes it: it predicts
 * once per MIG slice, so the controller runs it after the redraw, when no
 * key is waiting). Does not restore anything on failure. */
enum status app_recompute(struct app *a, struct diag *d);
/* Runs the MIG advisor for the current configuration if the advice is
 * stale. The graph's shapes stay those of the configuration. */
void app_update_mig(struct app *a);

/* Each of these applies one change and recomputes; on failure the previous
 * value is restored (and recomputed) and diag explains the rejected value. */
enum status app_set_config(struct app *a, const struct config *cfg, struct diag *d);
enum status app_set_batch(struct app *a, int64_t batch, struct diag *d);
/* A graph symbol ("seq", "height") or a template hyperparameter, by name.
 * value is text (template parameters need not be integers). */
enum status app_set_param(struct app *a, const char *name, const char *value, struct diag *d);
/* "h100", "a100:3g.20gb", "h100-sxm5-80gb:1g.10gb", or ":3g.20gb"/"full"
 * to change only the slice. */
enum status app_set_gpu(struct app *a, const char *spec, struct diag *d);
enum status app_set_slo(struct app *a, double ms, struct diag *d);
/* Replaces the model; the old one stays on failure. */
enum status app_open(struct app *a, const char *spec, struct diag *d);

/* Pins the current configuration and figures. */
void app_pin(struct app *a);
/* Writes the layer table and headline figures as "csv" or "json" to path
 * atomically; refuses to overwrite unless force. */
enum status app_export(struct app *a, const char *format, const char *path, bool force,
                       struct diag *d);

/* Makes sure the sweep matches the current configuration (11 predictor
 * runs, then the configuration itself again so the graph's shapes stay
 * those of the configuration). */
void app_sweep_ensure(struct app *a);

/* Rebuilds a->rows from filter and sort if they changed (rows_dirty). */
void app_rows_update(struct app *a);
/* Row index of node ni in a->rows, -1 if filtered out. */
int app_row_of_node(const struct app *a, int ni);

/* The text of column c for node ni, as the layer table and CSV export show
 * it ("n/a" where shape inference could not cover the node). */
const char *app_cell_text(const struct app *a, int ni, enum ui_col c, char *buf, int size);

/* Predicted time share of node i (GNN share when the GNN ran, else the
 * teacher's node time / latency); 0 when unknown. */
double app_node_share(const struct app *a, int i);
/* The configuration in one line: "A100-SXM4-40GB 3g.20gb, fp16, tensorrt,
 * batch 8, seq=128". */
const char *app_config_label(const struct app *a, const struct config *cfg, char *buf, int size);
/* True when the figures come from the teacher only. */
bool app_teacher_only(const struct app *a);
/* Index of the node called name (exact, then case-insensitive), -1. */
int app_node_find(const struct app *a, const char *name);

#endif
