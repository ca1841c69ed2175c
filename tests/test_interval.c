/*
 * test_interval.c - prediction intervals (src/core/interval.c) on hand-made
 * held-out errors: the conformal order statistics, the fallback of a group
 * with few rows to the widened pooled bounds, the widening of an
 * unmeasured GPU, precision or runtime and of bounds from few source
 * families, the TSV form, the residual files' errors and the report's
 * leave-one-family-out check.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "core/gpu.h"
#include "core/interval.h"
#include "lab/interval_gen.h"

#define EPS 1e-9

static void conformal_order_statistics(void **state)
{
    (void)state;
    double r[19], lo, hi;
    for (int i = 0; i < 19; i++) /* 19, 18, ..., 1: order must not matter */
        r[i] = 19 - i;
    /* n = 19: floor(20 x 0.1) = 2nd and ceil(20 x 0.9) = 18th smallest */
    assert_true(interval_conformal(r, 19, 0.8, &lo, &hi));
    assert_true(fabs(lo - 2) < EPS && fabs(hi - 18) < EPS);
    /* n = 20: floor(2.1) = 2nd, ceil(18.9) = 19th */
    double s[20];
    for (int i = 0; i < 20; i++)
        s[i] = i + 1;
    assert_true(interval_conformal(s, 20, 0.8, &lo, &hi));
    assert_true(fabs(lo - 2) < EPS && fabs(hi - 19) < EPS);
    /* n = 8: ceil(9 x 0.9) = 9 > 8, no upper bound exists */
    assert_false(interval_conformal(s, 8, 0.8, &lo, &hi));
    assert_false(interval_conformal(s, 0, 0.8, &lo, &hi));
}

/* 29 eager rows -0.14 .. +0.14 (step 0.01) on GPU 0, fp32, pytorch, in
 * three families by i % 3 (9 rows of "a0", 10 of "a1" and "a2"); five
 * tensorrt rows at +0.5 on GPU 0, fp16, family "b". */
static int make_resid(struct interval_resid *res)
{
    static const char *const fam[] = {"a0", "a1", "a2"};
    int n = 0;
    for (int i = 1; i <= 29; i++)
        res[n++] = (struct interval_resid){IT_TIME, IG_EAGER, 0, PREC_FP32, RT_PYTORCH,
                                           (i - 15) / 100.0, fam[i % 3]};
    for (int i = 0; i < 5; i++)
        res[n++] = (struct interval_resid){IT_TIME, IG_ENGINE, 0, PREC_FP16, RT_TENSORRT, 0.5,
                                           "b"};
    return n;
}

/* A source family with many rows alike does not set the interval alone:
 * 90 rows of family "big" at 0 and 10 of "small" spread over -0.45 .. +0.45
 * (step 0.1). Row-weighted, 80% of the rows lie at 0; with each family
 * weighing one half, the 0.1 quantile falls in the small family's lowest
 * fifth (cum 1/180 per big row: 0.5 after them, so first 0.1 of the
 * small's share: its 2nd smallest) and the 0.9 quantile at its 9th. */
static void balanced_by_family(void **state)
{
    (void)state;
    double r[100], lo, hi;
    const char *fam[100];
    for (int i = 0; i < 90; i++)
        r[i] = 0, fam[i] = "big";
    for (int i = 0; i < 10; i++)
        r[90 + i] = -0.45 + 0.1 * i, fam[90 + i] = "small";
    assert_true(interval_conformal(r, 100, 0.8, &lo, &hi));
    assert_true(fabs(lo) < EPS && fabs(hi) < EPS);
    assert_true(interval_balanced(r, fam, 100, 0.8, &lo, &hi));
    /* sorted: -0.45 -0.35 -0.25 -0.15 -0.05 (0 x 90) 0.05 .. 0.45; the
     * weights reach 0.1 (of 2) at the 2nd smallest, -0.35 */
    assert_true(fabs(lo + 0.35) < EPS);
    /* 1.8 of 2: after -0.45..-0.05 (0.5), the 90 zeros (1.5) and 0.05,
     * 0.15, 0.25 (1.8): +0.25 */
    assert_true(fabs(hi - 0.25) < EPS);
    /* one family: the quantiles of its rows */
    for (int i = 0; i < 100; i++)
        fam[i] = "one";
    assert_true(interval_balanced(r, fam, 100, 0.8, &lo, &hi));
    assert_true(fabs(lo) < EPS && fabs(hi) < EPS);
    assert_false(interval_balanced(r, fam, 8, 0.8, &lo, &hi));
}

