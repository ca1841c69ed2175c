/* fuzz_onnx.c - libFuzzer harness: the ONNX reader (the wire decoder, IR
 * conversion, finalize), then shape inference on whatever loads. Also
 * checks the decoder against protobuf-c's own unpack of the same bytes:
 * where both accept them, the two trees, with what the decoder leaves out
 * by design removed from both (unknown fields, the payloads of tensors over
 * the kept sizes), are packed back with protobuf-c and the bytes compared.
 * Seeds: tests/fuzz/corpus/onnx (small weightless samples). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "graph/onnx/onnx_impl.h"
#include "graph/onnx/onnx_load.h"
#include "graph/ops/shape.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every block of one decode, released together (the decoders grow arrays
 * without freeing the old ones, as the loader's pool expects). */
struct pool {
    void **p;
    size_t n, cap;
};

static void *pool_alloc(void *data, size_t n)
{
    struct pool *pl = data;
    if (pl->n == pl->cap) {
        pl->cap = pl->cap ? 2 * pl->cap : 256;
        pl->p = realloc(pl->p, pl->cap * sizeof *pl->p);
        if (!pl->p)
            abort();
    }
    void *b = malloc(n ? n : 1);
    if (!b)
        abort();
    return pl->p[pl->n++] = b;
}

static void pool_free(void *data, void *p)
{
    (void)data;
    (void)p; /* released with the pool */
}

static void pool_release(struct pool *pl)
{
    for (size_t i = 0; i < pl->n; i++)
        free(pl->p[i]);
    free(pl->p);
}

static uint8_t *packed(const Onnx__ModelProto *m, size_t *len)
{
    *len = onnx__model_proto__get_packed_size(m);
    uint8_t *b = malloc(*len ? *len : 1);
    if (!b)
        abort();
    onnx__model_proto__pack(m, b);
    return b;
}

/* The rule of onnx_impl.h: a tensor's contents are kept when it holds at
 * most ONNX_KEEP_INT_MAX integers or ONNX_KEEP_FLOAT_MAX floats. */
static bool payload_kept(const Onnx__TensorProto *t)
{
    int64_t n = 1;
    for (size_t i = 0; i < t->n_dims; i++) {
        int64_t v = t->dims[i];
        if (v < 0 || v > ONNX_MAX_ELEMENTS)
            return false;
        if (v && n > ONNX_MAX_ELEMENTS / v)
            return false;
        n *= v;
    }
    int32_t dt = t->has_data_type ? t->data_type : 0;
    bool is_float = dt == 1 || dt == 10 || dt == 11 || dt == 16; /* FLOAT, FLOAT16, DOUBLE, BF16 */
    return (onnx_dtype_is_int(dt) && n <= ONNX_KEEP_INT_MAX) ||
           (is_float && n <= ONNX_KEEP_FLOAT_MAX);
}

/* Removes, through the whole tree, what the decoder leaves out. */
static void normalise(ProtobufCMessage *m)
{
    const ProtobufCMessageDescriptor *d = m->descriptor;
    m->n_unknown_fields = 0;
    if (d == &onnx__tensor_proto__descriptor && !payload_kept((Onnx__TensorProto *)m)) {
        Onnx__TensorProto *t = (Onnx__TensorProto *)m;
        t->has_raw_data = 0;
        t->raw_data.len = 0;
        t->n_float_data = t->n_int32_data = t->n_int64_data = 0;
        t->n_double_data = t->n_uint64_data = 0;
    }
    for (unsigned i = 0; i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &d->fields[i];
        char *member = (char *)m + f->offset;
        size_t q = f->quantifier_offset ? *(uint32_t *)((char *)m + f->quantifier_offset) : 0;
        if (f->type != PROTOBUF_C_TYPE_MESSAGE)
            continue;
        if (f->label == PROTOBUF_C_LABEL_REPEATED) {
            size_t n = *(size_t *)((char *)m + f->quantifier_offset);
            for (size_t k = 0; k < n; k++)
                normalise((*(ProtobufCMessage ***)member)[k]);
        } else if ((!(f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) || q == f->id) &&
                   *(ProtobufCMessage **)member) {
            normalise(*(ProtobufCMessage **)member);
        }
    }
}

/* Where the decoder and protobuf-c both accept the bytes, they must decode
 * the same message (protobuf-c refuses keys and lengths over 5 bytes, which
 * the decoder reads; the decoder refuses what onnx_load.h lists). */
static void same_as_protobuf_c(const uint8_t *data, size_t size)
{
    struct pool pa_pool = {0}, pb_pool = {0};
    ProtobufCAllocator aa = {pool_alloc, pool_free, &pa_pool};
    ProtobufCAllocator ab = {pool_alloc, pool_free, &pb_pool};
    struct diag d = {0};
    Onnx__ModelProto *a = onnx_wire_decode(data, size, "fuzz.onnx", &aa, &d);
    Onnx__ModelProto *b = a ? onnx__model_proto__unpack(&ab, size, data) : NULL;
    if (a && b) {
        normalise(&a->base);
        normalise(&b->base);
        size_t la, lb;
        uint8_t *pa = packed(a, &la), *pb = packed(b, &lb);
        if (la != lb || memcmp(pa, pb, la) != 0)
            abort(); /* the decoder and protobuf-c decoded different messages */
        free(pa);
        free(pb);
    }
    pool_release(&pa_pool);
    pool_release(&pb_pool);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    same_as_protobuf_c(data, size);
    struct diag d = {0};
    struct graph *g = onnx_load_buffer(data, size, "fuzz.onnx", &d);
    if (!g) {
        if (d.code == ST_OK || !d.msg[0])
            abort(); /* every failure must say why */
        return 0;
    }
    struct diag e = {0};
    graph_infer(g, &e);
    graph_free(g);
    return 0;
}
