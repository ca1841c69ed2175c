/* test_gnn.c - finite-difference gradient check of every parameter group,
 * the forward pass against hand-computed values, loss decreasing on a tiny
 * synthetic dataset, determinism, and the forward on classes of identical
 * nodes against the per-node one. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/gnn.h"
#include "lab/gnn_train.h"

/* A small random batch: G graphs with chain + skip edges. */
struct toy {
    int G, N;
    int goff[9];
    float *xn, *xg, *y, *share, *w0, *anchor, *wt;
    int pred_off[64], pred[128], succ_off[64], succ[128];
    struct gnn_batch b;
    struct gnn_targets t;
};

static double urand(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*s >> 11) / 9007199254740992.0;
}

static void toy_build(struct toy *T, int fn, int fg, uint64_t seed)
{
    memset(T, 0, sizeof *T);
    T->G = 3;
    int sizes[3] = {5, 1, 7};
    T->goff[0] = 0;
    for (int g = 0; g < T->G; g++)
        T->goff[g + 1] = T->goff[g] + sizes[g];
    T->N = T->goff[T->G];
    uint64_t s = seed;
    T->xn = malloc(sizeof(float) * T->N * fn);
    T->xg = malloc(sizeof(float) * T->G * fg);
    T->y = malloc(sizeof(float) * T->G * GNN_T__COUNT);
    T->share = malloc(sizeof(float) * T->N);
    T->w0 = malloc(sizeof(float) * T->N);
    T->anchor = malloc(sizeof(float) * T->G * GNN_T__COUNT);
    T->wt = malloc(sizeof(float) * T->G);
    for (int g = 0; g < T->G; g++) {
        double sum = 0;
        for (int i = T->goff[g]; i < T->goff[g + 1]; i++)
            /* node 1 gets no time from the teacher (fused away) */
            sum += (T->w0[i] = i == 1 ? 0.0f : (float)(0.05 + urand(&s)));
        for (int i = T->goff[g]; i < T->goff[g + 1]; i++)
            T->w0[i] = (float)(T->w0[i] / sum);
        T->wt[g] = 0.5f + (float)g * 0.75f;
    }
    for (int i = 0; i < T->G * GNN_T__COUNT; i++)
        T->anchor[i] = (float)(4 * urand(&s) - 2);
    for (int i = 0; i < T->N * fn; i++)
        T->xn[i] = (float)(2 * urand(&s) - 1);
    for (int i = 0; i < T->G * fg; i++)
        T->xg[i] = (float)(2 * urand(&s) - 1);
    for (int i = 0; i < T->G * GNN_T__COUNT; i++) /* within the correction bounds */
        T->y[i] = T->anchor[i] + (float)(0.8 * urand(&s) - 0.4);
    T->y[1 * GNN_T__COUNT + 1] = NAN; /* a missing target */
    /* edges: i-1 -> i inside each graph, plus i-2 -> i (skip) */
    int np = 0, cnt_s[64] = {0};
    for (int g = 0; g < T->G; g++)
        for (int i = T->goff[g]; i < T->goff[g + 1]; i++) {
            T->pred_off[i] = np;
            if (i - 1 >= T->goff[g])
                T->pred[np++] = i - 1;
            if (i - 2 >= T->goff[g])
                T->pred[np++] = i - 2;
        }
    T->pred_off[T->N] = np;
    for (int e = 0; e < np; e++)
        cnt_s[T->pred[e]]++;
    T->succ_off[0] = 0;
    for (int i = 0; i < T->N; i++)
        T->succ_off[i + 1] = T->succ_off[i] + cnt_s[i];
    int fill[64] = {0};
    for (int i = 0; i < T->N; i++)
        for (int e = T->pred_off[i]; e < T->pred_off[i + 1]; e++) {
            int j = T->pred[e];
            T->succ[T->succ_off[j] + fill[j]++] = i;
        }
    for (int g = 0; g < T->G; g++) {
        double sum = 0;
        for (int i = T->goff[g]; i < T->goff[g + 1]; i++)
            sum += (T->share[i] = (float)(0.1 + urand(&s)));
        for (int i = T->goff[g]; i < T->goff[g + 1]; i++)
            T->share[i] = (float)(T->share[i] / sum);
    }
    T->b = (struct gnn_batch){T->G, T->N, T->goff, T->xn, T->xg,
                              T->pred_off, T->pred, T->succ_off, T->succ, T->w0, T->anchor};
    T->t = (struct gnn_targets){.y = T->y, .weight = T->wt, .share = T->share, .share_weight = 0.7f};
}

