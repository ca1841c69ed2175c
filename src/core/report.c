/* report.c - prediction reports (text and JSON) and the no-terminal report. */
#include "core/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/diffusion.h"
#include "core/fit.h"
#include "core/generation.h"
#include "core/price.h"
#include "core/tp.h"
#include "util/fmt.h"
#include "util/textsafe.h"
#include "core/gpu.h"
#include "graph/load.h"
#include "graph/ops/shape.h"
#include "graph/ops/tokens.h"
#include "util/xalloc.h"

const char *report_hw_label(const struct config *cfg, char *buf, size_t size)
{
    const struct gpu_spec *gs = gpu_get(cfg->gpu);
    if (!gs)
        snprintf(buf, size, "?");
    else if (cfg->mig >= 0 && cfg->mig < gs->n_mig)
        snprintf(buf, size, "%s %s", gs->name, gs->mig[cfg->mig].name);
    else
        snprintf(buf, size, "%s", gs->name);
    return buf;
}

const char *report_source_line(const struct predictor *p)
{
    if (!p)
        return "teacher only (no GNN weights loaded): analytic GPU model calibrated on "
               "published A100 measurements; simulated, not measured";
    return predictor_describe(p);
}

/* "seq=384 height=224": the symbols other than batch (shown on its own). */
static void symbols_str(const struct graph *g, char *buf, size_t size)
{
    size_t len = 0;
    int bs = graph_batch_sym(g);
    buf[0] = '\0';
    for (int i = 0; i < g->n_syms && len < size; i++)
        if (i != bs)
            len += (size_t)snprintf(buf + len, size - len, "%s%s=%lld", len ? " " : "",
                                    g->syms[i].name, (long long)g->syms[i].val);
}

void report_intervals(const struct config *cfg, const struct prediction *pr,
                      struct report_intervals *out)
{
    const char *why = NULL;
    const struct interval_table *t = interval_default(&why);
    out->lat = interval_for(t, IT_TIME, cfg, false, pr->latency_ms);
    out->mem = interval_for(t, IT_MEMORY, cfg, false, pr->memory_mib);
    if (!t && why) {
        snprintf(out->lat.note, sizeof out->lat.note, "%s", why);
        snprintf(out->mem.note, sizeof out->mem.note, "%s", why);
    }
}

static void json_bound(struct jsonw *w, const char *key, bool valid, double v, int decimals)
{
    jsonw_key(w, key);
    if (valid && isfinite(v))
        jsonw_fixed(w, v, decimals);
    else
        jsonw_null(w);
}

void report_json_intervals(struct jsonw *w, const struct prediction *pr,
                           const struct report_intervals *iv, bool notes)
{
    const struct interval *l = &iv->lat, *m = &iv->mem;
    double batch = pr->latency_ms > 0 ? pr->throughput * pr->latency_ms : 0;
    json_bound(w, "latency_ms_low", l->valid, l->low, 4);
    json_bound(w, "latency_ms_high", l->valid, l->high, 4);
    json_bound(w, "throughput_per_s_low", l->valid && l->high > 0, batch / l->high, 2);
    json_bound(w, "throughput_per_s_high", l->valid && l->low > 0, batch / l->low, 2);
    json_bound(w, "memory_mib_low", m->valid, m->low, 1);
    json_bound(w, "memory_mib_high", m->valid, m->high, 1);
    if (notes) {
        jsonw_key_fixed(w, "interval_coverage", INTERVAL_COVERAGE, 2);
        jsonw_key_str(w, "interval_note", l->note);
        jsonw_key_str(w, "memory_interval_note", m->note);
    }
}

/* " [7.10 ms, 9.60 ms] 80%" after a figure, or "" without an interval. */
static const char *bracket(const struct interval *iv, const char *(*fmt)(double, char *, int),
                           char *buf, size_t size)
{
    char a[32], b[32];
    if (!iv->valid)
        snprintf(buf, size, "%s", "");
    else
        snprintf(buf, size, " [%s, %s] %.0f%%", fmt(iv->low, a, sizeof a),
                 fmt(iv->high, b, sizeof b), INTERVAL_COVERAGE * 100);
    return buf;
}

