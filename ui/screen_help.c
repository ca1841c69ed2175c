/* screen_help.c - keys and commands, generated from the action X-macro
 * table (ui/actions.def), the keymap and the command table, so the help
 * always matches what the keys do. */
#include "ui/screen.h"

#include <stdio.h>
#include <string.h>

#include "ui/commands.h"

/* Line k of the help text into buf; returns false past the end. Style:
 * section titles vs entries. */
static bool help_line(int k, char *buf, int size, enum ui_style *st)
{
    *st = UI_STYLE_NORMAL;
    if (k == 0) {
        snprintf(buf, (size_t)size, "Keys");
        *st = UI_STYLE_TITLE;
        return true;
    }
    k--;
    if (k < UI_ACT__COUNT - 1) {
        enum ui_action a = (enum ui_action)(k + 1);
        char keys[64];
        keymap_keys_of(a, keys, sizeof keys);
        snprintf(buf, (size_t)size, "  %-22s %s", keys[0] ? keys : "(unbound)",
                 keymap_action_help(a));
        return true;
    }
    k -= UI_ACT__COUNT - 1;
    if (k == 0) {
        snprintf(buf, (size_t)size, " ");
        return true;
    }
    if (k == 1) {
        snprintf(buf, (size_t)size,
                 "Commands (type : first; Tab completes commands, node and GPU names; Up/Down "
                 "recall history)");
        *st = UI_STYLE_TITLE;
        return true;
    }
    k -= 2;
    if (k < cmd_count()) {
        const struct cmd_info *ci = cmd_get(k);
        snprintf(buf, (size_t)size, "  %-26s %s", ci->usage, ci->help);
        return true;
    }
    k -= cmd_count();
    static const char *const tail[] = {
        " ",
        "Mouse",
        "  click a tab or an F-key to use it; click a column header to sort by it (again: "
        "invert);",
        "  click a row to select it, double-click for its detail; the wheel scrolls.",
        " ",
        "Tour (dippm --tour or :tour)",
        "  n next step, N previous step, Esc or q leaves the tour and restores what you had.",
        " ",
        "Figures",
        "  Latency, energy and memory come from the GNN when weights are installed, otherwise from "
        "the",
        "  teacher: an analytic GPU model. Both are predictions from simulated labels, never "
        "measurements.",
    };
    if (k < (int)(sizeof tail / sizeof tail[0])) {
        snprintf(buf, (size_t)size, "%s", tail[k]);
        if (tail[k][0] != ' ')
            *st = UI_STYLE_TITLE;
        return true;
    }
    return false;
}

static int n_lines(void)
{
    char buf[256];
    enum ui_style st;
    int n = 0;
    while (help_line(n, buf, sizeof buf, &st))
        n++;
    return n;
}

static void draw(struct app *a, struct ui_canvas *c, struct ui_rect r)
{
    draw_clear(c, r, UI_STYLE_NORMAL);
    struct ui_list *l = &a->st.list[UI_TAB_HELP];
    int n = n_lines();
    /* a text pane: the "selection" is the top line */
    if (l->top > n - r.h)
        l->top = n - r.h > 0 ? n - r.h : 0;
    for (int k = 0; k < r.h; k++) {
        char buf[256];
        enum ui_style st;
        if (!help_line(l->top + k, buf, sizeof buf, &st))
            break;
        draw_text_words(c, r.y + k, r.x, r.w, st, buf);
    }
}

static unsigned scroll(struct app *a, enum ui_action act, struct ui_rect r)
{
    struct ui_list *l = &a->st.list[UI_TAB_HELP];
    int n = n_lines(), max_top = n - r.h > 0 ? n - r.h : 0;
    int page = r.h > 1 ? r.h - 1 : 1;
    switch (act) {
    case UI_ACT_UP: l->top--; break;
    case UI_ACT_DOWN: l->top++; break;
    case UI_ACT_PAGE_UP: l->top -= page; break;
    case UI_ACT_PAGE_DOWN: l->top += page; break;
    case UI_ACT_HOME: l->top = 0; break;
    case UI_ACT_END: l->top = max_top; break;
    default: return 0;
    }
    if (l->top < 0)
        l->top = 0;
    if (l->top > max_top)
        l->top = max_top;
    return UI_HANDLED | UI_REDRAW;
}

const struct screen_ops screen_help_ops = {
    .name = "help", .draw = draw, .on_action = scroll,
};
