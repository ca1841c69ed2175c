/* accuracy.c - the strict reader of weights/accuracy.tsv (see accuracy.h). */
#include "ui/accuracy.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"
#include "util/xalloc.h"

#define ACC_HEADER "table\tlabel\tmethod\trows\tmape\tlow\thigh\tgoal"
#define ACC_FIELDS 8

/* A percentage field: a number in [0, 1e6], or "-" for ACC_NONE when
 * dash_ok. */
static int pct(const char *s, bool dash_ok, double *out)
{
    if (dash_ok && !strcmp(s, "-")) {
        *out = ACC_NONE;
        return 0;
    }
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !(v >= 0 && v <= 1e6))
        return -1;
    *out = v;
    return 0;
}

/* One data line, cut in place into fig; -1 with err naming the field. */
static int parse_line(char *line, struct acc_figure *fig, char *err, size_t errsize)
{
    static const char *names[ACC_FIELDS] = {"table", "label", "method", "rows",
                                            "mape", "low", "high", "goal"};
    char *fld[ACC_FIELDS];
    int n = 0;
    for (char *p = line;; p++) {
        if (n == ACC_FIELDS) {
            snprintf(err, errsize, "more than %d tab-separated fields", ACC_FIELDS);
            return -1;
        }
        fld[n++] = p;
        p = strchr(p, '\t');
        if (!p)
            break;
        *p = '\0';
    }
    if (n != ACC_FIELDS) {
        snprintf(err, errsize, "%d tab-separated fields, not %d", n, ACC_FIELDS);
        return -1;
    }
    for (int i = 0; i < 3; i++)
        if (!fld[i][0]) {
            snprintf(err, errsize, "field %s is empty", names[i]);
            return -1;
        }
    char *end;
    errno = 0;
    fig->rows = strtol(fld[3], &end, 10);
    int bad = !*fld[3] || *end || errno || fig->rows < 0 ? 3 : -1;
    if (bad < 0 && pct(fld[4], false, &fig->mape))
        bad = 4;
    else if (bad < 0 && pct(fld[5], true, &fig->low))
        bad = 5;
    else if (bad < 0 && pct(fld[6], true, &fig->high))
        bad = 6;
    else if (bad < 0 && pct(fld[7], true, &fig->goal))
        bad = 7;
    else if (bad < 0 && (fig->low == ACC_NONE) != (fig->high == ACC_NONE))
        bad = 6;
    if (bad >= 0) {
        snprintf(err, errsize, "field %s is not a %s: '%s'", names[bad],
                 bad == 3 ? "row count" : "percentage", fld[bad]);
        return -1;
    }
    fig->table = fld[0];
    fig->label = fld[1];
    fig->method = fld[2];
    return 0;
}

static int fail(struct acc_file *f, char *err, size_t errsize, const char *path, int line,
                const char *what)
{
    snprintf(err, errsize, "%s:%d: %s", path, line, what);
    acc_free(f);
    return -1;
}

int acc_read(const char *path, struct acc_file *f, char *err, size_t errsize)
{
    memset(f, 0, sizeof *f);
    size_t len;
    if (file_read_all(path, 1 << 20, &f->text, &len, NULL) != ST_OK) {
        f->text = NULL;
        snprintf(err, errsize, "%s: cannot be read", path);
        return -1;
    }
    if (memchr(f->text, '\0', len))
        return fail(f, err, errsize, path, 0, "holds a NUL byte");
    int lineno = 0, header = 0, cap = 0;
    for (char *p = f->text; p && *p;) {
        char *line = p, *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        p = nl ? nl + 1 : NULL;
        lineno++;
        if (!header && line[0] == '#')
            continue;
        if (!header) {
            if (strcmp(line, ACC_HEADER))
                return fail(f, err, errsize, path, lineno,
                            "the header is not: table label method rows mape low high goal");
            header = 1;
            continue;
        }
        if (f->n == cap) {
            cap = cap ? 2 * cap : 64;
            f->fig = xreallocarray(f->fig, (size_t)cap, sizeof *f->fig);
        }
        char why[160];
        if (parse_line(line, &f->fig[f->n], why, sizeof why))
            return fail(f, err, errsize, path, lineno, why);
        f->n++;
    }
    if (!header)
        return fail(f, err, errsize, path, lineno, "no header line");
    if (!f->n)
        return fail(f, err, errsize, path, lineno, "no figures");
    return 0;
}

void acc_free(struct acc_file *f)
{
    free(f->text);
    free(f->fig);
    memset(f, 0, sizeof *f);
}
