/* zoo_swin.c - Swin Transformer V1 (torchvision.models.swin_transformer).
 *
 * Window partition and reverse use only Reshape with 0 (copy) and -1
 * (infer) entries and Transposes, so the graph stays valid when the height
 * and width symbols change to other multiples of patch x 8 x window: windows
 * are kept as [B, H/ws, W/ws, ws*ws, C] (MatMul broadcasts over the window
 * grid) instead of being folded into the batch. The cyclic shift is
 * Slice + Concat as in the ONNX export; the shifted-window mask is computed
 * from the runtime shape (Shape, Range, Equal ...) once per stage. Not
 * modelled: padding of feature maps that are not window multiples (such
 * sizes are rejected instead).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "graph/zoo/zoo_impl.h"

static const char *const swin_names[] = {"t", "s", "b", "custom"};
static const char *const swin_presets[] = {
    "embed_dim=96:depths=2,2,6,2:heads=3,6,12,24",
    "embed_dim=96:depths=2,2,18,2:heads=3,6,12,24",
    "embed_dim=128:depths=2,2,18,2:heads=4,8,16,32",
    ""};

static const struct zoo_param swin_params[] = {
    {.name = "preset", .type = ZOO_PT_ENUM, .n_choices = 4, .choices = swin_names,
     .presets = swin_presets, .def = "t",
     .help = "swin_t, swin_s or swin_b (sets embed_dim, depths, heads)"},
    {.name = "embed_dim", .type = ZOO_PT_INT, .min = 16, .max = 512, .step = 16, .smin = 32,
     .smax = 192, .def = "96", .help = "channels of stage 1 (doubled at each patch merging)"},
    {.name = "depths", .type = ZOO_PT_INTS, .n_items = 4, .min = 1, .max = 48, .smin = 1,
     .smax = 8, .def = "2,2,6,2", .help = "Swin blocks in each of the four stages"},
    {.name = "heads", .type = ZOO_PT_INTS, .n_items = 4, .min = 1, .max = 64, .smin = 1,
     .smax = 32, .def = "3,6,12,24", .help = "attention heads per stage (divide its width)"},
    {.name = "window", .type = ZOO_PT_INT, .min = 2, .max = 16, .smin = 4, .smax = 8, .def = "7",
     .help = "attention window size (stage feature maps must be multiples)"},
    {.name = "patch", .type = ZOO_PT_INT, .min = 1, .max = 16, .smin = 2, .smax = 4, .def = "4",
     .help = "patch size of the embedding convolution"},
    {.name = "mlp_ratio", .type = ZOO_PT_FLOAT, .min = 0.5, .max = 8, .smin = 2, .smax = 4,
     .def = "4", .help = "MLP width as a multiple of the stage width"},
    {.name = "classes", .type = ZOO_PT_INT, .min = 1, .max = 100000, .smin = 2, .smax = 1000,
     .def = "1000", .help = "classifier outputs"},
    {.name = "resolution", .type = ZOO_PT_INT, .min = 32, .max = 2048, .step = 32, .smin = 96,
     .smax = 448, .def = "224",
     .help = "default height and width (a multiple of patch x 8 x window)"},
};

static enum status swin_check(const struct zoo_args *a, struct diag *d)
{
    int dim = zoo_arg_int(a, "embed_dim"), ws = zoo_arg_int(a, "window");
    int patch = zoo_arg_int(a, "patch"), res = zoo_arg_int(a, "resolution");
    const int *heads = zoo_arg_ints(a, "heads");
    for (int s = 0; s < 4; s++)
        if ((dim << s) % heads[s])
            return diag_set(d, ST_ERANGE,
                            "zoo:swin: stage %d width %d (embed_dim=%d x %d) is not a multiple "
                            "of heads[%d]=%d",
                            s + 1, dim << s, dim, 1 << s, s, heads[s]);
    if (res % (patch * 8 * ws))
        return diag_set(d, ST_ERANGE,
                        "zoo:swin: resolution=%d is not a multiple of patch x 8 x window = %d "
                        "(every stage's feature map must tile into windows)",
                        res, patch * 8 * ws);
    return ST_OK;
}

/* torch.roll(x, shift, axis) for axis 1 and 2 of [B, H, W, C]. */
static int roll(struct zoo_build *b, int x, int64_t shift)
{
    for (int64_t axis = 1; axis <= 2; axis++) {
        /* roll by -s: x[s:] ++ x[:s]; roll by +s: x[-s:] ++ x[:-s] */
        int64_t k = -shift, e_all = ZB_SLICE_END, zero = 0;
        int hi = zb_slice(b, x, &k, &e_all, &axis, NULL, 1);
        int lo = zb_slice(b, x, &zero, &k, &axis, NULL, 1);
        int parts[2] = {hi, lo};
        x = zb_concat(b, parts, 2, (int)axis);
    }
    return x;
}

