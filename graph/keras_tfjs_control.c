/*
 * keras_tfjs_control.c - TF1 while loops in TF.js graph models (what the
 * converter emits for tf.while_loop and tf.map_fn once TF lowers its
 * functional While): Enter, Merge, Switch, LoopCond, NextIteration, Exit.
 *
 * Frames. Every node runs in one frame: the top level, or the while-loop
 * frame its inputs run in. An Enter starts frame attr.frame_name (nested in
 * its input's frame), an Exit leaves it. A node with only constant inputs
 * takes the frame of its first control input ("^name"). Reading values of
 * two frames, an Exit or NextIteration outside any frame, a Merge without
 * two inputs, a NextIteration that feeds no Merge and a frame without
 * exactly one LoopCond are errors naming the node.
 *
 * Mapping. A frame becomes one IR Loop (ops_control.c), emitted once all
 * the values entering it are:
 *   loop value (Enter -> Merge <- NextIteration)   carried value of the Loop
 *   invariant (Enter read by no Merge)             outer value read by the body
 *   Switch, LoopCond, NextIteration                the value they pass (no node)
 *   Exit of a loop value                           the Loop's output for it
 * Body nodes keep their TF names, prefixed "<frame>/body/" unless the name
 * already starts with the frame's. The trip count folds when the LoopCond
 * is a Less (or a LogicalAnd of Less) of a counter (Enter of a Const, plus
 * a constant step each iteration) against an invariant constant; a bound
 * that folds while another part of the condition does not becomes the
 * Loop's trip input. An unfolded trip count is the symbol
 * "<frame>.trips" (default 1, at most that bound), settable with --set.
 *
 * TensorLists: a loop value entered from a TensorListReserve and set once
 * per iteration (TensorListSetItem of its own Switch) is a scan output of
 * the Loop, [trips, item...]; TensorListFromTensor and TensorListStack are
 * the tensor itself and TensorListGetItem a Gather on axis 0.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/keras_tfjs_impl.h"
#include "util/xalloc.h"

#define NOFRAME (-2)
#define MAX_FRAMES 1024

static bool is(const struct gnode *g, const char *op)
{
    return g && !strcmp(g->op, op);
}

static const char *where(struct gctx *G, int f)
{
    return f < 0 ? "the top level" : G->fr[f].name;
}

/* ---- frames -------------------------------------------------------------- */

static enum status frame_named(struct gctx *G, struct gnode *g)
{
    char buf[512];
    const char *nm = tg_attr_s(g, "frame_name", NULL, buf, sizeof buf);
    if (!nm || !nm[0])
        return kerr(G->c, g->path, "attr.frame_name: missing (Enter '%s' names no while-loop "
                    "frame)", g->name);
    for (int f = 0; f < G->nfr; f++)
        if (!strcmp(G->fr[f].name, nm)) {
            g->frame = f;
            return ST_OK;
        }
    if (G->nfr >= MAX_FRAMES)
        return kerr(G->c, g->path, "more than %d while-loop frames", MAX_FRAMES);
    G->fr = xreallocarray(G->fr, (size_t)G->nfr + 1, sizeof *G->fr);
    G->fr[G->nfr] = (struct tframe){.name = xstrdup(nm), .parent = NOFRAME,
                                    .enter = (int)(g - G->n)};
    g->frame = G->nfr++;
    return ST_OK;
}

