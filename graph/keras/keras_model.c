/*
 * keras_model.c - Keras model containers: Sequential, Functional ("Model",
 * "Functional") and models nested as layers, in the Keras 2 / TF.js layout
 * (inbound_nodes: [[["name", node_index, tensor_index, {kwargs}], ...]]) and
 * the Keras 3 layout (inbound_nodes: [{"args": [...], "kwargs": {...}}] whose
 * tensors are {"class_name": "__keras_tensor__", "config": {"keras_history":
 * ["name", node_index, tensor_index]}}).
 *
 * Functional layers are run in dependency order (a layer call runs once all
 * the tensors it reads exist), so configs listed out of order load, and a
 * cycle through inbound_nodes is reported instead of looping.
 *
 * Symbols: dim 0 of every input is "batch" (default 1). Other None dims are
 * "seq" (default 128) for sequence inputs (rank 2 and 3), "height"/"width"
 * (default 224) and "depth" (default 16) for image and volume inputs.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/keras/keras_impl.h"
#include "util/strmap.h"
#include "util/xalloc.h"

#define KMAX_LAYERS 200000

struct kref {
    int layer, node, tensor;
};

struct kcall {
    int n_pos;
    struct kref *pos;
    int n_kw;
    const char *kwname[8];
    struct kref kw[8];
    bool done;
    int n_out;
    struct ktensor *out;
};

struct kl {
    const cJSON *obj, *cfg;
    const char *name, *cls;
    char path[256];
    bool is_model;
    int n_calls;
    struct kcall *calls;
    int max_ref; /* largest node_index referenced */
};

struct kfun {
    struct kl *l;
    int n;
    struct strmap *byname;
};

static void kfun_free(struct kfun *f)
{
    for (int i = 0; i < f->n; i++) {
        for (int k = 0; k < f->l[i].n_calls; k++) {
            free(f->l[i].calls[k].pos);
            free(f->l[i].calls[k].out);
        }
        free(f->l[i].calls);
    }
    free(f->l);
    strmap_free(f->byname);
}

static bool is_model_class(const char *cls)
{
    return !strcmp(cls, "Sequential") || !strcmp(cls, "Functional") || !strcmp(cls, "Model");
}

/* ---- inputs ------------------------------------------------------------------ */

static enum status read_dtype(struct kctx *c, const char *path, const cJSON *j, enum dtype *dt)
{
    *dt = DT_FLOAT;
    if (cJSON_IsObject(j)) { /* Keras 3 DTypePolicy */
        const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(j, "config");
        j = cJSON_GetObjectItemCaseSensitive(cfg, "name");
    }
    if (!j || cJSON_IsNull(j))
        return ST_OK;
    if (!cJSON_IsString(j))
        return kerr(c, path, "config.dtype: expected a string, got %s", kjtype(j));
    const char *s = j->valuestring;
    if (!strncmp(s, "mixed_", 6))
        s += 6;
    if (!dtype_from_name(s, dt))
        return kerr(c, path, "config.dtype: unknown dtype \"%s\"", j->valuestring);
    return ST_OK;
}

static struct dim sym_dim(struct kctx *c, int rank, int axis)
{
    const char *nm = "dim";
    int64_t def = 1;
    if (axis == 0) {
        nm = "batch";
    } else if (rank <= 3) {
        nm = axis == 1 ? "seq" : "features";
        def = axis == 1 ? 128 : 64;
    } else if (rank == 4) {
        nm = axis == 1 ? "height" : axis == 2 ? "width" : "channels";
        def = axis == 3 ? 3 : 224;
    } else if (rank == 5) {
        static const char *const n5[] = {"", "depth", "height", "width", "channels"};
        nm = n5[axis];
        def = axis == 1 ? 16 : axis == 4 ? 1 : 224;
    }
    return (struct dim){-1, graph_sym_add(c->g, nm, def)};
}

/* Reads the input shape of an InputLayer / first Sequential layer config:
 * batch_input_shape (Keras 2, TF.js), batch_shape (Keras 3) or input_shape. */
