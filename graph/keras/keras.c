/*
 * keras.c - Keras / TF.js model JSON: format detection, the weightsManifest,
 * config readers with JSON-path errors, and the entry point.
 *
 * Accepted files (see keras_impl.h for the layout convention):
 *   Keras model.to_json():  {"class_name": "Sequential"|"Functional"|"Model",
 *                            "config": {...}, "keras_version"?, ...}
 *   TF.js layers model:     {"format": "layers-model"?, "modelTopology":
 *                            {class_name, config} or {"model_config": {...}},
 *                            "weightsManifest": [{"paths", "weights": [...]}]}
 *   TF.js graph model:      {"format": "graph-model"?, "modelTopology":
 *                            {"node": [...]}, "weightsManifest": [...]}
 * Parameter shapes come from the manifest entries (and, for Keras configs,
 * from the layer configs); weight values are never read. A graph model's
 * small integer constants (paddings, axes, target shapes) are read from the
 * shards beside the file (keras_shard.c).
 */
#include "graph/keras/keras.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"
#include "util/jsonr.h"
#include "graph/keras/keras_impl.h"
#include "util/strmap.h"
#include "util/xalloc.h"

#define KERAS_MAX_BYTES ((size_t)512 << 20)
#define KERAS_MAX_WEIGHTS 1000000

/* ---- errors ---------------------------------------------------------------- */

enum status kerr(struct kctx *c, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    enum status st = diag_vset_at(c->d, ST_EPARSE, c->file, path, fmt, ap);
    va_end(ap);
    return st;
}

enum status klerr(struct kctx *c, const struct klayer *L, enum status st, const char *fmt, ...)
{
    char msg[DIAG_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return diag_set(c->d, st, "%s: layer '%s%s' (class %s): %s", c->file, L->nprefix, L->name,
                    L->cls, msg);
}

const char *kjtype(const cJSON *j)
{
    return json_is_int(j) ? "an integer" : json_kind(j);
}

bool kj_is_int(const cJSON *j)
{
    return json_is_int(j);
}

/* ---- config readers -------------------------------------------------------- */

static const cJSON *cfg_get(const struct klayer *L, const char *key)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(L->cfg, key);
    return cJSON_IsNull(j) ? NULL : j;
}

enum status kcfg_int(struct kctx *c, const struct klayer *L, const char *key, bool required,
                     int64_t def, int64_t *out)
{
    const cJSON *j = cfg_get(L, key);
    *out = def;
    if (!j) {
        if (required)
            return kerr(c, L->path, "config.%s: missing (layer '%s', class %s needs it)", key,
                        L->name, L->cls);
        return ST_OK;
    }
    /* Keras sometimes writes a 1-tuple where an int is meant. */
    if (cJSON_IsArray(j) && cJSON_GetArraySize(j) == 1 && kj_is_int(j->child))
        j = j->child;
    if (!kj_is_int(j))
        return kerr(c, L->path, "config.%s: expected an integer, got %s", key, kjtype(j));
    *out = (int64_t)j->valuedouble;
    return ST_OK;
}

enum status kcfg_float(struct kctx *c, const struct klayer *L, const char *key, double def,
                       double *out)
{
    const cJSON *j = cfg_get(L, key);
    *out = def;
    if (!j)
        return ST_OK;
    if (!cJSON_IsNumber(j))
        return kerr(c, L->path, "config.%s: expected a number, got %s", key, kjtype(j));
    *out = j->valuedouble;
    return ST_OK;
}

enum status kcfg_bool(struct kctx *c, const struct klayer *L, const char *key, bool def,
                      bool *out)
{
    const cJSON *j = cfg_get(L, key);
    *out = def;
    if (!j)
        return ST_OK;
    if (!cJSON_IsBool(j))
        return kerr(c, L->path, "config.%s: expected true or false, got %s", key, kjtype(j));
    *out = cJSON_IsTrue(j);
    return ST_OK;
}

enum status kcfg_str(struct kctx *c, const struct klayer *L, const char *key, const char *def,
                     const char **out)
{
    const cJSON *j = cfg_get(L, key);
    *out = def;
    if (!j)
        return ST_OK;
    if (!cJSON_IsString(j))
        return kerr(c, L->path, "config.%s: expected a string, got %s", key, kjtype(j));
    *out = j->valuestring;
    return ST_OK;
}