bool report_launch_bound(const struct config *cfg, const struct prediction *pr)
{
    return runtime_eager(cfg->rt) && pr->sim.latency_ms > 0 &&
           pr->sim.host_ms > pr->sim.gpu_busy_ms;
}

bool report_cost(const struct report_ctx *rc, struct report_cost *out)
{
    memset(out, 0, sizeof *out);
    double ph = rc->price ? rc->price->per_hour : 0;
    if (!(ph > 0))
        return false;
    out->per_1k_samples = price_cost(ph, rc->pred->throughput, 1e3);
    if (rc->gen)
        out->per_1m_output_tokens = price_cost(ph, rc->gen->output_tokens_per_s, 1e6);
    if (rc->diff)
        out->per_1k_images = price_cost(ph, rc->diff->images_per_s, 1e3);
    return true;
}

/* "cost        0.0120 per 1,000 samples  (2.50 per hour: SOURCE)": per
 * million output tokens for a generation, per 1,000 images for a pipeline. */
static void cost_text(FILE *f, const struct report_ctx *rc)
{
    struct report_cost c;
    if (!report_cost(rc, &c))
        return;
    char a[32], b[32];
    if (rc->gen)
        fprintf(f, "cost        %s per million output tokens",
                fmt_num(c.per_1m_output_tokens, a, sizeof a));
    else if (rc->diff)
        fprintf(f, "cost        %s per 1,000 images", fmt_num(c.per_1k_images, a, sizeof a));
    else
        fprintf(f, "cost        %s per 1,000 samples", fmt_num(c.per_1k_samples, a, sizeof a));
    fprintf(f, "  (%s per hour: %s)\n", fmt_num(rc->price->per_hour, b, sizeof b),
            tsafe(rc->price->source));
}

static void cost_json(struct jsonw *w, const struct report_ctx *rc)
{
    struct report_cost c;
    if (!report_cost(rc, &c))
        return;
    jsonw_key(w, "cost");
    jsonw_obj_begin(w);
    jsonw_key_num(w, "price_per_hour", rc->price->per_hour, false);
    jsonw_key_str(w, "price_source", rc->price->source);
    jsonw_key_num(w, "per_1k_samples", c.per_1k_samples, false);
    if (rc->gen)
        jsonw_key_num(w, "per_1m_output_tokens", c.per_1m_output_tokens, false);
    if (rc->diff)
        jsonw_key_num(w, "per_1k_images", c.per_1k_images, false);
    jsonw_obj_end(w);
}

/* What a tensor-parallel prediction is: the group, its link, the shard. */
static void tp_text(FILE *f, const struct tp_group *t)
{
    char a[32];
    fprintf(f, "tensor par. %d GPUs over %s (%.0f GB/s per direction, %.0f us per all-reduce): "
               "each holds 1/%d of the heads, MLP and vocabulary; below, one GPU's shard plus "
               "%d all-reduces per pass (%s; the teacher's figures are the shard's alone), memory "
               "per GPU, energy of all %d\n", t->n,
            t->link.name, t->link.bw_bytes / 1e9, t->link.latency_s * 1e6, t->n, t->allreduces,
            fmt_ms(t->pass_ms, a, sizeof a), t->n);
}

static void tp_json(struct jsonw *w, const struct tp_group *t)
{
    jsonw_key(w, "tensor_parallel");
    jsonw_obj_begin(w);
    jsonw_key_int(w, "tp", t->n);
    jsonw_key_str(w, "link", t->link.name);
    jsonw_key_fixed(w, "link_gb_s_per_direction", t->link.bw_bytes / 1e9, 1);
    jsonw_key_fixed(w, "allreduce_latency_us", t->link.latency_s * 1e6, 2);
    jsonw_key_int(w, "allreduces_per_pass", t->allreduces);
    jsonw_key_fixed(w, "pass_allreduce_ms", t->pass_ms, 4);
    jsonw_key_str(w, "memory", "per GPU");
    jsonw_key_str(w, "energy", "all GPUs");
    jsonw_key_str(w, "mig_advice", "not offered for multi-GPU runs");
    jsonw_obj_end(w);
}

