/* test_gpu.c - the hardware table: consistency, lookups, aliases, MIG
 * scaling. Expected figures come from NVIDIA's datasheets and MIG User Guide. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

/* cmocka compares floats in single precision; compare doubles here. */
#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

#include "core/gpu.h"
#include "gpu_targets.h"

static void test_table_consistency(void **state)
{
    (void)state;
    assert_int_equal(gpu_count(), 10);
    for (int i = 0; i < gpu_count(); i++) {
        const struct gpu_spec *g = gpu_get(i);
        assert_non_null(g->source);
        assert_true(strlen(g->source) > 20);
        assert_true(g->mig_sms <= g->sms);
        assert_true(g->usable_gib < g->mem_gib);
        assert_true(g->idle_w > 0 && g->idle_w < g->tdp_w);
        assert_true(g->sustain > 0.5 && g->sustain <= 1.0);
        /* peaks rise fp32 < tf32 < fp16 = bf16 < int8 where the GPU has
         * them (0: no tensor-core path; every GPU has fp32 and fp16) */
        assert_true(g->tflops[PREC_FP32] > 0 && g->tflops[PREC_FP16] > 0);
        for (int p = 0; p < PREC__COUNT; p++)
            assert_true(g->tflops[p] >= 0);
        if (g->tflops[PREC_TF32] > 0) {
            assert_true(g->tflops[PREC_FP32] < g->tflops[PREC_TF32]);
            assert_true(g->tflops[PREC_TF32] < g->tflops[PREC_FP16]);
        } else {
            assert_true(g->tflops[PREC_FP32] < g->tflops[PREC_FP16]);
        }
        if (g->tflops[PREC_BF16] > 0)
            assert_true(g->tflops[PREC_FP16] == g->tflops[PREC_BF16]);
        if (g->tflops[PREC_INT8] > 0)
            assert_true(g->tflops[PREC_FP16] < g->tflops[PREC_INT8]);
        if (g->n_mig == 0) { /* no MIG: nothing to slice */
            assert_null(g->mig);
            assert_int_equal(g->mig_sms, 0);
            continue;
        }
        assert_int_equal(g->n_mig, 7);
        int n_media = 0, n_full = 0;
        for (int m = 0; m < g->n_mig; m++) {
            const struct mig_profile *p = &g->mig[m];
            assert_true(p->sms > 0 && p->sms <= g->mig_sms);
            assert_true(p->mem_eighths >= 1 && p->mem_eighths <= 8);
            assert_true(p->sm_sevenths >= 1 && p->sm_sevenths <= 7);
            assert_true(p->usable_gib > 0 && p->usable_gib < g->mem_gib);
            /* usable GiB below the memory fraction of the whole part */
            assert_true(p->usable_gib <= g->mem_gib * p->mem_eighths / 8.0);
            assert_true(p->max_count >= 1 && p->max_count <= 7);
            /* the name starts with the compute slices: "3g." */
            assert_int_equal(p->name[0] - '0', p->sm_sevenths);
            assert_non_null(strstr(p->name, "g."));
            n_media += p->media;
            if (p->media)
                assert_int_equal(p->max_count, 1);
            n_full += p->sm_sevenths == 7;
            if (p->sm_sevenths == 7) {
                assert_int_equal(p->mem_eighths, 8);
                assert_int_equal(p->sms, g->mig_sms);
            }
            /* more compute slices never means fewer SMs, at equal memory */
            for (int q = 0; q < g->n_mig; q++)
                if (g->mig[q].mem_eighths == p->mem_eighths && g->mig[q].sm_sevenths > p->sm_sevenths)
                    assert_true(g->mig[q].sms >= p->sms);
            assert_int_equal(gpu_mig_find(g, p->name), m);
        }
        assert_int_equal(n_media, 1);
        assert_int_equal(n_full, 1);
    }
}

