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
run "explorer with options" 2 "$DIPPM" zoo:bert --gpu t4 && check "explorer options message" "$T/err" "the explorer takes one MODEL and no options (got '--gpu' after it)"
run "info bad option" 2 "$DIPPM" info --nope "$S/tiny_cnn.json" && check "info bad option usage" "$T/err" "Try 'dippm info --help'"
run "info help" 0 "$DIPPM" info --help && check "info help text" "$T/out" "Usage: dippm info"
# the lists of precisions and runtimes messages print (dippm(1), OPTIONS)
run "unknown precision" 2 "$DIPPM" predict --precision fp64 "$S/tiny_cnn.json" &&
    check "precision list" "$T/err" "--precision 'fp64': expected fp32, tf32, fp16, bf16, int8 or fp8$"
run "tf32 KV cache" 2 "$DIPPM" predict --kv-precision tf32 --output-tokens 4 zoo:gpt &&
    check "KV-cache precision list" "$T/err" "expected a KV-cache precision: fp32, fp16, bf16, int8 or fp8$"
run "unknown runtime" 2 "$DIPPM" predict --runtime openvino "$S/tiny_cnn.json" &&
    check "runtime list" "$T/err" "--runtime 'openvino': expected pytorch, pytorch-sdpa, inductor, inductor-graph, onnxruntime, onnxruntime-graph, tensorrt, tensorrt-graph or vllm$"
run "torch.compile runtimes" 0 "$DIPPM" predict --runtime inductor "$S/tiny_cnn.json" &&
    check "inductor named" "$T/out" "inductor"
run "reduce-overhead alias" 0 "$DIPPM" predict --runtime reduce-overhead --json "$S/tiny_cnn.json" &&
    check "alias is inductor-graph" "$T/out" '"runtime": "inductor-graph"'
run "help lists inductor" 0 "$DIPPM" predict --help &&
    check "help inductor" "$T/out" "library GEMMs), inductor-graph (torch.compile"
run "ONNX Runtime alias" 0 "$DIPPM" predict --runtime ort --json "$S/tiny_cnn.json" &&
    check "ort is onnxruntime" "$T/out" '"runtime": "onnxruntime"'
run "help lists onnxruntime" 0 "$DIPPM" predict --help &&
    check "help onnxruntime" "$T/out" "onnxruntime (ONNX Runtime's CUDA execution provider"
run "ONNX Runtime has no int8" 2 "$DIPPM" predict --runtime onnxruntime --precision int8 "$S/tiny_cnn.json" &&
    check "ort int8 refused" "$T/err" "int8 needs runtime tensorrt: runtime onnxruntime (CUDA EP) has no int8 GPU path"
# output that cannot be written is an I/O error (exit 3, a message), never a
# silent exit 0: stdout on /dev/full or closed
unwritable() {
    name=$1
    shift
    "$@" >/dev/full 2>"$T/err" </dev/null
    rc=$?
    if [ "$rc" -eq 3 ] && grep -q "cannot write to standard output: No space" "$T/err"; then
        ok "$name >/dev/full"
    else
        bad "$name >/dev/full: exit $rc, $(head -c 200 "$T/err")"
    fi
}
unwritable "--version" "$DIPPM" --version
unwritable "--help" "$DIPPM" --help
unwritable "info" "$DIPPM" info "$S/tiny_cnn.json"
unwritable "zoo list" "$DIPPM" zoo list
unwritable "zoo show" "$DIPPM" zoo show resnet
unwritable "report without a terminal" "$DIPPM" "$S/tiny_cnn.json"
"$DIPPM" --version >&- 2>"$T/err"
rc=$?
if [ "$rc" -eq 3 ] && grep -q "cannot write to standard output" "$T/err"; then ok "--version >&-"; else bad "--version >&-: exit $rc"; fi

run "info json sample" 0 "$DIPPM" info "$S/tiny_cnn.json" && {
    check "info format" "$T/out" "dippm-json"
    check "info node count" "$T/out" "nodes: *8$"
    check "info edge count" "$T/out" "edges: *15$"
    check "info symbolic input" "$T/out" "\[batch, 3, height, width\] = \[1, 3, 32, 32\]"
    check "info histogram" "$T/out" "Conv *2"
}
run "info --batch --set" 0 "$DIPPM" info --batch 8 --set height=64 "$S/tiny_cnn.json" &&
    check "info binds symbols" "$T/out" "= \[8, 3, 64, 32\]"
# a symbol named as a nested loop's trips (here 122 characters) is set
# like any other: --set kept names of at most 63
long=L2/body/L1/body/L0/body/$(printf 'x%.0s' $(seq 92)).trips
sed "s|\"height\"|\"$long\"|g" "$S/tiny_cnn.json" > "$T/long.json"
run "--set a 122-character symbol" 0 "$DIPPM" info --set "$long=64" "$T/long.json" &&
    check "the long symbol bound" "$T/out" "= \[1, 3, 64, 32\]"
rm -f "$T/long.json"
run "info --json" 0 "$DIPPM" info --json "$S/tiny_cnn.json" && {
    check "info json nodes" "$T/out" '"nodes": 8'
    check "info json symbols" "$T/out" '"batch": {'
}
run "bad --batch" 2 "$DIPPM" info --batch 0 "$S/tiny_cnn.json" && check "bad batch message" "$T/err" "expected an integer from 1"
run "bad --set" 2 "$DIPPM" info --set height "$S/tiny_cnn.json" && check "bad set message" "$T/err" "expected NAME=VALUE"
run "unknown symbol" 2 "$DIPPM" info --set seq=8 "$S/tiny_cnn.json" && check "unknown symbol lists known" "$T/err" "symbols: batch, height, width"

