/*
 * test_tfjs_func.c - TF2 functional control flow in TF.js graph models
 * (bodies in modelTopology.library.function, as tensorflowjs_converter
 * writes them with --control_flow_v2=True): StatelessWhile -> Loop,
 * StatelessIf -> If, PartitionedCall -> the function inline.
 *
 * The functions work on x [1,8] and an 8x8 weight w (64 MACs per MatMul):
 *   body_fn(i, x, w, m) = (i + 1, relu(x @ w), w, m)
 *   cond_fn(i, x, w, m) = i < m
 *   mm_fn(x, w)         = relu(x @ w)        (then branch, call)
 *   id_fn(x, w)         = relu(x)            (else branch)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "graph/keras/keras.h"
#include "graph/keras/keras_tfjs_impl.h"
#include "graph/ops/shape.h"
#include "test_tfjs_util.h"

#define ARG(n) "{\"name\":\"" n "\"}"
#define FNODE(nm, op, ins) "{\"name\":\"" nm "\",\"op\":\"" op "\",\"input\":[" ins "]}"
#define FUNC(a) "{\"func\":{\"name\":\"" a "\"}}"

static const char library[] =
    "\"library\":{\"function\":["
    "{\"signature\":{\"name\":\"body_fn\",\"inputArg\":[" ARG("i") "," ARG("x") "," ARG("w") ","
    ARG("m") "],\"outputArg\":[" ARG("i_out") "," ARG("x_out") "," ARG("w_out") "," ARG("m_out")
    "]},\"nodeDef\":[{\"name\":\"one\",\"op\":\"Const\"},"
    FNODE("add", "AddV2", "\"i\",\"one:output:0\"") ","
    FNODE("mm", "MatMul", "\"x\",\"w\"") "," FNODE("relu", "Relu", "\"mm:product:0\"") "],"
    "\"ret\":{\"i_out\":\"add:z:0\",\"x_out\":\"relu:activations:0\",\"w_out\":\"w\","
    "\"m_out\":\"m\"}},"
    "{\"signature\":{\"name\":\"cond_fn\",\"inputArg\":[" ARG("i") "," ARG("x") "," ARG("w") ","
    ARG("m") "],\"outputArg\":[" ARG("c") "]},\"nodeDef\":["
    FNODE("less", "Less", "\"i\",\"m\"") "],\"ret\":{\"c\":\"less:z:0\"}},"
    "{\"signature\":{\"name\":\"mm_fn\",\"inputArg\":[" ARG("x") "," ARG("w") "],"
    "\"outputArg\":[" ARG("y") "]},\"nodeDef\":["
    FNODE("mm", "MatMul", "\"x\",\"w\"") "," FNODE("relu", "Relu", "\"mm:product:0\"") "],"
    "\"ret\":{\"y\":\"relu:activations:0\"}},"
    "{\"signature\":{\"name\":\"id_fn\",\"inputArg\":[" ARG("x") "," ARG("w") "],"
    "\"outputArg\":[" ARG("y") "]},\"nodeDef\":[" FNODE("relu", "Relu", "\"x\"") "],"
    "\"ret\":{\"y\":\"relu:activations:0\"}}]}";

/* %s: the node calling the functions (reading x, w, zero, m, c), %s: the library. */
static const char model_fmt[] =
    "{\"format\":\"graph-model\",\"modelTopology\":{\"node\":["
    "{\"name\":\"x\",\"op\":\"Placeholder\",\"attr\":{\"shape\":{\"shape\":{\"dim\":"
    "[{\"size\":\"1\"},{\"size\":\"8\"}]}}}},"
    "{\"name\":\"m\",\"op\":\"Placeholder\",\"attr\":{\"dtype\":{\"type\":\"DT_INT32\"},"
    "\"shape\":{\"shape\":{\"dim\":[]}}}},"
    "{\"name\":\"c\",\"op\":\"Placeholder\",\"attr\":{\"dtype\":{\"type\":\"DT_BOOL\"},"
    "\"shape\":{\"shape\":{\"dim\":[]}}}},"
    "{\"name\":\"w\",\"op\":\"Const\"},{\"name\":\"zero\",\"op\":\"Const\"},"
    "{\"name\":\"one\",\"op\":\"Const\"},%s,"
    "{\"name\":\"out\",\"op\":\"Relu\",\"input\":[\"%s\"]}],%s},"
    "\"weightsManifest\":[{\"paths\":[\"m.bin\"],\"weights\":["
    "{\"name\":\"w\",\"shape\":[8,8],\"dtype\":\"float32\"},"
    "{\"name\":\"zero\",\"shape\":[],\"dtype\":\"int32\"},"
    "{\"name\":\"one\",\"shape\":[],\"dtype\":\"int32\"}]}]}";

