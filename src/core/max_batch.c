/* max_batch.c - the largest batch that fits and meets a target (see
 * max_batch.h). */
#include "core/max_batch.h"

#include <string.h>

#include "core/fit.h"

enum status max_batch_find(int64_t limit, max_batch_probe probe, void *ctx, int64_t *best,
                           int64_t *fail, struct diag *d)
{
    bool ok;
    enum status st;
    *best = 0;
    *fail = 1;
    if ((st = probe(ctx, 1, &ok, d)) || !ok)
        return st;
    *best = 1;
    int64_t hi = 2;
    for (;;) { /* exponential search for the first failing batch */
        if (hi > limit)
            break;
        if ((st = probe(ctx, hi, &ok, d)))
            return st;
        if (!ok) {
            *fail = hi;
            break;
        }
        *best = hi;
        hi *= 2;
    }
    int64_t lo = *best;
    while (hi <= limit && hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if ((st = probe(ctx, mid, &ok, d)))
            return st;
        if (ok)
            lo = *best = mid;
        else
            *fail = hi = mid;
    }
    return ST_OK;
}

struct pass_probe {
    struct predictor *p;
    struct graph *g;
    const struct config *cfg;
    double headroom, slo;
    struct max_batch *mb;
};

/* ok: memory with headroom fits and the target is met; the prediction is
 * kept as the best or the failing one. */
static enum status pass_probe(void *ctx, int64_t b, bool *ok, struct diag *d)
{
    struct pass_probe *pp = ctx;
    struct config c = *pp->cfg;
    struct prediction pr;
    c.batch = b;
    enum status st = predict_run(pp->p, pp->g, &c, &pr, d);
    if (st) {
        prediction_fini(&pr);
        return st;
    }
    *ok = fit_ok(pr.memory_mib, pp->headroom, pr.capacity_mib) &&
          (pp->slo <= 0 || pr.latency_ms <= pp->slo);
    struct prediction *keep = *ok ? &pp->mb->at_best : &pp->mb->at_fail;
    prediction_fini(keep);
    *keep = pr;
    return ST_OK;
}

enum status max_batch_search(struct predictor *p, struct graph *g, const struct config *cfg,
                             double headroom, double slo, struct max_batch *mb, struct diag *d)
{
    memset(mb, 0, sizeof *mb);
    struct pass_probe pp = {p, g, cfg, headroom, slo, mb};
    return max_batch_find(MAX_BATCH_SEARCH, pass_probe, &pp, &mb->best, &mb->fail_batch, d);
}

struct diff_probe {
    struct predictor *p;
    struct graph *g;
    const struct config *cfg;
    struct diff_request rq;
    struct diff_result *at_best, *at_fail;
};

static enum status diff_probe(void *ctx, int64_t b, bool *ok, struct diag *d)
{
    struct diff_probe *dp = ctx;
    struct diff_result r;
    dp->rq.batch = b;
    enum status st = diff_run(dp->p, dp->g, dp->cfg, &dp->rq, &r, d);
    if (st)
        return st;
    *ok = r.fits;
    *(*ok ? dp->at_best : dp->at_fail) = r;
    return ST_OK;
}

enum status max_batch_diffusion(struct predictor *p, struct graph *g, const struct config *cfg,
                                const struct diff_request *rq, int64_t *best,
                                struct diff_result *at, struct diag *d)
{
    struct diff_result fail;
    struct diff_probe dp = {p, g, cfg, *rq, at, &fail};
    int64_t fail_batch;
    enum status st = max_batch_find(MAX_BATCH_DIFFUSION, diff_probe, &dp, best, &fail_batch, d);
    if (!st && !*best)
        *at = fail; /* batch 1's */
    return st;
}
