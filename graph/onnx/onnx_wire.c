/*
 * onnx_wire.c - validating walk over the protobuf wire format of an ONNX
 * ModelProto that writes a compact copy without tensor payloads (see
 * onnx_impl.h for why and for the wire layout).
 *
 * The schema subset below mirrors graph/onnx/onnx.proto: a field listed here is
 * checked against its declared wire type and copied; any other field is
 * checked structurally (its length must fit) and dropped.
 */
#include "graph/onnx/onnx_impl.h"
#include "onnx.pb-c.h"

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- schema subset ------------------------------------------------------ */

enum kind { K_VARINT, K_FIXED32, K_FIXED64, K_BYTES, K_MSG };

enum msg {
    M_MODEL,
    M_GRAPH,
    M_NODE,
    M_ATTR,
    M_TENSOR,
    M_SPARSE,
    M_VALUEINFO,
    M_TYPE,
    M_TYPE_TENSOR,
    M_TYPE_SEQ,
    M_TYPE_MAP,
    M_SHAPE,
    M_DIM,
    M_OPSET,
    M__COUNT
};

struct fdesc {
    unsigned num;
    const char *name;
    unsigned char kind, sub, repeated;
};

static const struct fdesc f_model[] = {
    {1, "ir_version", K_VARINT, 0, 0},      {2, "producer_name", K_BYTES, 0, 0},
    {3, "producer_version", K_BYTES, 0, 0}, {7, "graph", K_MSG, M_GRAPH, 0},
    {8, "opset_import", K_MSG, M_OPSET, 1},
};
static const struct fdesc f_graph[] = {
    {1, "node", K_MSG, M_NODE, 1},
    {2, "name", K_BYTES, 0, 0},
    {5, "initializer", K_MSG, M_TENSOR, 1},
    {11, "input", K_MSG, M_VALUEINFO, 1},
    {12, "output", K_MSG, M_VALUEINFO, 1},
    {13, "value_info", K_MSG, M_VALUEINFO, 1},
    {15, "sparse_initializer", K_MSG, M_SPARSE, 1},
};
static const struct fdesc f_node[] = {
    {1, "input", K_BYTES, 0, 1},   {2, "output", K_BYTES, 0, 1},       {3, "name", K_BYTES, 0, 0},
    {4, "op_type", K_BYTES, 0, 0}, {5, "attribute", K_MSG, M_ATTR, 1}, {7, "domain", K_BYTES, 0, 0},
};
static const struct fdesc f_attr[] = {
    {1, "name", K_BYTES, 0, 0},
    {2, "f", K_FIXED32, 0, 0},
    {3, "i", K_VARINT, 0, 0},
    {4, "s", K_BYTES, 0, 0},
    {5, "t", K_MSG, M_TENSOR, 0},
    {6, "g", K_MSG, M_GRAPH, 0},
    {7, "floats", K_FIXED32, 0, 1},
    {8, "ints", K_VARINT, 0, 1},
    {9, "strings", K_BYTES, 0, 1},
    {10, "tensors", K_MSG, M_TENSOR, 1},
    {11, "graphs", K_MSG, M_GRAPH, 1},
    {20, "type", K_VARINT, 0, 0},
    {21, "ref_attr_name", K_BYTES, 0, 0},
};
static const struct fdesc f_tensor[] = {
    {1, "dims", K_VARINT, 0, 1},         {2, "data_type", K_VARINT, 0, 0},
    {4, "float_data", K_FIXED32, 0, 1},  {5, "int32_data", K_VARINT, 0, 1},
    {7, "int64_data", K_VARINT, 0, 1},   {8, "name", K_BYTES, 0, 0},
    {9, "raw_data", K_BYTES, 0, 0},      {10, "double_data", K_FIXED64, 0, 1},
    {11, "uint64_data", K_VARINT, 0, 1}, {14, "data_location", K_VARINT, 0, 0},
};
static const struct fdesc f_sparse[] = {
    {1, "values", K_MSG, M_TENSOR, 0},
    {2, "indices", K_MSG, M_TENSOR, 0},
    {3, "dims", K_VARINT, 0, 1},
};
static const struct fdesc f_valueinfo[] = {
    {1, "name", K_BYTES, 0, 0},
    {2, "type", K_MSG, M_TYPE, 0},
};
static const struct fdesc f_type[] = {
    {1, "tensor_type", K_MSG, M_TYPE_TENSOR, 0}, {4, "sequence_type", K_MSG, M_TYPE_SEQ, 0},
    {5, "map_type", K_MSG, M_TYPE_MAP, 0},       {8, "sparse_tensor_type", K_MSG, M_TYPE_TENSOR, 0},
    {9, "optional_type", K_MSG, M_TYPE_SEQ, 0},
};
static const struct fdesc f_type_tensor[] = {
    {1, "elem_type", K_VARINT, 0, 0},
    {2, "shape", K_MSG, M_SHAPE, 0},
};
static const struct fdesc f_type_seq[] = {{1, "elem_type", K_MSG, M_TYPE, 0}};
static const struct fdesc f_type_map[] = {
    {1, "key_type", K_VARINT, 0, 0},
    {2, "value_type", K_MSG, M_TYPE, 0},
};
static const struct fdesc f_shape[] = {{1, "dim", K_MSG, M_DIM, 1}};
static const struct fdesc f_dim[] = {
    {1, "dim_value", K_VARINT, 0, 0},
    {2, "dim_param", K_BYTES, 0, 0},
};
static const struct fdesc f_opset[] = {
    {1, "domain", K_BYTES, 0, 0},
    {2, "version", K_VARINT, 0, 0},
};