static void toy_free(struct toy *T)
{
    free(T->xn);
    free(T->xg);
    free(T->y);
    free(T->share);
    free(T->w0);
    free(T->anchor);
    free(T->wt);
}

/* Central differences in double on the float model: with small widths the
 * float rounding of a ~1 loss is ~1e-7, so eps = 1e-3 keeps the truncation
 * and rounding errors well under the 2% tolerance on non-tiny gradients. */
static void test_gradient_check(void **state)
{
    (void)state;
    struct gnn_arch a = {4, 3, 5, 2, 6};
    struct gnn_model m;
    assert_int_equal(gnn_model_alloc(&m, &a, NULL), ST_OK);
    gnn_model_init(&m, 42);
    /* Non-zero biases, skip and last layers (they start at zero) so every
     * gradient path is exercised. */
    uint64_t s = 7;
    for (int ti = 0; ti < m.n_tensors; ti++)
        if (m.t[ti].rows == 1 || strcmp(m.t[ti].name, "skip.w") == 0 ||
            strcmp(m.t[ti].name, "node2.w") == 0 || strcmp(m.t[ti].name, "head3.w") == 0)
            for (int k = 0; k < m.t[ti].rows * m.t[ti].cols; k++)
                m.w[m.t[ti].off + k] = (float)(0.2 * (2 * urand(&s) - 1));
    struct toy T;
    toy_build(&T, a.fn, a.fg, 3);
    struct gnn_work w;
    gnn_work_init(&w);
    float *grad = calloc(m.n_params, sizeof(float));
    gnn_loss(&m, &T.b, &T.t, &w, grad, NULL, NULL);
    int checked_groups = 0;
    for (int ti = 0; ti < m.n_tensors; ti++) {
        size_t n = (size_t)m.t[ti].rows * m.t[ti].cols;
        int bad = 0, nonzero = 0;
        for (size_t k = 0; k < n; k++) {
            size_t idx = m.t[ti].off + k;
            float save = m.w[idx];
            const float eps = 1e-3f;
            m.w[idx] = save + eps;
            double lp = gnn_loss(&m, &T.b, &T.t, &w, NULL, NULL, NULL);
            m.w[idx] = save - eps;
            double lm = gnn_loss(&m, &T.b, &T.t, &w, NULL, NULL, NULL);
            m.w[idx] = save;
            double num = (lp - lm) / (2 * eps), an = grad[idx];
            double tol = 2e-2 * fmax(fabs(num), fabs(an)) + 2e-3;
            if (fabs(num - an) > tol) {
                bad++;
                fprintf(stderr, "%s[%zu]: analytic %.6g numeric %.6g\n", m.t[ti].name, k, an,
                        num);
            }
            nonzero += fabs(an) > 1e-6;
        }
        /* A relu kink crossed by +-eps can spoil one entry; more is a bug. */
        assert_true(bad <= (n > 20 ? 1 : 0));
        /* Every group must receive gradient (a dead path is a bug too). */
        assert_true(nonzero > 0);
        checked_groups++;
    }
    assert_int_equal(checked_groups, 2 + 2 * a.layers + 11);
    free(grad);
    gnn_work_fini(&w);
    toy_free(&T);
    gnn_model_fini(&m);
}

/* A fresh model is the teacher: every output equals the anchor and the
 * shares are the teacher's. */
static void test_fresh_model_is_teacher(void **state)
{
    (void)state;
    struct gnn_arch a = {4, 3, 8, 2, 8};
    struct gnn_model m;
    assert_int_equal(gnn_model_alloc(&m, &a, NULL), ST_OK);
    gnn_model_init(&m, 3);
    struct toy T;
    toy_build(&T, a.fn, a.fg, 5);
    struct gnn_work w;
    gnn_work_init(&w);
    gnn_forward(&m, &T.b, &w);
    for (int i = 0; i < T.G * GNN_T__COUNT; i++)
        assert_float_equal(w.out[i], T.anchor[i], 1e-6);
    for (int i = 0; i < T.N; i++)
        assert_float_equal(w.p[i], T.w0[i], 1e-6);
    gnn_work_fini(&w);
    toy_free(&T);
    gnn_model_fini(&m);
}

