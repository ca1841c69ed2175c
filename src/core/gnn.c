/* gnn.c - model layout and the forward pass (see gnn.h); the loss, its
 * backward pass and Adam are gnn_train.c's. */
#include "core/gnn.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gnn_impl.h"
#include "core/gnn_kernels.h"
#include "util/xalloc.h"

int gnn_target_parse(const char *s)
{
    for (int t = 0; t < GNN_T__COUNT; t++)
        if (!strcmp(s, gnn_target_name(t)))
            return t;
    return -1;
}

const char *gnn_target_name(int t)
{
    static const char *const names[GNN_T__COUNT] = {"latency", "energy", "memory"};
    return t >= 0 && t < GNN_T__COUNT ? names[t] : "?";
}

static void add_tensor(struct gnn_model *m, const char *name, int rows, int cols)
{
    struct gnn_tensor *t = &m->t[m->n_tensors++];
    snprintf(t->name, sizeof t->name, "%s", name);
    t->rows = rows;
    t->cols = cols;
    t->off = m->n_params;
    m->n_params += (size_t)rows * (size_t)cols;
}

static enum status layout(struct gnn_model *m, const struct gnn_arch *a, struct diag *d)
{
    memset(m, 0, sizeof *m);
    if (a->fn < 1 || a->fn > GNN_MAX_FEATURES || a->fg < 1 || a->fg > GNN_MAX_FEATURES)
        return diag_set(d, ST_ERANGE, "feature counts %d/%d outside 1..%d", a->fn, a->fg,
                        GNN_MAX_FEATURES);
    if (a->hidden < 1 || a->hidden > GNN_MAX_WIDTH || a->head_hidden < 1 ||
        a->head_hidden > GNN_MAX_WIDTH)
        return diag_set(d, ST_ERANGE, "layer widths %d/%d outside 1..%d", a->hidden,
                        a->head_hidden, GNN_MAX_WIDTH);
    if (a->layers < 0 || a->layers > GNN_MAX_LAYERS)
        return diag_set(d, ST_ERANGE, "%d message-passing layers, expected 0..%d", a->layers,
                        GNN_MAX_LAYERS);
    m->arch = *a;
    int H = a->hidden, F = a->fn + a->fg, Hh = a->head_hidden;
    /* in the order of gnn_impl.h's tensor enums */
    add_tensor(m, "emb.w", F, H);
    add_tensor(m, "emb.b", 1, H);
    for (int l = 0; l < a->layers; l++) {
        char nm[16];
        snprintf(nm, sizeof nm, "mp%d.w", l);
        add_tensor(m, nm, 3 * H, H);
        snprintf(nm, sizeof nm, "mp%d.b", l);
        add_tensor(m, nm, 1, H);
    }
    add_tensor(m, "node1.w", H, H);
    add_tensor(m, "node1.b", 1, H);
    add_tensor(m, "node2.w", H, 1);
    add_tensor(m, "node2.b", 1, 1);
    add_tensor(m, "head1.w", readout_dim(a), Hh);
    add_tensor(m, "head1.b", 1, Hh);
    add_tensor(m, "head2.w", Hh, Hh);
    add_tensor(m, "head2.b", 1, Hh);
    add_tensor(m, "head3.w", Hh, GNN_T__COUNT);
    add_tensor(m, "head3.b", 1, GNN_T__COUNT);
    add_tensor(m, "skip.w", readout_dim(a), GNN_T__COUNT);
    return ST_OK;
}

size_t gnn_arch_params(const struct gnn_arch *a)
{
    struct gnn_model m;
    return layout(&m, a, NULL) ? 0 : m.n_params;
}

enum status gnn_model_alloc(struct gnn_model *m, const struct gnn_arch *a, struct diag *d)
{
    enum status st = layout(m, a, d);
    if (st)
        return st;
    m->w = xcalloc(m->n_params, sizeof(float));
    m->node_mean = xcalloc((size_t)a->fn, sizeof(float));
    m->node_std = xmalloc(sizeof(float) * (size_t)a->fn);
    m->graph_mean = xcalloc((size_t)a->fg, sizeof(float));
    m->graph_std = xmalloc(sizeof(float) * (size_t)a->fg);
    for (int i = 0; i < a->fn; i++)
        m->node_std[i] = 1;
    for (int i = 0; i < a->fg; i++)
        m->graph_std[i] = 1;
    m->bound[GNN_T_LATENCY] = m->bound[GNN_T_ENERGY] = GNN_BOUND_TIME;
    m->bound[GNN_T_MEMORY] = GNN_BOUND_MEMORY;
    m->node_bound = GNN_BOUND_NODE;
    return ST_OK;
}

