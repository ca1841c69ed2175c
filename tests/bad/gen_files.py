#!/usr/bin/python3
"""Regenerates the ONNX, Keras and TF.js files of the bad-input corpus
(tests/bad/files/). Run from anywhere; needs the onnx package. The weight
files (*.dpw) are made from a valid tiny one by gen_weights (see MANIFEST)."""
import json
import os

import onnx
from onnx import TensorProto, helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "files")


def w(name, data):
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(os.path.join(OUT, name), mode) as f:
        f.write(data)


def onnx_model(nodes, inputs, outputs, name="bad"):
    g = helper.make_graph(nodes, name, inputs, outputs)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    return m.SerializeToString()


def vi(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


relu = helper.make_node("Relu", ["x"], ["y"], name="relu")
good = onnx_model([relu], [vi("x", [1, 16])], [vi("y", [1, 16])])
w("truncated.onnx", good[: len(good) // 2])
w("empty.onnx", b"")
w("dims_2pow40.onnx", onnx_model([relu], [vi("x", [1 << 40, 1 << 40])], [vi("y", None)]))
w("dims_negative.onnx", onnx_model([relu], [vi("x", [1, -5])], [vi("y", None)]))
w("dims_zero.onnx", onnx_model([relu], [vi("x", [0, 16])], [vi("y", None)]))
w("cycle.onnx", onnx_model([helper.make_node("Add", ["x", "z"], ["y"], name="a"),
                            helper.make_node("Relu", ["y"], ["z"], name="b")],
                           [vi("x", [1, 16])], [vi("z", None)]))
w("unknown_op.onnx", onnx_model([helper.make_node("Frobnicate", ["x"], ["y"], name="f")],
                                [vi("x", [1, 16])], [vi("y", None)]))
w("dangling.onnx", onnx_model([helper.make_node("Add", ["x", "ghost"], ["y"], name="a")],
                              [vi("x", [1, 16])], [vi("y", None)]))
m = onnx.load_from_string(good)
m.graph.node[0].name = "relu"
raw = m.SerializeToString().replace(b"relu", b"r\xffl\xfe")
w("non_utf8_name.onnx", raw)
# a graph field whose length prefix claims 2^62 bytes
w("huge_length.onnx", b"\x3a\x80\x80\x80\x80\x80\x80\x80\x80\x40" + b"\x00" * 16)
# a varint that never ends
w("endless_varint.onnx", b"\x08" + b"\xff" * 64)
# nested If subgraphs, 200 deep
inner = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="r")], "g0", [],
                          [vi("y", None)])
for i in range(200):
    node = helper.make_node("If", ["c"], ["y"], name="if%d" % i, then_branch=inner,
                            else_branch=helper.make_graph([], "e", [], [vi("y", None)]))
    inner = helper.make_graph([node], "g%d" % (i + 1), [], [vi("y", None)])
m = helper.make_model(helper.make_graph(inner.node, "deep",
                                        [vi("x", [1, 4]),
                                         helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
                                        [vi("y", None)]),
                      opset_imports=[helper.make_opsetid("", 17)])
w("deep_if.onnx", m.SerializeToString())
# an initializer claiming 2^40 floats with no data
t = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[1 << 20, 1 << 20])
m = onnx.load_from_string(good)
m.graph.initializer.append(t)
w("initializer_no_data.onnx", m.SerializeToString())

# ---- Keras (model.to_json()) ----
def seq(layers, name="s"):
    return json.dumps({"class_name": "Sequential", "config": {"name": name, "layers": layers}})


def dense(units, shape=None, name="d"):
    c = {"name": name, "units": units}
    if shape is not None:
        c["batch_input_shape"] = shape
    return {"class_name": "Dense", "config": c}


