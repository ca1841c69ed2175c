/* zoo_unet.c - the diffusion UNet of Stable Diffusion (diffusers
 * UNet2DConditionModel): ResNet blocks with a timestep embedding, spatial
 * transformers (self-attention, cross-attention to the text encoder's
 * states, GEGLU feed-forward), skip connections from the down path to the
 * up path. One graph is one denoising step on a latent of `latent` x
 * `latent` (symbols height and width); the sinusoidal timestep features and
 * the text encoder's states are inputs, as the pipeline computes them
 * outside the UNet. SDXL adds its size/crop conditioning ("added_features":
 * pooled text embedding and six sinusoidal time ids). */
#include <stdio.h>
#include <string.h>

#include "graph/zoo/zoo_impl.h"

static const char *const unet_names[] = {"sd15", "sd21", "sdxl", "custom"};
static const char *const unet_presets[] = {
    "channels=320,640,1280,1280:attn_layers=1,1,1,0:mid_layers=1:heads=8:cross_dim=768:"
    "linear_proj=0:add_dim=0:latent=64",
    "channels=320,640,1280,1280:attn_layers=1,1,1,0:mid_layers=1:heads=0:cross_dim=1024:"
    "linear_proj=1:add_dim=0:latent=96",
    "channels=320,640,1280,0:attn_layers=0,2,10,0:mid_layers=10:heads=0:cross_dim=2048:"
    "linear_proj=1:add_dim=2816:latent=128",
    ""};

static const struct zoo_param unet_params[] = {
    {.name = "preset", .type = ZOO_PT_ENUM, .n_choices = 4, .choices = unet_names,
     .presets = unet_presets, .def = "sd15",
     .help = "Stable Diffusion 1.5, 2.1 or XL UNet (sets every size parameter)"},
    {.name = "channels", .type = ZOO_PT_INTS, .n_items = 4, .min = 0, .max = 4096, .step = 32,
     .smin = 0, .smax = 512, .def = "320,640,1280,1280",
     .help = "channels per resolution level (0: no such level; only trailing)"},
    {.name = "attn_layers", .type = ZOO_PT_INTS, .n_items = 4, .min = 0, .max = 16, .smin = 0,
     .smax = 2, .def = "1,1,1,0", .help = "transformer layers per level (0: ResNets only)"},
    {.name = "mid_layers", .type = ZOO_PT_INT, .min = 1, .max = 16, .smin = 1, .smax = 2,
     .def = "1", .help = "transformer layers of the middle block"},
    {.name = "heads", .type = ZOO_PT_INT, .min = 0, .max = 64, .smin = 0, .smax = 8,
     .def = "8", .help = "attention heads per level (0: heads of 64 channels)"},
    {.name = "cross_dim", .type = ZOO_PT_INT, .min = 64, .max = 4096, .step = 64, .smin = 256,
     .smax = 1024, .def = "768", .help = "width of the text encoder's states"},
    {.name = "linear_proj", .type = ZOO_PT_INT, .min = 0, .max = 1, .def = "0",
     .help = "1 = transformer in/out projections are Linear (SD 2.x, XL), 0 = 1x1 convs"},
    {.name = "add_dim", .type = ZOO_PT_INT, .min = 0, .max = 8192, .smin = 0, .smax = 0,
     .def = "0", .help = "SDXL added conditioning width (2816), 0 = none"},
    {.name = "latent", .type = ZOO_PT_INT, .min = 8, .max = 512, .step = 8, .smin = 16,
     .smax = 64, .def = "64", .help = "latent size (image / 8): height and width default"},
    {.name = "tokens", .type = ZOO_PT_INT, .min = 1, .max = 1024, .smin = 77, .smax = 77,
     .def = "77", .help = "text tokens the cross-attention attends to"},
};

struct unet {
    int n_levels, ch[4], attn[4], mid, heads, cross, tokens;
    bool linear;
};

static enum status unet_check(const struct zoo_args *a, struct diag *d)
{
    const int *ch = zoo_arg_ints(a, "channels");
    if (ch[0] == 0)
        return diag_set(d, ST_ERANGE, "zoo:unet: channels=%d,...: the first level needs channels",
                        ch[0]);
    for (int i = 1; i < 4; i++) {
        if (ch[i] == 0 && i < 3 && ch[i + 1] != 0)
            return diag_set(d, ST_ERANGE, "zoo:unet: channels: 0 (no level) only at the end");
        if (ch[i] % 32 && ch[i])
            return diag_set(d, ST_ERANGE, "zoo:unet: channels must be multiples of 32 (groups)");
    }
    int last = 0;
    for (int i = 0; i < 4; i++)
        if (ch[i])
            last = i;
    for (int i = 0; i < 4; i++) {
        int heads = zoo_arg_int(a, "heads") ? zoo_arg_int(a, "heads") : ch[i] / 64;
        bool attn = zoo_arg_ints(a, "attn_layers")[i] || i == last; /* the middle block */
        if (ch[i] && attn && (heads < 1 || ch[i] % heads))
            return diag_set(d, ST_ERANGE, "zoo:unet: %d channels do not split into %d heads",
                            ch[i], heads);
    }
    return ST_OK;
}

