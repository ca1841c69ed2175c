#!/usr/bin/env python3
"""neusight_traces.py - do NeuSight's per-operator traces carry what the
teacher misses end to end?

NeuSight traced a one-layer copy of each model op by op (tests/data/neusight/
ops.tsv: every fx node timed alone, summed per operator). This compares those
sums, per operator class, with dippm's prediction of the same one-layer model
(`dippm layers SPEC --time --csv`), and asks whether correcting the whole
model's prediction class by class closes its end-to-end error on NeuSight's
40 eager rows (weights/dippm-gnn.neusight.rows.csv):

  own trace   each row corrected by its own trace's class ratios (an oracle:
              what the traces could give at best);
  other models each row corrected by the ratios of the other models' traces on
              the same GPU (what a model trained on the traces could learn for
              a model it never saw).

    python3 tools/neusight_traces.py [--dippm build/dippm] [--top DIR]

Prints a markdown report on standard output. Run from anywhere; needs a built
dippm (default: build/dippm under the source tree).
"""
import argparse
import collections
import csv
import math
import os
import re
import subprocess
import sys

CLASSES = ("gemm", "bmm", "softmax", "norm", "elementwise", "gather")
# fx targets (ops.tsv target_short) per class; the rest (views, size, getitem,
# dtype casts, small mask builders) is host time both sides model apart
FX = {
    "gemm": {"Linear", "addmm"},
    "bmm": {"matmul", "bmm", "baddbmm"},
    "softmax": {"softmax", "Softmax"},
    "norm": {"LayerNorm"},
    "gather": {"Embedding", "embedding"},
    "elementwise": {"add", "sub", "mul", "truediv", "pow", "tanh", "Tanh", "where", "gelu",
                    "GELU", "relu", "ReLU", "masked_fill", "contiguous", "max"},
}


def fx_class(target):
    for c, names in FX.items():
        if target in names:
            return c
    return None


def zoo_class(row):
    op = row["op"]
    if op in ("MatMul", "Gemm"):
        return "gemm" if float(row["params"]) > 0 else "bmm"
    if op == "Softmax":
        return "softmax"
    if op in ("LayerNormalization", "SimplifiedLayerNormalization"):
        return "norm"
    if op == "Gather":
        return "gather"
    return "elementwise"


def read_tsv(path):
    with open(path) as f:
        return list(csv.DictReader(f, delimiter="\t"))


def predicted_classes(dippm, spec, gpu, batch, one=True):
    """Class sums (ms) of dippm's prediction of spec (one=True: of its
    one-layer copy)."""
    if one:
        spec = re.sub(r"layers=\d+", "layers=1", spec)
    out = subprocess.run([dippm, "layers", spec, "--gpu", gpu, "--batch", str(batch), "--csv"],
                         capture_output=True, text=True, check=True).stdout
    rows = list(csv.DictReader(out.splitlines()))
    by_name = {r["name"]: r for r in rows}
    sums = collections.Counter()
    for r in rows:
        sums[zoo_class(by_name.get(r["kernel"], r))] += float(r["time_us"]) / 1e3
    return sums


def mape(pairs):
    return 100 * sum(abs(p / m - 1) for p, m in pairs) / len(pairs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    top_default = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--top", default=top_default)
    ap.add_argument("--dippm", default=None)
    a = ap.parse_args()
    dippm = a.dippm or os.path.join(a.top, "build", "dippm")
    ops = read_tsv(os.path.join(a.top, "tests/data/neusight/ops.tsv"))
    with open(os.path.join(a.top, "weights/dippm-gnn.neusight.rows.csv")) as f:
        e2e = list(csv.DictReader(f))
    traced = collections.defaultdict(collections.Counter)
    for r in ops:
        c = fx_class(r["target_short"])
        if c:
            traced[(r["model"], r["gpu"], int(r["batch"]))][c] += float(r["total_ms"])
    rows = []
    for r in e2e:
        key = (r["family"].split(":", 1)[1], r["gpu"], int(r["batch"]))
        if key not in traced:
            continue
        pred1 = predicted_classes(dippm, r["spec"], r["gpu"], key[2])
        rows.append({"key": key, "meas": float(r["latency_ms"]), "pred": float(r["pred_latency_ms"]),
                     "trace": traced[key], "pred1": pred1, "spec": r["spec"]})
    if not rows:
        sys.exit("neusight_traces: no traced row matches weights/dippm-gnn.neusight.rows.csv")
    # the whole model's class times: the one-layer copy's layer part scales by
    # num_layer, so correct the prediction by (ratio - 1) x that class's time in
    # the whole model, which dippm layers gives for the full spec
    for r in rows:
        r["full"] = predicted_classes(dippm, r["spec"], r["key"][1], r["key"][2], one=False)

    def corrected(r, ratios):
        return r["pred"] + sum((ratios[c] - 1) * r["full"][c] for c in ratios)

    def own(r):
        return {c: r["trace"][c] / r["pred1"][c] for c in CLASSES
                if r["trace"][c] > 0 and r["pred1"][c] > 0}

    def others(r):
        f = {}
        for c in CLASSES:
            t = p = 0.0
            for o in rows:
                if o["key"][0] != r["key"][0] and o["key"][1] == r["key"][1] and o["pred1"][c] > 0:
                    t += o["trace"][c]
                    p += o["pred1"][c]
            if t > 0 and p > 0:
                f[c] = t / p
        return f

    print("| rows | dippm | own trace's class ratios | other models' ratios, same GPU |")
    print("|---|---|---|---|")
    print("| %d | %.1f%% | %.1f%% | %.1f%% |" % (
        len(rows), mape([(r["pred"], r["meas"]) for r in rows]),
        mape([(corrected(r, own(r)), r["meas"]) for r in rows]),
        mape([(corrected(r, others(r)), r["meas"]) for r in rows])))
    print()
    print("Traced over predicted time of the one-layer copies, per GPU and class "
          "(geometric mean over the GPU's traces):")
    print()
    print("| GPU | " + " | ".join(CLASSES) + " |")
    print("|---|" + "---|" * len(CLASSES))
    for gpu in sorted({r["key"][1] for r in rows}):
        cells = []
        for c in CLASSES:
            v = [math.log(r["trace"][c] / r["pred1"][c]) for r in rows
                 if r["key"][1] == gpu and r["trace"][c] > 0 and r["pred1"][c] > 0]
            cells.append("%.2f" % math.exp(sum(v) / len(v)) if v else "-")
        print("| %s | %s |" % (gpu, " | ".join(cells)))


if __name__ == "__main__":
    main()
