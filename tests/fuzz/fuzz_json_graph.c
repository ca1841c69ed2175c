/* fuzz_json_graph.c - libFuzzer harness: dippm JSON graph parser, then shape
 * inference and a write/read round trip of whatever parses. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "graph/json/json_graph.h"
#include "graph/ops/shape.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct diag d = {0};
    struct graph *g = json_graph_parse((const char *)data, size, "fuzz", &d);
    if (!g)
        return 0;
    struct diag e = {0};
    graph_infer(g, &e);
    size_t len;
    char *text = json_graph_write(g, &len);
    struct diag f = {0};
    struct graph *g2 = json_graph_parse(text, len, "rt", &f);
    if (!g2)
        abort(); /* what we write must read back */
    graph_free(g2);
    free(text);
    graph_free(g);
    return 0;
}
