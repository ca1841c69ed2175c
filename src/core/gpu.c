/*
 * gpu.c - the hardware table: ten data-centre GPUs and every MIG profile of
 * each that has MIG (A100, H100, H200; L4, T4 and V100 have none). Pure data
 * plus lookups; the figures come from NVIDIA's datasheets, the MIG User Guide
 * (v580, tables 6-8) and nvidia-smi mig -lgip captures; each GPU's `source`
 * field names its own. Figures marked "estimate" below are not published;
 * each says what it was derived from.
 */
#include "core/gpu.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/textsafe.h"

/* ---- MIG profiles ----------------------------------------------------------
 * {name, memory eighths, compute sevenths, SMs, usable GiB, max count, +me}.
 * Memory and bandwidth fractions: one memory slice = 1/8 of DRAM and of its
 * bandwidth (MIG User Guide). SMs and usable GiB: nvidia-smi mig -lgip.    */

/* A100 40 GB (SXM4 and PCIe): 98 of 108 SMs usable in MIG mode. The guide
 * prints 1/8 for 1g.10gb's memory, a typo: it holds two memory slices. */
static const struct mig_profile a100_40_mig[] = {
    {"1g.5gb", 1, 1, 14, 4.75, 7, false},   {"1g.5gb+me", 1, 1, 14, 4.75, 1, true},
    {"1g.10gb", 2, 1, 14, 9.75, 4, false},  {"2g.10gb", 2, 2, 28, 9.75, 3, false},
    {"3g.20gb", 4, 3, 42, 19.62, 2, false}, {"4g.20gb", 4, 4, 56, 19.62, 1, false},
    {"7g.40gb", 8, 7, 98, 39.38, 1, false},
};

/* A100 80 GB (SXM4 and PCIe): names scale with memory (guide note). */
static const struct mig_profile a100_80_mig[] = {
    {"1g.10gb", 1, 1, 14, 9.50, 7, false},  {"1g.10gb+me", 1, 1, 14, 9.50, 1, true},
    {"1g.20gb", 2, 1, 14, 19.50, 4, false}, {"2g.20gb", 2, 2, 28, 19.50, 3, false},
    {"3g.40gb", 4, 3, 42, 39.25, 2, false}, {"4g.40gb", 4, 4, 56, 39.25, 1, false},
    {"7g.80gb", 8, 7, 98, 79.00, 1, false},
};

/* H100 SXM5 80 GB: SMs from the jbarrow.ai -lgip capture (note 1g.20gb has
 * 26 SMs and 3g.40gb 60, as captured). */
static const struct mig_profile h100_sxm_mig[] = {
    {"1g.10gb", 1, 1, 16, 9.75, 7, false},  {"1g.10gb+me", 1, 1, 16, 9.75, 1, true},
    {"1g.20gb", 2, 1, 26, 19.62, 4, false}, {"2g.20gb", 2, 2, 32, 19.62, 3, false},
    {"3g.40gb", 4, 3, 60, 39.50, 2, false}, {"4g.40gb", 4, 4, 64, 39.50, 1, false},
    {"7g.80gb", 8, 7, 132, 79.25, 1, false},
};

/* H100 PCIe 80 GB: 2g/3g/4g/7g = 30/46/62/114 SMs (gpus.md); the 1g SM
 * counts (14) are an estimate (114/7 rounded down to an even SM pair count,
 * not captured); usable GiB as SXM5 (same 80 GB HBM, estimate). */
static const struct mig_profile h100_pcie_mig[] = {
    {"1g.10gb", 1, 1, 14, 9.75, 7, false},  {"1g.10gb+me", 1, 1, 14, 9.75, 1, true},
    {"1g.20gb", 2, 1, 14, 19.62, 4, false}, {"2g.20gb", 2, 2, 30, 19.62, 3, false},
    {"3g.40gb", 4, 3, 46, 39.50, 2, false}, {"4g.40gb", 4, 4, 62, 39.50, 1, false},
    {"7g.80gb", 8, 7, 114, 79.25, 1, false},
};

/* H200 141 GB: fractions and counts from the guide. Usable GiB of 1g.18gb
 * (16.00), 3g/4g.71gb (69.50) and 7g.141gb (139.75) are `nvidia-smi mig
 * -lgip` figures; 1g.35gb/2g.35gb (34.62) are estimates at H100 SXM5's
 * ratio of the 2-slice to the 7-slice figure (19.62 / 79.25). SM counts
 * other than 1g are estimates taken from H100 SXM5 (same GH100 die). */
