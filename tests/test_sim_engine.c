/* test_sim_engine.c - the fused engine's launch and attention physics: an
 * engine replayed as a CUDA graph (tensorrt-graph) against the same engine
 * on a stream, and how many CTAs a fused attention kernel has. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sim_fixture.h"

static struct graph *build(const char *spec, int64_t batch, int64_t seq)
{
    return fixture_build(spec, batch, "seq", seq);
}

static struct sim_result run(const struct graph *g, enum runtime rt, int64_t batch)
{
    return fixture_run(g, "A100-SXM4-40GB", rt, batch);
}

/* The same kernels, one launch: the host issues nothing per kernel, and
 * each kernel costs graph_kernel_us instead of kernel_us. BERT-base at
 * batch 1 keeps the GPU busy longer per kernel than the stream's host
 * needs to enqueue it, so the difference is the per-kernel cost plus the
 * enqueue of the first kernel, which the GPU waits for. */
static void test_graph_replay(void **state)
{
    (void)state;
    const struct sim_params *p = sim_params_default();
    assert_true(p->graph_kernel_us < p->kernel_us[RT_TENSORRT]);
    struct graph *g = build("zoo:bert:preset=bert-base", 1, 128);
    struct sim_result s = run(g, RT_TENSORRT, 1), c = run(g, RT_TENSORRT_GRAPH, 1);
    assert_int_equal(s.n_kernels, c.n_kernels);
    assert_true(s.n_kernels > 80);
    for (int i = 0; i < g->n_nodes; i++) {
        assert_int_equal(s.nodes[i].kernel, c.nodes[i].kernel);
        assert_int_equal(s.nodes[i].fused_into, c.nodes[i].fused_into);
    }
    assert_true(s.host_ms > 0);
    assert_true(c.host_ms == 0);
    double want = (s.n_kernels * (p->kernel_us[RT_TENSORRT] - p->graph_kernel_us) +
                   p->dispatch_us[RT_TENSORRT]) * 1e-3;
    assert_true(fabs((s.latency_ms - c.latency_ms) - want) < 1e-9 * s.latency_ms + 1e-12);
    assert_true(fabs(s.memory_mib - c.memory_mib) < 1e-9);
    assert_true(fabs(s.roofline_ms - c.roofline_ms) < 1e-12);
    sim_result_fini(&s);
    sim_result_fini(&c);
    graph_free(g);
}

/* GEMM efficiency of layer 0's fused attention kernel at a batch. */
static double attention_eff(enum runtime rt, int64_t batch, int64_t seq)
{
    struct graph *g = build("zoo:bert:preset=bert-base", batch, seq);
    struct sim_result r = run(g, rt, batch);
    int i = fixture_node(g, "encoder.layer.0.matMul");
    assert_true(r.nodes[i].attention);
    assert_true(r.nodes[i].kernel);
    double e = r.nodes[i].efficiency;
    sim_result_fini(&r);
    graph_free(g);
    return e;
}

/* A fused attention kernel's CTAs split the queries: an engine's kernel
 * gives each CTA 64 queries of one sequence and head, so BERT-base's 12
 * heads of 384 tokens at batch 1 are 72 CTAs on the A100's 108 SMs, and
 * batch 9 is 648, six full waves (splitting the 384 keys would not pay:
 * 144 CTAs are two waves, 67% full, before the merge pass). Flash attention
 * (pytorch-sdpa) gives each CTA 128 queries: 512 tokens are 4 blocks per
 * head, 48 CTAs at batch 1, so it splits the keys in two (96 CTAs, 90% for
 * the merge pass) against 432 (4 full waves) at batch 9. */
