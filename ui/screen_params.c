/* screen_params.c - the Setup tab: configuration (GPU, MIG slice, precision,
 * runtime, batch, latency target), the model's symbols and, for zoo
 * templates, every hyperparameter with its range. Left/Right step a value,
 * Enter edits it on the command line; each change re-runs everything. */
#include "ui/screen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gpu.h"
#include "core/tp.h"
#include "graph/zoo/zoo.h"

enum field_kind {
    F_SECTION, F_GPU, F_MIG, F_PREC, F_QUANT, F_RT, F_BATCH, F_SLO, F_SYM, F_TPARAM, F_GEN_IN,
    F_GEN_OUT, F_GEN_KV, F_GEN_TP, F_DIFF_STEPS
};

struct field {
    enum field_kind kind;
    int index; /* symbol or template parameter index */
    const char *section;
};

#define MAX_FIELDS (16 + APP_MAX_TPARAMS + 64)

static int fields(const struct app *a, struct field *f)
{
    int n = 0;
    f[n++] = (struct field){F_SECTION, 0, "Configuration"};
    f[n++] = (struct field){F_GPU, 0, NULL};
    f[n++] = (struct field){F_MIG, 0, NULL};
    f[n++] = (struct field){F_PREC, 0, NULL};
    f[n++] = (struct field){F_QUANT, 0, NULL};
    f[n++] = (struct field){F_RT, 0, NULL};
    f[n++] = (struct field){F_BATCH, 0, NULL};
    f[n++] = (struct field){F_SLO, 0, NULL};
    if (a->workload == WORKLOAD_GENERATION) {
        f[n++] = (struct field){F_SECTION, 0, "Generation (decoder)"};
        f[n++] = (struct field){F_GEN_IN, 0, NULL};
        f[n++] = (struct field){F_GEN_OUT, 0, NULL};
        f[n++] = (struct field){F_GEN_KV, 0, NULL};
        f[n++] = (struct field){F_GEN_TP, 0, NULL};
    }
    if (a->workload == WORKLOAD_DIFFUSION) {
        f[n++] = (struct field){F_SECTION, 0, "Diffusion pipeline (denoiser)"};
        f[n++] = (struct field){F_DIFF_STEPS, 0, NULL};
    }
    int bs = a->g ? graph_batch_sym(a->g) : -1;
    bool sec = false;
    for (int i = 0; a->g && i < a->g->n_syms && n < MAX_FIELDS - APP_MAX_TPARAMS - 1; i++) {
        if (i == bs)
            continue;
        if (!sec) {
            f[n++] = (struct field){F_SECTION, 0, "Model symbols (input sizes)"};
            sec = true;
        }
        f[n++] = (struct field){F_SYM, i, NULL};
    }
    if (a->is_template) {
        f[n++] = (struct field){F_SECTION, 0, "Template hyperparameters"};
        for (int i = 0; i < a->n_tparams; i++)
            f[n++] = (struct field){F_TPARAM, i, NULL};
    }
    return n;
}

/* A field's name: a model symbol's whole name (app.h) */
#define FIELD_NAME_MAX APP_SYM_NAME_MAX

