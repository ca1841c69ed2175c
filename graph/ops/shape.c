/* shape.c - graph_infer: the driver that walks the topological order, runs
 * each op's shape function (ops_*.c) and cost function (cost.c), plus the
 * helpers those functions share (input access, output writing, folding
 * tensors, broadcasting, axis and attribute-or-input arguments). */
#include "graph/ops/shape.h"
#include "util/jsonw.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "util/xalloc.h"
#include "graph/ops/op_infer.h"
#include "graph/ops/tokens.h"


/* Shape and cost functions and per-element FLOPs (op_infer.h). */
static const struct op_impl impl_table[] = {
#define X(name, min_in, max_in, cls, shape_fn, cost_fn, fl, flags) {shape_fn, cost_fn, fl},
#include "graph/ir/ops.def"
#undef X
};
_Static_assert(sizeof impl_table / sizeof impl_table[0] == OP__COUNT, "ops.def impl table");

const struct op_impl *op_impl_get(enum op op)
{
    return (unsigned)op < OP__COUNT ? &impl_table[op] : NULL;
}

/* ---- input access ------------------------------------------------------ */

const struct value *in_v(const struct infer_ctx *c, int i)
{
    if (i < 0 || i >= c->n->n_in || c->n->in[i] < 0)
        return NULL;
    return &c->g->values[c->n->in[i]];
}

const struct shape *in_s(const struct infer_ctx *c, int i)
{
    const struct value *v = in_v(c, i);
    return v ? &v->shape : NULL;
}

enum dtype in_dt(const struct infer_ctx *c, int i)
{
    const struct value *v = in_v(c, i);
    return v ? v->idtype : DT_UNDEFINED;
}

const struct tconst *in_k(const struct infer_ctx *c, int i)
{
    const struct value *v = in_v(c, i);
    return v ? v->folded : NULL;
}

struct value *out_v(const struct infer_ctx *c, int j)
{
    return &c->g->values[c->n->out[j]];
}

int64_t numel(const struct shape *s)
{
    int64_t n = 1;
    for (int i = 0; i < s->rank; i++)
        n *= s->d[i];
    return n;
}

void unravel(int64_t e, const struct shape *s, int64_t *co)
{
    for (int i = s->rank - 1; i >= 0; i--) {
        co[i] = s->d[i] ? e % s->d[i] : 0;
        e = s->d[i] ? e / s->d[i] : 0;
    }
}

bool dtype_is_int(enum dtype dt)
{
    switch (dt) {
    case DT_UINT8: case DT_INT8: case DT_UINT16: case DT_INT16: case DT_INT32: case DT_INT64:
    case DT_BOOL: case DT_UINT32: case DT_UINT64: case DT_UINT4: case DT_INT4:
        return true;
    default:
        return false;
    }
}

/* ---- output writing ---------------------------------------------------- */

void out_shape(struct infer_ctx *c, int j, int rank, const int64_t *d, enum dtype dt)
{
    if (j >= c->n->n_out)
        return; /* optional output not wired */
    struct value *v = out_v(c, j);
    v->shape.known = true;
    v->shape.rank = rank;
    for (int i = 0; i < rank; i++)
        v->shape.d[i] = d[i];
    v->idtype = dt != DT_UNDEFINED ? dt : v->dtype;
}

void out_like(struct infer_ctx *c, int j, const struct shape *s, enum dtype dt)
{
    out_shape(c, j, s->rank, s->d, dt);
}

void out_fold(struct infer_ctx *c, int j, struct tconst *k)
{
    if (j >= c->n->n_out || !k)
        return;
    out_shape(c, j, k->rank, k->dims, k->dt);
    out_v(c, j)->folded = k;
}

struct tconst *k_new(struct infer_ctx *c, enum dtype dt, int rank, const int64_t *dims)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++) {
        if (dims[i] < 0 || (dims[i] > 0 && n > FOLD_MAX_ELEMS / dims[i] + 1))
            return NULL;
        n *= dims[i];
    }
    if (n > FOLD_MAX_ELEMS)
        return NULL;
    struct tconst *k = arena_alloc(c->a, sizeof *k);
    k->dt = dt;
    k->rank = rank;
    for (int i = 0; i < rank; i++)
        k->dims[i] = dims[i];
    k->n = n;
    if (dtype_is_float(dt))
        k->f64 = arena_alloc(c->a, sizeof(double) * (size_t)(n ? n : 1));
    else
        k->i64 = arena_alloc(c->a, sizeof(int64_t) * (size_t)(n ? n : 1));
    return k;
}

