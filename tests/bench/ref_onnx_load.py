#!/usr/bin/python3
"""ref_onnx_load.py - python3-onnx reference for ONNX loading: onnx.load,
and onnx.load + onnx.shape_inference.infer_shapes, on the same files that
`bench_ref onnx` timed in C, with the ratios (Python / C) on CPU time.

    /usr/bin/python3 ref_onnx_load.py C_TSV SAMPLES_DIR [FULL.onnx] [TSV_OUT]

C_TSV holds bench_ref's rows (section, name, nodes, wall median, p25, p75,
min, max, CPU median, CPU min, runs); the file name in column 2 is looked up
in SAMPLES_DIR ("resnet50 full weights" is FULL.onnx). C's "load+infer" is
onnx_load_file + graph_infer (shapes and per-node cost); the reference's is
onnx.load + infer_shapes (shapes only), so that ratio favours Python.
"""
import os
import sys
import time

import numpy as np
import onnx


def median_times(fn, min_reps, budget):
    fn()  # warm-up (and the page cache)
    wall, cpu = [], []
    start = time.perf_counter()
    while len(wall) < min_reps or (time.perf_counter() - start < budget and len(wall) < 200):
        w0, c0 = time.perf_counter(), time.thread_time()
        fn()
        cpu.append((time.thread_time() - c0) * 1e3)
        wall.append((time.perf_counter() - w0) * 1e3)
    return float(np.median(wall)), float(np.median(cpu)), len(wall)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    c_tsv, samples = sys.argv[1], sys.argv[2]
    full = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else None
    out = open(sys.argv[4], "w") if len(sys.argv) > 4 else None
    c = {}
    with open(c_tsv) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            c[(p[0], p[1])] = (int(p[2]), float(p[3]), float(p[8]))
    names = sorted({k[1] for k in c})
    print(f"onnx {onnx.__version__}: onnx.load, and onnx.load + shape_inference.infer_shapes "
          "(CPU ms, medians; ratio = Python / C)")
    print(f"  {'model':24s} {'nodes':>6s} {'onnx.load':>10s} {'C load':>9s} {'ratio':>7s} "
          f"{'+infer py':>10s} {'C +infer':>9s} {'ratio':>7s}")
    ratios = []
    for name in names:
        path = full if name == "resnet50 full weights" else os.path.join(samples, name)
        if not path or not os.path.exists(path):
            print(f"  {name}: {path} not found, skipped", file=sys.stderr)
            continue
        nodes, _, c_load = c[("onnx_load", name)]
        _, _, c_infer = c[("onnx_load_infer", name)]
        big = os.path.getsize(path) > 20e6
        reps, budget = (3, 0.0) if big else (10, 0.5)
        lw, lc, _ = median_times(lambda: onnx.load(path), reps, budget)
        iw, ic, _ = median_times(lambda: onnx.shape_inference.infer_shapes(onnx.load(path)),
                                 reps, budget)
        r1, r2 = lc / c_load, ic / c_infer
        ratios.append(r1)
        print(f"  {name:24s} {nodes:6d} {lc:10.3f} {c_load:9.3f} {r1:6.1f}x {ic:10.3f} "
              f"{c_infer:9.3f} {r2:6.1f}x")
        if out:
            out.write(f"onnx_ref\t{name}\t{nodes}\t{lw:.6f}\t{lc:.6f}\t{iw:.6f}\t{ic:.6f}\t"
                      f"{c_load:.6f}\t{c_infer:.6f}\t{r1:.3f}\t{r2:.3f}\n")
    if ratios:
        print(f"  load ratio: min {min(ratios):.1f}x, median {float(np.median(ratios)):.1f}x "
              f"over {len(ratios)} files (goal: >= 3x)")
    if out:
        out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
