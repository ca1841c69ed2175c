/*
 * test_keras.c - Keras / TF.js loader tests.
 *
 * Truths are independent of the loader: samples/keras/params.json holds
 * countParams() as @tensorflow/tfjs reported it when tools/keras/gen.js built
 * each model; samples/tfjs/real_params.json holds, for the real npm files,
 * tf.models.modelFromJSON(topology).countParams() (layers models) or the
 * float elements of the weightsManifest (graph models) and, for graph
 * models whose (zeroed) shards lie beside them, MACs and output shapes
 * from TF.js running the model; the hand-written
 * Keras 2 / Keras 3 configs carry their hand-derived count in
 * samples/keras/hand_params.json. MACs of tiny_cnn are computed by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "util/fileio.h"
#include "graph/ir/ir.h"
#include "graph/keras/keras.h"
#include "graph/load.h"
#include "graph/ops/shape.h"

static char samples[1024];

static const char *sample(const char *rel)
{
    static char buf[2048];
    snprintf(buf, sizeof buf, "%s/%s", samples, rel);
    return buf;
}

/* Sum of initializer elements (Keras's count_params convention). */
static double init_elems(const struct graph *g, bool float_only)
{
    double n = 0;
    for (int i = 0; i < g->n_values; i++) {
        const struct value *v = &g->values[i];
        if (!(v->flags & VAL_INIT) || (float_only && !dtype_is_float(v->dtype)))
            continue;
        double e = 1;
        for (int k = 0; k < v->rank; k++)
            e *= (double)v->dims[k].v;
        n += e;
    }
    return n;
}

static cJSON *read_json(const char *path)
{
    char *text;
    size_t len;
    struct diag d = {0};
    if (file_read_all(path, 1 << 24, &text, &len, &d)) {
        fail_msg("%s", d.msg);
        return NULL;
    }
    cJSON *j = cJSON_Parse(text);
    free(text);
    assert_non_null(j);
    return j;
}

/* Every shape TF.js computed for the model's outputs is the shape of one
 * graph output (the orders of the two lists may differ). */
static void check_output_shapes(const struct graph *g, const char *rel, const cJSON *want)
{
    assert_non_null(want);
    assert_int_equal(cJSON_GetArraySize(want), g->n_outputs);
    bool used[64] = {false};
    for (const cJSON *w = want->child; w; w = w->next) {
        bool found = false;
        for (int o = 0; o < g->n_outputs && o < 64 && !found; o++) {
            const struct shape *s = &g->values[g->outputs[o]].shape;
            bool same = !used[o] && s->known && s->rank == cJSON_GetArraySize(w);
            for (int k = 0; same && k < s->rank; k++)
                same = s->d[k] == (int64_t)cJSON_GetArrayItem(w, k)->valuedouble;
            found = used[o] = same;
        }
        if (!found)
            fail_msg("%s: no output has the shape TF.js computed (%s)", rel,
                     cJSON_PrintUnformatted(w));
    }
}

/* Loads every model listed in a truth file and compares parameters, and
 * MACs, output shapes and coverage where the truth file has them. */
