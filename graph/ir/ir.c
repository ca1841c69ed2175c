/* ir.c - graph construction, attributes, symbols and queries. Validation and
 * topological order live in topo.c. */
#include "graph/ir/ir.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "util/strmap.h"
#include "util/xalloc.h"

/* ---- dtypes ------------------------------------------------------------ */

static const struct {
    const char *name;
    int size;
    bool is_float;
} dtype_table[DT__COUNT] = {
    [DT_UNDEFINED] = {"undefined", 4, false}, [DT_FLOAT] = {"float32", 4, true},
    [DT_UINT8] = {"uint8", 1, false},         [DT_INT8] = {"int8", 1, false},
    [DT_UINT16] = {"uint16", 2, false},       [DT_INT16] = {"int16", 2, false},
    [DT_INT32] = {"int32", 4, false},         [DT_INT64] = {"int64", 8, false},
    [DT_STRING] = {"string", 8, false},       [DT_BOOL] = {"bool", 1, false},
    [DT_FLOAT16] = {"float16", 2, true},      [DT_DOUBLE] = {"float64", 8, true},
    [DT_UINT32] = {"uint32", 4, false},       [DT_UINT64] = {"uint64", 8, false},
    [DT_COMPLEX64] = {"complex64", 8, true},  [DT_COMPLEX128] = {"complex128", 16, true},
    [DT_BFLOAT16] = {"bfloat16", 2, true},    [DT_FLOAT8E4M3FN] = {"float8e4m3fn", 1, true},
    [DT_FLOAT8E4M3FNUZ] = {"float8e4m3fnuz", 1, true},
    [DT_FLOAT8E5M2] = {"float8e5m2", 1, true}, [DT_FLOAT8E5M2FNUZ] = {"float8e5m2fnuz", 1, true},
    [DT_UINT4] = {"uint4", 1, false},         [DT_INT4] = {"int4", 1, false},
    [DT_FLOAT4E2M1] = {"float4e2m1", 1, true},
};

int dtype_size(enum dtype dt)
{
    return (unsigned)dt < DT__COUNT ? dtype_table[dt].size : 4;
}

const char *dtype_name(enum dtype dt)
{
    return (unsigned)dt < DT__COUNT ? dtype_table[dt].name : "undefined";
}

bool dtype_is_float(enum dtype dt)
{
    return (unsigned)dt < DT__COUNT && dtype_table[dt].is_float;
}

bool dtype_from_name(const char *s, enum dtype *out)
{
    static const struct {
        const char *alias;
        enum dtype dt;
    } aliases[] = {{"float", DT_FLOAT}, {"fp32", DT_FLOAT}, {"half", DT_FLOAT16},
                   {"fp16", DT_FLOAT16}, {"bf16", DT_BFLOAT16}, {"double", DT_DOUBLE},
                   {"int", DT_INT32}, {"long", DT_INT64}};
    for (int i = 1; i < DT__COUNT; i++)
        if (strcmp(s, dtype_table[i].name) == 0) {
            *out = (enum dtype)i;
            return true;
        }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(s, aliases[i].alias) == 0) {
            *out = aliases[i].dt;
            return true;
        }
    return false;
}

const char *attr_type_name(enum attr_type t)
{
    static const char *const names[] = {"int", "float", "string", "ints", "floats",
                                        "strings", "tensor", "graph"};
    _Static_assert(sizeof names / sizeof names[0] == ATTR__COUNT, "attr type names");
    return (unsigned)t < ATTR__COUNT ? names[t] : "?";
}

/* ---- construction ------------------------------------------------------ */

struct graph *graph_new(const char *name)
{
    struct graph *g = xcalloc(1, sizeof *g);
    g->arena = arena_new();
    g->names = strmap_new();
    g->sym_names = strmap_new();
    g->name = arena_strdup(g->arena, name ? name : "model");
    g->format = "unknown";
    return g;
}

void graph_free(struct graph *g)
{
    if (!g)
        return;
    free(g->nodes);
    free(g->values);
    free(g->syms);
    free(g->infer_syms);
    free(g->inputs);
    free(g->outputs);
    free(g->topo);
    strmap_free(g->names);
    strmap_free(g->sym_names);
    arena_free(g->scratch);
    arena_free(g->arena);
    free(g);
}

