/* test_generation.c - LLM generation (src/core/generation.c) and the decoder
 * presets it runs on.
 *
 * Parameter counts of the presets are the published totals (the sum of the
 * tensors' elements in each model's released safetensors, as the model
 * cards and configs give them):
 *   Mixtral-8x7B-v0.1 (mistralai)    46,702,792,704  ("46.7B", 12.9B active)
 *   Qwen3-30B-A3B (Qwen)             30,532,122,624  ("30.5B", 3.3B activated)
 *   Llama-2-70b-hf (meta-llama)      68,976,648,192  ("69B")
 *   Meta-Llama-3-70B (meta-llama)    70,553,706,496  ("70.6B")
 *   Qwen3-8B (Qwen)                   8,190,735,360  ("8.2B")
 *   Qwen3-14B (Qwen)                 14,768,307,200  ("14.8B")
 *   Qwen3-32B (Qwen)                 32,762,123,264  ("32.8B")
 *   Llama-2-7b-hf 6,738,415,616; Meta-Llama-3-8B 8,030,261,248.
 * Encoder-decoders (Hugging Face T5ForConditionalGeneration and
 * BartForConditionalGeneration, sum of p.numel() over parameters, tied
 * heads counted once):
 *   t5-small 60,506,624; t5-base 222,903,552; t5-large 737,668,096
 *   facebook/bart-base 139,420,416; facebook/bart-large 406,291,456
 * Diffusion UNets (diffusers UNet2DConditionModel of the published
 * pipelines, sum of p.numel()):
 *   runwayml/stable-diffusion-v1-5 unet           859,520,964
 *   stabilityai/stable-diffusion-2-1 unet         865,910,724
 *   stabilityai/stable-diffusion-xl-base-1.0 unet 2,567,463,684
 * Diffusion transformers (diffusers PixArtTransformer2DModel), derived from
 * the architecture (graph/zoo/zoo_dit.c; LayerNorms have no affine, the sin-cos
 * position embedding is a buffer) and checked against the published file:
 *   PixArt-alpha/PixArt-Sigma-XL-2-1024-MS transformer  610,856,096 =
 *     pos_embed.proj 4 x 1152 x 2 x 2 + 1152                        19,584
 *     adaln_single: timestep_embedder (256 x 1152 + 1152) + (1152^2 +
 *       1152) = 1,624,320, linear 1152 x 6912 + 6912 = 7,969,536    9,593,856
 *     caption_projection (4096 x 1152 + 1152) + (1152^2 + 1152)  6,048,000
 *     28 blocks x 21,255,552: scale_shift_table 6 x 1152 = 6,912,
 *       attn1 and attn2 4 x (1152^2 + 1152) = 5,313,024 each, ff
 *       (1152 x 4608 + 4608) + (4608 x 1152 + 1152) = 10,622,592  595,155,456
 *     scale_shift_table 2 x 1152 + proj_out 1152 x 32 + 32          39,200
 *   Its transformer/diffusion_pytorch_model.safetensors (fp32, commit edfd592
 *   of that Hugging Face repository) is 2,443,492,488 bytes: the 8-byte
 *   header length, a 68,096-byte JSON header naming these 603 tensors, and
 *   4 x 610,856,096 bytes of data.
 *   PixArt-alpha/PixArt-XL-2-1024-MS adds the resolution and aspect-ratio
 *   embedders (use_additional_conditions), 2 x ((256 x 384 + 384) +
 *   (384^2 + 384)) = 493,056: 611,349,152 (derived; its checkpoint is listed
 *   as 2.45 GB against Sigma's 2.44 GB). The 512 px Sigma has the 1024 one's
 *   parameters (only the position table, a buffer, is smaller).
 * The active counts are the published configurations' arithmetic: total
 * minus (experts - top_k) experts of 3 x hidden x expert_inter per layer.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/generation.h"
#include "core/gpu.h"
#include "graph/ops/shape.h"
#include "core/sim.h"
#include "graph/zoo/zoo.h"

static struct graph *build(const char *spec)
{
    struct diag d = {0};
    struct graph *g = zoo_build_spec(spec, &d);
    if (!g)
        fail_msg("%s: %s", spec, d.msg);
    if (graph_infer(g, &d))
        fail_msg("%s: %s", spec, d.msg);
    return g;
}

static struct config cfg_for(const char *gpu, enum precision prec)
{
    struct config c;
    config_default(&c);
    c.gpu = gpu_find(gpu);
    assert_true(c.gpu >= 0);
    c.prec = prec;
    c.rt = RT_TENSORRT;
    return c;
}

static void run(struct graph *g, const struct config *cfg, int64_t n, int64_t m, int64_t b,
                enum precision kv, bool max_batch, struct gen_result *r)
{
    struct diag d = {0};
    struct gen_model *gm;
    if (gen_model_open(g, NULL, &gm, &d))
        fail_msg("%s: %s", g->name, d.msg);
    struct gen_request rq = {n, m, b, kv, 0.10};
    enum status st = max_batch ? gen_run(NULL, gm, cfg, &rq, r, &d)
                               : gen_run_batch(NULL, gm, cfg, &rq, r, &d);
    gen_model_free(gm);
    if (st)
        fail_msg("%s: %s", g->name, d.msg);
}

static void test_encdec_params(void **state)
{
    (void)state;
    static const struct {
        const char *spec;
        double params;
    } want[] = {{"t5", 60506624.0},         {"t5:preset=t5-base", 222903552.0},
                {"t5:preset=t5-large", 737668096.0}, {"bart", 139420416.0},
                {"bart:preset=bart-large", 406291456.0}, {"unet", 859520964.0},
                {"unet:preset=sd21", 865910724.0},  {"unet:preset=sdxl", 2567463684.0},
                {"dit", 610856096.0}, {"dit:preset=pixart-alpha-xl2-1024", 611349152.0},
                {"dit:preset=pixart-sigma-xl2-512", 610856096.0}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        struct graph *g = build(want[i].spec);
        if (g->totals.params != want[i].params)
            fail_msg("%s: %.0f params, published %.0f", want[i].spec, g->totals.params,
                     want[i].params);
        /* every node is covered by the cost model */
        assert_int_equal(g->totals.n_unsupported + g->totals.n_unknown, 0);
        graph_free(g);
    }
    /* MACs of t5-small at seq 512, tgt 128, by hand: encoder 6 x 512 x (4 x 512^2 +
     * 2 x 512 x 2048) + attention 6 x 2 x 512^2 x 512; decoder 6 x 128 x (4 x 512^2
     * + 2 x 512 x 2048) + cross q, o 6 x 128 x 2 x 512^2 + cross k, v over 512 source
     * tokens 6 x 512 x 2 x 512^2 + self 6 x 2 x 128^2 x 512 + cross 6 x 2 x 128 x 512
     * x 512; head 128 x 512 x 32128 */
    struct graph *g = build("t5");
    double e = 6.0 * 512 * (4.0 * 512 * 512 + 2.0 * 512 * 2048) + 6.0 * 2 * 512 * 512 * 512 +
               6.0 * 128 * (4.0 * 512 * 512 + 2.0 * 512 * 2048) + 6.0 * 128 * 2 * 512 * 512 +
               6.0 * 512 * 2 * 512 * 512 + 6.0 * 2 * 128 * 128 * 512 +
               6.0 * 2 * 128 * 512 * 512 + 128.0 * 512 * 32128;
    if (fabs(g->totals.macs - e) > 1e-9 * e)
        fail_msg("t5-small: %.0f MACs, expected %.0f", g->totals.macs, e);
    graph_free(g);
    /* MACs of PixArt-Sigma 512 px (N = 32 x 32 patches, T = 300 caption
     * tokens, D = 1152), by hand: per block the self-attention projections
     * 4 N D^2 and products 2 N^2 D, the cross-attention q, o 2 N D^2, k, v
     * 2 T D^2 and products 2 N T D, the feed-forward 8 N D^2; caption
     * projection T (4096 D + D^2); timestep 256 D + D^2 + adaLN 6 D^2;
     * patch embedding N D x 4 x 2 x 2; proj_out N D x 32 */
    g = build("dit:preset=pixart-sigma-xl2-512");
    const double N = 1024, T = 300, D = 1152;
    e = 28 * (14 * N * D * D + 2 * N * N * D + 2 * T * D * D + 2 * N * T * D) +
        T * (4096 * D + D * D) + 256 * D + D * D + 6 * D * D + N * D * 16 + N * D * 32;
    if (fabs(g->totals.macs - e) > 1e-9 * e)
        fail_msg("pixart-sigma-512: %.0f MACs, expected %.0f", g->totals.macs, e);
    graph_free(g);
}

