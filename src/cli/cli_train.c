/* cli_train.c - `dippm train`: fit the GNN (or fine-tune with --init) and
 * write the weight file plus its JSON manifest. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/cli_training.h"
#include "lab/dataset.h"
#include "lab/eval.h"
#include "util/fileio.h"
#include "util/jsonw.h"
#include "core/predict.h"
#include "lab/train.h"
#include "core/weights.h"
#include "util/xalloc.h"
#include "util/textsafe.h"

#define MAX_DATA 16
#define TEACHER_SOURCE "teacher: analytic model calibrated on published A100, MIG, H100 and H200 measurements"

enum { OPT_DATA = CLI_OPT__OWN, OPT_EPOCHS, OPT_INIT, OPT_LR, OPT_BATCH_GRAPHS, OPT_HIDDEN,
       OPT_LAYERS, OPT_HEAD, OPT_SHARE_WEIGHT, OPT_ALL, OPT_QUIET };

static const struct cli_opt train_opts[] = {
    {"data", 0, "FILE", "dataset rows to train on (dippm dataset, or measured JSONL rows); "
     "repeatable", OPT_DATA},
    {"epochs", 0, "E", "passes over the data (default 30)", OPT_EPOCHS},
    {"init", 0, "W", "fine-tune the weights in W (keeps its architecture and normalisation; "
     "default lr 3e-4)", OPT_INIT},
    {"lr", 0, "LR", "learning rate (default 3e-3)", OPT_LR},
    {"batch-graphs", 0, "B", "graphs per mini-batch (default 8)", OPT_BATCH_GRAPHS},
    {"hidden", 0, "H", "width of the node embeddings (default 24)", OPT_HIDDEN},
    {"layers", 0, "L", "message-passing layers (default 2)", OPT_LAYERS},
    {"head", 0, "H", "width of the head MLP (default 32)", OPT_HEAD},
    {"share-weight", 0, "W", "loss weight of the per-node time shares (default 0.2)",
     OPT_SHARE_WEIGHT},
    {"all", 0, NULL, "train on every row: no test split is held out", OPT_ALL},
    {"quiet", 0, NULL, "no progress messages", OPT_QUIET},
    {"output", 'o', "OUT.dpw", "the weight file (required); its manifest goes to OUT.json", 'o'},
    {"force", 0, NULL, "let the weights and the manifest replace existing files",
     CLI_OPT_FORCE},
    {NULL, 0, NULL, NULL, 0},
};

const struct cli_cmd cli_cmd_train = {
    .name = "train",
    .usage = "dippm train --data FILE [--data FILE...] -o OUT.dpw [--epochs E] [--seed S]\n"
             "                   [--init W.dpw] [--lr LR] [--batch-graphs B] [--hidden H]\n"
             "                   [--layers L] [--head H] [--share-weight W] [--teacher-weight W]\n"
             "                   [--order-weight W] [--order-pairs F] [--order-kinds K]\n"
             "                   [--only TARGET] [--all] [--force]",
    .about = "Trains the GNN on dataset rows (dippm dataset, or measured JSONL rows) and writes\n"
             "OUT.dpw and its manifest OUT.json (data, seed, command, time, test metrics).\n"
             "Rows of the random test split are held out unless --all is given.",
    .after = "--only needs --init: it fine-tunes one output of trained weights.",
    .groups = {train_opts, cli_training_opts},
};

/* The manifest's "architecture": the model's sizes and correction bounds. */
static void arch_json(struct jsonw *w, const struct gnn_model *m)
{
    jsonw_key(w, "architecture");
    jsonw_obj_begin(w);
    jsonw_key_int(w, "node_features", m->arch.fn);
    jsonw_key_int(w, "graph_features", m->arch.fg);
    jsonw_key_int(w, "hidden", m->arch.hidden);
    jsonw_key_int(w, "message_passing_layers", m->arch.layers);
    jsonw_key_int(w, "head_hidden", m->arch.head_hidden);
    jsonw_key_int(w, "parameters", (int64_t)m->n_params);
    jsonw_key(w, "anchor");
    jsonw_str(w, "corrections to the teacher: per-node log time factors and per-graph log "
                 "corrections of latency, energy and memory (src/core/gnn.h)");
    jsonw_key(w, "correction_bounds");
    jsonw_obj_begin(w);
    for (int t = 0; t < GNN_T__COUNT; t++) {
        jsonw_key_fixed(w, gnn_target_name(t), m->bound[t], 4);
    }
    jsonw_key_fixed(w, "node", m->node_bound, 4);
    jsonw_obj_end(w);
    jsonw_obj_end(w);
}

