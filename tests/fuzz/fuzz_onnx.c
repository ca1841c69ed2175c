/* fuzz_onnx.c - libFuzzer harness: the ONNX reader (wire walk, protobuf-c
 * unpack, IR conversion, finalize), then shape inference on whatever loads.
 * Seeds: tests/fuzz/corpus/onnx (small weightless samples). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "graph/onnx_load.h"
#include "graph/shape.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
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
