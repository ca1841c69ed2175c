#!/usr/bin/python3
"""measure.py - measure inference of models on an NVIDIA GPU for dippm.

For every model x batch x precision it times the forward pass with CUDA events
(warm-up, then N runs: median and p90), reads peak memory (PyTorch allocator and
NVML used memory, what nvidia-smi shows) and energy from NVML's total-energy
counter, and appends one JSON row per configuration to a JSONL file in the format
of dippm-measured(5). Each model is exported to ONNX once and a weightless copy is
kept beside the JSONL, so dippm loads exactly the graph that ran.

    /usr/bin/python3 tools/measure/measure.py resnet50 mobilenet_v3_large \\
        --batch 1,8,32 --precision fp32,tf32,fp16,bf16 -o run/measured.jsonl

Re-running with the same output resumes: configurations already in the file are
skipped. `--dry-run` runs everything on the CPU (timing with perf_counter, no
memory or energy, gpu "cpu-dry-run", source "dry-run") to test the pipeline.
See tools/measure/README.md.
"""

import argparse
import datetime
import gc
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpuinfo  # noqa: E402
import onnx_strip  # noqa: E402
from bench import percentile  # noqa: E402,F401

SCHEMA = "dippm-measured/1"
DRY_RUN_GPU = "cpu-dry-run"
PRECISIONS = ("fp32", "tf32", "fp16", "bf16")
MIB = 1048576.0
# Default input (C x H x W) per torchvision model; others use 3x224x224.
DEFAULT_INPUT = {"inception_v3": (3, 299, 299)}


# ---- small pure helpers (unit-tested in test_measure.py) -------------------

def parse_list(text, what, allowed=None, conv=str):
    out = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        try:
            v = conv(item)
        except ValueError:
            raise SystemExit("measure.py: bad %s '%s'" % (what, item))
        if allowed is not None and v not in allowed:
            raise SystemExit("measure.py: unknown %s '%s' (expected one of: %s)"
                             % (what, item, ", ".join(allowed)))
        if conv is int and v < 1:
            raise SystemExit("measure.py: %s must be >= 1, got %s" % (what, item))
        if v not in out:
            out.append(v)
    if not out:
        raise SystemExit("measure.py: no %s given" % what)
    return out


def parse_input(text):
    try:
        dims = tuple(int(x) for x in text.lower().split("x"))
    except ValueError:
        dims = ()
    if not dims or any(d < 1 for d in dims):
        raise SystemExit("measure.py: bad --input '%s' (expected e.g. 3x224x224)" % text)
    return dims


def dims_str(dims):
    return "x".join(str(d) for d in dims)


def row_key(row):
    """What makes two rows the same configuration (for resuming)."""
    return (row.get("model"), row.get("input"), row.get("batch"), row.get("precision"),
            row.get("runtime"), row.get("gpu"), row.get("mig"), row.get("source"))


def load_done(path, retry_failed=False):
    """Keys of the configurations already in the JSONL file at path. A last line
    cut short by an interrupted write (no newline, not valid JSON) is removed
    from the file; any other bad line is an error (the file is not ours to fix)."""
    done = set()
    if not os.path.exists(path):
        return done
    with open(path, "rb") as f:
        data = f.read()
    lines = data.split(b"\n")
    tail = lines.pop()  # b"" when the file ends with a newline
    if tail.strip():
        try:
            json.loads(tail)
            ok_tail = True
        except ValueError:
            ok_tail = False
        if ok_tail:
            lines.append(tail)
            # complete row without newline: add the newline so appends stay rows
            with open(path, "ab") as f:
                f.write(b"\n")
        else:
            print("measure.py: %s: dropping an incomplete last line (interrupted write)"
                  % path, file=sys.stderr)
            keep = data[:len(data) - len(tail)]
            tmp = path + ".tmp"
            with open(tmp, "wb") as f:
                f.write(keep)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as e:
            raise SystemExit("measure.py: %s:%d: not a JSON row (%s); fix or move the file"
                             % (path, n, e))
        if not isinstance(row, dict) or row.get("schema") != SCHEMA:
            raise SystemExit("measure.py: %s:%d: not a %s row" % (path, n, SCHEMA))
        if retry_failed and row.get("status", "ok") != "ok":
            continue
        done.add(row_key(row))
    return done


