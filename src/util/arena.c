/* arena.c - chunked bump allocator. */
#include "util/arena.h"
#include "util/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_CHUNK (64 * 1024)
#define ARENA_MAX_ALLOC ((size_t)1 << 30)

struct chunk {
    struct chunk *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
};

struct arena {
    struct chunk *head;
    size_t total;
};

struct arena *arena_new(void)
{
    return xcalloc(1, sizeof(struct arena));
}

void arena_free(struct arena *a)
{
    if (!a)
        return;
    struct chunk *c = a->head;
    while (c) {
        struct chunk *n = c->next;
        free(c);
        c = n;
    }
    free(a);
}

void *arena_alloc(struct arena *a, size_t n)
{
    if (n > ARENA_MAX_ALLOC)
        return NULL;
    n = (n + 15) & ~(size_t)15;
    struct chunk *c = a->head;
    if (!c || c->size - c->used < n) {
        size_t sz = n > ARENA_CHUNK ? n : ARENA_CHUNK;
        c = xmalloc(sizeof *c + sz);
        c->size = sz;
        c->used = 0;
        c->next = a->head;
        a->head = c;
    }
    void *p = c->data + c->used;
    c->used += n;
    a->total += n;
    memset(p, 0, n);
    return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
    return arena_strndup(a, s, strlen(s));
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = arena_alloc(a, (size_t)(n < 0 ? 0 : n) + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

size_t arena_used(const struct arena *a)
{
    return a->total;
}
