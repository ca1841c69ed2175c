/*
 * json_graph.c - dippm JSON graph reader (cJSON); the writer is json_graph_write.c.
 *
 * Layout (man/dippm-json.5):
 *   { "format": "dippm-graph", "version": 1, "name": "...", "opset": 17,
 *     "symbols": { "batch": 1, ... },
 *     "inputs":  [ { "name", "dtype", "shape": [ "batch", 3, 224, 224 ] } ],
 *     "outputs": [ { "name", "dtype"?, "shape"? } ],
 *     "initializers": [ { "name", "dtype", "shape", "data"? } ],
 *     "values": [ { "name", "dtype", "shape" } ]        (optional declared types)
 *     "nodes": [ { "name", "op", "domain"?, "inputs", "outputs", "attrs"?, "block"? } ] }
 * A dim is an integer, a symbol name, or null (unknown). Attribute values:
 * integer -> int, non-integral number -> float, string -> string, array of
 * integers -> ints, array of numbers -> floats, array of strings -> strings;
 * a typed object {"float": 1.0}, {"floats": [...]}, {"ints": []},
 * {"strings": []}, {"tensor": {...}} or {"graph": null} where the plain form
 * would be ambiguous. The writer always emits the unambiguous form.
 */
#include "graph/json/json_graph.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"
#include "util/jsonr.h"
#include "util/xalloc.h"

#define JSON_GRAPH_MAX_BYTES ((size_t)512 << 20)
#define MAX_LIST 1000000 /* attribute list and data lengths */

struct jctx {
    struct graph *g;
    const char *file;
    struct diag *d;
};

