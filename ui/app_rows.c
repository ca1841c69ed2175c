/* app_rows.c - the layer table's rows (filter, stable sort), cell text and
 * the csv/json export of the same table (other tabs' tables: app_export.c). */
#include "ui/app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"
#include "util/fmt.h"
#include "core/gpu.h"
#include "util/jsonw.h"
#include "util/strbuf.h"
#include "graph/ops/shape.h"
#include "util/xalloc.h"

double app_node_share(const struct app *a, int i)
{
    if (!a->have_pred || i < 0 || !a->g || i >= a->g->n_nodes)
        return 0;
    if (a->pred.from_gnn && a->pred.node_share && i < a->pred.n_nodes)
        return a->pred.node_share[i];
    const struct sim_result *s = &a->pred.sim;
    if (!s->nodes || i >= s->n_nodes || s->latency_ms <= 0)
        return 0;
    return s->nodes[i].time_s * 1e3 / s->latency_ms;
}

double app_node_byte_scale(const struct app *a, int i)
{
    const struct sim_result *s = &a->pred.sim;
    if (!a->have_pred || !s->nodes || i >= s->n_nodes || !a->g || i >= a->g->n_nodes)
        return 1;
    const struct node_cost *k = &a->g->nodes[i].cost;
    double file = k->bytes_read + k->bytes_written;
    return file > 0 && s->nodes[i].bytes > 0 ? s->nodes[i].bytes / file : 1;
}

double app_node_out_bytes(const struct app *a, int i)
{
    return a->g->nodes[i].cost.out_bytes * app_node_byte_scale(a, i);
}

struct app_kernel app_kernel_view(const struct app *a, int ni)
{
    struct app_kernel k = {0};
    const struct sim_result *s = &a->pred.sim;
    struct hw hw;
    if (!a->have_pred || !s->nodes || ni < 0 || ni >= s->n_nodes ||
        hw_from_config(&a->cfg, &hw, NULL) != ST_OK)
        return k;
    int root = s->nodes[ni].fused_into >= 0 ? s->nodes[ni].fused_into : ni;
    const struct sim_node *rn = &s->nodes[root];
    if (!rn->kernel)
        return k;
    for (int i = 0; i < s->n_nodes; i++)
        if (i == root || s->nodes[i].fused_into == root) {
            k.time_s += s->nodes[i].time_s;
            k.members++;
        }
    k.flops = rn->kflops;
    k.bytes = rn->kbytes;
    k.tensor_core = rn->tensor_core;
    k.prec = hw_kernel_precision(a->cfg.prec, rn->tensor_core);
    k.peak = hw_kernel_peak(&hw, a->cfg.prec, rn->tensor_core);
    k.bw = hw.bw_bytes;
    snprintf(k.hw_label, sizeof k.hw_label, "%s", hw.label);
    k.valid = k.peak > 0 && k.bw > 0;
    return k;
}

double app_kv_cache_mib(const struct app *a)
{
    double b = 0;
    for (int i = 0; a->g && i < a->g->n_inputs; i++) {
        const struct value *v = &a->g->values[a->g->inputs[i]];
        if ((v->flags & VAL_INIT) || !v->name || !v->shape.known)
            continue;
        if (ui_str_icontains(v->name, "past") || ui_str_icontains(v->name, "cache"))
            b += (double)shape_numel(&v->shape) * precision_bytes(a->cfg.prec);
    }
    return b / 1048576.0;
}

static enum bound node_bound(const struct app *a, int i)
{
    const struct sim_result *s = &a->pred.sim;
    if (!a->have_pred || !s->nodes || i >= s->n_nodes)
        return BOUND_NONE;
    return s->nodes[i].bound;
}

static const char *first_out_shape(const struct app *a, int ni, char *buf, int size)
{
    const struct node *n = &a->g->nodes[ni];
    if (n->n_out < 1 || n->out[0] < 0)
        return snprintf(buf, (size_t)size, "-"), buf;
    return shape_str(&a->g->values[n->out[0]].shape, buf, size);
}

