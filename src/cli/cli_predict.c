/* cli_predict.c - `dippm predict MODEL`: latency, throughput, energy,
 * memory, the teacher's roofline bound and the MIG suggestion. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_pred.h"
#include "core/diffusion.h"
#include "core/fit.h"
#include "core/price.h"
#include "core/report.h"
#include "core/tp.h"
#include "core/workload.h"
#include "graph/ops/tokens.h"
#include "util/fmt.h"

enum { OPT_SLO_MS = CLI_OPT__OWN, OPT_SLO_UPPER, OPT_HEADROOM };

static const struct cli_opt predict_opts[] = {
    {"slo-ms", 0, "X", "the latency target in milliseconds: the MIG suggestion must meet it",
     OPT_SLO_MS},
    {"slo-upper", 0, NULL, "with --slo-ms: the upper bound of the latency's 80% interval must "
     "meet the target, not the prediction itself", OPT_SLO_UPPER},
    {"headroom", 0, "PCT", "percent of the memory to keep spare (default 10)", OPT_HEADROOM},
    {NULL, 0, NULL, NULL, 0},
};

const struct cli_cmd cli_cmd_predict = {
    .name = "predict",
    .usage = "dippm predict MODEL [--batch N] [--gpu NAME[:PROFILE]] [--precision P]\n"
             "                     [--quant SCHEME] [--runtime R] [--set NAME=VALUE]...\n"
             "                     [--slo-ms X [--slo-upper]]\n"
             "                     [--headroom PCT] [--weights FILE] [--json] [-o FILE]\n"
             "                     [--dispatch-us US] [--price-per-hour X [--price-of gpu]]\n"
             "                     [--input-tokens N --output-tokens M [--set kv=P]\n"
             "                      [--kv-inputs SUBSTRING] [--tp N]]\n"
             "                     [--steps N [--no-guidance] [--vae SPEC]\n"
             "                      [--text-encoder SPEC[,SPEC]... | --no-text-encoder]]",
    .about =
        "Predicts latency (ms), throughput (samples/s), energy (J per batch, mJ per\n"
        "sample) and peak device memory (MiB) with the GNN, shows the teacher's roofline\n"
        "bound beside it, and suggests the smallest MIG profile of the GPU that holds the\n"
        "model with HEADROOM percent to spare (default 10) and, with --slo-ms, meets the\n"
        "latency target (with --slo-upper: the upper bound of the latency's interval).\n"
        "Latency, throughput and memory carry an 80% interval from the errors of\n"
        "held-out predictions on measured rows (weights/intervals.tsv); where no\n"
        "measured row has the GPU, precision or runtime, it widens and says so.\n\n"
        "Padding-free encoders: --set tokens_mean=N says that the runtime removes the\n"
        "padding of the batch (FasterTransformer remove-padding, NVIDIA's MLPerf BERT)\n"
        "and that each sequence of seq tokens holds N real ones on average: linear\n"
        "layers, norms, element-wise ops and activations cost N tokens per sequence,\n"
        "attention the padded seq. It applies whatever --runtime says (eager PyTorch\n"
        "does not remove padding); N must be at most seq.\n\n"
        "Decoders (zoo gpt, llama, moe, or an export with KV-cache inputs): with\n"
        "--input-tokens and --output-tokens, also the generation of the batch: time to\n"
        "first token, mean time per output token over the growing KV cache, tokens/s,\n"
        "energy per output token, KV-cache memory, the largest batch that fits and its\n"
        "tokens/s. --set kv=P (or --kv-precision P) stores the cache in fp32, fp16,\n"
        "bf16, int8 or fp8 (default: the model precision); --kv-inputs names the cache\n"
        "inputs of an export (default: names containing 'past'). --tp N (1, 2, 4, 8)\n"
        "splits a llama or moe template over N GPUs (tensor parallelism: 1/N of the\n"
        "heads, MLP and vocabulary each, two all-reduces per layer over NVLink or PCIe):\n"
        "times of the group, memory and max batch per GPU; no MIG advice.\n\n"
        "Diffusion denoisers (zoo unet, dit): with --steps N, also the pipeline per\n"
        "image: the text encoder(s) once over the prompts, N denoiser passes, both on\n"
        "twice the batch (classifier-free guidance: each prompt and its negative; not\n"
        "with --no-guidance), and one VAE decode (derived from the denoiser's latent,\n"
        "or --vae SPEC, e.g. zoo:vae:preset=sd3-vae:latent=128): time and energy per\n"
        "image, images/s and memory with every model resident. The text encoders are\n"
        "derived from the denoiser (SD 1.5: CLIP ViT-L/14; SD 2.x: OpenCLIP ViT-H/14;\n"
        "SDXL: both CLIP ViT-L/14 and OpenCLIP ViT-bigG/14; PixArt: the T5 v1.1 XXL\n"
        "encoder over 120 or 300 tokens; SD3: CLIP ViT-L/14 and OpenCLIP ViT-bigG/14\n"
        "over 77 tokens and the T5 v1.1 XXL encoder over 256); --text-encoder SPEC\n"
        "names them instead (repeatable, or a comma list) and --no-text-encoder leaves\n"
        "them out.",
    .common = CLI_C_SYMBOLS | CLI_C_CONFIG | CLI_C_JSON | CLI_C_OUTPUT | CLI_C_DEPLOY,
    .groups = {predict_opts, cli_gen_opts, cli_diff_opts},
};

int cli_pred_parse_pct(const char *arg, double *out)
{
    char *end;
    double v = strtod(arg, &end);
    if (end == arg || (*end && strcmp(end, "%")) || !isfinite(v) || v < 0 || v > 1000)
        return -1;
    *out = v / 100.0;
    return 0;
}

int cli_pred_parse_ms(const char *arg, double *out)
{
    char *end;
    double v = strtod(arg, &end);
    if (end == arg || *end || !isfinite(v) || v <= 0 || v > 1e7)
        return -1;
    *out = v;
    return 0;
}

struct predictor *cli_pred_predictor(const struct cli_common *co, int *rc)
{
    struct diag d = {0};
    struct predictor *p = predictor_new(co->weights, &d);
    *rc = 0;
    if (!p && co->weights) {
        *rc = cli_fail(&d);
        return NULL;
    }
    if (!p)
        fprintf(stderr, "dippm: note: %s; showing the teacher's analytic estimate instead of "
                        "the GNN (simulated, not measured)\n", d.msg);
    return p;
}

/* What `dippm predict` was asked for. */
struct predict_cli {
    struct cli_common co;
    struct cli_gen gen;
    double slo, headroom;
    bool slo_upper;
    struct cli_diff diff;
};

