/*
 * keras_h5.c - legacy Keras `.h5` files (model.save("m.h5")): the root
 * attribute model_config holds the JSON of model.to_json(); the weights are
 * datasets under the group model_weights (Keras 2: model_weights/<layer>/
 * <layer>/kernel:0). The JSON goes through the Keras reader; the datasets'
 * shapes are summed, their values are never read.
 *
 * Files are opened from memory (HDF5's core driver with a file image), so a
 * file on disk and a model.weights.h5 unpacked from a .keras archive take
 * the same path. HDF5's own error printing is switched off; every failure
 * becomes a diag naming the file and what was expected. Only hard links are
 * followed (an external link could name another file).
 *
 * libhdf5 is not hardened against corrupt files (1.10.8 spins forever on a
 * damaged global heap, and leaks on some error paths), so every libhdf5 call
 * runs in a reader process (isolate.h) with a time limit; what comes back is
 * the configuration text and the weight counts, parsed here.
 */
#include "dippm_config.h"

#include "graph/keras/keras_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/isolate.h"
#include "graph/keras/keras.h"

#ifdef HAVE_HDF5
#include <hdf5.h>

/* Links visited at most (a hostile file could hold millions). */
#define H5_MAX_LINKS 1000000

/* Elements one weight dataset may declare (every tensor's bound). */
#define H5_MAX_ELEMS (1LL << 53)

struct visit {
    int n;
    double elems;
    long links;
    bool too_many;
    char bad[200]; /* a dataset past the bounds: "NAME: why" */
};

/* Checks a dataset's shape: rank 0 to 32, at most H5_MAX_ELEMS elements in
 * all (an empty one counts 0); adds its elements to v, or says why in
 * v->bad. Returns false to stop the walk. */
static bool add_dataset(struct visit *v, const char *name, hid_t sp)
{
    int rank = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
    hsize_t dims[32];
    if (rank < 0 || rank > 32 || H5Sget_simple_extent_dims(sp, dims, NULL) != rank) {
        snprintf(v->bad, sizeof v->bad, "'%s': its shape cannot be read", name);
        return false;
    }
    unsigned long long e = 1;
    bool zero = false, over = false;
    for (int i = 0; i < rank; i++) {
        zero |= dims[i] == 0;
        if (dims[i] > (hsize_t)H5_MAX_ELEMS || (dims[i] && e > (unsigned long long)H5_MAX_ELEMS / dims[i]))
            over = true;
        else
            e *= dims[i];
    }
    if (over && !zero) {
        int k = snprintf(v->bad, sizeof v->bad, "'%s': shape [", name);
        for (int i = 0; i < rank && k > 0 && k < (int)sizeof v->bad; i++)
            k += snprintf(v->bad + k, sizeof v->bad - (size_t)k, "%s%llu", i ? ", " : "",
                          (unsigned long long)dims[i]);
        if (k > 0 && k < (int)sizeof v->bad)
            snprintf(v->bad + k, sizeof v->bad - (size_t)k, "] has more than 2^53 elements");
        return false;
    }
    v->n++;
    v->elems += zero ? 0 : (double)e;
    return true;
}

static herr_t visit_link(hid_t grp, const char *name, const H5L_info_t *info, void *data)
{
    struct visit *v = data;
    if (++v->links > H5_MAX_LINKS) {
        v->too_many = true;
        return 1; /* stop */
    }
    if (info->type != H5L_TYPE_HARD)
        return 0;
    hid_t o = H5Oopen(grp, name, H5P_DEFAULT);
    if (o < 0)
        return 0;
    bool go_on = true;
    if (H5Iget_type(o) == H5I_DATASET) {
        hid_t sp = H5Dget_space(o);
        go_on = add_dataset(v, name, sp);
        if (sp >= 0)
            H5Sclose(sp);
    }
    H5Oclose(o);
    return go_on ? 0 : 1;
}

