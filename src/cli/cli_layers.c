/* cli_layers.c - `dippm layers MODEL`: the per-node cost table in
 * topological order (name, op, output shapes, params, MACs, FLOPs, bytes
 * read and written, arithmetic intensity, state) with a totals line that
 * says how many nodes were not counted; with --time (or a configuration
 * option) also each node's predicted time, its share of the latency and
 * what bounds it. Human table with K/M/G units, or exact numbers with
 * --csv / --json. Column conventions: graph/ops/cost.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "util/textsafe.h"
#include "util/jsonw.h"
#include "graph/ops/shape.h"
#include "core/predict.h"
#include "core/report.h"
#include "cli/cli_pred.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

enum { OPT_SORT = CLI_OPT__OWN, OPT_TOP, OPT_TIME };

static const struct cli_opt layers_opts[] = {
    {"time", 0, NULL, "add each node's predicted time, its share of the latency and what bounds "
     "it on the configuration of --gpu, --precision and --runtime (default A100-SXM4-40GB, "
     "fp32, pytorch); implied by those options", OPT_TIME},
    {"sort", 0, "KEY", "order by time, flops, macs, params or bytes, largest first (default: "
     "topo, the topological order; time needs the prediction)", OPT_SORT},
    {"top", 0, "N", "only the first N rows (after --sort); totals stay whole-graph", OPT_TOP},
    {"json", 0, NULL, "exact numbers as JSON instead of the aligned table", CLI_OPT_JSON},
    {"csv", 0, NULL, "exact numbers as CSV instead of the aligned table", CLI_OPT_CSV},
    {NULL, 0, NULL, NULL, 0},
};

const struct cli_cmd cli_cmd_layers = {
    .name = "layers",
    .usage = "dippm layers MODEL [--batch N] [--set NAME=VALUE]... [--sort KEY] [--top N]\n"
             "                    [--time [--gpu NAME[:PROFILE]] [--precision P] [--runtime R]\n"
             "                     [--quant SCHEME] [--weights FILE] [--dispatch-us US]]\n"
             "                    [--csv|--json] [-o FILE [--force]]",
    .about = "Per-node table of MODEL in topological order: output shapes, parameters,\n"
             "MACs (multiply-accumulates of conv/matmul/attention/RNN ops), FLOPs (2 per MAC\n"
             "plus elementwise arithmetic), bytes read and written, arithmetic intensity\n"
             "(FLOPs per byte moved) and state: ok, 'not covered' (an op without shape or\n"
             "cost support) or 'unknown input' (downstream of one). The totals line counts\n"
             "shared parameters once and gives the peak of live activation memory.\n"
             "\n"
             "With --time, each node also gets its predicted time (the GNN's latency split\n"
             "by its node shares, as the explorer's Layers tab shows; simulated, not\n"
             "measured), its share of the latency and the bound of the kernel it runs in:\n"
             "compute or memory (the kernel's roofline side), overhead (launch and host\n"
             "dispatch dominate) or - (runs nothing on the GPU). A node fused into another's\n"
             "kernel (a bias add into its GEMM; an engine's epilogues) keeps its share of\n"
             "that kernel's time; CSV and JSON name the kernel's node.",
    .common = CLI_C_SYMBOLS | CLI_C_OUTPUT | CLI_C_FORCE | CLI_C_CONFIG | CLI_C_DISPATCH,
    .groups = {layers_opts},
};

/* ---- formatting ----------------------------------------------------------- */

static const char *state_name(enum node_state s)
{
    switch (s) {
    case NODE_OK: return "ok";
    case NODE_UNSUPPORTED: return "not covered";
    case NODE_NOT_RUN: return "not run";
    default: return "unknown input";
    }
}

/* 3 significant digits with K/M/G/T/P (decimal); "-" for 0. From 999.5P
 * on (and for inf or nan) in scientific notation: "%.0fP" of 1.36e39 has 25
 * digits, which a column buffer would cut to a wrong number. */