good_k = seq([dense(8, [None, 4])])
w("keras_truncated.json", good_k[: len(good_k) // 2])
w("keras_units_string.json", seq([dense("8", [None, 4])]))
w("keras_units_negative.json", seq([dense(-3, [None, 4])]))
w("keras_units_zero.json", seq([dense(0, [None, 4])]))
w("keras_dims_2pow40.json", seq([dense(8, [None, 1 << 40]), dense(1 << 40, name="d2")]))
w("keras_unknown_layer.json", seq([dense(8, [None, 4]),
                                   {"class_name": "Frobnicate", "config": {"name": "f"}}]))
w("keras_layers_object.json", json.dumps({"class_name": "Sequential",
                                          "config": {"name": "s", "layers": {"a": 1}}}))
w("keras_no_input_shape.json", seq([dense(8)]))
fn = {"class_name": "Functional", "config": {
    "name": "f",
    "layers": [
        {"class_name": "InputLayer", "name": "in",
         "config": {"name": "in", "batch_input_shape": [None, 4]}, "inbound_nodes": []},
        {"class_name": "Add", "name": "a", "config": {"name": "a"},
         "inbound_nodes": [[["in", 0, 0, {}], ["b", 0, 0, {}]]]},
        {"class_name": "Dense", "name": "b", "config": {"name": "b", "units": 4},
         "inbound_nodes": [[["a", 0, 0, {}]]]}],
    "input_layers": [["in", 0, 0]], "output_layers": [["b", 0, 0]]}}
w("keras_cycle.json", json.dumps(fn))
fn["config"]["layers"][2]["inbound_nodes"] = [[["nowhere", 0, 0, {}]]]
fn["config"]["layers"][1]["inbound_nodes"] = [[["in", 0, 0, {}], ["in", 0, 0, {}]]]
w("keras_dangling.json", json.dumps(fn))
# Sequential nested in Sequential, 240 deep (960 JSON levels: under cJSON's
# limit of 1000, so the loader's own recursion is what gets exercised)
deep = json.dumps(dense(8, [None, 4]))
for i in range(240):
    deep = '{"class_name": "Sequential", "config": {"name": "s%d", "layers": [%s]}}' % (i, deep)
w("keras_deep_nesting.json", deep)
w("keras_non_utf8_name.json", seq([dense(8, [None, 4], name="PLACEHOLDER")])
  .encode().replace(b"PLACEHOLDER", b"d\xff\xfe"))

# ---- TF.js model.json ----
topo = json.loads(seq([dense(8, [None, 4])]))
def tfjs(topology, manifest):
    return json.dumps({"format": "layers-model", "modelTopology": topology,
                       "weightsManifest": manifest})
w("tfjs_topology_string.json", tfjs("Sequential", []))
w("tfjs_weight_no_layer.json", tfjs(topo, [{"paths": ["g.bin"], "weights": [
    {"name": "d/kernel", "shape": [4, 8], "dtype": "float32"},
    {"name": "d/bias", "shape": [8], "dtype": "float32"},
    {"name": "stray/kernel", "shape": [3, 3], "dtype": "float32"}]}]))
w("tfjs_weight_shape_negative.json", tfjs(topo, [{"paths": ["g.bin"], "weights": [
    {"name": "d/kernel", "shape": [4, -8], "dtype": "float32"},
    {"name": "d/bias", "shape": [8], "dtype": "float32"}]}]))
w("tfjs_weight_shape_2pow40.json", tfjs(topo, [{"paths": ["g.bin"], "weights": [
    {"name": "d/kernel", "shape": [1 << 40, 1 << 40], "dtype": "float32"},
    {"name": "d/bias", "shape": [8], "dtype": "float32"}]}]))
w("tfjs_weight_shape_overflow.json", tfjs(topo, [{"paths": ["g.bin"], "weights": [
    {"name": "d/kernel", "shape": [1 << 32, 1 << 32, 1 << 32], "dtype": "float32"},
    {"name": "d/bias", "shape": [8], "dtype": "float32"}]}]))
w("tfjs_graph_cycle.json", json.dumps({"format": "graph-model", "modelTopology": {"node": [
    {"name": "x", "op": "Placeholder", "attr": {"shape": {"shape": {"dim": [{"size": "1"}, {"size": "4"}]}},
                                                "dtype": {"type": "DT_FLOAT"}}},
    {"name": "a", "op": "AddV2", "input": ["x", "b"]},
    {"name": "b", "op": "Relu", "input": ["a"]}]}, "weightsManifest": []}))
w("tfjs_graph_unknown_op.json", json.dumps({"format": "graph-model", "modelTopology": {"node": [
    {"name": "x", "op": "Placeholder", "attr": {"shape": {"shape": {"dim": [{"size": "1"}, {"size": "4"}]}},
                                                "dtype": {"type": "DT_FLOAT"}}},
    {"name": "a", "op": "Frobnicate", "input": ["x"]}]}, "weightsManifest": []}))


def tfjs_loop(edit):
    """A TF1 while loop (x = relu(x @ w) while i < m) with edit applied to
    its node list: the base of the while-loop cases."""
    def enter(nm, src, const=False, frame="bG9vcA=="):  # base64 "loop"
        return {"name": nm, "op": "Enter", "input": [src],
                "attr": {"frame_name": {"s": frame}, "is_constant": {"b": const}}}

    def node(nm, op, *ins):
        return {"name": nm, "op": op, "input": list(ins)}
    nodes = [
        {"name": "x", "op": "Placeholder", "attr": {"shape": {"shape": {"dim": [
            {"size": "1"}, {"size": "8"}]}}}},
        {"name": "m", "op": "Placeholder", "attr": {"dtype": {"type": "DT_INT32"},
                                                   "shape": {"shape": {"dim": []}}}},
        {"name": "w", "op": "Const"}, {"name": "zero", "op": "Const"},
        {"name": "one", "op": "Const"},
        enter("i_enter", "zero"), enter("x_enter", "x"), enter("w_enter", "w", True),
        enter("m_enter", "m", True),
        node("i_merge", "Merge", "i_enter", "i_next"), node("x_merge", "Merge", "x_enter", "x_next"),
        node("less", "Less", "i_merge", "m_enter"), node("cond", "LoopCond", "less"),
        node("i_sw", "Switch", "i_merge", "cond"), node("x_sw", "Switch", "x_merge", "cond"),
        node("i_id", "Identity", "i_sw:1"), node("x_id", "Identity", "x_sw:1"),
        node("i_add", "AddV2", "i_id", "one"), node("mm", "MatMul", "x_id", "w_enter"),
        node("relu", "Relu", "mm"), node("i_next", "NextIteration", "i_add"),
        node("x_next", "NextIteration", "relu"), node("x_exit", "Exit", "x_sw"),
        node("out", "Relu", "x_exit")]
    edit(nodes, node, enter)
    return json.dumps({"format": "graph-model", "modelTopology": {"node": nodes},
                       "weightsManifest": [{"paths": ["m.bin"], "weights": [
                           {"name": "w", "shape": [8, 8], "dtype": "float32"},
                           {"name": "zero", "shape": [], "dtype": "int32"},
                           {"name": "one", "shape": [], "dtype": "int32"}]}]})


def set_node(nm, new):
    def edit(nodes, node, enter):
        for i, n in enumerate(nodes):
            if n["name"] == nm:
                nodes[i] = new(node, enter)
    return edit


def add_nodes(*new):
    return lambda nodes, node, enter: nodes.extend(f(node, enter) for f in new)


w("tfjs_loop_ok.json", tfjs_loop(lambda nodes, node, enter: None))
w("tfjs_loop_merge_one_input.json",
  tfjs_loop(set_node("x_merge", lambda node, enter: node("x_merge", "Merge", "x_enter"))))
w("tfjs_loop_next_feeds_nothing.json",
  tfjs_loop(add_nodes(lambda node, enter: node("stray_next", "NextIteration", "relu"))))
w("tfjs_loop_exit_without_enter.json",
  tfjs_loop(add_nodes(lambda node, enter: node("bad_exit", "Exit", "x"))))
w("tfjs_loop_frame_mismatch.json",
  tfjs_loop(set_node("x_enter", lambda node, enter: enter("x_enter", "x", frame="b3RoZXI="))))


def body_cycle(nodes, node, enter):
    """mm -> relu -> cyc -> mm: a cycle inside the body, not through NextIteration."""
    set_node("mm", lambda node, enter: node("mm", "MatMul", "cyc", "w_enter"))(nodes, node, enter)
    nodes.append(node("cyc", "AddV2", "x_id", "relu"))


w("tfjs_loop_body_cycle.json", tfjs_loop(body_cycle))
w("tfjs_stateless_while.json", json.dumps({"format": "graph-model", "modelTopology": {
    "node": [{"name": "x", "op": "Placeholder", "attr": {"shape": {"shape": {"dim": [
        {"size": "1"}, {"size": "4"}]}}}},
             {"name": "loop", "op": "StatelessWhile", "input": ["x"], "attr": {
                 "cond": {"func": {"name": "cond_fn"}}, "body": {"func": {"name": "body_fn"}}}}],
    "library": {"function": [{"signature": {"name": "body_fn"}}, {"signature": {"name": "cond_fn"}}]}},
    "weightsManifest": []}))


def call_fanout():
    """f0 calls f1 ten times, f1 calls f2 ten times, ... f7: 10^7 calls."""
    fs = []
    for d in range(8):
        nodes = [{"name": "r", "op": "Relu", "input": ["x"]}]
        if d < 7:
            nodes += [{"name": "c%d" % i, "op": "PartitionedCall", "input": ["x"],
                       "attr": {"f": {"func": {"name": "f%d" % (d + 1)}}}} for i in range(10)]
        fs.append({"signature": {"name": "f%d" % d, "inputArg": [{"name": "x"}],
                                 "outputArg": [{"name": "y"}]},
                   "nodeDef": nodes, "ret": {"y": "r:activations:0"}})
    return json.dumps({"format": "graph-model", "modelTopology": {"node": [
        {"name": "x", "op": "Placeholder", "attr": {"shape": {"shape": {"dim": [{"size": "1"}]}}}},
        {"name": "top", "op": "PartitionedCall", "input": ["x"],
         "attr": {"f": {"func": {"name": "f0"}}}}], "library": {"function": fs}},
        "weightsManifest": []})


w("tfjs_call_fanout.json", call_fanout())

# ---- GNN weight files (.dpw), mutated from the fuzz seed tiny.dpw ----
import struct

with open(os.path.join(OUT, "..", "..", "fuzz", "corpus", "weights", "tiny.dpw"), "rb") as f:
    TINY0 = f.read()


def fnv64(b):
    h = 0xcbf29ce484222325
    for c in b:
        h = ((h ^ c) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def resum(b):
    b = bytes(b[:-8])
    return b + struct.pack("<Q", fnv64(b))


# The files carry this dippm's feature schema so that `dippm predict --weights`
# gets past the schema check to the architecture and data checks: rerun this
# script with DIPPM=path/to/dippm after the feature schema changes.
TINY = TINY0
if os.environ.get("DIPPM"):
    import re
    import subprocess
    p = subprocess.run([os.environ["DIPPM"], "predict", "--weights",
                        os.path.join(OUT, "w_schema_mismatch.dpw"),
                        os.path.join(OUT, "..", "..", "..", "samples", "tiny_cnn.json")],
                       capture_output=True, text=True)
    m = re.search(r"this dippm's ([0-9a-f]{16})", p.stderr)
    if m:
        b = bytearray(TINY0)
        struct.pack_into("<Q", b, 12, int(m.group(1), 16))
        TINY = resum(b)


def patch(off, fmt, val):
    b = bytearray(TINY)
    struct.pack_into(fmt, b, off, val)
    return resum(b)


def norm_offset():
    """Offset of the normalisation block (after the tensor table)."""
    n = struct.unpack_from("<I", TINY, 44)[0]
    off = 48
    for _ in range(n):
        off += 1 + TINY[off] + 8
    return off


w("w_empty.dpw", b"")
w("w_truncated.dpw", TINY[: len(TINY) // 2])
w("w_bad_magic.dpw", resum(b"NOTAGNN\0" + TINY[8:]))
w("w_version_99.dpw", patch(8, "<I", 99))
b = bytearray(TINY)
b[len(b) // 2] ^= 0x40
w("w_bad_checksum.dpw", bytes(b))
w("w_hidden_2pow31.dpw", patch(28, "<I", 0x7FFFFFFF))
w("w_layers_huge.dpw", patch(32, "<I", 1000000))
w("w_ntensors_huge.dpw", patch(44, "<I", 0xFFFFFFFF))
w("w_std_negative.dpw", patch(norm_offset() + 4 * 3, "<f", -1.0))  # node_std[0]
w("w_nan.dpw", patch(len(TINY) - 8 - 4, "<f", float("nan")))
w("w_schema_mismatch.dpw", TINY0)
w("w_feature_count.dpw", TINY)
w("w_text.dpw", b"{\"this\": \"is JSON, not a weight file\"}\n")

# ---- round 2: an independent attack (see MANIFEST) ----
def onnx_model_ops(nodes, inputs, outputs, inits=(), opsets=(("", 17),)):
    g = helper.make_graph(nodes, "bad", inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets])
    return m.SerializeToString()


def i64(name, vals):
    return helper.make_tensor(name, TensorProto.INT64, [len(vals)], vals)


# integer Div folding INT64_MIN / -1 (SIGFPE before the checked arithmetic)
w("fold_div_int64_min.onnx", onnx_model_ops(
    [helper.make_node("Div", ["a", "b"], ["q"], name="d"),
     helper.make_node("Reshape", ["x", "q"], ["y"], name="r")],
    [vi("x", [1, 4])], [vi("y", None)], [i64("a", [-(1 << 63)]), i64("b", [-1])]))
w("fold_mod_int64_min.onnx", onnx_model_ops(
    [helper.make_node("Mod", ["a", "b"], ["q"], name="m"),
     helper.make_node("Add", ["q", "c"], ["s"], name="s"),
     helper.make_node("Reshape", ["x", "s"], ["y"], name="r")],
    [vi("x", [1, 4])], [vi("y", None)],
    [i64("a", [-(1 << 63)]), i64("b", [-1]), i64("c", [4])]))
# 16,000 nodes all named "n": renamed n#2 ... n#16000 in linear time
N = 16000
w("dup_names_16k.onnx", onnx_model_ops(
    [helper.make_node("Relu", ["v%d" % i], ["v%d" % (i + 1)], name="n") for i in range(N)],
    [vi("v0", [1, 4])], [vi("v%d" % N, None)]))
# a Gemm whose transB is the float 1.5
w("gemm_transb_float.onnx", onnx_model_ops(
    [helper.make_node("Gemm", ["x", "wt"], ["y"], name="g", transB=1.5)],
    [vi("x", [2, 4])], [vi("y", None)],
    [helper.make_tensor("wt", TensorProto.FLOAT, [4, 3], [0.0] * 12)]))
# Reshape of a STRING tensor
w("reshape_string.onnx", onnx_model_ops(
    [helper.make_node("Reshape", ["s", "shp"], ["y"], name="r")],
    [helper.make_tensor_value_info("s", TensorProto.STRING, [1000, 1000])], [vi("y", None)],
    [i64("shp", [-1])]))
# spec violations
w("undeclared_domain.onnx", onnx_model_ops(
    [helper.make_node("Relu", ["x"], ["y"], name="r", domain="com.example")],
    [vi("x", [1, 4])], [vi("y", None)]))
w("output_twice.onnx", onnx_model_ops(
    [helper.make_node("Relu", ["x"], ["y"], name="r")],
    [vi("x", [1, 4])], [vi("y", None), vi("y", None)]))
w("concat_no_axis.onnx", onnx_model_ops(
    [helper.make_node("Concat", ["x", "x"], ["y"], name="c")],
    [vi("x", [1, 4])], [vi("y", None)]))
w("slice_dup_axes.onnx", onnx_model_ops(
    [helper.make_node("Slice", ["x", "st", "en", "ax"], ["y"], name="s")],
    [vi("x", [4, 4])], [vi("y", None)],
    [i64("st", [0, 1]), i64("en", [2, 3]), i64("ax", [0, 0])]))

# round 2: a finite but huge weight; a file cut to 12 bytes (magic + version)
w("w_huge_value.dpw", patch(len(TINY) - 8 - 4, "<f", 1e30))
w("w_12_bytes.dpw", TINY[:12])
