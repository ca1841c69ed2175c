#!/usr/bin/python3
"""Unit tests of measure.py's helpers (no torch, no GPU needed; onnx for the
stripping tests). Run: /usr/bin/python3 -m unittest tools/measure/test_measure.py
or /usr/bin/python3 tools/measure/test_measure.py."""

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
        nodes = [helper.make_node("MatMul", ["x", "w"], ["y"]),
                 helper.make_node("Reshape", ["y", "shape"], ["z"]),
                 helper.make_node("Gather", ["z", "idx"], ["out"], axis=1)]
        g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                         ["batch", 4])],
                              [helper.make_tensor_value_info("out", TensorProto.FLOAT, None)],
                              [w, shape, big])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
        with tempfile.TemporaryDirectory() as d:
            src, dst = os.path.join(d, "a.onnx"), os.path.join(d, "b.onnx")
            onnx.save(m, src)
            self.assertEqual(onnx_strip.strip_file(src, dst), 2)  # w and the 5000-long idx
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
            self.assertEqual(len(s.graph.node), 3)


if __name__ == "__main__":
    unittest.main()
