/* frame.c - header, predictions panel, tabs, status line, F-key bar. */
#include "frame.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "gpu.h"
#include "keymap.h"
#include "w_bar.h"

/* ---- header ---------------------------------------------------------- */

static int put(struct ui_canvas *c, int y, int x, int xend, enum ui_style st, const char *s)
{
    if (x >= xend)
        return x;
    return x + draw_text(c, y, x, xend - x, st, s);
}

static int put_field(struct ui_canvas *c, int y, int x, int xend, const char *label,
                     const char *value)
{
    x = put(c, y, x, xend, UI_STYLE_LABEL, label);
    x = put(c, y, x, xend, UI_STYLE_VALUE, value);
    return put(c, y, x, xend, UI_STYLE_LABEL, "  ");
}

static void draw_header(struct app *a, struct ui_canvas *c, struct ui_rect r)
{
    char b1[64], b2[64], line[APP_SPEC_MAX + 64];
    draw_clear(c, r, UI_STYLE_NORMAL);
    int xend = r.x + r.w, x = r.x;
    const struct graph *g = a->g;
    if (!g) {
        draw_text(c, r.y, r.x, r.w, UI_STYLE_ERROR, "no model loaded (:open MODEL)");
        return;
    }
    x = put(c, r.y, x, xend, UI_STYLE_TITLE, "dippm ");
    const char *base = strrchr(a->spec, '/');
    snprintf(line, sizeof line, "%s", base ? base + 1 : a->spec);
    x = put(c, r.y, x, xend, UI_STYLE_VALUE, line);
    snprintf(line, sizeof line, " (%s)  ", g->format ? g->format : "?");
    x = put(c, r.y, x, xend, UI_STYLE_DIM, line);
    snprintf(b1, sizeof b1, "%d", g->n_nodes);
    x = put_field(c, r.y, x, xend, "nodes ", b1);
    x = put_field(c, r.y, x, xend, "params ", fmt_si(g->totals.params, b1, sizeof b1));
    x = put_field(c, r.y, x, xend, "MACs ", fmt_si(g->totals.macs, b2, sizeof b2));
    if (a->cfg.batch > 1 && graph_batch_sym(g) >= 0) {
        char ps[64];
        snprintf(ps, sizeof ps, "(%s per sample)  ",
                 fmt_si(g->totals.macs / (double)a->cfg.batch, b1, sizeof b1));
        x = put(c, r.y, x - 1, xend, UI_STYLE_DIM, ps);
    }
    if (g->totals.n_unsupported + g->totals.n_unknown > 0) {
        snprintf(line, sizeof line, "%d ops not covered, %d downstream unknown",
                 g->totals.n_unsupported, g->totals.n_unknown);
        put(c, r.y, x, xend, UI_STYLE_WARN, line);
    }
    /* configuration line */
    x = r.x;
    int y = r.y + 1;
    const struct gpu_spec *gpu = gpu_get(a->cfg.gpu);
    snprintf(line, sizeof line, "%s%s%s", gpu ? gpu->name : "?",
             gpu && a->cfg.mig >= 0 ? " MIG " : "",
             gpu && a->cfg.mig >= 0 && a->cfg.mig < gpu->n_mig ? gpu->mig[a->cfg.mig].name : "");
    x = put_field(c, y, x, xend, "GPU ", line);
    x = put_field(c, y, x, xend, "", precision_name(a->cfg.prec));
    x = put_field(c, y, x, xend, "", runtime_name(a->cfg.rt));
    snprintf(b1, sizeof b1, "%lld", (long long)a->cfg.batch);
    x = put_field(c, y, x, xend, "batch ", b1);
    int bs = graph_batch_sym(g);
    for (int i = 0; i < g->n_syms; i++) {
        if (i == bs)
            continue;
        snprintf(line, sizeof line, "%s=", g->syms[i].name);
        snprintf(b1, sizeof b1, "%lld", (long long)g->syms[i].val);
        x = put_field(c, y, x, xend, line, b1);
    }
    if (a->slo_ms > 0) {
        snprintf(b1, sizeof b1, "%g ms", a->slo_ms);
        x = put_field(c, y, x, xend, "SLO ", b1);
    }
    /* the figures' source, as long as the line allows */
    static const char *const teacher[] = {"teacher estimate (no GNN weights)", "teacher estimate",
                                          "teacher"};
    static const char *const gnn[] = {"GNN prediction", "GNN", "GNN"};
    for (int i = 0; i < 3; i++) {
        const char *src = app_teacher_only(a) ? teacher[i] : gnn[i];
        int sw = draw_strwidth(src);
        if (x + sw < xend) {
            draw_text(c, y, xend - sw, sw, app_teacher_only(a) ? UI_STYLE_WARN : UI_STYLE_GOOD,
                      src);
            break;
        }
    }
}

