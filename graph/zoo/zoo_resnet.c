/* zoo_resnet.c - ResNet, ResNeXt and Wide ResNet (torchvision.models.resnet)
 * with optional squeeze-and-excitation, and VGG (torchvision.models.vgg). */
#include <stdio.h>
#include <string.h>

#include "graph/zoo/zoo_impl.h"

/* ---- ResNet ---------------------------------------------------------------- */

static const char *const resnet_presets_names[] = {
    "resnet18", "resnet34", "resnet50", "resnet101", "resnet152", "resnext50_32x4d",
    "resnext101_32x8d", "resnext101_64x4d", "wide_resnet50_2", "wide_resnet101_2", "custom"};
static const char *const resnet_presets[] = {
    "depth=18:groups=1:width_per_group=64:width=1:se=0",
    "depth=34:groups=1:width_per_group=64:width=1:se=0",
    "depth=50:groups=1:width_per_group=64:width=1:se=0",
    "depth=101:groups=1:width_per_group=64:width=1:se=0",
    "depth=152:groups=1:width_per_group=64:width=1:se=0",
    "depth=50:groups=32:width_per_group=4:width=1:se=0",
    "depth=101:groups=32:width_per_group=8:width=1:se=0",
    "depth=101:groups=64:width_per_group=4:width=1:se=0",
    "depth=50:groups=1:width_per_group=128:width=1:se=0",
    "depth=101:groups=1:width_per_group=128:width=1:se=0",
    ""};
static const char *const resnet_depths[] = {"18", "34", "50", "101", "152"};

static const struct zoo_param resnet_params[] = {
    {.name = "preset", .type = ZOO_PT_ENUM, .n_choices = 11, .choices = resnet_presets_names,
     .presets = resnet_presets, .def = "resnet50",
     .help = "torchvision model to start from (sets depth, groups, width_per_group)"},
    {.name = "depth", .type = ZOO_PT_INT, .n_choices = 5, .choices = resnet_depths, .def = "50",
     .help = "layers: 18/34 use basic blocks, 50/101/152 bottleneck blocks"},
    {.name = "width", .type = ZOO_PT_FLOAT, .min = 0.25, .max = 4, .smin = 0.25, .smax = 2,
     .def = "1",
     .help = "channel multiplier of the stem and every stage (rounded to multiples of 8)"},
    {.name = "groups", .type = ZOO_PT_INT, .min = 1, .max = 64, .smin = 1, .smax = 32, .def = "1",
     .help = "ResNeXt cardinality: groups of the 3x3 bottleneck convolution"},
    {.name = "width_per_group", .type = ZOO_PT_INT, .min = 1, .max = 256, .smin = 4, .smax = 128,
     .def = "64", .help = "bottleneck width per group (64 = ResNet, 128 = Wide ResNet-2)"},
    {.name = "se", .type = ZOO_PT_INT, .min = 0, .max = 1, .def = "0",
     .help = "1 = squeeze-and-excitation (reduction 16) on every block (SE-ResNet)"},
    {.name = "classes", .type = ZOO_PT_INT, .min = 1, .max = 100000, .smin = 2, .smax = 1000,
     .def = "1000", .help = "classifier outputs"},
    {.name = "resolution", .type = ZOO_PT_INT, .min = 32, .max = 2048, .smin = 96, .smax = 320,
     .def = "224", .help = "default of the height and width symbols"},
};

static enum status resnet_check(const struct zoo_args *a, struct diag *d)
{
    int depth = zoo_arg_int(a, "depth");
    if (depth < 50 && (zoo_arg_int(a, "groups") != 1 || zoo_arg_int(a, "width_per_group") != 64))
        return diag_set(d, ST_ERANGE,
                        "zoo:resnet: depth=%d uses basic blocks, which need groups=1 and "
                        "width_per_group=64 (ResNeXt/Wide variants need depth 50, 101 or 152)",
                        depth);
    if (zoo_arg_int(a, "groups") * zoo_arg_int(a, "width_per_group") * zoo_arg_float(a, "width") >
        16384)
        return diag_set(d, ST_ERANGE,
                        "zoo:resnet: groups x width_per_group x width must be at most 16384");
    return ST_OK;
}

static int scale_ch(int c, double w)
{
    return zoo_make_divisible(c * w, 8);
}