double k_getf(const struct tconst *k, int64_t e)
{
    return k->f64 ? k->f64[e] : k->i64 ? (double)k->i64[e] : 0.0;
}

/* 2^63 as a double: the first value past INT64_MAX. */
#define I64_LIMIT 9223372036854775808.0

bool f64_to_i64(double v, int64_t *out)
{
    if (!(v >= -I64_LIMIT && v < I64_LIMIT)) /* NaN fails both */
        return false;
    *out = (int64_t)v;
    return true;
}

int64_t k_geti(const struct tconst *k, int64_t e)
{
    if (k->i64)
        return k->i64[e];
    if (!k->f64)
        return 0;
    int64_t v;
    if (f64_to_i64(k->f64[e], &v))
        return v;
    return isnan(k->f64[e]) ? 0 : k->f64[e] < 0 ? INT64_MIN : INT64_MAX;
}

void k_set(struct tconst *k, int64_t e, double v)
{
    if (k->f64)
        k->f64[e] = v;
    else if (k->dt == DT_BOOL)
        k->i64[e] = v != 0.0;
    else if (!f64_to_i64(trunc(v), &k->i64[e]))
        k->overflow = true;
}

void k_seti(struct tconst *k, int64_t e, int64_t v)
{
    if (k->f64)
        k->f64[e] = (double)v;
    else
        k->i64[e] = k->dt == DT_BOOL ? v != 0 : v;
}

/* ---- errors ------------------------------------------------------------ */

/* The node's note: the message of shape_fail or shape_unsupported. */
static const char *set_note(struct infer_ctx *c, const char *fmt, va_list ap)
{
    char msg[DIAG_MSG_MAX];
    vsnprintf(msg, sizeof msg, fmt, ap);
    return c->note = arena_strdup(c->a, msg);
}

enum status shape_fail(struct infer_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const char *msg = set_note(c, fmt, ap);
    va_end(ap);
    return diag_set(c->d, ST_ESHAPE, "node '%s' (%s): %s", c->n->name, c->n->op_type, msg);
}

enum status shape_refuse(struct infer_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const char *msg = set_note(c, fmt, ap);
    va_end(ap);
    return diag_set(c->d, ST_ERANGE, "%s", msg);
}

enum status shape_unsupported(struct infer_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_note(c, fmt, ap);
    va_end(ap);
    return ST_EUNSUPPORTED;
}

/* ---- shared helpers ---------------------------------------------------- */

enum status norm_axis(struct infer_ctx *c, int64_t axis, int rank, int *out)
{
    if (axis < -rank || axis >= (rank ? rank : 1))
        return shape_fail(c, "axis %lld out of range for rank %d, expected %d to %d",
                          (long long)axis, rank, -rank, rank ? rank - 1 : 0);
    *out = (int)(axis < 0 ? axis + rank : axis);
    return ST_OK;
}

enum status optional_axis(struct infer_ctx *c, const struct shape *x, int *a, int64_t *len)
{
    *a = -1;
    enum status st;
    if (node_attr(c->n, "axis") &&
        (st = norm_axis(c, node_attr_int(c->n, "axis", 0), x->rank, a)))
        return st;
    *len = *a >= 0 ? x->d[*a] : numel(x);
    return ST_OK;
}

void out_along_axis(struct infer_ctx *c, const struct shape *x, int a, int64_t n)
{
    struct shape o = *x;
    if (a >= 0) {
        o.d[a] = n;
    } else {
        o.rank = 1;
        o.d[0] = n;
    }
    out_like(c, 0, &o, in_dt(c, 0));
}

enum status broadcast(struct infer_ctx *c, const struct shape *a, const struct shape *b,
                      struct shape *out)
{
    int r = a->rank > b->rank ? a->rank : b->rank;
    struct shape o = {.known = true, .rank = r}; /* out may alias a or b */
    for (int i = 0; i < r; i++) {
        int ia = i - (r - a->rank), ib = i - (r - b->rank);
        int64_t x = ia >= 0 ? a->d[ia] : 1, y = ib >= 0 ? b->d[ib] : 1;
        if (x == y || y == 1)
            o.d[i] = x;
        else if (x == 1)
            o.d[i] = y;
        else {
            char sa[160], sb[160];
            return shape_fail(c, "cannot broadcast %s with %s: dim %d is %lld vs %lld, expected "
                              "equal sizes or 1", shape_str(a, sa, sizeof sa),
                              shape_str(b, sb, sizeof sb), i, (long long)x, (long long)y);
        }
    }
    *out = o;
    return ST_OK;
}

