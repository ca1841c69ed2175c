/*
 * fit.h - the one rule for "fits": a model fits a GPU or MIG slice when its
 * predicted memory plus the headroom kept spare is within the memory the
 * GPU or slice offers a process. predict's and sweep's fits column, the MIG
 * advisor, the generation and diffusion reports and the explorer's screens
 * all decide here, so no two of them can disagree on one configuration.
 */
#ifndef DIPPM_FIT_H
#define DIPPM_FIT_H

#include <stdbool.h>

/* The headroom every report and screen keeps unless told otherwise. */
#define FIT_HEADROOM_DEFAULT 0.10

/* memory_mib x (1 + headroom): what the GPU or slice must offer. */
double fit_need_mib(double memory_mib, double headroom);
/* fit_need_mib(memory_mib, headroom) <= usable_mib. */
bool fit_ok(double memory_mib, double headroom, double usable_mib);
/* How much fit_need_mib exceeds usable_mib; 0 when it fits. */
double fit_over_mib(double memory_mib, double headroom, double usable_mib);

#endif
