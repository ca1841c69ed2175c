#!/usr/bin/env python3
"""accuracy_tables.py - writes the accuracy tables of README.md and
weights/README.md, and weights/accuracy.tsv (the figures the explorer's
About screen shows: the summary, the fine-tuning and calibration.md's goals
tables, one line per figure), from the files the commands that measure
accuracy write, so that no figure in them is a hand copy.

Sources (all committed, all written by a dippm command):
  weights/dippm-gnn.neusight.json      `make weights-neusight`: the shipped GNN
                                       and the teacher on NeuSight's 40 rows
  weights/dippm-gnn.neusight.rows.csv  the same run, row by row
  tests/data/neusight/baselines.tsv    NeuSight's paper: its own, a roofline's
                                       and Habitat's error on the same rows
  weights/kernels.md                   `make weights-neusight`: the kernels
  weights/calibration.md               `dippm calibrate`: the published rows,
                                       one model and one source family left out
  weights/dippm-gnn.neusight-lomo.json `make weights-measured`: the GNN
  weights/dippm-gnn.lomo.json          fine-tuned on measured rows, each model
                                       left out in turn, beside the teacher
  weights/dippm-gnn.eval.json          `make weights`: the shipped GNN on its
  weights/dippm-gnn.lofo.json          teacher labels (random split, each zoo
                                       family left out, the ordering grid)

Each table sits between `<!-- accuracy:NAME -->` and `<!-- /accuracy:NAME -->`
in its file. MAPE intervals are the percentile bootstrap of src/util/stats.c
(the same generator, 400 resamples), so a figure computed here from rows equals
the one dippm prints.

    python3 tools/accuracy_tables.py           # rewrite the tables and accuracy.tsv
    python3 tools/accuracy_tables.py --check   # exit 1 if a committed one differs
    (--top=DIR: the source tree to read and write, default this script's)

Standard library only.
"""
import csv
import json
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESAMPLES = 400
MASK = (1 << 64) - 1
GPU_LABELS = [("A100-PCIe-40GB", "A100 PCIe 40 GB"), ("H100-SXM5-80GB", "H100 SXM"),
              ("L4", "L4"), ("T4", "T4"), ("V100-PCIe-32GB", "V100 PCIe 32 GB")]


