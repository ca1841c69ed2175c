#!/bin/sh
# Quantisation schemes (--quant) in predict, sweep and layers: the help and
# the completion list every scheme of QUANT_LIST (src/core/config.h), a bad
# scheme or option is refused naming --quant and every accepted form, a
# --precision the scheme contradicts is refused, the outputs name the
# scheme only when one is given, and the figures move the way the bytes
# say: int4 weights are about a quarter of fp16's plus the scales, and a
# dynamic scheme adds a pass a static one does not run.
# Env: DIPPM (binary), TOP_SRCDIR. Prints "N passed, M failed".
DIPPM=${DIPPM:-./dippm}
TOP=${TOP_SRCDIR:-$(dirname "$0")/../..}
. "$(dirname "$0")/lib.sh"
cmp() { # NAME EXPR A B: awk's EXPR of a and b holds
    if awk -v a="$3" -v b="$4" "BEGIN { exit !($2) }"; then ok "$1 ($3, $4)"; else bad "$1: a=$3 b=$4"; fi
}
export XDG_CONFIG_HOME="$T/none"
M=zoo:llama:preset=llama2-7b
G="--gpu a100-80gb --runtime tensorrt --input-tokens 128 --output-tokens 32"
schemes=$(sed -n 's/^ *X(QUANT_[A-Z0-9_]*, "\([a-z0-9]*\)",.*/\1/p' "$TOP/src/core/config.h")
[ -n "$schemes" ] || bad "no scheme read from QUANT_LIST"

for sub in predict sweep layers; do
    run "$sub --help" 0 "$DIPPM" $sub --help && check "$sub --help: --quant" "$T/out" "--quant SCHEME"
done
run "predict --help" 0 "$DIPPM" predict --help
for s in $schemes; do
    check "help names $s" "$T/out" "$s"
    grep -q "fB$s" "$TOP/man/dippm.1" && ok "dippm(1) names $s" || bad "dippm(1) lacks $s"
done
run "completion list" 0 "$DIPPM" __complete quants &&
    [ "$(tr '\n' ' ' <"$T/out")" = "$(echo $schemes) " ] && ok "completion lists QUANT_LIST" ||
    bad "completion: $(cat "$T/out")"

# refused (exit 2), naming the option, what was wrong and the accepted forms
forms="expected none, w8a16\[:gN|:row\], w4a16\[:gN|:row\], w8a8\[:static|:dynamic\] or fp8\[:tensor|:row\]"
for q in int4 w4a16:g100 w4a16:dynamic w8a8:row fp8:g128; do
    run "--quant $q" 2 "$DIPPM" predict $M --quant $q &&
        check "--quant $q: option named" "$T/err" "--quant '$q'" &&
        check "--quant $q: forms" "$T/err" "$forms"
done
run "w4a16 with int8" 2 "$DIPPM" predict $M --quant w4a16 --precision int8 &&
    check "w4a16 with int8: why" "$T/err" "runs its activations in fp16 or bf16, not --precision int8"
run "w8a8 with fp16" 2 "$DIPPM" predict $M --quant w8a8 --precision fp16 --runtime tensorrt &&
    check "w8a8 with fp16: why" "$T/err" "w8a8:static runs its activations in int8"
run "w8a8 eager" 2 "$DIPPM" predict $M --quant w8a8 &&
    check "w8a8 eager: runtime" "$T/err" "int8 needs runtime tensorrt"
run "w4a16 with bf16" 0 "$DIPPM" predict $M --quant w4a16 --precision bf16 --json &&
    check "bf16 activations" "$T/out" '"precision": "bf16"'

# named only when given; --quant none is the default, byte for byte
run "fp16" 0 "$DIPPM" predict $M $G --precision fp16 --json && cp "$T/out" "$T/fp16.json"
lacks "no quant key by default" "$T/fp16.json" '"quant"'
run "none" 0 "$DIPPM" predict $M $G --precision fp16 --json --quant none &&
    { diff "$T/fp16.json" "$T/out" >/dev/null && ok "--quant none is the default" ||
        bad "--quant none differs"; }
run "w4a16" 0 "$DIPPM" predict $M $G --quant w4a16 --json && cp "$T/out" "$T/w4.json"
check "JSON quant" "$T/w4.json" '"quant": "w4a16:g128"'
check "JSON precision" "$T/w4.json" '"precision": "fp16"'
run "w4a16 text" 0 "$DIPPM" predict $M $G --quant w4a16 &&
    check "text names the scheme" "$T/out" "fp16, w4a16:g128 weights, tensorrt"
run "sweep json" 0 "$DIPPM" sweep $M $G --quant w4a16:g64 --batch 1,8 --json &&
    check "sweep JSON quant" "$T/out" '"quant": "w4a16:g64"'
run "sweep text" 0 "$DIPPM" sweep $M $G --quant w8a16 --batch 1 &&
    check "sweep text names the scheme" "$T/out" "fp16, w8a16:row weights"