/* diffusers ResnetBlock2D with the timestep embedding temb (SiLU'd, [B, 1280]). */
static int resnet(struct zoo_build *b, int x, int temb, int cin, int cout, int temb_dim)
{
    static const int64_t hw[2] = {2, 3};
    int h = zb_act(b, zb_group_norm(b, x, "norm1", cin, 1e-5), OP_Silu);
    h = zb_conv(b, h, "conv1", cin, cout, 3, 1, 1, 1, true);
    int t = zb_unsqueeze(b, zb_linear(b, temb, "time_emb_proj", temb_dim, cout, true), hw, 2);
    h = zb_binary(b, OP_Add, h, t);
    h = zb_act(b, zb_group_norm(b, h, "norm2", cout, 1e-5), OP_Silu);
    h = zb_conv(b, h, "conv2", cout, cout, 3, 1, 1, 1, true);
    if (cin != cout)
        x = zb_conv(b, x, "conv_shortcut", cin, cout, 1, 1, 0, 1, true);
    return zb_binary(b, OP_Add, x, h);
}

/* diffusers Transformer2DModel on x [B, C, H, W] with `layers` blocks. */
static int transformer(struct zoo_build *b, const struct unet *u, int x, int ctx, int c,
                       int layers)
{
    int heads = u->heads ? u->heads : c / 64;
    int shape_in = zb_node(b, OP_Shape, "shape", &x, 1);
    int h = zb_group_norm(b, x, "norm", c, 1e-5);
    const int64_t flat[3] = {0, c, -1};
    static const int64_t perm[3] = {0, 2, 1};
    if (!u->linear)
        h = zb_conv(b, h, "proj_in", c, c, 1, 1, 0, 1, true);
    h = zb_transpose(b, zb_reshape(b, h, flat, 3), perm, 3); /* [B, HW, C] */
    if (u->linear)
        h = zb_linear(b, h, "proj_in", c, c, true);
    char saved[sizeof b->scope];
    snprintf(saved, sizeof saved, "%s", b->scope);
    for (int l = 0; l < layers; l++) {
        zb_scope(b, "%s.transformer_blocks.%d", saved, l);
        int n = zb_layernorm(b, h, "norm1", c, 1e-5);
        h = zb_binary(b, OP_Add, h, zb_cross_attention(b, "attn1", n, n, c, c, heads, false));
        n = zb_layernorm(b, h, "norm2", c, 1e-5);
        h = zb_binary(b, OP_Add, h, zb_cross_attention(b, "attn2", n, ctx, c, u->cross, heads, false));
        n = zb_layernorm(b, h, "norm3", c, 1e-5);
        int p = zb_linear(b, n, "ff.net.0.proj", c, 8 * c, true);
        const int64_t halves[2] = {4 * c, 4 * c};
        int si[2] = {p, zb_const_ints(b, halves, 2, false)}, ab[2];
        zb_node_multi(b, OP_Split, "ff.net.0.split", si, 2, ab, 2);
        graph_attr_int(b->g, zb_last(b), "axis", -1);
        int g = zb_binary(b, OP_Mul, ab[0], zb_act(b, ab[1], OP_Gelu));
        h = zb_binary(b, OP_Add, h, zb_linear(b, g, "ff.net.2", 4 * c, c, true));
    }
    zb_scope(b, "%s", saved);
    if (u->linear)
        h = zb_linear(b, h, "proj_out", c, c, true);
    int ri[2] = {zb_transpose(b, h, perm, 3), shape_in};
    h = zb_node(b, OP_Reshape, "reshape", ri, 2);
    if (!u->linear)
        h = zb_conv(b, h, "proj_out", c, c, 1, 1, 0, 1, true);
    return zb_binary(b, OP_Add, h, x);
}

/* TimestepEmbedding "<name>": Linear, SiLU, Linear. */
static int time_embedding(struct zoo_build *b, int x, const char *name, int in, int out)
{
    char n[64];
    zb_scope(b, "%s", name);
    snprintf(n, sizeof n, "linear_1");
    int h = zb_act(b, zb_linear(b, x, n, in, out, true), OP_Silu);
    return zb_linear(b, h, "linear_2", out, out, true);
}

