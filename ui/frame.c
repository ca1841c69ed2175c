/* frame.c - header, predictions panel, tabs, status line, F-key bar. */
#include "ui/frame.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/fmt.h"
#include "core/fit.h"
#include "core/gpu.h"
#include "core/price.h"
#include "core/report.h"
#include "ui/keymap.h"
#include "ui/w_bar.h"

/* ---- header ---------------------------------------------------------- */

static int put(struct ui_canvas *c, int y, int x, int xend, enum ui_style st, const char *s)
{
    if (x >= xend)
        return x;
    return x + draw_text(c, y, x, xend - x, st, s);
}

/* put, but only a text that fits whole (an optional clause of a line). */
static int put_whole(struct ui_canvas *c, int y, int x, int xend, enum ui_style st, const char *s)
{
    return draw_strwidth(s) <= xend - x ? put(c, y, x, xend, st, s) : x;
}

/* A label and its value, whole or not at all. */
static int put_field(struct ui_canvas *c, int y, int x, int xend, const char *label,
                     const char *value)
{
    if (draw_strwidth(label) + draw_strwidth(value) > xend - x)
        return xend;
    x = put(c, y, x, xend, UI_STYLE_LABEL, label);
    x = put(c, y, x, xend, UI_STYLE_VALUE, value);
    return put(c, y, x, xend, UI_STYLE_LABEL, "  ");
}

/* Line 1: the model, its size and the coverage warning. The figures and
 * the warning always stay; the spec is cut in the middle first, then the
 * format and the per-sample MACs go. */
static void draw_title(struct app *a, struct ui_canvas *c, struct ui_rect r)
{
    const struct graph *g = a->g;
    char nodes[32], params[32], macs[32], ps[64], fmtb[64], warn[96], warn_short[48], b1[32];
    snprintf(nodes, sizeof nodes, "%d", g->n_nodes);
    fmt_si(g->totals.params, params, sizeof params);
    fmt_si(g->totals.macs, macs, sizeof macs);
    ps[0] = warn[0] = warn_short[0] = 0;
    if (a->cfg.batch > 1 && graph_batch_sym(g) >= 0)
        snprintf(ps, sizeof ps, "(%s per sample)  ",
                 fmt_si(g->totals.macs / (double)a->cfg.batch, b1, sizeof b1));
    snprintf(fmtb, sizeof fmtb, " (%s)  ", g->format ? g->format : "?");
    int n_bad = g->totals.n_unsupported + g->totals.n_unknown;
    if (n_bad > 0) {
        snprintf(warn, sizeof warn, "%d of %d nodes not covered (%d ops, %d downstream)", n_bad,
                 g->n_nodes, g->totals.n_unsupported, g->totals.n_unknown);
        snprintf(warn_short, sizeof warn_short, "%d/%d not covered", n_bad, g->n_nodes);
    }
    const char *base = strrchr(a->spec, '/');
    const char *spec = base ? base + 1 : a->spec;
    /* "dippm " + spec + fmt + "nodes N  params P  MACs M  " + ps + warn */
    int fixed = 6 + 6 + draw_strwidth(nodes) + 2 + 7 + draw_strwidth(params) + 2 + 5 +
                draw_strwidth(macs) + 2;
    bool use_fmt = true, use_ps = ps[0] != 0;
    const char *w = warn;
    int spec_w = draw_strwidth(spec), min_spec = spec_w < 12 ? spec_w : 12;
    for (int pass = 0; pass < 4; pass++) {
        int need = fixed + (use_fmt ? draw_strwidth(fmtb) : 1) + (use_ps ? draw_strwidth(ps) : 0) +
                   draw_strwidth(w);
        if (need + min_spec <= r.w)
            break;
        if (pass == 0)
            use_ps = false;
        else if (pass == 1)
            use_fmt = false;
        else if (pass == 2)
            w = warn_short;
    }
    int need = fixed + (use_fmt ? draw_strwidth(fmtb) : 1) + (use_ps ? draw_strwidth(ps) : 0) +
               draw_strwidth(w);
    int avail = r.w - need;
    char cut[APP_SPEC_MAX];
    draw_mid_cut(spec, avail > 3 ? avail : 3, cut, sizeof cut);
    int xend = r.x + r.w, x = r.x;
    x = put(c, r.y, x, xend, UI_STYLE_TITLE, "dippm ");
    x = put(c, r.y, x, xend, UI_STYLE_VALUE, cut);
    x = put(c, r.y, x, xend, UI_STYLE_DIM, use_fmt ? fmtb : " ");
    x = put_field(c, r.y, x, xend, "nodes ", nodes);
    x = put_field(c, r.y, x, xend, "params ", params);
    x = put_field(c, r.y, x, xend, "MACs ", macs);
    if (use_ps)
        x = put(c, r.y, x - 1, xend, UI_STYLE_DIM, ps);
    if (*w)
        put(c, r.y, x, xend, UI_STYLE_WARN, w);
}

