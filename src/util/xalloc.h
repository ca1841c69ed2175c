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

/* Called once at the start of every program (dippm, the benchmarks): keeps
 * freed heap memory in the process (up to 64 MiB) instead of handing it back
 * to the kernel after each model. Without it, glibc trims the heap whenever a
 * large model's graph is freed, and the next load (the explorer's :open, a
 * template rebuilt on every key) faults every page in again: Swin-T loaded
 * after GPT-2 took 32 ms instead of 6 ms. A no-op outside glibc. */
void xalloc_init(void);

/* true and *out = a*b when the product fits in size_t. */
static inline bool size_mul_ok(size_t a, size_t b, size_t *out)
{
    if (b && a > SIZE_MAX / b)
        return false;
    *out = a * b;
    return true;
}

#endif
