/*
 * ui.h - the curses explorer's one entry point.
 */
#ifndef DIPPM_UI_H
#define DIPPM_UI_H

/* Opens the explorer on model (NULL: the bundled default). Returns an exit
 * code; the terminal is restored on every path. */
int ui_main(const char *model);

#endif
