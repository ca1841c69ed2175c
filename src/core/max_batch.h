/*
 * max_batch.h - the largest batch that fits a GPU or MIG slice with some
 * memory to spare and, with a latency target, meets it: `dippm sweep
 * --max-batch` (a pass or a diffusion pipeline; a generation's is gen_run's
 * own, from the memory per sequence) and the explorer's largest-batch key.
 */
#ifndef DIPPM_CORE_MAX_BATCH_H
#define DIPPM_CORE_MAX_BATCH_H

#include <stdint.h>

#include "core/config.h"
#include "core/diffusion.h"
#include "core/predict.h"
#include "graph/ir/ir.h"

/* The searches stop here: the limit, not a batch that failed. */
#define MAX_BATCH_SEARCH 65536
#define MAX_BATCH_DIFFUSION ((int64_t)1 << 20) /* images of a pipeline */

/* Whether batch b fits (*ok), or the error that stops the search. */
typedef enum status (*max_batch_probe)(void *ctx, int64_t b, bool *ok, struct diag *d);

/* The largest batch from 1 to limit (a power of two) that probe accepts:
 * an exponential then a binary search from batch 1, assuming what fails at
 * b fails beyond it. *best is 0 when not even batch 1 fits; *fail is the first batch
 * found to fail (undefined when *best reaches the limit). */
enum status max_batch_find(int64_t limit, max_batch_probe probe, void *ctx, int64_t *best,
                           int64_t *fail, struct diag *d);

struct max_batch {
    int64_t best;       /* 0: not even batch 1 */
    int64_t fail_batch; /* the first batch found to fail (undefined when best hits the limit) */
    struct prediction at_best, at_fail; /* release both with prediction_fini */
};

/* The largest batch of a pass (max_batch_find up to MAX_BATCH_SEARCH; cfg's
 * batch is ignored): batch b "fits" when its predicted memory * (1 +
 * headroom) is within the capacity and, with slo_ms > 0, its latency is at
 * most slo_ms. g's batch symbol is left at the last batch tried. */
enum status max_batch_search(struct predictor *p, struct graph *g, const struct config *cfg,
                             double headroom, double slo_ms, struct max_batch *mb, struct diag *d);

/* The largest batch of images whose pipeline rq fits (diff_run's fits, at
 * rq's headroom; max_batch_find up to MAX_BATCH_DIFFUSION; rq's batch is
 * ignored): *best, 0 when not even one image's does, and *at the pipeline
 * at *best (at batch 1 when *best is 0). */
enum status max_batch_diffusion(struct predictor *p, struct graph *g, const struct config *cfg,
                                const struct diff_request *rq, int64_t *best,
                                struct diff_result *at, struct diag *d);

#endif
