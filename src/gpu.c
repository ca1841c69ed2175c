/* gpu.c - PLACEHOLDER table (one GPU) until the teacher work lands. */
#include "gpu.h"

#include <stddef.h>
#include <strings.h>

static const struct mig_profile a100_40_mig[] = {
    {"1g.5gb", 1, 1, 14, 4.75, 7, false},   {"1g.5gb+me", 1, 1, 14, 4.75, 1, true},
    {"1g.10gb", 2, 1, 14, 9.75, 4, false},  {"2g.10gb", 2, 2, 28, 9.75, 3, false},
    {"3g.20gb", 4, 3, 42, 19.62, 2, false}, {"4g.20gb", 4, 4, 56, 19.62, 1, false},
    {"7g.40gb", 8, 7, 98, 39.38, 1, false},
};

static const struct gpu_spec gpus[] = {
    {"A100-SXM4-40GB", "A100", 108, 98, 1410, {19.5, 156, 312, 312, 624}, 40, 39.38, 1555, 40,
     400, 60, 7, a100_40_mig, "A100 datasheet"},
};

int gpu_count(void)
{
    return (int)(sizeof gpus / sizeof gpus[0]);
}

const struct gpu_spec *gpu_get(int i)
{
    return i >= 0 && i < gpu_count() ? &gpus[i] : NULL;
}

int gpu_find(const char *name)
{
    for (int i = 0; i < gpu_count(); i++)
        if (!strcasecmp(gpus[i].name, name))
            return i;
    return -1;
}

int gpu_mig_find(const struct gpu_spec *gpu, const char *name)
{
    for (int i = 0; i < gpu->n_mig; i++)
        if (!strcasecmp(gpu->mig[i].name, name))
            return i;
    return -1;
}

enum status hw_from_config(const struct config *cfg, struct hw *hw, struct diag *d)
{
    const struct gpu_spec *g = gpu_get(cfg->gpu);
    if (!g)
        return diag_set(d, ST_ERANGE, "GPU index %d out of range", cfg->gpu);
    hw->gpu = g;
    hw->mig = NULL;
    hw->label = g->name;
    hw->sms = g->sms;
    hw->peak_flops = g->tflops[cfg->prec] * 1e12;
    hw->peak_fp32_flops = g->tflops[PREC_FP32] * 1e12;
    hw->bw_bytes = g->bw_gbs * 1e9;
    hw->l2_bytes = g->l2_mib * 1048576.0;
    hw->mem_bytes = g->usable_gib * 1073741824.0;
    hw->tdp_w = g->tdp_w;
    hw->idle_w = g->idle_w;
    return ST_OK;
}
