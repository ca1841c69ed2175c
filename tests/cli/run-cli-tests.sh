#!/bin/sh
# End-to-end tests of the dippm command line: exit codes, messages, files.
# Env: DIPPM (binary), SAMPLES_DIR. Prints "N passed, M failed".
DIPPM=${DIPPM:-./dippm}
S=${SAMPLES_DIR:-samples}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0

# run NAME EXPECTED_RC CMD... : runs CMD, captures stdout/stderr in $T/out, $T/err
run() {
    name=$1 want=$2
    shift 2
    "$@" >"$T/out" 2>"$T/err" </dev/null
    rc=$?
    if [ "$rc" -ne "$want" ]; then
        echo "FAIL: $name: exit $rc, expected $want"; sed 's/^/  stderr: /' "$T/err" | head -5
        fail=$((fail + 1))
        return 1
    fi
    return 0
}
ok() { echo "ok: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $1"; fail=$((fail + 1)); }
# check NAME FILE PATTERN : grep -q
check() {
    if grep -q -- "$3" "$2"; then ok "$1"; else bad "$1: '$3' not in $(basename "$2")"; sed 's/^/  | /' "$2" | head -8; fi
}

run "help" 0 "$DIPPM" --help && check "help lists subcommands" "$T/out" "predict MODEL"
run "version" 0 "$DIPPM" --version && check "version" "$T/out" "^dippm [0-9]"
run "unknown subcommand" 2 "$DIPPM" frobnicate && check "unknown subcommand message" "$T/err" "neither a subcommand nor a model file"
run "unknown option" 2 "$DIPPM" --frob && check "unknown option message" "$T/err" "unknown option '--frob'"
run "info bad option" 2 "$DIPPM" info --nope "$S/tiny_cnn.json" && check "info bad option usage" "$T/err" "Try 'dippm info --help'"
run "info help" 0 "$DIPPM" info --help && check "info help text" "$T/out" "Usage: dippm info"

run "info json sample" 0 "$DIPPM" info "$S/tiny_cnn.json" && {
    check "info format" "$T/out" "dippm-json"
    check "info node count" "$T/out" "nodes: *8$"
    check "info edge count" "$T/out" "edges: *15$"
    check "info symbolic input" "$T/out" "\[batch, 3, height, width\] = \[1, 3, 32, 32\]"
    check "info histogram" "$T/out" "Conv *2"
}
run "info --batch --set" 0 "$DIPPM" info --batch 8 --set height=64 "$S/tiny_cnn.json" &&
    check "info binds symbols" "$T/out" "= \[8, 3, 64, 32\]"
run "info --json" 0 "$DIPPM" info --json "$S/tiny_cnn.json" && {
    check "info json nodes" "$T/out" '"nodes": 8'
    check "info json symbols" "$T/out" '"batch": {'
}
run "bad --batch" 2 "$DIPPM" info --batch 0 "$S/tiny_cnn.json" && check "bad batch message" "$T/err" "expected an integer from 1"
run "bad --set" 2 "$DIPPM" info --set height "$S/tiny_cnn.json" && check "bad set message" "$T/err" "expected NAME=VALUE"
run "unknown symbol" 3 "$DIPPM" info --set seq=8 "$S/tiny_cnn.json" && check "unknown symbol lists known" "$T/err" "symbols: batch, height, width"

run "missing file" 3 "$DIPPM" info "$T/nope.onnx" && check "missing file named" "$T/err" "nope.onnx"
run "directory" 3 "$DIPPM" info "$T" && check "directory refused" "$T/err" "is a directory"
: >"$T/empty.json"
run "empty json" 4 "$DIPPM" info "$T/empty.json" && check "empty json message" "$T/err" "empty.json"
printf '{"format": "dippm-graph", "version": 1, "nodes": [' >"$T/trunc.json"
run "truncated json" 4 "$DIPPM" info "$T/trunc.json" && check "truncated json line" "$T/err" "line 1: invalid JSON"
run "dev zero" 3 "$DIPPM" info /dev/zero && check "device refused" "$T/err" "not a regular file"