static struct graph *load(const char *call, const char *out)
{
    static char text[8192];
    snprintf(text, sizeof text, model_fmt, call, out, library);
    unsigned char b[256 + 8] = {0};
    b[260] = 1; /* one */
    struct diag d = {0};
    struct graph *g = keras_load_buffer_shards(text, strlen(text), "m.json", b, sizeof b, &d);
    if (!g)
        fail_msg("%s", d.msg);
    if (graph_infer(g, &d))
        fail_msg("%s", d.msg);
    return g;
}

/* The body runs "loop.trips" times (default 1); its MatMul is in the Loop's
 * body, named under it; the output keeps x's shape. */
static void test_stateless_while(void **state)
{
    (void)state;
    struct diag d = {0};
    struct graph *g = load("{\"name\":\"loop\",\"op\":\"StatelessWhile\",\"input\":[\"zero\","
                           "\"x\",\"w\",\"m\"],\"attr\":{\"cond\":" FUNC("cond_fn") ",\"body\":"
                           FUNC("body_fn") "}}", "loop:1");
    assert_int_equal(g->totals.n_unsupported + g->totals.n_unknown, 0);
    assert_true(g->totals.macs == 64.0);
    assert_true(g->totals.params == 64.0);
    const struct node *loop = node_op(g, "Loop"), *mm = node_op(g, "MatMul");
    assert_string_equal(loop->name, "loop");
    assert_true(mm->parent == loop - g->nodes);
    assert_string_equal(mm->name, "loop/body/mm");
    assert_int_equal(graph_sym_set(g, "loop.trips", 3, &d), ST_OK);
    assert_int_equal(graph_infer(g, &d), ST_OK);
    assert_true(g->totals.macs == 3.0 * 64);
    const struct value *o = &g->values[g->outputs[0]];
    assert_true(o->shape.known && o->shape.rank == 2 && o->shape.d[1] == 8);
    graph_free(g);
}

/* A run-time condition: the branch with the MatMul is the one costed. */
static void test_stateless_if(void **state)
{
    (void)state;
    struct graph *g = load("{\"name\":\"if\",\"op\":\"StatelessIf\",\"input\":[\"c\",\"x\",\"w\"],"
                           "\"attr\":{\"then_branch\":" FUNC("mm_fn") ",\"else_branch\":"
                           FUNC("id_fn") "}}", "if");
    assert_int_equal(g->totals.n_unsupported + g->totals.n_unknown, 0);
    assert_true(g->totals.macs == 64.0);
    const struct node *n = node_op(g, "If"), *gemm = node_op(g, "Gemm");
    assert_string_equal(n->name, "if");
    assert_string_equal(gemm->name, "if/then/mm");
    assert_true(gemm->parent == n - g->nodes);
    assert_int_equal(g->totals.n_not_run, 1); /* the else branch's Relu */
    graph_free(g);
}

static void test_partitioned_call(void **state)
{
    (void)state;
    struct graph *g = load("{\"name\":\"call\",\"op\":\"PartitionedCall\",\"input\":[\"x\",\"w\"],"
                           "\"attr\":{\"f\":" FUNC("mm_fn") "}}", "call");
    assert_int_equal(g->totals.n_unsupported + g->totals.n_unknown, 0);
    assert_true(g->totals.macs == 64.0);
    assert_true(g->totals.params == 64.0);
    assert_string_equal(node_op(g, "Gemm")->name, "call/mm");
    graph_free(g);
}