static void test_preset_params(void **state)
{
    (void)state;
    static const struct {
        const char *spec;
        double params, active;
    } want[] = {
        {"moe:preset=mixtral-8x7b", 46702792704.0, 46702792704.0 - 32 * 6 * 3.0 * 4096 * 14336},
        {"moe:preset=qwen3-30b-a3b", 30532122624.0, 30532122624.0 - 48 * 120 * 3.0 * 2048 * 768},
        {"llama:preset=llama2-70b", 68976648192.0, 68976648192.0},
        {"llama:preset=llama3-70b", 70553706496.0, 70553706496.0},
        {"llama:preset=llama2-7b", 6738415616.0, 6738415616.0},
        {"llama:preset=llama3-8b", 8030261248.0, 8030261248.0},
        {"llama:preset=qwen3-8b", 8190735360.0, 8190735360.0},
        {"llama:preset=qwen3-14b", 14768307200.0, 14768307200.0},
        {"llama:preset=qwen3-32b", 32762123264.0, 32762123264.0},
    };
    struct config c = cfg_for("H100-SXM5-80GB", PREC_FP16);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        struct graph *g = build(want[i].spec);
        if (g->totals.params != want[i].params)
            fail_msg("%s: %.0f params, published %.0f", want[i].spec, g->totals.params,
                     want[i].params);
        struct gen_result r;
        run(g, &c, 16, 2, 1, PREC_FP16, false, &r);
        assert_true(r.params == want[i].params);
        if (r.active_params != want[i].active)
            fail_msg("%s: %.0f active params, expected %.0f", want[i].spec, r.active_params,
                     want[i].active);
        graph_free(g);
    }
    /* Mixtral: 12.9B active as published; Qwen3-30B-A3B: 3.3B */
    assert_true(fabs(want[0].active / 1e9 - 12.9) < 0.05);
    assert_true(fabs(want[1].active / 1e9 - 3.35) < 0.05);
}

