/* max_batch.c - the largest batch that fits and meets a target (see
 * max_batch.h). */
#include "core/max_batch.h"

#include <string.h>

#include "core/fit.h"

/* ok: memory with headroom fits and the target is met. */
static enum status probe(struct predictor *p, struct graph *g, const struct config *cfg, int64_t b,
                         double headroom, double slo, struct prediction *pr, bool *ok,
                         struct diag *d)
{
    struct config c = *cfg;
    c.batch = b;
    enum status st = predict_run(p, g, &c, pr, d);
    if (st) {
        prediction_fini(pr);
        return st;
    }
    *ok = fit_ok(pr->memory_mib, headroom, pr->capacity_mib) && (slo <= 0 || pr->latency_ms <= slo);
    return ST_OK;
}

enum status max_batch_search(struct predictor *p, struct graph *g, const struct config *cfg,
                             double headroom, double slo, struct max_batch *mb, struct diag *d)
{
    struct prediction pr;
    bool ok;
    enum status st;
    memset(mb, 0, sizeof *mb);
    if ((st = probe(p, g, cfg, 1, headroom, slo, &pr, &ok, d)))
        return st;
    mb->fail_batch = 1;
    mb->at_best = pr;
    if (!ok) {
        mb->at_fail = mb->at_best;
        memset(&mb->at_best, 0, sizeof mb->at_best);
        return ST_OK;
    }
    mb->best = 1;
    int64_t hi = 2;
    for (;;) { /* exponential search for the first failing batch */
        if (hi > MAX_BATCH_SEARCH)
            break;
        if ((st = probe(p, g, cfg, hi, headroom, slo, &pr, &ok, d)))
            return st;
        if (!ok) {
            mb->at_fail = pr;
            mb->fail_batch = hi;
            break;
        }
        prediction_fini(&mb->at_best);
        mb->at_best = pr;
        mb->best = hi;
        hi *= 2;
    }
    int64_t lo = mb->best;
    while (hi <= MAX_BATCH_SEARCH && hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if ((st = probe(p, g, cfg, mid, headroom, slo, &pr, &ok, d)))
            return st;
        if (ok) {
            prediction_fini(&mb->at_best);
            mb->at_best = pr;
            lo = mb->best = mid;
        } else {
            prediction_fini(&mb->at_fail);
            mb->at_fail = pr;
            mb->fail_batch = hi = mid;
        }
    }
    return ST_OK;
}