/* ---- predictions ------------------------------------------------------- */

static const char *dominant_bound(const struct app *a, double *frac)
{
    const struct sim_result *s = &a->pred.sim;
    double t[BOUND__COUNT] = {0}, total = 0;
    for (int i = 0; s->nodes && i < s->n_nodes; i++) {
        if ((unsigned)s->nodes[i].bound < BOUND__COUNT)
            t[s->nodes[i].bound] += s->nodes[i].time_s;
        total += s->nodes[i].time_s;
    }
    int best = BOUND_NONE;
    for (int b = 0; b < BOUND__COUNT; b++)
        if (b != BOUND_NONE && t[b] > (best == BOUND_NONE ? 0 : t[best]))
            best = b;
    *frac = total > 0 && best != BOUND_NONE ? t[best] / total : 0;
    return bound_name((enum bound)best);
}

static int put_delta(struct app *a, struct ui_canvas *c, int y, int x, int xend, double now,
                     double old, bool lower_is_better)
{
    if (!a->st.compare || !a->pinned.valid)
        return x;
    char d[32], t[48];
    fmt_delta(now, old, d, sizeof d);
    snprintf(t, sizeof t, "(%s) ", d);
    bool better = lower_is_better ? now < old : now > old;
    return put(c, y, x, xend, now == old ? UI_STYLE_DIM : better ? UI_STYLE_GOOD : UI_STYLE_BAD,
               t);
}

static void draw_mig(struct app *a, struct ui_canvas *c, int y, int x, int xend)
{
    x = put(c, y, x, xend, UI_STYLE_LABEL, "MIG ");
    const struct gpu_spec *gpu = gpu_get(a->cfg.gpu);
    if (!a->have_mig) {
        put(c, y, x, xend, UI_STYLE_DIM, a->mig_err[0] ? a->mig_err : "no advice");
        return;
    }
    bool ok = a->mig.best >= 0 && gpu && a->mig.best < gpu->n_mig;
    if (!ok)
        x = put(c, y, x, xend, UI_STYLE_BAD, "no slice fits: ");
    /* the reason starts with the chosen profile: show that part highlighted */
    const char *reason = a->mig.reason;
    size_t nl = ok ? strlen(gpu->mig[a->mig.best].name) : 0;
    if (ok && !strncmp(reason, gpu->mig[a->mig.best].name, nl)) {
        x = put(c, y, x, xend, UI_STYLE_GOOD, gpu->mig[a->mig.best].name);
        reason += nl;
    } else if (ok) {
        x = put(c, y, x, xend, UI_STYLE_GOOD, gpu->mig[a->mig.best].name);
        x = put(c, y, x, xend, UI_STYLE_NORMAL, ": ");
    }
    put(c, y, x, xend, UI_STYLE_NORMAL, reason);
}

/* The generation of a decoder: TTFT, time per output token, tokens/s,
 * energy per token, the largest batch. */
