/* test_zoo.c - architecture templates: parameter counts against torchvision's
 * published numbers, MACs against torchvision's published GFLOPS and the
 * ONNX exports in samples/, every family at the corners of its parameter
 * space, error messages, the seeded sampler and symbol rebinding. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "json_graph.h"
#include "load.h"
#include "shape.h"
#include "zoo.h"

/* Parameters counted independently of the cost model: elements of every
 * initializer except BatchNormalization's running mean and variance
 * (inputs 3 and 4), each initializer once. */
static double count_params(const struct graph *g)
{
    char *skip = calloc((size_t)g->n_values, 1), *seen = calloc((size_t)g->n_values, 1);
    for (int n = 0; n < g->n_nodes; n++) {
        const struct node *nd = &g->nodes[n];
        if (strcmp(nd->op_type, "BatchNormalization") == 0)
            for (int k = 3; k < nd->n_in && k < 5; k++)
                skip[nd->in[k]] = 1;
    }
    double total = 0;
    for (int vi = 0; vi < g->n_values; vi++) {
        const struct value *v = &g->values[vi];
        if (!(v->flags & VAL_INIT) || skip[vi] || seen[vi])
            continue;
        seen[vi] = 1;
        double e = 1;
        for (int r = 0; r < v->rank; r++)
            e *= (double)v->dims[r].v;
        total += e;
    }
    free(skip);
    free(seen);
    return total;
}

static struct graph *build(const char *spec)
{
    struct diag d = {0};
    struct graph *g = zoo_build_spec(spec, &d);
    if (!g)
        fail_msg("%s: %s", spec, d.msg);
    return g;
}

/* true when the real shape inference has landed (the placeholder counts
 * nothing and marks every node unsupported). */
static bool infer_real(struct graph *g)
{
    struct diag d = {0};
    enum status st = graph_infer(g, &d);
    if (st != ST_OK)
        fail_msg("%s: graph_infer: %s", g->path, d.msg);
    return g->totals.n_counted > 0;
}

/* ---- parameter counts: torchvision's numbers ------------------------------ */

struct expect {
    const char *spec;
    double params; /* torchvision: sum(p.numel() for p in model.parameters()) */
    double gmacs;  /* torchvision docs "GFLOPS" (which are MACs) at 224, 0 = not used */
};

/* Parameter counts and GFLOPS as published in the torchvision 0.14 model docs
 * (https://pytorch.org/vision/stable/models.html); the counts were also
 * re-counted with torchvision 0.14.1 on this machine. */
static const struct expect tv[] = {
    {"resnet:depth=18", 11689512, 1.81},
    {"resnet:depth=34", 21797672, 3.66},
    {"resnet", 25557032, 4.09},
    {"resnet:depth=101", 44549160, 7.80},
    {"resnet:depth=152", 60192808, 11.51},
    {"resnet:preset=resnext50_32x4d", 25028904, 4.23},
    {"resnet:preset=resnext101_32x8d", 88791336, 16.41},
    {"resnet:depth=101:groups=64:width_per_group=4", 83455272, 15.46},
    {"resnet:preset=wide_resnet50_2", 68883240, 11.40},
    {"resnet:depth=101:width_per_group=128", 126886696, 22.75},
    {"vgg:depth=11", 132863336, 7.61},
    {"vgg:depth=11:bn=1", 132868840, 7.61},
    {"vgg:depth=13", 133047848, 11.31},
    {"vgg:depth=13:bn=1", 133053736, 11.31},
    {"vgg", 138357544, 15.47},
    {"vgg:bn=1", 138365992, 15.47},
    {"vgg:depth=19", 143667240, 19.63},
    {"vgg:depth=19:bn=1", 143678248, 19.63},
    {"mobilenet_v2", 3504872, 0.30},
    {"mobilenet_v3", 5483032, 0.22},
    {"mobilenet_v3:variant=small", 2542856, 0.06},
    {"efficientnet", 5288548, 0},
    {"efficientnet:variant=b1", 7794184, 0},
    {"efficientnet:variant=b2", 9109994, 0},
    {"efficientnet:variant=b3", 12233232, 0},
    {"efficientnet:variant=b4", 19341616, 0},
    {"efficientnet:variant=b5", 30389784, 0},
    {"efficientnet:variant=b6", 43040704, 0},
    {"efficientnet:variant=b7", 66347960, 0},
    {"densenet", 7978856, 2.83},
    {"densenet:preset=densenet161", 28681000, 7.73},
    {"densenet:preset=densenet169", 14149480, 3.36},
    {"densenet:growth=32:blocks=6,12,48,32", 20013928, 4.29},
    {"convnext", 28589128, 4.46},
    {"convnext:preset=small", 50223688, 8.68},
    {"convnext:preset=base", 88591464, 15.36},
    {"convnext:depths=3,3,27,3:dim=192", 197767336, 34.36},
    {"vit", 86567656, 17.56},
    {"vit:preset=b_32", 88224232, 4.41},
    {"vit:preset=l_16", 304326632, 61.55},
    {"vit:patch=32:dim=1024:depth=24:heads=16", 306535400, 15.38},
    {"swin", 28288354, 4.49},
    {"swin:preset=s", 49606258, 8.74},
    {"swin:preset=b", 87768224, 15.43},
};

