#!/usr/bin/python3
"""Unit tests of measure.py's helpers (no torch, no GPU needed; onnx for the
stripping tests). Run: /usr/bin/python3 -m unittest tools/measure/test_measure.py
or /usr/bin/python3 tools/measure/test_measure.py."""

import contextlib
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpuinfo  # noqa: E402
import measure  # noqa: E402

try:
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError:
    onnx = None


class Percentile(unittest.TestCase):
    def test_values_by_hand(self):
        xs = [10, 1, 9, 2, 8, 3, 7, 4, 6, 5]
        self.assertEqual(measure.percentile(xs, 50), 5.5)   # mean of 5 and 6
        self.assertAlmostEqual(measure.percentile(xs, 90), 9.1)  # 9 + 0.1 * (10 - 9)
        self.assertEqual(measure.percentile(xs, 0), 1)
        self.assertEqual(measure.percentile(xs, 100), 10)
        self.assertEqual(measure.percentile([3.0], 90), 3.0)
        self.assertEqual(measure.percentile([1, 2, 3], 50), 2)

    def test_empty(self):
        self.assertRaises(ValueError, measure.percentile, [], 50)


class GpuNames(unittest.TestCase):
    def test_mapping(self):
        f = gpuinfo.dippm_gpu_name
        self.assertEqual(f("NVIDIA A100-SXM4-40GB"), ("A100-SXM4-40GB", None))
        self.assertEqual(f(b"NVIDIA A100-SXM4-80GB"), ("A100-SXM4-80GB", None))
        self.assertEqual(f("NVIDIA A100 80GB PCIe"), ("A100-PCIe-80GB", None))
        self.assertEqual(f("NVIDIA H100 80GB HBM3"), ("H100-SXM5-80GB", None))
        self.assertEqual(f("NVIDIA H100 PCIe"), ("H100-PCIe-80GB", None))
        self.assertEqual(f("NVIDIA H200"), ("H200-SXM-141GB", None))
        self.assertEqual(f("NVIDIA L4"), ("L4-PCIe-24GB", None))
        self.assertEqual(f("Tesla T4"), ("T4-PCIe-16GB", None))
        self.assertEqual(f("Tesla V100-PCIE-32GB"), ("V100-PCIe-32GB", None))
        # other V100s (SXM2, 16 GB) are not in the table: kept as NVML names them
        self.assertEqual(f("Tesla V100-SXM2-16GB"), ("Tesla V100-SXM2-16GB", None))
        self.assertEqual(f("NVIDIA L40S"), ("L40S", None))

    def test_mig(self):
        f = gpuinfo.dippm_gpu_name
        self.assertEqual(f("NVIDIA A100-SXM4-40GB MIG 3g.20gb"), ("A100-SXM4-40GB", "3g.20gb"))
        self.assertEqual(f("NVIDIA H100 80GB HBM3 MIG 1g.10gb+me"),
                         ("H100-SXM5-80GB", "1g.10gb+me"))

    def test_unknown_kept(self):
        self.assertEqual(gpuinfo.dippm_gpu_name("NVIDIA GeForce RTX 4090"),
                         ("GeForce RTX 4090", None))


