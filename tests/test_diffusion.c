/* test_diffusion.c - the VAE decoder template (graph/zoo/zoo_vae.c) and the
 * diffusion pipeline (src/core/diffusion.c).
 *
 * Parameter counts. The published total of diffusers' AutoencoderKL of
 * Stable Diffusion (runwayml/stable-diffusion-v1-5 vae, also SD 2.1, SDXL
 * and PixArt's; sum of p.numel()) is 83,653,863; the SD3 VAE
 * (stabilityai/stable-diffusion-3-medium-diffusers vae, 16 latent channels,
 * no quant convs) is 83,819,683. The template builds the decoder only, so
 * the expected count is the total minus the encoder and quant_conv, worked
 * out by hand below from the same published architecture (GroupNorm scale
 * and bias, biased convs, channels 128/256/512/512, two ResNets per encoder
 * level, a 3x3 stride-2 downsampling conv on the first three levels, a mid
 * block of ResNet + one-head attention (GroupNorm and four biased 512 x 512
 * Linears) + ResNet, GroupNorm and a conv to 2 x latent channels).
 *
 * The text encoders' published totals (sum of p.numel() of the diffusers
 * pipelines' text_encoder modules) are checked against sums worked out from
 * their architectures: CLIP ViT-L/14 (runwayml/stable-diffusion-v1-5,
 * CLIPTextModel) 123,060,480; OpenCLIP ViT-H/14 as shipped with
 * stabilityai/stable-diffusion-2-1 (23 layers) 340,387,840; OpenCLIP
 * ViT-bigG/14 with its projection (stable-diffusion-xl-base-1.0
 * text_encoder_2, CLIPTextModelWithProjection) 694,659,840; and the T5 v1.1
 * XXL encoder (PixArt-alpha/PixArt-XL-2-1024-MS, T5EncoderModel)
 * 4,762,310,656.
 *
 * SD3-medium's transformer (stabilityai/stable-diffusion-3-medium, published
 * as about 2.03 billion parameters) is worked out by hand from diffusers'
 * SD3Transformer2DModel with its config (hidden 24 heads x 64 = 1536, 24
 * joint blocks, patch 2, 16 channels in and out, joint_attention_dim 4096,
 * caption_projection_dim 1536, pooled_projection_dim 2048, no QK norm):
 * 2,028,328,000, the stored 192 x 192 position table (a buffer) not counted.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/diffusion.h"
#include "core/gpu.h"
#include "graph/load.h"
#include "graph/ops/shape.h"
#include "graph/zoo/zoo.h"

static double conv(double ci, double co, double k)
{
    return ci * co * k * k + co;
}

static double resnet(double ci, double co)
{
    return 2 * ci + conv(ci, co, 3) + 2 * co + conv(co, co, 3) + (ci != co ? conv(ci, co, 1) : 0);
}

/* Encoder of the AutoencoderKL with lc latent channels (by hand). */
static double encoder(double lc)
{
    static const double ch[4] = {128, 256, 512, 512};
    double p = conv(3, 128, 3), prev = 128;
    for (int i = 0; i < 4; i++) {
        p += resnet(prev, ch[i]) + resnet(ch[i], ch[i]);
        prev = ch[i];
        if (i < 3)
            p += conv(ch[i], ch[i], 3);
    }
    p += 2 * resnet(512, 512) + 2 * 512 + 4 * (512.0 * 512 + 512);
    return p + 2 * 512 + conv(512, 2 * lc, 3);
}

static struct graph *build(const char *spec)
{
    struct diag d = {0};
    struct graph *g = model_load(spec, &d);
    if (!g)
        fail_msg("%s: %s", spec, d.msg);
    if (graph_infer(g, &d))
        fail_msg("%s: %s", spec, d.msg);
    return g;
}

static void test_vae_params(void **state)
{
    (void)state;
    /* published total - encoder - quant_conv (1x1, 8 -> 8) */
    double sd = 83653863.0 - encoder(4) - conv(8, 8, 1);
    double sd3 = 83819683.0 - encoder(16);
    struct graph *g = build("zoo:vae");
    if (g->totals.params != sd)
        fail_msg("zoo:vae: %.0f params, expected %.0f", g->totals.params, sd);
    assert_int_equal(g->totals.n_unsupported + g->totals.n_unknown, 0);
    /* 64 x 64 latents decode to a 512 x 512 RGB image */
    const struct value *out = &g->values[g->outputs[0]];
    assert_true(out->shape.known);
    assert_int_equal(out->shape.rank, 4);
    assert_int_equal(out->shape.d[1], 3);
    assert_int_equal(out->shape.d[2], 512);
    assert_int_equal(out->shape.d[3], 512);
    graph_free(g);
    g = build("zoo:vae:preset=sd3-vae");
    if (g->totals.params != sd3)
        fail_msg("zoo:vae:preset=sd3: %.0f params, expected %.0f", g->totals.params, sd3);
    graph_free(g);
}