/* KV cache per token = 2 x layers x kv_heads x head_dim x bytes, exactly. */
static void test_kv_per_token(void **state)
{
    (void)state;
    static const struct {
        const char *spec;
        int layers, kv_heads, head_dim;
    } m[] = {
        {"gpt", 12, 12, 64},
        {"gpt:preset=gpt2-xl", 48, 25, 64},
        {"llama", 22, 4, 64},
        {"llama:preset=llama2-7b", 32, 32, 128},
        {"llama:preset=llama2-13b", 40, 40, 128},
        {"llama:preset=llama3-8b", 32, 8, 128},
        {"llama:preset=llama2-70b", 80, 8, 128},
        {"moe:preset=mixtral-8x7b", 32, 8, 128},
        {"moe:preset=qwen3-30b-a3b", 48, 4, 128},
        {"llama:preset=qwen3-8b", 36, 8, 128},
        {"llama:preset=qwen3-32b", 64, 8, 128},
    };
    static const enum precision kv[] = {PREC_FP32, PREC_FP16, PREC_FP8};
    struct config c = cfg_for("H100-SXM5-80GB", PREC_FP16);
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
        struct graph *g = build(m[i].spec);
        for (size_t k = 0; k < sizeof kv / sizeof kv[0]; k++) {
            struct gen_result r;
            run(g, &c, 100, 28, 3, kv[k], false, &r);
            double want = 2.0 * m[i].layers * m[i].kv_heads * m[i].head_dim *
                          precision_bytes(kv[k]);
            if (r.kv_bytes_per_token != want)
                fail_msg("%s kv=%s: %.0f bytes per token, expected %.0f", m[i].spec,
                         precision_name(kv[k]), r.kv_bytes_per_token, want);
            /* the whole cache: 3 sequences of 128 tokens */
            assert_true(r.kv_cache_mib * 1048576.0 == want * 128 * 3);
        }
        graph_free(g);
    }
}

/* Decode at batch 1 is never faster than reading the (active) weights once
 * at the GPU's bandwidth: every decoder preset on every GPU. */
