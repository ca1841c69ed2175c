#!/usr/bin/env python3
"""calib_map.py - writes tests/data/calib_map.tsv, the one mapping from every
published calibration row (tests/data/*.jsonl) to a dippm configuration.

Each JSONL row yields one TSV line per published figure (latency, throughput,
memory, energy, power); a figure is fitted (use=fit), only evaluated
(use=eval) or left out (use=skip, with the reason). The mapping is made by
the rules below, never by hand edits, so that `--check` can prove that the
committed table matches the JSONL files (values and line numbers).

    python3 tools/calib_map.py            # rewrite tests/data/calib_map.tsv
    python3 tools/calib_map.py --check    # exit 1 if the committed table differs

Standard library only.
"""
import json
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILES = ["a100_published_calibration.jsonl", "published_more.jsonl"]
OUT = os.path.join("tests", "data", "calib_map.tsv")
COLUMNS = ["file", "line", "model_id", "source_family", "use", "target", "measured", "spec",
           "batch", "seq", "tokens", "in_tokens", "out_tokens", "steps", "gpu", "mig", "precision",
           "runtime", "timing", "reason"]

# ---- model graphs -----------------------------------------------------------
# ONNX samples or zoo templates with the real model's hyperparameters.
BERT_MULTI = "zoo:bert:layers=12:hidden=768:heads=12:intermediate=3072:vocab=119547:max_position=512"
MINILM_MULTI = "zoo:bert:layers=12:hidden=384:heads=12:intermediate=1536:vocab=250002:max_position=512"
MPNET_MULTI = "zoo:bert:layers=12:hidden=768:heads=12:intermediate=3072:vocab=250002:max_position=514"
DISTILUSE = "zoo:bert:layers=6:hidden=768:heads=12:intermediate=3072:vocab=119547:max_position=512"
BERT_LARGE = "zoo:bert:preset=bert-large"
GPT2_MEDIUM_ZOO = "zoo:gpt:preset=gpt2-medium"
# GPT-J 6B: 28 layers, 4096 wide, 16 heads, 4x MLP, vocab 50400 (its rotary
# embedding and parallel attention/MLP are costed as GPT-2 blocks).
GPTJ = "zoo:gpt:layers=28:hidden=4096:heads=16:mlp_ratio=4:vocab=50400:context=8192"
LLAMA2_7B = "zoo:llama:preset=llama2-7b:context=8192"
LLAMA2_70B = ("zoo:llama:layers=80:hidden=8192:heads=64:kv_heads=8:intermediate=28672:"
              "vocab=32000:context=8192:tied=0")
MISTRAL_7B = ("zoo:llama:layers=32:hidden=4096:heads=32:kv_heads=8:intermediate=14336:"
              "vocab=32000:context=8192:tied=0")


def has(s, *needles):
    return s is not None and any(n in s for n in needles)


def first(s, rules, default=None):
    """The value of the first (needles, value) rule with a needle in s."""
    return next((value for needles, value in rules if has(s, *needles)), default)


def left_out(r, why, *fields):
    """Leaves row r out for the reason why, its unmapped fields shown as "-"."""
    for f in fields:
        setattr(r, f, "-")
    r.why = why


def num_after(s, word):
    m = re.search(re.escape(word) + r"\s*(\d+)", s or "")
    return int(m.group(1)) if m else 0


class Row:
    """One JSONL row and the mapping decided for it."""

    def __init__(self, fname, line, obj):
        self.file, self.line, self.o = fname, line, obj
        self.model_id = "-"
        self.family = "-"
        self.spec = "-"
        self.batch = self.seq = self.tin = self.tout = self.steps = 0
        self.tokens = 0          # mean real tokens per sequence (padding removed); 0: padded
        self.gpu = "-"
        self.mig = "-"
        self.prec = "-"
        self.rt = "-"
        self.gpu_timed = False   # timed by CUDA events around the GPU work
        self.why = None          # reason the whole row is left out
        self.targets = {}        # JSON field -> (target name, use, reason)


