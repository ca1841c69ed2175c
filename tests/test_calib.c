/* test_calib.c - the calibration mapping table: the committed table read
 * and checked against the JSONL rows (expected values read by hand from the
 * JSONL lines named below), errors on bad tables (file, line and column
 * named), and that a leave-one-model-out fold really leaves the model out. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "lab/calib.h"
#include "lab/dataset.h"
#include "core/gpu.h"

static const char *top(void)
{
    const char *t = getenv("TOP_SRCDIR");
    return t && *t ? t : DIPPM_SRCDIR;
}

static const struct calib_row *find(const struct calib_set *s, const char *file, int line,
                                    enum calib_target t)
{
    for (int i = 0; i < s->n_rows; i++)
        if (s->rows[i].line == line && s->rows[i].target == t && !strcmp(s->rows[i].file, file))
            return &s->rows[i];
    fail_msg("%s line %d target %s not in the table", file, line, calib_target_name(t));
    return NULL;
}

static const char *const A100F = "a100_published_calibration.jsonl";
static const char *const MOREF = "published_more.jsonl";

/* The committed mapping table, loaded. */
static void load_committed(struct calib_set *s)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/calib_map.tsv", top());
    struct diag d = {0};
    if (calib_load(path, s, &d))
        fail_msg("%s", d.msg);
}

static void test_committed_table(void **state)
{
    (void)state;
    struct calib_set s;
    load_committed(&s);
    assert_int_equal(s.n_files, 2);
    assert_int_equal(s.n_json_rows[0], 402);
    assert_int_equal(s.n_json_rows[1], 866);

    /* a100 line 287: resnet50 (timm), PyTorch 1.12 eager, fp16, batch 1, 7.68 ms */
    const struct calib_row *r = find(&s, A100F, 287, CT_LATENCY);
    assert_int_equal(r->use, CU_FIT);
    assert_string_equal(r->model_id, "resnet50");
    assert_int_equal(r->cfg.rt, RT_PYTORCH);
    assert_int_equal(r->cfg.prec, PREC_FP16);
    assert_int_equal(r->cfg.gpu, gpu_find("A100-SXM4-40GB"));
    assert_int_equal(r->batch, 1);
    assert_true(r->measured == 7.68);

    /* a100 line 20: TensorFlow 1.x: skipped with a reason */
    r = find(&s, A100F, 20, CT_LATENCY);
    assert_int_equal(r->use, CU_SKIP);
    assert_non_null(strstr(r->reason, "TensorFlow"));

    /* more line 599: MIGProfiler BERT-base multilingual, 1g.5gb, batch 1,
     * seq 64: 11.17 ms and 2240.744 MB */
    r = find(&s, MOREF, 599, CT_LATENCY);
    assert_int_equal(r->use, CU_FIT);
    assert_string_equal(r->family, "migprofiler");
    assert_string_equal(gpu_get(r->cfg.gpu)->mig[r->cfg.mig].name, "1g.5gb");
    assert_int_equal(r->seq, 64);
    assert_true(r->measured == 11.17);
    assert_true(find(&s, MOREF, 599, CT_MEMORY)->measured == 2240.744);

    /* more line 422: MLPerf v0.7 ResNet-50 Offline on A100-PCIe (40 GB):
     * 32008.2 samples/s, no batch */
    r = find(&s, MOREF, 422, CT_THROUGHPUT);
    assert_int_equal(r->use, CU_FIT);
    assert_int_equal(r->batch, 0);
    assert_int_equal(r->cfg.prec, PREC_INT8);
    assert_int_equal(r->cfg.gpu, gpu_find("A100-PCIe-40GB"));
    assert_true(r->measured == 32008.2);

    /* more line 1: TensorRT-LLM v0.5 GPT-J 6B fp8 on H100, batch 64,
     * 128 + 128 tokens: 10907 output tokens/s */
    r = find(&s, MOREF, 1, CT_GEN_TPUT);
    assert_int_equal(r->use, CU_FIT);
    assert_int_equal(r->batch, 64);
    assert_int_equal(r->in_tokens, 128);
    assert_int_equal(r->out_tokens, 128);
    assert_int_equal(r->cfg.prec, PREC_FP8);
    assert_int_equal(r->cfg.gpu, gpu_find("H100-SXM5-80GB"));
    assert_non_null(strstr(r->spec, "zoo:gpt:layers=28"));

    /* more line 161: the value the source flags as a likely typo */
    r = find(&s, MOREF, 161, CT_GEN_TPUT);
    assert_int_equal(r->use, CU_SKIP);
    assert_non_null(strstr(r->reason, "suspect"));
    calib_set_fini(&s);
}

