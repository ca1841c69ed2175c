/* app.c - the controller: model, configuration, prediction; every change
 * re-runs inference and the predictor and keeps the last good state. */
#include "ui/app.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "ui/draw.h"
#include "core/fit.h"
#include "core/gpu.h"
#include "core/tp.h"
#include "graph/load.h"
#include "graph/ops/shape.h"
#include "util/xalloc.h"
#include "graph/zoo/zoo.h"

/* ================================================================== */
/* helpers                                                             */
/* ================================================================== */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

bool app_teacher_only(const struct app *a)
{
    return !a->have_pred || !a->pred.from_gnn;
}

double app_memory_shown_mib(const struct app *a)
{
    return a->pred.memory_mib;
}

const char *app_config_label(const struct app *a, const struct config *cfg, char *buf, int size)
{
    const struct gpu_spec *gpu = gpu_get(cfg->gpu);
    char prec[96];
    int len = snprintf(buf, (size_t)size, "%s%s%s, %s, %s, batch %lld", gpu ? gpu->name : "?",
                       gpu && cfg->mig >= 0 && cfg->mig < gpu->n_mig ? " " : "",
                       gpu && cfg->mig >= 0 && cfg->mig < gpu->n_mig ? gpu->mig[cfg->mig].name
                                                                      : "",
                       config_prec_label(cfg, prec, sizeof prec), runtime_name(cfg->rt),
                       (long long)cfg->batch);
    if (a->g) {
        int bs = graph_batch_sym(a->g);
        for (int i = 0; i < a->g->n_syms && len > 0 && len < size; i++) {
            if (i == bs)
                continue;
            len += snprintf(buf + len, (size_t)(size - len), ", %s=%lld", a->g->syms[i].name,
                            (long long)a->g->syms[i].val);
        }
    }
    return buf;
}

int app_node_find(const struct app *a, const char *name)
{
    if (!a->g || !name)
        return -1;
    for (int i = 0; i < a->g->n_nodes; i++)
        if (!strcmp(a->g->nodes[i].name, name))
            return i;
    for (int i = 0; i < a->g->n_nodes; i++)
        if (!strcasecmp(a->g->nodes[i].name, name))
            return i;
    return -1;
}

/* Template hyperparameters: every parameter of the family with its current
 * value and range (graph/zoo/zoo.h descriptors). */
static void parse_tparams(struct app *a)
{
    a->is_template = false;
    a->n_tparams = 0;
    a->family[0] = 0;
    if (strncmp(a->spec, "zoo:", 4) != 0)
        return;
    struct zoo_args za;
    if (zoo_args_parse(a->spec, &za, NULL) != ST_OK)
        return;
    a->is_template = true;
    snprintf(a->family, sizeof a->family, "%s", zoo_family_name(za.fam));
    for (int i = 0; i < zoo_param_count(za.fam) && a->n_tparams < APP_MAX_TPARAMS; i++) {
        const struct zoo_param *zp = zoo_param_get(za.fam, i);
        struct app_tparam *t = &a->tparams[a->n_tparams++];
        memset(t, 0, sizeof *t);
        t->zp = zp;
        t->help = zp->help;
        snprintf(t->name, sizeof t->name, "%s", zp->name);
        zoo_args_value(&za, i, t->value, sizeof t->value);
        zoo_param_range(zp, t->range, sizeof t->range);
    }
}

/* ================================================================== */
/* lifecycle                                                           */
/* ================================================================== */

static void clear_prediction(struct app *a)
{
    if (a->have_pred)
        prediction_fini(&a->pred);
    memset(&a->pred, 0, sizeof a->pred);
    a->have_pred = false;
}