static const char *human(double v, const char *unit, char *buf, size_t size)
{
    static const char *const pre[] = {"", "K", "M", "G", "T", "P"};
    if (v == 0) {
        snprintf(buf, size, "-");
        return buf;
    }
    if (!(v < 999.5e15)) {
        snprintf(buf, size, "%.3g%s", v, unit);
        return buf;
    }
    int i = 0;
    while (v >= 999.5 && i < 5) {
        v /= 1000;
        i++;
    }
    snprintf(buf, size, v >= 99.95 || i == 0 ? "%.0f%s%s" : v >= 9.995 ? "%.1f%s%s" : "%.2f%s%s",
             v, pre[i], unit);
    return buf;
}

/* All output shapes of node n: "[1, 64, 56, 56]" or "[..] [..]". */
static void out_shapes(const struct graph *g, const struct node *n, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = 0;
    for (int j = 0; j < n->n_out && len + 2 < size; j++) {
        char s[160];
        shape_str(&g->values[n->out[j]].shape, s, sizeof s);
        len += (size_t)snprintf(buf + len, size - len, "%s%s", j ? " " : "", s);
    }
}

/* Keeps the tail of long names (ONNX names share long prefixes). */
static const char *fit(const char *s, int width, char *buf)
{
    s = tsafe(s);
    int len = (int)strlen(s);
    if (len <= width)
        return s;
    snprintf(buf, (size_t)width + 1, "~%s", s + len - (width - 1));
    return buf;
}

static double intensity(const struct node_cost *c)
{
    double bytes = c->bytes_read + c->bytes_written;
    return bytes > 0 ? c->flops / bytes : 0;
}

static void csv_field(struct strbuf *b, const char *s)
{
    s = tsafe(s);
    if (strchr("=+-@", s[0]) && s[0]) { /* a spreadsheet formula: neutralised */
        strbuf_printf(b, "\"'");
        for (; *s; s++)
            strbuf_printf(b, *s == '"' ? "\"\"" : "%c", *s);
        strbuf_printf(b, "\"");
        return;
    }
    if (!strpbrk(s, ",\"\n")) {
        strbuf_printf(b, "%s", s);
        return;
    }
    strbuf_printf(b, "\"");
    for (; *s; s++)
        strbuf_printf(b, *s == '"' ? "\"\"" : "%c", *s);
    strbuf_printf(b, "\"");
}

/* ---- row selection (--sort, --top) ------------------------------------------ */

enum sort_key { SORT_TOPO, SORT_FLOPS, SORT_MACS, SORT_PARAMS, SORT_BYTES, SORT_TIME };

struct rows {
    int n;      /* rows shown */
    int *topo;  /* topological positions, in display order */
};

/* The prediction --time adds: per node (indexed like graph->nodes) its
 * time in microseconds, share of the latency and bound. */
struct times {
    bool on;
    struct config cfg;
    struct prediction pr;
};

static double node_us(const struct times *tm, int i)
{
    return tm->pr.latency_ms * 1e3 * tm->pr.node_share[i];
}

/* The node whose kernel runs i's work: i, or the kernel it is fused into. */
static int node_kernel(const struct times *tm, int i)
{
    int k = tm->pr.sim.nodes[i].fused_into;
    return k >= 0 && k < tm->pr.sim.n_nodes ? k : i;
}

static const char *node_bound(const struct times *tm, int i)
{
    return bound_name(tm->pr.sim.nodes[node_kernel(tm, i)].bound);
}

static double sort_value(const struct graph *g, const struct times *tm, int i, enum sort_key k)
{
    const struct node *n = &g->nodes[i];
    switch (k) {
    case SORT_TIME: return node_us(tm, i);
    case SORT_FLOPS: return n->cost.flops;
    case SORT_MACS: return n->cost.macs;
    case SORT_PARAMS: return n->cost.params;
    case SORT_BYTES: return n->cost.bytes_read + n->cost.bytes_written;
    default: return 0;
    }
}

struct keyed {
    double v;
    int topo;
};

static int cmp_keyed(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    if (x->v != y->v)
        return x->v < y->v ? 1 : -1;
    return x->topo - y->topo; /* ties keep topological order */
}

