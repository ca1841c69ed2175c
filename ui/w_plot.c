/* w_plot.c - the line plot widget. */
#include "ui/w_plot.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int w_plot_scale(double v, double lo, double hi, bool logs, int n)
{
    if (!isfinite(v) || n < 1)
        return -1;
    if (logs) {
        if (v <= 0 || lo <= 0 || hi <= 0)
            return -1;
        v = log(v);
        lo = log(lo);
        hi = log(hi);
    }
    if (v < lo - 1e-12 * fabs(lo) || v > hi + 1e-12 * fabs(hi))
        return -1;
    if (hi <= lo)
        return 0;
    int k = (int)lround((v - lo) / (hi - lo) * (n - 1));
    return k < 0 ? 0 : k >= n ? n - 1 : k;
}

static bool point_ok(const struct w_plot_series *s, int i, bool logx, bool logy)
{
    if (s->valid && !s->valid[i])
        return false;
    if (!isfinite(s->x[i]) || !isfinite(s->y[i]))
        return false;
    return (!logx || s->x[i] > 0) && (!logy || s->y[i] > 0);
}

static const char *fmt_default(double v, char *buf, int size)
{
    snprintf(buf, (size_t)size, "%.3g", v);
    return buf;
}

/* The data's extent: over the points, the reference lines and the y hint. */
static void plot_extent(const struct w_plot *p, double *xlo, double *xhi, double *ylo,
                        double *yhi)
{
    *xlo = *ylo = INFINITY;
    *xhi = *yhi = -INFINITY;
    for (int s = 0; s < p->n_series; s++)
        for (int i = 0; i < p->series[s].n; i++) {
            if (!point_ok(&p->series[s], i, p->logx, p->logy))
                continue;
            *xlo = fmin(*xlo, p->series[s].x[i]);
            *xhi = fmax(*xhi, p->series[s].x[i]);
            *ylo = fmin(*ylo, p->series[s].y[i]);
            *yhi = fmax(*yhi, p->series[s].y[i]);
        }
    for (int h = 0; h < p->n_hlines; h++) {
        if (!isfinite(p->hlines[h].y) || (p->logy && p->hlines[h].y <= 0))
            continue;
        *ylo = fmin(*ylo, p->hlines[h].y);
        *yhi = fmax(*yhi, p->hlines[h].y);
    }
    if (isfinite(p->ymin_hint) && (!p->logy || p->ymin_hint > 0))
        *ylo = fmin(*ylo, p->ymin_hint);
}

/* Where the plot area sits and what it maps, once the frame is drawn. */
struct plot_area {
    int px, pw, y0, ph, legend_w;
    double xlo, xhi, ylo, yhi;
};

/* The y labels, the axes and the area left for the data; false when the
 * rectangle is too small. */
static bool plot_frame(const struct w_plot *p, struct ui_canvas *c, struct ui_rect r, int y0,
                       struct plot_area *a)
{
    const char *(*fy)(double, char *, int) = p->fmt_y ? p->fmt_y : fmt_default;
    char lo_s[32], hi_s[32], mid_s[32];
    fy(a->yhi, hi_s, sizeof hi_s);
    fy(a->ylo, lo_s, sizeof lo_s);
    double ymid = p->logy ? sqrt(a->ylo * a->yhi) : (a->ylo + a->yhi) / 2;
    fy(ymid, mid_s, sizeof mid_s);
    int lw = draw_strwidth(hi_s);
    if (draw_strwidth(lo_s) > lw)
        lw = draw_strwidth(lo_s);
    if (draw_strwidth(mid_s) > lw)
        lw = draw_strwidth(mid_s);
    a->legend_w = 0;
    for (int h = 0; h < p->n_hlines; h++)
        if (p->hlines[h].label && draw_strwidth(p->hlines[h].label) + 1 > a->legend_w)
            a->legend_w = draw_strwidth(p->hlines[h].label) + 1;
    if (a->legend_w > r.w / 4)
        a->legend_w = r.w / 4;
    a->px = r.x + lw + 1;
    a->pw = r.w - lw - 1 - a->legend_w;
    a->y0 = y0;
    a->ph = r.y + r.h - y0 - 2; /* x axis + x tick labels */
    if (a->pw < 8 || a->ph < 2)
        return false;
    draw_text_right(c, y0, r.x, lw, UI_STYLE_DIM, hi_s);
    draw_text_right(c, y0 + a->ph / 2, r.x, lw, UI_STYLE_DIM, mid_s);
    draw_text_right(c, y0 + a->ph - 1, r.x, lw, UI_STYLE_DIM, lo_s);
    draw_vline(c, y0, a->px - 1, a->ph, UI_STYLE_DIM);
    draw_hline(c, y0 + a->ph, a->px, a->pw, UI_STYLE_DIM);
    draw_put_glyph(c, y0 + a->ph, a->px - 1, G_BL, UI_STYLE_DIM);
    return true;
}

/* x ticks at the data x values of the first series (batch 1, 2, 4 ...),
 * the x label, the reference lines with their labels and the x mark. */