void report_prediction_text(FILE *f, const struct report_ctx *rc)
{
    const struct graph *g = rc->g;
    const struct prediction *pr = rc->pred;
    const struct config *cfg = rc->cfg;
    char a[32], b[32], c[32], hw[128], syms[256];
    fprintf(f, "model       %s (%s, %d nodes, %s params, %s MACs per batch)\n", tsafe(g->name), g->format,
            g->n_nodes, fmt_si(g->totals.params, a, sizeof a), fmt_si(g->totals.macs, b, sizeof b));
    if (g->totals.n_unsupported + g->totals.n_unknown)
        fprintf(f, "            %d nodes not covered by the cost model (see 'dippm info')\n",
                g->totals.n_unsupported + g->totals.n_unknown);
    symbols_str(g, syms, sizeof syms);
    char prec[96];
    fprintf(f, "config      %s, %s, %s, batch %lld%s%s\n", report_hw_label(cfg, hw, sizeof hw),
            config_prec_label(cfg, prec, sizeof prec), runtime_name(cfg->rt), (long long)cfg->batch,
            *syms ? ", " : "", syms);
    if (g->tokens > 0)
        fprintf(f, "padding     removed: %lld real tokens per sequence of %s=%lld (--set %s): "
                "linear layers, norms and element-wise ops cost the real tokens, attention "
                "the padded length\n", (long long)g->tokens, g->syms[g->tokens_sym].name,
                (long long)g->syms[g->tokens_sym].val, GRAPH_TOKENS_NAME);
    if (rc->tp)
        tp_text(f, rc->tp);
    /* The GNN's figures with the teacher's analytic estimate beside them. */
    char tl[64] = "", te[64] = "", tm[64] = "";
    if (pr->from_gnn) {
        snprintf(tl, sizeof tl, "teacher %s, ", fmt_ms(pr->sim.latency_ms, a, sizeof a));
        snprintf(te, sizeof te, "  (GNN; teacher %s)", fmt_joules(pr->sim.energy_j, a, sizeof a));
        snprintf(tm, sizeof tm, "  (GNN; teacher %s)", fmt_mib(pr->sim.memory_mib, a, sizeof a));
    }
    struct report_intervals iv;
    report_intervals(cfg, pr, &iv);
    char br[96], no_fit[64] = "";
    if (!fit_ok(pr->memory_mib, rc->headroom, pr->capacity_mib))
        snprintf(no_fit, sizeof no_fit, "  DOES NOT FIT with %.0f%% headroom", rc->headroom * 100);
    fprintf(f, "latency     %s%s  (%s; %sroofline bound %s)\n", fmt_ms(pr->latency_ms, a, sizeof a),
            bracket(&iv.lat, fmt_ms, br, sizeof br), pr->from_gnn ? "GNN" : "teacher", tl,
            fmt_ms(pr->sim.roofline_ms, b, sizeof b));
    if (report_launch_bound(cfg, pr))
        fprintf(f, "            launch-bound: host dispatch %.0f%% of the time (--dispatch-us "
                "to change; now %s per op)\n", 100 * pr->sim.host_ms / pr->sim.latency_ms,
                fmt_ms(predict_dispatch_us(cfg) / 1e3, a, sizeof a));
    struct interval tp = iv.lat; /* throughput = batch / latency: the bounds swap */
    if (tp.valid && tp.low > 0) {
        tp.low = pr->throughput * pr->latency_ms / iv.lat.high;
        tp.high = pr->throughput * pr->latency_ms / iv.lat.low;
    }
    fprintf(f, "throughput  %s samples/s%s\n", fmt_num(pr->throughput, a, sizeof a),
            bracket(&tp, fmt_num, br, sizeof br));
    fprintf(f, "energy      %s per batch, %s per sample%s\n", fmt_joules(pr->energy_j, a, sizeof a),
            fmt_joules(pr->energy_mj_per_sample / 1e3, b, sizeof b), te);
    fprintf(f, "memory      %s%s of %s usable (%.1f%%)%s%s\n", fmt_mib(pr->memory_mib, a, sizeof a),
            bracket(&iv.mem, fmt_mib, br, sizeof br), fmt_mib(pr->capacity_mib, b, sizeof b),
            pr->capacity_mib > 0 ? 100.0 * pr->memory_mib / pr->capacity_mib : 0, tm,
            no_fit);
    /* say where an interval is wider than its group's, or missing */
    for (int k = 0; k < 2; k++) {
        const struct interval *x = k ? &iv.mem : &iv.lat;
        if (!x->valid || x->widen > 1)
            fprintf(f, "interval    %s: %s\n", k ? "memory" : "latency", tsafe(x->note));
    }
    if (rc->tp)
        fprintf(f, "MIG         not offered for multi-GPU runs (tensor parallel over %d GPUs)\n",
                rc->tp->n);
    if (rc->mig) {
        const struct gpu_spec *gs = gpu_get(rc->mig->gpu);
        if (rc->mig->best >= 0)
            fprintf(f, "MIG         %s  (%s)\n", gs->mig[rc->mig->best].name, rc->mig->reason);
        else
            fprintf(f, "MIG         none  (%s)\n", rc->mig->reason);
        if (rc->mig->n) {
            fprintf(f, "            per profile:");
            for (int i = 0; i < rc->mig->n; i++) {
                const struct mig_option *o = &rc->mig->opts[i];
                fprintf(f, "%s %s %s%s", i ? "," : "", gs->mig[o->profile].name,
                        fmt_ms(o->latency_ms, c, sizeof c), o->fits ? "" : " (too small)");
            }
            fputc('\n', f);
        }
    }
    if (rc->gen) {
        gen_report_text(f, rc->gen, rc->headroom);
        /* what nvidia-smi will show for a vLLM server is not what it needs */
        if (rc->cfg->rt == RT_VLLM)
            fprintf(f, "  vllm      reserves --gpu-memory-utilization (default 0.9) of the GPU "
                       "or slice at start and fills what the model leaves with KV-cache "
                       "blocks; the memory above is what this batch needs, and its scheduler "
                       "caps the running batch at --max-num-seqs\n");
    }
    if (rc->diff)
        diff_report_text(f, rc->diff);
    cost_text(f, rc);
    fprintf(f, "source      %s\n", report_source_line(rc->p));
}

