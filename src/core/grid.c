/* grid.c - the two-dimensional sweep: batch x precision by one prediction
 * per cell, batch x MIG slice by the MIG advisor at each batch. */
#include "core/grid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fit.h"
#include "core/gpu.h"
#include "util/xalloc.h"

const char *grid_axis_name(enum grid_axis a)
{
    return a == GRID_SLICE ? "MIG slice" : "precision";
}

static void cell_set(struct grid_cell *c, int64_t batch, double latency_ms, double memory_mib,
                     double usable_mib, double headroom)
{
    c->ok = true;
    c->latency_ms = latency_ms;
    c->throughput = latency_ms > 0 ? (double)batch * 1e3 / latency_ms : 0;
    c->memory_mib = memory_mib;
    c->usable_mib = usable_mib;
    c->fits = fit_ok(memory_mib, headroom, usable_mib);
}

static void col_fail(struct grid *gr, int col, int64_t batch, const char *msg)
{
    if (!gr->col_why[col][0])
        snprintf(gr->col_why[col], sizeof gr->col_why[col], "batch %lld: %.480s", (long long)batch,
                 msg);
}

/* One prediction per cell, the columns every precision. */
static void run_precision(struct predictor *p, struct graph *g, const struct config *cfg,
                          double headroom, struct grid *gr)
{
    gr->n_cols = PREC__COUNT;
    for (int k = 0; k < PREC__COUNT; k++) {
        gr->col[k] = *cfg;
        gr->col[k].prec = (enum precision)k;
        snprintf(gr->col_name[k], sizeof gr->col_name[k], "%s", precision_name(k));
    }
    for (int r = 0; r < gr->n_rows; r++)
        for (int k = 0; k < gr->n_cols; k++) {
            struct config c = gr->col[k];
            c.batch = gr->batch[r];
            if (!quant_precision_ok(c.quant.scheme, c.prec)) { /* a column the scheme refuses */
                char q[64], msg[160];
                quant_format(&c.quant, q, sizeof q);
                snprintf(msg, sizeof msg, "quant %s does not run its activations in %s", q,
                         precision_name(c.prec));
                col_fail(gr, k, c.batch, msg);
                continue;
            }
            struct prediction pr;
            struct diag d = {0};
            if (predict_run(p, g, &c, &pr, &d) == ST_OK)
                cell_set(&gr->cell[r][k], c.batch, pr.latency_ms, pr.memory_mib, pr.capacity_mib,
                         headroom);
            else
                col_fail(gr, k, c.batch, d.msg);
            prediction_fini(&pr);
        }
}

/* The advisor at every batch: its slices, then the whole GPU it predicted
 * first (a GPU without MIG: the whole GPU alone). */
static void run_slice(struct predictor *p, struct graph *g, const struct config *cfg,
                      double headroom, struct grid *gr)
{
    const struct gpu_spec *gs = gpu_get(cfg->gpu);
    int idx[MIG_MAX_PROFILES];
    int n = gs ? mig_profile_order(gs, idx) : 0;
    gr->n_cols = n + 1;
    for (int k = 0; k <= n; k++) {
        gr->col[k] = *cfg;
        gr->col[k].mig = k < n ? idx[k] : -1;
        snprintf(gr->col_name[k], sizeof gr->col_name[k], "%s",
                 k < n ? gs->mig[idx[k]].name : "full GPU");
    }
    struct mig_advice *adv = xmalloc(sizeof *adv);
    for (int r = 0; r < gr->n_rows; r++) {
        struct config c = *cfg;
        c.batch = gr->batch[r];
        struct diag d = {0};
        if (n == 0) {
            struct prediction pr;
            c.mig = -1;
            if (predict_run(p, g, &c, &pr, &d) == ST_OK)
                cell_set(&gr->cell[r][0], c.batch, pr.latency_ms, pr.memory_mib, pr.capacity_mib,
                         headroom);
            else
                col_fail(gr, 0, c.batch, d.msg);
            prediction_fini(&pr);
            continue;
        }
        if (mig_advise(p, g, &c, headroom, 0, adv, &d)) {
            for (int k = 0; k <= n; k++)
                col_fail(gr, k, c.batch, d.msg);
            continue;
        }
        for (int k = 0; k < adv->n && k < n; k++)
            cell_set(&gr->cell[r][k], c.batch, adv->opts[k].latency_ms, adv->opts[k].memory_mib,
                     adv->opts[k].usable_mib, headroom);
        cell_set(&gr->cell[r][n], c.batch, adv->whole_latency_ms, adv->whole_memory_mib,
                 adv->whole_capacity_mib, headroom);
    }
    free(adv);
}

enum status grid_run(struct predictor *p, struct graph *g, const struct config *cfg,
                     enum grid_axis axis, const int64_t *batch, int n_batch, double headroom,
                     struct grid *out, struct diag *d)
{
    memset(out, 0, sizeof *out);
    out->axis = axis;
    if (n_batch < 1 || n_batch > GRID_MAX_ROWS)
        return diag_set(d, ST_ERANGE, "grid: %d batches, expected 1 to %d", n_batch, GRID_MAX_ROWS);
    if (axis != GRID_PRECISION && axis != GRID_SLICE)
        return diag_set(d, ST_ERANGE, "grid: axis %d, expected precision or MIG slice", axis);
    if (!gpu_get(cfg->gpu))
        return diag_set(d, ST_ERANGE, "grid: GPU index %d out of range", cfg->gpu);
    out->n_rows = n_batch;
    memcpy(out->batch, batch, (size_t)n_batch * sizeof *batch);
    if (axis == GRID_PRECISION)
        run_precision(p, g, cfg, headroom, out);
    else
        run_slice(p, g, cfg, headroom, out);
    return ST_OK;
}
