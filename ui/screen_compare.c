/* screen_compare.c - pinned configurations side by side (possibly of
 * different models): every figure with its change against the first pin,
 * then the layers whose predicted time changed most between the first pin
 * and the chosen column (Left/Right), matched by structure, then name
 * (app_compare.c). */
#include "ui/screen.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/fmt.h"
#include "core/gpu.h"
#include "core/price.h"

/* One column: a pin or the current state. */
struct col {
    const char *title;
    char model[96];
    struct config cfg;
    double latency_ms, teacher_ms, throughput, energy_j, memory_mib;
    double cost; /* per 1,000 samples at :price or the price table's; NAN: unpriced */
};

/* The cost of 1,000 samples in configuration cfg at throughput tput. */
static double cost_1k(const struct app *a, const struct config *cfg, double tput)
{
    struct price p = {.per_hour = a->price_per_hour};
    if (!(p.per_hour > 0) && !price_table_find(&a->prices, cfg, &p))
        return NAN;
    return price_cost(p.per_hour, tput, 1e3);
}

static int columns(struct app *a, struct col *cols)
{
    static const char *const titles[] = {"pin 1 (base)", "pin 2", "pin 3", "pin 4"};
    _Static_assert(sizeof titles / sizeof titles[0] == APP_PINS_MAX, "pin titles");
    int n = 0;
    for (int i = 0; i < a->n_pins; i++) {
        const struct app_snapshot *p = &a->pins[i];
        cols[n++] = (struct col){titles[i], "", p->cfg, p->latency_ms, p->teacher_ms,
                                 p->throughput, p->energy_j, p->memory_mib,
                                 cost_1k(a, &p->cfg, p->throughput)};
        snprintf(cols[n - 1].model, sizeof cols[0].model, "%s", p->model);
    }
    const char *base = strrchr(a->spec, '/');
    cols[n] = (struct col){"now", "", a->cfg, a->pred.latency_ms, a->pred.sim.latency_ms,
                           a->pred.throughput, a->pred.energy_j, a->pred.memory_mib,
                           cost_1k(a, &a->cfg, a->pred.throughput)};
    draw_mid_cut(base ? base + 1 : a->spec, (int)sizeof cols[0].model - 4, cols[n].model,
                 sizeof cols[0].model);
    return n + 1;
}

enum row {
    R_MODEL, R_GPU, R_PREC, R_BATCH, R_LAT, R_TEACHER, R_TPUT, R_ENERGY, R_ESAMPLE, R_COST,
    R_MEM, R__COUNT
};

/* energy/sample and cost/1k samples compare pins of different batches;
 * energy/batch alone would not */
static const char *const row_names[R__COUNT] = {
    "model", "GPU", "precision", "batch", NULL, "teacher latency", "throughput",
    "energy/batch", "energy/sample", "cost/1k samples", "peak memory"};

static double row_value(const struct col *c, enum row r)
{
    switch (r) {
    case R_LAT: return c->latency_ms;
    case R_TEACHER: return c->teacher_ms;
    case R_TPUT: return c->throughput;
    case R_ENERGY: return c->energy_j;
    case R_ESAMPLE: return c->cfg.batch > 0 ? c->energy_j / (double)c->cfg.batch : NAN;
    case R_COST: return c->cost;
    case R_MEM: return c->memory_mib;
    default: return NAN;
    }
}

static void cell_text(const struct col *c, enum row r, char *buf, int size)
{
    const struct gpu_spec *g = gpu_get(c->cfg.gpu);
    switch (r) {
    case R_MODEL: snprintf(buf, (size_t)size, "%s", c->model); break;
    case R_GPU:
        snprintf(buf, (size_t)size, "%s%s%s", g ? g->name : "?", c->cfg.mig >= 0 ? " " : "",
                 g && c->cfg.mig >= 0 && c->cfg.mig < g->n_mig ? g->mig[c->cfg.mig].name : "");
        break;
    case R_PREC: {
        char prec[96];
        snprintf(buf, (size_t)size, "%s %s", config_prec_label(&c->cfg, prec, sizeof prec),
                 runtime_name(c->cfg.rt));
        break;
    }
    case R_BATCH: snprintf(buf, (size_t)size, "%lld", (long long)c->cfg.batch); break;
    case R_LAT:
    case R_TEACHER: fmt_ms(row_value(c, r), buf, size); break;
    case R_TPUT: fmt_rate(c->throughput, buf, size); break;
    case R_ENERGY:
    case R_ESAMPLE: fmt_joules(row_value(c, r), buf, size); break;
    case R_COST:
        if (isnan(c->cost))
            snprintf(buf, (size_t)size, "no price (:price)");
        else
            fmt_num(c->cost, buf, size);
        break;
    case R_MEM: fmt_bytes(c->memory_mib * 1048576.0, buf, size); break;
    default: buf[0] = 0;
    }
}

