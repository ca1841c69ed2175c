/*
 * onnx_wire.c - the ONNX reader's decoder: one pass over the protobuf wire
 * format of a ModelProto, straight from the mapped file into protobuf-c's
 * structures, validating as it goes and leaving tensor payloads out (see
 * onnx_impl.h for why and for the wire layout).
 *
 * The schema is onnx.proto's, read from the descriptors protobuf-c
 * generated from it: a field listed there is checked against its declared
 * wire type and decoded; any other field is checked structurally (its
 * length must fit) and dropped.
 */
#include "graph/onnx/onnx_impl.h"
#include "onnx.pb-c.h"

#include <assert.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- schema ------------------------------------------------------------- */

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
    M_TYPE_OPT,
    M_SHAPE,
    M_DIM,
    M_OPSET,
    M__COUNT
};

static const ProtobufCMessageDescriptor *const descs[M__COUNT] = {
    [M_MODEL] = &onnx__model_proto__descriptor,
    [M_GRAPH] = &onnx__graph_proto__descriptor,
    [M_NODE] = &onnx__node_proto__descriptor,
    [M_ATTR] = &onnx__attribute_proto__descriptor,
    [M_TENSOR] = &onnx__tensor_proto__descriptor,
    [M_SPARSE] = &onnx__sparse_tensor_proto__descriptor,
    [M_VALUEINFO] = &onnx__value_info_proto__descriptor,
    [M_TYPE] = &onnx__type_proto__descriptor,
    [M_TYPE_TENSOR] = &onnx__type_proto__tensor__descriptor,
    [M_TYPE_SEQ] = &onnx__type_proto__sequence__descriptor,
    [M_TYPE_MAP] = &onnx__type_proto__map__descriptor,
    [M_TYPE_OPT] = &onnx__type_proto__optional__descriptor,
    [M_SHAPE] = &onnx__tensor_shape_proto__descriptor,
    [M_DIM] = &onnx__tensor_shape_proto__dimension__descriptor,
    [M_OPSET] = &onnx__operator_set_id_proto__descriptor,
};

#define MAX_FIELDS 16 /* most fields any message of onnx.proto has */
#define MAX_NUM 32    /* field numbers of onnx.proto are below this */

/* Lookup tables built from the descriptors for one load (a few hundred
 * stores): field number -> index in the descriptor's fields + 1 (0: not in
 * the schema), and a message field's message. */
struct schema {
    unsigned char fidx[M__COUNT][MAX_NUM];
    unsigned char sub[M__COUNT][MAX_FIELDS];
};

static int msg_index(const ProtobufCMessageDescriptor *d)
{
    for (int m = 0; m < M__COUNT; m++)
        if (descs[m] == d)
            return m;
    assert(!"onnx.proto message missing from descs");
    return 0;
}

static void index_schema(struct schema *s)
{
    memset(s, 0, sizeof *s);
    for (int m = 0; m < M__COUNT; m++) {
        assert(descs[m]->n_fields <= MAX_FIELDS);
        for (unsigned i = 0; i < descs[m]->n_fields; i++) {
            const ProtobufCFieldDescriptor *f = &descs[m]->fields[i];
            assert(f->id < MAX_NUM);
            s->fidx[m][f->id] = (unsigned char)(i + 1);
            if (f->type == PROTOBUF_C_TYPE_MESSAGE)
                s->sub[m][i] = (unsigned char)msg_index(f->descriptor);
        }
    }
}

/* "TypeProto.Tensor" for "onnx.TypeProto.Tensor". */
static const char *msg_name(int msg)
{
    return descs[msg]->name + sizeof "onnx." - 1;
}

/* The wire type a field's type is written with unpacked. */
static unsigned field_wt(const ProtobufCFieldDescriptor *f)
{
    switch (f->type) {
    case PROTOBUF_C_TYPE_FLOAT:
        return 5;
    case PROTOBUF_C_TYPE_DOUBLE:
        return 1;
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_BYTES:
    case PROTOBUF_C_TYPE_MESSAGE:
        return 2;
    default:
        return 0; /* int32, int64, uint64, enum */
    }
}

/* ---- decoder state ------------------------------------------------------ */

struct frame {
    const char *field;
    long idx; /* occurrence of a repeated field, -1 for singular */
};

struct ctx {
    const uint8_t *base;
    const char *name;
    struct diag *d;
    ProtobufCAllocator *a;
    enum status st; /* the first error; decoding stops there */
    int depth;
    struct frame path[ONNX_MAX_DEPTH + 1];
    struct schema s;
};

