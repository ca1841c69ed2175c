/*
 * diffusion.h - a latent diffusion pipeline's time, energy and memory per
 * image on top of the per-pass predictor: `steps` denoising steps of the
 * denoiser (a zoo unet or dit, or any graph with a batch symbol given a VAE
 * spec), each over 2 x batch latents with classifier-free guidance (the
 * conditional and the unconditional half in one pass) or batch without,
 * then one VAE decode of the batch. The text encoder runs once per prompt
 * and is not counted (under 1% of an image at 20 steps for CLIP and T5-XXL
 * at their prompt lengths); nor is the scheduler's arithmetic between steps.
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

#include "config.h"
#include "ir.h"
#include "mig.h"
#include "predict.h"

struct diff_request {
    int64_t steps;   /* denoising steps, >= 1 */
    bool guidance;   /* classifier-free guidance: the denoiser runs on 2 x batch */
    int64_t batch;   /* images generated together */
    const char *vae; /* VAE decoder spec; NULL: derived from a zoo denoiser */
};

struct diff_result {
    int64_t steps, batch, denoiser_batch;
    bool guidance;
    char vae_spec[192];
    double step_ms;          /* one denoiser pass */
    double denoise_ms;       /* steps x step_ms */
    double vae_ms;           /* one decode of the batch */
    double batch_ms;         /* denoise + decode: the whole batch */
    double ms_per_image, images_per_s;
    double energy_j, energy_j_per_image; /* whole batch; per image */
    double memory_mib;       /* both models' weights resident, the larger pass's working set */
    double capacity_mib;
    bool fits;
    bool from_gnn;
    /* With diff_mig: the smallest MIG profile that holds the pipeline
     * (memory x (1 + headroom)); its per-profile latency is the batch's. */
    bool have_mig;
    struct mig_advice mig;
};

/* The VAE decoder spec for a zoo unet or dit spec (its latent size and
 * channels); ST_EUSAGE naming what to pass (--vae) for anything else. */
enum status diff_vae_spec(const char *denoiser_spec, char *buf, size_t size, struct diag *d);

/* Predicts the pipeline of denoiser g (its batch symbol is re-bound) under
 * cfg; cfg->batch is ignored in favour of rq->batch. */
enum status diff_run(struct predictor *p, struct graph *g, const struct config *cfg,
                     const struct diff_request *rq, struct diff_result *out, struct diag *d);

/* Sizes the pipeline of rq for every MIG profile of cfg's GPU into
 * out->mig (out from diff_run with the same arguments); a GPU without MIG
 * leaves have_mig false. */
enum status diff_mig(struct predictor *p, struct graph *g, const struct config *cfg,
                     const struct diff_request *rq, double headroom, struct diff_result *out,
                     struct diag *d);

/* The diffusion block of `dippm predict` (fields in man/dippm.1). */
void diff_report_text(FILE *f, const struct diff_result *r);
struct jsonw;
void diff_report_json(struct jsonw *w, const struct diff_result *r);
/* The figures of one pipeline (steps, batch, times, images/s, energy,
 * memory, fits) as keys of an open object: a sweep row. */
void diff_report_json_fields(struct jsonw *w, const struct diff_result *r);

#endif