/* A CLIP text transformer (by hand): token and position embeddings, per
 * layer two LayerNorms, biased q, k, v, out projections and a biased MLP of
 * 4 x width, a final LayerNorm and an optional projection without bias. */
static double clip_text(double width, double layers, double proj)
{
    double emb = 49408 * width + 77 * width;
    double layer = 2 * 2 * width + 4 * (width * width + width) + (width * 4 * width + 4 * width) +
                   (4 * width * width + width);
    return emb + layers * layer + 2 * width + proj * width;
}

/* The T5 v1.1 XXL encoder (by hand): the shared embedding, per layer two
 * RMS norm weights, q, k, v, o of 64 heads x 64 without bias and the gated
 * feed-forward wi_0, wi_1, wo, the relative bias table (32 buckets x 64
 * heads, layer 0) and the final norm. */
static double t5_xxl_encoder(void)
{
    double d = 4096, inner = 64 * 64, ff = 10240;
    double layer = 2 * d + 4 * d * inner + 3 * d * ff;
    return 32128 * d + 24 * layer + 32 * 64 + d;
}

static void expect_params(const char *spec, double want, double published)
{
    struct graph *g = build(spec);
    if (want != published || g->totals.params != want)
        fail_msg("%s: %.0f params, by hand %.0f, published %.0f", spec, g->totals.params, want,
                 published);
    assert_int_equal(g->totals.n_unsupported + g->totals.n_unknown, 0);
    graph_free(g);
}

static void test_text_encoder_params(void **state)
{
    (void)state;
    expect_params("zoo:gpt:preset=clip-l", clip_text(768, 12, 0), 123060480.0);
    expect_params("zoo:gpt:preset=openclip-h", clip_text(1024, 23, 0), 340387840.0);
    expect_params("zoo:gpt:preset=openclip-bigg", clip_text(1280, 32, 1280), 694659840.0);
    expect_params("zoo:t5:preset=t5-v1_1-xxl-encoder", t5_xxl_encoder(), 4762310656.0);
    /* SD3's first text encoder is CLIP ViT-L/14 with its 768 x 768 text
     * projection (CLIPTextModelWithProjection) */
    struct graph *g = build("zoo:gpt:preset=clip-l:head=projection");
    assert_true(g->totals.params == clip_text(768, 12, 768));
    graph_free(g);
}

static double linear(double in, double out)
{
    return in * out + out;
}

/* SD3-medium's MMDiT (by hand): every Linear and the patch conv biased. */
static double sd3_medium_transformer(void)
{
    double D = 1536, ada6 = linear(D, 6 * D), ada2 = linear(D, 2 * D);
    double qkv = 3 * linear(D, D), ff = linear(D, 4 * D) + linear(4 * D, D);
    /* pos_embed.proj; time_text_embed: timestep_embedder 256 -> D -> D and
     * text_embedder 2048 -> D -> D; context_embedder 4096 -> D */
    double embed = conv(16, D, 2) + linear(256, D) + linear(D, D) + linear(2048, D) +
                   linear(D, D) + linear(4096, D);
    /* norm1 and norm1_context (adaLN-Zero, 6 x D each), to_q/k/v and
     * add_q/k/v_proj, to_out.0 and to_add_out, ff and ff_context */
    double block = 2 * ada6 + 2 * qkv + 2 * linear(D, D) + 2 * ff;
    /* the last block (context_pre_only): norm1_context of 2 x D, the text's
     * q/k/v still, no to_add_out, no ff_context */
    double last = ada6 + ada2 + 2 * qkv + linear(D, D) + ff;
    /* norm_out (2 x D) and proj_out D -> 2 x 2 x 16 */
    return embed + 23 * block + last + ada2 + linear(D, 2 * 2 * 16);
}

