/*
 * keras_tfjs_loop.c - emission of TF.js graph models with while loops (see
 * keras_tfjs_control.c for the frames and the mapping): the nodes of one
 * frame in dependency order, each frame nested in it as one IR Loop whose
 * body holds the frame's nodes, and the ops that only pass values on
 * (Switch, LoopCond, NextIteration, a cond's Merge) or work on TensorLists.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/keras/keras_tfjs_impl.h"
#include "util/xalloc.h"

static bool is(const struct gnode *node, const char *op)
{
    return node && !strcmp(node->op, op);
}

static enum status emit_frame(struct gctx *G, int f);

/* The units of a scope S: its own nodes (units 0..nm-1, G->mem order) and
 * the frames nested directly in it (nm.., G->kids order), each frame with
 * every node inside it at any depth. */
struct scope {
    int S, nm, nk, nu;
    const int *mem, *kids;
    int *nodes, n; /* every node of the scope, nested ones too, in index order */
};

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Fills sc and marks every node of scope S with its unit in G->unit. */
static void scope_units(struct gctx *G, int S, struct scope *sc)
{
    sc->S = S;
    sc->mem = G->mem + G->mem_off[S + 1];
    sc->nm = G->mem_off[S + 2] - G->mem_off[S + 1];
    sc->kids = G->kids + G->kid_off[S + 1];
    sc->nk = G->kid_off[S + 2] - G->kid_off[S + 1];
    sc->nu = sc->nm + sc->nk;
    sc->n = 0;
    sc->nodes = xmalloc(sizeof *sc->nodes * ((size_t)G->nn + 1));
    int *stack = xmalloc(sizeof *stack * ((size_t)G->nfr + 1));
    for (int k = 0; k < sc->nm; k++) {
        G->unit[sc->mem[k]] = k;
        sc->nodes[sc->n++] = sc->mem[k];
    }
    for (int k = 0; k < sc->nk; k++) {
        int top = 0;
        stack[top++] = sc->kids[k];
        while (top) { /* frames nest as a tree (tg_frames checked) */
            int f = stack[--top];
            for (int e = G->mem_off[f + 1]; e < G->mem_off[f + 2]; e++) {
                G->unit[G->mem[e]] = sc->nm + k;
                sc->nodes[sc->n++] = G->mem[e];
            }
            for (int e = G->kid_off[f + 1]; e < G->kid_off[f + 2]; e++)
                stack[top++] = G->kids[e];
        }
    }
    free(stack);
    tg_frame_visit((unsigned long)sc->n);
    qsort(sc->nodes, (size_t)sc->n, sizeof *sc->nodes, cmp_int);
}

static bool live(struct gctx *G, const struct scope *sc, int u)
{
    if (u >= sc->nm)
        return !G->fr[sc->kids[u - sc->nm]].emitted;
    const struct gnode *node = &G->n[sc->mem[u]];
    return !node->done && !is(node, "NoOp");
}

static enum status never_runs(struct gctx *G, const struct scope *sc, int u)
{
    if (u >= sc->nm) {
        const struct tframe *F = &G->fr[sc->kids[u - sc->nm]];
        return kerr(G->c, G->n[F->enter].path, "while-loop frame '%s' can never run: its "
                    "inputs form a cycle", F->name);
    }
    const struct gnode *node = &G->n[sc->mem[u]];
    return kerr(G->c, node->path, "node '%s' can never run: its inputs form a cycle", node->name);
}

