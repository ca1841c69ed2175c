/* diffusion.c - a latent diffusion pipeline per image: the text encoders
 * once, steps x the denoiser (2 x batch with classifier-free guidance) and
 * one VAE decode (diffusion.h). */
#include "core/diffusion.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/jsonw.h"
#include "core/fit.h"
#include "graph/load.h"
#include "graph/zoo/zoo.h"

/* The zoo family of a unet or dit denoiser spec (parsed into a), or NULL. */
static const char *denoiser_family(const char *spec, struct zoo_args *a)
{
    struct diag zd = {0};
    if (strncmp(spec, "zoo:", 4) || zoo_args_parse(spec, a, &zd))
        return NULL;
    const char *fam = zoo_family_name(a->fam);
    return strcmp(fam, "unet") && strcmp(fam, "dit") ? NULL : fam;
}

/* Integer parameter name of a, or -1 when the family has none. */
static long arg_long(const struct zoo_args *a, const char *name)
{
    char v[32];
    int i = zoo_param_find(a->fam, name);
    return i < 0 ? -1 : atol(zoo_args_value(a, i, v, sizeof v));
}

/* Is enum parameter name of a set to value? */
static bool arg_is(const struct zoo_args *a, const char *name, const char *value)
{
    char v[32];
    int i = zoo_param_find(a->fam, name);
    return i >= 0 && !strcmp(zoo_args_value(a, i, v, sizeof v), value);
}

/* The text encoders diff_text_specs picks, in diff_text_known's order. */
enum text_encoder {
    TEXT_CLIP_L,        /* CLIP ViT-L/14: SD 1.x, SDXL's first */
    TEXT_OPENCLIP_H,    /* OpenCLIP ViT-H/14: SD 2.x */
    TEXT_OPENCLIP_BIGG, /* OpenCLIP ViT-bigG/14: SDXL's second, SD3 */
    TEXT_T5_XXL,        /* T5 v1.1 XXL's encoder: PixArt, SD3 */
    TEXT_CLIP_L_PROJ,   /* CLIP ViT-L/14 with its projection: SD3 */
    TEXT__COUNT
};

/* Each one's zoo spec. */
static const char *const text_encoder_spec[TEXT__COUNT] = {
    [TEXT_CLIP_L] = "zoo:gpt:preset=clip-l",
    [TEXT_OPENCLIP_H] = "zoo:gpt:preset=openclip-h",
    [TEXT_OPENCLIP_BIGG] = "zoo:gpt:preset=openclip-bigg",
    [TEXT_T5_XXL] = "zoo:t5:preset=t5-v1_1-xxl-encoder",
    [TEXT_CLIP_L_PROJ] = "zoo:gpt:preset=clip-l:head=projection",
};

const char *diff_text_known(int i)
{
    return i >= 0 && i < TEXT__COUNT ? text_encoder_spec[i] : NULL;
}

/* SD3's text encoders for the MMDiT a into specs (their number; 0 when a
 * is not conditioned as SD3 is). Its text tokens are 77 CLIP tokens (the
 * CLIP ViT-L/14 and ViT-bigG/14 states side by side, padded to 4096) then
 * the T5 tokens; its pooled embedding both CLIPs' projected end tokens,
 * 768 + 1280 wide. */
static int mmdit_text(const struct zoo_args *a, char (*specs)[DIFF_SPEC_MAX])
{
    long t5 = arg_long(a, "tokens") - 77;
    if (arg_long(a, "caption_dim") != 4096 || arg_long(a, "pooled_dim") != 2048 || t5 <= 0)
        return 0;
    snprintf(specs[0], DIFF_SPEC_MAX, "%s", text_encoder_spec[TEXT_CLIP_L_PROJ]);
    snprintf(specs[1], DIFF_SPEC_MAX, "%s", text_encoder_spec[TEXT_OPENCLIP_BIGG]);
    snprintf(specs[2], DIFF_SPEC_MAX, "%s:seq=%ld", text_encoder_spec[TEXT_T5_XXL], t5);
    return 3;
}

