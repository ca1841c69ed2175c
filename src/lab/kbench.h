/*
 * kbench.h - measured single kernels (tests/data/neusight/kernels.tsv,
 * written by tools/neusight_import.py from NeuSight's public artifact) and
 * how well the teacher and the GNN predict them.
 *
 * A row is one operator timed on its own with CUDA events in eager PyTorch
 * 2.1, FP32 with TF32 off: a batched matmul (b products of m x k by k x n),
 * a linear layer (b rows, k in, n out), an element-wise op, a layer norm or
 * a softmax over b rows of m columns. Each is predicted as the one-node
 * template zoo:kernel (graph/zoo/zoo_kernel.c) at batch b, precision fp32,
 * runtime pytorch, timed on the GPU (the call cost of sim_call_ms left out).
 *
 * File format: a header line, then tab-separated
 *   split gpu op b m n k latency_us kernel grid [more fields, ignored]
 * (split "train" or "test"; gpu a name of the GPU table; op a zoo:kernel op,
 * or "bmm" for matmul). Rows on a GPU the table lacks, and convolutions
 * (which zoo:kernel does not build), are counted, not loaded; anything else
 * malformed is an error naming FILE:LINE and the field.
 */
#ifndef DIPPM_KBENCH_H
#define DIPPM_KBENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/sim.h"
#include "core/sim_fitted.h"
#include "util/status.h"

#define KBENCH_GROUP_LIST(X)                       \
    X(KG_MATMUL, "matmul", "batched matmul")       \
    X(KG_LINEAR, "linear", "linear layer")         \
    X(KG_ELEMENTWISE, "elementwise", "element-wise") \
    X(KG_LAYERNORM, "layernorm", "layer norm")     \
    X(KG_SOFTMAX, "softmax", "softmax")

enum kbench_group {
#define X(id, name, desc) id,
    KBENCH_GROUP_LIST(X)
#undef X
    KG__COUNT
};
const char *kbench_group_name(enum kbench_group g);

struct kbench_row {
    bool test;            /* NeuSight's test split */
    int gpu;              /* GPU table index */
    char op[16];          /* zoo:kernel op */
    enum kbench_group group;
    int64_t b, m, n, k;
    double measured_us;
    int line;
};

struct kbench_set {
    struct kbench_row *rows;
    int n;
    int n_other_gpu;      /* rows on GPUs the table lacks (not loaded) */
    int n_other_op;       /* rows of operators zoo:kernel does not build (conv) */
};

enum status kbench_load(const char *path, struct kbench_set *out, struct diag *d);
void kbench_fini(struct kbench_set *s);

/* The zoo spec of a row ("zoo:kernel:op=matmul:m=..:n=..:k=.."). */
void kbench_spec(const struct kbench_row *r, char *buf, size_t size);

struct predictor;
/* Predicts every row with the teacher (params NULL = compiled-in) into
 * teacher_us[i] and, when p is not NULL, with the GNN into gnn_us[i]
 * (may be NULL otherwise); both GPU-timed, in microseconds, with the
 * harness's dispatch dispatch_us per op (KBENCH_DISPATCH_US, or a fitted
 * one). */
enum status kbench_predict(const struct kbench_set *s, const struct sim_params *params,
                           double dispatch_us, struct predictor *p, double *teacher_us,
                           double *gnn_us, struct diag *d);

/* The benchmark's host: NeuSight times one eager op between two CUDA
 * events (record, op, record), so a row holds the host's dispatch of that
 * op (the GPU idles from the first event until the kernel is launched) plus
 * the kernel. That host time is the harness's, not a model's: a bare
 * functional op, where the teacher's calibrated dispatch_us (sim_params.c)
 * is what the harnesses of the published model rows spend per op, modules
 * and hooks included. Every row is predicted with this dispatch instead,
 * fitted (dippm eval --kernels --fit --write-params writes it to
 * sim_fitted.h) on the train-split rows of under KBENCH_FIT_HOST_MAX_US,
 * which the host's time dominates. */
#define KBENCH_DISPATCH_US FIT_KBENCH_DISPATCH_US
#define KBENCH_FIT_HOST_MAX_US 60.0

/* Fits the harness's dispatch (above) to the train-split rows under
 * KBENCH_FIT_HOST_MAX_US, then the constants of FP32 matrix products on CUDA
 * cores (cuda_eff and simt_k_half of *params, in place) to the train-split
 * matmul and linear rows that take at least KBENCH_FIT_MIN_US: least
 * squares on log time, a golden-section search per constant, alternated
 * until the loss settles; *dispatch_us receives the harness's dispatch and
 * *n_fit the GEMM rows used. Then batched_sgemm_eff, norm_bw_eff and
 * softmax_thread_bpc, each on its own group's rows of at least
 * KBENCH_FIT_BW_MIN_US (element-wise rows, which few are longer, count from
 * there too for the family constants below). */
#define KBENCH_FIT_MIN_US 1000.0
#define KBENCH_FIT_BW_MIN_US 300.0
/* With boards (gpu_count() entries, indexed by GPU), also each GPU family's
 * constants as sim_params.c's table holds them (sim_impl.h, struct
 * sim_board): the current ones times the geometric mean of predicted over
 * measured time of the family's GEMM rows (fp32_keep) and element-wise rows
 * (bw_keep), after the fit, in the entry of the family's first GPU; n_gemm
 * and n_elem count the rows (0: none, the constant stays). */
struct kbench_board_fit {
    int gpu, n_gemm, n_elem;
    double fp32_keep, bw_keep;
};
enum status kbench_fit(const struct kbench_set *s, struct sim_params *params,
                       double *dispatch_us, int *n_fit, struct kbench_board_fit *boards,
                       struct diag *d);

/* Appends the rows as measured dataset rows (dataset.h) of the zoo:kernel
 * spec at batch b, fp32, pytorch, latency timed on the GPU (the call cost
 * added, as dataset JSONL's "timing": "gpu"), family "kernel:GROUP": the
 * rows of NeuSight's test split when test, else its train split, leaving
 * out GPU exclude_gpu (-1: none) and, counted in *too_big, rows whose b
 * exceeds a dataset row's largest batch. Returns the rows added. */
struct dataset;
int kbench_to_dataset(const struct kbench_set *s, bool test, int exclude_gpu,
                      struct dataset *ds, int *too_big);

/* MAPE (%) with a bootstrap 95% interval over rows (deterministic). */
struct kbench_stat {
    int n;
    double mape, lo, hi;
};
/* Over the rows i with sel[i] true (sel NULL = all rows). */
void kbench_mape(const struct kbench_set *s, const double *pred_us, const bool *sel,
                 struct kbench_stat *out);

#endif
