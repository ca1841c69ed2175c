/* test_weights.c - weight file round trip and rejection of corrupt,
 * truncated, mismatched and hostile files (always ST_EWEIGHTS, never garbage). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/gnn.h"
#include "core/gnn_features.h"
#include "graph/load.h"
#include "core/predict.h"
#include "core/weights.h"

#define SCHEMA 0x1234567890abcdefull

static void make_model(struct gnn_model *m)
{
    struct gnn_arch a = {5, 4, 8, 2, 6};
    assert_int_equal(gnn_model_alloc(m, &a, NULL), ST_OK);
    gnn_model_init(m, 1);
    for (int i = 0; i < 5; i++) {
        m->node_mean[i] = (float)i;
        m->node_std[i] = 1.5f + (float)i;
    }
    m->bound[2] = 0.25f;
    m->node_bound = 2.5f;
}

/* Rewrites the trailing checksum so a deliberate field change is what the
 * loader sees (not just the checksum). */
static void reseal(unsigned char *buf, size_t len)
{
    uint64_t h = weights_fnv64(buf, len - 8);
    for (int i = 0; i < 8; i++)
        buf[len - 8 + i] = (unsigned char)(h >> (8 * i));
}

static void test_round_trip(void **state)
{
    (void)state;
    struct gnn_model m, r;
    make_model(&m);
    unsigned char *buf;
    size_t len;
    weights_encode(&m, SCHEMA, "teacher labels, test", &buf, &len);
    /* header 8+4+8+24+4, data 4 bytes per param, checksum 8 */
    assert_true(len > m.n_params * 4 + 56);
    char desc[WEIGHTS_DESC_MAX];
    struct diag d = {0};
    assert_int_equal(weights_decode(buf, len, "x.dpw", SCHEMA, &r, desc, sizeof desc, &d), ST_OK);
    assert_string_equal(desc, "teacher labels, test");
    assert_int_equal(r.n_params, m.n_params);
    assert_memory_equal(r.w, m.w, m.n_params * sizeof(float));
    assert_memory_equal(r.node_std, m.node_std, 5 * sizeof(float));
    assert_true(r.bound[2] == 0.25f && r.node_bound == 2.5f && r.bound[0] == m.bound[0]);
    assert_int_equal(r.arch.hidden, 8);
    assert_int_equal(r.arch.layers, 2);
    gnn_model_fini(&r);
    free(buf);
    gnn_model_fini(&m);
}

static void test_bit_flips(void **state)
{
    (void)state;
    struct gnn_model m, r;
    make_model(&m);
    unsigned char *buf;
    size_t len;
    weights_encode(&m, SCHEMA, "desc", &buf, &len);
    /* Flip one bit at many positions: header, table, norm, data, checksum. */
    for (size_t pos = 0; pos < len; pos += (pos < 200 ? 1 : 97)) {
        for (int bit = 0; bit < 8; bit += 3) {
            buf[pos] ^= (unsigned char)(1u << bit);
            struct diag d = {0};
            enum status st = weights_decode(buf, len, "flip.dpw", SCHEMA, &r, NULL, 0, &d);
            assert_int_equal(st, ST_EWEIGHTS);
            assert_non_null(strstr(d.msg, "flip.dpw"));
            assert_null(r.w);
            buf[pos] ^= (unsigned char)(1u << bit);
        }
    }
    free(buf);
    gnn_model_fini(&m);
}

static void test_truncated(void **state)
{
    (void)state;
    struct gnn_model m, r;
    make_model(&m);
    unsigned char *buf;
    size_t len;
    weights_encode(&m, SCHEMA, "desc", &buf, &len);
    size_t cuts[] = {0, 1, 7, 8, 12, 20, 40, 100, len / 2, len - 9, len - 8, len - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        struct diag d = {0};
        assert_int_equal(weights_decode(buf, cuts[i], "cut.dpw", SCHEMA, &r, NULL, 0, &d),
                         ST_EWEIGHTS);
        assert_true(strlen(d.msg) > 10);
    }
    /* Truncated but resealed: the structure check must catch it. */
    size_t cut = len - 40;
    unsigned char *c = malloc(cut);
    memcpy(c, buf, cut - 8);
    reseal(c, cut);
    struct diag d = {0};
    assert_int_equal(weights_decode(c, cut, "cut.dpw", SCHEMA, &r, NULL, 0, &d), ST_EWEIGHTS);
    assert_non_null(strstr(d.msg, "truncated"));
    free(c);
    free(buf);
    gnn_model_fini(&m);
}

