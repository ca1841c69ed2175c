/*
 * test_tfjs_graph.c - TF.js graph models: integer constants read from the
 * weight shard, nodes reading a second output (name:k), and what happens
 * when the shard is missing, short, unsafe to open or not a regular file.
 *
 * The model below is small enough to check by hand:
 *   x [1,8,8,3] -> Pad (paddings [[0,0],[1,1],[1,1],[0,0]], from the shard)
 *     -> Conv2D 3x3x3x4 VALID -> [1,8,8,4]
 *     -> Split (axis 3 from the shard, num_split 2) -> two [1,8,8,2]
 *     -> AddV2(split:0, split:1) -> ConcatV2(add, add; axis 3) -> [1,8,8,4]
 * MACs: the conv's 8*8*4 outputs x 3*3*3 taps = 6912.
 */
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

#include "graph/keras/keras.h"
#include "graph/keras/keras_impl.h"
#include "graph/ops/shape.h"

/* The manifest stores, in order: the filter (float32, 108 values = 432
 * bytes), the paddings (int32 [4,2]), the split axis and the concat axis
 * (int32 scalars). */
static const char model_fmt[] =
    "{\"format\":\"graph-model\",\"modelTopology\":{\"node\":["
    "{\"name\":\"x\",\"op\":\"Placeholder\",\"attr\":{\"shape\":{\"shape\":{\"dim\":"
    "[{\"size\":\"1\"},{\"size\":\"8\"},{\"size\":\"8\"},{\"size\":\"3\"}]}}}},"
    "{\"name\":\"w\",\"op\":\"Const\"},{\"name\":\"pads\",\"op\":\"Const\"},"
    "{\"name\":\"ax\",\"op\":\"Const\"},{\"name\":\"cax\",\"op\":\"Const\"},"
    "{\"name\":\"pad\",\"op\":\"Pad\",\"input\":[\"x\",\"pads\"]},"
    "{\"name\":\"conv\",\"op\":\"Conv2D\",\"input\":[\"pad\",\"w\"],\"attr\":{"
    "\"strides\":{\"list\":{\"i\":[\"1\",\"1\",\"1\",\"1\"]}},\"padding\":{\"s\":\"VkFMSUQ=\"}}},"
    "{\"name\":\"split\",\"op\":\"Split\",\"input\":[\"ax\",\"conv\"],"
    "\"attr\":{\"num_split\":{\"i\":\"2\"}}},"
    "{\"name\":\"add\",\"op\":\"AddV2\",\"input\":[\"split\",\"%s\"]},"
    "{\"name\":\"cat\",\"op\":\"ConcatV2\",\"input\":[\"add\",\"add\",\"cax\"]}]},"
    "\"weightsManifest\":[{\"paths\":[\"%s\"],\"weights\":["
    "{\"name\":\"w\",\"shape\":[3,3,3,4],\"dtype\":\"float32\"},"
    "{\"name\":\"pads\",\"shape\":[4,2],\"dtype\":\"int32\"},"
    "{\"name\":\"ax\",\"shape\":[],\"dtype\":\"int32\"},"
    "{\"name\":\"cax\",\"shape\":[],\"dtype\":\"int32\"}]}]}";

#define SHARD_BYTES (432 + 32 + 4 + 4)

static void le32(unsigned char *p, int32_t v)
{
    uint32_t u = (uint32_t)v;
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(u >> (8 * i));
}

static void make_shard(unsigned char *b)
{
    static const int32_t pads[8] = {0, 0, 1, 1, 1, 1, 0, 0};
    memset(b, 0, SHARD_BYTES);
    for (int i = 0; i < 8; i++)
        le32(b + 432 + 4 * i, pads[i]);
    le32(b + 464, 3);  /* split axis: channels */
    le32(b + 468, -1); /* concat axis: the last */
}

static char *model_text(const char *second, const char *path)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, model_fmt, second, path);
    return buf;
}

static const struct value *output(const struct graph *g)
{
    assert_int_equal(g->n_outputs, 1);
    return &g->values[g->outputs[0]];
}

