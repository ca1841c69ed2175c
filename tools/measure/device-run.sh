#!/bin/sh
# tools/measure/device-run.sh - one prepared measuring run for a short GPU lease
# (a machine that is lent for minutes and returns at most a few files).
#
#   OUT=/path/out sh tools/measure/device-run.sh              # on the GPU machine
#   OUT=/tmp/out DRY=1 MODELS=squeezenet1_1 BATCHES=1,2 PRECISIONS=fp32 INPUT=3x64x64 \
#       sh tools/measure/device-run.sh                        # rehearsal on a CPU
#
# Leaves four files in $OUT: measured.jsonl (the rows), graphs.tgz (the weightless
# ONNX graphs the rows name), measure.log, env.txt (GPU, driver, versions). Bring
# them back and unpack them side by side, e.g.
#   d=weights/data/h200 && mkdir -p $d && cp measured.jsonl env.txt $d && tar xzf graphs.tgz -C $d
# Knobs (environment): MODELS, BATCHES, PRECISIONS, INPUT, BUDGET (seconds after
# which no new configuration starts; default 420), PYTHON (default python3),
# WORK (where rows accumulate, default /tmp/dippm-measure: a second call on the
# same machine resumes there).
set -u
: "${OUT:?set OUT to the folder for the results}"
py=${PYTHON:-python3}
here=$(cd "$(dirname "$0")" && pwd)
work=${WORK:-/tmp/dippm-measure}
models=${MODELS:-resnet18 resnet50 mobilenet_v3_large efficientnet_b0 densenet121 convnext_tiny vgg16 swin_t vit_b_16 mobilenet_v2}
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
mkdir -p "$OUT" "$work" || exit 1

{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,power.limit,mig.mode.current \
        --format=csv 2>&1 || echo "nvidia-smi: not available"
    "$py" - <<'EOF' 2>&1
import importlib
for m in ("torch", "torchvision", "onnx", "pynvml", "onnxruntime", "timm"):
    try:
        mod = importlib.import_module(m)
        print("%s %s" % (m, getattr(mod, "__version__", "?")))
    except Exception as e:
        print("%s missing (%s)" % (m, e))
import torch
print("cuda %s available %s" % (torch.version.cuda, torch.cuda.is_available()))
if torch.cuda.is_available():
    print("device %s" % torch.cuda.get_device_name(0))
EOF
} >"$OUT/env.txt"
cat "$OUT/env.txt"

set -- --batch "${BATCHES:-1,8,32,128}" --precision "${PRECISIONS:-fp32,tf32,fp16,bf16}" \
    --warmup 10 --runs 50 --min-time 0.5 --time-budget "${BUDGET:-420}" -o "$work/measured.jsonl"
[ -n "${INPUT:-}" ] && set -- "$@" --input "$INPUT"
[ -n "${DRY:-}" ] && set -- "$@" --dry-run --isolate
# shellcheck disable=SC2086
"$py" "$here/measure.py" $models "$@" >"$OUT/measure.log" 2>&1
rc=$?
tail -n 40 "$OUT/measure.log"
[ -f "$work/measured.jsonl" ] && cp "$work/measured.jsonl" "$OUT/measured.jsonl"
[ -d "$work/graphs" ] && tar czf "$OUT/graphs.tgz" -C "$work" graphs
echo "device-run: measure.py exited $rc; $(wc -l <"$work/measured.jsonl" 2>/dev/null || echo 0) rows"
exit $rc
