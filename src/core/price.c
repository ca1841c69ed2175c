/* price.c - the cost of a prediction from a price per GPU-hour, and the
 * user's price table. */
#include "core/price.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/gpu.h"
#include "util/fileio.h"
#include "util/textsafe.h"
#include "util/xalloc.h"

#define PRICE_FILE_MAX (1 << 20)

double price_slice_share(const struct config *cfg)
{
    const struct gpu_spec *gs = gpu_get(cfg->gpu);
    if (!gs || cfg->mig < 0 || cfg->mig >= gs->n_mig)
        return 1;
    return gs->mig[cfg->mig].sm_sevenths / 7.0;
}

const char *price_table_path(char *buf, size_t size)
{
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    int n;
    if (xdg && *xdg)
        n = snprintf(buf, size, "%s/dippm/prices", xdg);
    else if (home && *home)
        n = snprintf(buf, size, "%s/.config/dippm/prices", home);
    else
        return NULL;
    return n >= 0 && (size_t)n < size ? buf : NULL;
}

double price_cost(double per_hour, double rate_per_s, double n)
{
    if (!(per_hour > 0) || !(rate_per_s > 0))
        return 0;
    return per_hour / 3600.0 / rate_per_s * n;
}

/* One line (comment already cut): appended to t, or an error. */
static enum status parse_line(struct price_table *t, char *s, int line, int *cap,
                              struct diag *d)
{
    char *save, *target = strtok_r(s, " \t\r", &save);
    if (!target)
        return ST_OK;
    char *num = strtok_r(NULL, " \t\r", &save), *extra = strtok_r(NULL, " \t\r", &save);
    if (!num || extra)
        return diag_set(d, ST_EPARSE, "%s:%d: expected 'GPU[:PROFILE] PRICE' (e.g. 'a100 1.29')",
                        t->path, line);
    char *end;
    errno = 0;
    double v = strtod(num, &end);
    if (errno || end == num || *end || !(v > 0) || v > PRICE_PER_HOUR_MAX)
        return diag_set(d, ST_EPARSE, "%s:%d: price '%s': expected a number above 0 and at "
                        "most %.0f (per hour)", t->path, line, tsafe(num), PRICE_PER_HOUR_MAX);
    struct price_row r = {.per_hour = v, .line = line};
    struct diag td = {0};
    if (gpu_target_parse(target, -1, &r.gpu, &r.mig, &td))
        return diag_set(d, ST_EPARSE, "%s:%d: %s", t->path, line, td.msg);
    if (r.mig == GPU_MIG_UNSET)
        r.mig = -1;
    for (int i = 0; i < t->n; i++)
        if (t->rows[i].gpu == r.gpu && t->rows[i].mig == r.mig)
            return diag_set(d, ST_EPARSE, "%s:%d: %s%s%s is already priced on line %d",
                            t->path, line, gpu_get(r.gpu)->name, r.mig >= 0 ? ":" : "",
                            r.mig >= 0 ? gpu_get(r.gpu)->mig[r.mig].name : "", t->rows[i].line);
    if (t->n == *cap) {
        *cap = *cap ? 2 * *cap : 16;
        t->rows = xrealloc(t->rows, sizeof *t->rows * (size_t)*cap);
    }
    t->rows[t->n++] = r;
    return ST_OK;
}

enum status price_table_load(const char *path, struct price_table *t, struct diag *d)
{
    memset(t, 0, sizeof *t);
    snprintf(t->path, sizeof t->path, "%s", tsafe(path));
    struct stat st;
    if (stat(path, &st) != 0 && errno == ENOENT)
        return ST_OK;
    char *text;
    size_t len;
    enum status rc = file_read_all(path, PRICE_FILE_MAX, &text, &len, d);
    if (rc)
        return rc;
    if (strlen(text) != len) {
        free(text);
        return diag_set(d, ST_EPARSE, "%s: a NUL byte: expected text", t->path);
    }
    int cap = 0, line = 1;
    for (char *s = text; *s && !rc; line++) {
        char *nl = strchr(s, '\n');
        if (nl)
            *nl = '\0';
        char *hash = strchr(s, '#');
        if (hash)
            *hash = '\0';
        rc = parse_line(t, s, line, &cap, d);
        s = nl ? nl + 1 : s + strlen(s);
    }
    free(text);
    if (rc)
        price_table_fini(t);
    return rc;
}

void price_table_fini(struct price_table *t)
{
    free(t->rows);
    t->rows = NULL;
    t->n = 0;
}

bool price_table_find(const struct price_table *t, const struct config *cfg, struct price *out)
{
    const struct price_row *whole = NULL;
    memset(out, 0, sizeof *out);
    for (int i = 0; i < t->n; i++) {
        const struct price_row *r = &t->rows[i];
        if (r->gpu != cfg->gpu)
            continue;
        if (cfg->mig >= 0 && r->mig == cfg->mig) {
            out->per_hour = r->per_hour;
            snprintf(out->source, sizeof out->source, "%s:%d", t->path, r->line);
            return true;
        }
        if (r->mig < 0)
            whole = r;
    }
    if (!whole)
        return false;
    double share = price_slice_share(cfg);
    out->per_hour = whole->per_hour * share;
    if (share < 1)
        snprintf(out->source, sizeof out->source, "%s:%d, x %d/7 for the slice", t->path,
                 whole->line, gpu_get(cfg->gpu)->mig[cfg->mig].sm_sevenths);
    else
        snprintf(out->source, sizeof out->source, "%s:%d", t->path, whole->line);
    return true;
}
