/* interval.c - prediction intervals from held-out errors (see interval.h):
 * the conformal bounds, the table, its TSV form and the shipped copy. */
#include "core/interval.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gpu.h"
#include "util/datafile.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

_Static_assert(INTERVAL_MIN_ROWS >= 9, "an 80% conformal bound needs at least 9 rows");

const char *interval_target_name(enum interval_target t)
{
    static const char *const names[] = {
#define X(id, name) name,
        INTERVAL_TARGET_LIST(X)
#undef X
    };
    return (unsigned)t < IT__COUNT ? names[t] : "?";
}

const char *interval_group_name(enum interval_group g)
{
    static const char *const names[] = {
#define X(id, name) name,
        INTERVAL_GROUP_LIST(X)
#undef X
    };
    return (unsigned)g < IG__COUNT ? names[g] : "?";
}

enum interval_group interval_group_of(enum runtime rt, bool generation)
{
    if (generation || rt == RT_VLLM)
        return IG_GENERATION;
    /* torch.compile runs in the PyTorch process eager runs in, timed by the
     * same harnesses: eager's errors are its nearest measured ones; ONNX
     * Runtime is a C++ runtime of fused kernels enqueued from the host, as
     * the engines are */
    return runtime_eager(rt) || runtime_inductor(rt) ? IG_EAGER : IG_ENGINE;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The 1-based order statistics of the conformal bounds of n errors;
 * false when they do not exist. */
static bool conformal_ranks(int n, double coverage, int *k_lo, int *k_hi)
{
    /* 1e-9 keeps (n+1) x 0.1 = 2 from landing on 2.0000000000000004 */
    *k_lo = (int)floor((n + 1) * (1 - coverage) / 2 + 1e-9);
    *k_hi = (int)ceil((n + 1) * (1 + coverage) / 2 - 1e-9);
    return n > 0 && *k_lo >= 1 && *k_hi <= n;
}

bool interval_conformal(const double *r, int n, double coverage, double *lo, double *hi)
{
    int k_lo, k_hi;
    if (!conformal_ranks(n, coverage, &k_lo, &k_hi))
        return false;
    double *s = xmalloc(sizeof *s * (size_t)n);
    memcpy(s, r, sizeof *s * (size_t)n);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    *lo = s[k_lo - 1];
    *hi = s[k_hi - 1];
    free(s);
    return true;
}

struct weighted {
    double r, w;
};

static int cmp_weighted(const void *a, const void *b)
{
    double x = ((const struct weighted *)a)->r, y = ((const struct weighted *)b)->r;
    return (x > y) - (x < y);
}

bool interval_balanced(const double *r, const char *const *family, int n, double coverage,
                       double *lo, double *hi)
{
    int k_lo, k_hi;
    if (!conformal_ranks(n, coverage, &k_lo, &k_hi)) /* too few rows for any bound */
        return false;
    struct weighted *s = xmalloc(sizeof *s * (size_t)n);
    int k = 0; /* families */
    for (int i = 0; i < n; i++) {
        int same = 0;
        bool first = true;
        for (int j = 0; j < n; j++) {
            bool eq = family[i] == family[j] ||
                      (family[i] && family[j] && !strcmp(family[i], family[j]));
            same += eq;
            first &= !(eq && j < i);
        }
        k += first;
        s[i] = (struct weighted){r[i], 1.0 / same};
    }
    qsort(s, (size_t)n, sizeof *s, cmp_weighted);
    double a = (1 - coverage) / 2 * k, b = (1 + coverage) / 2 * k, cum = 0;
    double wlo = s[0].r, whi = s[n - 1].r;
    bool have_lo = false;
    for (int i = 0; i < n; i++) {
        cum += s[i].w;
        if (!have_lo && cum >= a - 1e-12) {
            wlo = s[i].r;
            have_lo = true;
        }
        if (cum >= b - 1e-12) {
            whi = s[i].r;
            break;
        }
    }
    free(s);
    *lo = wlo;
    *hi = whi;
    return true;
}

/* The bounds of the residuals of target t (group g, or all for IG_POOLED). */
static struct interval_bounds group_bounds(const struct interval_resid *res, int n,
                                           const bool *skip, enum interval_target t,
                                           enum interval_group g)
{
    struct interval_bounds b = {0};
    double *r = xmalloc(sizeof *r * (size_t)(n > 0 ? n : 1));
    const char **fam = xmalloc(sizeof *fam * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; i++)
        if (!(skip && skip[i]) && res[i].target == t && (g == IG_POOLED || res[i].group == g)) {
            int j = 0;
            while (j < b.n && strcmp(fam[j], res[i].family))
                j++;
            b.n_fam += j == b.n;
            fam[b.n] = res[i].family;
            r[b.n++] = res[i].r;
        }
    if (b.n >= INTERVAL_MIN_ROWS &&
        interval_balanced(r, fam, b.n, INTERVAL_COVERAGE, &b.lo, &b.hi)) {
        b.valid = true;
        b.lo = fmin(b.lo, 0); /* the interval holds the point prediction */
        b.hi = fmax(b.hi, 0);
    }
    free(fam);
    free(r);
    return b;
}

void interval_build(struct interval_table *t, const struct interval_resid *res, int n,
                    const bool *skip)
{
    memset(t, 0, sizeof *t);
    for (int ti = 0; ti < IT__COUNT; ti++) {
        struct interval_bounds pooled = group_bounds(res, n, skip, ti, IG_POOLED);
        t->b[ti][IG_POOLED] = pooled;
        for (int g = 0; g < IG_POOLED; g++) {
            struct interval_bounds b = group_bounds(res, n, skip, ti, g);
            if (!b.valid && pooled.valid) {
                b.lo = pooled.lo * INTERVAL_WIDEN_FEW;
                b.hi = pooled.hi * INTERVAL_WIDEN_FEW;
                b.n_fam = pooled.n_fam;
                b.fallback = b.valid = true;
            }
            t->b[ti][g] = b;
        }
    }
    for (int i = 0; i < n; i++) {
        const struct interval_resid *x = &res[i];
        if ((skip && skip[i]) || x->gpu < 0 || x->gpu >= INTERVAL_MAX_GPUS)
            continue;
        t->gpu[x->target][x->gpu] = true;
        t->prec[x->target][x->prec] = true;
        t->rt[x->target][x->rt] = true;
    }
}

/* Appends "what" to the list of unmeasured dimensions in buf. */
static int unmeasured(char *buf, size_t size, int k, const char *what)
{
    size_t len = strlen(buf);
    snprintf(buf + len, size - len, "%s%s", k ? ", " : "", what);
    return k + 1;
}

/* Appends to iv's note (cut at its size). */
static void note_add(struct interval *iv, const char *fmt, ...)
{
    size_t len = strlen(iv->note);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(iv->note + len, sizeof iv->note - len, fmt, ap);
    va_end(ap);
}

struct interval interval_for(const struct interval_table *t, enum interval_target target,
                             const struct config *cfg, bool generation, double point)
{
    struct interval iv = {.low = point, .high = point, .widen = 1};
    if (!t || (unsigned)target >= IT__COUNT) {
        snprintf(iv.note, sizeof iv.note, "no interval table");
        return iv;
    }
    enum interval_group g = interval_group_of(cfg->rt, generation);
    const struct interval_bounds *b = &t->b[target][g];
    const char *tn = interval_target_name(target);
    if (!b->valid) {
        snprintf(iv.note, sizeof iv.note, "no interval: too few measured %s rows", tn);
        return iv;
    }
    char miss[160] = "";
    int k = 0;
    const struct gpu_spec *gs = gpu_get(cfg->gpu);
    if (cfg->gpu < 0 || cfg->gpu >= INTERVAL_MAX_GPUS || !t->gpu[target][cfg->gpu])
        k = unmeasured(miss, sizeof miss, k, gs ? gs->name : "this GPU");
    if (!t->prec[target][cfg->prec])
        k = unmeasured(miss, sizeof miss, k, precision_name(cfg->prec));
    if (!t->rt[target][cfg->rt])
        k = unmeasured(miss, sizeof miss, k, runtime_name(cfg->rt));
    double w_unmeasured = pow(INTERVAL_WIDEN_UNMEASURED, k);
    bool few = b->n_fam > 0 && b->n_fam < INTERVAL_MIN_FAMILIES;
    double w = w_unmeasured * (few ? INTERVAL_WIDEN_FEW_FAMILIES : 1);
    iv.valid = true;
    iv.low = point * exp(b->lo * w);
    iv.high = point * exp(b->hi * w);
    if (b->fallback)
        snprintf(iv.note, sizeof iv.note,
                 "%.0f%% interval: only %d measured %s %s rows, pooled bounds x%.2g",
                 INTERVAL_COVERAGE * 100, b->n, interval_group_name(g), tn, INTERVAL_WIDEN_FEW);
    else
        snprintf(iv.note, sizeof iv.note, "%.0f%% interval from %d held-out %s %s rows",
                 INTERVAL_COVERAGE * 100, b->n, interval_group_name(g), tn);
    if (few)
        note_add(&iv, "; from only %d source famil%s: widened x%.2g", b->n_fam,
                 b->n_fam == 1 ? "y" : "ies", INTERVAL_WIDEN_FEW_FAMILIES);
    if (k)
        note_add(&iv, "; no measured %s rows for %s: widened x%.3g", tn, miss, w_unmeasured);
    iv.widen = w * (b->fallback ? INTERVAL_WIDEN_FEW : 1);
    return iv;
}

static const char *basis(const struct interval_bounds *b)
{
    return !b->valid ? "none" : b->fallback ? "pooled-widened" : "group";
}

char *interval_table_format(const struct interval_table *t, const char *header, size_t *len)
{
    struct strbuf s = STRBUF_INIT;
    for (const char *p = header; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        strbuf_printf(&s, "# %.*s\n", (int)n, p);
        p += n + (e != NULL);
    }
    strbuf_printf(&s, "# interval TARGET GROUP ROWS LOW_FACTOR HIGH_FACTOR BASIS FAMILIES: the "
                      "measured value lies in [predicted x LOW_FACTOR, predicted x HIGH_FACTOR]; "
                      "FAMILIES source families behind the bounds\n"
                      "# measured TARGET gpu|precision|runtime NAME: a measured row of the "
                      "target has it\n");
    for (int ti = 0; ti < IT__COUNT; ti++)
        for (int g = 0; g < IG__COUNT; g++) {
            const struct interval_bounds *b = &t->b[ti][g];
            strbuf_printf(&s, "interval\t%s\t%s\t%d\t%.4f\t%.4f\t%s\t%d\n",
                          interval_target_name(ti), interval_group_name(g), b->n,
                          b->valid ? exp(b->lo) : 1, b->valid ? exp(b->hi) : 1, basis(b), b->n_fam);
        }
    for (int ti = 0; ti < IT__COUNT; ti++) {
        const char *tn = interval_target_name(ti);
        for (int i = 0; i < gpu_count() && i < INTERVAL_MAX_GPUS; i++)
            if (t->gpu[ti][i])
                strbuf_printf(&s, "measured\t%s\tgpu\t%s\n", tn, gpu_get(i)->name);
        for (int p = 0; p < PREC__COUNT; p++)
            if (t->prec[ti][p])
                strbuf_printf(&s, "measured\t%s\tprecision\t%s\n", tn, precision_name(p));
        for (int r = 0; r < RT__COUNT; r++)
            if (t->rt[ti][r])
                strbuf_printf(&s, "measured\t%s\truntime\t%s\n", tn, runtime_name(r));
    }
    return strbuf_take(&s, len);
}

/* Splits line (modified) at tabs into at most max fields; returns the count. */
static int split_tabs(char *line, char **f, int max)
{
    int n = 0;
    for (char *p = line; n < max;) {
        f[n++] = p;
        char *tab = strchr(p, '\t');
        if (!tab)
            break;
        *tab = '\0';
        p = tab + 1;
    }
    return n;
}

static int name_index(const char *s, const char *(*name)(int), int count)
{
    for (int i = 0; i < count; i++)
        if (!strcmp(s, name(i)))
            return i;
    return -1;
}

static const char *target_name_i(int i) { return interval_target_name(i); }
static const char *group_name_i(int i) { return interval_group_name(i); }

static enum status parse_interval(struct interval_table *t, char **f, int nf, const char *where,
                                  struct diag *d)
{
    bool fields = nf == 7 || nf == 8; /* FAMILIES is newer than the rest */
    int ti = fields ? name_index(f[1], target_name_i, IT__COUNT) : -1;
    int g = fields ? name_index(f[2], group_name_i, IG__COUNT) : -1;
    if (ti < 0 || g < 0)
        return diag_set(d, ST_EPARSE, "%s: expected 'interval TARGET GROUP ROWS LOW HIGH "
                        "BASIS [FAMILIES]' with TARGET latency or memory and GROUP eager, "
                        "tensorrt, generation or pooled", where);
    char *e1, *e2, *e3;
    long n = strtol(f[3], &e1, 10);
    double lo = strtod(f[4], &e2), hi = strtod(f[5], &e3);
    if (*e1 || *e2 || *e3 || n < 0 || n > 1000000 || !(lo > 0 && lo <= 1) || !(hi >= 1 && hi < 1e6))
        return diag_set(d, ST_EPARSE, "%s: expected ROWS >= 0, 0 < LOW <= 1 <= HIGH, got "
                        "'%s' '%s' '%s'", where, f[3], f[4], f[5]);
    struct interval_bounds *b = &t->b[ti][g];
    *b = (struct interval_bounds){.n = (int)n, .lo = log(lo), .hi = log(hi)};
    if (!strcmp(f[6], "group") || !strcmp(f[6], "pooled-widened"))
        b->valid = true, b->fallback = f[6][0] == 'p';
    else if (strcmp(f[6], "none"))
        return diag_set(d, ST_EPARSE, "%s: BASIS '%s': expected group, pooled-widened or none",
                        where, f[6]);
    if (nf == 8) {
        long k = strtol(f[7], &e1, 10);
        if (e1 == f[7] || *e1 || k < 0 || k > 1000000)
            return diag_set(d, ST_EPARSE, "%s: FAMILIES '%s': expected a count >= 0", where,
                            f[7]);
        b->n_fam = (int)k;
    }
    return ST_OK;
}

static enum status parse_measured(struct interval_table *t, char **f, int nf, const char *where,
                                  struct diag *d)
{
    int ti = nf == 4 ? name_index(f[1], target_name_i, IT__COUNT) : -1;
    if (ti < 0)
        return diag_set(d, ST_EPARSE, "%s: expected 'measured TARGET KIND NAME' with TARGET "
                        "latency or memory", where);
    enum precision p;
    enum runtime r;
    int gi;
    if (!strcmp(f[2], "gpu") && (gi = gpu_find(f[3])) >= 0 && gi < INTERVAL_MAX_GPUS)
        t->gpu[ti][gi] = true;
    else if (!strcmp(f[2], "precision") && precision_parse(f[3], &p))
        t->prec[ti][p] = true;
    else if (!strcmp(f[2], "runtime") && runtime_parse(f[3], &r))
        t->rt[ti][r] = true;
    else
        return diag_set(d, ST_EPARSE, "%s: expected gpu, precision or runtime and a name "
                        "dippm knows, got '%s' '%s'", where, f[2], f[3]);
    return ST_OK;
}

enum status interval_table_parse(struct interval_table *t, const char *name, const char *text,
                                 struct diag *d)
{
    memset(t, 0, sizeof *t);
    char *copy = xstrdup(text);
    enum status st = ST_OK;
    int lineno = 0, n_iv = 0;
    for (char *line = copy, *next; line && !st; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        lineno++;
        if (!*line || *line == '#')
            continue;
        char *f[8], where[160];
        int nf = split_tabs(line, f, 8);
        snprintf(where, sizeof where, "%s:%d", name, lineno);
        if (!strcmp(f[0], "interval"))
            st = parse_interval(t, f, nf, where, d), n_iv++;
        else if (!strcmp(f[0], "measured"))
            st = parse_measured(t, f, nf, where, d);
        else
            st = diag_set(d, ST_EPARSE, "%s: '%.40s': expected a line 'interval ...' or "
                          "'measured ...'", where, f[0]);
    }
    if (!st && !n_iv)
        st = diag_set(d, ST_EPARSE, "%s: no 'interval' line", name);
    free(copy);
    return st;
}

enum status interval_table_load(struct interval_table *t, const char *path, struct diag *d)
{
    char *buf;
    size_t len;
    enum status st = file_read_all(path, 1 << 20, &buf, &len, d);
    if (st)
        return st;
    st = interval_table_parse(t, path, buf, d);
    free(buf);
    return st;
}

const struct interval_table *interval_default(const char **why)
{
    static struct interval_table table;
    static int state; /* 0: not tried, 1: loaded, -1: failed */
    static struct diag err;
    if (!state) {
        char path[4096], where[4096];
        state = -1;
        if (!datafile_find(DATAFILE_WEIGHTS, INTERVAL_FILE, path, sizeof path))
            diag_set(&err, ST_ENOTFOUND, "no interval table (looked for %s)",
                     datafile_searched(DATAFILE_WEIGHTS, INTERVAL_FILE, where, sizeof where));
        else if (interval_table_load(&table, path, &err) == ST_OK)
            state = 1;
    }
    if (state < 0 && why)
        *why = err.msg;
    return state > 0 ? &table : NULL;
}
