#!/bin/sh
# Bad-input corpus: every malformed file must give its expected exit status
# and a message naming what is wrong -- never a crash, hang or silence.
# Cases listed in MANIFEST, plus generated ones (a directory, /dev/zero, an
# unreadable file, a graph of a million nodes).
DIPPM=${DIPPM:-./dippm}
here=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'chmod -R u+rwx "$T" 2>/dev/null; rm -rf "$T"' EXIT
pass=0
fail=0

# expect NAME WANT_RC NEEDLE CMD...
expect() {
    name=$1 want=$2 needle=$3
    shift 3
    timeout 120 "$@" >"$T/out" 2>"$T/err" </dev/null
    rc=$?
    if [ "$rc" -ne "$want" ]; then
        echo "FAIL: $name: exit $rc, expected $want"
        head -3 "$T/err" | sed 's/^/  stderr: /'
        fail=$((fail + 1))
    elif [ "$want" -ne 0 ] && ! grep -qF -- "$needle" "$T/err"; then
        echo "FAIL: $name: message lacks '$needle'"
        head -3 "$T/err" | sed 's/^/  stderr: /'
        fail=$((fail + 1))
    elif [ "$want" -eq 0 ] && ! grep -qF -- "$needle" "$T/out"; then
        echo "FAIL: $name: output lacks '$needle'"
        fail=$((fail + 1))
    else
        echo "ok: $name"
        pass=$((pass + 1))
    fi
}

# MANIFEST: FILE|EXIT|NEEDLE[|HOW]; HOW is "info" (default: `dippm info FILE`)
# or "weights" (`dippm predict --weights FILE` on a valid model).
model=$here/../../samples/tiny_cnn.json
while IFS='|' read -r file want needle how; do
    case "$file" in '#'* | '') continue ;; esac
    case "${how:-info}" in
    info) expect "$file" "$want" "$needle" "$DIPPM" info "$here/$file" ;;
    weights) expect "$file" "$want" "$needle" "$DIPPM" predict --weights "$here/$file" "$model" ;;
    predict) expect "$file" "$want" "$needle" "$DIPPM" predict "$here/$file" ;;
    *) echo "FAIL: $file: unknown HOW '$how' in MANIFEST"; fail=$((fail + 1)) ;;
    esac
done <"$here/MANIFEST"

mkdir "$T/dir.onnx"
expect "directory" 3 "is a directory" "$DIPPM" info "$T/dir.onnx"
expect "/dev/zero" 3 "not a regular file" "$DIPPM" info /dev/zero
expect "missing file" 3 "No such file" "$DIPPM" info "$T/missing.onnx"
cp "$here/files/cycle.json" "$T/locked.json"
chmod 000 "$T/locked.json"
if [ "$(id -u)" = 0 ]; then
    # root reads anything: check as an unprivileged user instead. That user
    # may not reach the build tree (a checkout under a private directory, or
    # DIPPM a wrapper naming it by absolute path): then it runs a copy of the
    # binary (DIPPM_BIN, the real one behind a wrapper) from $T.
    chmod 755 "$T"
    nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
    run=$DIPPM
    if ! $nobody "$run" --version >/dev/null 2>&1; then
        cp "${DIPPM_BIN:-$DIPPM}" "$T/dippm-copy" && chmod 755 "$T/dippm-copy"
        run=$T/dippm-copy
    fi
    expect "unreadable file" 3 "Permission denied" $nobody "$run" info "$T/locked.json"
else
    expect "unreadable file" 3 "Permission denied" "$DIPPM" info "$T/locked.json"
fi

# FIFOs given as inputs are refused at once, never waited on (no writer here)
mkfifo "$T/fifo"
expect "fifo --weights" 3 "not a regular file" "$DIPPM" predict --weights "$T/fifo" "$model"
# DIPPM_WEIGHTS unusable: the teacher's figures with a note, at once
expect "fifo DIPPM_WEIGHTS" 0 "latency" env DIPPM_WEIGHTS="$T/fifo" "$DIPPM" predict "$model"
grep -q "fifo: not a regular file" "$T/err" || { echo "FAIL: fifo DIPPM_WEIGHTS: no note"; fail=$((fail + 1)); }
expect "fifo model" 3 "not a regular file" "$DIPPM" info "$T/fifo"
expect "fifo train --data" 3 "not a regular file" "$DIPPM" train --data "$T/fifo" -o "$T/w.dpw"
expect "fifo eval --data" 3 "not a regular file" "$DIPPM" eval --data "$T/fifo"
# a model whose teacher latency overflows is refused naming it, with weights
# (MANIFEST) and without: the teacher's figure is never printed cut
expect "overflow without weights" 7 "the model's work overflows (node 'L14/body" \
    env DIPPM_WEIGHTS="$T/missing.dpw" "$DIPPM" predict "$here/files/ctrl_loop_overflow.onnx"