/* Non-default configurations, counted with torchvision 0.14.1's own builders
 * (e.g. mobilenetv3._mobilenet_v3_conf(..., width_mult=0.75), ResNet(Bottleneck,
 * [3, 4, 6, 3], groups=8, width_per_group=16), SwinTransformer([4, 4], 64, ...)). */
static const struct expect tv_custom[] = {
    {"mobilenet_v2:width=0.75:classes=100", 1483524, 0},
    {"mobilenet_v2:width=1.4", 6108776, 0},
    {"mobilenet_v3:width=0.75", 3377576, 0},
    {"mobilenet_v3:variant=small:width=1.25:classes=10", 2376722, 0},
    {"efficientnet:width_mult=1.3:depth_mult=1.7", 15505724, 0},
    {"resnet:depth=50:groups=8:width_per_group=16", 29272872, 0},
    {"resnet:depth=152:groups=4:width_per_group=24:classes=200", 58432904, 0},
    {"densenet:growth=24:blocks=4,8,16,8:init_features=48:bn_size=2", 1481548, 0},
    {"convnext:depths=2,2,6,2:dim=64", 9045672, 0},
    {"vit:patch=8:dim=256:depth=6:heads=8:mlp_ratio=4:image=160", 5148392, 0},
    {"swin:embed_dim=64:depths=2,2,4,2:heads=2,4,8,16:window=8:resolution=256", 11186420, 0},
    {"vgg:depth=13:bn=1:classes=10", 128997706, 0},
};

static void test_torchvision_custom(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof tv_custom / sizeof tv_custom[0]; i++) {
        struct graph *g = build(tv_custom[i].spec);
        double p = count_params(g);
        if (p != tv_custom[i].params)
            fail_msg("%s: %.0f parameters, torchvision has %.0f", tv_custom[i].spec, p,
                     tv_custom[i].params);
        if (infer_real(g) && (g->totals.n_unknown || g->totals.params != p))
            fail_msg("%s: inference left %d unknown nodes, counted %.0f parameters",
                     tv_custom[i].spec, g->totals.n_unknown, g->totals.params);
        graph_free(g);
    }
}

static void test_torchvision_params(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof tv / sizeof tv[0]; i++) {
        struct graph *g = build(tv[i].spec);
        double p = count_params(g);
        if (p != tv[i].params)
            fail_msg("%s: %.0f parameters, torchvision has %.0f", tv[i].spec, p, tv[i].params);
        if (infer_real(g)) {
            assert_int_equal(g->totals.n_unsupported, 0);
            assert_int_equal(g->totals.n_unknown, 0);
            if (g->totals.params != tv[i].params)
                fail_msg("%s: cost model counts %.0f parameters, torchvision %.0f", tv[i].spec,
                         g->totals.params, tv[i].params);
            /* the docs round GFLOPS to 2 decimals: allow that plus 1% */
            double gm = g->totals.macs / 1e9;
            if (tv[i].gmacs > 0 && fabs(gm - tv[i].gmacs) > 0.005 + 0.01 * tv[i].gmacs)
                fail_msg("%s: %.3f GMACs, torchvision publishes %.2f", tv[i].spec, gm,
                         tv[i].gmacs);
        }
        graph_free(g);
    }
}

/* SE-ResNet-50: torchvision's resnet50 plus per block 1x1 convs C -> C/16 ->
 * C with biases; timm's seresnet50 has the same 28,088,024. */
static void test_se_resnet(void **state)
{
    (void)state;
    static const double c[4] = {256, 512, 1024, 2048}, n[4] = {3, 4, 6, 3};
    double se = 0;
    for (int i = 0; i < 4; i++)
        se += n[i] * (2 * c[i] * c[i] / 16 + c[i] / 16 + c[i]);
    assert_true(25557032 + se == 28088024.0);
    struct graph *g = build("resnet:se=1");
    assert_true(count_params(g) == 28088024.0);
    graph_free(g);
}

/* BERT and GPT-2 counted by formula (embeddings + per-layer weights + head),
 * checked against the published Hugging Face totals for the base models. */
static double bert_formula(double L, double H, double I, double V, double P, double T)
{
    double layer = 4 * (H * H + H) + 2 * 2 * H + (H * I + I) + (I * H + H);
    return V * H + P * H + T * H + 2 * H + L * layer + (H * H + H);
}

static double gpt_formula(double L, double H, double C, double V)
{
    double layer = 2 * 2 * H + (H * 3 * H + 3 * H) + (H * H + H) + (H * 4 * H + 4 * H) +
                   (4 * H * H + H);
    return V * H + C * H + L * layer + 2 * H;
}

