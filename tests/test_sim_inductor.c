/* test_sim_inductor.c - torch.compile's runtimes in the teacher: a GEMM
 * followed by a chain of element-wise ops. Eager launches the GEMM and one
 * kernel per op of the chain; Inductor (default mode) keeps the GEMM a
 * library call without an epilogue and runs the whole chain as one
 * generated kernel; a fused engine folds the chain into the GEMM. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "sim_fixture.h"

/* The element-wise ops after the GEMM: Relu, Mul by a scale, Add of a
 * shift, Tanh. */
#define CHAIN 4

static const char graph_json[] =
    "{\"format\": \"dippm-graph\", \"version\": 1, \"name\": \"gemm_chain\",\n"
    " \"symbols\": {\"batch\": 1},\n"
    " \"inputs\": [{\"name\": \"x\", \"dtype\": \"float32\", \"shape\": [\"batch\", 1024]}],\n"
    " \"outputs\": [{\"name\": \"y\"}],\n"
    " \"initializers\": [\n"
    "  {\"name\": \"w\", \"dtype\": \"float32\", \"shape\": [1024, 4096]},\n"
    "  {\"name\": \"scale\", \"dtype\": \"float32\", \"shape\": [4096]},\n"
    "  {\"name\": \"shift\", \"dtype\": \"float32\", \"shape\": [4096]}],\n"
    " \"nodes\": [\n"
    "  {\"name\": \"gemm\", \"op\": \"MatMul\", \"inputs\": [\"x\", \"w\"],\n"
    "   \"outputs\": [\"h\"]},\n"
    "  {\"name\": \"relu\", \"op\": \"Relu\", \"inputs\": [\"h\"], \"outputs\": [\"a\"]},\n"
    "  {\"name\": \"mul\", \"op\": \"Mul\", \"inputs\": [\"a\", \"scale\"],\n"
    "   \"outputs\": [\"b\"]},\n"
    "  {\"name\": \"add\", \"op\": \"Add\", \"inputs\": [\"b\", \"shift\"],\n"
    "   \"outputs\": [\"c\"]},\n"
    "  {\"name\": \"tanh\", \"op\": \"Tanh\", \"inputs\": [\"c\"], \"outputs\": [\"y\"]}]}\n";

/* The graph above, written to a temporary file and loaded at batch. */
static struct graph *load_chain(int64_t batch)
{
    char path[] = "/tmp/dippm-inductor-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(graph_json, f);
    fclose(f);
    struct diag d = {0};
    struct graph *g = model_load(path, &d);
    unlink(path);
    if (!g)
        fail_msg("gemm chain: %s", d.msg);
    g->syms[graph_batch_sym(g)].val = batch;
    if (graph_infer(g, &d))
        fail_msg("gemm chain: %s", d.msg);
    return g;
}

static struct sim_result run(const struct graph *g, enum runtime rt, int64_t batch)
{
    return fixture_run(g, "A100-SXM4-40GB", rt, batch);
}

/* The GPU time of the chain's nodes (the fused kernel's is shared among
 * its members). */
static double chain_s(const struct graph *g, const struct sim_result *r)
{
    static const char *const names[CHAIN] = {"relu", "mul", "add", "tanh"};
    double t = 0;
    for (int k = 0; k < CHAIN; k++)
        t += r->nodes[fixture_node(g, names[k])].time_s;
    return t;
}

/* Eager: 1 + CHAIN kernels; Inductor: the GEMM and one kernel for the
 * chain; the engine: one. Inductor saves at least the fixed GPU cost of the
 * CHAIN - 1 kernels it does not launch (it keeps eager's kernel_us), and
 * is faster in all. */
static void test_chain_fused(void **state)
{
    (void)state;
    const int64_t batch = 4096; /* the chain moves 32 MiB per op: GPU-bound */
    struct graph *g = load_chain(batch);
    struct sim_result e = run(g, RT_PYTORCH, batch), i = run(g, RT_INDUCTOR, batch);
    struct sim_result t = run(g, RT_TENSORRT, batch);
    assert_int_equal(e.n_kernels, 1 + CHAIN);
    assert_int_equal(i.n_kernels, 2);
    assert_int_equal(t.n_kernels, 1);
    int gemm = fixture_node(g, "gemm"), relu = fixture_node(g, "relu");
    assert_true(i.nodes[gemm].kernel && i.nodes[relu].kernel);
    assert_int_equal(i.nodes[fixture_node(g, "tanh")].fused_into, relu);
    assert_int_equal(t.nodes[relu].fused_into, gemm);
    const struct sim_params *p = sim_params_default();
    assert_true(p->kernel_us[RT_INDUCTOR] == p->kernel_us[RT_PYTORCH]);
    double saved = (CHAIN - 1) * p->kernel_us[RT_PYTORCH] * 1e-6;
    assert_true(chain_s(g, &e) - chain_s(g, &i) >= saved);
    assert_true(i.latency_ms < e.latency_ms);
    sim_result_fini(&e);
    sim_result_fini(&i);
    sim_result_fini(&t);
    graph_free(g);
}

/* At batch 1 the host sets the pace: eager dispatches 1 + CHAIN ops,
 * Inductor's wrapper 2 kernels at its lower cost per kernel, and
 * reduce-overhead (inductor-graph) replays the same kernels as a CUDA
 * graph, with no host work per kernel. */
static void test_host_and_graph(void **state)
{
    (void)state;
    struct graph *g = load_chain(1);
    struct sim_result e = run(g, RT_PYTORCH, 1), i = run(g, RT_INDUCTOR, 1);
    struct sim_result c = run(g, RT_INDUCTOR_GRAPH, 1);
    const struct sim_params *p = sim_params_default();
    assert_true(p->dispatch_us[RT_INDUCTOR] < p->dispatch_us[RT_PYTORCH]);
    assert_int_equal(c.n_kernels, i.n_kernels);
    assert_true(c.latency_ms < i.latency_ms && i.latency_ms < e.latency_ms);
    sim_result_fini(&e);
    sim_result_fini(&i);
    sim_result_fini(&c);
    graph_free(g);
}

/* The runtimes' names, aliases and families, and the GNN feature each shows. */
static void test_names(void **state)
{
    (void)state;
    enum runtime r = RT_PYTORCH;
    assert_true(runtime_parse("inductor", &r));
    assert_int_equal(r, RT_INDUCTOR);
    assert_true(runtime_parse("reduce-overhead", &r));
    assert_int_equal(r, RT_INDUCTOR_GRAPH);
    assert_string_equal(runtime_name(RT_INDUCTOR_GRAPH), "inductor-graph");
    assert_int_equal(runtime_base(RT_INDUCTOR_GRAPH), RT_INDUCTOR);
    assert_true(runtime_graph(RT_INDUCTOR_GRAPH) && !runtime_graph(RT_INDUCTOR));
    assert_false(runtime_eager(RT_INDUCTOR) || runtime_engine(RT_INDUCTOR));
    for (int k = 0; k < RT__COUNT; k++)
        assert_true(runtime_feature((enum runtime)k) < RT__FEATURED);
    assert_int_equal(runtime_feature(RT_VLLM), RT_VLLM);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain_fused),
        cmocka_unit_test(test_host_and_graph),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
