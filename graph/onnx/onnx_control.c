/*
 * onnx_control.c - ONNX subgraph attributes (If then_branch/else_branch,
 * Loop and Scan body) flattened into the IR as bodies of their node.
 *
 * Names: a body's node "Conv_3" of If "/If_1" becomes "/If_1/then/Conv_3";
 * a value defined in the body (formal input, initializer, node output) gets
 * the same prefix, so bodies never collide with each other or with the main
 * graph. A name the body reads but does not define resolves in the enclosing
 * bodies, then in the main graph (ONNX outer-scope references). Each Loop
 * also gets the symbol "<loop name>.trips" (default 1), used when its trip
 * count is only known at run time (ops_control.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "graph/onnx/onnx_impl.h"
#include "graph/onnx/onnx_load_impl.h"
#include "util/strmap.h"
#include "util/xalloc.h"

/* Subgraphs nested deeper than this are refused. */
#define ONNX_MAX_BODY_DEPTH 16

static const char *scoped(struct lctx *c, const char *prefix, const char *name)
{
    return arena_printf(c->g->arena, "%s%s%s", prefix, name[0] == '/' ? "" : "/", name);
}

/* The graph-wide name of a value the current body reads. */
static const char *resolve(struct lctx *c, const char *name)
{
    int dummy;
    for (const struct onnx_scope *s = c->scope; s; s = s->up)
        if (strmap_get(s->local, name, &dummy))
            return scoped(c, s->prefix, name);
    return name;
}

static const char *label_of(const char *op, const char *attr)
{
    if (!strcmp(attr, "then_branch"))
        return "then";
    if (!strcmp(attr, "else_branch"))
        return "else";
    (void)op;
    return attr;
}

static void define_locals(struct onnx_scope *s, const Onnx__GraphProto *gp)
{
    for (size_t i = 0; i < gp->n_input; i++)
        if (gp->input[i]->name && gp->input[i]->name[0])
            strmap_put(s->local, gp->input[i]->name, 1);
    for (size_t i = 0; i < gp->n_initializer; i++)
        if (gp->initializer[i]->name && gp->initializer[i]->name[0])
            strmap_put(s->local, gp->initializer[i]->name, 1);
    for (size_t i = 0; i < gp->n_sparse_initializer; i++) {
        const Onnx__TensorProto *t = gp->sparse_initializer[i]->values;
        if (t && t->name && t->name[0])
            strmap_put(s->local, t->name, 1);
    }
    for (size_t i = 0; i < gp->n_node; i++)
        for (size_t j = 0; j < gp->node[i]->n_output; j++)
            if (gp->node[i]->output[j][0])
                strmap_put(s->local, gp->node[i]->output[j], 1);
}

static enum status body_initializers(struct lctx *c, const Onnx__GraphProto *gp,
                                     const char *where)
{
    enum status st;
    for (size_t i = 0; i < gp->n_initializer; i++) {
        Onnx__TensorProto t = *gp->initializer[i];
        if (!t.name || !t.name[0])
            return diag_set(c->d, ST_EPARSE, "%s: %s: initializer #%zu has no name", c->name,
                            where, i);
        t.name = (char *)scoped(c, c->scope->prefix, t.name);
        if ((st = onnx_add_initializer(c, &t, NULL, 0, i)))
            return st;
    }
    for (size_t i = 0; i < gp->n_sparse_initializer; i++) {
        const Onnx__SparseTensorProto *sp = gp->sparse_initializer[i];
        if (!sp->values || !sp->values->name || !sp->values->name[0])
            return diag_set(c->d, ST_EPARSE, "%s: %s: sparse initializer #%zu has no named "
                            "values tensor", c->name, where, i);
        Onnx__TensorProto t = *sp->values;
        t.name = (char *)scoped(c, c->scope->prefix, t.name);
        if ((st = onnx_add_initializer(c, &t, sp->dims, sp->n_dims, i)))
            return st;
    }
    return ST_OK;
}