void report_json_figures(struct jsonw *w, const struct prediction *pr, double headroom)
{
    jsonw_key_fixed(w, "throughput_per_s", pr->throughput, 2);
    jsonw_key_fixed(w, "energy_j", pr->energy_j, 5);
    jsonw_key_fixed(w, "energy_mj_per_sample", pr->energy_mj_per_sample, 4);
    jsonw_key_fixed(w, "memory_mib", pr->memory_mib, 1);
    jsonw_key_fixed(w, "capacity_mib", pr->capacity_mib, 1);
    jsonw_key_bool(w, "fits", fit_ok(pr->memory_mib, headroom, pr->capacity_mib));
}

void report_json_symbols(struct jsonw *w, const struct graph *g)
{
    jsonw_key(w, "symbols");
    jsonw_obj_begin(w);
    for (int i = 0; i < g->n_syms; i++) {
        jsonw_key_int(w, g->syms[i].name, g->syms[i].val);
    }
    jsonw_obj_end(w);
}

void report_prediction_json(struct jsonw *w, const struct report_ctx *rc)
{
    const struct graph *g = rc->g;
    const struct prediction *pr = rc->pred;
    const struct config *cfg = rc->cfg;
    const struct gpu_spec *gs = gpu_get(cfg->gpu);
    jsonw_obj_begin(w);
    jsonw_key_str(w, "model", g->name);
    if (rc->model_spec) {
        jsonw_key_str(w, "model_spec", rc->model_spec);
    }
    jsonw_key_str(w, "format", g->format);
    jsonw_key_int(w, "nodes", g->n_nodes);
    jsonw_key_int(w, "nodes_not_counted", g->totals.n_unsupported + g->totals.n_unknown);
    jsonw_key_num(w, "params", g->totals.params, false);
    jsonw_key_num(w, "macs", g->totals.macs, false);
    jsonw_key_num(w, "flops", g->totals.flops, false);
    jsonw_key_str(w, "gpu", gs ? gs->name : "?");
    jsonw_key(w, "mig");
    if (gs && cfg->mig >= 0)
        jsonw_str(w, gs->mig[cfg->mig].name);
    else
        jsonw_null(w);
    jsonw_key_str(w, "precision", precision_name(cfg->prec));
    report_quant_json(w, cfg);
    jsonw_key_str(w, "runtime", runtime_name(cfg->rt));
    jsonw_key_int(w, "batch", cfg->batch);
    report_json_symbols(w, g);
    if (g->tokens > 0) /* padding removed: the real tokens per sequence */
        jsonw_key_int(w, GRAPH_TOKENS_NAME, g->tokens);
    jsonw_key_str(w, "source", pr->from_gnn ? "gnn" : "teacher");
    jsonw_key_fixed(w, "latency_ms", pr->latency_ms, 4);
    jsonw_key_fixed(w, "roofline_ms", pr->sim.roofline_ms, 4);
    jsonw_key_fixed(w, "teacher_latency_ms", pr->sim.latency_ms, 4);
    if (runtime_eager(cfg->rt)) {
        jsonw_key_fixed(w, "dispatch_us", predict_dispatch_us(cfg), 3);
        jsonw_key_fixed(w, "teacher_host_ms", pr->sim.host_ms, 4);
    }
    report_json_figures(w, pr, rc->headroom);
    struct report_intervals iv;
    report_intervals(cfg, pr, &iv);
    report_json_intervals(w, pr, &iv, true);
    if (rc->tp)
        tp_json(w, rc->tp);
    if (rc->mig) {
        jsonw_key(w, "mig_advice");
        jsonw_obj_begin(w);
        jsonw_key(w, "suggestion");
        if (rc->mig->best >= 0)
            jsonw_str(w, gs->mig[rc->mig->best].name);
        else
            jsonw_null(w);
        jsonw_key_fixed(w, "headroom", rc->mig->headroom, 3);
        jsonw_key(w, "slo_ms");
        if (rc->mig->slo_ms > 0)
            jsonw_fixed(w, rc->mig->slo_ms, 3);
        else
            jsonw_null(w);
        jsonw_key_bool(w, "slo_upper", rc->mig->slo_factor > 1);
        jsonw_key_str(w, "reason", rc->mig->reason);
        jsonw_key(w, "profiles");
        jsonw_arr_begin(w, false);
        for (int i = 0; i < rc->mig->n; i++) {
            const struct mig_option *o = &rc->mig->opts[i];
            jsonw_obj_begin(w);
            jsonw_key_str(w, "profile", gs->mig[o->profile].name);
            jsonw_key_fixed(w, "usable_mib", o->usable_mib, 1);
            jsonw_key_fixed(w, "memory_mib", o->memory_mib, 1);
            jsonw_key_fixed(w, "need_mib", o->need_mib, 1);
            jsonw_key_fixed(w, "latency_ms", o->latency_ms, 4);
            jsonw_key_bool(w, "fits", o->fits);
            jsonw_key_bool(w, "meets_slo", o->meets_slo);
            jsonw_obj_end(w);
        }
        jsonw_arr_end(w);
        jsonw_obj_end(w);
    }
    if (rc->gen)
        gen_report_json(w, rc->gen, rc->headroom);
    if (rc->diff)
        diff_report_json(w, rc->diff);
    cost_json(w, rc);
    jsonw_key_str(w, "weights", report_source_line(rc->p));
    jsonw_obj_end(w);
}