/* Dependency edges between the units of scope sc (CSR by source). */
static enum status scope_edges(struct gctx *G, const struct scope *sc, int *indeg, int *off,
                               int **adj)
{
    const int *unit = G->unit;
    int nu = sc->nu;
    for (int pass = 0; pass < 2; pass++) {
        for (int j = 0; j < sc->n; j++) {
            int i = sc->nodes[j];
            struct gnode *node = &G->n[i];
            if (node->done)
                continue;
            for (int k = 0; k < node->n_in; k++) {
                struct gnode *s = tg_raw_input(G, node, k);
                int us = unit[s - G->n];
                if (s->done || us == unit[i])
                    continue;
                if (us < 0)
                    return never_runs(G, sc, unit[i]);
                if (pass == 0)
                    off[us + 1]++, indeg[unit[i]]++;
                else
                    (*adj)[off[us]++] = unit[i];
            }
        }
        if (pass == 0) {
            for (int u = 0; u < nu; u++)
                off[u + 1] += off[u];
            *adj = xmalloc(sizeof **adj * ((size_t)off[nu] + 1));
        } else {
            for (int u = nu; u > 0; u--)
                off[u] = off[u - 1];
            off[0] = 0;
        }
    }
    return ST_OK;
}

enum status tg_emit_scope(struct gctx *G, int S)
{
    struct scope sc;
    scope_units(G, S, &sc);
    int nu = sc.nu;
    int *indeg = xcalloc((size_t)nu + 1, sizeof *indeg);
    int *off = xcalloc((size_t)nu + 2, sizeof *off), *adj = NULL;
    int *queue = xmalloc(sizeof *queue * ((size_t)nu + 1)), head = 0, tail = 0;
    enum status st = scope_edges(G, &sc, indeg, off, &adj);
    /* the units are known as edges now: the nested scopes use G->unit too */
    for (int j = 0; j < sc.n; j++)
        G->unit[sc.nodes[j]] = -1;
    free(sc.nodes);
    for (int u = 0; !st && u < nu; u++)
        if (!indeg[u] && live(G, &sc, u))
            queue[tail++] = u;
    while (!st && head < tail) {
        int u = queue[head++];
        if (u >= sc.nm && !G->fr[sc.kids[u - sc.nm]].emitted) {
            st = emit_frame(G, sc.kids[u - sc.nm]);
        } else if (u < sc.nm && !G->n[sc.mem[u]].done) {
            st = tg_emit_one(G, &G->n[sc.mem[u]]);
            G->n[sc.mem[u]].done = true;
        }
        /* an Exit is done with its frame: it still releases its readers */
        for (int e = off[u]; !st && e < off[u + 1]; e++)
            if (--indeg[adj[e]] == 0 &&
                (adj[e] >= sc.nm || !is(&G->n[sc.mem[adj[e]]], "NoOp")))
                queue[tail++] = adj[e];
    }
    for (int u = 0; !st && u < nu; u++)
        if (live(G, &sc, u))
            st = never_runs(G, &sc, u);
    free(indeg);
    free(off);
    free(adj);
    free(queue);
    return st;
}

/* One loop value of a frame. */
struct lvar {
    struct gnode *m, *e, *ni;
    int out; /* Loop output index */
};

/* Unique value name "<frame>/<sfx>". */
static const char *fname(struct gctx *G, int f, const char *sfx)
{
    struct klayer L = {.name = G->fr[f].name, .cls = "Loop", .nprefix = "", .wprefix = ""};
    return kx_name(G->c, &L, sfx);
}

/* The IR value of input i of node: a Const's value or the tensor. */
int tg_in_value(struct gctx *G, struct gnode *node, int i)
{
    struct gnode *s = tg_input_node(G, node, i);
    if (s->is_const)
        return tg_const_value(G, s);
    return kx_val(G->c, tg_tin(G, node, i), false, tg_gname(G, node, NULL));
}

/* The ktensor of input i (a Const: its manifest shape). */
struct ktensor tg_in_tensor(struct gctx *G, struct gnode *node, int i, int v)
{
    struct gnode *s = tg_input_node(G, node, i);
    struct ktensor t;
    if (!s->is_const) {
        t = *tg_tin(G, node, i);
    } else {
        const struct kweight *w = &G->c->w[s->mw];
        kx_tensor(&t, w->rank, v, false);
        t.dt = w->dt;
        for (int k = 0; k < w->rank; k++)
            t.dims[k] = (struct dim){w->dims[k], -1};
    }
    t.vn = v;
    t.vcf = -1;
    return t;
}

