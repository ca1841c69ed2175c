/*
 * keras_emit.c - IR construction helpers for the Keras / TF.js readers:
 * unique names, nodes, constants, weights checked against the TF.js
 * weightsManifest, layout transposes and Keras activations.
 */
#include <stdio.h>
#include <string.h>

#include "graph/keras/keras_impl.h"

const char *kx_name(struct kctx *c, const struct klayer *L, const char *suffix)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s%s%s%s", L->nprefix, L->name, suffix ? "/" : "",
             suffix ? suffix : "");
    if (graph_value_find(c->g, buf) < 0)
        return graph_strdup(c->g, buf);
    for (int i = 1;; i++) {
        char b2[560];
        snprintf(b2, sizeof b2, "%s_%d", buf, i);
        if (graph_value_find(c->g, b2) < 0)
            return graph_strdup(c->g, b2);
    }
}

static const char *unique(struct kctx *c, const char *base)
{
    if (graph_value_find(c->g, base) < 0)
        return base;
    for (int i = 1;; i++) {
        char b2[560];
        snprintf(b2, sizeof b2, "%s_%d", base, i);
        if (graph_value_find(c->g, b2) < 0)
            return graph_strdup(c->g, b2);
    }
}

int kx_op(struct kctx *c, enum op op, const char *name, const int *in, int n_in)
{
    name = unique(c, name);
    int v = graph_value_get(c->g, name);
    graph_node_add(c->g, op, name, in, n_in, &v, 1);
    return v;
}

int kx_producer(struct kctx *c, int v)
{
    (void)v;
    /* kx_op adds the producer last; callers attach attributes right after. */
    return c->g->n_nodes - 1;
}

int kx_const_i64(struct kctx *c, const char *name, const int64_t *vals, int n)
{
    int v = kx_op(c, OP_Constant, name, NULL, 0);
    struct tconst t = {.dt = DT_INT64, .rank = 1, .dims = {n}, .n = n,
                       .i64 = (int64_t *)vals};
    graph_attr_tensor(c->g, kx_producer(c, v), "value", &t);
    graph_value_set_type(c->g, v, DT_INT64, 1, &(struct dim){n, -1});
    return v;
}

int kx_const_f(struct kctx *c, const char *name, const double *vals, int rank,
               const int64_t *dims)
{
    int v = kx_op(c, OP_Constant, name, NULL, 0);
    struct tconst t = {.dt = DT_FLOAT, .rank = rank, .n = 1, .f64 = (double *)vals};
    struct dim dd[IR_MAX_RANK];
    for (int i = 0; i < rank; i++) {
        t.dims[i] = dims[i];
        t.n *= dims[i];
        dd[i] = (struct dim){dims[i], -1};
    }
    graph_attr_tensor(c->g, kx_producer(c, v), "value", &t);
    graph_value_set_type(c->g, v, DT_FLOAT, rank, dd);
    return v;
}

static const char *dims_str(const int64_t *dims, int rank, char *buf, size_t size)
{
    size_t len = (size_t)snprintf(buf, size, "[");
    for (int i = 0; i < rank && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%lld", i ? ", " : "",
                                (long long)dims[i]);
    if (len < size)
        snprintf(buf + len, size - len, "]");
    return buf;
}

/* Python Keras 2 names RNN weights after their cell ("lstm/lstm_cell/kernel"):
 * the one manifest entry "[scope/]LAYER/ONE_MORE/WNAME", or -1. */
static int cell_weight(struct kctx *c, const char *layer, const char *wname)
{
    size_t ln = strlen(layer), wn = strlen(wname);
    int found = -1;
    for (int i = 0; i < c->n_w; i++) {
        const char *n = c->w[i].name;
        size_t m = strlen(n);
        if (m < ln + wn + 3 || n[m - wn - 1] != '/' || strcmp(n + m - wn, wname))
            continue;
        /* the component before "/WNAME" is the cell; before it must come LAYER */
        const char *cell_end = n + m - wn - 1, *p = cell_end;
        while (p > n && p[-1] != '/')
            p--;
        if (p == n || (size_t)(p - 1 - n) < ln || strncmp(p - 1 - ln, layer, ln) ||
            (p - 1 - ln != n && p[-2 - (long)ln] != '/'))
            continue;
        if (found >= 0)
            return -1; /* ambiguous */
        found = i;
    }
    return found;
}