# values from the command line are echoed with their control bytes escaped:
# an argument cannot send escape sequences (here: set the window title) to
# the terminal through an error message
esc=$(printf '\033]0;PWNED\007')
escaped() {
    name=$1
    shift
    "$@" >"$T/out" 2>"$T/err" </dev/null
    if LC_ALL=C grep -q "$(printf '[\033\007]')" "$T/err"; then
        bad "$name: raw control bytes on stderr"
    elif grep -qF '\x1b]0;PWNED\x07' "$T/err"; then
        ok "$name: echoed escaped"
    else
        bad "$name: value not echoed escaped: $(head -c 200 "$T/err")"
    fi
}
escaped "--gpu" "$DIPPM" predict --gpu "$esc" "$S/tiny_cnn.json"
escaped "--gpu MIG profile" "$DIPPM" predict --gpu "a100:$esc" "$S/tiny_cnn.json"
escaped "--precision" "$DIPPM" predict --precision "$esc" "$S/tiny_cnn.json"
escaped "--runtime" "$DIPPM" predict --runtime "$esc" "$S/tiny_cnn.json"
escaped "--batch" "$DIPPM" info --batch "$esc" "$S/tiny_cnn.json"
escaped "--set without =" "$DIPPM" info --set "$esc" "$S/tiny_cnn.json"
escaped "--set value" "$DIPPM" info --set "height=$esc" "$S/tiny_cnn.json"
escaped "--slo-ms" "$DIPPM" predict --slo-ms "$esc" "$S/tiny_cnn.json"
escaped "unknown subcommand" "$DIPPM" "$esc"
escaped "unknown option" "$DIPPM" "--$esc"
escaped "unknown subcommand option" "$DIPPM" info "--$esc" "$S/tiny_cnn.json"
escaped "sweep --over" "$DIPPM" sweep --over "$esc" "$S/tiny_cnn.json"
escaped "sweep --over symbol" "$DIPPM" sweep --over "h$esc=1" "$S/tiny_cnn.json"
escaped "zoo show" "$DIPPM" zoo show "$esc"
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
# -o never replaces what is not a regular file, --force or not (as root,
# -o /dev/null --force used to delete /dev/null)
mkfifo "$T/out.fifo"
run "convert -o FIFO --force" 3 "$DIPPM" convert --force "$S/tiny_cnn.json" -o "$T/out.fifo" &&
    check "FIFO refused, named" "$T/err" "out.fifo: not a regular file"
if [ -p "$T/out.fifo" ]; then ok "FIFO left in place"; else bad "-o --force replaced a FIFO"; fi
mkdir "$T/out.dir"
run "convert -o DIR --force" 3 "$DIPPM" convert --force "$S/tiny_cnn.json" -o "$T/out.dir" &&
    check "directory refused, named" "$T/err" "out.dir: is a directory"
# a name of 250 bytes is valid, though NAME.tmpXXXXXX would exceed NAME_MAX
long=$(printf '%0250d' 0)
run "convert -o 250-byte name" 0 "$DIPPM" convert "$S/tiny_cnn.json" -o "$T/$long" &&
    check "250-byte name written" "$T/$long" "dippm-graph"
if ls "$T" | grep -q '\.tmp'; then bad "temporary file left beside the long name"; else ok "no temporary file left"; fi
rm -f "$T/$long"
# past the file size limit: a message, exit 3 and no temporary file, not SIGXFSZ
mkdir "$T/fsz"
run "convert under ulimit -f" 3 sh -c 'ulimit -f 4 && exec "$@"' sh \
    "$DIPPM" convert "$S/resnet50.onnx" -o "$T/fsz/r.json" &&
    check "file size limit named" "$T/err" "r.json: write failed: File too large"
if [ -z "$(ls "$T/fsz")" ]; then ok "nothing left past the file size limit"; else bad "left: $(ls "$T/fsz")"; fi
# under an address-space limit (ulimit -v) every command ends: BLAS worker
# threads whose buffers do not fit made exit() wait for ever; out of
# memory while parsing JSON is exit 7 saying so, not "invalid JSON". An
# AddressSanitizer build reserves terabytes of address space, so it cannot
# run under such a limit at all: there these checks cannot apply.
if grep -q __asan_init "$DIPPM" 2>/dev/null; then
    ok "ulimit -v checks do not apply to an AddressSanitizer build"
else
    limited() { timeout 120 sh -c 'ulimit -v 200000 && exec "$@"' sh "$@"; }
    run "--version under ulimit -v 200000" 0 limited "$DIPPM" --version &&
        check "--version under ulimit -v prints" "$T/out" "^dippm [0-9]"
    run "info under ulimit -v 200000" 0 limited "$DIPPM" info "$S/tiny_cnn.json"
    awk 'BEGIN { printf "{\"format\": \"dippm-graph\", \"x\": ["; for (i = 0; i < 6000000; i++) printf "0,"; printf "0]}" }' > "$T/big.json"
    run "JSON too big for the memory left" 7 limited "$DIPPM" info "$T/big.json" &&
        check "out of memory named" "$T/err" "out of memory"
    rm -f "$T/big.json"
    # every dataset row's features are kept for the epochs: rows past the
    # memory (here ulimit -v) are refused before they are built, naming the row
    awk 'BEGIN { n = 100000
        printf "{\"format\": \"dippm-graph\", \"version\": 1, \"symbols\": {\"batch\": 1},\n"
        printf "\"inputs\": [{\"name\": \"v0\", \"dtype\": \"float32\", \"shape\": [\"batch\", 16]}],\n\"nodes\": [\n"
        for (i = 1; i <= n; i++)
            printf "{\"name\": \"n%d\", \"op\": \"Relu\", \"inputs\": [\"v%d\"], \"outputs\": [\"v%d\"]}%s\n", i, i - 1, i, (i < n ? "," : "")
        printf "],\n\"outputs\": [{\"name\": \"v%d\"}]}\n", n }' > "$T/chain.json"
    for b in 1 2 3 4 5 6 7 8 9 10; do
        echo "{\"spec\": \"$T/chain.json\", \"gpu\": \"A100-SXM4-40GB\", \"batch\": $b, \"latency_ms\": 1}"
    done > "$T/chain.jsonl"
    limited() { timeout 120 sh -c 'ulimit -v 400000 && exec "$@"' sh "$@"; }
    run "eval --data past the memory for features" 7 limited "$DIPPM" eval --data "$T/chain.jsonl" --all-rows --quiet &&
        check "the row and the limit named" "$T/err" "row [0-9]* (.*chain.json, 100000 nodes): the rows' features would take more than"
    rm -f "$T/chain.json" "$T/chain.jsonl"
fi
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
    check "predict teacher beside the GNN latency" "$T/out" \
        "^latency .*  (GNN; teacher [0-9.]* [^ ]*s, roofline bound [0-9.]* [^ ]*s)"
    check "predict teacher beside the GNN energy" "$T/out" "^energy .*(GNN; teacher [0-9.]* [mk]*J)"
    check "predict teacher beside the GNN memory" "$T/out" "^memory .*(GNN; teacher [0-9.]* [KMGT]iB)"
    check "predict MIG line" "$T/out" "^MIG "
    check "predict source line" "$T/out" "^source "
}
# Sharded generation through tools/dataset/shard.slurm (run here without
# Slurm, with the array variables it reads): 3 shards concatenated hold the
# same rows as one run.
shard_script=${TOP_SRCDIR:-.}/tools/dataset/shard.slurm
mkdir -p "$T/shards"
for i in 0 1 2; do
    SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_COUNT=3 DIPPM=$DIPPM ROWS=30 SEED=7 OUT="$T/shards" \
        FAMILIES=mlp,resnet,randnet SAMPLES=none JSONL=1 sh "$shard_script" >"$T/out" 2>"$T/err" ||
        bad "shard $i/3 failed: $(head -c 300 "$T/err")"