static void test_mmdit_params(void **state)
{
    (void)state;
    double want = sd3_medium_transformer();
    assert_true(want == 2028328000.0 && fabs(want - 2.03e9) < 0.005e9);
    struct graph *g = build("zoo:dit:preset=sd3-medium");
    if (g->totals.params != want)
        fail_msg("zoo:dit:preset=sd3-medium: %.0f params, by hand %.0f", g->totals.params, want);
    assert_int_equal(g->totals.n_unsupported + g->totals.n_unknown, 0);
    /* MACs by hand: N = 64 x 64 image tokens, T = 333 text tokens, the
     * attention over S = N + T (scores and context, S^2 x D each); per full
     * block both streams' q/k/v, output and MLP (12 D^2 per token) and the
     * two adaLN-Zero (6 D^2 each); the last block the text's q/k/v only */
    double D = 1536, N = 4096, T = 333, S = N + T;
    double embed = N * D * 64 + (256 + D + 2048 + D) * D + T * 4096 * D;
    double full = 12 * D * D + (N + T) * 12 * D * D + 2 * S * S * D;
    double last = 8 * D * D + N * 12 * D * D + T * 3 * D * D + 2 * S * S * D;
    double macs = embed + 23 * full + last + 2 * D * D + N * D * 64;
    if (g->totals.macs != macs)
        fail_msg("zoo:dit:preset=sd3-medium: %.0f MACs, by hand %.0f", g->totals.macs, macs);
    /* 128 x 128 latents of 16 channels in and out (1024 x 1024 pixels) */
    const struct value *out = &g->values[g->outputs[0]];
    assert_true(out->shape.known && out->shape.rank == 4);
    assert_int_equal(out->shape.d[1], 16);
    assert_int_equal(out->shape.d[2], 128);
    assert_int_equal(out->shape.d[3], 128);
    graph_free(g);
}

static struct config h100(void)
{
    struct config c;
    config_default(&c);
    c.gpu = gpu_find("H100-SXM5-80GB");
    assert_true(c.gpu >= 0);
    c.prec = PREC_BF16;
    c.rt = RT_TENSORRT;
    return c;
}

/* One pass of spec at batch b under cfg through the predictor (teacher
 * only). */
static struct prediction pass_on(const char *spec, const struct config *cfg, int64_t b)
{
    struct graph *g = build(spec);
    struct config c = *cfg;
    c.batch = b;
    struct prediction pr;
    struct diag d = {0};
    if (predict_run(NULL, g, &c, &pr, &d))
        fail_msg("%s: %s", spec, d.msg);
    graph_free(g);
    return pr;
}

static struct prediction one_pass(const char *spec, int64_t b)
{
    struct config c = h100();
    return pass_on(spec, &c, b);
}

static void test_pipeline_sums(void **state)
{
    (void)state;
    const char *den = "zoo:dit:preset=pixart-sigma-xl2-512";
    struct graph *g = build(den);
    struct config c = h100();
    struct diff_request rq = {.steps = 7, .guidance = true, .batch = 3};
    struct diff_result r;
    struct diag d = {0};
    if (diff_run(NULL, g, &c, &rq, &r, &d))
        fail_msg("%s", d.msg);
    assert_string_equal(r.vae_spec, "zoo:vae:preset=sd-vae:latent_channels=4:latent=64");
    assert_int_equal(r.denoiser_batch, 6);
    /* PixArt-Sigma's T5 encodes 300 tokens of each prompt and negative prompt */
    assert_int_equal(r.n_text, 1);
    assert_string_equal(r.text[0].spec, "zoo:t5:preset=t5-v1_1-xxl-encoder:seq=300");
    assert_int_equal(r.text_batch, 6);
    struct prediction step = one_pass(den, 6), vae = one_pass(r.vae_spec, 3);
    struct prediction t5 = one_pass(r.text[0].spec, 6);
    double batch_ms = t5.latency_ms + 7 * step.latency_ms + vae.latency_ms;
    assert_true(fabs(r.step_ms - step.latency_ms) < 1e-9 * step.latency_ms);
    assert_true(fabs(r.text_ms - t5.latency_ms) < 1e-9 * t5.latency_ms);
    assert_true(fabs(r.text[0].ms - t5.latency_ms) < 1e-9 * t5.latency_ms);
    assert_true(fabs(r.batch_ms - batch_ms) < 1e-9 * batch_ms);
    assert_true(fabs(r.ms_per_image - batch_ms / 3) < 1e-9 * batch_ms);
    assert_true(fabs(r.images_per_s - 3e3 / batch_ms) < 1e-9 * r.images_per_s);
    double ej = t5.energy_j + 7 * step.energy_j + vae.energy_j;
    assert_true(fabs(r.energy_j_per_image - ej / 3) < 1e-9 * ej);
    assert_true(fabs(r.text[0].energy_j - t5.energy_j) < 1e-9 * t5.energy_j);
    /* every model resident: the largest of one pass plus the others' weights */
    const struct prediction *part[3] = {&step, &vae, &t5};
    double mem = 0;
    for (int i = 0; i < 3; i++) {
        double m = part[i]->memory_mib;
        for (int j = 0; j < 3; j++)
            m += j != i ? part[j]->sim.weights_mib : 0;
        mem = m > mem ? m : mem;
    }
    assert_true(fabs(r.memory_mib - mem) < 1e-9 * mem);
    assert_true(fabs(r.text[0].weights_mib - t5.sim.weights_mib) < 1e-9 * mem);
    assert_true(r.fits);
    prediction_fini(&step);
    prediction_fini(&vae);
    prediction_fini(&t5);
    /* without guidance the denoiser and the encoder run on the batch itself */
    struct diff_result nog;
    rq.guidance = false;
    if (diff_run(NULL, g, &c, &rq, &nog, &d))
        fail_msg("%s", d.msg);
    assert_int_equal(nog.denoiser_batch, 3);
    assert_int_equal(nog.text_batch, 3);
    assert_true(nog.step_ms < r.step_ms);
    assert_true(nog.text_ms < r.text_ms);
    graph_free(g);
}

