/* sim_fitted_write.c - the text of src/core/sim_fitted.h (see the header). */
#include "lab/sim_fitted_write.h"

#include <stddef.h>
#include <string.h>

#include "core/gpu.h"
#include "core/sim_impl.h"
#include "util/fileio.h"

const char *const sim_fitted_families[SIM_FITTED_FAMILIES] = {"A100", "T4", "V100"};

/* Every fitted constant of struct sim_params: its macro and its place. */
static const struct {
    const char *macro;
    size_t off;
} fields[] = {
#define F(m, field) {m, offsetof(struct sim_params, field)}
    F("FIT_TC_EFF_PYTORCH", tc_eff[RT_PYTORCH]),
    F("FIT_TC_EFF_TENSORRT", tc_eff[RT_TENSORRT]),
    F("FIT_CUDA_EFF", cuda_eff),
    F("FIT_BW_EFF", bw_eff),
    F("FIT_KERNEL_US_PYTORCH", kernel_us[RT_PYTORCH]),
    F("FIT_KERNEL_US_TENSORRT", kernel_us[RT_TENSORRT]),
    F("FIT_GRAPH_KERNEL_US", graph_kernel_us),
    F("FIT_DISPATCH_US_PYTORCH", dispatch_us[RT_PYTORCH]),
    F("FIT_DISPATCH_US_TENSORRT", dispatch_us[RT_TENSORRT]),
    F("FIT_CALL_US_PYTORCH", call_us[RT_PYTORCH]),
    F("FIT_CALL_US_TENSORRT", call_us[RT_TENSORRT]),
    F("FIT_CONTEXT_MIB_PYTORCH", context_mib[RT_PYTORCH]),
    F("FIT_CONTEXT_MIB_TENSORRT", context_mib[RT_TENSORRT]),
    F("FIT_CONTEXT_SM_MIB", context_sm_mib),
    F("FIT_ACT_FACTOR", act_factor),
    F("FIT_CONV_EFF_PYTORCH", conv_eff[RT_PYTORCH]),
    F("FIT_CONV_EFF_TENSORRT", conv_eff[RT_TENSORRT]),
    F("FIT_DW_BW_EFF_PYTORCH", dw_bw_eff[RT_PYTORCH]),
    F("FIT_DW_BW_EFF_TENSORRT", dw_bw_eff[RT_TENSORRT]),
    F("FIT_SEQ_STEP_US_TENSORRT", seq_step_us[RT_TENSORRT]),
    F("FIT_SEQ_STEP_US_VLLM", seq_step_us[RT_VLLM]),
    F("FIT_REQUEST_US_TENSORRT", request_us[RT_TENSORRT]),
    F("FIT_HOPPER_CLOCK", hopper_clock),
    F("FIT_OVERLAP_P", overlap_p),
    F("FIT_K_HALF", k_half),
    F("FIT_SIMT_K_HALF", simt_k_half),
    F("FIT_BATCHED_SGEMM_EFF", batched_sgemm_eff),
    F("FIT_NORM_BW_EFF", norm_bw_eff),
    F("FIT_SOFTMAX_THREAD_BPC", softmax_thread_bpc),
    F("FIT_ROW_CACHE", row_cache),
    F("FIT_ROW_CACHE_SOFT", row_cache_soft),
    F("FIT_P_ACTIVE", p_active),
    F("FIT_P_MEMORY", p_memory),
#undef F
};

void sim_fitted_text(struct strbuf *out, const struct sim_params *p,
                     const struct sim_fitted_board *boards, double kbench_dispatch_us)
{
    strbuf_printf(out,
        "/* sim_fitted.h - the teacher's fitted constants, written by `dippm calibrate\n"
        " * --write-params` (the published rows) and `dippm eval --kernels --fit\n"
        " * --write-params` (NeuSight's kernels); never edited by hand. What each one\n"
        " * is, its a-priori value and the rows that fit it: src/core/sim_params.c. */\n"
        "#ifndef DIPPM_SIM_FITTED_H\n#define DIPPM_SIM_FITTED_H\n\n");
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        strbuf_printf(out, "#define %s %.5g\n", fields[i].macro,
                      *(const double *)((const char *)p + fields[i].off));
    strbuf_printf(out, "\n/* GPU families: fp32_keep, bw_keep */\n");
    for (int f = 0; f < SIM_FITTED_FAMILIES; f++)
        strbuf_printf(out, "#define FIT_BOARD_%s %.5g, %.5g\n", sim_fitted_families[f],
                      boards[f].fp32_keep, boards[f].bw_keep);
    strbuf_printf(out, "\n/* NeuSight's kernel benchmark host: its dispatch per eager op (us) */\n"
                       "#define FIT_KBENCH_DISPATCH_US %.4g\n\n#endif\n", kbench_dispatch_us);
}

void sim_fitted_boards_compiled(struct sim_fitted_board *boards)
{
    for (int f = 0; f < SIM_FITTED_FAMILIES; f++) {
        boards[f] = (struct sim_fitted_board){1, 1};
        for (int g = 0; g < gpu_count(); g++)
            if (!strcmp(gpu_get(g)->family, sim_fitted_families[f])) {
                struct hw hw = {.gpu = gpu_get(g)};
                const struct sim_board *b = sim_board_of(&hw);
                boards[f] = (struct sim_fitted_board){b->fp32_keep, b->bw_keep};
                break;
            }
    }
}

enum status sim_fitted_write(const char *path, bool force, const struct sim_params *p,
                             const struct sim_fitted_board *boards, double kbench_dispatch_us,
                             struct diag *d)
{
    struct strbuf b = STRBUF_INIT;
    sim_fitted_text(&b, p, boards, kbench_dispatch_us);
    enum status st = file_write_atomic(path, b.s, b.len, force, d);
    strbuf_fini(&b);
    return st;
}
