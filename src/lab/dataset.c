/* dataset.c - dataset rows: binary and JSONL I/O, splits. Generation is in
 * dataset_gen.c. */
#include "lab/dataset.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/fileio.h"
#include "core/gpu.h"
#include "util/jsonr.h"
#include "util/jsonw.h"
#include "lab/measured.h"
#include "core/sim.h"
#include "core/weights.h"
#include "util/xalloc.h"
#include "graph/zoo/zoo.h"

#define DATASET_MAX_BYTES ((size_t)4 << 30)

static const char rec_magic[4] = {'D', 'P', 'D', 'R'};

void dataset_init(struct dataset *ds)
{
    memset(ds, 0, sizeof *ds);
}

void dataset_fini(struct dataset *ds)
{
    if (!ds)
        return;
    for (int i = 0; i < ds->n; i++)
        free(ds->rows[i].shares);
    free(ds->rows);
    memset(ds, 0, sizeof *ds);
}

void dataset_add(struct dataset *ds, const struct dataset_row *r)
{
    if (ds->n == ds->cap) {
        ds->cap = ds->cap ? ds->cap * 2 : 256;
        ds->rows = xreallocarray(ds->rows, (size_t)ds->cap, sizeof *ds->rows);
    }
    struct dataset_row *dst = &ds->rows[ds->n++];
    *dst = *r;
    dst->shares = NULL;
    if (r->n_shares > 0) {
        dst->shares = xmalloc(sizeof(float) * (size_t)r->n_shares);
        memcpy(dst->shares, r->shares, sizeof(float) * (size_t)r->n_shares);
    }
}

enum status dataset_row_config(const struct dataset_row *r, struct config *cfg, struct diag *d)
{
    config_default(cfg);
    cfg->gpu = gpu_find(r->gpu);
    if (cfg->gpu < 0)
        return diag_set(d, ST_EPARSE, "unknown GPU '%s'", r->gpu);
    cfg->mig = -1;
    if (r->mig[0]) {
        cfg->mig = gpu_mig_find(gpu_get(cfg->gpu), r->mig);
        if (cfg->mig < 0)
            return diag_set(d, ST_EPARSE, "GPU %s has no MIG profile '%s'", r->gpu, r->mig);
    }
    cfg->prec = r->prec;
    cfg->rt = r->rt;
    cfg->batch = r->batch;
    return ST_OK;
}

void dataset_file_family(const char *path, char *out, size_t size)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t best = 0;
    snprintf(out, size, "samples");
    for (int f = 0; f < zoo_family_count(); f++) {
        const char *fn = zoo_family_name(f);
        size_t l = strlen(fn);
        if (l > best && strncmp(base, fn, l) == 0) {
            best = l;
            snprintf(out, size, "%s", fn);
        }
    }
}

bool dataset_row_is_test(const struct dataset_row *r)
{
    char key[DATASET_SPEC_MAX + 4 * DATASET_NAME_MAX + 64];
    int n = snprintf(key, sizeof key, "%s|%s|%s|%d|%d|%lld", r->spec, r->gpu, r->mig, r->prec,
                     r->rt, (long long)r->batch);
    uint64_t h = weights_fnv64(key, (size_t)(n > 0 ? n : 0));
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    return h % 100 < 10;
}

/* ---- binary records ---------------------------------------------------- */

struct obuf {
    unsigned char *p;
    size_t len, cap;
};

static void oput(struct obuf *b, const void *src, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2 + 256;
        b->p = xrealloc(b->p, b->cap);
    }
    memcpy(b->p + b->len, src, n);
    b->len += n;
}

static void oput_le(struct obuf *b, uint64_t v, int bytes)
{
    unsigned char c[8];
    for (int i = 0; i < bytes; i++)
        c[i] = (unsigned char)(v >> (8 * i));
    oput(b, c, (size_t)bytes);
}

static void oput_str(struct obuf *b, const char *s, int lenbytes)
{
    size_t l = strlen(s);
    oput_le(b, l, lenbytes);
    oput(b, s, l);
}

static void oput_f64(struct obuf *b, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    oput_le(b, u, 8);
}