/* Named text encoders replace the derived ones, each run once; none leaves
 * the pipeline at its denoising and decode. */
static void test_pipeline_text_choice(void **state)
{
    (void)state;
    struct graph *g = build("zoo:unet:preset=sdxl");
    struct config c = h100();
    struct diag d = {0};
    struct diff_request rq = {.steps = 3, .guidance = true, .batch = 2};
    struct diff_result all, none, named;
    if (diff_run(NULL, g, &c, &rq, &all, &d))
        fail_msg("%s", d.msg);
    assert_int_equal(all.n_text, 2);
    assert_string_equal(all.text[0].spec, "zoo:gpt:preset=clip-l");
    assert_string_equal(all.text[1].spec, "zoo:gpt:preset=openclip-bigg");
    struct prediction l = one_pass(all.text[0].spec, 4), bigg = one_pass(all.text[1].spec, 4);
    double text = l.latency_ms + bigg.latency_ms;
    assert_true(fabs(all.text_ms - text) < 1e-9 * text);
    rq.no_text = true;
    if (diff_run(NULL, g, &c, &rq, &none, &d))
        fail_msg("%s", d.msg);
    assert_int_equal(none.n_text, 0);
    assert_true(fabs(all.batch_ms - none.batch_ms - text) < 1e-9 * all.batch_ms);
    double ej = l.energy_j + bigg.energy_j;
    assert_true(fabs(all.energy_j - none.energy_j - ej) < 1e-9 * all.energy_j);
    assert_true(all.memory_mib > none.memory_mib + l.sim.weights_mib);
    const char *const bigg_only[1] = {"zoo:gpt:preset=openclip-bigg"};
    rq.no_text = false;
    rq.text = bigg_only;
    rq.n_text = 1;
    if (diff_run(NULL, g, &c, &rq, &named, &d))
        fail_msg("%s", d.msg);
    assert_int_equal(named.n_text, 1);
    assert_true(fabs(named.text_ms - bigg.latency_ms) < 1e-9 * bigg.latency_ms);
    prediction_fini(&l);
    prediction_fini(&bigg);
    graph_free(g);
}

/* Stable Diffusion 1.5 at batch 8 with guidance (the UNet on 16 latents
 * of 64 x 64, 4096 tokens in its first attention blocks): one process
 * holds the three models, so the pipeline needs one CUDA context and
 * workspace, and the passes reuse one another's buffers: less than the
 * three passes' peaks added by at least two contexts. A runtime with fused
 * attention (pytorch-sdpa, tensorrt) allocates none of the UNet's
 * [16, 8, 4096, 4096] score tensors (4 GiB in FP16 each, counted in the
 * graph's FP32 as the liveness peak is); eager PyTorch holds the scores
 * and their softmax at once. */
