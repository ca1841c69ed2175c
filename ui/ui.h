/*
 * ui.h - the curses explorer's one entry point.
 */
#ifndef DIPPM_UI_H
#define DIPPM_UI_H

#include <stdbool.h>

/* Opens the explorer on model (NULL: the bundled default). Returns an exit
 * code; the terminal is restored on every path. */
int ui_main(const char *model);

/* How the explorer starts: a model (NULL: the bundled default), or a saved
 * session by name, optionally straight into the teaching tour. */
struct ui_opts {
    const char *model;
    const char *session; /* NULL: none */
    bool tour;
};
int ui_main_opts(const struct ui_opts *o);

#endif
