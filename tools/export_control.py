#!/usr/bin/python3
"""Export small real torch modules with control flow to weightless ONNX files
for dippm's tests (tests/models/control/), and write expected.json with the
figures the tests check, computed here from the torch modules themselves
(parameter counts from model.parameters(), multiply-accumulates from the
layer sizes and the trip counts the Python code runs), not by dippm.

    /usr/bin/python3 tools/export_control.py [-o tests/models/control]

torch.jit.script keeps Python `if`/`for`/`while` as ONNX If and Loop;
nn.LSTM/nn.GRU export as the ONNX LSTM/GRU ops. The Scan model is built with
onnx.helper (torch never emits Scan). Initializer payloads are stripped,
inside subgraphs too, except small integer tensors that shape inference
folds.
"""
import argparse
import io
import json
import os

import onnx
from onnx import TensorProto, helper
import torch
import torch.nn as nn

KEEP_INT_MAX = 4096
KEEP_FLOAT_MAX = 16
INT_TYPES = {2, 3, 4, 5, 6, 7, 9, 12, 13}


def strip_graph(g):
    def strip(t):
        n = 1
        for d in t.dims:
            n *= d
        keep = (t.data_type in INT_TYPES and n <= KEEP_INT_MAX) or n <= KEEP_FLOAT_MAX
        if not keep:
            for f in ("raw_data", "float_data", "int32_data", "int64_data", "double_data",
                      "uint64_data", "string_data"):
                t.ClearField(f)
    for t in g.initializer:
        strip(t)
    for node in g.node:
        for a in node.attribute:
            if a.type == onnx.AttributeProto.TENSOR:
                strip(a.t)
            if a.type == onnx.AttributeProto.GRAPH:
                strip_graph(a.g)


def lin_macs(l):
    return l.in_features * l.out_features


def nparams(m):
    return sum(p.numel() for p in m.parameters())


class IfRuntime(nn.Module):
    """The branch depends on the data: dippm costs the dearer one (then)."""
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(16, 64)
        self.b = nn.Linear(64, 8)
        self.c = nn.Linear(16, 8)

    def forward(self, x):
        if bool(x.sum() > 0):
            y = self.b(torch.relu(self.a(x)))
        else:
            y = self.c(x)
        return y


class IfStatic(nn.Module):
    """The condition depends on a shape only: it folds, `else` is taken."""
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(16, 256)
        self.b = nn.Linear(16, 32)

    def forward(self, x):
        if x.size(1) == 8:
            y = self.a(x)
        else:
            y = self.b(x)
        return y