static void test_pipeline_sd15_memory(void **state)
{
    (void)state;
    struct graph *g = build("zoo:unet:preset=sd15");
    struct config c;
    config_default(&c);
    c.prec = PREC_FP16;
    const double scores = 16.0 * 8 * 4096 * 4096 * 4;
    static const enum runtime rts[] = {RT_TENSORRT, RT_PYTORCH_SDPA, RT_PYTORCH};
    for (int k = 0; k < 3; k++) {
        c.rt = rts[k];
        struct diff_request rq = {.steps = 2, .guidance = true, .batch = 8};
        struct diff_result r;
        struct diag d = {0};
        if (diff_run(NULL, g, &c, &rq, &r, &d))
            fail_msg("%s", d.msg);
        assert_int_equal(r.n_text, 1);
        struct prediction unet = pass_on("zoo:unet:preset=sd15", &c, 16);
        struct prediction vae = pass_on(r.vae_spec, &c, 8);
        struct prediction clip = pass_on(r.text[0].spec, &c, 16);
        double sum = unet.memory_mib + vae.memory_mib + clip.memory_mib;
        double ctx = unet.sim.context_mib + unet.sim.workspace_mib;
        if (!(r.memory_mib <= sum - 2 * ctx))
            fail_msg("%s: pipeline %.0f MiB, the passes' peaks %.0f MiB: expected 2 x %.0f "
                     "MiB of context and workspace less", runtime_name(c.rt), r.memory_mib,
                     sum, ctx);
        if (c.rt != RT_PYTORCH && !(unet.sim.act_live_bytes < scores))
            fail_msg("%s: the UNet's liveness peak %.0f MiB holds a score tensor (%.0f MiB)",
                     runtime_name(c.rt), unet.sim.act_live_bytes / 1048576, scores / 1048576);
        if (c.rt == RT_PYTORCH && !(unet.sim.act_live_bytes > 2 * scores))
            fail_msg("pytorch: the UNet's liveness peak %.0f MiB, expected the scores and "
                     "their softmax (2 x %.0f MiB)", unet.sim.act_live_bytes / 1048576,
                     scores / 1048576);
        prediction_fini(&unet);
        prediction_fini(&vae);
        prediction_fini(&clip);
    }
    graph_free(g);
}

/* SD3: three text encoders, the 16-channel VAE, guidance doubling the
 * denoiser's and the encoders' batch as for the other denoisers. */
static void test_pipeline_sd3(void **state)
{
    (void)state;
    struct graph *g = build("zoo:dit:preset=sd3-medium");
    struct config c = h100();
    struct diag d = {0};
    struct diff_request rq = {.steps = 2, .guidance = true, .batch = 1};
    struct diff_result r, nog;
    if (diff_run(NULL, g, &c, &rq, &r, &d))
        fail_msg("%s", d.msg);
    assert_int_equal(r.n_text, 3);
    assert_string_equal(r.text[2].spec, "zoo:t5:preset=t5-v1_1-xxl-encoder:seq=256");
    assert_string_equal(r.vae_spec, "zoo:vae:preset=sd3-vae:latent=128");
    assert_int_equal(r.denoiser_batch, 2);
    assert_int_equal(r.text_batch, 2);
    struct prediction step = one_pass("zoo:dit:preset=sd3-medium", 2);
    assert_true(fabs(r.step_ms - step.latency_ms) < 1e-9 * step.latency_ms);
    prediction_fini(&step);
    rq.guidance = false;
    if (diff_run(NULL, g, &c, &rq, &nog, &d))
        fail_msg("%s", d.msg);
    assert_int_equal(nog.denoiser_batch, 1);
    assert_true(nog.step_ms < r.step_ms);
    graph_free(g);
}