/* The frame node g runs in given its inputs' (NOFRAME: not known yet). */
static enum status place(struct gctx *G, struct gnode *g, int *want, bool *parent_set)
{
    *want = NOFRAME;
    if (g->is_const || is(g, "NoOp"))
        return ST_OK;
    if (is(g, "Placeholder")) {
        *want = -1;
        return ST_OK;
    }
    struct gnode *s0 = tg_raw_input(G, g, 0);
    if (is(g, "Enter")) {
        *want = g->frame;
        struct tframe *F = &G->fr[g->frame];
        if (s0 && !s0->is_const && s0->frame != NOFRAME) {
            if (F->parent == NOFRAME)
                F->parent = s0->frame, *parent_set = true;
            else if (F->parent != s0->frame)
                return kerr(G->c, g->path, "Enter '%s' enters frame '%s' from %s, another Enter "
                            "of that frame from %s", g->name, F->name, where(G, s0->frame),
                            where(G, F->parent));
        }
        return ST_OK;
    }
    if (is(g, "Exit")) {
        if (!s0 || s0->is_const || s0->frame == -1)
            return kerr(G->c, g->path, "input[0]: Exit '%s' reads '%s', which is in no "
                        "while-loop frame (no Enter leads to it)", g->name,
                        g->n_in ? g->in[0] : "nothing");
        if (s0->frame >= 0 && G->fr[s0->frame].parent != NOFRAME)
            *want = G->fr[s0->frame].parent;
        return ST_OK;
    }
    const struct gnode *from = NULL;
    for (int k = 0; k < g->n_in; k++) {
        struct gnode *s = tg_raw_input(G, g, k);
        if (s->is_const || s->frame == NOFRAME)
            continue;
        if (!from) {
            from = s;
            *want = s->frame;
        } else if (s->frame != *want) {
            return kerr(G->c, g->path, "node '%s' (op %s) reads '%s' in %s%s%s and '%s' in "
                        "%s%s%s: a node runs in one while-loop frame", g->name, g->op,
                        from->name, *want >= 0 ? "frame '" : "", where(G, *want),
                        *want >= 0 ? "'" : "", s->name, s->frame >= 0 ? "frame '" : "",
                        where(G, s->frame), s->frame >= 0 ? "'" : "");
        }
    }
    return ST_OK;
}

struct work {
    int *q;
    unsigned char *in;
    int head, count, cap;
};

static void push(struct work *w, int i)
{
    if (w->in[i])
        return;
    w->in[i] = 1;
    w->q[(w->head + w->count++) % w->cap] = i;
}

static void push_consumers(struct gctx *G, struct work *w, int i)
{
    for (int e = G->cons_off[i]; e < G->cons_off[i + 1]; e++)
        push(w, G->cons[e]);
}

static void push_exits(struct gctx *G, struct work *w)
{
    for (int i = 0; i < G->nn; i++)
        if (is(&G->n[i], "Exit"))
            push(w, i);
}

static enum status drain(struct gctx *G, struct work *w)
{
    while (w->count) {
        int i = w->q[w->head];
        w->head = (w->head + 1) % w->cap;
        w->count--;
        w->in[i] = 0;
        struct gnode *g = &G->n[i];
        int want;
        bool parent_set = false;
        enum status st = place(G, g, &want, &parent_set);
        if (st)
            return st;
        if (parent_set)
            push_exits(G, w); /* a frame's parent became known */
        if (want == NOFRAME || g->frame == want)
            continue;
        if (g->frame != NOFRAME)
            return kerr(G->c, g->path, "node '%s' (op %s) runs in %s and in %s", g->name, g->op,
                        where(G, g->frame), where(G, want));
        g->frame = want;
        push_consumers(G, w, i);
    }
    return ST_OK;
}

/* Nodes with only constant inputs follow their control input; frames whose
 * Enters all read constants sit at the top level. True if anything moved. */
static bool settle(struct gctx *G, struct work *w)
{
    bool moved = false;
    for (int i = 0; i < G->nn; i++) {
        struct gnode *g = &G->n[i];
        struct gnode *c = g->ctl ? tg_node_named(G, g->ctl) : NULL;
        if (g->frame == NOFRAME && !g->is_const && c && c->frame != NOFRAME) {
            g->frame = c->frame;
            push_consumers(G, w, i);
            moved = true;
        }
    }
    for (int f = 0; !moved && f < G->nfr; f++)
        if (G->fr[f].parent == NOFRAME) {
            G->fr[f].parent = -1;
            push_exits(G, w);
            moved = true;
        }
    return moved;
}