/* The manifest's "training_data": files, rows, label sources, families. */
static void data_json(struct jsonw *w, const char *const *data, int n_data,
                      const struct dataset *ds, int n_train, int n_test)
{
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
    jsonw_key_int(w, "rows", ds->n);
    jsonw_key_int(w, "train_rows", n_train);
    jsonw_key_int(w, "test_rows", n_test);
    jsonw_key(w, "label_sources");
    jsonw_arr_begin(w, false);
    if (n_meas < ds->n)
        jsonw_str(w, TEACHER_SOURCE);
    if (n_meas)
        jsonw_str(w, "measured: rows of real GPU measurements (dippm measured JSONL)");
    jsonw_arr_end(w);
    jsonw_key_int(w, "measured_rows", n_meas);
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
        jsonw_key_int(w, ds->rows[i].family, cnt);
    }
    jsonw_obj_end(w);
    jsonw_obj_end(w);
}

static void write_manifest(struct jsonw *w, const char *out, int argc, char **argv,
                           const char *const *data, int n_data, const struct dataset *ds,
                           int n_train, int n_test, const struct train_opts *o,
                           const struct gnn_model *m, const char *init, double wall_s,
                           const struct eval_metrics *met, int n_pairs)
{
    jsonw_obj_begin(w);
    jsonw_key(w, "weights");
    const char *base = strrchr(out, '/');
    jsonw_str(w, base ? base + 1 : out);
    jsonw_key_int(w, "format_version", WEIGHTS_VERSION);
    char hex[32];
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)gnn_features_schema_id());
    jsonw_key_str(w, "feature_schema", hex);
    arch_json(w, m);
    data_json(w, data, n_data, ds, n_train, n_test);
    jsonw_key(w, "init");
    if (init)
        jsonw_str(w, init);
    else
        jsonw_null(w);
    jsonw_key_int(w, "seed", (int64_t)o->seed);
    jsonw_key_int(w, "epochs", o->epochs);
    jsonw_key_int(w, "batch_graphs", o->batch_graphs);
    jsonw_key_num(w, "lr", o->lr, true);
    jsonw_key_num(w, "share_weight", o->share_weight, true);
    jsonw_key_num(w, "teacher_weight", o->teacher_weight, true);
    jsonw_key_num(w, "order_weight", o->order_weight, true);
    jsonw_key_int(w, "order_pairs", n_pairs);
    jsonw_key(w, "command");
    char cmd[4096];
    size_t p = (size_t)snprintf(cmd, sizeof cmd, "dippm");
    for (int i = 0; i < argc && p < sizeof cmd; i++)
        p += (size_t)snprintf(cmd + p, sizeof cmd - p, " %s", argv[i]);
    jsonw_str(w, cmd);
    jsonw_key_fixed(w, "wall_time_s", wall_s, 1);
    time_t now = time(NULL);
    char ts[32];
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    jsonw_key_str(w, "trained_at", ts);
    jsonw_key_str(w, "test_split",
                  "random 10% of rows by a hash of model + configuration (dataset_row_is_test)");
    jsonw_key(w, "metrics_test_split");
    if (met)
        eval_metrics_json(w, met);
    else
        jsonw_null(w);
    jsonw_obj_end(w);
}

/* What `dippm train` was asked for. */
struct train_cli {
    struct cli_common co;
    struct cli_training tr; /* its o: every option of the training */
    const char *data[MAX_DATA], *init;
    int n_data;
    bool all, lr_set;
};

/* "--NAME" of option value c, for messages. */
static const char *opt_name(int c)
{
    static char buf[48];
    for (const struct cli_opt *o = train_opts; o->name; o++)
        if (o->id == c) {
            snprintf(buf, sizeof buf, "--%s", o->name);
            return buf;
        }
    return "option";
}

/* --lr or --share-weight: a number from 0 to 10. */
static int real_opt(struct train_cli *t, int c, const char *name, const char *arg)
{
    char *end;
    double x = strtod(arg, &end);
    if (end == arg || *end || !(x >= 0 && x <= 10))
        return cli_usage_error("train", "%s '%s': expected a number from 0 to 10", name, arg);
    if (c == OPT_LR) {
        t->tr.o.lr = (float)x;
        t->lr_set = true;
    } else {
        t->tr.o.share_weight = (float)x;
    }
    return -1;
}

