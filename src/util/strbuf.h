/*
 * strbuf.h - a growable text buffer: append formatted text, take the result.
 * Growth goes through xrealloc (aborts on exhaustion, like every small
 * internal allocation); s is always NUL-terminated once anything is added.
 *
 *   struct strbuf b = STRBUF_INIT;
 *   strbuf_printf(&b, "%d nodes\n", n);
 *   ... b.s, b.len ...
 *   strbuf_fini(&b);
 */
#ifndef DIPPM_STRBUF_H
#define DIPPM_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
    char *s;    /* the text (NULL until something is added) */
    size_t len; /* bytes of text, without the NUL */
    size_t cap; /* bytes allocated */
};

#define STRBUF_INIT {NULL, 0, 0}

void strbuf_printf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vprintf(struct strbuf *b, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* Appends n bytes of s. */
void strbuf_add(struct strbuf *b, const char *s, size_t n);
/* Hands the text over (malloc'd, "" if empty; *len if len is not NULL) and
 * leaves b empty. */
char *strbuf_take(struct strbuf *b, size_t *len);
void strbuf_fini(struct strbuf *b);

#endif