static void draw_figures(struct app *a, struct ui_canvas *c, struct ui_rect r, struct col *cols,
                         int n, int *y)
{
    int lw = 17, cw = (r.w - lw) / n;
    if (cw > 30)
        cw = 30;
    int sel = a->st.list[UI_TAB_COMPARE].sel;
    draw_clear(c, (struct ui_rect){*y, r.x, 1, r.w}, UI_STYLE_HEADING);
    for (int k = 0; k < n; k++) {
        char t[48];
        snprintf(t, sizeof t, "%s%s", k == sel && k > 0 ? "> " : "", cols[k].title);
        draw_text(c, *y, r.x + lw + k * cw, cw - 1, k == sel && k > 0 ? UI_STYLE_TITLE
                                                                      : UI_STYLE_HEADING, t);
    }
    (*y)++;
    for (int rw = 0; rw < R__COUNT && *y < r.y + r.h; rw++, (*y)++) {
        const char *label = row_names[rw] ? row_names[rw]
                            : app_teacher_only(a) ? "latency (teacher)" : "latency (GNN)";
        draw_text(c, *y, r.x, lw - 1, UI_STYLE_LABEL, label);
        for (int k = 0; k < n; k++) {
            char t[96], dt[32];
            cell_text(&cols[k], (enum row)rw, t, sizeof t);
            int x = r.x + lw + k * cw;
            int used = draw_text_mid(c, *y, x, cw - 1, UI_STYLE_VALUE, t);
            double v = row_value(&cols[k], (enum row)rw), v0 = row_value(&cols[0], (enum row)rw);
            if (k == 0 || isnan(v) || used + 3 >= cw - 1)
                continue;
            fmt_delta(v, v0, dt, sizeof dt);
            bool lower_better = rw != R_TPUT;
            enum ui_style st = v == v0                            ? UI_STYLE_DIM
                               : (v < v0) == lower_better ? UI_STYLE_GOOD
                                                                  : UI_STYLE_BAD;
            draw_text(c, *y, x + used + 1, cw - used - 2, st, dt);
        }
    }
}