/* Region labels of one axis for the shifted-window mask: [n, ws] where only
 * the last window (index n - 1) is split into regions 1 (first ws - shift
 * positions) and 2 (the rest), as torchvision's h_slices/w_slices.
 * axis_len is the scalar length of the axis. */
static int axis_labels(struct zoo_build *b, int axis_len, int ws, int shift)
{
    int64_t one = 1, zero = 0, w = ws;
    int n = zb_binary(b, OP_Div, axis_len, zb_const_ints(b, &w, 1, true));
    int ri[3] = {zb_const_ints(b, &zero, 1, true), n, zb_const_ints(b, &one, 1, true)};
    int idx = zb_node(b, OP_Range, "range", ri, 3);
    int last = zb_binary(b, OP_Equal, idx, zb_binary(b, OP_Sub, n, ri[2]));
    last = zb_node(b, OP_Cast, "cast", &last, 1);
    graph_attr_int(b->g, zb_last(b), "to", DT_INT64);
    int64_t pattern[16];
    for (int i = 0; i < ws; i++)
        pattern[i] = i < ws - shift ? 1 : 2;
    static const int64_t ax1[1] = {1};
    int ui[2] = {last, zb_const_ints(b, ax1, 1, false)};
    last = zb_node(b, OP_Unsqueeze, "unsqueeze", ui, 2);
    return zb_binary(b, OP_Mul, last, zb_const_ints(b, pattern, ws, false));
}

static int unsqueeze(struct zoo_build *b, int x, const int64_t *axes, int n)
{
    int in[2] = {x, zb_const_ints(b, axes, n, false)};
    return zb_node(b, OP_Unsqueeze, "unsqueeze", in, 2);
}

/* torchvision's attention mask for shifted windows, built from the runtime
 * shape of x [B, H, W, C] so it follows the height and width symbols:
 * [H/ws, W/ws, 1, N, N] with -100 between tokens of different regions. */
static int shift_mask(struct zoo_build *b, int x, int ws, int shift)
{
    int shp = zb_node(b, OP_Shape, "mask.shape", &x, 1);
    int lh = axis_labels(b, zb_take(b, shp, 0, 1), ws, shift);
    int lw = axis_labels(b, zb_take(b, shp, 0, 2), ws, shift);
    static const int64_t ax13[2] = {1, 3}, ax02[2] = {0, 2}, ax2[1] = {2}, ax3[1] = {3};
    lh = zb_binary(b, OP_Mul, unsqueeze(b, lh, ax13, 2), zb_const_ints(b, (int64_t[]){3}, 1, true));
    int label = zb_binary(b, OP_Add, lh, unsqueeze(b, lw, ax02, 2)); /* [Hn, Wn, ws, ws] */
    const int64_t flat[3] = {0, 0, (int64_t)ws * ws};
    label = zb_reshape(b, label, flat, 3);
    int diff = zb_binary(b, OP_Sub, unsqueeze(b, label, ax3, 1), unsqueeze(b, label, ax2, 1));
    int64_t zero = 0;
    int same = zb_binary(b, OP_Equal, diff, zb_const_ints(b, &zero, 1, true));
    int wi[3] = {same, zb_const_float(b, 0.0), zb_const_float(b, -100.0)};
    int mask = zb_node(b, OP_Where, "mask", wi, 3);
    return unsqueeze(b, mask, ax2, 1);
}

