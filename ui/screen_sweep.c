/* screen_sweep.c - latency, throughput and memory against batch 1..1024,
 * with the GPU's MIG capacities as reference lines, and for a decoder its
 * time to first token and output tokens/s with the batches whose KV cache
 * does not fit marked; computed only while this tab is visible and only
 * when the configuration changed. */
#include "ui/screen.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/fmt.h"
#include "core/fit.h"
#include "core/gpu.h"
#include "core/mig.h"
#include "ui/w_plot.h"

static const char *const metric_names[UI_METRIC__COUNT] = {
    "latency", "throughput", "memory", "TTFT", "tokens/s", "MIG profiles"};

/* The smallest MIG profile of the GPU whose usable memory holds mib. */
/* The smallest MIG profile that holds a row's memory with the headroom,
 * by the advisor's own rule (mig_smallest_fit), so the current row names
 * the profile the MIG line names when no latency target is set. */
static const char *smallest_fit(const struct app *a, double mib)
{
    const struct gpu_spec *gpu = gpu_get(a->cfg.gpu);
    int k = mig_smallest_fit(&a->cfg, mib, a->headroom);
    if (gpu && k >= 0)
        return gpu->mig[k].name;
    return gpu && !gpu->n_mig && fit_ok(mib, a->headroom, a->sweep.capacity_mib) ? "full GPU"
                                                                                 : "none";
}

static int table_w(struct ui_rect r)
{
    return r.w >= 70 ? 40 : 0;
}

/* The MIG advisor's per-profile figures for the current configuration. */
static void draw_mig_table(struct app *a, struct ui_canvas *c, struct ui_rect r)
{
    const struct gpu_spec *gpu = gpu_get(a->cfg.gpu);
    char t[160];
    snprintf(t, sizeof t, "Every MIG profile of %s at this configuration (m: next view)",
             gpu ? gpu->name : "?");
    draw_text(c, r.y, r.x, r.w, UI_STYLE_TITLE, t);
    if (!a->have_mig) { /* the controller computes it after this redraw */
        draw_text(c, r.y + 1, r.x, r.w, UI_STYLE_DIM, a->mig_err[0] ? a->mig_err : "no advice");
        return;
    }
    const struct mig_advice *m = &a->mig;
    draw_clear(c, (struct ui_rect){r.y + 1, r.x, 1, r.w}, UI_STYLE_HEADING);
    draw_textf(c, r.y + 1, r.x, r.w, UI_STYLE_HEADING, "%-12s %10s %11s %11s %-9s %s", "profile",
               "latency", "memory", "usable", "fits", a->slo_ms > 0 ? "meets SLO" : "");
    for (int i = 0; i < m->n && r.y + 2 + i < r.y + r.h; i++) {
        const struct mig_option *o = &m->opts[i];
        char b1[32], b2[32], b3[32], slo[32] = "";
        if (a->slo_ms > 0)
            snprintf(slo, sizeof slo, "%s", o->meets_slo ? "yes" : "no");
        enum ui_style st = o->profile == m->best ? UI_STYLE_GOOD
                           : !o->fits || !o->meets_slo ? UI_STYLE_DIM
                                                       : UI_STYLE_NORMAL;
        draw_textf(c, r.y + 2 + i, r.x, r.w, st, "%-12s %10s %11s %11s %-9s %s%s",
                   gpu->mig[o->profile].name, fmt_ms(o->latency_ms, b1, sizeof b1),
                   fmt_mib(o->memory_mib, b2, sizeof b2), fmt_mib(o->usable_mib, b3, sizeof b3),
                   o->fits ? "yes" : "no", slo, o->profile == m->best ? "  <- suggested" : "");
    }
}

static bool is_gen_metric(enum ui_sweep_metric m)
{
    return m == UI_METRIC_TTFT || m == UI_METRIC_TOKENS;
}

/* What one chart shows: its values, which are valid, and which do not fit
 * (the pass's memory, or the generation's weights + KV cache + ...). */
struct sweep_view {
    const double *ys;
    const bool *valid;
    bool bad[APP_SWEEP_MAX];
    int n_bad;
};