/* Top layers by predicted time share. */
static void top_layers(FILE *f, const struct graph *g, const struct prediction *pr, int k)
{
    if (!pr->node_share && !pr->sim.nodes)
        return;
    int n = g->n_nodes;
    int *idx = xmalloc(sizeof *idx * (size_t)(n ? n : 1));
    double *share = xmalloc(sizeof *share * (size_t)(n ? n : 1));
    double total = 0;
    for (int i = 0; i < n; i++)
        total += pr->sim.nodes ? pr->sim.nodes[i].time_s : 0;
    for (int i = 0; i < n; i++) {
        idx[i] = i;
        share[i] = pr->node_share ? pr->node_share[i]
                   : total > 0   ? pr->sim.nodes[i].time_s / total
                                 : 0;
    }
    for (int i = 0; i < k && i < n; i++) /* partial selection sort */
        for (int j = i + 1; j < n; j++)
            if (share[idx[j]] > share[idx[i]]) {
                int t = idx[i];
                idx[i] = idx[j];
                idx[j] = t;
            }
    fprintf(f, "\nlayers with the largest predicted time share:\n");
    fprintf(f, "  %-36s %-18s %7s  %-8s %s\n", "node", "op", "share", "bound", "output");
    for (int i = 0; i < k && i < n; i++) {
        const struct node *nd = &g->nodes[idx[i]];
        char sh[96];
        shape_str(&g->values[nd->out[0]].shape, sh, sizeof sh);
        fprintf(f, "  %-36.36s %-18.18s %6.1f%%  %-8s %s\n", tsafe(nd->name), tsafe(nd->op_type),
                100 * share[idx[i]],
                pr->sim.nodes ? bound_name(pr->sim.nodes[idx[i]].bound) : "-", sh);
    }
    free(idx);
    free(share);
}

