#!/bin/sh
# tests/measure/run.sh - the measurement harness end to end on the CPU:
#   0. the example rows of man/dippm-measured.5 read back as documented, and
#      every GPU name the harness maps NVML names to is in dippm's GPU table;
#   1. its unit tests (tools/measure/test_measure.py);
#   2. measure.py --dry-run on torchvision squeezenet1_1 (batch 1,2; fp32, bf16;
#      3x64x64 input) with Debian's /usr/bin/python3 and torch;
#   3. the rows are read back with dippm's own reader (tests/test_measured
#      --validate): refused without --allow-dry-run, accepted with it;
#   4. dippm eval and dippm train refuse them as well, and dippm info loads the
#      weightless graph with squeezenet1_1's 1,235,496 parameters (torchvision's
#      documented count), which onnx confirms in a file of a few KB;
#   5. a cut last line (interrupted write) is reported by the reader and
#      dropped by the harness, which then resumes (in a child process, as
#      GPU runs do): it skips the 4 rows it has and adds only batch 4.
# Needs python3-torch, python3-torchvision, python3-onnx (./setup.sh check installs them);
# without them the test fails: a check that cannot run is not a pass.
set -u
top=${TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
py=${PYTHON:-/usr/bin/python3}
reader=${MEASURED_READER:-./tests/test_measured}
harness="$top/tools/measure/measure.py"
export PYTHONDONTWRITEBYTECODE=1  # leave no __pycache__ in the source tree

fail() { echo "FAIL: $*"; exit 1; }

[ -x "$py" ] || { echo "FAIL: no $py (run ./setup.sh check to install the test dependencies)"; exit 1; }
"$py" -c 'import torch, torchvision, onnx' 2>/dev/null ||
    { echo "FAIL: $py lacks torch, torchvision or onnx: apt-get install python3-torch python3-torchvision python3-onnx"; exit 1; }
[ -x "$reader" ] || fail "reader $reader not built"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/measure-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
tmp=$(cd "$tmp" && pwd -P)  # the reader returns graph paths through realpath
out="$tmp/run/measured.jsonl"

echo "== the example in dippm-measured(5) is accepted as documented"
mkdir -p "$tmp/man/graphs" && : >"$tmp/man/graphs/resnet50.onnx" && : >"$tmp/man/graphs/vgg16.onnx"
grep '^{"schema"' "$top/man/dippm-measured.5" >"$tmp/man/measured.jsonl"
"$reader" --validate "$tmp/man/measured.jsonl" >"$tmp/man.out" 2>&1 || { cat "$tmp/man.out"; fail "man example"; }
printf 'resnet50\t32\tfp16\tpytorch\tA100-SXM4-40GB\t-\t11.84\t12.02\t1890\t3.41\tmeasured\t%s\n' \
    "$tmp/man/graphs/resnet50.onnx" >"$tmp/man.exp"
printf 'resnet50\t8\tfp32\tpytorch\tA100-SXM4-40GB\t1g.5gb\t9.02\t9.3\t1342\tnull\tmeasured\t%s\nfailed\t1\n' \
    "$tmp/man/graphs/resnet50.onnx" >>"$tmp/man.exp"
diff "$tmp/man.exp" "$tmp/man.out" || fail "man example read back differently"

echo "== every GPU name the harness maps to is in dippm's GPU table"
PYTHONPATH="$top/tools/measure" "$py" -c '
import json, sys
import gpuinfo
for _, name in gpuinfo.GPU_NAMES:
    print(json.dumps({"schema": "dippm-measured/1", "source": "measured", "model": "m",
                      "graph": sys.argv[1], "batch": 1, "precision": "fp32",
                      "runtime": "pytorch", "gpu": name, "latency_ms": 1.0}))
' "$tmp/man/graphs/resnet50.onnx" >"$tmp/names.jsonl" || fail "names"
"$reader" --validate "$tmp/names.jsonl" >"$tmp/names.out" 2>&1 || { cat "$tmp/names.out"; fail "GPU names"; }
[ "$(grep -c '^m	' "$tmp/names.out")" -eq "$(wc -l <"$tmp/names.jsonl")" ] || fail "GPU name rows"

echo "== harness unit tests"
"$py" "$top/tools/measure/test_measure.py" >"$tmp/unit.log" 2>&1 ||
    { cat "$tmp/unit.log"; fail "tools/measure/test_measure.py"; }
tail -n 1 "$tmp/unit.log"

echo "== dry run: squeezenet1_1, batch 1,2, fp32,bf16"
"$py" "$harness" squeezenet1_1 --batch 1,2 --precision fp32,bf16 --input 3x64x64 \
    --warmup 1 --runs 3 --dry-run -o "$out" 2>"$tmp/run1.log" ||
    { cat "$tmp/run1.log"; fail "measure.py --dry-run exited with $?"; }
[ "$(wc -l <"$out")" -eq 4 ] || { cat "$out"; fail "expected 4 rows"; }
[ "$(grep -c '"params": 1235496,' "$out")" -eq 4 ] || fail "params of squeezenet1_1 in rows"

echo "== the reader refuses dry-run rows by default"
if "$reader" --validate "$out" >"$tmp/v0.out" 2>"$tmp/v0.err"; then
    fail "dry-run rows accepted without --allow-dry-run"
fi
grep -q "measured.jsonl:1: field 'source'" "$tmp/v0.err" || { cat "$tmp/v0.err"; fail "message"; }

echo "== the reader accepts them when allowed"
"$reader" --validate "$out" --allow-dry-run >"$tmp/v1.out" 2>"$tmp/v1.err" ||
    { cat "$tmp/v1.err"; fail "reader refused the harness's rows"; }
cat "$tmp/v1.out"
# model batch precision runtime gpu mig latency p90 memory energy source graph
awk -F'\t' -v g="$tmp/run/graphs/squeezenet1_1_3x64x64.onnx" '
    $1 == "failed" { failed = $2; next }
    {
        n++
        if ($1 != "squeezenet1_1" || $4 != "pytorch" || $11 != "dry-run" || $12 != g) bad++
        if (!($7 > 0) || !($8 >= $7) || $9 != "null" || $10 != "null") bad++
        seen[$2 "/" $3]++
    }
    END {
        if (n != 4 || failed != 0 || bad) exit 1
        if (seen["1/fp32"] != 1 || seen["2/fp32"] != 1 || seen["1/bf16"] != 1 ||
            seen["2/bf16"] != 1) exit 1
    }' "$tmp/v1.out" || fail "rows read back differ from the configurations run"

if [ -n "${DIPPM:-}" ]; then
    echo "== dippm eval and train refuse them too"
    [ -x "$DIPPM" ] || fail "DIPPM=$DIPPM is not executable"
    for sub in eval train; do
        if "$DIPPM" $sub --data "$out" -o "$tmp/w.dpw" >"$tmp/$sub.out" 2>"$tmp/$sub.err"; then
            fail "dippm $sub accepted dry-run rows"
        fi
        grep -q "measured.jsonl:1: field 'source': 'dry-run' row refused" "$tmp/$sub.err" ||
            { cat "$tmp/$sub.err"; fail "dippm $sub message"; }
    done
    [ ! -e "$tmp/w.dpw" ] || fail "dippm train wrote weights from dry-run rows"
    echo "== dippm loads the weightless graph"
    "$DIPPM" info "$tmp/run/graphs/squeezenet1_1_3x64x64.onnx" >"$tmp/info.out" 2>&1 ||
        { cat "$tmp/info.out"; fail "dippm info on the exported graph"; }
    grep -E "^params: +1235496 " "$tmp/info.out" || { cat "$tmp/info.out"; fail "params"; }
else
    echo "(DIPPM not set: dippm eval/train/info checks skipped; make check sets it)"
fi

echo "== the weightless graph"
"$py" - "$tmp/run/graphs/squeezenet1_1_3x64x64.onnx" <<'EOF' || fail "graph check"
import os, sys, onnx
path = sys.argv[1]
m = onnx.load(path)
n = 0
stripped = 0
for t in m.graph.initializer:
    k = 1
    for d in t.dims:
        k *= d
    if t.data_type == onnx.TensorProto.FLOAT:
        n += k
        # only float tensors of up to 16 elements keep their values
        has = len(t.raw_data) + len(t.float_data) > 0
        assert has == (k <= 16), (t.name, k, has)
        stripped += not has
dims = [d.dim_param or d.dim_value for d in m.graph.input[0].type.tensor_type.shape.dim]
size = os.path.getsize(path)
print("params %d (%d tensors stripped), input %s, %d bytes" % (n, stripped, dims, size))
assert n == 1235496, n          # torchvision's documented count for squeezenet1_1
assert dims == ["batch", 3, 64, 64], dims
assert size < 64 * 1024, size   # the full model is ~4.7 MB
EOF

echo "== interrupted write, then resume"
printf '{"schema": "dippm-measured/1", "model": "squeezen' >>"$out"
if "$reader" --validate "$out" --allow-dry-run >/dev/null 2>"$tmp/v2.err"; then
    fail "cut last line accepted"
fi
grep -q "measured.jsonl:5: bad JSON.*not terminated" "$tmp/v2.err" || { cat "$tmp/v2.err"; fail "message"; }
# --isolate: the resumed run measures the model in a child process, as GPU runs do.
"$py" "$harness" squeezenet1_1 --batch 1,2,4 --precision fp32,bf16 --input 3x64x64 \
    --warmup 1 --runs 3 --dry-run --isolate -o "$out" 2>"$tmp/run2.log" ||
    { cat "$tmp/run2.log"; fail "resumed run exited with $?"; }
cat "$tmp/run2.log"
grep -q "dropping an incomplete last line" "$tmp/run2.log" || fail "cut line not reported"
grep -q "2 rows written .* 4 already there" "$tmp/run2.log" || fail "resume did not skip 4 rows"
"$reader" --validate "$out" --allow-dry-run >"$tmp/v3.out" 2>"$tmp/v3.err" ||
    { cat "$tmp/v3.err"; fail "reader after resume"; }
[ "$(grep -c '^squeezenet1_1	4	' "$tmp/v3.out")" -eq 2 ] || fail "batch 4 rows missing"
[ "$(grep -c '^squeezenet1_1	' "$tmp/v3.out")" -eq 6 ] || fail "expected 6 rows"
echo "PASS"