static void test_decode_floor(void **state)
{
    (void)state;
    static const char *const specs[] = {
        "gpt", "gpt:preset=gpt2-medium", "gpt:preset=gpt2-large", "gpt:preset=gpt2-xl",
        "llama", "llama:preset=llama2-7b", "llama:preset=llama2-13b",
        "llama:preset=llama2-70b", "llama:preset=llama3-8b", "llama:preset=llama3-70b",
        "llama:preset=qwen3-8b", "llama:preset=qwen3-14b", "llama:preset=qwen3-32b",
        "moe:preset=mixtral-8x7b", "moe:preset=qwen3-30b-a3b"};
    static const enum precision precs[] = {PREC_FP16, PREC_FP8};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        struct graph *g = build(specs[i]);
        for (int gi = 0; gi < gpu_count(); gi++) {
            for (size_t pi = 0; pi < 2; pi++) {
                struct config c = cfg_for(gpu_get(gi)->name, precs[pi]);
                if (config_supported(&c, NULL))
                    continue; /* fp8 before Hopper: refused, nothing to predict */
                struct gen_result r;
                run(g, &c, 64, 3, 1, precs[pi], false, &r);
                struct hw hw;
                assert_int_equal(hw_from_config(&c, &hw, NULL), ST_OK);
                double floor_ms = r.active_params * precision_bytes(c.prec) / hw.bw_bytes * 1e3;
                if (!(r.tpot_ms >= floor_ms))
                    fail_msg("%s on %s %s: decode %.3f ms < weights / bandwidth %.3f ms",
                             specs[i], gpu_get(gi)->name, precision_name(c.prec), r.tpot_ms,
                             floor_ms);
            }
        }
        graph_free(g);
    }
}

/* Llama-2-7B (6,738,415,616 parameters; vocabulary 32,000, hidden 4,096, 32
 * layers) in w4a16:g128 against fp16 on A100-SXM4-80GB at batch 1. Every
 * Linear weight is held at 4 bits plus one fp16 scale per 128 weights
 * (0.515625 bytes); the embeddings and the lm_head (2 x 32,000 x 4,096)
 * and the RMSNorm weights (65 x 4,096) stay at 2 bytes. A decode step
 * reads every weight once, so it saves at least the weight bytes saved at
 * the GPU's peak bandwidth (90% of it: the dequantisation may show a
 * little beside the main loop), and still reads the quantised weights. */
static void test_quant_w4a16_decode(void **state)
{
    (void)state;
    struct graph *g = build("llama:preset=llama2-7b");
    struct config fp = cfg_for("A100-SXM4-80GB", PREC_FP16), q = fp;
    q.quant = (struct quant){.scheme = QUANT_W4A16, .group = 128};
    struct gen_result a, b;
    run(g, &fp, 128, 16, 1, PREC_FP16, false, &a);
    run(g, &q, 128, 16, 1, PREC_FP16, false, &b);
    graph_free(g);
    const double mib = 1048576.0, params = 6738415616.0;
    double kept = 2.0 * 32000 * 4096 + 65.0 * 4096;
    double w16 = params * 2, w4 = (params - kept) * (0.5 + 2.0 / 128) + kept * 2;
    assert_float_equal(a.mem.weights_mib, w16 / mib, w16 / mib * 1e-3);
    assert_float_equal(b.mem.weights_mib, w4 / mib, w4 / mib * 1e-3);
    struct hw hw;
    assert_int_equal(hw_from_config(&q, &hw, NULL), ST_OK);
    double saved_ms = (w16 - w4) / hw.bw_bytes * 1e3, floor_ms = w4 / hw.bw_bytes * 1e3;
    if (!(a.tpot_ms - b.tpot_ms >= 0.9 * saved_ms) || !(b.tpot_ms >= floor_ms))
        fail_msg("w4a16 decode %.3f ms, fp16 %.3f ms: expected at least %.3f ms less (the "
                 "weight bytes saved at peak bandwidth) and no less than %.3f ms", b.tpot_ms,
                 a.tpot_ms, 0.9 * saved_ms, floor_ms);
    /* the same KV cache and the same prefill math (fp16 tensor cores) */
    assert_float_equal(b.kv_cache_mib, a.kv_cache_mib, 1e-9);
}

/* A 70B model in fp16 does not fit one 80 GB GPU (by about 140 - 80 GB);
 * in fp8 it fits an H200. */