static const struct mig_profile h200_mig[] = {
    {"1g.18gb", 1, 1, 16, 16.00, 7, false},  {"1g.18gb+me", 1, 1, 16, 16.00, 1, true},
    {"1g.35gb", 2, 1, 26, 34.62, 4, false},  {"2g.35gb", 2, 2, 32, 34.62, 3, false},
    {"3g.71gb", 4, 3, 60, 69.50, 2, false},  {"4g.71gb", 4, 4, 64, 69.50, 1, false},
    {"7g.141gb", 8, 7, 132, 139.75, 1, false},
};

#define NPROF(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ---- GPUs -------------------------------------------------------------------
 * tflops: dense peaks {fp32 CUDA cores, tf32, fp16, bf16 tensor, int8 TOPS, fp8}; 0 = the
 * GPU has no tensor-core path for that precision (fp8 before Hopper).
 * usable_gib (no MIG): total memory as nvidia-smi reports it less the ECC /
 * driver reservation; these are estimates just above the 7g profile's figure.
 * idle_w: not published by NVIDIA for any of these parts; see each source.
 * sustain: fraction of the boost-clock peak a board holds under a sustained
 * tensor-core load. SXM boards (400-700 W) hold boost; the A100 PCIe boards
 * (250/300 W) drop to ~1.3 GHz of 1.41 under load, and published PCIe vs SXM
 * MLPerf and DeepLearningExamples throughputs differ by ~5-8% at equal
 * memory size: 0.93 (estimate). H100 PCIe's table peaks are already at its
 * own 1755 MHz boost; at 350 W it sheds a further ~5% (estimate, 0.95).
 * The 70-72 W boards (L4, T4) cannot hold boost under a sustained tensor-core
 * load: T4 settles at ~1.1-1.3 GHz of its 1590 MHz boost at 70 W (0.75,
 * estimate), L4 loses less of its 2040 MHz on a 5 nm die (0.85, estimate);
 * V100 PCIe at 250 W drops a little below its 1380 MHz boost (0.95, estimate).
 * L4, T4 and V100 have no MIG (n_mig 0). T4 (Turing) and V100 (Volta) have no
 * TF32 or BF16 tensor-core path and V100 no INT8 one (dp4a runs on its CUDA
 * cores, which is not what an INT8 engine means here): those columns are 0,
 * so config_supported refuses them and FP32 convolutions run on CUDA cores.
 * Interconnect (the last two columns, GB/s in both directions together, as
 * the datasheets print them; tensor parallelism's all-reduce, core/tp.c):
 * NVLink of the SXM boards (A100 third generation 600, H100 and H200 fourth
 * generation 900; 0 = none: the PCIe boards' two-card bridges are not
 * modelled) and the host PCIe x16 link (Gen3 32: T4, V100; Gen4 64: A100,
 * L4; Gen5 128: H100, H200), all from each GPU's datasheet. */
static const struct gpu_spec gpus[] = {
    {"A100-SXM4-40GB", "A100", 108, 98, 1410, {19.5, 156, 312, 312, 624, 0}, 40, 39.59, 1555, 40,
     400, 55, 1.0, NPROF(a100_40_mig), a100_40_mig,
     "A100 datasheet (nvidia-a100-datasheet r4) via glennklockwood.com/garden/processors/A100; "
     "MIG: NVIDIA MIG User Guide v580 + -lgip captures; usable 39.59 GiB (40536 MiB) and "
     "idle 55 W are estimates (idle below the 59-62 W measured on the 80 GB part)", 600, 64},
    {"A100-SXM4-80GB", "A100", 108, 98, 1410, {19.5, 156, 312, 312, 624, 0}, 80, 79.15, 2039, 40,
     400, 60, 1.0, NPROF(a100_80_mig), a100_80_mig,
     "A100 datasheet (80 GB HBM2e 2,039 GB/s); MIG: MIG User Guide v580; idle 60 W from a "
     "public nvidia-smi capture (59-62 W at P0, github.com/allenai/PeerRead/issues/40); usable "
     "79.15 GiB is an estimate", 600, 64},
    {"A100-PCIe-40GB", "A100", 108, 98, 1410, {19.5, 156, 312, 312, 624, 0}, 40, 39.59, 1555, 40,
     250, 40, 0.93, NPROF(a100_40_mig), a100_40_mig,
     "A100 datasheet (PCIe 250 W; thundercompute.com A100 specs guide); sustains lower clocks "
     "than SXM at 250 W (not modelled); idle 40 W and usable GiB are estimates", 0, 64},
    {"A100-PCIe-80GB", "A100", 108, 98, 1410, {19.5, 156, 312, 312, 624, 0}, 80, 79.15, 1935, 40,
     300, 45, 0.93, NPROF(a100_80_mig), a100_80_mig,
     "A100 datasheet (PCIe 80 GB 1,935 GB/s, 300 W; thundercompute.com); idle 45 W and usable "
     "GiB are estimates", 0, 64},
    {"H100-SXM5-80GB", "H100", 132, 132, 1980, {66.9, 494.7, 989.4, 989.4, 1979, 1979}, 80, 79.65, 3350,
     50, 700, 120, 1.0, NPROF(h100_sxm_mig), h100_sxm_mig,
     "H100 dense values glennklockwood.com/garden/processors/h100 (datasheet halves of sparse); "
     "MIG SMs jbarrow.ai/field_notes/nvidia-mig; idle 120 W is an estimate (140-145 W seen at "
     "0% util with 72 GB allocated, github.com/wilicc/gpu-burn/issues/114); usable GiB estimate",
     900, 128},
    {"H100-PCIe-80GB", "H100", 114, 114, 1755, {51, 378, 756, 756, 1513, 1513}, 80, 79.65, 2000, 50,
     350, 60, 0.95, NPROF(h100_pcie_mig), h100_pcie_mig,
     "H100 PCIe product brief PB-11133-001 (350 W) and datasheet (dense = sparse/2); boost "
     "clock 1755 MHz, 1g MIG SMs, idle 60 W and usable GiB are estimates", 0, 128},
    {"H200-SXM-141GB", "H200", 132, 132, 1980, {66.9, 494.7, 989.4, 989.4, 1979, 1979}, 141, 140.0,
     4800, 50, 700, 120, 1.0, NPROF(h200_mig), h200_mig,
     "H200: GH100 compute as H100 SXM5, 141 GB HBM3e at 4.8 TB/s, 700 W (openmetal.io, "
     "aiwiki.ai/wiki/nvidia_h200); MIG fractions MIG User Guide v580; MIG SMs other than 1g, "
     "usable GiB, clock and idle 120 W are estimates", 900, 128},
    {"L4-PCIe-24GB", "L4", 58, 0, 2040, {30.3, 60, 121, 121, 242.5, 242.5}, 24, 22.49, 300, 48,
     72, 16, 0.85, 0, NULL,
     "NVIDIA L4 datasheet (AD104, 7,424 CUDA cores = 58 SMs, 2040 MHz boost; dense = half "
     "the sparse TF32 120 / FP16 242 / FP8 and INT8 485; 24 GB GDDR6 300 GB/s, 48 MB L2, "
     "72 W); no MIG; usable 22.49 GiB (nvidia-smi 23034 MiB), idle 16 W (P8 idle of public "
     "nvidia-smi captures) and sustain 0.85 are estimates", 0, 64},
    {"T4-PCIe-16GB", "T4", 40, 0, 1590, {8.1, 0, 65, 0, 130, 0}, 16, 14.75, 320, 4, 70, 10, 0.75,
     0, NULL,
     "NVIDIA T4 datasheet (TU104, 2,560 CUDA cores = 40 SMs, 1590 MHz boost; FP32 8.1, FP16 "
     "mixed-precision 65, INT8 130 TOPS; no TF32, BF16 or FP8; 16 GB GDDR6 320 GB/s, 4 MB L2, "
     "70 W); no MIG; usable 14.75 GiB (nvidia-smi ~15100 MiB with ECC), idle 10 W (P8 idle of "
     "public captures) and sustain 0.75 (~1.2 GHz under load at 70 W) are estimates", 0, 32},
    {"V100-PCIe-32GB", "V100", 80, 0, 1380, {14, 0, 112, 0, 0, 0}, 32, 31.72, 900, 6, 250, 35, 0.95,
     0, NULL,
     "NVIDIA V100 datasheet, PCIe column (GV100, 80 SMs, 1380 MHz boost; FP32 14, tensor 112; "
     "no TF32, BF16, INT8 or FP8 tensor-core path; 32 GB HBM2 900 GB/s, 6 MB L2, 250 W); no "
     "MIG; usable 31.72 GiB (NVML total 32480 MiB), idle 35 W (below the 44-57 W seen on "
     "300 W V100 SXM2 boards at P0) and sustain 0.95 are estimates", 0, 32},
};

_Static_assert(PREC__COUNT == 6, "tflops[] columns follow PRECISION_LIST");

/* Short names users type. */
static const struct {
    const char *alias;
    const char *name;
} aliases[] = {
    {"a100", "A100-SXM4-40GB"},          {"a100-40gb", "A100-SXM4-40GB"},
    {"a100-sxm", "A100-SXM4-40GB"},      {"a100-sxm4", "A100-SXM4-40GB"},
    {"a100-sxm-40gb", "A100-SXM4-40GB"}, {"a100-80gb", "A100-SXM4-80GB"},
    {"a100-sxm-80gb", "A100-SXM4-80GB"}, {"a100-pcie", "A100-PCIe-40GB"},
    {"a100-pcie-40gb", "A100-PCIe-40GB"},{"a100-pcie-80gb", "A100-PCIe-80GB"},
    {"h100", "H100-SXM5-80GB"},          {"h100-sxm", "H100-SXM5-80GB"},
    {"h100-sxm5", "H100-SXM5-80GB"},     {"h100-80gb", "H100-SXM5-80GB"},
    {"h100-pcie", "H100-PCIe-80GB"},     {"h100-pcie-80gb", "H100-PCIe-80GB"},
    {"h200", "H200-SXM-141GB"},          {"h200-sxm", "H200-SXM-141GB"},
    {"h200-141gb", "H200-SXM-141GB"},
    {"l4", "L4-PCIe-24GB"},              {"nvidia-l4", "L4-PCIe-24GB"},
    {"l4-24gb", "L4-PCIe-24GB"},         {"l4-pcie", "L4-PCIe-24GB"},
    {"t4", "T4-PCIe-16GB"},              {"tesla-t4", "T4-PCIe-16GB"},
    {"nvidia-t4", "T4-PCIe-16GB"},       {"t4-16gb", "T4-PCIe-16GB"},
    {"v100", "V100-PCIe-32GB"},          {"v100-pcie", "V100-PCIe-32GB"},
    {"v100-32gb", "V100-PCIe-32GB"},     {"v100-pcie-32gb", "V100-PCIe-32GB"},
    {"tesla-v100", "V100-PCIe-32GB"},    {"tesla-v100-pcie-32gb", "V100-PCIe-32GB"},
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
    if (!name)
        return -1;
    for (int i = 0; i < gpu_count(); i++)
        if (!strcasecmp(gpus[i].name, name))
            return i;
    for (size_t a = 0; a < sizeof aliases / sizeof aliases[0]; a++)
        if (!strcasecmp(aliases[a].alias, name))
            for (int i = 0; i < gpu_count(); i++)
                if (!strcmp(gpus[i].name, aliases[a].name))
                    return i;
    return -1;
}

const char *gpu_aliases_of(int i, int k)
{
    const struct gpu_spec *g = gpu_get(i);
    if (!g)
        return NULL;
    for (size_t a = 0; a < sizeof aliases / sizeof aliases[0]; a++)
        if (!strcmp(aliases[a].name, g->name) && k-- == 0)
            return aliases[a].alias;
    return NULL;
}

int gpu_mig_find(const struct gpu_spec *gpu, const char *name)
{
    if (!gpu || !name)
        return -1;
    for (int i = 0; i < gpu->n_mig; i++)
        if (!strcasecmp(gpu->mig[i].name, name))
            return i;
    return -1;
}

/* "unknown GPU 'NAME'; known: A100-SXM4-40GB ..." into d. */
static enum status unknown_gpu(const char *name, size_t len, struct diag *d)
{
    char known[256];
    size_t n = 0;
    known[0] = '\0';
    for (int i = 0; i < gpu_count() && n < sizeof known; i++)
        n += (size_t)snprintf(known + n, sizeof known - n, " %s", gpus[i].name);
    char bad[128];
    snprintf(bad, sizeof bad, "%.*s", (int)len, name);
    return diag_set(d, ST_ENOTFOUND, "unknown GPU '%s'; known:%s", tsafe(bad), known);
}

/* "GPU has no MIG profile 'PROFILE'; profiles: 1g.5gb ... full" into d. */
static enum status unknown_profile(const struct gpu_spec *g, const char *profile,
                                   struct diag *d)
{
    if (g->n_mig == 0)
        return diag_set(d, ST_ENOTFOUND, "%s has no MIG profiles (it runs only as a "
                        "whole GPU)", g->name);
    char known[256];
    size_t n = 0;
    known[0] = '\0';
    for (int i = 0; i < g->n_mig && n < sizeof known; i++)
        n += (size_t)snprintf(known + n, sizeof known - n, " %s", g->mig[i].name);
    return diag_set(d, ST_ENOTFOUND, "%s has no MIG profile '%s'; profiles:%s, or full "
                    "(the whole GPU)", g->name, tsafe(profile), known);
}

enum status gpu_target_parse(const char *spec, int cur, int *gpu, int *mig, struct diag *d)
{
    size_t len = strcspn(spec, ":");
    int gi = cur;
    if (len > 0 || !gpu_get(cur)) {
        char name[128];
        if (len >= sizeof name)
            return unknown_gpu(spec, len, d);
        memcpy(name, spec, len);
        name[len] = '\0';
        if ((gi = gpu_find(name)) < 0)
            return unknown_gpu(spec, len, d);
    }
    int mi = GPU_MIG_UNSET;
    const char *profile = spec[len] ? spec + len + 1 : NULL;
    if (profile && !strcasecmp(profile, "full"))
        mi = -1;
    else if (profile && (mi = gpu_mig_find(&gpus[gi], profile)) < 0)
        return unknown_profile(&gpus[gi], profile, d);
    *gpu = gi;
    *mig = mi;
    return ST_OK;
}

/* Which tensor-core generations have a precision, in general terms. */
static const char *prec_generations(enum precision p)
{
    switch (p) {
    case PREC_TF32: case PREC_BF16: return "Ampere or newer";
    case PREC_INT8: return "Turing or newer";
    case PREC_FP8: return "Ada or Hopper or newer";
    default: return "Volta or newer";
    }
}

/* The families of the table that have a tensor-core path for p, as
 * "A100, H100, H200, L4", each once. */
static void families_with(enum precision p, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < gpu_count() && len < size; i++) {
        bool seen = gpus[i].tflops[p] <= 0;
        for (int j = 0; j < i && !seen; j++)
            seen = gpus[j].tflops[p] > 0 && !strcmp(gpus[j].family, gpus[i].family);
        if (!seen)
            len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
                                    gpus[i].family);
    }
}