/* splitmix64: small, seedable, identical on every platform. */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double rng_unit(uint64_t *s)
{
    return (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

void gnn_model_init(struct gnn_model *m, uint64_t seed)
{
    uint64_t s = seed ^ 0x6a09e667f3bcc908ull;
    for (int i = 0; i < m->n_tensors; i++) {
        struct gnn_tensor *t = &m->t[i];
        float *w = m->w + t->off;
        size_t n = (size_t)t->rows * (size_t)t->cols;
        /* Biases, the linear skip and the last layers of both heads start at
         * zero: every correction is 0 and the model is the teacher. */
        if (t->rows == 1 || strcmp(t->name, "skip.w") == 0 || strcmp(t->name, "node2.w") == 0 ||
            strcmp(t->name, "head3.w") == 0) {
            memset(w, 0, n * sizeof(float));
            continue;
        }
        double lim = sqrt(6.0 / t->rows); /* He uniform for relu layers */
        for (size_t k = 0; k < n; k++)
            w[k] = (float)((2 * rng_unit(&s) - 1) * lim);
    }
}

void gnn_model_fini(struct gnn_model *m)
{
    if (!m)
        return;
    free(m->w);
    free(m->node_mean);
    free(m->node_std);
    free(m->graph_mean);
    free(m->graph_std);
    memset(m, 0, sizeof *m);
}

void gnn_model_copy(struct gnn_model *dst, const struct gnn_model *src)
{
    *dst = *src;
    dst->w = xmalloc(sizeof(float) * src->n_params);
    memcpy(dst->w, src->w, sizeof(float) * src->n_params);
    size_t fn = (size_t)src->arch.fn, fg = (size_t)src->arch.fg;
    dst->node_mean = xmalloc(sizeof(float) * fn);
    dst->node_std = xmalloc(sizeof(float) * fn);
    dst->graph_mean = xmalloc(sizeof(float) * fg);
    dst->graph_std = xmalloc(sizeof(float) * fg);
    memcpy(dst->node_mean, src->node_mean, sizeof(float) * fn);
    memcpy(dst->node_std, src->node_std, sizeof(float) * fn);
    memcpy(dst->graph_mean, src->graph_mean, sizeof(float) * fg);
    memcpy(dst->graph_std, src->graph_std, sizeof(float) * fg);
}

void gnn_normalize_nodes(const struct gnn_model *m, float *x, size_t n)
{
    int f = m->arch.fn;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < f; k++)
            x[i * f + k] = (x[i * f + k] - m->node_mean[k]) / m->node_std[k];
}

void gnn_normalize_graph(const struct gnn_model *m, float *x, size_t n)
{
    int f = m->arch.fg;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < f; k++)
            x[i * f + k] = (x[i * f + k] - m->graph_mean[k]) / m->graph_std[k];
}

/* ---- scratch --------------------------------------------------------- */

void gnn_work_init(struct gnn_work *w)
{
    memset(w, 0, sizeof *w);
}

void gnn_work_fini(struct gnn_work *w)
{
    if (!w)
        return;
    float **fs[] = {&w->gb, &w->a0, &w->h, &w->m, &w->z, &w->u, &w->s, &w->c, &w->r, &w->z1,
                    &w->z2, &w->a1, &w->a2, &w->o, &w->out, &w->p, &w->dh, &w->dhp, &w->dm, &w->dz, &w->du,
                    &w->ds, &w->dr, &w->dz1, &w->dz2, &w->da, &w->dout, &w->dO, &w->dgb};
    for (size_t i = 0; i < sizeof fs / sizeof fs[0]; i++)
        free(*fs[i]);
    free(w->xc);
    free(w->ec);
    gnn_classes_fini(&w->cl);
    memset(w, 0, sizeof *w);
}

static void grow(float **p, size_t n)
{
    free(*p);
    *p = xmalloc(sizeof(float) * (n ? n : 1));
}