static enum status read_input_shape(struct kctx *c, const char *path, const cJSON *cfg,
                                    struct ktensor *t, bool *found)
{
    const char *key = "batch_input_shape";
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(cfg, key);
    bool batch = true;
    if (!j || cJSON_IsNull(j)) {
        key = "batch_shape";
        j = cJSON_GetObjectItemCaseSensitive(cfg, key);
    }
    if (!j || cJSON_IsNull(j)) {
        key = "input_shape";
        j = cJSON_GetObjectItemCaseSensitive(cfg, key);
        batch = false;
    }
    *found = j && !cJSON_IsNull(j);
    if (!*found)
        return ST_OK;
    if (!cJSON_IsArray(j))
        return kerr(c, path, "config.%s: expected an array of dims, got %s", key, kjtype(j));
    int n = cJSON_GetArraySize(j) + (batch ? 0 : 1);
    if (n < 1 || n > IR_MAX_RANK)
        return kerr(c, path, "config.%s: rank %d outside 1..%d", key, n, IR_MAX_RANK);
    memset(t, 0, sizeof *t);
    t->rank = n;
    int i = batch ? 0 : 1;
    if (!batch)
        t->dims[0] = sym_dim(c, n, 0);
    for (const cJSON *e = j->child; e; e = e->next, i++) {
        if (cJSON_IsNull(e) || (kj_is_int(e) && e->valuedouble < 0)) {
            t->dims[i] = sym_dim(c, n, i);
        } else if (kj_is_int(e) && e->valuedouble <= 4294967296.0) {
            t->dims[i] = (struct dim){(int64_t)e->valuedouble, -1};
        } else if (cJSON_IsNumber(e)) {
            return kerr(c, path, "config.%s[%d]: %.17g is not an integer from 0 to 2^32 or null",
                        key, i - (batch ? 0 : 1), e->valuedouble);
        } else {
            return kerr(c, path, "config.%s[%d]: expected an integer or null, got %s", key,
                        i - (batch ? 0 : 1), kjtype(e));
        }
    }
    return read_dtype(c, path, cJSON_GetObjectItemCaseSensitive(cfg, "dtype"), &t->dt);
}

static enum status make_graph_input(struct kctx *c, const char *name, struct ktensor *t)
{
    if (graph_value_find(c->g, name) >= 0)
        return diag_set(c->d, ST_EPARSE, "%s: input '%s' is declared twice", c->file, name);
    int v = graph_value_get(c->g, name);
    graph_value_set_type(c->g, v, t->dt, t->rank, t->dims);
    graph_input_add(c->g, v);
    t->vn = v;
    t->vcf = t->rank < 3 ? v : -1;
    return ST_OK;
}

/* ---- tensor references ------------------------------------------------------ */

static enum status ref_parse(struct kctx *c, struct kfun *f, const char *path, const cJSON *r,
                             struct kref *out)
{
    const cJSON *a = r;
    if (cJSON_IsObject(r)) { /* Keras 3 __keras_tensor__ */
        const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(r, "config");
        a = cJSON_GetObjectItemCaseSensitive(cfg, "keras_history");
        if (!cJSON_IsArray(a))
            return kerr(c, path, "config.keras_history: expected [\"layer\", node, tensor], "
                                 "got %s", kjtype(a));
    }
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) < 3)
        return kerr(c, path, "expected a tensor reference [\"layer\", node_index, "
                             "tensor_index], got %s", kjtype(a));
    const cJSON *nm = cJSON_GetArrayItem(a, 0), *ni = cJSON_GetArrayItem(a, 1),
                *ti = cJSON_GetArrayItem(a, 2);
    if (!cJSON_IsString(nm))
        return kerr(c, path, "[0]: expected a layer name, got %s", kjtype(nm));
    if (!kj_is_int(ni) || ni->valuedouble < 0 || ni->valuedouble > 1e6)
        return kerr(c, path, "[1]: expected a node index, got %s", kjtype(ni));
    if (!kj_is_int(ti) || ti->valuedouble < 0 || ti->valuedouble >= KMAX_IO)
        return kerr(c, path, "[2]: expected a tensor index, got %s", kjtype(ti));
    int li;
    if (!strmap_get(f->byname, nm->valuestring, &li))
        return kerr(c, path, "refers to layer '%s', which is not in config.layers",
                    nm->valuestring);
    *out = (struct kref){li, (int)ni->valuedouble, (int)ti->valuedouble};
    if (out->node > f->l[li].max_ref)
        f->l[li].max_ref = out->node;
    return ST_OK;
}