enum status app_init(struct app *a, const char *spec, struct diag *d)
{
    memset(a, 0, sizeof *a);
    ui_state_init(&a->st);
    config_default(&a->cfg);
    a->headroom = FIT_HEADROOM_DEFAULT;
    a->gen_in = 512;
    a->gen_out = 128;
    a->tp = 1;
    a->diff_steps = 20;
    a->rows_dirty = true;
    if (!spec)
        spec = model_default_path();
    if (!spec)
        return diag_set(d, ST_ENOTFOUND,
                        "no model given and the bundled default (samples/resnet50.onnx) is not "
                        "installed; run 'dippm MODEL'");
    struct diag wd = {0};
    a->p = predictor_new(NULL, &wd);
    if (a->p)
        snprintf(a->weights_note, sizeof a->weights_note, "%s", predictor_describe(a->p));
    else
        snprintf(a->weights_note, sizeof a->weights_note, "%s", wd.msg);
    char pb[512];
    const char *prices = price_table_path(pb, sizeof pb);
    struct diag pd = {0};
    if (prices && price_table_load(prices, &a->prices, &pd))
        ui_state_message(&a->st, true, "%s (no cost shown)", pd.msg);
    enum status st = app_open(a, spec, d);
    app_whatif_get(a, &a->saved);
    return st;
}

void app_fini(struct app *a)
{
    app_pins_clear(a);
    free(a->cmp.v);
    free(a->cmp.pair);
    free(a->cmp.now_keys);
    a->cmp.v = NULL;
    clear_prediction(a);
    graph_free(a->g);
    a->g = NULL;
    predictor_free(a->p);
    a->p = NULL;
    free(a->rows);
    a->rows = NULL;
    price_table_fini(&a->prices);
}

/* ================================================================== */
/* recompute                                                           */
/* ================================================================== */

enum status app_recompute(struct app *a, struct diag *d)
{
    if (!a->g)
        return diag_set(d, ST_EUSAGE, "no model loaded");
    struct prediction pr;
    memset(&pr, 0, sizeof pr);
    double t0 = now_ms();
    enum status st = predict_run(a->p, a->g, &a->cfg, &pr, d);
    double t1 = now_ms();
    if (st) {
        prediction_fini(&pr);
        return st;
    }
    clear_prediction(a);
    a->pred = pr;
    a->have_pred = true;
    a->recompute_ms = t1 - t0;
    a->gen++;
    a->rows_dirty = true;
    a->mig_stale = true;
    a->have_mig = false;
    snprintf(a->mig_err, sizeof a->mig_err, "updating...");
    a->workload = workload_of_model(a->g);
    a->have_gen = false;
    snprintf(a->gen_err, sizeof a->gen_err, "updating...");
    a->have_diff = false;
    snprintf(a->diff_err, sizeof a->diff_err, "updating...");
    return ST_OK;
}

/* The pipeline of a denoiser at the current configuration, with the text
 * encoders derived from it (none when its conditioning width names none).
 * diff_run binds the denoiser to twice the batch, so the prediction is made
 * again after it (the layer table reads the graph's shapes). */
static void update_diff(struct app *a)
{
    a->have_diff = false;
    a->diff_err[0] = 0;
    if (a->workload != WORKLOAD_DIFFUSION)
        return;
    struct diag d = {0};
    char text[DIFF_MAX_TEXT][DIFF_SPEC_MAX];
    int n_text;
    struct diff_request rq = {.steps = a->diff_steps, .guidance = true, .batch = a->cfg.batch,
                              .headroom = a->headroom,
                              .no_text = diff_text_specs(a->g->path, text, &n_text, NULL) != ST_OK};
    if (diff_run(a->p, a->g, &a->cfg, &rq, &a->diffr, &d) == ST_OK &&
        diff_mig(a->p, a->g, &a->cfg, &rq, &a->diffr, &d) == ST_OK)
        a->have_diff = true;
    else
        snprintf(a->diff_err, sizeof a->diff_err, "%s", d.msg);
    struct prediction pr;
    if (predict_run(a->p, a->g, &a->cfg, &pr, &d) == ST_OK) {
        clear_prediction(a);
        a->pred = pr;
        a->have_pred = true;
        a->rows_dirty = true;
    } else {
        prediction_fini(&pr);
    }
}

