/* app_compare.c - per-layer deltas between two configurations. Layers are
 * matched by structure first: a node's key hashes its op and, through its
 * inputs' producers, everything upstream of it (the k-th node of equal
 * hash in topological order pairs with the k-th on the other side), so
 * an ONNX export and the template it was made from pair layer for layer
 * whatever their names. Layers left over (a changed template: everything
 * downstream of the change hashes differently) are then matched by name.
 * The pairs change only with the pins or the model and are computed once
 * (sorting: O(n log n) on 2,000-node models); a configuration change only
 * refills the times. */
#include "ui/app.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
    return h;
}

static uint64_t fnv_str(uint64_t h, const char *s)
{
    return fnv(h, s ? s : "", s ? strlen(s) + 1 : 1);
}

/* The structural hash of every node (see the top of the file). */
static uint64_t *struct_hashes(const struct graph *g)
{
    uint64_t *h = xcalloc((size_t)(g->n_nodes ? g->n_nodes : 1), sizeof *h);
    for (int t = 0; t < g->n_nodes; t++) {
        int i = g->topo ? g->topo[t] : t;
        const struct node *n = &g->nodes[i];
        uint64_t x = fnv_str(fnv_str(14695981039346656037ull, n->domain), n->op_type);
        for (int k = 0; k < n->n_in; k++) {
            const struct value *v = n->in[k] >= 0 ? &g->values[n->in[k]] : NULL;
            if (!v) {
                x = fnv(x, "-", 1);
            } else if (v->producer >= 0) {
                const struct node *p = &g->nodes[v->producer];
                int slot = 0;
                while (slot < p->n_out && p->out[slot] != n->in[k])
                    slot++;
                uint64_t up[2] = {h[v->producer], (uint64_t)slot};
                x = fnv(x, up, sizeof up);
            } else {
                /* a weight or a graph input: its kind and rank, not its
                 * dims (they follow the batch and the image size) */
                char kind[2] = {v->flags & VAL_INIT ? 'W' : 'I', (char)v->rank};
                x = fnv(x, kind, sizeof kind);
            }
        }
        h[i] = x;
    }
    return h;
}

struct hkey {
    uint64_t h;
    int pos; /* topological position, or node index */
    int idx;
};

static int cmp_hkey(const void *x, const void *y)
{
    const struct hkey *p = x, *q = y;
    if (p->h != q->h)
        return p->h < q->h ? -1 : 1;
    return (p->pos > q->pos) - (p->pos < q->pos);
}

uint64_t *app_layer_keys(const struct graph *g)
{
    int n = g->n_nodes;
    uint64_t *h = struct_hashes(g);
    struct hkey *s = xmalloc(sizeof *s * (size_t)(n ? n : 1));
    for (int t = 0; t < n; t++) {
        int i = g->topo ? g->topo[t] : t;
        s[t] = (struct hkey){h[i], t, i};
    }
    qsort(s, (size_t)n, sizeof *s, cmp_hkey);
    /* the k-th node of a hash in topological order gets (hash, k) */
    for (int t = 0, occ = 0; t < n; t++) {
        occ = t > 0 && s[t].h == s[t - 1].h ? occ + 1 : 0;
        h[s[t].idx] = fnv(s[t].h, &occ, sizeof occ);
    }
    free(s);
    return h;
}

struct side {
    int n;
    const char *const *name; /* NULL: the graph's nodes */
    const double *ms;        /* NULL: app_node_ms */
    const uint64_t *key;     /* app_layer_keys */
    const struct app *a;
};

static const char *side_name(const struct side *s, int i)
{
    return s->name ? s->name[i] : s->a->g->nodes[i].name;
}

static double side_ms(const struct side *s, int i)
{
    return s->ms ? s->ms[i] : app_node_ms(s->a, i);
}

/* The side's layers not yet matched (used[i] false), sorted by key. */
static int by_key(const struct side *s, const bool *used, struct hkey *out)
{
    int m = 0;
    for (int i = 0; i < s->n; i++)
        if (!used[i])
            out[m++] = (struct hkey){s->key[i], i, i};
    qsort(out, (size_t)m, sizeof *out, cmp_hkey);
    return m;
}

struct nkey {
    const char *name;
    int idx;
};

static int cmp_nkey(const void *x, const void *y)
{
    const struct nkey *p = x, *q = y;
    int r = strcmp(p->name, q->name);
    return r ? r : (p->idx > q->idx) - (p->idx < q->idx);
}

static int by_name(const struct side *s, const bool *used, struct nkey *out)
{
    int m = 0;
    for (int i = 0; i < s->n; i++)
        if (!used[i])
            out[m++] = (struct nkey){side_name(s, i), i};
    qsort(out, (size_t)m, sizeof *out, cmp_nkey);
    return m;
}

