/* strmap.c - FNV-1a hashed, linear-probing string -> int map. */
#include "strmap.h"
#include "xalloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct slot {
    const char *key;
    int val;
};

struct strmap {
    struct slot *slots;
    size_t cap, count; /* cap is a power of two */
};

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

struct strmap *strmap_new(void)
{
    struct strmap *m = xcalloc(1, sizeof *m);
    m->cap = 64;
    m->slots = xcalloc(m->cap, sizeof *m->slots);
    return m;
}

void strmap_free(struct strmap *m)
{
    if (!m)
        return;
    free(m->slots);
    free(m);
}

static void grow(struct strmap *m)
{
    struct slot *old = m->slots;
    size_t oc = m->cap;
    m->cap *= 2;
    m->slots = xcalloc(m->cap, sizeof *m->slots);
    for (size_t i = 0; i < oc; i++) {
        if (!old[i].key)
            continue;
        size_t j = hash(old[i].key) & (m->cap - 1);
        while (m->slots[j].key)
            j = (j + 1) & (m->cap - 1);
        m->slots[j] = old[i];
    }
    free(old);
}

void strmap_put(struct strmap *m, const char *key, int val)
{
    if ((m->count + 1) * 4 > m->cap * 3)
        grow(m);
    size_t j = hash(key) & (m->cap - 1);
    while (m->slots[j].key) {
        if (strcmp(m->slots[j].key, key) == 0) {
            m->slots[j].val = val;
            return;
        }
        j = (j + 1) & (m->cap - 1);
    }
    m->slots[j].key = key;
    m->slots[j].val = val;
    m->count++;
}

bool strmap_get(const struct strmap *m, const char *key, int *val)
{
    size_t j = hash(key) & (m->cap - 1);
    while (m->slots[j].key) {
        if (strcmp(m->slots[j].key, key) == 0) {
            *val = m->slots[j].val;
            return true;
        }
        j = (j + 1) & (m->cap - 1);
    }
    return false;
}

void strmap_reserve(struct strmap *m, size_t n)
{
    while ((n + 1) * 4 > m->cap * 3)
        grow(m);
}

size_t strmap_count(const struct strmap *m)
{
    return m->count;
}