static int train_opt(void *ctx, int c, const char *arg)
{
    struct train_cli *t = ctx;
    int64_t v;
    switch (c) {
    case OPT_DATA:
        if (t->n_data == MAX_DATA)
            return cli_usage_error("train", "at most %d --data files", MAX_DATA);
        t->data[t->n_data++] = arg;
        return -1;
#define INTOPT(ID, FIELD, LO, HI)                                                             \
    case ID:                                                                                  \
        if (cli_parse_int(arg, LO, HI, &v))                                                   \
            return cli_usage_error("train", "%s '%s': expected %d to %d", opt_name(ID), arg,  \
                                   LO, HI);                                                   \
        FIELD = (int)v;                                                                       \
        return -1;
        INTOPT(OPT_EPOCHS, t->tr.o.epochs, 1, 100000)
        INTOPT(OPT_BATCH_GRAPHS, t->tr.o.batch_graphs, 1, 4096)
        INTOPT(OPT_HIDDEN, t->tr.o.arch.hidden, 1, GNN_MAX_WIDTH)
        INTOPT(OPT_LAYERS, t->tr.o.arch.layers, 0, GNN_MAX_LAYERS)
        INTOPT(OPT_HEAD, t->tr.o.arch.head_hidden, 1, GNN_MAX_WIDTH)
#undef INTOPT
    case OPT_LR:
    case OPT_SHARE_WEIGHT: return real_opt(t, c, opt_name(c), arg);
    case OPT_INIT: t->init = arg; return -1;
    case OPT_ALL: t->all = true; return -1;
    case OPT_QUIET: t->tr.o.progress = false; return -1;
    default: return cli_training_opt(&t->tr, "train", c, arg);
    }
}

/* Options into t; -1 to go on, else the exit code. */
static int parse_args(struct train_cli *t, int argc, char **argv)
{
    int rc = cli_parse(&cli_cmd_train, &t->co, argc, argv, train_opt, t);
    if (rc >= 0)
        return rc;
    if (optind < argc)
        return cli_usage_error("train", "unexpected argument '%s'", argv[optind]);
    if (!t->n_data)
        return cli_usage_error("train", "no training data: use --data FILE");
    if (!t->co.output)
        return cli_usage_error("train", "no output: use -o OUT.dpw");
    if (t->tr.o.only_target >= 0 && !t->init)
        return cli_usage_error("train", "--only fine-tunes one output of a trained network: "
                               "give it with --init W.dpw");
    if (t->init && !t->lr_set)
        t->tr.o.lr = 3e-4f;
    return -1;
}

/* The manifest goes next to the weights: OUT.dpw -> OUT.json. NULL with the
 * exit code in *rc when it cannot, or when either file exists without
 * --force. */
static char *manifest_path(const struct cli_common *co, int *rc)
{
    size_t mlen = strlen(co->output) + 8;
    char *manifest = xmalloc(mlen);
    snprintf(manifest, mlen, "%s", co->output);
    char *dot = strrchr(manifest, '.');
    if (dot && !strchr(dot, '/'))
        *dot = 0;
    size_t l = strlen(manifest);
    snprintf(manifest + l, mlen - l, ".json");
    if (!strcmp(manifest, co->output)) {
        free(manifest);
        *rc = cli_usage_error("train", "-o %s: the training manifest would be written to the "
                              "same file; name the weights OUT.dpw", co->output);
        return NULL;
    }
    for (int i = 0; i < 2; i++) {
        const char *p = i ? manifest : co->output;
        if (!co->force && file_exists(p)) {
            cli_error("%s exists%s (use --force to overwrite)", p,
                      i ? ", where the training manifest goes" : "");
            free(manifest);
            *rc = status_exit_code(ST_EEXIST);
            return NULL;
        }
    }
    return manifest;
}

/* Training rows (tr) and test rows (te) of the random split; with --all
 * every row trains and none is tested. */
static void split_rows(const struct dataset *ds, bool all, int **tr, int *n_tr, int **te,
                       int *n_te)
{
    *tr = eval_split(ds, false, n_tr);
    *te = eval_split(ds, true, n_te);
    if (!all)
        return;
    *tr = xrealloc(*tr, sizeof(int) * (size_t)(ds->n > 0 ? ds->n : 1));
    memcpy(*tr + *n_tr, *te, sizeof(int) * (size_t)*n_te);
    *n_tr += *n_te;
    free(*te);
    *te = NULL;
    *n_te = 0;
}