def fmt_num(v):
    v = float(v)
    return str(int(v)) if v.is_integer() and abs(v) < 1e15 else repr(v)


# ---- first file: the A100 rows ------------------------------------------------

A100_FAMILIES = [(("AITemplate", "PyTorch 1.12 eager"), "aitemplate"),
                 (("demoBERT",), "trt-demobert"),
                 (("FasterTransformer", "TensorFlow + XLA (FasterTransformer"),
                  "fastertransformer"),
                 (("MLPerf",), "mlperf"),
                 (("Paddle-TRT", "Paddle Inference"), "paddle-trt"),
                 (("Triton",), "triton"),
                 (("DIPPM",), "dippm"),
                 (("TensorRT 8.4",), "trt-ptq")]


# Sources that time the GPU work alone with CUDA events, so that the host's
# cost of the call is not in their latency: demoBERT's perf binary records an
# event before and after each graph launch (infer_c/bert_infer.h), and
# trtexec's latency is event-timed (H2D + compute + D2H) as well.
# AITemplate's benchmarks (examples/01_resnet-50 and 03_bert, benchmark_ait.py
# and benchmark_pt.py) record one CUDA event before and one after a loop of
# 100 back-to-back calls (ModelContainer::BenchmarkImpl, and
# aitemplate.testing.benchmark_torch_function for PyTorch) and divide by the
# count: no per-call synchronisation, for the engine and for eager PyTorch.
GPU_TIMED_FAMILIES = ("trt-demobert", "trt-ptq", "aitemplate")


def a100_family(fw, src):
    family = first(fw, A100_FAMILIES)
    if family is None and (has(src, "DeepLearningExamples") or has(fw, "NGC")):
        family = "dle"
    return family or "hf-bert"


def a100_precision(p):
    return first(p, [(("int8",), "int8"), (("fp16", "amp"), "fp16"), (("bf16",), "bf16"),
                     (("tf32", "TF32"), "fp32" if has(p, "TF32 disabled") else "tf32"),
                     (("fp32",), "fp32"), (("trtexec default",), "tf32")])


# (runtime, reason-not-modelled) by framework
A100_RUNTIMES = [
    (("PyTorch 1.12 eager", "PyTorch (NGC"), ("pytorch", None)),
    (("PyTorch eager (HF", "Torch-TensorRT"),
     (None, "BertForMaskedLM: the MLM head is not in the encoder graph")),
    # FasterTransformer's encoder with its padding removed (EFF-FT): the
    # encoder kernels of the TF custom-op rows, on the real tokens (map_a100)
    (("EFF-FT",), ("tensorrt", None)),
    # demoBERT's inference_benchmark.sh runs its C++ perf binary with
    # --enable_graph: the engine is replayed as a CUDA graph.
    (("TensorRT (demoBERT",), ("tensorrt-graph", None)),
    # AITemplate's benchmark_ait.py runs the compiled module with graph_mode
    # (--use-graph / --graph-mode default True): a CUDA graph per call.
    (("AITemplate",), ("tensorrt-graph", None)),
    (("Triton",),
     (None, "Triton server round trip through ONNX Runtime: not an engine-only timing")),
    (("AITemplate", "Paddle-TRT", "TensorRT", "FasterTransformer encoder",
      "FasterTransformer (C++"), ("tensorrt", None)),
    (("TorchScript",), (None, "TorchScript: neither eager dispatch nor a fused engine")),
    (("TensorFlow", "MXNet", "PaddlePaddle"),
     (None, "framework runtime not modelled (TensorFlow/XLA, MXNet, Paddle)")),
]


def a100_runtime(fw):
    """(runtime, reason-not-modelled)."""
    return first(fw, A100_RUNTIMES, (None, "measurement setup not stated"))


