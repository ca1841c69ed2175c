/*
 * test_tfjs_loop.c - TF1 while loops in TF.js graph models (frames of
 * Enter/Merge/Switch/LoopCond/NextIteration/Exit mapped to an IR Loop).
 *
 * The loop below carries x [1,8] through a MatMul (Gemm) by an 8x8 weight and a
 * Relu per iteration (64 MACs), with a counter i from 0 by 1:
 *
 *   i = 0; while (COND) { x = relu(x @ w); i = i + 1 }; out = relu(x)
 *
 * COND is Less(i, n) with n a Const in the shard (5: the trip count folds
 * to 5, 320 MACs), Less(i, m) with m a Placeholder (the symbol
 * "loop.trips", default 1, scales the body), or LogicalAnd(Less(i, 10),
 * Less(i, m)) (the symbol, at most 10). A map_fn-style loop reads rows of
 * a TensorList and writes one item per iteration (a scan output); a loop
 * nests in another.
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

#define ENTER(nm, in, c)                                                                       \
    "{\"name\":\"" nm "\",\"op\":\"Enter\",\"input\":[\"" in "\"],\"attr\":{\"frame_name\":"   \
    "{\"s\":\"bG9vcA==\"},\"is_constant\":{\"b\":" c "}}},"
#define NODE(nm, op, ins) "{\"name\":\"" nm "\",\"op\":\"" op "\",\"input\":[" ins "]},"

/* %s: the condition's nodes (ending in one named "less"). */
static const char loop_fmt[] =
    "{\"format\":\"graph-model\",\"modelTopology\":{\"node\":["
    "{\"name\":\"x\",\"op\":\"Placeholder\",\"attr\":{\"shape\":{\"shape\":{\"dim\":"
    "[{\"size\":\"1\"},{\"size\":\"8\"}]}}}},"
    "{\"name\":\"m\",\"op\":\"Placeholder\",\"attr\":{\"dtype\":{\"type\":\"DT_INT32\"},"
    "\"shape\":{\"shape\":{\"dim\":[]}}}},"
    "{\"name\":\"w\",\"op\":\"Const\"},{\"name\":\"zero\",\"op\":\"Const\"},"
    "{\"name\":\"one\",\"op\":\"Const\"},{\"name\":\"n\",\"op\":\"Const\"},"
    "{\"name\":\"ten\",\"op\":\"Const\"},"
    ENTER("i_enter", "zero", "false") ENTER("x_enter", "x", "false")
    ENTER("w_enter", "w", "true") ENTER("n_enter", "n", "true") ENTER("m_enter", "m", "true")
    NODE("i_merge", "Merge", "\"i_enter\",\"i_next\"")
    NODE("x_merge", "Merge", "\"x_enter\",\"x_next\"")
    "%s"
    NODE("cond", "LoopCond", "\"less\"")
    NODE("i_sw", "Switch", "\"i_merge\",\"cond\"")
    NODE("x_sw", "Switch", "\"x_merge\",\"cond\"")
    NODE("i_id", "Identity", "\"i_sw:1\"")
    NODE("x_id", "Identity", "\"x_sw:1\"")
    NODE("i_add", "AddV2", "\"i_id\",\"one\"")
    NODE("mm", "MatMul", "\"x_id\",\"w_enter\"")
    NODE("relu", "Relu", "\"mm\"")
    NODE("i_next", "NextIteration", "\"i_add\"")
    NODE("x_next", "NextIteration", "\"relu\"")
    NODE("x_exit", "Exit", "\"x_sw\"")
    "{\"name\":\"out\",\"op\":\"Relu\",\"input\":[\"x_exit\"]}]},"
    "\"weightsManifest\":[{\"paths\":[\"m.bin\"],\"weights\":["
    "{\"name\":\"w\",\"shape\":[8,8],\"dtype\":\"float32\"},"
    "{\"name\":\"zero\",\"shape\":[],\"dtype\":\"int32\"},"
    "{\"name\":\"one\",\"shape\":[],\"dtype\":\"int32\"},"
    "{\"name\":\"n\",\"shape\":[],\"dtype\":\"int32\"},"
    "{\"name\":\"ten\",\"shape\":[],\"dtype\":\"int32\"}]}]}";