int attr_ints(const struct node *n, const char *name, int64_t *buf, int max)
{
    const int64_t *v;
    int k = node_attr_ints(n, name, &v);
    if (k > max)
        k = max;
    for (int i = 0; i < k; i++)
        buf[i] = v[i];
    if (k == 0) {
        /* a single int attribute where a list is expected */
        const struct attr *a = node_attr(n, name);
        if (a && a->type == ATTR_INT && max > 0) {
            buf[0] = a->i;
            return 1;
        }
    }
    return k;
}

enum status const_ints(struct infer_ctx *c, int i, const char *what, int64_t *buf, int max,
                       int *n)
{
    const struct tconst *k = in_k(c, i);
    if (!k && in_v(c, i)->is_const)
        return shape_unsupported(c, "input %d (%s) '%s' is a constant whose values the model "
                                 "file does not hold (only its shape)", i, what,
                                 in_v(c, i)->name);
    if (!k)
        return shape_unsupported(c, "input %d (%s) '%s' is computed at run time and could not "
                                 "be folded to a constant", i, what, in_v(c, i)->name);
    if (k->rank > 1)
        return shape_fail(c, "input %d (%s) has rank %d, expected a 1-D tensor", i, what,
                          k->rank);
    if (k->n > max)
        return shape_fail(c, "input %d (%s) has %lld elements, expected at most %d", i, what,
                          (long long)k->n, max);
    for (int64_t e = 0; e < k->n; e++)
        buf[e] = k_geti(k, e);
    *n = (int)k->n;
    return ST_OK;
}

enum status const_ints_per_dim(struct infer_ctx *c, int i, const char *what, int64_t *buf,
                               const char *note)
{
    int rank = in_s(c, 0)->rank, n;
    enum status st = const_ints(c, i, what, buf, IR_MAX_RANK, &n);
    if (st)
        return st;
    if (n != rank)
        return shape_fail(c, "%s has %d values, expected %d%s", what, n, rank, note);
    return ST_OK;
}

enum status const_shape(struct infer_ctx *c, int i, struct shape *s)
{
    *s = (struct shape){.known = true};
    return const_ints(c, i, "shape", s->d, IR_MAX_RANK, &s->rank);
}

enum status ints_arg(struct infer_ctx *c, int in_idx, const char *attr, int64_t *buf, int max,
                     int *n)
{
    if (in_v(c, in_idx))
        return const_ints(c, in_idx, attr, buf, max, n);
    const struct attr *a = node_attr(c->n, attr);
    if (!a) {
        *n = -1;
        return ST_OK;
    }
    *n = attr_ints(c->n, attr, buf, max);
    return ST_OK;
}

enum status need_rank(struct infer_ctx *c, int i, int lo, int hi)
{
    const struct shape *s = in_s(c, i);
    if (s->rank < lo || s->rank > hi) {
        if (lo == hi)
            return shape_fail(c, "input %d '%s' has rank %d, expected %d", i, in_v(c, i)->name,
                              s->rank, lo);
        return shape_fail(c, "input %d '%s' has rank %d, expected %d to %d", i,
                          in_v(c, i)->name, s->rank, lo, hi);
    }
    return ST_OK;
}

/* ---- the driver -------------------------------------------------------- */

/* Shape of a declared value under the current bindings; false if any dim
 * is unknown. */
static bool declared_shape(const struct graph *g, const struct value *v, struct shape *s)
{
    if (v->rank < 0)
        return false;
    s->rank = v->rank;
    for (int i = 0; i < v->rank; i++) {
        s->d[i] = graph_dim_value(g, &v->dims[i]);
        if (s->d[i] < 0)
            return false;
    }
    s->known = true;
    return true;
}

