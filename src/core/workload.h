/*
 * workload.h - what one prediction of a model covers: a single pass, an
 * LLM's generation (generation.h: prefill and decode steps over a KV cache)
 * or a diffusion pipeline (diffusion.h: text encoders, denoising steps and
 * a VAE decode). `dippm predict` and `dippm sweep` take it from their
 * options, the explorer from the model; both decide it here.
 */
#ifndef DIPPM_CORE_WORKLOAD_H
#define DIPPM_CORE_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "graph/ir/ir.h"

enum workload { WORKLOAD_PASS, WORKLOAD_GENERATION, WORKLOAD_DIFFUSION };

/* "single pass", "generation" or "diffusion". */
const char *workload_name(enum workload w);

/* The workload asked for: a generation with token counts (tokens), a
 * diffusion pipeline with denoising steps (steps > 0), else a single pass.
 * Asking for both is the caller's usage error (cli_diff_check). */
enum workload workload_asked(bool tokens, int64_t steps);

/* The workload g runs beside its single pass in the explorer: the
 * generation of a decoder (gen_is_decoder), the pipeline of a denoiser
 * whose VAE is known (a zoo unet or dit: diff_vae_spec), else none
 * (WORKLOAD_PASS). */
enum workload workload_of_model(const struct graph *g);

#endif
