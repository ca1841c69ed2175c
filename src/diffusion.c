/* diffusion.c - a latent diffusion pipeline per image: steps x the denoiser
 * (2 x batch with classifier-free guidance) + one VAE decode (diffusion.h). */
#include "diffusion.h"

#include <stdio.h>
#include <string.h>

#include "jsonw.h"
#include "load.h"
#include "zoo.h"

enum status diff_vae_spec(const char *denoiser_spec, char *buf, size_t size, struct diag *d)
{
    struct zoo_args a;
    struct diag zd = {0};
    const char *fam = NULL;
    if (!strncmp(denoiser_spec, "zoo:", 4) && !zoo_args_parse(denoiser_spec, &a, &zd))
        fam = zoo_family_name(a.fam);
    if (!fam || (strcmp(fam, "unet") && strcmp(fam, "dit")))
        return diag_set(d, ST_EUSAGE,
                        "%s: the pipeline's VAE decoder is known for the zoo unet and dit "
                        "denoisers only; name it with --vae SPEC (e.g. zoo:vae:latent=128)",
                        denoiser_spec);
    char lat[32], ch[32] = "4";
    zoo_args_value(&a, zoo_param_find(a.fam, "latent"), lat, sizeof lat);
    int ci = zoo_param_find(a.fam, "in_channels");
    if (ci >= 0)
        zoo_args_value(&a, ci, ch, sizeof ch);
    /* the 16-channel VAE (SD3, FLUX) has no post-quantisation conv */
    if (!strcmp(ch, "16"))
        snprintf(buf, size, "zoo:vae:preset=sd3-vae:latent=%s", lat);
    else
        snprintf(buf, size, "zoo:vae:preset=sd-vae:latent_channels=%s:latent=%s", ch, lat);
    return ST_OK;
}

/* The VAE graph for rq (or derived from g), with g's image-size bindings. */
static struct graph *open_vae(const struct graph *g, const struct diff_request *rq,
                              struct diff_result *out, struct diag *d)
{
    if (rq->vae)
        snprintf(out->vae_spec, sizeof out->vae_spec, "%s", rq->vae);
    else if (diff_vae_spec(g->path ? g->path : "", out->vae_spec, sizeof out->vae_spec, d))
        return NULL;
    struct graph *vae = model_load(out->vae_spec, d);
    if (!vae) {
        diag_prefix(d, "the VAE decoder");
        return NULL;
    }
    if (graph_batch_sym(vae) < 0) {
        diag_set(d, ST_EUSAGE, "VAE decoder %s: no batch dimension to decode the batch on",
                 out->vae_spec);
        graph_free(vae);
        return NULL;
    }
    static const char *const dims[2] = {"height", "width"};
    for (int k = 0; k < 2; k++) {
        int s = graph_sym_find(g, dims[k]), t = graph_sym_find(vae, dims[k]);
        if (s >= 0 && t >= 0)
            vae->syms[t].val = g->syms[s].val;
    }
    return vae;
}

/* Predicts one pass of g at batch b. */
static enum status pass(struct predictor *p, struct graph *g, const struct config *cfg,
                        int64_t b, struct prediction *pr, struct diag *d)
{
    struct config c = *cfg;
    c.batch = b;
    enum status st = predict_run(p, g, &c, pr, d);
    if (st)
        prediction_fini(pr);
    return st;
}

static void combine(const struct diff_request *rq, const struct prediction *den,
                    const struct prediction *vae, struct diff_result *out)
{
    out->step_ms = den->latency_ms;
    out->denoise_ms = (double)rq->steps * den->latency_ms;
    out->vae_ms = vae->latency_ms;
    out->batch_ms = out->denoise_ms + out->vae_ms;
    out->ms_per_image = out->batch_ms / (double)rq->batch;
    out->images_per_s = out->batch_ms > 0 ? (double)rq->batch * 1e3 / out->batch_ms : 0;
    out->energy_j = (double)rq->steps * den->energy_j + vae->energy_j;
    out->energy_j_per_image = out->energy_j / (double)rq->batch;
    /* both models stay resident; the working set is the larger pass's */
    double a = den->memory_mib + vae->sim.weights_mib, b = vae->memory_mib + den->sim.weights_mib;
    out->memory_mib = a > b ? a : b;
    out->capacity_mib = den->capacity_mib;
    out->fits = out->memory_mib <= out->capacity_mib;
    out->from_gnn = den->from_gnn && vae->from_gnn;
}

