/* test_mig.c - the MIG advisor's decision: exact thresholds, headroom,
 * nothing fits, unmeetable latency targets. Capacities are the -lgip usable
 * GiB figures nvidia-smi mig -lgip reports for the A100-SXM4-40GB. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/gpu.h"
#include "core/mig.h"

static const struct gpu_spec *a100(void)
{
    int i = gpu_find("A100-SXM4-40GB");
    assert_true(i >= 0);
    return gpu_get(i);
}

/* Fills a with every candidate profile at the given memory; latency falls
 * with the profile's compute slices: lat_1g / sevenths. */
static void setup(struct mig_advice *a, double mem_mib, double lat_1g, double headroom,
                  double slo)
{
    const struct gpu_spec *gs = a100();
    memset(a, 0, sizeof *a);
    a->headroom = headroom;
    a->slo_ms = slo;
    int idx[MIG_MAX_PROFILES];
    a->n = mig_profile_order(gs, idx);
    for (int i = 0; i < a->n; i++) {
        a->opts[i].profile = idx[i];
        a->opts[i].memory_mib = mem_mib;
        a->opts[i].latency_ms = lat_1g / gs->mig[idx[i]].sm_sevenths;
    }
}

static const char *best_name(const struct mig_advice *a)
{
    return a->best >= 0 ? a100()->mig[a->best].name : "none";
}

static void test_order_smallest_first(void **state)
{
    (void)state;
    const struct gpu_spec *gs = a100();
    int idx[MIG_MAX_PROFILES];
    int n = mig_profile_order(gs, idx);
    const char *want[] = {"1g.5gb", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"};
    assert_int_equal(n, 6); /* 1g.5gb+me is a duplicate of 1g.5gb's capacity */
    for (int i = 0; i < n; i++)
        assert_string_equal(gs->mig[idx[i]].name, want[i]);
}

static void test_exact_threshold_fits(void **state)
{
    (void)state;
    struct mig_advice a;
    /* 3g.20gb offers 19.62 GiB = 20090.88 MiB; with no headroom, equal fits */
    setup(&a, 19.62 * 1024, 10, 0.0, 0);
    mig_decide(a100(), &a);
    assert_string_equal(best_name(&a), "3g.20gb");
    setup(&a, 19.62 * 1024 + 0.01, 10, 0.0, 0);
    mig_decide(a100(), &a);
    assert_string_equal(best_name(&a), "7g.40gb");
}

static void test_headroom_and_reason(void **state)
{
    (void)state;
    struct mig_advice a;
    /* 14.1 GiB predicted: +10% = 15.51 GiB > 9.75 (2g.10gb), <= 19.62 (3g.20gb) */
    setup(&a, 14.1 * 1024, 10, 0.10, 0);
    mig_decide(a100(), &a);
    assert_string_equal(best_name(&a), "3g.20gb");
    assert_non_null(strstr(a.reason, "3g.20gb: 19.6 GiB usable >= 14.1 GiB predicted + 10%"));
    /* 15.51 - 9.75 = 5.76 GiB short */
    assert_non_null(strstr(a.reason, "2g.10gb too small by 5.76 GiB"));
    /* headroom pushes a just-fitting model up one profile: 9.0 GiB fits 2g.10gb
     * (9.75) without headroom but needs 9.9 GiB with 10% */
    setup(&a, 9.0 * 1024, 10, 0.0, 0);
    mig_decide(a100(), &a);
    assert_string_equal(best_name(&a), "1g.10gb");
    setup(&a, 9.0 * 1024, 10, 0.10, 0);
    mig_decide(a100(), &a);
    assert_string_equal(best_name(&a), "3g.20gb");
}

static void test_smallest_profile(void **state)
{
    (void)state;
    struct mig_advice a;
    setup(&a, 300, 1, 0.10, 0);
    mig_decide(a100(), &a);
    assert_string_equal(best_name(&a), "1g.5gb");
    assert_non_null(strstr(a.reason, "smallest profile"));
}

static void test_nothing_fits(void **state)
{
    (void)state;
    struct mig_advice a;
    setup(&a, 40 * 1024, 10, 0.10, 0); /* 44 GiB needed, 39.38 offered */
    mig_decide(a100(), &a);
    assert_int_equal(a.best, -1);
    assert_non_null(strstr(a.reason, "no A100-SXM4-40GB profile fits"));
    assert_non_null(strstr(a.reason, "7g.40gb, offers 39.4 GiB (short by 4.62 GiB)"));
    assert_null(strstr(a.reason, "Undefined"));
}

static void test_latency_target_picks_bigger_profile(void **state)
{
    (void)state;
    struct mig_advice a;
    /* 1 GiB fits everywhere; 1g takes 12 ms, 2g 6 ms, 3g 4 ms: a 5 ms target -> 3g.20gb */
    setup(&a, 1024, 12, 0.10, 5);
    mig_decide(a100(), &a);
    assert_string_equal(best_name(&a), "3g.20gb");
    assert_non_null(strstr(a.reason, "4.00 ms <= 5.00 ms target"));
    assert_non_null(strstr(a.reason, "2g.10gb fits but takes 6.00 ms > 5.00 ms"));
}

static void test_unmeetable_target(void **state)
{
    (void)state;
    struct mig_advice a;
    setup(&a, 1024, 70, 0.10, 5); /* fastest: 7g at 10 ms */
    mig_decide(a100(), &a);
    assert_int_equal(a.best, -1);
    assert_non_null(strstr(a.reason, "no A100-SXM4-40GB profile meets the 5.00 ms target"));
    assert_non_null(strstr(a.reason, "7g.40gb, takes 10.0 ms (5.00 ms too slow)"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_smallest_first),
        cmocka_unit_test(test_exact_threshold_fits),
        cmocka_unit_test(test_headroom_and_reason),
        cmocka_unit_test(test_smallest_profile),
        cmocka_unit_test(test_nothing_fits),
        cmocka_unit_test(test_latency_target_picks_bigger_profile),
        cmocka_unit_test(test_unmeetable_target),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
