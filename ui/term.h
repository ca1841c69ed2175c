/*
 * term.h - the one place that talks to the terminal through curses: opens
 * and closes it (restoring it on every exit, signals included), reads keys
 * and mouse events as ui_key values, and copies a canvas to the screen.
 * Signal handlers only set flags (SIGWINCH -> resize, SIGINT/SIGTERM/SIGHUP
 * -> quit); the loop polls them.
 */
#ifndef DIPPM_UI_TERM_H
#define DIPPM_UI_TERM_H

#include <stdbool.h>

#include "ui/draw.h"
#include "util/status.h"
#include "ui/theme.h"

struct term;

enum term_mouse { TERM_MOUSE_NONE, TERM_MOUSE_CLICK, TERM_MOUSE_DOUBLE, TERM_MOUSE_WHEEL_UP,
                  TERM_MOUSE_WHEEL_DOWN };

struct term_event {
    int key; /* ui_key; UI_KEY_RESIZE after a resize, UI_KEY_MOUSE for mouse */
    enum term_mouse mouse;
    int y, x;
};

/* Initialises curses on the controlling terminal. ascii forces the ASCII
 * fallback even in a UTF-8 locale; color false draws without colours (as
 * NO_COLOR does). NULL with diag if the terminal cannot be used (nothing
 * is left changed). */
struct term *term_open(bool ascii, bool color, struct diag *d);
/* Restores the terminal (endwin) and frees t. NULL is a no-op. */
void term_close(struct term *t);
void term_size(const struct term *t, int *rows, int *cols);
bool term_utf8(const struct term *t);
bool term_color(const struct term *t);
/* Copies c to the screen; places the cursor at cy,cx (shown) or hides it
 * when cy < 0. force repaints everything (after Ctrl-L). */
void term_flush(struct term *t, const struct ui_canvas *c, int cy, int cx, bool force);
/* Waits up to timeout_ms (-1: forever) for a key, mouse event, resize or
 * quit signal. Returns false on timeout. A quit signal yields key
 * UI_KEY_F10 with mouse = NONE after term_quit_requested() turns true. */
bool term_poll(struct term *t, int timeout_ms, struct term_event *ev);
/* True if a key is waiting to be read (does not consume it). */
bool term_input_pending(struct term *t);
/* True once SIGINT, SIGTERM or SIGHUP arrived. */
bool term_quit_requested(void);
/* The signal that asked to quit (SIGINT, SIGTERM, SIGHUP), 0 if none. */
int term_quit_signal(void);
/* True, forgetting the quit request, when it was SIGINT (Ctrl-C): an open
 * input line takes it as "cancel this line" instead of "quit". */
bool term_interrupt_take(void);
/* Ctrl-Z: leaves curses mode, stops the process (SIGTSTP); after fg the
 * next term_poll reports a resize so the caller redraws everything. */
void term_suspend(struct term *t);

#endif
