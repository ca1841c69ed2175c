/* test_tp.c - tensor parallelism (src/core/tp.c and the --tp generation of
 * src/core/generation.c): the interconnect of the GPU table, the ring
 * all-reduce's cost, one GPU's shard of a template and its memory.
 *
 * Expected values are worked by hand from the datasheet figures in
 * src/core/gpu.c (NVLink 600 GB/s on A100 SXM, 900 GB/s on H100 SXM, both
 * directions; PCIe Gen4 x16 64 GB/s, Gen3 x16 32 GB/s) and from Llama 2
 * 70B's published configuration (80 layers, hidden 8192, 64 query heads,
 * 8 key/value heads of width 128, MLP 28672, vocabulary 32000).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/generation.h"
#include "core/gpu.h"
#include "core/tp.h"
#include "graph/zoo/zoo.h"

static void near(double got, double want, double rel, const char *what)
{
    if (fabs(got - want) > rel * fabs(want))
        fail_msg("%s: %.9g, expected %.9g", what, got, want);
}

static void test_links(void **state)
{
    (void)state;
    struct tp_link l;
    tp_link_of(gpu_get(gpu_find("a100-80gb")), &l);
    assert_string_equal(l.name, "NVLink");
    near(l.bw_bytes, 300e9, 1e-12, "A100 SXM NVLink per direction");
    tp_link_of(gpu_get(gpu_find("h100")), &l);
    near(l.bw_bytes, 450e9, 1e-12, "H100 SXM NVLink per direction");
    tp_link_of(gpu_get(gpu_find("l4")), &l);
    assert_string_equal(l.name, "PCIe");
    near(l.bw_bytes, 32e9, 1e-12, "L4 PCIe Gen4 x16 per direction");
    tp_link_of(gpu_get(gpu_find("t4")), &l);
    assert_string_equal(l.name, "PCIe");
    near(l.bw_bytes, 16e9, 1e-12, "T4 PCIe Gen3 x16 per direction");
    tp_link_of(gpu_get(gpu_find("h100-pcie")), &l);
    assert_string_equal(l.name, "PCIe");
    near(l.bw_bytes, 64e9, 1e-12, "H100 PCIe Gen5 x16 per direction");
    /* every GPU of the table has a link */
    for (int i = 0; i < gpu_count(); i++) {
        tp_link_of(gpu_get(i), &l);
        assert_true(l.bw_bytes > 0 && l.latency_s > 0);
    }
}

/* 2 (N - 1) / N of the buffer over the link plus the per-call latency. */
static void test_allreduce_formula(void **state)
{
    (void)state;
    struct tp_link l = {"test", 100e9, 5e-6};
    double bytes = 64e6;
    assert_true(tp_allreduce_s(&l, 1, bytes) == 0);
    /* 2 GPUs: 1 x 64 MB / 100 GB/s = 640 us; 4: 1.5 x = 960 us; 8: 1.75 x = 1120 us */
    near(tp_allreduce_s(&l, 2, bytes), 640e-6 + 5e-6, 1e-12, "N=2");
    near(tp_allreduce_s(&l, 4, bytes), 960e-6 + 5e-6, 1e-12, "N=4");
    near(tp_allreduce_s(&l, 8, bytes), 1120e-6 + 5e-6, 1e-12, "N=8");
    /* a pass: 2 per layer + 1 of batch x tokens x hidden x 2 bytes (fp16) */
    double one = tp_allreduce_s(&l, 4, 8.0 * 128 * 8192 * 2);
    near(tp_pass_ms(&l, 4, 80, 8192, 8, 128, PREC_FP16), 161 * one * 1e3, 1e-12, "pass");
    /* fp32 sums 4-byte elements, int8 and fp8 engines 2-byte ones */
    assert_true(tp_act_bytes(PREC_FP32) == 4 && tp_act_bytes(PREC_INT8) == 2 &&
                tp_act_bytes(PREC_FP8) == 2 && tp_act_bytes(PREC_BF16) == 2);
    assert_true(tp_valid(1) && tp_valid(2) && tp_valid(4) && tp_valid(8));
    assert_false(tp_valid(0) || tp_valid(3) || tp_valid(16));
}

