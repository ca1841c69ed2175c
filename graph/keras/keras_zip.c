/*
 * keras_zip.c - Keras 3 `.keras` files: a zip archive holding config.json
 * (the model's configuration, the same JSON as model.to_json()),
 * metadata.json and model.weights.h5. config.json goes through the Keras
 * reader; model.weights.h5, when libhdf5 is there and the entry is at most
 * KERAS_WEIGHTS_MAX bytes, is unpacked in memory only to read its dataset
 * shapes (keras_h5.c).
 *
 * libzip checks the archive structure and each entry's CRC as it is read;
 * a damaged archive or entry is an error naming the file and the entry. An
 * entry is unpacked only after its sizes (ZIP_RATIO_MAX) and its first
 * bytes are what its kind needs.
 */
#include "dippm_config.h"

#include "graph/keras/keras_file.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/keras/keras.h"

int keras_file_sniff(const uint8_t *head, size_t n)
{
    if (n >= 4 && !memcmp(head, "PK\003\004", 4))
        return 1;
    if (n >= 8 && !memcmp(head, "\211HDF\r\n\032\n", 8))
        return 2;
    return 0;
}

#ifdef HAVE_LIBZIP
#include <zip.h>

/* An entry that unpacks to more than this many times its packed size (and
 * past 1 MiB) is refused unread: DEFLATE cannot pass about 1032:1, JSON and
 * weights stay far below this, and a bzip2 bomb of a few KB would otherwise
 * take a gigabyte and seconds. */
#define ZIP_RATIO_MAX 200
#define ZIP_RATIO_FROM ((zip_uint64_t)1 << 20)

/* What an entry must start with, checked on its first bytes before the
 * rest is unpacked. */
enum entry_kind { ENTRY_JSON, ENTRY_HDF5 };

static bool head_ok(enum entry_kind kind, const char *head, size_t n)
{
    if (kind == ENTRY_HDF5)
        return n >= 8 && !memcmp(head, "\211HDF\r\n\032\n", 8);
    for (size_t i = 0; i < n; i++) /* a JSON object, after any whitespace */
        if (!strchr(" \t\r\n", head[i]))
            return head[i] == '{';
    return true;
}

/* Checks an entry's sizes before anything is unpacked. */
static enum status entry_sizes(const char *name, const char *entry, const zip_stat_t *zs,
                               size_t max, struct diag *d)
{
    if (zs->size > max)
        return diag_set(d, ST_EUNSUPPORTED, "%s: %s is %llu bytes, more than %zu", name, entry,
                        (unsigned long long)zs->size, max);
    if ((zs->valid & ZIP_STAT_COMP_SIZE) && zs->size > ZIP_RATIO_FROM &&
        zs->size / ZIP_RATIO_MAX > zs->comp_size)
        return diag_set(d, ST_EUNSUPPORTED, "%s: %s unpacks %llu bytes to %llu, more than %d "
                        "times: refused unread (a zip bomb?)", name, entry,
                        (unsigned long long)zs->comp_size, (unsigned long long)zs->size,
                        ZIP_RATIO_MAX);
    return ST_OK;
}

/* Reads entry `entry` of z (at most max bytes, starting as kind says) into
 * a malloc'd buffer. */
static enum status read_entry(zip_t *z, const char *name, const char *entry,
                              enum entry_kind kind, size_t max, char **out, size_t *len,
                              struct diag *d)
{
    zip_int64_t idx = zip_name_locate(z, entry, 0);
    if (idx < 0)
        return diag_set(d, ST_ENOTFOUND, "%s: the archive has no %s", name, entry);
    zip_stat_t zs;
    zip_stat_init(&zs);
    if (zip_stat_index(z, (zip_uint64_t)idx, 0, &zs) < 0 || !(zs.valid & ZIP_STAT_SIZE))
        return diag_set(d, ST_EPARSE, "%s: %s: size unknown (corrupt archive)", name, entry);
    enum status st = entry_sizes(name, entry, &zs, max, d);
    if (st)
        return st;
    zip_file_t *zf = zip_fopen_index(z, (zip_uint64_t)idx, 0);
    if (!zf)
        return diag_set(d, ST_EPARSE, "%s: %s cannot be opened: %s", name, entry,
                        zip_strerror(z));
    char *buf = malloc((size_t)zs.size + 1);
    if (!buf) {
        zip_fclose(zf);
        return diag_set(d, ST_ENOMEM, "%s: %s: out of memory", name, entry);
    }
    zip_uint64_t got = 0;
    zip_int64_t r = 1;
    /* the first bytes alone first: a wrong kind of entry is not unpacked */
    zip_uint64_t head = zs.size < 8 ? zs.size : 8;
    while (got < head && (r = zip_fread(zf, buf + got, head - got)) > 0)
        got += (zip_uint64_t)r;
    if (got == head && !head_ok(kind, buf, (size_t)got)) {
        zip_fclose(zf);
        free(buf);
        return diag_set(d, ST_EPARSE, "%s: %s does not start as %s", name, entry,
                        kind == ENTRY_HDF5 ? "an HDF5 file (no signature at byte 0)"
                                           : "a JSON object ('{')");
    }
    while (got < zs.size && (r = zip_fread(zf, buf + got, zs.size - got)) > 0)
        got += (zip_uint64_t)r;
    /* one more read reaches the end and checks the CRC */
    char extra;
    if (r >= 0 && got == zs.size)
        r = zip_fread(zf, &extra, 1);
    if (r != 0 || got != zs.size)
        st = diag_set(d, ST_EPARSE, "%s: %s is damaged (%s; %llu of %llu bytes read)", name,
                      entry, r < 0 ? zip_file_strerror(zf) : "length mismatch",
                      (unsigned long long)got, (unsigned long long)zs.size);
    zip_fclose(zf);
    if (st) {
        free(buf);
        return st;
    }
    buf[got] = 0;
    *out = buf;
    *len = (size_t)got;
    return ST_OK;
}