static void test_published_figures(void **state)
{
    (void)state;
    /* gpus.md section 4 */
    const struct gpu_spec *a = gpu_get(gpu_find("A100-SXM4-40GB"));
    assert_int_equal(a->sms, 108);
    assert_int_equal(a->mig_sms, 98);
    assert_near(a->tflops[PREC_FP16], 312, 1e-9);
    assert_near(a->bw_gbs, 1555, 1e-9);
    assert_near(a->tdp_w, 400, 1e-9);
    const struct gpu_spec *h = gpu_get(gpu_find("H100-SXM5-80GB"));
    assert_near(h->tflops[PREC_BF16], 989.4, 1e-9);
    assert_near(h->bw_gbs, 3350, 1e-9);
    assert_int_equal(h->mig[gpu_mig_find(h, "3g.40gb")].sms, 60);
    const struct gpu_spec *hp = gpu_get(gpu_find("H100-PCIe-80GB"));
    assert_int_equal(hp->sms, 114);
    assert_int_equal(hp->mig[gpu_mig_find(hp, "4g.40gb")].sms, 62);
    const struct gpu_spec *h2 = gpu_get(gpu_find("H200-SXM-141GB"));
    assert_near(h2->bw_gbs, 4800, 1e-9);
    assert_near(h2->mig[gpu_mig_find(h2, "1g.18gb")].usable_gib, 16.0, 1e-9);
    const struct gpu_spec *a8 = gpu_get(gpu_find("A100-SXM4-80GB"));
    const struct mig_profile *p = &a8->mig[gpu_mig_find(a8, "1g.20gb")];
    assert_int_equal(p->mem_eighths, 2);
    assert_int_equal(p->sm_sevenths, 1);
    assert_near(p->usable_gib, 19.50, 1e-9);
    /* A100-40 1g.10gb holds two memory slices (the guide's "1/8" is a typo) */
    assert_int_equal(a->mig[gpu_mig_find(a, "1g.10gb")].mem_eighths, 2);
    assert_near(gpu_get(gpu_find("A100-PCIe-40GB"))->tdp_w, 250, 1e-9);
    assert_near(gpu_get(gpu_find("A100-PCIe-80GB"))->bw_gbs, 1935, 1e-9);
}

static void test_lookups_and_aliases(void **state)
{
    (void)state;
    assert_int_equal(gpu_find("a100-sxm4-40gb"), gpu_find("A100-SXM4-40GB"));
    assert_int_equal(gpu_find("A100"), gpu_find("A100-SXM4-40GB"));
    assert_int_equal(gpu_find("a100-40gb"), gpu_find("A100-SXM4-40GB"));
    assert_int_equal(gpu_find("a100-80gb"), gpu_find("A100-SXM4-80GB"));
    assert_int_equal(gpu_find("a100-pcie-80gb"), gpu_find("A100-PCIe-80GB"));
    assert_int_equal(gpu_find("H100"), gpu_find("H100-SXM5-80GB"));
    assert_int_equal(gpu_find("h100-pcie"), gpu_find("H100-PCIe-80GB"));
    assert_int_equal(gpu_find("h200"), gpu_find("H200-SXM-141GB"));
    assert_true(gpu_find("A100-SXM4-40GB") >= 0);
    assert_int_equal(gpu_find("p100"), -1);
    assert_int_equal(gpu_find(""), -1);
    assert_int_equal(gpu_find(NULL), -1);
    assert_int_equal(gpu_find("a100 "), -1);
    assert_null(gpu_get(-1));
    assert_null(gpu_get(gpu_count()));
    const struct gpu_spec *a = gpu_get(gpu_find("a100"));
    assert_int_equal(gpu_mig_find(a, "3G.20GB"), gpu_mig_find(a, "3g.20gb"));
    assert_int_equal(gpu_mig_find(a, "3g.40gb"), -1);
    assert_int_equal(gpu_mig_find(a, NULL), -1);
    assert_string_equal(gpu_aliases_of(gpu_find("h200"), 0), "h200");
    assert_null(gpu_aliases_of(gpu_find("h200"), 99));
}

/* L4, T4 and V100 PCIe 32 GB: the datasheet figures (dense: half the sparse
 * ones the L4 datasheet prints), the aliases users type, no MIG, and the
 * precisions their tensor cores lack refused with a message naming the GPU. */
