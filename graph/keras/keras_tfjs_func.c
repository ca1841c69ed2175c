/*
 * keras_tfjs_func.c - TF2 functional control flow of TF.js graph models
 * (tensorflowjs_converter --control_flow_v2=True): While / StatelessWhile,
 * If / StatelessIf and PartitionedCall / StatefulPartitionedCall, whose
 * bodies are FunctionDefs in modelTopology.library.function:
 *
 *   {"signature": {"name", "inputArg": [{"name"}], "outputArg": [{"name"}]},
 *    "nodeDef": [nodes as in the graph, inputs "arg", "node:out_arg:k"],
 *    "ret": {"out_arg": "node:out_arg:k"}}
 *
 * A body is read like the graph itself (its Consts are weightsManifest
 * entries of the same names) with its arguments bound to IR values, once
 * per node that calls it:
 *   While(x...) {cond, body}  -> Loop: carried x..., body = the body
 *       function, then the cond function on its results (the condition for
 *       the next iteration); the trip count is the symbol "<node>.trips"
 *       (default 1), as for a Loop whose count does not fold
 *   If(c, x...) {then_branch, else_branch} -> If: each branch a function on
 *       x... (read from outside the branch)
 *   PartitionedCall(x...) {f} -> the function's nodes inline
 * Body nodes are named "<node>/body/...", "<node>/then/...", "<node>/else/...".
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/keras/keras_tfjs_impl.h"
#include "util/strmap.h"
#include "util/xalloc.h"

#define MAX_FUNC_DEPTH 16
#define MAX_ARGS 256
#define MAX_FUNC_NODES (1 << 18) /* over all calls: bodies calling bodies multiply */

struct tfuncs {
    struct strmap *byname; /* signature.name -> index into f */
    const cJSON **f;
};

static unsigned long n_looked_at;

unsigned long tg_funcs_looked_at(void)
{
    return n_looked_at;
}

void tg_funcs_index(struct gctx *G)
{
    if (!cJSON_IsArray(G->lib))
        return;
    struct tfuncs *t = xcalloc(1, sizeof *t);
    int n = cJSON_GetArraySize(G->lib), i = 0;
    t->byname = strmap_new();
    strmap_reserve(t->byname, (size_t)n);
    t->f = xcalloc((size_t)n + 1, sizeof *t->f);
    const cJSON *f;
    cJSON_ArrayForEach(f, G->lib) {
        n_looked_at++;
        const cJSON *sn = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(f, "signature"), "name");
        t->f[i] = f;
        if (cJSON_IsString(sn))
            strmap_add(t->byname, sn->valuestring, i, NULL);
        i++;
    }
    G->funcs = t;
}

void tg_funcs_free(struct gctx *G)
{
    if (!G->funcs)
        return;
    strmap_free(G->funcs->byname);
    free(G->funcs->f);
    free(G->funcs);
    G->funcs = NULL;
}

/* Function attr key of node ({"func": {"name"}}) looked up in the library. */
static enum status find_func(struct gctx *G, struct gnode *node, const char *key,
                             const cJSON **out)
{
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(tg_gattr(node, key), "func"), "name");
    if (!cJSON_IsString(nm))
        return kerr(G->c, node->path, "attr.%s.func.name: missing (node '%s', op %s names no "
                    "function)", key, node->name, node->op);
    int i;
    if (G->funcs && strmap_get(G->funcs->byname, nm->valuestring, &i)) {
        *out = G->funcs->f[i];
        return ST_OK;
    }
    return kerr(G->c, node->path, "attr.%s: function '%s' is not in "
                "modelTopology.library.function", key, nm->valuestring);
}

static const cJSON *sig_list(const cJSON *f, const char *key)
{
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(f, "signature"), key);
    return cJSON_IsArray(l) ? l : NULL;
}

/* Seeds the arguments of function f as done nodes of S holding args[];
 * an argument the caller passes a Const for (consts[k]) is that Const. */