struct gen_request app_gen_request(const struct app *a, int64_t batch)
{
    enum precision kv = a->kv_set ? a->kv_prec : a->cfg.prec == PREC_TF32 ? PREC_FP32 : a->cfg.prec;
    return (struct gen_request){a->gen_in, a->gen_out, batch, kv, a->headroom};
}

enum status app_gen_open(const struct app *a, struct gen_model **m, struct diag *d)
{
    *m = NULL;
    if (a->tp > 1 && a->cfg.mig >= 0)
        return diag_set(d, ST_EUSAGE, "tp=%d: a MIG slice cannot be part of a tensor-parallel "
                        "group (slices have no NVLink or peer access); pick the whole GPU",
                        a->tp);
    return gen_model_open_tp(a->g, NULL, a->tp, m, d);
}

/* The generation of a decoder at the current configuration. */
static void update_gen(struct app *a)
{
    a->have_gen = false;
    a->gen_err[0] = 0;
    if (a->workload != WORKLOAD_GENERATION)
        return;
    struct diag d = {0};
    struct gen_model *m;
    if (app_gen_open(a, &m, &d)) {
        snprintf(a->gen_err, sizeof a->gen_err, "%s", d.msg);
        return;
    }
    /* an export serves both passes from a->g: keep its bindings to restore */
    int64_t saved[64];
    int ns = a->g->n_syms < 64 ? a->g->n_syms : 64;
    for (int i = 0; i < ns; i++)
        saved[i] = a->g->syms[i].val;
    struct gen_request rq = app_gen_request(a, a->cfg.batch);
    if (gen_run(a->p, m, &a->cfg, &rq, &a->genr, &d) == ST_OK)
        a->have_gen = true;
    else
        snprintf(a->gen_err, sizeof a->gen_err, "%s", d.msg);
    gen_model_free(m);
    if (strcmp(a->g->format, "zoo") != 0) {
        for (int i = 0; i < ns; i++)
            a->g->syms[i].val = saved[i];
        a->g->inferred = false;
        struct prediction pr;
        if (predict_run(a->p, a->g, &a->cfg, &pr, &d) == ST_OK) {
            clear_prediction(a);
            a->pred = pr;
            a->have_pred = true;
        } else {
            prediction_fini(&pr);
        }
    }
}

void app_update_mig(struct app *a)
{
    if (!a->mig_stale || !a->g)
        return;
    a->mig_stale = false;
    double t0 = now_ms();
    const struct gpu_spec *gpu = gpu_get(a->cfg.gpu);
    a->have_mig = false;
    a->mig_err[0] = 0;
    if (gpu && gpu->n_mig > 0) {
        struct diag md = {0};
        if (mig_advise(a->p, a->g, &a->cfg, a->headroom, a->slo_ms, &a->mig, &md) == ST_OK)
            a->have_mig = true;
        else
            snprintf(a->mig_err, sizeof a->mig_err, "%s", md.msg);
    } else if (gpu) {
        snprintf(a->mig_err, sizeof a->mig_err, "%s has no MIG profiles", gpu->name);
    }
    update_gen(a);
    update_diff(a);
    a->mig_ms = now_ms() - t0;
}

/* Re-runs after a failed change so the graph's inferred state matches the
 * restored configuration again. */
static void restore(struct app *a)
{
    struct diag ignore = {0};
    if (app_recompute(a, &ignore) != ST_OK)
        clear_prediction(a);
}

enum status app_check_quant(const struct config *cfg, struct diag *d)
{
    enum quant_scheme q = cfg->quant.scheme;
    if (quant_precision_ok(q, cfg->prec))
        return ST_OK;
    char name[64];
    quant_format(&cfg->quant, name, sizeof name);
    return diag_set(d, ST_EUSAGE, "quant %s runs its activations in %s%s, not precision %s "
                    "(:quant none clears the scheme)", name,
                    precision_name(quant_act_precision(q)), quant_weight_only(q) ? " or bf16" : "",
                    precision_name(cfg->prec));
}