# convert: exact round trip, no overwrite without --force, atomic
run "convert" 0 "$DIPPM" convert "$S/tiny_cnn.json" -o "$T/a.json" && ok "convert writes"
run "convert again" 0 "$DIPPM" convert "$T/a.json" -o "$T/b.json" &&
    { if cmp -s "$T/a.json" "$T/b.json"; then ok "convert round trip exact"; else bad "convert round trip differs"; fi; }
echo "precious" >"$T/keep.json"
run "convert refuses overwrite" 9 "$DIPPM" convert "$S/tiny_cnn.json" -o "$T/keep.json" &&
    check "overwrite message" "$T/err" "already exists"
check "file untouched" "$T/keep.json" "^precious$"
run "convert --force" 0 "$DIPPM" convert --force "$S/tiny_cnn.json" -o "$T/keep.json" &&
    check "forced overwrite" "$T/keep.json" "dippm-graph"
run "convert unwritable" 3 "$DIPPM" convert "$S/tiny_cnn.json" -o "$T/no/such/dir.json" &&
    check "unwritable named" "$T/err" "dir.json"
run "convert needs -o" 2 "$DIPPM" convert "$S/tiny_cnn.json" && check "convert -o message" "$T/err" "missing -o"
run "convert --set changes default" 0 "$DIPPM" convert --set height=48 "$S/tiny_cnn.json" -o - &&
    check "convert default updated" "$T/out" '"height": 48'
# predict: every documented JSON field, MIG advice, errors
run "predict json" 0 "$DIPPM" predict --json --batch 4 "$S/resnet50.onnx" && {
    for k in model format nodes nodes_not_counted params macs flops gpu mig precision runtime batch \
        symbols source latency_ms roofline_ms teacher_latency_ms throughput_per_s energy_j \
        energy_mj_per_sample memory_mib capacity_mib fits mig_advice suggestion headroom slo_ms \
        reason profiles usable_mib need_mib meets_slo weights; do
        grep -q "\"$k\":" "$T/out" || { bad "predict json lacks $k"; continue; }
    done
    ok "predict json fields"
    check "predict json batch" "$T/out" '"batch": 4,'
    check "predict json default gpu" "$T/out" '"gpu": "A100-SXM4-40GB"'
}
run "predict text" 0 "$DIPPM" predict --gpu h100:3g.40gb --precision fp16 "$S/resnet50.onnx" && {
    check "predict names the slice" "$T/out" "H100-SXM5-80GB 3g.40gb, fp16, pytorch"
    check "predict roofline beside" "$T/out" "roofline bound"
    check "predict MIG line" "$T/out" "^MIG "
    check "predict source line" "$T/out" "^source "
}
run "nothing fits" 0 "$DIPPM" predict --batch 512 --set seq=1024 "$S/gpt2_medium.onnx" &&
    { check "nothing fits says so" "$T/out" "no A100-SXM4-40GB profile fits"
      check "nothing fits says by how much" "$T/out" "short by"
      check "does not fit flagged" "$T/out" "DOES NOT FIT"; }
run "unmeetable target" 0 "$DIPPM" predict --slo-ms 0.001 "$S/tiny_cnn.json" &&
    check "unmeetable target says so" "$T/out" "meets the 0.00 ms target"
run "bad gpu" 2 "$DIPPM" predict --gpu v100 "$S/tiny_cnn.json" && check "bad gpu lists known" "$T/err" "H200"
run "bad profile" 2 "$DIPPM" predict --gpu a100:9g.99gb "$S/tiny_cnn.json" && check "bad profile lists" "$T/err" "3g.20gb"
run "bad precision" 2 "$DIPPM" predict --precision fp8 "$S/tiny_cnn.json" && check "bad precision" "$T/err" "expected fp32"
run "bad headroom" 2 "$DIPPM" predict --headroom lots "$S/tiny_cnn.json" && check "bad headroom" "$T/err" "percentage"
run "missing weights" 3 "$DIPPM" predict --weights "$T/none.dpw" "$S/tiny_cnn.json" && check "missing weights named" "$T/err" "none.dpw"
printf "DPPMGNN\\0garbage" >"$T/bad.dpw"
run "corrupt weights" 8 "$DIPPM" predict --weights "$T/bad.dpw" "$S/tiny_cnn.json" && check "corrupt weights named" "$T/err" "bad.dpw"

