/* test_zoo.c - faithfulness of the architecture templates: parameter counts
 * against torchvision (published numbers and its own builders at
 * non-default settings), BERT/GPT/LLaMA against hand formulas and published
 * totals, MACs against torchvision's GFLOPS and the ONNX exports in
 * samples/. The parameter space, errors, sampler, symbols and CLI are in
 * test_zoo_space.c. */
#include "test_zoo_util.h"

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

/* Random architectures: every style builds and infers completely; the same
 * spec gives the same graph, other arch seeds (mostly) different ones. */
static void test_randnet(void **state)
{
    (void)state;
    static const char *const styles[] = {"conv", "transformer", "hybrid", "mlp"};
    for (int s = 0; s < 4; s++) {
        int distinct = 0;
        double prev = -1;
        for (int arch = 0; arch < 12; arch++) {
            char spec[128];
            snprintf(spec, sizeof spec, "randnet:style=%s:arch=%d:blocks=10:width=32:image=64",
                     styles[s], arch);
            struct graph *g = build(spec), *g2 = build(spec);
            double p = count_params(g);
            assert_int_equal(g->n_nodes, g2->n_nodes);
            assert_true(p == count_params(g2));
            distinct += p != prev;
            prev = p;
            if (!infer_real(g) || g->totals.n_unsupported || g->totals.n_unknown)
                fail_msg("%s: shape inference incomplete (%d unsupported, %d unknown)", spec,
                         g->totals.n_unsupported, g->totals.n_unknown);
            assert_true(g->totals.macs > 0);
            graph_free(g);
            graph_free(g2);
        }
        if (distinct < 6)
            fail_msg("randnet style=%s: only %d distinct parameter counts over 12 seeds",
                     styles[s], distinct);
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

/* zoo:kernel: one node per operator (none for a bare graph input), MACs and
 * parameters from the operator's own formula at batch b. */
static void test_kernel_ops(void **state)
{
    (void)state;
    struct {
        const char *spec;
        int64_t batch;
        double macs, params;
        const char *op;
    } cases[] = {
        {"kernel:op=matmul:m=196:n=196:k=64", 48, 48.0 * 196 * 196 * 64, 0, "MatMul"},
        {"kernel:op=linear:m=512:n=3072:k=768", 4, 4.0 * 512 * 3072 * 768, 768.0 * 3072 + 3072,
         "MatMul"},
        {"kernel:op=add:m=4096", 1000, 0, 0, "Add"},
        {"kernel:op=mul_scalar:m=1024", 10, 0, 0, "Mul"},
        {"kernel:op=layernorm:m=1024", 32, 0, 2048, "LayerNormalization"},
        {"kernel:op=softmax:m=512", 64, 0, 0, "Softmax"},
        {"kernel:op=gelu:m=3072", 8, 0, 0, "Gelu"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct graph *g = build(cases[i].spec);
        struct diag d = {0};
        assert_int_equal(graph_sym_set(g, "batch", cases[i].batch, &d), ST_OK);
        bool found = false;
        for (int n = 0; n < g->n_nodes; n++)
            found |= strcmp(g->nodes[n].op_type, cases[i].op) == 0;
        if (!found)
            fail_msg("%s: no %s node", cases[i].spec, cases[i].op);
        assert_true(fabs(count_params(g) - cases[i].params) < 0.5);
        if (infer_real(g) && fabs(g->totals.macs - cases[i].macs) > 1e-9 * cases[i].macs + 0.5)
            fail_msg("%s at batch %lld: %.0f MACs, expected %.0f", cases[i].spec,
                     (long long)cases[i].batch, g->totals.macs, cases[i].macs);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_torchvision_params), cmocka_unit_test(test_torchvision_custom),
        cmocka_unit_test(test_transformer_params), cmocka_unit_test(test_transformer_macs),
        cmocka_unit_test(test_se_resnet),          cmocka_unit_test(test_llama),
        cmocka_unit_test(test_onnx_macs),          cmocka_unit_test(test_randnet),
        cmocka_unit_test(test_kernel_ops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