static bool is_tensor_ref(const cJSON *j)
{
    if (cJSON_IsObject(j)) {
        const cJSON *cn = cJSON_GetObjectItemCaseSensitive(j, "class_name");
        return cJSON_IsString(cn) && !strcmp(cn->valuestring, "__keras_tensor__");
    }
    return cJSON_IsArray(j) && cJSON_GetArraySize(j) >= 3 && cJSON_IsString(j->child);
}

static enum status add_pos(struct kctx *c, struct kfun *f, struct kcall *k, const char *path,
                           const cJSON *r)
{
    if (k->n_pos >= KMAX_IO)
        return kerr(c, path, "more than %d input tensors", KMAX_IO);
    return ref_parse(c, f, path, r, &k->pos[k->n_pos++]);
}

/* Keras 3 args: tensors anywhere in nested lists, in order. */
static enum status collect_args(struct kctx *c, struct kfun *f, struct kcall *k,
                                const char *path, const cJSON *j, int depth)
{
    if (depth > 8)
        return kerr(c, path, "arguments nested too deeply");
    if (is_tensor_ref(j))
        return add_pos(c, f, k, path, j);
    if (cJSON_IsArray(j)) {
        int i = 0;
        for (const cJSON *e = j->child; e; e = e->next, i++) {
            char p[512];
            snprintf(p, sizeof p, "%s[%d]", path, i);
            enum status st = collect_args(c, f, k, p, e, depth + 1);
            if (st)
                return st;
        }
    }
    return ST_OK;
}

static enum status collect_kwargs(struct kctx *c, struct kfun *f, struct kcall *k,
                                  const char *path, const cJSON *kw)
{
    if (!cJSON_IsObject(kw))
        return ST_OK;
    for (const cJSON *e = kw->child; e; e = e->next) {
        if (!is_tensor_ref(e))
            continue; /* training flags, masks given as null, constants */
        char p[512];
        snprintf(p, sizeof p, "%s.%s", path, e->string);
        if (k->n_kw >= 8)
            return kerr(c, p, "more than 8 keyword tensors");
        k->kwname[k->n_kw] = e->string;
        enum status st = ref_parse(c, f, p, e, &k->kw[k->n_kw]);
        if (st)
            return st;
        k->n_kw++;
    }
    return ST_OK;
}

static enum status parse_inbound(struct kctx *c, struct kfun *f, int li)
{
    struct kl *l = &f->l[li];
    const cJSON *ib = cJSON_GetObjectItemCaseSensitive(l->obj, "inbound_nodes");
    char p[320];
    snprintf(p, sizeof p, "%s.inbound_nodes", l->path);
    if (!ib || cJSON_IsNull(ib))
        return ST_OK;
    if (!cJSON_IsArray(ib))
        return kerr(c, p, "expected an array, got %s", kjtype(ib));
    int n = cJSON_GetArraySize(ib);
    l->calls = xcalloc((size_t)n + 1, sizeof *l->calls);
    int k = 0;
    for (const cJSON *nd = ib->child; nd; nd = nd->next, k++) {
        struct kcall *call = &l->calls[l->n_calls++];
        call->pos = xcalloc(KMAX_IO, sizeof *call->pos);
        char pk[352];
        snprintf(pk, sizeof pk, "%s[%d]", p, k);
        enum status st = ST_OK;
        if (cJSON_IsObject(nd)) { /* Keras 3 */
            c->keras3 = true;
            char pa[384];
            snprintf(pa, sizeof pa, "%s.args", pk);
            st = collect_args(c, f, call, pa, cJSON_GetObjectItemCaseSensitive(nd, "args"), 0);
            if (!st) {
                snprintf(pa, sizeof pa, "%s.kwargs", pk);
                st = collect_kwargs(c, f, call, pa,
                                    cJSON_GetObjectItemCaseSensitive(nd, "kwargs"));
            }
        } else if (cJSON_IsArray(nd)) { /* Keras 2 / TF.js */
            int i = 0;
            for (const cJSON *r = nd->child; r && !st; r = r->next, i++) {
                char pr[384];
                snprintf(pr, sizeof pr, "%s[%d]", pk, i);
                st = add_pos(c, f, call, pr, r);
                if (!st && cJSON_GetArraySize(r) >= 4) {
                    snprintf(pr, sizeof pr, "%s[%d][3]", pk, i);
                    st = collect_kwargs(c, f, call, pr, cJSON_GetArrayItem(r, 3));
                }
            }
        } else {
            st = kerr(c, pk, "expected a list of tensor references or an {\"args\", \"kwargs\"} "
                             "object, got %s", kjtype(nd));
        }
        if (st)
            return st;
    }
    return ST_OK;
}

