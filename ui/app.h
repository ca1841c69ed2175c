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

#include "core/config.h"
#include "core/diffusion.h"
#include "core/generation.h"
#include "core/grid.h"
#include "graph/ir/ir.h"
#include "core/mig.h"
#include "core/predict.h"
#include "core/price.h"
#include "core/workload.h"
#include "ui/ui_state.h"

#define APP_SWEEP_MAX 11 /* batch 1, 2, 4, ... 1024 */
#define APP_MAX_TPARAMS 32
#define APP_SPEC_MAX 1024
#define APP_BATCH_MAX ((int64_t)1 << 20)
/* Room for a symbol's name with its NUL (TF2 loop symbols are long:
 * "StatefulPartitionedCall/while.trips"); a longer name is shown and can be
 * set, but undo, pins and sessions do not keep its value. */
#define APP_SYM_NAME_MAX 256

struct app_sweep {
    unsigned gen; /* app generation it was computed for; valid when == app->gen */
    bool valid;
    char over[APP_SYM_NAME_MAX + 4]; /* "batch" or the symbol ("sym." NAME) / hyperparameter swept */
    int n;
    int64_t batch[APP_SWEEP_MAX]; /* the swept value of each point (any integer) */
    char label[APP_SWEEP_MAX][24]; /* the value as text (template choices) */
    int cur;                       /* the point of the current configuration, -1 */
    double latency_ms[APP_SWEEP_MAX], throughput[APP_SWEEP_MAX], memory_mib[APP_SWEEP_MAX];
    double capacity_mib;           /* of the GPU or slice */
    bool ok[APP_SWEEP_MAX];
    /* A decoder's generation at each batch (gen_ok), for the TTFT and
     * tokens/s charts; gen_fits: weights + KV cache + activations + context
     * fit the GPU or slice with the headroom. */
    bool gen_ok[APP_SWEEP_MAX], gen_fits[APP_SWEEP_MAX];
    double ttft_ms[APP_SWEEP_MAX], tokens_s[APP_SWEEP_MAX], gen_mib[APP_SWEEP_MAX];
    int64_t gen_max_batch;         /* largest batch whose generation fits; -1 unknown */
    char gen_err[DIAG_MSG_MAX];    /* why there is no generation sweep */
    char err[DIAG_MSG_MAX + 32]; /* first failing point, if any */
};

/* The Sweep tab's heat map: the batch 1..1024 against the precision or
 * the MIG slices (grid.h), for the configuration of sweep_gen. */
struct app_heat {
    unsigned gen;
    bool valid;
    enum grid_axis axis;
    struct grid grid;
    char err[DIAG_MSG_MAX]; /* why there is none */
};

#define APP_WHATIF_SYMS 16
#define APP_UNDO_MAX 64
#define APP_PINS_MAX 4

/* Everything a what-if change can touch: the model (path or template spec),
 * the configuration, the latency target and the values of the model's
 * symbols (by name, batch excluded: it is cfg.batch). Undo, redo, pins and
 * sessions store these. */
struct app_whatif {
    char spec[APP_SPEC_MAX];
    struct config cfg;
    double slo_ms;
    int n_syms;
    char sym_name[APP_WHATIF_SYMS][APP_SYM_NAME_MAX];
    int64_t sym_val[APP_WHATIF_SYMS];
};

/* A pinned configuration and its figures (pin / compare): the what-if
 * state, the headline figures, and the predicted time of every layer by
 * name for the per-layer deltas. */
struct app_snapshot {
    bool valid;
    struct app_whatif w;
    struct config cfg;
    double latency_ms, throughput, energy_j, memory_mib, teacher_ms;
    char label[160];  /* "resnet50.onnx: A100-SXM4-40GB, fp32, pytorch, batch 8" */
    char model[96];   /* the model part of the label */
    int n_layers;
    char **layer_name; /* malloc'd, n_layers */
    double *layer_ms;  /* malloc'd, n_layers */
    uint64_t *layer_key; /* app_layer_keys, malloc'd */
};

/* One layer's predicted time in two configurations, matched by structure,
 * then by name (compare view). A layer present in only one has idx -1 on
 * the other side. */
