/*
 * w_bar.h - a horizontal bar meter (nvtop/htop meters): a fraction drawn in
 * w cells with eighth-cell resolution in UTF-8 mode, and the colour level
 * for a fill fraction (light / moderate / heavy, as nvitop does).
 */
#ifndef DIPPM_UI_W_BAR_H
#define DIPPM_UI_W_BAR_H

#include <stdbool.h>

#include "ui/draw.h"

/* Fill thresholds for w_bar_level: below LOW good, below HIGH warn, else bad. */
#define W_BAR_LOW 0.60
#define W_BAR_HIGH 0.85

/* Draws frac (clamped to 0..1) of w cells in fill style, the rest in empty
 * style; brackets = true draws [ ] around the bar (taking 2 of the w). */
void w_bar_draw(struct ui_canvas *c, int y, int x, int w, double frac, enum ui_style fill,
                enum ui_style empty, bool brackets);
/* UI_STYLE_GOOD, UI_STYLE_WARN or UI_STYLE_BAD for a fill fraction
 * (> 1 is always bad: it does not fit). */
enum ui_style w_bar_level(double frac);

#endif
