/*
 * calib.c - reading and classifying the published calibration rows, loading
 * the calibration graphs, running the teacher on them and fitting the
 * global constants. The report is written by calib_report.c.
 */
#include "calib.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib_impl.h"
#include "fileio.h"
#include "gpu.h"
#include "load.h"
#include "shape.h"

/* ---- row classification --------------------------------------------------- */

static bool has(const char *s, const char *needle)
{
    return s && strstr(s, needle) != NULL;
}

static void copy_short(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src ? src : "");
    /* cut at the first " (" or "," to keep the labels short */
    char *p = strstr(dst, " (");
    if (p && p != dst)
        *p = '\0';
}

/* Which runtime a row's framework label measures, or a reason it is not
 * one of ours. */
static const char *classify_runtime(const char *fw, enum runtime *rt)
{
    if (has(fw, "PyTorch 1.12 eager") || has(fw, "PyTorch (NGC")) {
        *rt = RT_PYTORCH;
        return NULL;
    }
    if (has(fw, "PyTorch eager (HF"))
        return "BertForMaskedLM: the MLM head is not in the encoder graph";
    if (has(fw, "Torch-TensorRT") )
        return "BertForMaskedLM: the MLM head is not in the encoder graph";
    if (has(fw, "EFF-FT"))
        return "remove-padding run: half the tokens are padding and skipped";
    if (has(fw, "Triton"))
        return "Triton server round trip through ONNX Runtime: not an engine-only timing";
    if (has(fw, "AITemplate") || has(fw, "Paddle-TRT") || has(fw, "TensorRT") ||
        has(fw, "FasterTransformer encoder") || has(fw, "FasterTransformer (C++")) {
        *rt = RT_TENSORRT;
        return NULL;
    }
    if (has(fw, "TorchScript"))
        return "TorchScript: neither eager dispatch nor a fused engine";
    if (has(fw, "TensorFlow") || has(fw, "MXNet") || has(fw, "PaddlePaddle"))
        return "framework runtime we do not model (TensorFlow/XLA, MXNet, Paddle)";
    return "measurement setup not stated";
}

static bool classify_precision(const char *p, enum precision *out)
{
    if (has(p, "int8")) *out = PREC_INT8;
    else if (has(p, "fp16") || has(p, "amp")) *out = PREC_FP16;
    else if (has(p, "bf16")) *out = PREC_BF16;
    else if (has(p, "tf32") || has(p, "TF32")) *out = has(p, "TF32 disabled") ? PREC_FP32 : PREC_TF32;
    else if (has(p, "fp32")) *out = PREC_FP32;
    else return false;
    return true;
}

static int classify_model(const char *m)
{
    if (has(m, "resnet50_v2"))
        return -1; /* pre-activation ResNet: a different graph */
    if (has(m, "resnet50"))
        return CM_RESNET50;
    if (has(m, "efficientnet_b0"))
        return CM_EFFNET_B0;
    if (has(m, "bert-base"))
        return CM_BERT_BASE;
    if (has(m, "gpt"))
        return CM_GPT2_MEDIUM;
    return -1;
}

static bool classify_gpu(const char *s, struct config *cfg)
{
    const char *name = "A100-SXM4-40GB";
    if (has(s, "MIG - per-instance"))
        return false;
    if (has(s, "PCIe-80GB") || has(s, "PCIE-80GB"))
        name = "A100-PCIe-80GB";
    else if (has(s, "80GB") || has(s, "80 GB"))
        name = "A100-SXM4-80GB";
    cfg->gpu = gpu_find(name);
    cfg->mig = -1;
    if (has(s, "MIG 1g.10gb"))
        cfg->mig = gpu_mig_find(gpu_get(cfg->gpu), "1g.10gb");
    return cfg->gpu >= 0;
}

