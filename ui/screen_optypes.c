/* screen_optypes.c - the Layers tab's op-type view ('o'): one row per ONNX
 * op type with its node count, predicted time share, FLOPs, bytes moved and
 * dominant bound, largest share first (app_optypes). */
#include "ui/screen.h"

#include <stdio.h>
#include <stdlib.h>

#include "util/fmt.h"
#include "ui/w_table.h"

enum { C_OP, C_NODES, C_SHARE, C_FLOPS, C_BYTES, C_BOUND, C__COUNT };
static const struct w_table_col cols[] = {
    [C_OP] = {"Op type", 12, false, 2, false, 0, true},
    [C_NODES] = {"Nodes", 5, true, false, false, 0},
    [C_SHARE] = {"Time share", 14, true, 3, true, 0},
    [C_FLOPS] = {"FLOPs", 8, true, false, false, 0},
    [C_BYTES] = {"Bytes moved", 11, true, false, false, 0},
    [C_BOUND] = {"Bound", 8, false, false, false, 0},
};
_Static_assert(sizeof cols / sizeof cols[0] == C__COUNT, "op-type columns");

struct ctx {
    const struct app_optype *t;
    double max_share;
};

static const char *get_cell(void *vctx, int row, int col, char *buf, int size,
                            enum ui_style *style)
{
    const struct ctx *x = vctx;
    const struct app_optype *o = &x->t[row];
    switch (col) {
    case C_OP: snprintf(buf, (size_t)size, "%s", o->op); break;
    case C_NODES: snprintf(buf, (size_t)size, "%d", o->nodes); break;
    case C_SHARE: snprintf(buf, (size_t)size, "%.1f%%", o->share * 100); break;
    case C_FLOPS: fmt_si(o->flops, buf, size); break;
    case C_BYTES: fmt_bytes(o->bytes, buf, size); break;
    default:
        snprintf(buf, (size_t)size, "%s", bound_name(o->bound));
        *style = o->bound == BOUND_COMPUTE    ? UI_STYLE_COMPUTE
                 : o->bound == BOUND_MEMORY   ? UI_STYLE_MEMORY
                 : o->bound == BOUND_OVERHEAD ? UI_STYLE_OVERHEAD
                                              : UI_STYLE_DIM;
    }
    return buf;
}

static double get_fraction(void *vctx, int row, int col)
{
    (void)col;
    const struct ctx *x = vctx;
    return x->max_share > 0 ? x->t[row].share / x->max_share : 0;
}

int screen_optypes_count(const struct app *a)
{
    struct app_optype *t;
    int n_zero, n = app_optypes(a, &t, &n_zero);
    free(t);
    return n;
}

void screen_optypes_draw(struct app *a, struct ui_canvas *c, struct ui_rect r)
{
    struct app_optype *t;
    int n_zero, n = app_optypes(a, &t, &n_zero);
    struct ctx x = {t, n > 0 ? t[0].share : 0};
    struct w_table tb = {
        .cols = cols, .n_cols = C__COUNT, .n_rows = n, .sort_col = C_SHARE, .sort_desc = true,
        .list = &a->st.op_list, .get_cell = get_cell, .get_fraction = get_fraction, .ctx = &x,
        .empty_text = "no prediction yet", .frozen = 1,
    };
    struct ui_rect body = r;
    if (n_zero > 0 && r.h > 2)
        body.h--;
    w_table_draw(&tb, c, body);
    if (body.h < r.h)
        draw_textf(c, r.y + r.h - 1, r.x, r.w, UI_STYLE_DIM,
                   "%d op type%s taking no time not shown; o: back to the layers", n_zero,
                   n_zero == 1 ? "" : "s");
    free(t);
}

unsigned screen_optypes_enter(struct app *a)
{
    struct app_optype *t;
    int n_zero, n = app_optypes(a, &t, &n_zero);
    int sel = a->st.op_list.sel;
    if (sel < 0 || sel >= n) {
        free(t);
        return UI_HANDLED;
    }
    snprintf(a->st.filter, sizeof a->st.filter, "op=%s", t[sel].op);
    a->rows_dirty = true;
    a->st.op_types = false;
    a->st.list[UI_TAB_LAYERS] = (struct ui_list){0, 0};
    ui_state_message(&a->st, false,
                     "the %d %s layers (filter op=%s; \\ changes it, :filter clears it)",
                     t[sel].nodes, t[sel].op, t[sel].op);
    free(t);
    return UI_HANDLED | UI_REDRAW;
}