enum status app_set_config(struct app *a, const struct config *cfg, struct diag *d)
{
    struct config old = a->cfg;
    struct hw hw;
    enum status st = hw_from_config(cfg, &hw, d);
    if (!st)
        st = app_check_quant(cfg, d);
    if (st)
        return st;
    if (cfg->batch < 1 || cfg->batch > APP_BATCH_MAX)
        return diag_set(d, ST_ERANGE, "batch %lld out of range 1..%lld", (long long)cfg->batch,
                        (long long)APP_BATCH_MAX);
    if (cfg->batch != 1 && a->g && graph_batch_sym(a->g) < 0)
        return diag_set(d, ST_EUSAGE,
                        "batch %lld: the model has no batch dimension (its inputs have fixed "
                        "sizes), so the batch stays 1",
                        (long long)cfg->batch);
    a->cfg = *cfg;
    st = app_recompute(a, d);
    if (st) {
        a->cfg = old;
        restore(a);
    } else if (old.gpu != cfg->gpu || old.mig != cfg->mig || old.prec != cfg->prec ||
               old.rt != cfg->rt || old.dispatch_us != cfg->dispatch_us ||
               !quant_equal(&old.quant, &cfg->quant)) {
        a->sweep_gen++;
    }
    return st;
}

enum status app_set_quant(struct app *a, const struct quant *q, struct diag *d)
{
    struct config c = a->cfg;
    bool moved = config_set_quant(&c, q);
    enum status st = app_set_config(a, &c, d);
    if (st)
        return st;
    char name[64];
    quant_format(q, name, sizeof name);
    if (moved)
        ui_state_message(&a->st, false, "quant %s: precision %s (its activations'), updated in "
                         "%.1f ms", name, precision_name(c.prec), a->recompute_ms);
    else
        ui_state_message(&a->st, false, "quant %s: updated in %.1f ms", name, a->recompute_ms);
    return ST_OK;
}

enum status app_set_batch(struct app *a, int64_t batch, struct diag *d)
{
    struct config c = a->cfg;
    c.batch = batch;
    return app_set_config(a, &c, d);
}

enum status app_set_slo(struct app *a, double ms, struct diag *d)
{
    if (!(ms >= 0) || ms > 1e7)
        return diag_set(d, ST_ERANGE, "slo %g ms: expected 0 (none) to 10000000 ms", ms);
    double old = a->slo_ms;
    a->slo_ms = ms;
    enum status st = app_recompute(a, d);
    if (st) {
        a->slo_ms = old;
        restore(a);
    }
    return st;
}

enum status app_set_gpu(struct app *a, const char *spec, struct diag *d)
{
    struct config c = a->cfg;
    int gi, mi;
    enum status st = gpu_target_parse(spec, c.gpu, &gi, &mi, d);
    if (st)
        return st;
    if (mi == GPU_MIG_UNSET)
        mi = gi == c.gpu ? c.mig : app_mig_match(c.gpu, c.mig, gi);
    c.gpu = gi;
    c.mig = mi;
    return app_set_config(a, &c, d);
}

/* ================================================================== */
/* symbols and template hyperparameters                                */
/* ================================================================== */

static bool parse_i64(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end)
        return false;
    *out = v;
    return true;
}