class Args(unittest.TestCase):
    def test_lists(self):
        o = measure.parse_args(["resnet18", "-b", "8,1,8", "-p", "fp16,fp32", "--input",
                                "3x64x64"])
        self.assertEqual(o.batches, [1, 8])
        self.assertEqual(o.precisions, ["fp16", "fp32"])
        self.assertEqual(o.input_dims, (3, 64, 64))

    def test_isolation_default_and_child_argv(self):
        self.assertTrue(measure.parse_args(["m"]).isolate)             # GPU runs
        self.assertFalse(measure.parse_args(["m", "--dry-run"]).isolate)
        self.assertFalse(measure.parse_args(["m", "--no-isolate"]).isolate)
        o = measure.parse_args(["a", "b", "-b", "4,1", "-p", "bf16", "--input", "3x32x32",
                                "--runs", "7", "--min-time", "0.25", "--gpu-name", "H200",
                                "--cudnn-benchmark", "--dry-run", "--isolate",
                                "--time-budget", "60", "-o", "x/m.jsonl"])
        argv = measure.child_argv(o, "b", 42.5)
        c = measure.parse_args(argv[2:])
        self.assertEqual(c.models, ["b"])
        self.assertTrue(c.child)
        for k in ("batches", "precisions", "input_dims", "runs", "warmup", "min_time",
                  "gpu_name", "cudnn_benchmark", "dry_run", "output", "opset"):
            self.assertEqual(getattr(c, k), getattr(o, k), k)
        self.assertEqual(c.time_budget, 42.5)

    def test_bad(self):
        for argv in (["m", "-p", "fp8"], ["m", "-b", "0"], ["m", "-b", "x"],
                     ["m", "--input", "3x0x4"], ["m", "--input", "abc"]):
            with self.assertRaises(SystemExit, msg=str(argv)):
                measure.parse_args(argv)


def _row(batch, status="ok", source="measured"):
    env = {"gpu": "A100-SXM4-40GB", "mig": None, "source": source}
    t = None if status != "ok" else {"median_ms": 2.0, "p90_ms": 2.5, "min_ms": 1.9,
                                     "mean_ms": 2.1, "runs": 100, "warmup": 20}
    return measure.make_row("resnet18", "graphs/r.onnx", (3, 224, 224), batch, "fp32",
                            "pytorch", env, status=status, timing=t,
                            error=None if status == "ok" else "CUDA out of memory")


class Rows(unittest.TestCase):
    def test_fields(self):
        r = _row(8)
        for k in ("schema", "model", "graph", "batch", "precision", "runtime", "gpu", "mig",
                  "latency_ms", "latency_p90_ms", "memory_mib", "memory_alloc_mib", "energy_j",
                  "power_w", "driver", "cuda", "torch", "timestamp", "source"):
            self.assertIn(k, r)
        self.assertEqual(r["schema"], "dippm-measured/1")
        self.assertEqual(r["input"], "3x224x224")
        self.assertEqual(r["latency_ms"], 2.0)
        self.assertIsNone(r["energy_j"])
        self.assertNotIn("error", r)
        f = _row(8, "oom")
        self.assertEqual(f["status"], "oom")
        self.assertIsNone(f["latency_ms"])
        self.assertEqual(f["error"], "CUDA out of memory")


class Resume(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "m.jsonl")

    def tearDown(self):
        self.dir.cleanup()

    def test_append_and_resume(self):
        self.assertEqual(measure.load_done(self.path), set())
        measure.append_row(self.path, _row(1))
        measure.append_row(self.path, _row(2, "oom"))
        with open(self.path) as f:
            lines = f.read().split("\n")
        self.assertEqual(len(lines), 3)  # two rows, each ending in a newline
        self.assertEqual(lines[2], "")
        self.assertEqual(json.loads(lines[0])["batch"], 1)
        done = measure.load_done(self.path)
        self.assertIn(measure.row_key(_row(1)), done)
        self.assertIn(measure.row_key(_row(2)), done)  # failed rows count as done ...
        self.assertNotIn(measure.row_key(_row(4)), done)
        # ... unless retried
        self.assertNotIn(measure.row_key(_row(2)), measure.load_done(self.path, True))
        # a dry-run row is a different configuration than a measured one
        self.assertNotIn(measure.row_key(_row(1, source="dry-run")), done)

    def test_interrupted_write_dropped(self):
        measure.append_row(self.path, _row(1))
        with open(self.path, "a") as f:
            f.write('{"schema": "dippm-measured/1", "model": "res')
        done = measure.load_done(self.path)
        self.assertEqual(len(done), 1)
        with open(self.path) as f:
            text = f.read()
        self.assertTrue(text.endswith("}\n"))
        self.assertEqual(text.count("\n"), 1)

    def test_complete_last_row_without_newline(self):
        with open(self.path, "w") as f:
            f.write(json.dumps(_row(1)))
        self.assertEqual(len(measure.load_done(self.path)), 1)
        measure.append_row(self.path, _row(2))
        with open(self.path) as f:
            self.assertEqual([json.loads(x)["batch"] for x in f], [1, 2])

    def test_bad_middle_line_refused(self):
        with open(self.path, "w") as f:
            f.write(json.dumps(_row(1)) + "\nnot json\n" + json.dumps(_row(2)) + "\n")
        with self.assertRaises(SystemExit) as cm:
            measure.load_done(self.path)
        self.assertIn(":2:", str(cm.exception))


