/* screen_heat.c - the Sweep tab's heat map (H): the batch 1..1024 down,
 * every precision or every MIG slice and the whole GPU across; each cell
 * coloured by its latency (or throughput, m) in UI_HEAT_BUCKETS buckets,
 * marked > where its latency is over the SLO and x where the model does not
 * fit the slice's memory with the headroom. Enter uses the cell's batch and
 * precision or slice. */
#include "ui/screen.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/fit.h"
#include "core/gpu.h"
#include "util/fmt.h"

#define HEAT_LABEL_W 7 /* "  batch" */

static bool by_throughput(const struct app *a)
{
    return a->st.metric == UI_METRIC_THROUGHPUT;
}

/* The cell's "cost" on the colour scale: its latency, or the time per
 * sample for throughput (so the coolest colour is always the best cell). */
static double cost(const struct app *a, const struct grid_cell *c)
{
    return by_throughput(a) ? 1.0 / c->throughput : c->latency_ms;
}

/* The edges of the buckets on a log scale between the best and worst
 * cell: edge[k] is the top of bucket k. */
static void bucket_edges(const struct app *a, const struct grid *g, double edge[UI_HEAT_BUCKETS])
{
    double lo = INFINITY, hi = 0;
    for (int r = 0; r < g->n_rows; r++)
        for (int k = 0; k < g->n_cols; k++)
            if (g->cell[r][k].ok && cost(a, &g->cell[r][k]) > 0) {
                lo = fmin(lo, cost(a, &g->cell[r][k]));
                hi = fmax(hi, cost(a, &g->cell[r][k]));
            }
    if (!(hi > lo))
        lo = hi = hi > 0 ? hi : 1;
    for (int b = 0; b < UI_HEAT_BUCKETS; b++)
        edge[b] = lo * pow(hi / lo, (b + 1.0) / UI_HEAT_BUCKETS);
}

static int bucket_of(double v, const double edge[UI_HEAT_BUCKETS])
{
    int b = 0;
    while (b < UI_HEAT_BUCKETS - 1 && v > edge[b] * (1 + 1e-12))
        b++;
    return b;
}

static bool over_slo(const struct app *a, const struct grid_cell *c)
{
    return a->slo_ms > 0 && c->latency_ms > a->slo_ms;
}

static bool no_fit(const struct app *a, const struct grid_cell *c)
{
    return !fit_ok(c->memory_mib, a->headroom, c->usable_mib);
}

static const char *value_text(const struct app *a, const struct grid_cell *c, char *b, int size)
{
    return by_throughput(a) ? fmt_rate(c->throughput, b, size) : fmt_ms(c->latency_ms, b, size);
}

static int cell_w(const struct grid *g, int w)
{
    int cw = g->n_cols ? (w - HEAT_LABEL_W) / g->n_cols : 0;
    return cw > 12 ? 12 : cw;
}

static void draw_row(struct app *a, struct ui_canvas *c, int y, struct ui_rect r, int row,
                     const double edge[UI_HEAT_BUCKETS])
{
    const struct grid *g = &a->heat.grid;
    int cw = cell_w(g, r.w);
    draw_textf(c, y, r.x, HEAT_LABEL_W, UI_STYLE_LABEL, "%7lld", (long long)g->batch[row]);
    for (int k = 0; k < g->n_cols; k++) {
        const struct grid_cell *gc = &g->cell[row][k];
        int x = r.x + HEAT_LABEL_W + k * cw;
        char v[32], t[48];
        if (!gc->ok) {
            draw_textf(c, y, x, cw, UI_STYLE_DIM, "%*s ", cw - 2, "n/a");
        } else {
            const char *mark = no_fit(a, gc)     ? (c->utf8 ? "\u2715" : "x")
                               : over_slo(a, gc) ? ">"
                                                 : " ";
            snprintf(t, sizeof t, "%*s%s", cw - 2, value_text(a, gc, v, sizeof v), mark);
            draw_text(c, y, x + 1, cw - 1, UI_STYLE_HEAT1 + bucket_of(cost(a, gc), edge), t);
        }
        if (row == a->st.heat_row && k == a->st.heat_col)
            draw_restyle(c, y, x + 1, cw - 1, UI_STYLE_SELECTED);
    }
}