/* input_tokens, output_tokens, kv or tp of a decoder's generation. */
static enum status set_generation(struct app *a, const char *name, const char *value,
                                  struct diag *d)
{
    if (a->workload != WORKLOAD_GENERATION)
        return diag_set(d, ST_EUSAGE, "%s: only decoders (zoo gpt, llama, moe, or an export "
                        "with a KV cache) have a generation", name);
    if (!strcmp(name, "kv")) {
        enum precision p;
        if (!precision_parse(value, &p) || !precision_storage(p))
            return diag_set(d, ST_ERANGE, "kv=%s: expected %s (the KV-cache precision)", value,
                            precision_storage_names());
        a->kv_set = true;
        a->kv_prec = p;
    } else if (!strcmp(name, "tp")) {
        int64_t v;
        if (!parse_i64(value, &v) || !tp_valid((int)v) || v > TP_MAX)
            return diag_set(d, ST_ERANGE, "tp=%s: expected a GPU count of 1, 2, 4 or 8 (tensor "
                            "parallelism)", value);
        int old = a->tp;
        a->tp = (int)v;
        struct gen_model *m;
        enum status st = app_gen_open(a, &m, d);
        gen_model_free(m);
        if (st) { /* an export, a template that cannot be split, a slice */
            a->tp = old;
            return st;
        }
    } else {
        int64_t v;
        if (!parse_i64(value, &v) || v < 1 || v > ((int64_t)1 << 24))
            return diag_set(d, ST_ERANGE, "%s=%s: expected a token count from 1 to 16777216",
                            name, value);
        int64_t *field = name[0] == 'i' ? &a->gen_in : &a->gen_out, old = *field;
        *field = v;
        struct gen_model *m;
        struct gen_request rq = app_gen_request(a, a->cfg.batch);
        enum status st = app_gen_open(a, &m, d);
        if (!st)
            st = gen_request_check(m, &rq, d);
        gen_model_free(m);
        if (st) { /* beyond the context: keep the previous count */
            *field = old;
            return st;
        }
    }
    a->mig_stale = true;
    a->have_gen = false;
    snprintf(a->gen_err, sizeof a->gen_err, "updating...");
    return ST_OK;
}

/* The denoising steps of a denoiser's pipeline. */
static enum status set_steps(struct app *a, const char *value, struct diag *d)
{
    int64_t v;
    if (!parse_i64(value, &v) || v < 1 || v > 10000)
        return diag_set(d, ST_ERANGE, "steps=%s: expected denoising steps from 1 to 10000", value);
    a->diff_steps = v;
    a->mig_stale = true;
    a->have_diff = false;
    snprintf(a->diff_err, sizeof a->diff_err, "updating...");
    return ST_OK;
}

/* dispatch_us=US: the host's dispatch per op of the eager runtimes (0: the
 * calibrated one). */
static enum status set_dispatch(struct app *a, const char *value, struct diag *d)
{
    char *end;
    errno = 0;
    double v = strtod(value, &end);
    if (errno || end == value || *end || !(v >= 0) || v > 1e5)
        return diag_set(d, ST_ERANGE, "dispatch_us=%s: expected microseconds from 0 (the "
                        "calibrated one) to 100000", value);
    struct config c = a->cfg;
    c.dispatch_us = v;
    enum status st = app_set_config(a, &c, d);
    if (!st && v > 0 && !runtime_eager(c.rt))
        ui_state_message(&a->st, false, "dispatch_us=%s: used by the eager runtimes (pytorch, "
                         "pytorch-sdpa), not by %s", value, runtime_name(c.rt));
    return st;
}

/* Sets graph symbol si (the batch symbol goes through the configuration). */
static enum status set_symbol(struct app *a, int si, const char *name, const char *value,
                              struct diag *d)
{
    int64_t v;
    if (!parse_i64(value, &v))
        return diag_set(d, ST_ERANGE, "%s=%s: expected an integer", name, value);
    if (si < 0 || si == graph_batch_sym(a->g))
        return app_set_batch(a, v, d);
    int64_t old = a->g->syms[si].val;
    enum status st = graph_sym_set(a->g, a->g->syms[si].name, v, d);
    if (st)
        return st;
    st = app_recompute(a, d);
    if (st) {
        a->g->syms[si].val = old;
        restore(a);
    } else {
        a->sweep_gen++;
    }
    return st;
}

/* After a hyperparameter moved the default of a symbol the user had set
 * (resolution=160 after height=300), the user's value stays: say so
 * rather than let the change look complete. */
