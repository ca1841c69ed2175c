/* app_sweep.c - the Sweep tab's data: predictions over the batch or over
 * any symbol or template hyperparameter (one model built per point). */
#include "ui/app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fit.h"
#include "core/gpu.h"
#include "core/sweep.h"
#include "graph/load.h"
#include "graph/zoo/zoo.h"

enum status app_sweep_set(struct app *a, const char *name, struct diag *d)
{
    if (!a->g)
        return diag_set(d, ST_EUSAGE, "no model loaded");
    if (!*name || !strcmp(name, "batch")) {
        a->sweep_over[0] = 0;
    } else if (graph_sym_find(a->g, !strncmp(name, "sym.", 4) ? name + 4 : name) >= 0 ||
               a->is_template) {
        if (graph_sym_find(a->g, !strncmp(name, "sym.", 4) ? name + 4 : name) < 0) {
            struct zoo_args za;
            if (zoo_args_parse(a->spec, &za, d))
                return d->code;
            if (zoo_param_find(za.fam, name) < 0)
                return diag_set(d, ST_ENOTFOUND, "sweep %s: not a symbol or hyperparameter of "
                                                 "%s", name, a->family);
        }
        if (strlen(name) >= sizeof a->sweep_over)
            return diag_set(d, ST_ERANGE, "sweep %s: a name longer than %zu characters", name,
                            sizeof a->sweep_over - 1);
        snprintf(a->sweep_over, sizeof a->sweep_over, "%s", name);
    } else {
        return diag_set(d, ST_ENOTFOUND, "sweep %s: not a symbol of the model", name);
    }
    a->sweep_gen++;
    return ST_OK;
}

/* Where a point of the sweep goes: slot i (-1: the point's own index)
 * and, when it fails, what the first reason names ("seq=1024"; NULL: its
 * batch). */
struct slot {
    struct app *a;
    int i;
    const char *what;
};

static bool store_point(void *ctx, const struct sweep_point *pt)
{
    const struct slot *sl = ctx;
    struct app_sweep *sw = &sl->a->sweep;
    int i = sl->i >= 0 ? sl->i : pt->i;
    if (pt->st == ST_OK) {
        sw->ok[i] = true;
        sw->latency_ms[i] = pt->pass.latency_ms;
        sw->throughput[i] = pt->pass.throughput;
        sw->memory_mib[i] = pt->pass.memory_mib;
    } else if (!sw->err[0] && sl->what) {
        snprintf(sw->err, sizeof sw->err, "%s: %s", sl->what, pt->why.msg);
    } else if (!sw->err[0]) {
        snprintf(sw->err, sizeof sw->err, "batch %lld: %s", (long long)pt->batch, pt->why.msg);
    }
    return true;
}

/* Predicts the configuration on graph g (a symbol or hyperparameter's
 * point) into slot i of the sweep. */
static void sweep_point(struct app *a, struct graph *g, int i, const char *what)
{
    struct sweep_job job = {.w = WORKLOAD_PASS, .p = a->p, .g = g, .cfg = &a->cfg};
    struct slot sl = {a, i, what};
    sweep_batches(&job, &a->cfg.batch, 1, store_point, &sl);
}

static bool store_gen(void *ctx, const struct sweep_point *pt)
{
    struct app_sweep *sw = ctx;
    if (pt->st == ST_OK) {
        sw->gen_ok[pt->i] = true;
        sw->ttft_ms[pt->i] = pt->gen.ttft_ms;
        sw->tokens_s[pt->i] = pt->gen.output_tokens_per_s;
        sw->gen_mib[pt->i] = pt->gen.mem.total_mib;
        sw->gen_fits[pt->i] = pt->gen.mem.fits;
    } else if (!sw->gen_err[0]) {
        snprintf(sw->gen_err, sizeof sw->gen_err, "batch %lld: %.400s", (long long)pt->batch,
                 pt->why.msg);
    }
    return true;
}

/* A decoder's generation at every batch of the sweep: TTFT, output
 * tokens/s and its memory footprint (one model opened for all points). */
static void sweep_generation(struct app *a)
{
    struct app_sweep *sw = &a->sweep;
    struct diag d = {0};
    struct sweep_job job = {.w = WORKLOAD_GENERATION, .p = a->p, .cfg = &a->cfg,
                            .gen = app_gen_request(a, 0)};
    sw->gen_err[0] = 0;
    sw->gen_max_batch = a->have_gen ? a->genr.max_batch : -1;
    if (app_gen_open(a, &job.gm, &d)) {
        snprintf(sw->gen_err, sizeof sw->gen_err, "%s", d.msg);
        return;
    }
    sweep_batches(&job, sw->batch, sw->n, store_gen, sw);
    gen_model_free(job.gm);
}

