/*
 * status.h - one status enum for every fallible function, plus `struct diag`,
 * the explicit error report (code + message naming the file, node or field).
 *
 * Fallible functions return enum status and write results through
 * out-parameters. Constructors return NULL and fill an optional diag.
 * There is no global last-error buffer: a diag is passed explicitly.
 */
#ifndef DIPPM_STATUS_H
#define DIPPM_STATUS_H

#include <stdarg.h>
#include <stddef.h>

/* X(name, exit code, message). Exit codes are those of the CLI (man/dippm.1). */
#define STATUS_LIST(X)                                                  \
    X(OK, 0, "success")                                                 \
    X(EUSAGE, 2, "invalid usage")                                       \
    X(EIO, 3, "input/output error")                                     \
    X(EPARSE, 4, "malformed input")                                     \
    X(EUNSUPPORTED, 5, "unsupported construct")                         \
    X(EGRAPH, 4, "invalid graph")                                       \
    X(ESHAPE, 6, "shape inference failed")                              \
    X(ERANGE, 2, "value out of range")                                  \
    X(ENOMEM, 7, "out of memory or size limit exceeded")                \
    X(EWEIGHTS, 8, "invalid weight file")                               \
    X(ENOTFOUND, 3, "not found")                                        \
    X(EEXIST, 9, "file exists")                                         \
    X(EINTERNAL, 70, "internal error")

enum status {
#define X(name, code, msg) ST_##name,
    STATUS_LIST(X)
#undef X
    ST__COUNT
};

/* Static message for a status code; never NULL. */
const char *status_str(enum status st);

/* Process exit code documented for a status (0 for ST_OK). */
int status_exit_code(enum status st);

#define DIAG_MSG_MAX 512

/* An error report: the status and a message such as
 * "model.onnx: node 'Conv_3': input 1 has rank 3, expected 4". */
struct diag {
    enum status code;
    char msg[DIAG_MSG_MAX];
};

/* Records st and a printf-style message in d (if d is not NULL) and returns
 * st, so callers can write `return diag_set(d, ST_EPARSE, "...", ...);`.
 * A diag that already holds an error keeps the first one. */
enum status diag_set(struct diag *d, enum status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* diag_set with a va_list, for printf-style error helpers of a module:
 * the message is "prefix: " (when prefix is not NULL) and then fmt. */
enum status diag_vset(struct diag *d, enum status st, const char *prefix, const char *fmt,
                      va_list ap) __attribute__((format(printf, 4, 0)));

/* diag_vset for a reader's error at path in file (a JSON path, a layer):
 * the message is "file: path: " and then fmt. */
enum status diag_vset_at(struct diag *d, enum status st, const char *file, const char *path,
                         const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

/* Prefixes the message already in d with "prefix: " (e.g. the file name). */
void diag_prefix(struct diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Clears d to ST_OK with an empty message. NULL is a no-op. */
void diag_clear(struct diag *d);

/* Programmer errors only: aborts with file and line in every build.
 * Never use on anything derived from an input file. */
#define CHECK(cond)                                                     \
    do {                                                                \
        if (!(cond))                                                    \
            check_failed(__FILE__, __LINE__, #cond);                    \
    } while (0)

_Noreturn void check_failed(const char *file, int line, const char *expr);

#endif
