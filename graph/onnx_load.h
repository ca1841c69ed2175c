/*
 * onnx_load.h - ONNX ModelProto reader (protobuf-c). Keeps names, dtypes and
 * dims of initializers, never their float payloads (small integer tensors
 * such as Reshape targets are kept for constant folding).
 */
#ifndef DIPPM_ONNX_LOAD_H
#define DIPPM_ONNX_LOAD_H

#include <stddef.h>

#include "ir.h"

/* Loads path into a finalized graph; NULL with diag on error. */
struct graph *onnx_load_file(const char *path, struct diag *d);
/* Same from a memory buffer (name used in messages). */
struct graph *onnx_load_buffer(const void *buf, size_t len, const char *name, struct diag *d);

#endif
