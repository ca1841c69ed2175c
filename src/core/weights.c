/* weights.c - the .dpw weight file: encode, decode with validation. */
#include "core/weights.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"
#include "util/xalloc.h"

static const char magic[8] = {'D', 'P', 'P', 'M', 'G', 'N', 'N', 0};

uint64_t weights_fnv64(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* ---- writer ---------------------------------------------------------- */

struct wbuf {
    unsigned char *p;
    size_t len, cap;
};

static void put(struct wbuf *b, const void *src, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2 + 256;
        b->p = xrealloc(b->p, b->cap);
    }
    memcpy(b->p + b->len, src, n);
    b->len += n;
}

static void put_u32(struct wbuf *b, uint32_t v)
{
    unsigned char c[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    put(b, c, 4);
}

static void put_u64(struct wbuf *b, uint64_t v)
{
    put_u32(b, (uint32_t)v);
    put_u32(b, (uint32_t)(v >> 32));
}

static void put_f32(struct wbuf *b, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put_u32(b, u);
}

static void put_f32s(struct wbuf *b, const float *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        put_f32(b, f[i]);
}

void weights_encode(const struct gnn_model *m, uint64_t schema, const char *desc,
                    unsigned char **buf, size_t *len)
{
    struct wbuf b = {0};
    const struct gnn_arch *a = &m->arch;
    put(&b, magic, 8);
    put_u32(&b, WEIGHTS_VERSION);
    put_u64(&b, schema);
    uint32_t arch[6] = {(uint32_t)a->fn, (uint32_t)a->fg, (uint32_t)a->hidden,
                        (uint32_t)a->layers, (uint32_t)a->head_hidden, GNN_T__COUNT};
    for (int i = 0; i < 6; i++)
        put_u32(&b, arch[i]);
    put_u32(&b, (uint32_t)m->n_tensors);
    for (int i = 0; i < m->n_tensors; i++) {
        unsigned char nl = (unsigned char)strlen(m->t[i].name);
        put(&b, &nl, 1);
        put(&b, m->t[i].name, nl);
        put_u32(&b, (uint32_t)m->t[i].rows);
        put_u32(&b, (uint32_t)m->t[i].cols);
    }
    put_f32s(&b, m->node_mean, (size_t)a->fn);
    put_f32s(&b, m->node_std, (size_t)a->fn);
    put_f32s(&b, m->graph_mean, (size_t)a->fg);
    put_f32s(&b, m->graph_std, (size_t)a->fg);
    put_f32s(&b, m->bound, GNN_T__COUNT);
    put_f32s(&b, &m->node_bound, 1);
    size_t dl = desc ? strlen(desc) : 0;
    if (dl >= WEIGHTS_DESC_MAX)
        dl = WEIGHTS_DESC_MAX - 1;
    put_u32(&b, (uint32_t)dl);
    put(&b, desc ? desc : "", dl);
    put_f32s(&b, m->w, m->n_params);
    put_u64(&b, weights_fnv64(b.p, b.len));
    *buf = b.p;
    *len = b.len;
}

/* ---- reader ---------------------------------------------------------- */

struct rbuf {
    const unsigned char *p;
    size_t len, pos;
    bool short_read;
};

static bool take(struct rbuf *r, void *dst, size_t n)
{
    if (r->pos + n > r->len || r->pos + n < r->pos) {
        r->short_read = true;
        return false;
    }
    memcpy(dst, r->p + r->pos, n);
    r->pos += n;
    return true;
}

static uint32_t get_u32(struct rbuf *r)
{
    unsigned char c[4] = {0};
    take(r, c, 4);
    return (uint32_t)c[0] | (uint32_t)c[1] << 8 | (uint32_t)c[2] << 16 | (uint32_t)c[3] << 24;
}

static uint64_t get_u64(struct rbuf *r)
{
    uint64_t lo = get_u32(r);
    return lo | (uint64_t)get_u32(r) << 32;
}

/* Reads n floats; false if short or any is not finite. */
/* Reads n floats; false when short or when one is not finite or beyond
 * WEIGHTS_MAX_ABS (finite but huge values would make predictions inf/NaN). */
static bool get_f32s(struct rbuf *r, float *dst, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t u = get_u32(r);
        memcpy(&dst[i], &u, 4);
        if (r->short_read || !(fabsf(dst[i]) <= WEIGHTS_MAX_ABS))
            return false;
    }
    return true;
}

