/*
 * mig.h - the MIG advisor: predicts the model on
 * every MIG profile of the configured GPU and picks the smallest profile that
 * holds the predicted memory with headroom and, when a latency target is set,
 * meets it. Says why, with numbers; never "Undefined".
 */
#ifndef DIPPM_MIG_H
#define DIPPM_MIG_H

#include <stdbool.h>

#include "core/gpu.h"
#include "core/predict.h"

#define MIG_MAX_PROFILES 16

struct mig_option {
    int profile;        /* index into gpu->mig */
    double usable_mib;  /* what the slice offers */
    double need_mib;    /* predicted memory * (1 + headroom) */
    double memory_mib;  /* predicted memory on that slice */
    double latency_ms;  /* predicted latency on that slice */
    bool fits;          /* need_mib <= usable_mib */
    bool meets_slo;     /* true when no target is set */
};

struct mig_advice {
    int gpu;
    int best;          /* profile index, or -1 if none qualifies */
    double headroom;   /* fraction, e.g. 0.10 */
    double slo_ms;     /* 0 = no latency target */
    double slo_factor; /* the target holds latency_ms x this (the upper bound of its
                          interval, --slo-upper); 0 or 1: the prediction itself */
    /* The whole GPU at the same configuration, predicted first (memory is
     * moved from it to each slice); 0 when the GPU has no MIG profiles. */
    double whole_latency_ms, whole_memory_mib, whole_capacity_mib;
    int n;
    struct mig_option opts[MIG_MAX_PROFILES]; /* ordered smallest to largest */
    char reason[640];  /* e.g. "3g.20gb: 19.62 GiB usable >= 14.1 GiB predicted + 10%;
                          2g.10gb too small by 3.2 GiB" */
};

/* Runs the predictor for cfg on each profile of cfg->gpu (cfg->mig ignored).
 * g's bindings are left as cfg sets them. */
enum status mig_advise(struct predictor *p, struct graph *g, const struct config *cfg,
                       double headroom, double slo_ms, struct mig_advice *out, struct diag *d);

/* cfg's predicted memory mib (on cfg->mig, or the whole GPU) on profile
 * `to` of the same GPU (-1: the whole GPU): the same allocations, and the
 * teacher's CUDA context of that slice, which grows with its SMs
 * (sim_params context_sm_mib). Memory is one figure per model and
 * configuration otherwise; the advisor and the sweep both move it here. */
double mig_memory_on(const struct config *cfg, double mib, int to);

/* The smallest profile (mig_profile_order) of cfg's GPU that holds cfg's
 * memory mib (on cfg->mig or the whole GPU) with headroom (fit_ok), as
 * mig_advise decides without a latency target; -1 when none does or the
 * GPU has no MIG. */
int mig_smallest_fit(const struct config *cfg, double mib, double headroom);

/* Candidate profiles of gpu from smallest to largest (memory slices, then
 * compute slices; "+me" duplicates skipped) into idx; returns the count. */
int mig_profile_order(const struct gpu_spec *gpu, int *idx);

/* The decision alone: from a->opts[].profile/memory_mib/latency_ms and
 * a->headroom/slo_ms/slo_factor, fills usable/need/fits/meets_slo, best and reason. */
void mig_decide(const struct gpu_spec *gpu, struct mig_advice *a);

#endif