static void test_schema_and_version(void **state)
{
    (void)state;
    struct gnn_model m, r;
    make_model(&m);
    unsigned char *buf;
    size_t len;
    weights_encode(&m, SCHEMA, "desc", &buf, &len);
    struct diag d = {0};
    assert_int_equal(weights_decode(buf, len, "s.dpw", SCHEMA + 1, &r, NULL, 0, &d), ST_EWEIGHTS);
    assert_non_null(strstr(d.msg, "feature schema"));
    buf[8] = 99; /* version */
    reseal(buf, len);
    diag_clear(&d);
    assert_int_equal(weights_decode(buf, len, "s.dpw", SCHEMA, &r, NULL, 0, &d), ST_EWEIGHTS);
    assert_non_null(strstr(d.msg, "version 99"));
    free(buf);
    gnn_model_fini(&m);
}

static void test_hostile_fields(void **state)
{
    (void)state;
    struct gnn_model m, r;
    make_model(&m);
    unsigned char *buf;
    size_t len;
    weights_encode(&m, SCHEMA, "desc", &buf, &len);
    unsigned char *c = malloc(len);
    /* hidden width = 4000 (valid limit) but far more parameters than the file. */
    memcpy(c, buf, len);
    c[28] = 0xa0;
    c[29] = 0x0f;
    reseal(c, len);
    struct diag d = {0};
    assert_int_equal(weights_decode(c, len, "h.dpw", SCHEMA, &r, NULL, 0, &d), ST_EWEIGHTS);
    /* hidden width = 2^31-1: architecture limit. */
    memcpy(c, buf, len);
    c[28] = c[29] = c[30] = 0xff;
    c[31] = 0x7f;
    reseal(c, len);
    diag_clear(&d);
    assert_int_equal(weights_decode(c, len, "h.dpw", SCHEMA, &r, NULL, 0, &d), ST_EWEIGHTS);
    assert_non_null(strstr(d.msg, "architecture"));
    /* A NaN in the last parameter. */
    memcpy(c, buf, len);
    uint32_t nan = 0x7fc00000u;
    memcpy(c + len - 12, &nan, 4);
    reseal(c, len);
    diag_clear(&d);
    assert_int_equal(weights_decode(c, len, "h.dpw", SCHEMA, &r, NULL, 0, &d), ST_EWEIGHTS);
    assert_non_null(strstr(d.msg, "finite"));
    /* A zero std (first node_std comes right after the tensor table). */
    memcpy(c, buf, len);
    size_t pos = 8 + 4 + 8 + 24 + 4;
    for (int i = 0; i < m.n_tensors; i++)
        pos += 1 + strlen(m.t[i].name) + 8;
    pos += 4 * 5; /* node_mean */
    memset(c + pos, 0, 4);
    reseal(c, len);
    diag_clear(&d);
    assert_int_equal(weights_decode(c, len, "h.dpw", SCHEMA, &r, NULL, 0, &d), ST_EWEIGHTS);
    assert_non_null(strstr(d.msg, "std"));
    free(c);
    free(buf);
    gnn_model_fini(&m);
}

static void test_files(void **state)
{
    (void)state;
    struct gnn_model m, r;
    make_model(&m);
    char path[] = "/tmp/test_weights_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    struct diag d = {0};
    assert_int_equal(weights_save(path, &m, SCHEMA, "d", false, &d), ST_EEXIST);
    diag_clear(&d);
    assert_int_equal(weights_save(path, &m, SCHEMA, "d", true, &d), ST_OK);
    assert_int_equal(weights_load(path, SCHEMA, &r, NULL, 0, &d), ST_OK);
    assert_memory_equal(r.w, m.w, m.n_params * sizeof(float));
    gnn_model_fini(&r);
    unlink(path);
    diag_clear(&d);
    assert_int_not_equal(weights_load(path, SCHEMA, &r, NULL, 0, &d), ST_OK);
    assert_non_null(strstr(d.msg, "test_weights_"));
    gnn_model_fini(&m);
}