/* The colour scale, the markers, then the selected cell in words. */
static void draw_legend(struct app *a, struct ui_canvas *c, int y, struct ui_rect r,
                        const double edge[UI_HEAT_BUCKETS], bool roomy)
{
    const struct grid *g = &a->heat.grid;
    int x = r.x;
    char b[32], t[160];
    for (int k = 0; k < UI_HEAT_BUCKETS; k++) {
        double e = by_throughput(a) ? 1.0 / edge[k] : edge[k];
        snprintf(t, sizeof t, " %s%s ",
                 by_throughput(a) ? (c->utf8 ? "\u2265" : ">=") : (c->utf8 ? "\u2264" : "<="),
                 by_throughput(a) ? fmt_rate(e, b, sizeof b) : fmt_ms(e, b, sizeof b));
        x += draw_text(c, y, x, r.x + r.w - x, UI_STYLE_HEAT1 + k, t);
        x += draw_text(c, y, x, r.x + r.w - x, UI_STYLE_NORMAL, " ");
    }
    char slo[48] = "";
    if (a->slo_ms > 0)
        snprintf(slo, sizeof slo, "> over SLO %s  ", fmt_ms(a->slo_ms, b, sizeof b));
    snprintf(t, sizeof t, "%s%s does not fit (+%.0f%%)", slo, c->utf8 ? "\u2715" : "x",
             a->headroom * 100);
    if (roomy) {
        y++;
        x = r.x;
    }
    draw_text_words(c, y, x, r.x + r.w - x, UI_STYLE_DIM, t);
    int row = a->st.heat_row, k = a->st.heat_col;
    if (row >= g->n_rows || k >= g->n_cols)
        return;
    const struct grid_cell *gc = &g->cell[row][k];
    if (!gc->ok) {
        draw_text_words(c, y + 1, r.x, r.w, UI_STYLE_ERROR, g->col_why[k]);
        return;
    }
    char b1[32], b2[32], b3[32], b4[32];
    snprintf(t, sizeof t, "batch %lld, %s: %s, %s, %s of %s usable%s%s", (long long)g->batch[row],
             g->col_name[k], fmt_ms(gc->latency_ms, b1, sizeof b1),
             fmt_rate(gc->throughput, b2, sizeof b2), fmt_mib(gc->memory_mib, b3, sizeof b3),
             fmt_mib(gc->usable_mib, b4, sizeof b4), no_fit(a, gc) ? ", does not fit" : "",
             over_slo(a, gc) ? ", over the SLO" : "");
    draw_text_words(c, y + 1, r.x, r.w, UI_STYLE_VALUE, t);
}

/* The cell of the configuration itself (its batch, precision or slice). */
static void start_cell(struct app *a)
{
    const struct grid *g = &a->heat.grid;
    a->st.heat_row = a->st.heat_col = 0;
    for (int r = 0; r < g->n_rows; r++)
        if (g->batch[r] == a->cfg.batch)
            a->st.heat_row = r;
    for (int k = 0; k < g->n_cols; k++)
        if (g->axis == GRID_SLICE ? g->col[k].mig == a->cfg.mig : g->col[k].prec == a->cfg.prec)
            a->st.heat_col = k;
}