static void test_attention_parallelism(void **state)
{
    (void)state;
    int sms = gpu_get(gpu_find("A100-SXM4-40GB"))->sms;
    assert_int_equal(sms, 108);
    double e1 = attention_eff(RT_TENSORRT, 1, 384), e9 = attention_eff(RT_TENSORRT, 9, 384);
    assert_true(e9 > 0);
    assert_true(fabs(e1 / e9 - 72.0 / sms) < 1e-9);
    double f1 = attention_eff(RT_PYTORCH_SDPA, 1, 512), f9 = attention_eff(RT_PYTORCH_SDPA, 9, 512);
    assert_true(f9 > 0);
    assert_true(fabs(f1 / f9 - 0.9 * 96.0 / sms) < 1e-9);
    /* the graph replay launches the same attention kernel */
    assert_true(attention_eff(RT_TENSORRT_GRAPH, 1, 384) == e1);
}

/* Eager PyTorch runs attention as separate kernels: no attention flag. */
static void test_eager_attention_unfused(void **state)
{
    (void)state;
    struct graph *g = build("zoo:bert:preset=bert-base", 2, 128);
    struct sim_result r = run(g, RT_PYTORCH, 2);
    for (int i = 0; i < g->n_nodes; i++)
        assert_false(r.nodes[i].attention);
    sim_result_fini(&r);
    graph_free(g);
}

/* The runtime's names and aliases. */
static void test_runtime_names(void **state)
{
    (void)state;
    enum runtime r = RT_PYTORCH;
    assert_true(runtime_parse("tensorrt-graph", &r));
    assert_int_equal(r, RT_TENSORRT_GRAPH);
    assert_true(runtime_parse("trt-graph", &r));
    assert_int_equal(r, RT_TENSORRT_GRAPH);
    assert_string_equal(runtime_name(RT_TENSORRT_GRAPH), "tensorrt-graph");
    assert_int_equal(runtime_base(RT_TENSORRT_GRAPH), RT_TENSORRT);
    assert_true(runtime_engine(RT_TENSORRT_GRAPH));
    assert_false(runtime_eager(RT_TENSORRT_GRAPH));
    assert_false(runtime_parse("tensorrt-graphs", &r));
    /* the serving engine: the engine's constants, graph-replayed kernels */
    assert_true(runtime_parse("VLLM", &r));
    assert_int_equal(r, RT_VLLM);
    assert_int_equal(runtime_base(RT_VLLM), RT_TENSORRT);
    assert_true(runtime_engine(RT_VLLM) && runtime_graph(RT_VLLM));
    assert_false(runtime_graph(RT_TENSORRT) || runtime_eager(RT_VLLM));
    /* the list messages print names every runtime once: "a, b, ... or z" */
    char list[256];
    snprintf(list, sizeof list, "%s", runtime_names());
    int n = 0, seen[RT__COUNT] = {0};
    for (char *tok = list, *next; tok && *tok; tok = next, n++) {
        next = strstr(tok, ", ");
        char *or = strstr(tok, " or ");
        if (!next || (or && or < next)) {
            next = or;
            if (next)
                *next = 0, next += 4;
        } else {
            *next = 0, next += 2;
        }
        enum runtime r2;
        assert_true(runtime_parse(tok, &r2));
        assert_string_equal(tok, runtime_name(r2));
        assert_int_equal(seen[r2]++, 0);
    }
    assert_int_equal(n, RT__COUNT);
}

/* One forward pass under vllm is the graph-replayed engine's, kernel for
 * kernel: its host work per sequence belongs to generation's decode steps. */
static void test_vllm_pass(void **state)
{
    (void)state;
    struct graph *g = build("zoo:bert:preset=bert-base", 8, 128);
    struct sim_result v = run(g, RT_VLLM, 8), c = run(g, RT_TENSORRT_GRAPH, 8);
    struct sim_result s = run(g, RT_TENSORRT, 8);
    assert_int_equal(v.n_kernels, c.n_kernels);
    assert_true(v.latency_ms == c.latency_ms && v.energy_j == c.energy_j);
    assert_true(v.latency_ms < s.latency_ms);
    sim_result_fini(&v);
    sim_result_fini(&c);
    sim_result_fini(&s);
    graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_graph_replay),
        cmocka_unit_test(test_vllm_pass),
        cmocka_unit_test(test_attention_parallelism),
        cmocka_unit_test(test_eager_attention_unfused),
        cmocka_unit_test(test_runtime_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