class LoopFor(nn.Module):
    """A for loop whose trip count comes from a shape (x [batch, 40]: 5)."""
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(40, 40)

    def forward(self, x):
        for _ in range(x.size(1) // 8):
            x = torch.relu(self.l(x))
        return x


class LoopWhile(nn.Module):
    """A data-dependent while loop: the trip count is a symbol (default 1)."""
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(32, 32)

    def forward(self, x):
        i = 0
        while bool(x.sum() > 0) and i < 10:
            x = self.l(x) - 1.0
            i += 1
        return x


class RnnLoop(nn.Module):
    """An Elman RNN written as a loop over the sequence axis."""
    def __init__(self):
        super().__init__()
        self.ih = nn.Linear(32, 64)
        self.hh = nn.Linear(64, 64)

    def forward(self, x):
        h = torch.zeros(x.size(1), 64)
        for t in range(x.size(0)):
            h = torch.tanh(self.ih(x[t]) + self.hh(h))
        return h


class LoopIf(nn.Module):
    """A loop (3 trips from x [batch, 24]) whose body holds an If on the
    iteration number: known only at run time, so each trip costs the dearer
    branch (q1 + q2)."""
    def __init__(self):
        super().__init__()
        self.p = nn.Linear(24, 24)
        self.q1 = nn.Linear(24, 24)
        self.q2 = nn.Linear(24, 24)

    def forward(self, x):
        for i in range(x.size(1) // 8):
            if i % 2 == 0:
                x = self.p(x)
            else:
                x = self.q2(torch.relu(self.q1(x)))
        return x


def export(m, args, names, dyn, path, script=True):
    torch.manual_seed(0)
    for p in m.parameters():
        with torch.no_grad():
            p.add_(torch.randn_like(p) * 0.01)
    mod = torch.jit.script(m) if script else m
    buf = io.BytesIO()
    torch.onnx.export(mod, args, buf, opset_version=13, input_names=names[0],
                      output_names=names[1], dynamic_axes=dyn, do_constant_folding=False)
    model = onnx.load_from_string(buf.getvalue())
    strip_graph(model.graph)
    onnx.save(model, path)
    return model


def scan_model(path):
    """Scan over T=6 steps: state' = tanh(state @ W + x_t), W [8, 8]."""
    body = helper.make_graph(
        [helper.make_node("MatMul", ["s_in", "W"], ["sw"]),
         helper.make_node("Add", ["sw", "x_t"], ["pre"]),
         helper.make_node("Tanh", ["pre"], ["s_out"]),
         helper.make_node("Identity", ["s_out"], ["y_t"])],
        "scan_body",
        [helper.make_tensor_value_info("s_in", TensorProto.FLOAT, [1, 8]),
         helper.make_tensor_value_info("x_t", TensorProto.FLOAT, [1, 8])],
        [helper.make_tensor_value_info("s_out", TensorProto.FLOAT, [1, 8]),
         helper.make_tensor_value_info("y_t", TensorProto.FLOAT, [1, 8])])
    w = helper.make_tensor("W", TensorProto.FLOAT, [8, 8], [0.0] * 64)
    g = helper.make_graph(
        [helper.make_node("Scan", ["s0", "xs"], ["s_final", "ys"], body=body,
                          num_scan_inputs=1, name="scan")],
        "scan_rnn",
        [helper.make_tensor_value_info("s0", TensorProto.FLOAT, [1, 8]),
         helper.make_tensor_value_info("xs", TensorProto.FLOAT, [6, 1, 8])],
        [helper.make_tensor_value_info("s_final", TensorProto.FLOAT, [1, 8]),
         helper.make_tensor_value_info("ys", TensorProto.FLOAT, [6, 1, 8])],
        initializer=[w])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(m)
    strip_graph(m.graph)
    onnx.save(m, path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-o", default="tests/models/control")
    out = ap.parse_args().o
    os.makedirs(out, exist_ok=True)
    exp = {}
    x16 = torch.randn(1, 16)
    x32 = torch.randn(1, 32)
    io1 = (["x"], ["y"])
    dyn = {"x": {0: "batch"}, "y": {0: "batch"}}

    m = IfRuntime()
    export(m, (x16,), io1, dyn, f"{out}/if_runtime.onnx")
    exp["if_runtime"] = {"params": nparams(m), "macs": lin_macs(m.a) + lin_macs(m.b),
                         "macs_other_branch": lin_macs(m.c)}
    m = IfStatic()
    export(m, (x16,), io1, {"x": {0: "batch"}, "y": {0: "batch"}}, f"{out}/if_static.onnx")
    exp["if_static"] = {"params": nparams(m), "macs": lin_macs(m.b)}
    m = LoopFor()
    export(m, (torch.randn(1, 40),), io1, dyn, f"{out}/loop_for.onnx")
    exp["loop_for"] = {"params": nparams(m), "macs": 5 * lin_macs(m.l), "trips": 5}
    m = LoopWhile()
    export(m, (x32,), io1, dyn, f"{out}/loop_while.onnx")
    exp["loop_while"] = {"params": nparams(m), "macs_per_trip": lin_macs(m.l)}
    m = RnnLoop()
    export(m, (torch.randn(7, 1, 32),), (["x"], ["h"]),
           {"x": {0: "seq", 1: "batch"}, "h": {0: "batch"}}, f"{out}/rnn_loop.onnx")
    exp["rnn_loop"] = {"params": nparams(m), "macs_per_step": lin_macs(m.ih) + lin_macs(m.hh)}
    m = LoopIf()
    export(m, (torch.randn(1, 24),), io1, dyn, f"{out}/loop_if.onnx")
    exp["loop_if"] = {"params": nparams(m), "macs": 3 * (lin_macs(m.q1) + lin_macs(m.q2))}
    m = nn.LSTM(32, 64, num_layers=2)
    export(m, (torch.randn(7, 1, 32),), (["x"], ["y", "hn", "cn"]),
           {"x": {0: "seq", 1: "batch"}}, f"{out}/lstm2.onnx", script=False)
    # per step and layer: 4 gates x (input + hidden) x hidden
    exp["lstm2"] = {"params": nparams(m), "macs_per_step": 4 * (32 + 64) * 64 + 4 * (64 + 64) * 64}
    m = nn.GRU(32, 48)
    export(m, (torch.randn(7, 1, 32),), (["x"], ["y", "hn"]),
           {"x": {0: "seq", 1: "batch"}}, f"{out}/gru.onnx", script=False)
    exp["gru"] = {"params": nparams(m), "macs_per_step": 3 * (32 + 48) * 48}
    scan_model(f"{out}/scan_rnn.onnx")
    exp["scan_rnn"] = {"params": 64, "macs": 6 * 8 * 8}
    with open(f"{out}/expected.json", "w") as f:
        json.dump(exp, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
