/*
 * test_interval.c - prediction intervals (src/core/interval.c) on hand-made
 * held-out errors: the conformal order statistics, the fallback of a group
 * with few rows to the widened pooled bounds, the widening of an
 * unmeasured GPU, precision or runtime, and the TSV form.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
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

/* 29 eager rows -0.14 .. +0.14 (step 0.01) on GPU 0, fp32, pytorch; five
 * tensorrt rows at +0.5 on GPU 0, fp16. */
static int make_resid(struct interval_resid *res)
{
    int n = 0;
    for (int i = 1; i <= 29; i++)
        res[n++] = (struct interval_resid){IT_TIME, IG_EAGER, 0, PREC_FP32, RT_PYTORCH,
                                           (i - 15) / 100.0, "a"};
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
    /* eager, n = 29, one family: each row weighs 1/29; the 0.1 and 0.9
     * quantiles are the 3rd (3/29 >= 0.1: -0.12) and 27th (+0.12) smallest */
    const struct interval_bounds *e = &t.b[IT_TIME][IG_EAGER];
    assert_true(e->valid && !e->fallback);
    assert_int_equal(e->n, 29);
    assert_true(fabs(e->lo + 0.12) < EPS && fabs(e->hi - 0.12) < EPS);
    /* pooled, n = 34 in two families, each weighing one half: the 29 eager
     * rows 1/58 each, the five tensorrt ones 1/10 each. The 0.1 quantile is
     * the 6th smallest (6/58 >= 0.1: -0.09), not the 4th a row-weighted one
     * takes; the 0.9 quantile one of the +0.5 rows */
    const struct interval_bounds *p = &t.b[IT_TIME][IG_POOLED];
    assert_true(p->valid && fabs(p->lo + 0.09) < EPS && fabs(p->hi - 0.5) < EPS);
    /* tensorrt has 5 rows, generation none: pooled x1.5 */
    for (int g = IG_ENGINE; g <= IG_GENERATION; g++) {
        const struct interval_bounds *b = &t.b[IT_TIME][g];
        assert_true(b->valid && b->fallback);
        assert_true(fabs(b->lo + 0.135) < EPS && fabs(b->hi - 0.75) < EPS);
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
    assert_true(fabs(iv.low - 100) < EPS);          /* lower bound clamped to the point */
    assert_true(fabs(iv.high - 100 * exp(0.32)) < 1e-6); /* 23rd (23/25 >= 0.9): 0.32 */
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
        {"# only comments\n", "x.tsv: no 'interval' line"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct diag e = {0};
        assert_int_equal(interval_table_parse(&u, "x.tsv", bad[i].text, &e), ST_EPARSE);
        if (!strstr(e.msg, bad[i].want))
            fail_msg("case %zu: '%s' lacks '%s'", i, e.msg, bad[i].want);
    }
}

/* Two families of 25 eager rows each at -0.12 .. +0.12: each fold's table
 * (the other family, n = 25, 1/25 a row) spans its 0.1 and 0.9 quantiles,
 * the 3rd and 23rd smallest, -0.10 .. +0.10, which holds 21 of the held-out
 * family's 25 rows: 42 of 50, 84.0% (within the 72-88% goal), width
 * exp(0.10) - exp(-0.10) = 20.0%. */
static void report_leave_one_family_out(void **state)
{
    (void)state;
    struct interval_resid res[50];
    for (int i = 0; i < 50; i++)
        res[i] = (struct interval_resid){IT_TIME, IG_EAGER, 0, PREC_FP32, RT_PYTORCH,
                                         (i % 25 - 12) / 100.0, i < 25 ? "a" : "b"};
    struct interval_table t;
    interval_build(&t, res, 50, NULL);
    size_t len;
    struct interval_counts cnt = {.calib = 50};
    char *md = interval_report(res, 50, &cnt, &t, "by hand", "50 rows", &len);
    if (!strstr(md, "| latency, eager | 50 | 0 | 84.0% | 20.0% | 0 | yes |"))
        fail_msg("coverage row missing in:\n%s", md);
    assert_non_null(strstr(md, "| a, latency | 25 | 0 | 84.0% | 20.0% | 0 |"));
    /* no memory rows: no memory line at all */
    assert_null(strstr(md, "| memory, eager |"));
    /* the table itself: n = 50, two families of 1/50 a row: the 0.1 quantile
     * is the 5th smallest (-0.10), the 0.9 one the 45th (+0.10) */
    assert_non_null(strstr(md, "| latency | eager | 50 | 2 | 0.905 | 1.105 | own rows |"));
    free(md);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(conformal_order_statistics),
        cmocka_unit_test(balanced_by_family),
        cmocka_unit_test(build_groups_and_fallback),
        cmocka_unit_test(point_held_by_interval),
        cmocka_unit_test(unmeasured_widens_and_says_so),
        cmocka_unit_test(tsv_round_trip_and_errors),
        cmocka_unit_test(report_leave_one_family_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