/* name (FIELD_NAME_MAX bytes), value (64) and range (256) text of a field */
static void describe(const struct app *a, const struct field *f, char *name, char *val,
                     char *range, const char **help)
{
    const struct gpu_spec *gpu = gpu_get(a->cfg.gpu);
    *help = NULL;
    name[0] = val[0] = range[0] = 0;
    switch (f->kind) {
    case F_SECTION:
        snprintf(name, FIELD_NAME_MAX, "%s", f->section);
        break;
    case F_GPU: {
        snprintf(name, FIELD_NAME_MAX, "gpu");
        snprintf(val, 64, "%s", gpu ? gpu->name : "?");
        snprintf(range, 256, "%d GPUs in the table; Left/Right cycles, :gpu NAME (Tab completes)",
                 gpu_count());
        break;
    }
    case F_MIG: {
        snprintf(name, FIELD_NAME_MAX, "mig");
        snprintf(val, 64, "%s", a->cfg.mig >= 0 && gpu ? gpu->mig[a->cfg.mig].name : "full GPU");
        int len = snprintf(range, 256, "full");
        for (int i = 0; gpu && i < gpu->n_mig && len < 220; i++)
            len += snprintf(range + len, (size_t)(256 - len), ", %s", gpu->mig[i].name);
        break;
    }
    case F_PREC:
        snprintf(name, FIELD_NAME_MAX, "precision");
        snprintf(val, 64, "%s", precision_name(a->cfg.prec));
        snprintf(range, 256, "fp32, tf32, fp16, bf16, int8, fp8");
        break;
    case F_QUANT:
        snprintf(name, FIELD_NAME_MAX, "quant");
        quant_format(&a->cfg.quant, val, 64);
        snprintf(range, 256, "weights: %s (Left/Right: default options; a scheme sets its "
                 "activations' precision)", quant_forms());
        break;
    case F_RT:
        snprintf(name, FIELD_NAME_MAX, "runtime");
        snprintf(val, 64, "%s", runtime_name(a->cfg.rt));
        snprintf(range, 256, "pytorch (a kernel per op), tensorrt (fused), pytorch-sdpa (fused "
                             "attention), tensorrt-graph (fused, one CUDA graph), vllm (serving "
                             "engine), inductor (torch.compile), inductor-graph (torch.compile, "
                             "one CUDA graph), onnxruntime (CUDA EP), onnxruntime-graph");
        break;
    case F_BATCH:
        snprintf(name, FIELD_NAME_MAX, "batch");
        snprintf(val, 64, "%lld", (long long)a->cfg.batch);
        snprintf(range, 256, "1 to %lld (+/- double and halve)", (long long)APP_BATCH_MAX);
        break;
    case F_SLO:
        snprintf(name, FIELD_NAME_MAX, "slo");
        snprintf(val, 64, a->slo_ms > 0 ? "%g ms" : "none", a->slo_ms);
        snprintf(range, 256, "latency target for the MIG suggestion, ms (0 = none)");
        break;
    case F_GEN_IN:
    case F_GEN_OUT:
        snprintf(name, FIELD_NAME_MAX, f->kind == F_GEN_IN ? "input_tokens" : "output_tokens");
        snprintf(val, 64, "%lld", (long long)(f->kind == F_GEN_IN ? a->gen_in : a->gen_out));
        snprintf(range, 256, "%s tokens per sequence, 1 to 16777216 (+/- double and halve)",
                 f->kind == F_GEN_IN ? "prompt" : "generated");
        break;
    case F_DIFF_STEPS:
        snprintf(name, FIELD_NAME_MAX, "steps");
        snprintf(val, 64, "%lld", (long long)a->diff_steps);
        snprintf(range, 256, "denoising steps, 1 to 10000, with guidance and the derived VAE "
                             "(+/- double and halve)");
        break;
    case F_GEN_KV:
        snprintf(name, FIELD_NAME_MAX, "kv");
        snprintf(val, 64, "%s", a->kv_set ? precision_name(a->kv_prec) : "model");
        snprintf(range, 256, "KV-cache precision: fp32, fp16, bf16, int8, fp8 (model: as the "
                             "weights)");
        break;
    case F_GEN_TP:
        snprintf(name, FIELD_NAME_MAX, "tp");
        snprintf(val, 64, "%d", a->tp);
        snprintf(range, 256, "GPUs of a tensor-parallel group: 1, 2, 4, 8 (llama and moe "
                             "templates; generation only, memory per GPU)");
        break;
    case F_SYM: {
        const struct symbol *s = &a->g->syms[f->index];
        snprintf(name, FIELD_NAME_MAX, "%s", s->name);
        snprintf(val, 64, "%lld", (long long)s->val);
        snprintf(range, 256, "1 to 2147483648, model default %lld", (long long)s->def);
        break;
    }
    case F_TPARAM: {
        const struct app_tparam *t = &a->tparams[f->index];
        snprintf(name, FIELD_NAME_MAX, "%s", t->name);
        snprintf(val, 64, "%s", t->value);
        snprintf(range, 256, "%s", t->range);
        *help = t->help;
        break;
    }
    }
}

