#!/bin/sh
# Zero contradictions on one explorer screen: for every zoo family on two
# of a few GPU / precision / runtime / batch combinations, the explorer is
# run headless (DIPPM_NO_DISPLAY, keys from DIPPM_SCRIPT, :dump-screen) and
# `dippm predict --json` on the same configuration; check_screens.py checks
# that the header, the memory bar, the MIG line, the sweep's row and its
# "fits", the MIG table and the JSON describe one configuration and agree.
# Written to fail on the explorer before one fits rule and one memory
# figure (zoo:resnet batch 1024: sweep "fits: 3g.20gb", MIG line 7g.40gb;
# a decoder's memory bar showing its generation). Prints "N passed, M
# failed"; exit 1 on any failure.
#
# Env: DIPPM (the binary).

here=$(cd "$(dirname "$0")" && pwd)
DIPPM=${DIPPM:-$here/../../dippm}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
if [ ! -x "$DIPPM" ]; then echo "FAIL: $DIPPM not built"; exit 1; fi
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/dippm-cons.XXXXXX")
trap 'rm -rf "$TMPD"' EXIT INT TERM
export XDG_STATE_HOME="$TMPD/state"

families="resnet vgg mobilenet_v2 mobilenet_v3 efficientnet densenet convnext vit swin bert gpt
llama mlp randnet moe t5 bart unet dit vae kernel"
# gpu precision runtime batch; family k runs combinations k and k+3 (mod 6)
set -- "a100 fp32 pytorch 1024" "h200 fp16 tensorrt 8" "h100 bf16 pytorch-sdpa 64" \
    "a100 tf32 tensorrt 1" "l4 fp16 pytorch 4" "h100 fp8 tensorrt 32"
n_combo=$#

pass=0; fail=0; k=0
for fam in $families; do
    for j in 0 3; do
        i=$(( (k + j) % n_combo + 1 ))
        eval "combo=\${$i}"
        # shellcheck disable=SC2086
        set -- $combo "$@"
        gpu=$1 prec=$2 rt=$3 batch=$4
        shift 4
        name="zoo:$fam on $gpu $prec $rt batch $batch"
        d="$TMPD/$fam.$j"
        mkdir -p "$d"
        {
            # the runtime first: eager PyTorch refuses fp8
            printf ':gpu %s<Enter>:runtime %s<Enter>:precision %s<Enter>:batch %s<Enter>' \
                "$gpu" "$rt" "$prec" "$batch"
            printf ':dump-screen! %s/main<Enter>3:dump-screen! %s/sweep<Enter>' "$d" "$d"
            for m in 1 2 3 4 5; do printf 'm:dump-screen! %s/m%s<Enter>' "$d" "$m"; done
        } > "$d/script"
        DIPPM_NO_DISPLAY=1 DIPPM_ROWS=40 DIPPM_COLS=160 DIPPM_SCRIPT="$d/script" \
            "$DIPPM" "zoo:$fam" >"$d/out" 2>"$d/err"
        "$DIPPM" predict "zoo:$fam" --gpu "$gpu" --precision "$prec" --runtime "$rt" \
            --batch "$batch" --json >"$d/json" 2>>"$d/err"
        if "$PY" "$here/check_screens.py" "$d" "$batch" >"$d/why" 2>&1; then
            pass=$((pass + 1)); echo "ok - $name"
        else
            fail=$((fail + 1)); echo "not ok - $name"; sed 's/^/  /' "$d/why" "$d/err"
        fi
    done
    k=$((k + 1))
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -eq 42 ]
