#!/usr/bin/env python3
"""Tests of tools/neusight_import.py on a tiny fake NeuSight repository.

Run: /usr/bin/python3 tools/test_neusight_import.py   (standard library only;
the git-mode tests are skipped where git is not installed)
"""

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import neusight_import as ni  # noqa: E402

ELEM_K = ('"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, '
          'at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, '
          'at::detail::Array<char*, 3>)"')
LN_K = ('"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>'
        '(int, float, float const*, float const*, float const*, float*, float*, float*)"')
CUTLASS_K = ('"void cutlass::Kernel<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>'
             '(cutlass_80_simt_sgemm_256x128_8x4_nn_align1::Params)"')
HEAD_VEC = ("OPName,Latency,Device,Torch Version,CUDNN Version,Kernel Name,Warps per SM,"
            "Blocks per SM,Grid x,Grid y,Grid z,Block x,Block y,Block z,CUDA Version,B,H")
HEAD_MM = ("OPName,Latency,Device,Torch Version,CUDNN Version,Kernel Name,Warps per SM,"
           "Blocks per SM,Grid x,Grid y,Grid z,Block x,Block y,Block z,CUDA Version,Kernels,B,M,N,K")
HEAD_CONV = ("OPName,Latency,Device,Torch Version,CUDNN Version,Kernel Name,Warps per SM,"
             "Blocks per SM,Grid x,Grid y,Grid z,Block x,Block y,Block z,CUDA Version,Kernels,"
             "B,Input_Channel,Output_Channel,Kernel_Szie,Input_Size,Stride,Padding")

