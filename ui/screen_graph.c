/* screen_graph.c - the DAG drawn with box characters: one row per node (or
 * per collapsed block), edges in lanes; p/c follow edges, z collapses
 * repeated blocks, g jumps to a node. */
#include "ui/screen.h"

#include <stdio.h>
#include <string.h>

#include "util/fmt.h"
#include "ui/graph_lanes.h"
#include "graph/ops/shape.h"

static int visible(struct ui_rect r)
{
    return r.h > 1 ? r.h - 1 : 1;
}

static void select_node(struct app *a, const struct graph_rows *gr, struct ui_rect r)
{
    int ni = a->st.detail_node;
    if (ni >= 0 && ni < a->g->n_nodes)
        ui_list_select(&a->st.list[UI_TAB_GRAPH], gr->row_of_node[ni], gr->n, visible(r));
    else
        ui_list_clamp(&a->st.list[UI_TAB_GRAPH], gr->n, visible(r));
}

/* Each node's share of the predicted time in UI_HEAT_BUCKETS buckets
 * against an even share (1/N of the N nodes that take time): below it, up
 * to 4x, up to 16x, beyond. Coloured, and marked by a shade (or an ASCII
 * character) so that a monochrome terminal tells them apart too. */
static const double heat_mult[UI_HEAT_BUCKETS - 1] = {1, 4, 16};

static double even_share(const struct app *a)
{
    int n = 0;
    for (int i = 0; i < a->g->n_nodes; i++)
        n += app_node_share(a, i) > 0;
    return n ? 1.0 / n : 0;
}

static int share_bucket(double share, double even)
{
    if (!(share > 0) || !(even > 0))
        return -1;
    int b = 0;
    while (b < UI_HEAT_BUCKETS - 1 && share >= heat_mult[b] * even)
        b++;
    return b;
}

static const char *heat_marker(const struct ui_canvas *c, int bucket)
{
    static const char *const shade[UI_HEAT_BUCKETS] = {"\u2591", "\u2592", "\u2593", "\u2588"};
    static const char *const ascii[UI_HEAT_BUCKETS] = {".", ":", "*", "#"};
    return bucket < 0 ? " " : c->utf8 ? shade[bucket] : ascii[bucket];
}

/* The heading: counts and the legend of the time colours, then the keys
 * and notes that fit whole. */
static void draw_heading(struct app *a, struct ui_canvas *c, struct ui_rect r,
                         const struct graph_rows *gr, double even)
{
    draw_clear(c, (struct ui_rect){r.y, r.x, 1, r.w}, UI_STYLE_HEADING);
    int n_blocks = 0;
    for (int i = 0; i < a->g->n_nodes; i++)
        n_blocks += a->g->nodes[i].block != NULL;
    char t[256], hidden[64] = "";
    int x = r.x, xend = r.x + r.w;
    if (gr->n_hidden)
        snprintf(hidden, sizeof hidden, " (%d weight-only folded into users)", gr->n_hidden);
    snprintf(t, sizeof t, "%d nodes%s, %d edges  time ", a->g->n_nodes, hidden,
             graph_edge_count(a->g));
    x += draw_text(c, r.y, x, xend - x, UI_STYLE_HEADING, t);
    for (int k = 0; k < UI_HEAT_BUCKETS && even > 0; k++) {
        double e = heat_mult[k < UI_HEAT_BUCKETS - 1 ? k : k - 1] * even * 100;
        snprintf(t, sizeof t, "%s%s%.2g%% ", heat_marker(c, k),
                 k < UI_HEAT_BUCKETS - 1 ? "<"
                 : c->utf8               ? "\u2265"
                                         : ">=",
                 e);
        if (draw_strwidth(t) > xend - x)
            break;
        draw_text(c, r.y, x, 1, UI_STYLE_HEAT1 + k, heat_marker(c, k));
        x += 1 + draw_text(c, r.y, x + 1, xend - x - 1, UI_STYLE_HEADING,
                           t + strlen(heat_marker(c, k)));
    }
    const char *extra[3] = {a->st.collapse ? " blocks collapsed " : "",
                            "  p producer  c consumer  g jump",
                            n_blocks ? "  z collapse blocks" : "  (no repeated blocks)"};
    for (int k = 0; k < 3; k++)
        if (*extra[k] && draw_strwidth(extra[k]) <= xend - x)
            x += draw_text(c, r.y, x, xend - x, UI_STYLE_HEADING, extra[k]);
}