static enum status unet_build(struct zoo_build *b, const struct zoo_args *a, struct diag *d)
{
    (void)d;
    struct unet u = {.mid = zoo_arg_int(a, "mid_layers"), .heads = zoo_arg_int(a, "heads"),
                     .cross = zoo_arg_int(a, "cross_dim"), .tokens = zoo_arg_int(a, "tokens"),
                     .linear = zoo_arg_int(a, "linear_proj") != 0};
    for (int i = 0; i < 4; i++) {
        u.ch[i] = zoo_arg_ints(a, "channels")[i];
        u.attn[i] = zoo_arg_ints(a, "attn_layers")[i];
        if (u.ch[i])
            u.n_levels = i + 1;
    }
    int lat = zoo_arg_int(a, "latent"), c0 = u.ch[0], tdim = 4 * c0;
    const int64_t sd[4] = {1, 4, lat, lat};
    const char *const ss[4] = {"batch", NULL, "height", "width"};
    int x = zb_input(b, "sample", DT_FLOAT, 4, sd, ss);
    const int64_t td[2] = {1, c0}, cd[3] = {1, u.tokens, u.cross};
    const char *const bs[3] = {"batch", NULL, NULL};
    int tf = zb_input(b, "time_features", DT_FLOAT, 2, td, bs);
    int ctx = zb_input(b, "encoder_hidden_states", DT_FLOAT, 3, cd, bs);
    int temb = time_embedding(b, tf, "time_embedding", c0, tdim);
    int add = zoo_arg_int(a, "add_dim");
    if (add) {
        const int64_t ad[2] = {1, add};
        int af = zb_input(b, "added_features", DT_FLOAT, 2, ad, bs);
        temb = zb_binary(b, OP_Add, temb, time_embedding(b, af, "add_embedding", add, tdim));
    }
    temb = zb_act(b, temb, OP_Silu); /* every ResNet applies SiLU first: shared */
    zb_scope(b, "%s", "");
    x = zb_conv(b, x, "conv_in", 4, c0, 3, 1, 1, 1, true);
    int skip[16], skip_ch[16], ns = 0;
    skip[ns] = x, skip_ch[ns++] = c0;
    int cin = c0;
    for (int i = 0; i < u.n_levels; i++) {
        for (int j = 0; j < 2; j++) {
            zb_scope(b, "down_blocks.%d.resnets.%d", i, j);
            x = resnet(b, x, temb, j ? u.ch[i] : cin, u.ch[i], tdim);
            if (u.attn[i]) {
                zb_scope(b, "down_blocks.%d.attentions.%d", i, j);
                x = transformer(b, &u, x, ctx, u.ch[i], u.attn[i]);
            }
            skip[ns] = x, skip_ch[ns++] = u.ch[i];
        }
        cin = u.ch[i];
        if (i + 1 < u.n_levels) {
            zb_scope(b, "down_blocks.%d.downsamplers.0", i);
            x = zb_conv(b, x, "conv", cin, cin, 3, 2, 1, 1, true);
            skip[ns] = x, skip_ch[ns++] = cin;
        }
    }
    int cl = u.ch[u.n_levels - 1];
    zb_scope(b, "mid_block.resnets.0");
    x = resnet(b, x, temb, cl, cl, tdim);
    zb_scope(b, "mid_block.attentions.0");
    x = transformer(b, &u, x, ctx, cl, u.mid);
    zb_scope(b, "mid_block.resnets.1");
    x = resnet(b, x, temb, cl, cl, tdim);
    int prev = cl;
    for (int i = 0; i < u.n_levels; i++) {
        int lvl = u.n_levels - 1 - i, out = u.ch[lvl];
        for (int j = 0; j < 3; j++) {
            int s = skip[--ns], sc = skip_ch[ns];
            int cat[2] = {x, s};
            zb_scope(b, "up_blocks.%d.resnets.%d", i, j);
            x = resnet(b, zb_concat(b, cat, 2, 1), temb, (j ? out : prev) + sc, out, tdim);
            if (u.attn[lvl]) {
                zb_scope(b, "up_blocks.%d.attentions.%d", i, j);
                x = transformer(b, &u, x, ctx, out, u.attn[lvl]);
            }
        }
        prev = out;
        if (i + 1 < u.n_levels) {
            zb_scope(b, "up_blocks.%d.upsamplers.0", i);
            x = zb_node(b, OP_Upsample, "upsample", &x, 1);
            static const double sc[4] = {1, 1, 2, 2};
            graph_attr_floats(b->g, zb_last(b), "scales", sc, 4);
            graph_attr_string(b->g, zb_last(b), "mode", "nearest");
            x = zb_conv(b, x, "conv", out, out, 3, 1, 1, 1, true);
        }
    }
    zb_scope(b, "%s", "");
    x = zb_act(b, zb_group_norm(b, x, "conv_norm_out", c0, 1e-5), OP_Silu);
    zb_output(b, zb_conv(b, x, "conv_out", c0, 4, 3, 1, 1, 1, true));
    /* each down level but the last halves the latent; each up level joins its skip */
    char why[128];
    snprintf(why, sizeof why, "the UNet halves the latent %d times and joins each skip at its "
             "size", u.n_levels - 1);
    zb_limit_image(b, 0, 0, (int64_t)1 << (u.n_levels - 1), why);
    return ST_OK;
}

const struct zoo_family zoo_fam_unet = {
    .name = "unet",
    .help = "Stable Diffusion UNet (1.5, 2.1, XL): one denoising step on a latent",
    .n_params = sizeof unet_params / sizeof unet_params[0],
    .params = unet_params,
    .check = unet_check,
    .build = unet_build,
};