static void test_rented_gpus(void **state)
{
    (void)state;
    static const struct {
        const char *name, *family, *aliases[6];
        int sms;
        double clock, tflops[PREC__COUNT], mem, bw, l2, tdp;
    } want[] = {
        {"L4-PCIe-24GB", "L4", {"l4", "nvidia-l4", "L4", "l4-24gb", "l4-pcie", NULL}, 58, 2040,
         {30.3, 60, 121, 121, 242.5, 242.5}, 24, 300, 48, 72},
        {"T4-PCIe-16GB", "T4", {"t4", "tesla-t4", "T4", "nvidia-t4", "t4-16gb", NULL}, 40, 1590,
         {8.1, 0, 65, 0, 130, 0}, 16, 320, 4, 70},
        {"V100-PCIe-32GB", "V100",
         {"v100", "v100-pcie", "v100-32gb", "tesla-v100", "V100-PCIE-32GB", NULL}, 80, 1380,
         {14, 0, 112, 0, 0, 0}, 32, 900, 6, 250},
    };
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        int gi = gpu_find(want[w].name);
        assert_true(gi >= 0);
        const struct gpu_spec *g = gpu_get(gi);
        assert_string_equal(g->family, want[w].family);
        for (int k = 0; want[w].aliases[k]; k++)
            assert_int_equal(gpu_find(want[w].aliases[k]), gi);
        assert_int_equal(g->sms, want[w].sms);
        assert_near(g->clock_mhz, want[w].clock, 1e-9);
        for (int p = 0; p < PREC__COUNT; p++)
            assert_near(g->tflops[p], want[w].tflops[p], 1e-9);
        assert_near(g->mem_gib, want[w].mem, 1e-9);
        assert_near(g->bw_gbs, want[w].bw, 1e-9);
        assert_near(g->l2_mib, want[w].l2, 1e-9);
        assert_near(g->tdp_w, want[w].tdp, 1e-9);
        /* power- and thermal-limited boards: below boost under load */
        assert_true(g->sustain < 1.0);
        assert_true(g->usable_gib > g->mem_gib - 2 && g->usable_gib < g->mem_gib);
        assert_non_null(strstr(g->source, "estimate"));
        /* no MIG: the whole GPU only */
        assert_int_equal(g->n_mig, 0);
        assert_null(g->mig);
        assert_int_equal(gpu_mig_find(g, "1g.5gb"), -1);
        struct config c;
        config_default(&c);
        c.gpu = gi;
        c.mig = 0;
        struct hw hw;
        assert_int_equal(hw_from_config(&c, &hw, NULL), ST_ERANGE);
        c.mig = -1;
        c.rt = RT_TENSORRT;
        for (int p = 0; p < PREC__COUNT; p++) {
            c.prec = (enum precision)p;
            struct diag d = {0};
            enum status st = config_supported(&c, &d);
            if (want[w].tflops[p] > 0) {
                assert_int_equal(st, ST_OK);
                assert_int_equal(hw_from_config(&c, &hw, NULL), ST_OK);
                assert_near(hw.peak_flops, want[w].tflops[p] * 1e12 * g->sustain, 1);
                continue;
            }
            assert_int_equal(st, ST_EUSAGE);
            assert_non_null(strstr(d.msg, g->name));
            assert_non_null(strstr(d.msg, precision_name(c.prec)));
            assert_null(strstr(d.msg, "fp8 needs Hopper")); /* says which GPUs in general */
            assert_non_null(strstr(d.msg, p == PREC_INT8  ? "Turing"
                                          : p == PREC_FP8 ? "Ada or Hopper"
                                                          : "Ampere"));
        }
    }
    /* L4 is Ada, not Hopper: it has fp8 but is not in the H family */
    assert_true(gpu_get(gpu_find("l4"))->family[0] != 'H');
    /* fp8 refused on A100 names the GPUs that have it, L4 among them */
    struct config c;
    config_default(&c);
    c.gpu = gpu_find("a100");
    c.prec = PREC_FP8;
    c.rt = RT_TENSORRT;
    struct diag d = {0};
    assert_int_equal(config_supported(&c, &d), ST_EUSAGE);
    assert_non_null(strstr(d.msg, "H100"));
    assert_non_null(strstr(d.msg, "L4"));
    assert_null(strstr(d.msg, "T4"));
}

