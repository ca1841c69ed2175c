/* test_json_graph.c - dippm JSON graph: exact round trip and clear errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "util/fileio.h"
#include "graph/json/json_graph.h"

static char *sample_path(const char *name)
{
    static char buf[4096];
    const char *dir = getenv("SAMPLES_DIR");
    snprintf(buf, sizeof buf, "%s/%s", dir ? dir : "samples", name);
    return buf;
}

static void test_roundtrip_sample(void **state)
{
    (void)state;
    struct diag d = {0};
    struct graph *g = json_graph_load(sample_path("tiny_cnn.json"), &d);
    assert_non_null(g);
    assert_int_equal(g->n_nodes, 8);
    assert_int_equal(g->n_syms, 3);
    size_t len1, len2;
    char *t1 = json_graph_write(g, &len1);
    struct graph *g2 = json_graph_parse(t1, len1, "rt1", &d);
    assert_non_null(g2);
    char *t2 = json_graph_write(g2, &len2);
    assert_int_equal(len1, len2);
    assert_string_equal(t1, t2);
    /* structure survives, not just text */
    assert_int_equal(g2->n_nodes, g->n_nodes);
    assert_int_equal(g2->n_values, g->n_values);
    const struct node *fc = &g2->nodes[7];
    assert_string_equal(fc->name, "fc");
    assert_int_equal(node_attr_int(fc, "transB", 0), 1);
    assert_int_equal(node_attr(fc, "alpha")->type, ATTR_FLOAT);
    assert_string_equal(g2->nodes[2].block, "body");
    int img = graph_value_find(g2, "image");
    assert_int_equal(g2->values[img].dims[0].sym, graph_sym_find(g2, "batch"));
    assert_int_equal(g2->values[img].dims[1].v, 3);
    free(t1);
    free(t2);
    graph_free(g);
    graph_free(g2);
}

static void test_roundtrip_all_attr_types(void **state)
{
    (void)state;
    const char *text =
        "{\"format\":\"dippm-graph\",\"version\":1,\"name\":\"a\",\"symbols\":{\"n\":7},"
        "\"inputs\":[{\"name\":\"x\",\"dtype\":\"float16\",\"shape\":[\"n\",null,5]}],"
        "\"initializers\":[{\"name\":\"s\",\"dtype\":\"int64\",\"shape\":[2],\"data\":[-1,5]},"
        "{\"name\":\"big\",\"dtype\":\"int64\",\"shape\":[2],\"data\":[\"9223372036854775807\",\"-9223372036854775807\"]},"
        "{\"name\":\"mask\",\"dtype\":\"float32\",\"shape\":[3],\"data\":[\"-inf\",\"inf\",0.5]}],"
        "\"nodes\":[{\"name\":\"r\",\"op\":\"Reshape\",\"inputs\":[\"x\",\"s\"],\"outputs\":[\"y\"],"
        "\"attrs\":{\"i\":3,\"f\":0.1,\"f1\":{\"float\":2.0},\"s\":\"txt\",\"is\":[1,-2],"
        "\"fs\":[0.5,1.25],\"fsi\":{\"floats\":[1,2]},\"ss\":[\"a\",\"b\"],\"e\":{\"ints\":[]},"
        "\"t\":{\"tensor\":{\"dtype\":\"float32\",\"shape\":[2],\"data\":[0.1,1e-30]}},"
        "\"g\":{\"graph\":null},\"end\":{\"int\":\"9223372036854775807\"},"
        "\"ends\":{\"ints\":[\"9223372036854775807\",3]}}},"
        "{\"name\":\"c\",\"op\":\"MyOp\",\"domain\":\"org.example\",\"inputs\":[\"y\",\"\"],"
        "\"outputs\":[\"z\"]}],"
        "\"outputs\":[{\"name\":\"z\"}]}";
    struct diag d = {0};
    struct graph *g = json_graph_parse(text, strlen(text), "attrs", &d);
    assert_non_null(g);
    const struct node *n = &g->nodes[0];
    assert_int_equal(node_attr(n, "i")->type, ATTR_INT);
    assert_int_equal(node_attr(n, "f")->type, ATTR_FLOAT);
    assert_int_equal(node_attr(n, "f1")->type, ATTR_FLOAT);
    assert_int_equal(node_attr(n, "fsi")->type, ATTR_FLOATS);
    assert_int_equal(node_attr(n, "e")->type, ATTR_INTS);
    assert_int_equal(node_attr(n, "e")->n, 0);
    assert_int_equal(node_attr(n, "t")->type, ATTR_TENSOR);
    assert_true(node_attr(n, "t")->t->f64[1] == 1e-30);
    assert_int_equal(node_attr(n, "g")->type, ATTR_GRAPH);
    assert_int_equal(g->values[graph_value_find(g, "s")].data->i64[0], -1);
    assert_true(g->values[graph_value_find(g, "big")].data->i64[0] == INT64_MAX);
    assert_true(g->values[graph_value_find(g, "big")].data->i64[1] == -INT64_MAX);
    assert_true(isinf(g->values[graph_value_find(g, "mask")].data->f64[0]));
    assert_true(node_attr_int(n, "end", 0) == INT64_MAX);
    assert_int_equal(g->nodes[1].n_in, 2);
    assert_int_equal(g->nodes[1].in[1], -1);
    size_t l1, l2;
    char *t1 = json_graph_write(g, &l1);
    struct graph *g2 = json_graph_parse(t1, l1, "rt", &d);
    assert_non_null(g2);
    char *t2 = json_graph_write(g2, &l2);
    assert_string_equal(t1, t2);
    assert_true(node_attr(&g2->nodes[0], "f")->f == 0.1);
    assert_int_equal(node_attr(&g2->nodes[0], "f1")->type, ATTR_FLOAT);
    assert_int_equal(g2->syms[0].def, 7);
    /* values a double cannot hold survive the round trip */
    assert_true(g2->values[graph_value_find(g2, "big")].data->i64[0] == INT64_MAX);
    assert_true(g2->values[graph_value_find(g2, "mask")].data->f64[0] == -INFINITY);
    assert_true(node_attr_int(&g2->nodes[0], "end", 0) == INT64_MAX);
    assert_true(node_attr(&g2->nodes[0], "ends")->ints[0] == INT64_MAX);
    free(t1);
    free(t2);
    graph_free(g);
    graph_free(g2);
}

