#!/usr/bin/python3
"""validate_compile.py - compares dippm's torch.compile (inductor,
inductor-graph) predictions, and the same sources' eager ones, with the
published rows of tests/data/torch_compile.jsonl and NeuSight's end-to-end
rows of every configuration it also ran compiled (tests/data/neusight/,
read by tools/neusight_import.py's e2e_rows, source_id neusight-e2e).

Each row names its dippm model (spec), GPU, precision, runtime, batch, the
metric and the published value:
  latency_ms          predict at the batch: latency_ms
  iterations_per_s    a diffusion denoising loop: 1000 / the denoiser's
                      latency at unet_batch (the prompts twice, guidance)
  output_tokens_per_s predict --input-tokens/--output-tokens:
                      generation.output_tokens_per_s
No constant of dippm is fitted to these rows (the inductor constants are
a-priori, src/core/sim_params.c), so the error of a source left out is its
error with every source in: the leave-one-source-out view is the MAPE per
source, printed per runtime family (torch.compile, eager), and the error of
the predicted speed-up of torch.compile over eager where a table has both
(what the runtime adds, apart from the error the two share).

Usage: tools/validate_compile.py [JSONL] [--dippm PATH] [--teacher] [--resid FILE]
  --teacher  run without GNN weights (the teacher's figures)
With --resid, NeuSight's compiled rows count in the family the intervals
give its eager rows, "neusight"; its eager rows are left out, for the
intervals read every one of them from tests/data/neusight/models.jsonl.
"""
from collections import defaultdict

from neusight_import import e2e_rows
from validate_generation import options, rows_of, run, write_resid, report_families

NEUSIGHT_FAMILY = "neusight"  # that of models.jsonl's rows in src/core/interval_gen.c


def predict(r, dippm, teacher):
    common = [r["spec"], "--gpu", r["gpu"], "--precision", r["precision"], "--runtime",
              r["runtime"]]
    metric = r["metric"]
    if metric == "output_tokens_per_s":
        args = common + ["--input-tokens", str(r["input_tokens"]), "--output-tokens",
                         str(r["output_tokens"])]
        return run(dippm, ["predict"] + args, teacher)["generation"][metric]
    if metric == "iterations_per_s":
        out = run(dippm, ["predict"] + common + ["--batch", str(r["unet_batch"])], teacher)
        return 1000.0 / out["latency_ms"]
    if metric == "latency_ms":
        return run(dippm, ["predict"] + common + ["--batch", str(r["batch"])], teacher)[metric]
    raise ValueError("%s: unknown metric '%s'" % (r["source_id"], metric))


def resid_row(r, pred, fam):
    """The row's held-out error for the intervals (write_resid), in family fam."""
    gen = r["metric"] == "output_tokens_per_s"
    meas, p = (r["value"], pred) if r["metric"] == "latency_ms" else (1 / r["value"], 1 / pred)
    return (fam, "time", "generation" if gen else "pass", r["gpu"], r["precision"],
            r["runtime"], meas, p)


def family(runtime):
    return "torch.compile" if runtime.startswith("inductor") else "eager"


def speedup(pair):
    """eager time / compiled time, published and predicted, of a table's
    eager and compiled rows (a rate's ratio the other way round)."""
    e, c = pair["eager"], pair["torch.compile"]
    if e[0]["metric"] == "latency_ms":
        return e[1] / c[1], e[2] / c[2]
    return c[1] / e[1], c[2] / e[2]


def report_speedups(pairs):
    print("\nSpeed-up of torch.compile over eager (same table, model, GPU, batch): MAPE per source")
    per = defaultdict(list)
    for key, pair in sorted(pairs.items()):
        if len(pair) == 2:
            pub, pred = speedup(pair)
            per[key[0]].append(abs(pred - pub) / pub * 100)
    for s, e in sorted(per.items()):
        print("  %-24s %3d pairs  MAPE %6.1f%%" % (s, len(e), sum(e) / len(e)))


def main():
    path, dippm, teacher, resid = options(__doc__, "tests/data/torch_compile.jsonl")
    errors, held_out = defaultdict(list), []
    pairs = defaultdict(dict)
    rows = [(r, False) for r in rows_of(path)] + [(r, True) for r in e2e_rows()]
    for r, neusight in rows:
        pred = predict(r, dippm, teacher)
        err = (pred - r["value"]) / r["value"] * 100
        errors[(family(r["runtime"]), r["source_id"])].append(abs(err))
        if not neusight:
            held_out.append(resid_row(r, pred, r["source_id"]))
        elif family(r["runtime"]) != "eager":
            held_out.append(resid_row(r, pred, NEUSIGHT_FAMILY))
        key = (r["source_id"], r["table"], r["spec"], r["gpu"], r["batch"])
        pairs[key][family(r["runtime"])] = (r, r["value"], pred)
        print("%-24s %-34s %-15s %-4s %-14s b=%-3d %-19s pub %8.3f pred %8.3f %+7.1f%%" % (
            r["source_id"], r["spec"][:34], r["gpu"], r["precision"], r["runtime"], r["batch"],
            r["metric"], r["value"], pred, err))
    print("(%s)" % ("teacher" if teacher else "GNN"))
    report_families(errors, ("torch.compile", "eager"))
    report_speedups(pairs)
    if resid:
        write_resid(resid, held_out)


if __name__ == "__main__":
    main()
