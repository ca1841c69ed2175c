/*
 * keras_shard.c - the small integer constants of a TF.js graph model, read
 * from its weight shards.
 *
 * A graph model keeps every Const in the binary shards its weightsManifest
 * names: the float weights (never read: their shapes are all the cost model
 * needs) and the integer constants that decide shapes (Pad paddings,
 * ConcatV2 axes, Reshape targets, ExpandDims axes, Resize sizes,
 * StridedSlice bounds). Each manifest group's shards are one byte stream,
 * its entries stored back to back in manifest order, each as its dtype
 * (float32, int32: 4 bytes; bool: 1) or, when "quantization" is given, as
 * the quantized dtype (uint8: 1, uint16 and float16: 2). Only integer
 * entries of at most KSHARD_MAX_INTS elements are read, from shard files
 * beside the model whose names are plain file names (no directories); a
 * shard that is missing or short leaves the values unknown, and the ops
 * that need them say so. (Tests and the fuzzer hand the bytes in memory.)
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/fileio.h"
#include "graph/keras/keras_impl.h"
#include "util/xalloc.h"

int64_t kshard_entry_bytes(const cJSON *entry, enum dtype dt, int64_t n)
{
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(entry, "quantization");
    if (q) {
        const cJSON *qd = cJSON_GetObjectItemCaseSensitive(q, "dtype");
        if (!cJSON_IsString(qd))
            return -1;
        if (!strcmp(qd->valuestring, "uint8"))
            return n;
        if (!strcmp(qd->valuestring, "uint16") || !strcmp(qd->valuestring, "float16"))
            return 2 * n;
        return -1;
    }
    switch (dt) {
    case DT_FLOAT:
    case DT_INT32:
        return 4 * n;
    case DT_BOOL:
    case DT_UINT8:
        return n;
    default:
        return -1; /* string or other variable layouts: later offsets unknown */
    }
}

/* A shard path the reader may open: a plain file name beside the model. */
static bool plain_name(const char *s)
{
    return *s && *s != '.' && !strchr(s, '/') && !strchr(s, '\\') && strlen(s) < 256;
}

static unsigned long n_opens;

unsigned long kshard_opens(void)
{
    return n_opens;
}

/* One manifest group's shards: their names and sizes in stream order. */
struct kgroup {
    int state; /* 0: not looked at, 1: sizes known, -1: a shard cannot be read */
    int n;
    const char **path; /* borrowed from the manifest */
    int64_t *size;
};

struct kshard_sizes {
    int n;
    struct kgroup *g;
};

struct kshard_sizes *kshard_sizes_new(const cJSON *manifest)
{
    struct kshard_sizes *s = xcalloc(1, sizeof *s);
    s->n = cJSON_IsArray(manifest) ? cJSON_GetArraySize(manifest) : 0;
    s->g = xcalloc((size_t)s->n + 1, sizeof *s->g);
    return s;
}

void kshard_sizes_free(struct kshard_sizes *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->n; i++) {
        free(s->g[i].path);
        free(s->g[i].size);
    }
    free(s->g);
    free(s);
}

/* Opens shard file name beside the model (a plain name only). */
static int open_shard(const struct kctx *c, const char *name, struct stat *st)
{
    char full[4096];
    if (!plain_name(name) || snprintf(full, sizeof full, "%s/%s", c->dir, name) >= (int)sizeof full)
        return -1;
    struct diag d = {0};
    n_opens++;
    return file_open_regular(full, st, &d);
}

/* Group gi's shard names and sizes, stat-ed the first time, up to the
 * first that is not a plain name or a readable regular file (the bytes
 * before it can still be read). */
static const struct kgroup *group_sizes(const struct kctx *c, int gi)
{
    if (!c->sizes || gi < 0 || gi >= c->sizes->n)
        return NULL;
    struct kgroup *k = &c->sizes->g[gi];
    if (k->state)
        return k->state > 0 ? k : NULL;
    k->state = -1;
    const cJSON *paths = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(c->manifest, gi),
                                                          "paths");
    if (!cJSON_IsArray(paths))
        return NULL;
    int n = cJSON_GetArraySize(paths);
    k->path = xcalloc((size_t)n + 1, sizeof *k->path);
    k->size = xcalloc((size_t)n + 1, sizeof *k->size);
    for (const cJSON *p = paths->child; p; p = p->next) {
        struct stat st;
        int fd = cJSON_IsString(p) ? open_shard(c, p->valuestring, &st) : -1;
        if (fd < 0)
            break;
        close(fd);
        k->path[k->n] = p->valuestring;
        k->size[k->n++] = (int64_t)st.st_size;
    }
    k->state = 1;
    return k;
}

/* Reads need bytes at offset pos of group gi's byte stream into buf. */
static bool read_stream(const struct kctx *c, int gi, int64_t pos, unsigned char *buf,
                        int64_t need)
{
    if (c->shard_mem) {
        if (pos < 0 || (uint64_t)pos > c->shard_len || (uint64_t)need > c->shard_len - (uint64_t)pos)
            return false;
        memcpy(buf, c->shard_mem + pos, (size_t)need);
        return true;
    }
    const struct kgroup *k = group_sizes(c, gi);
    if (!k || pos < 0)
        return false;
    for (int i = 0; i < k->n && need > 0; i++) {
        if (pos >= k->size[i]) { /* not in this shard: skipped unopened */
            pos -= k->size[i];
            continue;
        }
        struct stat st;
        int fd = open_shard(c, k->path[i], &st);
        if (fd < 0)
            return false;
        int64_t take = k->size[i] - pos < need ? k->size[i] - pos : need;
        ssize_t got = pread(fd, buf, (size_t)take, (off_t)pos);
        close(fd);
        if (got != (ssize_t)take)
            return false;
        buf += take;
        need -= take;
        pos = 0;
    }
    return need == 0;
}

bool kshard_ints(const struct kctx *c, int wi, int64_t *out)
{
    const struct kweight *w = &c->w[wi];
    if ((!c->dir && !c->shard_mem) || !c->manifest || w->offset < 0 || w->dt != DT_INT32 || w->quantized ||
        w->n > KSHARD_MAX_INTS || w->nbytes != 4 * w->n)
        return false;
    unsigned char *buf = xmalloc((size_t)w->nbytes + 1);
    bool ok = read_stream(c, w->group, w->offset, buf, w->nbytes);
    for (int64_t i = 0; ok && i < w->n; i++) {
        const unsigned char *b = buf + 4 * i;
        uint32_t u = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                     (uint32_t)b[3] << 24;
        out[i] = (int64_t)(int32_t)u;
    }
    free(buf);
    return ok;
}

const char *kshard_name(const struct kctx *c, int wi)
{
    const cJSON *grp = cJSON_GetArrayItem(c->manifest, c->w[wi].group);
    const cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(grp, "paths"), 0);
    return cJSON_IsString(p) ? p->valuestring : "(none named)";
}