static int window_attention(struct zoo_build *b, int x, int c, int heads, int ws, int shift,
                            int mask)
{
    int64_t n = (int64_t)ws * ws, hd = c / heads;
    if (shift)
        x = roll(b, x, -shift);
    /* [B, H, W, C] -> [B, H, W/ws, ws, C] -> [B, W/ws, ws, H, C]
     * -> [B, W/ws, ws, H/ws, ws, C] -> [B, H/ws, W/ws, ws, ws, C] -> [B, Hn, Wn, N, C] */
    const int64_t r1[5] = {0, 0, -1, ws, c}, p1[5] = {0, 2, 3, 1, 4};
    const int64_t r2[6] = {0, 0, 0, -1, ws, c}, p2[6] = {0, 3, 1, 4, 2, 5};
    const int64_t r3[5] = {0, 0, 0, n, c};
    x = zb_transpose(b, zb_reshape(b, x, r1, 5), p1, 5);
    x = zb_transpose(b, zb_reshape(b, x, r2, 6), p2, 6);
    x = zb_reshape(b, x, r3, 5);
    /* qkv -> [3, B, Hn, Wn, heads, N, hd] */
    int y = zb_linear(b, x, "attn.qkv", c, 3 * c, true);
    const int64_t r4[7] = {0, 0, 0, 0, 3, heads, hd}, p4[7] = {4, 0, 1, 2, 5, 3, 6};
    y = zb_transpose(b, zb_reshape(b, y, r4, 7), p4, 7);
    int q = zb_take(b, y, 0, 0), k = zb_take(b, y, 0, 1), v = zb_take(b, y, 0, 2);
    q = zb_binary(b, OP_Mul, q, zb_const_float(b, 1.0 / sqrt((double)hd)));
    static const int64_t pk[6] = {0, 1, 2, 3, 5, 4};
    int s = zb_binary(b, OP_MatMul, q, zb_transpose(b, k, pk, 6));
    /* relative position bias: table[index] -> [heads, N, N] */
    const int64_t td[2] = {(2 * ws - 1) * (2 * ws - 1), heads}, id[1] = {n * n};
    char key[32];
    snprintf(key, sizeof key, "relpos%d", ws);
    int gi[2] = {zb_weight(b, "attn.relative_position_bias_table", 2, td),
                 zb_const_nodata(b, key, 1, id)};
    int bias = zb_node(b, OP_Gather, "attn.relative_position_bias", gi, 2);
    const int64_t rb[3] = {n, n, heads}, pb[3] = {2, 0, 1};
    bias = zb_transpose(b, zb_reshape(b, bias, rb, 3), pb, 3);
    s = zb_binary(b, OP_Add, s, bias);
    if (mask >= 0)
        s = zb_binary(b, OP_Add, s, mask);
    s = zb_softmax(b, s, -1);
    y = zb_binary(b, OP_MatMul, s, v);
    static const int64_t pc[6] = {0, 1, 2, 4, 3, 5};
    const int64_t rc[5] = {0, 0, 0, 0, c};
    y = zb_reshape(b, zb_transpose(b, y, pc, 6), rc, 5);
    y = zb_linear(b, y, "attn.proj", c, c, true);
    /* reverse: [B, Hn, Wn, N, C] -> [B, Hn, Wn, ws, ws, C] -> [B, Wn, ws, Hn, ws, C]
     * -> [B, Wn, ws, H, C] -> [B, H, Wn, ws, C] -> [B, H, W, C] */
    const int64_t r5[6] = {0, 0, 0, ws, ws, c}, p5[6] = {0, 2, 4, 1, 3, 5};
    const int64_t r6[5] = {0, 0, 0, -1, c}, p6[5] = {0, 3, 1, 2, 4};
    const int64_t r7[4] = {0, 0, -1, c};
    y = zb_transpose(b, zb_reshape(b, y, r5, 6), p5, 6);
    y = zb_transpose(b, zb_reshape(b, y, r6, 5), p6, 5);
    y = zb_reshape(b, y, r7, 4);
    if (shift)
        y = roll(b, y, shift);
    return y;
}

