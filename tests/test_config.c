/* test_config.c - the precision, runtime and quantisation catalogues
 * (src/core/config.c): the lists messages print, the storage precisions,
 * the other names each parser takes, and the schemes' options. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/config.h"

/* The lists dippm(1) documents, in its order. */
static void test_lists(void **state)
{
    (void)state;
    assert_string_equal(precision_names(), "fp32, tf32, fp16, bf16, int8 or fp8");
    assert_string_equal(precision_storage_names(), "fp32, fp16, bf16, int8 or fp8");
    assert_string_equal(runtime_names(), "pytorch, pytorch-sdpa, inductor, inductor-graph, "
                                         "onnxruntime, onnxruntime-graph, tensorrt, "
                                         "tensorrt-graph or vllm");
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
               {"ORT", RT_ONNXRUNTIME},     {"onnxruntime-graph", RT_ONNXRUNTIME_GRAPH},
               {"ort-graph", RT_ONNXRUNTIME_GRAPH},
               {"trt-grap", -1},            {"eager torch", -1}, {"", -1}};
    for (size_t i = 0; i < sizeof rts / sizeof rts[0]; i++) {
        enum runtime r = RT__COUNT;
        assert_int_equal(runtime_parse(rts[i].s, &r), rts[i].rt >= 0);
        if (rts[i].rt >= 0)
            assert_int_equal(r, rts[i].rt);
    }
}

/* Every accepted spelling, its options and its canonical form; the bits and
 * scale bytes are the formats' (GPTQ/AWQ: fp16 scales; SmoothQuant and FP8
 * per-channel: fp32). */
static void test_quant_parse(void **state)
{
    (void)state;
    static const struct {
        const char *s, *canon;
        int scheme, group;
        bool dynamic, per_tensor;
    } ok[] = {
        {"w4a16", "w4a16:g128", QUANT_W4A16, 128, false, false},
        {"W4A16:g64", "w4a16:g64", QUANT_W4A16, 64, false, false},
        {"w4a16:row", "w4a16:row", QUANT_W4A16, 0, false, false},
        {"w8a16", "w8a16:row", QUANT_W8A16, 0, false, false},
        {"w8a16:g128", "w8a16:g128", QUANT_W8A16, 128, false, false},
        {"w8a8", "w8a8:static", QUANT_W8A8, 0, false, false},
        {"w8a8:dynamic", "w8a8:dynamic", QUANT_W8A8, 0, true, false},
        {"fp8", "fp8:tensor", QUANT_FP8, 0, false, true},
        {"fp8:row", "fp8:row", QUANT_FP8, 0, true, false},
        {"none", "none", QUANT_NONE, 0, false, false},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        struct quant q;
        struct diag d = {0};
        assert_int_equal(quant_parse(ok[i].s, &q, &d), ST_OK);
        assert_int_equal(q.scheme, ok[i].scheme);
        assert_int_equal(q.group, ok[i].group);
        assert_int_equal(q.dynamic, ok[i].dynamic);
        assert_int_equal(q.per_tensor, ok[i].per_tensor);
        char buf[64];
        quant_format(&q, buf, sizeof buf);
        assert_string_equal(buf, ok[i].canon);
    }
    assert_int_equal(quant_bits(QUANT_W4A16), 4);
    assert_int_equal(quant_bits(QUANT_W8A8), 8);
    assert_int_equal(quant_scale_bytes(QUANT_W4A16), 2);
    assert_int_equal(quant_scale_bytes(QUANT_FP8), 4);
    assert_int_equal(quant_act_precision(QUANT_W4A16), PREC_FP16);
    assert_int_equal(quant_act_precision(QUANT_W8A8), PREC_INT8);
    assert_true(quant_weight_only(QUANT_W8A16));
    assert_false(quant_weight_only(QUANT_FP8));
    assert_false(quant_weight_only(QUANT_NONE));
}

/* Refused with a message that names the option, what was given and every
 * accepted form. */
static void test_quant_errors(void **state)
{
    (void)state;
    static const struct {
        const char *s, *says;
    } bad[] = {
        {"w3a16", "unknown scheme 'w3a16'"},
        {"int4", "unknown scheme 'int4'"},
        {"", "unknown scheme ''"},
        {"w4a16:g100", "not 'g100' (gN: a power of two"},
        {"w4a16:g4", "not 'g4'"},
        {"w4a16:g", "not 'g'"},
        {"w4a16:", "not ''"},
        {"w4a16:dynamic", "w4a16 takes [:gN|:row], not 'dynamic'"},
        {"w8a8:row", "w8a8 takes [:static|:dynamic], not 'row'"},
        {"fp8:g128", "fp8 takes [:tensor|:row], not 'g128'"},
        {"none:g128", "none takes no option"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct quant q;
        struct diag d = {0};
        assert_int_equal(quant_parse(bad[i].s, &q, &d), ST_EUSAGE);
        if (!strstr(d.msg, "--quant '") || !strstr(d.msg, bad[i].says) ||
            !strstr(d.msg, quant_forms()))
            fail_msg("--quant '%s': message '%s' lacks '%s' or the forms", bad[i].s, d.msg,
                     bad[i].says);
    }
    assert_string_equal(quant_forms(), "none, w8a16[:gN|:row], w4a16[:gN|:row], "
                                       "w8a8[:static|:dynamic] or fp8[:tensor|:row]");
}

/* A scheme and the precision its activations run in: what :quant sets and
 * :precision may change to. */
static void test_quant_precision(void **state)
{
    (void)state;
    assert_true(quant_precision_ok(QUANT_NONE, PREC_FP32));
    assert_true(quant_precision_ok(QUANT_W4A16, PREC_FP16));
    assert_true(quant_precision_ok(QUANT_W8A16, PREC_BF16)); /* weight-only: fp16 or bf16 */
    assert_false(quant_precision_ok(QUANT_W4A16, PREC_FP32));
    assert_false(quant_precision_ok(QUANT_W8A8, PREC_BF16)); /* int8 activations only */
    assert_true(quant_precision_ok(QUANT_FP8, PREC_FP8));
    struct config c;
    config_default(&c);
    struct quant q, r;
    assert_int_equal(quant_parse("w4a16", &q, NULL), ST_OK);
    assert_true(config_set_quant(&c, &q)); /* fp32 -> fp16 */
    assert_int_equal(c.prec, PREC_FP16);
    c.prec = PREC_BF16;
    assert_false(config_set_quant(&c, &q)); /* bf16 stays */
    assert_int_equal(c.prec, PREC_BF16);
    assert_int_equal(quant_parse("w4a16:g128", &r, NULL), ST_OK);
    assert_true(quant_equal(&q, &r));
    assert_int_equal(quant_parse("w4a16:g64", &r, NULL), ST_OK);
    assert_false(quant_equal(&q, &r));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lists),
        cmocka_unit_test(test_storage),
        cmocka_unit_test(test_aliases),
        cmocka_unit_test(test_quant_parse),
        cmocka_unit_test(test_quant_errors),
        cmocka_unit_test(test_quant_precision),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