/* ---- bad tables -------------------------------------------------------------- */

static char dir[64];

static void write_file(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

#define HEADER "file\tline\tmodel_id\tsource_family\tuse\ttarget\tmeasured\tspec\tbatch\tseq\t" \
               "tokens\tin_tokens\tout_tokens\tsteps\tgpu\tmig\tprecision\truntime\ttiming\treason\n"
#define JSONL "{\"model\": \"resnet50\", \"latency_ms\": 10.5, \"memory_mb\": 3000}\n" \
              "{\"model\": \"resnet50\", \"latency_ms\": 20}\n"

/* Loads the table text; returns the status and leaves the message in d. */
static enum status load_text(const char *table, struct diag *d)
{
    write_file("t.tsv", table);
    char path[256];
    snprintf(path, sizeof path, "%s/t.tsv", dir);
    struct calib_set s;
    diag_clear(d);
    enum status st = calib_load(path, &s, d);
    if (!st)
        calib_set_fini(&s);
    return st;
}

static void expect_error(const char *table, const char *where, const char *what)
{
    struct diag d = {0};
    assert_int_not_equal(load_text(table, &d), ST_OK);
    if (!strstr(d.msg, where) || !strstr(d.msg, what))
        fail_msg("expected '%s' and '%s' in: %s", where, what, d.msg);
}

#define ROW1(meas, gpu, mig) \
    "j.jsonl\t1\tresnet50\tx\tfit\tlatency_ms\t" meas "\tsamples/resnet50.onnx\t1\t0\t0\t0\t0\t0\t" \
    gpu "\t" mig "\tfp16\tpytorch\twall\t-\n"
#define ROW2 "j.jsonl\t2\tresnet50\tx\tskip\tlatency_ms\t20\t-\t0\t0\t0\t0\t0\t0\t-\t-\t-\t-\t-\twhy\n"

static void test_bad_tables(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/dippm_calib_XXXXXX");
    assert_non_null(mkdtemp(dir));
    write_file("j.jsonl", JSONL);
    struct diag d = {0};

    /* a good table first, so the errors below come from the one change */
    assert_int_equal(load_text(HEADER ROW1("10.5", "A100-SXM4-40GB", "-") ROW2, &d), ST_OK);

    /* missing file */
    struct calib_set s;
    diag_clear(&d);
    assert_int_not_equal(calib_load("/nonexistent/calib_map.tsv", &s, &d), ST_OK);
    assert_non_null(strstr(d.msg, "/nonexistent/calib_map.tsv"));
    /* the JSONL file named in the file column is missing */
    expect_error(HEADER "k.jsonl\t1\tresnet50\tx\tskip\tlatency_ms\t20\t-\t0\t0\t0\t0\t0\t0\t-\t-\t-\t"
                        "-\t-\twhy\n", "t.tsv", "k.jsonl");
    /* bad column count, bad header */
    expect_error(HEADER "j.jsonl\t1\tresnet50\n", "t.tsv:2:", "3 column(s), expected 20");
    expect_error("file\tline\n", "t.tsv:1:", "expected 20");
    expect_error("file\tline\tmodel\tsource_family\tuse\ttarget\tmeasured\tspec\tbatch\tseq\t"
                 "tokens\tin_tokens\tout_tokens\tsteps\tgpu\tmig\tprecision\truntime\ttiming\treason\n" ROW2,
                 "t.tsv:1:", "column 3 of the header is 'model'");
    /* bad numbers */
    expect_error(HEADER ROW1("ten", "A100-SXM4-40GB", "-") ROW2, "t.tsv:2:",
                 "column 7 (measured): 'ten'");
    expect_error(HEADER ROW1("-3", "A100-SXM4-40GB", "-") ROW2, "t.tsv:2:",
                 "column 7 (measured)");
    expect_error(HEADER "j.jsonl\tx1\tresnet50\tx\tskip\tlatency_ms\t20\t-\t0\t0\t0\t0\t0\t0\t-\t-\t-"
                        "\t-\t-\twhy\n", "t.tsv:2:", "column 2 (line)");
    /* unknown GPU and MIG profile */
    expect_error(HEADER ROW1("10.5", "B200", "-") ROW2, "t.tsv:2:", "column 15 (gpu): 'B200'");
    expect_error(HEADER ROW1("10.5", "A100-SXM4-40GB", "9g.99gb") ROW2, "t.tsv:2:",
                 "column 16 (mig): '9g.99gb'");
    expect_error(HEADER ROW1("10.5", "A100-SXM4-40GB", "1g.10gb+x") ROW2, "t.tsv:2:",
                 "column 16 (mig)");
    /* a use or target outside the lists; a skip without a reason */
    expect_error(HEADER ROW2 "j.jsonl\t1\tresnet50\tx\tmaybe\tlatency_ms\t10.5\t-\t0\t0\t0\t0\t0\t0\t-"
                             "\t-\t-\t-\t-\twhy\n", "t.tsv:3:", "column 5 (use)");
    expect_error(HEADER ROW2 "j.jsonl\t1\tresnet50\tx\tskip\tspeed\t10.5\t-\t0\t0\t0\t0\t0\t0\t-\t-"
                             "\t-\t-\t-\twhy\n", "t.tsv:3:", "column 6 (target)");
    expect_error(HEADER ROW2 "j.jsonl\t1\tresnet50\tx\tskip\tlatency_ms\t10.5\t-\t0\t0\t0\t0\t0\t0\t-"
                             "\t-\t-\t-\t-\t-\n", "t.tsv:3:", "column 20 (reason)");
    /* a timing outside the list; GPU timing of a figure that is not a latency */
    expect_error(HEADER "j.jsonl\t1\tresnet50\tx\tfit\tlatency_ms\t10.5\tsamples/resnet50.onnx\t1"
                        "\t0\t0\t0\t0\t0\tA100-SXM4-40GB\t-\tfp16\ttensorrt\tsoon\t-\n" ROW2,
                 "t.tsv:2:", "column 19 (timing): 'soon' is not wall, gpu or '-'");
    expect_error(HEADER ROW2 "j.jsonl\t1\tresnet50\tx\tskip\tmemory_mb\t3000\t-\t0\t0\t0\t0\t0\t0"
                             "\t-\t-\t-\t-\tgpu\twhy\n", "t.tsv:3:", "column 19 (timing)");
    /* int8 in eager PyTorch: the runtime cannot run it */
    expect_error(HEADER "j.jsonl\t1\tresnet50\tx\tfit\tlatency_ms\t10.5\tsamples/resnet50.onnx\t1"
                        "\t0\t0\t0\t0\t0\tA100-SXM4-40GB\t-\tint8\tpytorch\twall\t-\n" ROW2,
                 "t.tsv:2:", "precision");
    /* the value differs from the JSONL; a JSONL row not in the table */
    expect_error(HEADER ROW1("10.6", "A100-SXM4-40GB", "-") ROW2, "t.tsv:2:", "differs from");
    expect_error(HEADER ROW1("10.5", "A100-SXM4-40GB", "-"), "j.jsonl line 2",
                 "not in the table");
    /* a generation row on a graph without a decode phase */
    expect_error(HEADER "j.jsonl\t1\tresnet50\tx\tfit\tlatency_ms\t10.5\tsamples/resnet50.onnx\t1"
                        "\t0\t0\t128\t8\t0\tA100-SXM4-40GB\t-\tfp16\ttensorrt\twall\t-\n" ROW2,
                 "t.tsv:2:", "zoo:gpt, zoo:llama or zoo:moe");
    /* more real tokens than the padded sequence holds */
    expect_error(HEADER "j.jsonl\t1\tresnet50\tx\tfit\tlatency_ms\t10.5\tsamples/resnet50.onnx\t1"
                        "\t0\t8\t0\t0\t0\tA100-SXM4-40GB\t-\tfp16\ttensorrt\twall\t-\n" ROW2,
                 "t.tsv:2:", "column 11 (tokens): '8'");
    /* a diffusion pipeline on a graph that is not a denoiser; steps with tokens */
    expect_error(HEADER "j.jsonl\t1\tresnet50\tx\tfit\tlatency_ms\t10.5\tsamples/resnet50.onnx\t1"
                        "\t0\t0\t0\t0\t20\tA100-SXM4-40GB\t-\tfp16\ttensorrt\twall\t-\n" ROW2,
                 "t.tsv:2:", "a zoo:dit or zoo:unet denoiser");
    expect_error(HEADER "j.jsonl\t1\tresnet50\tx\tfit\tlatency_ms\t10.5\tzoo:unet\t1"
                        "\t0\t0\t128\t0\t20\tA100-SXM4-40GB\t-\tfp16\ttensorrt\twall\t-\n" ROW2,
                 "t.tsv:2:", "column 14 (steps)");

    char path[256];
    const char *names[] = {"t.tsv", "j.jsonl"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* ---- leave-one-model-out ------------------------------------------------------ */

/* Model "a": two ResNet-50 latencies; model "b": three, 3x slower (the
 * fit minimises an absolute log error, so the majority decides: b moves the
 * fit). A fold that leaves b out must fit exactly what a table without b
 * fits, and predict b with those constants. */
#define LJSONL "{\"latency_ms\": 2.0}\n{\"latency_ms\": 4.0}\n{\"latency_ms\": 20.0}\n" \
               "{\"latency_ms\": 6.0}\n{\"latency_ms\": 12.0}\n{\"latency_ms\": 60.0}\n"
#define LROW(line, model, meas, batch) \
    "l.jsonl\t" line "\t" model "\tfam" model "\tfit\tlatency_ms\t" meas "\t" \
    "samples/resnet50.onnx\t" batch "\t0\t0\t0\t0\t0\tA100-SXM4-40GB\t-\tfp16\ttensorrt\twall\t-\n"
#define LROWS_A LROW("1", "a", "2", "1") LROW("2", "a", "4", "8") \
    "l.jsonl\t3\ta\tx\tskip\tlatency_ms\t20\t-\t0\t0\t0\t0\t0\t0\t-\t-\t-\t-\t-\tw\n"
#define LROWS_B LROW("4", "b", "6", "1") LROW("5", "b", "12", "8") LROW("6", "b", "60", "64")
#define LSKIP_B "l.jsonl\t4\tb\tx\tskip\tlatency_ms\t6\t-\t0\t0\t0\t0\t0\t0\t-\t-\t-\t-\t-\tw\n" \
                "l.jsonl\t5\tb\tx\tskip\tlatency_ms\t12\t-\t0\t0\t0\t0\t0\t0\t-\t-\t-\t-\t-\tw\n" \
                "l.jsonl\t6\tb\tx\tskip\tlatency_ms\t60\t-\t0\t0\t0\t0\t0\t0\t-\t-\t-\t-\t-\tw\n"

static struct calib_graphs *load_set(const char *table, struct calib_set *s)
{
    write_file("l.tsv", table);
    char path[256], samples[4096];
    snprintf(path, sizeof path, "%s/l.tsv", dir);
    snprintf(samples, sizeof samples, "%s/samples", top());
    struct diag d = {0};
    if (calib_load(path, s, &d))
        fail_msg("%s", d.msg);
    struct calib_graphs *cg = calib_graphs_new(s, samples, &d);
    if (!cg)
        fail_msg("%s", d.msg);
    return cg;
}

static bool same_params(const struct sim_params *x, const struct sim_params *y)
{
    bool eq = true;
    for (int k = 0; k < calib_knob_count(); k++)
        eq = eq && calib_knob_value(x, k) == calib_knob_value(y, k);
    return eq;
}

/* Removes the files of the leave-one-model-out tests and their directory. */
static void remove_lomo_dir(void)
{
    char path[256];
    const char *names[] = {"l.tsv", "l.jsonl"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

static void test_lomo_excludes_model(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/dippm_lomo_XXXXXX");
    assert_non_null(mkdtemp(dir));
    write_file("l.jsonl", LJSONL);
    const struct sim_params *start = sim_params_default();
    struct diag d = {0};

    /* the reference: a table where b's rows are skipped */
    struct calib_set sa;
    struct calib_graphs *ga = load_set(HEADER LROWS_A LSKIP_B, &sa);
    struct sim_params only_a, only_a1;
    assert_int_equal(calib_fit(&sa, ga, start, false, 8, &only_a, &d), ST_OK);
    assert_int_equal(calib_fit(&sa, ga, start, true, 1, &only_a1, &d), ST_OK);

    /* both models; the fold that holds b out */
    struct calib_set s;
    struct calib_graphs *g = load_set(HEADER LROWS_A LROWS_B, &s);
    struct sim_params both, fold;
    assert_int_equal(calib_fit(&s, g, start, false, 8, &both, &d), ST_OK);
    assert_false(same_params(&both, &only_a)); /* b pulls the fit: the test can tell */
    for (int i = 0; i < s.n_rows; i++)
        s.rows[i].held_out = !strcmp(s.rows[i].model_id, "b");
    assert_int_equal(calib_fit(&s, g, start, false, 8, &fold, &d), ST_OK);
    assert_true(same_params(&fold, &only_a));
    for (int i = 0; i < s.n_rows; i++)
        s.rows[i].held_out = false;

    /* calib_folds (one round from start) predicts b with the constants that
     * the same search finds on the table without b */
    assert_int_equal(calib_folds(&s, g, start, 1, CF_MODEL, &d), ST_OK);
    double lomo_b[3];
    for (int i = 0; i < 3; i++)
        lomo_b[i] = s.rows[3 + i].pred_lomo;
    assert_true(s.rows[0].pred_lomo > 0); /* a's fold ran too */
    assert_int_equal(calib_evaluate(&s, g, &only_a1, &d), ST_OK);
    for (int i = 0; i < 3; i++) {
        assert_string_equal(s.rows[3 + i].model_id, "b");
        assert_true(lomo_b[i] > 0);
        assert_true(lomo_b[i] == s.rows[3 + i].pred);
    }
    calib_graphs_free(ga);
    calib_set_fini(&sa);
    calib_graphs_free(g);
    calib_set_fini(&s);
    remove_lomo_dir();
}

/* Leave one source family out: two models of one family are held out
 * together, and their fold predicts them with the constants the same
 * search finds on the other family's rows alone. */
#define FROW(line, model, fam, meas, batch) \
    "l.jsonl\t" line "\t" model "\t" fam "\tfit\tlatency_ms\t" meas "\t" \
    "samples/resnet50.onnx\t" batch "\t0\t0\t0\t0\t0\tA100-SXM4-40GB\t-\tfp16\ttensorrt\twall\t-\n"
#define FSKIP(line, meas) \
    "l.jsonl\t" line "\tx\tx\tskip\tlatency_ms\t" meas "\t-\t0\t0\t0\t0\t0\t0\t-\t-\t-\t-\t-\tw\n"
#define FROWS_Y FROW("5", "c", "famy", "12", "8") FROW("6", "c", "famy", "60", "64")

static void test_losfo_holds_out_family(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/dippm_lomo_XXXXXX");
    assert_non_null(mkdtemp(dir));
    write_file("l.jsonl", LJSONL);
    const struct sim_params *start = sim_params_default();
    struct diag d = {0};
    /* the reference: famx's rows skipped, one round from start */
    struct calib_set sy;
    struct calib_graphs *gy =
        load_set(HEADER FSKIP("1", "2") FSKIP("2", "4") FSKIP("3", "20") FSKIP("4", "6")
                     FROWS_Y, &sy);
    struct sim_params only_y1;
    assert_int_equal(calib_fit(&sy, gy, start, true, 1, &only_y1, &d), ST_OK);

    struct calib_set s;
    struct calib_graphs *g = load_set(HEADER FROW("1", "a", "famx", "2", "1")
                                      FROW("2", "a", "famx", "4", "8") FSKIP("3", "20")
                                      FROW("4", "b", "famx", "6", "1") FROWS_Y, &s);
    assert_int_equal(calib_folds(&s, g, start, 1, CF_FAMILY, &d), ST_OK);
    double losfo[3];
    static const int famx[3] = {0, 1, 3}; /* row 2 is the skipped line */
    for (int i = 0; i < 3; i++) {
        losfo[i] = s.rows[famx[i]].pred_losfo;
        assert_true(s.rows[famx[i]].pred_lomo < 0); /* the model folds did not run */
    }
    assert_true(s.rows[4].pred_losfo > 0); /* famy's fold ran too */
    assert_int_equal(calib_evaluate(&s, g, &only_y1, &d), ST_OK);
    for (int i = 0; i < 3; i++) {
        assert_string_equal(s.rows[famx[i]].family, "famx");
        assert_true(losfo[i] > 0);
        assert_true(losfo[i] == s.rows[famx[i]].pred);
    }
    calib_graphs_free(gy);
    calib_set_fini(&sy);
    calib_graphs_free(g);
    calib_set_fini(&s);
    remove_lomo_dir();
}

/* A constant that only the held-out model's rows depend on goes back to
 * its a-priori value in that model's fold: graph_kernel_us is pinned by
 * model g's CUDA-graph rows alone. */
#define GROW(line, model, meas, batch, rt) \
    "l.jsonl\t" line "\t" model "\tfam" model "\tfit\tlatency_ms\t" meas "\t" \
    "samples/resnet50.onnx\t" batch "\t0\t0\t0\t0\t0\tA100-SXM4-40GB\t-\tfp16\t" rt "\twall\t-\n"

static double knob(const struct sim_params *p, const char *name)
{
    for (int k = 0; k < calib_knob_count(); k++)
        if (!strcmp(calib_knob_name(k), name))
            return calib_knob_value(p, k);
    fail_msg("no knob %s", name);
    return 0;
}

static void test_lomo_resets_unpinned_knob(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/dippm_lomo_XXXXXX");
    assert_non_null(mkdtemp(dir));
    write_file("l.jsonl", "{\"latency_ms\": 2.0}\n{\"latency_ms\": 4.0}\n"
                          "{\"latency_ms\": 0.3}\n{\"latency_ms\": 0.5}\n");
    struct calib_set s;
    struct calib_graphs *g = load_set(HEADER GROW("1", "a", "2", "1", "tensorrt")
                                          GROW("2", "a", "4", "8", "tensorrt")
                                          GROW("3", "g", "0.3", "1", "tensorrt-graph")
                                          GROW("4", "g", "0.5", "2", "tensorrt-graph"), &s);
    struct diag d = {0};
    struct sim_params full, fold_g, fold_a;
    assert_int_equal(calib_fit(&s, g, sim_params_default(), false, 8, &full, &d), ST_OK);
    double prior = 2.0; /* the a-priori value the knob table documents */
    assert_true(fabs(knob(&full, "graph_kernel_us") - prior) > 0.1);
    for (int i = 0; i < s.n_rows; i++)
        s.rows[i].held_out = !strcmp(s.rows[i].model_id, "g");
    assert_int_equal(calib_fit(&s, g, &full, true, 2, &fold_g, &d), ST_OK);
    assert_true(knob(&fold_g, "graph_kernel_us") == prior);
    /* a's fold keeps what g's rows say (moved at most by the narrow search) */
    for (int i = 0; i < s.n_rows; i++)
        s.rows[i].held_out = !strcmp(s.rows[i].model_id, "a");
    assert_int_equal(calib_fit(&s, g, &full, true, 2, &fold_a, &d), ST_OK);
    assert_true(fabs(knob(&fold_a, "graph_kernel_us") - prior) > 0.1);
    calib_graphs_free(g);
    calib_set_fini(&s);
    remove_lomo_dir();
}

/* The same engine timed two ways: a row timed on the GPU alone (CUDA
 * events) is predicted without the host's cost of the call, a wall-clock
 * row with it; the difference is call_us whatever the constants. */
static void test_gpu_timed_row(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/dippm_lomo_XXXXXX");
    assert_non_null(mkdtemp(dir));
    write_file("l.jsonl", "{\"latency_ms\": 2.0}\n{\"latency_ms\": 2.0}\n");
    struct calib_set s;
    struct calib_graphs *g = load_set(
        HEADER GROW("1", "a", "2", "1", "tensorrt")
        "l.jsonl\t2\ta\tfama\tfit\tlatency_ms\t2\tsamples/resnet50.onnx\t1\t0\t0\t0\t0\t0\t"
        "A100-SXM4-40GB\t-\tfp16\ttensorrt\tgpu\t-\n", &s);
    assert_false(s.rows[0].gpu_timed);
    assert_true(s.rows[1].gpu_timed);
    struct sim_params p = *sim_params_default();
    struct diag d = {0};
    for (int k = 0; k < 2; k++) {
        p.call_us[RT_TENSORRT] = k ? 400 : 30;
        assert_int_equal(calib_evaluate(&s, g, &p, &d), ST_OK);
        assert_true(s.rows[1].pred > 0);
        assert_true(fabs(s.rows[0].pred - s.rows[1].pred - p.call_us[RT_TENSORRT] * 1e-3) < 1e-9);
    }
    calib_graphs_free(g);
    calib_set_fini(&s);
    remove_lomo_dir();
}

/* The fitted single-run rows exported for the GNN read back as a dataset:
 * each one is the table's row with its sequence length in the spec and its
 * model as the family; generations and offline sweeps are not exported. */
static void test_export_rows(void **state)
{
    (void)state;
    struct calib_set s;
    struct diag d = {0};
    load_committed(&s);
    int want = 0;
    for (int i = 0; i < s.n_rows; i++) {
        const struct calib_row *r = &s.rows[i];
        want += r->use == CU_FIT && r->steps == 0 && !calib_row_is_generation(r) &&
                (r->target == CT_LATENCY || r->target == CT_MEMORY);
    }
    size_t len;
    int n;
    char *text = calib_export_rows(&s, &len, &n);
    assert_int_equal(n, want);
    assert_true(n > 500);
    struct dataset ds;
    dataset_init(&ds);
    assert_int_equal(dataset_parse(&ds, "export", text, len, &d), ST_OK);
    assert_int_equal(ds.n, n);
    int seen = 0;
    double trt_call_ms = sim_params_default()->call_us[RT_TENSORRT] * 1e-3;
    assert_true(trt_call_ms > 0);
    for (int i = 0; i < ds.n; i++) {
        const struct dataset_row *r = &ds.rows[i];
        assert_int_equal(r->label, DATASET_MEASURED);
        /* FasterTransformer GPT-2 latencies time whole generations */
        assert_false(!strcmp(r->family, "gpt2-medium") && !isnan(r->target[GNN_T_LATENCY]));
        /* a100 line 248: TensorRT demoBERT (a CUDA graph), fp16, batch 1, sequence 128,
         * 0.62 ms timed on the GPU alone: exported with the host's cost of the call */
        if (!strcmp(r->family, "bert-base") && r->batch == 1 && r->prec == PREC_FP16 &&
            r->rt == RT_TENSORRT_GRAPH && !strcmp(r->gpu, "A100-SXM4-40GB") &&
            fabs(r->target[GNN_T_LATENCY] - (0.62 + trt_call_ms)) < 1e-9) {
            assert_string_equal(r->spec, "zoo:bert:preset=bert-base:seq=128");
            assert_string_equal(r->mig, "");
            seen++;
        }
    }
    assert_int_equal(seen, 1);
    dataset_fini(&ds);
    free(text);
    calib_set_fini(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_committed_table),
        cmocka_unit_test(test_bad_tables),
        cmocka_unit_test(test_lomo_excludes_model),
        cmocka_unit_test(test_losfo_holds_out_family),
        cmocka_unit_test(test_lomo_resets_unpinned_knob),
        cmocka_unit_test(test_gpu_timed_row),
        cmocka_unit_test(test_export_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
