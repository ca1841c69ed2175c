/* test_features_batch.c - gnn_features_batch, whose node rows come from a
 * cache, against the straightforward computation: every node's
 * gnn_features_node, gnn_features_graph, gnn_features_anchor, the model's
 * normalisation, and an adjacency built here by collecting, sorting and
 * deduplicating each node's producers and consumers. Byte for byte, through
 * a sequence of calls on one cache that changes the batch, the precision,
 * the runtime, the GPU, the MIG slice, the graph (also edited in place),
 * the model's normalisation, and clears the cache: no call may see a row
 * made for another. And the forward keyed with the batches' keys, which
 * reuses the node classes of the call before when the key is unchanged,
 * against the forward that builds them every time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/gnn.h"
#include "core/gnn_features.h"
#include "core/gpu.h"
#include "graph/load.h"
#include "graph/ops/shape.h"
#include "util/xalloc.h"

/* A model with a normalisation that is not the identity (so a row made for
 * another normalisation would show) and every weight random (so that every
 * node's computation shows in the outputs). */
static void model_new(struct gnn_model *m)
{
    struct gnn_arch a = {FEAT_NODE_DIM, FEAT_GRAPH_DIM, 8, 2, 8};
    assert_int_equal(gnn_model_alloc(m, &a, NULL), ST_OK);
    uint64_t s = 12345;
    for (size_t k = 0; k < m->n_params; k++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        m->w[k] = (float)((double)(s >> 11) / 9007199254740992.0 - 0.5) * 0.2f;
    }
    for (int i = 0; i < a.fn; i++) {
        m->node_mean[i] = 0.1f * (float)(i % 5);
        m->node_std[i] = 0.5f + 0.25f * (float)(i % 4);
    }
    for (int i = 0; i < a.fg; i++) {
        m->graph_mean[i] = 0.2f * (float)(i % 3);
        m->graph_std[i] = 1.5f;
    }
}