done
if run "one unsharded run" 0 "$DIPPM" dataset -o "$T/one.jsonl" --n 30 --seed 7 \
    --families mlp,resnet,randnet --samples none --jsonl --quiet; then
    cat "$T"/shards/part-*.jsonl | sort >"$T/sharded.sorted"
    sort "$T/one.jsonl" >"$T/one.sorted"
    if [ "$(wc -l <"$T/one.sorted")" -eq 30 ] && cmp -s "$T/sharded.sorted" "$T/one.sorted" &&
        [ "$(ls "$T"/shards/part-*.jsonl | wc -l)" -eq 3 ]; then
        ok "3 shards concatenated equal one run (30 rows)"
    else
        bad "sharded rows differ from one run"
    fi
fi
run "shard script outside Slurm" 2 sh "$shard_script" &&
    check "shard script says how to run it" "$T/err" "SLURM_ARRAY_TASK_ID"
# Fine-tuning on measured rows with teacher-labelled rows as the regulariser.
# The "measured" rows here are synthetic (1.6 x the teacher's latency: a
# systematic gap the analytic model misses), only to exercise the mechanism:
# the tuned GNN must land much closer to them than the teacher does, also
# for a model left out of the fine-tuning (leave-one-model-out).
: >"$T/meas.jsonl"
sabs=$(cd "$S" && pwd)
for m in resnet50 mobilenet_v2; do
    for b in 1 4 16 64; do
        "$DIPPM" predict --json --batch $b --precision fp16 "$S/$m.onnx" >"$T/p.json" 2>/dev/null
        tl=$(tr -d ' \n' <"$T/p.json" | sed -n 's/.*"teacher_latency_ms":\([0-9.e+-]*\).*/\1/p')
        lat=$(awk -v t="$tl" 'BEGIN { printf "%.6f", t * 1.6 }')
        printf '{"schema": "dippm-measured/1", "model": "%s", "graph": "%s", "input": null, "batch": %d, "precision": "fp16", "runtime": "pytorch", "gpu": "A100-SXM4-40GB", "mig": null, "status": "ok", "latency_ms": %s, "memory_mib": null, "energy_j": null, "power_w": null, "source": "measured"}\n' \
            "$m" "$sabs/$m.onnx" $b "$lat" >>"$T/meas.jsonl"
    done
done
# mape NAME: latency MAPE of object NAME in the flattened JSON $flat
mape() { echo "$flat" | sed -n "s/.*\"$1\":{\"latency\":{\"n\":[0-9]*,\"mape_pct\":\([0-9.]*\).*/\1/p"; }
# beats NAME G T: G well below T (and T the 37.5% the synthetic gap gives)
beats() {
    if [ -n "$2" ] && [ -n "$3" ] && awk -v g="$2" -v t="$3" 'BEGIN { exit !(t > 30 && g < t / 2) }'; then
        ok "$1 (MAPE $2% vs the teacher's $3%)"
    else
        bad "$1: GNN '$2' vs teacher '$3'"
    fi
}
if run "teacher rows for the regulariser" 0 "$DIPPM" dataset -o "$T/teach.dpds" --n 40 \
        --families resnet,mlp --samples none --quiet &&
    run "fine-tune on measured + teacher rows" 0 "$DIPPM" train --data "$T/meas.jsonl" \
        --data "$T/teach.dpds" -o "$T/tuned.dpw" --epochs 40 --all --quiet &&
    run "eval the tuned weights on the measured rows" 0 "$DIPPM" eval --weights "$T/tuned.dpw" \
        --data "$T/meas.jsonl" --all-rows --json --quiet; then
    flat=$(tr -d ' \n' <"$T/out")
    beats "fine-tuned GNN beats its teacher on measured rows" "$(mape test)" \
        "$(mape teacher_on_test)"
    check "manifest records the measured rows" "$T/tuned.json" '"measured_rows": 8'
    if run "leave-one-model-out" 0 "$DIPPM" eval --weights "$T/tuned.dpw" --data "$T/meas.jsonl" \
            --lomo --lomo-epochs 30 --json --quiet; then
        flat=$(tr -d ' \n' <"$T/out")
        beats "GNN beats its teacher on a model left out of fine-tuning" "$(mape pooled_gnn)" \
            "$(mape pooled_teacher)"
        check "leave-one-model-out lists the models" "$T/out" '"model": "mobilenet_v2"'
    fi
    # --lomo-hold: only the named models are held out; the others still train
    if run "leave one model out, one family held" 0 "$DIPPM" eval --weights "$T/tuned.dpw" \
            --data "$T/meas.jsonl" --lomo --lomo-hold mobile --lomo-epochs 2 --json --quiet; then
        check "the held family is listed" "$T/out" '"model": "mobilenet_v2"'
        if grep -q '"model": "resnet50"' "$T/out"; then
            bad "--lomo-hold mobile also held out resnet50"
        fi
    fi
    run "lomo-hold matching no model" 2 "$DIPPM" eval --weights "$T/tuned.dpw" \
        --data "$T/meas.jsonl" --lomo --lomo-hold nosuch --quiet &&
        check "lomo-hold names the prefix" "$T/err" "'nosuch'"
    run "lomo learning rate out of range" 2 "$DIPPM" eval --weights "$T/tuned.dpw" \
        --data "$T/meas.jsonl" --lomo --lomo-lr 0 &&
        check "lomo-lr named" "$T/err" "lomo-lr '0': expected a number above 0"
    # --only memory: the latency and energy outputs must stay those of the
    # weights it starts from, on every row
    if run "fine-tune the memory output only" 0 "$DIPPM" train --init "$T/tuned.dpw" \
            --only memory --data "$T/meas.jsonl" --data "$T/teach.dpds" -o "$T/mem.dpw" \
            --epochs 5 --all --quiet &&
        run "rows of the tuned weights" 0 "$DIPPM" eval --weights "$T/tuned.dpw" \
            --data "$T/meas.jsonl" --all-rows --rows "$T/a.csv" --quiet &&
        run "rows of the memory-tuned weights" 0 "$DIPPM" eval --weights "$T/mem.dpw" \
            --data "$T/meas.jsonl" --all-rows --rows "$T/b.csv" --quiet; then
        if [ "$(cut -d, -f11,13 "$T/a.csv")" = "$(cut -d, -f11,13 "$T/b.csv")" ] &&
            [ "$(wc -l <"$T/a.csv")" -gt 2 ]; then
            ok "--only memory leaves latency and energy unchanged"
        else
            bad "--only memory changed latency or energy predictions"
        fi
    fi
