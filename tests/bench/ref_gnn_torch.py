#!/usr/bin/python3
"""ref_gnn_torch.py - the dippm GNN forward rebuilt in PyTorch (CPU, one
thread) from the same .dpw weight file, run on the inputs the C code
computed (bench_ref gnn ... OUT.bin), checked against the C outputs and
timed against the C forward. "C fwd+feat" is features + forward with the
node rows cached from the run before (the same graph predicted again),
"cold" the same with every row made afresh (gnn_features_batch).

    /usr/bin/python3 ref_gnn_torch.py WEIGHTS.dpw EXPORT.bin [TSV_OUT] [--check-only]

The .dpw layout is read as weights/README.md and src/core/weights.h document it
(magic, version, schema, architecture, tensor table, normalisation,
description, float32 tensors, FNV-1a 64 checksum); the model follows the
equations in src/core/gnn.h. Exit status 1 if any output differs from C by more
than the tolerance (1e-4 relative to max(1, |value|) on the log outputs
and on the node time shares).
"""
import os
import struct
import sys
import time

# One core for BLAS too (torch.set_num_threads does not reach OpenBLAS's
# own threads); must be set before torch loads it.
for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

TOL = 1e-4


def fnv64_np(data):
    """FNV-1a 64 of a bytes object; pure Python but chunked for speed."""
    h = 0xCBF29CE484222325
    mask = 0xFFFFFFFFFFFFFFFF
    prime = 0x100000001B3
    for b in memoryview(data):
        h = ((h ^ b) * prime) & mask
    return h


def read_dpw(path):
    with open(path, "rb") as f:
        buf = f.read()
    if len(buf) < 8 + 4 + 8 + 24 + 4 + 8 or buf[:8] != b"DPPMGNN\0":
        sys.exit(f"{path}: not a dippm weight file (magic DPPMGNN expected)")
    (stored,) = struct.unpack_from("<Q", buf, len(buf) - 8)
    if fnv64_np(buf[:-8]) != stored:
        sys.exit(f"{path}: checksum mismatch")
    off = 8
    version, schema = struct.unpack_from("<IQ", buf, off)
    off += 12
    if version != 2:
        sys.exit(f"{path}: version {version}, this reader knows version 2")
    fn, fg, hidden, layers, head, ntg = struct.unpack_from("<6I", buf, off)
    off += 24
    (nt,) = struct.unpack_from("<I", buf, off)
    off += 4
    table = []
    for _ in range(nt):
        ln = buf[off]
        name = buf[off + 1 : off + 1 + ln].decode()
        off += 1 + ln
        rows, cols = struct.unpack_from("<II", buf, off)
        off += 8
        table.append((name, rows, cols))

    def f32(n):
        nonlocal off
        a = np.frombuffer(buf, dtype="<f4", count=n, offset=off).astype(np.float32)
        off += 4 * n
        return a

    norm = {"node_mean": f32(fn), "node_std": f32(fn), "graph_mean": f32(fg),
            "graph_std": f32(fg), "bound": f32(ntg), "node_bound": f32(1)}
    (dl,) = struct.unpack_from("<I", buf, off)
    desc = buf[off + 4 : off + 4 + dl].decode(errors="replace")
    off += 4 + dl
    tensors = {}
    for name, rows, cols in table:
        tensors[name] = torch.from_numpy(f32(rows * cols).reshape(rows, cols).copy())
    if off != len(buf) - 8:
        sys.exit(f"{path}: {len(buf) - 8 - off} bytes left over after the tensors")
    arch = dict(fn=fn, fg=fg, hidden=hidden, layers=layers, head=head, ntg=ntg)
    return arch, norm, tensors, desc, schema


class Reader:
    def __init__(self, path):
        with open(path, "rb") as f:
            self.buf = f.read()
        self.off = 0
        self.path = path

    def take(self, fmt, n):
        dt = np.dtype(fmt)
        a = np.frombuffer(self.buf, dtype=dt, count=n, offset=self.off)
        self.off += dt.itemsize * n
        return a

    def u32(self):
        (v,) = struct.unpack_from("<I", self.buf, self.off)
        self.off += 4
        return v