/* The weights' one-line description: label source and test metrics. */
static void describe(const struct dataset *ds, const struct eval_metrics *met, bool progress,
                     char *desc, size_t size)
{
    int n_meas = 0;
    for (int i = 0; i < ds->n; i++)
        n_meas += ds->rows[i].label == DATASET_MEASURED;
    const char *lab = n_meas == 0 ? "teacher labels" : n_meas == ds->n ? "measured labels"
                                                                       : "teacher + measured labels";
    if (!met) {
        snprintf(desc, size, "%s, trained on all rows (no test split)", lab);
        return;
    }
    snprintf(desc, size, "%s, test MAPE latency %.2f%%, energy %.2f%%, memory %.2f%%", lab,
             met->mape[0], met->mape[1], met->mape[2]);
    if (progress) {
        fprintf(stderr, "%-22s %-8s %6s %9s %9s %9s\n", "split", "target", "n", "MAPE", "median",
                "within10");
        eval_metrics_print(stderr, "random test split", met);
    }
}

/* Weights and manifest land together or not at all. */
static enum status write_outputs(const struct train_cli *t, const char *manifest, int argc,
                                 char **argv, const struct dataset *ds, const struct train_set *ts,
                                 const struct gnn_model *m, int n_tr, int n_te,
                                 const struct eval_metrics *met, double wall, struct diag *d)
{
    char desc[WEIGHTS_DESC_MAX];
    describe(ds, met, t->tr.o.progress, desc, sizeof desc);
    struct jsonw w;
    jsonw_init(&w, true);
    write_manifest(&w, t->co.output, argc, argv, t->data, t->n_data, ds, n_tr, n_te, &t->tr.o, m,
                   t->init, wall, met, ts->n_partners);
    size_t jl, wlen;
    char *js = jsonw_take(&w, &jl);
    js = xrealloc(js, jl + 2);
    js[jl++] = '\n';
    unsigned char *wbuf = NULL;
    weights_encode(m, gnn_features_schema_id(), desc, &wbuf, &wlen);
    const char *paths[2] = {t->co.output, manifest};
    const void *bufs[2] = {wbuf, js};
    size_t lens[2] = {wlen, jl};
    enum status st = file_write_atomic_n(2, paths, bufs, lens, t->co.force, d);
    free(wbuf);
    free(js);
    return st;
}

static enum status run(struct train_cli *t, const char *manifest, int argc, char **argv,
                       struct diag *d)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct dataset ds;
    dataset_init(&ds);
    struct train_set ts = {0};
    struct gnn_model m = {0};
    int n_tr = 0, n_te = 0, *tr = NULL, *te = NULL;
    enum status st = predict_blas_probe(d);
    for (int i = 0; !st && i < t->n_data; i++)
        st = dataset_load(&ds, t->data[i], d);
    if (!st && t->tr.o.progress)
        fprintf(stderr, "dippm train: %d rows from %d file(s)\n", ds.n, t->n_data);
    if (!st)
        st = train_prepare(&ds, &ts, t->tr.o.order_weight > 0 ? t->tr.pair_frac : 0,
                           t->tr.all_kinds, t->tr.o.progress, d);
    if (!st && t->init)
        st = weights_load(t->init, gnn_features_schema_id(), &m, NULL, 0, d);
    if (!st) {
        split_rows(&ds, t->all, &tr, &n_tr, &te, &n_te);
        if (t->tr.o.progress)
            fprintf(stderr, "dippm train: %d training rows, %d test rows, %ld nodes, %d "
                            "ordering pairs\n", n_tr, n_te, ts.total_nodes, ts.n_partners);
        st = train_fit(&m, t->init != NULL, &ts, tr, n_tr, &t->tr.o, d);
    }
    if (!st) {
        struct eval_metrics met;
        if (n_te)
            eval_model(&m, &ts, te, n_te, &met);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double wall = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        st = write_outputs(t, manifest, argc, argv, &ds, &ts, &m, n_tr, n_te,
                           n_te ? &met : NULL, wall, d);
        if (!st && t->tr.o.progress)
            fprintf(stderr, "dippm train: wrote %s and %s in %.0f s\n", tsafe(t->co.output),
                    tsafe(manifest), wall);
    }
    free(tr);
    free(te);
    gnn_model_fini(&m);
    train_set_fini(&ts);
    dataset_fini(&ds);
    return st;
}

int cli_train(int argc, char **argv)
{
    struct train_cli t = {0};
    cli_common_init(&t.co);
    cli_training_init(&t.tr);
    t.tr.o.progress = true;
    int rc = parse_args(&t, argc, argv);
    if (rc >= 0)
        return rc;
    char *manifest = manifest_path(&t.co, &rc);
    if (!manifest)
        return rc;
    struct diag d = {0};
    rc = run(&t, manifest, argc, argv, &d) ? cli_fail(&d) : 0;
    free(manifest);
    return rc;
}