run "sweep csv" 0 "$DIPPM" sweep "$TOP/samples/resnet50.onnx" --quant w8a16 --runtime tensorrt \
    --batch 1,2 --csv
check "sweep CSV header: quant after precision" "$T/out" "^batch,gpu,mig,precision,quant,runtime,"
check "sweep CSV row: the scheme" "$T/out" "^2,A100-SXM4-40GB,,fp16,w8a16:row,tensorrt,"
run "sweep csv default" 0 "$DIPPM" sweep "$TOP/samples/resnet50.onnx" --precision fp16 \
    --runtime tensorrt --batch 1 --csv &&
    check "sweep CSV header without a scheme" "$T/out" "^batch,gpu,mig,precision,runtime,"
run "layers --quant" 0 "$DIPPM" layers $M --quant w4a16 --runtime tensorrt &&
    check "layers times the scheme" "$T/out" "fp16, w4a16:g128 weights"

# bytes: the Linear weights (all but the 2 x 32,000 x 4,096 embedding and
# lm_head of Llama-2-7B's 6,738,415,616) at 0.5 + 2/128 bytes instead of 2;
# a group of 32 holds four times the scales of one of 128
w16=$(num weights_mib "$T/fp16.json")
w4=$(num weights_mib "$T/w4.json")
cmp "w4a16:g128 weights ~ 1/4 + scales" \
    "b / a > 0.999 * (6738415616 - 262144000) * 0.515625 / (2 * 6738415616) + 262144000 / 6738415616 && b / a < 1.001 * ((6738415616 - 262144000) * 0.515625 / (2 * 6738415616) + 262144000 / 6738415616)" \
    "$w16" "$w4"
run "w4a16:g32" 0 "$DIPPM" predict $M $G --quant w4a16:g32 --json &&
    cmp "g32 holds 3 x 2/128 bytes more per Linear weight" \
        "(a - b) * 1048576 > 0.999 * 6476271616 * 6 / 128 && (a - b) * 1048576 < 1.001 * 6476271616 * 6 / 128" \
        "$(num weights_mib "$T/out")" "$w4"
cmp "w4a16 decodes faster than fp16" "a < b" "$(num tpot_ms "$T/w4.json")" "$(num tpot_ms "$T/fp16.json")"
run "w8a16" 0 "$DIPPM" predict $M $G --quant w8a16 --json &&
    cmp "w8a16 sits between" "a > b" "$(num tpot_ms "$T/out")" "$(num tpot_ms "$T/w4.json")"

# an ONNX export spells nn.Linear as MatMul(x, Transpose(W)): its weights are
# quantised too. GPT-2 medium (samples/gpt2_medium.onnx): 24 layers x 12 x
# 1024^2 = 301,989,888 Linear weights of 354,823,168 parameters hold
# 2 - 0.515625 bytes less each; the tied embedding and lm_head stay in fp16
# (the teacher's figures, which the memory is the sum of)
O="$TOP/samples/gpt2_medium.onnx"
run "onnx fp16" 0 env DIPPM_WEIGHTS=/nonexistent "$DIPPM" predict "$O" --precision fp16 --runtime tensorrt --json &&
    cp "$T/out" "$T/o16.json"
run "onnx w4a16" 0 env DIPPM_WEIGHTS=/nonexistent "$DIPPM" predict "$O" --quant w4a16 --runtime tensorrt --json &&
    cmp "ONNX Linear weights quantised through their Transpose" \
        "(a - b) * 1048576 > 0.999 * 301989888 * 1.484375 && (a - b) * 1048576 < 1.001 * 301989888 * 1.484375" \
        "$(num memory_mib "$T/o16.json")" "$(num memory_mib "$T/out")"

# a dynamic scheme runs the quantisation pass a static one does not
run "w8a8 static" 0 "$DIPPM" predict $M $G --quant w8a8 --json && cp "$T/out" "$T/s.json"
run "w8a8 dynamic" 0 "$DIPPM" predict $M $G --quant w8a8:dynamic --json &&
    cmp "dynamic scales cost time" "a > b" "$(num tpot_ms "$T/out")" "$(num tpot_ms "$T/s.json")" &&
    cmp "same weights" "a == b" "$(num weights_mib "$T/out")" "$(num weights_mib "$T/s.json")"
# the quantisation pass is its GEMM's: the layers' times still add up to the latency
run "layers dynamic" 0 env DIPPM_WEIGHTS=/nonexistent "$DIPPM" layers $M --quant w8a8:dynamic \
    --runtime tensorrt --json &&
    cmp "layers add up to the latency with a quantisation pass" "a > 0.999 * b && a < 1.001 * b" \
        "$(sed -n 's/.*"time_us": \([-0-9.e+]*\).*/\1/p' "$T/out" | awk '{ s += $1 } END { printf "%.4f", s / 1e3 }')" \
        "$(num latency_ms "$T/out")"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
