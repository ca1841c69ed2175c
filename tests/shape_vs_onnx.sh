#!/bin/sh
# shape_vs_onnx.sh - every intermediate shape ONNX's own shape inference
# determines for the real samples must equal dippm's (tools/shape_vs_onnx.py).
# Skipped (77) when Debian's python3-onnx is not installed.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
TOP=${TOP_SRCDIR:-.}
set -- "${SAMPLES_DIR:-samples}"/*.onnx
[ -f "$1" ] || { echo "no ONNX samples"; exit 77; }
exec "$PY" "$TOP/tools/shape_vs_onnx.py" --dippm "${DIPPM:-./dippm}" "$@"
