/*
 * calib.c - reading and validating the calibration mapping table
 * (tests/data/calib_map.tsv) and checking it against the JSONL rows it maps.
 * Graphs, evaluation and the fit are in calib_eval.c; the report in
 * calib_report.c.
 */
#include "lab/calib.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"
#include "core/gpu.h"

static const char *const target_names[] = {
#define X(id, name, field) name,
    CALIB_TARGET_LIST(X)
#undef X
};
static const char *const target_fields[] = {
#define X(id, name, field) field,
    CALIB_TARGET_LIST(X)
#undef X
};
static const char *const use_names[CU__COUNT] = {"fit", "eval", "skip"};

const char *calib_target_name(enum calib_target t)
{
    return (unsigned)t < CT__COUNT ? target_names[t] : "?";
}

const char *calib_use_name(enum calib_use u)
{
    return (unsigned)u < CU__COUNT ? use_names[u] : "?";
}

enum col {
    C_FILE, C_LINE, C_MODEL, C_FAMILY, C_USE, C_TARGET, C_MEASURED, C_SPEC, C_BATCH, C_SEQ,
    C_TOKENS, C_IN, C_OUT, C_STEPS, C_GPU, C_MIG, C_PREC, C_RT, C_TIMING, C_REASON, C__COUNT
};
static const char *const col_names[C__COUNT] = {
    "file", "line", "model_id", "source_family", "use", "target", "measured", "spec", "batch",
    "seq", "tokens", "in_tokens", "out_tokens", "steps", "gpu", "mig", "precision", "runtime",
    "timing", "reason"};

/* ---- fields ------------------------------------------------------------------ */

struct ctx {
    const char *path;
    int line;
    struct diag *d;
};

static enum status bad(const struct ctx *c, int col, const char *val, const char *expected)
{
    return diag_set(c->d, ST_EPARSE, "%s:%d: column %d (%s): '%s' is not %s", c->path, c->line,
                    col + 1, col_names[col], val, expected);
}

static enum status get_text(const struct ctx *c, int col, const char *val, char *dst, size_t n)
{
    if (!*val || strlen(val) >= n)
        return bad(c, col, val, "a non-empty text that fits the column");
    memcpy(dst, val, strlen(val) + 1);
    return ST_OK;
}

static enum status get_int(const struct ctx *c, int col, const char *val, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(val, &end, 10);
    if (errno || end == val || *end || v < 0 || v > 100000000)
        return bad(c, col, val, "an integer from 0 to 100000000");
    *out = v;
    return ST_OK;
}

static enum status get_num(const struct ctx *c, int col, const char *val, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(val, &end);
    if (errno || end == val || *end || !isfinite(v) || v <= 0)
        return bad(c, col, val, "a positive number");
    *out = v;
    return ST_OK;
}

bool calib_row_is_generation(const struct calib_row *r)
{
    if (r->target == CT_ENERGY_TOKEN || r->target == CT_POWER)
        return r->out_tokens > 0 && r->in_tokens > 0;
    return r->target == CT_GEN_TPUT || (r->target == CT_LATENCY && r->out_tokens > 1);
}

bool calib_row_is_first_token(const struct calib_row *r)
{
    return r->target == CT_LATENCY && r->in_tokens > 0 && r->out_tokens <= 1;
}