static struct rows select_rows(const struct graph *g, const struct times *tm, enum sort_key k,
                               int64_t top)
{
    struct rows r = {g->n_nodes, xmalloc(sizeof(int) * (size_t)(g->n_nodes + 1))};
    struct keyed *kv = xmalloc(sizeof *kv * (size_t)(g->n_nodes + 1));
    for (int t = 0; t < g->n_nodes; t++)
        kv[t] = (struct keyed){k == SORT_TOPO ? 0 : sort_value(g, tm, g->topo[t], k), t};
    if (k != SORT_TOPO)
        qsort(kv, (size_t)r.n, sizeof *kv, cmp_keyed);
    for (int t = 0; t < g->n_nodes; t++)
        r.topo[t] = kv[t].topo;
    free(kv);
    if (top > 0 && top < r.n)
        r.n = (int)top;
    return r;
}

/* ---- the three renderings ------------------------------------------------- */

static const char *human_us(double us, char *buf, size_t size)
{
    if (us < 999.95)
        snprintf(buf, size, "%.1fus", us);
    else if (us < 999950)
        snprintf(buf, size, "%.2fms", us / 1e3);
    else
        snprintf(buf, size, "%.3gs", us / 1e6);
    return buf;
}

static void table_time_head(struct strbuf *b, const struct times *tm)
{
    char gb[96], prec[96];
    strbuf_printf(b, "predicted on %s, %s, %s, batch %lld: latency %.4g ms (%s; simulated, "
                     "not measured)\n\n",
                  report_hw_label(&tm->cfg, gb, sizeof gb),
                  config_prec_label(&tm->cfg, prec, sizeof prec),
                  runtime_name(tm->cfg.rt), (long long)tm->cfg.batch, tm->pr.latency_ms,
                  tm->pr.from_gnn ? "GNN" : "teacher");
}

static void render_table(struct strbuf *b, const struct graph *g, const struct rows *rw,
                         const struct times *tm)
{
    int wname = 8;
    for (int i = 0; i < g->n_nodes; i++) {
        int l = (int)strlen(g->nodes[i].name);
        wname = l > wname ? l : wname;
    }
    if (wname > 36)
        wname = 36;
    if (tm->on)
        table_time_head(b, tm);
    strbuf_printf(b, "%5s  %-*s  %-18s %-22s %8s %8s %8s %8s %8s %6s  ", "#", wname, "name",
                  "op", "output shape", "params", "MACs", "FLOPs", "read", "written", "AI");
    if (tm->on)
        strbuf_printf(b, "%9s %6s %-8s ", "time", "share", "bound");
    strbuf_printf(b, "%s\n", "state");
    for (int r = 0; r < rw->n; r++) {
        int t = rw->topo[r];
        const struct node *n = &g->nodes[g->topo[t]];
        char nb[64], ob[24], shp[512], sb[40], h[6][16];
        out_shapes(g, n, shp, sizeof shp);
        const struct node_cost *c = &n->cost;
        bool ok = n->state == NODE_OK;
        char ai[16] = "-";
        if (ok && intensity(c) > 0)
            snprintf(ai, sizeof ai, intensity(c) < 99999.95 ? "%.1f" : "%.3g", intensity(c));
        strbuf_printf(b, "%5d  %-*s  %-18s %-22s %8s %8s %8s %8s %8s %6s  ", t, wname,
                      fit(n->name, wname, nb), fit(n->op_type, 18, ob), fit(shp, 22, sb),
                      human(c->params, "", h[0], 16), ok ? human(c->macs, "", h[1], 16) : "?",
                      ok ? human(c->flops, "", h[2], 16) : "?",
                      ok ? human(c->bytes_read, "B", h[3], 16) : "?",
                      ok ? human(c->bytes_written, "B", h[4], 16) : "?", ai);
        if (tm->on) {
            int i = g->topo[t];
            strbuf_printf(b, "%9s %5.1f%% %-8s ", human_us(node_us(tm, i), h[5], 16),
                          100 * tm->pr.node_share[i], node_bound(tm, i));
        }
        strbuf_printf(b, "%s", state_name(n->state));
        if (n->note)
            strbuf_printf(b, " (%s)", n->note);
        strbuf_printf(b, "\n");
    }
    const struct graph_totals *t = &g->totals;
    char h[8][16];
    if (rw->n < g->n_nodes)
        strbuf_printf(b, "(%d of %d nodes shown)\n", rw->n, g->n_nodes);
    strbuf_printf(b, "\ntotal: %d nodes, %d counted, %d not covered, %d with unknown inputs "
                     "(%d not counted)\n",
                  g->n_nodes, t->n_counted, t->n_unsupported, t->n_unknown,
                  t->n_unsupported + t->n_unknown);
    strbuf_printf(b, "       params %s (%s), MACs %s, FLOPs %s, read %s, written %s\n",
                  human(t->params, "", h[0], 16), human(t->param_bytes, "B", h[1], 16),
                  human(t->macs, "", h[2], 16), human(t->flops, "", h[3], 16),
                  human(t->bytes_read, "B", h[4], 16), human(t->bytes_written, "B", h[5], 16));
    strbuf_printf(b, "       activations %s in all, peak live %s (inputs %s, outputs %s)\n",
                  human(t->act_bytes, "B", h[0], 16), human(t->peak_act_bytes, "B", h[1], 16),
                  human(t->input_bytes, "B", h[2], 16), human(t->output_bytes, "B", h[3], 16));
    strbuf_printf(b, "       MACs: multiply-accumulates of conv/matmul/attention/RNN; FLOPs: 2 per "
                     "MAC + elementwise; K/M/G = 10^3/10^6/10^9\n");
}

