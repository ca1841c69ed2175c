/* keras.c - PLACEHOLDER until the Keras/TF.js work lands. */
#include "keras.h"

#include <string.h>

bool keras_sniff(const char *text, size_t len)
{
    (void)len;
    return strstr(text, "\"class_name\"") || strstr(text, "\"modelTopology\"");
}

struct graph *keras_load_file(const char *path, struct diag *d)
{
    diag_set(d, ST_EUNSUPPORTED, "%s: Keras/TF.js loading is not built yet", path);
    return NULL;
}
