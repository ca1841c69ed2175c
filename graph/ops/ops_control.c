/*
 * ops_control.c - shape and cost of the ONNX control-flow ops If, Loop and
 * Scan over their flattened bodies (ir.h struct body).
 *
 * A body's nodes are ordinary graph nodes whose parent is the control node;
 * graph_infer skips them in its walk and the control node's shape function
 * infers them at its turn (bodies read outer values, which the topological
 * order puts first), then sets the control node's outputs from the body's
 * outputs. Costs stay on the body nodes, scaled for the whole control node:
 *
 *   If    a condition that folds to a constant picks its branch; the other
 *         branch is marked NODE_NOT_RUN. Otherwise both are inferred, the
 *         branch with more FLOPs is costed and the other is NODE_NOT_RUN,
 *         and the If's note says so.
 *   Loop  body cost x trip count. The trip count is known when the trip
 *         input M folds and the loop condition is constant true (a `for`
 *         loop); otherwise it is the symbol "<loop name>.trips" (default 1,
 *         capped at M when M folds), which the user can bind like any dim.
 *   Scan  body cost x the length of the scanned axis (always known when the
 *         inputs' shapes are).
 *
 * Loop-carried values are inferred from their initial shapes; a carried
 * value whose shape changes between iterations is reported with a note.
 * The control node itself moves nothing (its cost is zero).
 */
#include <stdio.h>
#include <string.h>

#include "util/arena.h"
#include "graph/ops/op_infer.h"

/* Calls fn on every node of body b and, depth first, of the bodies nested
 * in it (graph_finalize keeps the lists; the nesting depth is bounded by
 * the readers). */
static void walk_body(struct graph *g, const struct body *b,
                      void (*fn)(struct node *n, void *arg), void *arg)
{
    for (int k = 0; k < b->n_nodes; k++) {
        struct node *n = &g->nodes[b->nodes[k]];
        fn(n, arg);
        for (int j = 0; j < n->n_body; j++)
            walk_body(g, &n->body[j], fn, arg);
    }
}

static void infer_body(struct infer_ctx *c, int br)
{
    const struct body *b = &c->n->body[br];
    for (int k = 0; k < b->n_nodes; k++) {
        struct infer_ctx cc = *c;
        cc.n = &c->g->nodes[b->nodes[k]];
        shape_infer_node(&cc);
    }
}

/* Infers body br keeping its first genuine error in *d (not in c's diag). */
static enum status infer_body_apart(struct infer_ctx *c, int br, struct diag *d)
{
    enum status err = ST_OK;
    struct infer_ctx cc = *c;
    diag_clear(d);
    cc.d = d;
    cc.first_err = &err;
    infer_body(&cc, br);
    return err;
}

static void add_flops(struct node *n, void *arg)
{
    if (n->state == NODE_OK)
        *(double *)arg += n->cost.flops + 1e-9 * n->cost.bytes_read;
}

static double body_flops(struct infer_ctx *c, int br)
{
    double f = 0;
    walk_body(c->g, &c->n->body[br], add_flops, &f);
    return f;
}

static const char *note_append(struct infer_ctx *c, const char *old, const char *add)
{
    return old ? arena_printf(c->a, "%s; %s", old, add) : arena_strdup(c->a, add);
}

static void set_not_run(struct node *n, void *arg)
{
    double params = n->cost.params, pbytes = n->cost.param_bytes;
    memset(&n->cost, 0, sizeof n->cost);
    n->cost.params = params; /* the weights are loaded whether or not it runs */
    n->cost.param_bytes = pbytes;
    n->state = NODE_NOT_RUN;
    n->note = arg;
}

/* Marks every node of body br NODE_NOT_RUN with note why. */
static void body_not_run(struct infer_ctx *c, int br, const char *why)
{
    walk_body(c->g, &c->n->body[br], set_not_run, (void *)why);
}

struct scale {
    struct infer_ctx *c;
    double f;
    const char *why;
};

static void scale_node(struct node *n, void *arg)
{
    const struct scale *sc = arg;
    n->cost.runs *= sc->f; /* an unsupported node still launches once per trip */
    if (n->state != NODE_OK)
        return;
    n->cost.macs *= sc->f;
    n->cost.flops *= sc->f;
    n->cost.bytes_read *= sc->f;
    n->cost.bytes_written *= sc->f;
    if (!n->n_body)
        n->note = note_append(sc->c, n->note, sc->why);
}

/* Multiplies the run-time cost and the runs of every node of body br by f. */
static void body_scale(struct infer_ctx *c, int br, double f, const char *why)
{
    struct scale sc = {c, f, why};
    walk_body(c->g, &c->n->body[br], scale_node, &sc);
}