static void sweep_view(const struct app *a, enum ui_sweep_metric m, struct sweep_view *v)
{
    const struct app_sweep *sw = &a->sweep;
    bool gen = is_gen_metric(m);
    v->ys = m == UI_METRIC_LATENCY      ? sw->latency_ms
            : m == UI_METRIC_THROUGHPUT ? sw->throughput
            : m == UI_METRIC_TTFT       ? sw->ttft_ms
            : m == UI_METRIC_TOKENS     ? sw->tokens_s
                                        : sw->memory_mib;
    v->valid = gen ? sw->gen_ok : sw->ok;
    v->n_bad = 0;
    for (int i = 0; i < sw->n; i++) {
        v->bad[i] = gen ? sw->gen_ok[i] && !sw->gen_fits[i]
                        : sw->ok[i] && !app_sweep_fits(a, i);
        v->n_bad += v->bad[i];
    }
}

static void chart_title(const struct app *a, enum ui_sweep_metric m, int n_bad, char *t, int size)
{
    static const char *const what[UI_METRIC__COUNT] = {"Latency", "Throughput", "Peak memory",
                                                       "Time to first token", "Output tokens/s"};
    const struct app_sweep *sw = &a->sweep;
    char gen[96] = "", mb[48] = "";
    if (is_gen_metric(m)) {
        if (sw->gen_max_batch > 0)
            snprintf(mb, sizeof mb, "; serving max batch %lld", (long long)sw->gen_max_batch);
        else if (sw->gen_max_batch == 0)
            snprintf(mb, sizeof mb, "; no batch fits");
        snprintf(gen, sizeof gen, ", %lld+%lld tokens%s", (long long)a->gen_in,
                 (long long)a->gen_out, mb);
    } else if (a->workload == WORKLOAD_GENERATION && a->g) {
        /* the header's pass, not the Generation line's */
        int s = graph_sym_find(a->g, "seq");
        if (s >= 0)
            snprintf(gen, sizeof gen, ", one pass at seq=%lld", (long long)a->g->syms[s].val);
    }
    /* a title: a long symbol name is cut to leave room for the rest */
    snprintf(t, (size_t)size, "%s vs %.100s (%s%s%s)%s", what[m], sw->over,
             app_teacher_only(a) ? "teacher" : "GNN", gen, m == UI_METRIC_MEMORY ? "; MIG sizes" : "",
             !n_bad ? "" : is_gen_metric(m) ? "; x = generation does not fit" : "; x = does not fit");
}

/* The memory chart's capacity lines: one per distinct MIG capacity (its
 * smallest profile's name) and the whole GPU. */
static void capacity_lines(const struct gpu_spec *gpu, struct w_plot *p,
                           char labels[][48])
{
    for (int i = 0; i < gpu->n_mig && p->n_hlines < W_PLOT_MAX_HLINES - 1; i++) {
        bool dup = false;
        for (int h = 0; h < p->n_hlines; h++)
            dup |= fabs(p->hlines[h].y - gpu->mig[i].usable_gib * 1024) < 1;
        if (dup || gpu->mig[i].media)
            continue;
        snprintf(labels[p->n_hlines], 48, "%s", gpu->mig[i].name);
        p->hlines[p->n_hlines] = (struct w_plot_hline){gpu->mig[i].usable_gib * 1024,
                                                       labels[p->n_hlines], UI_STYLE_LIMIT};
        p->n_hlines++;
    }
    snprintf(labels[p->n_hlines], 48, "%s", "full GPU");
    p->hlines[p->n_hlines] = (struct w_plot_hline){gpu->usable_gib * 1024, labels[p->n_hlines],
                                                   UI_STYLE_LIMIT};
    p->n_hlines++;
}

