/* sim_fitted.h - the teacher's fitted constants, written by `dippm calibrate
 * --write-params` (the published rows) and `dippm eval --kernels --fit
 * --write-params` (NeuSight's kernels); never edited by hand. What each one
 * is, its a-priori value and the rows that fit it: src/core/sim_params.c. */
#ifndef DIPPM_SIM_FITTED_H
#define DIPPM_SIM_FITTED_H

#define FIT_TC_EFF_PYTORCH 0.6167
#define FIT_TC_EFF_TENSORRT 0.7926
#define FIT_CUDA_EFF 0.8689
#define FIT_BW_EFF 0.95
#define FIT_KERNEL_US_PYTORCH 7.621
#define FIT_KERNEL_US_TENSORRT 6.848
#define FIT_GRAPH_KERNEL_US 5.301
#define FIT_DISPATCH_US_PYTORCH 44.97
#define FIT_DISPATCH_US_TENSORRT 4.212
#define FIT_CALL_US_PYTORCH 301
#define FIT_CALL_US_TENSORRT 90.29
#define FIT_CONTEXT_MIB_PYTORCH 1457
#define FIT_CONTEXT_MIB_TENSORRT 2366
#define FIT_CONTEXT_SM_MIB 3.511
#define FIT_ACT_FACTOR 1.825
#define FIT_CONV_EFF_PYTORCH 0.4273
#define FIT_CONV_EFF_TENSORRT 0.9388
#define FIT_DW_BW_EFF_PYTORCH 0.1661
#define FIT_DW_BW_EFF_TENSORRT 0.5536
#define FIT_SEQ_STEP_US_TENSORRT 15.05
#define FIT_SEQ_STEP_US_VLLM 60.85
#define FIT_REQUEST_US_TENSORRT 1505
#define FIT_HOPPER_CLOCK 0.8406
#define FIT_OVERLAP_P 3.833
#define FIT_K_HALF 96.68
#define FIT_SIMT_K_HALF 16.12
#define FIT_BATCHED_SGEMM_EFF 1.0955
#define FIT_NORM_BW_EFF 0.9193
#define FIT_SOFTMAX_BW_EFF 0.7873
#define FIT_ROW_CACHE_NORM 0.2921
#define FIT_ROW_CACHE_SOFT 1.3192
#define FIT_P_ACTIVE 0.3091
#define FIT_P_MEMORY 0.5111

/* GPU families: fp32_keep, bw_keep */
#define FIT_BOARD_A100 1.1207, 0.9689
#define FIT_BOARD_T4 0.7394, 0.8068
#define FIT_BOARD_V100 1.2068, 0.9954

/* NeuSight's kernel benchmark host: its dispatch per eager op (us) */
#define FIT_KBENCH_DISPATCH_US 19.78

#endif
