/*
 * measured.c - reading measured-data JSONL (dippm-measured/1) into rows.
 *
 * Lines are read one at a time into a fixed buffer so that a huge or binary file
 * costs at most MEASURED_MAX_LINE bytes; each line is parsed with cJSON, checked
 * field by field and copied into a measured_row, and the cJSON tree is freed
 * before the next line (no third-party trees are kept).
 */
#include "lab/measured.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"
#include "core/gpu.h"
#include "util/xalloc.h"

static const char *const source_names[] = {
#define X(id, name) name,
    MEASURED_SOURCE_LIST(X)
#undef X
};
_Static_assert(sizeof source_names / sizeof source_names[0] == MEASURED_SOURCE__COUNT,
               "measured source table");

const char *measured_source_name(enum measured_source s)
{
    return (unsigned)s < MEASURED_SOURCE__COUNT ? source_names[s] : "?";
}

void measured_opts_default(struct measured_opts *o)
{
    o->allow_dry_run = false;
    o->dry_run_gpu = -1;
    o->check_graphs = true;
    o->max_rows = 0;
}

static void row_fini(struct measured_row *r)
{
    free(r->model);
    free(r->graph);
    free(r->input);
    memset(r, 0, sizeof *r);
}

void measured_set_fini(struct measured_set *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        row_fini(&s->rows[i]);
    free(s->rows);
    free(s->path);
    memset(s, 0, sizeof *s);
}

/* ---- field access ------------------------------------------------------- */

/* Context of the line being parsed, for error messages. */
struct line_ctx {
    const char *file;
    int line;
    struct diag *d;
};

#define FIELD_ERR(c, st, field, ...) field_err((c), (st), (field), __VA_ARGS__)

static enum status field_err(const struct line_ctx *c, enum status st, const char *field,
                             const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static enum status field_err(const struct line_ctx *c, enum status st, const char *field,
                             const char *fmt, ...)
{
    char msg[DIAG_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return diag_set(c->d, st, "%s:%d: field '%s': %s", c->file, c->line, field, msg);
}

static const char *json_type_name(const cJSON *v)
{
    if (cJSON_IsNull(v))
        return "null";
    if (cJSON_IsBool(v))
        return "a boolean";
    if (cJSON_IsNumber(v))
        return "a number";
    if (cJSON_IsString(v))
        return "a string";
    if (cJSON_IsArray(v))
        return "an array";
    if (cJSON_IsObject(v))
        return "an object";
    return "an unknown value";
}

/* Required (or, with optional, possibly absent/null -> *out = NULL) string field. */
static enum status get_str(const struct line_ctx *c, const cJSON *obj, const char *field,
                           bool optional, size_t max_len, const char **out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, field);
    *out = NULL;
    if (!v || cJSON_IsNull(v)) {
        if (optional)
            return ST_OK;
        return FIELD_ERR(c, ST_EPARSE, field, v ? "is null, expected a string"
                                                 : "missing (required)");
    }
    if (!cJSON_IsString(v) || !v->valuestring)
        return FIELD_ERR(c, ST_EPARSE, field, "is %s, expected a string", json_type_name(v));
    size_t len = strlen(v->valuestring);
    if (len == 0 && !optional)
        return FIELD_ERR(c, ST_EPARSE, field, "is empty");
    if (len > max_len)
        return FIELD_ERR(c, ST_EPARSE, field, "is %zu bytes long, at most %zu allowed", len,
                         max_len);
    *out = v->valuestring;
    return ST_OK;
}

/* A number field. required: absent is an error; nullable: null reads as NaN.
 * Finite values must lie in [lo, hi]; strict_lo excludes lo itself. */
static enum status get_num(const struct line_ctx *c, const cJSON *obj, const char *field,
                           bool required, bool nullable, double lo, bool strict_lo, double hi,
                           double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, field);
    *out = NAN;
    if (!v) {
        if (!required)
            return ST_OK;
        return FIELD_ERR(c, ST_EPARSE, field, "missing (required)");
    }
    if (cJSON_IsNull(v)) {
        if (nullable)
            return ST_OK;
        return FIELD_ERR(c, ST_EPARSE, field, "is null, expected a number");
    }
    if (!cJSON_IsNumber(v))
        return FIELD_ERR(c, ST_EPARSE, field, "is %s, expected a number", json_type_name(v));
    double x = v->valuedouble;
    if (!isfinite(x) || (strict_lo ? !(x > lo) : !(x >= lo)) || x > hi)
        return FIELD_ERR(c, ST_EPARSE, field, "value %g out of range, expected %s %g and <= %g",
                         x, strict_lo ? ">" : ">=", lo, hi);
    *out = x;
    return ST_OK;
}

/* ---- one row ------------------------------------------------------------- */

