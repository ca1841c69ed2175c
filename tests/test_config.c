/* test_config.c - the precision and runtime catalogues (src/core/config.c):
 * the lists messages print, the storage precisions and the other names
 * each parser takes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/config.h"

/* The lists dippm(1) documents, in its order. */
static void test_lists(void **state)
{
    (void)state;
    assert_string_equal(precision_names(), "fp32, tf32, fp16, bf16, int8 or fp8");
    assert_string_equal(precision_storage_names(), "fp32, fp16, bf16, int8 or fp8");
    assert_string_equal(runtime_names(), "pytorch, pytorch-sdpa, inductor, inductor-graph, "
                                         "tensorrt, tensorrt-graph or vllm");
}

/* tf32 is a compute mode over fp32 storage; every other precision is a
 * storage type (a KV cache's); out of range is none. */
static void test_storage(void **state)
{
    (void)state;
    for (int p = 0; p < PREC__COUNT; p++)
        assert_int_equal(precision_storage((enum precision)p), p != PREC_TF32);
    assert_false(precision_storage(PREC__COUNT));
}

static void test_aliases(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        int prec;
    } precs[] = {{"FP16", PREC_FP16}, {"half", PREC_FP16},     {"float16", PREC_FP16},
                 {"float", PREC_FP32}, {"Float32", PREC_FP32}, {"bfloat16", PREC_BF16},
                 {"fp8", PREC_FP8},    {"float1", -1},         {"halff", -1},
                 {"", -1},             {"float16 half", -1},   {"fp", -1}};
    for (size_t i = 0; i < sizeof precs / sizeof precs[0]; i++) {
        enum precision p = PREC__COUNT;
        assert_int_equal(precision_parse(precs[i].s, &p), precs[i].prec >= 0);
        if (precs[i].prec >= 0)
            assert_int_equal(p, precs[i].prec);
    }
    static const struct {
        const char *s;
        int rt;
    } rts[] = {{"eager", RT_PYTORCH},       {"TORCH", RT_PYTORCH},
               {"sdpa", RT_PYTORCH_SDPA},   {"pytorch2", RT_PYTORCH_SDPA},
               {"trt", RT_TENSORRT},        {"trt-graph", RT_TENSORRT_GRAPH},
               {"tensorrt-cudagraph", RT_TENSORRT_GRAPH}, {"vllm", RT_VLLM},
               {"inductor", RT_INDUCTOR},   {"Torch-Compile", RT_INDUCTOR},
               {"inductor-graph", RT_INDUCTOR_GRAPH}, {"reduce-overhead", RT_INDUCTOR_GRAPH},
               {"trt-grap", -1},            {"eager torch", -1}, {"", -1}};
    for (size_t i = 0; i < sizeof rts / sizeof rts[0]; i++) {
        enum runtime r = RT__COUNT;
        assert_int_equal(runtime_parse(rts[i].s, &r), rts[i].rt >= 0);
        if (rts[i].rt >= 0)
            assert_int_equal(r, rts[i].rt);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lists),
        cmocka_unit_test(test_storage),
        cmocka_unit_test(test_aliases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