/* input_layers / output_layers: [["name", ni, ti], ...] or Keras 3's single
 * ["name", ni, ti]. */
static enum status parse_io(struct kctx *c, struct kfun *f, const char *path, const cJSON *j,
                            struct kref *out, int *n)
{
    *n = 0;
    if (!cJSON_IsArray(j))
        return kerr(c, path, "expected a list of [\"layer\", node, tensor], got %s", kjtype(j));
    if (cJSON_IsString(j->child))
        return ref_parse(c, f, path, j, &out[(*n)++]);
    int i = 0;
    for (const cJSON *e = j->child; e; e = e->next, i++) {
        char p[192];
        snprintf(p, sizeof p, "%s[%d]", path, i);
        if (*n >= KMAX_IO)
            return kerr(c, p, "more than %d model inputs/outputs", KMAX_IO);
        enum status st = ref_parse(c, f, p, e, &out[(*n)++]);
        if (st)
            return st;
    }
    return ST_OK;
}

/* ---- running layers ------------------------------------------------------------ */

static int node_of(const struct kfun *f, const struct kref *r)
{
    const struct kl *l = &f->l[r->layer];
    /* TF.js counts a nested model's own construction call as node 0; Keras
     * skips it. Detect the TF.js numbering from the largest index used. */
    int off = (l->is_model && l->n_calls > 0 && l->max_ref == l->n_calls) ? 1 : 0;
    return r->node - off;
}

static struct ktensor *ref_tensor(struct kfun *f, const struct kref *r, bool *pending)
{
    struct kl *l = &f->l[r->layer];
    int k = node_of(f, r);
    *pending = false;
    if (k < 0 || k >= l->n_calls) {
        if (!strcmp(l->cls, "InputLayer") && l->n_calls > 0 && l->calls[0].done && r->node == 0)
            return r->tensor < l->calls[0].n_out ? &l->calls[0].out[r->tensor] : NULL;
        return NULL;
    }
    if (!l->calls[k].done) {
        *pending = true;
        return NULL;
    }
    return r->tensor < l->calls[k].n_out ? &l->calls[k].out[r->tensor] : NULL;
}

static enum status bad_ref(struct kctx *c, struct kfun *f, const char *path,
                           const struct kref *r)
{
    struct kl *l = &f->l[r->layer];
    return kerr(c, path, "reference to layer '%s' node %d tensor %d, which does not exist "
                         "(the layer has %d call(s))",
                l->name, r->node, r->tensor, l->n_calls);
}

