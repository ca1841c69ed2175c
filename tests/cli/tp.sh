#!/bin/sh
# Tensor parallelism (--tp N) in predict and sweep: --tp 1 changes nothing,
# the outputs name tp, one GPU's memory shrinks with N, the all-reduces grow
# with N, and what cannot be split is refused with the reason: an exported
# graph, a template without a fixed head width, a MIG slice, a count other
# than 1, 2, 4 or 8, and --tp without a generation.
# Env: DIPPM (binary), TOP_SRCDIR. Prints "N passed, M failed".
DIPPM=${DIPPM:-./dippm}
TOP=${TOP_SRCDIR:-$(dirname "$0")/../..}
. "$(dirname "$0")/lib.sh"
cmp() { # NAME EXPR A B: awk's EXPR of a and b holds
    if awk -v a="$3" -v b="$4" "BEGIN { exit !($2) }"; then ok "$1 ($3, $4)"; else bad "$1: a=$3 b=$4"; fi
}
same() { # NAME FILE1 FILE2
    if diff "$2" "$3" >/dev/null; then ok "$1"; else
        bad "$1"; diff "$2" "$3" | head -6; fi
}
export XDG_CONFIG_HOME="$T/none"
M=zoo:llama:preset=llama2-70b
G="--gpu h100 --precision fp16 --runtime tensorrt --input-tokens 512 --output-tokens 64"

# --tp 1 is one GPU: byte-identical to no --tp in every output
for fmt in "" "--json"; do
    run "predict $fmt" 0 "$DIPPM" predict zoo:llama $G $fmt && cp "$T/out" "$T/a"
    run "predict --tp 1 $fmt" 0 "$DIPPM" predict zoo:llama $G --tp 1 $fmt &&
        same "predict --tp 1 $fmt is byte-identical" "$T/a" "$T/out"
done
for fmt in "" "--json" "--csv"; do
    run "sweep $fmt" 0 "$DIPPM" sweep zoo:llama $G --batch 1,8 $fmt && cp "$T/out" "$T/a"
    run "sweep --tp 1 $fmt" 0 "$DIPPM" sweep zoo:llama $G --batch 1,8 --tp 1 $fmt &&
        same "sweep --tp 1 $fmt is byte-identical" "$T/a" "$T/out"
done

# 70B on one H100 does not fit; over 2, 4, 8 it does, each GPU holding ~1/N
run "70B on one GPU" 0 "$DIPPM" predict $M $G --json && cp "$T/out" "$T/tp1.json"
check "70B on one GPU does not fit" "$T/tp1.json" '"fits": false'
w1=$(num weights_mib "$T/tp1.json")
prev=0
for n in 2 4 8; do
    run "--tp $n" 0 "$DIPPM" predict $M $G --tp $n --json || continue
    cp "$T/out" "$T/tp$n.json"
    check "--tp $n: JSON names tp" "$T/out" "\"tp\": $n"
    check "--tp $n: the link" "$T/out" '"link": "NVLink"'
    check "--tp $n: no MIG advice" "$T/out" '"mig_advice": "not offered for multi-GPU runs"'
    cmp "--tp $n: weights per GPU about 1/$n" "a / b > 0.99 / $n && a / b < 1.01 / $n" \
        "$(num weights_mib "$T/out")" "$w1"
    c=$(num tpot_allreduce_ms "$T/out")
    cmp "--tp $n: all-reduce time grows with N" "a > b" "$c" "$prev"
    prev=$c
done
cmp "TP8 fits where one GPU does not" "a > 0" "$(num max_batch "$T/tp8.json")" 0
run "text --tp 4" 0 "$DIPPM" predict $M $G --tp 4 &&
    check "text: the group" "$T/out" "tensor par. 4 GPUs over NVLink" &&
    check "text: MIG not offered" "$T/out" "MIG         not offered for multi-GPU runs" &&
    check "text: generation's tp line" "$T/out" "  tp        4 GPUs: all-reduces"
run "PCIe GPU" 0 "$DIPPM" predict zoo:llama:preset=llama2-7b $G --gpu l4 --tp 2 --json &&
    check "L4 goes over PCIe" "$T/out" '"link": "PCIe"'
run "sweep csv --tp 2" 0 "$DIPPM" sweep $M $G --batch 1,8 --tp 2 --csv &&
    check "CSV header names tp" "$T/out" "^tp,input_tokens" && check "CSV row" "$T/out" "^2,512,64,8,"
run "sweep json --tp 2" 0 "$DIPPM" sweep $M $G --batch 1 --tp 2 --json &&
    check "sweep JSON names tp" "$T/out" '"tp": 2'
run "sweep text --tp 2" 0 "$DIPPM" sweep $M $G --batch 1 --tp 2 &&
    check "sweep text names the group" "$T/out" "x 2 over NVLink (memory per GPU)"
run "sweep --max-batch --tp 8" 0 "$DIPPM" sweep $M $G --max-batch --tp 8 &&
    check "max batch of the group" "$T/out" "x 8 over NVLink"