static void plot_guides(const struct w_plot *p, struct ui_canvas *c, const struct plot_area *a)
{
    int px = a->px, pw = a->pw, y0 = a->y0, ph = a->ph;
    int last_tick_end = -1;
    if (p->n_series > 0) {
        const struct w_plot_series *s = &p->series[0];
        for (int i = 0; i < s->n; i++) {
            int cx = w_plot_scale(s->x[i], a->xlo, a->xhi, p->logx, pw);
            if (cx < 0)
                continue;
            char t[24];
            snprintf(t, sizeof t, "%g", s->x[i]);
            int tw = draw_strwidth(t), tx = px + cx - tw / 2;
            if (tx <= last_tick_end)
                continue;
            draw_text(c, y0 + ph + 1, tx, tw, UI_STYLE_DIM, t);
            last_tick_end = tx + tw;
        }
    }
    if (p->xlabel) {
        int xw = draw_strwidth(p->xlabel);
        if (last_tick_end + 2 + xw <= px + pw)
            draw_text(c, y0 + ph + 1, px + pw - xw, xw, UI_STYLE_DIM, p->xlabel);
    }
    for (int h = 0; h < p->n_hlines; h++) {
        int cy = w_plot_scale(p->hlines[h].y, a->ylo, a->yhi, p->logy, ph);
        if (cy < 0)
            continue;
        int yy = y0 + ph - 1 - cy;
        for (int i = 0; i < pw; i += 2)
            draw_put_glyph(c, yy, px + i, G_HLINE, p->hlines[h].style);
        if (p->hlines[h].label)
            draw_text(c, yy, px + pw + 1, a->legend_w - 1, p->hlines[h].style,
                      p->hlines[h].label);
    }
    if (isfinite(p->xmark)) {
        int cx = w_plot_scale(p->xmark, a->xlo, a->xhi, p->logx, pw);
        for (int i = 0; cx >= 0 && i < ph; i++)
            if (draw_cell(c, y0 + i, px + cx) && draw_cell(c, y0 + i, px + cx)->ch == ' ')
                draw_put(c, y0 + i, px + cx, ':', UI_STYLE_DIM);
    }
}

/* One series: a line interpolated column by column between consecutive
 * points, then its marks. */
static void plot_series(const struct w_plot *p, const struct w_plot_series *se,
                        struct ui_canvas *c, const struct plot_area *a)
{
    int prev = -1;
    for (int i = 0; i < se->n; i++) {
        if (!point_ok(se, i, p->logx, p->logy))
            continue;
        if (se->line && prev >= 0) {
            int c0 = w_plot_scale(se->x[prev], a->xlo, a->xhi, p->logx, a->pw);
            int c1 = w_plot_scale(se->x[i], a->xlo, a->xhi, p->logx, a->pw);
            for (int cx = c0 + 1; cx < c1; cx++) {
                double t = (double)(cx - c0) / (c1 - c0);
                double ya = p->logy ? log(se->y[prev]) : se->y[prev];
                double yb = p->logy ? log(se->y[i]) : se->y[i];
                double yv = ya + t * (yb - ya);
                if (p->logy)
                    yv = exp(yv);
                int cy = w_plot_scale(yv, a->ylo, a->yhi, p->logy, a->ph);
                if (cy >= 0)
                    draw_put(c, a->y0 + a->ph - 1 - cy, a->px + cx, c->utf8 ? 0x00B7 : '.',
                             se->style);
            }
        }
        prev = i;
    }
    for (int i = 0; se->mark && i < se->n; i++) {
        if (!point_ok(se, i, p->logx, p->logy))
            continue;
        int cx = w_plot_scale(se->x[i], a->xlo, a->xhi, p->logx, a->pw);
        int cy = w_plot_scale(se->y[i], a->ylo, a->yhi, p->logy, a->ph);
        if (cx >= 0 && cy >= 0)
            draw_put(c, a->y0 + a->ph - 1 - cy, a->px + cx, se->mark, se->style);
    }
}

void w_plot_draw(const struct w_plot *p, struct ui_canvas *c, struct ui_rect r)
{
    draw_clear(c, r, UI_STYLE_NORMAL);
    if (r.h < 6 || r.w < 24) {
        draw_text(c, r.y, r.x, r.w, UI_STYLE_DIM, "(too small for a chart)");
        return;
    }
    struct plot_area a;
    plot_extent(p, &a.xlo, &a.xhi, &a.ylo, &a.yhi);
    int y0 = r.y;
    if (p->title) {
        draw_text_words(c, y0, r.x, r.w, UI_STYLE_TITLE, p->title);
        y0++;
    }
    if (!(a.xlo <= a.xhi) || !(a.ylo <= a.yhi)) {
        draw_text(c, y0, r.x, r.w, UI_STYLE_DIM, "(no data)");
        return;
    }
    if (a.ylo == a.yhi) {
        a.ylo = p->logy ? a.ylo / 2 : a.ylo - 1;
        a.yhi = p->logy ? a.yhi * 2 : a.yhi + 1;
    } else if (!p->logy) {
        a.yhi += (a.yhi - a.ylo) * 0.05; /* headroom so the top point is not on the frame */
    } else {
        a.yhi *= 1.15;
    }
    if (!plot_frame(p, c, r, y0, &a)) {
        draw_text(c, y0, r.x, r.w, UI_STYLE_DIM, "(too small for a chart)");
        return;
    }
    plot_guides(p, c, &a);
    for (int s = 0; s < p->n_series; s++)
        plot_series(p, &p->series[s], c, &a);
}
