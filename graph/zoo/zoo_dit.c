/* zoo_dit.c - the zoo:dit template's parameters and, with arch=pixart (the
 * default; arch=mmdit, SD3's MMDiT, is built by zoo_mmdit.c), a Diffusion
 * Transformer denoiser as diffusers' PixArtTransformer2DModel computes it
 * (PixArt-alpha, PixArt-Sigma): one denoising step on a latent of `latent`
 * x `latent` (symbols height and width). The sinusoidal timestep features
 * (diffusers Timesteps, 256 channels) and the text encoder's states (T5-XXL,
 * caption_dim wide, padded to `tokens`) are inputs, as the pipeline computes
 * them outside the transformer.
 *
 *   pos_embed           PatchEmbed: Conv2d in_channels -> hidden, kernel =
 *                       stride = patch, flattened to tokens, plus a fixed
 *                       2-D sin-cos position embedding (a non-persistent
 *                       buffer: a Constant, not a parameter)
 *   adaln_single        AdaLayerNormSingle: TimestepEmbedding (Linear 256 ->
 *                       hidden, SiLU, Linear) then SiLU + Linear hidden ->
 *                       6 x hidden shared by every block; with size_cond
 *                       (PixArtAlphaCombinedTimestepSizeEmbeddings,
 *                       PixArt-alpha 1024) resolution and aspect-ratio
 *                       embeddings of hidden/3 each are added to the timestep
 *   caption_projection  PixArtAlphaTextProjection: Linear caption_dim ->
 *                       hidden, GELU(tanh), Linear
 *   transformer_blocks  BasicTransformerBlock, norm_type ada_norm_single:
 *                       scale_shift_table [6, hidden] + the shared table
 *                       gives shift/scale/gate for attention and MLP;
 *                       LayerNorm without affine, modulation, self-attention
 *                       (attn1, biased q/k/v/out), gated residual; cross-
 *                       attention to the projected caption without a norm
 *                       (attn2), residual; LayerNorm, modulation,
 *                       FeedForward gelu-approximate 4 x hidden, gated
 *                       residual
 *   final layer         norm_out (no affine), scale_shift_table [2, hidden]
 *                       + the timestep embedding, proj_out hidden ->
 *                       patch^2 x out_channels, unpatchify
 *                       (einsum nhwpqc->nchpwq) to [B, out_channels, H, W]
 *
 * LayerNorm without affine is LayerNormalization with constant scale and
 * bias, as torch.onnx exports it. The pipeline's caption padding mask (an
 * additive bias inside the cross-attention) is left out, as in zoo_unet.c.
 * The position embedding is made for `latent`: other height/width bindings
 * fail shape inference, as an export traced at that size would (diffusers
 * itself recomputes the table; set latent instead). */
#include <stdio.h>
#include <string.h>

#include "graph/zoo/zoo_dit.h"

static const char *const dit_names[] = {"pixart-sigma-xl2-1024", "pixart-alpha-xl2-1024",
                                        "pixart-sigma-xl2-512", "sd3-medium", "custom"};
static const char *const dit_presets[] = {
    "arch=pixart:layers=28:hidden=1152:heads=16:patch=2:latent=128:tokens=300:caption_dim=4096:"
    "in_channels=4:out_channels=8:size_cond=0",
    "arch=pixart:layers=28:hidden=1152:heads=16:patch=2:latent=128:tokens=120:caption_dim=4096:"
    "in_channels=4:out_channels=8:size_cond=1",
    "arch=pixart:layers=28:hidden=1152:heads=16:patch=2:latent=64:tokens=300:caption_dim=4096:"
    "in_channels=4:out_channels=8:size_cond=0",
    /* stabilityai/stable-diffusion-3-medium-diffusers transformer/config.json;
     * tokens: 77 CLIP + 256 T5 (the pipeline's max_sequence_length) */
    "arch=mmdit:layers=24:hidden=1536:heads=24:patch=2:latent=128:tokens=333:caption_dim=4096:"
    "in_channels=16:out_channels=16:size_cond=0:pooled_dim=2048:pos_max=192",
    ""};
