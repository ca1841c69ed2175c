/* test_kbench.c - measured single kernels (lab/kbench.h): the reader's
 * errors, MAPE and its interval, and the fit recovering the constants that
 * generated synthetic rows. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/gpu.h"
#include "lab/kbench.h"
#include "core/predict.h"
#include "lab/sim_fitted_write.h"
#include "core/sim_impl.h"
#include "graph/zoo/zoo.h"

#define HEADER "split\tgpu\top\tb\tm\tn\tk\tlatency_us\tkernel\tgrid\n"

static char *write_tmp(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/test_kbench.XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

static void test_load(void **state)
{
    (void)state;
    char *p = write_tmp(HEADER
                        "train\ta100-pcie\tmatmul\t48\t196\t196\t64\t120.5\tsgemm\t1,1,48/256,1,1\n"
                        "test\tA100-PCIe-40GB\tlayernorm\t4096\t1024\t1\t1\t80\tln\tx\n"
                        "test\tTesla P100\tadd\t4\t4\t1\t1\t10\tadd\tx\n");
    struct kbench_set s;
    struct diag d = {0};
    assert_int_equal(kbench_load(p, &s, &d), ST_OK);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.n_other_gpu, 1);
    assert_false(s.rows[0].test);
    assert_int_equal(s.rows[0].group, KG_MATMUL);
    assert_int_equal(s.rows[0].gpu, gpu_find("A100-PCIe-40GB"));
    assert_int_equal(s.rows[0].b, 48);
    assert_true(s.rows[1].test);
    assert_int_equal(s.rows[1].group, KG_LAYERNORM);
    char spec[160];
    kbench_spec(&s.rows[0], spec, sizeof spec);
    assert_string_equal(spec, "zoo:kernel:op=matmul:m=196:n=196:k=64");
    kbench_fini(&s);
    unlink(p);
}

static void test_load_errors(void **state)
{
    (void)state;
    struct {
        const char *line, *expect;
    } cases[] = {
        {"valid\ta100\tmatmul\t1\t2\t3\t4\t5\tk\tg\n", "field 'split'"},
        {"test\ta100\tconv9\t1\t2\t3\t4\t5\tk\tg\n", "field 'op'"},
        {"test\ta100\tmatmul\t0\t2\t3\t4\t5\tk\tg\n", "field 'b'"},
        {"test\ta100\tmatmul\t1\t2\tx\t4\t5\tk\tg\n", "field 'n'"},
        {"test\ta100\tmatmul\t1\t2\t3\t4\t-5\tk\tg\n", "field 'latency_us'"},
        {"test\ta100\tmatmul\t1\t2\t3\n", "10 tab-separated fields"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, HEADER "%s", cases[i].line);
        char *p = write_tmp(text);
        struct kbench_set s;
        struct diag d = {0};
        assert_int_equal(kbench_load(p, &s, &d), ST_EPARSE);
        if (!strstr(d.msg, cases[i].expect) || !strstr(d.msg, ":2:"))
            fail_msg("case %zu: '%s' lacks '%s' or the line", i, d.msg, cases[i].expect);
        assert_int_equal(s.n, 0);
        unlink(p);
    }
}

static void test_mape(void **state)
{
    (void)state;
    struct kbench_row rows[4] = {{.measured_us = 100}, {.measured_us = 100},
                                 {.measured_us = 200}, {.measured_us = 50}};
    struct kbench_set s = {.rows = rows, .n = 4};
    double pred[4] = {110, 90, 260, 50}; /* 10, 10, 30, 0 % */
    struct kbench_stat st;
    kbench_mape(&s, pred, NULL, &st);
    assert_int_equal(st.n, 4);
    assert_true(fabs(st.mape - 12.5) < 1e-9);
    assert_true(st.lo <= st.mape && st.mape <= st.hi && st.lo >= 0 && st.hi <= 30);
    bool sel[4] = {false, false, true, false};
    kbench_mape(&s, pred, sel, &st);
    assert_int_equal(st.n, 1);
    assert_true(fabs(st.mape - 30) < 1e-9 && st.lo == st.mape && st.hi == st.mape);
}