static void test_transformer_params(void **state)
{
    (void)state;
    assert_true(bert_formula(12, 768, 3072, 30522, 512, 2) == 109482240.0); /* bert-base-uncased */
    assert_true(gpt_formula(12, 768, 1024, 50257) == 124439808.0);          /* gpt2 */
    struct graph *g = build("zoo:bert");
    assert_true(count_params(g) == 109482240.0);
    graph_free(g);
    g = build("zoo:bert:layers=4:hidden=256:heads=4:intermediate=1024:vocab=1000:max_position=128:"
              "seq=64:type_vocab=1");
    assert_true(count_params(g) == bert_formula(4, 256, 1024, 1000, 128, 1));
    graph_free(g);
    const char *gpts[] = {"gpt", "gpt:phase=decode"};
    for (int i = 0; i < 2; i++) {
        g = build(gpts[i]);
        assert_true(count_params(g) == 124439808.0);
        graph_free(g);
    }
    g = build("gpt:preset=gpt2-medium:phase=decode");
    assert_true(count_params(g) == gpt_formula(24, 1024, 1024, 50257));
    assert_true(count_params(g) == 354823168.0); /* Hugging Face gpt2-medium */
    graph_free(g);
}

/* Transformer MACs by hand: per layer the four H x H projections, the
 * feed-forward pair and the two attention products (scores and context). */
static void test_transformer_macs(void **state)
{
    (void)state;
    struct {
        const char *spec;
        const char *sym;
        int64_t seq;
        double expect;
    } cases[] = {
        /* bert: L * (S * (4H^2 + 2HI) + 2 S^2 H) + pooler H^2 */
        {"bert", "seq", 128, 12 * (128.0 * (4 * 768.0 * 768 + 2 * 768.0 * 3072) +
                                   2 * 128.0 * 128 * 768) + 768.0 * 768},
        {"bert:preset=bert-large", "seq", 384,
         24 * (384.0 * (4 * 1024.0 * 1024 + 2 * 1024.0 * 4096) + 2 * 384.0 * 384 * 1024) +
             1024.0 * 1024},
        /* gpt prefill: L * (S * (4H^2 + 2H * 4H) + 2 S^2 H) + LM head S H V */
        {"gpt", "seq", 1024, 12 * (1024.0 * (4 * 768.0 * 768 + 8 * 768.0 * 768) +
                                   2 * 1024.0 * 1024 * 768) + 1024.0 * 768 * 50257},
        /* gpt decode with 300 cached tokens: one token over 301 keys */
        {"gpt:phase=decode", "seq", 300, 12 * ((4 * 768.0 * 768 + 8 * 768.0 * 768) +
                                               2 * 301.0 * 768) + 768.0 * 50257},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct graph *g = build(cases[i].spec);
        struct diag d = {0};
        assert_int_equal(graph_sym_set(g, cases[i].sym, cases[i].seq, &d), ST_OK);
        if (infer_real(g) && fabs(g->totals.macs - cases[i].expect) > 1e-9 * cases[i].expect)
            fail_msg("%s at %s=%lld: %.0f MACs, expected %.0f", cases[i].spec, cases[i].sym,
                     (long long)cases[i].seq, g->totals.macs, cases[i].expect);
        graph_free(g);
    }
}

/* LLaMA: embeddings (and an untied LM head) + per layer q/o (H x H), k/v
 * (H x kv_heads*hd), the SwiGLU triple (3 H x I) and two RMSNorm weights;
 * checked against the published totals of the Hugging Face checkpoints. */
static double llama_formula(double L, double H, double heads, double kv, double I, double V,
                            bool tied)
{
    double kvd = kv * (H / heads);
    return V * H * (tied ? 1 : 2) + L * (2 * H * H + 2 * H * kvd + 3 * H * I + 2 * H) + H;
}

static void test_llama(void **state)
{
    (void)state;
    assert_true(llama_formula(32, 4096, 32, 32, 11008, 32000, false) == 6738415616.0);
    assert_true(llama_formula(32, 4096, 32, 8, 14336, 128256, false) == 8030261248.0);
    assert_true(llama_formula(22, 2048, 32, 4, 5632, 32000, false) == 1100048384.0);
    static const char *const specs[] = {"llama:preset=llama2-7b", "llama:preset=llama3-8b",
                                        "llama", "llama:phase=decode"};
    static const double expect[] = {6738415616.0, 8030261248.0, 1100048384.0, 1100048384.0};
    for (int i = 0; i < 4; i++) {
        struct graph *g = build(specs[i]);
        if (count_params(g) != expect[i])
            fail_msg("%s: %.0f parameters, expected %.0f", specs[i], count_params(g), expect[i]);
        graph_free(g);
    }
    struct graph *g = build("llama:layers=3:hidden=256:heads=8:kv_heads=2:intermediate=640:"
                            "vocab=500:tied=1");
    assert_true(count_params(g) == llama_formula(3, 256, 8, 2, 640, 500, true));
    /* prefill MACs: L * (S * (2H^2 + 2H kvd + 3HI) + 2 S^2 H) + S H V */
    struct diag d = {0};
    assert_int_equal(graph_sym_set(g, "seq", 100, &d), ST_OK);
    if (infer_real(g)) {
        double S = 100, H = 256, kvd = 64, I = 640, V = 500;
        double e = 3 * (S * (2 * H * H + 2 * H * kvd + 3 * H * I) + 2 * S * S * H) + S * H * V;
        if (fabs(g->totals.macs - e) > 1e-9 * e)
            fail_msg("llama prefill: %.0f MACs, expected %.0f", g->totals.macs, e);
        assert_int_equal(g->totals.n_unknown, 0);
    }
    graph_free(g);
    /* decode: the KV cache holds kv_heads heads; one token attends to seq + 1 keys */
    g = build("llama:preset=llama3-8b:phase=decode");
    const struct value *pk = &g->values[graph_value_find(g, "past_key.0")];
    assert_int_equal(pk->rank, 4);
    assert_int_equal(pk->dims[1].v, 8);
    assert_int_equal(pk->dims[3].v, 128);
    assert_int_equal(graph_sym_set(g, "seq", 1000, &d), ST_OK);
    if (infer_real(g)) {
        double H = 4096, kvd = 1024, I = 14336, V = 128256;
        double e = 32 * ((2 * H * H + 2 * H * kvd + 3 * H * I) + 2 * 1001.0 * H) + H * V;
        if (fabs(g->totals.macs - e) > 1e-9 * e)
            fail_msg("llama decode: %.0f MACs, expected %.0f", g->totals.macs, e);
    }
    graph_free(g);
}