enum status kcfg_ints(struct kctx *c, const struct klayer *L, const char *key, int n,
                      int64_t def, int64_t *out)
{
    const cJSON *j = cfg_get(L, key);
    for (int i = 0; i < n; i++)
        out[i] = def;
    if (!j)
        return ST_OK;
    if (kj_is_int(j)) {
        for (int i = 0; i < n; i++)
            out[i] = (int64_t)j->valuedouble;
        return ST_OK;
    }
    if (!cJSON_IsArray(j))
        return kerr(c, L->path, "config.%s: expected an integer or a list of %d integers, got %s",
                    key, n, kjtype(j));
    if (cJSON_GetArraySize(j) != n)
        return kerr(c, L->path, "config.%s: expected %d integers, got a list of %d", key, n,
                    cJSON_GetArraySize(j));
    int i = 0;
    for (const cJSON *e = j->child; e; e = e->next, i++) {
        if (!kj_is_int(e))
            return kerr(c, L->path, "config.%s[%d]: expected an integer, got %s", key, i,
                        kjtype(e));
        out[i] = (int64_t)e->valuedouble;
    }
    return ST_OK;
}

enum status kcfg_intlist(struct kctx *c, const struct klayer *L, const char *key, int max,
                         int64_t *out, int *n)
{
    const cJSON *j = cfg_get(L, key);
    *n = 0;
    if (!j)
        return ST_OK;
    if (kj_is_int(j)) {
        out[0] = (int64_t)j->valuedouble;
        *n = 1;
        return ST_OK;
    }
    if (!cJSON_IsArray(j))
        return kerr(c, L->path, "config.%s: expected a list of integers, got %s", key, kjtype(j));
    if (cJSON_GetArraySize(j) > max)
        return kerr(c, L->path, "config.%s: more than %d entries", key, max);
    for (const cJSON *e = j->child; e; e = e->next) {
        if (!kj_is_int(e))
            return kerr(c, L->path, "config.%s[%d]: expected an integer, got %s", key, *n,
                        kjtype(e));
        out[(*n)++] = (int64_t)e->valuedouble;
    }
    return ST_OK;
}

/* ---- weightsManifest ------------------------------------------------------- */

static enum status manifest_read(struct kctx *c, const cJSON *m)
{
    if (!m || cJSON_IsNull(m))
        return ST_OK;
    if (!cJSON_IsArray(m))
        return kerr(c, "weightsManifest", "expected an array of weight groups, got %s",
                    kjtype(m));
    int total = 0, gi = 0;
    for (const cJSON *grp = m->child; grp; grp = grp->next, gi++) {
        const cJSON *ws = cJSON_GetObjectItemCaseSensitive(grp, "weights");
        if (!cJSON_IsObject(grp) || !cJSON_IsArray(ws))
            return kerr(c, "weightsManifest", "[%d].weights: expected an array, got %s", gi,
                        kjtype(cJSON_IsObject(grp) ? ws : grp));
        total += cJSON_GetArraySize(ws);
    }
    if (total > KERAS_MAX_WEIGHTS)
        return kerr(c, "weightsManifest", "%d weights, more than %d", total, KERAS_MAX_WEIGHTS);
    c->w = calloc((size_t)total + 1, sizeof *c->w);
    if (!c->w)
        return diag_set(c->d, ST_ENOMEM, "%s: weightsManifest: out of memory", c->file);
    c->wmap = strmap_new();
    c->manifest = m;
    if (c->dir && !c->sizes)
        c->sizes = kshard_sizes_new(m);
    gi = 0;
    for (const cJSON *grp = m->child; grp; grp = grp->next, gi++) {
        int wi = 0;
        int64_t off = 0;
        const cJSON *ws = cJSON_GetObjectItemCaseSensitive(grp, "weights");
        for (const cJSON *e = ws->child; e; e = e->next, wi++) {
            char p[96];
            snprintf(p, sizeof p, "weightsManifest[%d].weights[%d]", gi, wi);
            const cJSON *nm = cJSON_GetObjectItemCaseSensitive(e, "name");
            const cJSON *sh = cJSON_GetObjectItemCaseSensitive(e, "shape");
            const cJSON *dt = cJSON_GetObjectItemCaseSensitive(e, "dtype");
            if (!cJSON_IsString(nm))
                return kerr(c, p, "name: expected a string, got %s", kjtype(nm));
            if (!cJSON_IsArray(sh))
                return kerr(c, p, "shape: expected an array of integers, got %s", kjtype(sh));
            struct kweight *w = &c->w[c->n_w];
            w->name = graph_strdup(c->g, nm->valuestring);
            w->dt = DT_FLOAT;
            if (cJSON_IsString(dt) && !dtype_from_name(dt->valuestring, &w->dt))
                return kerr(c, p, "dtype: unknown dtype \"%s\"", dt->valuestring);
            if (cJSON_GetArraySize(sh) > IR_MAX_RANK)
                return kerr(c, p, "shape: rank %d exceeds %d", cJSON_GetArraySize(sh),
                            IR_MAX_RANK);
            w->n = 1;
            for (const cJSON *s = sh->child; s; s = s->next) {
                if (!kj_is_int(s) || s->valuedouble < 0 || s->valuedouble > 4294967296.0) {
                    if (cJSON_IsNumber(s))
                        return kerr(c, p, "shape[%d]: %.17g is not an integer from 0 to 2^32",
                                    w->rank, s->valuedouble);
                    return kerr(c, p, "shape[%d]: expected an integer from 0 to 2^32, got %s",
                                w->rank, kjtype(s));
                }
                int64_t dim = (int64_t)s->valuedouble;
                /* checked before multiplying: 2^40 * 2^32 would overflow int64 */
                if (dim > 0 && w->n > ((int64_t)1 << 40) / dim)
                    return kerr(c, p, "shape: more than 2^40 elements");
                w->dims[w->rank++] = dim;
                w->n *= dim;
            }
            w->group = gi;
            w->quantized = cJSON_GetObjectItemCaseSensitive(e, "quantization") != NULL;
            w->nbytes = kshard_entry_bytes(e, w->dt, w->n);
            w->offset = off;
            off = off < 0 || w->nbytes < 0 ? -1 : off + w->nbytes;
            strmap_put(c->wmap, w->name, c->n_w);
            c->n_w++;
        }
    }
    return ST_OK;
}

