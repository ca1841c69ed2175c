/*
 * max_batch.h - the largest batch that fits a GPU or MIG slice with some
 * memory to spare and, with a latency target, meets it: `dippm sweep
 * --max-batch` and the explorer's largest-batch key.
 */
#ifndef DIPPM_CORE_MAX_BATCH_H
#define DIPPM_CORE_MAX_BATCH_H

#include <stdint.h>

#include "core/config.h"
#include "core/predict.h"
#include "graph/ir/ir.h"

/* The search stops here: the limit, not a batch that failed. */
#define MAX_BATCH_SEARCH 65536

struct max_batch {
    int64_t best;       /* 0: not even batch 1 */
    int64_t fail_batch; /* the first batch found to fail (undefined when best hits the limit) */
    struct prediction at_best, at_fail; /* release both with prediction_fini */
};

/* Batch b "fits" when its predicted memory * (1 + headroom) is within the
 * capacity and, with slo_ms > 0, its latency is at most slo_ms. An
 * exponential then a binary search from batch 1 (cfg's batch is ignored),
 * assuming what fails at b fails beyond it; g's batch symbol is left at
 * the last batch tried. */
enum status max_batch_search(struct predictor *p, struct graph *g, const struct config *cfg,
                             double headroom, double slo_ms, struct max_batch *mb, struct diag *d);

#endif
