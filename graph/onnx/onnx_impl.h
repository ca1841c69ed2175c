/*
 * onnx_impl.h - internals shared by the ONNX reader's files (not public).
 *
 * onnx_wire_decode reads the file in one pass, straight from the mapping,
 * into protobuf-c's structures (the C types and descriptors protobuf-c
 * generated from the schema subset onnx.proto; its unpack is not used). It
 * validates every field it meets (wire types, varints, lengths against the
 * enclosing message, nesting depth) and reports the first fault with its
 * byte offset and field path. It decodes only the fields onnx.proto
 * declares and leaves out tensor payloads (raw_data and the typed *_data
 * fields) except those of small tensors whose contents shape inference
 * folds (subgraph attributes are kept: If/Loop/Scan bodies are read like
 * the main graph, onnx_control.c). Payload bytes are skipped by length,
 * never read, so the pages holding weights are not even faulted in.
 * onnx_load.c then copies the tree into the IR and frees it.
 *
 * Layout (protobuf wire format): a message is a sequence of fields, each a
 * varint key (field_number << 3 | wire_type) followed by a varint (type 0),
 * 8 bytes (type 1), a varint length and that many bytes (type 2), or 4 bytes
 * (type 5). Types 3 and 4 (groups) are not used by ONNX and are rejected.
 */
#ifndef DIPPM_ONNX_IMPL_H
#define DIPPM_ONNX_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "onnx.pb-c.h"

#include "util/status.h"

/* Tensors up to these element counts keep their contents (integer tensors:
 * Reshape targets, Slice starts, axes; float tensors: scalars and scales). */
#define ONNX_KEEP_INT_MAX 4096
#define ONNX_KEEP_FLOAT_MAX 16

/* Messages nested deeper than this are refused (protobuf-c recurses). */
#define ONNX_MAX_DEPTH 64

/* Dims and element counts above this are refused as absurd (2^40). */
#define ONNX_MAX_ELEMENTS ((int64_t)1 << 40)

/* Decodes the ModelProto in buf[0..len) into protobuf-c's structures,
 * allocated with alloc, as onnx__model_proto__unpack would (later singular
 * values replace earlier ones, a singular message given twice is merged, a
 * oneof keeps its last member; keys and lengths of 6 to 10 bytes, which
 * protobuf-c refuses, are read), without the fields onnx.proto leaves out
 * and without the payloads of tensors over the sizes above. name is used in
 * messages ("model.onnx: byte 1234 (in ModelProto.graph.node[3]): ...").
 * NULL with d set on error: ST_EPARSE (malformed wire data, an empty
 * buffer), ST_ENOMEM. */
Onnx__ModelProto *onnx_wire_decode(const uint8_t *buf, size_t len, const char *name,
                                   ProtobufCAllocator *alloc, struct diag *d);

/* true if data_type (TensorProto.DataType) is an integer or bool type whose
 * contents are kept when small. */
int onnx_dtype_is_int(int32_t data_type);

#endif
