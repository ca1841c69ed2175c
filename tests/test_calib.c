/* test_calib.c - reading and classifying the published calibration rows
 * (expected values read by hand from the JSONL lines named below), and
 * errors on bad files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "calib.h"
#include "gpu.h"

static char data_path[4096];

/* The published rows ship in tests/data (see tests/data/README), so the
 * suite also runs from a tarball. */
static int have_data(void)
{
    const char *top = getenv("TOP_SRCDIR");
    snprintf(data_path, sizeof data_path, "%s/tests/data/a100_published_calibration.jsonl",
             top && *top ? top : DIPPM_SRCDIR);
    return access(data_path, R_OK) == 0;
}

static const struct calib_row *line_of(const struct calib_set *s, int line)
{
    for (int i = 0; i < s->n_rows; i++)
        if (s->rows[i].line == line)
            return &s->rows[i];
    fail_msg("line %d not found", line);
    return NULL;
}

static void test_classification(void **state)
{
    (void)state;
    if (!have_data())
        fail_msg("%s: published calibration rows missing", data_path);
    struct calib_set s;
    struct diag d = {0};
    assert_int_equal(calib_load(data_path, &s, &d), ST_OK);
    assert_int_equal(s.n_rows, 402);

    /* line 287: resnet50 (timm), PyTorch 1.12 eager, fp16, batch 1, 7.68 ms */
    const struct calib_row *r = line_of(&s, 287);
    assert_int_equal(r->model, CM_RESNET50);
    assert_int_equal(r->cfg.rt, RT_PYTORCH);
    assert_int_equal(r->cfg.prec, PREC_FP16);
    assert_int_equal(r->cfg.gpu, gpu_find("A100-SXM4-40GB"));
    assert_int_equal(r->cfg.batch, 1);
    assert_true(r->use_latency);
    assert_true(r->latency_ms == 7.68);

    /* line 399: MLPerf ResNet-50 on one A100-SXM-80GB MIG 1g.10gb, int8 */
    r = line_of(&s, 399);
    assert_int_equal(r->cfg.rt, RT_TENSORRT);
    assert_int_equal(r->cfg.prec, PREC_INT8);
    assert_int_equal(r->cfg.gpu, gpu_find("A100-SXM4-80GB"));
    assert_string_equal(gpu_get(r->cfg.gpu)->mig[r->cfg.mig].name, "1g.10gb");
    assert_true(r->use_latency);

    /* line 233: GPT, 128 input + 8 output tokens: memory only, seq 136 */
    r = line_of(&s, 233);
    assert_int_equal(r->model, CM_GPT2_MEDIUM);
    assert_int_equal(r->seq, 136);
    assert_true(r->use_memory);
    assert_false(r->use_latency);
    assert_true(r->memory_mb == 3512);

    /* line 1: the DIPPM point: memory only */
    r = line_of(&s, 1);
    assert_true(r->use_memory);
    assert_false(r->use_latency);

    /* line 20: TensorFlow 1.x: not modelled, with a reason */
    r = line_of(&s, 20);
    assert_false(r->use_latency || r->use_memory);
    assert_non_null(r->why_not);

    /* line 247: TensorRT demoBERT int8, batch 1, seq 128 */
    r = line_of(&s, 247);
    assert_int_equal(r->model, CM_BERT_BASE);
    assert_int_equal(r->seq, 128);
    assert_int_equal(r->cfg.prec, PREC_INT8);
    assert_int_equal(r->cfg.rt, RT_TENSORRT);

    /* line 11: DeepLearningExamples EfficientNet "amp" -> fp16, eager */
    r = line_of(&s, 11);
    assert_int_equal(r->model, CM_EFFNET_B0);
    assert_int_equal(r->cfg.prec, PREC_FP16);
    assert_int_equal(r->cfg.rt, RT_PYTORCH);

    /* line 128: "fp32 (TF32 disabled)" is fp32, TensorFlow: not modelled */
    r = line_of(&s, 128);
    assert_int_equal(r->cfg.prec, PREC_FP32);
    assert_false(r->use_latency);
    calib_set_fini(&s);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_bad_files(void **state)
{
    (void)state;
    struct calib_set s;
    struct diag d = {0};
    assert_int_not_equal(calib_load("/nonexistent/calib.jsonl", &s, &d), ST_OK);
    assert_non_null(strstr(d.msg, "/nonexistent/calib.jsonl"));

    char path[] = "/tmp/dippm_calib_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    write_file(path, "{\"model\": \"resnet50\", \"framework\": \"AITemplate\", \"precision\": "
                     "\"fp16\", \"gpu\": \"A100-40GB\", \"batch\": 8, \"latency_ms\": 1}\n"
                     "{not json}\n");
    diag_clear(&d);
    assert_int_equal(calib_load(path, &s, &d), ST_EPARSE);
    assert_non_null(strstr(d.msg, ":2:"));

    write_file(path, "{\"model\": 3}\n");
    diag_clear(&d);
    assert_int_equal(calib_load(path, &s, &d), ST_EPARSE);
    assert_non_null(strstr(d.msg, ":1:"));
    assert_non_null(strstr(d.msg, "framework"));

    write_file(path, "\n\n");
    diag_clear(&d);
    assert_int_equal(calib_load(path, &s, &d), ST_EPARSE);
    assert_non_null(strstr(d.msg, "no rows"));
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classification),
        cmocka_unit_test(test_bad_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