static void note_kept_symbols(struct app *a, const char *name, const char *value, int n_old,
                              char old_name[][32], const int64_t *old_def)
{
    char kept[200] = "";
    int len = 0;
    for (int i = 0; i < n_old; i++) {
        int j = old_def[i] >= 0 ? graph_sym_find(a->g, old_name[i]) : -1;
        if (j < 0 || a->g->syms[j].def == old_def[i] || a->g->syms[j].val == a->g->syms[j].def)
            continue;
        int n = snprintf(kept + len, sizeof kept - (size_t)len, "%s%s stays %lld (its default "
                         "is now %lld)", len ? ", " : "", old_name[i],
                         (long long)a->g->syms[j].val, (long long)a->g->syms[j].def);
        if (n < 0 || len + n >= (int)sizeof kept)
            break;
        len += n;
    }
    if (len)
        ui_state_message(&a->st, true, "%s=%s: %s, as set by hand", name, value, kept);
}

static enum status set_tparam(struct app *a, const char *name, const char *value,
                              struct diag *d)
{
    struct zoo_args za;
    enum status st = zoo_args_parse(a->spec, &za, d);
    if (st)
        return st;
    int pi = zoo_param_find(za.fam, name);
    const struct zoo_param *zp = pi >= 0 ? zoo_param_get(za.fam, pi) : NULL;
    char spec[APP_SPEC_MAX];
    if (zp && zp->type == ZOO_PT_ENUM && zp->presets) {
        /* a preset replaces the parameters it names: start from it alone */
        snprintf(spec, sizeof spec, "zoo:%s:%s=%s", zoo_family_name(za.fam), name, value);
    } else {
        if ((st = zoo_args_set(&za, name, value, d)) || (st = zoo_args_check(&za, d)))
            return st;
        if (zoo_args_spec(&za, spec, sizeof spec) >= (int)sizeof spec)
            return diag_set(d, ST_ERANGE, "template spec too long");
    }
    /* the old graph goes: remember the defaults of the symbols set by hand */
    int64_t old_def[APP_WHATIF_SYMS];
    int n_old = a->g->n_syms < APP_WHATIF_SYMS ? a->g->n_syms : APP_WHATIF_SYMS;
    char old_name[APP_WHATIF_SYMS][32];
    for (int i = 0; i < n_old; i++) {
        old_def[i] = a->g->syms[i].val != a->g->syms[i].def ? a->g->syms[i].def : -1;
        snprintf(old_name[i], sizeof old_name[i], "%s", a->g->syms[i].name);
    }
    if ((st = app_open_view(a, spec, true, d)))
        return st;
    note_kept_symbols(a, name, value, n_old, old_name, old_def);
    return ST_OK;
}

/* A template hyperparameter wins over a graph symbol of the same name
 * (resnet's width multiplier vs the image width); "sym.NAME" always means
 * the symbol and "tpl.NAME" the hyperparameter. */
enum status app_set_param(struct app *a, const char *name, const char *value, struct diag *d)
{
    if (!a->g)
        return diag_set(d, ST_EUSAGE, "no model loaded");
    if (!strcmp(name, "input_tokens") || !strcmp(name, "output_tokens") || !strcmp(name, "kv") ||
        !strcmp(name, "tp"))
        return set_generation(a, name, value, d);
    if (!strcmp(name, "steps") && a->workload == WORKLOAD_DIFFUSION)
        return set_steps(a, value, d);
    if (!strcmp(name, "dispatch_us"))
        return set_dispatch(a, value, d);
    bool want_sym = !strncmp(name, "sym.", 4), want_tpl = !strncmp(name, "tpl.", 4);
    if (want_sym || want_tpl)
        name += 4;
    int si = graph_sym_find(a->g, name);
    int bs = graph_batch_sym(a->g);
    bool is_tpl = false;
    if (a->is_template && !want_sym) {
        struct zoo_args za;
        is_tpl = zoo_args_parse(a->spec, &za, NULL) == ST_OK && zoo_param_find(za.fam, name) >= 0;
    }
    if (want_tpl && !is_tpl)
        return diag_set(d, ST_ENOTFOUND, "'%s' is not a hyperparameter of %s", name,
                        a->is_template ? a->family : "this model (not a zoo template)");
    if (is_tpl)
        return set_tparam(a, name, value, d);
    if (si >= 0 || !strcmp(name, "batch"))
        return set_symbol(a, si, name, value, d);
    char known[300];
    int len = snprintf(known, sizeof known, "batch");
    for (int i = 0; i < a->g->n_syms && len < (int)sizeof known - 40; i++)
        if (i != bs)
            len += snprintf(known + len, sizeof known - (size_t)len, ", %s", a->g->syms[i].name);
    if (a->is_template && !want_sym)
        return set_tparam(a, name, value, d); /* zoo names the valid parameters */
    return diag_set(d, ST_ENOTFOUND, "'%s' is not a symbol of %s (symbols: %s)", name,
                    a->g->name ? a->g->name : "the model", known);
}