def a100_gpu(g):
    if has(g, "MIG - per-instance"):
        return None, None
    name = "A100-SXM4-40GB"
    if has(g, "PCIe-80GB", "PCIE-80GB"):
        name = "A100-PCIe-80GB"
    elif has(g, "80GB", "80 GB"):
        name = "A100-SXM4-80GB"
    return name, "1g.10gb" if has(g, "MIG 1g.10gb") else "-"


def map_a100(r):
    o = r.o
    model, fw, inp = o["model"], o["framework"], o.get("input") or ""
    r.family = a100_family(fw, o.get("source"))
    r.batch = int(o["batch"]) if o.get("batch") else 0
    if has(inp, "seq "):
        r.seq = num_after(inp, "seq ")
    if has(model, "resnet50_v2"):
        r.model_id = "resnet50_v2"
        r.why = "pre-activation ResNet-50 v2: no graph (the sample is v1.5)"
        return
    if has(model, "resnet50"):
        r.model_id, r.spec = "resnet50", "samples/resnet50.onnx"
    elif has(model, "efficientnet_b0"):
        r.model_id, r.spec = "efficientnet_b0", "samples/efficientnet_b0.onnx"
    elif has(model, "bert-base"):
        # the zoo template (the same graph as the other BERT-class rows; the
        # ONNX export carries ~3x as many nodes, shape arithmetic and
        # decomposed GELU, that an eager run does not dispatch)
        r.model_id, r.spec = "bert-base", "zoo:bert:preset=bert-base"
    elif has(model, "gpt"):
        r.model_id, r.spec = "gpt2-medium", GPT2_MEDIUM_ZOO
        if has(inp, "input ") and has(inp, "output "):
            r.tin, r.tout = num_after(inp, "input "), num_after(inp, "output ")
    else:
        r.why = "architecture without a graph"
        return
    if r.batch < 1:
        r.why = "no batch size (offline throughput only)"
        return
    if r.model_id in ("bert-base", "gpt2-medium") and r.seq < 1 and r.tin < 1:
        r.why = "sequence length not stated"
        return
    if r.model_id == "bert-base" and r.seq > 512:
        # AITemplate times the encoder stack only (no position table): the
        # template's table is sized to the sequence
        r.spec += ":max_position=%d" % r.seq
    r.gpu, r.mig = a100_gpu(o["gpu"])
    if r.gpu is None:
        return left_out(r, "MIG slice not stated", "gpu", "mig")
    if has(fw, "DIPPM"):
        r.prec, r.rt = "fp32", "pytorch"
        r.targets["latency_ms"] = ("latency_ms", "skip", "DIPPM point: latency of an unstated "
                                   "setup, about 7x NVIDIA's own PyTorch figure (outlier)")
        # device-level memory of an unstated setup: reported, not fitted
        r.targets["memory_mb"] = ("memory_mb", "eval", None)
        return
    r.prec = a100_precision(o["precision"])
    if r.prec is None:
        return left_out(r, "precision not stated", "prec")
    r.rt, why = a100_runtime(fw)
    if why:
        return left_out(r, why, "rt")
    r.gpu_timed = r.family in GPU_TIMED_FAMILIES
    if r.family == "mlperf" and has(o.get("source"), "/SingleStream/"):
        r.rt = "tensorrt-graph"   # NVIDIA's SingleStream configs set use_graphs (map_mlperf)
    if r.model_id == "gpt2-medium":
        # FasterTransformer times whole generation: the generation estimate
        # (prefill + decode steps over the template's KV cache); memory is
        # the process's device memory with input + output tokens of context.
        r.targets["latency_ms"] = ("latency_ms", "fit", None)
        r.targets["memory_mb"] = ("memory_mb", "fit", None)
        r.seq = r.tin + r.tout
        return
    # A precision the source does not state is assumed (trtexec's default
    # builds TF32 engines); such a figure is evaluated, not fitted. The one
    # case, TensorRT 8.4's non-quantized Keras ResNet-50 at 1.96 ms, is 2.3x
    # Paddle-TRT's TF32 figure for the same model and batch, as if TF32 were
    # off (strict FP32 engines are not a modelled setting).
    use = "eval" if has(o["precision"], "not stated") else "fit"
    if has(fw, "remove-padding") and has(o.get("source"), "avg real length = seq/2"):
        # EFF-FT's benchmark draws each sequence's real length so that the
        # mean is half the padded one (the source's "avg real length =
        # seq/2"): the token-wise work runs on seq/2 tokens. Evaluated, not
        # fitted, so the fitted constants stay those of the padded rows.
        r.tokens, use = r.seq // 2, "eval"
    r.targets["latency_ms"] = ("latency_ms", use, None)
    r.targets["memory_mb"] = ("memory_mb", "fit", None)
    r.targets["throughput_per_s"] = ("throughput_per_s", "skip",
                                     "derived from the latency (batch / latency)")


