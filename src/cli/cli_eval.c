/* cli_eval.c - `dippm eval`: accuracy of the GNN on the random test split
 * and leave-one-family-out splits. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/cli_eval_kernels.h"
#include "cli/cli_training.h"
#include "lab/dataset.h"
#include "util/datafile.h"
#include "lab/eval.h"
#include "util/fileio.h"
#include "util/jsonw.h"
#include "core/predict.h"
#include "util/textsafe.h"
#include "lab/train.h"
#include "core/weights.h"
#include "util/xalloc.h"

enum { OPT_DATA = CLI_OPT__OWN, OPT_LOFO, OPT_LOFO_TRAIN, OPT_LOFO_TEST, OPT_LOFO_EPOCHS,
       OPT_QUIET, OPT_ALL_ROWS, OPT_ROWS, OPT_LOFO_ONLY, OPT_ORDERINGS, OPT_ORDER_FAMILIES,
       OPT_ORDER_TOL, OPT_LOMO, OPT_LOMO_EPOCHS, OPT_LOMO_LR, OPT_LOMO_HOLD, OPT_KERNELS,
       OPT_TEACHER, OPT_FIT, OPT_WRITE_PARAMS };

static const struct cli_opt eval_opts[] = {
    {"data", 0, "FILE", "the dataset rows to evaluate on (default: 400 freshly sampled "
     "teacher-labelled rows, seed 4242)", OPT_DATA},
    {"all-rows", 0, NULL, "evaluate every row of FILE (e.g. measured data), not the split",
     OPT_ALL_ROWS},
    {"rows", 0, "CSV", "also write every evaluated row with its prediction (replaces an "
     "existing file only with --force)", OPT_ROWS},
    {"lofo", 0, NULL, "also (b), leave-one-family-out", OPT_LOFO},
    {"lofo-only", 0, NULL, "only (b); no weights needed", OPT_LOFO_ONLY},
    {"lofo-train", 0, "N", "(b) trains on at most N rows of the other families (default 3000)",
     OPT_LOFO_TRAIN},
    {"lofo-test", 0, "N", "(b) tests on at most N rows of the held-out family (default 400)",
     OPT_LOFO_TEST},
    {"lofo-epochs", 0, "E", "(b) trains for E epochs (default 12)", OPT_LOFO_EPOCHS},
    {"lomo", 0, NULL, "leave-one-model-out on the measured rows of FILE: for each model the "
     "weights are fine-tuned on every other row (teacher rows as the regulariser) and tested "
     "on that model's rows, beside the teacher alone", OPT_LOMO},
    {"lomo-epochs", 0, "E", "the fine-tuning epochs of --lomo (default 20)", OPT_LOMO_EPOCHS},
    {"lomo-hold", 0, "PREFIX", "hold out in turn only the models whose family starts with PREFIX "
     "(e.g. neusight:); every other measured row still trains each fold", OPT_LOMO_HOLD},
    {"lomo-lr", 0, "LR", "the fine-tuning learning rate of --lomo (default 3e-4, as dippm "
     "train --init's)", OPT_LOMO_LR},
    {"orderings", 0, NULL, "also count ordering violations of the weights and of the teacher "
     "over a grid: each zoo family x batch 1..1024 x every GPU and MIG slice x every supported "
     "precision and runtime (pairs that differ in batch, slice, GPU generation, precision or "
     "runtime)", OPT_ORDERINGS},
    {"order-families", 0, "L", "comma list of zoo families for the grid (default all)",
     OPT_ORDER_FAMILIES},
    {"order-tol", 0, "PCT", "violations are counted beyond PCT percent (default 1)",
     OPT_ORDER_TOL},
    {"kernels", 0, "TSV", "instead, predict the measured single kernels of TSV (split gpu op b "
     "m n k latency_us ...; tests/data/neusight/kernels.tsv) and report MAPE with a bootstrap "
     "95% interval per operator group and GPU, for the weights and the teacher", OPT_KERNELS},
    {"teacher", 0, NULL, "with --kernels: the teacher alone, no weights", OPT_TEACHER},
    {"fit", 0, NULL, "with --kernels: first fit the teacher's FP32 matrix-product constants "
     "(cuda_eff, simt_k_half) to the train split and use them; the values go to stderr",
     OPT_FIT},
    {"write-params", 0, "FILE", "with --kernels --fit: write the fitted constants, every other "
     "one at its compiled-in value, as the teacher's src/core/sim_fitted.h to FILE (refuses to "
     "overwrite without --force)", OPT_WRITE_PARAMS},
    {"quiet", 0, NULL, "no progress messages", OPT_QUIET},
    {"weights", 0, "W", "the GNN weights to evaluate (default: the shipped weights)",
     CLI_OPT_WEIGHTS},
    {NULL, 0, NULL, NULL, 0},
};

const struct cli_cmd cli_cmd_eval = {
    .name = "eval",
    .usage = "dippm eval [--weights W] [--data FILE] [--json] [--lofo]\n"
             "                  [--lofo-train N] [--lofo-test N] [--lofo-epochs E] [--seed S]",
    .about = "Reports MAPE, median absolute percentage error and the share of rows within\n"
             "+-10% for latency, energy and memory:\n"
             "  (a) the weights on the random test split of FILE (rows the training held out);\n"
             "      without --data, on 400 freshly sampled teacher-labelled rows (seed 4242);\n"
             "  (b) with --lofo, leave-one-family-out: for each family in FILE a model is trained\n"
             "      on at most N rows of the other families (default 3000) for E epochs\n"
             "      (default 12) and tested on at most 400 rows of the held-out family.",
    .after = "The training options set (b)'s training and --lomo's fine-tuning as they set\n"
             "dippm train's (--teacher-weight and --only: --lomo's alone).\n"
             "Labels are the teacher's (simulated) unless the data holds measured rows.",
    .common = CLI_C_JSON | CLI_C_OUTPUT | CLI_C_FORCE,
    .groups = {eval_opts, cli_training_opts},
};

static void lomo_json(struct jsonw *w, const struct eval_lomo *r, int n,
                      const struct eval_metrics *pg, const struct eval_metrics *pt)
{
    jsonw_obj_begin(w);
    jsonw_key(w, "pooled_gnn");
    eval_metrics_json(w, pg);
    jsonw_key(w, "pooled_teacher");
    eval_metrics_json(w, pt);
    jsonw_key(w, "models");
    jsonw_arr_begin(w, false);
    for (int i = 0; i < n; i++) {
        jsonw_obj_begin(w);
        jsonw_key_str(w, "model", r[i].model);
        jsonw_key_int(w, "train_rows", r[i].n_train);
        jsonw_key_int(w, "test_rows", r[i].n_test);
        jsonw_key(w, "gnn");
        eval_metrics_json(w, &r[i].gnn);
        jsonw_key(w, "teacher");
        eval_metrics_json(w, &r[i].teacher);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);
}

static void order_json(struct jsonw *w, const struct eval_order *o)
{
    jsonw_obj_begin(w);
    jsonw_key_fixed(w, "tolerance_pct", o->tol * 100, 3);
    jsonw_key_int(w, "graphs", o->n_graphs);
    for (int k = 0; k < EVAL_ORDER__COUNT; k++) {
        const struct eval_order_count *c = &o->kind[k];
        jsonw_key(w, eval_order_name(k));
        jsonw_obj_begin(w);
        jsonw_key_str(w, "property", eval_order_desc(k));
        jsonw_key_int(w, "pairs", c->pairs);
        jsonw_key_int(w, "gnn_violations", c->gnn);
        jsonw_key_fixed(w, "gnn_worst_pct", c->gnn_worst * 100, 3);
        jsonw_key_int(w, "teacher_violations", c->teacher);
        jsonw_key_fixed(w, "teacher_worst_pct", c->teacher_worst * 100, 3);
        jsonw_obj_end(w);
    }
    jsonw_obj_end(w);
}

static void order_print(FILE *f, const struct eval_order *o)
{
    fprintf(f, "orderings over %d zoo graphs (violations beyond %.2f%%):\n", o->n_graphs,
            o->tol * 100);
    fprintf(f, "  %-12s %9s %9s %8s %9s %8s\n", "property", "pairs", "GNN", "worst", "teacher",
            "worst");
    for (int k = 0; k < EVAL_ORDER__COUNT; k++) {
        const struct eval_order_count *c = &o->kind[k];
        fprintf(f, "  %-12s %9ld %9ld %7.2f%% %9ld %7.2f%%\n", eval_order_name(k), c->pairs,
                c->gnn, c->gnn_worst * 100, c->teacher, c->teacher_worst * 100);
    }
}

/* Per-row predictions of the evaluated rows as CSV (for error analysis),
 * written atomically; an existing file is replaced only with --force. */