fi
run "only without init" 2 "$DIPPM" train --only memory --data x -o "$T/x.dpw" &&
    check "only needs init" "$T/err" "give it with --init"
run "only bad target" 2 "$DIPPM" eval --only speed &&
    check "only target named" "$T/err" "'speed': expected latency, energy or memory"
if run "orderings on a small grid" 0 "$DIPPM" eval --orderings --order-families mlp \
        --data "$T/teach.dpds" --json --quiet; then
    flat=$(tr -d ' \n' <"$T/out")
    if echo "$flat" | grep -q '"memory-batch":{"property":"abiggerbatchdoesnotneedlessmemory","pairs":[1-9][0-9]*,"gnn_violations":0,"gnn_worst_pct":0.000,"teacher_violations":0'; then
        ok "orderings count memory against batch, none broken"
    else
        bad "memory-batch ordering missing or broken"; echo "$flat" | head -c 600
    fi
fi
run "lomo without data" 2 "$DIPPM" eval --lomo && check "lomo needs data" "$T/err" "needs --data"
run "negative teacher weight" 2 "$DIPPM" eval --lomo --teacher-weight -1 &&
    check "teacher weight range named" "$T/err" "teacher-weight '-1': expected a number from 0 to 10"
run "nothing fits" 0 "$DIPPM" predict --batch 512 --set seq=1024 "$S/gpt2_medium.onnx" &&
    { check "nothing fits says so" "$T/out" "no A100-SXM4-40GB profile fits"
      check "nothing fits says by how much" "$T/out" "short by"
      check "does not fit flagged" "$T/out" "DOES NOT FIT"; }
run "unmeetable target" 0 "$DIPPM" predict --slo-ms 0.001 "$S/tiny_cnn.json" &&
    check "unmeetable target says so" "$T/out" "meets the 1.00 µs target"
run "bad gpu" 2 "$DIPPM" predict --gpu p100 "$S/tiny_cnn.json" && check "bad gpu lists known" "$T/err" "H200"
check "bad gpu lists the rented ones" "$T/err" "L4-PCIe-24GB T4-PCIe-16GB V100-PCIe-32GB"
run "bad profile" 2 "$DIPPM" predict --gpu a100:9g.99gb "$S/tiny_cnn.json" && check "bad profile lists" "$T/err" "3g.20gb"
run "bad precision" 2 "$DIPPM" predict --precision fp4 "$S/tiny_cnn.json" && check "bad precision" "$T/err" "expected fp32"
run "int8 eager" 2 "$DIPPM" predict --precision int8 --runtime pytorch "$S/tiny_cnn.json" && check "int8 eager" "$T/err" "int8 needs runtime tensorrt: runtime pytorch (eager) has no int8"
run "fp8 on A100" 2 "$DIPPM" predict --precision fp8 --runtime tensorrt --gpu a100 "$S/tiny_cnn.json" && check "fp8 on A100" "$T/err" "fp8 needs Ada or Hopper"
# L4, T4, V100: no MIG, and the precisions their tensor cores lack refused naming the GPU
run "t4 whole" 0 "$DIPPM" predict --gpu t4 "$S/tiny_cnn.json" &&
    check "t4 says it has no MIG" "$T/out" "T4-PCIe-16GB has no MIG profiles"
run "t4 slice" 2 "$DIPPM" predict --gpu t4:1g.5gb "$S/tiny_cnn.json" &&
    check "t4 slice refused" "$T/err" "T4-PCIe-16GB has no MIG profiles"
run "bf16 on T4" 2 "$DIPPM" predict --precision bf16 --gpu tesla-t4 "$S/tiny_cnn.json" &&
    { check "bf16 on T4 names it" "$T/err" "precision bf16 on T4-PCIe-16GB"
      check "bf16 on T4 says who has it" "$T/err" "Ampere or newer"
      if grep -q "Hopper" "$T/err"; then bad "bf16 refusal names fp8's Hopper"
      else ok "bf16 refusal does not name fp8's Hopper"; fi; }
run "tf32 on V100" 2 "$DIPPM" predict --precision tf32 --gpu v100 "$S/tiny_cnn.json" &&
    check "tf32 on V100 names it" "$T/err" "precision tf32 on V100-PCIe-32GB"
run "int8 on V100" 2 "$DIPPM" predict --precision int8 --runtime tensorrt --gpu v100 "$S/tiny_cnn.json" &&
    check "int8 on V100" "$T/err" "int8 needs Turing or newer"
run "int8 on T4" 0 "$DIPPM" predict --precision int8 --runtime tensorrt --gpu t4 "$S/tiny_cnn.json"
run "fp8 on L4" 0 "$DIPPM" predict --precision fp8 --runtime tensorrt --gpu nvidia-l4 "$S/tiny_cnn.json" &&
    check "fp8 on L4 runs" "$T/out" "L4-PCIe-24GB, fp8, tensorrt"
run "fp8 on H100" 0 "$DIPPM" predict --precision fp8 --runtime tensorrt --gpu h100 "$S/tiny_cnn.json"
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
# a sweep takes at most 4096 points: more is refused naming the limit, never
# cut short; a list is read whole however long (300 values, 1,092 characters)
run "sweep too many points" 2 "$DIPPM" sweep --batch 1..1048576:1 "$S/tiny_cnn.json" &&
    check "sweep limit named" "$T/err" "more than 4096 points"
run "sweep over too many points" 2 "$DIPPM" sweep --over height=1..5000:1 "$S/tiny_cnn.json" &&
    check "sweep over limit named" "$T/err" "more than 4096 points"
run "sweep 4096 points" 0 "$DIPPM" sweep --csv --batch 1..4096:1 "$S/tiny_cnn.json" &&
    { [ "$(grep -c '^[0-9]' "$T/out")" -eq 4096 ] && ok "sweep 1..4096:1 has 4096 rows" ||
        bad "sweep 1..4096:1 rows: $(grep -c '^[0-9]' "$T/out")"; }