# ---- second file ----------------------------------------------------------------

TRTLLM_MODELS = [(("Mixtral",), ("mixtral-8x7b", "zoo:moe:preset=mixtral-8x7b")),
                 (("GPT-J",), ("gpt-j-6b", GPTJ)),
                 (("LLaMA 70B", "Llama-2 70B"), ("llama2-70b", LLAMA2_70B)),
                 (("LLaMA 7B", "Llama-2 7B"), ("llama2-7b", LLAMA2_7B)),
                 (("Llama-3 8B",), ("llama3-8b", "zoo:llama:preset=llama3-8b")),
                 (("Mistral 7B",), ("mistral-7b", MISTRAL_7B))]


def trtllm_model(m):
    return first(m, TRTLLM_MODELS, (m, None))


# the GPU is the text before any note: the A100 rows' notes cite the
# "H100vsA100" blog, which must not make them H100 rows
TRTLLM_GPUS = [(("H200",), "H200-SXM-141GB"), (("H100",), "H100-SXM5-80GB"),
               (("A100-PCIE-80GB",), "A100-PCIe-80GB"), (("A100",), "A100-SXM4-80GB")]


def trtllm_gpu(g):
    return first(re.split(r"[(,]", g or "", maxsplit=1)[0], TRTLLM_GPUS)


def map_trtllm(r):
    o = r.o
    r.model_id, r.spec = trtllm_model(o["model"])
    r.family = "trtllm-static" if o.get("batch") else "trtllm-maxload"
    inp = o.get("input") or ""
    r.tin, r.tout = num_after(inp, "input "), num_after(inp, "output ")
    r.gpu = trtllm_gpu(o["gpu"]) or "-"
    r.rt = "tensorrt"
    r.prec = "fp8" if has(o["precision"], "fp8") else "int8" if has(o["precision"], "int8") \
        else "fp16" if has(o["precision"], "fp16") else "-"
    if has(o.get("source"), "CAVEAT", "likely a typo"):
        r.why = "value flagged as suspect in the source"
        return
    if r.spec is None:
        return left_out(r, "no template for this model", "spec")
    if not o.get("batch"):
        r.why = "maximum-load in-flight batching: no batch size to model"
        return
    r.batch = int(o["batch"])
    if r.prec == "-":
        r.why = "precision not stated"
        return
    first_token = has(inp, "time to first token", "1st-token latency")
    if first_token or r.tout <= 1:
        # time to first token: one prefill pass over the input tokens (the
        # row's output length is that of the throughput run beside it)
        r.seq = r.tin
        r.tout = min(r.tout, 1) if first_token else r.tout
        r.targets["latency_ms"] = ("latency_ms", "fit", None)
        r.targets["throughput_per_s"] = ("throughput_per_s", "skip",
                                         "first-token rows: throughput derived from the latency")
        if not first_token:
            r.targets["latency_ms"] = ("latency_ms", "skip", "output length not stated")
        return
    r.targets["throughput_per_s"] = ("gen_output_tokens_per_s", "fit", None)
    if o.get("latency_ms") is not None:
        if has(inp, "1st-token latency"):
            r.seq = r.tin
        r.targets["latency_ms"] = ("latency_ms", "skip",
                                   "first-token latency quoted beside a throughput row at "
                                   "another operating point")


