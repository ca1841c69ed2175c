/* zoo_mobilenet.c - MobileNetV2, MobileNetV3 (large/small) and EfficientNet
 * B0-B7, following torchvision.models.{mobilenetv2,mobilenetv3,efficientnet}. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "graph/zoo/zoo_impl.h"

#define CLASSES_PARAM                                                                     \
    {.name = "classes", .type = ZOO_PT_INT, .min = 1, .max = 100000, .smin = 2, .smax = 1000, \
     .def = "1000", .help = "classifier outputs"}

/* Conv + BN (+ activation unless act is OP__UNKNOWN): torchvision's Conv2dNormActivation. */
static int cba(struct zoo_build *b, int x, const char *conv, const char *bn, int cin, int cout,
               int k, int stride, int groups, enum op act)
{
    x = zb_conv(b, x, conv, cin, cout, k, stride, (k - 1) / 2, groups, false);
    x = zb_bn(b, x, bn, cout);
    return act != OP__UNKNOWN ? zb_act(b, x, act) : x;
}

/* ---- MobileNetV2 ------------------------------------------------------------ */

static const struct zoo_param mbv2_params[] = {
    {.name = "width", .type = ZOO_PT_FLOAT, .min = 0.1, .max = 3, .smin = 0.35, .smax = 1.4,
     .def = "1", .help = "width multiplier of every layer (channels rounded to multiples of 8)"},
    CLASSES_PARAM,
    {.name = "resolution", .type = ZOO_PT_INT, .min = 32, .max = 2048, .smin = 96, .smax = 320,
     .def = "224", .help = "default of the height and width symbols"},
};

