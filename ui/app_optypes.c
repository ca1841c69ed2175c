/* app_optypes.c - the predicted time aggregated by ONNX op type (the Layers
 * tab's op-type view): node count, time share, FLOPs, bytes moved and the
 * bound class that holds most of the type's teacher time. */
#include "ui/app.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static int by_share_desc(const void *x, const void *y)
{
    const struct app_optype *p = x, *q = y;
    if (p->share != q->share)
        return p->share < q->share ? 1 : -1;
    return strcmp(p->op, q->op);
}

/* The bound class with the most teacher time ("-" when the type's kernels
 * take no time, e.g. all fused away). */
static enum bound dominant(const double *time_s)
{
    enum bound best = BOUND_NONE;
    for (int b = 0; b < BOUND__COUNT; b++)
        if (b != BOUND_NONE && time_s[b] > 0 && (best == BOUND_NONE || time_s[b] > time_s[best]))
            best = (enum bound)b;
    return best;
}

int app_optypes(const struct app *a, struct app_optype **out, int *n_zero)
{
    *out = NULL;
    *n_zero = 0;
    if (!a->g || !a->have_pred)
        return 0;
    const struct sim_result *s = &a->pred.sim;
    struct app_optype *t = xcalloc((size_t)a->g->n_nodes + 1, sizeof *t);
    int n = 0;
    for (int i = 0; i < a->g->n_nodes; i++) {
        const char *op = a->g->nodes[i].op_type;
        int k = 0;
        while (k < n && strcmp(t[k].op, op))
            k++;
        if (k == n)
            t[n++].op = op;
        t[k].nodes++;
        t[k].share += app_node_share(a, i);
        if (s->nodes && i < s->n_nodes) {
            const struct sim_node *sn = &s->nodes[i];
            t[k].flops += sn->flops;
            t[k].bytes += sn->bytes;
            if ((unsigned)sn->bound < BOUND__COUNT)
                t[k].bound_s[sn->bound] += sn->time_s;
        }
    }
    int kept = 0;
    for (int k = 0; k < n; k++) {
        t[k].bound = dominant(t[k].bound_s);
        if (t[k].share <= 0) /* takes no time: Constant, folded Shape */
            ++*n_zero;
        else
            t[kept++] = t[k];
    }
    qsort(t, (size_t)kept, sizeof *t, by_share_desc);
    *out = t;
    return kept;
}