#define SHARD_BYTES (256 + 16)

static void make_shard(unsigned char *b, int32_t n)
{
    const int32_t v[4] = {0, 1, n, 10};
    memset(b, 0, SHARD_BYTES);
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 4; i++)
            b[256 + 4 * k + i] = (unsigned char)((uint32_t)v[k] >> (8 * i));
}

static struct graph *load(const char *cond, int32_t n, bool shard)
{
    static char text[8192];
    snprintf(text, sizeof text, loop_fmt, cond);
    unsigned char b[SHARD_BYTES];
    make_shard(b, n);
    struct diag d = {0};
    struct graph *g = shard ? keras_load_buffer_shards(text, strlen(text), "m.json", b, sizeof b, &d)
                            : keras_load_buffer(text, strlen(text), "m.json", &d);
    if (!g)
        fail_msg("%s", d.msg);
    if (graph_infer(g, &d))
        fail_msg("%s", d.msg);
    return g;
}

#define LESS_N NODE("less", "Less", "\"i_merge\",\"n_enter\"")
#define LESS_M NODE("less", "Less", "\"i_merge\",\"m_enter\"")
#define LESS_BOTH                                                                              \
    NODE("l1", "Less", "\"i_merge\",\"ten\"") NODE("l2", "Less", "\"i_merge\",\"m_enter\"")      \
    NODE("less", "LogicalAnd", "\"l1\",\"l2\"")

/* n = 5 in the shard: five iterations of the body's 64 MACs, no symbol. */
static void test_folded_trip_count(void **state)
{
    (void)state;
    struct graph *g = load(LESS_N, 5, true);
    assert_int_equal(g->totals.n_unsupported + g->totals.n_unknown, 0);
    assert_true(g->totals.macs == 5.0 * 64);
    const struct node *loop = node_op(g, "Loop"), *mm = node_op(g, "Gemm");
    assert_string_equal(loop->name, "loop");
    assert_non_null(strstr(loop->note, "trip count 5"));
    assert_true(mm->parent == loop - g->nodes);
    assert_string_equal(mm->name, "loop/body/mm");
    assert_non_null(strstr(mm->note, "x5 iterations"));
    assert_int_equal(graph_sym_find(g, "loop.trips"), -1);
    /* the output keeps the carried value's shape */
    const struct value *o = &g->values[g->outputs[0]];
    assert_true(o->shape.known && o->shape.rank == 2 && o->shape.d[1] == 8);
    graph_free(g);
    g = load(LESS_N, 0, true); /* n = 0: the body never runs */
    assert_true(g->totals.macs == 0.0);
    graph_free(g);
}

/* A limit known only at run time: the symbol "loop.trips" (default 1)
 * scales the body; the shard's absence unfolds a Const limit too. */
static void test_trip_symbol(void **state)
{
    (void)state;
    struct diag d = {0};
    struct graph *g = load(LESS_M, 5, true);
    int s = graph_sym_find(g, "loop.trips");
    assert_true(s >= 0);
    assert_int_equal(g->syms[s].def, 1);
    assert_true(g->totals.macs == 64.0);
    assert_non_null(strstr(node_op(g, "Loop")->note, "symbol 'loop.trips'"));
    assert_int_equal(graph_sym_set(g, "loop.trips", 7, &d), ST_OK);
    assert_int_equal(graph_infer(g, &d), ST_OK);
    assert_true(g->totals.macs == 7.0 * 64);
    graph_free(g);
    g = load(LESS_N, 5, false);
    assert_true(graph_sym_find(g, "loop.trips") >= 0);
    assert_true(g->totals.macs == 64.0);
    graph_free(g);
}