/* Sets body input vi to shape s / dtype dt (s NULL or unknown: unknown). */
static void set_body_input(struct graph *g, int vi, const struct shape *s, enum dtype dt)
{
    struct value *v = &g->values[vi];
    memset(&v->shape, 0, sizeof v->shape);
    if (s && s->known)
        v->shape = *s;
    v->idtype = dt != DT_UNDEFINED ? dt : v->dtype;
    v->folded = NULL; /* varies per iteration */
    v->is_const = false;
}

static const char *branch_name(const struct node *n, int br)
{
    return n->body[br].label;
}

/* Output j of the control node copied from body value vi. */
static enum status out_from_body(struct infer_ctx *c, int j, int vi, int br, bool fold)
{
    const struct value *v = &c->g->values[vi];
    if (!v->shape.known)
        return shape_unsupported(c, "output %d of the '%s' body ('%s') has an unknown shape", j,
                                 branch_name(c->n, br), v->name);
    out_like(c, j, &v->shape, v->idtype);
    out_v(c, j)->folded = fold ? v->folded : NULL;
    out_v(c, j)->is_const = fold && v->is_const;
    return ST_OK;
}

static enum status check_bodies(struct infer_ctx *c, int want)
{
    if (c->n->n_body != want)
        return shape_fail(c, "has %d subgraph attribute(s), expected %d", c->n->n_body, want);
    return ST_OK;
}

/* ---- If ------------------------------------------------------------------ */

static int body_index(const struct node *n, const char *attr)
{
    for (int b = 0; b < n->n_body; b++)
        if (!strcmp(n->body[b].attr, attr))
            return b;
    return -1;
}

enum status shape_if(struct infer_ctx *c)
{
    enum status st = check_bodies(c, 2);
    if (st)
        return st;
    struct node *n = c->n;
    /* br[0]: then, br[1]: else, whatever order the file lists them in */
    int br[2] = {body_index(n, "then_branch"), body_index(n, "else_branch")};
    if (br[0] < 0 || br[1] < 0)
        return shape_fail(c, "has subgraphs '%s' and '%s', expected then_branch and else_branch",
                          n->body[0].attr, n->body[1].attr);
    for (int k = 0; k < 2; k++)
        if (n->body[br[k]].n_out != n->n_out)
            return shape_fail(c, "the '%s' branch has %d outputs, expected %d (the If's outputs)",
                              branch_name(n, br[k]), n->body[br[k]].n_out, n->n_out);
    const struct tconst *k = in_k(c, 0);
    int take;
    bool known = k && k->n == 1;
    if (known) {
        take = k_getf(k, 0) != 0.0 ? br[0] : br[1];
        infer_body(c, take);
        body_not_run(c, br[0] + br[1] - take,
                     arena_printf(c->a, "branch not taken: the condition of If '%s' folds to %s",
                                  n->name, take == br[0] ? "true" : "false"));
        c->note = arena_printf(c->a, "condition folds to %s: '%s' branch taken",
                               take == br[0] ? "true" : "false", branch_name(n, take));
    } else {
        /* a branch that cannot run with these shapes is not the one taken */
        struct diag d0, d1;
        enum status e0 = infer_body_apart(c, br[0], &d0), e1 = infer_body_apart(c, br[1], &d1);
        if (e0 && e1) {
            diag_set(c->d, d0.code, "%s", d0.msg);
            if (*c->first_err == ST_OK)
                *c->first_err = e0;
        }
        double f0 = body_flops(c, br[0]), f1 = body_flops(c, br[1]);
        take = (e0 && !e1) || (!e0 == !e1 && f1 > f0) ? br[1] : br[0];
        int other = br[0] + br[1] - take;
        const char *why;
        if (!e0 != !e1)
            why = arena_printf(c->a, "condition known only at run time: the '%s' branch cannot "
                               "run with these shapes (%s), so the '%s' branch is costed",
                               branch_name(n, other), e0 ? d0.msg : d1.msg,
                               branch_name(n, take));
        else
            why = arena_printf(c->a, "condition known only at run time: the more expensive '%s' "
                               "branch (%.4g FLOPs) is costed, not '%s' (%.4g FLOPs)",
                               branch_name(n, take), f1 > f0 ? f1 : f0, branch_name(n, other),
                               f1 > f0 ? f0 : f1);
        body_not_run(c, other, arena_printf(c->a, "not costed: If '%s': %s", n->name, why));
        c->note = why;
    }
    const char *note = c->note;
    for (int j = 0; j < n->n_out && !st; j++)
        st = out_from_body(c, j, n->body[take].out[j], take, known);
    if (!st)
        c->note = note;
    return st;
}