static enum status mbv2_build(struct zoo_build *b, const struct zoo_args *a, struct diag *d)
{
    (void)d;
    static const int cfg[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
                                  {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
    double w = zoo_arg_float(a, "width");
    int cin = zoo_make_divisible(32 * w, 8);
    int last = zoo_make_divisible(1280 * (w > 1 ? w : 1), 8);
    int x = zb_image_input(b, 3, zoo_arg_int(a, "resolution"));
    zb_scope(b, "features.0");
    x = cba(b, x, "0", "1", 3, cin, 3, 2, 1, OP_Relu6);
    int idx = 1;
    for (int s = 0; s < 7; s++) {
        int cout = zoo_make_divisible(cfg[s][1] * w, 8);
        for (int i = 0; i < cfg[s][2]; i++, idx++) {
            zb_scope(b, "features.%d", idx);
            int stride = i == 0 ? cfg[s][3] : 1;
            int hidden = (int)lround(cin * (double)cfg[s][0]);
            int y = x;
            if (cfg[s][0] != 1)
                y = cba(b, y, "conv.0.0", "conv.0.1", cin, hidden, 1, 1, 1, OP_Relu6);
            y = cba(b, y, "conv.1.0", "conv.1.1", hidden, hidden, 3, stride, hidden, OP_Relu6);
            y = cba(b, y, "conv.2", "conv.3", hidden, cout, 1, 1, 1, OP__UNKNOWN);
            x = (stride == 1 && cin == cout) ? zb_binary(b, OP_Add, x, y) : y;
            cin = cout;
        }
    }
    zb_scope(b, "features.%d", idx);
    x = cba(b, x, "0", "1", cin, last, 1, 1, 1, OP_Relu6);
    zb_scope(b, "%s", "");
    x = zb_flatten(b, zb_gap(b, x));
    zb_output(b, zb_gemm(b, x, "classifier.1", last, zoo_arg_int(a, "classes"), true));
    return ST_OK;
}

const struct zoo_family zoo_fam_mobilenet_v2 = {
    .name = "mobilenet_v2",
    .help = "MobileNetV2 inverted residuals with a width multiplier (torchvision)",
    .n_params = sizeof mbv2_params / sizeof mbv2_params[0],
    .params = mbv2_params,
    .check = NULL,
    .build = mbv2_build,
};

/* ---- MobileNetV3 ------------------------------------------------------------ */

static const char *const mbv3_variants[] = {"large", "small"};

static const struct zoo_param mbv3_params[] = {
    {.name = "variant", .type = ZOO_PT_ENUM, .n_choices = 2, .choices = mbv3_variants,
     .def = "large", .help = "MobileNetV3-Large or -Small block table"},
    {.name = "width", .type = ZOO_PT_FLOAT, .min = 0.1, .max = 3, .smin = 0.35, .smax = 1.4,
     .def = "1", .help = "width multiplier of every block (channels rounded to multiples of 8)"},
    CLASSES_PARAM,
    {.name = "resolution", .type = ZOO_PT_INT, .min = 32, .max = 2048, .smin = 96, .smax = 320,
     .def = "224", .help = "default of the height and width symbols"},
};

/* in, kernel, expanded, out, se, hardswish, stride */
static const int mbv3_large[15][7] = {
    {16, 3, 16, 16, 0, 0, 1},    {16, 3, 64, 24, 0, 0, 2},    {24, 3, 72, 24, 0, 0, 1},
    {24, 5, 72, 40, 1, 0, 2},    {40, 5, 120, 40, 1, 0, 1},   {40, 5, 120, 40, 1, 0, 1},
    {40, 3, 240, 80, 0, 1, 2},   {80, 3, 200, 80, 0, 1, 1},   {80, 3, 184, 80, 0, 1, 1},
    {80, 3, 184, 80, 0, 1, 1},   {80, 3, 480, 112, 1, 1, 1},  {112, 3, 672, 112, 1, 1, 1},
    {112, 5, 672, 160, 1, 1, 2}, {160, 5, 960, 160, 1, 1, 1}, {160, 5, 960, 160, 1, 1, 1}};
static const int mbv3_small[11][7] = {
    {16, 3, 16, 16, 1, 0, 2},  {16, 3, 72, 24, 0, 0, 2},   {24, 3, 88, 24, 0, 0, 1},
    {24, 5, 96, 40, 1, 1, 2},  {40, 5, 240, 40, 1, 1, 1},  {40, 5, 240, 40, 1, 1, 1},
    {40, 5, 120, 48, 1, 1, 1}, {48, 5, 144, 48, 1, 1, 1},  {48, 5, 288, 96, 1, 1, 2},
    {96, 5, 576, 96, 1, 1, 1}, {96, 5, 576, 96, 1, 1, 1}};

static enum status mbv3_build(struct zoo_build *b, const struct zoo_args *a, struct diag *d)
{
    (void)d;
    bool large = strcmp(zoo_arg_enum(a, "variant"), "large") == 0;
    const int(*cfg)[7] = large ? mbv3_large : mbv3_small;
    int n = large ? 15 : 11;
    double w = zoo_arg_float(a, "width");
    int x = zb_image_input(b, 3, zoo_arg_int(a, "resolution"));
    int cin = zoo_make_divisible(cfg[0][0] * w, 8);
    zb_scope(b, "features.0");
    x = cba(b, x, "0", "1", 3, cin, 3, 2, 1, OP_HardSwish);
    for (int i = 0; i < n; i++) {
        zb_scope(b, "features.%d", i + 1);
        int k = cfg[i][1], exp = zoo_make_divisible(cfg[i][2] * w, 8);
        int cout = zoo_make_divisible(cfg[i][3] * w, 8), stride = cfg[i][6];
        enum op act = cfg[i][5] ? OP_HardSwish : OP_Relu;
        int y = x, li = 0;
        char cn[32], bn[32];
        if (exp != cin) {
            y = cba(b, y, "block.0.0", "block.0.1", cin, exp, 1, 1, 1, act);
            li++;
        }
        snprintf(cn, sizeof cn, "block.%d.0", li);
        snprintf(bn, sizeof bn, "block.%d.1", li++);
        y = cba(b, y, cn, bn, exp, exp, k, stride, exp, act);
        if (cfg[i][4]) {
            zb_scope(b, "features.%d.block.%d", i + 1, li++);
            y = zb_se(b, y, exp, zoo_make_divisible(exp / 4, 8), OP_Relu, OP_HardSigmoid);
            zb_scope(b, "features.%d", i + 1);
        }
        snprintf(cn, sizeof cn, "block.%d.0", li);
        snprintf(bn, sizeof bn, "block.%d.1", li);
        y = cba(b, y, cn, bn, exp, cout, 1, 1, 1, OP__UNKNOWN);
        x = (stride == 1 && cin == cout) ? zb_binary(b, OP_Add, x, y) : y;
        cin = cout;
    }
    int lastconv = 6 * cin;
    int last = zoo_make_divisible((large ? 1280 : 1024) * w, 8);
    zb_scope(b, "features.%d", n + 1);
    x = cba(b, x, "0", "1", cin, lastconv, 1, 1, 1, OP_HardSwish);
    zb_scope(b, "%s", "classifier");
    x = zb_flatten(b, zb_gap(b, x));
    x = zb_act(b, zb_gemm(b, x, "0", lastconv, last, true), OP_HardSwish);
    zb_output(b, zb_gemm(b, x, "3", last, zoo_arg_int(a, "classes"), true));
    return ST_OK;
}

static void mbv3_name(const struct zoo_args *a, char *buf, size_t size)
{
    snprintf(buf, size, "mobilenet_v3_%s", zoo_arg_enum(a, "variant"));
}

const struct zoo_family zoo_fam_mobilenet_v3 = {
    .name = "mobilenet_v3",
    .help = "MobileNetV3 large/small with SE and hard-swish, width multiplier (torchvision)",
    .n_params = sizeof mbv3_params / sizeof mbv3_params[0],
    .params = mbv3_params,
    .name_fn = mbv3_name,
    .check = NULL,
    .build = mbv3_build,
};

/* ---- EfficientNet ----------------------------------------------------------- */

static const char *const effnet_names[] = {"b0", "b1", "b2", "b3", "b4",
                                           "b5", "b6", "b7", "custom"};
static const char *const effnet_presets[] = {
    "width_mult=1:depth_mult=1:resolution=224",     "width_mult=1:depth_mult=1.1:resolution=240",
    "width_mult=1.1:depth_mult=1.2:resolution=288", "width_mult=1.2:depth_mult=1.4:resolution=300",
    "width_mult=1.4:depth_mult=1.8:resolution=380", "width_mult=1.6:depth_mult=2.2:resolution=456",
    "width_mult=1.8:depth_mult=2.6:resolution=528", "width_mult=2:depth_mult=3.1:resolution=600",
    ""};

static const struct zoo_param effnet_params[] = {
    {.name = "variant", .type = ZOO_PT_ENUM, .n_choices = 9, .choices = effnet_names,
     .presets = effnet_presets, .def = "b0",
     .help = "compound-scaling preset B0-B7 (sets width_mult, depth_mult, resolution)"},
    {.name = "width_mult", .type = ZOO_PT_FLOAT, .min = 0.25, .max = 4, .smin = 0.5, .smax = 2,
     .def = "1", .help = "channel multiplier (phi-scaled width coefficient)"},
    {.name = "depth_mult", .type = ZOO_PT_FLOAT, .min = 0.25, .max = 5, .smin = 0.5, .smax = 3.1,
     .def = "1", .help = "layer-count multiplier per stage (rounded up)"},
    CLASSES_PARAM,
    {.name = "resolution", .type = ZOO_PT_INT, .min = 32, .max = 2048, .smin = 96, .smax = 384,
     .def = "224", .help = "default of the height and width symbols"},
};

static enum status effnet_build(struct zoo_build *b, const struct zoo_args *a, struct diag *d)
{
    (void)d;
    /* expand ratio, kernel, stride, in, out, layers */
    static const int cfg[7][6] = {{1, 3, 1, 32, 16, 1},   {6, 3, 2, 16, 24, 2},
                                  {6, 5, 2, 24, 40, 2},   {6, 3, 2, 40, 80, 3},
                                  {6, 5, 1, 80, 112, 3},  {6, 5, 2, 112, 192, 4},
                                  {6, 3, 1, 192, 320, 1}};
    double wm = zoo_arg_float(a, "width_mult"), dm = zoo_arg_float(a, "depth_mult");
    int x = zb_image_input(b, 3, zoo_arg_int(a, "resolution"));
    int cin = zoo_make_divisible(cfg[0][3] * wm, 8);
    zb_scope(b, "features.0");
    x = cba(b, x, "0", "1", 3, cin, 3, 2, 1, OP_Silu);
    for (int s = 0; s < 7; s++) {
        int cout = zoo_make_divisible(cfg[s][4] * wm, 8);
        int layers = (int)ceil(cfg[s][5] * dm); /* math.ceil(n * d), as torchvision */
        for (int i = 0; i < layers; i++) {
            zb_scope(b, "features.%d.%d", s + 1, i);
            int stride = i == 0 ? cfg[s][2] : 1, k = cfg[s][1];
            int exp = zoo_make_divisible(cin * (double)cfg[s][0], 8);
            int y = x, li = 0;
            char cn[32], bn[32];
            if (exp != cin) {
                y = cba(b, y, "block.0.0", "block.0.1", cin, exp, 1, 1, 1, OP_Silu);
                li++;
            }
            snprintf(cn, sizeof cn, "block.%d.0", li);
            snprintf(bn, sizeof bn, "block.%d.1", li++);
            y = cba(b, y, cn, bn, exp, exp, k, stride, exp, OP_Silu);
            zb_scope(b, "features.%d.%d.block.%d", s + 1, i, li++);
            y = zb_se(b, y, exp, cin / 4 > 1 ? cin / 4 : 1, OP_Silu, OP_Sigmoid);
            zb_scope(b, "features.%d.%d", s + 1, i);
            snprintf(cn, sizeof cn, "block.%d.0", li);
            snprintf(bn, sizeof bn, "block.%d.1", li);
            y = cba(b, y, cn, bn, exp, cout, 1, 1, 1, OP__UNKNOWN);
            x = (stride == 1 && cin == cout) ? zb_binary(b, OP_Add, x, y) : y;
            cin = cout;
        }
    }
    int last = 4 * cin;
    zb_scope(b, "features.8");
    x = cba(b, x, "0", "1", cin, last, 1, 1, 1, OP_Silu);
    zb_scope(b, "%s", "");
    x = zb_flatten(b, zb_gap(b, x));
    zb_output(b, zb_gemm(b, x, "classifier.1", last, zoo_arg_int(a, "classes"), true));
    return ST_OK;
}

const struct zoo_family zoo_fam_efficientnet = {
    .name = "efficientnet",
    .help = "EfficientNet B0-B7 compound scaling of MBConv + SE blocks (torchvision)",
    .n_params = sizeof effnet_params / sizeof effnet_params[0],
    .params = effnet_params,
    .preset_prefix = "efficientnet_",
    .check = NULL,
    .build = effnet_build,
};