static void work_reserve(struct gnn_work *w, const struct gnn_arch *a, size_t n, size_t g)
{
    size_t H = (size_t)a->hidden, L = (size_t)a->layers;
    size_t Hh = (size_t)a->head_hidden, R = (size_t)readout_dim(a);
    if (n > w->cap_n) {
        n = n + n / 2;
        grow(&w->xc, n * (size_t)a->fn);
        free(w->ec);
        w->ec = xmalloc(sizeof(double) * n);
        grow(&w->a0, n * H);
        grow(&w->h, (L + 1) * n * H);
        grow(&w->m, (L ? L : 1) * n * 3 * H);
        grow(&w->z, (L ? L : 1) * n * H);
        grow(&w->u, n * H);
        grow(&w->s, n);
        grow(&w->c, n);
        grow(&w->p, n);
        grow(&w->dh, n * H);
        grow(&w->dhp, n * H);
        grow(&w->dm, n * 3 * H);
        grow(&w->dz, n * H);
        grow(&w->du, n * H);
        grow(&w->ds, n);
        w->cap_n = n;
    }
    if (g > w->cap_g) {
        g = g + g / 2;
        grow(&w->gb, g * H);
        grow(&w->r, g * R);
        grow(&w->z1, g * Hh);
        grow(&w->z2, g * Hh);
        grow(&w->a1, g * Hh);
        grow(&w->a2, g * Hh);
        grow(&w->o, g * GNN_T__COUNT);
        grow(&w->out, g * GNN_T__COUNT);
        grow(&w->dr, g * R);
        grow(&w->dz1, g * Hh);
        grow(&w->dz2, g * Hh);
        grow(&w->da, g * Hh);
        grow(&w->dout, g * GNN_T__COUNT);
        grow(&w->dO, g * GNN_T__COUNT);
        grow(&w->dgb, g * H);
        w->cap_g = g;
    }
}

/* ---- forward ----------------------------------------------------------- */

/* C[m x n] = A[m x k] B[k x n] + bias, or C += A B with bias NULL: on the
 * forward of classes (fast) gk_gemm's kernel, for training's forward
 * OpenBLAS as before (its results stay bit for bit what they were). */
static void fwd_gemm(bool fast, int m, int n, int k, const float *A, const float *B,
                     const float *bias, float *C)
{
    if (fast)
        gk_gemm(m, n, k, A, k, B, bias, C);
    else if (bias)
        gk_dense(m, n, k, A, B, bias, C);
    else if (m > 0)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, A, k, B, n, 1.0f, C,
                    n);
}

/* Embedding of [xn_i, xg_g] per level-0 class into w->a0 and level 0 of
 * w->h: the graph features' part is the same for every node of a graph,
 * so it is computed once per graph (gb) and added like a bias to
 * xn We[0:fn]. */
static void forward_embed(const struct gnn_model *m, const struct gnn_batch *b,
                          struct gnn_work *w, bool fast)
{
    const struct gnn_arch *a = &m->arch;
    const struct gnn_classes *cl = &w->cl;
    int G = b->n_graphs, H = a->hidden, U = cl->n_cls[0];
    const float *we = tensor_values(m, TENSOR_EMBED_W), *x = b->xn;
    fwd_gemm(fast, G, H, a->fg, b->xg, we + (size_t)a->fn * H, tensor_values(m, TENSOR_EMBED_B),
             w->gb);
    if (U < b->n_nodes) { /* the classes' rows, contiguous */
        for (int k = 0; k < U; k++)
            memcpy(w->xc + (size_t)k * a->fn, b->xn + (size_t)cl->rep[k] * a->fn,
                   sizeof(float) * (size_t)a->fn);
        x = w->xc;
    }
    for (int g = 0; g < G; g++)
        for (int k = cl->coff[g]; k < cl->coff[g + 1]; k++)
            gk_copy_row(w->a0 + (size_t)k * H, w->gb + (size_t)g * H, H);
    fwd_gemm(fast, U, H, a->fn, x, we, NULL, w->a0);
    gk_relu_to(w->a0, w->h, (size_t)U * H);
}

/* Message-passing layer l: the rows of level l + 1's classes from level
 * l's (each computed on the class's first node). */