static enum status run_call(struct kctx *c, struct kfun *f, int li, int k, const char *nprefix,
                            const char *wprefix, bool *ran)
{
    struct kl *l = &f->l[li];
    struct kcall *call = &l->calls[k];
    struct ktensor *in[KMAX_IO];
    struct kkwargs kw = {0};
    *ran = false;
    char p[320];
    snprintf(p, sizeof p, "%s.inbound_nodes[%d]", l->path, k);
    for (int i = 0; i < call->n_pos; i++) {
        bool pending;
        in[i] = ref_tensor(f, &call->pos[i], &pending);
        if (pending)
            return ST_OK;
        if (!in[i])
            return bad_ref(c, f, p, &call->pos[i]);
    }
    for (int i = 0; i < call->n_kw; i++) {
        bool pending;
        kw.t[i] = ref_tensor(f, &call->kw[i], &pending);
        kw.name[i] = call->kwname[i];
        if (pending)
            return ST_OK;
        if (!kw.t[i])
            return bad_ref(c, f, p, &call->kw[i]);
    }
    kw.n = call->n_kw;
    struct ktensor *tin = xcalloc((size_t)call->n_pos + 1, sizeof *tin);
    for (int i = 0; i < call->n_pos; i++)
        tin[i] = *in[i];
    struct ktensor tout[KMAX_IO];
    int n_out = 0;
    char np[512], wp[512];
    struct klayer L = {.name = l->name, .cls = l->cls, .cfg = l->cfg, .path = l->path,
                       .nprefix = nprefix, .wprefix = wprefix};
    enum status st;
    if (l->is_model) {
        if (k == 0)
            snprintf(np, sizeof np, "%s%s/", nprefix, l->name);
        else
            snprintf(np, sizeof np, "%s%s_call%d/", nprefix, l->name, k);
        snprintf(wp, sizeof wp, "%s%s/", wprefix, l->name);
        st = keras_model_build(c, l->obj, l->path, graph_strdup(c->g, np),
                               graph_strdup(c->g, wp), tin, call->n_pos, tout, &n_out);
    } else {
        if (k > 0) { /* a shared layer: distinct node names, same weights */
            snprintf(np, sizeof np, "%scall%d/", nprefix, k);
            L.nprefix = graph_strdup(c->g, np);
        }
        st = keras_layer_emit(c, &L, tin, call->n_pos, &kw, tout, &n_out);
    }
    /* Layers update the cached layout values of their inputs; keep them. */
    for (int i = 0; i < call->n_pos && !st; i++) {
        in[i]->vn = tin[i].vn >= 0 ? tin[i].vn : in[i]->vn;
        in[i]->vcf = tin[i].vcf >= 0 ? tin[i].vcf : in[i]->vcf;
    }
    free(tin);
    if (st)
        return st;
    call->out = xcalloc((size_t)n_out + 1, sizeof *call->out);
    memcpy(call->out, tout, sizeof *tout * (size_t)n_out);
    call->n_out = n_out;
    call->done = true;
    *ran = true;
    return ST_OK;
}

/* Runs every pending call in dependency order (Kahn's algorithm over calls,
 * linear in calls + references); calls left pending form a cycle. */
static enum status run_calls(struct kctx *c, struct kfun *f, const char *nprefix,
                             const char *wprefix)
{
    int total = 0;
    int *base = xcalloc((size_t)f->n + 1, sizeof *base);
    for (int i = 0; i < f->n; i++) {
        base[i] = total;
        total += f->l[i].n_calls;
    }
    int *indeg = xcalloc((size_t)total + 1, sizeof *indeg);
    int *off = xcalloc((size_t)total + 2, sizeof *off);
    int *layer_of = xcalloc((size_t)total + 1, sizeof *layer_of);
    /* pass 0 counts successors per source call, pass 1 fills them */
    int *succ = NULL, *fill = NULL;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < f->n; i++) {
            for (int k = 0; k < f->l[i].n_calls; k++) {
                struct kcall *call = &f->l[i].calls[k];
                layer_of[base[i] + k] = i;
                if (call->done)
                    continue;
                for (int r = 0; r < call->n_pos + call->n_kw; r++) {
                    const struct kref *ref = r < call->n_pos ? &call->pos[r]
                                                             : &call->kw[r - call->n_pos];
                    int sk = node_of(f, ref);
                    const struct kl *sl = &f->l[ref->layer];
                    if (sk < 0 || sk >= sl->n_calls || sl->calls[sk].done)
                        continue; /* ready now, or a bad reference run_call reports */
                    int src = base[ref->layer] + sk;
                    if (pass == 0) {
                        off[src + 1]++;
                        indeg[base[i] + k]++;
                    } else {
                        succ[fill[src]++] = base[i] + k;
                    }
                }
            }
        }
        if (pass == 0) {
            for (int s = 0; s < total; s++)
                off[s + 1] += off[s];
            succ = xcalloc((size_t)off[total] + 1, sizeof *succ);
            fill = xcalloc((size_t)total + 1, sizeof *fill);
            memcpy(fill, off, sizeof *fill * (size_t)total);
        }
    }
    int *queue = xcalloc((size_t)total + 1, sizeof *queue);
    int head = 0, tail = 0;
    enum status st = ST_OK;
    for (int i = 0; i < f->n; i++)
        for (int k = 0; k < f->l[i].n_calls; k++)
            if (!f->l[i].calls[k].done && indeg[base[i] + k] == 0)
                queue[tail++] = base[i] + k;
    while (head < tail && !st) {
        int id = queue[head++], i = layer_of[id];
        bool ran;
        st = run_call(c, f, i, id - base[i], nprefix, wprefix, &ran);
        if (st || !ran)
            continue;
        for (int e = off[id]; e < off[id + 1]; e++)
            if (--indeg[succ[e]] == 0)
                queue[tail++] = succ[e];
    }
    free(base);
    free(indeg);
    free(off);
    free(layer_of);
    free(succ);
    free(fill);
    free(queue);
    return st;
}

