/* cli_info.c - `dippm info MODEL`: format, counts, inputs and outputs with
 * shapes, symbols with defaults, op histogram and coverage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "util/textsafe.h"
#include "cli/cli_control.h"
#include "util/jsonw.h"
#include "graph/ops/shape.h"
#include "util/xalloc.h"

static const struct cli_opt info_opts[] = {
    {"output", 'o', "FILE", "write the JSON (--json) to FILE, atomically ('-o -': standard "
     "output)", 'o'},
    {NULL, 0, NULL, NULL, 0},
};

const struct cli_cmd cli_cmd_info = {
    .name = "info",
    .usage = "dippm info MODEL [--batch N] [--set NAME=VALUE]... [--json]",
    .about = "Summary of MODEL: format, node and edge counts, inputs and outputs with their\n"
             "declared (symbolic) and resolved shapes, symbols with defaults, the op\n"
             "histogram, and which ops shape inference and the cost model do not cover.",
    .common = CLI_C_SYMBOLS | CLI_C_JSON | CLI_C_FORCE,
    .groups = {info_opts},
};

/* "[batch, 3, 224, 224]" from declared dims. */
static void decl_str(const struct graph *g, const struct value *v, char *buf, size_t size)
{
    if (v->rank < 0) {
        snprintf(buf, size, "?");
        return;
    }
    size_t len = (size_t)snprintf(buf, size, "[");
    for (int i = 0; i < v->rank && len < size; i++) {
        const struct dim *dm = &v->dims[i];
        if (dm->sym >= 0)
            len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "",
                                    g->syms[dm->sym].name);
        else if (dm->v < 0)
            len += (size_t)snprintf(buf + len, size - len, "%s?", i ? ", " : "");
        else
            len += (size_t)snprintf(buf + len, size - len, "%s%lld", i ? ", " : "",
                                    (long long)dm->v);
    }
    if (len < size)
        snprintf(buf + len, size - len, "]");
}

