#!/bin/sh
# layers_cli.sh - end-to-end checks of `dippm layers` on tiny_cnn, whose
# numbers are computed by hand in tests/test_shape.c (conv1: 16*32*32 outputs
# x 3*3*3 = 442368 MACs; reads 3*32*32*4 + 432*4 + 16*4 = 14080 bytes).
set -u
DIPPM=${DIPPM:-./dippm}
SAMPLES_DIR=${SAMPLES_DIR:-samples}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fails=0
check() { # name, expected substring, file
    if grep -qF -- "$2" "$3"; then :; else
        echo "FAIL: $1: expected '$2' in:"; sed 's/^/  /' "$3" | head -20; fails=$((fails + 1))
    fi
}
m="$SAMPLES_DIR/tiny_cnn.json"

"$DIPPM" layers "$m" --csv > "$tmp/csv" 2>&1 || { echo "FAIL: --csv exit $?"; fails=$((fails + 1)); }
check "csv header" "index,name,op,outputs,params,macs,flops,bytes_read,bytes_written" "$tmp/csv"
check "csv conv1" '0,conv1,Conv,"[1, 16, 32, 32]",448,442368,901120,14080,65536,65536,' "$tmp/csv"
check "csv fc" '7,fc,Gemm,"[1, 10]",170,160,330,' "$tmp/csv"

"$DIPPM" layers "$m" --batch 2 --csv > "$tmp/csv2" 2>&1
check "batch 2 doubles conv1" '0,conv1,Conv,"[2, 16, 32, 32]",448,884736,' "$tmp/csv2"

"$DIPPM" layers "$m" --json > "$tmp/json" 2>&1
check "json total macs" '"macs": 2801824' "$tmp/json"
check "json total params" '"params": 2938' "$tmp/json"
check "json peak" '"peak_act_bytes": 196608' "$tmp/json"

"$DIPPM" layers "$m" > "$tmp/table" 2>&1
check "table totals" "8 counted, 0 not covered, 0 with unknown inputs (0 not counted)" "$tmp/table"
check "table units" "2.80M" "$tmp/table"

# --sort params --top 2: conv2 (2320 params) then conv1 (448)
"$DIPPM" layers "$m" --sort params --top 2 --csv > "$tmp/top" 2>&1
[ "$(sed -n 2p "$tmp/top" | cut -d, -f1-2)" = "2,conv2" ] &&
    [ "$(sed -n 3p "$tmp/top" | cut -d, -f1-2)" = "0,conv1" ] &&
    [ "$(wc -l < "$tmp/top")" -eq 3 ] || { echo "FAIL: --sort params --top 2:"; cat "$tmp/top";
    fails=$((fails + 1)); }

cat > "$tmp/odd.json" <<'JSON'
{"format": "dippm-graph", "version": 1, "name": "odd",
 "inputs": [{"name": "x", "dtype": "float32", "shape": [2, 3]}],
 "nodes": [
  {"name": "r", "op": "Relu", "inputs": ["x"], "outputs": ["a"]},
  {"name": "f", "op": "Frob", "domain": "org.example", "inputs": ["a"], "outputs": ["b"]},
  {"name": "r2", "op": "Relu", "inputs": ["b"], "outputs": ["c"]}],
 "outputs": [{"name": "c"}]}
JSON
"$DIPPM" layers "$tmp/odd.json" > "$tmp/odd" 2>&1
check "not covered" "not covered" "$tmp/odd"
check "unknown input" "unknown input" "$tmp/odd"
check "not counted total" "(2 not counted)" "$tmp/odd"

"$DIPPM" layers "$m" --csv --json > "$tmp/usage" 2>&1
rc=$?
[ "$rc" -eq 2 ] || { echo "FAIL: --csv --json exit $rc, expected 2"; fails=$((fails + 1)); }
check "usage message" "exclusive" "$tmp/usage"

cat > "$tmp/bad.json" <<'JSON'
{"format": "dippm-graph", "version": 1, "name": "bad",
 "inputs": [{"name": "x", "dtype": "float32", "shape": [1, 4, 8, 8]}],
 "initializers": [{"name": "w", "dtype": "float32", "shape": [8, 3, 3, 3]}],
 "nodes": [{"name": "conv_bad", "op": "Conv", "inputs": ["x", "w"], "outputs": ["y"]}],
 "outputs": [{"name": "y"}]}