static void check_truth_file(const char *truth, const char *dir, int min_models)
{
    cJSON *root = read_json(sample(truth));
    const cJSON *models = cJSON_GetObjectItem(root, "models");
    int n = 0;
    for (const cJSON *m = models->child; m; m = m->next) {
        double want = cJSON_GetObjectItem(m, "params")->valuedouble;
        const cJSON *files = cJSON_GetObjectItem(m, "files");
        const cJSON *kind = cJSON_GetObjectItem(m, "kind");
        char rel[600];
        for (int k = 0; k < (files ? cJSON_GetArraySize(files) : 1); k++) {
            if (files)
                snprintf(rel, sizeof rel, "%s", cJSON_GetArrayItem(files, k)->valuestring);
            else
                snprintf(rel, sizeof rel, "%s/%s", dir, m->string);
            struct diag d = {0};
            struct graph *g = model_load(sample(rel), &d);
            if (!g)
                fail_msg("%s: %s", rel, d.msg);
            assert_true(g->finalized);
            bool graph_model = kind && !strcmp(kind->valuestring, "graph-model");
            double got = init_elems(g, graph_model);
            if (got != want)
                fail_msg("%s: initializer elements %.0f, countParams %.0f", rel, got, want);
            assert_int_equal(graph_infer(g, &d), ST_OK);
            const cJSON *macs = cJSON_GetObjectItem(m, "macs");
            if (macs && g->totals.macs != macs->valuedouble)
                fail_msg("%s: MACs %.0f, reference %.0f", rel, g->totals.macs, macs->valuedouble);
            if (macs && graph_model) {
                if (g->totals.n_unsupported + g->totals.n_unknown)
                    fail_msg("%s: %d nodes not counted", rel,
                             g->totals.n_unsupported + g->totals.n_unknown);
                check_output_shapes(g, rel, cJSON_GetObjectItem(m, "output_shape"));
            }
            graph_free(g);
            n++;
        }
    }
    assert_true(n >= min_models);
    cJSON_Delete(root);
}

static void test_generated_params(void **state)
{
    (void)state;
    check_truth_file("keras/params.json", NULL, 14);
}

static void test_real_tfjs_params(void **state)
{
    (void)state;
    check_truth_file("tfjs/real_params.json", "tfjs", 11);
}

static void test_hand_written_params(void **state)
{
    (void)state;
    check_truth_file("keras/hand_params.json", NULL, 3);
}

/* tiny_cnn: input 8x8x3, Conv2D(4, 3x3, valid) + ReLU, Flatten, Dense(10).
 * By hand: conv 6*6*4 outputs * 3*3*3 MACs = 3888; dense 144*10 = 1440. */
static void test_tiny_cnn_macs(void **state)
{
    (void)state;
    const char *files[] = {"keras/tiny_cnn.json", "tfjs/tiny_cnn.model.json"};
    for (int f = 0; f < 2; f++) {
        struct diag d = {0};
        struct graph *g = model_load(sample(files[f]), &d);
        assert_non_null(g);
        assert_int_equal(graph_infer(g, &d), ST_OK);
        assert_int_equal(g->totals.n_unsupported + g->totals.n_unknown, 0);
        assert_true(g->totals.macs == 3888.0 + 1440.0);
        const struct value *o = &g->values[g->outputs[0]];
        assert_true(o->shape.known);
        assert_int_equal(o->shape.rank, 2);
        assert_int_equal(o->shape.d[0], 1);
        assert_int_equal(o->shape.d[1], 10);
        /* cost.c leaves BN statistics out; here there is no BN: equal */
        assert_true(g->totals.params == 112.0 + 1450.0);
        assert_int_equal(graph_sym_set(g, "batch", 4, &d), ST_OK);
        assert_int_equal(graph_infer(g, &d), ST_OK);
        assert_true(g->totals.macs == 4 * (3888.0 + 1440.0));
        assert_int_equal(g->values[g->outputs[0]].shape.d[0], 4);
        graph_free(g);
    }
}

/* BatchNormalization: Keras counts moving mean/variance; the shared cost
 * model does not (graph totals = count_params - 2 * channels of every BN). */
static void test_bn_convention(void **state)
{
    (void)state;
    struct diag d = {0};
    struct graph *g = model_load(sample("keras/resnet_ish.json"), &d);
    assert_non_null(g);
    assert_int_equal(graph_infer(g, &d), ST_OK);
    double bn_stats = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const struct node *n = &g->nodes[i];
        if (n->op != OP_BatchNormalization)
            continue;
        bn_stats += 2.0 * (double)g->values[n->in[3]].dims[0].v;
    }
    /* resnet_ish BN channels by hand: bn1 32; res0,res1: 2x32 each; res2: 3x64
     * (a, b, proj); res3: 2x64; res4: 3x128 -> 32+128+192+128+384 = 864 */
    assert_true(bn_stats == 2.0 * 864);
    assert_true(g->totals.params == init_elems(g, false) - bn_stats);
    graph_free(g);
}

