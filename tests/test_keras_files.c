/*
 * test_keras_files.c - Keras `.h5` and `.keras` files, written here with
 * libhdf5 and libzip the way Keras lays them out: the configurations are the
 * Keras JSON samples (samples/keras, made by @tensorflow/tfjs), so the
 * parameter count must equal tfjs's countParams() recorded in
 * samples/keras/params.json; the weight datasets written here have known
 * shapes, which the reader must sum without reading values. Damaged and
 * incomplete files fail naming the file and what is missing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zip.h>

#include "util/fileio.h"
#include "graph/ir/ir.h"
#include "graph/keras/keras_file.h"
#include "graph/load.h"
#include "graph/ops/shape.h"

static char tmpdir[256];

/* Elements of every initializer (tfjs's countParams includes the
 * non-trainable BatchNormalization statistics, which totals.params leaves
 * out). */
static double init_elems(const struct graph *g)
{
    double sum = 0;
    for (int vi = 0; vi < g->n_values; vi++) {
        const struct value *v = &g->values[vi];
        if (!(v->flags & VAL_INIT))
            continue;
        double e = 1;
        for (int i = 0; i < v->rank; i++)
            e *= (double)v->dims[i].v;
        sum += e;
    }
    return sum;
}
static cJSON *params;

static const char *top(void)
{
    const char *t = getenv("TOP_SRCDIR");
    return t ? t : ".";
}

static char *sample_text(const char *model, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/samples/keras/%s.json", top(), model);
    char *text;
    struct diag d;
    if (file_read_all(path, 1 << 24, &text, len, &d))
        fail_msg("%s", d.msg);
    return text;
}

static double want_params(const char *model)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(params, "models"), model);
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(m, "params");
    if (!cJSON_IsNumber(p))
        fail_msg("params.json has no params for %s", model);
    return p->valuedouble;
}

static void put_str_attr(hid_t f, const char *name, const char *text, bool variable)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, variable ? H5T_VARIABLE : strlen(text) + 1);
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(f, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(a >= 0);
    assert_true(H5Awrite(a, t, variable ? (const void *)&text : (const void *)text) >= 0);
    H5Aclose(a);
    H5Sclose(sp);
    H5Tclose(t);
}