static enum status jerr(struct jctx *c, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static enum status jerr(struct jctx *c, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    enum status st = diag_vset_at(c->d, ST_EPARSE, c->file, path, fmt, ap);
    va_end(ap);
    return st;
}

/* Integers beyond 2^53 (INT64_MAX is common as "slice to the end") do not
 * survive a double, so they are written as decimal strings; non-finite
 * floats (-inf in attention masks) as "inf", "-inf" or "nan". */
#define EXACT_INT_LIMIT 9007199254740992.0 /* 2^53 */

static bool get_i64(const cJSON *j, int64_t *out)
{
    if (json_is_int(j)) {
        *out = (int64_t)j->valuedouble;
        return true;
    }
    if (!cJSON_IsString(j) || !*j->valuestring)
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(j->valuestring, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

static bool get_f64(const cJSON *j, double *out)
{
    if (cJSON_IsNumber(j)) {
        *out = j->valuedouble;
        return true;
    }
    if (!cJSON_IsString(j))
        return false;
    if (!strcmp(j->valuestring, "inf"))
        *out = INFINITY;
    else if (!strcmp(j->valuestring, "-inf"))
        *out = -INFINITY;
    else if (!strcmp(j->valuestring, "nan"))
        *out = NAN;
    else
        return false;
    return true;
}

/* ---- reading -------------------------------------------------------------- */

static enum status read_dtype(struct jctx *c, const char *path, const cJSON *j, enum dtype *dt)
{
    *dt = DT_UNDEFINED;
    if (!j)
        return ST_OK;
    if (!cJSON_IsString(j))
        return jerr(c, path, "\"dtype\" is %s, expected a string such as \"float32\"",
                    json_kind(j));
    if (!dtype_from_name(j->valuestring, dt))
        return jerr(c, path, "unknown dtype \"%s\" (expected float32, float16, int64, ...)",
                    j->valuestring);
    return ST_OK;
}

static enum status read_shape(struct jctx *c, const char *path, const cJSON *j, int *rank,
                              struct dim *dims)
{
    *rank = -1;
    if (!j || cJSON_IsNull(j))
        return ST_OK;
    if (!cJSON_IsArray(j))
        return jerr(c, path, "\"shape\" is %s, expected an array of dims", json_kind(j));
    int n = cJSON_GetArraySize(j);
    if (n > IR_MAX_RANK)
        return jerr(c, path, "rank %d exceeds the supported maximum %d", n, IR_MAX_RANK);
    int i = 0;
    for (const cJSON *e = j->child; e; e = e->next, i++) {
        if (cJSON_IsNull(e)) {
            dims[i] = (struct dim){-1, -1};
        } else if (cJSON_IsString(e)) {
            if (!*e->valuestring)
                return jerr(c, path, "dim %d is an empty symbol name", i);
            int si = graph_sym_find(c->g, e->valuestring);
            if (si < 0)
                si = graph_sym_add(c->g, e->valuestring, 1);
            dims[i] = (struct dim){-1, si};
        } else if (json_is_int(e)) {
            if (e->valuedouble < 0 || e->valuedouble > 4294967296.0)
                return jerr(c, path, "dim %d = %.0f: expected 0 to 2^32, a symbol name or null",
                            i, e->valuedouble);
            dims[i] = (struct dim){(int64_t)e->valuedouble, -1};
        } else {
            return jerr(c, path, "dim %d is %s, expected an integer, a symbol name or null", i,
                        json_kind(e));
        }
    }
    *rank = n;
    return ST_OK;
}

/* Reads "data" of a tensor: numbers into i64 (integer dtypes) or f64. */
static enum status read_data(struct jctx *c, const char *path, const cJSON *j,
                             struct tconst *t)
{
    if (!j)
        return ST_OK;
    if (!cJSON_IsArray(j))
        return jerr(c, path, "\"data\" is %s, expected an array of numbers", json_kind(j));
    int n = cJSON_GetArraySize(j);
    if (n > MAX_LIST)
        return jerr(c, path, "\"data\" has %d elements, more than %d", n, MAX_LIST);
    int64_t want = 1;
    for (int i = 0; i < t->rank; i++)
        want *= t->dims[i];
    if (want != n)
        return jerr(c, path, "\"data\" has %d elements but the shape holds %lld", n,
                    (long long)want);
    bool ints = !dtype_is_float(t->dt);
    t->n = n;
    if (ints)
        t->i64 = xcalloc((size_t)n + 1, sizeof(int64_t));
    else
        t->f64 = xcalloc((size_t)n + 1, sizeof(double));
    int i = 0;
    for (const cJSON *e = j->child; e; e = e->next, i++) {
        bool ok = ints ? get_i64(e, &t->i64[i]) : get_f64(e, &t->f64[i]);
        if (!ok) {
            free(t->i64);
            free(t->f64);
            t->i64 = NULL;
            t->f64 = NULL;
            return jerr(c, path, "\"data\"[%d] is %s, expected %s", i, json_kind(e),
                        ints ? "an integer" : "a number (or \"inf\", \"-inf\", \"nan\")");
        }
    }
    return ST_OK;
}

/* A tensor object {dtype, shape (concrete), data?} into t (data malloc'd). */
static enum status read_tensor(struct jctx *c, const char *path, const cJSON *j,
                               struct tconst *t)
{
    memset(t, 0, sizeof *t);
    if (!cJSON_IsObject(j))
        return jerr(c, path, "tensor is %s, expected an object", json_kind(j));
    enum status st = read_dtype(c, path, cJSON_GetObjectItemCaseSensitive(j, "dtype"), &t->dt);
    if (st)
        return st;
    if (t->dt == DT_UNDEFINED)
        return jerr(c, path, "tensor has no \"dtype\"");
    const cJSON *sh = cJSON_GetObjectItemCaseSensitive(j, "shape");
    if (!cJSON_IsArray(sh))
        return jerr(c, path, "tensor \"shape\" is %s, expected an array of integers",
                    json_kind(sh));
    int r = cJSON_GetArraySize(sh);
    if (r > IR_MAX_RANK)
        return jerr(c, path, "tensor rank %d exceeds %d", r, IR_MAX_RANK);
    int i = 0;
    for (const cJSON *e = sh->child; e; e = e->next, i++) {
        if (!json_is_int(e) || e->valuedouble < 0 || e->valuedouble > 4294967296.0)
            return jerr(c, path, "tensor dim %d must be an integer from 0 to 2^32", i);
        t->dims[i] = (int64_t)e->valuedouble;
    }
    t->rank = r;
    return read_data(c, path, cJSON_GetObjectItemCaseSensitive(j, "data"), t);
}

static void tconst_release(struct tconst *t)
{
    free(t->i64);
    free(t->f64);
    t->i64 = NULL;
    t->f64 = NULL;
}

/* An untyped list attribute: all integers, all numbers or all strings. */
static enum status read_attr_list(struct jctx *c, int ni, const char *name, const char *p,
                                  const cJSON *a)
{
    struct graph *g = c->g;
    int n = cJSON_GetArraySize(a);
    if (n == 0)
        return jerr(c, p, "empty list is ambiguous; write {\"ints\": []}, {\"floats\": []} "
                          "or {\"strings\": []}");
    if (n > MAX_LIST)
        return jerr(c, p, "list of %d elements is too long", n);
    bool all_int = true, all_num = true, all_str = true;
    for (const cJSON *e = a->child; e; e = e->next) {
        all_int &= json_is_int(e);
        all_num &= cJSON_IsNumber(e);
        all_str &= cJSON_IsString(e);
    }
    if (all_int) {
        int64_t *v = xmalloc(sizeof *v * (size_t)n);
        int i = 0;
        for (const cJSON *e = a->child; e; e = e->next)
            v[i++] = (int64_t)e->valuedouble;
        graph_attr_ints(g, ni, name, v, n);
        free(v);
    } else if (all_num) {
        double *v = xmalloc(sizeof *v * (size_t)n);
        int i = 0;
        for (const cJSON *e = a->child; e; e = e->next)
            v[i++] = e->valuedouble;
        graph_attr_floats(g, ni, name, v, n);
        free(v);
    } else if (all_str) {
        const char **v = xmalloc(sizeof *v * (size_t)n);
        int i = 0;
        for (const cJSON *e = a->child; e; e = e->next)
            v[i++] = e->valuestring;
        graph_attr_strings(g, ni, name, v, n);
        free(v);
    } else {
        return jerr(c, p, "list mixes types; expected all integers, numbers or strings");
    }
    return ST_OK;
}

static enum status read_attr(struct jctx *c, int ni, const char *path, const cJSON *a)
{
    const char *name = a->string;
    char p[256];
    snprintf(p, sizeof p, "%s.attrs.%s", path, name);
    struct graph *g = c->g;
    if (json_is_int(a)) {
        graph_attr_int(g, ni, name, (int64_t)a->valuedouble);
    } else if (cJSON_IsNumber(a)) {
        graph_attr_float(g, ni, name, a->valuedouble);
    } else if (cJSON_IsString(a)) {
        graph_attr_string(g, ni, name, a->valuestring);
    } else if (cJSON_IsArray(a)) {
        return read_attr_list(c, ni, name, p, a);
    } else if (cJSON_IsObject(a)) {
        const cJSON *k = a->child;
        if (!k || k->next)
            return jerr(c, p, "typed attribute must have exactly one key (int, float, "
                              "floats, ints, strings, tensor or graph)");
        double fv;
        int64_t iv;
        if (!strcmp(k->string, "float")) {
            if (!get_f64(k, &fv))
                return jerr(c, p, "\"float\" is %s, expected a number", json_kind(k));
            graph_attr_float(g, ni, name, fv);
        } else if (!strcmp(k->string, "int")) {
            if (!get_i64(k, &iv))
                return jerr(c, p, "\"int\" is %s, expected an integer", json_kind(k));
            graph_attr_int(g, ni, name, iv);
        } else if (!strcmp(k->string, "floats") || !strcmp(k->string, "ints") ||
                   !strcmp(k->string, "strings")) {
            if (!cJSON_IsArray(k))
                return jerr(c, p, "\"%s\" is %s, expected an array", k->string, json_kind(k));
            int n = cJSON_GetArraySize(k);
            if (n > MAX_LIST)
                return jerr(c, p, "list of %d elements is too long", n);
            int i = 0;
            if (k->string[0] == 'f') {
                double *v = xmalloc(sizeof *v * (size_t)(n + 1));
                for (const cJSON *e = k->child; e; e = e->next, i++) {
                    if (!get_f64(e, &v[i])) {
                        free(v);
                        return jerr(c, p, "element %d is %s, expected a number", i, json_kind(e));
                    }
                }
                graph_attr_floats(g, ni, name, v, n);
                free(v);
            } else if (k->string[0] == 'i') {
                int64_t *v = xmalloc(sizeof *v * (size_t)(n + 1));
                for (const cJSON *e = k->child; e; e = e->next, i++) {
                    if (!get_i64(e, &v[i])) {
                        free(v);
                        return jerr(c, p, "element %d is %s, expected an integer", i, json_kind(e));
                    }
                }
                graph_attr_ints(g, ni, name, v, n);
                free(v);
            } else {
                const char **v = xmalloc(sizeof *v * (size_t)(n + 1));
                for (const cJSON *e = k->child; e; e = e->next, i++) {
                    if (!cJSON_IsString(e)) {
                        free(v);
                        return jerr(c, p, "element %d is %s, expected a string", i, json_kind(e));
                    }
                    v[i] = e->valuestring;
                }
                graph_attr_strings(g, ni, name, v, n);
                free(v);
            }
        } else if (!strcmp(k->string, "tensor")) {
            struct tconst t;
            enum status st = read_tensor(c, p, k, &t);
            if (st)
                return st;
            graph_attr_tensor(g, ni, name, &t);
            tconst_release(&t);
        } else if (!strcmp(k->string, "graph")) {
            graph_attr_graph(g, ni, name);
        } else {
            return jerr(c, p, "unknown attribute type \"%s\" (expected int, float, floats, "
                              "ints, strings, tensor or graph)", k->string);
        }
    } else {
        return jerr(c, p, "attribute is %s, expected a number, string, array or typed object",
                    json_kind(a));
    }
    return ST_OK;
}

static const char *get_str(const cJSON *o, const char *key)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(j) ? j->valuestring : NULL;
}

/* inputs/outputs/initializers/values: arrays of {name, dtype, shape, data}. */
static enum status read_values(struct jctx *c, const cJSON *root, const char *key, unsigned flag)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, key);
    if (!arr)
        return ST_OK;
    if (!cJSON_IsArray(arr))
        return jerr(c, key, "is %s, expected an array", json_kind(arr));
    int i = 0;
    for (const cJSON *e = arr->child; e; e = e->next, i++) {
        char path[96];
        snprintf(path, sizeof path, "%s[%d]", key, i);
        if (!cJSON_IsObject(e))
            return jerr(c, path, "is %s, expected an object with \"name\"", json_kind(e));
        const char *name = get_str(e, "name");
        if (!name || !*name)
            return jerr(c, path, "missing \"name\" (a non-empty string)");
        enum dtype dt;
        enum status st = read_dtype(c, path, cJSON_GetObjectItemCaseSensitive(e, "dtype"), &dt);
        if (st)
            return st;
        struct dim dims[IR_MAX_RANK];
        int rank;
        if ((st = read_shape(c, path, cJSON_GetObjectItemCaseSensitive(e, "shape"), &rank, dims)))
            return st;
        if (flag == VAL_INIT && (dt == DT_UNDEFINED || rank < 0))
            return jerr(c, path, "initializer '%s' needs \"dtype\" and \"shape\"", name);
        if (flag == VAL_INPUT && graph_value_find(c->g, name) >= 0)
            return jerr(c, path, "duplicate value name '%s'", name);
        int vi = graph_value_get(c->g, name);
        /* a value may be listed twice (an initializer that is also a graph
         * output): what one entry leaves out, the other's declaration keeps */
        const struct value *old = &c->g->values[vi];
        if (dt == DT_UNDEFINED)
            dt = old->dtype;
        if (rank < 0 && old->rank >= 0) {
            rank = old->rank;
            if (rank > 0) /* a scalar has no dims array */
                memcpy(dims, old->dims, sizeof(struct dim) * (size_t)rank);
        }
        if (dt != DT_UNDEFINED || rank >= 0)
            graph_value_set_type(c->g, vi, dt, rank, dims);
        if (flag == VAL_INPUT)
            graph_input_add(c->g, vi);
        else if (flag == VAL_OUTPUT)
            graph_output_add(c->g, vi);
        else if (flag == VAL_INIT)
            graph_init_add(c->g, vi);
        const cJSON *data = cJSON_GetObjectItemCaseSensitive(e, "data");
        if (data) {
            struct tconst t = {.dt = dt, .rank = rank};
            for (int k = 0; k < rank; k++) {
                if (dims[k].sym >= 0 || dims[k].v < 0)
                    return jerr(c, path, "\"data\" needs a concrete shape");
                t.dims[k] = dims[k].v;
            }
            if ((st = read_data(c, path, data, &t)))
                return st;
            graph_value_set_data(c->g, vi, &t);
            tconst_release(&t);
        }
    }
    return ST_OK;
}

