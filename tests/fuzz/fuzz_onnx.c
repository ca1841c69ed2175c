/* fuzz_onnx.c - libFuzzer harness: the ONNX reader (wire walk, protobuf-c
 * unpack, IR conversion, finalize), then shape inference on whatever loads.
 * Also checks that the one-pass decoder of a whole file and the two-step
 * path (the walk's compact copy, then its decoding) give the same message:
 * both are packed back with protobuf-c and the bytes compared.
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

/* Where the one-pass decoder accepts the file, the two-step path must
 * accept it too and decode the same message. */
static void same_both_ways(const uint8_t *data, size_t size)
{
    struct pool pa_pool = {0}, pb_pool = {0};
    ProtobufCAllocator aa = {pool_alloc, pool_free, &pa_pool};
    ProtobufCAllocator ab = {pool_alloc, pool_free, &pb_pool};
    Onnx__ModelProto *a = onnx_wire_unpack_direct(data, size, &aa);
    if (!a) {
        pool_release(&pa_pool);
        return;
    }
    struct onnx_compact cp;
    struct diag d = {0};
    if (onnx_wire_compact(data, size, "fuzz.onnx", &cp, &d))
        abort(); /* the one pass accepted what the walk refuses */
    static const uint8_t empty[1];
    bool fallback;
    Onnx__ModelProto *b = onnx_wire_unpack(cp.buf ? cp.buf : empty, cp.len, &ab, &fallback);
    if (fallback)
        abort(); /* the one pass accepted what the compact decoder hands to protobuf-c */
    free(cp.buf);
    if (!b)
        abort();
    size_t la, lb;
    uint8_t *pa = packed(a, &la), *pb = packed(b, &lb);
    if (la != lb || memcmp(pa, pb, la) != 0)
        abort(); /* the two paths decoded different messages */
    free(pa);
    free(pb);
    pool_release(&pa_pool);
    pool_release(&pb_pool);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    same_both_ways(data, size);
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