/* N calls into a library of N functions, each call naming a different
 * function near the end: the library is indexed once, not scanned per call
 * (N^2/2 entries looked at: 30k x 30k took 38 s). */
static void test_many_calls_linear(void **state)
{
    (void)state;
    enum { N = 1500 };
    size_t cap = (size_t)N * 400 + 1024, len = 0;
    char *t = malloc(cap);
    assert_non_null(t);
    len += (size_t)snprintf(t + len, cap - len,
        "{\"format\":\"graph-model\",\"modelTopology\":{\"node\":["
        "{\"name\":\"c0\",\"op\":\"Placeholder\",\"attr\":{\"shape\":{\"shape\":{\"dim\":"
        "[{\"size\":\"1\"},{\"size\":\"8\"}]}}}}");
    for (int i = 1; i <= N; i++)
        len += (size_t)snprintf(t + len, cap - len,
            ",{\"name\":\"c%d\",\"op\":\"PartitionedCall\",\"input\":[\"c%d\"],"
            "\"attr\":{\"f\":{\"func\":{\"name\":\"f%d\"}}}}", i, i - 1, N - i);
    len += (size_t)snprintf(t + len, cap - len, "],\"library\":{\"function\":[");
    for (int i = 0; i < N; i++)
        len += (size_t)snprintf(t + len, cap - len,
            "%s{\"signature\":{\"name\":\"f%d\",\"inputArg\":[" ARG("x") "],"
            "\"outputArg\":[" ARG("y") "]},\"nodeDef\":[" FNODE("relu", "Relu", "\"x\"") "],"
            "\"ret\":{\"y\":\"relu:activations:0\"}}", i ? "," : "", i);
    len += (size_t)snprintf(t + len, cap - len, "]}},\"weightsManifest\":[]}");
    assert_true(len < cap);
    unsigned long before = tg_funcs_looked_at();
    struct diag d = {0};
    struct graph *g = keras_load_buffer(t, len, "m.json", &d);
    if (!g)
        fail_msg("%s", d.msg);
    unsigned long looked = tg_funcs_looked_at() - before;
    assert_int_equal(graph_infer(g, &d), ST_OK);
    assert_int_equal(g->totals.n_unsupported + g->totals.n_unknown, 0);
    int relus = 0;
    for (int i = 0; i < g->n_nodes; i++)
        relus += !strcmp(g->nodes[i].op_type, "Relu");
    assert_int_equal(relus, N);
    graph_free(g);
    free(t);
    if (looked > 2 * N)
        fail_msg("%lu library entries looked at for %d calls into %d functions, expected at "
                 "most %d", looked, N, N, 2 * N);
}

/* A function missing from the library, or taking other arguments. */
static void test_bad_functions(void **state)
{
    (void)state;
    static char text[8192];
    struct diag d = {0};
    snprintf(text, sizeof text, model_fmt,
             "{\"name\":\"call\",\"op\":\"PartitionedCall\",\"input\":[\"x\"],"
             "\"attr\":{\"f\":" FUNC("nope") "}}", "call", library);
    assert_null(keras_load_buffer(text, strlen(text), "m.json", &d));
    assert_non_null(strstr(d.msg, "function 'nope' is not in modelTopology.library.function"));
    snprintf(text, sizeof text, model_fmt,
             "{\"name\":\"call\",\"op\":\"PartitionedCall\",\"input\":[\"x\"],"
             "\"attr\":{\"f\":" FUNC("mm_fn") "}}", "call", library);
    d = (struct diag){0};
    assert_null(keras_load_buffer(text, strlen(text), "m.json", &d));
    assert_non_null(strstr(d.msg, "function 'mm_fn' takes 2 arguments, its caller passes 1"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stateless_while),
        cmocka_unit_test(test_stateless_if),
        cmocka_unit_test(test_partitioned_call),
        cmocka_unit_test(test_bad_functions),
        cmocka_unit_test(test_many_calls_linear),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