static const char *const dit_archs[] = {"pixart", "mmdit"};

static const struct zoo_param dit_params[] = {
    {.name = "preset", .type = ZOO_PT_ENUM, .n_choices = 5, .choices = dit_names,
     .presets = dit_presets, .def = "pixart-sigma-xl2-1024",
     .help = "PixArt-Sigma 1024/512, PixArt-alpha 1024 or Stable Diffusion 3 medium "
             "transformer (sets every parameter)"},
    {.name = "layers", .type = ZOO_PT_INT, .min = 1, .max = 64, .smin = 2, .smax = 12,
     .def = "28", .help = "transformer blocks"},
    {.name = "hidden", .type = ZOO_PT_INT, .min = 64, .max = 4096, .step = 64, .smin = 128,
     .smax = 768, .def = "1152", .help = "hidden width (a multiple of heads)"},
    {.name = "heads", .type = ZOO_PT_INT, .min = 1, .max = 64, .smin = 2, .smax = 16,
     .def = "16", .help = "attention heads (must divide hidden)"},
    {.name = "patch", .type = ZOO_PT_INT, .min = 1, .max = 8, .smin = 1, .smax = 4, .def = "2",
     .help = "patch size in latent pixels (latent must be a multiple)"},
    {.name = "latent", .type = ZOO_PT_INT, .min = 8, .max = 512, .step = 8, .smin = 16,
     .smax = 64, .def = "128",
     .help = "latent size (image / 8): height and width default, position table size"},
    {.name = "tokens", .type = ZOO_PT_INT, .min = 1, .max = 1024, .smin = 64, .smax = 300,
     .def = "300",
     .help = "text tokens attended to (PixArt-Sigma 300, alpha 120; SD3 333: 77 CLIP + 256 T5)"},
    {.name = "caption_dim", .type = ZOO_PT_INT, .min = 64, .max = 8192, .step = 64,
     .smin = 256, .smax = 4096, .def = "4096", .help = "width of the text encoder's states"},
    {.name = "in_channels", .type = ZOO_PT_INT, .min = 1, .max = 64, .smin = 4, .smax = 16,
     .def = "4", .help = "latent channels in"},
    {.name = "out_channels", .type = ZOO_PT_INT, .min = 1, .max = 128, .smin = 4, .smax = 32,
     .def = "8", .help = "channels out (PixArt 8: noise and learned variance; SD3 16)"},
    {.name = "size_cond", .type = ZOO_PT_INT, .min = 0, .max = 1, .def = "0",
     .help = "1 = resolution and aspect-ratio conditioning (PixArt-alpha 1024)"},
    {.name = "arch", .type = ZOO_PT_ENUM, .n_choices = 2, .choices = dit_archs, .def = "pixart",
     .unsampled = true,
     .help = "pixart: DiT with cross-attention to the caption (PixArt); mmdit: joint attention "
             "over image and text tokens, two streams of weights (SD3)"},
    {.name = "pooled_dim", .type = ZOO_PT_INT, .min = 64, .max = 8192, .step = 64, .def = "2048",
     .unsampled = true,
     .help = "mmdit: width of the pooled text embedding (SD3: CLIP-L 768 + bigG 1280)"},
    {.name = "pos_max", .type = ZOO_PT_INT, .min = 1, .max = 1024, .def = "192",
     .unsampled = true,
     .help = "mmdit: side of the stored position table, cropped to latent / patch"},
};