static void draw(struct app *a, struct ui_canvas *c, struct ui_rect r)
{
    draw_clear(c, r, UI_STYLE_NORMAL);
    if (!a->g || r.h < 2)
        return;
    struct graph_rows gr;
    graph_rows_build(a->g, a->st.collapse, &gr);
    select_node(a, &gr, r);
    double even = even_share(a);
    draw_heading(a, c, r, &gr, even);
    char t[256];
    const struct ui_list *l = &a->st.list[UI_TAB_GRAPH];
    /* the lane area is as wide as the visible rows need */
    int lane_w = 2;
    for (int k = 0; k < visible(r) && l->top + k < gr.n; k++) {
        const struct graph_row *row = &gr.rows[l->top + k];
        for (int cx = GRAPH_LANE_COLS - 1; cx >= 0; cx--)
            if (row->glyph[cx] != G__COUNT) {
                if (cx + 3 > lane_w)
                    lane_w = cx + 3;
                break;
            }
        if (row->overflow)
            lane_w = GRAPH_LANE_COLS + 2;
    }
    if (lane_w > r.w / 2)
        lane_w = r.w / 2;
    for (int k = 0; k < visible(r) && l->top + k < gr.n; k++) {
        const struct graph_row *row = &gr.rows[l->top + k];
        int y = r.y + 1 + k;
        double share = 0;
        for (int q = 0; q < a->g->n_nodes; q++)
            if (gr.row_of_node[q] == l->top + k)
                share += app_node_share(a, q);
        int bucket = share_bucket(share, even);
        for (int cx = 0; cx < GRAPH_LANE_COLS && cx < lane_w - 1; cx++)
            if (row->glyph[cx] != G__COUNT)
                draw_put_glyph(c, y, r.x + cx, row->glyph[cx],
                               row->glyph[cx] == G_NODE || row->glyph[cx] == G_BLOCK
                                   ? (bucket >= 0 ? UI_STYLE_HEAT1 + bucket : UI_STYLE_TITLE)
                                   : UI_STYLE_EDGE);
        if (row->overflow)
            draw_put_glyph(c, y, r.x + lane_w - 2, G_ELLIPSIS, UI_STYLE_WARN);
        const struct node *nd = &a->g->nodes[row->node];
        int x = r.x + lane_w, xend = r.x + r.w;
        x += draw_text(c, y, x, xend - x, bucket >= 0 ? UI_STYLE_HEAT1 + bucket : UI_STYLE_NORMAL,
                       heat_marker(c, bucket));
        x += draw_text(c, y, x, xend - x, UI_STYLE_NORMAL, " ");
        if (row->n_nodes > 1) {
            double macs = 0;
            for (int q = 0; q < a->g->n_nodes; q++)
                if (gr.row_of_node[q] == l->top + k)
                    macs += a->g->nodes[q].cost.macs;
            char m[32];
            snprintf(t, sizeof t, "%s  [%d nodes, %s MACs]", nd->block, row->n_nodes,
                     fmt_si(macs, m, sizeof m));
            draw_text_words(c, y, x, xend - x, UI_STYLE_VALUE, t);
        } else {
            /* the op, the name (cut in the middle, keeping both ends), then
             * the shape and block where they fit whole */
            x += draw_text_mid(c, y, x, xend - x, UI_STYLE_VALUE, nd->op_type);
            x += draw_text(c, y, x, xend - x, UI_STYLE_NORMAL, " ");
            x += draw_text_mid(c, y, x, xend - x, UI_STYLE_NORMAL, nd->name);
            char sh[96] = "";
            if (nd->state != NODE_OK)
                snprintf(sh, sizeof sh, "  (not covered)");
            else if (nd->n_out > 0 && nd->out[0] >= 0) {
                char s2[80];
                snprintf(sh, sizeof sh, "  %s",
                         shape_str(&a->g->values[nd->out[0]].shape, s2, sizeof s2));
            }
            if (draw_strwidth(sh) <= xend - x)
                x += draw_text(c, y, x, xend - x,
                               nd->state == NODE_OK ? UI_STYLE_DIM : UI_STYLE_WARN, sh);
            else
                x = xend;
            if (nd->block && !a->st.collapse)
                draw_textf_words(c, y, x, xend - x, UI_STYLE_DIM, "  {%s}", nd->block);
        }
        if (l->top + k == l->sel)
            draw_restyle(c, y, r.x + lane_w, r.w - lane_w, UI_STYLE_SELECTED);
    }
    graph_rows_fini(&gr);
}