# sweep: default 11 batch sizes, CSV header, --over, --max-batch
run "sweep csv" 0 "$DIPPM" sweep --csv "$S/resnet50.onnx" && {
    check "sweep csv header" "$T/out" "^batch,gpu,mig,precision,runtime,latency_ms"
    n=$(grep -c '^[0-9]' "$T/out"); [ "$n" -eq 11 ] && ok "sweep 1..1024 has 11 rows" || bad "sweep rows: $n"
    check "sweep ends at 1024" "$T/out" "^1024,"
}
run "sweep over symbol" 0 "$DIPPM" sweep --csv --batch 1 --over seq=128..512:128 "$S/bert_base.onnx" && {
    n=$(grep -c '^[0-9]' "$T/out"); [ "$n" -eq 4 ] && ok "sweep over seq has 4 rows" || bad "sweep over rows: $n"
    check "sweep over column" "$T/out" "^seq,batch"
}
run "sweep over hyperparameter" 0 "$DIPPM" sweep --json --batch 8 --over depth=18,50 zoo:resnet &&
    check "sweep over depth" "$T/out" '"depth": 50'
run "sweep bad range" 2 "$DIPPM" sweep --batch 9..3 "$S/tiny_cnn.json" && check "bad range" "$T/err" "bad RANGE"
run "max batch" 0 "$DIPPM" sweep --max-batch --gpu a100:1g.5gb "$S/resnet50.onnx" && {
    check "max batch answer" "$T/out" "largest batch on A100-SXM4-40GB 1g.5gb"
    check "max batch limit" "$T/out" "exceeds 4864 MiB usable"
}
run "max batch unmeetable" 1 "$DIPPM" sweep --max-batch --slo-ms 0.0001 "$S/tiny_cnn.json" &&
    check "max batch none" "$T/out" "no batch fits"

# ONNX control flow: nesting in info, the trip-count symbol, convert refuses bodies
C=${TOP_SRCDIR:-$(dirname "$S")}/tests/models/control
run "info loop_if" 0 "$DIPPM" info "$C/loop_if.onnx" && {
    check "info control section" "$T/out" "^control flow (2 nodes with subgraphs, 11 nodes inside"
    check "info nested If" "$T/out" "^    If '/Loop/body/If': then 1 node, else 3 nodes"
    check "info trip count" "$T/out" "trip count 3 (folded)"
}
run "info loop_while trips" 0 "$DIPPM" info --json --set /Loop.trips=7 "$C/loop_while.onnx" && {
    check "trips symbol bound" "$T/out" '"/Loop.trips": {'
    check "trips scale MACs" "$T/out" '"macs": 7168'
    check "control json" "$T/out" '"op": "Loop"'
}
run "layers body names" 0 "$DIPPM" layers "$C/if_runtime.onnx" && {
    check "layers then node" "$T/out" "/If/then/a/Gemm"
    check "layers not run" "$T/out" "not run"
}
run "convert refuses bodies" 5 "$DIPPM" convert "$C/if_runtime.onnx" -o "$T/ctl.json" &&
    check "convert bodies message" "$T/err" "has subgraph bodies"

# every ONNX sample converts to JSON with the same parameters and MACs
for m in "$S"/*.onnx; do
    b=$(basename "$m" .onnx)
    if "$DIPPM" convert "$m" -o "$T/$b.json" 2>"$T/err" &&
        "$DIPPM" info --json "$m" | grep -E '"(params|macs)"' >"$T/a" &&
        "$DIPPM" info --json "$T/$b.json" | grep -E '"(params|macs)"' >"$T/b" && cmp -s "$T/a" "$T/b"; then
        ok "convert $b keeps params and MACs"
    else
        bad "convert $b changes params or MACs"; cat "$T/err"
    fi
done
ls "$T" | grep -q 'tmp' && bad "temporary files left behind" || ok "no temporary files left"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
