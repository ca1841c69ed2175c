/* xalloc.c - allocators for internally sized memory that end the program
 * with the documented out-of-memory exit status when they fail. */
#include "util/xalloc.h"

#include "util/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

static _Noreturn void oom(size_t n)
{
    fprintf(stderr, "dippm: out of memory allocating %zu bytes\n", n);
    /* exit, not abort: the status is the documented ST_ENOMEM one and the
     * atexit handlers (the explorer's terminal restore) run */
    exit(status_exit_code(ST_ENOMEM));
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom(n);
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom(n * size);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom(n);
    return q;
}

void *xreallocarray(void *p, size_t n, size_t size)
{
    size_t total;
    if (!size_mul_ok(n, size, &total))
        oom(SIZE_MAX);
    return xrealloc(p, total);
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = xmalloc(n);
    memcpy(p, s, n);
    return p;
}

void xalloc_init(void)
{
#ifdef __GLIBC__
    /* Setting these also turns off glibc's own threshold adjustment, so the
     * mmap threshold is set too: blocks under 32 MiB (the largest glibc would
     * adapt to) come from the heap and are reused from one model to the next. */
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
#endif
}