static void draw_gen(struct app *a, struct ui_canvas *c, int y, int x, int xend)
{
    char b1[48], t[160];
    const struct gen_result *g = &a->genr;
    snprintf(t, sizeof t, "Generation %lld+%lld ", (long long)a->gen_in, (long long)a->gen_out);
    x = put(c, y, x, xend, UI_STYLE_LABEL, t);
    if (!a->have_gen) {
        put(c, y, x, xend, UI_STYLE_DIM, a->gen_err[0] ? a->gen_err : "updating...");
        return;
    }
    x = put_field(c, y, x, xend, "TTFT ", fmt_ms(g->ttft_ms, b1, sizeof b1));
    x = put_field(c, y, x, xend, "TPOT ", fmt_ms(g->tpot_ms, b1, sizeof b1));
    snprintf(t, sizeof t, "%.0f tok/s", g->output_tokens_per_s);
    x = put_field(c, y, x, xend, "", t);
    snprintf(t, sizeof t, "%.3g J/tok", g->energy_j_per_output_token);
    x = put_field(c, y, x, xend, "", t);
    if (g->max_batch > 0)
        snprintf(t, sizeof t, "%lld (%.0f tok/s)", (long long)g->max_batch,
                 g->max_output_tokens_per_s);
    else
        snprintf(t, sizeof t, "none fits");
    put_field(c, y, x, xend, "max batch ", t);
}

static void draw_pred(struct app *a, struct ui_canvas *c, struct ui_rect r)
{
    char b1[48], b2[48], t[160];
    draw_clear(c, r, UI_STYLE_NORMAL);
    int xend = r.x + r.w, x = r.x, y = r.y;
    if (!a->have_pred) {
        draw_text(c, y, x, r.w, UI_STYLE_ERROR, "no prediction for this configuration");
        return;
    }
    const struct prediction *p = &a->pred;
    const struct app_snapshot *pin = &a->pinned;
    bool wide = r.w >= 110; /* narrow terminals drop the labels the units make clear */
    snprintf(t, sizeof t, "Latency (%s) ", app_teacher_only(a) ? "teacher" : "GNN");
    x = put(c, y, x, xend, UI_STYLE_LABEL, t);
    x = put(c, y, x, xend, UI_STYLE_VALUE, fmt_ms(p->latency_ms, b1, sizeof b1));
    x = put(c, y, x, xend, UI_STYLE_NORMAL, " ");
    x = put_delta(a, c, y, x, xend, p->latency_ms, pin->latency_ms, true);
    x = put(c, y, x, xend, UI_STYLE_LABEL, " ");
    snprintf(t, sizeof t, "%s/s", fmt_si(p->throughput, b1, sizeof b1));
    x = put_field(c, y, x, xend, wide ? "Throughput " : "", t);
    x = put_delta(a, c, y, x, xend, p->throughput, pin->throughput, false);
    snprintf(t, sizeof t, wide ? "%.3g J" : "%.3g J/batch", p->energy_j);
    x = put_field(c, y, x, xend, wide ? "Energy " : "", t);
    x = put_delta(a, c, y, x, xend, p->energy_j, pin->energy_j, true);
    double bf;
    const char *bn = dominant_bound(a, &bf);
    snprintf(t, sizeof t, wide ? "%s%s, %.0f%% %s-bound" : "%s%s (%.0f%% %s)",
             c->utf8 ? "\u2265" : ">=", fmt_ms(p->sim.roofline_ms, b2, sizeof b2), bf * 100, bn);
    x = put(c, y, x, xend, UI_STYLE_LABEL, wide ? "Roofline " : "roofline ");
    put(c, y, x, xend, UI_STYLE_NORMAL, t);
    /* memory bar against the GPU or slice capacity */
    y++;
    x = r.x;
    double cap = p->capacity_mib;
    if (!(cap > 0)) {
        struct hw hw;
        if (hw_from_config(&a->cfg, &hw, NULL) == ST_OK)
            cap = hw.mem_bytes / (1024.0 * 1024.0);
    }
    /* a decoder's bar: weights + KV cache + activations of its generation */
    double mem = a->have_gen ? a->genr.mem.total_mib : p->memory_mib;
    double frac = cap > 0 ? mem / cap : 0;
    x = put(c, y, x, xend, UI_STYLE_LABEL, "Memory ");
    int bw = r.w >= 120 ? r.w / 4 : 12;
    if (x + bw < xend) {
        w_bar_draw(c, y, x, bw, frac, w_bar_level(frac), UI_STYLE_DIM, true);
        x += bw + 1;
    }
    snprintf(t, sizeof t, "%s of %s (%.0f%%)", fmt_bytes(mem * 1048576.0, b1, sizeof b1),
             fmt_bytes(cap * 1048576.0, b2, sizeof b2), frac * 100);
    x = put(c, y, x, xend, w_bar_level(frac), t);
    x = put(c, y, x, xend, UI_STYLE_NORMAL, " ");
    x = put_delta(a, c, y, x, xend, p->memory_mib, pin->memory_mib, true);
    x = put(c, y, x, xend, frac > 1 ? UI_STYLE_BAD : UI_STYLE_DIM,
            frac > 1 ? "does not fit " : "");
    if (a->have_gen) {
        char b3[48];
        snprintf(t, sizeof t, wide ? "weights %s, KV cache %s, activations %s" : "w %s, KV %s, act %s",
                 fmt_bytes(a->genr.mem.weights_mib * 1048576.0, b1, sizeof b1),
                 fmt_bytes(a->genr.kv_cache_mib * 1048576.0, b3, sizeof b3),
                 fmt_bytes(a->genr.mem.activations_mib * 1048576.0, b2, sizeof b2));
    } else {
        snprintf(t, sizeof t, wide ? "weights %s, activations %s" : "w %s, act %s",
                 fmt_bytes(p->sim.weights_mib * 1048576.0, b1, sizeof b1),
                 fmt_bytes(p->sim.act_peak_mib * 1048576.0, b2, sizeof b2));
    }
    put(c, y, x, xend, UI_STYLE_DIM, t);
    if (r.h >= 4)
        draw_gen(a, c, r.y + 2, r.x, xend);
    if (r.h >= 3)
        draw_mig(a, c, r.y + r.h - 1, r.x, xend);
}

