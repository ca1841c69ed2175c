/* gnn_classes.c - classes of nodes with the same forward computation (see
 * gnn_classes.h). */
#include "core/gnn_classes.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static void grow_int(int **p, size_t n)
{
    free(*p);
    *p = xmalloc(sizeof(int) * (n ? n : 1));
}

void gnn_classes_reserve(struct gnn_classes *c, size_t n, size_t g, int levels)
{
    size_t lv = (size_t)levels + 1;
    if (n > c->cap_n || lv > c->cap_lv) {
        n = n > c->cap_n ? n + n / 2 : c->cap_n;
        lv = lv > c->cap_lv ? lv : c->cap_lv;
        grow_int(&c->cls, lv * n);
        grow_int(&c->rep, lv * n);
        size_t t = 64;
        while (t < 2 * n)
            t *= 2;
        grow_int(&c->tab, t);
        c->tab_mask = t - 1;
        c->cap_n = n;
        c->cap_lv = lv;
    }
    if (g + 1 > c->cap_g) {
        g = g + 1 + g / 2;
        grow_int(&c->coff, g);
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
    free(c->coff);
    memset(c, 0, sizeof *c);
}

/* Level l as the identity, for levels l..levels. */
static void identity_from(struct gnn_classes *c, int n, int l, int levels)
{
    for (; l <= levels; l++) {
        int *cl = c->cls + (size_t)l * c->cap_n, *rp = c->rep + (size_t)l * c->cap_n;
        for (int i = 0; i < n; i++)
            cl[i] = rp[i] = i;
        c->n_cls[l] = n;
    }
}

void gnn_classes_identity(struct gnn_classes *c, const struct gnn_batch *b, int levels)
{
    gnn_classes_reserve(c, (size_t)b->n_nodes, (size_t)b->n_graphs, levels);
    identity_from(c, b->n_nodes, 0, levels);
    for (int g = 0; g <= b->n_graphs; g++)
        c->coff[g] = b->goff[g];
}

static uint64_t fmix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 33);
}

/* A hash of n floats' bytes: four independent multiply chains. */
static uint64_t hash_row(const float *x, int n)
{
    uint64_t h[4] = {1, 2, 3, 4};
    int k = 0;
    for (; k + 8 <= n; k += 8)
        for (int j = 0; j < 4; j++) {
            uint64_t v;
            memcpy(&v, x + k + 2 * j, sizeof v);
            h[j] = (h[j] ^ v) * 0x9e3779b97f4a7c15ull;
        }
    for (; k < n; k++) {
        uint32_t v;
        memcpy(&v, x + k, sizeof v);
        h[0] = (h[0] ^ v) * 0x9e3779b97f4a7c15ull;
    }
    return fmix(h[0] ^ (h[1] << 1) ^ (h[2] << 2) ^ (h[3] << 3));
}

/* Level 0: per graph, nodes with byte-identical feature rows. Classes are
 * numbered in order of first appearance, so graph g's are the range
 * coff[g]..coff[g+1]. */
static void build_level0(struct gnn_classes *c, const struct gnn_batch *b, int fn)
{
    int *cl = c->cls, *rp = c->rep, *tab = c->tab, nc = 0;
    size_t mask = c->tab_mask, rowb = sizeof(float) * (size_t)fn;
    memset(tab, -1, sizeof(int) * (mask + 1));
    for (int g = 0; g < b->n_graphs; g++) {
        c->coff[g] = nc;
        for (int i = b->goff[g]; i < b->goff[g + 1]; i++) {
            const float *x = b->xn + (size_t)i * fn;
            size_t s = (size_t)hash_row(x, fn) & mask;
            int k;
            while ((k = tab[s]) >= 0 &&
                   !(k >= c->coff[g] && memcmp(b->xn + (size_t)rp[k] * fn, x, rowb) == 0))
                s = (s + 1) & mask;
            if (k < 0) {
                k = tab[s] = nc++;
                rp[k] = i;
            }
            cl[i] = k;
        }
    }
    c->coff[b->n_graphs] = nc;
    c->n_cls[0] = nc;
}

/* Whether nodes a and b have neighbours (one side) of the same classes in
 * the same order. */
static int same_side(const int *off, const int *idx, const int *cl, int a, int b)
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
    h = (h ^ (uint64_t)(off[i + 1] - off[i])) * 0x9e3779b97f4a7c15ull;
    for (int e = off[i]; e < off[i + 1]; e++)
        h = (h ^ (uint64_t)cl[idx[e]]) * 0xc2b2ae3d27d4eb4full;
    return h;
}

/* Level l + 1 from level l: own class and the neighbours' classes. */
static void build_next(struct gnn_classes *c, const struct gnn_batch *b, int l)
{
    int n = b->n_nodes;
    const int *cl = c->cls + (size_t)l * c->cap_n;
    int *cn = c->cls + (size_t)(l + 1) * c->cap_n, *rp = c->rep + (size_t)(l + 1) * c->cap_n;
    int *tab = c->tab, nc = 0;
    size_t mask = c->tab_mask;
    memset(tab, -1, sizeof(int) * (mask + 1));
    for (int i = 0; i < n; i++) {
        uint64_t h = (uint64_t)cl[i] * 0x9e3779b97f4a7c15ull;
        h = hash_side(h, b->pred_off, b->pred, cl, i);
        h = hash_side(h, b->succ_off, b->succ, cl, i);
        size_t s = (size_t)fmix(h) & mask;
        int k;
        while ((k = tab[s]) >= 0 &&
               !(cl[rp[k]] == cl[i] && same_side(b->pred_off, b->pred, cl, rp[k], i) &&
                 same_side(b->succ_off, b->succ, cl, rp[k], i)))
            s = (s + 1) & mask;
        if (k < 0) {
            k = tab[s] = nc++;
            rp[k] = i;
        }
        cn[i] = k;
    }
    c->n_cls[l + 1] = nc;
}

void gnn_classes_build(struct gnn_classes *c, const struct gnn_batch *b, int fn, int levels)
{
    gnn_classes_reserve(c, (size_t)b->n_nodes, (size_t)b->n_graphs, levels);
    build_level0(c, b, fn);
    for (int l = 0; l < levels; l++) {
        if (c->n_cls[l] == b->n_nodes) { /* no two nodes alike: nor will they be later */
            identity_from(c, b->n_nodes, l + 1, levels);
            break;
        }
        build_next(c, b, l);
    }
}
