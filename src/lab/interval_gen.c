/* interval_gen.c - the held-out errors behind the interval table, and its
 * leave-one-source-family-out check (interval_gen.h). */
#include "lab/interval_gen.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "lab/dataset.h"
#include "core/gpu.h"
#include "core/predict.h"
#include "graph/load.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static const char NEUSIGHT_FAMILY[] = "neusight";

/* The held-out error of a fitted row as log(measured / predicted) time or
 * memory; false for rows that give none. */
static bool calib_resid(const struct calib_row *r, struct interval_resid *x)
{
    if (r->use != CU_FIT || !(r->pred_losfo > 0) || !(r->measured > 0))
        return false;
    double e = log(r->measured / r->pred_losfo);
    switch (r->target) {
    case CT_LATENCY: x->target = IT_TIME; x->r = e; break;
    case CT_THROUGHPUT: /* fall through: a rate, the inverse of a time */
    case CT_GEN_TPUT: x->target = IT_TIME; x->r = -e; break;
    case CT_MEMORY: x->target = IT_MEMORY; x->r = e; break;
    default: return false;
    }
    x->group = interval_group_of(r->cfg.rt, calib_row_is_generation(r));
    x->gpu = r->cfg.gpu;
    x->prec = r->cfg.prec;
    x->rt = r->cfg.rt;
    x->family = r->family;
    return true;
}

/* The teacher's errors on the latency rows of a measured dataset. */
static enum status dataset_resid(const char *path, struct interval_resid **out, int *n,
                                 int *cap, struct diag *d)
{
    struct dataset ds;
    dataset_init(&ds);
    enum status st = dataset_load(&ds, path, d);
    for (int i = 0; i < ds.n && !st; i++) {
        const struct dataset_row *row = &ds.rows[i];
        double meas = row->target[GNN_T_LATENCY];
        struct config cfg;
        if (!(meas > 0) || (st = dataset_row_config(row, &cfg, d)))
            continue;
        struct graph *g = model_load(row->spec, d);
        if (!g) {
            st = d->code;
            break;
        }
        struct prediction pr;
        st = predict_run(NULL, g, &cfg, &pr, d);
        if (!st && pr.latency_ms > 0) {
            if (*n == *cap)
                *out = xrealloc(*out, sizeof **out * (size_t)(*cap = 2 * *cap + 16));
            (*out)[(*n)++] = (struct interval_resid){
                .target = IT_TIME, .group = interval_group_of(cfg.rt, false), .gpu = cfg.gpu,
                .prec = cfg.prec, .rt = cfg.rt, .r = log(meas / pr.latency_ms),
                .family = NEUSIGHT_FAMILY};
        }
        prediction_fini(&pr);
        graph_free(g);
    }
    if (st && !strstr(d->msg, path)) {
        char msg[sizeof d->msg];
        snprintf(msg, sizeof msg, "%s", d->msg);
        diag_set(d, st, "%s: %s", path, msg);
    }
    dataset_fini(&ds);
    return st;
}

void interval_names_fini(struct interval_names *nm)
{
    for (int i = 0; i < nm->n; i++)
        free(nm->v[i]);
    free(nm->v);
    nm->v = NULL;
    nm->n = 0;
}

/* The family name s, copied into names once. */
static const char *intern(struct interval_names *nm, const char *s)
{
    for (int i = 0; i < nm->n; i++)
        if (!strcmp(nm->v[i], s))
            return nm->v[i];
    nm->v = xrealloc(nm->v, sizeof *nm->v * (size_t)(nm->n + 1));
    return nm->v[nm->n++] = xstrdup(s);
}

/* One line of a residual file (RESID FORMAT, interval_gen.h). */
struct resid_line {
    const char *family;
    enum interval_target target;
    bool generation;
    int gpu;
    enum precision prec;
    enum runtime rt;
    double measured, predicted;
};

static bool parse_name(const char *s, void *out)
{
    *(const char **)out = s;
    return *s;
}

static bool parse_target(const char *s, void *out)
{
    *(enum interval_target *)out = !strcmp(s, "time") ? IT_TIME : IT_MEMORY;
    return !strcmp(s, "time") || !strcmp(s, "memory");
}

static bool parse_kind(const char *s, void *out)
{
    *(bool *)out = !strcmp(s, "generation");
    return !strcmp(s, "generation") || !strcmp(s, "pass");
}

static bool parse_gpu(const char *s, void *out)
{
    return (*(int *)out = gpu_find(s)) >= 0;
}

static bool parse_precision(const char *s, void *out)
{
    return precision_parse(s, out);
}