/* ---- tabs ------------------------------------------------------------- */

static int tab_label(int t, char *buf, int size)
{
    return snprintf(buf, (size_t)size, " %d %s ", t + 1, ui_tab_title((enum ui_tab)t));
}

int frame_tab_at(int cols, int x)
{
    int cx = 0;
    for (int t = 0; t < UI_TAB__COUNT; t++) {
        char b[32];
        int w = tab_label(t, b, sizeof b);
        if (x >= cx && x < cx + w && x < cols)
            return t;
        cx += w + 1;
    }
    return -1;
}

static void draw_tabs(struct app *a, struct ui_canvas *c, struct ui_rect r)
{
    draw_clear(c, r, UI_STYLE_TAB);
    int x = r.x;
    for (int t = 0; t < UI_TAB__COUNT; t++) {
        char b[32];
        int w = tab_label(t, b, sizeof b);
        draw_text(c, r.y, x, r.x + r.w - x, t == (int)a->st.tab ? UI_STYLE_TAB_ACTIVE : UI_STYLE_TAB,
                  b);
        x += w + 1;
    }
    char t[64];
    const char *pf = a->recompute_ms < 1 ? "%.2f" : "%.1f";
    char ps[32];
    snprintf(ps, sizeof ps, pf, a->recompute_ms);
    if (a->mig_ms > 0 && r.w >= 100)
        snprintf(t, sizeof t, "predict %s ms, MIG %.*f ms ", ps, a->mig_ms < 1 ? 2 : 0, a->mig_ms);
    else
        snprintf(t, sizeof t, "update %s ms ", ps);
    int tw = draw_strwidth(t);
    if (x + tw < r.x + r.w)
        draw_text(c, r.y, r.x + r.w - tw, tw, UI_STYLE_DIM, t);
}

/* ---- F-keys ----------------------------------------------------------- */

struct fkey {
    int key;
    const char *num, *label;
};

static int fkeys(const struct app *a, struct fkey *out)
{
    int n = 0;
    out[n++] = (struct fkey){UI_KEY_F1, "F1", "Help"};
    out[n++] = (struct fkey){UI_KEY_F2, "F2", "Setup"};
    out[n++] = (struct fkey){UI_KEY_F3, "F3", "Search"};
    out[n++] = (struct fkey){UI_KEY_F4, "F4", "Filter"};
    out[n++] = (struct fkey){UI_KEY_F5, "F5", a->st.tab == UI_TAB_GRAPH ? "Table" : "Graph"};
    out[n++] = (struct fkey){UI_KEY_F6, "F6", "SortBy"};
    out[n++] = (struct fkey){UI_KEY_F10, "F10", "Quit"};
    return n;
}

