/* onnx_load.c - PLACEHOLDER until the ONNX work lands. */
#include "onnx_load.h"

struct graph *onnx_load_buffer(const void *buf, size_t len, const char *name, struct diag *d)
{
    (void)buf;
    (void)len;
    diag_set(d, ST_EUNSUPPORTED, "%s: ONNX loading is not built yet", name);
    return NULL;
}

struct graph *onnx_load_file(const char *path, struct diag *d)
{
    return onnx_load_buffer(NULL, 0, path, d);
}
