/* cli_train.c - `dippm train`: fit the GNN (or fine-tune with --init) and
 * write the weight file plus its JSON manifest. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "dataset.h"
#include "eval.h"
#include "fileio.h"
#include "jsonw.h"
#include "predict.h"
#include "train.h"
#include "weights.h"
#include "xalloc.h"

#define MAX_DATA 16
#define TEACHER_SOURCE "teacher: analytic model calibrated on published A100, MIG, H100 and H200 measurements"

static void usage(void)
{
    printf("Usage: dippm train --data FILE [--data FILE...] -o OUT.dpw [--epochs E] [--seed S]\n"
           "                   [--init W.dpw] [--lr LR] [--batch-graphs B] [--hidden H]\n"
           "                   [--layers L] [--head H] [--share-weight W] [--teacher-weight W]\n"
           "                   [--order-weight W] [--order-pairs F] [--all] [--force]\n"
           "Trains the GNN on dataset rows (dippm dataset, or measured JSONL rows) and writes\n"
           "OUT.dpw and its manifest OUT.json (data, seed, command, time, test metrics).\n"
           "Rows of the random test split are held out unless --all is given.\n"
           "  --init W       fine-tune the weights in W (keeps its architecture and\n"
           "                 normalisation; default lr 3e-4)\n"
           "  --epochs E     passes over the data (default 30)\n"
           "  --teacher-weight W  loss weight of teacher-labelled rows when measured rows are\n"
           "                 present: the teacher as a regulariser (default 0.1)\n"
           "  --order-weight W    weight of the ordering penalty (default 1; 0 = off)\n"
           "  --order-pairs F     fraction of rows given an ordering partner: the same model\n"
           "                 at half the batch, the whole GPU, a lower precision or TensorRT,\n"
           "                 which must not be predicted slower (default 0.25)\n"

           "  --quiet        no progress messages\n");
}

enum { OPT_DATA = CLI_OPT__OWN, OPT_EPOCHS, OPT_SEED, OPT_INIT, OPT_LR, OPT_BG, OPT_HIDDEN,
       OPT_LAYERS, OPT_HEAD, OPT_SHW, OPT_ALL, OPT_QUIET, OPT_TW, OPT_OW, OPT_OPAIRS };

static void write_manifest(struct jsonw *w, const char *out, int argc, char **argv,
                           const char **data, int n_data, const struct dataset *ds, int n_train,
                           int n_test, const struct train_opts *o, const struct gnn_model *m,
                           const char *init, double wall_s, const struct eval_metrics *met,
                           int n_pairs)
{
    jsonw_obj_begin(w);
    jsonw_key(w, "weights");
    const char *base = strrchr(out, '/');
    jsonw_str(w, base ? base + 1 : out);
    jsonw_key(w, "format_version");
    jsonw_int(w, WEIGHTS_VERSION);
    char hex[32];
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)gnn_features_schema_id());
    jsonw_key(w, "feature_schema");
    jsonw_str(w, hex);
    jsonw_key(w, "architecture");
    jsonw_obj_begin(w);
    jsonw_key(w, "node_features");
    jsonw_int(w, m->arch.fn);
    jsonw_key(w, "graph_features");
    jsonw_int(w, m->arch.fg);
    jsonw_key(w, "hidden");
    jsonw_int(w, m->arch.hidden);
    jsonw_key(w, "message_passing_layers");
    jsonw_int(w, m->arch.layers);
    jsonw_key(w, "head_hidden");
    jsonw_int(w, m->arch.head_hidden);
    jsonw_key(w, "parameters");
    jsonw_int(w, (int64_t)m->n_params);
    jsonw_key(w, "anchor");
    jsonw_str(w, "corrections to the teacher: per-node log time factors and per-graph log "
                 "corrections of latency, energy and memory (src/gnn.h)");
    jsonw_key(w, "correction_bounds");
    jsonw_obj_begin(w);
    for (int t = 0; t < GNN_T__COUNT; t++) {
        jsonw_key(w, gnn_target_name(t));
        jsonw_fixed(w, m->bound[t], 4);
    }
    jsonw_key(w, "node");
    jsonw_fixed(w, m->node_bound, 4);
    jsonw_obj_end(w);
    jsonw_obj_end(w);
    int n_meas = 0;
    for (int i = 0; i < ds->n; i++)
        n_meas += ds->rows[i].label == DATASET_MEASURED;
    jsonw_key(w, "training_data");
    jsonw_obj_begin(w);
    jsonw_key(w, "files");
    jsonw_arr_begin(w, true);
    for (int i = 0; i < n_data; i++)
        jsonw_str(w, data[i]);
    jsonw_arr_end(w);
    jsonw_key(w, "rows");
    jsonw_int(w, ds->n);
    jsonw_key(w, "train_rows");
    jsonw_int(w, n_train);
    jsonw_key(w, "test_rows");
    jsonw_int(w, n_test);
    jsonw_key(w, "label_sources");
    jsonw_arr_begin(w, false);
    if (n_meas < ds->n)
        jsonw_str(w, TEACHER_SOURCE);
    if (n_meas)
        jsonw_str(w, "measured: rows of real GPU measurements (dippm measured JSONL)");
    jsonw_arr_end(w);
    jsonw_key(w, "measured_rows");
    jsonw_int(w, n_meas);
    jsonw_key(w, "families");
    jsonw_obj_begin(w);
    for (int i = 0; i < ds->n; i++) {
        int first = 1;
        for (int j = 0; j < i && first; j++)
            first = strcmp(ds->rows[j].family, ds->rows[i].family) != 0;
        if (!first)
            continue;
        int cnt = 0;
        for (int j = i; j < ds->n; j++)
            cnt += strcmp(ds->rows[j].family, ds->rows[i].family) == 0;
        jsonw_key(w, ds->rows[i].family);
        jsonw_int(w, cnt);
    }
    jsonw_obj_end(w);
    jsonw_obj_end(w);
    jsonw_key(w, "init");
    if (init)
        jsonw_str(w, init);
    else
        jsonw_null(w);
    jsonw_key(w, "seed");
    jsonw_int(w, (int64_t)o->seed);
    jsonw_key(w, "epochs");
    jsonw_int(w, o->epochs);
    jsonw_key(w, "batch_graphs");
    jsonw_int(w, o->batch_graphs);
    jsonw_key(w, "lr");
    jsonw_num(w, o->lr, true);
    jsonw_key(w, "share_weight");
    jsonw_num(w, o->share_weight, true);
    jsonw_key(w, "teacher_weight");
    jsonw_num(w, o->teacher_weight, true);
    jsonw_key(w, "order_weight");
    jsonw_num(w, o->order_weight, true);
    jsonw_key(w, "order_pairs");
    jsonw_int(w, n_pairs);
    jsonw_key(w, "command");
    char cmd[4096];
    size_t p = (size_t)snprintf(cmd, sizeof cmd, "dippm");
    for (int i = 0; i < argc && p < sizeof cmd; i++)
        p += (size_t)snprintf(cmd + p, sizeof cmd - p, " %s", argv[i]);
    jsonw_str(w, cmd);
    jsonw_key(w, "wall_time_s");
    jsonw_fixed(w, wall_s, 1);
    time_t now = time(NULL);
    char ts[32];
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    jsonw_key(w, "trained_at");
    jsonw_str(w, ts);
    jsonw_key(w, "test_split");
    jsonw_str(w, "random 10% of rows by a hash of model + configuration (dataset_row_is_test)");
    jsonw_key(w, "metrics_test_split");
    if (met)
        eval_metrics_json(w, met);
    else
        jsonw_null(w);
    jsonw_obj_end(w);
}

int cli_train(int argc, char **argv)
{
    static const struct option opts[] = {
        CLI_COMMON_LONGOPTS,
        {"data", required_argument, NULL, OPT_DATA},
        {"epochs", required_argument, NULL, OPT_EPOCHS},
        {"seed", required_argument, NULL, OPT_SEED},
        {"init", required_argument, NULL, OPT_INIT},
        {"lr", required_argument, NULL, OPT_LR},
        {"batch-graphs", required_argument, NULL, OPT_BG},
        {"hidden", required_argument, NULL, OPT_HIDDEN},
        {"layers", required_argument, NULL, OPT_LAYERS},
        {"head", required_argument, NULL, OPT_HEAD},
        {"share-weight", required_argument, NULL, OPT_SHW},
        {"teacher-weight", required_argument, NULL, OPT_TW},
        {"order-weight", required_argument, NULL, OPT_OW},
        {"order-pairs", required_argument, NULL, OPT_OPAIRS},
        {"all", no_argument, NULL, OPT_ALL},
        {"quiet", no_argument, NULL, OPT_QUIET},
        {NULL, 0, NULL, 0},
    };
    struct cli_common co;
    cli_common_init(&co);
    struct train_opts o;
    train_opts_default(&o);
    o.progress = true;
    const char *data[MAX_DATA], *init = NULL;
    int n_data = 0, c;
    bool all = false, lr_set = false;
    double pair_frac = 0.25;
    int64_t v;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        int r = cli_common_opt(&co, c, optarg);
        if (r < 0)
            return 2;
        if (r > 0)
            continue;
        switch (c) {
        case 'h':
        case CLI_OPT_HELP: usage(); return 0;
        case OPT_DATA:
            if (n_data == MAX_DATA)
                return cli_usage_error("train", "at most %d --data files", MAX_DATA);
            data[n_data++] = optarg;
            break;
#define INTOPT(ID, FIELD, LO, HI)                                                             \
    case ID:                                                                                  \
        if (cli_parse_int(optarg, LO, HI, &v))                                                \
            return cli_usage_error("train", "%s '%s': expected %d to %d", argv[optind - 1],   \
                                   optarg, LO, HI);                                           \
        FIELD = (int)v;                                                                       \
        break;
            INTOPT(OPT_EPOCHS, o.epochs, 1, 100000)
            INTOPT(OPT_BG, o.batch_graphs, 1, 4096)
            INTOPT(OPT_HIDDEN, o.arch.hidden, 1, GNN_MAX_WIDTH)
            INTOPT(OPT_LAYERS, o.arch.layers, 0, GNN_MAX_LAYERS)
            INTOPT(OPT_HEAD, o.arch.head_hidden, 1, GNN_MAX_WIDTH)
#undef INTOPT
        case OPT_SEED:
            if (cli_parse_int(optarg, 0, INT64_MAX, &v))
                return cli_usage_error("train", "--seed '%s': expected a non-negative integer",
                                       optarg);
            o.seed = (uint64_t)v;
            break;
        case OPT_LR:
        case OPT_SHW:
        case OPT_TW:
        case OPT_OW:
        case OPT_OPAIRS: {
            char *end;
            double x = strtod(optarg, &end);
            double hi = c == OPT_OPAIRS ? 1 : 10;
            if (end == optarg || *end || !(x >= 0 && x <= hi && (hi == 1 || x < 10)))
                return cli_usage_error("train", "%s '%s': expected a number from 0 to %g",
                                       argv[optind - 1], optarg, hi);
            if (c == OPT_LR) {
                o.lr = (float)x;
                lr_set = true;
            } else if (c == OPT_SHW) {
                o.share_weight = (float)x;
            } else if (c == OPT_TW) {
                o.teacher_weight = (float)x;
            } else if (c == OPT_OW) {
                o.order_weight = (float)x;
            } else {
                pair_frac = x;
            }
            break;
        }
        case OPT_INIT: init = optarg; break;
        case OPT_ALL: all = true; break;
        case OPT_QUIET: o.progress = false; break;
        default: return cli_usage_error("train", "unknown option");
        }
    }
    if (optind < argc)
        return cli_usage_error("train", "unexpected argument '%s'", argv[optind]);
    if (!n_data)
        return cli_usage_error("train", "no training data: use --data FILE");
    if (!co.output)
        return cli_usage_error("train", "no output: use -o OUT.dpw");
    /* the manifest goes next to the weights: OUT.dpw -> OUT.json */
    size_t mlen = strlen(co.output) + 8;
    char *manifest = xmalloc(mlen);
    snprintf(manifest, mlen, "%s", co.output);
    char *dot = strrchr(manifest, '.');
    if (dot && !strchr(dot, '/'))
        *dot = 0;
    strcat(manifest, ".json");
    if (!strcmp(manifest, co.output)) {
        free(manifest);
        return cli_usage_error("train", "-o %s: the training manifest would be written to the "
                               "same file; name the weights OUT.dpw", co.output);
    }
    for (int i = 0; i < 2; i++) {
        const char *p = i ? manifest : co.output;
        if (!co.force && file_exists(p)) {
            fprintf(stderr, "dippm: %s exists%s (use --force to overwrite)\n", p,
                    i ? ", where the training manifest goes" : "");
            free(manifest);
            return 9;
        }
    }
    if (init && !lr_set)
        o.lr = 3e-4f;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct diag d = {0};
    struct dataset ds;
    dataset_init(&ds);
    struct train_set ts = {0};
    struct gnn_model m = {0};
    int rc = 0, n_tr = 0, n_te = 0;
    int *tr = NULL, *te = NULL;
    unsigned char *wbuf = NULL;
    char *js = NULL;
    if (predict_blas_probe(&d))
        goto fail;
    for (int i = 0; i < n_data; i++)
        if (dataset_load(&ds, data[i], &d))
            goto fail;
    if (o.progress)
        fprintf(stderr, "dippm train: %d rows from %d file(s)\n", ds.n, n_data);
    if (train_prepare(&ds, &ts, o.order_weight > 0 ? pair_frac : 0, o.progress, &d))
        goto fail;
    if (init && weights_load(init, gnn_features_schema_id(), &m, NULL, 0, &d))
        goto fail;
    te = eval_split(&ds, true, &n_te);
    if (all) {
        free(te);
        te = NULL;
        tr = eval_split(&ds, false, &n_tr);
        int n_t2;
        int *t2 = eval_split(&ds, true, &n_t2);
        tr = realloc(tr, sizeof(int) * (size_t)ds.n);
        memcpy(tr + n_tr, t2, sizeof(int) * (size_t)n_t2);
        n_tr += n_t2;
        free(t2);
        n_te = 0;
    } else {
        tr = eval_split(&ds, false, &n_tr);
    }
    if (o.progress)
        fprintf(stderr, "dippm train: %d training rows, %d test rows, %ld nodes, %d ordering "
                        "pairs\n", n_tr, n_te, ts.total_nodes, ts.n_partners);
    if (train_fit(&m, init != NULL, &ts, tr, n_tr, &o, &d))
        goto fail;
    struct eval_metrics met;
    char desc[WEIGHTS_DESC_MAX];
    int n_meas = 0;
    for (int i = 0; i < ds.n; i++)
        n_meas += ds.rows[i].label == DATASET_MEASURED;
    const char *lab = n_meas == 0 ? "teacher labels" : n_meas == ds.n ? "measured labels"
                                                                      : "teacher + measured labels";
    if (n_te) {
        eval_model(&m, &ts, te, n_te, &met);
        snprintf(desc, sizeof desc, "%s, test MAPE latency %.2f%%, energy %.2f%%, memory %.2f%%",
                 lab, met.mape[0], met.mape[1], met.mape[2]);
        if (o.progress) {
            fprintf(stderr, "%-22s %-8s %6s %9s %9s %9s\n", "split", "target", "n", "MAPE",
                    "median", "within10");
            eval_metrics_print(stderr, "random test split", &met);
        }
    } else {
        snprintf(desc, sizeof desc, "%s, trained on all rows (no test split)", lab);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    struct jsonw w;
    jsonw_init(&w, true);
    write_manifest(&w, co.output, argc, argv, data, n_data, &ds, n_tr, n_te, &o, &m, init, wall,
                   n_te ? &met : NULL, ts.n_partners);
    size_t jl, wlen;
    js = jsonw_take(&w, &jl);
    js = xrealloc(js, jl + 2);
    js[jl++] = '\n';
    weights_encode(&m, gnn_features_schema_id(), desc, &wbuf, &wlen);
    /* weights and manifest land together or not at all */
    const char *paths[2] = {co.output, manifest};
    const void *bufs[2] = {wbuf, js};
    size_t lens[2] = {wlen, jl};
    if (file_write_atomic_n(2, paths, bufs, lens, co.force, &d))
        goto fail;
    if (o.progress)
        fprintf(stderr, "dippm train: wrote %s and %s in %.0f s\n", co.output, manifest, wall);
    goto out;
fail:
    rc = cli_fail(&d);
out:
    free(manifest);
    free(wbuf);
    free(js);
    free(tr);
    free(te);
    gnn_model_fini(&m);
    train_set_fini(&ts);
    dataset_fini(&ds);
    return rc;
}
