/*
 * diffusion.h - a latent diffusion pipeline's time, energy and memory per
 * image on top of the per-pass predictor: the text encoder(s) once over the
 * prompts, `steps` denoising steps of the denoiser (a zoo unet or dit, or
 * any graph with a batch symbol given a VAE spec), then one VAE decode of
 * the batch. With classifier-free guidance the prompts are 2 x batch (each
 * prompt and its negative prompt) and each denoiser pass runs on 2 x batch
 * latents (the conditional and the unconditional half in one pass); without
 * it both run on the batch. Every model stays resident on the GPU for the
 * whole pipeline, in one process: one CUDA context and workspace, not one
 * per model. The scheduler's arithmetic between steps is not counted.
 *
 * Every pass goes through predict_run, so the numbers are the GNN's (or the
 * teacher's without weights): simulated, never measured.
 */
#ifndef DIPPM_DIFFUSION_H
#define DIPPM_DIFFUSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/config.h"
#include "graph/ir/ir.h"
#include "core/mig.h"
#include "core/predict.h"

#define DIFF_MAX_TEXT 4    /* text encoders of one pipeline */
#define DIFF_SPEC_MAX 192  /* characters of a part's spec */

struct diff_request {
    int64_t steps;   /* denoising steps, >= 1 */
    bool guidance;   /* classifier-free guidance: the denoiser runs on 2 x batch */
    int64_t batch;   /* images generated together */
    const char *vae; /* VAE decoder spec; NULL: derived from a zoo denoiser */
    /* Text encoder specs: n_text of text; none given (n_text 0) derives
     * them from a zoo denoiser unless no_text leaves them out. */
    const char *const *text;
    int n_text;
    bool no_text;
    double headroom; /* memory fraction kept spare: fits and the MIG advice (fit.h) */
};

/* One text encoder's pass over the prompts of the batch. */
struct diff_text {
    char spec[DIFF_SPEC_MAX];
    double ms, energy_j;  /* the pass */
    double memory_mib;    /* the pass's peak (its weights and working set) */
    double weights_mib;   /* its weights, resident for the whole pipeline */
};

struct diff_result {
    int64_t steps, batch, denoiser_batch;
    int64_t text_batch;      /* prompts encoded: 2 x batch with guidance */
    bool guidance;
    char vae_spec[DIFF_SPEC_MAX];
    int n_text;              /* 0: no text encoder (left out) */
    struct diff_text text[DIFF_MAX_TEXT];
    double text_ms;          /* every text encoder's pass */
    double step_ms;          /* one denoiser pass */
    double denoise_ms;       /* steps x step_ms */
    double vae_ms;           /* one decode of the batch */
    double batch_ms;         /* text + denoise + decode: the whole batch */
    double ms_per_image, images_per_s;
    double energy_j, energy_j_per_image; /* whole batch; per image */
    /* One pass's figure (its context, workspace, weights and liveness
     * peak, fused kernels' on-chip values left out) plus the other
     * models' weights, the largest over the passes: buffers are reused
     * from pass to pass, the context is the process's. */
    double memory_mib;
    double capacity_mib;
    bool fits;               /* fit_ok with the request's headroom */
    bool from_gnn;
    /* With diff_mig: the smallest MIG profile that holds the pipeline
     * (memory, with the slice's CUDA context (mig_memory_on), x (1 +
     * headroom)); its per-profile latency is the batch's. */
    bool have_mig;
    struct mig_advice mig;
};

/* The VAE decoder spec for a zoo unet or dit spec (its latent size and
 * channels); ST_EUSAGE naming what to pass (--vae) for anything else. */
enum status diff_vae_spec(const char *denoiser_spec, char *buf, size_t size, struct diag *d);

/* The text encoder specs for a zoo unet (by its cross-attention width:
 * 768 CLIP ViT-L/14, 1024 OpenCLIP ViT-H/14, 2048 both CLIP ViT-L/14 and
 * OpenCLIP ViT-bigG/14) or dit (caption width 4096: the T5 v1.1 XXL encoder
 * over its caption tokens; arch=mmdit, SD3: CLIP ViT-L/14 with its text
 * projection and OpenCLIP ViT-bigG/14 over 77 tokens, the T5 v1.1 XXL
 * encoder over the other tokens) into specs; ST_EUSAGE naming what to pass
 * (--text-encoder, --no-text-encoder) for anything else. */
enum status diff_text_specs(const char *denoiser_spec, char (*specs)[DIFF_SPEC_MAX], int *n,
                            struct diag *d);

/* The i-th text encoder diff_text_specs knows (a zoo spec), or NULL past
 * the last. */
const char *diff_text_known(int i);

/* Predicts the pipeline of denoiser g (its batch symbol is re-bound) under
 * cfg; cfg->batch is ignored in favour of rq->batch. */
enum status diff_run(struct predictor *p, struct graph *g, const struct config *cfg,
                     const struct diff_request *rq, struct diff_result *out, struct diag *d);

/* Sizes the pipeline of rq for every MIG profile of cfg's GPU into
 * out->mig (out from diff_run with the same arguments); a GPU without MIG
 * leaves have_mig false. */
enum status diff_mig(struct predictor *p, struct graph *g, const struct config *cfg,
                     const struct diff_request *rq, struct diff_result *out,
                     struct diag *d);

/* The diffusion block of `dippm predict` (fields in man/dippm.1). */
void diff_report_text(FILE *f, const struct diff_result *r);
struct jsonw;
void diff_report_json(struct jsonw *w, const struct diff_result *r);
/* The figures of one pipeline (steps, batch, times, images/s, energy,
 * memory, fits) as keys of an open object: a sweep row. */
void diff_report_json_fields(struct jsonw *w, const struct diff_result *r);

#endif