int kx_weight(struct kctx *c, const struct klayer *L, const char *wname, int rank,
              const int64_t *dims, enum dtype dt)
{
    char name[512];
    snprintf(name, sizeof name, "%s%s/%s", L->wprefix, L->name, wname);
    int v = graph_value_find(c->g, name);
    if (v >= 0 && (c->g->values[v].flags & VAL_INIT))
        return v; /* a shared layer called again */
    int64_t n = 1;
    struct dim dd[IR_MAX_RANK];
    for (int i = 0; i < rank; i++) {
        if (dims[i] < 0) {
            klerr(c, L, ST_EPARSE, "weight '%s' has an unknown dimension (the input's %s is "
                                   "not fixed in the config)", wname,
                  i == rank - 1 ? "last dim" : "feature dim");
            return -1;
        }
        n *= dims[i];
        dd[i] = (struct dim){dims[i], -1};
    }
    if (c->w) {
        char key[512];
        snprintf(key, sizeof key, "%s/%s", L->name, wname);
        int wi = keras_manifest_find(c, key);
        if (wi < 0)
            wi = cell_weight(c, L->name, wname);
        if (wi < 0) {
            klerr(c, L, ST_EPARSE, "weight '%s' is not in weightsManifest", key);
            return -1;
        }
        struct kweight *w = &c->w[wi];
        if (w->n != n) {
            char a[160], b[160];
            klerr(c, L, ST_EPARSE, "weightsManifest has '%s' with shape %s (%lld elements) but "
                                   "the layer config implies %s",
                  w->name, dims_str(w->dims, w->rank, a, sizeof a), (long long)w->n,
                  dims_str(dims, rank, b, sizeof b));
            return -1;
        }
        w->used = true;
        dt = w->dt;
    }
    v = graph_value_get(c->g, unique(c, graph_strdup(c->g, name)));
    graph_value_set_type(c->g, v, dt, rank, dd);
    graph_init_add(c->g, v);
    return v;
}

int kx_cf_axis(int axis, int rank)
{
    if (rank < 3 || axis == 0)
        return axis;
    return axis == rank - 1 ? 1 : axis + 1;
}

void kx_tensor(struct ktensor *t, int rank, int v, bool cf)
{
    memset(t, 0, sizeof *t);
    t->rank = rank;
    t->dt = DT_FLOAT;
    for (int i = 0; i < rank; i++)
        t->dims[i] = (struct dim){-1, -1};
    t->vn = cf && rank >= 3 ? -1 : v;
    t->vcf = cf || rank < 3 ? v : -1;
}

int kx_val(struct kctx *c, struct ktensor *t, bool cf, const char *name)
{
    if (t->rank < 3)
        return t->vn >= 0 ? t->vn : t->vcf;
    if (cf && t->vcf >= 0)
        return t->vcf;
    if (!cf && t->vn >= 0)
        return t->vn;
    int r = t->rank;
    int64_t perm[IR_MAX_RANK];
    perm[0] = 0;
    for (int i = 1; i < r; i++)
        perm[i] = cf ? (i == 1 ? r - 1 : i - 1) : (i == r - 1 ? 1 : i + 1);
    char nm[560];
    snprintf(nm, sizeof nm, "%s/%s", name, cf ? "to_channels_first" : "to_channels_last");
    int src = cf ? t->vn : t->vcf;
    int v = kx_op(c, OP_Transpose, graph_strdup(c->g, nm), &src, 1);
    graph_attr_ints(c->g, kx_producer(c, v), "perm", perm, r);
    if (cf)
        t->vcf = v;
    else
        t->vn = v;
    return v;
}

/* ---- activations ------------------------------------------------------------ */

struct kact {
    const char *keras;
    enum op op;
};

static const struct kact acts[] = {
    {"relu", OP_Relu},         {"sigmoid", OP_Sigmoid},     {"tanh", OP_Tanh},
    {"softmax", OP_Softmax},   {"elu", OP_Elu},             {"selu", OP_Selu},
    {"softplus", OP_Softplus}, {"softsign", OP_Softsign},   {"swish", OP_Silu},
    {"silu", OP_Silu},         {"gelu", OP_Gelu},           {"gelu_new", OP_Gelu},
    {"hard_sigmoid", OP_HardSigmoid}, {"hardSigmoid", OP_HardSigmoid},
    {"relu6", OP_Relu6},       {"exponential", OP_Exp},     {"leaky_relu", OP_LeakyRelu},
    {"mish", OP_Mish},         {"hard_swish", OP_HardSwish}, {"hard_silu", OP_HardSwish},
    {"log_softmax", OP_LogSoftmax}, {"logSoftmax", OP_LogSoftmax},
};

int kx_activation(struct kctx *c, const struct klayer *L, const char *act, int v, int axis)
{
    if (!act || !*act || !strcmp(act, "linear"))
        return v;
    for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++) {
        if (strcmp(acts[i].keras, act))
            continue;
        char nm[64];
        snprintf(nm, sizeof nm, "%s", act);
        int o = kx_op(c, acts[i].op, kx_name(c, L, nm), &v, 1);
        int ni = kx_producer(c, o);
        if (acts[i].op == OP_Softmax || acts[i].op == OP_LogSoftmax)
            graph_attr_int(c->g, ni, "axis", axis);
        if (!strcmp(act, "leaky_relu"))
            graph_attr_float(c->g, ni, "alpha", 0.2); /* keras.activations default */
        if (acts[i].op == OP_HardSigmoid && strcmp(act, "hard_sigmoid") == 0) {
            graph_attr_float(c->g, ni, "alpha", c->keras3 ? 1.0 / 6.0 : 0.2);
            graph_attr_float(c->g, ni, "beta", 0.5);
        }
        return o;
    }
    klerr(c, L, ST_EUNSUPPORTED, "activation '%s' is not supported", act);
    return -1;
}
