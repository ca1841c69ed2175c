/*
 * test_measured.c - the measured-data reader (src/lab/measured.c) on hand-written
 * JSONL files: valid rows, and each malformed case gives the expected status
 * and a diag naming FILE:LINE and the field.
 *
 * Also a validation mode used by tests/measure/run.sh on the harness's output:
 *   test_measured --validate FILE [--allow-dry-run]
 * loads FILE with the reader and prints one tab-separated line per row
 * (model, batch, precision, runtime, gpu, mig, latency_ms, latency_p90_ms,
 * memory_mib, energy_j, source, graph), then "failed<TAB>N"; exit 0 on success,
 * 1 with the diag on stderr otherwise.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/gpu.h"
#include "lab/measured.h"

/* ---- fixture: a temporary directory with a graphs/ folder ---------------- */

struct fx {
    char dir[64];
    char jsonl[128];
    char graph[128];
};

static int setup(void **state)
{
    struct fx *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/test_measured.XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    char graphs[128];
    snprintf(graphs, sizeof graphs, "%s/graphs", f->dir);
    mkdir(graphs, 0700);
    snprintf(f->graph, sizeof f->graph, "%s/graphs/resnet18.onnx", f->dir);
    FILE *g = fopen(f->graph, "w");
    if (!g)
        return -1;
    fputs("stub", g); /* only its existence is checked by the reader */
    fclose(g);
    snprintf(f->jsonl, sizeof f->jsonl, "%s/measured.jsonl", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;
    unlink(f->jsonl);
    unlink(f->graph);
    char graphs[128];
    snprintf(graphs, sizeof graphs, "%s/graphs", f->dir);
    rmdir(graphs);
    rmdir(f->dir);
    free(f);
    return 0;
}

static void write_file(const struct fx *f, const char *text)
{
    FILE *o = fopen(f->jsonl, "w");
    assert_non_null(o);
    fputs(text, o);
    fclose(o);
}

/* A valid row (A100-SXM4-40GB, whole GPU), with FIELDS spliced in front so a
 * test can override one field (cJSON returns the first of duplicate keys). */
#define ROW_TAIL                                                                           \
    "\"schema\":\"dippm-measured/1\",\"model\":\"resnet18\",\"graph\":\"graphs/resnet18.onnx\"," \
    "\"input\":\"3x224x224\",\"batch\":8,\"precision\":\"fp16\",\"runtime\":\"pytorch\","    \
    "\"gpu\":\"A100-SXM4-40GB\",\"mig\":null,\"latency_ms\":2.5,\"latency_p90_ms\":2.75,"     \
    "\"memory_mib\":1430,\"memory_alloc_mib\":210.5,\"energy_j\":0.625,\"power_w\":250,"      \
    "\"driver\":\"535.104.05\",\"cuda\":\"12.1\",\"torch\":\"2.1.0\","                        \
    "\"timestamp\":\"2026-12-02T12:00:00Z\",\"source\":\"measured\"}\n"
#define ROW(fields) "{" fields ROW_TAIL

/* Loads f->jsonl expecting failure st with every needle in the message. */
static void expect_error(const struct fx *f, const struct measured_opts *o, enum status st,
                         const char *needle1, const char *needle2)
{
    struct measured_set s;
    struct diag d;
    diag_clear(&d);
    enum status got = measured_set_load(f->jsonl, o, &s, &d);
    if (got != st || !strstr(d.msg, needle1) || (needle2 && !strstr(d.msg, needle2)))
        print_error("status %s, message '%s'; expected %s with '%s' and '%s'\n",
                    status_str(got), d.msg, status_str(st), needle1, needle2 ? needle2 : "");
    assert_int_equal(got, st);
    assert_non_null(strstr(d.msg, needle1));
    if (needle2)
        assert_non_null(strstr(d.msg, needle2));
    /* The message names the file. */
    assert_non_null(strstr(d.msg, f->jsonl));
    assert_int_equal(s.n, 0);
    assert_null(s.rows);
    measured_set_fini(&s);
}

/* ---- valid files --------------------------------------------------------- */

static void test_valid_rows(void **state)
{
    struct fx *f = *state;
    write_file(f,
               ROW("")
               "\n"
               /* nulls, a MIG slice, tf32, batch 1 */
               "{\"mig\":\"3g.20gb\",\"batch\":1,\"precision\":\"tf32\",\"energy_j\":null,"
               "\"power_w\":null,\"memory_mib\":null,\"latency_p90_ms\":null,\"latency_ms\":0.75,"
               ROW_TAIL
               /* a configuration that ran out of memory: no labels, not returned */
               "{\"status\":\"oom\",\"batch\":4096,\"latency_ms\":null,\"latency_p90_ms\":null,"
               "\"memory_mib\":null,\"energy_j\":null," ROW_TAIL
               "   \n");
    struct measured_set s;
    struct diag d;
    diag_clear(&d);
    assert_int_equal(measured_set_load(f->jsonl, NULL, &s, &d), ST_OK);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.n_failed, 1);
    assert_int_equal(s.n_oom, 1);
    assert_int_equal(s.n_dry_run, 0);

    const struct measured_row *r = &s.rows[0];
    assert_string_equal(r->model, "resnet18");
    assert_string_equal(r->graph, f->graph); /* resolved against the JSONL's directory */
    assert_string_equal(r->input, "3x224x224");
    assert_int_equal(r->batch, 8);
    assert_int_equal(r->prec, PREC_FP16);
    assert_int_equal(r->rt, RT_PYTORCH);
    assert_int_equal(r->gpu, gpu_find("A100-SXM4-40GB"));
    assert_true(r->gpu >= 0);
    assert_int_equal(r->mig, -1);
    assert_true(r->latency_ms == 2.5);
    assert_true(r->latency_p90_ms == 2.75);
    assert_true(r->memory_mib == 1430);
    assert_true(r->memory_alloc_mib == 210.5);
    assert_true(r->energy_j == 0.625);
    assert_true(r->power_w == 250);
    assert_int_equal(r->source, MEASURED_SOURCE_MEASURED);
    assert_int_equal(r->line, 1);

    r = &s.rows[1];
    assert_int_equal(r->line, 3); /* the blank line 2 still counts */
    assert_int_equal(r->batch, 1);
    assert_int_equal(r->prec, PREC_TF32);
    assert_int_equal(r->mig, gpu_mig_find(gpu_get(r->gpu), "3g.20gb"));
    assert_true(r->mig >= 0);
    assert_true(r->latency_ms == 0.75);
    assert_true(isnan(r->energy_j));
    assert_true(isnan(r->power_w));
    assert_true(isnan(r->memory_mib));
    assert_true(isnan(r->latency_p90_ms));
    measured_set_fini(&s);
    assert_null(s.rows);
    measured_set_fini(NULL);
}