/* Field rows shown; the last two lines of a tall enough tab hold the whole
 * range and help of the selected field, which its row may cut. */
static int vis_rows(struct ui_rect r)
{
    return r.h >= 12 ? r.h - 3 : r.h - 1;
}

static void draw(struct app *a, struct ui_canvas *c, struct ui_rect r)
{
    struct field f[MAX_FIELDS];
    int n = fields(a, f);
    draw_clear(c, r, UI_STYLE_NORMAL);
    struct ui_list *l = &a->st.list[UI_TAB_PARAMS];
    if (f[l->sel].kind == F_SECTION && l->sel + 1 < n)
        l->sel++;
    int vis = vis_rows(r);
    ui_list_clamp(l, n, vis);
    draw_text(c, r.y, r.x, r.w, UI_STYLE_HEADING,
              "Left/Right: step the value   Enter: type a value   every change re-predicts");
    /* the name column as wide as the longest name (width_per_group) */
    int name_w = 16, val_w = r.w >= 100 ? 24 : 18;
    for (int i = 0; i < n; i++) {
        char nm[FIELD_NAME_MAX], v[64], rg[256];
        const char *h;
        if (f[i].kind == F_SECTION)
            continue;
        describe(a, &f[i], nm, v, rg, &h);
        if (draw_strwidth(nm) + 3 > name_w)
            name_w = draw_strwidth(nm) + 3;
    }
    if (name_w > r.w / 3)
        name_w = r.w / 3;
    for (int k = 0; k < vis && l->top + k < n; k++) {
        int i = l->top + k, y = r.y + 1 + k;
        char name[FIELD_NAME_MAX], val[64], range[256];
        const char *help;
        describe(a, &f[i], name, val, range, &help);
        if (f[i].kind == F_SECTION) {
            draw_text(c, y, r.x, r.w, UI_STYLE_TITLE, name);
            continue;
        }
        draw_text_mid(c, y, r.x + 2, name_w - 3, UI_STYLE_LABEL, name);
        draw_text(c, y, r.x + name_w, val_w - 1, UI_STYLE_VALUE, val);
        char rest[400];
        snprintf(rest, sizeof rest, "%s%s%s", range, help ? "  " : "", help ? help : "");
        draw_text_words(c, y, r.x + name_w + val_w, r.w - name_w - val_w, UI_STYLE_DIM, rest);
        if (i == l->sel)
            draw_restyle(c, y, r.x, r.w, UI_STYLE_SELECTED);
    }
    if (r.h >= 12 && l->sel < n && f[l->sel].kind != F_SECTION) {
        char name[FIELD_NAME_MAX], val[64], range[256], full[600];
        const char *help;
        describe(a, &f[l->sel], name, val, range, &help);
        snprintf(full, sizeof full, "%s: %s%s%s", name, range, help ? ". " : "",
                 help ? help : "");
        draw_text_wrap(c, r.y + r.h - 2, r.x, r.w, 2, UI_STYLE_LABEL, full);
    }
}

/* The next/previous allowed value of a template parameter as text, or
 * false if it has no discrete steps (floats, lists). */
static bool tparam_step(const struct app_tparam *t, int dir, char *out, int size)
{
    const struct zoo_param *zp = t->zp;
    if (!zp)
        return false;
    if (zp->n_choices > 0 && zp->choices) {
        int cur = 0;
        for (int i = 0; i < zp->n_choices; i++)
            if (!strcmp(zp->choices[i], t->value))
                cur = i;
        cur = (cur + dir + zp->n_choices) % zp->n_choices;
        snprintf(out, (size_t)size, "%s", zp->choices[cur]);
        return true;
    }
    if (zp->type == ZOO_PT_INT) {
        long long v = atoll(t->value), step = zp->step > 0 ? zp->step : 1;
        v += dir * step;
        if (v < zp->min || v > zp->max)
            return false;
        snprintf(out, (size_t)size, "%lld", v);
        return true;
    }
    return false;
}