def read_export(path):
    r = Reader(path)
    if r.buf[:8] != b"DPBREF1\0":
        sys.exit(f"{path}: not a bench_ref gnn export")
    r.off = 8
    graphs = []
    for _ in range(r.u32()):
        ln = r.u32()
        label = r.buf[r.off : r.off + ln].decode()
        r.off += ln
        n, fn, fg = (int(x) for x in r.take("<i4", 3))
        g = {"label": label, "n": n}
        g["xn"] = r.take("<f4", n * fn).reshape(n, fn)
        g["xg"] = r.take("<f4", fg)
        g["anchor"] = r.take("<f4", 3)
        g["w0"] = r.take("<f4", n)
        g["pred_off"] = r.take("<i4", n + 1)
        g["pred"] = r.take("<i4", int(g["pred_off"][-1]))
        g["succ_off"] = r.take("<i4", n + 1)
        g["succ"] = r.take("<i4", int(g["succ_off"][-1]))
        g["out"] = r.take("<f4", 3)
        g["share"] = r.take("<f4", n)
        (g["c_fwd_wall"], g["c_fwd_cpu"], g["c_full_wall"], g["c_full_cpu"], g["c_cold_wall"],
         g["c_cold_cpu"]) = r.take("<f8", 6)
        graphs.append(g)
    return graphs


def mean_matrix(off, idx, n):
    """Sparse n x n matrix whose row i averages the rows idx[off[i]:off[i+1]]."""
    deg = np.diff(off)
    rows = np.repeat(np.arange(n), deg)
    vals = (1.0 / np.maximum(deg, 1)).repeat(deg).astype(np.float32)
    ind = torch.from_numpy(np.stack([rows, idx.astype(np.int64)]))
    return torch.sparse_coo_tensor(ind, torch.from_numpy(vals), (n, n)).coalesce()


def forward(arch, norm, t, xn, xg, w0, anchor, ap, as_):
    """src/core/gnn.h: embedding, `layers` mean-aggregation layers with residual,
    bounded node log factors c, S = log sum w0 exp(c), shares, readout, head
    MLP + skip, bounded graph corrections added to the teacher's logs."""
    n = xn.shape[0]
    x = torch.cat([xn, xg.expand(n, -1)], dim=1)
    h = torch.relu(x @ t["emb.w"] + t["emb.b"])
    for l in range(arch["layers"]):
        m = torch.cat([h, torch.sparse.mm(ap, h), torch.sparse.mm(as_, h)], dim=1)
        h = torch.relu(m @ t[f"mp{l}.w"] + t[f"mp{l}.b"]) + h
    u = torch.relu(h @ t["node1.w"] + t["node1.b"])
    nb = float(norm["node_bound"][0])
    c = nb * torch.tanh(((u @ t["node2.w"]).squeeze(1) + t["node2.b"][0, 0]) / nb)
    e = w0 * torch.exp(c)
    S = torch.log(e.sum())
    share = e / e.sum()
    r = torch.cat([h.mean(dim=0), h.max(dim=0).values, S.reshape(1), xg.reshape(-1)])
    z = torch.relu(r @ t["head1.w"] + t["head1.b"][0])
    z = torch.relu(z @ t["head2.w"] + t["head2.b"][0])
    o = z @ t["head3.w"] + t["head3.b"][0] + r @ t["skip.w"]
    B = torch.from_numpy(norm["bound"].copy())
    direct = torch.stack([S, S, torch.zeros(())])
    return anchor + direct + B * torch.tanh(o / B), share


