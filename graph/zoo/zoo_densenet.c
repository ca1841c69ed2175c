/* zoo_densenet.c - DenseNet-121/161/169/201 (torchvision.models.densenet) and
 * ConvNeXt tiny/small/base/large (torchvision.models.convnext). */
#include <stdio.h>
#include <string.h>

#include "graph/zoo/zoo_impl.h"

/* ---- DenseNet --------------------------------------------------------------- */

static const char *const densenet_names[] = {"densenet121", "densenet161", "densenet169",
                                             "densenet201", "custom"};
static const char *const densenet_presets[] = {
    "growth=32:blocks=6,12,24,16:init_features=64",
    "growth=48:blocks=6,12,36,24:init_features=96",
    "growth=32:blocks=6,12,32,32:init_features=64",
    "growth=32:blocks=6,12,48,32:init_features=64",
    ""};

static const struct zoo_param densenet_params[] = {
    {.name = "preset", .type = ZOO_PT_ENUM, .n_choices = 5, .choices = densenet_names,
     .presets = densenet_presets, .def = "densenet121",
     .help = "torchvision model to start from (sets growth, blocks, init_features)"},
    {.name = "growth", .type = ZOO_PT_INT, .min = 4, .max = 128, .smin = 12, .smax = 48,
     .def = "32", .help = "growth rate: channels each dense layer adds"},
    {.name = "blocks", .type = ZOO_PT_INTS, .n_items = 4, .min = 1, .max = 64, .smin = 2,
     .smax = 32, .def = "6,12,24,16", .help = "dense layers in each of the four dense blocks"},
    {.name = "init_features", .type = ZOO_PT_INT, .min = 8, .max = 256, .smin = 16, .smax = 128,
     .def = "64", .help = "channels of the 7x7 stem convolution"},
    {.name = "bn_size", .type = ZOO_PT_INT, .min = 1, .max = 8, .def = "4",
     .help = "bottleneck width of a dense layer, in multiples of growth"},
    {.name = "classes", .type = ZOO_PT_INT, .min = 1, .max = 100000, .smin = 2, .smax = 1000,
     .def = "1000", .help = "classifier outputs"},
    {.name = "resolution", .type = ZOO_PT_INT, .min = 32, .max = 2048, .smin = 96, .smax = 320,
     .def = "224", .help = "default of the height and width symbols"},
};

static enum status densenet_build(struct zoo_build *b, const struct zoo_args *a, struct diag *d)
{
    (void)d;
    int growth = zoo_arg_int(a, "growth"), bn_size = zoo_arg_int(a, "bn_size");
    const int *blocks = zoo_arg_ints(a, "blocks");
    int nf = zoo_arg_int(a, "init_features");
    int x = zb_image_input(b, 3, zoo_arg_int(a, "resolution"));
    zb_scope(b, "features");
    x = zb_conv(b, x, "conv0", 3, nf, 7, 2, 3, 1, false);
    x = zb_act(b, zb_bn(b, x, "norm0", nf), OP_Relu);
    x = zb_maxpool(b, x, 3, 2, 1);
    for (int s = 0; s < 4; s++) {
        /* feats[] holds the block input and every layer's new features */
        int feats[65], nfe = 0;
        feats[nfe++] = x;
        for (int l = 0; l < blocks[s]; l++) {
            zb_scope(b, "features.denseblock%d.denselayer%d", s + 1, l + 1);
            int cin = nf + l * growth;
            int y = nfe == 1 ? feats[0] : zb_concat(b, feats, nfe, 1);
            y = zb_act(b, zb_bn(b, y, "norm1", cin), OP_Relu);
            y = zb_conv(b, y, "conv1", cin, bn_size * growth, 1, 1, 0, 1, false);
            y = zb_act(b, zb_bn(b, y, "norm2", bn_size * growth), OP_Relu);
            y = zb_conv(b, y, "conv2", bn_size * growth, growth, 3, 1, 1, 1, false);
            feats[nfe++] = y;
        }
        zb_scope(b, "features.denseblock%d", s + 1);
        x = zb_concat(b, feats, nfe, 1);
        nf += blocks[s] * growth;
        if (s < 3) {
            zb_scope(b, "features.transition%d", s + 1);
            x = zb_act(b, zb_bn(b, x, "norm", nf), OP_Relu);
            x = zb_conv(b, x, "conv", nf, nf / 2, 1, 1, 0, 1, false);
            x = zb_avgpool(b, x, 2, 2);
            nf /= 2;
        }
    }
    zb_scope(b, "features");
    x = zb_act(b, zb_bn(b, x, "norm5", nf), OP_Relu);
    zb_scope(b, "%s", "");
    x = zb_flatten(b, zb_gap(b, x));
    zb_output(b, zb_gemm(b, x, "classifier", nf, zoo_arg_int(a, "classes"), true));
    /* conv0 and pool0 halve, three 2x2 transition pools need 8 pixels after them */
    zb_limit_image(b, 29, 0, 0, "the stem halves the image twice and three transitions pool it "
                   "2 x 2 again");
    return ST_OK;
}