static void test_pipeline_mig(void **state)
{
    (void)state;
    /* SDXL at batch 4 with guidance needs ~19 GiB: a MIG slice of an
     * A100-40GB must be chosen on the pipeline's memory, not one pass's */
    struct graph *g = build("zoo:unet:preset=sdxl");
    struct config c;
    config_default(&c);
    c.prec = PREC_FP16;
    c.rt = RT_PYTORCH_SDPA;
    struct diff_request rq = {.steps = 2, .guidance = true, .batch = 4, .headroom = 0.10};
    struct diff_result r;
    struct diag d = {0};
    if (diff_run(NULL, g, &c, &rq, &r, &d) || diff_mig(NULL, g, &c, &rq, &r, &d))
        fail_msg("%s", d.msg);
    assert_true(r.have_mig);
    const struct gpu_spec *gs = gpu_get(c.gpu);
    int best = -1;
    for (int i = 0; i < r.mig.n; i++) {
        const struct mig_option *o = &r.mig.opts[i];
        double usable = gs->mig[o->profile].usable_gib * 1024;
        /* the pipeline's one context is the slice's, smaller than the
         * whole GPU's (fewer SMs), as a single model's figure moves */
        double need = mig_memory_on(&c, r.memory_mib, o->profile) * 1.10;
        assert_true(fabs(o->need_mib - need) < 1e-6 * r.memory_mib);
        assert_true(o->need_mib < r.memory_mib * 1.10);
        assert_int_equal(o->fits, o->need_mib <= usable);
        if (best < 0 && o->fits)
            best = o->profile;
        /* the batch's time on that slice is the pipeline's there */
        struct config s = c;
        s.mig = o->profile;
        struct diff_result on;
        if (diff_run(NULL, g, &s, &rq, &on, &d))
            fail_msg("%s", d.msg);
        assert_true(fabs(o->latency_ms - on.batch_ms) < 1e-9 * on.batch_ms);
    }
    assert_int_equal(r.mig.best, best);
    /* the single pass at batch 4 would fit a smaller slice than the pipeline */
    assert_true(r.memory_mib > 16 * 1024.0);
    graph_free(g);
}

/* The pipeline keeps the orderings a user reads off it: a bigger batch
 * takes no less time per batch and no less memory, images/s is the inverse
 * of the time per image, more steps take longer, guidance is not faster
 * than none, and a bigger MIG slice is not slower. */
static void test_pipeline_orderings(void **state)
{
    (void)state;
    struct graph *g = build("zoo:unet");
    struct config c = h100();
    c.rt = RT_PYTORCH_SDPA;
    struct diag d = {0};
    double last_ms = 0, last_mem = 0;
    for (int64_t b = 1; b <= 16; b *= 2) {
        struct diff_request rq = {.steps = 10, .guidance = true, .batch = b};
        struct diff_result r, more, none;
        if (diff_run(NULL, g, &c, &rq, &r, &d))
            fail_msg("%s", d.msg);
        assert_true(r.batch_ms >= last_ms);
        assert_true(r.memory_mib >= last_mem);
        assert_true(fabs(r.images_per_s * r.ms_per_image - 1e3) < 1e-6);
        last_ms = r.batch_ms;
        last_mem = r.memory_mib;
        rq.steps = 20;
        if (diff_run(NULL, g, &c, &rq, &more, &d))
            fail_msg("%s", d.msg);
        assert_true(more.batch_ms > r.batch_ms);
        rq.steps = 10;
        rq.guidance = false;
        if (diff_run(NULL, g, &c, &rq, &none, &d))
            fail_msg("%s", d.msg);
        assert_true(none.batch_ms <= r.batch_ms);
        if (diff_mig(NULL, g, &c,
                     &(struct diff_request){.steps = 10, .guidance = true, .batch = b,
                                            .headroom = 0.10},
                     &r, &d))
            fail_msg("%s", d.msg);
        for (int i = 1; i < r.mig.n; i++) {
            const struct gpu_spec *gs = gpu_get(c.gpu);
            const struct mig_option *o = &r.mig.opts[i], *p = &r.mig.opts[i - 1];
            if (gs->mig[o->profile].sms >= gs->mig[p->profile].sms &&
                gs->mig[o->profile].mem_eighths >= gs->mig[p->profile].mem_eighths)
                assert_true(o->latency_ms <= p->latency_ms * 1.000001);
        }
    }
    graph_free(g);
}

