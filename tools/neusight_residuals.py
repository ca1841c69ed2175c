#!/usr/bin/env python3
"""neusight_residuals.py - is there anything in the teacher's errors on
NeuSight's 40 end-to-end rows that a learner could carry to a model it
never saw? Reads weights/dippm-gnn.neusight.rows.csv (make
weights-neusight) and corrects each row by the mean log error of the other
models' rows on the same GPU (a per-GPU bias, the simplest pattern a
learner picks up), at full and half strength, leaving the row's own model
out. Prints the MAPE of the teacher and of each correction.

Usage: tools/neusight_residuals.py [ROWS.csv]"""
import csv
import math
import os
import sys


def main():
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        top, "weights", "dippm-gnn.neusight.rows.csv")
    with open(path, newline="") as f:
        rows = [(r["family"], r["gpu"], float(r["latency_ms"]), float(r["pred_latency_ms"]))
                for r in csv.DictReader(f)]
    if not rows:
        print(f"{path}: no rows", file=sys.stderr)
        return 1

    def mape(strength):
        err = 0.0
        for fam, gpu, meas, pred in rows:
            other = [math.log(m / p) for f2, g2, m, p in rows if g2 == gpu and f2 != fam]
            c = strength * sum(other) / len(other) if other else 0.0
            err += abs(pred * math.exp(c) / meas - 1)
        return 100 * err / len(rows)

    print(f"{len(rows)} rows, MAPE of latency")
    print(f"  teacher (the shipped GNN reproduces it)        {mape(0.0):5.2f}%")
    print(f"  with the other models' per-GPU bias            {mape(1.0):5.2f}%")
    print(f"  with half of it                                {mape(0.5):5.2f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
