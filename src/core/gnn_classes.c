/* gnn_classes.c - classes of nodes with the same forward computation (see
 * gnn_classes.h). */
#include "core/gnn_classes.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static void *regrow(void *p, size_t n, size_t size)
{
    free(p);
    return xmalloc(size * (n ? n : 1));
}

static void reserve(struct gnn_classes *c, size_t n, size_t g, int levels)
{
    size_t lv = (size_t)levels + 1;
    if (n > c->cap_n || lv > c->cap_lv) {
        n = n > c->cap_n ? n + n / 2 : c->cap_n;
        lv = lv > c->cap_lv ? lv : c->cap_lv;
        c->cls = regrow(c->cls, lv * n, sizeof(int));
        c->rep = regrow(c->rep, lv * n, sizeof(int));
        c->tag = regrow(c->tag, n, sizeof(uint32_t));
        c->key = regrow(c->key, 3 * n, sizeof(int));
        c->hv = regrow(c->hv, n, sizeof(uint64_t));
        size_t t = 64;
        while (t < 2 * n)
            t *= 2;
        c->tab = regrow(c->tab, t, sizeof(int));
        c->tab_mask = t - 1;
        c->cap_n = n;
        c->cap_lv = lv;
    }
    if (g + 1 > c->cap_g) {
        g = g + 1 + g / 2;
        c->coff = regrow(c->coff, g, sizeof(int));
        c->cap_g = g;
    }
}

void gnn_classes_fini(struct gnn_classes *c)
{
    if (!c)
        return;
    free(c->cls);
    free(c->rep);
    free(c->tab);
    free(c->tag);
    free(c->key);
    free(c->hv);
    free(c->coff);
    memset(c, 0, sizeof *c);
}

/* Levels l..levels as the identity. */
static void identity_from(struct gnn_classes *c, int n, int l, int levels)
{
    for (; l <= levels; l++) {
        int *cl = c->cls + (size_t)l * c->cap_n, *rp = c->rep + (size_t)l * c->cap_n;
        for (int i = 0; i < n; i++)
            cl[i] = rp[i] = i;
        c->n_cls[l] = n;
    }
}

void gnn_classes_identity(struct gnn_classes *c, const struct gnn_classes_graph *g, int levels)
{
    reserve(c, (size_t)g->n_nodes, (size_t)g->n_graphs, levels);
    identity_from(c, g->n_nodes, 0, levels);
    for (int k = 0; k <= g->n_graphs; k++)
        c->coff[k] = g->goff[k];
}

static uint64_t fmix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 33);
}

#define K1 0x9e3779b97f4a7c15ull
#define K2 0xc2b2ae3d27d4eb4full

/* A hash of n floats' bytes: eight lanes of rotate-and-add over the 32-bit
 * words (each step is one-to-one, so rows differing in one word always
 * differ; SSE2 vectorises it), then mixed. */
static uint64_t hash_row(const float *x, int n)
{
    uint32_t acc[8] = {1, 2, 3, 4, 5, 6, 7, 8}, w[8];
    int k = 0;
    for (; k + 8 <= n; k += 8) {
        memcpy(w, x + k, sizeof w);
        for (int j = 0; j < 8; j++)
            acc[j] = ((acc[j] << 5) | (acc[j] >> 27)) + w[j];
    }
    for (; k < n; k++) {
        memcpy(w, x + k, sizeof w[0]);
        acc[0] = ((acc[0] << 5) | (acc[0] >> 27)) + w[0];
    }
    uint64_t a = ((uint64_t)acc[0] << 32 | acc[1]) * K1, b = ((uint64_t)acc[2] << 32 | acc[3]) * K2;
    uint64_t c = ((uint64_t)acc[4] << 32 | acc[5]) * K2, d = ((uint64_t)acc[6] << 32 | acc[7]) * K1;
    return fmix((a ^ (b >> 29)) + (c ^ (d >> 31)));
}

/* The slot of the class whose key hashes to h and for which same(k) holds,
 * or the empty slot where it goes. */
#define PROBE(c, h, same, slot)                                                                    \
    do {                                                                                           \
        uint32_t tg_ = (uint32_t)((h) >> 32);                                                      \
        size_t s_ = (size_t)(h) & (c)->tab_mask;                                                   \
        int k;                                                                                     \
        while ((k = (c)->tab[s_] - 1) >= 0 && !((c)->tag[k] == tg_ && (same)))                     \
            s_ = (s_ + 1) & (c)->tab_mask;                                                         \
        (slot) = s_;                                                                               \
    } while (0)

/* Class of a new key in slot s, first seen on node i. */
static int add_class(struct gnn_classes *c, size_t s, uint64_t h, int *nc, int *rp, int i)
{
    int k = (*nc)++;
    c->tab[s] = k + 1;
    c->tag[k] = (uint32_t)(h >> 32);
    rp[k] = i;
    return k;
}

/* Level 0: per graph, nodes with byte-identical feature rows. Classes are
 * numbered in order of first appearance, so graph g's are coff[g]..coff[g+1]. */