static enum status dit_check(const struct zoo_args *a, struct diag *d)
{
    int hidden = zoo_arg_int(a, "hidden");
    int patch = zoo_arg_int(a, "patch"), latent = zoo_arg_int(a, "latent");
    enum status st;
    if ((st = zoo_check_multiple(a, "dit", "hidden", "heads", d)) ||
        (st = zoo_check_multiple(a, "dit", "latent", "patch", d)))
        return st;
    if (zoo_arg_int(a, "size_cond") && hidden % 3)
        return diag_set(d, ST_ERANGE,
                        "zoo:dit: size_cond=1 needs hidden=%d to be a multiple of 3 "
                        "(resolution and aspect-ratio embeddings of hidden/3)",
                        hidden);
    int pos_max = zoo_arg_int(a, "pos_max");
    if (strcmp(zoo_arg_enum(a, "arch"), "mmdit"))
        return zoo_arg_int(a, "pooled_dim") == 2048 && pos_max == 192
                   ? ST_OK
                   : diag_set(d, ST_ERANGE,
                              "zoo:dit: pooled_dim and pos_max apply to arch=mmdit only");
    if (zoo_arg_int(a, "size_cond"))
        return diag_set(d, ST_ERANGE, "zoo:dit: size_cond=1 is PixArt's (arch=pixart)");
    if (latent / patch > pos_max)
        return diag_set(d, ST_ERANGE,
                        "zoo:dit: latent=%d / patch=%d is more than pos_max=%d positions a side",
                        latent, patch, pos_max);
    return ST_OK;
}

/* LayerNorm without affine: constant ones and zeros [c], as torch.onnx
 * writes it; they are not parameters. */
int dit_layernorm_plain(struct zoo_build *b, int x, const char *local, int c)
{
    char key[48];
    const int64_t dd[1] = {c};
    snprintf(key, sizeof key, "ln_ones_%d", c);
    int in[3] = {x, zb_const_float_nodata(b, key, 1, dd), -1};
    snprintf(key, sizeof key, "ln_zeros_%d", c);
    in[2] = zb_const_float_nodata(b, key, 1, dd);
    int y = zb_node(b, OP_LayerNormalization, local, in, 3);
    graph_attr_int(b->g, zb_last(b), "axis", -1);
    graph_attr_float(b->g, zb_last(b), "epsilon", 1e-6);
    return y;
}

int dit_modulate(struct zoo_build *b, int x, int shift, int scale)
{
    int s = zb_binary(b, OP_Add, scale, zb_const_float(b, 1.0));
    return zb_binary(b, OP_Add, zb_binary(b, OP_Mul, x, s), shift);
}

void dit_chunks(struct zoo_build *b, int x, int n, int *out)
{
    const int64_t ones[6] = {1, 1, 1, 1, 1, 1};
    int in[2] = {x, zb_const_ints(b, ones, n, false)};
    zb_node_multi(b, OP_Split, "chunk", in, 2, out, n);
    graph_attr_int(b->g, zb_last(b), "axis", 1);
}

/* opset 20 */
int dit_gelu_tanh(struct zoo_build *b, int x)
{
    int y = zb_act(b, x, OP_Gelu);
    graph_attr_string(b->g, zb_last(b), "approximate", "tanh");
    return y;
}

int dit_feed_forward(struct zoo_build *b, int x, const char *prefix, int d)
{
    char n[64];
    snprintf(n, sizeof n, "%s.net.0.proj", prefix);
    x = dit_gelu_tanh(b, zb_linear(b, x, n, d, 4 * d, true));
    snprintf(n, sizeof n, "%s.net.2", prefix);
    return zb_linear(b, x, n, 4 * d, d, true);
}

/* (scale_shift_table[None] + t).chunk(n, dim=1): table [n, D], t [B, n, D]. */
static void table_chunks(struct zoo_build *b, int table, int t, int n, int *out)
{
    dit_chunks(b, zb_binary(b, OP_Add, table, t), n, out);
}

/* BasicTransformerBlock (ada_norm_single) on x [B, N, D]; t6 [B, 6, D] is
 * the shared adaLN output, ctx [B, T, D] the projected caption. */