static enum status write_binary(FILE *f, const struct dataset_row *r, struct diag *d)
{
    struct obuf p = {0};
    oput_le(&p, (uint64_t)r->label, 1);
    oput_str(&p, r->spec, 2);
    oput_str(&p, r->family, 1);
    oput_str(&p, r->gpu, 1);
    oput_str(&p, r->mig, 1);
    oput_le(&p, (uint64_t)r->prec, 1);
    oput_le(&p, (uint64_t)r->rt, 1);
    oput_le(&p, (uint64_t)r->batch, 8);
    for (int t = 0; t < GNN_T__COUNT; t++)
        oput_f64(&p, r->target[t]);
    oput_le(&p, (uint64_t)r->n_shares, 4);
    for (int i = 0; i < r->n_shares; i++) {
        uint32_t u;
        memcpy(&u, &r->shares[i], 4);
        oput_le(&p, u, 4);
    }
    struct obuf h = {0};
    oput(&h, rec_magic, 4);
    oput_le(&h, DATASET_VERSION, 4);
    oput_le(&h, p.len, 4);
    oput(&h, p.p, p.len);
    oput_le(&h, weights_fnv64(p.p, p.len), 8);
    size_t w = fwrite(h.p, 1, h.len, f);
    free(p.p);
    free(h.p);
    if (w != h.len)
        return diag_set(d, ST_EIO, "write failed: %s", strerror(errno));
    return ST_OK;
}

static void json_target(struct jsonw *w, const char *k, double v)
{
    jsonw_key(w, k);
    if (isnan(v))
        jsonw_null(w);
    else
        jsonw_num(w, v, true);
}

static enum status write_jsonl(FILE *f, const struct dataset_row *r, struct diag *d)
{
    struct jsonw w;
    jsonw_init(&w, false);
    jsonw_obj_begin(&w);
    jsonw_key_str(&w, "label", r->label == DATASET_MEASURED ? "measured" : "teacher");
    jsonw_key_str(&w, "spec", r->spec);
    jsonw_key_str(&w, "family", r->family);
    jsonw_key_str(&w, "gpu", r->gpu);
    jsonw_key_str(&w, "mig", r->mig);
    jsonw_key_str(&w, "precision", precision_name(r->prec));
    jsonw_key_str(&w, "runtime", runtime_name(r->rt));
    jsonw_key_int(&w, "batch", r->batch);
    json_target(&w, "latency_ms", r->target[GNN_T_LATENCY]);
    json_target(&w, "energy_j", r->target[GNN_T_ENERGY]);
    json_target(&w, "memory_mib", r->target[GNN_T_MEMORY]);
    jsonw_key(&w, "shares");
    jsonw_arr_begin(&w, true);
    for (int i = 0; i < r->n_shares; i++)
        jsonw_num(&w, r->shares[i], false);
    jsonw_arr_end(&w);
    jsonw_obj_end(&w);
    bool ok = fwrite(w.buf, 1, w.len, f) == w.len && fputc('\n', f) != EOF;
    jsonw_fini(&w);
    return ok ? ST_OK : diag_set(d, ST_EIO, "write failed: %s", strerror(errno));
}

enum status dataset_write_row(FILE *f, const struct dataset_row *r, bool jsonl, struct diag *d)
{
    return jsonl ? write_jsonl(f, r, d) : write_binary(f, r, d);
}

/* ---- reading ----------------------------------------------------------- */

static const char *jkind(const cJSON *v)
{
    return cJSON_IsNumber(v)   ? "a number"
           : cJSON_IsString(v) ? "a string"
           : cJSON_IsBool(v)   ? "a boolean"
           : cJSON_IsNull(v)   ? "null"
           : cJSON_IsArray(v)  ? "an array"
                               : "an object";
}

/* Optional string field k: ST_OK with *found false when absent; a value of
 * another type, or one that does not fit, is an error (never a default). */