/* The configuration columns of a row that is fitted or evaluated. */
static enum status get_config(const struct ctx *c, char **f, struct calib_row *r)
{
    config_default(&r->cfg);
    if (strcmp(f[C_SPEC], "-") == 0 || strlen(f[C_SPEC]) >= sizeof r->spec)
        return bad(c, C_SPEC, f[C_SPEC], "a graph spec (samples/NAME.onnx or zoo:...)");
    if (strncmp(f[C_SPEC], "samples/", 8) && strncmp(f[C_SPEC], "zoo:", 4))
        return bad(c, C_SPEC, f[C_SPEC], "a graph spec (samples/NAME.onnx or zoo:...)");
    r->cfg.gpu = gpu_find(f[C_GPU]);
    if (r->cfg.gpu < 0)
        return bad(c, C_GPU, f[C_GPU], "a GPU of the table (dippm gpus)");
    r->cfg.mig = -1;
    if (strcmp(f[C_MIG], "-")) {
        r->cfg.mig = gpu_mig_find(gpu_get(r->cfg.gpu), f[C_MIG]);
        if (r->cfg.mig < 0)
            return bad(c, C_MIG, f[C_MIG], "'-' or a MIG profile of that GPU");
    }
    char want[160];
    if (!precision_parse(f[C_PREC], &r->cfg.prec)) {
        snprintf(want, sizeof want, "a precision (%s)", precision_names());
        return bad(c, C_PREC, f[C_PREC], want);
    }
    if (!runtime_parse(f[C_RT], &r->cfg.rt)) {
        snprintf(want, sizeof want, "a runtime (%s)", runtime_names());
        return bad(c, C_RT, f[C_RT], want);
    }
    if (r->batch < 1 && r->target != CT_THROUGHPUT)
        return bad(c, C_BATCH, f[C_BATCH], "a batch of at least 1 (0 only for throughput)");
    r->cfg.batch = r->batch > 0 ? r->batch : 1;
    if (r->steps > 0) {
        if (r->steps > 10000 || r->batch < 1 || r->in_tokens || r->out_tokens)
            return bad(c, C_STEPS, f[C_STEPS], "denoising steps (1 to 10000) of a batch of "
                       "images, without tokens");
        if (strncmp(r->spec, "zoo:dit", 7) && strncmp(r->spec, "zoo:unet", 8))
            return bad(c, C_SPEC, f[C_SPEC], "a zoo:dit or zoo:unet denoiser (pipeline)");
        if (r->target == CT_GEN_TPUT || r->target == CT_ENERGY_TOKEN || r->target == CT_MEMORY)
            return bad(c, C_TARGET, f[C_TARGET], "latency_ms, throughput_per_s, energy_j or "
                       "power_w (pipeline)");
    }
    if (calib_row_is_generation(r)) {
        if (r->in_tokens < 1 || r->out_tokens < 1)
            return bad(c, C_OUT, f[C_OUT], "input and output token counts of a generation");
        if (strncmp(r->spec, "zoo:gpt", 7) && strncmp(r->spec, "zoo:llama", 9) &&
            strncmp(r->spec, "zoo:moe", 7))
            return bad(c, C_SPEC, f[C_SPEC], "a zoo:gpt, zoo:llama or zoo:moe template "
                       "(generation)");
    }
    struct diag sd = {0};
    if (config_supported(&r->cfg, &sd))
        return diag_set(c->d, ST_EPARSE, "%s:%d: columns precision/runtime/gpu: %s", c->path,
                        c->line, sd.msg);
    return ST_OK;
}

/* Splits line into C__COUNT tab-separated fields (in place). */
static enum status split(const struct ctx *c, char *line, char **f)
{
    int n = 0;
    for (char *p = line;; p++) {
        if (n == C__COUNT)
            return diag_set(c->d, ST_EPARSE, "%s:%d: more than %d tab-separated columns",
                            c->path, c->line, C__COUNT);
        f[n++] = p;
        p = strchr(p, '\t');
        if (!p)
            break;
        *p = '\0';
    }
    if (n != C__COUNT)
        return diag_set(c->d, ST_EPARSE, "%s:%d: %d column(s), expected %d (%s ... %s)", c->path,
                        c->line, n, C__COUNT, col_names[0], col_names[C__COUNT - 1]);
    return ST_OK;
}