/* Checks rq and g, fills out's request fields and opens the VAE decoder. */
static struct graph *begin(struct graph *g, const struct diff_request *rq,
                           struct diff_result *out, struct diag *d)
{
    memset(out, 0, sizeof *out);
    if (rq->steps < 1 || rq->batch < 1) {
        diag_set(d, ST_ERANGE, "diffusion: %lld steps, batch %lld: expected both >= 1",
                 (long long)rq->steps, (long long)rq->batch);
        return NULL;
    }
    if (graph_batch_sym(g) < 0) {
        diag_set(d, ST_EUSAGE, "%s: the denoiser has no batch dimension",
                 g->path ? g->path : "model");
        return NULL;
    }
    out->steps = rq->steps;
    out->batch = rq->batch;
    out->guidance = rq->guidance;
    out->denoiser_batch = rq->guidance ? 2 * rq->batch : rq->batch;
    return open_vae(g, rq, out, d);
}

/* The two passes of the pipeline with an opened VAE (out from begin). */
static enum status run_passes(struct predictor *p, struct graph *g, struct graph *vae,
                              const struct config *cfg, const struct diff_request *rq,
                              struct diff_result *out, struct diag *d)
{
    struct prediction den, dec;
    enum status st = pass(p, g, cfg, out->denoiser_batch, &den, d);
    if (st)
        return st;
    st = pass(p, vae, cfg, rq->batch, &dec, d);
    if (st)
        diag_prefix(d, "VAE decoder %s", out->vae_spec);
    else {
        combine(rq, &den, &dec, out);
        prediction_fini(&dec);
    }
    prediction_fini(&den);
    return st;
}

enum status diff_run(struct predictor *p, struct graph *g, const struct config *cfg,
                     const struct diff_request *rq, struct diff_result *out, struct diag *d)
{
    struct graph *vae = begin(g, rq, out, d);
    if (!vae)
        return d && d->code ? d->code : ST_EUSAGE;
    enum status st = run_passes(p, g, vae, cfg, rq, out, d);
    graph_free(vae);
    return st;
}

enum status diff_mig(struct predictor *p, struct graph *g, const struct config *cfg,
                     const struct diff_request *rq, double headroom, struct diff_result *out,
                     struct diag *d)
{
    struct mig_advice *a = &out->mig;
    memset(a, 0, sizeof *a);
    out->have_mig = false;
    const struct gpu_spec *gs = gpu_get(cfg->gpu);
    if (!gs || gs->n_mig == 0)
        return ST_OK;
    a->gpu = cfg->gpu;
    a->headroom = headroom;
    /* the VAE is opened once for every profile */
    struct diff_result r;
    struct graph *vae = begin(g, rq, &r, d);
    if (!vae)
        return d && d->code ? d->code : ST_EUSAGE;
    int idx[MIG_MAX_PROFILES];
    int n = mig_profile_order(gs, idx);
    for (int i = 0; i < n; i++) {
        struct config c = *cfg;
        c.mig = idx[i];
        enum status st = run_passes(p, g, vae, &c, rq, &r, d);
        if (st) {
            graph_free(vae);
            return st;
        }
        struct mig_option *o = &a->opts[a->n++];
        o->profile = idx[i];
        o->memory_mib = out->memory_mib; /* one memory figure whatever the slice */
        o->latency_ms = r.batch_ms;
    }
    graph_free(vae);
    mig_decide(gs, a);
    out->have_mig = true;
    return ST_OK;
}

