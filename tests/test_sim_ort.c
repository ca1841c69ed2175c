/* test_sim_ort.c - ONNX Runtime's CUDA execution provider in the teacher
 * (onnxruntime, onnxruntime-graph): its C++ executor's lighter host cost
 * per kernel, its pattern fusions (attention, a convolution's BatchNorm,
 * bias and ReLU, but no other activation), TF32 for fp32 GEMMs, and the
 * runtimes' names and features. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "graph/ir/ops.h"
#include "sim_fixture.h"

#define GPU "A100-SXM4-40GB"

/* BERT-base at batch 1: eager PyTorch sits on its host (a Python dispatch
 * per op); ONNX Runtime launches fewer kernels, each from C++ at a fraction
 * of that cost, and is faster. Replayed as a CUDA graph it is faster still,
 * with the same kernels. */
static void test_host_bert_batch1(void **state)
{
    (void)state;
    struct graph *g = fixture_build("zoo:bert:preset=bert-base", 1, "seq", 128);
    struct sim_result e = fixture_run(g, GPU, RT_PYTORCH, 1);
    struct sim_result o = fixture_run(g, GPU, RT_ONNXRUNTIME, 1);
    struct sim_result c = fixture_run(g, GPU, RT_ONNXRUNTIME_GRAPH, 1);
    const struct sim_params *p = sim_params_default();
    assert_true(p->dispatch_us[RT_ONNXRUNTIME] < p->dispatch_us[RT_PYTORCH] / 3);
    assert_true(o.n_kernels < e.n_kernels);
    assert_true(e.host_ms > e.gpu_busy_ms); /* eager: launch-bound */
    if (!(o.host_ms < e.host_ms / 3 && o.latency_ms < e.latency_ms / 2))
        fail_msg("eager %.3f ms (host %.3f), onnxruntime %.3f ms (host %.3f)", e.latency_ms,
                 e.host_ms, o.latency_ms, o.host_ms);
    assert_int_equal(c.n_kernels, o.n_kernels);
    assert_true(c.latency_ms < o.latency_ms);
    sim_result_fini(&e);
    sim_result_fini(&o);
    sim_result_fini(&c);
    graph_free(g);
}

/* The whole kernel traffic of a run, bytes. */
static double traffic(const struct graph *g, const struct sim_result *r)
{
    double b = 0;
    for (int i = 0; i < g->n_nodes; i++)
        if (r->nodes[i].kernel)
            b += r->nodes[i].kbytes;
    return b;
}

/* Attention is one kernel (ORT's Attention op): the scale, mask, Softmax
 * and context MatMul fold into the score MatMul, so neither the scores nor
 * the probabilities travel through DRAM: against eager, each layer saves
 * at least their writes and reads (4 x 12 heads x 512 x 512 per sequence). */
static void test_attention_traffic(void **state)
{
    (void)state;
    const int64_t batch = 8, seq = 512;
    struct graph *g = fixture_build("zoo:bert:preset=bert-base", batch, "seq", seq);
    struct sim_result e = fixture_run(g, GPU, RT_PYTORCH, batch);
    struct sim_result o = fixture_run(g, GPU, RT_ONNXRUNTIME, batch);
    static const char *const folded[] = {"div", "add", "softmax", "matMul_1"};
    for (int l = 0; l < 12; l++) {
        char name[96];
        snprintf(name, sizeof name, "encoder.layer.%d.matMul", l);
        int root = fixture_node(g, name);
        assert_true(o.nodes[root].kernel);
        for (int k = 0; k < 4; k++) {
            snprintf(name, sizeof name, "encoder.layer.%d.%s", l, folded[k]);
            assert_int_equal(o.nodes[fixture_node(g, name)].fused_into, root);
        }
    }
    double scores = (double)batch * 12 * seq * seq * 2; /* fp16 */
    double saved = traffic(g, &e) - traffic(g, &o);
    if (!(saved >= 12 * 4 * scores))
        fail_msg("onnxruntime saves %.0f MB of traffic, expected at least %.0f", saved / 1e6,
                 12 * 4 * scores / 1e6);
    assert_true(o.latency_ms < e.latency_ms);
    sim_result_fini(&e);
    sim_result_fini(&o);
    graph_free(g);
}

/* A convolution takes its BatchNorm, bias and ReLU (cuDNN's
 * convolution-bias-activation) but no other activation: EfficientNet's
 * SiLU after a convolution runs as kernels of its own, where an engine
 * folds it into the convolution. */
