/* fuzz_dataset.c - libFuzzer harness: the dataset readers (binary "DPDR"
 * records and JSONL rows). Binary inputs are read twice: as is, and with
 * every record's FNV-1a 64 checksum rewritten to match, so the field checks
 * (targets, batch, shares, strings) see mutated data too.
 * Seeds: tests/fuzz/corpus/dataset. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lab/dataset.h"
#include "core/weights.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void parse(char *buf, size_t len)
{
    struct dataset ds;
    dataset_init(&ds);
    struct diag d = {0};
    enum status st = dataset_parse(&ds, "fuzz.dpd", buf, len, &d);
    if (st && !d.msg[0])
        abort(); /* every failure must say why */
    for (int i = 0; !st && i < ds.n; i++) {
        const struct dataset_row *r = &ds.rows[i];
        if (r->batch < 1 || r->batch > DATASET_MAX_BATCH)
            abort();
        for (int t = 0; t < GNN_T__COUNT; t++)
            if (!isnan(r->target[t]) && !(r->target[t] > 0 && isfinite(r->target[t])))
                abort(); /* garbage accepted */
    }
    dataset_fini(&ds);
}

/* Rewrites each record's checksum: [DPDR][ver u32][len u32][payload][fnv u64]. */
static void fix_sums(unsigned char *p, size_t len)
{
    size_t pos = 0;
    while (len - pos >= 12 && !memcmp(p + pos, "DPDR", 4)) {
        uint32_t pl = (uint32_t)p[pos + 8] | (uint32_t)p[pos + 9] << 8 |
                      (uint32_t)p[pos + 10] << 16 | (uint32_t)p[pos + 11] << 24;
        if (pl > len - pos - 12 || len - pos - 12 - pl < 8)
            return;
        uint64_t h = weights_fnv64(p + pos + 12, pl);
        for (int i = 0; i < 8; i++)
            p[pos + 12 + pl + (size_t)i] = (unsigned char)(h >> (8 * i));
        pos += 12 + (size_t)pl + 8;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1);
    memcpy(buf, data, size);
    buf[size] = 0;
    parse(buf, size);
    if (size >= 4 && !memcmp(data, "DPDR", 4)) {
        memcpy(buf, data, size);
        buf[size] = 0;
        fix_sums((unsigned char *)buf, size);
        parse(buf, size);
    }
    free(buf);
    return 0;
}