static int write_rows_csv(const char *path, bool force, const struct dataset *ds,
                          const struct train_set *ts, const struct gnn_model *m, const int *idx,
                          int n)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        cli_error("%s: out of memory", path);
        return 7;
    }
    double *pred = xmalloc(sizeof(double) * GNN_T__COUNT * (size_t)(n > 0 ? n : 1));
    train_predict(m, ts, idx, n, pred);
    fprintf(f, "row,family,label,gpu,mig,precision,runtime,batch,nodes,latency_ms,pred_latency_ms,"
               "energy_j,pred_energy_j,memory_mib,pred_memory_mib,spec\n");
    for (int i = 0; i < n; i++) {
        const struct dataset_row *r = &ds->rows[idx[i]];
        fprintf(f, "%d,", idx[i] + 1);
        csv_cell(f, r->family);
        fprintf(f, ",%s,", r->label == DATASET_MEASURED ? "measured" : "teacher");
        csv_cell(f, r->gpu);
        fputc(',', f);
        csv_cell(f, r->mig);
        fprintf(f, ",%s,%s,%lld,%d", precision_name(r->prec), runtime_name(r->rt),
                (long long)r->batch, ts->s[idx[i]].n);
        for (int t = 0; t < GNN_T__COUNT; t++)
            fprintf(f, ",%.6g,%.6g", r->target[t], pred[(size_t)i * GNN_T__COUNT + t]);
        fputc(',', f);
        csv_cell(f, r->spec);
        fputc('\n', f);
    }
    free(pred);
    fclose(f);
    struct diag d = {0};
    enum status st = file_write_atomic(path, buf, len, force, &d);
    free(buf);
    return st ? cli_fail(&d) : 0;
}