void graph_reserve(struct graph *g, int nodes, int values)
{
    if (nodes > g->cap_nodes) {
        g->cap_nodes = nodes;
        g->nodes = xreallocarray(g->nodes, (size_t)g->cap_nodes, sizeof *g->nodes);
    }
    if (values > g->cap_values) {
        g->cap_values = values;
        g->values = xreallocarray(g->values, (size_t)g->cap_values, sizeof *g->values);
        strmap_reserve(g->names, (size_t)values);
    }
}

const char *graph_strdup(struct graph *g, const char *s)
{
    return arena_strdup(g->arena, s);
}

int graph_value_find(const struct graph *g, const char *name)
{
    int vi;
    return strmap_get(g->names, name, &vi) ? vi : -1;
}

int graph_value_get(struct graph *g, const char *name)
{
    unsigned h = strmap_hash(name);
    int vi;
    if (strmap_get_h(g->names, name, h, &vi))
        return vi;
    if (g->n_values == g->cap_values) {
        g->cap_values = g->cap_values ? g->cap_values * 2 : 64;
        g->values = xreallocarray(g->values, (size_t)g->cap_values, sizeof *g->values);
    }
    vi = g->n_values++;
    struct value *v = &g->values[vi];
    memset(v, 0, sizeof *v);
    v->name = arena_strdup(g->arena, name);
    v->rank = -1;
    v->producer = -1;
    strmap_put_h(g->names, v->name, h, vi);
    g->finalized = false;
    return vi;
}

void graph_value_set_type(struct graph *g, int vi, enum dtype dt, int rank, const struct dim *dims)
{
    CHECK(vi >= 0 && vi < g->n_values && rank <= IR_MAX_RANK);
    struct value *v = &g->values[vi];
    v->dtype = dt;
    v->rank = rank;
    v->dims = NULL;
    if (rank > 0) {
        v->dims = arena_alloc(g->arena, sizeof(struct dim) * (size_t)rank);
        memcpy(v->dims, dims, sizeof(struct dim) * (size_t)rank);
    }
}

static struct tconst *tconst_copy(struct arena *a, const struct tconst *t)
{
    struct tconst *c = arena_alloc(a, sizeof *c);
    *c = *t;
    if (t->i64 && t->n > 0) {
        c->i64 = arena_alloc(a, sizeof(int64_t) * (size_t)t->n);
        memcpy(c->i64, t->i64, sizeof(int64_t) * (size_t)t->n);
    }
    if (t->f64 && t->n > 0) {
        c->f64 = arena_alloc(a, sizeof(double) * (size_t)t->n);
        memcpy(c->f64, t->f64, sizeof(double) * (size_t)t->n);
    }
    return c;
}

void graph_value_set_data(struct graph *g, int vi, const struct tconst *t)
{
    CHECK(vi >= 0 && vi < g->n_values);
    g->values[vi].data = tconst_copy(g->arena, t);
}

static void push_index(int **arr, int *n, int v)
{
    *arr = xreallocarray(*arr, (size_t)*n + 1, sizeof **arr);
    (*arr)[(*n)++] = v;
}

void graph_input_add(struct graph *g, int vi)
{
    g->values[vi].flags |= VAL_INPUT;
    push_index(&g->inputs, &g->n_inputs, vi);
}

void graph_output_add(struct graph *g, int vi)
{
    g->values[vi].flags |= VAL_OUTPUT;
    push_index(&g->outputs, &g->n_outputs, vi);
}

void graph_init_add(struct graph *g, int vi)
{
    g->values[vi].flags |= VAL_INIT;
}

/* The node shared by both ways of adding one: op_type and domain are
 * arena copies or static strings. */
static int node_push(struct graph *g, const char *op_type, const char *domain, enum op op,
                     const char *name, const int *in, int n_in, const int *out, int n_out)
{
    if (g->n_nodes == g->cap_nodes) {
        g->cap_nodes = g->cap_nodes ? g->cap_nodes * 2 : 64;
        g->nodes = xreallocarray(g->nodes, (size_t)g->cap_nodes, sizeof *g->nodes);
    }
    int ni = g->n_nodes++;
    struct node *n = &g->nodes[ni];
    memset(n, 0, sizeof *n);
    n->parent = -1;
    n->op_type = op_type;
    n->domain = domain;
    n->name = name && *name ? arena_strdup(g->arena, name)
                            : arena_printf(g->arena, "%s_%d", op_type, ni);
    n->op = op;
    n->n_in = n_in;
    n->n_out = n_out;
    n->in = arena_alloc(g->arena, sizeof(int) * (size_t)(n_in ? n_in : 1));
    n->out = arena_alloc(g->arena, sizeof(int) * (size_t)(n_out ? n_out : 1));
    if (n_in)
        memcpy(n->in, in, sizeof(int) * (size_t)n_in);
    if (n_out)
        memcpy(n->out, out, sizeof(int) * (size_t)n_out);
    g->finalized = false;
    return ni;
}

