/*
 * isolate.c - fork, run, read back through a pipe, kill on a deadline (see
 * isolate.h). The child writes its whole buffer and leaves with _exit, so no
 * atexit handler or stdio buffer of the parent runs twice.
 */
#include "util/isolate.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Present only in sanitizer builds: the hook libFuzzer sets to record a
 * crash. The reader process clears it, so a fault of the isolated library is
 * the parent's error to report, not the fuzzer's finding. */
extern void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));

/* The child ends with its parent and by its own deadline, so a dippm
 * killed (or stopped) while the library spins leaves nothing running: the
 * kernel sends SIGKILL when the parent dies (checked once after setting it,
 * in case the parent died first), and SIGKILL again past twice the time the
 * parent allows. */
static void child_limits(pid_t parent, int limit_ms)
{
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    if (getppid() != parent)
        _exit(4);
    long long s = ((long long)limit_ms * 2 + 999) / 1000 + 1;
    timer_t t;
    struct sigevent ev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGKILL};
    struct itimerspec when = {.it_value = {.tv_sec = (time_t)s}};
    if (timer_create(CLOCK_MONOTONIC, &ev, &t) == 0)
        timer_settime(t, 0, &when, NULL);
    else
        alarm((unsigned)s); /* SIGALRM's default action ends the process too */
}

static _Noreturn void child(int fd, pid_t parent, int limit_ms,
                            void (*fn)(void *, struct strbuf *), void *arg)
{
    child_limits(parent, limit_ms);
    /* what the isolated library prints is not the user's concern: the result
     * and any error come back through the pipe */
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) {
        dup2(devnull, STDERR_FILENO);
        close(devnull);
    }
    if (__sanitizer_set_death_callback)
        __sanitizer_set_death_callback(NULL);
    /* a fault ends the child, whatever handler the parent installed */
    static const int sigs[] = {SIGPIPE, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], SIG_DFL);
    struct strbuf b = STRBUF_INIT;
    fn(arg, &b);
    size_t off = 0;
    while (off < b.len) {
        ssize_t w = write(fd, b.s + off, b.len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            _exit(3);
        off += (size_t)w;
    }
    _exit(0);
}

/* Reads the child's output until EOF, the deadline or max_out. */
static enum isolate_result drain(int fd, long long deadline, size_t max_out, struct strbuf *b)
{
    char chunk[65536];
    for (;;) {
        long long left = deadline - now_ms();
        if (left <= 0)
            return ISOLATE_TIMEOUT;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = poll(&p, 1, left > 1000 ? 1000 : (int)left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return ISOLATE_FAILED;
        if (r == 0)
            continue;
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return ISOLATE_FAILED;
        if (n == 0)
            return ISOLATE_OK;
        if (b->len + (size_t)n > max_out)
            return ISOLATE_FAILED;
        strbuf_add(b, chunk, (size_t)n);
    }
}

enum isolate_result isolate_run(void (*fn)(void *arg, struct strbuf *out), void *arg,
                                int limit_ms, size_t max_out, char **out, size_t *out_len,
                                char *why, size_t why_len)
{
    *out = NULL;
    *out_len = 0;
    int fds[2];
    if (pipe(fds) < 0) {
        snprintf(why, why_len, "cannot create a pipe: %s", strerror(errno));
        return ISOLATE_NOCHILD;
    }
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(why, why_len, "cannot start a reader process: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return ISOLATE_NOCHILD;
    }
    if (pid == 0) {
        close(fds[0]);
        child(fds[1], parent, limit_ms, fn, arg);
    }
    close(fds[1]);
    struct strbuf b = STRBUF_INIT;
    enum isolate_result r = drain(fds[0], now_ms() + limit_ms, max_out, &b);
    close(fds[0]);
    if (r != ISOLATE_OK)
        kill(pid, SIGKILL);
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    if (r == ISOLATE_TIMEOUT) {
        snprintf(why, why_len, "did not finish within %d s", (limit_ms + 999) / 1000);
    } else if (r == ISOLATE_FAILED) {
        snprintf(why, why_len, "wrote more than %zu bytes or could not be read", max_out);
    } else if (WIFSIGNALED(ws)) {
        snprintf(why, why_len, "crashed (signal %d)", WTERMSIG(ws));
        r = ISOLATE_CRASH;
    } else if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
        snprintf(why, why_len, "failed (exit status %d)", WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
        r = ISOLATE_CRASH;
    }
    if (r != ISOLATE_OK) {
        strbuf_fini(&b);
        return r;
    }
    *out = strbuf_take(&b, out_len);
    return ISOLATE_OK;
}