/* The header up to the tensor table: magic, version, checksum, schema and
 * the architecture (into *a); r is left after it. */
static enum status decode_header(const unsigned char *buf, size_t len, const char *name,
                                 uint64_t expect_schema, struct rbuf *r, struct gnn_arch *a,
                                 struct diag *d)
{
    if (memcmp(buf, magic, len < 8 ? len : 8) != 0 || len == 0)
        return diag_set(d, ST_EWEIGHTS, "%s: not a dippm weight file (bad magic)", name);
    if (len < 8 + 4 + 8)
        return diag_set(d, ST_EWEIGHTS, "%s: truncated (%zu bytes, a weight file has at least "
                        "%d)", name, len, 8 + 4 + 8 + 8);
    *r = (struct rbuf){buf, len - 8, 8, false};
    uint32_t ver = get_u32(r);
    if (ver != WEIGHTS_VERSION)
        return diag_set(d, ST_EWEIGHTS,
                        "%s: weight file version %u, this dippm reads version %d", name, ver,
                        WEIGHTS_VERSION);
    if (len < 8 + 4 + 8 + 8)
        return diag_set(d, ST_EWEIGHTS, "%s: truncated (%zu bytes)", name, len);
    struct rbuf tail = {buf, len, len - 8, false};
    uint64_t stored = get_u64(&tail), actual = weights_fnv64(buf, len - 8);
    if (stored != actual)
        return diag_set(d, ST_EWEIGHTS,
                        "%s: checksum mismatch (stored %016llx, computed %016llx): the file is "
                        "corrupt or truncated",
                        name, (unsigned long long)stored, (unsigned long long)actual);
    uint64_t schema = get_u64(r);
    uint32_t ar[6];
    for (int i = 0; i < 6; i++)
        ar[i] = get_u32(r);
    if (r->short_read)
        return diag_set(d, ST_EWEIGHTS, "%s: truncated header", name);
    if (ar[5] != GNN_T__COUNT)
        return diag_set(d, ST_EWEIGHTS, "%s: %u targets, expected %d", name, ar[5],
                        GNN_T__COUNT);
    if (expect_schema && schema != expect_schema)
        return diag_set(d, ST_EWEIGHTS,
                        "%s: feature schema %016llx does not match this dippm's %016llx "
                        "(the weights were trained on different features; retrain with "
                        "'make weights' or use matching weights)",
                        name, (unsigned long long)schema, (unsigned long long)expect_schema);
    *a = (struct gnn_arch){(int)(ar[0] & 0x7fffffff), (int)(ar[1] & 0x7fffffff),
                           (int)(ar[2] & 0x7fffffff), (int)(ar[3] & 0x7fffffff),
                           (int)(ar[4] & 0x7fffffff)};
    return ST_OK;
}

/* The tensor table: each tensor's name and shape as m's architecture has them. */
static enum status decode_tensor_table(struct rbuf *r, const struct gnn_model *m,
                                       const char *name, struct diag *d)
{
    uint32_t nt = get_u32(r);
    if (nt != (uint32_t)m->n_tensors)
        return diag_set(d, ST_EWEIGHTS, "%s: %u tensors, the architecture needs %d", name, nt,
                        m->n_tensors);
    for (int i = 0; i < m->n_tensors; i++) {
        unsigned char nl = 0;
        char nm[256];
        take(r, &nl, 1);
        take(r, nm, nl);
        nm[r->short_read ? 0 : nl] = 0;
        uint32_t rows = get_u32(r), cols = get_u32(r);
        if (r->short_read)
            return diag_set(d, ST_EWEIGHTS, "%s: truncated tensor table", name);
        if (strcmp(nm, m->t[i].name) || rows != (uint32_t)m->t[i].rows ||
            cols != (uint32_t)m->t[i].cols)
            return diag_set(d, ST_EWEIGHTS,
                            "%s: tensor %d is '%s' [%u x %u], expected '%s' [%d x %d]", name, i,
                            nm, rows, cols, m->t[i].name, m->t[i].rows, m->t[i].cols);
    }
    return ST_OK;
}