/* ---- MACs against the ONNX exports in samples/ ----------------------------- */

static void test_onnx_macs(void **state)
{
    (void)state;
    static const char *const pairs[][2] = {
        {"resnet", "resnet50.onnx"},         {"vgg", "vgg16.onnx"},
        {"mobilenet_v2", "mobilenet_v2.onnx"}, {"mobilenet_v3", "mobilenet_v3_large.onnx"},
        {"efficientnet", "efficientnet_b0.onnx"}, {"densenet", "densenet121.onnx"},
        {"convnext", "convnext_tiny.onnx"},  {"vit", "vit_b_16.onnx"},
        {"swin", "swin_t.onnx"},             {"bert", "bert_base.onnx"},
        {"gpt:preset=gpt2-medium", "gpt2_medium.onnx"},
    };
    const char *dir = getenv("SAMPLES_DIR");
    if (!dir)
        dir = "samples";
    int compared = 0;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, pairs[i][1]);
        FILE *f = fopen(path, "rb");
        if (!f) {
            printf("# %s: not present, skipped\n", path);
            continue;
        }
        fclose(f);
        struct diag d = {0};
        struct graph *ref = model_load(path, &d);
        if (!ref && d.code == ST_EUNSUPPORTED) {
            printf("# %s: ONNX loader not built yet: %s\n", path, d.msg);
            continue;
        }
        if (!ref)
            fail_msg("%s: %s", path, d.msg);
        /* a reference the shape engine cannot infer says nothing about the
         * template: report it and go on */
        if (graph_infer(ref, &d) != ST_OK || ref->totals.n_unknown) {
            printf("# %s: reference not inferable (%s), skipped\n", path,
                   d.msg[0] ? d.msg : "unknown shapes");
            graph_free(ref);
            continue;
        }
        struct graph *g = build(pairs[i][0]);
        /* compare at the export's batch and sequence length */
        for (int s = 0; s < ref->n_syms; s++)
            if (graph_sym_find(g, ref->syms[s].name) >= 0)
                assert_int_equal(graph_sym_set(g, ref->syms[s].name, ref->syms[s].val, &d),
                                 ST_OK);
        if (infer_real(g) && infer_real(ref)) {
            double a = g->totals.macs, b = ref->totals.macs;
            printf("# %-14s zoo %.4g MACs, %s %.4g MACs (%+.3f%%)\n", pairs[i][0], a,
                   pairs[i][1], b, 100 * (a - b) / b);
            if (fabs(a - b) > 0.02 * b)
                fail_msg("%s: %.6g MACs vs %.6g in %s", pairs[i][0], a, b, path);
            assert_true(g->totals.params == ref->totals.params);
            compared++;
        }
        graph_free(g);
        graph_free(ref);
    }
    printf("# compared %d templates with ONNX exports\n", compared);
}

/* ---- every family at defaults and at the corners of each parameter --------- */

static void corner_value(const struct zoo_param *p, int which, char *buf, size_t size)
{
    switch (p->type) {
    case ZOO_PT_INT:
        if (p->n_choices)
            snprintf(buf, size, "%s", p->choices[which ? p->n_choices - 1 : 0]);
        else
            snprintf(buf, size, "%.0f", which ? p->max - fmod(p->max - p->min,
                                                               p->step > 1 ? p->step : 1)
                                              : p->min);
        break;
    case ZOO_PT_FLOAT: snprintf(buf, size, "%g", which ? p->max : p->min); break;
    case ZOO_PT_ENUM: snprintf(buf, size, "%s", p->choices[which % p->n_choices]); break;
    case ZOO_PT_INTS: {
        size_t off = 0;
        int step = p->step > 1 ? p->step : 1;
        double v = which ? p->max - fmod(p->max - p->min, step) : p->min;
        for (int k = 0; k < p->n_items; k++)
            off += (size_t)snprintf(buf + off, size - off, "%s%.0f", k ? "," : "", v);
        break;
    }
    default: break;
    }
}