int frame_fkey_at(const struct app *a, int cols, int x)
{
    struct fkey k[8];
    int n = fkeys(a, k), cx = 0;
    for (int i = 0; i < n; i++) {
        int w = (int)strlen(k[i].num) + (int)strlen(k[i].label) + 1;
        if (x >= cx && x < cx + w && x < cols)
            return k[i].key;
        cx += w + 1;
    }
    return 0;
}

static void draw_fkeys(struct app *a, struct ui_canvas *c, struct ui_rect r)
{
    struct fkey k[8];
    int n = fkeys(a, k), x = r.x;
    draw_clear(c, r, UI_STYLE_NORMAL);
    for (int i = 0; i < n; i++) {
        x += draw_text(c, r.y, x, r.x + r.w - x, UI_STYLE_FKEY, k[i].num);
        char lb[24];
        snprintf(lb, sizeof lb, "%-6s", k[i].label);
        x += draw_text(c, r.y, x, r.x + r.w - x, UI_STYLE_FKEY_LABEL, lb);
        x += 1;
        if (x >= r.x + r.w)
            break;
    }
    const char *more = " q quit  : command  + - batch ";
    int mw = draw_strwidth(more);
    if (x + mw <= r.x + r.w)
        draw_text(c, r.y, r.x + r.w - mw, mw, UI_STYLE_DIM, more);
}

/* ---- status ----------------------------------------------------------- */

static int draw_status(struct app *a, struct ui_canvas *c, struct ui_rect r,
                       const struct frame_input *in)
{
    draw_clear(c, r, UI_STYLE_STATUS);
    if (in && in->active) {
        int x = r.x + draw_text(c, r.y, r.x, r.w, UI_STYLE_TITLE, in->prompt);
        /* scroll the text so the cursor stays visible */
        int avail = r.x + r.w - x - 1;
        char head[1024];
        snprintf(head, sizeof head, "%.*s", in->cursor, in->text);
        int cw = draw_strwidth(head);
        const char *s = in->text;
        int skip = cw > avail ? cw - avail : 0;
        for (int i = 0; i < skip && *s; i++)
            draw_utf8_next(&s);
        draw_text(c, r.y, x, avail, UI_STYLE_STATUS, s);
        int cur = x + cw - skip;
        if (in->hint && *in->hint) {
            int tw = draw_strwidth(in->text) - skip;
            int hx = x + tw + 2;
            if (hx < r.x + r.w)
                draw_text(c, r.y, hx, r.x + r.w - hx, UI_STYLE_DIM, in->hint);
        }
        return cur;
    }
    draw_text(c, r.y, r.x, r.w, a->st.status_error ? UI_STYLE_ERROR : UI_STYLE_STATUS,
              a->st.status);
    return -1;
}

int frame_draw(struct app *a, struct ui_canvas *c, const struct ui_layout *l,
               const struct frame_input *in)
{
    draw_header(a, c, l->r[UI_R_HEADER]);
    draw_pred(a, c, l->r[UI_R_PRED]);
    if (l->r[UI_R_PRED].h == 2 && a->have_pred) {
        /* short terminal: the MIG suggestion goes to the end of the memory line */
        struct ui_rect m = l->r[UI_R_PRED];
        int y = m.y + 1, x = m.x + m.w;
        char buf[2048];
        draw_row_text(c, y, buf, sizeof buf);
        int used = draw_strwidth(buf) + 2;
        x = used < m.w ? m.x + used : x;
        draw_mig(a, c, y, x, m.x + m.w);
    }
    draw_tabs(a, c, l->r[UI_R_TABS]);
    draw_fkeys(a, c, l->r[UI_R_FKEYS]);
    return draw_status(a, c, l->r[UI_R_STATUS], in);
}