int keras_manifest_find(struct kctx *c, const char *name)
{
    int idx;
    if (!c->wmap)
        return -1;
    if (strmap_get(c->wmap, name, &idx))
        return idx;
    /* Names saved from nested models may carry the outer model's scope. */
    size_t n = strlen(name);
    for (int i = 0; i < c->n_w; i++) {
        size_t m = strlen(c->w[i].name);
        if (m > n && c->w[i].name[m - n - 1] == '/' && !strcmp(c->w[i].name + m - n, name))
            return i;
    }
    return -1;
}

/* ---- entry ------------------------------------------------------------------- */

bool keras_sniff(const char *text, size_t len)
{
    (void)len;
    return strstr(text, "\"class_name\"") || strstr(text, "\"modelTopology\"");
}

/* The file's name without its folder and its ".model.json" / ".json". */
static const char *file_stem(struct graph *g, const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    static const char *const ext[] = {".model.json", ".json"};
    for (int i = 0; i < 2; i++) {
        size_t e = strlen(ext[i]);
        if (n > e && !strcmp(b + n - e, ext[i])) {
            n -= e;
            break;
        }
    }
    char buf[256];
    snprintf(buf, sizeof buf, "%.*s", (int)(n < 255 ? n : 255), b);
    return graph_strdup(g, buf);
}

static const char *model_name(const cJSON *obj)
{
    const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(obj, "config");
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(cfg, "name");
    return cJSON_IsString(n) ? n->valuestring : NULL;
}