static void draw_chart(struct app *a, struct ui_canvas *c, struct ui_rect r,
                       const struct sweep_view *v)
{
    const struct app_sweep *sw = &a->sweep;
    enum ui_sweep_metric m = a->st.metric;
    double xs[APP_SWEEP_MAX];
    for (int i = 0; i < sw->n; i++)
        xs[i] = (double)sw->batch[i];
    struct w_plot p;
    memset(&p, 0, sizeof p);
    char title[200], labels[W_PLOT_MAX_HLINES][48];
    chart_title(a, m, v->n_bad, title, sizeof title);
    p.title = title;
    p.xlabel = sw->over;
    p.logx = true;
    p.logy = m != UI_METRIC_MEMORY;
    p.xmark = sw->cur >= 0 ? xs[sw->cur] : NAN;
    p.ymin_hint = m == UI_METRIC_MEMORY ? 0 : NAN;
    p.fmt_y = m == UI_METRIC_LATENCY || m == UI_METRIC_TTFT ? fmt_ms
              : m == UI_METRIC_MEMORY                       ? fmt_mib
                                                            : fmt_rate;
    p.series[0] = (struct w_plot_series){xs, v->ys, v->valid, sw->n, UI_STYLE_SERIES1,
                                         c->utf8 ? 0x25CF : '*', true, metric_names[m]};
    p.n_series = 1;
    if (v->n_bad)
        p.series[p.n_series++] = (struct w_plot_series){xs, v->ys, v->bad, sw->n, UI_STYLE_BAD,
                                                        c->utf8 ? 0x2715 : 'x', false, "no fit"};
    if ((m == UI_METRIC_LATENCY || m == UI_METRIC_TTFT) && a->slo_ms > 0) {
        snprintf(labels[p.n_hlines], sizeof labels[0], "SLO %g ms", a->slo_ms);
        p.hlines[p.n_hlines] = (struct w_plot_hline){a->slo_ms, labels[p.n_hlines], UI_STYLE_LIMIT};
        p.n_hlines++;
    }
    const struct gpu_spec *gpu = gpu_get(a->cfg.gpu);
    if (m == UI_METRIC_MEMORY && gpu)
        capacity_lines(gpu, &p, labels);
    w_plot_draw(&p, c, r);
}

/* The points as a table beside the chart: the pass's figures, or the
 * generation's for the TTFT and tokens/s charts. */
static void draw_table(struct app *a, struct ui_canvas *c, struct ui_rect r, int tw,
                       const struct sweep_view *v)
{
    const struct app_sweep *sw = &a->sweep;
    bool gen = is_gen_metric(a->st.metric);
    int x = r.x + r.w - tw + 1;
    char over[8];
    snprintf(over, sizeof over, "%.7s", sw->over);
    draw_textf(c, r.y, x, tw - 1, UI_STYLE_HEADING, "%7s %8s %9s %9s", over,
               gen ? "TTFT" : "latency", gen ? "tok/s" : "per s", "memory");
    struct ui_list *l = &a->st.list[UI_TAB_SWEEP];
    ui_list_clamp(l, sw->n, r.h - 3);
    for (int k = 0; k + l->top < sw->n && k < r.h - 3; k++) {
        int i = k + l->top, y = r.y + 1 + k;
        char b1[24], b2[24], b3[24];
        if (!v->valid[i]) {
            draw_textf(c, y, x, tw - 1, UI_STYLE_ERROR, "%7.7s %s", sw->label[i], "failed");
            continue;
        }
        enum ui_style st = v->bad[i] ? UI_STYLE_BAD : i == sw->cur ? UI_STYLE_VALUE : UI_STYLE_NORMAL;
        draw_textf(c, y, x, tw - 1, st, "%7.7s %8s %9s %9s%s", sw->label[i],
                   fmt_ms(gen ? sw->ttft_ms[i] : sw->latency_ms[i], b1, sizeof b1),
                   fmt_num(gen ? sw->tokens_s[i] : sw->throughput[i], b2, sizeof b2),
                   fmt_mib(gen ? sw->gen_mib[i] : sw->memory_mib[i], b3, sizeof b3),
                   v->bad[i] ? "!" : "");
        if (i == l->sel)
            draw_restyle(c, y, x, tw - 1, UI_STYLE_SELECTED);
    }
    if (l->sel < sw->n && v->valid[l->sel] && r.h >= 4) {
        char b[96];
        snprintf(b, sizeof b, "%.10s %.12s: fits %s (+%.0f%%)", sw->over, sw->label[l->sel],
                 smallest_fit(a, gen ? sw->gen_mib[l->sel] : sw->memory_mib[l->sel]),
                 a->headroom * 100);
        draw_text(c, r.y + r.h - 2, x, tw - 1, UI_STYLE_DIM, b);
        draw_text(c, r.y + r.h - 1, x, tw - 1, UI_STYLE_DIM, "m: view  Enter: use this value");
    }
}