/* Rows whose "measurements" are the teacher's own times under known
 * constants: the fit, started from the compiled-in ones, finds them. V100
 * rows (its library picks tiles by shape) carry cuda_eff and simt_k_half;
 * A100 batched ones (one tile, sim_board) carry batched_sgemm_eff; tiny
 * element-wise ones the harness's dispatch. */
static void test_fit_recovers(void **state)
{
    (void)state;
    struct sim_params truth = *sim_params_default();
    truth.cuda_eff = 0.62;
    truth.simt_k_half = 40;
    truth.batched_sgemm_eff = 0.8;
    static const int shapes[][4] = {
        {4096, 512, 512, 64}, {64, 1024, 1024, 1024}, {8192, 196, 196, 64}, {2048, 384, 384, 96},
        {32, 4096, 4096, 128}, {256, 2048, 64, 2048}, {16384, 128, 128, 32}, {128, 3072, 768, 768}};
    enum { N_GEMM = 12, N = 16 };
    const double truth_dispatch = 27;
    struct kbench_row rows[N];
    int v100 = gpu_find("V100-PCIe-32GB"), a100 = gpu_find("A100-PCIe-40GB");
    for (int i = 0; i < N_GEMM; i++) {
        const int *sh = shapes[i % 8];
        rows[i] = (struct kbench_row){.gpu = i < 8 ? v100 : a100, .group = KG_MATMUL,
                                      .b = sh[0], .m = sh[1], .n = sh[2], .k = sh[3],
                                      .measured_us = 1};
        snprintf(rows[i].op, sizeof rows[i].op, "matmul");
    }
    for (int i = N_GEMM; i < N; i++) {
        rows[i] = (struct kbench_row){.gpu = a100, .group = KG_ELEMENTWISE, .b = 1 + i,
                                      .m = 64 << (i - N_GEMM), .n = 1, .k = 1, .measured_us = 1};
        snprintf(rows[i].op, sizeof rows[i].op, "add");
    }
    struct kbench_set s = {.rows = rows, .n = N};
    double t_us[N];
    struct diag d = {0};
    assert_int_equal(kbench_predict(&s, &truth, truth_dispatch, NULL, t_us, NULL, &d), ST_OK);
    for (int i = 0; i < N; i++) {
        assert_true(i < N_GEMM ? t_us[i] > KBENCH_FIT_MIN_US : t_us[i] < KBENCH_FIT_HOST_MAX_US);
        rows[i].measured_us = t_us[i];
    }
    struct sim_params p = *sim_params_default();
    int n = 0;
    double disp = 0;
    assert_int_equal(kbench_fit(&s, &p, &disp, &n, NULL, &d), ST_OK);
    assert_int_equal(n, N_GEMM);
    if (fabs(p.cuda_eff - truth.cuda_eff) > 0.01 || fabs(p.simt_k_half - truth.simt_k_half) > 2 ||
        fabs(p.batched_sgemm_eff - truth.batched_sgemm_eff) > 0.01 ||
        fabs(disp - truth_dispatch) > 0.1)
        fail_msg("fitted cuda_eff %.4f simt_k_half %.2f batched_sgemm_eff %.4f dispatch %.2f us, "
                 "expected %.2f, %.0f, %.2f and %.0f", p.cuda_eff, p.simt_k_half,
                 p.batched_sgemm_eff, disp, truth.cuda_eff, truth.simt_k_half,
                 truth.batched_sgemm_eff, truth_dispatch);
    /* test-split rows are never fitted to */
    for (int i = 0; i < N; i++)
        rows[i].test = true;
    assert_int_equal(kbench_fit(&s, &p, &disp, &n, NULL, &d), ST_EPARSE);
    assert_non_null(strstr(d.msg, "no train-split"));
}

static const char *top(void)
{
    const char *t = getenv("TOP_SRCDIR");
    return t && *t ? t : DIPPM_SRCDIR;
}

/* The family table: every family with NeuSight train rows (A100, T4, V100)
 * and L4's a-priori entry; Hopper, without rows, keeps its datasheet figures
 * (fitted shares 1) and gives its SM's L1 and threads; a family the table
 * does not know has no L1 figure (no row-kernel re-reads modelled). */