run "sweep long list" 0 "$DIPPM" sweep --csv --batch "$(seq -s, 1 300)" "$S/tiny_cnn.json" && {
    [ "$(grep -c '^[0-9]' "$T/out")" -eq 300 ] && ok "sweep long list has 300 rows" ||
        bad "sweep long list rows: $(grep -c '^[0-9]' "$T/out")"
    [ "$(tail -n 1 "$T/out" | cut -d, -f1)" = 300 ] && ok "sweep long list ends at 300" ||
        bad "sweep long list ends at $(tail -n 1 "$T/out" | cut -d, -f1)"
}
run "max batch" 0 "$DIPPM" sweep --max-batch --gpu a100:1g.5gb "$S/resnet50.onnx" && {
    check "max batch answer" "$T/out" "largest batch on A100-SXM4-40GB 1g.5gb"
    check "max batch limit" "$T/out" "exceeds 4.75 GiB usable"
}
run "max batch unmeetable" 1 "$DIPPM" sweep --max-batch --slo-ms 0.0001 "$S/tiny_cnn.json" &&
    check "max batch none" "$T/out" "no batch fits"

# calibrate: a bad mapping table is refused with the file, line and column
printf '{"latency_ms": 2.5}\n' >"$T/c.jsonl"
printf 'file\tline\tmodel_id\tsource_family\tuse\ttarget\tmeasured\tspec\tbatch\tseq\ttokens\tin_tokens\tout_tokens\tsteps\tgpu\tmig\tprecision\truntime\ttiming\treason\nc.jsonl\t1\tresnet50\tx\tfit\tlatency_ms\t2.5\tsamples/resnet50.onnx\t1\t0\t0\t0\t0\t0\tA100-SXM4-40GB\t5g.99gb\tfp16\ttensorrt\twall\t-\n' >"$T/c.tsv"
run "calibrate bad table" 4 "$DIPPM" calibrate --no-fit --data "$T/c.tsv" &&
    check "calibrate bad table message" "$T/err" "c.tsv:2: column 16 (mig): '5g.99gb'"
run "calibrate missing table" 3 "$DIPPM" calibrate --data "$T/none.tsv" &&
    check "calibrate missing table message" "$T/err" "none.tsv"
# the mapped rows exported for the GNN: a dataset `dippm eval` reads as
# measured rows; an existing file is kept without --force
c_tsv="$S/../tests/data/calib_map.tsv"
run "calibrate export rows" 0 "$DIPPM" calibrate --data "$c_tsv" --export-rows "$T/real.jsonl" && {
    check "export rows count" "$T/err" "wrote [0-9]* measured rows"
    # demoBERT's 0.62 ms is GPU-timed: exported with the host's call cost
    # (tens of microseconds; the exact sum is test_calib's)
    check "export rows demoBERT" "$T/real.jsonl" '"spec":"zoo:bert:preset=bert-base:seq=128","label":"measured","family":"bert-base","gpu":"A100-SXM4-40GB","mig":"none","precision":"fp16","runtime":"tensorrt-graph","batch":1,"latency_ms":0\.[6-9][0-9][0-9]'
}
echo keep >"$T/keep.jsonl"
run "calibrate export keeps a file" 9 "$DIPPM" calibrate --data "$c_tsv" --export-rows "$T/keep.jsonl" &&
    check "calibrate export file untouched" "$T/keep.jsonl" "^keep$"
# the explorer's entry points: --tour and --session NAME need a terminal (or
# DIPPM_NO_DISPLAY); a missing session is named before the terminal is used
run "--tour without a terminal" 2 "$DIPPM" --tour </dev/null &&
    check "--tour needs a terminal" "$T/err" "needs a terminal"
run "--session without a name" 2 "$DIPPM" --session && check "--session usage" "$T/err" "usage: dippm --tour"
run "--session of an absent session" 3 env DIPPM_NO_DISPLAY=1 XDG_STATE_HOME="$T/state" \
    "$DIPPM" --session nosuch && check "absent session named" "$T/err" "no session 'nosuch'"
run "--session with a bad name" 2 env DIPPM_NO_DISPLAY=1 XDG_STATE_HOME="$T/state" \
    "$DIPPM" --session ../etc && check "bad session name" "$T/err" "session name '../etc'"
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

# generation: decoder templates, an exported decoder with a KV cache, errors
run "generation text" 0 "$DIPPM" predict zoo:llama --gpu h100 --precision fp16 --runtime tensorrt \
    --input-tokens 128 --output-tokens 64 --batch 4 && {
    check "generation block" "$T/out" "^generation  128 input + 64 output tokens, batch 4, KV cache fp16"
    check "generation ttft" "$T/out" "^  ttft  "
    check "generation tpot" "$T/out" "mean over the growing KV cache"
    # tinyllama: 2 x 22 layers x 4 kv heads x 64 x 2 bytes = 22 KiB per token
    check "generation kv per token" "$T/out" "(22.0 KiB per token per sequence)"
    check "generation kv total" "$T/out" "KV cache  16.5 MiB at 192 tokens"
    check "generation prefill at the prompt" "$T/out" "seq=128"
}
run "generation json" 0 "$DIPPM" predict zoo:gpt --json --input-tokens 32 --output-tokens 8 && {
    for k in input_tokens output_tokens batch ttft_ms tpot_ms e2e_ms output_tokens_per_s \
        kv_cache_mib max_batch max_output_tokens_per_s energy_j_per_output_token \
        generation_memory kv_precision active_params over_mib; do
        grep -q "\"$k\":" "$T/out" || bad "generation json lacks $k"
    done
    ok "generation json fields"
    check "generation json lengths" "$T/out" '"input_tokens": 32,'
}
# the serving runtime: a decode step pays vLLM's step loop per sequence on top
# of the graph-replayed engine's pass; a runtime dippm does not know is named
run "bad runtime" 2 "$DIPPM" predict --runtime openvino "$S/tiny_cnn.json" &&
    check "bad runtime lists vllm" "$T/err" "expected pytorch, pytorch-sdpa, inductor, inductor-graph, onnxruntime, onnxruntime-graph, tensorrt, tensorrt-graph or vllm"
run "vllm single pass" 0 "$DIPPM" predict --runtime vllm "$S/tiny_cnn.json" &&
    check "vllm single pass says where its loop cost shows" "$T/err" "serving loop's cost per sequence shows in a generation"
tpot() {
    "$DIPPM" predict zoo:llama --gpu h100 --precision bf16 --runtime "$1" --batch 64 --json \
        --input-tokens 128 --output-tokens 64 | sed -n 's/.*"tpot_ms": \([0-9.e+-]*\).*/\1/p' | head -1
}
run "vllm generation" 0 "$DIPPM" predict zoo:llama --gpu h100 --precision bf16 --runtime vllm \
    --input-tokens 128 --output-tokens 64 --batch 8 &&
    check "vllm says what it reserves" "$T/out" "^  vllm      reserves --gpu-memory-utilization"
tv=$(tpot vllm) tg=$(tpot tensorrt-graph)
if [ -n "$tv" ] && [ -n "$tg" ] && awk -v v="$tv" -v g="$tg" 'BEGIN { exit !(v > g) }'; then
    ok "vllm decode step slower than the bare graph ($tv > $tg ms)"
