#!/bin/sh
# shape_vs_onnx.sh - every intermediate shape ONNX's own shape inference
# determines for the real samples must equal dippm's (tools/shape_vs_onnx.py).
# Needs Debian's python3-onnx (./setup.sh check installs it); fails without it.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
TOP=${TOP_SRCDIR:-.}
set -- "${SAMPLES_DIR:-samples}"/*.onnx
[ -f "$1" ] || { echo "FAIL: no ONNX samples in ${SAMPLES_DIR:-samples}"; exit 1; }
exec "$PY" "$TOP/tools/shape_vs_onnx.py" --dippm "${DIPPM:-./dippm}" "$@"
