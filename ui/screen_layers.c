/* screen_layers.c - the layer table: name, op, output shape, params, MACs,
 * memory, predicted time share (bar), bound class. Sortable, filterable. */
#include "ui/screen.h"

#include <string.h>

#include "ui/w_table.h"

/* In enum ui_col order; widths fit 80 columns once "#" drops out. */
static const struct w_table_col cols[] = {
    [UI_COL_INDEX] = {"#", 4, true, false, false, 100},
    [UI_COL_NAME] = {"Name", 10, false, 3, false, 0, true},
    [UI_COL_OP] = {"Op", 8, false, 2, false, 0, true},
    [UI_COL_SHAPE] = {"Output shape", 13, false, true, false, 0},
    [UI_COL_PARAMS] = {"Params", 6, true, false, false, 0},
    [UI_COL_MACS] = {"MACs", 6, true, false, false, 0},
    [UI_COL_MEM] = {"Memory", 8, true, false, false, 0},
    [UI_COL_SHARE] = {"Time share", 12, true, true, true, 0},
    [UI_COL_BOUND] = {"Bound", 8, false, false, false, 90}, /* Right scrolls to it */
};
_Static_assert(sizeof cols / sizeof cols[0] == UI_COL__COUNT, "layer columns");

struct ctx {
    struct app *a;
    double max_share;
};

static const char *get_cell(void *vctx, int row, int col, char *buf, int size,
                            enum ui_style *style)
{
    struct ctx *x = vctx;
    int ni = x->a->rows[row];
    app_cell_text(x->a, ni, (enum ui_col)col, buf, size);
    const struct node *n = &x->a->g->nodes[ni];
    if (n->state != NODE_OK && col >= UI_COL_SHAPE && col <= UI_COL_MEM)
        *style = UI_STYLE_WARN;
    else if (col == UI_COL_BOUND)
        *style = !strcmp(buf, "compute")  ? UI_STYLE_COMPUTE
                 : !strcmp(buf, "memory") ? UI_STYLE_MEMORY
                 : !strcmp(buf, "overhead") ? UI_STYLE_OVERHEAD
                                            : UI_STYLE_DIM;
    else if (col == UI_COL_INDEX)
        *style = UI_STYLE_DIM;
    return buf;
}

static double get_fraction(void *vctx, int row, int col)
{
    struct ctx *x = vctx;
    return x->max_share > 0 ? app_node_share(x->a, x->a->rows[row]) / x->max_share : 0;
}

static void make_table(struct app *a, struct ctx *x, struct w_table *t)
{
    app_rows_update(a);
    x->a = a;
    x->max_share = 0;
    for (int i = 0; a->g && i < a->g->n_nodes; i++) {
        double s = app_node_share(a, i);
        if (s > x->max_share)
            x->max_share = s;
    }
    memset(t, 0, sizeof *t);
    t->cols = cols;
    t->n_cols = UI_COL__COUNT;
    t->n_rows = a->n_rows;
    t->sort_col = ui_state_sorted(&a->st) ? (int)a->st.sort_col : -1; /* graph order: none */
    t->sort_desc = a->st.sort_desc;
    t->list = &a->st.list[UI_TAB_LAYERS];
    t->get_cell = get_cell;
    t->get_fraction = get_fraction;
    t->ctx = x;
    t->empty_text = a->st.filter[0] ? "no layer matches the filter (\\ or F4 to change it)"
                                    : "the model has no nodes";
    t->frozen = UI_COL_NAME + 1;
    t->skip = a->st.hscroll;
}

/* Keeps the selected row and the current node (shared with the graph and
 * detail tabs) in step. */
static void sync_current(struct app *a)
{
    struct ui_list *l = &a->st.list[UI_TAB_LAYERS];
    if (a->n_rows > 0 && l->sel >= 0 && l->sel < a->n_rows)
        a->st.detail_node = a->rows[l->sel];
    else if (a->n_rows == 0)
        a->st.detail_node = -1; /* the filter hides every layer: none is current */
}