enum status diff_text_specs(const char *denoiser_spec, char (*specs)[DIFF_SPEC_MAX], int *n,
                            struct diag *d)
{
    struct zoo_args a;
    const char *fam = denoiser_family(denoiser_spec, &a);
    long width = !fam ? -1 : arg_long(&a, strcmp(fam, "unet") ? "caption_dim" : "cross_dim");
    bool unet = fam && !strcmp(fam, "unet"), mmdit = fam && arg_is(&a, "arch", "mmdit");
    *n = mmdit ? mmdit_text(&a, specs) : 0;
    if (unet && (width == 768 || width == 2048))
        snprintf(specs[(*n)++], DIFF_SPEC_MAX, "%s", text_encoder_spec[TEXT_CLIP_L]);
    if (unet && width == 1024)
        snprintf(specs[(*n)++], DIFF_SPEC_MAX, "%s", text_encoder_spec[TEXT_OPENCLIP_H]);
    if (unet && width == 2048)
        snprintf(specs[(*n)++], DIFF_SPEC_MAX, "%s", text_encoder_spec[TEXT_OPENCLIP_BIGG]);
    if (fam && !unet && !mmdit && width == 4096) /* the caption tokens */
        snprintf(specs[(*n)++], DIFF_SPEC_MAX, "%s:seq=%ld", text_encoder_spec[TEXT_T5_XXL],
                 arg_long(&a, "tokens"));
    if (*n)
        return ST_OK;
    return diag_set(d, ST_EUSAGE,
                    "%s: the pipeline's text encoder is known for the zoo unet (cross_dim 768, "
                    "1024, 2048) and dit (caption_dim 4096; arch=mmdit also pooled_dim 2048 and "
                    "over 77 tokens) denoisers only; name it with "
                    "--text-encoder SPEC (e.g. zoo:gpt:preset=clip-l) or leave it out with "
                    "--no-text-encoder", denoiser_spec);
}

