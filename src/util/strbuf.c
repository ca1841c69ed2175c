/* strbuf.c - the growable text buffer. */
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* Room for `more` bytes and a NUL after the text. */
static void reserve(struct strbuf *b, size_t more)
{
    if (b->cap - b->len > more)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len <= more)
        cap *= 2;
    b->s = xrealloc(b->s, cap);
    b->cap = cap;
}

void strbuf_vprintf(struct strbuf *b, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    reserve(b, 0);
    int n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    if (n > 0 && (size_t)n >= b->cap - b->len) {
        reserve(b, (size_t)n);
        n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, again);
    }
    va_end(again);
    if (n > 0)
        b->len += (size_t)n;
    b->s[b->len] = '\0';
}

void strbuf_printf(struct strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    strbuf_vprintf(b, fmt, ap);
    va_end(ap);
}

void strbuf_add(struct strbuf *b, const char *s, size_t n)
{
    reserve(b, n);
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

char *strbuf_take(struct strbuf *b, size_t *len)
{
    reserve(b, 0);
    b->s[b->len] = '\0';
    char *s = b->s;
    if (len)
        *len = b->len;
    b->s = NULL;
    b->len = b->cap = 0;
    return s;
}

void strbuf_fini(struct strbuf *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}