static void forward_layer(const struct gnn_model *m, const struct gnn_batch *b,
                          struct gnn_work *w, int l, bool fast)
{
    const struct gnn_classes *cl = &w->cl;
    int N = b->n_nodes, H = m->arch.hidden, U = cl->n_cls[l + 1];
    size_t NH = (size_t)N * H;
    const int *cp = cl->cls + (size_t)l * cl->cap_n, *rep = cl->rep + (size_t)(l + 1) * cl->cap_n;
    const float *hp = w->h + (size_t)l * NH;
    float *mm = w->m + (size_t)l * NH * 3, *z = w->z + (size_t)l * NH;
    float *hn = w->h + (size_t)(l + 1) * NH;
    for (int k = 0; k < U; k++) {
        int i = rep[k];
        float *row = mm + (size_t)k * 3 * H;
        gk_copy_row(row, hp + (size_t)cp[i] * H, H);
        for (int side = 0; side < 2; side++) {
            const int *off = side ? b->succ_off : b->pred_off;
            const int *idx = side ? b->succ : b->pred;
            float *agg = row + (size_t)(1 + side) * H;
            int deg = off[i + 1] - off[i];
            if (deg <= 1) { /* none, or one neighbour: its row (0 + x is x) */
                if (deg)
                    gk_copy_row(agg, hp + (size_t)cp[idx[off[i]]] * H, H);
                else
                    memset(agg, 0, sizeof(float) * (size_t)H);
                continue;
            }
            memset(agg, 0, sizeof(float) * (size_t)H);
            for (int e = off[i]; e < off[i + 1]; e++)
                gk_add_row(agg, hp + (size_t)cp[idx[e]] * H, H);
            gk_scale_row(agg, 1.0f / (float)deg, H);
        }
    }
    fwd_gemm(fast, U, H, 3 * H, mm, tensor_values(m, layer_tensor(l)),
             tensor_values(m, layer_tensor(l) + 1), z);
    /* relu plus the residual: the class's own previous row, the first H
     * floats of its mm row */
    for (int k = 0; k < U; k++)
        gk_relu_add_row(z + (size_t)k * H, mm + (size_t)k * 3 * H, hn + (size_t)k * H, H);
}

/* Node head per last-level class, c per node: c = Bn tanh((relu(hL Wn1 +
 * bn1) wn2 + bn2) / Bn). */
static void forward_node_head(const struct gnn_model *m, const struct gnn_batch *b,
                              struct gnn_work *w, bool fast)
{
    const struct gnn_classes *cl = &w->cl;
    int N = b->n_nodes, H = m->arch.hidden, L = m->arch.layers, U = cl->n_cls[L];
    const float *hL = w->h + (size_t)L * N * H;
    const int *cls = cl->cls + (size_t)L * cl->cap_n;
    fwd_gemm(fast, U, H, H, hL, head_values(m, NODE_MLP_W1), head_values(m, NODE_MLP_B1), w->u);
    /* u is kept after the relu (u > 0 exactly where the pre-activation was,
     * which is all the backward pass needs). */
    gk_relu_inplace(w->u, (size_t)U * H);
    float bn2 = head_values(m, NODE_MLP_B2)[0], nb = m->node_bound;
    for (int k = 0; k < U; k++)
        w->s[k] = bn2;
    if (U > 0)
        cblas_sgemv(CblasRowMajor, CblasNoTrans, U, H, 1.0f, w->u, H, head_values(m, NODE_MLP_W2),
                    1, 1.0f, w->s, 1);
    for (int k = 0; k < U; k++) { /* s becomes the class's c */
        w->s[k] = nb * tanhf(w->s[k] / nb);
        w->ec[k] = exp(w->s[k]);
    }
    for (int i = 0; i < N; i++)
        w->c[i] = w->s[cls[i]];
}