/* Declares a float dataset of the given shape under loc (no data written). */
static void put_dataset(hid_t loc, const char *name, int rank, const hsize_t *dims)
{
    hid_t sp = H5Screate_simple(rank, dims, NULL);
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    hid_t ds = H5Dcreate2(loc, name, H5T_NATIVE_FLOAT, sp, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(ds >= 0);
    H5Dclose(ds);
    H5Pclose(lcpl);
    H5Sclose(sp);
}

/* Keras 2 layout: model_config on the root, weights under model_weights;
 * weights total 3*3*3*8 + 8 = 224 elements in 2 datasets. */
static void write_h5(const char *path, const char *config, bool variable, const char *wroot)
{
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(f >= 0);
    if (config)
        put_str_attr(f, "model_config", config, variable);
    put_str_attr(f, "keras_version", "2.15.0", true);
    hid_t g = H5Gcreate2(f, wroot, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t k[4] = {3, 3, 3, 8}, b[1] = {8};
    put_dataset(g, "conv/conv/kernel:0", 4, k);
    put_dataset(g, "conv/conv/bias:0", 1, b);
    H5Gclose(g);
    H5Fclose(f);
}

static char *tpath(const char *name)
{
    static char buf[8][512];
    static int k;
    char *p = buf[k++ % 8];
    snprintf(p, 512, "%s/%s", tmpdir, name);
    return p;
}

static struct graph *load_ok(const char *path)
{
    struct diag d;
    diag_clear(&d);
    struct graph *g = model_load(path, &d);
    if (!g)
        fail_msg("%s", d.msg);
    diag_clear(&d);
    if (graph_infer(g, &d))
        fail_msg("%s", d.msg);
    return g;
}

static void expect_fail(const char *path, const char *needle)
{
    struct diag d;
    diag_clear(&d);
    struct graph *g = model_load(path, &d);
    if (g || !strstr(d.msg, needle) || !strstr(d.msg, path))
        fail_msg("%s: expected an error with '%s', got %s", path, needle,
                 g ? "success" : d.msg);
}

static void test_h5_models(void **state)
{
    (void)state;
    static const char *const models[] = {"tiny_cnn", "resnet_ish", "mobilenet_v2_like",
                                         "lstm_text", "layer_zoo"};
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        size_t len;
        char *text = sample_text(models[i], &len);
        const char *p = tpath("m.h5");
        write_h5(p, text, i % 2 == 0, "model_weights");
        free(text);
        struct graph *g = load_ok(p);
        if (init_elems(g) != want_params(models[i]))
            fail_msg("%s: %.0f parameter elements, tfjs counts %.0f", models[i], init_elems(g),
                     want_params(models[i]));
        assert_int_equal(g->n_file_weights, 2);
        assert_true(g->file_weight_elems == 224);
        graph_free(g);
    }
}

/* A model_config that starts with whitespace (JSON allows it) loads: the
 * reader process's answer is framed by lengths, not by scanf's whitespace. */
static void test_h5_config_leading_space(void **state)
{
    (void)state;
    size_t len;
    char *text = sample_text("tiny_cnn", &len);
    char *spaced = malloc(len + 4);
    assert_non_null(spaced);
    memcpy(spaced, "\n \t", 3);
    memcpy(spaced + 3, text, len + 1);
    for (int variable = 0; variable < 2; variable++) {
        write_h5(tpath("spaced.h5"), spaced, variable, "model_weights");
        struct graph *g = load_ok(tpath("spaced.h5"));
        assert_true(init_elems(g) == want_params("tiny_cnn"));
        graph_free(g);
    }
    free(spaced);
    free(text);
}

/* Loads path expecting failure; returns the diag (static). */
static const struct diag *load_fails(const char *path)
{
    static struct diag d;
    diag_clear(&d);
    struct graph *g = model_load(path, &d);
    if (g)
        fail_msg("%s: loaded, expected an error", path);
    return &d;
}

/* A reader process that cannot start (ulimit -n) and a file that takes
 * longer than the time limit are said as such, not as a corrupt file. */
static void test_h5_not_blamed(void **state)
{
    (void)state;
    size_t len;
    char *text = sample_text("tiny_cnn", &len);
    write_h5(tpath("ok.h5"), text, true, "model_weights");
    free(text);
    /* room for the file itself but not for the reader's pipe */
    struct rlimit old, low;
    int fd = open("/dev/null", O_RDONLY);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
    low = old;
    low.rlim_cur = (rlim_t)fd + 1;
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
    const struct diag *d = load_fails(tpath("ok.h5"));
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
    if (d->code != ST_EIO || !strstr(d->msg, "did not start: cannot create a pipe") ||
        strstr(d->msg, "corrupt"))
        fail_msg("ulimit -n: %s", d->msg);
    /* thousands of datasets cannot be walked in 1 ms */
    hid_t f = H5Fopen(tpath("ok.h5"), H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(f >= 0);
    hsize_t one[1] = {1};
    char name[64];
    for (int i = 0; i < 3000; i++) {
        snprintf(name, sizeof name, "model_weights/deep/w%d:0", i);
        put_dataset(f, name, 1, one);
    }
    H5Fclose(f);
    keras_h5_set_time_limit(1);
    d = load_fails(tpath("ok.h5"));
    keras_h5_set_time_limit(0);
    if (d->code != ST_ENOMEM || !strstr(d->msg, "time limit for an HDF5 file") ||
        strstr(d->msg, "corrupt HDF5?"))
        fail_msg("timeout: %s", d->msg);
}

/* A weight dataset declaring more than 2^53 elements (chunked: HDF5 stores
 * nothing for it) is an error naming it, not a count past every bound. */
static void test_h5_weight_dims(void **state)
{
    (void)state;
    size_t len;
    char *text = sample_text("tiny_cnn", &len);
    write_h5(tpath("huge_w.h5"), text, true, "model_weights");
    free(text);
    hid_t f = H5Fopen(tpath("huge_w.h5"), H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(f >= 0);
    hsize_t dims[3] = {1ULL << 31, 1ULL << 31, 1ULL << 31}, chunk[3] = {1, 1, 1};
    hid_t sp = H5Screate_simple(3, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    assert_true(H5Pset_chunk(dcpl, 3, chunk) >= 0);
    hid_t ds = H5Dcreate2(f, "model_weights/conv/conv/huge:0", H5T_NATIVE_FLOAT, sp, H5P_DEFAULT,
                          dcpl, H5P_DEFAULT);
    assert_true(ds >= 0);
    H5Dclose(ds);
    H5Pclose(dcpl);
    H5Sclose(sp);
    H5Fclose(f);
    const struct diag *d = load_fails(tpath("huge_w.h5"));
    if (d->code != ST_EPARSE ||
        !strstr(d->msg, "weight dataset 'conv/conv/huge:0': shape [2147483648, 2147483648, "
                        "2147483648] has more than 2^53 elements"))
        fail_msg("%s", d->msg);
}

static void add_buffer(zip_t *z, const char *name, const void *data, size_t len)
{
    zip_source_t *s = zip_source_buffer(z, data, len, 0);
    assert_non_null(s);
    zip_int64_t idx = zip_file_add(z, name, s, ZIP_FL_OVERWRITE);
    assert_true(idx >= 0);
    /* stored, as zipfile writes small entries: the damage test edits it */
    assert_int_equal(zip_set_file_compression(z, (zip_uint64_t)idx, ZIP_CM_STORE, 0), 0);
}

/* A .keras archive: config.json, metadata.json and (optionally) weights. */
static void write_keras(const char *path, const char *config, size_t clen, bool weights)
{
    unlink(path);
    int err;
    zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &err);
    assert_non_null(z);
    static const char meta[] = "{\"keras_version\": \"3.3.3\"}";
    char *w = NULL;
    size_t wlen = 0;
    if (config)
        add_buffer(z, "config.json", config, clen);
    add_buffer(z, "metadata.json", meta, sizeof meta - 1);
    if (weights) {
        write_h5(tpath("w.h5"), NULL, true, "layers");
        struct diag d;
        assert_int_equal(file_read_all(tpath("w.h5"), 1 << 24, &w, &wlen, &d), ST_OK);
        add_buffer(z, "model.weights.h5", w, wlen);
    }
    assert_int_equal(zip_close(z), 0);
    free(w);
}

static void test_keras_archive(void **state)
{
    (void)state;
    size_t len;
    char *text = sample_text("resnet_ish", &len);
    write_keras(tpath("m.keras"), text, len, true);
    struct graph *g = load_ok(tpath("m.keras"));
    assert_true(init_elems(g) == want_params("resnet_ish"));
    assert_int_equal(g->n_file_weights, 2);
    assert_true(g->file_weight_elems == 224);
    graph_free(g);
    /* no telling extension: found by its first bytes */
    assert_int_equal(rename(tpath("m.keras"), tpath("m.bin")), 0);
    g = load_ok(tpath("m.bin"));
    assert_true(init_elems(g) == want_params("resnet_ish"));
    graph_free(g);
    /* an archive without weights still gives the configuration's count */
    write_keras(tpath("m.keras"), text, len, false);
    g = load_ok(tpath("m.keras"));
    assert_true(init_elems(g) == want_params("resnet_ish"));
    assert_int_equal(g->n_file_weights, 0);
    graph_free(g);
    free(text);
}

/* A .keras archive of two entries, both deflated. */
static void write_zip2(const char *path, const char *n1, const void *d1, size_t l1,
                       const char *n2, const void *d2, size_t l2)
{
    unlink(path);
    int err;
    zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &err);
    assert_non_null(z);
    const char *names[2] = {n1, n2};
    const void *data[2] = {d1, d2};
    size_t lens[2] = {l1, l2};
    for (int i = 0; i < 2; i++) {
        zip_source_t *s = zip_source_buffer(z, data[i], lens[i], 0);
        assert_non_null(s);
        zip_int64_t idx = zip_file_add(z, names[i], s, ZIP_FL_OVERWRITE);
        assert_true(idx >= 0);
        assert_int_equal(zip_set_file_compression(z, (zip_uint64_t)idx, ZIP_CM_DEFLATE, 9), 0);
    }
    assert_int_equal(zip_close(z), 0);
}

/* Entries that unpack to hundreds of times their size are refused before
 * they are unpacked: a config.json is an error naming it, a weights entry
 * is skipped (the configuration still counts the parameters); an entry of
 * the wrong kind is refused on its first bytes. */
static void test_zip_bombs(void **state)
{
    (void)state;
    size_t len, big = (size_t)8 << 20;
    char *text = sample_text("tiny_cnn", &len);
    char *blank = malloc(big);
    assert_non_null(blank);
    memset(blank, ' ', big);
    blank[0] = '{';
    blank[big - 1] = '}';
    write_zip2(tpath("bomb.keras"), "config.json", blank, big, "metadata.json", "{}", 2);
    expect_fail(tpath("bomb.keras"), "config.json unpacks");
    expect_fail(tpath("bomb.keras"), "refused unread");
    /* an HDF5 signature, then zeros */
    memset(blank, 0, big);
    memcpy(blank, "\211HDF\r\n\032\n", 8);
    write_zip2(tpath("wbomb.keras"), "config.json", text, len, "model.weights.h5", blank, big);
    struct graph *g = load_ok(tpath("wbomb.keras"));
    assert_true(init_elems(g) == want_params("tiny_cnn"));
    assert_int_equal(g->n_file_weights, 0);
    graph_free(g);
    /* not HDF5: refused on its first bytes */
    write_zip2(tpath("wnot.keras"), "config.json", text, len, "model.weights.h5", "garbage!", 8);
    expect_fail(tpath("wnot.keras"), "model.weights.h5 does not start as an HDF5 file");
    free(blank);
    free(text);
}

static void write_bytes(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, n, f), n);
    fclose(f);
}

