/* test_ir.c - IR construction, validation, symbols and queries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "graph/ir/ir.h"

/* x -> A(Relu) -> a -> B(Add a,x) -> y */
static struct graph *small_graph(void)
{
    struct graph *g = graph_new("t");
    int si = graph_sym_add(g, "batch", 4);
    int x = graph_value_get(g, "x");
    struct dim d[2] = {{-1, si}, {8, -1}};
    graph_value_set_type(g, x, DT_FLOAT, 2, d);
    graph_input_add(g, x);
    const char *a_in[] = {"x"}, *a_out[] = {"a"};
    graph_node_add_named(g, OP_Relu, "A", a_in, 1, a_out, 1);
    const char *b_in[] = {"a", "x"}, *b_out[] = {"y"};
    graph_node_add_named(g, OP_Add, "B", b_in, 2, b_out, 1);
    graph_output_add(g, graph_value_get(g, "y"));
    return g;
}

static void test_build_and_finalize(void **state)
{
    (void)state;
    struct graph *g = small_graph();
    struct diag d = {0};
    assert_int_equal(graph_finalize(g, &d), ST_OK);
    assert_int_equal(g->n_nodes, 2);
    assert_int_equal(g->n_values, 3);
    assert_int_equal(graph_edge_count(g), 3);
    assert_int_equal(g->nodes[0].op, OP_Relu);
    assert_int_equal(g->nodes[1].op, OP_Add);
    int x = graph_value_find(g, "x");
    assert_int_equal(g->values[x].n_consumers, 2);
    assert_int_equal(g->values[graph_value_find(g, "a")].producer, 0);
    assert_int_equal(g->topo[0], 0);
    assert_int_equal(g->topo[1], 1);
    graph_free(g);
}

static void test_topo_order_reversed_file_order(void **state)
{
    (void)state;
    /* nodes listed consumer-first must still come out producer-first */
    struct graph *g = graph_new("rev");
    int x = graph_value_get(g, "x");
    graph_input_add(g, x);
    const char *b_in[] = {"a"}, *b_out[] = {"y"};
    graph_node_add_named(g, OP_Relu, "second", b_in, 1, b_out, 1);
    const char *a_in[] = {"x"}, *a_out[] = {"a"};
    graph_node_add_named(g, OP_Sigmoid, "first", a_in, 1, a_out, 1);
    struct diag d = {0};
    assert_int_equal(graph_finalize(g, &d), ST_OK);
    assert_string_equal(g->nodes[g->topo[0]].name, "first");
    assert_string_equal(g->nodes[g->topo[1]].name, "second");
    graph_free(g);
}

static void test_cycle_detected(void **state)
{
    (void)state;
    struct graph *g = graph_new("cyc");
    graph_input_add(g, graph_value_get(g, "x"));
    const char *a_in[] = {"x", "b"}, *a_out[] = {"a"};
    graph_node_add_named(g, OP_Add, "A", a_in, 2, a_out, 1);
    const char *b_in[] = {"a"}, *b_out[] = {"b"};
    graph_node_add_named(g, OP_Relu, "B", b_in, 1, b_out, 1);
    struct diag d = {0};
    assert_int_equal(graph_finalize(g, &d), ST_EGRAPH);
    assert_non_null(strstr(d.msg, "cycle"));
    graph_free(g);
}

static void test_dangling_input(void **state)
{
    (void)state;
    struct graph *g = graph_new("dang");
    graph_input_add(g, graph_value_get(g, "x"));
    const char *in[] = {"x", "ghost"}, *out[] = {"y"};
    graph_node_add_named(g, OP_Add, "adder", in, 2, out, 1);
    struct diag d = {0};
    assert_int_equal(graph_finalize(g, &d), ST_EGRAPH);
    assert_non_null(strstr(d.msg, "adder"));
    assert_non_null(strstr(d.msg, "ghost"));
    graph_free(g);
}

static void test_duplicate_node_name(void **state)
{
    (void)state;
    struct graph *g = graph_new("dup");
    graph_input_add(g, graph_value_get(g, "x"));
    const char *in[] = {"x"}, *o1[] = {"a"}, *o2[] = {"b"};
    graph_node_add_named(g, OP_Relu, "same", in, 1, o1, 1);
    graph_node_add_named(g, OP_Relu, "same", in, 1, o2, 1);
    struct diag d = {0};
    assert_int_equal(graph_finalize(g, &d), ST_EGRAPH);
    assert_non_null(strstr(d.msg, "duplicate node name 'same'"));
    graph_free(g);
}