expect "directory --weights" 3 "is a directory, expected a regular file" "$DIPPM" predict --weights "$T" "$model"

# train -o never replaces the .json next to the weights (the manifest's place)
echo '{"mine": true}' >"$T/model.json"
expect "train -o over a user's json" 9 "model.json exists, where the training manifest goes" \
    "$DIPPM" train --data "$T/missing.jsonl" -o "$T/model.dpw"
grep -q mine "$T/model.json" || { echo "FAIL: model.json was changed"; fail=$((fail + 1)); }
expect "train -o X.json" 2 "the training manifest would be written to the same file" \
    "$DIPPM" train --data "$T/missing.jsonl" -o "$T/w.json"

# dataset rows: wrong types are errors, not defaults; targets must be positive and finite
jl() { printf '%s\n' "$2" >"$T/$1.jsonl"; }
jl prec16 '{"spec": "zoo:mlp", "gpu": "A100-SXM4-40GB", "precision": 16, "batch": 1, "latency_ms": 1}'
expect "jsonl precision number" 4 '"precision" is a number, expected a string' "$DIPPM" eval --data "$T/prec16.jsonl"
jl batchstr '{"spec": "zoo:mlp", "gpu": "A100-SXM4-40GB", "batch": "8", "latency_ms": 1}'
expect "jsonl batch string" 4 '"batch" is a string, expected a number' "$DIPPM" eval --data "$T/batchstr.jsonl"
jl negtgt '{"spec": "zoo:mlp", "gpu": "A100-SXM4-40GB", "batch": 1, "latency_ms": -1}'
expect "jsonl negative target" 4 '"latency_ms" is -1, expected a positive finite number' "$DIPPM" eval --data "$T/negtgt.jsonl"
jl trail '{"spec": "zoo:mlp", "gpu": "A100-SXM4-40GB", "batch": 1, "latency_ms": 1} x'
expect "jsonl trailing text" 4 "unexpected text after the JSON value" "$DIPPM" eval --data "$T/trail.jsonl"

expect "binary dataset inf target" 4 '"latency_ms" is inf, expected a positive finite number' \
    "$DIPPM" eval --data "$here/files/ds_target_inf.dpd" --all-rows --quiet
expect "binary dataset batch 2^31" 4 '"batch" is 2147483648, expected an integer from 1 to 1048576' \
    "$DIPPM" eval --data "$here/files/ds_batch_2pow31.dpd" --all-rows --quiet

# 160,000 symbols (hashed lookup) and 16,000 same-named ONNX nodes load at once
awk 'BEGIN {
    printf "{\"format\": \"dippm-graph\", \"version\": 1, \"values\": ["
    for (i = 0; i < 40000; i++)
        printf "%s{\"name\": \"i%d\", \"dtype\": \"float32\", \"shape\": [\"s%d\", \"t%d\", \"u%d\", \"v%d\"]}", (i ? "," : ""), i, i, i, i, i
    printf "], \"inputs\": [{\"name\": \"x\", \"dtype\": \"float32\", \"shape\": [1, 4]}],"
    printf " \"nodes\": [{\"name\": \"r\", \"op\": \"Relu\", \"inputs\": [\"x\"], \"outputs\": [\"y\"]}], \"outputs\": [{\"name\": \"y\"}]}\n"
}' >"$T/syms.json"
expect "160000 symbols" 0 "s39999" "$DIPPM" info "$T/syms.json"

# A million-node chain: loads and infers, or fails cleanly; never crashes.
# (BAD_SKIP_MILLION=1 skips it: tests/valgrind.sh, where it would take minutes.)
if [ -n "${BAD_SKIP_MILLION:-}" ]; then
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
    exit
fi
awk 'BEGIN {
    n = 1000000
    printf "{\"format\": \"dippm-graph\", \"version\": 1, \"symbols\": {\"batch\": 1},\n"
    printf "\"inputs\": [{\"name\": \"v0\", \"dtype\": \"float32\", \"shape\": [\"batch\", 16]}],\n\"nodes\": [\n"
    for (i = 1; i <= n; i++)
        printf "{\"name\": \"n%d\", \"op\": \"Relu\", \"inputs\": [\"v%d\"], \"outputs\": [\"v%d\"]}%s\n", i, i - 1, i, (i < n ? "," : "")
    printf "],\n\"outputs\": [{\"name\": \"v%d\"}]}\n", n
}' >"$T/million.json"
expect "million nodes" 0 "nodes:    1000000" "$DIPPM" info "$T/million.json"
expect "million nodes: predict" 0 "latency" "$DIPPM" predict "$T/million.json"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
