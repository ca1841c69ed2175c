/*
 * graph_lanes.h - lays a DAG out as rows in topological order with edges in
 * vertical lanes (git log --graph style), for the graph view. Curses-free
 * and data-only: each row carries the glyphs of its lane area.
 *
 * A tensor occupies a lane from its producer to its last consumer. A node
 * sits in the lane of an input it is the last consumer of (the edge ends
 * there), otherwise in a new lane (a branch off a tensor that goes on).
 * Other inputs join it with a horizontal connector on the node's row.
 * With collapse, consecutive nodes of one repeated block (node->block) share
 * one row, drawn as the block's effect on the lanes. Nodes computed from
 * weights only (Constant, transposed weights) get no row of their own:
 * row_of_node maps them to their first user's row.
 */
#ifndef DIPPM_UI_GRAPH_LANES_H
#define DIPPM_UI_GRAPH_LANES_H

#include <stdbool.h>

#include "ui/draw.h"
#include "graph/ir/ir.h"

#define GRAPH_MAX_LANES 12
#define GRAPH_LANE_COLS (GRAPH_MAX_LANES * 2)

struct graph_row {
    int node;     /* first node of the row */
    int n_nodes;  /* > 1 for a collapsed block */
    bool overflow; /* more lanes than GRAPH_MAX_LANES were needed */
    enum ui_glyph glyph[GRAPH_LANE_COLS]; /* G__COUNT = blank */
};

struct graph_rows {
    int n;
    struct graph_row *rows; /* malloc'd */
    int *row_of_node;       /* node index -> row (malloc'd) */
    int lanes_used;         /* widest lane count, for the text column */
    int n_hidden;           /* nodes computed from weights only, folded into a user's row */
};

/* Computes the rows for g (finalized; values' producers and consumers set). */
void graph_rows_build(const struct graph *g, bool collapse, struct graph_rows *out);
void graph_rows_fini(struct graph_rows *r);

#endif
