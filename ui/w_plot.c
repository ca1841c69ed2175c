/* w_plot.c - the line plot widget. */
#include "w_plot.h"

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

void w_plot_draw(const struct w_plot *p, struct ui_canvas *c, struct ui_rect r)
{
    draw_clear(c, r, UI_STYLE_NORMAL);
    if (r.h < 6 || r.w < 24) {
        draw_text(c, r.y, r.x, r.w, UI_STYLE_DIM, "(too small for a chart)");
        return;
    }
    const char *(*fy)(double, char *, int) = p->fmt_y ? p->fmt_y : fmt_default;
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    for (int s = 0; s < p->n_series; s++)
        for (int i = 0; i < p->series[s].n; i++) {
            if (!point_ok(&p->series[s], i, p->logx, p->logy))
                continue;
            xlo = fmin(xlo, p->series[s].x[i]);
            xhi = fmax(xhi, p->series[s].x[i]);
            ylo = fmin(ylo, p->series[s].y[i]);
            yhi = fmax(yhi, p->series[s].y[i]);
        }
    for (int h = 0; h < p->n_hlines; h++) {
        if (!isfinite(p->hlines[h].y) || (p->logy && p->hlines[h].y <= 0))
            continue;
        ylo = fmin(ylo, p->hlines[h].y);
        yhi = fmax(yhi, p->hlines[h].y);
    }
    if (isfinite(p->ymin_hint) && (!p->logy || p->ymin_hint > 0))
        ylo = fmin(ylo, p->ymin_hint);
    int y0 = r.y;
    if (p->title) {
        draw_text(c, y0, r.x, r.w, UI_STYLE_TITLE, p->title);
        y0++;
    }
    if (!(xlo <= xhi) || !(ylo <= yhi)) {
        draw_text(c, y0, r.x, r.w, UI_STYLE_DIM, "(no data)");
        return;
    }
    if (ylo == yhi) {
        ylo = p->logy ? ylo / 2 : ylo - 1;
        yhi = p->logy ? yhi * 2 : yhi + 1;
    } else if (!p->logy) {
        yhi += (yhi - ylo) * 0.05; /* headroom so the top point is not on the frame */
    } else {
        yhi *= 1.15;
    }
    /* axis label column */
    char lo_s[32], hi_s[32], mid_s[32];
    fy(yhi, hi_s, sizeof hi_s);
    fy(ylo, lo_s, sizeof lo_s);
    double ymid = p->logy ? sqrt(ylo * yhi) : (ylo + yhi) / 2;
    fy(ymid, mid_s, sizeof mid_s);
    int lw = draw_strwidth(hi_s);
    if (draw_strwidth(lo_s) > lw)
        lw = draw_strwidth(lo_s);
    if (draw_strwidth(mid_s) > lw)
        lw = draw_strwidth(mid_s);
    int legend_w = 0;
    for (int h = 0; h < p->n_hlines; h++)
        if (p->hlines[h].label && draw_strwidth(p->hlines[h].label) + 1 > legend_w)
            legend_w = draw_strwidth(p->hlines[h].label) + 1;
    if (legend_w > r.w / 4)
        legend_w = r.w / 4;
    int px = r.x + lw + 1, pw = r.w - lw - 1 - legend_w;
    int ph = r.y + r.h - y0 - 2; /* x axis + x tick labels */
    if (pw < 8 || ph < 2) {
        draw_text(c, y0, r.x, r.w, UI_STYLE_DIM, "(too small for a chart)");
        return;
    }
    draw_text_right(c, y0, r.x, lw, UI_STYLE_DIM, hi_s);
    draw_text_right(c, y0 + ph / 2, r.x, lw, UI_STYLE_DIM, mid_s);
    draw_text_right(c, y0 + ph - 1, r.x, lw, UI_STYLE_DIM, lo_s);
    draw_vline(c, y0, px - 1, ph, UI_STYLE_DIM);
    draw_hline(c, y0 + ph, px, pw, UI_STYLE_DIM);
    draw_put_glyph(c, y0 + ph, px - 1, G_BL, UI_STYLE_DIM);
    /* x ticks at the data x values of the first series (batch 1, 2, 4 ...) */
    int last_tick_end = -1;
    if (p->n_series > 0) {
        const struct w_plot_series *s = &p->series[0];
        for (int i = 0; i < s->n; i++) {
            int cx = w_plot_scale(s->x[i], xlo, xhi, p->logx, pw);
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
    /* reference lines with labels on the right */
    for (int h = 0; h < p->n_hlines; h++) {
        int cy = w_plot_scale(p->hlines[h].y, ylo, yhi, p->logy, ph);
        if (cy < 0)
            continue;
        int yy = y0 + ph - 1 - cy;
        for (int i = 0; i < pw; i += 2)
            draw_put_glyph(c, yy, px + i, G_HLINE, p->hlines[h].style);
        if (p->hlines[h].label)
            draw_text(c, yy, px + pw + 1, legend_w - 1, p->hlines[h].style, p->hlines[h].label);
    }
    if (isfinite(p->xmark)) {
        int cx = w_plot_scale(p->xmark, xlo, xhi, p->logx, pw);
        for (int i = 0; cx >= 0 && i < ph; i++)
            if (draw_cell(c, y0 + i, px + cx) && draw_cell(c, y0 + i, px + cx)->ch == ' ')
                draw_put(c, y0 + i, px + cx, ':', UI_STYLE_DIM);
    }
    /* series: lines by interpolating between consecutive points per column */
    for (int s = 0; s < p->n_series; s++) {
        const struct w_plot_series *se = &p->series[s];
        int prev = -1;
        for (int i = 0; i < se->n; i++) {
            if (!point_ok(se, i, p->logx, p->logy))
                continue;
            if (se->line && prev >= 0) {
                int c0 = w_plot_scale(se->x[prev], xlo, xhi, p->logx, pw);
                int c1 = w_plot_scale(se->x[i], xlo, xhi, p->logx, pw);
                for (int cx = c0 + 1; cx < c1; cx++) {
                    double t = (double)(cx - c0) / (c1 - c0);
                    double ya = p->logy ? log(se->y[prev]) : se->y[prev];
                    double yb = p->logy ? log(se->y[i]) : se->y[i];
                    double yv = ya + t * (yb - ya);
                    if (p->logy)
                        yv = exp(yv);
                    int cy = w_plot_scale(yv, ylo, yhi, p->logy, ph);
                    if (cy >= 0)
                        draw_put(c, y0 + ph - 1 - cy, px + cx, c->utf8 ? 0x00B7 : '.', se->style);
                }
            }
            prev = i;
        }
        for (int i = 0; se->mark && i < se->n; i++) {
            if (!point_ok(se, i, p->logx, p->logy))
                continue;
            int cx = w_plot_scale(se->x[i], xlo, xhi, p->logx, pw);
            int cy = w_plot_scale(se->y[i], ylo, yhi, p->logy, ph);
            if (cx >= 0 && cy >= 0)
                draw_put(c, y0 + ph - 1 - cy, px + cx, se->mark, se->style);
        }
    }
}