/* LSTM text model with a None sequence length: "seq" is a symbol. */
static void test_seq_symbol(void **state)
{
    (void)state;
    struct diag d = {0};
    struct graph *g = model_load(sample("keras/lstm_text.json"), &d);
    assert_non_null(g);
    assert_true(graph_sym_find(g, "seq") >= 0);
    assert_int_equal(graph_sym_set(g, "seq", 10, &d), ST_OK);
    assert_int_equal(graph_infer(g, &d), ST_OK);
    double m10 = g->totals.macs;
    assert_int_equal(graph_sym_set(g, "seq", 20, &d), ST_OK);
    assert_int_equal(graph_infer(g, &d), ST_OK);
    /* Per step: LSTM 4*96*(64+96), GRU 3*48*(96+48); head 48*32 + 32 once. */
    double step = 4.0 * 96 * (64 + 96) + 3.0 * 48 * (96 + 48);
    assert_true(g->totals.macs - m10 == 10 * step);
    graph_free(g);
}

/* resnet_ish MACs by hand (conv and dense only; BN, ReLU, Add, pooling count
 * no MACs): stem 7x7/2 on 64x64x3 -> 32x32x32, max pool /2 -> 16x16, then
 * basic blocks (3x3 convs, 1x1 stride-2 projection when the width changes),
 * Dense 128 -> 10. */
static void test_resnet_ish_macs(void **state)
{
    (void)state;
    double macs = 32.0 * 32 * 32 * 7 * 7 * 3;
    int h = 16, cin = 32;
    const int blocks[][2] = {{32, 1}, {32, 1}, {64, 2}, {64, 1}, {128, 2}};
    for (int i = 0; i < 5; i++) {
        int c = blocks[i][0], s = blocks[i][1];
        h /= s;
        macs += (double)h * h * c * 9 * cin + (double)h * h * c * 9 * c;
        if (s != 1 || cin != c)
            macs += (double)h * h * c * cin;
        cin = c;
    }
    macs += 128.0 * 10;
    struct diag d = {0};
    struct graph *g = model_load(sample("tfjs/resnet_ish.model.json"), &d);
    assert_non_null(g);
    assert_int_equal(graph_infer(g, &d), ST_OK);
    assert_int_equal(g->totals.n_unsupported + g->totals.n_unknown, 0);
    if (g->totals.macs != macs)
        fail_msg("MACs %.0f, by hand %.0f", g->totals.macs, macs);
    graph_free(g);
}

/* seq_wrappers at seq = T: Bidirectional LSTM(16) on 32 features: 2*T*4*16*(32+16);
 * TimeDistributed Dense 32->8: T*32*8; RepeatVector(4) then Bidirectional
 * GRU(8, ave) on 8: 2*4*3*8*(8+8); SimpleRNN(6) on 8: 4*6*(8+6); Dense 6->3. */
static void test_bidirectional_macs(void **state)
{
    (void)state;
    struct diag d = {0};
    struct graph *g = model_load(sample("keras/seq_wrappers.json"), &d);
    if (!g)
        fail_msg("%s", d.msg);
    for (int t = 16; t <= 64; t *= 4) {
        assert_int_equal(graph_sym_set(g, "seq", t, &d), ST_OK);
        assert_int_equal(graph_infer(g, &d), ST_OK);
        double want = 2.0 * t * 4 * 16 * 48 + t * 32.0 * 8 + 2.0 * 4 * 3 * 8 * 16 +
                      4.0 * 6 * 14 + 18;
        if (g->totals.macs != want)
            fail_msg("seq %d: MACs %.0f, by hand %.0f", t, g->totals.macs, want);
        const struct value *o = &g->values[g->outputs[0]];
        assert_true(o->shape.known && o->shape.rank == 2 && o->shape.d[1] == 3);
    }
    graph_free(g);
}

