/*
 * calib.h - fits the teacher's global constants (struct sim_params) to the
 * published measurements in tests/data and writes the calibration report
 * (weights/calibration.md).
 *
 * The rows come from one committed mapping table, tests/data/calib_map.tsv
 * (written by tools/calib_map.py from the JSONL files beside it): one line
 * per published figure, naming the JSONL file and line, the model (for
 * leave-one-model-out folds), the source family, whether the figure is
 * fitted, only evaluated or skipped (with the reason), the target, the
 * published value and the dippm configuration (graph spec, batch, sequence,
 * input/output tokens, GPU, MIG profile, precision, runtime). The reader
 * checks every field and that each value equals the JSONL figure it names.
 *
 * Targets: latency_ms (one pass; whole generation when output tokens are
 * given), throughput_per_s (batch 0: the best batch / latency over the
 * batch sizes that fit), memory_mb, gen_output_tokens_per_s (batch x output
 * tokens over prefill + output x one decode step at the mean context),
 * energy_per_token_j, energy_j and power_w. Every figure the report prints
 * for the model is simulated, never measured.
 */
#ifndef DIPPM_CALIB_H
#define DIPPM_CALIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/config.h"
#include "core/sim.h"
#include "util/status.h"

enum calib_use { CU_FIT, CU_EVAL, CU_SKIP, CU__COUNT };

#define CALIB_TARGET_LIST(X)                              \
    X(CT_LATENCY, "latency_ms", "latency_ms")             \
    X(CT_THROUGHPUT, "throughput_per_s", "throughput_per_s") \
    X(CT_MEMORY, "memory_mb", "memory_mb")                \
    X(CT_GEN_TPUT, "gen_output_tokens_per_s", "throughput_per_s") \
    X(CT_ENERGY_TOKEN, "energy_per_token_j", "energy_j")  \
    X(CT_ENERGY, "energy_j", "energy_j")                  \
    X(CT_POWER, "power_w", "power_w")                     \
    X(CT_NONE, "-", NULL)

enum calib_target {
#define X(id, name, field) id,
    CALIB_TARGET_LIST(X)
#undef X
    CT__COUNT
};

const char *calib_target_name(enum calib_target t);
const char *calib_use_name(enum calib_use u);

#define CALIB_MAX_RUNS 6 /* runs behind one row (throughput: one per batch tried) */

/* One line of the mapping table. */
struct calib_row {
    int tsv_line;            /* 1-based line in the table */
    char file[64];           /* JSONL file name (beside the table) */
    int line;                /* 1-based line in that file */
    char model_id[96];       /* the model: leave-one-model-out folds group by it */
    char family[32];         /* source family (aitemplate, mlperf, ...) */
    enum calib_use use;
    enum calib_target target;
    double measured;         /* published value (< 0 when target is "-") */
    char spec[192];          /* "samples/x.onnx" or a zoo spec; "-" when skipped */
    int64_t batch, seq, in_tokens, out_tokens;
    int64_t tokens;          /* mean real tokens per sequence of a runtime that removes the
                                padding (graph/ops/tokens.h); 0: the padded seq */
    int64_t steps;           /* denoising steps of a diffusion pipeline (0: none); each step
                                runs the denoiser on 2 x batch (classifier-free guidance) */
    struct config cfg;       /* GPU, MIG, precision, runtime, batch (valid unless skipped) */
    bool gpu_timed;          /* timed by CUDA events around the GPU work: the host's cost of
                                the call (call_us) is not in the figure */
    char reason[240];        /* why skipped (or why a graph was rejected), "" if none */
    /* evaluation (calib_eval.c) */
    int run[CALIB_MAX_RUNS], n_run;
    int64_t run_batch[CALIB_MAX_RUNS];
    bool held_out;           /* excluded from the current fit (cross-validation fold) */
    double pred;             /* in-sample prediction (compiled-in constants) */
    double pred_lomo;        /* prediction of the fold that left this model out (< 0: none) */
    double pred_losfo;       /* ... that left this row's source family out (< 0: none) */
};

