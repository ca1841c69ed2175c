/* fuzz_keras_h5.c - libFuzzer harness: the Keras .h5 reader (keras_h5.c: the
 * container through libhdf5, then the Keras JSON reader), then shape
 * inference on whatever loads. Seeds: tests/fuzz/corpus/keras_h5. Built only
 * when the library is there (run.sh). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "graph/keras/keras_file.h"
#include "graph/ops/shape.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* an exact-size copy, so reading past the end is caught by ASan */
    uint8_t *buf = malloc(size ? size : 1);
    if (size)
        memcpy(buf, data, size);
    /* libhdf5 runs in a reader process; a hang there is killed after 3 s,
     * well inside libFuzzer's 10 s timeout */
    keras_h5_set_time_limit(3000);
    struct diag d = {0};
    struct graph *g = keras_h5_load_buffer(buf, size, "fuzz.h5", &d);
    if (!g) {
        if (d.code == ST_OK || !d.msg[0])
            abort(); /* every failure must say why */
        free(buf);
        return 0;
    }
    struct diag e = {0};
    graph_infer(g, &e);
    graph_free(g);
    free(buf);
    return 0;
}
