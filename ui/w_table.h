/*
 * w_table.h - a scrolling table widget (tig's get_column_data): data-agnostic,
 * cells come from a callback. A column may draw a bar (a fraction 0..1 with
 * the cell text beside it). Draws a header row with the sort arrow.
 */
#ifndef DIPPM_UI_W_TABLE_H
#define DIPPM_UI_W_TABLE_H

#include <stdbool.h>

#include "ui/draw.h"
#include "ui/ui_state.h"

#define W_TABLE_MAX_COLS 16

struct w_table_col {
    const char *title;
    int min_width;
    bool right;  /* right-aligned (numbers) */
    int flex;    /* shares of the spare width it takes (0: fixed) */
    bool bar;    /* draws get_fraction() as a bar before the text */
    int hide_below; /* hidden when the table is narrower than this */
    bool keep_tail; /* too long: cut the middle ("layer1…0.conv1"), keeping both ends */
};

/* Text of cell (row, col) into buf; may set *style (default normal). */
typedef const char *(*w_table_cell_fn)(void *ctx, int row, int col, char *buf, int size,
                                       enum ui_style *style);
typedef double (*w_table_frac_fn)(void *ctx, int row, int col);

struct w_table {
    const struct w_table_col *cols;
    int n_cols;
    int n_rows;
    int sort_col;   /* -1: none */
    bool sort_desc;
    struct ui_list *list; /* selection and scroll (updated for visibility) */
    w_table_cell_fn get_cell;
    w_table_frac_fn get_fraction;
    void *ctx;
    const char *empty_text; /* shown when n_rows == 0 */
    int frozen;     /* leading columns that never scroll away */
    int skip;       /* columns after the frozen ones scrolled out (Left/Right) */
};

/* Column widths for a total width w (every column at least min_width when
 * it fits; columns that do not fit or are scrolled out get width 0). */
void w_table_widths(const struct w_table *t, int w, int *widths);
/* Rows visible in r (one line goes to the header). */
int w_table_visible(struct ui_rect r);
void w_table_draw(const struct w_table *t, struct ui_canvas *c, struct ui_rect r);
/* True when some column is hidden for lack of width (Right can scroll). */
bool w_table_clipped(const struct w_table *t, int w);
/* The column under screen column x (header clicks), -1 if none. */
int w_table_col_at(const struct w_table *t, struct ui_rect r, int x);
/* The data row under screen row y, -1 if none (header or past the end). */
int w_table_row_at(const struct w_table *t, struct ui_rect r, int y);

#endif
