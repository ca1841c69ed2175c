/* graph_lanes.c - DAG rows with edge lanes. */
#include "ui/graph_lanes.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* A tensor that flows from the graph inputs. Weights, and constants
 * computed from weights only (Constant nodes, transposed weights, shape
 * arithmetic on constants), get no lane: exporters often emit them all up
 * front, and lanes for them would fill the view before the model starts. */
static bool is_activation(const struct graph *g, const bool *konst, int vi)
{
    return vi >= 0 && !(g->values[vi].flags & VAL_INIT) && !konst[vi] &&
           (g->values[vi].producer >= 0 || (g->values[vi].flags & VAL_INPUT));
}

/* konst[v]: v is an initializer or produced by a node whose inputs are all
 * constant (topological order makes one pass enough). */
static bool *constant_values(const struct graph *g)
{
    bool *k = xcalloc((size_t)(g->n_values ? g->n_values : 1), sizeof *k);
    for (int v = 0; v < g->n_values; v++)
        k[v] = (g->values[v].flags & VAL_INIT) != 0;
    for (int t = 0; t < g->n_nodes; t++) {
        const struct node *nd = &g->nodes[g->topo ? g->topo[t] : t];
        bool all = true;
        for (int j = 0; j < nd->n_in && all; j++)
            all = nd->in[j] < 0 || k[nd->in[j]];
        for (int j = 0; all && j < nd->n_out; j++)
            if (nd->out[j] >= 0)
                k[nd->out[j]] = true;
    }
    return k;
}

static int free_lane(const int *lane, const bool *reserved)
{
    for (int l = 0; l < GRAPH_MAX_LANES; l++)
        if (lane[l] < 0 && !reserved[l])
            return l;
    return -1;
}

/* Horizontal connector from the node column to lane l (exclusive of both
 * ends), crossing pass-through lanes. */
static void span(struct graph_row *row, const int *lane, int col, int l)
{
    int a = col < l ? col : l, b = col < l ? l : col;
    for (int k = 2 * a + 1; k < 2 * b; k++) {
        enum ui_glyph *gl = &row->glyph[k];
        if (k % 2 == 0 && lane[k / 2] >= 0 && *gl == G_VLINE)
            *gl = G_CROSS;
        else if (*gl == G_BR || *gl == G_BL) /* passes a lane that ends here */
            *gl = G_TEE_U;
        else if (*gl == G_TR || *gl == G_TL) /* passes a lane that starts here */
            *gl = G_TEE_D;
        else if (*gl == G_TEE_L || *gl == G_TEE_R)
            *gl = G_CROSS;
        else if (*gl == G__COUNT)
            *gl = G_HLINE;
    }
}

/* The glyphs of a collapsed block's row: what the block does to the lanes
 * as a whole (lanes that pass, end in it, start in it), not what its first
 * node did, so a block does not look like a fan out of one node. */
static void block_glyphs(struct graph_row *row, const int *before, const int *after)
{
    int col = -1;
    for (int c = 0; c < GRAPH_LANE_COLS; c += 2)
        if (row->glyph[c] == G_BLOCK || row->glyph[c] == G_NODE)
            col = c / 2;
    /* the block sits on the lane it consumes and replaces (its main path) */
    for (int l = GRAPH_MAX_LANES - 1; l >= 0; l--)
        if (before[l] >= 0 && after[l] >= 0 && before[l] != after[l])
            col = l;
    for (int c = 0; c < GRAPH_LANE_COLS; c++)
        row->glyph[c] = G__COUNT;
    if (col < 0)
        return;
    for (int l = 0; l < GRAPH_MAX_LANES; l++)
        if (l != col && before[l] >= 0 && before[l] == after[l])
            row->glyph[2 * l] = G_VLINE;
    row->glyph[2 * col] = G_BLOCK;
    for (int l = 0; l < GRAPH_MAX_LANES; l++) {
        if (l == col || (before[l] >= 0 && before[l] == after[l]))
            continue;
        if (before[l] < 0 && after[l] < 0)
            continue;
        span(row, after, col, l);
        if (before[l] >= 0 && after[l] < 0) /* ends in the block */
            row->glyph[2 * l] = l > col ? G_BR : G_BL;
        else if (before[l] < 0) /* starts in the block */
            row->glyph[2 * l] = l > col ? G_TR : G_TL;
        else /* consumed and replaced */
            row->glyph[2 * l] = l > col ? G_TEE_R : G_TEE_L;
    }
}