static const char *jstr(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double jnum(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static enum status parse_row(const cJSON *o, struct calib_row *r, const char *path,
                             struct diag *d)
{
    const char *model = jstr(o, "model"), *fw = jstr(o, "framework");
    const char *prec = jstr(o, "precision"), *gpu = jstr(o, "gpu"), *in = jstr(o, "input");
    if (!model || !fw || !prec || !gpu)
        return diag_set(d, ST_EPARSE, "%s:%d: expected string fields model, framework, "
                        "precision and gpu", path, r->line);
    copy_short(r->model_text, sizeof r->model_text, model);
    copy_short(r->framework, sizeof r->framework, fw);
    config_default(&r->cfg);
    r->model = classify_model(model);
    r->latency_ms = jnum(o, "latency_ms");
    r->memory_mb = jnum(o, "memory_mb");
    double b = jnum(o, "batch");
    r->cfg.batch = b >= 1 ? (int64_t)b : 0;
    if (in && has(in, "seq "))
        r->seq = strtoll(strstr(in, "seq ") + 4, NULL, 10);
    if (r->model == CM_GPT2_MEDIUM && in && has(in, "input ") && has(in, "output ")) {
        /* generation reaches input + output tokens of context */
        r->gen_in = strtoll(strstr(in, "input ") + 6, NULL, 10);
        r->gen_out = strtoll(strstr(in, "output ") + 7, NULL, 10);
        r->seq = r->gen_in + r->gen_out;
    }
    if (r->model < 0) {
        r->why_not = "architecture not among the calibration graphs";
        return ST_OK;
    }
    if (r->cfg.batch < 1) {
        r->why_not = "no batch size (offline throughput only)";
        return ST_OK;
    }
    if ((r->model == CM_BERT_BASE || r->model == CM_GPT2_MEDIUM) && r->seq < 1) {
        r->why_not = "sequence length not stated";
        return ST_OK;
    }
    if (!classify_gpu(gpu, &r->cfg)) {
        r->why_not = "MIG slice not stated";
        return ST_OK;
    }
    if (has(fw, "DIPPM")) {
        /* The DIPPM point: latency is an outlier of an unstated setup (README),
         * memory is likely device-level; TraPPM's procedure suggests fp32
         * PyTorch, which we assume for the memory row only. */
        r->cfg.prec = PREC_FP32;
        r->cfg.rt = RT_PYTORCH;
        r->use_memory = r->memory_mb > 0;
        r->why_not = "DIPPM point: latency of an unstated setup (README: outlier); memory used, "
                     "fp32 PyTorch assumed";
        return ST_OK;
    }
    if (!classify_precision(prec, &r->cfg.prec)) {
        if (has(prec, "trtexec default"))
            r->cfg.prec = PREC_TF32;
        else {
            r->why_not = "precision not stated";
            return ST_OK;
        }
    }
    r->why_not = classify_runtime(fw, &r->cfg.rt);
    if (r->why_not)
        return ST_OK;
    if (r->model == CM_GPT2_MEDIUM) {
        /* whole generation (context pass + decode steps with a KV cache) is
         * a loop our single-pass graph does not express */
        r->use_memory = r->memory_mb > 0;
        if (r->latency_ms > 0) {
            r->use_gen = r->gen_in > 0 && r->gen_out > 0;
            r->why_not = "GPT latency times whole generation (context + decode loop): not "
                         "fitted, evaluated with the generation estimate; memory used";
        }
        return ST_OK;
    }
    r->use_latency = r->latency_ms > 0;
    r->use_memory = r->memory_mb > 0;
    return ST_OK;
}

enum status calib_load(const char *path, struct calib_set *set, struct diag *d)
{
    memset(set, 0, sizeof *set);
    char *text = NULL;
    size_t len = 0;
    enum status st = file_read_all(path, 64u << 20, &text, &len, d);
    if (st)
        return st;
    int cap = 16;
    set->rows = calloc((size_t)cap, sizeof *set->rows);
    set->path = path;
    if (!set->rows) {
        free(text);
        return diag_set(d, ST_ENOMEM, "%s: out of memory", path);
    }
    int line = 0;
    for (char *p = text, *nl; p && *p; p = nl ? nl + 1 : NULL) {
        nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        line++;
        if (strspn(p, " \t\r") == strlen(p))
            continue;
        cJSON *o = cJSON_Parse(p);
        if (!o || !cJSON_IsObject(o)) {
            cJSON_Delete(o);
            st = diag_set(d, ST_EPARSE, "%s:%d: not a JSON object", path, line);
            goto fail;
        }
        if (set->n_rows == cap) {
            cap *= 2;
            struct calib_row *nr = realloc(set->rows, (size_t)cap * sizeof *nr);
            if (!nr) {
                cJSON_Delete(o);
                st = diag_set(d, ST_ENOMEM, "%s: too many rows", path);
                goto fail;
            }
            set->rows = nr;
        }
        struct calib_row *r = &set->rows[set->n_rows];
        memset(r, 0, sizeof *r);
        r->line = line;
        st = parse_row(o, r, path, d);
        cJSON_Delete(o);
        if (st)
            goto fail;
        set->n_rows++;
    }
    set->n_lines = line;
    free(text);
    if (set->n_rows == 0) {
        calib_set_fini(set);
        return diag_set(d, ST_EPARSE, "%s: no rows (expected one JSON object per line)", path);
    }
    return ST_OK;
fail:
    free(text);
    calib_set_fini(set);
    return st;
}

void calib_set_fini(struct calib_set *set)
{
    if (!set)
        return;
    free(set->rows);
    set->rows = NULL;
    set->n_rows = 0;
}

/* ---- graphs ---------------------------------------------------------------- */

static const char *const model_files[CM__COUNT] = {
    [CM_RESNET50] = "resnet50.onnx", [CM_EFFNET_B0] = "efficientnet_b0.onnx",
    [CM_BERT_BASE] = "bert_base.onnx", [CM_GPT2_MEDIUM] = "gpt2_medium.onnx"};

const char *calib_model_name(int m)
{
    static const char *const names[CM__COUNT] = {"resnet50", "efficientnet_b0", "bert_base",
                                                 "gpt2_medium"};
    return m >= 0 && m < CM__COUNT ? names[m] : "?";
}

static int seq_symbol(const struct graph *g)
{
    static const char *const names[] = {"seq", "sequence", "seq_len", "sequence_length",
                                        "seq_length", "S", "tokens"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        int s = graph_sym_find(g, names[i]);
        if (s >= 0)
            return s;
    }
    /* dim 1 of the first input, if symbolic */
    if (g->n_inputs > 0) {
        const struct value *v = &g->values[g->inputs[0]];
        if (v->rank >= 2 && v->dims[1].sym >= 0)
            return v->dims[1].sym;
    }
    return -1;
}

static enum status bind_and_infer(struct graph *g, int64_t batch, int64_t seq, const char *spec,
                                  struct diag *d)
{
    int bs = graph_batch_sym(g);
    if (bs < 0)
        return diag_set(d, ST_EGRAPH, "%s: no batch symbol to bind", spec);
    g->syms[bs].val = batch;
    if (seq > 0) {
        int ss = seq_symbol(g);
        if (ss < 0 || ss == bs)
            return diag_set(d, ST_EGRAPH, "%s: no sequence-length symbol to bind", spec);
        g->syms[ss].val = seq;
    }
    g->inferred = false;
    enum status st = graph_infer(g, d);
    if (st)
        return st;
    if (g->totals.n_unsupported || g->totals.n_unknown)
        return diag_set(d, ST_EUNSUPPORTED,
                        "%s: %d node(s) without shape/cost support and %d downstream of them; "
                        "the calibration needs every node costed", spec,
                        g->totals.n_unsupported, g->totals.n_unknown);
    return ST_OK;
}

static int find_binding(const struct calib_graphs *cg, int model, int64_t batch, int64_t seq);

struct calib_graphs *calib_graphs_new(struct calib_set *set, const char *samples_dir,
                                      struct diag *d)
{
    struct calib_graphs *cg = calloc(1, sizeof *cg);
    if (!cg) {
        diag_set(d, ST_ENOMEM, "calibration: out of memory");
        return NULL;
    }
    int n_ok = 0;
    for (int m = 0; m < CM__COUNT; m++)
        snprintf(cg->spec[m], sizeof cg->spec[m], "%s/%s", samples_dir, model_files[m]);
    for (int i = 0; i < set->n_rows; i++) {
        struct calib_row *r = &set->rows[i];
        if (!r->use_latency && !r->use_memory)
            continue;
        if (cg->err[r->model][0]) {
            /* this model's graph failed for another binding: drop the row */
            r->use_latency = r->use_memory = false;
            r->why_not = cg->err[r->model];
            continue;
        }
        if (calib_graph_index(cg, r) >= 0)
            continue;
        if (cg->n == CALIB_MAX_GRAPHS) {
            diag_set(d, ST_ENOMEM, "calibration: more than %d distinct graphs", CALIB_MAX_GRAPHS);
            goto fail;
        }
        struct calib_graph *e = &cg->g[cg->n];
        e->model = r->model;
        e->batch = r->cfg.batch;
        e->seq = r->seq;
        struct diag ld = {0};
        e->g = model_load(cg->spec[r->model], &ld);
        cg->n++;
        if (e->g && !bind_and_infer(e->g, e->batch, e->seq, cg->spec[r->model], &ld)) {
            n_ok++;
            continue;
        }
        /* A graph the loader cannot read removes its model's rows; one the
         * shape engine rejects for this binding (e.g. a sequence longer than
         * the position table) removes the rows of that binding. Both are
         * reported with the reason, and the run goes on. */
        char *why = e->g ? e->err : cg->err[r->model];
        size_t wn = e->g ? sizeof e->err : sizeof cg->err[r->model];
        snprintf(why, wn, "%s: %s", e->g ? "binding rejected by the shape engine"
                                         : "graph not loadable", ld.msg);
        graph_free(e->g);
        e->g = NULL;
        for (int j = 0; j < set->n_rows; j++) {
            struct calib_row *o = &set->rows[j];
            if (o->model != r->model || (!o->use_latency && !o->use_memory))
                continue;
            if (why == cg->err[r->model] || (o->cfg.batch == e->batch && o->seq == e->seq)) {
                o->use_latency = o->use_memory = false;
                o->why_not = why;
            }
        }
    }
    /* Generation rows need the context pass (seq = input tokens) and one
     * decode step (seq = 1) of the same batch. */
    for (int i = 0; i < set->n_rows; i++) {
        struct calib_row *r = &set->rows[i];
        if (!r->use_gen)
            continue;
        if (cg->err[r->model][0]) {
            r->use_gen = false;
            continue;
        }
        int64_t seqs[2] = {r->gen_in, 1};
        for (int k = 0; k < 2 && r->use_gen; k++) {
            int gi = find_binding(cg, r->model, r->cfg.batch, seqs[k]);
            if (gi < 0) {
                if (cg->n == CALIB_MAX_GRAPHS) {
                    diag_set(d, ST_ENOMEM, "calibration: more than %d distinct graphs",
                             CALIB_MAX_GRAPHS);
                    goto fail;
                }
                struct calib_graph *e = &cg->g[gi = cg->n++];
                e->model = r->model;
                e->batch = r->cfg.batch;
                e->seq = seqs[k];
                struct diag ld = {0};
                e->g = model_load(cg->spec[r->model], &ld);
                if (!e->g || bind_and_infer(e->g, e->batch, e->seq, cg->spec[r->model], &ld)) {
                    graph_free(e->g);
                    e->g = NULL;
                    snprintf(e->err, sizeof e->err, "generation binding rejected: %s", ld.msg);
                }
            }
            if (!cg->g[gi].g)
                r->use_gen = false;
        }
    }
    if (n_ok == 0) {
        diag_set(d, ST_EUNSUPPORTED, "calibration: no usable graph (%s)",
                 cg->err[CM_RESNET50][0] ? cg->err[CM_RESNET50] : "no modelled rows");
        goto fail;
    }
    return cg;
fail:
    calib_graphs_free(cg);
    return NULL;
}

void calib_graphs_free(struct calib_graphs *cg)
{
    if (!cg)
        return;
    for (int i = 0; i < cg->n; i++)
        graph_free(cg->g[i].g);
    free(cg);
}

const char *calib_graphs_spec(const struct calib_graphs *cg, int m)
{
    return m >= 0 && m < CM__COUNT ? cg->spec[m] : "?";
}

static int find_binding(const struct calib_graphs *cg, int model, int64_t batch, int64_t seq)
{
    for (int i = 0; i < cg->n; i++)
        if (cg->g[i].model == model && cg->g[i].batch == batch && cg->g[i].seq == seq)
            return i;
    return -1;
}

int calib_graph_index(const struct calib_graphs *cg, const struct calib_row *r)
{
    for (int i = 0; i < cg->n; i++)
        if (cg->g[i].model == r->model && cg->g[i].batch == r->cfg.batch &&
            cg->g[i].seq == r->seq)
            return i;
    return -1;
}

/* ---- evaluation and fit ---------------------------------------------------- */

/* mask: 1 = latency rows, 2 = memory rows. */
static enum status eval_rows(struct calib_set *set, const struct calib_graphs *cg,
                             const struct sim_params *p, int mask, struct diag *d)
{
    for (int i = 0; i < set->n_rows; i++) {
        struct calib_row *r = &set->rows[i];
        if (!((mask & 1) && r->use_latency) && !((mask & 2) && r->use_memory))
            continue;
        int gi = calib_graph_index(cg, r);
        if (gi < 0)
            return diag_set(d, ST_EINTERNAL, "calibration: no graph for line %d", r->line);
        struct sim_result res;
        enum status st = sim_run_params(cg->g[gi].g, &r->cfg, p, &res, d);
        if (st) {
            diag_prefix(d, "%s line %d", set->path, r->line);
            return st;
        }
        r->pred_latency_ms = res.latency_ms;
        r->pred_memory_mib = res.memory_mib;
        sim_result_fini(&res);
    }
    return ST_OK;
}

/* Layers and hidden width of a decoder graph: one Softmax per layer, width
 * from the first LayerNormalization's scale. */
static void decoder_dims(const struct graph *g, int *layers, double *width)
{
    *layers = 0;
    *width = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const struct node *n = &g->nodes[i];
        if (n->op == OP_Softmax)
            (*layers)++;
        if (n->op == OP_LayerNormalization && *width == 0 && n->n_in > 1 && n->in[1] >= 0) {
            const struct value *v = &g->values[n->in[1]];
            if (v->shape.known && v->shape.rank == 1)
                *width = (double)v->shape.d[0];
        }
    }
}

/* Generation estimate: one context pass over the input tokens, then one
 * decode step per output token: the graph at sequence 1 (weights re-read,
 * every kernel launched) without the call overhead, plus reading the KV cache
 * (2 tensors per layer of batch x context x width) at the sustained
 * bandwidth, with the context growing from input to input + output. */
static enum status eval_gen(struct calib_row *r, const struct calib_graphs *cg,
                            const struct sim_params *p, struct diag *d)
{
    const struct graph *gc = cg->g[find_binding(cg, r->model, r->cfg.batch, r->gen_in)].g;
    const struct graph *g1 = cg->g[find_binding(cg, r->model, r->cfg.batch, 1)].g;
    struct sim_result rc, r1;
    enum status st = sim_run_params(gc, &r->cfg, p, &rc, d);
    if (st)
        return st;
    sim_result_fini(&rc);
    if ((st = sim_run_params(g1, &r->cfg, p, &r1, d)))
        return st;
    sim_result_fini(&r1);
    struct hw hw;
    if ((st = hw_from_config(&r->cfg, &hw, d)))
        return st;
    int layers;
    double width;
    decoder_dims(g1, &layers, &width);
    double ctx = r->gen_in + (r->gen_out - 1) / 2.0;
    double kv = (double)r->cfg.batch * layers * 2 * ctx * width * precision_bytes(r->cfg.prec);
    double step_ms = r1.latency_ms - p->call_us[r->cfg.rt] * 1e-3 +
                     kv / (hw.bw_bytes * p->bw_eff) * 1e3;
    r->pred_latency_ms = rc.latency_ms + r->gen_out * step_ms;
    return ST_OK;
}

enum status calib_evaluate(struct calib_set *set, const struct calib_graphs *cg,
                           const struct sim_params *p, struct diag *d)
{
    enum status st = eval_rows(set, cg, p, 3, d);
    for (int i = 0; i < set->n_rows && !st; i++)
        if (set->rows[i].use_gen)
            st = eval_gen(&set->rows[i], cg, p, d);
    return st;
}

/* Mean absolute log error over the rows a fit uses (latency or memory). */
static double objective(const struct calib_set *set, bool memory)
{
    double s = 0;
    int n = 0;
    for (int i = 0; i < set->n_rows; i++) {
        const struct calib_row *r = &set->rows[i];
        if (memory ? !r->use_memory : !r->use_latency)
            continue;
        double pred = memory ? r->pred_memory_mib : r->pred_latency_ms;
        double meas = memory ? r->memory_mb : r->latency_ms;
        if (pred <= 0 || meas <= 0)
            continue;
        s += fabs(log(pred / meas));
        n++;
    }
    return n ? s / n : 0;
}

/* The fitted parameters, their search ranges and which objective they move. */
struct knob {
    const char *name;
    double init, lo, hi; /* the search starts at init, whatever is compiled in */
    bool memory;
    double *(*field)(struct sim_params *p);
};

#define FIELD(fn, expr) \
    static double *fn(struct sim_params *p) { return &(expr); }
FIELD(f_tc, p->tc_eff)
FIELD(f_bw, p->bw_eff)
FIELD(f_kernel, p->kernel_us)
FIELD(f_disp_pt, p->dispatch_us[RT_PYTORCH])
FIELD(f_disp_trt, p->dispatch_us[RT_TENSORRT])
FIELD(f_call_pt, p->call_us[RT_PYTORCH])
FIELD(f_call_trt, p->call_us[RT_TENSORRT])
FIELD(f_ctx_trt, p->context_mib[RT_TENSORRT])
FIELD(f_act, p->act_factor)
FIELD(f_conv_pt, p->conv_eff[RT_PYTORCH])
FIELD(f_conv_trt, p->conv_eff[RT_TENSORRT])
#undef FIELD

/* Starting points are the documented a-priori values (sim_params.c
 * comments), so the fit is reproducible whatever the compiled-in constants.
 * Memory: the engine context and the activation factor are fitted to the
 * GPT memory rows (plus the DIPPM point); the PyTorch context is not, since
 * a single row cannot pin it honestly. */
static const struct knob knobs[] = {
    {"tc_eff", 0.80, 0.3, 0.95, false, f_tc},
    {"bw_eff", 0.85, 0.4, 0.95, false, f_bw},
    {"kernel_us", 3.0, 0.5, 10, false, f_kernel},
    {"dispatch_us[pytorch]", 25, 2, 80, false, f_disp_pt},
    {"dispatch_us[tensorrt]", 1.5, 0.2, 10, false, f_disp_trt},
    {"call_us[pytorch]", 100, 5, 2000, false, f_call_pt},
    {"call_us[tensorrt]", 30, 2, 500, false, f_call_trt},
    {"conv_eff[pytorch]", 0.8, 0.3, 1.0, false, f_conv_pt},
    {"conv_eff[tensorrt]", 0.8, 0.3, 1.0, false, f_conv_trt},
    {"context_mib[tensorrt]", 1200, 300, 4000, true, f_ctx_trt},
    {"act_factor", 1.3, 1.0, 3.0, true, f_act},
};

int calib_knob_count(void)
{
    return (int)(sizeof knobs / sizeof knobs[0]);
}

const char *calib_knob_name(int k)
{
    return knobs[k].name;
}

void calib_knob_range(int k, double *lo, double *hi)
{
    *lo = knobs[k].lo;
    *hi = knobs[k].hi;
}

double calib_knob_value(const struct sim_params *p, int k)
{
    struct sim_params c = *p;
    return *knobs[k].field(&c);
}

enum status calib_fit(struct calib_set *set, const struct calib_graphs *cg,
                      const struct sim_params *start, struct sim_params *out, struct diag *d)
{
    struct sim_params cur = *start;
    for (int k = 0; k < calib_knob_count(); k++)
        *knobs[k].field(&cur) = knobs[k].init;
    enum status st = calib_evaluate(set, cg, &cur, d);
    if (st)
        return st;
    double obj[2] = {objective(set, false), objective(set, true)};
    /* Coordinate search in log space: each round tries each knob at a
     * geometric grid around its value, shrinking the step every round. */
    double step = 0.5; /* log-space half width */
    for (int round = 0; round < 8; round++, step *= 0.55) {
        for (int k = 0; k < calib_knob_count(); k++) {
            const struct knob *kb = &knobs[k];
            double *fv = kb->field(&cur);
            double base = *fv, best = base, best_obj = obj[kb->memory];
            for (int j = -3; j <= 3; j++) {
                if (j == 0)
                    continue;
                double v = base * exp(step * j / 3.0);
                if (v < kb->lo) v = kb->lo;
                if (v > kb->hi) v = kb->hi;
                *fv = v;
                if ((st = eval_rows(set, cg, &cur, kb->memory ? 2 : 1, d)))
                    return st;
                double o = objective(set, kb->memory);
                if (o < best_obj - 1e-12) {
                    best_obj = o;
                    best = v;
                }
            }
            *fv = best;
            obj[kb->memory] = best_obj;
        }
    }
    *out = cur;
    return calib_evaluate(set, cg, &cur, d);
}
