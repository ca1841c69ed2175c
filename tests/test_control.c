/*
 * test_control.c - ONNX control flow (If, Loop, Scan) on real torch exports
 * and a crafted Scan (tests/models/control, made by tools/export_control.py):
 * counts equal the figures the export script computed from the torch modules
 * (tests/models/control/expected.json: parameters from model.parameters(),
 * MACs from the layer sizes and the trip counts the Python code runs), body
 * nodes carry their control node's name, a folded If condition picks its
 * branch, an unknown one costs the dearer branch, a Loop's trip count is
 * folded or bound through its "<loop>.trips" symbol, and malformed bodies
 * fail with the node named.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"
#include "graph/ir/ir.h"
#include "graph/onnx/onnx_load.h"
#include "graph/ops/shape.h"
#include "core/gpu.h"
#include "core/sim.h"

static cJSON *expected;

static const char *dir(void)
{
    const char *top = getenv("TOP_SRCDIR");
    return top ? top : ".";
}

static struct graph *load(const char *stem)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/models/control/%s.onnx", dir(), stem);
    struct diag d;
    diag_clear(&d);
    struct graph *g = onnx_load_file(path, &d);
    if (!g)
        fail_msg("%s", d.msg);
    return g;
}

static void infer(struct graph *g)
{
    struct diag d;
    diag_clear(&d);
    if (graph_infer(g, &d))
        fail_msg("%s: %s", g->name, d.msg);
    if (g->totals.n_unsupported + g->totals.n_unknown)
        fail_msg("%s: %d nodes not covered, %d with unknown inputs", g->name,
                 g->totals.n_unsupported, g->totals.n_unknown);
}

static double want(const char *model, const char *key)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(expected, model);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, key);
    if (!cJSON_IsNumber(v))
        fail_msg("expected.json: %s.%s missing", model, key);
    return v->valuedouble;
}

static int find_node(const struct graph *g, const char *name)
{
    for (int i = 0; i < g->n_nodes; i++)
        if (!strcmp(g->nodes[i].name, name))
            return i;
    fail_msg("no node '%s'", name);
    return -1;
}

static void bind(struct graph *g, const char *sym, int64_t v)
{
    struct diag d;
    diag_clear(&d);
    if (graph_sym_set(g, sym, v, &d))
        fail_msg("%s", d.msg);
}

static void test_if_runtime(void **state)
{
    (void)state;
    struct graph *g = load("if_runtime");
    infer(g);
    assert_float_equal(g->totals.params, want("if_runtime", "params"), 0.5);
    assert_float_equal(g->totals.macs, want("if_runtime", "macs"), 0.5);
    int ni = find_node(g, "/If");
    assert_int_equal(g->nodes[ni].n_body, 2);
    assert_non_null(strstr(g->nodes[ni].note, "more expensive 'then'"));
    assert_int_equal(g->totals.n_not_run, g->nodes[ni].body[1].n_nodes);
    /* every body node is named under the If and points back to it */
    for (int b = 0; b < 2; b++)
        for (int k = 0; k < g->nodes[ni].body[b].n_nodes; k++) {
            const struct node *n = &g->nodes[g->nodes[ni].body[b].nodes[k]];
            assert_int_equal(n->parent, ni);
            assert_true(!strncmp(n->name, b ? "/If/else/" : "/If/then/", 9));
            assert_int_equal(n->state, b ? NODE_NOT_RUN : NODE_OK);
        }
    graph_free(g);
}

static void test_if_static(void **state)
{
    (void)state;
    struct graph *g = load("if_static");
    infer(g);
    assert_float_equal(g->totals.params, want("if_static", "params"), 0.5);
    assert_float_equal(g->totals.macs, want("if_static", "macs"), 0.5);
    const struct node *n = &g->nodes[find_node(g, "/If")];
    assert_non_null(strstr(n->note, "folds to false"));
    assert_int_equal(g->totals.n_not_run, n->body[0].n_nodes);
    graph_free(g);
}