/* What `dippm eval` was asked for, and what it found. */
struct eval_cli {
    struct cli_common co;
    const char *data, *rows_csv, *split_label, *order_fams, *wp, *params_out;
    bool lofo, lofo_only, lomo, orderings, quiet, all_rows, teacher_only, kfit;
    const char *kernels;                    /* --kernels */
    const char *lomo_hold;                  /* --lomo-hold PREFIX, or NULL */
    struct cli_training tr;                /* training of --lofo and --lomo */
    double lomo_lr;                        /* fine-tuning of --lomo */
    double order_tol;
    int64_t lofo_train, lofo_test, lofo_epochs, lomo_epochs;
    struct dataset ds;
    struct train_set ts;
    struct gnn_model m;
    char desc[WEIGHTS_DESC_MAX], wpath[1024];
    struct eval_metrics met, met_teacher;   /* (a) */
    struct eval_lofo *lr;                   /* (b) */
    int n_lr;
    struct eval_lomo *lm;                   /* --lomo */
    int n_lm;
    struct eval_metrics lm_g, lm_t;
    struct eval_order ord;                  /* --orderings */
};

static int eval_opt(void *ctx, int c, const char *arg)
{
    struct eval_cli *e = ctx;
    switch (c) {
    case OPT_DATA: e->data = arg; return -1;
    case OPT_LOFO: e->lofo = true; return -1;
    case OPT_LOFO_ONLY: e->lofo = e->lofo_only = true; return -1;
    case OPT_QUIET: e->quiet = true; return -1;
    case OPT_ALL_ROWS: e->all_rows = true; return -1;
    case OPT_ROWS: e->rows_csv = arg; return -1;
    case OPT_ORDERINGS: e->orderings = true; return -1;
    case OPT_KERNELS: e->kernels = arg; return -1;
    case OPT_TEACHER: e->teacher_only = true; return -1;
    case OPT_FIT: e->kfit = true; return -1;
    case OPT_WRITE_PARAMS: e->params_out = arg; return -1;
    case OPT_LOMO: e->lomo = true; return -1;
    case OPT_LOMO_HOLD: e->lomo_hold = arg; return -1;
    case OPT_ORDER_FAMILIES: e->order_fams = arg; return -1;
    case OPT_LOMO_LR: {
        char *end;
        e->lomo_lr = strtod(arg, &end);
        if (end == arg || *end || !(e->lomo_lr > 0 && e->lomo_lr <= 1))
            return cli_usage_error("eval", "--lomo-lr '%s': expected a number above 0, at most "
                                   "1", arg);
        return -1;
    }
    case OPT_ORDER_TOL: {
        char *end;
        e->order_tol = strtod(arg, &end) / 100;
        if (end == arg || *end || !(e->order_tol >= 0 && e->order_tol <= 1))
            return cli_usage_error("eval", "--order-tol '%s': expected a percentage from 0 to "
                                   "100", arg);
        return -1;
    }
    case OPT_LOFO_TRAIN:
    case OPT_LOFO_TEST:
    case OPT_LOFO_EPOCHS:
    case OPT_LOMO_EPOCHS: {
        int64_t *dst = c == OPT_LOFO_TRAIN    ? &e->lofo_train
                       : c == OPT_LOFO_TEST   ? &e->lofo_test
                       : c == OPT_LOFO_EPOCHS ? &e->lofo_epochs
                                              : &e->lomo_epochs;
        if (cli_parse_int(arg, 1, 100000000, dst))
            return cli_usage_error("eval", "'%s': expected a positive integer", arg);
        return -1;
    }
    default: return cli_training_opt(&e->tr, "eval", c, arg);
    }
}