/* gpu_newer: only a GPU with at least the SMs, bandwidth and peak of the
 * other, at a precision both have, and SMs no slower (the same, or at least
 * 10% faster per SM). */
static void test_newer(void **state)
{
    (void)state;
    int a100p = gpu_find("a100-pcie"), h100 = gpu_find("h100"), h100p = gpu_find("h100-pcie");
    int l4 = gpu_find("l4"), t4 = gpu_find("t4"), v100 = gpu_find("v100");
    /* the A100 -> H100 -> H200 orderings stay */
    assert_true(gpu_newer(h100, gpu_find("a100"), PREC_FP16));
    assert_true(gpu_newer(h100p, a100p, PREC_TF32));
    assert_true(gpu_newer(gpu_find("h200"), h100, PREC_FP8));
    assert_true(gpu_newer(h100, t4, PREC_FP16));
    assert_true(gpu_newer(h100p, v100, PREC_FP16));
    assert_true(gpu_newer(h100p, t4, PREC_INT8));
    assert_true(gpu_newer(h100, v100, PREC_FP32));
    /* A100's SMs at 1410 MHz are not clearly faster than V100's at 1380 and
     * slower than T4's at 1590: a small kernel of few CTAs can run faster on
     * those, so A100 dominates neither */
    assert_false(gpu_newer(a100p, v100, PREC_FP16));
    assert_false(gpu_newer(gpu_find("a100-80gb"), v100, PREC_FP32));
    assert_false(gpu_newer(a100p, t4, PREC_FP16));
    /* no ordering at a precision the other GPU lacks */
    assert_false(gpu_newer(h100p, t4, PREC_TF32));
    assert_false(gpu_newer(h100p, v100, PREC_INT8));
    assert_false(gpu_newer(h100, v100, PREC_BF16));
    /* L4 has less bandwidth than T4 (300 vs 320 GB/s) and fewer SMs and
     * less bandwidth than V100: no ordering either way */
    assert_false(gpu_newer(l4, t4, PREC_FP16));
    assert_false(gpu_newer(t4, l4, PREC_FP16));
    assert_false(gpu_newer(l4, v100, PREC_FP16));
    assert_false(gpu_newer(v100, l4, PREC_FP16));
    /* L4's SMs (2040 MHz) are the fastest of the table: nothing dominates it */
    for (int i = 0; i < gpu_count(); i++)
        for (int p = 0; p < PREC__COUNT; p++)
            assert_false(gpu_newer(i, l4, (enum precision)p));
    assert_false(gpu_newer(h100p, l4, PREC_FP8));
    for (int i = 0; i < gpu_count(); i++)
        for (int p = 0; p < PREC__COUNT; p++)
            assert_false(gpu_newer(i, i, (enum precision)p));
}

static void test_hw_from_config(void **state)
{
    (void)state;
    struct config c;
    config_default(&c);
    struct hw full, slice;
    c.prec = PREC_FP16;
    assert_int_equal(hw_from_config(&c, &full, NULL), ST_OK);
    assert_string_equal(full.label, "A100-SXM4-40GB");
    assert_near(full.peak_flops, 312e12, 1);
    assert_near(full.bw_bytes, 1555e9, 1);
    assert_near(full.mem_bytes, 39.59 * 1073741824.0, 1);
    const struct gpu_spec *g = gpu_get(c.gpu);
    c.mig = gpu_mig_find(g, "3g.20gb");
    assert_int_equal(hw_from_config(&c, &slice, NULL), ST_OK);
    assert_string_equal(slice.label, "A100-SXM4-40GB 3g.20gb");
    assert_int_equal(slice.sms, 42);
    /* 42 of 108 SMs, 4 of 8 memory slices (by hand) */
    assert_near(slice.peak_flops, 312e12 * 42 / 108, 1);
    assert_near(slice.bw_bytes, 1555e9 / 2, 1);
    assert_near(slice.l2_bytes, 40 * 1048576.0 / 2, 1);
    assert_near(slice.mem_bytes, 19.62 * 1073741824.0, 1);
    assert_near(slice.tdp_w, 400.0 * 3 / 7, 1e-9);
    assert_true(slice.idle_w < full.idle_w);
    struct diag d = {0};
    c.mig = 7;
    assert_int_equal(hw_from_config(&c, &slice, &d), ST_ERANGE);
    assert_non_null(strstr(d.msg, "MIG"));
    c.mig = -1;
    c.gpu = gpu_count();
    diag_clear(&d);
    assert_int_equal(hw_from_config(&c, &slice, &d), ST_ERANGE);
}