static void test_loop_for(void **state)
{
    (void)state;
    struct graph *g = load("loop_for");
    infer(g);
    assert_float_equal(g->totals.params, want("loop_for", "params"), 0.5);
    assert_float_equal(g->totals.macs, want("loop_for", "macs"), 0.5);
    assert_non_null(strstr(g->nodes[find_node(g, "/Loop")].note, "trip count 5 (folded)"));
    /* the batch scales every trip */
    bind(g, "batch", 4);
    infer(g);
    assert_float_equal(g->totals.macs, 4 * want("loop_for", "macs"), 0.5);
    graph_free(g);
}

static void test_loop_while_symbol(void **state)
{
    (void)state;
    struct graph *g = load("loop_while");
    assert_true(graph_sym_find(g, "/Loop.trips") >= 0);
    infer(g);
    double per = want("loop_while", "macs_per_trip");
    assert_float_equal(g->totals.params, want("loop_while", "params"), 0.5);
    assert_float_equal(g->totals.macs, per, 0.5); /* default: one trip */
    assert_non_null(strstr(g->nodes[find_node(g, "/Loop")].note, "symbol '/Loop.trips' = 1"));
    bind(g, "/Loop.trips", 7);
    infer(g);
    assert_float_equal(g->totals.macs, 7 * per, 0.5);
    graph_free(g);
}

/* The teacher on loop_while at trips T: kernel count and latency. */
static struct sim_result teach(struct graph *g, int64_t trips, enum runtime rt)
{
    bind(g, "/Loop.trips", trips);
    infer(g);
    struct config c;
    config_default(&c);
    c.gpu = gpu_find("A100-SXM4-40GB");
    c.rt = rt;
    struct sim_result r;
    struct diag d;
    diag_clear(&d);
    if (sim_run(g, &c, &r, &d))
        fail_msg("sim_run: %s", d.msg);
    sim_result_fini(&r);
    return r;
}

/* Every trip of a loop launches its body's kernels again: the kernel count
 * grows by the body's kernels per trip and the latency by at least their
 * per-kernel overhead (the work itself is in the scaled FLOPs and bytes). */
static void test_loop_trips_launch(void **state)
{
    (void)state;
    struct graph *g = load("loop_while");
    const struct sim_params *p = sim_params_default();
    for (int k = 0; k < 2; k++) {
        enum runtime rt = k ? RT_TENSORRT : RT_PYTORCH;
        struct sim_result one = teach(g, 1, rt), two = teach(g, 2, rt);
        struct sim_result many = teach(g, 10000, rt);
        int body = two.n_kernels - one.n_kernels;
        assert_true(body > 0);
        assert_int_equal(many.n_kernels - one.n_kernels, 9999 * body);
        double koh_ms = p->kernel_us[runtime_base(rt)] * 1e-3;
        assert_true(koh_ms > 0);
        assert_true(many.latency_ms - one.latency_ms >= 9999.0 * body * koh_ms);
    }
    graph_free(g);
}

static void test_loop_if_nested(void **state)
{
    (void)state;
    struct graph *g = load("loop_if");
    infer(g);
    assert_float_equal(g->totals.macs, want("loop_if", "macs"), 0.5);
    int li = find_node(g, "/Loop"), ii = find_node(g, "/Loop/body/If");
    assert_int_equal(g->nodes[ii].parent, li);
    assert_int_equal(graph_node_depth(g, ii), 1);
    int gemm = find_node(g, "/Loop/body/If/else/q1/Gemm");
    assert_int_equal(graph_node_depth(g, gemm), 2);
    graph_free(g);
}

static void test_sequence_loops(void **state)
{
    (void)state;
    static const char *const models[] = {"rnn_loop", "lstm2", "gru"};
    for (int i = 0; i < 3; i++) {
        struct graph *g = load(models[i]);
        double per = want(models[i], "macs_per_step");
        for (int seq = 128; seq >= 10; seq -= 118) {
            if (seq != 128)
                bind(g, "seq", seq);
            infer(g);
            assert_float_equal(g->totals.params, want(models[i], "params"), 0.5);
            if (g->totals.macs != seq * per)
                fail_msg("%s seq %d: %.0f MACs, expected %.0f", models[i], seq, g->totals.macs,
                         seq * per);
        }
        graph_free(g);
    }
}

