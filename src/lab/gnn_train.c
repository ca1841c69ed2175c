/* gnn_train.c - the GNN's loss, backward pass and Adam (see gnn_train.h). */
#include "lab/gnn_train.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/gnn_impl.h"
#include "core/gnn_kernels.h"
#include "util/xalloc.h"

/* ---- loss and backward ------------------------------------------------- */

/* The loss terms and their gradients with respect to the outputs (dout)
 * and the node shares (ds): squared log error per target, the ordering
 * penalty on pairs, the share cross-entropy. */
static void loss_terms(const struct gnn_batch *b, const struct gnn_targets *tg,
                       struct gnn_work *w, double *lreg_out, double *lsh_out)
{
    int N = b->n_nodes, G = b->n_graphs;
    double invG = 1.0 / G, lreg = 0, lsh = 0;
    for (int g = 0; g < G; g++) {
        double wg = tg->weight ? tg->weight[g] : 1.0;
        for (int t = 0; t < GNN_T__COUNT; t++) {
            float y = tg->y[g * GNN_T__COUNT + t];
            double e = isnan(y) ? 0 : w->out[g * GNN_T__COUNT + t] - y;
            lreg += wg * e * e * invG;
            w->dout[g * GNN_T__COUNT + t] = (float)(2 * wg * e * invG);
        }
    }
    for (int k = 0; k < tg->n_pairs; k++) {
        int f = tg->pair_fast[k], sl = tg->pair_slow[k];
        double e = w->out[f * GNN_T__COUNT + GNN_T_LATENCY] - w->out[sl * GNN_T__COUNT + GNN_T_LATENCY];
        if (e <= 0)
            continue;
        lreg += tg->order_weight * e * e * invG;
        w->dout[f * GNN_T__COUNT + GNN_T_LATENCY] += (float)(2 * tg->order_weight * e * invG);
        w->dout[sl * GNN_T__COUNT + GNN_T_LATENCY] -= (float)(2 * tg->order_weight * e * invG);
    }
    /* Share cross-entropy: -sum p_i log q_i, q = the predicted shares; its
     * gradient with respect to c_i is q_i - p_i (q is a softmax of
     * log w0 + c). Nodes the teacher gives no time keep q_i = 0. */
    for (int i = 0; i < N; i++)
        w->ds[i] = 0;
    if (tg->share && tg->share_weight > 0)
        for (int g = 0; g < G; g++) {
            if (tg->has_share && !tg->has_share[g])
                continue;
            double tot = 0;
            for (int i = b->goff[g]; i < b->goff[g + 1]; i++)
                tot += b->w0[i] > 0 ? tg->share[i] : 0;
            if (!(tot > 0))
                continue;
            for (int i = b->goff[g]; i < b->goff[g + 1]; i++) {
                if (!(b->w0[i] > 0))
                    continue;
                double pt = tg->share[i] / tot, q = w->p[i] > 1e-30f ? w->p[i] : 1e-30;
                lsh -= pt * log(q) * invG * tg->share_weight;
                w->ds[i] += (float)((w->p[i] - pt) * invG * tg->share_weight);
            }
        }
    *lreg_out = lreg;
    *lsh_out = lsh;
}

/* Tensor ti's part of grad, which is laid out as m->w. */
static float *tensor_grad(const struct gnn_model *m, float *grad, int ti)
{
    return grad + m->t[ti].off;
}

/* Head tensor h's part of grad. */
static float *head_grad(const struct gnn_model *m, float *grad, enum gnn_head_tensor h)
{
    return tensor_grad(m, grad, head_tensor(m, h));
}

/* Through the output bounds, the head MLP and the skip to dL/d(readout). */
static void back_head(const struct gnn_model *m, const struct gnn_batch *b, struct gnn_work *w,
                      float *grad)
{
    const struct gnn_arch *a = &m->arch;
    int G = b->n_graphs, H = a->hidden, Hh = a->head_hidden, R = readout_dim(a);
    /* Through the bounds: out = anchor (+ S) + B tanh(o / B). */
    for (int g = 0; g < G; g++)
        for (int t = 0; t < GNN_T__COUNT; t++) {
            float B = m->bound[t], th = tanhf(w->o[g * GNN_T__COUNT + t] / B);
            w->dO[g * GNN_T__COUNT + t] = w->dout[g * GNN_T__COUNT + t] * (1 - th * th);
        }
    gk_dense_back(G, GNN_T__COUNT, Hh, w->a2, head_values(m, GRAPH_MLP_W3), w->dO,
                  head_grad(m, grad, GRAPH_MLP_W3), head_grad(m, grad, GRAPH_MLP_B3), w->da);
    for (size_t k = 0; k < (size_t)G * Hh; k++)
        w->dz2[k] = w->z2[k] > 0 ? w->da[k] : 0;
    gk_dense_back(G, Hh, Hh, w->a1, head_values(m, GRAPH_MLP_W2), w->dz2,
                  head_grad(m, grad, GRAPH_MLP_W2), head_grad(m, grad, GRAPH_MLP_B2), w->da);
    for (size_t k = 0; k < (size_t)G * Hh; k++)
        w->dz1[k] = w->z1[k] > 0 ? w->da[k] : 0;
    gk_dense_back(G, Hh, R, w->r, head_values(m, GRAPH_MLP_W1), w->dz1,
                  head_grad(m, grad, GRAPH_MLP_W1), head_grad(m, grad, GRAPH_MLP_B1), w->dr);
    /* Skip: dWskip += r^T dout; dr += dout Wskip^T. */
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, R, GNN_T__COUNT, G, 1.0f, w->r, R, w->dO,
                GNN_T__COUNT, 1.0f, head_grad(m, grad, SKIP_W), GNN_T__COUNT);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, G, R, GNN_T__COUNT, 1.0f, w->dO,
                GNN_T__COUNT, head_values(m, SKIP_W), GNN_T__COUNT, 1.0f, w->dr, R);
    for (int g = 0; g < G; g++)
        w->dr[(size_t)g * R + 2 * H] +=
            w->dout[g * GNN_T__COUNT + GNN_T_LATENCY] + w->dout[g * GNN_T__COUNT + GNN_T_ENERGY];
}

