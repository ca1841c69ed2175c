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

#include "graph/keras/keras_tfjs_impl.h"
#include "util/xalloc.h"

#define NOFRAME (-2)
#define MAX_FRAMES 1024

static bool is(const struct gnode *node, const char *op)
{
    return node && !strcmp(node->op, op);
}

static const char *where(struct gctx *G, int f)
{
    return f < 0 ? "the top level" : G->fr[f].name;
}

/* ---- frames -------------------------------------------------------------- */

static enum status frame_named(struct gctx *G, struct gnode *node)
{
    char buf[512];
    if (node->n_in != 1)
        return kerr(G->c, node->path, "input: Enter '%s' has %d data inputs, expected 1",
                    node->name, node->n_in);
    const char *nm = tg_attr_s(node, "frame_name", NULL, buf, sizeof buf);
    if (!nm || !nm[0])
        return kerr(G->c, node->path, "attr.frame_name: missing (Enter '%s' names no while-loop "
                    "frame)", node->name);
    for (int f = 0; f < G->nfr; f++)
        if (!strcmp(G->fr[f].name, nm)) {
            node->frame = f;
            return ST_OK;
        }
    if (G->nfr >= MAX_FRAMES)
        return kerr(G->c, node->path, "more than %d while-loop frames", MAX_FRAMES);
    G->fr = xreallocarray(G->fr, (size_t)G->nfr + 1, sizeof *G->fr);
    G->fr[G->nfr] = (struct tframe){.name = xstrdup(nm), .parent = NOFRAME,
                                    .enter = (int)(node - G->n)};
    node->frame = G->nfr++;
    return ST_OK;
}

/* The frame node runs in given its inputs' (NOFRAME: not known yet). */
static enum status place(struct gctx *G, struct gnode *node, int *want, bool *parent_set)
{
    *want = NOFRAME;
    if (node->is_const || is(node, "NoOp"))
        return ST_OK;
    if (is(node, "Placeholder")) {
        *want = -1;
        return ST_OK;
    }
    struct gnode *s0 = tg_raw_input(G, node, 0);
    if (is(node, "Enter")) {
        *want = node->frame;
        struct tframe *F = &G->fr[node->frame];
        if (s0 && !s0->is_const && s0->frame != NOFRAME) {
            if (F->parent == NOFRAME)
                F->parent = s0->frame, *parent_set = true;
            else if (F->parent != s0->frame)
                return kerr(G->c, node->path, "Enter '%s' enters frame '%s' from %s, another Enter "
                            "of that frame from %s", node->name, F->name, where(G, s0->frame),
                            where(G, F->parent));
        }
        return ST_OK;
    }
    if (is(node, "Exit")) {
        if (!s0 || s0->is_const || s0->frame == -1)
            return kerr(G->c, node->path, "input[0]: Exit '%s' reads '%s', which is in no "
                        "while-loop frame (no Enter leads to it)", node->name,
                        node->n_in ? node->in[0] : "nothing");
        if (s0->frame >= 0 && G->fr[s0->frame].parent != NOFRAME)
            *want = G->fr[s0->frame].parent;
        return ST_OK;
    }
    const struct gnode *from = NULL;
    for (int k = 0; k < node->n_in; k++) {
        struct gnode *s = tg_raw_input(G, node, k);
        if (s->is_const || s->frame == NOFRAME)
            continue;
        if (!from) {
            from = s;
            *want = s->frame;
        } else if (s->frame != *want) {
            return kerr(G->c, node->path, "node '%s' (op %s) reads '%s' in %s%s%s and '%s' in "
                        "%s%s%s: a node runs in one while-loop frame", node->name, node->op,
                        from->name, *want >= 0 ? "frame '" : "", where(G, *want),
                        *want >= 0 ? "'" : "", s->name, s->frame >= 0 ? "frame '" : "",
                        where(G, s->frame), s->frame >= 0 ? "'" : "");
        }
    }
    return ST_OK;
}

static unsigned long n_visits;

unsigned long tg_frame_visits(void)
{
    return n_visits;
}

void tg_frame_visit(unsigned long n)
{
    n_visits += n;
}

struct work {
    int *q;
    unsigned char *in;
    int head, count, cap;
    int *exits, n_exits; /* every Exit node, in index order */
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
    (void)G;
    n_visits += (unsigned long)w->n_exits;
    for (int k = 0; k < w->n_exits; k++)
        push(w, w->exits[k]);
}