else
    bad "vllm tpot '$tv' not above tensorrt-graph's '$tg'"
fi
run "kv fp8" 0 "$DIPPM" predict zoo:llama --gpu h100 --precision fp16 --runtime tensorrt \
    --input-tokens 128 --output-tokens 64 --set kv=fp8 && {
    check "kv fp8 named" "$T/out" "KV cache fp8"
    check "kv fp8 halves the cache" "$T/out" "(11.0 KiB per token per sequence)"
}
run "70b fp16 on 80 GB" 0 "$DIPPM" predict zoo:llama:preset=llama2-70b --gpu a100-80gb \
    --precision fp16 --runtime tensorrt --input-tokens 128 --output-tokens 128 && {
    check "70b does not fit, by how much" "$T/out" "DOES NOT FIT: [0-9.]* [KMGT]iB over"
    check "70b max batch 0" "$T/out" "max batch 0"
}
run "70b fp8 on H200" 0 "$DIPPM" predict zoo:llama:preset=llama2-70b --gpu h200 \
    --precision fp8 --runtime tensorrt --input-tokens 128 --output-tokens 128 &&
    check "70b fp8 fits H200" "$T/out" "usable: fits with 10% headroom"
run "moe active params" 0 "$DIPPM" predict zoo:moe:layers=2:vocab=1000 --precision fp16 \
    --runtime tensorrt --input-tokens 16 --output-tokens 4 &&
    check "moe params and active" "$T/out" "active per token"
run "diffusion json" 0 "$DIPPM" predict zoo:dit:preset=pixart-sigma-xl2-512 --gpu h100 \
    --precision bf16 --runtime tensorrt --steps 20 --batch 2 --json && {
    for k in steps guidance denoiser_batch step_ms denoise_ms vae vae_ms batch_ms ms_per_image \
        images_per_s energy_j_per_image memory_mib fits text_ms text_batch text_encoders; do
        grep -q "\"$k\":" "$T/out" || bad "diffusion json lacks $k"
    done
    ok "diffusion json fields"
    check "diffusion guidance doubles the batch" "$T/out" '"denoiser_batch": 4,'
    check "diffusion derives the VAE" "$T/out" '"vae": "zoo:vae:preset=sd-vae:latent_channels=4:latent=64"'
    check "diffusion derives PixArt-Sigma's T5 over 300 tokens" "$T/out" \
        '"spec": "zoo:t5:preset=t5-v1_1-xxl-encoder:seq=300"'
    check "diffusion encodes prompt and negative prompt" "$T/out" '"text_batch": 4,'
}
run "diffusion text" 0 "$DIPPM" predict zoo:unet --steps 4 --no-guidance --vae zoo:vae:preset=sd3-vae && {
    check "diffusion no guidance" "$T/out" "denoise   4 x [0-9.]* ms = [0-9.]* ms (denoiser on batch 1)"
    check "diffusion named VAE" "$T/out" "decode    [0-9.]* ms (zoo:vae:preset=sd3-vae)"
    check "diffusion derives CLIP ViT-L/14" "$T/out" \
        "text      [0-9.]* ms, [0-9.]* J on 1 prompt (zoo:gpt:preset=clip-l)"
    check "diffusion per image" "$T/out" "per image [0-9.]* ms, [0-9.]* images/s"
    check "diffusion memory of every model" "$T/out" "(all 3 models resident)"
    grep -q "not counted" "$T/out" && bad "diffusion still says something is not counted" ||
        ok "diffusion counts the text encoder"
    check "diffusion MIG on the pipeline" "$T/out" "  MIG       [0-9]g\\.[0-9]*gb  (.* predicted + 10%"
}
run "diffusion sdxl encoders" 0 "$DIPPM" predict zoo:unet:preset=sdxl --steps 2 --precision fp16 && {
    check "diffusion sdxl CLIP ViT-L/14" "$T/out" "on 2 prompts (zoo:gpt:preset=clip-l)"
    check "diffusion sdxl OpenCLIP ViT-bigG/14" "$T/out" "on 2 prompts (zoo:gpt:preset=openclip-bigg)"
    check "diffusion sdxl memory" "$T/out" "(all 4 models resident)"
}
run "diffusion sd3" 0 "$DIPPM" predict zoo:dit:preset=sd3-medium --steps 28 --gpu h100 \
    --precision bf16 --runtime pytorch-sdpa && {
    check "diffusion sd3 CLIP ViT-L/14 with projection" "$T/out" \
        "on 2 prompts (zoo:gpt:preset=clip-l:head=projection)"
    check "diffusion sd3 OpenCLIP ViT-bigG/14" "$T/out" "on 2 prompts (zoo:gpt:preset=openclip-bigg)"
    check "diffusion sd3 T5 over 256 tokens" "$T/out" \
        "on 2 prompts (zoo:t5:preset=t5-v1_1-xxl-encoder:seq=256)"
    check "diffusion sd3 denoiser" "$T/out" "denoise   28 x [0-9.]* ms = [0-9.]* ms (denoiser on batch 2)"
    check "diffusion sd3 VAE" "$T/out" "decode    [0-9.]* ms (zoo:vae:preset=sd3-vae:latent=128)"
    check "diffusion sd3 memory" "$T/out" "(all 5 models resident)"
}
run "zoo sd3-medium" 0 "$DIPPM" zoo dit preset=sd3-medium &&
    check "zoo sd3-medium params" "$T/out" "params:  2028328000"
