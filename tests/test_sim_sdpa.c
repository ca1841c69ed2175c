/* test_sim_sdpa.c - the pytorch-sdpa runtime: eager PyTorch whose attention
 * (score MatMul, scale, mask, Softmax, context MatMul) is one kernel, with
 * everything else as eager pytorch runs it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sim_fixture.h"

static struct graph *build(const char *spec, int64_t batch, const char *sym, int64_t val)
{
    return fixture_build(spec, batch, sym, val);
}

static struct sim_result run(const struct graph *g, enum runtime rt, int64_t batch)
{
    return fixture_run(g, "A100-SXM4-80GB", rt, batch);
}

static void test_attention_is_one_kernel(void **state)
{
    (void)state;
    struct graph *g = build("zoo:bert:preset=bert-base", 8, "seq", 512);
    struct sim_result e = run(g, RT_PYTORCH, 8), s = run(g, RT_PYTORCH_SDPA, 8),
                      t = run(g, RT_TENSORRT, 8);
    /* per layer the scale Div, the mask Add, the Softmax and the context
     * MatMul fold into the score MatMul: 4 x 12 kernels fewer */
    assert_int_equal(e.n_kernels - s.n_kernels, 4 * 12);
    static const char *const folded[] = {"div", "add", "softmax", "matMul_1"};
    for (int l = 0; l < 12; l++) {
        char name[96];
        snprintf(name, sizeof name, "encoder.layer.%d.matMul", l);
        int root = fixture_node(g, name);
        assert_true(s.nodes[root].kernel);
        for (int k = 0; k < 4; k++) {
            snprintf(name, sizeof name, "encoder.layer.%d.%s", l, folded[k]);
            int i = fixture_node(g, name);
            assert_false(e.nodes[i].fused);
            assert_int_equal(s.nodes[i].fused_into, root);
        }
    }
    /* the scores never reach DRAM: faster than eager, slower than an engine
     * that also fuses the rest */
    assert_true(s.latency_ms < e.latency_ms);
    assert_true(t.latency_ms < s.latency_ms);
    /* nor are they allocated: eager's figure holds a layer's scores and
     * probabilities, 12 heads x 2048 x 2048 in FP16 each at sequence 2048
     * (96 MiB), which the fused kernel keeps on chip */
    struct graph *g2 = build("zoo:bert:preset=bert-base:max_position=2048", 1, "seq", 2048);
    struct sim_result e2 = run(g2, RT_PYTORCH, 1), s2 = run(g2, RT_PYTORCH_SDPA, 1);
    double scores_mib = 12.0 * 2048 * 2048 * 2 / 1048576;
    if (!(e2.memory_mib - s2.memory_mib >= 2 * scores_mib))
        fail_msg("eager %.1f MiB, sdpa %.1f MiB: expected at least %.0f MiB less",
                 e2.memory_mib, s2.memory_mib, 2 * scores_mib);
    sim_result_fini(&e2);
    sim_result_fini(&s2);
    graph_free(g2);
    sim_result_fini(&e);
    sim_result_fini(&s);
    sim_result_fini(&t);
    graph_free(g);
}

static void test_same_as_eager_without_attention(void **state)
{
    (void)state;
    /* a CNN has no attention: every figure equals eager pytorch's */
    struct graph *g = build("zoo:resnet", 16, NULL, 0);
    struct sim_result e = run(g, RT_PYTORCH, 16), s = run(g, RT_PYTORCH_SDPA, 16);
    assert_int_equal(e.n_kernels, s.n_kernels);
    assert_true(e.latency_ms == s.latency_ms);
    assert_true(e.energy_j == s.energy_j);
    assert_true(e.memory_mib == s.memory_mib);
    sim_result_fini(&e);
    sim_result_fini(&s);
    graph_free(g);
}

static void test_names_and_precisions(void **state)
{
    (void)state;
    enum runtime r;
    assert_true(runtime_parse("pytorch-sdpa", &r) && r == RT_PYTORCH_SDPA);
    assert_true(runtime_parse("sdpa", &r) && r == RT_PYTORCH_SDPA);
    assert_true(runtime_parse("PyTorch2", &r) && r == RT_PYTORCH_SDPA);
    assert_string_equal(runtime_name(RT_PYTORCH_SDPA), "pytorch-sdpa");
    assert_true(runtime_eager(RT_PYTORCH_SDPA) && !runtime_eager(RT_TENSORRT));
    assert_int_equal(runtime_base(RT_PYTORCH_SDPA), RT_PYTORCH);
    /* eager: no int8 path, and the message names the runtime */
    struct config c;
    config_default(&c);
    c.rt = RT_PYTORCH_SDPA;
    c.prec = PREC_INT8;
    struct diag d = {0};
    assert_int_equal(config_supported(&c, &d), ST_EUSAGE);
    assert_non_null(strstr(d.msg, "runtime pytorch-sdpa"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_attention_is_one_kernel),
        cmocka_unit_test(test_same_as_eager_without_attention),
        cmocka_unit_test(test_names_and_precisions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