/* LogicalAnd(i < 10, i < m): 10 bounds the symbol. */
static void test_trip_bound(void **state)
{
    (void)state;
    struct diag d = {0};
    struct graph *g = load(LESS_BOTH, 5, true);
    assert_int_equal(graph_sym_set(g, "loop.trips", 4, &d), ST_OK);
    assert_int_equal(graph_infer(g, &d), ST_OK);
    assert_true(g->totals.macs == 4.0 * 64);
    assert_int_equal(graph_sym_set(g, "loop.trips", 20, &d), ST_OK);
    assert_int_equal(graph_infer(g, &d), ST_OK);
    assert_true(g->totals.macs == 10.0 * 64);
    graph_free(g);
}

/* map_fn: rows of x [3,8] from a TensorList, one item per iteration into
 * another; TensorListStack gives [3,8] after three folded iterations. */
static const char scan_model[] =
    "{\"format\":\"graph-model\",\"modelTopology\":{\"node\":["
    "{\"name\":\"x\",\"op\":\"Placeholder\",\"attr\":{\"shape\":{\"shape\":{\"dim\":"
    "[{\"size\":\"3\"},{\"size\":\"8\"}]}}}},"
    "{\"name\":\"w\",\"op\":\"Const\"},{\"name\":\"zero\",\"op\":\"Const\"},"
    "{\"name\":\"one\",\"op\":\"Const\"},{\"name\":\"n\",\"op\":\"Const\"},"
    "{\"name\":\"es\",\"op\":\"Const\"},"
    NODE("src", "TensorListFromTensor", "\"x\",\"es\"")
    NODE("acc", "TensorListReserve", "\"es\",\"n\"")
    ENTER("i_enter", "zero", "false") ENTER("l_enter", "src", "false")
    ENTER("a_enter", "acc", "false") ENTER("w_enter", "w", "true") ENTER("n_enter", "n", "true")
    NODE("i_merge", "Merge", "\"i_enter\",\"i_next\"")
    NODE("l_merge", "Merge", "\"l_enter\",\"l_next\"")
    NODE("a_merge", "Merge", "\"a_enter\",\"a_next\"")
    NODE("less", "Less", "\"i_merge\",\"n_enter\"")
    NODE("cond", "LoopCond", "\"less\"")
    NODE("i_sw", "Switch", "\"i_merge\",\"cond\"")
    NODE("l_sw", "Switch", "\"l_merge\",\"cond\"")
    NODE("a_sw", "Switch", "\"a_merge\",\"cond\"")
    NODE("i_id", "Identity", "\"i_sw:1\"")
    NODE("row", "TensorListGetItem", "\"l_sw:1\",\"i_id\",\"es\"")
    NODE("row2", "ExpandDims", "\"row\",\"zero\"")
    NODE("mm", "MatMul", "\"row2\",\"w_enter\"")
    NODE("set", "TensorListSetItem", "\"a_sw:1\",\"i_id\",\"mm\"")
    NODE("i_add", "AddV2", "\"i_id\",\"one\"")
    NODE("i_next", "NextIteration", "\"i_add\"")
    NODE("l_next", "NextIteration", "\"l_sw:1\"")
    NODE("a_next", "NextIteration", "\"set\"")
    NODE("a_exit", "Exit", "\"a_sw\"")
    "{\"name\":\"out\",\"op\":\"TensorListStack\",\"input\":[\"a_exit\",\"es\"]}]},"
    "\"weightsManifest\":[{\"paths\":[\"m.bin\"],\"weights\":["
    "{\"name\":\"w\",\"shape\":[8,8],\"dtype\":\"float32\"},"
    "{\"name\":\"zero\",\"shape\":[],\"dtype\":\"int32\"},"
    "{\"name\":\"one\",\"shape\":[],\"dtype\":\"int32\"},"
    "{\"name\":\"n\",\"shape\":[],\"dtype\":\"int32\"},"
    "{\"name\":\"es\",\"shape\":[],\"dtype\":\"int32\"}]}]}";