static enum status read_names(struct jctx *c, const char *path, const cJSON *arr, int *idx,
                              int *n, bool allow_empty)
{
    if (!cJSON_IsArray(arr))
        return jerr(c, path, "is %s, expected an array of value names", json_kind(arr));
    int cnt = cJSON_GetArraySize(arr);
    if (cnt > 64)
        return jerr(c, path, "%d entries; at most 64 are supported", cnt);
    int i = 0;
    for (const cJSON *e = arr->child; e; e = e->next, i++) {
        if (!cJSON_IsString(e))
            return jerr(c, path, "entry %d is %s, expected a value name", i, json_kind(e));
        if (!*e->valuestring) {
            if (!allow_empty)
                return jerr(c, path, "entry %d is an empty name", i);
            idx[i] = -1;
        } else {
            idx[i] = graph_value_get(c->g, e->valuestring);
        }
    }
    *n = cnt;
    return ST_OK;
}

static enum status read_nodes(struct jctx *c, const cJSON *root)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "nodes");
    if (!arr)
        return jerr(c, "nodes", "missing (an array of nodes is required)");
    if (!cJSON_IsArray(arr))
        return jerr(c, "nodes", "is %s, expected an array", json_kind(arr));
    int i = 0;
    for (const cJSON *e = arr->child; e; e = e->next, i++) {
        char path[64];
        snprintf(path, sizeof path, "nodes[%d]", i);
        if (!cJSON_IsObject(e))
            return jerr(c, path, "is %s, expected an object", json_kind(e));
        const char *op = get_str(e, "op");
        if (!op || !*op)
            return jerr(c, path, "missing \"op\" (the op type, e.g. \"Conv\")");
        const char *name = get_str(e, "name");
        const cJSON *jn = cJSON_GetObjectItemCaseSensitive(e, "name");
        if (jn && !cJSON_IsString(jn))
            return jerr(c, path, "\"name\" is %s, expected a string", json_kind(jn));
        int in[64], out[64], n_in = 0, n_out = 0;
        char sub[96];
        snprintf(sub, sizeof sub, "%s.inputs", path);
        const cJSON *ji = cJSON_GetObjectItemCaseSensitive(e, "inputs");
        enum status st;
        if (ji && (st = read_names(c, sub, ji, in, &n_in, true)))
            return st;
        snprintf(sub, sizeof sub, "%s.outputs", path);
        const cJSON *jo = cJSON_GetObjectItemCaseSensitive(e, "outputs");
        if (!jo)
            return jerr(c, path, "missing \"outputs\"");
        if ((st = read_names(c, sub, jo, out, &n_out, false)))
            return st;
        const char *domain = get_str(e, "domain");
        /* In our own format a misspelt op is a mistake, not a custom op:
         * ops outside the catalogue need an explicit domain. */
        if ((!domain || !*domain) && op_lookup(op) == OP__UNKNOWN)
            return jerr(c, path, "node '%s': unknown op \"%s\" (not in the op catalogue; give "
                                 "a \"domain\" for a custom op)", name ? name : "?", op);
        int ni = graph_node_add_type(c->g, op, domain, name, in, n_in, out, n_out);
        const char *block = get_str(e, "block");
        if (block)
            c->g->nodes[ni].block = graph_strdup(c->g, block);
        const cJSON *attrs = cJSON_GetObjectItemCaseSensitive(e, "attrs");
        if (attrs) {
            if (!cJSON_IsObject(attrs))
                return jerr(c, path, "\"attrs\" is %s, expected an object", json_kind(attrs));
            for (const cJSON *a = attrs->child; a; a = a->next)
                if ((st = read_attr(c, ni, path, a)))
                    return st;
        }
    }
    return ST_OK;
}

