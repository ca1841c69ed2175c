/* screen_detail.c - one layer in depth: inputs and outputs, the cost
 * formula with this layer's numbers, arithmetic intensity against the
 * GPU's ridge point, the teacher's kernel time and the GNN share, and the
 * layer's position on an ASCII roofline. */
#include "ui/screen.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/fmt.h"
#include "core/gpu.h"
#include "graph/ops/shape.h"
#include "ui/w_plot.h"

static const struct shape *in_shape(const struct graph *g, const struct node *n, int k)
{
    if (k >= n->n_in || n->in[k] < 0)
        return NULL;
    const struct shape *s = &g->values[n->in[k]].shape;
    return s->known ? s : NULL;
}

static const struct shape *out_shape(const struct graph *g, const struct node *n)
{
    if (n->n_out < 1 || n->out[0] < 0)
        return NULL;
    const struct shape *s = &g->values[n->out[0]].shape;
    return s->known ? s : NULL;
}

/* The textbook formula for the op with this node's numbers plugged in. */
static void formula(const struct graph *g, const struct node *n, char *buf, int size)
{
    char m[32];
    const struct shape *x = in_shape(g, n, 0), *w = in_shape(g, n, 1), *y = out_shape(g, n);
    enum op_class cls = op_class_of(n->op);
    if (n->state != NODE_OK) {
        snprintf(buf, (size_t)size, "not covered: %s",
                 n->state == NODE_UNSUPPORTED ? "the op has no shape/cost support in dippm"
                                              : "an input's shape is unknown (upstream op not covered)");
        return;
    }
    if (cls == OPC_CONV && x && w && y && y->rank == 4 && w->rank == 4) {
        long long groups = node_attr_int(n, "group", 1);
        snprintf(buf, (size_t)size,
                 "MACs = N*Cout*Hout*Wout*(Cin/groups)*kH*kW = %lld*%lld*%lld*%lld*(%lld/%lld)*%lld*%lld"
                 " = %s",
                 (long long)y->d[0], (long long)y->d[1], (long long)y->d[2], (long long)y->d[3],
                 (long long)x->d[1], groups, (long long)w->d[2], (long long)w->d[3],
                 fmt_si(n->cost.macs, m, sizeof m));
        return;
    }
    if (cls == OPC_GEMM && x && w && x->rank >= 1 && w->rank >= 1) {
        bool tb = node_attr_int(n, "transB", 0) != 0, ta = node_attr_int(n, "transA", 0) != 0;
        long long k = ta ? x->d[0] : x->d[x->rank - 1];
        long long nn = tb ? w->d[0] : w->d[w->rank - 1];
        long long rows = y ? shape_numel(y) / (nn > 0 ? nn : 1) : 0;
        snprintf(buf, (size_t)size, "MACs = rows*K*N = %lld*%lld*%lld = %s  (rows = all output "
                 "dims but the last)",
                 rows, k, nn, fmt_si(n->cost.macs, m, sizeof m));
        return;
    }
    long long elems = y ? (long long)shape_numel(y) : 0;
    if (n->cost.flops > 0 && elems > 0)
        snprintf(buf, (size_t)size, "FLOPs = %.3g per output element * %lld elements = %s (%s op)",
                 n->cost.flops / (double)elems, elems, fmt_si(n->cost.flops, m, sizeof m),
                 op_class_name(cls));
    else
        snprintf(buf, (size_t)size, "no arithmetic: moves %s (%s op)",
                 fmt_bytes(n->cost.bytes_read + n->cost.bytes_written, m, sizeof m),
                 op_class_name(cls));
}

static const char *fmt_flops(double v, char *buf, int size)
{
    char t[32];
    snprintf(buf, (size_t)size, "%sFLOP/s", fmt_si(v, t, sizeof t));
    return buf;
}