# refused, with the reason
run "--tp on an ONNX file" 2 "$DIPPM" predict "$TOP/samples/gpt2_medium.onnx" $G --tp 2 &&
    check "ONNX: why" "$T/err" "is not a zoo template" &&
    check "ONNX: what works" "$T/err" "zoo:llama, zoo:moe"
# an exported decoder (the template's decode step with dynamic token and past
# axes, as run-cli-tests.sh builds it): its generation runs, but on one GPU
"$DIPPM" convert zoo:gpt:layers=2:phase=decode -o "$T/dec.json" 2>/dev/null
sed -e 's/"shape": \["batch", 1\]/"shape": ["batch", "sequence_length"]/' \
    -e 's/"seq"/"past_sequence_length"/g' -e 's/past_key\./past_key_values.key./g' \
    -e 's/past_value\./past_key_values.value./g' "$T/dec.json" >"$T/dec2.json"
run "exported decoder, one GPU" 0 "$DIPPM" predict "$T/dec2.json" $G
run "--tp on an exported decoder" 2 "$DIPPM" predict "$T/dec2.json" $G --tp 2 &&
    check "export: why" "$T/err" "is not a zoo template"
run "sweep --tp on an exported decoder" 2 "$DIPPM" sweep "$T/dec2.json" $G --batch 1 --tp 2 &&
    check "sweep export: why" "$T/err" "is not a zoo template"
run "--tp on zoo:gpt" 2 "$DIPPM" predict zoo:gpt $G --tp 2 &&
    check "gpt: why" "$T/err" "zoo:gpt cannot be split"
run "--tp 3" 2 "$DIPPM" predict $M $G --tp 3 &&
    check "--tp 3: the counts" "$T/err" "expected a GPU count of 1, 2, 4 or 8"
run "--tp on a MIG slice" 2 "$DIPPM" predict $M $G --gpu h100:3g.40gb --tp 2 &&
    check "MIG: why" "$T/err" "MIG slice cannot be part of a tensor-parallel group"
run "--tp without a generation" 2 "$DIPPM" predict $M --tp 2 &&
    check "no generation: what to give" "$T/err" "give --input-tokens and --output-tokens"
run "--tp 2 heads not divisible" 2 "$DIPPM" predict zoo:llama:preset=llama2-70b:heads=60:kv_heads=6:hidden=7680 $G --tp 8 &&
    check "heads: why" "$T/err" "60 query heads"

# the explorer: :set tp=N and the Setup field (Left/Right cycle 1, 2, 4, 8)
explore() { # MODEL KEYS: the screen after KEYS in $T/screen
    printf '%s:dump-screen %s<Enter>q' "$2" "$T/screen" >"$T/keys"
    rm -f "$T/screen"
    DIPPM_NO_DISPLAY=1 DIPPM_SCRIPT="$T/keys" DIPPM_COLS=140 DIPPM_LINES=60 "$DIPPM" "$1" \
        >"$T/out" 2>&1
}
genmem() { sed -n 's/^Generation .* memory \([0-9.]*\) GiB.*/\1/p' "$T/screen"; }
explore $M '' && m1=$(genmem)
lacks "explorer: one GPU by default" "$T/screen" "^Generation .* GPUs (TP"
explore $M ':set tp=4<Enter>' &&
    check "explorer: :set tp=4 names the group" "$T/screen" \
        "^Generation 512+128 on 4 GPUs (TP, memory per GPU)" &&
    cmp "explorer: memory per GPU about 1/4" "a > 0 && a / b < 0.3" "$(genmem)" "$m1"
explore $M ':set tp=3<Enter>' &&
    check "explorer: a bad count" "$T/screen" "tp=3: expected a GPU count of 1, 2, 4 or 8"
# Setup: gpu mig precision quant runtime batch slo input output kv tp
D='<F2><Down><Down><Down><Down><Down><Down><Down><Down><Down><Down>'
explore $M "$D<Right>" && check "explorer: Right from 1 is 2" "$T/screen" "^  tp  *2 "
explore $M "$D<Right><Right><Right>" && check "explorer: then 4, 8" "$T/screen" "^  tp  *8 "
explore $M "$D<Right><Right><Right><Right>" &&
    check "explorer: after 8 comes 1" "$T/screen" "^  tp  *1 "
explore $M "$D<Left>" && check "explorer: Left from 1 is 8" "$T/screen" "^  tp  *8 "
explore "$T/dec2.json" ':set tp=2<Enter>' &&
    check "explorer: an exported decoder keeps one GPU and says why" "$T/screen" \
        "is not a zoo template" && check "explorer: the export's generation stays" "$T/screen" \
        "^Generation 512+128 TTFT"
explore $M ':gpu a100:3g.20gb<Enter>:set tp=2<Enter>' &&
    check "explorer: no group on a MIG slice" "$T/screen" "MIG slice cannot be part"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