static enum status resnet_build(struct zoo_build *b, const struct zoo_args *a, struct diag *d)
{
    (void)d;
    int depth = zoo_arg_int(a, "depth"), groups = zoo_arg_int(a, "groups");
    int wpg = zoo_arg_int(a, "width_per_group"), se = zoo_arg_int(a, "se");
    double w = zoo_arg_float(a, "width");
    int blocks[4];
    switch (depth) {
    case 18: memcpy(blocks, (int[]){2, 2, 2, 2}, sizeof blocks); break;
    case 34: memcpy(blocks, (int[]){3, 4, 6, 3}, sizeof blocks); break;
    case 50: memcpy(blocks, (int[]){3, 4, 6, 3}, sizeof blocks); break;
    case 101: memcpy(blocks, (int[]){3, 4, 23, 3}, sizeof blocks); break;
    default: memcpy(blocks, (int[]){3, 8, 36, 3}, sizeof blocks); break;
    }
    bool bottleneck = depth >= 50;
    int exp = bottleneck ? 4 : 1;
    int x = zb_image_input(b, 3, zoo_arg_int(a, "resolution"));
    int inplanes = scale_ch(64, w);
    x = zb_conv(b, x, "conv1", 3, inplanes, 7, 2, 3, 1, false);
    x = zb_bn(b, x, "bn1", inplanes);
    x = zb_act(b, x, OP_Relu);
    x = zb_maxpool(b, x, 3, 2, 1);
    for (int s = 0; s < 4; s++) {
        int planes = scale_ch(64 << s, w);
        for (int i = 0; i < blocks[s]; i++) {
            zb_scope(b, "layer%d.%d", s + 1, i);
            int stride = (s > 0 && i == 0) ? 2 : 1;
            int out = planes * exp, y;
            if (bottleneck) {
                int width = (int)(planes * (wpg / 64.0)) * groups;
                y = zb_conv(b, x, "conv1", inplanes, width, 1, 1, 0, 1, false);
                y = zb_act(b, zb_bn(b, y, "bn1", width), OP_Relu);
                y = zb_conv(b, y, "conv2", width, width, 3, stride, 1, groups, false);
                y = zb_act(b, zb_bn(b, y, "bn2", width), OP_Relu);
                y = zb_conv(b, y, "conv3", width, out, 1, 1, 0, 1, false);
                y = zb_bn(b, y, "bn3", out);
            } else {
                y = zb_conv(b, x, "conv1", inplanes, planes, 3, stride, 1, 1, false);
                y = zb_act(b, zb_bn(b, y, "bn1", planes), OP_Relu);
                y = zb_conv(b, y, "conv2", planes, planes, 3, 1, 1, 1, false);
                y = zb_bn(b, y, "bn2", planes);
            }
            if (se)
                y = zb_se(b, y, out, out / 16 > 0 ? out / 16 : 1, OP_Relu, OP_Sigmoid);
            int sc = x;
            if (stride != 1 || inplanes != out) {
                sc = zb_conv(b, x, "downsample.0", inplanes, out, 1, stride, 0, 1, false);
                sc = zb_bn(b, sc, "downsample.1", out);
            }
            x = zb_act(b, zb_binary(b, OP_Add, y, sc), OP_Relu);
            inplanes = out;
        }
    }
    zb_scope(b, "%s", "");
    x = zb_flatten(b, zb_gap(b, x));
    zb_output(b, zb_gemm(b, x, "fc", inplanes, zoo_arg_int(a, "classes"), true));
    return ST_OK;
}

const struct zoo_family zoo_fam_resnet = {
    .name = "resnet",
    .help = "ResNet-18..152, ResNeXt and Wide ResNet (torchvision), optional squeeze-excitation",
    .n_params = sizeof resnet_params / sizeof resnet_params[0],
    .params = resnet_params,
    .check = resnet_check,
    .build = resnet_build,
};

/* ---- VGG ------------------------------------------------------------------- */

static const char *const vgg_depths[] = {"11", "13", "16", "19"};