static void build_groups_and_fallback(void **state)
{
    (void)state;
    struct interval_resid res[40];
    int n = make_resid(res);
    struct interval_table t;
    interval_build(&t, res, n, NULL);
    /* eager, n = 29 in three families, a row of a0 weighing 1/9 (of 3), of
     * a1 or a2 1/10: the 0.1 quantile (0.3 of 3) is the 3rd smallest (a1,
     * a2, a0: 0.31, -0.12), the 0.9 one (2.7) the 27th (+0.12: the 28th and
     * 29th, a1 and a2, weigh 0.2 together, the 27th, a0, 0.11 more) */
    const struct interval_bounds *e = &t.b[IT_TIME][IG_EAGER];
    assert_true(e->valid && !e->fallback);
    assert_int_equal(e->n, 29);
    assert_int_equal(e->n_fam, 3);
    assert_true(fabs(e->lo + 0.12) < EPS && fabs(e->hi - 0.12) < EPS);
    /* pooled, n = 34 in four families, each weighing one quarter: the 0.1
     * quantile (0.4 of 4) is the 4th smallest (0.1 + 0.1 + 0.11 + 0.1:
     * -0.11), not the 4th of a row-weighted one only by chance (a
     * row-weighted one over 34 rows takes the 3rd, -0.12); the 0.9
     * quantile one of the +0.5 rows, which weigh a quarter together */
    const struct interval_bounds *p = &t.b[IT_TIME][IG_POOLED];
    assert_true(p->valid && fabs(p->lo + 0.11) < EPS && fabs(p->hi - 0.5) < EPS);
    assert_int_equal(p->n_fam, 4);
    /* tensorrt has 5 rows, generation none: pooled x1.5, the pool's families */
    for (int g = IG_ENGINE; g <= IG_GENERATION; g++) {
        const struct interval_bounds *b = &t.b[IT_TIME][g];
        assert_true(b->valid && b->fallback);
        assert_int_equal(b->n_fam, 4);
        assert_true(fabs(b->lo + 0.165) < EPS && fabs(b->hi - 0.75) < EPS);
    }
    assert_int_equal(t.b[IT_TIME][IG_ENGINE].n, 5);
    /* no memory rows: no bounds at all */
    assert_false(t.b[IT_MEMORY][IG_POOLED].valid);
    assert_false(t.b[IT_MEMORY][IG_EAGER].valid);
    /* skipping the tensorrt rows leaves the eager ones alone in the pool */
    bool skip[40] = {0};
    for (int i = 29; i < n; i++)
        skip[i] = true;
    interval_build(&t, res, n, skip);
    assert_true(fabs(t.b[IT_TIME][IG_POOLED].hi - 0.12) < EPS);
    assert_false(t.rt[IT_TIME][RT_TENSORRT]);
}