/* Options into e; -1 to go on, else the exit code. */
static int parse_args(struct eval_cli *e, int argc, char **argv)
{
    int rc = cli_parse(&cli_cmd_eval, &e->co, argc, argv, eval_opt, e);
    if (rc >= 0)
        return rc;
    if (optind < argc)
        return cli_usage_error("eval", "unexpected argument '%s'", argv[optind]);
    if (e->lofo && !e->data)
        return cli_usage_error("eval", "--lofo needs --data FILE (it retrains per family)");
    if (e->lomo && (!e->data || e->lofo_only))
        return cli_usage_error("eval", "--lomo needs --data FILE with measured rows and weights");
    if (e->orderings && e->lofo_only)
        return cli_usage_error("eval", "--orderings needs weights; it cannot go with --lofo-only");
    if (e->params_out && !(e->kernels && e->kfit))
        return cli_usage_error("eval", "--write-params writes what --kernels --fit fits; give "
                               "both");
    return -1;
}

/* Without --data: 400 freshly sampled teacher-labelled rows (seed 4242). */
static enum status load_fresh_sample(struct dataset *ds, struct diag *d)
{
    struct dataset_gen_opts go = {0};
    go.n = 400;
    go.seed = 4242;
    go.n_shards = 1;
    go.configs_per_graph = 4;
    char samples_dir[1024];
    go.samples_dir = datafile_find(DATAFILE_SAMPLES, NULL, samples_dir, sizeof samples_dir);
    if (!go.samples_dir) {
        char where[2048];
        return diag_set(d, ST_ENOTFOUND, "no samples directory (looked in %s); use --data FILE",
                        datafile_searched(DATAFILE_SAMPLES, NULL, where, sizeof where));
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem)
        return diag_set(d, ST_ENOMEM, "out of memory");
    long nw;
    enum status st = dataset_generate(&go, mem, &nw, d);
    fclose(mem);
    if (!st)
        st = dataset_parse(ds, "fresh sample", buf, len, d);
    free(buf);
    return st;
}

/* The rows to prepare: only the test split when nothing else needs more. */
static enum status load_rows(struct eval_cli *e, struct diag *d)
{
    enum status st;
    if (e->data) {
        if ((st = dataset_load(&e->ds, e->data, d)))
            return st;
    } else {
        if ((st = load_fresh_sample(&e->ds, d)))
            return st;
        e->all_rows = true;
    }
    if (!e->lofo && !e->all_rows && !e->lomo) {
        struct dataset sub;
        dataset_init(&sub);
        for (int i = 0; i < e->ds.n; i++)
            if (dataset_row_is_test(&e->ds.rows[i]))
                dataset_add(&sub, &e->ds.rows[i]);
        dataset_fini(&e->ds);
        e->ds = sub;
        e->all_rows = true;
        e->split_label = "random test split";
    }
    /* Leave-one-family-out trains as `dippm train` does, ordering pairs included. */
    return train_prepare(&e->ds, &e->ts, e->lofo || e->lomo ? e->tr.pair_frac : 0,
                         e->tr.all_kinds, !e->quiet, d);
}

/* (a) the weights on the rows, --rows, --lomo and --orderings; -1 to go
 * on, else the exit code. */