def mean_ci95(x):
    """stats_mean_ci95 of src/util/stats.c: mean, and the 2.5th and 97.5th
    percentiles of 400 bootstrap means drawn with its xorshift64."""
    n = len(x)
    if n == 0:
        return None
    mean = sum(x) / n
    if n < 2:
        return mean, mean, mean
    s = 0x9E3779B97F4A7C15 ^ n
    means = []
    for _ in range(RESAMPLES):
        t = 0.0
        for _ in range(n):
            s ^= (s << 13) & MASK
            s ^= s >> 7
            s ^= (s << 17) & MASK
            t += x[s % n]
        means.append(t / n)
    means.sort()
    return mean, means[RESAMPLES // 40], means[RESAMPLES - 1 - RESAMPLES // 40]


def fmt(ci):
    return "-" if ci is None else "%.1f%% [%.1f, %.1f]" % ci


def read(path):
    with open(os.path.join(TOP, path), encoding="utf-8") as f:
        return f.read()


def neusight_rows():
    """[(gpu, model, batch, dippm APE %, {method: error %})] of the 40 rows."""
    base = {}
    for r in csv.DictReader(read("tests/data/neusight/baselines.tsv").splitlines(),
                            delimiter="\t"):
        base.setdefault((r["gpu"], r["model"], int(r["batch"])), {})[r["method"]] = \
            float(r["error_pct"])
    rows = []
    for r in csv.DictReader(read("weights/dippm-gnn.neusight.rows.csv").splitlines()):
        model = r["family"].split(":", 1)[1]
        key = (r["gpu"], model, int(r["batch"]))
        meas, pred = float(r["latency_ms"]), float(r["pred_latency_ms"])
        if key not in base:
            sys.exit("accuracy_tables: %s batch %s on %s has no row in baselines.tsv" %
                     (model, key[2], key[0]))
        rows.append((key[0], model, key[2], abs(pred - meas) / meas * 100, base[key]))
    return rows


def neusight_json():
    j = json.loads(read("weights/dippm-gnn.neusight.json"))
    out = {}
    for who, key in (("gnn", "test"), ("teacher", "teacher_on_test")):
        lat = j[key]["latency"]
        out[who] = (lat["mape_pct"], lat["mape_ci95_low_pct"], lat["mape_ci95_high_pct"])
    out["n"] = j["test"]["latency"]["n"]
    return out


def kernels_line(group, gpu):
    """(rows, teacher MAPE with its interval) of weights/kernels.md's test split."""
    pat = re.compile(r"^\| test \| %s \| %s \| (\d+) \| ([0-9.]+) \[([0-9.]+), ([0-9.]+)\] \|" %
                     (re.escape(group), re.escape(gpu)), re.M)
    m = pat.search(read("weights/kernels.md"))
    if not m:
        sys.exit("accuracy_tables: weights/kernels.md has no test-split line for %s on %s" %
                 (group, gpu))
    return int(m.group(1)), (float(m.group(2)), float(m.group(3)), float(m.group(4)))


def calib_line(which):
    """(MAPE with its interval, rows) of weights/calibration.md's latency
    line: leave one model out, or one source family out."""
    head = {"model": "Leave-one-model-out MAPE", "family": "Leave-one-source-family-out MAPE"}
    text = read("weights/calibration.md")
    i = text.find(head[which])
    m = re.compile(r"latency_ms ([0-9.]+)% \[([0-9.]+), ([0-9.]+)\] \((\d+) rows\)").search(
        text, i) if i >= 0 else None
    if not m:
        sys.exit("accuracy_tables: weights/calibration.md has no '%s' latency line "
                 "(run dippm calibrate without --no-lomo)" % head[which])
    return (float(m.group(1)), float(m.group(2)), float(m.group(3))), int(m.group(4))


def check_rows(rows, js):
    """The rows reproduce the JSON's figure: the same run, the same method."""
    ci = mean_ci95([r[3] for r in rows])
    if len(rows) != js["n"] or any(abs(a - b) > 0.01 for a, b in zip(ci, js["gnn"])):
        sys.exit("accuracy_tables: weights/dippm-gnn.neusight.rows.csv (%d rows, %.3f%%) does "
                 "not match weights/dippm-gnn.neusight.json (%d rows, %.3f%%): regenerate both "
                 "with make weights-neusight" % (len(rows), ci[0], js["n"], js["gnn"][0]))


def summary_figures(rows, js):
    """[(label, rows, {method: MAPE with its interval})] of the summary table."""
    sub = [r for r in rows if r[0] in ("A100-PCIe-40GB", "H100-SXM5-80GB")]
    nrows, kci = kernels_line("all", "all")
    losfo, n_losfo = calib_line("family")
    lomo, n_lomo = calib_line("model")
    base = lambda rs: {"NeuSight": mean_ci95([r[4]["NeuSight"] for r in rs]),
                       "roofline": mean_ci95([r[4]["Roofline"] for r in rs])}
    return [
        ("published rows, each **source family** left out of the fit", n_losfo,
         {"dippm": losfo}),
        ("published rows, each model left out of the fit", n_lomo, {"dippm": lomo}),
        ("NeuSight's end-to-end benchmark (5 transformers, eager FP32, 5 GPUs)", len(rows),
         dict({"dippm": js["gnn"]}, **base(rows))),
        ("the same, A100 PCIe and H100 only", len(sub),
         dict({"dippm": mean_ci95([r[3] for r in sub])}, **base(sub))),
        ("NeuSight's single kernels, test split (A100, H100, L4, T4, V100)", nrows,
         {"dippm": kci}),
    ]


def summary_table(figs):
    lines = [
        "| measurements no fit used (MAPE, bootstrap 95% interval) | rows | dippm | "
        "NeuSight | roofline |",
        "|---|---|---|---|---|",
    ]
    for label, n, f in figs:
        lines.append("| %s | %s | %s | %s | %s |" % (
            label, "{:,}".format(n), fmt(f["dippm"]), fmt(f.get("NeuSight")),
            fmt(f.get("roofline"))))
    return "\n".join(lines)


def per_gpu_table(rows):
    lines = ["| GPU | rows | dippm | NeuSight | roofline | kernels, test split (matmul) |",
             "|---|---|---|---|---|---|"]
    kgpu = {"A100-PCIe-40GB": "A100-PCIe-40GB", "H100-SXM5-80GB": "H100-SXM5-80GB",
            "L4": "L4-PCIe-24GB", "T4": "T4-PCIe-16GB", "V100-PCIe-32GB": "V100-PCIe-32GB"}
    for gpu, label in GPU_LABELS:
        rs = [r for r in rows if r[0] == gpu]
        _, kci = kernels_line("matmul", kgpu[gpu])
        lines.append("| %s | %d | %s | %s | %s | %s |" % (
            label, len(rs), fmt(mean_ci95([r[3] for r in rs])),
            fmt(mean_ci95([r[4]["NeuSight"] for r in rs])),
            fmt(mean_ci95([r[4]["Roofline"] for r in rs])), fmt(kci)))
    return "\n".join(lines)


def lat_ci(block):
    lat = block["latency"]
    return lat["n"], (lat["mape_pct"], lat["mape_ci95_low_pct"], lat["mape_ci95_high_pct"])


def finetune_figures():
    """[(label, rows, {"fine-tuned GNN": .., "teacher": ..})], each model
    held out in turn: NeuSight's five pooled and one by one, then every
    measured model pooled."""
    figs = []
    for path, what in (("weights/dippm-gnn.neusight-lomo.json", "NeuSight's five models"),
                       ("weights/dippm-gnn.lomo.json", "every measured model")):
        lomo = json.loads(read(path))["leave_one_model_out"]
        n, gnn = lat_ci(lomo["pooled_gnn"])
        _, teacher = lat_ci(lomo["pooled_teacher"])
        figs.append(("%s (`%s`)" % (what, path), n, {"fine-tuned GNN": gnn, "teacher": teacher}))
        if "neusight" not in path:
            continue
        for m in lomo["models"]:
            n, gnn = lat_ci(m["gnn"])
            _, teacher = lat_ci(m["teacher"])
            figs.append((m["model"], n, {"fine-tuned GNN": gnn, "teacher": teacher}))
    return figs


def finetune_table(figs):
    lines = ["| held out in turn | rows | fine-tuned GNN | teacher |", "|---|---|---|---|"]
    for label, n, f in figs:
        lines.append("| %s | %d | %s | %s |" % (label, n, fmt(f["fine-tuned GNN"]),
                                                 fmt(f["teacher"])))
    return "\n".join(lines)


def goal_figures():
    """[(label, rows, {"in-sample": MAPE, "LOMO": MAPE}, goal %)] of
    weights/calibration.md's goals table (`dippm calibrate` writes it;
    "met" there is LOMO <= goal, checked here on the printed figures)."""
    text = read("weights/calibration.md")
    i = text.find("\n## Goals")
    j = text.find("\n## ", i + 1)
    pat = re.compile(r"^\| ([^|]+) \| (\d+) \| (-|[0-9.]+%) \| (-|[0-9.]+%) \| "
                     r"<= ([0-9.]+)% \| (yes|\*\*no\*\*|-) \|$", re.M)
    figs = []
    for m in pat.finditer(text, i, j) if i >= 0 else []:
        pct = lambda c: None if c == "-" else (float(c[:-1]), None, None)
        f = {"in-sample": pct(m.group(3)), "LOMO": pct(m.group(4))}
        goal = float(m.group(5))
        met = f["LOMO"] is not None and f["LOMO"][0] <= goal
        if m.group(6) != "-" and met != (m.group(6) == "yes"):
            sys.exit("accuracy_tables: weights/calibration.md's goals row '%s' says met %s, "
                     "its printed figures do not" % (m.group(1), m.group(6)))
        figs.append((m.group(1), int(m.group(2)), f, goal))
    if not figs:
        sys.exit("accuracy_tables: weights/calibration.md has no goals table")
    return figs


def num(x):
    return "-" if x is None else "%.1f" % x


def tsv(tables):
    """weights/accuracy.tsv: every figure the explorer's About screen shows,
    one line each (ui/screen_about.c reads it)."""
    out = ["# weights/accuracy.tsv: the accuracy figures of the explorer's About screen,",
           "# written by tools/accuracy_tables.py with the tables of weights/README.md",
           "# (same figures); do not edit. MAPE, low, high and goal in percent;",
           "# low and high are the bootstrap 95% interval ('-': none); goal: the",
           "# calibration goal the figure is held to ('-': none).",
           "table\tlabel\tmethod\trows\tmape\tlow\thigh\tgoal"]
    for name, figs in tables:
        for fig in figs:
            label, n, f = fig[:3]
            goal = fig[3] if len(fig) > 3 else None
            for method, ci in f.items():
                if ci is None:
                    continue
                out.append("\t".join([name, label.replace("**", "").replace("`", ""), method,
                                      str(n), num(ci[0]), num(ci[1]), num(ci[2]),
                                      num(goal if method == "LOMO" else None)]))
    return "\n".join(out) + "\n"


def cell(m):
    return "%.2f / %.2f / %.1f" % (m["mape_pct"], m["median_ape_pct"], m["within_10pct"])


def labels_table():
    ev = json.loads(read("weights/dippm-gnn.eval.json"))
    lofo = json.loads(read("weights/dippm-gnn.lofo.json"))["leave_one_family_out"]
    targets = ("latency", "energy", "memory")
    n = ev["test"]["latency"]["n"]
    lines = ["| split | latency | energy | memory |", "|---|---|---|---|",
             "| (a) random test split, %d rows: GNN | %s |" %
             (n, " | ".join(cell(ev["test"][t]) for t in targets)),
             "| (a) same rows: teacher alone | %s |" %
             " | ".join(cell(ev["teacher_on_test"][t]) for t in targets)]
    for f in lofo["families"]:
        lines.append("| (b) without %s (%d test rows) | %s |" % (
            f["family"], f["test_rows"], " | ".join(cell(f["metrics"][t]) for t in targets)))
    lines += ["", "Orderings over %d zoo graphs, violations beyond %g%%:" %
              (ev["orderings"]["graphs"], ev["orderings"]["tolerance_pct"]), "",
              "| property | pairs | GNN violations (worst) | teacher violations (worst) |",
              "|---|---|---|---|"]
    for k, o in ev["orderings"].items():
        if isinstance(o, dict):
            lines.append("| %s: %s | %d | %d (%.2f%%) | %d (%.2f%%) |" % (
                k, o["property"], o["pairs"], o["gnn_violations"], o["gnn_worst_pct"],
                o["teacher_violations"], o["teacher_worst_pct"]))
    return "\n".join(lines)


def replace(text, name, table, path):
    begin, end = "<!-- accuracy:%s -->" % name, "<!-- /accuracy:%s -->" % name
    i, j = text.find(begin), text.find(end)
    if i < 0 or j < i:
        sys.exit("accuracy_tables: %s lacks the markers %s ... %s" % (path, begin, end))
    return text[:i + len(begin)] + "\n" + table + "\n" + text[j:]


def main():
    global TOP
    args = sys.argv[1:]
    for a in [a for a in args if a.startswith("--top=")]:
        TOP = a[len("--top="):]
        args.remove(a)
    check = args == ["--check"]
    if args and not check:
        sys.exit("usage: accuracy_tables.py [--top=DIR] [--check]")
    rows, js = neusight_rows(), neusight_json()
    check_rows(rows, js)
    summary, finetune = summary_figures(rows, js), finetune_figures()
    tables = {"summary": summary_table(summary), "per-gpu": per_gpu_table(rows),
              "finetune": finetune_table(finetune), "labels": labels_table()}
    targets = {"README.md": ["summary"],
               "weights/README.md": ["summary", "per-gpu", "finetune", "labels"],
               "weights/accuracy.tsv": None}
    figures = tsv([("measured", summary), ("finetune", finetune), ("goals", goal_figures())])
    stale = []
    for path, names in targets.items():
        old = read(path) if names or os.path.exists(os.path.join(TOP, path)) else ""
        new = old
        for name in names or []:
            new = replace(new, name, tables[name], path)
        if names is None:
            new = figures
        if new == old:
            continue
        if check:
            stale.append(path)
        else:
            tmp = os.path.join(TOP, path + ".tmp")
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(new)
            os.replace(tmp, os.path.join(TOP, path))
            print("accuracy_tables: rewrote %s" % path)
    if stale:
        sys.exit("accuracy_tables: the accuracy figures of %s differ from the measurement "
                 "files; run python3 tools/accuracy_tables.py" % ", ".join(stale))


if __name__ == "__main__":
    main()
