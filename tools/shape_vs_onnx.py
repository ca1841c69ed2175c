#!/usr/bin/python3
"""shape_vs_onnx.py - compare dippm's inferred shapes with ONNX's own shape
inference (onnx.shape_inference with data propagation) on real models.

For each MODEL.onnx: the symbolic input dims are fixed to the values dippm
binds by default (`dippm info --json`), the file's value_info is dropped, ONNX
infers every intermediate shape, and each fully known ONNX shape must equal
the one in `dippm layers --json`. Values ONNX cannot infer (data-dependent in
its inference) are not compared and are counted separately.

Usage: shape_vs_onnx.py [--dippm PATH] MODEL.onnx...
Exit status: 0 all compared shapes match, 1 a mismatch, 77 python3-onnx absent.
"""
import argparse
import json
import subprocess
import sys

try:
    import onnx
    from onnx import shape_inference
except ImportError:
    print("shape_vs_onnx: python3-onnx is not installed; skipped")
    sys.exit(77)


def dippm_json(dippm, *args):
    r = subprocess.run([dippm, *args, "--json"], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"shape_vs_onnx: {dippm} {' '.join(args)} failed: {r.stderr.strip()}")
    return json.loads(r.stdout)


def onnx_shapes(path, syms):
    m = onnx.load(path)
    for inp in m.graph.input:
        for d in inp.type.tensor_type.shape.dim:
            if d.HasField("dim_param") and d.dim_param in syms:
                name = d.dim_param
                d.ClearField("dim_param")
                d.dim_value = syms[name]
    del m.graph.value_info[:]
    for o in m.graph.output:
        o.type.tensor_type.ClearField("shape")
    m = shape_inference.infer_shapes(m, data_prop=True)
    ref = {}
    for vi in list(m.graph.value_info) + list(m.graph.output):
        t = vi.type.tensor_type
        if not t.HasField("shape"):
            continue
        dims = [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim]
        if None not in dims:
            ref[vi.name] = dims
    return ref


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dippm", default="./dippm")
    ap.add_argument("models", nargs="+")
    a = ap.parse_args()
    failed = False
    for path in a.models:
        info = dippm_json(a.dippm, "info", path)
        syms = {k: v["value"] for k, v in info["symbols"].items()}
        ref = onnx_shapes(path, syms)
        layers = dippm_json(a.dippm, "layers", path)
        same = diff = other = 0
        for node in layers["nodes"]:
            for o in node["outputs"]:
                want = ref.get(o["name"])
                if want is None:
                    other += 1
                elif o["shape"] == want:
                    same += 1
                else:
                    diff += 1
                    if diff <= 5:
                        print(f"  {path}: {o['name']} ({node['op']}): dippm {o['shape']}, "
                              f"onnx {want}")
        print(f"{path}: {same} shapes match onnx, {diff} differ, {other} not inferred by onnx")
        failed |= diff > 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