/* The lane layout as it is built, row by row. */
struct lanes {
    const struct graph *g;
    const bool *konst;  /* values computed from weights only */
    int *remaining;     /* distinct consumer nodes not yet drawn, per value */
    int *lane_of;       /* lane of a value, -1 if none */
    int lane[GRAPH_MAX_LANES]; /* value in each lane, -1 if free */
};

/* Counts each value's distinct consumers and puts the graph's activation
 * inputs in lanes. */
static void lanes_start(struct lanes *ls)
{
    const struct graph *g = ls->g;
    for (int l = 0; l < GRAPH_MAX_LANES; l++)
        ls->lane[l] = -1;
    for (int v = 0; v < g->n_values; v++) {
        ls->lane_of[v] = -1;
        const struct value *val = &g->values[v];
        for (int k = 0; k < val->n_consumers; k++) {
            bool dup = false;
            for (int j = 0; j < k; j++)
                dup |= val->consumers[j] == val->consumers[k];
            ls->remaining[v] += !dup;
        }
    }
    for (int i = 0; i < g->n_inputs; i++) {
        int v = g->inputs[i];
        if (!is_activation(g, ls->konst, v) || ls->remaining[v] == 0)
            continue;
        bool none[GRAPH_MAX_LANES] = {0};
        int l = free_lane(ls->lane, none);
        if (l >= 0) {
            ls->lane[l] = v;
            ls->lane_of[v] = l;
        }
    }
}

/* The node's distinct activation inputs that sit in lanes (at most 16). */
static int lane_inputs(const struct lanes *ls, const struct node *nd, int *ins)
{
    int n_ins = 0;
    for (int j = 0; j < nd->n_in && n_ins < 16; j++) {
        int v = nd->in[j];
        if (!is_activation(ls->g, ls->konst, v) || ls->lane_of[v] < 0)
            continue;
        bool dup = false;
        for (int q = 0; q < n_ins; q++)
            dup |= ins[q] == v;
        if (!dup)
            ins[n_ins++] = v;
    }
    return n_ins;
}

/* Places the node's outputs that have consumers, the first in its own
 * column when free, and draws the forks to the others. */
static void place_outputs(struct lanes *ls, const struct node *nd, int col, bool *reserved,
                          struct graph_row *row)
{
    bool first = true;
    for (int j = 0; j < nd->n_out; j++) {
        int v = nd->out[j];
        if (v < 0 || ls->remaining[v] == 0 || ls->konst[v])
            continue;
        int l = first && col >= 0 && ls->lane[col] < 0 ? col : free_lane(ls->lane, reserved);
        first = false;
        if (l < 0) {
            row->overflow = true;
            continue;
        }
        ls->lane[l] = v;
        ls->lane_of[v] = l;
        reserved[l] = true;
        if (l != col && col >= 0) {
            span(row, ls->lane, col, l);
            row->glyph[2 * l] = l > col ? G_TR : G_TL;
        }
    }
}

/* One node's row: the lanes passing by, the node in the column of an
 * input it ends (or a free one), joins from its inputs, forks to its
 * outputs. */
static void node_row(struct lanes *ls, const struct node *nd, bool collapse,
                     struct graph_row *row)
{
    for (int c = 0; c < GRAPH_LANE_COLS; c++)
        row->glyph[c] = G__COUNT;
    int ins[16], n_ins = lane_inputs(ls, nd, ins);
    int col = -1;
    for (int q = 0; q < n_ins; q++)
        if (ls->remaining[ins[q]] <= 1 && (col < 0 || ls->lane_of[ins[q]] < col))
            col = ls->lane_of[ins[q]];
    bool reserved[GRAPH_MAX_LANES] = {0};
    if (col < 0)
        col = free_lane(ls->lane, reserved);
    for (int l = 0; l < GRAPH_MAX_LANES; l++)
        if (ls->lane[l] >= 0)
            row->glyph[2 * l] = G_VLINE;
    row->overflow = col < 0;
    bool const_node = nd->n_out > 0 && nd->out[0] >= 0 && ls->konst[nd->out[0]];
    if (col >= 0) {
        row->glyph[2 * col] = const_node ? G_DOT : nd->block && collapse ? G_BLOCK : G_NODE;
        reserved[col] = true;
    }
    for (int q = 0; q < n_ins && col >= 0; q++) {
        int l = ls->lane_of[ins[q]];
        if (l == col)
            continue;
        bool ends = ls->remaining[ins[q]] <= 1;
        span(row, ls->lane, col, l);
        row->glyph[2 * l] = ends ? (l > col ? G_BR : G_BL) : (l > col ? G_TEE_R : G_TEE_L);
    }
    /* consume the inputs */
    for (int q = 0; q < n_ins; q++) {
        int v = ins[q];
        if (--ls->remaining[v] <= 0 && ls->lane_of[v] >= 0) {
            ls->lane[ls->lane_of[v]] = -1;
            ls->lane_of[v] = -1;
        }
    }
    place_outputs(ls, nd, col, reserved, row);
}

