"""bench.py - the measuring part of measure.py: load a model, export its graph,
and time one configuration on the GPU (CUDA events, NVML memory and energy) or,
with dry_run, on the CPU (perf_counter only).

torch is imported by the caller and passed in, so measure.py's helpers and their
tests need no torch.
"""

import copy
import math
import os
import time

import onnx_strip

MIB = 1048576.0
MAX_RUNS = 10000


# ---- models and graphs ------------------------------------------------------

def load_torch_model(torch, name):
    """A torchvision (or "timm:NAME") model with random weights, eval mode, CPU,
    fp32. Timing does not depend on the weight values."""
    if name.startswith("timm:"):
        try:
            import timm
        except ImportError:
            raise SystemExit("measure.py: %s needs the timm package" % name)
        return perturb(torch, timm.create_model(name[5:], pretrained=False).eval())
    import torchvision
    kwargs = {}
    if name in ("googlenet", "inception_v3"):
        kwargs = {"aux_logits": False, "init_weights": True}
    get_model = getattr(torchvision.models, "get_model", None)
    try:
        if get_model is not None:
            m = get_model(name, weights=None, **kwargs)
        else:
            m = getattr(torchvision.models, name)(weights=None, **kwargs)
    except (ValueError, AttributeError, TypeError) as e:
        raise SystemExit("measure.py: '%s' is not a torchvision model name (%s)" % (name, e))
    return perturb(torch, m.eval())


def perturb(torch, model):
    """Adds small positive noise to every float parameter and buffer. The exporter
    merges initializers with identical values (all-zero BatchNorm means, ones,
    zero biases) into one, which would change the graph dippm sees; distinct values
    keep one initializer per tensor. Positive noise keeps variances positive."""
    with torch.no_grad():
        for t in list(model.parameters()) + list(model.buffers()):
            if t.is_floating_point():
                t.add_(torch.rand_like(t) * 1e-3)
    return model


def export_graph(torch, model, name, dims, graphs_dir, opset):
    """Exports model (CPU, fp32) to ONNX with a symbolic batch, strips the weights
    and keeps graphs_dir/NAME_CxHxW.onnx. Reuses an existing file. Returns its path."""
    stem = "%s_%s" % (name.replace(":", "_").replace("/", "_"), "x".join(map(str, dims)))
    path = os.path.join(graphs_dir, stem + ".onnx")
    if os.path.exists(path) and os.path.getsize(path) > 0:
        return path
    os.makedirs(graphs_dir, exist_ok=True)
    full = os.path.join(graphs_dir, ".%s.full.%d.onnx" % (stem, os.getpid()))
    x = torch.randn(1, *dims)
    try:
        _export(torch, model, x, full, opset)
        onnx_strip.strip_file(full, path)
    finally:
        if os.path.exists(full):
            os.unlink(full)
    return path


def _export(torch, model, x, path, opset):
    """torch.onnx.export with the TorchScript exporter, as samples/ were made.
    Autograd stays enabled (vit_b_16 fails to export under no_grad). PRESERVE and
    no constant folding keep BatchNormalization nodes, as eager PyTorch runs them,
    and the initializers then match torchvision's parameter counts. torch >= 2.9
    defaults to the dynamo exporter: dynamo=False asks for the TorchScript one, and
    where that is gone the dynamo exporter is used instead (said on stderr)."""
    import inspect
    import sys
    kw = {"opset_version": opset, "input_names": ["input"], "output_names": ["output"],
          "dynamic_axes": {"input": {0: "batch"}, "output": {0: "batch"}}}
    try:
        has_dynamo = "dynamo" in inspect.signature(torch.onnx.export).parameters
    except (TypeError, ValueError):
        has_dynamo = False
    legacy = dict(kw, do_constant_folding=False)
    mode = getattr(getattr(torch.onnx, "TrainingMode", None), "PRESERVE", None)
    if mode is not None:
        legacy["training"] = mode
    if not has_dynamo:
        torch.onnx.export(model, x, path, **legacy)
        return
    try:
        torch.onnx.export(model, x, path, dynamo=False, **legacy)
    except Exception as e:  # the TorchScript exporter may be removed in later torch
        print("measure.py: TorchScript ONNX exporter failed (%s: %s); using dynamo=True"
              % (type(e).__name__, str(e).splitlines()[0] if str(e) else ""), file=sys.stderr)
        torch.onnx.export(model, x, path, dynamo=True, **kw)


# ---- one configuration -------------------------------------------------------

def _dtype(torch, prec):
    return {"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16,
            "bf16": torch.bfloat16}[prec]