static void point_held_by_interval(void **state)
{
    (void)state;
    /* every error positive (predictions too low): the bounds still hold 0 */
    struct interval_resid res[25];
    for (int i = 0; i < 25; i++)
        res[i] = (struct interval_resid){IT_MEMORY, IG_EAGER, 0, PREC_FP32, RT_PYTORCH,
                                         0.1 + i / 100.0, "a"};
    struct interval_table t;
    interval_build(&t, res, 25, NULL);
    struct config cfg = {.gpu = 0, .mig = -1, .prec = PREC_FP32, .rt = RT_PYTORCH, .batch = 1};
    struct interval iv = interval_for(&t, IT_MEMORY, &cfg, false, 100);
    assert_true(iv.valid);
    assert_true(fabs(iv.low - 100) < EPS); /* lower bound clamped to the point */
    /* 23rd (23/25 >= 0.9): 0.32, x1.5 for one source family */
    assert_true(fabs(iv.high - 100 * exp(0.32 * 1.5)) < 1e-6);
}

/* Bounds from fewer than three source families are widened x1.5 where
 * used and say so; from three, not. The count survives the TSV form, and a
 * table without it (older) flags nothing. */
static void few_families_widen_and_say_so(void **state)
{
    (void)state;
    static const char *const fam[] = {"a", "b", "c"};
    struct interval_resid res[30];
    struct config cfg = {.gpu = 0, .mig = -1, .prec = PREC_FP32, .rt = RT_PYTORCH, .batch = 1};
    struct interval_table t, u;
    for (int k = 1; k <= 3; k++) {
        /* 30 rows -0.15 .. +0.14 in k families; every fold keeps the
         * quantiles -0.12 .. +0.12 (each family spans the range alike) */
        for (int i = 0; i < 30; i++)
            res[i] = (struct interval_resid){IT_TIME, IG_EAGER, 0, PREC_FP32, RT_PYTORCH,
                                             (i - 15) / 100.0, fam[i % k]};
        interval_build(&t, res, 30, NULL);
        assert_int_equal(t.b[IT_TIME][IG_EAGER].n_fam, k);
        struct interval iv = interval_for(&t, IT_TIME, &cfg, false, 10);
        double w = k < 3 ? 1.5 : 1;
        assert_true(fabs(iv.widen - w) < EPS);
        assert_true(fabs(iv.high - 10 * exp(t.b[IT_TIME][IG_EAGER].hi * w)) < 1e-9);
        char want[64];
        snprintf(want, sizeof want, "from only %d source famil%s: widened x1.5", k,
                 k == 1 ? "y" : "ies");
        if (k < 3 && !strstr(iv.note, want))
            fail_msg("%d families: '%s' lacks '%s'", k, iv.note, want);
        if (k == 3)
            assert_null(strstr(iv.note, "source famil"));
        /* both widenings: an unmeasured GPU on top */
        cfg.gpu = 1;
        iv = interval_for(&t, IT_TIME, &cfg, false, 10);
        cfg.gpu = 0;
        assert_true(fabs(iv.widen - 1.5 * w) < EPS);
        assert_non_null(strstr(iv.note, "no measured latency rows for "));
        size_t len;
        char *text = interval_table_format(&t, NULL, &len);
        struct diag d = {0};
        assert_int_equal(interval_table_parse(&u, "x.tsv", text, &d), ST_OK);
        assert_int_equal(u.b[IT_TIME][IG_EAGER].n_fam, k);
        free(text);
    }
    /* a table without the FAMILIES column: nothing known, nothing flagged */
    struct diag d = {0};
    assert_int_equal(interval_table_parse(&u, "x.tsv",
                                          "interval\tlatency\teager\t30\t0.9\t1.1\tgroup\n"
                                          "measured\tlatency\tgpu\tA100-SXM4-40GB\n",
                                          &d),
                     ST_OK);
    assert_int_equal(u.b[IT_TIME][IG_EAGER].n_fam, 0);
    cfg.gpu = gpu_find("A100-SXM4-40GB");
    u.prec[IT_TIME][PREC_FP32] = u.rt[IT_TIME][RT_PYTORCH] = true;
    struct interval iv = interval_for(&u, IT_TIME, &cfg, false, 10);
    assert_true(iv.valid && iv.widen == 1);
}