static int cmp_int(const void *a, const void *b)
{
    return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

/* Node i's distinct producer nodes (side 0) or consumer nodes (side 1),
 * sorted, into out; their count. */
static int neighbours(const struct graph *g, int i, int side, int *out)
{
    int k = 0;
    for (int j = 0; j < g->n_nodes; j++) {
        int a = side ? i : j, b = side ? j : i; /* is there an edge a -> b? */
        const struct node *nb = &g->nodes[b];
        bool edge = false;
        for (int q = 0; q < nb->n_in && !edge; q++)
            edge = a != b && nb->in[q] >= 0 && g->values[nb->in[q]].producer == a;
        if (edge)
            out[k++] = j;
    }
    qsort(out, (size_t)k, sizeof(int), cmp_int);
    return k;
}

static void check_adjacency(const struct graph *g, const struct gnn_batch *b)
{
    int *row = xmalloc(sizeof(int) * (size_t)(g->n_nodes + 1));
    for (int side = 0; side < 2; side++) {
        const int *off = side ? b->succ_off : b->pred_off, *idx = side ? b->succ : b->pred;
        assert_int_equal(off[0], 0);
        for (int i = 0; i < g->n_nodes; i++) {
            int k = neighbours(g, i, side, row);
            if (off[i + 1] - off[i] != k)
                fail_msg("%s: node %d (%s) has %d %s, expected %d", g->name, i,
                         g->nodes[i].op_type, off[i + 1] - off[i],
                         side ? "successors" : "predecessors", k);
            assert_memory_equal(idx + off[i], row, sizeof(int) * (size_t)k);
        }
    }
    free(row);
}

/* The forward of the whole sequence of a test, keyed as predict_run runs
 * it (reusing the classes of the call before when the key says it may). */
static struct gnn_work keyed;

/* gnn_forward_keyed with the batch's key on the shared work struct against
 * gnn_forward on a fresh one: the same floats. */
static void check_forward(const struct gnn_model *m, const struct gnn_batch *b, uint64_t key)
{
    struct gnn_work fresh;
    gnn_work_init(&fresh);
    gnn_forward(m, b, &fresh);
    gnn_forward_keyed(m, b, key, &keyed);
    assert_memory_equal(keyed.out, fresh.out, sizeof(float) * GNN_T__COUNT);
    assert_memory_equal(keyed.p, fresh.p, sizeof(float) * (size_t)b->n_nodes);
    gnn_work_fini(&fresh);
}

/* One call of gnn_features_batch on c, checked against the reference;
 * the key it gave the batch. */
static uint64_t check_call(struct gnn_features_cache *c, const struct gnn_model *m,
                           struct graph *g, const struct config *cfg)
{
    struct diag d = {0};
    struct hw hw;
    struct sim_result sr = {0};
    int bs = graph_batch_sym(g);
    if (bs >= 0)
        assert_int_equal(graph_sym_set(g, g->syms[bs].name, cfg->batch, &d), ST_OK);
    assert_int_equal(graph_infer(g, &d), ST_OK);
    assert_int_equal(hw_from_config(cfg, &hw, &d), ST_OK);
    assert_int_equal(sim_run(g, cfg, &sr, &d), ST_OK);
    const struct gnn_batch *b = gnn_features_batch(c, m, g, cfg, &hw, &sr);

    int n = g->n_nodes;
    float *xn = xmalloc(sizeof(float) * (size_t)n * FEAT_NODE_DIM), xg[FEAT_GRAPH_DIM];
    float *w0 = xmalloc(sizeof(float) * (size_t)n), anchor[GNN_T__COUNT];
    for (int i = 0; i < n; i++)
        gnn_features_node(g, i, cfg, &hw, &sr, xn + (size_t)i * FEAT_NODE_DIM);
    gnn_features_graph(g, cfg, &hw, &sr, xg);
    gnn_features_anchor(&sr, n, w0, anchor);
    gnn_normalize_nodes(m, xn, (size_t)n);
    gnn_normalize_graph(m, xg, 1);

    assert_int_equal(b->n_graphs, 1);
    assert_int_equal(b->n_nodes, n);
    assert_int_equal(b->goff[0], 0);
    assert_int_equal(b->goff[1], n);
    for (int i = 0; i < n; i++)
        if (memcmp(b->xn + (size_t)i * FEAT_NODE_DIM, xn + (size_t)i * FEAT_NODE_DIM,
                   sizeof(float) * FEAT_NODE_DIM))
            fail_msg("%s batch %lld: node %d's row differs from gnn_features_node's", g->name,
                     (long long)cfg->batch, i);
    assert_memory_equal(b->xg, xg, sizeof xg);
    assert_memory_equal(b->w0, w0, sizeof(float) * (size_t)n);
    assert_memory_equal(b->anchor, anchor, sizeof anchor);
    check_adjacency(g, b);
    assert_true(c->key != 0);
    check_forward(m, b, c->key);
    free(xn);
    free(w0);
    sim_result_fini(&sr);
    return c->key;
}

static struct graph *load(const char *spec)
{
    struct diag d = {0};
    struct graph *g = model_load(spec, &d);
    if (!g)
        fail_msg("%s: %s", spec, d.msg);
    return g;
}

/* Batch, precision, runtime, GPU and MIG changes on one graph, and back. */
static void test_configs(void **state)
{
    (void)state;
    struct gnn_model m;
    model_new(&m);
    struct graph *g = load("zoo:bert:layers=2");
    struct gnn_features_cache c = {0};
    struct config cfg;
    config_default(&cfg);
    uint64_t k1 = check_call(&c, &m, g, &cfg);
    /* the same again: every row from the cache, the same key */
    assert_true(check_call(&c, &m, g, &cfg) == k1);
    cfg.batch = 8;
    assert_true(check_call(&c, &m, g, &cfg) != k1);
    cfg.prec = PREC_FP16;
    check_call(&c, &m, g, &cfg);
    cfg.rt = RT_TENSORRT;
    check_call(&c, &m, g, &cfg);
    cfg.gpu = 1;
    check_call(&c, &m, g, &cfg);
    cfg.mig = 0;
    check_call(&c, &m, g, &cfg);
    config_default(&cfg);
    k1 = check_call(&c, &m, g, &cfg);
    gnn_features_cache_clear(&c);
    assert_true(check_call(&c, &m, g, &cfg) != k1);
    gnn_features_cache_fini(&c);
    graph_free(g);
    gnn_model_fini(&m);
}

/* x[N,3,8,8] -> Conv(3x3, stride 2) -> Relu -> Add(r, r): a node that
 * takes one producer's output twice. */
static struct graph *build_small(void)
{
    struct graph *g = graph_new("small");
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
    int64_t k[2] = {3, 3}, st[2] = {2, 2};
    graph_attr_ints(g, conv, "kernel_shape", k, 2);
    graph_attr_ints(g, conv, "strides", st, 2);
    const char *ri[1] = {"c"}, *ro[1] = {"r"};
    graph_node_add_named(g, OP_Relu, "relu", ri, 1, ro, 1);
    const char *ai[2] = {"r", "r"}, *ao[1] = {"a"};
    graph_node_add_named(g, OP_Add, "add", ai, 2, ao, 1);
    graph_output_add(g, graph_value_get(g, "a"));
    assert_int_equal(graph_finalize(g, NULL), ST_OK);
    return g;
}

/* Other graphs through the same cache, larger and smaller, and back; then
 * one edited in place (an attribute and a shape), which a cache keyed on
 * the graph's address would get wrong. */
static void test_graphs(void **state)
{
    (void)state;
    struct gnn_model m;
    model_new(&m);
    struct gnn_features_cache c = {0};
    struct config cfg;
    config_default(&cfg);
    cfg.batch = 2;
    const char *specs[] = {"zoo:resnet:depth=50", "zoo:gpt:layers=3", "zoo:mobilenet_v2",
                           "zoo:resnet:depth=50"};
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        struct graph *g = load(specs[k]);
        check_call(&c, &m, g, &cfg);
        graph_free(g);
    }
    struct graph *g = build_small();
    check_call(&c, &m, g, &cfg);
    graph_free(g);
    g = load("zoo:resnet:depth=18");
    check_call(&c, &m, g, &cfg);
    int conv = -1;
    for (int i = 0; i < g->n_nodes && conv < 0; i++)
        if (g->nodes[i].op == OP_Conv && node_attr(&g->nodes[i], "strides"))
            conv = i;
    assert_true(conv >= 0);
    struct attr *st = (struct attr *)node_attr(&g->nodes[conv], "strides");
    assert_true(st->type == ATTR_INTS && st->n >= 1);
    st->ints[0] = st->ints[0] == 2 ? 1 : 2; /* the stride feature and the shapes change */
    check_call(&c, &m, g, &cfg);
    gnn_features_cache_fini(&c);
    graph_free(g);
    gnn_model_fini(&m);
}

