#!/usr/bin/python3
"""validate_diffusion_memory.py - compares dippm's diffusion pipeline memory
(predict --steps: every model resident, one CUDA context, the largest pass's
working set) with the published rows of tests/data/diffusion_memory.jsonl.

Each row names its dippm denoiser (spec), GPU, precision, runtime, batch
(images), steps, whether classifier-free guidance runs, and the published
peak memory in GiB (metric memory_gib). No constant of dippm is fitted to
these rows, so the error of a source left out is its error with every
source in: the leave-one-source-out view is the MAPE per source. The MAPE
per runtime and of the rows at batch 1-16 follow.

Usage: tools/validate_diffusion_memory.py [JSONL] [--dippm PATH] [--teacher]
  --teacher  run without GNN weights (the teacher's figures)
--resid is refused: a pipeline's memory is neither one pass nor a generation,
the two kinds the interval residuals know (src/core/interval_gen.h).
"""
from collections import defaultdict

from validate_generation import options, report_sources, rows_of, run


def predict_gib(r, dippm, teacher):
    args = ["predict", r["spec"], "--gpu", r["gpu"], "--precision", r["precision"],
            "--runtime", r["runtime"], "--batch", str(r["batch"]), "--steps", str(r["steps"])]
    if not r["guidance"]:
        args.append("--no-guidance")
    return run(dippm, args, teacher)["diffusion"]["memory_mib"] / 1024.0


FIELDS = ("source_id", "spec", "gpu", "precision", "runtime", "batch", "steps", "guidance",
          "metric", "value")


def checked(path, n, r):
    """Row n of path, or exit naming the first field it lacks or the metric."""
    for k in FIELDS:
        if k not in r:
            raise SystemExit("%s: row %d: no field %r" % (path, n, k))
    if r["metric"] != "memory_gib":
        raise SystemExit("%s: row %d: metric %r, expected memory_gib" % (path, n, r["metric"]))
    return r


def mape(errs):
    return sum(errs) / len(errs) if errs else float("nan")


def main():
    path, dippm, teacher, resid = options(__doc__, "tests/data/diffusion_memory.jsonl")
    if resid:
        raise SystemExit("--resid: a pipeline's memory is neither one pass nor a generation, "
                         "the kinds the interval residuals know (src/core/interval_gen.h)")
    per_source, per_runtime, small = defaultdict(list), defaultdict(list), []
    for n, r in enumerate(rows_of(path), 1):
        r = checked(path, n, r)
        pred = predict_gib(r, dippm, teacher)
        err = (pred - r["value"]) / r["value"] * 100
        per_source[r["source_id"]].append(abs(err))
        per_runtime[r["runtime"]].append(abs(err))
        if r["batch"] <= 16:
            small.append(abs(err))
        print("%-20s %-15s %-4s %-15s b=%-3d pub %6.2f GiB pred %6.2f GiB %+7.1f%%" % (
            r["source_id"], r["gpu"], r["precision"], r["runtime"], r["batch"], r["value"],
            pred, err))
    every = report_sources(per_source, teacher)
    print("MAPE per runtime:")
    for rt in sorted(per_runtime):
        print("  %-24s %3d rows  MAPE %6.1f%%" % (rt, len(per_runtime[rt]), mape(per_runtime[rt])))
    print("batch 1-16: %d rows  MAPE %.1f%%" % (len(small), mape(small)))
    print("overall %d rows  MAPE %.1f%%; mean of the per-source MAPEs %.1f%%" % (
        len(every), mape(every), sum(mape(e) for e in per_source.values()) / len(per_source)))


if __name__ == "__main__":
    main()