const char *app_cell_text(const struct app *a, int ni, enum ui_col c, char *buf, int size)
{
    const struct node *n = &a->g->nodes[ni];
    bool covered = n->state == NODE_OK;
    buf[0] = 0;
    switch (c) {
    case UI_COL_INDEX:
        snprintf(buf, (size_t)size, "%d", ni);
        break;
    case UI_COL_NAME:
        snprintf(buf, (size_t)size, "%s", n->name);
        break;
    case UI_COL_OP:
        snprintf(buf, (size_t)size, "%s", n->op_type);
        break;
    case UI_COL_SHAPE:
        if (!covered)
            snprintf(buf, (size_t)size, "%s",
                     n->state == NODE_UNSUPPORTED ? "n/a (op not covered)"
                     : n->state == NODE_NOT_RUN  ? "n/a (branch not run)"
                                                 : "n/a (input unknown)");
        else {
            /* "[1,64,112,112]": the table is narrow, drop shape_str's spaces */
            first_out_shape(a, ni, buf, size);
            char *w = buf;
            for (char *r = buf; *r; r++)
                if (*r != ' ')
                    *w++ = *r;
            *w = 0;
        }
        break;
    case UI_COL_PARAMS:
        if (covered)
            fmt_si(n->cost.params, buf, size);
        else
            snprintf(buf, (size_t)size, "n/a");
        break;
    case UI_COL_MACS:
        if (covered)
            fmt_si(n->cost.macs, buf, size);
        else
            snprintf(buf, (size_t)size, "n/a");
        break;
    case UI_COL_MEM:
        if (covered)
            fmt_bytes(app_node_out_bytes(a, ni), buf, size);
        else
            snprintf(buf, (size_t)size, "n/a");
        break;
    case UI_COL_SHARE:
        snprintf(buf, (size_t)size, "%.1f%%", app_node_share(a, ni) * 100);
        break;
    case UI_COL_BOUND: {
        const struct sim_result *s = &a->pred.sim;
        if (a->have_pred && s->nodes && ni < s->n_nodes && s->nodes[ni].fused)
            snprintf(buf, (size_t)size, "fused");
        else
            snprintf(buf, (size_t)size, "%s", bound_name(node_bound(a, ni)));
        break;
    }
    default:
        break;
    }
    return buf;
}

/* ---- sorting ---------------------------------------------------------- */

static double num_key(const struct app *a, int ni, enum ui_col c)
{
    const struct node *n = &a->g->nodes[ni];
    switch (c) {
    case UI_COL_PARAMS: return n->state == NODE_OK ? n->cost.params : -1;
    case UI_COL_MACS: return n->state == NODE_OK ? n->cost.macs : -1;
    case UI_COL_MEM: return n->state == NODE_OK ? app_node_out_bytes(a, ni) : -1;
    case UI_COL_SHARE: return app_node_share(a, ni);
    case UI_COL_SHAPE: {
        if (n->n_out < 1 || n->out[0] < 0)
            return -1;
        int64_t e = shape_numel(&a->g->values[n->out[0]].shape);
        return (double)e;
    }
    default: return ni;
    }
}

static int cmp_nodes(const struct app *a, int x, int y)
{
    enum ui_col c = a->st.sort_col;
    int r = 0;
    if (c == UI_COL_NAME)
        r = strcmp(a->g->nodes[x].name, a->g->nodes[y].name);
    else if (c == UI_COL_OP)
        r = strcmp(a->g->nodes[x].op_type, a->g->nodes[y].op_type);
    else if (c == UI_COL_BOUND)
        r = (int)node_bound(a, x) - (int)node_bound(a, y);
    else {
        double kx = num_key(a, x, c), ky = num_key(a, y, c);
        r = kx < ky ? -1 : kx > ky;
    }
    if (a->st.sort_desc)
        r = -r;
    /* ties keep graph order, whichever direction */
    return r ? r : (x < y ? -1 : x > y);
}

static void merge_sort(const struct app *a, int *v, int *tmp, int n)
{
    if (n < 2)
        return;
    int h = n / 2;
    merge_sort(a, v, tmp, h);
    merge_sort(a, v + h, tmp, n - h);
    int i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = cmp_nodes(a, v[i], v[j]) <= 0 ? v[i++] : v[j++];
    while (i < h)
        tmp[k++] = v[i++];
    while (j < n)
        tmp[k++] = v[j++];
    memcpy(v, tmp, sizeof *v * (size_t)n);
}