/* ---- Functional ------------------------------------------------------------------ */

/* The layer list of a functional model into f: class, config and a name
 * used once each. */
static enum status parse_layers(struct kctx *c, const cJSON *layers, const char *p,
                                struct kfun *f)
{
    int i = 0;
    for (const cJSON *e = layers->child; e; e = e->next, i++) {
        struct kl *l = &f->l[f->n++];
        snprintf(l->path, sizeof l->path, "%s[%d]", p, i);
        l->obj = e;
        const cJSON *cn = cJSON_GetObjectItemCaseSensitive(e, "class_name");
        const cJSON *lc = cJSON_GetObjectItemCaseSensitive(e, "config");
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(e, "name");
        if (!cJSON_IsString(nm))
            nm = cJSON_GetObjectItemCaseSensitive(lc, "name");
        if (!cJSON_IsObject(e))
            return kerr(c, l->path, "expected a layer object, got %s", kjtype(e));
        if (!cJSON_IsString(cn))
            return kerr(c, l->path, "class_name: expected a string, got %s", kjtype(cn));
        if (!cJSON_IsObject(lc))
            return kerr(c, l->path, "config: expected an object, got %s", kjtype(lc));
        if (!cJSON_IsString(nm))
            return kerr(c, l->path, "name: expected a string, got %s", kjtype(nm));
        if (cJSON_GetObjectItemCaseSensitive(e, "module"))
            c->keras3 = true;
        l->cls = cn->valuestring;
        l->cfg = lc;
        l->name = nm->valuestring;
        l->is_model = is_model_class(l->cls);
        int dup;
        if (strmap_get(f->byname, l->name, &dup))
            return kerr(c, l->path, "layer name '%s' is used twice (also at index %d)", l->name,
                        dup);
        strmap_put(f->byname, l->name, i);
    }
    return ST_OK;
}

/* Inputs: each InputLayer gets one call producing its tensor, the caller's
 * (a nested model) or a new graph input of the shape it declares. */
static enum status bind_inputs(struct kctx *c, struct kfun *f, const struct kref *ins,
                               int n_ins, const struct ktensor *in)
{
    for (int j = 0; j < n_ins; j++) {
        struct kl *l = &f->l[ins[j].layer];
        if (strcmp(l->cls, "InputLayer"))
            return kerr(c, l->path, "input_layers names '%s', which is a %s, not an InputLayer",
                        l->name, l->cls);
        struct ktensor t;
        bool found;
        if (in) {
            t = in[j];
        } else {
            enum status st = read_input_shape(c, l->path, l->cfg, &t, &found);
            if (!st && !found)
                st = kerr(c, l->path, "config: InputLayer has no batch_input_shape, "
                                      "batch_shape or input_shape");
            if (!st)
                st = make_graph_input(c, graph_strdup(c->g, l->name), &t);
            if (st)
                return st;
        }
        if (!l->calls)
            l->calls = xcalloc(1, sizeof *l->calls);
        l->n_calls = 1;
        l->calls[0].out = xcalloc(1, sizeof(struct ktensor));
        l->calls[0].out[0] = t;
        l->calls[0].n_out = 1;
        l->calls[0].done = true;
    }
    return ST_OK;
}

/* Every call of every layer ran; otherwise name the first that did not. */
static enum status check_all_ran(struct kctx *c, const struct kfun *f)
{
    for (int i = 0; i < f->n; i++) {
        const struct kl *l = &f->l[i];
        for (int k = 0; k < l->n_calls; k++) {
            if (l->calls[k].done)
                continue;
            if (!strcmp(l->cls, "InputLayer"))
                return kerr(c, l->path, "InputLayer '%s' is not in config.input_layers",
                            l->name);
            return kerr(c, l->path, "inbound_nodes[%d] of layer '%s' can never run: its "
                                    "inputs form a cycle or wait on a layer that never runs",
                        k, l->name);
        }
    }
    return ST_OK;
}

