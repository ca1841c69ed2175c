#!/usr/bin/python3
"""validate_quant.py - compares dippm's predictions of quantised decoders
(--quant) with the published rows of tests/data/quant.jsonl.

Each row names its dippm template (spec), GPU, runtime, scheme (quant; null
for the source's own fp16 baseline), precision, KV-cache precision, batch
(null: maximum load), input and output tokens, the metric and the
published value:
  max_output_tokens_per_s  predict: generation.max_output_tokens_per_s
  speedup_vs_fp16          sweep at the batch: output_tokens_per_s with the
                           scheme over that of fp16 (no scheme), the same
                           KV cache
  peak_memory_mb           peak device memory in MB (10^6 bytes) at the
                           batch: of the generation (predict:
                           generation_memory.total_mib), or with one output
                           token of the pass over the input tokens (predict
                           --set seq=INPUT: memory_mib)
No constant of dippm is fitted to these rows, so the error of a source left
out is its error with every source in: the leave-one-source-out view is the
MAPE per source, printed with the overall MAPE and the MAPE per scheme and
per metric. With --resid, the maximum-load rates give time errors and the
peak memories memory errors (a speed-up, a ratio of two predictions, gives
neither).

Usage: tools/validate_quant.py [JSONL] [--dippm PATH] [--teacher] [--resid FILE]
  --teacher  run without GNN weights (the teacher's figures)
"""
from collections import defaultdict

from validate_generation import options, report_sources, rows_of, run, write_resid


def common(r, quant):
    args = [r["spec"], "--gpu", r["gpu"], "--runtime", r["runtime"], "--set",
            "kv=" + r["kv_precision"], "--input-tokens", str(r["input_tokens"]),
            "--output-tokens", str(r["output_tokens"])]
    return args + (["--quant", quant] if quant else ["--precision", r["precision"]])


def tokens_per_s(r, quant, dippm, teacher):
    args = ["sweep"] + common(r, quant) + ["--batch", str(r["batch"])]
    return run(dippm, args, teacher)["rows"][0]["output_tokens_per_s"]


MB_PER_MIB = 2**20 / 1e6


def peak_memory_mb(r, dippm, teacher):
    """The predicted peak memory of the row in MB: its generation's, or with
    one output token (the prefill alone) its pass over the input tokens."""
    args = [r["spec"], "--gpu", r["gpu"], "--runtime", r["runtime"], "--batch", str(r["batch"])]
    args += ["--quant", r["quant"]] if r["quant"] else ["--precision", r["precision"]]
    if r["output_tokens"] == 1:
        mib = run(dippm, ["predict"] + args + ["--set", "seq=%d" % r["input_tokens"]],
                  teacher)["memory_mib"]
    else:
        out = run(dippm, ["predict"] + common(r, r["quant"]) + ["--batch", str(r["batch"])],
                  teacher)
        mib = out["generation_memory"]["total_mib"]
    return mib * MB_PER_MIB


def predict(r, dippm, teacher):
    metric = r["metric"]
    if metric == "peak_memory_mb":
        return peak_memory_mb(r, dippm, teacher)
    if metric == "max_output_tokens_per_s":
        return run(dippm, ["predict"] + common(r, r["quant"]), teacher)["generation"][metric]
    if metric == "speedup_vs_fp16":
        base = dict(r, precision=r["baseline"])
        return (tokens_per_s(r, r["quant"], dippm, teacher) /
                tokens_per_s(base, None, dippm, teacher))
    raise ValueError("%s: unknown metric %s" % (r["source_id"], metric))


def main():
    path, dippm, teacher, resid = options(__doc__, "tests/data/quant.jsonl")
    per_source, per_scheme, per_metric = defaultdict(list), defaultdict(list), defaultdict(list)
    errors = []
    rows = list(rows_of(path))
    for r in rows:
        pred = predict(r, dippm, teacher)
        err = (pred - r["value"]) / r["value"] * 100
        scheme = r["quant"] or r["precision"]
        per_source[r["source_id"]].append(abs(err))
        per_scheme[scheme.split(":")[0]].append(abs(err))
        per_metric[r["metric"]].append(abs(err))
        if r["metric"] == "max_output_tokens_per_s":  # a rate; speed-ups are ratios
            errors.append((r["source_id"], "time", "generation", r["gpu"], r["precision"],
                           r["runtime"], 1 / r["value"], 1 / pred))
        elif r["metric"] == "peak_memory_mb":
            errors.append((r["source_id"], "memory",
                           "pass" if r["output_tokens"] == 1 else "generation", r["gpu"],
                           r["precision"], r["runtime"], r["value"], pred))
        print("%-18s %-11s %-15s %-11s b=%-4s %4d/%-4d %-23s pub %8.2f pred %8.2f %+7.1f%%" % (
            r["source_id"], r["spec"].split("=")[-1], r["gpu"], scheme, r["batch"],
            r["input_tokens"], r["output_tokens"], r["metric"], r["value"], pred, err))
    every = report_sources(per_source, teacher)
    for what, per in (("scheme", per_scheme), ("metric", per_metric)):
        print("MAPE per %s:" % what)
        for s in sorted(per):
            e = per[s]
            print("  %-24s %3d rows  MAPE %6.1f%%" % (s, len(e), sum(e) / len(e)))
    print("overall %d rows  MAPE %.1f%%" % (len(every), sum(every) / len(every)))
    if resid:
        write_resid(resid, errors)


if __name__ == "__main__":
    main()