int report_main(const char *model)
{
    if (!model)
        model = model_default_path();
    if (!model) {
        fprintf(stderr, "dippm: no model given and the bundled default model "
                        "(samples/resnet50.onnx) was not found\n");
        return 3;
    }
    struct diag d = {0};
    struct graph *g = model_load(model, &d);
    if (!g) {
        fprintf(stderr, "dippm: %s\n", d.msg);
        return status_exit_code(d.code);
    }
    struct diag wd = {0};
    struct predictor *p = predictor_new(NULL, &wd);
    struct config cfg;
    config_default(&cfg);
    int bs = graph_batch_sym(g);
    cfg.batch = bs >= 0 ? g->syms[bs].val : 1;
    struct prediction pr;
    int rc = 0;
    if (predict_run(p, g, &cfg, &pr, &d)) {
        fprintf(stderr, "dippm: %s\n", d.msg);
        rc = status_exit_code(d.code);
        prediction_fini(&pr);
        goto out;
    }
    struct mig_advice adv;
    struct diag md = {0};
    bool have_mig = mig_advise(p, g, &cfg, 0.10, 0, &adv, &md) == ST_OK;
    /* mig_advise re-ran the predictor per profile: restore the full-GPU run */
    prediction_fini(&pr);
    if (predict_run(p, g, &cfg, &pr, &d)) {
        fprintf(stderr, "dippm: %s\n", d.msg);
        rc = status_exit_code(d.code);
        prediction_fini(&pr);
        goto out;
    }
    printf("dippm report for %s\n\n", model);
    struct report_ctx ctx = {g, &cfg, &pr, have_mig ? &adv : NULL, p, model, NULL, 0, NULL, NULL,
                             NULL};
    report_prediction_text(stdout, &ctx);
    top_layers(stdout, g, &pr, 10);
    if (!p)
        printf("\nnote: %s\n", wd.msg);
    printf("\nRun dippm in a terminal for the interactive explorer; 'dippm --help' lists the "
           "subcommands.\n");
    prediction_fini(&pr);
out:
    predictor_free(p);
    graph_free(g);
    return rc;
}

void report_quant_json(struct jsonw *w, const struct config *cfg)
{
    if (cfg->quant.scheme == QUANT_NONE)
        return;
    char q[64];
    quant_format(&cfg->quant, q, sizeof q);
    jsonw_key_str(w, "quant", q);
}