/* Frame f's own nodes (not those of frames nested in it), in index order. */
static const int *members(struct gctx *G, int f, int *n)
{
    *n = G->mem_off[f + 2] - G->mem_off[f + 1];
    tg_frame_visit((unsigned long)*n);
    return G->mem + G->mem_off[f + 1];
}

static int collect_vars(struct gctx *G, int f, struct lvar **out)
{
    int n = 0, nm;
    const int *mem = members(G, f, &nm);
    struct lvar *v = xmalloc(sizeof *v * ((size_t)nm + 1));
    for (int k = 0; k < nm; k++) {
        struct gnode *m = &G->n[mem[k]], *e, *ni;
        if (tg_loop_merge(G, m, &e, &ni))
            v[n++] = (struct lvar){m, e, ni, -1};
    }
    int k = 0; /* carried values first, then the scan outputs */
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < n; i++)
            if (v[i].m->scan_var == (s == 1))
                v[i].out = k++;
    *out = v;
    return n;
}

/* Creates the Loop node of frame f with its inputs and outputs. */
static int loop_node(struct gctx *G, int f, struct lvar *v, int n, int64_t bound, int *outs)
{
    int *in = xmalloc(sizeof *in * ((size_t)n + 2)), nin = 2;
    int64_t one = 1;
    in[0] = bound >= 0 ? kx_const_i64(G->c, fname(G, f, "max_trips"), &bound, 1) : -1;
    in[1] = kx_const_i64(G->c, fname(G, f, "cond_init"), &one, 1);
    for (int k = 0; k < n; k++)
        for (int i = 0; i < n; i++)
            if (v[i].out == k && !v[i].m->scan_var)
                in[nin++] = tg_in_value(G, v[i].e, 0);
    for (int k = 0; k < n; k++) {
        char sfx[32];
        snprintf(sfx, sizeof sfx, "out%d", k);
        outs[k] = graph_value_get(G->c->g, fname(G, f, sfx));
    }
    int ln = graph_node_add(G->c->g, OP_Loop, graph_strdup(G->c->g, G->fr[f].name), in, nin,
                            outs, n);
    free(in);
    graph_body_add(G->c->g, ln, "body", "body");
    return ln;
}

/* Body inputs (iteration, condition, carried values) and the Merges' tensors. */
static void body_inputs(struct gctx *G, int f, int ln, struct lvar *v, int n, int *cond_in)
{
    graph_body_input(G->c->g, ln, 0, graph_value_get(G->c->g, fname(G, f, "iteration")));
    *cond_in = graph_value_get(G->c->g, fname(G, f, "cond"));
    graph_body_input(G->c->g, ln, 0, *cond_in);
    for (int k = 0; k < n; k++)
        for (int i = 0; i < n; i++) {
            if (v[i].out != k)
                continue;
            v[i].e->done = v[i].m->done = true;
            if (v[i].m->scan_var) {
                kx_tensor(&v[i].m->t, 0, -1, false);
                v[i].m->t.vn = -1;
                continue;
            }
            int bv = graph_value_get(G->c->g, tg_gname(G, v[i].m, NULL));
            graph_body_input(G->c->g, ln, 0, bv);
            v[i].m->t = tg_in_tensor(G, v[i].e, 0, bv);
        }
}

/* Body outputs: the condition, each carried value's next value, each scan
 * output's item; lt[k] gets Loop output k's tensor (a scan output stacked). */
static void body_outputs(struct gctx *G, int ln, struct lvar *v, int n, int cond,
                         struct ktensor *lt)
{
    graph_body_output(G->c->g, ln, 0, cond);
    for (int k = 0; k < n; k++)
        for (int i = 0; i < n; i++) {
            if (v[i].out != k)
                continue;
            struct gnode *src = v[i].ni;
            int idx = 0;
            if (v[i].m->scan_var) {
                src = tg_through(G, tg_raw_input(G, v[i].ni, 0));
                idx = 2;
            }
            int bv = tg_in_value(G, src, idx);
            graph_body_output(G->c->g, ln, 0, bv);
            lt[k] = tg_in_tensor(G, src, idx, bv);
            if (v[i].m->scan_var && lt[k].rank < IR_MAX_RANK) {
                memmove(lt[k].dims + 1, lt[k].dims, sizeof lt[k].dims[0] * (size_t)lt[k].rank);
                lt[k].dims[0] = (struct dim){-1, -1};
                lt[k].rank++;
            }
        }
}