static void test_constants_and_second_output(void **state)
{
    (void)state;
    unsigned char shard[SHARD_BYTES];
    make_shard(shard);
    const char *t = model_text("split:1", "m.bin");
    struct diag d = {0};
    struct graph *g = keras_load_buffer_shards(t, strlen(t), "m.json", shard, sizeof shard, &d);
    if (!g)
        fail_msg("%s", d.msg);
    assert_int_equal(graph_infer(g, &d), ST_OK);
    assert_int_equal(g->totals.n_unsupported + g->totals.n_unknown, 0);
    assert_true(g->totals.macs == 8.0 * 8 * 4 * 27);
    const struct value *o = output(g);
    assert_true(o->shape.known);
    int64_t want[4] = {1, 8, 8, 4};
    assert_int_equal(o->shape.rank, 4);
    for (int i = 0; i < 4; i++)
        assert_int_equal(o->shape.d[i], want[i]);
    graph_free(g);
}

/* A Pad whose paddings cannot be read still loads: what follows it is
 * reported as not counted. An op that cannot work without its constant
 * (ConcatV2's axis) is an error that says where the value lives. */
static void test_without_shard(void **state)
{
    (void)state;
    unsigned char shard[SHARD_BYTES];
    make_shard(shard);
    const char *t = model_text("split:1", "m.bin");
    struct diag d = {0};
    struct graph *g = keras_load_buffer(t, strlen(t), "m.json", &d);
    assert_null(g);
    assert_int_equal(d.code, ST_EUNSUPPORTED);
    assert_non_null(strstr(d.msg, "node 'split' (op Split)"));
    assert_non_null(strstr(d.msg, "its axis is stored in the weight shard"));
    /* a short shard: the paddings are there, the axes are not */
    d = (struct diag){0};
    g = keras_load_buffer_shards(t, strlen(t), "m.json", shard, 466, &d);
    assert_null(g);
    assert_non_null(strstr(d.msg, "node 'split'"));
}

static void test_bad_output_index(void **state)
{
    (void)state;
    unsigned char shard[SHARD_BYTES];
    make_shard(shard);
    const char *t = model_text("split:2", "m.bin");
    struct diag d = {0};
    struct graph *g = keras_load_buffer_shards(t, strlen(t), "m.json", shard, sizeof shard, &d);
    assert_null(g);
    assert_int_equal(d.code, ST_EPARSE);
    assert_non_null(strstr(d.msg, "reads output 2 of node 'split' (op Split), which has 2 "
                               "outputs"));
    t = model_text("split:99999999999", "m.bin");
    d = (struct diag){0};
    g = keras_load_buffer_shards(t, strlen(t), "m.json", shard, sizeof shard, &d);
    assert_null(g);
    assert_non_null(strstr(d.msg, "names no output index"));
    t = model_text("conv:1", "m.bin");
    d = (struct diag){0};
    g = keras_load_buffer_shards(t, strlen(t), "m.json", shard, sizeof shard, &d);
    assert_null(g);
    assert_non_null(strstr(d.msg, "which has 1 output"));
}

/* An op given fewer data inputs than it takes (a control input "^conv" is
 * not data) is an error naming the op (found by fuzzing). */
static void test_missing_input(void **state)
{
    (void)state;
    unsigned char shard[SHARD_BYTES];
    make_shard(shard);
    char t[4096];
    snprintf(t, sizeof t, "%s", model_text("split:1", "m.bin"));
    char *p = strstr(t, "[\"ax\",\"conv\"]");
    assert_non_null(p);
    memcpy(p, "[\"ax\",\"^onv\"]", strlen("[\"ax\",\"^onv\"]"));
    struct diag d = {0};
    struct graph *g = keras_load_buffer_shards(t, strlen(t), "m.json", shard, sizeof shard, &d);
    assert_null(g);
    assert_int_equal(d.code, ST_EPARSE);
    assert_non_null(strstr(d.msg, "op Split needs 2 data inputs, got 1"));
}

/* Writes the model (manifest path `path`) and its shard in a fresh
 * directory; returns the model's path. */
