/* cli_control.h - the control-flow section of `dippm info`: If/Loop/Scan
 * nodes with their bodies, nesting and what was costed (cli_control.c). */
#ifndef DIPPM_CLI_CONTROL_H
#define DIPPM_CLI_CONTROL_H

#include <stdio.h>

#include "graph/ir/ir.h"

struct jsonw;

/* Writes the section (nothing when the graph has no control nodes). */
void info_control_text(FILE *f, const struct graph *g);
/* Writes key "control_flow": an array of control nodes (empty if none). */
void info_control_json(struct jsonw *w, const struct graph *g);

#endif