/* ---- malformed inputs ---------------------------------------------------------- */

static const char *write_tmp(const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "test_keras_tmp_%d.json", (int)getpid());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static void expect_error(const char *text, enum status st, const char *needle)
{
    struct diag d = {0};
    const char *p = write_tmp(text);
    struct graph *g = keras_load_file(p, &d);
    remove(p);
    if (g) {
        graph_free(g);
        fail_msg("loaded, expected an error containing \"%s\"", needle);
    }
    if (d.code != st || !strstr(d.msg, needle))
        fail_msg("got [%s] \"%s\", expected [%s] containing \"%s\"", status_str(d.code), d.msg,
                 status_str(st), needle);
}

#define SEQ_HEAD "{\"class_name\":\"Sequential\",\"config\":{\"name\":\"m\",\"layers\":["
#define IN_LAYER "{\"class_name\":\"InputLayer\",\"config\":{\"batch_input_shape\":[null,8,8,3],\"name\":\"in\"}}"

static void test_errors(void **state)
{
    (void)state;
    expect_error(SEQ_HEAD IN_LAYER ",{\"class_name\":\"Conv2D\",\"config\":{\"name\":\"c\","
                 "\"filters\":\"8\",\"kernel_size\":3}}]}}",
                 ST_EPARSE, "config.layers[1]: config.filters: expected an integer, got a string");
    expect_error(SEQ_HEAD IN_LAYER ",{\"class_name\":\"Conv2D\",\"config\":{\"name\":\"c\","
                 "\"kernel_size\":3}}]}}",
                 ST_EPARSE, "config.layers[1]: config.filters: missing");
    expect_error(SEQ_HEAD IN_LAYER ",{\"class_name\":\"CustomAttention\",\"config\":{\"name\":"
                 "\"block_3\"}}]}}",
                 ST_EUNSUPPORTED, "layer 'block_3' (class CustomAttention) is not supported");
    expect_error(SEQ_HEAD IN_LAYER ",{\"class_name\":\"Dense\",\"config\":{\"name\":\"d\","
                 "\"units\":4}", ST_EPARSE, "invalid JSON at line 1");
    expect_error(SEQ_HEAD "{\"class_name\":\"Dense\"}]}}", ST_EPARSE,
                 "config.layers[0]: config: expected an object, got missing");
    expect_error("{\"modelTopology\":{\"model_config\":{\"class_name\":\"Model\",\"config\":{"
                 "\"layers\":[{\"name\":\"in\",\"class_name\":\"InputLayer\",\"config\":"
                 "{\"batch_input_shape\":[null,4]},\"inbound_nodes\":[]},"
                 "{\"name\":\"a\",\"class_name\":\"Dense\",\"config\":{\"units\":4},"
                 "\"inbound_nodes\":[[[\"b\",0,0,{}]]]},"
                 "{\"name\":\"b\",\"class_name\":\"Dense\",\"config\":{\"units\":4},"
                 "\"inbound_nodes\":[[[\"a\",0,0,{}]]]}],"
                 "\"input_layers\":[[\"in\",0,0]],\"output_layers\":[[\"b\",0,0]]}}}}",
                 ST_EPARSE, "form a cycle");
    expect_error("{\"class_name\":\"Functional\",\"config\":{\"layers\":["
                 "{\"name\":\"in\",\"class_name\":\"InputLayer\",\"config\":"
                 "{\"batch_shape\":[null,4]},\"inbound_nodes\":[]},"
                 "{\"name\":\"a\",\"class_name\":\"Dense\",\"config\":{\"units\":4},"
                 "\"inbound_nodes\":[[[\"nope\",0,0,{}]]]}],"
                 "\"input_layers\":[[\"in\",0,0]],\"output_layers\":[[\"a\",0,0]]}}",
                 ST_EPARSE, "config.layers[1].inbound_nodes[0][0]: refers to layer 'nope'");
    /* manifest disagreeing with the config */
    expect_error("{\"modelTopology\":" SEQ_HEAD "{\"class_name\":\"Dense\",\"config\":{"
                 "\"name\":\"d\",\"units\":4,\"batch_input_shape\":[null,3]}}]}},"
                 "\"weightsManifest\":[{\"paths\":[\"x.bin\"],\"weights\":["
                 "{\"name\":\"d/kernel\",\"shape\":[5,4],\"dtype\":\"float32\"},"
                 "{\"name\":\"d/bias\",\"shape\":[4],\"dtype\":\"float32\"}]}]}",
                 ST_EPARSE, "'d/kernel' with shape [5, 4] (20 elements)");
    expect_error("{\"modelTopology\":" SEQ_HEAD "{\"class_name\":\"Dense\",\"config\":{"
                 "\"name\":\"d\",\"units\":4,\"batch_input_shape\":[null,3]}}]}},"
                 "\"weightsManifest\":[{\"paths\":[\"x.bin\"],\"weights\":["
                 "{\"name\":\"d/kernel\",\"shape\":[3,4],\"dtype\":\"float32\"},"
                 "{\"name\":\"d/bias\",\"shape\":[4],\"dtype\":\"float32\"},"
                 "{\"name\":\"e/kernel\",\"shape\":[2,2],\"dtype\":\"float32\"}]}]}",
                 ST_EPARSE, "weight 'e/kernel' (4 elements) belongs to no layer");
    expect_error("{\"modelTopology\":{\"node\":[{\"name\":\"x\",\"op\":\"Placeholder\","
                 "\"attr\":{\"shape\":{\"shape\":{\"dim\":[{\"size\":\"-1\"},{\"size\":\"4\"}]}}}},"
                 "{\"name\":\"y\",\"op\":\"Cumprod\",\"input\":[\"x\"]}]},"
                 "\"weightsManifest\":[]}",
                 ST_EUNSUPPORTED, "node 'y' (op Cumprod) is not supported");
    expect_error("{\"modelTopology\":{\"node\":[{\"name\":\"x\",\"op\":\"Placeholder\","
                 "\"attr\":{\"shape\":{\"shape\":{\"dim\":[{\"size\":\"-1\"},{\"size\":\"4\"}]}}}},"
                 "{\"name\":\"y\",\"op\":\"Relu\",\"input\":[\"z\"]},"
                 "{\"name\":\"z\",\"op\":\"Relu\",\"input\":[\"y\"]}]},\"weightsManifest\":[]}",
                 ST_EPARSE, "modelTopology.node[1]: node 'y' can never run");
    expect_error("{\"modelTopology\":{\"node\":[{\"name\":\"x\",\"op\":\"Placeholder\"}]},"
                 "\"weightsManifest\":[]}",
                 ST_EPARSE, "modelTopology.node[0]: attr.shape.shape.dim: expected an array");
}

