/*
 * xalloc.h - allocation wrappers that exit with status 7 (out of memory) on
 * failure. Only for small,
 * internally sized allocations; sizes read from files must be checked and
 * allocated with plain malloc so failure returns ST_ENOMEM.
 */
#ifndef DIPPM_XALLOC_H
#define DIPPM_XALLOC_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);

/* true and *out = a*b when the product fits in size_t. */
static inline bool size_mul_ok(size_t a, size_t b, size_t *out)
{
    if (b && a > SIZE_MAX / b)
        return false;
    *out = a * b;
    return true;
}

#endif