static void test_corners(void **state)
{
    (void)state;
    int built = 0, rejected = 0;
    for (int f = 0; f < zoo_family_count(); f++) {
        for (int i = -1; i < zoo_param_count(f); i++) {
            int n_corner = 1;
            if (i >= 0)
                n_corner = zoo_param_get(f, i)->type == ZOO_PT_ENUM
                               ? zoo_param_get(f, i)->n_choices : 2;
            for (int which = 0; which < n_corner; which++) {
                struct zoo_args a;
                struct diag d = {0};
                zoo_args_init(&a, f);
                if (i >= 0) {
                    const struct zoo_param *p = zoo_param_get(f, i);
                    char v[256];
                    corner_value(p, which, v, sizeof v);
                    if (zoo_args_set(&a, p->name, v, &d))
                        fail_msg("%s: %s=%s rejected: %s", zoo_family_name(f), p->name, v,
                                 d.msg);
                }
                if (zoo_args_check(&a, &d) != ST_OK) {
                    /* a corner may break a constraint between parameters: it must be
                     * named, never crash the build */
                    assert_int_equal(d.code, ST_ERANGE);
                    assert_non_null(strstr(d.msg, zoo_family_name(f)));
                    rejected++;
                    continue;
                }
                struct graph *g = zoo_build(&a, &d);
                if (!g)
                    fail_msg("%s: %s", zoo_family_name(f), d.msg);
                assert_true(g->finalized);
                assert_string_equal(g->format, "zoo");
                assert_true(graph_sym_find(g, "batch") >= 0);
                if (infer_real(g)) {
                    if (g->totals.n_unsupported || g->totals.n_unknown)
                        fail_msg("%s: %d unsupported, %d unknown nodes", g->path,
                                 g->totals.n_unsupported, g->totals.n_unknown);
                    assert_true(g->totals.macs > 0);
                    assert_true(g->totals.params == count_params(g));
                }
                graph_free(g);
                built++;
            }
        }
    }
    printf("# corners: %d built, %d rejected by cross-parameter checks\n", built, rejected);
    assert_true(built > 100);
}

/* ---- errors --------------------------------------------------------------- */

static void expect_error(const char *spec, enum status code, const char *needle)
{
    struct diag d = {0};
    struct graph *g = zoo_build_spec(spec, &d);
    if (g)
        fail_msg("%s: built, expected an error", spec);
    if (d.code != code || !strstr(d.msg, needle))
        fail_msg("%s: got [%s] '%s', expected [%s] containing '%s'", spec, status_str(d.code),
                 d.msg, status_str(code), needle);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("zoo:resnet:depth=20", ST_ERANGE,
                 "zoo:resnet: depth=20 is not one of 18, 34, 50, 101, 152");
    expect_error("resnet:width=9", ST_ERANGE, "width=9 is not a number from 0.25 to 4");
    expect_error("resnet:width=abc", ST_ERANGE, "width=abc is not a number");
    expect_error("resnet:depth=", ST_ERANGE, "depth= is not one of");
    expect_error("zoo:resnet:depth=18:groups=32", ST_ERANGE, "basic blocks");
    expect_error("zoo:rsenet", ST_ENOTFOUND, "known: resnet, vgg, mobilenet_v2");
    expect_error("zoo:", ST_EUSAGE, "no template family given; known: resnet");
    expect_error("zoo:resnet:colour=red", ST_ENOTFOUND,
                 "unknown parameter 'colour'; parameters: preset, depth, width");
    expect_error("zoo:resnet:depth", ST_EUSAGE, "'depth' is not KEY=VALUE");
    expect_error("zoo:vit:dim=100:heads=10", ST_ERANGE,
                 "dim=100 is not an integer from 32 to 4096 in steps of 32");
    expect_error("zoo:vit:dim=800:heads=12", ST_ERANGE, "dim=800 is not a multiple of heads=12");
    expect_error("zoo:vit:image=200", ST_ERANGE, "image=200 is not a multiple of patch=16");
    expect_error("zoo:convnext:depths=3,3,9", ST_ERANGE,
                 "depths=3,3,9 is not 4 comma-separated integers from 1 to 64");
    expect_error("zoo:convnext:depths=3,3,9,3,1", ST_ERANGE, "depths=3,3,9,3,1 is not");
    expect_error("zoo:swin:resolution=256", ST_ERANGE, "multiple of patch x 8 x window = 224");
    expect_error("zoo:gpt:phase=train", ST_ERANGE, "phase=train is not one of prefill, decode");
    expect_error("zoo:bert:seq=1024", ST_ERANGE, "seq=1024 exceeds max_position=512");
    expect_error("zoo:mlp:layers=0", ST_ERANGE, "layers=0 is not an integer from 1 to 128");
}

/* ---- presets and canonical specs ------------------------------------------- */