static void test_output_produced_twice(void **state)
{
    (void)state;
    struct graph *g = graph_new("twice");
    graph_input_add(g, graph_value_get(g, "x"));
    const char *in[] = {"x"}, *o[] = {"a"};
    graph_node_add_named(g, OP_Relu, "r1", in, 1, o, 1);
    graph_node_add_named(g, OP_Relu, "r2", in, 1, o, 1);
    struct diag d = {0};
    assert_int_equal(graph_finalize(g, &d), ST_EGRAPH);
    assert_non_null(strstr(d.msg, "already produced"));
    graph_free(g);
}

static void test_arity_checked(void **state)
{
    (void)state;
    struct graph *g = graph_new("arity");
    graph_input_add(g, graph_value_get(g, "x"));
    const char *in[] = {"x"}, *o[] = {"y"};
    graph_node_add_named(g, OP_Add, "lonely_add", in, 1, o, 1);
    struct diag d = {0};
    assert_int_equal(graph_finalize(g, &d), ST_EGRAPH);
    assert_non_null(strstr(d.msg, "lonely_add"));
    assert_non_null(strstr(d.msg, "expected 2 to 2"));
    graph_free(g);
}

static void test_unknown_op_is_not_fatal(void **state)
{
    (void)state;
    struct graph *g = graph_new("custom");
    graph_input_add(g, graph_value_get(g, "x"));
    int in = graph_value_find(g, "x"), out = graph_value_get(g, "y");
    graph_node_add_type(g, "FancyOp", "com.example", "f", &in, 1, &out, 1);
    struct diag d = {0};
    assert_int_equal(graph_finalize(g, &d), ST_OK);
    assert_int_equal(g->nodes[0].op, OP__UNKNOWN);
    graph_free(g);
}

/* A node added by op enum is the node a file naming that op gives: the same
 * catalogue entry, op_type, empty domain and generated name, for every op. */
static void test_node_by_enum_is_node_by_name(void **state)
{
    (void)state;
    struct graph *g = graph_new("ops");
    int x = graph_value_get(g, "x");
    for (int op = 0; op < OP__COUNT; op++) {
        char out[32];
        snprintf(out, sizeof out, "y%d", op);
        int o = graph_value_get(g, out);
        int a = graph_node_add(g, (enum op)op, NULL, &x, 1, &o, 1);
        int b = graph_node_add_type(g, op_name((enum op)op), "", NULL, &x, 1, &o, 1);
        assert_int_equal(g->nodes[a].op, op);
        assert_int_equal(g->nodes[b].op, op);
        assert_string_equal(g->nodes[a].op_type, g->nodes[b].op_type);
        assert_string_equal(g->nodes[a].domain, "");
        char name[64];
        snprintf(name, sizeof name, "%s_%d", op_name((enum op)op), a);
        assert_string_equal(g->nodes[a].name, name);
    }
    graph_free(g);
}

static void test_optional_inputs(void **state)
{
    (void)state;
    struct graph *g = graph_new("opt");
    int x = graph_value_get(g, "x");
    graph_input_add(g, x);
    int in[3] = {x, -1, -1};
    int out = graph_value_get(g, "y");
    graph_node_add(g, OP_Clip, "clip", in, 3, &out, 1);
    struct diag d = {0};
    assert_int_equal(graph_finalize(g, &d), ST_OK);
    assert_int_equal(graph_edge_count(g), 1);
    graph_free(g);
}

static void test_symbols(void **state)
{
    (void)state;
    struct graph *g = small_graph();
    struct diag d = {0};
    assert_int_equal(graph_finalize(g, &d), ST_OK);
    int bs = graph_batch_sym(g);
    assert_int_equal(bs, graph_sym_find(g, "batch"));
    const struct value *x = &g->values[graph_value_find(g, "x")];
    assert_int_equal(graph_dim_value(g, &x->dims[0]), 4);
    assert_int_equal(graph_sym_set(g, "batch", 64, &d), ST_OK);
    assert_int_equal(graph_dim_value(g, &x->dims[0]), 64);
    assert_int_equal(graph_dim_value(g, &x->dims[1]), 8);
    assert_int_equal(graph_sym_set(g, "batch", 0, &d), ST_ERANGE);
    diag_clear(&d);
    assert_int_equal(graph_sym_set(g, "seq", 5, &d), ST_EUSAGE);
    assert_non_null(strstr(d.msg, "batch")); /* lists the known symbols */
    graph_sym_reset(g);
    assert_int_equal(graph_dim_value(g, &x->dims[0]), 4);
    graph_free(g);
}

