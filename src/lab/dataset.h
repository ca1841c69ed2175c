/*
 * dataset.h - training rows: a model (zoo spec or model file), a
 * configuration and its labels (latency ms, energy J, memory MiB, and the
 * per-node time shares), from the teacher or from real measurements.
 *
 * Binary format: a sequence of self-contained records, so shards
 * concatenate (`cat shard* > all.dpds`) into one valid dataset:
 *   "DPDR"  u32 version  u32 payload_len  payload  u64 FNV-1a(payload)
 *   payload: u8 label, u16+bytes spec, u8+bytes family, u8+bytes gpu,
 *            u8+bytes mig ("" = whole GPU), u8 precision, u8 runtime,
 *            i64 batch, f64 latency_ms, f64 energy_j, f64 memory_mib
 *            (NaN = not measured), u32 n_shares, f32 shares[n_shares]
 * JSONL (--jsonl): one object per line with the same fields, and an optional
 * "timing": "gpu" for a latency timed on the GPU alone (CUDA events), which
 * the reader turns into a caller's latency by adding the teacher's call cost
 * (sim_call_ms; "wall", the default, is read as it is); lines in the
 * measurement format ({"model", "gpu", "batch", "precision", "runtime",
 * "latency_ms", "memory_mib", "energy_j"}) are read as measured rows.
 * The reader sniffs the format per file.
 */
#ifndef DIPPM_DATASET_H
#define DIPPM_DATASET_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/config.h"
#include "core/gnn.h"
#include "util/status.h"

#define DATASET_VERSION 1
#define DATASET_SPEC_MAX 512
#define DATASET_NAME_MAX 64
#define DATASET_MAX_SHARES (1 << 22)
/* Largest batch a dataset row may hold (binary and JSONL alike). */
#define DATASET_MAX_BATCH (1 << 20)

enum dataset_label { DATASET_TEACHER, DATASET_MEASURED };

struct dataset_row {
    enum dataset_label label;
    char spec[DATASET_SPEC_MAX];     /* "zoo:..." canonical spec or model path */
    char family[DATASET_NAME_MAX];   /* zoo family (samples: by name), for splits; a
                                        measured row: its model's name */
    char gpu[DATASET_NAME_MAX];      /* GPU table name */
    char mig[DATASET_NAME_MAX];      /* MIG profile or "" */
    enum precision prec;
    enum runtime rt;
    int64_t batch;
    double target[GNN_T__COUNT];     /* latency ms, energy J, memory MiB; NaN = missing */
    int n_shares;                    /* 0 = no node shares */
    float *shares;                   /* malloc'd, n_shares */
};

struct dataset {
    int n, cap;
    struct dataset_row *rows;
};

void dataset_init(struct dataset *ds);
void dataset_fini(struct dataset *ds);
/* Appends a copy of r (shares copied). */
void dataset_add(struct dataset *ds, const struct dataset_row *r);

/* Reads a binary or JSONL dataset file and appends its rows. Errors name the
 * file and the record/line (ST_EPARSE, ST_EIO, ST_ENOMEM). */
/* Binary records or JSONL rows from buf[0..len) (NUL-terminated at len;
 * JSONL parsing writes into it); name is used in messages. For fuzzing. */
enum status dataset_parse(struct dataset *ds, const char *name, char *buf, size_t len,
                          struct diag *d);
enum status dataset_load(struct dataset *ds, const char *path, struct diag *d);
/* Writes one row to f in binary or JSONL form. */
enum status dataset_write_row(FILE *f, const struct dataset_row *r, bool jsonl, struct diag *d);

/* Configuration of a row (resolves gpu/mig names); ST_EPARSE names them. */
enum status dataset_row_config(const struct dataset_row *r, struct config *cfg, struct diag *d);

/* Family of a model file by its name ("resnet50.onnx" -> "resnet"): the
 * longest zoo family name that prefixes the file's stem, else "samples". */
void dataset_file_family(const char *path, char *out, size_t size);

/* True if the row belongs to the random test split (10% of rows, chosen by
 * a hash of the row's model and configuration, so it does not depend on
 * row order or sharding). */
bool dataset_row_is_test(const struct dataset_row *r);

/* ---- generation ---------------------------------------------------------- */

struct dataset_gen_opts {
    long n;               /* rows to generate (before sharding) */
    uint64_t seed;
    int shard, n_shards;  /* keep draws with index % n_shards == shard */
    const char *families; /* comma list of zoo families (and "samples"), NULL = all */
    const char *samples_dir; /* real models to include; NULL = none */
    int configs_per_graph;   /* rows per sampled graph (default 4) */
    bool jsonl;
    bool progress;        /* progress on stderr */
};

/* Samples graphs and configurations, labels them with the teacher and
 * writes rows to f. *written receives the row count. */
enum status dataset_generate(const struct dataset_gen_opts *o, FILE *f, long *written,
                             struct diag *d);

#endif