static const char *write_model(char *dir, const char *path, bool fifo)
{
    static char mp[512];
    assert_non_null(mkdtemp(dir));
    snprintf(mp, sizeof mp, "%s/model.json", dir);
    FILE *f = fopen(mp, "w");
    assert_non_null(f);
    fputs(model_text("split:1", path), f);
    fclose(f);
    char sp[512];
    snprintf(sp, sizeof sp, "%s/m.bin", dir);
    if (fifo) {
        assert_int_equal(mkfifo(sp, 0600), 0);
        return mp;
    }
    unsigned char shard[SHARD_BYTES];
    make_shard(shard);
    f = fopen(sp, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(shard, 1, sizeof shard, f), sizeof shard);
    fclose(f);
    return mp;
}

static void remove_dir(const char *dir)
{
    char p[512];
    snprintf(p, sizeof p, "%s/model.json", dir);
    unlink(p);
    snprintf(p, sizeof p, "%s/m.bin", dir);
    unlink(p);
    rmdir(dir);
}

/* From a file, the shard beside it is read; a manifest path that leaves
 * the directory is never opened, and a FIFO in the shard's place does not
 * block. */
static void test_shard_beside_file(void **state)
{
    (void)state;
    const char *cases[][2] = {{"m.bin", "ok"}, {"../m.bin", "no"}, {"/etc/passwd", "no"}};
    for (int c = 0; c < 3; c++) {
        char dir[] = "/tmp/dippm-tfjs-XXXXXX";
        const char *mp = write_model(dir, cases[c][0], false);
        struct diag d = {0};
        struct graph *g = keras_load_file(mp, &d);
        if (!strcmp(cases[c][1], "ok")) {
            if (!g)
                fail_msg("%s", d.msg);
            assert_int_equal(graph_infer(g, &d), ST_OK);
            assert_true(output(g)->shape.known);
            graph_free(g);
        } else {
            assert_null(g);
            assert_non_null(strstr(d.msg, "weight shard"));
        }
        remove_dir(dir);
    }
    char dir[] = "/tmp/dippm-tfjs-XXXXXX";
    const char *mp = write_model(dir, "m.bin", true);
    struct diag d = {0};
    struct graph *g = keras_load_file(mp, &d);
    assert_null(g);
    assert_non_null(strstr(d.msg, "weight shard"));
    remove_dir(dir);
}

/* n Transposes in a chain, each reading its permutation [1, 0] from its
 * own shard file: reading the constants opens each shard a bounded number
 * of times (it used to open every shard before the one it needed, per
 * constant: n^2/2 opens). */
