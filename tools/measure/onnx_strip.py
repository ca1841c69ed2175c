#!/usr/bin/python3
"""onnx_strip.py - make a weightless copy of an ONNX model.

Clears the payload of every initializer (raw_data and the typed *_data fields,
external-data references too) while keeping its name, dims and data_type, so the
graph, its shapes and its parameter counts stay exactly those of the model that
ran, at a fraction of the size (vgg16: 553 MB -> a few KB). Integer tensors of up
to 4096 elements (shape constants for Reshape, Expand, Slice...) and float tensors
of up to 16 elements (scalars such as LayerNorm epsilons) keep their values, as
in samples/ (tools/export_samples.py), because shape inference and the cost model
read them. Constant-node tensors and graphs nested in If/Loop/Scan are stripped
the same way.

    /usr/bin/python3 onnx_strip.py model.onnx model-weightless.onnx
"""

import os
import sys

# Tensors with at most this many elements keep their values (as samples/ do).
KEEP_INT_MAX_ELEMS = 4096
KEEP_FLOAT_MAX_ELEMS = 16

_DATA_FIELDS = ("raw_data", "float_data", "int32_data", "int64_data", "double_data",
                "uint64_data", "string_data")


def _keep(onnx, t, keep_int_max):
    tp = onnx.TensorProto
    if t.data_location == tp.EXTERNAL:
        return False
    n = _numel(t.dims)
    if t.data_type in (tp.INT64, tp.INT32):
        return n <= keep_int_max
    if t.data_type in (tp.FLOAT, tp.DOUBLE, tp.FLOAT16):
        return n <= KEEP_FLOAT_MAX_ELEMS
    return False


def _numel(dims):
    n = 1
    for d in dims:
        n *= int(d)
    return n


def strip_tensor(onnx, t, keep_int_max=KEEP_INT_MAX_ELEMS):
    """Clears t's payload unless it is a small integer or float tensor. Returns
    True if stripped. External data (location/offset/length) is dropped as well."""
    if _keep(onnx, t, keep_int_max):
        return False
    for f in _DATA_FIELDS:
        t.ClearField(f)
    del t.external_data[:]
    t.data_location = onnx.TensorProto.DEFAULT
    return True


def _strip_graph(onnx, g, keep_int_max):
    n = 0
    for t in g.initializer:
        n += strip_tensor(onnx, t, keep_int_max)
    for node in g.node:
        for a in node.attribute:
            if a.type == onnx.AttributeProto.TENSOR:
                n += strip_tensor(onnx, a.t, keep_int_max)
            elif a.type == onnx.AttributeProto.GRAPH:
                n += _strip_graph(onnx, a.g, keep_int_max)
            elif a.type == onnx.AttributeProto.GRAPHS:
                for sub in a.graphs:
                    n += _strip_graph(onnx, sub, keep_int_max)
    return n


def strip_model(model, keep_int_max=KEEP_INT_MAX_ELEMS):
    """Strips a loaded onnx.ModelProto in place; returns the number of tensors
    stripped. Marks the model with metadata "dippm.weightless" = "true"."""
    import onnx
    n = _strip_graph(onnx, model.graph, keep_int_max)
    for p in model.metadata_props:
        if p.key == "dippm.weightless":
            p.value = "true"
            break
    else:
        p = model.metadata_props.add()
        p.key, p.value = "dippm.weightless", "true"
    return n


def strip_file(src, dst, keep_int_max=KEEP_INT_MAX_ELEMS):
    """Writes a weightless copy of the ONNX file src to dst atomically
    (temporary file + rename). Returns the number of tensors stripped."""
    import onnx
    # load_external_data=False: external weights need not be present to strip them.
    model = onnx.load(src, load_external_data=False)
    n = strip_model(model, keep_int_max)
    tmp = "%s.tmp.%d" % (dst, os.getpid())
    try:
        with open(tmp, "wb") as f:
            f.write(model.SerializeToString())
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, dst)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return n


def main(argv):
    if len(argv) != 3:
        print("usage: onnx_strip.py IN.onnx OUT.onnx", file=sys.stderr)
        return 2
    n = strip_file(argv[1], argv[2])
    print("%s: %d tensors stripped, %d -> %d bytes" % (argv[2], n, os.path.getsize(argv[1]),
                                                      os.path.getsize(argv[2])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
