/*
 * interval.h - prediction intervals: how far a predicted latency (and the
 * throughput that follows from it) or memory may be from what a GPU
 * measures, from the errors of held-out predictions on measured rows.
 *
 * Method: quantiles of held-out errors by group. Every measured row the
 * project has (the published rows of the calibration table, each
 * predicted by the fold that never saw its source family, and NeuSight's
 * end-to-end rows, which the teacher was not fitted to) gives one
 * held-out log error r = log(measured / predicted). The rows are grouped
 * by target (time: latency, offline and generation throughput; memory)
 * and runtime family (eager: pytorch, pytorch-sdpa, whose bounds
 * torch.compile's inductor and inductor-graph take; engine: tensorrt,
 * tensorrt-graph, whose bounds ONNX Runtime's onnxruntime and
 * onnxruntime-graph take; generation: vllm and multi-token generations).
 * Per group the bounds are the quantiles a/2 and 1 - a/2 of r (a = 1 -
 * coverage) with every source family weighing the same
 * (interval_balanced: a source with many rows, whose errors are alike,
 * must not set the interval alone, for the interval is for configurations
 * no source measured; the leave-one-source-family-out check of
 * weights/intervals.md measures it), widened if needed so that the
 * interval holds the point prediction. A group with fewer than INTERVAL_MIN_ROWS rows takes
 * the pooled bounds of its target times INTERVAL_WIDEN_FEW; a GPU,
 * precision or runtime with no measured row of the target multiplies the
 * bounds by INTERVAL_WIDEN_UNMEASURED each and the note says "no measured
 * rows for ..."; bounds from fewer than INTERVAL_MIN_FAMILIES source
 * families are multiplied by INTERVAL_WIDEN_FEW_FAMILIES and the note says
 * "from only N source families". The table is weights/intervals.tsv,
 * written by `dippm calibrate --intervals` (interval_gen.h).
 */
#ifndef DIPPM_INTERVAL_H
#define DIPPM_INTERVAL_H

#include <stdbool.h>

#include "core/config.h"
#include "util/status.h"

#define INTERVAL_COVERAGE 0.80
#define INTERVAL_MIN_ROWS 20
/* A group with too few rows: the pooled log bounds x1.5. The pooled
 * interval mixes runtimes whose errors differ (eager, engine and
 * generation rows have different biases), so it is not that group's
 * interval; 1.5 is a judgement, not a fit, and the leave-one-family-out
 * evaluation in weights/intervals.md shows what it gives. */
#define INTERVAL_WIDEN_FEW 1.5
/* Each of GPU, precision, runtime with no measured row: the log bounds
 * x1.5 (two missing: x2.25). No held-out row can say how wrong such an
 * extrapolation is; the widening only says it is less certain. */
#define INTERVAL_WIDEN_UNMEASURED 1.5
/* Bounds whose rows come from fewer source families than this: the log
 * bounds x INTERVAL_WIDEN_FEW_FAMILIES. Such quantiles describe those
 * sources' models and harnesses, not a new user's; as for an unmeasured
 * GPU, 1.5 is a judgement, and the leave-one-family-out check of
 * weights/intervals.md shows what it gives. */
#define INTERVAL_MIN_FAMILIES 3
#define INTERVAL_WIDEN_FEW_FAMILIES 1.5
#define INTERVAL_FILE "intervals.tsv"
#define INTERVAL_MAX_GPUS 64

#define INTERVAL_TARGET_LIST(X) X(IT_TIME, "latency") X(IT_MEMORY, "memory")
enum interval_target {
#define X(id, name) id,
    INTERVAL_TARGET_LIST(X)
#undef X
    IT__COUNT
};

#define INTERVAL_GROUP_LIST(X) \
    X(IG_EAGER, "eager") X(IG_ENGINE, "tensorrt") X(IG_GENERATION, "generation") \
    X(IG_POOLED, "pooled")
enum interval_group {
#define X(id, name) id,
    INTERVAL_GROUP_LIST(X)
#undef X
    IG__COUNT
};

const char *interval_target_name(enum interval_target t);
const char *interval_group_name(enum interval_group g);
/* The group of a configuration: generation for vllm or a generation of
 * several tokens, else its runtime's family. */
enum interval_group interval_group_of(enum runtime rt, bool generation);

/* One held-out error. */
struct interval_resid {
    enum interval_target target;
    enum interval_group group;  /* never IG_POOLED */
    int gpu;                    /* GPU table index */
    enum precision prec;
    enum runtime rt;
    double r;                   /* log(measured / predicted) */
    const char *family;         /* source family (leave-one-family-out folds) */
};

/* The bounds of one group, as log(measured / predicted). */
struct interval_bounds {
    int n;          /* rows of the group */
    double lo, hi;  /* lo <= 0 <= hi */
    bool fallback;  /* too few rows: the pooled bounds widened */
    bool valid;     /* false: no bounds (too few rows even pooled) */
    int n_fam;      /* source families behind lo, hi (the pool's for a
                     * fallback); 0: not known (a table without them) */
};

struct interval_table {
    struct interval_bounds b[IT__COUNT][IG__COUNT];
    bool gpu[IT__COUNT][INTERVAL_MAX_GPUS];   /* measured rows on that GPU */
    bool prec[IT__COUNT][PREC__COUNT];
    bool rt[IT__COUNT][RT__COUNT];
};

/* Split-conformal bounds of n errors r at `coverage`: the order
 * statistics floor((n+1)(1-c)/2) and ceil((n+1)(1+c)/2) (1-based). false
 * when n is too small for them to exist. */
bool interval_conformal(const double *r, int n, double coverage, double *lo, double *hi);
/* The quantiles at (1-c)/2 and (1+c)/2 of r with each source family
 * (family[i]) weighing one in all, shared by its rows: the interval is for
 * configurations no source measured, so a family with many rows, whose
 * errors are alike, must not set it alone. false where
 * interval_conformal has no bounds for n rows. */
bool interval_balanced(const double *r, const char *const *family, int n, double coverage,
                       double *lo, double *hi);

/* The table from the n residuals whose skip[i] is false (skip may be NULL). */
void interval_build(struct interval_table *t, const struct interval_resid *res, int n,
                    const bool *skip);

/* The 80% interval of a prediction `point` of target t for cfg. */
struct interval {
    bool valid;            /* false: no table or no bounds for the target */
    double low, high;      /* low <= point <= high */
    double widen;          /* 1: the group's own bounds */
    char note[240];        /* where the interval comes from, and any widening */
};
struct interval interval_for(const struct interval_table *t, enum interval_target target,
                             const struct config *cfg, bool generation, double point);

/* The table as TSV text (malloc'd), with `header` as # comment lines:
 *   interval TARGET GROUP ROWS LOW_FACTOR HIGH_FACTOR BASIS FAMILIES
 *   measured TARGET gpu|precision|runtime NAME
 * (the parser also takes an interval line without FAMILIES, as tables
 * written before it have them: n_fam 0). */
char *interval_table_format(const struct interval_table *t, const char *header, size_t *len);
/* Parses TSV text (name in messages); errors name the line and field. */
enum status interval_table_parse(struct interval_table *t, const char *name, const char *text,
                                 struct diag *d);
enum status interval_table_load(struct interval_table *t, const char *path, struct diag *d);

/* The shipped table (datafile_find(DATAFILE_WEIGHTS, INTERVAL_FILE)),
 * loaded on first use; NULL (why in *why, if not NULL) when missing or bad. */
const struct interval_table *interval_default(const char **why);

#endif
