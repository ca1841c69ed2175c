/* test_features.c - node/graph features and adjacency on a hand-built graph
 * whose shapes and MACs are computed by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/gnn.h"
#include "core/gnn_features.h"
#include "core/gpu.h"
#include "graph/ops/shape.h"

/* x[N,3,8,8] -> Conv(4 filters, 3x3, stride 2, pad 1) -> Relu -> Add(r, r) */
static struct graph *build(void)
{
    struct graph *g = graph_new("t");
    int bs = graph_sym_add(g, "batch", 1);
    struct dim xd[4] = {{0, bs}, {3, -1}, {8, -1}, {8, -1}};
    struct dim wd[4] = {{4, -1}, {3, -1}, {3, -1}, {3, -1}};
    int x = graph_value_get(g, "x"), w = graph_value_get(g, "w");
    graph_value_set_type(g, x, DT_FLOAT, 4, xd);
    graph_value_set_type(g, w, DT_FLOAT, 4, wd);
    graph_input_add(g, x);
    graph_init_add(g, w);
    const char *ci[2] = {"x", "w"}, *co[1] = {"c"};
    int conv = graph_node_add_named(g, OP_Conv, "conv", ci, 2, co, 1);
    int64_t k[2] = {3, 3}, s[2] = {2, 2}, p[4] = {1, 1, 1, 1};
    graph_attr_ints(g, conv, "kernel_shape", k, 2);
    graph_attr_ints(g, conv, "strides", s, 2);
    graph_attr_ints(g, conv, "pads", p, 4);
    const char *ri[1] = {"c"}, *ro[1] = {"r"};
    graph_node_add_named(g, OP_Relu, "relu", ri, 1, ro, 1);
    const char *ai[2] = {"r", "r"}, *ao[1] = {"a"};
    graph_node_add_named(g, OP_Add, "add", ai, 2, ao, 1);
    graph_output_add(g, graph_value_get(g, "a"));
    assert_int_equal(graph_finalize(g, NULL), ST_OK);
    return g;
}

static int node_idx(const char *name)
{
    for (int i = 0; i < FEAT_NODE_DIM; i++)
        if (strcmp(gnn_features_node_name(i), name) == 0)
            return i;
    fail_msg("no node feature %s", name);
    return -1;
}

static int graph_idx(const char *name)
{
    for (int i = 0; i < FEAT_GRAPH_DIM; i++)
        if (strcmp(gnn_features_graph_name(i), name) == 0)
            return i;
    fail_msg("no graph feature %s", name);
    return -1;
}