/* The Exits reading frame f's nodes, in index order, into out (*n). */
static int *frame_exits(struct gctx *G, int f, int *n)
{
    int nm, cnt = 0;
    const int *mem = members(G, f, &nm);
    for (int k = 0; k < nm; k++)
        cnt += G->cons_off[mem[k] + 1] - G->cons_off[mem[k]];
    int *x = xmalloc(sizeof *x * ((size_t)cnt + 1));
    *n = 0;
    for (int k = 0; k < nm; k++)
        for (int e = G->cons_off[mem[k]]; e < G->cons_off[mem[k] + 1]; e++) {
            struct gnode *c = &G->n[G->cons[e]];
            if (is(c, "Exit") && tg_raw_input(G, c, 0) == &G->n[mem[k]])
                x[(*n)++] = G->cons[e];
        }
    tg_frame_visit((unsigned long)cnt);
    qsort(x, (size_t)*n, sizeof *x, cmp_int);
    int u = 0; /* an Exit reading a node twice is listed once */
    for (int k = 0; k < *n; k++)
        if (!u || x[u - 1] != x[k])
            x[u++] = x[k];
    *n = u;
    return x;
}

/* Exits of frame f read their loop value's Loop output. */
static enum status exits(struct gctx *G, int f, struct lvar *v, int n, const int *outs,
                         const struct ktensor *lt)
{
    int nx;
    int *xs = frame_exits(G, f, &nx);
    enum status st = ST_OK;
    for (int j = 0; j < nx && !st; j++) {
        struct gnode *x = &G->n[xs[j]];
        struct gnode *s = tg_raw_input(G, x, 0);
        struct gnode *m = tg_through(G, s);
        int i = 0;
        while (i < n && v[i].m != m)
            i++;
        if (i == n) {
            st = kerr(G->c, x->path, "Exit '%s' reads '%s', which is not a loop value of "
                      "frame '%s' (a Merge of an Enter and a NextIteration)", x->name,
                      x->in[0], G->fr[f].name);
            break;
        }
        x->t = lt[v[i].out];
        x->t.vn = outs[v[i].out];
        x->t.vcf = -1;
        x->done = true;
    }
    free(xs);
    return st;
}

/* Emits frame f as one Loop: its inputs are all done. */
static enum status emit_frame(struct gctx *G, int f)
{
    struct lvar *v;
    int n = collect_vars(G, f, &v), cond_in, *outs = xmalloc(sizeof *outs * ((size_t)n + 1));
    struct ktensor *lt = xcalloc((size_t)n + 1, sizeof *lt);
    struct gnode *lc = NULL;
    enum status st = ST_OK;
    int nm;
    const int *mem = members(G, f, &nm);
    for (int k = 0; k < nm && !st; k++) {
        struct gnode *node = &G->n[mem[k]];
        if (is(node, "LoopCond"))
            lc = node;
        if (!is(node, "Enter") || (st = tg_check_outputs(G, node)))
            continue;
        if (!node->done && !node->scan_var) {
            struct gnode *s = tg_input_node(G, node, 0); /* an invariant: the outer value */
            if (!s->is_const)
                node->t = *tg_tin(G, node, 0);
            node->done = true;
        }
    }
    if (st) {
        free(v);
        free(outs);
        free(lt);
        return st;
    }
    int64_t bound;
    bool folded = tg_fold_trips(G, f, lc->n_in ? tg_raw_input(G, lc, 0) : NULL, &bound, 0);
    int ln = loop_node(G, f, v, n, bound, outs), start = G->c->g->n_nodes;
    body_inputs(G, f, ln, v, n, &cond_in);
    G->fr[f].emitted = true;
    st = tg_emit_scope(G, f);
    if (!st)
        body_outputs(G, ln, v, n, folded ? cond_in : tg_in_value(G, lc, 0), lt);
    for (int ni = start; !st && ni < G->c->g->n_nodes; ni++)
        if (G->c->g->nodes[ni].parent < 0 && G->c->g->nodes[ni].op != OP_Constant)
            graph_body_node(G->c->g, ln, 0, ni); /* Constants stay outside, read by the body */
    if (!st)
        st = exits(G, f, v, n, outs, lt);
    if (!st && !folded) {
        char sym[600];
        snprintf(sym, sizeof sym, "%s.trips", G->fr[f].name);
        graph_sym_add(G->c->g, graph_strdup(G->c->g, sym), 1);
    }
    free(v);
    free(outs);
    free(lt);
    return st;
}

