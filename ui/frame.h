/*
 * frame.h - everything around the active screen: the header (model and
 * configuration), the predictions panel, the tab bar, the status line and
 * the function-key bar. Curses-free; hit-testing helpers for the mouse.
 */
#ifndef DIPPM_UI_FRAME_H
#define DIPPM_UI_FRAME_H

#include <stdbool.h>

#include "ui/app.h"
#include "ui/draw.h"
#include "ui/layout.h"

/* What the status line shows while the user types. */
struct frame_input {
    bool active;
    const char *prompt; /* "/", "\\", ":", "goto: " */
    const char *text;
    int cursor;         /* byte offset in text */
    const char *hint;   /* completion matches or other hint; may be NULL */
};

/* Draws header, predictions, tabs, status (message or input) and F-keys.
 * Returns the screen column of the input cursor (-1 when no input). */
int frame_draw(struct app *a, struct ui_canvas *c, const struct ui_layout *l,
               const struct frame_input *in);
/* The tab whose label covers column x of the tab bar, -1 if none. */
int frame_tab_at(int cols, int x);
/* The key of the F-key bar item at column x (UI_KEY_F1...), 0 if none. */
int frame_fkey_at(const struct app *a, int cols, int x);

#endif
