/* fuzz_keras.c - libFuzzer harness: the Keras model.to_json() and TF.js
 * model.json readers (layers and graph models, weightsManifest), then shape
 * inference on whatever loads. An input with a NUL byte is a graph model
 * and, after the NUL, its weight shard's bytes (the integer constants it
 * reads). Seeds: tests/fuzz/corpus/keras. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "graph/keras/keras.h"
#include "graph/ops/shape.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* an exact-size copy, so reading past the end is caught by ASan */
    char *text = malloc(size ? size : 1);
    if (size)
        memcpy(text, data, size);
    struct diag d = {0};
    const char *nul = size ? memchr(text, 0, size) : NULL;
    struct graph *g;
    if (nul) {
        size_t n = (size_t)(nul - text);
        g = keras_load_buffer_shards(text, n, "fuzz.json", nul + 1, size - n - 1, &d);
    } else {
        g = keras_load_buffer(text, size, "fuzz.json", &d);
    }
    if (!g) {
        if (d.code == ST_OK || !d.msg[0])
            abort(); /* every failure must say why */
        free(text);
        return 0;
    }
    struct diag e = {0};
    graph_infer(g, &e);
    graph_free(g);
    free(text);
    return 0;
}
