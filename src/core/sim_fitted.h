/* sim_fitted.h - the teacher's fitted constants, written by `dippm calibrate
 * --write-params` (the published rows) and `dippm eval --kernels --fit
 * --write-params` (NeuSight's kernels); never edited by hand. What each one
 * is, its a-priori value and the rows that fit it: src/core/sim_params.c. */
#ifndef DIPPM_SIM_FITTED_H
#define DIPPM_SIM_FITTED_H

#define FIT_TC_EFF_PYTORCH 0.60984
#define FIT_TC_EFF_TENSORRT 0.78256
#define FIT_CUDA_EFF 0.86887
#define FIT_BW_EFF 0.95
#define FIT_KERNEL_US_PYTORCH 8.0001
#define FIT_KERNEL_US_TENSORRT 6.8485
#define FIT_GRAPH_KERNEL_US 5.3119
#define FIT_DISPATCH_US_PYTORCH 44.967
#define FIT_DISPATCH_US_TENSORRT 4.1949
#define FIT_CALL_US_PYTORCH 300.96
#define FIT_CALL_US_TENSORRT 90.288
#define FIT_CONTEXT_MIB_PYTORCH 1457
#define FIT_CONTEXT_MIB_TENSORRT 2365.6
#define FIT_CONTEXT_SM_MIB 3.5105
#define FIT_ACT_FACTOR 1.8254
#define FIT_CONV_EFF_PYTORCH 0.4261
#define FIT_CONV_EFF_TENSORRT 0.95083
#define FIT_DW_BW_EFF_PYTORCH 0.16614
#define FIT_DW_BW_EFF_TENSORRT 0.55359
#define FIT_SEQ_STEP_US_TENSORRT 15.048
#define FIT_SEQ_STEP_US_VLLM 60.714
#define FIT_REQUEST_US_TENSORRT 1504.8
#define FIT_HOPPER_CLOCK 0.85093
#define FIT_OVERLAP_P 3.833
#define FIT_K_HALF 96.706
#define FIT_SIMT_K_HALF 16.116
#define FIT_BATCHED_SGEMM_EFF 1.0955
#define FIT_NORM_BW_EFF 0.9193
#define FIT_SOFTMAX_THREAD_BPC 0.0031606
#define FIT_ROW_CACHE 0.29164
#define FIT_ROW_CACHE_SOFT 1.3232
#define FIT_P_ACTIVE 0.30703
#define FIT_P_MEMORY 0.51345

/* GPU families: fp32_keep, bw_keep */
#define FIT_BOARD_A100 1.1207, 0.96903
#define FIT_BOARD_T4 0.73941, 0.80687
#define FIT_BOARD_V100 1.2068, 0.99547

/* NeuSight's kernel benchmark host: its dispatch per eager op (us) */
#define FIT_KBENCH_DISPATCH_US 19.45

#endif