/* Two nodes, no layers, hand-set weights: the output is computable by hand
 * (values from the equations in gnn.h, evaluated in double). */
static void test_forward_by_hand(void **state)
{
    (void)state;
    struct gnn_arch a = {1, 1, 1, 0, 1};
    struct gnn_model m;
    assert_int_equal(gnn_model_alloc(&m, &a, NULL), ST_OK);
    /* emb.w [2x1] = {1, 1}, emb.b = 0 -> h = relu(xn + xg) = {0.75, 0} */
    float *w = m.w;
    w[m.t[0].off] = 1;
    w[m.t[0].off + 1] = 1;
    /* node1.w = 2, node2.w = 0.2, node2.b = 0.1 -> s = {0.4, 0.1},
     * c = ln4 tanh(s / ln4) */
    int base = 2;
    w[m.t[base].off] = 2;
    w[m.t[base + 2].off] = 0.2f;
    w[m.t[base + 3].off] = 0.1f;
    /* head1.w [2*1+1+1 x 1] = {1 (mean), 0 (max), 1 (S), 0 (xg)}; b = 0 */
    w[m.t[base + 4].off + 0] = 1;
    w[m.t[base + 4].off + 2] = 1;
    /* head2 = identity, head3.w = {1, 2, -1}, b = {0, 0, 0.5} */
    w[m.t[base + 6].off] = 1;
    w[m.t[base + 8].off + 0] = 1;
    w[m.t[base + 8].off + 1] = 2;
    w[m.t[base + 8].off + 2] = -1;
    w[m.t[base + 9].off + 2] = 0.5f;
    int goff[2] = {0, 2}, off[3] = {0, 0, 0}, idx[1] = {0};
    float xn[2] = {0.25f, -1.0f}, xg[1] = {0.5f}, w0[2] = {0.6f, 0.4f};
    float anchor[3] = {1.0f, -2.0f, 7.0f};
    struct gnn_batch b = {1, 2, goff, xn, xg, off, idx, off, idx, w0, anchor};
    struct gnn_work wk;
    gnn_work_init(&wk);
    gnn_forward(&m, &b, &wk);
    assert_float_equal(wk.c[0], 0.3892570f, 1e-5);
    assert_float_equal(wk.c[1], 0.0998269f, 1e-5);
    assert_float_equal(wk.p[0], 0.6670550f, 1e-5);
    assert_float_equal(wk.p[1], 1 - 0.6670550f, 1e-5);
    /* S = 0.2833141; o = {0.375 + S, 2 (0.375 + S), 0.5 - (0.375 + S)} */
    assert_float_equal(wk.out[0], 1.8962343f, 1e-5);
    assert_float_equal(wk.out[1], -0.6912879f, 1e-5);
    assert_float_equal(wk.out[2], 6.8443825f, 1e-5);
    gnn_work_fini(&wk);
    gnn_model_fini(&m);
}

static double train_toy(uint64_t seed, int steps, float *first_out)
{
    struct gnn_arch a = {4, 3, 16, 2, 16};
    struct gnn_model m;
    gnn_model_alloc(&m, &a, NULL);
    gnn_model_init(&m, seed);
    struct toy T;
    toy_build(&T, a.fn, a.fg, 11);
    struct gnn_work w;
    gnn_work_init(&w);
    struct gnn_adam opt;
    gnn_adam_init(&opt, m.n_params, 1e-2f);
    float *grad = malloc(sizeof(float) * m.n_params);
    double first = -1, last = 0;
    for (int it = 0; it < steps; it++) {
        memset(grad, 0, sizeof(float) * m.n_params);
        double r0;
        gnn_loss(&m, &T.b, &T.t, &w, grad, &r0, NULL);
        last = r0;
        if (first < 0)
            first = last;
        gnn_adam_step(&opt, m.w, grad);
    }
    gnn_forward(&m, &T.b, &w);
    if (first_out)
        *first_out = w.out[0];
    /* The share cross-entropy has a floor (the label shares' entropy), so
     * the regression part is what must fall. */
    double reg;
    gnn_loss(&m, &T.b, &T.t, &w, NULL, &reg, NULL);
    free(grad);
    gnn_adam_fini(&opt);
    gnn_work_fini(&w);
    toy_free(&T);
    gnn_model_fini(&m);
    assert_true(last < first * 0.5);
    return reg;
}