static struct graph *load_archive(zip_t *z, const char *name, struct diag *d)
{
    char *text;
    size_t len;
    enum status st = read_entry(z, name, "config.json", ENTRY_JSON, KERAS_CONFIG_MAX, &text,
                                &len, d);
    if (st) {
        if (st == ST_ENOTFOUND) {
            diag_clear(d);
            diag_set(d, ST_EPARSE, "%s: the archive has no config.json: not a Keras 3 .keras "
                     "file", name);
        }
        return NULL;
    }
    char label[4200];
    snprintf(label, sizeof label, "%s: config.json", name);
    struct graph *g = keras_load_buffer(text, len, label, d);
    free(text);
    if (!g)
        return NULL;
    g->path = graph_strdup(g, name);
#ifdef HAVE_HDF5
    char *w;
    size_t wlen;
    struct diag wd = {0};
    if (!read_entry(z, name, "model.weights.h5", ENTRY_HDF5, KERAS_WEIGHTS_MAX, &w, &wlen,
                    &wd)) {
        snprintf(label, sizeof label, "%s: model.weights.h5", name);
        st = keras_h5_weight_shapes(w, wlen, label, &g->n_file_weights, &g->file_weight_elems,
                                    d);
        free(w);
        if (st) {
            graph_free(g);
            return NULL;
        }
    } else if (wd.code != ST_ENOTFOUND && wd.code != ST_EUNSUPPORTED) {
        *d = wd; /* a damaged weights entry is a damaged file */
        graph_free(g);
        return NULL;
    }
#endif
    return g;
}

static struct graph *open_source(zip_source_t *src, zip_error_t *ze, const char *name,
                                 struct diag *d)
{
    zip_t *z = src ? zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, ze) : NULL;
    if (!z) {
        diag_set(d, ST_EPARSE, "%s: not a readable zip archive (%s), expected a .keras file",
                 name, zip_error_strerror(ze));
        if (src)
            zip_source_free(src);
        return NULL;
    }
    struct graph *g = load_archive(z, name, d);
    zip_discard(z); /* read-only: nothing to write back */
    return g;
}

struct graph *keras_zip_load_buffer(const void *buf, size_t len, const char *name,
                                    struct diag *d)
{
    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *src = zip_source_buffer_create(buf, len, 0, &ze);
    struct graph *g = open_source(src, &ze, name, d);
    zip_error_fini(&ze);
    return g;
}

struct graph *keras_zip_load_file(const char *path, struct diag *d)
{
    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *src = zip_source_file_create(path, 0, -1, &ze);
    struct graph *g = open_source(src, &ze, path, d);
    zip_error_fini(&ze);
    return g;
}

#else /* !HAVE_LIBZIP */

static struct graph *no_zip(const char *name, struct diag *d)
{
    diag_set(d, ST_EUNSUPPORTED, "%s: this dippm was built without libzip, so .keras files "
             "cannot be read (install libzip-dev and reconfigure), or unzip it and give its "
             "config.json", name);
    return NULL;
}

struct graph *keras_zip_load_buffer(const void *buf, size_t len, const char *name,
                                    struct diag *d)
{
    (void)buf;
    (void)len;
    return no_zip(name, d);
}

struct graph *keras_zip_load_file(const char *path, struct diag *d)
{
    return no_zip(path, d);
}

#endif