static enum status assign_frames(struct gctx *G)
{
    enum status st = ST_OK;
    for (int i = 0; i < G->nn && !st; i++) {
        G->n[i].frame = NOFRAME;
        if (is(&G->n[i], "Enter"))
            st = frame_named(G, &G->n[i]);
    }
    if (st || !G->nfr) {
        for (int i = 0; i < G->nn; i++)
            G->n[i].frame = -1;
        return st;
    }
    struct work w = {.q = xmalloc(sizeof *w.q * (size_t)G->nn), .in = xcalloc((size_t)G->nn, 1),
                     .cap = G->nn};
    for (int i = 0; i < G->nn; i++)
        push(&w, i);
    for (int round = 0; !st && round < 64; round++)
        if ((st = drain(G, &w)) || !settle(G, &w))
            break;
    free(w.q);
    free(w.in);
    for (int i = 0; i < G->nn; i++)
        if (G->n[i].frame == NOFRAME)
            G->n[i].frame = -1;
    for (int f = 0; !st && f < G->nfr; f++) {
        int p = G->fr[f].parent, depth = 0;
        if (p == NOFRAME)
            G->fr[f].parent = p = -1;
        for (; p >= 0 && depth <= G->nfr; depth++)
            p = G->fr[p].parent;
        if (depth > G->nfr)
            st = kerr(G->c, G->n[G->fr[f].enter].path, "while-loop frame '%s' is entered from "
                      "inside itself", G->fr[f].name);
    }
    return st;
}

/* ---- structure ----------------------------------------------------------- */

/* The value g passes on through Identity and Switch nodes. */
static struct gnode *through(struct gctx *G, struct gnode *g)
{
    for (int k = 0; k < 64 && g && g->n_in >= 1 && (is(g, "Identity") || is(g, "Switch")); k++)
        g = tg_raw_input(G, g, 0);
    return g;
}

/* A loop value's Merge: its Enter (*e) and NextIteration (*ni) inputs. */
static bool loop_merge(struct gctx *G, struct gnode *m, struct gnode **e, struct gnode **ni)
{
    if (!is(m, "Merge") || m->n_in != 2 || m->frame < 0)
        return false;
    struct gnode *a = tg_raw_input(G, m, 0), *b = tg_raw_input(G, m, 1);
    if (is(b, "Enter")) {
        struct gnode *t = a;
        a = b;
        b = t;
    }
    *e = a;
    *ni = b;
    return is(a, "Enter") && is(b, "NextIteration");
}

static enum status check_merge(struct gctx *G, struct gnode *g)
{
    if (g->n_in != 2)
        return kerr(G->c, g->path, "Merge '%s' has %d input%s; expected 2 (a loop value's Enter "
                    "and NextIteration, or the two branches of a cond)", g->name, g->n_in,
                    g->n_in == 1 ? "" : "s");
    struct gnode *a = tg_raw_input(G, g, 0), *b = tg_raw_input(G, g, 1), *e, *ni;
    bool loopish = is(a, "Enter") || is(b, "Enter") || is(a, "NextIteration") ||
                   is(b, "NextIteration");
    if (loopish && !loop_merge(G, g, &e, &ni))
        return kerr(G->c, g->path, "Merge '%s' reads '%s' (op %s) and '%s' (op %s); a loop "
                    "value's Merge reads one Enter and one NextIteration", g->name, a->name,
                    a->op, b->name, b->op);
    return ST_OK;
}

static enum status check_next(struct gctx *G, struct gnode *g)
{
    int i = (int)(g - G->n);
    if (g->frame < 0)
        return kerr(G->c, g->path, "NextIteration '%s' is in no while-loop frame", g->name);
    if (G->cons_off[i + 1] == G->cons_off[i])
        return kerr(G->c, g->path, "NextIteration '%s' feeds no Merge: its value never reaches "
                    "the next iteration", g->name);
    for (int e = G->cons_off[i]; e < G->cons_off[i + 1]; e++) {
        struct gnode *c = &G->n[G->cons[e]];
        if (!is(c, "Merge"))
            return kerr(G->c, g->path, "NextIteration '%s' feeds '%s' (op %s); it may feed only "
                        "a Merge", g->name, c->name, c->op);
    }
    return ST_OK;
}

/* Is every reader of loop value m's Switch an Exit or the TensorListSetItem
 * set (possibly through Identity nodes)? */