static void report(struct app *a, enum status st, const struct diag *d, const char *what)
{
    if (st)
        ui_state_message(&a->st, true, "%s", d->msg);
    else
        ui_state_message(&a->st, false, "%s: updated in %.1f ms", what, a->recompute_ms);
}

/* The next precision this runtime can run on this GPU; the message names
 * the ones skipped and why: the runtime (an engine could run them) or the
 * GPU's tensor cores. */
static unsigned step_precision(struct app *a, int dir)
{
    struct config c = a->cfg;
    struct diag d = {0};
    char by_rt[64] = "", by_gpu[64] = "";
    for (int k = 0; k < PREC__COUNT; k++) {
        c.prec = (enum precision)((c.prec + dir + PREC__COUNT) % PREC__COUNT);
        if (config_supported(&c, NULL) == ST_OK)
            break;
        struct config engine = c;
        engine.rt = RT_TENSORRT;
        char *list = config_supported(&engine, NULL) == ST_OK ? by_rt : by_gpu;
        snprintf(list + strlen(list), sizeof by_rt - strlen(list), "%s%s", list[0] ? ", " : "",
                 precision_name(c.prec));
    }
    enum status st = app_set_config(a, &c, &d);
    if (st || (!by_rt[0] && !by_gpu[0])) {
        report(a, st, &d, "precision");
        return UI_HANDLED | UI_REDRAW;
    }
    const struct gpu_spec *g = gpu_get(a->cfg.gpu);
    char rt_why[128] = "", gpu_why[128] = "";
    if (by_rt[0])
        snprintf(rt_why, sizeof rt_why, "%s (runtime %s cannot run it; tensorrt can)", by_rt,
                 runtime_name(a->cfg.rt));
    if (by_gpu[0])
        snprintf(gpu_why, sizeof gpu_why, "%s (no tensor-core path on %s)", by_gpu,
                 g ? g->name : "this GPU");
    ui_state_message(&a->st, false, "precision %s: skipped %s%s%s", precision_name(a->cfg.prec),
                     rt_why, rt_why[0] && gpu_why[0] ? ", " : "", gpu_why);
    return UI_HANDLED | UI_REDRAW;
}

/* The next scheme (with its default options) whose precision this runtime
 * can run on this GPU; app_set_quant reports it, and the message then
 * names the schemes skipped. */
static unsigned step_quant(struct app *a, int dir)
{
    struct config c = a->cfg;
    struct quant q = c.quant;
    struct diag d = {0};
    char skipped[128] = "";
    for (int k = 0; k < QUANT__COUNT; k++) {
        int next = ((int)q.scheme + dir + QUANT__COUNT) % QUANT__COUNT;
        if (quant_parse(quant_name((enum quant_scheme)next), &q, &d))
            break; /* a catalogue name always parses */
        c = a->cfg;
        config_set_quant(&c, &q);
        if (config_supported(&c, NULL) == ST_OK)
            break;
        snprintf(skipped + strlen(skipped), sizeof skipped - strlen(skipped), "%s%s (%s)",
                 skipped[0] ? ", " : "", quant_name(q.scheme), precision_name(c.prec));
    }
    enum status st = d.msg[0] ? d.code : app_set_quant(a, &q, &d);
    if (st) {
        report(a, st, &d, "quant");
    } else if (skipped[0]) {
        const struct gpu_spec *g = gpu_get(a->cfg.gpu);
        char name[64];
        quant_format(&q, name, sizeof name);
        ui_state_message(&a->st, false, "quant %s: skipped %s, which runtime %s on %s cannot run",
                         name, skipped, runtime_name(a->cfg.rt),
                         g ? g->name : "this GPU");
    }
    return UI_HANDLED | UI_REDRAW;
}

