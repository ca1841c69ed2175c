/* test_ui_consistency.c - one configuration behind every figure of the
 * explorer, over every zoo family on a few GPUs, precisions and runtimes:
 * the sweep's row of the configuration is the header's prediction and
 * starts selected, the sweep's fits and the memory bar's follow the rule
 * of predict and the MIG advisor (fit.h), the advisor's choice is the
 * smallest slice that holds the header's memory with the headroom, and
 * no kernel of the Detail tab's roofline lies above its roof (the peak of
 * the precision it runs in, and the bandwidth times its intensity).
 * tests/tui/run-consistency-tests.sh checks the same on the screens'
 * text and against `dippm predict --json`. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/fit.h"
#include "core/gpu.h"
#include "core/mig.h"
#include "ui/app.h"

static const char *const families[] = {
    "resnet", "vgg",     "mobilenet_v2", "mobilenet_v3", "efficientnet", "densenet", "convnext",
    "vit",    "swin",    "bert",         "gpt",          "llama",        "mlp",      "randnet",
    "moe",    "t5",      "bart",         "unet",         "dit",          "vae",      "kernel"};

struct combo {
    const char *gpu;
    enum precision prec;
    enum runtime rt;
    int64_t batch;
};

/* Each family runs three of these, in turn, so every combination meets
 * several families: whole GPUs with and without MIG, every precision the
 * runtimes take, small and large batches. */
static const struct combo combos[] = {
    {"a100", PREC_FP32, RT_PYTORCH, 1024},      {"h200", PREC_FP16, RT_TENSORRT, 8},
    {"h100", PREC_BF16, RT_PYTORCH_SDPA, 64},   {"a100", PREC_TF32, RT_TENSORRT, 1},
    {"l4", PREC_FP16, RT_PYTORCH, 4},           {"h100", PREC_FP8, RT_TENSORRT, 32},
    {"a100", PREC_INT8, RT_TENSORRT_GRAPH, 256}, {"h200", PREC_FP32, RT_PYTORCH, 16},
};
#define N_COMBOS (int)(sizeof combos / sizeof combos[0])

static void where(char *buf, size_t size, const char *fam, const struct combo *c)
{
    snprintf(buf, size, "zoo:%s on %s %s %s batch %lld", fam, c->gpu, precision_name(c->prec),
             runtime_name(c->rt), (long long)c->batch);
}

/* The sweep's row of the configuration is the header's prediction. */
static void check_sweep(struct app *a, const char *w)
{
    app_sweep_ensure(a);
    const struct app_sweep *sw = &a->sweep;
    if (sw->n == 0 || sw->cur < 0)
        return; /* no batch to sweep (fixed shapes) */
    int i = sw->cur;
    if (!sw->ok[i])
        fail_msg("%s: the sweep's own row failed", w);
    if (sw->memory_mib[i] != a->pred.memory_mib || sw->latency_ms[i] != a->pred.latency_ms)
        fail_msg("%s: sweep row %s %.6g MiB %.6g ms, header %.6g MiB %.6g ms", w, sw->label[i],
                 sw->memory_mib[i], sw->latency_ms[i], a->pred.memory_mib, a->pred.latency_ms);
    if (a->st.list[UI_TAB_SWEEP].sel != i)
        fail_msg("%s: the sweep selects row %d, the configuration is row %d", w,
                 a->st.list[UI_TAB_SWEEP].sel, i);
    bool fits = fit_ok(a->pred.memory_mib, a->headroom, a->pred.capacity_mib);
    if (app_sweep_fits(a, i) != fits)
        fail_msg("%s: the sweep says %s, the fit rule %s", w, fits ? "no" : "yes",
                 fits ? "yes" : "no");
}

/* The MIG line's profile is the smallest that holds the header's memory
 * with the headroom, the figure the sweep names for the row. */