static bool only_set(struct gctx *G, int i, const struct gnode *set, int depth)
{
    for (int e = G->cons_off[i]; e < G->cons_off[i + 1]; e++) {
        struct gnode *c = &G->n[G->cons[e]];
        if (c == set || is(c, "Exit"))
            continue;
        if (depth < 8 && (is(c, "Switch") || is(c, "Identity")) &&
            only_set(G, G->cons[e], set, depth + 1))
            continue;
        return false;
    }
    return true;
}

/* Marks the scan outputs: loop values entered from a TensorListReserve
 * and set once per iteration. */
static void find_scans(struct gctx *G)
{
    for (int i = 0; i < G->nn; i++) {
        struct gnode *m = &G->n[i], *e, *ni;
        if (!loop_merge(G, m, &e, &ni))
            continue;
        struct gnode *src = tg_raw_input(G, e, 0), *set = through(G, tg_raw_input(G, ni, 0));
        if (!is(src, "TensorListReserve") || !is(set, "TensorListSetItem") || set->n_in < 3 ||
            through(G, tg_raw_input(G, set, 0)) != m || !only_set(G, i, set, 0))
            continue;
        m->scan_var = e->scan_var = set->scan_var = true;
    }
    for (int i = 0; i < G->nn; i++) {
        struct gnode *r = &G->n[i];
        if (!is(r, "TensorListReserve"))
            continue;
        r->scan_var = G->cons_off[i + 1] > G->cons_off[i];
        for (int e = G->cons_off[i]; e < G->cons_off[i + 1]; e++)
            r->scan_var &= G->n[G->cons[e]].scan_var;
    }
}

enum status tg_frames(struct gctx *G)
{
    enum status st = assign_frames(G);
    int *conds = xcalloc((size_t)G->nfr + 1, sizeof *conds);
    for (int i = 0; i < G->nn && !st; i++) {
        struct gnode *g = &G->n[i];
        if (is(g, "Merge"))
            st = check_merge(G, g);
        else if (is(g, "NextIteration"))
            st = check_next(G, g);
        else if (is(g, "LoopCond") && g->frame < 0)
            st = kerr(G->c, g->path, "LoopCond '%s' is in no while-loop frame", g->name);
        else if (is(g, "LoopCond"))
            conds[g->frame]++;
    }
    for (int f = 0; f < G->nfr && !st; f++)
        if (conds[f] != 1)
            st = kerr(G->c, G->n[G->fr[f].enter].path, "while-loop frame '%s' has %d LoopCond "
                      "nodes, expected 1", G->fr[f].name, conds[f]);
    free(conds);
    if (!st)
        find_scans(G);
    return st;
}

/* ---- trip count ------------------------------------------------------------ */

static bool const_scalar(struct gctx *G, struct gnode *k, int64_t *v)
{
    const int64_t *vals;
    if (!k || tg_const_ints(G, k, &vals) != 1)
        return false;
    *v = vals[0];
    return true;
}

/* A value of frame f that is the same constant every iteration. */
static bool invariant(struct gctx *G, int f, struct gnode *g, int64_t *v)
{
    struct gnode *e, *ni;
    g = through(G, g);
    if (g && g->is_const)
        return const_scalar(G, g, v);
    if (is(g, "Enter") && g->frame == f)
        return const_scalar(G, tg_raw_input(G, g, 0), v);
    if (loop_merge(G, g, &e, &ni) && g->frame == f && through(G, tg_raw_input(G, ni, 0)) == g)
        return const_scalar(G, tg_raw_input(G, e, 0), v);
    return false;
}

/* A loop value of frame f starting at constant *c0, plus constant *step
 * each iteration. */
static bool counter(struct gctx *G, int f, struct gnode *g, int64_t *c0, int64_t *step)
{
    struct gnode *e, *ni;
    g = through(G, g);
    if (!loop_merge(G, g, &e, &ni) || g->frame != f || !const_scalar(G, tg_raw_input(G, e, 0), c0))
        return false;
    struct gnode *add = through(G, tg_raw_input(G, ni, 0));
    if (!(is(add, "Add") || is(add, "AddV2")) || add->n_in != 2)
        return false;
    for (int k = 0; k < 2; k++)
        if (through(G, tg_raw_input(G, add, k)) == g &&
            invariant(G, f, tg_raw_input(G, add, 1 - k), step))
            return *step > 0;
    return false;
}