/* Readout, S_g and the predicted shares per graph. */
static void forward_readout(const struct gnn_model *m, const struct gnn_batch *b,
                            struct gnn_work *w)
{
    const struct gnn_arch *a = &m->arch;
    int H = a->hidden, R = readout_dim(a), L = a->layers;
    const float *hL = w->h + (size_t)L * b->n_nodes * H;
    const int *cls = w->cl.cls + (size_t)L * w->cl.cap_n;
    for (int g = 0; g < b->n_graphs; g++) {
        int b0 = b->goff[g], b1 = b->goff[g + 1], n = b1 - b0;
        float *r = w->r + (size_t)g * R;
        memset(r, 0, sizeof(float) * (size_t)R);
        double sum = 0;
        for (int i = b0; i < b1; i++) {
            double e = b->w0[i] > 0 ? b->w0[i] * w->ec[cls[i]] : 0;
            w->p[i] = (float)e;
            sum += e;
        }
        for (int i = b0; i < b1; i++)
            w->p[i] = sum > 0 ? (float)(w->p[i] / sum) : 0;
        if (n > 0) {
            gk_readout_pool(hL, cls, b0, b1, H, r, r + H);
            for (int k = 0; k < H; k++)
                r[k] /= (float)n;
        }
        r[2 * H] = sum > 0 ? (float)log(sum) : 0;
        memcpy(r + 2 * H + 1, b->xg + (size_t)g * a->fg, sizeof(float) * (size_t)a->fg);
    }
}

/* The graph head: MLP and linear skip from the readout, the bounds. */
static void forward_graph_head(const struct gnn_model *m, const struct gnn_batch *b,
                               struct gnn_work *w, bool fast)
{
    const struct gnn_arch *a = &m->arch;
    int G = b->n_graphs, H = a->hidden, Hh = a->head_hidden, R = readout_dim(a);
    fwd_gemm(fast, G, Hh, R, w->r, head_values(m, GRAPH_MLP_W1), head_values(m, GRAPH_MLP_B1),
             w->z1);
    gk_relu_to(w->z1, w->a1, (size_t)G * Hh);
    fwd_gemm(fast, G, Hh, Hh, w->a1, head_values(m, GRAPH_MLP_W2), head_values(m, GRAPH_MLP_B2),
             w->z2);
    gk_relu_to(w->z2, w->a2, (size_t)G * Hh);
    fwd_gemm(fast, G, GNN_T__COUNT, Hh, w->a2, head_values(m, GRAPH_MLP_W3),
             head_values(m, GRAPH_MLP_B3), w->o);
    /* Linear skip from the readout. */
    fwd_gemm(fast, G, GNN_T__COUNT, R, w->r, head_values(m, SKIP_W), NULL, w->o);
    for (int g = 0; g < G; g++) {
        float S = w->r[(size_t)g * R + 2 * H];
        for (int t = 0; t < GNN_T__COUNT; t++) {
            float B = m->bound[t];
            w->out[g * GNN_T__COUNT + t] = b->anchor[g * GNN_T__COUNT + t] +
                                           (t != GNN_T_MEMORY ? S : 0) +
                                           B * tanhf(w->o[g * GNN_T__COUNT + t] / B);
        }
    }
}

/* The forward pass on classes of nodes (gnn_classes.h): the classes of
 * identical computation and gk_gemm's products, or (classes false, for
 * training) every node its own class, as the backward pass needs every
 * node's rows, and OpenBLAS's products as before. */
void gnn_forward_impl(const struct gnn_model *m, const struct gnn_batch *b, struct gnn_work *w,
                      bool classes, uint64_t key)
{
    const struct gnn_arch *a = &m->arch;
    work_reserve(w, a, (size_t)b->n_nodes, (size_t)b->n_graphs);
    struct gnn_classes_graph cg = {b->n_nodes, b->n_graphs, a->fn,       b->goff,
                                   b->xn,      b->pred_off, b->pred, b->succ_off, b->succ};
    if (!classes) {
        gnn_classes_identity(&w->cl, &cg, a->layers);
        w->cl_key = 0;
    } else if (!key || key != w->cl_key || w->cl_levels != a->layers) {
        gnn_classes_build(&w->cl, &cg, a->layers);
        w->cl_key = key;
        w->cl_levels = a->layers;
    }
    forward_embed(m, b, w, classes);
    for (int l = 0; l < a->layers; l++)
        forward_layer(m, b, w, l, classes);
    forward_node_head(m, b, w, classes);
    forward_readout(m, b, w);
    forward_graph_head(m, b, w, classes);
}

void gnn_forward(const struct gnn_model *m, const struct gnn_batch *b, struct gnn_work *w)
{
    gnn_forward_impl(m, b, w, true, 0);
}

void gnn_forward_keyed(const struct gnn_model *m, const struct gnn_batch *b, uint64_t key,
                       struct gnn_work *w)
{
    gnn_forward_impl(m, b, w, true, key);
}