#define MSG(name, f)                                                                               \
    {                                                                                              \
        name, f, (int)(sizeof f / sizeof f[0])                                                     \
    }
static const struct mdesc {
    const char *name;
    const struct fdesc *f;
    int n;
} msgs[M__COUNT] = {
    [M_MODEL] = MSG("ModelProto", f_model),
    [M_GRAPH] = MSG("GraphProto", f_graph),
    [M_NODE] = MSG("NodeProto", f_node),
    [M_ATTR] = MSG("AttributeProto", f_attr),
    [M_TENSOR] = MSG("TensorProto", f_tensor),
    [M_SPARSE] = MSG("SparseTensorProto", f_sparse),
    [M_VALUEINFO] = MSG("ValueInfoProto", f_valueinfo),
    [M_TYPE] = MSG("TypeProto", f_type),
    [M_TYPE_TENSOR] = MSG("TypeProto.Tensor", f_type_tensor),
    [M_TYPE_SEQ] = MSG("TypeProto.Sequence", f_type_seq),
    [M_TYPE_MAP] = MSG("TypeProto.Map", f_type_map),
    [M_SHAPE] = MSG("TensorShapeProto", f_shape),
    [M_DIM] = MSG("TensorShapeProto.Dimension", f_dim),
    [M_OPSET] = MSG("OperatorSetIdProto", f_opset),
};
#undef MSG
_Static_assert(sizeof msgs / sizeof msgs[0] == M__COUNT, "message table");

#define MAX_FIELDS 16 /* most fields any message above lists */
#define MAX_NUM 32     /* field numbers above are below this */
#define MAX_MSG_REP 8  /* most repeated message fields any message lists */

/* ---- walk state --------------------------------------------------------- */

struct frame {
    const char *field;
    long idx; /* occurrence of a repeated field, -1 for singular */
};

struct wctx {
    const uint8_t *base;
    const char *name;
    struct diag *d;
    uint8_t *out;
    size_t n, cap;
    bool oom;
    size_t skipped;
    int n_sub;
    int depth;
    struct frame path[ONNX_MAX_DEPTH + 1];
    /* per message: field number -> index in its table + 1 (0: not listed) */
    unsigned char fidx[M__COUNT][MAX_NUM];
    /* per message and field index: counter slot + 1 of a repeated message
     * field (its occurrences name it in error paths), 0 otherwise */
    unsigned char rslot[M__COUNT][MAX_FIELDS];
};

/* Fills the field-number lookup tables (a few hundred stores per load). */
static void index_fields(struct wctx *c)
{
    memset(c->fidx, 0, sizeof c->fidx);
    memset(c->rslot, 0, sizeof c->rslot);
    for (int m = 0; m < M__COUNT; m++) {
        int nrep = 0;
        for (int i = 0; i < msgs[m].n; i++) {
            const struct fdesc *f = &msgs[m].f[i];
            if (f->num < MAX_NUM)
                c->fidx[m][f->num] = (unsigned char)(i + 1);
            if (f->repeated && f->kind == K_MSG)
                c->rslot[m][i] = (unsigned char)++nrep;
        }
    }
}