FILES = {
    "LICENSE": "MIT License\n\nCopyright (c) 2025 Fake Authors\n\nPermission is hereby granted.\n",
    # per-GPU train file: two add rows (17-digit latencies)
    "scripts/asplos/data/dataset/train/collect/add/p2.1.0/NVIDIA A100-PCIE-40GB.csv": "\n".join([
        HEAD_VEC,
        "add,0.02704000025987625,NVIDIA A100-PCIE-40GB,p2.1.0,8902,%s,0.03,0.009,1,1,1,128,1,1,cu121,1,37" % ELEM_K,
        "add,0.026956799998879434,NVIDIA A100-PCIE-40GB,p2.1.0,8902,%s,0.29,0.07,8,1,1,128,1,1,cu121,4,932" % ELEM_K,
    ]) + "\n",
    # the merged file repeats them with 15 digits, plus one addu and a P100 row
    "scripts/asplos/data/dataset/train/collect/add.csv": "\n".join([
        HEAD_VEC,
        "add,0.0270400002598762,NVIDIA A100-PCIE-40GB,p2.1.0,8902,%s,0.03,0.009,1,1,1,128,1,1,cu121,1,37" % ELEM_K,
        "add,0.0269567999988794,NVIDIA A100-PCIE-40GB,p2.1.0,8902,%s,0.29,0.07,8,1,1,128,1,1,cu121,4,932" % ELEM_K,
        "addu,0.5,NVIDIA A100-PCIE-40GB,p2.1.0,8902,%s,0.29,0.07,8,1,1,128,1,1,cu121,64,1024" % ELEM_K,
        "add,0.0467712000012397,Tesla P100-PCIE-16GB,p2.1.0,8902,%s,3.0,0.75,42,1,1,128,1,1,cu121,127,168" % ELEM_K,
    ]) + "\n",
    "scripts/asplos/data/dataset/train/collect/bmm/p2.1.0/Tesla T4.csv": "\n".join([
        HEAD_MM,
        "bmm,0.123456789,Tesla T4,p2.1.0,8902,volta_sgemm_64x64_nn,1.0,0.5,1,1,2,64,1,1,cu121,;volta_sgemm_64x64_nn,2,3,5,7",
        "bmm,1.5,Tesla T4,p2.1.0,8902,%s,1.0,0.5,4,2,8,256,1,1,cu121,;x,8,300,500,700" % CUTLASS_K,
    ]) + "\n",
    "scripts/asplos/data/dataset/train/collect/linear/p2.1.0/Tesla T4.csv": "\n".join([
        HEAD_MM,
        "linear,0.25,Tesla T4,p2.1.0,8902,volta_sgemm_128x64_tn,1.0,0.5,4,1,1,128,1,1,cu121,;volta_sgemm_128x64_tn,1,64,128,256",
    ]) + "\n",
    "scripts/asplos/data/dataset/train/collect/conv/p2.1.0/Tesla T4.csv": "\n".join([
        HEAD_CONV,
        "conv,2.5,Tesla T4,p2.1.0,8902,volta_sgemm_64x64_nn,1.0,0.5,3,6,36,64,1,1,cu121,;a;b,38,893,326,3,5,1,1",
    ]) + "\n",
    # test split: one layernorm row on L4, repeated by vec.csv; one P4 row
    "scripts/asplos/data/dataset/test/ln.csv": "\n".join([
        HEAD_VEC + ",large",
        "ln,0.8186048150062561,NVIDIA L4,p2.1.0,8902,%s,1638.4,409.6,32768,1,1,32,4,1,cu121,32768,1600,True" % LN_K,
        "ln,0.9,Tesla P4,p2.1.0,8902,%s,1638.4,409.6,32768,1,1,32,4,1,cu121,32768,1600,True" % LN_K,
    ]) + "\n",
    "scripts/asplos/data/dataset/test/vec.csv": "\n".join([
        HEAD_VEC + ",large",
        "ln,0.8186048150062561,NVIDIA L4,p2.1.0,8902,%s,1638.4,409.6,32768,1,1,32,4,1,cu121,32768,1600,True" % LN_K,
    ]) + "\n",
    "scripts/asplos/data/dataset/dims/train_vec.csv": "1;37\n",
    # labels
    "scripts/asplos/label/NVIDIA_L4/bert_large-inf-512-8.json":
        '{"num_layer": 24, "e2e_latency": 409.8561, "fw_latency": 409.8561, "bwall_latency": 0}\n',
    "scripts/asplos/label/NVIDIA_L4/bert_large-inf-512-8-fusion.json":
        '{"num_layer": 0, "e2e_latency": 300.5, "fw_latency": 300.5, "bwall_latency": 0}\n',
    "scripts/asplos/label/NVIDIA_L4/bert_large-train-512-2.json":
        '{"num_layer": 24, "e2e_latency": 74.75, "fw_latency": 29.45, "bwall_latency": 45.3}\n',
    "scripts/asplos/label/NVIDIA_H100_80GB_HBM3/gpt2_large-train-1024-4-dp4.json":
        '{"num_layer": 0, "e2e_latency": 194.881, "fw_latency": 0, "bwall_latency": 0}\n',
    "scripts/asplos/label/Tesla_P100-PCIE-16GB/bert_large-inf-512-8.json":
        '{"num_layer": 24, "e2e_latency": 999.0, "fw_latency": 999.0, "bwall_latency": 0}\n',
    "scripts/asplos/label/NVIDIA_L4/bert_large-inf-512-8.csv": "\n".join([
        "op,target,meta,input_shapes,latency,output_shape,Name",
        'placeholder,input_ids,{},[],0.0,"(8, 512)",input_ids',
        'call_method,view,"{}","[[8, 512]]",0.008,"(1,)",view',
        'call_method,view,"{}","[[8, 512]]",0.010,"(1,)",view_1',
        'call_method,view,"{}","[[8, 512]]",0.006,"(1,)",view_2',
        'call_function,<built-in method matmul of type object at 0x7f00>,{},"[[1]]",0.5,"(1,)",matmul',
        'call_function,<function softmax at 0x7f01>,{},"[[1]]",0.25,"(1,)",softmax',
        ('call_module,bert.encoder.layer.0.attention.self.query,'
         '"{\'nn_module_stack\': OrderedDict([(\'bert\', <class \'transformers.models.bert.modeling_bert.BertModel\'>), '
         '(\'bert.encoder.layer.0.attention.self.query\', <class \'torch.nn.modules.linear.Linear\'>)])}",'
         '"[[8, 512, 1024]]",1.25,"(8, 512, 1024)",query'),
        'output,output,{},[],0.0,,output',
    ]) + "\n",
    "scripts/asplos/summary/nvidia_inf.csv": "\n".join([
        "NVIDIA_L4",
        "Model,BERT-Large,,GPT2-Large,",
        "Batch,8,16,4,8",
        "Roofline,52.3,54.3,41.9,",
        "Li et al.,332.7,,282.4,280.8",
        "",
        "Tesla_P4",
        "Model,BERT-Large,,GPT2-Large,",
        "Batch,8,16,4,8",
        "NeuSight,11.3,4.7,65.3,",
        "",
    ]) + "\n",
}