JSON
"$DIPPM" layers "$tmp/bad.json" > "$tmp/bad" 2>&1
rc=$?
[ "$rc" -eq 6 ] || { echo "FAIL: shape error exit $rc, expected 6"; fails=$((fails + 1)); }
check "shape error names node" "node 'conv_bad' (Conv): input has 4 channels" "$tmp/bad"

# MACs past the P prefix: 3 operands of 2^26 x 2^26 contracted to a scalar
# are 2^156 = 9.134e46 multiply-accumulates, shown as such (a 16-byte column
# buffer used to cut "%.0fP" to 913438523331814)
cat > "$tmp/huge.json" <<'EOF'
{"format": "dippm-graph", "version": 1,
 "inputs": [{"name": "a", "dtype": "float32", "shape": [67108864, 67108864]},
            {"name": "b", "dtype": "float32", "shape": [67108864, 67108864]},
            {"name": "c", "dtype": "float32", "shape": [67108864, 67108864]}],
 "nodes": [{"name": "e", "op": "Einsum", "inputs": ["a", "b", "c"], "outputs": ["y"],
            "attrs": {"equation": "ab,cd,ef->"}}],
 "outputs": [{"name": "y"}]}
EOF
"$DIPPM" layers "$tmp/huge.json" > "$tmp/huge" 2>&1
check "huge MACs in the row" " 9.13e+46 " "$tmp/huge"
check "huge MACs in the total" "MACs 9.13e+46," "$tmp/huge"

# --time: the node times split the latency `dippm predict` gives for the
# same configuration (their sum is that latency), every row carries a bound,
# --sort time orders them, and a node folded into a kernel names it
ms=$("$DIPPM" predict "$m" --gpu T4 --batch 8 --json 2>/dev/null |
    sed -n 's/^  "latency_ms": \([0-9.e+-]*\),$/\1/p')
"$DIPPM" layers "$m" --gpu T4 --batch 8 --csv > "$tmp/tcsv" 2>"$tmp/terr"
check "time columns" "state,note,time_us,time_share,bound,kernel" "$tmp/tcsv"
awk -F, -v ms="$ms" 'NR > 1 { us += $(NF - 3); sh += $(NF - 2); if ($(NF - 1) !~ /^(compute|memory|overhead|-)$/) bad++ }
    END { if (ms == "" || us < 999 * ms || us > 1001 * ms || sh < 0.999 || sh > 1.001 || bad) exit 1 }' \
    "$tmp/tcsv" || { echo "FAIL: --time: node times do not sum to predict's $ms ms:";
    cat "$tmp/tcsv" "$tmp/terr"; fails=$((fails + 1)); }
"$DIPPM" layers "$m" --time --sort time --csv > "$tmp/tsort" 2>/dev/null
awk -F, 'NR > 2 && $(NF - 3) > prev + 1e-9 { exit 1 } NR > 1 { prev = $(NF - 3) }' "$tmp/tsort" ||
    { echo "FAIL: --sort time not descending:"; cat "$tmp/tsort"; fails=$((fails + 1)); }
"$DIPPM" layers "$m" --runtime tensorrt --precision fp16 --json > "$tmp/tjson" 2>/dev/null
check "json prediction" '"runtime": "tensorrt"' "$tmp/tjson"
check "json node time" '"time_us": ' "$tmp/tjson"
"$DIPPM" layers "$m" --runtime tensorrt --precision fp16 --csv > "$tmp/tfuse" 2>/dev/null
awk -F, 'NR > 1 && $(NF) != $2 { f++ } END { exit !(f > 0) }' "$tmp/tfuse" ||
    { echo "FAIL: tensorrt: no node names the kernel it is fused into:"; cat "$tmp/tfuse";
    fails=$((fails + 1)); }
"$DIPPM" layers "$m" > "$tmp/notime" 2>&1
if grep -q "predicted on" "$tmp/notime"; then echo "FAIL: time shown without --time"; fails=$((fails + 1)); fi
"$DIPPM" layers "$m" --gpu Z9 > "$tmp/badgpu" 2>&1
rc=$?
[ "$rc" -eq 2 ] || { echo "FAIL: --gpu Z9 exit $rc, expected 2"; fails=$((fails + 1)); }
check "bad gpu names it" "--gpu: unknown GPU 'Z9'" "$tmp/badgpu"

[ "$fails" -eq 0 ] && echo "layers CLI: all checks passed"
exit $((fails > 0))
