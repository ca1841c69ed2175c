/*
 * test_sim_props.c - orderings the teacher must keep, over every zoo family
 * (default configuration) x batch 1..1024 x every GPU and MIG slice x every
 * precision/runtime pair the GPU and runtime can run:
 *   - a bigger batch never lowers latency per batch, nor memory;
 *   - memory is one figure per model and configuration, whatever the slice;
 *   - a bigger slice of the same GPU (no fewer SMs, no less memory) is never
 *     slower, and the whole GPU is never slower than a slice;
 *   - H100 is never slower than A100 of the same form factor, H200 never
 *     slower than H100 SXM, H100 PCIe never slower than T4 or V100 PCIe,
 *     and no GPU slower than one that gpu_newer says it dominates, at equal
 *     precision and runtime;
 *   - fp16 is never slower than fp32 in the same runtime;
 *   - an engine replayed as a CUDA graph is never slower than on a stream;
 *   - the roofline bound never exceeds the prediction.
 * Every violation is printed; the test fails on the first family with any.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/gpu.h"
#include "graph/ops/shape.h"
#include "core/sim.h"
#include "graph/zoo/zoo.h"

#define N_BATCH 11 /* 1, 2, 4, ..., 1024 */
#define MAX_HW 64

struct cell {
    double lat, mem, roof;
    bool ok;
};

/* hw index: gpu * (1 + max profiles) + (mig + 1) */
static int n_hw_slots(void)
{
    int m = 0;
    for (int gi = 0; gi < gpu_count(); gi++)
        if (gpu_get(gi)->n_mig > m)
            m = gpu_get(gi)->n_mig;
    return m + 1;
}

static int violations;

static void report(const char *fam, const char *what, const char *fmt, ...)
{
    if (violations++ < 40) {
        va_list ap;
        va_start(ap, fmt);
        printf("VIOLATION %s: %s: ", fam, what);
        vprintf(fmt, ap);
        printf("\n");
        va_end(ap);
    }
}

static struct cell *at(struct cell *t, int slots, int b, int gi, int mig, int p, int rt)
{
    size_t hw = (size_t)gi * slots + (size_t)(mig + 1);
    return &t[(((size_t)b * gpu_count() * slots + hw) * PREC__COUNT + p) * RT__COUNT + rt];
}

static void fill(const char *fam, struct graph *g, struct cell *t, int slots)
{
    int bs = graph_batch_sym(g);
    for (int b = 0; b < N_BATCH; b++) {
        if (bs >= 0)
            g->syms[bs].val = (int64_t)1 << b;
        g->inferred = false;
        struct diag d = {0};
        if (graph_infer(g, &d) != ST_OK) {
            printf("%s batch %d: %s (skipped from here on)\n", fam, 1 << b, d.msg);
            return;
        }
        for (int gi = 0; gi < gpu_count(); gi++)
            for (int mig = -1; mig < gpu_get(gi)->n_mig; mig++)
                for (int p = 0; p < PREC__COUNT; p++)
                    for (int rt = 0; rt < RT__COUNT; rt++) {
                        struct config c = {.gpu = gi, .mig = mig, .prec = (enum precision)p,
                                           .rt = (enum runtime)rt, .batch = (int64_t)1 << b};
                        if (config_supported(&c, NULL) != ST_OK)
                            continue;
                        struct sim_result r;
                        if (sim_run(g, &c, &r, &d) != ST_OK)
                            fail_msg("%s: sim_run: %s", fam, d.msg);
                        struct cell *e = at(t, slots, b, gi, mig, p, rt);
                        *e = (struct cell){r.latency_ms, r.memory_mib, r.roofline_ms, true};
                        sim_result_fini(&r);
                    }
        if (bs < 0)
            break;
    }
}

/* slice a is no bigger than slice b (-1 = whole GPU) */
static bool smaller_slice(const struct gpu_spec *g, int a, int b)
{
    if (b < 0)
        return true;
    if (a < 0)
        return false;
    return g->mig[a].sms <= g->mig[b].sms && g->mig[a].mem_eighths <= g->mig[b].mem_eighths;
}