static void reset_values(struct graph *g)
{
    for (int vi = 0; vi < g->n_values; vi++) {
        struct value *v = &g->values[vi];
        memset(&v->shape, 0, sizeof v->shape);
        v->idtype = v->dtype;
        v->folded = NULL;
        v->is_const = false;
        v->seq_dims = 0;
        v->tok_scale = 1;
        if (v->producer >= 0)
            continue;
        v->is_const = (v->flags & VAL_INIT) || (v->data && !(v->flags & VAL_INPUT));
        if (v->data) {
            v->shape.known = true;
            v->shape.rank = v->data->rank;
            for (int i = 0; i < v->data->rank; i++)
                v->shape.d[i] = v->data->dims[i];
            if (v->idtype == DT_UNDEFINED)
                v->idtype = v->data->dt;
            if (v->data->i64 || v->data->f64 || v->data->n == 0)
                v->folded = v->data;
        } else {
            declared_shape(g, v, &v->shape);
        }
    }
}

/* An unsupported node whose outputs all carry declared concrete shapes
 * (ONNX value_info) still lets downstream nodes infer. */
static void use_declared_outputs(struct graph *g, const struct node *n)
{
    struct shape s[16];
    if (n->n_out > 16)
        return;
    for (int j = 0; j < n->n_out; j++)
        if (!declared_shape(g, &g->values[n->out[j]], &s[j]))
            return;
    for (int j = 0; j < n->n_out; j++)
        g->values[n->out[j]].shape = s[j];
}

bool op_is_control(enum op op)
{
    return op == OP_If || op == OP_Loop || op == OP_Scan;
}

void shape_infer_node(struct infer_ctx *c)
{
    enum status *first_err = c->first_err;
    struct graph *g = c->g;
    struct node *n = c->n;
    memset(&n->cost, 0, sizeof n->cost);
    n->cost.runs = 1;
    n->note = NULL;
    c->note = NULL;
    cost_params(c); /* parameters are known from declarations, whatever the state */
    /* a node fed only by initializers and constants is folded by runtimes */
    bool all_const = true;
    for (int i = 0; i < n->n_in; i++)
        if (in_v(c, i) && !in_v(c, i)->is_const)
            all_const = false;
    for (int j = 0; j < n->n_out; j++)
        out_v(c, j)->is_const = all_const;
    for (int i = 0; i < n->n_in && !op_is_control(n->op); i++) {
        const struct value *v = in_v(c, i);
        if (v && !v->shape.known) {
            n->state = NODE_UNKNOWN_INPUT;
            n->note = arena_printf(c->a, "input %d '%s' has an unknown shape", i, v->name);
            use_declared_outputs(g, n);
            return;
        }
    }
    const struct op_impl *im = op_impl_get(n->op);
    if (!im || !im->shape || (n->n_body && !op_is_control(n->op))) {
        n->state = NODE_UNSUPPORTED;
        n->note = arena_printf(c->a, "op %s%s%s is not in the catalogue", n->domain,
                               *n->domain ? "." : "", n->op_type);
        use_declared_outputs(g, n);
        return;
    }
    enum status st = attrs_check(c);
    for (int i = 0; i < n->n_in && !st; i++)
        if (in_dt(c, i) == DT_STRING && n->op != OP_Identity && n->op != OP_Cast &&
            n->op != OP_CastLike && n->op != OP_Shape && n->op != OP_Size)
            st = shape_fail(c, "input %d '%s' is a string tensor: its size in memory is not "
                            "known, so string tensors cannot be costed", i, in_v(c, i)->name);
    for (int i = 0; i < op_min_inputs(n->op) && !st; i++)
        if (!in_v(c, i))
            st = shape_fail(c, "input %d is omitted, expected a value (the op needs at least "
                            "%d inputs)", i, op_min_inputs(n->op));
    if (!st)
        st = im->shape(c);
    for (int j = 0; j < n->n_out && st == ST_OK; j++)
        if (out_v(c, j)->folded && out_v(c, j)->folded->overflow)
            st = shape_fail(c, "output %d '%s': integer overflow while folding constants (a "
                            "value outside the int64 range)", j, out_v(c, j)->name);
    for (int j = 0; j < n->n_out && st == ST_OK; j++) {
        const struct value *v = out_v(c, j);
        if (!v->shape.known) {
            st = shape_unsupported(c, "output %d '%s' is not produced by this op's shape "
                                   "function", j, v->name);
            break;
        }
        /* sizes from files are bounded, but products of them need not be */
        double elems = 1;
        for (int k = 0; k < v->shape.rank; k++) {
            if (v->shape.d[k] < 0)
                st = shape_fail(c, "output %d '%s' dim %d is %lld, expected >= 0", j, v->name,
                                k, (long long)v->shape.d[k]);
            elems *= (double)v->shape.d[k];
        }
        if (!st && elems > 9007199254740992.0)
            st = shape_fail(c, "output %d '%s' would hold %.3g elements, more than 2^53", j,
                            v->name, elems);
    }
    if (st != ST_OK) {
        if (st != ST_EUNSUPPORTED && *first_err == ST_OK)
            *first_err = st;
        n->state = NODE_UNSUPPORTED;
        n->note = c->note ? c->note : status_str(st);
        for (int j = 0; j < n->n_out; j++) {
            out_v(c, j)->shape.known = false;
            out_v(c, j)->folded = NULL;
        }
        use_declared_outputs(g, n);
        return;
    }
    n->state = NODE_OK;
    n->note = c->note; /* caveats such as data-dependent upper bounds */
    cost_node(c, im);
}