static enum status build_functional(struct kctx *c, const cJSON *cfg, const char *path,
                                    const char *nprefix, const char *wprefix,
                                    struct ktensor *in, int n_in, struct ktensor *out,
                                    int *n_out)
{
    const cJSON *layers = cJSON_GetObjectItemCaseSensitive(cfg, "layers");
    char p[192];
    snprintf(p, sizeof p, "%s.config.layers", path);
    if (!cJSON_IsArray(layers))
        return kerr(c, p, "expected an array of layers, got %s", kjtype(layers));
    int n = cJSON_GetArraySize(layers);
    if (n > KMAX_LAYERS)
        return kerr(c, p, "%d layers, more than %d", n, KMAX_LAYERS);
    struct kfun f = {.l = xcalloc((size_t)n + 1, sizeof *f.l), .byname = strmap_new()};
    enum status st = parse_layers(c, layers, p, &f);
    for (int i = 0; i < f.n && !st; i++)
        st = parse_inbound(c, &f, i);
    struct kref ins[KMAX_IO], outs[KMAX_IO];
    int n_ins = 0, n_outs = 0;
    if (!st) {
        snprintf(p, sizeof p, "%s.config.input_layers", path);
        st = parse_io(c, &f, p, cJSON_GetObjectItemCaseSensitive(cfg, "input_layers"), ins,
                      &n_ins);
    }
    if (!st) {
        snprintf(p, sizeof p, "%s.config.output_layers", path);
        st = parse_io(c, &f, p, cJSON_GetObjectItemCaseSensitive(cfg, "output_layers"), outs,
                      &n_outs);
    }
    if (!st && in && n_in != n_ins)
        st = kerr(c, path, "nested model takes %d input(s) but is called with %d", n_ins, n_in);
    if (!st)
        st = bind_inputs(c, &f, ins, n_ins, in);
    if (!st)
        st = run_calls(c, &f, nprefix, wprefix);
    if (!st)
        st = check_all_ran(c, &f);
    for (int j = 0; j < n_outs && !st; j++) {
        bool pending;
        struct ktensor *t = ref_tensor(&f, &outs[j], &pending);
        if (!t) {
            snprintf(p, sizeof p, "%s.config.output_layers[%d]", path, j);
            st = bad_ref(c, &f, p, &outs[j]);
        } else {
            out[j] = *t;
        }
    }
    if (!st)
        *n_out = n_outs;
    kfun_free(&f);
    return st;
}

/* ---- Sequential -------------------------------------------------------------------- */

