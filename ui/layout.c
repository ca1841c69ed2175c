/* layout.c - the pure layout function. */
#include "ui/layout.h"

#include <string.h>

bool ui_rect_contains(struct ui_rect r, int y, int x)
{
    return r.h > 0 && r.w > 0 && y >= r.y && y < r.y + r.h && x >= r.x && x < r.x + r.w;
}

void ui_layout_compute(int rows, int cols, const struct ui_layout_opts *opts,
                       struct ui_layout *out)
{
    memset(out, 0, sizeof *out);
    out->rows = rows;
    out->cols = cols;
    if (rows < UI_MIN_ROWS || cols < UI_MIN_COLS) {
        out->too_small = true;
        out->r[UI_R_BODY] = (struct ui_rect){0, 0, rows > 0 ? rows : 0, cols > 0 ? cols : 0};
        return;
    }
    /* Header 2 lines; the predictions panel 3 (2 on short terminals, where
     * the MIG line folds into the first); tabs, status and F-keys 1 each. */
    int pred_h = rows >= 20 ? 3 : 2;
    if (opts && opts->decoder && rows >= 24)
        pred_h = 4; /* the generation line of a decoder */
    int y = 0;
    out->r[UI_R_HEADER] = (struct ui_rect){y, 0, 2, cols};
    y += 2;
    out->r[UI_R_PRED] = (struct ui_rect){y, 0, pred_h, cols};
    y += pred_h;
    out->r[UI_R_TABS] = (struct ui_rect){y, 0, 1, cols};
    y += 1;
    int body_h = rows - y - 2;
    out->r[UI_R_STATUS] = (struct ui_rect){rows - 2, 0, 1, cols};
    out->r[UI_R_FKEYS] = (struct ui_rect){rows - 1, 0, 1, cols};
    if (opts && opts->side_pane && cols >= UI_SIDE_MIN_COLS) {
        int side_w = cols / 3;
        out->r[UI_R_BODY] = (struct ui_rect){y, 0, body_h, cols - side_w};
        out->r[UI_R_SIDE] = (struct ui_rect){y, cols - side_w, body_h, side_w};
    } else {
        out->r[UI_R_BODY] = (struct ui_rect){y, 0, body_h, cols};
    }
}

enum ui_region ui_layout_hit(const struct ui_layout *l, int y, int x)
{
    for (int i = 0; i < UI_R__COUNT; i++)
        if (ui_rect_contains(l->r[i], y, x))
            return (enum ui_region)i;
    return UI_R_NONE;
}
