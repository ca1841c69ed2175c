/* fuzz_weights.c - libFuzzer harness: the .dpw GNN weight-file decoder.
 * Each input is decoded twice: as is (the checksum guards the rest, so this
 * mostly exercises the header checks), and with the trailing FNV-1a 64
 * rewritten to match, so the architecture, tensor table, normalisation and
 * description checks see mutated data too. Seeds: tests/fuzz/corpus/weights. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/weights.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void decode(const unsigned char *buf, size_t len)
{
    struct gnn_model m;
    memset(&m, 0xa5, sizeof m); /* the decoder must not rely on a zeroed model */
    char desc[WEIGHTS_DESC_MAX];
    struct diag d = {0};
    enum status st = weights_decode(buf, len, "fuzz.dpw", 0, &m, desc, sizeof desc, &d);
    if (st) {
        if (!d.msg[0])
            abort(); /* every failure must say why */
        return;
    }
    if (!memchr(desc, 0, sizeof desc))
        abort(); /* desc must be terminated */
    gnn_model_fini(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *buf = malloc(size ? size : 1);
    if (size)
        memcpy(buf, data, size);
    decode(buf, size);
    if (size >= 8) {
        uint64_t h = weights_fnv64(buf, size - 8);
        for (int i = 0; i < 8; i++)
            buf[size - 8 + i] = (unsigned char)(h >> (8 * i));
        decode(buf, size);
    }
    free(buf);
    return 0;
}