static void test_70b_fit(void **state)
{
    (void)state;
    struct graph *g = build("llama:preset=llama2-70b");
    struct config c = cfg_for("A100-SXM4-80GB", PREC_FP16);
    struct gen_result r;
    run(g, &c, 128, 128, 1, PREC_FP16, true, &r);
    assert_false(r.mem.fits);
    assert_int_equal(r.max_batch, 0);
    assert_true(r.max_output_tokens_per_s == 0);
    /* over by at least the weights beyond the usable memory */
    double weights_mib = 68976648192.0 * 2 / 1048576.0;
    assert_true(r.mem.over_mib >= weights_mib * 1.10 - r.mem.capacity_mib);
    assert_true(r.mem.over_mib > 40 * 1024);
    c = cfg_for("H100-SXM5-80GB", PREC_FP16);
    run(g, &c, 128, 128, 1, PREC_FP16, true, &r);
    assert_false(r.mem.fits);
    c = cfg_for("H200-SXM-141GB", PREC_FP8);
    run(g, &c, 128, 128, 1, PREC_FP8, true, &r);
    assert_true(r.mem.fits);
    assert_true(r.max_batch > 1);
    assert_true(r.max_output_tokens_per_s > r.output_tokens_per_s);
    /* the max batch fills the memory: one more sequence would not fit. A
     * serving engine prefills at most GEN_STEP_TOKENS tokens a step, so
     * besides the weights and context it holds one step's activations and
     * each sequence's KV cache and decode activations */
    double per_seq = r.serve_seq_mib;
    double room = r.mem.capacity_mib / 1.10 - r.mem.weights_mib - r.mem.context_mib -
                  r.serve_step_act_mib;
    assert_true(r.max_batch * per_seq <= room && (r.max_batch + 1) * per_seq > room);
    /* per sequence: at least its KV cache at 256 tokens, 2 x 80 layers x 8
     * KV heads x 128 x 1 byte (fp8) per token */
    assert_true(r.serve_seq_mib >= 256.0 * 2 * 80 * 8 * 128 / 1048576.0);
    /* a step's activations are those of 8192 prompt tokens: 64 x the 128
     * of one sequence's prefill at batch 1 */
    assert_true(r.serve_step_act_mib > r.mem.activations_mib);
    graph_free(g);
}

/* TPOT with two output tokens is the one decode step over N cached tokens
 * plus the host's per-sequence step cost; e2e and tokens/s follow from TTFT
 * and TPOT. */
static void test_timing_identities(void **state)
{
    (void)state;
    struct graph *g = build("llama:layers=4:hidden=512:heads=8:kv_heads=2:intermediate=1024");
    struct config c = cfg_for("H100-SXM5-80GB", PREC_FP16);
    c.batch = 8;
    struct gen_result r;
    run(g, &c, 200, 2, 8, PREC_FP16, false, &r);
    struct diag d = {0};
    struct graph *dec = zoo_build_spec("llama:layers=4:hidden=512:heads=8:kv_heads=2:"
                                       "intermediate=1024:phase=decode", &d);
    assert_non_null(dec);
    assert_int_equal(graph_sym_set(dec, "seq", 200, &d), ST_OK);
    struct prediction pr;
    assert_int_equal(predict_run(NULL, dec, &c, &pr, &d), ST_OK);
    double host_ms = 8 * sim_params_default()->seq_step_us[c.rt] * 1e-3;
    assert_true(host_ms > 0); /* an engine step pays it */
    assert_true(fabs(r.tpot_ms - (pr.latency_ms + host_ms)) < 1e-9 * pr.latency_ms);
    prediction_fini(&pr);
    graph_free(dec);
    /* TTFT is the prefill pass over the prompt plus the request's fixed cost */
    struct graph *pre = zoo_build_spec("llama:layers=4:hidden=512:heads=8:kv_heads=2:"
                                       "intermediate=1024:phase=prefill:logits=last", &d);
    assert_non_null(pre);
    assert_int_equal(graph_sym_set(pre, "seq", 200, &d), ST_OK);
    assert_int_equal(predict_run(NULL, pre, &c, &pr, &d), ST_OK);
    double req_ms = sim_params_default()->request_us[RT_TENSORRT] * 1e-3;
    assert_true(req_ms > 0 && fabs(sim_request_ms(NULL, c.rt) - req_ms) < 1e-12);
    assert_true(fabs(r.ttft_ms - (pr.latency_ms + req_ms)) < 1e-9 * r.ttft_ms);
    prediction_fini(&pr);
    graph_free(pre);
    run(g, &c, 200, 300, 8, PREC_FP16, false, &r);
    assert_true(fabs(r.e2e_ms - (r.ttft_ms + 299 * r.tpot_ms)) < 1e-9 * r.e2e_ms);
    assert_true(fabs(r.output_tokens_per_s - 8 * 300 / (r.e2e_ms / 1e3)) < 1e-6);
    /* the cache grows: the mean step is slower than the first */
    struct gen_result r2;
    run(g, &c, 200, 2, 8, PREC_FP16, false, &r2);
    assert_true(r.tpot_ms > r2.tpot_ms);
    /* an fp8 cache is read faster than an fp16 one */
    struct gen_result r8;
    run(g, &c, 200, 300, 8, PREC_FP8, false, &r8);
    assert_true(r8.tpot_ms < r.tpot_ms && r8.kv_cache_mib * 2 == r.kv_cache_mib);
    graph_free(g);
}