static void test_vae_derivation(void **state)
{
    (void)state;
    char buf[192];
    struct diag d = {0};
    assert_int_equal(diff_vae_spec("zoo:unet:preset=sdxl", buf, sizeof buf, &d), ST_OK);
    assert_string_equal(buf, "zoo:vae:preset=sd-vae:latent_channels=4:latent=128");
    assert_int_equal(diff_vae_spec("zoo:dit:in_channels=16:latent=96", buf, sizeof buf, &d),
                     ST_OK);
    assert_string_equal(buf, "zoo:vae:preset=sd3-vae:latent=96");
    /* the text encoders follow the denoiser's conditioning width */
    char text[DIFF_MAX_TEXT][DIFF_SPEC_MAX];
    int n = 0;
    static const struct {
        const char *den, *text[3];
    } cases[] = {
        {"zoo:unet", {"zoo:gpt:preset=clip-l"}},
        {"zoo:unet:preset=sd21", {"zoo:gpt:preset=openclip-h"}},
        {"zoo:unet:preset=sdxl", {"zoo:gpt:preset=clip-l", "zoo:gpt:preset=openclip-bigg"}},
        {"zoo:dit:preset=pixart-alpha-xl2-1024", {"zoo:t5:preset=t5-v1_1-xxl-encoder:seq=120"}},
        {"zoo:dit", {"zoo:t5:preset=t5-v1_1-xxl-encoder:seq=300"}},
        /* SD3: 77 CLIP tokens, then the T5's 256 */
        {"zoo:dit:preset=sd3-medium",
         {"zoo:gpt:preset=clip-l:head=projection", "zoo:gpt:preset=openclip-bigg",
          "zoo:t5:preset=t5-v1_1-xxl-encoder:seq=256"}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (diff_text_specs(cases[i].den, text, &n, &d))
            fail_msg("%s: %s", cases[i].den, d.msg);
        int want = 0;
        while (want < 3 && cases[i].text[want])
            want++;
        assert_int_equal(n, want);
        for (int k = 0; k < n; k++)
            assert_string_equal(text[k], cases[i].text[k]);
    }
    assert_int_equal(diff_vae_spec("zoo:dit:preset=sd3-medium", buf, sizeof buf, &d), ST_OK);
    assert_string_equal(buf, "zoo:vae:preset=sd3-vae:latent=128");
    /* an MMDiT conditioned otherwise than SD3 needs its encoders named */
    assert_int_equal(diff_text_specs("zoo:dit:preset=sd3-medium:pooled_dim=1024", text, &n, &d),
                     ST_EUSAGE);
    assert_int_equal(diff_text_specs("zoo:dit:preset=sd3-medium:tokens=77", text, &n, &d),
                     ST_EUSAGE);
    assert_int_equal(diff_text_specs("zoo:unet:cross_dim=512", text, &n, &d), ST_EUSAGE);
    assert_non_null(strstr(d.msg, "--no-text-encoder"));
    assert_int_equal(diff_text_specs("zoo:resnet", text, &n, &d), ST_EUSAGE);
    d = (struct diag){0};
    /* anything else needs the VAE named, and the message says how */
    assert_int_equal(diff_vae_spec("zoo:resnet", buf, sizeof buf, &d), ST_EUSAGE);
    assert_non_null(strstr(d.msg, "--vae"));
    assert_int_equal(diff_vae_spec("samples/resnet50.onnx", buf, sizeof buf, &d), ST_EUSAGE);
    /* a UNet bound to another image size decodes at that size */
    struct graph *g = build("zoo:unet");
    g->syms[graph_sym_find(g, "height")].val = 96;
    g->syms[graph_sym_find(g, "width")].val = 80;
    struct config c = h100();
    struct diff_request rq = {.steps = 1, .guidance = true, .batch = 1};
    struct diff_result r;
    if (diff_run(NULL, g, &c, &rq, &r, &d))
        fail_msg("%s", d.msg);
    struct graph *v = build("zoo:vae");
    v->syms[graph_sym_find(v, "height")].val = 96;
    v->syms[graph_sym_find(v, "width")].val = 80;
    struct prediction pr;
    c.batch = 1;
    if (predict_run(NULL, v, &c, &pr, &d))
        fail_msg("%s", d.msg);
    assert_true(fabs(r.vae_ms - pr.latency_ms) < 1e-9 * pr.latency_ms);
    prediction_fini(&pr);
    graph_free(v);
    graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vae_params),
        cmocka_unit_test(test_text_encoder_params),
        cmocka_unit_test(test_mmdit_params),
        cmocka_unit_test(test_pipeline_sums),
        cmocka_unit_test(test_pipeline_text_choice),
        cmocka_unit_test(test_pipeline_sd3),
        cmocka_unit_test(test_pipeline_sd15_memory),
        cmocka_unit_test(test_pipeline_mig),
        cmocka_unit_test(test_pipeline_orderings),
        cmocka_unit_test(test_vae_derivation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