def append_row(path, row):
    """Appends row as one line with a single write() on an O_APPEND descriptor,
    then fsyncs: a crash leaves whole rows, at worst one cut last line, which
    load_done removes."""
    line = (json.dumps(row, allow_nan=False) + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        n = os.write(fd, line)
        if n != len(line):
            raise OSError("short write to %s" % path)
        os.fsync(fd)
    finally:
        os.close(fd)


def rnd(x, digits=4):
    return None if x is None else round(float(x), digits)


def make_row(model, graph, dims, batch, prec, runtime, env, status="ok", error=None,
             timing=None, mem=None, energy=None):
    """One row in the documented order (dippm-measured(5)). env holds gpu, mig,
    versions and source; timing/mem/energy are dicts or None."""
    t, m, e = timing or {}, mem or {}, energy or {}
    row = {
        "schema": SCHEMA, "model": model, "graph": graph, "input": dims_str(dims),
        "batch": batch, "precision": prec, "runtime": runtime, "params": env.get("params"),
        "gpu": env["gpu"], "gpu_nvml": env.get("gpu_nvml"), "mig": env.get("mig"),
        "status": status,
        "latency_ms": rnd(t.get("median_ms")), "latency_p90_ms": rnd(t.get("p90_ms")),
        "latency_min_ms": rnd(t.get("min_ms")), "latency_mean_ms": rnd(t.get("mean_ms")),
        "runs": t.get("runs"), "warmup": t.get("warmup"),
        "memory_mib": rnd(m.get("used_mib"), 1), "memory_alloc_mib": rnd(m.get("alloc_mib"), 1),
        "memory_reserved_mib": rnd(m.get("reserved_mib"), 1),
        "memory_device_mib": rnd(m.get("device_mib"), 1), "memory_method": m.get("method"),
        "energy_j": rnd(e.get("energy_j"), 6), "energy_gpu_j": rnd(e.get("energy_gpu_j"), 6),
        "power_w": rnd(e.get("power_w"), 2), "clocks": e.get("clocks"),
        "cudnn_benchmark": env.get("cudnn_benchmark"),
        "driver": env.get("driver"), "cuda": env.get("cuda"), "cudnn": env.get("cudnn"),
        "torch": env.get("torch"),
        "timestamp": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "source": env["source"],
    }
    if error:
        row["error"] = error[:300]
    return row


def is_oom(exc):
    name = type(exc).__name__
    return name == "OutOfMemoryError" or "out of memory" in str(exc).lower()


def first_line(exc):
    s = str(exc).strip().splitlines()
    return "%s: %s" % (type(exc).__name__, s[0] if s else "")


# ---- the run -------------------------------------------------------------------

def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="measure.py",
        description="Measure models on an NVIDIA GPU into dippm-measured/1 JSONL rows.")
    ap.add_argument("models", nargs="+",
                    help="torchvision model names (resnet50), timm:NAME, or ONNX files "
                         "(need onnxruntime-gpu)")
    ap.add_argument("-b", "--batch", default="1,8,32", help="batch sizes (default 1,8,32)")
    ap.add_argument("-p", "--precision", default="fp32",
                    help="precisions among fp32,tf32,fp16,bf16 (default fp32)")
    ap.add_argument("--input", help="input dims without the batch, e.g. 3x224x224 "
                                    "(default per model: 3x224x224, inception_v3 3x299x299)")
    ap.add_argument("-o", "--output", default="measured.jsonl", help="JSONL file to append to")
    ap.add_argument("--graphs", help="folder for the weightless ONNX graphs "
                                     "(default: graphs/ beside the output)")
    ap.add_argument("--warmup", type=int, default=20, help="untimed runs first (default 20)")
    ap.add_argument("--runs", type=int, default=100, help="timed runs, at least (default 100)")
    ap.add_argument("--min-time", type=float, default=1.0,
                    help="timed runs last at least this many seconds, for the energy "
                         "counter (default 1.0)")
    ap.add_argument("--opset", type=int, default=13, help="ONNX opset for exports (default 13)")
    ap.add_argument("--gpu-name", help="GPU name to write instead of the mapped NVML name "
                                       "(must be a name in dippm's GPU table)")
    ap.add_argument("--cudnn-benchmark", action="store_true",
                    help="enable torch.backends.cudnn.benchmark (default off)")
    ap.add_argument("--ort-provider", choices=("cuda", "tensorrt"), default="cuda",
                    help="onnxruntime execution provider for ONNX files (default cuda)")
    ap.add_argument("--retry-failed", action="store_true",
                    help="run again configurations recorded as oom/error")
    ap.add_argument("--time-budget", type=float, default=0,
                    help="start no new configuration after this many seconds (0: no limit)")
    ap.add_argument("--dry-run", action="store_true",
                    help="run on the CPU without NVML; rows are marked source dry-run")
    ap.add_argument("--isolate", dest="isolate", action="store_true", default=None,
                    help="measure each model in a fresh process (default on GPU runs)")
    ap.add_argument("--no-isolate", dest="isolate", action="store_false",
                    help="measure all models in this process (default with --dry-run)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    o = ap.parse_args(argv)
    if o.isolate is None:
        o.isolate = not o.dry_run
    o.batches = sorted(parse_list(o.batch, "batch size", conv=int))
    o.precisions = parse_list(o.precision, "precision", allowed=PRECISIONS)
    o.input_dims = parse_input(o.input) if o.input else None
    if o.warmup < 0 or o.runs < 1 or o.min_time < 0:
        ap.error("--warmup must be >= 0, --runs >= 1, --min-time >= 0")
    return o


def gpu_env(torch, opts):
    """NVML handle, memory baseline (before CUDA starts) and the env fields of rows."""
    os.environ.setdefault("CUDA_DEVICE_ORDER", "PCI_BUS_ID")
    if opts.dry_run:
        return None, None, {"gpu": DRY_RUN_GPU, "gpu_nvml": None, "mig": None,
                            "source": "dry-run", "torch": torch.__version__,
                            "cudnn_benchmark": bool(opts.cudnn_benchmark)}
    try:
        nvml = gpuinfo.Nvml()
    except ImportError:
        raise SystemExit("measure.py: GPU runs need NVML bindings: pip install nvidia-ml-py "
                         "(or use --dry-run)")
    baseline = nvml.device_used_mib()  # read before this process creates a CUDA context
    if not torch.cuda.is_available():
        raise SystemExit("measure.py: torch sees no CUDA device (torch %s, built for CUDA %s); "
                         "use --dry-run to test on the CPU" % (torch.__version__, torch.version.cuda))
    if nvml.energy_mj() is None:
        print("measure.py: NVML's total-energy counter is not readable here (needs Volta or "
              "newer and a driver/container that exposes it): energy_j will be null",
              file=sys.stderr)
    nvml_name = nvml.name()
    gpu, mig = gpuinfo.dippm_gpu_name(nvml_name)
    _, cuda_mig = gpuinfo.split_device_name(torch.cuda.get_device_name(0))
    mig = mig or cuda_mig
    if nvml.is_mig and not mig:
        raise SystemExit("measure.py: CUDA device 0 is a MIG slice but its profile could not "
                         "be read from '%s'" % nvml_name)
    if cuda_mig and not nvml.is_mig:
        # NVML would read the whole board's memory, not the slice's.
        raise SystemExit("measure.py: CUDA device 0 is a MIG slice (%s); select it with "
                         "CUDA_VISIBLE_DEVICES=MIG-<uuid> (nvidia-smi -L lists them)" % cuda_mig)
    env = {"gpu": opts.gpu_name or gpu, "gpu_nvml": nvml_name, "mig": mig, "source": "measured",
           "driver": nvml.driver(), "cuda": torch.version.cuda,
           "cudnn": str(torch.backends.cudnn.version()), "torch": torch.__version__,
           "cudnn_benchmark": bool(opts.cudnn_benchmark)}
    return nvml, baseline, env


def ort_session(path, prec, opts):
    try:
        import onnxruntime as ort
    except ImportError:
        raise SystemExit("measure.py: %s: ONNX files are run with onnxruntime-gpu, which is not "
                         "installed; install it or give a torchvision model name" % path)
    if opts.dry_run:
        providers = ["CPUExecutionProvider"]
    elif opts.ort_provider == "tensorrt":
        providers = [("TensorrtExecutionProvider", {"trt_fp16_enable": prec == "fp16"}),
                     "CUDAExecutionProvider"]
    else:
        providers = [("CUDAExecutionProvider", {"use_tf32": int(prec == "tf32")})]
    s = ort.InferenceSession(path, providers=providers)
    if not opts.dry_run and s.get_providers()[0] == "CPUExecutionProvider":
        raise SystemExit("measure.py: onnxruntime has no GPU provider here (install "
                         "onnxruntime-gpu)")
    return ort, s


def ort_dims(path, opts):
    import onnx
    m = onnx.load(path, load_external_data=False)
    inits = {t.name for t in m.graph.initializer}
    inputs = [i for i in m.graph.input if i.name not in inits]
    if len(inputs) != 1:
        raise SystemExit("measure.py: %s: expected one graph input, found %d"
                         % (path, len(inputs)))
    dims = [d.dim_value if d.HasField("dim_value") else None
            for d in inputs[0].type.tensor_type.shape.dim]
    if opts.input_dims:
        return opts.input_dims
    if len(dims) < 2 or any(d is None for d in dims[1:]):
        raise SystemExit("measure.py: %s: input dims beyond the batch are not fixed; give --input"
                         % path)
    return tuple(dims[1:])


def runtime_of(kind, opts):
    if kind == "torch":
        return "pytorch"
    return "tensorrt" if opts.ort_provider == "tensorrt" else "onnxruntime-cuda"


class _BudgetSpent(Exception):
    pass


class Run:
    """State of one measuring process: output, resume set, NVML, counters."""

    def __init__(self, torch, opts):
        self.torch, self.opts = torch, opts
        self.out = os.path.abspath(opts.output)
        self.out_dir = os.path.dirname(self.out)
        os.makedirs(self.out_dir, exist_ok=True)
        self.graphs_dir = (os.path.abspath(opts.graphs) if opts.graphs
                           else os.path.join(self.out_dir, "graphs"))
        self.done = load_done(self.out, opts.retry_failed)
        self.nvml, self.baseline, self.env = gpu_env(torch, opts)
        self.t_start = time.time()
        self.n_new = self.n_skip = self.n_fail = self.n_export_fail = 0

    def key(self, name, dims, batch, prec, runtime):
        return row_key({"model": name, "input": dims_str(dims), "batch": batch,
                        "precision": prec, "runtime": runtime, "gpu": self.env["gpu"],
                        "mig": self.env.get("mig"), "source": self.env["source"]})

    def all_done(self, name, dims, runtime):
        return all(self.key(name, dims, b, p, runtime) in self.done
                   for p in self.opts.precisions for b in self.opts.batches)

    def measure_one(self, name, kind, payload, dims, batch, prec):
        """Runs one configuration; returns (status or None, error, (timing, mem, energy)),
        or None when it cannot run here (and says why)."""
        import bench
        torch, opts = self.torch, self.opts
        try:
            if kind == "torch":
                return None, None, bench.run_torch_config(torch, payload, dims, batch, prec,
                                                          opts, self.nvml, self.baseline)
            if prec in ("fp16", "bf16") and opts.ort_provider != "tensorrt":
                print("measure.py: %s batch %d %s: skipped, %s of an ONNX file needs a torch "
                      "model (give its torchvision name)" % (name, batch, prec, prec),
                      file=sys.stderr)
                return None
            ort, sess = ort_session(payload, prec, opts)
            return None, None, bench.run_ort_config(ort, sess, dims, batch, prec, opts,
                                                    self.nvml, self.baseline)
        except Exception as e:  # recorded per configuration; Ctrl-C still stops the run
            status, err = ("oom" if is_oom(e) else "error"), first_line(e)
        gc.collect()
        if not opts.dry_run:
            torch.cuda.empty_cache()
        return status, err, (None, None, None)

    def measure_model(self, name, kind, payload, dims, graph):
        opts, runtime = self.opts, runtime_of(kind, self.opts)
        for prec in opts.precisions:
            oom_at = None
            for batch in opts.batches:
                label = "%s batch %d %s" % (name, batch, prec)
                key = self.key(name, dims, batch, prec, runtime)
                if key in self.done:
                    self.n_skip += 1
                    continue
                if oom_at is not None:
                    print("measure.py: %s: skipped, batch %d already ran out of memory"
                          % (label, oom_at), file=sys.stderr)
                    continue
                if opts.time_budget and time.time() - self.t_start > opts.time_budget:
                    raise _BudgetSpent()
                r = self.measure_one(name, kind, payload, dims, batch, prec)
                if r is None:
                    continue
                status, err, res = r
                if status == "oom":
                    oom_at = batch
                self.n_fail += status is not None
                row = make_row(name, graph, dims, batch, prec, runtime, self.env,
                               status=status or "ok", error=err, timing=res[0], mem=res[1],
                               energy=res[2])
                append_row(self.out, row)
                self.done.add(key)
                self.n_new += 1
                if status:
                    print("measure.py: %s: %s (%s)" % (label, status, err), file=sys.stderr)
                    continue
                mem, energy = row["memory_mib"], row["energy_j"]
                print("measure.py: %s: %.3f ms (p90 %.3f)%s%s" % (
                    label, row["latency_ms"], row["latency_p90_ms"],
                    "" if mem is None else ", %.0f MiB" % mem,
                    "" if energy is None else ", %.4f J" % energy), file=sys.stderr)

    def run(self):
        try:
            for spec in self.opts.models:
                self.run_spec(spec)
        except _BudgetSpent:
            print("measure.py: time budget of %gs spent; stopping (re-run to resume)"
                  % self.opts.time_budget, file=sys.stderr)
        finally:
            if self.nvml is not None:
                self.nvml.close()
        print("measure.py: %d rows written to %s (%d failed), %d already there"
              % (self.n_new, self.opts.output, self.n_fail, self.n_skip), file=sys.stderr)
        return 1 if self.n_export_fail else 0

    def run_spec(self, spec):
        """Exports (once) and measures one model given as a name or ONNX file."""
        opts = self.opts
        if spec.endswith(".onnx"):
            if not os.path.isfile(spec):
                raise SystemExit("measure.py: %s: no such file" % spec)
            name = os.path.splitext(os.path.basename(spec))[0]
            dims = ort_dims(spec, opts)
            if self.all_done(name, dims, runtime_of("onnx", opts)):
                self.n_skip += len(opts.precisions) * len(opts.batches)
                return
            graph = os.path.join(self.graphs_dir, "%s_%s.onnx" % (name, dims_str(dims)))
            os.makedirs(self.graphs_dir, exist_ok=True)
            if not os.path.exists(graph):
                onnx_strip.strip_file(spec, graph)
            self.measure_model(name, "onnx", spec, dims, os.path.relpath(graph, self.out_dir))
            return
        import bench
        dims = opts.input_dims or DEFAULT_INPUT.get(spec, (3, 224, 224))
        if self.all_done(spec, dims, "pytorch"):  # resuming: no need to build it
            self.n_skip += len(opts.precisions) * len(opts.batches)
            return
        model = bench.load_torch_model(self.torch, spec)
        try:
            graph = bench.export_graph(self.torch, model, spec, dims, self.graphs_dir,
                                       opts.opset)
        except Exception as e:  # nothing measured: no rows, but the other models go on
            print("measure.py: %s: ONNX export failed, model skipped (%s)"
                  % (spec, first_line(e)), file=sys.stderr)
            self.n_export_fail += 1
            return
        self.env["params"] = sum(p.numel() for p in model.parameters())
        self.measure_model(spec, "torch", model, dims, os.path.relpath(graph, self.out_dir))
        self.env.pop("params", None)


def child_argv(opts, spec, budget):
    """Command line that measures one model in a fresh process with these options."""
    a = [sys.executable, os.path.abspath(__file__), spec, "--child",
         "--batch", ",".join(map(str, opts.batches)), "--precision", ",".join(opts.precisions),
         "-o", opts.output, "--warmup", str(opts.warmup), "--runs", str(opts.runs),
         "--min-time", repr(opts.min_time), "--opset", str(opts.opset),
         "--ort-provider", opts.ort_provider]
    for flag, val in (("--input", opts.input), ("--graphs", opts.graphs),
                      ("--gpu-name", opts.gpu_name)):
        if val:
            a += [flag, val]
    for flag, on in (("--cudnn-benchmark", opts.cudnn_benchmark),
                     ("--retry-failed", opts.retry_failed), ("--dry-run", opts.dry_run)):
        if on:
            a.append(flag)
    if budget is not None:
        a += ["--time-budget", repr(budget)]
    return a


def run_isolated(opts):
    """One process per model: memory figures then hold only that model's context,
    kernels and caches, and a crash (a sticky CUDA error) loses one model."""
    import subprocess
    t0, rc = time.time(), 0
    for spec in opts.models:
        budget = None
        if opts.time_budget:
            budget = opts.time_budget - (time.time() - t0)
            if budget <= 0:
                print("measure.py: time budget of %gs spent; stopping (re-run to resume)"
                      % opts.time_budget, file=sys.stderr)
                break
        r = subprocess.run(child_argv(opts, spec, budget))
        if r.returncode != 0:
            print("measure.py: %s: measuring process exited with %d; going on"
                  % (spec, r.returncode), file=sys.stderr)
            rc = 1
    return rc


def main(argv=None):
    opts = parse_args(sys.argv[1:] if argv is None else argv)
    if opts.isolate and not opts.child:
        return run_isolated(opts)
    try:
        import torch
    except ImportError:
        raise SystemExit("measure.py: needs PyTorch (Debian: apt-get install python3-torch "
                         "python3-torchvision python3-onnx; run with /usr/bin/python3)")
    return Run(torch, opts).run()


if __name__ == "__main__":
    sys.exit(main())
