/* cli_diffusion.c - the diffusion pipeline options shared by `dippm
 * predict` and `dippm sweep` (--steps, --no-guidance, --vae,
 * --text-encoder, --no-text-encoder) and the pipeline sweep: rows over
 * batches and steps, or the largest batch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_pred.h"
#include "core/diffusion.h"
#include "core/max_batch.h"
#include "core/sweep.h"
#include "util/jsonw.h"
#include "core/report.h"

const struct cli_opt cli_diff_opts[] = {
    {"steps", 0, "N", "denoising steps: predicts the pipeline of a diffusion denoiser",
     CLI_OPT_DIFF_STEPS},
    {"no-guidance", 0, NULL, "no classifier-free guidance (the denoiser and the text encoders "
     "run on the batch, not twice it)", CLI_OPT_DIFF_NO_GUIDANCE},
    {"vae", 0, "SPEC", "the VAE decoder (default: derived from the denoiser's latent)",
     CLI_OPT_DIFF_VAE},
    {"text-encoder", 0, "SPEC[,SPEC]...", "the text encoders instead of the derived ones "
     "(repeatable)", CLI_OPT_DIFF_TEXT},
    {"no-text-encoder", 0, NULL, "leave the text encoders out", CLI_OPT_DIFF_NO_TEXT},
    {NULL, 0, NULL, NULL, 0},
};

/* Adds the specs of a --text-encoder list to df: a comma splits it unless a
 * digit follows (a list value such as channels=320,640 stays whole). */
static int add_text(struct cli_diff *df, const char *arg, const char *sub)
{
    for (const char *s = arg;;) {
        size_t len = 0;
        while (s[len] && !(s[len] == ',' && !(s[len + 1] >= '0' && s[len + 1] <= '9')))
            len++;
        if (!len || len >= DIFF_SPEC_MAX || df->n_text == DIFF_MAX_TEXT) {
            cli_usage_error(sub, "--text-encoder '%s': expected up to %d comma-separated text "
                                 "encoder models of under %d characters, e.g. "
                                 "zoo:gpt:preset=clip-l", arg, DIFF_MAX_TEXT, DIFF_SPEC_MAX);
            return -1;
        }
        memcpy(df->spec_buf[df->n_text], s, len);
        df->spec_buf[df->n_text][len] = '\0';
        df->text[df->n_text] = df->spec_buf[df->n_text];
        df->n_text++;
        if (!s[len])
            return 1;
        s += len + 1;
    }
}

struct diff_request cli_diff_request(const struct cli_diff *df, int64_t batch)
{
    return (struct diff_request){.steps = df->steps, .guidance = !df->no_guidance,
                                 .batch = batch, .vae = df->vae, .text = df->text,
                                 .n_text = df->n_text, .no_text = df->no_text};
}

int cli_diff_opt(struct cli_diff *df, int c, const char *arg, const char *sub)
{
    switch (c) {
    case CLI_OPT_DIFF_STEPS:
        if (cli_parse_int(arg, 1, 10000, &df->steps)) {
            cli_usage_error(sub, "--steps '%s': expected denoising steps from 1 to 10000", arg);
            return -1;
        }
        return 1;
    case CLI_OPT_DIFF_NO_GUIDANCE: df->no_guidance = true; return 1;
    case CLI_OPT_DIFF_VAE:
        if (!*arg) {
            cli_usage_error(sub, "--vae: expected a VAE decoder model, e.g. zoo:vae:latent=128");
            return -1;
        }
        df->vae = arg;
        return 1;
    case CLI_OPT_DIFF_TEXT: return add_text(df, arg, sub);
    case CLI_OPT_DIFF_NO_TEXT: df->no_text = true; return 1;
    default: return 0;
    }
}

int cli_diff_check(const struct cli_diff *df, const struct cli_gen *gen, const char *sub)
{
    if (!df->steps && (df->no_guidance || df->vae || df->n_text || df->no_text))
        return cli_usage_error(sub, "--no-guidance, --vae, --text-encoder and "
                                    "--no-text-encoder need --steps N");
    if (df->n_text && df->no_text)
        return cli_usage_error(sub, "--text-encoder and --no-text-encoder exclude each other");
    if (df->steps && (gen->in || gen->out))
        return cli_usage_error(sub, "--steps (a diffusion pipeline) and --input-tokens/"
                                    "--output-tokens (a generation) exclude each other");
    return 0;
}

