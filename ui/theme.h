/*
 * theme.h - maps enum ui_style to terminal attributes (the only place that
 * knows colours). Colour when the terminal has it and NO_COLOR is unset;
 * otherwise each style's monochrome fallback (bold, reverse, underline,
 * dim) from ui/style.h. The attribute values are curses attr_t bits, kept
 * as unsigned long here so this header stays curses-free.
 */
#ifndef DIPPM_UI_THEME_H
#define DIPPM_UI_THEME_H

#include <stdbool.h>

#include "ui/style.h"

struct theme {
    bool color;
    unsigned long attr[UI_STYLE__COUNT];
};

/* Fills t; with want_color and a colour terminal, sets up colour pairs
 * (curses must be initialised). */
void theme_init(struct theme *t, bool want_color);
/* true if the environment asks for no colour (NO_COLOR set and non-empty). */
bool theme_no_color_env(void);

#endif