/* The right end of line 2: the open session's name, when there is room,
 * and the figures' source, as long as the line allows. */
static void draw_source(struct app *a, struct ui_canvas *c, int y, int x, int xend)
{
    static const char *const teacher[] = {"teacher estimate (no GNN weights)", "teacher estimate",
                                          "teacher"};
    static const char *const gnn[] = {"GNN prediction", "GNN", "GNN"};
    char sess[96] = "";
    if (a->session[0])
        snprintf(sess, sizeof sess, "session %s  ", a->session);
    int ssw = draw_strwidth(sess);
    for (int i = 0; i < 3; i++) {
        const char *src = app_teacher_only(a) ? teacher[i] : gnn[i];
        int sw = draw_strwidth(src);
        if (x + sw >= xend)
            continue;
        if (ssw && x + ssw + sw < xend)
            draw_text(c, y, xend - sw - ssw, ssw, UI_STYLE_LABEL, sess);
        draw_text(c, y, xend - sw, sw, app_teacher_only(a) ? UI_STYLE_WARN : UI_STYLE_GOOD, src);
        break;
    }
}

/* "0.0123/1k": the cost of 1,000 samples (a million output tokens of a
 * generation, 1,000 images of a pipeline) at :price or the price table's
 * price; false when neither prices the configuration. */
static bool cost_str(const struct app *a, char *buf, size_t size)
{
    struct price p = {.per_hour = a->price_per_hour};
    if (!a->have_pred || (!(p.per_hour > 0) && !price_table_find(&a->prices, &a->cfg, &p)))
        return false;
    char t[32];
    if (a->have_gen)
        snprintf(buf, size, "%s/Mtok", fmt_num(price_cost(p.per_hour, a->genr.output_tokens_per_s,
                                                          1e6), t, sizeof t));
    else if (a->have_diff)
        snprintf(buf, size, "%s/1k img",
                 fmt_num(price_cost(p.per_hour, a->diffr.images_per_s, 1e3), t, sizeof t));
    else
        snprintf(buf, size, "%s/1k",
                 fmt_num(price_cost(p.per_hour, a->pred.throughput, 1e3), t, sizeof t));
    return true;
}

static void draw_header(struct app *a, struct ui_canvas *c, struct ui_rect r)
{
    char b1[64], line[APP_SPEC_MAX + 64];
    draw_clear(c, r, UI_STYLE_NORMAL);
    int xend = r.x + r.w, x = r.x;
    const struct graph *g = a->g;
    if (!g) {
        draw_text(c, r.y, r.x, r.w, UI_STYLE_ERROR, "no model loaded (:open MODEL)");
        return;
    }
    draw_title(a, c, r);
    /* configuration line */
    x = r.x;
    int y = r.y + 1;
    const struct gpu_spec *gpu = gpu_get(a->cfg.gpu);
    snprintf(line, sizeof line, "%s%s%s", gpu ? gpu->name : "?",
             gpu && a->cfg.mig >= 0 ? " MIG " : "",
             gpu && a->cfg.mig >= 0 && a->cfg.mig < gpu->n_mig ? gpu->mig[a->cfg.mig].name : "");
    x = put_field(c, y, x, xend, "GPU ", line);
    x = put_field(c, y, x, xend, "", config_prec_label(&a->cfg, b1, sizeof b1));
    x = put_field(c, y, x, xend, "", runtime_name(a->cfg.rt));
    int bs = graph_batch_sym(g);
    snprintf(b1, sizeof b1, bs >= 0 ? "%lld" : "%lld (fixed)", (long long)a->cfg.batch);
    x = put_field(c, y, x, xend, "batch ", b1);
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
    if (cost_str(a, b1, sizeof b1))
        x = put_field(c, y, x, xend, "cost ", b1);
    draw_source(a, c, y, x, xend);
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
    if (!a->st.compare || !a->pins[0].valid)
        return x;
    char d[32], t[48];
    fmt_delta(now, old, d, sizeof d);
    snprintf(t, sizeof t, "(%s) ", d);
    bool better = lower_is_better ? now < old : now > old;
    return put(c, y, x, xend, now == old ? UI_STYLE_DIM : better ? UI_STYLE_GOOD : UI_STYLE_BAD,
               t);
}