static enum status read_symbols(struct jctx *c, const cJSON *root)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(root, "symbols");
    if (!s)
        return ST_OK;
    if (!cJSON_IsObject(s))
        return jerr(c, "symbols", "is %s, expected an object such as {\"batch\": 1}", json_kind(s));
    for (const cJSON *e = s->child; e; e = e->next) {
        if (!json_is_int(e) || e->valuedouble < 1 || e->valuedouble > 2147483648.0)
            return jerr(c, "symbols", "\"%s\" is %s, expected an integer default from 1 to 2^31",
                        e->string, json_is_int(e) ? "out of range" : json_kind(e));
        int si = graph_sym_add(c->g, e->string, (int64_t)e->valuedouble);
        c->g->syms[si].def = c->g->syms[si].val = (int64_t)e->valuedouble;
    }
    return ST_OK;
}

bool json_graph_sniff(const char *text, size_t len)
{
    /* cheap: the format tag near the start; the parser checks properly */
    size_t n = len < 4096 ? len : 4096;
    for (size_t i = 0; i + 13 <= n; i++)
        if (!memcmp(text + i, "\"dippm-graph\"", 13))
            return true;
    return false;
}

struct graph *json_graph_parse(const char *text, size_t len, const char *name, struct diag *d)
{
    struct jctx c = {.file = name, .d = d};
    struct json_err je;
    cJSON *root = json_parse_strict(text, len, &je);
    if (!root) {
        if (je.line)
            diag_set(d, ST_EPARSE, "%s: line %d: %s%s", name, je.line, je.why,
                     je.truncated ? " (truncated?)" : "");
        else
            diag_set(d, ST_EPARSE, "%s: %s", name, je.why);
        return NULL;
    }
    struct graph *g = NULL;
    if (!cJSON_IsObject(root)) {
        jerr(&c, "$", "top level is %s, expected an object", json_kind(root));
        goto out;
    }
    const char *fmt = get_str(root, "format");
    if (!fmt || strcmp(fmt, JSON_GRAPH_FORMAT)) {
        jerr(&c, "format", "expected \"%s\"", JSON_GRAPH_FORMAT);
        goto out;
    }
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(root, "version");
    if (!json_is_int(ver) || ver->valuedouble != JSON_GRAPH_VERSION) {
        jerr(&c, "version", "is %s, expected %d", ver ? "unsupported" : "missing",
             JSON_GRAPH_VERSION);
        goto out;
    }
    const char *gname = get_str(root, "name");
    g = graph_new(gname ? gname : name);
    g->format = "dippm-json";
    c.g = g;
    const cJSON *opset = cJSON_GetObjectItemCaseSensitive(root, "opset");
    if (opset && (!json_is_int(opset) || opset->valuedouble < 1 || opset->valuedouble > 1000)) {
        jerr(&c, "opset", "is %s, expected an integer from 1 to 1000",
             json_is_int(opset) ? "out of range" : json_kind(opset));
        goto fail;
    }
    g->opset = opset ? (int)opset->valuedouble : 17;
    if (read_symbols(&c, root) || read_values(&c, root, "inputs", VAL_INPUT) ||
        read_values(&c, root, "initializers", VAL_INIT) ||
        read_values(&c, root, "values", 0) || read_nodes(&c, root) ||
        read_values(&c, root, "outputs", VAL_OUTPUT))
        goto fail;
    if (g->n_inputs == 0 && g->n_nodes == 0) {
        jerr(&c, "$", "graph has no inputs and no nodes");
        goto fail;
    }
    if (graph_finalize(g, d)) {
        diag_prefix(d, "%s", name);
        goto fail;
    }
    goto out;
fail:
    graph_free(g);
    g = NULL;
out:
    cJSON_Delete(root);
    return g;
}

struct graph *json_graph_load(const char *path, struct diag *d)
{
    char *text;
    size_t len;
    if (file_read_all(path, JSON_GRAPH_MAX_BYTES, &text, &len, d))
        return NULL;
    struct graph *g = json_graph_parse(text, len, path, d);
    if (g)
        g->path = graph_strdup(g, path);
    free(text);
    return g;
}