/* Folds loop condition g of frame f: true if it folds to a trip count
 * (*bound); otherwise *bound is a known upper bound or -1. */
static bool fold(struct gctx *G, int f, struct gnode *g, int64_t *bound, int depth)
{
    *bound = -1;
    g = through(G, g);
    if (!g || depth > 16)
        return false;
    if (is(g, "LogicalAnd") && g->n_in == 2) {
        int64_t a, b;
        bool fa = fold(G, f, tg_raw_input(G, g, 0), &a, depth + 1);
        bool fb = fold(G, f, tg_raw_input(G, g, 1), &b, depth + 1);
        *bound = a < 0 ? b : b < 0 || a < b ? a : b;
        return fa && fb;
    }
    bool less = is(g, "Less"), greater = is(g, "Greater");
    int64_t c0, step, n;
    if ((!less && !greater) || g->n_in != 2 ||
        !counter(G, f, tg_raw_input(G, g, less ? 0 : 1), &c0, &step) ||
        !invariant(G, f, tg_raw_input(G, g, less ? 1 : 0), &n))
        return false;
    *bound = n <= c0 ? 0 : (n - c0 + step - 1) / step;
    return true;
}

/* ---- emission -------------------------------------------------------------- */

/* The unit of scope S node g belongs to: itself (in S), nn + the frame
 * nested directly in S that holds it, or -1 (outside S). */
static int unit_of(struct gctx *G, const struct gnode *g, int S)
{
    int f = g->frame, guard = 0;
    if (f == S)
        return (int)(g - G->n);
    while (f >= 0 && G->fr[f].parent != S && guard++ <= G->nfr)
        f = G->fr[f].parent;
    return f >= 0 && G->fr[f].parent == S ? G->nn + f : -1;
}

static enum status emit_frame(struct gctx *G, int f);

static bool live(struct gctx *G, int u, int S)
{
    if (u >= G->nn)
        return G->fr[u - G->nn].parent == S && !G->fr[u - G->nn].emitted;
    return !G->n[u].done && G->n[u].frame == S && !is(&G->n[u], "NoOp");
}

static enum status never_runs(struct gctx *G, int u)
{
    if (u >= G->nn)
        return kerr(G->c, G->n[G->fr[u - G->nn].enter].path, "while-loop frame '%s' can never "
                    "run: its inputs form a cycle", G->fr[u - G->nn].name);
    return kerr(G->c, G->n[u].path, "node '%s' can never run: its inputs form a cycle",
                G->n[u].name);
}

