/* zoo_vae.c - the decoder of a latent diffusion pipeline's VAE, as diffusers'
 * AutoencoderKL.decode computes it: latents of `latent` x `latent` pixels
 * (symbols height and width) and latent_channels channels to an image of
 * 8 x latent pixels (with the default four levels). Stable Diffusion 1.5,
 * 2.1 and XL and PixArt share the 4-channel VAE; SD3 and FLUX use a
 * 16-channel one without the post-quantisation convolution.
 *
 *   post_quant_conv   1x1 conv latent_channels -> latent_channels (4-channel VAE)
 *   decoder.conv_in   3x3 conv latent_channels -> channels[last]
 *   decoder.mid_block ResNet, self-attention over every latent pixel (one
 *                     head of channels[last], GroupNorm first, residual),
 *                     ResNet
 *   decoder.up_blocks per level from the widest: `layers` ResNets, then (not
 *                     the last level) nearest 2x upsampling and a 3x3 conv
 *   conv_norm_out     GroupNorm, SiLU, 3x3 conv channels[0] -> 3
 *
 * A ResNet (ResnetBlock2D without a timestep) is GroupNorm(32), SiLU, 3x3
 * conv, GroupNorm, SiLU, 3x3 conv, plus the input (through a 1x1 conv when
 * the width changes). The encoder is not built: a pipeline that generates
 * images only decodes. */
#include <stdio.h>

#include "graph/zoo/zoo_impl.h"

static const char *const vae_names[] = {"sd-vae", "sd3-vae", "custom"};
static const char *const vae_presets[] = {
    "latent_channels=4:channels=128,256,512,512:layers=3:post_quant=1",
    "latent_channels=16:channels=128,256,512,512:layers=3:post_quant=0",
    ""};

static const struct zoo_param vae_params[] = {
    {.name = "preset", .type = ZOO_PT_ENUM, .n_choices = 3, .choices = vae_names,
     .presets = vae_presets, .def = "sd-vae",
     .help = "4-channel VAE of SD 1.5/2.1/XL and PixArt, or the 16-channel one of SD3/FLUX"},
    {.name = "latent_channels", .type = ZOO_PT_INT, .min = 1, .max = 64, .smin = 4, .smax = 16,
     .def = "4", .help = "channels of the latent"},
    {.name = "channels", .type = ZOO_PT_INTS, .n_items = 4, .min = 32, .max = 2048, .step = 32,
     .smin = 32, .smax = 256, .def = "128,256,512,512",
     .help = "channels per level, narrowest (image side) first"},
    {.name = "layers", .type = ZOO_PT_INT, .min = 1, .max = 8, .smin = 1, .smax = 3, .def = "3",
     .help = "ResNet blocks per decoder level"},
    {.name = "post_quant", .type = ZOO_PT_INT, .min = 0, .max = 1, .def = "1",
     .help = "1 = a 1x1 post-quantisation conv before the decoder"},
    {.name = "latent", .type = ZOO_PT_INT, .min = 8, .max = 512, .step = 8, .smin = 8,
     .smax = 32, .def = "64", .help = "latent size (image / 8): height and width default"},
};

static int resnet(struct zoo_build *b, int x, int cin, int cout)
{
    int h = zb_act(b, zb_group_norm(b, x, "norm1", cin, 1e-6), OP_Silu);
    h = zb_conv(b, h, "conv1", cin, cout, 3, 1, 1, 1, true);
    h = zb_act(b, zb_group_norm(b, h, "norm2", cout, 1e-6), OP_Silu);
    h = zb_conv(b, h, "conv2", cout, cout, 3, 1, 1, 1, true);
    if (cin != cout)
        x = zb_conv(b, x, "conv_shortcut", cin, cout, 1, 1, 0, 1, true);
    return zb_binary(b, OP_Add, x, h);
}

/* The mid block's Attention(c, heads=1, norm_num_groups=32, residual):
 * [B, C, H, W] -> GroupNorm -> [B, HW, C] -> attention -> back, + x. */
static int mid_attention(struct zoo_build *b, int x, int c)
{
    int shape_in = zb_node(b, OP_Shape, "shape", &x, 1);
    int h = zb_group_norm(b, x, "group_norm", c, 1e-6);
    const int64_t flat[3] = {0, c, -1};
    static const int64_t perm[3] = {0, 2, 1};
    h = zb_transpose(b, zb_reshape(b, h, flat, 3), perm, 3);
    h = zb_cross_attention(b, "attn", h, h, c, c, 1, true);
    int ri[2] = {zb_transpose(b, h, perm, 3), shape_in};
    h = zb_node(b, OP_Reshape, "reshape", ri, 2);
    return zb_binary(b, OP_Add, h, x);
}

static enum status vae_build(struct zoo_build *b, const struct zoo_args *a, struct diag *d)
{
    (void)d;
    int lc = zoo_arg_int(a, "latent_channels"), lat = zoo_arg_int(a, "latent");
    int layers = zoo_arg_int(a, "layers");
    const int *ch = zoo_arg_ints(a, "channels");
    const int64_t sd[4] = {1, lc, lat, lat};
    const char *const ss[4] = {"batch", NULL, "height", "width"};
    int x = zb_input(b, "latents", DT_FLOAT, 4, sd, ss);
    if (zoo_arg_int(a, "post_quant")) {
        zb_scope(b, "%s", "");
        x = zb_conv(b, x, "post_quant_conv", lc, lc, 1, 1, 0, 1, true);
    }
    int top = ch[3];
    zb_scope(b, "decoder");
    x = zb_conv(b, x, "conv_in", lc, top, 3, 1, 1, 1, true);
    zb_scope(b, "decoder.mid_block.resnets.0");
    x = resnet(b, x, top, top);
    zb_scope(b, "decoder.mid_block.attentions.0");
    x = mid_attention(b, x, top);
    zb_scope(b, "decoder.mid_block.resnets.1");
    x = resnet(b, x, top, top);
    int prev = top;
    for (int i = 0; i < 4; i++) {
        int out = ch[3 - i];
        for (int j = 0; j < layers; j++) {
            zb_scope(b, "decoder.up_blocks.%d.resnets.%d", i, j);
            x = resnet(b, x, j ? out : prev, out);
        }
        prev = out;
        if (i < 3) {
            zb_scope(b, "decoder.up_blocks.%d.upsamplers.0", i);
            x = zb_node(b, OP_Upsample, "upsample", &x, 1);
            static const double sc[4] = {1, 1, 2, 2};
            graph_attr_floats(b->g, zb_last(b), "scales", sc, 4);
            graph_attr_string(b->g, zb_last(b), "mode", "nearest");
            x = zb_conv(b, x, "conv", out, out, 3, 1, 1, 1, true);
        }
    }
    zb_scope(b, "decoder");
    x = zb_act(b, zb_group_norm(b, x, "conv_norm_out", ch[0], 1e-6), OP_Silu);
    zb_output(b, zb_conv(b, x, "conv_out", ch[0], 3, 3, 1, 1, 1, true));
    return ST_OK;
}

const struct zoo_family zoo_fam_vae = {
    .name = "vae",
    .help = "VAE decoder of a latent diffusion pipeline (SD 1.5/2.1/XL, PixArt; SD3/FLUX)",
    .n_params = sizeof vae_params / sizeof vae_params[0],
    .params = vae_params,
    .build = vae_build,
};