static void test_tensorlist_scan(void **state)
{
    (void)state;
    unsigned char b[SHARD_BYTES];
    make_shard(b, 3);
    struct diag d = {0};
    struct graph *g = keras_load_buffer_shards(scan_model, strlen(scan_model), "m.json", b,
                                               sizeof b, &d);
    if (!g)
        fail_msg("%s", d.msg);
    assert_int_equal(graph_infer(g, &d), ST_OK);
    assert_int_equal(g->totals.n_unsupported + g->totals.n_unknown, 0);
    assert_true(g->totals.macs == 3.0 * 64);
    const struct value *o = &g->values[g->outputs[0]];
    assert_true(o->shape.known);
    assert_int_equal(o->shape.rank, 3); /* [trips, 1, 8] */
    assert_int_equal(o->shape.d[0], 3);
    assert_int_equal(o->shape.d[2], 8);
    graph_free(g);
}

/* A loop in a loop: 3 outer iterations, each running 4 inner ones of the
 * 64-MAC body; the weight enters both frames (an Enter of an Enter). */
#define ENTER_F(nm, in, c, f)                                                                  \
    "{\"name\":\"" nm "\",\"op\":\"Enter\",\"input\":[\"" in "\"],\"attr\":{\"frame_name\":"   \
    "{\"s\":\"" f "\"},\"is_constant\":{\"b\":" c "}}},"
#define OUTER "b3V0ZXI="
#define INNER "aW5uZXI="
static const char nested_model[] =
    "{\"format\":\"graph-model\",\"modelTopology\":{\"node\":["
    "{\"name\":\"x\",\"op\":\"Placeholder\",\"attr\":{\"shape\":{\"shape\":{\"dim\":"
    "[{\"size\":\"1\"},{\"size\":\"8\"}]}}}},"
    "{\"name\":\"w\",\"op\":\"Const\"},{\"name\":\"zero\",\"op\":\"Const\"},"
    "{\"name\":\"one\",\"op\":\"Const\"},{\"name\":\"n3\",\"op\":\"Const\"},"
    "{\"name\":\"n4\",\"op\":\"Const\"},"
    ENTER_F("oi_enter", "zero", "false", OUTER) ENTER_F("ox_enter", "x", "false", OUTER)
    ENTER_F("ow_enter", "w", "true", OUTER) ENTER_F("on_enter", "n3", "true", OUTER)
    NODE("oi_merge", "Merge", "\"oi_enter\",\"oi_next\"")
    NODE("ox_merge", "Merge", "\"ox_enter\",\"ox_next\"")
    NODE("oless", "Less", "\"oi_merge\",\"on_enter\"")
    NODE("ocond", "LoopCond", "\"oless\"")
    NODE("oi_sw", "Switch", "\"oi_merge\",\"ocond\"")
    NODE("ox_sw", "Switch", "\"ox_merge\",\"ocond\"")
    NODE("oi_id", "Identity", "\"oi_sw:1\"") NODE("ox_id", "Identity", "\"ox_sw:1\"")
    NODE("oi_add", "AddV2", "\"oi_id\",\"one\"")
    ENTER_F("ij_enter", "zero", "false", INNER) ENTER_F("ix_enter", "ox_id", "false", INNER)
    ENTER_F("iw_enter", "ow_enter", "true", INNER) ENTER_F("in_enter", "n4", "true", INNER)
    NODE("ij_merge", "Merge", "\"ij_enter\",\"ij_next\"")
    NODE("ix_merge", "Merge", "\"ix_enter\",\"ix_next\"")
    NODE("iless", "Less", "\"ij_merge\",\"in_enter\"")
    NODE("icond", "LoopCond", "\"iless\"")
    NODE("ij_sw", "Switch", "\"ij_merge\",\"icond\"")
    NODE("ix_sw", "Switch", "\"ix_merge\",\"icond\"")
    NODE("ij_id", "Identity", "\"ij_sw:1\"") NODE("ix_id", "Identity", "\"ix_sw:1\"")
    NODE("ij_add", "AddV2", "\"ij_id\",\"one\"")
    NODE("mm", "MatMul", "\"ix_id\",\"iw_enter\"") NODE("relu", "Relu", "\"mm\"")
    NODE("ij_next", "NextIteration", "\"ij_add\"") NODE("ix_next", "NextIteration", "\"relu\"")
    NODE("ix_exit", "Exit", "\"ix_sw\"")
    NODE("oi_next", "NextIteration", "\"oi_add\"") NODE("ox_next", "NextIteration", "\"ix_exit\"")
    NODE("ox_exit", "Exit", "\"ox_sw\"")
    "{\"name\":\"out\",\"op\":\"Relu\",\"input\":[\"ox_exit\"]}]},"
    "\"weightsManifest\":[{\"paths\":[\"m.bin\"],\"weights\":["
    "{\"name\":\"w\",\"shape\":[8,8],\"dtype\":\"float32\"},"
    "{\"name\":\"zero\",\"shape\":[],\"dtype\":\"int32\"},"
    "{\"name\":\"one\",\"shape\":[],\"dtype\":\"int32\"},"
    "{\"name\":\"n3\",\"shape\":[],\"dtype\":\"int32\"},"
    "{\"name\":\"n4\",\"shape\":[],\"dtype\":\"int32\"}]}]}";