static void enter(struct app *a)
{
    app_rows_update(a);
    int r = app_row_of_node(a, a->st.detail_node);
    if (r >= 0)
        a->st.list[UI_TAB_LAYERS].sel = r;
}

static void draw(struct app *a, struct ui_canvas *c, struct ui_rect r)
{
    if (a->st.op_types) {
        screen_optypes_draw(a, c, r);
        return;
    }
    struct ctx x;
    struct w_table t;
    make_table(a, &x, &t);
    struct ui_rect body = r;
    if (a->n_idle_hidden > 0 && r.h > 2)
        body.h--;
    w_table_draw(&t, c, body);
    if (body.h < r.h)
        draw_textf_words(c, r.y + r.h - 1, r.x, r.w, UI_STYLE_DIM,
                         "not shown: %d layer%s taking no time (Constant, folded Shape, views); "
                         "Z shows them",
                         a->n_idle_hidden, a->n_idle_hidden == 1 ? "" : "s");
    sync_current(a);
}

static unsigned on_action(struct app *a, enum ui_action act, struct ui_rect r)
{
    if (a->st.op_types) /* the op-type view: movement, Enter lists the type's layers */
        return act == UI_ACT_ENTER ? screen_optypes_enter(a)
                                   : screen_list_move(&a->st.op_list, act, screen_optypes_count(a),
                                                      w_table_visible(r));
    app_rows_update(a);
    if (a->n_idle_hidden > 0 && r.h > 2)
        r.h--; /* the line that counts them */
    unsigned f = screen_list_move(&a->st.list[UI_TAB_LAYERS], act, a->n_rows,
                                  w_table_visible(r));
    if (f) {
        sync_current(a);
        return f;
    }
    if (act == UI_ACT_LEFT || act == UI_ACT_RIGHT) {
        /* scroll the columns after the name when the table is too wide */
        struct ctx cx;
        struct w_table t;
        make_table(a, &cx, &t);
        if (act == UI_ACT_RIGHT && w_table_clipped(&t, r.w))
            a->st.hscroll++;
        else if (act == UI_ACT_LEFT && a->st.hscroll > 0)
            a->st.hscroll--;
        else
            ui_state_message(&a->st, false, "%s", a->st.hscroll ? "the last column is shown"
                                                                 : "every column is shown");
        return UI_HANDLED | UI_REDRAW;
    }
    if (act == UI_ACT_ENTER && a->n_rows > 0) {
        sync_current(a);
        ui_state_tab_set(&a->st, UI_TAB_DETAIL);
        return UI_HANDLED | UI_REDRAW;
    }
    return 0;
}

static unsigned on_click(struct app *a, struct ui_rect r, int y, int x, bool dbl)
{
    if (a->st.op_types)
        return 0;
    struct ctx cx;
    struct w_table t;
    make_table(a, &cx, &t);
    if (y == r.y) {
        int col = w_table_col_at(&t, r, x);
        if (col < 0)
            return 0;
        ui_state_sort_by(&a->st, (enum ui_col)col);
        a->rows_dirty = true;
        a->st.list[UI_TAB_LAYERS] = (struct ui_list){0, 0};
        ui_state_message(&a->st, false, "sorted by %s, %s", ui_col_title((enum ui_col)col),
                         a->st.sort_desc ? "descending" : "ascending");
        return UI_HANDLED | UI_REDRAW;
    }
    int row = w_table_row_at(&t, r, y);
    if (row < 0)
        return 0;
    ui_list_select(&a->st.list[UI_TAB_LAYERS], row, a->n_rows, w_table_visible(r));
    sync_current(a);
    if (dbl)
        ui_state_tab_set(&a->st, UI_TAB_DETAIL);
    return UI_HANDLED | UI_REDRAW;
}

const struct screen_ops screen_layers_ops = {
    .name = "layers", .enter = enter, .draw = draw, .on_action = on_action, .on_click = on_click,
};