/* The MIG advice in the explorer's words, from the advisor's per-slice
 * figures: the memory it names is explicitly the prediction on that slice,
 * which can differ from the memory line's (another GPU or slice). */
static void draw_mig(struct app *a, struct ui_canvas *c, int y, int x, int xend)
{
    x = put(c, y, x, xend, UI_STYLE_LABEL, "MIG ");
    const struct gpu_spec *gpu = gpu_get(a->cfg.gpu);
    if (!a->have_mig || !gpu) {
        put(c, y, x, xend, UI_STYLE_DIM, a->mig_err[0] ? a->mig_err : "no advice");
        return;
    }
    const struct mig_advice *m = &a->mig;
    char t[256], b1[32], b2[32], b3[32];
    const struct mig_option *best = NULL, *below = NULL;
    for (int i = 0; i < m->n; i++) {
        if (m->opts[i].profile == m->best)
            best = &m->opts[i];
        else if (!best && !gpu->mig[m->opts[i].profile].media)
            below = &m->opts[i];
    }
    if (!best) {
        /* it says what failed, with numbers; cut at a word where too long */
        draw_text_words(c, y, x, xend - x, UI_STYLE_BAD, m->reason);
        return;
    }
    x = put(c, y, x, xend, UI_STYLE_GOOD, gpu->mig[best->profile].name);
    /* what the model does on the slice first: its latency and throughput */
    snprintf(t, sizeof t, ": %s, %s there", fmt_ms(best->latency_ms, b1, sizeof b1),
             fmt_rate(best->latency_ms > 0 ? (double)a->cfg.batch * 1e3 / best->latency_ms : 0, b2,
                      sizeof b2));
    x = put_whole(c, y, x, xend, UI_STYLE_NORMAL, t);
    if (m->slo_ms > 0) {
        snprintf(t, sizeof t, " (meets SLO %s)", fmt_ms(m->slo_ms, b1, sizeof b1));
        x = put_whole(c, y, x, xend, UI_STYLE_NORMAL, t);
    }
    snprintf(t, sizeof t, "; predicted %s + %.0f%% = %s of %s usable",
             fmt_bytes(best->memory_mib * 1048576.0, b1, sizeof b1), m->headroom * 100,
             fmt_bytes(best->need_mib * 1048576.0, b2, sizeof b2),
             fmt_bytes(best->usable_mib * 1048576.0, b3, sizeof b3));
    x = put_whole(c, y, x, xend, UI_STYLE_NORMAL, t);
    if (below) {
        if (!below->fits)
            snprintf(t, sizeof t, "; %s short by %s", gpu->mig[below->profile].name,
                     fmt_bytes((below->need_mib - below->usable_mib) * 1048576.0, b1, sizeof b1));
        else
            snprintf(t, sizeof t, "; %s misses the SLO (%s)", gpu->mig[below->profile].name,
                     fmt_ms(below->latency_ms, b1, sizeof b1));
        put_whole(c, y, x, xend, UI_STYLE_DIM, t);
    }
}

static const char *bound_phrase(const struct app *a, bool wide, bool utf8, char *t, int size)
{
    double bf;
    const char *bn = dominant_bound(a, &bf);
    char b[32];
    fmt_ms(a->pred.sim.roofline_ms, b, sizeof b);
    bool ovh = !strcmp(bn, "overhead");
    if (wide)
        snprintf(t, (size_t)size, "Roofline floor %s, time %.0f%% %s", b, bf * 100,
                 ovh ? "launch overhead" : !strcmp(bn, "compute") ? "compute-bound"
                                                                   : "memory-bound");
    else
        snprintf(t, (size_t)size, "floor %s (%.0f%% %s)", b, bf * 100, bn);
    (void)utf8;
    return t;
}

/* The generation of a decoder: TTFT, time per output token, tokens/s,
 * energy per token, its memory (weights + KV cache of its in+out tokens +
 * activations + context: not the header's pass, so on this line), the
 * largest batch. */