static void test_node_features(void **state)
{
    (void)state;
    struct graph *g = build();
    struct diag d = {0};
    assert_int_equal(graph_sym_set(g, "batch", 2, &d), ST_OK);
    assert_int_equal(graph_infer(g, &d), ST_OK);
    struct config cfg;
    config_default(&cfg);
    cfg.batch = 2;
    cfg.prec = PREC_FP16;
    struct hw hw;
    assert_int_equal(hw_from_config(&cfg, &hw, &d), ST_OK);
    struct sim_result sr;
    assert_int_equal(sim_run(g, &cfg, &sr, &d), ST_OK);
    float f[FEAT_NODE_DIM];
    gnn_features_node(g, 0, &cfg, &hw, &sr, f);
    assert_float_equal(f[node_idx("opc:conv")], 1, 0);
    assert_float_equal(f[node_idx("opc:gemm")], 0, 0);
    assert_float_equal(f[node_idx("op:Conv")], 1, 0);
    assert_float_equal(f[node_idx("op:Relu")], 0, 0);
    assert_float_equal(f[node_idx("kernel_h")], 3, 0);
    assert_float_equal(f[node_idx("stride")], 2, 0);
    assert_float_equal(f[node_idx("depthwise")], 0, 0);
    /* output [2,4,4,4]: 128 elements; MACs = 128 * 3*3*3 = 3456 */
    assert_float_equal(f[node_idx("out_rank")], 4, 0);
    assert_float_equal(f[node_idx("out_d0")], log1p(2.0), 1e-6);
    assert_float_equal(f[node_idx("out_d1")], log1p(4.0), 1e-6);
    assert_float_equal(f[node_idx("out_elems")], log1p(128.0), 1e-6);
    assert_float_equal(f[node_idx("macs")], log1p(3456.0), 1e-3);
    assert_float_equal(f[node_idx("params")], log1p(108.0), 1e-3);
    /* fp16 of an fp32 graph: half the bytes */
    double moved = g->nodes[0].cost.bytes_read + g->nodes[0].cost.bytes_written;
    assert_float_equal(f[node_idx("prec_bytes")], log1p(moved / 2), 1e-4);
    /* The teacher's view of the node. */
    assert_float_equal(f[node_idx("t_teacher")], log1p(sr.nodes[0].time_s * 1e6), 1e-4);
    assert_float_equal(f[node_idx("share_teacher")], sr.nodes[0].time_share, 1e-6);
    assert_float_equal(f[node_idx("kernel")], sr.nodes[0].kernel, 0);
    gnn_features_node(g, 1, &cfg, &hw, &sr, f);
    assert_float_equal(f[node_idx("opc:elementwise")], 1, 0);
    assert_float_equal(f[node_idx("op:Relu")], 1, 0);
    assert_float_equal(f[node_idx("fan_out")], log1p(2.0), 1e-6); /* Add reads r twice */

    float gf[FEAT_GRAPH_DIM];
    gnn_features_graph(g, &cfg, &hw, &sr, gf);
    assert_float_equal(gf[graph_idx("teacher_ms")], log(sr.latency_ms), 1e-5);
    assert_float_equal(gf[graph_idx("teacher_mib")], log(sr.memory_mib), 1e-5);
    assert_float_equal(gf[graph_idx("batch")], 1, 1e-6);
    assert_float_equal(gf[graph_idx("prec:fp16")], 1, 0);
    assert_float_equal(gf[graph_idx("prec:fp32")], 0, 0);
    assert_float_equal(gf[graph_idx("rt:pytorch")], 1, 0);
    assert_float_equal(gf[graph_idx("n_nodes")], log1p(3.0), 1e-6);
    assert_float_equal(gf[graph_idx("is_mig")], 0, 0);
    assert_float_equal(gf[graph_idx("peak_tflops")], log(hw.peak_flops * 1e-12), 1e-4);
    /* The anchor: the teacher's shares (summing to 1) and logs. */
    float w0[3], an[GNN_T__COUNT];
    gnn_features_anchor(&sr, g->n_nodes, w0, an);
    double sum = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        assert_true(w0[i] >= 0);
        sum += w0[i];
    }
    assert_float_equal(sum, 1.0, 1e-6);
    assert_float_equal(an[GNN_T_LATENCY], log(sr.latency_ms), 1e-6);
    assert_float_equal(an[GNN_T_ENERGY], log(sr.energy_j), 1e-6);
    assert_float_equal(an[GNN_T_MEMORY], log(sr.memory_mib), 1e-6);
    /* fp8 has a slot of its own. */
    cfg.prec = PREC_FP8;
    gnn_features_graph(g, &cfg, &hw, &sr, gf);
    assert_float_equal(gf[graph_idx("prec:fp8")], 1, 0);
    assert_float_equal(gf[graph_idx("prec:int8")], 0, 0);
    sim_result_fini(&sr);
    graph_free(g);
}

static void test_adjacency(void **state)
{
    (void)state;
    struct graph *g = build();
    struct gnn_features_adj a = {0};
    gnn_features_adj_build(g, &a);
    assert_int_equal(a.n, 3);
    /* conv: no preds (x and w are not nodes); relu <- conv; add <- relu once */
    assert_int_equal(a.pred_off[1] - a.pred_off[0], 0);
    assert_int_equal(a.pred_off[2] - a.pred_off[1], 1);
    assert_int_equal(a.pred[a.pred_off[1]], 0);
    assert_int_equal(a.pred_off[3] - a.pred_off[2], 1);
    assert_int_equal(a.pred[a.pred_off[2]], 1);
    assert_int_equal(a.succ_off[2] - a.succ_off[1], 1);
    assert_int_equal(a.succ[a.succ_off[1]], 2);
    assert_int_equal(a.succ_off[3] - a.succ_off[2], 0);
    /* Rebuilding into the same struct reuses it and gives the same answer. */
    gnn_features_adj_build(g, &a);
    assert_int_equal(a.pred_off[3], 2);
    gnn_features_adj_fini(&a);
    graph_free(g);
}

static void test_schema(void **state)
{
    (void)state;
    uint64_t id = gnn_features_schema_id();
    assert_true(id == gnn_features_schema_id());
    assert_true(id != 0);
    for (int i = 0; i < FEAT_NODE_DIM; i++)
        for (int j = i + 1; j < FEAT_NODE_DIM; j++)
            assert_string_not_equal(gnn_features_node_name(i), gnn_features_node_name(j));
    for (int i = 0; i < FEAT_GRAPH_DIM; i++)
        for (int j = i + 1; j < FEAT_GRAPH_DIM; j++)
            assert_string_not_equal(gnn_features_graph_name(i), gnn_features_graph_name(j));
    assert_string_equal(gnn_features_node_name(FEAT_NODE_DIM), "?");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_node_features),
        cmocka_unit_test(test_adjacency),
        cmocka_unit_test(test_schema),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