static enum status bind_args(struct gctx *G, struct gctx *S, const cJSON *f, const char *fname,
                             const struct ktensor *args, struct gnode *const *consts,
                             int n_args)
{
    const cJSON *in = sig_list(f, "inputArg");
    int n = in ? cJSON_GetArraySize(in) : 0, k = 0;
    if (n != n_args)
        return kerr(G->c, "modelTopology.library.function", "function '%s' takes %d "
                    "argument%s, its caller passes %d", fname, n, n == 1 ? "" : "s", n_args);
    for (const cJSON *a = in ? in->child : NULL; a; a = a->next, k++) {
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(a, "name");
        int dup;
        if (!cJSON_IsString(nm) || strmap_get(S->byname, nm->valuestring, &dup))
            return kerr(G->c, "modelTopology.library.function", "function '%s': inputArg[%d] "
                        "has no name or one of its nodes' names", fname, k);
        struct gnode *node = &S->n[S->nn];
        *node = (struct gnode){.name = nm->valuestring, .op = "_Arg", .mw = -1, .done = true,
                            .frame = -1, .t = args[k]};
        snprintf(node->path, sizeof node->path, "%s.inputArg[%d]", fname, k);
        strmap_put(S->byname, node->name, S->nn++);
        if (consts && consts[k]) { /* named like the Const: one IR value for both */
            node->name = consts[k]->name;
            node->op = "Const";
            node->is_const = true;
            node->float_const = consts[k]->float_const;
            node->mw = consts[k]->mw;
        }
    }
    return ST_OK;
}

/* The ktensor (and IR value) a ret entry "node:out_arg:k" or "arg" names. */
static enum status ret_value(struct gctx *G, struct gctx *S, const char *fname, const char *ref,
                             struct ktensor *out)
{
    struct gnode *s = ref ? tg_node_named(S, ref) : NULL;
    int k = ref ? tg_out_index(ref) : -1;
    if (!s || k < 0 || (!s->is_const && k > s->n_xt) || (s->is_const && k > 0))
        return kerr(G->c, "modelTopology.library.function", "function '%s': ret '%s' names no "
                    "output of its nodes", fname, ref ? ref : "(missing)");
    struct gnode tmp = {.n_in = 1, .in = {ref}, .frame = -1, .name = fname, .op = "ret"};
    int v = tg_in_value(S, &tmp, 0);
    if (v < 0)
        return kerr(G->c, "modelTopology.library.function", "function '%s': ret '%s' names a "
                    "node that gives no value", fname, ref);
    *out = tg_in_tensor(S, &tmp, 0, v);
    return ST_OK;
}

/* Emits function f on args[] with IR names prefixed pre; out[] gets its
 * outputs (signature outputArg order), *n_out their count. */
static enum status instantiate(struct gctx *G, const cJSON *f, const char *pre,
                               const struct ktensor *args, struct gnode *const *consts,
                               int n_args, struct ktensor *out, int *n_out)
{
    const cJSON *sn = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(f, "signature"), "name");
    const char *fname = cJSON_IsString(sn) ? sn->valuestring : "?";
    if (G->depth >= MAX_FUNC_DEPTH)
        return kerr(G->c, "modelTopology.library.function", "function '%s': calls nested deeper "
                    "than %d", fname, MAX_FUNC_DEPTH);
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(f, "nodeDef");
    cJSON *empty = NULL;
    if (!nodes)
        nodes = empty = cJSON_CreateArray();
    char path[80];
    snprintf(path, sizeof path, "function '%.40s'", fname);
    int64_t budget = 0, *spent = G->budget ? G->budget : &budget;
    *spent += cJSON_GetArraySize(nodes) + 1;
    if (*spent > MAX_FUNC_NODES) {
        cJSON_Delete(empty);
        return kerr(G->c, path, "its calls expand to more than %d nodes", MAX_FUNC_NODES);
    }
    struct gctx S = {.c = G->c, .lib = G->lib, .funcs = G->funcs, .prefix = pre,
                     .depth = G->depth + 1, .budget = spent};
    enum status st = cJSON_IsArray(nodes)
                         ? tg_parse_nodes(&S, nodes, path, n_args)
                         : kerr(G->c, path, "nodeDef: expected an array of nodes");
    if (!st)
        st = bind_args(G, &S, f, fname, args, consts, n_args);
    if (!st)
        st = tg_link(&S);
    const cJSON *outs = sig_list(f, "outputArg"), *ret = cJSON_GetObjectItemCaseSensitive(f, "ret");
    *n_out = 0;
    for (const cJSON *o = outs ? outs->child : NULL; o && !st; o = o->next) {
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(o, "name");
        const cJSON *r = cJSON_IsString(nm) ? cJSON_GetObjectItemCaseSensitive(ret, nm->valuestring)
                                            : NULL;
        if (*n_out >= MAX_ARGS)
            st = kerr(G->c, path, "more than %d outputs", MAX_ARGS);
        else
            st = ret_value(G, &S, fname, cJSON_IsString(r) ? r->valuestring : NULL,
                           &out[(*n_out)++]);
    }
    tg_free(&S);
    cJSON_Delete(empty);
    return st;
}

