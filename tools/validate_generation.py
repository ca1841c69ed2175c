#!/usr/bin/python3
"""validate_generation.py - compares dippm's generation predictions with
published LLM serving measurements (rows of the calibration JSONL format:
model, framework, precision, batch, input, gpu, latency_ms,
throughput_per_s, energy_j, ...).

Rows used:
  * TensorRT-LLM fixed-batch tables (gptSessionBenchmark, static batching,
    batch given, single GPU): output tokens/s against output_tokens_per_s
    and, for "output 1 tok" rows, time to first token against ttft_ms;
  * TensorRT-LLM maximum-load rows (batch null, TP1): output tokens/s
    against max_output_tokens_per_s;
  * ML.ENERGY vLLM rows: median inter-token latency against tpot_ms and
    joules per output token, at the configured batch. The prompt lengths
    are not published; the average output length is, and the prompt is
    taken as ML_ENERGY_PROMPT tokens.

Each published model maps to a dippm template: the exact preset where one
exists, otherwise the closest template configuration (marked "approx").
Rows of models with no mapping are counted and skipped.

Usage: tools/validate_generation.py JSONL [--dippm PATH] [--teacher]
  --teacher  run without GNN weights (the teacher's figures)
Prints one line per row, then MAPE per model and GPU and overall.
"""
import json
import os
import re
import subprocess
import sys
from collections import defaultdict

ML_ENERGY_PROMPT = 512

# (pattern on the model name, zoo spec, exact?)
MODELS = [
    (r"^GPT-J 6B", "llama:layers=28:hidden=4096:heads=16:kv_heads=16:intermediate=10944:"
     "vocab=50400:context=2048", False),
    (r"^LLaMA 7B|^Llama-2 7B", "llama:preset=llama2-7b", True),
    (r"^LLaMA 70B|^Llama-2 70B", "llama:preset=llama2-70b", True),
    (r"^Llama-3(\.1)? 8B|^Llama 3(\.1)? 8B", "llama:preset=llama3-8b", True),
    (r"^Llama-3(\.1)? 70B|^Llama 3(\.1)? 70B", "llama:preset=llama3-70b", True),
    (r"^Mistral 7B", "llama:layers=32:hidden=4096:heads=32:kv_heads=8:intermediate=14336:"
     "vocab=32000:context=32768", True),
    (r"^Mixtral 8x7B", "moe:preset=mixtral-8x7b", True),
    (r"^Qwen/Qwen3-30B-A3B-(Instruct|Thinking)", "moe:preset=qwen3-30b-a3b", True),
    (r"^Qwen/Qwen3-Coder-30B-A3B", "moe:preset=qwen3-30b-a3b", True),
    (r"^Qwen/Qwen3-8B$", "llama:preset=qwen3-8b", True),
    (r"^Qwen/Qwen3-14B$", "llama:preset=qwen3-14b", True),
    (r"^Qwen/Qwen3-32B$", "llama:preset=qwen3-32b", True),
]


def gpu_of(text):
    """The GPU named first (later words may mention other GPUs)."""
    t = text.upper()
    if t.startswith("H200"):
        return "H200-SXM-141GB"
    if t.startswith("H100"):
        return "H100-SXM5-80GB" if not t.startswith("H100-PCIE") else None
    if t.startswith("A100-PCIE-80GB"):
        return "A100-PCIe-80GB"
    if t.startswith("A100"):
        return "A100-SXM4-80GB"
    return None


def model_of(name):
    for pat, spec, exact in MODELS:
        if re.search(pat, name):
            return spec, exact
    return None, False


def precision_of(text):
    t = text.lower()
    if t.startswith("fp8"):
        return "fp8", "fp8"
    if t.startswith("fp16") or t.startswith("float16"):
        return "fp16", "fp16"
    if t.startswith("bf16") or t.startswith("bfloat16"):
        return "bf16", "bf16"
    return None, None


