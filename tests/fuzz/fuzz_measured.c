/* fuzz_measured.c - libFuzzer harness: the measured-data JSONL reader
 * (man/dippm-measured.5). The reader takes a path, so each input goes to a
 * private temporary file first. Graph files are not required to exist (the
 * fuzzer cannot create them); dry-run rows are allowed on every other input
 * so both paths are exercised. Seeds: tests/fuzz/corpus/measured. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lab/measured.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char tmp_path[64];

static void remove_tmp(void)
{
    unlink(tmp_path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!tmp_path[0]) {
        snprintf(tmp_path, sizeof tmp_path, "/tmp/fuzz_measured.XXXXXX");
        int fd = mkstemp(tmp_path);
        if (fd < 0)
            abort();
        close(fd);
        atexit(remove_tmp);
    }
    FILE *f = fopen(tmp_path, "wb");
    if (!f)
        abort();
    if (size && fwrite(data, 1, size, f) != size)
        abort();
    fclose(f);

    struct measured_opts o;
    measured_opts_default(&o);
    o.check_graphs = false;
    o.allow_dry_run = size % 2;
    o.max_rows = 1000;
    struct measured_set s;
    struct diag d = {0};
    enum status st = measured_set_load(tmp_path, &o, &s, &d);
    if (st && !d.msg[0])
        abort(); /* every failure must say why */
    if (!st)
        for (size_t i = 0; i < s.n; i++)
            if (!s.rows[i].model || !s.rows[i].graph || s.rows[i].batch < 1 ||
                !(s.rows[i].latency_ms > 0))
                abort(); /* the documented row invariants */
    measured_set_fini(&s);
    return 0;
}