static enum status jstr_opt(const cJSON *o, const char *k, char *out, size_t size, bool *found,
                            struct diag *d)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    *found = v != NULL;
    if (!v)
        return ST_OK;
    if (!cJSON_IsString(v))
        return diag_set(d, ST_EPARSE, "\"%s\" is %s, expected a string", k, jkind(v));
    if (strlen(v->valuestring) >= size)
        return diag_set(d, ST_EPARSE, "\"%s\" is longer than %zu bytes", k, size - 1);
    snprintf(out, size, "%s", v->valuestring);
    return ST_OK;
}

static enum status jstr_req(const cJSON *o, const char *k, char *out, size_t size,
                            struct diag *d)
{
    bool found;
    enum status st = jstr_opt(o, k, out, size, &found, d);
    if (!st && !found)
        st = diag_set(d, ST_EPARSE, "missing string \"%s\"", k);
    return st;
}

/* Optional number field k: NaN when absent or null; another type is an error. */
static enum status jnum(const cJSON *o, const char *k, double *out, struct diag *d)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    *out = NAN;
    if (!v || cJSON_IsNull(v))
        return ST_OK;
    if (!cJSON_IsNumber(v))
        return diag_set(d, ST_EPARSE, "\"%s\" is %s, expected a number", k, jkind(v));
    *out = v->valuedouble;
    return ST_OK;
}

/* The checks a row passes whatever file it came from: a batch in range, every
 * target absent (NaN) or positive and finite, at least one target, shares
 * finite and non-negative. */
static enum status row_check(const struct dataset_row *r, struct diag *d)
{
    static const char *const keys[GNN_T__COUNT] = {"latency_ms", "energy_j", "memory_mib"};
    if (r->batch < 1 || r->batch > DATASET_MAX_BATCH)
        return diag_set(d, ST_EPARSE, "\"batch\" is %lld, expected an integer from 1 to %d",
                        (long long)r->batch, DATASET_MAX_BATCH);
    int present = 0;
    for (int t = 0; t < GNN_T__COUNT; t++) {
        if (!isnan(r->target[t]) && !(r->target[t] > 0 && isfinite(r->target[t])))
            return diag_set(d, ST_EPARSE, "\"%s\" is %g, expected a positive finite number",
                            keys[t], r->target[t]);
        present += !isnan(r->target[t]);
    }
    if (!present)
        return diag_set(d, ST_EPARSE, "no target (latency_ms, energy_j, memory_mib)");
    for (int i = 0; i < r->n_shares; i++)
        if (!(r->shares[i] >= 0 && isfinite(r->shares[i])))
            return diag_set(d, ST_EPARSE, "shares[%d] is %g, expected a finite number >= 0", i,
                            (double)r->shares[i]);
    return ST_OK;
}

struct ibuf {
    const unsigned char *p;
    size_t len, pos;
    bool bad;
};

static uint64_t iget_le(struct ibuf *b, int bytes)
{
    if (b->pos + (size_t)bytes > b->len) {
        b->bad = true;
        return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)b->p[b->pos + (size_t)i] << (8 * i);
    b->pos += (size_t)bytes;
    return v;
}

static void iget_str(struct ibuf *b, int lenbytes, char *out, size_t size)
{
    uint64_t l = iget_le(b, lenbytes);
    if (b->bad || l >= size || b->pos + l > b->len) {
        b->bad = true;
        out[0] = 0;
        return;
    }
    memcpy(out, b->p + b->pos, (size_t)l);
    out[l] = 0;
    b->pos += (size_t)l;
}