struct bad_case {
    const char *what;
    const char *text;
    enum status st;
    const char *needle; /* must appear in the message */
};

#define HDR "{\"format\":\"dippm-graph\",\"version\":1,"
#define IN_X "\"inputs\":[{\"name\":\"x\",\"dtype\":\"float32\",\"shape\":[1,4]}],"

static const struct bad_case bad_cases[] = {
    {"truncated", HDR IN_X "\"nodes\":[{\"name\":\"a\"", ST_EPARSE, "invalid JSON"},
    {"not an object", "[1,2]", ST_EPARSE, "top level is an array"},
    {"wrong format", "{\"format\":\"onnx\",\"version\":1,\"nodes\":[]}", ST_EPARSE, "format"},
    {"missing version", "{\"format\":\"dippm-graph\",\"nodes\":[]}", ST_EPARSE, "version"},
    {"future version", "{\"format\":\"dippm-graph\",\"version\":9,\"nodes\":[]}", ST_EPARSE,
     "version"},
    {"missing nodes", HDR IN_X "\"outputs\":[]}", ST_EPARSE, "nodes: missing"},
    {"nodes not array", HDR IN_X "\"nodes\":{}}", ST_EPARSE, "nodes: is an object"},
    {"node missing op", HDR IN_X "\"nodes\":[{\"name\":\"a\",\"inputs\":[\"x\"],\"outputs\":[\"y\"]}]}",
     ST_EPARSE, "nodes[0]: missing \"op\""},
    {"unknown op", HDR IN_X "\"nodes\":[{\"name\":\"a\",\"op\":\"Cnov\",\"inputs\":[\"x\"],\"outputs\":[\"y\"]}]}",
     ST_EPARSE, "unknown op \"Cnov\""},
    {"missing outputs", HDR IN_X "\"nodes\":[{\"name\":\"a\",\"op\":\"Relu\",\"inputs\":[\"x\"]}]}",
     ST_EPARSE, "nodes[0]: missing \"outputs\""},
    {"input name wrong type", HDR IN_X "\"nodes\":[{\"name\":\"a\",\"op\":\"Relu\",\"inputs\":[3],\"outputs\":[\"y\"]}]}",
     ST_EPARSE, "nodes[0].inputs: entry 0 is a number"},
    {"dim wrong type", HDR "\"inputs\":[{\"name\":\"x\",\"shape\":[true]}],\"nodes\":[]}", ST_EPARSE,
     "inputs[0]: dim 0 is a boolean"},
    {"negative dim", HDR "\"inputs\":[{\"name\":\"x\",\"shape\":[-3]}],\"nodes\":[]}", ST_EPARSE,
     "dim 0 = -3"},
    {"huge dim", HDR "\"inputs\":[{\"name\":\"x\",\"shape\":[1099511627776]}],\"nodes\":[]}",
     ST_EPARSE, "dim 0"},
    {"rank too big", HDR "\"inputs\":[{\"name\":\"x\",\"shape\":[1,1,1,1,1,1,1,1,1]}],\"nodes\":[]}",
     ST_EPARSE, "rank 9"},
    {"bad dtype", HDR "\"inputs\":[{\"name\":\"x\",\"dtype\":\"float33\"}],\"nodes\":[]}", ST_EPARSE,
     "unknown dtype \"float33\""},
    {"input without name", HDR "\"inputs\":[{\"dtype\":\"float32\"}],\"nodes\":[]}", ST_EPARSE,
     "inputs[0]: missing \"name\""},
    {"bad symbol", HDR "\"symbols\":{\"batch\":-1}," IN_X "\"nodes\":[]}", ST_EPARSE,
     "symbols: \"batch\""},
    {"initializer without shape", HDR IN_X "\"initializers\":[{\"name\":\"w\",\"dtype\":\"float32\"}],\"nodes\":[]}",
     ST_EPARSE, "initializer 'w' needs"},
    {"data length mismatch", HDR IN_X "\"initializers\":[{\"name\":\"w\",\"dtype\":\"int64\",\"shape\":[3],\"data\":[1,2]}],\"nodes\":[]}",
     ST_EPARSE, "has 2 elements but the shape holds 3"},
    {"empty attr list", HDR IN_X "\"nodes\":[{\"name\":\"a\",\"op\":\"Relu\",\"inputs\":[\"x\"],\"outputs\":[\"y\"],\"attrs\":{\"k\":[]}}]}",
     ST_EPARSE, "nodes[0].attrs.k: empty list is ambiguous"},
    {"mixed attr list", HDR IN_X "\"nodes\":[{\"name\":\"a\",\"op\":\"Relu\",\"inputs\":[\"x\"],\"outputs\":[\"y\"],\"attrs\":{\"k\":[1,\"a\"]}}]}",
     ST_EPARSE, "mixes types"},
    {"bad typed attr", HDR IN_X "\"nodes\":[{\"name\":\"a\",\"op\":\"Relu\",\"inputs\":[\"x\"],\"outputs\":[\"y\"],\"attrs\":{\"k\":{\"complex\":1}}}]}",
     ST_EPARSE, "unknown attribute type \"complex\""},
    {"cycle", HDR IN_X "\"nodes\":[{\"name\":\"a\",\"op\":\"Add\",\"inputs\":[\"x\",\"b\"],\"outputs\":[\"a1\"]},"
     "{\"name\":\"b\",\"op\":\"Relu\",\"inputs\":[\"a1\"],\"outputs\":[\"b\"]}]}",
     ST_EGRAPH, "cycle"},
    {"dangling", HDR IN_X "\"nodes\":[{\"name\":\"a\",\"op\":\"Add\",\"inputs\":[\"x\",\"nowhere\"],\"outputs\":[\"y\"]}]}",
     ST_EGRAPH, "'nowhere'"},
    {"duplicate input", HDR "\"inputs\":[{\"name\":\"x\"},{\"name\":\"x\"}],\"nodes\":[]}", ST_EPARSE,
     "duplicate value name 'x'"},
    {"output never produced", HDR IN_X "\"nodes\":[],\"outputs\":[{\"name\":\"q\"}]}", ST_EGRAPH,
     "graph output 'q'"},
    {"empty graph", HDR "\"nodes\":[]}", ST_EPARSE, "no inputs and no nodes"},
    {"huge opset", HDR "\"opset\":1e300," IN_X "\"nodes\":[]}", ST_EPARSE, "opset: is a number, expected an integer from 1 to 1000"},
    {"opset string", HDR "\"opset\":\"17\"," IN_X "\"nodes\":[]}", ST_EPARSE, "opset: is a string"},
};