/* Python Keras 2 names RNN weights after the cell ("lstm/lstm_cell/kernel"). */
static void test_cell_weight_names(void **state)
{
    (void)state;
    struct diag d = {0};
    const char *p = write_tmp(
        "{\"modelTopology\":{\"model_config\":" SEQ_HEAD "{\"class_name\":\"LSTM\",\"config\":{"
        "\"name\":\"lstm\",\"units\":2,\"batch_input_shape\":[null,5,3]}}]}}},"
        "\"weightsManifest\":[{\"paths\":[\"x.bin\"],\"weights\":["
        "{\"name\":\"lstm/lstm_cell/kernel\",\"shape\":[3,8],\"dtype\":\"float32\"},"
        "{\"name\":\"lstm/lstm_cell/recurrent_kernel\",\"shape\":[2,8],\"dtype\":\"float32\"},"
        "{\"name\":\"lstm/lstm_cell/bias\",\"shape\":[8],\"dtype\":\"float32\"}]}]}");
    struct graph *g = keras_load_file(p, &d);
    remove(p);
    if (!g)
        fail_msg("%s", d.msg);
    assert_true(init_elems(g, false) == 24 + 16 + 8);
    assert_int_equal(graph_infer(g, &d), ST_OK);
    /* 5 steps of 4*2*(3+2) MACs */
    assert_true(g->totals.macs == 5.0 * 4 * 2 * 5);
    graph_free(g);
}

