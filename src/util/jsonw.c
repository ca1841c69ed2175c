/* jsonw.c - streaming JSON writer. */
#include "util/jsonw.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put(struct jsonw *w, const char *s, size_t n)
{
    if (w->len + n + 1 > w->cap) {
        while (w->len + n + 1 > w->cap)
            w->cap = w->cap ? w->cap * 2 : 1024;
        w->buf = xrealloc(w->buf, w->cap);
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    w->buf[w->len] = '\0';
}

static void puts_(struct jsonw *w, const char *s)
{
    put(w, s, strlen(s));
}

void jsonw_init(struct jsonw *w, bool pretty)
{
    memset(w, 0, sizeof *w);
    w->pretty = pretty;
    w->first[0] = true;
    put(w, "", 0);
}

void jsonw_fini(struct jsonw *w)
{
    free(w->buf);
    memset(w, 0, sizeof *w);
}

char *jsonw_take(struct jsonw *w, size_t *len)
{
    char *b = w->buf;
    if (len)
        *len = w->len;
    w->buf = NULL;
    w->len = w->cap = 0;
    return b;
}

static void newline(struct jsonw *w)
{
    if (!w->pretty || (w->depth > 0 && w->inline_level[w->depth]))
        return;
    puts_(w, "\n");
    for (int i = 0; i < w->depth; i++)
        puts_(w, "  ");
}

/* Called before every value or key. */
static void sep(struct jsonw *w)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (w->depth == 0)
        return;
    if (!w->first[w->depth])
        puts_(w, w->pretty && w->inline_level[w->depth] ? ", " : ",");
    w->first[w->depth] = false;
    newline(w);
}

static void open_(struct jsonw *w, const char *c, bool inl)
{
    sep(w);
    puts_(w, c);
    if (w->depth + 1 < JSONW_MAX_DEPTH)
        w->depth++;
    w->first[w->depth] = true;
    w->inline_level[w->depth] = inl || (w->depth > 0 && w->inline_level[w->depth - 1]);
}

static void close_(struct jsonw *w, const char *c)
{
    bool empty = w->first[w->depth];
    bool inl = w->inline_level[w->depth];
    if (w->depth > 0)
        w->depth--;
    if (!empty && !inl && w->pretty) {
        puts_(w, "\n");
        for (int i = 0; i < w->depth; i++)
            puts_(w, "  ");
    }
    puts_(w, c);
    if (w->depth == 0 && w->pretty)
        puts_(w, "\n");
}

void jsonw_obj_begin(struct jsonw *w)
{
    open_(w, "{", false);
}
void jsonw_obj_end(struct jsonw *w)
{
    close_(w, "}");
}
void jsonw_arr_begin(struct jsonw *w, bool inline_arr)
{
    open_(w, "[", inline_arr);
}
void jsonw_arr_end(struct jsonw *w)
{
    close_(w, "]");
}

static void str_raw(struct jsonw *w, const char *s)
{
    puts_(w, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char esc[8];
        switch (*p) {
        case '"': puts_(w, "\\\""); break;
        case '\\': puts_(w, "\\\\"); break;
        case '\n': puts_(w, "\\n"); break;
        case '\r': puts_(w, "\\r"); break;
        case '\t': puts_(w, "\\t"); break;
        default:
            if (*p < 0x20) {
                snprintf(esc, sizeof esc, "\\u%04x", *p);
                puts_(w, esc);
            } else {
                put(w, (const char *)p, 1);
            }
        }
    }
    puts_(w, "\"");
}

void jsonw_key(struct jsonw *w, const char *k)
{
    sep(w);
    str_raw(w, k);
    puts_(w, w->pretty ? ": " : ":");
    w->after_key = true;
}

void jsonw_str(struct jsonw *w, const char *s)
{
    sep(w);
    if (!s)
        puts_(w, "null");
    else
        str_raw(w, s);
}

void jsonw_int(struct jsonw *w, int64_t v)
{
    char b[32];
    sep(w);
    snprintf(b, sizeof b, "%lld", (long long)v);
    puts_(w, b);
}

void jsonw_num(struct jsonw *w, double v, bool force_point)
{
    char b[40];
    sep(w);
    if (!isfinite(v)) {
        puts_(w, "null");
        return;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(b, sizeof b, "%.*g", prec, v);
        if (strtod(b, NULL) == v)
            break;
    }
    if (force_point && !strpbrk(b, ".eEn"))
        strcat(b, ".0");
    puts_(w, b);
}

void jsonw_key_fixed(struct jsonw *w, const char *k, double v, int decimals)
{
    jsonw_key(w, k);
    jsonw_fixed(w, v, decimals);
}

void jsonw_key_str(struct jsonw *w, const char *k, const char *s)
{
    jsonw_key(w, k);
    jsonw_str(w, s);
}

void jsonw_key_int(struct jsonw *w, const char *k, int64_t v)
{
    jsonw_key(w, k);
    jsonw_int(w, v);
}

void jsonw_key_num(struct jsonw *w, const char *k, double v, bool force_point)
{
    jsonw_key(w, k);
    jsonw_num(w, v, force_point);
}

void jsonw_key_bool(struct jsonw *w, const char *k, bool v)
{
    jsonw_key(w, k);
    jsonw_bool(w, v);
}

void jsonw_fixed(struct jsonw *w, double v, int decimals)
{
    char b[64];
    sep(w);
    if (!isfinite(v)) {
        puts_(w, "null");
        return;
    }
    snprintf(b, sizeof b, "%.*f", decimals, v);
    puts_(w, b);
}

void jsonw_bool(struct jsonw *w, bool v)
{
    sep(w);
    puts_(w, v ? "true" : "false");
}

void jsonw_null(struct jsonw *w)
{
    sep(w);
    puts_(w, "null");
}

void jsonw_raw(struct jsonw *w, const char *json)
{
    sep(w);
    puts_(w, json);
}