static unsigned step(struct app *a, const struct field *f, int dir)
{
    struct config c = a->cfg;
    struct diag d = {0};
    enum status st = ST_OK;
    const struct gpu_spec *gpu = gpu_get(c.gpu);
    char name[FIELD_NAME_MAX], val[64], range[256], buf[64];
    const char *help;
    describe(a, f, name, val, range, &help);
    switch (f->kind) {
    case F_GPU: {
        int old_mig = c.mig;
        c.gpu = (c.gpu + dir + gpu_count()) % gpu_count();
        c.mig = app_mig_match(a->cfg.gpu, old_mig, c.gpu);
        st = app_set_config(a, &c, &d);
        if (!st && old_mig >= 0) {
            const struct gpu_spec *ng = gpu_get(a->cfg.gpu);
            if (a->cfg.mig >= 0)
                ui_state_message(&a->st, false, "%s: MIG slice %s -> %s", ng->name,
                                 gpu->mig[old_mig].name, ng->mig[a->cfg.mig].name);
            else
                ui_state_message(&a->st, false, "%s has no MIG profiles: the whole GPU "
                                 "(was %s)", ng->name, gpu->mig[old_mig].name);
            return UI_HANDLED | UI_REDRAW;
        }
        break;
    }
    case F_MIG: {
        int n = gpu ? gpu->n_mig : 0;
        c.mig = ((c.mig + 1 + dir + n + 1) % (n + 1)) - 1;
        st = app_set_config(a, &c, &d);
        break;
    }
    case F_PREC:
        return step_precision(a, dir);
    case F_QUANT:
        return step_quant(a, dir);
    case F_RT:
        c.rt = (enum runtime)((c.rt + dir + RT__COUNT) % RT__COUNT);
        st = app_set_config(a, &c, &d);
        break;
    case F_BATCH:
        st = app_set_batch(a, dir > 0 ? c.batch * 2 : (c.batch > 1 ? c.batch / 2 : 1), &d);
        break;
    case F_SLO:
        st = app_set_slo(a, dir > 0 ? (a->slo_ms > 0 ? a->slo_ms * 2 : 1) : a->slo_ms / 2, &d);
        break;
    case F_SYM: {
        long long v = a->g->syms[f->index].val;
        snprintf(buf, sizeof buf, "%lld", dir > 0 ? v * 2 : (v > 1 ? v / 2 : 1));
        char qname[FIELD_NAME_MAX + 4];
        snprintf(qname, sizeof qname, "sym.%s", name); /* not a hyperparameter of that name */
        st = app_set_param(a, qname, buf, &d);
        break;
    }
    case F_GEN_IN:
    case F_GEN_OUT: {
        int64_t v = f->kind == F_GEN_IN ? a->gen_in : a->gen_out;
        snprintf(buf, sizeof buf, "%lld", (long long)(dir > 0 ? v * 2 : (v > 1 ? v / 2 : 1)));
        st = app_set_param(a, name, buf, &d);
        break;
    }
    case F_DIFF_STEPS:
        snprintf(buf, sizeof buf, "%lld",
                 (long long)(dir > 0 ? a->diff_steps * 2 : (a->diff_steps > 1 ? a->diff_steps / 2 : 1)));
        st = app_set_param(a, name, buf, &d);
        break;
    case F_GEN_KV: {
        static const enum precision kvs[] = {PREC_FP32, PREC_FP16, PREC_BF16, PREC_INT8, PREC_FP8};
        int cur = -1;
        for (int k = 0; k < 5 && a->kv_set; k++)
            if (kvs[k] == a->kv_prec)
                cur = k;
        cur = ((cur < 0 ? (dir > 0 ? -1 : 5) : cur) + dir + 5) % 5;
        st = app_set_param(a, "kv", precision_name(kvs[cur]), &d);
        break;
    }
    case F_GEN_TP: /* 1, 2, 4, 8 round */
        snprintf(buf, sizeof buf, "%d",
                 dir > 0 ? (a->tp >= TP_MAX ? 1 : a->tp * 2) : (a->tp <= 1 ? TP_MAX : a->tp / 2));
        st = app_set_param(a, name, buf, &d);
        break;
    case F_TPARAM:
        if (!tparam_step(&a->tparams[f->index], dir, buf, sizeof buf)) {
            ui_state_message(&a->st, false, "%s: press Enter to type a value (%s)", name, range);
            return UI_HANDLED | UI_REDRAW;
        }
        st = app_set_param(a, name, buf, &d);
        break;
    default:
        return UI_HANDLED;
    }
    report(a, st, &d, name);
    return UI_HANDLED | UI_REDRAW;
}

