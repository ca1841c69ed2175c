#!/usr/bin/python3
"""Builds the real-model corpus under tests/models/corpus/ and its reference
figures (expected.json), which tests/test_corpus.c checks dippm against.

    /usr/bin/python3 tools/export_corpus.py [--only NAME...] [--add FILE.onnx ...]

Exports torchvision models (weights=None, seeded) with torch.onnx, copies
ONNX files given with --add (e.g. models found in npm packages; their source
and licence go in tests/models/corpus/SOURCES by hand), and strips every
initializer and Constant payload (inside If/Loop/Scan bodies too) except
small integer tensors that shape inference folds.

Reference figures per file, none computed by dippm:
  nodes      nodes of the graph and all its subgraphs (python onnx)
  init_elems elements of every initializer, subgraphs included (python onnx)
  torch_macs multiply-accumulates of the Conv/Linear modules in one forward
             pass of the exported module (torch forward hooks), for models
             without data-dependent control flow
  num_params torchvision's published parameter count (weights meta), when
             the export keeps every parameter as an initializer
"""
import argparse
import io
import json
import os
import shutil
import sys

import onnx
import torch
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_control import strip_graph  # noqa: E402

OUT = "tests/models/corpus"

# name: (input shape, export kind); "cls" keeps BatchNormalization
# (do_constant_folding=False, TrainingMode.PRESERVE) so every parameter is an
# initializer; "det" uses the default export of a detection model.
MODELS = {
    "squeezenet1_1": ((1, 3, 224, 224), "cls"),
    "shufflenet_v2_x1_0": ((1, 3, 224, 224), "cls"),
    "mnasnet0_5": ((1, 3, 224, 224), "cls"),
    "mobilenet_v3_small": ((1, 3, 224, 224), "cls"),
    "regnet_y_400mf": ((1, 3, 224, 224), "cls"),
    "regnet_x_400mf": ((1, 3, 224, 224), "cls"),
    "googlenet": ((1, 3, 224, 224), "cls"),
    "resnet18": ((1, 3, 224, 224), "cls"),
    "alexnet": ((1, 3, 224, 224), "cls"),
    "resnext50_32x4d": ((1, 3, 224, 224), "cls"),
    "efficientnet_b1": ((1, 3, 240, 240), "cls"),
    "resnet34": ((1, 3, 224, 224), "cls"),
    "vgg11_bn": ((1, 3, 224, 224), "cls"),
    "mnasnet1_0": ((1, 3, 224, 224), "cls"),
    "shufflenet_v2_x0_5": ((1, 3, 224, 224), "cls"),
    "squeezenet1_0": ((1, 3, 224, 224), "cls"),
    "regnet_y_800mf": ((1, 3, 224, 224), "cls"),
    "lraspp_mobilenet_v3_large": ((1, 3, 520, 520), "seg"),
    "deeplabv3_mobilenet_v3_large": ((1, 3, 520, 520), "seg"),
    "ssdlite320_mobilenet_v3_large": ((3, 320, 320), "det"),
    "fasterrcnn_mobilenet_v3_large_320_fpn": ((3, 320, 320), "det"),
}


class EncDec(torch.nn.Module):
    """A HuggingFace-style encoder-decoder (token embeddings, 2 encoder and
    2 decoder layers, LM head) from torch.nn.Transformer."""
    D, H, FF, V, LE, LD = 128, 4, 256, 1000, 2, 2

    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(self.V, self.D)
        self.tf = torch.nn.Transformer(self.D, self.H, self.LE, self.LD, self.FF,
                                       dropout=0.0, batch_first=True)
        self.head = torch.nn.Linear(self.D, self.V)

    def forward(self, src, tgt):
        return self.head(self.tf(self.emb(src), self.emb(tgt)))

    @classmethod
    def macs(cls, ls, lt):
        """Projections, attention scores and context, feed-forward, head."""
        d, ff = cls.D, cls.FF
        def attn(lq, lk):
            return lq * d * d + 2 * lk * d * d + 2 * lq * lk * d + lq * d * d
        enc = cls.LE * (attn(ls, ls) + 2 * ls * d * ff)
        dec = cls.LD * (attn(lt, lt) + attn(lt, ls) + 2 * lt * d * ff)
        return enc + dec + lt * d * cls.V