static int run_weights(struct eval_cli *e, struct diag *d)
{
    if (!e->wp && !(e->wp = datafile_weights(e->wpath, sizeof e->wpath))) {
        char where[2048];
        diag_set(d, ST_ENOTFOUND, "no GNN weights found (looked for %s); use --weights FILE",
                 datafile_searched(DATAFILE_WEIGHTS, DATAFILE_WEIGHTS_NAME, where, sizeof where));
        return cli_fail(d);
    }
    if (weights_load(e->wp, gnn_features_schema_id(), &e->m, e->desc, sizeof e->desc, d))
        return cli_fail(d);
    int n_te = 0, *te;
    if (e->all_rows) {
        te = xmalloc(sizeof(int) * (size_t)(e->ds.n > 0 ? e->ds.n : 1));
        for (int i = 0; i < e->ds.n; i++)
            te[i] = i;
        n_te = e->ds.n;
    } else {
        te = eval_split(&e->ds, true, &n_te);
    }
    eval_model(&e->m, &e->ts, te, n_te, &e->met);
    eval_teacher(&e->ts, te, n_te, &e->met_teacher);
    int rc = e->rows_csv ? write_rows_csv(e->rows_csv, e->co.force, &e->ds, &e->ts, &e->m, te,
                                          n_te)
                         : 0;
    free(te);
    if (rc)
        return rc;
    if (e->lomo) {
        struct train_opts o = e->tr.o; /* seed, teacher, ordering weights, --only */
        o.epochs = (int)e->lomo_epochs;
        o.lr = (float)e->lomo_lr; /* fine-tuning: 3e-4 as `dippm train --init` */
        o.progress = !e->quiet;
        if (eval_lomo_run(&e->ds, &e->ts, &e->m, &o, e->lomo_hold, &e->lm, &e->n_lm, &e->lm_g,
                          &e->lm_t, d))
            return cli_fail(d);
    }
    if (e->orderings) {
        struct predictor *p = predictor_new(e->wp, d);
        if (!p)
            return cli_fail(d);
        enum status st = eval_order_run(p, e->order_fams, e->order_tol, &e->ord, d);
        predictor_free(p);
        if (st)
            return cli_fail(d);
    }
    return -1;
}

static void lofo_json(struct jsonw *w, const struct eval_cli *e)
{
    jsonw_obj_begin(w);
    jsonw_key_int(w, "train_rows_max", e->lofo_train);
    jsonw_key_int(w, "epochs", e->lofo_epochs);
    jsonw_key(w, "families");
    jsonw_arr_begin(w, false);
    for (int i = 0; i < e->n_lr; i++) {
        jsonw_obj_begin(w);
        jsonw_key_str(w, "family", e->lr[i].family);
        jsonw_key_int(w, "train_rows", e->lr[i].n_train);
        jsonw_key_int(w, "test_rows", e->lr[i].n_test);
        jsonw_key(w, "metrics");
        eval_metrics_json(w, &e->lr[i].m);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);
}

static int render_json(const struct eval_cli *e, const char *split)
{
    struct jsonw w;
    jsonw_init(&w, true);
    jsonw_obj_begin(&w);
    jsonw_key_str(&w, "weights", e->wp);
    jsonw_key_str(&w, "description", e->desc);
    jsonw_key_str(&w, "data", e->data ? e->data : "generated");
    jsonw_key_str(&w, "split", split);
    if (!e->lofo_only) {
        jsonw_key(&w, "test");
        eval_metrics_json(&w, &e->met);
        jsonw_key(&w, "teacher_on_test");
        eval_metrics_json(&w, &e->met_teacher);
    }
    if (e->orderings) {
        jsonw_key(&w, "orderings");
        order_json(&w, &e->ord);
    }
    if (e->lomo) {
        jsonw_key(&w, "leave_one_model_out");
        lomo_json(&w, e->lm, e->n_lm, &e->lm_g, &e->lm_t);
    }
    if (e->lofo) {
        jsonw_key(&w, "leave_one_family_out");
        lofo_json(&w, e);
    }
    jsonw_obj_end(&w);
    size_t l;
    char *js = jsonw_take(&w, &l);
    js = xrealloc(js, l + 2);
    js[l++] = '\n';
    int rc = cli_emit(&e->co, js, l);
    free(js);
    return rc;
}