static int block(struct zoo_build *b, const struct dit *m, int x, int t6, int ctx)
{
    int D = m->hidden;
    const int64_t td[2] = {6, D};
    int mod[6]; /* shift_msa, scale_msa, gate_msa, shift_mlp, scale_mlp, gate_mlp */
    table_chunks(b, zb_weight(b, "scale_shift_table", 2, td), t6, 6, mod);
    int h = dit_modulate(b, dit_layernorm_plain(b, x, "norm1", D), mod[0], mod[1]);
    h = zb_binary(b, OP_Mul, mod[2], zb_cross_attention(b, "attn1", h, h, D, D, m->heads, true));
    x = zb_binary(b, OP_Add, h, x);
    /* PixArt applies no norm before the cross-attention */
    x = zb_binary(b, OP_Add, zb_cross_attention(b, "attn2", x, ctx, D, D, m->heads, true), x);
    h = dit_modulate(b, dit_layernorm_plain(b, x, "norm2", D), mod[3], mod[4]);
    h = dit_feed_forward(b, h, "ff", D);
    return zb_binary(b, OP_Add, zb_binary(b, OP_Mul, mod[5], h), x);
}

int dit_time_embedding(struct zoo_build *b, int x, const char *scope, int in, int out)
{
    zb_scope(b, "%s", scope);
    int h = zb_act(b, zb_linear(b, x, "linear_1", in, out, true), OP_Silu);
    return zb_linear(b, h, "linear_2", out, out, true);
}

/* The timestep embedding [B, D] (embedded_timestep), with the resolution
 * and aspect-ratio embeddings when size_cond. */
static int timestep(struct zoo_build *b, const struct dit *m)
{
    const char *const bs[3] = {"batch", NULL, NULL};
    const int64_t td[2] = {1, DIT_TIME_CH};
    int tf = zb_input(b, "time_features", DT_FLOAT, 2, td, bs);
    int temb =
        dit_time_embedding(b, tf, "adaln_single.emb.timestep_embedder", DIT_TIME_CH, m->hidden);
    if (!m->size_cond)
        return temb;
    /* sinusoidal features of (height, width) and of height / width, each
     * embedded to hidden/3 and concatenated behind the batch */
    int e = m->hidden / 3;
    const int64_t rd[3] = {1, 2, DIT_TIME_CH}, ad[3] = {1, 1, DIT_TIME_CH};
    int rf = zb_input(b, "resolution_features", DT_FLOAT, 3, rd, bs);
    int af = zb_input(b, "aspect_ratio_features", DT_FLOAT, 3, ad, bs);
    int r = dit_time_embedding(b, rf, "adaln_single.emb.resolution_embedder", DIT_TIME_CH, e);
    const int64_t flat[2] = {0, -1};
    int cat[2] = {zb_reshape(b, r, flat, 2), -1};
    int ar = dit_time_embedding(b, af, "adaln_single.emb.aspect_ratio_embedder", DIT_TIME_CH, e);
    cat[1] = zb_reshape(b, ar, flat, 2);
    zb_scope(b, "adaln_single.emb");
    return zb_binary(b, OP_Add, temb, zb_concat(b, cat, 2, 1));
}

int dit_unpatchify(struct zoo_build *b, const struct dit *m, int x)
{
    int p = m->patch, h = m->latent / p;
    x = zb_linear(b, x, "proj_out", m->hidden, p * p * m->cout, true);
    const int64_t grid[6] = {0, h, h, p, p, m->cout};
    static const int64_t perm[6] = {0, 5, 1, 3, 2, 4}; /* nhwpqc -> nchpwq */
    x = zb_transpose(b, zb_reshape(b, x, grid, 6), perm, 6);
    const int64_t img[4] = {0, m->cout, m->latent, m->latent};
    int in[2] = {x, zb_const_ints(b, img, 4, false)};
    return zb_node(b, OP_Reshape, "unpatchify", in, 2);
}

/* norm_out, modulation by scale_shift_table [2, D] + temb, proj_out and
 * unpatchify to [B, out_channels, H, W]. */
static int final_layer(struct zoo_build *b, const struct dit *m, int x, int temb)
{
    int D = m->hidden;
    zb_scope(b, "%s", "");
    static const int64_t ax1[1] = {1};
    const int64_t sd[2] = {2, D};
    int mod[2]; /* shift, scale */
    table_chunks(b, zb_weight(b, "scale_shift_table", 2, sd), zb_unsqueeze(b, temb, ax1, 1), 2,
                 mod);
    x = dit_modulate(b, dit_layernorm_plain(b, x, "norm_out", D), mod[0], mod[1]);
    return dit_unpatchify(b, m, x);
}