/* Output out of a Loop or Scan: scan output j of the body (value id v)
 * stacked over trips iterations along axis. */
static enum status stack_scan_output(struct infer_ctx *c, int j, int id, int out, int64_t axis,
                                     int64_t trips)
{
    const struct value *v = &c->g->values[id];
    if (!v->shape.known)
        return shape_unsupported(c, "scan output %d of the body ('%s') has an unknown shape", j,
                                 v->name);
    if (v->shape.rank >= IR_MAX_RANK)
        return shape_fail(c, "scan output %d has rank %d; stacked it would exceed %d", j,
                          v->shape.rank, IR_MAX_RANK);
    int ax;
    enum status st = norm_axis(c, axis, v->shape.rank + 1, &ax);
    if (st)
        return st;
    int64_t d[IR_MAX_RANK];
    for (int k = 0, i = 0; k <= v->shape.rank; k++)
        d[k] = k == ax ? trips : v->shape.d[i++];
    out_shape(c, out, v->shape.rank + 1, d, v->idtype);
    return ST_OK;
}

/* ---- Loop ---------------------------------------------------------------- */

/* Is the body's condition output constant true given a true input? */
static bool cond_static_true(const struct graph *g, const struct body *b)
{
    int vo = b->out[0];
    const struct value *v = &g->values[vo];
    if (v->folded && v->folded->n == 1)
        return k_getf(v->folded, 0) != 0.0;
    if (vo == b->in[1])
        return true;
    if (v->producer >= 0) {
        const struct node *p = &g->nodes[v->producer];
        if (p->op == OP_Identity && p->n_in == 1 && p->in[0] == b->in[1])
            return true;
    }
    return false;
}

/* Trip count of the Loop being inferred; *note says where it came from. */
static int64_t loop_trips(struct infer_ctx *c, const struct body *b, const char **note)
{
    const struct tconst *m = in_k(c, 0), *cond = in_k(c, 1);
    bool has_m = m && m->n == 1;
    int64_t mv = has_m ? k_geti(m, 0) : 0;
    if (has_m && mv < 0)
        mv = 0;
    bool cond_in_known = !in_v(c, 1) || (cond && cond->n == 1);
    bool cond_true = !in_v(c, 1) || (cond && cond->n == 1 && k_getf(cond, 0) != 0.0);
    if (cond_in_known && !cond_true) {
        *note = "the loop condition folds to false: the body never runs";
        return 0;
    }
    if (has_m && cond_in_known && cond_static_true(c->g, b)) {
        *note = arena_printf(c->a, "trip count %lld (folded)", (long long)mv);
        return mv;
    }
    const char *sname = arena_printf(c->a, "%s.trips", c->n->name);
    int si = graph_sym_find(c->g, sname);
    int64_t t = si >= 0 ? c->g->syms[si].val : 1;
    if (has_m && mv < t)
        t = mv;
    const char *why = !in_v(c, 0) || !has_m ? "no constant trip count"
                                            : "the condition is computed in the body";
    if (si >= 0)
        *note = arena_printf(c->a, "trip count known only at run time (%s): symbol '%s' = %lld "
                             "(default %lld%s)", why, sname, (long long)t,
                             (long long)c->g->syms[si].def,
                             has_m ? ", at most the trip input" : "");
    else
        *note = arena_printf(c->a, "trip count known only at run time (%s): 1 assumed", why);
    return t;
}

enum status shape_loop(struct infer_ctx *c)
{
    enum status st = check_bodies(c, 1);
    if (st)
        return st;
    struct node *n = c->n;
    const struct body *b = &n->body[0];
    int nc = n->n_in - 2; /* loop-carried values */
    if (nc < 0)
        nc = 0;
    int ks = b->n_out - 1 - nc; /* scan outputs */
    if (b->n_in != 2 + nc)
        return shape_fail(c, "body has %d inputs, expected %d (iteration number, condition and "
                          "%d loop-carried value(s))", b->n_in, 2 + nc, nc);
    if (ks < 0 || n->n_out != nc + ks)
        return shape_fail(c, "body has %d outputs and the Loop %d; expected the body to give the "
                          "condition, %d carried value(s) and one scan output per Loop output "
                          "beyond them", b->n_out, n->n_out, nc);
    struct shape scalar = {.known = true, .rank = 0};
    set_body_input(c->g, b->in[0], &scalar, DT_INT64);
    set_body_input(c->g, b->in[1], &scalar, DT_BOOL);
    for (int j = 0; j < nc; j++)
        set_body_input(c->g, b->in[2 + j], in_s(c, 2 + j), in_dt(c, 2 + j));
    infer_body(c, 0);
    const char *note = NULL;
    int64_t trips = loop_trips(c, b, &note);
    body_scale(c, 0, (double)trips,
               arena_printf(c->a, "x%lld iterations of Loop '%s'", (long long)trips, n->name));
    for (int j = 0; j < nc && !st; j++) {
        st = out_from_body(c, j, b->out[1 + j], 0, false);
        const struct shape *s0 = in_s(c, 2 + j), *s1 = &out_v(c, j)->shape;
        if (!st && s0 && s0->known &&
            (s0->rank != s1->rank || memcmp(s0->d, s1->d, sizeof(int64_t) * (size_t)s0->rank)))
            note = arena_printf(c->a, "%s; carried value %d changes shape in the body (shown "
                                "after one iteration)", note, j);
    }
    for (int j = 0; j < ks && !st; j++)
        if ((st = stack_scan_output(c, j, b->out[1 + nc + j], nc + j, 0, trips)))
            return st;
    for (int j = 0; j < n->n_out; j++)
        out_v(c, j)->is_const = false;
    if (!st)
        c->note = note;
    return st;
}