static void test_bad_inputs(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const struct bad_case *c = &bad_cases[i];
        struct diag d = {0};
        struct graph *g = json_graph_parse(c->text, strlen(c->text), "bad.json", &d);
        if (g || d.code != c->st || !strstr(d.msg, c->needle) || !strstr(d.msg, "bad.json"))
            fail_msg("case '%s': got status %d msg '%s', want %d containing '%s'", c->what,
                     d.code, d.msg, c->st, c->needle);
    }
}

static void test_truncation_never_crashes(void **state)
{
    (void)state;
    char *text;
    size_t len;
    struct diag d = {0};
    assert_int_equal(file_read_all(sample_path("tiny_cnn.json"), 1 << 20, &text, &len, &d), ST_OK);
    for (size_t cut = 0; cut < len; cut += 7) {
        struct diag e = {0};
        struct graph *g = json_graph_parse(text, cut, "cut", &e);
        assert_null(g);
        assert_int_not_equal(e.code, ST_OK);
    }
    free(text);
}

static void test_sniff(void **state)
{
    (void)state;
    assert_true(json_graph_sniff(HDR "}", strlen(HDR "}")));
    assert_false(json_graph_sniff("{\"class_name\":\"Sequential\"}", 27));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_sample),
        cmocka_unit_test(test_roundtrip_all_attr_types),
        cmocka_unit_test(test_bad_inputs),
        cmocka_unit_test(test_truncation_never_crashes),
        cmocka_unit_test(test_sniff),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