static enum status parse_line(const struct ctx *c, char *line, struct calib_row *r)
{
    char *f[C__COUNT];
    enum status st = split(c, line, f);
    if (st)
        return st;
    memset(r, 0, sizeof *r);
    r->tsv_line = c->line;
    r->measured = -1;
    r->pred = r->pred_lomo = r->pred_losfo = -1;
    int64_t ln;
    if ((st = get_text(c, C_FILE, f[C_FILE], r->file, sizeof r->file)) ||
        (st = get_int(c, C_LINE, f[C_LINE], &ln)) ||
        (st = get_text(c, C_MODEL, f[C_MODEL], r->model_id, sizeof r->model_id)) ||
        (st = get_text(c, C_FAMILY, f[C_FAMILY], r->family, sizeof r->family)))
        return st;
    if (ln < 1)
        return bad(c, C_LINE, f[C_LINE], "a line number from 1");
    r->line = (int)ln;
    int u = 0;
    while (u < CU__COUNT && strcmp(f[C_USE], use_names[u]))
        u++;
    if (u == CU__COUNT)
        return bad(c, C_USE, f[C_USE], "fit, eval or skip");
    r->use = (enum calib_use)u;
    int t = 0;
    while (t < CT__COUNT && strcmp(f[C_TARGET], target_names[t]))
        t++;
    if (t == CT__COUNT)
        return bad(c, C_TARGET, f[C_TARGET], "a target (latency_ms, throughput_per_s, "
                   "memory_mb, gen_output_tokens_per_s, energy_per_token_j, energy_j, power_w)");
    r->target = (enum calib_target)t;
    if (r->target != CT_NONE && (st = get_num(c, C_MEASURED, f[C_MEASURED], &r->measured)))
        return st;
    if (r->target == CT_NONE && (strcmp(f[C_MEASURED], "-") || r->use != CU_SKIP))
        return bad(c, C_MEASURED, f[C_MEASURED], "'-' on a skipped line without a target");
    if ((st = get_int(c, C_BATCH, f[C_BATCH], &r->batch)) ||
        (st = get_int(c, C_SEQ, f[C_SEQ], &r->seq)) ||
        (st = get_int(c, C_TOKENS, f[C_TOKENS], &r->tokens)) ||
        (st = get_int(c, C_IN, f[C_IN], &r->in_tokens)) ||
        (st = get_int(c, C_OUT, f[C_OUT], &r->out_tokens)) ||
        (st = get_int(c, C_STEPS, f[C_STEPS], &r->steps)))
        return st;
    if (r->tokens > r->seq)
        return bad(c, C_TOKENS, f[C_TOKENS], "0 (padded) or the real tokens of a sequence, at "
                   "most seq");
    snprintf(r->spec, sizeof r->spec, "%s", f[C_SPEC]);
    /* how the source timed it: wall clock around the call, or CUDA events
     * around the GPU work only (no host call overhead) */
    if (!strcmp(f[C_TIMING], "gpu"))
        r->gpu_timed = true;
    else if (strcmp(f[C_TIMING], "wall") && strcmp(f[C_TIMING], "-"))
        return bad(c, C_TIMING, f[C_TIMING], "wall, gpu or '-'");
    if (r->gpu_timed && (r->target != CT_LATENCY || r->out_tokens > 1 || r->steps > 0))
        return bad(c, C_TIMING, f[C_TIMING], "wall or '-' on a line that is not the latency "
                   "of one inference");
    if (r->use == CU_SKIP) {
        if (!strcmp(f[C_REASON], "-"))
            return bad(c, C_REASON, f[C_REASON], "the reason a skipped figure is left out");
        return get_text(c, C_REASON, f[C_REASON], r->reason, sizeof r->reason);
    }
    if (strcmp(f[C_REASON], "-"))
        return bad(c, C_REASON, f[C_REASON], "'-' on a fitted or evaluated line");
    if (r->target == CT_NONE)
        return bad(c, C_TARGET, f[C_TARGET], "a target on a fitted or evaluated line");
    return get_config(c, f, r);
}

/* ---- the JSONL files -------------------------------------------------------- */

struct jfile {
    char *text;
    char **lines;
    int n;
};

static enum status jfile_load(const char *dir, const char *name, struct jfile *j, struct diag *d)
{
    char path[8192];
    snprintf(path, sizeof path, "%.4000s/%.64s", dir, name);
    size_t len;
    enum status st = file_read_all(path, 64u << 20, &j->text, &len, d);
    if (st)
        return st;
    int cap = 1;
    for (size_t i = 0; i < len; i++)
        cap += j->text[i] == '\n';
    j->lines = calloc((size_t)cap + 1, sizeof *j->lines);
    if (!j->lines)
        return diag_set(d, ST_ENOMEM, "%s: out of memory", path);
    j->n = 0;
    for (char *p = j->text, *nl; p && *p; p = nl ? nl + 1 : NULL) {
        nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        j->lines[j->n++] = p;
    }
    return ST_OK;
}

/* The published value of r's target in its JSONL line must equal measured. */
static enum status check_value(const struct calib_set *s, const struct calib_row *r,
                               const struct jfile *j, struct diag *d)
{
    if (r->line > j->n || strspn(j->lines[r->line - 1], " \t\r") == strlen(j->lines[r->line - 1]))
        return diag_set(d, ST_EPARSE, "%s:%d: %s has no row at line %d", s->path, r->tsv_line,
                        r->file, r->line);
    if (r->target == CT_NONE)
        return ST_OK;
    cJSON *o = cJSON_Parse(j->lines[r->line - 1]);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, target_fields[r->target]);
    enum status st = ST_OK;
    if (!cJSON_IsNumber(v))
        st = diag_set(d, ST_EPARSE, "%s:%d: %s:%d has no number '%s' for target %s", s->path,
                      r->tsv_line, r->file, r->line, target_fields[r->target],
                      target_names[r->target]);
    else if (fabs(v->valuedouble - r->measured) > 1e-9 * fabs(v->valuedouble))
        st = diag_set(d, ST_EPARSE, "%s:%d: column 7 (measured): %.10g differs from %s:%d "
                      "'%s' = %.10g", s->path, r->tsv_line, r->measured, r->file, r->line,
                      target_fields[r->target], v->valuedouble);
    cJSON_Delete(o);
    return st;
}