int graph_node_add(struct graph *g, enum op op, const char *name, const int *in, int n_in,
                   const int *out, int n_out)
{
    CHECK(op >= 0 && op < OP__COUNT);
    return node_push(g, op_name(op), "", op, name, in, n_in, out, n_out);
}

int graph_node_add_type(struct graph *g, const char *op_type, const char *domain,
                        const char *name, const int *in, int n_in, const int *out, int n_out)
{
    bool std_domain = !domain || !*domain || !strcmp(domain, "ai.onnx") ||
                      !strcmp(domain, "com.microsoft") || !strcmp(domain, "dippm");
    const char *type = arena_strdup(g->arena, op_type);
    const char *dom = arena_strdup(g->arena, domain ? domain : "");
    return node_push(g, type, dom, std_domain ? op_lookup(op_type) : OP__UNKNOWN, name, in, n_in,
                     out, n_out);
}

int graph_node_add_named(struct graph *g, enum op op, const char *name, const char *const *in,
                         int n_in, const char *const *out, int n_out)
{
    int iv[64], ov[64];
    CHECK(n_in <= 64 && n_out <= 64);
    for (int i = 0; i < n_in; i++)
        iv[i] = in[i] && *in[i] ? graph_value_get(g, in[i]) : -1;
    for (int i = 0; i < n_out; i++)
        ov[i] = graph_value_get(g, out[i]);
    return graph_node_add(g, op, name, iv, n_in, ov, n_out);
}

/* ---- control-flow bodies --------------------------------------------- */

static void arena_push_int(struct graph *g, int **arr, int *n, int v)
{
    int *old = *arr;
    *arr = arena_alloc(g->arena, sizeof(int) * (size_t)(*n + 1));
    if (*n)
        memcpy(*arr, old, sizeof(int) * (size_t)*n);
    (*arr)[(*n)++] = v;
}

int graph_body_add(struct graph *g, int node, const char *attr, const char *label)
{
    struct node *n = &g->nodes[node];
    struct body *old = n->body;
    n->body = arena_alloc(g->arena, sizeof(struct body) * (size_t)(n->n_body + 1));
    if (n->n_body)
        memcpy(n->body, old, sizeof(struct body) * (size_t)n->n_body);
    struct body *b = &n->body[n->n_body];
    memset(b, 0, sizeof *b);
    b->attr = arena_strdup(g->arena, attr);
    b->label = arena_strdup(g->arena, label);
    g->finalized = false;
    return n->n_body++;
}

void graph_body_input(struct graph *g, int node, int body, int vi)
{
    struct body *b = &g->nodes[node].body[body];
    g->values[vi].flags |= VAL_BODY_INPUT;
    arena_push_int(g, &b->in, &b->n_in, vi);
}

void graph_body_output(struct graph *g, int node, int body, int vi)
{
    struct body *b = &g->nodes[node].body[body];
    arena_push_int(g, &b->out, &b->n_out, vi);
}

void graph_body_node(struct graph *g, int parent, int body, int child)
{
    CHECK(parent != child && body >= 0 && body < g->nodes[parent].n_body);
    g->nodes[child].parent = parent;
    g->nodes[child].branch = body;
    g->finalized = false;
}

int graph_node_depth(const struct graph *g, int ni)
{
    int depth = 0;
    for (int p = g->nodes[ni].parent; p >= 0 && depth <= g->n_nodes; p = g->nodes[p].parent)
        depth++;
    return depth;
}

static struct attr *attr_push(struct graph *g, int node, const char *name, enum attr_type t)
{
    struct node *n = &g->nodes[node];
    struct attr *old = n->attrs;
    n->attrs = arena_alloc(g->arena, sizeof(struct attr) * (size_t)(n->n_attr + 1));
    if (n->n_attr)
        memcpy(n->attrs, old, sizeof(struct attr) * (size_t)n->n_attr);
    struct attr *a = &n->attrs[n->n_attr++];
    a->name = arena_strdup(g->arena, name);
    a->type = t;
    return a;
}

void graph_attr_int(struct graph *g, int node, const char *name, int64_t v)
{
    attr_push(g, node, name, ATTR_INT)->i = v;
}

void graph_attr_float(struct graph *g, int node, const char *name, double v)
{
    attr_push(g, node, name, ATTR_FLOAT)->f = v;
}

