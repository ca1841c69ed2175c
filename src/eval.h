/*
 * eval.h - accuracy of the GNN against dataset labels: MAPE, median
 * absolute percentage error and the share of rows within +-10%, per target
 * (latency, energy, memory), on (a) the random test split
 * (dataset_row_is_test) and (b) leave-one-family-out: for each family, a
 * model trained without it is tested on it.
 */
#ifndef DIPPM_EVAL_H
#define DIPPM_EVAL_H

#include "gnn.h"
#include "jsonw.h"
#include "train.h"

struct eval_metrics {
    int n[GNN_T__COUNT];            /* rows with that target */
    double mape[GNN_T__COUNT];      /* percent */
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

/* Writes metrics as a JSON object {"latency": {"n", "mape", ...}, ...}. */
void eval_metrics_json(struct jsonw *w, const struct eval_metrics *m);
/* Appends a text table row "label  n  mape  median  within10" per target. */
void eval_metrics_print(FILE *f, const char *label, const struct eval_metrics *m);

#endif