/* ---- control and TensorList ops ----------------------------------------------- */

/* The node passes on its input i unchanged. */
static enum status pass_on(struct gctx *G, struct gnode *node, int i)
{
    struct gnode *s = i < node->n_in ? tg_input_node(G, node, i) : NULL;
    if (!s)
        return kerr(G->c, node->path, "input: op %s needs %d input%s", node->op, i + 1,
                    i ? "s" : "");
    if (s->is_const)
        return tg_unsupported(G, node, "its input is a constant");
    node->t = *tg_tin(G, node, i);
    return ST_OK;
}

static enum status list_get(struct gctx *G, struct gnode *node)
{
    if (node->n_in < 2)
        return kerr(G->c, node->path, "input: op %s needs 2 data inputs, got %d", node->op,
                    node->n_in);
    struct gnode *l = tg_input_node(G, node, 0);
    if (l->is_const || tg_tin(G, node, 0)->rank < 1)
        return tg_unsupported(G, node, "the list is not a tensor list of known rank");
    struct ktensor *x = tg_tin(G, node, 0);
    int in[2] = {kx_val(G->c, x, false, tg_gname(G, node, NULL)), tg_in_value(G, node, 1)};
    int v = kx_op(G->c, OP_Gather, tg_gname(G, node, NULL), in, 2);
    graph_attr_int(G->c->g, kx_producer(G->c, v), "axis", 0);
    struct ktensor t = *x;
    tg_set_out(node, x->rank - 1, v, false);
    memcpy(node->t.dims, t.dims + 1, sizeof t.dims[0] * (size_t)(t.rank - 1));
    node->t.dt = t.dt;
    return ST_OK;
}

enum status tg_emit_control(struct gctx *G, struct gnode *node)
{
    if (is(node, "Switch")) {
        enum status st = pass_on(G, node, 0);
        if (!st)
            *tg_out(node, 1) = node->t;
        return st;
    }
    if (is(node, "LoopCond") || is(node, "NextIteration") || is(node, "Merge") ||
        is(node, "TensorListFromTensor") || is(node, "TensorListStack"))
        return pass_on(G, node, 0); /* Merge: of a cond, both branches costed */
    if (is(node, "While") || is(node, "StatelessWhile") || is(node, "If") ||
        is(node, "StatelessIf") || is(node, "PartitionedCall") ||
        is(node, "StatefulPartitionedCall"))
        return tg_emit_func(G, node);
    if (is(node, "Enter") || is(node, "Exit"))
        return kerr(G->c, node->path, "%s '%s' is not part of a while loop", node->op, node->name);
    if (is(node, "TensorListGetItem"))
        return list_get(G, node);
    if (is(node, "TensorListSetItem") || is(node, "TensorListReserve")) {
        if (!node->scan_var)
            return tg_unsupported(G, node, "a TensorList is covered only as a while loop's output, "
                                  "set once per iteration");
        if (is(node, "TensorListSetItem"))
            return node->n_in < 3
                       ? kerr(G->c, node->path, "input: expected 3 inputs, got %d", node->n_in)
                       : ST_OK; /* the item is the body's scan output */
        node->t.vn = node->t.vcf = -1;
        return ST_OK;
    }
    return ST_ENOTFOUND;
}