static void unmeasured_widens_and_says_so(void **state)
{
    (void)state;
    struct interval_resid res[40];
    int n = make_resid(res);
    struct interval_table t;
    interval_build(&t, res, n, NULL);
    struct config cfg = {.gpu = 0, .mig = -1, .prec = PREC_FP32, .rt = RT_PYTORCH, .batch = 1};
    struct interval iv = interval_for(&t, IT_TIME, &cfg, false, 10);
    assert_true(iv.valid && iv.widen == 1);
    assert_true(fabs(iv.low - 10 * exp(-0.12)) < 1e-9 && fabs(iv.high - 10 * exp(0.12)) < 1e-9);
    assert_null(strstr(iv.note, "no measured"));
    /* GPU 1 has no row: x1.5 and named */
    cfg.gpu = 1;
    iv = interval_for(&t, IT_TIME, &cfg, false, 10);
    assert_true(fabs(iv.widen - 1.5) < EPS);
    assert_true(fabs(iv.low - 10 * exp(-0.18)) < 1e-9 && fabs(iv.high - 10 * exp(0.18)) < 1e-9);
    assert_non_null(strstr(iv.note, "no measured latency rows for "));
    assert_non_null(strstr(iv.note, gpu_get(1)->name));
    /* and int8 too: x2.25, both named */
    cfg.prec = PREC_INT8;
    iv = interval_for(&t, IT_TIME, &cfg, false, 10);
    assert_true(fabs(iv.low - 10 * exp(-0.12 * 2.25)) < 1e-9);
    assert_non_null(strstr(iv.note, "int8"));
    /* a generation falls back to the pooled bounds x1.5 and says so */
    cfg = (struct config){.gpu = 0, .mig = -1, .prec = PREC_FP16, .rt = RT_TENSORRT, .batch = 1};
    iv = interval_for(&t, IT_TIME, &cfg, true, 10);
    assert_true(fabs(iv.high - 10 * exp(0.75)) < 1e-9);
    assert_non_null(strstr(iv.note, "only 0 measured generation latency rows"));
    /* no table, or no bounds: not valid, the point is both ends */
    iv = interval_for(NULL, IT_TIME, &cfg, false, 10);
    assert_false(iv.valid);
    assert_true(iv.low == 10 && iv.high == 10);
    iv = interval_for(&t, IT_MEMORY, &cfg, false, 10);
    assert_false(iv.valid);
}

