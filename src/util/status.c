/* status.c - status strings, exit codes and diag formatting. */
#include "util/status.h"
#include "util/textsafe.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const status_msgs[] = {
#define X(name, code, msg) msg,
    STATUS_LIST(X)
#undef X
};
static const int status_codes[] = {
#define X(name, code, msg) code,
    STATUS_LIST(X)
#undef X
};
_Static_assert(sizeof status_msgs / sizeof status_msgs[0] == ST__COUNT, "status table");

const char *status_str(enum status st)
{
    if ((unsigned)st >= ST__COUNT)
        return "unknown status";
    return status_msgs[st];
}

int status_exit_code(enum status st)
{
    if ((unsigned)st >= ST__COUNT)
        return 70;
    return status_codes[st];
}

enum status diag_vset(struct diag *d, enum status st, const char *prefix, const char *fmt,
                      va_list ap)
{
    if (!d || d->code != ST_OK)
        return st;
    d->code = st;
    char raw[DIAG_MSG_MAX];
    int n = prefix ? snprintf(raw, sizeof raw, "%s: ", prefix) : 0;
    if (n < 0)
        n = 0;
    if ((size_t)n < sizeof raw) /* else the prefix fills the message */
        vsnprintf(raw + n, sizeof raw - (size_t)n, fmt, ap);
    /* messages quote names from input files: never let them reach the
     * terminal as control sequences */
    text_sanitize(d->msg, sizeof d->msg, raw, true);
    return st;
}

enum status diag_vset_at(struct diag *d, enum status st, const char *file, const char *path,
                         const char *fmt, va_list ap)
{
    char where[DIAG_MSG_MAX];
    snprintf(where, sizeof where, "%s: %s", file, path);
    return diag_vset(d, st, where, fmt, ap);
}

enum status diag_set(struct diag *d, enum status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vset(d, st, NULL, fmt, ap);
    va_end(ap);
    return st;
}

void diag_prefix(struct diag *d, const char *fmt, ...)
{
    if (!d)
        return;
    char pre[DIAG_MSG_MAX], out[2 * DIAG_MSG_MAX + 4];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pre, sizeof pre, fmt, ap);
    va_end(ap);
    snprintf(out, sizeof out, "%s: %s", pre, d->msg);
    text_sanitize(d->msg, sizeof d->msg, out, true);
}

void diag_clear(struct diag *d)
{
    if (!d)
        return;
    d->code = ST_OK;
    d->msg[0] = '\0';
}

void check_failed(const char *file, int line, const char *expr)
{
    fprintf(stderr, "dippm: internal error at %s:%d: CHECK(%s) failed\n", file, line, expr);
    abort();
}