static int predict_opt(void *ctx, int id, const char *arg)
{
    struct predict_cli *a = ctx;
    if (id == OPT_SLO_MS) {
        if (cli_pred_parse_ms(arg, &a->slo))
            return cli_usage_error("predict", "--slo-ms '%s': expected milliseconds > 0", arg);
        return -1;
    }
    if (id == OPT_SLO_UPPER) {
        a->slo_upper = true;
        return -1;
    }
    if (id == OPT_HEADROOM) {
        if (cli_pred_parse_pct(arg, &a->headroom))
            return cli_usage_error("predict", "--headroom '%s': expected a percentage from 0 "
                                   "to 1000, e.g. 10", arg);
        return -1;
    }
    int r = cli_diff_opt(&a->diff, id, arg, "predict");
    if (r == 0)
        r = cli_gen_opt(&a->gen, id, arg);
    return r > 0 ? -1 : r < 0 ? 2 : CLI_OPTS_COMMON;
}

/* Options into a; -1 to go on, else the exit code. */
static int parse_args(struct predict_cli *a, int argc, char **argv)
{
    int rc = cli_parse(&cli_cmd_predict, &a->co, argc, argv, predict_opt, a);
    if (rc >= 0)
        return rc;
    if (optind + 1 != argc)
        return cli_usage_error("predict", "expected exactly one MODEL");
    if (a->slo_upper && !(a->slo > 0))
        return cli_usage_error("predict", "--slo-upper needs --slo-ms");
    rc = cli_diff_check(&a->diff, &a->gen, "predict");
    return rc ? rc : -1;
}