static const struct zoo_param vgg_params[] = {
    {.name = "depth", .type = ZOO_PT_INT, .n_choices = 4, .choices = vgg_depths, .def = "16",
     .help = "weight layers: 11 (A), 13 (B), 16 (D) or 19 (E)"},
    {.name = "bn", .type = ZOO_PT_INT, .min = 0, .max = 1, .def = "0",
     .help = "1 = batch normalisation after every convolution (vgg16_bn)"},
    {.name = "width", .type = ZOO_PT_FLOAT, .min = 0.125, .max = 2, .smin = 0.125, .smax = 1,
     .def = "1", .help = "multiplier of the convolution channels (rounded to multiples of 8)"},
    {.name = "hidden", .type = ZOO_PT_INT, .min = 16, .max = 16384, .smin = 256, .smax = 4096,
     .def = "4096", .help = "width of the two hidden classifier layers"},
    {.name = "classes", .type = ZOO_PT_INT, .min = 1, .max = 100000, .smin = 2, .smax = 1000,
     .def = "1000", .help = "classifier outputs"},
    {.name = "resolution", .type = ZOO_PT_INT, .min = 224, .max = 2240, .step = 224,
     .smin = 224, .smax = 672, .def = "224",
     .help = "input size: a multiple of 224, so the adaptive 7x7 pool is a plain average pool"},
};

static enum status vgg_build(struct zoo_build *b, const struct zoo_args *a, struct diag *d)
{
    (void)d;
    /* per stage: number of 3x3 convolutions; channels 64, 128, 256, 512, 512 */
    static const int cfg[4][5] = {
        {1, 1, 2, 2, 2}, {2, 2, 2, 2, 2}, {2, 2, 3, 3, 3}, {2, 2, 4, 4, 4}};
    int depth = zoo_arg_int(a, "depth"), bn = zoo_arg_int(a, "bn");
    int row = depth == 11 ? 0 : depth == 13 ? 1 : depth == 16 ? 2 : 3;
    double w = zoo_arg_float(a, "width");
    int res = zoo_arg_int(a, "resolution");
    int x = zb_image_input(b, 3, res), cin = 3, idx = 0;
    for (int s = 0; s < 5; s++) {
        int c = zoo_make_divisible((s < 4 ? 64 << s : 512) * w, 8);
        for (int k = 0; k < cfg[row][s]; k++) {
            char name[32];
            zb_scope(b, "features.%d", idx);
            snprintf(name, sizeof name, "conv");
            x = zb_conv(b, x, name, cin, c, 3, 1, 1, 1, true);
            if (bn)
                x = zb_bn(b, x, "bn", c);
            x = zb_act(b, x, OP_Relu);
            idx += bn ? 3 : 2;
            cin = c;
        }
        zb_scope(b, "features.%d", idx++);
        x = zb_maxpool(b, x, 2, 2, 0);
    }
    /* torchvision's AdaptiveAvgPool2d((7, 7)): the identity at 224 (the ONNX
     * export has no node), a k x k average pool at 224k */
    if (res > 224) {
        zb_scope(b, "%s", "avgpool");
        x = zb_avgpool(b, x, res / 224, res / 224);
    }
    zb_scope(b, "%s", "classifier");
    int hidden = zoo_arg_int(a, "hidden");
    x = zb_flatten(b, x);
    x = zb_act(b, zb_gemm(b, x, "fc1", cin * 7 * 7, hidden, true), OP_Relu);
    x = zb_act(b, zb_gemm(b, x, "fc2", hidden, hidden, true), OP_Relu);
    zb_output(b, zb_gemm(b, x, "fc3", hidden, zoo_arg_int(a, "classes"), true));
    /* the pool and the classifier are fixed: floor(size / 32 / k) must stay 7 */
    char why[160];
    snprintf(why, sizeof why, "the classifier takes the 7 x 7 features of resolution=%d (set "
             "resolution, a multiple of 224, instead)", res);
    zb_limit_image(b, res, res + 32 * (res / 224) - 1, 0, why);
    return ST_OK;
}

static void vgg_name(const struct zoo_args *a, char *buf, size_t size)
{
    snprintf(buf, size, "vgg%d%s", zoo_arg_int(a, "depth"), zoo_arg_int(a, "bn") ? "_bn" : "");
}

const struct zoo_family zoo_fam_vgg = {
    .name = "vgg",
    .help = "VGG-11/13/16/19 with or without batch norm (torchvision; input 224k x 224k)",
    .n_params = sizeof vgg_params / sizeof vgg_params[0],
    .params = vgg_params,
    .name_fn = vgg_name,
    .check = NULL,
    .build = vgg_build,
};
