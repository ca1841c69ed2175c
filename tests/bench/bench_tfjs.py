#!/usr/bin/env python3
"""bench_tfjs.py - does reading a TF.js graph model scale linearly with its
size? Each of the reader's paths that once went quadratic is given a model.json
of about 1.25, 2.5, 5 and 10 MB, and `dippm info` (read, map, infer shapes) is
timed on it (median of 3, wall clock, one process at a time):

  shards     a chain of Transposes, each permutation a constant in a shard
             file of its own (was: every shard re-opened per constant)
  functions  a chain of calls, each into its own function of the library
             (was: the library scanned per call)
  nodes      a plain chain of Relu/Add nodes (the reader's base rate)

The goal (dippm(1) LIMITS): time per MB within a factor of 2 from 1.25 to
10 MB on every path. Prints a table and exits 1 when a path misses it.

    python3 tests/bench/bench_tfjs.py DIPPM [WORKDIR]
"""
import json
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

SIZES_MB = (1.25, 2.5, 5.0, 10.0)


def placeholder(name):
    return {"name": name, "op": "Placeholder",
            "attr": {"shape": {"shape": {"dim": [{"size": "2"}, {"size": "3"}]}}}}


def shards(n, d):
    nodes = [placeholder("t0")]
    paths, weights = [], []
    perm = struct.pack("<ii", 1, 0)
    for i in range(1, n + 1):
        nodes.append({"name": "p%d" % i, "op": "Const"})
        nodes.append({"name": "t%d" % i, "op": "Transpose", "input": ["t%d" % (i - 1), "p%d" % i]})
        paths.append("s%d.bin" % i)
        weights.append({"name": "p%d" % i, "shape": [2], "dtype": "int32"})
        with open(os.path.join(d, "s%d.bin" % i), "wb") as f:
            f.write(perm)
    return {"format": "graph-model", "modelTopology": {"node": nodes},
            "weightsManifest": [{"paths": paths, "weights": weights}]}


def functions(n, d):
    nodes = [placeholder("c0")]
    lib = []
    for i in range(1, n + 1):
        nodes.append({"name": "c%d" % i, "op": "PartitionedCall", "input": ["c%d" % (i - 1)],
                      "attr": {"f": {"func": {"name": "f%d" % (n - i)}}}})
    for i in range(n):
        lib.append({"signature": {"name": "f%d" % i, "inputArg": [{"name": "x"}],
                                  "outputArg": [{"name": "y"}]},
                    "nodeDef": [{"name": "relu", "op": "Relu", "input": ["x"]}],
                    "ret": {"y": "relu:activations:0"}})
    return {"format": "graph-model", "modelTopology": {"node": nodes, "library": {"function": lib}},
            "weightsManifest": []}


def plain(n, d):
    nodes = [placeholder("a0")]
    for i in range(1, n + 1):
        if i % 2:
            nodes.append({"name": "a%d" % i, "op": "Relu", "input": ["a%d" % (i - 1)]})
        else:
            nodes.append({"name": "a%d" % i, "op": "AddV2",
                          "input": ["a%d" % (i - 1), "a%d" % (i - 2)]})
    return {"format": "graph-model", "modelTopology": {"node": nodes}, "weightsManifest": []}


def write_model(make, mb, root):
    """A model of make's kind whose model.json is about mb MB."""
    d = tempfile.mkdtemp(dir=root)
    n = 1000
    text = json.dumps(make(n, d))
    n = max(1, int(n * mb * 1e6 / len(text)))
    for f in os.listdir(d):
        os.remove(os.path.join(d, f))
    text = json.dumps(make(n, d))
    path = os.path.join(d, "model.json")
    with open(path, "w") as f:
        f.write(text)
    return path, len(text) / 1e6, n


def time_info(dippm, path):
    runs = []
    for _ in range(3):
        t = time.perf_counter()
        r = subprocess.run([dippm, "info", path], capture_output=True, text=True)
        runs.append(time.perf_counter() - t)
        if r.returncode != 0:
            sys.exit("bench_tfjs: dippm info %s: exit %d: %s" % (path, r.returncode, r.stderr))
    return statistics.median(runs)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__.split("\n\n")[-1].strip())
    dippm = sys.argv[1]
    root = tempfile.mkdtemp(prefix="dippm-bench-tfjs-", dir=sys.argv[2] if len(sys.argv) > 2 else None)
    ok = True
    try:
        print("| path | MB | items | seconds | s per MB | per MB vs 1.25 MB |")
        print("|---|---|---|---|---|---|")
        for name, make in (("shards", shards), ("functions", functions), ("nodes", plain)):
            base = None
            worst = 1.0
            for mb in SIZES_MB:
                path, real_mb, n = write_model(make, mb, root)
                s = time_info(dippm, path)
                per = s / real_mb
                base = base or per
                worst = max(worst, per / base, base / per)
                print("| %s | %.2f | %d | %.3f | %.3f | %.2fx |" % (name, real_mb, n, s, per,
                                                                   per / base))
                shutil.rmtree(os.path.dirname(path))
            if worst > 2:
                ok = False
                print("| %s: NOT linear within 2x (worst %.2fx) | | | | | |" % (name, worst))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print("goal (time per MB within 2x from 1.25 to 10 MB on every path): %s"
          % ("met" if ok else "NOT met"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
