/*
 * onnx_load.h - ONNX ModelProto reader (protobuf-c), opsets 7 to 21.
 *
 * What the graph gets: every node with its attributes (a subgraph attribute
 * of If/Loop/Scan becomes an ATTR_GRAPH marker plus a body of the node whose
 * nodes and values are added to the graph with the node's name as prefix,
 * onnx_control.c); initializers with name, dtype and dims and the
 * VAL_INIT flag (an initializer also listed in graph.input, as IR < 4 files
 * do, stays a weight, not a runtime input; sparse initializers get their
 * dense shape); graph inputs and outputs with declared types; value_info as
 * declared types of intermediate values.
 *
 * Contents: tensor payloads are never read, except integer/bool tensors of
 * at most 4096 elements and float tensors of at most 16 (Reshape targets,
 * axes, scalars), kept in value->data or the Constant's "value" attribute
 * for constant folding. External data (data_location EXTERNAL) is never
 * opened. A 500 MB model costs its metadata, not its weights.
 *
 * Dims: dim_value -> fixed; dim_param on a graph input -> graph symbol;
 * elsewhere the same-named input symbol, or unknown; an input dim with
 * neither -> generated symbol "<input>.<axis>" (default 1). Symbol defaults:
 * batch-like names 1, names containing "seq"/"token" 128, "height"/"width"
 * 224, others 1.
 *
 * Errors (NULL with diag naming the file, the byte offset and the field path
 * such as "ModelProto.graph.node[12].attribute[0]"): ST_EPARSE for malformed
 * wire data, truncation, declared lengths beyond the file, negative or
 * absurd (> 2^40 elements) dims, a missing graph or opset_import, an empty
 * op_type, nesting deeper than 64 messages, empty or non-ONNX input;
 * ST_EUNSUPPORTED for opsets outside 7..21 or rank above IR_MAX_RANK;
 * ST_EGRAPH from graph_finalize; ST_EIO/ST_ENOTFOUND for files.
 */
#ifndef DIPPM_ONNX_LOAD_H
#define DIPPM_ONNX_LOAD_H

#include <stddef.h>

#include "graph/ir/ir.h"

/* Maps path read-only and loads it into a finalized graph (g->format
 * "onnx", g->name the file's stem); NULL with diag on error. Directories,
 * devices and empty files are refused. */
struct graph *onnx_load_file(const char *path, struct diag *d);
/* Same from a memory buffer (not retained; name used in messages). */
struct graph *onnx_load_buffer(const void *buf, size_t len, const char *name, struct diag *d);

#endif
