/* cli_control.c - `dippm info`: control-flow nodes (If/Loop/Scan) as a tree
 * of their bodies, each line with the node counts of its bodies and the
 * inference note (which branch was costed, the trip count and where it came
 * from). */
#include "cli/cli_control.h"

#include "util/jsonw.h"

static int count_control(const struct graph *g)
{
    int k = 0;
    for (int ni = 0; ni < g->n_nodes; ni++)
        k += g->nodes[ni].n_body > 0;
    return k;
}

static void text_node(FILE *f, const struct graph *g, int ni, int depth)
{
    const struct node *n = &g->nodes[ni];
    fprintf(f, "  %*s%s '%s':", 2 * depth, "", n->op_type, n->name);
    for (int b = 0; b < n->n_body; b++)
        fprintf(f, "%s %s %d node%s", b ? "," : "", n->body[b].label, n->body[b].n_nodes,
                n->body[b].n_nodes == 1 ? "" : "s");
    fputc('\n', f);
    if (n->note)
        fprintf(f, "  %*s  %s\n", 2 * depth, "", n->note);
    /* control nodes inside a branch that does not run are covered by the
     * note of the If that skips them */
    for (int b = 0; b < n->n_body; b++)
        for (int k = 0; k < n->body[b].n_nodes; k++) {
            const struct node *ch = &g->nodes[n->body[b].nodes[k]];
            if (ch->n_body > 0 && ch->state != NODE_NOT_RUN)
                text_node(f, g, n->body[b].nodes[k], depth + 1);
        }
}

void info_control_text(FILE *f, const struct graph *g)
{
    int k = count_control(g);
    if (!k)
        return;
    int in_bodies = 0;
    for (int ni = 0; ni < g->n_nodes; ni++)
        in_bodies += g->nodes[ni].parent >= 0;
    fprintf(f, "control flow (%d node%s with subgraphs, %d nodes inside; %d in branches not "
            "costed):\n", k, k == 1 ? "" : "s", in_bodies, g->totals.n_not_run);
    for (int t = 0; t < g->n_nodes; t++) {
        int ni = g->topo[t];
        if (g->nodes[ni].n_body > 0 && g->nodes[ni].parent < 0)
            text_node(f, g, ni, 0);
    }
}

void info_control_json(struct jsonw *w, const struct graph *g)
{
    jsonw_key(w, "control_flow");
    jsonw_arr_begin(w, false);
    for (int t = 0; t < g->n_nodes; t++) {
        const struct node *n = &g->nodes[g->topo[t]];
        if (!n->n_body)
            continue;
        jsonw_obj_begin(w);
        jsonw_key_str(w, "node", n->name);
        jsonw_key_str(w, "op", n->op_type);
        jsonw_key_int(w, "depth", graph_node_depth(g, g->topo[t]));
        jsonw_key_str(w, "parent", n->parent >= 0 ? g->nodes[n->parent].name : NULL);
        jsonw_key(w, "bodies");
        jsonw_obj_begin(w);
        for (int b = 0; b < n->n_body; b++) {
            jsonw_key_int(w, n->body[b].label, n->body[b].n_nodes);
        }
        jsonw_obj_end(w);
        jsonw_key_str(w, "note", n->note);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_key_int(w, "nodes_not_run", g->totals.n_not_run);
}