# Mean real tokens of a SQuAD v1.1 sequence padded to 384 (map_mlperf).
SQUAD_V11_REAL_TOKENS = round(384 * (1 - 0.54))
MLPERF_MODELS = {"resnet50": ("resnet50", "samples/resnet50.onnx", 0),
                 "bert-large": ("bert-large", BERT_LARGE, 384)}


MLPERF_GPUS = [(("H100-PCIe",), "H100-PCIe-80GB"), (("H100-SXM",), "H100-SXM5-80GB"),
               (("A100-PCIe-80GB",), "A100-PCIe-80GB"), (("A100-PCIe",), "A100-PCIe-40GB"),
               (("A100-SXM-80GB",), "A100-SXM4-80GB"), (("A100-SXM4",), "A100-SXM4-40GB")]


def mlperf_gpu(g):
    mig = first(g, [(("1x1g.10gb",), "1g.10gb"), (("1x1g.5gb",), "1g.5gb")], "-")
    return first(g, MLPERF_GPUS), mig


def map_mlperf(r):
    o = r.o
    r.family = "mlperf"
    m = re.search(r"/(Offline|SingleStream|Server|MultiStream)/", o.get("source") or "")
    scen = m.group(1) if m else None
    key = o["model"].split(" ")[0]
    if key.startswith("resnet50"):
        key = "resnet50"
    r.model_id = key
    r.gpu, r.mig = mlperf_gpu(o["gpu"])
    r.rt = "tensorrt"
    p = o["precision"]
    r.prec = "fp8" if has(p, "weights fp8") else "int8" if has(p, "weights int8") \
        else "fp16" if has(p, "weights fp16") else "-"
    if key not in MLPERF_MODELS:
        r.why = "no graph for this MLPerf model (3D-UNet, RNN-T, DLRM)"
        return
    r.model_id, r.spec, r.seq = MLPERF_MODELS[key]
    if r.gpu is None:
        return left_out(r, "GPU not recognised", "gpu")
    # NVIDIA's BERT harness removes the padding of the variable-length SQuAD
    # v1.1 samples (<= 384 tokens): 3,600 samples/s at 384 tokens would need
    # over 1,000 INT8 TOPS on an A100 (peak 624). Padding is 54% of the input
    # tokens of SQuAD v1.1 at a maximum sequence length of 384 (W. Zhang et
    # al., "Reducing BERT Computation by Padding Removal and Curriculum
    # Learning", ISPASS 2021, doi:10.1109/ISPASS51385.2021.00025, abstract:
    # https://openreview.net/forum?id=3nzKUh9a4M): 46% of 384 = 177 real
    # tokens per sequence on average. The linear layers run on those; the
    # attention is costed at 384 (graph/ops/tokens.h). The split the paper
    # counts is not stated, and the harness's own mean over the dev set is
    # not published: the rows are evaluated, not fitted.
    use = "eval" if r.model_id == "bert-large" else "fit"
    if r.model_id == "bert-large":
        r.tokens = SQUAD_V11_REAL_TOKENS
    if scen == "SingleStream":
        r.batch = 1
        # NVIDIA's SingleStream configs set use_graphs (configs/resnet50 and
        # configs/bert, SingleStream, every A100 system and MIG slice): the
        # harness replays the engine as a CUDA graph.
        r.rt = "tensorrt-graph"
        r.targets["latency_ms"] = ("latency_ms", use, None)
        r.targets["throughput_per_s"] = ("throughput_per_s", "skip",
                                         "SingleStream throughput is 1 / latency")
    elif scen == "Offline":
        r.batch = 0   # best throughput over the batch sizes that fit
        r.targets["throughput_per_s"] = ("throughput_per_s", use, None)
    elif scen == "Server":
        r.why = "Server scenario: throughput under a latency bound with Poisson arrivals"
    else:
        r.why = "MultiStream scenario: percentile latency of multi-sample queries"