/* a = Relu(x), b = Sigmoid(x), z = Tanh(x), p = Add(a, z), q = Add(b, z). */
static struct graph *build_fork(void)
{
    struct graph *g = graph_new("fork");
    int bs = graph_sym_add(g, "batch", 1);
    struct dim xd[2] = {{0, bs}, {16, -1}};
    int x = graph_value_get(g, "x");
    graph_value_set_type(g, x, DT_FLOAT, 2, xd);
    graph_input_add(g, x);
    const enum op ops[] = {OP_Relu, OP_Sigmoid, OP_Tanh, OP_Add, OP_Add};
    const char *in[][2] = {{"x"}, {"x"}, {"x"}, {"a", "z"}, {"b", "z"}};
    const char *out[] = {"a", "b", "z", "p", "q"};
    for (int k = 0; k < 5; k++)
        graph_node_add_named(g, ops[k], out[k], in[k], k < 3 ? 1 : 2, &out[k], 1);
    graph_output_add(g, graph_value_get(g, "p"));
    graph_output_add(g, graph_value_get(g, "q"));
    assert_int_equal(graph_finalize(g, NULL), ST_OK);
    return g;
}

/* The two Adds swap their first inputs: every node's own inputs (op,
 * shapes, counts, its place in the teacher's order) stay as they were, and
 * so do the rows, but the adjacency changes, and with it the Adds' classes
 * after the first layer: the batch must get a new key. */
static void test_rewired(void **state)
{
    (void)state;
    struct gnn_model m;
    model_new(&m);
    struct graph *g = build_fork();
    struct gnn_features_cache c = {0};
    struct config cfg;
    config_default(&cfg);
    uint64_t k1 = check_call(&c, &m, g, &cfg);
    size_t rows = sizeof(float) * (size_t)g->n_nodes * FEAT_NODE_DIM;
    float *before = xmalloc(rows);
    memcpy(before, c.xn, rows);
    int t = g->nodes[3].in[0];
    g->nodes[3].in[0] = g->nodes[4].in[0];
    g->nodes[4].in[0] = t;
    assert_int_equal(graph_finalize(g, NULL), ST_OK);
    assert_true(check_call(&c, &m, g, &cfg) != k1);
    assert_memory_equal(c.xn, before, rows); /* the rows alone did not tell */
    free(before);
    gnn_features_cache_fini(&c);
    graph_free(g);
    gnn_model_fini(&m);
}

/* A model with another normalisation through the same cache. */
static void test_normalisation(void **state)
{
    (void)state;
    struct gnn_model m;
    model_new(&m);
    struct graph *g = load("zoo:gpt:layers=3");
    struct gnn_features_cache c = {0};
    struct config cfg;
    config_default(&cfg);
    check_call(&c, &m, g, &cfg);
    m.node_mean[OPC__COUNT + FEAT_FREQ__COUNT + FEAT_N_macs] += 1.0f;
    check_call(&c, &m, g, &cfg);
    m.node_std[0] *= 2.0f;
    check_call(&c, &m, g, &cfg);
    gnn_features_cache_fini(&c);
    graph_free(g);
    gnn_model_fini(&m);
}

/* Many configurations of one graph: the cache is emptied before it
 * outgrows its bound, and rows stay right across that. */
static void test_many_calls(void **state)
{
    (void)state;
    struct gnn_model m;
    model_new(&m);
    struct graph *g = load("zoo:gpt:layers=2");
    struct gnn_features_cache c = {0};
    struct config cfg;
    config_default(&cfg);
    for (int b = 1; b <= 40; b++) {
        cfg.batch = b;
        check_call(&c, &m, g, &cfg);
        assert_true(c.n_ent <= 2 * (size_t)g->n_nodes + 1024);
    }
    gnn_features_cache_fini(&c);
    graph_free(g);
    gnn_model_fini(&m);
}

int main(void)
{
    xalloc_init();
    gnn_work_init(&keyed);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_configs),
        cmocka_unit_test(test_graphs),
        cmocka_unit_test(test_rewired),
        cmocka_unit_test(test_normalisation),
        cmocka_unit_test(test_many_calls),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    gnn_work_fini(&keyed);
    return rc;
}
