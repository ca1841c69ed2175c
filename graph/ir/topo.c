/* topo.c - graph_finalize: producer/consumer links, topological order
 * (Kahn, stable in file order) and structural validation. */
#include "graph/ir/ir.h"

#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "util/strmap.h"
#include "util/xalloc.h"

static enum status link_producers(struct graph *g, struct diag *d)
{
    for (int vi = 0; vi < g->n_values; vi++) {
        g->values[vi].producer = -1;
        g->values[vi].n_consumers = 0;
    }
    for (int ni = 0; ni < g->n_nodes; ni++) {
        const struct node *n = &g->nodes[ni];
        for (int j = 0; j < n->n_out; j++) {
            struct value *v = &g->values[n->out[j]];
            if (v->producer >= 0)
                return diag_set(d, ST_EGRAPH,
                                "node '%s': output '%s' is already produced by node '%s'",
                                n->name, v->name, g->nodes[v->producer].name);
            if (v->flags & (VAL_INPUT | VAL_INIT | VAL_BODY_INPUT))
                return diag_set(d, ST_EGRAPH,
                                "node '%s': output '%s' is also a graph input, initializer or "
                                "subgraph input",
                                n->name, v->name);
            v->producer = ni;
        }
    }
    return ST_OK;
}

static enum status check_node(struct graph *g, int ni, struct diag *d)
{
    struct node *n = &g->nodes[ni];
    if (n->op != OP__UNKNOWN) {
        int lo = op_min_inputs(n->op), hi = op_max_inputs(n->op);
        int present = n->n_in;
        while (present > 0 && n->in[present - 1] < 0)
            present--;
        if (present < lo || (hi >= 0 && n->n_in > hi)) {
            if (hi < 0)
                return diag_set(d, ST_EGRAPH, "node '%s' (%s): %d inputs, expected at least %d",
                                n->name, n->op_type, present, lo);
            return diag_set(d, ST_EGRAPH, "node '%s' (%s): %d inputs, expected %d to %d", n->name,
                            n->op_type, n->n_in, lo, hi);
        }
    }
    if (n->n_out < 1)
        return diag_set(d, ST_EGRAPH, "node '%s' (%s): has no outputs", n->name, n->op_type);
    if (n->parent >= g->n_nodes || (n->parent >= 0 && (n->branch < 0 ||
                                    n->branch >= g->nodes[n->parent].n_body)))
        return diag_set(d, ST_EGRAPH, "node '%s' (%s): belongs to a subgraph that does not exist",
                        n->name, n->op_type);
    if (n->parent >= 0 && graph_node_depth(g, ni) > g->n_nodes)
        return diag_set(d, ST_EGRAPH, "node '%s' (%s): its enclosing subgraphs form a cycle",
                        n->name, n->op_type);
    for (int j = 0; j < n->n_in; j++) {
        int vi = n->in[j];
        if (vi < 0)
            continue;
        const struct value *v = &g->values[vi];
        if (v->producer < 0 && !(v->flags & (VAL_INPUT | VAL_INIT | VAL_BODY_INPUT)) && !v->data)
            return diag_set(d, ST_EGRAPH,
                            "node '%s' (%s): input %d '%s' is not produced by any node and is "
                            "neither a graph input nor an initializer",
                            n->name, n->op_type, j, v->name);
    }
    return ST_OK;
}

/* Fills each body's node list in topological order. */
static void body_lists(struct graph *g)
{
    for (int ni = 0; ni < g->n_nodes; ni++)
        for (int b = 0; b < g->nodes[ni].n_body; b++)
            g->nodes[ni].body[b].n_nodes = 0;
    for (int ni = 0; ni < g->n_nodes; ni++) {
        const struct node *n = &g->nodes[ni];
        if (n->parent >= 0)
            g->nodes[n->parent].body[n->branch].n_nodes++;
    }
    for (int ni = 0; ni < g->n_nodes; ni++)
        for (int b = 0; b < g->nodes[ni].n_body; b++) {
            struct body *bd = &g->nodes[ni].body[b];
            bd->nodes = arena_alloc(g->arena, sizeof(int) * (size_t)(bd->n_nodes + 1));
            bd->n_nodes = 0;
        }
    for (int t = 0; t < g->n_nodes; t++) {
        const struct node *n = &g->nodes[g->topo[t]];
        if (n->parent >= 0) {
            struct body *bd = &g->nodes[n->parent].body[n->branch];
            bd->nodes[bd->n_nodes++] = g->topo[t];
        }
    }
}