static const char *gpu_name_at(int i, const void *ctx)
{
    (void)ctx;
    return gpu_get(i)->name;
}

static const char *mig_name_at(int i, const void *ctx)
{
    return ((const struct gpu_spec *)ctx)->mig[i].name;
}

/* "a, b, c" of n names into out (cut with "..." when it does not fit). */
static void join_names(char *out, size_t cap, int n,
                       const char *(*name_at)(int, const void *), const void *ctx)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        int w = snprintf(out + used, cap - used, "%s%s", i ? ", " : "", name_at(i, ctx));
        if (w < 0 || (size_t)w >= cap - used) {
            snprintf(out + (cap > 4 ? cap - 4 : 0), cap > 4 ? 4 : cap, "...");
            return;
        }
        used += (size_t)w;
    }
}

/* Joins dir and rel unless rel is absolute; dir "" means the current directory. */
static char *resolve_path(const char *dir, const char *rel)
{
    if (rel[0] == '/' || dir[0] == '\0')
        return xstrdup(rel);
    size_t n = strlen(dir) + 1 + strlen(rel) + 1;
    char *p = xmalloc(n);
    snprintf(p, n, "%s/%s", dir, rel);
    return p;
}

/* Parses the object of one line. Returns ST_OK with *failed set for an
 * "oom"/"error" row (r untouched), or ST_OK with r filled. */
/* "source" and "status": they decide which labels a row needs. */
static enum status parse_source_status(const struct line_ctx *c, const cJSON *obj,
                                       const struct measured_opts *o, int *src, bool *failed,
                                       bool *oom)
{
    enum status st;
    const char *s;
    if ((st = get_str(c, obj, "source", false, 32, &s)))
        return st;
    *src = -1;
    for (int i = 0; i < MEASURED_SOURCE__COUNT; i++)
        if (strcmp(s, source_names[i]) == 0)
            *src = i;
    if (*src < 0)
        return FIELD_ERR(c, ST_EPARSE, "source", "'%s' is not one of 'measured', 'dry-run'", s);
    if (*src == MEASURED_SOURCE_DRY_RUN && !o->allow_dry_run)
        return FIELD_ERR(c, ST_EUNSUPPORTED, "source",
                         "'dry-run' row refused: its numbers are CPU timings from "
                         "measure.py --dry-run, not GPU measurements");
    if ((st = get_str(c, obj, "status", true, 32, &s)))
        return st;
    if (s && strcmp(s, "ok") != 0) {
        if (strcmp(s, "oom") == 0)
            *oom = true;
        else if (strcmp(s, "error") != 0)
            return FIELD_ERR(c, ST_EPARSE, "status", "'%s' is not one of 'ok', 'oom', 'error'",
                             s);
        *failed = true;
    }
    return ST_OK;
}

/* "batch", "precision" and "runtime" into r. */
static enum status parse_config(const struct line_ctx *c, const cJSON *obj,
                                struct measured_row *r)
{
    enum status st;
    const char *s;
    double batch;
    if ((st = get_num(c, obj, "batch", true, false, 1, false, MEASURED_MAX_BATCH, &batch)))
        return st;
    if (batch != floor(batch))
        return FIELD_ERR(c, ST_EPARSE, "batch", "%g is not an integer", batch);
    r->batch = (int64_t)batch;
    if ((st = get_str(c, obj, "precision", false, 32, &s)))
        return st;
    if (!precision_parse(s, &r->prec))
        return FIELD_ERR(c, ST_EPARSE, "precision",
                         "unknown precision '%s', expected %s", s, precision_names());
    if ((st = get_str(c, obj, "runtime", false, 32, &s)))
        return st;
    if (!runtime_parse(s, &r->rt))
        return FIELD_ERR(c, ST_EUNSUPPORTED, "runtime",
                         "'%s' is not a runtime dippm models (%s)", s, runtime_names());
    return ST_OK;
}