static int patch_merging(struct zoo_build *b, int x, int c)
{
    static const int64_t axes[2] = {1, 2}, steps[2] = {2, 2};
    static const int64_t ends[2] = {ZB_SLICE_END, ZB_SLICE_END};
    static const int64_t starts[4][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}};
    int parts[4];
    for (int i = 0; i < 4; i++)
        parts[i] = zb_slice(b, x, starts[i], ends, axes, steps, 2);
    x = zb_concat(b, parts, 4, -1);
    x = zb_layernorm(b, x, "norm", 4 * c, 1e-5);
    return zb_linear(b, x, "reduction", 4 * c, 2 * c, false);
}

static enum status swin_build(struct zoo_build *b, const struct zoo_args *a, struct diag *d)
{
    (void)d;
    int c = zoo_arg_int(a, "embed_dim"), ws = zoo_arg_int(a, "window");
    int patch = zoo_arg_int(a, "patch"), res = zoo_arg_int(a, "resolution");
    const int *depths = zoo_arg_ints(a, "depths"), *heads = zoo_arg_ints(a, "heads");
    double ratio = zoo_arg_float(a, "mlp_ratio");
    static const int64_t to_nhwc[4] = {0, 2, 3, 1}, to_nchw[4] = {0, 3, 1, 2};
    int x = zb_image_input(b, 3, res);
    zb_scope(b, "features.0");
    x = zb_conv(b, x, "0", 3, c, patch, patch, 0, 1, true);
    x = zb_transpose(b, x, to_nhwc, 4);
    x = zb_layernorm(b, x, "2", c, 1e-5);
    int feat = res / patch;
    for (int s = 0; s < 4; s++) {
        int hidden = (int)(c * ratio), mask = -1;
        for (int i = 0; i < depths[s]; i++) {
            zb_scope(b, "features.%d.%d", 2 * s + 1, i);
            /* torchvision: no shift when the window covers the whole map */
            int shift = (i % 2 && ws < feat) ? ws / 2 : 0;
            if (shift && mask < 0)
                mask = shift_mask(b, x, ws, shift); /* shared by the stage's shifted blocks */
            int y = zb_layernorm(b, x, "norm1", c, 1e-5);
            y = window_attention(b, y, c, heads[s], ws, shift, shift ? mask : -1);
            x = zb_binary(b, OP_Add, x, y);
            y = zb_layernorm(b, x, "norm2", c, 1e-5);
            y = zb_act(b, zb_linear(b, y, "mlp.0", c, hidden, true), OP_Gelu);
            y = zb_linear(b, y, "mlp.3", hidden, c, true);
            x = zb_binary(b, OP_Add, x, y);
        }
        if (s < 3) {
            zb_scope(b, "features.%d", 2 * s + 2);
            x = patch_merging(b, x, c);
            c *= 2;
            feat /= 2;
        }
    }
    zb_scope(b, "%s", "");
    x = zb_layernorm(b, x, "norm", c, 1e-5);
    x = zb_transpose(b, x, to_nchw, 4);
    x = zb_flatten(b, zb_gap(b, x));
    zb_output(b, zb_gemm(b, x, "head", c, zoo_arg_int(a, "classes"), true));
    char why[160];
    snprintf(why, sizeof why, "windows of %d x %d patches at every stage need multiples of patch "
             "x 8 x window (patch=%d, window=%d; padding is not modelled)", ws, ws, patch, ws);
    zb_limit_image(b, 0, 0, (int64_t)patch * 8 * ws, why);
    return ST_OK;
}

const struct zoo_family zoo_fam_swin = {
    .name = "swin",
    .help = "Swin Transformer: shifted-window attention, patch merging (torchvision swin_t/s/b)",
    .n_params = sizeof swin_params / sizeof swin_params[0],
    .params = swin_params,
    .preset_prefix = "swin_",
    .check = swin_check,
    .build = swin_build,
};