static bool parse_runtime(const char *s, void *out)
{
    return runtime_parse(s, out);
}

static bool parse_positive(const char *s, void *out)
{
    char *end;
    double v = strtod(s, &end);
    *(double *)out = v;
    return end != s && !*end && v > 0 && isfinite(v);
}

/* The value types of the columns: what a field must be, and its parser. */
enum resid_type {
    RESID_NAME,
    RESID_TARGET,
    RESID_KIND,
    RESID_GPU,
    RESID_PRECISION,
    RESID_RUNTIME,
    RESID_POSITIVE
};
static const struct {
    const char *expect;
    bool (*parse)(const char *s, void *out);
} resid_types[] = {
    [RESID_NAME] = {"a family name", parse_name},
    [RESID_TARGET] = {"time or memory", parse_target},
    [RESID_KIND] = {"pass or generation", parse_kind},
    [RESID_GPU] = {"a GPU of dippm's table", parse_gpu},
    [RESID_PRECISION] = {"a precision", parse_precision},
    [RESID_RUNTIME] = {"a runtime", parse_runtime},
    [RESID_POSITIVE] = {"a number > 0", parse_positive},
};

/* The columns, in order: the header names them, each line's fields fill
 * struct resid_line. */
static const struct resid_column {
    const char *name;
    enum resid_type type;
    size_t offset;
} resid_columns[] = {
    {"family", RESID_NAME, offsetof(struct resid_line, family)},
    {"target", RESID_TARGET, offsetof(struct resid_line, target)},
    {"kind", RESID_KIND, offsetof(struct resid_line, generation)},
    {"gpu", RESID_GPU, offsetof(struct resid_line, gpu)},
    {"precision", RESID_PRECISION, offsetof(struct resid_line, prec)},
    {"runtime", RESID_RUNTIME, offsetof(struct resid_line, rt)},
    {"measured", RESID_POSITIVE, offsetof(struct resid_line, measured)},
    {"predicted", RESID_POSITIVE, offsetof(struct resid_line, predicted)},
};
#define RESID_FIELDS ((int)(sizeof resid_columns / sizeof resid_columns[0]))

/* The header line, split into f[]: the columns' names in order. */
static enum status resid_header(char **f, const char *where, struct diag *d)
{
    for (int i = 0; i < RESID_FIELDS; i++)
        if (strcmp(f[i], resid_columns[i].name))
            return diag_set(d, ST_EPARSE, "%s: header column %d: '%.60s', expected '%s'", where,
                            i + 1, f[i], resid_columns[i].name);
    return ST_OK;
}

/* One line of a residual file, split in place into f[], into *x. */
static enum status resid_parse(char **f, struct interval_resid *x, struct interval_names *nm,
                               const char *where, struct diag *d)
{
    struct resid_line v;
    for (int i = 0; i < RESID_FIELDS; i++) {
        const struct resid_column *c = &resid_columns[i];
        if (!resid_types[c->type].parse(f[i], (char *)&v + c->offset))
            return diag_set(d, ST_EPARSE, "%s: field %s: '%.60s' is not %s", where, c->name, f[i],
                            resid_types[c->type].expect);
    }
    *x = (struct interval_resid){.target = v.target,
                                 .group = interval_group_of(v.rt, v.generation),
                                 .gpu = v.gpu,
                                 .prec = v.prec,
                                 .rt = v.rt,
                                 .r = log(v.measured / v.predicted),
                                 .family = intern(nm, v.family)};
    return ST_OK;
}

/* Splits line p in place at tabs into f[] (RESID_FIELDS at most, the rest
 * ignored); the number of fields. */
static int resid_split(char *p, char **f)
{
    int k = 0;
    for (char *q = p; k < RESID_FIELDS && q;) {
        f[k++] = q;
        if ((q = strchr(q, '\t')))
            *q++ = 0;
    }
    return k;
}