void diff_report_text(FILE *f, const struct diff_result *r)
{
    fprintf(f, "diffusion   %lld steps, batch %lld%s (%s)\n", (long long)r->steps,
            (long long)r->batch,
            r->guidance ? ", classifier-free guidance: the denoiser runs on twice the batch"
                        : ", no guidance",
            r->from_gnn ? "GNN per pass" : "teacher per pass");
    fprintf(f, "  denoise   %lld x %.3f ms = %.1f ms (denoiser on batch %lld)\n",
            (long long)r->steps, r->step_ms, r->denoise_ms, (long long)r->denoiser_batch);
    fprintf(f, "  decode    %.3f ms (%s)\n", r->vae_ms, r->vae_spec);
    fprintf(f, "  per image %.1f ms, %.3f images/s, %.1f J (text encoder not counted)\n",
            r->ms_per_image, r->images_per_s, r->energy_j_per_image);
    fprintf(f, "  memory    %.0f MiB of %.0f MiB usable (both models resident): %s\n",
            r->memory_mib, r->capacity_mib, r->fits ? "fits" : "DOES NOT FIT");
    if (!r->have_mig)
        return;
    const struct gpu_spec *gs = gpu_get(r->mig.gpu);
    fprintf(f, "  MIG       %s  (%s)\n", r->mig.best >= 0 ? gs->mig[r->mig.best].name : "none",
            r->mig.reason);
    fprintf(f, "            per profile, the batch:");
    for (int i = 0; i < r->mig.n; i++) {
        const struct mig_option *o = &r->mig.opts[i];
        fprintf(f, "%s %s %.1f ms%s", i ? "," : "", gs->mig[o->profile].name, o->latency_ms,
                o->fits ? "" : " (too small)");
    }
    fputc('\n', f);
}

static void mig_json(struct jsonw *w, const struct mig_advice *a)
{
    const struct gpu_spec *gs = gpu_get(a->gpu);
    jsonw_key(w, "mig_advice");
    jsonw_obj_begin(w);
    jsonw_key(w, "suggestion");
    if (a->best >= 0)
        jsonw_str(w, gs->mig[a->best].name);
    else
        jsonw_null(w);
    jsonw_key(w, "reason");
    jsonw_str(w, a->reason);
    jsonw_key(w, "profiles");
    jsonw_arr_begin(w, false);
    for (int i = 0; i < a->n; i++) {
        const struct mig_option *o = &a->opts[i];
        jsonw_obj_begin(w);
        jsonw_key(w, "profile");
        jsonw_str(w, gs->mig[o->profile].name);
        jsonw_key_fixed(w, "usable_mib", o->usable_mib, 1);
        jsonw_key_fixed(w, "need_mib", o->need_mib, 1);
        jsonw_key_fixed(w, "batch_ms", o->latency_ms, 3);
        jsonw_key(w, "fits");
        jsonw_bool(w, o->fits);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);
}

void diff_report_json_fields(struct jsonw *w, const struct diff_result *r)
{
    jsonw_key(w, "steps");
    jsonw_int(w, r->steps);
    jsonw_key(w, "batch");
    jsonw_int(w, r->batch);
    jsonw_key_fixed(w, "step_ms", r->step_ms, 4);
    jsonw_key_fixed(w, "vae_ms", r->vae_ms, 4);
    jsonw_key_fixed(w, "batch_ms", r->batch_ms, 3);
    jsonw_key_fixed(w, "ms_per_image", r->ms_per_image, 3);
    jsonw_key_fixed(w, "images_per_s", r->images_per_s, 4);
    jsonw_key_fixed(w, "energy_j_per_image", r->energy_j_per_image, 3);
    jsonw_key_fixed(w, "memory_mib", r->memory_mib, 1);
    jsonw_key(w, "fits");
    jsonw_bool(w, r->fits);
}

void diff_report_json(struct jsonw *w, const struct diff_result *r)
{
    jsonw_key(w, "diffusion");
    jsonw_obj_begin(w);
    diff_report_json_fields(w, r);
    jsonw_key(w, "guidance");
    jsonw_bool(w, r->guidance);
    jsonw_key(w, "denoiser_batch");
    jsonw_int(w, r->denoiser_batch);
    jsonw_key_fixed(w, "denoise_ms", r->denoise_ms, 3);
    jsonw_key(w, "vae");
    jsonw_str(w, r->vae_spec);
    jsonw_key_fixed(w, "capacity_mib", r->capacity_mib, 1);
    if (r->have_mig)
        mig_json(w, &r->mig);
    jsonw_obj_end(w);
}