run "diffusion no text encoder" 0 "$DIPPM" predict zoo:unet:cross_dim=512 --steps 2 \
    --no-text-encoder && {
    check "diffusion text encoder left out" "$T/out" "text      no text encoder (left out)"
    check "diffusion two models" "$T/out" "(all 2 models resident)"
}
run "diffusion named text encoders" 0 "$DIPPM" predict zoo:dit:preset=pixart-sigma-xl2-512 \
    --steps 2 --text-encoder zoo:gpt:preset=clip-l,zoo:t5:preset=t5-small:stack=encoder \
    --text-encoder zoo:gpt:preset=openclip-h --json && {
    [ "$(grep -c '"spec": "zoo:' "$T/out")" -eq 3 ] && ok "diffusion three named encoders" ||
        bad "diffusion named encoders: $(grep '"spec"' "$T/out")"
    check "diffusion named T5 kept whole" "$T/out" '"spec": "zoo:t5:preset=t5-small:stack=encoder"'
}
run "diffusion unknown text encoder" 2 "$DIPPM" predict zoo:unet:cross_dim=512 --steps 2 &&
    check "diffusion unknown text encoder message" "$T/err" "--text-encoder SPEC .* --no-text-encoder"
run "diffusion text encoder needs steps" 2 "$DIPPM" predict zoo:unet --no-text-encoder &&
    check "diffusion text encoder needs steps message" "$T/err" "need --steps N"
run "diffusion text encoder both ways" 2 "$DIPPM" predict zoo:unet --steps 2 --no-text-encoder \
    --text-encoder zoo:gpt:preset=clip-l && check "diffusion text both message" "$T/err" \
    "exclude each other"
run "diffusion sweep csv" 0 "$DIPPM" sweep zoo:unet --steps 20 --over steps=10,20 --batch 1,2 \
    --csv && {
    check "diffusion sweep header" "$T/out" "^steps,batch,step_ms,vae_ms,text_ms,batch_ms,ms_per_image"
    [ "$(grep -c '^[12]0,[12],' "$T/out")" -eq 4 ] && ok "diffusion sweep rows" ||
        bad "diffusion sweep rows: $(cat "$T/out")"
    # 20 steps of the same batch: 20 x step + decode, 10 more steps than the 10-step row
    awk -F, 'NR > 1 && $2 == 1 { t[$1] = $6; s = $3 } END { d = t[20] - t[10] - 10 * s;
        exit !(d < 0.01 && d > -0.01) }' "$T/out" && ok "diffusion sweep adds steps x step" ||
        bad "diffusion sweep steps arithmetic"
    # a batch is its text encoding, its steps and its decode
    awk -F, 'NR > 1 { d = $6 - $5 - $1 * $3 - $4; if (d > 0.01 || d < -0.01 || $5 <= 0) e = 1 }
        END { exit e }' "$T/out" && ok "diffusion sweep adds the text encoder" ||
        bad "diffusion sweep text arithmetic"
}
run "diffusion max batch" 0 "$DIPPM" sweep zoo:unet:preset=sdxl --steps 30 --max-batch --gpu a100 \
    --precision fp16 && check "diffusion max batch line" "$T/out" "^largest batch on A100-SXM4-40GB for 30 steps: [0-9]* images"
run "diffusion max batch none" 1 "$DIPPM" sweep zoo:unet:preset=sdxl --steps 30 --max-batch \
    --gpu a100:1g.5gb --precision fp16 && check "diffusion none fits" "$T/out" "^no batch fits on"
run "diffusion sweep over other" 2 "$DIPPM" sweep zoo:unet --steps 20 --over seq=1,2 &&
    check "diffusion sweep over message" "$T/err" "with --steps, --over takes steps=RANGE"
run "diffusion bad steps" 2 "$DIPPM" predict zoo:unet --steps 0 &&
    check "diffusion bad steps message" "$T/err" "expected denoising steps from 1 to 10000"
run "diffusion vae needs steps" 2 "$DIPPM" predict zoo:unet --vae zoo:vae &&
    check "diffusion vae needs steps message" "$T/err" "need --steps N"
run "diffusion not with generation" 2 "$DIPPM" predict zoo:unet --steps 4 --input-tokens 8 \
    --output-tokens 8 && check "diffusion and generation message" "$T/err" "exclude each other"
run "diffusion unknown VAE" 2 "$DIPPM" predict "$S/resnet50.onnx" --steps 4 &&
    check "diffusion unknown VAE message" "$T/err" "name it with --vae SPEC"
run "generation needs both" 2 "$DIPPM" predict zoo:gpt --input-tokens 8 &&
    check "generation needs both message" "$T/err" "needs both --input-tokens N and --output-tokens M"
run "generation not a decoder" 2 "$DIPPM" predict zoo:bert --input-tokens 8 --output-tokens 8 &&
    check "not a decoder message" "$T/err" "zoo:bert is not one"
run "generation no cache" 2 "$DIPPM" predict "$S/gpt2_medium.onnx" --input-tokens 8 --output-tokens 8 &&
    check "no cache inputs named" "$T/err" "no input name contains 'past'"
run "bad kv precision" 2 "$DIPPM" predict zoo:gpt --input-tokens 8 --output-tokens 8 --set kv=fp4 &&
    check "bad kv precision message" "$T/err" "expected a KV-cache precision"
# padding-free encoders: --set tokens_mean=N real tokens per padded sequence
run "tokens_mean above seq" 2 "$DIPPM" predict zoo:bert --set seq=128 --set tokens_mean=129 &&
    check "tokens_mean above seq message" "$T/err" "--set tokens_mean: tokens_mean=129 exceeds seq=128"
run "tokens_mean zero" 2 "$DIPPM" predict zoo:bert --set tokens_mean=0 &&
    check "tokens_mean zero message" "$T/err" "--set 'tokens_mean=0': value must be an integer from 1"
run "tokens_mean without a sequence" 2 "$DIPPM" predict "$S/tiny_cnn.json" --set tokens_mean=4 &&
    check "tokens_mean without a sequence message" "$T/err" "tokens_mean=4: model '.*' has no sequence symbol"
run "tokens_mean in a generation" 2 "$DIPPM" predict zoo:gpt --set tokens_mean=8 --input-tokens 16 \
    --output-tokens 4 && check "tokens_mean in a generation message" "$T/err" "a generation or a diffusion"
run "tokens_mean written" 2 "$DIPPM" convert zoo:bert --set tokens_mean=8 -o "$T/tok.json" &&
    check "tokens_mean written message" "$T/err" "a dippm JSON file cannot hold it"
run "tokens_mean padded" 0 "$DIPPM" predict zoo:bert --runtime tensorrt --batch 8 --json &&
    mv "$T/out" "$T/padded.json"
run "tokens_mean half" 0 "$DIPPM" predict zoo:bert --runtime tensorrt --batch 8 --set tokens_mean=64 --json && {
    check "tokens_mean in the JSON" "$T/out" '"tokens_mean": 64,'
    p=$(sed -n 's/^  "teacher_latency_ms": \([0-9.]*\),$/\1/p' "$T/padded.json")
    h=$(sed -n 's/^  "teacher_latency_ms": \([0-9.]*\),$/\1/p' "$T/out")
    if [ -n "$p" ] && [ -n "$h" ] && awk -v p="$p" -v h="$h" 'BEGIN { exit !(h < 0.8 * p) }'; then
        ok "tokens_mean shortens the teacher's latency ($p -> $h ms)"
    else bad "tokens_mean: teacher latency '$p' padded, '$h' at half the tokens"; fi
}
grep -q '"tokens_mean"' "$T/padded.json" && bad "tokens_mean in a padded run's JSON" || ok "no tokens_mean in a padded run's JSON"
run "tokens_mean text" 0 "$DIPPM" predict zoo:bert --set tokens_mean=64 &&
    check "tokens_mean padding line" "$T/out" "^padding     removed: 64 real tokens per sequence of seq=128"