static void render_csv(struct strbuf *b, const struct graph *g, const struct rows *rw,
                       const struct times *tm)
{
    strbuf_printf(b, "index,name,op,outputs,params,macs,flops,bytes_read,bytes_written,out_bytes,"
                     "intensity,state,note%s\n", tm->on ? ",time_us,time_share,bound,kernel" : "");
    for (int r = 0; r < rw->n; r++) {
        int t = rw->topo[r];
        const struct node *n = &g->nodes[g->topo[t]];
        const struct node_cost *c = &n->cost;
        char shp[512];
        out_shapes(g, n, shp, sizeof shp);
        strbuf_printf(b, "%d,", t);
        csv_field(b, n->name);
        strbuf_printf(b, ",");
        csv_field(b, n->op_type);
        strbuf_printf(b, ",");
        csv_field(b, shp);
        strbuf_printf(b, ",%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.6g,%s,", c->params, c->macs, c->flops,
                      c->bytes_read, c->bytes_written, c->out_bytes, intensity(c),
                      state_name(n->state));
        csv_field(b, n->note ? n->note : "");
        if (tm->on) {
            int i = g->topo[t];
            strbuf_printf(b, ",%.6g,%.6g,%s,", node_us(tm, i), tm->pr.node_share[i],
                          node_bound(tm, i));
            csv_field(b, g->nodes[node_kernel(tm, i)].name);
        }
        strbuf_printf(b, "\n");
    }
}

/* The "prediction" object of --time: the configuration and the latency
 * the node times split. */
static void json_prediction(struct jsonw *w, const struct times *tm)
{
    jsonw_key(w, "prediction");
    jsonw_obj_begin(w);
    const struct gpu_spec *gs = gpu_get(tm->cfg.gpu);
    jsonw_key_str(w, "gpu", gs->name);
    jsonw_key(w, "mig");
    if (tm->cfg.mig >= 0)
        jsonw_str(w, gs->mig[tm->cfg.mig].name);
    else
        jsonw_null(w);
    jsonw_key_str(w, "precision", precision_name(tm->cfg.prec));
    report_quant_json(w, &tm->cfg);
    jsonw_key_str(w, "runtime", runtime_name(tm->cfg.rt));
    jsonw_key_int(w, "batch", tm->cfg.batch);
    jsonw_key_str(w, "source", tm->pr.from_gnn ? "gnn" : "teacher");
    jsonw_key_num(w, "latency_ms", tm->pr.latency_ms, false);
    jsonw_obj_end(w);
}