/* Appends the rows of the residual file path (interval_gen.h). */
static enum status file_resid(const char *path, struct interval_resid **out, int *n, int *cap,
                              struct interval_names *nm, struct diag *d)
{
    char *text;
    size_t len;
    enum status st = file_read_all(path, (size_t)64 << 20, &text, &len, d);
    if (st)
        return st;
    int line = 0;
    for (char *p = text, *next; p && *p && !st; p = next) {
        next = strchr(p, '\n');
        if (next)
            *next++ = 0;
        if (++line > 1 && !*p)
            continue;
        char *f[RESID_FIELDS], where[4200];
        int k = resid_split(p, f);
        snprintf(where, sizeof where, "%s:%d", path, line);
        if (k < RESID_FIELDS)
            st = diag_set(d, ST_EPARSE, "%s: %d tab-separated fields, expected %d (%s ... %s)",
                          where, k, RESID_FIELDS, resid_columns[0].name,
                          resid_columns[RESID_FIELDS - 1].name);
        else if (line == 1)
            st = resid_header(f, where, d);
        else {
            if (*n == *cap)
                *out = xrealloc(*out, sizeof **out * (size_t)(*cap = 2 * *cap + 16));
            if (!(st = resid_parse(f, &(*out)[*n], nm, where, d)))
                (*n)++;
        }
    }
    if (!st && !line)
        st = diag_set(d, ST_EPARSE, "%s: empty, expected a header line (%s ... %s)", path,
                      resid_columns[0].name, resid_columns[RESID_FIELDS - 1].name);
    free(text);
    return st;
}

enum status interval_read_resid(const char *const *files, int n_files,
                                struct interval_resid **out, int *n,
                                struct interval_names *names, struct diag *d)
{
    int cap = 0;
    enum status st = ST_OK;
    *out = NULL;
    *n = 0;
    for (int i = 0; i < n_files && !st; i++)
        st = file_resid(files[i], out, n, &cap, names, d);
    if (st) {
        free(*out);
        *out = NULL;
        *n = 0;
        interval_names_fini(names);
    }
    return st;
}

enum status interval_collect(const struct calib_set *set, const char *neusight,
                             const struct interval_resid *resid, int n_resid,
                             struct interval_resid **out, int *n, struct interval_counts *cnt,
                             struct diag *d)
{
    int cap = set->n_rows + n_resid + 64;
    *out = xmalloc(sizeof **out * (size_t)cap);
    *n = 0;
    for (int i = 0; i < set->n_rows; i++)
        if (calib_resid(&set->rows[i], &(*out)[*n]))
            (*n)++;
    cnt->calib = *n;
    enum status st = neusight ? dataset_resid(neusight, out, n, &cap, d) : ST_OK;
    cnt->neusight = *n - cnt->calib;
    if (!st) {
        if (*n + n_resid > cap)
            *out = xrealloc(*out, sizeof **out * (size_t)(cap = *n + n_resid));
        memcpy(*out + *n, resid, sizeof *resid * (size_t)n_resid);
        *n += n_resid;
    }
    cnt->resid = n_resid;
    if (st) {
        free(*out);
        *out = NULL;
    }
    return st;
}

/* ---- leave-one-source-family-out check ----------------------------------- */

struct cover {
    int n, in;      /* held-out rows, rows inside their interval */
    double *w;      /* relative widths (high - low) / predicted */
    int n_widen;    /* rows whose interval was widened */
    int n_none;     /* rows the fold's table gives no interval (not in n) */
};

static double median(double *x, int n)
{
    if (n <= 0)
        return NAN;
    for (int i = 1; i < n; i++) /* insertion sort: a few hundred values */
        for (int j = i; j > 0 && x[j - 1] > x[j]; j--) {
            double t = x[j];
            x[j] = x[j - 1];
            x[j - 1] = t;
        }
    return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

static void cover_add(struct cover *c, int cap, const struct interval *iv, double r)
{
    if (!iv->valid) {
        c->n_none++;
        return;
    }
    bool in = r >= log(iv->low) - 1e-12 && r <= log(iv->high) + 1e-12;
    if (!c->w)
        c->w = xmalloc(sizeof *c->w * (size_t)cap);
    c->in += in;
    c->n_widen += iv->widen > 1;
    c->w[c->n++] = iv->high - iv->low;
}

/* Distinct families of res in first-seen order (pointers into res). */
static int families(const struct interval_resid *res, int n, const char **fam)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        int j = 0;
        while (j < k && strcmp(fam[j], res[i].family))
            j++;
        if (j == k)
            fam[k++] = res[i].family;
    }
    return k;
}

/* Fold per family: the table without it, applied to its rows. by_group
 * [IT__COUNT][IG__COUNT], by_fam [k][IT__COUNT]. */