static enum status body_nodes(struct lctx *c, int ctrl, int br, const Onnx__GraphProto *gp)
{
    enum status st = ST_OK;
    for (size_t i = 0; i < gp->n_node && !st; i++) {
        const Onnx__NodeProto *np = gp->node[i];
        Onnx__NodeProto copy = *np;
        char **in = xcalloc(np->n_input + 1, sizeof *in);
        char **out = xcalloc(np->n_output + 1, sizeof *out);
        for (size_t k = 0; k < np->n_input; k++)
            in[k] = (char *)(np->input[k][0] ? resolve(c, np->input[k]) : "");
        for (size_t k = 0; k < np->n_output; k++)
            out[k] = (char *)(np->output[k][0] ? scoped(c, c->scope->prefix, np->output[k]) : "");
        copy.input = in;
        copy.output = out;
        const char *base = np->name && np->name[0]
                               ? np->name
                               : arena_printf(c->g->arena, "%s_%zu",
                                              np->op_type && np->op_type[0] ? np->op_type : "node",
                                              i);
        copy.name = (char *)scoped(c, c->scope->prefix, base);
        int ni = c->g->n_nodes;
        st = onnx_add_node(c, &copy, (int)i);
        free(in);
        free(out);
        if (!st)
            graph_body_node(c->g, ctrl, br, ni);
    }
    return st;
}

static enum status body_io(struct lctx *c, int ctrl, int br, const Onnx__GraphProto *gp,
                           const char *where)
{
    enum status st;
    for (size_t i = 0; i < gp->n_input; i++) {
        const Onnx__ValueInfoProto *vi = gp->input[i];
        if (!vi->name || !vi->name[0])
            return diag_set(c->d, ST_EPARSE, "%s: %s: input #%zu has no name", c->name, where, i);
        int v = graph_value_get(c->g, scoped(c, c->scope->prefix, vi->name));
        if (c->g->values[v].flags & (VAL_INIT | VAL_BODY_INPUT))
            return diag_set(c->d, ST_EGRAPH, "%s: %s: input '%s' is listed twice or is also an "
                            "initializer", c->name, where, vi->name);
        if ((st = onnx_set_value_type(c, "subgraph input", v, vi->type, false)))
            return st;
        graph_body_input(c->g, ctrl, br, v);
    }
    for (size_t i = 0; i < gp->n_output; i++) {
        const Onnx__ValueInfoProto *vi = gp->output[i];
        if (!vi->name || !vi->name[0])
            return diag_set(c->d, ST_EPARSE, "%s: %s: output #%zu has no name", c->name, where,
                            i);
        int v = graph_value_get(c->g, resolve(c, vi->name));
        if ((st = onnx_set_value_type(c, "subgraph output", v, vi->type, false)))
            return st;
        graph_body_output(c->g, ctrl, br, v);
    }
    for (size_t i = 0; i < gp->n_value_info; i++) {
        const Onnx__ValueInfoProto *vi = gp->value_info[i];
        int v = vi->name ? graph_value_find(c->g, resolve(c, vi->name)) : -1;
        if (v < 0 || (c->g->values[v].flags & (VAL_INIT | VAL_INPUT | VAL_BODY_INPUT)))
            continue;
        if ((st = onnx_set_value_type(c, "value_info", v, vi->type, false)))
            return st;
    }
    return ST_OK;
}

enum status onnx_load_body(struct lctx *c, int ni, const char *nname,
                           const Onnx__AttributeProto *a)
{
    const Onnx__GraphProto *gp = a->g;
    if (!gp)
        return ST_OK; /* a list of graphs (no standard op takes one) */
    const char *op = c->g->nodes[ni].op_type;
    if (c->depth >= ONNX_MAX_BODY_DEPTH)
        return diag_set(c->d, ST_EUNSUPPORTED, "%s: node '%s' (%s): subgraphs nested deeper "
                        "than %d levels", c->name, nname, op, ONNX_MAX_BODY_DEPTH);
    const char *label = label_of(op, a->name);
    int br = graph_body_add(c->g, ni, a->name, label);
    struct onnx_scope s = {.up = c->scope, .prefix = scoped(c, nname, label),
                           .local = strmap_new()};
    char *where = arena_printf(c->g->arena, "node '%s' (%s) attribute '%s'", nname, op, a->name);
    define_locals(&s, gp);
    c->scope = &s;
    c->depth++;
    enum status st = body_initializers(c, gp, where);
    if (!st)
        st = body_io(c, ni, br, gp, where);
    if (!st)
        st = body_nodes(c, ni, br, gp);
    c->depth--;
    c->scope = s.up;
    strmap_free(s.local);
    if (!st && !strcmp(op, "Loop") && !c->g->nodes[ni].domain[0])
        graph_sym_add(c->g, arena_printf(c->g->arena, "%s.trips", nname), 1);
    return st;
}