void app_rows_update(struct app *a)
{
    if (!a->rows_dirty || !a->g)
        return;
    a->rows_dirty = false;
    free(a->rows);
    int n = a->g->n_nodes;
    a->rows = xmalloc(sizeof *a->rows * (size_t)(n ? n : 1));
    a->n_rows = a->n_idle_hidden = 0;
    /* zero-time rows (a BERT export's first screen is Constants and Shapes)
     * give way unless asked for; a filter shows whatever it matches */
    bool hide_idle = !a->st.show_idle && !a->st.filter[0] && a->have_pred;
    /* graph order = topological order, so the table reads like the model */
    for (int k = 0; k < n; k++) {
        int i = a->g->topo ? a->g->topo[k] : k;
        const struct node *nd = &a->g->nodes[i];
        if (!ui_filter_match(a->st.filter, nd->name, nd->op_type))
            continue;
        if (hide_idle && nd->state == NODE_OK && !(app_node_share(a, i) > 0)) {
            a->n_idle_hidden++;
            continue;
        }
        a->rows[a->n_rows++] = i;
    }
    /* every order but the default one (graph order) sorts; "#" sorts by
     * the node number, which need not be the topological order */
    if (ui_state_sorted(&a->st)) {
        int *tmp = xmalloc(sizeof *tmp * (size_t)(a->n_rows ? a->n_rows : 1));
        merge_sort(a, a->rows, tmp, a->n_rows);
        free(tmp);
    }
}

int app_row_of_node(const struct app *a, int ni)
{
    for (int r = 0; r < a->n_rows; r++)
        if (a->rows[r] == ni)
            return r;
    return -1;
}

/* ---- export ----------------------------------------------------------- */

static char *export_csv(const struct app *a, size_t *len)
{
    struct strbuf b = STRBUF_INIT;
    static const char *const hdr[] = {"index", "name", "op", "output_shape", "params", "macs",
                                      "flops", "out_bytes", "time_share", "bound", "state"};
    for (size_t i = 0; i < sizeof hdr / sizeof hdr[0]; i++)
        app_csv_field(&b, hdr[i], i + 1 == sizeof hdr / sizeof hdr[0]);
    for (int r = 0; r < a->n_rows; r++) {
        int ni = a->rows[r];
        const struct node *n = &a->g->nodes[ni];
        char t[128];
        bool ok = n->state == NODE_OK;
        app_csv_field(&b, app_cell_text(a, ni, UI_COL_INDEX, t, sizeof t), false);
        app_csv_field(&b, n->name, false);
        app_csv_field(&b, n->op_type, false);
        app_csv_field(&b, ok ? app_cell_text(a, ni, UI_COL_SHAPE, t, sizeof t) : "", false);
        snprintf(t, sizeof t, ok ? "%.0f" : "", n->cost.params);
        app_csv_field(&b, t, false);
        snprintf(t, sizeof t, ok ? "%.0f" : "", n->cost.macs);
        app_csv_field(&b, t, false);
        snprintf(t, sizeof t, ok ? "%.0f" : "", n->cost.flops);
        app_csv_field(&b, t, false);
        snprintf(t, sizeof t, ok ? "%.0f" : "", app_node_out_bytes(a, ni));
        app_csv_field(&b, t, false);
        snprintf(t, sizeof t, "%.6f", app_node_share(a, ni));
        app_csv_field(&b, t, false);
        app_csv_field(&b, app_cell_text(a, ni, UI_COL_BOUND, t, sizeof t), false);
        app_csv_field(&b,
                      n->state == NODE_OK            ? "ok"
                      : n->state == NODE_UNSUPPORTED ? "unsupported"
                      : n->state == NODE_NOT_RUN     ? "not-run"
                                                     : "unknown-input",
                      true);
    }
    return strbuf_take(&b, len);
}