static void test_empty_file(void **state)
{
    struct fx *f = *state;
    write_file(f, "\n\n");
    struct measured_set s;
    assert_int_equal(measured_set_load(f->jsonl, NULL, &s, NULL), ST_OK);
    assert_int_equal(s.n, 0);
    measured_set_fini(&s);
}

static void test_absolute_graph_and_no_check(void **state)
{
    struct fx *f = *state;
    char text[2048];
    snprintf(text, sizeof text, ROW("\"graph\":\"%s\","), f->graph);
    write_file(f, text);
    struct measured_set s;
    assert_int_equal(measured_set_load(f->jsonl, NULL, &s, NULL), ST_OK);
    assert_string_equal(s.rows[0].graph, f->graph);
    measured_set_fini(&s);

    /* A missing graph is accepted only when checking is turned off. */
    write_file(f, ROW("\"graph\":\"graphs/none.onnx\","));
    struct measured_opts o;
    measured_opts_default(&o);
    o.check_graphs = false;
    assert_int_equal(measured_set_load(f->jsonl, &o, &s, NULL), ST_OK);
    assert_int_equal(s.n, 1);
    measured_set_fini(&s);
}

static void test_relative_file_name(void **state)
{
    struct fx *f = *state;
    write_file(f, ROW(""));
    char cwd[4096];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(f->dir), 0);
    struct measured_set s;
    struct diag d;
    diag_clear(&d);
    enum status st = measured_set_load("measured.jsonl", NULL, &s, &d);
    assert_int_equal(chdir(cwd), 0);
    assert_int_equal(st, ST_OK);
    /* "graphs/resnet18.onnx" next to a relative JSONL name comes back absolute */
    assert_string_equal(s.rows[0].graph, f->graph);
    measured_set_fini(&s);
}