enum status graph_finalize(struct graph *g, struct diag *d)
{
    enum status st = link_producers(g, d);
    if (st)
        return st;

    /* Node names must be unique: they are how users and errors refer to nodes. */
    struct strmap *names = strmap_new();
    strmap_reserve(names, (size_t)g->n_nodes);
    for (int ni = 0; ni < g->n_nodes; ni++) {
        int other;
        if (!strmap_add(names, g->nodes[ni].name, ni, &other)) {
            strmap_free(names);
            return diag_set(d, ST_EGRAPH, "node %d: duplicate node name '%s' (also node %d)", ni,
                            g->nodes[ni].name, other);
        }
    }
    strmap_free(names);

    for (int ni = 0; ni < g->n_nodes; ni++)
        if ((st = check_node(g, ni, d)))
            return st;
    unsigned char *listed = xcalloc((size_t)g->n_values + 1, 1);
    for (int i = 0; i < g->n_outputs; i++) {
        const struct value *v = &g->values[g->outputs[i]];
        if (listed[g->outputs[i]]++) {
            free(listed);
            return diag_set(d, ST_EGRAPH, "graph output '%s' is listed twice", v->name);
        }
        if (v->producer < 0 && !(v->flags & (VAL_INPUT | VAL_INIT))) {
            free(listed);
            return diag_set(d, ST_EGRAPH, "graph output '%s' is not produced by any node",
                            v->name);
        }
    }
    free(listed);

    /* consumers (arena arrays) */
    int *count = xcalloc((size_t)g->n_values + 1, sizeof *count);
    for (int ni = 0; ni < g->n_nodes; ni++)
        for (int j = 0; j < g->nodes[ni].n_in; j++)
            if (g->nodes[ni].in[j] >= 0)
                count[g->nodes[ni].in[j]]++;
    for (int vi = 0; vi < g->n_values; vi++) {
        g->values[vi].consumers =
            count[vi] ? arena_alloc(g->arena, sizeof(int) * (size_t)count[vi]) : NULL;
        g->values[vi].n_consumers = 0;
    }
    for (int ni = 0; ni < g->n_nodes; ni++)
        for (int j = 0; j < g->nodes[ni].n_in; j++) {
            int vi = g->nodes[ni].in[j];
            if (vi < 0)
                continue;
            struct value *v = &g->values[vi];
            /* a node reading the same value twice is one consumer edge per use */
            v->consumers[v->n_consumers++] = ni;
        }

    /* Kahn's algorithm; indeg counts inputs produced by nodes. */
    int *indeg = xcalloc((size_t)g->n_nodes + 1, sizeof *indeg);
    int *queue = xcalloc((size_t)g->n_nodes + 1, sizeof *queue);
    for (int ni = 0; ni < g->n_nodes; ni++)
        for (int j = 0; j < g->nodes[ni].n_in; j++)
            if (g->nodes[ni].in[j] >= 0 && g->values[g->nodes[ni].in[j]].producer >= 0)
                indeg[ni]++;
    /* a control node runs after every node of its bodies (they feed it) */
    for (int ni = 0; ni < g->n_nodes; ni++)
        if (g->nodes[ni].parent >= 0)
            indeg[g->nodes[ni].parent]++;
    int head = 0, tail = 0;
    for (int ni = 0; ni < g->n_nodes; ni++)
        if (!indeg[ni])
            queue[tail++] = ni;
    while (head < tail) {
        int ni = queue[head++];
        const struct node *n = &g->nodes[ni];
        for (int j = 0; j < n->n_out; j++) {
            const struct value *v = &g->values[n->out[j]];
            for (int k = 0; k < v->n_consumers; k++)
                if (--indeg[v->consumers[k]] == 0)
                    queue[tail++] = v->consumers[k];
        }
        if (n->parent >= 0 && --indeg[n->parent] == 0)
            queue[tail++] = n->parent;
    }
    free(count);
    if (tail < g->n_nodes) {
        int bad = -1;
        for (int ni = 0; ni < g->n_nodes && bad < 0; ni++)
            if (indeg[ni] > 0)
                bad = ni;
        free(indeg);
        free(queue);
        return diag_set(d, ST_EGRAPH, "graph has a cycle through node '%s' (%s)",
                        g->nodes[bad].name, g->nodes[bad].op_type);
    }
    free(indeg);
    free(g->topo);
    g->topo = queue;
    body_lists(g);
    g->finalized = true;
    g->inferred = false;
    return ST_OK;
}