static void tsv_round_trip_and_errors(void **state)
{
    (void)state;
    struct interval_resid res[40];
    int n = make_resid(res);
    struct interval_table t, u;
    interval_build(&t, res, n, NULL);
    size_t len;
    char *text = interval_table_format(&t, "made by hand\nsecond line", &len);
    assert_non_null(strstr(text, "# made by hand\n# second line\n"));
    struct diag d = {0};
    assert_int_equal(interval_table_parse(&u, "x.tsv", text, &d), ST_OK);
    for (int ti = 0; ti < IT__COUNT; ti++)
        for (int g = 0; g < IG__COUNT; g++) {
            assert_int_equal(u.b[ti][g].valid, t.b[ti][g].valid);
            assert_int_equal(u.b[ti][g].fallback, t.b[ti][g].fallback);
            assert_int_equal(u.b[ti][g].n, t.b[ti][g].n);
            if (t.b[ti][g].valid) /* four decimals of the factor */
                assert_true(fabs(u.b[ti][g].hi - t.b[ti][g].hi) < 1e-3);
        }
    assert_true(u.gpu[IT_TIME][0] && !u.gpu[IT_TIME][1]);
    assert_true(u.prec[IT_TIME][PREC_FP16] && !u.prec[IT_TIME][PREC_INT8]);
    assert_true(u.rt[IT_TIME][RT_TENSORRT] && !u.rt[IT_MEMORY][RT_TENSORRT]);
    free(text);

    static const struct {
        const char *text, *want;
    } bad[] = {
        {"interval\tlatency\teager\t3\t1.2\t1.5\tgroup\n", "x.tsv:1: expected ROWS >= 0"},
        {"# c\ninterval\ttime\teager\t3\t0.9\t1.1\tgroup\n", "x.tsv:2: expected 'interval"},
        {"interval\tlatency\teager\t3\t0.9\t1.1\tmaybe\n", "BASIS 'maybe'"},
        {"interval\tlatency\teager\t3\t0.9\t1.1\tgroup\nmeasured\tlatency\tgpu\tB300\n",
         "x.tsv:2: expected gpu, precision or runtime"},
        {"bounds\t1\n", "x.tsv:1: 'bounds'"},
        {"interval\tlatency\teager\t3\t0.9\t1.1\tgroup\ttwo\n", "x.tsv:1: FAMILIES 'two'"},
        {"# only comments\n", "x.tsv: no 'interval' line"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct diag e = {0};
        assert_int_equal(interval_table_parse(&u, "x.tsv", bad[i].text, &e), ST_EPARSE);
        if (!strstr(e.msg, bad[i].want))
            fail_msg("case %zu: '%s' lacks '%s'", i, e.msg, bad[i].want);
    }
}

/* A residual file (interval_gen.h, RESID FORMAT) with one bad field names
 * the file, the line and the field, and says what the field must be; a
 * good file gives its rows. */
static void resid_file_errors(void **state)
{
    (void)state;
    static const char head[] =
        "family\ttarget\tkind\tgpu\tprecision\truntime\tmeasured\tpredicted\n";
    static const char good[] = "src\ttime\tpass\tT4-PCIe-16GB\tfp16\tpytorch\t2\t1\n";
    static const struct {
        const char *header, *line, *want;
    } cases[] = {
        {head, good, NULL},
        {head, "\ttime\tpass\tT4-PCIe-16GB\tfp16\tpytorch\t2\t1\n",
         ":2: field family: '' is not a family name"},
        {head, "src\tenergy\tpass\tT4-PCIe-16GB\tfp16\tpytorch\t2\t1\n",
         ":2: field target: 'energy' is not time or memory"},
        {head, "src\ttime\tstep\tT4-PCIe-16GB\tfp16\tpytorch\t2\t1\n",
         ":2: field kind: 'step' is not pass or generation"},
        {head, "src\ttime\tpass\tB300\tfp16\tpytorch\t2\t1\n",
         ":2: field gpu: 'B300' is not a GPU"},
        {head, "src\ttime\tpass\tT4-PCIe-16GB\tfp12\tpytorch\t2\t1\n",
         ":2: field precision: 'fp12' is not a precision"},
        {head, "src\ttime\tpass\tT4-PCIe-16GB\tfp16\tjax\t2\t1\n",
         ":2: field runtime: 'jax' is not a runtime"},
        {head, "src\ttime\tpass\tT4-PCIe-16GB\tfp16\tpytorch\tnan\t1\n",
         ":2: field measured: 'nan' is not a number > 0"},
        {head, "src\ttime\tpass\tT4-PCIe-16GB\tfp16\tpytorch\t2\t\n",
         ":2: field predicted: '' is not a number > 0"},
        {head, "src\ttime\tpass\n",
         ":2: 3 tab-separated fields, expected 8 (family ... predicted)"},
        {"family\ttarget\tkind\tgpu\tprec\truntime\tmeasured\tpredicted\n", good,
         ":1: header column 5: 'prec', expected 'precision'"},
        {"", "", ": empty, expected a header line"},
    };
    char path[] = "/tmp/test_interval_residXXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    const char *files[] = {path};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fprintf(f, "%s%s", cases[i].header, cases[i].line);
        fclose(f);
        struct interval_resid *res = NULL;
        struct interval_names names = {0};
        struct diag d = {0};
        int n = -1;
        enum status st = interval_read_resid(files, 1, &res, &n, &names, &d);
        if (!cases[i].want) {
            assert_int_equal(st, ST_OK);
            assert_int_equal(n, 1);
            assert_int_equal(res[0].target, IT_TIME);
            assert_int_equal(res[0].group, IG_EAGER);
            assert_string_equal(res[0].family, "src");
            assert_true(fabs(res[0].r - log(2)) < EPS);
        } else {
            char want[256];
            snprintf(want, sizeof want, "%s%s", path, cases[i].want);
            assert_int_equal(st, ST_EPARSE);
            assert_int_equal(n, 0);
            assert_null(res);
            if (!strstr(d.msg, want))
                fail_msg("case %zu: '%s' lacks '%s'", i, d.msg, want);
        }
        free(res);
        interval_names_fini(&names);
    }
    unlink(path);
}