static enum status werr(struct ctx *c, const uint8_t *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Reports a malformed file: the byte offset of at and the field path. */
static enum status werr(struct ctx *c, const uint8_t *at, const char *fmt, ...)
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
    return c->st = diag_set(c->d, ST_EPARSE, "%s: byte %zu (in %s): %s%s", c->name,
                            (size_t)(at - c->base), where, what,
                            at == c->base ? " (is this an ONNX model file?)" : "");
}

static void *dalloc(struct ctx *c, size_t n)
{
    void *p = c->a->alloc(c->a->allocator_data, n ? n : 1);
    if (!p && !c->st)
        c->st = diag_set(c->d, ST_ENOMEM, "%s: out of memory while reading the model", c->name);
    return p;
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
 * the decoder reports them precisely. *max_bytes bounds a kept payload. */
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

/* ---- fields ------------------------------------------------------------- */

static const char *const wt_names[8] = {"varint",    "64-bit", "length-delimited", "group start",
                                        "group end", "32-bit", "invalid (6)",      "invalid (7)"};

/* "GraphProto.node (field 1)" or "GraphProto field 99", for messages. */
static const char *fld(char buf[static 80], int msg, const ProtobufCFieldDescriptor *f,
                       uint64_t num)
{
    if (f)
        snprintf(buf, 80, "%s.%s (field %u)", msg_name(msg), f->name, f->id);
    else
        snprintf(buf, 80, "%s field %llu", msg_name(msg), (unsigned long long)num);
    return buf;
}

/* Checks the packed value [p, end) of field f: a length that is a multiple
 * of the element size, or varints that end inside it. */
static enum status check_packed(struct ctx *c, const ProtobufCFieldDescriptor *f, const uint8_t *p,
                                const uint8_t *end)
{
    unsigned wt = field_wt(f);
    if ((wt == 5 && (end - p) % 4) || (wt == 1 && (end - p) % 8))
        return werr(c, p, "packed field '%s' holds %td bytes, not a multiple of %d", f->name,
                    end - p, wt == 5 ? 4 : 8);
    while (wt == 0 && p < end) {
        uint64_t v;
        const uint8_t *at = p;
        if (rd_varint(&p, end, &v))
            return werr(c, at, "packed field '%s': varint runs past the field's end", f->name);
    }
    return ST_OK;
}

static uint64_t le_bytes(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* Reads and checks the value at *pp of the field whose key (at fstart) is
 * key: its bytes [*vs, *ve) (those of a string, bytes or message after the
 * length) and, for wire types 0, 1 and 5, its number *v. */
static enum status read_value(struct ctx *c, int msg, const ProtobufCFieldDescriptor *f,
                              uint64_t key, const uint8_t *fstart, const uint8_t **pp,
                              const uint8_t *end, uint64_t *v, const uint8_t **vs,
                              const uint8_t **ve)
{
    const uint8_t *p = *vs = *pp;
    unsigned wt = key & 7;
    char fname[80];
    *v = 0;
    switch (wt) {
    case 0: {
        int r = rd_varint(&p, end, v);
        if (r)
            return werr(c, *vs,
                        r == -1 ? "truncated: varint of %s runs past the end"
                                : "malformed varint in %s (over 10 bytes)",
                        fld(fname, msg, f, key >> 3));
        break;
    }
    case 1:
    case 5: {
        int k = wt == 1 ? 8 : 4;
        if (end - p < k)
            return werr(c, *vs, "truncated: %s needs %d bytes, %td left",
                        fld(fname, msg, f, key >> 3), k, end - p);
        *v = le_bytes(p, k);
        p += k;
        break;
    }
    case 2:
        if (rd_varint(&p, end, v))
            return werr(c, *vs, "truncated: length of %s runs past the end",
                        fld(fname, msg, f, key >> 3));
        if (*v > (uint64_t)(end - p))
            return werr(c, fstart,
                        "%s declares %llu bytes but only %td remain in the enclosing %s "
                        "(truncated or corrupt file)",
                        fld(fname, msg, f, key >> 3), (unsigned long long)*v, end - p,
                        msg_name(msg));
        *vs = p;
        p += *v;
        break;
    default:
        return werr(c, fstart, "%s has wire type %u (%s), which ONNX never uses",
                    fld(fname, msg, f, key >> 3), wt, wt_names[wt]);
    }
    *pp = *ve = p;
    return ST_OK;
}

/* Reads the field at *pp of message msg: its key, and its value as a
 * number (*v) or as the bytes [*vs, *ve). Returns its descriptor; NULL for
 * a field not in the schema (checked, to be left out) or on error (c->st). */
static const ProtobufCFieldDescriptor *read_field(struct ctx *c, int msg, const uint8_t **pp,
                                                  const uint8_t *end, uint64_t *key, uint64_t *v,
                                                  const uint8_t **vs, const uint8_t **ve)
{
    const uint8_t *fstart = *pp, *p = *pp;
    int r = rd_varint(&p, end, key);
    if (r) {
        werr(c, fstart,
             r == -1 ? "truncated: field key runs past the end of %s"
                     : "malformed field key in %s (varint over 10 bytes)",
             msg_name(msg));
        return NULL;
    }
    uint64_t num = *key >> 3;
    unsigned wt = *key & 7;
    if (num == 0 || num > 536870911u) {
        werr(c, fstart, "invalid field number %llu in %s", (unsigned long long)num, msg_name(msg));
        return NULL;
    }
    int fi = num < MAX_NUM ? c->s.fidx[msg][num] - 1 : -1;
    const ProtobufCFieldDescriptor *f = fi >= 0 ? &descs[msg]->fields[fi] : NULL;
    *pp = p;
    if (read_value(c, msg, f, *key, fstart, pp, end, v, vs, ve) || !f)
        return NULL;
    bool packed = wt == 2 && f->label == PROTOBUF_C_LABEL_REPEATED && field_wt(f) != 2;
    char fname[80];
    if (wt != field_wt(f) && !packed) {
        werr(c, fstart, "%s has wire type %u (%s), expected %s", fld(fname, msg, f, num), wt,
             wt_names[wt], wt_names[field_wt(f)]);
        return NULL;
    }
    if (packed && check_packed(c, f, *vs, *ve))
        return NULL;
    return f;
}

/* ---- values ------------------------------------------------------------- */

static size_t elt_size(ProtobufCType t)
{
    switch (t) {
    case PROTOBUF_C_TYPE_INT32:
    case PROTOBUF_C_TYPE_ENUM:
    case PROTOBUF_C_TYPE_FLOAT:
        return 4;
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_MESSAGE:
        return sizeof(void *);
    case PROTOBUF_C_TYPE_BYTES:
        return sizeof(ProtobufCBinaryData);
    default:
        return 8; /* int64, uint64, double: the rest of onnx.proto */
    }
}

static ProtobufCMessage *decode_msg(struct ctx *c, int msg, const uint8_t *p, const uint8_t *end,
                                    ProtobufCMessage *m);

/* Stores one value of field f of message msg (the number v, or the bytes
 * [p, end) of a string, bytes or message) into *slot, as protobuf-c's
 * unpack does: bytes of length 0 as a NULL pointer, a message already
 * there merged with the new one. fstart and idx place a message in errors. */
static void decode_value(struct ctx *c, int msg, const ProtobufCFieldDescriptor *f, void *slot,
                         uint64_t v, const uint8_t *p, const uint8_t *end, const uint8_t *fstart,
                         long idx)
{
    size_t n = (size_t)(end - p);
    switch (f->type) {
    case PROTOBUF_C_TYPE_INT32:
    case PROTOBUF_C_TYPE_ENUM:
    case PROTOBUF_C_TYPE_FLOAT: {
        uint32_t u = (uint32_t)v;
        memcpy(slot, &u, 4);
        break;
    }
    case PROTOBUF_C_TYPE_STRING: {
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
        bd->len = n;
        bd->data = n ? dalloc(c, n) : NULL;
        if (bd->data)
            memcpy(bd->data, p, n);
        break;
    }
    case PROTOBUF_C_TYPE_MESSAGE:
        if (c->depth >= ONNX_MAX_DEPTH) {
            werr(c, fstart, "messages nested deeper than %d levels", ONNX_MAX_DEPTH);
            break;
        }
        c->path[c->depth++] = (struct frame){f->name, idx};
        *(void **)slot =
            decode_msg(c, c->s.sub[msg][f - descs[msg]->fields], p, end, *(void **)slot);
        c->depth--;
        break;
    default:
        memcpy(slot, &v, 8);
        break;
    }
}

/* Appends the value (or, packed, the values) of repeated field f to m's
 * array, growing it to twice its size when full (*cap 0: the array is as
 * decoded before, in a message given twice). */
static void append(struct ctx *c, int msg, const ProtobufCFieldDescriptor *f, ProtobufCMessage *m,
                   size_t *cap, unsigned wt, uint64_t v, const uint8_t *p, const uint8_t *end,
                   const uint8_t *fstart)
{
    size_t *n = (size_t *)((char *)m + f->quantifier_offset);
    char **arr = (char **)((char *)m + f->offset);
    size_t es = elt_size(f->type);
    unsigned fwt = field_wt(f);
    bool packed = wt == 2 && fwt != 2;
    size_t k = 1;
    if (packed && fwt != 0) {
        k = (size_t)(end - p) / (fwt == 5 ? 4 : 8);
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
        memset(*arr + *n * es, 0, es);
        decode_value(c, msg, f, *arr + *n * es, v, p, end, fstart, (long)*n);
        ++*n;
        return;
    }
    while (p < end) {
        uint64_t x = 0;
        if (fwt != 0) {
            x = le_bytes(p, fwt == 5 ? 4 : 8);
            p += fwt == 5 ? 4 : 8;
        } else {
            rd_varint(&p, end, &x); /* read_field checked it */
        }
        decode_value(c, msg, f, *arr + *n * es, x, NULL, NULL, NULL, -1);
        ++*n;
    }
}

/* Decodes message msg from [p, end) into m (NULL: a new one), as
 * protobuf-c's unpack would: later singular values replace earlier ones, a
 * oneof keeps its last member, a singular message given twice is merged.
 * Tensor payloads are left out unless tensor_keep keeps them. */
static ProtobufCMessage *decode_msg(struct ctx *c, int msg, const uint8_t *p, const uint8_t *end,
                                    ProtobufCMessage *m)
{
    const ProtobufCMessageDescriptor *d = descs[msg];
    if (!m && (m = dalloc(c, d->sizeof_message)))
        protobuf_c_message_init(d, m);
    size_t cap[MAX_FIELDS] = {0};
    uint64_t max_payload = 0;
    bool keep = msg != M_TENSOR || tensor_keep(p, end, &max_payload);
    while (p < end && !c->st) {
        const uint8_t *fstart = p, *vs = NULL, *ve = NULL;
        uint64_t key, v;
        const ProtobufCFieldDescriptor *f = read_field(c, msg, &p, end, &key, &v, &vs, &ve);
        if (!f)
            continue; /* left out, or c->st set */
        if (msg == M_TENSOR && is_payload_field(f->id)) {
            if (!keep)
                continue;
            char fname[80];
            if ((uint64_t)(ve - vs) > max_payload) {
                werr(c, vs, "%s holds %td bytes, more than the tensor's dims allow",
                     fld(fname, msg, f, f->id), ve - vs);
                break;
            }
        }
        void *member = (char *)m + f->offset;
        if (f->label == PROTOBUF_C_LABEL_REPEATED) {
            append(c, msg, f, m, &cap[f - d->fields], (unsigned)(key & 7), v, vs, ve, fstart);
        } else if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
            uint32_t *which = (uint32_t *)((char *)m + f->quantifier_offset);
            if (*which) /* a later member replaces the earlier one, unmerged */
                memset(member, 0, elt_size(f->type));
            decode_value(c, msg, f, member, v, vs, ve, fstart, -1);
            *which = f->id;
        } else {
            decode_value(c, msg, f, member, v, vs, ve, fstart, -1);
            if (f->quantifier_offset)
                *(protobuf_c_boolean *)((char *)m + f->quantifier_offset) = 1;
        }
    }
    return m;
}

Onnx__ModelProto *onnx_wire_decode(const uint8_t *buf, size_t len, const char *name,
                                   ProtobufCAllocator *alloc, struct diag *d)
{
    if (len == 0) {
        diag_set(d, ST_EPARSE, "%s: empty file (0 bytes), not an ONNX model", name);
        return NULL;
    }
    struct ctx *c = malloc(sizeof *c);
    if (!c) {
        diag_set(d, ST_ENOMEM, "%s: out of memory while reading the model", name);
        return NULL;
    }
    *c = (struct ctx){.base = buf, .name = name, .d = d, .a = alloc};
    index_schema(&c->s);
    ProtobufCMessage *m = decode_msg(c, M_MODEL, buf, buf + len, NULL);
    enum status st = c->st;
    free(c);
    return st ? NULL : (Onnx__ModelProto *)m;
}