static void roofline(const struct app_kernel *k, struct ui_canvas *c, struct ui_rect r)
{
    if (!k->valid || r.h < 6)
        return;
    /* the roof sampled on a log grid, plus the ridge point itself */
    double intensity = k->bytes > 0 ? k->flops / k->bytes : 0;
    double achieved = k->time_s > 0 ? k->flops / k->time_s : 0;
    double xs[16], ys[16], px[1] = {intensity}, py[1] = {achieved};
    bool pv[1] = {intensity > 0 && achieved > 0};
    double ridge = k->peak / k->bw;
    int n = 0;
    for (double x = 0.01; x <= 10000 * 1.0001 && n < 15; x *= 10) {
        if (n > 0 && xs[n - 1] < ridge && x > ridge) {
            xs[n] = ridge;
            ys[n++] = k->peak;
        }
        xs[n] = x;
        ys[n++] = fmin(k->peak, k->bw * x);
    }
    struct w_plot p;
    memset(&p, 0, sizeof p);
    char title[200], peak[64], b[32], who[48];
    snprintf(who, sizeof who, k->members > 1 ? "its kernel (%d nodes)" : "this layer",
             k->members);
    snprintf(title, sizeof title, "Roofline of %s, %s %s (x: FLOP/byte, log)  %s = %s", k->hw_label,
             precision_name(k->prec), k->tensor_core ? "tensor cores" : "CUDA cores",
             c->utf8 ? "\u2715" : "X", who);
    snprintf(peak, sizeof peak, "peak %s", fmt_flops(k->peak, b, sizeof b));
    p.title = title;
    p.logx = p.logy = true;
    p.xmark = NAN;
    p.ymin_hint = NAN;
    p.fmt_y = fmt_flops;
    p.series[0] = (struct w_plot_series){xs, ys, NULL, n, UI_STYLE_LIMIT, 0, true, "roof"};
    p.series[1] = (struct w_plot_series){px, py, pv, 1, UI_STYLE_BAD, c->utf8 ? 0x2715 : 'X',
                                         false, "layer"};
    p.n_series = 2;
    p.hlines[0] = (struct w_plot_hline){k->peak, peak, UI_STYLE_LIMIT};
    p.n_hlines = 1;
    w_plot_draw(&p, c, r);
}

