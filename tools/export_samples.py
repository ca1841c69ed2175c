#!/usr/bin/python3
"""Export real architectures to weightless ONNX samples for dippm.

Run with Debian's interpreter (it sees python3-torch, python3-torchvision and
python3-onnx):

    /usr/bin/python3 tools/export_samples.py                 # all samples -> samples/
    /usr/bin/python3 tools/export_samples.py resnet50 bert_base
    /usr/bin/python3 tools/export_samples.py --full resnet50 -o /tmp/resnet50_full.onnx

Every model gets a dynamic batch axis named "batch" (transformers also "seq").
Exports use do_constant_folding=False and TrainingMode.PRESERVE on an eval
model, so BatchNormalization stays a node and the parameter tensors are the
model's own: the sum of initializer elements minus BN running statistics and
integer tensors equals sum(p.numel() for p in model.parameters()).

The exporter deduplicates initializers with identical contents; randomly
initialised layers share identical tensors (BN gamma = 1, LayerNorm beta = 0),
so every parameter and buffer is perturbed with seeded noise before export.

After export, initializer payloads are stripped (raw_data and the typed *_data
fields cleared; name, data_type and dims kept) except small integer tensors
(<= 4096 elements) and float tensors of <= 16 elements, which shape inference
needs for constant folding. samples/samples.json records, per sample, what the
export produced (node and initializer counts, inputs and their symbols, the
torch parameter count) and torchvision's published figures, so the C tests can
check the loader against numbers it did not compute.

--full writes an unstripped export (about 100 MB for ResNet-50) for the load
benchmark; never commit such a file.
"""
import argparse
import io
import json
import math
import os
import sys

import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

KEEP_INT_MAX = 4096   # integer tensors up to this many elements keep contents
KEEP_FLOAT_MAX = 16   # float tensors up to this many elements keep contents

# torchvision's published figures (weights meta "num_params" and "_ops", the
# GFLOPS column of the model documentation, which counts multiply-accumulates),
# checked against torchvision/models/*.py of the torchvision repository.
TV_PUBLISHED = {
    "resnet50": (25557032, 4.089),
    "mobilenet_v2": (3504872, 0.301),
    "efficientnet_b0": (5288548, 0.386),
    "vit_b_16": (86567656, 17.564),
    "densenet121": (7978856, 2.834),
    "convnext_tiny": (28589128, 4.456),
    "swin_t": (28288354, 4.491),
    "vgg16": (138357544, 15.47),
    "mobilenet_v3_large": (5483032, 0.217),
}

# name -> opset. CNNs at 13 (older exporter paths), models with LayerNorm at 17
# (which emits LayerNormalization instead of its decomposition).
TV_OPSET = {
    "resnet50": 13, "mobilenet_v2": 13, "efficientnet_b0": 13, "vit_b_16": 17,
    "densenet121": 13, "convnext_tiny": 17, "swin_t": 17, "vgg16": 13,
    "mobilenet_v3_large": 13,
}


# ---- transformer models built from torch.nn layers ------------------------

class SelfAttention(nn.Module):
    def __init__(self, hidden, heads, causal):
        super().__init__()
        self.heads, self.causal = heads, causal
        self.q = nn.Linear(hidden, hidden)
        self.k = nn.Linear(hidden, hidden)
        self.v = nn.Linear(hidden, hidden)
        self.o = nn.Linear(hidden, hidden)

    def forward(self, x, mask_add=None):
        b, t, h = x.shape
        d = h // self.heads

        def split(y):
            return y.view(b, t, self.heads, d).transpose(1, 2)

        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        s = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d)
        if self.causal:
            causal = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
            s = s.masked_fill(~causal, float("-inf"))
        if mask_add is not None:
            s = s + mask_add
        p = torch.softmax(s, dim=-1)
        y = torch.matmul(p, v).transpose(1, 2).reshape(b, t, h)
        return self.o(y)


class EncoderLayer(nn.Module):
    """BERT layer: post-norm attention and GELU MLP."""

    def __init__(self, hidden, heads, inter):
        super().__init__()
        self.attn = SelfAttention(hidden, heads, causal=False)
        self.ln1 = nn.LayerNorm(hidden, eps=1e-12)
        self.fc1 = nn.Linear(hidden, inter)
        self.fc2 = nn.Linear(inter, hidden)
        self.ln2 = nn.LayerNorm(hidden, eps=1e-12)

    def forward(self, x, mask_add):
        x = self.ln1(x + self.attn(x, mask_add))
        return self.ln2(x + self.fc2(F.gelu(self.fc1(x))))