static enum status werr(struct wctx *c, const uint8_t *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static enum status werr(struct wctx *c, const uint8_t *at, const char *fmt, ...)
{
    char what[256], where[200] = "ModelProto";
    size_t len = strlen(where);
    for (int i = 0; i < c->depth && len < sizeof where - 1; i++) {
        int w = c->path[i].idx >= 0
                    ? snprintf(where + len, sizeof where - len, ".%s[%ld]", c->path[i].field,
                               c->path[i].idx)
                    : snprintf(where + len, sizeof where - len, ".%s", c->path[i].field);
        if (w < 0)
            break;
        len += (size_t)w;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return diag_set(c->d, ST_EPARSE, "%s: byte %zu (in %s): %s%s", c->name, (size_t)(at - c->base),
                    where, what, at == c->base ? " (is this an ONNX model file?)" : "");
}

/* 0 ok, -1 runs past end, -2 longer than 10 bytes. */
static int rd_varint_long(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
    const uint8_t *p = *pp;
    uint64_t r = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (p >= end)
            return -1;
        uint8_t b = *p++;
        r |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *pp = p;
            *v = r;
            return 0;
        }
    }
    return -2;
}

/* The same, inlined for the one-byte varints most keys, lengths and values
 * are. */
static inline int rd_varint(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
    const uint8_t *p = *pp;
    if (p < end && *p < 0x80) {
        *v = *p;
        *pp = p + 1;
        return 0;
    }
    return rd_varint_long(pp, end, v);
}

static bool reserve(struct wctx *c, size_t extra)
{
    if (c->oom)
        return false;
    if (c->n + extra <= c->cap)
        return true;
    size_t cap = c->cap ? c->cap : 4096;
    while (cap < c->n + extra) {
        if (cap > SIZE_MAX / 2) {
            c->oom = true;
            return false;
        }
        cap *= 2;
    }
    uint8_t *p = realloc(c->out, cap);
    if (!p) {
        c->oom = true;
        return false;
    }
    c->out = p;
    c->cap = cap;
    return true;
}

static void put_bytes(struct wctx *c, const uint8_t *p, size_t n)
{
    if (reserve(c, n)) {
        memcpy(c->out + c->n, p, n);
        c->n += n;
    }
}