static hid_t open_image(const void *buf, size_t len, const char *name, struct diag *d)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (len < 8 || memcmp(buf, "\211HDF\r\n\032\n", 8)) {
        diag_set(d, ST_EPARSE, "%s: not an HDF5 file (no HDF5 signature at byte 0), expected a "
                 "Keras .h5 model", name);
        return -1;
    }
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    hid_t f = -1;
    if (fapl >= 0 && H5Pset_fapl_core(fapl, 1 << 16, 0) >= 0 &&
        H5Pset_file_image(fapl, (void *)buf, len) >= 0)
        f = H5Fopen(name, H5F_ACC_RDONLY, fapl);
    if (fapl >= 0)
        H5Pclose(fapl);
    if (f < 0)
        diag_set(d, ST_EPARSE, "%s: HDF5 cannot open the file (truncated or corrupt)", name);
    return f;
}

static enum status count_weights(hid_t f, const char *name, int *n, double *elems,
                                 struct diag *d)
{
    const char *root = H5Lexists(f, "model_weights", H5P_DEFAULT) > 0 ? "model_weights" : "/";
    hid_t g = H5Oopen(f, root, H5P_DEFAULT);
    if (g < 0)
        return diag_set(d, ST_EPARSE, "%s: cannot open group '%s'", name, root);
    struct visit v = {0};
    herr_t r = H5Iget_type(g) == H5I_GROUP
                   ? H5Lvisit(g, H5_INDEX_NAME, H5_ITER_NATIVE, visit_link, &v)
                   : 0;
    H5Oclose(g);
    if (v.bad[0])
        return diag_set(d, ST_EPARSE, "%s: weight dataset %s under '%s'", name, v.bad, root);
    if (v.too_many)
        return diag_set(d, ST_EUNSUPPORTED, "%s: more than %d links under '%s'", name,
                        H5_MAX_LINKS, root);
    if (r < 0)
        return diag_set(d, ST_EPARSE, "%s: the group '%s' cannot be walked (corrupt file)", name,
                        root);
    *n = v.n;
    *elems = v.elems;
    return ST_OK;
}

/* The model_config attribute as a malloc'd string. */
static enum status read_config(hid_t f, const char *name, char **out, size_t *len,
                               struct diag *d)
{
    if (H5Aexists(f, "model_config") <= 0)
        return diag_set(d, ST_EPARSE, "%s: no root attribute model_config: a weights-only file "
                        "(save_weights) or not a Keras model; save with model.save()", name);
    hid_t a = H5Aopen(f, "model_config", H5P_DEFAULT);
    hid_t t = a >= 0 ? H5Aget_type(a) : -1, sp = a >= 0 ? H5Aget_space(a) : -1;
    enum status st = ST_OK;
    if (a < 0 || t < 0 || sp < 0) {
        st = diag_set(d, ST_EPARSE, "%s: attribute model_config cannot be read", name);
    } else if (H5Tget_class(t) != H5T_STRING) {
        st = diag_set(d, ST_EPARSE, "%s: attribute model_config is not a string, expected the "
                      "model's JSON", name);
    } else if (H5Sget_simple_extent_npoints(sp) != 1) {
        st = diag_set(d, ST_EPARSE, "%s: attribute model_config holds %lld strings, expected 1",
                      name, (long long)H5Sget_simple_extent_npoints(sp));
    } else if (H5Tis_variable_str(t) > 0) {
        hid_t mt = H5Tcopy(H5T_C_S1);
        H5Tset_size(mt, H5T_VARIABLE);
        char *s = NULL;
        if (H5Aread(a, mt, &s) < 0 || !s) {
            st = diag_set(d, ST_EPARSE, "%s: attribute model_config cannot be read", name);
        } else {
            *len = strlen(s);
            *out = *len <= KERAS_CONFIG_MAX ? strdup(s) : NULL;
            if (!*out)
                st = diag_set(d, ST_EPARSE, "%s: attribute model_config is %zu bytes, more than "
                              "%zu", name, *len, KERAS_CONFIG_MAX);
        }
        if (s)
            H5free_memory(s);
        H5Tclose(mt);
    } else {
        size_t n = H5Tget_size(t);
        if (n == 0 || n > KERAS_CONFIG_MAX) {
            st = diag_set(d, ST_EPARSE, "%s: attribute model_config is %zu bytes, expected 1 to "
                          "%zu", name, n, KERAS_CONFIG_MAX);
        } else {
            char *s = calloc(1, n + 1);
            hid_t mt = H5Tcopy(t);
            if (!s || H5Aread(a, mt, s) < 0) {
                free(s);
                st = diag_set(d, ST_EPARSE, "%s: attribute model_config cannot be read", name);
            } else {
                *out = s;
                *len = strnlen(s, n);
            }
            H5Tclose(mt);
        }
    }
    if (sp >= 0)
        H5Sclose(sp);
    if (t >= 0)
        H5Tclose(t);
    if (a >= 0)
        H5Aclose(a);
    return st;
}

