/* draw.c - the curses-free cell buffer: text, glyphs, lines and boxes. */
#include "ui/draw.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static const uint32_t glyph_uni[] = {
#define X(id, uni, ascii) uni,
    UI_GLYPH_LIST(X)
#undef X
};
static const char glyph_ascii[] = {
#define X(id, uni, ascii) ascii,
    UI_GLYPH_LIST(X)
#undef X
};
_Static_assert(sizeof glyph_uni / sizeof glyph_uni[0] == G__COUNT, "glyph table");

const char *ui_style_name(enum ui_style s)
{
    static const char *const names[] = {
#define X(id, name, mono) name,
        UI_STYLE_LIST(X)
#undef X
    };
    _Static_assert(sizeof names / sizeof names[0] == UI_STYLE__COUNT, "style names");
    return (unsigned)s < UI_STYLE__COUNT ? names[s] : "?";
}

/* Terminals beyond this are refused (a 4k screen at a tiny font is ~1000x400). */
#define CANVAS_MAX_DIM 4096

bool draw_canvas_init(struct ui_canvas *c, int rows, int cols, bool utf8)
{
    memset(c, 0, sizeof *c);
    c->utf8 = utf8;
    return draw_canvas_resize(c, rows, cols);
}

void draw_canvas_fini(struct ui_canvas *c)
{
    if (!c)
        return;
    free(c->cells);
    c->cells = NULL;
    c->rows = c->cols = 0;
}

bool draw_canvas_resize(struct ui_canvas *c, int rows, int cols)
{
    if (rows < 1 || cols < 1 || rows > CANVAS_MAX_DIM || cols > CANVAS_MAX_DIM)
        return false;
    if (rows != c->rows || cols != c->cols) {
        free(c->cells);
        c->cells = xcalloc((size_t)rows * (size_t)cols, sizeof *c->cells);
        c->rows = rows;
        c->cols = cols;
    }
    draw_clear(c, (struct ui_rect){0, 0, rows, cols}, UI_STYLE_NORMAL);
    return true;
}

struct ui_cell *draw_cell(struct ui_canvas *c, int y, int x)
{
    if (!c->cells || y < 0 || x < 0 || y >= c->rows || x >= c->cols)
        return NULL;
    return &c->cells[(size_t)y * c->cols + x];
}

uint32_t draw_glyph(const struct ui_canvas *c, enum ui_glyph g)
{
    if ((unsigned)g >= G__COUNT)
        return '?';
    return c->utf8 ? glyph_uni[g] : (uint32_t)glyph_ascii[g];
}

void draw_put(struct ui_canvas *c, int y, int x, uint32_t ch, enum ui_style st)
{
    struct ui_cell *cell = draw_cell(c, y, x);
    if (!cell)
        return;
    if (ch < 32 || ch == 127)
        ch = ' ';
    else if (!c->utf8 && ch == 0xB5) /* "µs" of a formatted duration */
        ch = 'u';
    else if (!c->utf8 && ch > 126)
        ch = '?';
    cell->ch = ch;
    cell->style = (uint8_t)st;
}

void draw_put_glyph(struct ui_canvas *c, int y, int x, enum ui_glyph g, enum ui_style st)
{
    draw_put(c, y, x, draw_glyph(c, g), st);
}

void draw_clear(struct ui_canvas *c, struct ui_rect r, enum ui_style st)
{
    for (int y = r.y; y < r.y + r.h; y++)
        for (int x = r.x; x < r.x + r.w; x++) {
            struct ui_cell *cell = draw_cell(c, y, x);
            if (cell) {
                cell->ch = ' ';
                cell->style = (uint8_t)st;
            }
        }
    /* a cut text that is cleared away is no longer on the screen */
    int k = 0;
    for (int i = 0; i < c->n_cuts; i++) {
        const struct ui_cut *u = &c->cuts[i];
        if (!(u->y >= r.y && u->y < r.y + r.h && u->x >= r.x && u->x < r.x + r.w))
            c->cuts[k++] = *u;
    }
    c->n_cuts = k;
}

void draw_restyle(struct ui_canvas *c, int y, int x, int w, enum ui_style st)
{
    for (int i = 0; i < w; i++) {
        struct ui_cell *cell = draw_cell(c, y, x + i);
        if (cell)
            cell->style = (uint8_t)st;
    }
}

uint32_t draw_utf8_next(const char **sp)
{
    const unsigned char *s = (const unsigned char *)*sp;
    uint32_t ch;
    int n;
    if (s[0] < 0x80) {
        ch = s[0];
        n = 1;
    } else if ((s[0] & 0xE0) == 0xC0) {
        ch = s[0] & 0x1F;
        n = 2;
    } else if ((s[0] & 0xF0) == 0xE0) {
        ch = s[0] & 0x0F;
        n = 3;
    } else if ((s[0] & 0xF8) == 0xF0) {
        ch = s[0] & 0x07;
        n = 4;
    } else {
        *sp += 1;
        return 0xFFFD;
    }
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            *sp += i;
            return 0xFFFD;
        }
        ch = (ch << 6) | (s[i] & 0x3F);
    }
    *sp += n;
    return ch;
}