static void test_scan(void **state)
{
    (void)state;
    struct graph *g = load("scan_rnn");
    infer(g);
    assert_float_equal(g->totals.params, want("scan_rnn", "params"), 0.5);
    assert_float_equal(g->totals.macs, want("scan_rnn", "macs"), 0.5);
    const struct value *ys = &g->values[graph_value_find(g, "ys")];
    assert_true(ys->shape.known);
    assert_int_equal(ys->shape.rank, 3);
    assert_int_equal(ys->shape.d[0], 6);
    assert_int_equal(ys->shape.d[2], 8);
    graph_free(g);
}

/* A Loop whose body has the wrong number of inputs fails naming the node. */
static void test_loop_bad_body(void **state)
{
    (void)state;
    struct graph *g = graph_new("bad");
    int x = graph_value_get(g, "x"), y = graph_value_get(g, "y");
    struct dim dm[1] = {{.v = 4, .sym = -1}};
    graph_value_set_type(g, x, DT_FLOAT, 1, dm);
    graph_input_add(g, x);
    int in[3] = {-1, -1, x};
    int loop = graph_node_add(g, OP_Loop, "L", in, 3, &y, 1);
    int b = graph_body_add(g, loop, "body", "body");
    int bi = graph_value_get(g, "L/body/i"), bo = graph_value_get(g, "L/body/o");
    graph_body_input(g, loop, b, bi); /* 1 input, expected 3 */
    int r = graph_node_add(g, OP_Relu, "L/body/relu", &bi, 1, &bo, 1);
    graph_body_node(g, loop, b, r);
    graph_body_output(g, loop, b, bo);
    graph_output_add(g, y);
    struct diag d;
    diag_clear(&d);
    assert_int_equal(graph_finalize(g, &d), ST_OK);
    assert_int_equal(graph_infer(g, &d), ST_ESHAPE);
    assert_non_null(strstr(d.msg, "node 'L' (Loop)"));
    assert_non_null(strstr(d.msg, "inputs, expected 3"));
    graph_free(g);
}

/* A body node reading its own control node's output is a cycle. */
static void test_body_cycle(void **state)
{
    (void)state;
    struct graph *g = graph_new("cyc");
    int c = graph_value_get(g, "c"), y = graph_value_get(g, "y"), z = graph_value_get(g, "z");
    graph_value_set_type(g, c, DT_BOOL, 0, NULL);
    graph_input_add(g, c);
    int ifn = graph_node_add(g, OP_If, "I", &c, 1, &y, 1);
    int b = graph_body_add(g, ifn, "then_branch", "then");
    graph_body_add(g, ifn, "else_branch", "else");
    int r = graph_node_add(g, OP_Relu, "I/then/r", &y, 1, &z, 1);
    graph_body_node(g, ifn, b, r);
    graph_output_add(g, y);
    struct diag d;
    diag_clear(&d);
    assert_int_equal(graph_finalize(g, &d), ST_EGRAPH);
    assert_non_null(strstr(d.msg, "cycle"));
    graph_free(g);
}

int main(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/models/control/expected.json", dir());
    size_t len;
    struct diag d;
    char *text = NULL;
    if (file_read_all(path, 1 << 20, &text, &len, &d) || !(expected = cJSON_Parse(text))) {
        fprintf(stderr, "test_control: cannot read %s\n", path);
        return 1;
    }
    free(text);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_if_runtime),       cmocka_unit_test(test_if_static),
        cmocka_unit_test(test_loop_for),         cmocka_unit_test(test_loop_while_symbol),
        cmocka_unit_test(test_loop_trips_launch),
        cmocka_unit_test(test_loop_if_nested),   cmocka_unit_test(test_sequence_loops),
        cmocka_unit_test(test_scan),             cmocka_unit_test(test_loop_bad_body),
        cmocka_unit_test(test_body_cycle),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    cJSON_Delete(expected);
    return rc;
}
