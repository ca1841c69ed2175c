/*
 * sweep.h - one prediction per batch of a list, for the workload asked
 * (workload.h): a single pass (predict_run), a generation (gen_run_batch)
 * or a diffusion pipeline (diff_run). The rows of `dippm sweep` and the
 * explorer's Sweep tab come from sweep_batches; what is done with a point
 * that fails (a row refused, the sweep stopped, the first reason kept) is
 * the caller's.
 */
#ifndef DIPPM_CORE_SWEEP_H
#define DIPPM_CORE_SWEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "core/config.h"
#include "core/diffusion.h"
#include "core/generation.h"
#include "core/predict.h"
#include "core/workload.h"
#include "graph/ir/ir.h"

struct sweep_job {
    enum workload w;
    struct predictor *p;      /* NULL: teacher only */
    struct graph *g;          /* the pass, or the pipeline's denoiser */
    const struct config *cfg; /* a pass's batch is each point's */
    struct gen_model *gm;     /* a generation's decoder */
    struct gen_request gen;   /* a generation; its batch is each point's */
    struct diff_request diff; /* a pipeline; its batch is each point's */
};

struct sweep_point {
    int i;                   /* the point's index in the list */
    int64_t batch;
    enum status st;          /* ST_OK: the workload's result below is set */
    struct diag why;         /* else why not */
    struct prediction pass;  /* WORKLOAD_PASS */
    struct gen_result gen;   /* WORKLOAD_GENERATION */
    struct diff_result diff; /* WORKLOAD_DIFFUSION */
};

/* Takes one point, predicted or not; false stops the sweep. */
typedef bool (*sweep_fn)(void *ctx, const struct sweep_point *pt);

/* Predicts job at batch[0], ..., batch[n-1] in order and hands each point
 * to fn (a pass's prediction is released after it). The graph is left
 * bound at the last point. */
void sweep_batches(const struct sweep_job *job, const int64_t *batch, int n, sweep_fn fn,
                   void *ctx);

#endif