MIGPROF_MODELS = [("bert-base-multilingual", "bert-base-multilingual", BERT_MULTI),
                  ("paraphrase-multilingual-MiniLM", "minilm-l12-multilingual", MINILM_MULTI),
                  ("paraphrase-multilingual-mpnet", "mpnet-base-multilingual", MPNET_MULTI),
                  ("distiluse-base-multilingual", "distiluse-multilingual", DISTILUSE)]


def map_migprofiler(r):
    o = r.o
    r.family = "migprofiler"
    for needle, mid, spec in MIGPROF_MODELS:
        if needle in o["model"]:
            r.model_id, r.spec = mid, spec
    # The source says FP32, but its BERT-base at batch 256, seq 64 does ~2.8
    # TFLOP in 0.4 s on a 1g.5gb slice: 7 TFLOPS, above the slice's FP32
    # CUDA-core peak (19.5 / 7 = 2.8): its PyTorch (2022, before 1.12) kept
    # TF32 on for matmuls by default, so the rows are TF32.
    r.gpu, r.rt, r.prec = "A100-SXM4-40GB", "pytorch", "tf32"
    m = re.search(r"MIG (\dg\.\d+gb)", o["gpu"])
    r.mig = m.group(1) if m else "-"
    r.batch = int(o["batch"] or 0)
    r.seq = num_after(o.get("input"), "seq ")
    if r.spec == "-":
        r.why = "architecture without a graph"
        return
    if r.mig == "-" or r.batch < 1 or r.seq < 1:
        r.why = "slice, batch or sequence length not stated"
        return
    r.targets["latency_ms"] = ("latency_ms", "fit", None)
    r.targets["memory_mb"] = ("memory_mb", "fit", None)
    r.targets["throughput_per_s"] = ("throughput_per_s", "skip",
                                     "derived from the latency (batch / latency)")


# ML.ENERGY v3 LLM rows (vLLM on one H100): text-only tasks of models with a
# template. The source states the measured mean concurrency ("measured avg
# batch"), used as the batch, and the mean output length; it does not state
# the prompt lengths, so each task gets an assumed mean input (prompt plus
# chat template): LM Arena chat 150 tokens, GPQA 300, Sourcegraph
# fill-in-the-middle 1,000. Per output token the prefill is a few percent of
# the work at these lengths, so the assumption moves energy per token little;
# it moves the KV-cache traffic of the decode steps. vLLM runs CUDA graphs of
# fused kernels and a Python step loop that handles every request each decode
# step: dippm's serving runtime (vllm) is its model.
MLENERGY_MODELS = [("Qwen3-Coder-30B-A3B", "zoo:moe:preset=qwen3-30b-a3b"),
                   ("Qwen3-30B-A3B-Instruct", "zoo:moe:preset=qwen3-30b-a3b"),
                   ("Qwen3-30B-A3B-Thinking", "zoo:moe:preset=qwen3-30b-a3b"),
                   ("Qwen3-8B", "zoo:llama:preset=qwen3-8b"),
                   ("Qwen3-14B", "zoo:llama:preset=qwen3-14b"),
                   ("Qwen3-32B", "zoo:llama:preset=qwen3-32b")]
MLENERGY_INPUT = [("LM Arena chat", 150), ("GPQA", 300), ("Sourcegraph fill-in-the-middle", 1000)]