enum status config_supported(const struct config *cfg, struct diag *d)
{
    const struct gpu_spec *g = gpu_get(cfg->gpu);
    if (!g || (unsigned)cfg->prec >= PREC__COUNT || (unsigned)cfg->rt >= RT__COUNT)
        return ST_OK; /* range errors are hw_from_config's */
    /* ONNX Runtime's CUDA execution provider dequantises a QDQ graph's
     * int8 and fp8 tensors and runs the float kernels; only its TensorRT
     * provider runs them on the tensor cores */
    bool ort = runtime_onnxruntime(cfg->rt);
    if ((runtime_eager(cfg->rt) || ort) && (cfg->prec == PREC_INT8 || cfg->prec == PREC_FP8))
        /* short enough for an 80-column status line, in words that read
         * as both the CLI's --runtime and the explorer's :runtime */
        return diag_set(d, ST_EUSAGE, "%s needs runtime tensorrt: runtime %s (%s) has no %s GPU path",
                        precision_name(cfg->prec), runtime_name(cfg->rt),
                        ort ? "CUDA EP" : "eager", precision_name(cfg->prec));
    if (g->tflops[cfg->prec] <= 0) {
        char fams[128];
        families_with(cfg->prec, fams, sizeof fams);
        return diag_set(d, ST_EUSAGE,
                        "precision %s on %s: its tensor cores have no %s path (%s needs %s "
                        "tensor cores: in this table %s)",
                        precision_name(cfg->prec), g->name, precision_name(cfg->prec),
                        precision_name(cfg->prec), prec_generations(cfg->prec), fams);
    }
    return ST_OK;
}