def percentile(xs, q):
    """q-th percentile (0..100) with linear interpolation between order
    statistics (numpy's default method)."""
    if not xs:
        raise ValueError("percentile of no values")
    s = sorted(xs)
    pos = (len(s) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def _stats(times_ms, warmup):
    return {"median_ms": percentile(times_ms, 50),
            "p90_ms": percentile(times_ms, 90),
            "min_ms": min(times_ms), "mean_ms": sum(times_ms) / len(times_ms),
            "runs": len(times_ms), "warmup": warmup}


def _n_runs(runs, min_time_s, est_s):
    """At least `runs`, and enough to span min_time_s so NVML's energy counter,
    which updates every few ms to tens of ms, moves by many steps."""
    if est_s <= 0:
        return runs
    return int(max(runs, min(MAX_RUNS, math.ceil(min_time_s / est_s))))


def time_cpu(torch, fn, warmup, runs):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return _stats(times, warmup), None


def time_gpu(torch, fn, warmup, runs, min_time_s, nvml):
    """CUDA-event timing of each run after warm-up, and NVML energy over the
    timed runs. Returns (timing, energy)."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    n = _n_runs(runs, min_time_s, (time.perf_counter() - t0) / 3)
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    e0 = nvml.energy_mj()
    w0 = time.perf_counter()
    for i in range(n):
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    w1 = time.perf_counter()
    e1 = nvml.energy_mj()
    times = [s.elapsed_time(e) for s, e in zip(starts, ends)]
    energy = {"clocks": nvml.clocks()}
    if e0 is not None and e1 is not None and e1 > e0:
        joules = (e1 - e0) / 1000.0
        energy["energy_gpu_j"] = joules / n
        energy["power_w"] = joules / (w1 - w0)
        # The counter is board-wide: on a MIG slice it is not this slice's energy.
        energy["energy_j"] = None if nvml.is_mig else joules / n
        if nvml.is_mig:
            energy["power_w"] = None
    return _stats(times, warmup), energy


def _add_used_mib(mem, nvml, baseline_mib):
    """The run's own memory into mem: NVML's per-process figure, else the
    device's use less the baseline before the run."""
    proc = nvml.process_used_mib(os.getpid())
    if proc is not None:
        mem["used_mib"], mem["method"] = proc, "nvml-process"
    elif mem["device_mib"] is not None and baseline_mib is not None:
        mem["used_mib"] = mem["device_mib"] - baseline_mib
        mem["method"] = "nvml-device-minus-baseline"


def gpu_memory(torch, nvml, baseline_mib):
    """Peak memory after the timed runs. The caching allocator keeps what it
    reserved, so NVML's figure after the runs is the run's peak."""
    dev = torch.device("cuda", 0)
    mem = {"alloc_mib": torch.cuda.max_memory_allocated(dev) / MIB,
           "reserved_mib": torch.cuda.max_memory_reserved(dev) / MIB,
           "device_mib": nvml.device_used_mib()}
    _add_used_mib(mem, nvml, baseline_mib)
    return mem


def run_torch_config(torch, base_model, dims, batch, prec, opts, nvml, baseline_mib):
    """Measures one configuration of a torch model. Returns (timing, mem, energy);
    exceptions (OOM included) propagate to the caller, which records them."""
    dry = opts.dry_run
    device = torch.device("cpu") if dry else torch.device("cuda", 0)
    tf32 = prec == "tf32"
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    torch.backends.cudnn.benchmark = bool(opts.cudnn_benchmark)
    model = x = None
    try:
        model = copy.deepcopy(base_model).to(device=device, dtype=_dtype(torch, prec))
        x = torch.randn(batch, *dims, device=device, dtype=_dtype(torch, prec))
        if not dry:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats(device)

        def fn():
            with torch.inference_mode():
                model(x)

        if dry:
            timing, energy = time_cpu(torch, fn, opts.warmup, opts.runs)
            return timing, None, energy
        timing, energy = time_gpu(torch, fn, opts.warmup, opts.runs, opts.min_time, nvml)
        return timing, gpu_memory(torch, nvml, baseline_mib), energy
    finally:
        model = x = None  # also clears the closure's references
        if not dry:
            torch.cuda.synchronize()
            torch.cuda.empty_cache()


def run_ort_config(ort, session, dims, batch, prec, opts, nvml, baseline_mib):
    """Measures an ONNX file with onnxruntime. Inputs and outputs are bound on
    the device (IO binding), so a run is the graph alone; timing is wall clock
    because session runs are synchronous."""
    import numpy as np
    inp = session.get_inputs()[0]
    x = np.random.randn(batch, *dims).astype(np.float32)
    dev = "cpu" if opts.dry_run else "cuda"
    xv = ort.OrtValue.ortvalue_from_numpy(x, dev, 0)
    binding = session.io_binding()
    binding.bind_ortvalue_input(inp.name, xv)
    for o in session.get_outputs():
        binding.bind_output(o.name, dev)

    def fn():
        session.run_with_iobinding(binding)

    for _ in range(opts.warmup):
        fn()
    t0 = time.perf_counter()
    fn()
    n = opts.runs if opts.dry_run else _n_runs(opts.runs, opts.min_time, time.perf_counter() - t0)
    e0 = None if opts.dry_run else nvml.energy_mj()
    times = []
    w0 = time.perf_counter()
    for _ in range(n):
        s = time.perf_counter()
        fn()
        times.append((time.perf_counter() - s) * 1e3)
    w1 = time.perf_counter()
    stats = _stats(times, opts.warmup)
    if opts.dry_run:
        return stats, None, None
    e1 = nvml.energy_mj()
    energy = {"clocks": nvml.clocks()}
    if e0 is not None and e1 is not None and e1 > e0:
        j = (e1 - e0) / 1000.0
        energy["energy_gpu_j"] = j / n
        energy["energy_j"] = None if nvml.is_mig else j / n
        energy["power_w"] = None if nvml.is_mig else j / (w1 - w0)
    mem = {"device_mib": nvml.device_used_mib()}
    _add_used_mib(mem, nvml, baseline_mib)
    return stats, mem, energy
