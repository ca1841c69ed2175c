#!/usr/bin/env python3
"""Import NeuSight's published GPU measurements into dippm test data.

NeuSight (Lee et al., ASPLOS 2025, MIT licence) ships, in its artifact
repository, single-kernel latencies measured with PyTorch 2.1 on several
NVIDIA GPUs, end-to-end latencies of whole transformer models, per-node
torch.fx traces of those models and the error table of its paper.  This
tool reads a NeuSight git repository (a bare mirror read through `git show`,
or a checked-out work tree read from disk) and writes small tab-separated
tables that dippm's C tests and calibration can read:

  kernels.tsv    one measured kernel per line (bmm, linear, elementwise,
                 layernorm, softmax, conv), NeuSight's train/test split
  models.tsv     one end-to-end measurement per label json
  models.jsonl   the single-GPU eager inference rows of models.tsv as dippm
                 dataset rows (zoo spec from NeuSight's model config)
  ops.tsv        the per-node fx traces of the inference runs, summarised
                 per (model, gpu, batch, seq, op kind, target)
  baselines.tsv  the paper's inference error table (Roofline, Habitat,
                 Li et al., NeuSight)
  README.md      provenance, units, timing method, sampling, row counts
  LICENSE.NeuSight  NeuSight's licence text

Python 3 standard library only.  The output directory is built in a
temporary directory and moved into place with os.replace; an existing,
non-empty output directory is only overwritten with --force.

Example:
  /usr/bin/python3 tools/neusight_import.py ../NeuSight -o tests/data/neusight --force
"""

import argparse
import csv
import hashlib
import io
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from decimal import Decimal

# NeuSight's device strings (torch.cuda.get_device_name()) -> dippm GPU table
# names (src/core/gpu.c).  Every other device (Tesla P100, Tesla P4, AMD
# Instinct) has no entry in dippm's table and is dropped and counted.
GPU_MAP = {
    "NVIDIA A100-PCIE-40GB": "A100-PCIe-40GB",
    "NVIDIA A100 80GB PCIe": "A100-PCIe-80GB",
    "NVIDIA A100-SXM4-40GB": "A100-SXM4-40GB",
    "NVIDIA H100 80GB HBM3": "H100-SXM5-80GB",
    "NVIDIA L4": "L4",
    "Tesla T4": "T4",
    "Tesla V100-PCIE-32GB": "V100-PCIe-32GB",
}

# NeuSight's OPName (neusight/Dataset/collect.py) -> dippm name.
# The "u" suffix is a unary form: the op applied between the tensor and a
# Python float scalar (collect.py: "addu": lambda x: torch.add(x, randn)).
OP_MAP = {
    "bmm": "bmm",
    "linear": "linear",
    "add": "add",
    "addu": "add_scalar",
    "mul": "mul",
    "mulu": "mul_scalar",
    "div": "div",
    "divu": "div_scalar",
    "pow": "pow",
    "powu": "pow_scalar",
    "gelu": "gelu",
    "relu": "relu",
    "tanh": "tanh",
    "ln": "layernorm",
    "softmax": "softmax",
    "dropout": "dropout",
    "conv": "conv",
}

# Column heads of the paper's error table (scripts/asplos/summary/*.csv)
# -> the model names used in the label file names.
SUMMARY_MODEL_MAP = {
    "BERT-Large": "bert_large",
    "GPT2-Large": "gpt2_large",
    "GPT3-XL": "gpt3_xl",
    "OPT-1.3B": "opt_13",
    "GPT3-2.7B": "gpt3_27",
    "SwitchTrans": "switchxl4",
}
SUMMARY_METHOD_MAP = {
    "Roofline": "Roofline",
    "Habitat": "Habitat",
    "Li et al.": "Li",
    "NeuSight": "NeuSight",
}

KERNEL_HEADER = ["split", "gpu", "op", "b", "m", "n", "k", "latency_us",
                 "kernel", "grid", "conv"]
MODELS_HEADER = ["model", "gpu", "batch", "seq", "mode", "compiled",
                 "latency_ms", "source_file", "parallel", "num_layer",
                 "fw_ms", "bwall_ms"]
OPS_HEADER = ["model", "gpu", "batch", "seq", "op_kind", "target_short",
              "count", "total_ms", "min_ms", "median_ms"]
BASELINES_HEADER = ["gpu", "model", "batch", "method", "error_pct"]

DATASET_DIRS = ("scripts/asplos/data/dataset", "scripts/asplos/data/dataset_amd")
LABEL_DIR = "scripts/asplos/label"
SUMMARY_INF = "scripts/asplos/summary/nvidia_inf.csv"
DEFAULT_MAX_BYTES = 14_900_000    # under 15 MB however it is counted
OUTPUT_FILES = ("kernels.tsv", "models.tsv", "models.jsonl", "ops.tsv", "baselines.tsv",
                "README.md", "LICENSE.NeuSight")
CONFIG_DIR = "scripts/asplos/data/DLmodel_configs"

csv.field_size_limit(1 << 30)


class ImportError_(Exception):
    """A fatal problem with the input or the output directory."""