enum status diff_vae_spec(const char *denoiser_spec, char *buf, size_t size, struct diag *d)
{
    struct zoo_args a;
    if (!denoiser_family(denoiser_spec, &a))
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

/* The models of a pipeline besides its denoiser, opened once. */
struct parts {
    struct graph *vae;
    struct graph *text[DIFF_MAX_TEXT];
    int n_text;
};

static void parts_free(struct parts *m)
{
    graph_free(m->vae);
    for (int i = 0; i < m->n_text; i++)
        graph_free(m->text[i]);
    memset(m, 0, sizeof *m);
}

/* Loads the model spec (what: "VAE decoder", "text encoder") that must have
 * a batch dimension. */
static struct graph *open_part(const char *spec, const char *what, struct diag *d)
{
    struct graph *g = model_load(spec, d);
    if (!g) {
        diag_prefix(d, "the %s", what);
        return NULL;
    }
    if (graph_batch_sym(g) < 0) {
        diag_set(d, ST_EUSAGE, "%s %s: no batch dimension to run the batch on", what, spec);
        graph_free(g);
        return NULL;
    }
    return g;
}

/* The VAE graph for rq (or derived from g), with g's image-size bindings. */
static struct graph *open_vae(const struct graph *g, const struct diff_request *rq,
                              struct diff_result *out, struct diag *d)
{
    if (rq->vae)
        snprintf(out->vae_spec, sizeof out->vae_spec, "%s", rq->vae);
    else if (diff_vae_spec(g->path ? g->path : "", out->vae_spec, sizeof out->vae_spec, d))
        return NULL;
    struct graph *vae = open_part(out->vae_spec, "VAE decoder", d);
    static const char *const dims[2] = {"height", "width"};
    for (int k = 0; k < 2 && vae; k++) {
        int s = graph_sym_find(g, dims[k]), t = graph_sym_find(vae, dims[k]);
        if (s >= 0 && t >= 0)
            vae->syms[t].val = g->syms[s].val;
    }
    return vae;
}

/* The text encoders of rq (or derived from g) into m and out's specs. */
static enum status open_text(const struct graph *g, const struct diff_request *rq,
                             struct parts *m, struct diff_result *out, struct diag *d)
{
    char specs[DIFF_MAX_TEXT][DIFF_SPEC_MAX];
    int n = 0;
    if (rq->no_text)
        return ST_OK;
    if (rq->n_text > DIFF_MAX_TEXT)
        return diag_set(d, ST_EUSAGE, "diffusion: %d text encoders, at most %d", rq->n_text,
                        DIFF_MAX_TEXT);
    for (; n < rq->n_text; n++)
        snprintf(specs[n], DIFF_SPEC_MAX, "%s", rq->text[n]);
    enum status st = n ? ST_OK : diff_text_specs(g->path ? g->path : "", specs, &n, d);
    for (int i = 0; i < n && !st; i++) {
        snprintf(out->text[i].spec, DIFF_SPEC_MAX, "%s", specs[i]);
        if (!(m->text[i] = open_part(specs[i], "text encoder", d)))
            st = d && d->code ? d->code : ST_EUSAGE;
        else
            m->n_text = out->n_text = i + 1;
    }
    return st;
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

/* The pipeline's memory with every model of pr[0..n) resident: the
 * largest of one pass's peak plus the other models' weights. */
static double resident_mib(const struct prediction *pr, int n)
{
    double best = 0;
    for (int i = 0; i < n; i++) {
        double m = pr[i].memory_mib;
        for (int j = 0; j < n; j++)
            if (j != i)
                m += pr[j].sim.weights_mib;
        best = m > best ? m : best;
    }
    return best;
}

/* pr: the denoiser, the VAE decoder, then out->n_text text encoders. */
static void combine(const struct diff_request *rq, const struct prediction *pr,
                    struct diff_result *out)
{
    const struct prediction *den = &pr[0], *vae = &pr[1];
    out->text_ms = 0;
    out->energy_j = (double)rq->steps * den->energy_j + vae->energy_j;
    out->from_gnn = den->from_gnn && vae->from_gnn;
    for (int i = 0; i < out->n_text; i++) {
        const struct prediction *t = &pr[2 + i];
        struct diff_text *x = &out->text[i];
        x->ms = t->latency_ms;
        x->energy_j = t->energy_j;
        x->memory_mib = t->memory_mib;
        x->weights_mib = t->sim.weights_mib;
        out->text_ms += t->latency_ms;
        out->energy_j += t->energy_j;
        out->from_gnn = out->from_gnn && t->from_gnn;
    }
    out->step_ms = den->latency_ms;
    out->denoise_ms = (double)rq->steps * den->latency_ms;
    out->vae_ms = vae->latency_ms;
    out->batch_ms = out->text_ms + out->denoise_ms + out->vae_ms;
    out->ms_per_image = out->batch_ms / (double)rq->batch;
    out->images_per_s = out->batch_ms > 0 ? (double)rq->batch * 1e3 / out->batch_ms : 0;
    out->energy_j_per_image = out->energy_j / (double)rq->batch;
    out->memory_mib = resident_mib(pr, 2 + out->n_text);
    out->capacity_mib = den->capacity_mib;
    out->fits = fit_ok(out->memory_mib, rq->headroom, out->capacity_mib);
}

/* Checks rq and g, fills out's request fields and opens the other models. */
static enum status begin(struct graph *g, const struct diff_request *rq,
                         struct diff_result *out, struct parts *m, struct diag *d)
{
    memset(out, 0, sizeof *out);
    memset(m, 0, sizeof *m);
    if (rq->steps < 1 || rq->batch < 1)
        return diag_set(d, ST_ERANGE, "diffusion: %lld steps, batch %lld: expected both >= 1",
                        (long long)rq->steps, (long long)rq->batch);
    if (graph_batch_sym(g) < 0)
        return diag_set(d, ST_EUSAGE, "%s: the denoiser has no batch dimension",
                        g->path ? g->path : "model");
    out->steps = rq->steps;
    out->batch = rq->batch;
    out->guidance = rq->guidance;
    out->denoiser_batch = out->text_batch = rq->guidance ? 2 * rq->batch : rq->batch;
    if (!(m->vae = open_vae(g, rq, out, d)))
        return d && d->code ? d->code : ST_EUSAGE;
    enum status st = open_text(g, rq, m, out, d);
    if (st)
        parts_free(m);
    return st;
}

/* Every pass of the pipeline with its opened models (out from begin). */
static enum status run_passes(struct predictor *p, struct graph *g, const struct parts *m,
                              const struct config *cfg, const struct diff_request *rq,
                              struct diff_result *out, struct diag *d)
{
    struct prediction pr[2 + DIFF_MAX_TEXT];
    int n = 0;
    enum status st = pass(p, g, cfg, out->denoiser_batch, &pr[0], d);
    if (!st) {
        n = 1;
        st = pass(p, m->vae, cfg, rq->batch, &pr[1], d);
        if (st)
            diag_prefix(d, "VAE decoder %s", out->vae_spec);
        else
            n = 2;
    }
    for (int i = 0; !st && i < m->n_text; i++) {
        st = pass(p, m->text[i], cfg, out->text_batch, &pr[n], d);
        if (st)
            diag_prefix(d, "text encoder %s", out->text[i].spec);
        else
            n++;
    }
    if (!st)
        combine(rq, pr, out);
    for (int i = 0; i < n; i++)
        prediction_fini(&pr[i]);
    return st;
}

enum status diff_run(struct predictor *p, struct graph *g, const struct config *cfg,
                     const struct diff_request *rq, struct diff_result *out, struct diag *d)
{
    struct parts m;
    enum status st = begin(g, rq, out, &m, d);
    if (st)
        return st;
    st = run_passes(p, g, &m, cfg, rq, out, d);
    parts_free(&m);
    return st;
}

enum status diff_mig(struct predictor *p, struct graph *g, const struct config *cfg,
                     const struct diff_request *rq, struct diff_result *out,
                     struct diag *d)
{
    struct mig_advice *a = &out->mig;
    memset(a, 0, sizeof *a);
    out->have_mig = false;
    const struct gpu_spec *gs = gpu_get(cfg->gpu);
    if (!gs || gs->n_mig == 0)
        return ST_OK;
    a->gpu = cfg->gpu;
    a->headroom = rq->headroom;
    /* the other models are opened once for every profile */
    struct diff_result r;
    struct parts m;
    enum status st = begin(g, rq, &r, &m, d);
    if (st)
        return st;
    int idx[MIG_MAX_PROFILES];
    int n = mig_profile_order(gs, idx);
    for (int i = 0; i < n && !st; i++) {
        struct config c = *cfg;
        c.mig = idx[i];
        if ((st = run_passes(p, g, &m, &c, rq, &r, d)))
            break;
        struct mig_option *o = &a->opts[a->n++];
        o->profile = idx[i];
        /* the pipeline's one CUDA context is the slice's, as for one model */
        o->memory_mib = mig_memory_on(cfg, out->memory_mib, idx[i]);
        o->latency_ms = r.batch_ms;
    }
    parts_free(&m);
    if (st)
        return st;
    mig_decide(gs, a);
    out->have_mig = true;
    return ST_OK;
}

void diff_report_text(FILE *f, const struct diff_result *r)
{
    fprintf(f, "diffusion   %lld steps, batch %lld%s (%s)\n", (long long)r->steps,
            (long long)r->batch,
            r->guidance ? ", classifier-free guidance: prompts and denoiser on twice the batch"
                        : ", no guidance",
            r->from_gnn ? "GNN per pass" : "teacher per pass");
    for (int i = 0; i < r->n_text; i++)
        fprintf(f, "  text      %.3f ms, %.1f J on %lld prompt%s (%s)\n", r->text[i].ms,
                r->text[i].energy_j, (long long)r->text_batch, r->text_batch > 1 ? "s" : "",
                r->text[i].spec);
    if (!r->n_text)
        fprintf(f, "  text      no text encoder (left out)\n");
    fprintf(f, "  denoise   %lld x %.3f ms = %.1f ms (denoiser on batch %lld)\n",
            (long long)r->steps, r->step_ms, r->denoise_ms, (long long)r->denoiser_batch);
    fprintf(f, "  decode    %.3f ms (%s)\n", r->vae_ms, r->vae_spec);
    fprintf(f, "  per image %.1f ms, %.3f images/s, %.1f J\n", r->ms_per_image,
            r->images_per_s, r->energy_j_per_image);
    fprintf(f, "  memory    %.0f MiB of %.0f MiB usable (all %d models resident): %s\n",
            r->memory_mib, r->capacity_mib, 2 + r->n_text, r->fits ? "fits" : "DOES NOT FIT");
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
    jsonw_key_str(w, "reason", a->reason);
    jsonw_key(w, "profiles");
    jsonw_arr_begin(w, false);
    for (int i = 0; i < a->n; i++) {
        const struct mig_option *o = &a->opts[i];
        jsonw_obj_begin(w);
        jsonw_key_str(w, "profile", gs->mig[o->profile].name);
        jsonw_key_fixed(w, "usable_mib", o->usable_mib, 1);
        jsonw_key_fixed(w, "need_mib", o->need_mib, 1);
        jsonw_key_fixed(w, "batch_ms", o->latency_ms, 3);
        jsonw_key_bool(w, "fits", o->fits);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);
}

void diff_report_json_fields(struct jsonw *w, const struct diff_result *r)
{
    jsonw_key_int(w, "steps", r->steps);
    jsonw_key_int(w, "batch", r->batch);
    jsonw_key_fixed(w, "text_ms", r->text_ms, 4);
    jsonw_key_fixed(w, "step_ms", r->step_ms, 4);
    jsonw_key_fixed(w, "vae_ms", r->vae_ms, 4);
    jsonw_key_fixed(w, "batch_ms", r->batch_ms, 3);
    jsonw_key_fixed(w, "ms_per_image", r->ms_per_image, 3);
    jsonw_key_fixed(w, "images_per_s", r->images_per_s, 4);
    jsonw_key_fixed(w, "energy_j_per_image", r->energy_j_per_image, 3);
    jsonw_key_fixed(w, "memory_mib", r->memory_mib, 1);
    jsonw_key_bool(w, "fits", r->fits);
}

void diff_report_json(struct jsonw *w, const struct diff_result *r)
{
    jsonw_key(w, "diffusion");
    jsonw_obj_begin(w);
    diff_report_json_fields(w, r);
    jsonw_key_bool(w, "guidance", r->guidance);
    jsonw_key_int(w, "denoiser_batch", r->denoiser_batch);
    jsonw_key_fixed(w, "denoise_ms", r->denoise_ms, 3);
    jsonw_key_str(w, "vae", r->vae_spec);
    jsonw_key_int(w, "text_batch", r->text_batch);
    jsonw_key(w, "text_encoders");
    jsonw_arr_begin(w, false);
    for (int i = 0; i < r->n_text; i++) {
        jsonw_obj_begin(w);
        jsonw_key_str(w, "spec", r->text[i].spec);
        jsonw_key_fixed(w, "ms", r->text[i].ms, 4);
        jsonw_key_fixed(w, "energy_j", r->text[i].energy_j, 4);
        jsonw_key_fixed(w, "memory_mib", r->text[i].memory_mib, 1);
        jsonw_key_fixed(w, "weights_mib", r->text[i].weights_mib, 1);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_key_fixed(w, "capacity_mib", r->capacity_mib, 1);
    if (r->have_mig)
        mig_json(w, &r->mig);
    jsonw_obj_end(w);
}