static void render_json(struct jsonw *w, const struct graph *g, const struct rows *rw,
                        const char *path, const char *err, const struct times *tm)
{
    jsonw_obj_begin(w);
    jsonw_key_str(w, "model", g->name);
    jsonw_key_str(w, "path", path);
    report_json_symbols(w, g);
    if (tm->on)
        json_prediction(w, tm);
    jsonw_key(w, "conventions");
    jsonw_str(w, "macs: multiply-accumulates of conv/gemm/matmul/einsum/attention/rnn; flops: "
                 "2 per MAC plus elementwise arithmetic (onnx-tool weights); params: trainable "
                 "initializer elements, shared ones counted once in totals; bytes by dtype");
    jsonw_key(w, "nodes");
    jsonw_arr_begin(w, false);
    for (int r = 0; r < rw->n; r++) {
        int t = rw->topo[r];
        const struct node *n = &g->nodes[g->topo[t]];
        const struct node_cost *c = &n->cost;
        jsonw_obj_begin(w);
        jsonw_key_int(w, "index", t);
        jsonw_key_str(w, "name", n->name);
        jsonw_key_str(w, "op", n->op_type);
        if (*n->domain) {
            jsonw_key_str(w, "domain", n->domain);
        }
        jsonw_key(w, "outputs");
        jsonw_arr_begin(w, false);
        for (int j = 0; j < n->n_out; j++) {
            const struct value *v = &g->values[n->out[j]];
            jsonw_obj_begin(w);
            jsonw_key_str(w, "name", v->name);
            jsonw_key_str(w, "dtype", dtype_name(v->idtype));
            jsonw_key(w, "shape");
            shape_json(w, &v->shape);
            jsonw_obj_end(w);
        }
        jsonw_arr_end(w);
        static const char *const keys[] = {"params", "macs", "flops", "bytes_read",
                                           "bytes_written", "out_bytes"};
        const double vals[] = {c->params, c->macs, c->flops, c->bytes_read, c->bytes_written,
                               c->out_bytes};
        for (int k = 0; k < 6; k++) {
            jsonw_key_num(w, keys[k], vals[k], false);
        }
        jsonw_key_num(w, "intensity", intensity(c), false);
        jsonw_key_str(w, "state", state_name(n->state));
        if (tm->on) {
            int i = g->topo[t];
            jsonw_key_num(w, "time_us", node_us(tm, i), false);
            jsonw_key_num(w, "time_share", tm->pr.node_share[i], false);
            jsonw_key_str(w, "bound", node_bound(tm, i));
            jsonw_key_str(w, "kernel", g->nodes[node_kernel(tm, i)].name);
        }
        jsonw_key(w, "note");
        if (n->note)
            jsonw_str(w, n->note);
        else
            jsonw_null(w);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    const struct graph_totals *t = &g->totals;
    jsonw_key(w, "totals");
    jsonw_obj_begin(w);
    static const char *const tk[] = {"params", "param_bytes", "macs", "flops", "bytes_read",
                                     "bytes_written", "act_bytes", "peak_act_bytes",
                                     "input_bytes", "output_bytes"};
    const double tv[] = {t->params, t->param_bytes, t->macs, t->flops, t->bytes_read,
                         t->bytes_written, t->act_bytes, t->peak_act_bytes, t->input_bytes,
                         t->output_bytes};
    for (int k = 0; k < 10; k++) {
        jsonw_key_num(w, tk[k], tv[k], false);
    }
    jsonw_key_int(w, "nodes", g->n_nodes);
    jsonw_key_int(w, "counted", t->n_counted);
    jsonw_key_int(w, "not_covered", t->n_unsupported);
    jsonw_key_int(w, "unknown_input", t->n_unknown);
    jsonw_obj_end(w);
    jsonw_key(w, "shape_error");
    if (err)
        jsonw_str(w, err);
    else
        jsonw_null(w);
    jsonw_obj_end(w);
}

/* What `dippm layers` was asked for. */
struct layers_cli {
    struct cli_common co;
    enum sort_key key;
    int64_t top;
    bool time;
};

static int layers_opt(void *ctx, int id, const char *arg)
{
    static const char *const sort_names[] = {"topo", "flops", "macs", "params", "bytes", "time"};
    struct layers_cli *a = ctx;
    if (id == OPT_SORT) {
        for (int i = 0; i < 6; i++)
            if (!strcmp(arg, sort_names[i])) {
                a->key = (enum sort_key)i;
                a->time |= a->key == SORT_TIME;
                return -1;
            }
        return cli_usage_error("layers", "--sort '%s': expected topo, time, flops, macs, params "
                               "or bytes", arg);
    }
    if (id == OPT_TIME) {
        a->time = true;
        return -1;
    }
    if (id == OPT_TOP) {
        if (cli_parse_int(arg, 1, 1 << 30, &a->top))
            return cli_usage_error("layers", "--top '%s': expected a positive integer", arg);
        return -1;
    }
    return CLI_OPTS_COMMON;
}

/* The rows of g as JSON, CSV or the aligned table, emitted. */
static int render(const struct layers_cli *a, const struct graph *g, const struct rows *rw,
                  const char *model, const char *err, const struct times *tm)
{
    int rc;
    if (a->co.json) {
        struct jsonw w;
        jsonw_init(&w, true);
        render_json(&w, g, rw, model, err, tm);
        rc = cli_emit(&a->co, w.buf, w.len);
        jsonw_fini(&w);
        return rc;
    }
    struct strbuf b = STRBUF_INIT;
    if (a->co.csv)
        render_csv(&b, g, rw, tm);
    else
        render_table(&b, g, rw, tm);
    rc = cli_emit(&a->co, b.s ? b.s : "", b.len);
    strbuf_fini(&b);
    return rc;
}

/* --time: the prediction of g (inferred) on the configuration of a's
 * options. 0, or the exit code (message printed). */
static int predict_times(const struct layers_cli *a, struct graph *g, struct times *tm)
{
    int rc = cli_config(&a->co, g, &tm->cfg);
    struct predictor *p = rc ? NULL : cli_pred_predictor(&a->co, &rc);
    if (rc)
        return rc;
    struct diag d = {0};
    enum status st = predict_run(p, g, &tm->cfg, &tm->pr, &d);
    predictor_free(p);
    if (st)
        return cli_fail(&d);
    tm->on = true;
    return 0;
}

int cli_layers(int argc, char **argv)
{
    struct layers_cli a = {.key = SORT_TOPO};
    cli_common_init(&a.co);
    int rc = cli_parse(&cli_cmd_layers, &a.co, argc, argv, layers_opt, &a);
    if (rc >= 0)
        return rc;
    if (optind + 1 != argc)
        return cli_usage_error("layers", "expected exactly one MODEL");
    if (a.co.json && a.co.csv)
        return cli_usage_error("layers", "--csv and --json are exclusive");
    struct graph *g = cli_load_model(argv[optind], &a.co, &rc);
    if (!g)
        return rc;
    struct diag d = {0};
    enum status ist = graph_infer(g, &d);
    if (ist == ST_ERANGE) { /* bindings the model cannot take: no table of them */
        graph_free(g);
        return cli_fail(&d);
    }
    struct times tm = {0};
    a.time |= a.co.gpu || a.co.precision || a.co.quant || a.co.runtime || a.co.weights ||
              a.co.dispatch_us > 0;
    if (a.time && ist) { /* no time for a graph whose shapes are not known */
        fprintf(stderr, "dippm: %s\n", d.msg);
        graph_free(g);
        return status_exit_code(ist);
    }
    if (a.time && (rc = predict_times(&a, g, &tm))) {
        prediction_fini(&tm.pr);
        graph_free(g);
        return rc;
    }
    struct rows rw = select_rows(g, &tm, a.key, a.top);
    rc = render(&a, g, &rw, argv[optind], ist ? d.msg : NULL, &tm);
    free(rw.topo);
    prediction_fini(&tm.pr);
    graph_free(g);
    if (ist) {
        fprintf(stderr, "dippm: %s\n", d.msg);
        return rc ? rc : status_exit_code(ist);
    }
    return rc;
}