/* Producers of node ni's inputs (dir < 0) or consumers of its outputs. */
static int neighbours(const struct graph *g, int ni, int dir, int *cand, int max)
{
    const struct node *nd = &g->nodes[ni];
    int n = 0;
    if (dir < 0) {
        for (int j = 0; j < nd->n_in && n < max; j++)
            if (nd->in[j] >= 0 && g->values[nd->in[j]].producer >= 0)
                cand[n++] = g->values[nd->in[j]].producer;
    } else {
        for (int j = 0; j < nd->n_out; j++) {
            const struct value *v = nd->out[j] >= 0 ? &g->values[nd->out[j]] : NULL;
            for (int q = 0; v && q < v->n_consumers && n < max; q++)
                cand[n++] = v->consumers[q];
        }
    }
    return n;
}

/* p/c (cycle = false): follow an edge from the current node to its first
 * producer/consumer. Left/Right (cycle = true): the next/previous
 * alternative of the last p/c from the same origin. */
static unsigned follow(struct app *a, int dir, bool cycle)
{
    int cand[64], ni = a->st.detail_node;
    if (!a->g || ni < 0 || ni >= a->g->n_nodes)
        return UI_HANDLED;
    struct ui_state *s = &a->st;
    int origin = ni, k = 0;
    if (cycle) {
        if (s->follow_origin < 0) {
            ui_state_message(s, false, "press p or c first, then Left/Right to pick among them");
            return UI_HANDLED | UI_REDRAW;
        }
        origin = s->follow_origin;
        k = s->follow + dir;
        dir = s->follow_dir;
    }
    int n = neighbours(a->g, origin, dir, cand, 64);
    const struct node *nd = &a->g->nodes[origin];
    if (n == 0) {
        ui_state_message(s, false, "%s has no %s", nd->name,
                         dir < 0 ? "producer (its inputs are graph inputs or weights)"
                                 : "consumer (it feeds a graph output)");
        return UI_HANDLED | UI_REDRAW;
    }
    k = ((k % n) + n) % n;
    s->follow_origin = origin;
    s->follow_dir = dir;
    s->follow = k;
    s->detail_node = cand[k];
    ui_state_message(s, false, "%s %d of %d of %s: %s (%s)%s", dir < 0 ? "producer" : "consumer",
                     k + 1, n, nd->name, a->g->nodes[cand[k]].name, a->g->nodes[cand[k]].op_type,
                     n > 1 ? "   Left/Right: the others" : "");
    return UI_HANDLED | UI_REDRAW;
}

static unsigned on_action(struct app *a, enum ui_action act, struct ui_rect r)
{
    if (!a->g)
        return 0;
    struct graph_rows gr;
    graph_rows_build(a->g, a->st.collapse, &gr);
    select_node(a, &gr, r);
    struct ui_list *l = &a->st.list[UI_TAB_GRAPH];
    unsigned f = screen_list_move(l, act, gr.n, visible(r));
    if (f && gr.n > 0) {
        a->st.detail_node = gr.rows[l->sel].node;
        a->st.follow_origin = -1;
    }
    graph_rows_fini(&gr);
    if (f)
        return f;
    switch (act) {
    case UI_ACT_PRODUCER:
        return follow(a, -1, false);
    case UI_ACT_CONSUMER:
        return follow(a, 1, false);
    case UI_ACT_LEFT:
        return follow(a, -1, true);
    case UI_ACT_RIGHT:
        return follow(a, 1, true);
    case UI_ACT_COLLAPSE:
        a->st.collapse = !a->st.collapse;
        ui_state_message(&a->st, false, "repeated blocks %s",
                         a->st.collapse ? "collapsed" : "expanded");
        return UI_HANDLED | UI_REDRAW;
    case UI_ACT_ENTER:
        if (a->st.detail_node >= 0)
            ui_state_tab_set(&a->st, UI_TAB_DETAIL);
        return UI_HANDLED | UI_REDRAW;
    case UI_ACT_JUMP:
        return UI_HANDLED | UI_PROMPT_JUMP;
    default:
        return 0;
    }
}

static unsigned on_click(struct app *a, struct ui_rect r, int y, int x, bool dbl)
{
    if (!a->g || y <= r.y)
        return 0;
    struct graph_rows gr;
    graph_rows_build(a->g, a->st.collapse, &gr);
    select_node(a, &gr, r);
    int row = a->st.list[UI_TAB_GRAPH].top + (y - r.y - 1);
    unsigned f = 0;
    if (row < gr.n) {
        ui_list_select(&a->st.list[UI_TAB_GRAPH], row, gr.n, visible(r));
        a->st.detail_node = gr.rows[row].node;
        if (dbl)
            ui_state_tab_set(&a->st, UI_TAB_DETAIL);
        f = UI_HANDLED | UI_REDRAW;
    }
    graph_rows_fini(&gr);
    return f;
}

const struct screen_ops screen_graph_ops = {
    .name = "graph", .draw = draw, .on_action = on_action, .on_click = on_click,
};
