#!/usr/bin/python3
"""Regenerates the ONNX control-flow files of the bad-input corpus
(tests/bad/files/ctrl_*.onnx): If/Loop/Scan nodes whose bodies are
malformed. Needs the onnx package (/usr/bin/python3 on Debian)."""
import os

from onnx import TensorProto, helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "files")


def vi(name, shape, dt=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, dt, shape)


def save(name, nodes, inputs, outputs):
    g = helper.make_graph(nodes, "bad", inputs, outputs)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(m.SerializeToString())


def body(nodes, inputs, outputs, name="b"):
    return helper.make_graph(nodes, name, inputs, outputs)


relu_body = body([helper.make_node("Relu", ["x"], ["z"], name="r")], [], [vi("z", [4])])
cond_x = [vi("c", [], TensorProto.BOOL), vi("x", [4])]

# an If with one branch
save("ctrl_if_one_branch.onnx",
     [helper.make_node("If", ["c"], ["y"], name="if0", then_branch=relu_body)],
     cond_x, [vi("y", [4])])
# a branch with two outputs for an If with one
two = body([helper.make_node("Relu", ["x"], ["z"], name="r"),
            helper.make_node("Relu", ["x"], ["w"], name="r2")], [], [vi("z", [4]), vi("w", [4])])
save("ctrl_if_output_count.onnx",
     [helper.make_node("If", ["c"], ["y"], name="if0", then_branch=two, else_branch=relu_body)],
     cond_x, [vi("y", [4])])
# a body reading a name defined nowhere
ghost = body([helper.make_node("Relu", ["nowhere"], ["z"], name="r")], [], [vi("z", [4])])
save("ctrl_body_undefined.onnx",
     [helper.make_node("If", ["c"], ["y"], name="if0", then_branch=ghost, else_branch=relu_body)],
     cond_x, [vi("y", [4])])
# a Loop body with one input where the Loop carries one value (expects 3)
lb = body([helper.make_node("Relu", ["v"], ["v2"], name="r"),
           helper.make_node("Identity", ["v"], ["cnd"], name="id")],
          [vi("v", [4])], [vi("cnd", [], TensorProto.BOOL), vi("v2", [4])])
save("ctrl_loop_arity.onnx",
     [helper.make_node("Loop", ["", "", "x"], ["y"], name="loop0", body=lb)],
     [vi("x", [4])], [vi("y", [4])])
# a Scan without num_scan_inputs
sb = body([helper.make_node("Relu", ["s"], ["s2"], name="r")], [vi("s", [4])], [vi("s2", [4])])
save("ctrl_scan_no_count.onnx",
     [helper.make_node("Scan", ["x"], ["y"], name="scan0", body=sb)],
     [vi("x", [3, 4])], [vi("y", [3, 4])])
# a body node that writes a name the body also takes as input
dup = body([helper.make_node("Relu", ["s"], ["s"], name="r")], [vi("s", [4])], [vi("s", [4])])
save("ctrl_body_writes_input.onnx",
     [helper.make_node("Scan", ["x"], ["y"], name="scan0", body=dup, num_scan_inputs=1)],
     [vi("x", [3, 4])], [vi("y", [3, 4])])
# Ifs nested 17 deep (the reader takes 16)
g = relu_body
for i in range(17):
    node = helper.make_node("If", ["c"], [f"o{i}"], name=f"if{i}", then_branch=g,
                            else_branch=relu_body)
    g = body([node], [], [vi(f"o{i}", [4])], name=f"b{i}")
save("ctrl_nested_17.onnx", list(g.node), cond_x, [vi("o16", [4])])
# Loops nested 15 deep, each of INT64_MAX trips, around a 64x64 MatMul: a valid
# graph whose teacher latency overflows (the error names it, not the weights)
i64 = TensorProto.INT64
loop_io = [vi("i", [], i64), vi("cin", [], TensorProto.BOOL), vi("v", [64, 64])]
loop_out = [vi("cout", [], TensorProto.BOOL), vi("v2", [64, 64])]
g = body([helper.make_node("MatMul", ["v", "v"], ["v2"], name="mm"),
          helper.make_node("Identity", ["cin"], ["cout"], name="c")], loop_io, loop_out)
for d in range(15):
    trips = helper.make_node("Constant", [], [f"M{d}"], name=f"m{d}",
                             value=helper.make_tensor(f"t{d}", i64, [], [2**63 - 1]))
    last = d == 14
    loop = helper.make_node("Loop", [f"M{d}", "", "x" if last else "v"], ["y" if last else "v2"],
                            name=f"L{d}", body=g)
    if not last:
        g = body([trips, loop, helper.make_node("Identity", ["cin"], ["cout"], name=f"c{d}")],
                 loop_io, loop_out, name=f"b{d}")
save("ctrl_loop_overflow.onnx", [trips, loop], [vi("x", [64, 64])], [vi("y", [64, 64])])