/* Dependency edges between the units of scope S (CSR by source). */
static enum status scope_edges(struct gctx *G, int S, int *unit, int *indeg, int *off,
                               int **adj)
{
    int nu = G->nn + G->nfr;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < G->nn; i++) {
            struct gnode *g = &G->n[i];
            if (g->done || unit[i] < 0)
                continue;
            for (int k = 0; k < g->n_in; k++) {
                struct gnode *s = tg_raw_input(G, g, k);
                int us = unit[s - G->n];
                if (s->done || us == unit[i])
                    continue;
                if (us < 0)
                    return never_runs(G, unit[i]);
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
    int nu = G->nn + G->nfr;
    int *unit = xmalloc(sizeof *unit * ((size_t)G->nn + 1));
    int *indeg = xcalloc((size_t)nu + 1, sizeof *indeg);
    int *off = xcalloc((size_t)nu + 2, sizeof *off), *adj = NULL;
    int *queue = xmalloc(sizeof *queue * ((size_t)nu + 1)), head = 0, tail = 0;
    for (int i = 0; i < G->nn; i++)
        unit[i] = unit_of(G, &G->n[i], S);
    enum status st = scope_edges(G, S, unit, indeg, off, &adj);
    for (int u = 0; !st && u < nu; u++)
        if (!indeg[u] && live(G, u, S))
            queue[tail++] = u;
    while (!st && head < tail) {
        int u = queue[head++];
        if (u >= G->nn && !G->fr[u - G->nn].emitted) {
            st = emit_frame(G, u - G->nn);
        } else if (u < G->nn && !G->n[u].done) {
            st = tg_emit_one(G, &G->n[u]);
            G->n[u].done = true;
        }
        /* an Exit is done with its frame: it still releases its readers */
        for (int e = off[u]; !st && e < off[u + 1]; e++)
            if (--indeg[adj[e]] == 0 && (adj[e] >= G->nn || !is(&G->n[adj[e]], "NoOp")))
                queue[tail++] = adj[e];
    }
    for (int u = 0; !st && u < nu; u++)
        if (live(G, u, S))
            st = never_runs(G, u);
    free(unit);
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

/* The IR value of input i of g: a Const's value or the tensor. */
static int in_value(struct gctx *G, struct gnode *g, int i)
{
    struct gnode *s = tg_input_node(G, g, i);
    if (s->is_const)
        return tg_const_value(G, s);
    return kx_val(G->c, tg_tin(G, g, i), false, tg_gname(G, g, NULL));
}

/* The ktensor of input i (a Const: its manifest shape). */
static struct ktensor in_tensor(struct gctx *G, struct gnode *g, int i, int v)
{
    struct gnode *s = tg_input_node(G, g, i);
    struct ktensor t;
    if (!s->is_const) {
        t = *tg_tin(G, g, i);
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

static int collect_vars(struct gctx *G, int f, struct lvar **out)
{
    int n = 0;
    struct lvar *v = xmalloc(sizeof *v * ((size_t)G->nn + 1));
    for (int i = 0; i < G->nn; i++) {
        struct gnode *m = &G->n[i], *e, *ni;
        if (m->frame == f && loop_merge(G, m, &e, &ni))
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
                in[nin++] = in_value(G, v[i].e, 0);
    for (int k = 0; k < n; k++) {
        char sfx[32];
        snprintf(sfx, sizeof sfx, "out%d", k);
        outs[k] = graph_value_get(G->c->g, fname(G, f, sfx));
    }
    int ln = graph_node_add(G->c->g, "Loop", "", graph_strdup(G->c->g, G->fr[f].name), in, nin,
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
            v[i].m->t = in_tensor(G, v[i].e, 0, bv);
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
                src = through(G, tg_raw_input(G, v[i].ni, 0));
                idx = 2;
            }
            int bv = in_value(G, src, idx);
            graph_body_output(G->c->g, ln, 0, bv);
            lt[k] = in_tensor(G, src, idx, bv);
            if (v[i].m->scan_var && lt[k].rank < IR_MAX_RANK) {
                memmove(lt[k].dims + 1, lt[k].dims, sizeof lt[k].dims[0] * (size_t)lt[k].rank);
                lt[k].dims[0] = (struct dim){-1, -1};
                lt[k].rank++;
            }
        }
}

/* Exits of frame f read their loop value's Loop output. */
static enum status exits(struct gctx *G, int f, struct lvar *v, int n, const int *outs,
                         const struct ktensor *lt)
{
    for (int j = 0; j < G->nn; j++) {
        struct gnode *x = &G->n[j];
        struct gnode *s = is(x, "Exit") ? tg_raw_input(G, x, 0) : NULL;
        if (!s || s->frame != f)
            continue;
        struct gnode *m = through(G, s);
        int i = 0;
        while (i < n && v[i].m != m)
            i++;
        if (i == n)
            return kerr(G->c, x->path, "Exit '%s' reads '%s', which is not a loop value of "
                        "frame '%s' (a Merge of an Enter and a NextIteration)", x->name,
                        x->in[0], G->fr[f].name);
        x->t = lt[v[i].out];
        x->t.vn = outs[v[i].out];
        x->t.vcf = -1;
        x->done = true;
    }
    return ST_OK;
}

/* Emits frame f as one Loop: its inputs are all done. */
static enum status emit_frame(struct gctx *G, int f)
{
    struct lvar *v;
    int n = collect_vars(G, f, &v), cond_in, *outs = xmalloc(sizeof *outs * ((size_t)n + 1));
    struct ktensor *lt = xcalloc((size_t)n + 1, sizeof *lt);
    struct gnode *lc = NULL;
    for (int i = 0; i < G->nn; i++) {
        struct gnode *g = &G->n[i];
        if (g->frame == f && is(g, "LoopCond"))
            lc = g;
        if (g->frame == f && is(g, "Enter") && !g->done && !g->scan_var) {
            struct gnode *s = tg_raw_input(G, g, 0); /* an invariant: the outer value */
            if (!s->is_const)
                g->t = *tg_tin(G, g, 0);
            g->done = true;
        }
    }
    int64_t bound;
    bool folded = fold(G, f, lc->n_in ? tg_raw_input(G, lc, 0) : NULL, &bound, 0);
    int ln = loop_node(G, f, v, n, bound, outs), start = G->c->g->n_nodes;
    body_inputs(G, f, ln, v, n, &cond_in);
    G->fr[f].emitted = true;
    enum status st = tg_emit_scope(G, f);
    if (!st)
        body_outputs(G, ln, v, n, folded ? cond_in : in_value(G, lc, 0), lt);
    for (int ni = start; !st && ni < G->c->g->n_nodes; ni++)
        if (G->c->g->nodes[ni].parent < 0 && strcmp(G->c->g->nodes[ni].op_type, "Constant"))
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

/* g passes input i on unchanged. */
static enum status pass_on(struct gctx *G, struct gnode *g, int i)
{
    struct gnode *s = i < g->n_in ? tg_input_node(G, g, i) : NULL;
    if (!s)
        return kerr(G->c, g->path, "input: op %s needs %d input%s", g->op, i + 1, i ? "s" : "");
    if (s->is_const)
        return tg_unsupported(G, g, "its input is a constant");
    g->t = *tg_tin(G, g, i);
    return ST_OK;
}

static enum status list_get(struct gctx *G, struct gnode *g)
{
    if (g->n_in < 2)
        return kerr(G->c, g->path, "input: op %s needs 2 data inputs, got %d", g->op, g->n_in);
    struct gnode *l = tg_input_node(G, g, 0);
    if (l->is_const || tg_tin(G, g, 0)->rank < 1)
        return tg_unsupported(G, g, "the list is not a tensor list of known rank");
    struct ktensor *x = tg_tin(G, g, 0);
    int in[2] = {kx_val(G->c, x, false, tg_gname(G, g, NULL)), in_value(G, g, 1)};
    int v = kx_op(G->c, "Gather", tg_gname(G, g, NULL), in, 2);
    graph_attr_int(G->c->g, kx_producer(G->c, v), "axis", 0);
    struct ktensor t = *x;
    tg_set_out(g, x->rank - 1, v, false);
    memcpy(g->t.dims, t.dims + 1, sizeof t.dims[0] * (size_t)(t.rank - 1));
    g->t.dt = t.dt;
    return ST_OK;
}

enum status tg_emit_control(struct gctx *G, struct gnode *g)
{
    if (is(g, "Switch")) {
        enum status st = pass_on(G, g, 0);
        if (!st)
            *tg_out(g, 1) = g->t;
        return st;
    }
    if (is(g, "LoopCond") || is(g, "NextIteration") || is(g, "Merge") ||
        is(g, "TensorListFromTensor") || is(g, "TensorListStack"))
        return pass_on(G, g, 0); /* Merge: of a cond, both branches costed */
    if (is(g, "Enter") || is(g, "Exit"))
        return kerr(G->c, g->path, "%s '%s' is not part of a while loop", g->op, g->name);
    if (is(g, "TensorListGetItem"))
        return list_get(G, g);
    if (is(g, "TensorListSetItem") || is(g, "TensorListReserve")) {
        if (!g->scan_var)
            return tg_unsupported(G, g, "a TensorList is covered only as a while loop's output, "
                                  "set once per iteration");
        if (is(g, "TensorListSetItem"))
            return g->n_in < 3 ? kerr(G->c, g->path, "input: expected 3 inputs, got %d", g->n_in)
                               : ST_OK; /* the item is the body's scan output */
        g->t.vn = g->t.vcf = -1;
        return ST_OK;
    }
    return ST_ENOTFOUND;
}