int dit_patchify(struct zoo_build *b, const struct dit *m, int x)
{
    int D = m->hidden;
    x = zb_conv(b, x, "proj", m->cin, D, m->patch, m->patch, 0, 1, true);
    const int64_t flat[3] = {0, D, -1};
    static const int64_t perm[3] = {0, 2, 1};
    return zb_transpose(b, zb_reshape(b, x, flat, 3), perm, 3); /* [B, N, D] */
}

static enum status dit_build(struct zoo_build *b, const struct zoo_args *a, struct diag *d)
{
    (void)d;
    struct dit m = {.layers = zoo_arg_int(a, "layers"), .hidden = zoo_arg_int(a, "hidden"),
                    .heads = zoo_arg_int(a, "heads"), .patch = zoo_arg_int(a, "patch"),
                    .latent = zoo_arg_int(a, "latent"), .tokens = zoo_arg_int(a, "tokens"),
                    .caption = zoo_arg_int(a, "caption_dim"),
                    .cin = zoo_arg_int(a, "in_channels"), .cout = zoo_arg_int(a, "out_channels"),
                    .size_cond = zoo_arg_int(a, "size_cond") != 0,
                    .pooled = zoo_arg_int(a, "pooled_dim"), .pos_max = zoo_arg_int(a, "pos_max")};
    char why[128];
    snprintf(why, sizeof why, "the position embeddings are made for latent=%d (set latent "
             "instead)", m.latent);
    if (!strcmp(zoo_arg_enum(a, "arch"), "mmdit")) {
        enum status st = mmdit_build(b, &m);
        zb_limit_image(b, m.latent, m.latent, 0, why);
        return st;
    }
    int D = m.hidden, grid = m.latent / m.patch;
    const int64_t sd[4] = {1, m.cin, m.latent, m.latent};
    const char *const ss[4] = {"batch", NULL, "height", "width"};
    int x = zb_input(b, "hidden_states", DT_FLOAT, 4, sd, ss);
    const int64_t cd[3] = {1, m.tokens, m.caption};
    const char *const bs[3] = {"batch", NULL, NULL};
    int ctx = zb_input(b, "encoder_hidden_states", DT_FLOAT, 3, cd, bs);

    zb_scope(b, "pos_embed");
    x = dit_patchify(b, &m, x);
    char key[64];
    snprintf(key, sizeof key, "sincos_pos_embed_%dx%dx%d", grid, grid, D);
    const int64_t pd[3] = {1, (int64_t)grid * grid, D};
    x = zb_binary(b, OP_Add, x, zb_const_float_nodata(b, key, 3, pd));

    int temb = timestep(b, &m);
    zb_scope(b, "adaln_single");
    const int64_t six[3] = {0, 6, D};
    int t6 = zb_linear(b, zb_act(b, temb, OP_Silu), "linear", D, 6 * D, true);
    t6 = zb_reshape(b, t6, six, 3); /* timestep.reshape(batch, 6, -1) */

    zb_scope(b, "caption_projection");
    ctx = dit_gelu_tanh(b, zb_linear(b, ctx, "linear_1", m.caption, D, true));
    ctx = zb_linear(b, ctx, "linear_2", D, D, true);

    for (int l = 0; l < m.layers; l++) {
        zb_scope(b, "transformer_blocks.%d", l);
        x = block(b, &m, x, t6, ctx);
    }
    zb_output(b, final_layer(b, &m, x, temb));
    zb_limit_image(b, m.latent, m.latent, 0, why);
    return ST_OK;
}

const struct zoo_family zoo_fam_dit = {
    .name = "dit",
    .help = "Diffusion Transformer (PixArt-alpha/Sigma DiT, SD3 MMDiT): one denoising step on "
            "a latent",
    .n_params = sizeof dit_params / sizeof dit_params[0],
    .params = dit_params,
    .check = dit_check,
    .build = dit_build,
};