class BertBase(nn.Module):
    def __init__(self, vocab=30522, hidden=768, layers=12, heads=12, inter=3072, max_pos=512):
        super().__init__()
        self.word = nn.Embedding(vocab, hidden)
        self.pos = nn.Embedding(max_pos, hidden)
        self.tok_type = nn.Embedding(2, hidden)
        self.ln = nn.LayerNorm(hidden, eps=1e-12)
        self.layers = nn.ModuleList(EncoderLayer(hidden, heads, inter) for _ in range(layers))
        self.pool = nn.Linear(hidden, hidden)

    def forward(self, input_ids, attention_mask):
        t = input_ids.shape[1]
        pos = torch.arange(t, device=input_ids.device).unsqueeze(0)
        x = self.word(input_ids) + self.pos(pos) + self.tok_type(torch.zeros_like(input_ids))
        x = self.ln(x)
        mask_add = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -10000.0
        for layer in self.layers:
            x = layer(x, mask_add)
        return x, torch.tanh(self.pool(x[:, 0]))


class DecoderLayer(nn.Module):
    """GPT-2 block: pre-norm causal attention and GELU MLP."""

    def __init__(self, hidden, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(hidden)
        self.attn = SelfAttention(hidden, heads, causal=True)
        self.ln2 = nn.LayerNorm(hidden)
        self.fc1 = nn.Linear(hidden, 4 * hidden)
        self.fc2 = nn.Linear(4 * hidden, hidden)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class Gpt2Medium(nn.Module):
    def __init__(self, vocab=50257, hidden=1024, layers=24, heads=16, ctx=1024):
        super().__init__()
        self.wte = nn.Embedding(vocab, hidden)
        self.wpe = nn.Embedding(ctx, hidden)
        self.layers = nn.ModuleList(DecoderLayer(hidden, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(hidden)

    def forward(self, input_ids):
        t = input_ids.shape[1]
        pos = torch.arange(t, device=input_ids.device).unsqueeze(0)
        x = self.wte(input_ids) + self.wpe(pos)
        for layer in self.layers:
            x = layer(x)
        # LM head tied to the token embedding, as in GPT-2.
        return torch.matmul(self.ln_f(x), self.wte.weight.t())


# ---- export -----------------------------------------------------------------

def perturb(model, seed):
    """Makes every tensor distinct so the exporter's dedup cannot merge them."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for t in list(model.parameters()) + list(model.buffers()):
            if t.is_floating_point():
                t.add_(torch.randn(t.shape, generator=g) * 1e-3)


def build(name):
    """(model, args, input_names, output_names, dynamic_axes, opset, input spec)."""
    if name == "bert_base":
        m = BertBase()
        ids = torch.randint(0, 30522, (2, 16))
        mask = torch.ones(2, 16, dtype=torch.int64)
        dyn = {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"},
               "last_hidden_state": {0: "batch", 1: "seq"}, "pooled": {0: "batch"}}
        return (m, (ids, mask), ["input_ids", "attention_mask"], ["last_hidden_state", "pooled"],
                dyn, 17)
    if name == "gpt2_medium":
        m = Gpt2Medium()
        ids = torch.randint(0, 50257, (2, 16))
        dyn = {"input_ids": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"}}
        return m, (ids,), ["input_ids"], ["logits"], dyn, 17
    kwargs = {}
    m = torchvision.models.get_model(name, weights=None, **kwargs)
    x = torch.randn(2, 3, 224, 224)
    dyn = {"input": {0: "batch"}, "output": {0: "batch"}}
    return m, (x,), ["input"], ["output"], dyn, TV_OPSET[name]


def export(name, opset_override=None):
    torch.manual_seed(0)
    model, args, in_names, out_names, dyn, opset = build(name)
    if opset_override:
        opset = opset_override
    model.eval()
    perturb(model, 1234)
    params = sum(p.numel() for p in model.parameters())
    buf = io.BytesIO()
    # No torch.no_grad(): vit_b_16 fails to export under it (torch 1.13).
    torch.onnx.export(model, args, buf, opset_version=opset, input_names=in_names,
                      output_names=out_names, dynamic_axes=dyn, do_constant_folding=False,
                      training=torch.onnx.TrainingMode.PRESERVE)
    return onnx.load_from_string(buf.getvalue()), params, opset, dyn, in_names


def numel(t):
    n = 1
    for d in t.dims:
        n *= d
    return n


INT_TYPES = {onnx.TensorProto.INT64, onnx.TensorProto.INT32, onnx.TensorProto.INT16,
             onnx.TensorProto.INT8, onnx.TensorProto.UINT8, onnx.TensorProto.UINT16,
             onnx.TensorProto.UINT32, onnx.TensorProto.UINT64, onnx.TensorProto.BOOL}
FLOAT_TYPES = {onnx.TensorProto.FLOAT, onnx.TensorProto.DOUBLE, onnx.TensorProto.FLOAT16}


def keep_contents(t):
    n = numel(t)
    return (t.data_type in INT_TYPES and n <= KEEP_INT_MAX) or \
           (t.data_type in FLOAT_TYPES and n <= KEEP_FLOAT_MAX)


def strip(t):
    for f in ("raw_data", "float_data", "int32_data", "int64_data", "double_data",
              "uint64_data", "string_data"):
        t.ClearField(f)


def strip_model(m):
    kept = []
    for t in m.graph.initializer:
        if keep_contents(t):
            if t.data_type in INT_TYPES:
                kept.append(t.name)
        else:
            strip(t)
    for node in m.graph.node:
        for a in node.attribute:
            if a.type == onnx.AttributeProto.TENSOR and not keep_contents(a.t):
                strip(a.t)
    return kept


def shape_of(vi):
    dims = []
    for d in vi.type.tensor_type.shape.dim:
        dims.append(d.dim_param if d.HasField("dim_param") else d.dim_value)
    return dims


def record(name, m, params, opset, kept, path):
    g = m.graph
    init_names = {t.name for t in g.initializer}
    bn_stats = set()
    for n in g.node:
        if n.op_type == "BatchNormalization":
            bn_stats.update(n.input[3:5])
    float_params = sum(numel(t) for t in g.initializer
                       if t.data_type in FLOAT_TYPES and t.name not in bn_stats)
    ops = {}
    for n in g.node:
        ops[n.op_type] = ops.get(n.op_type, 0) + 1
    entry = {
        "name": name, "file": os.path.basename(path), "opset": opset,
        "ir_version": m.ir_version,
        "nodes": len(g.node), "initializers": len(g.initializer),
        "inputs": [{"name": vi.name, "shape": shape_of(vi)} for vi in g.input
                   if vi.name not in init_names],
        "outputs": [{"name": vi.name, "shape": shape_of(vi)} for vi in g.output],
        "torch_params": params,
        "onnx_float_params_excl_bn_stats": float_params,
        "kept_int_initializers": kept,
        "op_counts": dict(sorted(ops.items())),
    }
    if name in TV_PUBLISHED:
        entry["torchvision_params"], entry["torchvision_gflops"] = TV_PUBLISHED[name]
    return entry


ALL = ["resnet50", "mobilenet_v2", "efficientnet_b0", "vit_b_16", "bert_base", "gpt2_medium",
       "densenet121", "convnext_tiny", "swin_t", "vgg16", "mobilenet_v3_large"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("models", nargs="*", help="models to export (default: all)")
    ap.add_argument("--out-dir", default=os.path.join(os.path.dirname(__file__), "..", "samples"))
    ap.add_argument("--full", metavar="MODEL", help="write one unstripped export (benchmark)")
    ap.add_argument("-o", "--output", help="output path for --full")
    a = ap.parse_args()

    if a.full:
        if not a.output:
            ap.error("--full needs -o PATH (outside the source tree)")
        m, params, opset, _, _ = export(a.full)
        onnx.save(m, a.output)
        print(f"{a.output}: {os.path.getsize(a.output)} bytes, {params} params, opset {opset}")
        return 0

    names = a.models or ALL
    side = os.path.join(a.out_dir, "samples.json")
    table = {}
    if os.path.exists(side):
        with open(side) as f:
            table = {e["name"]: e for e in json.load(f)["samples"]}
    for name in names:
        if name not in ALL:
            print(f"unknown model {name}; known: {', '.join(ALL)}", file=sys.stderr)
            return 2
        m, params, opset, _, _ = export(name)
        kept = strip_model(m)
        path = os.path.join(a.out_dir, name + ".onnx")
        onnx.save(m, path)
        size = os.path.getsize(path)
        if size >= 2 << 20:
            print(f"{path}: {size} bytes, over the 2 MB limit", file=sys.stderr)
            return 1
        table[name] = record(name, m, params, opset, kept, path)
        print(f"{path}: {size} bytes, {len(m.graph.node)} nodes, {params} params", flush=True)
    meta = {
        "generator": "tools/export_samples.py",
        "versions": {"torch": torch.__version__, "torchvision": torchvision.__version__,
                     "onnx": onnx.__version__},
        "keep_int_max": KEEP_INT_MAX, "keep_float_max": KEEP_FLOAT_MAX,
        "samples": [table[n] for n in ALL if n in table],
    }
    with open(side, "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