static void test_conv_patterns(void **state)
{
    (void)state;
    struct graph *g = fixture_build("zoo:resnet:depth=50", 8, NULL, 0);
    struct sim_result o = fixture_run(g, GPU, RT_ONNXRUNTIME, 8);
    int n_bn = 0, n_relu_conv = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const struct node *n = &g->nodes[i];
        int root = o.nodes[i].fused_into;
        if (n->op == OP_BatchNormalization) {
            n_bn++;
            assert_true(root >= 0 && g->nodes[root].op == OP_Conv);
        }
        if (n->op == OP_Relu && root >= 0 && g->nodes[root].op == OP_Conv)
            n_relu_conv++;
    }
    assert_true(n_bn >= 50 && n_relu_conv >= 32); /* each bottleneck's first two */
    sim_result_fini(&o);
    graph_free(g);

    g = fixture_build("zoo:efficientnet", 8, NULL, 0);
    struct sim_result ort = fixture_run(g, GPU, RT_ONNXRUNTIME, 8);
    struct sim_result t = fixture_run(g, GPU, RT_TENSORRT, 8);
    int own = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const struct node *n = &g->nodes[i];
        if (n->op != OP_Sigmoid || n->n_in < 1 || n->in[0] < 0)
            continue;
        int prod = g->values[n->in[0]].producer;
        if (prod < 0 || g->nodes[prod].op != OP_BatchNormalization)
            continue;
        own += ort.nodes[i].kernel && ort.nodes[i].fused_into < 0;
        assert_true(t.nodes[i].fused_into >= 0);
    }
    assert_true(own > 0);
    assert_true(ort.n_kernels > t.n_kernels);
    sim_result_fini(&ort);
    sim_result_fini(&t);
    graph_free(g);
}

/* Transposes: BERT's head transposes fold into its attention and
 * projections, Swin's window partitions run as kernels (an engine makes
 * every transpose a layout choice). */
static void test_transposes(void **state)
{
    (void)state;
    static const char *const specs[] = {"zoo:bert:preset=bert-base", "zoo:swin"};
    for (int m = 0; m < 2; m++) {
        struct graph *g = fixture_build(specs[m], 2, NULL, 0);
        struct sim_result o = fixture_run(g, GPU, RT_ONNXRUNTIME, 2);
        struct sim_result t = fixture_run(g, GPU, RT_TENSORRT, 2);
        int n_tr = 0, kernels = 0;
        for (int i = 0; i < g->n_nodes; i++) {
            if (g->nodes[i].op != OP_Transpose)
                continue;
            n_tr++;
            kernels += o.nodes[i].kernel;
            assert_false(t.nodes[i].kernel);
        }
        assert_true(n_tr > 0);
        if (m == 0 ? kernels != 0 : kernels == 0)
            fail_msg("%s: %d of %d transposes are onnxruntime kernels", specs[m], kernels, n_tr);
        sim_result_fini(&o);
        sim_result_fini(&t);
        graph_free(g);
    }
}

/* fp32 on A100: ORT runs GEMMs on TF32 tensor cores (use_tf32 on by
 * default), eager PyTorch keeps them in FP32 on CUDA cores. */
static void test_tf32_default(void **state)
{
    (void)state;
    struct graph *g = fixture_build("zoo:bert:preset=bert-base", 8, "seq", 128);
    struct sim_result e = fixture_run_prec(g, GPU, RT_PYTORCH, 8, PREC_FP32);
    struct sim_result o = fixture_run_prec(g, GPU, RT_ONNXRUNTIME, 8, PREC_FP32);
    int ffn = fixture_node(g, "encoder.layer.0.intermediate.dense");
    assert_false(e.nodes[ffn].tensor_core);
    assert_true(o.nodes[ffn].tensor_core);
    sim_result_fini(&e);
    sim_result_fini(&o);
    graph_free(g);
}

/* The runtimes' names, aliases and families, the GNN feature each shows,
 * and the precisions the CUDA provider has no path for. */
static void test_names(void **state)
{
    (void)state;
    enum runtime r = RT_PYTORCH;
    assert_true(runtime_parse("ort", &r));
    assert_int_equal(r, RT_ONNXRUNTIME);
    assert_true(runtime_parse("ort-graph", &r));
    assert_int_equal(r, RT_ONNXRUNTIME_GRAPH);
    assert_string_equal(runtime_name(RT_ONNXRUNTIME_GRAPH), "onnxruntime-graph");
    assert_int_equal(runtime_base(RT_ONNXRUNTIME_GRAPH), RT_ONNXRUNTIME);
    assert_true(runtime_graph(RT_ONNXRUNTIME_GRAPH) && !runtime_graph(RT_ONNXRUNTIME));
    assert_false(runtime_eager(RT_ONNXRUNTIME) || runtime_engine(RT_ONNXRUNTIME));
    assert_int_equal(runtime_feature(RT_ONNXRUNTIME), RT_TENSORRT);
    assert_int_equal(runtime_feature(RT_ONNXRUNTIME_GRAPH), RT_TENSORRT_GRAPH);
    struct config c;
    config_default(&c);
    c.rt = RT_ONNXRUNTIME;
    c.prec = PREC_INT8;
    assert_int_equal(config_supported(&c, NULL), ST_EUSAGE);
    c.prec = PREC_FP16;
    assert_int_equal(config_supported(&c, NULL), ST_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_bert_batch1), cmocka_unit_test(test_attention_traffic),
        cmocka_unit_test(test_conv_patterns),    cmocka_unit_test(test_transposes),
        cmocka_unit_test(test_tf32_default),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
