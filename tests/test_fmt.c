/* test_fmt.c - the numbers people read (util/fmt.h): units, three
 * significant figures and every unit boundary, values worked out by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/fmt.h"

#define US "\u00b5s"

typedef const char *(*fmt_fn)(double, char *, int);

static void expect(fmt_fn f, double v, const char *want)
{
    char buf[32];
    const char *got = f(v, buf, sizeof buf);
    if (strcmp(got, want))
        fail_msg("%.10g formats as '%s', expected '%s'", v, got, want);
}

/* Past the last unit a figure fits the 16 bytes fmt.h promises: a
 * million of the unit on, with an exponent, never cut digits. */
static void test_huge(void **state)
{
    (void)state;
    static const struct {
        fmt_fn f;
        double v;
        const char *want;
    } cases[] = {
        {fmt_si, 2.5e145, "2.5e+127 E"},            /* 2.5e145 / 1000^6 */
        {fmt_si, 999999e18, "999999 E"},            /* still digits */
        {fmt_num, 1e300, "1e+282E"},
        {fmt_ms, 1e20, "1.16e+12 d"},               /* 1e20 / 86.4e6 */
        {fmt_ms, 86400e3 * 999999, "999999 d"},
        {fmt_bytes, 0x1p62 * 1e6, "4e+06 EiB"},     /* 2^62 * 1e6 / 2^60 */
        {fmt_bytes_short, 0x1p50 * 2e6, "2e+06P"},  /* 2^50 * 2e6 / 2^50 */
        {fmt_joules, 1e300, "1e+288 TJ"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[16];
        const char *got = cases[i].f(cases[i].v, buf, sizeof buf);
        if (strcmp(got, cases[i].want))
            fail_msg("%.10g formats as '%s', expected '%s'", cases[i].v, got, cases[i].want);
    }
}

static void test_durations(void **state)
{
    (void)state;
    expect(fmt_ms, 0, "0 ms");
    expect(fmt_ms, 0.00035, "350 ns");
    expect(fmt_ms, 0.000999, "999 ns");
    expect(fmt_ms, 0.001, "1.00 " US); /* an SLO of 0.001 ms is not 0.00 ms */
    expect(fmt_ms, 0.0123, "12.3 " US);
    expect(fmt_ms, 0.42, "420 " US);
    expect(fmt_ms, 0.9994, "999 " US);
    expect(fmt_ms, 0.9996, "1.00 ms");
    expect(fmt_ms, 3.214, "3.21 ms");
    expect(fmt_ms, 13.936, "13.9 ms");
    expect(fmt_ms, 999.4, "999 ms");
    expect(fmt_ms, 999.6, "1.00 s");
    expect(fmt_ms, 1810, "1.81 s"); /* not 1.81e+03 ms */
    expect(fmt_ms, 99940, "99.9 s");
    expect(fmt_ms, 99960, "1.67 min"); /* 99.96 s / 60 */
    expect(fmt_ms, 2862000, "47.7 min");
    expect(fmt_ms, 5994000, "99.9 min");
    expect(fmt_ms, 5998000, "1.67 h"); /* 99.97 min / 60 */
    expect(fmt_ms, 11520000, "3.20 h");
    expect(fmt_ms, 21344865.835, "5.93 h");
    expect(fmt_ms, 359640000, "99.9 h");
    expect(fmt_ms, 359900000, "4.17 d"); /* 99.97 h / 24 */
    expect(fmt_ms, 3121225606.0, "36.1 d");
    expect(fmt_ms, 1e12, "11574 d"); /* past the last unit: digits, no exponent */
    expect(fmt_ms, -1, "?");
    expect(fmt_ms, NAN, "?");
    expect(fmt_ms, INFINITY, "?");
}

static void test_bytes(void **state)
{
    (void)state;
    expect(fmt_bytes, 0, "0 B");
    expect(fmt_bytes, 512, "512 B");
    expect(fmt_bytes, 1023, "1023 B");
    expect(fmt_bytes, 1024, "1.00 KiB");
    expect(fmt_bytes, 1536, "1.50 KiB");
    expect(fmt_bytes, 99.96 * 1024, "100 KiB");
    expect(fmt_bytes, 9.996 * 1024, "10.0 KiB");
    expect(fmt_mib, 512, "512 MiB");
    expect(fmt_mib, 1000, "1000 MiB"); /* 1000..1023 of a unit keep four digits */
    expect(fmt_mib, 1023.4, "1023 MiB");
    expect(fmt_mib, 1023.6, "1.00 GiB");
    expect(fmt_mib, 2366, "2.31 GiB");
    expect(fmt_mib, 18351.52 * 1024, "17.9 TiB"); /* not 18351.52 GiB */
    expect(fmt_mib, 734862201, "701 TiB");
    expect(fmt_bytes, 1024.0 * 1024 * 1024 * 1024 * 1024 * 1024 * 5000, "5000 EiB");
    expect(fmt_bytes_short, 1.35 * 1073741824.0, "1.35G");
    expect(fmt_bytes_short, 0, "0");
    expect(fmt_bytes, -1, "?");
    expect(fmt_bytes, NAN, "?");
}

static void test_rates(void **state)
{
    (void)state;
    expect(fmt_rate, 0, "0/s");
    expect(fmt_rate, 2.3e-5, "0.0000230/s"); /* slow, not Throughput 0/s */
    expect(fmt_rate, 0.0009996, "0.00100/s");
    expect(fmt_rate, 0.42, "0.420/s");
    expect(fmt_rate, 0.9996, "1.00/s");
    expect(fmt_rate, 2.3, "2.30/s");
    expect(fmt_rate, 71.76, "71.8/s");
    expect(fmt_rate, 930, "930/s");
    expect(fmt_rate, 999.4, "999/s");
    expect(fmt_rate, 999.6, "1.00k/s");
    expect(fmt_rate, 1200, "1.20k/s");
    expect(fmt_rate, 2.345e6, "2.35M/s");
    expect(fmt_rate, -1, "?/s");
    expect(fmt_num, 454.1, "454");
}

static void test_energy(void **state)
{
    (void)state;
    expect(fmt_joules, 0, "0 J");
    expect(fmt_joules, 4.2e-7, "420 nJ");
    expect(fmt_joules, 4.2e-5, "42.0 \u00b5J");
    expect(fmt_joules, 0.592, "592 mJ");
    expect(fmt_joules, 0.9994, "999 mJ");
    expect(fmt_joules, 0.9996, "1.00 J");
    expect(fmt_joules, 3.889, "3.89 J");
    expect(fmt_joules, 999.4, "999 J");
    expect(fmt_joules, 999.6, "1.00 kJ");
    expect(fmt_joules, 1300, "1.30 kJ");
    expect(fmt_joules, 8094600.267, "8.09 MJ");
    expect(fmt_joules, -2, "?");
}

static void test_counts(void **state)
{
    (void)state;
    expect(fmt_si, 0, "0");
    expect(fmt_si, 999, "999");
    expect(fmt_si, 999.6, "1.00 k");
    expect(fmt_si, 1234567, "1.23 M");
    expect(fmt_si, 109482240, "109 M");
    expect(fmt_si, -2500, "-2.50 k");
    expect(fmt_si, NAN, "?");
}

static void test_columns(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fmt_col(f, "420 " US, 8); /* "µ" is two bytes but one column */
    fmt_col(f, "1.81 s", 8);
    fmt_col(f, "too wide for it", 4);
    fclose(f);
    assert_string_equal(buf, "   420 " US "   1.81 s too wide for it");
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_durations), cmocka_unit_test(test_bytes),
        cmocka_unit_test(test_rates),     cmocka_unit_test(test_energy),
        cmocka_unit_test(test_counts),    cmocka_unit_test(test_columns),
        cmocka_unit_test(test_huge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