/* Marks the nodes made since start (but Constants and nested bodies' nodes)
 * as nodes of body br of control node ctl. */
static void claim(struct gctx *G, int ctl, int br, int start)
{
    for (int ni = start; ni < G->c->g->n_nodes; ni++)
        if (ni != ctl && G->c->g->nodes[ni].parent < 0 &&
            G->c->g->nodes[ni].op != OP_Constant)
            graph_body_node(G->c->g, ctl, br, ni);
}

static const char *pre_of(struct gctx *G, struct gnode *node, const char *label)
{
    char buf[600];
    snprintf(buf, sizeof buf, "%s%s/%s/", G->prefix ? G->prefix : "", node->name, label);
    return graph_strdup(G->c->g, buf);
}

/* Node outputs: out[k] as output k of node, made IR values vals[k]. */
static void set_outputs(struct gnode *node, const struct ktensor *like, const int *vals, int n)
{
    for (int k = 0; k < n; k++) {
        struct ktensor *o = tg_out(node, k);
        *o = like[k];
        o->vn = vals[k];
        o->vcf = -1;
    }
}

static int new_values(struct gctx *G, struct gnode *node, int *v, int n)
{
    for (int k = 0; k < n; k++) {
        char sfx[24];
        snprintf(sfx, sizeof sfx, "out%d", k);
        v[k] = graph_value_get(G->c->g, tg_gname(G, node, k ? sfx : NULL));
    }
    return n;
}

static enum status emit_while(struct gctx *G, struct gnode *node, struct ktensor *a, int n)
{
    const cJSON *body, *cond;
    enum status st = find_func(G, node, "body", &body);
    if (!st)
        st = find_func(G, node, "cond", &cond);
    if (st)
        return st;
    int in[MAX_ARGS + 2], outs[MAX_ARGS], n_out;
    int64_t one = 1;
    in[0] = -1;
    in[1] = kx_const_i64(G->c, tg_gname(G, node, "cond_init"), &one, 1);
    for (int k = 0; k < n; k++)
        in[2 + k] = a[k].vn;
    new_values(G, node, outs, n);
    char nm[640];
    snprintf(nm, sizeof nm, "%s%s", G->prefix ? G->prefix : "", node->name);
    int ln = graph_node_add(G->c->g, OP_Loop, graph_strdup(G->c->g, nm), in, n + 2, outs, n);
    graph_body_add(G->c->g, ln, "body", "body");
    const char *pre = pre_of(G, node, "body");
    for (int k = -2; k < n; k++) { /* ':' is in no TF node name */
        snprintf(nm, sizeof nm, "%s%s:%s%d", G->prefix ? G->prefix : "", node->name,
                 k == -2 ? "iteration" : k == -1 ? "cond" : "in", k < 0 ? 0 : k);
        int v = graph_value_get(G->c->g, graph_strdup(G->c->g, nm));
        graph_body_input(G->c->g, ln, 0, v);
        if (k >= 0)
            a[k].vn = v, a[k].vcf = -1;
    }
    struct ktensor *r = xmalloc(sizeof *r * (MAX_ARGS + 1)), c1;
    int start = G->c->g->n_nodes, nc;
    st = instantiate(G, body, pre, a, NULL, n, r, &n_out);
    if (!st && n_out != n)
        st = kerr(G->c, node->path, "attr.body: the body function gives %d values for %d loop "
                  "values", n_out, n);
    if (!st)
        st = instantiate(G, cond, pre, r, NULL, n, &c1, &nc);
    if (!st && nc != 1)
        st = kerr(G->c, node->path, "attr.cond: the cond function gives %d values, expected 1", nc);
    if (!st) {
        graph_body_output(G->c->g, ln, 0, kx_val(G->c, &c1, false, pre));
        for (int k = 0; k < n; k++)
            graph_body_output(G->c->g, ln, 0, kx_val(G->c, &r[k], false, pre));
        claim(G, ln, 0, start);
        set_outputs(node, r, outs, n);
        snprintf(nm, sizeof nm, "%s.trips", G->c->g->nodes[ln].name);
        graph_sym_add(G->c->g, graph_strdup(G->c->g, nm), 1);
    }
    free(r);
    return st;
}

