/*
 * style.h - the explorer's named text styles. Screens and widgets tag every
 * cell with one of these; only ui/theme.c turns them into curses attributes
 * and colours, so this header stays curses-free.
 */
#ifndef DIPPM_UI_STYLE_H
#define DIPPM_UI_STYLE_H

/* X(id, name, mono fallback). The mono fallback is what a monochrome or
 * NO_COLOR terminal shows: 'n' normal, 'b' bold, 'r' reverse, 'u' underline,
 * 'd' dim. */
#define UI_STYLE_LIST(X)                 \
    X(UI_STYLE_NORMAL, "normal", 'n')    \
    X(UI_STYLE_TITLE, "title", 'b')      \
    X(UI_STYLE_LABEL, "label", 'n')      \
    X(UI_STYLE_VALUE, "value", 'b')      \
    X(UI_STYLE_DIM, "dim", 'd')          \
    X(UI_STYLE_SELECTED, "selected", 'r') \
    X(UI_STYLE_HEADING, "heading", 'u')  \
    X(UI_STYLE_TAB, "tab", 'n')          \
    X(UI_STYLE_TAB_ACTIVE, "tab-active", 'r') \
    X(UI_STYLE_FKEY, "fkey", 'n')        \
    X(UI_STYLE_FKEY_LABEL, "fkey-label", 'r') \
    X(UI_STYLE_STATUS, "status", 'n')    \
    X(UI_STYLE_ERROR, "error", 'b')      \
    X(UI_STYLE_GOOD, "good", 'n')        \
    X(UI_STYLE_WARN, "warn", 'b')        \
    X(UI_STYLE_BAD, "bad", 'b')          \
    X(UI_STYLE_BAR, "bar", 'n')          \
    X(UI_STYLE_SERIES1, "series1", 'b')  \
    X(UI_STYLE_SERIES2, "series2", 'n')  \
    X(UI_STYLE_LIMIT, "limit", 'd')      \
    X(UI_STYLE_MATCH, "match", 'u')      \
    X(UI_STYLE_COMPUTE, "compute", 'n')  \
    X(UI_STYLE_MEMORY, "memory", 'n')    \
    X(UI_STYLE_OVERHEAD, "overhead", 'n') \
    X(UI_STYLE_EDGE, "edge", 'n')        \
    X(UI_STYLE_HEAT1, "heat1", 'n')      \
    X(UI_STYLE_HEAT2, "heat2", 'n')      \
    X(UI_STYLE_HEAT3, "heat3", 'b')      \
    X(UI_STYLE_HEAT4, "heat4", 'r')

enum ui_style {
#define X(id, name, mono) id,
    UI_STYLE_LIST(X)
#undef X
    UI_STYLE__COUNT
};

/* The buckets of a heat scale, coolest first (heat map cells, the graph's
 * node time); colour only: a screen marks the bucket in text as well. */
#define UI_HEAT_BUCKETS 4

/* "normal", "title", ...; "?" when out of range. */
const char *ui_style_name(enum ui_style s);

#endif
