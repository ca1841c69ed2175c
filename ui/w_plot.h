/*
 * w_plot.h - an x/y line plot in character cells (nvtop's plot widget):
 * data-agnostic, plain arrays in. Optional log axes, horizontal reference
 * lines with labels (capacity limits, compute ceilings), a vertical marker
 * (the current batch) and single-point series (a layer on a roofline).
 */
#ifndef DIPPM_UI_W_PLOT_H
#define DIPPM_UI_W_PLOT_H

#include <stdbool.h>
#include <stdint.h>

#include "ui/draw.h"

#define W_PLOT_MAX_SERIES 4
#define W_PLOT_MAX_HLINES 12

struct w_plot_series {
    const double *x, *y;
    const bool *valid; /* NULL: all points valid */
    int n;
    enum ui_style style;
    uint32_t mark;     /* character at data points (0: line only) */
    bool line;         /* connect points */
    const char *label;
};

struct w_plot_hline {
    double y;
    const char *label;
    enum ui_style style;
};

struct w_plot {
    const char *title;
    const char *xlabel;
    bool logx, logy;
    struct w_plot_series series[W_PLOT_MAX_SERIES];
    int n_series;
    struct w_plot_hline hlines[W_PLOT_MAX_HLINES];
    int n_hlines;
    double xmark;  /* vertical marker at this x; NAN for none */
    /* Axis tick text for a value (e.g. fmt_ms); NULL: "%g". */
    const char *(*fmt_y)(double v, char *buf, int size);
    double ymin_hint; /* include this y in the range (NAN: none), e.g. 0 */
};

/* Draws the plot with its axes into r (needs at least 6 x 24 cells; smaller
 * areas get a one-line notice). */
void w_plot_draw(const struct w_plot *p, struct ui_canvas *c, struct ui_rect r);

/* Maps v in [lo, hi] (log scale if logs) to a cell 0..n-1; -1 outside. */
int w_plot_scale(double v, double lo, double hi, bool logs, int n);

#endif
