/* sweep.c - one prediction per batch of a list (see sweep.h). */
#include "core/sweep.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* The job's workload at pt->batch into pt. */
static void predict_point(const struct sweep_job *job, struct sweep_point *pt)
{
    switch (job->w) {
    case WORKLOAD_PASS: {
        struct config c = *job->cfg;
        c.batch = pt->batch;
        pt->st = predict_run(job->p, job->g, &c, &pt->pass, &pt->why);
        break;
    }
    case WORKLOAD_GENERATION: {
        struct gen_request rq = job->gen;
        rq.batch = pt->batch;
        pt->st = gen_run_batch(job->p, job->gm, job->cfg, &rq, &pt->gen, &pt->why);
        break;
    }
    case WORKLOAD_DIFFUSION: {
        struct diff_request rq = job->diff;
        rq.batch = pt->batch;
        pt->st = diff_run(job->p, job->g, job->cfg, &rq, &pt->diff, &pt->why);
        break;
    }
    }
}

void sweep_batches(const struct sweep_job *job, const int64_t *batch, int n, sweep_fn fn,
                   void *ctx)
{
    struct sweep_point *pt = xmalloc(sizeof *pt);
    for (int i = 0; i < n; i++) {
        memset(pt, 0, sizeof *pt);
        pt->i = i;
        pt->batch = batch[i];
        predict_point(job, pt);
        bool go = fn(ctx, pt);
        if (job->w == WORKLOAD_PASS)
            prediction_fini(&pt->pass);
        if (!go)
            break;
    }
    free(pt);
}