/* ---- dry-run rows ---------------------------------------------------------- */

#define DRY ROW("\"source\":\"dry-run\",\"gpu\":\"cpu-dry-run\",\"memory_mib\":null,")

static void test_dry_run_refused(void **state)
{
    struct fx *f = *state;
    write_file(f, ROW("") DRY);
    expect_error(f, NULL, ST_EUNSUPPORTED, "measured.jsonl:2: field 'source'", "dry-run");
}

static void test_dry_run_allowed(void **state)
{
    struct fx *f = *state;
    write_file(f, DRY);
    struct measured_opts o;
    measured_opts_default(&o);
    o.allow_dry_run = true;
    struct measured_set s;
    assert_int_equal(measured_set_load(f->jsonl, &o, &s, NULL), ST_OK);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.n_dry_run, 1);
    assert_int_equal(s.rows[0].gpu, -1);
    assert_int_equal(s.rows[0].source, MEASURED_SOURCE_DRY_RUN);
    measured_set_fini(&s);

    o.dry_run_gpu = 0;
    assert_int_equal(measured_set_load(f->jsonl, &o, &s, NULL), ST_OK);
    assert_int_equal(s.rows[0].gpu, 0);
    measured_set_fini(&s);
}

static void test_dry_run_gpu_in_measured_row(void **state)
{
    struct fx *f = *state;
    write_file(f, ROW("\"gpu\":\"cpu-dry-run\","));
    expect_error(f, NULL, ST_EPARSE, ":1: field 'gpu'", "only valid in dry-run");
}

/* ---- malformed rows -------------------------------------------------------- */

static void test_bad_json_line(void **state)
{
    struct fx *f = *state;
    write_file(f, ROW("") ROW("") "{\"schema\": \"dippm-measured/1\", \"model\": }\n" ROW(""));
    expect_error(f, NULL, ST_EPARSE, "measured.jsonl:3: bad JSON", NULL);
}

static void test_trailing_garbage(void **state)
{
    struct fx *f = *state;
    write_file(f, "{\"a\":1} x\n");
    expect_error(f, NULL, ST_EPARSE, ":1: bad JSON at column 9", NULL);
}

static void test_truncated_last_line(void **state)
{
    struct fx *f = *state;
    write_file(f, ROW("") "{\"schema\":\"dippm-measured/1\",\"mod");
    expect_error(f, NULL, ST_EPARSE, ":2: bad JSON", "not terminated");
}

static void test_nul_byte(void **state)
{
    struct fx *f = *state;
    FILE *o = fopen(f->jsonl, "w");
    assert_non_null(o);
    fputs(ROW(""), o);
    fwrite("\0\0{}\n", 1, 5, o); /* would read as an empty line if cut at the NUL */
    fclose(o);
    expect_error(f, NULL, ST_EPARSE, ":2: NUL byte", NULL);
}

static void test_not_object(void **state)
{
    struct fx *f = *state;
    write_file(f, "[1,2]\n");
    expect_error(f, NULL, ST_EPARSE, ":1: expected a JSON object", "array");
}

static void test_missing_field(void **state)
{
    struct fx *f = *state;
    /* latency_ms removed from an otherwise complete row */
    write_file(f, "{\"schema\":\"dippm-measured/1\",\"model\":\"m\",\"graph\":\"graphs/resnet18.onnx\","
                  "\"batch\":1,\"precision\":\"fp32\",\"runtime\":\"pytorch\","
                  "\"gpu\":\"A100-SXM4-40GB\",\"source\":\"measured\"}\n");
    expect_error(f, NULL, ST_EPARSE, ":1: field 'latency_ms'", "missing");
    write_file(f, ROW("") "{\"schema\":\"dippm-measured/1\",\"source\":\"measured\"}\n");
    expect_error(f, NULL, ST_EPARSE, ":2: field 'model'", "missing");
}

