/*
 * eval.h - accuracy of the GNN against dataset labels: MAPE, median
 * absolute percentage error and the share of rows within +-10%, per target
 * (latency, energy, memory), on (a) the random test split
 * (dataset_row_is_test) and (b) leave-one-family-out: for each family, a
 * model trained without it is tested on it.
 */
#ifndef DIPPM_EVAL_H
#define DIPPM_EVAL_H

#include "core/gnn.h"
#include "util/jsonw.h"
#include "lab/train.h"

struct eval_metrics {
    int n[GNN_T__COUNT];            /* rows with that target */
    double mape[GNN_T__COUNT];      /* percent */
    double mape_lo[GNN_T__COUNT], mape_hi[GNN_T__COUNT]; /* its bootstrap 95% interval */
    double median_ape[GNN_T__COUNT];
    double within10[GNN_T__COUNT];  /* percent of rows with |error| <= 10% */
};

/* Metrics of pred against truth (n rows x 3, original units; NaN truth =
 * missing). */
void eval_metrics_compute(const double *pred, const double *truth, int n,
                          struct eval_metrics *out);

/* Truth of samples idx from their log targets (NaN stays NaN). */
void eval_truth(const struct train_set *ts, const int *idx, int n, double *truth);

/* Metrics of m on samples idx. */
void eval_model(const struct gnn_model *m, const struct train_set *ts, const int *idx, int n,
                struct eval_metrics *out);

/* Metrics of the teacher alone (the GNN's anchor) on samples idx: the
 * baseline the GNN must beat on measured rows. */
void eval_teacher(const struct train_set *ts, const int *idx, int n, struct eval_metrics *out);

/* Indices of the random test split (test = true) or its complement. *n set;
 * malloc'd. */
int *eval_split(const struct dataset *ds, bool test, int *n);

/* One leave-one-family-out result. */
struct eval_lofo {
    char family[DATASET_NAME_MAX];
    int n_train, n_test;
    struct eval_metrics m;
};

/* Runs leave-one-family-out over every family present in ds (at least
 * min_rows rows): trains on at most max_train rows of the other families
 * (a seeded subsample) with o, tests on at most max_test rows of the family.
 * Results malloc'd into *out (*n_out entries). */
enum status eval_lofo_run(const struct dataset *ds, const struct train_set *ts,
                          const struct train_opts *o, int max_train, int max_test,
                          int min_rows, struct eval_lofo **out, int *n_out, struct diag *d);

/* ---- orderings ------------------------------------------------------------ */

/* Properties a latency prediction should keep (id, name, description). */
#define EVAL_ORDER_LIST(X)                                                               \
    X(EVAL_ORDER_BATCH, "batch", "a bigger batch is not faster (latency per batch)")    \
    X(EVAL_ORDER_SLICE, "slice", "a bigger MIG slice (or the whole GPU) is not slower") \
    X(EVAL_ORDER_GPU, "gpu", "a newer GPU with at least the SMs, bandwidth and peak is not slower") \
    X(EVAL_ORDER_PRECISION, "precision",                                                 \
      "a lower precision is not slower (fp32>tf32>fp16/bf16>int8/fp8)")                 \
    X(EVAL_ORDER_RUNTIME, "runtime",                                                     \
      "eager is not faster than eager with fused attention, nor that than TensorRT, nor " \
      "TensorRT than its CUDA-graph replay or vLLM")                                     \
    X(EVAL_ORDER_MEM_BATCH, "memory-batch", "a bigger batch does not need less memory")

enum eval_order_kind {
#define X(id, name, desc) id,
    EVAL_ORDER_LIST(X)
#undef X
    EVAL_ORDER__COUNT
};
const char *eval_order_name(int k);
const char *eval_order_desc(int k);

struct eval_order_count {
    long pairs;              /* ordered pairs compared */
    long gnn, teacher;       /* violations beyond the tolerance */
    double gnn_worst, teacher_worst; /* largest relative violation (0.05 = 5%) */
};

struct eval_order {
    double tol;              /* relative tolerance (0.01 = 1%) */
    int n_graphs;
    struct eval_order_count kind[EVAL_ORDER__COUNT];
};

struct predictor;
/* Predicts the grid: each zoo family in the comma list `families` (NULL =
 * all) at its default size x batch 1, 2, 4 .. 1024 x every GPU and MIG
 * slice x every supported precision and runtime, and counts the pairs that
 * differ in one property and break its ordering by more than tol, for the
 * predictor p (the GNN) and for the teacher on the same pairs. */
enum status eval_order_run(struct predictor *p, const char *families, double tol,
                           struct eval_order *o, struct diag *d);

/* One leave-one-model-out result on measured rows. */
struct eval_lomo {
    char model[DATASET_NAME_MAX]; /* the held-out rows' model file (basename) */
    int n_train, n_test;
    struct eval_metrics gnn, teacher;
};

/* Leave-one-model-out over the measured rows of ds: for each model (rows
 * with the same graph), base is fine-tuned with o on every other row
 * (teacher rows at o->teacher_weight) and tested on that model's rows,
 * beside the teacher alone. With hold non-NULL only the models whose family
 * starts with it are held out in turn (the others always train). Per model in *out (malloc'd, *n_out entries);
 * pooled over every held-out row in *pooled_gnn / *pooled_teacher. */
enum status eval_lomo_run(const struct dataset *ds, const struct train_set *ts,
                          const struct gnn_model *base, const struct train_opts *o,
                          const char *hold, struct eval_lomo **out, int *n_out, struct eval_metrics *pooled_gnn,
                          struct eval_metrics *pooled_teacher, struct diag *d);

/* Writes metrics as a JSON object {"latency": {"n", "mape", ...}, ...}. */
void eval_metrics_json(struct jsonw *w, const struct eval_metrics *m);
/* Appends a text table row "label  n  mape  median  within10" per target. */
void eval_metrics_print(FILE *f, const char *label, const struct eval_metrics *m);

#endif