/* Every row of tests/data/gpu-targets.tsv through the one GPU[:PROFILE]
 * parser; the CLI and explorer tests check their paths against the same rows. */
static void test_target_table(void **state)
{
    (void)state;
    struct gpu_target_row rows[GPU_TARGETS_MAX];
    int n = gpu_targets_load(rows, GPU_TARGETS_MAX);
    assert_true(n >= 15);
    for (int i = 0; i < n; i++) {
        const struct gpu_target_row *r = &rows[i];
        for (int cur = -1; cur < 1; cur++) { /* a named GPU wins over the current one */
            int gpu = 77, mig = 77;
            struct diag d = {0};
            enum status st = gpu_target_parse(r->spec, cur, &gpu, &mig, &d);
            if (!strcmp(r->gpu, "error")) {
                assert_int_equal(st, ST_ENOTFOUND);
                assert_string_equal(d.msg, r->profile);
                assert_int_equal(gpu, 77); /* untouched */
                assert_int_equal(mig, 77);
                continue;
            }
            assert_int_equal(st, ST_OK);
            assert_string_equal(gpu_get(gpu)->name, r->gpu);
            if (!strcmp(r->profile, "-"))
                assert_int_equal(mig, GPU_MIG_UNSET);
            else if (!strcmp(r->profile, "full"))
                assert_int_equal(mig, -1);
            else
                assert_string_equal(gpu_get(gpu)->mig[mig].name, r->profile);
        }
    }
}

/* The explorer's relative form: no NAME means the current GPU, when there is one. */
static void test_target_relative(void **state)
{
    (void)state;
    int h100 = gpu_find("H100-SXM5-80GB"), gpu = -5, mig = -5;
    assert_int_equal(gpu_target_parse(":3g.40gb", h100, &gpu, &mig, NULL), ST_OK);
    assert_int_equal(gpu, h100);
    assert_int_equal(mig, gpu_mig_find(gpu_get(h100), "3g.40gb"));
    assert_int_equal(gpu_target_parse(":full", h100, &gpu, &mig, NULL), ST_OK);
    assert_int_equal(mig, -1);
    assert_int_equal(gpu_target_parse("", h100, &gpu, &mig, NULL), ST_OK);
    assert_int_equal(gpu, h100);
    assert_int_equal(mig, GPU_MIG_UNSET);
    struct diag d = {0};
    assert_int_equal(gpu_target_parse(":3g.40gb", -1, &gpu, &mig, &d), ST_ENOTFOUND);
    assert_non_null(strstr(d.msg, "unknown GPU ''; known: A100-SXM4-40GB "));
    /* a name longer than any buffer is still named, not cut silently into another */
    char longname[300];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    diag_clear(&d);
    assert_int_equal(gpu_target_parse(longname, -1, &gpu, &mig, &d), ST_ENOTFOUND);
    assert_non_null(strstr(d.msg, "unknown GPU 'xxxx"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_consistency),
        cmocka_unit_test(test_published_figures),
        cmocka_unit_test(test_lookups_and_aliases),
        cmocka_unit_test(test_target_table),
        cmocka_unit_test(test_target_relative),
        cmocka_unit_test(test_rented_gpus),
        cmocka_unit_test(test_newer),
        cmocka_unit_test(test_hw_from_config),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