int draw_utf8_put(uint32_t ch, char *out)
{
    if (ch < 0x80) {
        out[0] = (char)ch;
        return 1;
    }
    if (ch < 0x800) {
        out[0] = (char)(0xC0 | (ch >> 6));
        out[1] = (char)(0x80 | (ch & 0x3F));
        return 2;
    }
    if (ch < 0x10000) {
        out[0] = (char)(0xE0 | (ch >> 12));
        out[1] = (char)(0x80 | ((ch >> 6) & 0x3F));
        out[2] = (char)(0x80 | (ch & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (ch >> 18));
    out[1] = (char)(0x80 | ((ch >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((ch >> 6) & 0x3F));
    out[3] = (char)(0x80 | (ch & 0x3F));
    return 4;
}

int draw_strwidth(const char *s)
{
    int n = 0;
    while (*s) {
        draw_utf8_next(&s);
        n++;
    }
    return n;
}

/* Notes a cut between the character last written (prev) and the rest of
 * s when both sides are part of one word or number. */
static void note_cut(struct ui_canvas *c, int y, int x, const char *start, const char *rest,
                     uint32_t prev)
{
    const char *p = rest;
    uint32_t next = draw_utf8_next(&p);
    if (prev == ' ' || next == ' ' || c->n_cuts >= UI_CUTS_MAX)
        return;
    struct ui_cut *k = &c->cuts[c->n_cuts++];
    k->y = y;
    k->x = x;
    size_t head = (size_t)(rest - start) > 40 ? 40 : (size_t)(rest - start);
    snprintf(k->text, sizeof k->text, "%.*s|%.30s", (int)head, rest - head, rest);
}

static int text_put(struct ui_canvas *c, int y, int x, int maxw, enum ui_style st, const char *s,
                    bool record)
{
    if (!s)
        return 0;
    if (maxw < 0 || x + maxw > c->cols) /* the canvas's edge cuts too */
        maxw = c->cols - x;
    const char *start = s;
    int n = 0;
    uint32_t ch = ' ';
    while (*s && n < maxw) {
        ch = draw_utf8_next(&s);
        draw_put(c, y, x + n, ch, st);
        n++;
    }
    if (*s && record && y >= 0 && y < c->rows)
        note_cut(c, y, x, start, s, ch);
    return n;
}

int draw_text(struct ui_canvas *c, int y, int x, int maxw, enum ui_style st, const char *s)
{
    return text_put(c, y, x, maxw, st, s, true);
}

int draw_text_words(struct ui_canvas *c, int y, int x, int maxw, enum ui_style st, const char *s)
{
    int w = draw_strwidth(s);
    if (w <= maxw || maxw < 2)
        return text_put(c, y, x, maxw, st, s, false);
    /* the columns up to the last space before maxw - 1 (room for the "…") */
    int keep = 0, n = 0;
    for (const char *p = s; *p && n < maxw - 1;) {
        uint32_t ch = draw_utf8_next(&p);
        if (ch == ' ' && n > 0)
            keep = n;
        n++;
    }
    while (keep > 0 && (s[keep - 1] == ',' || s[keep - 1] == ';' || s[keep - 1] == ' ') &&
           draw_strwidth(s) == (int)strlen(s))
        keep--; /* no dangling separator before the ellipsis (ASCII text) */
    if (keep == 0)
        keep = maxw - 1; /* one long word: cut it */
    text_put(c, y, x, keep, st, s, false);
    draw_put_glyph(c, y, x + keep, G_ELLIPSIS, UI_STYLE_DIM);
    return keep + 1;
}

int draw_textf_words(struct ui_canvas *c, int y, int x, int maxw, enum ui_style st, const char *fmt,
                     ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return draw_text_words(c, y, x, maxw, st, buf);
}

int draw_text_mid(struct ui_canvas *c, int y, int x, int maxw, enum ui_style st, const char *s)
{
    int w = draw_strwidth(s);
    if (w <= maxw || maxw < 3)
        return text_put(c, y, x, maxw, st, s, false);
    /* keep the head and the tail, which tell layers apart */
    int head = (maxw - 1) / 2, tail = maxw - 1 - head;
    text_put(c, y, x, head, st, s, false);
    draw_put_glyph(c, y, x + head, G_ELLIPSIS, UI_STYLE_DIM);
    const char *p = s;
    for (int i = 0; i < w - tail; i++)
        draw_utf8_next(&p);
    text_put(c, y, x + head + 1, tail, st, p, false);
    return maxw;
}

char *draw_mid_cut(const char *s, int maxw, char *buf, int size)
{
    int w = draw_strwidth(s);
    if (w <= maxw || maxw < 3) {
        snprintf(buf, (size_t)size, "%s", s);
        return buf;
    }
    int head = (maxw - 1) / 2, tail = maxw - 1 - head;
    const char *p = s;
    for (int i = 0; i < head; i++)
        draw_utf8_next(&p);
    const char *q = s;
    for (int i = 0; i < w - tail; i++)
        draw_utf8_next(&q);
    snprintf(buf, (size_t)size, "%.*s~%s", (int)(p - s), s, q);
    return buf;
}

int draw_textf(struct ui_canvas *c, int y, int x, int maxw, enum ui_style st, const char *fmt,
               ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return draw_text(c, y, x, maxw, st, buf);
}

int draw_text_wrap(struct ui_canvas *c, int y, int x, int w, int max_lines, enum ui_style st,
                   const char *s)
{
    int lines = 0;
    if (w < 1)
        return 0;
    while (*s && lines < max_lines) {
        while (*s == ' ')
            s++;
        /* find the last break that fits in w columns */
        const char *p = s, *brk = NULL;
        int n = 0;
        while (*p && n < w) {
            if (*p == ' ')
                brk = p;
            draw_utf8_next(&p);
            n++;
        }
        if (*p && *p != ' ' && brk && brk > s)
            p = brk;
        int cols = 0;
        for (const char *q = s; q < p; cols++)
            draw_utf8_next(&q);
        draw_text(c, y + lines, x, cols, st, s);
        s = p;
        lines++;
    }
    return lines;
}

int draw_text_right(struct ui_canvas *c, int y, int x, int w, enum ui_style st, const char *s)
{
    int n = draw_strwidth(s);
    if (n > w) {
        /* keep the tail: for numbers the last digits matter less than the unit */
        return draw_text(c, y, x, w, st, s);
    }
    return draw_text(c, y, x + w - n, n, st, s);
}

void draw_hline(struct ui_canvas *c, int y, int x, int w, enum ui_style st)
{
    for (int i = 0; i < w; i++)
        draw_put_glyph(c, y, x + i, G_HLINE, st);
}

void draw_vline(struct ui_canvas *c, int y, int x, int h, enum ui_style st)
{
    for (int i = 0; i < h; i++)
        draw_put_glyph(c, y + i, x, G_VLINE, st);
}

void draw_box(struct ui_canvas *c, struct ui_rect r, enum ui_style st, const char *title)
{
    if (r.w < 2 || r.h < 2)
        return;
    draw_hline(c, r.y, r.x + 1, r.w - 2, st);
    draw_hline(c, r.y + r.h - 1, r.x + 1, r.w - 2, st);
    draw_vline(c, r.y + 1, r.x, r.h - 2, st);
    draw_vline(c, r.y + 1, r.x + r.w - 1, r.h - 2, st);
    draw_put_glyph(c, r.y, r.x, G_TL, st);
    draw_put_glyph(c, r.y, r.x + r.w - 1, G_TR, st);
    draw_put_glyph(c, r.y + r.h - 1, r.x, G_BL, st);
    draw_put_glyph(c, r.y + r.h - 1, r.x + r.w - 1, G_BR, st);
    if (title && *title && r.w > 6) {
        draw_put(c, r.y, r.x + 1, ' ', st);
        int n = draw_text(c, r.y, r.x + 2, r.w - 5, UI_STYLE_TITLE, title);
        draw_put(c, r.y, r.x + 2 + n, ' ', st);
    }
}

const char *draw_row_text(const struct ui_canvas *c, int y, char *buf, int size)
{
    int len = 0, keep = 0;
    buf[0] = 0;
    if (y < 0 || y >= c->rows)
        return buf;
    for (int x = 0; x < c->cols; x++) {
        uint32_t ch = c->cells[(size_t)y * c->cols + x].ch;
        char u[5];
        int n = draw_utf8_put(ch ? ch : ' ', u);
        if (len + n >= size)
            break;
        memcpy(buf + len, u, (size_t)n);
        len += n;
        if (ch != ' ' && ch)
            keep = len;
    }
    buf[keep] = 0;
    return buf;
}

char *draw_canvas_text(const struct ui_canvas *c)
{
    size_t line = (size_t)c->cols * 4 + 2;
    char *out = xmalloc(line * (size_t)c->rows + 1), *p = out;
    char *buf = xmalloc(line);
    for (int y = 0; y < c->rows; y++) {
        draw_row_text(c, y, buf, (int)line);
        size_t n = strlen(buf);
        memcpy(p, buf, n);
        p += n;
        *p++ = '\n';
    }
    *p = 0;
    free(buf);
    return out;
}