static void test_many_shards_linear(void **state)
{
    (void)state;
    enum { N = 400 };
    char dir[] = "/tmp/dippm-tfjs-XXXXXX";
    assert_non_null(mkdtemp(dir));
    size_t cap = 200 * N + 1024, len = 0;
    char *t = malloc(cap);
    assert_non_null(t);
    len += (size_t)snprintf(t + len, cap - len,
                            "{\"format\":\"graph-model\",\"modelTopology\":{\"node\":["
                            "{\"name\":\"t0\",\"op\":\"Placeholder\",\"attr\":{\"shape\":"
                            "{\"shape\":{\"dim\":[{\"size\":\"2\"},{\"size\":\"3\"}]}}}}");
    for (int i = 1; i <= N; i++)
        len += (size_t)snprintf(t + len, cap - len,
                                ",{\"name\":\"p%d\",\"op\":\"Const\"},{\"name\":\"t%d\","
                                "\"op\":\"Transpose\",\"input\":[\"t%d\",\"p%d\"]}",
                                i, i, i - 1, i);
    len += (size_t)snprintf(t + len, cap - len, "]},\"weightsManifest\":[{\"paths\":[");
    for (int i = 1; i <= N; i++)
        len += (size_t)snprintf(t + len, cap - len, "%s\"s%d.bin\"", i > 1 ? "," : "", i);
    len += (size_t)snprintf(t + len, cap - len, "],\"weights\":[");
    for (int i = 1; i <= N; i++)
        len += (size_t)snprintf(t + len, cap - len,
                                "%s{\"name\":\"p%d\",\"shape\":[2],\"dtype\":\"int32\"}",
                                i > 1 ? "," : "", i);
    len += (size_t)snprintf(t + len, cap - len, "]}]}");
    assert_true(len < cap);
    char p[512];
    snprintf(p, sizeof p, "%s/model.json", dir);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(t, f);
    fclose(f);
    unsigned char perm[8];
    le32(perm, 1);
    le32(perm + 4, 0);
    for (int i = 1; i <= N; i++) {
        snprintf(p, sizeof p, "%s/s%d.bin", dir, i);
        f = fopen(p, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(perm, 1, sizeof perm, f), sizeof perm);
        fclose(f);
    }
    unsigned long before = kshard_opens();
    struct diag d = {0};
    snprintf(p, sizeof p, "%s/model.json", dir);
    struct graph *g = keras_load_file(p, &d);
    if (!g)
        fail_msg("%s", d.msg);
    unsigned long opens = kshard_opens() - before;
    assert_int_equal(graph_infer(g, &d), ST_OK);
    assert_int_equal(g->totals.n_unsupported + g->totals.n_unknown, 0);
    const struct value *y = output(g);
    assert_true(y->shape.known && y->shape.rank == 2 && y->shape.d[0] == 2 && y->shape.d[1] == 3);
    graph_free(g);
    if (opens > 2 * N)
        fail_msg("%lu shard opens for %d constants in %d shards, expected at most %d", opens, N,
                 N, 2 * N);
    for (int i = 1; i <= N; i++) {
        snprintf(p, sizeof p, "%s/s%d.bin", dir, i);
        unlink(p);
    }
    snprintf(p, sizeof p, "%s/model.json", dir);
    unlink(p);
    rmdir(dir);
    free(t);
}

/* An op dippm does not map that declares its output shapes (_output_shapes)
 * costs only itself: the MatMul after it (4x2 weight, 8 MACs) is counted;
 * without the declaration the op is an error naming it. */
static const char opaque_fmt[] =
    "{\"format\":\"graph-model\",\"modelTopology\":{\"node\":["
    "{\"name\":\"x\",\"op\":\"Placeholder\",\"attr\":{\"shape\":{\"shape\":{\"dim\":"
    "[{\"size\":\"1\"},{\"size\":\"4\"}]}}}},"
    "{\"name\":\"w\",\"op\":\"Const\"},"
    "{\"name\":\"f\",\"op\":\"Frobnicate\",\"input\":[\"x\"],\"attr\":{%s}},"
    "{\"name\":\"mm\",\"op\":\"MatMul\",\"input\":[\"f\",\"w\"]}]},"
    "\"weightsManifest\":[{\"paths\":[\"m.bin\"],\"weights\":["
    "{\"name\":\"w\",\"shape\":[4,2],\"dtype\":\"float32\"}]}]}";

static void test_declared_output_shapes(void **state)
{
    (void)state;
    char t[2048];
    snprintf(t, sizeof t, opaque_fmt, "\"_output_shapes\":{\"list\":{\"shape\":[{\"dim\":"
             "[{\"size\":\"1\"},{\"size\":\"4\"}]}]}}");
    struct diag d = {0};
    struct graph *g = keras_load_buffer(t, strlen(t), "m.json", &d);
    if (!g)
        fail_msg("%s", d.msg);
    assert_int_equal(graph_infer(g, &d), ST_OK);
    assert_int_equal(g->totals.n_unsupported, 1);
    assert_int_equal(g->totals.n_unknown, 0);
    assert_true(g->totals.macs == 8.0);
    const struct value *o = output(g);
    assert_true(o->shape.known && o->shape.rank == 2 && o->shape.d[1] == 2);
    graph_free(g);
    snprintf(t, sizeof t, opaque_fmt, "");
    d = (struct diag){0};
    assert_null(keras_load_buffer(t, strlen(t), "m.json", &d));
    assert_int_equal(d.code, ST_EUNSUPPORTED);
    assert_non_null(strstr(d.msg, "node 'f' (op Frobnicate) is not supported"));
}

/* Dims whose product passes 2^40 elements are an error naming the field,
 * in a Placeholder and in a declared output shape (found by fuzzing: shape
 * inference multiplied them past int64). */