/* ---- Scan ---------------------------------------------------------------- */

static enum status scan_axes(struct infer_ctx *c, const char *attr, int n, int64_t *ax)
{
    int64_t buf[64];
    int k = attr_ints(c->n, attr, buf, 64);
    if (k && k != n)
        return shape_fail(c, "attribute %s has %d entries, expected %d", attr, k, n);
    for (int i = 0; i < n; i++)
        ax[i] = k ? buf[i] : 0;
    return ST_OK;
}

enum status shape_scan(struct infer_ctx *c)
{
    enum status st = check_bodies(c, 1);
    if (st)
        return st;
    if (c->opset < 9)
        return shape_unsupported(c, "Scan before opset 9 (with sequence_lens and a batch axis) "
                                 "is not covered");
    struct node *n = c->n;
    const struct body *b = &n->body[0];
    int64_t m = node_attr_int(n, "num_scan_inputs", -1);
    if (!node_attr(n, "num_scan_inputs"))
        return shape_fail(c, "attribute num_scan_inputs is missing, expected the number of "
                          "scanned inputs");
    int ns = n->n_in - (int)m, ks = b->n_out - ns;
    if (m < 1 || m > n->n_in || m > 64 || b->n_in != n->n_in || ks < 0 || ks > 64 ||
        n->n_out != b->n_out)
        return shape_fail(c, "num_scan_inputs %lld with %d inputs, a body of %d inputs and %d "
                          "outputs and %d outputs do not match (expected body inputs = inputs, "
                          "outputs = body outputs)", (long long)m, n->n_in, b->n_in, b->n_out,
                          n->n_out);
    int64_t iax[64], oax[64];
    if ((st = scan_axes(c, "scan_input_axes", (int)m, iax)) ||
        (st = scan_axes(c, "scan_output_axes", ks, oax)))
        return st;
    int64_t trips = -1;
    for (int i = 0; i < ns; i++)
        set_body_input(c->g, b->in[i], in_s(c, i), in_dt(c, i));
    for (int i = 0; i < m; i++) {
        const struct shape *s = in_s(c, ns + i);
        if (!s || !s->known) {
            set_body_input(c->g, b->in[ns + i], NULL, in_dt(c, ns + i));
            continue;
        }
        int ax;
        if ((st = norm_axis(c, iax[i], s->rank, &ax)))
            return st;
        if (trips >= 0 && s->d[ax] != trips)
            return shape_fail(c, "scan input %d has %lld steps along axis %d, expected %lld like "
                              "the first scan input", i, (long long)s->d[ax], ax,
                              (long long)trips);
        trips = s->d[ax];
        struct shape slice = {.known = true, .rank = s->rank - 1};
        for (int k = 0, o = 0; k < s->rank; k++)
            if (k != ax)
                slice.d[o++] = s->d[k];
        set_body_input(c->g, b->in[ns + i], &slice, in_dt(c, ns + i));
    }
    infer_body(c, 0);
    if (trips < 0)
        return shape_unsupported(c, "no scan input has a known shape: the step count is unknown");
    body_scale(c, 0, (double)trips,
               arena_printf(c->a, "x%lld steps of Scan '%s'", (long long)trips, n->name));
    for (int j = 0; j < ns && !st; j++)
        st = out_from_body(c, j, b->out[j], 0, false);
    for (int j = 0; j < ks && !st; j++)
        if ((st = stack_scan_output(c, j, b->out[ns + j], ns + j, oax[j], trips)))
            return st;
    for (int j = 0; j < n->n_out; j++)
        out_v(c, j)->is_const = false;
    if (!st)
        c->note = arena_printf(c->a, "%lld steps", (long long)trips);
    return st;
}