static void draw(struct app *a, struct ui_canvas *c, struct ui_rect r)
{
    draw_clear(c, r, UI_STYLE_NORMAL);
    if (a->st.heat) {
        screen_heat_draw(a, c, r);
        return;
    }
    if (a->st.metric == UI_METRIC_MIG) {
        draw_mig_table(a, c, r);
        return;
    }
    app_sweep_ensure(a);
    const struct app_sweep *sw = &a->sweep;
    bool gen = is_gen_metric(a->st.metric);
    struct sweep_view v;
    sweep_view(a, a->st.metric, &v);
    bool any = false;
    for (int i = 0; i < sw->n; i++)
        any |= v.valid[i];
    const char *err = gen && !any ? sw->gen_err : sw->err;
    int tw = table_w(r);
    struct ui_rect pr = {r.y, r.x, r.h - (err[0] ? 1 : 0), r.w - tw - (tw ? 1 : 0)};
    if (sw->n > 0 && (any || !gen))
        draw_chart(a, c, pr, &v);
    if (err[0])
        draw_text(c, r.y + (sw->n > 0 && (any || !gen) ? r.h - 1 : 0), r.x, r.w, UI_STYLE_ERROR,
                  err);
    if (tw && sw->n > 0 && (any || !gen))
        draw_table(a, c, r, tw, &v);
}

/* m / Left / Right: the next chart; a decoder's TTFT and tokens/s charts are
 * skipped for other models. */
static enum ui_sweep_metric next_metric(const struct app *a, enum ui_sweep_metric m, int dir)
{
    do
        m = (enum ui_sweep_metric)((m + UI_METRIC__COUNT + dir) % UI_METRIC__COUNT);
    while (is_gen_metric(m) && a->workload != WORKLOAD_GENERATION);
    return m;
}

static unsigned on_action(struct app *a, enum ui_action act, struct ui_rect r)
{
    if (act == UI_ACT_HEATMAP) { /* the charts, batch x precision, batch x slice */
        static const char *const views[] = {"the charts (H: heat map of batch x precision)",
                                            "heat map of batch x precision (H: x MIG slice)",
                                            "heat map of batch x MIG slice (H: the charts)"};
        a->st.heat = (a->st.heat + 1) % 3;
        a->st.heat_row = -1; /* start on the configuration's cell */
        if (a->st.heat && a->st.metric != UI_METRIC_THROUGHPUT)
            a->st.metric = UI_METRIC_LATENCY;
        ui_state_message(&a->st, false, "%s", views[a->st.heat]);
        return UI_HANDLED | UI_REDRAW;
    }
    if (a->st.heat)
        return screen_heat_action(a, act);
    struct ui_list *l = &a->st.list[UI_TAB_SWEEP];
    unsigned f = screen_list_move(l, act, a->sweep.n, r.h - 3);
    if (f)
        return f;
    switch (act) {
    case UI_ACT_METRIC:
    case UI_ACT_RIGHT:
        a->st.metric = next_metric(a, a->st.metric, 1);
        return UI_HANDLED | UI_REDRAW;
    case UI_ACT_LEFT:
        a->st.metric = next_metric(a, a->st.metric, -1);
        return UI_HANDLED | UI_REDRAW;
    case UI_ACT_ENTER:
        if (l->sel < a->sweep.n && a->st.metric != UI_METRIC_MIG) {
            struct diag d = {0};
            const struct app_sweep *sw = &a->sweep;
            if (app_set_param(a, sw->over, sw->label[l->sel], &d))
                ui_state_message(&a->st, true, "%s", d.msg);
            else
                ui_state_message(&a->st, false, "%s %s", sw->over, sw->label[l->sel]);
        }
        return UI_HANDLED | UI_REDRAW;
    default:
        return 0;
    }
}

static unsigned on_click(struct app *a, struct ui_rect r, int y, int x, bool dbl)
{
    int tw = table_w(r);
    if (!tw || x < r.x + r.w - tw || y <= r.y)
        return 0;
    struct ui_list *l = &a->st.list[UI_TAB_SWEEP];
    int row = l->top + y - r.y - 1;
    if (row >= a->sweep.n)
        return 0;
    ui_list_select(l, row, a->sweep.n, r.h - 3);
    return dbl ? on_action(a, UI_ACT_ENTER, r) : UI_HANDLED | UI_REDRAW;
}

const struct screen_ops screen_sweep_ops = {
    .name = "sweep", .draw = draw, .on_action = on_action, .on_click = on_click,
};