static enum status emit_if(struct gctx *G, struct gnode *node, struct ktensor *a,
                           struct gnode *const *consts, int n)
{
    const cJSON *br[2];
    enum status st = find_func(G, node, "then_branch", &br[0]);
    if (!st)
        st = find_func(G, node, "else_branch", &br[1]);
    if (st)
        return st;
    char nm[640];
    snprintf(nm, sizeof nm, "%s%s", G->prefix ? G->prefix : "", node->name);
    const cJSON *outs = sig_list(br[0], "outputArg");
    int n_out = outs ? cJSON_GetArraySize(outs) : 0, vals[MAX_ARGS], cond = a[0].vn;
    if (n_out > MAX_ARGS)
        return kerr(G->c, node->path, "attr.then_branch: more than %d outputs", MAX_ARGS);
    new_values(G, node, vals, n_out);
    int ni = graph_node_add(G->c->g, OP_If, graph_strdup(G->c->g, nm), &cond, 1, vals, n_out);
    struct ktensor *r = xmalloc(sizeof *r * (MAX_ARGS + 1));
    static const char *const attr[2] = {"then_branch", "else_branch"}, *label[2] = {"then", "else"};
    for (int b = 0; b < 2 && !st; b++) {
        int bi = graph_body_add(G->c->g, ni, attr[b], label[b]), start = G->c->g->n_nodes, got;
        const char *pre = pre_of(G, node, label[b]);
        st = instantiate(G, br[b], pre, a + 1, consts + 1, n - 1, r, &got);
        if (!st && got != n_out)
            st = kerr(G->c, node->path, "attr.%s: the branch gives %d values, the then_branch %d",
                      attr[b], got, n_out);
        for (int k = 0; k < got && !st; k++)
            graph_body_output(G->c->g, ni, bi, kx_val(G->c, &r[k], false, pre));
        if (!st)
            claim(G, ni, bi, start);
    }
    if (!st)
        set_outputs(node, r, vals, n_out);
    free(r);
    return st;
}

static enum status emit_call(struct gctx *G, struct gnode *node, struct ktensor *a,
                             struct gnode *const *consts, int n)
{
    const cJSON *f;
    enum status st = find_func(G, node, "f", &f);
    if (st)
        return st;
    struct ktensor *r = xmalloc(sizeof *r * (MAX_ARGS + 1));
    int got, vals[MAX_ARGS];
    char pre[600];
    snprintf(pre, sizeof pre, "%s%s/", G->prefix ? G->prefix : "", node->name);
    st = instantiate(G, f, graph_strdup(G->c->g, pre), a, consts, n, r, &got);
    for (int k = 0; k < got && !st; k++)
        vals[k] = kx_val(G->c, &r[k], false, pre);
    if (!st)
        set_outputs(node, r, vals, got);
    free(r);
    return st;
}

enum status tg_emit_func(struct gctx *G, struct gnode *node)
{
    if (tg_gattr(node, "_output_shapes") && !G->lib)
        return tg_opaque(G, node);
    if (!G->lib)
        return tg_unsupported(G, node, "its function bodies are not in the file (no "
                              "modelTopology.library.function)");
    if (node->n_in > MAX_ARGS)
        return kerr(G->c, node->path, "input: more than %d values", MAX_ARGS);
    struct ktensor a[MAX_ARGS];
    struct gnode *consts[MAX_ARGS];
    for (int k = 0; k < node->n_in; k++) {
        int v = tg_in_value(G, node, k);
        a[k] = tg_in_tensor(G, node, k, v);
        consts[k] = tg_input_node(G, node, k)->is_const ? tg_input_node(G, node, k) : NULL;
    }
    bool is_if = strstr(node->op, "If") != NULL, is_while = strstr(node->op, "While") != NULL;
    if (is_if && node->n_in < 1)
        return kerr(G->c, node->path, "input: op %s needs its condition", node->op);
    return is_while ? emit_while(G, node, a, node->n_in)
           : is_if  ? emit_if(G, node, a, consts, node->n_in)
                    : emit_call(G, node, a, consts, node->n_in);
}