# an exported decoder: the template's decode step with dynamic token and past axes
"$DIPPM" convert zoo:gpt:layers=2:phase=decode -o "$T/dec.json" 2>/dev/null
sed -e 's/"shape": \["batch", 1\]/"shape": ["batch", "sequence_length"]/' \
    -e 's/"seq"/"past_sequence_length"/g' -e 's/past_key\./past_key_values.key./g' \
    -e 's/past_value\./past_key_values.value./g' "$T/dec.json" >"$T/dec2.json"
run "export generation" 0 "$DIPPM" predict "$T/dec2.json" --input-tokens 64 --output-tokens 16 && {
    # gpt2 width: 2 x 2 layers x 12 heads x 64 x 4 bytes = 12 KiB per token
    check "export kv per token" "$T/out" "(12.0 KiB per token per sequence)"
    check "export kv total" "$T/out" "KV cache  960 KiB at 80 tokens"
}
run "export kv-inputs" 2 "$DIPPM" predict "$T/dec2.json" --input-tokens 64 --output-tokens 16 \
    --kv-inputs cache && check "kv-inputs named in error" "$T/err" "no input name contains 'cache'"
run "sweep generation" 0 "$DIPPM" sweep zoo:gpt --csv --input-tokens 32 --output-tokens 8 \
    --batch 1,4 --over output_tokens=8,16 && {
    check "sweep generation header" "$T/out" "^input_tokens,output_tokens,batch,ttft_ms,tpot_ms"
    [ "$(grep -c '^32,' "$T/out")" -eq 4 ] && ok "sweep generation rows" || bad "sweep generation rows"
}
run "sweep generation max batch" 0 "$DIPPM" sweep zoo:llama --gpu h100 --precision fp16 \
    --runtime tensorrt --input-tokens 512 --output-tokens 512 --max-batch &&
    check "sweep generation max batch line" "$T/out" "^largest batch on H100-SXM5-80GB for 512 + 512 tokens"
run "sweep generation bad over" 2 "$DIPPM" sweep zoo:gpt --input-tokens 32 --output-tokens 8 \
    --over layers=2,4 && check "sweep generation over message" "$T/err" "input_tokens=RANGE"

# the explorer (headless): a decoder's generation line with its KV cache, :set names
printf ':set input_tokens=1024 output_tokens=256 kv=fp8<Enter>:gpu h100<Enter>:dump-screen %s<Enter>q' \
    "$T/ui.txt" >"$T/ui.keys"
run "explorer generation" 0 env DIPPM_NO_DISPLAY=1 DIPPM_SCRIPT="$T/ui.keys" DIPPM_COLS=130 \
    DIPPM_ROWS=30 XDG_STATE_HOME="$T/state" "$DIPPM" zoo:llama && {
    check "explorer generation line" "$T/ui.txt" "^Generation 1024+256 TTFT .* TPOT .* tok/s .* max batch"
    # tinyllama, fp8 cache: 2 x 22 x 4 x 64 x 1 byte = 11 KiB per token x 1280 tokens
    check "explorer KV cache on the Generation line" "$T/ui.txt" "^Generation 1024+256 .*(KV cache 13.8"
    check "explorer MIG line kept" "$T/ui.txt" "^MIG "
}

# Configurations a model cannot run are refused with one line naming the
# value and the limit, the same in every subcommand; never predicted.
# bert_base.onnx gathers rows of its 512-row 'pos.weight' by a Range over seq.
POS="sequence length 8192 exceeds the model's 512 positions (initializer 'pos.weight'"
for sub in predict info layers; do
    run "$sub refuses seq past the positions" 2 "$DIPPM" $sub --set seq=8192 "$S/bert_base.onnx" &&
        check "$sub names positions and initializer" "$T/err" "$POS" &&
        { [ ! -s "$T/out" ] && ok "$sub prints nothing for it" || bad "$sub printed output for seq=8192"; }
done
run "seq 513 refused" 2 "$DIPPM" predict --set seq=513 "$S/bert_base.onnx" &&
    check "seq 513 named" "$T/err" "sequence length 513 exceeds the model's 512 positions"
run "sweep marks refused points" 0 "$DIPPM" sweep --over seq=256,1024 --batch 1 "$S/bert_base.onnx" && {
    check "sweep keeps the valid point" "$T/out" "^       256       1 "
    check "sweep marks the refused one" "$T/out" "^      1024       1 refused: sequence length 1024 exceeds"; }
run "sweep json refused rows" 0 "$DIPPM" sweep --over seq=256,1024 --batch 1 --json "$S/bert_base.onnx" &&
    check "sweep json refused" "$T/out" "\"refused\": \"sequence length 1024 exceeds"
run "sweep of refusals only" 2 "$DIPPM" sweep --over seq=1024,2048 --batch 1 "$S/bert_base.onnx" &&
    check "sweep of refusals says so" "$T/err" "the model takes none of the points"
run "context refused" 2 "$DIPPM" predict --set seq=100000 zoo:llama:preset=llama2-70b &&
    check "context named" "$T/err" "seq=100000 exceeds the maximum 4096: the model's context holds 4096 tokens (context)"
run "generation past the context" 2 "$DIPPM" predict --input-tokens 4000 --output-tokens 200 \
    zoo:llama:preset=llama2-70b &&
    check "generation context named" "$T/err" "input_tokens 4000 + output_tokens 200 = 4200 exceeds the maximum 4096"
run "SDXL latent not a multiple" 2 "$DIPPM" info --set height=129 zoo:unet:preset=sdxl &&
    check "SDXL multiple named" "$T/err" "height=129 is not a multiple of 4: the UNet halves the latent 2 times"
# readable numbers: slow configurations are not "0 samples/s" or 1.81e+03 ms
run "readable slow figures" 0 "$DIPPM" predict --set seq=512 --batch 64 "$S/bert_base.onnx" && {
    check "latency with a unit" "$T/out" "^latency     [0-9.]* ms \[[0-9.]* [mµ]*s, [0-9.]* [mµ]*s\] 80%  "
    check "memory in GiB" "$T/out" "^memory      [0-9.]* GiB \[[0-9.]* GiB, [0-9.]* GiB\] 80% of 39.6 GiB usable"; }
run "readable generation" 0 "$DIPPM" predict --input-tokens 512 --output-tokens 128 \
    zoo:llama:preset=tinyllama-1.1b && check "e2e in seconds" "$T/out" "^  e2e       [0-9.]* s$"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
