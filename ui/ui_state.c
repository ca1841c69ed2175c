/* ui_state.c - pure view-state transitions. */
#include "ui/ui_state.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "ui/draw.h"
#include "ui/keymap.h"

const char *ui_tab_title(enum ui_tab t)
{
    static const char *const titles[] = {
#define X(id, title, short_title) title,
        UI_TAB_LIST(X)
#undef X
    };
    _Static_assert(sizeof titles / sizeof titles[0] == UI_TAB__COUNT, "tab titles");
    return (unsigned)t < UI_TAB__COUNT ? titles[t] : "?";
}

static const struct {
    const char *title;
    int width;
    bool numeric;
} cols[] = {
#define X(id, title, width, numeric) {title, width, numeric},
    UI_COL_LIST(X)
#undef X
};
_Static_assert(sizeof cols / sizeof cols[0] == UI_COL__COUNT, "column table");

const char *ui_col_title(enum ui_col c)
{
    return (unsigned)c < UI_COL__COUNT ? cols[c].title : "?";
}

int ui_col_min_width(enum ui_col c)
{
    return (unsigned)c < UI_COL__COUNT ? cols[c].width : 0;
}

bool ui_col_numeric(enum ui_col c)
{
    return (unsigned)c < UI_COL__COUNT && cols[c].numeric;
}

void ui_list_clamp(struct ui_list *l, int n, int visible)
{
    if (visible < 1)
        visible = 1;
    if (n <= 0) {
        l->sel = l->top = 0;
        return;
    }
    if (l->sel >= n)
        l->sel = n - 1;
    if (l->sel < 0)
        l->sel = 0;
    if (l->top > l->sel)
        l->top = l->sel;
    if (l->sel >= l->top + visible)
        l->top = l->sel - visible + 1;
    if (l->top > n - visible)
        l->top = n - visible;
    if (l->top < 0)
        l->top = 0;
}

void ui_list_move(struct ui_list *l, int delta, int n, int visible)
{
    l->sel += delta;
    ui_list_clamp(l, n, visible);
}

void ui_list_select(struct ui_list *l, int row, int n, int visible)
{
    l->sel = row;
    ui_list_clamp(l, n, visible);
}

void ui_state_init(struct ui_state *s)
{
    memset(s, 0, sizeof *s);
    s->tab = UI_TAB_LAYERS;
    s->sort_col = UI_COL_INDEX;
    s->sort_desc = false;
    s->detail_node = -1;
    s->follow_origin = -1;
    s->metric = UI_METRIC_LATENCY;
}

static bool is_overlay(enum ui_tab t)
{
    return t == UI_TAB_DETAIL || t == UI_TAB_HELP || t == UI_TAB_ABOUT || t == UI_TAB_LOG;
}

void ui_state_tab_set(struct ui_state *s, enum ui_tab t)
{
    if ((unsigned)t >= UI_TAB__COUNT || t == s->tab)
        return;
    if (is_overlay(t) && !is_overlay(s->tab)) {
        if (s->n_focus == UI_FOCUS_MAX) {
            memmove(s->focus, s->focus + 1, sizeof s->focus[0] * (UI_FOCUS_MAX - 1));
            s->n_focus--;
        }
        s->focus[s->n_focus++] = s->tab;
    } else if (!is_overlay(t)) {
        s->n_focus = 0; /* a main tab chosen directly: nothing to go back to */
    }
    s->tab = t;
}

bool ui_state_back(struct ui_state *s)
{
    if (s->n_focus > 0) {
        s->tab = s->focus[--s->n_focus];
        return true;
    }
    if (is_overlay(s->tab)) {
        s->tab = UI_TAB_LAYERS;
        return true;
    }
    return false;
}

void ui_state_tab_cycle(struct ui_state *s, int dir)
{
    int t = ((int)s->tab + (dir < 0 ? -1 : 1) + UI_TAB__COUNT) % UI_TAB__COUNT;
    if (t == UI_TAB_LOG) /* an overlay reached with L or :messages, not by cycling */
        t = (t + (dir < 0 ? -1 : 1) + UI_TAB__COUNT) % UI_TAB__COUNT;
    s->n_focus = 0;
    s->tab = (enum ui_tab)t;
}