static char *export_json(const struct app *a, size_t *len)
{
    struct jsonw w;
    char t[256];
    jsonw_init(&w, true);
    jsonw_obj_begin(&w);
    jsonw_key_str(&w, "model", a->spec);
    jsonw_key_str(&w, "configuration", app_config_label(a, &a->cfg, t, sizeof t));
    jsonw_key(&w, "source");
    jsonw_str(&w, app_teacher_only(a) ? "teacher (analytic GPU model, simulated; no GNN weights)"
                                      : "gnn (trained on simulated teacher labels)");
    jsonw_key_num(&w, "latency_ms", a->pred.latency_ms, false);
    jsonw_key_num(&w, "throughput_per_s", a->pred.throughput, false);
    jsonw_key_num(&w, "energy_j_per_batch", a->pred.energy_j, false);
    jsonw_key_num(&w, "memory_mib", a->pred.memory_mib, false);
    jsonw_key_num(&w, "roofline_ms", a->pred.sim.roofline_ms, false);
    if (a->have_mig) {
        jsonw_key(&w, "mig_suggestion");
        const struct gpu_spec *gpu = gpu_get(a->mig.gpu);
        if (a->mig.best >= 0 && gpu && a->mig.best < gpu->n_mig)
            jsonw_str(&w, gpu->mig[a->mig.best].name);
        else
            jsonw_null(&w);
        jsonw_key_str(&w, "mig_reason", a->mig.reason);
    }
    jsonw_key_str(&w, "filter", a->st.filter);
    jsonw_key(&w, "layers");
    jsonw_arr_begin(&w, false);
    for (int r = 0; r < a->n_rows; r++) {
        int ni = a->rows[r];
        const struct node *n = &a->g->nodes[ni];
        bool ok = n->state == NODE_OK;
        jsonw_obj_begin(&w);
        jsonw_key_int(&w, "index", ni);
        jsonw_key_str(&w, "name", n->name);
        jsonw_key_str(&w, "op", n->op_type);
        jsonw_key(&w, "output_shape");
        if (ok)
            jsonw_str(&w, app_cell_text(a, ni, UI_COL_SHAPE, t, sizeof t));
        else
            jsonw_null(&w);
        jsonw_key(&w, "params");
        ok ? jsonw_num(&w, n->cost.params, false) : jsonw_null(&w);
        jsonw_key(&w, "macs");
        ok ? jsonw_num(&w, n->cost.macs, false) : jsonw_null(&w);
        jsonw_key(&w, "flops");
        ok ? jsonw_num(&w, n->cost.flops, false) : jsonw_null(&w);
        jsonw_key(&w, "out_bytes");
        ok ? jsonw_num(&w, app_node_out_bytes(a, ni), false) : jsonw_null(&w);
        jsonw_key_num(&w, "time_share", app_node_share(a, ni), false);
        jsonw_key_str(&w, "bound", app_cell_text(a, ni, UI_COL_BOUND, t, sizeof t));
        jsonw_obj_end(&w);
    }
    jsonw_arr_end(&w);
    jsonw_obj_end(&w);
    return jsonw_take(&w, len);
}

enum status app_export(struct app *a, const char *format, const char *path, bool force,
                       char *what, int what_size, struct diag *d)
{
    if (!a->g || !a->have_pred)
        return diag_set(d, ST_EUSAGE, "nothing to export: no prediction");
    if (strcmp(format, "csv") && strcmp(format, "json"))
        return diag_set(d, ST_EUSAGE, "export %s: expected csv or json", format);
    bool json = !strcmp(format, "json");
    size_t len;
    /* the Sweep and Compare tabs export their own table */
    char *text = app_export_tab(a, json, &len, what, what_size);
    if (!text) { /* the filtered layers, those taking no time too: the data, not the view */
        bool shown = a->st.show_idle;
        a->st.show_idle = true;
        a->rows_dirty = true;
        app_rows_update(a);
        app_update_mig(a);
        text = json ? export_json(a, &len) : export_csv(a, &len);
        snprintf(what, (size_t)what_size, "%d layers", a->n_rows);
        a->st.show_idle = shown;
        a->rows_dirty = true;
        app_rows_update(a);
    }
    enum status st = file_write_atomic(path, text, len, force, d);
    free(text);
    if (st == ST_EEXIST) {
        diag_clear(d);
        diag_set(d, st, "%s exists; use 'export! %s %s' to overwrite", path, format, path);
    }
    return st;
}