/* src with its first `from` replaced by `to`, in a static buffer. */
static const char *replaced(const char *src, const char *from, const char *to)
{
    static char buf[4096];
    const char *p = strstr(src, from);
    assert_non_null(p);
    snprintf(buf, sizeof buf, "%.*s%s%s", (int)(p - src), src, to, p + strlen(from));
    return buf;
}

static void test_oversized_dims(void **state)
{
    (void)state;
    unsigned char shard[SHARD_BYTES];
    make_shard(shard);
    const char *dims = "{\"size\":\"8\"},{\"size\":\"3\"}";
    const char *t = replaced(model_text("split:1", "m.bin"), dims,
                             "{\"size\":\"4000000000\"},{\"size\":\"3000\"}");
    struct diag d = {0};
    assert_null(keras_load_buffer_shards(t, strlen(t), "m.json", shard, sizeof shard, &d));
    assert_int_equal(d.code, ST_EPARSE);
    assert_non_null(strstr(d.msg, "attr.shape.shape.dim[3].size: 3000 makes the input hold "
                                  "more than 2^40 elements"));
    /* just under: 4e9 x 8 x 1 x 1 x 3 = 9.6e10 elements loads */
    t = replaced(model_text("split:1", "m.bin"), "{\"size\":\"1\"}",
                 "{\"size\":\"4000000000\"}");
    d = (struct diag){0};
    struct graph *g = keras_load_buffer_shards(t, strlen(t), "m.json", shard, sizeof shard, &d);
    if (!g)
        fail_msg("%s", d.msg);
    graph_free(g);
    char o[2048];
    snprintf(o, sizeof o, opaque_fmt, "\"_output_shapes\":{\"list\":{\"shape\":[{\"dim\":"
             "[{\"size\":\"1099511627776\"},{\"size\":4}]}]}}");
    d = (struct diag){0};
    assert_null(keras_load_buffer(o, strlen(o), "m.json", &d));
    assert_int_equal(d.code, ST_EPARSE);
    assert_non_null(strstr(d.msg, "attr._output_shapes.list.shape[0]: 4.4e+12 elements, more "
                                  "than 2^40"));
}

/* Detection post-processing: boxes [10,4] and scores [10] through
 * NonMaxSuppressionV5 (at most 5 boxes: indices [5], their scores [5], the
 * count), the boxes gathered by them [5,4]; Shape, Fill, Range, Slice (a
 * size of -1: to the end), Select and one-input Where on the way. */