static void render_text(const struct eval_cli *e, const char *split, FILE *f)
{
    fprintf(f, "weights: %s (%s)\n", e->wp, e->desc);
    int n_meas = 0;
    for (int i = 0; i < e->ds.n; i++)
        n_meas += e->ds.rows[i].label == DATASET_MEASURED;
    fprintf(f, "labels: %d rows from the teacher (analytic GPU model: simulated, not "
               "measured), %d measured rows\n", e->ds.n - n_meas, n_meas);
    fprintf(f, "%-22s %-8s %6s %9s %9s %9s  %s\n", "split", "target", "n", "MAPE", "median",
            "within10", "MAPE 95% CI");
    if (!e->lofo_only) {
        eval_metrics_print(f, split, &e->met);
        eval_metrics_print(f, "  teacher alone", &e->met_teacher);
    }
    for (int i = 0; i < e->n_lr; i++) {
        char lab[96];
        snprintf(lab, sizeof lab, "without %s", e->lr[i].family);
        eval_metrics_print(f, lab, &e->lr[i].m);
    }
    if (e->lofo)
        fprintf(f, "(leave-one-family-out: at most %lld training rows, %lld epochs each)\n",
                (long long)e->lofo_train, (long long)e->lofo_epochs);
    if (e->orderings)
        order_print(f, &e->ord);
    if (e->lomo) {
        fprintf(f, "leave-one-model-out on measured rows (fine-tuned %lld epochs each):\n",
                (long long)e->lomo_epochs);
        for (int i = 0; i < e->n_lm; i++) {
            char lab[96];
            snprintf(lab, sizeof lab, "%.60s GNN", e->lm[i].model);
            eval_metrics_print(f, lab, &e->lm[i].gnn);
            eval_metrics_print(f, "  teacher alone", &e->lm[i].teacher);
        }
        eval_metrics_print(f, "all held-out GNN", &e->lm_g);
        eval_metrics_print(f, "  teacher alone", &e->lm_t);
    }
}

static int render(const struct eval_cli *e)
{
    const char *split = e->split_label ? e->split_label
                        : e->all_rows ? (e->data ? "all rows" : "fresh sample (400 rows, seed 4242)")
                                      : "random test split";
    if (e->co.json)
        return render_json(e, split);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        fprintf(stderr, "dippm: out of memory\n");
        return status_exit_code(ST_ENOMEM);
    }
    render_text(e, split, f);
    fclose(f);
    int rc = cli_emit(&e->co, buf, len);
    free(buf);
    return rc;
}

static int run(struct eval_cli *e)
{
    struct diag d = {0};
    if (predict_blas_probe(&d) || load_rows(e, &d))
        return cli_fail(&d);
    int rc;
    if (!e->lofo_only) {
        if ((rc = run_weights(e, &d)) >= 0)
            return rc;
    } else {
        e->wp = "(none: leave-one-family-out only)";
    }
    /* (b) leave one family out. */
    if (e->lofo) {
        struct train_opts o;
        train_opts_default(&o);
        if (!e->lofo_only)
            o.arch = e->m.arch;
        o.epochs = (int)e->lofo_epochs;
        o.seed = e->tr.o.seed; /* from scratch: not --teacher-weight's or --only's */
        o.order_weight = e->tr.o.order_weight;
        o.progress = !e->quiet;
        if (eval_lofo_run(&e->ds, &e->ts, &o, (int)e->lofo_train, (int)e->lofo_test, 20, &e->lr,
                          &e->n_lr, &d))
            return cli_fail(&d);
    }
    return render(e);
}

int cli_eval(int argc, char **argv)
{
    struct eval_cli e = {.order_tol = 0.01, .lofo_train = 3000, .lofo_test = 400,
                         .lofo_epochs = 12, .lomo_epochs = 20, .lomo_lr = 3e-4};
    cli_common_init(&e.co);
    cli_training_init(&e.tr);
    dataset_init(&e.ds);
    int rc = parse_args(&e, argc, argv);
    if (rc < 0 && e.kernels) {
        rc = cli_eval_kernels(&e.co, e.kernels, e.teacher_only, e.rows_csv, e.kfit,
                              e.params_out);
    } else if (rc < 0) {
        e.wp = e.co.weights;
        rc = run(&e);
    }
    free(e.lr);
    free(e.lm);
    gnn_model_fini(&e.m);
    train_set_fini(&e.ts);
    dataset_fini(&e.ds);
    return rc;
}
