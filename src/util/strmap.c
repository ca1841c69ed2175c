/* strmap.c - word-at-a-time hashed, linear-probing string -> int map. Each slot
 * keeps its key's hash: a probe compares strings only when the hashes
 * match, and growing never hashes a key again. */
#include "util/strmap.h"
#include "util/xalloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct slot {
    const char *key;
    uint32_t hash;
    int val;
};

struct strmap {
    struct slot *slots;
    size_t cap, count; /* cap is a power of two */
};

/* Eight bytes a step (the length comes from strlen, which is vectorised),
 * then a full avalanche so the low bits that pick a slot depend on every
 * byte. */
static uint32_t hash(const char *s)
{
    size_t n = strlen(s);
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;
    for (; n >= 8; s += 8, n -= 8) {
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    w = 0;
    memcpy(&w, s, n);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 29;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 32;
    return (uint32_t)h;
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

/* Rehashes into a table of cap slots (a power of two above the count). */
static void grow_to(struct strmap *m, size_t cap)
{
    struct slot *old = m->slots;
    size_t oc = m->cap;
    m->cap = cap;
    m->slots = xcalloc(m->cap, sizeof *m->slots);
    for (size_t i = 0; i < oc; i++) {
        if (!old[i].key)
            continue;
        size_t j = old[i].hash & (m->cap - 1);
        while (m->slots[j].key)
            j = (j + 1) & (m->cap - 1);
        m->slots[j] = old[i];
    }
    free(old);
}

static void grow(struct strmap *m)
{
    grow_to(m, m->cap * 2);
}

/* The slot holding key, or the empty slot where it would go. */
static struct slot *find(const struct strmap *m, const char *key, uint32_t h)
{
    size_t j = h & (m->cap - 1);
    while (m->slots[j].key && (m->slots[j].hash != h || strcmp(m->slots[j].key, key) != 0))
        j = (j + 1) & (m->cap - 1);
    return &m->slots[j];
}

unsigned strmap_hash(const char *key)
{
    return hash(key);
}

void strmap_put_h(struct strmap *m, const char *key, unsigned h, int val)
{
    if ((m->count + 1) * 4 > m->cap * 3)
        grow(m);
    struct slot *s = find(m, key, h);
    if (!s->key) {
        s->key = key;
        s->hash = h;
        m->count++;
    }
    s->val = val;
}

void strmap_put(struct strmap *m, const char *key, int val)
{
    strmap_put_h(m, key, hash(key), val);
}

bool strmap_get_h(const struct strmap *m, const char *key, unsigned h, int *val)
{
    const struct slot *s = find(m, key, h);
    if (!s->key)
        return false;
    *val = s->val;
    return true;
}

bool strmap_get(const struct strmap *m, const char *key, int *val)
{
    return strmap_get_h(m, key, hash(key), val);
}

bool strmap_add(struct strmap *m, const char *key, int val, int *old)
{
    if ((m->count + 1) * 4 > m->cap * 3)
        grow(m);
    uint32_t h = hash(key);
    struct slot *s = find(m, key, h);
    if (s->key) {
        if (old)
            *old = s->val;
        return false;
    }
    s->key = key;
    s->hash = h;
    s->val = val;
    m->count++;
    return true;
}

void strmap_reserve(struct strmap *m, size_t n)
{
    size_t cap = m->cap;
    while ((n + 1) * 4 > cap * 3)
        cap *= 2;
    if (cap != m->cap)
        grow_to(m, cap); /* one rehash, not one per doubling */
}

size_t strmap_count(const struct strmap *m)
{
    return m->count;
}