/* The values of template hyperparameter zp to sweep (choices, or an
 * integer range by steps or doubling); returns the count. */
static int tparam_points(const struct zoo_param *zp, struct app_sweep *sw)
{
    int n = 0;
    if (zp->n_choices > 0 && zp->choices) {
        for (int i = 0; i < zp->n_choices && n < APP_SWEEP_MAX; i++, n++)
            snprintf(sw->label[n], sizeof sw->label[0], "%s", zp->choices[i]);
        return n;
    }
    if (zp->type != ZOO_PT_INT)
        return 0;
    long long lo = (long long)zp->min, hi = (long long)zp->max, step = zp->step > 0 ? zp->step : 1;
    bool linear = (hi - lo) / step < APP_SWEEP_MAX;
    if (!linear && lo < 1)
        lo = 1;
    for (long long v = lo; v <= hi && n < APP_SWEEP_MAX; v = linear ? v + step : v * 2, n++)
        snprintf(sw->label[n], sizeof sw->label[0], "%lld", v);
    return n;
}

static void sweep_template(struct app *a, const char *name)
{
    struct app_sweep *sw = &a->sweep;
    struct zoo_args za;
    struct diag d = {0};
    if (zoo_args_parse(a->spec, &za, &d)) {
        snprintf(sw->err, sizeof sw->err, "%s", d.msg);
        return;
    }
    const struct zoo_param *zp = zoo_param_get(za.fam, zoo_param_find(za.fam, name));
    sw->n = zp ? tparam_points(zp, sw) : 0;
    if (sw->n == 0) {
        snprintf(sw->err, sizeof sw->err, "sweep %s: it takes any number or a list; sweep an "
                                          "integer or a choice", name);
        return;
    }
    char cur[64];
    zoo_args_value(&za, zoo_param_find(za.fam, name), cur, sizeof cur);
    for (int i = 0; i < sw->n; i++) {
        struct zoo_args z2 = za;
        char spec[APP_SPEC_MAX], what[APP_SYM_NAME_MAX + 32];
        snprintf(what, sizeof what, "%s=%s", name, sw->label[i]);
        sw->batch[i] = atoll(sw->label[i]);
        if (!strcmp(cur, sw->label[i]))
            sw->cur = i;
        d = (struct diag){0};
        if (zoo_args_set(&z2, name, sw->label[i], &d) || zoo_args_check(&z2, &d) ||
            zoo_args_spec(&z2, spec, sizeof spec) >= (int)sizeof spec) {
            if (!sw->err[0])
                snprintf(sw->err, sizeof sw->err, "%.100s: %.400s", what, d.msg);
            continue;
        }
        struct graph *g = model_load(spec, &d);
        if (!g) {
            if (!sw->err[0])
                snprintf(sw->err, sizeof sw->err, "%.100s: %.400s", what, d.msg);
            continue;
        }
        bool taken = true; /* the point keeps the symbols, or is refused */
        for (int s = 0; s < a->g->n_syms && taken; s++)
            if (graph_sym_find(g, a->g->syms[s].name) >= 0 &&
                graph_sym_set(g, a->g->syms[s].name, a->g->syms[s].val, &d)) {
                if (!sw->err[0])
                    snprintf(sw->err, sizeof sw->err, "%.100s: %.400s", what, d.msg);
                taken = false;
            }
        if (taken)
            sweep_point(a, g, i, what);
        graph_free(g);
    }
}

/* value / 8 .. value x 16 of symbol si, in doublings. */
static void sweep_symbol(struct app *a, int si)
{
    struct app_sweep *sw = &a->sweep;
    int64_t old = a->g->syms[si].val, base = old >= 8 ? old / 8 : 1;
    for (int i = 0; i < 8; i++) {
        sw->batch[i] = base << i;
        snprintf(sw->label[i], sizeof sw->label[0], "%lld", (long long)sw->batch[i]);
        if (sw->batch[i] == old)
            sw->cur = i;
        char what[64];
        snprintf(what, sizeof what, "%s=%lld", a->g->syms[si].name, (long long)sw->batch[i]);
        sw->n = i + 1;
        struct diag d = {0};
        if (graph_sym_check(a->g, si, sw->batch[i], &d)) { /* a point the model cannot take */
            if (!sw->err[0])
                snprintf(sw->err, sizeof sw->err, "%s", d.msg);
            continue;
        }
        a->g->syms[si].val = sw->batch[i];
        sweep_point(a, a->g, i, what);
    }
    a->g->syms[si].val = old;
}

