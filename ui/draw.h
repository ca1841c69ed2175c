/*
 * draw.h - the cell buffer every screen draws into (htop's RichString, made
 * a whole screen): a grid of code points, each tagged with an enum ui_style.
 * Curses-free, so screens and widgets can be unit-tested and the screen can
 * be dumped to text (:dump-screen). ui/term.c copies the canvas to the
 * terminal through ui/theme.c.
 *
 * All drawing clips to the canvas; coordinates outside it are ignored.
 * Text is UTF-8; every code point takes one column. When the canvas is not
 * in UTF-8 mode, box glyphs come out as ASCII and other non-ASCII text as '?'.
 */
#ifndef DIPPM_UI_DRAW_H
#define DIPPM_UI_DRAW_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ui/style.h"

struct ui_rect {
    int y, x, h, w;
};

struct ui_cell {
    uint32_t ch;
    uint8_t style;
};

#define UI_CUTS_MAX 16

/* A text draw_text cut inside a word or number: where, and the text
 * around the cut (the layout tests' record; draw_text_words and
 * draw_text_mid cut on purpose, with an ellipsis, and are not recorded). */
struct ui_cut {
    int y, x;
    char text[96];
};

struct ui_canvas {
    int rows, cols;
    bool utf8;
    struct ui_cell *cells; /* rows * cols, owned */
    int n_cuts;            /* since the caller last set it to 0 */
    struct ui_cut cuts[UI_CUTS_MAX];
};

/* Box-drawing and symbol glyphs with an ASCII fallback each. */
#define UI_GLYPH_LIST(X)                 \
    X(G_HLINE, 0x2500, '-')              \
    X(G_VLINE, 0x2502, '|')              \
    X(G_TL, 0x250C, '+')                 \
    X(G_TR, 0x2510, '+')                 \
    X(G_BL, 0x2514, '+')                 \
    X(G_BR, 0x2518, '+')                 \
    X(G_TEE_L, 0x251C, '+')              \
    X(G_TEE_R, 0x2524, '+')              \
    X(G_TEE_D, 0x252C, '+')              \
    X(G_TEE_U, 0x2534, '+')              \
    X(G_CROSS, 0x253C, '+')              \
    X(G_NODE, 0x25CF, 'o')               \
    X(G_BLOCK, 0x25C6, '#')              \
    X(G_FULL, 0x2588, '#')               \
    X(G_LIGHT, 0x2591, '.')              \
    X(G_UP, 0x25B2, '^')                 \
    X(G_DOWN, 0x25BC, 'v')               \
    X(G_RIGHT, 0x25B8, '>')              \
    X(G_ELLIPSIS, 0x2026, '~')           \
    X(G_DOT, 0x00B7, '.')                \
    X(G_DELTA, 0x0394, 'd')              \
    X(G_MARK, 0x2715, 'X')

enum ui_glyph {
#define X(id, uni, ascii) id,
    UI_GLYPH_LIST(X)
#undef X
    G__COUNT
};

/* Allocates rows x cols blank cells. Returns false on a silly size. */
bool draw_canvas_init(struct ui_canvas *c, int rows, int cols, bool utf8);
void draw_canvas_fini(struct ui_canvas *c);
/* Reallocates to the new size and clears. */
bool draw_canvas_resize(struct ui_canvas *c, int rows, int cols);
/* The cell at y,x or NULL when outside. */
struct ui_cell *draw_cell(struct ui_canvas *c, int y, int x);

uint32_t draw_glyph(const struct ui_canvas *c, enum ui_glyph g);
void draw_put(struct ui_canvas *c, int y, int x, uint32_t ch, enum ui_style st);
void draw_put_glyph(struct ui_canvas *c, int y, int x, enum ui_glyph g, enum ui_style st);
/* Fills a rectangle with spaces in style st. */
void draw_clear(struct ui_canvas *c, struct ui_rect r, enum ui_style st);
/* Sets the style of w cells from y,x on, keeping their characters. */
void draw_restyle(struct ui_canvas *c, int y, int x, int w, enum ui_style st);
/* Writes UTF-8 text at y,x, at most maxw columns (maxw < 0: to the right
 * edge). Returns the number of columns written. */
int draw_text(struct ui_canvas *c, int y, int x, int maxw, enum ui_style st, const char *s);
int draw_textf(struct ui_canvas *c, int y, int x, int maxw, enum ui_style st, const char *fmt,
               ...) __attribute__((format(printf, 6, 7)));
/* draw_text that cuts a too-long text in the middle (head, ellipsis, tail)
 * instead of at the end. Returns the columns written. */
int draw_text_mid(struct ui_canvas *c, int y, int x, int maxw, enum ui_style st, const char *s);
/* draw_text that ends a too-long text after its last whole word that fits,
 * with an ellipsis, instead of in the middle of a word. Returns the
 * columns written. */
int draw_text_words(struct ui_canvas *c, int y, int x, int maxw, enum ui_style st, const char *s);
/* draw_text_words of a formatted text. */
int draw_textf_words(struct ui_canvas *c, int y, int x, int maxw, enum ui_style st, const char *fmt,
                     ...) __attribute__((format(printf, 6, 7)));
/* s shortened to maxw columns by cutting its middle ("~" marks the cut),
 * into buf; returns buf. */
char *draw_mid_cut(const char *s, int maxw, char *buf, int size);
/* Word-wraps UTF-8 text into w columns from y,x on, at most max_lines
 * lines; returns the number of lines used. */
int draw_text_wrap(struct ui_canvas *c, int y, int x, int w, int max_lines, enum ui_style st,
                   const char *s);
/* Text right-aligned so it ends at column x + w - 1. */
int draw_text_right(struct ui_canvas *c, int y, int x, int w, enum ui_style st, const char *s);
void draw_hline(struct ui_canvas *c, int y, int x, int w, enum ui_style st);
void draw_vline(struct ui_canvas *c, int y, int x, int h, enum ui_style st);
/* A frame around r with an optional title on the top edge. */
void draw_box(struct ui_canvas *c, struct ui_rect r, enum ui_style st, const char *title);

/* Number of code points (= columns) in a UTF-8 string. */
int draw_strwidth(const char *s);
/* Decodes one UTF-8 sequence at *s, advancing it; invalid bytes give U+FFFD. */
uint32_t draw_utf8_next(const char **s);
/* Encodes ch as UTF-8 into out (at least 5 bytes); returns the length. */
int draw_utf8_put(uint32_t ch, char *out);

/* The canvas as plain UTF-8 text, one line per row, trailing spaces cut.
 * Returns a malloc'd string. */
char *draw_canvas_text(const struct ui_canvas *c);
/* Row y as text into buf (trailing spaces cut). */
const char *draw_row_text(const struct ui_canvas *c, int y, char *buf, int size);

#endif