static struct gen_result gen(const char *spec, int tp, const char *gpu)
{
    struct diag d = {0};
    struct graph *g = zoo_build_spec(spec, &d);
    if (!g)
        fail_msg("%s: %s", spec, d.msg);
    struct gen_model *m;
    if (gen_model_open_tp(g, NULL, tp, &m, &d))
        fail_msg("%s tp %d: %s", spec, tp, d.msg);
    struct config c;
    config_default(&c);
    c.gpu = gpu_find(gpu);
    c.prec = PREC_FP16;
    c.rt = RT_TENSORRT;
    struct gen_request rq = {512, 64, 4, PREC_FP16, 0.10};
    struct gen_result r;
    if (gen_run(NULL, m, &c, &rq, &r, &d))
        fail_msg("%s tp %d: %s", spec, tp, d.msg);
    gen_model_free(m);
    graph_free(g);
    return r;
}

/* Weights and KV cache per GPU are 1/N of the model's: every projection,
 * the MLP and the vocabulary split N ways; only the norms (80 x 2 x 8192
 * + 8192 elements) stay whole on each GPU. */
static void test_memory_per_gpu(void **state)
{
    (void)state;
    const char *spec = "llama:preset=llama2-70b";
    struct gen_result one = gen(spec, 1, "h100");
    double norms = (80.0 * 2 * 8192 + 8192) * 2 / 1048576.0; /* MiB at fp16 */
    assert_int_equal(one.tp, 1);
    assert_true(one.tpot_comm_ms == 0 && one.ttft_comm_ms == 0);
    double prev_tpot_comm = 0;
    for (int n = 2; n <= 8; n *= 2) {
        struct gen_result r = gen(spec, n, "h100");
        assert_int_equal(r.tp, n);
        near(r.mem.weights_mib, (one.mem.weights_mib - norms) / n + norms, 1e-3, "weights");
        /* 8 key/value heads split evenly up to 8 GPUs */
        near(r.kv_bytes_per_token, one.kv_bytes_per_token / n, 1e-12, "KV per token");
        near(r.kv_cache_mib, one.kv_cache_mib / n, 1e-12, "KV cache");
        /* the all-reduces are in the times, and cost more with more GPUs */
        assert_true(r.tpot_comm_ms > prev_tpot_comm && r.ttft_comm_ms > r.tpot_comm_ms);
        assert_true(r.tpot_ms > r.tpot_comm_ms && r.ttft_ms > r.ttft_comm_ms);
        prev_tpot_comm = r.tpot_comm_ms;
        /* a smaller shard leaves room for more sequences */
        assert_true(r.max_batch > one.max_batch);
    }
    /* with fewer KV heads than GPUs (TinyLlama: 4 over 8), each GPU keeps
     * one, replicated: a quarter of the cache per GPU, not an eighth */
    struct gen_result q = gen("llama:preset=tinyllama-1.1b", 8, "a100-80gb");
    struct gen_result q1 = gen("llama:preset=tinyllama-1.1b", 1, "a100-80gb");
    near(q.kv_bytes_per_token, q1.kv_bytes_per_token / 4, 1e-12, "TinyLlama KV per token");
}

static void refuse(const char *spec, int n, const char *words)
{
    struct diag d = {0};
    struct zoo_args a;
    assert_int_equal(zoo_args_parse(spec, &a, &d), ST_OK);
    assert_int_equal(tp_shard_args(&a, n, &d), ST_EUSAGE);
    if (!strstr(d.msg, words))
        fail_msg("%s --tp %d: '%s' not in: %s", spec, n, words, d.msg);
}

static void test_refusals(void **state)
{
    (void)state;
    refuse("gpt", 2, "zoo:gpt cannot be split");
    refuse("bert", 4, "zoo:bert cannot be split");
    refuse("llama:preset=llama2-70b:heads=60:kv_heads=6:hidden=7680", 8, "60 query heads");
    refuse("llama:heads=24:kv_heads=3:hidden=3072", 2, "3 key/value heads");
    /* a split that works: the shard's arguments */
    struct diag d = {0};
    struct zoo_args a;
    assert_int_equal(zoo_args_parse("llama:preset=llama2-7b", &a, &d), ST_OK);
    assert_int_equal(tp_shard_args(&a, 8, &d), ST_OK);
    assert_true(a.num[zoo_param_find(a.fam, "heads")] == 4);
    assert_true(a.num[zoo_param_find(a.fam, "kv_heads")] == 4);
    assert_true(a.num[zoo_param_find(a.fam, "head_dim")] == 128);
    assert_true(a.num[zoo_param_find(a.fam, "intermediate")] == 1408); /* 1376 to 64s */
    assert_true(a.num[zoo_param_find(a.fam, "vocab")] == 4000);
    assert_true(a.num[zoo_param_find(a.fam, "hidden")] == 4096);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_links),
        cmocka_unit_test(test_allreduce_formula),
        cmocka_unit_test(test_memory_per_gpu),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
