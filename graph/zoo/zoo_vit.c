/* zoo_vit.c - Vision Transformer (torchvision.models.vision_transformer). */
#include <stdio.h>
#include <string.h>

#include "graph/zoo/zoo_impl.h"

static const char *const vit_names[] = {"b_16", "b_32", "l_16", "l_32", "h_14", "custom"};
static const char *const vit_presets[] = {
    "patch=16:dim=768:depth=12:heads=12:mlp_ratio=4",
    "patch=32:dim=768:depth=12:heads=12:mlp_ratio=4",
    "patch=16:dim=1024:depth=24:heads=16:mlp_ratio=4",
    "patch=32:dim=1024:depth=24:heads=16:mlp_ratio=4",
    "patch=14:dim=1280:depth=32:heads=16:mlp_ratio=4",
    ""};

static const struct zoo_param vit_params[] = {
    {.name = "preset", .type = ZOO_PT_ENUM, .n_choices = 6, .choices = vit_names,
     .presets = vit_presets, .def = "b_16",
     .help = "torchvision vit_b_16 ... vit_h_14 (sets patch, dim, depth, heads, mlp_ratio)"},
    {.name = "patch", .type = ZOO_PT_INT, .min = 2, .max = 64, .smin = 8, .smax = 32,
     .def = "16", .help = "patch size in pixels (image must be a multiple)"},
    {.name = "dim", .type = ZOO_PT_INT, .min = 32, .max = 4096, .step = 32, .smin = 128,
     .smax = 1024, .def = "768", .help = "embedding width (a multiple of heads)"},
    {.name = "depth", .type = ZOO_PT_INT, .min = 1, .max = 64, .smin = 2, .smax = 24,
     .def = "12", .help = "encoder layers"},
    {.name = "heads", .type = ZOO_PT_INT, .min = 1, .max = 64, .smin = 2, .smax = 16,
     .def = "12", .help = "attention heads (must divide dim)"},
    {.name = "mlp_ratio", .type = ZOO_PT_FLOAT, .min = 0.5, .max = 8, .smin = 2, .smax = 4,
     .def = "4", .help = "MLP width as a multiple of dim"},
    {.name = "image", .type = ZOO_PT_INT, .min = 32, .max = 1024, .smin = 96, .smax = 384,
     .def = "224", .help = "image size the position embedding is made for (height = width)"},
    {.name = "classes", .type = ZOO_PT_INT, .min = 1, .max = 100000, .smin = 2, .smax = 1000,
     .def = "1000", .help = "classifier outputs"},
};

static enum status vit_check(const struct zoo_args *a, struct diag *d)
{
    enum status st = zoo_check_multiple(a, "vit", "dim", "heads", d);
    return st ? st : zoo_check_multiple(a, "vit", "image", "patch", d);
}

static enum status vit_build(struct zoo_build *b, const struct zoo_args *a, struct diag *d)
{
    (void)d;
    int patch = zoo_arg_int(a, "patch"), dim = zoo_arg_int(a, "dim");
    int depth = zoo_arg_int(a, "depth"), heads = zoo_arg_int(a, "heads");
    int image = zoo_arg_int(a, "image");
    int mlp = (int)(dim * zoo_arg_float(a, "mlp_ratio"));
    int64_t n = (int64_t)(image / patch) * (image / patch);
    int x = zb_image_input(b, 3, image);
    x = zb_conv(b, x, "conv_proj", 3, dim, patch, patch, 0, 1, true);
    const int64_t flat[3] = {0, dim, -1};
    static const int64_t perm[3] = {0, 2, 1};
    x = zb_transpose(b, zb_reshape(b, x, flat, 3), perm, 3);
    /* class token broadcast to the batch: Shape -> Gather -> Concat -> Expand */
    const int64_t cd[3] = {1, 1, dim}, zero = 0, ones[2] = {1, 1};
    int cls = zb_weight(b, "class_token", 3, cd);
    int shp = zb_node(b, OP_Shape, "shape", &x, 1);
    int gi[2] = {shp, zb_const_ints(b, &zero, 1, false)};
    int bdim = zb_node(b, OP_Gather, "batch", gi, 2);
    graph_attr_int(b->g, zb_last(b), "axis", 0);
    int parts[2] = {bdim, zb_const_ints(b, ones, 2, false)};
    int eshape = zb_concat(b, parts, 2, 0);
    int ei[2] = {cls, eshape};
    int cls_b = zb_node(b, OP_Expand, "class_token.expand", ei, 2);
    int cat[2] = {cls_b, x};
    x = zb_concat(b, cat, 2, 1);
    zb_scope(b, "encoder");
    const int64_t pd[3] = {1, n + 1, dim};
    x = zb_binary(b, OP_Add, x, zb_weight(b, "pos_embedding", 3, pd));
    for (int l = 0; l < depth; l++) {
        zb_scope(b, "encoder.layers.encoder_layer_%d", l);
        int y = zb_layernorm(b, x, "ln_1", dim, 1e-6);
        y = zb_attention(b, y, dim, heads, "self_attention.in_proj", -1, -1, -1, -1, NULL, NULL);
        y = zb_linear(b, y, "self_attention.out_proj", dim, dim, true);
        x = zb_binary(b, OP_Add, y, x);
        y = zb_layernorm(b, x, "ln_2", dim, 1e-6);
        y = zb_act(b, zb_linear(b, y, "mlp.0", dim, mlp, true), OP_Gelu);
        y = zb_linear(b, y, "mlp.3", mlp, dim, true);
        x = zb_binary(b, OP_Add, y, x);
    }
    zb_scope(b, "encoder");
    x = zb_layernorm(b, x, "ln", dim, 1e-6);
    zb_scope(b, "%s", "");
    x = zb_take(b, x, 1, 0);
    zb_output(b, zb_gemm(b, x, "heads.head", dim, zoo_arg_int(a, "classes"), true));
    char why[160];
    snprintf(why, sizeof why, "the model's %lld position embeddings are made for %d x %d patches "
             "of %d pixels (set image instead)", (long long)n + 1, image / patch, image / patch,
             patch);
    zb_limit_image(b, image, image, 0, why);
    return ST_OK;
}

const struct zoo_family zoo_fam_vit = {
    .name = "vit",
    .help = "Vision Transformer: patch embedding, class token, pre-norm encoder (torchvision)",
    .n_params = sizeof vit_params / sizeof vit_params[0],
    .params = vit_params,
    .preset_prefix = "vit_",
    .check = vit_check,
    .build = vit_build,
};
