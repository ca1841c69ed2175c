/* theme.c - styles to curses attributes and colour pairs. */
#include "ui/theme.h"

#include <curses.h>
#include <stdlib.h>

bool theme_no_color_env(void)
{
    const char *s = getenv("NO_COLOR");
    return s && *s;
}

static unsigned long mono_attr(char m)
{
    switch (m) {
    case 'b': return A_BOLD;
    case 'r': return A_REVERSE;
    case 'u': return A_UNDERLINE;
    case 'd': return A_DIM;
    default: return A_NORMAL;
    }
}

/* Colours per style: foreground, background (-1 = terminal default), extra. */
static const struct {
    short fg, bg;
    unsigned long extra;
} colors[] = {
    [UI_STYLE_NORMAL] = {-1, -1, 0},
    [UI_STYLE_TITLE] = {COLOR_CYAN, -1, A_BOLD},
    [UI_STYLE_LABEL] = {-1, -1, 0},
    [UI_STYLE_VALUE] = {-1, -1, A_BOLD},
    [UI_STYLE_DIM] = {COLOR_BLUE, -1, A_BOLD},
    [UI_STYLE_SELECTED] = {COLOR_BLACK, COLOR_CYAN, 0},
    [UI_STYLE_HEADING] = {COLOR_BLACK, COLOR_GREEN, 0},
    [UI_STYLE_TAB] = {-1, -1, 0},
    [UI_STYLE_TAB_ACTIVE] = {COLOR_BLACK, COLOR_CYAN, A_BOLD},
    [UI_STYLE_FKEY] = {-1, -1, 0},
    [UI_STYLE_FKEY_LABEL] = {COLOR_BLACK, COLOR_CYAN, 0},
    [UI_STYLE_STATUS] = {-1, -1, 0},
    [UI_STYLE_ERROR] = {COLOR_RED, -1, A_BOLD},
    [UI_STYLE_GOOD] = {COLOR_GREEN, -1, 0},
    [UI_STYLE_WARN] = {COLOR_YELLOW, -1, A_BOLD},
    [UI_STYLE_BAD] = {COLOR_RED, -1, A_BOLD},
    [UI_STYLE_BAR] = {COLOR_CYAN, -1, 0},
    [UI_STYLE_SERIES1] = {COLOR_YELLOW, -1, A_BOLD},
    [UI_STYLE_SERIES2] = {COLOR_MAGENTA, -1, A_BOLD},
    [UI_STYLE_LIMIT] = {COLOR_RED, -1, 0},
    [UI_STYLE_MATCH] = {COLOR_YELLOW, -1, A_UNDERLINE},
    [UI_STYLE_COMPUTE] = {COLOR_MAGENTA, -1, 0},
    [UI_STYLE_MEMORY] = {COLOR_CYAN, -1, 0},
    [UI_STYLE_OVERHEAD] = {COLOR_YELLOW, -1, 0},
    [UI_STYLE_EDGE] = {COLOR_GREEN, -1, 0},
    [UI_STYLE_HEAT1] = {COLOR_BLACK, COLOR_GREEN, 0},
    [UI_STYLE_HEAT2] = {COLOR_BLACK, COLOR_CYAN, 0},
    [UI_STYLE_HEAT3] = {COLOR_BLACK, COLOR_YELLOW, 0},
    [UI_STYLE_HEAT4] = {COLOR_WHITE, COLOR_RED, A_BOLD},
};
_Static_assert(sizeof colors / sizeof colors[0] == UI_STYLE__COUNT, "a colour per style");

static const char mono[] = {
#define X(id, name, m) m,
    UI_STYLE_LIST(X)
#undef X
};

void theme_init(struct theme *t, bool want_color)
{
    t->color = want_color && has_colors() && start_color() == OK && COLOR_PAIRS > UI_STYLE__COUNT;
    if (t->color)
        t->color = use_default_colors() == OK || assume_default_colors(-1, -1) == OK;
    for (int s = 0; s < UI_STYLE__COUNT; s++) {
        if (!t->color) {
            t->attr[s] = mono_attr(mono[s]);
            continue;
        }
        init_pair((short)(s + 1), colors[s].fg, colors[s].bg);
        t->attr[s] = (unsigned long)COLOR_PAIR(s + 1) | colors[s].extra;
    }
}