static void test_loss_decreases(void **state)
{
    (void)state;
    double reg = train_toy(5, 300, NULL);
    /* 8 present targets fitted by a 16-wide model: near-zero error. */
    assert_true(reg < 1e-2);
}

static void test_deterministic(void **state)
{
    (void)state;
    float o1, o2, o3;
    train_toy(9, 30, &o1);
    train_toy(9, 30, &o2);
    train_toy(10, 30, &o3);
    assert_true(o1 == o2);
    assert_true(o1 != o3);
}

/* Training with every gradient but the memory output's zeroed
 * (gnn_grad_keep_target, dippm train --only memory) fits the memory
 * targets and leaves the latency and energy outputs exactly unchanged. */
static void test_keep_target(void **state)
{
    (void)state;
    struct gnn_arch a = {4, 3, 16, 2, 16};
    struct gnn_model m;
    gnn_model_alloc(&m, &a, NULL);
    gnn_model_init(&m, 3);
    for (size_t i = 0; i < m.n_params; i++) /* a model that is not the teacher */
        m.w[i] += 0.01f * (float)((i * 7919) % 13) - 0.06f;
    struct toy T;
    toy_build(&T, a.fn, a.fg, 11);
    struct gnn_work w;
    gnn_work_init(&w);
    gnn_forward(&m, &T.b, &w);
    float before[3 * GNN_T__COUNT], *old_w = malloc(sizeof(float) * m.n_params);
    memcpy(before, w.out, sizeof before);
    memcpy(old_w, m.w, sizeof(float) * m.n_params);
    struct gnn_adam opt;
    gnn_adam_init(&opt, m.n_params, 1e-2f);
    float *grad = malloc(sizeof(float) * m.n_params);
    double first = -1, reg = 0;
    for (int it = 0; it < 200; it++) {
        memset(grad, 0, sizeof(float) * m.n_params);
        gnn_loss(&m, &T.b, &T.t, &w, grad, &reg, NULL);
        if (first < 0)
            first = reg;
        gnn_grad_keep_target(&m, GNN_T_MEMORY, grad);
        gnn_adam_step(&opt, m.w, grad);
    }
    gnn_forward(&m, &T.b, &w);
    double mem_err_before = 0, mem_err_after = 0;
    for (int g = 0; g < T.G; g++) {
        int k = g * GNN_T__COUNT;
        assert_true(w.out[k + GNN_T_LATENCY] == before[k + GNN_T_LATENCY]);
        assert_true(w.out[k + GNN_T_ENERGY] == before[k + GNN_T_ENERGY]);
        mem_err_before += fabs(before[k + GNN_T_MEMORY] - T.y[k + GNN_T_MEMORY]);
        mem_err_after += fabs(w.out[k + GNN_T_MEMORY] - T.y[k + GNN_T_MEMORY]);
    }
    assert_true(mem_err_after < 0.5 * mem_err_before);
    /* only the memory column of the last layer and skip and its bias moved */
    size_t moved = 0;
    for (size_t i = 0; i < m.n_params; i++)
        moved += m.w[i] != old_w[i];
    assert_true(moved > 0 && moved <= (size_t)a.head_hidden + (2 * a.hidden + 1 + a.fg) + 1);
    free(grad);
    free(old_w);
    gnn_adam_fini(&opt);
    gnn_work_fini(&w);
    toy_free(&T);
    gnn_model_fini(&m);
}

/* gnn_forward computes each class of identical nodes once (gnn_classes.h)
 * and its products with gk_gemm; gnn_loss's forward computes every node
 * with OpenBLAS. On two graphs of repeated blocks (same node rows in both,
 * different graph features) with every weight random, both must agree. */
