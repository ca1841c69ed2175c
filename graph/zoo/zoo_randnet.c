/* zoo_randnet.c - random but valid architectures, as NAS benchmarks draw
 * them: a DAG of convolution, attention and MLP blocks whose kinds, widths,
 * strides, activations and skip connections come from the `arch` seed.
 * The same parameters always build the same graph. */
#include <stdio.h>

#include "graph/zoo/zoo_impl.h"

static const char *const rn_styles[] = {"conv", "transformer", "hybrid", "mlp"};
enum { RN_CONV, RN_TRANSFORMER, RN_HYBRID, RN_MLP };

static const struct zoo_param rn_params[] = {
    {.name = "arch", .type = ZOO_PT_INT, .min = 0, .max = 1000000000, .def = "1",
     .help = "structure seed: block kinds, widths, strides, activations and skips"},
    {.name = "style", .type = ZOO_PT_ENUM, .n_choices = 4, .choices = rn_styles, .def = "conv",
     .help = "conv (image CNN), transformer (token sequence), hybrid (conv stem + "
             "attention), mlp"},
    {.name = "blocks", .type = ZOO_PT_INT, .min = 1, .max = 64, .smin = 2, .smax = 20,
     .def = "8", .help = "blocks after the stem"},
    {.name = "width", .type = ZOO_PT_INT, .min = 8, .max = 4096, .step = 8, .smin = 16,
     .smax = 512, .def = "64", .help = "base width (channels, model dim or units)"},
    {.name = "image", .type = ZOO_PT_INT, .min = 32, .max = 1024, .step = 32, .smin = 32,
     .smax = 320, .def = "224", .help = "input image size (conv, hybrid)"},
    {.name = "seq", .type = ZOO_PT_INT, .min = 1, .max = 8192, .smin = 8, .smax = 1024,
     .def = "128", .help = "input tokens (transformer)"},
    {.name = "skip", .type = ZOO_PT_INT, .min = 0, .max = 100, .def = "40",
     .help = "percent chance that a block also takes an earlier block's output"},
    {.name = "classes", .type = ZOO_PT_INT, .min = 1, .max = 100000, .smin = 2, .smax = 1000,
     .def = "1000", .help = "outputs"},
};

struct rn {
    struct zoo_build *b;
    uint64_t s;
    int skip;
    int cmax;     /* widest conv block: 16 x width, at most 2048 */
    int n;        /* block outputs so far */
    int v[72];    /* output value */
    int c[72];    /* channels / width */
    int ds[72];   /* downsamplings (conv) */
};