static void draw_gen(struct app *a, struct ui_canvas *c, int y, int x, int xend)
{
    char b1[48], t[160];
    const struct gen_result *g = &a->genr;
    if (a->tp > 1)
        snprintf(t, sizeof t, "Generation %lld+%lld on %d GPUs (TP, memory per GPU) ",
                 (long long)a->gen_in, (long long)a->gen_out, a->tp);
    else
        snprintf(t, sizeof t, "Generation %lld+%lld ", (long long)a->gen_in,
                 (long long)a->gen_out);
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
    char b2[48];
    snprintf(t, sizeof t, "%s (KV cache %s)%s", fmt_bytes(g->mem.total_mib * 1048576.0, b1, sizeof b1),
             fmt_bytes(g->mem.kv_cache_mib * 1048576.0, b2, sizeof b2),
             g->mem.fits ? "" : " does not fit");
    int x0 = x;
    x = put_field(c, y, x, xend, "memory ", t);
    if (x == xend) { /* without the KV cache's part */
        snprintf(t, sizeof t, "%s%s", b1, g->mem.fits ? "" : " does not fit");
        draw_clear(c, (struct ui_rect){y, x0, 1, xend - x0}, UI_STYLE_NORMAL);
        x = put_field(c, y, x0, xend, "memory ", t);
    }
    if (g->max_batch > 0)
        snprintf(t, sizeof t, "%lld (%.0f tok/s)", (long long)g->max_batch,
                 g->max_output_tokens_per_s);
    else
        snprintf(t, sizeof t, "none fits");
    x0 = x;
    if (put_field(c, y, x, xend, "max batch ", t) == xend && g->max_batch > 0) {
        snprintf(t, sizeof t, "%lld", (long long)g->max_batch); /* the batch alone */
        draw_clear(c, (struct ui_rect){y, x0, 1, xend - x0}, UI_STYLE_NORMAL);
        put_field(c, y, x0, xend, "max batch ", t);
    }
}

/* The pipeline of a denoiser: time and energy per image (text encoders,
 * denoising and decode), images/s, the memory of every model, the MIG slice
 * that holds them and, where the line has room for it, the text encoders'
 * time for the batch. */
static void draw_diff(struct app *a, struct ui_canvas *c, int y, int x, int xend)
{
    char b1[48], t[160], label[32];
    const struct diff_result *r = &a->diffr;
    snprintf(t, sizeof t, "Diffusion %lld steps ", (long long)a->diff_steps);
    x = put(c, y, x, xend, UI_STYLE_LABEL, t);
    if (!a->have_diff) {
        put(c, y, x, xend, UI_STYLE_DIM, a->diff_err[0] ? a->diff_err : "updating...");
        return;
    }
    snprintf(t, sizeof t, "%s/image", fmt_ms(r->ms_per_image, b1, sizeof b1));
    x = put_field(c, y, x, xend, "", t);
    snprintf(t, sizeof t, "%.3g img/s", r->images_per_s);
    x = put_field(c, y, x, xend, "", t);
    snprintf(t, sizeof t, "%.4g J/image", r->energy_j_per_image);
    x = put_field(c, y, x, xend, "", t);
    snprintf(t, sizeof t, "%.0f MiB%s", r->memory_mib, r->fits ? "" : " DOES NOT FIT");
    snprintf(label, sizeof label, "%d models ", 2 + r->n_text);
    x = put_field(c, y, x, xend, label, t);
    if (r->have_mig) {
        const struct gpu_spec *gs = gpu_get(r->mig.gpu);
        x = put_field(c, y, x, xend, "MIG ",
                      r->mig.best >= 0 ? gs->mig[r->mig.best].name : "none");
    }
    fmt_ms(r->text_ms, t, sizeof t);
    if (xend - x >= (int)strlen("text enc ") + (int)strlen(t))
        put_field(c, y, x, xend, "text enc ", r->n_text ? t : "none");
}

/* Throughput or energy with its source, as latency has it: "Energy (GNN)
 * 44.4 mJ teacher 44.0 mJ" when wide (the teacher's figure only with
 * teacher_too), the bare figure otherwise. */
