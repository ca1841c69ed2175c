/* eval.c - accuracy metrics, the random split and leave-one-family-out. */
#include "lab/eval.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/stats.h"
#include "util/xalloc.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void eval_metrics_compute(const double *pred, const double *truth, int n,
                          struct eval_metrics *out)
{
    memset(out, 0, sizeof *out);
    double *ape = xmalloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    for (int t = 0; t < GNN_T__COUNT; t++) {
        int k = 0;
        for (int i = 0; i < n; i++) {
            double y = truth[(size_t)i * GNN_T__COUNT + t];
            if (isnan(y) || !(y > 0))
                continue;
            ape[k++] = fabs(pred[(size_t)i * GNN_T__COUNT + t] - y) / y * 100.0;
        }
        out->n[t] = k;
        if (!k) {
            out->mape[t] = out->median_ape[t] = out->within10[t] = NAN;
            out->mape_lo[t] = out->mape_hi[t] = NAN;
            continue;
        }
        int in10 = 0;
        for (int i = 0; i < k; i++)
            in10 += ape[i] <= 10.0;
        stats_mean_ci95(ape, k, &out->mape[t], &out->mape_lo[t], &out->mape_hi[t]);
        qsort(ape, (size_t)k, sizeof(double), cmp_double);
        out->median_ape[t] = k % 2 ? ape[k / 2] : 0.5 * (ape[k / 2 - 1] + ape[k / 2]);
        out->within10[t] = 100.0 * in10 / k;
    }
    free(ape);
}

void eval_truth(const struct train_set *ts, const int *idx, int n, double *truth)
{
    for (int i = 0; i < n; i++)
        for (int t = 0; t < GNN_T__COUNT; t++) {
            float y = ts->s[idx[i]].y[t];
            truth[(size_t)i * GNN_T__COUNT + t] = isnan(y) ? NAN : exp((double)y);
        }
}

void eval_model(const struct gnn_model *m, const struct train_set *ts, const int *idx, int n,
                struct eval_metrics *out)
{
    double *pred = xmalloc(sizeof(double) * GNN_T__COUNT * (size_t)(n > 0 ? n : 1));
    double *truth = xmalloc(sizeof(double) * GNN_T__COUNT * (size_t)(n > 0 ? n : 1));
    train_predict(m, ts, idx, n, pred);
    eval_truth(ts, idx, n, truth);
    eval_metrics_compute(pred, truth, n, out);
    free(pred);
    free(truth);
}

void eval_teacher(const struct train_set *ts, const int *idx, int n, struct eval_metrics *out)
{
    double *pred = xmalloc(sizeof(double) * GNN_T__COUNT * (size_t)(n > 0 ? n : 1));
    double *truth = xmalloc(sizeof(double) * GNN_T__COUNT * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; i++)
        for (int t = 0; t < GNN_T__COUNT; t++)
            pred[(size_t)i * GNN_T__COUNT + t] = exp((double)ts->s[idx[i]].anchor[t]);
    eval_truth(ts, idx, n, truth);
    eval_metrics_compute(pred, truth, n, out);
    free(pred);
    free(truth);
}

int *eval_split(const struct dataset *ds, bool test, int *n)
{
    int *idx = xmalloc(sizeof(int) * (size_t)(ds->n > 0 ? ds->n : 1));
    *n = 0;
    for (int i = 0; i < ds->n; i++)
        if (dataset_row_is_test(&ds->rows[i]) == test)
            idx[(*n)++] = i;
    return idx;
}

static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Keeps a seeded subsample of at most max entries of idx (in place). */
static int subsample(int *idx, int n, int max, uint64_t seed)
{
    if (max <= 0 || n <= max)
        return n;
    uint64_t s = seed;
    for (int i = 0; i < max; i++) {
        s = mix(s);
        int j = i + (int)(s % (uint64_t)(n - i));
        int t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
    }
    return max;
}