const struct zoo_family zoo_fam_densenet = {
    .name = "densenet",
    .help = "DenseNet-121/161/169/201 or any growth rate and block sizes (torchvision)",
    .n_params = sizeof densenet_params / sizeof densenet_params[0],
    .params = densenet_params,
    .check = NULL,
    .build = densenet_build,
};

/* ---- ConvNeXt --------------------------------------------------------------- */

static const char *const convnext_names[] = {"tiny", "small", "base", "large", "custom"};
static const char *const convnext_presets[] = {
    "depths=3,3,9,3:dim=96", "depths=3,3,27,3:dim=96", "depths=3,3,27,3:dim=128",
    "depths=3,3,27,3:dim=192", ""};

static const struct zoo_param convnext_params[] = {
    {.name = "preset", .type = ZOO_PT_ENUM, .n_choices = 5, .choices = convnext_names,
     .presets = convnext_presets, .def = "tiny",
     .help = "convnext_tiny/small/base/large (sets depths and dim)"},
    {.name = "depths", .type = ZOO_PT_INTS, .n_items = 4, .min = 1, .max = 64, .smin = 1,
     .smax = 12, .def = "3,3,9,3", .help = "ConvNeXt blocks in each of the four stages"},
    {.name = "dim", .type = ZOO_PT_INT, .min = 8, .max = 512, .step = 8, .smin = 32, .smax = 192,
     .def = "96", .help = "channels of stage 1 (stages double it: dim, 2dim, 4dim, 8dim)"},
    {.name = "classes", .type = ZOO_PT_INT, .min = 1, .max = 100000, .smin = 2, .smax = 1000,
     .def = "1000", .help = "classifier outputs"},
    {.name = "resolution", .type = ZOO_PT_INT, .min = 32, .max = 2048, .smin = 96, .smax = 320,
     .def = "224", .help = "default of the height and width symbols"},
};

/* torchvision's LayerNorm2d: NCHW -> NHWC, LayerNorm over C, back. */
static int layernorm2d(struct zoo_build *b, int x, const char *local, int c)
{
    static const int64_t to_nhwc[4] = {0, 2, 3, 1}, to_nchw[4] = {0, 3, 1, 2};
    x = zb_transpose(b, x, to_nhwc, 4);
    x = zb_layernorm(b, x, local, c, 1e-6);
    return zb_transpose(b, x, to_nchw, 4);
}

static enum status convnext_build(struct zoo_build *b, const struct zoo_args *a, struct diag *d)
{
    (void)d;
    static const int64_t to_nhwc[4] = {0, 2, 3, 1}, to_nchw[4] = {0, 3, 1, 2};
    const int *depths = zoo_arg_ints(a, "depths");
    int dim = zoo_arg_int(a, "dim");
    int x = zb_image_input(b, 3, zoo_arg_int(a, "resolution"));
    zb_scope(b, "features.0");
    x = zb_conv(b, x, "0", 3, dim, 4, 4, 0, 1, true);
    x = layernorm2d(b, x, "1", dim);
    int c = dim;
    for (int s = 0; s < 4; s++) {
        for (int i = 0; i < depths[s]; i++) {
            zb_scope(b, "features.%d.%d", 2 * s + 1, i);
            int y = zb_conv(b, x, "block.0", c, c, 7, 1, 3, c, true);
            y = zb_transpose(b, y, to_nhwc, 4);
            y = zb_layernorm(b, y, "block.2", c, 1e-6);
            y = zb_linear(b, y, "block.3", c, 4 * c, true);
            y = zb_act(b, y, OP_Gelu);
            y = zb_linear(b, y, "block.5", 4 * c, c, true);
            y = zb_transpose(b, y, to_nchw, 4);
            const int64_t ls[3] = {c, 1, 1};
            y = zb_binary(b, OP_Mul, y, zb_weight(b, "layer_scale", 3, ls));
            x = zb_binary(b, OP_Add, y, x);
        }
        if (s < 3) {
            zb_scope(b, "features.%d", 2 * s + 2);
            x = layernorm2d(b, x, "0", c);
            x = zb_conv(b, x, "1", c, 2 * c, 2, 2, 0, 1, true);
            c *= 2;
        }
    }
    zb_scope(b, "%s", "classifier");
    x = zb_gap(b, x);
    x = layernorm2d(b, x, "0", c);
    x = zb_flatten(b, x);
    zb_output(b, zb_gemm(b, x, "2", c, zoo_arg_int(a, "classes"), true));
    zb_limit_image(b, 32, 0, 0, "the 4 x 4 stem and three 2 x 2 downsamplings need 32 pixels");
    return ST_OK;
}

const struct zoo_family zoo_fam_convnext = {
    .name = "convnext",
    .help = "ConvNeXt tiny/small/base/large or any stage depths and width (torchvision)",
    .n_params = sizeof convnext_params / sizeof convnext_params[0],
    .params = convnext_params,
    .preset_prefix = "convnext_",
    .check = NULL,
    .build = convnext_build,
};