void graph_attr_string(struct graph *g, int node, const char *name, const char *v)
{
    attr_push(g, node, name, ATTR_STRING)->s = arena_strdup(g->arena, v);
}

void graph_attr_ints(struct graph *g, int node, const char *name, const int64_t *v, int n)
{
    struct attr *a = attr_push(g, node, name, ATTR_INTS);
    a->n = n;
    a->ints = arena_alloc(g->arena, sizeof(int64_t) * (size_t)(n ? n : 1));
    if (n)
        memcpy(a->ints, v, sizeof(int64_t) * (size_t)n);
}

void graph_attr_floats(struct graph *g, int node, const char *name, const double *v, int n)
{
    struct attr *a = attr_push(g, node, name, ATTR_FLOATS);
    a->n = n;
    a->floats = arena_alloc(g->arena, sizeof(double) * (size_t)(n ? n : 1));
    if (n)
        memcpy(a->floats, v, sizeof(double) * (size_t)n);
}

void graph_attr_strings(struct graph *g, int node, const char *name, const char *const *v, int n)
{
    struct attr *a = attr_push(g, node, name, ATTR_STRINGS);
    a->n = n;
    a->strings = arena_alloc(g->arena, sizeof(char *) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++)
        a->strings[i] = arena_strdup(g->arena, v[i]);
}

void graph_attr_tensor(struct graph *g, int node, const char *name, const struct tconst *t)
{
    attr_push(g, node, name, ATTR_TENSOR)->t = tconst_copy(g->arena, t);
}

void graph_attr_graph(struct graph *g, int node, const char *name)
{
    attr_push(g, node, name, ATTR_GRAPH);
}

/* ---- symbols ----------------------------------------------------------- */

int graph_sym_find(const struct graph *g, const char *name)
{
    int si;
    return strmap_get(g->sym_names, name, &si) ? si : -1;
}

int graph_sym_add(struct graph *g, const char *name, int64_t def)
{
    int si = graph_sym_find(g, name);
    if (si >= 0)
        return si;
    if (g->n_syms == g->cap_syms) {
        g->cap_syms = g->cap_syms ? g->cap_syms * 2 : 8;
        g->syms = xreallocarray(g->syms, (size_t)g->cap_syms, sizeof *g->syms);
    }
    si = g->n_syms++;
    g->syms[si].name = arena_strdup(g->arena, name);
    g->syms[si] = (struct symbol){.name = g->syms[si].name, .def = def, .val = def};
    strmap_put(g->sym_names, g->syms[si].name, si);
    return si;
}

enum status graph_sym_set(struct graph *g, const char *name, int64_t v, struct diag *d)
{
    int si = graph_sym_find(g, name);
    if (si < 0) {
        char list[256] = "";
        size_t len = 0;
        for (int i = 0; i < g->n_syms && len < sizeof list - 40; i++)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "",
                                    g->syms[i].name);
        return diag_set(d, ST_EUSAGE, "model '%s' has no symbol '%s' (symbols: %s)", g->name,
                        name, g->n_syms ? list : "none");
    }
    if (v < 1 || v > ((int64_t)1 << 31))
        return diag_set(d, ST_ERANGE, "symbol '%s' = %lld: expected 1 to 2147483648", name,
                        (long long)v);
    enum status st = graph_sym_check(g, si, v, d);
    if (st)
        return st;
    g->syms[si].val = v;
    g->inferred = false;
    return ST_OK;
}

enum status graph_sym_check(const struct graph *g, int si, int64_t v, struct diag *d)
{
    const struct symbol *s = &g->syms[si];
    const char *why = s->why ? s->why : "the model's limit";
    long long lv = (long long)v;
    if ((s->min && v < s->min) || (s->max && v > s->max)) {
        if (s->min == s->max)
            return diag_set(d, ST_ERANGE, "%s=%lld: the model takes only %lld: %s", s->name, lv,
                            (long long)s->min, why);
        if (s->min && s->max && s->min > 1)
            return diag_set(d, ST_ERANGE, "%s=%lld is outside %lld..%lld: %s", s->name, lv,
                            (long long)s->min, (long long)s->max, why);
        if (s->max && v > s->max)
            return diag_set(d, ST_ERANGE, "%s=%lld exceeds the maximum %lld: %s", s->name, lv,
                            (long long)s->max, why);
        return diag_set(d, ST_ERANGE, "%s=%lld is below the minimum %lld: %s", s->name, lv,
                        (long long)s->min, why);
    }
    if (s->multiple > 1 && v % s->multiple)
        return diag_set(d, ST_ERANGE, "%s=%lld is not a multiple of %lld: %s", s->name, lv,
                        (long long)s->multiple, why);
    return ST_OK;
}

