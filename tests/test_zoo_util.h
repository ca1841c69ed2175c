/* test_zoo_util.h - helpers shared by the zoo tests: building a spec,
 * counting parameters independently of the cost model, and telling whether
 * the real shape inference is linked. */
#ifndef DIPPM_TEST_ZOO_UTIL_H
#define DIPPM_TEST_ZOO_UTIL_H

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "graph/json/json_graph.h"
#include "graph/load.h"
#include "graph/ops/shape.h"
#include "graph/zoo/zoo.h"

/* Parameters counted independently of the cost model: elements of every
 * initializer except BatchNormalization's running mean and variance
 * (inputs 3 and 4), each initializer once. */
static double count_params(const struct graph *g)
{
    char *skip = calloc((size_t)g->n_values, 1), *seen = calloc((size_t)g->n_values, 1);
    for (int n = 0; n < g->n_nodes; n++) {
        const struct node *nd = &g->nodes[n];
        if (strcmp(nd->op_type, "BatchNormalization") == 0)
            for (int k = 3; k < nd->n_in && k < 5; k++)
                skip[nd->in[k]] = 1;
    }
    double total = 0;
    for (int vi = 0; vi < g->n_values; vi++) {
        const struct value *v = &g->values[vi];
        if (!(v->flags & VAL_INIT) || skip[vi] || seen[vi])
            continue;
        seen[vi] = 1;
        double e = 1;
        for (int r = 0; r < v->rank; r++)
            e *= (double)v->dims[r].v;
        total += e;
    }
    free(skip);
    free(seen);
    return total;
}

static struct graph *build(const char *spec)
{
    struct diag d = {0};
    struct graph *g = zoo_build_spec(spec, &d);
    if (!g)
        fail_msg("%s: %s", spec, d.msg);
    return g;
}

/* true when the real shape inference has landed (the placeholder counts
 * nothing and marks every node unsupported). */
static bool infer_real(struct graph *g)
{
    struct diag d = {0};
    enum status st = graph_infer(g, &d);
    if (st != ST_OK)
        fail_msg("%s: graph_infer: %s", g->path, d.msg);
    return g->totals.n_counted > 0;
}

#endif