/* What the reader process is asked for: an image in memory or a file path,
 * with or without the configuration. */
struct h5_job {
    const void *buf; /* the image, or NULL to open path in place */
    size_t len;
    const char *name;
    bool want_config;
};

/* The libhdf5 part, run in the reader process: the result goes back as a
 * header line "H5R1 status n elems msglen cfglen" and then the message and
 * the configuration bytes. */
static void h5_work(void *arg, struct strbuf *out)
{
    const struct h5_job *job = arg;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    struct diag d = {0};
    char *text = NULL;
    size_t tlen = 0;
    int nw = 0;
    double elems = 0;
    hid_t f = job->buf ? open_image(job->buf, job->len, job->name, &d)
                       : H5Fopen(job->name, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0 && !job->buf)
        diag_set(&d, ST_EPARSE, "%s: HDF5 cannot open the file (truncated or corrupt)",
                 job->name);
    if (f >= 0) {
        if (job->want_config)
            read_config(f, job->name, &text, &tlen, &d);
        if (!d.code)
            count_weights(f, job->name, &nw, &elems, &d);
        H5Fclose(f);
    }
    if (d.code)
        tlen = 0;
    strbuf_printf(out, "H5R1 %d %d %.17g %zu %zu\n", (int)d.code, nw, elems, strlen(d.msg), tlen);
    strbuf_add(out, d.msg, strlen(d.msg));
    if (tlen)
        strbuf_add(out, text, tlen);
    free(text);
}

/* Reader process limit: libhdf5 1.10 can spin forever on a corrupt global
 * heap; a sound file takes milliseconds. */
static int h5_limit_ms = 10000;

void keras_h5_set_time_limit(int ms)
{
    h5_limit_ms = ms > 0 ? ms : 10000;
}

/* Why the reader process gave no answer, blaming the file only when
 * libhdf5 crashed on it: a process that could not start (ulimit -n) or a
 * file that takes longer than the limit is not a corrupt file. */
static enum status h5_run_failed(const char *name, enum isolate_result r, const char *why,
                                 struct diag *d)
{
    switch (r) {
    case ISOLATE_NOCHILD:
        return diag_set(d, ST_EIO, "%s: the process that reads HDF5 files did not start: %s",
                        name, why);
    case ISOLATE_TIMEOUT:
        return diag_set(d, ST_ENOMEM, "%s: libhdf5 %s while reading the file, dippm's time "
                        "limit for an HDF5 file (a very large or deeply nested file, or a "
                        "damaged one that libhdf5 loops on)", name, why);
    case ISOLATE_CRASH:
        return diag_set(d, ST_EPARSE, "%s: libhdf5 %s while reading the file (corrupt HDF5?)",
                        name, why);
    default:
        return diag_set(d, ST_EIO, "%s: the answer of the HDF5 reader process was lost: the "
                        "process %s", name, why);
    }
}

/* Runs the job in a reader process; *text (malloc'd) is the configuration
 * when asked for. */