# ---------------------------------------------------------------- sources
class GitSource:
    """Files of one commit of a (bare or non-bare) git repository."""

    kind = "git"

    def __init__(self, path, rev):
        self.path = path
        self.commit = self._git("rev-parse", "--verify", rev + "^{commit}").strip()
        self.missing = []

    def _git(self, *args, check=True):
        p = subprocess.run(["git", "-C", self.path] + list(args),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if check and p.returncode != 0:
            raise ImportError_("git %s failed in %s: %s" % (
                " ".join(args), self.path, p.stderr.decode("utf-8", "replace").strip()))
        return p.stdout.decode("utf-8", "replace")

    def list_files(self, prefix):
        out = subprocess.run(
            ["git", "-C", self.path, "ls-tree", "-r", "-z", "--name-only",
             self.commit, "--", prefix],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if out.returncode != 0:
            return []
        names = out.stdout.decode("utf-8", "replace").split("\0")
        return sorted(n for n in names if n)

    def read(self, relpath):
        """The file's text, or None where the blob is absent (a partial
        mirror keeps some large blobs out)."""
        p = subprocess.run(["git", "-C", self.path, "show",
                            "%s:%s" % (self.commit, relpath)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if p.returncode != 0:
            self.missing.append(relpath)
            return None
        return p.stdout.decode("utf-8", "replace")

    def describe(self):
        return "git commit %s (read with git show)" % self.commit


class TreeSource:
    """Files of a checked-out NeuSight work tree."""

    kind = "tree"

    def __init__(self, path):
        self.path = path
        self.missing = []
        self.commit = None
        p = subprocess.run(["git", "-C", path, "rev-parse", "--verify", "HEAD^{commit}"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if p.returncode == 0:
            self.commit = p.stdout.decode().strip()
            d = subprocess.run(["git", "-C", path, "status", "--porcelain", "--", "."],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            self.dirty = bool(d.stdout.strip())
        else:
            self.dirty = None

    def list_files(self, prefix):
        base = os.path.join(self.path, prefix)
        found = []
        for root, dirs, files in os.walk(base):
            dirs[:] = [d for d in dirs if d != ".git"]
            for f in files:
                rel = os.path.relpath(os.path.join(root, f), self.path)
                found.append(rel.replace(os.sep, "/"))
        return sorted(found)

    def read(self, relpath):
        try:
            with open(os.path.join(self.path, relpath), "rb") as f:
                return f.read().decode("utf-8", "replace")
        except OSError:
            self.missing.append(relpath)
            return None

    def describe(self):
        if self.commit is None:
            return "checked-out tree (not a git work tree: commit unknown)"
        return "git commit %s (checked-out work tree%s)" % (
            self.commit, ", with local changes" if self.dirty else "")


def open_source(path, mode, rev):
    if not os.path.isdir(path):
        raise ImportError_("NeuSight repository not found: %s" % path)
    if mode == "auto":
        mode = "tree" if os.path.isdir(os.path.join(path, "scripts", "asplos")) else "git"
    if mode == "tree":
        if rev != "HEAD":
            raise ImportError_("--rev needs --source git (a work tree is read as checked out)")
        return TreeSource(path)
    return GitSource(path, rev)


# ---------------------------------------------------------------- helpers
def fmt_sig(x, digits):
    """x rounded to `digits` significant digits, plain decimal notation."""
    if x == 0:
        return "0"
    d = Decimal(format(x, ".%dg" % digits))
    s = format(d, "f")
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return s


def to_int(s):
    return int(round(float(s)))


_ANON = "(anonymous namespace)::"


def short_kernel(name):
    """The kernel's template head: 'void at::native::vectorized_elementwise_kernel<4, ...>(...)'
    -> 'vectorized_elementwise_kernel'; 'void cutlass::Kernel<cutlass_80_simt_sgemm_...>(...)'
    -> the cutlass configuration name; cuBLAS names are kept as they are."""
    s = name.strip().replace(_ANON, "")
    if s.startswith("void "):
        s = s[5:]
    cut = len(s)
    for ch in "<(":
        i = s.find(ch)
        if i >= 0:
            cut = min(cut, i)
    head = s[:cut].split("::")[-1].strip()
    if head in ("Kernel", "Kernel2", "kernel") and cut < len(s) and s[cut] == "<":
        inner = re.split(r"[,<>()]", s[cut + 1:], maxsplit=1)[0]
        head = inner.split("::")[-1].strip() or head
    head = re.sub(r"[\s,]+", "_", head)
    return head or "unknown"


def row_hash(line):
    return hashlib.sha256(line.encode("utf-8")).hexdigest()


# ---------------------------------------------------------------- kernels
def kernel_dims(op, row):
    """(b, m, n, k, conv) in dippm's convention from a NeuSight row; op is
    shape_kind(row).

    bmm:    collect.py builds torch.bmm(randn(B,M,N), randn(B,N,K)), so N is
            the inner dimension: b=B, m=M (rows), n=K (cols), k=N (inner).
    linear: collect.py builds torch.nn.Linear(N, K) applied to randn(B,M,N):
            in_features=N, out_features=K: b=B, m=M (rows of the input per
            batch entry), n=K (out features), k=N (in features).
    vector ops: a B x H tensor (H the innermost, normalised dimension for
            layernorm/softmax): b=B (rows), m=H (columns), n=k=1.
    conv:   Conv2d(ic, oc, ks, stride, padding, bias=False) on a
            B x ic x hw x hw input, written as its implicit GEMM:
            b=B, m=ho*wo (output pixels per image), n=oc, k=ic*ks*ks; the
            raw shape goes to the conv column as ic,oc,ks,hw,stride,pad.
    """
    if op == "gemm":
        B, M, N, K = (to_int(row[c]) for c in ("B", "M", "N", "K"))
        return B, M, K, N, "-"
    if op == "conv":
        B = to_int(row["B"])
        ic = to_int(row["Input_Channel"])
        oc = to_int(row["Output_Channel"])
        ks = to_int(row.get("Kernel_Szie", row.get("Kernel_Size", 0)))
        hw = to_int(row["Input_Size"])
        st = to_int(row["Stride"])
        pad = to_int(row["Padding"])
        ho = (hw + 2 * pad - ks) // st + 1
        return B, ho * ho, oc, ic * ks * ks, "%d,%d,%d,%d,%d,%d" % (ic, oc, ks, hw, st, pad)
    B, H = to_int(row["B"]), to_int(row["H"])
    return B, H, 1, 1, "-"


def shape_kind(row):
    """gemm (B,M,N,K columns), conv (Input_Channel, ...) or vec (B,H)."""
    if (row.get("M") or "").strip():
        return "gemm"
    if (row.get("Input_Channel") or "").strip():
        return "conv"
    return "vec"


def dedup_key(split, row, kind):
    if kind == "gemm":
        dims = tuple(row.get(c, "") for c in ("B", "M", "N", "K"))
    elif kind == "conv":
        dims = tuple(row.get(c, "") for c in ("B", "Input_Channel", "Output_Channel",
                                              "Kernel_Szie", "Input_Size", "Stride", "Padding"))
    else:
        dims = (row.get("B", ""), row.get("H", ""))
    try:
        dims = tuple(to_int(d) for d in dims)
        lat = float(row["Latency"])
        grid = tuple(to_int(row[c]) for c in ("Grid x", "Grid y", "Grid z",
                                                "Block x", "Block y", "Block z"))
    except (ValueError, KeyError, TypeError):
        return None
    return (split, row["Device"].strip(), row["OPName"].strip(), dims,
            row.get("Kernel Name", "").strip(), grid), lat


def is_duplicate(seen, key, lat):
    """True when a row with the same key and the same latency was seen.
    Latencies are compared to a relative 1e-9: the merged CSVs were
    rewritten by pandas with 15 significant digits, the per-GPU CSVs hold
    17, so one measurement can be spelled two ways."""
    lats = seen.setdefault(key, [])
    for v in lats:
        if abs(v - lat) <= 1e-9 * max(abs(v), abs(lat)):
            return True
    lats.append(lat)
    return False


def read_kernels(src, log):
    """All kernel rows: returns (kept rows, stats)."""
    seen = {}
    rows = []
    st = {
        "files": [], "raw": 0, "dups": 0, "bad": 0,
        "dropped": Counter(),            # (split, device) -> rows
        "unknown_ops": Counter(),
    }
    for base in DATASET_DIRS:
        for path in src.list_files(base):
            if not path.endswith(".csv"):
                continue
            parts = path[len(base) + 1:].split("/")
            split = parts[0]
            if split not in ("train", "test"):
                continue            # dims/: generated shapes, no latency
            text = src.read(path)
            if text is None:
                continue
            rd = csv.DictReader(io.StringIO(text))
            if not rd.fieldnames or "Latency" not in rd.fieldnames or "OPName" not in rd.fieldnames:
                continue
            n = 0
            for row in rd:
                n += 1
                opname = (row.get("OPName") or "").strip()
                kind = shape_kind(row)
                keylat = dedup_key(split, row, kind)
                if keylat is None:
                    st["bad"] += 1
                    continue
                key, lat = keylat
                if is_duplicate(seen, key, lat):
                    st["dups"] += 1
                    continue
                device = key[1]
                gpu = GPU_MAP.get(device)
                if gpu is None:
                    st["dropped"][(split, device)] += 1
                    continue
                op = OP_MAP.get(opname)
                if op is None:
                    op = re.sub(r"\W+", "_", opname.lower()) or "unknown"
                    st["unknown_ops"][opname] += 1
                try:
                    b, m, nn, k, conv = kernel_dims(kind, row)
                    lat_us = lat * 1000.0
                except (ValueError, KeyError, TypeError):
                    st["bad"] += 1
                    continue
                if not (lat_us > 0):
                    st["bad"] += 1
                    continue
                gx, gy, gz, bx, by, bz = key[5]
                fields = [split, gpu, op, str(b), str(m), str(nn), str(k),
                          fmt_sig(lat_us, 4), short_kernel(row.get("Kernel Name", "")),
                          "%d,%d,%d/%d,%d,%d" % (gx, gy, gz, bx, by, bz), conv]
                rows.append(fields)
            st["raw"] += n
            st["files"].append((path, n))
    return rows, st


def sample_train(rows, budget_bytes):
    """Keep every test row; keep, per (gpu, op) of the train split, the rows
    with the smallest sha256 of their output line, the same cap for every
    group, the largest cap whose rows fit budget_bytes."""
    test = [r for r in rows if r[0] == "test"]
    groups = defaultdict(list)
    for r in rows:
        if r[0] == "train":
            line = "\t".join(r) + "\n"
            groups[(r[1], r[2])].append((row_hash(line), len(line.encode("utf-8")), r))
    for g in groups.values():
        g.sort(key=lambda t: (t[0], t[2]))
    test_bytes = sum(len(("\t".join(r) + "\n").encode("utf-8")) for r in test)
    avail = budget_bytes - test_bytes
    if avail < 0:
        raise ImportError_("the test split alone (%d bytes) exceeds the size budget" % test_bytes)
    prefix = {key: [0] for key in groups}
    for key, g in groups.items():
        acc = 0
        for _, size, _ in g:
            acc += size
            prefix[key].append(acc)

    def cost(cap):
        return sum(p[min(cap, len(p) - 1)] for p in prefix.values())

    hi = max((len(g) for g in groups.values()), default=0)
    if cost(hi) <= avail:
        cap = hi
    else:
        lo = 0
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if cost(mid) <= avail:
                lo = mid
            else:
                hi = mid - 1
        cap = lo
    kept = list(test)
    for g in groups.values():
        kept.extend(t[2] for t in g[:cap])
    return kept, cap


def kernel_sort_key(r):
    return (0 if r[0] == "train" else 1, r[1], r[2], int(r[3]), int(r[4]), int(r[5]),
            int(r[6]), float(r[7]), r[8], r[9], r[10])


# ---------------------------------------------------------------- labels
LABEL_RE = re.compile(r"^(?P<model>.+?)-(?P<mode>inf|train)-(?P<seq>\d+)-(?P<batch>\d+)"
                      r"(?:-(?P<suffix>.+))?\.(?P<ext>json|csv)$")


def parse_label_path(path):
    parts = path.split("/")
    if len(parts) < 2:
        return None
    m = LABEL_RE.match(parts[-1])
    if not m:
        return None
    device = parts[-2].replace("_", " ")
    return device, m.groupdict()


def read_models(src, log):
    out = []
    st = {"dropped": Counter(), "skipped": []}
    for path in src.list_files(LABEL_DIR):
        if not path.endswith(".json"):
            continue
        parsed = parse_label_path(path)
        if parsed is None:
            st["skipped"].append(path)
            continue
        device, g = parsed
        gpu = GPU_MAP.get(device)
        if gpu is None:
            st["dropped"][device] += 1
            continue
        text = src.read(path)
        if text is None:
            st["skipped"].append(path)
            continue
        try:
            js = json.loads(text)
            e2e = float(js["e2e_latency"])
        except (ValueError, KeyError, TypeError):
            st["skipped"].append(path)
            continue
        suffix = g["suffix"] or ""
        compiled = 1 if suffix == "fusion" else 0
        parallel = "-" if suffix in ("", "fusion") else suffix
        fw = float(js.get("fw_latency", 0) or 0)
        bw = float(js.get("bwall_latency", 0) or 0)
        out.append([g["model"], gpu, str(int(g["batch"])), str(int(g["seq"])), g["mode"],
                    str(compiled), fmt_sig(e2e, 6), path, parallel,
                    str(int(js.get("num_layer", 0) or 0)),
                    fmt_sig(fw, 6) if fw > 0 else "-", fmt_sig(bw, 6) if bw > 0 else "-"])
    out.sort(key=lambda r: (r[0], r[1], r[4], int(r[3]), int(r[2]), r[5], r[8]))
    return out, st


_STACK_RE = re.compile(r"\('([^']*)', <class '([^']+)'>\)")


def short_target(op, target, meta):
    if op == "call_module":
        pairs = _STACK_RE.findall(meta or "")
        for p, cls in pairs:
            if p == target:
                return cls.rsplit(".", 1)[-1]
        if pairs:
            return pairs[-1][1].rsplit(".", 1)[-1]
        return target.rsplit(".", 1)[-1]
    if op == "call_function":
        m = (re.match(r"<built-in (?:function|method) (\w+)", target)
             or re.match(r"<function (?:[\w.]+\.)?(\w+)", target)
             or re.match(r"<class '([\w.]+)'>", target))
        if m:
            return m.group(1).rsplit(".", 1)[-1]
        return re.sub(r"\W+", "_", target).strip("_") or "unknown"
    return re.sub(r"\W+", "_", target).strip("_") or "unknown"


def read_ops(src, log, e2e_index):
    agg = defaultdict(list)
    st = {"traces": [], "skipped_nodes": Counter(), "skipped_nonzero": 0,
          "missing": [], "dropped": Counter()}
    for path in src.list_files(LABEL_DIR):
        if not path.endswith(".csv"):
            continue
        parsed = parse_label_path(path)
        if parsed is None:
            continue
        device, g = parsed
        if g["mode"] != "inf" or g["suffix"]:
            continue
        gpu = GPU_MAP.get(device)
        if gpu is None:
            st["dropped"][device] += 1
            continue
        text = src.read(path)
        if text is None:
            st["missing"].append(path)
            continue
        rd = csv.DictReader(io.StringIO(text))
        col = next((c for c in ("latency", "e2e_latency", "fw_latency")
                    if rd.fieldnames and c in rd.fieldnames), None)
        if col is None:
            log("warning: %s has no latency column; skipped" % path)
            st["missing"].append(path)
            continue
        key0 = (g["model"], gpu, int(g["batch"]), int(g["seq"]))
        nodes = 0
        total = 0.0
        for row in rd:
            op = row.get("op", "")
            try:
                lat = float(row.get(col) or 0)
            except ValueError:
                lat = 0.0
            if op not in ("call_module", "call_function", "call_method"):
                st["skipped_nodes"][op] += 1
                if lat != 0:
                    st["skipped_nonzero"] += 1
                continue
            nodes += 1
            total += lat
            agg[key0 + (op, short_target(op, row.get("target", ""), row.get("meta", "")))].append(lat)
        st["traces"].append((key0, path, nodes, total, e2e_index.get(key0)))
    out = []
    for key in sorted(agg):
        v = agg[key]
        out.append([key[0], key[1], str(key[2]), str(key[3]), key[4], key[5], str(len(v)),
                    fmt_sig(sum(v), 5), fmt_sig(min(v), 5), fmt_sig(statistics.median(v), 5)])
    st["traces"].sort()
    return out, st


def read_baselines(src, log):
    st = {"dropped": Counter(), "empty": 0}
    text = src.read(SUMMARY_INF)
    if text is None:
        log("warning: %s is absent from the source; baselines.tsv is empty" % SUMMARY_INF)
        return [], st
    out = []
    device = None
    models = []
    batches = []
    for rec in csv.reader(io.StringIO(text)):
        cells = [c.strip() for c in rec]
        if not any(cells):
            device = None
            continue
        if len([c for c in cells if c]) == 1 and cells[0] and device is None:
            device = cells[0].replace("_", " ")
            models, batches = [], []
            continue
        if cells[0] == "Model":
            cur = ""
            models = []
            for c in cells[1:]:
                cur = c or cur
                models.append(cur)
            continue
        if cells[0] == "Batch":
            batches = cells[1:]
            continue
        if device is None or cells[0] not in SUMMARY_METHOD_MAP:
            continue
        gpu = GPU_MAP.get(device)
        method = SUMMARY_METHOD_MAP[cells[0]]
        for i, v in enumerate(cells[1:]):
            if i >= len(models) or i >= len(batches):
                break
            if not v:
                st["empty"] += 1
                continue
            if gpu is None:
                st["dropped"][device] += 1
                continue
            model = SUMMARY_MODEL_MAP.get(models[i], re.sub(r"\W+", "_", models[i].lower()))
            out.append([gpu, model, batches[i], method, v])
    return out, st


# ---------------------------------------------------------------- writing
def tsv(header, rows):
    buf = io.StringIO()
    buf.write("\t".join(header) + "\n")
    for r in rows:
        buf.write("\t".join(r) + "\n")
    return buf.getvalue()


def copyright_line(license_text):
    for line in license_text.splitlines():
        if line.strip().lower().startswith("copyright"):
            return line.strip()
    return "(no copyright line found)"


def md_table(header, rows):
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---" for _ in header) + "|"]
    for r in rows:
        lines.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(lines)


def build_readme(info):
    src = info["src"]
    L = []
    a = L.append
    a("# NeuSight measurements imported for dippm")
    a("")
    a("Generated by `tools/neusight_import.py`; do not edit by hand (rebuild it, see the end).")
    a("")
    a("## Source and licence")
    a("")
    a("- Repository: NeuSight, the artifact of *NeuSight: Forecasting GPU Performance of Deep "
      "Learning Workloads* (ASPLOS 2025), https://github.com/trsharm25/NeuSight")
    a("- Read from: %s" % src.describe())
    a("- Licence: MIT, `%s`. The full licence text is copied to `LICENSE.NeuSight` "
      "in this directory; it applies to the measurements here, which are derived from the "
      "repository's CSV/JSON files." % info["copyright"])
    if info["missing"]:
        a("- Files the source did not hold (a partial mirror keeps some large blobs out); "
          "they were skipped:")
        for p in info["missing"]:
            a("  - `%s`" % p)
        a("  For the NVIDIA GPUs nothing is lost: the merged train CSVs are built "
          "(`scripts/asplos/run_dataset.py`) from the per-GPU files under "
          "`train/collect/<op>/p2.1.0/`, which are present. The missing switchxl4 traces "
          "are absent from `ops.tsv` (their json stays in `models.tsv`); the AMD counts "
          "below lack the missing AMD files.")
    a("")
    a("## Files")
    a("")
    a("All tables are UTF-8, tab-separated, one header line first, no quoting.")
    a("")
    a("### kernels.tsv: single-kernel latencies")
    a("")
    a("`%s`" % " ".join(KERNEL_HEADER))
    a("")
    a("- `split`: NeuSight's own split: `train` = `scripts/asplos/data/dataset/train/**` "
      "(per-GPU files `train/collect/<op>/p2.1.0/<GPU>.csv` and the merged files built "
      "from them), `test` = `scripts/asplos/data/dataset/test/*.csv`. Identical rows "
      "(same split, device, op, shape, latency, kernel and launch grid) that appear in "
      "several files (the merged CSVs repeat the per-GPU ones with the latency rewritten "
      "to 15 digits, so latencies within a relative 1e-9 count as equal; `test/vec.csv` "
      "and `test/habitat.csv` are the union of `elem.csv`, `ln.csv` and `softmax.csv`) "
      "are written once. A shape NeuSight measured twice (its random shape generator "
      "repeats a few) keeps both measurements, which can print alike after rounding.")
    a("- `gpu`: dippm GPU table name. " + ", ".join(
        "`%s` -> `%s`" % (k, v) for k, v in GPU_MAP.items()) +
      ". Tesla P100, Tesla P4 and AMD rows are dropped (counted below).")
    a("- `op`: `bmm` (torch.bmm), `linear` (torch.nn.Linear, bias=True), `add`/`mul`/`div`/`pow` "
      "(torch.add/mul/div/pow of two B x H tensors of the same shape), `add_scalar`/"
      "`mul_scalar`/`div_scalar`/`pow_scalar` (NeuSight's `addu`/`mulu`/`divu`/`powu`: the op "
      "between a B x H tensor and a Python float in (0, 1], e.g. `torch.pow(x, 0.37)`; PyTorch "
      "runs `div_scalar` as a multiplication by the reciprocal, its kernel is the MulFunctor), "
      "`gelu` (torch.nn.GELU, exact erf form), `relu` (torch.nn.ReLU, a clamp kernel), `tanh`, "
      "`layernorm` (NeuSight's `ln`: torch.nn.LayerNorm(H) over the last dimension), `softmax` "
      "(torch.nn.Softmax() on a 2-D tensor: over dim 1, i.e. over H), `conv` (torch.nn.Conv2d, "
      "bias=False).")
    a("- `b m n k`: dippm's GEMM convention, C[b] (m x n) = A[b] (m x k) * B[b] (k x n):")
    a("  - `bmm`: NeuSight's B,M,N,K build `torch.bmm(randn(B,M,N), randn(B,N,K))`, so "
      "NeuSight's N is the inner dimension: b=B, m=M, n=K, k=N.")
    a("  - `linear`: NeuSight builds `torch.nn.Linear(N, K)` and feeds `randn(B,M,N)`: "
      "in_features=N, out_features=K. Here b=B (1 in every row), m=M (input rows), "
      "n=K (out features), k=N (in features); FLOPs = 2*b*m*n*k. The weight is stored "
      "out x in, hence cuBLAS `_tn` kernels.")
    a("  - element-wise ops, `layernorm`, `softmax`: a B x H fp32 tensor: b=B (rows), "
      "m=H (columns; the normalised dimension of layernorm/softmax), n=k=1. Elements = b*m.")
    a("  - `conv`: its implicit GEMM: b=batch, m=ho*wo (output pixels of one image), "
      "n=out channels, k=in channels*ks*ks, with ho=wo=(hw+2*pad-ks)/stride+1; the raw "
      "shape is in the `conv` column as `ic,oc,ks,hw,stride,pad` (hw = input height = width). "
      "`-` on every other row. Conv rows exist only in the train split (T4, V100, A100-PCIe-80GB).")
    a("- `latency_us`: NeuSight's `Latency` (milliseconds) x 1000, microseconds, rounded to "
      "4 significant digits.")
    a("- `kernel`: the main kernel NeuSight's profiler matched for the op, shortened to its "
      "template head (`void at::native::vectorized_elementwise_kernel<4, ...>(...)` -> "
      "`vectorized_elementwise_kernel`; `cutlass::Kernel<cutlass_80_simt_sgemm_...>` -> "
      "the cutlass configuration; cuBLAS/cuDNN names kept whole). The latency covers every "
      "kernel the op launched (conv may launch several).")
    a("- `grid`: that kernel's launch `gridx,gridy,gridz/blockx,blocky,blockz`.")
    a("")
    a("### models.jsonl: the inference rows as dippm dataset rows")
    a("")
    a("The single-GPU, eager (`compiled` 0) inference rows of models.tsv, one dippm dataset "
      "JSONL row each (label `measured`, family `neusight:<model>`, fp32, runtime pytorch, "
      "`timing` `gpu`: CUDA-event timed, so a reader adds the call cost). The zoo spec is built "
      "from NeuSight's own model config (scripts/asplos/data/DLmodel_configs): BERT as "
      "`zoo:bert` (encoder and pooler: BertForSequenceClassification), GPT-2-style models and "
      "OPT as `zoo:gpt` prefill with the LM head over every position, the MLP activation as the "
      "config's `activation_function` runs in eager PyTorch (`act=gelu-new`: Hugging Face's "
      "gelu_new, eight element-wise kernels; `act=relu` for OPT; OPT's position offset taken "
      "as GPT-2's plain positions: the same gather). Left out, the zoo "
      "having no template for them: %s. dippm never trains on these rows: they are the "
      "end-to-end check (`dippm eval --data tests/data/neusight/models.jsonl --all-rows`)." %
      (", ".join(info["mod_st"].get("no_template", [])) or "none"))
    a("")
    a("### models.tsv: end-to-end latencies")
    a("")
    a("`%s`" % " ".join(MODELS_HEADER))
    a("")
    a("One line per label json `scripts/asplos/label/<GPU>/<model>-<mode>-<seq>-<batch>[-<suffix>].json` "
      "on the GPUs above (P100, P4 and AMD files left out). `latency_ms` is the json's "
      "`e2e_latency` (ms, 6 significant digits): for `inf` one forward pass of the whole "
      "model under torch.no_grad; for `train` forward (`fw_ms`) + backward of the "
      "cross-entropy loss (`bwall_ms`), the loss itself not timed. `compiled` is 1 for the "
      "`-fusion` files (the model wrapped in `torch.compile`, default mode), 0 for eager. "
      "`parallel` is `-` for one GPU, else NeuSight's suffix for its 4-GPU runs (`dp4` data, "
      "`tp4` tensor, `pp4_1` pipeline parallel; only e2e is recorded for those). `num_layer` "
      "is the json's layer count (the number of times the traced layer of `ops.tsv` repeats "
      "in the real model; 0 where NeuSight did not record it: switch models, the parallel "
      "runs and some compiled runs). `source_file` is the json's path in the NeuSight repository. "
      "Models (HF transformers configs in `scripts/asplos/data/DLmodel_configs/`): "
      "bert_large = BertForSequenceClassification, gpt2_large / gpt3_xl / gpt3_27 / opt_13 "
      "= CausalLM with the LM head, switchxl4 / switch4 = SwitchTransformers seq2seq "
      "(input_ids = decoder_input_ids, batch x seq).")
    a("")
    a("### ops.tsv: per-node fx traces of the inference runs")
    a("")
    a("`%s`" % " ".join(OPS_HEADER))
    a("")
    a("From the label CSVs `<model>-inf-<seq>-<batch>.csv` (HF `symbolic_trace` fx graph, one "
      "line per node). One line per (model, gpu, batch, seq, op_kind, target_short): "
      "`op_kind` the fx op (`call_module`, `call_function`, `call_method`), `target_short` "
      "the module class for call_module (Linear, LayerNorm, Embedding, Dropout, ...), the "
      "function name for call_function (`<built-in function add>` -> add, `<built-in method "
      "matmul of type object at 0x..>` -> matmul, `<function softmax at 0x..>` -> softmax) "
      "and the method name for call_method (view, transpose, permute, size, contiguous, ...). "
      "`count` nodes, their `total_ms`, `min_ms`, `median_ms` (ms, 5 significant digits). "
      "placeholder, get_attr and output nodes are left out (%s; %d of them had a non-zero "
      "latency)." % (", ".join("%d %s" % (v, k) for k, v in sorted(info["ops_st"]["skipped_nodes"].items())),
                      info["ops_st"]["skipped_nonzero"]))
    a("")
    a("Important: NeuSight traces a ONE-layer copy of each model (`n_layer` / "
      "`num_hidden_layers` set to 1 in `trace_fx_graph`; switch models are traced whole), "
      "so a trace holds the embeddings, one transformer layer and the head; multiply the "
      "layer's nodes by `num_layer` of models.tsv to rebuild the model. GPT-2-style models "
      "use HF `Conv1D`, which the fx trace decomposes into `addmm` (call_function) with "
      "`view`s around it instead of a Linear module.")
    a("")
    a("Each node was timed on its own: its inputs detached and moved to the GPU, one "
      "untimed call, then 25 calls each between two CUDA events followed by "
      "`torch.cuda.synchronize()`, the mean of the 5 fastest kept (`gc.collect()` and "
      "`torch.cuda.empty_cache()` before each node). With the GPU idle between calls, a "
      "node whose kernel is short (or that launches none: view, size, getitem, transpose) "
      "measures the host-side dispatch time, which is what this table is for (eager per-op "
      "host cost, view cost). Caveat: NeuSight's `NodeProp.propagate` runs outside "
      "`torch.no_grad` (only the symbolic trace is inside it), so these per-node times "
      "include autograd bookkeeping for ops on parameters, unlike the e2e inference "
      "latencies of models.tsv, which run under no_grad.")
    a("")
    a(md_table(["model", "gpu", "batch", "seq", "trace file", "nodes", "sum of nodes ms",
                "num_layer", "e2e ms (models.tsv)"],
               [[k[0], k[1], k[2], k[3], "`%s`" % p.split("/")[-1], n, fmt_sig(t, 5),
                 e[1] if e else "?", e[0] if e else "?"]
                for k, p, n, t, e in info["ops_st"]["traces"]]))
    a("")
    a("### baselines.tsv: the paper's inference error table")
    a("")
    a("`%s`" % " ".join(BASELINES_HEADER))
    a("")
    a("From `%s`: the percentage error of each predictor's end-to-end inference "
      "latency against the label above, per GPU, model and batch. `method`: Roofline, "
      "Habitat, Li (\"Li et al.\"), NeuSight. Model columns mapped to the label names: %s "
      "(sequence length as in models.tsv: 512 for bert_large and switchxl4, 1024 for "
      "gpt2_large, 2048 otherwise). Empty cells (%d) are skipped; P100/P4 cells (%d) "
      "dropped."
      % (SUMMARY_INF, ", ".join("%s -> %s" % kv for kv in SUMMARY_MODEL_MAP.items()),
         info["base_st"]["empty"], sum(info["base_st"]["dropped"].values())))
    a("")
    a("## Timing method (NeuSight's)")
    a("")
    a("- PyTorch 2.1.0 built for CUDA 12.1 (`cu121`), cuDNN 8.9.2 (8902), fp32 everywhere "
      "(`Torch Version`, `CUDA Version`, `CUDNN Version` columns of the kernel CSVs).")
    a("- TF32 off: `torch.backends.cudnn.allow_tf32 = False` in `collect.py` and `trace.py`; "
      "matmul TF32 is off by default in PyTorch >= 1.12 (`torch.backends.cuda.matmul.allow_tf32` "
      "is never set), so bmm/linear use FP32 SIMT SGEMM kernels. `torch.backends.cudnn.benchmark "
      "= True`.")
    a("- Kernels (`neusight/Dataset/collect.py`): under torch.no_grad, 25 back-to-back calls, "
      "each between two CUDA events and a `torch.cuda.synchronize()`; the 25 times sorted and "
      "the mean of the fastest 5 kept (min-5-of-25; no separate warm-up). Inputs: zeros for the "
      "vector ops, randn for bmm/linear/conv (conv: zeros). The kernel name and grid come from "
      "one extra profiled call.")
    a("- End to end (`neusight/Tracing/trace.py` `measure_e2e`): the full model (all layers), "
      "HF transformers built from config with `attn_implementation=\"eager\"`, random weights, "
      "fp32, `input_ids = torch.ones(batch, seq, int64)`; 25 iterations (`gc.collect()` and "
      "`torch.cuda.empty_cache()` before each), each between two CUDA events, min-5-of-25 "
      "mean. `-fusion` files: the same on `torch.compile(model)`.")
    a("")
    a("## Row counts")
    a("")
    ks = info["kst"]
    a("Kernel CSVs read: %d files, %d rows; %d duplicate rows removed; %d unreadable rows. "
      "Dropped (GPU not in dippm's table), after de-duplication:" %
      (len(ks["files"]), ks["raw"], ks["dups"], ks["bad"]))
    a("")
    a(md_table(["split", "device", "rows dropped"],
               [[s, d, n] for (s, d), n in sorted(ks["dropped"].items())]))
    a("")
    if ks["unknown_ops"]:
        a("Unknown NeuSight op names kept as lowercase: %s" % dict(ks["unknown_ops"]))
        a("")
    a("Label files dropped (not a dippm GPU): models.tsv %s; ops.tsv %s." % (
        ", ".join("%s %d" % kv for kv in sorted(info["mod_st"]["dropped"].items())) or "none",
        ", ".join("%s %d" % kv for kv in sorted(info["ops_st"]["dropped"].items())) or "none"))
    a("")
    a("Sampling: every test row is kept. The train split is sampled per (gpu, op): each "
      "row's output line is hashed with SHA-256 and, in each (gpu, op) group, the rows with "
      "the smallest hashes are kept, at most %s per group, the largest cap with which the "
      "whole directory stays within %d bytes. The choice depends only on the rows' content "
      "(no random state), so a rebuild from the same commit is byte-identical." %
      (info["cap"], info["max_bytes"]))
    a("")
    before = info["kcount_before"]
    after = info["kcount_after"]
    a(md_table(["split", "gpu", "op", "rows", "kept"],
               [[k[0], k[1], k[2], before[k], after.get(k, 0)] for k in sorted(before)]))
    a("")
    tb = sum(before.values())
    ta = sum(after.values())
    a("Total kernel rows: %d before sampling, %d kept (test %d, train %d of %d)." % (
        tb, ta, sum(v for k, v in after.items() if k[0] == "test"),
        sum(v for k, v in after.items() if k[0] == "train"),
        sum(v for k, v in before.items() if k[0] == "train")))
    a("")
    a("Other tables: models.tsv %d rows, ops.tsv %d rows from %d traces, baselines.tsv %d rows." % (
        info["n_models"], info["n_ops"], len(info["ops_st"]["traces"]), info["n_base"]))
    a("")
    a("## Rebuilding")
    a("")
    a("From the top of the dippm source tree, with a NeuSight clone (a work tree or a bare "
      "mirror) at `$NEUSIGHT_DIR`:")
    a("")
    a("    /usr/bin/python3 tools/neusight_import.py $NEUSIGHT_DIR -o tests/data/neusight --force%s" %
      ("" if info["max_bytes"] == DEFAULT_MAX_BYTES else " --max-bytes %d" % info["max_bytes"]))
    a("")
    a("or `make neusight-data NEUSIGHT_DIR=...` (default `../NeuSight`). Check out commit "
      "`%s` (or pass `--rev %s` for a bare mirror) to reproduce these files%s. "
      "The tool's tests: `/usr/bin/python3 tools/test_neusight_import.py`." % (
          src.commit or "unknown", (src.commit or "unknown")[:12],
          " (a complete clone also holds the files listed as absent above: ops.tsv then "
          "gains their switch traces and the AMD counts grow; the NVIDIA kernel rows are "
          "the same)" if info["missing"] else " exactly"))
    a("")
    return "\n".join(L)

def zoo_spec(cfg, seq):
    """The dippm zoo spec of a NeuSight model config (Hugging Face config
    JSON) at sequence length seq, or None when the zoo has no template for
    its architecture. Inference loads BERT as BertForSequenceClassification
    (encoder + pooler), GPT-2-style and OPT models as causal LMs (LM head over
    every position). The MLP activation follows the config's
    activation_function: gelu_new (Hugging Face's Python tanh GELU, eight
    element-wise kernels in eager PyTorch) as act=gelu-new, relu (OPT) as
    act=relu; OPT's learned-position offset is taken as GPT-2's plain
    positions (the same gather)."""
    arch = (cfg.get("architectures") or [""])[0].lower()
    if "bert" in arch:
        return ("zoo:bert:preset=custom:layers=%d:hidden=%d:heads=%d:intermediate=%d:seq=%d"
                ":vocab=%d:max_position=%d:type_vocab=%d" % (
                    cfg["num_hidden_layers"], cfg["hidden_size"], cfg["num_attention_heads"],
                    cfg["intermediate_size"], seq, cfg["vocab_size"],
                    max(seq, cfg.get("max_position_embeddings", seq)),
                    cfg.get("type_vocab_size", 2)))
    acts = {"gelu_new": "gelu-new", "relu": "relu", "gelu": "gelu",
            "gelu_pytorch_tanh": "gelu-tanh", "quick_gelu": "quick-gelu"}
    if "gpt2" in arch:
        act = acts[cfg.get("activation_function", "gelu_new")]
        return ("zoo:gpt:preset=custom:layers=%d:hidden=%d:heads=%d:context=%d:vocab=%d:act=%s"
                % (cfg["n_layer"], cfg["n_embd"], cfg["n_head"], seq, cfg["vocab_size"], act))
    if "opt" in arch:
        ratio = cfg["ffn_dim"] / cfg["hidden_size"]
        act = acts[cfg.get("activation_function", "relu")]
        return ("zoo:gpt:preset=custom:layers=%d:hidden=%d:heads=%d:mlp_ratio=%g:context=%d"
                ":vocab=%d:act=%s" % (cfg["num_hidden_layers"], cfg["hidden_size"],
                                      cfg["num_attention_heads"], ratio, seq, cfg["vocab_size"],
                                      act))
    return None


def models_jsonl(src, models):
    """dippm dataset JSONL rows (label measured, timing gpu) of the
    single-GPU, uncompiled inference rows whose architecture the zoo
    builds; returns the text and the names of the models left out."""
    lines, left_out = [], set()
    for r in models:
        model, gpu, batch, seq, mode, compiled, lat, parallel = (
            r[0], r[1], int(r[2]), int(r[3]), r[4], r[5], float(r[6]), r[8])
        if mode != "inf" or compiled != "0" or parallel != "-":
            continue
        text = src.read("%s/%s.json" % (CONFIG_DIR, model))
        spec = zoo_spec(json.loads(text), seq) if text else None
        if spec is None:
            left_out.add(model)
            continue
        lines.append(json.dumps({
            "label": "measured", "spec": spec, "family": "neusight:" + model, "gpu": gpu,
            "mig": "none", "precision": "fp32", "runtime": "pytorch", "batch": batch,
            "latency_ms": lat, "energy_j": None, "memory_mib": None, "timing": "gpu"},
            separators=(",", ":")))
    return "".join(l + "\n" for l in lines), sorted(left_out)


# How NeuSight timed its end-to-end rows (scripts/asplos), for e2e_rows; %s:
# eager, or the model wrapped in torch.compile.
E2E_CONDITIONS = (
    "Hugging Face model built from NeuSight's config with attn_implementation=\"eager\", random "
    "weights, fp32 with TF32 off, input_ids of ones, torch.no_grad; 25 iterations each between "
    "two CUDA events (gc and empty_cache before each), mean of the fastest 5; %s; CUDA-event "
    "timed, so the call's host cost (under 0.5%% of these rows) is in the prediction but not "
    "the measurement")


def e2e_rows(data_dir="tests/data/neusight"):
    """The imported end-to-end rows (data_dir: this tool's output) of every
    single-GPU inference configuration NeuSight also ran under torch.compile,
    eager and compiled, as rows of tests/data/torch_compile.jsonl
    (tools/validate_compile.py): source_id neusight-e2e, runtime pytorch or
    inductor (torch.compile's default mode), the zoo spec and dippm's GPU of
    models.jsonl's eager row. The one reader of these files for the
    validation tools. Models without a zoo template are left out, as in
    models.jsonl."""
    def path(name):
        return os.path.join(data_dir, name)
    with open(path("models.tsv"), newline="") as f:
        rows = list(csv.reader(f, delimiter="\t"))
    if not rows or rows[0] != MODELS_HEADER:
        raise ValueError("%s: header is not %s" % (path("models.tsv"), "\t".join(MODELS_HEADER)))
    rows = [dict(zip(MODELS_HEADER, r)) for r in rows[1:]]
    with open(path("README.md")) as f:
        m = re.search(r"git commit ([0-9a-f]{40})", f.read())
    if not m:
        raise ValueError("%s: no 'git commit' of the NeuSight repository" % path("README.md"))
    eager = {}
    with open(path("models.jsonl")) as f:
        for line in f:
            j = json.loads(line)
            eager[(j["family"], j["gpu"], j["batch"])] = j
    inf = [r for r in rows if r["mode"] == "inf" and r["parallel"] == "-"]
    paired = {(r["model"], r["gpu"], r["batch"]) for r in inf if r["compiled"] == "1"}
    for r in inf:
        if (r["model"], r["gpu"], r["batch"]) not in paired:
            continue
        e = eager.get(("neusight:" + r["model"], r["gpu"], int(r["batch"])))
        if e is None:  # no zoo template (models_jsonl)
            continue
        compiled = r["compiled"] == "1"
        yield {
            "source_id": "neusight-e2e", "model": r["model"], "spec": e["spec"],
            "gpu": e["gpu"], "gpu_doc": r["gpu"], "precision": e["precision"],
            "runtime": "inductor" if compiled else "pytorch",
            "mode": "default" if compiled else "eager", "batch": int(r["batch"]),
            "seq": int(r["seq"]), "metric": "latency_ms", "value": float(r["latency_ms"]),
            "unit": "ms",
            "source": "https://github.com/trsharm25/NeuSight/blob/%s/%s | e2e_latency | "
                      "NeuSight artifact (ASPLOS 2025), PyTorch 2.1" % (m.group(1),
                                                                        r["source_file"]),
            "licence": "MIT (trsharm25/NeuSight; %s)" % path("LICENSE.NeuSight"),
            "conditions": E2E_CONDITIONS % (
                "the model wrapped in torch.compile (default mode)" if compiled else "eager"),
            "table": "%s on %s, batch %s, seq %s" % (r["model"], r["gpu"], r["batch"], r["seq"]),
        }


def build(args, log):
    src = open_source(args.neusight_dir, args.source, args.rev)
    lic = src.read("LICENSE")
    if lic is None:
        raise ImportError_("no LICENSE in the NeuSight repository; refusing to import")

    krows, kst = read_kernels(src, log)
    models, mod_st = read_models(src, log)
    e2e_index = {}
    for r in models:
        if r[4] == "inf" and r[5] == "0" and r[8] == "-":
            e2e_index[(r[0], r[1], int(r[2]), int(r[3]))] = (r[6], r[9])
    ops, ops_st = read_ops(src, log, e2e_index)
    base, base_st = read_baselines(src, log)

    mjsonl, mod_st["no_template"] = models_jsonl(src, models)
    files = {
        "models.tsv": tsv(MODELS_HEADER, models),
        "models.jsonl": mjsonl,
        "ops.tsv": tsv(OPS_HEADER, ops),
        "baselines.tsv": tsv(BASELINES_HEADER, base),
        "LICENSE.NeuSight": lic if lic.endswith("\n") else lic + "\n",
    }
    fixed = sum(len(v.encode("utf-8")) for v in files.values())
    header_bytes = len(("\t".join(KERNEL_HEADER) + "\n").encode("utf-8"))
    kcount_before = Counter((r[0], r[1], r[2]) for r in krows)

    reserve = 0                  # grows by README.md's overshoot, see below
    while True:
        budget = args.max_bytes - fixed - header_bytes - reserve
        kept, cap = sample_train(krows, budget)
        kept.sort(key=kernel_sort_key)
        kcount_after = Counter((r[0], r[1], r[2]) for r in kept)
        max_group = max((v for k, v in kcount_before.items() if k[0] == "train"), default=0)
        info = {
            "src": src, "copyright": copyright_line(lic),
            "missing": sorted(set(src.missing)), "kst": kst, "mod_st": mod_st,
            "ops_st": ops_st, "base_st": base_st,
            "cap": cap if cap < max_group else "all (no sampling needed: %d)" % cap,
            "max_bytes": args.max_bytes,
            "kcount_before": kcount_before, "kcount_after": kcount_after,
            "n_models": len(models), "n_ops": len(ops), "n_base": len(base),
        }
        files["kernels.tsv"] = tsv(KERNEL_HEADER, kept)
        files["README.md"] = build_readme(info)
        total = sum(len(v.encode("utf-8")) for v in files.values())
        if total <= args.max_bytes:
            break
        reserve += total - args.max_bytes + 64
    return files, info, total


def write_atomically(files, outdir, force):
    outdir = os.path.abspath(outdir)
    parent = os.path.dirname(outdir)
    os.makedirs(parent, exist_ok=True)
    exists = os.path.isdir(outdir) and bool(os.listdir(outdir))
    if os.path.exists(outdir) and not os.path.isdir(outdir):
        raise ImportError_("%s exists and is not a directory" % outdir)
    if exists and not force:
        raise ImportError_("%s exists and is not empty; pass --force to overwrite it" % outdir)
    tmp = tempfile.mkdtemp(prefix=".neusight-import-", dir=parent)
    try:
        for name, text in files.items():
            with open(os.path.join(tmp, name), "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(os.path.join(tmp, name), 0o644)
        if not os.path.isdir(outdir):
            os.replace(tmp, outdir)
            os.chmod(outdir, 0o755)
            tmp = None
        else:
            for name in files:
                os.replace(os.path.join(tmp, name), os.path.join(outdir, name))
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Import NeuSight's (ASPLOS 2025, MIT) measured kernel, end-to-end and "
                    "per-op latencies into dippm test data (tab-separated tables).",
        epilog="The NeuSight directory is a work tree (read from disk) or a bare git mirror "
               "(read with git show); --source chooses explicitly.")
    ap.add_argument("neusight_dir", help="NeuSight git repository: a clone's work tree or a bare mirror")
    ap.add_argument("-o", "--output", default="tests/data/neusight",
                    help="output directory (default: %(default)s)")
    ap.add_argument("--force", action="store_true",
                    help="overwrite the files of an existing, non-empty output directory")
    ap.add_argument("--source", choices=("auto", "git", "tree"), default="auto",
                    help="read files from the work tree or with git show (default: auto: the "
                         "work tree when scripts/asplos exists in it)")
    ap.add_argument("--rev", default="HEAD", help="commit to read with --source git (default: HEAD)")
    ap.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES,
                    help="size budget of the whole output directory in bytes; the train split "
                         "is sampled to fit (default: %(default)s)")
    ap.add_argument("-q", "--quiet", action="store_true", help="print warnings only")
    args = ap.parse_args(argv)

    def log(msg):
        print("neusight_import: " + msg, file=sys.stderr)

    try:
        if (os.path.isdir(args.output) and os.listdir(args.output) and not args.force):
            raise ImportError_("%s exists and is not empty; pass --force to overwrite it"
                               % args.output)
        files, info, total = build(args, log)
        write_atomically(files, args.output, args.force)
        if info["missing"]:
            log("warning: %d files are absent from the source and were skipped "
                "(listed in %s)" % (len(info["missing"]), os.path.join(args.output, "README.md")))
    except ImportError_ as e:
        log("error: " + str(e))
        return 1
    if not args.quiet:
        print("neusight_import: wrote %s (%d bytes): kernels %d rows, models %d, ops %d, "
              "baselines %d; train cap per (gpu, op): %s" % (
                  args.output, total, sum(info["kcount_after"].values()), info["n_models"],
                  info["n_ops"], info["n_base"], info["cap"]), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