static void test_batch_symbol_from_first_input(void **state)
{
    (void)state;
    struct graph *g = graph_new("b");
    int s = graph_sym_add(g, "unk__0", 1);
    int x = graph_value_get(g, "x");
    struct dim d[1] = {{-1, s}};
    graph_value_set_type(g, x, DT_FLOAT, 1, d);
    graph_input_add(g, x);
    assert_int_equal(graph_batch_sym(g), s);
    graph_free(g);
}

static void test_attrs(void **state)
{
    (void)state;
    struct graph *g = small_graph();
    int64_t ks[2] = {3, 3};
    graph_attr_ints(g, 0, "kernel_shape", ks, 2);
    graph_attr_int(g, 0, "group", 2);
    graph_attr_float(g, 0, "alpha", 0.25);
    graph_attr_string(g, 0, "mode", "constant");
    const struct node *n = &g->nodes[0];
    const int64_t *v;
    assert_int_equal(node_attr_ints(n, "kernel_shape", &v), 2);
    assert_int_equal(v[1], 3);
    assert_int_equal(node_attr_int(n, "group", 1), 2);
    assert_int_equal(node_attr_int(n, "missing", 7), 7);
    assert_true(node_attr_float(n, "alpha", 0) == 0.25);
    assert_string_equal(node_attr_str(n, "mode", ""), "constant");
    assert_int_equal(node_attr_ints(n, "group", &v), 0); /* wrong type -> absent */
    graph_free(g);
}

static void test_histogram(void **state)
{
    (void)state;
    struct graph *g = graph_new("h");
    graph_input_add(g, graph_value_get(g, "x"));
    const char *names[] = {"a", "b", "c", "d"};
    const char *prev = "x";
    for (int i = 0; i < 4; i++) {
        const char *in[] = {prev}, *out[] = {names[i]};
        graph_node_add_named(g, i == 2 ? OP_Sigmoid : OP_Relu, NULL, in, 1, out, 1);
        prev = names[i];
    }
    struct op_count h[8];
    assert_int_equal(graph_op_histogram(g, h, 8), 2);
    assert_string_equal(h[0].op_type, "Relu");
    assert_int_equal(h[0].count, 3);
    assert_int_equal(h[1].count, 1);
    graph_free(g);
}

static void test_dtypes(void **state)
{
    (void)state;
    enum dtype dt;
    assert_int_equal(dtype_size(DT_FLOAT16), 2);
    assert_int_equal(dtype_size(DT_INT64), 8);
    assert_string_equal(dtype_name(DT_BFLOAT16), "bfloat16");
    assert_true(dtype_from_name("float32", &dt) && dt == DT_FLOAT);
    assert_true(dtype_from_name("fp16", &dt) && dt == DT_FLOAT16);
    assert_false(dtype_from_name("float33", &dt));
    assert_string_equal(dtype_name((enum dtype)99), "undefined");
}

static void test_free_null(void **state)
{
    (void)state;
    graph_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_and_finalize),
        cmocka_unit_test(test_topo_order_reversed_file_order),
        cmocka_unit_test(test_cycle_detected),
        cmocka_unit_test(test_dangling_input),
        cmocka_unit_test(test_duplicate_node_name),
        cmocka_unit_test(test_output_produced_twice),
        cmocka_unit_test(test_arity_checked),
        cmocka_unit_test(test_unknown_op_is_not_fatal),
        cmocka_unit_test(test_node_by_enum_is_node_by_name),
        cmocka_unit_test(test_optional_inputs),
        cmocka_unit_test(test_symbols),
        cmocka_unit_test(test_batch_symbol_from_first_input),
        cmocka_unit_test(test_attrs),
        cmocka_unit_test(test_histogram),
        cmocka_unit_test(test_dtypes),
        cmocka_unit_test(test_free_null),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
