/* md_text.c - markdown as plain, aligned, wrapped text (see md_text.h). */
#include "ui/md_text.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ui/draw.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define MAX_COLS 16

/* s without ** and ` marks, and without a single * that opens (before a
 * non-space, after a space or the start) or closes (after a non-space)
 * emphasis; a lone " * " (a product) stays. malloc'd. */
static char *strip_inline(const char *s, size_t n)
{
    char *out = xmalloc(n + 1);
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (ch == '`')
            continue;
        if (ch == '*') {
            if (i + 1 < n && s[i + 1] == '*') {
                i++;
                continue;
            }
            bool opens =
                i + 1 < n && s[i + 1] != ' ' && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '(');
            bool closes = i > 0 && s[i - 1] != ' ' && (i + 1 == n || strchr(" .,;:)", s[i + 1]));
            if (opens || closes)
                continue;
        }
        out[w++] = ch;
    }
    out[w] = 0;
    return out;
}

/* Appends text greedily wrapped to width, the first line after `lead`
 * (e.g. "- "), the others indented as wide as lead. */
static void wrap(struct strbuf *b, const char *text, const char *lead, int width)
{
    int indent = draw_strwidth(lead), col = 0;
    strbuf_printf(b, "%s", lead);
    col = indent;
    bool first = true;
    for (const char *p = text; *p;) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        size_t len = strcspn(p, " ");
        char *word = strip_inline(p, len);
        int ww = draw_strwidth(word);
        if (!first && col + 1 + ww > width) {
            strbuf_printf(b, "\n%*s", indent, "");
            col = indent;
            first = true;
        }
        strbuf_printf(b, "%s%s", first ? "" : " ", word);
        col += ww + (first ? 0 : 1);
        first = false;
        free(word);
        p += len;
    }
    strbuf_add(b, "\n", 1);
}

/* The cells of one "| a | b |" line, stripped of marks, into cell[]. */
static int split_row(const char *line, size_t n, char *cell[MAX_COLS])
{
    int nc = 0;
    size_t i = 0;
    while (i < n && line[i] == ' ')
        i++;
    if (i < n && line[i] == '|')
        i++;
    while (i < n && nc < MAX_COLS) {
        size_t end = i;
        while (end < n && line[end] != '|')
            end++;
        size_t a = i, z = end;
        while (a < z && line[a] == ' ')
            a++;
        while (z > a && line[z - 1] == ' ')
            z--;
        if (end == n && a == z)
            break; /* after the closing pipe */
        cell[nc++] = strip_inline(line + a, z - a);
        i = end + 1;
    }
    return nc;
}

static bool is_rule_row(char *cell[], int nc)
{
    for (int c = 0; c < nc; c++)
        if (!cell[c][0] || strspn(cell[c], "-: ") != strlen(cell[c]))
            return false;
    return nc > 0;
}

/* The table of lines[0..n): columns as wide as their widest cell, two
 * spaces apart, a rule of dashes under the header row. */
static void table(struct strbuf *b, char **lines, int n)
{
    char *(*cells)[MAX_COLS] = xcalloc((size_t)n, sizeof *cells);
    int *nc = xcalloc((size_t)n, sizeof *nc);
    int width[MAX_COLS] = {0}, ncols = 0;
    for (int r = 0; r < n; r++) {
        nc[r] = split_row(lines[r], strlen(lines[r]), cells[r]);
        if (is_rule_row(cells[r], nc[r]))
            continue;
        for (int c = 0; c < nc[r]; c++) {
            int w = draw_strwidth(cells[r][c]);
            if (w > width[c])
                width[c] = w;
        }
        if (nc[r] > ncols)
            ncols = nc[r];
    }
    int total = 0;
    for (int c = 0; c < ncols; c++)
        total += width[c] + (c ? 2 : 0);
    for (int r = 0; r < n; r++) {
        if (is_rule_row(cells[r], nc[r])) {
            for (int k = 0; k < total; k++)
                strbuf_add(b, "-", 1);
            strbuf_add(b, "\n", 1);
            continue;
        }
        for (int c = 0; c < nc[r]; c++) {
            int pad = c + 1 < nc[r] ? width[c] - draw_strwidth(cells[r][c]) : 0;
            strbuf_printf(b, "%s%s%*s", c ? "  " : "", cells[r][c], pad, "");
        }
        strbuf_add(b, "\n", 1);
    }
    for (int r = 0; r < n; r++)
        for (int c = 0; c < nc[r]; c++)
            free(cells[r][c]);
    free(cells);
    free(nc);
}

static bool blank(const char *l)
{
    return l[strspn(l, " \t")] == 0;
}

static bool is_item(const char *l)
{
    return (l[0] == '-' || l[0] == '*') && l[1] == ' ';
}

/* An HTML comment (a generated table's marker): Markdown shows nothing. */
static bool is_comment(const char *l)
{
    return !strncmp(l + strspn(l, " "), "<!--", 4);
}

/* One block starting at lines[i] (not blank); returns the next line. */
static int block(struct strbuf *b, char **lines, int n, int i, int width, bool *fenced)
{
    const char *l = lines[i];
    if (!strncmp(l, "```", 3)) {
        *fenced = !*fenced;
        return i + 1;
    }
    if (*fenced || !strncmp(l, "    ", 4)) {
        strbuf_printf(b, "%s\n", l);
        return i + 1;
    }
    if (is_comment(l)) {
        int j = i;
        while (j < n && !strstr(lines[j], "-->"))
            j++;
        return j < n ? j + 1 : n;
    }
    if (l[strspn(l, " ")] == '|') {
        int j = i;
        while (j < n && lines[j][strspn(lines[j], " ")] == '|')
            j++;
        table(b, lines + i, j - i);
        return j;
    }
    if (l[0] == '#') {
        wrap(b, l + strspn(l, "# "), "", width);
        return i + 1;
    }
    /* a paragraph or list item: up to a blank line, a table, a heading or
     * the next item */
    struct strbuf para = STRBUF_INIT;
    bool item = is_item(l);
    int j = i;
    for (; j < n; j++) {
        const char *m = lines[j];
        if (j > i && (blank(m) || is_item(m) || m[0] == '#' || m[strspn(m, " ")] == '|' ||
                      !strncmp(m, "```", 3) || is_comment(m)))
            break;
        strbuf_printf(&para, "%s ", item && j == i ? m + 2 : m);
    }
    wrap(b, para.s, item ? "- " : "", width);
    strbuf_fini(&para);
    return j;
}

char *md_plain(const char *md, int width)
{
    if (width < 20)
        width = 20;
    char *copy = xstrdup(md ? md : "");
    int n = 0, cap = 16;
    char **lines = xmalloc((size_t)cap * sizeof *lines);
    for (char *p = copy; p;) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = 0;
        if (n == cap)
            lines = xrealloc(lines, (size_t)(cap *= 2) * sizeof *lines);
        lines[n++] = p;
        p = nl ? nl + 1 : NULL;
    }
    struct strbuf b = STRBUF_INIT;
    bool fenced = false, gap = false;
    for (int i = 0; i < n;) {
        if (blank(lines[i]) && !fenced) {
            gap = b.len > 0;
            i++;
            continue;
        }
        if (gap)
            strbuf_add(&b, "\n", 1);
        gap = false;
        i = block(&b, lines, n, i, width, &fenced);
    }
    free(lines);
    free(copy);
    return strbuf_take(&b, NULL);
}