enum status app_set_params(struct app *a, int n, char *const *names, char *const *values,
                           struct diag *d)
{
    struct app_whatif before;
    app_whatif_get(a, &before);
    for (int i = 0; i < n; i++) {
        enum status st = app_set_param(a, names[i], values[i], d);
        if (st) {
            if (i > 0) {
                struct diag back = {0};
                if (app_whatif_apply(a, &before, &back))
                    diag_prefix(d, "%s=%s failed and the settings before it stay (taking them "
                                "back failed: %s)", names[i], values[i], back.msg);
                else
                    diag_prefix(d, "nothing changed (%s=%s failed)", names[i], values[i]);
            }
            return st;
        }
    }
    return ST_OK;
}

int app_mig_match(int old_gpu, int mig, int gpu)
{
    const struct gpu_spec *og = gpu_get(old_gpu), *ng = gpu_get(gpu);
    if (mig < 0 || !og || !ng || mig >= og->n_mig || ng->n_mig == 0)
        return -1;
    const struct mig_profile *p = &og->mig[mig];
    int k = gpu_mig_find(ng, p->name);
    if (k >= 0)
        return k;
    int best = -1;
    double best_d = 1e30;
    for (int i = 0; i < ng->n_mig; i++) {
        const struct mig_profile *q = &ng->mig[i];
        double dd = (q->sm_sevenths != p->sm_sevenths) * 1e6 + (q->media != p->media) * 1e3 +
                    fabs(q->usable_gib - p->usable_gib);
        if (dd < best_d) {
            best_d = dd;
            best = i;
        }
    }
    return best;
}

enum status app_open(struct app *a, const char *spec, struct diag *d)
{
    return app_open_view(a, spec, false, d);
}

enum status app_open_view(struct app *a, const char *spec, bool keep_view, struct diag *d)
{
    if (strlen(spec) >= sizeof a->spec)
        return diag_set(d, ST_ERANGE, "model spec longer than %zu bytes", sizeof a->spec - 1);
    struct graph *g = model_load(spec, d);
    if (!g)
        return d ? d->code : ST_EPARSE;
    /* Keep symbol values the user set when the new model has the same names
     * (a template rebuilt with another depth keeps seq=512); a model that
     * cannot take one (max_position below seq) is refused. */
    for (int i = 0; a->g && i < a->g->n_syms; i++) {
        int j = graph_sym_find(g, a->g->syms[i].name);
        if (j >= 0 && a->g->syms[i].val != a->g->syms[i].def &&
            graph_sym_set(g, a->g->syms[i].name, a->g->syms[i].val, d)) {
            graph_free(g);
            return d ? d->code : ST_ERANGE;
        }
    }
    struct graph *old_g = a->g;
    char old_spec[APP_SPEC_MAX];
    struct config old_cfg = a->cfg;
    snprintf(old_spec, sizeof old_spec, "%s", a->spec);
    a->g = g;
    snprintf(a->spec, sizeof a->spec, "%s", spec);
    if (!old_g) {
        int bs = graph_batch_sym(g);
        if (bs >= 0 && g->syms[bs].def >= 1 && g->syms[bs].def <= APP_BATCH_MAX)
            a->cfg.batch = g->syms[bs].def;
    }
    if (graph_batch_sym(g) < 0)
        a->cfg.batch = 1; /* fixed input sizes: there is no batch to keep */
    enum status st = app_recompute(a, d);
    if (st && !old_g) {
        /* The first model: open it anyway so the user can see the graph and
         * change the configuration; the status line says what failed. */
        ui_state_message(&a->st, true, "%s: no prediction: %s", spec, d ? d->msg : "failed");
        diag_clear(d);
        parse_tparams(a);
        a->rows_dirty = true;
        return ST_OK;
    }
    if (st) {
        diag_prefix(d, "%s", spec);
        graph_free(g);
        a->g = old_g;
        a->cfg = old_cfg;
        snprintf(a->spec, sizeof a->spec, "%s", old_spec);
        if (old_g)
            restore(a);
        return st;
    }
    graph_free(old_g);
    a->model_serial++;
    parse_tparams(a);
    a->sweep.valid = false;
    a->sweep_gen++;
    a->rows_dirty = true;
    if (keep_view) {
        if (a->st.detail_node >= g->n_nodes)
            a->st.detail_node = -1;
        return ST_OK;
    }
    a->st.detail_node = -1;
    for (int t = 0; t < UI_TAB__COUNT; t++)
        a->st.list[t] = (struct ui_list){0, 0};
    return ST_OK;
}