void screen_detail_draw_node(struct app *a, int ni, struct ui_canvas *c, struct ui_rect r)
{
    draw_clear(c, r, UI_STYLE_NORMAL);
    if (!a->g || ni < 0 || ni >= a->g->n_nodes) {
        draw_text_words(c, r.y, r.x, r.w, UI_STYLE_DIM,
                        "no layer selected: pick one in the Layers or Graph tab and press Enter");
        return;
    }
    const struct graph *g = a->g;
    const struct node *n = &g->nodes[ni];
    char t[512], b1[32], b2[32], b3[32], b4[32], b5[32];
    int y = r.y, yend = r.y + r.h;
    snprintf(t, sizeof t, "%s %s  (node %d%s%s)", n->op_type, n->name, ni, n->block ? ", block " : "",
             n->block ? n->block : "");
    draw_text_words(c, y++, r.x, r.w, UI_STYLE_TITLE, t);
    for (int k = 0; k < n->n_in && y < yend - 1 && k < 4; k++) {
        if (n->in[k] < 0)
            continue;
        const struct value *v = &g->values[n->in[k]];
        snprintf(t, sizeof t, "in%d  %s %s%s", k, v->name, shape_str(&v->shape, b1, sizeof b1),
                 v->flags & VAL_INIT ? " (weights)" : "");
        draw_text_words(c, y++, r.x + 1, r.w - 1, UI_STYLE_NORMAL, t);
    }
    if (n->n_out > 0 && n->out[0] >= 0 && y < yend) {
        const struct value *v = &g->values[n->out[0]];
        snprintf(t, sizeof t, "out  %s %s %s", v->name, shape_str(&v->shape, b1, sizeof b1),
                 dtype_name(v->idtype));
        draw_text_words(c, y++, r.x + 1, r.w - 1, UI_STYLE_NORMAL, t);
    }
    formula(g, n, t, sizeof t);
    if (y < yend)
        draw_text_words(c, y++, r.x, r.w, n->state == NODE_OK ? UI_STYLE_VALUE : UI_STYLE_WARN, t);
    if (n->state != NODE_OK)
        return;
    const struct node_cost *k = &n->cost;
    const struct sim_result *s = &a->pred.sim;
    /* bytes at the configured precision, as the teacher moves them */
    double scale = app_node_byte_scale(a, ni);
    bool at_prec = a->have_pred && s->nodes && ni < s->n_nodes;
    snprintf(t, sizeof t, "MACs %s  FLOPs %s  params %s  read %s  written %s%s%s",
             fmt_si(k->macs, b1, sizeof b1), fmt_si(k->flops, b2, sizeof b2),
             fmt_si(k->params, b3, sizeof b3), fmt_bytes(k->bytes_read * scale, b4, sizeof b4),
             fmt_bytes(k->bytes_written * scale, b5, sizeof b5), at_prec ? " at " : "",
             at_prec ? precision_name(a->cfg.prec) : "");
    if (y < yend)
        draw_text_words(c, y++, r.x, r.w, UI_STYLE_NORMAL, t);
    struct app_kernel kv = app_kernel_view(a, ni);
    if (kv.valid && y < yend) {
        double intensity = kv.bytes > 0 ? kv.flops / kv.bytes : 0, ridge = kv.peak / kv.bw;
        snprintf(t, sizeof t,
                 "%s = FLOPs/bytes = %.3g FLOP/B; ridge at %s %s = peak/bandwidth = "
                 "%.3g FLOP/B -> %s-bound on the roofline",
                 kv.members > 1 ? "its kernel's intensity" : "intensity", intensity,
                 precision_name(kv.prec), kv.tensor_core ? "tensor cores" : "CUDA cores", ridge,
                 intensity >= ridge ? "compute" : "memory");
        draw_text_words(c, y++, r.x, r.w, UI_STYLE_NORMAL, t);
    }
    if (a->have_pred && s->nodes && ni < s->n_nodes && y < yend) {
        const struct sim_node *sn = &s->nodes[ni];
        if (sn->fused)
            snprintf(t, sizeof t, "teacher: fused into a neighbouring kernel (%s runtime)",
                     runtime_name(a->cfg.rt));
        else
            snprintf(t, sizeof t, "teacher (simulated): kernel %s, roofline bound %s, %s; share %.1f%% "
                     "(%s)",
                     fmt_ms(sn->time_s * 1e3, b1, sizeof b1), fmt_ms(sn->roofline_s * 1e3, b2, sizeof b2),
                     bound_name(sn->bound), app_node_share(a, ni) * 100,
                     app_teacher_only(a) ? "teacher" : "GNN");
        draw_text_words(c, y++, r.x, r.w, UI_STYLE_NORMAL, t);
    }
    if (yend - y >= 6)
        roofline(&kv, c, (struct ui_rect){y, r.x, yend - y, r.w});
}

static void draw(struct app *a, struct ui_canvas *c, struct ui_rect r)
{
    screen_detail_draw_node(a, a->st.detail_node, c, r);
}

static unsigned on_action(struct app *a, enum ui_action act, struct ui_rect r)
{
    if (!a->g)
        return 0;
    /* Up/Down walk the layer table's order without leaving the detail */
    app_rows_update(a);
    struct ui_list *l = &a->st.list[UI_TAB_LAYERS];
    int delta = act == UI_ACT_UP ? -1 : act == UI_ACT_DOWN ? 1 : 0;
    if (!delta || a->n_rows == 0)
        return act == UI_ACT_ENTER ? UI_HANDLED : 0;
    int cur = app_row_of_node(a, a->st.detail_node);
    ui_list_select(l, (cur < 0 ? l->sel : cur) + delta, a->n_rows, 1000000);
    a->st.detail_node = a->rows[l->sel];
    return UI_HANDLED | UI_REDRAW;
}

const struct screen_ops screen_detail_ops = {
    .name = "detail", .draw = draw, .on_action = on_action,
};