static void test_presets(void **state)
{
    (void)state;
    struct graph *g = build("zoo:resnet:preset=resnext50_32x4d");
    assert_string_equal(g->name, "resnext50_32x4d");
    assert_string_equal(g->path, "zoo:resnet:preset=resnext50_32x4d:depth=50:width=1:groups=32:"
                                 "width_per_group=4:se=0:classes=1000:resolution=224");
    graph_free(g);
    /* explicit keys override the preset whatever their order */
    g = build("zoo:resnet:depth=101:preset=resnet50");
    assert_string_equal(g->name, "resnet101");
    graph_free(g);
    g = build("zoo:resnet:preset=resnet50:groups=2");
    assert_string_equal(g->name, "resnet");
    assert_non_null(strstr(g->path, "preset=custom"));
    /* the canonical spec rebuilds the same graph */
    struct graph *g2 = build(g->path);
    assert_string_equal(g2->path, g->path);
    assert_int_equal(g2->n_nodes, g->n_nodes);
    assert_true(count_params(g2) == count_params(g));
    graph_free(g2);
    graph_free(g);
    /* floats keep every digit they need, and no more */
    g = build("resnet:width=1.2345678:preset=custom");
    assert_non_null(strstr(g->path, ":width=1.2345678:"));
    graph_free(g);
    g = build("resnet:width=0.5");
    assert_non_null(strstr(g->path, ":width=0.5:"));
    graph_free(g);
    g = build("efficientnet:variant=b3");
    assert_string_equal(g->name, "efficientnet_b3");
    char fam[32];
    assert_string_equal(zoo_graph_family(g, fam, sizeof fam), "efficientnet");
    graph_free(g);
    struct graph *plain = graph_new("x");
    assert_null(zoo_graph_family(plain, fam, sizeof fam));
    graph_free(plain);
}

/* ---- sampler ----------------------------------------------------------------- */

static void test_sampler(void **state)
{
    (void)state;
    uint64_t s1 = 42, s2 = 42, s3 = 43;
    int differ = 0;
    for (int f = 0; f < zoo_family_count(); f++) {
        for (int k = 0; k < 5; k++) {
            char a[1024], b[1024], c[1024];
            assert_int_equal(zoo_sample_spec(f, &s1, a, sizeof a, NULL), ST_OK);
            assert_int_equal(zoo_sample_spec(f, &s2, b, sizeof b, NULL), ST_OK);
            assert_int_equal(zoo_sample_spec(f, &s3, c, sizeof c, NULL), ST_OK);
            assert_string_equal(a, b);
            differ += strcmp(a, c) != 0;
        }
    }
    assert_true(differ > zoo_family_count() * 4);

    /* 1000 samples: all parse, round-trip, build and infer */
    uint64_t s = 7;
    int per_family_distinct[32] = {0};
    char prev[32][1024];
    memset(prev, 0, sizeof prev);
    for (int k = 0; k < 1000; k++) {
        int f = k % zoo_family_count();
        char spec[1024];
        struct diag d = {0};
        assert_int_equal(zoo_sample_spec(f, &s, spec, sizeof spec, &d), ST_OK);
        struct zoo_args a;
        if (zoo_args_parse(spec, &a, &d))
            fail_msg("sampled '%s' does not parse: %s", spec, d.msg);
        char again[1024];
        zoo_args_spec(&a, again, sizeof again);
        assert_string_equal(again, spec);
        struct graph *g = zoo_build(&a, &d);
        if (!g)
            fail_msg("sampled '%s' does not build: %s", spec, d.msg);
        if (g->n_nodes > 5000)
            fail_msg("sampled '%s' has %d nodes", spec, g->n_nodes);
        char fam[32];
        assert_string_equal(zoo_graph_family(g, fam, sizeof fam), zoo_family_name(f));
        if (infer_real(g) && (g->totals.n_unsupported || g->totals.n_unknown))
            fail_msg("sampled '%s': %d unsupported, %d unknown nodes", spec,
                     g->totals.n_unsupported, g->totals.n_unknown);
        per_family_distinct[f] += strcmp(prev[f], spec) != 0;
        snprintf(prev[f], sizeof prev[f], "%s", spec);
        graph_free(g);
    }
    for (int f = 0; f < zoo_family_count(); f++)
        assert_true(per_family_distinct[f] > 50);
}

/* ---- symbols: batch, image size and sequence rebinding without rebuild ------ */