/* The feature normalisation statistics and the correction bounds. */
static enum status decode_stats(struct rbuf *r, struct gnn_model *m, const struct gnn_arch *a,
                                const char *name, struct diag *d)
{
    if (!get_f32s(r, m->node_mean, (size_t)a->fn) || !get_f32s(r, m->node_std, (size_t)a->fn) ||
        !get_f32s(r, m->graph_mean, (size_t)a->fg) ||
        !get_f32s(r, m->graph_std, (size_t)a->fg) ||
        !get_f32s(r, m->bound, GNN_T__COUNT) || !get_f32s(r, &m->node_bound, 1))
        return diag_set(d, ST_EWEIGHTS, "%s: normalisation statistics or bounds truncated, not "
                        "finite or beyond +-%g", name, WEIGHTS_MAX_ABS);
    for (int i = 0; i < a->fn + a->fg; i++) {
        float s = i < a->fn ? m->node_std[i] : m->graph_std[i - a->fn];
        if (!(s >= WEIGHTS_MIN_STD))
            return diag_set(d, ST_EWEIGHTS, "%s: normalisation std %d is %g, expected >= %g",
                            name, i, (double)s, WEIGHTS_MIN_STD);
    }
    for (int t = 0; t <= GNN_T__COUNT; t++) {
        float bnd = t < GNN_T__COUNT ? m->bound[t] : m->node_bound;
        if (!(bnd > 0 && bnd <= 10))
            return diag_set(d, ST_EWEIGHTS, "%s: correction bound %d is %g, expected in (0, 10]",
                            name, t, (double)bnd);
    }
    return ST_OK;
}

enum status weights_decode(const unsigned char *buf, size_t len, const char *name,
                           uint64_t expect_schema, struct gnn_model *m, char *desc,
                           size_t desc_size, struct diag *d)
{
    memset(m, 0, sizeof *m);
    struct rbuf r;
    struct gnn_arch a;
    enum status st = decode_header(buf, len, name, expect_schema, &r, &a, d);
    if (st)
        return st;
    struct diag ad = {0};
    size_t np = gnn_arch_params(&a);
    if (np && np > len / 4)
        return diag_set(d, ST_EWEIGHTS, "%s: architecture needs %zu parameters, more than the "
                        "%zu-byte file holds", name, np, len);
    if (gnn_model_alloc(m, &a, &ad)) {
        gnn_model_fini(m);
        return diag_set(d, ST_EWEIGHTS, "%s: bad architecture: %s", name, ad.msg);
    }
    if (decode_tensor_table(&r, m, name, d) || decode_stats(&r, m, &a, name, d))
        goto fail;
    uint32_t dl = get_u32(&r);
    char dbuf[WEIGHTS_DESC_MAX];
    if (dl >= WEIGHTS_DESC_MAX || !take(&r, dbuf, dl)) {
        diag_set(d, ST_EWEIGHTS, "%s: bad description length %u", name, dl);
        goto fail;
    }
    dbuf[dl] = 0;
    if (!get_f32s(&r, m->w, m->n_params)) {
        diag_set(d, ST_EWEIGHTS, "%s: tensor data truncated, not finite or beyond +-%g", name,
                 WEIGHTS_MAX_ABS);
        goto fail;
    }
    if (r.pos != r.len) {
        diag_set(d, ST_EWEIGHTS, "%s: %zu unexpected bytes after the tensors", name,
                 r.len - r.pos);
        goto fail;
    }
    if (desc && desc_size)
        snprintf(desc, desc_size, "%s", dbuf);
    return ST_OK;
fail:
    gnn_model_fini(m);
    return d ? d->code : ST_EWEIGHTS;
}

enum status weights_save(const char *path, const struct gnn_model *m, uint64_t schema,
                         const char *desc, bool overwrite, struct diag *d)
{
    unsigned char *buf;
    size_t len;
    weights_encode(m, schema, desc, &buf, &len);
    enum status st = file_write_atomic(path, buf, len, overwrite, d);
    free(buf);
    return st;
}

enum status weights_load(const char *path, uint64_t expect_schema, struct gnn_model *m,
                         char *desc, size_t desc_size, struct diag *d)
{
    char *buf;
    size_t len;
    memset(m, 0, sizeof *m);
    enum status st = file_read_all(path, WEIGHTS_MAX_BYTES, &buf, &len, d);
    if (st)
        return st;
    st = weights_decode((const unsigned char *)buf, len, path, expect_schema, m, desc,
                        desc_size, d);
    free(buf);
    return st;
}
