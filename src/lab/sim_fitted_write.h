/*
 * sim_fitted_write.h - writes src/core/sim_fitted.h, the teacher's fitted
 * constants, so that no fitted figure is copied into the source by hand.
 * `dippm calibrate --write-params FILE` writes it with the constants its
 * fit moved, `dippm eval --kernels --fit --write-params FILE` with the
 * kernel fit's (each keeps the compiled-in value of what it does not fit);
 * sim_params.c, whose comments say what each constant is and where it
 * comes from, and kbench.h read the macros.
 */
#ifndef DIPPM_SIM_FITTED_WRITE_H
#define DIPPM_SIM_FITTED_WRITE_H

#include "core/sim.h"
#include "util/status.h"
#include "util/strbuf.h"

/* The GPU families whose fp32_keep and bw_keep the kernel fit sets (those
 * with train-split rows), in the order of sim_fitted.h. */
#define SIM_FITTED_FAMILIES 3
extern const char *const sim_fitted_families[SIM_FITTED_FAMILIES];

/* One family's fitted shares. */
struct sim_fitted_board {
    double fp32_keep, bw_keep;
};

/* The text of sim_fitted.h for params p, the families' shares (in
 * sim_fitted_families' order) and the kernel benchmark's host dispatch. */
void sim_fitted_text(struct strbuf *out, const struct sim_params *p,
                     const struct sim_fitted_board *boards, double kbench_dispatch_us);
/* The compiled-in shares of the fitted families. */
void sim_fitted_boards_compiled(struct sim_fitted_board *boards);
/* Writes that text to path atomically; an existing file only with force. */
enum status sim_fitted_write(const char *path, bool force, const struct sim_params *p,
                             const struct sim_fitted_board *boards, double kbench_dispatch_us,
                             struct diag *d);

#endif