def median_times(fn, min_reps, budget):
    fn()  # warm-up
    wall, cpu = [], []
    start = time.perf_counter()
    while len(wall) < min_reps or (time.perf_counter() - start < budget and len(wall) < 500):
        w0, c0 = time.perf_counter(), time.thread_time()
        fn()
        cpu.append((time.thread_time() - c0) * 1e3)
        wall.append((time.perf_counter() - w0) * 1e3)
    return float(np.median(wall)), float(np.median(cpu)), len(wall)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    check_only = "--check-only" in sys.argv
    if len(args) < 2:
        sys.exit(__doc__)
    torch.set_num_threads(1)
    arch, norm, t, desc, _ = read_dpw(args[0])
    graphs = read_export(args[1])
    tsv = open(args[2], "w") if len(args) > 2 else None
    print(f"PyTorch {torch.__version__} reference, {torch.get_num_threads()} thread, "
          f"weights {args[0]} (hidden {arch['hidden']}, {arch['layers']} layers)")
    bad = 0
    if not check_only:
        print(f"  {'graph':22s} {'nodes':>6s} {'max|diff|':>9s} {'torch fwd':>10s} "
              f"{'C fwd':>9s} {'ratio':>7s} {'C fwd+feat':>10s} {'ratio':>7s} {'cold':>9s} "
              f"{'ratio':>7s}   (CPU ms, medians)")
    for g in graphs:
        n = g["n"]
        xn, xg = torch.from_numpy(g["xn"].copy()), torch.from_numpy(g["xg"].copy())
        w0 = torch.from_numpy(g["w0"].copy())
        anchor = torch.from_numpy(g["anchor"].copy())
        ap = mean_matrix(g["pred_off"], g["pred"], n)
        as_ = mean_matrix(g["succ_off"], g["succ"], n)
        with torch.no_grad():
            y, share = forward(arch, norm, t, xn, xg, w0, anchor, ap, as_)
            dy = np.abs(y.numpy() - g["out"]) / np.maximum(1.0, np.abs(g["out"]))
            ds = np.abs(share.numpy() - g["share"])
            diff = float(max(dy.max(), ds.max()))
            if not np.isfinite(diff) or diff > TOL:
                bad += 1
                print(f"MISMATCH {g['label']}: outputs C {g['out']} torch {y.numpy()}, "
                      f"max share diff {ds.max():.3g}", file=sys.stderr)
            if check_only:
                print(f"  {g['label']:22s} {n:6d} nodes  max rel diff {diff:.2e} "
                      f"({'ok' if diff <= TOL else 'FAIL'})")
                continue
            tw, tc, reps = median_times(
                lambda: forward(arch, norm, t, xn, xg, w0, anchor, ap, as_), 10, 0.6)
        r1 = tc / g["c_fwd_cpu"] if g["c_fwd_cpu"] > 0 else float("inf")
        r2 = tc / g["c_full_cpu"] if g["c_full_cpu"] > 0 else float("inf")
        r3 = tc / g["c_cold_cpu"] if g["c_cold_cpu"] > 0 else float("inf")
        print(f"  {g['label']:22s} {n:6d} {diff:9.1e} {tc:10.3f} {g['c_fwd_cpu']:9.3f} "
              f"{r1:6.1f}x {g['c_full_cpu']:10.3f} {r2:6.1f}x {g['c_cold_cpu']:9.3f} {r3:6.1f}x")
        if tsv:
            tsv.write(f"gnn_ref\t{g['label']}\t{n}\t{tw:.6f}\t{tc:.6f}\t{g['c_fwd_wall']:.6f}\t"
                      f"{g['c_fwd_cpu']:.6f}\t{g['c_full_cpu']:.6f}\t{r1:.3f}\t{r2:.3f}\t"
                      f"{diff:.3e}\t{reps}\t{g['c_cold_cpu']:.6f}\t{r3:.3f}\n")
    if tsv:
        tsv.close()
    if bad:
        print(f"{bad} graph(s) where C and PyTorch disagree beyond {TOL}", file=sys.stderr)
        return 1
    print(f"  C and PyTorch outputs agree within {TOL} on all {len(graphs)} graphs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