static void losfo(const struct interval_resid *res, int n, const char **fam, int k,
                  struct cover *by_group, struct cover *by_fam)
{
    bool *skip = xmalloc(sizeof *skip * (size_t)(n > 0 ? n : 1));
    struct interval_table *t = xmalloc(sizeof *t);
    for (int f = 0; f < k; f++) {
        for (int i = 0; i < n; i++)
            skip[i] = !strcmp(res[i].family, fam[f]);
        interval_build(t, res, n, skip);
        for (int i = 0; i < n; i++) {
            if (!skip[i])
                continue;
            const struct interval_resid *x = &res[i];
            struct config cfg = {.gpu = x->gpu, .mig = -1, .prec = x->prec, .rt = x->rt};
            struct interval iv = interval_for(t, x->target, &cfg, x->group == IG_GENERATION, 1);
            cover_add(&by_group[x->target * IG__COUNT + x->group], n, &iv, x->r);
            cover_add(&by_group[x->target * IG__COUNT + IG_POOLED], n, &iv, x->r);
            cover_add(&by_fam[f * IT__COUNT + x->target], n, &iv, x->r);
        }
    }
    free(t);
    free(skip);
}

/* Source families behind the rows of target t, group g (IG_POOLED: all). */
static int n_families(const struct interval_resid *res, int n, enum interval_target t,
                      enum interval_group g)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (res[i].target != t || (g != IG_POOLED && res[i].group != g))
            continue;
        int j = 0;
        while (j < i && !(res[j].target == t && (g == IG_POOLED || res[j].group == g) &&
                          !strcmp(res[j].family, res[i].family)))
            j++;
        k += j == i;
    }
    return k;
}

static void table_md(struct strbuf *s, const struct interval_table *t,
                     const struct interval_resid *res, int n)
{
    strbuf_printf(s, "| target | runtime group | rows | source families | low factor | high "
                     "factor | basis |\n|---|---|---|---|---|---|---|\n");
    for (int ti = 0; ti < IT__COUNT; ti++)
        for (int g = 0; g < IG__COUNT; g++) {
            const struct interval_bounds *b = &t->b[ti][g];
            int k = n_families(res, n, ti, g);
            if (!b->valid)
                strbuf_printf(s, "| %s | %s | %d | %d | - | - | too few rows |\n",
                              interval_target_name(ti), interval_group_name(g), b->n, k);
            else
                strbuf_printf(s, "| %s | %s | %d | %d | %.3f | %.3f | %s%s |\n",
                              interval_target_name(ti), interval_group_name(g), b->n, k,
                              exp(b->lo), exp(b->hi),
                              b->fallback ? "pooled x1.5 (fewer than 20 rows)" : "own rows",
                              b->n_fam < INTERVAL_MIN_FAMILIES
                                  ? "; **too few source families**: x1.5 where used"
                                  : "");
        }
}

static void cover_md(struct strbuf *s, const char *label, struct cover *c, bool goal)
{
    if (!c->n && !c->n_none)
        return;
    double cov = c->n ? 100.0 * c->in / c->n : NAN;
    strbuf_printf(s, "| %s | %d | %d |", label, c->n, c->n_none);
    if (c->n)
        strbuf_printf(s, " %.1f%% | %.1f%% | %d |", cov, 100 * median(c->w, c->n), c->n_widen);
    else
        strbuf_printf(s, " - | - | - |");
    if (goal)
        strbuf_printf(s, " %s |", !c->n ? "no (no interval)" : cov >= 72 && cov <= 88 ? "yes" : "no");
    strbuf_printf(s, "\n");
}

static void losfo_md(struct strbuf *s, const struct interval_resid *res, int n)
{
    const char **fam = xmalloc(sizeof *fam * (size_t)(n > 0 ? n : 1));
    int k = families(res, n, fam);
    struct cover *by_group = xcalloc(IT__COUNT * IG__COUNT, sizeof *by_group);
    struct cover *by_fam = xcalloc((size_t)(k > 0 ? k : 1) * IT__COUNT, sizeof *by_fam);
    losfo(res, n, fam, k, by_group, by_fam);
    strbuf_printf(s, "\n## Leave-one-source-family-out check\n\nFor each of the %d source "
                     "families, the table is rebuilt without its rows and its rows are given "
                     "the interval that table gives their configuration (widenings included: a "
                     "GPU, precision or runtime that only the held-out family measured counts "
                     "as unmeasured). Coverage: the share of held-out rows whose measured value "
                     "lies in their interval (goal 72-88%%); width: (high - low) / predicted, "
                     "median over the rows; widened: rows whose interval was widened; no "
                     "interval: rows whose fold left fewer than %d rows of the target, so that "
                     "no interval exists (not counted in coverage).\n\n"
                     "| target, runtime group | held-out rows | no interval | coverage | median "
                     "width | widened | goal met |\n|---|---|---|---|---|---|---|\n", k,
                  INTERVAL_MIN_ROWS);
    for (int ti = 0; ti < IT__COUNT; ti++)
        for (int g = 0; g < IG__COUNT; g++) {
            char label[64];
            snprintf(label, sizeof label, "%s, %s", interval_target_name(ti),
                     g == IG_POOLED ? "all" : interval_group_name(g));
            cover_md(s, label, &by_group[ti * IG__COUNT + g], true);
        }
    strbuf_printf(s, "\n### Per source family\n\n| family, target | held-out rows | no interval | "
                     "coverage | median width | widened |\n|---|---|---|---|---|---|\n");
    for (int f = 0; f < k; f++)
        for (int ti = 0; ti < IT__COUNT; ti++) {
            char label[64];
            snprintf(label, sizeof label, "%s, %s", fam[f], interval_target_name(ti));
            cover_md(s, label, &by_fam[f * IT__COUNT + ti], false);
        }
    for (int i = 0; i < IT__COUNT * IG__COUNT; i++)
        free(by_group[i].w);
    for (int i = 0; i < k * IT__COUNT; i++)
        free(by_fam[i].w);
    free(by_group);
    free(by_fam);
    free(fam);
}