@unittest.skipIf(onnx is None, "needs python3-onnx")
class Strip(unittest.TestCase):
    def test_strip(self):
        import onnx_strip
        w = helper.make_tensor("w", TensorProto.FLOAT, [4, 8], [0.5] * 32)
        shape = helper.make_tensor("shape", TensorProto.INT64, [2], [1, -1])
        big = helper.make_tensor("idx", TensorProto.INT64, [5000], list(range(5000)))
        eps = helper.make_tensor("eps", TensorProto.FLOAT, [1], [1e-5])
        cval = helper.make_tensor("cval", TensorProto.FLOAT, [100], [0.25] * 100)
        nodes = [helper.make_node("Constant", [], ["c"], value=cval),
                 helper.make_node("MatMul", ["x", "w"], ["y"]),
                 helper.make_node("Reshape", ["y", "shape"], ["z"]),
                 helper.make_node("Gather", ["z", "idx"], ["out"], axis=1)]
        g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                         ["batch", 4])],
                              [helper.make_tensor_value_info("out", TensorProto.FLOAT, None)],
                              [w, shape, big, eps])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
        with tempfile.TemporaryDirectory() as d:
            src, dst = os.path.join(d, "a.onnx"), os.path.join(d, "b.onnx")
            onnx.save(m, src)
            # w, the 5000-long idx and the Constant's 100 floats; not shape or eps
            self.assertEqual(onnx_strip.strip_file(src, dst), 3)
            s = onnx.load(dst)
            t = {x.name: x for x in s.graph.initializer}
            self.assertEqual(list(t["w"].dims), [4, 8])
            self.assertEqual(t["w"].data_type, TensorProto.FLOAT)
            self.assertEqual(len(t["w"].float_data) + len(t["w"].raw_data), 0)
            self.assertEqual(list(t["idx"].dims), [5000])
            self.assertEqual(len(t["idx"].int64_data) + len(t["idx"].raw_data), 0)
            self.assertEqual(list(numpy_helper.to_array(t["shape"])), [1, -1])
            self.assertEqual({p.key: p.value for p in s.metadata_props},
                             {"dippm.weightless": "true"})
            self.assertAlmostEqual(float(numpy_helper.to_array(t["eps"])[0]), 1e-5)
            c = s.graph.node[0].attribute[0].t
            self.assertEqual((list(c.dims), len(c.float_data) + len(c.raw_data)), ([100], 0))
            self.assertEqual(len(s.graph.node), 4)


# ---- the GPU path with stand-ins for torch.cuda and pynvml --------------------

class _Clock:
    ms = 0.0


class _Event:
    def __init__(self, enable_timing=False):
        self.t = None

    def record(self):
        self.t = _Clock.ms

    def elapsed_time(self, end):
        return end.t - self.t


class _Cuda:
    Event = _Event

    @staticmethod
    def synchronize():
        pass

    @staticmethod
    def max_memory_allocated(dev):
        return 300 * 1048576

    @staticmethod
    def max_memory_reserved(dev):
        return 512 * 1048576