static void check_mig(struct app *a, const char *w)
{
    const struct gpu_spec *gs = gpu_get(a->cfg.gpu);
    app_update_mig(a);
    int want = mig_smallest_fit(&a->cfg, a->pred.memory_mib, a->headroom);
    if (gs->n_mig == 0) {
        assert_int_equal(want, -1);
        return;
    }
    if (!a->have_mig)
        fail_msg("%s: no MIG advice: %s", w, a->mig_err);
    if (a->mig.best != want)
        fail_msg("%s: MIG line %s, the sweep's fit %s", w,
                 a->mig.best >= 0 ? gs->mig[a->mig.best].name : "none",
                 want >= 0 ? gs->mig[want].name : "none");
    for (int k = 0; k < a->mig.n; k++) {
        const struct mig_option *o = &a->mig.opts[k];
        double m = mig_memory_on(&a->cfg, a->pred.memory_mib, o->profile);
        if (fabs(o->memory_mib - m) > 1e-9 * m)
            fail_msg("%s: %s memory %.6g MiB in the table, %.6g from the header", w,
                     gs->mig[o->profile].name, o->memory_mib, m);
        if (o->fits != fit_ok(o->memory_mib, a->headroom, o->usable_mib))
            fail_msg("%s: %s fits differs from the fit rule", w, gs->mig[o->profile].name);
    }
}

/* No kernel achieves more than its roof. */
static int check_roofline(struct app *a, const char *w)
{
    int n = 0;
    for (int i = 0; a->g && i < a->g->n_nodes; i++) {
        struct app_kernel k = app_kernel_view(a, i);
        if (!k.valid || !(k.time_s > 0))
            continue;
        n++;
        double flops_s = k.flops / k.time_s, bytes_s = k.bytes / k.time_s;
        if (flops_s > k.peak * (1 + 1e-9))
            fail_msg("%s: node %s at %.4g FLOP/s above its %s peak %.4g", w, a->g->nodes[i].name,
                     flops_s, precision_name(k.prec), k.peak);
        if (bytes_s > k.bw * (1 + 1e-9))
            fail_msg("%s: node %s moves %.4g B/s above the bandwidth %.4g", w,
                     a->g->nodes[i].name, bytes_s, k.bw);
    }
    return n;
}

static void test_every_family(void **state)
{
    (void)state;
    int n_cfg = 0, n_kernels = 0;
    for (size_t f = 0; f < sizeof families / sizeof families[0]; f++) {
        char spec[64], w[160];
        snprintf(spec, sizeof spec, "zoo:%s", families[f]);
        struct app *a = calloc(1, sizeof *a);
        struct diag d = {0};
        if (app_init(a, spec, &d) != ST_OK)
            fail_msg("app_init %s: %s", spec, d.msg);
        for (int j = 0; j < 3; j++) {
            const struct combo *c = &combos[(f + (size_t)j * 3) % N_COMBOS];
            where(w, sizeof w, families[f], c);
            struct config cfg = a->cfg;
            cfg.gpu = gpu_find(c->gpu);
            cfg.mig = -1;
            cfg.prec = c->prec;
            cfg.rt = c->rt;
            cfg.batch = c->batch;
            assert_true(cfg.gpu >= 0);
            if (app_set_config(a, &cfg, &d) != ST_OK)
                fail_msg("%s: %s", w, d.msg);
            assert_true(a->have_pred);
            check_sweep(a, w);
            check_mig(a, w);
            n_kernels += check_roofline(a, w);
            n_cfg++;
        }
        app_fini(a);
        free(a);
    }
    /* every family ran and drew kernels */
    assert_int_equal(n_cfg, 3 * (int)(sizeof families / sizeof families[0]));
    assert_true(n_kernels > 1000);
}

/* A pass within the headroom of the GPU: it does not fit, by predict's
 * rule, in the sweep as in the MIG advice (ResNet-50 batch 1024 on the
 * A100-40GB: 18.2 GiB, which with 150% spare needs 45.5 GiB). */
static void test_headroom_band(void **state)
{
    (void)state;
    struct app *a = calloc(1, sizeof *a);
    struct diag d = {0};
    if (app_init(a, "zoo:resnet", &d) != ST_OK)
        fail_msg("app_init: %s", d.msg);
    a->headroom = 1.5;
    if (app_set_batch(a, 1024, &d) != ST_OK)
        fail_msg("batch 1024: %s", d.msg);
    double mem = a->pred.memory_mib, cap = a->pred.capacity_mib;
    assert_true(mem <= cap && mem * 2.5 > cap);
    check_sweep(a, "zoo:resnet batch 1024, 150% headroom");
    assert_false(app_sweep_fits(a, a->sweep.cur));
    check_mig(a, "zoo:resnet batch 1024, 150% headroom");
    assert_int_equal(a->mig.best, -1);
    app_fini(a);
    free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_family),
        cmocka_unit_test(test_headroom_band),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