static void test_nested_loops(void **state)
{
    (void)state;
    unsigned char b[SHARD_BYTES];
    make_shard(b, 3); /* zero, one, 3, then 10: n4 is patched to 4 */
    b[256 + 12] = 4;
    struct diag d = {0};
    struct graph *g = keras_load_buffer_shards(nested_model, strlen(nested_model), "m.json", b,
                                               sizeof b, &d);
    if (!g)
        fail_msg("%s", d.msg);
    assert_int_equal(graph_infer(g, &d), ST_OK);
    assert_int_equal(g->totals.n_unsupported + g->totals.n_unknown, 0);
    assert_true(g->totals.macs == 3.0 * 4 * 64);
    assert_true(g->totals.params == 64.0);
    const struct node *mm = node_op(g, "Gemm");
    assert_string_equal(mm->name, "inner/body/mm");
    assert_string_equal(g->nodes[mm->parent].name, "inner");
    assert_string_equal(g->nodes[g->nodes[mm->parent].parent].name, "outer");
    graph_free(g);
}

static const struct value *output_named(const struct graph *g, const char *name)
{
    for (int i = 0; i < g->n_outputs; i++)
        if (!strcmp(g->values[g->outputs[i]].name, name))
            return &g->values[g->outputs[i]];
    fail_msg("no output %s", name);
    return NULL;
}

static void assert_shape(const struct value *v, int rank, const int64_t *d)
{
    assert_true(v->shape.known);
    assert_int_equal(v->shape.rank, rank);
    for (int i = 0; i < rank; i++)
        assert_int_equal(v->shape.d[i], d[i]);
}

/* samples/tfjs/human_handtrack.model.json (@vladmandic/human 3.3.6): an SSD
 * hand detector whose preprocessing (cast, scale, resize to 320x320) is a
 * map_fn over the batch: one while-loop frame with TensorList scan outputs.
 * Its trip count folds to 1 (maximum_iterations and the map's length, both
 * the batch, are Consts in the shard). Parameters: the float elements of
 * rank >= 1 in its weightsManifest, 2,960,350 (summed from the manifest;
 * the 43 rank-0 float scalars are not parameters, cost.c). Output shapes:
 * the three the signature declares that do not follow the data-dependent
 * NMS bookkeeping. The body's Preprocessor/mul works on the input image, so
 * its FLOPs follow --set height/width. */