enum status eval_lofo_run(const struct dataset *ds, const struct train_set *ts,
                          const struct train_opts *o, int max_train, int max_test,
                          int min_rows, struct eval_lofo **out, int *n_out, struct diag *d)
{
    *out = NULL;
    *n_out = 0;
    char (*fams)[DATASET_NAME_MAX] = xcalloc((size_t)ds->n + 1, DATASET_NAME_MAX);
    int nf = 0;
    for (int i = 0; i < ds->n; i++) {
        int k = 0;
        while (k < nf && strcmp(fams[k], ds->rows[i].family) != 0)
            k++;
        if (k == nf)
            snprintf(fams[nf++], DATASET_NAME_MAX, "%s", ds->rows[i].family);
    }
    qsort(fams, (size_t)nf, DATASET_NAME_MAX, (int (*)(const void *, const void *))strcmp);
    struct eval_lofo *res = xcalloc((size_t)(nf ? nf : 1), sizeof *res);
    int *tr = xmalloc(sizeof(int) * (size_t)ds->n), *te = xmalloc(sizeof(int) * (size_t)ds->n);
    enum status st = ST_OK;
    int nr = 0;
    for (int f = 0; f < nf && !st; f++) {
        int ntr = 0, nte = 0;
        for (int i = 0; i < ds->n; i++) {
            if (strcmp(ds->rows[i].family, fams[f]) == 0)
                te[nte++] = i;
            else
                tr[ntr++] = i;
        }
        if (nte < min_rows || ntr == 0)
            continue;
        ntr = subsample(tr, ntr, max_train, o->seed + (uint64_t)f);
        nte = subsample(te, nte, max_test, o->seed + 1000 + (uint64_t)f);
        struct gnn_model m;
        if (o->progress)
            fprintf(stderr, "dippm eval: leave out %s: train %d rows, test %d rows\n", fams[f],
                    ntr, nte);
        st = train_fit(&m, false, ts, tr, ntr, o, d);
        if (st)
            break;
        struct eval_lofo *r = &res[nr++];
        snprintf(r->family, sizeof r->family, "%s", fams[f]);
        r->n_train = ntr;
        r->n_test = nte;
        eval_model(&m, ts, te, nte, &r->m);
        gnn_model_fini(&m);
    }
    free(tr);
    free(te);
    free(fams);
    if (st) {
        free(res);
        return st;
    }
    *out = res;
    *n_out = nr;
    return ST_OK;
}

