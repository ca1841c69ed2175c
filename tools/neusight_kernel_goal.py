#!/usr/bin/env python3
"""neusight_kernel_goal.py - the teacher's MAPE on NeuSight's single-kernel
test split per operator class, pooled over a set of GPUs (weights/kernels.md
gives each GPU alone), with a bootstrap 95% interval over rows. Runs
`dippm eval --kernels tests/data/neusight/kernels.tsv --teacher --rows` into
a temporary file and reads its predictions beside the measured rows.

Usage: tools/neusight_kernel_goal.py [--dippm PATH] [--gpus A,B,...]
  --dippm PATH  the dippm binary (default build/dippm)
  --gpus LIST   the GPUs, as kernels.tsv names them (default the test sets
                the kernel goal names: A100-PCIe-40GB, A100-PCIe-80GB,
                H100-SXM5-80GB, L4); "all" for every GPU"""
import csv
import os
import random
import subprocess
import sys
import tempfile

GOAL_GPU_SET = "A100-PCIe-40GB,A100-PCIe-80GB,H100-SXM5-80GB,L4"
CLASSES = {"matmul": "matmul", "bmm": "matmul", "linear": "linear",
           "layernorm": "layernorm", "softmax": "softmax"}


def args_of(argv):
    dippm, gpus = "build/dippm", GOAL_GPU_SET
    for i, a in enumerate(argv):
        if a in ("--dippm", "--gpus") and i + 1 >= len(argv):
            sys.exit(f"{a} needs a value\n{__doc__}")
        if a == "--dippm":
            dippm = argv[i + 1]
        elif a == "--gpus":
            gpus = argv[i + 1]
        elif a.startswith("-"):
            sys.exit(f"unknown option {a}\n{__doc__}")
    return dippm, None if gpus == "all" else set(gpus.split(","))


def teacher_rows(dippm, tsv):
    """line number -> the teacher's predicted us, from dippm eval --rows."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "rows.csv")
        subprocess.run([dippm, "eval", "--kernels", tsv, "--teacher", "--quiet", "--rows", out],
                       check=True, stdout=subprocess.DEVNULL)
        with open(out, newline="") as f:
            return {int(r["line"]): float(r["teacher_us"]) for r in csv.DictReader(f)}


def bootstrap(errors, rounds=1000):
    rng = random.Random(1)
    means = sorted(sum(rng.choice(errors) for _ in errors) / len(errors)
                   for _ in range(rounds))
    return means[int(0.025 * rounds)], means[int(0.975 * rounds) - 1]


def main():
    dippm, gpus = args_of(sys.argv[1:])
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    tsv = os.path.join(top, "tests", "data", "neusight", "kernels.tsv")
    pred = teacher_rows(dippm, tsv)
    groups = {}
    with open(tsv, newline="") as f:
        for line, r in enumerate(csv.DictReader(f, delimiter="\t"), start=2):
            if r["split"] != "test" or (gpus and r["gpu"] not in gpus) or line not in pred:
                continue
            meas = float(r["latency_us"])
            cls = CLASSES.get(r["op"], "elementwise")
            groups.setdefault(cls, []).append(abs(pred[line] - meas) / meas * 100)
    if not groups:
        sys.exit("no test-split rows on " + ",".join(sorted(gpus or ["all"])))
    print("NeuSight kernel test split on %s: teacher MAPE per operator class"
          % ("every GPU" if gpus is None else ", ".join(sorted(gpus))))
    for cls in sorted(groups):
        e = groups[cls]
        lo, hi = bootstrap(e)
        print("  %-12s %6d rows  MAPE %5.1f%% [%.1f, %.1f]" % (cls, len(e), sum(e) / len(e), lo, hi))
    return 0


if __name__ == "__main__":
    sys.exit(main())