/* The readout back to the last node embeddings (w->dh) and, through the
 * node head, the node scores. */
static void back_readout(const struct gnn_model *m, const struct gnn_batch *b,
                         struct gnn_work *w, float *grad)
{
    const struct gnn_arch *a = &m->arch;
    int N = b->n_nodes, G = b->n_graphs, H = a->hidden, R = readout_dim(a);
    size_t NH = (size_t)N * H;
    float *dh = w->dh;
    memset(dh, 0, sizeof(float) * NH);
    for (int g = 0; g < G; g++) {
        int b0 = b->goff[g], b1 = b->goff[g + 1], n = b1 - b0;
        if (n == 0)
            continue;
        const float *dr = w->dr + (size_t)g * R;
        float inv = 1.0f / (float)n;
        for (int i = b0; i < b1; i++) {
            float *d = dh + (size_t)i * H;
            for (int k = 0; k < H; k++)
                d[k] += dr[k] * inv;
            w->ds[i] += dr[2 * H] * w->p[i];
        }
        /* the max of column k came from the first node holding its value */
        const float *hL = w->h + (size_t)a->layers * NH, *mx = w->r + (size_t)g * R + H;
        for (int k = 0; k < H; k++) {
            int i = b0;
            while (i < b1 && !(hL[(size_t)i * H + k] == mx[k]))
                i++;
            dh[(size_t)(i < b1 ? i : b0) * H + k] += dr[H + k];
        }
    }
    /* ds holds dL/dc; through the bound c = Bn tanh(s / Bn) to dL/ds. */
    for (int i = 0; i < N; i++) {
        float q = w->c[i] / m->node_bound;
        w->ds[i] *= 1 - q * q;
    }
    /* Node head. */
    const float *hL = w->h + (size_t)a->layers * NH;
    const float *wn2 = head_values(m, NODE_MLP_W2);
    float *gwn2 = head_grad(m, grad, NODE_MLP_W2);
    for (int i = 0; i < N; i++) {
        const float *u = w->u + (size_t)i * H;
        float *du = w->du + (size_t)i * H;
        float ds = w->ds[i];
        head_grad(m, grad, NODE_MLP_B2)[0] += ds;
        for (int k = 0; k < H; k++) {
            gwn2[k] += ds * (u[k] > 0 ? u[k] : 0);
            du[k] = u[k] > 0 ? ds * wn2[k] : 0;
        }
    }
    gk_dense_back(N, H, H, hL, head_values(m, NODE_MLP_W1), w->du, head_grad(m, grad, NODE_MLP_W1),
                  head_grad(m, grad, NODE_MLP_B1), w->dhp);
    for (size_t k = 0; k < NH; k++)
        dh[k] += w->dhp[k];
}

/* Message-passing layers, last to first, then the embedding; w->dh holds
 * dL/dh of the last layer on entry. */