static void test_symbols(void **state)
{
    (void)state;
    struct diag d = {0};
    struct graph *g = build("resnet:depth=18");
    assert_true(graph_sym_find(g, "height") >= 0 && graph_sym_find(g, "width") >= 0);
    assert_int_equal(graph_batch_sym(g), graph_sym_find(g, "batch"));
    if (infer_real(g)) {
        double m1 = g->totals.macs;
        assert_int_equal(graph_sym_set(g, "batch", 8, &d), ST_OK);
        assert_true(infer_real(g));
        assert_true(fabs(g->totals.macs - 8 * m1) < 1e-6 * m1);
        assert_int_equal(graph_sym_set(g, "batch", 1, &d), ST_OK);
        assert_int_equal(graph_sym_set(g, "height", 448, &d), ST_OK);
        assert_int_equal(graph_sym_set(g, "width", 448, &d), ST_OK);
        assert_true(infer_real(g));
        /* every feature map doubles on both axes: 4x the convolution MACs;
         * only the final Gemm (512x1000) stays the same */
        double fc = 512.0 * 1000;
        assert_true(fabs((g->totals.macs - fc) - 4 * (m1 - fc)) < 1e-6 * m1);
    }
    graph_free(g);

    g = build("swin");
    if (infer_real(g)) {
        double m1 = g->totals.macs;
        assert_int_equal(graph_sym_set(g, "height", 448, &d), ST_OK);
        assert_int_equal(graph_sym_set(g, "width", 448, &d), ST_OK);
        if (graph_infer(g, &d))
            fail_msg("swin at 448: %s", d.msg);
        assert_int_equal(g->totals.n_unknown, 0);
        /* windows keep their size, so MACs scale with the pixel count */
        assert_true(g->totals.macs > 3.9 * m1 && g->totals.macs < 4.1 * m1);
    }
    graph_free(g);

    /* decode reads a KV cache of seq tokens: attention grows with seq, the rest not */
    g = build("gpt:phase=decode");
    assert_true(graph_sym_find(g, "seq") >= 0);
    int n_past = 0;
    for (int i = 0; i < g->n_inputs; i++)
        n_past += strncmp(g->values[g->inputs[i]].name, "past_", 5) == 0;
    assert_int_equal(n_past, 24); /* 12 layers x (key, value) */
    assert_int_equal(g->n_outputs, 25);
    if (infer_real(g)) {
        double m1 = g->totals.macs;
        /* per layer: q.K and attn.V, each 768 MACs per cached token (plus the new one) */
        assert_int_equal(graph_sym_set(g, "seq", 2047, &d), ST_OK);
        assert_true(infer_real(g));
        assert_true(fabs((g->totals.macs - m1) - 12.0 * 2 * 768 * 1024) < 1);
    }
    graph_free(g);
    g = build("gpt");
    if (infer_real(g)) {
        double m1 = g->totals.macs;
        assert_int_equal(graph_sym_set(g, "seq", 512, &d), ST_OK);
        assert_true(infer_real(g));
        assert_true(g->totals.macs < 0.5 * m1); /* linear layers halve, attention quarters */
    }
    graph_free(g);
}

/* Every family's default graph survives a dippm JSON write/read unchanged. */
static void test_json_roundtrip(void **state)
{
    (void)state;
    for (int f = 0; f < zoo_family_count(); f++) {
        struct graph *g = build(zoo_family_name(f));
        size_t len;
        char *text = json_graph_write(g, &len);
        struct diag d = {0};
        struct graph *h = json_graph_parse(text, len, zoo_family_name(f), &d);
        if (!h)
            fail_msg("%s: JSON round trip: %s", zoo_family_name(f), d.msg);
        assert_int_equal(h->n_nodes, g->n_nodes);
        assert_int_equal(h->n_syms, g->n_syms);
        assert_true(count_params(h) == count_params(g));
        if (infer_real(g) && infer_real(h))
            assert_true(h->totals.macs == g->totals.macs);
        free(text);
        graph_free(h);
        graph_free(g);
    }
}

/* ViT's position embedding is made for one image size: other sizes are
 * rejected by shape inference, as torchvision rejects them. */
static void test_fixed_sizes(void **state)
{
    (void)state;
    struct graph *g = build("vit:preset=b_32");
    if (infer_real(g)) {
        struct diag d = {0};
        assert_int_equal(graph_sym_set(g, "height", 256, &d), ST_OK);
        assert_int_equal(graph_sym_set(g, "width", 256, &d), ST_OK);
        assert_int_equal(graph_infer(g, &d), ST_ESHAPE);
    }
    graph_free(g);
    /* VGG's classifier is made for 224x224; Swin's windows must tile each map */
    const char *fixed[] = {"vgg", "swin"};
    for (int i = 0; i < 2; i++) {
        g = build(fixed[i]);
        if (infer_real(g)) {
            struct diag d = {0};
            assert_int_equal(graph_sym_set(g, "height", 256, &d), ST_OK);
            assert_int_equal(graph_sym_set(g, "width", 256, &d), ST_OK);
            assert_int_equal(graph_infer(g, &d), ST_ESHAPE);
        }
        graph_free(g);
    }
    /* VGG at 448: the adaptive pool becomes a 2x2 average pool; the convolutions
     * cost 4x, the classifier the same (torchvision vgg16 at 448: 4 x 15.35 G
     * convolutions + 0.12 G classifier) */
    g = build("vgg:resolution=448");
    struct graph *g224 = build("vgg");
    if (infer_real(g) && infer_real(g224)) {
        double fc = 25088.0 * 4096 + 4096.0 * 4096 + 4096.0 * 1000;
        assert_int_equal(g->totals.n_unknown, 0);
        assert_true(fabs((g->totals.macs - fc) - 4 * (g224->totals.macs - fc)) <
                    1e-9 * g->totals.macs);
    }
    graph_free(g224);
    graph_free(g);
    expect_error("vgg:resolution=300", ST_ERANGE,
                 "resolution=300 is not an integer from 224 to 2240 in steps of 224");
    g = build("vit:preset=b_32:image=256");
    if (infer_real(g))
        assert_int_equal(g->totals.n_unknown, 0);
    graph_free(g);
}

