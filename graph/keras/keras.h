/*
 * keras.h - Keras model.to_json() configurations and TF.js model.json
 * (layers models and graph models), mapped to IR ops.
 */
#ifndef DIPPM_KERAS_H
#define DIPPM_KERAS_H

#include <stddef.h>

#include "graph/ir/ir.h"

/* true if the JSON text looks like a Keras / TF.js model (cheap sniff). */
bool keras_sniff(const char *text, size_t len);
/* Loads path into a finalized graph; NULL with diag naming the JSON path. A
 * TF.js graph model's integer constants come from the shards beside it. */
struct graph *keras_load_file(const char *path, struct diag *d);
/* Same from a buffer of len bytes (need not be NUL-terminated); path labels
 * diag messages and becomes graph->path. */
struct graph *keras_load_buffer(const char *text, size_t len, const char *path,
                                struct diag *d);
/* keras_load_buffer for a TF.js graph model whose every weight group's
 * shard bytes are shards[0..n) (tests and fuzzing; files read the shards
 * beside them). */
struct graph *keras_load_buffer_shards(const char *text, size_t len, const char *path,
                                       const void *shards, size_t n, struct diag *d);

#endif
