/*
 * weights.h - the GNN weight file (.dpw).
 *
 * Layout (all integers and floats little-endian):
 *   magic      8 bytes  "DPPMGNN\0"
 *   version    u32      WEIGHTS_VERSION
 *   schema     u64      feature schema id (gnn_features_schema_id)
 *   arch       6 x u32  fn, fg, hidden, layers, head_hidden, n_targets
 *   n_tensors  u32
 *   tensors    n x { u8 name_len, name, u32 rows, u32 cols }
 *   norm       f32      node_mean[fn], node_std[fn], graph_mean[fg],
 *                       graph_std[fg]
 *   bounds     f32      bound[3] (latency, energy, memory), node_bound:
 *                       the log-correction bounds of the anchored model (gnn.h)
 *   desc       u32 len + bytes (one line: label source and test accuracy)
 *   data       f32      every tensor in order
 *   checksum   u64      FNV-1a 64 over every byte before it
 *
 * Loading checks, in order: size, magic, version, checksum, architecture
 * limits, tensor table against the layout the architecture implies, the
 * feature schema, finite values, positive std and bounds in (0, 10]. Any failure is
 * ST_EWEIGHTS with a diag naming the file and what was wrong; no model is
 * returned half-filled.
 */
#ifndef DIPPM_WEIGHTS_H
#define DIPPM_WEIGHTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/gnn.h"
#include "util/status.h"

#define WEIGHTS_VERSION 2
#define WEIGHTS_MAX_BYTES ((size_t)256 << 20)
#define WEIGHTS_DESC_MAX 256
/* Every stored float (weights, normalisation means and stds) is finite and
 * within +-WEIGHTS_MAX_ABS; every std is at least WEIGHTS_MIN_STD (training
 * writes 1 for a feature of no variance). A file outside is refused. */
#define WEIGHTS_MAX_ABS 1e6
#define WEIGHTS_MIN_STD 1e-5

/* Serialises m into a malloc'd buffer (*buf, *len); caller frees. */
void weights_encode(const struct gnn_model *m, uint64_t schema, const char *desc,
                    unsigned char **buf, size_t *len);
/* Parses a weight file image. name labels diag messages. On success m is
 * allocated (free with gnn_model_fini) and desc (desc_size bytes, may be
 * NULL) receives the description. expect_schema 0 skips the schema check. */
enum status weights_decode(const unsigned char *buf, size_t len, const char *name,
                           uint64_t expect_schema, struct gnn_model *m, char *desc,
                           size_t desc_size, struct diag *d);

/* File versions of the above (atomic write; overwrite=false refuses an
 * existing file with ST_EEXIST). */
enum status weights_save(const char *path, const struct gnn_model *m, uint64_t schema,
                         const char *desc, bool overwrite, struct diag *d);
enum status weights_load(const char *path, uint64_t expect_schema, struct gnn_model *m,
                         char *desc, size_t desc_size, struct diag *d);

/* FNV-1a 64 of len bytes. */
uint64_t weights_fnv64(const void *data, size_t len);

#endif