static enum status read_binary(struct dataset *ds, const char *path, const unsigned char *p,
                               size_t len, struct diag *d)
{
    size_t pos = 0;
    long rec = 0;
    struct dataset_row r;
    while (pos < len) {
        rec++;
        if (len - pos < 12 || memcmp(p + pos, rec_magic, 4) != 0)
            return diag_set(d, ST_EPARSE, "%s: record %ld at byte %zu: bad record header", path,
                            rec, pos);
        struct ibuf h = {p + pos + 4, 8, 0, false};
        uint64_t ver = iget_le(&h, 4), plen = iget_le(&h, 4);
        if (ver != DATASET_VERSION)
            return diag_set(d, ST_EPARSE, "%s: record %ld: version %llu, expected %d", path, rec,
                            (unsigned long long)ver, DATASET_VERSION);
        if (plen > len - pos - 12 || len - pos - 12 - plen < 8)
            return diag_set(d, ST_EPARSE, "%s: record %ld: truncated", path, rec);
        const unsigned char *pl = p + pos + 12;
        struct ibuf ck = {pl + plen, 8, 0, false};
        if (iget_le(&ck, 8) != weights_fnv64(pl, (size_t)plen))
            return diag_set(d, ST_EPARSE, "%s: record %ld: checksum mismatch (corrupt file)",
                            path, rec);
        struct ibuf b = {pl, (size_t)plen, 0, false};
        memset(&r, 0, sizeof r);
        uint64_t lab = iget_le(&b, 1);
        iget_str(&b, 2, r.spec, sizeof r.spec);
        iget_str(&b, 1, r.family, sizeof r.family);
        iget_str(&b, 1, r.gpu, sizeof r.gpu);
        iget_str(&b, 1, r.mig, sizeof r.mig);
        uint64_t prec = iget_le(&b, 1), rt = iget_le(&b, 1);
        r.batch = (int64_t)iget_le(&b, 8);
        for (int t = 0; t < GNN_T__COUNT; t++) {
            uint64_t u = iget_le(&b, 8);
            memcpy(&r.target[t], &u, 8);
        }
        uint64_t ns = iget_le(&b, 4);
        if (b.bad || lab > DATASET_MEASURED || prec >= PREC__COUNT || rt >= RT__COUNT ||
            ns > DATASET_MAX_SHARES || b.len - b.pos != ns * 4)
            return diag_set(d, ST_EPARSE, "%s: record %ld: malformed fields", path, rec);
        if (!r.spec[0] || !r.gpu[0])
            return diag_set(d, ST_EPARSE, "%s: record %ld: empty %s", path, rec,
                            r.spec[0] ? "gpu" : "model spec");
        r.label = (enum dataset_label)lab;
        r.prec = (enum precision)prec;
        r.rt = (enum runtime)rt;
        r.n_shares = (int)ns;
        float *sh = ns ? malloc(sizeof(float) * (size_t)ns) : NULL;
        if (ns && !sh)
            return diag_set(d, ST_ENOMEM, "%s: record %ld: out of memory", path, rec);
        for (uint64_t i = 0; i < ns; i++) {
            uint32_t u = (uint32_t)iget_le(&b, 4);
            memcpy(&sh[i], &u, 4);
        }
        r.shares = sh;
        struct diag rd = {0};
        if (row_check(&r, &rd)) {
            free(sh);
            return diag_set(d, ST_EPARSE, "%s: record %ld: %s", path, rec, rd.msg);
        }
        dataset_add(ds, &r);
        free(sh);
        pos += 12 + (size_t)plen + 8;
    }
    return ST_OK;
}

static enum status parse_json_shares(const cJSON *o, struct dataset_row *r, struct diag *d)
{
    const cJSON *sh = cJSON_GetObjectItemCaseSensitive(o, "shares");
    if (!sh)
        return ST_OK;
    if (!cJSON_IsArray(sh))
        return diag_set(d, ST_EPARSE, "\"shares\" is %s, expected an array", jkind(sh));
    int n = cJSON_GetArraySize(sh);
    if (n > DATASET_MAX_SHARES)
        return diag_set(d, ST_EPARSE, "too many shares (%d, at most %d)", n, DATASET_MAX_SHARES);
    if (n == 0)
        return ST_OK;
    r->shares = xmalloc(sizeof(float) * (size_t)n);
    r->n_shares = n;
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, sh)
    {
        if (!cJSON_IsNumber(e) || !(e->valuedouble >= 0) || e->valuedouble > 1e30)
            return diag_set(d, ST_EPARSE, "shares[%d] is not a number from 0 to 1e30", i);
        r->shares[i++] = (float)e->valuedouble;
    }
    return ST_OK;
}