enum precision hw_kernel_precision(enum precision prec, bool tensor_core)
{
    return tensor_core && prec == PREC_FP32 ? PREC_TF32 : prec;
}

double hw_kernel_peak(const struct hw *hw, enum precision prec, bool tensor_core)
{
    if (tensor_core)
        return hw_kernel_precision(prec, true) != prec ? hw->peak_tf32_flops : hw->peak_flops;
    bool half = prec == PREC_FP16 || prec == PREC_BF16 || prec == PREC_INT8 || prec == PREC_FP8;
    return hw->peak_fp32_flops * (half ? 2.0 : 1.0);
}

enum status hw_from_config(const struct config *cfg, struct hw *hw, struct diag *d)
{
    const struct gpu_spec *g = gpu_get(cfg->gpu);
    if (!g)
        return diag_set(d, ST_ERANGE, "GPU index %d out of range (the table has %d GPUs)",
                        cfg->gpu, gpu_count());
    if ((unsigned)cfg->prec >= PREC__COUNT)
        return diag_set(d, ST_ERANGE, "precision %d out of range", (int)cfg->prec);
    if (cfg->mig < -1 || cfg->mig >= g->n_mig)
        return diag_set(d, ST_ERANGE, "MIG profile index %d out of range for %s (%d profiles)",
                        cfg->mig, g->name, g->n_mig);
    hw->gpu = g;
    hw->mig = NULL;
    snprintf(hw->label_buf, sizeof hw->label_buf, "%s", g->name);
    hw->label = hw->label_buf;
    hw->sms = g->sms;
    hw->peak_flops = g->tflops[cfg->prec] * 1e12 * g->sustain;
    hw->peak_fp32_flops = g->tflops[PREC_FP32] * 1e12 * g->sustain;
    hw->peak_tf32_flops = g->tflops[PREC_TF32] * 1e12 * g->sustain;
    hw->bw_bytes = g->bw_gbs * 1e9;
    hw->l2_bytes = g->l2_mib * 1048576.0;
    hw->mem_bytes = g->usable_gib * 1073741824.0;
    hw->tdp_w = g->tdp_w;
    hw->idle_w = g->idle_w;
    if (cfg->mig >= 0) {
        const struct mig_profile *p = &g->mig[cfg->mig];
        /* Per-SM throughput is unchanged inside a slice, so peaks scale with
         * the slice's SMs over the full GPU's; DRAM bandwidth and L2 are
         * partitioned with the memory slices (MIG User Guide). Power has no
         * per-slice budget: the slice is charged its compute share of TDP
         * and idle power, the part of the board it keeps busy. */
        double sm_frac = (double)p->sms / g->sms;
        double mem_frac = p->mem_eighths / 8.0;
        hw->mig = p;
        snprintf(hw->label_buf, sizeof hw->label_buf, "%s %s", g->name, p->name);
        hw->sms = p->sms;
        hw->peak_flops *= sm_frac;
        hw->peak_fp32_flops *= sm_frac;
        hw->peak_tf32_flops *= sm_frac;
        hw->bw_bytes *= mem_frac;
        hw->l2_bytes *= mem_frac;
        hw->mem_bytes = p->usable_gib * 1073741824.0;
        hw->tdp_w *= p->sm_sevenths / 7.0;
        hw->idle_w *= p->sm_sevenths / 7.0;
    }
    return ST_OK;
}