/* Folded nodes: the row of their first user, latest first so chains of
 * constants (Constant -> Transpose -> MatMul) resolve. */
static void fold_constant_rows(const struct graph *g, struct graph_rows *out)
{
    for (int k = g->n_nodes - 1; k >= 0; k--) {
        int ni = g->topo ? g->topo[k] : k;
        if (out->row_of_node[ni] >= 0)
            continue;
        const struct node *nd = &g->nodes[ni];
        int best = -1;
        for (int j = 0; j < nd->n_out; j++) {
            if (nd->out[j] < 0)
                continue;
            const struct value *v = &g->values[nd->out[j]];
            for (int q = 0; q < v->n_consumers; q++) {
                int r = out->row_of_node[v->consumers[q]];
                if (r >= 0 && (best < 0 || r < best))
                    best = r;
            }
        }
        out->row_of_node[ni] = best >= 0 ? best : 0;
    }
}

void graph_rows_build(const struct graph *g, bool collapse, struct graph_rows *out)
{
    memset(out, 0, sizeof *out);
    int n = g->n_nodes;
    out->rows = xcalloc((size_t)(n ? n : 1), sizeof *out->rows);
    out->row_of_node = xmalloc(sizeof(int) * (size_t)(n ? n : 1));
    bool *konst = constant_values(g);
    struct lanes ls = {
        .g = g, .konst = konst,
        .remaining = xcalloc((size_t)(g->n_values ? g->n_values : 1), sizeof(int)),
        .lane_of = xmalloc(sizeof(int) * (size_t)(g->n_values ? g->n_values : 1))};
    lanes_start(&ls);
    const char *cur_block = NULL;
    int start_lane[GRAPH_MAX_LANES];
    for (int k = 0; k < n; k++) {
        int ni = g->topo ? g->topo[k] : k;
        const struct node *nd = &g->nodes[ni];
        /* a node computed from weights only (Constant, a transposed weight)
         * gets no row: it is folded into the row of its first user */
        if (nd->n_out > 0 && nd->out[0] >= 0 && konst[nd->out[0]]) {
            out->row_of_node[ni] = -1;
            out->n_hidden++;
            continue;
        }
        bool merge = collapse && nd->block && cur_block && !strcmp(nd->block, cur_block) &&
                     out->n > 0;
        cur_block = nd->block;
        if (!merge)
            memcpy(start_lane, ls.lane, sizeof ls.lane);
        struct graph_row tmp, *row = merge ? &tmp : &out->rows[out->n];
        node_row(&ls, nd, collapse, row);
        for (int l = 0; l < GRAPH_MAX_LANES; l++)
            if ((ls.lane[l] >= 0 || row->glyph[2 * l] != G__COUNT) && l + 1 > out->lanes_used)
                out->lanes_used = l + 1;
        if (merge) {
            struct graph_row *br = &out->rows[out->n - 1];
            br->n_nodes++;
            br->overflow |= row->overflow;
            block_glyphs(br, start_lane, ls.lane);
        } else {
            row->node = ni;
            row->n_nodes = 1;
            out->n++;
        }
        out->row_of_node[ni] = out->n - 1;
    }
    fold_constant_rows(g, out);
    if (out->n == 0 && n > 0) { /* only constants: show them anyway */
        out->rows[0].node = g->topo ? g->topo[0] : 0;
        out->rows[0].n_nodes = 1;
        for (int c = 0; c < GRAPH_LANE_COLS; c++)
            out->rows[0].glyph[c] = G__COUNT;
        out->rows[0].glyph[0] = G_DOT;
        out->n = 1;
    }
    free(ls.remaining);
    free(ls.lane_of);
    free(konst);
}

void graph_rows_fini(struct graph_rows *r)
{
    if (!r)
        return;
    free(r->rows);
    free(r->row_of_node);
    memset(r, 0, sizeof *r);
}