/* Which rows a cross-validation fold holds out together. */
enum calib_fold {
    CF_MODEL,  /* leave one model out: pred_lomo */
    CF_FAMILY, /* leave one source family out: pred_losfo */
};

struct calib_set {
    struct calib_row *rows;
    int n_rows;
    const char *path;        /* the table */
    int n_files;
    char files[4][64];       /* JSONL files the table covers */
    int n_json_rows[4];      /* rows in each */
};

/* Reads and validates the table and checks it against the JSONL files
 * beside it. Errors name the file, line and column. */
enum status calib_load(const char *path, struct calib_set *set, struct diag *d);
/* The fitted rows that are one teacher run each (latency or memory of one
 * model, batch and configuration; not generations, offline sweeps or
 * pipelines) as dataset JSONL rows labelled "measured" (dataset.h), family =
 * the model id, so that `dippm train` can fine-tune on them and `dippm eval
 * --lomo` can leave each model out. Returns the malloc'd text; *n_rows
 * rows. */
char *calib_export_rows(const struct calib_set *set, size_t *len, int *n_rows);
void calib_set_fini(struct calib_set *set);

/* Graphs and the teacher runs behind the rows. */
struct calib_graphs;
/* Loads one graph per distinct (spec, batch, sequence, phase) the used rows
 * need ("samples/" specs resolve in samples_dir), each inferred with its
 * bindings. A binding that fails turns its rows into skipped ones (reason
 * from the loader); NULL with a diag only when nothing is usable. */
struct calib_graphs *calib_graphs_new(struct calib_set *set, const char *samples_dir,
                                      struct diag *d);
void calib_graphs_free(struct calib_graphs *cg);
int calib_graphs_count(const struct calib_graphs *cg);

/* Runs the teacher with p on every used row (fills pred). */
enum status calib_evaluate(struct calib_set *set, struct calib_graphs *cg,
                           const struct sim_params *p, struct diag *d);

/* Fits the knobs on the fitted rows that are not held out; starts from the
 * knobs' documented a-priori values when from_start is false, else from
 * start's values (a knob that no fitted, not held-out row depends on starts
 * from its a-priori value either way); rounds of coordinate search (8 for
 * the full fit). Deterministic. Leaves the rows' pred from out. */
enum status calib_fit(struct calib_set *set, struct calib_graphs *cg,
                      const struct sim_params *start, bool from_start, int rounds,
                      struct sim_params *out, struct diag *d);

/* Cross-validation: for each model (CF_MODEL) or source family (CF_FAMILY)
 * with fitted rows, holds its rows out, refits from fitted with `rounds`
 * rounds, and stores the fold's prediction of the held-out rows in
 * pred_lomo or pred_losfo. */
enum status calib_folds(struct calib_set *set, struct calib_graphs *cg,
                        const struct sim_params *fitted, int rounds, enum calib_fold fold,
                        struct diag *d);

/* The fitted knobs. */
int calib_knob_count(void);
const char *calib_knob_name(int k);
double calib_knob_value(const struct sim_params *p, int k);
void calib_knob_range(int k, double *lo, double *hi);

/* Writes the markdown report into a malloc'd string (caller frees). The
 * rows' predictions must come from fitted; used_summary is calib_summary's
 * line for the compiled-in constants. */
/* A row predicted from a generation (prefill plus decode steps): generation
 * throughput, a latency over more than one output token, or the energy or
 * power of a run with input and output tokens. */
bool calib_row_is_generation(const struct calib_row *r);
/* A time-to-first-token row: one prefill pass plus the request's fixed cost
 * (sim_request_ms). */
bool calib_row_is_first_token(const struct calib_row *r);

/* Threads the evaluation uses: one per online CPU, at most 16. */
int calib_thread_count(void);

char *calib_report(const struct calib_set *set, const struct calib_graphs *cg,
                   const struct sim_params *fitted, const struct sim_params *used,
                   const char *command, double seconds, const char *used_summary);

/* One line of headline MAPEs for the predictions in set (with the
 * leave-one-model-out figures when lomo). */
void calib_summary(const struct calib_set *set, bool lomo, char *buf, size_t n);

#endif