static void json_io(struct jsonw *w, const struct graph *g, const int *idx, int n)
{
    jsonw_arr_begin(w, false);
    for (int i = 0; i < n; i++) {
        const struct value *v = &g->values[idx[i]];
        char decl[256], res[256];
        decl_str(g, v, decl, sizeof decl);
        shape_str(&v->shape, res, sizeof res);
        jsonw_obj_begin(w);
        jsonw_key_str(w, "name", v->name);
        jsonw_key_str(w, "dtype", dtype_name(v->idtype ? v->idtype : v->dtype));
        jsonw_key_str(w, "declared", decl);
        jsonw_key(w, "shape");
        shape_json(w, &v->shape);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

/* What `dippm info` reports about one model. */
struct info_view {
    const struct graph *g;
    const char *path;
    struct op_count *hist;  /* op types and counts */
    int n_ops;
    const char **uncovered; /* op types with any node shape inference does not cover */
    int n_unc;
    enum status ist;        /* shape inference */
    struct diag d;
};

static void info_json(struct jsonw *w, const struct info_view *v)
{
    const struct graph *g = v->g;
    const struct graph_totals *t = &g->totals;
    jsonw_obj_begin(w);
    jsonw_key_str(w, "model", g->name);
    jsonw_key_str(w, "path", v->path);
    jsonw_key_str(w, "format", g->format);
    jsonw_key_int(w, "opset", g->opset);
    jsonw_key_int(w, "nodes", g->n_nodes);
    jsonw_key_int(w, "edges", graph_edge_count(g));
    jsonw_key_int(w, "values", g->n_values);
    jsonw_key_num(w, "params", t->params, false);
    jsonw_key_num(w, "param_bytes", t->param_bytes, false);
    jsonw_key_num(w, "file_weight_elems", g->file_weight_elems, false);
    jsonw_key_num(w, "macs", t->macs, false);
    jsonw_key_num(w, "flops", t->flops, false);
    jsonw_key(w, "inputs");
    json_io(w, g, g->inputs, g->n_inputs);
    jsonw_key(w, "outputs");
    json_io(w, g, g->outputs, g->n_outputs);
    jsonw_key(w, "symbols");
    jsonw_obj_begin(w);
    for (int i = 0; i < g->n_syms; i++) {
        jsonw_key(w, g->syms[i].name);
        jsonw_obj_begin(w);
        jsonw_key_int(w, "default", g->syms[i].def);
        jsonw_key_int(w, "value", g->syms[i].val);
        jsonw_obj_end(w);
    }
    jsonw_obj_end(w);
    jsonw_key(w, "ops");
    jsonw_obj_begin(w);
    for (int i = 0; i < v->n_ops; i++) {
        jsonw_key_int(w, v->hist[i].op_type, v->hist[i].count);
    }
    jsonw_obj_end(w);
    jsonw_key(w, "not_covered");
    jsonw_arr_begin(w, true);
    for (int i = 0; i < v->n_unc; i++)
        jsonw_str(w, v->uncovered[i]);
    jsonw_arr_end(w);
    info_control_json(w, g);
    jsonw_key_int(w, "nodes_not_counted", t->n_unsupported + t->n_unknown);
    jsonw_key_str(w, "shape_error", v->ist ? v->d.msg : NULL);
    jsonw_obj_end(w);
}

static void text_io(FILE *f, const struct graph *g, const int *idx, int n, bool outputs)
{
    for (int i = 0; i < n; i++) {
        const struct value *v = &g->values[idx[i]];
        char decl[256], res[256];
        decl_str(g, v, decl, sizeof decl);
        fprintf(f, "  %-24s %-8s %-24s = %s\n", tsafe(v->name),
                dtype_name(outputs && v->idtype ? v->idtype : v->dtype), decl,
                shape_str(&v->shape, res, sizeof res));
    }
}

static void info_text(FILE *f, const struct info_view *v)
{
    const struct graph *g = v->g;
    const struct graph_totals *t = &g->totals;
    fprintf(f, "model:    %s\n", tsafe(g->name));
    fprintf(f, "file:     %s\n", tsafe(v->path));
    fprintf(f, "format:   %s", g->format);
    if (g->opset)
        fprintf(f, " (opset %d)", g->opset);
    fprintf(f, "\nnodes:    %d\nedges:    %d\nvalues:   %d\n", g->n_nodes, graph_edge_count(g),
            g->n_values);
    fprintf(f, "params:   %.0f (%.2f MiB)\n", t->params, t->param_bytes / 1048576.0);
    if (g->n_file_weights)
        fprintf(f, "weights:  %d tensors in the file, %.0f elements (shapes read, values "
                "not)\n", g->n_file_weights, g->file_weight_elems);
    fprintf(f, "MACs:     %.4g G   (multiply-accumulates; FLOPs %.4g G)\n", t->macs / 1e9,
            t->flops / 1e9);
    fprintf(f, "\ninputs:\n");
    text_io(f, g, g->inputs, g->n_inputs, false);
    fprintf(f, "outputs:\n");
    text_io(f, g, g->outputs, g->n_outputs, true);
    fprintf(f, "symbols:%s\n", g->n_syms ? "" : " none (all dims fixed)");
    for (int i = 0; i < g->n_syms; i++)
        fprintf(f, "  %-16s default %-8lld now %lld\n", tsafe(g->syms[i].name),
                (long long)g->syms[i].def, (long long)g->syms[i].val);
    fprintf(f, "ops (%d types):\n", v->n_ops);
    for (int i = 0; i < v->n_ops; i++)
        fprintf(f, "  %-24s %d\n", v->hist[i].op_type, v->hist[i].count);
    info_control_text(f, g);
    if (v->ist)
        return;
    if (v->n_unc) {
        fprintf(f, "not covered by shape inference/cost (%d nodes not counted):",
                t->n_unsupported + t->n_unknown);
        for (int i = 0; i < v->n_unc; i++)
            fprintf(f, " %s", v->uncovered[i]);
        fputc('\n', f);
    } else {
        fprintf(f, "coverage: every op counted\n");
    }
}

/* Shape inference, the op histogram and the op types it does not cover. */
static void info_build(struct graph *g, const char *path, struct info_view *v)
{
    memset(v, 0, sizeof *v);
    v->g = g;
    v->path = path;
    v->ist = graph_infer(g, &v->d);
    v->hist = xcalloc((size_t)g->n_nodes + 1, sizeof *v->hist);
    v->n_ops = graph_op_histogram(g, v->hist, g->n_nodes + 1);
    v->uncovered = xcalloc((size_t)v->n_ops + 1, sizeof *v->uncovered);
    for (int i = 0; i < v->n_ops; i++)
        for (int ni = 0; ni < g->n_nodes; ni++)
            if (g->nodes[ni].state == NODE_UNSUPPORTED &&
                !strcmp(g->nodes[ni].op_type, v->hist[i].op_type)) {
                v->uncovered[v->n_unc++] = v->hist[i].op_type;
                break;
            }
}

int cli_info(int argc, char **argv)
{
    struct cli_common co;
    cli_common_init(&co);
    int rc = cli_parse(&cli_cmd_info, &co, argc, argv, NULL, NULL);
    if (rc >= 0)
        return rc;
    if (optind + 1 != argc)
        return cli_usage_error("info", "expected exactly one MODEL");
    rc = 0;
    struct graph *g = cli_load_model(argv[optind], &co, &rc);
    if (!g)
        return rc;
    struct info_view v;
    info_build(g, argv[optind], &v);
    if (v.ist == ST_ERANGE) { /* bindings the model cannot take: nothing to describe */
        rc = cli_fail(&v.d);
    } else if (co.json) {
        struct jsonw w;
        jsonw_init(&w, true);
        info_json(&w, &v);
        rc = cli_emit(&co, w.buf, w.len);
        jsonw_fini(&w);
    } else {
        info_text(stdout, &v);
    }
    if (v.ist && v.ist != ST_ERANGE)
        cli_error("%s: shape inference failed: %s", argv[optind], v.d.msg);
    free(v.uncovered);
    free(v.hist);
    graph_free(g);
    return rc ? rc : v.ist ? status_exit_code(v.ist) : 0;
}