static void test_forward_classes(void **state)
{
    (void)state;
    enum { G = 2, NG = 40, N = G * NG, FN = 6, FG = 3 };
    struct gnn_arch a = {FN, FG, 24, 2, 32};
    struct gnn_model m;
    assert_int_equal(gnn_model_alloc(&m, &a, NULL), ST_OK);
    uint64_t s = 7;
    for (size_t i = 0; i < m.n_params; i++)
        m.w[i] = (float)(urand(&s) - 0.5);
    static float xn[N * FN], xg[G * FG], w0[N], anchor[G * 3], y[G * 3];
    static int pred_off[N + 1], pred[2 * N], succ_off[N + 1], succ[2 * N], cnt[N];
    int goff[G + 1] = {0, NG, N}, np = 0;
    for (int i = 0; i < N; i++) {
        int blk = (i % NG) % 4; /* a block of 4 distinct rows, repeated */
        for (int k = 0; k < FN; k++)
            xn[i * FN + k] = (float)sin(1.0 + blk * 7 + k);
        w0[i] = 1.0f / NG;
        pred_off[i] = np;
        if (i % NG >= 1)
            pred[np++] = i - 1;
        if (i % NG >= 2 && blk == 3)
            pred[np++] = i - 2;
    }
    pred_off[N] = np;
    for (int e = 0; e < np; e++)
        cnt[pred[e]]++;
    succ_off[0] = 0;
    for (int i = 0; i < N; i++)
        succ_off[i + 1] = succ_off[i] + cnt[i];
    memset(cnt, 0, sizeof cnt);
    for (int i = 0; i < N; i++)
        for (int e = pred_off[i]; e < pred_off[i + 1]; e++)
            succ[succ_off[pred[e]] + cnt[pred[e]]++] = i;
    for (int i = 0; i < G * FG; i++)
        xg[i] = (float)(urand(&s) - 0.5);
    for (int i = 0; i < G * 3; i++)
        anchor[i] = y[i] = (float)i;
    struct gnn_batch b = {G, N, goff, xn, xg, pred_off, pred, succ_off, succ, w0, anchor};
    struct gnn_targets t = {.y = y};
    struct gnn_work w1, w2;
    gnn_work_init(&w1);
    gnn_work_init(&w2);
    gnn_forward(&m, &b, &w1);
    assert_true(w1.cl.n_cls[0] == 2 * 4); /* four rows per graph */
    assert_true(w1.cl.n_cls[2] < N / 2);
    gnn_loss(&m, &b, &t, &w2, NULL, NULL, NULL);
    for (int i = 0; i < G * 3; i++)
        assert_float_equal(w1.out[i], w2.out[i], 1e-5 * fmax(1, fabs(w2.out[i])));
    for (int i = 0; i < N; i++) {
        assert_float_equal(w1.c[i], w2.c[i], 1e-5 * fmax(1, fabs(w2.c[i])));
        assert_float_equal(w1.p[i], w2.p[i], 1e-5 * fmax(1e-3, fabs(w2.p[i])));
    }
    assert_true(fabs(w1.out[0] - w1.out[3]) > 1e-4); /* the graphs differ */
    gnn_work_fini(&w1);
    gnn_work_fini(&w2);
    gnn_model_fini(&m);
}

static void test_arch_limits(void **state)
{
    (void)state;
    struct gnn_model m;
    struct diag d = {0};
    struct gnn_arch bad = {4, 3, 0, 2, 8};
    assert_int_equal(gnn_model_alloc(&m, &bad, &d), ST_ERANGE);
    assert_non_null(strstr(d.msg, "width"));
    struct gnn_arch bad2 = {4, 3, 8, 99, 8};
    diag_clear(&d);
    assert_int_equal(gnn_model_alloc(&m, &bad2, &d), ST_ERANGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forward_by_hand),
        cmocka_unit_test(test_fresh_model_is_teacher),
        cmocka_unit_test(test_gradient_check),
        cmocka_unit_test(test_loss_decreases),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_keep_target),
        cmocka_unit_test(test_arch_limits),
        cmocka_unit_test(test_forward_classes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
