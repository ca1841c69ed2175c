#!/usr/bin/env python3
"""neusight_conv.py - dippm's teacher on NeuSight's measured FP32
convolutions on CUDA cores (V100 and T4, which have no TF32 tensor cores:
every one of their rows is a 3x3, stride-1 convolution, TF32 off).

Each row of tests/data/neusight/kernels.tsv (op conv; its `conv` column is
ic,oc,ks,hw,stride,pad) becomes a one-node dippm JSON graph predicted by
`dippm predict --gpu GPU --batch B --json` (the teacher's latency less the
call cost and with the benchmark host's dispatch, as dippm eval --kernels
counts a kernel). Prints, per GPU, the
rows, the geometric mean of predicted over measured time (1 when the
teacher's simt_winograd is right) and the MAPE. Deterministic: every
STRIDE-th row of at least MIN_US of the chosen split.

Usage: tools/neusight_conv.py [--dippm build/dippm] [--split train|test]
                              [--min-us 300] [--stride 25]"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys
import tempfile

GPUS = {"T4": "T4-PCIe-16GB", "V100-PCIe-32GB": "V100-PCIe-32GB"}


def graph(ic, oc, ks, hw, stride, pad, b):
    return {"format": "dippm-graph", "version": 1, "name": "conv", "opset": 17,
            "symbols": {"batch": b},
            "inputs": [{"name": "x", "dtype": "float32", "shape": ["batch", ic, hw, hw]}],
            "initializers": [{"name": "w", "dtype": "float32", "shape": [oc, ic, ks, ks]}],
            "nodes": [{"name": "conv", "op": "Conv", "inputs": ["x", "w"], "outputs": ["y"],
                       "attrs": {"kernel_shape": [ks, ks], "pads": [pad] * 4,
                                 "strides": [stride, stride]}}],
            "outputs": [{"name": "y"}]}


def fitted(top, name):
    """A constant of src/core/sim_fitted.h (the harness's dispatch, the call)."""
    with open(os.path.join(top, "src", "core", "sim_fitted.h")) as f:
        for line in f:
            w = line.split()
            if len(w) == 3 and w[0] == "#define" and w[1] == name:
                return float(w[2])
    raise SystemExit(f"neusight_conv.py: {name} not in src/core/sim_fitted.h")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--dippm", default=os.path.join(top, "build", "dippm"))
    ap.add_argument("--split", default="train", choices=["train", "test"])
    ap.add_argument("--min-us", type=float, default=300.0)
    ap.add_argument("--stride", type=int, default=25)
    a = ap.parse_args()
    tsv = os.path.join(top, "tests", "data", "neusight", "kernels.tsv")
    call_ms = fitted(top, "FIT_CALL_US_PYTORCH") * 1e-3
    dispatch = fitted(top, "FIT_KBENCH_DISPATCH_US")
    stats = {}
    with open(tsv, newline="") as f, tempfile.TemporaryDirectory() as tmp:
        seen = {}
        for r in csv.DictReader(f, delimiter="\t"):
            if r["op"] != "conv" or r["gpu"] not in GPUS or r["split"] != a.split:
                continue
            meas = float(r["latency_us"])
            if meas < a.min_us:
                continue
            seen[r["gpu"]] = seen.get(r["gpu"], 0) + 1
            if seen[r["gpu"]] % a.stride:
                continue
            ic, oc, ks, hw, stride, pad = map(int, r["conv"].split(","))
            path = os.path.join(tmp, "g.json")
            with open(path, "w") as g:
                json.dump(graph(ic, oc, ks, hw, stride, pad, int(r["b"])), g)
            out = subprocess.run([a.dippm, "predict", path, "--gpu", GPUS[r["gpu"]],
                                  "--batch", r["b"], "--dispatch-us", str(dispatch), "--json"],
                                 capture_output=True, text=True, check=True).stdout
            pred = (json.loads(out)["teacher_latency_ms"] - call_ms) * 1e3
            stats.setdefault(r["gpu"], []).append(math.log(pred / meas))
    for gpu, e in sorted(stats.items()):
        gm = math.exp(sum(e) / len(e))
        mape = 100 * sum(abs(math.exp(x) - 1) for x in e) / len(e)
        print(f"{GPUS[gpu]:16s} {len(e):5d} rows  predicted/measured {gm:.3f}  MAPE {mape:.1f}%")
    return 0 if stats else 1


if __name__ == "__main__":
    sys.exit(main())
