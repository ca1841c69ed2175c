/* screen_log.c - the message log: every status-line message in full,
 * wrapped, newest at the bottom (L or :messages; Esc or q returns). */
#include "ui/screen.h"

#include <string.h>

/* The columns of the next piece of a message at most pw wide: up to its
 * last space (so no word is split), or pw for a word longer than that. */
static int piece(const char *p, int pw)
{
    int n = 0, keep = 0;
    const char *q = p;
    while (*q && n < pw) {
        uint32_t ch = draw_utf8_next(&q);
        n++;
        if (ch == ' ')
            keep = n;
    }
    return !*q || *q == ' ' || keep == 0 ? n : keep;
}

/* Lines a message takes when cut into pieces of w - 2 columns. */
static int msg_lines(const char *m, int w)
{
    int pw = w > 3 ? w - 2 : 1, lines = 0;
    for (const char *p = m; *p; lines++)
        for (int i = 0, n = piece(p, pw); i < n && *p; i++)
            draw_utf8_next(&p);
    return lines > 0 ? lines : 1;
}

/* Draws m in pieces of w - 2 columns from row y on (exactly msg_lines). */
static void draw_msg(struct ui_canvas *c, int y, int x, int w, enum ui_style st, const char *m)
{
    int pw = w > 3 ? w - 2 : 1;
    for (const char *p = m; *p; y++) {
        int n = draw_text(c, y, x, piece(p, pw), st, p);
        for (int i = 0; i < n && *p; i++)
            draw_utf8_next(&p);
        if (n == 0)
            break;
    }
}

static void draw(struct app *a, struct ui_canvas *c, struct ui_rect r)
{
    draw_clear(c, r, UI_STYLE_NORMAL);
    const struct ui_state *s = &a->st;
    draw_text(c, r.y, r.x, r.w, UI_STYLE_HEADING,
              "Messages, oldest first (Up/Down scroll, Esc returns)");
    if (s->log_n == 0) {
        draw_text(c, r.y + 1, r.x, r.w, UI_STYLE_DIM, "no messages yet");
        return;
    }
    /* list.top counts messages scrolled back from the newest */
    struct ui_list *l = &a->st.list[UI_TAB_LOG];
    if (l->top > s->log_n - 1)
        l->top = s->log_n - 1;
    if (l->top < 0)
        l->top = 0;
    int last = s->log_n - 1 - l->top, y = r.y + r.h, first = last;
    /* fill upwards from the bottom */
    for (int k = last; k >= 0; k--) {
        int h = msg_lines(ui_state_log_get(s, k, NULL), r.w);
        if (y - h < r.y + 1)
            break;
        y -= h;
        first = k;
    }
    for (int k = first; k <= last; k++) {
        bool err;
        const char *m = ui_state_log_get(s, k, &err);
        int h = msg_lines(m, r.w);
        draw_text(c, y, r.x, 2, UI_STYLE_DIM, err ? "! " : "  ");
        draw_msg(c, y, r.x + 2, r.w, err ? UI_STYLE_ERROR : UI_STYLE_NORMAL, m);
        y += h;
    }
}

static unsigned on_action(struct app *a, enum ui_action act, struct ui_rect r)
{
    struct ui_list *l = &a->st.list[UI_TAB_LOG];
    int page = r.h > 2 ? r.h / 2 : 1;
    switch (act) {
    case UI_ACT_UP: l->top++; break;
    case UI_ACT_DOWN: l->top--; break;
    case UI_ACT_PAGE_UP:
    case UI_ACT_HALF_UP: l->top += page; break;
    case UI_ACT_PAGE_DOWN:
    case UI_ACT_HALF_DOWN: l->top -= page; break;
    case UI_ACT_HOME: l->top = a->st.log_n; break;
    case UI_ACT_END: l->top = 0; break;
    default: return 0;
    }
    if (l->top < 0)
        l->top = 0;
    if (l->top > a->st.log_n - 1)
        l->top = a->st.log_n > 0 ? a->st.log_n - 1 : 0;
    return UI_HANDLED | UI_REDRAW;
}

const struct screen_ops screen_log_ops = {
    .name = "log", .draw = draw, .on_action = on_action,
};