static enum status parse_json_row(const cJSON *o, struct dataset_row *r, struct diag *d)
{
    memset(r, 0, sizeof *r);
    char tmp[DATASET_NAME_MAX];
    bool found;
    enum status st;
    if (!cJSON_IsObject(o))
        return diag_set(d, ST_EPARSE, "expected a JSON object");
    bool measured_fmt = !cJSON_GetObjectItemCaseSensitive(o, "spec");
    if ((st = jstr_req(o, measured_fmt ? "model" : "spec", r->spec, sizeof r->spec, d)))
        return st;
    r->label = measured_fmt ? DATASET_MEASURED : DATASET_TEACHER;
    if ((st = jstr_opt(o, "label", tmp, sizeof tmp, &found, d)))
        return st;
    if (found && strcmp(tmp, "measured") && strcmp(tmp, "teacher"))
        return diag_set(d, ST_EPARSE, "\"label\" is '%s', expected teacher or measured", tmp);
    if (found)
        r->label = strcmp(tmp, "measured") == 0 ? DATASET_MEASURED : DATASET_TEACHER;
    if ((st = jstr_opt(o, "family", r->family, sizeof r->family, &found, d)))
        return st;
    if (!found) {
        if (strncmp(r->spec, "zoo:", 4) == 0) {
            const char *s = r->spec + 4, *c = strchr(s, ':');
            size_t l = c ? (size_t)(c - s) : strlen(s);
            snprintf(r->family, sizeof r->family, "%.*s", (int)l, s);
        } else {
            dataset_file_family(r->spec, r->family, sizeof r->family);
        }
    }
    if ((st = jstr_req(o, "gpu", r->gpu, sizeof r->gpu, d)) ||
        (st = jstr_opt(o, "mig", r->mig, sizeof r->mig, &found, d)))
        return st;
    if (strcmp(r->mig, "none") == 0 || strcmp(r->mig, "-") == 0)
        r->mig[0] = 0;
    r->prec = PREC_FP32;
    if ((st = jstr_opt(o, "precision", tmp, sizeof tmp, &found, d)))
        return st;
    if (found && !precision_parse(tmp, &r->prec))
        return diag_set(d, ST_EPARSE, "unknown precision '%s'", tmp);
    r->rt = RT_PYTORCH;
    if ((st = jstr_opt(o, "runtime", tmp, sizeof tmp, &found, d)))
        return st;
    if (found && !runtime_parse(tmp, &r->rt))
        return diag_set(d, ST_EPARSE, "unknown runtime '%s'", tmp);
    double b;
    if ((st = jnum(o, "batch", &b, d)))
        return st;
    if (!(b >= 1 && b <= DATASET_MAX_BATCH) || b != floor(b))
        return diag_set(d, ST_EPARSE, "\"batch\" must be an integer from 1 to %d",
                        DATASET_MAX_BATCH);
    r->batch = (int64_t)b;
    static const char *const keys[GNN_T__COUNT] = {"latency_ms", "energy_j", "memory_mib"};
    for (int t = 0; t < GNN_T__COUNT; t++)
        if ((st = jnum(o, keys[t], &r->target[t], d)))
            return st;
    /* a latency timed on the GPU alone (CUDA events) gets the runtime's
     * call cost, so that every label is a latency as the caller sees it */
    if ((st = jstr_opt(o, "timing", tmp, sizeof tmp, &found, d)))
        return st;
    if (found && strcmp(tmp, "gpu") && strcmp(tmp, "wall"))
        return diag_set(d, ST_EPARSE, "\"timing\" is '%s', expected wall or gpu", tmp);
    if (found && !strcmp(tmp, "gpu"))
        r->target[GNN_T_LATENCY] += sim_call_ms(NULL, r->rt);
    if ((st = parse_json_shares(o, r, d)) || (st = row_check(r, d))) {
        free(r->shares);
        r->shares = NULL;
        r->n_shares = 0;
        return st;
    }
    return ST_OK;
}