class _Torch:
    cuda = _Cuda

    @staticmethod
    def device(kind, idx):
        return (kind, idx)


class _Nvml:
    """Energy counter that gains 500 mJ per forward pass."""
    def __init__(self, is_mig, proc_mib=None, device_mib=2000.0):
        self.is_mig, self.proc_mib, self.device_mib = is_mig, proc_mib, device_mib
        self.passes = 0

    def energy_mj(self):
        return 1000000 + 500 * self.passes

    def clocks(self):
        return {"sm_mhz": 1410}

    def process_used_mib(self, pid):
        return self.proc_mib

    def device_used_mib(self):
        return self.device_mib


class GpuPath(unittest.TestCase):
    def run_gpu(self, is_mig):
        import bench
        nv = _Nvml(is_mig)
        durations = [2.0, 1.0, 3.0, 2.0, 4.0]  # ms of successive passes, cycled
        k = [0]

        def fn():
            _Clock.ms += durations[k[0] % len(durations)]
            k[0] += 1
            nv.passes += 1

        timing, energy = bench.time_gpu(_Torch, fn, warmup=3, runs=10, min_time_s=0, nvml=nv)
        return timing, energy, k[0]

    def test_timing_and_energy(self):
        timing, energy, calls = self.run_gpu(False)
        self.assertEqual(calls, 3 + 3 + 10)  # warm-up, estimate, timed
        self.assertEqual(timing["runs"], 10)
        # passes 0-2 warm up, 3-5 estimate; timed passes 6..15 take durations[i % 5]:
        # 1,3,2,4,2,1,3,2,4,2 -> sorted 1,1,2,2,2,2,3,3,4,4: median 2, p90 at 8.1 -> 4
        self.assertEqual(timing["median_ms"], 2.0)
        self.assertAlmostEqual(timing["p90_ms"], 4.0)
        self.assertEqual(timing["min_ms"], 1.0)
        self.assertAlmostEqual(energy["energy_j"], 0.5)      # 500 mJ per pass
        self.assertAlmostEqual(energy["energy_gpu_j"], 0.5)
        self.assertGreater(energy["power_w"], 0)
        self.assertEqual(energy["clocks"], {"sm_mhz": 1410})

    def test_mig_energy_is_board_wide(self):
        _, energy, _ = self.run_gpu(True)
        self.assertIsNone(energy["energy_j"])
        self.assertIsNone(energy["power_w"])
        self.assertAlmostEqual(energy["energy_gpu_j"], 0.5)

    def test_memory(self):
        import bench
        m = bench.gpu_memory(_Torch, _Nvml(False, proc_mib=1430.0), 4.0)
        self.assertEqual((m["used_mib"], m["method"]), (1430.0, "nvml-process"))
        self.assertEqual((m["alloc_mib"], m["reserved_mib"]), (300.0, 512.0))
        m = bench.gpu_memory(_Torch, _Nvml(False, proc_mib=None, device_mib=2000.0), 4.0)
        self.assertEqual((m["used_mib"], m["method"]), (1996.0, "nvml-device-minus-baseline"))

    def test_n_runs(self):
        import bench
        self.assertEqual(bench._n_runs(100, 1.0, 0.002), 500)   # 1 s of 2 ms passes
        self.assertEqual(bench._n_runs(100, 1.0, 0.5), 100)
        self.assertEqual(bench._n_runs(100, 1.0, 1e-9), bench.MAX_RUNS)


