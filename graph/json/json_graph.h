/*
 * json_graph.h - dippm's own JSON graph format (man/dippm-json.5): read with
 * cJSON, written with jsonw. A write-read round trip is exact.
 */
#ifndef DIPPM_JSON_GRAPH_H
#define DIPPM_JSON_GRAPH_H

#include <stddef.h>

#include "graph/ir/ir.h"

#define JSON_GRAPH_FORMAT "dippm-graph"
#define JSON_GRAPH_VERSION 1

/* true if text looks like a dippm JSON graph ("format": "dippm-graph"). */
bool json_graph_sniff(const char *text, size_t len);
/* Parses text (name used in messages) into a finalized graph. */
struct graph *json_graph_parse(const char *text, size_t len, const char *name, struct diag *d);
struct graph *json_graph_load(const char *path, struct diag *d);
/* Serialises g (declared types, symbols with defaults, attributes, known
 * constant data). Returns a malloc'd NUL-terminated string. */
char *json_graph_write(const struct graph *g, size_t *len);

#endif
