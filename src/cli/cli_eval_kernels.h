/* cli_eval_kernels.h - `dippm eval --kernels FILE` (cli_eval_kernels.c). */
#ifndef DIPPM_CLI_EVAL_KERNELS_H
#define DIPPM_CLI_EVAL_KERNELS_H

#include <stdbool.h>

#include "cli/cli.h"

/* Predicts every measured kernel of FILE (lab/kbench.h) with the teacher
 * and, unless teacher_only, with co->weights' GNN, and writes MAPE per
 * operator group and GPU; rows_csv (or NULL) receives every row with its
 * predictions. refit: the teacher's FP32 matrix-product constants are
 * first fitted to the train split (kbench_fit) and the teacher's figures
 * use them; params_out (or NULL) then receives them as sim_fitted.h
 * (sim_fitted_write, replacing a file only with co->force). Returns the
 * exit code. */
int cli_eval_kernels(const struct cli_common *co, const char *path, bool teacher_only,
                     const char *rows_csv, bool refit, const char *params_out);

#endif