static int put_figure(struct app *a, struct ui_canvas *c, int y, int x, int xend, bool wide,
                      const char *label, const char *now, const char *teacher, bool teacher_too)
{
    char t[64];
    bool gnn = !app_teacher_only(a);
    snprintf(t, sizeof t, "%s (%s) ", label, gnn ? "GNN" : "teacher");
    x = put(c, y, x, xend, UI_STYLE_LABEL, wide ? t : "");
    /* the figure whole, else without its note in brackets, else nothing */
    char head[64];
    snprintf(head, sizeof head, "%.*s", (int)strcspn(now, "("), now);
    for (size_t n = strlen(head); n > 0 && head[n - 1] == ' '; n--)
        head[n - 1] = 0;
    x = draw_strwidth(now) <= xend - x ? put(c, y, x, xend, UI_STYLE_VALUE, now)
                                       : put_whole(c, y, x, xend, UI_STYLE_VALUE, head);
    if (gnn && wide && teacher_too) {
        snprintf(t, sizeof t, " teacher %s", teacher);
        x = put(c, y, x, xend, UI_STYLE_DIM, t);
    }
    return put(c, y, x, xend, UI_STYLE_LABEL, "  ");
}

/* The line up to the bound phrase; returns where it ends. */
static int latency_figures(struct app *a, struct ui_canvas *c, int y, int x, int xend, bool wide,
                           bool teacher_too)
{
    char b1[48], b2[48], t[160];
    const struct prediction *p = &a->pred;
    const struct app_snapshot *pin = &a->pins[0];
    bool gnn = !app_teacher_only(a);
    bool missed = a->slo_ms > 0 && p->latency_ms > a->slo_ms;
    snprintf(t, sizeof t, "Latency (%s) ", gnn ? "GNN" : "teacher");
    x = put(c, y, x, xend, UI_STYLE_LABEL, t);
    x = put(c, y, x, xend, missed ? UI_STYLE_BAD : UI_STYLE_VALUE,
            fmt_ms(p->latency_ms, b1, sizeof b1));
    x = put(c, y, x, xend, UI_STYLE_NORMAL, " ");
    if (wide) { /* its 80% interval; a widened one (no measured rows like it) warns */
        struct report_intervals iv;
        report_intervals(&a->cfg, p, &iv);
        char b3[48];
        if (iv.lat.valid) {
            snprintf(t, sizeof t, "[%s, %s] ", fmt_ms(iv.lat.low, b1, sizeof b1),
                     fmt_ms(iv.lat.high, b3, sizeof b3));
            x = put(c, y, x, xend, iv.lat.widen > 1 ? UI_STYLE_WARN : UI_STYLE_DIM, t);
        }
    }
    x = put_delta(a, c, y, x, xend, p->latency_ms, pin->latency_ms, true);
    if (a->slo_ms > 0) {
        snprintf(t, sizeof t, missed ? "misses SLO %s " : "meets SLO %s ",
                 fmt_ms(a->slo_ms, b1, sizeof b1));
        x = put(c, y, x, xend, missed ? UI_STYLE_BAD : UI_STYLE_GOOD, t);
    }
    const struct graph *g = a->g;
    int n_bad = g ? g->totals.n_unsupported + g->totals.n_unknown : 0;
    if (n_bad > 0) {
        snprintf(t, sizeof t, wide ? "partial: %d of %d nodes not modelled " : "partial: %d/%d ",
                 n_bad, g->n_nodes);
        x = put(c, y, x, xend, UI_STYLE_WARN, t);
    }
    if (gnn) {
        snprintf(t, sizeof t, "teacher %s  ", fmt_ms(p->sim.latency_ms, b1, sizeof b1));
        x = put(c, y, x, xend, UI_STYLE_DIM, t);
    } else {
        x = put(c, y, x, xend, UI_STYLE_LABEL, " ");
    }
    double t_tput = p->sim.latency_ms > 0 ? (double)a->cfg.batch * 1e3 / p->sim.latency_ms : 0;
    fmt_rate(p->throughput, t, sizeof t);
    fmt_rate(t_tput, b2, sizeof b2);
    x = put_figure(a, c, y, x, xend, wide, "Throughput", t, b2, teacher_too);
    x = put_delta(a, c, y, x, xend, p->throughput, pin->throughput, false);
    fmt_joules(p->energy_j, t, sizeof t);
    if (a->cfg.batch > 1) { /* the batch's energy compares only at equal batches */
        size_t len = strlen(t);
        snprintf(t + len, sizeof t - len, " (%s/sample)",
                 fmt_joules(p->energy_j / (double)a->cfg.batch, b1, sizeof b1));
    }
    fmt_joules(p->sim.energy_j, b2, sizeof b2);
    x = put_figure(a, c, y, x, xend, wide, "Energy", t, b2, teacher_too);
    return put_delta(a, c, y, x, xend, p->energy_j, pin->energy_j, true);
}