void graph_sym_limit(struct graph *g, const char *name, int64_t min, int64_t max,
                     int64_t multiple, const char *why, ...)
{
    int si = graph_sym_find(g, name);
    if (si < 0)
        return;
    struct symbol *s = &g->syms[si];
    char buf[256];
    va_list ap;
    va_start(ap, why);
    vsnprintf(buf, sizeof buf, why, ap);
    va_end(ap);
    s->min = min;
    s->max = max;
    s->multiple = multiple;
    s->why = arena_strdup(g->arena, buf);
}

void graph_sym_reset(struct graph *g)
{
    for (int i = 0; i < g->n_syms; i++)
        g->syms[i].val = g->syms[i].def;
    g->inferred = false;
}

int graph_batch_sym(const struct graph *g)
{
    static const char *const names[] = {"batch", "N", "batch_size", "batch_dim"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        int si = graph_sym_find(g, names[i]);
        if (si >= 0)
            return si;
    }
    for (int i = 0; i < g->n_inputs; i++) {
        const struct value *v = &g->values[g->inputs[i]];
        if (v->flags & VAL_INIT)
            continue;
        if (v->rank > 0 && v->dims[0].sym >= 0)
            return v->dims[0].sym;
        break;
    }
    return -1;
}

int64_t graph_dim_value(const struct graph *g, const struct dim *dm)
{
    if (dm->sym >= 0)
        return dm->sym < g->n_syms ? g->syms[dm->sym].val : -1;
    return dm->v;
}

/* ---- attribute queries ------------------------------------------------- */

const struct attr *node_attr(const struct node *n, const char *name)
{
    for (int i = 0; i < n->n_attr; i++) /* the first letters first: a hot path */
        if (n->attrs[i].name[0] == name[0] && strcmp(n->attrs[i].name, name) == 0)
            return &n->attrs[i];
    return NULL;
}

int64_t node_attr_int(const struct node *n, const char *name, int64_t def)
{
    const struct attr *a = node_attr(n, name);
    if (!a)
        return def;
    if (a->type == ATTR_INT)
        return a->i;
    if (a->type == ATTR_FLOAT)
        return (int64_t)a->f;
    return def;
}

double node_attr_float(const struct node *n, const char *name, double def)
{
    const struct attr *a = node_attr(n, name);
    if (!a)
        return def;
    if (a->type == ATTR_FLOAT)
        return a->f;
    if (a->type == ATTR_INT)
        return (double)a->i;
    return def;
}

const char *node_attr_str(const struct node *n, const char *name, const char *def)
{
    const struct attr *a = node_attr(n, name);
    return a && a->type == ATTR_STRING ? a->s : def;
}

int node_attr_ints(const struct node *n, const char *name, const int64_t **out)
{
    const struct attr *a = node_attr(n, name);
    if (!a || a->type != ATTR_INTS) {
        *out = NULL;
        return 0;
    }
    *out = a->ints;
    return a->n;
}

/* ---- summaries --------------------------------------------------------- */

static int cmp_count(const void *a, const void *b)
{
    const struct op_count *x = a, *y = b;
    if (x->count != y->count)
        return y->count - x->count;
    return strcmp(x->op_type, y->op_type);
}

int graph_op_histogram(const struct graph *g, struct op_count *out, int max)
{
    struct strmap *m = strmap_new();
    struct op_count *all = xcalloc((size_t)g->n_nodes + 1, sizeof *all);
    int n = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        int k;
        if (strmap_get(m, g->nodes[i].op_type, &k)) {
            all[k].count++;
        } else {
            strmap_put(m, g->nodes[i].op_type, n);
            all[n].op_type = g->nodes[i].op_type;
            all[n].count = 1;
            n++;
        }
    }
    qsort(all, (size_t)n, sizeof *all, cmp_count);
    memcpy(out, all, sizeof *all * (size_t)(n < max ? n : max));
    free(all);
    strmap_free(m);
    return n;
}

int graph_edge_count(const struct graph *g)
{
    int e = 0;
    for (int i = 0; i < g->n_nodes; i++)
        for (int j = 0; j < g->nodes[i].n_in; j++)
            e += g->nodes[i].in[j] >= 0;
    return e;
}