/* ---- the CLI (when the built binary is available) ---------------------------- */

/* Runs cmd with stdout+stderr into out (malloc'd); returns the exit status. */
static int run(const char *cmd, char **out)
{
    char full[2048];
    snprintf(full, sizeof full, "%s 2>&1", cmd);
    FILE *p = popen(full, "r");
    assert_non_null(p);
    size_t cap = 1 << 16, len = 0;
    *out = malloc(cap);
    size_t n;
    while ((n = fread(*out + len, 1, cap - len - 1, p)) > 0) {
        len += n;
        if (len + 1 == cap)
            *out = realloc(*out, cap *= 2);
    }
    (*out)[len] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_cli(void **state)
{
    (void)state;
    const char *dippm = getenv("DIPPM");
    FILE *f = dippm ? fopen(dippm, "rb") : NULL;
    if (!f) {
        printf("# DIPPM binary not available, CLI checks skipped\n");
        return;
    }
    fclose(f);
    char cmd[1536], *out;
    char dir[] = "/tmp/test_zoo.XXXXXX";
    assert_non_null(mkdtemp(dir));

    snprintf(cmd, sizeof cmd, "%s zoo list", dippm);
    assert_int_equal(run(cmd, &out), 0);
    for (int fam = 0; fam < zoo_family_count(); fam++)
        assert_non_null(strstr(out, zoo_family_name(fam)));
    free(out);

    snprintf(cmd, sizeof cmd, "%s zoo show swin --json", dippm);
    assert_int_equal(run(cmd, &out), 0);
    assert_non_null(strstr(out, "\"name\": \"window\""));
    free(out);

    snprintf(cmd, sizeof cmd, "%s zoo resnet depth=20", dippm);
    assert_int_equal(run(cmd, &out), 2);
    assert_non_null(strstr(out, "dippm: zoo:resnet: depth=20 is not one of 18, 34, 50, 101, 152"));
    free(out);

    snprintf(cmd, sizeof cmd, "%s zoo nosuch", dippm);
    assert_int_equal(run(cmd, &out), 3);
    assert_non_null(strstr(out, "known: resnet"));
    free(out);

    /* -o writes a dippm JSON graph, refuses to overwrite without --force */
    char path[512];
    snprintf(path, sizeof path, "%s/mlp.json", dir);
    snprintf(cmd, sizeof cmd, "%s zoo mlp layers=4 width=256 -o %s", dippm, path);
    assert_int_equal(run(cmd, &out), 0);
    free(out);
    assert_int_equal(run(cmd, &out), 9);
    assert_non_null(strstr(out, "already exists"));
    free(out);
    snprintf(cmd, sizeof cmd, "%s zoo mlp layers=4 width=256 -o %s --force", dippm, path);
    assert_int_equal(run(cmd, &out), 0);
    free(out);
    struct diag d = {0};
    struct graph *back = model_load(path, &d);
    if (!back)
        fail_msg("%s: %s", path, d.msg);
    struct graph *g = build("mlp:layers=4:width=256");
    assert_int_equal(back->n_nodes, g->n_nodes);
    assert_true(count_params(back) == count_params(g));
    assert_true(count_params(g) == 784.0 * 256 + 256 + 3 * (256.0 * 256 + 256) + 256 * 10 + 10);
    graph_free(g);
    graph_free(back);
    remove(path);

    /* the same seed gives the same samples */
    char *again;
    snprintf(cmd, sizeof cmd, "%s zoo sample all --seed 5 --count 2", dippm);
    assert_int_equal(run(cmd, &out), 0);
    assert_int_equal(run(cmd, &again), 0);
    assert_string_equal(out, again);
    assert_true(strlen(out) > 200);
    free(out);
    free(again);

    snprintf(cmd, sizeof cmd, "%s zoo gpt phase=decode --batch 2 --json", dippm);
    assert_int_equal(run(cmd, &out), 0);
    assert_non_null(strstr(out, "\"params\": 124439808"));
    assert_non_null(strstr(out, "\"batch\": 2"));
    assert_non_null(strstr(out, "\"family\": \"gpt\""));
    free(out);

    /* a template spec is a MODEL for every command */
    snprintf(cmd, sizeof cmd, "%s info zoo:densenet:preset=densenet169", dippm);
    assert_int_equal(run(cmd, &out), 0);
    assert_non_null(strstr(out, "densenet169"));
    free(out);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_torchvision_params), cmocka_unit_test(test_torchvision_custom),
        cmocka_unit_test(test_transformer_params),
        cmocka_unit_test(test_transformer_macs),   cmocka_unit_test(test_se_resnet),
        cmocka_unit_test(test_llama),
        cmocka_unit_test(test_onnx_macs),          cmocka_unit_test(test_corners),
        cmocka_unit_test(test_errors),             cmocka_unit_test(test_presets),
        cmocka_unit_test(test_sampler),            cmocka_unit_test(test_symbols),
        cmocka_unit_test(test_fixed_sizes),     cmocka_unit_test(test_json_roundtrip),
        cmocka_unit_test(test_cli),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