static enum status read_jsonl(struct dataset *ds, const char *path, char *text, size_t len,
                              struct diag *d)
{
    long line = 0;
    char *p = text, *end = text + len;
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *le = nl ? nl : end;
        line++;
        *le = 0;
        char *q = p;
        while (q < le && isspace((unsigned char)*q))
            q++;
        if (q < le && *q != '#') {
            struct json_err je;
            cJSON *o = json_parse_strict(q, strlen(q), &je);
            if (!o && je.col)
                return diag_set(d, ST_EPARSE, "%s:%ld: %s at column %d", path, line, je.why,
                                je.col);
            if (!o)
                return diag_set(d, ST_EPARSE, "%s:%ld: %s", path, line, je.why);
            struct dataset_row r;
            struct diag rd = {0};
            enum status st = parse_json_row(o, &r, &rd);
            cJSON_Delete(o);
            if (st)
                return diag_set(d, st, "%s:%ld: %s", path, line, rd.msg);
            dataset_add(ds, &r);
            free(r.shares);
        }
        p = le + 1;
    }
    return ST_OK;
}

/* Rows of real GPU measurements (measured.h, dippm-measured(5)): no node
 * shares; missing targets stay NaN and are masked in the loss. */
static enum status read_measured(struct dataset *ds, const char *path, struct diag *d)
{
    struct measured_set ms = {0};
    enum status st = measured_set_load(path, NULL, &ms, d);
    if (st) {
        measured_set_fini(&ms);
        return st;
    }
    for (size_t i = 0; i < ms.n; i++) {
        const struct measured_row *m = &ms.rows[i];
        const struct gpu_spec *gs = gpu_get(m->gpu);
        struct dataset_row r;
        memset(&r, 0, sizeof r);
        if (!gs || strlen(m->graph) >= sizeof r.spec) {
            st = diag_set(d, ST_EPARSE, "%s:%d: row unusable for training (GPU or graph path)",
                          path, m->line);
            break;
        }
        r.label = DATASET_MEASURED;
        snprintf(r.spec, sizeof r.spec, "%s", m->graph);
        /* the model's name: leave-one-model-out holds its rows out together */
        snprintf(r.family, sizeof r.family, "%s", m->model);
        snprintf(r.gpu, sizeof r.gpu, "%s", gs->name);
        snprintf(r.mig, sizeof r.mig, "%s", m->mig >= 0 ? gs->mig[m->mig].name : "");
        r.prec = m->prec;
        r.rt = m->rt;
        r.batch = m->batch;
        r.target[GNN_T_LATENCY] = m->latency_ms;
        r.target[GNN_T_ENERGY] = m->energy_j;
        r.target[GNN_T_MEMORY] = m->memory_mib;
        dataset_add(ds, &r);
    }
    measured_set_fini(&ms);
    return st;
}

enum status dataset_parse(struct dataset *ds, const char *name, char *buf, size_t len,
                          struct diag *d)
{
    if (len >= 4 && memcmp(buf, rec_magic, 4) == 0)
        return read_binary(ds, name, (const unsigned char *)buf, len, d);
    size_t i = 0;
    while (i < len && isspace((unsigned char)buf[i]))
        i++;
    if (i < len && buf[i] == '{')
        return read_jsonl(ds, name, buf, len, d);
    return diag_set(d, ST_EPARSE, "%s: neither a dippm binary dataset (\"DPDR\" records) nor "
                    "JSONL rows", name);
}

enum status dataset_load(struct dataset *ds, const char *path, struct diag *d)
{
    char *buf;
    size_t len;
    enum status st = file_read_all(path, DATASET_MAX_BYTES, &buf, &len, d);
    if (st)
        return st;
    size_t i = 0;
    while (i < len && isspace((unsigned char)buf[i]))
        i++;
    if (len == 0)
        st = diag_set(d, ST_EPARSE, "%s: empty dataset", path);
    else if (len >= 4 && memcmp(buf, rec_magic, 4) == 0)
        st = read_binary(ds, path, (const unsigned char *)buf, len, d);
    else if (i < len && buf[i] == '{' && strstr(buf, "\"" MEASURED_SCHEMA "\""))
        st = read_measured(ds, path, d);
    else if (i < len && buf[i] == '{')
        st = read_jsonl(ds, path, buf, len, d);
    else
        st = diag_set(d, ST_EPARSE,
                      "%s: neither a dippm binary dataset (\"DPDR\" records) nor JSONL rows",
                      path);
    free(buf);
    return st;
}
