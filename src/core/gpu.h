/*
 * gpu.h - the hardware table: data-centre GPUs and every MIG profile of
 * each, with sources (the `source` field). Pure data plus lookups.
 */
#ifndef DIPPM_GPU_H
#define DIPPM_GPU_H

#include <stdbool.h>

#include "core/config.h"

struct mig_profile {
    const char *name;   /* "3g.20gb" */
    int mem_eighths;    /* memory (and bandwidth) fraction in eighths; 8 = full */
    int sm_sevenths;    /* compute slices of 7 */
    int sms;            /* SMs of the slice (nvidia-smi mig -lgip) */
    double usable_gib;  /* memory usable by a process, as -lgip reports */
    int max_count;      /* instances per GPU */
    bool media;         /* "+me" profile with media engines */
};

struct gpu_spec {
    const char *name;       /* "A100-SXM4-40GB" */
    const char *family;     /* "A100", "H100", "H200", "L4", "T4", "V100" */
    int sms;                /* SMs of the full GPU */
    int mig_sms;            /* SMs usable in MIG mode (7g profile); 0 without MIG */
    double clock_mhz;       /* boost clock */
    double tflops[PREC__COUNT]; /* dense peak per precision: fp32 (CUDA cores), tf32/fp16/bf16
                                   tensor, int8 tensor (TOPS), fp8 tensor (0: none) */
    double mem_gib;         /* device memory */
    double usable_gib;      /* usable by a process without MIG */
    double bw_gbs;          /* DRAM bandwidth, GB/s */
    double l2_mib;
    double tdp_w;
    double idle_w;          /* idle/static power used by the energy model */
    double sustain;         /* fraction of the boost-clock peak held under sustained load
                               (power- and thermal-limited boards run below boost) */
    int n_mig;              /* 0: the GPU has no MIG (L4, T4, V100) */
    const struct mig_profile *mig; /* NULL when n_mig is 0 */
    const char *source;     /* where the numbers come from */
    double nvlink_gbs;      /* NVLink per GPU, GB/s both directions (datasheet); 0: none */
    double pcie_gbs;        /* host PCIe x16 link, GB/s both directions (datasheet) */
};

int gpu_count(void);
/* Borrowed, static; NULL if out of range. */
const struct gpu_spec *gpu_get(int i);
/* Case-insensitive match on the name or a documented alias ("a100", "a100-40gb",
 * "h100", "h200"...); -1 if unknown. */
int gpu_find(const char *name);
/* The k-th short alias of GPU i ("a100", "h100-pcie"...), NULL past the last. */
const char *gpu_aliases_of(int i, int k);
/* Profile index of `name` on gpu ("3g.20gb"), -1 if it has no such profile. */
int gpu_mig_find(const struct gpu_spec *gpu, const char *name);

/* What gpu_target_parse leaves in *mig for a target without ":PROFILE": the
 * caller chooses (the whole GPU, or the explorer's slice of the same name). */
#define GPU_MIG_UNSET (-2)

/* The one parser of a GPU[:PROFILE] target (--gpu, the explorer's :gpu and
 * :mig, its preferences, the price table). NAME is a GPU name or alias
 * (gpu_find); an empty NAME (":3g.20gb") means GPU cur when cur names one
 * (the explorer's current GPU; -1: a name is required). PROFILE is a MIG
 * profile of that GPU (gpu_mig_find) or "full", the whole GPU (*mig -1).
 * ST_ENOTFOUND with a diag that names the unknown GPU or profile and lists
 * those accepted; *gpu and *mig are then unchanged. */
enum status gpu_target_parse(const char *spec, int cur, int *gpu, int *mig, struct diag *d);

/* The orderings the predictions keep (dippm eval --orderings, and the
 * ordering partners of training). mig -1 is the whole GPU. True if slice
 * (or whole GPU) mx of GPU gi is at least slice my in every resource (SMs,
 * memory share) and bigger in one. */
bool gpu_slice_bigger(int gi, int mx, int my);
/* True if whole GPU x dominates whole GPU y at precision p: a newer
 * generation (another family) with at least the SMs, bandwidth and peak,
 * and SMs no slower (the same, or clearly faster in CUDA-core FP32 per SM),
 * which a kernel of few CTAs runs at. */
bool gpu_newer(int x, int y, enum precision p);

/* The effective hardware of a configuration: the whole GPU or one MIG slice
 * (its SMs, its share of bandwidth and L2, its usable memory). */
struct hw {
    const struct gpu_spec *gpu;
    const struct mig_profile *mig; /* NULL for the whole GPU */
    const char *label;             /* "A100-SXM4-40GB" or "A100-SXM4-40GB 3g.20gb" */
    int sms;
    double peak_flops;     /* FLOP/s at the configured precision (tensor cores if any) */
    double peak_fp32_flops;/* CUDA-core FP32 FLOP/s of the slice (for non-GEMM ops) */
    double peak_tf32_flops;/* TF32 tensor-core FLOP/s (eager PyTorch's default for FP32 convs) */
    double bw_bytes;       /* bytes/s */
    double l2_bytes;
    double mem_bytes;      /* usable device memory */
    double tdp_w, idle_w;  /* scaled to the slice */
    char label_buf[64];    /* storage behind label (label points here after
                              hw_from_config; re-point it after copying hw) */
};

/* ST_OK when the runtime can run the precision on the GPU; else
 * ST_EUSAGE with a diag that says why (eager PyTorch has no int8 or fp8
 * path; the GPU's tensor cores have none for the precision: its tflops
 * column is 0, and the message names the generations and the table's
 * families that have one). */
enum status config_supported(const struct config *cfg, struct diag *d);

/* The precision a kernel of a prec configuration does its math in: prec,
 * except a tensor-core kernel of an FP32 configuration, which runs TF32
 * (the teacher runs eager PyTorch's FP32 convolutions and every FP32 GEMM
 * of an engine on TF32 tensor cores where the GPU has them, sim_kernel.c). */
enum precision hw_kernel_precision(enum precision prec, bool tensor_core);
/* The math peak (FLOP/s) of such a kernel on hw (filled for a prec
 * configuration): the tensor cores' at hw_kernel_precision, or the CUDA
 * cores' (packed half2: twice FP32 for 16-bit and narrower types). The
 * roofline a kernel is drawn against. */
double hw_kernel_peak(const struct hw *hw, enum precision prec, bool tensor_core);

/* Fills hw for cfg; returns ST_ERANGE with a diag if gpu or mig index is out
 * of range. */
enum status hw_from_config(const struct config *cfg, struct hw *hw, struct diag *d);

#endif
