/*
 * measured.h - reader for measured-data files (JSONL, schema "dippm-measured/1",
 * man/dippm-measured.5), the rows written by tools/measure/measure.py on a real GPU.
 *
 * One JSON object per line. Each row names a model, the weightless ONNX graph that
 * was measured (a path relative to the JSONL file), the configuration (batch,
 * precision, runtime, GPU from the table in gpu.h, MIG profile or none) and the
 * measured labels: median latency, peak device memory as NVML reports it, energy
 * per batch. `null` means "not measured" and reads as NaN.
 *
 * Rows with "status": "oom" or "error" record configurations that failed; they are
 * counted (n_failed) and not returned. Rows with "source": "dry-run" carry CPU
 * timings from the harness's --dry-run; they are refused unless the caller sets
 * opts.allow_dry_run, so CPU numbers are never taken for GPU measurements by
 * accident.
 *
 * Any malformed row stops the load with a diag "FILE:LINE: field 'NAME': ..."
 * (ST_EPARSE for bad JSON, a missing field or a value of the wrong type or range,
 * ST_ENOTFOUND for an unknown GPU or MIG profile or a missing graph file,
 * ST_EUNSUPPORTED for another schema version or a runtime dippm does not model,
 * ST_ENOMEM past the line-length or row-count limits, ST_EIO if the file cannot
 * be read).
 */
#ifndef DIPPM_MEASURED_H
#define DIPPM_MEASURED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/config.h"
#include "util/status.h"

#define MEASURED_SCHEMA "dippm-measured/1"
/* The gpu name the harness writes for --dry-run rows (CPU timings). */
#define MEASURED_DRY_RUN_GPU "cpu-dry-run"
/* Longest accepted line in bytes, newline excluded. */
#define MEASURED_MAX_LINE 65536
/* Default cap on non-blank lines (rows of any status) per file. */
#define MEASURED_MAX_ROWS 1000000
/* Largest batch accepted. */
#define MEASURED_MAX_BATCH (1 << 24)

#define MEASURED_SOURCE_LIST(X)                       \
    X(MEASURED_SOURCE_MEASURED, "measured")          \
    X(MEASURED_SOURCE_DRY_RUN, "dry-run")

enum measured_source {
#define X(id, name) id,
    MEASURED_SOURCE_LIST(X)
#undef X
    MEASURED_SOURCE__COUNT
};

/* "measured" or "dry-run"; "?" if out of range. */
const char *measured_source_name(enum measured_source s);

struct measured_row {
    char *model;          /* owned; the harness's model name ("resnet50") */
    char *graph;          /* owned; the weightless ONNX, resolved against the JSONL's
                             directory and made absolute (realpath) when it exists */
    char *input;          /* owned; input dims "3x224x224" or NULL if absent */
    int64_t batch;        /* >= 1 */
    enum precision prec;
    enum runtime rt;
    int gpu;              /* index into the GPU table (gpu_get); -1 only for an allowed
                             dry-run row whose gpu is "cpu-dry-run" and opts.dry_run_gpu
                             is -1 */
    int mig;              /* MIG profile index of that GPU, or -1 for the whole GPU */
    double latency_ms;    /* median over the timed runs; > 0 */
    double latency_p90_ms;/* NaN if null */
    double memory_mib;    /* NVML used memory of the process (what nvidia-smi shows,
                             and what dippm predicts); NaN if null */
    double memory_alloc_mib; /* PyTorch allocator peak; NaN if null */
    double energy_j;      /* energy per batch from NVML's counter; NaN if null */
    double power_w;       /* mean power over the timed runs; NaN if null */
    enum measured_source source;
    int line;             /* 1-based line number in the file */
};

struct measured_opts {
    bool allow_dry_run;   /* accept "source": "dry-run" rows (tests of the pipeline only) */
    int dry_run_gpu;      /* GPU index given to allowed dry-run rows whose gpu is
                             "cpu-dry-run"; -1 (the default) leaves row.gpu = -1 */
    bool check_graphs;    /* require each graph file to exist (default true) */
    size_t max_rows;      /* 0 = MEASURED_MAX_ROWS */
};

struct measured_set {
    char *path;                 /* owned copy of the file name */
    struct measured_row *rows;  /* owned array of n rows, in file order */
    size_t n;
    size_t n_failed;            /* "oom"/"error" rows skipped */
    size_t n_oom;               /* of those, "oom" */
    size_t n_dry_run;           /* dry-run rows returned (only with allow_dry_run) */
};

/* Defaults: dry-run refused, dry_run_gpu -1, graphs checked, MEASURED_MAX_ROWS. */
void measured_opts_default(struct measured_opts *o);

/* Loads every row of the JSONL file at path into *out (which the caller owns and
 * frees with measured_set_fini, also after a failure). opts NULL means defaults.
 * A file with no usable rows is not an error (out->n == 0); callers that need rows
 * say so. On error *out is left empty and d names FILE:LINE and the field. */
enum status measured_set_load(const char *path, const struct measured_opts *opts,
                              struct measured_set *out, struct diag *d);

/* Frees everything s owns and empties it. NULL is a no-op. */
void measured_set_fini(struct measured_set *s);

#endif