/* The first line: latency (against the SLO), the teacher's figure beside
 * the GNN's (on throughput and energy too where the line has room),
 * throughput, energy and what bounds the model, in words where they fit,
 * shorter where not, never cut in a word. */
static void draw_latency_line(struct app *a, struct ui_canvas *c, int y, int x, int xend,
                              bool wide)
{
    char t[512];
    /* the bound phrase before the teacher's throughput and energy */
    for (int teacher_too = 1; teacher_too >= 0; teacher_too--) {
        draw_clear(c, (struct ui_rect){y, x, 1, xend - x}, UI_STYLE_NORMAL);
        int end = latency_figures(a, c, y, x, xend, wide, teacher_too);
        for (int w = wide; w >= 0 && end < xend; w--) {
            bound_phrase(a, w, c->utf8, t, sizeof t);
            if (draw_strwidth(t) <= xend - end) {
                put(c, y, end, xend, UI_STYLE_NORMAL, t);
                return;
            }
        }
    }
}

/* The memory parts in four wordings, longest first: words, short units,
 * abbreviations, abbreviations without the KV cache. The teacher's parts
 * add up to the teacher's own total (the GNN predicts the total only). They
 * are the pass the header describes (a decoder's at its seq and KV cache);
 * its generation's footprint is on the Generation line, labelled so. */
static void memory_parts(const struct app *a, char parts[4][320])
{
    char b1[48], b2[48], b3[48], b4[48], b5[48];
    const struct sim_result *sr = &a->pred.sim;
    const char *src = !app_teacher_only(a) ? "teacher " : "";
    double kv = app_kv_cache_mib(a);
    for (int v = 0; v < 4; v++) {
        const char *(*fb)(double, char *, int) = v == 0 ? fmt_bytes : fmt_bytes_short;
        char kvs[64] = "", k[48];
        fb(sr->weights_mib * 1048576.0, b1, sizeof b1);
        fb(sr->act_peak_mib * 1048576.0, b2, sizeof b2);
        if (kv > 0 && kv <= sr->act_peak_mib && v < 3) /* part of the activations */
            snprintf(kvs, sizeof kvs, v == 2 ? " (%s KV)" : " (KV cache %s)",
                     fb(kv * 1048576.0, k, sizeof k));
        fb(sr->context_mib * 1048576.0, b3, sizeof b3);
        fb(sr->workspace_mib * 1048576.0, b4, sizeof b4);
        fb(sr->memory_mib * 1048576.0, b5, sizeof b5);
        snprintf(parts[v], sizeof parts[v],
                 v == 0   ? " %s%s = weights %s + activations %s%s + context %s + workspace %s"
                 : v == 1 ? " %s%s = %s weights + %s activations%s + %s context + %s workspace"
                          : " %s%s = %s w + %s act%s + %s ctx + %s ws",
                 src, b5, b1, b2, kvs, b3, b4);
    }
}

/* The second line: a bar of memory against the GPU or slice capacity, the
 * total and its parts in the longest wording that fits. */