class _FakePynvml:
    class NVMLError(Exception):
        pass

    NVML_CLOCK_SM, NVML_CLOCK_MEM = 1, 2

    def __init__(self):
        self.calls = []

    def nvmlInit(self):
        pass

    def nvmlShutdown(self):
        pass

    def nvmlDeviceGetHandleByUUID(self, uuid):
        return "mig:" + uuid

    def nvmlDeviceGetHandleByIndex(self, i):
        return "gpu%d" % i

    def nvmlDeviceIsMigDeviceHandle(self, h):
        return h.startswith("mig:")

    def nvmlDeviceGetDeviceHandleFromMigDeviceHandle(self, h):
        return "gpu0"

    def nvmlDeviceGetName(self, h):
        return b"NVIDIA A100-SXM4-40GB MIG 3g.20gb" if h.startswith("mig:") else \
            b"NVIDIA A100-SXM4-40GB"

    def nvmlDeviceGetTotalEnergyConsumption(self, h):
        self.calls.append(("energy", h))
        return 42

    def nvmlDeviceGetMemoryInfo(self, h):
        self.calls.append(("memory", h))
        return type("M", (), {"used": 3 * 1048576})()

    def nvmlDeviceGetComputeRunningProcesses(self, h):
        raise self.NVMLError("not supported")

    def nvmlDeviceGetClockInfo(self, h, which):
        return 1410 if which == 1 else 1215

    def nvmlDeviceGetMaxClockInfo(self, h, which):
        return 1410

    def nvmlDeviceGetEnforcedPowerLimit(self, h):
        return 400000

    def nvmlSystemGetDriverVersion(self):
        return b"535.104.05"


class _EnvTorch:
    __version__ = "2.1.0"

    class version:
        cuda = "12.1"

    class backends:
        class cudnn:
            @staticmethod
            def version():
                return 8902

    def __init__(self, name, log):
        self.name, self.log = name, log
        outer = self

        class cuda:
            @staticmethod
            def is_available():
                outer.log.append("cuda")
                return True

            @staticmethod
            def get_device_name(i):
                return outer.name
        self.cuda = cuda


@contextlib.contextmanager
def _fake_nvml(visible):
    """pynvml replaced by a fake and CUDA_VISIBLE_DEVICES set to visible, both
    restored on leaving."""
    fake = _FakePynvml()
    old_env = os.environ.get("CUDA_VISIBLE_DEVICES")
    sys.modules["pynvml"] = fake
    os.environ["CUDA_VISIBLE_DEVICES"] = visible
    try:
        yield fake
    finally:
        del sys.modules["pynvml"]
        if old_env is None:
            del os.environ["CUDA_VISIBLE_DEVICES"]
        else:
            os.environ["CUDA_VISIBLE_DEVICES"] = old_env


class GpuEnv(unittest.TestCase):
    def env(self, visible, cuda_name):
        with _fake_nvml(visible) as fake:
            opts = measure.parse_args(["resnet18"])
            return measure.gpu_env(_EnvTorch(cuda_name, fake.calls), opts), fake.calls

    def test_mig_slice_by_uuid(self):
        (nvml, baseline, env), log = self.env("MIG-1234", "NVIDIA A100-SXM4-40GB MIG 3g.20gb")
        self.assertEqual((env["gpu"], env["mig"], env["source"]),
                         ("A100-SXM4-40GB", "3g.20gb", "measured"))
        self.assertEqual((env["driver"], env["cuda"], env["cudnn"], env["torch"]),
                         ("535.104.05", "12.1", "8902", "2.1.0"))
        self.assertEqual(baseline, 3.0)
        # the baseline is read from NVML before torch starts CUDA
        self.assertLess(log.index(("memory", "mig:MIG-1234")), log.index("cuda"))

    def test_whole_gpu(self):
        (nvml, _, env), _ = self.env("0", "NVIDIA A100-SXM4-40GB")
        self.assertEqual((env["gpu"], env["mig"]), ("A100-SXM4-40GB", None))
        self.assertFalse(nvml.is_mig)

    def test_mig_slice_by_index_refused(self):
        with self.assertRaises(SystemExit) as cm:
            self.env("0", "NVIDIA A100-SXM4-40GB MIG 1g.5gb")
        self.assertIn("CUDA_VISIBLE_DEVICES=MIG-", str(cm.exception))