static const char detect_model[] =
    "{\"format\":\"graph-model\",\"modelTopology\":{\"node\":["
    "{\"name\":\"boxes\",\"op\":\"Placeholder\",\"attr\":{\"shape\":{\"shape\":{\"dim\":"
    "[{\"size\":\"10\"},{\"size\":\"4\"}]}}}},"
    "{\"name\":\"scores\",\"op\":\"Placeholder\",\"attr\":{\"shape\":{\"shape\":{\"dim\":"
    "[{\"size\":\"10\"}]}}}},"
    "{\"name\":\"k\",\"op\":\"Const\"},{\"name\":\"iou\",\"op\":\"Const\"},"
    "{\"name\":\"thr\",\"op\":\"Const\"},{\"name\":\"sigma\",\"op\":\"Const\"},"
    "{\"name\":\"zero\",\"op\":\"Const\"},{\"name\":\"one\",\"op\":\"Const\"},"
    "{\"name\":\"begin\",\"op\":\"Const\"},{\"name\":\"size\",\"op\":\"Const\"},"
    "{\"name\":\"nms\",\"op\":\"NonMaxSuppressionV5\",\"input\":[\"boxes\",\"scores\","
    "\"k\",\"iou\",\"thr\",\"sigma\"]},"
    "{\"name\":\"picked\",\"op\":\"GatherV2\",\"input\":[\"boxes\",\"nms\",\"zero\"]},"
    "{\"name\":\"shape\",\"op\":\"Shape\",\"input\":[\"boxes\"]},"
    "{\"name\":\"fill\",\"op\":\"Fill\",\"input\":[\"shape\",\"thr\"]},"
    "{\"name\":\"big\",\"op\":\"Greater\",\"input\":[\"scores\",\"thr\"]},"
    "{\"name\":\"sel\",\"op\":\"Select\",\"input\":[\"big\",\"boxes\",\"fill\"]},"
    "{\"name\":\"where\",\"op\":\"Where\",\"input\":[\"big\"]},"
    "{\"name\":\"range\",\"op\":\"Range\",\"input\":[\"zero\",\"k\",\"one\"]},"
    "{\"name\":\"slice\",\"op\":\"Slice\",\"input\":[\"sel\",\"begin\",\"size\"]},"
    "{\"name\":\"nscores\",\"op\":\"Identity\",\"input\":[\"nms:1\"]},"
    "{\"name\":\"count\",\"op\":\"Identity\",\"input\":[\"nms:2\"]}]},"
    "\"weightsManifest\":[{\"paths\":[\"m.bin\"],\"weights\":["
    "{\"name\":\"k\",\"shape\":[],\"dtype\":\"int32\"},"
    "{\"name\":\"iou\",\"shape\":[],\"dtype\":\"float32\"},"
    "{\"name\":\"thr\",\"shape\":[],\"dtype\":\"float32\"},"
    "{\"name\":\"sigma\",\"shape\":[],\"dtype\":\"float32\"},"
    "{\"name\":\"zero\",\"shape\":[],\"dtype\":\"int32\"},"
    "{\"name\":\"one\",\"shape\":[],\"dtype\":\"int32\"},"
    "{\"name\":\"begin\",\"shape\":[2],\"dtype\":\"int32\"},"
    "{\"name\":\"size\",\"shape\":[2],\"dtype\":\"int32\"}]}]}";

static const struct value *out_named(const struct graph *g, const char *name)
{
    for (int i = 0; i < g->n_outputs; i++)
        if (!strcmp(g->values[g->outputs[i]].name, name))
            return &g->values[g->outputs[i]];
    fail_msg("no output %s", name);
    return NULL;
}

static void want_shape(const struct value *v, int rank, const int64_t *d)
{
    assert_true(v->shape.known);
    assert_int_equal(v->shape.rank, rank);
    for (int i = 0; i < rank; i++)
        assert_int_equal(v->shape.d[i], d[i]);
}

static void test_detection_ops(void **state)
{
    (void)state;
    /* k 5, iou/thr/sigma (floats, zero), zero 0, one 1, begin [2,1], size [-1,2] */
    const int32_t ints[] = {5, 0, 0, 0, 0, 1, 2, 1, -1, 2};
    unsigned char b[sizeof ints];
    for (size_t i = 0; i < sizeof ints / 4; i++)
        le32(b + 4 * i, ints[i]);
    struct diag d = {0};
    struct graph *g = keras_load_buffer_shards(detect_model, strlen(detect_model), "m.json", b,
                                               sizeof b, &d);
    if (!g)
        fail_msg("%s", d.msg);
    assert_int_equal(graph_infer(g, &d), ST_OK);
    assert_int_equal(g->totals.n_unsupported + g->totals.n_unknown, 0);
    want_shape(out_named(g, "picked"), 2, (int64_t[]){5, 4});
    want_shape(out_named(g, "nscores"), 1, (int64_t[]){5});
    want_shape(out_named(g, "count"), 0, NULL);
    want_shape(out_named(g, "where"), 2, (int64_t[]){10, 1});
    want_shape(out_named(g, "range"), 1, (int64_t[]){5});
    want_shape(out_named(g, "slice"), 2, (int64_t[]){8, 2});
    graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_constants_and_second_output),
        cmocka_unit_test(test_without_shard),
        cmocka_unit_test(test_bad_output_index),
        cmocka_unit_test(test_missing_input),
        cmocka_unit_test(test_shard_beside_file),
        cmocka_unit_test(test_many_shards_linear),
        cmocka_unit_test(test_declared_output_shapes),
        cmocka_unit_test(test_detection_ops),
        cmocka_unit_test(test_oversized_dims),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