def map_mlenergy(r):
    o = r.o
    inp = o.get("input") or ""
    r.rt, r.prec = "vllm", "bf16"
    r.spec = next((sp for name, sp in MLENERGY_MODELS if has(o["model"], name)
                   and not has(o["model"], "-VL-", "-Omni-")), None)
    if has(inp, "image+text", "video+text"):
        r.why = "image or video prompts: the vision encoder and image tokens are not modelled"
        return
    if r.spec is None:
        return left_out(r, "no template for this architecture (sliding-window attention, GeGLU)",
                        "spec")
    m = re.search(r"measured avg batch ([0-9.]+)", o.get("source") or "")
    r.tin = next((n for task, n in MLENERGY_INPUT if has(inp, task)), 0)
    r.tout = num_after(inp, "avg output ")
    if not m or not r.tin or not r.tout:
        r.why = "mean concurrency, task or output length not stated"
        return
    r.batch = max(1, int(round(float(m.group(1)))))
    r.targets["throughput_per_s"] = ("gen_output_tokens_per_s", "fit", None)
    # energy per token is time x power: it is predicted, never fitted
    r.targets["energy_j"] = ("energy_per_token_j", "eval", None)
    r.targets["power_w"] = ("power_w", "fit", None)
    r.targets["latency_ms"] = ("latency_ms", "skip",
                               "median inter-token latency under continuous batching (prefills "
                               "interleave); throughput carries the same timing")


# ML.ENERGY v3 diffusion rows (xDiT/diffusers on one H100): a pipeline is
# `steps` denoiser passes over 2 x batch latents (classifier-free guidance),
# then the VAE decoder (zoo:vae, derived from the denoiser's latent); the
# text encoder runs once and is not modelled (T5-XXL over 300 tokens, ~3
# TFLOP, about 1% of the denoiser's ~280 TFLOP). Every figure is evaluated,
# never fitted.
# The denoisers with a template (the image size sets the latent, image / 8).
DIFFUSION_MODELS = [("PixArt-Sigma-XL-2-1024", "zoo:dit:preset=pixart-sigma-xl2-1024"),
                    ("PixArt-Sigma-XL-2-512", "zoo:dit:preset=pixart-sigma-xl2-512"),
                    ("PixArt-XL-2-1024", "zoo:dit:preset=pixart-alpha-xl2-1024"),
                    ("stable-diffusion-xl-base-1.0", "zoo:unet:preset=sdxl"),
                    ("stable-diffusion-2-1", "zoo:unet:preset=sd21"),
                    ("stable-diffusion-v1-5", "zoo:unet:preset=sd15")]


