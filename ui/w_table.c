/* w_table.c - the table widget. */
#include "ui/w_table.h"

#include <string.h>

#include "ui/w_bar.h"

void w_table_widths(const struct w_table *t, int w, int *widths)
{
    int used = 0, n_flex = 0;
    for (int i = 0; i < t->n_cols; i++) {
        int need = t->cols[i].min_width + (used ? 1 : 0);
        bool scrolled = i >= t->frozen && i < t->frozen + t->skip;
        /* hide_below gives way once the user scrolls the columns */
        bool narrow = w < t->cols[i].hide_below && !(t->skip > 0 && i >= t->frozen);
        if (!scrolled && !narrow && used + need <= w) {
            widths[i] = t->cols[i].min_width;
            used += need;
            n_flex += t->cols[i].flex;
        } else {
            widths[i] = 0;
        }
    }
    int spare = w - used;
    for (int i = 0; i < t->n_cols && n_flex && spare > 0; i++) {
        if (!widths[i] || !t->cols[i].flex)
            continue;
        int add = spare * t->cols[i].flex / n_flex;
        widths[i] += add;
        spare -= add;
        n_flex -= t->cols[i].flex;
    }
}

bool w_table_clipped(const struct w_table *t, int w)
{
    int widths[W_TABLE_MAX_COLS];
    if (t->n_cols > W_TABLE_MAX_COLS)
        return false;
    w_table_widths(t, w, widths);
    for (int i = t->frozen + t->skip; i < t->n_cols; i++)
        if (!widths[i])
            return true;
    return false;
}

int w_table_visible(struct ui_rect r)
{
    return r.h > 1 ? r.h - 1 : 0;
}

void w_table_draw(const struct w_table *t, struct ui_canvas *c, struct ui_rect r)
{
    int widths[W_TABLE_MAX_COLS];
    if (r.h < 1 || r.w < 1 || t->n_cols > W_TABLE_MAX_COLS)
        return;
    w_table_widths(t, r.w, widths);
    draw_clear(c, r, UI_STYLE_NORMAL);
    /* header */
    draw_clear(c, (struct ui_rect){r.y, r.x, 1, r.w}, UI_STYLE_HEADING);
    int x = r.x;
    for (int i = 0; i < t->n_cols; i++) {
        if (!widths[i])
            continue;
        char title[64];
        bool sorted = i == t->sort_col;
        snprintf(title, sizeof title, "%s", t->cols[i].title);
        int tw = draw_strwidth(title) + (sorted ? 1 : 0);
        int tx = t->cols[i].right && tw < widths[i] ? x + widths[i] - tw : x;
        int n = draw_text(c, r.y, tx, widths[i], sorted ? UI_STYLE_TITLE : UI_STYLE_HEADING, title);
        if (sorted && n < widths[i])
            draw_put_glyph(c, r.y, tx + n, t->sort_desc ? G_DOWN : G_UP, UI_STYLE_TITLE);
        if (sorted)
            draw_restyle(c, r.y, x, widths[i], UI_STYLE_TITLE);
        x += widths[i] + 1;
    }
    int vis = w_table_visible(r);
    if (t->list)
        ui_list_clamp(t->list, t->n_rows, vis);
    if (t->n_rows == 0) {
        if (t->empty_text && r.h > 1)
            draw_text(c, r.y + 1, r.x + 1, r.w - 1, UI_STYLE_DIM, t->empty_text);
        return;
    }
    int top = t->list ? t->list->top : 0;
    for (int k = 0; k < vis && top + k < t->n_rows; k++) {
        int row = top + k, y = r.y + 1 + k;
        bool sel = t->list && row == t->list->sel;
        x = r.x;
        for (int i = 0; i < t->n_cols; i++) {
            if (!widths[i])
                continue;
            char buf[256];
            enum ui_style st = UI_STYLE_NORMAL;
            const char *text = t->get_cell(t->ctx, row, i, buf, sizeof buf, &st);
            int cw = widths[i], cx = x;
            if (t->cols[i].bar && t->get_fraction) {
                int bw = cw - 7 > 3 ? cw - 7 : 0;
                if (bw) {
                    w_bar_draw(c, y, cx, bw, t->get_fraction(t->ctx, row, i), UI_STYLE_BAR,
                               UI_STYLE_DIM, false);
                    cx += bw + 1;
                    cw -= bw + 1;
                }
            }
            int tw = draw_strwidth(text);
            if (tw > cw && cw > 2 && !t->cols[i].right) /* head and tail, never cut in a word */
                draw_text_mid(c, y, cx, cw, st, text);
            else if (t->cols[i].keep_tail && tw > cw && cw > 1)
                draw_text_mid(c, y, cx, cw, st, text);
            else if (t->cols[i].right)
                draw_text_right(c, y, cx, cw, st, text);
            else
                draw_text(c, y, cx, cw, st, text);
            x += widths[i] + 1;
        }
        if (sel)
            draw_restyle(c, y, r.x, r.w, UI_STYLE_SELECTED);
    }
}

int w_table_col_at(const struct w_table *t, struct ui_rect r, int x)
{
    int widths[W_TABLE_MAX_COLS];
    if (t->n_cols > W_TABLE_MAX_COLS)
        return -1;
    w_table_widths(t, r.w, widths);
    int cx = r.x;
    for (int i = 0; i < t->n_cols; i++) {
        if (!widths[i])
            continue;
        if (x >= cx && x < cx + widths[i] + 1)
            return i;
        cx += widths[i] + 1;
    }
    return -1;
}

int w_table_row_at(const struct w_table *t, struct ui_rect r, int y)
{
    int k = y - r.y - 1;
    if (k < 0 || k >= w_table_visible(r))
        return -1;
    int row = (t->list ? t->list->top : 0) + k;
    return row < t->n_rows ? row : -1;
}