void app_sweep_ensure(struct app *a)
{
    struct app_sweep *sw = &a->sweep;
    if (sw->valid && sw->gen == a->sweep_gen)
        return;
    memset(sw, 0, sizeof *sw);
    sw->gen = a->sweep_gen;
    sw->valid = true;
    sw->cur = -1;
    sw->gen_max_batch = -1;
    snprintf(sw->gen_err, sizeof sw->gen_err, "%s",
             a->workload == WORKLOAD_GENERATION
                 ? "TTFT and tokens/s are swept over the batch only"
                 : "TTFT and tokens/s: only a decoder (with a KV cache) generates");
    snprintf(sw->over, sizeof sw->over, "%s", a->sweep_over[0] ? a->sweep_over : "batch");
    if (!a->g)
        return;
    struct hw hw;
    if (hw_from_config(&a->cfg, &hw, NULL) == ST_OK)
        sw->capacity_mib = hw.mem_bytes / 1048576.0;
    int si = graph_sym_find(a->g, sw->over);
    bool is_batch = !strcmp(sw->over, "batch") || (si >= 0 && si == graph_batch_sym(a->g));
    if (is_batch && graph_batch_sym(a->g) < 0) {
        snprintf(sw->err, sizeof sw->err,
                 "the model has no batch dimension (fixed input sizes): nothing to sweep over "
                 "batch; :sweep NAME sweeps a symbol or hyperparameter");
        return;
    }
    if (is_batch) {
        snprintf(sw->over, sizeof sw->over, "batch");
        for (int i = 0; i < APP_SWEEP_MAX; i++) {
            sw->batch[i] = (int64_t)1 << i;
            snprintf(sw->label[i], sizeof sw->label[0], "%lld", (long long)sw->batch[i]);
            if (sw->batch[i] == a->cfg.batch)
                sw->cur = i;
        }
        sw->n = APP_SWEEP_MAX;
        struct sweep_job job = {.w = WORKLOAD_PASS, .p = a->p, .g = a->g, .cfg = &a->cfg};
        struct slot sl = {a, -1, NULL};
        sweep_batches(&job, sw->batch, sw->n, store_point, &sl);
        if (a->workload == WORKLOAD_GENERATION)
            sweep_generation(a);
    } else {
        bool want_sym = !strncmp(sw->over, "sym.", 4), tpl = false;
        if (want_sym)
            si = graph_sym_find(a->g, sw->over + 4);
        for (int i = 0; i < a->n_tparams && !want_sym; i++)
            tpl |= !strcmp(a->tparams[i].name, sw->over);
        if (tpl)
            sweep_template(a, sw->over);
        else if (si >= 0)
            sweep_symbol(a, si);
        else
            snprintf(sw->err, sizeof sw->err, "sweep %s: not a symbol or hyperparameter",
                     sw->over);
    }
    /* The table's selection starts on the configuration itself, so the
     * figures under it describe what the header does. */
    if (sw->cur >= 0)
        a->st.list[UI_TAB_SWEEP].sel = sw->cur;
    /* Put the graph back to the configuration's own shapes. */
    struct prediction pr;
    struct diag d = {0};
    memset(&pr, 0, sizeof pr);
    predict_run(a->p, a->g, &a->cfg, &pr, &d);
    prediction_fini(&pr);
}

bool app_sweep_fits(const struct app *a, int i)
{
    const struct app_sweep *sw = &a->sweep;
    return sw->capacity_mib <= 0 || fit_ok(sw->memory_mib[i], a->headroom, sw->capacity_mib);
}

void app_heat_ensure(struct app *a, enum grid_axis axis)
{
    struct app_heat *h = &a->heat;
    if (h->valid && h->gen == a->sweep_gen && h->axis == axis)
        return;
    h->valid = true;
    h->gen = a->sweep_gen;
    h->axis = axis;
    h->err[0] = 0;
    h->grid.n_rows = h->grid.n_cols = 0;
    if (!a->g)
        return;
    if (graph_batch_sym(a->g) < 0) {
        snprintf(h->err, sizeof h->err,
                 "the model has no batch dimension (fixed input "
                 "sizes): no heat map over the batch");
        return;
    }
    int64_t batch[APP_SWEEP_MAX]; /* the batch sweep's: 1, 2, 4 ... 1024 */
    for (int i = 0; i < APP_SWEEP_MAX; i++)
        batch[i] = (int64_t)1 << i;
    struct diag d = {0};
    if (grid_run(a->p, a->g, &a->cfg, axis, batch, APP_SWEEP_MAX, a->headroom, &h->grid, &d))
        snprintf(h->err, sizeof h->err, "%s", d.msg);
    /* Put the graph back to the configuration's own shapes. */
    struct prediction pr;
    d = (struct diag){0};
    memset(&pr, 0, sizeof pr);
    predict_run(a->p, a->g, &a->cfg, &pr, &d);
    prediction_fini(&pr);
}
