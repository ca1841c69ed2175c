/* screen.c - the screen registry (an explicit static table) and shared list
 * movement. */
#include "ui/screen.h"

static const struct screen_ops *const screens[] = {
    [UI_TAB_LAYERS] = &screen_layers_ops, [UI_TAB_GRAPH] = &screen_graph_ops,
    [UI_TAB_SWEEP] = &screen_sweep_ops,   [UI_TAB_PARAMS] = &screen_params_ops,
    [UI_TAB_DETAIL] = &screen_detail_ops, [UI_TAB_HELP] = &screen_help_ops,
    [UI_TAB_ABOUT] = &screen_about_ops,   [UI_TAB_COMPARE] = &screen_compare_ops,
    [UI_TAB_LOG] = &screen_log_ops,
};
_Static_assert(sizeof screens / sizeof screens[0] == UI_TAB__COUNT, "one screen per tab");

const struct screen_ops *screen_get(enum ui_tab t)
{
    return (unsigned)t < UI_TAB__COUNT ? screens[t] : screens[UI_TAB_LAYERS];
}

unsigned screen_list_move(struct ui_list *l, enum ui_action act, int n, int visible)
{
    int page = visible > 1 ? visible - 1 : 1;
    switch (act) {
    case UI_ACT_UP: ui_list_move(l, -1, n, visible); break;
    case UI_ACT_DOWN: ui_list_move(l, 1, n, visible); break;
    case UI_ACT_PAGE_UP: ui_list_move(l, -page, n, visible); break;
    case UI_ACT_PAGE_DOWN: ui_list_move(l, page, n, visible); break;
    case UI_ACT_HALF_UP: ui_list_move(l, -(page + 1) / 2, n, visible); break;
    case UI_ACT_HALF_DOWN: ui_list_move(l, (page + 1) / 2, n, visible); break;
    case UI_ACT_HOME: ui_list_select(l, 0, n, visible); break;
    case UI_ACT_END: ui_list_select(l, n - 1, n, visible); break;
    default: return 0;
    }
    return UI_HANDLED | UI_REDRAW;
}
