#!/bin/sh
# check_gnn_torch.sh - make check: the C GNN forward (src/core/gnn.c) against an
# independent PyTorch rebuild (tests/bench/ref_gnn_torch.py) that reads the
# same .dpw file per its documented format, on the same input features.
# Runs with a random model (always) and with the shipped weights (when
# present); fails when /usr/bin/python3 has no torch (./setup.sh check installs it).
set -u
py=${PYTHON:-/usr/bin/python3}
src=${TOP_SRCDIR:-$(dirname "$0")/../..}
ref=./tests/bench/bench_ref
"$py" -c 'import importlib.util as u, sys; sys.exit(not (u.find_spec("torch") and u.find_spec("numpy")))' 2>/dev/null || { echo "FAIL: $py cannot import torch and numpy (apt-get install python3-torch; ./setup.sh check installs it)"; exit 1; }
[ -x "$ref" ] || { echo "FAIL: $ref not built"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export OPENBLAS_NUM_THREADS=1
rc=0
echo "random model:"
"$ref" gnn-check "$tmp/r.bin" "$tmp/r.dpw" &&
    "$py" "$src/tests/bench/ref_gnn_torch.py" "$tmp/r.dpw" "$tmp/r.bin" --check-only || rc=1
w="$src/weights/dippm-gnn.dpw"
if [ -f "$w" ]; then
    echo "shipped weights $w:"
    "$ref" gnn-check "$tmp/s.bin" "$tmp/s.dpw" "$w" &&
        "$py" "$src/tests/bench/ref_gnn_torch.py" "$w" "$tmp/s.bin" --check-only || rc=1
fi
# The comparison must be able to fail: add 0.5 to the bias of the
# latency output (head3.b) and re-seal the checksum.
"$py" - "$tmp/r.dpw" "$tmp/bad.dpw" <<'PY' || rc=1
import struct, sys
buf = bytearray(open(sys.argv[1], "rb").read())
fn, fg, hidden, layers, head, ntg = struct.unpack_from("<6I", buf, 20)
(nt,) = struct.unpack_from("<I", buf, 44)
off, table = 48, []
for _ in range(nt):
    ln = buf[off]
    name = buf[off + 1:off + 1 + ln].decode()
    rows, cols = struct.unpack_from("<II", buf, off + 1 + ln)
    table.append((name, rows * cols))
    off += 9 + ln
off += 4 * (2 * fn + 2 * fg + ntg + 1)
(dl,) = struct.unpack_from("<I", buf, off)
off += 4 + dl
for name, n in table:
    if name == "head3.b":
        break
    off += 4 * n
(v,) = struct.unpack_from("<f", buf, off)
struct.pack_into("<f", buf, off, v + 0.5)
h = 0xCBF29CE484222325
for b in bytes(buf[:-8]):
    h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
struct.pack_into("<Q", buf, len(buf) - 8, h)
open(sys.argv[2], "wb").write(buf)
PY
if "$py" "$src/tests/bench/ref_gnn_torch.py" "$tmp/bad.dpw" "$tmp/r.bin" --check-only \
    >/dev/null 2>&1; then
    echo "FAIL: a changed weight was not detected"
    rc=1
else
    echo "a changed weight is detected (expected mismatch)"
fi
exit $rc
