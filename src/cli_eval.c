/* cli_eval.c - `dippm eval`: accuracy of the GNN on the random test split
 * and leave-one-family-out splits. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "dataset.h"
#include "datafile.h"
#include "eval.h"
#include "fileio.h"
#include "jsonw.h"
#include "predict.h"
#include "textsafe.h"
#include "train.h"
#include "weights.h"
#include "xalloc.h"

static void usage(void)
{
    printf("Usage: dippm eval [--weights W] [--data FILE] [--json] [--lofo]\n"
           "                  [--lofo-train N] [--lofo-test N] [--lofo-epochs E] [--seed S]\n"
           "Reports MAPE, median absolute percentage error and the share of rows within\n"
           "+-10%% for latency, energy and memory:\n"
           "  (a) the weights on the random test split of FILE (rows the training held out);\n"
           "      without --data, on 400 freshly sampled teacher-labelled rows (seed 4242);\n"
           "  (b) with --lofo, leave-one-family-out: for each family in FILE a model is trained\n"
           "      on at most N rows of the other families (default 3000) for E epochs\n"
           "      (default 12) and tested on at most 400 rows of the held-out family.\n"
           "  --rows CSV     also write every evaluated row with its prediction (replaces\n"
           "                 an existing file only with --force)\n"
           "  --lofo-only    only (b); no weights needed\n"
           "  --all-rows     evaluate every row of FILE (e.g. measured data), not the split\n"
           "  --orderings    also count ordering violations of the weights and of the teacher\n"
           "                 over a grid: each zoo family x batch 1..1024 x every GPU and MIG\n"
           "                 slice x every supported precision and runtime (pairs that differ\n"
           "                 in batch, slice, GPU generation, precision or runtime)\n"
           "  --order-families L  comma list of zoo families for the grid (default all)\n"
           "  --lomo         leave-one-model-out on the measured rows of FILE: for each model\n"
           "                 the weights are fine-tuned on every other row (teacher rows as\n"
           "                 the regulariser) and tested on that model's rows, beside the\n"
           "                 teacher alone; --lomo-epochs E (default 20)\n"
           "  --order-tol PCT     violations are counted beyond PCT percent (default 1)\n"
           "  --quiet        no progress messages\n"
           "Labels are the teacher's (simulated) unless the data holds measured rows.\n");
}

enum { OPT_DATA = CLI_OPT__OWN, OPT_LOFO, OPT_LTRAIN, OPT_LTEST, OPT_LEPOCHS, OPT_SEED,
       OPT_QUIET, OPT_ALL, OPT_ROWS, OPT_LOFO_ONLY, OPT_ORDER, OPT_ORDER_FAM, OPT_ORDER_TOL, OPT_LOMO, OPT_LOMO_EPOCHS };

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
        jsonw_key(w, "model");
        jsonw_str(w, r[i].model);
        jsonw_key(w, "train_rows");
        jsonw_int(w, r[i].n_train);
        jsonw_key(w, "test_rows");
        jsonw_int(w, r[i].n_test);
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
    jsonw_key(w, "tolerance_pct");
    jsonw_fixed(w, o->tol * 100, 3);
    jsonw_key(w, "graphs");
    jsonw_int(w, o->n_graphs);
    for (int k = 0; k < EVAL_ORDER__COUNT; k++) {
        const struct eval_order_count *c = &o->kind[k];
        jsonw_key(w, eval_order_name(k));
        jsonw_obj_begin(w);
        jsonw_key(w, "property");
        jsonw_str(w, eval_order_desc(k));
        jsonw_key(w, "pairs");
        jsonw_int(w, c->pairs);
        jsonw_key(w, "gnn_violations");
        jsonw_int(w, c->gnn);
        jsonw_key(w, "gnn_worst_pct");
        jsonw_fixed(w, c->gnn_worst * 100, 3);
        jsonw_key(w, "teacher_violations");
        jsonw_int(w, c->teacher);
        jsonw_key(w, "teacher_worst_pct");
        jsonw_fixed(w, c->teacher_worst * 100, 3);
        jsonw_obj_end(w);
    }
    jsonw_obj_end(w);
}

static void order_print(FILE *f, const struct eval_order *o)
{
    fprintf(f, "orderings over %d zoo graphs (violations beyond %.2f%%):\n", o->n_graphs,
            o->tol * 100);
    fprintf(f, "  %-10s %9s %9s %8s %9s %8s\n", "property", "pairs", "GNN", "worst", "teacher",
            "worst");
    for (int k = 0; k < EVAL_ORDER__COUNT; k++) {
        const struct eval_order_count *c = &o->kind[k];
        fprintf(f, "  %-10s %9ld %9ld %7.2f%% %9ld %7.2f%%\n", eval_order_name(k), c->pairs,
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
        fprintf(stderr, "dippm: %s: out of memory\n", path);
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

int cli_eval(int argc, char **argv)
{
    static const struct option opts[] = {
        CLI_COMMON_LONGOPTS,
        {"data", required_argument, NULL, OPT_DATA},
        {"lofo", no_argument, NULL, OPT_LOFO},
        {"lofo-train", required_argument, NULL, OPT_LTRAIN},
        {"lofo-test", required_argument, NULL, OPT_LTEST},
        {"lofo-epochs", required_argument, NULL, OPT_LEPOCHS},
        {"seed", required_argument, NULL, OPT_SEED},
        {"quiet", no_argument, NULL, OPT_QUIET},
        {"all-rows", no_argument, NULL, OPT_ALL},
        {"rows", required_argument, NULL, OPT_ROWS},
        {"lofo-only", no_argument, NULL, OPT_LOFO_ONLY},
        {"orderings", no_argument, NULL, OPT_ORDER},
        {"lomo", no_argument, NULL, OPT_LOMO},
        {"lomo-epochs", required_argument, NULL, OPT_LOMO_EPOCHS},
        {"order-families", required_argument, NULL, OPT_ORDER_FAM},
        {"order-tol", required_argument, NULL, OPT_ORDER_TOL},
        {NULL, 0, NULL, 0},
    };
    struct cli_common co;
    cli_common_init(&co);
    const char *data = NULL, *rows_csv = NULL, *split_label = NULL;
    bool lofo = false, quiet = false, all_rows = false, lofo_only = false, orderings = false;
    const char *order_fams = NULL;
    double order_tol = 0.01;
    struct eval_order ord = {0};
    int64_t ltrain = 3000, ltest = 400, lepochs = 12, seed = 1, lomo_epochs = 20;
    bool lomo = false;
    struct eval_lomo *lm = NULL;
    int n_lm = 0;
    struct eval_metrics lm_g, lm_t;
    int c;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        int r = cli_common_opt(&co, c, optarg);
        if (r < 0)
            return 2;
        if (r > 0)
            continue;
        switch (c) {
        case 'h':
        case CLI_OPT_HELP: usage(); return 0;
        case OPT_DATA: data = optarg; break;
        case OPT_LOFO: lofo = true; break;
        case OPT_LOFO_ONLY: lofo = lofo_only = true; break;
        case OPT_QUIET: quiet = true; break;
        case OPT_ALL: all_rows = true; break;
        case OPT_ROWS: rows_csv = optarg; break;
        case OPT_ORDER: orderings = true; break;
        case OPT_LOMO: lomo = true; break;
        case OPT_ORDER_FAM: order_fams = optarg; break;
        case OPT_ORDER_TOL: {
            char *end;
            order_tol = strtod(optarg, &end) / 100;
            if (end == optarg || *end || !(order_tol >= 0 && order_tol <= 1))
                return cli_usage_error("eval", "--order-tol '%s': expected a percentage from 0 "
                                       "to 100", optarg);
            break;
        }
        case OPT_LTRAIN:
        case OPT_LTEST:
        case OPT_LEPOCHS:
        case OPT_LOMO_EPOCHS:
        case OPT_SEED: {
            int64_t *dst = c == OPT_LTRAIN ? &ltrain : c == OPT_LTEST ? &ltest
                           : c == OPT_LEPOCHS ? &lepochs : c == OPT_LOMO_EPOCHS ? &lomo_epochs
                                                                              : &seed;
            if (cli_parse_int(optarg, c == OPT_SEED ? 0 : 1, 100000000, dst))
                return cli_usage_error("eval", "'%s': expected a positive integer", optarg);
            break;
        }
        default: return cli_usage_error("eval", "unknown option");
        }
    }
    if (optind < argc)
        return cli_usage_error("eval", "unexpected argument '%s'", argv[optind]);
    if (lofo && !data)
        return cli_usage_error("eval", "--lofo needs --data FILE (it retrains per family)");
    if (lomo && (!data || lofo_only))
        return cli_usage_error("eval", "--lomo needs --data FILE with measured rows and weights");
    if (orderings && lofo_only)
        return cli_usage_error("eval", "--orderings needs weights; it cannot go with --lofo-only");

    struct diag d = {0};
    struct dataset ds;
    dataset_init(&ds);
    struct train_set ts = {0};
    struct gnn_model m = {0};
    struct eval_lofo *lr = NULL;
    int n_lr = 0, rc = 0, n_te = 0;
    int *te = NULL;
    char desc[WEIGHTS_DESC_MAX] = "";
    char wpath[1024];
    struct jsonw w;
    jsonw_init(&w, true);
    if (predict_blas_probe(&d))
        goto fail;
    if (data) {
        if (dataset_load(&ds, data, &d))
            goto fail;
    } else {
        struct dataset_gen_opts go = {0};
        go.n = 400;
        go.seed = 4242;
        go.n_shards = 1;
        go.configs_per_graph = 4;
        char samples_dir[1024];
        go.samples_dir = datafile_find(DATAFILE_SAMPLES, NULL, samples_dir, sizeof samples_dir);
        if (!go.samples_dir) {
            char where[2048];
            diag_set(&d, ST_ENOTFOUND, "no samples directory (looked in %s); use --data FILE",
                     datafile_searched(DATAFILE_SAMPLES, NULL, where, sizeof where));
            goto fail;
        }
        char *buf = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&buf, &len);
        long nw;
        enum status st = dataset_generate(&go, mem, &nw, &d);
        fclose(mem);
        char tmpl[] = "/tmp/dippm-eval-XXXXXX";
        int fd = st ? -1 : mkstemp(tmpl);
        if (!st && fd >= 0) {
            FILE *f = fdopen(fd, "wb");
            fwrite(buf, 1, len, f);
            fclose(f);
            st = dataset_load(&ds, tmpl, &d);
            remove(tmpl);
        } else if (!st) {
            st = diag_set(&d, ST_EIO, "cannot create a temporary file");
        }
        free(buf);
        if (st)
            goto fail;
        all_rows = true;
    }
    if (!lofo && !all_rows && !lomo) { /* only the test split is needed: prepare those rows */
        struct dataset sub;
        dataset_init(&sub);
        for (int i = 0; i < ds.n; i++)
            if (dataset_row_is_test(&ds.rows[i]))
                dataset_add(&sub, &ds.rows[i]);
        dataset_fini(&ds);
        ds = sub;
        all_rows = true;
        split_label = "random test split";
    }
    /* Leave-one-family-out trains as `dippm train` does, ordering pairs included. */
    if (train_prepare(&ds, &ts, lofo || lomo ? 0.25 : 0, !quiet, &d))
        goto fail;
    /* (a) the weights on the test split. */
    struct eval_metrics met, met_teacher;
    const char *wp = co.weights;
    if (!lofo_only) {
        if (!wp && !(wp = datafile_weights(wpath, sizeof wpath))) {
            char where[2048];
            diag_set(&d, ST_ENOTFOUND, "no GNN weights found (looked for %s); use --weights FILE",
                     datafile_searched(DATAFILE_WEIGHTS, DATAFILE_WEIGHTS_NAME, where,
                                       sizeof where));
            goto fail;
        }
        if (weights_load(wp, gnn_features_schema_id(), &m, desc, sizeof desc, &d))
            goto fail;
        if (all_rows) {
            te = malloc(sizeof(int) * (size_t)ds.n);
            for (int i = 0; i < ds.n; i++)
                te[i] = i;
            n_te = ds.n;
        } else {
            te = eval_split(&ds, true, &n_te);
        }
        eval_model(&m, &ts, te, n_te, &met);
        eval_teacher(&ts, te, n_te, &met_teacher);
        if (rows_csv && (rc = write_rows_csv(rows_csv, co.force, &ds, &ts, &m, te, n_te)))
            goto out;
        if (lomo) {
            struct train_opts o;
            train_opts_default(&o);
            o.epochs = (int)lomo_epochs;
            o.lr = 3e-4f; /* fine-tuning, as `dippm train --init` */
            o.seed = (uint64_t)seed;
            o.progress = !quiet;
            if (eval_lomo_run(&ds, &ts, &m, &o, &lm, &n_lm, &lm_g, &lm_t, &d))
                goto fail;
        }
        if (orderings) {
            struct predictor *p = predictor_new(wp, &d);
            if (!p)
                goto fail;
            enum status st = eval_order_run(p, order_fams, order_tol, &ord, &d);
            predictor_free(p);
            if (st)
                goto fail;
        }
    } else {
        wp = "(none: leave-one-family-out only)";
    }
    /* (b) leave one family out. */
    if (lofo) {
        struct train_opts o;
        train_opts_default(&o);
        if (!lofo_only)
            o.arch = m.arch;
        o.epochs = (int)lepochs;
        o.seed = (uint64_t)seed;
        o.progress = !quiet;
        if (eval_lofo_run(&ds, &ts, &o, (int)ltrain, (int)ltest, 20, &lr, &n_lr, &d))
            goto fail;
    }
    const char *split = split_label ? split_label
                        : all_rows ? (data ? "all rows" : "fresh sample (400 rows, seed 4242)")
                                   : "random test split";
    if (co.json) {
        jsonw_obj_begin(&w);
        jsonw_key(&w, "weights");
        jsonw_str(&w, wp);
        jsonw_key(&w, "description");
        jsonw_str(&w, desc);
        jsonw_key(&w, "data");
        jsonw_str(&w, data ? data : "generated");
        jsonw_key(&w, "split");
        jsonw_str(&w, split);
        if (!lofo_only) {
            jsonw_key(&w, "test");
            eval_metrics_json(&w, &met);
            jsonw_key(&w, "teacher_on_test");
            eval_metrics_json(&w, &met_teacher);
        }
        if (orderings) {
            jsonw_key(&w, "orderings");
            order_json(&w, &ord);
        }
        if (lomo) {
            jsonw_key(&w, "leave_one_model_out");
            lomo_json(&w, lm, n_lm, &lm_g, &lm_t);
        }
        if (lofo) {
            jsonw_key(&w, "leave_one_family_out");
            jsonw_obj_begin(&w);
            jsonw_key(&w, "train_rows_max");
            jsonw_int(&w, ltrain);
            jsonw_key(&w, "epochs");
            jsonw_int(&w, lepochs);
            jsonw_key(&w, "families");
            jsonw_arr_begin(&w, false);
            for (int i = 0; i < n_lr; i++) {
                jsonw_obj_begin(&w);
                jsonw_key(&w, "family");
                jsonw_str(&w, lr[i].family);
                jsonw_key(&w, "train_rows");
                jsonw_int(&w, lr[i].n_train);
                jsonw_key(&w, "test_rows");
                jsonw_int(&w, lr[i].n_test);
                jsonw_key(&w, "metrics");
                eval_metrics_json(&w, &lr[i].m);
                jsonw_obj_end(&w);
            }
            jsonw_arr_end(&w);
            jsonw_obj_end(&w);
        }
        jsonw_obj_end(&w);
        size_t l;
        char *js = jsonw_take(&w, &l);
        js = realloc(js, l + 2);
        js[l++] = '\n';
        rc = cli_emit(&co, js, l);
        free(js);
    } else {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        fprintf(f, "weights: %s (%s)\n", wp, desc);
        int n_meas = 0;
        for (int i = 0; i < ds.n; i++)
            n_meas += ds.rows[i].label == DATASET_MEASURED;
        fprintf(f, "labels: %d rows from the teacher (analytic GPU model: simulated, not "
                   "measured), %d measured rows\n", ds.n - n_meas, n_meas);
        fprintf(f, "%-22s %-8s %6s %9s %9s %9s\n", "split", "target", "n", "MAPE", "median",
                "within10");
        if (!lofo_only) {
            eval_metrics_print(f, split, &met);
            eval_metrics_print(f, "  teacher alone", &met_teacher);
        }
        for (int i = 0; i < n_lr; i++) {
            char lab[96];
            snprintf(lab, sizeof lab, "without %s", lr[i].family);
            eval_metrics_print(f, lab, &lr[i].m);
        }
        if (lofo)
            fprintf(f, "(leave-one-family-out: at most %lld training rows, %lld epochs each)\n",
                    (long long)ltrain, (long long)lepochs);
        if (orderings)
            order_print(f, &ord);
        if (lomo) {
            fprintf(f, "leave-one-model-out on measured rows (fine-tuned %lld epochs each):\n",
                    (long long)lomo_epochs);
            for (int i = 0; i < n_lm; i++) {
                char lab[96];
                snprintf(lab, sizeof lab, "%.60s GNN", lm[i].model);
                eval_metrics_print(f, lab, &lm[i].gnn);
                eval_metrics_print(f, "  teacher alone", &lm[i].teacher);
            }
            eval_metrics_print(f, "all held-out GNN", &lm_g);
            eval_metrics_print(f, "  teacher alone", &lm_t);
        }
        fclose(f);
        rc = cli_emit(&co, buf, len);
        free(buf);
    }
    goto out;
fail:
    rc = cli_fail(&d);
out:
    jsonw_fini(&w);
    free(lr);
    free(lm);
    free(te);
    gnn_model_fini(&m);
    train_set_fini(&ts);
    dataset_fini(&ds);
    return rc;
}
