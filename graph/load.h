/*
 * load.h - opens any model the user has: picks the parser by the spec's
 * prefix ("zoo:"), the file's extension and its first bytes.
 */
#ifndef DIPPM_LOAD_H
#define DIPPM_LOAD_H

#include "graph/ir/ir.h"

/* Loads and finalizes a model from spec: a path to an ONNX file, a Keras /
 * TF.js model JSON, a dippm JSON graph, or "zoo:FAMILY[:k=v[:k=v...]]".
 * NULL on error with diag naming the file and what was wrong. */
struct graph *model_load(const char *spec, struct diag *d);

/* The bundled default model's path: $DIPPM_DEFAULT_MODEL, else resnet50.onnx
 * in the samples directory (datafile.h); NULL if there is none. */
const char *model_default_path(void);

#endif