/* Every JSONL row is in the table, and every value matches its row. */
static enum status check_against_json(struct calib_set *s, struct diag *d)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", s->path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    enum status st = ST_OK;
    for (int fi = 0; fi < s->n_files && !st; fi++) {
        struct jfile j = {0};
        st = jfile_load(dir, s->files[fi], &j, d);
        if (st) {
            diag_prefix(d, "%s: the table's file column names %s", s->path, s->files[fi]);
            free(j.text);
            free(j.lines);
            return st;
        }
        bool *seen = calloc((size_t)j.n + 1, 1);
        for (int i = 0; i < s->n_rows && !st && seen; i++)
            if (!strcmp(s->rows[i].file, s->files[fi])) {
                st = check_value(s, &s->rows[i], &j, d);
                if (!st)
                    seen[s->rows[i].line - 1] = true;
            }
        for (int l = 0; l < j.n && !st && seen; l++) {
            if (strspn(j.lines[l], " \t\r") == strlen(j.lines[l]))
                continue;
            s->n_json_rows[fi]++;
            if (!seen[l])
                st = diag_set(d, ST_EPARSE, "%s: %s line %d is not in the table (every row "
                              "must be mapped or skipped with a reason)", s->path,
                              s->files[fi], l + 1);
        }
        if (!seen && !st)
            st = diag_set(d, ST_ENOMEM, "%s: out of memory", s->path);
        free(seen);
        free(j.text);
        free(j.lines);
    }
    return st;
}

/* ---- the table ---------------------------------------------------------------- */

static enum status check_header(const struct ctx *c, char *line)
{
    char *f[C__COUNT];
    enum status st = split(c, line, f);
    if (st)
        return st;
    for (int i = 0; i < C__COUNT; i++)
        if (strcmp(f[i], col_names[i]))
            return diag_set(c->d, ST_EPARSE, "%s:1: column %d of the header is '%s', "
                            "expected '%s'", c->path, i + 1, f[i], col_names[i]);
    return ST_OK;
}

static enum status add_file(struct calib_set *s, const struct calib_row *r, struct diag *d)
{
    for (int i = 0; i < s->n_files; i++)
        if (!strcmp(s->files[i], r->file))
            return ST_OK;
    if (s->n_files == 4 || strchr(r->file, '/'))
        return diag_set(d, ST_EPARSE, "%s:%d: column 1 (file): '%s' is not one of at most 4 "
                        "JSONL file names beside the table", s->path, r->tsv_line, r->file);
    snprintf(s->files[s->n_files++], sizeof s->files[0], "%s", r->file);
    return ST_OK;
}

enum status calib_load(const char *path, struct calib_set *set, struct diag *d)
{
    memset(set, 0, sizeof *set);
    set->path = path;
    char *text = NULL;
    size_t len = 0;
    enum status st = file_read_all(path, 64u << 20, &text, &len, d);
    if (st)
        return st;
    int cap = 1;
    for (size_t i = 0; i < len; i++)
        cap += text[i] == '\n';
    set->rows = calloc((size_t)cap, sizeof *set->rows);
    if (!set->rows) {
        free(text);
        return diag_set(d, ST_ENOMEM, "%s: out of memory", path);
    }
    struct ctx c = {path, 0, d};
    for (char *p = text, *nl; p && *p && !st; p = nl ? nl + 1 : NULL) {
        nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        c.line++;
        size_t n = strlen(p);
        if (n && p[n - 1] == '\r')
            p[n - 1] = '\0';
        if (c.line == 1) {
            st = check_header(&c, p);
            continue;
        }
        if (!*p)
            continue;
        st = parse_line(&c, p, &set->rows[set->n_rows]);
        if (!st)
            st = add_file(set, &set->rows[set->n_rows], d);
        if (!st)
            set->n_rows++;
    }
    free(text);
    if (!st && set->n_rows == 0)
        st = diag_set(d, ST_EPARSE, "%s: no rows after the header", path);
    if (!st)
        st = check_against_json(set, d);
    if (st)
        calib_set_fini(set);
    return st;
}

void calib_set_fini(struct calib_set *set)
{
    if (!set)
        return;
    free(set->rows);
    set->rows = NULL;
    set->n_rows = 0;
}
