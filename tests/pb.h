/*
 * pb.h - test helper: encodes protobuf wire format and small ONNX models
 * (ModelProto, GraphProto, NodeProto, TensorProto, ValueInfoProto) so the
 * reader's tests can build valid and corrupted files byte by byte.
 * Buffers grow with realloc and abort on out-of-memory (tests only).
 */
#ifndef DIPPM_TESTS_PB_H
#define DIPPM_TESTS_PB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pb {
    uint8_t *p;
    size_t n, cap;
};

void pb_raw(struct pb *b, const void *data, size_t n);
void pb_free(struct pb *b);
void pb_varint(struct pb *b, uint64_t v);
void pb_key(struct pb *b, unsigned field, unsigned wt);
void pb_int(struct pb *b, unsigned field, int64_t v);
void pb_bytes(struct pb *b, unsigned field, const void *data, size_t n);
void pb_str(struct pb *b, unsigned field, const char *s);
void pb_msg(struct pb *b, unsigned field, struct pb *child);
void pb_tensor(struct pb *t, const char *name, int dt, const int64_t *dims, int rank,
               const void *raw, size_t raw_n);
void pb_value_info(struct pb *vi, const char *name, const char *const *dims, int rank);
void pb_node(struct pb *g, const char *op, const char *name, const char *const *in, int n_in,
             const char *const *out, int n_out, struct pb *attrs, int n_attr);
void pb_model(struct pb *m, struct pb *graph, int opset);
/* The reference model: x[batch, 12, ?] -> Reshape(x, shape) -> r -> MatMul(r, w)
 * -> y, plus a Constant with packed int64_data {4, -5, 6}; "shape" (int64
 * {-1, 12}) is also listed as a graph input (old IR); w is float [12, 1000]
 * with a 48 KB raw_data payload when payload is true. */
struct pb pb_ref_model_ex(int opset, bool payload);
struct pb pb_ref_model(int opset);

#endif