/* Four families of 25 eager rows each at -0.12 .. +0.12: each fold's table
 * (the other three families, n = 75, each value thrice, 1/25 of a family
 * each) spans its 0.1 and 0.9 quantiles, the 3rd and 23rd smallest values,
 * -0.10 .. +0.10, from three families (not widened), which holds 21 of the
 * held-out family's 25 rows: 84 of 100, 84.0% (within the 72-88% goal),
 * width exp(0.10) - exp(-0.10) = 20.0%. With two families, each fold's
 * table is one family's, widened x1.5: -0.15 .. +0.15 holds all 25 rows. */
static void report_leave_one_family_out(void **state)
{
    (void)state;
    static const char *const fam[] = {"a", "b", "c", "d"};
    struct interval_resid res[100];
    for (int i = 0; i < 100; i++)
        res[i] = (struct interval_resid){IT_TIME, IG_EAGER, 0, PREC_FP32, RT_PYTORCH,
                                         (i % 25 - 12) / 100.0, fam[i / 25]};
    struct interval_table t;
    interval_build(&t, res, 100, NULL);
    size_t len;
    struct interval_counts cnt = {.calib = 100};
    char *md = interval_report(res, 100, &cnt, &t, "by hand", "100 rows", &len);
    if (!strstr(md, "| latency, eager | 100 | 0 | 84.0% | 20.0% | 0 | yes |"))
        fail_msg("coverage row missing in:\n%s", md);
    assert_non_null(strstr(md, "| a, latency | 25 | 0 | 84.0% | 20.0% | 0 |"));
    /* no memory rows: no memory line at all */
    assert_null(strstr(md, "| memory, eager |"));
    /* the table itself: n = 100, four families of 1/25 a row: the 0.1
     * quantile is the 3rd smallest value (-0.10), the 0.9 one the 23rd */
    assert_non_null(strstr(md, "| latency | eager | 100 | 4 | 0.905 | 1.105 | own rows |"));
    free(md);

    interval_build(&t, res, 50, NULL);
    cnt.calib = 50;
    md = interval_report(res, 50, &cnt, &t, "by hand", "50 rows", &len);
    if (!strstr(md, "| latency, eager | 50 | 0 | 100.0% | 30.1% | 50 | no |"))
        fail_msg("two-family coverage row missing in:\n%s", md);
    assert_non_null(strstr(md, "| latency | eager | 50 | 2 | 0.905 | 1.105 | own rows; "
                               "**too few source families**: x1.5 where used |"));
    free(md);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(conformal_order_statistics),
        cmocka_unit_test(balanced_by_family),
        cmocka_unit_test(build_groups_and_fallback),
        cmocka_unit_test(point_held_by_interval),
        cmocka_unit_test(few_families_widen_and_say_so),
        cmocka_unit_test(unmeasured_widens_and_says_so),
        cmocka_unit_test(tsv_round_trip_and_errors),
        cmocka_unit_test(resid_file_errors),
        cmocka_unit_test(report_leave_one_family_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