static enum status build(struct kctx *c, const cJSON *root)
{
    if (!cJSON_IsObject(root))
        return kerr(c, "(root)", "expected an object, got %s", kjtype(root));
    const cJSON *topo = cJSON_GetObjectItemCaseSensitive(root, "modelTopology");
    if (topo) {
        if (!cJSON_IsObject(topo))
            return kerr(c, "modelTopology", "expected an object, got %s", kjtype(topo));
        enum status st =
            manifest_read(c, cJSON_GetObjectItemCaseSensitive(root, "weightsManifest"));
        if (st)
            return st;
        if (cJSON_GetObjectItemCaseSensitive(topo, "node")) {
            c->g->format = "tfjs";
            c->graph_model = true;
            c->g->name = file_stem(c->g, c->file); /* a GraphDef names no model */
            return keras_tfjs_graph_build(c, topo, "modelTopology");
        }
        c->g->format = "tfjs";
        const char *path = "modelTopology";
        const cJSON *mc = cJSON_GetObjectItemCaseSensitive(topo, "model_config");
        if (mc) {
            topo = mc;
            path = "modelTopology.model_config";
        }
        if (!cJSON_GetObjectItemCaseSensitive(topo, "class_name"))
            return kerr(c, path, "neither a layers model (\"class_name\" + \"config\") nor a "
                                 "graph model (\"node\" list)");
        struct ktensor out[KMAX_IO];
        int n_out = 0;
        c->g->name = model_name(topo) ? graph_strdup(c->g, model_name(topo)) : NULL;
        return keras_model_build(c, topo, path, "", "", NULL, 0, out, &n_out);
    }
    if (!cJSON_GetObjectItemCaseSensitive(root, "class_name"))
        return kerr(c, "(root)", "no \"class_name\" (Keras model config) or \"modelTopology\" "
                                 "(TF.js model.json)");
    c->g->format = "keras";
    c->g->name = model_name(root) ? graph_strdup(c->g, model_name(root)) : NULL;
    struct ktensor out[KMAX_IO];
    int n_out = 0;
    return keras_model_build(c, root, "(root)", "", "", NULL, 0, out, &n_out);
}

/* Every manifest weight must belong to a layer: a leftover means the file's
 * topology and weights disagree, and the parameter count would be wrong. */
static enum status manifest_check_used(struct kctx *c)
{
    if (!c->w || c->graph_model)
        return ST_OK;
    for (int i = 0; i < c->n_w; i++)
        if (!c->w[i].used)
            return diag_set(c->d, ST_EPARSE,
                            "%s: weightsManifest: weight '%s' (%lld elements) belongs to no "
                            "layer of modelTopology",
                            c->file, c->w[i].name, (long long)c->w[i].n);
    return ST_OK;
}

/* Where a graph model's shards are: a directory or bytes in memory. */
struct shard_src {
    const char *dir;
    const unsigned char *mem;
    size_t len;
};
static struct graph *load_text(const char *text, size_t len, const char *path,
                               struct shard_src src, struct diag *d);

struct graph *keras_load_file(const char *path, struct diag *d)
{
    char *text = NULL;
    size_t len = 0;
    if (file_read_all(path, KERAS_MAX_BYTES, &text, &len, d))
        return NULL;
    char *dir = xstrdup(path);
    char *slash = strrchr(dir, '/');
    if (slash)
        slash[slash == dir] = 0;
    else
        strcpy(dir, ".");
    struct graph *g = load_text(text, len, path, (struct shard_src){.dir = dir}, d);
    free(dir);
    free(text);
    return g;
}

struct graph *keras_load_buffer(const char *text, size_t len, const char *path,
                                struct diag *d)
{
    return load_text(text, len, path, (struct shard_src){0}, d);
}

struct graph *keras_load_buffer_shards(const char *text, size_t len, const char *path,
                                       const void *shards, size_t n, struct diag *d)
{
    return load_text(text, len, path, (struct shard_src){.mem = shards, .len = n}, d);
}

static struct graph *load_text(const char *text, size_t len, const char *path,
                               struct shard_src src, struct diag *d)
{
    struct json_err je;
    cJSON *root = json_parse_strict(text, len, &je);
    if (!root) {
        if (je.line)
            diag_set(d, ST_EPARSE, "%s: %s at line %d, column %d%s", path, je.why, je.line,
                     je.col, je.truncated ? " (file truncated?)" : "");
        else
            diag_set(d, ST_EPARSE, "%s: %s", path, je.why);
        return NULL;
    }
    struct kctx c = {.g = graph_new(NULL), .file = path, .d = d, .dir = src.dir,
                     .shard_mem = src.mem, .shard_len = src.len};
    c.g->path = graph_strdup(c.g, path);
    /* The ONNX semantics the emitted ops follow: LayerNormalization, inputs-form
     * Squeeze/Pad/Clip/Resize/ReduceSum, attribute-form ReduceMean. */
    c.g->opset = 17;
    enum status st = build(&c, root);
    cJSON_Delete(root);
    if (!st)
        st = manifest_check_used(&c);
    if (!st)
        st = graph_finalize(c.g, d);
    strmap_free(c.wmap);
    free(c.w);
    kshard_sizes_free(c.sizes);
    if (st) {
        graph_free(c.g);
        return NULL;
    }
    return c.g;
}
