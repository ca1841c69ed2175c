#!/usr/bin/python3
"""validate_tp.py - compares dippm's tensor-parallel generation predictions
(--tp) with the published rows of tests/data/tensor_parallel.jsonl.

Each row names its dippm template (spec), GPU, precision, KV-cache
precision, runtime, tp, batch (null: maximum load), input and output
tokens, the metric and the published value:
  ttft_ms                      sweep at the batch: ttft_ms
  e2e_ms                       sweep at the batch: e2e_ms
  output_tokens_per_s_per_gpu  sweep at the batch: output_tokens_per_s / tp
  max_output_tokens_per_s      predict: generation.max_output_tokens_per_s
No constant of dippm is fitted to these rows, so the error of a source left
out is its error with every source in: the leave-one-source-out view is the
MAPE per source, printed with the overall MAPE.

Usage: tools/validate_tp.py [JSONL] [--dippm PATH] [--teacher] [--resid FILE]
  --teacher  run without GNN weights (the teacher's figures)
"""
from collections import defaultdict

from validate_generation import options, report_sources, rows_of, run, write_resid

RATES = ("output_tokens_per_s_per_gpu", "max_output_tokens_per_s")


def predict(r, dippm, teacher):
    common = [r["spec"], "--gpu", r["gpu"], "--precision", r["precision"], "--runtime",
              r["runtime"], "--set", "kv=" + r["kv_precision"], "--tp", str(r["tp"]),
              "--input-tokens", str(r["input_tokens"]), "--output-tokens",
              str(r["output_tokens"])]
    metric = r["metric"]
    if metric == "max_output_tokens_per_s":
        return run(dippm, ["predict"] + common, teacher)["generation"][metric]
    row = run(dippm, ["sweep"] + common + ["--batch", str(r["batch"])], teacher)["rows"][0]
    if metric == "output_tokens_per_s_per_gpu":
        return row["output_tokens_per_s"] / r["tp"]
    return row[metric]


def main():
    path, dippm, teacher, resid = options(__doc__, "tests/data/tensor_parallel.jsonl")
    per_source, errors = defaultdict(list), []
    rows = list(rows_of(path))
    for r in rows:
        pred = predict(r, dippm, teacher)
        err = (pred - r["value"]) / r["value"] * 100
        per_source[r["source_id"]].append(abs(err))
        meas, p = (1 / r["value"], 1 / pred) if r["metric"] in RATES else (r["value"], pred)
        errors.append((r["source_id"], "time", "generation", r["gpu"], r["precision"],
                       r["runtime"], meas, p))
        print("%-24s %-15s %-4s tp=%d b=%-5s %5d/%-5d %-28s pub %9.1f pred %9.1f %+7.1f%%" % (
            r["source_id"], r["gpu"], r["precision"], r["tp"], r["batch"], r["input_tokens"],
            r["output_tokens"], r["metric"], r["value"], pred, err))
    every = report_sources(per_source, teacher)
    print("overall %d rows  MAPE %.1f%%; mean of the per-source MAPEs %.1f%%" % (
        len(every), sum(every) / len(every),
        sum(sum(e) / len(e) for e in per_source.values()) / len(per_source)))
    if resid:
        write_resid(resid, errors)


if __name__ == "__main__":
    main()