/* The predictor on a random model of the real feature sizes: outputs are
 * the model's (finite, positive), shares sum to 1, derived figures follow
 * from them; without weights it reports the teacher's figures. */
static void test_predictor(void **state)
{
    (void)state;
    struct gnn_arch a = {FEAT_NODE_DIM, FEAT_GRAPH_DIM, 8, 2, 8};
    struct gnn_model m;
    assert_int_equal(gnn_model_alloc(&m, &a, NULL), ST_OK);
    gnn_model_init(&m, 3);
    /* A latency correction of B tanh(0.3 / B) through head3.b; the node
     * factors and the other corrections stay 0. */
    for (int ti = 0; ti < m.n_tensors; ti++)
        if (strcmp(m.t[ti].name, "head3.b") == 0)
            m.w[m.t[ti].off + GNN_T_LATENCY] = 0.3f;
    char path[] = "/tmp/test_pred_XXXXXX";
    close(mkstemp(path));
    struct diag d = {0};
    assert_int_equal(weights_save(path, &m, gnn_features_schema_id(), "test model", true, &d),
                     ST_OK);
    struct predictor *p = predictor_new(path, &d);
    assert_non_null(p);
    assert_non_null(strstr(predictor_describe(p), "test model"));
    struct graph *g = model_load("zoo:mlp", &d);
    assert_non_null(g);
    struct config cfg;
    config_default(&cfg);
    cfg.batch = 8;
    struct prediction pr;
    assert_int_equal(predict_run(p, g, &cfg, &pr, &d), ST_OK);
    assert_true(pr.from_gnn);
    assert_true(pr.latency_ms > 0 && isfinite(pr.latency_ms));
    double B = m.bound[GNN_T_LATENCY];
    assert_float_equal(pr.latency_ms, pr.sim.latency_ms * exp(B * tanh(0.3 / B)),
                       1e-5 * pr.latency_ms);
    assert_float_equal(pr.memory_mib, pr.sim.memory_mib, 1e-5 * pr.memory_mib);
    assert_float_equal(pr.energy_j, pr.sim.energy_j, 1e-5 * pr.energy_j);
    assert_true(pr.energy_j > 0 && pr.memory_mib > 0);
    assert_float_equal(pr.throughput, 8 * 1000.0 / pr.latency_ms, 1e-9 * pr.throughput);
    assert_float_equal(pr.energy_mj_per_sample, pr.energy_j * 1000.0 / 8, 1e-9);

    double sum = 0;
    for (int i = 0; i < pr.n_nodes; i++)
        sum += pr.node_share[i];
    assert_float_equal(sum, 1.0, 1e-5);
    /* Same inputs, same answer (scratch reuse keeps no state between calls). */
    struct prediction pr2;
    assert_int_equal(predict_run(p, g, &cfg, &pr2, &d), ST_OK);
    assert_true(pr2.latency_ms == pr.latency_ms);
    prediction_fini(&pr2);
    prediction_fini(&pr);
    assert_int_equal(predict_run(NULL, g, &cfg, &pr, &d), ST_OK);
    assert_false(pr.from_gnn);
    assert_true(pr.latency_ms == pr.sim.latency_ms);
    prediction_fini(&pr);
    predictor_free(p);
    /* A schema-mismatched file is refused. */
    assert_int_equal(weights_save(path, &m, 42, "x", true, &d), ST_OK);
    diag_clear(&d);
    assert_null(predictor_new(path, &d));
    assert_int_equal(d.code, ST_EWEIGHTS);
    unlink(path);
    graph_free(g);
    gnn_model_fini(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),      cmocka_unit_test(test_bit_flips),
        cmocka_unit_test(test_truncated),       cmocka_unit_test(test_schema_and_version),
        cmocka_unit_test(test_hostile_fields),  cmocka_unit_test(test_files),
        cmocka_unit_test(test_predictor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
