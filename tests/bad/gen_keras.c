/* gen_keras.c - writes the Keras .keras/.h5 files of the bad-input corpus
 * (tests/bad/files/keras_*.keras, h5_*.h5) with libzip and libhdf5:
 *   cc -std=c11 tests/bad/gen_keras.c $(pkg-config --cflags --libs libzip hdf5) \
 *      -o /tmp/gen_keras && /tmp/gen_keras tests/bad/files tests/fuzz/corpus
 * With a second directory it also writes valid seeds for the fuzz targets
 * (keras_zip/seed.keras, keras_h5/seed.h5).
 */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

static const char config[] =
    "{\"class_name\": \"Sequential\", \"config\": {\"name\": \"s\", \"layers\": ["
    "{\"class_name\": \"InputLayer\", \"config\": {\"batch_input_shape\": [null, 4], "
    "\"name\": \"in\"}}, {\"class_name\": \"Dense\", \"config\": {\"name\": \"d\", "
    "\"units\": 2}}]}}";

static void zipfile(const char *dir, const char *name, const char *entry, const char *text)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    remove(p);
    int err;
    zip_t *z = zip_open(p, ZIP_CREATE | ZIP_TRUNCATE, &err);
    zip_source_t *s = zip_source_buffer(z, text, strlen(text), 0);
    zip_file_add(z, entry, s, 0);
    if (zip_close(z))
        exit(1);
}

static void truncate_copy(const char *dir, const char *from, const char *to, long keep)
{
    char a[1024], b[1024];
    snprintf(a, sizeof a, "%s/%s", dir, from);
    snprintf(b, sizeof b, "%s/%s", dir, to);
    FILE *f = fopen(a, "rb"), *g = fopen(b, "wb");
    for (long i = 0; i < keep; i++) {
        int c = fgetc(f);
        if (c == EOF)
            break;
        fputc(c, g);
    }
    fclose(f);
    fclose(g);
    remove(a);
}

static hid_t h5(const char *dir, const char *name)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return H5Fcreate(p, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
}

static void str_attr(hid_t f, const char *name, const char *text)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(f, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, t, &text);
    H5Aclose(a);
    H5Sclose(sp);
    H5Tclose(t);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    zipfile(dir, "keras_no_config.keras", "metadata.json", "{\"keras_version\": \"3.3.3\"}");
    zipfile(dir, "keras_bad_json.keras", "config.json", "{\"class_name\": \"Sequential\", ");
    zipfile(dir, "keras_full.tmp", "config.json", config);
    truncate_copy(dir, "keras_full.tmp", "keras_truncated.keras", 60);
    hid_t f = h5(dir, "h5_no_model_config.h5");
    str_attr(f, "keras_version", "2.15.0");
    H5Fclose(f);
    f = h5(dir, "h5_config_int.h5");
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(f, "model_config", H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT);
    int v = 7;
    H5Awrite(a, H5T_NATIVE_INT, &v);
    H5Aclose(a);
    H5Sclose(sp);
    H5Fclose(f);
    f = h5(dir, "h5_full.tmp");
    str_attr(f, "model_config", config);
    H5Fclose(f);
    truncate_copy(dir, "h5_full.tmp", "h5_truncated.h5", 700);
    f = h5(dir, "h5_config_bad_json.h5");
    str_attr(f, "model_config", "{\"class_name\": [");
    H5Fclose(f);
    if (argc > 2) {
        char d2[1024];
        snprintf(d2, sizeof d2, "%s/keras_zip", argv[2]);
        zipfile(d2, "seed.keras", "config.json", config);
        snprintf(d2, sizeof d2, "%s/keras_h5", argv[2]);
        f = h5(d2, "seed.h5");
        str_attr(f, "model_config", config);
        hsize_t dims[2] = {4, 2};
        hid_t s2 = H5Screate_simple(2, dims, NULL);
        hid_t g = H5Gcreate2(f, "model_weights", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        hid_t ds = H5Dcreate2(g, "kernel", H5T_NATIVE_FLOAT, s2, H5P_DEFAULT, H5P_DEFAULT,
                              H5P_DEFAULT);
        H5Dclose(ds);
        H5Gclose(g);
        H5Sclose(s2);
        H5Fclose(f);
    }
    return 0;
}