static enum status build_sequential(struct kctx *c, const cJSON *cfg, const char *path,
                                    const char *nprefix, const char *wprefix,
                                    struct ktensor *in, int n_in, struct ktensor *out,
                                    int *n_out)
{
    const cJSON *layers = cJSON_IsArray(cfg) ? cfg : cJSON_GetObjectItemCaseSensitive(cfg, "layers");
    char p[192];
    snprintf(p, sizeof p, "%s.config%s", path, cJSON_IsArray(cfg) ? "" : ".layers");
    if (!cJSON_IsArray(layers) || !layers->child)
        return kerr(c, p, "expected a non-empty array of layers, got %s", kjtype(layers));
    if (in && n_in != 1)
        return kerr(c, path, "a Sequential model takes one input, called with %d", n_in);
    struct ktensor cur;
    bool have = false;
    if (in) {
        cur = in[0];
        have = true;
    }
    int i = 0;
    for (const cJSON *e = layers->child; e; e = e->next, i++) {
        char lp[256];
        snprintf(lp, sizeof lp, "%s[%d]", p, i);
        const cJSON *cn = cJSON_GetObjectItemCaseSensitive(e, "class_name");
        const cJSON *lc = cJSON_GetObjectItemCaseSensitive(e, "config");
        if (!cJSON_IsString(cn))
            return kerr(c, lp, "class_name: expected a string, got %s", kjtype(cn));
        if (!cJSON_IsObject(lc))
            return kerr(c, lp, "config: expected an object, got %s", kjtype(lc));
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(lc, "name");
        if (!cJSON_IsString(nm))
            nm = cJSON_GetObjectItemCaseSensitive(e, "name");
        if (!cJSON_IsString(nm))
            return kerr(c, lp, "config.name: expected a string, got %s", kjtype(nm));
        if (cJSON_GetObjectItemCaseSensitive(e, "module"))
            c->keras3 = true;
        if (!have) {
            struct ktensor t;
            bool found;
            enum status st = read_input_shape(c, lp, lc, &t, &found);
            if (st)
                return st;
            if (!found)
                return kerr(c, lp, "config: the first layer of a Sequential model needs "
                                   "batch_input_shape, batch_shape or input_shape");
            char iname[300];
            if (!strcmp(cn->valuestring, "InputLayer"))
                snprintf(iname, sizeof iname, "%s", nm->valuestring);
            else
                snprintf(iname, sizeof iname, "%s_input", nm->valuestring);
            st = make_graph_input(c, graph_strdup(c->g, iname), &t);
            if (st)
                return st;
            cur = t;
            have = true;
        }
        if (!strcmp(cn->valuestring, "InputLayer"))
            continue;
        struct klayer L = {.name = nm->valuestring, .cls = cn->valuestring, .cfg = lc,
                           .path = graph_strdup(c->g, lp), .nprefix = nprefix,
                           .wprefix = wprefix};
        struct ktensor tout[KMAX_IO];
        int n = 0;
        enum status st;
        if (is_model_class(cn->valuestring)) {
            char np[512], wp[512];
            snprintf(np, sizeof np, "%s%s/", nprefix, nm->valuestring);
            snprintf(wp, sizeof wp, "%s%s/", wprefix, nm->valuestring);
            st = keras_model_build(c, e, L.path, graph_strdup(c->g, np), graph_strdup(c->g, wp),
                                   &cur, 1, tout, &n);
        } else {
            struct kkwargs kw = {0};
            st = keras_layer_emit(c, &L, &cur, 1, &kw, tout, &n);
        }
        if (st)
            return st;
        if (n < 1)
            return klerr(c, &L, ST_EINTERNAL, "produced no output");
        cur = tout[0];
    }
    out[0] = cur;
    *n_out = 1;
    return ST_OK;
}

enum status keras_model_build(struct kctx *c, const cJSON *obj, const char *path,
                              const char *nprefix, const char *wprefix, struct ktensor *in,
                              int n_in, struct ktensor *out, int *n_out)
{
    const cJSON *cn = cJSON_GetObjectItemCaseSensitive(obj, "class_name");
    const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(obj, "config");
    if (!cJSON_IsString(cn))
        return kerr(c, path, "class_name: expected a string, got %s", kjtype(cn));
    if (cJSON_GetObjectItemCaseSensitive(obj, "module"))
        c->keras3 = true;
    enum status st;
    if (!strcmp(cn->valuestring, "Sequential")) {
        st = build_sequential(c, cfg, path, nprefix, wprefix, in, n_in, out, n_out);
    } else if (!strcmp(cn->valuestring, "Functional") || !strcmp(cn->valuestring, "Model")) {
        if (!cJSON_IsObject(cfg))
            return kerr(c, path, "config: expected an object, got %s", kjtype(cfg));
        st = build_functional(c, cfg, path, nprefix, wprefix, in, n_in, out, n_out);
    } else {
        return diag_set(c->d, ST_EUNSUPPORTED,
                        "%s: %s: model class '%s' is not supported (expected Sequential, "
                        "Functional or Model)",
                        c->file, path, cn->valuestring);
    }
    if (st || in)
        return st;
    /* Top level: outputs in Keras order. */
    for (int j = 0; j < *n_out; j++) {
        char nm[300];
        const char *base = graph_value_find(c->g, "output") < 0 ? "output" : "output";
        snprintf(nm, sizeof nm, "%s_%d", base, j);
        int v = kx_val(c, &out[j], false, graph_strdup(c->g, nm));
        if (c->g->values[v].flags & (VAL_INPUT | VAL_OUTPUT)) {
            /* an input passed straight through, or one tensor output twice */
            v = kx_op(c, OP_Identity, graph_strdup(c->g, nm), &v, 1);
        }
        graph_output_add(c->g, v);
    }
    return ST_OK;
}