static enum status h5_run(const struct h5_job *job, char **text, size_t *tlen, int *nw,
                          double *elems, struct diag *d)
{
    char *bytes = NULL, why[160];
    size_t n = 0;
    enum isolate_result r = isolate_run(h5_work, (void *)job, h5_limit_ms,
                                        KERAS_CONFIG_MAX + DIAG_MSG_MAX + 128, &bytes, &n, why,
                                        sizeof why);
    if (r != ISOLATE_OK)
        return h5_run_failed(job->name, r, why, d);
    /* the header is the first line; the message and configuration follow
     * it byte for byte (scanf's "\n" would also eat their leading blanks) */
    int st = 0, end = 0;
    size_t mlen = 0, clen = 0;
    const char *nl = memchr(bytes, '\n', n);
    size_t consumed = nl ? (size_t)(nl - bytes) + 1 : 0;
    if (!nl || sscanf(bytes, "H5R1 %d %d %lg %zu %zu%n", &st, nw, elems, &mlen, &clen, &end) != 5 ||
        (size_t)end != consumed - 1 || st < 0 || st >= ST__COUNT || mlen >= DIAG_MSG_MAX ||
        consumed + mlen + clen != n) {
        free(bytes);
        return diag_set(d, ST_EINTERNAL, "%s: the HDF5 reader process answered garbage", job->name);
    }
    if (st) {
        diag_set(d, (enum status)st, "%.*s", (int)mlen, bytes + consumed);
        free(bytes);
        return (enum status)st;
    }
    if (text) {
        *text = malloc(clen + 1);
        if (!*text) {
            free(bytes);
            return diag_set(d, ST_ENOMEM, "%s: no memory for a %zu-byte model_config",
                            job->name, clen);
        }
        memcpy(*text, bytes + consumed + mlen, clen);
        (*text)[clen] = '\0';
        *tlen = clen;
    }
    free(bytes);
    return ST_OK;
}

enum status keras_h5_weight_shapes(const void *buf, size_t len, const char *name, int *n,
                                   double *elems, struct diag *d)
{
    struct h5_job job = {buf, len, name, false};
    *n = 0;
    *elems = 0;
    return h5_run(&job, NULL, NULL, n, elems, d);
}

static struct graph *load_job(const struct h5_job *job, struct diag *d)
{
    char *text = NULL;
    size_t tlen = 0;
    int nw = 0;
    double elems = 0;
    if (h5_run(job, &text, &tlen, &nw, &elems, d))
        return NULL;
    char label[4200];
    snprintf(label, sizeof label, "%s: model_config", job->name);
    struct graph *g = keras_load_buffer(text, tlen, label, d);
    free(text);
    if (!g)
        return NULL;
    g->path = graph_strdup(g, job->name);
    g->n_file_weights = nw;
    g->file_weight_elems = elems;
    return g;
}

struct graph *keras_h5_load_buffer(const void *buf, size_t len, const char *name,
                                   struct diag *d)
{
    if (len < 8 || memcmp(buf, "\211HDF\r\n\032\n", 8)) {
        diag_set(d, ST_EPARSE, "%s: not an HDF5 file (no HDF5 signature at byte 0), expected a "
                 "Keras .h5 model", name);
        return NULL;
    }
    struct h5_job job = {buf, len, name, true};
    return load_job(&job, d);
}

struct graph *keras_h5_load_file(const char *path, struct diag *d)
{
    /* opened in place by the reader process: the weight pages are never read */
    unsigned char head[8] = {0};
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        diag_set(d, ST_EIO, "%s: cannot open", path);
        return NULL;
    }
    size_t got = fread(head, 1, sizeof head, fp);
    fclose(fp);
    if (got < 8 || memcmp(head, "\211HDF\r\n\032\n", 8)) {
        diag_set(d, ST_EPARSE, "%s: not an HDF5 file (no HDF5 signature at byte 0), expected a "
                 "Keras .h5 model", path);
        return NULL;
    }
    struct h5_job job = {NULL, 0, path, true};
    return load_job(&job, d);
}

#else /* !HAVE_HDF5 */

static enum status no_hdf5(const char *name, struct diag *d)
{
    return diag_set(d, ST_EUNSUPPORTED, "%s: this dippm was built without libhdf5, so Keras "
                    ".h5 files cannot be read (install libhdf5-dev and reconfigure), or save "
                    "the model as .keras or to_json()", name);
}

enum status keras_h5_weight_shapes(const void *buf, size_t len, const char *name, int *n,
                                   double *elems, struct diag *d)
{
    (void)buf;
    (void)len;
    *n = 0;
    *elems = 0;
    return no_hdf5(name, d);
}

struct graph *keras_h5_load_buffer(const void *buf, size_t len, const char *name,
                                   struct diag *d)
{
    (void)buf;
    (void)len;
    no_hdf5(name, d);
    return NULL;
}

struct graph *keras_h5_load_file(const char *path, struct diag *d)
{
    no_hdf5(path, d);
    return NULL;
}

void keras_h5_set_time_limit(int ms)
{
    (void)ms;
}

#endif
