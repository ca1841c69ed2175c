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
#include "jsonw.h"
#include "train.h"
#include "weights.h"

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
           "  --rows CSV     also write every evaluated row with its prediction\n"
           "  --lofo-only    only (b); no weights needed\n"
           "  --all-rows     evaluate every row of FILE (e.g. measured data), not the split\n"
           "  --quiet        no progress messages\n"
           "Labels are the teacher's (simulated) unless the data holds measured rows.\n");
}

enum { OPT_DATA = CLI_OPT__OWN, OPT_LOFO, OPT_LTRAIN, OPT_LTEST, OPT_LEPOCHS, OPT_SEED,
       OPT_QUIET, OPT_ALL, OPT_ROWS, OPT_LOFO_ONLY };

/* Per-row predictions of the evaluated rows as CSV (for error analysis). */
static int write_rows_csv(const char *path, const struct dataset *ds, const struct train_set *ts,
                          const struct gnn_model *m, const int *idx, int n)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "dippm: %s: cannot write\n", path);
        return 3;
    }
    double *pred = malloc(sizeof(double) * GNN_T__COUNT * (size_t)(n > 0 ? n : 1));
    train_predict(m, ts, idx, n, pred);
    fprintf(f, "row,family,label,gpu,mig,precision,runtime,batch,nodes,latency_ms,pred_latency_ms,"
               "energy_j,pred_energy_j,memory_mib,pred_memory_mib,spec\n");
    for (int i = 0; i < n; i++) {
        const struct dataset_row *r = &ds->rows[idx[i]];
        fprintf(f, "%d,%s,%s,%s,%s,%s,%s,%lld,%d", idx[i] + 1, r->family,
                r->label == DATASET_MEASURED ? "measured" : "teacher", r->gpu, r->mig,
                precision_name(r->prec), runtime_name(r->rt), (long long)r->batch,
                ts->s[idx[i]].n);
        for (int t = 0; t < GNN_T__COUNT; t++)
            fprintf(f, ",%.6g,%.6g", r->target[t], pred[(size_t)i * GNN_T__COUNT + t]);
        fprintf(f, ",\"%s\"\n", r->spec);
    }
    free(pred);
    return fclose(f) == 0 ? 0 : 3;
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
        {NULL, 0, NULL, 0},
    };
    struct cli_common co;
    cli_common_init(&co);
    const char *data = NULL, *rows_csv = NULL, *split_label = NULL;
    bool lofo = false, quiet = false, all_rows = false, lofo_only = false;
    int64_t ltrain = 3000, ltest = 400, lepochs = 12, seed = 1;
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
        case OPT_LTRAIN:
        case OPT_LTEST:
        case OPT_LEPOCHS:
        case OPT_SEED: {
            int64_t *dst = c == OPT_LTRAIN ? &ltrain : c == OPT_LTEST ? &ltest
                           : c == OPT_LEPOCHS ? &lepochs : &seed;
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
    if (!lofo && !all_rows) { /* only the test split is needed: prepare just those rows */
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
    if (train_prepare(&ds, &ts, !quiet, &d))
        goto fail;
    /* (a) the weights on the test split. */
    struct eval_metrics met;
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
        if (rows_csv && (rc = write_rows_csv(rows_csv, &ds, &ts, &m, te, n_te)))
            goto out;
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
        if (!lofo_only)
            eval_metrics_print(f, split, &met);
        for (int i = 0; i < n_lr; i++) {
            char lab[96];
            snprintf(lab, sizeof lab, "without %s", lr[i].family);
            eval_metrics_print(f, lab, &lr[i].m);
        }
        if (lofo)
            fprintf(f, "(leave-one-family-out: at most %lld training rows, %lld epochs each)\n",
                    (long long)ltrain, (long long)lepochs);
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
    free(te);
    gnn_model_fini(&m);
    train_set_fini(&ts);
    dataset_fini(&ds);
    return rc;
}