class NvmlHandles(unittest.TestCase):
    def test_mig_slice(self):
        with _fake_nvml("MIG-1234") as fake:
            nv = gpuinfo.Nvml()
            self.assertTrue(nv.is_mig)
            self.assertEqual(gpuinfo.dippm_gpu_name(nv.name()), ("A100-SXM4-40GB", "3g.20gb"))
            self.assertEqual(nv.energy_mj(), 42)
            self.assertEqual(nv.device_used_mib(), 3.0)
            self.assertIsNone(nv.process_used_mib(os.getpid()))  # NVMLError -> None
            self.assertEqual(nv.clocks(), {"sm_mhz": 1410, "mem_mhz": 1215, "sm_max_mhz": 1410,
                                           "power_limit_w": 400.0})
            # energy from the board, memory from the slice
            self.assertIn(("energy", "gpu0"), fake.calls)
            self.assertIn(("memory", "mig:MIG-1234"), fake.calls)


class ModelLoop(unittest.TestCase):
    """Run.measure_model with the measuring itself stubbed: OOM and error rows,
    larger batches skipped after an OOM, resume."""

    def make_run(self, d, outcomes):
        r = object.__new__(measure.Run)
        r.torch = None
        r.opts = measure.parse_args(["m", "-b", "1,8,32", "-p", "fp32,fp16", "--dry-run",
                                     "-o", os.path.join(d, "m.jsonl")])
        r.out = os.path.join(d, "m.jsonl")
        r.done = measure.load_done(r.out)
        r.env = {"gpu": "A100-SXM4-40GB", "mig": None, "source": "measured"}
        r.t_start = 0
        r.n_new = r.n_skip = r.n_fail = r.n_export_fail = 0
        r.calls = []

        def measure_one(name, kind, payload, dims, batch, prec):
            r.calls.append((batch, prec))
            o = outcomes.get((batch, prec))
            if o is None:
                t = {"median_ms": float(batch), "p90_ms": float(batch) + 1, "min_ms": 0.5,
                     "mean_ms": float(batch), "runs": 5, "warmup": 1}
                return None, None, (t, None, None)
            return o[0], o[1], (None, None, None)
        r.measure_one = measure_one
        return r

    def rows(self, d):
        with open(os.path.join(d, "m.jsonl")) as f:
            return [json.loads(x) for x in f]

    def test_oom_and_error(self):
        with tempfile.TemporaryDirectory() as d:
            r = self.make_run(d, {(8, "fp16"): ("oom", "OutOfMemoryError: CUDA out of memory"),
                                  (1, "fp32"): ("error", "RuntimeError: boom")})
            r.measure_model("m", "torch", None, (3, 8, 8), "graphs/m.onnx")
            # fp16 batch 32 is not run after batch 8 ran out of memory
            self.assertEqual(r.calls, [(1, "fp32"), (8, "fp32"), (32, "fp32"), (1, "fp16"),
                                       (8, "fp16")])
            rows = self.rows(d)
            self.assertEqual([(x["batch"], x["precision"], x["status"]) for x in rows],
                             [(1, "fp32", "error"), (8, "fp32", "ok"), (32, "fp32", "ok"),
                              (1, "fp16", "ok"), (8, "fp16", "oom")])
            self.assertEqual(rows[0]["error"], "RuntimeError: boom")
            self.assertIsNone(rows[4]["latency_ms"])
            self.assertEqual(rows[2]["latency_ms"], 32.0)
            self.assertEqual((r.n_new, r.n_fail), (5, 2))

            # resumed: nothing is run again but fp16 batch 32, which has no row
            r2 = self.make_run(d, {})
            r2.measure_model("m", "torch", None, (3, 8, 8), "graphs/m.onnx")
            self.assertEqual(r2.calls, [(32, "fp16")])
            self.assertEqual(r2.n_skip, 5)
            self.assertEqual(len(self.rows(d)), 6)


if __name__ == "__main__":
    unittest.main()