static void draw_layers(struct app *a, struct ui_canvas *c, struct ui_rect r, struct col *cols,
                        int n, int y)
{
    int sel = a->st.list[UI_TAB_COMPARE].sel;
    if (sel < 1 || sel >= n || y + 2 >= r.y + r.h)
        return;
    const struct app_compare *cmp = app_compare_layers(a, sel);
    int only = 0, changed = 0;
    for (int i = 0; i < cmp->n; i++) {
        only += cmp->v[i].base_idx < 0 || cmp->v[i].other_idx < 0;
        changed += cmp->v[i].other_ms != cmp->v[i].base_ms;
    }
    char t[256];
    snprintf(t, sizeof t, "Layers, %s -> %s: %d changed, %d only in one of them (Left/Right: "
                          "column, Up/Down: scroll)",
             cols[0].title, cols[sel].title, changed, only);
    y++;
    draw_text_words(c, y++, r.x, r.w, UI_STYLE_TITLE, t);
    int nw = r.w - 4 * 11 > 20 ? r.w - 4 * 11 : 20;
    draw_clear(c, (struct ui_rect){y, r.x, 1, r.w}, UI_STYLE_HEADING);
    draw_textf(c, y++, r.x, r.w, UI_STYLE_HEADING, "%-*s %10s %10s %10s %9s", nw - 1, "layer",
               "base", cols[sel].title, "delta", "change");
    int vis = r.y + r.h - y;
    int *top = &a->st.list[UI_TAB_COMPARE].top;
    if (*top > cmp->n - vis)
        *top = cmp->n - vis;
    if (*top < 0)
        *top = 0;
    for (int k = 0; k < vis && *top + k < cmp->n; k++, y++) {
        const struct app_layer_delta *d = &cmp->v[*top + k];
        char b1[24], b2[24], b3[32], b4[24];
        draw_text_mid(c, y, r.x, nw - 1, UI_STYLE_NORMAL, d->name);
        double dd = d->other_ms - d->base_ms;
        snprintf(b1, sizeof b1, "%s", d->base_idx < 0 ? "-" : fmt_ms(d->base_ms, b4, sizeof b4));
        snprintf(b2, sizeof b2, "%s", d->other_idx < 0 ? "-" : fmt_ms(d->other_ms, b4, sizeof b4));
        fmt_ms(fabs(dd), b4, sizeof b4);
        snprintf(b3, sizeof b3, "%s%s", dd > 0 ? "+" : dd < 0 ? "-" : "", b4);
        fmt_delta(d->other_ms, d->base_ms, b4, sizeof b4);
        if (d->base_idx < 0 || d->other_idx < 0)
            snprintf(b4, sizeof b4, "%s", d->base_idx < 0 ? "new" : "gone");
        enum ui_style st = dd > 0 ? UI_STYLE_BAD : dd < 0 ? UI_STYLE_GOOD : UI_STYLE_DIM;
        draw_textf(c, y, r.x + nw, r.w - nw, UI_STYLE_NORMAL, "%10s %10s", b1, b2);
        draw_textf(c, y, r.x + nw + 22, r.w - nw - 22, st, "%10s %9s", b3, b4);
    }
}

static void draw(struct app *a, struct ui_canvas *c, struct ui_rect r)
{
    draw_clear(c, r, UI_STYLE_NORMAL);
    if (a->n_pins == 0) {
        draw_text_wrap(c, r.y, r.x, r.w, r.h, UI_STYLE_DIM,
                       "Nothing pinned yet. P pins the current configuration; change the batch, "
                       "GPU, precision or even the model (:open) and pin again. This tab then "
                       "shows every pin and the current state side by side, each figure with its "
                       "change against the first pin, and the layers whose predicted time changed "
                       "most. :unpin forgets the pins.");
        return;
    }
    struct col cols[APP_PINS_MAX + 1];
    int n = columns(a, cols);
    struct ui_list *l = &a->st.list[UI_TAB_COMPARE];
    if (l->sel < 1 || l->sel >= n)
        l->sel = n - 1;
    int y = r.y;
    draw_figures(a, c, r, cols, n, &y);
    draw_layers(a, c, r, cols, n, y);
}

static unsigned on_action(struct app *a, enum ui_action act, struct ui_rect r)
{
    struct ui_list *l = &a->st.list[UI_TAB_COMPARE];
    int n = a->n_pins + 1, page = r.h > 16 ? r.h - 15 : 1;
    switch (act) {
    case UI_ACT_LEFT: l->sel = l->sel > 1 ? l->sel - 1 : n - 1; break;
    case UI_ACT_RIGHT: l->sel = l->sel < n - 1 ? l->sel + 1 : 1; break;
    case UI_ACT_UP: l->top--; break;
    case UI_ACT_DOWN: l->top++; break;
    case UI_ACT_PAGE_UP: l->top -= page; break;
    case UI_ACT_PAGE_DOWN: l->top += page; break;
    case UI_ACT_HALF_UP: l->top -= (page + 1) / 2; break;
    case UI_ACT_HALF_DOWN: l->top += (page + 1) / 2; break;
    case UI_ACT_HOME: l->top = 0; break;
    case UI_ACT_END: l->top = 1 << 30; break;
    default: return 0;
    }
    if (l->top < 0)
        l->top = 0;
    return UI_HANDLED | UI_REDRAW;
}

const struct screen_ops screen_compare_ops = {
    .name = "compare", .draw = draw, .on_action = on_action,
};