enum status eval_lomo_run(const struct dataset *ds, const struct train_set *ts,
                          const struct gnn_model *base, const struct train_opts *o,
                          const char *hold, struct eval_lomo **out, int *n_out, struct eval_metrics *pooled_gnn,
                          struct eval_metrics *pooled_teacher, struct diag *d)
{
    *out = NULL;
    *n_out = 0;
    int n = ds->n > 0 ? ds->n : 1;
    int *tr = xmalloc(sizeof(int) * (size_t)n), *te = xmalloc(sizeof(int) * (size_t)n);
    double *pg = xmalloc(sizeof(double) * GNN_T__COUNT * (size_t)n);
    double *pt = xmalloc(sizeof(double) * GNN_T__COUNT * (size_t)n);
    double *tru = xmalloc(sizeof(double) * GNN_T__COUNT * (size_t)n);
    unsigned char *done = xcalloc((size_t)n, 1);
    struct eval_lomo *res = xcalloc((size_t)n, sizeof *res);
    enum status st = ST_OK;
    int nr = 0, na = 0;
    for (int i = 0; i < ds->n && !st; i++) {
        if (done[i] || ds->rows[i].label != DATASET_MEASURED ||
            (hold && strncmp(ds->rows[i].family, hold, strlen(hold)) != 0))
            continue;
        int ntr = 0, nte = 0;
        for (int j = 0; j < ds->n; j++) {
            /* a model's measured rows share its family (its name): every
             * configuration and sequence length of it is held out together */
            bool held = ds->rows[j].label == DATASET_MEASURED &&
                        strcmp(ds->rows[j].family, ds->rows[i].family) == 0;
            if (held) {
                te[nte++] = j;
                done[j] = 1;
            } else {
                tr[ntr++] = j;
            }
        }
        struct eval_lomo *r = &res[nr];
        snprintf(r->model, sizeof r->model, "%.63s", ds->rows[i].family);
        r->n_train = ntr;
        r->n_test = nte;
        struct gnn_model m;
        gnn_model_copy(&m, base);
        if (o->progress)
            fprintf(stderr, "dippm eval: leave out model %s: fine-tune on %d rows, test %d\n",
                    r->model, ntr, nte);
        if (ntr > 0 && (st = train_fit(&m, true, ts, tr, ntr, o, d))) {
            gnn_model_fini(&m);
            break;
        }
        train_predict(&m, ts, te, nte, pg + (size_t)na * GNN_T__COUNT);
        eval_truth(ts, te, nte, tru + (size_t)na * GNN_T__COUNT);
        for (int k = 0; k < nte; k++)
            for (int t = 0; t < GNN_T__COUNT; t++)
                pt[(size_t)(na + k) * GNN_T__COUNT + t] = exp((double)ts->s[te[k]].anchor[t]);
        eval_metrics_compute(pg + (size_t)na * GNN_T__COUNT, tru + (size_t)na * GNN_T__COUNT,
                             nte, &r->gnn);
        eval_metrics_compute(pt + (size_t)na * GNN_T__COUNT, tru + (size_t)na * GNN_T__COUNT,
                             nte, &r->teacher);
        na += nte;
        nr++;
        gnn_model_fini(&m);
    }
    if (!st && nr == 0)
        st = hold ? diag_set(d, ST_EUSAGE, "leave-one-model-out: no measured row of a model "
                             "whose family starts with '%s'", hold)
                  : diag_set(d, ST_EUSAGE, "leave-one-model-out needs measured rows in the data");
    if (!st) {
        eval_metrics_compute(pg, tru, na, pooled_gnn);
        eval_metrics_compute(pt, tru, na, pooled_teacher);
        *out = res;
        *n_out = nr;
    } else {
        free(res);
    }
    free(tr);
    free(te);
    free(pg);
    free(pt);
    free(tru);
    free(done);
    return st;
}

void eval_metrics_json(struct jsonw *w, const struct eval_metrics *m)
{
    jsonw_obj_begin(w);
    for (int t = 0; t < GNN_T__COUNT; t++) {
        jsonw_key(w, gnn_target_name(t));
        jsonw_obj_begin(w);
        jsonw_key_int(w, "n", m->n[t]);
        const char *keys[5] = {"mape_pct", "median_ape_pct", "within_10pct", "mape_ci95_low_pct",
                               "mape_ci95_high_pct"};
        double vals[5] = {m->mape[t], m->median_ape[t], m->within10[t], m->mape_lo[t],
                          m->mape_hi[t]};
        for (int k = 0; k < 5; k++) {
            jsonw_key(w, keys[k]);
            if (isnan(vals[k]))
                jsonw_null(w);
            else
                jsonw_fixed(w, vals[k], 3);
        }
        jsonw_obj_end(w);
    }
    jsonw_obj_end(w);
}

void eval_metrics_print(FILE *f, const char *label, const struct eval_metrics *m)
{
    for (int t = 0; t < GNN_T__COUNT; t++)
        if (m->n[t] == 0)
            fprintf(f, "%-22s %-8s %6d %9s %9s %9s\n", t == 0 ? label : "", gnn_target_name(t), 0,
                    "-", "-", "-");
        else
            fprintf(f, "%-22s %-8s %6d %8.2f%% %8.2f%% %8.1f%%  [%.1f, %.1f]\n",
                    t == 0 ? label : "", gnn_target_name(t), m->n[t], m->mape[t],
                    m->median_ape[t], m->within10[t], m->mape_lo[t], m->mape_hi[t]);
}