static void add_pair(struct app_compare *c, int bi, int oi)
{
    c->pair[c->n_pair][0] = bi;
    c->pair[c->n_pair++][1] = oi;
}

/* c->pair: layers matched by structure, then by name, then the rest. */
static void match(struct app_compare *c, const struct side *b, const struct side *o)
{
    free(c->pair);
    c->pair = xmalloc(sizeof *c->pair * (size_t)(b->n + o->n + 1));
    c->n_pair = 0;
    bool *ub = xcalloc((size_t)b->n + 1, 1), *uo = xcalloc((size_t)o->n + 1, 1);
    struct hkey *hb = xmalloc(sizeof *hb * (size_t)(b->n + 1)),
                *ho = xmalloc(sizeof *ho * (size_t)(o->n + 1));
    int mb = by_key(b, ub, hb), mo = by_key(o, uo, ho);
    for (int i = 0, j = 0; i < mb && j < mo;) {
        if (hb[i].h == ho[j].h) {
            add_pair(c, hb[i].idx, ho[j].idx);
            ub[hb[i++].idx] = uo[ho[j++].idx] = true;
        } else if (hb[i].h < ho[j].h) {
            i++;
        } else {
            j++;
        }
    }
    free(hb);
    free(ho);
    struct nkey *nb = xmalloc(sizeof *nb * (size_t)(b->n + 1)),
                *no = xmalloc(sizeof *no * (size_t)(o->n + 1));
    mb = by_name(b, ub, nb);
    mo = by_name(o, uo, no);
    int i = 0, j = 0;
    while (i < mb || j < mo) {
        int r = i >= mb ? 1 : j >= mo ? -1 : strcmp(nb[i].name, no[j].name);
        if (r == 0) {
            add_pair(c, nb[i++].idx, no[j++].idx);
        } else if (r < 0) {
            add_pair(c, nb[i++].idx, -1);
        } else {
            add_pair(c, -1, no[j++].idx);
        }
    }
    free(nb);
    free(no);
    free(ub);
    free(uo);
}

static int cmp_delta(const void *x, const void *y)
{
    const struct app_layer_delta *p = x, *q = y;
    double dp = fabs(p->other_ms - p->base_ms), dq = fabs(q->other_ms - q->base_ms);
    if (dp != dq)
        return dp < dq ? 1 : -1;
    return strcmp(p->name, q->name);
}

static void compute(struct app *a, const struct side *b, const struct side *o)
{
    struct app_compare *c = &a->cmp;
    if (!c->pair || c->pair_serial != a->pin_serial || c->pair_model != a->model_serial ||
        c->pair_col != c->col) {
        match(c, b, o);
        c->pair_serial = a->pin_serial;
        c->pair_model = a->model_serial;
        c->pair_col = c->col;
    }
    free(c->v);
    c->v = xmalloc(sizeof *c->v * (size_t)(c->n_pair + 1));
    c->n = c->n_pair;
    for (int k = 0; k < c->n_pair; k++) {
        int bi = c->pair[k][0], oi = c->pair[k][1];
        c->v[k] = (struct app_layer_delta){bi >= 0 ? side_name(b, bi) : side_name(o, oi),
                                           bi >= 0 ? side_ms(b, bi) : 0,
                                           oi >= 0 ? side_ms(o, oi) : 0, bi, oi};
    }
    qsort(c->v, (size_t)c->n, sizeof *c->v, cmp_delta);
}

const struct app_compare *app_compare_layers(struct app *a, int col)
{
    struct app_compare *c = &a->cmp;
    if (a->n_pins < 1 || col < 1 || col > a->n_pins) {
        c->valid = false;
        c->n = 0;
        return c;
    }
    if (c->valid && c->col == col && c->pin_serial == a->pin_serial &&
        (col < a->n_pins || c->gen == a->gen))
        return c;
    const struct app_snapshot *p0 = &a->pins[0];
    struct side b = {p0->n_layers, (const char *const *)p0->layer_name, p0->layer_ms, p0->layer_key,
                     a};
    struct side o;
    if (col < a->n_pins) {
        const struct app_snapshot *p = &a->pins[col];
        o = (struct side){p->n_layers, (const char *const *)p->layer_name, p->layer_ms,
                          p->layer_key, a};
    } else {
        if (c->now_keys_model != a->model_serial || !c->now_keys) {
            free(c->now_keys);
            c->now_keys = a->g ? app_layer_keys(a->g) : NULL;
            c->now_keys_model = a->model_serial;
        }
        o = (struct side){a->g ? a->g->n_nodes : 0, NULL, NULL, c->now_keys, a};
    }
    c->col = col;
    compute(a, &b, &o);
    c->valid = true;
    c->gen = a->gen;
    c->pin_serial = a->pin_serial;
    return c;
}