enum status graph_infer_pass(struct graph *g, struct diag *d)
{
    CHECK(g->finalized);
    arena_free(g->scratch);
    g->scratch = arena_new();
    reset_values(g);
    enum status first_err = ST_OK;
    struct infer_ctx c = {.g = g, .d = d, .a = g->scratch, .opset = g->opset ? g->opset : 21,
                          .first_err = &first_err};
    /* body nodes are inferred by their control node (ops_control.c); until
     * then they count as not reached */
    for (int ni = 0; ni < g->n_nodes; ni++) {
        struct node *n = &g->nodes[ni];
        if (n->parent < 0)
            continue;
        memset(&n->cost, 0, sizeof n->cost);
        n->cost.runs = 1;
        n->state = NODE_UNKNOWN_INPUT;
        n->note = arena_printf(g->scratch, "the enclosing %s '%s' could not be inferred",
                               g->nodes[n->parent].op_type, g->nodes[n->parent].name);
    }
    for (int t = 0; t < g->n_nodes; t++) {
        c.n = &g->nodes[g->topo[t]];
        if (c.n->parent < 0)
            shape_infer_node(&c);
    }
    cost_totals(g);
    g->inferred = true;
    free(g->infer_syms);
    g->infer_syms = NULL;
    g->infer_n_syms = 0;
    if (first_err == ST_OK && g->n_syms > 0) {
        g->infer_syms = xmalloc((size_t)g->n_syms * sizeof *g->infer_syms);
        for (int i = 0; i < g->n_syms; i++)
            g->infer_syms[i] = g->syms[i].val;
        g->infer_n_syms = g->n_syms;
    }
    return first_err;
}

enum status graph_infer(struct graph *g, struct diag *d)
{
    enum status st = g->tokens > 0 ? graph_tokens_infer(g, d) : graph_infer_pass(g, d);
    g->infer_tokens = st ? -1 : g->tokens;
    return st;
}

bool graph_infer_stale(const struct graph *g)
{
    if (!g->inferred || g->infer_n_syms != g->n_syms || (g->n_syms > 0 && !g->infer_syms) ||
        g->infer_tokens != g->tokens)
        return true;
    for (int i = 0; i < g->n_syms; i++)
        if (g->infer_syms[i] != g->syms[i].val)
            return true;
    return false;
}

/* ---- public helpers ---------------------------------------------------- */

void shape_json(struct jsonw *w, const struct shape *s)
{
    if (!s->known) {
        jsonw_null(w);
        return;
    }
    jsonw_arr_begin(w, true);
    for (int k = 0; k < s->rank; k++)
        jsonw_int(w, s->d[k]);
    jsonw_arr_end(w);
}

const char *shape_str(const struct shape *s, char *buf, int size)
{
    if (!s->known) {
        snprintf(buf, (size_t)size, "?");
        return buf;
    }
    int len = snprintf(buf, (size_t)size, "[");
    for (int i = 0; i < s->rank && len < size; i++)
        len += snprintf(buf + len, (size_t)(size - len), "%s%lld", i ? ", " : "",
                        (long long)s->d[i]);
    if (len < size)
        snprintf(buf + len, (size_t)(size - len), "]");
    return buf;
}

int64_t shape_numel(const struct shape *s)
{
    if (!s->known)
        return -1;
    return numel(s);
}
