/* shape.c - PLACEHOLDER until the shape-inference work lands: resolves
 * graph-input shapes and marks every node unsupported. */
#include "shape.h"

#include <stdio.h>
#include <string.h>

#include "arena.h"

enum status graph_infer(struct graph *g, struct diag *d)
{
    (void)d;
    for (int vi = 0; vi < g->n_values; vi++) {
        struct value *v = &g->values[vi];
        v->shape.known = false;
        if ((v->flags & (VAL_INPUT | VAL_INIT)) && v->rank >= 0) {
            v->shape.known = true;
            v->shape.rank = v->rank;
            for (int i = 0; i < v->rank; i++)
                v->shape.d[i] = graph_dim_value(g, &v->dims[i]);
        }
    }
    memset(&g->totals, 0, sizeof g->totals);
    for (int i = 0; i < g->n_nodes; i++) {
        g->nodes[i].state = NODE_UNSUPPORTED;
        memset(&g->nodes[i].cost, 0, sizeof g->nodes[i].cost);
    }
    g->totals.n_unsupported = g->n_nodes;
    g->inferred = true;
    return ST_OK;
}

const char *shape_str(const struct shape *s, char *buf, int size)
{
    if (!s->known) {
        snprintf(buf, (size_t)size, "?");
        return buf;
    }
    int len = snprintf(buf, (size_t)size, "[");
    for (int i = 0; i < s->rank && len < size; i++)
        len += snprintf(buf + len, (size_t)(size - len), "%s%lld", i ? ", " : "",
                        (long long)s->d[i]);
    if (len < size)
        snprintf(buf + len, (size_t)(size - len), "]");
    return buf;
}

int64_t shape_numel(const struct shape *s)
{
    if (!s->known)
        return -1;
    int64_t n = 1;
    for (int i = 0; i < s->rank; i++)
        n *= s->d[i];
    return n;
}