static void test_handtrack_sample(void **state)
{
    (void)state;
    struct diag d = {0};
    struct graph *g = keras_load_file(DIPPM_SRCDIR "/samples/tfjs/human_handtrack.model.json", &d);
    if (!g)
        fail_msg("%s", d.msg);
    for (int side = 320; side <= 640; side *= 2) {
        assert_int_equal(graph_sym_set(g, "height", side, &d), ST_OK);
        assert_int_equal(graph_sym_set(g, "width", side, &d), ST_OK);
        assert_int_equal(graph_infer(g, &d), ST_OK);
        assert_true(g->totals.params == 2960350.0);
        const struct node *loop = node_op(g, "Loop");
        assert_string_equal(loop->name, "StatefulPartitionedCall/map/while");
        assert_string_equal(loop->note, "trip count 1 (folded)");
        int body = 0;
        const struct node *mul = NULL;
        for (int i = 0; i < g->n_nodes; i++) {
            const struct node *n = &g->nodes[i];
            if (n->parent != loop - g->nodes)
                continue;
            body++;
            assert_int_equal(n->state, NODE_OK);
            assert_true(!strncmp(n->name, "StatefulPartitionedCall/map/while/", 34));
            if (strstr(n->name, "Preprocessor/mul"))
                mul = n;
        }
        assert_true(body >= 20);
        assert_non_null(mul);
        assert_true(mul->cost.flops == (double)side * side * 3);
        assert_shape(&g->values[loop->out[4]], 4, (int64_t[]){1, 320, 320, 3}); /* resized */
        assert_shape(output_named(g, "Identity_6"), 3, (int64_t[]){1, 12804, 4});
        assert_shape(output_named(g, "Identity_7"), 3, (int64_t[]){1, 12804, 8});
        assert_shape(output_named(g, "Identity_5"), 1, (int64_t[]){1});
    }
    graph_free(g);
}

/* Base64 of s (frame_name attributes are base64 strings). */
static void b64(const char *s, char *out)
{
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = strlen(s), o = 0;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned char)s[i] << 16 | (i + 1 < n ? (unsigned char)s[i + 1] << 8 : 0) |
                     (i + 2 < n ? (unsigned char)s[i + 2] : 0);
        out[o++] = a[v >> 18 & 63];
        out[o++] = a[v >> 12 & 63];
        out[o++] = i + 1 < n ? a[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? a[v & 63] : '=';
    }
    out[o] = 0;
}

/* F sibling while loops (a counter each) beside a chain of M Relus: the
 * frames' work is their own nodes, not the whole graph once per frame
 * (1,000 loops beside 1M nodes took 173 s). */
