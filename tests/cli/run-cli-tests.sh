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