/* A symbol that shares its name with a template hyperparameter. */
static bool clashes(const struct app *a, const char *name)
{
    for (int i = 0; i < a->n_tparams; i++)
        if (!strcmp(a->tparams[i].name, name))
            return true;
    return false;
}

static unsigned on_action(struct app *a, enum ui_action act, struct ui_rect r)
{
    struct field f[MAX_FIELDS];
    int n = fields(a, f);
    struct ui_list *l = &a->st.list[UI_TAB_PARAMS];
    int before = l->sel;
    unsigned fl = screen_list_move(l, act, n, vis_rows(r));
    if (fl) {
        /* skip section titles in the direction of travel, else the other
         * way (Home lands on the first title: the field after it) */
        int dir = l->sel >= before ? 1 : -1;
        int at = l->sel;
        while (f[at].kind == F_SECTION && at + dir >= 0 && at + dir < n)
            at += dir;
        while (f[at].kind == F_SECTION && at - dir >= 0 && at - dir < n)
            at -= dir;
        l->sel = f[at].kind == F_SECTION ? before : at;
        ui_list_clamp(l, n, vis_rows(r));
        if (l->sel <= 1)
            l->top = 0; /* keep the first section title in view */
        return fl;
    }
    if (l->sel >= n)
        return 0;
    const struct field *cur = &f[l->sel];
    if (act == UI_ACT_LEFT || act == UI_ACT_RIGHT)
        return step(a, cur, act == UI_ACT_RIGHT ? 1 : -1);
    if (act == UI_ACT_ENTER && cur->kind != F_SECTION) {
        char name[FIELD_NAME_MAX], val[64], range[256];
        const char *help;
        describe(a, cur, name, val, range, &help);
        /* the controller opens the command line with this text */
        if (cur->kind == F_GPU || cur->kind == F_MIG || cur->kind == F_PREC ||
            cur->kind == F_QUANT || cur->kind == F_RT || cur->kind == F_BATCH || cur->kind == F_SLO)
            snprintf(a->st.status, sizeof a->st.status, "%s ", name);
        else
            snprintf(a->st.status, sizeof a->st.status, "set %s%s=",
                     cur->kind == F_SYM && clashes(a, name) ? "sym." : "", name);
        return UI_HANDLED | UI_PROMPT_EDIT;
    }
    return 0;
}

static unsigned on_click(struct app *a, struct ui_rect r, int y, int x, bool dbl)
{
    struct field f[MAX_FIELDS];
    int n = fields(a, f);
    struct ui_list *l = &a->st.list[UI_TAB_PARAMS];
    int row = l->top + y - r.y - 1;
    if (y <= r.y || row >= n || f[row].kind == F_SECTION)
        return 0;
    ui_list_select(l, row, n, vis_rows(r));
    return dbl ? on_action(a, UI_ACT_ENTER, r) : UI_HANDLED | UI_REDRAW;
}

const struct screen_ops screen_params_ops = {
    .name = "setup", .draw = draw, .on_action = on_action, .on_click = on_click,
};