static void test_boards(void **state)
{
    (void)state;
    static const char *const fams[] = {"A100-PCIe-40GB", "T4-PCIe-16GB", "V100-PCIe-32GB",
                                       "L4-PCIe-24GB"};
    for (size_t i = 0; i < sizeof fams / sizeof fams[0]; i++) {
        struct hw hw = {.gpu = gpu_get(gpu_find(fams[i]))};
        const struct sim_board *b = sim_board_of(&hw);
        assert_non_null(b->family);
        assert_string_equal(b->family, hw.gpu->family);
        assert_true(b->fp32_keep > 0.3 && b->fp32_keep < 1.5);
        assert_true(b->bw_keep > 0.5 && b->bw_keep < 1.2);
        assert_true(b->l1_kib >= 64 && b->l1_kib <= 256);
        assert_true(b->sm_threads >= 1024 && b->sm_threads <= 2048);
    }
    struct hw h100 = {.gpu = gpu_get(gpu_find("h100"))};
    const struct sim_board *hb = sim_board_of(&h100);
    assert_string_equal(hb->family, "H100");
    assert_true(hb->fp32_keep == 1 && hb->bw_keep == 1 && hb->batched_sgemm_tile == -1);
    assert_true(hb->l1_kib == 256 && hb->sm_threads == 2048);
    struct hw none = {.gpu = NULL};
    assert_null(sim_board_of(&none)->family);
    assert_true(sim_board_of(&none)->l1_kib == 0);
}

/* The shipped kernels: the teacher's FP32 constants hold on the test split
 * the fit never saw (these bounds are the figures of weights/kernels.md
 * rounded up: a change that makes the teacher worse on real kernels fails
 * here). */
static void test_shipped_kernels(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/neusight/kernels.tsv", top());
    struct kbench_set s;
    struct diag d = {0};
    assert_int_equal(kbench_load(path, &s, &d), ST_OK);
    assert_true(s.n > 100000);
    double *t = calloc((size_t)s.n, sizeof *t);
    assert_int_equal(kbench_predict(&s, NULL, KBENCH_DISPATCH_US, NULL, t, NULL, &d), ST_OK);
    bool *sel = calloc((size_t)s.n, sizeof *sel);
    static const struct {
        enum kbench_group g;
        double max_mape;
        int min_rows;
    } goals[] = {{KG_LINEAR, 9, 6000}, {KG_ELEMENTWISE, 4, 3000}, {KG_MATMUL, 15, 11000},
                 {KG_LAYERNORM, 8, 390}, {KG_SOFTMAX, 19.5, 390}};
    for (size_t k = 0; k < sizeof goals / sizeof goals[0]; k++) {
        for (int i = 0; i < s.n; i++)
            sel[i] = s.rows[i].test && s.rows[i].group == goals[k].g;
        struct kbench_stat st;
        kbench_mape(&s, t, sel, &st);
        if (!(st.n >= goals[k].min_rows && st.mape <= goals[k].max_mape))
            fail_msg("%s: MAPE %.1f%% over %d test rows, expected at most %.0f%%",
                     kbench_group_name(goals[k].g), st.mape, st.n, goals[k].max_mape);
    }
    free(sel);
    free(t);
    kbench_fini(&s);
}

/* src/core/sim_fitted.h is what sim_fitted_text writes for the compiled-in
 * constants: no figure in it was typed by hand (a hand edit that is not the
 * writer's text, or a constant the writer does not know, fails here). */
static void test_fitted_header(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/src/core/sim_fitted.h", top());
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char text[16384];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    struct sim_fitted_board b[SIM_FITTED_FAMILIES];
    sim_fitted_boards_compiled(b);
    struct strbuf want = STRBUF_INIT;
    sim_fitted_text(&want, sim_params_default(), b, KBENCH_DISPATCH_US);
    if (strcmp(text, want.s))
        fail_msg("%s is not the text sim_fitted_text writes for the compiled constants; "
                 "regenerate it (dippm calibrate --write-params)", path);
    strbuf_fini(&want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load),
        cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_mape),
        cmocka_unit_test(test_fit_recovers),
        cmocka_unit_test(test_boards),
        cmocka_unit_test(test_fitted_header),
        cmocka_unit_test(test_shipped_kernels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