static void build_level0(struct gnn_classes *c, const struct gnn_classes_graph *gr)
{
    int *cl = c->cls, *rp = c->rep, nc = 0, fn = gr->fn;
    size_t rowb = sizeof(float) * (size_t)fn;
    memset(c->tab, 0, sizeof(int) * (c->tab_mask + 1));
    /* The hashes first: independent rows, which the CPU overlaps. */
    for (int i = 0; i < gr->n_nodes; i++)
        c->hv[i] = hash_row(gr->xn + (size_t)i * fn, fn);
    for (int g = 0; g < gr->n_graphs; g++) {
        int c0 = c->coff[g] = nc;
        for (int i = gr->goff[g]; i < gr->goff[g + 1]; i++) {
            const float *x = gr->xn + (size_t)i * fn;
            uint64_t h = c->hv[i];
            size_t s;
            PROBE(c, h, k >= c0 && memcmp(gr->xn + (size_t)rp[k] * fn, x, rowb) == 0, s);
            cl[i] = c->tab[s] ? c->tab[s] - 1 : add_class(c, s, h, &nc, rp, i);
        }
    }
    c->coff[gr->n_graphs] = nc;
    c->n_cls[0] = nc;
}

/* Whether nodes a and b have neighbours (one side) of the same classes in
 * the same order. */
static inline int same_side(const int *off, const int *idx, const int *cl, int a, int b)
{
    int n = off[a + 1] - off[a];
    if (n != off[b + 1] - off[b])
        return 0;
    const int *ia = idx + off[a], *ib = idx + off[b];
    for (int e = 0; e < n; e++)
        if (cl[ia[e]] != cl[ib[e]])
            return 0;
    return 1;
}

static uint64_t hash_side(uint64_t h, const int *off, const int *idx, const int *cl, int i)
{
    h = (h ^ (uint64_t)(off[i + 1] - off[i])) * K1;
    for (int e = off[i]; e < off[i + 1]; e++)
        h = (h ^ (uint64_t)cl[idx[e]]) * K2;
    return h;
}

/* One side of node i's key: -1 without neighbours, the class of a single
 * neighbour, -2 for two or more (then compared and hashed in full). */
static int side_code(const int *off, const int *idx, const int *cl, int i)
{
    int d = off[i + 1] - off[i];
    return d == 0 ? -1 : d == 1 ? cl[idx[off[i]]] : -2;
}

/* Node i's key at level l + 1 into key[0..3) (own class, side codes),
 * its hash returned. */
static uint64_t node_key(const struct gnn_classes_graph *gr, const int *cl, int i, int *key)
{
    int k0 = key[0] = cl[i], k1 = key[1] = side_code(gr->pred_off, gr->pred, cl, i);
    int k2 = key[2] = side_code(gr->succ_off, gr->succ, cl, i);
    uint64_t h = ((uint64_t)(uint32_t)k0 << 32 | (uint32_t)k1) * K1 + (uint64_t)(uint32_t)k2 * K2;
    if (k1 == -2)
        h = hash_side(h, gr->pred_off, gr->pred, cl, i);
    if (k2 == -2)
        h = hash_side(h, gr->succ_off, gr->succ, cl, i);
    return fmix(h);
}

/* Level l + 1 from level l: own class and the neighbours' classes. Most
 * nodes have at most one neighbour a side, and their key is three ints. */
static void build_next(struct gnn_classes *c, const struct gnn_classes_graph *gr, int l)
{
    const int *cl = c->cls + (size_t)l * c->cap_n;
    int *cn = c->cls + (size_t)(l + 1) * c->cap_n, *rp = c->rep + (size_t)(l + 1) * c->cap_n;
    int nc = 0, *tab = c->tab, *kk = c->key;
    size_t mask = c->tab_mask;
    memset(tab, 0, sizeof(int) * (mask + 1));
    for (int i = 0; i < gr->n_nodes; i++) {
        int key[3];
        size_t s = (size_t)node_key(gr, cl, i, key) & mask;
        int k;
        while ((k = tab[s] - 1) >= 0) {
            const int *q = kk + 3 * (size_t)k;
            if (q[0] == key[0] && q[1] == key[1] && q[2] == key[2] &&
                (key[1] != -2 || same_side(gr->pred_off, gr->pred, cl, rp[k], i)) &&
                (key[2] != -2 || same_side(gr->succ_off, gr->succ, cl, rp[k], i)))
                break;
            s = (s + 1) & mask;
        }
        if (k < 0) {
            k = nc++;
            tab[s] = k + 1;
            rp[k] = i;
            memcpy(kk + 3 * (size_t)k, key, 3 * sizeof(int));
        }
        cn[i] = k;
    }
    c->n_cls[l + 1] = nc;
}

void gnn_classes_build(struct gnn_classes *c, const struct gnn_classes_graph *g, int levels)
{
    reserve(c, (size_t)g->n_nodes, (size_t)g->n_graphs, levels);
    build_level0(c, g);
    for (int l = 0; l < levels; l++) {
        if (c->n_cls[l] == g->n_nodes) { /* no two nodes alike: nor will they be later */
            identity_from(c, g->n_nodes, l + 1, levels);
            break;
        }
        build_next(c, g, l);
    }
}