static void test_bad_files(void **state)
{
    (void)state;
    size_t len;
    char *text = sample_text("tiny_cnn", &len);
    /* archive without config.json */
    write_keras(tpath("noconf.keras"), NULL, 0, true);
    expect_fail(tpath("noconf.keras"), "has no config.json");
    /* truncated archive */
    write_keras(tpath("full.keras"), text, len, true);
    char *buf;
    size_t n;
    struct diag d;
    assert_int_equal(file_read_all(tpath("full.keras"), 1 << 24, &buf, &n, &d), ST_OK);
    write_bytes(tpath("trunc.keras"), buf, n / 2);
    expect_fail(tpath("trunc.keras"), "not a readable zip archive");
    /* config.json whose stored bytes were changed: CRC mismatch, or bad JSON */
    char *hit = NULL;
    for (size_t i = 0; i + 12 <= n && !hit; i++)
        if (!memcmp(buf + i, "\"class_name\"", 12))
            hit = buf + i;
    assert_non_null(hit);
    hit[1] = 'X';
    write_bytes(tpath("crc.keras"), buf, n);
    expect_fail(tpath("crc.keras"), "config.json is damaged");
    free(buf);
    /* config.json that is not JSON */
    write_keras(tpath("notjson.keras"), "{\"class_name\": ", 15, false);
    expect_fail(tpath("notjson.keras"), "invalid JSON");
    /* .h5 without model_config (a save_weights file) */
    write_h5(tpath("weights_only.h5"), NULL, true, "model_weights");
    expect_fail(tpath("weights_only.h5"), "no root attribute model_config");
    /* model_config that is a number */
    hid_t f = H5Fcreate(tpath("num.h5"), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(f, "model_config", H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT);
    int v = 7;
    H5Awrite(a, H5T_NATIVE_INT, &v);
    H5Aclose(a);
    H5Sclose(sp);
    H5Fclose(f);
    expect_fail(tpath("num.h5"), "model_config is not a string");
    /* truncated .h5 */
    write_h5(tpath("full.h5"), text, true, "model_weights");
    assert_int_equal(file_read_all(tpath("full.h5"), 1 << 24, &buf, &n, &d), ST_OK);
    write_bytes(tpath("trunc.h5"), buf, n / 3);
    expect_fail(tpath("trunc.h5"), "HDF5 cannot open");
    /* the same bytes from memory */
    diag_clear(&d);
    assert_null(keras_h5_load_buffer(buf, n / 3, "mem.h5", &d));
    assert_non_null(strstr(d.msg, "mem.h5"));
    free(buf);
    free(text);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/dippm-kf-XXXXXX");
    if (!mkdtemp(tmpdir))
        return 1;
    char path[4096];
    snprintf(path, sizeof path, "%s/samples/keras/params.json", top());
    char *text;
    size_t len;
    struct diag d;
    if (file_read_all(path, 1 << 20, &text, &len, &d) || !(params = cJSON_Parse(text))) {
        fprintf(stderr, "test_keras_files: cannot read %s\n", path);
        return 1;
    }
    free(text);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_h5_models),
        cmocka_unit_test(test_h5_config_leading_space),
        cmocka_unit_test(test_h5_not_blamed),
        cmocka_unit_test(test_h5_weight_dims),
        cmocka_unit_test(test_keras_archive),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_zip_bombs),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    cJSON_Delete(params);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        rc = rc ? rc : 1;
    return rc;
}
