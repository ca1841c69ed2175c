/*
 * layout.h - where every region of the screen goes, as a pure function of
 * the terminal size (nvtop's layout, unit-tested for overlap and
 * containment in tests/test_ui_layout.c).
 *
 *   header      model line and configuration line
 *   predictions latency / throughput / energy, memory bar, MIG suggestion
 *   tabs        one line of tab names
 *   body        the active screen (and a side pane on wide terminals)
 *   status      messages and errors; the command line while typing
 *   fkeys       the function-key bar
 */
#ifndef DIPPM_UI_LAYOUT_H
#define DIPPM_UI_LAYOUT_H

#include <stdbool.h>

#include "ui/draw.h"

enum ui_region {
    UI_R_HEADER, UI_R_PRED, UI_R_TABS, UI_R_BODY, UI_R_SIDE, UI_R_STATUS, UI_R_FKEYS,
    UI_R__COUNT,
    UI_R_NONE = -1
};

/* Smallest terminal the explorer draws in; below it a one-line notice. */
#define UI_MIN_ROWS 12
#define UI_MIN_COLS 40
/* Width from which the body gets a side pane (layer detail beside the table). */
#define UI_SIDE_MIN_COLS 150

struct ui_layout_opts {
    bool side_pane; /* allow the side pane when wide enough */
    bool decoder;   /* a fourth predictions line for the generation or the diffusion
                       pipeline (tall terminals) */
};

struct ui_layout {
    int rows, cols;
    bool too_small;            /* only UI_R_BODY is set (the whole screen) */
    struct ui_rect r[UI_R__COUNT]; /* h == 0 or w == 0: region absent */
};

/* Computes every region for a rows x cols terminal. Regions never overlap
 * and lie inside the screen. */
void ui_layout_compute(int rows, int cols, const struct ui_layout_opts *opts,
                       struct ui_layout *out);
/* The region containing y,x (UI_R_NONE if none). */
enum ui_region ui_layout_hit(const struct ui_layout *l, int y, int x);
/* true if y,x is inside r. */
bool ui_rect_contains(struct ui_rect r, int y, int x);

#endif