def run(dippm, args, teacher):
    env = dict(os.environ)
    if teacher:
        env["DIPPM_WEIGHTS"] = "/nonexistent/dippm-gnn.dpw"
    p = subprocess.run([dippm] + args + ["--json"], capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError(p.stderr.strip())
    return json.loads(p.stdout)


def lengths(text):
    m = re.search(r"input (\d+) tok, output (\d+) tok", text)
    return (int(m.group(1)), int(m.group(2))) if m else (None, None)


def rows_of(path):
    with open(path) as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def options(doc, default_path):
    """The validation tools' command line: [JSONL] [--dippm PATH] [--teacher]
    [--resid FILE] (-h: the tool's doc). Returns (path, dippm, teacher,
    resid: the file to write the held-out errors to, or None)."""
    args = sys.argv[1:]
    if "-h" in args or "--help" in args:
        sys.exit(doc + RESID_DOC)
    path = args[0] if args and not args[0].startswith("-") else default_path
    dippm = args[args.index("--dippm") + 1] if "--dippm" in args else "build/dippm"
    resid = args[args.index("--resid") + 1] if "--resid" in args else None
    return path, dippm, "--teacher" in args, resid


def report_sources(per_source, teacher):
    """Prints the MAPE of each source's rows (per_source: source -> list of
    absolute % errors) and returns every error."""
    print("\nMAPE per source (%s; nothing fitted, so each is also its leave-one-source-out "
          "error):" % ("teacher" if teacher else "GNN"))
    every = []
    for s in sorted(per_source):
        e = per_source[s]
        every.extend(e)
        print("  %-24s %3d rows  MAPE %6.1f%%" % (s, len(e), sum(e) / len(e)))
    return every


def report_families(errors, families, teacher=None):
    """Prints the MAPE of each (family, source) of errors ((family, source)
    -> list of absolute % errors), family by family in the order of
    families, each family's rows together after its sources."""
    who = "" if teacher is None else "%s; " % ("teacher" if teacher else "GNN")
    print("\nMAPE per source (%snothing fitted, so each is also its leave-one-source-out "
          "error):" % who)
    for fam in families:
        every = []
        for (f, s), e in sorted(errors.items()):
            if f != fam:
                continue
            every.extend(e)
            print("  %-13s %-24s %3d rows  MAPE %6.1f%%" % (f, s, len(e), sum(e) / len(e)))
        if every:
            print("  %-13s %-24s %3d rows  MAPE %6.1f%%" % (fam, "all", len(every),
                                                              sum(every) / len(every)))


RESID_DOC = """  --resid FILE  also write every row's held-out error for the prediction
                intervals (dippm calibrate --intervals --resid FILE; make intervals)"""


def write_resid(path, rows):
    """Writes the rows' errors in the format dippm calibrate --intervals
    --resid reads (src/lab/interval_gen.h): (family, target, kind, gpu,
    precision, runtime, measured, predicted) each, measured and predicted
    a time (a rate's inverse) or a memory. Atomic: a temporary file renamed
    into place."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("family\ttarget\tkind\tgpu\tprecision\truntime\tmeasured\tpredicted\n")
        for r in rows:
            f.write("%s\t%s\t%s\t%s\t%s\t%s\t%.9g\t%.9g\n" % r)
    os.replace(tmp, path)


def compare(r, dippm, teacher):
    """Returns a list of (metric, published, predicted) or raises."""
    fw = r["framework"]
    spec, exact = model_of(r["model"])
    gpu = gpu_of(r["gpu"])
    prec, kv = precision_of(r["precision"])
    if not spec or not gpu or not prec:
        return None, spec, exact, gpu
    common = ["--gpu", gpu, "--precision", prec, "--set", "kv=" + kv]
    out = []
    if "TensorRT-LLM" in fw:
        if "TP1" not in r["gpu"] and "single GPU" not in r["gpu"] and r["batch"] is None:
            return None, spec, exact, gpu
        n, m = lengths(r["input"])
        if n is None:
            mm = re.search(r"input (\d+) tok", r["input"])
            if not mm:
                return None, spec, exact, gpu
            n, m = int(mm.group(1)), 1
        common += ["--runtime", "tensorrt", "--input-tokens", str(n), "--output-tokens", str(m)]
        if r["batch"] is not None:
            j = run(dippm, ["sweep", "zoo:" + spec, "--batch", str(r["batch"])] + common, teacher)
            row = j["rows"][0]
            if r["throughput_per_s"] and m > 1:
                out.append(("tokens/s", r["throughput_per_s"], row["output_tokens_per_s"]))
            if r["latency_ms"] and ("1st-token" in r["input"] or "first token" in r["input"]):
                out.append(("ttft_ms", r["latency_ms"], row["ttft_ms"]))
        elif r["throughput_per_s"]:
            j = run(dippm, ["predict", "zoo:" + spec] + common, teacher)
            out.append(("max tokens/s", r["throughput_per_s"],
                        j["generation"]["max_output_tokens_per_s"]))
    elif "ML.ENERGY" in fw and "vLLM" in fw:
        mm = re.search(r"avg output (\d+) tokens", r["input"])
        if not mm or r["batch"] is None:
            return None, spec, exact, gpu
        common += ["--runtime", "vllm", "--input-tokens", str(ML_ENERGY_PROMPT),
                   "--output-tokens", mm.group(1)]
        j = run(dippm, ["sweep", "zoo:" + spec, "--batch", str(r["batch"])] + common, teacher)
        row = j["rows"][0]
        if r["latency_ms"]:
            out.append(("itl_ms", r["latency_ms"], row["tpot_ms"]))
        if r["energy_j"]:
            out.append(("J/token", r["energy_j"], row["energy_j_per_output_token"]))
    else:
        return None, spec, exact, gpu
    return out, spec, exact, gpu


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        sys.exit(__doc__)
    path = args[0]
    dippm = "build/dippm"
    teacher = "--teacher" in args
    if "--dippm" in args:
        dippm = args[args.index("--dippm") + 1]
    groups = defaultdict(list)
    skipped = defaultdict(int)
    for r in rows_of(path):
        fw = r["framework"]
        if "TensorRT-LLM" not in fw and not ("ML.ENERGY" in fw and "vLLM" in fw):
            continue
        try:
            res, spec, exact, gpu = compare(r, dippm, teacher)
        except RuntimeError as e:
            print("ERROR %s on %s: %s" % (r["model"], r["gpu"][:20], e))
            skipped["error"] += 1
            continue
        if res is None:
            skipped[r["model"][:40]] += 1
            continue
        for metric, pub, pred in res:
            err = (pred - pub) / pub * 100
            print("%-34s %-15s %-5s b=%-5s %-28s %-12s pub %10.2f pred %10.2f %+7.1f%%%s" % (
                r["model"][:34], gpu, r["precision"][:5], r["batch"], r["input"][:28], metric,
                pub, pred, err, "" if exact else " (approx model)"))
            key = (r["model"].split(" (")[0][:34], gpu, metric)
            groups[key].append(abs(err))
    print("\nMAPE per model, GPU and metric (%s):" % ("teacher" if teacher else "GNN"))
    per_metric = defaultdict(list)
    for key in sorted(groups):
        e = groups[key]
        per_metric[key[2]].extend(e)
        print("  %-34s %-15s %-12s %3d rows  MAPE %6.1f%%" % (key[0], key[1], key[2], len(e),
                                                             sum(e) / len(e)))
    print("overall:")
    for metric, e in sorted(per_metric.items()):
        print("  %-12s %3d rows  MAPE %6.1f%%" % (metric, len(e), sum(e) / len(e)))
    if skipped:
        print("skipped rows (no template mapping, multi-GPU, or no lengths): %d" %
              sum(skipped.values()))


if __name__ == "__main__":
    main()