void screen_heat_draw(struct app *a, struct ui_canvas *c, struct ui_rect r)
{
    enum grid_axis axis = a->st.heat == 2 ? GRID_SLICE : GRID_PRECISION;
    app_heat_ensure(a, axis);
    const struct grid *g = &a->heat.grid;
    const struct gpu_spec *gpu = gpu_get(a->cfg.gpu);
    char t[200];
    snprintf(t, sizeof t, "%s (%s), batch x %s, %s %s", by_throughput(a) ? "Throughput" : "Latency",
             app_teacher_only(a) ? "teacher" : "GNN", grid_axis_name(axis), gpu ? gpu->name : "?",
             axis == GRID_SLICE ? precision_name(a->cfg.prec) : runtime_name(a->cfg.rt));
    int x = r.x + draw_text_words(c, r.y, r.x, r.w, UI_STYLE_TITLE, t);
    snprintf(t, sizeof t, "  (H: next view, m: %s)", by_throughput(a) ? "latency" : "throughput");
    if (draw_strwidth(t) <= r.x + r.w - x) /* the keys only where they fit whole */
        draw_text(c, r.y, x, r.x + r.w - x, UI_STYLE_DIM, t);
    if (a->heat.err[0] || g->n_rows == 0) {
        draw_text_words(c, r.y + 1, r.x, r.w, UI_STYLE_ERROR,
                        a->heat.err[0] ? a->heat.err : "no model");
        return;
    }
    int cw = cell_w(g, r.w);
    draw_clear(c, (struct ui_rect){r.y + 1, r.x, 1, r.w}, UI_STYLE_HEADING);
    draw_text(c, r.y + 1, r.x, HEAT_LABEL_W, UI_STYLE_HEADING, "  batch");
    for (int k = 0; k < g->n_cols; k++)
        draw_textf(c, r.y + 1, r.x + HEAT_LABEL_W + k * cw, cw, UI_STYLE_HEADING, "%*.*s", cw - 1,
                   cw - 1, g->col_name[k]);
    if (a->st.heat_row < 0) /* just opened: start on the configuration's cell */
        start_cell(a);
    if (a->st.heat_row >= g->n_rows)
        a->st.heat_row = g->n_rows - 1;
    if (a->st.heat_col >= g->n_cols)
        a->st.heat_col = g->n_cols - 1;
    bool roomy = r.h >= g->n_rows + 5; /* the markers on a line of their own */
    int vis = r.h - (roomy ? 5 : 4), top = a->st.heat_row >= vis ? a->st.heat_row - vis + 1 : 0;
    double edge[UI_HEAT_BUCKETS];
    bucket_edges(a, g, edge);
    for (int i = 0; i < vis && top + i < g->n_rows; i++)
        draw_row(a, c, r.y + 2 + i, r, top + i, edge);
    int rows = g->n_rows - top < vis ? g->n_rows - top : vis;
    if (rows > 0)
        draw_legend(a, c, r.y + 2 + rows, r, edge, roomy);
}

/* Enter: the selected cell's batch and precision or slice. */
static void use_cell(struct app *a)
{
    const struct grid *g = &a->heat.grid;
    int row = a->st.heat_row, k = a->st.heat_col;
    if (row >= g->n_rows || k >= g->n_cols)
        return;
    struct config cfg = a->cfg;
    cfg.batch = g->batch[row];
    if (g->axis == GRID_SLICE)
        cfg.mig = g->col[k].mig;
    else
        cfg.prec = g->col[k].prec;
    struct diag d = {0};
    if (app_set_config(a, &cfg, &d))
        ui_state_message(&a->st, true, "%s", d.msg);
    else
        ui_state_message(&a->st, false, "batch %lld, %s", (long long)cfg.batch, g->col_name[k]);
}

unsigned screen_heat_action(struct app *a, enum ui_action act)
{
    const struct grid *g = &a->heat.grid;
    int *row = &a->st.heat_row, *col = &a->st.heat_col;
    switch (act) {
    case UI_ACT_UP:
        *row -= *row > 0;
        break;
    case UI_ACT_DOWN:
        *row += *row + 1 < g->n_rows;
        break;
    case UI_ACT_HOME:
    case UI_ACT_PAGE_UP:
        *row = 0;
        break;
    case UI_ACT_END:
    case UI_ACT_PAGE_DOWN:
        *row = g->n_rows > 0 ? g->n_rows - 1 : 0;
        break;
    case UI_ACT_LEFT:
        *col -= *col > 0;
        break;
    case UI_ACT_RIGHT:
        *col += *col + 1 < g->n_cols;
        break;
    case UI_ACT_METRIC:
        a->st.metric = by_throughput(a) ? UI_METRIC_LATENCY : UI_METRIC_THROUGHPUT;
        break;
    case UI_ACT_ENTER:
        use_cell(a);
        break;
    default:
        return 0;
    }
    return UI_HANDLED | UI_REDRAW;
}