def map_diffusion(r):
    o = r.o
    inp = o.get("input") or ""
    # diffusers runs eager PyTorch 2 with fused (SDPA) attention: dippm's
    # pytorch-sdpa runtime
    r.rt, r.prec = "pytorch-sdpa", "bf16"
    r.spec = next((sp for name, sp in DIFFUSION_MODELS if has(o["model"], name)), None)
    if r.spec is None:
        return left_out(r, "no template for this denoiser (linear-attention, video or "
                        "Hunyuan DiT)", "spec")
    m = re.search(r"(\d+) denoising steps", inp)
    size = re.search(r"text-to-image (\d+)x(\d+)", inp)
    if not m or not o.get("batch") or not size:
        r.why = "steps, batch or image size not stated"
        return
    if size.group(1) != size.group(2) or int(size.group(1)) % 64:
        r.why = "a non-square image or a side not a multiple of 64 (the templates' latents are square)"
        return
    r.spec += ":latent=%d" % (int(size.group(1)) // 8)
    r.steps, r.batch = int(m.group(1)), int(o["batch"])
    for field in ("latency_ms", "throughput_per_s", "energy_j", "power_w"):
        r.targets[field] = (field, "eval", None)


def map_more(r):
    o = r.o
    fw, model = o["framework"], o["model"]
    r.model_id = re.sub(r"\s*\(.*", "", model).strip().lower().replace(" ", "-")
    if has(fw, "TensorRT-LLM"):
        map_trtllm(r)
    elif has(fw, "MLPerf"):
        map_mlperf(r)
    elif has(fw, "MIGProfiler"):
        map_migprofiler(r)
    elif has(fw, "ML.ENERGY"):
        r.family = "mlenergy"
        r.gpu = "H100-SXM5-80GB"
        if has(fw, "xDiT"):
            map_diffusion(r)
        else:
            map_mlenergy(r)
    elif has(fw, "Triton"):
        r.family = "triton"
        r.why = "Triton server round trip (client latency): not an engine-only timing"
    elif has(model, "gpunet"):
        r.family = "dle"
        r.why = "GPUNet: no graph (NAS network, neither a sample nor a template)"
    elif has(fw, "TensorFlow"):
        r.family = "dle"
        r.why = "framework runtime not modelled (TensorFlow)"
    else:
        r.family = "other"
        r.why = "measurement setup not modelled"


# ---- table ------------------------------------------------------------------------

FIELDS = [("latency_ms", "latency_ms"), ("throughput_per_s", "throughput_per_s"),
          ("memory_mb", "memory_mb"), ("energy_j", "energy_j"), ("power_w", "power_w")]


def target_name(r, field):
    if r.family == "mlenergy" and field == "energy_j" and not has(r.o["framework"], "xDiT"):
        return "energy_per_token_j"
    if r.family.startswith("trtllm") and field == "throughput_per_s":
        return "gen_output_tokens_per_s"
    return field


def clean(s):
    return str(s).replace("\t", " ").replace("\n", " ")


def lines_for(r):
    out = []
    for field, _ in FIELDS:
        v = r.o.get(field)
        if v is None:
            continue
        if r.why:
            tgt, use, why = target_name(r, field), "skip", r.why
        elif field in r.targets:
            tgt, use, why = r.targets[field]
        else:
            tgt, use, why = target_name(r, field), "skip", "figure not modelled for this source"
        timing = "-" if tgt != "latency_ms" else "gpu" if r.gpu_timed else "wall"
        out.append([r.file, r.line, r.model_id, r.family, use, tgt, fmt_num(v), r.spec,
                    r.batch, r.seq, r.tokens, r.tin, r.tout, r.steps, r.gpu, r.mig, r.prec, r.rt,
                    timing, clean(why) if why else "-"])
    if not out:
        out.append([r.file, r.line, r.model_id, r.family, "skip", "-", "-", r.spec, r.batch,
                    r.seq, r.tokens, r.tin, r.tout, r.steps, r.gpu, r.mig, r.prec, r.rt, "-",
                    "no published figure in the row"])
    return out


def build(top):
    rows = [COLUMNS]
    for fname in FILES:
        path = os.path.join(top, "tests", "data", fname)
        with open(path, encoding="utf-8") as f:
            for i, text in enumerate(f, 1):
                if not text.strip():
                    continue
                r = Row(fname, i, json.loads(text))
                (map_a100 if fname == FILES[0] else map_more)(r)
                rows.extend(lines_for(r))
    return "".join("\t".join(str(c) for c in row) + "\n" for row in rows)


def main(argv):
    check = "--check" in argv[1:]
    top = TOP
    for a in argv[1:]:
        if a.startswith("--top="):
            top = a[len("--top="):]
    text = build(top)
    out = os.path.join(top, OUT)
    if check:
        try:
            with open(out, encoding="utf-8") as f:
                old = f.read()
        except OSError as e:
            print(f"calib_map.py: {out}: {e.strerror}", file=sys.stderr)
            return 1
        if old != text:
            a, b = old.splitlines(), text.splitlines()
            for i in range(max(len(a), len(b))):
                if i >= len(a) or i >= len(b) or a[i] != b[i]:
                    print(f"calib_map.py: {out}:{i + 1}: differs from the mapping of the JSONL "
                          f"files (re-run tools/calib_map.py)", file=sys.stderr)
                    print(f"  committed: {a[i] if i < len(a) else '(missing)'}", file=sys.stderr)
                    print(f"  expected:  {b[i] if i < len(b) else '(missing)'}", file=sys.stderr)
                    break
            return 1
        return 0
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
