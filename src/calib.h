/*
 * calib.h - fits the teacher's global constants (struct sim_params) to the
 * published A100 measurements (tests/data/a100_published_calibration.jsonl,
 * described in tests/data/README) and writes
 * the calibration report (weights/calibration.md).
 *
 * Which rows are modelled: ResNet-50, EfficientNet-B0, BERT-base encoder and
 * the GPT-2-medium-shaped decoder, in PyTorch eager ("pytorch") or fused
 * engines ("tensorrt": TensorRT, Paddle-TRT, AITemplate, FasterTransformer
 * encoder). Other frameworks (TensorFlow, MXNet, TorchScript, Triton),
 * half-padding runs and whole-generation GPT latencies are listed as not
 * modelled, with the reason. Every numeric figure the report prints for the
 * model is simulated, never measured.
 */
#ifndef DIPPM_CALIB_H
#define DIPPM_CALIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "sim.h"
#include "status.h"

enum calib_model {
    CM_RESNET50, CM_EFFNET_B0, CM_BERT_BASE, CM_GPT2_MEDIUM,
    CM__COUNT
};

/* One published row as the calibration reads it. */
struct calib_row {
    int line;                /* 1-based line in the JSONL file */
    int model;               /* enum calib_model, -1 if not a modelled model */
    char model_text[48];     /* the row's own model label (shortened) */
    char framework[64];      /* the row's framework label (shortened) */
    struct config cfg;       /* runtime, precision, GPU / MIG, batch */
    int64_t seq;             /* sequence length (0 for image models) */
    double latency_ms;       /* published; < 0 if absent */
    double memory_mb;        /* published; < 0 if absent */
    bool use_latency;        /* modelled latency row */
    bool use_memory;         /* modelled memory row */
    bool use_gen;            /* GPT generation latency: evaluated, not fitted */
    int64_t gen_in, gen_out; /* generation: input and output tokens */
    const char *why_not;     /* reason a published figure is not modelled, or NULL */
    /* predictions (filled by calib_evaluate) */
    double pred_latency_ms, pred_memory_mib;
};

struct calib_set {
    struct calib_row *rows;
    int n_rows;
    int n_lines;
    const char *path;
};

/* Reads and classifies the JSONL file. Errors name the file and line. */
enum status calib_load(const char *path, struct calib_set *set, struct diag *d);
void calib_set_fini(struct calib_set *set);

/* Graph sources: model specs per calib_model (ONNX samples in samples_dir). */
struct calib_graphs;
/* Loads one graph per distinct (model, batch, seq) of the modelled rows, each
 * inferred with its bindings. A model whose graph fails to load or infer has
 * its rows marked not modelled (why_not gives the loader's message); NULL with
 * a diag only when no graph at all is usable. */
struct calib_graphs *calib_graphs_new(struct calib_set *set, const char *samples_dir,
                                      struct diag *d);
void calib_graphs_free(struct calib_graphs *cg);
/* The spec used for model m ("samples/resnet50.onnx"). */
const char *calib_graphs_spec(const struct calib_graphs *cg, int m);

/* Runs the teacher with p on every modelled row (fills pred_*). */
enum status calib_evaluate(struct calib_set *set, const struct calib_graphs *cg,
                           const struct sim_params *p, struct diag *d);

/* Fits the global constants starting from start; writes the result to out.
 * Deterministic (coordinate search on a fixed grid schedule). */
enum status calib_fit(struct calib_set *set, const struct calib_graphs *cg,
                      const struct sim_params *start, struct sim_params *out, struct diag *d);

/* Writes the markdown report into a malloc'd string (caller frees). fitted is
 * what calib_fit found, used what the program has compiled in (the rows'
 * predictions must come from used). */
char *calib_report(const struct calib_set *set, const struct calib_graphs *cg,
                   const struct sim_params *fitted, const struct sim_params *used,
                   const char *command);

/* One line of headline MAPEs (latency per runtime at batch >= 8, memory)
 * for the predictions currently in set. */
void calib_summary(const struct calib_set *set, char *buf, size_t n);

#endif