static enum status drain(struct gctx *G, struct work *w)
{
    while (w->count) {
        int i = w->q[w->head];
        w->head = (w->head + 1) % w->cap;
        w->count--;
        w->in[i] = 0;
        struct gnode *node = &G->n[i];
        int want;
        bool parent_set = false;
        enum status st = place(G, node, &want, &parent_set);
        if (st)
            return st;
        if (parent_set)
            push_exits(G, w); /* a frame's parent became known */
        if (want == NOFRAME || node->frame == want)
            continue;
        if (node->frame != NOFRAME)
            return kerr(G->c, node->path, "node '%s' (op %s) runs in %s and in %s", node->name,
                        node->op, where(G, node->frame), where(G, want));
        node->frame = want;
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
        struct gnode *node = &G->n[i];
        struct gnode *c = node->ctl ? tg_node_named(G, node->ctl) : NULL;
        if (node->frame == NOFRAME && !node->is_const && c && c->frame != NOFRAME) {
            node->frame = c->frame;
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
                     .cap = G->nn, .exits = xmalloc(sizeof *w.exits * (size_t)G->nn)};
    for (int i = 0; i < G->nn; i++) {
        push(&w, i);
        if (is(&G->n[i], "Exit"))
            w.exits[w.n_exits++] = i;
    }
    for (int round = 0; !st && round < 64; round++)
        if ((st = drain(G, &w)) || !settle(G, &w))
            break;
    free(w.q);
    free(w.in);
    free(w.exits);
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

/* The value node passes on through Identity and Switch nodes. */
struct gnode *tg_through(struct gctx *G, struct gnode *node)
{
    for (int k = 0;
         k < 64 && node && node->n_in >= 1 && (is(node, "Identity") || is(node, "Switch")); k++)
        node = tg_raw_input(G, node, 0);
    return node;
}

/* A loop value's Merge: its Enter (*e) and NextIteration (*ni) inputs. */
bool tg_loop_merge(struct gctx *G, struct gnode *m, struct gnode **e, struct gnode **ni)
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

static enum status check_merge(struct gctx *G, struct gnode *node)
{
    if (node->n_in != 2)
        return kerr(G->c, node->path, "Merge '%s' has %d input%s; expected 2 (a loop value's Enter "
                    "and NextIteration, or the two branches of a cond)", node->name, node->n_in,
                    node->n_in == 1 ? "" : "s");
    struct gnode *a = tg_raw_input(G, node, 0), *b = tg_raw_input(G, node, 1), *e, *ni;
    bool loopish = is(a, "Enter") || is(b, "Enter") || is(a, "NextIteration") ||
                   is(b, "NextIteration");
    if (loopish && !tg_loop_merge(G, node, &e, &ni))
        return kerr(G->c, node->path, "Merge '%s' reads '%s' (op %s) and '%s' (op %s); a loop "
                    "value's Merge reads one Enter and one NextIteration", node->name, a->name,
                    a->op, b->name, b->op);
    return ST_OK;
}

static enum status check_next(struct gctx *G, struct gnode *node)
{
    int i = (int)(node - G->n);
    if (node->frame < 0)
        return kerr(G->c, node->path, "NextIteration '%s' is in no while-loop frame", node->name);
    if (G->cons_off[i + 1] == G->cons_off[i])
        return kerr(G->c, node->path, "NextIteration '%s' feeds no Merge: its value never reaches "
                    "the next iteration", node->name);
    for (int e = G->cons_off[i]; e < G->cons_off[i + 1]; e++) {
        struct gnode *c = &G->n[G->cons[e]];
        if (!is(c, "Merge"))
            return kerr(G->c, node->path, "NextIteration '%s' feeds '%s' (op %s); it may feed only "
                        "a Merge", node->name, c->name, c->op);
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
        if (!tg_loop_merge(G, m, &e, &ni))
            continue;
        struct gnode *src = tg_raw_input(G, e, 0), *set = tg_through(G, tg_raw_input(G, ni, 0));
        if (!is(src, "TensorListReserve") || !is(set, "TensorListSetItem") || set->n_in < 3 ||
            tg_through(G, tg_raw_input(G, set, 0)) != m || !only_set(G, i, set, 0))
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

/* Items 0..n-1 grouped by key[i] + 1 (0..nk-1), each group in index order:
 * group j is items[off[j] .. off[j + 1]). */
static void csr(const int *key, int n, int nk, int **off, int **items)
{
    *off = xcalloc((size_t)nk + 1, sizeof **off);
    *items = xmalloc(sizeof **items * ((size_t)n + 1));
    int *at = xmalloc(sizeof *at * ((size_t)nk + 1));
    for (int i = 0; i < n; i++)
        (*off)[key[i] + 2]++;
    for (int j = 0; j < nk; j++)
        (*off)[j + 1] += (*off)[j];
    memcpy(at, *off, sizeof *at * (size_t)nk);
    for (int i = 0; i < n; i++)
        (*items)[at[key[i] + 1]++] = i;
    free(at);
}

/* Each frame's nodes and nested frames, so a frame's work is its own. */
static void frame_lists(struct gctx *G)
{
    int *key = xmalloc(sizeof *key * ((size_t)G->nn + (size_t)G->nfr + 1));
    for (int i = 0; i < G->nn; i++)
        key[i] = G->n[i].frame;
    csr(key, G->nn, G->nfr + 1, &G->mem_off, &G->mem);
    for (int f = 0; f < G->nfr; f++)
        key[f] = G->fr[f].parent;
    csr(key, G->nfr, G->nfr + 1, &G->kid_off, &G->kids);
    free(key);
    G->unit = xmalloc(sizeof *G->unit * ((size_t)G->nn + 1));
    for (int i = 0; i < G->nn; i++)
        G->unit[i] = -1;
}

enum status tg_frames(struct gctx *G)
{
    enum status st = assign_frames(G);
    int *conds = xcalloc((size_t)G->nfr + 1, sizeof *conds);
    for (int i = 0; i < G->nn && !st; i++) {
        struct gnode *node = &G->n[i];
        if (is(node, "Merge"))
            st = check_merge(G, node);
        else if (is(node, "NextIteration"))
            st = check_next(G, node);
        else if (is(node, "LoopCond") && node->frame < 0)
            st = kerr(G->c, node->path, "LoopCond '%s' is in no while-loop frame", node->name);
        else if (is(node, "LoopCond"))
            conds[node->frame]++;
    }
    for (int f = 0; f < G->nfr && !st; f++)
        if (conds[f] != 1)
            st = kerr(G->c, G->n[G->fr[f].enter].path, "while-loop frame '%s' has %d LoopCond "
                      "nodes, expected 1", G->fr[f].name, conds[f]);
    free(conds);
    if (!st) {
        find_scans(G);
        frame_lists(G);
    }
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
static bool invariant(struct gctx *G, int f, struct gnode *node, int64_t *v)
{
    struct gnode *e, *ni;
    node = tg_through(G, node);
    if (node && node->is_const)
        return const_scalar(G, node, v);
    if (is(node, "Enter") && node->frame == f)
        return const_scalar(G, tg_raw_input(G, node, 0), v);
    if (tg_loop_merge(G, node, &e, &ni) && node->frame == f &&
        tg_through(G, tg_raw_input(G, ni, 0)) == node)
        return const_scalar(G, tg_raw_input(G, e, 0), v);
    return false;
}

/* A loop value of frame f starting at constant *c0, plus constant *step
 * each iteration. */
static bool counter(struct gctx *G, int f, struct gnode *node, int64_t *c0, int64_t *step)
{
    struct gnode *e, *ni;
    node = tg_through(G, node);
    if (!tg_loop_merge(G, node, &e, &ni) || node->frame != f ||
        !const_scalar(G, tg_raw_input(G, e, 0), c0))
        return false;
    struct gnode *add = tg_through(G, tg_raw_input(G, ni, 0));
    if (!(is(add, "Add") || is(add, "AddV2")) || add->n_in != 2)
        return false;
    for (int k = 0; k < 2; k++)
        if (tg_through(G, tg_raw_input(G, add, k)) == node &&
            invariant(G, f, tg_raw_input(G, add, 1 - k), step))
            return *step > 0;
    return false;
}

/* Folds loop condition node of frame f: true if it folds to a trip count
 * (*bound); otherwise *bound is a known upper bound or -1. */
bool tg_fold_trips(struct gctx *G, int f, struct gnode *node, int64_t *bound, int depth)
{
    *bound = -1;
    node = tg_through(G, node);
    if (!node || depth > 16)
        return false;
    if (is(node, "LogicalAnd") && node->n_in == 2) {
        int64_t a, b;
        bool fa = tg_fold_trips(G, f, tg_raw_input(G, node, 0), &a, depth + 1);
        bool fb = tg_fold_trips(G, f, tg_raw_input(G, node, 1), &b, depth + 1);
        *bound = a < 0 ? b : b < 0 || a < b ? a : b;
        return fa && fb;
    }
    bool less = is(node, "Less"), greater = is(node, "Greater");
    int64_t c0, step, n;
    if ((!less && !greater) || node->n_in != 2 ||
        !counter(G, f, tg_raw_input(G, node, less ? 0 : 1), &c0, &step) ||
        !invariant(G, f, tg_raw_input(G, node, less ? 1 : 0), &n))
        return false;
    *bound = n <= c0 ? 0 : (n - c0 + step - 1) / step;
    return true;
}
