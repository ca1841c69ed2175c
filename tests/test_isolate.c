/* test_isolate.c - running work in a child process with a time limit
 * (isolate.h): output comes back whole, a hang is killed on time, a crash
 * and a failing exit are reported, too much output is refused. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
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

/* The reader process tells its pid through the pipe in *arg, then hangs. */
static void spin_tell(void *arg, struct strbuf *out)
{
    (void)out;
    pid_t me = getpid();
    if (write(*(int *)arg, &me, sizeof me) != (ssize_t)sizeof me)
        _exit(9);
    for (;;)
        pause();
}

/* Starts a process that runs spin_tell in a reader process with limit_ms;
 * returns its pid and the reader's in *reader. */
static pid_t start_runner(int limit_ms, pid_t *reader)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t runner = fork();
    assert_true(runner >= 0);
    if (runner == 0) {
        close(p[0]);
        char *out, why[128];
        size_t len;
        isolate_run(spin_tell, &p[1], limit_ms, 1024, &out, &len, why, sizeof why);
        _exit(0);
    }
    close(p[1]);
    assert_int_equal(read(p[0], reader, sizeof *reader), (ssize_t)sizeof *reader);
    close(p[0]);
    return runner;
}

/* Whether process pid has ended (a zombie or gone), polling up to 20 s:
 * a bound on a hang, not a timing. */
static bool ends_within_20s(pid_t pid)
{
    char path[64], stat[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    for (int i = 0; i < 400; i++) {
        FILE *f = fopen(path, "r");
        if (!f)
            return true;
        size_t n = fread(stat, 1, sizeof stat - 1, f);
        fclose(f);
        stat[n] = 0;
        const char *rp = strrchr(stat, ')');
        if (!rp || rp[1] != ' ' || rp[2] == 'Z' || rp[2] == 'X')
            return true;
        struct timespec ts = {0, 50000000};
        nanosleep(&ts, NULL);
    }
    return false;
}

/* A dippm killed while the reader process hangs takes the reader with it
 * (it used to spin on at 100% CPU, reparented to init). */
static void test_reader_dies_with_parent(void **state)
{
    (void)state;
    /* orphans come to this process, which can then reap them */
    assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    pid_t reader, runner = start_runner(600000, &reader);
    kill(runner, SIGKILL);
    assert_int_equal(waitpid(runner, NULL, 0), runner);
    bool ended = ends_within_20s(reader);
    if (!ended)
        kill(reader, SIGKILL);
    int ws = 0;
    assert_int_equal(waitpid(reader, &ws, 0), reader);
    assert_true(ended);
    assert_true(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL);
}

/* A reader process whose parent stops reading (stopped, so it cannot kill
 * it on time) still ends by its own deadline. */
static void test_reader_own_deadline(void **state)
{
    (void)state;
    pid_t reader, runner = start_runner(300, &reader);
    kill(runner, SIGSTOP);
    bool ended = ends_within_20s(reader);
    if (!ended)
        kill(reader, SIGKILL);
    kill(runner, SIGCONT);
    int ws = 0;
    assert_int_equal(waitpid(runner, &ws, 0), runner);
    assert_true(ended);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_output_comes_back),
        cmocka_unit_test(test_hang_is_killed),
        cmocka_unit_test(test_crash_and_failure),
        cmocka_unit_test(test_too_much_output),
        cmocka_unit_test(test_reader_dies_with_parent),
        cmocka_unit_test(test_reader_own_deadline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