static void draw_memory_line(struct app *a, struct ui_canvas *c, int y, int x, int xend, int w)
{
    char b1[48], b2[48];
    const struct prediction *p = &a->pred;
    const struct app_snapshot *pin = &a->pins[0];
    double cap = p->capacity_mib;
    if (!(cap > 0)) {
        struct hw hw;
        if (hw_from_config(&a->cfg, &hw, NULL) == ST_OK)
            cap = hw.mem_bytes / (1024.0 * 1024.0);
    }
    double mem = app_memory_shown_mib(a);
    double frac = cap > 0 ? mem / cap : 0;
    x = put(c, y, x, xend, UI_STYLE_LABEL, "Memory ");
    char tot[2][160], parts[4][320], dl[64] = "";
    fmt_bytes(mem * 1048576.0, b1, sizeof b1);
    fmt_bytes(cap * 1048576.0, b2, sizeof b2);
    snprintf(tot[0], sizeof tot[0], "%s of %s (%.0f%%) ", b1, b2, frac * 100);
    fmt_bytes_short(mem * 1048576.0, b1, sizeof b1);
    fmt_bytes_short(cap * 1048576.0, b2, sizeof b2);
    snprintf(tot[1], sizeof tot[1], "%s/%s ", b1, b2);
    memory_parts(a, parts);
    if (a->st.compare && pin->valid) {
        fmt_delta(p->memory_mib, pin->memory_mib, b1, sizeof b1);
        snprintf(dl, sizeof dl, "(%s) ", b1);
    }
    char fit[48] = "";
    if (!fit_ok(mem, a->headroom, cap))
        snprintf(fit, sizeof fit, "does not fit (+%.0f%%) ", a->headroom * 100);
    /* the bar's width depends on the window alone, so it keeps its size
     * from key to key; the words around it get shorter instead */
    int avail = xend - x, ti = 1, pi = 3, bw = w / 7 < 8 ? 8 : w / 7 > 20 ? 20 : w / 7;
    bool found = false;
    for (int k = 0; k < 8 && !found; k++) {
        int tv = k < 4 ? 0 : 1, pv = k % 4;
        int need = draw_strwidth(tot[tv]) + draw_strwidth(parts[pv]) + draw_strwidth(dl) +
                   draw_strwidth(fit);
        if (need + bw + 1 <= avail) {
            ti = tv;
            pi = pv;
            found = true;
        }
    }
    if (!found)
        bw = 0;
    for (int pv = 2; pv < 4 && !found; pv++) /* no bar */
        if (draw_strwidth(tot[1]) + draw_strwidth(parts[pv]) + draw_strwidth(dl) +
                draw_strwidth(fit) <= avail) {
            pi = pv;
            found = true;
        }
    if (bw >= 6) {
        w_bar_draw(c, y, x, bw, frac, w_bar_level(frac), UI_STYLE_DIM, true);
        x += bw + 1;
    }
    x = put(c, y, x, xend, w_bar_level(frac), tot[ti]);
    x = put_delta(a, c, y, x, xend, p->memory_mib, pin->memory_mib, true);
    x = put(c, y, x, xend, UI_STYLE_BAD, fit);
    if (x < xend) /* the parts end at a word where even the shortest is too long */
        draw_text_words(c, y, x, xend - x, UI_STYLE_DIM, parts[pi]);
}

static void draw_pred(struct app *a, struct ui_canvas *c, struct ui_rect r)
{
    draw_clear(c, r, UI_STYLE_NORMAL);
    int xend = r.x + r.w;
    if (!a->have_pred) {
        draw_text(c, r.y, r.x, r.w, UI_STYLE_ERROR, "no prediction for this configuration");
        return;
    }
    bool wide = r.w >= 110; /* narrow terminals drop the labels the units make clear */
    draw_latency_line(a, c, r.y, r.x, xend, wide);
    draw_memory_line(a, c, r.y + 1, r.x, xend, r.w);
    if (r.h >= 4 && a->workload == WORKLOAD_DIFFUSION)
        draw_diff(a, c, r.y + 2, r.x, xend);
    else if (r.h >= 4)
        draw_gen(a, c, r.y + 2, r.x, xend);
    if (r.h >= 3)
        draw_mig(a, c, r.y + r.h - 1, r.x, xend);
}

/* ---- tabs ------------------------------------------------------------- */

/* " 1 Layers "; without the numbers below 100 columns (the keys 1-9
 * still work), so every tab name fits at 80. */
static int tab_label(int t, int cols, char *buf, int size)
{
    if (t == UI_TAB_LOG)
        return snprintf(buf, (size_t)size, " %s ", ui_tab_title((enum ui_tab)t));
    if (cols < 100)
        return snprintf(buf, (size_t)size, " %s ", ui_tab_title((enum ui_tab)t));
    return snprintf(buf, (size_t)size, " %d %s ", t + 1, ui_tab_title((enum ui_tab)t));
}

int frame_tab_at(int cols, int x)
{
    int cx = 0;
    for (int t = 0; t < UI_TAB__COUNT; t++) {
        char b[32];
        int w = tab_label(t, cols, b, sizeof b);
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
        int w = tab_label(t, r.w, b, sizeof b);
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
    /* the Log tab has the whole message */
    draw_text_words(c, r.y, r.x, r.w, a->st.status_error ? UI_STYLE_ERROR : UI_STYLE_STATUS,
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