/* "gpu" and "mig" into r (a dry-run row's CPU stands for o->dry_run_gpu). */
static enum status parse_gpu(const struct line_ctx *c, const cJSON *obj, int src,
                             const struct measured_opts *o, struct measured_row *r)
{
    enum status st;
    const char *gpu_name, *mig_name;
    if ((st = get_str(c, obj, "gpu", false, 128, &gpu_name)) ||
        (st = get_str(c, obj, "mig", true, 32, &mig_name)))
        return st;
    r->gpu = r->mig = -1;
    if (strcmp(gpu_name, MEASURED_DRY_RUN_GPU) == 0) {
        if (src != MEASURED_SOURCE_DRY_RUN)
            return FIELD_ERR(c, ST_EPARSE, "gpu", "'%s' is only valid in dry-run rows",
                             gpu_name);
        if (mig_name)
            return FIELD_ERR(c, ST_EPARSE, "mig", "'%s' given for a CPU dry-run row", mig_name);
        r->gpu = o->dry_run_gpu;
        return ST_OK;
    }
    r->gpu = gpu_find(gpu_name);
    char known[320];
    if (r->gpu < 0) {
        join_names(known, sizeof known, gpu_count(), gpu_name_at, NULL);
        return FIELD_ERR(c, ST_ENOTFOUND, "gpu", "unknown GPU '%s' (not in dippm's GPU table: %s)",
                         gpu_name, known);
    }
    if (mig_name) {
        const struct gpu_spec *g = gpu_get(r->gpu);
        r->mig = gpu_mig_find(g, mig_name);
        if (r->mig < 0) {
            join_names(known, sizeof known, g->n_mig, mig_name_at, g);
            return FIELD_ERR(c, ST_ENOTFOUND, "mig", "'%s' is not a MIG profile of %s (%s)",
                             mig_name, g->name, known);
        }
    }
    return ST_OK;
}

/* The labels: a failed row has none; an ok row needs a positive latency. */
static enum status parse_labels(const struct line_ctx *c, const cJSON *obj, bool failed,
                                struct measured_row *r)
{
    enum status st;
    if ((st = get_num(c, obj, "latency_ms", true, failed, 0, true, 1e7, &r->latency_ms)) ||
        (st = get_num(c, obj, "latency_p90_ms", false, true, 0, true, 1e7, &r->latency_p90_ms)) ||
        (st = get_num(c, obj, "memory_mib", false, true, 0, true, 1e7, &r->memory_mib)) ||
        (st = get_num(c, obj, "memory_alloc_mib", false, true, 0, false, 1e7,
                      &r->memory_alloc_mib)) ||
        (st = get_num(c, obj, "energy_j", false, true, 0, true, 1e6, &r->energy_j)) ||
        (st = get_num(c, obj, "power_w", false, true, 0, true, 1e4, &r->power_w)))
        return st;
    if (!failed && !isnan(r->latency_p90_ms) && r->latency_p90_ms < r->latency_ms)
        return FIELD_ERR(c, ST_EPARSE, "latency_p90_ms", "%g is below the median latency_ms %g",
                         r->latency_p90_ms, r->latency_ms);
    return ST_OK;
}

static enum status parse_row(const struct line_ctx *c, const cJSON *obj, const char *dir,
                             const struct measured_opts *o, struct measured_row *r,
                             bool *failed, bool *oom)
{
    enum status st;
    const char *s;
    *failed = *oom = false;
    if ((st = get_str(c, obj, "schema", false, 64, &s)))
        return st;
    if (strcmp(s, MEASURED_SCHEMA) != 0)
        return FIELD_ERR(c, ST_EUNSUPPORTED, "schema", "'%s' is not supported, expected '%s'",
                         s, MEASURED_SCHEMA);
    int src;
    if ((st = parse_source_status(c, obj, o, &src, failed, oom)))
        return st;
    const char *model, *graph, *input;
    if ((st = get_str(c, obj, "model", false, 256, &model)) ||
        (st = get_str(c, obj, "graph", false, 4096, &graph)) ||
        (st = get_str(c, obj, "input", true, 64, &input)))
        return st;
    struct measured_row t;
    memset(&t, 0, sizeof t);
    if ((st = parse_config(c, obj, &t)) || (st = parse_gpu(c, obj, src, o, &t)) ||
        (st = parse_labels(c, obj, *failed, &t)))
        return st;
    if (*failed)
        return ST_OK;
    char *path = resolve_path(dir, graph);
    if (o->check_graphs && !file_exists(path)) {
        st = FIELD_ERR(c, ST_ENOTFOUND, "graph", "graph file '%s' not found", path);
        free(path);
        return st;
    }
    /* Absolute, so rows copied into a dataset still name the file from any directory. */
    char *abs = realpath(path, NULL);
    if (abs) {
        free(path);
        path = abs;
    }
    *r = t;
    r->model = xstrdup(model);
    r->graph = path;
    r->input = input ? xstrdup(input) : NULL;
    r->source = (enum measured_source)src;
    r->line = c->line;
    return ST_OK;
}

/* ---- the file ------------------------------------------------------------ */

static bool is_blank(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t' && *s != '\r' && *s != '\n')
            return false;
    return true;
}

/* Reads one line into buf (capacity MEASURED_MAX_LINE + 2), NUL-terminated,
 * newline kept. Stops storing after MEASURED_MAX_LINE + 1 bytes, so *len above
 * MEASURED_MAX_LINE means "too long". Returns false at end of file (or error)
 * with nothing read. NUL bytes are reported, since strlen-based parsing would
 * silently drop what follows them. */