static void test_many_frames_linear(void **state)
{
    (void)state;
    enum { F = 200, M = 20000 };
    size_t cap = (size_t)F * 1400 + (size_t)M * 100 + 4096, len = 0;
    char *t = malloc(cap), fb[64], fn[32];
    assert_non_null(t);
    len += (size_t)snprintf(t + len, cap - len,
        "{\"format\":\"graph-model\",\"modelTopology\":{\"node\":["
        "{\"name\":\"x\",\"op\":\"Placeholder\",\"attr\":{\"shape\":{\"shape\":{\"dim\":"
        "[{\"size\":\"1\"},{\"size\":\"8\"}]}}}},"
        "{\"name\":\"m\",\"op\":\"Placeholder\",\"attr\":{\"dtype\":{\"type\":\"DT_INT32\"},"
        "\"shape\":{\"shape\":{\"dim\":[]}}}},"
        "{\"name\":\"zero\",\"op\":\"Const\"},{\"name\":\"one\",\"op\":\"Const\"}");
    for (int k = 0; k < F; k++) {
        snprintf(fn, sizeof fn, "f%d", k);
        b64(fn, fb);
#define FNODE(fmt, ...) len += (size_t)snprintf(t + len, cap - len, "," fmt, __VA_ARGS__)
        FNODE("{\"name\":\"ie%d\",\"op\":\"Enter\",\"input\":[\"zero\"],\"attr\":"
              "{\"frame_name\":{\"s\":\"%s\"},\"is_constant\":{\"b\":false}}}", k, fb);
        FNODE("{\"name\":\"me%d\",\"op\":\"Enter\",\"input\":[\"m\"],\"attr\":"
              "{\"frame_name\":{\"s\":\"%s\"},\"is_constant\":{\"b\":true}}}", k, fb);
        FNODE("{\"name\":\"im%d\",\"op\":\"Merge\",\"input\":[\"ie%d\",\"in%d\"]}", k, k, k);
        FNODE("{\"name\":\"ls%d\",\"op\":\"Less\",\"input\":[\"im%d\",\"me%d\"]}", k, k, k);
        FNODE("{\"name\":\"lc%d\",\"op\":\"LoopCond\",\"input\":[\"ls%d\"]}", k, k);
        FNODE("{\"name\":\"sw%d\",\"op\":\"Switch\",\"input\":[\"im%d\",\"lc%d\"]}", k, k, k);
        FNODE("{\"name\":\"id%d\",\"op\":\"Identity\",\"input\":[\"sw%d:1\"]}", k, k);
        FNODE("{\"name\":\"ad%d\",\"op\":\"AddV2\",\"input\":[\"id%d\",\"one\"]}", k, k);
        FNODE("{\"name\":\"in%d\",\"op\":\"NextIteration\",\"input\":[\"ad%d\"]}", k, k);
        FNODE("{\"name\":\"ex%d\",\"op\":\"Exit\",\"input\":[\"sw%d\"]}", k, k);
    }
    FNODE("{\"name\":\"r%d\",\"op\":\"Relu\",\"input\":[\"x\"]}", 1);
    for (int i = 2; i <= M; i++)
        FNODE("{\"name\":\"r%d\",\"op\":\"Relu\",\"input\":[\"r%d\"]}", i, i - 1);
#undef FNODE
    len += (size_t)snprintf(t + len, cap - len, "]},\"weightsManifest\":[{\"paths\":[\"m.bin\"],"
        "\"weights\":[{\"name\":\"zero\",\"shape\":[],\"dtype\":\"int32\"},"
        "{\"name\":\"one\",\"shape\":[],\"dtype\":\"int32\"}]}]}");
    assert_true(len < cap);
    unsigned char b[8] = {0, 0, 0, 0, 1, 0, 0, 0};
    unsigned long before = tg_frame_visits();
    struct diag d = {0};
    struct graph *g = keras_load_buffer_shards(t, len, "m.json", b, sizeof b, &d);
    if (!g)
        fail_msg("%s", d.msg);
    unsigned long visits = tg_frame_visits() - before;
    int loops = 0;
    for (int i = 0; i < g->n_nodes; i++)
        loops += !strcmp(g->nodes[i].op_type, "Loop");
    assert_int_equal(loops, F);
    assert_int_equal(graph_infer(g, &d), ST_OK);
    assert_int_equal(g->totals.n_unsupported + g->totals.n_unknown, 0);
    graph_free(g);
    free(t);
    long nodes = 4 + 10L * F + M;
    if (visits > (unsigned long)(4 * nodes + F * F))
        fail_msg("%lu nodes looked at for %d frames among %ld nodes, expected at most %ld",
                 visits, F, nodes, 4 * nodes + F * F);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_folded_trip_count),
        cmocka_unit_test(test_trip_symbol),
        cmocka_unit_test(test_trip_bound),
        cmocka_unit_test(test_tensorlist_scan),
        cmocka_unit_test(test_nested_loops),
        cmocka_unit_test(test_handtrack_sample),
        cmocka_unit_test(test_many_frames_linear),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