static int enc_varint(uint64_t v, uint8_t *buf)
{
    int k = 0;
    do {
        buf[k++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
        v >>= 7;
    } while (v);
    return k;
}

static void put_varint(struct wctx *c, uint64_t v)
{
    uint8_t tmp[10];
    put_bytes(c, tmp, (size_t)enc_varint(v, tmp));
}

/* Inserts the length prefix for the submessage written since mark. */
static void insert_len(struct wctx *c, size_t mark)
{
    uint8_t tmp[10];
    size_t body = c->n - mark;
    int k = enc_varint(body, tmp);
    if (!reserve(c, (size_t)k))
        return;
    memmove(c->out + mark + k, c->out + mark, body);
    memcpy(c->out + mark, tmp, (size_t)k);
    c->n += (size_t)k;
}

/* ---- tensors ------------------------------------------------------------ */

int onnx_dtype_is_int(int32_t dt)
{
    /* INT8..INT64, BOOL, UINT32, UINT64, UINT8, UINT16 (TensorProto.DataType) */
    return (dt >= 2 && dt <= 7) || dt == 9 || dt == 12 || dt == 13;
}

static bool dtype_is_float_code(int32_t dt)
{
    return dt == 1 || dt == 10 || dt == 11 || dt == 16;
}

static bool is_payload_field(unsigned num)
{
    return num == 4 || num == 5 || num == 6 || num == 7 || num == 9 || num == 10 || num == 11;
}

/* Reads data_type and the element count of the TensorProto in [p, end) to
 * decide whether its payload is kept. Malformed bytes end the scan quietly:
 * the main walk reports them precisely. *max_bytes bounds a kept payload. */
static bool tensor_keep(const uint8_t *p, const uint8_t *end, uint64_t *max_bytes)
{
    int64_t dt = 0, n = 1;
    bool bad = false;
    while (p < end) {
        uint64_t key, v;
        if (rd_varint(&p, end, &key))
            break;
        unsigned wt = key & 7, num = (unsigned)(key >> 3);
        if (wt == 0) {
            if (rd_varint(&p, end, &v))
                break;
            if (num == 2)
                dt = (int64_t)v;
            if (num == 1) {
                if ((int64_t)v < 0 || (int64_t)v > ONNX_MAX_ELEMENTS)
                    bad = true;
                else if (n <= ONNX_MAX_ELEMENTS) /* saturate: n * v may overflow */
                    n = v && n > ONNX_MAX_ELEMENTS / (int64_t)v ? ONNX_MAX_ELEMENTS + 1
                                                                : n * (int64_t)v;
            }
        } else if (wt == 2) {
            if (rd_varint(&p, end, &v) || v > (uint64_t)(end - p))
                break;
            const uint8_t *q = p, *qe = p + v;
            p = qe;
            while (num == 1 && q < qe) { /* packed dims */
                uint64_t dv;
                if (rd_varint(&q, qe, &dv))
                    break;
                if ((int64_t)dv < 0 || (int64_t)dv > ONNX_MAX_ELEMENTS)
                    bad = true;
                else if (n <= ONNX_MAX_ELEMENTS) /* saturate: n * dv may overflow */
                    n = dv && n > ONNX_MAX_ELEMENTS / (int64_t)dv ? ONNX_MAX_ELEMENTS + 1
                                                                  : n * (int64_t)dv;
            }
        } else if (wt == 1 || wt == 5) {
            size_t k = wt == 1 ? 8 : 4;
            if ((size_t)(end - p) < k)
                break;
            p += k;
        } else {
            break;
        }
    }
    if (bad || n > ONNX_MAX_ELEMENTS)
        return false;
    *max_bytes = (uint64_t)n * 16 + 16;
    return (onnx_dtype_is_int((int32_t)dt) && n <= ONNX_KEEP_INT_MAX) ||
           (dtype_is_float_code((int32_t)dt) && n <= ONNX_KEEP_FLOAT_MAX);
}

/* ---- the walk ----------------------------------------------------------- */

static const char *const wt_names[8] = {"varint",    "64-bit", "length-delimited", "group start",
                                        "group end", "32-bit", "invalid (6)",      "invalid (7)"};

static unsigned kind_wt(unsigned kind)
{
    return kind == K_VARINT ? 0 : kind == K_FIXED64 ? 1 : kind == K_FIXED32 ? 5 : 2;
}

/* The packed value [p, end) of field f: NULL if well formed, else where it
 * goes wrong (p for a length that is no multiple of the element size, the
 * start of a varint that runs past the end). */
static const uint8_t *packed_fault(const struct fdesc *f, const uint8_t *p, const uint8_t *end)
{
    if ((f->kind == K_FIXED32 && (end - p) % 4) || (f->kind == K_FIXED64 && (end - p) % 8))
        return p;
    while (f->kind == K_VARINT && p < end) {
        uint64_t v;
        const uint8_t *at = p;
        if (rd_varint(&p, end, &v))
            return at;
    }
    return NULL;
}

static enum status check_packed(struct wctx *c, const struct fdesc *f, const uint8_t *p,
                                const uint8_t *end)
{
    const uint8_t *at = packed_fault(f, p, end);
    if (!at)
        return ST_OK;
    if (f->kind == K_VARINT)
        return werr(c, at, "packed field '%s': varint runs past the field's end", f->name);
    return werr(c, p, "packed field '%s' holds %td bytes, not a multiple of %d", f->name,
                end - p, f->kind == K_FIXED32 ? 4 : 8);
}

/* "GraphProto.node (field 1)" or "GraphProto field 99", for messages. */
static const char *fld(char buf[static 80], const struct mdesc *m, const struct fdesc *f,
                       uint64_t num)
{
    if (f)
        snprintf(buf, 80, "%s.%s (field %u)", m->name, f->name, f->num);
    else
        snprintf(buf, 80, "%s field %llu", m->name, (unsigned long long)num);
    return buf;
}

static enum status walk(struct wctx *c, const uint8_t *p, const uint8_t *end, int msg, bool emit)
{
    const struct mdesc *m = &msgs[msg];
    long counts[MAX_MSG_REP] = {0}; /* occurrences of repeated message fields */
    uint64_t max_payload = 0;
    bool keep_payload = msg != M_TENSOR || tensor_keep(p, end, &max_payload);

    while (p < end) {
        const uint8_t *fstart = p, *vstart;
        uint64_t key, v = 0;
        int r = rd_varint(&p, end, &key);
        if (r)
            return werr(c, fstart,
                        r == -1 ? "truncated: field key runs past the end of %s"
                                : "malformed field key in %s (varint over 10 bytes)",
                        m->name);
        unsigned wt = key & 7;
        uint64_t num = key >> 3;
        if (num == 0 || num > 536870911u)
            return werr(c, fstart, "invalid field number %llu in %s", (unsigned long long)num,
                        m->name);
        int fi = num < MAX_NUM ? c->fidx[msg][num] - 1 : -1;
        const struct fdesc *f = fi >= 0 ? &m->f[fi] : NULL;
        char fname[80]; /* formatted only for a message */

        vstart = p;
        switch (wt) {
        case 0:
            r = rd_varint(&p, end, &v);
            if (r)
                return werr(c, vstart,
                            r == -1 ? "truncated: varint of %s runs past the end"
                                    : "malformed varint in %s (over 10 bytes)",
                            fld(fname, m, f, num));
            break;
        case 1:
        case 5: {
            size_t k = wt == 1 ? 8 : 4;
            if ((size_t)(end - p) < k)
                return werr(c, vstart, "truncated: %s needs %zu bytes, %td left",
                            fld(fname, m, f, num), k, end - p);
            p += k;
            break;
        }
        case 2:
            r = rd_varint(&p, end, &v);
            if (r)
                return werr(c, vstart, "truncated: length of %s runs past the end",
                            fld(fname, m, f, num));
            if (v > (uint64_t)(end - p))
                return werr(c, fstart,
                            "%s declares %llu bytes but only %td remain in the enclosing %s "
                            "(truncated or corrupt file)",
                            fld(fname, m, f, num), (unsigned long long)v, end - p, m->name);
            vstart = p;
            p += v;
            break;
        default:
            return werr(c, fstart, "%s has wire type %u (%s), which ONNX never uses",
                        fld(fname, m, f, num), wt, wt_names[wt]);
        }
        if (!f)
            continue; /* validated; not needed */

        bool packed = wt == 2 && f->repeated && f->kind != K_BYTES && f->kind != K_MSG;
        if (wt != kind_wt(f->kind) && !packed)
            return werr(c, fstart, "%s has wire type %u (%s), expected %s", fld(fname, m, f, num),
                        wt, wt_names[wt], wt_names[kind_wt(f->kind)]);
        if (packed) {
            enum status st = check_packed(c, f, vstart, p);
            if (st)
                return st;
        }
        int slot = c->rslot[msg][fi];
        long idx = slot ? counts[slot - 1]++ : -1;

        if (f->kind == K_MSG) {
            if (c->depth >= ONNX_MAX_DEPTH)
                return werr(c, fstart, "messages nested deeper than %d levels", ONNX_MAX_DEPTH);
            size_t mark = 0;
            if (emit) {
                put_varint(c, key);
                mark = c->n;
                c->n_sub += msg == M_ATTR && (num == 6 || num == 11);
            }
            c->path[c->depth].field = f->name;
            c->path[c->depth].idx = idx;
            c->depth++;
            enum status st = walk(c, vstart, p, f->sub, emit);
            c->depth--;
            if (st)
                return st;
            if (emit)
                insert_len(c, mark);
        } else if (emit) {
            if (msg == M_TENSOR && is_payload_field(f->num)) {
                if (!keep_payload) {
                    c->skipped += (size_t)(p - vstart);
                    continue;
                }
                if ((uint64_t)(p - vstart) > max_payload)
                    return werr(c, vstart,
                                "%s holds %td bytes, more than the tensor's dims "
                                "allow",
                                fld(fname, m, f, num), p - vstart);
            }
            put_bytes(c, fstart, (size_t)(p - fstart));
        }
        if (c->oom)
            return diag_set(c->d, ST_ENOMEM, "%s: out of memory while reading the model", c->name);
    }
    return ST_OK;
}

enum status onnx_wire_compact(const uint8_t *buf, size_t len, const char *name,
                              struct onnx_compact *out, struct diag *d)
{
    memset(out, 0, sizeof *out);
    if (len == 0)
        return diag_set(d, ST_EPARSE, "%s: empty file (0 bytes), not an ONNX model", name);
    struct wctx c = {.base = buf, .name = name, .d = d};
    index_fields(&c);
    enum status st = walk(&c, buf, buf + len, M_MODEL, true);
    if (!st && c.oom)
        st = diag_set(d, ST_ENOMEM, "%s: out of memory while reading the model", name);
    if (st) {
        free(c.out);
        return st;
    }
    out->buf = c.out;
    out->len = c.n;
    out->skipped_payload = c.skipped;
    out->n_subgraphs = c.n_sub;
    return ST_OK;
}

/* ---- decoding the compact copy ------------------------------------------ */

/* The compact copy holds only fields the walk checked, so this decoder
 * needs no error paths of its own; it fills protobuf-c's structures exactly
 * as protobuf_c_message_unpack does (initialised by the descriptor, later
 * singular values replacing earlier ones, a oneof keeping its last member,
 * bytes of length 0 as a NULL pointer), in one pass with arrays that grow
 * in the pool. Two things protobuf-c does differently are left to it: a
 * singular submessage given twice (protobuf-c merges the two) and a key or
 * length prefix over 5 bytes (protobuf-c refuses it). */

struct dctx {
    ProtobufCAllocator *a;
    bool fallback, oom;
    /* direct: decoding the file itself, not a compact copy; every check of
     * the walk is made here too, and any doubt sets fallback (the caller
     * then takes the walk's path, which reports errors precisely) */
    bool direct;
    int depth;
    const struct wctx *w; /* direct: the field-number tables */
};

static void *dalloc(struct dctx *c, size_t n)
{
    void *p = c->a->alloc(c->a->allocator_data, n ? n : 1);
    if (!p)
        c->oom = true;
    return p;
}

static size_t elt_size(ProtobufCType t)
{
    switch (t) {
    case PROTOBUF_C_TYPE_INT32:
    case PROTOBUF_C_TYPE_ENUM:
    case PROTOBUF_C_TYPE_FLOAT:
        return 4;
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_DOUBLE:
        return 8;
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_MESSAGE:
        return sizeof(void *);
    case PROTOBUF_C_TYPE_BYTES:
        return sizeof(ProtobufCBinaryData);
    default:
        return 0; /* not in onnx.proto's subset */
    }
}

static const ProtobufCFieldDescriptor *dfield(const ProtobufCMessageDescriptor *d, uint64_t tag,
                                              unsigned *hint)
{
    for (unsigned k = 0; k < 2 && *hint + k < d->n_fields; k++)
        if (d->fields[*hint + k].id == tag)
            return &d->fields[*hint += k];
    for (unsigned i = 0; i < d->n_fields; i++)
        if (d->fields[i].id == tag)
            return &d->fields[*hint = i];
    return NULL;
}

static void *decode_msg(struct dctx *c, const ProtobufCMessageDescriptor *d, int msg,
                        const uint8_t *p, const uint8_t *end);

/* Stores one value (wire bytes [p, end), end only for length-delimited)
 * of field f into *slot. */
static void decode_value(struct dctx *c, const ProtobufCFieldDescriptor *f, int sub, void *slot,
                         uint64_t v, const uint8_t *p, const uint8_t *end)
{
    switch (f->type) {
    case PROTOBUF_C_TYPE_INT32:
    case PROTOBUF_C_TYPE_ENUM:
        *(int32_t *)slot = (int32_t)(uint32_t)v;
        break;
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FLOAT:
    case PROTOBUF_C_TYPE_DOUBLE:
        if (f->type == PROTOBUF_C_TYPE_FLOAT) {
            uint32_t u = (uint32_t)v;
            memcpy(slot, &u, 4);
        } else {
            memcpy(slot, &v, 8);
        }
        break;
    case PROTOBUF_C_TYPE_STRING: {
        size_t n = (size_t)(end - p);
        char *s = dalloc(c, n + 1);
        if (s) {
            memcpy(s, p, n);
            s[n] = '\0';
        }
        *(char **)slot = s;
        break;
    }
    case PROTOBUF_C_TYPE_BYTES: {
        ProtobufCBinaryData *bd = slot;
        bd->len = (size_t)(end - p);
        bd->data = bd->len ? dalloc(c, bd->len) : NULL;
        if (bd->data)
            memcpy(bd->data, p, bd->len);
        break;
    }
    case PROTOBUF_C_TYPE_MESSAGE:
        if (c->direct && c->depth >= ONNX_MAX_DEPTH) {
            c->fallback = true;
            break;
        }
        c->depth++;
        *(void **)slot = decode_msg(c, f->descriptor, sub, p, end);
        c->depth--;
        break;
    default:
        c->fallback = true;
        break;
    }
}

static uint64_t le_bytes(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* Appends the value (or, packed, the values) of repeated field f to m's
 * array, growing it to twice its size when full. */
static void append(struct dctx *c, const ProtobufCFieldDescriptor *f, int sub, ProtobufCMessage *m,
                   size_t *cap, unsigned wt, uint64_t v, const uint8_t *p, const uint8_t *end)
{
    size_t *n = (size_t *)((char *)m + f->quantifier_offset);
    char **arr = (char **)((char *)m + f->offset);
    size_t es = elt_size(f->type);
    int fixed = f->type == PROTOBUF_C_TYPE_FLOAT ? 4 : f->type == PROTOBUF_C_TYPE_DOUBLE ? 8 : 0;
    bool packed = wt == 2 && f->type != PROTOBUF_C_TYPE_STRING &&
                  f->type != PROTOBUF_C_TYPE_BYTES && f->type != PROTOBUF_C_TYPE_MESSAGE;
    size_t k = 1;
    if (packed && fixed) {
        k = (size_t)(end - p) / (size_t)fixed;
    } else if (packed) {
        k = 0;
        for (const uint8_t *q = p; q < end; q++)
            k += !(*q & 0x80);
    }
    if (*n + k > *cap) {
        size_t nc = *cap ? *cap * 2 : 4;
        if (nc < *n + k)
            nc = *n + k;
        char *na = dalloc(c, nc * es);
        if (!na)
            return;
        if (*n)
            memcpy(na, *arr, *n * es);
        *arr = na;
        *cap = nc;
    }
    if (!packed) {
        decode_value(c, f, sub, *arr + *n * es, v, p, end);
        ++*n;
        return;
    }
    while (p < end) {
        uint64_t x;
        if (fixed) {
            x = le_bytes(p, fixed);
            p += fixed;
        } else if (rd_varint(&p, end, &x)) {
            c->fallback = true; /* the walk checked it: cannot happen */
            return;
        }
        decode_value(c, f, sub, *arr + *n * es, x, NULL, NULL);
        ++*n;
    }
}

/* Reads one field at *pp: its key, and its value as a number (v) or as the
 * bytes [*vs, *ve). false where protobuf-c would refuse it (see above). */
static bool read_field(const uint8_t **pp, const uint8_t *end, uint64_t *key, uint64_t *v,
                       const uint8_t **vs, const uint8_t **ve)
{
    const uint8_t *p = *pp, *at = p;
    if (rd_varint(&p, end, key) || p - at > 5)
        return false;
    unsigned wt = *key & 7;
    *v = 0;
    if (wt == 0) {
        if (rd_varint(&p, end, v))
            return false;
    } else if ((wt == 1 || wt == 5) && end - p >= (wt == 1 ? 8 : 4)) {
        *v = le_bytes(p, wt == 1 ? 8 : 4);
        p += wt == 1 ? 8 : 4;
    } else if (wt == 2) {
        at = p;
        if (rd_varint(&p, end, v) || p - at > 5 || *v > INT_MAX || *v > (uint64_t)(end - p))
            return false;
        *vs = p;
        p += *v;
        *ve = p;
    } else {
        return false;
    }
    *pp = p;
    return true;
}

/* Direct mode: what the walk would do with field key of message msg whose
 * value is [vs, ve) (NULL for numbers). 1: decode it (*sub: its message
 * index), 0: leave it out as the walk does, -1: the walk would refuse it or
 * needs a closer look. */
static int direct_check(const struct dctx *c, int msg, uint64_t key, const uint8_t *vs,
                        const uint8_t *ve, bool keep, uint64_t max_payload, int *sub)
{
    uint64_t num = key >> 3;
    unsigned wt = key & 7;
    if (num == 0 || num > 536870911u)
        return -1;
    int fi = num < MAX_NUM ? c->w->fidx[msg][num] - 1 : -1;
    if (fi < 0)
        return 0;
    const struct fdesc *f = &msgs[msg].f[fi];
    bool packed = wt == 2 && f->repeated && f->kind != K_BYTES && f->kind != K_MSG;
    if (wt != kind_wt(f->kind) && !packed)
        return -1;
    if (packed && packed_fault(f, vs, ve))
        return -1;
    if (msg == M_TENSOR && is_payload_field(f->num)) {
        if (!keep)
            return 0;
        if (vs && (uint64_t)(ve - vs) > max_payload)
            return -1;
    }
    *sub = f->sub;
    return 1;
}

static void *decode_msg(struct dctx *c, const ProtobufCMessageDescriptor *d, int msg,
                        const uint8_t *p, const uint8_t *end)
{
    if (d->n_fields > MAX_FIELDS) {
        c->fallback = true;
        return NULL;
    }
    ProtobufCMessage *m = dalloc(c, d->sizeof_message);
    if (!m)
        return NULL;
    protobuf_c_message_init(d, m);
    size_t cap[MAX_FIELDS] = {0};
    unsigned hint = 0;
    uint64_t max_payload = 0;
    bool keep = !c->direct || msg != M_TENSOR || tensor_keep(p, end, &max_payload);
    while (p < end && !c->fallback && !c->oom) {
        uint64_t key, v;
        const uint8_t *vs = NULL, *ve = NULL;
        int sub = -1;
        if (!read_field(&p, end, &key, &v, &vs, &ve)) {
            c->fallback = true;
            break;
        }
        if (c->direct) {
            int r = direct_check(c, msg, key, vs, ve, keep, max_payload, &sub);
            if (r < 0)
                c->fallback = true;
            if (r <= 0)
                continue;
        }
        const ProtobufCFieldDescriptor *f = dfield(d, key >> 3, &hint);
        if (!f)
            continue; /* protobuf-c keeps it as an unknown field; nothing reads those */
        void *member = (char *)m + f->offset;
        if (f->label == PROTOBUF_C_LABEL_REPEATED) {
            append(c, f, sub, m, &cap[f - d->fields], (unsigned)(key & 7), v, vs, ve);
        } else if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
            uint32_t *which = (uint32_t *)((char *)m + f->quantifier_offset);
            if (*which) /* a later member replaces the earlier one, unmerged */
                memset(member, 0, elt_size(f->type));
            decode_value(c, f, sub, member, v, vs, ve);
            *which = f->id;
        } else if (f->type == PROTOBUF_C_TYPE_MESSAGE && *(void **)member) {
            c->fallback = true; /* given twice: protobuf-c merges the two */
        } else {
            decode_value(c, f, sub, member, v, vs, ve);
            if (f->quantifier_offset)
                *(protobuf_c_boolean *)((char *)m + f->quantifier_offset) = 1;
        }
    }
    return m;
}

Onnx__ModelProto *onnx_wire_unpack(const uint8_t *buf, size_t len, ProtobufCAllocator *alloc,
                                   bool *fallback)
{
    struct dctx c = {.a = alloc};
    void *m = decode_msg(&c, &onnx__model_proto__descriptor, M_MODEL, buf, buf + len);
    *fallback = c.fallback;
    return c.fallback || c.oom ? NULL : m;
}

Onnx__ModelProto *onnx_wire_unpack_direct(const uint8_t *buf, size_t len,
                                          ProtobufCAllocator *alloc)
{
    if (len == 0)
        return NULL;
    struct wctx *w = malloc(sizeof *w);
    if (!w)
        return NULL;
    index_fields(w);
    struct dctx c = {.a = alloc, .direct = true, .w = w};
    void *m = decode_msg(&c, &onnx__model_proto__descriptor, M_MODEL, buf, buf + len);
    free(w);
    return c.fallback || c.oom ? NULL : m;
}