static void test_unknown_gpu(void **state)
{
    struct fx *f = *state;
    write_file(f, ROW("\"gpu\":\"GeForce GTX 9999\","));
    expect_error(f, NULL, ST_ENOTFOUND, ":1: field 'gpu'", "GeForce GTX 9999");
    /* the message lists the table's names */
    expect_error(f, NULL, ST_ENOTFOUND, "not in dippm's GPU table: A100-SXM4-40GB", NULL);
}

static void test_unknown_mig(void **state)
{
    struct fx *f = *state;
    write_file(f, ROW("\"mig\":\"5g.99gb\","));
    expect_error(f, NULL, ST_ENOTFOUND, ":1: field 'mig'", "5g.99gb");
    expect_error(f, NULL, ST_ENOTFOUND, "not a MIG profile of A100-SXM4-40GB (1g.5gb, ", "3g.20gb");
}

static void test_negative_latency(void **state)
{
    struct fx *f = *state;
    write_file(f, ROW("") ROW("\"latency_ms\":-1.5,"));
    expect_error(f, NULL, ST_EPARSE, ":2: field 'latency_ms'", "out of range");
    write_file(f, ROW("\"latency_ms\":0,"));
    expect_error(f, NULL, ST_EPARSE, ":1: field 'latency_ms'", "out of range");
    /* null latency is only allowed in failed rows */
    write_file(f, ROW("\"latency_ms\":null,"));
    expect_error(f, NULL, ST_EPARSE, ":1: field 'latency_ms'", "null");
}

static void test_p90_below_median(void **state)
{
    struct fx *f = *state;
    write_file(f, ROW("\"latency_p90_ms\":2.0,"));
    expect_error(f, NULL, ST_EPARSE, ":1: field 'latency_p90_ms'", "below");
}

static void test_bad_types_and_values(void **state)
{
    struct fx *f = *state;
    write_file(f, ROW("\"batch\":\"8\","));
    expect_error(f, NULL, ST_EPARSE, "field 'batch'", "a string, expected a number");
    write_file(f, ROW("\"batch\":1.5,"));
    expect_error(f, NULL, ST_EPARSE, "field 'batch'", "not an integer");
    write_file(f, ROW("\"batch\":0,"));
    expect_error(f, NULL, ST_EPARSE, "field 'batch'", "out of range");
    write_file(f, ROW("\"precision\":\"fp4\","));
    expect_error(f, NULL, ST_EPARSE, "field 'precision'", "fp4");
    write_file(f, ROW("\"runtime\":\"openvino-gpu\","));
    expect_error(f, NULL, ST_EUNSUPPORTED, "field 'runtime'", "openvino-gpu");
    write_file(f, ROW("\"energy_j\":-3,"));
    expect_error(f, NULL, ST_EPARSE, "field 'energy_j'", "out of range");
    write_file(f, ROW("\"memory_mib\":true,"));
    expect_error(f, NULL, ST_EPARSE, "field 'memory_mib'", "a boolean");
    write_file(f, ROW("\"model\":\"\","));
    expect_error(f, NULL, ST_EPARSE, "field 'model'", "empty");
    write_file(f, ROW("\"status\":\"maybe\","));
    expect_error(f, NULL, ST_EPARSE, "field 'status'", "maybe");
    write_file(f, ROW("\"source\":\"simulated\","));
    expect_error(f, NULL, ST_EPARSE, "field 'source'", "simulated");
    write_file(f, ROW("\"schema\":\"dippm-measured/2\","));
    expect_error(f, NULL, ST_EUNSUPPORTED, "field 'schema'", "dippm-measured/2");
    write_file(f, ROW("\"graph\":\"graphs/none.onnx\","));
    expect_error(f, NULL, ST_ENOTFOUND, "field 'graph'", "graphs/none.onnx");
}

