/* test_isolate.c - running work in a child process with a time limit
 * (isolate.h): output comes back whole, a hang is killed on time, a crash
 * and a failing exit are reported, too much output is refused. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/isolate.h"

static void big_output(void *arg, struct strbuf *out)
{
    int n = *(int *)arg;
    for (int i = 0; i < n; i++)
        strbuf_printf(out, "%07d\n", i);
}

static void spin(void *arg, struct strbuf *out)
{
    (void)arg;
    strbuf_printf(out, "started");
    for (;;)
        pause();
}

static void crash(void *arg, struct strbuf *out)
{
    (void)arg;
    (void)out;
    raise(SIGSEGV);
}

static void fail_exit(void *arg, struct strbuf *out)
{
    (void)arg;
    (void)out;
    _exit(5);
}

static void test_output_comes_back(void **state)
{
    (void)state;
    /* 8 MB: far more than a pipe holds, so the parent must read while the
     * child writes */
    int n = 1000000;
    char *out, why[128] = "";
    size_t len;
    assert_int_equal(isolate_run(big_output, &n, 20000, 16 << 20, &out, &len, why, sizeof why),
                     ISOLATE_OK);
    assert_int_equal(len, 8000000);
    assert_memory_equal(out, "0000000\n0000001\n", 16);
    assert_memory_equal(out + len - 8, "0999999\n", 8);
    assert_int_equal(out[len], '\0');
    free(out);
}

static void test_hang_is_killed(void **state)
{
    (void)state;
    char *out = (char *)1, why[128] = "";
    size_t len = 7;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    assert_int_equal(isolate_run(spin, NULL, 300, 1024, &out, &len, why, sizeof why),
                     ISOLATE_TIMEOUT);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    assert_true(s >= 0.29 && s < 5);
    assert_null(out);
    assert_int_equal(len, 0);
    assert_non_null(strstr(why, "did not finish within 1 s"));
}

static void test_crash_and_failure(void **state)
{
    (void)state;
    char *out, why[128] = "";
    size_t len;
    assert_int_equal(isolate_run(crash, NULL, 5000, 1024, &out, &len, why, sizeof why),
                     ISOLATE_CRASH);
    assert_non_null(strstr(why, "crashed (signal 11)"));
    assert_null(out);
    assert_int_equal(isolate_run(fail_exit, NULL, 5000, 1024, &out, &len, why, sizeof why),
                     ISOLATE_CRASH);
    assert_non_null(strstr(why, "exit status 5"));
}

static void test_too_much_output(void **state)
{
    (void)state;
    int n = 100000;
    char *out, why[128] = "";
    size_t len;
    assert_int_equal(isolate_run(big_output, &n, 20000, 4096, &out, &len, why, sizeof why),
                     ISOLATE_FAILED);
    assert_null(out);
    assert_non_null(strstr(why, "more than 4096 bytes"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_output_comes_back),
        cmocka_unit_test(test_hang_is_killed),
        cmocka_unit_test(test_crash_and_failure),
        cmocka_unit_test(test_too_much_output),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