struct app_layer_delta {
    const char *name; /* borrowed from a pin or the graph */
    double base_ms, other_ms;
    int base_idx, other_idx;
};

struct app_compare {
    unsigned gen, pin_serial; /* what it was computed for */
    int col;                  /* 1..n_pins-1 = a pin, n_pins = the current state */
    bool valid;
    int n;
    struct app_layer_delta *v; /* malloc'd, sorted by |delta| descending */
    /* the matched layers (base index, other index; -1: only on one side),
     * malloc'd, kept while the pins and the model stay, so a configuration
     * change only refills the times */
    int (*pair)[2];
    int n_pair;
    unsigned pair_serial, pair_model;
    int pair_col;
    uint64_t *now_keys; /* app_layer_keys of the current graph, malloc'd */
    unsigned now_keys_model;
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
    double price_per_hour;   /* :price X; 0: the price table's */
    struct price_table prices; /* the user's price table (price.h), read at start */
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
    struct app_heat heat;
    char sweep_over[APP_SYM_NAME_MAX + 4]; /* "" = batch, else a symbol or template hyperparameter */
    /* Pinned configurations; pins[0] is the baseline of the deltas. */
    struct app_snapshot pins[APP_PINS_MAX];
    int n_pins;
    unsigned pin_serial;      /* bumped when pins change */
    unsigned model_serial;    /* bumped when the graph is replaced */
    struct app_compare cmp;   /* per-layer deltas for the compare view */
    /* Undo and redo of what-if changes (oldest first). */
    struct app_whatif undo[APP_UNDO_MAX], redo[APP_UNDO_MAX];
    int n_undo, n_redo;
    struct app_whatif saved;  /* as at start or the last session save/load */
    char session[64];         /* the session name, "" if none */
    bool quit_asked;          /* "unsaved changes" already said once */
    /* What the model runs beside its single pass (workload_of_model): a
     * decoder's generation or a denoiser's pipeline, else WORKLOAD_PASS. */
    enum workload workload;
    /* Generation of a decoder (generation.h): prompt and output lengths and
     * the KV-cache precision (Setup fields, :set input_tokens=N
     * output_tokens=M kv=P), computed with the MIG advice after the redraw. */
    int64_t gen_in, gen_out;
    bool kv_set;
    enum precision kv_prec;   /* when kv_set; else the model precision */
    int tp;                   /* GPUs of a tensor-parallel group (Setup field, :set tp=N; tp.h) */
    bool have_gen;
    struct gen_result genr;
    char gen_err[DIAG_MSG_MAX];
    /* The pipeline of a diffusion denoiser (diffusion.h, zoo unet or dit):
     * denoising steps (Setup field, :set steps=N) with guidance and the
     * derived VAE, computed with the MIG advice after the redraw. */
    int64_t diff_steps;
    bool have_diff;
    struct diff_result diffr;
    char diff_err[DIAG_MSG_MAX];
    bool is_template;
    char family[64];
    int n_tparams;
    struct app_tparam tparams[APP_MAX_TPARAMS];
    /* Layer table rows: node indices after filter and sort; without a
     * filter or st.show_idle, the layers that take no time in the
     * prediction (Constant, folded Shape, views) are left out and counted. */
    int *rows;
    int n_rows, n_idle_hidden;
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
/* cfg's precision against its quantisation scheme: ST_EUSAGE with the
 * CLI's message where the scheme's activations run in another precision. */
enum status app_check_quant(const struct config *cfg, struct diag *d);
/* The weights' quantisation scheme q (QUANT_NONE clears it). A scheme whose
 * activations cannot run in the current precision brings its own (as
 * dippm --quant does without --precision); the status line says so. */
enum status app_set_quant(struct app *a, const struct quant *q, struct diag *d);
/* A graph symbol ("seq", "height") or a template hyperparameter, by name.
 * value is text (template parameters need not be integers). */
enum status app_set_param(struct app *a, const char *name, const char *value, struct diag *d);
/* "h100", "a100:3g.20gb", "h100-sxm5-80gb:1g.10gb", or ":3g.20gb"/"full"
 * to change only the slice. */
enum status app_set_gpu(struct app *a, const char *spec, struct diag *d);
enum status app_set_slo(struct app *a, double ms, struct diag *d);
/* Replaces the model; the old one stays on failure. */
enum status app_open(struct app *a, const char *spec, struct diag *d);
/* app_open that keeps the view (tab selections, filter, node) when
 * keep_view: a template rebuilt with another hyperparameter. */
enum status app_open_view(struct app *a, const char *spec, bool keep_view, struct diag *d);
/* Several NAME=VALUE settings at once: all apply or none (the previous
 * state is restored on the first failure and diag names it). */
enum status app_set_params(struct app *a, int n, char *const *names, char *const *values,
                           struct diag *d);
/* The MIG profile of gpu that best matches profile mig of old_gpu (same
 * name, else the same compute share, else the nearest memory), -1 if gpu
 * has no MIG profiles or mig < 0. */
int app_mig_match(int old_gpu, int mig, int gpu);

/* ---- what-if state (app_whatif.c) ---- */
void app_whatif_get(const struct app *a, struct app_whatif *w);
bool app_whatif_equal(const struct app_whatif *x, const struct app_whatif *y);
/* What changed from x to y, as "batch 4 -> 2, SLO 5 ms -> none" into buf
 * ("" when nothing did). */
const char *app_whatif_diff(const struct app_whatif *x, const struct app_whatif *y, char *buf,
                            int size);
/* Makes w the current state (reopens the model if the spec differs, keeping
 * the view); on failure the previous state stays and diag says why. */
enum status app_whatif_apply(struct app *a, const struct app_whatif *w, struct diag *d);
/* Records `before` as an undo step if the state changed since; clears redo. */
void app_history_note(struct app *a, const struct app_whatif *before);
/* Undo / redo one step; ST_ENOTFOUND when there is nothing to undo/redo. */
enum status app_undo(struct app *a, struct diag *d);
enum status app_redo(struct app *a, struct diag *d);
/* True when the state differs from the one at start or the last save. */
bool app_dirty(const struct app *a);
/* Before quitting (how: "q", "F10", ":q"): true, with diag saying so, the
 * first time there are unsaved changes; false when quitting may go on. */
bool app_quit_check(struct app *a, const char *how, struct diag *d);

/* Pins the current configuration and figures (up to APP_PINS_MAX; the
 * oldest but the first goes when full). */
void app_pin(struct app *a);
/* Frees every pin. */
void app_pins_clear(struct app *a);
/* Frees pin k (0-based); the pins after it move up (pin 2 becomes the
 * baseline when the first goes). */
void app_unpin(struct app *a, int k);
/* Per-layer deltas between pins[0] and column col (1..n_pins-1: a pin,
 * n_pins: the current state) into a->cmp, recomputed only when something
 * changed. Needs at least one pin. */
const struct app_compare *app_compare_layers(struct app *a, int col);
/* Each node's structural key, malloc'd (g->n_nodes): its op and everything
 * upstream of it, and its rank among the nodes of that hash in topological
 * order. Equal keys in two graphs are the same layer, whatever its name. */
uint64_t *app_layer_keys(const struct graph *g);
/* MiB of the KV cache the model reads (graph inputs named past* or *cache*,
 * at the configured precision); part of the teacher's activations. 0 when
 * the model has none. */
double app_kv_cache_mib(const struct app *a);
/* Predicted time of a layer in ms (share x latency), 0 if unknown. */
double app_node_ms(const struct app *a, int i);
/* Writes the table of the tab shown as "csv" or "json" to path atomically
 * (refuses to overwrite unless force): the Sweep tab's points or MIG
 * table, the Compare tab's configurations (json: and the chosen column's
 * layer deltas), else the layer table and headline figures. what: what
 * was written ("8 layers", "the sweep over batch (11 points)"). */
enum status app_export(struct app *a, const char *format, const char *path, bool force,
                       char *what, int what_size, struct diag *d);
/* The Sweep or Compare tab's table as text (malloc'd), NULL on any other
 * tab (app_export.c). */
char *app_export_tab(struct app *a, bool json, size_t *len, char *what, int size);
struct strbuf;
/* Appends s as one CSV cell (quoted when needed), then ',' or '\n'. */
void app_csv_field(struct strbuf *b, const char *s, bool last);

/* Makes sure the sweep matches the current configuration: over the batch
 * (1..1024) or over a->sweep_over (a graph symbol: its value / 8 .. x 16;
 * a template hyperparameter: its choices or integer range, one model built
 * per point). Then the configuration itself is predicted again so the
 * graph's shapes stay those of the configuration. */
void app_sweep_ensure(struct app *a);
/* The generation request of the explorer's settings (lengths, KV-cache
 * precision, headroom) at a batch. */
struct gen_request app_gen_request(const struct app *a, int64_t batch);
/* Opens the decoder for the generation over a->tp GPUs (gen_model_open_tp);
 * ST_EUSAGE for a group on a MIG slice. */
enum status app_gen_open(const struct app *a, struct gen_model **m, struct diag *d);
/* Chooses what the sweep varies ("batch" or "" for the batch); checks the
 * name. */
enum status app_sweep_set(struct app *a, const char *name, struct diag *d);
/* Makes sure the heat map matches the configuration and axis (batch
 * 1..1024 against it); the graph's shapes stay the configuration's. */
void app_heat_ensure(struct app *a, enum grid_axis axis);
/* Whether sweep row i's pass fits the GPU or slice with the headroom: the
 * rule of the MIG line and of predict (fit_ok). */
bool app_sweep_fits(const struct app *a, int i);

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
/* Node i's output bytes at the configured precision, as the teacher moves
 * them (its bytes scaled by the teacher's ratio of the node's bytes at the
 * precision to those in the file's dtypes; the file's without a prediction). */
double app_node_out_bytes(const struct app *a, int i);
/* That ratio: 1 without a prediction. */
double app_node_byte_scale(const struct app *a, int i);

/* The kernel node i runs in, as the teacher timed it: its own, or the one
 * it was fused into (the work and time of all its members); the precision
 * its math runs in, its peak and the bandwidth: the roofline the Detail tab
 * draws it against. valid false without a prediction or a kernel. */
struct app_kernel {
    bool valid;
    int members;          /* nodes in the kernel */
    double flops, bytes;  /* the kernel's, at the configured precision */
    double time_s;        /* its modelled time */
    enum precision prec;  /* what its math runs in (tf32: fp32 on tensor cores) */
    bool tensor_core;
    double peak, bw;      /* its roof: FLOP/s and bytes/s */
    char hw_label[64];
};
struct app_kernel app_kernel_view(const struct app *a, int i);
/* The configuration in one line: "A100-SXM4-40GB 3g.20gb, fp16, tensorrt,
 * batch 8, seq=128". */
const char *app_config_label(const struct app *a, const struct config *cfg, char *buf, int size);
/* True when the figures come from the teacher only. */
bool app_teacher_only(const struct app *a);
/* The peak memory the memory bar shows, MiB: the header's configuration
 * (a decoder's pass at its seq; its generation has a line of its own). */
double app_memory_shown_mib(const struct app *a);
/* Index of the node called name (exact, then case-insensitive), -1. */
int app_node_find(const struct app *a, const char *name);

/* One ONNX op type's part of the prediction (app_optypes.c). */
struct app_optype {
    const char *op;      /* op_type as written in the file (the graph owns it) */
    int nodes;           /* nodes of this type */
    double share;        /* sum of the nodes' predicted time shares */
    double flops, bytes; /* the teacher's FLOPs and bytes moved */
    double bound_s[BOUND__COUNT]; /* teacher time per bound class */
    enum bound bound;    /* the class with the most time, BOUND_NONE if none */
};
/* The op types that take time, largest share first, into *out (malloc'd,
 * free it); returns their count. *n_zero: the types that take no time
 * (left out). 0 when there is no prediction. */
int app_optypes(const struct app *a, struct app_optype **out, int *n_zero);

#endif