void ui_state_sort_cycle(struct ui_state *s, int dir)
{
    int c = ((int)s->sort_col + (dir < 0 ? -1 : 1) + UI_COL__COUNT) % UI_COL__COUNT;
    s->sort_col = (enum ui_col)c;
    s->sort_explicit = true;
    s->sort_desc = ui_col_numeric(s->sort_col) && s->sort_col != UI_COL_INDEX;
}

bool ui_state_sorted(const struct ui_state *s)
{
    return s->sort_col != UI_COL_INDEX || s->sort_desc || s->sort_explicit;
}

void ui_state_sort_by(struct ui_state *s, enum ui_col c)
{
    if ((unsigned)c >= UI_COL__COUNT)
        return;
    bool sorted = ui_state_sorted(s);
    s->sort_explicit = true;
    if (s->sort_col == c && sorted) {
        s->sort_desc = !s->sort_desc;
        return;
    }
    s->sort_col = c;
    s->sort_desc = ui_col_numeric(c) && c != UI_COL_INDEX;
}

void ui_state_message(struct ui_state *s, bool error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->status, sizeof s->status, fmt, ap);
    va_end(ap);
    /* one line: newlines from multi-line diagnostics become spaces */
    for (char *p = s->status; *p; p++)
        if (*p == '\n' || *p == '\t')
            *p = ' ';
    s->status_error = error;
    if (!s->status[0])
        return;
    const char *last = s->log_n ? s->log[(s->log_head + s->log_n - 1) % UI_LOG_MAX] : NULL;
    if (last && !strcmp(last, s->status))
        return;
    int slot;
    if (s->log_n < UI_LOG_MAX) {
        slot = (s->log_head + s->log_n++) % UI_LOG_MAX;
    } else {
        slot = s->log_head;
        s->log_head = (s->log_head + 1) % UI_LOG_MAX;
    }
    memcpy(s->log[slot], s->status, sizeof s->log[slot]);
    s->log_error[slot] = error;
}

const char *ui_state_log_get(const struct ui_state *s, int k, bool *error)
{
    if (k < 0 || k >= s->log_n)
        return NULL;
    int slot = (s->log_head + k) % UI_LOG_MAX;
    if (error)
        *error = s->log_error[slot];
    return s->log[slot];
}

bool ui_str_icontains(const char *hay, const char *needle)
{
    if (!needle || !*needle)
        return true;
    if (!hay)
        return false;
    size_t n = strlen(needle);
    for (const char *h = hay; *h; h++)
        if (strncasecmp(h, needle, n) == 0)
            return true;
    return false;
}

bool ui_filter_match(const char *filter, const char *name, const char *op)
{
    if (!filter || !*filter)
        return true;
    char term[UI_TEXT_MAX];
    const char *p = filter;
    bool any_term = false;
    while (*p) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        /* trim spaces around a term */
        while (len && isspace((unsigned char)*p)) {
            p++;
            len--;
        }
        while (len && isspace((unsigned char)p[len - 1]))
            len--;
        if (len >= sizeof term)
            len = sizeof term - 1;
        memcpy(term, p, len);
        term[len] = 0;
        if (len) {
            any_term = true;
            if (!strncasecmp(term, "op=", 3)
                    ? op && !strcasecmp(op, term + 3)
                    : ui_str_icontains(name, term) || ui_str_icontains(op, term))
                return true;
        }
        if (!bar)
            break;
        p = bar + 1;
    }
    return !any_term;
}

bool ui_line_edit(char *buf, int size, int key)
{
    size_t len = strlen(buf);
    if (key == UI_KEY_BACKSPACE || key == 127 || key == 8) {
        if (!len)
            return false;
        /* drop one whole UTF-8 sequence */
        while (len > 0 && ((unsigned char)buf[len - 1] & 0xC0) == 0x80)
            len--;
        if (len > 0)
            len--;
        buf[len] = 0;
        return true;
    }
    if (key == UI_KEY_CTRL('u')) {
        if (!len)
            return false;
        buf[0] = 0;
        return true;
    }
    if (key < 32 || key == 127 || key >= UI_KEY_BASE)
        return false;
    char u[5];
    int n = draw_utf8_put((uint32_t)key, u);
    if (len + (size_t)n + 1 > (size_t)size)
        return false;
    memcpy(buf + len, u, (size_t)n);
    buf[len + (size_t)n] = 0;
    return true;
}
