/*
 * onnx_impl.h - internals shared by the ONNX reader's files (not public).
 *
 * A well-formed file is decoded in one pass (onnx_wire_unpack_direct): the
 * decoder makes the checks of step 1 below as it goes and leaves out what
 * step 1 leaves out, so it builds the same protobuf-c tree as the two steps.
 * Anything it doubts (a failed check, a shape only protobuf-c decodes
 * exactly) sends the file down the two-step path, whose walk reports errors
 * with their byte offsets:
 *
 *   1. onnx_wire_compact walks the protobuf wire format of ModelProto with a
 *      table of the schema subset in onnx.proto. It validates every field it
 *      meets (wire types, varints, lengths against the enclosing message,
 *      nesting depth) and copies into a new, small buffer only the fields
 *      onnx.proto declares, leaving out tensor payloads (raw_data and the
 *      typed *_data fields) except those of small tensors whose contents
 *      shape inference folds (subgraph attributes are kept: If/Loop/Scan
 *      bodies are read like the main graph, onnx_control.c). Payload bytes are skipped by length, never read, so the
 *      pages holding weights are not even faulted in.
 *   2. onnx_wire_unpack (or protobuf-c, for its fallback cases) decodes the
 *      compact buffer (a few hundred KB for a 100 MB model).
 *
 * Either way onnx_load.c then copies the tree into the IR and frees it.
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

struct onnx_compact {
    uint8_t *buf; /* malloc'd compact ModelProto; caller frees */
    size_t len;
    size_t skipped_payload; /* tensor payload bytes left out */
    int n_subgraphs;        /* subgraph attributes met */
};

/* Validates the ModelProto in buf[0..len) and writes its compact form to
 * out. name is used in messages ("model.onnx: truncated at byte 1234: ...").
 * Errors: ST_EPARSE (malformed wire data, with byte offset and field path),
 * ST_ENOMEM. On error out->buf is NULL. */
enum status onnx_wire_compact(const uint8_t *buf, size_t len, const char *name,
                              struct onnx_compact *out, struct diag *d);

/* Decodes a compact copy made by onnx_wire_compact into protobuf-c's
 * structures, allocated with alloc, as onnx__model_proto__unpack would.
 * NULL with *fallback false: alloc failed. NULL with *fallback true: the
 * copy holds something only protobuf-c reproduces exactly (a singular
 * submessage given twice, which it merges; a key or length prefix over 5
 * bytes, which it refuses): unpack it with protobuf-c instead. */
Onnx__ModelProto *onnx_wire_unpack(const uint8_t *buf, size_t len, ProtobufCAllocator *alloc,
                                   bool *fallback);

/* The fast path for a whole file: decodes it in one pass, making every
 * check onnx_wire_compact makes and leaving out what it leaves out, into the
 * same structures onnx_wire_unpack gives for its compact copy. NULL where
 * anything needs the two-step path: a check fails (the walk then reports it
 * with its offset), one of onnx_wire_unpack's fallback cases, an empty
 * buffer, or alloc failing. */
Onnx__ModelProto *onnx_wire_unpack_direct(const uint8_t *buf, size_t len,
                                          ProtobufCAllocator *alloc);

/* true if data_type (TensorProto.DataType) is an integer or bool type whose
 * contents are kept when small. */
int onnx_dtype_is_int(int32_t data_type);

#endif