/* Functional layers listed in reverse order still run in dependency order. */
static void test_out_of_order(void **state)
{
    (void)state;
    struct diag d = {0};
    const char *p = write_tmp(
        "{\"class_name\":\"Functional\",\"config\":{\"layers\":["
        "{\"name\":\"b\",\"class_name\":\"Dense\",\"config\":{\"units\":2},"
        "\"inbound_nodes\":[[[\"a\",0,0,{}]]]},"
        "{\"name\":\"a\",\"class_name\":\"Dense\",\"config\":{\"units\":4},"
        "\"inbound_nodes\":[[[\"in\",0,0,{}]]]},"
        "{\"name\":\"in\",\"class_name\":\"InputLayer\",\"config\":"
        "{\"batch_shape\":[null,3]},\"inbound_nodes\":[]}],"
        "\"input_layers\":[[\"in\",0,0]],\"output_layers\":[[\"b\",0,0]]}}");
    struct graph *g = keras_load_file(p, &d);
    remove(p);
    if (!g)
        fail_msg("%s", d.msg);
    assert_true(init_elems(g, false) == (3 * 4 + 4) + (4 * 2 + 2));
    assert_int_equal(graph_infer(g, &d), ST_OK);
    assert_true(g->totals.macs == 3 * 4 + 4 * 2);
    graph_free(g);
}

/* Every prefix of real files fails cleanly (never crashes, never loads). */
static void test_truncation(void **state)
{
    (void)state;
    const char *files[] = {"tfjs/layer_zoo.model.json", "keras/k3_transformer_block.json",
                           "tfjs/human_emotion.model.json"};
    for (int f = 0; f < 3; f++) {
        char *text;
        size_t len;
        struct diag d = {0};
        assert_int_equal(file_read_all(sample(files[f]), 1 << 24, &text, &len, &d), ST_OK);
        for (int i = 1; i < 48; i++) {
            size_t cut = len * (size_t)i / 48;
            char save = text[cut];
            text[cut] = 0;
            struct diag e = {0};
            const char *p = write_tmp(text);
            struct graph *g = keras_load_file(p, &e);
            remove(p);
            text[cut] = save;
            if (g)
                fail_msg("%s cut at %zu loaded", files[f], cut);
            assert_int_equal(e.code, ST_EPARSE);
        }
        free(text);
    }
}

static void test_sniff(void **state)
{
    (void)state;
    const char *a = "{\"class_name\": \"Sequential\"}", *b = "{\"modelTopology\": {}}";
    assert_true(keras_sniff(a, strlen(a)));
    assert_true(keras_sniff(b, strlen(b)));
    assert_false(keras_sniff("{\"format\": \"dippm-graph\"}", 24));
}

int main(void)
{
    const char *s = getenv("SAMPLES_DIR");
    snprintf(samples, sizeof samples, "%s", s ? s : "samples");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generated_params),  cmocka_unit_test(test_real_tfjs_params),
        cmocka_unit_test(test_hand_written_params), cmocka_unit_test(test_tiny_cnn_macs),
        cmocka_unit_test(test_bn_convention),     cmocka_unit_test(test_seq_symbol),
        cmocka_unit_test(test_resnet_ish_macs),   cmocka_unit_test(test_bidirectional_macs),
        cmocka_unit_test(test_errors),            cmocka_unit_test(test_sniff),
        cmocka_unit_test(test_cell_weight_names), cmocka_unit_test(test_out_of_order),
        cmocka_unit_test(test_truncation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