/* The report, as JSON or text (with the latency target's verdict). */
static int render(const struct predict_cli *a, const struct report_ctx *ctx)
{
    if (a->co.json) {
        struct jsonw w;
        jsonw_init(&w, true);
        report_prediction_json(&w, ctx);
        int rc = cli_emit(&a->co, w.buf, w.len);
        jsonw_fini(&w);
        return rc;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return status_exit_code(ST_ENOMEM);
    report_prediction_text(f, ctx);
    char t[32], u[32];
    if (a->slo > 0) {
        struct report_intervals iv;
        report_intervals(ctx->cfg, ctx->pred, &iv);
        bool upper = a->slo_upper && iv.lat.valid;
        double lat = upper ? iv.lat.high : ctx->pred->latency_ms;
        fprintf(f, "target      %s: %s on the configured GPU%s%s%s\n", fmt_ms(a->slo, t, sizeof t),
                lat <= a->slo ? "met" : "NOT met", upper ? " by the interval's upper bound " : "",
                upper ? fmt_ms(lat, u, sizeof u) : "",
                a->slo_upper && !upper ? " (no interval: by the prediction)" : "");
    }
    fclose(f);
    int rc = cli_emit(&a->co, buf, len);
    free(buf);
    return rc;
}

/* With --tp: one GPU's shard of g, whose pass is predicted instead of g's,
 * and the group's all-reduces (tp.h). */
struct tp_pass {
    struct graph *shard; /* NULL: one GPU */
    int layers, hidden;
    struct tp_group group;
};

/* The pass of g, or of its shard plus the group's all-reduces. */
static int predict_pass(struct graph *g, struct tp_pass *t, struct predictor *p,
                        const struct config *cfg, struct prediction *pr)
{
    struct diag d = {0};
    if (predict_run(p, t->shard ? t->shard : g, cfg, pr, &d)) {
        prediction_fini(pr);
        return cli_fail(&d);
    }
    if (t->shard) {
        int seq = graph_sym_find(t->shard, "seq");
        double tokens = seq >= 0 ? (double)t->shard->syms[seq].val : 1;
        tp_pass_apply(pr, cfg, t->group.n, t->layers, t->hidden, tokens, &t->group);
    }
    return 0;
}

/* Generation (when asked), MIG advice and the prediction of g, reported. */
static int run(struct predict_cli *a, struct predictor *p, struct graph *g, struct tp_pass *t,
               const struct config *cfg, enum workload wl, const char *model)
{
    struct price price;
    int rc = cli_pred_price(&a->co, cfg, "predict", &price);
    if (rc)
        return rc;
    struct diag d = {0};
    /* generation first: an export's graph is re-bound per pass */
    struct gen_result gr;
    if (wl == WORKLOAD_GENERATION) {
        struct gen_model *gm;
        struct gen_request rq;
        if ((rc = cli_gen_prepare(&a->gen, g, cfg, a->headroom, &gm, &rq)))
            return rc;
        enum status st = gen_run(p, gm, cfg, &rq, &gr, &d);
        gen_model_free(gm);
        if (st)
            return cli_fail(&d);
    }
    struct diff_result dr;
    if (wl == WORKLOAD_DIFFUSION) {
        struct diff_request rq = cli_diff_request(&a->diff, cfg->batch);
        rq.headroom = a->headroom;
        if (diff_run(p, g, cfg, &rq, &dr, &d) || diff_mig(p, g, cfg, &rq, &dr, &d))
            return cli_fail(&d);
    }
    /* MIG advice first: it re-runs the predictor per profile; a slice
     * cannot join a multi-GPU group, so none is advised for one */
    struct mig_advice adv;
    bool have_mig = false;
    if (t->shard)
        ;
    else if (mig_advise(p, g, cfg, a->headroom, a->slo, &adv, &d) == ST_OK)
        have_mig = true;
    else if (d.code != ST_OK)
        return cli_fail(&d);
    if (have_mig && a->slo_upper && adv.n > 0) {
        /* the interval's factor is the same on every slice (they count as their GPU) */
        struct prediction one = {.latency_ms = 1, .throughput = 1};
        struct report_intervals iv;
        report_intervals(cfg, &one, &iv);
        if (iv.lat.valid) {
            adv.slo_factor = iv.lat.high;
            mig_decide(gpu_get(cfg->gpu), &adv);
        }
    }
    struct prediction pr;
    if ((rc = predict_pass(g, t, p, cfg, &pr)))
        return rc;
    struct report_ctx ctx = {t->shard ? t->shard : g, cfg, &pr, have_mig ? &adv : NULL, p,
                             model, wl == WORKLOAD_GENERATION ? &gr : NULL, a->headroom,
                             wl == WORKLOAD_DIFFUSION ? &dr : NULL, &price,
                             t->shard ? &t->group : NULL};
    rc = render(a, &ctx);
    prediction_fini(&pr);
    return rc;
}

int cli_predict(int argc, char **argv)
{
    struct predict_cli a = {.headroom = FIT_HEADROOM_DEFAULT};
    cli_common_init(&a.co);
    int rc = parse_args(&a, argc, argv);
    if (rc >= 0)
        return rc;
    rc = 0;
    enum workload wl = workload_asked(cli_gen_wanted(&a.gen, "predict", &rc), a.diff.steps);
    if (rc)
        return rc;
    struct graph *g = cli_load_model(argv[optind], &a.co, &rc);
    if (!g)
        return rc;
    if (g->tokens > 0 && wl != WORKLOAD_PASS) {
        graph_free(g);
        return cli_usage_error("predict", "--set %s is the padding of an encoder's batch; a "
                               "generation or a diffusion pipeline has none", GRAPH_TOKENS_NAME);
    }
    /* a template's prefill is predicted at the prompt length unless --set seq says otherwise */
    bool seq_set = false;
    for (int i = 0; i < a.co.n_sets; i++)
        seq_set |= strcmp(a.co.set_name[i], "seq") == 0;
    if (wl == WORKLOAD_GENERATION && !seq_set && strcmp(g->format, "zoo") == 0 && graph_sym_find(g, "seq") >= 0)
        g->syms[graph_sym_find(g, "seq")].val = a.gen.in;
    struct config cfg;
    struct predictor *p = NULL;
    if (!(rc = cli_config(&a.co, g, &cfg)))
        p = cli_pred_predictor(&a.co, &rc);
    /* vLLM's own cost is its decode loop: one pass alone is the engine's */
    if (!rc && cfg.rt == RT_VLLM && wl != WORKLOAD_GENERATION)
        fprintf(stderr, "dippm: note: vllm: one forward pass, as the engine replayed as a CUDA "
                        "graph runs it; the serving loop's cost per sequence shows in a "
                        "generation (--input-tokens and --output-tokens)\n");
    struct tp_pass t = {.group.n = 1};
    struct diag d = {0};
    if (!rc && a.gen.tp > 1) {
        t.group.n = a.gen.tp;
        if (!(t.shard = tp_shard_graph(g, a.gen.tp, &t.layers, &t.hidden, &d)))
            rc = cli_fail(&d);
    }
    if (!rc)
        rc = run(&a, p, g, &t, &cfg, wl, argv[optind]);
    predictor_free(p);
    graph_free(t.shard);
    graph_free(g);
    return rc;
}