static void test_limits(void **state)
{
    struct fx *f = *state;
    /* A line one byte over the limit. */
    size_t n = MEASURED_MAX_LINE + 1;
    char *big = malloc(n + 2);
    memset(big, ' ', n);
    big[n] = '\n';
    big[n + 1] = '\0';
    write_file(f, big);
    free(big);
    expect_error(f, NULL, ST_ENOMEM, ":1: line longer than", NULL);

    /* A valid row padded with spaces to exactly the limit is accepted. */
    const char *row = ROW("");
    size_t rl = strlen(row) - 1; /* without its newline */
    big = malloc(MEASURED_MAX_LINE + 2);
    memcpy(big, row, rl);
    memset(big + rl, ' ', MEASURED_MAX_LINE - rl);
    big[MEASURED_MAX_LINE] = '\n';
    big[MEASURED_MAX_LINE + 1] = '\0';
    write_file(f, big);
    free(big);
    struct measured_set s;
    assert_int_equal(measured_set_load(f->jsonl, NULL, &s, NULL), ST_OK);
    assert_int_equal(s.n, 1);
    measured_set_fini(&s);

    write_file(f, ROW("") ROW("") ROW(""));
    struct measured_opts o;
    measured_opts_default(&o);
    o.max_rows = 2;
    expect_error(f, &o, ST_ENOMEM, ":3: more than 2 rows", NULL);
}

static void test_missing_file(void **state)
{
    struct fx *f = *state;
    struct measured_set s;
    struct diag d;
    diag_clear(&d);
    assert_int_equal(measured_set_load(f->jsonl, NULL, &s, &d), ST_EIO);
    assert_non_null(strstr(d.msg, f->jsonl));
    measured_set_fini(&s);
    /* a directory is refused, not read as an empty file */
    diag_clear(&d);
    assert_int_equal(measured_set_load(f->dir, NULL, &s, &d), ST_EIO);
    measured_set_fini(&s);
}

/* ---- validation mode for tests/measure/run.sh ---------------------------- */

static void print_num(double x)
{
    if (isnan(x))
        printf("\tnull");
    else
        printf("\t%.6g", x);
}

static int validate(const char *path, bool allow_dry_run)
{
    struct measured_opts o;
    measured_opts_default(&o);
    o.allow_dry_run = allow_dry_run;
    struct measured_set s;
    struct diag d;
    diag_clear(&d);
    if (measured_set_load(path, &o, &s, &d) != ST_OK) {
        fprintf(stderr, "test_measured: %s\n", d.msg);
        measured_set_fini(&s);
        return 1;
    }
    for (size_t i = 0; i < s.n; i++) {
        const struct measured_row *r = &s.rows[i];
        const struct gpu_spec *g = gpu_get(r->gpu);
        printf("%s\t%lld\t%s\t%s\t%s\t%s", r->model, (long long)r->batch,
               precision_name(r->prec), runtime_name(r->rt), g ? g->name : "-",
               g && r->mig >= 0 ? g->mig[r->mig].name : "-");
        print_num(r->latency_ms);
        print_num(r->latency_p90_ms);
        print_num(r->memory_mib);
        print_num(r->energy_j);
        printf("\t%s\t%s\n", measured_source_name(r->source), r->graph);
    }
    printf("failed\t%zu\n", s.n_failed);
    measured_set_fini(&s);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "--validate") == 0)
        return validate(argv[2], argc >= 4 && strcmp(argv[3], "--allow-dry-run") == 0);

    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_valid_rows, setup, teardown),
        cmocka_unit_test_setup_teardown(test_empty_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_absolute_graph_and_no_check, setup, teardown),
        cmocka_unit_test_setup_teardown(test_relative_file_name, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dry_run_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dry_run_allowed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dry_run_gpu_in_measured_row, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_json_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trailing_garbage, setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncated_last_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nul_byte, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_object, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_field, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_gpu, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_mig, setup, teardown),
        cmocka_unit_test_setup_teardown(test_negative_latency, setup, teardown),
        cmocka_unit_test_setup_teardown(test_p90_below_median, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_types_and_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_limits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_file, setup, teardown),
    };
    return cmocka_run_group_tests_name("measured", tests, NULL, NULL);
}