/* ================================================================== */
/* pins                                                                */
/* ================================================================== */

double app_node_ms(const struct app *a, int i)
{
    return a->have_pred ? app_node_share(a, i) * a->pred.latency_ms : 0;
}

static void snapshot_free(struct app_snapshot *s)
{
    for (int i = 0; s->layer_name && i < s->n_layers; i++)
        free(s->layer_name[i]);
    free(s->layer_name);
    free(s->layer_ms);
    free(s->layer_key);
    memset(s, 0, sizeof *s);
}

void app_pins_clear(struct app *a)
{
    a->pin_serial++;
    for (int i = 0; i < APP_PINS_MAX; i++)
        snapshot_free(&a->pins[i]);
    a->n_pins = 0;
}

void app_unpin(struct app *a, int k)
{
    if (k < 0 || k >= a->n_pins)
        return;
    snapshot_free(&a->pins[k]);
    memmove(&a->pins[k], &a->pins[k + 1], sizeof a->pins[0] * (size_t)(a->n_pins - k - 1));
    memset(&a->pins[a->n_pins - 1], 0, sizeof a->pins[0]);
    a->n_pins--;
    a->pin_serial++;
}

void app_pin(struct app *a)
{
    if (a->n_pins == APP_PINS_MAX)
        app_unpin(a, 1); /* keep the baseline, drop the oldest of the others */
    a->pin_serial++;
    struct app_snapshot *s = &a->pins[a->n_pins++];
    memset(s, 0, sizeof *s);
    s->valid = a->have_pred;
    app_whatif_get(a, &s->w);
    s->cfg = a->cfg;
    s->latency_ms = a->pred.latency_ms;
    s->throughput = a->pred.throughput;
    s->energy_j = a->pred.energy_j;
    s->memory_mib = a->pred.memory_mib;
    s->teacher_ms = a->pred.sim.latency_ms;
    const char *base = strrchr(a->spec, '/');
    draw_mid_cut(base ? base + 1 : a->spec, (int)sizeof s->model - 4, s->model, sizeof s->model);
    char cl[160], m[64];
    app_config_label(a, &a->cfg, cl, sizeof cl);
    snprintf(s->label, sizeof s->label, "%s: %.90s", draw_mid_cut(s->model, 40, m, sizeof m), cl);
    int n = a->g ? a->g->n_nodes : 0;
    s->layer_name = xcalloc((size_t)(n ? n : 1), sizeof *s->layer_name);
    s->layer_ms = xcalloc((size_t)(n ? n : 1), sizeof *s->layer_ms);
    s->n_layers = n;
    s->layer_key = a->g ? app_layer_keys(a->g) : xcalloc(1, sizeof *s->layer_key);
    for (int i = 0; i < n; i++) {
        s->layer_name[i] = xstrdup(a->g->nodes[i].name);
        s->layer_ms[i] = app_node_ms(a, i);
    }
}
