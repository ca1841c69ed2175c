/* load.c - model format detection and dispatch. */
#include "graph/load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/datafile.h"
#include "util/fileio.h"
#include "graph/json/json_graph.h"
#include "graph/keras/keras.h"
#include "graph/keras/keras_file.h"
#include "graph/onnx/onnx_load.h"
#include "graph/zoo/zoo.h"

/* JSON model files beyond this are refused before parsing (a real Keras or
 * dippm graph of 100k nodes is well under this). */
#define JSON_MAX_BYTES ((size_t)512 << 20)

static bool has_ext(const char *path, const char *ext)
{
    size_t n = strlen(path), e = strlen(ext);
    return n >= e && strcasecmp(path + n - e, ext) == 0;
}

static struct graph *load_json(const char *path, struct diag *d)
{
    char *text;
    size_t len;
    if (file_read_all(path, JSON_MAX_BYTES, &text, &len, d))
        return NULL;
    struct graph *g = NULL;
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) {
        diag_set(d, ST_EPARSE, "%s: starts with a UTF-8 byte-order mark, which JSON does not "
                 "allow (remove the first 3 bytes)", path);
    } else if (json_graph_sniff(text, len)) {
        g = json_graph_parse(text, len, path, d);
    } else if (keras_sniff(text, len)) {
        free(text);
        return keras_load_file(path, d);
    } else {
        diag_set(d, ST_EPARSE,
                 "%s: JSON file is neither a dippm graph (\"format\": \"dippm-graph\") nor a "
                 "Keras/TF.js model (\"class_name\"/\"config\" or \"modelTopology\")",
                 path);
    }
    free(text);
    return g;
}

struct graph *model_load(const char *spec, struct diag *d)
{
    if (!spec || !*spec) {
        diag_set(d, ST_EUSAGE, "no model given");
        return NULL;
    }
    if (strncmp(spec, "zoo:", 4) == 0)
        return zoo_build_spec(spec + 4, d);
    /* One check for every format: the file must be a readable regular file. */
    struct stat st;
    if (stat(spec, &st) != 0) {
        diag_set(d, errno == ENOENT ? ST_ENOTFOUND : ST_EIO, "%s: %s%s", spec, strerror(errno),
                 errno == ENOENT ? " (and not a zoo: template spec)" : "");
        return NULL;
    }
    if (S_ISDIR(st.st_mode)) {
        diag_set(d, ST_EIO, "%s: is a directory, expected a model file", spec);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        diag_set(d, ST_EIO, "%s: not a regular file (device, pipe or socket)", spec);
        return NULL;
    }
    if (st.st_size == 0) {
        diag_set(d, ST_EPARSE, "%s: file is empty, expected a model", spec);
        return NULL;
    }
    if (access(spec, R_OK) != 0) {
        diag_set(d, ST_EIO, "%s: cannot read: %s", spec, strerror(errno));
        return NULL;
    }
    if (has_ext(spec, ".json"))
        return load_json(spec, d);
    if (has_ext(spec, ".onnx"))
        return onnx_load_file(spec, d);
    if (has_ext(spec, ".keras"))
        return keras_zip_load_file(spec, d);
    if (has_ext(spec, ".h5") || has_ext(spec, ".hdf5"))
        return keras_h5_load_file(spec, d);

    /* No telling extension: sniff the first bytes. JSON starts with '{'
     * (after whitespace); anything else is tried as ONNX protobuf. */
    FILE *f = file_fopen_regular(spec, d);
    if (!f)
        return NULL;
    uint8_t head[8];
    size_t got = fread(head, 1, sizeof head, f);
    rewind(f);
    int c = fgetc(f);
    if (c == 0xEF && fgetc(f) == 0xBB && fgetc(f) == 0xBF) /* UTF-8 byte-order mark */
        c = '{';
    while (c == ' ' || c == '\n' || c == '\r' || c == '\t')
        c = fgetc(f);
    fclose(f);
    switch (keras_file_sniff(head, got)) {
    case 1: return keras_zip_load_file(spec, d);
    case 2: return keras_h5_load_file(spec, d);
    default: break;
    }
    if (c == '{')
        return load_json(spec, d);
    return onnx_load_file(spec, d);
}

const char *model_default_path(void)
{
    const char *env = getenv("DIPPM_DEFAULT_MODEL");
    if (env && *env)
        return env;
    static char path[PATH_MAX];
    return datafile_find(DATAFILE_SAMPLES, "resnet50.onnx", path, sizeof path);
}