static void back_layers(const struct gnn_model *m, const struct gnn_batch *b,
                        struct gnn_work *w, float *grad)
{
    const struct gnn_arch *a = &m->arch;
    int N = b->n_nodes, G = b->n_graphs, H = a->hidden;
    size_t NH = (size_t)N * H;
    float *dh = w->dh;
    for (int l = a->layers - 1; l >= 0; l--) {
        const float *z = w->z + (size_t)l * NH, *mm = w->m + (size_t)l * NH * 3;
        for (size_t k = 0; k < NH; k++)
            w->dz[k] = z[k] > 0 ? dh[k] : 0;
        gk_dense_back(N, H, 3 * H, mm, tensor_values(m, layer_tensor(l)), w->dz,
                      tensor_grad(m, grad, layer_tensor(l)),
                      tensor_grad(m, grad, layer_tensor(l) + 1), w->dm);
        /* dh stays as the residual path; add the self and neighbour parts. */
        for (int i = 0; i < N; i++)
            gk_add_row(dh + (size_t)i * H, w->dm + (size_t)i * 3 * H, H);
        for (int i = 0; i < N; i++) {
            const float *row = w->dm + (size_t)i * 3 * H;
            for (int side = 0; side < 2; side++) {
                const int *off = side ? b->succ_off : b->pred_off;
                const int *idx = side ? b->succ : b->pred;
                int deg = off[i + 1] - off[i];
                if (!deg)
                    continue;
                float inv = 1.0f / (float)deg;
                const float *restrict src = row + (size_t)(1 + side) * H;
                for (int e = off[i]; e < off[i + 1]; e++) {
                    float *restrict d = dh + (size_t)idx[e] * H;
                    for (int k = 0; k < H; k++)
                        d[k] += src[k] * inv;
                }
            }
        }
    }
    /* Embedding. */
    for (size_t k = 0; k < NH; k++)
        w->dz[k] = w->a0[k] > 0 ? dh[k] : 0;
    gk_dense_back(N, H, a->fn, b->xn, tensor_values(m, TENSOR_EMBED_W), w->dz,
                  tensor_grad(m, grad, TENSOR_EMBED_W), tensor_grad(m, grad, TENSOR_EMBED_B), NULL);
    /* Graph part: dWe[fn:] += xg^T (per-graph sums of dz). */
    float *dgb = w->dgb;
    memset(dgb, 0, sizeof(float) * (size_t)G * H);
    for (int g = 0; g < G; g++)
        for (int i = b->goff[g]; i < b->goff[g + 1]; i++)
            gk_add_row(dgb + (size_t)g * H, w->dz + (size_t)i * H, H);
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, a->fg, H, G, 1.0f, b->xg, a->fg, dgb, H,
                1.0f, tensor_grad(m, grad, TENSOR_EMBED_W) + (size_t)a->fn * H, H);
}

double gnn_loss(const struct gnn_model *m, const struct gnn_batch *b,
                const struct gnn_targets *tg, struct gnn_work *w, float *grad,
                double *reg_loss, double *share_loss)
{
    gnn_forward_impl(m, b, w, false, 0);
    if (b->n_graphs == 0)
        return 0;
    double lreg, lsh;
    loss_terms(b, tg, w, &lreg, &lsh);
    if (reg_loss)
        *reg_loss = lreg;
    if (share_loss)
        *share_loss = lsh;
    if (!grad)
        return lreg + lsh;
    back_head(m, b, w, grad);
    back_readout(m, b, w, grad);
    back_layers(m, b, w, grad);
    return lreg + lsh;
}

/* ---- Adam ---------------------------------------------------------------- */

void gnn_adam_init(struct gnn_adam *a, size_t n, float lr)
{
    memset(a, 0, sizeof *a);
    a->n = n;
    a->mom = xcalloc(n, sizeof(float));
    a->vel = xcalloc(n, sizeof(float));
    a->lr = lr;
    a->beta1 = 0.9f;
    a->beta2 = 0.999f;
    a->eps = 1e-8f;
    a->wd = 0;
}

void gnn_adam_step(struct gnn_adam *a, float *w, const float *g)
{
    a->t++;
    double c1 = 1 - pow(a->beta1, (double)a->t), c2 = 1 - pow(a->beta2, (double)a->t);
    float lr = (float)(a->lr * sqrt(c2) / c1);
    for (size_t i = 0; i < a->n; i++) {
        a->mom[i] = a->beta1 * a->mom[i] + (1 - a->beta1) * g[i];
        a->vel[i] = a->beta2 * a->vel[i] + (1 - a->beta2) * g[i] * g[i];
        w[i] -= lr * a->mom[i] / (sqrtf(a->vel[i]) + a->eps) + a->lr * a->wd * w[i];
    }
}

void gnn_grad_keep_target(const struct gnn_model *m, int t, float *grad)
{
    int outs[3] = {head_tensor(m, GRAPH_MLP_W3), head_tensor(m, GRAPH_MLP_B3),
                   head_tensor(m, SKIP_W)};
    for (int ti = 0; ti < m->n_tensors; ti++) {
        float *gt = grad + m->t[ti].off;
        size_t n = (size_t)m->t[ti].rows * (size_t)m->t[ti].cols;
        bool out = ti == outs[0] || ti == outs[1] || ti == outs[2];
        /* the output tensors have one column per target */
        for (size_t i = 0; i < n; i++)
            if (!out || (int)(i % GNN_T__COUNT) != t)
                gt[i] = 0;
    }
}

void gnn_adam_fini(struct gnn_adam *a)
{
    if (!a)
        return;
    free(a->mom);
    free(a->vel);
    memset(a, 0, sizeof *a);
}
