/* mig.c - the MIG advisor: predict on every profile, pick the smallest that
 * holds the predicted memory with headroom and meets the latency target. */
#include "util/fmt.h"
#include "core/mig.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/fit.h"
#include "core/gpu.h"

#define GIB 1024.0 /* MiB per GiB */

/* Profile order from smallest to largest: memory slices, then compute
 * slices. "+me" variants duplicate a profile's capacity (they only add media
 * engines), so they are not candidates. */
int mig_profile_order(const struct gpu_spec *gs, int *idx)
{
    int n = 0;
    for (int i = 0; i < gs->n_mig && n < MIG_MAX_PROFILES; i++)
        if (!gs->mig[i].media)
            idx[n++] = i;
    for (int i = 1; i < n; i++) {
        int k = idx[i], j = i;
        while (j > 0) {
            const struct mig_profile *a = &gs->mig[idx[j - 1]], *b = &gs->mig[k];
            if (a->mem_eighths < b->mem_eighths ||
                (a->mem_eighths == b->mem_eighths && a->sm_sevenths <= b->sm_sevenths))
                break;
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = k;
    }
    return n;
}

static void explain(const struct gpu_spec *gs, struct mig_advice *a);

/* The teacher's CUDA context of cfg's runtime on `mig` of cfg's GPU, as its
 * memory pass (sim.c) counts it. */
static double context_mib(const struct config *cfg, int mig)
{
    struct config c = *cfg;
    c.mig = mig;
    struct hw hw;
    if (hw_from_config(&c, &hw, NULL) != ST_OK)
        return 0;
    const struct sim_params *sp = sim_params_default();
    return sp->context_mib[runtime_base(cfg->rt)] + sp->context_sm_mib * hw.sms;
}

double mig_memory_on(const struct config *cfg, double mib, int to)
{
    return mib + (context_mib(cfg, to) - context_mib(cfg, cfg->mig));
}

int mig_smallest_fit(const struct config *cfg, double mib, double headroom)
{
    const struct gpu_spec *gs = gpu_get(cfg->gpu);
    if (!gs)
        return -1;
    int idx[MIG_MAX_PROFILES];
    int n = mig_profile_order(gs, idx);
    for (int i = 0; i < n; i++)
        if (fit_ok(mig_memory_on(cfg, mib, idx[i]), headroom, gs->mig[idx[i]].usable_gib * GIB))
            return idx[i];
    return -1;
}

/* The latency the target is checked against: the prediction, or its
 * interval's upper bound. */
static double slo_latency(const struct mig_advice *a, const struct mig_option *o)
{
    return a->slo_factor > 1 ? o->latency_ms * a->slo_factor : o->latency_ms;
}

void mig_decide(const struct gpu_spec *gs, struct mig_advice *a)
{
    a->best = -1;
    for (int i = 0; i < a->n; i++) {
        struct mig_option *o = &a->opts[i];
        o->usable_mib = gs->mig[o->profile].usable_gib * GIB;
        o->need_mib = fit_need_mib(o->memory_mib, a->headroom);
        o->fits = fit_ok(o->memory_mib, a->headroom, o->usable_mib);
        o->meets_slo = a->slo_ms <= 0 || slo_latency(a, o) <= a->slo_ms;
        if (a->best < 0 && o->fits && o->meets_slo)
            a->best = o->profile;
    }
    explain(gs, a);
}

static size_t appendf(char *buf, size_t size, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static size_t appendf(char *buf, size_t size, size_t len, const char *fmt, ...)
{
    if (len >= size)
        return len;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + len, size - len, fmt, ap);
    va_end(ap);
    return n < 0 ? len : len + (size_t)n;
}

static void explain(const struct gpu_spec *gs, struct mig_advice *a)
{
    char *r = a->reason;
    size_t sz = sizeof a->reason, len = 0;
    int hp = (int)lround(a->headroom * 100);
    if (a->best >= 0) {
        const struct mig_option *o = NULL;
        int pos = 0;
        for (int i = 0; i < a->n; i++)
            if (a->opts[i].profile == a->best) {
                o = &a->opts[i];
                pos = i;
            }
        char f1[32], f2[32];
        len = appendf(r, sz, len, "%s: %s usable >= %s predicted + %d%%",
                      gs->mig[o->profile].name, fmt_mib(o->usable_mib, f1, sizeof f1),
                      fmt_mib(o->memory_mib, f2, sizeof f2), hp);
        if (a->slo_ms > 0)
            len = appendf(r, sz, len, ", %s%s <= %s target",
                          a->slo_factor > 1 ? "upper bound " : "",
                          fmt_ms(slo_latency(a, o), f1, sizeof f1),
                          fmt_ms(a->slo_ms, f2, sizeof f2));
        /* why not the next smaller one */
        if (pos > 0) {
            const struct mig_option *p = &a->opts[pos - 1];
            if (!p->fits)
                len = appendf(r, sz, len, "; %s too small by %s", gs->mig[p->profile].name,
                              fmt_mib(p->need_mib - p->usable_mib, f1, sizeof f1));
            else if (!p->meets_slo)
                len = appendf(r, sz, len, "; %s fits but takes %s%s > %s",
                              gs->mig[p->profile].name, a->slo_factor > 1 ? "up to " : "",
                              fmt_ms(slo_latency(a, p), f1, sizeof f1),
                              fmt_ms(a->slo_ms, f2, sizeof f2));
        } else {
            len = appendf(r, sz, len, "; it is the smallest profile of %s", gs->name);
        }
        return;
    }
    /* nothing qualifies: say by how much */
    const struct mig_option *big = &a->opts[a->n - 1];
    bool any_fits = false;
    double fastest = INFINITY;
    int fastest_i = -1;
    for (int i = 0; i < a->n; i++) {
        if (a->opts[i].fits) {
            any_fits = true;
            if (slo_latency(a, &a->opts[i]) < fastest) {
                fastest = slo_latency(a, &a->opts[i]);
                fastest_i = i;
            }
        }
    }
    char f1[32], f2[32], f3[32], f4[32];
    if (!any_fits) {
        len = appendf(r, sz, len,
                      "no %s profile fits: the model needs %s (%s predicted + %d%%), "
                      "the largest, %s, offers %s (short by %s); use a smaller "
                      "batch, a lower precision or a GPU with more memory",
                      gs->name, fmt_mib(big->need_mib, f1, sizeof f1),
                      fmt_mib(big->memory_mib, f2, sizeof f2), hp, gs->mig[big->profile].name,
                      fmt_mib(big->usable_mib, f3, sizeof f3),
                      fmt_mib(big->need_mib - big->usable_mib, f4, sizeof f4));
    } else {
        len = appendf(r, sz, len,
                      "no %s profile meets the %s target: the fastest that fits, %s, "
                      "takes %s%s (%s too slow)",
                      gs->name, fmt_ms(a->slo_ms, f1, sizeof f1),
                      gs->mig[a->opts[fastest_i].profile].name,
                      a->slo_factor > 1 ? "up to " : "", fmt_ms(fastest, f2, sizeof f2),
                      fmt_ms(fastest - a->slo_ms, f3, sizeof f3));
    }
    (void)len;
}

enum status mig_advise(struct predictor *p, struct graph *g, const struct config *cfg,
                       double headroom, double slo_ms, struct mig_advice *out, struct diag *d)
{
    memset(out, 0, sizeof *out);
    out->gpu = cfg->gpu;
    out->best = -1;
    out->headroom = headroom;
    out->slo_ms = slo_ms;
    const struct gpu_spec *gs = gpu_get(cfg->gpu);
    if (!gs)
        return diag_set(d, ST_ERANGE, "GPU index %d out of range", cfg->gpu);
    if (headroom < 0 || headroom > 10)
        return diag_set(d, ST_ERANGE, "headroom %.3g: expected 0 to 1000%%", headroom * 100);
    if (gs->n_mig == 0) {
        size_t len = appendf(out->reason, sizeof out->reason, 0,
                             "%s has no MIG profiles: it runs only as a whole GPU; the GPUs "
                             "with MIG are ",
                             gs->name);
        const char *prev = "";
        for (int i = 0; i < gpu_count(); i++) {
            const struct gpu_spec *o = gpu_get(i);
            if (o->n_mig > 0 && strcmp(o->family, prev))
                len = appendf(out->reason, sizeof out->reason, len, "%s%s", *prev ? ", " : "",
                              o->family);
            if (o->n_mig > 0)
                prev = o->family;
        }
        (void)len;
        return ST_OK;
    }
    /* Memory is one figure per model and configuration: a slice changes how
     * fast the model runs, not what it allocates, except for the part of the
     * CUDA context that grows with the SMs (the teacher's context_sm_mib).
     * It is predicted once, on the whole GPU, and each slice differs from it
     * by exactly the teacher's context difference, so the verdict near a
     * boundary cannot flip with noise between slices and a bigger slice
     * never needs less. */
    struct config whole = *cfg;
    whole.mig = -1;
    struct prediction pw;
    enum status sw = predict_run(p, g, &whole, &pw, d);
    double mem_mib = pw.memory_mib;
    out->whole_latency_ms = pw.latency_ms;
    out->whole_memory_mib = pw.memory_mib;
    out->whole_capacity_mib = pw.capacity_mib;
    prediction_fini(&pw);
    if (sw)
        return sw;
    int idx[MIG_MAX_PROFILES];
    int n = mig_profile_order(gs, idx);
    for (int i = 0; i < n; i++) {
        struct config c = *cfg;
        c.mig = idx[i];
        struct prediction pr;
        enum status st = predict_run(p, g, &c, &pr, d);
        if (st) {
            prediction_fini(&pr);
            return st;
        }
        struct mig_option *o = &out->opts[out->n++];
        o->profile = idx[i];
        o->memory_mib = mig_memory_on(&whole, mem_mib, idx[i]);
        o->latency_ms = pr.latency_ms;
        prediction_fini(&pr);
    }
    mig_decide(gs, out);
    return ST_OK;
}