static bool read_line(FILE *f, char *buf, size_t *len, bool *has_nl, bool *has_nul)
{
    size_t n = 0;
    int ch;
    *has_nl = *has_nul = false;
    while ((ch = getc(f)) != EOF) {
        if (ch == '\0')
            *has_nul = true;
        buf[n++] = (char)ch;
        if (ch == '\n') {
            *has_nl = true;
            break;
        }
        if (n > MEASURED_MAX_LINE)
            break;
    }
    buf[n] = '\0';
    *len = n - (*has_nl ? 1 : 0);
    return n > 0;
}

/* Directory part of path ("" when it has none). Caller frees. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return xstrdup("");
    if (slash == path)
        return xstrdup("/");
    size_t n = (size_t)(slash - path);
    char *d = xmalloc(n + 1);
    memcpy(d, path, n);
    d[n] = '\0';
    return d;
}

static enum status add_row(struct measured_set *s, size_t *cap, const struct measured_row *r,
                           const char *path, struct diag *d)
{
    if (s->n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 64, bytes;
        if (!size_mul_ok(ncap, sizeof *s->rows, &bytes))
            return diag_set(d, ST_ENOMEM, "%s: too many rows", path);
        struct measured_row *nr = realloc(s->rows, bytes);
        if (!nr)
            return diag_set(d, ST_ENOMEM, "%s: out of memory after %zu rows", path, s->n);
        s->rows = nr;
        *cap = ncap;
    }
    s->rows[s->n++] = *r;
    return ST_OK;
}

enum status measured_set_load(const char *path, const struct measured_opts *opts,
                              struct measured_set *out, struct diag *d)
{
    struct measured_opts defaults;
    if (!opts) {
        measured_opts_default(&defaults);
        opts = &defaults;
    }
    CHECK(opts->dry_run_gpu >= -1 && opts->dry_run_gpu < gpu_count());
    size_t max_rows = opts->max_rows ? opts->max_rows : MEASURED_MAX_ROWS;
    memset(out, 0, sizeof *out);

    FILE *f = file_fopen_regular(path, d);
    if (!f)
        return diag_set(d, ST_EIO, "%s: cannot open: %s", path, strerror(errno));

    enum status st = ST_OK;
    size_t cap = 0, nonblank = 0;
    char *dir = dir_of(path);
    char *buf = xmalloc(MEASURED_MAX_LINE + 2);
    struct line_ctx c = {path, 0, d};
    out->path = xstrdup(path);

    for (;;) {
        size_t len;
        bool has_nl, has_nul;
        if (!read_line(f, buf, &len, &has_nl, &has_nul)) {
            if (ferror(f))
                st = diag_set(d, ST_EIO, "%s:%d: read error: %s", path, c.line + 1,
                              strerror(errno));
            break;
        }
        c.line++;
        if (len > MEASURED_MAX_LINE) {
            st = diag_set(d, ST_ENOMEM, "%s:%d: line longer than %d bytes", path, c.line,
                          MEASURED_MAX_LINE);
            break;
        }
        if (has_nul) {
            st = diag_set(d, ST_EPARSE, "%s:%d: NUL byte in line (not a text file?)", path,
                          c.line);
            break;
        }
        if (is_blank(buf))
            continue;
        if (++nonblank > max_rows) {
            st = diag_set(d, ST_ENOMEM, "%s:%d: more than %zu rows", path, c.line, max_rows);
            break;
        }
        const char *end = NULL;
        cJSON *obj = cJSON_ParseWithOpts(buf, &end, false);
        if (obj && end && !is_blank(end)) {
            cJSON_Delete(obj);
            obj = NULL;
            while (*end == ' ' || *end == '\t')
                end++; /* point at the garbage itself */
        }
        if (!obj) {
            long col = end ? (long)(end - buf) + 1 : 1;
            st = diag_set(d, ST_EPARSE, "%s:%d: bad JSON at column %ld%s", path, c.line, col,
                          has_nl ? "" : " (last line not terminated: an interrupted write?)");
            break;
        }
        if (!cJSON_IsObject(obj)) {
            st = diag_set(d, ST_EPARSE, "%s:%d: expected a JSON object, found %s", path, c.line,
                          json_type_name(obj));
            cJSON_Delete(obj);
            break;
        }
        struct measured_row r;
        bool failed, oom;
        st = parse_row(&c, obj, dir, opts, &r, &failed, &oom);
        cJSON_Delete(obj);
        if (st)
            break;
        if (failed) {
            out->n_failed++;
            out->n_oom += oom;
            continue;
        }
        if ((st = add_row(out, &cap, &r, path, d))) {
            row_fini(&r);
            break;
        }
        if (r.source == MEASURED_SOURCE_DRY_RUN)
            out->n_dry_run++;
    }

    fclose(f);
    free(buf);
    free(dir);
    if (st)
        measured_set_fini(out);
    return st;
}