/* The serving engine (vllm) runs the graph-replayed engine's decode pass and
 * pays its own per-sequence step cost, with the GPU kept clocked (p_active
 * of the dynamic range) instead of idling as behind a C++ engine's loop. */
static void test_vllm_step(void **state)
{
    (void)state;
    struct graph *g = build("llama:layers=4:hidden=512:heads=8:kv_heads=2:intermediate=1024");
    struct config c = cfg_for("H100-SXM5-80GB", PREC_BF16), v = c;
    c.rt = RT_TENSORRT_GRAPH;
    v.rt = RT_VLLM;
    struct gen_result rg, rv;
    run(g, &c, 200, 2, 8, PREC_BF16, false, &rg);
    run(g, &v, 200, 2, 8, PREC_BF16, false, &rv);
    const struct sim_params *p = sim_params_default();
    assert_true(p->seq_step_us[RT_VLLM] > 0);
    double hg = sim_decode_host_ms(NULL, RT_TENSORRT_GRAPH, 8);
    double hv = sim_decode_host_ms(NULL, RT_VLLM, 8);
    assert_true(fabs(hv - 8 * p->seq_step_us[RT_VLLM] * 1e-3) < 1e-12);
    assert_true(fabs(hg - 8 * p->seq_step_us[RT_TENSORRT] * 1e-3) < 1e-12);
    assert_true(fabs((rv.tpot_ms - rg.tpot_ms) - (hv - hg)) < 1e-9 * rv.tpot_ms);
    assert_true(rv.ttft_ms == rg.ttft_ms); /* the prefill has no step loop */
    struct hw hw;
    hw_from_config(&v, &hw, NULL);
    double wv = sim_decode_host_w(NULL, RT_VLLM, hw.idle_w, hw.tdp_w);
    assert_true(wv > hw.idle_w && wv < hw.tdp_w);
    assert_true(sim_decode_host_w(NULL, RT_TENSORRT_GRAPH, hw.idle_w, hw.tdp_w) == hw.idle_w);
    /* one decode step: the energies differ by the step costs at their powers */
    double de = (hv * wv - hg * hw.idle_w) * 1e-3;
    assert_true(fabs((rv.energy_j - rg.energy_j) - de) < 1e-9 * rv.energy_j);
    graph_free(g);
}

static void test_not_a_decoder(void **state)
{
    (void)state;
    struct graph *g = build("bert");
    struct gen_model *m = NULL;
    struct diag d = {0};
    assert_int_equal(gen_model_open(g, NULL, &m, &d), ST_EUSAGE);
    assert_null(m);
    assert_non_null(strstr(d.msg, "not one"));
    graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_preset_params),   cmocka_unit_test(test_encdec_params),
        cmocka_unit_test(test_kv_per_token),
        cmocka_unit_test(test_decode_floor),    cmocka_unit_test(test_70b_fit),
        cmocka_unit_test(test_timing_identities), cmocka_unit_test(test_not_a_decoder),
        cmocka_unit_test(test_vllm_step),       cmocka_unit_test(test_quant_w4a16_decode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