char *interval_report(const struct interval_resid *res, int n, const struct interval_counts *cnt,
                      const struct interval_table *t, const char *command, const char *inputs,
                      size_t *len)
{
    struct strbuf s = STRBUF_INIT;
    strbuf_printf(&s, "# Prediction intervals\n\nWritten by `%s` (`make intervals`) from %s, "
                      "with intervals.tsv beside it; regenerate both after the teacher or the "
                      "measured data change.\n\n", command, inputs);
    strbuf_printf(&s,
        "Method: quantiles of held-out errors by group, each source family weighing the "
        "same. Each measured row gives one held-out error, "
        "log(measured / predicted): the %d fitted time and memory rows of the calibration "
        "table, each predicted by the teacher refitted without the row's source family (the "
        "leave-one-source-family-out folds of `dippm calibrate`, started from the compiled-in "
        "constants: a new user's harness is a new source), %d NeuSight end-to-end latency "
        "rows predicted by the teacher, which "
        "was not fitted to them, and %d rows of the validation sets no fit uses "
        "(tensor-parallel, quantised and torch.compile rows: tools/validate_tp.py, "
        "validate_quant.py and validate_compile.py --resid; their times, and the quantised "
        "set's peak memories), each source its own family. "
        "Throughputs count as times (the error of the rate, negated). "
        "Rows the calibration only evaluates (their configuration is known only approximately) "
        "and power and energy rows are not used. The errors are grouped by target (time; "
        "memory) and runtime group (eager: pytorch, pytorch-sdpa; tensorrt: tensorrt, "
        "tensorrt-graph; generation: vllm and multi-token generations); each group's %.0f%% "
        "interval runs between the 0.1 and 0.9 quantiles of its errors with every source "
        "family weighing one in all, shared by its rows (a source with many rows, whose errors "
        "are alike, would otherwise set the interval alone, and the interval is for "
        "configurations no source measured), stretched to hold the prediction itself. A group of fewer than %d rows takes the pooled bounds of its target x%.2g "
        "(log scale): the pool mixes runtimes with different biases, so it is not that "
        "group's interval. A GPU, precision or runtime without a measured row of the target "
        "multiplies the log bounds by %.2g each, and the output says \"no measured rows for "
        "...\": no held-out row tells how wrong that extrapolation is. MIG slices count as "
        "their GPU. Bounds from fewer than %d source families (a group's own, or the pool's "
        "it falls back to) describe those sources' models and harnesses more than a new "
        "user's: where used, their log bounds are multiplied by %.2g too and the output says "
        "\"from only N source families\" (basis \"too few source families\" below); the check "
        "below shows how such an interval does on the other families.\n\n",
        cnt->calib, cnt->neusight, cnt->resid, INTERVAL_COVERAGE * 100, INTERVAL_MIN_ROWS,
        INTERVAL_WIDEN_FEW, INTERVAL_WIDEN_UNMEASURED, INTERVAL_MIN_FAMILIES,
        INTERVAL_WIDEN_FEW_FAMILIES);
    strbuf_printf(&s, "## The table\n\nThe measured value of a configuration lies in "
                      "[predicted x low factor, predicted x high factor] for %.0f%% of the "
                      "rows of its group.\n\n", INTERVAL_COVERAGE * 100);
    table_md(&s, t, res, n);
    losfo_md(&s, res, n);
    return strbuf_take(&s, len);
}
