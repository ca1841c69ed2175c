/* app_compare.c - per-layer deltas between two configurations, matched by
 * layer name (the same model at another batch, GPU or precision, or two
 * models that share layer names). Sorting by name makes it O(n log n), so
 * the compare view stays fast on 2,000-node models. */
#include "ui/app.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

struct side {
    int n;
    const char *const *name; /* NULL: the graph's nodes */
    const double *ms;        /* NULL: app_node_ms */
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

/* qsort has no context pointer: sort (name, index) pairs instead. */
struct keyed {
    const char *name;
    int idx;
};

static int cmp_keyed(const void *x, const void *y)
{
    const struct keyed *p = x, *q = y;
    int r = strcmp(p->name, q->name);
    return r ? r : (p->idx > q->idx) - (p->idx < q->idx);
}

static struct keyed *sorted(const struct side *s)
{
    struct keyed *k = xmalloc(sizeof *k * (size_t)(s->n ? s->n : 1));
    for (int i = 0; i < s->n; i++)
        k[i] = (struct keyed){side_name(s, i), i};
    qsort(k, (size_t)s->n, sizeof *k, cmp_keyed);
    return k;
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
    /* names change only with the pins or the model: sort them once */
    if (!c->keys_base || c->keys_serial != a->pin_serial || c->keys_model != a->model_serial ||
        c->keys_col != c->col) {
        free(c->keys_base);
        free(c->keys_other);
        c->keys_base = sorted(b);
        c->keys_other = sorted(o);
        c->keys_serial = a->pin_serial;
        c->keys_model = a->model_serial;
        c->keys_col = c->col;
    }
    struct keyed *kb = c->keys_base, *ko = c->keys_other;
    free(c->v);
    c->v = xmalloc(sizeof *c->v * (size_t)(b->n + o->n + 1));
    c->n = 0;
    int i = 0, j = 0;
    while (i < b->n || j < o->n) {
        int r = i >= b->n ? 1 : j >= o->n ? -1 : strcmp(kb[i].name, ko[j].name);
        struct app_layer_delta *d = &c->v[c->n++];
        if (r == 0) {
            *d = (struct app_layer_delta){kb[i].name, side_ms(b, kb[i].idx), side_ms(o, ko[j].idx),
                                          kb[i].idx, ko[j].idx};
            i++;
            j++;
        } else if (r < 0) {
            *d = (struct app_layer_delta){kb[i].name, side_ms(b, kb[i].idx), 0, kb[i].idx, -1};
            i++;
        } else {
            *d = (struct app_layer_delta){ko[j].name, 0, side_ms(o, ko[j].idx), -1, ko[j].idx};
            j++;
        }
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
    struct side b = {p0->n_layers, (const char *const *)p0->layer_name, p0->layer_ms, a};
    struct side o;
    if (col < a->n_pins) {
        const struct app_snapshot *p = &a->pins[col];
        o = (struct side){p->n_layers, (const char *const *)p->layer_name, p->layer_ms, a};
    } else {
        o = (struct side){a->g ? a->g->n_nodes : 0, NULL, NULL, a};
    }
    c->col = col;
    compute(a, &b, &o);
    c->valid = true;
    c->gen = a->gen;
    c->pin_serial = a->pin_serial;
    return c;
}