static void row(FILE *f, struct jsonw *w, const struct cli_sweep_gen *s,
                const struct diff_result *r)
{
    const struct cli_common *co = s->co;
    if (co->json) {
        jsonw_obj_begin(w);
        diff_report_json_fields(w, r);
        cli_cost_cell(f, w, co, s->price, "cost_per_1k_images", r->images_per_s, 1e3);
        jsonw_obj_end(w);
        return;
    }
    if (co->csv) {
        fprintf(f, "%lld,%lld,%.4f,%.4f,%.4f,%.3f,%.3f,%.4f,%.3f,%.1f,%d",
                (long long)r->steps, (long long)r->batch, r->step_ms, r->vae_ms, r->text_ms,
                r->batch_ms, r->ms_per_image, r->images_per_s, r->energy_j_per_image,
                r->memory_mib, r->fits);
    } else {
        fprintf(f, "%6lld %7lld %11.3f %10.3f %10.3f %12.1f %12.1f %9.3f %10.1f %11.0f %5s",
                (long long)r->steps, (long long)r->batch, r->step_ms, r->vae_ms, r->text_ms,
                r->batch_ms, r->ms_per_image, r->images_per_s, r->energy_j_per_image,
                r->memory_mib, r->fits ? "yes" : "NO");
    }
    cli_cost_cell(f, w, co, s->price, "", r->images_per_s, 1e3);
}

/* "spec, spec" of r's text encoders, or "none". */
static const char *text_list(const struct diff_result *r, char *buf, size_t size)
{
    size_t off = 0;
    snprintf(buf, size, "none");
    for (int i = 0; i < r->n_text && off < size; i++)
        off += (size_t)snprintf(buf + off, size - off, "%s%s", i ? ", " : "", r->text[i].spec);
    return buf;
}

static void header(FILE *f, struct jsonw *w, const struct cli_sweep_gen *s,
                   const struct diff_request *rq, const struct diff_result *r)
{
    char texts[DIFF_MAX_TEXT * (DIFF_SPEC_MAX + 2)];
    const char *vae = r->vae_spec;
    char hw[128];
    report_hw_label(s->cfg, hw, sizeof hw);
    if (s->co->json) {
        cli_sweep_json_open(w, s, hw);
        jsonw_key_bool(w, "guidance", rq->guidance);
        jsonw_key_str(w, "vae", vae);
        jsonw_key(w, "text_encoders");
        jsonw_arr_begin(w, true);
        for (int i = 0; i < r->n_text; i++)
            jsonw_str(w, r->text[i].spec);
        jsonw_arr_end(w);
        jsonw_key_str(w, "source", report_source_line(s->p));
        cli_cost_json_head(w, s->price);
        jsonw_key(w, "rows");
        jsonw_arr_begin(w, false);
    } else if (s->co->csv) {
        fprintf(f, "steps,batch,step_ms,vae_ms,text_ms,batch_ms,ms_per_image,images_per_s,"
                   "energy_j_per_image,memory_mib,fits");
        cli_cost_head(f, s->co, s->price, "", "cost_per_1k_images");
    } else {
        char prec[96];
        fprintf(f, "%s on %s, %s, %s, %s guidance, VAE %s, text encoder %s\n", s->g->name,
                hw, config_prec_label(s->cfg, prec, sizeof prec), runtime_name(s->cfg->rt),
                rq->guidance ? "with" : "no", vae, text_list(r, texts, sizeof texts));
        fprintf(f, "%6s %7s %11s %10s %10s %12s %12s %9s %10s %11s %5s\n", "steps", "batch",
                "step_ms", "vae_ms", "text_ms", "batch_ms", "ms/image", "images/s", "J/image",
                "memory_MiB", "fits");
        cli_cost_head(f, s->co, s->price, "cost/1k img", "");
    }
}

