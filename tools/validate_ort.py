#!/usr/bin/python3
"""validate_ort.py - compares dippm's ONNX Runtime (onnxruntime,
onnxruntime-graph) predictions, and the same sources' eager ones, with the
published rows of tests/data/onnxruntime.jsonl.

Each row names its dippm model (spec), GPU, precision, runtime, batch, the
metric and the published value:
  latency_ms   predict at the batch (and --set seq=SEQ where the row has a
               sequence length): latency_ms
  pipeline_ms  a diffusion pipeline: predict --steps STEPS at the batch
               (--no-guidance where the row runs without classifier-free
               guidance): diffusion.batch_ms, the text encoder, the
               denoising steps and the VAE decode of one batch of images
No constant of dippm is fitted to these rows (the onnxruntime constants are
a-priori, src/core/sim_params.c), so the error of a source left out is its
error with every source in: the leave-one-source-out view is the MAPE per
source, printed per runtime family (onnxruntime, eager), with the error of
the predicted speed-up of ONNX Runtime over eager where a table has both.

Usage: tools/validate_ort.py [JSONL] [--dippm PATH] [--teacher] [--resid FILE]
       tools/validate_ort.py [JSONL] [--dippm PATH] --check
  --teacher  run without GNN weights (the teacher's figures)
  --check    only check that every row has its fields and that dippm
             predicts it; each bad row is named (FILE:LINE), exit 1
"""
import sys
from collections import defaultdict

from validate_generation import options, run, write_resid, report_families

METRICS = ("latency_ms", "pipeline_ms")
FIELDS = ("source_id", "model", "spec", "gpu", "precision", "runtime", "batch", "metric",
          "value", "source", "conditions", "table")


def predict(r, dippm, teacher):
    args = ["predict", r["spec"], "--gpu", r["gpu"], "--precision", r["precision"],
            "--runtime", r["runtime"], "--batch", str(r["batch"])]
    if r["metric"] == "latency_ms":
        if "seq" in r:
            args += ["--set", "seq=%d" % r["seq"]]
        return run(dippm, args, teacher)["latency_ms"]
    if r["metric"] == "pipeline_ms":
        args += ["--steps", str(r["steps"])] + ([] if r["guidance"] else ["--no-guidance"])
        return run(dippm, args, teacher)["diffusion"]["batch_ms"]
    raise ValueError("%s: unknown metric '%s'" % (r["source_id"], r["metric"]))


def family(runtime):
    return "onnxruntime" if runtime.startswith("onnxruntime") else "eager"


def numbered_rows(path):
    """(line number, row) of every non-empty line; a line that is not JSON
    raises ValueError naming it."""
    import json
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                try:
                    yield n, json.loads(line)
                except ValueError as e:
                    raise ValueError("%s:%d: %s" % (path, n, e))


def row_problem(r):
    """What is wrong with row r's fields, or None."""
    missing = [k for k in FIELDS if k not in r]
    if missing:
        return "missing field(s) %s" % ", ".join(missing)
    if r["metric"] not in METRICS:
        return "metric '%s' is not one of %s" % (r["metric"], ", ".join(METRICS))
    if r["metric"] == "pipeline_ms" and ("steps" not in r or "guidance" not in r):
        return "a pipeline_ms row needs steps and guidance"
    if not isinstance(r["value"], (int, float)) or r["value"] <= 0:
        return "value must be a positive number"
    return None


def check(path, dippm):
    bad = 0
    n_rows = 0
    try:
        for n, r in numbered_rows(path):
            n_rows += 1
            problem = row_problem(r)
            if problem is None:
                try:
                    if not predict(r, dippm, True) > 0:
                        problem = "dippm predicted no time"
                except (RuntimeError, KeyError) as e:
                    problem = "dippm: %s" % e
            if problem:
                print("%s:%d: %s" % (path, n, problem), file=sys.stderr)
                bad += 1
    except ValueError as e:
        print(e, file=sys.stderr)
        return 1
    if bad or not n_rows:
        print("%s: %d of %d rows bad" % (path, bad, n_rows), file=sys.stderr)
        return 1
    print("%s: %d rows, each predicted" % (path, n_rows))
    return 0


def report_speedups(pairs):
    print("\nSpeed-up of ONNX Runtime over eager (same table, model, GPU, batch, precision):")
    per = defaultdict(list)
    for key, pair in sorted(pairs.items()):
        if len(pair) == 2:
            e, o = pair["eager"], pair["onnxruntime"]
            pub, pred = e[0] / o[0], e[1] / o[1]
            per[key[0]].append(abs(pred - pub) / pub * 100)
            print("  %-20s %-46s pub %5.2fx pred %5.2fx" % (key[0], o[2], pub, pred))
    for s, e in sorted(per.items()):
        print("  %-20s %3d pairs  MAPE %6.1f%%" % (s, len(e), sum(e) / len(e)))


def main():
    path, dippm, teacher, resid = options(__doc__, "tests/data/onnxruntime.jsonl")
    if "--check" in sys.argv[1:]:
        sys.exit(check(path, dippm))
    errors, held_out, pairs = defaultdict(list), [], defaultdict(dict)
    for _, r in numbered_rows(path):
        pred = predict(r, dippm, teacher)
        err = (pred - r["value"]) / r["value"] * 100
        errors[(family(r["runtime"]), r["source_id"])].append(abs(err))
        held_out.append((r["source_id"], "time", "pass", r["gpu"], r["precision"], r["runtime"],
                         r["value"], pred))
        key = (r["source_id"], r["table"], r["precision"])
        pairs[key][family(r["runtime"])] = (r["value"], pred, "%s %s b=%d %s" % (
            r["gpu"], r["model"].split("/")[-1][:22], r["batch"], r["precision"]))
        print("%-18s %-32s %-14s %-4s %-17s b=%-2d %-11s pub %8.2f pred %8.2f %+7.1f%%" % (
            r["source_id"], r["spec"][5:37], r["gpu"], r["precision"], r["runtime"], r["batch"],
            r["metric"], r["value"], pred, err))
    report_families(errors, ("onnxruntime", "eager"), teacher)
    report_speedups(pairs)
    if resid:
        write_resid(resid, held_out)


if __name__ == "__main__":
    main()