static void check_orders(const char *fam, struct cell *t, int slots, int nb)
{
    const double tol = 1 + 1e-9;
    int a100s = gpu_find("A100-SXM4-80GB"), a100s40 = gpu_find("A100-SXM4-40GB");
    int a100p = gpu_find("A100-PCIe-80GB"), a100p40 = gpu_find("A100-PCIe-40GB");
    int h100s = gpu_find("H100-SXM5-80GB"), h100p = gpu_find("H100-PCIe-80GB");
    int h200 = gpu_find("H200-SXM-141GB");
    int l4 = gpu_find("L4-PCIe-24GB"), t4 = gpu_find("T4-PCIe-16GB");
    int v100 = gpu_find("V100-PCIe-32GB");
    const int pairs[][2] = {{a100s, h100s}, {a100s40, h100s}, {a100p, h100p},
                            {a100p40, h100p}, {h100s, h200},  {t4, h100p},
                            {v100, h100p}};
    (void)l4; /* no GPU of the table dominates L4: its SMs are the fastest */
    for (int b = 0; b < nb; b++)
        for (int gi = 0; gi < gpu_count(); gi++)
            for (int mig = -1; mig < gpu_get(gi)->n_mig; mig++)
                for (int p = 0; p < PREC__COUNT; p++)
                    for (int rt = 0; rt < RT__COUNT; rt++) {
                        const struct gpu_spec *g = gpu_get(gi);
                        struct cell *e = at(t, slots, b, gi, mig, p, rt);
                        if (!e->ok)
                            continue;
                        const char *pn = precision_name((enum precision)p);
                        const char *rn = runtime_name((enum runtime)rt);
                        if (e->roof > e->lat * tol)
                            report(fam, "roofline above prediction", "%s %d b%d %s %s", g->name,
                                   mig, 1 << b, pn, rn);
                        if (b > 0) {
                            struct cell *s = at(t, slots, b - 1, gi, mig, p, rt);
                            if (s->ok && e->lat * tol < s->lat)
                                report(fam, "bigger batch faster", "%s %d b%d %.4f < b%d %.4f %s %s",
                                       g->name, mig, 1 << b, e->lat, 1 << (b - 1), s->lat, pn, rn);
                            if (s->ok && e->mem * tol < s->mem)
                                report(fam, "bigger batch less memory", "%s b%d %s %s", g->name,
                                       1 << b, pn, rn);
                        }
                        /* a slice changes only the part of the context
                         * that grows with the SMs it has */
                        struct cell *whole = at(t, slots, b, gi, -1, p, rt);
                        double want = mig < 0 ? 0
                                              : whole->mem - sim_params_default()->context_sm_mib *
                                                                 (g->sms - g->mig[mig].sms);
                        if (mig >= 0 && whole->ok &&
                            (e->mem > want * tol || e->mem * tol < want || e->mem > whole->mem))
                            report(fam, "memory differs by slice beyond its context",
                                   "%s %s b%d", g->name, g->mig[mig].name, 1 << b);
                        for (int m2 = -1; m2 < g->n_mig; m2++) {
                            struct cell *o = at(t, slots, b, gi, m2, p, rt);
                            if (m2 != mig && o->ok && smaller_slice(g, mig, m2) &&
                                o->lat > e->lat * tol)
                                report(fam, "bigger slice slower", "%s %d vs %d b%d %s %s",
                                       g->name, m2, mig, 1 << b, pn, rn);
                        }
                        if (p == PREC_FP32) {
                            struct cell *h = at(t, slots, b, gi, mig, PREC_FP16, rt);
                            if (h->ok && h->lat > e->lat * tol)
                                report(fam, "fp16 slower than fp32", "%s %d b%d %s %.4f > %.4f",
                                       g->name, mig, 1 << b, rn, h->lat, e->lat);
                        }
                        for (int k = 0; rt == RT_TENSORRT && k < 2; k++) {
                            struct cell *gr =
                                at(t, slots, b, gi, mig, p, k ? RT_VLLM : RT_TENSORRT_GRAPH);
                            if (gr->ok && gr->lat > e->lat * tol)
                                report(fam, "CUDA graph slower than the stream",
                                       "%s %d b%d %s %s %.4f > %.4f", g->name, mig, 1 << b, pn,
                                       k ? "vllm" : "tensorrt-graph", gr->lat, e->lat);
                        }
                        if (mig < 0)
                            for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
                                if (pairs[k][0] != gi)
                                    continue;
                                struct cell *n = at(t, slots, b, pairs[k][1], -1, p, rt);
                                if (n->ok && n->lat > e->lat * tol)
                                    report(fam, "newer GPU slower", "%s vs %s b%d %s %s",
                                           gpu_get(pairs[k][1])->name, g->name, 1 << b, pn, rn);
                            }
                        /* the pairs training and eval --orderings take */
                        for (int k = 0; mig < 0 && k < gpu_count(); k++) {
                            struct cell *n = at(t, slots, b, k, -1, p, rt);
                            if (gpu_newer(k, gi, (enum precision)p) && n->ok &&
                                n->lat > e->lat * tol)
                                report(fam, "dominating GPU slower", "%s vs %s b%d %s %s",
                                       gpu_get(k)->name, g->name, 1 << b, pn, rn);
                        }
                    }
}

static void test_orderings(void **state)
{
    (void)state;
    int slots = n_hw_slots();
    size_t n = (size_t)N_BATCH * gpu_count() * slots * PREC__COUNT * RT__COUNT;
    struct cell *t = malloc(n * sizeof *t);
    assert_non_null(t);
    int families = 0;
    for (int f = 0; f < zoo_family_count(); f++) {
        const char *fam = zoo_family_name(f);
        char spec[64];
        snprintf(spec, sizeof spec, "zoo:%s", fam);
        struct diag d = {0};
        struct graph *g = zoo_build_spec(spec, &d);
        if (!g)
            fail_msg("%s: %s", spec, d.msg);
        memset(t, 0, n * sizeof *t);
        fill(fam, g, t, slots);
        check_orders(fam, t, slots, graph_batch_sym(g) >= 0 ? N_BATCH : 1);
        graph_free(g);
        families++;
    }
    printf("%d families checked, %d violations\n", families, violations);
    free(t);
    assert_true(families >= 10);
    assert_int_equal(violations, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_orderings)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