def export_encdec():
    torch.manual_seed(0)
    m = EncDec().eval()
    with torch.no_grad():
        for p in m.parameters():
            p.add_(torch.randn_like(p) * 1e-3)
    src = torch.randint(0, EncDec.V, (1, 16))
    tgt = torch.randint(0, EncDec.V, (1, 8))
    buf = io.BytesIO()
    # grad enabled: under no_grad torch takes a fused fast path the exporter lacks
    torch.onnx.export(m, (src, tgt), buf, opset_version=14, input_names=["src", "tgt"],
                      dynamic_axes={"src": {0: "batch", 1: "src_seq"},
                                    "tgt": {0: "batch", 1: "tgt_seq"}})
    ref = {"source": "torch.nn.Transformer encoder-decoder (tools/export_corpus.py EncDec)",
           "num_params": sum(p.numel() for p in m.parameters()),
           "torch_macs": EncDec.macs(16, 8), "bind": {"src_seq": 16, "tgt_seq": 8}}
    return onnx.load_from_string(buf.getvalue()), ref


def count(g):
    nodes, elems = 0, 0
    for t in g.initializer:
        n = 1
        for d in t.dims:
            n *= d
        elems += n
    for node in g.node:
        nodes += 1
        for a in node.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                n2, e2 = count(a.g)
                nodes += n2
                elems += e2
    return nodes, elems


def hook_macs(m, x):
    total = [0]

    def conv(mod, inp, out):
        k = 1
        for s in mod.kernel_size:
            k *= s
        total[0] += out.numel() * (mod.in_channels // mod.groups) * k

    def lin(mod, inp, out):
        total[0] += out.numel() * mod.in_features

    hs = []
    for mod in m.modules():
        if isinstance(mod, torch.nn.Conv2d):
            hs.append(mod.register_forward_hook(conv))
        elif isinstance(mod, torch.nn.Linear):
            hs.append(mod.register_forward_hook(lin))
    with torch.no_grad():
        m(x)
    for h in hs:
        h.remove()
    return total[0]


def get(name):
    kw = {"weights": None}
    if name == "googlenet":
        kw.update(aux_logits=False, init_weights=True)
    if name.startswith(("lraspp", "deeplab", "ssd", "faster")):
        kw["weights_backbone"] = None
    if name.startswith("deeplab"):
        kw["aux_loss"] = False
    return torchvision.models.get_model(name, **kw).eval()


def export(name, shape, kind):
    torch.manual_seed(0)
    m = get(name)
    with torch.no_grad():
        for p in list(m.parameters()) + list(m.buffers()):
            if p.dtype.is_floating_point:
                p.add_(torch.randn_like(p) * 1e-3)
    x = torch.rand(*shape)
    ref = {"source": f"torchvision {torchvision.__version__} models.get_model('{name}', "
                     "weights=None), exported by tools/export_corpus.py"}
    buf = io.BytesIO()
    if kind == "det":
        torch.onnx.export(m, ([x],), buf, opset_version=13, input_names=["images"])
    else:
        ref["torch_macs"] = hook_macs(m, x)
        kw = {}
        if kind == "cls":
            kw = dict(do_constant_folding=False, training=torch.onnx.TrainingMode.PRESERVE)
        torch.onnx.export(m, (x,), buf, opset_version=13, input_names=["input"], **kw)
    if kind == "cls":
        w = torchvision.models.get_model_weights(name).DEFAULT
        ref["num_params"] = w.meta["num_params"]
    model = onnx.load_from_string(buf.getvalue())
    return model, ref


def finish(model, name, ref, exp):
    strip_graph(model.graph)
    onnx.save(model, f"{OUT}/{name}.onnx")
    ref["nodes"], ref["init_elems"] = count(model.graph)
    exp[name] = ref


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--add", nargs="*", default=[])
    a = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    path = f"{OUT}/expected.json"
    exp = json.load(open(path)) if os.path.exists(path) else {}
    for name, (shape, kind) in MODELS.items():
        if a.only is not None and name not in a.only:
            continue
        model, ref = export(name, shape, kind)
        finish(model, name, ref, exp)
        print(name, ref, flush=True)
    if a.only is None or "encdec_transformer" in a.only:
        model, ref = export_encdec()
        finish(model, "encdec_transformer", ref, exp)
        print("encdec_transformer", ref, flush=True)
    for f in a.add:
        name = os.path.splitext(os.path.basename(f))[0]
        finish(onnx.load(f), name, {"source": "see SOURCES"}, exp)
        print(name, exp[name], flush=True)
    with open(path, "w") as fh:
        json.dump(exp, fh, indent=1, sort_keys=True)
        fh.write("\n")


if __name__ == "__main__":
    main()