/* The largest batch whose pipeline fits (max_batch_diffusion). */
static int max_batch(const struct cli_sweep_gen *s, struct diff_request *rq)
{
    struct diff_result best;
    struct diag d = {0};
    int64_t lo;
    if (max_batch_diffusion(s->p, s->g, s->cfg, rq, &lo, &best, &d))
        return cli_fail(&d);
    char hw[128], text[512];
    report_hw_label(s->cfg, hw, sizeof hw);
    int rc;
    if (s->co->json) {
        struct jsonw w;
        jsonw_init(&w, true);
        cli_sweep_json_open(&w, s, hw);
        jsonw_key_int(&w, "steps", rq->steps);
        jsonw_key_int(&w, "max_batch", lo);
        jsonw_key_fixed(&w, "images_per_s", lo ? best.images_per_s : 0, 4);
        jsonw_key_fixed(&w, "memory_mib", best.memory_mib, 1);
        jsonw_key_fixed(&w, "capacity_mib", best.capacity_mib, 1);
        jsonw_key_fixed(&w, "headroom", s->headroom, 3);
        rc = cli_sweep_json_emit(&w, s);
    } else {
        int n = lo ? snprintf(text, sizeof text, "largest batch on %s for %lld steps: %lld "
                              "images (%.3f images/s, %.0f MiB of %.0f MiB usable with %.0f%% "
                              "headroom)\nsource: %s\n", hw, (long long)rq->steps,
                              (long long)lo, best.images_per_s, best.memory_mib,
                              best.capacity_mib, s->headroom * 100, report_source_line(s->p))
                   : snprintf(text, sizeof text, "no batch fits on %s: one image's pipeline "
                              "needs %.0f MiB + %.0f%% headroom, %.0f MiB usable\n", hw,
                              best.memory_mib, s->headroom * 100, best.capacity_mib);
        rc = cli_emit(s->co, text, n > 0 && (size_t)n < sizeof text ? (size_t)n : strlen(text));
    }
    return rc ? rc : lo > 0 ? 0 : 1;
}

/* The rows as the sweep gives them, the header before the first. */
struct diff_rows {
    const struct cli_sweep_gen *s;
    FILE *f;
    struct jsonw *w;
    const struct diff_request *rq;
    int rc;
    bool first;
};

/* A row or, on an error, the end. */
static bool diff_point(void *ctx, const struct sweep_point *pt)
{
    struct diff_rows *r = ctx;
    if (pt->st) {
        r->rc = cli_fail(&pt->why);
        return false;
    }
    if (r->first)
        header(r->f, r->w, r->s, r->rq, &pt->diff);
    r->first = false;
    row(r->f, r->w, r->s, &pt->diff);
    return true;
}

int cli_sweep_diff(const struct cli_sweep_gen *s, const struct cli_diff *df)
{
    bool over_steps = s->over_name && !strcmp(s->over_name, "steps");
    if (s->over_name && !over_steps)
        return cli_usage_error("sweep", "with --steps, --over takes steps=RANGE");
    for (int i = 0; over_steps && i < s->n_over; i++)
        if (s->over_vals[i] > 10000)
            return cli_usage_error("sweep", "--over steps: %lld steps, expected at most 10000",
                                   (long long)s->over_vals[i]);
    struct diff_request rq = cli_diff_request(df, 1);
    rq.headroom = s->headroom;
    if (s->max_batch)
        return max_batch(s, &rq);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return status_exit_code(ST_ENOMEM);
    struct jsonw w;
    jsonw_init(&w, true);
    int n_over = over_steps ? s->n_over : 1;
    struct diff_rows rows = {s, f, &w, NULL, 0, true};
    for (int i = 0; i < n_over && !rows.rc; i++) {
        struct sweep_job job = {.w = WORKLOAD_DIFFUSION, .p = s->p, .g = s->g, .cfg = s->cfg,
                                .diff = rq};
        if (over_steps)
            job.diff.steps = s->over_vals[i];
        rows.rq = &job.diff;
        sweep_batches(&job, s->batches, s->n_batch, diff_point, &rows);
    }
    return cli_sweep_rows_emit(s, f, &w, &buf, &len, rows.rc);
}