bool gpu_slice_bigger(int gi, int mx, int my)
{
    const struct gpu_spec *g = gpu_get(gi);
    int sx = mx < 0 ? g->sms : g->mig[mx].sms;
    int sy = my < 0 ? g->sms : g->mig[my].sms;
    int ex = mx < 0 ? 9 : g->mig[mx].mem_eighths; /* the whole GPU beats 8/8 */
    int ey = my < 0 ? 9 : g->mig[my].mem_eighths;
    return sx >= sy && ex >= ey && (sx > sy || ex > ey);
}

/* True if a's SMs are not slower than b's: a small kernel of few CTAs runs
 * at one SM's rate (CUDA-core FP32 TFLOPS per SM at boost: the clock times
 * the lanes). The same SM at the same clock (H100 SXM5 and H200) counts;
 * otherwise a's must be at least 10% faster, because board clocks under
 * load (sustain) and the efficiencies the teacher keeps per family move an
 * SM's rate by that much: A100's SMs at 1410 MHz do not order against
 * V100's at 1380 or T4's at 1590, and L4's at 2040 are the fastest. */
static bool sm_not_slower(const struct gpu_spec *a, const struct gpu_spec *b)
{
    double ra = a->tflops[PREC_FP32] / a->sms, rb = b->tflops[PREC_FP32] / b->sms;
    return ra == rb || ra >= 1.1 * rb;
}

bool gpu_newer(int x, int y, enum precision p)
{
    const struct gpu_spec *a = gpu_get(x), *b = gpu_get(y);
    if (!strcmp(a->family, b->family))
        return false;
    /* More SMs do not speed up a kernel that fills few of them: the SM
     * must not be slower either */
    return a->sms >= b->sms && a->bw_gbs >= b->bw_gbs && a->tflops[p] >= b->tflops[p] &&
           b->tflops[p] > 0 && sm_not_slower(a, b);
}