def read_tsv(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    header = lines[0].split("\t")
    return header, [dict(zip(header, ln.split("\t"))) for ln in lines[1:]]


def run_tool(*argv):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = ni.main(list(argv))
    return rc, err.getvalue()


class FakeNeuSight(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ns-test-")
        self.repo = os.path.join(self.tmp, "NeuSight")
        for rel, text in FILES.items():
            p = os.path.join(self.repo, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w", encoding="utf-8") as f:
                f.write(text)
        self.out = os.path.join(self.tmp, "out", "neusight")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def build(self, *extra, src=None):
        rc, err = run_tool(src or self.repo, "-o", self.out, "-q", *extra)
        self.assertEqual(rc, 0, err)
        return err

    def kernels(self):
        header, rows = read_tsv(os.path.join(self.out, "kernels.tsv"))
        self.assertEqual(header[:10], ["split", "gpu", "op", "b", "m", "n", "k",
                                       "latency_us", "kernel", "grid"])
        return rows

    # ------------------------------------------------------------ kernels
    def test_kernels_rows_mapping_dedup_units(self):
        self.build()
        rows = self.kernels()
        gpus = {r["gpu"] for r in rows}
        self.assertEqual(gpus, {"A100-PCIe-40GB", "T4", "L4"})          # P100, P4 dropped
        adds = [r for r in rows if r["op"] == "add"]
        self.assertEqual(len(adds), 2)                                   # merged copy deduplicated
        a = next(r for r in adds if r["m"] == "37")
        self.assertEqual((a["split"], a["b"], a["n"], a["k"]), ("train", "1", "1", "1"))
        self.assertEqual(a["latency_us"], "27.04")                        # ms -> us, 4 digits
        self.assertEqual(a["kernel"], "vectorized_elementwise_kernel")
        self.assertEqual(a["grid"], "1,1,1/128,1,1")
        self.assertEqual([r["op"] for r in rows if r["op"].endswith("_scalar")], ["add_scalar"])
        self.assertEqual(len(rows), 8)

    def test_gemm_dims(self):
        self.build()
        rows = self.kernels()
        bmm = next(r for r in rows if r["op"] == "bmm" and r["b"] == "2")
        # NeuSight bmm B,M,N,K = 2,3,5,7 is randn(2,3,5) @ randn(2,5,7): inner 5
        self.assertEqual((bmm["m"], bmm["n"], bmm["k"]), ("3", "7", "5"))
        self.assertEqual(bmm["latency_us"], "123.5")
        big = next(r for r in rows if r["op"] == "bmm" and r["b"] == "8")
        self.assertEqual(big["kernel"], "cutlass_80_simt_sgemm_256x128_8x4_nn_align1")
        self.assertEqual(big["latency_us"], "1500")
        lin = next(r for r in rows if r["op"] == "linear")
        # Linear(N=128 -> K=256) on 1x64x128: m=64 rows, n=256 out, k=128 in
        self.assertEqual((lin["b"], lin["m"], lin["n"], lin["k"]), ("1", "64", "256", "128"))
        conv = next(r for r in rows if r["op"] == "conv")
        self.assertEqual((conv["b"], conv["m"], conv["n"], conv["k"]), ("38", "25", "326", str(893 * 9)))
        self.assertEqual(conv["conv"], "893,326,3,5,1,1")

    def test_test_split_layernorm(self):
        self.build()
        ln = [r for r in self.kernels() if r["op"] == "layernorm"]
        self.assertEqual(len(ln), 1)                                      # vec.csv repeat dropped
        r = ln[0]
        self.assertEqual((r["split"], r["gpu"], r["b"], r["m"], r["n"], r["k"]),
                         ("test", "L4", "32768", "1600", "1", "1"))
        self.assertEqual(r["latency_us"], "818.6")
        self.assertEqual(r["kernel"], "vectorized_layer_norm_kernel")
        self.assertEqual(r["grid"], "32768,1,1/32,4,1")

    # ------------------------------------------------------------ labels
    def test_models(self):
        self.build()
        header, rows = read_tsv(os.path.join(self.out, "models.tsv"))
        self.assertEqual(header[:8], ["model", "gpu", "batch", "seq", "mode", "compiled",
                                      "latency_ms", "source_file"])
        self.assertEqual(len(rows), 4)                                    # P100 json left out
        self.assertNotIn("999", [r["latency_ms"] for r in rows])
        eager = next(r for r in rows if r["mode"] == "inf" and r["compiled"] == "0")
        self.assertEqual((eager["model"], eager["gpu"], eager["batch"], eager["seq"]),
                         ("bert_large", "L4", "8", "512"))
        self.assertEqual(eager["latency_ms"], "409.856")
        self.assertEqual(eager["num_layer"], "24")
        self.assertEqual(eager["source_file"],
                         "scripts/asplos/label/NVIDIA_L4/bert_large-inf-512-8.json")
        fused = next(r for r in rows if r["compiled"] == "1")
        self.assertEqual(fused["latency_ms"], "300.5")
        train = next(r for r in rows if r["mode"] == "train" and r["parallel"] == "-")
        self.assertEqual((train["batch"], train["fw_ms"], train["bwall_ms"]), ("2", "29.45", "45.3"))
        dp = next(r for r in rows if r["parallel"] == "dp4")
        self.assertEqual((dp["gpu"], dp["seq"], dp["batch"]), ("H100-SXM5-80GB", "1024", "4"))

    @unittest.skipUnless(shutil.which("git"), "git not installed")
    def test_e2e_rows(self):
        """The eager and compiled rows of a configuration run both ways, in
        tests/data/torch_compile.jsonl's form; the training rows left out;
        no source address without the commit read; no row without a zoo
        template."""
        self.build()
        with self.assertRaisesRegex(ValueError, "README.md: no 'git commit'"):
            list(ni.e2e_rows(self.out))
        g = ["git", "-C", self.repo, "-c", "user.name=t", "-c", "user.email=t@example.com"]
        subprocess.run(["git", "init", "-q", self.repo], check=True)
        subprocess.run(g + ["add", "-A"], check=True)
        subprocess.run(g + ["commit", "-q", "-m", "fake"], check=True)
        self.build("--force")
        self.assertEqual(list(ni.e2e_rows(self.out)), [])  # no model config
        config = os.path.join(self.repo, ni.CONFIG_DIR, "bert_large.json")
        os.makedirs(os.path.dirname(config))
        with open(config, "w") as f:
            json.dump({"architectures": ["BertLMHeadModel"], "num_hidden_layers": 24,
                       "hidden_size": 1024, "num_attention_heads": 16, "intermediate_size": 4096,
                       "vocab_size": 30522, "max_position_embeddings": 512,
                       "type_vocab_size": 2}, f)
        subprocess.run(g + ["add", "-A"], check=True)
        subprocess.run(g + ["commit", "-q", "-m", "config"], check=True)
        commit = subprocess.run(g + ["rev-parse", "HEAD"], check=True,
                                stdout=subprocess.PIPE).stdout.decode().strip()
        self.build("--force")
        rows = list(ni.e2e_rows(self.out))
        self.assertEqual([(r["runtime"], r["mode"], r["value"]) for r in rows],
                         [("pytorch", "eager", 409.856), ("inductor", "default", 300.5)])
        for r in rows:
            self.assertEqual((r["source_id"], r["gpu"], r["batch"], r["seq"], r["metric"]),
                             ("neusight-e2e", "L4", 8, 512, "latency_ms"))
            self.assertTrue(r["spec"].startswith("zoo:bert:preset=custom:layers=24:"))
        self.assertIn("/blob/%s/scripts/asplos/label/NVIDIA_L4/bert_large-inf-512-8-fusion.json"
                      " | e2e_latency" % commit, rows[1]["source"])
        self.assertIn("torch.compile (default mode)", rows[1]["conditions"])
        with open(os.path.join(self.out, "models.tsv"), "w") as f:
            f.write("model\tgpu\n")
        with self.assertRaisesRegex(ValueError, "models.tsv: header is not model"):
            list(ni.e2e_rows(self.out))

    def test_zoo_spec(self):
        bert = {"architectures": ["BertLMHeadModel"], "num_hidden_layers": 24,
                "hidden_size": 1024, "num_attention_heads": 16, "intermediate_size": 4096,
                "vocab_size": 30522, "max_position_embeddings": 512, "type_vocab_size": 2}
        self.assertEqual(ni.zoo_spec(bert, 512),
                         "zoo:bert:preset=custom:layers=24:hidden=1024:heads=16:"
                         "intermediate=4096:seq=512:vocab=30522:max_position=512:type_vocab=2")
        gpt = {"architectures": ["GPT2LMHeadModel"], "n_layer": 36, "n_embd": 1280,
               "n_head": 20, "vocab_size": 50257, "activation_function": "gelu_new"}
        self.assertEqual(ni.zoo_spec(gpt, 1024), "zoo:gpt:preset=custom:layers=36:hidden=1280:"
                         "heads=20:context=1024:vocab=50257:act=gelu-new")
        opt = {"architectures": ["OPTForCausalLM"], "num_hidden_layers": 24,
               "hidden_size": 2048, "num_attention_heads": 32, "ffn_dim": 8192,
               "vocab_size": 50272, "activation_function": "relu"}
        self.assertIn(":mlp_ratio=4:", ni.zoo_spec(opt, 2048))
        self.assertTrue(ni.zoo_spec(opt, 2048).endswith(":act=relu"))
        self.assertIsNone(ni.zoo_spec({"architectures": ["SwitchTransformersModel"]}, 512))

    def test_ops(self):
        self.build()
        header, rows = read_tsv(os.path.join(self.out, "ops.tsv"))
        self.assertEqual(header, ni.OPS_HEADER)
        by = {(r["op_kind"], r["target_short"]): r for r in rows}
        self.assertEqual(set(by), {("call_method", "view"), ("call_function", "matmul"),
                                   ("call_function", "softmax"), ("call_module", "Linear")})
        v = by[("call_method", "view")]
        self.assertEqual((v["count"], v["total_ms"], v["min_ms"], v["median_ms"]),
                         ("3", "0.024", "0.006", "0.008"))
        self.assertEqual(by[("call_module", "Linear")]["total_ms"], "1.25")
        self.assertEqual((v["model"], v["gpu"], v["batch"], v["seq"]), ("bert_large", "L4", "8", "512"))

    def test_baselines(self):
        self.build()
        header, rows = read_tsv(os.path.join(self.out, "baselines.tsv"))
        self.assertEqual(header, ["gpu", "model", "batch", "method", "error_pct"])
        self.assertEqual({r["gpu"] for r in rows}, {"L4"})                # P4 dropped
        got = {(r["model"], r["batch"], r["method"]): r["error_pct"] for r in rows}
        self.assertEqual(got, {
            ("bert_large", "8", "Roofline"): "52.3", ("bert_large", "16", "Roofline"): "54.3",
            ("gpt2_large", "4", "Roofline"): "41.9",
            ("bert_large", "8", "Li"): "332.7", ("gpt2_large", "4", "Li"): "282.4",
            ("gpt2_large", "8", "Li"): "280.8"})

    # ------------------------------------------------------------ output handling
    def test_readme_and_license(self):
        self.build()
        with open(os.path.join(self.out, "LICENSE.NeuSight")) as f:
            self.assertEqual(f.read(), FILES["LICENSE"])
        with open(os.path.join(self.out, "README.md")) as f:
            readme = f.read()
        self.assertIn("Copyright (c) 2025 Fake Authors", readme)
        self.assertIn("| test | Tesla P4 | 1 |", readme)
        self.assertIn("| train | Tesla P100-PCIE-16GB | 1 |", readme)
        self.assertIn("tools/neusight_import.py", readme)

    def test_refuses_overwrite_without_force(self):
        self.build()
        rc, err = run_tool(self.repo, "-o", self.out, "-q")
        self.assertEqual(rc, 1)
        self.assertIn("--force", err)
        self.build("--force")
        self.assertEqual(sorted(os.listdir(self.out)), sorted(ni.OUTPUT_FILES))
        self.assertEqual([n for n in os.listdir(os.path.dirname(self.out)) if n.startswith(".")], [])

    def test_sampling_is_deterministic_and_keeps_test(self):
        # enough room for the test rows and the fixed files, not for all train rows
        self.build()
        full = self.kernels()
        size = sum(os.path.getsize(os.path.join(self.out, n)) for n in os.listdir(self.out))
        budget = size - 150
        shutil.rmtree(self.out)
        self.build("--max-bytes", str(budget))
        first = self.kernels()
        self.assertLess(len(first), len(full))
        self.assertEqual([r for r in first if r["split"] == "test"],
                         [r for r in full if r["split"] == "test"])
        total = sum(os.path.getsize(os.path.join(self.out, n)) for n in os.listdir(self.out))
        self.assertLessEqual(total, budget)
        self.build("--max-bytes", str(budget), "--force")
        self.assertEqual(self.kernels(), first)

    @unittest.skipUnless(shutil.which("git"), "git not installed")
    def test_git_mirror_matches_tree(self):
        self.build()
        with open(os.path.join(self.out, "kernels.tsv")) as f:
            tree_kernels = f.read()
        g = ["git", "-C", self.repo, "-c", "user.name=t", "-c", "user.email=t@example.com"]
        subprocess.run(["git", "init", "-q", self.repo], check=True)
        subprocess.run(g + ["add", "-A"], check=True)
        subprocess.run(g + ["commit", "-q", "-m", "fake"], check=True)
        bare = os.path.join(self.tmp, "mirror.git")
        subprocess.run(["git", "clone", "-q", "--bare", self.repo, bare], check=True)
        commit = subprocess.run(["git", "-C", bare, "rev-parse", "HEAD"], check=True,
                                stdout=subprocess.PIPE).stdout.decode().strip()
        out2 = os.path.join(self.tmp, "out2")
        rc, err = run_tool(bare, "-o", out2, "-q")
        self.assertEqual(rc, 0, err)
        with open(os.path.join(out2, "kernels.tsv")) as f:
            self.assertEqual(f.read(), tree_kernels)
        with open(os.path.join(out2, "README.md")) as f:
            self.assertIn(commit, f.read())


class Helpers(unittest.TestCase):
    def test_fmt_sig(self):
        self.assertEqual(ni.fmt_sig(27.04000025987625, 4), "27.04")
        self.assertEqual(ni.fmt_sig(12345.6, 4), "12350")
        self.assertEqual(ni.fmt_sig(0.000123456, 4), "0.0001235")
        self.assertEqual(ni.fmt_sig(1500.0, 4), "1500")

    def test_short_kernel(self):
        self.assertEqual(ni.short_kernel("ampere_sgemm_128x64_tn"), "ampere_sgemm_128x64_tn")
        self.assertEqual(ni.short_kernel(
            "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
            "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)"),
            "cunn_SoftMaxForward")
        self.assertEqual(ni.short_kernel(
            "void implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, false, false, true>(int)"),
            "implicit_convolve_sgemm")

    def test_short_target(self):
        self.assertEqual(ni.short_target("call_function", "<built-in function add>", ""), "add")
        self.assertEqual(ni.short_target("call_function", "<class 'torch.finfo'>", ""), "finfo")
        self.assertEqual(ni.short_target("call_method", "transpose", ""), "transpose")


if __name__ == "__main__":
    unittest.main()