static uint64_t rn_next(struct rn *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int rn_pick(struct rn *r, int n)
{
    return (int)(rn_next(r) % (uint64_t)n);
}

static enum op rn_act(struct rn *r)
{
    static const enum op acts[] = {OP_Relu, OP_Relu, OP_Gelu, OP_Silu, OP_HardSwish, OP_Relu6};
    return acts[rn_pick(r, 6)];
}

static int rn_round8(long v)
{
    v = (v + 4) / 8 * 8;
    return (int)(v < 8 ? 8 : v > 4096 ? 4096 : v);
}

static void rn_push(struct rn *r, int v, int c, int ds)
{
    r->v[r->n] = v;
    r->c[r->n] = c;
    r->ds[r->n] = ds;
    r->n++;
}

/* One convolution block on block output `in`: returns its output, with
 * *c and *ds updated. */
static int rn_conv_block(struct rn *r, int in, int *c, int *ds, int max_ds)
{
    struct zoo_build *b = r->b;
    int cin = *c, stride = *ds < max_ds && rn_pick(r, 4) == 0 ? 2 : 1;
    int mult[4] = {1, 1, 2, 1};
    int cout = rn_round8((long)cin * (stride == 2 ? 2 : mult[rn_pick(r, 4)]));
    if (cout > r->cmax)
        cout = cin > r->cmax ? cin : r->cmax;
    enum op act = rn_act(r);
    int y;
    switch (rn_pick(r, 4)) {
    case 0: { /* plain k x k conv */
        int k = 1 + 2 * rn_pick(r, 3);
        y = zb_act(b, zb_bn(b, zb_conv(b, in, "conv", cin, cout, k, stride, k / 2, 1, false),
                            "bn", cout), act);
        break;
    }
    case 1: /* depthwise-separable */
        y = zb_act(b, zb_bn(b, zb_conv(b, in, "dw", cin, cin, 3, stride, 1, cin, false), "bn1",
                            cin), act);
        y = zb_bn(b, zb_conv(b, y, "pw", cin, cout, 1, 1, 0, 1, false), "bn2", cout);
        break;
    case 2: { /* bottleneck */
        int mid = rn_round8(cout / 4);
        y = zb_act(b, zb_bn(b, zb_conv(b, in, "reduce", cin, mid, 1, 1, 0, 1, false), "bn1", mid),
                   act);
        y = zb_act(b, zb_bn(b, zb_conv(b, y, "conv", mid, mid, 3, stride, 1, 1, false), "bn2",
                            mid), act);
        y = zb_bn(b, zb_conv(b, y, "expand", mid, cout, 1, 1, 0, 1, false), "bn3", cout);
        break;
    }
    default: /* pooling, then a 1x1 projection */
        y = stride == 2 ? zb_maxpool(b, in, 3, 2, 1) : in;
        y = zb_act(b, zb_bn(b, zb_conv(b, y, "proj", cin, cout, 1, 1, 0, 1, false), "bn", cout),
                   act);
        break;
    }
    *c = cout;
    *ds += stride == 2;
    return y;
}

/* Skip from an earlier conv block j into y (channels c, downsamplings ds):
 * a strided 1x1 projection when shapes differ, then Add or Concat. */
static int rn_conv_skip(struct rn *r, int y, int *c, int ds)
{
    struct zoo_build *b = r->b;
    int j = rn_pick(r, r->n), x = r->v[j], cj = r->c[j];
    bool cat = rn_pick(r, 4) == 0 && *c + cj <= r->cmax;
    if (r->ds[j] != ds || (!cat && cj != *c)) {
        int cout = cat ? cj : *c;
        x = zb_bn(b, zb_conv(b, x, "skip", cj, cout, 1, 1 << (ds - r->ds[j]), 0, 1, false),
                  "skip_bn", cout);
        cj = cout;
    }
    if (!cat)
        return zb_binary(b, OP_Add, y, x);
    int xs[2] = {y, x};
    *c += cj;
    return zb_concat(b, xs, 2, 1);
}

/* One transformer-style block on [B, S, D]: attention, MLP or linear. */
static int rn_seq_block(struct rn *r, int in, int d)
{
    struct zoo_build *b = r->b;
    int y = zb_layernorm(b, in, "ln", d, 1e-5);
    switch (rn_pick(r, 3)) {
    case 0: {
        int heads[4] = {1, 2, 4, 8}, h = heads[rn_pick(r, 4)];
        y = zb_attention(b, y, d, h, rn_pick(r, 2) ? "qkv" : NULL, -1, -1, -1, -1, NULL, NULL);
        y = zb_linear(b, y, "proj", d, d, true);
        break;
    }
    case 1: {
        int hid = rn_round8((long)d * (1 + rn_pick(r, 4)));
        y = zb_act(b, zb_linear(b, y, "fc1", d, hid, true), rn_act(r));
        y = zb_linear(b, y, "fc2", hid, d, true);
        break;
    }
    default:
        y = zb_act(b, zb_linear(b, y, "fc", d, d, true), rn_act(r));
        break;
    }
    y = zb_binary(b, OP_Add, y, in);
    if (r->n > 1 && rn_pick(r, 100) < r->skip)
        y = zb_binary(b, OP_Add, y, r->v[rn_pick(r, r->n)]);
    return y;
}

static int rn_conv_trunk(struct rn *r, int x, int width, int blocks, int max_ds)
{
    struct zoo_build *b = r->b;
    zb_scope(b, "stem");
    int c = width, ds = 1;
    x = zb_act(b, zb_bn(b, zb_conv(b, x, "conv", 3, c, 3, 2, 1, 1, false), "bn", c), OP_Relu);
    rn_push(r, x, c, ds);
    for (int i = 0; i < blocks; i++) {
        zb_scope(b, "blocks.%d", i);
        x = rn_conv_block(r, x, &c, &ds, max_ds);
        if (rn_pick(r, 100) < r->skip)
            x = rn_conv_skip(r, x, &c, ds);
        rn_push(r, x, c, ds);
    }
    return x;
}

static enum status rn_build(struct zoo_build *b, const struct zoo_args *a, struct diag *d)
{
    (void)d;
    struct rn r = {.b = b, .s = (uint64_t)zoo_arg_int(a, "arch") * 0x2545f4914f6cdd1dull + 17,
                   .skip = zoo_arg_int(a, "skip")};
    const char *style = zoo_arg_enum(a, "style");
    int st = 0;
    for (int i = 0; i < 4; i++)
        if (rn_styles[i] == style)
            st = i;
    int width = zoo_arg_int(a, "width"), blocks = zoo_arg_int(a, "blocks");
    r.cmax = width * 16 < 2048 ? width * 16 : 2048;
    if (r.cmax < width)
        r.cmax = width;
    int image = zoo_arg_int(a, "image"), classes = zoo_arg_int(a, "classes");
    int x, d_out;
    if (st == RN_CONV) {
        x = rn_conv_trunk(&r, zb_image_input(b, 3, image), width, blocks, 5);
        zb_scope(b, "%s", "");
        d_out = r.c[r.n - 1];
        x = zb_flatten(b, zb_gap(b, x));
    } else if (st == RN_MLP) {
        const int64_t dims[2] = {1, width};
        const char *const syms[2] = {"batch", NULL};
        x = zb_input(b, "input", DT_FLOAT, 2, dims, syms);
        int c = width;
        rn_push(&r, x, c, 0);
        for (int i = 0; i < blocks; i++) {
            zb_scope(b, "blocks.%d", i);
            int mult[4] = {1, 2, 1, 4}, cout = rn_round8((long)width * mult[rn_pick(&r, 4)]);
            int y = zb_act(b, zb_gemm(b, x, "fc", c, cout, true), rn_act(&r));
            if (r.n > 1 && rn_pick(&r, 100) < r.skip) {
                int j = rn_pick(&r, r.n), s = r.v[j];
                if (r.c[j] != cout)
                    s = zb_gemm(b, s, "skip", r.c[j], cout, false);
                y = zb_binary(b, OP_Add, y, s);
            }
            x = y;
            c = cout;
            rn_push(&r, x, c, 0);
        }
        zb_scope(b, "%s", "");
        d_out = c;
    } else {
        int dim;
        if (st == RN_HYBRID) { /* conv stem to stride 8, then tokens [B, HW, C] */
            x = rn_conv_trunk(&r, zb_image_input(b, 3, image), width, 1 + blocks / 4, 3);
            dim = r.c[r.n - 1];
            zb_scope(b, "tokens");
            const int64_t flat[3] = {0, dim, -1};
            static const int64_t perm[3] = {0, 2, 1};
            x = zb_transpose(b, zb_reshape(b, x, flat, 3), perm, 3);
            r.n = 0; /* earlier skips were [B, C, H, W] */
        } else {
            dim = width;
            const int64_t dims[3] = {1, zoo_arg_int(a, "seq"), dim};
            const char *const syms[3] = {"batch", NULL, NULL};
            x = zb_input(b, "input", DT_FLOAT, 3, dims, syms);
        }
        rn_push(&r, x, dim, 0);
        for (int i = 0; i < blocks; i++) {
            zb_scope(b, "layers.%d", i);
            x = rn_seq_block(&r, x, dim);
            rn_push(&r, x, dim, 0);
        }
        zb_scope(b, "%s", "");
        x = zb_take(b, zb_layernorm(b, x, "norm", dim, 1e-5), 1, 0);
        d_out = dim;
    }
    zb_output(b, zb_gemm(b, x, "head", d_out, classes, true));
    return ST_OK;
}

const struct zoo_family zoo_fam_randnet = {
    .name = "randnet",
    .help = "random architecture (NAS-style DAG of conv, attention and MLP blocks; "
            "the arch seed fixes the structure)",
    .n_params = sizeof rn_params / sizeof rn_params[0],
    .params = rn_params,
    .check = NULL,
    .build = rn_build,
};
