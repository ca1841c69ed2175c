/* cli_convert.c - `dippm convert MODEL -o OUT.json`: any model (or template)
 * as a dippm JSON graph. */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "graph/json/json_graph.h"
#include "graph/ops/tokens.h"

static const struct cli_opt convert_opts[] = {
    {"output", 'o', "OUT.json", "where the graph goes (required; '-o -': standard output)", 'o'},
    {"force", 0, NULL, "let -o replace an existing file", CLI_OPT_FORCE},
    {NULL, 0, NULL, NULL, 0},
};

const struct cli_cmd cli_cmd_convert = {
    .name = "convert",
    .usage = "dippm convert MODEL -o OUT.json [--force]",
    .about = "Writes MODEL (ONNX, Keras/TF.js JSON, dippm JSON or a zoo: template) as a dippm\n"
             "JSON graph (see dippm-json(5)). Symbols keep their defaults; --set changes them.\n"
             "OUT is written atomically and never overwritten without --force; '-o -' writes\n"
             "to standard output.",
    .common = CLI_C_SYMBOLS,
    .groups = {convert_opts},
};

int cli_convert(int argc, char **argv)
{
    struct cli_common co;
    cli_common_init(&co);
    int rc = cli_parse(&cli_cmd_convert, &co, argc, argv, NULL, NULL);
    if (rc >= 0)
        return rc;
    if (optind + 1 != argc)
        return cli_usage_error("convert", "expected exactly one MODEL");
    if (!co.output)
        return cli_usage_error("convert", "missing -o OUT.json");
    struct graph *g = cli_load_model(argv[optind], &co, &rc);
    if (!g)
        return rc;
    if (g->tokens > 0) {
        graph_free(g);
        return cli_usage_error("convert", "--set %s is a setting of a prediction, not of the "
                               "graph: a dippm JSON file cannot hold it", GRAPH_TOKENS_NAME);
    }
    /* the dippm JSON format has no form for subgraph bodies: refuse rather
     * than write a file whose body nodes read values nothing defines */
    for (int i = 0; i < g->n_nodes; i++)
        if (g->nodes[i].n_body > 0) {
            cli_error("%s: node '%s' (%s) has subgraph bodies, which the dippm JSON format "
                      "cannot hold; analyse the ONNX file directly", argv[optind],
                      g->nodes[i].name, g->nodes[i].op_type);
            graph_free(g);
            return status_exit_code(ST_EUNSUPPORTED);
        }
    /* --set/--batch change defaults in the written file */
    for (int i = 0; i < g->n_syms; i++)
        g->syms[i].def = g->syms[i].val;
    size_t len;
    char *text = json_graph_write(g, &len);
    rc = cli_emit(&co, text, len);
    free(text);
    graph_free(g);
    return rc;
}
