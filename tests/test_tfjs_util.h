/* test_tfjs_util.h - helpers shared by the TF.js graph-model tests (after
 * cmocka.h: failures go through fail_msg). */
#ifndef DIPPM_TEST_TFJS_UTIL_H
#define DIPPM_TEST_TFJS_UTIL_H

#include <string.h>

#include "graph/ir/ir.h"

/* The first node of op type op; the test fails where there is none. */
static inline const struct node *node_op(const struct graph *g, const char *op)
{
    for (int i = 0; i < g->n_nodes; i++)
        if (!strcmp(g->nodes[i].op_type, op))
            return &g->nodes[i];
    fail_msg("no %s node", op);
    return NULL;
}

#endif
