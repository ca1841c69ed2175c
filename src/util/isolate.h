/*
 * isolate.h - runs a piece of work in a child process with a wall-clock
 * limit and takes back the bytes it produced. For third-party parsers that
 * are not hardened against malformed input (libhdf5 1.10 can spin forever or
 * crash on a corrupt file): a hang is killed when the limit passes, a crash
 * becomes an error the caller reports, and whatever the library leaked dies
 * with the child. The caller's process never runs the untrusted code.
 *
 *   static void work(void *arg, struct strbuf *out) { ... strbuf_add(out, ...); }
 *   char *bytes; size_t n; char why[128];
 *   if (isolate_run(work, arg, 10000, 1 << 20, &bytes, &n, why, sizeof why) != ISOLATE_OK)
 *       ... report why ...
 */
#ifndef DIPPM_ISOLATE_H
#define DIPPM_ISOLATE_H

#include <stddef.h>

#include "util/strbuf.h"

enum isolate_result {
    ISOLATE_OK,      /* the child finished; *out holds what it wrote */
    ISOLATE_TIMEOUT, /* killed after limit_ms */
    ISOLATE_CRASH,   /* killed by a signal or exited with a failure */
    ISOLATE_NOCHILD, /* no child: the pipe or the fork failed (file descriptors,
                        processes or memory exhausted) */
    ISOLATE_FAILED,  /* too much output, or the pipe could not be read */
};

/* Runs fn(arg, out) in a forked child; the child's out buffer comes back as
 * *out (malloc'd, NUL-terminated, *out_len bytes; NULL unless ISOLATE_OK).
 * limit_ms bounds the whole run, max_out the bytes taken back. On failure
 * why (why_len bytes) says what happened, e.g. "did not finish within 10 s".
 * The child never outlives the caller: it is killed when the calling thread
 * dies, and by itself past twice limit_ms (plus a second) if nobody does. */
enum isolate_result isolate_run(void (*fn)(void *arg, struct strbuf *out), void *arg,
                                int limit_ms, size_t max_out, char **out, size_t *out_len,
                                char *why, size_t why_len);

#endif
